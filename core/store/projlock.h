/* projlock.h - one command at a time edits or installs a project.
 *
 * The lock is a file under the store (<store>/v1/locks/<hash of the
 * project's directory>), held with flock for the whole command: `nub add`
 * holds it from reading package.json to writing the lockfile, so a second
 * one waits and then edits the first one's result. Beside it lives the
 * journal of an edit in progress (journal.h); whoever takes the lock
 * finishes what an interrupted edit left. */
#ifndef NUB_PROJLOCK_H
#define NUB_PROJLOCK_H

#include <stdbool.h>

#include "err.h"

struct nub_progress;

struct nub_projlock {
  int fd;        /* -1 when not held */
  char *journal; /* this project's journal path (owned) */
  bool recovered; /* an interrupted edit's files were put back */
};

/* Take the lock of the project at project_dir (absolute) in the store at
 * store_dir, waiting for another command's (saying so once through prog,
 * which may be NULL), then recover a journal left behind. -NUB_EBUSY when
 * the lock cannot be taken. */
int nub_projlock_take(struct nub_projlock *l, const char *store_dir, const char *project_dir,
                      struct nub_progress *prog, struct nub_err *err);
/* Whether an interrupted edit left a journal (a stat, no lock). */
bool nub_projlock_pending(const char *store_dir, const char *project_dir);
/* Release the lock (safe on one never taken) and free l's strings. */
void nub_projlock_release(struct nub_projlock *l);

#endif
