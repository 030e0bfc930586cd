/* globallink.h - `nub link`: a local package made available by name.
 *
 *   nub link            in a package: <global>/node_modules/<name> -> the
 *                       package's directory, its bins in <global>/bin
 *   nub link <name>     in a project: node_modules/<name> -> the globally
 *                       linked package, its bins in node_modules/.bin
 *   nub link <dir>      in a project: node_modules/<name> -> <dir> directly
 *
 * <global> is $NUB_HOME, else $XDG_DATA_HOME/nub/global, else
 * ~/.local/share/nub/global. A link into a project is not saved in
 * package.json (npm's `npm link`): the next install removes it, as
 * `nub unlink <name>` does at once. */
#ifndef NUB_GLOBALLINK_H
#define NUB_GLOBALLINK_H

#include "err.h"

/* The global directory (caller frees), or NULL when no home is known. */
char *nub_global_dir(void);
/* Link the package at pkg_dir globally; *name gets its name (caller frees). */
int nub_link_global(const char *pkg_dir, char **name, struct nub_err *err);
/* Link `what` (a name linked globally, or a directory) into project_dir;
 * *name and *target (absolute) get what was linked (caller frees). */
int nub_link_into(const char *project_dir, const char *what, char **name, char **target,
                  struct nub_err *err);

/* `nub unlink`, undoing nub link: in a package, its global link (when it
 * is this package's) and the global bins that point into it; *name gets
 * its name (caller frees). -NUB_ENOTFOUND when it is not linked. */
int nub_unlink_global(const char *pkg_dir, char **name, struct nub_err *err);
/* In a project, node_modules/<name> when it is a link (what nub link makes)
 * and the .bin entries that point into what it linked. -NUB_ENOTFOUND when
 * node_modules/<name> is no link. */
int nub_unlink_from(const char *project_dir, const char *name, struct nub_err *err);

#endif
