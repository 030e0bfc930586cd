/* resolve.c - the resolver: a breadth-first pick of versions (a DAG of
 * name@version nodes), then a depth-first pass that gives every node its
 * peer context and pnpm-style dependency path. */
#include "resolve.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "extract.h"
#include "gitspec.h"
#include "integrity.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "path.h"
#include "diag.h"
#include "semver.h"
#include "strmap.h"
#include "workspace.h"

struct rnode;

struct redge {
  char *alias;
  struct rnode *to;
  bool optional;
  bool peer; /* a peer that the node installs itself when no ancestor has it */
};

struct rnode {
  char *name, *version, *base;
  const struct nub_pversion *pv; /* NULL for a file: directory */
  struct nub_pversion *own_pv; /* pv as packageExtensions extend it (pv points here) */
  char *ext_applied; /* what the extensions added (gpkg's ext_applied), or NULL */
  char *local_dir;
  char *local_tarball, *local_integrity; /* a file: tarball: its path, its SRI */
  char *tarball_url; /* a tarball named by URL: the URL (its SRI in local_integrity) */
  char *git_resolved; /* a git dependency: "git+<url>#<commit>" */
  struct nub_manifest local_man;
  bool has_local_man;
  struct redge *kids;
  size_t nkids, capkids;
  char **pn; /* open peer names: resolved above this node (sorted) */
  size_t npn, cappn;
  bool afresh; /* first met through a hoisted optional peer (gpkg's afresh) */
  size_t idx;  /* its place in res.all */
};

struct qitem {
  struct rnode *parent; /* NULL = the project */
  char *alias, *spec;
  bool optional, peer;
  int kind; /* project edges: 0 dependencies, 1 devDependencies, 2 optional */
  size_t imp; /* project edges: the importer */
};

struct rootedge {
  char *alias, *spec;
  struct rnode *to;   /* NULL for link: */
  char *link;         /* "link:../x" */
  int kind;
  size_t imp;
  const char *catalog_range; /* a "catalog:" spec: the catalog's range (borrowed) */
};

/* One importer: the project (".") or a workspace member. */
struct imp {
  const char *path;                /* "." or "packages/a" */
  char *abs;                       /* its directory */
  const struct nub_manifest *man;
};

struct res {
  const struct nub_manifest *man;
  struct imp *imps;
  size_t nimps;
  const struct nub_source *src;
  const struct nub_resolve_opts *o;
  struct nub_err *err;
  struct nub_strmap nodes;                           /* base -> rnode */
  struct nub_strmap byname;                          /* name -> struct namelist */
  struct rnode **all;
  size_t nall, capall;
  struct qitem *q;
  size_t qhead, qlen, qcap;
  struct rootedge *roots;
  size_t nroots, caproots;
  /* phase 2 */
  struct nub_strmap memo; /* key -> struct nub_gpkg */
  char **linkids;         /* link_id's strings (owned) */
  size_t nlinkids, caplinkids;
  /* edges written while their target was still being made (a cycle): the
   * key was not known yet, and is filled in when it is */
  struct fixup {
    struct nub_gpkg *g;
    char *alias;
    struct frame *f;
    size_t i;
  } *fix;
  size_t nfix, capfix;
  struct frame *busy_f; /* the slot the last instance() found busy */
  size_t busy_i;
  bool busy_hit;
  size_t busy_hits; /* how many times instance() found a slot busy, ever */
  struct nub_graph *g;
  int depth;
  const struct rnode *too_deep; /* where a chain went past the bound */
  struct nub_strmap prev_by_pkg; /* the previous graph: "name@version" -> gpkg */
  bool prev_indexed;
  /* o->by_pattern: the previous graph's "name@range" -> version (owned) */
  struct nub_strmap prev_patterns;
  bool patterns_indexed;
  char tagv[256]; /* locked_tag_version's answer */
};

struct namelist {
  struct rnode **v;
  size_t n, cap;
};

/* ---- helpers ------------------------------------------------------------ */

static int cmp_dep(const void *a, const void *b)
{
  return strcmp(((const struct nub_dep *)a)->name, ((const struct nub_dep *)b)->name);
}

static void push(struct res *r, struct rnode *parent, const char *alias, const char *spec,
                 bool optional, bool peer, int kind)
{
  struct qitem *it;

  if (r->qlen == r->qcap) {
    size_t nc = r->qcap ? r->qcap * 2 : 256;
    struct qitem *nq = nub_malloc(nc * sizeof(*nq));
    for (size_t i = 0; i < r->qlen; i++)
      nq[i] = r->q[(r->qhead + i) % r->qcap];
    nub_free(r->q);
    r->q = nq;
    r->qhead = 0;
    r->qcap = nc;
  }
  it = &r->q[(r->qhead + r->qlen) % r->qcap];
  it->parent = parent;
  it->alias = nub_strdup(alias);
  it->spec = nub_strdup(spec);
  it->optional = optional;
  it->peer = peer;
  it->kind = kind;
  it->imp = 0;
  r->qlen++;
}

/* "name[@range]" at s (len bytes): whether it names `name` and, when it
 * has a range, *range (else NULL, into buf). A scoped name's own '@' is not
 * a range's. */
static bool override_part(const char *s, size_t len, const char *name, char *buf, size_t cap,
                          const char **range)
{
  const char *at = len > 1 ? memchr(s + 1, '@', len - 1) : NULL;
  size_t nl = at ? (size_t)(at - s) : len;

  *range = NULL;
  if (nl != strlen(name) || memcmp(s, name, nl))
    return false;
  if (at) {
    snprintf(buf, cap, "%.*s", (int)(len - nl - 1), at + 1);
    *range = buf;
  }
  return true;
}

/* The override for the dependency alias@spec of parent (NULL: the project),
 * as npm decides it: a key "b" or "b@<range>" where the dependency's range
 * intersects <range> (semver.intersects), alone or under its parent, "a>b"
 * or "a@<range>>b" where the parent's version satisfies <range>; under the
 * parent first. */
static const char *override_for(struct res *r, const struct rnode *parent, const char *alias,
                                const char *spec)
{
  const struct nub_depmap *ov = r->o->overrides;
  const char *v = NULL, *scoped = NULL, *plain = NULL;

  if (!ov || !ov->n)
    return NULL;
  for (size_t i = 0; i < ov->n && !scoped; i++) {
    const char *key = ov->v[i].name, *gt = NULL, *child, *range;
    char buf[256], pbuf[256];
    int ngt = 0;
    /* "parent>child": a '>' a range uses (">=1", ">1") is not the one */
    for (const char *q = strchr(key + 1, '>'); q; q = strchr(q + 1, '>'))
      if (q[1] && q[1] != '=' && q[1] != ' ' && !(q[1] >= '0' && q[1] <= '9')) {
        gt = q;
        ngt++;
      }
    if (ngt > 1)
      continue; /* deeper paths are not followed */
    child = gt ? gt + 1 : key;
    if (!override_part(child, strlen(child), alias, buf, sizeof(buf), &range))
      continue;
    if (range && *range && strcmp(range, "*") &&
        (!nub_range_valid(spec) || nub_semver_intersects(spec, range) != 1))
      continue;
    if (gt) {
      const char *prange;
      if (!parent ||
          !override_part(key, (size_t)(gt - key), parent->name, pbuf, sizeof(pbuf), &prange))
        continue;
      if (prange && *prange && nub_semver_satisfies(prange, parent->version, false) != 1)
        continue;
      scoped = ov->v[i].spec;
    } else if (!plain) {
      plain = ov->v[i].spec;
    }
  }
  v = scoped ? scoped : plain;
  if (v && v[0] == '$') /* "$foo": the project's own spec for foo */
    v = nub_manifest_own_spec(r->man, v + 1);
  return v;
}

static struct rnode *new_node(struct res *r, const char *name, const char *version)
{
  struct rnode *n = nub_calloc(1, sizeof(*n));
  struct namelist *nl;

  n->name = nub_strdup(name);
  n->version = nub_strdup(version);
  n->base = nub_asprintf("%s@%s", name, version);
  nub_strmap_put(&r->nodes, n->base, n);
  nl = nub_strmap_get(&r->byname, name);
  if (!nl) {
    nl = nub_calloc(1, sizeof(*nl));
    nub_strmap_put(&r->byname, name, nl);
  }
  NUB_GROW(nl->v, nl->cap, nl->n + 1);
  nl->v[nl->n++] = n;
  NUB_GROW(r->all, r->capall, r->nall + 1);
  n->idx = r->nall;
  r->all[r->nall++] = n;
  return n;
}

static void add_kid(struct rnode *p, const char *alias, struct rnode *to, bool optional,
                    bool peer)
{
  for (size_t i = 0; i < p->nkids; i++)
    if (!strcmp(p->kids[i].alias, alias))
      return; /* dependencies win over optional and peer duplicates */
  NUB_GROW(p->kids, p->capkids, p->nkids + 1);
  p->kids[p->nkids].alias = nub_strdup(alias);
  p->kids[p->nkids].to = to;
  p->kids[p->nkids].optional = optional;
  p->kids[p->nkids].peer = peer;
  p->nkids++;
}

/* {...ext, ...own}: the extension's entries first, the manifest's value
 * where both name one (pnpm's packageExtensions rule), then the manifest's
 * others. */
static void merge_deps(struct nub_depmap *out, const struct nub_depmap *ext,
                       const struct nub_depmap *own)
{
  size_t k = 0;

  out->v = nub_calloc(ext->n + own->n + 1, sizeof(*out->v));
  for (size_t i = 0; i < ext->n; i++) {
    const char *mine = nub_depmap_get(own, ext->v[i].name);
    out->v[k].name = nub_strdup(ext->v[i].name);
    out->v[k++].spec = nub_strdup(mine ? mine : ext->v[i].spec);
  }
  for (size_t i = 0; i < own->n; i++)
    if (!nub_depmap_get(ext, own->v[i].name)) {
      out->v[k].name = nub_strdup(own->v[i].name);
      out->v[k++].spec = nub_strdup(own->v[i].spec);
    }
  out->n = k;
}

/* pnpm's packageExtensions (nub_resolve_opts.exts) on a picked registry
 * version: n->pv becomes the node's own extended copy when one applies. */
/* n's own copy of its version's manifest, made once. */
static struct nub_pversion *own_copy(const struct rnode *n, struct nub_pversion **x)
{
  if (!*x) {
    struct nub_pversion *c = nub_malloc(sizeof(*c));
    *c = *n->pv; /* the rest stays the packument's */
    memset(&c->deps, 0, sizeof(c->deps));
    memset(&c->optional, 0, sizeof(c->optional));
    memset(&c->peers, 0, sizeof(c->peers));
    merge_deps(&c->deps, &(struct nub_depmap){NULL, 0}, &n->pv->deps);
    merge_deps(&c->optional, &(struct nub_depmap){NULL, 0}, &n->pv->optional);
    merge_deps(&c->peers, &(struct nub_depmap){NULL, 0}, &n->pv->peers);
    c->peers_optional = nub_strarray_dup(n->pv->peers_optional, n->pv->npeers_optional);
    c->npeers_optional = n->pv->npeers_optional;
    *x = c;
  }
  return *x;
}

/* from's entries that `to` lacks, added after its own (recorded in
 * names): bun's rule. */
static void add_missing(struct nub_depmap *to, const struct nub_depmap *from, cJSON *names)
{
  for (size_t i = 0; i < from->n; i++) {
    if (nub_depmap_get(to, from->v[i].name))
      continue;
    to->v = nub_realloc(to->v, (to->n + 1) * sizeof(*to->v));
    to->v[to->n].name = nub_strdup(from->v[i].name);
    to->v[to->n++].spec = nub_strdup(from->v[i].spec);
    cJSON_AddItemToArray(names, cJSON_CreateString(from->v[i].name));
  }
}

static int extend(struct res *r, struct rnode *n)
{
  struct nub_pversion *x = NULL;
  cJSON *rec = NULL, *f[4] = {NULL, NULL, NULL, NULL};
  static const char *const fields[4] = {"dependencies", "optionalDependencies",
                                        "peerDependencies", "peerDependenciesMeta"};
  int rc = 0;

  for (size_t i = 0; i < r->o->nexts; i++) {
    const struct nub_pkg_ext *e = &r->o->exts[i];
    struct nub_depmap m;
    if (strcmp(e->name, n->name) ||
        (e->range && nub_semver_satisfies(e->range, n->pv->version, false) != 1))
      continue;
    own_copy(n, &x);
    if (r->o->ext_rule == NUB_EXT_BUN && !rec) {
      rec = cJSON_CreateObject();
      for (int k = 0; k < 4; k++)
        f[k] = cJSON_CreateArray();
    }
    if (r->o->ext_rule == NUB_EXT_BUN) {
      /* bun: the manifest's own entries win; the others are added after
       * them, and recorded */
      add_missing(&x->deps, &e->deps, f[0]);
      add_missing(&x->optional, &e->optional, f[1]);
      add_missing(&x->peers, &e->peers, f[2]);
    } else {
      merge_deps(&m, &e->deps, &x->deps);
      nub_depmap_release(&x->deps);
      x->deps = m;
      merge_deps(&m, &e->optional, &x->optional);
      nub_depmap_release(&x->optional);
      x->optional = m;
      merge_deps(&m, &e->peers, &x->peers);
      nub_depmap_release(&x->peers);
      x->peers = m;
    }
    for (size_t j = 0; j < e->npeers_optional; j++) {
      if (rec)
        cJSON_AddItemToArray(f[3], cJSON_CreateString(e->peers_optional[j]));
      if (!nub_strarray_has(x->peers_optional, x->npeers_optional, e->peers_optional[j])) {
        x->peers_optional = nub_realloc(x->peers_optional,
                                        (x->npeers_optional + 1) * sizeof(char *));
        x->peers_optional[x->npeers_optional++] = nub_strdup(e->peers_optional[j]);
      }
    }
  }
  if (rec) {
    char *t;
    for (int k = 0; k < 4; k++) {
      if (cJSON_GetArraySize(f[k]))
        cJSON_AddItemToObject(rec, fields[k], f[k]);
      else
        cJSON_Delete(f[k]);
    }
    if (cJSON_GetArraySize(rec)) {
      t = cJSON_PrintUnformatted(rec);
      n->ext_applied = nub_strdup(t);
      cJSON_free(t);
    }
    cJSON_Delete(rec);
  }
  /* then the pnpmfile's readPackage, as pnpm's read-package hook chain
   * runs them (compat table, packageExtensions, readPackage) */
  if (r->o->read_package) {
    own_copy(n, &x);
    rc = r->o->read_package(r->o->read_package_ud, n->name, x, r->err);
  }
  /* pnpm reads a peerDependenciesMeta entry that peerDependencies lacks as
   * an optional peer of any version (debug's supports-color), and writes it
   * so in the lockfile */
  for (size_t i = 0; r->o->pnpm_peers && i < (x ? x : n->pv)->npeers_optional; i++) {
    const char *name = (x ? x : n->pv)->peers_optional[i];
    struct nub_depmap m, star = {&(struct nub_dep){(char *)name, (char *)"*"}, 1};
    if ((!x && nub_depmap_get(&n->pv->peers, name)) || (x && nub_depmap_get(&x->peers, name)))
      continue;
    own_copy(n, &x);
    merge_deps(&m, &x->peers, &star); /* (the manifest's order, then it) */
    nub_depmap_release(&x->peers);
    x->peers = m;
  }
  if (x)
    n->pv = n->own_pv = x;
  return rc;
}

/* Enqueue a picked node's own dependencies, in name order. */
static void expand(struct res *r, struct rnode *n)
{
  const struct nub_depmap *deps, *opt, *peers;
  struct nub_dep *sorted;
  size_t k = 0;
  char **bundled;
  size_t nbundled;

  if (n->pv) {
    deps = &n->pv->deps;
    opt = &n->pv->optional;
    peers = &n->pv->peers;
    bundled = n->pv->bundled;
    nbundled = n->pv->nbundled;
  } else {
    deps = &n->local_man.deps;
    opt = &n->local_man.optional;
    peers = &n->local_man.peer;
    bundled = n->local_man.bundled;
    nbundled = n->local_man.nbundled;
  }
  sorted = nub_malloc(sizeof(*sorted) * (deps->n + opt->n + peers->n + 1));
  for (size_t i = 0; i < opt->n; i++)
    sorted[k++] = opt->v[i];
  for (size_t i = 0; i < deps->n; i++)
    if (!nub_depmap_get(opt, deps->v[i].name))
      sorted[k++] = deps->v[i];
  nub_sort(sorted, k, sizeof(*sorted), cmp_dep);
  for (size_t i = 0; i < k; i++) {
    bool optional = nub_depmap_get(opt, sorted[i].name) != NULL;
    if (!r->o->resolve_bundled && nub_strarray_has(bundled, nbundled, sorted[i].name))
      continue; /* ships inside the tarball */
    push(r, n, sorted[i].name, sorted[i].spec, optional, false, 0);
    r->src->want(r->src->ud, sorted[i].name);
  }
  nub_free(sorted);
}

static int no_match(struct res *r, const struct nub_packument *p, const char *name,
                    const char *spec, const char *who)
{
  struct nub_buf b = NUB_BUF_INIT;
  const char *latest = nub_depmap_get(&p->tags, "latest");
  int shown = 0;

  for (size_t i = p->nversions; i > 0 && shown < 5; i--, shown++)
    nub_buf_addf(&b, "%s%s", shown ? ", " : "", p->versions[i - 1]->version);
  nub_err_set(r->err, -NUB_ENOVERSION,
              "no version of %s matches '%s' (wanted by %s); latest is %s; newest: %s", name,
              spec, who, latest ? latest : "(none)", p->nversions ? nub_buf_str(&b) : "(none)");
  nub_buf_release(&b);
  return -NUB_ENOVERSION;
}

/* A dist-tag's version under the gate: itself when old enough, else (as
 * pnpm moves the tag) the highest old-enough version below "latest", or of
 * another tag's major, a prerelease only for a prerelease's tag and the
 * deprecated only when nothing else is left. */
static const struct nub_pversion *gated_tag(const struct nub_age_gate *g,
                                            const struct nub_packument *p, const char *tag,
                                            const struct nub_pversion *tv)
{
  const struct nub_pversion *best = NULL;
  bool pre = tv->sv.npre > 0;

  if (nub_age_gate_allows(g, p, tv))
    return tv;
  for (size_t i = p->nversions; i > 0; i--) {
    const struct nub_pversion *v = p->versions[i - 1];
    if ((v->sv.npre > 0) != pre || !nub_age_gate_allows(g, p, v))
      continue;
    if (!strcmp(tag, "latest") ? nub_version_cmp(&v->sv, &tv->sv) > 0
                               : v->sv.major != tv->sv.major)
      continue;
    if (!best || (best->deprecated && !v->deprecated))
      best = v;
    if (!best->deprecated)
      break; /* descending: the first one not deprecated is the highest */
  }
  return best;
}

/* The version of p that range_s picks, among those the gate allows (g NULL:
 * all). */
static const struct nub_pversion *choose(const struct nub_packument *p, const char *range_s,
                                         struct nub_range *range, const struct nub_age_gate *g)
{
  const char *latest = nub_depmap_get(&p->tags, "latest");
  const struct nub_pversion *lv = latest ? nub_packument_version(p, latest) : NULL;

  if (!range) { /* a dist-tag */
    const char *v = nub_depmap_get(&p->tags, range_s);
    const struct nub_pversion *tv = v ? nub_packument_version(p, v) : NULL;
    return tv && g ? gated_tag(g, p, range_s, tv) : tv;
  }
  /* npm prefers the "latest" tag when it satisfies the range */
  if (lv && nub_range_satisfies(range, &lv->sv, false) && nub_age_gate_allows(g, p, lv))
    return lv;
  for (size_t i = p->nversions; i > 0; i--)
    if (nub_range_satisfies(range, &p->versions[i - 1]->sv, false) &&
        nub_age_gate_allows(g, p, p->versions[i - 1]))
      return p->versions[i - 1];
  return NULL;
}

/* Nothing the gate allows satisfies range_s: the version picked without
 * the gate is an error under a strict gate, or installed and said once
 * under a lenient one. *pv NULL: nothing satisfies at all. */
static int ungated(struct res *r, const struct nub_packument *p, const char *name,
                   const char *range_s, struct nub_range *range, const char *who,
                   const struct nub_pversion **pv)
{
  char *warning = NULL, key[600];
  int rc;

  *pv = choose(p, range_s, range, NULL);
  if (!*pv)
    return 0;
  if (!nub_trust_allows(r->o->gate, p, *pv))
    return nub_trust_refuse(r->o->gate, p, who, *pv, r->err);
  rc = nub_age_gate_fallback(r->o->gate, name, range_s, who, *pv, &warning, r->err);
  if (rc == 0 && r->o->prog) {
    snprintf(key, sizeof(key), "age:%s@%s", name, (*pv)->version);
    nub_progress_warn_once(r->o->prog, key, "%s", warning);
  }
  nub_free(warning);
  return rc;
}

const struct nub_pversion *nub_resolve_choose(const struct nub_packument *p, const char *spec,
                                              const struct nub_age_gate *gate)
{
  struct nub_range *range = NULL;
  const struct nub_pversion *pv;

  if (nub_range_parse_loose(&range, spec) < 0)
    range = NULL; /* a dist-tag */
  pv = choose(p, spec, range, gate && gate->cutoff ? gate : NULL);
  nub_range_free(range);
  return pv;
}

/* An already-picked (or previously locked) version that satisfies. */
static struct rnode *reuse(struct res *r, const char *name, struct nub_range *range)
{
  struct namelist *nl = nub_strmap_get(&r->byname, name);
  struct rnode *best = NULL;

  if (!nl || !range)
    return NULL;
  for (size_t i = 0; i < nl->n; i++) {
    struct rnode *n = nl->v[i];
    if (!n->pv || !nub_range_satisfies(range, &n->pv->sv, false))
      continue;
    if (!best || nub_version_cmp(&n->pv->sv, &best->pv->sv) > 0)
      best = n;
  }
  return best;
}

static const char *previous_version(struct res *r, const char *name, struct nub_range *range)
{
  const struct nub_graph *g = r->o->previous;
  const char *best = NULL;
  struct nub_version bv;

  if (!g || !range || r->o->forget_all ||
      nub_strarray_has(r->o->forget, r->o->nforget, name))
    return NULL;
  memset(&bv, 0, sizeof(bv));
  for (size_t i = 0; i < g->npkgs; i++) {
    struct nub_version v;
    const struct nub_gpkg *p = g->pkgs[i];
    if (strcmp(p->name, name) || nub_version_parse_loose(&v, p->version) < 0)
      continue;
    if (nub_range_satisfies(range, &v, false) && (!best || nub_version_cmp(&v, &bv) > 0)) {
      nub_version_release(&bv);
      bv = v;
      best = p->version;
    } else {
      nub_version_release(&v);
    }
  }
  nub_version_release(&bv);
  return best;
}

/* The version the previous graph had for this very edge (the same parent
 * package's dependency of that alias), when it still satisfies: a package
 * keeps what it was locked to, as npm and bun keep a lockfile's nested
 * resolutions, instead of whatever version of the name came first. */
static const char *locked_edge_version(struct res *r, const struct qitem *it, const char *name,
                                       struct nub_range *range)
{
  const struct nub_graph *g = r->o->previous;
  const struct nub_gpkg *p;
  static const char *none = NULL;

  if (!g || !range || !it->parent || r->o->forget_all ||
      nub_strarray_has(r->o->forget, r->o->nforget, name) ||
      nub_strarray_has(r->o->prefer, r->o->nprefer, name))
    return none;
  if (!r->prev_indexed) {
    for (size_t i = 0; i < g->npkgs; i++)
      if (!nub_strmap_get(&r->prev_by_pkg, g->pkgs[i]->pkg_key))
        nub_strmap_put(&r->prev_by_pkg, g->pkgs[i]->pkg_key, g->pkgs[i]);
    r->prev_indexed = true;
  }
  p = nub_strmap_get(&r->prev_by_pkg, it->parent->base);
  for (size_t e = 0; p && e < p->ndeps + p->noptional_deps; e++) {
    const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
    const struct nub_gpkg *t;
    char *key;
    struct nub_version v;
    bool ok;
    if (strcmp(ed->alias, it->alias))
      continue;
    key = nub_gedge_target(ed->alias, ed->ref);
    t = key ? nub_graph_find(g, key) : NULL;
    nub_free(key);
    if (!t || strcmp(t->name, name) || nub_version_parse_loose(&v, t->version) < 0)
      return none;
    ok = nub_range_satisfies(range, &v, false);
    nub_version_release(&v);
    return ok ? t->version : none;
  }
  return none;
}

/* yarn upgrade's unlocking (its cleanLockfile): the pattern goes, and with
 * it, depth first, the patterns of the package it was locked to (its
 * dependencies and optional ones), except the project's own patterns below
 * the first level and patterns already gone (a cycle). A pattern another
 * package shares is unlocked for it too, as yarn removes it from the file.
 * pkgs maps each pattern to its locked package; roots holds the project's. */
static void unlock_pattern(struct res *r, const struct nub_strmap *pkgs,
                           const struct nub_strmap *roots, const char *pat, int depth)
{
  const struct nub_gpkg *p = nub_strmap_get(pkgs, pat);

  if (!p || !nub_strmap_get(&r->prev_patterns, pat) ||
      (depth > 1 && nub_strmap_get(roots, pat)) || depth > 10000)
    return;
  nub_free(nub_strmap_put(&r->prev_patterns, pat, NULL));
  for (size_t e = 0; e < p->ndeps + p->noptional_deps; e++) {
    const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
    const char *spec = nub_depmap_get(e < p->ndeps ? &p->dep_specs : &p->opt_specs, ed->alias);
    if (spec) {
      char *k = nub_asprintf("%s@%s", ed->alias, spec);
      unlock_pattern(r, pkgs, roots, k, depth + 1);
      nub_free(k);
    }
  }
}

/* yarn 1's lock: the version the previous graph had for this very pattern
 * (name@range), whoever asked for it; none for a pattern an update
 * unlocked (the project's own of a name it names, and what that one's
 * package asked for, as unlock_pattern says). */
static const char *pattern_version(struct res *r, const struct qitem *it, const char *name,
                                   const char *range_s)
{
  const struct nub_graph *g = r->o->previous;
  char *pat;
  const char *v;

  if (!g || r->o->forget_all)
    return NULL;
  if (!r->patterns_indexed) {
    struct nub_strmap pkgs, roots; /* pattern -> its package; the project's */
    memset(&pkgs, 0, sizeof(pkgs));
    memset(&roots, 0, sizeof(roots));
    for (size_t i = 0; i < g->npkgs; i++) {
      const struct nub_gpkg *p = g->pkgs[i];
      for (size_t e = 0; e < p->ndeps + p->noptional_deps; e++) {
        const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
        const char *spec = nub_depmap_get(e < p->ndeps ? &p->dep_specs : &p->opt_specs, ed->alias);
        char *key = nub_gedge_target(ed->alias, ed->ref);
        const struct nub_gpkg *t = key ? nub_graph_find(g, key) : NULL;
        nub_free(key);
        if (spec && t) {
          char *k = nub_asprintf("%s@%s", ed->alias, spec);
          if (!nub_strmap_get(&r->prev_patterns, k)) {
            nub_strmap_put(&r->prev_patterns, k, nub_strdup(t->version));
            nub_strmap_put(&pkgs, k, (void *)t);
          }
          nub_free(k);
        }
      }
    }
    for (size_t i = 0; i < g->nimporters; i++)
      for (int k = 0; k < NUB_DEP_KINDS; k++) {
        const struct nub_gdirect *d;
        size_t n = nub_importer_directs(&g->importers[i], k, &d);
        for (size_t j = 0; j < n; j++) {
          char *key = nub_gedge_target(d[j].alias, d[j].ref), *pk;
          const struct nub_gpkg *t = key ? nub_graph_find(g, key) : NULL;
          nub_free(key);
          if (!t || !d[j].specifier)
            continue;
          pk = nub_asprintf("%s@%s", d[j].alias, d[j].specifier);
          if (!nub_strmap_get(&r->prev_patterns, pk)) {
            nub_strmap_put(&r->prev_patterns, pk, nub_strdup(t->version));
            nub_strmap_put(&pkgs, pk, (void *)t);
          }
          nub_strmap_put(&roots, pk, (void *)t);
          nub_free(pk);
        }
      }
    /* an update of named packages unlocks what yarn upgrade unlocks */
    for (size_t i = 0; i < g->nimporters && r->o->nforget; i++)
      for (int k = 0; k < NUB_DEP_KINDS; k++) {
        const struct nub_gdirect *d;
        size_t n = nub_importer_directs(&g->importers[i], k, &d);
        for (size_t j = 0; j < n; j++)
          if (d[j].specifier && nub_strarray_has(r->o->forget, r->o->nforget, d[j].alias)) {
            char *pk = nub_asprintf("%s@%s", d[j].alias, d[j].specifier);
            unlock_pattern(r, &pkgs, &roots, pk, 1);
            nub_free(pk);
          }
      }
    nub_strmap_release(&pkgs, NULL);
    nub_strmap_release(&roots, NULL);
    r->patterns_indexed = true;
  }
  pat = nub_asprintf("%s@%s", it->alias, range_s);
  v = nub_strmap_get(&r->prev_patterns, pat);
  nub_free(pat);
  return v;
}

/* A project's own dependency whose spec package.json did not change: the
 * version the previous graph's importer had for it, as every tool keeps a
 * locked version until asked to update it (a dist-tag's with no range to
 * check it against; a range's when it still satisfies), before a version
 * another dependency happened to pick. */
static const char *locked_importer_version(struct res *r, const struct qitem *it, const char *name,
                                           struct nub_range *range)
{
  const struct nub_graph *g = r->o->previous;
  char *v = r->tagv;

  if (!g || it->parent || r->o->forget_all || nub_strarray_has(r->o->forget, r->o->nforget, name))
    return NULL;
  for (size_t i = 0; i < g->nimporters; i++) {
    if (strcmp(g->importers[i].path, r->imps[it->imp].path))
      continue;
    for (int k = 0; k < NUB_DEP_KINDS; k++) {
      const struct nub_gdirect *d;
      size_t n = nub_importer_directs(&g->importers[i], k, &d);
      for (size_t j = 0; j < n; j++) {
        const char *ref = d[j].ref;
        size_t an = strlen(name), len;
        if (strcmp(d[j].alias, it->alias) || !d[j].specifier || strcmp(d[j].specifier, it->spec))
          continue; /* (a changed tag is resolved again) */
        if (!strncmp(ref, name, an) && ref[an] == '@')
          ref += an + 1; /* "name@1.2.3": this name's, as a tree's graph writes it */
        len = strcspn(ref, "(");
        if (memchr(ref, '@', len) || memchr(ref, ':', len) || len >= sizeof(r->tagv))
          continue; /* another package's, a link, a file */
        memcpy(v, ref, len); /* "1.2.3(peer@1)": the version */
        v[len] = '\0';
        if (range) {
          struct nub_version sv;
          bool ok = false;
          if (nub_version_parse_loose(&sv, v) == 0) {
            ok = nub_range_satisfies(range, &sv, false);
            nub_version_release(&sv);
          }
          return ok ? v : NULL;
        }
        return v;
      }
    }
  }
  return NULL;
}

/* The node of a file: dependency already picked ("<alias>@file:<rel>"). */
static struct rnode *local_node(struct res *r, const char *alias, const char *base)
{
  char *key = nub_asprintf("%s@%s", alias, base);
  struct rnode *n = nub_strmap_get(&r->nodes, key);

  nub_free(key);
  return n;
}

static int pick_local(struct res *r, struct qitem *it, const char *dir, const char *abs,
                      struct rnode **out)
{
  char *base = nub_asprintf("file:%s", dir);
  struct rnode *n = local_node(r, it->alias, base);
  int rc = 0;

  if (!n) {
    n = new_node(r, it->alias, base);
    n->local_dir = nub_strdup(dir);
    rc = nub_manifest_load(&n->local_man, abs, r->err);
    if (rc == 0) {
      n->has_local_man = true;
      expand(r, n);
    }
  }
  nub_free(base);
  *out = n;
  return rc;
}

/* A node for a tarball's bytes: its own package.json says what it depends
 * on, and its bytes its integrity (sha512). `where` names it in errors. */
static int tarball_node(struct res *r, struct qitem *it, const char *base, const char *where,
                        const char *data, size_t len, struct rnode **out)
{
  struct rnode *n;
  struct nub_hasher h;
  struct nub_sri sri;
  char *pj = NULL, sri_s[128];
  size_t pjlen = 0;
  int rc = nub_tarball_package_json(data, len, &pj, &pjlen, r->err);

  if (rc < 0) {
    nub_err_wrap(r->err, "%s (%s@%s)", where, it->alias, it->spec);
    return rc;
  }
  n = new_node(r, it->alias, base);
  *out = n;
  rc = nub_manifest_parse(&n->local_man, pj, pjlen, where, r->err);
  nub_free(pj);
  if (rc < 0)
    return rc;
  n->has_local_man = true;
  nub_hasher_init(&h, NUB_HASH_SHA512);
  nub_hasher_update(&h, data, len);
  sri.algo = NUB_HASH_SHA512;
  sri.nalt = 0;
  nub_hasher_final(&h, sri.digest, &sri.len);
  nub_hasher_release(&h);
  nub_sri_format(&sri, sri_s, sizeof(sri_s));
  n->local_integrity = nub_strdup(sri_s);
  return 0;
}

/* The caller's allow_source on a dependency from outside the registry. */
static int allowed(struct res *r, const struct qitem *it, int kind, const char *who,
                   const char *spec)
{
  if (!r->o->allow_source)
    return 0;
  return r->o->allow_source(r->o->ud, kind, it->parent == NULL, who, it->alias, spec, r->err);
}

/* A file: tarball of the project ("file:../x/x-1.0.0.tgz"). */
static int pick_local_tarball(struct res *r, struct qitem *it, const char *rel,
                              const char *abs, struct rnode **out)
{
  char *base = nub_asprintf("file:%s", rel), *data = NULL;
  struct rnode *n = local_node(r, it->alias, base);
  size_t len = 0;
  int rc = 0;

  if (n) {
    nub_free(base);
    *out = n;
    return 0;
  }
  rc = nub_plat_read_file_at(NUB_PLAT_CWD, abs, 1u << 30, &data, &len);
  if (rc < 0) {
    rc = nub_err_set(r->err, rc == -ENOENT ? -NUB_ENOTFOUND : rc, "cannot read %s (%s@%s): %s",
                     abs, it->alias, it->spec, nub_strerror(rc));
    *out = NULL;
  } else {
    rc = tarball_node(r, it, base, rel, data, len, out);
    if (rc == 0) {
      (*out)->local_tarball = nub_strdup(rel);
      expand(r, *out);
    }
  }
  nub_free(base);
  nub_free(data);
  return rc;
}

/* A tarball named by URL ("https://host/x-1.0.0.tgz", npm's "remote"
 * dependency): downloaded once here for its package.json and integrity,
 * which the lockfile records; its bytes go to the fetch (on_tarball), which
 * checks them against that integrity like any download. */
static int pick_tarball_url(struct res *r, struct qitem *it, const char *url,
                            const char *get_url, struct rnode **out)
{
  struct rnode *n = local_node(r, it->alias, url);
  struct nub_buf body = NUB_BUF_INIT;
  int rc;

  *out = n;
  if (n)
    return 0;
  rc = r->src->download(r->src->ud, get_url, &body, r->err);
  if (rc < 0) {
    nub_err_wrap(r->err, "%s@%s", it->alias, url);
  } else {
    rc = tarball_node(r, it, url, url, body.data ? body.data : "", body.len, out);
    if (rc == 0) {
      (*out)->tarball_url = nub_strdup(url);
      expand(r, *out);
      if (r->o->on_tarball)
        r->o->on_tarball(r->o->ud, url, &body);
    }
  }
  nub_buf_release(&body);
  return rc;
}

/* A git dependency: its ref resolved to a commit (git ls-remote), the commit
 * checked out into a temporary directory for its package.json, which goes
 * to on_checkout (the fetch packs it from there) or is removed. */
static int pick_git(struct res *r, struct qitem *it, const char *spec, struct rnode **out)
{
  struct nub_gitspec g;
  struct rnode *n;
  char commit[41], what[600], *base, *dir = NULL;
  int rc;

  *out = NULL;
  snprintf(what, sizeof(what), "%s@%s", it->alias, spec);
  rc = nub_git_parse(spec, &g, r->err);
  if (rc < 0)
    return rc;
  rc = r->src->git_commit(r->src->ud, &g, what, commit, r->err);
  if (rc == -NUB_ENOTFOUND && nub_git_is_short_commit(g.ref))
    /* an abbreviated commit: found in a clone, checked out there */
    rc = r->src->git_checkout(r->src->ud, g.url, g.ref, what, commit, &dir, r->err);
  if (rc < 0) {
    nub_gitspec_release(&g);
    return rc;
  }
  base = nub_git_resolved(g.url, commit);
  n = local_node(r, it->alias, base);
  if (n) {
    *out = n;
    if (dir)
      nub_plat_rm_rf(dir);
    nub_free(dir);
    nub_free(base);
    nub_gitspec_release(&g);
    return 0;
  }
  if (!dir)
    rc = r->src->git_checkout(r->src->ud, g.url, commit, what, commit, &dir, r->err);
  if (rc == 0) {
    n = new_node(r, it->alias, base);
    *out = n;
    rc = nub_manifest_load(&n->local_man, dir, r->err);
    if (rc == 0) {
      n->has_local_man = true;
      n->git_resolved = nub_strdup(base);
      expand(r, n);
    }
  }
  if (rc == 0 && r->o->on_checkout) {
    r->o->on_checkout(r->o->ud, base, dir);
  } else if (dir) {
    nub_plat_rm_rf(dir);
    nub_free(dir);
  }
  nub_free(base);
  nub_gitspec_release(&g);
  return rc;
}

/* Pick the node for one queued dependency. */
static int pick(struct res *r, struct qitem *it, struct rnode **out)
{
  const char *spec = it->spec, *range_s;
  char name[512], who[600];
  const struct nub_packument *p;
  const struct nub_pversion *pv;
  struct nub_range *range = NULL;
  struct rnode *n;
  const char *ov, *locked, *secret = NULL;
  const struct nub_age_gate *gate =
      r->o->gate && (r->o->gate->cutoff || r->o->gate->trust) ? r->o->gate : NULL;
  int rc;

  *out = NULL;
  snprintf(name, sizeof(name), "%s", it->alias);
  snprintf(who, sizeof(who), "%s",
           it->parent ? it->parent->base : it->imp ? r->imps[it->imp].path : "the project");
  /* the key becomes a folder under node_modules (and names a document to
   * ask for when it is no alias): "../.git/hooks" must never */
  if (!nub_valid_pkg_name(it->alias))
    return nub_err_set(r->err, -NUB_EUNSAFE,
                       "%s depends on '%s' (%s), which is not a package name; refusing to "
                       "install it", who, it->alias, it->spec);
  ov = override_for(r, it->parent, it->alias, it->spec);
  if (ov)
    spec = ov;
  /* the project's spec as written, when it carried a credential: for the
   * git command or download alone (what is recorded has none) */
  if (!ov && !it->parent)
    secret = nub_manifest_secret(r->imps[it->imp].man, it->alias);
  if (!strncmp(spec, "file:", 5) && it->parent == NULL) {
    char *abs = nub_project_path(r->imps[it->imp].abs, spec + 5), rel[4096];
    struct nub_plat_stat st;
    const char *dir = spec + 5;
    bool file;
    int rc2;
    /* a member's file: path, relative to the root as the lockfile keys it */
    if (it->imp && nub_path_relative(r->imps[0].abs, abs, rel, sizeof(rel)) == 0)
      dir = rel;
    file = nub_plat_stat_follow_at(NUB_PLAT_CWD, abs, &st) == 0 && st.type == NUB_FT_FILE;
    rc2 = allowed(r, it, file ? NUB_SRC_FILE : NUB_SRC_DIRECTORY, who, spec);
    if (rc2 == 0)
      rc2 = file ? pick_local_tarball(r, it, dir, abs, out) : pick_local(r, it, dir, abs, out);
    nub_free(abs);
    return rc2;
  }
  if ((!strncmp(spec, "https://", 8) || !strncmp(spec, "http://", 7)) && r->src->download) {
    rc = allowed(r, it, NUB_SRC_REMOTE, who, spec);
    return rc < 0 ? rc : pick_tarball_url(r, it, spec, secret ? secret : spec, out);
  }
  if (nub_git_is_spec(spec) && strncmp(spec, "npm:", 4)) {
    rc = allowed(r, it, NUB_SRC_GIT, who, spec);
    return rc < 0 ? rc : pick_git(r, it, secret ? secret : spec, out);
  }
  if (!strncmp(spec, "link:", 5) || !strncmp(spec, "file:", 5))
    return nub_err_set(r->err, -NUB_ESPEC,
                       "%s depends on %s@%s: only the project itself may use link: and file: "
                       "directories", who, it->alias, spec);
  if (!strncmp(spec, "git", 3) || !strncmp(spec, "github:", 7) || strstr(spec, "://") ||
      strchr(spec, '/') == spec)
    return nub_err_set(r->err, -NUB_ESPEC,
                       "%s depends on %s@%s, which is not a registry range, an http(s) "
                       "tarball, a git repository or a folder: nub (like npm) cannot install "
                       "it", who, it->alias, spec);
  range_s = spec;
  if (nub_spec_npm_alias(spec, name, sizeof(name), &range_s)) {
    if (!range_s)
      range_s = "*";
    if (!nub_valid_pkg_name(name))
      return nub_err_set(r->err, -NUB_EUNSAFE, "%s has an invalid alias target '%s'", who, spec);
  }
  if (!nub_valid_pkg_name(name))
    return nub_err_set(r->err, -NUB_EUNSAFE, "%s depends on an invalid package name '%s'", who,
                       name);
  if (strlen(range_s) > NUB_RANGE_MAX_LEN)
    return nub_err_set(r->err, -NUB_ELIMIT,
                       "%s depends on %s with a range of %zu bytes, more than the %d a range "
                       "may have; refusing it", who, name, strlen(range_s), NUB_RANGE_MAX_LEN);
  if (nub_range_parse_loose(&range, range_s) < 0)
    range = NULL; /* a dist-tag */
  if (r->o->by_pattern)
    locked = pattern_version(r, it, name, range_s);
  else
    locked = range && it->parent ? locked_edge_version(r, it, name, range)
                                 : locked_importer_version(r, it, name, range);
  if (locked) {
    char *key = nub_asprintf("%s@%s", name, locked);
    n = nub_strmap_get(&r->nodes, key);
    nub_free(key);
  } else if (!r->o->by_pattern) {
    n = reuse(r, name, range);
  } else {
    n = NULL; /* a new pattern takes the registry's pick (below) */
  }
  if (n) {
    nub_range_free(range);
    *out = n;
    return 0;
  }
  rc = r->src->versions(r->src->ud, name, false, &p, r->err);
  if (rc < 0) {
    nub_range_free(range);
    if (rc == -NUB_ENOTFOUND)
      nub_err_wrap(r->err, "%s depends on %s@%s", who, name, range_s);
    return rc;
  }
  {
    const char *pv_s = locked ? locked : r->o->by_pattern ? NULL : previous_version(r, name, range);
    pv = pv_s ? nub_packument_version(p, pv_s) : NULL;
  }
  if (!pv)
    pv = choose(p, range_s, range, gate);
  if (!pv && gate) /* too young, or nothing at all */
    rc = ungated(r, p, name, range_s, range, who, &pv);
  if (!pv && rc == 0) {
    rc = r->src->versions(r->src->ud, name, true, &p, r->err);
    if (rc == 0)
      pv = choose(p, range_s, range, gate);
    if (rc == 0 && !pv && gate)
      rc = ungated(r, p, name, range_s, range, who, &pv);
  }
  nub_range_free(range);
  if (rc < 0)
    return rc;
  if (!pv)
    return no_match(r, p, name, range_s, who);
  if (!pv->integrity && !r->o->allow_missing_integrity)
    /* npm installs these unchecked; a lockfile would then pin nothing */
    return nub_err_set(r->err, -NUB_EINTEGRITY,
                       "%s@%s (wanted by %s): the registry gives neither an integrity nor "
                       "a shasum for its tarball, so nothing can check it; set "
                       "allow-missing-integrity=true in .npmrc to install it unchecked",
                       name, pv->version, who);
  {
    char *key = nub_asprintf("%s@%s", name, pv->version);
    n = nub_strmap_get(&r->nodes, key);
    nub_free(key);
  }
  if (!n) {
    n = new_node(r, name, pv->version);
    n->pv = pv;
    rc = extend(r, n);
    if (rc < 0)
      return rc;
    if (r->o->prog)
      nub_progress_add(r->o->prog, &r->o->prog->resolved, 1);
    if (r->o->on_pick)
      r->o->on_pick(r->o->ud, name, pv);
    expand(r, n);
  }
  *out = n;
  return 0;
}

/* ---- workspaces ------------------------------------------------------------- */

static int ws_error(struct res *r, const struct qitem *it, const char *fmt, const char *a,
                    const char *b)
{
  char what[600];

  snprintf(what, sizeof(what), fmt, a, b);
  return nub_err_set(r->err, -NUB_EWORKSPACE, "%s%s depends on %s@%s, %s",
                     it->imp ? r->imps[it->imp].path : "the project",
                     it->imp ? "/package.json" : " (package.json)", it->alias, it->spec, what);
}

static bool member_satisfies(const struct nub_ws_pkg *m, const char *range_s)
{
  struct nub_range *range = NULL;
  struct nub_version v;
  bool ok = false;

  if (!m->man.version || nub_range_parse_loose(&range, range_s) < 0)
    return false;
  if (nub_version_parse_loose(&v, m->man.version) == 0) {
    ok = nub_range_satisfies(range, &v, false);
    nub_version_release(&v);
  }
  nub_range_free(range);
  return ok;
}

/* "link:<path from the importer to the member>" */
static char *member_link(struct res *r, size_t imp, const struct nub_ws_pkg *m)
{
  char *to = nub_asprintf("%s/%s", r->imps[0].abs, m->dir), rel[4096];
  char *link = nub_path_relative(r->imps[imp].abs, to, rel, sizeof(rel)) == 0
                   ? nub_asprintf("link:%s", rel)
                   : nub_asprintf("link:%s", m->dir);
  nub_free(to);
  return link;
}

/* A direct dependency of an importer as the resolver takes it: a catalog:
 * spec becomes the catalog's range (*spec, borrowed); a workspace: spec,
 * or a plain range a member satisfies, a link to the member (*link). */
static int importer_spec(struct res *r, const struct qitem *it, const char **spec, char **link)
{
  const struct nub_workspace *ws = r->o->ws;
  const struct nub_ws_pkg *m;
  const char *s = it->spec;

  *spec = s;
  *link = NULL;
  if (r->o->pnpm_peers && it->peer && it->imp > 0) {
    /* pnpm (resolvePeersFromWorkspaceRoot): a member's own peer that the
     * workspace root depends on is resolved with the root's range, not
     * kept at the member's locked version */
    const struct nub_manifest *root = r->imps[0].man;
    const char *rs = nub_depmap_get(&root->deps, it->alias);
    if (!rs)
      rs = nub_depmap_get(&root->dev, it->alias);
    if (!rs)
      rs = nub_depmap_get(&root->optional, it->alias);
    if (rs && strncmp(rs, "catalog:", 8) && strncmp(rs, "workspace:", 10) &&
        strncmp(rs, "link:", 5) && strncmp(rs, "file:", 5) && strncmp(rs, "npm:", 4))
      *spec = s = rs;
  }
  if (!strncmp(s, "catalog:", 8)) {
    const char *name = s[8] ? s + 8 : "default";
    const struct nub_catalog *cat = ws ? nub_catalog_find(ws->catalogs, ws->ncatalogs, name)
                                       : nub_catalog_find(r->man->catalogs, r->man->ncatalogs,
                                                          name);
    const char *range = cat ? nub_depmap_get(&cat->deps, it->alias) : NULL;
    if (!range)
      return ws_error(r, it, "but the %s catalog has no entry for it%s", name,
                      cat ? "" : " (there is no such catalog)");
    if (!strncmp(range, "catalog:", 8) || !strncmp(range, "workspace:", 10))
      return ws_error(r, it, "but the %s catalog gives it '%s', which is not a version range",
                      name, range);
    *spec = s = range;
  }
  if (!strncmp(s, "workspace:", 10)) {
    const char *w = s + 10, *range = w, *at;
    char name[512];
    if (!ws || !ws->source)
      return ws_error(r, it, "but %s is not in a workspace (no \"workspaces\" in package.json "
                      "and no pnpm-workspace.yaml)%s", r->imps[0].abs, "");
    snprintf(name, sizeof(name), "%s", it->alias);
    if (w[0] == '.' || w[0] == '/') { /* workspace:../path */
      char *abs = nub_project_path(r->imps[it->imp].abs, w), rel[4096];
      m = nub_path_relative(r->imps[0].abs, abs, rel, sizeof(rel)) == 0
              ? nub_workspace_at(ws, rel)
              : NULL;
      nub_free(abs);
      if (!m)
        return ws_error(r, it, "but %s is not a package of the workspace%s", w, "");
      *link = member_link(r, it->imp, m);
      return 0;
    }
    at = strchr(w[0] == '@' ? w + 1 : w, '@');
    if (at && (at > w) && !strchr("^~*<>=", w[0])) { /* workspace:<alias>@<range> */
      snprintf(name, sizeof(name), "%.*s", (int)(at - w), w);
      range = at + 1;
    }
    m = nub_workspace_find(ws, name);
    if (!m)
      return ws_error(r, it, "but no package of the workspace is named %s%s", name, "");
    if (strcmp(range, "*") && strcmp(range, "^") && strcmp(range, "~") && range[0] &&
        !member_satisfies(m, range))
      return ws_error(r, it, "but the workspace's %s is %s", m->dir,
                      m->man.version ? m->man.version : "without a version");
    *link = member_link(r, it->imp, m);
    return 0;
  }
  /* npm's rule: a member that satisfies the range is used, not the registry's
   * (pnpm's link-workspace-packages=false takes the registry's) */
  if (ws && !r->o->no_plain_member_links && (m = nub_workspace_find(ws, it->alias)) != NULL &&
      member_satisfies(m, s) &&
      strcmp(m->dir, r->imps[it->imp].path))
    *link = member_link(r, it->imp, m);
  return 0;
}

static void add_root(struct res *r, struct qitem *it, struct rnode *to, char *link)
{
  NUB_GROW(r->roots, r->caproots, r->nroots + 1);
  r->roots[r->nroots].alias = it->alias;
  r->roots[r->nroots].spec = it->spec;
  r->roots[r->nroots].to = to;
  r->roots[r->nroots].link = link;
  r->roots[r->nroots].kind = it->kind;
  r->roots[r->nroots].imp = it->imp;
  r->roots[r->nroots].catalog_range = NULL;
  r->nroots++;
}

static int run_queue(struct res *r)
{
  char *link_unused = NULL;

  while (r->qlen) {
    struct qitem it = r->q[r->qhead];
    struct rnode *n = NULL;
    int rc;

    r->qhead = (r->qhead + 1) % r->qcap;
    r->qlen--;
    if (nub_plat_interrupted()) {
      nub_free(it.alias);
      nub_free(it.spec);
      return nub_err_set(r->err, -NUB_EINTR, "interrupted while resolving");
    }
    if (!it.parent && !strncmp(it.spec, "link:", 5)) {
      add_root(r, &it, NULL, nub_strdup(it.spec));
      continue;
    }
    if (!it.parent) {
      const char *eff;
      char *link;
      rc = importer_spec(r, &it, &eff, &link);
      if (rc < 0) {
        nub_free(it.alias);
        nub_free(it.spec);
        return rc;
      }
      if (link) {
        add_root(r, &it, NULL, link);
        continue;
      }
      if (eff != it.spec) { /* a catalog's range; the importer keeps "catalog:" */
        struct qitem real = it;
        real.spec = (char *)eff;
        rc = pick(r, &real, &n);
      } else {
        rc = pick(r, &it, &n);
      }
    } else {
      rc = pick(r, &it, &n);
    }
    if (rc < 0) {
      if (it.optional && rc != -NUB_EINTR && rc != -NUB_EUNSAFE) {
        /* an optional dependency that cannot be resolved is left out (one
         * that is hostile stops the install) */
        nub_err_clear(r->err);
        rc = 0;
      } else {
        nub_free(it.alias);
        nub_free(it.spec);
        return rc;
      }
    }
    if (n && it.parent)
      add_kid(it.parent, it.alias, n, it.optional, it.peer);
    if (n && !it.parent) {
      add_root(r, &it, n, NULL);
      if (!strncmp(it.spec, "catalog:", 8))
        importer_spec(r, &it, &r->roots[r->nroots - 1].catalog_range, &link_unused);
      continue;
    }
    nub_free(it.alias);
    nub_free(it.spec);
  }
  return 0;
}

/* Every non-optional peer becomes a "peer" kid of its dependent, used only
 * when no ancestor provides the peer (pnpm's autoInstallPeers). */
static void queue_peers(struct res *r, size_t from)
{
  for (size_t i = from; i < r->nall; i++) {
    struct rnode *n = r->all[i];
    const struct nub_depmap *peers = n->pv ? &n->pv->peers : &n->local_man.peer;
    char **popt = n->pv ? n->pv->peers_optional : NULL;
    size_t npopt = n->pv ? n->pv->npeers_optional : 0;
    struct nub_dep *sorted = nub_malloc(sizeof(*sorted) * (peers->n + 1));

    if (peers->n)
      memcpy(sorted, peers->v, sizeof(*sorted) * peers->n);
    nub_sort(sorted, peers->n, sizeof(*sorted), cmp_dep);
    for (size_t k = 0; k < peers->n; k++) {
      if (nub_strarray_has(popt, npopt, sorted[k].name))
        continue;
      push(r, n, sorted[k].name, sorted[k].spec, true, true, 0);
      if (nub_valid_pkg_name(sorted[k].name)) /* (pick refuses it) */
        r->src->want(r->src->ud, sorted[k].name);
    }
    nub_free(sorted);
  }
}

/* ---- phase 2: peer contexts ---------------------------------------------- */

static void pn_add(struct rnode *n, const char *name, bool *changed)
{
  size_t lo = 0, hi = n->npn;

  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strcmp(n->pn[mid], name);
    if (!c)
      return;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  NUB_GROW(n->pn, n->cappn, n->npn + 1);
  memmove(n->pn + lo + 1, n->pn + lo, (n->npn - lo) * sizeof(char *));
  n->pn[lo] = nub_strdup(name);
  n->npn++;
  *changed = true;
}

static bool has_dep_kid(const struct rnode *n, const char *alias)
{
  for (size_t i = 0; i < n->nkids; i++)
    if (!n->kids[i].peer && !strcmp(n->kids[i].alias, alias))
      return true;
  return false;
}

/* Open peer names: own peers, plus kids' open peers this node does not
 * satisfy with a dependency of its own. Sets only grow: iterate to a fixed
 * point (dependency cycles). */
static void compute_open_peers(struct res *r)
{
  bool changed = true;

  for (size_t i = 0; i < r->nall; i++) {
    struct rnode *n = r->all[i];
    const struct nub_depmap *peers = n->pv ? &n->pv->peers : &n->local_man.peer;
    bool dummy = false;
    /* a peer that is also a plain dependency is just a dependency (pnpm:
     * a peer all the same) */
    for (size_t k = 0; k < peers->n; k++)
      if (r->o->pnpm_peers || !has_dep_kid(n, peers->v[k].name))
        pn_add(n, peers->v[k].name, &dummy);
  }
  while (changed) {
    changed = false;
    for (size_t i = r->nall; i > 0; i--) {
      struct rnode *n = r->all[i - 1];
      const struct nub_depmap *peers = n->pv ? &n->pv->peers : &n->local_man.peer;
      for (size_t k = 0; k < n->nkids; k++) {
        struct rnode *c = n->kids[k].to;
        /* pnpm: a peer's own peers are the peer's, not its dependent's (a
         * missing one is resolved at the importer; a dependent's key names
         * its children's open peers only), also where the peer is a
         * dependency too */
        if (r->o->pnpm_peers &&
            (n->kids[k].peer || nub_depmap_get(peers, n->kids[k].alias)))
          continue;
        for (size_t j = 0; j < c->npn; j++)
          if (!has_dep_kid(n, c->pn[j]) && strcmp(c->pn[j], n->name))
            pn_add(n, c->pn[j], &changed);
      }
    }
  }
}

struct frame {
  struct frame *up;
  struct rnode *owner;       /* NULL for the project */
  size_t n;
  const char **alias;
  struct rnode **to;
  bool *peer;
  bool *optional;
  char **inst;               /* resolved dep path per slot (borrowed) */
  bool *busy;
  bool *cyc;                 /* an instance() found this slot busy: a cycle */
  struct frame **via;        /* a peer slot resolved to a slot still being made
                              * (its key unknown yet): that slot, and its index */
  size_t *via_i;
  const char **link;         /* the project's frames: a link slot's peer id,
                              * "<name>@link:<path from the root>" (borrowed) */
};

static void frame_init(struct frame *f, struct frame *up, struct rnode *owner, size_t n)
{
  memset(f, 0, sizeof(*f));
  f->up = up;
  f->owner = owner;
  f->n = n;
  f->alias = nub_calloc(n + 1, sizeof(*f->alias));
  f->to = nub_calloc(n + 1, sizeof(*f->to));
  f->peer = nub_calloc(n + 1, sizeof(bool));
  f->optional = nub_calloc(n + 1, sizeof(bool));
  f->inst = nub_calloc(n + 1, sizeof(char *));
  f->busy = nub_calloc(n + 1, sizeof(bool));
  f->cyc = nub_calloc(n + 1, sizeof(bool));
  f->via = nub_calloc(n + 1, sizeof(*f->via));
  f->via_i = nub_calloc(n + 1, sizeof(size_t));
  f->link = nub_calloc(n + 1, sizeof(char *));
}

static void frame_release(struct frame *f)
{
  nub_free(f->alias);
  nub_free(f->to);
  nub_free(f->peer);
  nub_free(f->optional);
  nub_free(f->inst);
  nub_free(f->busy);
  nub_free(f->cyc);
  nub_free(f->via);
  nub_free(f->via_i);
  nub_free(f->link);
}

static const char *instance(struct res *r, struct frame *f, size_t i);

/* The resolution of name x as seen from a node whose siblings are frame f:
 * the nearest frame that has x, not counting the node itself. */
static const char *lookup(struct res *r, struct frame *f, const struct rnode *self,
                          const char *x)
{
  for (struct frame *g = f; g; g = g->up) {
    for (size_t j = 0; j < g->n; j++) {
      if (strcmp(g->alias[j], x) || (g == f && g->to[j] == self && !g->peer[j]))
        continue;
      if (!g->to[j])
        /* a link (a workspace member): pnpm names it by its folder */
        return g->link[j];
      if (g->peer[j]) {
        /* the owner's own peer, as the owner resolved it (if it did); one
         * whose key was not known then is asked again (a fixup if it still
         * is not) */
        if (g->via[j])
          return instance(r, g->via[j], g->via_i[j]);
        if (g->inst[j])
          return g->inst[j];
        continue;
      }
      return instance(r, g, j);
    }
  }
  return NULL;
}

static bool is_peer_of(const struct rnode *n, const char *x)
{
  const struct nub_depmap *peers = n->pv ? &n->pv->peers : &n->local_man.peer;
  return nub_depmap_get(peers, x) != NULL;
}

static char *ref_of(const char *alias, const char *key)
{
  size_t al = strlen(alias);
  /* "name@1.2.3(...)" under its own name is written "1.2.3(...)" */
  if (!strncmp(key, alias, al) && key[al] == '@')
    return nub_strdup(key + al + 1);
  return nub_strdup(key);
}

static void copy_list(char ***dst, size_t *ndst, char *const *src, size_t nsrc)
{
  if (!nsrc)
    return;
  *dst = nub_calloc(nsrc + 1, sizeof(char *));
  for (size_t i = 0; i < nsrc; i++)
    (*dst)[i] = nub_strdup(src[i]);
  *ndst = nsrc;
}

/* What a package that is not from a registry says of itself (a git
 * checkout's, a tarball's, a directory's package.json), as the registry's
 * document would: for lockfiles that record it (bun.lock). */
static void local_facts(struct nub_gpkg *g, const struct rnode *n)
{
  const struct nub_manifest *m = &n->local_man;

  if (!n->has_local_man)
    return;
  nub_depmap_copy(&g->dep_specs, &m->deps);
  nub_depmap_copy(&g->opt_specs, &m->optional);
  if (!g->peers.n)
    nub_depmap_copy(&g->peers, &m->peer);
  if (m->nbins) {
    g->bin_raw.v = nub_calloc(m->nbins, sizeof(*g->bin_raw.v));
    for (size_t i = 0; i < m->nbins; i++) {
      g->bin_raw.v[i].name = nub_strdup(m->bins[i].name);
      g->bin_raw.v[i].spec = nub_strdup(m->bins[i].target);
    }
    g->bin_raw.n = m->nbins;
  } else if (m->directories_bin) {
    g->bin_dir = nub_strdup(m->directories_bin);
  }
  if (!g->nos)
    copy_list(&g->os, &g->nos, m->os, m->nos);
  if (!g->ncpu)
    copy_list(&g->cpu, &g->ncpu, m->cpu, m->ncpu);
  if (!g->nlibc)
    copy_list(&g->libc, &g->nlibc, m->libc, m->nlibc);
  g->requires_build = m->preinstall || m->install || m->postinstall;
}

static void fill_pkg(struct nub_gpkg *g, const struct rnode *n)
{
  const struct nub_pversion *pv = n->pv;

  if (!pv)
    local_facts(g, n);
  g->pkg_key = nub_strdup(n->base);
  g->afresh = n->afresh;
  if (n->ext_applied)
    g->ext_applied = nub_strdup(n->ext_applied);
  g->name = nub_strdup(n->name);
  g->version = nub_strdup(n->version);
  if (!pv && n->git_resolved) {
    g->tarball = nub_strdup(n->git_resolved);
    if (n->local_man.version) {
      nub_free(g->version);
      g->version = nub_strdup(n->local_man.version);
    }
    g->has_bin = n->local_man.nbins > 0 || n->local_man.directories_bin;
    return;
  }
  if (!pv && (n->local_tarball || n->tarball_url)) {
    g->tarball = n->tarball_url ? nub_strdup(n->tarball_url)
                                : nub_asprintf("file:%s", n->local_tarball);
    g->integrity = nub_strdup(n->local_integrity);
    if (n->tarball_url && n->local_man.version) {
      /* its key names the URL: the version is the package's own (pnpm
       * writes it under the entry) */
      nub_free(g->version);
      g->version = nub_strdup(n->local_man.version);
      g->has_bin = n->local_man.nbins > 0 || n->local_man.directories_bin;
    }
    return;
  }
  if (!pv) {
    g->directory = nub_strdup(n->local_dir);
    return;
  }
  g->integrity = pv->integrity ? nub_strdup(pv->integrity) : NULL;
  g->shasum = pv->shasum ? nub_strdup(pv->shasum) : NULL;
  nub_depmap_copy(&g->dep_specs, &pv->deps);
  nub_depmap_copy(&g->opt_specs, &pv->optional);
  if (pv->nbins) {
    g->bins.v = nub_calloc(pv->nbins, sizeof(*g->bins.v));
    for (size_t i = 0; i < pv->nbins; i++) {
      g->bins.v[i].name = nub_strdup(pv->bins[i].name);
      g->bins.v[i].spec = nub_strdup(pv->bins[i].target);
    }
    g->bins.n = pv->nbins;
  }
  nub_depmap_copy(&g->bin_raw, &pv->bin_raw);
  g->bin_string = pv->bin_string;
  g->bin_dir = pv->bin_dir ? nub_strdup(pv->bin_dir) : NULL;
  nub_depmap_copy(&g->engines, &pv->engines);
  nub_depmap_copy(&g->peers, &pv->peers);
  copy_list(&g->peers_optional, &g->npeers_optional, pv->peers_optional, pv->npeers_optional);
  copy_list(&g->os, &g->nos, pv->os, pv->nos);
  copy_list(&g->cpu, &g->ncpu, pv->cpu, pv->ncpu);
  copy_list(&g->libc, &g->nlibc, pv->libc, pv->nlibc);
  copy_list(&g->bundled, &g->nbundled, pv->bundled, pv->nbundled);
  g->has_bin = pv->has_bin;
  g->requires_build = pv->has_install_script;
  g->deprecated = pv->deprecated ? nub_strdup(pv->deprecated) : NULL;
  /* a tarball off the registry's conventional path is recorded */
  g->tarball = NULL;
}

static void add_edge(struct nub_gedge **v, size_t *n, const char *alias, const char *key)
{
  for (size_t i = 0; i < *n; i++)
    if (!strcmp((*v)[i].alias, alias))
      return;
  *v = nub_realloc(*v, sizeof(**v) * (*n + 1));
  (*v)[*n].alias = nub_strdup(alias);
  (*v)[*n].ref = ref_of(alias, key);
  (*n)++;
}

static int cmp_edge(const void *a, const void *b)
{
  return strcmp(((const struct nub_gedge *)a)->alias, ((const struct nub_gedge *)b)->alias);
}

static int cmp_cstr(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void add_fixup(struct res *r, struct nub_gpkg *g, const char *alias, struct frame *f,
                      size_t i)
{
  NUB_GROW(r->fix, r->capfix, r->nfix + 1);
  r->fix[r->nfix].g = g;
  r->fix[r->nfix].alias = nub_strdup(alias);
  r->fix[r->nfix].f = f;
  r->fix[r->nfix].i = i;
  r->nfix++;
}

/* Slot i of frame f has its key now: edges written while it was being
 * made point at it. */
static void apply_fixups(struct res *r, struct frame *f, size_t i)
{
  for (size_t k = 0; k < r->nfix;) {
    struct fixup *x = &r->fix[k];
    if (x->f != f || x->i != i) {
      k++;
      continue;
    }
    for (int o = 0; o < 2; o++) {
      struct nub_gedge *v = o ? x->g->optional_deps : x->g->deps;
      size_t n = o ? x->g->noptional_deps : x->g->ndeps;
      for (size_t e = 0; e < n; e++)
        if (!strcmp(v[e].alias, x->alias)) {
          nub_free(v[e].ref);
          v[e].ref = ref_of(x->alias, f->inst[i]);
        }
    }
    nub_free(x->alias);
    r->fix[k] = r->fix[--r->nfix];
  }
}

/* Whether k's peer named alias was resolved (resv: per open peer). */
static bool resolved_peer(const struct rnode *k, const char *const *resv, const char *alias)
{
  for (size_t j = 0; j < k->npn; j++)
    if (!strcmp(k->pn[j], alias))
      return resv[j] != NULL && is_peer_of(k, alias);
  return false;
}

/* The dep path of slot i of frame f, creating its package on first sight. */
static const char *instance(struct res *r, struct frame *f, size_t i)
{
  struct rnode *k = f->to[i];
  struct frame cf;
  struct nub_buf key = NUB_BUF_INIT;
  const char **resv, **ids;
  bool *plain;
  size_t hits;
  struct nub_gpkg *g;
  size_t nids = 0;
  struct {
    struct frame *f;
    size_t i;
  } *rbusy;

  if (f->inst[i]) {
    r->busy_hit = false;
    return f->inst[i];
  }
  if (f->busy[i]) {
    /* a cycle: the plain name@version names it in keys (as pnpm does);
     * edges to it are fixed once its key is known */
    f->cyc[i] = true;
    r->busy_hits++;
    r->busy_hit = true;
    r->busy_f = f;
    r->busy_i = i;
    return k->base;
  }
  if (r->depth >= NUB_RESOLVE_MAX_DEPTH) {
    /* refused by nub_resolve: a chain is never cut short */
    if (!r->too_deep)
      r->too_deep = k;
    return k->base;
  }
  f->busy[i] = true;
  r->depth++;
  frame_init(&cf, f, k, k->nkids);
  for (size_t j = 0; j < k->nkids; j++) {
    cf.alias[j] = k->kids[j].alias;
    cf.to[j] = k->kids[j].to;
    cf.peer[j] = k->kids[j].peer;
    cf.optional[j] = k->kids[j].optional;
  }
  /* Resolve the open peers: from the ancestors; a node's own peer falls back
   * to the copy it installs itself. */
  resv = nub_calloc(k->npn + 1, sizeof(*resv));
  plain = nub_calloc(k->npn + 1, sizeof(bool));
  hits = r->busy_hits;
  rbusy = nub_calloc(k->npn + 1, sizeof(*rbusy));
  for (size_t j = 0; j < k->npn; j++) {
    const char *x = k->pn[j];
    bool was = f->cyc[i];
    f->cyc[i] = false;
    r->busy_hit = false;
    resv[j] = lookup(r, f, k, x);
    if (r->busy_hit) {
      rbusy[j].f = r->busy_f;
      rbusy[j].i = r->busy_i;
    }
    /* x's key needed this one's: both are in a cycle, where pnpm names the
     * peer by its plain name@version in the key (resolvePeers' cyclic
     * aliases); the edge still goes to its instance */
    plain[j] = r->o->pnpm_peers && f->cyc[i] && resv[j] && !r->busy_hit;
    f->cyc[i] = was || f->cyc[i];
    if (r->o->pnpm_peers && is_peer_of(k, x)) {
      /* pnpm: a peer that is also a dependency is the ancestors' copy
       * when that is the same version, else its own; an optional one that
       * nothing above provides is a plain dependency */
      bool opt = k->pv && nub_strarray_has(k->pv->peers_optional, k->pv->npeers_optional, x);
      for (size_t s = 0; s < cf.n; s++) {
        size_t nb;
        if (cf.peer[s] || strcmp(cf.alias[s], x) || !cf.to[s] || (opt && !resv[j]))
          continue;
        nb = strlen(cf.to[s]->base);
        if (!resv[j] || strncmp(resv[j], cf.to[s]->base, nb) ||
            (resv[j][nb] && resv[j][nb] != '(')) {
          r->busy_hit = false;
          resv[j] = instance(r, &cf, s);
          rbusy[j].f = r->busy_hit ? r->busy_f : NULL;
          rbusy[j].i = r->busy_hit ? r->busy_i : 0;
        }
        cf.inst[s] = (char *)resv[j];
        break;
      }
    }
    if (!resv[j] && is_peer_of(k, x)) {
      for (size_t s = 0; s < cf.n; s++)
        if (cf.peer[s] && !strcmp(cf.alias[s], x)) {
          cf.peer[s] = false; /* resolve it as a plain dependency */
          resv[j] = instance(r, &cf, s);
          cf.peer[s] = true;
          break;
        }
    }
  }
  /* the peers' ids in byte order, as pnpm's createPeerDepGraphHash; a
   * workspace folder's is "<name>@<path, '/' as '+'>" */
  ids = nub_calloc(k->npn + 1, sizeof(*ids));
  for (size_t j = 0; j < k->npn; j++)
    if (resv[j]) {
      const char *l = strstr(resv[j], "@link:");
      char *id = l ? nub_asprintf("%.*s@%s", (int)(l - resv[j]), resv[j], l + 6)
                 : plain[j] || r->o->dedupe_peers ? nub_strndup(resv[j], strcspn(resv[j], "("))
                                                 : nub_strdup(resv[j]);
      for (char *q = l ? strchr(id, '@') + 1 : NULL; q && *q; q++)
        if (*q == '/')
          *q = '+';
      ids[nids++] = id;
    }
  nub_sort(ids, nids, sizeof(*ids), cmp_cstr);
  nub_buf_adds(&key, k->base);
  if (r->o->patches && r->o->patches->n) {
    struct nub_err perr;
    int prc;
    const struct nub_patch_rule *pr = nub_patches_find(r->o->patches, k->name, k->version,
                                                       &prc, &perr);
    if (pr) /* (two rules for one version fail the install once it is planned) */
      nub_buf_addf(&key, "(patch_hash=%s)", pr->hash);
  }
  for (size_t j = 0; j < nids; j++) {
    nub_buf_addf(&key, "(%s)", ids[j]);
    nub_free((char *)ids[j]);
  }
  nub_free(ids);
  g = nub_strmap_get(&r->memo, key.data);
  if (!g) {
    g = nub_calloc(1, sizeof(*g));
    g->key = nub_strdup(key.data);
    fill_pkg(g, k);
    nub_strmap_put(&r->memo, g->key, g);
    nub_graph_add(r->g, g);
    /* pnpm: a key that needed no unfinished one is known before the
     * dependencies are resolved, so a dependency whose peer is this node
     * names it by its key (a cycle through a dependency is no cycle of
     * keys); one that did is in a cycle, named by name@version */
    if (r->o->pnpm_peers && r->busy_hits == hits)
      f->inst[i] = g->key;
    /* peers resolved for this node become its own frame's view of them */
    for (size_t j = 0; j < k->npn; j++) {
      if (!resv[j] || !is_peer_of(k, k->pn[j]))
        continue;
      for (size_t s = 0; s < cf.n; s++)
        if (cf.peer[s] && !strcmp(cf.alias[s], k->pn[j])) {
          cf.inst[s] = (char *)resv[j];
          cf.via[s] = rbusy[j].f;
          cf.via_i[s] = rbusy[j].i;
        }
      /* an optional peer found among the ancestors is an optional edge */
      if (k->pv && nub_strarray_has(k->pv->peers_optional, k->pv->npeers_optional, k->pn[j]))
        add_edge(&g->optional_deps, &g->noptional_deps, k->pn[j], resv[j]);
      else
        add_edge(&g->deps, &g->ndeps, k->pn[j], resv[j]);
      if (rbusy[j].f)
        add_fixup(r, g, k->pn[j], rbusy[j].f, rbusy[j].i);
    }
    for (size_t s = 0; s < cf.n; s++) {
      const char *ik;
      if (cf.peer[s] || (r->o->pnpm_peers && resolved_peer(k, resv, cf.alias[s])))
        continue; /* (a peer's edge is above) */
      r->busy_hit = false;
      ik = instance(r, &cf, s);
      if (cf.optional[s])
        add_edge(&g->optional_deps, &g->noptional_deps, cf.alias[s], ik);
      else
        add_edge(&g->deps, &g->ndeps, cf.alias[s], ik);
      if (r->busy_hit)
        add_fixup(r, g, cf.alias[s], r->busy_f, r->busy_i);
    }
    for (size_t j = 0; j < k->npn; j++) {
      if (is_peer_of(k, k->pn[j]))
        continue;
      g->transitive_peers = nub_realloc(g->transitive_peers,
                                        sizeof(char *) * (g->ntransitive_peers + 1));
      g->transitive_peers[g->ntransitive_peers++] = nub_strdup(k->pn[j]);
    }
    nub_sort(g->deps, g->ndeps, sizeof(*g->deps), cmp_edge);
    nub_sort(g->optional_deps, g->noptional_deps, sizeof(*g->optional_deps), cmp_edge);
  }
  f->inst[i] = g->key;
  apply_fixups(r, f, i);
  nub_buf_release(&key);
  nub_free(resv);
  nub_free(plain);
  nub_free(rbusy);
  frame_release(&cf);
  f->busy[i] = false;
  r->depth--;
  r->busy_hit = false; /* what the caller gets is a finished key */
  return f->inst[i];
}

static int cmp_direct(const void *a, const void *b)
{
  return strcmp(((const struct nub_gdirect *)a)->alias, ((const struct nub_gdirect *)b)->alias);
}

static void free_namelist(void *v)
{
  struct namelist *nl = v;
  nub_free(nl->v);
  nub_free(nl);
}

static void free_rnode(struct rnode *n)
{
  for (size_t i = 0; i < n->nkids; i++)
    nub_free(n->kids[i].alias);
  nub_free(n->kids);
  nub_strarray_free(n->pn, n->npn);
  nub_free(n->name);
  nub_free(n->version);
  nub_free(n->base);
  nub_free(n->local_dir);
  nub_free(n->local_tarball);
  nub_free(n->tarball_url);
  nub_free(n->git_resolved);
  nub_free(n->local_integrity);
  if (n->has_local_man)
    nub_manifest_release(&n->local_man);
  if (n->own_pv) {
    nub_depmap_release(&n->own_pv->deps);
    nub_depmap_release(&n->own_pv->optional);
    nub_depmap_release(&n->own_pv->peers);
    nub_strarray_free(n->own_pv->peers_optional, n->own_pv->npeers_optional);
    nub_free(n->own_pv);
  }
  nub_free(n->ext_applied);
  nub_free(n);
}

static bool peer_is_optional(const struct nub_manifest *man, const char *name)
{
  return nub_strarray_has(man->peers_optional, man->npeers_optional, name);
}

/* An importer's direct dependencies, queued: dependencies and
 * optionalDependencies, then devDependencies; a name in two maps counts
 * once (npm's precedence). */
/* A project edge's kind that is no dependency of the importer's: an
 * optional peer in its scope (pnpm_peers). */
#define ROOT_HIDDEN 3

/* The ranges an importer's packages ask for an optional peer with that
 * is missing for them, name -> list: a package whose parent (the importer
 * for its direct dependencies) has no dependency of that name. (pnpm counts
 * what no ancestor provides; nub looks one level up.) */
struct missing {
  struct nub_strmap ranges; /* name -> struct nub_depmap (range list: name = range) */
  char **names;
  size_t n, cap;
};

static void missing_add(struct missing *m, const char *x, const char *range)
{
  struct nub_depmap *l = nub_strmap_get(&m->ranges, x);

  if (!l) {
    l = nub_calloc(1, sizeof(*l));
    nub_strmap_put(&m->ranges, x, l);
    NUB_GROW(m->names, m->cap, m->n + 1);
    m->names[m->n++] = (char *)x;
  }
  for (size_t i = 0; i < l->n; i++)
    if (!strcmp(l->v[i].name, range))
      return;
  l->v = nub_realloc(l->v, (l->n + 1) * sizeof(*l->v));
  l->v[l->n].name = nub_strdup(range);
  l->v[l->n++].spec = NULL;
}

static void missing_free(void *v)
{
  nub_depmap_release(v);
  nub_free(v);
}

/* c's optional peers that the parent (has: its dependency names) lacks. */
static void missing_of(struct missing *m, const struct rnode *c,
                       bool (*has)(const void *ud, const char *x), const void *ud)
{
  const struct nub_pversion *pv = c->pv;

  for (size_t k = 0; pv && k < pv->npeers_optional; k++) {
    const char *x = pv->peers_optional[k], *range = nub_depmap_get(&pv->peers, x);
    if (nub_valid_pkg_name(x) && !has(ud, x))
      missing_add(m, x, range ? range : "*");
  }
}

static bool node_has(const void *ud, const char *x)
{
  return has_dep_kid(ud, x);
}

static bool importer_has(const void *ud, const char *x)
{
  const struct nub_manifest *man = ud;
  return nub_depmap_get(&man->deps, x) || nub_depmap_get(&man->dev, x) ||
         nub_depmap_get(&man->optional, x) || nub_depmap_get(&man->peer, x);
}

/* pnpm's getHoistableOptionalPeers, importer by importer: for each
 * optional peer missing in its packages, the highest version that every
 * such range (and the workspace root's own range for it) allows among those
 * this resolution met (or, when it met none, those the previous lockfile
 * has), is put in the importer's scope (not among its dependencies: the
 * lockfile's importers do not list it), where those packages find it.
 * Queued as hidden project edges; 1 when any was. */
static int queue_optional_peers(struct res *r)
{
  const struct nub_graph *prev = r->o->previous;
  const struct nub_manifest *root = r->imps[0].man;
  bool *seen = nub_calloc(r->nall + 1, sizeof(bool));
  size_t *stack = nub_calloc(r->nall + 1, sizeof(size_t)), nall = r->nall;
  int queued = 0;

  for (size_t imp = 0; imp < r->nimps; imp++) {
    const struct nub_manifest *man = r->imps[imp].man;
    struct missing m;
    size_t sp = 0;
    memset(&m, 0, sizeof(m));
    memset(seen, 0, (nall + 1) * sizeof(bool));
    for (size_t i = 0; i < r->nroots; i++) {
      struct rnode *d = r->roots[i].to;
      if (r->roots[i].imp != imp || !d || seen[d->idx])
        continue;
      missing_of(&m, d, importer_has, man);
      seen[d->idx] = true;
      stack[sp++] = d->idx;
    }
    while (sp) {
      struct rnode *p = r->all[stack[--sp]];
      for (size_t k = 0; k < p->nkids; k++) {
        struct rnode *c = p->kids[k].to;
        if (p->kids[k].peer)
          continue;
        missing_of(&m, c, node_has, p);
        if (!seen[c->idx]) {
          seen[c->idx] = true;
          stack[sp++] = c->idx;
        }
      }
    }
    for (size_t i = 0; i < m.n; i++) {
      const char *x = m.names[i], *best = NULL, *rootrange = NULL;
      const struct nub_depmap *ranges = nub_strmap_get(&m.ranges, x);
      struct namelist *nl = nub_strmap_get(&r->byname, x);
      struct nub_version bv;
      size_t ncand = nl && nl->n ? nl->n : prev ? prev->npkgs : 0;
      bool hoisted = false;
      for (size_t h = 0; h < r->nroots && !hoisted; h++)
        hoisted = r->roots[h].imp == imp && !strcmp(r->roots[h].alias, x);
      if (importer_has(man, x) || hoisted)
        continue;
      if (imp) {
        rootrange = nub_depmap_get(&root->deps, x);
        if (!rootrange)
          rootrange = nub_depmap_get(&root->dev, x);
        if (rootrange && !strncmp(rootrange, "catalog:", 8)) {
          const char *cn = rootrange[8] ? rootrange + 8 : "default";
          const struct nub_workspace *ws = r->o->ws;
          const struct nub_catalog *cat =
              ws ? nub_catalog_find(ws->catalogs, ws->ncatalogs, cn)
                 : nub_catalog_find(root->catalogs, root->ncatalogs, cn);
          rootrange = cat ? nub_depmap_get(&cat->deps, x) : NULL;
        }
        if (rootrange && (!strncmp(rootrange, "catalog:", 8) ||
                          !strncmp(rootrange, "workspace:", 10) || !strncmp(rootrange, "npm:", 4)))
          rootrange = NULL;
      }
      memset(&bv, 0, sizeof(bv));
      for (size_t c = 0; c < ncand; c++) {
        const char *ver;
        struct nub_version v;
        bool all = true;
        if (nl && nl->n)
          ver = nl->v[c]->pv ? nl->v[c]->version : NULL;
        else {
          const struct nub_gpkg *g = prev->pkgs[c];
          ver = !strcmp(g->name, x) && !g->tarball && !g->directory ? g->version : NULL;
        }
        if (!ver)
          continue;
        for (size_t j = 0; all && j < ranges->n; j++)
          all = nub_semver_satisfies(ranges->v[j].name, ver, false) == 1;
        if (all && rootrange)
          all = nub_semver_satisfies(rootrange, ver, false) == 1;
        if (!all || nub_version_parse(&v, ver) < 0)
          continue;
        if (!best || nub_version_cmp(&v, &bv) > 0) {
          nub_version_release(&bv);
          bv = v;
          best = ver;
        } else
          nub_version_release(&v);
      }
      nub_version_release(&bv);
      nub_diag_debugf("optional peer %s in %s: %s", x, r->imps[imp].path,
                      best ? best : "none in the graph");
      if (!best)
        continue;
      push(r, NULL, x, best, true, false, ROOT_HIDDEN);
      r->q[(r->qhead + r->qlen - 1) % r->qcap].imp = imp;
      r->src->want(r->src->ud, x);
      queued = 1;
    }
    nub_strmap_release(&m.ranges, missing_free);
    nub_free(m.names);
  }
  nub_free(seen);
  nub_free(stack);
  return queued;
}

static void queue_importer(struct res *r, size_t imp)
{
  const struct nub_manifest *man = r->imps[imp].man;
  const struct nub_depmap *maps[3] = {&man->deps, &man->dev, &man->optional};

  for (int k = 0; k < 3; k++) {
    int order[3] = {0, 2, 1};
    int kind = order[k];
    const struct nub_depmap *m = maps[kind];
    struct nub_dep *sorted = nub_malloc(sizeof(*sorted) * (m->n + 1));
    if (m->n)
      memcpy(sorted, m->v, sizeof(*sorted) * m->n);
    nub_sort(sorted, m->n, sizeof(*sorted), cmp_dep);
    for (size_t i = 0; i < m->n; i++) {
      if (kind == 1 && (nub_depmap_get(&man->deps, sorted[i].name) ||
                        nub_depmap_get(&man->optional, sorted[i].name)))
        continue;
      if (kind == 0 && nub_depmap_get(&man->optional, sorted[i].name))
        continue;
      push(r, NULL, sorted[i].name, sorted[i].spec, kind == 2, false, kind);
      r->q[(r->qhead + r->qlen - 1) % r->qcap].imp = imp;
      if (strncmp(sorted[i].spec, "link:", 5) && strncmp(sorted[i].spec, "file:", 5) &&
          strncmp(sorted[i].spec, "workspace:", 10)) {
        char nm[512];
        const char *rg;
        r->src->want(r->src->ud,
                      nub_spec_npm_alias(sorted[i].spec, nm, sizeof(nm), &rg) ? nm
                                                                               : sorted[i].name);
      }
    }
    nub_free(sorted);
  }
  for (size_t i = 0; (r->o->importer_peers & (imp ? NUB_PEERS_MEMBERS : NUB_PEERS_ROOT)) &&
                     i < man->peer.n; i++) {
    const char *nm = man->peer.v[i].name, *spec = man->peer.v[i].spec;
    if (nub_depmap_get(&man->deps, nm) || nub_depmap_get(&man->dev, nm) ||
        nub_depmap_get(&man->optional, nm))
      continue;
    if (!(r->o->importer_peers & NUB_PEERS_OPTIONAL) && peer_is_optional(man, nm))
      continue;
    push(r, NULL, nm, spec, false, true, 0); /* (peer: importer_spec) */
    r->q[(r->qhead + r->qlen - 1) % r->qcap].imp = imp;
    if (strncmp(spec, "link:", 5) && strncmp(spec, "file:", 5) && strncmp(spec, "workspace:", 10))
      r->src->want(r->src->ud, nm);
  }
}

/* "<alias>@link:<path from the root>" for importer imp's link to rel: how
 * a peer met by a workspace folder is named (kept until the resolver ends). */
static const char *link_id(struct res *r, size_t imp, const char *alias, const char *rel)
{
  char *to = nub_asprintf("%s/%s", r->imps[imp].abs, rel), path[4096];
  const char *id;

  if (nub_path_relative(r->imps[0].abs, to, path, sizeof(path)) < 0)
    snprintf(path, sizeof(path), "%s", rel);
  nub_free(to);
  NUB_GROW(r->linkids, r->caplinkids, r->nlinkids + 1);
  id = r->linkids[r->nlinkids++] = nub_asprintf("%s@link:%s", alias, path);
  return id;
}

/* Phase 2 for one importer: its direct dependencies' dependency paths. */
static void finish_importer(struct res *r, size_t imp, struct nub_importer *im)
{
  struct frame root;
  size_t n = 0;
  size_t *idx = nub_calloc(r->nroots + 1, sizeof(size_t));

  for (size_t i = 0; i < r->nroots; i++)
    if (r->roots[i].imp == imp)
      idx[n++] = i;
  frame_init(&root, NULL, NULL, n);
  for (size_t j = 0; j < n; j++) {
    const struct rootedge *e = &r->roots[idx[j]];
    root.alias[j] = e->alias;
    root.to[j] = e->to;
    if (!e->to && e->link && !strncmp(e->link, "link:", 5))
      root.link[j] = link_id(r, imp, e->alias, e->link + 5);
  }

  im->path = nub_strdup(r->imps[imp].path);
  for (size_t j = 0; j < n; j++) {
    const struct rootedge *e = &r->roots[idx[j]];
    struct nub_gdirect **v = e->kind == 1 ? &im->dev : e->kind == 2 ? &im->optional : &im->deps;
    size_t *nv = e->kind == 1 ? &im->ndev : e->kind == 2 ? &im->noptional : &im->ndeps;
    const char *key;
    if (e->kind == ROOT_HIDDEN)
      continue; /* in scope (found by lookup), not the importer's own */
    key = e->to ? instance(r, &root, j) : NULL;
    *v = nub_realloc(*v, sizeof(**v) * (*nv + 1));
    (*v)[*nv].alias = nub_strdup(e->alias);
    (*v)[*nv].specifier = nub_strdup(e->spec);
    (*v)[*nv].ref = key ? ref_of(e->alias, key) : nub_strdup(e->link);
    if (e->catalog_range && key) { /* pnpm's catalogs: the version without peers */
      const char *ref = (*v)[*nv].ref;
      char *ver = nub_strndup(ref, strcspn(ref, "("));
      nub_graph_add_catalog(r->g, e->spec[8] ? e->spec + 8 : "default", e->alias,
                            e->catalog_range, ver);
      nub_free(ver);
    }
    (*nv)++;
  }
  nub_sort(im->deps, im->ndeps, sizeof(*im->deps), cmp_direct);
  nub_sort(im->dev, im->ndev, sizeof(*im->dev), cmp_direct);
  nub_sort(im->optional, im->noptional, sizeof(*im->optional), cmp_direct);
  frame_release(&root);
  nub_free(idx);
}

/* The second phase goes down the graph depth first (instance), one call
 * per level: it runs on a thread whose stack holds NUB_RESOLVE_MAX_DEPTH
 * levels, whatever the caller's stack is (a sanitizer's frames are some
 * ten times a release build's 300 bytes). */
#define PHASE2_STACK ((size_t)128 << 20)

static void *instances(void *ud)
{
  struct res *r = ud;

  for (size_t i = 0; i < r->nimps; i++)
    finish_importer(r, i, &r->g->importers[i]);
  return NULL;
}

static int run_instances(struct res *r)
{
  pthread_attr_t attr;
  pthread_t t;
  int rc;

  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, PHASE2_STACK);
  rc = pthread_create(&t, &attr, instances, r);
  pthread_attr_destroy(&attr);
  if (rc != 0)
    return nub_err_set(r->err, -rc, "cannot start the resolver's thread: %s",
                       nub_strerror(-rc));
  pthread_join(t, NULL);
  return 0;
}

int nub_resolve(struct nub_graph *out, const struct nub_manifest *man, const struct nub_source *src,
                const struct nub_resolve_opts *o, struct nub_err *err)
{
  struct res r;
  int rc;
  size_t before;

  memset(&r, 0, sizeof(r));
  r.man = man;
  r.src = src;
  r.o = o;
  r.err = err;
  r.g = out;
  r.nimps = 1 + (o->ws ? o->ws->npkgs : 0);
  r.imps = nub_calloc(r.nimps, sizeof(*r.imps));
  r.imps[0].path = ".";
  r.imps[0].abs = nub_strdup(o->project_dir);
  r.imps[0].man = man;
  for (size_t i = 1; i < r.nimps; i++) {
    r.imps[i].path = o->ws->pkgs[i - 1].dir;
    r.imps[i].abs = nub_asprintf("%s/%s", o->project_dir, o->ws->pkgs[i - 1].dir);
    r.imps[i].man = &o->ws->pkgs[i - 1].man;
  }
  if (o->overrides && o->overrides->n) {
    /* recorded in the lockfile, so a change of them is a change of inputs */
    out->overrides.v = nub_calloc(o->overrides->n, sizeof(*out->overrides.v));
    for (size_t i = 0; i < o->overrides->n; i++) {
      out->overrides.v[i].name = nub_strdup(o->overrides->v[i].name);
      out->overrides.v[i].spec = nub_strdup(o->overrides->v[i].spec);
    }
    out->overrides.n = o->overrides->n;
  }
  for (size_t i = 0; i < r.nimps; i++)
    queue_importer(&r, i);
  rc = run_queue(&r);
  before = 0;
  out->auto_install_peers = !o->no_auto_peers;
  while (rc == 0 && !o->no_auto_peers) {
    size_t n = r.nall;
    queue_peers(&r, before);
    before = n;
    if (!r.qlen)
      break;
    rc = run_queue(&r);
    if (r.nall == n && !r.qlen)
      break;
  }
  /* (what a hoisted peer brings can miss optional peers in its turn) */
  for (int round = 0; rc == 0 && o->pnpm_peers && !o->no_auto_peers && round < 8 &&
                      queue_optional_peers(&r); round++) {
    size_t n = r.nall;
    rc = run_queue(&r);
    for (size_t i = n; i < r.nall; i++)
      r.all[i]->afresh = true;
    while (rc == 0 && !o->no_auto_peers) { /* the new packages' own peers */
      size_t m = r.nall;
      queue_peers(&r, n);
      n = m;
      if (!r.qlen)
        break;
      rc = run_queue(&r);
      for (size_t i = m; i < r.nall; i++)
        r.all[i]->afresh = true;
    }
  }
  if (rc == 0) {
    compute_open_peers(&r);
    out->importers = nub_calloc(r.nimps, sizeof(*out->importers));
    out->nimporters = r.nimps;
    rc = run_instances(&r);
    if (rc == 0 && r.too_deep)
      rc = nub_err_set(err, -NUB_ELIMIT,
                       "the dependency chain through %s is more than %d packages deep; "
                       "refusing to install a part of it", r.too_deep->base,
                       NUB_RESOLVE_MAX_DEPTH);
    if (rc == 0)
      nub_graph_mark_optional(out);
  }
  /* cleanup */
  while (r.qlen) {
    nub_free(r.q[r.qhead].alias);
    nub_free(r.q[r.qhead].spec);
    r.qhead = (r.qhead + 1) % r.qcap;
    r.qlen--;
  }
  nub_free(r.q);
  for (size_t i = 0; i < r.nroots; i++) {
    nub_free(r.roots[i].alias);
    nub_free(r.roots[i].spec);
    nub_free(r.roots[i].link);
  }
  nub_free(r.roots);
  for (size_t i = 0; i < r.nimps; i++)
    nub_free(r.imps[i].abs);
  nub_free(r.imps);
  for (size_t i = 0; i < r.nall; i++)
    free_rnode(r.all[i]);
  nub_free(r.all);
  nub_strmap_release(&r.nodes, NULL);
  nub_strmap_release(&r.byname, free_namelist);
  nub_strmap_release(&r.memo, NULL);
  for (size_t i = 0; i < r.nlinkids; i++)
    nub_free(r.linkids[i]);
  nub_free(r.linkids);
  nub_strmap_release(&r.prev_by_pkg, NULL);
  nub_strmap_release(&r.prev_patterns, nub_free);
  for (size_t i = 0; i < r.nfix; i++)
    nub_free(r.fix[i].alias);
  nub_free(r.fix);
  return rc;
}
