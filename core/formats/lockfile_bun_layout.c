/* lockfile_bun_layout.c - the graph bun.lock's keys resolve to, which bun
 * lays out again on every install (lockfile_bun.h). bun reads the keys as
 * resolutions only: a key "a/b" says that b, required from a, is that
 * package; `bun install` then builds its tree anew from what they resolve
 * to (Tree.zig's hoisting, hoist_bun.h), so a file an older bun wrote
 * installs as today's bun places it. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "lockfile_bun.h"
#include "nub_alloc.h"
#include "path.h"
#include "strmap.h"
#include "workspace.h"

/* bun.lock's kinds of a package's dependencies (struct nub_bun_deps) */
enum { K_DEP, K_OPT, K_PEER, K_KINDS };

static int cmp_edge(const void *a, const void *b)
{
  return strcmp(((const struct nub_gedge *)a)->alias, ((const struct nub_gedge *)b)->alias);
}

static void add_edge(struct nub_gedge **v, size_t *n, const char *alias, const char *ref)
{
  *v = nub_realloc(*v, (*n + 1) * sizeof(**v));
  (*v)[*n].alias = nub_strdup(alias);
  (*v)[*n].ref = nub_strdup(ref);
  (*n)++;
}

/* The ref an importer at dir records for node ti: a member's "link:" from
 * dir, a package's key; NULL for neither. */
static char *importer_ref(const struct nub_tree *t, char *const *key, const char *dir, long ti)
{
  const struct nub_node *n = &t->nodes[ti];
  char from[4096], to[4096], rel[4096];

  if (!(n->flags & NUB_NF_LINK))
    return key[ti] ? nub_strdup(key[ti]) : NULL;
  if (!n->link_target)
    return NULL;
  snprintf(from, sizeof(from), "/%s", strcmp(dir, ".") ? dir : "");
  snprintf(to, sizeof(to), "/%s", n->link_target);
  if (nub_path_relative(from, to, rel, sizeof(rel)) < 0)
    return NULL;
  return nub_asprintf("link:%s", rel);
}

static void add_direct(struct nub_gdirect **v, size_t *n, const char *alias, const char *spec,
                       char *ref)
{
  *v = nub_realloc(*v, (*n + 1) * sizeof(**v));
  (*v)[*n].alias = nub_strdup(alias);
  (*v)[*n].specifier = nub_strdup(spec);
  (*v)[*n].ref = ref;
  (*n)++;
}

/* An importer's direct dependencies (specs[0] dependencies, [1] dev,
 * [2] optional, [3] peers, which bun installs as dependencies), each as
 * the keys resolve it from the importer's folder (from: its node, -1 for
 * the project). */
static void importer(struct nub_importer *im, const struct nub_tree *t, char *const *key,
                     long from, const struct nub_depmap *const specs[4])
{
  for (int k = 0; k < 4; k++) {
    for (size_t i = 0; specs[k] && i < specs[k]->n; i++) {
      const struct nub_dep *d = &specs[k]->v[i];
      long ti = nub_tree_resolve(t, from, d->name);
      char *ref;
      if (ti < 0 || (k == 3 && specs[0] && nub_depmap_get(specs[0], d->name)))
        continue;
      if (!(ref = importer_ref(t, key, im->path, ti)))
        continue;
      if (k == 1)
        add_direct(&im->dev, &im->ndev, d->name, d->spec, ref);
      else if (k == 2)
        add_direct(&im->optional, &im->noptional, d->name, d->spec, ref);
      else
        add_direct(&im->deps, &im->ndeps, d->name, d->spec, ref);
    }
  }
}

int nub_bun_graph_of_keys(const struct nub_tree *t, const struct nub_bun_deps *const *deps,
                          const struct nub_workspace *ws, struct nub_graph *g, long **tmpl)
{
  char **key = nub_calloc(t->n + 1, sizeof(*key));
  struct nub_strmap seen, first; /* key -> signature; key -> node + 1 */
  bool *done;

  memset(&seen, 0, sizeof(seen));
  memset(&first, 0, sizeof(first));
  /* one package per name@version and what its dependencies resolve to (a
   * numbered variant where two copies' resolve otherwise) */
  for (size_t i = 0; i < t->n; i++) {
    const struct nub_node *n = &t->nodes[i];
    struct nub_buf sig = NUB_BUF_INIT;
    char *base;
    if (!n->pkg || (n->flags & (NUB_NF_LINK | NUB_NF_LOCAL)))
      continue;
    base = nub_asprintf("%s@%s", n->pkg->name, n->pkg->version);
    for (int k = 0; deps[i] && k < K_KINDS; k++)
      for (size_t d = 0; d < deps[i]->kind[k].n; d++) {
        const char *dn = deps[i]->kind[k].v[d].name;
        long ti = nub_tree_resolve(t, (long)i, dn);
        nub_buf_addf(&sig, "%d%s=%s;", k, dn, ti >= 0 ? t->nodes[ti].path : "-");
      }
    for (int variant = 0;; variant++) {
      char *k = variant ? nub_asprintf("%s(%d)", base, variant) : nub_strdup(base);
      const char *have = nub_strmap_get(&seen, k);
      if (!have) {
        struct nub_gpkg *p = nub_calloc(1, sizeof(*p));
        nub_strmap_put(&seen, k, nub_strdup(nub_buf_str(&sig)));
        nub_strmap_put(&first, k, (void *)(uintptr_t)(i + 1));
        key[i] = k;
        p->key = nub_strdup(k);
        p->pkg_key = nub_strdup(base);
        p->name = nub_strdup(n->pkg->name);
        p->version = nub_strdup(n->pkg->version);
        p->fetch = n->pkg;
        if (deps[i]) {
          nub_depmap_copy(&p->dep_specs, &deps[i]->kind[K_DEP]);
          nub_depmap_copy(&p->opt_specs, &deps[i]->kind[K_OPT]);
          nub_depmap_copy(&p->peers, &deps[i]->kind[K_PEER]);
        }
        nub_graph_add(g, p);
        break;
      }
      if (!strcmp(have, nub_buf_str(&sig))) {
        key[i] = k;
        break;
      }
      nub_free(k);
    }
    nub_free(base);
    nub_buf_release(&sig);
  }
  nub_graph_sort(g);
  *tmpl = nub_calloc(g->npkgs + 1, sizeof(**tmpl));
  done = nub_calloc(g->npkgs + 1, sizeof(*done));
  for (size_t i = 0; i < t->n; i++) {
    struct nub_gpkg *p = key[i] ? nub_graph_find(g, key[i]) : NULL;
    if (!p || done[p->index])
      continue;
    done[p->index] = true;
    (*tmpl)[p->index] = (long)(uintptr_t)nub_strmap_get(&first, key[i]) - 1;
    for (int k = 0; deps[i] && k < K_KINDS; k++)
      for (size_t d = 0; d < deps[i]->kind[k].n; d++) {
        const char *dn = deps[i]->kind[k].v[d].name;
        long ti = nub_tree_resolve(t, (long)i, dn);
        if (ti < 0 || !key[ti])
          continue; /* not in the file (an optional peer), or a member */
        if (k == K_PEER &&
            (nub_depmap_get(&p->dep_specs, dn) || nub_depmap_get(&p->opt_specs, dn)))
          continue; /* a dependency too: that edge is there */
        if (k == K_OPT)
          add_edge(&p->optional_deps, &p->noptional_deps, dn, key[ti]);
        else
          add_edge(&p->deps, &p->ndeps, dn, key[ti]);
      }
    nub_sort(p->deps, p->ndeps, sizeof(*p->deps), cmp_edge);
    nub_sort(p->optional_deps, p->noptional_deps, sizeof(*p->optional_deps), cmp_edge);
  }
  /* the project, then each member, from its folder */
  g->nimporters = 1 + (ws ? ws->npkgs : 0);
  g->importers = nub_calloc(g->nimporters, sizeof(*g->importers));
  g->importers[0].path = nub_strdup(".");
  {
    const struct nub_depmap *specs[4] = {&t->root_deps, &t->root_dev, &t->root_optional,
                                         &t->root_peer};
    importer(&g->importers[0], t, key, -1, specs);
  }
  for (size_t m = 0; ws && m < ws->npkgs; m++) {
    struct nub_importer *im = &g->importers[m + 1];
    long at = nub_tree_lookup(t, ws->pkgs[m].dir);
    const struct nub_depmap *ms = at >= 0 ? t->nodes[at].member_specs : NULL;
    const struct nub_depmap *specs[4] = {ms ? &ms[0] : NULL, ms ? &ms[1] : NULL,
                                         ms ? &ms[2] : NULL, ms ? &ms[3] : NULL};
    im->path = nub_strdup(ws->pkgs[m].dir);
    if (at >= 0)
      importer(im, t, key, at, specs);
  }
  nub_free(done);
  nub_strarray_free(key, t->n);
  nub_strmap_release(&seen, nub_free);
  nub_strmap_release(&first, NULL);
  return 0;
}
