/* hoist_berry.c - yarn berry's node_modules hoister, on the graph berry.c
 * makes (berry.h). It follows the hoister of berry's nm linker step by
 * step, because the tree it builds depends on the order things are tried
 * in:
 *
 *  - the graph becomes a tree of nodes keyed by name and instance; a node
 *    reached twice is shared until something is hoisted out of it (then the
 *    path to it is copied: "decoupled");
 *  - from the root down, each node's dependencies are offered to it, the
 *    version most packages depend on first; a dependency moves up when its
 *    name is free on the way, it is the version chosen for that name there,
 *    and its peers resolve to the same nodes from there (or move up with
 *    it); rounds repeat until nothing moves;
 *  - the tree's nodes, by name, are the node_modules directories.
 *
 * Maps keep insertion order and are changed while they are walked, as the
 * JavaScript maps they mirror are. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "berry.h"
#include "buf.h"
#include "nub_alloc.h"
#include "strmap.h"

/* A name a workspace's own node is listed under by its parent workspace. */
#define WSROOT "$wsroot$"

enum { KIND_REGULAR, KIND_WORKSPACE, KIND_EXTERNAL_SOFT_LINK };

/* ---- interned strings --------------------------------------------------- */

struct interner {
  struct nub_strmap ids;
  char **s;
  size_t n, cap;
};

static int intern(struct interner *in, const char *s)
{
  void *v = nub_strmap_get(&in->ids, s);

  if (v)
    return (int)(intptr_t)v - 1;
  NUB_GROW(in->s, in->cap, in->n + 1);
  in->s[in->n] = nub_strdup(s);
  nub_strmap_put(&in->ids, s, (void *)(intptr_t)(in->n + 1));
  return (int)in->n++;
}

static void interner_free(struct interner *in)
{
  for (size_t i = 0; i < in->n; i++)
    nub_free(in->s[i]);
  nub_free(in->s);
  nub_strmap_release(&in->ids, NULL);
}

/* ---- maps of 64-bit keys (ids, pairs of ids, pointers) ------------------ */

struct umap {
  uint64_t *keys; /* UINT64_MAX: empty */
  intptr_t *vals;
  size_t cap, n;
};

static size_t umap_slot(const struct umap *m, uint64_t k)
{
  size_t mask = m->cap - 1, h = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & mask;

  while (m->keys[h] != UINT64_MAX && m->keys[h] != k)
    h = (h + 1) & mask;
  return h;
}

/* The value for k, 0 when none. */
static intptr_t umap_get(const struct umap *m, uint64_t k)
{
  size_t h;

  if (!m->cap)
    return 0;
  h = umap_slot(m, k);
  return m->keys[h] == k ? m->vals[h] : 0;
}

static void umap_put(struct umap *m, uint64_t k, intptr_t v)
{
  size_t h;

  if ((m->n + 1) * 2 > m->cap) {
    uint64_t *ok = m->keys;
    intptr_t *ov = m->vals;
    size_t oc = m->cap;
    m->cap = oc ? oc * 2 : 64;
    m->keys = nub_malloc(m->cap * sizeof(*m->keys));
    m->vals = nub_calloc(m->cap, sizeof(*m->vals));
    memset(m->keys, 0xff, m->cap * sizeof(*m->keys));
    m->n = 0;
    for (size_t i = 0; i < oc; i++)
      if (ok[i] != UINT64_MAX)
        umap_put(m, ok[i], ov[i]);
    nub_free(ok);
    nub_free(ov);
  }
  h = umap_slot(m, k);
  if (m->keys[h] != k) {
    m->keys[h] = k;
    m->n++;
  }
  m->vals[h] = v;
}

static void umap_free(struct umap *m)
{
  nub_free(m->keys);
  nub_free(m->vals);
  memset(m, 0, sizeof(*m));
}

static uint64_t pair(int a, int b)
{
  return (uint64_t)(uint32_t)a << 32 | (uint32_t)b;
}

/* ---- sets of ints, in insertion order ------------------------------------ */

struct iset {
  int *v;
  size_t n, cap;
};

static bool iset_has(const struct iset *s, int x)
{
  for (size_t i = 0; i < s->n; i++)
    if (s->v[i] == x)
      return true;
  return false;
}

static void iset_add(struct iset *s, int x)
{
  if (iset_has(s, x))
    return;
  NUB_GROW(s->v, s->cap, s->n + 1);
  s->v[s->n++] = x;
}

static void iset_copy(struct iset *d, const struct iset *s)
{
  d->v = s->n ? nub_malloc(s->n * sizeof(int)) : NULL;
  if (s->n)
    memcpy(d->v, s->v, s->n * sizeof(int));
  d->n = d->cap = s->n;
}

/* ---- maps name -> node, in insertion order ---------------------------- */

struct hw;

/* JavaScript Map semantics: set on a present key keeps its place; delete
 * then set puts it last; a walk by index sees entries added during it. */
struct omap {
  int *keys;
  struct hw **vals; /* NULL: deleted */
  size_t n, cap, live;
  int *idx;         /* open addressing: key -> position + 1 (0 empty) */
  size_t icap;
};

static size_t omap_slot(const struct omap *m, int key)
{
  size_t mask = m->icap - 1, h = ((size_t)(unsigned)key * 2654435761u) & mask;

  while (m->idx[h] && m->keys[m->idx[h] - 1] != key)
    h = (h + 1) & mask;
  return h;
}

static void omap_reindex(struct omap *m)
{
  nub_free(m->idx);
  m->icap = 16;
  while (m->icap < m->n * 2 + 2)
    m->icap *= 2;
  m->idx = nub_calloc(m->icap, sizeof(int));
  for (size_t i = 0; i < m->n; i++)
    if (m->vals[i])
      m->idx[omap_slot(m, m->keys[i])] = (int)i + 1;
}

static struct hw *omap_get(const struct omap *m, int key)
{
  if (!m->live)
    return NULL;
  if (m->n <= 8) {
    for (size_t i = 0; i < m->n; i++)
      if (m->vals[i] && m->keys[i] == key)
        return m->vals[i];
    return NULL;
  }
  {
    size_t h = omap_slot(m, key);
    return m->idx[h] ? m->vals[m->idx[h] - 1] : NULL;
  }
}

static bool omap_has(const struct omap *m, int key)
{
  return omap_get(m, key) != NULL;
}

static void omap_set(struct omap *m, int key, struct hw *val)
{
  if (m->n > 8 && !m->idx)
    omap_reindex(m);
  if (m->n <= 8) {
    for (size_t i = 0; i < m->n; i++)
      if (m->vals[i] && m->keys[i] == key) {
        m->vals[i] = val;
        return;
      }
  } else {
    size_t h = omap_slot(m, key);
    if (m->idx[h] && m->vals[m->idx[h] - 1]) {
      m->vals[m->idx[h] - 1] = val;
      return;
    }
  }
  if (m->n + 1 > m->cap) {
    m->cap = m->cap ? m->cap * 2 : 4;
    m->keys = nub_realloc(m->keys, m->cap * sizeof(int));
    m->vals = nub_realloc(m->vals, m->cap * sizeof(struct hw *));
  }
  m->keys[m->n] = key;
  m->vals[m->n++] = val;
  m->live++;
  if (m->n > 8) {
    if (!m->idx || m->n * 2 + 2 > m->icap)
      omap_reindex(m);
    else
      m->idx[omap_slot(m, key)] = (int)m->n;
  }
}

static void omap_del(struct omap *m, int key)
{
  for (;;) {
    size_t i;
    if (m->n <= 8 || !m->idx) {
      for (i = 0; i < m->n; i++)
        if (m->vals[i] && m->keys[i] == key)
          break;
      if (i == m->n)
        return;
    } else {
      size_t h = omap_slot(m, key);
      if (!m->idx[h] || !m->vals[m->idx[h] - 1])
        return;
      i = (size_t)m->idx[h] - 1;
    }
    m->vals[i] = NULL;
    m->live--;
    if (m->idx && m->n > 8) /* keep the key's slot: a later set appends anew */
      omap_reindex(m);
    return;
  }
}

static void omap_copy(struct omap *d, const struct omap *s)
{
  memset(d, 0, sizeof(*d));
  for (size_t i = 0; i < s->n; i++)
    if (s->vals[i])
      omap_set(d, s->keys[i], s->vals[i]);
}

static void omap_free(struct omap *m)
{
  nub_free(m->keys);
  nub_free(m->vals);
  nub_free(m->idx);
}

/* Each live value, in order, entries added meanwhile included; `break`
 * leaves only the current entry (the walks here never need it). */
#define OMAP_EACH(m, i, v)                                                        \
  for (size_t i = 0; i < (m)->n; i++)                                             \
    for (struct hw *v = (m)->vals[i]; v; v = NULL)

/* ---- sets of nodes, in insertion order ---------------------------------- */

struct nset {
  struct hw **v;
  size_t n, cap;
  struct hw **tab; /* open addressing */
  size_t tcap;
  size_t live;
};

static size_t nset_slot(const struct nset *s, const struct hw *x)
{
  size_t mask = s->tcap - 1, h = (((uintptr_t)x) >> 4) * 11400714819323198485ull & mask;

  while (s->tab[h] && s->tab[h] != x)
    h = (h + 1) & mask;
  return h;
}

static bool nset_has(const struct nset *s, const struct hw *x)
{
  if (!s->tcap)
    return false;
  return s->tab[nset_slot(s, x)] == x;
}

static void nset_grow(struct nset *s)
{
  struct hw **old = s->tab;
  size_t oc = s->tcap;

  s->tcap = oc ? oc * 2 : 16;
  s->tab = nub_calloc(s->tcap, sizeof(*s->tab));
  for (size_t i = 0; i < oc; i++)
    if (old[i] && old[i] != (struct hw *)1)
      s->tab[nset_slot(s, old[i])] = old[i];
  nub_free(old);
}

/* Adds x; false when it was there. */
static bool nset_add(struct nset *s, struct hw *x)
{
  if (nset_has(s, x))
    return false;
  if ((s->live + 1) * 2 > s->tcap)
    nset_grow(s);
  s->tab[nset_slot(s, x)] = x;
  NUB_GROW(s->v, s->cap, s->n + 1);
  s->v[s->n++] = x;
  s->live++;
  return true;
}

/* Delete: the walk order keeps a hole (NULL). */
static void nset_del(struct nset *s, struct hw *x)
{
  size_t h;

  if (!nset_has(s, x))
    return;
  for (size_t i = 0; i < s->n; i++)
    if (s->v[i] == x) {
      s->v[i] = NULL;
      break;
    }
  /* rebuild the table without x */
  h = nset_slot(s, x);
  s->tab[h] = NULL;
  {
    size_t mask = s->tcap - 1, i = (h + 1) & mask;
    while (s->tab[i]) {
      struct hw *y = s->tab[i];
      s->tab[i] = NULL;
      s->tab[nset_slot(s, y)] = y;
      i = (i + 1) & mask;
    }
  }
  s->live--;
}

static void nset_free(struct nset *s)
{
  nub_free(s->v);
  nub_free(s->tab);
  memset(s, 0, sizeof(*s));
}

/* ---- the hoister's nodes ------------------------------------------------ */

struct hw {
  int name, ident, locator, ident_name;
  long pnode;
  struct iset refs;
  struct omap deps, orig, hoisted;
  struct iset peers;
  bool decoupled, border;
  int prio, kind;
};

struct hoister {
  struct interner in;
  struct hw **nodes; /* every node made, for freeing */
  size_t nnodes, capnodes;
  bool fast;         /* the first round may take the quick look at names in use */
};

static struct hw *hw_new(struct hoister *h)
{
  struct hw *n = nub_calloc(1, sizeof(*n));

  NUB_GROW(h->nodes, h->capnodes, h->nnodes + 1);
  h->nodes[h->nnodes++] = n;
  return n;
}

static bool peer_of(const struct hw *n, int name)
{
  return iset_has(&n->peers, name);
}

/* name@locator: a node on a path, told apart by the name it has there */
static bool aliased_in(const int (*path)[2], size_t n, const struct hw *x)
{
  for (size_t i = 0; i < n; i++)
    if (path[i][0] == x->name && path[i][1] == x->locator)
      return true;
  return false;
}

/* ---- the hoisting -------------------------------------------------------- */

/* The names the root's subtree takes from above it, with the nodes they
 * resolve to. */
static void used_zero_round(struct hw *root, struct omap *used, struct nset *seen)
{
  if (!nset_add(seen, root))
    return;
  OMAP_EACH(&root->hoisted, i, d) omap_set(used, d->name, d);
  OMAP_EACH(&root->deps, i, d) if (!peer_of(root, d->name)) used_zero_round(d, used, seen);
}

static void used_full(struct hw **path, size_t npath, struct hw *node, const struct iset *hidden,
                      struct omap *used, struct nset *seen)
{
  struct iset child_hidden = {0};

  if (!nset_add(seen, node))
    return;
  OMAP_EACH(&node->hoisted, i, d) {
    if (iset_has(hidden, d->name))
      continue;
    for (size_t p = 0; p < npath; p++) {
      struct hw *r = omap_get(&path[p]->deps, d->name);
      if (r)
        omap_set(used, r->name, r);
    }
  }
  OMAP_EACH(&node->deps, i, d) iset_add(&child_hidden, d->name);
  OMAP_EACH(&node->deps, i, d) if (!peer_of(node, d->name))
      used_full(path, npath, d, &child_hidden, used, seen);
  nub_free(child_hidden.v);
}

static struct hw *decouple(struct hoister *h, struct hw *parent, struct hw *node)
{
  struct hw *c, *self;

  if (node->decoupled)
    return node;
  c = hw_new(h);
  c->name = node->name;
  c->ident = node->ident;
  c->locator = node->locator;
  c->ident_name = node->ident_name;
  c->pnode = node->pnode;
  iset_copy(&c->refs, &node->refs);
  omap_copy(&c->deps, &node->deps);
  omap_copy(&c->orig, &node->orig);
  omap_copy(&c->hoisted, &node->hoisted);
  iset_copy(&c->peers, &node->peers);
  c->decoupled = true;
  c->border = node->border;
  c->prio = node->prio;
  c->kind = node->kind;
  self = omap_get(&c->deps, c->name);
  if (self && self->ident == c->ident)
    omap_set(&c->deps, c->name, c);
  omap_set(&parent->deps, c->name, c);
  return c;
}

/* The preference for each name@ident under root: the packages that depend
 * on it and that peer-depend on it, and its hoisting priority. */
struct pref {
  int name, ident;
  struct iset dependents, peer_dependents;
  int prio;
};

struct prefs {
  struct pref *v;
  size_t n, cap;
  struct umap at; /* (name, ident) -> index + 1 */
};

static struct pref *pref_get(struct prefs *p, const struct hw *n)
{
  intptr_t v = umap_get(&p->at, pair(n->name, n->ident));

  if (v)
    return &p->v[v - 1];
  NUB_GROW(p->v, p->cap, p->n + 1);
  memset(&p->v[p->n], 0, sizeof(p->v[p->n]));
  p->v[p->n].name = n->name;
  p->v[p->n].ident = n->ident;
  umap_put(&p->at, pair(n->name, n->ident), (intptr_t)(p->n + 1));
  return &p->v[p->n++];
}

static void pref_walk(struct prefs *p, struct nset *seen, const struct hw *dependent,
                      struct hw *node)
{
  bool was = nset_has(seen, node);

  iset_add(&pref_get(p, node)->dependents, dependent->ident);
  if (was)
    return;
  nset_add(seen, node);
  OMAP_EACH(&node->deps, i, d) {
    struct pref *e = pref_get(p, d);
    if (d->prio > e->prio)
      e->prio = d->prio;
    if (peer_of(node, d->name))
      iset_add(&e->peer_dependents, node->ident);
    else
      pref_walk(p, seen, node, d);
  }
}

static void prefs_free(struct prefs *p)
{
  for (size_t i = 0; i < p->n; i++) {
    nub_free(p->v[i].dependents.v);
    nub_free(p->v[i].peer_dependents.v);
  }
  nub_free(p->v);
  umap_free(&p->at);
}

/* name -> the idents to try for it, most preferred first */
struct identmap {
  int *names;
  struct iset *idents;
  size_t n, cap;
  struct umap at; /* name -> index + 1 */
};

static long identmap_find(const struct identmap *m, int name)
{
  return (long)umap_get(&m->at, (uint64_t)(uint32_t)name) - 1;
}

static struct iset *identmap_at(struct identmap *m, int name)
{
  long i = identmap_find(m, name);

  if (i >= 0)
    return &m->idents[i];
  if (m->n + 1 > m->cap) {
    m->cap = m->cap ? m->cap * 2 : 16;
    m->names = nub_realloc(m->names, m->cap * sizeof(int));
    m->idents = nub_realloc(m->idents, m->cap * sizeof(struct iset));
  }
  m->names[m->n] = name;
  memset(&m->idents[m->n], 0, sizeof(struct iset));
  umap_put(&m->at, (uint64_t)(uint32_t)name, (intptr_t)(m->n + 1));
  return &m->idents[m->n++];
}

static void identmap_free(struct identmap *m)
{
  for (size_t i = 0; i < m->n; i++)
    nub_free(m->idents[i].v);
  nub_free(m->names);
  nub_free(m->idents);
  umap_free(&m->at);
}

static const struct pref *sort_prefs_base;

static int cmp_pref(const void *a, const void *b)
{
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  const struct pref *p = &sort_prefs_base[x], *q = &sort_prefs_base[y];
  long ux = (long)(p->dependents.n + p->peer_dependents.n);
  long uy = (long)(q->dependents.n + q->peer_dependents.n);

  if (p->prio != q->prio)
    return q->prio - p->prio;
  if (ux != uy)
    return uy > ux ? 1 : -1;
  return x < y ? -1 : x > y; /* stable */
}

static void hoist_ident_map(const struct hw *root, struct prefs *p, struct identmap *m)
{
  size_t *order = nub_malloc((p->n + 1) * sizeof(size_t));

  iset_add(identmap_at(m, root->name), root->ident);
  OMAP_EACH(&root->deps, i, d) {
    if (!peer_of(root, d->name)) {
      struct iset *s = identmap_at(m, d->name);
      s->n = 0; /* set: [ident] */
      iset_add(s, d->ident);
    }
  }
  for (size_t i = 0; i < p->n; i++)
    order[i] = i;
  sort_prefs_base = p->v;
  qsort(order, p->n, sizeof(size_t), cmp_pref);
  for (size_t i = 0; i < p->n; i++) {
    const struct pref *e = &p->v[order[i]];
    if (!peer_of(root, e->name))
      iset_add(identmap_at(m, e->name), e->ident);
  }
  nub_free(order);
}

/* A node's regular dependencies, each after the peers it takes from the
 * node (so that those are tried first). */
static void sorted_add(struct hw *node, struct hw *dep, struct nset *out, struct nset *seen)
{
  if (!nset_add(seen, dep))
    return;
  for (size_t i = 0; i < dep->peers.n; i++) {
    int pn = dep->peers.v[i];
    if (!peer_of(node, pn)) {
      struct hw *pd = omap_get(&node->deps, pn);
      if (pd && !nset_has(out, pd))
        sorted_add(node, pd, out, seen);
    }
  }
  nset_add(out, dep);
}

static void sorted_regular(struct hw *node, struct nset *out)
{
  OMAP_EACH(&node->deps, i, d) {
    if (!peer_of(node, d->name)) {
      struct nset seen = {0};
      sorted_add(node, d, out, &seen);
      nset_free(&seen);
    }
  }
}

enum { H_YES, H_NO, H_DEPENDS };

struct hinfo {
  int state;
  struct hw **depends_on;
  size_t ndepends;
};

/* name -> the names shadowed under a node, per node */
struct shadow {
  struct hw **nodes;
  struct iset *names;
  size_t n, cap;
};

static struct iset *shadow_of(struct shadow *s, struct hw *node, bool make)
{
  for (size_t i = 0; i < s->n; i++)
    if (s->nodes[i] == node)
      return &s->names[i];
  if (!make)
    return NULL;
  if (s->n + 1 > s->cap) {
    s->cap = s->cap ? s->cap * 2 : 8;
    s->nodes = nub_realloc(s->nodes, s->cap * sizeof(*s->nodes));
    s->names = nub_realloc(s->names, s->cap * sizeof(*s->names));
  }
  s->nodes[s->n] = node;
  memset(&s->names[s->n], 0, sizeof(struct iset));
  return &s->names[s->n++];
}

static void shadow_free(struct shadow *s)
{
  for (size_t i = 0; i < s->n; i++)
    nub_free(s->names[i].v);
  nub_free(s->nodes);
  nub_free(s->names);
}

static bool has_unhoisted_deps(const struct hw *node)
{
  OMAP_EACH(&node->deps, i, d) if (!peer_of(node, d->name) && d->ident != node->ident) return true;
  return false;
}

/* hoist_idents: name -> the ident chosen for it at this root (+ 1) */
struct choice {
  struct umap at;
};

static bool chosen_is(const struct choice *c, int name, int ident)
{
  return umap_get(&c->at, (uint64_t)(uint32_t)name) == (intptr_t)ident + 1;
}

static void node_hoist_info(struct hoister *h, struct hw *root, struct hw **path, size_t npath,
                            struct hw *node, const struct omap *used, const struct choice *chosen,
                            struct shadow *shadowed, struct hinfo *out)
{
  struct hw *parent = path[npath - 1];
  bool ok = node->ident != parent->ident, deps_null = false;

  out->state = H_NO;
  out->ndepends = 0;
  out->depends_on = NULL;
  if (ok)
    ok = node->kind != KIND_WORKSPACE;
  if (ok && node->kind == KIND_EXTERNAL_SOFT_LINK)
    ok = !has_unhoisted_deps(node);
  if (ok)
    ok = !peer_of(root, node->name);
  if (ok) {
    struct hw *u = omap_get(used, node->name);
    bool avail = !u || u->ident == node->ident;
    if (avail)
      for (size_t i = npath - 1; i >= 1; i--) {
        struct hw *pd = omap_get(&path[i]->deps, node->name);
        if (pd && pd->ident != node->ident) {
          avail = false;
          iset_add(shadow_of(shadowed, parent, true), node->name);
          break;
        }
      }
    ok = avail;
  }
  if (ok)
    ok = chosen_is(chosen, node->name, node->ident);
  if (ok) {
    bool satisfied = true;
    struct iset check;
    iset_copy(&check, &node->peers);
    for (size_t i = npath - 1; i >= 1 && satisfied; i--) {
      struct hw *p = path[i];
      for (size_t k = 0; k < check.n;) {
        int pn = check.v[k];
        struct hw *pd;
        if (peer_of(p, pn) && omap_has(&p->orig, pn)) {
          k++;
          continue;
        }
        pd = omap_get(&p->deps, pn);
        if (pd && omap_get(&root->deps, pn) != pd) {
          if (i == npath - 1) {
            if (!deps_null) {
              bool have = false;
              for (size_t q = 0; q < out->ndepends && !have; q++)
                have = out->depends_on[q] == pd;
              if (!have) {
                out->depends_on = nub_realloc(out->depends_on,
                                              (out->ndepends + 1) * sizeof(struct hw *));
                out->depends_on[out->ndepends++] = pd;
              }
            }
          } else {
            deps_null = true;
            satisfied = false;
          }
        }
        /* delete check[k] */
        memmove(&check.v[k], &check.v[k + 1], (check.n - k - 1) * sizeof(int));
        check.n--;
      }
    }
    nub_free(check.v);
    ok = satisfied;
  }
  if (ok && !h->fast) {
    OMAP_EACH(&node->hoisted, i, od) {
      struct hw *u = omap_get(used, od->name);
      if (!u)
        u = omap_get(&root->deps, od->name);
      if (!u || od->ident != u->ident) {
        ok = false;
        break;
      }
    }
  }
  if (deps_null) {
    nub_free(out->depends_on);
    out->depends_on = NULL;
    out->ndepends = 0;
  }
  if (out->ndepends > 0)
    out->state = H_DEPENDS;
  else {
    nub_free(out->depends_on);
    out->depends_on = NULL;
    out->state = ok ? H_YES : H_NO;
  }
}

struct graph_ctx {
  struct hoister *h;
  struct hw **root_path; /* the path to the root being hoisted to */
  size_t nroot_path;
  const struct omap *used;
  const struct choice *chosen;
  struct shadow *parent_shadowed, *shadowed;
  struct nset seen;
  struct nset *next_new;
  bool another, changed;
};

/* per parent: name -> names of its dependencies that depend on it */
struct dependants {
  int *names;
  struct iset *of;
  size_t n, cap;
};

static struct iset *dependants_at(struct dependants *d, int name, bool make)
{
  for (size_t i = 0; i < d->n; i++)
    if (d->names[i] == name)
      return &d->of[i];
  if (!make)
    return NULL;
  if (d->n + 1 > d->cap) {
    d->cap = d->cap ? d->cap * 2 : 8;
    d->names = nub_realloc(d->names, d->cap * sizeof(int));
    d->of = nub_realloc(d->of, d->cap * sizeof(struct iset));
  }
  d->names[d->n] = name;
  memset(&d->of[d->n], 0, sizeof(struct iset));
  return &d->of[d->n++];
}

struct infos {
  struct hw **nodes;
  struct hinfo *info;
  size_t n, cap;
};

static long infos_find(const struct infos *s, const struct hw *n)
{
  for (size_t i = 0; i < s->n; i++)
    if (s->nodes[i] == n)
      return (long)i;
  return -1;
}

static void mark_unhoistable(struct graph_ctx *g, struct hw *parent, struct infos *infos,
                             struct dependants *dt, struct nset *unhoistable, struct hw *node)
{
  struct iset *ds;
  long at;

  if (!nset_add(unhoistable, node))
    return;
  at = infos_find(infos, node);
  if (at >= 0) {
    nub_free(infos->info[at].depends_on);
    infos->info[at].depends_on = NULL;
    infos->info[at].ndepends = 0;
    infos->info[at].state = H_NO;
  }
  ds = dependants_at(dt, node->name, false);
  for (size_t i = 0; ds && i < ds->n; i++) {
    struct hw *d = omap_get(&parent->deps, ds->v[i]);
    if (d)
      mark_unhoistable(g, parent, infos, dt, unhoistable, d);
  }
}

static void hoist_node_deps(struct graph_ctx *g, struct hw **node_path, size_t nnode_path,
                            const int (*apath)[2], size_t napath, struct hw *parent)
{
  struct hoister *h = g->h;
  struct hw *root = g->root_path[g->nroot_path - 1];
  int (*next_apath)[2];
  struct nset subs = {0}, unhoistable = {0}, children = {0};
  struct infos infos = {0};
  struct dependants dt = {0};
  struct hw **full;
  size_t nfull;
  bool hoisted_any = false;

  if (nset_has(&g->seen, parent))
    return;
  next_apath = nub_malloc((napath + 1) * sizeof(*next_apath));
  if (napath)
    memcpy(next_apath, apath, napath * sizeof(*next_apath));
  next_apath[napath][0] = parent->name;
  next_apath[napath][1] = parent->locator;
  /* [root, ...node_path, parent] */
  nfull = nnode_path + 2;
  full = nub_malloc(nfull * sizeof(*full));
  full[0] = root;
  if (nnode_path)
    memcpy(full + 1, node_path, nnode_path * sizeof(*full));
  full[nfull - 1] = parent;

  sorted_regular(parent, &subs);
  for (size_t i = 0; i < subs.n; i++) {
    struct hw *sub = subs.v[i];
    struct hinfo hi;
    if (!sub)
      continue;
    node_hoist_info(h, root, full, nfull, sub, g->used, g->chosen, g->shadowed, &hi);
    if (infos.n + 1 > infos.cap) {
      infos.cap = infos.cap ? infos.cap * 2 : 8;
      infos.nodes = nub_realloc(infos.nodes, infos.cap * sizeof(*infos.nodes));
      infos.info = nub_realloc(infos.info, infos.cap * sizeof(*infos.info));
    }
    infos.nodes[infos.n] = sub;
    infos.info[infos.n++] = hi;
    if (hi.state == H_DEPENDS)
      for (size_t k = 0; k < hi.ndepends; k++)
        iset_add(dependants_at(&dt, hi.depends_on[k]->name, true), sub->name);
  }
  for (size_t i = 0; i < infos.n; i++)
    if (infos.info[i].state == H_NO)
      mark_unhoistable(g, parent, &infos, &dt, &unhoistable, infos.nodes[i]);
  for (size_t i = 0; i < infos.n; i++) {
    struct hw *node = infos.nodes[i], *there;
    struct iset *sh;
    if (nset_has(&unhoistable, node))
      continue;
    g->changed = true;
    sh = shadow_of(g->parent_shadowed, parent, false);
    if (sh && iset_has(sh, node->name))
      g->another = true;
    hoisted_any = true;
    omap_del(&parent->deps, node->name);
    omap_set(&parent->hoisted, node->name, node);
    there = omap_get(&root->deps, node->name);
    if (!there) {
      if (root->ident != node->ident) {
        omap_set(&root->deps, node->name, node);
        nset_add(g->next_new, node);
      }
    } else {
      for (size_t r = 0; r < node->refs.n; r++)
        iset_add(&there->refs, node->refs.v[r]);
    }
  }
  if (parent->kind == KIND_EXTERNAL_SOFT_LINK && hoisted_any)
    g->another = true;
  sorted_regular(parent, &children);
  for (size_t i = 0; i < children.n; i++) {
    struct hw *node = children.v[i];
    if (!node || !nset_has(&unhoistable, node))
      continue;
    if (!node->border && !aliased_in((const int (*)[2])next_apath, napath + 1, node)) {
      struct hw **np = nub_malloc((nnode_path + 1) * sizeof(*np));
      struct hw *dn;
      if (nnode_path)
        memcpy(np, node_path, nnode_path * sizeof(*np));
      np[nnode_path] = parent;
      nset_add(&g->seen, parent);
      dn = decouple(h, parent, node);
      hoist_node_deps(g, np, nnode_path + 1, (const int (*)[2])next_apath, napath + 1, dn);
      nset_del(&g->seen, parent);
      nub_free(np);
    }
  }
  for (size_t i = 0; i < infos.n; i++)
    nub_free(infos.info[i].depends_on);
  nub_free(infos.nodes);
  nub_free(infos.info);
  for (size_t i = 0; i < dt.n; i++)
    nub_free(dt.of[i].v);
  nub_free(dt.names);
  nub_free(dt.of);
  nset_free(&subs);
  nset_free(&unhoistable);
  nset_free(&children);
  nub_free(full);
  nub_free(next_apath);
}

static void hoist_graph(struct graph_ctx *g)
{
  struct hw *root = g->root_path[g->nroot_path - 1];
  struct nset cur = {0}, next = {0};
  int (*apath)[2] = nub_malloc((g->nroot_path + 1) * sizeof(*apath));

  for (size_t i = 0; i < g->nroot_path; i++) {
    apath[i][0] = g->root_path[i]->name;
    apath[i][1] = g->root_path[i]->locator;
  }
  sorted_regular(root, &next);
  do {
    nset_free(&cur);
    cur = next;
    memset(&next, 0, sizeof(next));
    g->next_new = &next;
    for (size_t i = 0; i < cur.n; i++) {
      struct hw *dep = cur.v[i], *dd;
      if (!dep || dep->locator == root->locator || dep->border)
        continue;
      dd = decouple(g->h, root, dep);
      hoist_node_deps(g, NULL, 0, (const int (*)[2])apath, g->nroot_path, dd);
    }
  } while (next.live > 0);
  nset_free(&cur);
  nset_free(&next);
  nub_free(apath);
}

static void hoist_to(struct hoister *h, struct hw *tree, struct hw **path, size_t npath,
                     struct iset *path_locators, struct shadow *parent_shadowed, bool *another,
                     bool *changed)
{
  struct hw *root = path[npath - 1];
  struct prefs prefs = {0};
  struct identmap im = {0};
  struct omap used = {0};
  struct choice chosen = {0};
  struct shadow shadowed = {0};
  bool again;

  {
    struct nset seen = {0};
    nset_add(&seen, root);
    OMAP_EACH(&root->deps, i, d) if (!peer_of(root, d->name)) pref_walk(&prefs, &seen, root, d);
    nset_free(&seen);
  }
  hoist_ident_map(root, &prefs, &im);
  if (tree != root) {
    struct nset seen = {0};
    if (h->fast)
      used_zero_round(root, &used, &seen);
    else {
      struct iset none = {0};
      used_full(path, npath, root, &none, &used, &seen);
    }
    nset_free(&seen);
  }
  for (size_t i = 0; i < im.n; i++)
    umap_put(&chosen.at, (uint64_t)(uint32_t)im.names[i], (intptr_t)im.idents[i].v[0] + 1);
  do {
    struct graph_ctx g;
    memset(&g, 0, sizeof(g));
    g.h = h;
    g.root_path = path;
    g.nroot_path = npath;
    g.used = &used;
    g.chosen = &chosen;
    g.parent_shadowed = parent_shadowed;
    g.shadowed = &shadowed;
    hoist_graph(&g);
    nset_free(&g.seen);
    if (g.changed)
      *changed = true;
    if (g.another)
      *another = true;
    again = false;
    for (size_t i = 0; i < im.n; i++) {
      struct iset *ids = &im.idents[i];
      if (ids->n > 1 && !omap_has(&root->deps, im.names[i])) {
        /* the next ident for that name */
        memmove(ids->v, ids->v + 1, (ids->n - 1) * sizeof(int));
        ids->n--;
        umap_put(&chosen.at, (uint64_t)(uint32_t)im.names[i], (intptr_t)ids->v[0] + 1);
        again = true;
      }
    }
  } while (again);
  OMAP_EACH(&root->deps, i, d) {
    if (peer_of(root, d->name) || iset_has(path_locators, d->locator))
      continue;
    {
      struct hw **np = nub_malloc((npath + 1) * sizeof(*np));
      if (npath)
        memcpy(np, path, npath * sizeof(*np));
      np[npath] = d;
      iset_add(path_locators, d->locator);
      hoist_to(h, tree, np, npath + 1, path_locators, &shadowed, another, changed);
      /* delete d's locator */
      for (size_t q = 0; q < path_locators->n; q++)
        if (path_locators->v[q] == d->locator) {
          memmove(&path_locators->v[q], &path_locators->v[q + 1],
                  (path_locators->n - q - 1) * sizeof(int));
          path_locators->n--;
          break;
        }
      nub_free(np);
    }
  }
  prefs_free(&prefs);
  identmap_free(&im);
  omap_free(&used);
  umap_free(&chosen.at);
  shadow_free(&shadowed);
}

/* ---- the tree berry hoists, from the graph ------------------------------- */

/* One node of the input tree: a package under the name it is required by. */
struct tin {
  int name, ident_name, reference;
  long pnode;
  struct tin **deps;
  size_t ndeps, capdeps;
  struct iset peers;
  int prio, kind;
};

struct builder {
  struct hoister *h;
  const struct nub_berry_pnode *pn;
  size_t npn;
  long root;
  const char *const *ws_dirs;
  const char *const *ws_limits;
  const bool *ws_self_refs;
  size_t nws;
  struct umap nodes;            /* (package, workspace node, name) -> tin */
  struct tin **all;
  size_t nall, capall;
  struct nub_strmap limits;     /* "identName@reference" -> struct iset* of names */
  struct iset *ws_children;     /* per pnode: workspaces listed under it ($wsroot$) */
  bool *has_ws_children;
};

static struct tin *tin_new(struct builder *b)
{
  struct tin *t = nub_calloc(1, sizeof(*t));

  NUB_GROW(b->all, b->capall, b->nall + 1);
  b->all[b->nall++] = t;
  return t;
}

static void tin_add_dep(struct tin *p, struct tin *d)
{
  for (size_t i = 0; i < p->ndeps; i++)
    if (p->deps[i] == d)
      return;
  NUB_GROW(p->deps, p->capdeps, p->ndeps + 1);
  p->deps[p->ndeps++] = d;
}

static const char *ws_limit_of(const struct builder *b, const char *cwd)
{
  for (size_t i = 0; i < b->nws; i++)
    if (!strcmp(b->ws_dirs[i], cwd))
      return b->ws_limits[i];
  return NULL;
}

static bool ws_self_ref(const struct builder *b, const char *cwd)
{
  for (size_t i = 0; i < b->nws; i++)
    if (!strcmp(b->ws_dirs[i], cwd))
      return b->ws_self_refs[i];
  return true;
}

/* The location a pnode is "in", relative to the project ("" for the root
 * and for everything that is not one of the project's folders). */
static const char *cwd_of(const struct builder *b, long pn)
{
  const struct nub_berry_pnode *p = &b->pn[pn];

  return p->soft && p->location ? p->location : "";
}

/* One edge of the package tree, as berry adds it: name is what the parent
 * requires, locator (pn, wsroot) what it resolves to. */
static void add_pkg(struct builder *b, const char *name, long pn, bool wsroot, struct tin *parent,
                    long parent_pn, const char *cwd, bool border,
                    const struct nub_berry_pdep *parent_deps, size_t nparent_deps)
{
  struct hoister *h = b->h;
  const struct nub_berry_pnode *p = &b->pn[pn];
  char *locname = wsroot ? nub_asprintf("%s" WSROOT, p->name) : nub_strdup(p->name);
  int name_id = intern(&h->in, name);
  /* (the package instance, as its workspace node or not, and the name) */
  uint64_t key = (uint64_t)pn << 33 | (uint64_t)wsroot << 32 | (uint32_t)name_id;
  struct tin *node = (struct tin *)umap_get(&b->nodes, key);
  /* a soft link to a folder outside the project (a portal there) */
  bool seen = node != NULL, external = p->soft && p->ws < 0 && !p->location;
  int prio;

  if (!seen && pn == b->root && !wsroot) {
    node = b->all[0];
    umap_put(&b->nodes, key, (intptr_t)node);
  }
  if (!node) {
    int kind = external ? KIND_EXTERNAL_SOFT_LINK
                        : p->soft && wsroot ? KIND_WORKSPACE : KIND_REGULAR;
    node = tin_new(b);
    node->name = name_id;
    node->ident_name = intern(&h->in, locname);
    node->reference = intern(&h->in, p->reference);
    node->pnode = pn;
    node->kind = kind;
    if (kind != KIND_WORKSPACE)
      for (size_t i = 0; i < p->npeers; i++)
        iset_add(&node->peers, intern(&h->in, p->peers[i]));
    umap_put(&b->nodes, key, (intptr_t)node);
  }
  /* what links bring in goes up first: nothing is placed inside them */
  prio = external ? 2 : b->pn[parent_pn].soft ? 1 : 0;
  if (prio > node->prio)
    node->prio = prio;
  if (border && !external) {
    struct tin *pt = parent;
    char *pl = nub_asprintf("%s@%s", h->in.s[pt->ident_name], h->in.s[pt->reference]);
    struct iset *names = nub_strmap_get(&b->limits, pl);
    if (!names) {
      names = nub_calloc(1, sizeof(*names));
      nub_strmap_put(&b->limits, pl, names);
    }
    iset_add(names, node->name);
    nub_free(pl);
  }
  /* the package's dependencies: its own (itself first), a workspace's peers
   * from its parent, then the workspaces under it */
  {
    size_t cap = p->ndeps + (b->has_ws_children[pn] ? b->ws_children[pn].n : 0) + 1;
    struct nub_berry_pdep *deps = nub_calloc(cap + 1, sizeof(*deps));
    bool *wsr = nub_calloc(cap + 1, sizeof(bool));
    char **owned = nub_calloc(cap + 1, sizeof(char *));
    size_t nd = 0;
    for (size_t i = 0; i < p->ndeps; i++)
      deps[nd++] = p->deps[i];
    /* a workspace's peers that are not its dependencies: what its parent has
     * under that name (or nothing), and peers of this node */
    for (size_t i = 0; i < p->nws_peers; i++) {
      const char *pname = p->ws_peers[i];
      long target = -1;
      bool have = false;
      for (size_t k = 0; k < nd && !have; k++)
        have = !strcmp(deps[k].name, pname);
      if (have)
        continue;
      for (size_t k = 0; k < nparent_deps; k++)
        if (!strcmp(parent_deps[k].name, pname))
          target = parent_deps[k].target;
      deps = nub_realloc(deps, (cap + 2) * sizeof(*deps));
      wsr = nub_realloc(wsr, (cap + 2) * sizeof(bool));
      owned = nub_realloc(owned, (cap + 2) * sizeof(char *));
      cap++;
      deps[nd].name = pname;
      deps[nd].target = target;
      wsr[nd] = false;
      owned[nd] = NULL;
      nd++;
      iset_add(&node->peers, intern(&h->in, pname));
    }
    if (b->has_ws_children[pn]) {
      for (size_t i = 0; i < b->ws_children[pn].n; i++) {
        long c = b->ws_children[pn].v[i];
        owned[nd] = nub_asprintf("%s" WSROOT, b->pn[c].name);
        deps[nd].name = owned[nd];
        deps[nd].target = c;
        wsr[nd] = true;
        nd++;
      }
    }
    /* a workspace lists itself when nmSelfReferences says so */
    if (pn != parent_pn || !p->soft || (!external && ws_self_ref(b, cwd)))
      tin_add_dep(parent, node);
    /* nothing is placed inside a folder linked in from the project; a
     * workspace's dependencies go under its own node ($wsroot$) */
    if (!seen && !(pn != b->root && p->soft && !wsroot && !external)) {
      for (size_t i = 0; i < nd; i++) {
        long t = deps[i].target;
        const char *dcwd, *plim, *dlim;
        if (t < 0)
          continue;
        dcwd = b->pn[t].soft && b->pn[t].ws < 0 && !b->pn[t].location ? cwd : cwd_of(b, t);
        plim = ws_limit_of(b, cwd);
        dlim = ws_limit_of(b, dcwd);
        add_pkg(b, deps[i].name, t, wsr[i], node, pn, dcwd,
                (plim && !strcmp(plim, "dependencies")) ||
                    (dlim && (!strcmp(dlim, "dependencies") || !strcmp(dlim, "workspaces"))),
                deps, nd);
      }
    }
    for (size_t i = 0; i < nd; i++)
      nub_free(owned[i]);
    nub_free(owned);
    nub_free(wsr);
    nub_free(deps);
  }
  nub_free(locname);
}

/* The workspaces each workspace lists ($wsroot$): each member under the
 * nearest workspace whose folder holds it. */
static void ws_tree(struct builder *b)
{
  for (size_t i = 0; i < b->npn; i++) {
    const struct nub_berry_pnode *p = &b->pn[i];
    long best = -1;
    size_t bestlen = 0;
    if (p->ws <= 0 || strncmp(p->reference, "workspace:", 10))
      continue;
    for (size_t j = 0; j < b->npn; j++) {
      const struct nub_berry_pnode *q = &b->pn[j];
      size_t ql;
      if (q->ws < 0 || j == i || strncmp(q->reference, "workspace:", 10))
        continue;
      ql = strlen(q->location);
      if (q->ws == 0 ||
          (!strncmp(p->location, q->location, ql) && p->location[ql] == '/' && ql > bestlen)) {
        if (q->ws == 0 && best >= 0)
          continue;
        best = (long)j;
        bestlen = q->ws == 0 ? 0 : ql;
      }
    }
    if (best >= 0) {
      b->has_ws_children[best] = true;
      iset_add(&b->ws_children[best], (int)i);
    }
  }
}

/* ---- cloning it for the hoister, and the result -------------------------- */

static struct hw *clone_node(struct hoister *h, struct tin *t, struct hw *parent,
                             struct umap *made, struct builder *b)
{
  struct hw *w;
  bool seen;
  struct iset *lim;
  char *pl;

  w = (struct hw *)umap_get(made, (uint64_t)(uintptr_t)t);
  seen = w != NULL;
  if (!w) {
    char *loc = nub_asprintf("%s@%s", h->in.s[t->ident_name], h->in.s[t->reference]);
    const char *ref = h->in.s[t->reference], *hash = strchr(ref, '#');
    char *id = nub_asprintf("%s@%s", h->in.s[t->ident_name], hash ? hash + 1 : ref);
    w = hw_new(h);
    w->name = t->name;
    w->ident_name = t->ident_name;
    w->locator = intern(&h->in, loc);
    w->ident = intern(&h->in, id);
    w->pnode = t->pnode;
    iset_add(&w->refs, t->reference);
    iset_copy(&w->peers, &t->peers);
    w->decoupled = true;
    w->prio = t->prio;
    w->kind = t->kind;
    umap_put(made, (uint64_t)(uintptr_t)t, (intptr_t)w);
    nub_free(loc);
    nub_free(id);
  }
  pl = nub_strdup(h->in.s[parent->locator]);
  lim = nub_strmap_get(&b->limits, pl);
  nub_free(pl);
  if (!w->border && lim && iset_has(lim, t->name))
    w->border = true;
  omap_set(&parent->deps, t->name, w);
  omap_set(&parent->orig, t->name, w);
  if (seen) {
    /* reached twice: it and what it holds are shared */
    struct nset done = {0};
    struct hw **stack = NULL;
    size_t sp = 0, cap = 0;
    NUB_GROW(stack, cap, sp + 1);
    stack[sp++] = w;
    /* depth first, as the recursion marks them */
    while (sp) {
      struct hw *x = stack[--sp];
      if (!nset_add(&done, x))
        continue;
      x->decoupled = false;
      for (size_t i = x->deps.n; i-- > 0;) {
        struct hw *d = x->deps.vals[i];
        if (d && !peer_of(x, d->name)) {
          NUB_GROW(stack, cap, sp + 1);
          stack[sp++] = d;
        }
      }
    }
    nub_free(stack);
    nset_free(&done);
  } else {
    for (size_t i = 0; i < t->ndeps; i++)
      clone_node(h, t->deps[i], w, made, b);
  }
  return w;
}

/* The result: each node's dependencies by name, a node under a path being
 * a directory. */
struct hr {
  int name, ident_name;
  long pnode;
  struct iset *refs; /* shared with the work node */
  struct hr **deps;
  size_t ndeps, cap;
};

struct shrink {
  struct hr **all;
  size_t n, cap;
};

static struct hr *hr_new(struct shrink *s)
{
  struct hr *r = nub_calloc(1, sizeof(*r));

  NUB_GROW(s->all, s->cap, s->n + 1);
  s->all[s->n++] = r;
  return r;
}

static void hr_add(struct hr *p, struct hr *d)
{
  for (size_t i = 0; i < p->ndeps; i++)
    if (p->deps[i] == d)
      return;
  NUB_GROW(p->deps, p->cap, p->ndeps + 1);
  p->deps[p->ndeps++] = d;
}

static void shrink_add(struct shrink *s, struct nset *path, struct hw *node, struct hw *pw,
                       struct hr *pr)
{
  bool on_path = nset_has(path, node);
  struct hr *r;

  if (pw == node)
    r = pr;
  else {
    r = hr_new(s);
    r->name = node->name;
    r->ident_name = node->ident_name;
    r->pnode = node->pnode;
    r->refs = &node->refs;
  }
  hr_add(pr, r);
  if (!on_path) {
    nset_add(path, node);
    OMAP_EACH(&node->deps, i, d) if (!peer_of(node, d->name)) shrink_add(s, path, d, node, r);
    nset_del(path, node);
  }
}

/* ---- node_modules from the result -------------------------------------- */

struct outv {
  struct nub_berry_hplace *v;
  size_t n, cap;
  struct nub_strmap at; /* path -> index + 1 */
};

static const struct interner *sort_in;

static int cmp_ref(const void *a, const void *b)
{
  return strcmp(sort_in->s[*(const int *)a], sort_in->s[*(const int *)b]);
}

/* The reference a result node is placed as: the first of its references
 * in code-unit order. */
static const char *first_ref(const struct hoister *h, const struct hr *r, char **joined)
{
  int *v = nub_malloc((r->refs->n + 1) * sizeof(int));
  struct nub_buf b = NUB_BUF_INIT;
  const char *first;

  if (r->refs->n)
    memcpy(v, r->refs->v, r->refs->n * sizeof(int));
  sort_in = &h->in;
  qsort(v, r->refs->n, sizeof(int), cmp_ref);
  first = h->in.s[v[0]];
  for (size_t i = 0; i < r->refs->n; i++) {
    if (i)
      nub_buf_addc(&b, '#');
    nub_buf_adds(&b, h->in.s[v[i]]);
  }
  nub_buf_addc(&b, '\0');
  *joined = b.data;
  nub_free(v);
  return first;
}

static void populate(struct hoister *h, struct builder *b, struct hr *m, const char *loc,
                     struct nset *seen, struct outv *out, struct nub_strmap *pn_by_locator)
{
  char *mrefs;
  const char *mident = h->in.s[m->ident_name];
  size_t ml = strlen(mident);

  if (!nset_add(seen, (struct hw *)m))
    return;
  first_ref(h, m, &mrefs);
  if (ml > strlen(WSROOT) && !strcmp(mident + ml - strlen(WSROOT), WSROOT))
    ml -= strlen(WSROOT);
  for (size_t i = 0; i < m->ndeps; i++) {
    struct hr *d = m->deps[i];
    char *drefs, *dloc, *lk;
    const char *ref = first_ref(h, d, &drefs), *dname = h->in.s[d->name];
    const char *did = h->in.s[d->ident_name];
    size_t dl = strlen(dname);
    bool wsroot = dl > strlen(WSROOT) && !strcmp(dname + dl - strlen(WSROOT), WSROOT);
    long pn;
    const struct nub_berry_pnode *p;
    if (strlen(did) == ml && !strncmp(did, mident, ml) && !strcmp(drefs, mrefs)) {
      nub_free(drefs);
      continue; /* itself */
    }
    {
      char *idn = nub_strndup(did, wsroot && strlen(did) > strlen(WSROOT)
                                       ? strlen(did) - strlen(WSROOT) : strlen(did));
      lk = nub_asprintf("%s@%s", idn, ref);
      nub_free(idn);
    }
    pn = (long)(intptr_t)nub_strmap_get(pn_by_locator, lk) - 1;
    nub_free(lk);
    nub_free(drefs);
    if (pn < 0)
      continue;
    p = &b->pn[pn];
    dloc = nub_asprintf("%s%snode_modules/%s", loc, loc[0] ? "/" : "", dname);
    if (!wsroot) {
      void *at = nub_strmap_get(&out->at, dloc);
      if (at)
        out->v[(intptr_t)at - 1].pnode = pn;
      else {
        NUB_GROW(out->v, out->cap, out->n + 1);
        out->v[out->n].path = nub_strdup(dloc);
        out->v[out->n].pnode = pn;
        nub_strmap_put(&out->at, dloc, (void *)(intptr_t)(out->n + 1));
        out->n++;
      }
    }
    populate(h, b, d, p->soft ? (p->location ? p->location : loc) : dloc, seen, out,
             pn_by_locator);
    nub_free(dloc);
  }
  nub_free(mrefs);
}

int nub_berry_hoist(const struct nub_berry_pnode *pnodes, size_t n, long root,
                    const char *const *ws_dirs, const char *const *ws_limits,
                    const bool *ws_self_refs, size_t nws,
                    struct nub_berry_hplace **out, size_t *nout, struct nub_err *err)
{
  struct hoister h;
  struct builder b;
  struct tin *top;
  struct hw *tree;
  struct umap made = {0};
  struct nub_strmap pn_by_locator = {0};
  struct shrink s = {0};
  struct hr *rtop;
  struct outv o = {0};
  int rounds = 0;

  (void)err;
  *out = NULL;
  *nout = 0;
  if (root < 0 || (size_t)root >= n)
    return nub_err_set(err, -NUB_ELOCKFILE, "yarn.lock has no entry for the project itself");
  memset(&h, 0, sizeof(h));
  memset(&b, 0, sizeof(b));
  h.fast = true;
  b.h = &h;
  b.pn = pnodes;
  b.npn = n;
  b.root = root;
  b.ws_dirs = ws_dirs;
  b.ws_limits = ws_limits;
  b.ws_self_refs = ws_self_refs;
  b.nws = nws;
  b.ws_children = nub_calloc(n + 1, sizeof(*b.ws_children));
  b.has_ws_children = nub_calloc(n + 1, sizeof(bool));
  ws_tree(&b);
  /* the root node, then the tree from the root package */
  top = tin_new(&b);
  top->name = intern(&h.in, pnodes[root].name);
  top->ident_name = top->name;
  top->reference = intern(&h.in, pnodes[root].reference);
  top->pnode = root;
  top->kind = KIND_WORKSPACE;
  for (size_t i = 0; i < pnodes[root].npeers; i++)
    iset_add(&top->peers, intern(&h.in, pnodes[root].peers[i]));
  add_pkg(&b, pnodes[root].name, root, false, top, root, "", false, NULL, 0);
  /* clone for the hoister */
  {
    char *loc = nub_asprintf("%s@%s", h.in.s[top->ident_name], h.in.s[top->reference]);
    tree = hw_new(&h);
    tree->name = top->name;
    tree->ident_name = top->ident_name;
    tree->locator = intern(&h.in, loc);
    tree->ident = tree->locator;
    tree->pnode = root;
    iset_add(&tree->refs, top->reference);
    iset_copy(&tree->peers, &top->peers);
    tree->decoupled = true;
    tree->border = true;
    tree->kind = KIND_WORKSPACE;
    umap_put(&made, (uint64_t)(uintptr_t)top, (intptr_t)tree);
    for (size_t i = 0; i < top->ndeps; i++)
      clone_node(&h, top->deps[i], tree, &made, &b);
    nub_free(loc);
  }
  /* rounds until nothing moves */
  for (;;) {
    bool another = false, changed = false;
    struct iset locs = {0};
    struct shadow none = {0};
    struct hw *path[1] = {tree};
    iset_add(&locs, tree->locator);
    hoist_to(&h, tree, path, 1, &locs, &none, &another, &changed);
    nub_free(locs.v);
    shadow_free(&none);
    h.fast = false;
    rounds++;
    if (!(another || changed) || rounds > 1000)
      break;
  }
  /* the result, then the directories */
  {
    struct nset path = {0};
    rtop = hr_new(&s);
    rtop->name = tree->name;
    rtop->ident_name = tree->ident_name;
    rtop->pnode = root;
    rtop->refs = &tree->refs;
    nset_add(&path, tree);
    OMAP_EACH(&tree->deps, i, d) shrink_add(&s, &path, d, tree, rtop);
    nset_free(&path);
  }
  for (size_t i = 0; i < n; i++) {
    char *k = nub_asprintf("%s@%s", pnodes[i].name, pnodes[i].reference);
    nub_strmap_put(&pn_by_locator, k, (void *)(intptr_t)(i + 1));
    nub_free(k);
  }
  {
    struct nset seen = {0};
    populate(&h, &b, rtop, "", &seen, &o, &pn_by_locator);
    nset_free(&seen);
  }
  *out = o.v;
  *nout = o.n;
  nub_strmap_release(&o.at, NULL);
  nub_strmap_release(&pn_by_locator, NULL);
  umap_free(&made);
  for (size_t i = 0; i < s.n; i++) {
    nub_free(s.all[i]->deps);
    nub_free(s.all[i]);
  }
  nub_free(s.all);
  for (size_t i = 0; i < h.nnodes; i++) {
    struct hw *x = h.nodes[i];
    nub_free(x->refs.v);
    omap_free(&x->deps);
    omap_free(&x->orig);
    omap_free(&x->hoisted);
    nub_free(x->peers.v);
    nub_free(x);
  }
  nub_free(h.nodes);
  for (size_t i = 0; i < b.nall; i++) {
    nub_free(b.all[i]->deps);
    nub_free(b.all[i]->peers.v);
    nub_free(b.all[i]);
  }
  nub_free(b.all);
  umap_free(&b.nodes);
  for (size_t i = 0; i < b.limits.cap; i++)
    if (b.limits.slots[i].key) {
      struct iset *x = b.limits.slots[i].val;
      nub_free(x->v);
      nub_free(x);
    }
  nub_strmap_release(&b.limits, NULL);
  for (size_t i = 0; i < n; i++)
    nub_free(b.ws_children[i].v);
  nub_free(b.ws_children);
  nub_free(b.has_ws_children);
  interner_free(&h.in);
  return 0;
}
