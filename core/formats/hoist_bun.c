/* hoist_bun.c - bun's hoisting; see hoist_bun.h. */
#include "hoist_bun.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nub_alloc.h"
#include "path.h"
#include "strmap.h"
#include "sync.h"

/* What a dependency resolves to: a package, a member, or a link. */
struct target {
  const struct nub_gpkg *pkg;
  long member; /* index in ws->pkgs, or -1 */
  const char *link;
};

/* bun's order of dependency kinds (Behavior.cmp) */
enum { R_WORKSPACE, R_DEV, R_OPTIONAL, R_PROD, R_PEER };

struct dep {
  const char *alias, *range;
  int rank;
  struct target t;
};

struct entry {
  const char *alias;
  struct target t;
  bool root_direct; /* a direct dependency of the project */
};

struct tree {
  long parent;
  char *path; /* "" for the top, else the folders from the top: "a", "a/b" */
  int depth;
  struct entry *e;
  size_t n, cap;
  struct nub_strmap by_alias; /* alias -> entry index + 1 */
};

struct item {
  long tree;
  const char *alias;
  struct target t;
};

struct hoister {
  const struct nub_graph *g;
  const struct nub_manifest *root;
  const struct nub_workspace *ws;
  struct tree *trees;
  size_t ntrees, captrees;
  struct item *queue;
  size_t qhead, qn, qcap;
  char **links; /* the link targets the targets point at */
  size_t nlinks, caplinks;
  struct nub_err *err;
  int rc;
};

static bool same(const struct target *a, const struct target *b)
{
  if (a->pkg || b->pkg)
    return a->pkg && b->pkg && !strcmp(a->pkg->pkg_key, b->pkg->pkg_key);
  if (a->member >= 0 || b->member >= 0)
    return a->member == b->member;
  return a->link && b->link && !strcmp(a->link, b->link);
}

static long add_tree(struct hoister *h, long parent, const char *alias)
{
  struct tree *t;

  NUB_GROW(h->trees, h->captrees, h->ntrees + 1);
  t = &h->trees[h->ntrees];
  memset(t, 0, sizeof(*t));
  t->parent = parent;
  if (parent < 0) {
    t->path = nub_strdup("");
  } else {
    const struct tree *p = &h->trees[parent];
    t->path = *p->path ? nub_asprintf("%s/%s", p->path, alias) : nub_strdup(alias);
    t->depth = p->depth + 1;
  }
  return (long)h->ntrees++;
}

static const struct entry *find(const struct tree *t, const char *alias)
{
  uintptr_t v = (uintptr_t)nub_strmap_get(&t->by_alias, alias);
  return v ? &t->e[v - 1] : NULL;
}

static void place(struct hoister *h, long ti, const struct dep *d, bool root_direct)
{
  struct tree *t = &h->trees[ti];

  NUB_GROW(t->e, t->cap, t->n + 1);
  t->e[t->n].alias = d->alias;
  t->e[t->n].t = d->t;
  t->e[t->n].root_direct = root_direct;
  t->n++;
  nub_strmap_put(&t->by_alias, d->alias, (void *)(uintptr_t)t->n);
  NUB_GROW(h->queue, h->qcap, h->qn + 1);
  h->queue[h->qn].tree = ti;
  h->queue[h->qn].alias = d->alias;
  h->queue[h->qn].t = d->t;
  h->qn++;
}

static long member_at(const struct nub_workspace *ws, const char *dir)
{
  const struct nub_ws_pkg *m = ws ? nub_workspace_at(ws, dir) : NULL;
  return m ? (long)(m - ws->pkgs) : -1;
}


static int cmp_dep(const void *a, const void *b)
{
  const struct dep *x = a, *y = b;
  return x->rank != y->rank ? x->rank - y->rank : strcmp(x->alias, y->alias);
}

static void add_dep(struct dep **v, size_t *n, size_t *cap, const char *alias,
                    const char *range, int rank, struct target t)
{
  NUB_GROW(*v, *cap, *n + 1);
  (*v)[*n].alias = alias;
  (*v)[*n].range = range;
  (*v)[*n].rank = rank;
  (*v)[*n].t = t;
  (*n)++;
}

/* An importer's direct dependencies; the project's also every member. Its
 * own peers (resolved as dependencies) are peers. */
static int importer_deps(struct hoister *h, const struct nub_importer *im, bool root,
                         const struct nub_manifest *man, struct dep **v, size_t *n)
{
  static const int ranks[NUB_DEP_KINDS] = {R_PROD, R_OPTIONAL, R_DEV};
  size_t cap = 0;

  for (size_t i = 0; root && h->ws && i < h->ws->npkgs; i++) {
    const struct nub_ws_pkg *m = &h->ws->pkgs[i];
    struct target t = {NULL, (long)i, NULL};
    if (m->man.name)
      add_dep(v, n, &cap, m->man.name, NULL, R_WORKSPACE, t);
  }
  for (int k = 0; im && k < NUB_DEP_KINDS; k++) {
    const struct nub_gdirect *d;
    size_t nd = nub_importer_directs(im, k, &d);
    for (size_t i = 0; i < nd; i++) {
      struct target t = {NULL, -1, NULL};
      if (!strncmp(d[i].ref, "link:", 5)) {
        char *to = nub_importer_link_path(im, d[i].ref);
        t.member = to ? member_at(h->ws, to) : -1;
        if (t.member < 0) {
          if (!root || !to) {
            nub_free(to);
            return nub_err_set(h->err, -NUB_ESPEC, "%s links %s to %s, which nub cannot "
                               "write into bun.lock yet", im->path, d[i].alias, d[i].ref);
          }
          NUB_GROW(h->links, h->caplinks, h->nlinks + 1);
          h->links[h->nlinks++] = to;
          t.link = to;
          to = NULL;
        }
        nub_free(to);
      } else {
        char *key = nub_gedge_target(d[i].alias, d[i].ref);
        t.pkg = key ? nub_graph_find(h->g, key) : NULL;
        nub_free(key);
        if (!t.pkg)
          continue; /* not installed (an optional package that failed) */
      }
      add_dep(v, n, &cap, d[i].alias, d[i].specifier,
              k == NUB_DEP_PROD && man && nub_depmap_get(&man->peer, d[i].alias) &&
                      !nub_depmap_get(&man->deps, d[i].alias)
                  ? R_PEER
                  : ranks[k],
              t);
    }
  }
  return 0;
}

static bool is_peer(const struct nub_gpkg *p, const char *alias)
{
  return nub_depmap_get(&p->peers, alias) && !nub_depmap_get(&p->dep_specs, alias) &&
         !nub_depmap_get(&p->opt_specs, alias);
}

static void pkg_deps(struct hoister *h, const struct nub_gpkg *p, struct dep **v, size_t *n)
{
  size_t cap = 0;

  for (size_t e = 0; e < p->ndeps + p->noptional_deps; e++) {
    bool opt = e >= p->ndeps;
    const struct nub_gedge *ed = opt ? &p->optional_deps[e - p->ndeps] : &p->deps[e];
    char *key = nub_gedge_target(ed->alias, ed->ref);
    struct target t = {key ? nub_graph_find(h->g, key) : NULL, -1, NULL};
    bool peer = !opt && is_peer(p, ed->alias);
    nub_free(key);
    if (!t.pkg)
      continue;
    add_dep(v, n, &cap, ed->alias, peer ? nub_depmap_get(&p->peers, ed->alias) : NULL,
            opt ? R_OPTIONAL : peer ? R_PEER : R_PROD, t);
  }
}

static const char *version_of(const struct hoister *h, const struct target *t)
{
  if (t->pkg)
    return t->pkg->version;
  return t->member >= 0 ? h->ws->pkgs[t->member].man.version : NULL;
}

static const char *name_of(const struct hoister *h, const struct target *t)
{
  if (t->pkg)
    return t->pkg->name;
  return t->member >= 0 ? h->ws->pkgs[t->member].man.name : NULL;
}

/* Whether d, a package with peer dependencies on its way to the top, must
 * stay in tree `mine` instead: one of its peers resolves to a package in
 * a folder below the top, on the way (placed there, or to be placed in
 * `mine` by a dependency of the same dependent, deps[0..nd), not placed
 * yet), so that at the top the peer would be another package. */
static bool held_by_peer(const struct hoister *h, long mine, const struct dep *d,
                         const struct dep *deps, size_t nd)
{
  const struct nub_gpkg *p = d->t.pkg;

  for (size_t k = 0; p && k < p->peers.n; k++) {
    const char *x = p->peers.v[k].name;
    const struct nub_gpkg *tx = nub_graph_edge_target(h->g, p, x);
    struct target want = {tx, -1, NULL};
    const struct entry *e = NULL;
    long l;
    /* a peer the dependent's version does not satisfy bun resolves
     * elsewhere (to one that does): it holds nothing here */
    if (!is_peer(p, x) || !tx ||
        !nub_sync_satisfies(p->peers.v[k].spec, x, tx->name, tx->version))
      continue;
    for (l = mine;; l = h->trees[l].parent) {
      e = find(&h->trees[l], x);
      if (e || h->trees[l].parent < 0)
        break;
    }
    if (e) {
      if (l != 0 && same(&e->t, &want))
        return true;
      if (l != 0 || same(&e->t, &want))
        continue;
    }
    /* not there yet: a sibling of d that is this peer lands in `mine` when
     * the top has another package of its name */
    for (size_t i = 0; i < nd; i++)
      if (!strcmp(deps[i].alias, x) && same(&deps[i].t, &want) && e && !same(&e->t, &want))
        return true;
  }
  return false;
}

/* Place the dependencies of `it` (placed in tree it->tree). */
static void process(struct hoister *h, const struct item *it, bool root)
{
  struct dep *deps = NULL;
  size_t nd = 0;
  long mine;

  if (root) {
    if ((h->rc = importer_deps(h, &h->g->importers[0], true, h->root, &deps, &nd)) < 0) {
      nub_free(deps);
      return;
    }
  } else if (it->t.member >= 0) {
    const struct nub_importer *im = nub_graph_importer(h->g, h->ws->pkgs[it->t.member].dir);
    if ((h->rc = importer_deps(h, im, false, &h->ws->pkgs[it->t.member].man, &deps, &nd)) < 0) {
      nub_free(deps);
      return;
    }
  } else if (it->t.pkg) {
    pkg_deps(h, it->t.pkg, &deps, &nd);
  }
  if (!nd) {
    nub_free(deps);
    return;
  }
  nub_sort(deps, nd, sizeof(*deps), cmp_dep);
  mine = root ? 0 : add_tree(h, it->tree, it->alias);
  for (size_t i = 0; i < nd; i++) {
    const struct dep *d = &deps[i];
    long to = -1;
    bool dedupe = false;
    if (d->t.pkg && d->t.pkg->directory) {
      /* a folder (file:) stays where it is depended on, as bun keeps it */
      if (!find(&h->trees[mine], d->alias))
        place(h, mine, d, root);
      continue;
    }
    for (long l = mine;; l = h->trees[l].parent) {
      const struct entry *e = find(&h->trees[l], d->alias);
      if (e) {
        const char *ver = version_of(h, &e->t), *nm = name_of(h, &e->t);
        if (same(&e->t, &d->t))
          dedupe = true;
        else if (d->rank == R_PEER &&
                 ((ver && nm && d->range && nub_sync_satisfies(d->range, d->alias, nm, ver)) ||
                  (l == 0 && e->root_direct)))
          dedupe = true;
        else if (l == mine)
          dedupe = true; /* the same name twice in one package: the first wins */
        else
          to = mine;
        break;
      }
      if (h->trees[l].parent < 0) {
        to = !root && held_by_peer(h, mine, d, deps, nd) ? mine : l;
        break;
      }
    }
    if (!dedupe && to >= 0)
      place(h, to, d, root);
  }
  nub_free(deps);
}

struct sorted_tree {
  const struct tree *t;
};

static int cmp_tree(const void *a, const void *b)
{
  const struct tree *x = ((const struct sorted_tree *)a)->t, *y = ((const struct sorted_tree *)b)->t;
  return x->depth != y->depth ? x->depth - y->depth : strcmp(x->path, y->path);
}

static int cmp_entry(const void *a, const void *b)
{
  return strcmp(((const struct entry *)a)->alias, ((const struct entry *)b)->alias);
}

int nub_hoist_bun(const struct nub_graph *g, const struct nub_manifest *root,
                  const struct nub_workspace *ws, struct nub_bun_place **out, size_t *n,
                  struct nub_err *err)
{
  struct hoister h;
  struct item top = {-1, "", {NULL, -1, NULL}};
  struct sorted_tree *order;
  size_t total = 0, k = 0;

  *out = NULL;
  *n = 0;
  if (!g->nimporters)
    return 0;
  memset(&h, 0, sizeof(h));
  h.g = g;
  h.root = root;
  h.ws = ws && ws->npkgs ? ws : NULL;
  h.err = err;
  add_tree(&h, -1, "");
  process(&h, &top, true);
  /* breadth first: the queue grows as packages are placed */
  while (h.rc == 0 && h.qhead < h.qn) {
    struct item it = h.queue[h.qhead++];
    process(&h, &it, false);
  }
  order = nub_calloc(h.ntrees + 1, sizeof(*order));
  for (size_t i = 0; i < h.ntrees; i++) {
    order[i].t = &h.trees[i];
    total += h.trees[i].n;
  }
  nub_sort(order, h.ntrees, sizeof(*order), cmp_tree);
  if (h.rc == 0) {
    *out = nub_calloc(total + 1, sizeof(**out));
    for (size_t i = 0; i < h.ntrees; i++) {
      struct tree *t = (struct tree *)order[i].t;
      nub_sort(t->e, t->n, sizeof(*t->e), cmp_entry);
      for (size_t j = 0; j < t->n; j++) {
        struct nub_bun_place *p = &(*out)[k++];
        const struct entry *e = &t->e[j];
        p->key = *t->path ? nub_asprintf("%s/%s", t->path, e->alias) : nub_strdup(e->alias);
        p->alias = p->key + strlen(p->key) - strlen(e->alias);
        p->pkg = e->t.pkg;
        p->member = e->t.member >= 0 ? &ws->pkgs[e->t.member] : NULL;
        p->link = e->t.link ? nub_strdup(e->t.link) : NULL;
      }
    }
    *n = k;
  }
  nub_strarray_free(h.links, h.nlinks);
  for (size_t i = 0; i < h.ntrees; i++) {
    nub_free(h.trees[i].path);
    nub_free(h.trees[i].e);
    nub_strmap_release(&h.trees[i].by_alias, NULL);
  }
  nub_free(h.trees);
  nub_free(h.queue);
  nub_free(order);
  return h.rc;
}

void nub_bun_places_free(struct nub_bun_place *v, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    nub_free(v[i].key);
    nub_free(v[i].link);
  }
  nub_free(v);
}
