/* state.h - node_modules/.nub-state: what the last successful install built,
 * so that an unchanged project is "Already up to date" without parsing the
 * lockfile, and a changed one keeps the package directories that still match.
 *
 * Text format, header first so the no-op check reads only a few lines:
 *   nub-state 1
 *   layout <hoisted|isolated>
 *   settings <sha256 of the settings that shape node_modules>
 *   file <name> <size> <mtime_ns> <sha256>      (lockfile, package.json)
 *   check <path>                                (top-level entries)
 *   nodes <n>
 *   <store key or "-"> <path>                   (n lines)
 */
#ifndef NUB_STATE_H
#define NUB_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NUB_STATE_FILE "node_modules/.nub-state"
#define NUB_STATE_MAXFILES 4

struct nub_fingerprint {
  char name[64];
  uint64_t size, mtime_ns;
  char hash[65];
};

struct nub_state {
  char layout[16];
  char settings[65];
  struct nub_fingerprint files[NUB_STATE_MAXFILES];
  int nfiles;
  char **checks; /* paths that must still exist for "up to date" (owned) */
  size_t nchecks;
  char **keys, **paths; /* owned */
  size_t n;
};

/* Fingerprint a project file (size, mtime and SHA-256 of its bytes).
 * A missing file gives size 0 and an empty hash. */
int nub_fingerprint(int dir_fd, const char *name, struct nub_fingerprint *out);
/* Read the state of the project at dir_fd. header_only skips the nodes.
 * -ENOENT when there is none; -EINVAL when it is unreadable. */
int nub_state_read(struct nub_state *s, int dir_fd, bool header_only);
int nub_state_write(const struct nub_state *s, int dir_fd);
void nub_state_release(struct nub_state *s);
/* Whether the recorded files match the project's current ones (size+mtime,
 * or the same bytes when only the mtime moved). */
bool nub_state_files_match(const struct nub_state *s, int dir_fd);
/* Whether every "check" path still exists (a deleted package dir means the
 * install is not up to date). */
bool nub_state_checks_exist(const struct nub_state *s, int dir_fd);
void nub_state_add_check(struct nub_state *s, const char *path);

#endif
