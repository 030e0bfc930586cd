/* lockfile_yarn_write.c - yarn.lock v1 from a graph, as yarn 1's
 * stringify writes it: one entry per package version under every pattern
 * ("name@range") that resolves to it, entries and patterns in byte order,
 * keys and values quoted by yarn's rule, fields in yarn's order. */
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "lockfile_yarn.h"
#include "semver.h"
#include "nub_alloc.h"
#include "registry_url.h"
#include "strmap.h"

/* yarn's shouldWrapKey */
static bool wrap(const char *s)
{
  return !strncmp(s, "true", 4) || !strncmp(s, "false", 5) || strpbrk(s, ": \t\n\r\\\",[]") ||
         !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'));
}

static void put(struct nub_buf *b, const char *s)
{
  if (!wrap(s)) {
    nub_buf_adds(b, s);
    return;
  }
  {
    cJSON *tmp = cJSON_CreateString(s);
    char *txt = cJSON_PrintUnformatted(tmp);
    nub_buf_adds(b, txt ? txt : "\"\"");
    cJSON_free(txt);
    cJSON_Delete(tmp);
  }
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_dep(const void *a, const void *b)
{
  return strcmp(((const struct nub_dep *)a)->name, ((const struct nub_dep *)b)->name);
}

struct yent {
  const struct nub_gpkg *p; /* the first of its version */
  char **pats;
  size_t n, cap;
};

static int cmp_yent(const void *a, const void *b)
{
  return strcmp(((const struct yent *)a)->pats[0], ((const struct yent *)b)->pats[0]);
}

/* One entry per version, and one more per npm: alias of it: yarn resolves
 * "x-cjs@npm:x@^4" on its own and writes it on its own, beside x's. */
static void add_pattern(struct nub_strmap *byver, struct yent **v, size_t *n, size_t *cap,
                        const struct nub_gpkg *p, const char *pattern)
{
  const char *at_npm = strstr(pattern + 1, "@npm:");
  bool alias = at_npm && ((size_t)(at_npm - pattern) != strlen(p->name) ||
                          strncmp(pattern, p->name, (size_t)(at_npm - pattern)));
  char *key = alias ? nub_asprintf("%s\n%.*s", p->pkg_key, (int)(at_npm - pattern), pattern)
                : nub_strdup(p->pkg_key);
  uintptr_t at = (uintptr_t)nub_strmap_get(byver, key);
  struct yent *e;

  if (!at) {
    NUB_GROW(*v, *cap, *n + 1);
    memset(&(*v)[*n], 0, sizeof(**v));
    (*v)[*n].p = p;
    at = ++*n;
    nub_strmap_put(byver, key, (void *)at);
  }
  nub_free(key);
  e = &(*v)[at - 1];
  for (size_t i = 0; i < e->n; i++)
    if (!strcmp(e->pats[i], pattern))
      return;
  NUB_GROW(e->pats, e->cap, e->n + 1);
  e->pats[e->n++] = nub_strdup(pattern);
}

static void put_map(struct nub_buf *b, const char *key, const struct nub_depmap *m)
{
  struct nub_dep *d;

  if (!m->n)
    return;
  d = nub_calloc(m->n, sizeof(*d));
  memcpy(d, m->v, m->n * sizeof(*d));
  nub_sort(d, m->n, sizeof(*d), cmp_dep);
  nub_buf_addf(b, "\n  %s:", key);
  for (size_t i = 0; i < m->n; i++) {
    nub_buf_adds(b, "\n    ");
    put(b, d[i].name);
    nub_buf_addc(b, ' ');
    put(b, d[i].spec);
  }
  nub_free(d);
}

void nub_lockfile_yarn_write(struct nub_graph *g, const struct nub_config *cfg,
                             const struct nub_depmap *resolutions, struct nub_buf *out)
{
  struct nub_strmap byver;
  struct yent *v = NULL;
  size_t n = 0, cap = 0;

  memset(&byver, 0, sizeof(byver));
  /* every pattern that resolves to each version: the importers' and the
   * packages' own */
  for (size_t m = 0; m < g->nimporters; m++)
    for (int k = 0; k < NUB_DEP_KINDS; k++) {
      const struct nub_gdirect *d;
      size_t nd = nub_importer_directs(&g->importers[m], k, &d);
      for (size_t i = 0; i < nd; i++) {
        char *t = nub_gedge_target(d[i].alias, d[i].ref), *pat;
        const struct nub_gpkg *p = t ? nub_graph_find(g, t) : NULL;
        nub_free(t);
        if (d[i].specifier && !strncmp(d[i].specifier, "link:", 5)) {
          /* yarn records a link: by its pattern alone */
          char *lp = nub_asprintf("%s@%s", d[i].alias, d[i].specifier);
          bool seen = false;
          for (size_t j = 0; j < n && !seen; j++)
            seen = !v[j].p && !strcmp(v[j].pats[0], lp);
          if (seen) {
            nub_free(lp);
            continue;
          }
          NUB_GROW(v, cap, n + 1);
          memset(&v[n], 0, sizeof(*v));
          v[n].pats = nub_calloc(1, sizeof(char *));
          v[n].pats[0] = lp;
          v[n].n = v[n].cap = 1;
          n++;
          continue;
        }
        if (!p || p->directory)
          continue;
        pat = nub_asprintf("%s@%s", d[i].alias, d[i].specifier);
        add_pattern(&byver, &v, &n, &cap, p, pat);
        nub_free(pat);
      }
    }
  for (size_t i = 0; i < g->npkgs; i++) {
    const struct nub_gpkg *p = g->pkgs[i];
    for (size_t e = 0; e < p->ndeps + p->noptional_deps; e++) {
      const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
      const char *range = nub_depmap_get(e < p->ndeps ? &p->dep_specs : &p->opt_specs, ed->alias);
      char *t = nub_gedge_target(ed->alias, ed->ref), *pat;
      const struct nub_gpkg *c = t ? nub_graph_find(g, t) : NULL;
      nub_free(t);
      if (!c || !range || c->directory)
        continue; /* a peer edge: no pattern of its own */
      pat = nub_asprintf("%s@%s", ed->alias, range);
      add_pattern(&byver, &v, &n, &cap, c, pat);
      nub_free(pat);
    }
  }
  /* a resolution's own pattern ("json5@2.2.3" for a resolution of json5 to 2.2.3), on
   * the version it chose */
  for (size_t r = 0; resolutions && r < resolutions->n; r++) {
    const char *key = resolutions->v[r].name, *spec = resolutions->v[r].spec;
    const char *gt = strrchr(key, '>');
    const char *name = gt ? gt + 1 : key;
    for (size_t i = 0; i < g->npkgs; i++) {
      const struct nub_gpkg *p = g->pkgs[i];
      char *pat;
      if (strcmp(p->name, name) || p->directory || nub_semver_satisfies(spec, p->version, false) != 1)
        continue;
      pat = nub_asprintf("%s@%s", name, spec);
      add_pattern(&byver, &v, &n, &cap, p, pat);
      nub_free(pat);
    }
  }
  for (size_t i = 0; i < n; i++)
    nub_sort(v[i].pats, v[i].n, sizeof(char *), cmp_str);
  nub_sort(v, n, sizeof(*v), cmp_yent);
  nub_buf_adds(out, "# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.\n"
                    "# yarn lockfile v1\n\n");
  for (size_t i = 0; i < n; i++) {
    const struct nub_gpkg *p = v[i].p;
    char *url;
    if (!p) { /* a link: version "0.0.0", uid "" (as yarn writes it) */
      nub_buf_addc(out, '\n');
      put(out, v[i].pats[0]);
      nub_buf_adds(out, ":\n  version \"0.0.0\"\n  uid \"\"\n");
      nub_strarray_free(v[i].pats, v[i].n);
      continue;
    }
    /* a version the lockfile had keeps its `resolved` as written; a new
     * one gets the tarball's URL with its sha1 after '#', as yarn writes */
    url = p->resolved ? nub_strdup(p->resolved)
                            : nub_pkg_tarball_url(cfg, cfg->project_dir, p->name, p->version,
                                                  p->tarball);
    if (url && !p->resolved && p->shasum && !strchr(url, '#')) {
      char *with = nub_asprintf("%s#%s", url, p->shasum);
      nub_free(url);
      url = with;
    }
    nub_buf_addc(out, '\n');
    for (size_t k = 0; k < v[i].n; k++) {
      if (k)
        nub_buf_adds(out, ", ");
      put(out, v[i].pats[k]);
    }
    nub_buf_adds(out, ":\n  version ");
    put(out, p->version);
    if (url) {
      nub_buf_adds(out, "\n  resolved ");
      put(out, url);
    }
    if (p->integrity) {
      nub_buf_adds(out, "\n  integrity ");
      put(out, p->integrity);
    }
    put_map(out, "dependencies", &p->dep_specs);
    put_map(out, "optionalDependencies", &p->opt_specs);
    nub_buf_addc(out, '\n');
    nub_free(url);
    /* the patterns, for yarn's hoisting of this graph */
    {
      struct nub_gpkg *w = (struct nub_gpkg *)p;
      for (size_t j = 0; j < g->npkgs; j++)
        if (!strcmp(g->pkgs[j]->pkg_key, p->pkg_key) && !g->pkgs[j]->npatterns) {
          w = g->pkgs[j];
          w->patterns = nub_calloc(v[i].n, sizeof(char *));
          for (size_t k = 0; k < v[i].n; k++)
            w->patterns[k] = nub_strdup(v[i].pats[k]);
          w->npatterns = v[i].n;
        }
    }
    nub_strarray_free(v[i].pats, v[i].n);
  }
  nub_free(v);
  nub_strmap_release(&byver, NULL);
}
