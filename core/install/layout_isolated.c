/* layout_isolated.c - the isolated layout (pnpm's): each package in its own
 * directory under node_modules/.nub, dependencies as symlinks beside it,
 * the project's direct dependencies linked at the top; with the global
 * virtual store those directories are entries in the store (isolated.c).
 * A tree plan (an npm or bun lockfile under --node-linker isolated) becomes
 * a graph first (convert.c), each node's dependencies found the way Node
 * finds them. */
#include <stdio.h>
#include <string.h>

#include "bins.h"
#include "diag.h"
#include "tree_graph.h"
#include "install_ctx.h"
#include "link_isolated.h"
#include "layout.h"
#include "lifecycle.h"
#include "nub_alloc.h"
#include "store.h"
#include "strmap.h"

/* Skip what this install leaves out: optional packages for another platform,
 * dev-only packages under --prod, optional ones under --no-optional, and
 * whatever the kept direct dependencies no longer reach. */
static int filter(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_graph *g = &c->plan.graph;
  const struct nub_install_opts *o = c->o;
  bool *reach = nub_calloc(g->npkgs + 1, sizeof(bool));
  size_t *stack = nub_malloc(sizeof(size_t) * (g->npkgs + 1)), sp = 0;
  int rc = 0;

  for (size_t i = 0; i < g->npkgs; i++) {
    struct nub_gpkg *p = g->pkgs[i];
    p->skip = false;
    if (!nub_install_platform_ok(c, p->os, p->nos, p->cpu, p->ncpu, p->libc, p->nlibc) ||
        (p->optional && !nub_install_libc_by_name_ok(c, p->name, p->nlibc))) {
      if (p->optional) {
        p->skip = true;
        continue;
      }
      if (!o->force && nub_install_platform_warns(c)) {
        nub_progress_warn(&c->prog, "%s does not support this platform (%s %s) and is not "
                          "optional; installed all the same, as pnpm installs it", p->key,
                          c->caps.npm_os, c->caps.npm_cpu);
      } else if (!o->force) {
        rc = nub_err_set(err, -NUB_EPLATFORM,
                         "%s does not support this platform (%s %s) and is not optional; "
                         "use --force to install it anyway", p->key, c->caps.npm_os,
                         c->caps.npm_cpu);
        goto out;
      }
    }
    {
      bool skip;
      rc = nub_install_engine_check(c, p->key, nub_depmap_get(&p->engines, "node"),
                                    p->optional, &skip, err);
      if (rc < 0)
        goto out;
      if (skip) {
        p->skip = true;
        continue;
      }
    }
    if (p->optional && o->omit_optional)
      p->skip = true;
  }
  for (size_t m = 0; m < g->nimporters * NUB_DEP_KINDS; m++) {
    const struct nub_importer *im = &g->importers[m / NUB_DEP_KINDS];
    int k = (int)(m % NUB_DEP_KINDS);
    const struct nub_gdirect *d;
    size_t n = im->skip ? 0 : nub_importer_directs(im, k, &d);
    if ((k == NUB_DEP_DEV && o->omit_dev) || (k != NUB_DEP_DEV && o->dev_only) ||
        (k == NUB_DEP_OPTIONAL && o->omit_optional))
      continue;
    for (size_t i = 0; i < n; i++) {
      char *t = nub_gedge_target(d[i].alias, d[i].ref);
      struct nub_gpkg *p = t ? nub_graph_find(g, t) : NULL;
      nub_free(t);
      if (p && !p->skip && !reach[p->index]) {
        reach[p->index] = true;
        stack[sp++] = p->index;
      }
    }
  }
  while (sp) {
    struct nub_gpkg *p = g->pkgs[stack[--sp]];
    for (size_t e = 0; e < p->ndeps + p->noptional_deps; e++) {
      const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
      char *t = nub_gedge_target(ed->alias, ed->ref);
      struct nub_gpkg *q = t ? nub_graph_find(g, t) : NULL;
      nub_free(t);
      if (q && !q->skip && !reach[q->index]) {
        reach[q->index] = true;
        stack[sp++] = q->index;
      }
    }
  }
  for (size_t i = 0; i < g->npkgs; i++)
    if (!reach[i])
      g->pkgs[i]->skip = true;
out:
  nub_free(reach);
  nub_free(stack);
  return rc;
}

static void count_installed(struct nub_install_ctx *c)
{
  c->installed = 0;
  for (size_t i = 0; i < c->plan.graph.npkgs; i++)
    c->installed += !c->plan.graph.pkgs[i]->skip;
}

/* A kept package an edge or a direct dependency points at, or NULL. */
static struct nub_gpkg *kept_target(const struct nub_graph *g, const char *alias, const char *ref)
{
  char *t = nub_gedge_target(alias, ref);
  struct nub_gpkg *q = t ? nub_graph_find(g, t) : NULL;

  nub_free(t);
  return q && !q->skip ? q : NULL;
}

/* The breadth-first walk of hoisted_peers: the first package met under
 * each alias, each package queued once. */
struct hoist_walk {
  struct nub_strmap first; /* alias -> the package hoisted under it */
  size_t *queue, qh, qt;
  bool *seen;
};

static void hoist_visit(struct hoist_walk *w, const char *alias, struct nub_gpkg *q)
{
  if (!q)
    return;
  if (!nub_strmap_get(&w->first, alias))
    nub_strmap_put(&w->first, alias, q);
  if (!w->seen[q->index]) {
    w->seen[q->index] = true;
    w->queue[w->qt++] = q->index;
  }
}

/* pnpm's hidden hoisting (its default hoist-pattern "*"): every package is
 * linked once more in node_modules/.pnpm/node_modules, the first of each
 * name breadth first from the importers' own dependencies, so a package
 * finds a peer it declares that the lockfile resolves nowhere (an optional
 * one: vite's yaml) where another package brought it. nub's packages live
 * in the global virtual store, whose folders every project shares, with
 * no per-project folder above them: such a peer becomes an edge of the
 * package, to the package pnpm's hoisting would have put there. */
static void hoisted_peers(struct nub_install_ctx *c)
{
  struct nub_graph *g = &c->plan.graph;
  struct hoist_walk w;
  size_t added = 0;

  memset(&w, 0, sizeof(w));
  w.queue = nub_malloc((g->npkgs + 1) * sizeof(*w.queue));
  w.seen = nub_calloc(g->npkgs + 1, sizeof(*w.seen));
  for (size_t m = 0; m < g->nimporters; m++)
    for (int k = 0; k < NUB_DEP_KINDS; k++) {
      const struct nub_gdirect *d;
      size_t n = g->importers[m].skip ? 0 : nub_importer_directs(&g->importers[m], k, &d);
      for (size_t i = 0; i < n; i++)
        hoist_visit(&w, d[i].alias, kept_target(g, d[i].alias, d[i].ref));
    }
  while (w.qh < w.qt) {
    const struct nub_gpkg *p = g->pkgs[w.queue[w.qh++]];
    for (size_t e = 0; e < p->ndeps + p->noptional_deps; e++) {
      const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
      hoist_visit(&w, ed->alias, kept_target(g, ed->alias, ed->ref));
    }
  }
  for (size_t i = 0; i < g->npkgs; i++) {
    struct nub_gpkg *p = g->pkgs[i];
    for (size_t k = 0; !p->skip && k < p->peers.n; k++) {
      const char *name = p->peers.v[k].name;
      const struct nub_gpkg *q = nub_strmap_get(&w.first, name);
      if (!q || q == p || nub_gpkg_edge(p, name))
        continue;
      p->deps = nub_realloc(p->deps, (p->ndeps + 1) * sizeof(*p->deps));
      p->deps[p->ndeps].alias = nub_strdup(name);
      p->deps[p->ndeps].ref = nub_strdup(q->key);
      p->ndeps++;
      added++;
    }
  }
  if (added)
    nub_diag_debugf("pnpm's hidden hoisting: %zu peers found where it puts them", added);
  nub_strmap_release(&w.first, NULL);
  nub_free(w.queue);
  nub_free(w.seen);
}

static int isolated_shape(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_plan *p = &c->plan;
  int rc;

  if (!p->have_graph) {
    /* --node-linker isolated on an npm or bun lockfile */
    nub_graph_init(&p->graph);
    p->have_graph = true;
    rc = nub_graph_from_tree(&p->graph, &p->tree, &c->s->man, c->s->ws.source ? &c->s->ws : NULL, err);
    if (rc < 0)
      return rc;
  }
  nub_graph_sort(&p->graph);
  rc = filter(c, err);
  if (rc < 0)
    return rc;
  if (c->s->proj.fmt->caps & NUB_LF_HIDDEN_HOIST)
    hoisted_peers(c);
  /* every kept package's store identity, and whether it must be there */
  for (size_t i = 0; i < p->graph.npkgs; i++) {
    struct nub_gpkg *g = p->graph.pkgs[i];
    if (g->skip || g->directory)
      continue; /* a file: directory is linked where it is */
    g->fetch = nub_plan_identity(c, g->name, g->version, g->tarball, g->integrity);
    if (!g->optional)
      g->fetch->optional = false;
    else if (!g->fetch->needed)
      g->fetch->optional = true;
    g->fetch->needed = true;
  }
  count_installed(c);
  return 0;
}

static int isolated_after_fetch(struct nub_install_ctx *c, struct nub_err *err)
{
  (void)err;
  for (size_t i = 0; i < c->plan.graph.npkgs; i++) {
    struct nub_gpkg *p = c->plan.graph.pkgs[i];
    if (!p->skip && p->fetch && p->fetch->failed)
      p->skip = true; /* an optional package that could not be fetched */
  }
  count_installed(c);
  return 0;
}

/* The plan's entries by their paths in the project ("node_modules/.nub/<dir>"),
 * and each importer's top-level names ("node_modules/<alias>",
 * "packages/a/node_modules/<alias>", with their scopes). */
static void plan_paths(struct nub_install_ctx *c, struct nub_strmap *entries,
                       struct nub_strmap *top)
{
  const struct nub_graph *g = &c->plan.graph;

  for (size_t j = 0; j < g->npkgs; j++) {
    char dir[300], path[320];
    if (g->pkgs[j]->skip)
      continue;
    nub_dep_path_filename(g->pkgs[j]->key, dir, sizeof(dir));
    snprintf(path, sizeof(path), "node_modules/.nub/%s", dir);
    nub_strmap_put(entries, path, (void *)1);
  }
  for (size_t m = 0; m < g->nimporters * NUB_DEP_KINDS; m++) {
    const struct nub_importer *im = &g->importers[m / NUB_DEP_KINDS];
    const struct nub_gdirect *d;
    size_t n = im->skip ? 0 : nub_importer_directs(im, (int)(m % NUB_DEP_KINDS), &d);
    for (size_t i = 0; i < n; i++) {
      char *rest = nub_asprintf("node_modules/%s", d[i].alias);
      char *path = nub_importer_file(im, rest), *slash;
      nub_strmap_put(top, path, (void *)1);
      if (d[i].alias[0] == '@' && (slash = strrchr(path, '/')) != NULL) {
        *slash = '\0';
        nub_strmap_put(top, path, (void *)1);
      }
      nub_free(path);
      nub_free(rest);
    }
  }
}

struct sweep {
  int fd;
  const char *dir;
  const struct nub_strmap *keep;
};

/* Remove what a changed directory holds that the plan does not (dot
 * entries, .bin and the hidden hoist are made again or left alone). */
static int sweep_entry(void *payload, const char *name, enum nub_plat_ftype type)
{
  struct sweep *w = payload;
  char *path;

  (void)type;
  if (name[0] == '.' || !strcmp(name, "node_modules"))
    return 0;
  path = nub_asprintf("%s/%s", w->dir, name);
  if (!nub_strmap_get(w->keep, path))
    nub_plat_rm_rf_at(w->fd, path);
  nub_free(path);
  return 0;
}

static void sweep(int fd, const struct nub_state *old, const char *dir,
                  const struct nub_strmap *keep)
{
  struct sweep w = {fd, dir, keep};

  if (!nub_state_dir_unchanged(fd, dir, nub_state_dir(old, dir)))
    nub_plat_list_dir_at(fd, dir, sweep_entry, &w);
}

/* Drop what the previous install had and this one does not, entries kept
 * in the project that changed since, and what was added by hand; the
 * project's top-level links, .bin and hidden hoist are made again. */
static void reconcile(struct nub_install_ctx *c, const struct nub_state *old)
{
  int fd = c->s->proj.dir_fd;
  struct nub_strmap entries, top;

  memset(&entries, 0, sizeof(entries));
  memset(&top, 0, sizeof(top));
  plan_paths(c, &entries, &top);
  for (size_t i = 0; i < old->n; i++)
    if (!nub_strmap_get(&entries, old->paths[i]))
      nub_plat_rm_rf_at(fd, old->paths[i]);
  /* an entry materialised in the project whose directories moved on */
  for (size_t i = 0; i < old->ndirs; i++) {
    const char *p = old->dirs[i].path;
    if (!strncmp(p, "node_modules/.nub/", 18) && strchr(p + 18, '/') &&
        !nub_state_dir_unchanged(fd, p, &old->dirs[i])) {
      char *entry = nub_strndup(p, 18 + strcspn(p + 18, "/"));
      nub_plat_rm_rf_at(fd, entry);
      nub_free(entry);
    }
  }
  for (size_t m = 0; m < c->plan.graph.nimporters; m++) {
    const struct nub_importer *im = &c->plan.graph.importers[m];
    char *nm = nub_importer_file(im, "node_modules"), *bin;
    size_t nl = strlen(nm);
    sweep(fd, old, nm, &top);
    for (size_t i = 0; i < top.cap; i++) {
      const char *k = top.slots[i].key;
      if (k && !strncmp(k, nm, nl) && k[nl] == '/' && k[nl + 1] == '@' &&
          !strchr(k + nl + 1, '/'))
        sweep(fd, old, k, &top); /* a scope */
    }
    bin = nub_importer_file(im, "node_modules/.bin");
    nub_plat_rm_rf_at(fd, bin);
    nub_free(bin);
    nub_free(nm);
  }
  sweep(fd, old, "node_modules/.nub", &entries);
  for (size_t i = 0; i < old->nchecks; i++)
    nub_plat_rm_rf_at(fd, old->checks[i]);
  nub_plat_rm_rf_at(fd, "node_modules/.nub/node_modules");
  nub_strmap_release(&entries, NULL);
  nub_strmap_release(&top, NULL);
}

static int isolated_link(struct nub_install_ctx *c, const struct nub_state *old,
                struct nub_layout_result *r, struct nub_err *err)
{
  struct nub_isolated_opts io;
  struct nub_isolated_result ir;
  int rc;

  if (old)
    reconcile(c, old);
  memset(&io, 0, sizeof(io));
  io.gvs = c->s->cfg.gvs;
  io.omit_dev = c->o->omit_dev;
  io.omit_optional = c->o->omit_optional;
  io.trusted = c->s->man.trusted;
  io.ntrusted = c->s->man.ntrusted;
  io.proj_dir = c->s->proj.dir;
  io.list_entries = c->record;
  rc = nub_isolated_link(c->s->proj.dir_fd, &c->plan.graph, &c->store, &c->linker, c->pool,
                         &c->prog, &io, &ir, err);
  r->packages = ir.packages;
  r->files = ir.files;
  r->reused = ir.reused;
  r->adopted = ir.adopted;
  r->st = ir.st;
  r->entries = ir.entries;
  r->nentries = ir.nentries;
  return rc;
}

static int isolated_bins(struct nub_install_ctx *c, size_t *nlinks, struct nub_err *err)
{
  return nub_bins_link_importers(c->s->proj.dir_fd, c->s->proj.dir, &c->plan.graph,
                                 c->s->ws.source ? &c->s->ws : NULL, c->o->omit_dev, nlinks, err);
}

/* Packages in key order; their directories in the project (only packages
 * trusted to build stay in the project: see isolated.c). */
static size_t isolated_script_targets(struct nub_install_ctx *c, struct nub_script_target **out)
{
  const struct nub_graph *g = &c->plan.graph;
  struct nub_script_target *v = NULL;
  size_t n = 0, cap = 0;

  for (size_t i = 0; i < g->npkgs; i++) {
    const struct nub_gpkg *p = g->pkgs[i];
    const struct nub_index *idx = p->fetch ? p->fetch->index : NULL;
    char dir[300];
    if (p->skip || !idx || !nub_lifecycle_builds(p->fetch))
      continue;
    nub_dep_path_filename(p->key, dir, sizeof(dir));
    NUB_GROW(v, cap, n + 1);
    v[n].pkg = p->fetch;
    v[n].dir = nub_asprintf("%s/node_modules/.nub/%s/node_modules/%s", c->s->proj.dir, dir,
                            p->name);
    n++;
  }
  *out = v;
  return n;
}

static void isolated_state(struct nub_install_ctx *c, struct nub_state *s)
{
  const struct nub_graph *g = &c->plan.graph;
  struct nub_strmap scopes;
  size_t k = 0;

  memset(&scopes, 0, sizeof(scopes));
  for (size_t m = 0; m < g->nimporters * NUB_DEP_KINDS; m++) {
    const struct nub_importer *im = &g->importers[m / NUB_DEP_KINDS];
    const struct nub_gdirect *d;
    size_t n = im->skip ? 0 : nub_importer_directs(im, (int)(m % NUB_DEP_KINDS), &d);
    bool root = !strcmp(im->path, ".");
    for (size_t i = 0; i < n; i++) {
      char *t = nub_gedge_target(d[i].alias, d[i].ref);
      struct nub_gpkg *p = t ? nub_graph_find(g, t) : NULL;
      char *rest = nub_asprintf("node_modules/%s", d[i].alias);
      char *path = nub_importer_file(im, rest);
      nub_free(t);
      if ((p && !p->skip) || !strncmp(d[i].ref, "link:", 5)) {
        nub_state_add_check(s, path);
        if (root) /* the summary speaks of the project's own */
          nub_state_add_direct(s, d[i].alias, p ? p->version : d[i].ref);
      }
      if (d[i].alias[0] == '@') { /* the scope's directory, once */
        path[strlen(path) - strlen(d[i].alias) + strcspn(d[i].alias, "/")] = '\0';
        if (!nub_strmap_put(&scopes, path, (void *)1))
          nub_state_add_dir(s, c->s->proj.dir_fd, path);
      }
      nub_free(path);
      nub_free(rest);
    }
  }
  nub_strmap_release(&scopes, NULL);
  s->keys = nub_calloc(g->npkgs + 1, sizeof(char *));
  s->paths = nub_calloc(g->npkgs + 1, sizeof(char *));
  for (size_t m = 0; m < g->nimporters; m++) {
    char *nm, *bin;
    if (g->importers[m].skip && m)
      continue;
    nm = nub_importer_file(&g->importers[m], "node_modules");
    bin = nub_importer_file(&g->importers[m], "node_modules/.bin");
    nub_state_add_dir(s, c->s->proj.dir_fd, nm);
    nub_state_add_dir(s, c->s->proj.dir_fd, bin);
    nub_free(nm);
    nub_free(bin);
  }
  nub_state_add_dir(s, c->s->proj.dir_fd, "node_modules/.nub");
  for (size_t i = 0; i < g->npkgs; i++) {
    const struct nub_gpkg *p = g->pkgs[i];
    char dir[300];
    if (p->skip)
      continue;
    nub_dep_path_filename(p->key, dir, sizeof(dir));
    s->keys[k] = nub_strdup(p->fetch ? p->fetch->key : "-");
    s->paths[k] = nub_asprintf("node_modules/.nub/%s", dir);
    /* an entry in the project (not a link into the store): its directory
     * and the package's, as for the hoisted layout */
    if (p->local) {
      char *nm = nub_asprintf("%s/node_modules", s->paths[k]);
      char *pkg = nub_asprintf("%s/%s", nm, p->name);
      nub_state_add_dir(s, c->s->proj.dir_fd, nm);
      nub_state_add_dir(s, c->s->proj.dir_fd, pkg);
      nub_free(nm);
      nub_free(pkg);
    }
    k++;
  }
  s->n = k;
}

const struct nub_layout nub_layout_isolated = {
  "isolated", isolated_shape, isolated_after_fetch, isolated_link, isolated_bins, isolated_script_targets,
  isolated_state,
};
