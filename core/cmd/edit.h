/* edit.h - a command that edits the project's files, then installs (add,
 * remove, update, approve-builds, patch-commit): the project opened and
 * locked from the first read to the lockfile's write, every file it may
 * change kept in the journal first (journal.h), all of them put back byte
 * for byte when anything fails. */
#ifndef NUB_EDIT_H
#define NUB_EDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "add.h"
#include "agegate.h"
#include "journal.h"
#include "pool.h"
#include "progress.h"
#include "session.h"

struct nub_edit {
  struct nub_session s;      /* the project, its lock held from the first read to
                              * the last write */
  char **targets;            /* package dirs to edit, absolute */
  size_t ntargets;
  /* the files the edit may change, as they were (journal.h) */
  struct nub_journal_file *files;
  size_t nfiles, capfiles;
  struct nub_pool *pool;     /* the registry lookups' */
  struct nub_progress prog;
  bool have_prog;
  struct nub_age_gate gate;  /* the lookups' (agegate.h) */
  /* pnpm's formats: the versions the lockfile has, "name@version" keys
   * (read once, on the first lookup of a tag) */
  struct nub_graph *locked;
  bool locked_read;
  char *pick;                /* locked_pick's last answer (owned) */
};

/* The project, its workspace (members read) and the package.json files
 * to edit (o's --filter / -w, else the member nub runs in, else the root),
 * locked. nub_edit_release it whatever this returns. */
int nub_edit_open(struct nub_edit *e, const struct nub_add_opts *o, struct nub_err *err);
/* path (absolute) kept as it is now, to be put back; once per path. */
void nub_edit_keep(struct nub_edit *e, const char *path);
/* Every lockfile the install may write, kept. */
void nub_edit_keep_lockfiles(struct nub_edit *e);
/* Every target's package.json and every lockfile kept, and the journal
 * written: from here an interruption is undone by the next command. */
int nub_edit_begin(struct nub_edit *e, struct nub_err *err);
/* Every kept file put back as it was; one that was not there goes. */
void nub_edit_restore(struct nub_edit *e);
/* The install of the edited project (o's flags), on the same session; a
 * failure puts the files back. */
int nub_edit_install(struct nub_edit *e, const struct nub_add_opts *o,
                     struct nub_install_result *res, struct nub_err *err);
void nub_edit_release(struct nub_edit *e);

#endif
