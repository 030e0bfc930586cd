/* state.h - node_modules/.nub-state/state: what the last successful
 * install built, so that an unchanged project is "Already up to date"
 * without parsing the lockfile, and a changed one keeps the package
 * directories that still match.
 *
 * What is on disk counts as much as the files: the state records the
 * status-change time and inode of every directory the layout made that holds
 * packages (node_modules at each level, scopes, .bin) and of every package
 * directory. Deleting, adding or replacing a package changes its parent's
 * time; deleting or adding something at a package's top its own. Any
 * difference makes the next install do the real check (layout.h), which
 * relinks what changed and removes what was added. The state lives in a
 * directory of its own so that writing it changes no recorded time.
 *
 * Text format, header first so the no-op check reads only a few lines:
 *   nub-state 2
 *   layout <hoisted|isolated>
 *   settings <fingerprint of the settings that shape node_modules>
 *   file <name> <size> <mtime_ns> <hash>        (lockfile, package.json)
 *   check <path>                                (links that must resolve)
 *   dir <ctime_ns> <inode> <path>               (directories as they were)
 *   direct <alias> <version>                    (for the next summary)
 *   nodes <n>
 *   <store key or "-"> <path>                   (n lines)
 */
#ifndef NUB_STATE_H
#define NUB_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NUB_STATE_DIR "node_modules/.nub-state"
#define NUB_STATE_FILE "node_modules/.nub-state/state"
struct nub_fingerprint {
  char name[256]; /* relative to the project: "package.json", "packages/a/package.json" */
  uint64_t size, mtime_ns;
  char hash[65];
};

struct nub_dirstamp {
  char *path;
  uint64_t ctime_ns, ino; /* the status-change time, which no utimes sets
                           * back; a directory made anew has another inode */
};

struct nub_state {
  char layout[16];
  char settings[65];
  struct nub_fingerprint *files; /* the lockfile first, then every package.json (owned) */
  int nfiles;
  size_t capfiles;
  char **checks; /* paths that must still exist for "up to date" (owned) */
  size_t nchecks;
  struct nub_dirstamp *dirs; /* owned; the paths read from the file point
                              * into text, those added since are copies */
  size_t ndirs, capdirs;
  char **directs; /* "<alias> <version>" of the project's direct dependencies */
  size_t ndirects;
  char **keys, **paths; /* owned */
  size_t n;
  char *text; /* the file as read (owned) */
  size_t textlen;
};

/* Fingerprint a project file (size, mtime and SHA-256 of its bytes).
 * A missing file gives size 0 and an empty hash. */
int nub_fingerprint(int dir_fd, const char *name, struct nub_fingerprint *out);
/* Fingerprint `name` as the state's next file. */
int nub_state_add_file(struct nub_state *s, int dir_fd, const char *name);
/* Read the state of the project at dir_fd. header_only skips the nodes
 * (the directory times are read either way).
 * -ENOENT when there is none; -EINVAL when it is unreadable. */
int nub_state_read(struct nub_state *s, int dir_fd, bool header_only);
/* The same from a state's text (NUL-terminated), which s then owns. */
int nub_state_parse(struct nub_state *s, char *text, size_t len, bool header_only);
/* Write (directories sorted) atomically into NUB_STATE_DIR, which exists. */
int nub_state_write(struct nub_state *s, int dir_fd);
void nub_state_release(struct nub_state *s);
/* Whether the recorded files match the project's current ones (size+mtime,
 * or the same bytes when only the mtime moved). */
bool nub_state_files_match(const struct nub_state *s, int dir_fd);
/* Whether every "check" path still exists (a deleted package dir means the
 * install is not up to date). */
bool nub_state_checks_exist(const struct nub_state *s, int dir_fd);
void nub_state_add_check(struct nub_state *s, const char *path);
/* A direct dependency as installed ("a", "1.2.3"), for the summary of the
 * next install. */
void nub_state_add_direct(struct nub_state *s, const char *alias, const char *version);
/* Record path's status-change time and inode as they are now (nothing if
 * it is not a directory). */
void nub_state_add_dir(struct nub_state *s, int dir_fd, const char *path);
/* Whether every recorded directory is still there with its time. */
bool nub_state_dirs_match(const struct nub_state *s, int dir_fd);
/* The recorded stamp of path, or NULL when the state has none. */
const struct nub_dirstamp *nub_state_dir(const struct nub_state *s, const char *path);
/* Whether path is a directory now with stamp st (false for st NULL). */
bool nub_state_dir_unchanged(int dir_fd, const char *path, const struct nub_dirstamp *st);

#endif
