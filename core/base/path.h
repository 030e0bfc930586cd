/* path.h - names and relative paths from untrusted input (tar entries,
 * lockfile keys, package names, bin maps) checked before they touch the
 * file system. One rule set, used at every sink. */
#ifndef NUB_PATH_H
#define NUB_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* A package name as a folder name: "x" or "@scope/x"; each part non-empty,
 * not "." or "..", not "node_modules", no '\\', ':', control characters or
 * leading '.'/'_' in the scope-less part (npm's rules, uppercase allowed for
 * old packages; so never ".bin" or ".nub*"); at most 214 bytes. The one rule
 * for every string that becomes a folder under node_modules or a cache file
 * name: package names, and the keys dependencies are known by (an alias's
 * "<key>": "npm:<name>@<range>"), from every reader. */
bool nub_valid_pkg_name(const char *name);

/* Normalise a relative path: strip leading "./", collapse "//" and "/./".
 * Refuses (returns -EINVAL) absolute paths, ".." components, backslashes, empty
 * results, components over 255 bytes and a total over cap-1. Returns the
 * number of components on success. */
int nub_path_normalize(const char *in, char *out, size_t cap);

/* A bin command name: one component (a leading "@scope/" is dropped, like
 * npm), not "", "." or "..", no '/' or '\\'. Writes the name to use. */
bool nub_bin_name(const char *in, char *out, size_t cap);

/* "node_modules/a/node_modules/@s/b" -> its folder name "@s/b" (points into
 * path), or NULL when path does not end in a node_modules entry. */
const char *nub_path_pkg_name(const char *path);

/* The path of `alias` in the node_modules of the package at `level` (""
 * for the project): "node_modules/<alias>" or "<level>/node_modules/<alias>".
 * Caller frees. */
char *nub_path_nm_child(const char *level, const char *alias);
/* The level above `level`: "node_modules/a/node_modules/b" ->
 * "node_modules/a", "node_modules/a" -> "" (into out); false for "". */
bool nub_path_nm_parent(const char *level, char *out, size_t cap);

/* The relative path from the directory from_dir to `to`, both absolute,
 * "." and ".." applied by their names (as a symlink target: "../../x").
 * -EINVAL when a path is not absolute or the result does not fit. */
int nub_path_relative(const char *from_dir, const char *to, char *out, size_t cap);

/* A path the project gives (a file: dependency): absolute as it is, else
 * under project_dir. Caller frees. */
char *nub_project_path(const char *project_dir, const char *path);

#endif
