/* tree_graph.c - an npm lockfile's tree read as a graph; see
 * tree_graph.h. */
#include "tree_graph.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "registry_url.h"
#include "nub_alloc.h"
#include "path.h"
#include "workspace.h"
#include "strmap.h"

struct tnode_ctx {
  const struct nub_tree *t;
  struct nub_strmap bypath; /* path -> node index + 1 */
  char **key;               /* dep path per node */
};

static long find_dep(struct tnode_ctx *c, const char *from, const char *name)
{
  char cur[4096], up[4096];

  snprintf(cur, sizeof(cur), "%s", from);
  for (;;) {
    char *path = nub_path_nm_child(cur, name);
    size_t v = (size_t)(uintptr_t)nub_strmap_get(&c->bypath, path);
    nub_free(path);
    if (v)
      return (long)v - 1;
    if (!nub_path_nm_parent(cur, up, sizeof(up)))
      return -1;
    memcpy(cur, up, sizeof(cur));
  }
}

static int cmp_direct(const void *a, const void *b)
{
  return strcmp(((const struct nub_gdirect *)a)->alias, ((const struct nub_gdirect *)b)->alias);
}

static int cmp_edge(const void *a, const void *b)
{
  return strcmp(((const struct nub_gedge *)a)->alias, ((const struct nub_gedge *)b)->alias);
}

/* An importer's direct dependencies as Node finds them from its directory;
 * a link's target relative to the importer, as "link:" refs are. */
static void add_importer(struct tnode_ctx *c, struct nub_importer *im,
                         const struct nub_manifest *man)
{
  const struct nub_depmap *maps[3] = {&man->deps, &man->dev, &man->optional};
  const struct nub_tree *t = c->t;
  bool root = !strcmp(im->path, ".");

  for (int k = 0; k < 3; k++) {
    for (size_t i = 0; i < maps[k]->n; i++) {
      const struct nub_dep *d = &maps[k]->v[i];
      long ti = find_dep(c, root ? "" : im->path, d->name);
      struct nub_gdirect **v = k == 0 ? &im->deps : k == 1 ? &im->dev : &im->optional;
      size_t *cnt = k == 0 ? &im->ndeps : k == 1 ? &im->ndev : &im->noptional;
      char *ref;
      if (ti < 0)
        continue;
      if (t->nodes[ti].flags & NUB_NF_LINK) {
        char from[4096], to[4096], rel[4096];
        snprintf(from, sizeof(from), "/%s", root ? "" : im->path);
        snprintf(to, sizeof(to), "/%s", t->nodes[ti].link_target);
        ref = root || nub_path_relative(from, to, rel, sizeof(rel)) < 0
                  ? nub_asprintf("link:%s", t->nodes[ti].link_target)
                  : nub_asprintf("link:%s", rel);
      } else if (c->key[ti]) {
        ref = nub_strdup(c->key[ti]);
      } else {
        continue;
      }
      *v = nub_realloc(*v, sizeof(**v) * (*cnt + 1));
      (*v)[*cnt].alias = nub_strdup(d->name);
      (*v)[*cnt].specifier = nub_strdup(d->spec);
      (*v)[*cnt].ref = ref;
      (*cnt)++;
    }
  }
  nub_sort(im->deps, im->ndeps, sizeof(*im->deps), cmp_direct);
  nub_sort(im->dev, im->ndev, sizeof(*im->dev), cmp_direct);
  nub_sort(im->optional, im->noptional, sizeof(*im->optional), cmp_direct);
}

int nub_graph_from_tree(struct nub_graph *g, const struct nub_tree *t,
                        const struct nub_manifest *man, const struct nub_workspace *ws,
                        struct nub_err *err)
{
  struct tnode_ctx c;
  struct nub_strmap seen;
  struct nub_importer *im;

  (void)err;
  memset(&c, 0, sizeof(c));
  memset(&seen, 0, sizeof(seen));
  c.t = t;
  c.key = nub_calloc(t->n + 1, sizeof(char *));
  for (size_t i = 0; i < t->n; i++)
    if (!t->nodes[i].skip)
      nub_strmap_put(&c.bypath, t->nodes[i].path, (void *)(uintptr_t)(i + 1));
  /* A package installed at several paths with different dependencies gets
   * one key per distinct set (a numbered variant). */
  for (size_t i = 0; i < t->n; i++) {
    const struct nub_node *n = &t->nodes[i];
    struct nub_buf sig = NUB_BUF_INIT;
    struct nub_gpkg *p;
    char *base;
    if (n->skip || !n->pkg || (n->flags & (NUB_NF_BUNDLED | NUB_NF_LOCAL)))
      continue;
    base = nub_asprintf("%s@%s", n->pkg->name, n->pkg->version);
    for (size_t d = 0; d < n->ndeps; d++) {
      long ti = find_dep(&c, n->path, n->deps[d]);
      nub_buf_addf(&sig, "%s=%s;", n->deps[d], ti >= 0 ? t->nodes[ti].path : "-");
    }
    for (int variant = 0;; variant++) {
      char *k = variant ? nub_asprintf("%s(%d)", base, variant) : nub_strdup(base);
      const char *have = nub_strmap_get(&seen, k);
      if (!have) {
        nub_strmap_put(&seen, k, nub_strdup(nub_buf_str(&sig)));
        c.key[i] = k;
        p = nub_calloc(1, sizeof(*p));
        p->key = nub_strdup(k);
        p->pkg_key = nub_strdup(base);
        p->name = nub_strdup(n->pkg->name);
        p->version = nub_strdup(n->pkg->version);
        p->integrity = n->pkg->integrity ? nub_strdup(n->pkg->integrity) : NULL;
        p->tarball = n->pkg->tarball ? nub_strdup(n->pkg->tarball) : NULL;
        p->optional = (n->flags & (NUB_NF_OPTIONAL | NUB_NF_DEV_OPTIONAL)) != 0;
        /* the platform the lockfile records, for the isolated layout's
         * filter as for the hoisted one's */
        p->os = nub_strarray_dup(n->os, n->nos);
        p->nos = n->nos;
        p->cpu = nub_strarray_dup(n->cpu, n->ncpu);
        p->ncpu = n->ncpu;
        p->libc = nub_strarray_dup(n->libc, n->nlibc);
        p->nlibc = n->nlibc;
        p->fetch = n->pkg;
        nub_graph_add(g, p);
        break;
      }
      if (!strcmp(have, nub_buf_str(&sig))) {
        c.key[i] = k; /* the same package with the same dependencies */
        break;
      }
      nub_free(k);
    }
    nub_free(base);
    nub_buf_release(&sig);
  }
  nub_graph_sort(g);
  for (size_t i = 0; i < t->n; i++) {
    const struct nub_node *n = &t->nodes[i];
    struct nub_gpkg *p = c.key[i] ? nub_graph_find(g, c.key[i]) : NULL;
    if (!p || p->ndeps)
      continue; /* edges come from the first node of each key */
    for (size_t d = 0; d < n->ndeps; d++) {
      long ti = find_dep(&c, n->path, n->deps[d]);
      if (ti < 0 || !c.key[ti])
        continue;
      p->deps = nub_realloc(p->deps, sizeof(*p->deps) * (p->ndeps + 1));
      p->deps[p->ndeps].alias = nub_strdup(n->deps[d]);
      p->deps[p->ndeps].ref = nub_strdup(c.key[ti]); /* a full dep path */
      p->ndeps++;
    }
    nub_sort(p->deps, p->ndeps, sizeof(*p->deps), cmp_edge);
  }
  g->nimporters = 1 + (ws ? ws->npkgs : 0);
  g->importers = nub_calloc(g->nimporters, sizeof(*g->importers));
  for (size_t m = 0; m < g->nimporters; m++) {
    im = &g->importers[m];
    im->path = nub_strdup(m ? ws->pkgs[m - 1].dir : ".");
    add_importer(&c, im, m ? &ws->pkgs[m - 1].man : man);
  }
  for (size_t i = 0; i < t->n; i++)
    nub_free(c.key[i]);
  nub_free(c.key);
  nub_strmap_release(&c.bypath, NULL);
  nub_strmap_release(&seen, nub_free);
  return 0;
}
