/* lifecycle.c - the project's and the dependencies' install scripts, for
 * every layout (the layout says where each package is and in what order
 * they run). */
#include "lifecycle.h"

#include <string.h>

#include "install_ctx.h"
#include "layout.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "scripts.h"
#include "store.h"

static bool scripts_off(const struct nub_install_ctx *c)
{
  return c->o->ignore_scripts || c->cfg.ignore_scripts;
}

int nub_lifecycle_root(struct nub_install_ctx *c, const char *const *events, int nevents,
                       struct nub_err *err)
{
  if (scripts_off(c))
    return 0;
  for (int i = 0; i < nevents; i++) {
    const char *cmd = !strcmp(events[i], "preinstall")    ? c->man.preinstall
                      : !strcmp(events[i], "install")     ? c->man.install
                      : !strcmp(events[i], "postinstall") ? c->man.postinstall
                                                          : c->man.prepare;
    int rc;
    if (!cmd)
      continue;
    rc = nub_script_run(c->proj.dir, c->proj.dir, c->man.name, c->man.version, events[i], cmd,
                        err);
    if (rc < 0)
      return rc;
  }
  return 0;
}

/* One dependency's preinstall, install and postinstall, from its own
 * package.json; a binding.gyp without an install script means
 * `node-gyp rebuild`, as npm does. */
static int run_one(struct nub_install_ctx *c, const struct nub_script_target *t,
                   struct nub_err *err)
{
  static const char *const ev[3] = {"preinstall", "install", "postinstall"};
  struct nub_manifest pm;
  int rc = nub_manifest_load(&pm, t->dir, err);

  if (rc < 0)
    return rc;
  {
    const char *cmds[3] = {pm.preinstall, pm.install, pm.postinstall};
    if (!pm.preinstall && !pm.install && !pm.postinstall &&
        (t->pkg->index->flags & NUB_IDX_BINDING_GYP))
      cmds[1] = "node-gyp rebuild";
    for (int e = 0; e < 3 && rc == 0; e++)
      if (cmds[e])
        rc = nub_script_run(c->proj.dir, t->dir, t->pkg->name, t->pkg->version, ev[e], cmds[e],
                            err);
  }
  nub_manifest_release(&pm);
  return rc;
}

int nub_lifecycle_deps(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_script_target *v = NULL;
  size_t n;
  int rc = 0;

  if (scripts_off(c))
    return 0;
  n = c->layout->script_targets(c, &v);
  for (size_t i = 0; i < n && rc == 0; i++) {
    if (!nub_install_trusted(c, v[i].pkg->name)) {
      if (c->nblocked++)
        nub_buf_adds(&c->blocked, ", ");
      nub_buf_addf(&c->blocked, "%s@%s", v[i].pkg->name, v[i].pkg->version);
      continue;
    }
    rc = run_one(c, &v[i], err);
  }
  nub_script_targets_free(v, n);
  return rc;
}

void nub_script_targets_free(struct nub_script_target *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    nub_free(v[i].dir);
  nub_free(v);
}
