/* hoist_yarn.c - yarn 1's hoisting (hoist_yarn.h), step for step as its
 * PackageHoister does it, so that the tree is the one yarn builds. A
 * position is a list of folder names ("parts"); its key joins them with '#'.
 * `tree` holds every placed package by key, `taint` the names reserved at a
 * key by a package hoisted through it. */
#include "hoist_yarn.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "nub_alloc.h"
#include "registry_url.h"
#include "path.h"
#include "strmap.h"
#include "workspace.h"

struct hinfo {
  long seq;   /* its position in yarn's tree (a JS Map: insertion order) */
  bool direct;
  char *key;
  char **parts; /* owned strings */
  size_t nparts;
  const struct nub_gpkg *pkg; /* identity: yarn's `loc` */
};

struct qitem {
  char *pattern;  /* "name@range", for the level's order */
  const char *alias;
  const struct nub_gpkg *pkg;
  struct hinfo *parent;
};

struct hctx {
  const struct nub_graph *g;
  /* a workspace, as yarn 1 hoists one: every member a package of its own
   * ("name@workspace:dir") and a virtual aggregator depending on the root's
   * dependencies and every member (install.js' workspace-aggregator) */
  const struct nub_workspace *ws;
  struct nub_gpkg **virt; /* members, then the aggregator */
  size_t nvirt;
  struct nub_strmap virt_by_key;
  const struct nub_gpkg ***targets; /* by package index: its edges' targets */
  struct nub_strmap tree, taint;
  struct hinfo **all; /* every info made (owned) */
  size_t nall, capall;
  struct qitem *q;
  size_t nq, capq;
  bool (*has_peers)(void *ud, const struct nub_gpkg *p);
  void *ud;
  long seq;
  bool seeding_direct;
};

/* tree.set: a key new to the map goes to its end, as in a JS Map */
static void tree_set(struct hctx *h, struct hinfo *info)
{
  struct hinfo *was = nub_strmap_put(&h->tree, info->key, info);

  info->seq = was ? was->seq : ++h->seq;
}

/* yarn's `loc`: one package version, whatever peer context a graph that
 * came from the resolver gives it */
static bool same(const struct nub_gpkg *a, const struct nub_gpkg *b)
{
  return a == b || (a && b && !strcmp(a->pkg_key, b->pkg_key));
}

/* parts joined with '#' (and `last` after them): every probe of the tree
 * makes one, so plain copies, not a formatter */
static char *implode(char *const *parts, size_t n, const char *last)
{
  size_t len = 1, at = 0;
  char *s;

  for (size_t i = 0; i < n; i++)
    len += strlen(parts[i]) + 1;
  if (last)
    len += strlen(last) + 1;
  s = nub_malloc(len);
  for (size_t i = 0; i <= n; i++) {
    const char *p = i < n ? parts[i] : last;
    size_t m;
    if (!p)
      break;
    if (at)
      s[at++] = '#';
    m = strlen(p);
    memcpy(s + at, p, m);
    at += m;
  }
  s[at] = '\0';
  return s;
}

static char *pattern_of(const char *alias, const char *range)
{
  size_t a = strlen(alias), r = strlen(range);
  char *s = nub_malloc(a + r + 2);

  memcpy(s, alias, a);
  s[a] = '@';
  memcpy(s + a + 1, range, r + 1);
  return s;
}

/* The target of p's i-th edge (deps, then optional), found once per edge:
 * the prepass and the seeding ask for each many times. */
static const struct nub_gpkg *edge_target_i(struct hctx *h, const struct nub_gpkg *p, size_t i)
{
  const struct nub_gpkg **v = h->targets[p->index];

  if (!v) {
    size_t nd = p->ndeps + p->noptional_deps;
    v = nub_calloc(nd + 1, sizeof(*v));
    for (size_t e = 0; e < nd; e++) {
      const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
      char *t = nub_gedge_target(ed->alias, ed->ref);
      v[e] = t ? nub_graph_find(h->g, t) : NULL;
      if (!v[e] && t)
        v[e] = nub_strmap_get(&h->virt_by_key, t);
      nub_free(t);
    }
    h->targets[p->index] = v;
  }
  return v[i];
}

/* A package's dependencies in yarn's order (dependencies, then optional),
 * with their patterns. */
static size_t deps_of(const struct nub_gpkg *p, size_t i, const struct nub_gedge **e,
                      const char **range)
{
  size_t nd = p->ndeps + p->noptional_deps;

  if (i >= nd)
    return nd;
  *e = i < p->ndeps ? &p->deps[i] : &p->optional_deps[i - p->ndeps];
  *range = nub_depmap_get(i < p->ndeps ? &p->dep_specs : &p->opt_specs, (*e)->alias);
  if (!*range)
    *range = nub_depmap_get(&p->opt_specs, (*e)->alias);
  if (!*range)
    *range = "";
  return nd;
}

static bool taint_key(struct hctx *h, const char *key, struct hinfo *info)
{
  struct hinfo *t = nub_strmap_get(&h->taint, key);

  if (t && !same(t->pkg, info->pkg))
    return false;
  nub_strmap_put(&h->taint, key, info);
  return true;
}

static struct hinfo *seed(struct hctx *h, const char *alias, const struct nub_gpkg *pkg,
                          struct hinfo *parent)
{
  struct hinfo *info;

  if (parent && nub_strmap_get(&h->tree, parent->key) == NULL)
    return NULL; /* the parent was deduped away */
  info = nub_calloc(1, sizeof(*info));
  info->pkg = pkg;
  info->nparts = (parent ? parent->nparts : 0) + 1;
  info->parts = nub_calloc(info->nparts, sizeof(char *));
  for (size_t i = 0; parent && i < parent->nparts; i++)
    info->parts[i] = nub_strdup(parent->parts[i]);
  info->parts[info->nparts - 1] = nub_strdup(alias);
  info->key = implode(info->parts, info->nparts, NULL);
  NUB_GROW(h->all, h->capall, h->nall + 1);
  h->all[h->nall++] = info;
  info->direct = !parent && h->seeding_direct;
  tree_set(h, info);
  taint_key(h, info->key, info);
  {
    const struct nub_gedge *e;
    const char *range;
    size_t nd = deps_of(pkg, 0, &e, &range), first = h->nq;
    for (size_t i = 0; i < nd; i++) {
      const struct nub_gpkg *c;
      bool dup = false;
      deps_of(pkg, i, &e, &range);
      c = edge_target_i(h, pkg, i);
      if (!c)
        continue;
      /* the same pattern once per parent (this parent's pushes are the
       * queue's last ones) */
      for (size_t k = first; k < h->nq && !dup; k++)
        dup = h->q[k].pkg == c && !strcmp(h->q[k].alias, e->alias);
      if (dup)
        continue;
      NUB_GROW(h->q, h->capq, h->nq + 1);
      h->q[h->nq].pattern = pattern_of(e->alias, range);
      h->q[h->nq].alias = e->alias;
      h->q[h->nq].pkg = c;
      h->q[h->nq].parent = info;
      h->nq++;
    }
  }
  return info;
}

static bool valid_position(struct hctx *h, struct hinfo *info, char *const *parts, size_t n)
{
  char *key;
  struct hinfo *ex, *t;
  bool ok = true;

  if (n == 0)
    return false;
  key = implode(parts, n, NULL);
  ex = nub_strmap_get(&h->tree, key);
  if (!(ex && same(ex->pkg, info->pkg))) {
    t = nub_strmap_get(&h->taint, key);
    ok = !(t && !same(t->pkg, info->pkg));
  }
  nub_free(key);
  return ok;
}

/* getNewParts: the highest position for info; *dup when the same package
 * is already visible there. parts/n: in, the current parts (copied). */
static void new_parts(struct hctx *h, struct hinfo *info, char ***out, size_t *nout, bool *dup)
{
  size_t n = info->nparts - 1, nstack = 0;
  char **parts = nub_calloc(info->nparts + 1, sizeof(char *));
  char **stack = nub_calloc(info->nparts + 1, sizeof(char *));
  const char *name = info->parts[info->nparts - 1];
  bool step_up = false;

  *dup = false;
  for (size_t i = 0; i < n; i++)
    parts[i] = info->parts[i];
  for (size_t i = n; i-- > 0;) {
    char *ck = implode(parts, i, name);
    struct hinfo *ex = nub_strmap_get(&h->tree, ck), *t;
    if (ex) {
      nub_free(ck);
      if (same(ex->pkg, info->pkg)) { /* satisfied from above */
        *out = nub_calloc(i + 1, sizeof(char *));
        for (size_t k = 0; k < i; k++)
          (*out)[k] = parts[k];
        (*out)[i] = (char *)name;
        *nout = i + 1;
        *dup = true;
        nub_free(parts);
        nub_free(stack);
        return;
      }
      break; /* a collision: everything above is shadowed */
    }
    t = nub_strmap_get(&h->taint, ck);
    nub_free(ck);
    if (t && !same(t->pkg, info->pkg))
      break;
  }
  while (n > 0) {
    bool peer_hit = false;
    char *ck;
    if (h->has_peers && h->has_peers(h->ud, info->pkg)) {
      /* never above its peer dependencies */
      for (size_t k = 0; k < info->pkg->peers.n && !peer_hit; k++) {
        char *pk = implode(parts, n, info->pkg->peers.v[k].name);
        peer_hit = nub_strmap_get(&h->tree, pk) != NULL;
        nub_free(pk);
      }
    }
    if (peer_hit)
      break;
    ck = implode(parts, n, name);
    if (nub_strmap_get(&h->tree, ck) ||
        (strcmp(info->key, ck) && nub_strmap_get(&h->taint, ck))) {
      step_up = true;
      nub_free(ck);
      break;
    }
    nub_free(ck);
    stack[nstack++] = parts[--n];
  }
  parts[n++] = (char *)name;
  if (!valid_position(h, info, parts, n))
    step_up = true;
  while (step_up && nstack) {
    n--; /* name */
    parts[n++] = stack[--nstack];
    parts[n++] = (char *)name;
    if (valid_position(h, info, parts, n))
      step_up = false;
  }
  *out = parts;
  *nout = n;
  nub_free(stack);
}

static void set_parts(struct hinfo *info, char **parts, size_t n)
{
  char **copy = nub_calloc(n + 1, sizeof(char *));

  for (size_t i = 0; i < n; i++)
    copy[i] = nub_strdup(parts[i]);
  nub_strarray_free(info->parts, info->nparts);
  info->parts = copy;
  info->nparts = n;
  nub_free(info->key);
  info->key = implode(copy, n, NULL);
}

static void hoist(struct hctx *h, struct hinfo *info)
{
  char **parts, *new_key;
  size_t n;
  bool dup;

  nub_strmap_put(&h->tree, info->key, NULL); /* out of the way of its own search */
  new_parts(h, info, &parts, &n, &dup);
  new_key = implode(parts, n, NULL);
  if (dup || strcmp(new_key, info->key)) {
    /* taint the name on the way from the new position down to the old */
    for (size_t i = n - 1; i < info->nparts - 1; i++) {
      char *tk = implode(info->parts, i, info->parts[info->nparts - 1]);
      taint_key(h, tk, info);
      nub_free(tk);
    }
  }
  if (!dup) {
    if (strcmp(new_key, info->key))
      set_parts(info, parts, n);
    tree_set(h, info);
  }
  nub_free(new_key);
  nub_free(parts);
}

/* ---- prepass: the most used version of each name first --------------------------- */

struct occ {
  const struct nub_gpkg *pkg;
  const char *alias;
  char *pattern;     /* the first that led to it */
  struct nub_strmap parents; /* keys of the packages depending on it */
};

struct pre {
  struct hctx *h;
  struct nub_strmap visited; /* patterns walked */
  struct nub_strmap byname;  /* "alias pkg_key" -> index + 1 into o */
  struct occ *o;
  size_t no, capo;
  const struct nub_gpkg **anc;
  const char **anc_alias; /* the name each was reached by */
  size_t nanc, capanc;
};

static struct occ *occ_of(struct pre *p, const char *alias, const struct nub_gpkg *pkg,
                          const char *pattern)
{
  char *k = nub_asprintf("%s %s", alias, pkg->pkg_key);
  size_t at = (size_t)(uintptr_t)nub_strmap_get(&p->byname, k);

  if (at) {
    nub_free(k);
    return &p->o[at - 1];
  }
  NUB_GROW(p->o, p->capo, p->no + 1);
  memset(&p->o[p->no], 0, sizeof(p->o[p->no]));
  p->o[p->no].pkg = pkg;
  p->o[p->no].alias = alias;
  p->o[p->no].pattern = nub_strdup(pattern);
  nub_strmap_put(&p->byname, k, (void *)(uintptr_t)(p->no + 1));
  nub_free(k);
  return &p->o[p->no++];
}

static void add(struct pre *p, const char *alias, const struct nub_gpkg *pkg,
                const char *pattern)
{
  struct occ *o;

  for (size_t i = 0; i < p->nanc; i++)
    if (same(p->anc[i], pkg))
      return; /* a cycle */
  o = occ_of(p, alias, pkg, pattern);
  if (p->nanc) {
    /* a parent is a manifest of yarn's, and an alias has its own (named by
     * the alias): string-width and string-width-cjs are two parents */
    char *k = nub_asprintf("%s %s", p->anc_alias[p->nanc - 1], p->anc[p->nanc - 1]->pkg_key);
    nub_strmap_put(&o->parents, k, (void *)1);
    nub_free(k);
  }
  if (nub_strmap_get(&p->visited, pattern))
    return;
  nub_strmap_put(&p->visited, pattern, (void *)1);
  {
    size_t cap = p->capanc;
    NUB_GROW(p->anc, p->capanc, p->nanc + 1);
    if (p->capanc != cap || !p->anc_alias)
      p->anc_alias = nub_realloc(p->anc_alias, p->capanc * sizeof(*p->anc_alias));
  }
  p->anc_alias[p->nanc] = alias;
  p->anc[p->nanc++] = pkg;
  {
    const struct nub_gedge *e;
    const char *range;
    size_t nd = deps_of(pkg, 0, &e, &range);
    for (size_t i = 0; i < nd; i++) {
      const struct nub_gpkg *c;
      char *pat;
      deps_of(pkg, i, &e, &range);
      c = edge_target_i(p->h, pkg, i);
      if (!c)
        continue;
      pat = pattern_of(e->alias, range);
      add(p, e->alias, c, pat);
      nub_free(pat);
    }
  }
  p->nanc--;
}

static int cmp_occ(const void *a, const void *b)
{
  const struct occ *x = a, *y = b;
  int c = strcmp(x->alias, y->alias);
  return c ? c : strcmp(x->pkg->version, y->pkg->version);
}

struct root {
  char *pattern;
  const char *alias;
  const struct nub_gpkg *pkg;
};

static int cmp_root(const void *a, const void *b)
{
  return strcmp(((const struct root *)a)->pattern, ((const struct root *)b)->pattern);
}

static void prepass(struct hctx *h, struct root *roots, size_t nroots)
{
  struct pre p;

  memset(&p, 0, sizeof(p));
  p.h = h;
  for (size_t i = 0; i < nroots; i++)
    add(&p, roots[i].alias, roots[i].pkg, roots[i].pattern);
  nub_sort(p.o, p.no, sizeof(*p.o), cmp_occ);
  for (size_t i = 0; i < p.no;) {
    size_t j = i, best = i, bestn = 0;
    bool is_root = false;
    while (j < p.no && !strcmp(p.o[j].alias, p.o[i].alias))
      j++;
    for (size_t r = 0; r < nroots; r++)
      is_root = is_root || !strcmp(roots[r].alias, p.o[i].alias);
    if (j - i > 1 && !is_root && !nub_strmap_get(&h->tree, p.o[i].alias)) {
      for (size_t k = i; k < j; k++)
        if (!bestn || p.o[k].parents.n > bestn) {
          bestn = p.o[k].parents.n;
          best = k;
        }
      if (bestn > 1)
        seed(h, p.o[best].alias, p.o[best].pkg, NULL);
    }
    i = j;
  }
  for (size_t i = 0; i < p.no; i++) {
    nub_free(p.o[i].pattern);
    nub_strmap_release(&p.o[i].parents, NULL);
  }
  nub_free(p.o);
  nub_free(p.anc);
  nub_free(p.anc_alias);
  nub_strmap_release(&p.visited, NULL);
  nub_strmap_release(&p.byname, NULL);
}

/* ---- workspaces -------------------------------------------------------------------- */


static void vedge(struct nub_gedge **v, size_t *n, struct nub_depmap *specs, const char *alias,
                  const char *ref, const char *spec)
{
  *v = nub_realloc(*v, (*n + 1) * sizeof(**v));
  (*v)[*n].alias = nub_strdup(alias);
  (*v)[*n].ref = nub_strdup(ref);
  (*n)++;
  if (!nub_depmap_get(specs, alias)) {
    specs->v = nub_realloc(specs->v, (specs->n + 1) * sizeof(*specs->v));
    specs->v[specs->n].name = nub_strdup(alias);
    specs->v[specs->n].spec = nub_strdup(spec ? spec : "");
    specs->n++;
  }
}

/* The member a link of the importer at `from` points at, or -1. */
static long linked_member(const struct nub_workspace *ws, const struct nub_importer *im,
                          const char *ref)
{
  char *to = nub_importer_link_path(im, ref);
  const struct nub_ws_pkg *m = to ? nub_workspace_at(ws, to) : NULL;

  nub_free(to);
  return m ? (long)(m - ws->pkgs) : -1;
}

/* An importer's dependencies as a workspace package's edges: dependencies,
 * then optional and dev ones (yarn requests a workspace's devDependencies
 * too), links to members as edges to the members' packages. */
static void importer_edges(struct hctx *h, struct nub_gpkg *p, const struct nub_importer *im)
{
  static const int kinds[3] = {NUB_DEP_PROD, NUB_DEP_OPTIONAL, NUB_DEP_DEV};

  for (int k = 0; im && k < 3; k++) {
    const struct nub_gdirect *d;
    size_t nd = nub_importer_directs(im, kinds[k], &d);
    for (size_t i = 0; i < nd; i++) {
      const char *ref = d[i].ref;
      char *own = NULL;
      if (!strncmp(ref, "link:", 5)) {
        long m = linked_member(h->ws, im, ref);
        if (m < 0)
          continue;
        ref = own = nub_strdup(h->virt[m]->key);
      }
      if (k == 0)
        vedge(&p->deps, &p->ndeps, &p->dep_specs, d[i].alias, ref, d[i].specifier);
      else
        vedge(&p->optional_deps, &p->noptional_deps, &p->opt_specs, d[i].alias, ref,
              d[i].specifier);
      nub_free(own);
    }
  }
}

/* yarn names it workspace-aggregator-<a uuid>: no other pattern shares
 * the prefix, so any suffix sorts the same */
#define AGGREGATOR "workspace-aggregator-00000000-0000-0000-0000-000000000000"

static void make_virtual(struct hctx *h)
{
  const struct nub_workspace *ws = h->ws;
  struct nub_gpkg *agg;

  h->nvirt = ws->npkgs + 1;
  h->virt = nub_calloc(h->nvirt, sizeof(*h->virt));
  for (size_t i = 0; i < ws->npkgs; i++) {
    struct nub_gpkg *m = nub_calloc(1, sizeof(*m));
    const char *name = ws->pkgs[i].man.name ? ws->pkgs[i].man.name : ws->pkgs[i].dir;
    m->name = nub_strdup(name);
    m->version = nub_strdup(ws->pkgs[i].man.version ? ws->pkgs[i].man.version : "0.0.0");
    m->key = nub_asprintf("%s@workspace:%s", name, ws->pkgs[i].dir);
    m->pkg_key = nub_strdup(m->key);
    m->index = h->g->npkgs + i;
    h->virt[i] = m;
    nub_strmap_put(&h->virt_by_key, m->key, m);
  }
  for (size_t i = 0; i < ws->npkgs; i++)
    importer_edges(h, h->virt[i], nub_graph_importer(h->g, ws->pkgs[i].dir));
  agg = nub_calloc(1, sizeof(*agg));
  agg->name = nub_strdup(AGGREGATOR);
  agg->version = nub_strdup("1.0.0");
  agg->key = nub_strdup(AGGREGATOR "@1.0.0");
  agg->pkg_key = nub_strdup(agg->key);
  agg->index = h->g->npkgs + ws->npkgs;
  importer_edges(h, agg, h->g->nimporters ? &h->g->importers[0] : NULL);
  for (size_t i = 0; i < ws->npkgs; i++)
    if (!nub_depmap_get(&agg->dep_specs, h->virt[i]->name))
      vedge(&agg->deps, &agg->ndeps, &agg->dep_specs, h->virt[i]->name, h->virt[i]->key,
            h->virt[i]->version);
  h->virt[ws->npkgs] = agg;
}

static void free_virtual(struct hctx *h)
{
  for (size_t i = 0; i < h->nvirt; i++)
    nub_gpkg_free(h->virt[i]);
  nub_free(h->virt);
  nub_strmap_release(&h->virt_by_key, NULL);
}

/* ---- the whole ------------------------------------------------------------------- */

static int cmp_q(const void *a, const void *b)
{
  return strcmp(((const struct qitem *)a)->pattern, ((const struct qitem *)b)->pattern);
}

/* The member a tree entry of the top is, or NULL. */
static const struct nub_ws_pkg *top_member(const struct hctx *h, const struct hinfo *info)
{
  /* members are the virtual packages numbered first after the graph's */
  size_t i = info->pkg->index - h->g->npkgs;
  return h->ws && info->pkg->index >= h->g->npkgs && i < h->ws->npkgs &&
                 info->pkg == h->virt[i]
             ? &h->ws->pkgs[i]
             : NULL;
}

/* Where an entry lies: under node_modules of the project, or, below a
 * member (linked at the top, or left under the aggregator), in the
 * member's folder (package-hoister.js init()). NULL: not a folder of its
 * own (the aggregator, a member's own entry under it). */
static char *entry_path(const struct hctx *h, const struct hinfo *info)
{
  struct nub_buf path = NUB_BUF_INIT;
  size_t from = 0;

  if (h->ws && !strcmp(info->parts[0], AGGREGATOR)) {
    const struct nub_ws_pkg *m = info->nparts > 2 ? nub_workspace_find(h->ws, info->parts[1]) : NULL;
    if (!m)
      return NULL;
    nub_buf_adds(&path, m->dir);
    from = 2;
  } else if (h->ws && info->nparts > 1) {
    struct hinfo *top = nub_strmap_get(&h->tree, info->parts[0]);
    const struct nub_ws_pkg *m = top ? top_member(h, top) : NULL;
    if (m) {
      nub_buf_adds(&path, m->dir);
      from = 1;
    }
  }
  for (size_t k = from; k < info->nparts; k++)
    nub_buf_addf(&path, "%snode_modules/%s", path.len ? "/" : "", info->parts[k]);
  return nub_buf_take(&path);
}

int nub_tree_from_graph_yarn(struct nub_tree *t, const struct nub_graph *g,
                             const struct nub_workspace *ws, const struct nub_config *cfg,
                             bool (*has_peers)(void *ud, const struct nub_gpkg *p), void *ud,
                             struct nub_err *err)
{
  struct hctx h;
  struct root *roots = NULL;
  size_t nroots = 0, caproots = 0;
  const struct nub_importer *im = g->nimporters ? &g->importers[0] : NULL;
  struct {
    const char *alias;
    char *to; /* from the project */
  } *links = NULL;
  size_t nlinks = 0, caplinks = 0;
  int rc = 0;

  memset(&h, 0, sizeof(h));
  h.g = g;
  h.ws = ws && ws->npkgs ? ws : NULL;
  h.has_peers = has_peers;
  h.ud = ud;
  if (h.ws)
    make_virtual(&h);
  for (int k = 0; im && k < NUB_DEP_KINDS && rc == 0; k++) {
    const struct nub_gdirect *d;
    size_t n = nub_importer_directs(im, k, &d);
    for (size_t i = 0; i < n; i++) {
      char *tk = nub_gedge_target(d[i].alias, d[i].ref);
      const struct nub_gpkg *p = tk ? nub_graph_find(g, tk) : NULL;
      if (!p && d[i].ref && !strncmp(d[i].ref, "link:", 5)) {
        long m = h.ws ? linked_member(h.ws, im, d[i].ref) : -1;
        nub_free(tk); /* a workspace member, linked */
        if (m < 0) {
          /* a folder of the project's: linked at the top as it is */
          char *to = nub_importer_link_path(im, d[i].ref);
          if (to) {
            NUB_GROW(links, caplinks, nlinks + 1);
            links[nlinks].alias = d[i].alias;
            links[nlinks].to = to;
            nlinks++;
          }
          continue;
        }
        p = h.virt[m];
        tk = NULL;
      }
      if (!p) {
        /* a direct dependency left out would be a wrong tree, not a small one */
        rc = nub_err_set(err, -NUB_ELOCKFILE, "yarn.lock: the project's %s (%s) resolves to "
                         "no entry (%s)", d[i].alias, d[i].specifier ? d[i].specifier : "",
                         tk ? tk : "?");
        nub_free(tk);
        break;
      }
      nub_free(tk);
      NUB_GROW(roots, caproots, nroots + 1);
      roots[nroots].pattern = nub_asprintf("%s@%s", d[i].alias, d[i].specifier);
      roots[nroots].alias = d[i].alias;
      roots[nroots].pkg = p;
      nroots++;
    }
  }
  /* yarn's top-level patterns of a workspace: the aggregator, and each
   * member the project does not name itself, as "name@version" */
  for (size_t i = 0; rc == 0 && h.ws && i < h.nvirt; i++) {
    const struct nub_gpkg *v = h.virt[i];
    bool named = false;
    for (size_t r = 0; r < nroots && !named; r++)
      named = !strcmp(roots[r].alias, v->name);
    if (named)
      continue;
    NUB_GROW(roots, caproots, nroots + 1);
    roots[nroots].pattern = pattern_of(v->name, v->version);
    roots[nroots].alias = v->name;
    roots[nroots].pkg = v;
    nroots++;
  }
  if (rc < 0) {
    for (size_t i = 0; i < nroots; i++)
      nub_free(roots[i].pattern);
    nub_free(roots);
    free_virtual(&h);
    return rc;
  }
  nub_sort(roots, nroots, sizeof(*roots), cmp_root);
  h.targets = nub_calloc(g->npkgs + h.nvirt + 1, sizeof(*h.targets));
  prepass(&h, roots, nroots);
  h.seeding_direct = true;
  for (size_t i = 0; i < nroots; i++)
    if (i == 0 || strcmp(roots[i].pattern, roots[i - 1].pattern))
      seed(&h, roots[i].alias, roots[i].pkg, NULL);
  h.seeding_direct = false;
  while (h.nq) {
    struct qitem *level = h.q;
    size_t n = h.nq, k = 0;
    struct qitem *order = nub_calloc(n + 1, sizeof(*order));
    h.q = NULL;
    h.nq = h.capq = 0;
    nub_sort(level, n, sizeof(*level), cmp_q);
    /* packages without peer dependencies first, each group in order */
    for (int pass = 0; pass < 2; pass++)
      for (size_t i = 0; i < n; i++) {
        bool peers = has_peers && has_peers(ud, level[i].pkg);
        if (peers == (pass == 1))
          order[k++] = level[i];
      }
    for (size_t i = 0; i < n; i++) {
      struct hinfo *info = seed(&h, order[i].alias, order[i].pkg, order[i].parent);
      if (info)
        hoist(&h, info);
    }
    for (size_t i = 0; i < n; i++)
      nub_free(level[i].pattern);
    nub_free(level);
    nub_free(order);
  }
  /* into the tree: every placed package under its parts */
  for (size_t i = 0; h.ws && i < h.ws->npkgs && rc == 0; i++) {
    /* each member's folder, with what it depends on (its .bin) */
    const struct nub_gpkg *m = h.virt[i];
    size_t idx = nub_tree_add_node(t, h.ws->pkgs[i].dir);
    struct nub_node *nd = &t->nodes[idx];
    nd->flags |= NUB_NF_LOCAL;
    nd->deps = nub_calloc(m->ndeps + m->noptional_deps + 1, sizeof(char *));
    for (size_t e = 0; e < m->ndeps + m->noptional_deps; e++)
      nd->deps[nd->ndeps++] =
          nub_strdup(e < m->ndeps ? m->deps[e].alias : m->optional_deps[e - m->ndeps].alias);
  }
  for (size_t i = 0; i < h.tree.cap && rc == 0; i++) {
    struct hinfo *info = h.tree.slots[i].key ? h.tree.slots[i].val : NULL;
    struct nub_node *nd;
    const struct nub_ws_pkg *member;
    char *url, *path;
    if (!info || info->pkg->skip)
      continue;
    member = info->nparts == 1 ? top_member(&h, info) : NULL;
    if (h.ws && !member && info->pkg->index >= g->npkgs)
      continue; /* the aggregator, or a member below the top */
    path = entry_path(&h, info);
    if (!path)
      continue;
    {
      size_t idx = nub_tree_add_node(t, path); /* may move t->nodes */
      nd = &t->nodes[idx];
    }
    nub_free(path);
    if (member) {
      /* linked at the top, its bins from its package.json */
      nd->flags |= NUB_NF_LINK | NUB_NF_DIRECT;
      nd->link_target = nub_strdup(member->dir);
      nd->order = info->seq;
      nd->bins_known = true;
      if (member->man.nbins) {
        nd->bins = nub_calloc(member->man.nbins, sizeof(*nd->bins));
        for (size_t b = 0; b < member->man.nbins; b++) {
          nd->bins[b].name = nub_strdup(member->man.bins[b].name);
          nd->bins[b].target = nub_strdup(member->man.bins[b].target);
        }
        nd->nbins = member->man.nbins;
      }
      continue;
    }
    url = nub_pkg_tarball_url(cfg, cfg->project_dir, info->pkg->name, info->pkg->version,
                              info->pkg->tarball);
    if (!url) {
      rc = nub_err_set(err, -NUB_ENOREGISTRY, "no tarball URL for %s: %s", info->pkg->key,
                       nub_config_no_registry_hint);
      break;
    }
    nd->pkg = nub_tree_pkg(t, info->pkg->name, info->pkg->version, url, info->pkg->integrity);
    nd->gpkg = info->pkg;
    nd->order = info->seq;
    if (info->direct)
      nd->flags |= NUB_NF_DIRECT;
    nub_free(url);
    if (info->pkg->optional)
      nd->flags |= NUB_NF_OPTIONAL;
    nd->deps = nub_calloc(info->pkg->ndeps + info->pkg->noptional_deps + 1, sizeof(char *));
    for (size_t e = 0; e < info->pkg->ndeps + info->pkg->noptional_deps; e++)
      nd->deps[nd->ndeps++] =
          nub_strdup(e < info->pkg->ndeps ? info->pkg->deps[e].alias
                                          : info->pkg->optional_deps[e - info->pkg->ndeps].alias);
  }
  for (size_t i = 0; i < nlinks; i++) {
    char *path = nub_path_nm_child("", links[i].alias);
    if (rc == 0 && nub_tree_lookup(t, path) < 0) {
      size_t idx = nub_tree_add_node(t, path);
      t->nodes[idx].flags |= NUB_NF_LINK | NUB_NF_DIRECT;
      t->nodes[idx].link_target = links[i].to;
      links[i].to = NULL;
    }
    nub_free(path);
    nub_free(links[i].to);
  }
  nub_free(links);
  for (size_t i = 0; i < h.nall; i++) {
    nub_strarray_free(h.all[i]->parts, h.all[i]->nparts);
    nub_free(h.all[i]->key);
    nub_free(h.all[i]);
  }
  nub_free(h.all);
  for (size_t i = 0; i < h.nq; i++)
    nub_free(h.q[i].pattern);
  nub_free(h.q);
  for (size_t i = 0; i < nroots; i++)
    nub_free(roots[i].pattern);
  nub_free(roots);
  for (size_t i = 0; i < g->npkgs + h.nvirt; i++) /* the members' too */
    nub_free(h.targets[i]);
  nub_free(h.targets);
  nub_strmap_release(&h.tree, NULL);
  nub_strmap_release(&h.taint, NULL);
  free_virtual(&h);
  if (rc == 0)
    rc = nub_tree_finish(t, "yarn.lock", err);
  return rc;
}
