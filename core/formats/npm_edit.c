/* npm_edit.c - a package-lock.json changed as npm changes it (npm_edit.h).
 *
 * The tree is the lockfile's "packages": one node per location, its entry
 * (a cJSON object of the parsed document) kept as read. Edges come from the
 * entries (the root's and the members' from package.json as it is now) in
 * the order arborist's Node loads them; each edge's target is found by
 * Node's lookup (the nearest node_modules up the chain) and recomputed after
 * every change to the tree, which is cheap beside a registry request. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "npm_edit.h"
#include "nub_alloc.h"
#include "semver.h"
#include "strmap.h"
#include "text.h"
#include "workspace.h"

enum etype { E_PROD, E_DEV, E_OPT, E_PEER, E_PEEROPT, E_WORKSPACE };

struct edge {
  const char *name, *spec; /* borrowed: the document's or the manifest's */
  enum etype type;
  long to; /* target node, -1: missing */
  bool valid;
  bool explicit; /* a top node's edge whose spec package.json changed (npm's
                  * explicit request: `npm install <name>`) */
  bool conflicted; /* a peer npm overrides with a warning (peerConflicted) */
};

struct eref {
  long from;
  size_t e;
};

struct node {
  char *loc, *name; /* location; the folder's name (the edge name) */
  cJSON *meta;      /* its entry in the document's "packages" */
  long parent;      /* the node whose node_modules holds it (resolveParent) */
  long target;      /* a link's target node */
  bool top, link, gone, seen;
  bool dev, optional, devopt, peer, extraneous;
  struct edge *e;
  size_t ne, cape;
  struct eref *in;
  size_t nin, capin;
  cJSON *before; /* a top node's entry as the file had it */
};

struct tree {
  struct node *v;
  size_t n, cap;
  struct nub_strmap at; /* location -> index + 1 */
  cJSON *doc, *pk;
  const struct nub_npm_edit_opts *o;
  long *queue;
  size_t nq, capq;
};

#define IS_PEER(t) ((t) == E_PEER || (t) == E_PEEROPT)
#define IS_OPT(t) ((t) == E_OPT || (t) == E_PEEROPT)

/* A change this rule does not cover: the caller resolves afresh. */
static int unsupported(struct nub_err *err, const char *what)
{
  return nub_err_set(err, -NUB_ESPEC, "package-lock.json edit: %s", what);
}

/* ---- locations ------------------------------------------------------------------ */

static long find(const struct tree *t, const char *loc)
{
  long i = (long)(size_t)nub_strmap_get(&t->at, loc) - 1;
  return i >= 0 && !t->v[i].gone ? i : -1;
}

static char *child_loc(const struct tree *t, long parent, const char *name)
{
  const char *pl = t->v[parent].loc;
  return *pl ? nub_asprintf("%s/node_modules/%s", pl, name) : nub_asprintf("node_modules/%s", name);
}

static long child(const struct tree *t, long parent, const char *name)
{
  char *loc = child_loc(t, parent, name);
  long i = find(t, loc);
  nub_free(loc);
  return i;
}

/* Node's lookup: from's own node_modules, then each one up the chain. */
static long resolve(const struct tree *t, long from, const char *name)
{
  for (long n = from; n >= 0; n = t->v[n].parent) {
    long c = child(t, n, name);
    if (c >= 0)
      return c;
  }
  return -1;
}

static long real(const struct tree *t, long i)
{
  return i >= 0 && t->v[i].link ? t->v[i].target : i;
}

static const char *pkgname(const struct tree *t, long i)
{
  const char *n = nub_json_str(t->v[i].meta, "name");
  return n && !t->v[i].top ? n : t->v[i].name;
}

static const char *version(const struct tree *t, long i)
{
  const char *v = nub_json_str(t->v[i].meta, "version");
  return v ? v : "";
}

static bool descends(const struct tree *t, long n, long anc)
{
  for (; n >= 0; n = t->v[n].parent)
    if (n == anc)
      return true;
  return false;
}

/* ---- edges ----------------------------------------------------------------------- */

static void set_edge(struct node *nd, const char *name, const char *spec, enum etype type)
{
  for (size_t i = 0; i < nd->ne; i++)
    if (!strcmp(nd->e[i].name, name)) { /* a later kind wins, in the first's place */
      nd->e[i].spec = spec;
      nd->e[i].type = type;
      return;
    }
  NUB_GROW(nd->e, nd->cape, nd->ne + 1);
  nd->e[nd->ne++] = (struct edge){name, spec, type, -1, false, false, false};
}

static bool peer_optional(const cJSON *meta, const char *name)
{
  const cJSON *pm = cJSON_GetObjectItemCaseSensitive(meta, "peerDependenciesMeta");
  return nub_json_true(cJSON_GetObjectItemCaseSensitive(pm, name), "optional");
}

static void map_edges(struct node *nd, const cJSON *map, enum etype type, const cJSON *meta)
{
  const cJSON *it;

  cJSON_ArrayForEach(it, map)
  {
    if (!it->string || !cJSON_IsString(it))
      continue;
    set_edge(nd, it->string, it->valuestring,
             type == E_PEER && peer_optional(meta, it->string) ? E_PEEROPT : type);
  }
}

/* arborist's Node#loadDeps order: peers, optional peers, dependencies,
 * optionalDependencies, and a top node's devDependencies. */
static void load_edges(struct node *nd)
{
  const cJSON *peers = cJSON_GetObjectItemCaseSensitive(nd->meta, "peerDependencies");
  const cJSON *it;

  nd->ne = 0;
  cJSON_ArrayForEach(it, peers) if (it->string && cJSON_IsString(it) && !peer_optional(nd->meta, it->string))
    set_edge(nd, it->string, it->valuestring, E_PEER);
  cJSON_ArrayForEach(it, peers) if (it->string && cJSON_IsString(it) && peer_optional(nd->meta, it->string))
    set_edge(nd, it->string, it->valuestring, E_PEEROPT);
  map_edges(nd, cJSON_GetObjectItemCaseSensitive(nd->meta, "dependencies"), E_PROD, nd->meta);
  map_edges(nd, cJSON_GetObjectItemCaseSensitive(nd->meta, "optionalDependencies"), E_OPT, nd->meta);
  if (nd->top)
    map_edges(nd, cJSON_GetObjectItemCaseSensitive(nd->meta, "devDependencies"), E_DEV, nd->meta);
}

/* Split an "npm:<name>@<range>" spec: the package it names into buf and
 * its range; other specs name the edge's own package. */
static const char *spec_target(const char *edge_name, const char *spec, char *buf, size_t cap,
                               const char **range)
{
  const char *at;

  *range = spec;
  if (strncmp(spec, "npm:", 4))
    return edge_name;
  at = strchr(spec + 5, '@');
  snprintf(buf, cap, "%.*s", (int)(at ? (size_t)(at - spec - 4) : strlen(spec + 4)), spec + 4);
  *range = at ? at + 1 : "*";
  return buf;
}

/* dep-valid: whether package pkg at version ver answers spec for the edge
 * named edge_name (top: a workspace member, which answers its links). */
static bool accepts(const char *edge_name, const char *spec, const char *pkg, const char *ver,
                    bool top)
{
  char buf[512];
  const char *range, *want;

  if (!strncmp(spec, "file:", 5) || !strncmp(spec, "link:", 5))
    return true;
  want = spec_target(edge_name, spec, buf, sizeof(buf), &range);
  if (strcmp(pkg, want) && !top)
    return false;
  if (!*range || !strcmp(range, "*") || !strcmp(range, "latest"))
    return true;
  if (nub_range_valid(range))
    return nub_semver_satisfies(range, ver, false) == 1;
  return true; /* a tag, git or URL: the node there answers it */
}

static bool satisfies(const struct tree *t, long i, const char *name, const char *spec)
{
  long r = real(t, i);
  return r >= 0 && accepts(name, spec, pkgname(t, r), version(t, r), t->v[r].top);
}

static void push_in(struct node *to, long from, size_t e)
{
  NUB_GROW(to->in, to->capin, to->nin + 1);
  to->in[to->nin++] = (struct eref){from, e};
}

/* Every edge's target and validity, and each node's edges in. */
static void rewire(struct tree *t)
{
  for (size_t i = 0; i < t->n; i++)
    t->v[i].nin = 0;
  for (size_t i = 0; i < t->n; i++) {
    struct node *nd = &t->v[i];
    if (nd->gone || nd->link)
      continue;
    for (size_t k = 0; k < nd->ne; k++) {
      struct edge *ed = &nd->e[k];
      ed->to = resolve(t, (long)i, ed->name);
      ed->valid = ed->to >= 0 && satisfies(t, ed->to, ed->name, ed->spec);
      if (ed->to >= 0)
        push_in(&t->v[ed->to], (long)i, k);
    }
  }
}

static struct edge *edge_of(struct tree *t, struct eref r)
{
  return &t->v[r.from].e[r.e];
}

static const struct edge *out_edge(const struct tree *t, long n, const char *name)
{
  const struct node *nd = &t->v[n];
  for (size_t k = 0; k < nd->ne; k++)
    if (!strcmp(nd->e[k].name, name))
      return &nd->e[k];
  return NULL;
}

/* ---- building the tree ----------------------------------------------------------- */

static long add_node(struct tree *t, const char *loc, cJSON *meta)
{
  struct node *nd;
  const char *slash = strstr(loc, "node_modules/");
  const char *last = NULL;

  NUB_GROW(t->v, t->cap, t->n + 1);
  nd = &t->v[t->n];
  memset(nd, 0, sizeof(*nd));
  nd->loc = nub_strdup(loc);
  nd->meta = meta;
  nd->parent = -1;
  nd->target = -1;
  for (const char *p = slash; p; p = strstr(p + 1, "node_modules/"))
    if (p == loc || p[-1] == '/')
      last = p;
  nd->top = !last; /* the root, or a workspace member's folder */
  nd->name = nub_strdup(last ? last + strlen("node_modules/") : loc);
  nd->link = nub_json_true(meta, "link");
  nub_strmap_put(&t->at, loc, (void *)(size_t)(t->n + 1));
  return (long)t->n++;
}

/* resolveParent: the folder that holds a node_modules entry; a member's
 * nearest folder that is a node (the root at last). */
static void set_parent(struct tree *t, long i)
{
  struct node *nd = &t->v[i];
  char *dir;

  if (!*nd->loc)
    return;
  dir = nub_strdup(nd->loc);
  if (!nd->top) {
    size_t cut = strlen(dir) - strlen(nd->name) - strlen("node_modules/");
    if (cut > 0 && dir[cut - 1] == '/')
      cut--;
    dir[cut] = '\0';
    nd->parent = find(t, dir);
  } else {
    char *s;
    nd->parent = 0;
    while ((s = strrchr(dir, '/')) != NULL) {
      long p;
      *s = '\0';
      if ((p = find(t, dir)) >= 0 && !t->v[p].link) {
        nd->parent = p;
        break;
      }
    }
  }
  nub_free(dir);
}

static cJSON *dep_map(const struct nub_depmap *m)
{
  cJSON *o = cJSON_CreateObject();
  for (size_t i = 0; i < m->n; i++)
    cJSON_AddStringToObject(o, m->v[i].name, m->v[i].spec);
  return o;
}

static void replace_field(cJSON *meta, const char *key, cJSON *val)
{
  if (val && cJSON_IsObject(val) && !val->child) {
    cJSON_Delete(val);
    val = NULL;
  }
  if (cJSON_GetObjectItemCaseSensitive(meta, key)) {
    if (val)
      cJSON_ReplaceItemInObjectCaseSensitive(meta, key, val);
    else
      cJSON_DeleteItemFromObjectCaseSensitive(meta, key);
  } else if (val) {
    cJSON_AddItemToObject(meta, key, val);
  }
}

/* A top node's entry records its package.json's dependency maps. */
static void manifest_into(cJSON *meta, const struct nub_manifest *m)
{
  cJSON *pm = NULL;


  replace_field(meta, "dependencies", dep_map(&m->deps));
  replace_field(meta, "devDependencies", dep_map(&m->dev));
  replace_field(meta, "optionalDependencies", dep_map(&m->optional));
  replace_field(meta, "peerDependencies", dep_map(&m->peer));
  if (m->npeers_optional) {
    pm = cJSON_CreateObject();
    for (size_t i = 0; i < m->npeers_optional; i++)
      cJSON_AddTrueToObject(cJSON_AddObjectToObject(pm, m->peers_optional[i]), "optional");
  }
  replace_field(meta, "peerDependenciesMeta", pm);
  if (cJSON_GetObjectItemCaseSensitive(meta, "bundleDependencies")) {
    cJSON *bd = cJSON_CreateArray();
    for (size_t i = 0; i < m->nbundled; i++)
      cJSON_AddItemToArray(bd, cJSON_CreateString(m->bundled[i]));
    if (!m->nbundled) {
      cJSON_Delete(bd);
      bd = NULL;
    }
    replace_field(meta, "bundleDependencies", bd);
  }
}

/* A top node's "name" and "version" (metaFromNode): the name when it is
 * not its folder's, or for the root; the version when there is one. */
static void name_into(cJSON *meta, const char *loc, const struct nub_manifest *m)
{
  const char *base = strrchr(loc, '/');

  base = base ? base + 1 : loc;
  if (m->name && *m->name && (!*loc || strcmp(m->name, base)))
    replace_field(meta, "name", cJSON_CreateString(m->name));
  else if (*loc)
    replace_field(meta, "name", NULL);
  replace_field(meta, "version", m->version && *m->version ? cJSON_CreateString(m->version) : NULL);
}

static bool requested(const struct nub_npm_edit_opts *o, const char *name)
{
  for (size_t i = 0; i < o->nrequested; i++)
    if (!strcmp(o->requested[i], name))
      return true;
  return false;
}

static int load(struct tree *t, struct nub_err *err)
{
  const cJSON *it;
  const struct nub_workspace *ws = t->o->ws;

  cJSON_ArrayForEach(it, t->pk)
  {
    if (!it->string || !cJSON_IsObject(it))
      return nub_err_set(err, -NUB_ESPEC, "package-lock.json edit: an entry is not an object");
    add_node(t, it->string, (cJSON *)it);
  }
  if (find(t, "") != 0)
    return nub_err_set(err, -NUB_ESPEC, "package-lock.json edit: no root entry first");
  t->v[0].before = cJSON_Duplicate(t->v[0].meta, true);
  manifest_into(t->v[0].meta, t->o->root);
  name_into(t->v[0].meta, "", t->o->root);
  for (size_t i = 0; ws && i < ws->npkgs; i++) {
    long m = find(t, ws->pkgs[i].dir);
    if (m < 0 || !t->v[m].top)
      return nub_err_set(err, -NUB_ESPEC, "package-lock.json edit: the member %s has no entry",
                         ws->pkgs[i].dir);
    t->v[m].before = cJSON_Duplicate(t->v[m].meta, true);
    manifest_into(t->v[m].meta, &ws->pkgs[i].man);
    name_into(t->v[m].meta, ws->pkgs[i].dir, &ws->pkgs[i].man);
  }
  for (size_t i = 0; i < t->n; i++) {
    struct node *nd = &t->v[i];
    set_parent(t, (long)i);
    if (nd->link) {
      const char *to = nub_json_str(nd->meta, "resolved");
      nd->target = to ? find(t, to) : -1;
    } else {
      load_edges(nd);
    }
  }
  /* what package.json asks anew */
  for (size_t i = 0; i < t->n; i++) {
    struct node *nd = &t->v[i];
    static const char *const maps[] = {"dependencies", "devDependencies", "optionalDependencies",
                                       "peerDependencies"};
    for (size_t k = 0; nd->before && k < nd->ne; k++) {
      const char *was = NULL;
      for (size_t j = 0; !was && j < 4; j++)
        was = nub_json_str(cJSON_GetObjectItemCaseSensitive(nd->before, maps[j]), nd->e[k].name);
      nd->e[k].explicit = (!was || strcmp(was, nd->e[k].spec)) && requested(t->o, nd->e[k].name);
    }
    cJSON_Delete(nd->before);
    nd->before = NULL;
  }
  /* the root's edges to its members (arborist's workspace edges) */
  for (size_t i = 0; ws && i < ws->npkgs; i++) {
    const char *nm = ws->pkgs[i].man.name;
    if (nm)
      set_edge(&t->v[0], nm, ws->pkgs[i].dir, E_WORKSPACE);
  }
  return 0;
}

/* ---- flags (calc-dep-flags) ------------------------------------------------------ */

static bool shadows_invalid(const struct tree *t, const struct edge *ed, long to)
{
  long gp = t->v[to].parent >= 0 ? t->v[t->v[to].parent].parent : -1;
  long sh = gp >= 0 ? resolve(t, gp, t->v[to].name) : -1;
  return sh >= 0 && !satisfies(t, sh, ed->name, ed->spec);
}

static void enqueue(struct tree *t, long i)
{
  NUB_GROW(t->queue, t->capq, t->nq + 1);
  t->queue[t->nq++] = i;
}

static void calc_flags(struct tree *t)
{
  for (size_t i = 0; i < t->n; i++) {
    struct node *nd = &t->v[i];
    nd->dev = nd->optional = nd->devopt = nd->peer = nd->extraneous = i != 0;
    nd->seen = false;
  }
  t->nq = 0;
  enqueue(t, 0);
  while (t->nq) {
    long i = t->queue[--t->nq];
    struct node *nd = &t->v[i];
    nd->seen = true;
    if (!nd->extraneous)
      for (long p = nd->parent; p >= 0 && t->v[p].extraneous; p = t->v[p].parent)
        t->v[p].extraneous = false;
    if (nd->link) {
      struct node *tg;
      bool changed = false;
      if (nd->target < 0)
        continue;
      tg = &t->v[nd->target];
#define UNSET(f) if (tg->f && !nd->f) { tg->f = false; changed = true; }
      UNSET(dev) UNSET(optional) UNSET(devopt) UNSET(peer) UNSET(extraneous)
#undef UNSET
      if (changed || !tg->seen)
        enqueue(t, nd->target);
      continue;
    }
    for (size_t k = 0; k < nd->ne; k++) {
      const struct edge *ed = &nd->e[k];
      struct node *to;
      bool changed = false, dev = ed->type == E_DEV, opt = IS_OPT(ed->type),
           peer = IS_PEER(ed->type);
      if (ed->to < 0)
        continue;
      to = &t->v[ed->to];
      if (to->extraneous && !nd->extraneous &&
          !(ed->type == E_PEEROPT && !shadows_invalid(t, ed, ed->to))) {
        to->extraneous = false;
        changed = true;
      }
      if (to->dev && !nd->dev && !dev) {
        to->dev = false;
        changed = true;
      }
      if (to->optional && !nd->optional && !opt) {
        to->optional = false;
        changed = true;
      }
      if (to->devopt && !nd->devopt && !nd->dev && !nd->optional && !dev && !opt) {
        to->devopt = false;
        changed = true;
      }
      if (to->peer && !nd->peer && !peer) {
        to->peer = false;
        changed = true;
      }
      if (changed)
        enqueue(t, ed->to);
    }
  }
  for (size_t i = 1; i < t->n; i++)
    if (t->v[i].devopt && (t->v[i].dev || t->v[i].optional))
      t->v[i].devopt = false;
}

/* ---- removing nodes -------------------------------------------------------------- */

/* n and everything under its node_modules */
static void remove_node(struct tree *t, long n)
{
  size_t len = strlen(t->v[n].loc);

  t->v[n].gone = true;
  for (size_t i = 0; i < t->n; i++)
    if (!t->v[i].gone && !strncmp(t->v[i].loc, t->v[n].loc, len) && t->v[i].loc[len] == '/' &&
        !t->v[i].top)
      t->v[i].gone = true;
}

/* gather-dep-set: the nodes of set, their dependencies (edges keep() lets
 * through), less those something outside the set needs. */
static void gather(struct tree *t, bool *in, bool (*keep)(struct tree *, const struct edge *, long, void *),
                   void *ud)
{
  bool changed = true;

  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < t->n; i++) {
      if (!in[i] || t->v[i].gone)
        continue;
      for (size_t k = 0; k < t->v[i].ne; k++) {
        const struct edge *ed = &t->v[i].e[k];
        if (ed->to >= 0 && !in[ed->to] && keep(t, ed, (long)i, ud)) {
          in[ed->to] = true;
          grew = true;
        }
      }
    }
  }
  while (changed) {
    changed = false;
    for (size_t i = 0; i < t->n; i++) {
      if (!in[i])
        continue;
      for (size_t r = 0; r < t->v[i].nin; r++) {
        const struct eref er = t->v[i].in[r];
        if (!in[er.from] && keep(t, edge_of(t, er), er.from, ud)) {
          in[i] = false;
          changed = true;
          break;
        }
      }
    }
  }
}

/* The edges gather() follows and counts (arborist's filters). */
enum gkind { G_VALID_NOT_TO, G_NOT_TO, G_NOT_PLACED };

struct gfilter {
  enum gkind kind;
  long node; /* the node the filter leaves out */
};

static bool gkeep(struct tree *t, const struct edge *ed, long from, void *ud)
{
  const struct gfilter *f = ud;

  (void)t;
  switch (f->kind) {
  case G_VALID_NOT_TO:
    return ed->to != f->node && ed->valid;
  case G_NOT_TO:
    return ed->to != f->node;
  default:
    return from != f->node && ed->to != f->node && ed->valid;
  }
}

/* canReplaceWith: every edge into cur from outside cur's own dependencies
 * accepts the package (name, version). */
static bool can_replace(struct tree *t, long cur, const char *name, const char *ver)
{
  bool *set = nub_calloc(t->n + 1, 1), ok = true;
  struct gfilter nt = {G_VALID_NOT_TO, cur};

  set[cur] = true;
  gather(t, set, gkeep, &nt);
  for (size_t r = 0; ok && r < t->v[cur].nin; r++) {
    const struct eref er = t->v[cur].in[r];
    const struct edge *ed = edge_of(t, er);
    if (set[er.from])
      continue;
    if (!accepts(ed->name, ed->spec, name, ver, false))
      ok = false;
  }
  nub_free(set);
  return ok;
}

static void remove_set(struct tree *t, bool *set)
{
  for (size_t i = 0; i < t->n; i++)
    if (set[i] && !t->v[i].gone && !t->v[i].top)
      remove_node(t, (long)i);
}

/* canDedupe: node n can go when the copy one level further up answers
 * everything n answers (and is the same version: nub never prefers dedupe). */
static bool can_dedupe(struct tree *t, long n, bool explicit)
{
  long rp = t->v[n].parent, other;
  struct nub_version a, b;
  bool gt = false;

  if (t->v[n].top || rp < 0 || t->v[rp].parent < 0)
    return false;
  if (rp != 0 && t->v[n].meta && nub_json_true(t->v[n].meta, "inBundle"))
    return false; /* in a dependency's bundle: its own to keep */
  if (!t->v[n].nin)
    return true;
  other = real(t, resolve(t, t->v[rp].parent, t->v[n].name));
  if (other < 0)
    return false;
  if (!strcmp(version(t, other), version(t, n)) && !strcmp(pkgname(t, other), pkgname(t, n)))
    return true;
  if (!can_replace(t, n, pkgname(t, other), version(t, other)))
    return false;
  if (!explicit)
    return false;
  if (nub_version_parse_loose(&a, version(t, other)) == 0) {
    if (nub_version_parse_loose(&b, version(t, n)) == 0) {
      gt = nub_version_cmp(&a, &b) > 0;
      nub_version_release(&b);
    }
    nub_version_release(&a);
  }
  return gt;
}

static void prune_dedupable(struct tree *t, long n, bool descend, bool explicit)
{
  if (t->v[n].gone)
    return;
  if (can_dedupe(t, n, explicit)) {
    bool *set = nub_calloc(t->n + 1, 1);
    struct gfilter nt = {G_VALID_NOT_TO, n};
    set[n] = true;
    gather(t, set, gkeep, &nt);
    remove_set(t, set);
    nub_free(set);
    rewire(t);
    return;
  }
  if (descend) {
    size_t len = strlen(t->v[n].loc), cnt = 0;
    long *kids = nub_calloc(t->n + 1, sizeof(long));
    for (size_t i = 0; i < t->n; i++)
      if (!t->v[i].gone && t->v[i].parent == n && !t->v[i].top && !strncmp(t->v[i].loc, t->v[n].loc, len))
        kids[cnt++] = (long)i;
    for (size_t i = 0; i < cnt; i++)
      prune_dedupable(t, kids[i], true, explicit);
    nub_free(kids);
  }
}

/* ---- placing (place-dep, can-place-dep) --------------------------------------------- */

enum place { OK, KEEP, REPLACE, CONFLICT };

struct dep {
  const char *name; /* the edge's (the folder's) name */
  const struct nub_pversion *pv;
  const char *pkg;  /* the package's own name (an alias names another) */
};

static bool dep_satisfies(const struct dep *d, const struct edge *ed)
{
  return accepts(ed->name, ed->spec, d->pkg, d->pv->version, false);
}

/* deepest-nesting-target: the first node from start up that is top or has
 * no peer edge on name. */
static long deepest_target(const struct tree *t, long start, const char *name)
{
  for (long n = start; n >= 0; n = t->v[n].parent) {
    const struct edge *e;
    if (t->v[n].top || t->v[n].parent < 0)
      return n;
    e = out_edge(t, n, name);
    if (!e || !IS_PEER(e->type))
      return n;
  }
  return 0;
}

static enum place can_place(struct tree *t, long target, const struct dep *d, const struct edge *ed,
                            long from, bool explicit)
{
  long cur = child(t, target, d->name);
  const struct edge *te = out_edge(t, target, d->name);

  if (te && IS_PEER(te->type) && !t->v[target].top)
    return CONFLICT;
  if (cur < 0 && te && target != from && !dep_satisfies(d, te))
    return CONFLICT;
  if (cur >= 0) {
    long rc = real(t, cur);
    struct nub_version a, b;
    bool gte = false;
    bool matches = rc >= 0 && !strcmp(version(t, rc), d->pv->version) && !strcmp(pkgname(t, rc), d->pkg);
    bool cur_ok = satisfies(t, cur, ed->name, ed->spec);
    if (matches && cur_ok)
      return explicit ? REPLACE : KEEP;
    if (rc >= 0 && nub_version_parse_loose(&a, version(t, rc)) == 0) {
      if (nub_version_parse_loose(&b, d->pv->version) == 0) {
        gte = nub_version_cmp(&b, &a) >= 0;
        nub_version_release(&b);
      }
      nub_version_release(&a);
    }
    if (gte && !t->v[cur].link && can_replace(t, cur, d->pkg, d->pv->version))
      return REPLACE;
    if (cur_ok && !explicit)
      return KEEP;
    if (target != deepest_target(t, from, d->name))
      return CONFLICT;
    if (!IS_PEER(ed->type) && target == from)
      return REPLACE;
    return CONFLICT;
  }
  if (target != from) {
    long c = resolve(t, target, d->name);
    if (c >= 0)
      for (size_t r = 0; r < t->v[c].nin; r++) {
        const struct eref er = t->v[c].in[r];
        const struct edge *e2 = edge_of(t, er);
        if (descends(t, er.from, target) && e2->valid && !dep_satisfies(d, e2))
          return CONFLICT;
      }
  }
  return OK;
}

static cJSON *new_meta(const struct tree *t, const struct dep *d)
{
  const struct nub_pversion *pv = d->pv;
  cJSON *m = cJSON_CreateObject();

  if (strcmp(d->pkg, d->name))
    cJSON_AddStringToObject(m, "name", d->pkg);
  cJSON_AddStringToObject(m, "version", pv->version);
  if (pv->tarball && !t->o->omit_resolved)
    cJSON_AddStringToObject(m, "resolved", pv->tarball);
  if (pv->integrity)
    cJSON_AddStringToObject(m, "integrity", pv->integrity);
  if (pv->deps.n) {
    cJSON *o = cJSON_AddObjectToObject(m, "dependencies");
    for (size_t i = 0; i < pv->deps.n; i++)
      if (!nub_depmap_get(&pv->optional, pv->deps.v[i].name))
        cJSON_AddStringToObject(o, pv->deps.v[i].name, pv->deps.v[i].spec);
    if (!o->child)
      cJSON_DeleteItemFromObjectCaseSensitive(m, "dependencies");
  }
  if (pv->optional.n)
    cJSON_AddItemToObject(m, "optionalDependencies", dep_map(&pv->optional));
  if (pv->peers.n)
    cJSON_AddItemToObject(m, "peerDependencies", dep_map(&pv->peers));
  if (pv->npeers_optional) {
    cJSON *pm = cJSON_AddObjectToObject(m, "peerDependenciesMeta");
    for (size_t i = 0; i < pv->npeers_optional; i++)
      cJSON_AddTrueToObject(cJSON_AddObjectToObject(pm, pv->peers_optional[i]), "optional");
  }
  if (pv->funding) {
    cJSON *f = cJSON_Parse(pv->funding);
    if (cJSON_IsString(f)) { /* normalised to an object, as npm reads it */
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "url", f->valuestring);
      cJSON_Delete(f);
      f = o;
    }
    if (f)
      cJSON_AddItemToObject(m, "funding", f);
  }
  if (pv->engines.n)
    cJSON_AddItemToObject(m, "engines", dep_map(&pv->engines));
  if (pv->nos) {
    cJSON *a = cJSON_AddArrayToObject(m, "os");
    for (size_t i = 0; i < pv->nos; i++)
      cJSON_AddItemToArray(a, cJSON_CreateString(pv->os[i]));
  }
  if (pv->ncpu) {
    cJSON *a = cJSON_AddArrayToObject(m, "cpu");
    for (size_t i = 0; i < pv->ncpu; i++)
      cJSON_AddItemToArray(a, cJSON_CreateString(pv->cpu[i]));
  }
  if (pv->license)
    cJSON_AddStringToObject(m, "license", pv->license);
  if (pv->has_install_script)
    cJSON_AddTrueToObject(m, "hasInstallScript");
  if (pv->nbins) {
    cJSON *b = cJSON_AddObjectToObject(m, "bin");
    for (size_t i = 0; i < pv->nbins; i++)
      cJSON_AddStringToObject(b, pv->bins[i].name, pv->bins[i].target);
  }
  if (pv->deprecated)
    cJSON_AddStringToObject(m, "deprecated", pv->deprecated);
  return m;
}

/* The registry's pick for the edge; an alias's package name goes in buf. */
static int pick_dep(struct tree *t, const struct edge *ed, struct dep *d, char *buf, size_t cap,
                    struct nub_err *err)
{
  const char *range, *spec = ed->spec;

  d->name = ed->name;
  if (strncmp(spec, "npm:", 4) &&
      (!strncmp(spec, "file:", 5) || !strncmp(spec, "link:", 5) || strchr(spec, ':') ||
       (strchr(spec, '/') && !nub_range_valid(spec))))
    return unsupported(err, "a dependency that is not the registry's");
  d->pkg = spec_target(ed->name, spec, buf, cap, &range);
  return t->o->pick(t->o->ud, d->pkg, *range ? range : "latest", &d->pv, err);
}

static int place(struct tree *t, long from, size_t ei, bool explicit, struct nub_err *err);

/* What the old copy depended on by names the new one does not (each with
 * what only it needs): candidates to go with the old copy. */
static bool *old_deps(struct tree *t, long old, const struct nub_pversion *pv)
{
  bool *all = nub_calloc(t->n + 2, 1), *set = nub_calloc(t->n + 2, 1);

  for (size_t k = 0; k < t->v[old].ne; k++) {
    const struct edge *ed = &t->v[old].e[k];
    struct gfilter f = {G_NOT_TO, ed->to};
    if (ed->to < 0 || nub_depmap_get(&pv->deps, ed->name) || nub_depmap_get(&pv->optional, ed->name) ||
        nub_depmap_get(&pv->peers, ed->name))
      continue;
    memset(set, 0, t->n + 2);
    set[ed->to] = true;
    gather(t, set, gkeep, &f);
    for (size_t i = 0; i < t->n; i++)
      all[i] |= set[i];
  }
  nub_free(set);
  return all;
}

/* pruneForReplacement: what the new copy asks for and does not get there
 * (an old copy's nested dependency), and the old copy's own dependencies,
 * go when nothing else needs them. */
static void prune_for_replacement(struct tree *t, long placed, const bool *olddeps)
{
  bool *inv = nub_calloc(t->n + 1, 1), *set = nub_calloc(t->n + 1, 1), any = false;
  struct gfilter fp = {G_NOT_PLACED, placed};

  for (size_t k = 0; k < t->v[placed].ne; k++)
    if (t->v[placed].e[k].to >= 0 && !t->v[placed].e[k].valid)
      inv[t->v[placed].e[k].to] = any = true;
  for (size_t i = 0; i + 1 < t->n; i++) { /* (placed is the last node) */
    struct gfilter f = {G_VALID_NOT_TO, (long)i};
    if (!olddeps[i] || t->v[i].gone)
      continue;
    memset(set, 0, t->n + 1);
    set[i] = true;
    gather(t, set, gkeep, &f);
    for (size_t j = 0; j < t->n; j++)
      if (set[j])
        inv[j] = any = true;
  }
  if (any) {
    gather(t, inv, gkeep, &fp);
    remove_set(t, inv);
    rewire(t);
  }
  nub_free(inv);
  nub_free(set);
}

/* Put d at target (OK or REPLACE), then its missing peers beside it. */
static int put(struct tree *t, long target, const struct dep *d, bool explicit,
               struct nub_err *err)
{
  long old = child(t, target, d->name), placed;
  char *loc = child_loc(t, target, d->name);
  cJSON *meta = new_meta(t, d);
  bool *olddeps = NULL;
  int rc = 0;

  if (old >= 0) {
    /* a replacement: the old copy's entry goes; what its node_modules
     * holds stays, under the new one (Node#replace keeps the children),
     * less what only the old one needed (replaceOldDep) */
    olddeps = old_deps(t, old, d->pv);
    t->v[old].gone = true;
    cJSON_DeleteItemFromObjectCaseSensitive(t->pk, t->v[old].loc);
    t->v[old].meta = NULL;
  }
  cJSON_AddItemToObject(t->pk, loc, meta);
  placed = add_node(t, loc, meta);
  nub_free(loc);
  set_parent(t, placed);
  for (size_t i = 0; old >= 0 && i < t->n; i++)
    if (t->v[i].parent == old)
      t->v[i].parent = placed;
  load_edges(&t->v[placed]);
  rewire(t);
  if (olddeps)
    prune_for_replacement(t, placed, olddeps);
  nub_free(olddeps);
  /* what used the old copy, or the one further up, and no longer gets
   * what it asks for is looked at again */
  for (size_t r = 0; r < t->v[placed].nin; r++) {
    const struct eref er = t->v[placed].in[r];
    if (edge_of(t, er)->valid)
      continue;
    if (old >= 0)
      t->v[er.from].seen = false;
    enqueue(t, er.from);
  }
  /* copies under target that this one makes redundant */
  {
    size_t len = strlen(t->v[target].loc);
    for (size_t i = 0; i < t->n; i++) {
      if (t->v[i].gone || (long)i == placed || t->v[i].top || strcmp(t->v[i].name, d->name))
        continue;
      if (!descends(t, (long)i, target) || (len && strncmp(t->v[i].loc, t->v[target].loc, len)))
        continue;
      prune_dedupable(t, (long)i, false, explicit);
    }
  }
  enqueue(t, placed);
  /* its peers, placed at once beside it as arborist places a peer set */
  for (size_t k = 0; k < t->v[placed].ne && rc >= 0; k++) {
    const struct edge *pe = &t->v[placed].e[k];
    if (!IS_PEER(pe->type) || pe->valid || (pe->to < 0 && pe->type == E_PEEROPT))
      continue;
    rc = place(t, placed, k, explicit, err);
  }
  return rc < 0 ? rc : 0;
}

static int place(struct tree *t, long from, size_t ei, bool explicit, struct nub_err *err)
{
  struct edge ed = t->v[from].e[ei];
  struct dep d;
  char alias_pkg[512];
  long start, best = -1;
  enum place best_how = CONFLICT;
  int rc = pick_dep(t, &ed, &d, alias_pkg, sizeof(alias_pkg), err);

  if (rc < 0)
    return rc;
  if (d.pv->nbundled)
    return unsupported(err, "a new package with bundled dependencies");
  start = IS_PEER(ed.type) ? deepest_target(t, from, ed.name) : from;
  for (long target = start; target >= 0; target = t->v[target].parent) {
    const struct edge *te = out_edge(t, target, ed.name);
    enum place how;
    if (!t->v[target].top && te && IS_PEER(te->type) && target != start)
      continue;
    how = can_place(t, target, &d, &ed, from, ed.explicit || explicit);
    if (how == CONFLICT)
      break;
    best = target;
    best_how = how;
  }
  if (best < 0 && IS_PEER(ed.type) && !t->v[from].top) {
    /* a peer of a package the project does not ask for itself: npm warns
     * ("overriding peer dependency") and leaves it as it is */
    t->v[from].e[ei].conflicted = true;
    return 0;
  }
  if (best < 0) /* nowhere: npm's ERESOLVE territory; resolve afresh */
    return nub_err_set(err, -NUB_ESPEC, "package-lock.json edit: %s@%s (for %s of %s) fits "
                       "nowhere on its chain", d.pkg, d.pv->version, ed.spec,
                       *t->v[from].loc ? t->v[from].loc : "the project");
  if (best_how == KEEP) {
    prune_dedupable(t, best, true, ed.explicit || explicit);
    return 0;
  }
  return put(t, best, &d, ed.explicit || explicit, err);
}

static bool named(const struct nub_npm_edit_opts *o, const char *name)
{
  for (size_t i = 0; i < o->nupdate; i++)
    if (!strcmp(o->update[i], name))
      return true;
  return false;
}

/* An edge the build must resolve again (#problemEdges). */
static bool problem(const struct tree *t, long n, const struct edge *ed)
{
  const cJSON *bd = t->v[n].top ? NULL : cJSON_GetObjectItemCaseSensitive(t->v[n].meta, "bundleDependencies");
  const cJSON *it;

  cJSON_ArrayForEach(it, bd) if (cJSON_IsString(it) && !strcmp(it->valuestring, ed->name))
    return false;
  if (ed->type == E_WORKSPACE || ed->conflicted)
    return false;
  if (ed->to < 0)
    return ed->type != E_PEEROPT;
  if (!ed->valid)
    return true;
  return named(t->o, ed->name) || ed->explicit;
}

static int cmp_loc_depth(const struct tree *t, long a, long b)
{
  int da = 0, db = 0;
  for (long p = a; t->v[p].parent >= 0 && !t->v[p].top; p = t->v[p].parent)
    da++;
  for (long p = b; t->v[p].parent >= 0 && !t->v[p].top; p = t->v[p].parent)
    db++;
  if (da != db)
    return da - db;
  return nub_locale_cmp(t->v[a].loc, t->v[b].loc);
}

/* Take the shallowest, then first by location, as arborist's DepsQueue. */
static long pop_queue(struct tree *t)
{
  size_t best = 0;
  long n;

  for (size_t i = 1; i < t->nq; i++)
    if (cmp_loc_depth(t, t->queue[i], t->queue[best]) < 0)
      best = i;
  n = t->queue[best];
  t->queue[best] = t->queue[--t->nq];
  return n;
}

static int cmp_edge_names(const void *a, const void *b, void *ud)
{
  const struct node *nd = ud;
  return nub_locale_cmp(nd->e[*(const size_t *)a].name, nd->e[*(const size_t *)b].name);
}

static void sort_edges(const struct node *nd, size_t *idx, size_t n)
{
  for (size_t i = 1; i < n; i++) /* insertion sort: a node has few problems */
    for (size_t j = i; j > 0 && cmp_edge_names(&idx[j - 1], &idx[j], (void *)nd) > 0; j--) {
      size_t x = idx[j];
      idx[j] = idx[j - 1];
      idx[j - 1] = x;
    }
}

static int build(struct tree *t, struct nub_err *err)
{
  const struct nub_workspace *ws = t->o->ws;
  int rc = 0;

  for (size_t i = 0; i < t->n; i++)
    t->v[i].seen = false;
  t->nq = 0;
  enqueue(t, 0);
  for (size_t i = 0; ws && i < ws->npkgs; i++) {
    long m = find(t, ws->pkgs[i].dir);
    if (m >= 0)
      enqueue(t, m);
  }
  /* `update <name>`: whatever uses a copy of name is looked at again */
  for (size_t i = 0; t->o->nupdate && i < t->n; i++) {
    if (t->v[i].gone || t->v[i].top || !named(t->o, t->v[i].name))
      continue;
    for (size_t r = 0; r < t->v[i].nin; r++)
      enqueue(t, t->v[i].in[r].from);
  }
  while (t->nq && rc >= 0) {
    long n = pop_queue(t);
    size_t *idx, np = 0;
    if (t->v[n].gone || t->v[n].seen || t->v[n].link)
      continue;
    t->v[n].seen = true;
    idx = nub_calloc(t->v[n].ne + 1, sizeof(size_t));
    for (size_t k = 0; k < t->v[n].ne; k++)
      if (problem(t, n, &t->v[n].e[k]))
        idx[np++] = k;
    sort_edges(&t->v[n], idx, np);
    for (size_t i = 0; i < np && rc >= 0; i++) {
      const struct edge *ed = &t->v[n].e[idx[i]];
      if (!problem(t, n, ed)) /* an earlier placement answered it */
        continue;
      rc = place(t, n, idx[i], false, err);
    }
    nub_free(idx);
  }
  return rc;
}

/* ---- writing --------------------------------------------------------------------- */

static void set_flag(cJSON *m, const char *key, bool on)
{
  cJSON_DeleteItemFromObjectCaseSensitive(m, key);
  if (on)
    cJSON_AddTrueToObject(m, key);
}

/* npa's registry specs: a version, a range, a tag or an npm: alias. */
static bool registry_spec(const char *spec)
{
  if (!strncmp(spec, "npm:", 4))
    return true;
  return !strchr(spec, ':') && (!strchr(spec, '/') || nub_range_valid(spec));
}

/* omit-lockfile-registry-resolved: a registry dependency's "resolved" goes
 * (arborist: every edge into it a registry spec). */
static void omit_resolved(struct tree *t)
{
  for (size_t i = 1; i < t->n; i++) {
    struct node *nd = &t->v[i];
    bool reg = nd->nin > 0;
    if (nd->gone || nd->link || nd->top)
      continue;
    for (size_t r = 0; reg && r < nd->nin; r++)
      reg = registry_spec(edge_of(t, nd->in[r])->spec);
    if (reg)
      cJSON_DeleteItemFromObjectCaseSensitive(nd->meta, "resolved");
  }
}

/* Node#inBundle for every node, to a fixed point: its parent bundles its
 * name, or a package in that bundle depends on it and it sits under the
 * bundling package's folder. */
static void write_in_bundle(struct tree *t)
{
  long *by = nub_calloc(t->n + 1, sizeof(long)); /* the bundling node, or -1 */
  bool changed = true;

  for (size_t i = 0; i < t->n; i++)
    by[i] = -1;
  while (changed) {
    changed = false;
    for (size_t i = 1; i < t->n; i++) {
      const struct node *nd = &t->v[i];
      const cJSON *bd, *it;
      if (by[i] >= 0 || nd->gone || nd->top || nd->link || nd->parent < 0)
        continue;
      bd = cJSON_GetObjectItemCaseSensitive(t->v[nd->parent].meta, "bundleDependencies");
      cJSON_ArrayForEach(it, bd) if (cJSON_IsString(it) && !strcmp(it->valuestring, nd->name))
        by[i] = nd->parent;
      for (size_t b = 0; by[i] < 0 && nd->parent == 0 && b < t->o->root->nbundled; b++)
        if (!strcmp(t->o->root->bundled[b], nd->name))
          by[i] = 0;
      for (size_t r = 0; by[i] < 0 && r < nd->nin; r++) {
        long f = nd->in[r].from;
        if (f != (long)i && by[f] >= 0 && descends(t, (long)i, by[f]))
          by[i] = by[f];
      }
      changed |= by[i] >= 0;
    }
  }
  for (size_t i = 1; i < t->n; i++)
    if (!t->v[i].gone && !t->v[i].top && !t->v[i].link)
      set_flag(t->v[i].meta, "inBundle", by[i] >= 0);
  nub_free(by);
}

static void write_flags(struct tree *t)
{
  for (size_t i = 1; i < t->n; i++) {
    struct node *nd = &t->v[i];
    if (nd->gone || nd->link || nd->top)
      continue;
    set_flag(nd->meta, "extraneous", nd->extraneous);
    set_flag(nd->meta, "peer", !nd->extraneous && nd->peer);
    set_flag(nd->meta, "dev", !nd->extraneous && nd->dev);
    set_flag(nd->meta, "optional", !nd->extraneous && nd->optional);
    set_flag(nd->meta, "devOptional", !nd->extraneous && nd->devopt && !nd->dev && !nd->optional);
  }
}

/* The legacy tree of lockfileVersion 2 (shrinkwrap's buildLegacyLockfile). */
static int legacy(struct tree *t, long n, cJSON *lock, struct nub_err *err)
{
  struct node *nd = &t->v[n];
  long tg = real(t, n);
  const struct eref *via = NULL;
  cJSON *deps;
  size_t nkids = 0;
  long *kids;

  if (tg < 0)
    return unsupported(err, "a link to nothing");
  for (size_t r = 0; r < nd->nin; r++) { /* the shallowest valid edge in */
    const struct eref *er = &nd->in[r];
    if (!edge_of(t, *er)->valid)
      continue;
    if (!via || cmp_loc_depth(t, er->from, via->from) < 0)
      via = er;
  }
  if (n != 0) {
    const char *spec = via ? edge_of(t, *via)->spec : NULL;
    const char *res = nub_json_str(nd->meta, "resolved");
    const char *integ = nub_json_str(nd->meta, "integrity");
    if (nd->link) {
      char *v = nub_asprintf("file:%s", t->v[tg].loc);
      cJSON_AddStringToObject(lock, "version", v);
      nub_free(v);
    } else if (spec && !nub_range_valid(spec) && strncmp(spec, "npm:", 4) &&
               (strchr(spec, ':') || strchr(spec, '/'))) {
      return unsupported(err, "a v2 lockfile with a git, file or URL dependency");
    } else if (strcmp(pkgname(t, n), nd->name)) {
      char *v = nub_asprintf("npm:%s@%s", pkgname(t, n), version(t, n));
      cJSON_AddStringToObject(lock, "version", v);
      nub_free(v);
    } else {
      cJSON_AddStringToObject(lock, "version", version(t, n));
    }
    if (nub_json_true(nd->meta, "inBundle"))
      cJSON_AddTrueToObject(lock, "bundled");
    if (res && !nd->link)
      cJSON_AddStringToObject(lock, "resolved", res);
    if (integ)
      cJSON_AddStringToObject(lock, "integrity", integ);
    if (nd->extraneous) {
      cJSON_AddTrueToObject(lock, "extraneous");
    } else if (!nd->link) {
      if (nd->peer)
        cJSON_AddTrueToObject(lock, "peer");
      if (nd->devopt && !nd->dev && !nd->optional)
        cJSON_AddTrueToObject(lock, "devOptional");
      if (nd->dev)
        cJSON_AddTrueToObject(lock, "dev");
      if (nd->optional)
        cJSON_AddTrueToObject(lock, "optional");
    }
    if (t->v[tg].ne) {
      cJSON *req = cJSON_AddObjectToObject(lock, "requires");
      for (size_t k = 0; k < t->v[tg].ne; k++)
        if (!IS_PEER(t->v[tg].e[k].type))
          cJSON_AddStringToObject(req, t->v[tg].e[k].name, t->v[tg].e[k].spec);
    }
  } else {
    cJSON_AddTrueToObject(lock, "requires");
  }
  kids = nub_calloc(t->n + 1, sizeof(long));
  for (size_t i = 0; i < t->n; i++)
    if (!t->v[i].gone && !t->v[i].top && t->v[i].parent == tg)
      kids[nkids++] = (long)i;
  deps = nkids ? cJSON_AddObjectToObject(lock, "dependencies") : NULL;
  for (size_t i = 0; i < nkids; i++) {
    cJSON *k = cJSON_AddObjectToObject(deps, t->v[kids[i]].name);
    int rc = legacy(t, kids[i], k, err);
    if (rc < 0) {
      nub_free(kids);
      return rc;
    }
  }
  nub_free(kids);
  return 0;
}

/* ---- printing (json-stringify-nice) ------------------------------------------------ */

static const char *const key_order[] = {"name",     "version",  "lockfileVersion", "resolved",
                                        "integrity", "requires", "packages",        "dependencies"};

static int pref(const char *k)
{
  for (size_t i = 0; i < sizeof(key_order) / sizeof(*key_order); i++)
    if (!strcmp(k, key_order[i]))
      return (int)i;
  return -1;
}

static int cmp_items(const void *a, const void *b)
{
  const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
  bool ox = cJSON_IsObject(x), oy = cJSON_IsObject(y);
  int px, py;

  if (ox != oy)
    return ox ? 1 : -1;
  px = pref(x->string);
  py = pref(y->string);
  if (px >= 0 || py >= 0)
    return px < 0 ? 1 : py < 0 ? -1 : px - py;
  return nub_locale_cmp(x->string, y->string);
}

static void put_str(struct nub_buf *b, const char *s)
{
  cJSON *tmp = cJSON_CreateString(s);
  char *txt = cJSON_PrintUnformatted(tmp);
  nub_buf_adds(b, txt ? txt : "\"\"");
  cJSON_free(txt);
  cJSON_Delete(tmp);
}

static void indent(struct nub_buf *b, int level)
{
  for (int i = 0; i < level; i++)
    nub_buf_adds(b, "  ");
}

static void print(struct nub_buf *b, const cJSON *v, int level)
{
  if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
    bool obj = cJSON_IsObject(v);
    size_t n = 0, i = 0;
    const cJSON *it, **items;
    cJSON_ArrayForEach(it, v) n++;
    if (!n) {
      nub_buf_adds(b, obj ? "{}" : "[]");
      return;
    }
    items = nub_calloc(n, sizeof(*items));
    cJSON_ArrayForEach(it, v) items[i++] = it;
    if (obj)
      qsort(items, n, sizeof(*items), cmp_items);
    nub_buf_adds(b, obj ? "{\n" : "[\n");
    for (i = 0; i < n; i++) {
      if (i)
        nub_buf_adds(b, ",\n");
      indent(b, level + 1);
      if (obj) {
        put_str(b, items[i]->string);
        nub_buf_adds(b, ": ");
      }
      print(b, items[i], level + 1);
    }
    nub_free(items);
    nub_buf_addc(b, '\n');
    indent(b, level);
    nub_buf_addc(b, obj ? '}' : ']');
  } else if (cJSON_IsString(v)) {
    put_str(b, v->valuestring);
  } else if (cJSON_IsBool(v)) {
    nub_buf_adds(b, cJSON_IsTrue(v) ? "true" : "false");
  } else if (cJSON_IsNumber(v)) {
    char *txt = cJSON_PrintUnformatted(v);
    nub_buf_adds(b, txt ? txt : "0");
    cJSON_free(txt);
  } else {
    nub_buf_adds(b, "null");
  }
}

void nub_npm_stringify(const cJSON *doc, struct nub_buf *out)
{
  print(out, doc, 0);
  nub_buf_addc(out, '\n');
}

/* ---- the whole ------------------------------------------------------------------- */

static void tree_release(struct tree *t)
{
  for (size_t i = 0; i < t->n; i++) {
    nub_free(t->v[i].loc);
    nub_free(t->v[i].name);
    nub_free(t->v[i].e);
    nub_free(t->v[i].in);
  }
  nub_free(t->v);
  nub_free(t->queue);
  nub_strmap_release(&t->at, NULL);
}

int nub_npm_edit(const char *text, size_t len, const char *fname,
                 const struct nub_npm_edit_opts *o, struct nub_buf *out, struct nub_err *err)
{
  struct tree t;
  cJSON *ver;
  int rc, lv;

  memset(&t, 0, sizeof(t));
  t.o = o;
  if (o->root->overrides.n)
    return nub_err_set(err, -NUB_ESPEC, "package-lock.json edit: overrides");
  rc = nub_json_parse(text, len, fname, -NUB_ELOCKFILE, 0, &t.doc, err);
  if (rc < 0)
    return rc;
  ver = cJSON_GetObjectItemCaseSensitive(t.doc, "lockfileVersion");
  lv = cJSON_IsNumber(ver) ? ver->valueint : 0;
  t.pk = cJSON_GetObjectItemCaseSensitive(t.doc, "packages");
  if ((lv != 2 && lv != 3) || !cJSON_IsObject(t.pk)) {
    cJSON_Delete(t.doc);
    return nub_err_set(err, -NUB_ESPEC, "package-lock.json edit: lockfileVersion %d", lv);
  }
  rc = load(&t, err);
  if (rc == 0) {
    rewire(&t);
    rc = build(&t, err);
  }
  if (rc == 0) {
    /* #idealTreePrune: what nothing reaches goes */
    rewire(&t);
    calc_flags(&t);
    for (size_t i = 1; i < t.n; i++)
      if (!t.v[i].gone && t.v[i].extraneous && !t.v[i].top)
        remove_node(&t, (long)i);
    rewire(&t);
    calc_flags(&t);
    for (size_t i = 0; i < t.n; i++)
      if (t.v[i].gone && cJSON_GetObjectItemCaseSensitive(t.pk, t.v[i].loc) == t.v[i].meta)
        cJSON_DeleteItemFromObjectCaseSensitive(t.pk, t.v[i].loc);
    write_flags(&t);
    write_in_bundle(&t);
    if (o->omit_resolved)
      omit_resolved(&t);
    cJSON_DeleteItemFromObjectCaseSensitive(t.doc, "dependencies");
    if (lv == 2) {
      cJSON *legacy_deps = cJSON_CreateObject();
      rc = legacy(&t, 0, legacy_deps, err);
      if (rc == 0) {
        cJSON *d = cJSON_DetachItemFromObjectCaseSensitive(legacy_deps, "dependencies");
        cJSON_AddItemToObject(t.doc, "dependencies", d ? d : cJSON_CreateObject());
      }
      cJSON_Delete(legacy_deps);
    }
  }
  if (rc == 0) {
    const char *n = o->root->name, *v = o->root->version;
    if (!n || !*n)
      n = o->dir_name;
    if (n && *n)
      replace_field(t.doc, "name", cJSON_CreateString(n));
    if (v && *v)
      replace_field(t.doc, "version", cJSON_CreateString(v));
    nub_npm_stringify(t.doc, out);
  }
  tree_release(&t);
  cJSON_Delete(t.doc);
  return rc;
}

/* ---- merge conflicts (parse-conflict-json) ----------------------------------------- */

int nub_npm_unconflict(const char *text, size_t len, const char *fname, struct nub_buf *out,
                       struct nub_err *err)
{
  cJSON *doc;
  int rc = nub_json_unconflict(text, len, fname, -NUB_ELOCKFILE, 0, &doc, err);

  if (rc == 0)
    nub_npm_stringify(doc, out);
  cJSON_Delete(doc);
  return rc;
}
