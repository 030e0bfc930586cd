/* journal.h - an edit of a project's files (package.json, the lockfile)
 * that an interruption cannot leave half done.
 *
 * Before its first change, the edit records the files as they are in a
 * journal (one atomic write); after its last, it removes the journal. The
 * next command that takes the project's lock and finds a journal knows an
 * edit never finished (a kill -9, a power cut): it puts those files back,
 * so package.json and the lockfile are both as they were. Only a holder of
 * the project's lock writes, removes or recovers its journal. */
#ifndef NUB_JOURNAL_H
#define NUB_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* One file as it was: its contents, or absent (data NULL). */
struct nub_journal_file {
  char *path; /* absolute */
  char *data;
  size_t len;
};

/* Record files v[0..n) in the journal at `journal`, replacing any. */
int nub_journal_write(const char *journal, const struct nub_journal_file *v, size_t n,
                      struct nub_err *err);
/* Put every file back as recorded (a file that was absent is removed). */
void nub_journal_restore(const struct nub_journal_file *v, size_t n);
/* The edit is over, whole or put back: forget the journal. */
void nub_journal_done(const char *journal);
/* Finish what an interrupted edit left: 1 when a journal was there and its
 * files are put back (and it is gone), 0 when there was none; a journal
 * that cannot be read is removed and -NUB_ESTORE names it. */
int nub_journal_recover(const char *journal, struct nub_err *err);

#endif
