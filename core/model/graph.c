/* graph.c - containers of the resolved graph. */
#include "graph.h"

#include <stdlib.h>
#include <string.h>

#include "nub_alloc.h"
#include "path.h"

void nub_graph_init(struct nub_graph *g)
{
  memset(g, 0, sizeof(*g));
  g->auto_install_peers = true;
}

static void free_edges(struct nub_gedge *e, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    nub_free(e[i].alias);
    nub_free(e[i].ref);
  }
  nub_free(e);
}

void nub_gpkg_free(struct nub_gpkg *p)
{
  if (!p)
    return;
  nub_free(p->key);
  nub_free(p->pkg_key);
  nub_free(p->name);
  nub_free(p->version);
  nub_free(p->integrity);
  nub_free(p->tarball);
  nub_free(p->directory);
  nub_depmap_release(&p->engines);
  nub_free(p->ext_applied);
  nub_depmap_release(&p->peers);
  nub_strarray_free(p->peers_optional, p->npeers_optional);
  nub_depmap_release(&p->dep_specs);
  nub_depmap_release(&p->opt_specs);
  nub_depmap_release(&p->bins);
  nub_depmap_release(&p->bin_raw);
  nub_free(p->bin_dir);
  nub_strarray_free(p->patterns, p->npatterns);
  nub_free(p->resolved);
  nub_free(p->shasum);
  nub_strarray_free(p->os, p->nos);
  nub_strarray_free(p->cpu, p->ncpu);
  nub_strarray_free(p->libc, p->nlibc);
  nub_free(p->deprecated);
  nub_strarray_free(p->bundled, p->nbundled);
  free_edges(p->deps, p->ndeps);
  free_edges(p->optional_deps, p->noptional_deps);
  nub_strarray_free(p->transitive_peers, p->ntransitive_peers);
  nub_free(p);
}

static void free_direct(struct nub_gdirect *d, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    nub_free(d[i].alias);
    nub_free(d[i].specifier);
    nub_free(d[i].ref);
  }
  nub_free(d);
}

void nub_graph_release(struct nub_graph *g)
{
  for (size_t i = 0; i < g->nimporters; i++) {
    struct nub_importer *im = &g->importers[i];
    nub_free(im->path);
    free_direct(im->deps, im->ndeps);
    free_direct(im->dev, im->ndev);
    free_direct(im->optional, im->noptional);
  }
  nub_free(g->importers);
  for (size_t i = 0; i < g->ncatalogs; i++) {
    nub_free(g->catalogs[i].name);
    free_direct(g->catalogs[i].entries, g->catalogs[i].n);
  }
  nub_free(g->catalogs);
  for (size_t i = 0; i < g->npkgs; i++)
    nub_gpkg_free(g->pkgs[i]);
  nub_free(g->pkgs);
  nub_depmap_release(&g->overrides);
  nub_free(g->ext_checksum);
  nub_free(g->pnpmfile_checksum);
  nub_depmap_release(&g->patched);
  nub_depmap_release(&g->settings_extra);
  memset(g, 0, sizeof(*g));
}

void nub_graph_add(struct nub_graph *g, struct nub_gpkg *p)
{
  NUB_GROW(g->pkgs, g->cappkgs, g->npkgs + 1);
  g->pkgs[g->npkgs++] = p;
}

static int cmp_pkg(const void *a, const void *b)
{
  return strcmp((*(struct nub_gpkg *const *)a)->key, (*(struct nub_gpkg *const *)b)->key);
}

void nub_graph_sort(struct nub_graph *g)
{
  if (g->npkgs)
    nub_sort(g->pkgs, g->npkgs, sizeof(*g->pkgs), cmp_pkg);
  for (size_t i = 0; i < g->npkgs; i++)
    g->pkgs[i]->index = i;
}

struct nub_gpkg *nub_graph_find(const struct nub_graph *g, const char *key)
{
  size_t lo = 0, hi = g->npkgs;

  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strcmp(g->pkgs[mid]->key, key);
    if (c == 0)
      return g->pkgs[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

char *nub_gedge_target(const char *alias, const char *ref)
{
  const char *at, *stop;

  if (!strncmp(ref, "link:", 5))
    return NULL; /* a symlink to a directory, not a package of the graph */
  /* "b@1.0.0" and "@s/b@1.0.0(peer@2)": an '@' (after a scope's) that comes
   * before any ':' or '(' means the ref names its package itself (an alias);
   * "1.0.0(peer@2)", "file:../lib" and tarball URLs belong to `alias` */
  at = strchr(ref[0] == '@' ? ref + 1 : ref, '@');
  stop = strpbrk(ref, ":(");
  if (at && (!stop || at < stop))
    return nub_strdup(ref);
  return nub_asprintf("%s@%s", alias, ref);
}

const struct nub_gedge *nub_gpkg_edge(const struct nub_gpkg *p, const char *alias)
{
  for (size_t e = 0; e < p->ndeps + p->noptional_deps; e++) {
    const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
    if (!strcmp(ed->alias, alias))
      return ed;
  }
  return NULL;
}

struct nub_gpkg *nub_graph_edge_target(const struct nub_graph *g, const struct nub_gpkg *p,
                                       const char *alias)
{
  const struct nub_gedge *ed = nub_gpkg_edge(p, alias);
  char *t = ed ? nub_gedge_target(ed->alias, ed->ref) : NULL;
  struct nub_gpkg *x = t ? nub_graph_find(g, t) : NULL;

  nub_free(t);
  return x;
}

size_t nub_importer_directs(const struct nub_importer *im, int kind,
                            const struct nub_gdirect **out)
{
  switch (kind) {
  case NUB_DEP_PROD: *out = im->deps; return im->ndeps;
  case NUB_DEP_OPTIONAL: *out = im->optional; return im->noptional;
  default: *out = im->dev; return im->ndev;
  }
}

char *nub_importer_file(const struct nub_importer *im, const char *rest)
{
  if (!strcmp(im->path, "."))
    return nub_strdup(rest);
  return nub_asprintf("%s/%s", im->path, rest);
}

char *nub_importer_link_path(const struct nub_importer *im, const char *ref)
{
  char out[4096], *rel, *abs;
  int rc;

  if (strncmp(ref, "link:", 5))
    return NULL;
  rel = nub_importer_file(im, ref + 5);
  abs = nub_asprintf("/r/%s", rel); /* a root of its own, to apply ".." by name */
  rc = nub_path_relative("/r", abs, out, sizeof(out));
  nub_free(rel);
  nub_free(abs);
  return rc < 0 ? NULL : nub_strdup(out);
}

const struct nub_importer *nub_graph_importer(const struct nub_graph *g, const char *path)
{
  for (size_t i = 0; i < g->nimporters; i++)
    if (!strcmp(g->importers[i].path, path))
      return &g->importers[i];
  return NULL;
}

int nub_importer_depth(const struct nub_importer *im)
{
  int d = 1;

  if (!strcmp(im->path, "."))
    return 0;
  for (const char *p = im->path; *p; p++)
    d += *p == '/';
  return d;
}

void nub_graph_add_catalog(struct nub_graph *g, const char *name, const char *alias,
                           const char *range, const char *version)
{
  size_t c = 0, e = 0;
  struct nub_gcatalog *cat;

  while (c < g->ncatalogs && strcmp(g->catalogs[c].name, name) < 0)
    c++;
  if (c == g->ncatalogs || strcmp(g->catalogs[c].name, name)) {
    g->catalogs = nub_realloc(g->catalogs, (g->ncatalogs + 1) * sizeof(*g->catalogs));
    memmove(g->catalogs + c + 1, g->catalogs + c, (g->ncatalogs - c) * sizeof(*g->catalogs));
    memset(&g->catalogs[c], 0, sizeof(*g->catalogs));
    g->catalogs[c].name = nub_strdup(name);
    g->ncatalogs++;
  }
  cat = &g->catalogs[c];
  while (e < cat->n && strcmp(cat->entries[e].alias, alias) < 0)
    e++;
  if (e < cat->n && !strcmp(cat->entries[e].alias, alias))
    return;
  cat->entries = nub_realloc(cat->entries, (cat->n + 1) * sizeof(*cat->entries));
  memmove(cat->entries + e + 1, cat->entries + e, (cat->n - e) * sizeof(*cat->entries));
  cat->entries[e].alias = nub_strdup(alias);
  cat->entries[e].specifier = nub_strdup(range);
  cat->entries[e].ref = nub_strdup(version);
  cat->n++;
}

const struct nub_gdirect *nub_graph_catalog(const struct nub_graph *g, const char *name,
                                            const char *alias)
{
  for (size_t c = 0; c < g->ncatalogs; c++)
    if (!strcmp(g->catalogs[c].name, name))
      for (size_t e = 0; e < g->catalogs[c].n; e++)
        if (!strcmp(g->catalogs[c].entries[e].alias, alias))
          return &g->catalogs[c].entries[e];
  return NULL;
}

/* Packages reachable only through optional edges get `optional: true`. */
void nub_graph_mark_optional(struct nub_graph *g)
{
  bool *req = nub_calloc(g->npkgs + 1, sizeof(bool));
  size_t *stack = nub_malloc(sizeof(size_t) * (g->npkgs + 1)), sp = 0; /* each pushed once */

  nub_graph_sort(g);
  for (size_t m = 0; m < g->nimporters * 2; m++) {
    const struct nub_importer *im = &g->importers[m / 2];
    int kind = (int)(m % 2);
    const struct nub_gdirect *d = kind ? im->dev : im->deps;
    size_t n = kind ? im->ndev : im->ndeps;
    for (size_t i = 0; i < n; i++) {
      char *t = nub_gedge_target(d[i].alias, d[i].ref);
      struct nub_gpkg *p = t ? nub_graph_find(g, t) : NULL;
      nub_free(t);
      if (p && !req[p->index]) {
        req[p->index] = true;
        stack[sp++] = p->index;
      }
    }
  }
  while (sp) {
    struct nub_gpkg *p = g->pkgs[stack[--sp]];
    for (size_t e = 0; e < p->ndeps; e++) {
      char *t = nub_gedge_target(p->deps[e].alias, p->deps[e].ref);
      struct nub_gpkg *c = t ? nub_graph_find(g, t) : NULL;
      nub_free(t);
      if (c && !req[c->index]) {
        req[c->index] = true;
        stack[sp++] = c->index;
      }
    }
  }
  for (size_t i = 0; i < g->npkgs; i++)
    g->pkgs[i]->optional = !req[i];
  nub_free(req);
  nub_free(stack);
}


size_t nub_graph_bfs(const struct nub_graph *g,
                     bool (*enter)(void *ud, size_t to, long from, size_t importer), void *ud)
{
  size_t *queue = nub_calloc(g->npkgs + 1, sizeof(size_t)), qh = 0, qt = 0;

  for (size_t m = 0; m < g->nimporters; m++)
    for (int k = 0; k < NUB_DEP_KINDS; k++) {
      const struct nub_gdirect *d;
      size_t nd = nub_importer_directs(&g->importers[m], k, &d);
      for (size_t i = 0; i < nd; i++) {
        char *t = nub_gedge_target(d[i].alias, d[i].ref);
        struct nub_gpkg *x = t ? nub_graph_find(g, t) : NULL;
        nub_free(t);
        if (x && qt < g->npkgs && enter(ud, x->index, -1, m))
          queue[qt++] = x->index;
      }
    }
  while (qh < qt) {
    const struct nub_gpkg *x = g->pkgs[queue[qh++]];
    for (size_t e = 0; e < x->ndeps + x->noptional_deps; e++) {
      const struct nub_gedge *ed = e < x->ndeps ? &x->deps[e] : &x->optional_deps[e - x->ndeps];
      char *t = nub_gedge_target(ed->alias, ed->ref);
      struct nub_gpkg *y = t ? nub_graph_find(g, t) : NULL;
      nub_free(t);
      if (y && qt < g->npkgs && enter(ud, y->index, (long)x->index, 0))
        queue[qt++] = y->index;
    }
  }
  nub_free(queue);
  return qt;
}

/* One edge's name, or fail naming who depends on it. */
static int check_alias(const char *alias, const char *who, const char *source,
                       struct nub_err *err)
{
  if (nub_valid_pkg_name(alias))
    return 0;
  return nub_err_set(err, -NUB_EUNSAFE,
                     "%s: %s depends on '%s', which is not a package name; refusing to "
                     "install it", source, who, alias);
}

int nub_graph_check_names(const struct nub_graph *g, const char *source, struct nub_err *err)
{
  char norm[4096];
  int rc = 0;

  for (size_t i = 0; rc == 0 && i < g->nimporters; i++) {
    const struct nub_importer *im = &g->importers[i];
    const char *who = strcmp(im->path, ".") ? im->path : "the project";
    if (strcmp(im->path, ".") &&
        (nub_path_normalize(im->path, norm, sizeof(norm)) < 0 || strcmp(norm, im->path)))
      return nub_err_set(err, -NUB_EUNSAFE,
                         "%s: importer '%s' is not a folder of the project; refusing", source,
                         im->path);
    for (int k = 0; rc == 0 && k < NUB_DEP_KINDS; k++) {
      const struct nub_gdirect *d;
      size_t n = nub_importer_directs(im, k, &d);
      for (size_t j = 0; rc == 0 && j < n; j++)
        rc = check_alias(d[j].alias, who, source, err);
    }
  }
  for (size_t i = 0; rc == 0 && i < g->npkgs; i++) {
    const struct nub_gpkg *p = g->pkgs[i];
    if (p->name && !nub_valid_pkg_name(p->name))
      return nub_err_set(err, -NUB_EUNSAFE, "%s: '%s' is not a package name; refusing",
                         source, p->name);
    for (size_t j = 0; rc == 0 && j < p->ndeps; j++)
      rc = check_alias(p->deps[j].alias, p->key, source, err);
    for (size_t j = 0; rc == 0 && j < p->noptional_deps; j++)
      rc = check_alias(p->optional_deps[j].alias, p->key, source, err);
  }
  return rc;
}

bool nub_graph_enter_once(void *ud, size_t to, long from, size_t importer)
{
  bool *seen = ud;

  (void)from;
  (void)importer;
  if (seen[to])
    return false;
  seen[to] = true;
  return true;
}

/* Whether an importer depends on alias through catalog `name`. */
static bool catalog_used(const struct nub_graph *g, const char *name, const char *alias)
{
  for (size_t i = 0; i < g->nimporters; i++)
    for (int k = 0; k < NUB_DEP_KINDS; k++) {
      const struct nub_gdirect *d;
      size_t n = nub_importer_directs(&g->importers[i], k, &d);
      for (size_t j = 0; j < n; j++) {
        const char *c = d[j].specifier;
        if (!strcmp(d[j].alias, alias) && !strncmp(c, "catalog:", 8) &&
            !strcmp(c[8] ? c + 8 : "default", name))
          return true;
      }
    }
  return false;
}

void nub_graph_prune(struct nub_graph *g)
{
  bool *seen;
  size_t k = 0;

  nub_graph_sort(g);
  seen = nub_calloc(g->npkgs + 1, sizeof(bool));
  nub_graph_bfs(g, nub_graph_enter_once, seen);
  for (size_t i = 0; i < g->npkgs; i++) {
    if (seen[i])
      g->pkgs[k++] = g->pkgs[i];
    else
      nub_gpkg_free(g->pkgs[i]);
  }
  g->npkgs = k;
  nub_free(seen);
  for (size_t c = 0; c < g->ncatalogs; c++) {
    struct nub_gcatalog *cat = &g->catalogs[c];
    size_t kept = 0;
    for (size_t e = 0; e < cat->n; e++) {
      if (catalog_used(g, cat->name, cat->entries[e].alias)) {
        cat->entries[kept++] = cat->entries[e];
      } else {
        nub_free(cat->entries[e].alias);
        nub_free(cat->entries[e].specifier);
        nub_free(cat->entries[e].ref);
      }
    }
    cat->n = kept;
  }
  {
    size_t kept = 0;
    for (size_t c = 0; c < g->ncatalogs; c++) {
      if (g->catalogs[c].n) {
        g->catalogs[kept++] = g->catalogs[c];
      } else {
        nub_free(g->catalogs[c].name);
        nub_free(g->catalogs[c].entries);
      }
    }
    g->ncatalogs = kept;
  }
  for (size_t i = 0; i < g->npkgs; i++)
    g->pkgs[i]->optional = false;
  nub_graph_mark_optional(g);
}
