/* layout_hoisted.c - the hoisted layout (npm's): the tree's nodes as real
 * directories at their paths (hoisted.c links them), bins in the .bin of
 * the node_modules that holds each package. A graph plan (nub.lock, the
 * resolver) is placed npm's way first (convert.c). */
#include <stdio.h>
#include <string.h>

#include "bins.h"
#include "hoist_npm.h"
#include "diag.h"
#include "hoist_yarn.h"
#include "link_hoisted.h"
#include "install_ctx.h"
#include "layout.h"
#include "lifecycle.h"
#include "nub_alloc.h"
#include "store.h"
#include "strmap.h"

static bool installable(const struct nub_node *n)
{
  return !n->skip && !(n->flags & (NUB_NF_BUNDLED | NUB_NF_LOCAL)) &&
         (n->pkg || (n->flags & NUB_NF_LINK));
}

static void count_installed(struct nub_install_ctx *c)
{
  c->installed = 0;
  for (size_t i = 0; i < c->plan.tree.n; i++)
    c->installed += installable(&c->plan.tree.nodes[i]);
}

/* npm leaves out optional nodes that nothing kept needs: those only a
 * skipped package (another platform's) depends on, and optional peers no
 * package requires for real (node-fetch's `encoding`). Walk from the
 * project's dependencies through kept nodes, optional peers not counting
 * as edges; an optional node not reached is skipped. */
static void prune_unreached(struct nub_install_ctx *c)
{
  struct nub_tree *t = &c->plan.tree;
  const struct nub_depmap *roots[4] = {&c->s->man.deps, &c->s->man.optional, &c->s->man.peer,
                                       &c->s->man.dev};
  bool *seen = nub_calloc(t->n + 1, sizeof(bool));
  long *stack = nub_malloc(sizeof(long) * (t->n + 1));
  size_t sp = 0;

  for (int k = 0; k < 4; k++) {
    if (k == 3 && c->o->omit_dev)
      continue;
    for (size_t i = 0; i < roots[k]->n; i++) {
      long hit = nub_tree_resolve(t, -1, roots[k]->v[i].name);
      if (hit >= 0 && !seen[hit] && !t->nodes[hit].skip) {
        seen[hit] = true;
        stack[sp++] = hit;
      }
    }
  }
  /* workspace folders, what links point at and every required node start
   * walks of their own: a kept package's optional dependencies are needed
   * however it was reached (a member's dependency, whose edges a lockfile
   * may record on the member's entry only: bun.lock) */
  for (size_t i = 0; i < t->n; i++)
    if (!t->nodes[i].skip && !seen[i] &&
        ((t->nodes[i].flags & (NUB_NF_LOCAL | NUB_NF_LINK)) ||
         !(t->nodes[i].flags & (NUB_NF_OPTIONAL | NUB_NF_DEV_OPTIONAL | NUB_NF_BUNDLED)))) {
      seen[i] = true;
      stack[sp++] = (long)i;
    }
  while (sp) {
    long at = stack[--sp];
    const struct nub_node *n = &t->nodes[at];
    /* a member's devDependencies are installed too (its lockfile entry
     * lists them apart from the edges in n->deps) */
    const struct nub_depmap *dev = (n->flags & NUB_NF_LOCAL) && n->member_specs &&
                                           !c->o->omit_dev ? &n->member_specs[1] : NULL;
    size_t ndev = dev ? dev->n : 0;
    for (size_t d = 0; d < n->ndeps + ndev; d++) {
      const char *name = d < n->ndeps ? n->deps[d] : dev->v[d - n->ndeps].name;
      long hit;
      if (nub_strarray_has(n->opt_peers, n->nopt_peers, name))
        continue;
      hit = nub_tree_resolve(t, at, name);
      if (hit >= 0 && !seen[hit] && !t->nodes[hit].skip) {
        seen[hit] = true;
        stack[sp++] = hit;
      }
    }
  }
  for (size_t i = 0; i < t->n; i++) {
    struct nub_node *n = &t->nodes[i];
    if (n->skip || seen[i] || (n->flags & NUB_NF_BUNDLED))
      continue;
    if (n->parent >= 0 && t->nodes[n->parent].skip)
      n->skip = true;
    else if (n->flags & (NUB_NF_OPTIONAL | NUB_NF_DEV_OPTIONAL))
      n->skip = true;
  }
  /* a skipped node takes its nested nodes with it (parents sort first) */
  for (size_t i = 0; i < t->n; i++)
    if (t->nodes[i].parent >= 0 && t->nodes[t->nodes[i].parent].skip)
      t->nodes[i].skip = true;
  nub_free(seen);
  nub_free(stack);
}

/* Which packages the kept nodes need; an optional node's package is
 * optional unless a required node installs it too. */
static void mark_needed(struct nub_install_ctx *c)
{
  struct nub_tree *t = &c->plan.tree;

  for (size_t i = 0; i < t->n; i++) {
    struct nub_node *n = &t->nodes[i];
    if (n->pkg)
      n->pkg->needed = n->pkg->optional = false;
  }
  for (size_t i = 0; i < t->n; i++) {
    struct nub_node *n = &t->nodes[i];
    if (!n->skip && n->pkg && !(n->flags & (NUB_NF_BUNDLED | NUB_NF_LOCAL | NUB_NF_LINK))) {
      if (!n->pkg->needed)
        n->pkg->optional = true;
      n->pkg->needed = true;
      if (!(n->flags & (NUB_NF_OPTIONAL | NUB_NF_DEV_OPTIONAL)))
        n->pkg->optional = false; /* some required node installs it */
    }
  }
}

/* Mark skipped nodes (dev/optional omitted, other platforms, optional ones
 * nothing kept needs) and which packages are needed. A skipped node takes
 * its nested nodes with it. */
static int filter(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_tree *t = &c->plan.tree;
  const struct nub_install_opts *o = c->o;

  for (size_t i = 0; i < t->n; i++) {
    struct nub_node *n = &t->nodes[i];
    unsigned f = n->flags;
    bool dev = f & NUB_NF_DEV, opt = f & NUB_NF_OPTIONAL, devopt = f & NUB_NF_DEV_OPTIONAL;

    if (n->parent >= 0 && t->nodes[n->parent].skip) {
      n->skip = true;
      continue;
    }
    if ((dev && o->omit_dev) || (opt && o->omit_optional) ||
        (devopt && o->omit_dev && o->omit_optional) || ((f & NUB_NF_PEER) && o->omit_peer) ||
        (o->dev_only && !dev && !devopt && n->depth == 1)) {
      n->skip = true;
      continue;
    }
    if (!nub_install_platform_ok(c, n->os, n->nos, n->cpu, n->ncpu, n->libc, n->nlibc) ||
        ((opt || devopt) && n->pkg && !nub_install_libc_by_name_ok(c, n->pkg->name, n->nlibc))) {
      if (opt || devopt) {
        n->skip = true;
        continue;
      }
      if (!o->force && nub_install_platform_warns(c))
        nub_progress_warn(&c->prog, "%s (%s@%s) does not support this platform (%s %s) and is "
                          "not optional; installed all the same, as pnpm installs it", n->path,
                          n->pkg ? n->pkg->name : "?", n->pkg ? n->pkg->version : "?",
                          c->caps.npm_os, c->caps.npm_cpu);
      else if (!o->force)
        return nub_err_set(err, -NUB_EPLATFORM,
                           "%s (%s@%s) does not support this platform (%s %s) and is "
                           "not optional; use --force to install it anyway", n->path,
                           n->pkg ? n->pkg->name : "?", n->pkg ? n->pkg->version : "?",
                           c->caps.npm_os, c->caps.npm_cpu);
    }
    {
      int rc = nub_install_allow_node(c, n, err);
      if (rc < 0 && !(opt || devopt))
        return rc;
      if (rc < 0) { /* an optional one is left out, as npm prunes it */
        n->skip = true;
        continue;
      }
    }
    if (n->pkg) {
      const char *eng = n->engine_node ? n->engine_node
                        : n->gpkg     ? nub_depmap_get(&n->gpkg->engines, "node")
                                      : NULL;
      char what[600];
      bool skip;
      int rc;
      snprintf(what, sizeof(what), "%s (%s@%s)", n->path, n->pkg->name, n->pkg->version);
      rc = nub_install_engine_check(c, what, eng, opt || devopt, &skip, err);
      if (rc < 0)
        return rc;
      if (skip) {
        n->skip = true;
        continue;
      }
    }
  }
  prune_unreached(c);
  mark_needed(c);
  count_installed(c);
  return 0;
}

static int hoisted_shape(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_plan *p = &c->plan;
  int rc;

  if (!p->have_tree && (c->s->proj.fmt->caps & NUB_LF_PLACE_AFTER_FETCH)) {
    /* yarn places packages knowing their peer dependencies, which yarn.lock
     * does not record: every package is fetched first, placed after
     * (the format's place) */
    for (size_t i = 0; i < p->graph.npkgs; i++) {
      struct nub_gpkg *g = p->graph.pkgs[i];
      g->fetch = nub_plan_identity(c, g->name, g->version, g->tarball, g->integrity);
      g->fetch->optional = g->optional;
      g->fetch->needed = true;
    }
    c->installed = p->graph.npkgs;
    return 0;
  }
  if (!p->have_tree) {
    /* --node-linker hoisted on a graph: placed npm's way */
    nub_tree_init(&p->tree, &p->pkgs);
    p->have_tree = true;
    rc = nub_tree_from_graph(&p->tree, &p->graph, c->s->ws.source ? &c->s->ws : NULL, &c->s->cfg, err);
    if (rc < 0)
      return rc;
  }
  p->tree.pacote_unpack = c->s->proj.fmt->caps & NUB_LF_PACOTE_UNPACK;
  return filter(c, err);
}

/* Optional packages that could not be fetched are left out, and so are
 * optional packages for another platform that old lockfiles (v1) did not
 * mark - found out from their own package.json, which the store index
 * keeps. Everything nested in a skipped node goes with it. */
static int hoisted_after_fetch(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_tree *t = &c->plan.tree;
  bool later = (c->s->proj.fmt->caps & NUB_LF_PLACE_AFTER_FETCH) && !c->plan.have_tree;

  if (later) {
    struct nub_diag_phase ph;
    int rc;
    char detail[64];
    nub_diag_phase_begin(&ph, "place");
    rc = c->s->proj.fmt->place(c, err);
    if (rc == 0)
      rc = filter(c, err);
    snprintf(detail, sizeof(detail), "%s's hoisting, %zu nodes", c->s->proj.fmt->tool, t->n);
    nub_diag_phase_end(&ph, detail);
    if (rc < 0)
      return rc;
  }
  for (size_t i = 0; i < t->n; i++) {
    struct nub_node *n = &t->nodes[i];
    const struct nub_index *x;
    if (n->skip)
      continue;
    if (n->parent >= 0 && t->nodes[n->parent].skip) {
      n->skip = true;
      continue;
    }
    if (n->pkg && n->pkg->failed) {
      n->skip = true;
      continue;
    }
    if (!(n->flags & (NUB_NF_OPTIONAL | NUB_NF_DEV_OPTIONAL)) || !n->pkg || !n->pkg->index ||
        !(t->platform_unrecorded || (c->s->proj.fmt->caps & NUB_LF_PLACE_AFTER_FETCH)))
      continue;
    x = n->pkg->index;
    if (!nub_platform_allows_csv(x->os, c->caps.npm_os) ||
        !nub_platform_allows_csv(x->cpu, c->caps.npm_cpu) ||
        (!(c->s->proj.fmt->caps & NUB_LF_OS_CPU_ONLY) && c->caps.libc &&
         !nub_platform_allows_csv(x->libc, c->caps.libc)))
      n->skip = true;
  }
  prune_unreached(c);
  count_installed(c);
  return 0;
}

static int hoisted_link(struct nub_install_ctx *c, const struct nub_state *old,
                struct nub_layout_result *r, struct nub_err *err)
{
  struct nub_hoisted_result hr;
  int rc = nub_hoisted_link(c->s->proj.dir_fd, &c->plan.tree, old, &c->linker, c->pool, &c->prog,
                            c->early, &hr, err);

  r->packages = hr.packages;
  r->kept = hr.kept;
  r->removed = hr.removed;
  r->files = hr.st.files;
  r->st = hr.st;
  return rc;
}

static int hoisted_bins(struct nub_install_ctx *c, size_t *nlinks, struct nub_err *err)
{
  const struct nub_depmap direct[] = {c->s->man.deps, c->s->man.dev, c->s->man.optional};

  if (c->s->proj.fmt->bins) /* its tool's rule */
    return c->s->proj.fmt->bins(c, nlinks, err);
  return nub_bins_link(c->s->proj.dir_fd, &c->plan.tree, direct, 3, NULL, nlinks, err);
}

/* Deepest first: a package's dependencies are built before it. */
static size_t hoisted_script_targets(struct nub_install_ctx *c, struct nub_script_target **out)
{
  const struct nub_tree *t = &c->plan.tree;
  struct nub_script_target *v = NULL;
  size_t n = 0, cap = 0;
  int maxd = 0;

  for (size_t i = 0; i < t->n; i++)
    if (t->nodes[i].depth > maxd)
      maxd = t->nodes[i].depth;
  for (int d = maxd; d >= 1; d--)
    for (size_t i = 0; i < t->n; i++) {
      const struct nub_node *nd = &t->nodes[i];
      if (nd->depth != d || !installable(nd) || !nd->pkg || !nd->pkg->index ||
          (nd->flags & NUB_NF_LINK) || !nub_lifecycle_builds(nd->pkg))
        continue;
      NUB_GROW(v, cap, n + 1);
      v[n].pkg = nd->pkg;
      v[n].dir = nub_asprintf("%s/%s", c->s->proj.dir, nd->path);
      n++;
    }
  *out = v;
  return n;
}

/* The directory times the next install compares: every directory that
 * holds installed packages (with its .bin), and every package directory. */
static void add_dir_once(struct nub_state *s, int fd, struct nub_strmap *seen, char *dir)
{
  if (!nub_strmap_get(seen, dir)) {
    nub_strmap_put(seen, dir, (void *)1);
    nub_state_add_dir(s, fd, dir);
  }
  nub_free(dir);
}

static void add_dirs(struct nub_install_ctx *c, struct nub_state *s)
{
  const struct nub_tree *t = &c->plan.tree;
  int fd = c->s->proj.dir_fd;
  struct nub_strmap seen;

  memset(&seen, 0, sizeof(seen));
  add_dir_once(s, fd, &seen, nub_strdup("node_modules"));
  add_dir_once(s, fd, &seen, nub_strdup("node_modules/.bin"));
  for (size_t i = 0; i < t->n; i++) {
    const struct nub_node *n = &t->nodes[i];
    size_t nm = nub_node_nm_len(n); /* ".../node_modules" */
    if (!installable(n))
      continue;
    if (n->depth > 1) {
      add_dir_once(s, fd, &seen, nub_strndup(n->path, nm));
      add_dir_once(s, fd, &seen, nub_asprintf("%.*s/.bin", (int)nm, n->path));
    }
    if (n->folder[0] == '@')
      add_dir_once(s, fd, &seen, nub_strndup(n->path, nub_node_holder_len(n)));
    if (!(n->flags & NUB_NF_LINK))
      nub_state_add_dir(s, fd, n->path);
  }
  nub_strmap_release(&seen, NULL);
}

static void hoisted_state(struct nub_install_ctx *c, struct nub_state *s)
{
  const struct nub_tree *t = &c->plan.tree;
  const struct nub_depmap *maps[3] = {&c->s->man.deps, &c->s->man.optional, &c->s->man.dev};
  size_t k = 0;

  add_dirs(c, s);
  for (int m = 0; m < 3; m++)
    for (size_t i = 0; i < maps[m]->n; i++) {
      long ni = nub_tree_resolve(t, -1, maps[m]->v[i].name); /* node_modules/<name> */
      if (ni >= 0 && installable(&t->nodes[ni]))
        nub_state_add_direct(s, maps[m]->v[i].name,
                             t->nodes[ni].pkg ? t->nodes[ni].pkg->version
                                              : t->nodes[ni].link_target);
    }
  s->keys = nub_calloc(t->n + 1, sizeof(char *));
  s->paths = nub_calloc(t->n + 1, sizeof(char *));
  for (size_t i = 0; i < t->n; i++) {
    const struct nub_node *n = &t->nodes[i];
    if (n->skip || (n->flags & (NUB_NF_BUNDLED | NUB_NF_LOCAL)))
      continue;
    s->keys[k] = nub_strdup(n->pkg ? nub_pkg_link_key(n->pkg) : "-");
    s->paths[k] = nub_strdup(n->path);
    if (n->flags & NUB_NF_LINK)
      nub_state_add_check(s, n->path); /* a link's target must still be there */
    k++;
  }
  s->n = k;
}

const struct nub_layout nub_layout_hoisted = {
  "hoisted", hoisted_shape, hoisted_after_fetch, hoisted_link, hoisted_bins, hoisted_script_targets,
  hoisted_state,
};
