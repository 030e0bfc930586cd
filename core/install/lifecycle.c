/* lifecycle.c - the project's and the dependencies' install scripts, for
 * every layout (the layout says where each package is and in what order
 * they run). */
#include "lifecycle.h"

#include <string.h>

#include "pool.h"
#include "workspace.h"

#include "gitspec.h"
#include "install_ctx.h"
#include "layout.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "scripts.h"
#include "store.h"

static bool scripts_off(const struct nub_install_ctx *c)
{
  return c->o->ignore_scripts || c->s->cfg.ignore_scripts;
}

int nub_lifecycle_root(struct nub_install_ctx *c, const char *const *events, int nevents,
                       struct nub_err *err)
{
  if (scripts_off(c) || !nub_install_selected(c, 0))
    return 0;
  for (int i = 0; i < nevents; i++) {
    const char *cmd = !strcmp(events[i], "preinstall")    ? c->s->man.preinstall
                      : !strcmp(events[i], "install")     ? c->s->man.install
                      : !strcmp(events[i], "postinstall") ? c->s->man.postinstall
                                                          : c->s->man.prepare;
    int rc;
    if (!cmd)
      continue;
    rc = nub_script_run(c->s->proj.dir, c->s->proj.dir, c->s->man.name, c->s->man.version, events[i], cmd,
                        err);
    if (rc < 0)
      return rc;
  }
  return 0;
}

static const char *event_cmd(const struct nub_manifest *m, const char *event)
{
  return !strcmp(event, "preinstall")    ? m->preinstall
         : !strcmp(event, "install")     ? m->install
         : !strcmp(event, "postinstall") ? m->postinstall
                                         : m->prepare;
}

struct members_run {
  struct nub_install_ctx *c;
  const char *const *events;
  int nevents;
  size_t *todo; /* member indices of the level being run */
  int *rc;
  struct nub_err *errs;
};

static void run_member(void *ud, size_t k, int worker)
{
  struct members_run *mr = ud;
  const struct nub_ws_pkg *m = &mr->c->s->ws.pkgs[mr->todo[k]];
  char *dir = nub_asprintf("%s/%s", mr->c->s->proj.dir, m->dir);

  (void)worker;
  for (int i = 0; i < mr->nevents && mr->rc[k] == 0; i++) {
    const char *cmd = event_cmd(&m->man, mr->events[i]);
    if (cmd)
      mr->rc[k] = nub_script_run(mr->c->s->proj.dir, dir, m->man.name, m->man.version,
                                 mr->events[i], cmd, &mr->errs[k]);
  }
  nub_free(dir);
}

/* The members member i depends on (by name, in any dependency map). */
static size_t member_deps(const struct nub_workspace *ws, size_t i, size_t *out)
{
  const struct nub_manifest *m = &ws->pkgs[i].man;
  const struct nub_depmap *maps[3] = {&m->deps, &m->optional, &m->dev};
  size_t n = 0;

  for (int k = 0; k < 3; k++)
    for (size_t d = 0; d < maps[k]->n; d++) {
      const struct nub_ws_pkg *t = nub_workspace_find(ws, maps[k]->v[d].name);
      if (t && t != &ws->pkgs[i])
        out[n++] = (size_t)(t - ws->pkgs);
    }
  return n;
}

/* Each member's level: one more than the deepest member it depends on.
 * -NUB_EWORKSPACE on a cycle through a member with scripts to run. */
static int member_levels(struct nub_install_ctx *c, const bool *scripted, int *level,
                         struct nub_err *err)
{
  const struct nub_workspace *ws = &c->s->ws;
  size_t n = ws->npkgs;
  int *state = nub_calloc(n + 1, sizeof(int)); /* 0 new, 1 on the path, 2 done */
  size_t *path = nub_calloc(n + 1, sizeof(size_t)), *deps = nub_calloc(n * 3 + 1, sizeof(size_t));
  size_t *iter = nub_calloc(n + 1, sizeof(size_t)), *nd = nub_calloc(n + 1, sizeof(size_t));
  size_t **adj = nub_calloc(n + 1, sizeof(size_t *));
  int rc = 0;

  for (size_t i = 0; i < n; i++) {
    size_t cnt = member_deps(ws, i, deps);
    adj[i] = nub_calloc(cnt + 1, sizeof(size_t));
    memcpy(adj[i], deps, cnt * sizeof(size_t));
    nd[i] = cnt;
  }
  for (size_t s = 0; s < n && rc == 0; s++) {
    size_t sp = 0;
    if (state[s])
      continue;
    path[sp++] = s;
    state[s] = 1;
    iter[s] = 0;
    while (sp && rc == 0) {
      size_t v = path[sp - 1];
      if (iter[v] < nd[v]) {
        size_t w = adj[v][iter[v]++];
        if (state[w] == 1) { /* a cycle: w ... v -> w */
          size_t from = sp;
          bool any = false;
          struct nub_buf b = NUB_BUF_INIT;
          while (from > 0 && path[from - 1] != w)
            from--;
          for (size_t k = from ? from - 1 : 0; k < sp; k++) {
            any = any || scripted[path[k]];
            nub_buf_addf(&b, "%s -> ", ws->pkgs[path[k]].dir);
          }
          nub_buf_adds(&b, ws->pkgs[w].dir);
          if (any)
            rc = nub_err_set(err, -NUB_EWORKSPACE,
                             "the workspace packages depend on each other in a cycle (%s) and "
                             "one of them has install scripts, which need an order; break "
                             "the cycle or move the script", nub_buf_str(&b));
          nub_buf_release(&b);
        } else if (state[w] == 0) {
          state[w] = 1;
          iter[w] = 0;
          path[sp++] = w;
        }
        continue;
      }
      level[v] = 0;
      for (size_t k = 0; k < nd[v]; k++)
        if (state[adj[v][k]] == 2 && level[adj[v][k]] + 1 > level[v])
          level[v] = level[adj[v][k]] + 1;
      state[v] = 2;
      sp--;
    }
  }
  for (size_t i = 0; i < n; i++)
    nub_free(adj[i]);
  nub_free(adj);
  nub_free(state);
  nub_free(path);
  nub_free(deps);
  nub_free(iter);
  nub_free(nd);
  return rc;
}

int nub_lifecycle_members_check(struct nub_install_ctx *c, const char *const *events,
                                int nevents, struct nub_err *err)
{
  size_t n = c->s->ws.npkgs;
  bool *scripted;
  int *level, rc;

  if (scripts_off(c) || !n)
    return 0;
  scripted = nub_calloc(n + 1, sizeof(bool));
  level = nub_calloc(n + 1, sizeof(int));
  for (size_t i = 0; i < n; i++)
    for (int e = 0; e < nevents; e++)
      scripted[i] = scripted[i] || event_cmd(&c->s->ws.pkgs[i].man, events[e]) != NULL;
  rc = member_levels(c, scripted, level, err);
  nub_free(scripted);
  nub_free(level);
  return rc;
}

int nub_lifecycle_members(struct nub_install_ctx *c, const char *const *events, int nevents,
                          struct nub_err *err)
{
  size_t n = c->s->ws.npkgs;
  bool *scripted;
  int *level, maxlevel = -1, rc;

  if (scripts_off(c) || !n)
    return 0;
  scripted = nub_calloc(n + 1, sizeof(bool));
  level = nub_calloc(n + 1, sizeof(int));
  for (size_t i = 0; i < n; i++)
    for (int e = 0; e < nevents; e++)
      scripted[i] = scripted[i] || event_cmd(&c->s->ws.pkgs[i].man, events[e]) != NULL;
  rc = member_levels(c, scripted, level, err);
  for (size_t i = 0; i < n; i++)
    if (level[i] > maxlevel)
      maxlevel = level[i];
  for (int lv = 0; lv <= maxlevel && rc == 0; lv++) {
    struct members_run mr = {c, events, nevents, NULL, NULL, NULL};
    size_t k = 0;
    mr.todo = nub_calloc(n + 1, sizeof(size_t));
    for (size_t i = 0; i < n; i++)
      if (level[i] == lv && scripted[i] && nub_install_selected(c, i + 1))
        mr.todo[k++] = i;
    mr.rc = nub_calloc(k + 1, sizeof(int));
    mr.errs = nub_calloc(k + 1, sizeof(struct nub_err));
    /* members of one level do not depend on each other: they run at once,
     * as many as the pool has threads */
    if (k)
      nub_pool_for(c->pool, k, run_member, &mr);
    for (size_t j = 0; j < k && rc == 0; j++)
      if (mr.rc[j] < 0) {
        *err = mr.errs[j];
        rc = mr.rc[j];
      }
    nub_free(mr.todo);
    nub_free(mr.rc);
    nub_free(mr.errs);
  }
  nub_free(scripted);
  nub_free(level);
  return rc;
}

static bool bun_checkout(const struct nub_pkg *p)
{
  return nub_git_form_of(p->tarball) == NUB_GIT_AS_CHECKOUT;
}

bool nub_lifecycle_builds(const struct nub_pkg *p)
{
  unsigned f = p->index ? p->index->flags : 0;

  if (f & (NUB_IDX_INSTALL_SCRIPT | NUB_IDX_BINDING_GYP))
    return true;
  /* (an index written before the prepare flag says nothing: run_one reads
   * package.json itself) */
  return bun_checkout(p) && (f & (NUB_IDX_PREPARE_SCRIPT | NUB_IDX_PREPARE_KNOWN)) !=
                                NUB_IDX_PREPARE_KNOWN;
}

/* One dependency's preinstall, install and postinstall, from its own
 * package.json; a binding.gyp without an install script means
 * `node-gyp rebuild`, as npm does; then prepare for a git package bun
 * installs as its checkout (bun runs it there, as for the project). */
static int run_one(struct nub_install_ctx *c, const struct nub_script_target *t,
                   struct nub_err *err)
{
  static const char *const ev[4] = {"preinstall", "install", "postinstall", "prepare"};
  struct nub_manifest pm;
  int rc = nub_manifest_load(&pm, t->dir, err);

  if (rc < 0)
    return rc;
  {
    const char *cmds[4] = {pm.preinstall, pm.install, pm.postinstall,
                           bun_checkout(t->pkg) ? pm.prepare : NULL};
    if (!pm.preinstall && !pm.install && !pm.postinstall &&
        (t->pkg->index->flags & NUB_IDX_BINDING_GYP))
      cmds[1] = "node-gyp rebuild";
    for (int e = 0; e < 4 && rc == 0; e++)
      if (cmds[e])
        rc = nub_script_run(c->s->proj.dir, t->dir, t->pkg->name, t->pkg->version, ev[e], cmds[e],
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
    if (c->o->nrebuild && !nub_strarray_has(c->o->rebuild_names, c->o->nrebuild, v[i].pkg->name))
      continue;
    if (!nub_install_trusted(c, v[i].pkg->name, v[i].pkg->version)) {
      if (!nub_install_denied(c, v[i].pkg->name, v[i].pkg->version))
        nub_install_blocked(c, v[i].pkg->name, v[i].pkg->version, NULL);
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
