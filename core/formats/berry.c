/* berry.c - yarn berry's packages from its lockfile, their peer
 * dependencies resolved into instances, as the graph its node_modules
 * linker hoists (hoist_berry.c). See berry.h for the rules. */
#include "berry.h"
#include "workspace.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nub_alloc.h"
#include "path.h"
#include "semver.h"
#include "strmap.h"

/* The package extensions yarn ships (generated from @yarnpkg/extensions). */
#include "berry_compat_data.h"

/* ---- the model ------------------------------------------------------------- */

struct bpkg;

/* A descriptor (a name and a range) and the package it resolves to. A
 * descriptor is shared by every dependency that names it, so that merging
 * two instances redirects all of them at once. */
struct bdesc {
  char *name, *range;
  struct bpkg *res;  /* NULL: missing (a peer nothing provides) */
  bool missing;
};

struct bdep {
  const char *name; /* the descriptor's */
  struct bdesc *d;
};

struct bpeer {
  char *name, *range;
};

struct bpkg {
  size_t id;
  char *name, *reference;
  char *ident;       /* name@reference of the package an instance instantiates */
  const struct nub_berry_entry *entry; /* NULL: a workspace */
  long ws;
  struct bpkg *base; /* an instance's package */
  const char *version, *conditions;
  char *location;    /* link:/portal: a folder of the project's (from its root) */
  bool soft;
  struct bdep *deps;
  size_t ndeps, capdeps;
  struct bpeer *peers;
  size_t npeers;
  char **opt_peers;  /* peerDependenciesMeta optional */
  size_t nopt_peers, capopt;
  char **dep_optional; /* dependenciesMeta optional */
  size_t ndep_optional;
  bool alive;        /* among the project's packages (not merged away) */
  bool accessible;   /* reached by the peer walk */
  bool optional_only;/* reached only through optional dependencies so far */
  bool disabled;     /* conditions rule out this machine */
  /* merging: the descriptors that resolve to it, and the instances one of
   * whose peers it provides */
  struct bdesc **resolved_by;
  size_t nresolved_by, capresolved;
  struct bpkg **peer_users;
  size_t npeer_users, cappeer;
  long pnode;
  bool queued;       /* in the merge queue */
};

struct berry {
  const struct nub_berry_lock *l;
  const struct nub_berry_ws *ws;
  size_t nws;
  const struct nub_berry_opts *o;
  struct nub_err *err;
  struct bpkg **pkgs;    /* every package and instance, by id */
  size_t npkgs, cappkgs;
  struct bdesc **descs;  /* every descriptor, for freeing */
  size_t ndescs, capdescs;
  struct nub_strmap desc_by_key;  /* "name@range" -> bdesc (non-instance ones) */
  struct nub_strmap pkg_by_locator;
  struct nub_strmap merged;       /* instance fingerprint -> bpkg */
  struct nub_strmap ext_names;    /* names some package extension is for */
  struct bpkg **wspkgs;           /* each workspace's package */
  struct bpkg **wscopies;         /* its pristine copy, which instances start from */
  struct bpkg *top;               /* the workspace a walk starts at */
};

/* What to do about a lockfile that no longer answers package.json. */
#define STALE                                                                     \
  "run yarn install (yarn add, yarn remove) to update it: nub does not write yarn berry's " \
  "lockfile"

/* ---- small helpers ----------------------------------------------------------- */

static struct bpkg *pkg_new(struct berry *b)
{
  struct bpkg *p = nub_calloc(1, sizeof(*p));

  p->id = b->npkgs;
  p->ws = -1;
  p->pnode = -1;
  p->alive = true;
  p->optional_only = true;
  NUB_GROW(b->pkgs, b->cappkgs, b->npkgs + 1);
  b->pkgs[b->npkgs++] = p;
  return p;
}

static void pkg_free(struct bpkg *p)
{
  nub_free(p->location);
  nub_free(p->name);
  nub_free(p->reference);
  nub_free(p->ident);
  nub_free(p->deps);
  for (size_t i = 0; i < p->npeers; i++) {
    nub_free(p->peers[i].name);
    nub_free(p->peers[i].range);
  }
  nub_free(p->peers);
  nub_strarray_free(p->opt_peers, p->nopt_peers);
  nub_strarray_free(p->dep_optional, p->ndep_optional);
  nub_free(p->resolved_by);
  nub_free(p->peer_users);
  nub_free(p);
}

static struct bdesc *desc_new(struct berry *b, const char *name, const char *range)
{
  struct bdesc *d = nub_calloc(1, sizeof(*d));

  d->name = nub_strdup(name);
  d->range = nub_strdup(range);
  NUB_GROW(b->descs, b->capdescs, b->ndescs + 1);
  b->descs[b->ndescs++] = d;
  return d;
}

static void resolves_to(struct bdesc *d, struct bpkg *p)
{
  d->res = p;
  if (p) {
    NUB_GROW(p->resolved_by, p->capresolved, p->nresolved_by + 1);
    p->resolved_by[p->nresolved_by++] = d;
  }
}

static bool has_str(char *const *v, size_t n, const char *s)
{
  for (size_t i = 0; i < n; i++)
    if (!strcmp(v[i], s))
      return true;
  return false;
}

static long dep_index(const struct bpkg *p, const char *name)
{
  for (size_t i = 0; i < p->ndeps; i++)
    if (!strcmp(p->deps[i].name, name))
      return (long)i;
  return -1;
}

static long peer_index(const struct bpkg *p, const char *name)
{
  for (size_t i = 0; i < p->npeers; i++)
    if (!strcmp(p->peers[i].name, name))
      return (long)i;
  return -1;
}

/* Map.set: replace in place, or append. */
static void dep_set(struct bpkg *p, const char *name, struct bdesc *d)
{
  long i = dep_index(p, name);

  if (i >= 0) {
    p->deps[i].d = d;
    p->deps[i].name = d->name;
    return;
  }
  NUB_GROW(p->deps, p->capdeps, p->ndeps + 1);
  p->deps[p->ndeps].name = d->name;
  p->deps[p->ndeps++].d = d;
}

static void dep_delete(struct bpkg *p, const char *name)
{
  long i = dep_index(p, name);

  if (i < 0)
    return;
  memmove(&p->deps[i], &p->deps[i + 1], (p->ndeps - (size_t)i - 1) * sizeof(*p->deps));
  p->ndeps--;
}

static void peer_set(struct bpkg *p, const char *name, const char *range)
{
  if (peer_index(p, name) >= 0)
    return;
  p->peers = nub_realloc(p->peers, (p->npeers + 1) * sizeof(*p->peers));
  p->peers[p->npeers].name = nub_strdup(name);
  p->peers[p->npeers++].range = nub_strdup(range);
}

static void peer_delete(struct bpkg *p, const char *name)
{
  long i = peer_index(p, name);

  if (i < 0)
    return;
  nub_free(p->peers[i].name);
  nub_free(p->peers[i].range);
  memmove(&p->peers[i], &p->peers[i + 1], (p->npeers - (size_t)i - 1) * sizeof(*p->peers));
  p->npeers--;
}

static void opt_peer_add(struct bpkg *p, const char *name)
{
  if (has_str(p->opt_peers, p->nopt_peers, name))
    return;
  NUB_GROW(p->opt_peers, p->capopt, p->nopt_peers + 1);
  p->opt_peers[p->nopt_peers++] = nub_strdup(name);
}

/* berry's normalizeDependency: a semver range or a tag gets "npm:" */
static char *normalise_range(const char *range)
{
  struct nub_range *r = NULL;
  bool semver = !strchr(range, ':') && nub_range_parse(&r, range) == 0;
  bool tag = range[0] && range[0] != 'v' && range[0] != 'V' &&
             strspn(range, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
                 strlen(range);

  nub_range_free(r);
  return semver || tag ? nub_asprintf("npm:%s", range) : nub_strdup(range);
}

/* node-semver's satisfies with includePrerelease, and berry's second try
 * with the version's prerelease left off */
static bool berry_satisfies(const char *version, const char *range)
{
  char *plain;
  bool ok;

  if (!version)
    return false;
  if (nub_semver_satisfies(range, version, true) == 1)
    return true;
  plain = nub_strndup(version, strcspn(version, "-+"));
  ok = strcmp(plain, version) && nub_semver_satisfies(range, plain, true) == 1;
  nub_free(plain);
  return ok;
}

/* "%", ":" and "#" escaped as berry escapes a range's parts */
static void esc_part(char *out, size_t cap, const char *s)
{
  size_t n = 0;

  for (; *s && n + 4 < cap; s++) {
    if (*s == '%' || *s == ':' || *s == '#')
      n += (size_t)snprintf(out + n, cap - n, "%%%02X", (unsigned char)*s);
    else
      out[n++] = *s;
  }
  out[n] = '\0';
}

static bool compat_patched(const char *name)
{
  return !strcmp(name, "typescript") || !strcmp(name, "fsevents") || !strcmp(name, "resolve");
}

bool nub_berry_is_compat_patch(const char *reference)
{
  const char *hash = strchr(reference, '#');

  return !strncmp(reference, "patch:", 6) && hash &&
         !strncmp(hash + 1, "optional!builtin<compat/", 24);
}

/* s with berry's %XX escapes undone (in place). */
static void unescape(char *s)
{
  size_t n = 0;

  for (size_t i = 0; s[i]; i++) {
    if (s[i] == '%' && isxdigit((unsigned char)s[i + 1]) && isxdigit((unsigned char)s[i + 2])) {
      char hex[3] = {s[i + 1], s[i + 2], 0};
      s[n++] = (char)strtol(hex, NULL, 16);
      i += 2;
    } else
      s[n++] = s[i];
  }
  s[n] = '\0';
}

char *nub_berry_unpatched(const char *reference)
{
  const char *hash, *at;
  char *src, *out;

  if (strncmp(reference, "patch:", 6) || !(hash = strchr(reference, '#')))
    return NULL;
  src = nub_strndup(reference + 6, (size_t)(hash - reference - 6));
  unescape(src);
  at = strchr(src[0] == '@' ? src + 1 : src, '@');
  out = at ? nub_strdup(at + 1) : NULL;
  nub_free(src);
  return out;
}

char *nub_berry_patch_file(const char *reference)
{
  const char *hash = strchr(reference, '#'), *params, *loc;
  char *path, *dir = NULL, *out = NULL, norm[4096];

  if (strncmp(reference, "patch:", 6) || !hash || nub_berry_is_compat_patch(reference))
    return NULL;
  params = strstr(hash, "::");
  path = nub_strndup(hash + 1, params ? (size_t)(params - hash - 1) : strlen(hash + 1));
  unescape(path);
  if (!strncmp(path, "optional!", 9))
    memmove(path, path + 9, strlen(path + 9) + 1);
  if (strchr(path, '&') || !strncmp(path, "builtin<", 8)) { /* several patches: not yet */
    nub_free(path);
    return NULL;
  }
  if (!strncmp(path, "~/", 2)) {
    out = nub_strdup(path + 2);
  } else if (params && (loc = strstr(params, "locator="))) {
    /* relative to the workspace that asked for it: "<name>@workspace:<dir>" */
    const char *end = strchr(loc, '&'), *ws;
    char *l = end ? nub_strndup(loc + 8, (size_t)(end - loc - 8)) : nub_strdup(loc + 8);
    unescape(l);
    if ((ws = strstr(l, "@workspace:")))
      dir = nub_strdup(ws + 11);
    nub_free(l);
    if (dir)
      out = !strcmp(dir, ".") ? nub_strdup(path) : nub_asprintf("%s/%s", dir, path);
  }
  if (out && nub_path_normalize(out, norm, sizeof(norm)) >= 0) {
    nub_free(out);
    out = nub_strdup(norm);
  } else {
    nub_free(out);
    out = NULL;
  }
  nub_free(dir);
  nub_free(path);
  return out;
}

/* ---- finding what a descriptor resolves to -------------------------------- */

static struct bpkg *pkg_for_entry(struct berry *b, const struct nub_berry_entry *e);

/* The lockfile entry for name@range: the compat patch's descriptor first
 * (berry wraps those names in it before resolving), then the descriptor
 * itself, then one bound to a parent (file:, link:, portal: ranges carry
 * "::locator=<parent>"). */
static const struct nub_berry_entry *lookup(struct berry *b, const char *name,
                                            const char *range, char **key_out)
{
  const struct nub_berry_entry *e;
  char *key;

  if (compat_patched(name) && strncmp(range, "patch:", 6)) {
    char src[1024], *inner = nub_asprintf("%s@%s", name, range);
    esc_part(src, sizeof(src), inner);
    nub_free(inner);
    key = nub_asprintf("%s@patch:%s#optional!builtin<compat/%s>", name, src, name);
    if ((e = nub_strmap_get(&b->l->by_descriptor, key))) {
      *key_out = key;
      return e;
    }
    nub_free(key);
  }
  key = nub_asprintf("%s@%s", name, range);
  if ((e = nub_strmap_get(&b->l->by_descriptor, key))) {
    *key_out = key;
    return e;
  }
  if (!strncmp(range, "file:", 5) || !strncmp(range, "link:", 5) ||
      !strncmp(range, "portal:", 7) || !strncmp(range, "patch:", 6)) {
    size_t kl = strlen(key);
    for (size_t i = 0; i < b->l->by_descriptor.cap; i++) {
      const char *k = b->l->by_descriptor.slots[i].key;
      if (k && !strncmp(k, key, kl) && !strncmp(k + kl, "::", 2)) {
        nub_free(key);
        *key_out = nub_strdup(k);
        return b->l->by_descriptor.slots[i].val;
      }
    }
  }
  nub_free(key);
  *key_out = NULL;
  return NULL;
}

/* The patch: that package.json's resolutions give name under any key form
 * berry reads ("name", "name@range", "parent/name"), or NULL. */
static const char *patch_resolution(const struct berry *b, const char *name)
{
  const struct nub_depmap *r = b->o->resolutions;
  size_t nl = strlen(name);

  for (size_t i = 0; r && i < r->n; i++) {
    const char *k = r->v[i].name, *gt = strrchr(k, '>');
    const char *last = gt ? gt + 1 : k;
    if (!strncmp(r->v[i].spec, "patch:", 6) && !strncmp(last, name, nl) &&
        (last[nl] == '\0' || last[nl] == '@'))
      return r->v[i].spec;
  }
  return NULL;
}

/* The shared descriptor for name@range, resolved. */
static int resolve_dep(struct berry *b, struct bpkg *from, const char *name, const char *range,
                       struct bdesc **out)
{
  const struct nub_berry_entry *e;
  struct bdesc *d;
  char *key = NULL;

  e = lookup(b, name, range, &key);
  if (!e) {
    const char *patch = patch_resolution(b, name);
    if (patch)
      return nub_err_set(b->err, -NUB_ESPEC,
                         "package.json's resolutions patch %s (%s), which yarn.lock does "
                         "not resolve; " STALE, name, patch);
    if (from->ws >= 0)
      return nub_err_set(b->err, -NUB_EOUTDATED,
                         "yarn.lock does not resolve %s@%s, which %s/package.json asks for; "
                         STALE,
                         name, range, b->ws[from->ws].dir[0] ? b->ws[from->ws].dir : ".");
    return nub_err_set(b->err, -NUB_ELOCKFILE,
                       "yarn.lock:%d: %s depends on %s@%s, which no entry resolves; run "
                       "yarn install to repair the lockfile",
                       from->entry ? from->entry->line : 0, from->ident, name, range);
  }
  d = nub_strmap_get(&b->desc_by_key, key);
  if (!d) {
    struct bpkg *p = pkg_for_entry(b, e);
    if (!p) {
      nub_free(key);
      return b->err->code;
    }
    d = desc_new(b, name, key + strlen(name) + 1);
    resolves_to(d, p);
    nub_strmap_put(&b->desc_by_key, key, d);
  }
  nub_free(key);
  *out = d;
  return 0;
}

/* ---- packages as berry prepares them ------------------------------------- */

/* strcmp of "n1@r1" and "n2@r2", without building them */
static int cmp_concat(const char *n1, const char *r1, const char *n2, const char *r2)
{
  const char *a[3] = {n1, "@", r1}, *c[3] = {n2, "@", r2};
  int i = 0, k = 0;

  for (;;) {
    unsigned char x, y;
    while (i < 3 && !*a[i])
      i++;
    while (k < 3 && !*c[k])
      k++;
    x = i < 3 ? (unsigned char)*a[i] : 0;
    y = k < 3 ? (unsigned char)*c[k] : 0;
    if (x != y || !x)
      return x < y ? -1 : x > y;
    a[i]++;
    c[k]++;
  }
}

static int cmp_dep_desc(const void *x, const void *y)
{
  const struct bdep *a = x, *c = y;

  return cmp_concat(a->d->name, a->d->range, c->d->name, c->d->range);
}

static int cmp_peer_desc(const void *x, const void *y)
{
  const struct bpeer *a = x, *c = y;

  return cmp_concat(a->name, a->range, c->name, c->range);
}

static int cmp_dep_name(const void *x, const void *y)
{
  return strcmp(((const struct bdep *)x)->name, ((const struct bdep *)y)->name);
}

/* A dependency as written (not yet resolved): the descriptor's parts. */
struct raw {
  char *name, *range;
};

void nub_compat_pkg_exts(struct nub_pkg_ext **v, size_t *n)
{
  const size_t nrows = sizeof(nub_compat_rows) / sizeof(nub_compat_rows[0]);

  for (size_t i = 0; i < nrows; i++) {
    const struct nub_compat_row *r = &nub_compat_rows[i];
    struct nub_pkg_ext *e;
    struct nub_depmap *m;
    char *name;
    const char *range;
    if (!nub_berry_split(r->selector, &name, &range)) {
      nub_free(name);
      continue;
    }
    if (i && !strcmp(r->selector, nub_compat_rows[i - 1].selector) && *n) {
      e = &(*v)[*n - 1]; /* the same selector's next row */
      nub_free(name);
    } else {
      *v = nub_realloc(*v, (*n + 1) * sizeof(**v));
      e = &(*v)[(*n)++];
      memset(e, 0, sizeof(*e));
      e->name = name;
      e->range = nub_strdup(range && *range ? range : "*");
    }
    if (r->kind == 'm') {
      if (!strcmp(r->value, "optional")) {
        e->peers_optional = nub_realloc(e->peers_optional,
                                        (e->npeers_optional + 1) * sizeof(char *));
        e->peers_optional[e->npeers_optional++] = nub_strdup(r->name);
      }
      continue;
    }
    m = r->kind == 'd' ? &e->deps : &e->peers;
    m->v = nub_realloc(m->v, (m->n + 1) * sizeof(*m->v));
    m->v[m->n].name = nub_strdup(r->name);
    m->v[m->n++].spec = nub_strdup(r->value);
  }
}

/* The package extensions for p, the table's then the project's. */
static void apply_extensions(struct berry *b, struct bpkg *p, struct raw **deps, size_t *ndeps)
{
  const struct nub_compat_row *tabs[2] = {nub_compat_rows, b->o->exts};
  size_t ns[2] = {sizeof(nub_compat_rows) / sizeof(nub_compat_rows[0]), b->o->nexts};

  if (!p->version)
    return;
  if (!b->ext_names.n) {
    /* the names the extensions are for, read once */
    for (int t = 0; t < 2; t++)
      for (size_t i = 0; i < ns[t]; i++) {
        char *sname;
        const char *srange;
        if (nub_berry_split(tabs[t][i].selector, &sname, &srange))
          nub_strmap_put(&b->ext_names, sname, (void *)1);
        nub_free(sname);
      }
  }
  if (!nub_strmap_get(&b->ext_names, p->name))
    return;
  for (int t = 0; t < 2; t++) {
    for (size_t i = 0; i < ns[t]; i++) {
      const struct nub_compat_row *r = &tabs[t][i];
      char *sname;
      const char *srange;
      bool match;
      if (!nub_berry_split(r->selector, &sname, &srange))
        continue;
      match = !strcmp(sname, p->name) && berry_satisfies(p->version, srange);
      nub_free(sname);
      if (!match)
        continue;
      if (r->kind == 'd') {
        bool have = false;
        for (size_t k = 0; k < *ndeps && !have; k++)
          have = !strcmp((*deps)[k].name, r->name);
        if (!have) {
          *deps = nub_realloc(*deps, (*ndeps + 1) * sizeof(**deps));
          (*deps)[*ndeps].name = nub_strdup(r->name);
          (*deps)[(*ndeps)++].range = normalise_range(r->value);
        }
      } else if (r->kind == 'p') {
        peer_set(p, r->name, r->value);
      } else if (r->kind == 'm' && !strcmp(r->value, "optional")) {
        opt_peer_add(p, r->name);
      }
    }
  }
}

/* berry's normalizePackage and the dependency hooks, then each dependency
 * resolved. raw: the dependencies as written (taken over). */
static int prepare(struct berry *b, struct bpkg *p, struct raw *raw, size_t nraw)
{
  int rc = 0;

  apply_extensions(b, p, &raw, &nraw);
  /* a peer that only has a meta entry is a peer on anything */
  for (size_t i = 0; i < p->nopt_peers; i++)
    peer_set(p, p->opt_peers[i], "*");
  /* each peer gets an optional peer on its types */
  for (size_t i = 0, n = p->npeers; i < n; i++) {
    const char *pn = p->peers[i].name;
    char *types;
    bool have_dep = false;
    if (!strncmp(pn, "@types/", 7))
      continue;
    if (pn[0] == '@') {
      const char *slash = strchr(pn, '/');
      types = slash ? nub_asprintf("@types/%.*s__%s", (int)(slash - pn - 1), pn + 1, slash + 1)
                    : nub_asprintf("@types/%s", pn + 1);
    } else
      types = nub_asprintf("@types/%s", pn);
    for (size_t k = 0; k < nraw && !have_dep; k++)
      have_dep = !strcmp(raw[k].name, types);
    if (peer_index(p, types) < 0 && !has_str(p->opt_peers, p->nopt_peers, types) && !have_dep) {
      peer_set(p, types, "*");
      opt_peer_add(p, types);
    }
    nub_free(types);
  }
  nub_sort(p->peers, p->npeers, sizeof(*p->peers), cmp_peer_desc);
  /* sorted by "name@range" as written, then each resolved */
  p->deps = nub_calloc(nraw + 1, sizeof(*p->deps));
  p->capdeps = nraw + 1;
  for (size_t i = 0; i < nraw && rc == 0; i++) {
    struct bdesc *tmp = desc_new(b, raw[i].name, raw[i].range);
    p->deps[p->ndeps].name = tmp->name;
    p->deps[p->ndeps++].d = tmp;
  }
  nub_sort(p->deps, p->ndeps, sizeof(*p->deps), cmp_dep_desc);
  for (size_t i = 0; i < p->ndeps && rc == 0; i++) {
    const char *name = p->deps[i].d->name, *range = p->deps[i].d->range;
    const char *ov = NULL;
    struct bdesc *d;
    /* the root's resolutions: "parent>name" first, then "name@range" (the
     * range as written, or without its "npm:"), then "name" */
    if (b->o->resolutions) {
      char *k = nub_asprintf("%s>%s", p->name, name);
      ov = nub_depmap_get(b->o->resolutions, k);
      nub_free(k);
      if (!ov) {
        k = nub_asprintf("%s@%s", name, range);
        ov = nub_depmap_get(b->o->resolutions, k);
        nub_free(k);
      }
      if (!ov && !strncmp(range, "npm:", 4)) {
        k = nub_asprintf("%s@%s", name, range + 4);
        ov = nub_depmap_get(b->o->resolutions, k);
        nub_free(k);
      }
      if (!ov)
        ov = nub_depmap_get(b->o->resolutions, name);
    }
    if (ov) {
      char *nr = normalise_range(ov);
      rc = resolve_dep(b, p, name, nr, &d);
      nub_free(nr);
    } else
      rc = resolve_dep(b, p, name, range, &d);
    if (rc == 0) {
      p->deps[i].d = d;
      p->deps[i].name = d->name;
    }
  }
  for (size_t i = 0; i < nraw; i++) {
    nub_free(raw[i].name);
    nub_free(raw[i].range);
  }
  nub_free(raw);
  return rc;
}

/* What nub can install of a lockfile entry: the registry's packages,
 * berry's compat patches of them, workspaces and links. */
static int check_supported(struct berry *b, const struct nub_berry_entry *e)
{
  const char *r = e->reference;
  char *un;

  if (!strncmp(r, "npm:", 4) || !strncmp(r, "workspace:", 10) || !strncmp(r, "link:", 5) ||
      !strncmp(r, "portal:", 7))
    return 0;
  if ((un = nub_berry_unpatched(r))) {
    char *file = nub_berry_is_compat_patch(r) ? NULL : nub_berry_patch_file(r);
    bool ok = !strncmp(un, "npm:", 4) && (nub_berry_is_compat_patch(r) || file);
    nub_free(un);
    nub_free(file);
    if (ok)
      return 0;
  }
  if (!strncmp(r, "patch:", 6))
    return nub_err_set(b->err, -NUB_ESPEC,
                       "yarn.lock:%d: %s is patched (%s): nub applies one patch file of the "
                       "project to a registry package, not this: install this project with "
                       "yarn", e->line, e->name, r);
  return nub_err_set(b->err, -NUB_ESPEC,
                     "yarn.lock:%d: %s comes from '%s'; from a yarn berry lockfile nub installs "
                     "registry packages, workspaces and link:/portal: folders only: install "
                     "this project with yarn",
                     e->line, e->name, r);
}

static long ws_of_entry(struct berry *b, const struct nub_berry_entry *e)
{
  const char *dir;

  if (strncmp(e->reference, "workspace:", 10))
    return -1;
  dir = e->reference + 10;
  if (!strcmp(dir, "."))
    dir = "";
  for (size_t i = 0; i < b->nws; i++)
    if (!strcmp(b->ws[i].dir, dir))
      return (long)i;
  return -2;
}

/* Where a link: or portal: reference points, from the project's root: its
 * path is relative to the workspace it is bound to ("::locator=<name>%40
 * workspace%3A<dir>"). NULL when it leaves the project. */
static char *soft_location(struct berry *b, const char *reference)
{
  const char *colon = strchr(reference, ':'), *params;
  const char *base = "";
  char *rel, *out, norm[4096];

  if (!colon)
    return NULL;
  params = strstr(colon + 1, "::");
  rel = params ? nub_strndup(colon + 1, (size_t)(params - colon - 1)) : nub_strdup(colon + 1);
  if (params && (params = strstr(params, "locator="))) {
    const char *ws = strstr(params, "%40workspace%3A");
    if (ws) {
      ws += 15;
      for (size_t i = 0; i < b->nws; i++) {
        size_t dl = strlen(b->ws[i].dir);
        if (dl && !strncmp(ws, b->ws[i].dir, dl) && (ws[dl] == '&' || !ws[dl]))
          base = b->ws[i].dir;
      }
    }
  }
  out = base[0] ? nub_asprintf("%s/%s", base, rel) : nub_strdup(rel);
  nub_free(rel);
  if (nub_path_normalize(out, norm, sizeof(norm)) < 0) {
    nub_free(out);
    return NULL;
  }
  nub_free(out);
  return nub_strdup(norm);
}

static struct bpkg *pkg_for_entry(struct berry *b, const struct nub_berry_entry *e)
{
  struct bpkg *p = nub_strmap_get(&b->pkg_by_locator, e->locator);
  struct raw *raw;
  long ws;

  if (p)
    return p;
  ws = ws_of_entry(b, e);
  if (ws >= 0)
    return b->wspkgs[ws];
  if (ws == -2) {
    nub_err_set(b->err, -NUB_EOUTDATED, "yarn.lock:%d: %s is a workspace at %s, which the "
                "project does not have; " STALE,
                e->line, e->name, e->reference + 10);
    return NULL;
  }
  if (check_supported(b, e) < 0)
    return NULL;
  p = pkg_new(b);
  p->name = nub_strdup(e->name);
  p->reference = nub_strdup(e->reference);
  p->ident = nub_strdup(e->locator);
  p->entry = e;
  p->version = e->version;
  p->conditions = e->conditions;
  p->soft = e->soft;
  if (p->soft)
    p->location = soft_location(b, e->reference);
  nub_strmap_put(&b->pkg_by_locator, e->locator, p);
  for (size_t i = 0; i < e->peers.n; i++)
    peer_set(p, e->peers.v[i].name, e->peers.v[i].spec);
  for (size_t i = 0; i < e->nopt_peers; i++)
    opt_peer_add(p, e->opt_peers[i]);
  if (e->noptional) {
    p->dep_optional = nub_calloc(e->noptional, sizeof(char *));
    for (size_t i = 0; i < e->noptional; i++)
      p->dep_optional[p->ndep_optional++] = nub_strdup(e->optional[i]);
  }
  raw = nub_calloc(e->deps.n + 1, sizeof(*raw));
  for (size_t i = 0; i < e->deps.n; i++) {
    raw[i].name = nub_strdup(e->deps.v[i].name);
    raw[i].range = nub_strdup(e->deps.v[i].spec);
  }
  if (prepare(b, p, raw, e->deps.n) < 0)
    return NULL;
  return p;
}

/* A workspace's package: its dependencies, optional ones (marked) and
 * devDependencies (the later wins a name), normalised. */
static int workspace_pkg(struct berry *b, size_t i)
{
  const struct nub_manifest *m = b->ws[i].man;
  const struct nub_depmap *maps[3] = {&m->deps, &m->optional, &m->dev};
  struct bpkg *p = b->wspkgs[i];
  struct raw *raw = NULL;
  size_t nraw = 0;

  for (int k = 0; k < 3; k++)
    for (size_t j = 0; j < maps[k]->n; j++) {
      const struct nub_dep *d = &maps[k]->v[j];
      size_t at = 0;
      while (at < nraw && strcmp(raw[at].name, d->name))
        at++;
      if (at == nraw) {
        raw = nub_realloc(raw, (nraw + 1) * sizeof(*raw));
        raw[nraw].name = nub_strdup(d->name);
        raw[nraw++].range = NULL;
      } else
        nub_free(raw[at].range);
      raw[at].range = normalise_range(d->spec);
      if (k == 1 && !has_str(p->dep_optional, p->ndep_optional, d->name)) {
        p->dep_optional = nub_realloc(p->dep_optional, (p->ndep_optional + 1) * sizeof(char *));
        p->dep_optional[p->ndep_optional++] = nub_strdup(d->name);
      }
    }
  for (size_t j = 0; j < m->peer.n; j++)
    peer_set(p, m->peer.v[j].name, m->peer.v[j].spec);
  return prepare(b, p, raw, nraw);
}

/* ---- peer dependencies: one instance per parent ------------------------- */

/* The fingerprint two instances share when they are the same: the package
 * they instantiate and what each dependency resolves to. */
static char *fingerprint(const struct bpkg *p)
{
  size_t cap = 32 + p->ndeps * 12, n;
  char *s = nub_malloc(cap);

  n = (size_t)snprintf(s, cap, "%zu", p->base->id);
  for (size_t i = 0; i < p->ndeps; i++) {
    const struct bdesc *d = p->deps[i].d;
    if (d->missing)
      n += (size_t)snprintf(s + n, cap - n, ",m");
    else
      n += (size_t)snprintf(s + n, cap - n, ",%zu", d->res->id);
  }
  return s;
}

static void add_peer_user(struct bpkg *provider, struct bpkg *user)
{
  for (size_t i = 0; i < provider->npeer_users; i++)
    if (provider->peer_users[i] == user)
      return;
  NUB_GROW(provider->peer_users, provider->cappeer, provider->npeer_users + 1);
  provider->peer_users[provider->npeer_users++] = user;
}

/* One instance to make of a dependency with peers. */
struct pending {
  struct bdep dep;      /* the parent's dependency on the package */
  struct bpkg *target;  /* the package (a workspace's pristine copy) */
  struct bdesc *vdesc;  /* the instance's descriptor */
  struct bpkg *inst;
  char **missing;       /* peers nothing provided */
  size_t nmissing;
};

static void visit(struct berry *b, struct bdesc *parent_desc, struct bpkg *p, bool optional);

/* The descriptor p provides for a peer named `name` of its dependencies. */
static struct bdesc *provided(struct berry *b, struct bdesc *parent_desc, struct bpkg *p,
                              const char *name)
{
  long i = dep_index(p, name);
  struct bdesc *d;

  if (i >= 0)
    return p->deps[i].d;
  if (!strcmp(p->name, name)) {
    /* the package provides itself */
    if (!strcmp(parent_desc->name, p->name))
      return parent_desc;
    d = desc_new(b, p->name, parent_desc->range);
    resolves_to(d, p);
    return d;
  }
  d = desc_new(b, name, "missing:");
  d->missing = true;
  return d;
}

static void visit(struct berry *b, struct bdesc *parent_desc, struct bpkg *p, bool optional)
{
  struct pending *pend = NULL;
  size_t npend = 0;
  struct bpkg **queue = NULL;
  size_t nq = 0, capq = 0;
  struct { const char *name; struct bdesc *d; } *slots = NULL;
  size_t nslots = 0;

  if (!optional)
    p->optional_only = false;
  if (p->accessible)
    return;
  p->accessible = true;
  {
    /* a copy: the loop below replaces entries of p->deps */
    size_t n = p->ndeps;
    struct bdep *deps = nub_malloc((n + 1) * sizeof(*deps));
    if (n)
      memcpy(deps, p->deps, n * sizeof(*deps));
    for (size_t i = 0; i < n; i++) {
      struct bdep *dp = &deps[i];
      struct bpkg *target;
      bool opt = optional || has_str(p->dep_optional, p->ndep_optional, dp->name);
      if (peer_index(p, dp->name) >= 0 && p != b->top)
        continue;
      target = dp->d->res;
      if (target->ws >= 0 && b->wscopies[target->ws])
        target = b->wscopies[target->ws];
      if (!target->npeers) {
        visit(b, dp->d, target, opt);
        continue;
      }
      pend = nub_realloc(pend, (npend + 1) * sizeof(*pend));
      memset(&pend[npend], 0, sizeof(*pend));
      pend[npend].dep = *dp;
      pend[npend].target = target;
      npend++;
    }
    nub_free(deps);
  }
  /* every instance first, so that the parent's dependencies name them */
  for (size_t i = 0; i < npend; i++) {
    struct pending *q = &pend[i];
    struct bpkg *t = q->target, *v = pkg_new(b);
    char *range = nub_asprintf("virtual:%zu#%s", p->id, q->dep.d->range);
    q->vdesc = desc_new(b, q->dep.d->name, range);
    nub_free(range);
    v->name = nub_strdup(t->name);
    v->reference = nub_asprintf("virtual:%zu#%s", p->id, t->reference);
    v->ident = nub_strdup(t->ident);
    v->entry = t->entry;
    v->ws = t->ws;
    v->base = t;
    v->version = t->version;
    v->conditions = t->conditions;
    v->soft = t->soft;
    v->location = t->location ? nub_strdup(t->location) : NULL;
    v->deps = nub_calloc(t->ndeps + t->npeers + 1, sizeof(*v->deps));
    v->capdeps = t->ndeps + t->npeers + 1;
    if (t->ndeps)
      memcpy(v->deps, t->deps, t->ndeps * sizeof(*v->deps));
    v->ndeps = t->ndeps;
    for (size_t k = 0; k < t->npeers; k++)
      peer_set(v, t->peers[k].name, t->peers[k].range);
    for (size_t k = 0; k < t->nopt_peers; k++)
      opt_peer_add(v, t->opt_peers[k]);
    for (size_t k = 0; k < t->ndep_optional; k++) {
      v->dep_optional = nub_realloc(v->dep_optional, (v->ndep_optional + 1) * sizeof(char *));
      v->dep_optional[v->ndep_optional++] = nub_strdup(t->dep_optional[k]);
    }
    q->inst = v;
    dep_set(p, q->dep.name, q->vdesc);
    resolves_to(q->vdesc, v);
    NUB_GROW(queue, capq, nq + 1);
    queue[nq++] = v;
    v->queued = true;
  }
  /* then their peers, from what the parent has */
  for (size_t i = 0; i < npend; i++) {
    struct pending *q = &pend[i];
    struct bpkg *v = q->inst;
    for (size_t k = 0; k < v->npeers;) {
      const char *pn = v->peers[k].name;
      struct bdesc *d = NULL;
      for (size_t s = 0; s < nslots && !d; s++)
        if (!strcmp(slots[s].name, pn))
          d = slots[s].d;
      if (!d) {
        d = provided(b, parent_desc, p, pn);
        slots = nub_realloc(slots, (nslots + 1) * sizeof(*slots));
        slots[nslots].name = d->missing ? d->name : pn;
        slots[nslots++].d = d;
      }
      if (d->missing && dep_index(v, pn) >= 0) {
        peer_delete(v, pn); /* a dependency too: that wins */
        continue;
      }
      dep_set(v, pn, d);
      if (!d->missing && d->res && d->res->base)
        add_peer_user(d->res, v);
      if (d->missing) {
        q->missing = nub_realloc(q->missing, (q->nmissing + 1) * sizeof(char *));
        q->missing[q->nmissing++] = nub_strdup(pn);
      }
      k++;
    }
    nub_sort(v->deps, v->ndeps, sizeof(*v->deps), cmp_dep_name);
  }
  /* instances that are the same are one */
  for (size_t qi = 0; qi < nq; qi++) {
    struct bpkg *v = queue[qi];
    char *fp;
    struct bpkg *same;
    if (!v->queued || !v->alive)
      continue;
    v->queued = false;
    fp = fingerprint(v);
    same = nub_strmap_get(&b->merged, fp);
    if (!same || same == v) {
      if (!same)
        nub_strmap_put(&b->merged, fp, v);
      nub_free(fp);
      continue;
    }
    nub_free(fp);
    for (size_t k = 0; k < v->nresolved_by; k++)
      resolves_to(v->resolved_by[k], same);
    v->nresolved_by = 0;
    v->alive = false;
    v->accessible = false;
    for (size_t k = 0; k < v->npeer_users; k++) {
      struct bpkg *u = v->peer_users[k];
      add_peer_user(same, u);
      if (!u->queued) {
        u->queued = true;
        NUB_GROW(queue, capq, nq + 1);
        queue[nq++] = u;
      }
    }
  }
  /* then each instance is walked in turn */
  for (size_t i = 0; i < npend; i++) {
    struct pending *q = &pend[i];
    if (!q->inst->alive)
      continue;
    visit(b, q->vdesc, q->inst,
          optional || has_str(p->dep_optional, p->ndep_optional, q->dep.name));
  }
  for (size_t i = 0; i < npend; i++) {
    struct pending *q = &pend[i];
    for (size_t k = 0; k < q->nmissing; k++) {
      if (q->inst->alive)
        dep_delete(q->inst, q->missing[k]);
      nub_free(q->missing[k]);
    }
    nub_free(q->missing);
  }
  nub_free(pend);
  nub_free(queue);
  nub_free(slots);
}

/* ---- conditions ------------------------------------------------------------ */

/* berry's conditions: terms "os=linux", "cpu=x64", "libc=glibc", '!', '&',
 * '|' and parentheses; a term for a kind this machine has no value for is
 * true. */
struct cond {
  const char *s;
  const struct nub_berry_opts *o;
};

static bool cond_or(struct cond *c);

static void cond_ws(struct cond *c)
{
  while (*c->s == ' ')
    c->s++;
}

static bool cond_term(struct cond *c)
{
  bool v = true;

  cond_ws(c);
  if (*c->s == '!') {
    c->s++;
    return !cond_term(c);
  }
  if (*c->s == '(') {
    c->s++;
    v = cond_or(c);
    cond_ws(c);
    if (*c->s == ')')
      c->s++;
    return v;
  }
  {
    const char *eq = c->s;
    size_t kl, vl;
    const char *have = NULL;
    while (*eq && *eq != '=' && *eq != ' ' && *eq != ')')
      eq++;
    kl = (size_t)(eq - c->s);
    if (*eq != '=') {
      c->s = eq;
      return true;
    }
    vl = strspn(eq + 1, "abcdefghijklmnopqrstuvwxyz0123456789_-");
    if (kl == 2 && !strncmp(c->s, "os", 2))
      have = c->o->os;
    else if (kl == 3 && !strncmp(c->s, "cpu", 3))
      have = c->o->cpu;
    else if (kl == 4 && !strncmp(c->s, "libc", 4))
      have = c->o->libc;
    v = !have || (strlen(have) == vl && !strncmp(have, eq + 1, vl));
    c->s = eq + 1 + vl;
  }
  return v;
}

static bool cond_and(struct cond *c)
{
  bool v = cond_term(c);

  for (;;) {
    cond_ws(c);
    if (*c->s != '&')
      return v;
    c->s++;
    v = cond_term(c) && v;
  }
}

static bool cond_or(struct cond *c)
{
  bool v = cond_and(c);

  for (;;) {
    cond_ws(c);
    if (*c->s != '|')
      return v;
    c->s++;
    v = cond_and(c) || v;
  }
}

static bool compatible(const struct berry *b, const char *conditions)
{
  struct cond c = {conditions, b->o};

  return !conditions || cond_or(&c);
}

/* ---- the graph for the hoister -------------------------------------------- */

struct pgraph {
  struct nub_berry_pnode *v;
  size_t n;
  struct bpkg **of; /* the package of each node */
};

static void pnode_dep(struct nub_berry_pnode *pn, const char *name, long target)
{
  for (size_t i = 0; i < pn->ndeps; i++)
    if (!strcmp(pn->deps[i].name, name)) {
      pn->deps[i].target = target;
      return;
    }
  pn->deps[pn->ndeps].name = name;
  pn->deps[pn->ndeps++].target = target;
}

static void make_pnodes(struct berry *b, struct pgraph *g)
{
  size_t n = 0;

  for (size_t i = 0; i < b->npkgs; i++) {
    struct bpkg *p = b->pkgs[i];
    p->pnode = -1;
    if (!p->alive || !p->accessible)
      continue;
    p->disabled = !compatible(b, p->conditions);
    if (!p->disabled)
      p->pnode = (long)n++;
  }
  g->v = nub_calloc(n + 1, sizeof(*g->v));
  g->of = nub_calloc(n + 1, sizeof(*g->of));
  g->n = n;
  for (size_t i = 0; i < b->npkgs; i++) {
    struct bpkg *p = b->pkgs[i];
    struct nub_berry_pnode *pn;
    if (p->pnode < 0)
      continue;
    pn = &g->v[p->pnode];
    g->of[p->pnode] = p;
    pn->name = p->name;
    pn->reference = p->reference;
    pn->ident = p->ident;
    pn->soft = p->soft;
    pn->ws = p->ws;
    pn->location = p->ws >= 0 ? b->ws[p->ws].dir : p->soft ? p->location : NULL;
    if (p->ws >= 0) {
      const struct nub_manifest *m = b->ws[p->ws].man;
      pn->ws_peers = nub_calloc(m->peer.n + 1, sizeof(char *));
      for (size_t k = 0; k < m->peer.n; k++)
        pn->ws_peers[pn->nws_peers++] = m->peer.v[k].name;
    }
    pn->deps = nub_calloc(p->ndeps + p->npeers + 2, sizeof(*pn->deps));
    pn->peers = nub_calloc(p->npeers + 1, sizeof(char *));
    pnode_dep(pn, p->name, p->pnode);
    if (p->base && p->ws < 0) {
      for (size_t k = 0; k < p->npeers; k++) {
        pnode_dep(pn, p->peers[k].name, -1);
        pn->peers[pn->npeers++] = p->peers[k].name;
      }
    }
    for (size_t k = 0; k < p->ndeps; k++) {
      const struct bdesc *d = p->deps[k].d;
      if (d->missing || !d->res || d->res->pnode < 0)
        continue;
      pnode_dep(pn, p->deps[k].name, d->res->pnode);
    }
  }
}

/* The lockfile records each workspace's package.json as berry read it
 * (dependencies, optional and dev ones together, with their protocol, and
 * peers): a change there is a lockfile berry would write anew, which
 * --immutable refuses. */
static int workspace_matches(struct berry *b, size_t i, const struct nub_berry_entry *e)
{
  const struct nub_manifest *m = b->ws[i].man;
  const struct nub_depmap *maps[3] = {&m->deps, &m->optional, &m->dev};
  const char *dir = b->ws[i].dir[0] ? b->ws[i].dir : ".";
  size_t n = 0;
  int rc = 0;

  if (!e)
    return nub_err_set(b->err, -NUB_EOUTDATED, "yarn.lock has no entry for the workspace %s "
                       "(%s); " STALE, dir, b->wspkgs[i]->ident);
  for (int k = 0; k < 3 && rc == 0; k++)
    for (size_t j = 0; j < maps[k]->n && rc == 0; j++) {
      const struct nub_dep *d = &maps[k]->v[j];
      char *want = normalise_range(d->spec);
      const char *have = nub_depmap_get(&e->deps, d->name);
      bool later = false;
      /* a name listed twice counts once: the last list's range */
      for (int k2 = k; k2 < 3 && !later; k2++)
        for (size_t j2 = k2 == k ? j + 1 : 0; j2 < maps[k2]->n && !later; j2++)
          later = !strcmp(maps[k2]->v[j2].name, d->name);
      if (!later) {
        n++;
        if (!have || strcmp(have, want))
          rc = nub_err_set(b->err, -NUB_EOUTDATED,
                           "%s/package.json asks for %s@%s, but yarn.lock records %s for it; "
                           STALE,
                           dir, d->name, want, have ? have : "nothing");
      }
      nub_free(want);
    }
  if (rc == 0 && n != e->deps.n)
    for (size_t j = 0; j < e->deps.n && rc == 0; j++) {
      bool found = false;
      for (int k = 0; k < 3 && !found; k++)
        found = nub_depmap_get(maps[k], e->deps.v[j].name) != NULL;
      if (!found)
        rc = nub_err_set(b->err, -NUB_EOUTDATED,
                         "yarn.lock records %s@%s for %s, which %s/package.json no longer "
                         "lists; " STALE,
                         e->deps.v[j].name, e->deps.v[j].spec, dir, dir);
    }
  for (size_t j = 0; j < m->peer.n && rc == 0; j++) {
    const char *have = nub_depmap_get(&e->peers, m->peer.v[j].name);
    if (!have || strcmp(have, m->peer.v[j].spec))
      rc = nub_err_set(b->err, -NUB_EOUTDATED,
                       "%s/package.json has the peer %s@%s, but yarn.lock records %s for it; "
                       STALE,
                       dir, m->peer.v[j].name, m->peer.v[j].spec, have ? have : "nothing");
  }
  if (rc == 0 && m->peer.n != e->peers.n)
    rc = nub_err_set(b->err, -NUB_EOUTDATED,
                     "the peers in %s/package.json are not those yarn.lock records; " STALE,
                     dir);
  return rc;
}

/* Which packages the workspaces' dependencies and optionalDependencies
 * lead to (a member's own devDependencies not followed either): the rest
 * only devDependencies need (--omit=dev leaves them out). */
static bool *prod_reached(struct berry *b, const struct pgraph *g)
{
  bool *seen = nub_calloc(g->n + 1, sizeof(bool));
  long *stack = nub_malloc((g->n + 1) * sizeof(long));
  size_t sp = 0;

  for (size_t i = 0; i < g->n; i++)
    if (g->of[i]->ws >= 0 && g->of[i] == b->wspkgs[g->of[i]->ws] && !seen[i]) {
      seen[i] = true;
      stack[sp++] = (long)i;
    }
  while (sp) {
    long at = stack[--sp];
    const struct nub_berry_pnode *pn = &g->v[at];
    const struct nub_manifest *m = pn->ws >= 0 ? b->ws[pn->ws].man : NULL;
    for (size_t k = 0; k < pn->ndeps; k++) {
      long t = pn->deps[k].target;
      if (t < 0 || seen[t])
        continue;
      /* a workspace's dependency that is only a devDependency */
      if (m && !nub_depmap_get(&m->deps, pn->deps[k].name) &&
          !nub_depmap_get(&m->optional, pn->deps[k].name) &&
          nub_depmap_get(&m->dev, pn->deps[k].name))
        continue;
      seen[t] = true;
      stack[sp++] = t;
    }
  }
  nub_free(stack);
  return seen;
}

/* A workspace's package, whose dependencies are resolved against the
 * lockfile; its pristine copy is what instances are made from. */
static int setup_workspaces(struct berry *b)
{
  for (size_t i = 0; i < b->nws; i++) {
    const struct nub_manifest *m = b->ws[i].man;
    struct bpkg *p = pkg_new(b);
    const char *dir = b->ws[i].dir;
    /* berry names an unnamed root "root-workspace-0b6124" */
    p->name = nub_strdup(m->name ? m->name : i == 0 ? "root-workspace-0b6124"
                                                     : "unnamed-workspace");
    p->reference = nub_asprintf("workspace:%s", dir[0] ? dir : ".");
    p->ident = nub_asprintf("%s@%s", p->name, p->reference);
    p->ws = (long)i;
    p->version = m->version ? m->version : "0.0.0";
    p->soft = true;
    b->wspkgs[i] = p;
  }
  for (size_t i = 0; i < b->nws; i++) {
    const struct nub_berry_entry *e = nub_strmap_get(&b->l->by_locator, b->wspkgs[i]->ident);
    int rc = workspace_matches(b, i, e);
    if (rc == 0)
      rc = workspace_pkg(b, i);
    if (rc < 0)
      return rc;
  }
  /* the copies instances start from, before the walk changes anything */
  for (size_t i = 0; i < b->nws; i++) {
    struct bpkg *w = b->wspkgs[i], *c;
    if (!w->npeers)
      continue;
    c = pkg_new(b);
    c->name = nub_strdup(w->name);
    c->reference = nub_strdup(w->reference);
    c->ident = nub_strdup(w->ident);
    c->ws = w->ws;
    c->version = w->version;
    c->soft = true;
    c->alive = false; /* not a package of its own: instances copy it */
    c->deps = nub_calloc(w->ndeps + 1, sizeof(*c->deps));
    if (w->ndeps)
      memcpy(c->deps, w->deps, w->ndeps * sizeof(*c->deps));
    c->ndeps = c->capdeps = w->ndeps;
    for (size_t k = 0; k < w->npeers; k++)
      peer_set(c, w->peers[k].name, w->peers[k].range);
    for (size_t k = 0; k < w->nopt_peers; k++)
      opt_peer_add(c, w->opt_peers[k]);
    b->wscopies[i] = c;
  }
  return 0;
}

/* berry lists a folder's entries (and so gives a bin name to the first of
 * them that has it) in the order of its location tree: packages by when
 * each was first placed, each one's places deepest first then by path,
 * descending, and every folder on such a path entered when first passed.
 * order[i]: place i's position in a walk of that tree. */
struct ftree {
  char **path;
  size_t **kids, *nkids, *capkids;
  size_t n, cap;
  struct nub_strmap at; /* path -> index + 1 */
};

static size_t ftree_node(struct ftree *t, const char *path, long parent)
{
  void *v = nub_strmap_get(&t->at, path);
  size_t i;

  if (v)
    return (size_t)(intptr_t)v - 1;
  if (t->n + 1 > t->cap) {
    t->cap = t->cap ? t->cap * 2 : 64;
    t->path = nub_realloc(t->path, t->cap * sizeof(char *));
    t->kids = nub_realloc(t->kids, t->cap * sizeof(size_t *));
    t->nkids = nub_realloc(t->nkids, t->cap * sizeof(size_t));
    t->capkids = nub_realloc(t->capkids, t->cap * sizeof(size_t));
  }
  i = t->n++;
  t->path[i] = nub_strdup(path);
  t->kids[i] = NULL;
  t->nkids[i] = t->capkids[i] = 0;
  nub_strmap_put(&t->at, path, (void *)(intptr_t)(i + 1));
  if (parent >= 0) {
    NUB_GROW(t->kids[parent], t->capkids[parent], t->nkids[parent] + 1);
    t->kids[parent][t->nkids[parent]++] = i;
  }
  return i;
}

static void ftree_walk(const struct ftree *t, size_t i, long *next, long *rank)
{
  rank[i] = (*next)++;
  for (size_t k = 0; k < t->nkids[i]; k++)
    ftree_walk(t, t->kids[i][k], next, rank);
}

static const struct nub_berry_hplace *sort_hp;

static int path_depth(const char *p)
{
  int d = 0;

  for (; *p; p++)
    d += *p == '/';
  return d;
}

static int cmp_locations(const void *a, const void *b)
{
  const char *x = sort_hp[*(const size_t *)a].path, *y = sort_hp[*(const size_t *)b].path;
  int dx = path_depth(x), dy = path_depth(y);

  return dx != dy ? dy - dx : strcmp(y, x);
}

static void folder_order(const struct nub_berry_hplace *hp, size_t nhp, size_t npn, long *order)
{
  struct ftree t;
  long *first = nub_malloc((npn + 1) * sizeof(long)), next = 1, *rank;
  size_t *locs = nub_malloc((nhp + 1) * sizeof(size_t)), *roots = NULL, nroots = 0, caproots = 0;
  size_t *pkgs = nub_malloc((nhp + 1) * sizeof(size_t)), npkgs = 0, *lo, *hi;

  memset(&t, 0, sizeof(t));
  for (size_t i = 0; i < npn; i++)
    first[i] = -1;
  for (size_t i = 0; i < nhp; i++)
    if (first[hp[i].pnode] < 0) {
      first[hp[i].pnode] = (long)i;
      pkgs[npkgs++] = (size_t)hp[i].pnode;
    }
  sort_hp = hp;
  /* each package's places together (a counting sort by package) */
  {
    size_t *start = nub_calloc(npn + 2, sizeof(size_t)), *fill;
    for (size_t i = 0; i < nhp; i++)
      start[hp[i].pnode + 1]++;
    for (size_t i = 0; i < npn; i++)
      start[i + 1] += start[i];
    fill = nub_malloc((npn + 1) * sizeof(size_t));
    memcpy(fill, start, (npn + 1) * sizeof(size_t));
    for (size_t i = 0; i < nhp; i++)
      locs[fill[hp[i].pnode]++] = i;
    nub_free(fill);
    lo = nub_malloc((npkgs + 1) * sizeof(size_t));
    hi = nub_malloc((npkgs + 1) * sizeof(size_t));
    for (size_t k = 0; k < npkgs; k++) {
      lo[k] = start[pkgs[k]];
      hi[k] = start[pkgs[k] + 1];
      qsort(locs + lo[k], hi[k] - lo[k], sizeof(size_t), cmp_locations);
    }
    nub_free(start);
  }
  for (size_t k = 0; k < npkgs; k++) {
    for (size_t q = lo[k]; q < hi[k]; q++) {
      const char *path = hp[locs[q]].path, *nm = strstr(path, "node_modules");
      char *prefix;
      long cur;
      size_t rootlen;
      while (nm && nm != path && nm[-1] != '/')
        nm = strstr(nm + 1, "node_modules");
      if (!nm)
        continue;
      rootlen = nm == path ? 0 : (size_t)(nm - path - 1);
      prefix = nub_strndup(path, rootlen);
      if (!nub_strmap_get(&t.at, prefix)) {
        NUB_GROW(roots, caproots, nroots + 1);
        roots[nroots++] = ftree_node(&t, prefix, -1);
      }
      cur = (long)ftree_node(&t, prefix, -1);
      nub_free(prefix);
      for (const char *s = nm;;) {
        const char *slash = strchr(s, '/');
        char *sub = nub_strndup(path, slash ? (size_t)(slash - path) : strlen(path));
        cur = (long)ftree_node(&t, sub, cur);
        nub_free(sub);
        if (!slash)
          break;
        s = slash + 1;
      }
    }
  }
  rank = nub_calloc(t.n + 1, sizeof(long));
  for (size_t r = 0; r < nroots; r++)
    ftree_walk(&t, roots[r], &next, rank);
  for (size_t i = 0; i < nhp; i++) {
    void *v = nub_strmap_get(&t.at, hp[i].path);
    order[i] = v ? rank[(intptr_t)v - 1] : 0;
  }
  for (size_t i = 0; i < t.n; i++) {
    nub_free(t.path[i]);
    nub_free(t.kids[i]);
  }
  nub_free(t.path);
  nub_free(t.kids);
  nub_free(t.nkids);
  nub_free(t.capkids);
  nub_strmap_release(&t.at, NULL);
  nub_free(rank);
  nub_free(roots);
  nub_free(pkgs);
  nub_free(lo);
  nub_free(hi);
  nub_free(locs);
  nub_free(first);
}

void nub_berry_places_free(struct nub_berry_place *v, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    nub_free(v[i].path);
    nub_free(v[i].link);
    nub_strarray_free(v[i].deps, v[i].ndeps);
  }
  nub_free(v);
}

int nub_berry_place(const struct nub_berry_lock *l, const struct nub_berry_ws *ws, size_t nws,
                    const struct nub_berry_opts *o, struct nub_berry_place **out,
                    size_t *nout, struct nub_err *err)
{
  struct berry b;
  struct pgraph g = {0};
  struct nub_berry_hplace *hp = NULL;
  size_t nhp = 0;
  int rc;

  *out = NULL;
  *nout = 0;
  memset(&b, 0, sizeof(b));
  b.l = l;
  b.ws = ws;
  b.nws = nws;
  b.o = o;
  b.err = err;
  b.wspkgs = nub_calloc(nws + 1, sizeof(*b.wspkgs));
  b.wscopies = nub_calloc(nws + 1, sizeof(*b.wscopies));
  rc = setup_workspaces(&b);
  /* the walk, from each workspace in turn */
  for (size_t i = 0; rc == 0 && i < nws; i++) {
    struct bpkg *w = b.wspkgs[i];
    struct bdesc *self = desc_new(&b, w->name, w->reference);
    resolves_to(self, w);
    b.top = w;
    visit(&b, self, w, false);
  }
  if (rc == 0) {
    const char **dirs = nub_calloc(nws + 1, sizeof(char *));
    const char **limits = nub_calloc(nws + 1, sizeof(char *));
    bool *self_refs = nub_calloc(nws + 1, sizeof(bool));
    make_pnodes(&b, &g);
    for (size_t i = 0; i < nws; i++) {
      dirs[i] = ws[i].dir;
      limits[i] = o->hoisting_limits;
      self_refs[i] = !o->no_self_references;
    }
    rc = nub_berry_hoist(g.v, g.n, b.wspkgs[0]->pnode, dirs, limits, self_refs, nws, &hp, &nhp,
                         err);
    nub_free(dirs);
    nub_free(limits);
    nub_free(self_refs);
  }
  if (rc == 0) {
    struct nub_berry_place *v = nub_calloc(nhp + 1, sizeof(*v));
    long *order = nub_calloc(nhp + 1, sizeof(long));
    bool *prod = prod_reached(&b, &g);
    folder_order(hp, nhp, g.n, order);
    for (size_t i = 0; i < nhp; i++)
      v[i].dev = !prod[hp[i].pnode];
    nub_free(prod);
    for (size_t i = 0; i < nhp; i++)
      v[i].order = order[i];
    nub_free(order);
    for (size_t i = 0; i < nhp; i++) {
      const struct bpkg *p = g.of[hp[i].pnode];
      const struct nub_berry_pnode *pn = &g.v[hp[i].pnode];
      v[i].path = hp[i].path;
      hp[i].path = NULL;
      v[i].entry = p->ws >= 0 ? NULL : (p->base ? p->base->entry : p->entry);
      v[i].ws = p->ws;
      v[i].optional = p->optional_only;
      if (p->soft) {
        if (p->ws >= 0)
          v[i].link = nub_strdup(ws[p->ws].dir[0] ? ws[p->ws].dir : ".");
        else
          v[i].link = p->location ? nub_strdup(p->location) : NULL;
      }
      v[i].deps = nub_calloc(pn->ndeps + 1, sizeof(char *));
      for (size_t k = 0; k < pn->ndeps; k++)
        if (strcmp(pn->deps[k].name, pn->name) || pn->deps[k].target != hp[i].pnode)
          v[i].deps[v[i].ndeps++] = nub_strdup(pn->deps[k].name);
    }
    *out = v;
    *nout = nhp;
  }
  for (size_t i = 0; i < nhp; i++)
    nub_free(hp[i].path);
  nub_free(hp);
  for (size_t i = 0; i < g.n; i++) {
    nub_free(g.v[i].deps);
    nub_free(g.v[i].peers);
    nub_free(g.v[i].ws_peers);
  }
  nub_free(g.v);
  nub_free(g.of);
  for (size_t i = 0; i < b.npkgs; i++)
    pkg_free(b.pkgs[i]);
  nub_free(b.pkgs);
  for (size_t i = 0; i < b.ndescs; i++) {
    nub_free(b.descs[i]->name);
    nub_free(b.descs[i]->range);
    nub_free(b.descs[i]);
  }
  nub_free(b.descs);
  nub_strmap_release(&b.desc_by_key, NULL);
  nub_strmap_release(&b.pkg_by_locator, NULL);
  nub_strmap_release(&b.merged, NULL);
  nub_strmap_release(&b.ext_names, NULL);
  nub_free(b.wspkgs);
  nub_free(b.wscopies);
  return rc;
}
