/* plan_berry.c - the plan from yarn berry's yarn.lock: the tree berry's
 * node_modules linker builds from it (berry.h, berry_tree.c), installed as
 * a hoisted tree. nodeLinker must be node-modules (.yarnrc.yml) unless
 * --node-linker names the layout.
 *
 * berry's lockfile pins versions but not tarballs: a package comes from
 * the configured registry, and since berry's checksum hashes berry's own
 * archive, not the tarball, the registry's integrity checks the download
 * (looked up only for packages the store does not have, plan.c). A
 * lockfile that no longer answers package.json is refused, naming the
 * dependency: nub does not write berry's lockfile. */
#include "berry.h"
#include "install_ctx.h"
#include "nub_alloc.h"
#include "plan.h"

static struct nub_pkg *identity(void *ud, const char *name, const char *version,
                                const char *tarball)
{
  struct nub_pkg *p = nub_plan_identity(ud, name, version, tarball, NULL);

  p->registry_integrity = true;
  return p;
}

int nub_plan_from_berry(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_plan *p = &c->plan;
  char *text = NULL;
  size_t len = 0;
  int rc;
  struct nub_berry_project bp = {
      .dir = c->s->proj.dir,
      .lockname = c->s->proj.lockfile,
      .root = &c->s->man,
      .ws = c->s->ws.source ? &c->s->ws : NULL,
      .os = c->caps.npm_os,
      .cpu = c->caps.npm_cpu,
      .libc = c->caps.libc,
      .cfg = &c->s->cfg,
      .linker_given = c->s->cfg.linker != NUB_LINKER_AUTO,
      .identity = identity,
      .ud = c,
      .scripts_off = &c->builds_off,
  };

  p->lockname = c->s->proj.lockfile;
  /* resolving again means writing berry's lockfile */
  if (c->o->nupdate || c->o->update_all || c->o->frozen == NUB_FROZEN_NO)
    return nub_err_set(err, -NUB_EUSAGE, "%s is yarn berry's, which nub installs but does not "
                       "write: update it with yarn (yarn up, yarn install)",
                       p->lockname);
  rc = nub_project_read_lockfile(&c->s->proj, &c->s->cfg, &text, &len, err);
  if (rc < 0)
    return rc;
  nub_tree_init(&p->tree, &p->pkgs);
  p->have_tree = true;
  rc = nub_berry_tree(&p->tree, text, len, &bp, err);
  nub_free(text);
  return rc;
}
