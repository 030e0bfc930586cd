/* plan_yarn.c - the plan from yarn.lock (yarn 1): its graph, each direct
 * dependency found by its "name@spec" among the entries (yarn's
 * --frozen-lockfile rule), placed by the layout (hoisted by default, as
 * yarn 1 places packages; see hoist_npm.h). A yarn.lock that no longer
 * answers package.json is resolved again and written back as yarn writes
 * it, or refused, naming the dependency, under --frozen-lockfile. */
#include <string.h>

#include "install_ctx.h"
#include "lockfile_berry.h"
#include "lockfile_yarn.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "plan.h"
#include "buf.h"
#include "text.h"


/* The previous graph's `resolved` and `integrity` strings onto the versions
 * kept: yarn writes a kept entry back as it read it (an old sha1 integrity
 * stays sha1). */
static void keep_resolved(struct nub_graph *g, const struct nub_graph *prev)
{
  for (size_t i = 0; i < g->npkgs; i++) {
    /* (a yarn.lock graph's keys are its packages' keys: no peer suffixes) */
    const struct nub_gpkg *was = nub_graph_find(prev, g->pkgs[i]->pkg_key);
    if (was && was->resolved) {
      nub_free(g->pkgs[i]->resolved);
      g->pkgs[i]->resolved = nub_strdup(was->resolved);
    }
    if (was && was->integrity) {
      nub_free(g->pkgs[i]->integrity);
      g->pkgs[i]->integrity = nub_strdup(was->integrity);
    }
  }
}

int nub_plan_from_yarn(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_plan *p = &c->plan;
  struct nub_graph prev;
  char *text = NULL;
  size_t len = 0;
  bool stale = false, again = c->o->frozen == NUB_FROZEN_NO || c->o->nupdate || c->o->update_all;
  int rc;

  p->lockname = c->s->proj.lockfile;
  rc = nub_project_read_lockfile(&c->s->proj, &c->s->cfg, &text, &len, err);
  if (rc < 0)
    return rc;
  nub_graph_init(&p->graph);
  p->have_graph = true;
  if (!c->frozen && nub_text_conflict_marker(text, len, &(size_t){0}))
    nub_install_warn_unconflict(c, "as yarn 1 merges them: where both lock a range, theirs");
  /* frozen (nub ci, CI): the lockfile must answer package.json as it is */
  rc = nub_lockfile_yarn_parse(&p->graph, text, len, p->lockname, &c->s->man,
                               c->s->ws.source ? &c->s->ws : NULL, &c->s->cfg,
                               c->frozen ? NULL : &stale, err);
  nub_free(text);
  if (rc < 0 || (!stale && !again))
    return rc;
  /* as `yarn install` does: resolve again, keeping the lockfile's versions
   * where they still satisfy, and write yarn.lock back */
  prev = p->graph;
  nub_graph_init(&p->graph);
  rc = nub_plan_resolve(c, c->o->frozen == NUB_FROZEN_NO ? NULL : &prev, err);
  if (rc == 0) {
    struct nub_buf b = NUB_BUF_INIT;
    keep_resolved(&p->graph, &prev);
    nub_lockfile_yarn_write(&c->plan.graph, &c->s->cfg, &c->s->man.overrides, &b);
    rc = nub_plan_stage_lock(c, &b, err);
  }
  nub_graph_release(&prev);
  return rc;
}

/* ---- placing, after the fetch ------------------------------------------------- */

#include <cjson/cJSON.h>

#include "diag.h"
#include "engines.h"
#include "hoist_yarn.h"
#include "pool.h"
#include "semver.h"
#include "store.h"
#include "sync.h"

static bool has_peers(void *ud, const struct nub_gpkg *p)
{
  (void)ud;
  return p->peers.n > 0;
}

/* The package a gpkg edge named `alias` points at, or NULL. */
static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

struct peers_job {
  struct nub_install_ctx *c;
  bool *incompatible;
  bool *engine_fails; /* its engines.node does not allow the node on PATH */
};

/* yarn 1 reads each package's engines from its package.json: node's range
 * (NULL: none; owned by the caller) from the text. */
static char *engine_node(const char *text, size_t len)
{
  cJSON *doc, *node;
  char *out = NULL;

  if (!memmem(text, len, "\"engines\"", 9))
    return NULL;
  doc = cJSON_ParseWithLength(text, len);
  node = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "engines"),
                                          "node");
  if (cJSON_IsString(node))
    out = nub_strdup(node->valuestring);
  cJSON_Delete(doc);
  return out;
}

static void read_peers(void *ud, size_t i, int worker)
{
  struct peers_job *pj = ud;
  struct nub_gpkg *x = pj->c->plan.graph.pkgs[i];
  const struct nub_index *idx = x->fetch ? x->fetch->index : NULL;
  char *text = NULL;
  size_t len = 0;
  struct nub_manifest m;
  struct nub_err e2;

  (void)worker;
  if (!idx)
    return;
  pj->incompatible[i] = !nub_platform_allows_csv(idx->os, pj->c->caps.npm_os) ||
                        !nub_platform_allows_csv(idx->cpu, pj->c->caps.npm_cpu);
  /* yarn 1 reads each package's package.json: its engines (every one,
   * with a node to judge by) and its peers (most packages declare none:
   * the store's index says so, or for an index from before it did, the
   * text) */
  if ((pj->incompatible[i] || pj->c->node_known <= 0) && (idx->flags & NUB_IDX_PEERS_KNOWN) &&
      !(idx->flags & NUB_IDX_HAS_PEERS))
    return;
  if (nub_store_read_pkg_file(&pj->c->store, idx, "package.json", &text, &len) < 0)
    return;
  if (!pj->incompatible[i] && pj->c->node_known > 0) {
    char *range = engine_node(text, len);
    if (range && !nub_engine_allows(range, pj->c->node_version))
      pj->incompatible[i] = pj->engine_fails[i] = true;
    nub_free(range);
  }
  if (memmem(text, len, "\"peerDependencies\"", 18) &&
      nub_manifest_parse(&m, text, len, "package.json", &e2) == 0) {
    nub_depmap_release(&x->peers);
    x->peers = m.peer;
    memset(&m.peer, 0, sizeof(m.peer));
    nub_manifest_release(&m);
  }
  nub_free(text);
}

/* The walk for shortest paths: each package once, the package it was
 * first reached from (-1: an importer) and that importer. */
struct paths {
  bool *seen;
  long *parent;
  size_t *seed_im;
};

static bool enter_path(void *ud, size_t to, long from, size_t importer)
{
  struct paths *w = ud;

  if (w->seen[to])
    return false;
  w->seen[to] = true;
  w->parent[to] = from;
  if (from < 0)
    w->seed_im[to] = importer;
  return true;
}

/* The walk for what is installed: never into a package for another
 * platform. */
struct needed {
  bool *required;
  const bool *incompatible;
};

static bool enter_needed(void *ud, size_t to, long from, size_t importer)
{
  struct needed *w = ud;

  (void)from;
  (void)importer;
  if (w->required[to] || w->incompatible[to])
    return false;
  w->required[to] = true;
  return true;
}

/* The package an importer's direct dependency `name` is, or NULL. */
static struct nub_gpkg *importer_dep(const struct nub_graph *g, const struct nub_importer *im,
                                     const char *name)
{
  struct nub_gpkg *v = NULL;

  for (int kk = 0; kk < NUB_DEP_KINDS && !v; kk++) {
    const struct nub_gdirect *d;
    size_t nd = nub_importer_directs(im, kk, &d);
    for (size_t j = 0; j < nd && !v; j++)
      if (!strcmp(d[j].alias, name)) {
        char *t = nub_gedge_target(d[j].alias, d[j].ref);
        v = t ? nub_graph_find(g, t) : NULL;
        nub_free(t);
      }
  }
  return v;
}

int nub_plan_yarn_place(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_plan *p = &c->plan;
  struct nub_graph *g = &p->graph;
  size_t n = g->npkgs;
  long *parent = nub_calloc(n + 1, sizeof(long));   /* on the shortest path; -1: the root */
  bool *seen = nub_calloc(n + 1, sizeof(bool)), *required = nub_calloc(n + 1, sizeof(bool));
  bool *incompatible = nub_calloc(n + 1, sizeof(bool));
  bool *engine_fails = nub_calloc(n + 1, sizeof(bool));
  size_t *seed_im = nub_calloc(n + 1, sizeof(size_t)); /* the importer a path starts at */
  int rc;

  /* each package's peers (yarn reads them from the package) and platform,
   * on every worker: a read and a parse per package */
  {
    struct peers_job pj = {c, incompatible, engine_fails};
    uint64_t t0 = nub_plat_now_ns();
    /* (the node's version before the workers ask it) */
    if (!c->node_known)
      c->node_known = nub_node_version(c->s->cfg.cache_dir, c->node_version,
                                       sizeof(c->node_version)) ? 1 : -1;
    nub_pool_for(c->pool, n, read_peers, &pj);
    nub_diag_debugf("yarn: peers read in %.1f ms", (double)(nub_plat_now_ns() - t0) / 1e6);
  }
  /* shortest paths from the project and its members (breadth-first, in
   * edge order) */
  {
    struct paths pw = {seen, parent, seed_im};
    nub_graph_bfs(g, enter_path, &pw);
  }
  /* a peer resolves to what the nearest ancestor on that path asks for
   * (the project included) when it satisfies the range; yarn then counts
   * it among the package's dependencies */
  for (size_t i = 0; i < n; i++) {
    struct nub_gpkg *x = g->pkgs[i];
    for (size_t k = 0; seen[i] && k < x->peers.n; k++) {
      const char *name = x->peers.v[k].name, *range = x->peers.v[k].spec;
      struct nub_gpkg *v = NULL;
      if (nub_graph_edge_target(g, x, name))
        continue; /* a dependency too */
      for (long a = parent[i], last = (long)i; !v; last = a, a = a >= 0 ? parent[a] : -2) {
        if (a == -2)
          break;
        if (a >= 0) {
          v = nub_graph_edge_target(g, g->pkgs[a], name);
        } else {
          /* the importer (project or member) that depends on the path's
           * first package, then, for a member, the project: yarn requests
           * the project's own dependencies first, at no depth, so every
           * path has them above it (package-linker's resolvePeerModules:
           * a request whose parent names begin the dependent's path) */
          v = importer_dep(g, &g->importers[seed_im[last]], name);
          if (!v && seed_im[last] != 0)
            v = importer_dep(g, &g->importers[0], name);
        }
      }
      if (!v || (strcmp(range, "*") && !nub_sync_satisfies(range, name, v->name, v->version)))
        continue;
      x->deps = nub_realloc(x->deps, (x->ndeps + 1) * sizeof(*x->deps));
      x->deps[x->ndeps].alias = nub_strdup(name);
      /* by its key: a git package's is not name@version */
      x->deps[x->ndeps].ref = nub_strdup(v->key);
      x->ndeps++;
      /* its pattern for yarn's order: the first of the peer's own */
      if (v->npatterns) {
        char **pats = nub_calloc(v->npatterns, sizeof(char *));
        const char *at;
        memcpy(pats, v->patterns, v->npatterns * sizeof(char *));
        nub_sort(pats, v->npatterns, sizeof(char *), cmp_str);
        at = strchr(pats[0][0] == '@' ? pats[0] + 1 : pats[0], '@');
        x->dep_specs.v = nub_realloc(x->dep_specs.v, (x->dep_specs.n + 1) * sizeof(struct nub_dep));
        x->dep_specs.v[x->dep_specs.n].name = nub_strdup(name);
        x->dep_specs.v[x->dep_specs.n].spec = nub_strdup(at ? at + 1 : "");
        x->dep_specs.n++;
        nub_free(pats);
      }
    }
  }
  /* what is installed: reached from the project without going through a
   * package for another platform */
  {
    struct needed nw = {required, incompatible};
    nub_graph_bfs(g, enter_needed, &nw);
  }
  /* yarn 1 fails on a package the node does not run that is not optional
   * ("The engine "node" is incompatible with this module"), unless told to
   * ignore engines (nub: --force); an optional one it leaves out, as above */
  for (size_t i = 0; i < n; i++)
    if (engine_fails[i] && !g->pkgs[i]->optional && !c->o->force) {
      rc = nub_err_set(err, -NUB_EPLATFORM, "%s@%s: the engine \"node\" is incompatible "
                       "with it (this is %s; it says so in its package.json's engines), as "
                       "yarn refuses it; --force installs it anyway (yarn's --ignore-engines)",
                       g->pkgs[i]->name, g->pkgs[i]->version, c->node_version);
      goto out;
    }
  nub_tree_init(&p->tree, &p->pkgs);
  p->have_tree = true;
  {
    uint64_t t0 = nub_plat_now_ns();
    rc = nub_tree_from_graph_yarn(&p->tree, g, c->s->ws.source ? &c->s->ws : NULL, &c->s->cfg,
                                  has_peers, NULL, err);
    nub_diag_debugf("yarn: hoisted in %.1f ms", (double)(nub_plat_now_ns() - t0) / 1e6);
  }
  for (size_t i = 0; rc == 0 && i < p->tree.n; i++) {
    struct nub_node *nd = &p->tree.nodes[i];
    if (nd->gpkg && !required[nd->gpkg->index])
      nd->skip = true; /* yarn placed it, and links it not */
  }
out:
  nub_free(engine_fails);
  nub_free(parent);
  nub_free(seen);
  nub_free(required);
  nub_free(incompatible);
  nub_free(seed_im);
  return rc;
}
