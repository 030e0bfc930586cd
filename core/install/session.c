/* session.c - the project a command works on (session.h). */
#include "session.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "nub_alloc.h"
#include "progress.h"

static int absolute(const char *dir, char **out, struct nub_err *err)
{
  char cwd[4096];

  if (!getcwd(cwd, sizeof(cwd)))
    return nub_err_set(err, -errno, "cannot read the current directory");
  *out = !dir ? nub_strdup(cwd) : dir[0] == '/' ? nub_strdup(dir)
                                                : nub_asprintf("%s/%s", cwd, dir);
  return 0;
}

/* An edit of the project that was killed is undone before package.json is
 * read (journal.h): both it and the lockfile are then as they were. */
static int recover(struct nub_session *s, struct nub_err *err)
{
  struct nub_projlock l;
  int rc;

  if (!nub_projlock_pending(s->cfg.store_dir, s->root))
    return 0;
  rc = nub_projlock_take(&l, s->cfg.store_dir, s->root, s->o.say, err);
  s->undone = rc == 0 && l.recovered;
  nub_projlock_release(&l);
  return rc;
}

int nub_session_more(struct nub_session *s, unsigned flags, struct nub_err *err)
{
  int rc = 0;

  if (flags & NUB_OPEN_MEMBERS)
    flags |= NUB_OPEN_WORKSPACE;
  if (flags & (NUB_OPEN_WORKSPACE | NUB_OPEN_PROJECT))
    flags |= NUB_OPEN_MANIFEST;
  if (flags & (NUB_OPEN_PROJECT | NUB_OPEN_LOCK | NUB_OPEN_RECOVER))
    flags |= NUB_OPEN_CONFIG;
  flags &= ~s->opened;
  if (flags & NUB_OPEN_CONFIG) {
    rc = nub_config_load_for(&s->cfg, s->root, s->o.npmrc_dir ? s->o.npmrc_dir : s->root,
                             s->o.cfg, s->o.ncfg, err);
    if (rc < 0)
      return rc;
    s->opened |= NUB_OPEN_CONFIG;
  }
  /* the lock (or a recovery) before package.json is read: what a killed
   * edit left is put back first */
  if (flags & NUB_OPEN_LOCK) {
    rc = nub_projlock_take(&s->lock, s->cfg.store_dir, s->root, s->o.say, err);
    if (rc < 0)
      return rc;
    s->undone = s->lock.recovered;
    s->opened |= NUB_OPEN_LOCK | NUB_OPEN_RECOVER;
  } else if (flags & NUB_OPEN_RECOVER) {
    rc = recover(s, err);
    if (rc < 0)
      return rc;
    s->opened |= NUB_OPEN_RECOVER;
  }
  if ((flags & NUB_OPEN_MANIFEST) || (s->undone && (s->opened & NUB_OPEN_MANIFEST))) {
    if (s->opened & NUB_OPEN_MANIFEST) /* read before the recovery: again */
      nub_manifest_release(&s->man);
    s->opened &= ~NUB_OPEN_MANIFEST;
    rc = nub_manifest_load(&s->man, s->root, err);
    if (rc < 0)
      return rc;
    s->opened |= NUB_OPEN_MANIFEST;
  }
  if (flags & NUB_OPEN_WORKSPACE) {
    rc = nub_workspace_discover(&s->ws, s->root, &s->man, err);
    s->opened |= NUB_OPEN_WORKSPACE; /* (released whatever discover did) */
    if (rc < 0)
      return rc;
  }
  if ((flags & NUB_OPEN_MEMBERS) && s->ws.source) {
    rc = nub_workspace_load(&s->ws, err);
    if (rc < 0)
      return rc;
  }
  if (flags & NUB_OPEN_MEMBERS)
    s->opened |= NUB_OPEN_MEMBERS;
  if (flags & NUB_OPEN_PROJECT) {
    rc = nub_project_detect(&s->proj, s->root, &s->cfg, s->man.package_manager, s->o.fmts,
                            s->o.none, err);
    s->opened |= NUB_OPEN_PROJECT; /* (released whatever detect did) */
    if (rc < 0)
      return rc;
  }
  return 0;
}

int nub_session_open(struct nub_session *s, unsigned flags, const struct nub_session_opts *o,
                     struct nub_err *err)
{
  char *start = NULL;
  bool have_man = false;
  int rc;

  memset(s, 0, sizeof(*s));
  s->lock.fd = -1;
  s->o = *o;
  rc = absolute(o->dir, &start, err);
  /* run inside a workspace package, the command is the workspace's */
  if (rc == 0)
    rc = nub_workspace_find_root(start, &s->root, &s->man, &have_man, err);
  if (rc < 0) {
    nub_free(start);
    return rc;
  }
  if (have_man)
    s->opened |= NUB_OPEN_MANIFEST;
  s->cwd_rel = nub_strdup(strlen(start) > strlen(s->root) ? start + strlen(s->root) + 1 : "");
  nub_free(start);
  return nub_session_more(s, flags, err);
}

int nub_session_reread(struct nub_session *s, struct nub_err *err)
{
  unsigned had = s->opened & (NUB_OPEN_MANIFEST | NUB_OPEN_WORKSPACE | NUB_OPEN_MEMBERS);

  if (s->opened & NUB_OPEN_WORKSPACE)
    nub_workspace_release(&s->ws);
  if (s->opened & NUB_OPEN_MANIFEST)
    nub_manifest_release(&s->man);
  s->opened &= ~had;
  return nub_session_more(s, had, err);
}

void nub_session_close(struct nub_session *s)
{
  if (s->opened & NUB_OPEN_PROJECT)
    nub_project_release(&s->proj);
  if (s->opened & NUB_OPEN_WORKSPACE)
    nub_workspace_release(&s->ws);
  if (s->opened & NUB_OPEN_MANIFEST)
    nub_manifest_release(&s->man);
  nub_projlock_release(&s->lock);
  if (s->opened & NUB_OPEN_CONFIG)
    nub_config_release(&s->cfg);
  nub_free(s->root);
  nub_free(s->cwd_rel);
  memset(s, 0, sizeof(*s));
  s->lock.fd = -1;
}
