/* lockfile_yarn.c - yarn.lock v1 into a graph (lockfile_yarn.h). */
#include "lockfile_yarn.h"

#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "gitspec.h"
#include "integrity.h"
#include "nub_alloc.h"
#include "path.h"
#include "registry_url.h"
#include "strmap.h"
#include "text.h"
#include "workspace.h"

struct yentry {
  char **keys;
  size_t nkeys;
  char *version, *resolved, *integrity;
  struct nub_depmap deps, optional;
  int line;
  struct nub_gpkg *g; /* the package it became */
};

struct yrd {
  const char *t, *end, *fname;
  int line;
  struct nub_err *err;
};

static int bad(struct yrd *r, const char *what)
{
  return nub_err_set(r->err, -NUB_ELOCKFILE, "%s:%d: %s", r->fname, r->line, what);
}

/* One word at *p: a "quoted" string (JSON escapes) or bare text up to a
 * space, ',' or the end of the line; a trailing ':' is left for the caller. */
static char *word(const char **p, const char *eol)
{
  const char *s = *p;
  struct nub_buf b = NUB_BUF_INIT;

  if (s < eol && *s == '"') {
    for (s++; s < eol && *s != '"'; s++) {
      if (*s == '\\' && s + 1 < eol)
        s++;
      nub_buf_addc(&b, *s);
    }
    if (s < eol)
      s++;
  } else {
    while (s < eol && *s != ' ' && *s != ',' && !(*s == ':' && (s + 1 == eol || s[1] == ' ')))
      nub_buf_addc(&b, *s++);
  }
  *p = s;
  return nub_buf_take(&b);
}

static void add_dep(struct nub_depmap *m, char *name, char *spec)
{
  m->v = nub_realloc(m->v, (m->n + 1) * sizeof(*m->v));
  m->v[m->n].name = name;
  m->v[m->n].spec = spec;
  m->n++;
}

static void entry_free(struct yentry *e)
{
  nub_strarray_free(e->keys, e->nkeys);
  nub_free(e->version);
  nub_free(e->resolved);
  nub_free(e->integrity);
  nub_depmap_release(&e->deps);
  nub_depmap_release(&e->optional);
}

static int parse_entries_into(struct yrd *r, struct yentry **vp, size_t *np, size_t *cap)
{
  struct yentry *cur = NULL;
  struct nub_depmap *map = NULL; /* the dependency map being read */
  const char *p = r->t;

  while (p < r->end) {
    const char *eol = memchr(p, '\n', (size_t)(r->end - p));
    const char *s = p;
    int indent = 0;
    if (!eol)
      eol = r->end;
    r->line++;
    if (eol > p && eol[-1] == '\r')
      eol--;
    while (s < eol && *s == ' ') {
      s++;
      indent++;
    }
    if (s == eol || *s == '#') {
      p = (eol < r->end && *eol == '\r') ? eol + 2 : eol + 1;
      continue;
    }
    if (indent == 0) { /* "key1", key2: */
      if (eol[-1] != ':')
        return bad(r, "an entry must end with ':'");
      NUB_GROW(*vp, *cap, *np + 1);
      cur = &(*vp)[(*np)++];
      memset(cur, 0, sizeof(*cur));
      cur->line = r->line;
      map = NULL;
      while (s < eol - 1) {
        char *k = word(&s, eol);
        if (!*k) {
          nub_free(k);
          return bad(r, "an empty key");
        }
        cur->keys = nub_realloc(cur->keys, (cur->nkeys + 1) * sizeof(char *));
        cur->keys[cur->nkeys++] = k;
        while (s < eol && (*s == ',' || *s == ' '))
          s++;
        if (s < eol && *s == ':')
          break;
      }
      if (!cur->nkeys) /* a line of ':' alone */
        return bad(r, "an entry without a key");
    } else if (!cur) {
      return bad(r, "a field before any entry");
    } else if (indent == 2) {
      char *k = word(&s, eol), *val;
      map = NULL;
      if (s < eol && *s == ':' && s + 1 == eol) { /* "dependencies:" */
        if (!strcmp(k, "dependencies"))
          map = &cur->deps;
        else if (!strcmp(k, "optionalDependencies"))
          map = &cur->optional;
        else
          map = NULL; /* another map nub does not need */
        nub_free(k);
        if (!map)
          map = (struct nub_depmap *)1; /* read and dropped */
      } else {
        while (s < eol && *s == ' ')
          s++;
        val = word(&s, eol);
        if (!strcmp(k, "version") && !cur->version)
          cur->version = val, val = NULL;
        else if (!strcmp(k, "resolved") && !cur->resolved)
          cur->resolved = val, val = NULL;
        else if (!strcmp(k, "integrity") && !cur->integrity)
          cur->integrity = val, val = NULL;
        nub_free(val);
        nub_free(k);
      }
    } else if (indent == 4 && map) {
      char *k = word(&s, eol), *val;
      while (s < eol && *s == ' ')
        s++;
      val = word(&s, eol);
      if (map != (struct nub_depmap *)1)
        add_dep(map, k, val);
      else {
        nub_free(k);
        nub_free(val);
      }
    } else {
      return bad(r, "unexpected indentation");
    }
    p = eol + 1;
    if (p <= r->end && eol < r->end && *eol == '\r')
      p = eol + 2;
  }
  return 0;
}

/* The entries (the caller frees them, on failure too). */
static int parse_entries(struct yrd *r, struct yentry **out, size_t *nout)
{
  size_t cap = 0;

  *out = NULL;
  *nout = 0;
  return parse_entries_into(r, out, nout, &cap);
}

/* yarn 1's answer to a merge conflict (its parseWithConflict): each side
 * read, then Object.assign({}, ours, theirs) on the patterns: a pattern
 * both sides lock takes theirs' entry, an entry of ours keeps the patterns
 * theirs does not have. */
static int unconflict(struct yrd *r, struct yentry **out, size_t *nout)
{
  struct nub_buf side[2];
  struct yentry *v[2] = {NULL, NULL};
  size_t n[2] = {0, 0}, cap = 0;
  struct nub_strmap theirs;
  int rc = 0;

  memset(&theirs, 0, sizeof(theirs));
  nub_text_conflict_sides(r->t, (size_t)(r->end - r->t), side);
  for (int i = 0; i < 2 && rc == 0; i++) {
    struct yrd rs = {nub_buf_str(&side[i]), nub_buf_str(&side[i]) + side[i].len, r->fname, 0,
                     r->err};
    rc = parse_entries(&rs, &v[i], &n[i]);
    if (rc < 0) {
      char tmp[sizeof(r->err->msg)];
      snprintf(tmp, sizeof(tmp), "%s", r->err->msg);
      rc = nub_err_set(r->err, -NUB_ELOCKFILE, "%s has merge-conflict markers, and %s side of "
                       "the conflict is not valid (%s); resolve it by hand", r->fname,
                       i ? "their" : "our", tmp);
    }
  }
  for (size_t i = 0; rc == 0 && i < n[1]; i++)
    for (size_t k = 0; k < v[1][i].nkeys; k++)
      nub_strmap_put(&theirs, v[1][i].keys[k], &v[1][i]);
  *out = NULL;
  *nout = 0;
  for (size_t i = 0; rc == 0 && i < n[0]; i++) {
    struct yentry *e = &v[0][i];
    size_t kept = 0;
    for (size_t k = 0; k < e->nkeys; k++) {
      if (nub_strmap_get(&theirs, e->keys[k]))
        nub_free(e->keys[k]);
      else
        e->keys[kept++] = e->keys[k];
    }
    e->nkeys = kept;
    if (!kept) {
      entry_free(e);
      continue;
    }
    NUB_GROW(*out, cap, *nout + 1);
    (*out)[(*nout)++] = *e;
  }
  for (size_t i = 0; rc == 0 && i < n[1]; i++) {
    NUB_GROW(*out, cap, *nout + 1);
    (*out)[(*nout)++] = v[1][i];
  }
  if (rc < 0) {
    for (int s = 0; s < 2; s++)
      for (size_t i = 0; i < n[s]; i++)
        entry_free(&v[s][i]);
  }
  for (int s = 0; s < 2; s++) {
    nub_free(v[s]);
    nub_buf_release(&side[s]);
  }
  nub_strmap_release(&theirs, NULL);
  return rc;
}

/* "name@range" -> name (the '@' of a scope is not the split). */
static char *key_name(const char *key, const char **range)
{
  const char *at = strchr(key[0] == '@' ? key + 1 : key, '@');

  *range = at ? at + 1 : "";
  return at ? nub_strndup(key, (size_t)(at - key)) : nub_strdup(key);
}

/* "sha1" hex in a URL fragment -> "sha1-<base64>". */
static char *sri_from_fragment(const char *url)
{
  const char *h = strrchr(url, '#');
  unsigned char raw[20];
  struct nub_sri sri;
  char out[128];

  if (!h || strlen(h + 1) != 40)
    return NULL;
  for (int i = 0; i < 20; i++) {
    int hi = nub_hex_digit(h[1 + 2 * i]), lo = nub_hex_digit(h[2 + 2 * i]);
    if (hi < 0 || lo < 0)
      return NULL;
    raw[i] = (unsigned char)(hi << 4 | lo);
  }
  memset(&sri, 0, sizeof(sri));
  sri.algo = NUB_HASH_SHA1;
  memcpy(sri.digest, raw, 20);
  sri.len = 20;
  nub_sri_format(&sri, out, sizeof(out));
  return nub_strdup(out);
}

/* The entry's package: name@version, made once for every entry that
 * resolves to it (an alias entry is its real package's). */
static int make_pkg(struct yrd *r, struct nub_graph *g, struct nub_strmap *bykey,
                    struct yentry *e, const struct nub_config *cfg)
{
  const char *range;
  char *name = key_name(e->keys[0], &range), *key;
  struct nub_gpkg *p;

  if (!strncmp(range, "link:", 5)) {
    /* a folder of the project's, linked as it is (yarn records it with
     * version 0.0.0 and nothing to fetch): no package */
    nub_free(name);
    e->g = NULL;
    return 0;
  }
  if (!strncmp(range, "npm:", 4)) { /* alias@npm:real@range */
    const char *r2;
    char *real = key_name(range + 4, &r2);
    nub_free(name);
    name = real;
  }
  if (!e->version || !nub_valid_pkg_name(name)) {
    r->line = e->line;
    nub_free(name);
    return bad(r, e->version ? "an entry with an invalid package name" : "an entry without a version");
  }
  bool git = false;
  if (e->resolved && !strncmp(e->resolved, "git+", 4)) {
    /* a git dependency: "git+<url>#<commit>", installed from its commit */
    char commit[41], *url = NULL;
    git = nub_git_split_resolved(e->resolved, &url, commit);
    nub_free(url);
  }
  if (e->resolved && !git &&
      (strncmp(e->resolved, "http", 4) || strstr(e->resolved, "codeload") ||
       strstr(e->resolved, ".git#"))) {
    int rc = nub_err_set(r->err, -NUB_ESPEC, "%s:%d: %s@%s comes from %s, not a registry; "
                         "nub installs registry packages from yarn.lock so far", r->fname,
                         e->line, name, e->version, e->resolved);
    nub_free(name);
    return rc;
  }
  /* (two commits of a git dependency may carry one version) */
  key = git ? nub_asprintf("%s@%s", name, e->resolved) : nub_asprintf("%s@%s", name, e->version);
  p = nub_strmap_get(bykey, key);
  if (!p) {
    p = nub_calloc(1, sizeof(*p));
    p->key = key;
    p->pkg_key = nub_strdup(key);
    p->name = name;
    p->version = nub_strdup(e->version);
    p->resolved = e->resolved ? nub_strdup(e->resolved) : NULL;
    p->integrity = e->integrity ? nub_strdup(e->integrity)
                   : e->resolved && !git ? sri_from_fragment(e->resolved)
                                         : NULL;
    if (git) {
      /* yarn 1 installs a git package as its checkout, every file, unless
       * it has a prepare script (git.h) */
      p->tarball = nub_asprintf("%s%s", NUB_GIT_YARN, e->resolved + 4);
    } else if (e->resolved) {
      /* the registry's layout means the configured registry (as npm reads a
       * resolved URL on its default one); anything else is kept */
      char *conventional = nub_tarball_url_on("/", name, e->version);
      char *url = nub_strdup(e->resolved), *hash, *path;
      if ((hash = strchr(url, '#')) != NULL)
        *hash = '\0';
      path = strlen(url) > 8 ? strchr(url + 8, '/') : NULL;
      if (!path || strcmp(path, conventional))
        p->tarball = nub_rewrite_registry_url(cfg, name, url);
      nub_free(url);
      nub_free(conventional);
    }
    /* the ranges, for yarn's hoisting order (hoist_yarn.c) */
    for (int m = 0; m < 2; m++) {
      const struct nub_depmap *src = m ? &e->optional : &e->deps;
      struct nub_depmap *dst = m ? &p->opt_specs : &p->dep_specs;
      dst->v = nub_calloc(src->n + 1, sizeof(*dst->v));
      for (size_t i = 0; i < src->n; i++) {
        dst->v[i].name = nub_strdup(src->v[i].name);
        dst->v[i].spec = nub_strdup(src->v[i].spec);
      }
      dst->n = src->n;
    }
    nub_strmap_put(bykey, p->key, p);
    nub_graph_add(g, p);
  } else {
    nub_free(key);
    nub_free(name);
  }
  e->g = p;
  for (size_t k = 0; k < e->nkeys; k++) { /* every specifier resolving to it */
    p->patterns = nub_realloc(p->patterns, (p->npatterns + 1) * sizeof(char *));
    p->patterns[p->npatterns++] = nub_strdup(e->keys[k]);
  }
  return 0;
}

static char *ref_to(const char *alias, const struct nub_gpkg *p)
{
  size_t n = strlen(p->name);

  /* what follows "name@" in its key: the version, or a git entry's
   * resolved URL */
  if (!strcmp(alias, p->name) && !strncmp(p->key, p->name, n) && p->key[n] == '@')
    return nub_strdup(p->key + n + 1);
  return strcmp(alias, p->name) ? nub_strdup(p->key) : nub_strdup(p->version);
}

static int add_edges(struct yrd *r, struct nub_strmap *byspec, struct yentry *e)
{
  if (!e->g)
    return 0; /* a link: entry */
  for (int o = 0; o < 2; o++) {
    const struct nub_depmap *m = o ? &e->optional : &e->deps;
    for (size_t i = 0; i < m->n; i++) {
      char *spec = nub_asprintf("%s@%s", m->v[i].name, m->v[i].spec);
      struct yentry *t = nub_strmap_get(byspec, spec);
      struct nub_gedge **v = o ? &e->g->optional_deps : &e->g->deps;
      size_t *nv = o ? &e->g->noptional_deps : &e->g->ndeps;
      bool dup = false;
      nub_free(spec);
      if (t && !t->g)
        continue; /* a link: of a package's own: nothing yarn installs */
      if (!t) {
        if (o)
          continue; /* an optional dependency yarn could not resolve */
        r->line = e->line;
        return nub_err_set(r->err, -NUB_ELOCKFILE, "%s:%d: %s@%s depends on %s@%s, which no "
                           "entry resolves; run `yarn install` to repair the lockfile",
                           r->fname, e->line, e->g->name, e->g->version, m->v[i].name,
                           m->v[i].spec);
      }
      for (size_t k = 0; k < *nv && !dup; k++)
        dup = !strcmp((*v)[k].alias, m->v[i].name);
      if (dup || (!o && nub_depmap_get(&e->optional, m->v[i].name)))
        continue;
      *v = nub_realloc(*v, (*nv + 1) * sizeof(**v));
      (*v)[*nv].alias = nub_strdup(m->v[i].name);
      (*v)[*nv].ref = ref_to(m->v[i].name, t->g);
      (*nv)++;
    }
  }
  return 0;
}

static int cmp_direct_edge(const void *a, const void *b)
{
  return strcmp(((const struct nub_gedge *)a)->alias, ((const struct nub_gedge *)b)->alias);
}

static int cmp_direct(const void *a, const void *b)
{
  return strcmp(((const struct nub_gdirect *)a)->alias, ((const struct nub_gdirect *)b)->alias);
}

/* An importer from a package.json: every direct dependency must be a key
 * of some entry ("name@spec"), except links to workspace members. */
static int add_importer(struct yrd *r, struct nub_graph *g, struct nub_strmap *byspec,
                        const char *path, const struct nub_manifest *m,
                        const struct nub_workspace *ws, bool *stale)
{
  struct nub_importer *im = &g->importers[g->nimporters++];
  const struct nub_depmap *maps[3] = {&m->deps, &m->optional, &m->dev};

  im->path = nub_strdup(path);
  for (int k = 0; k < 3; k++) {
    for (size_t i = 0; i < maps[k]->n; i++) {
      const struct nub_dep *d = &maps[k]->v[i];
      char *spec = nub_asprintf("%s@%s", d->name, d->spec);
      struct yentry *t = nub_strmap_get(byspec, spec);
      const struct nub_ws_pkg *member = ws ? nub_workspace_find(ws, d->name) : NULL;
      struct nub_gdirect **v = k == 0 ? &im->deps : k == 1 ? &im->optional : &im->dev;
      size_t *nv = k == 0 ? &im->ndeps : k == 1 ? &im->noptional : &im->ndev;
      char *ref = NULL;
      nub_free(spec);
      if ((k == 0 && nub_depmap_get(&m->optional, d->name)) ||
          (k == 2 && (nub_depmap_get(&m->deps, d->name) || nub_depmap_get(&m->optional, d->name))))
        continue;
      if (!strncmp(d->spec, "link:", 5)) {
        ref = nub_strdup(d->spec); /* a folder, linked from the importer's */
      } else if (!t && member) { /* yarn links a workspace member, unlocked */
        char from[4096], to[4096], rel[4096];
        snprintf(from, sizeof(from), "/%s", strcmp(path, ".") ? path : "");
        snprintf(to, sizeof(to), "/%s", member->dir);
        ref = nub_path_relative(from, to, rel, sizeof(rel)) == 0
                  ? nub_asprintf("link:%s", rel)
                  : nub_asprintf("link:%s", member->dir);
      } else if (!t && stale) { /* the caller resolves again */
        *stale = true;
        continue;
      } else if (!t) {
        return nub_err_set(r->err, -NUB_EOUTDATED,
                           "%s is out of date with %s%spackage.json: %s@%s is not in it; "
                           "run `yarn install` to update it", r->fname,
                           strcmp(path, ".") ? path : "", strcmp(path, ".") ? "/" : "",
                           d->name, d->spec);
      } else {
        ref = ref_to(d->name, t->g);
      }
      *v = nub_realloc(*v, (*nv + 1) * sizeof(**v));
      (*v)[*nv].alias = nub_strdup(d->name);
      (*v)[*nv].specifier = nub_strdup(d->spec);
      (*v)[*nv].ref = ref;
      (*nv)++;
    }
  }
  nub_sort(im->deps, im->ndeps, sizeof(*im->deps), cmp_direct);
  nub_sort(im->dev, im->ndev, sizeof(*im->dev), cmp_direct);
  nub_sort(im->optional, im->noptional, sizeof(*im->optional), cmp_direct);
  return 0;
}

static void use_map(struct nub_strmap *used, const struct nub_depmap *m)
{
  for (size_t i = 0; i < m->n; i++) {
    char *pat = nub_asprintf("%s@%s", m->v[i].name, m->v[i].spec);
    nub_strmap_put(used, pat, (void *)1);
    nub_free(pat);
  }
}

static void use_manifest(struct nub_strmap *used, const struct nub_manifest *m)
{
  use_map(used, &m->deps);
  use_map(used, &m->dev);
  use_map(used, &m->optional);
}

/* Whether some entry's pattern is asked for by no package.json and no
 * entry. */
static bool unused_pattern(const struct yentry *v, size_t n, const struct nub_manifest *root,
                           const struct nub_workspace *ws)
{
  struct nub_strmap used;
  bool unused = false;

  memset(&used, 0, sizeof(used));
  use_manifest(&used, root);
  for (size_t i = 0; i < root->overrides.n; i++) { /* resolutions' own patterns */
    const char *gt = strrchr(root->overrides.v[i].name, '>');
    char *pat = nub_asprintf("%s@%s", gt ? gt + 1 : root->overrides.v[i].name,
                             root->overrides.v[i].spec);
    nub_strmap_put(&used, pat, (void *)1);
    nub_free(pat);
  }
  for (size_t i = 0; ws && i < ws->npkgs; i++)
    use_manifest(&used, &ws->pkgs[i].man);
  for (size_t i = 0; i < n; i++) {
    use_map(&used, &v[i].deps);
    use_map(&used, &v[i].optional);
  }
  for (size_t i = 0; i < n && !unused; i++)
    for (size_t k = 0; k < v[i].nkeys && !unused; k++)
      unused = !nub_strmap_get(&used, v[i].keys[k]);
  nub_strmap_release(&used, NULL);
  return unused;
}

int nub_lockfile_yarn_parse(struct nub_graph *g, const char *text, size_t len,
                            const char *fname, const struct nub_manifest *root,
                            const struct nub_workspace *ws, const struct nub_config *cfg,
                            bool *stale, struct nub_err *err)
{
  struct yrd r = {text, text + len, fname, 0, err};
  struct yentry *v = NULL;
  size_t n = 0, off;
  struct nub_strmap byspec, bykey;
  int rc;

  memset(&byspec, 0, sizeof(byspec));
  memset(&bykey, 0, sizeof(bykey));
  if (nub_text_conflict_marker(text, len, &off) && !stale) {
    int line, col;
    nub_text_linecol(text, off, &line, &col);
    return nub_err_set(err, -NUB_ELOCKFILE, "%s:%d: unresolved merge-conflict marker; "
                       "resolve the conflict (or run `yarn install`)", fname, line);
  }
  if (strstr(text, "\n__metadata:") || !strncmp(text, "__metadata:", 11))
    return nub_err_set(err, -NUB_ELOCKVERSION, "%s is a yarn berry lockfile (yarn 2 and "
                       "later), not yarn 1's: lockfile_berry.c reads it", fname);
  if (nub_text_conflict_marker(text, len, &off)) {
    rc = unconflict(&r, &v, &n);
    *stale = true; /* written back, as yarn writes a merged lockfile */
  } else
    rc = parse_entries(&r, &v, &n);
  for (size_t i = 0; rc == 0 && i < n; i++) {
    for (size_t k = 0; k < v[i].nkeys; k++)
      nub_strmap_put(&byspec, v[i].keys[k], &v[i]);
    rc = make_pkg(&r, g, &bykey, &v[i], cfg);
  }
  for (size_t i = 0; rc == 0 && i < n; i++)
    rc = add_edges(&r, &byspec, &v[i]);
  if (rc == 0) {
    g->importers = nub_calloc(1 + (ws ? ws->npkgs : 0), sizeof(*g->importers));
    rc = add_importer(&r, g, &byspec, ".", root, ws, stale);
    for (size_t i = 0; rc == 0 && ws && i < ws->npkgs; i++)
      rc = add_importer(&r, g, &byspec, ws->pkgs[i].dir, &ws->pkgs[i].man, ws, stale);
  }
  if (rc == 0 && g->npkgs) {
    for (size_t i = 0; i < g->npkgs; i++) {
      struct nub_gpkg *p = g->pkgs[i];
      nub_sort(p->deps, p->ndeps, sizeof(*p->deps), cmp_direct_edge);
      nub_sort(p->optional_deps, p->noptional_deps, sizeof(*p->optional_deps),
               cmp_direct_edge);
    }
    nub_graph_mark_optional(g);
    /* an entry nothing asks for any more: the lockfile is to be written
     * again (yarn drops such entries) */
    if (stale && !*stale) {
      bool *seen = nub_calloc(g->npkgs + 1, sizeof(bool));
      if (nub_graph_bfs(g, nub_graph_enter_once, seen) < g->npkgs)
        *stale = true;
      nub_free(seen);
    }
    /* nor a pattern (a removed dependency's range that another's entry
     * also answered): yarn takes it off the entry */
    if (stale && !*stale && unused_pattern(v, n, root, ws))
      *stale = true;
  }
  for (size_t i = 0; i < n; i++)
    entry_free(&v[i]);
  nub_free(v);
  nub_strmap_release(&byspec, NULL);
  nub_strmap_release(&bykey, NULL);
  return rc;
}
