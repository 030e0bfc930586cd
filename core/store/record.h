/* record.h - an install remembered, to be made again without planning.
 *
 * An isolated install whose every package lives in the global virtual
 * store leaves in the project only links (to entries in the store, and the
 * .bin links), the directories that hold them, and its state. What it made
 * follows from its inputs: the settings that shape node_modules, this
 * machine's platform, whether scripts run, and the bytes of the lockfile
 * and package.json. nub keeps it in the store under a digest of those
 * inputs (<store>/v1/records/<digest>). A later install of the same inputs
 * into a project without node_modules makes the same links from it once
 * every entry it reaches is checked to be in the store as it was: an entry
 * in links/ is named for its whole closure, and a package tree's ready
 * marker must still name the entry it was. That is a stat or a readlink
 * per package and a link per direct dependency, instead of reading the
 * lockfile, every package's index and every marker. Whatever a record
 * cannot vouch for is the full install (the driver decides, install.c).
 *
 * The store keeps the newest NUB_RECORDS_KEPT of them.
 *
 * Format (text, written whole and renamed into place):
 *   nub-record 1
 *   added <packages>
 *   warn <text>                  what the install said, in order
 *   entry <path>\t<marker>       each package's entry (isolated.h)
 *   link <path>\t<target>        every link in the project, parents first
 *   state                        the rest is the state's text as written
 */
#ifndef NUB_RECORD_H
#define NUB_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "state.h"
#include "store.h"

#define NUB_RECORDS_KEPT 64

/* The digest of an install's inputs: context (settings, platform, ...)
 * and the bytes of each file (names relative to dir_fd; a missing file
 * counts as missing). 0, or negative when a file cannot be read. */
int nub_record_digest(int dir_fd, const char *context, char *const *files, size_t nfiles,
                      char out[33]);

struct nub_record {
  size_t added;
  char **warnings; /* owned */
  size_t nwarnings;
  /* the recorded state: layout, settings, checks, directs and nodes, with
   * its directories stamped as the replay made them; no files (the caller
   * fingerprints them) */
  struct nub_state state;
};

/* Make the project's node_modules from the record named digest; the
 * project must have none. 0 with *r filled; -ENOENT when there is no
 * record, -ESTALE when an entry it names is not as it was, another
 * negative code when making the links failed. On failure nothing is left
 * in the project. */
int nub_record_replay(const struct nub_store *st, const char *digest, int proj_fd,
                      struct nub_record *r);
void nub_record_release(struct nub_record *r);

/* Remember what the project holds now, just after an install wrote its
 * state: entries as the layout gave them, added and warnings for the
 * summary. Nothing is written when the project holds anything but
 * directories the state names and links. Best effort: a record that
 * cannot be written is no record. */
void nub_record_save(const struct nub_store *st, const char *digest, int proj_fd,
                     char *const *entries, size_t nentries, size_t added,
                     char *const *warnings, size_t nwarnings);

/* Drop every record (prune: the entries they name may go). */
void nub_record_forget_all(const struct nub_store *st);

#endif
