/* projlock.c - the project's lock and the recovery of an interrupted edit
 * (projlock.h). */
#include "projlock.h"

#include <errno.h>
#include <string.h>

#include "journal.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "progress.h"
#include "store.h"

static char *path_of(const char *store_dir, const char *project_dir, const char *suffix)
{
  char *root = nub_store_root_path(store_dir);
  char *p = nub_store_project_path(root, "locks", project_dir, suffix);

  nub_free(root);
  return p;
}

bool nub_projlock_pending(const char *store_dir, const char *project_dir)
{
  char *j = path_of(store_dir, project_dir, ".edit");
  struct nub_plat_stat st;
  bool there = nub_plat_stat_at(NUB_PLAT_CWD, j, &st) == 0;

  nub_free(j);
  return there;
}

int nub_projlock_take(struct nub_projlock *l, const char *store_dir, const char *project_dir,
                      struct nub_progress *prog, struct nub_err *err)
{
  char *path = path_of(store_dir, project_dir, "");
  int rc;

  memset(l, 0, sizeof(*l));
  l->fd = -1;
  rc = nub_plat_lock(path, false, &l->fd);
  if (rc == -EWOULDBLOCK) {
    if (prog)
      nub_progress_warn(prog, "another nub install is running in %s; waiting for it",
                        project_dir);
    rc = nub_plat_lock(path, true, &l->fd);
  }
  nub_free(path);
  if (rc < 0) {
    l->fd = -1;
    return nub_err_set(err, -NUB_EBUSY, "cannot lock the project %s: %s", project_dir,
                       nub_strerror(rc));
  }
  l->journal = path_of(store_dir, project_dir, ".edit");
  {
    struct nub_err jerr;
    nub_err_clear(&jerr);
    rc = nub_journal_recover(l->journal, &jerr);
    if (rc < 0 && prog) /* (and it is gone: nothing to undo) */
      nub_progress_warn(prog, "%s", jerr.msg);
  }
  l->recovered = rc > 0;
  if (l->recovered && prog)
    nub_progress_warn(prog, "an earlier nub command that edited %s was interrupted; its "
                      "package.json and lockfile changes were undone", project_dir);
  return 0;
}

void nub_projlock_release(struct nub_projlock *l)
{
  if (l->fd >= 0)
    nub_plat_unlock(l->fd);
  l->fd = -1;
  nub_free(l->journal);
  l->journal = NULL;
}
