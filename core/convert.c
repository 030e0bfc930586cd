/* convert.c - graph <-> hoisted tree, for --node-linker overrides. */
#include "convert.h"

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

/* ---- graph -> hoisted tree ------------------------------------------------ */

struct place {
  char *path;
  const struct nub_gpkg *p; /* NULL for a link */
  char *link;               /* "../lib" for link: and file: directories */
};

struct hctx {
  const struct nub_graph *g;
  struct nub_strmap at; /* path -> struct place */
  struct place **all;
  size_t n, cap;
};

struct hitem {
  char *from; /* requester path ("" = the project) */
  char *alias;
  const struct nub_gpkg *q;
};

static struct place *put(struct hctx *h, const char *path, const struct nub_gpkg *p,
                         const char *link)
{
  struct place *pl = nub_calloc(1, sizeof(*pl));
  pl->path = nub_strdup(path);
  pl->p = p;
  pl->link = link ? nub_strdup(link) : NULL;
  nub_strmap_put(&h->at, path, pl);
  NUB_GROW(h->all, h->cap, h->n + 1);
  h->all[h->n++] = pl;
  return pl;
}

static char *child_path(const char *level, const char *alias)
{
  return level[0] ? nub_asprintf("%s/node_modules/%s", level, alias)
                  : nub_asprintf("node_modules/%s", alias);
}

/* The level above `level`: "node_modules/a/node_modules/b" -> "node_modules/a",
 * "node_modules/a" -> "". Writes into out. */
static bool parent_level(const char *level, char *out, size_t cap)
{
  const char *nm;

  if (!level[0])
    return false;
  /* the last "/node_modules/" before the folder name */
  nm = NULL;
  for (const char *p = level; (p = strstr(p, "/node_modules/")) != NULL; p++)
    nm = p;
  if (!nm) {
    out[0] = '\0';
    return true;
  }
  snprintf(out, cap, "%.*s", (int)(nm - level), level);
  return true;
}

/* Where Node finds `alias` from a package at `level`. */
static const struct place *resolve_from(struct hctx *h, const char *level, const char *alias)
{
  char cur[4096], up[4096];

  snprintf(cur, sizeof(cur), "%s", level);
  for (;;) {
    char *path = child_path(cur, alias);
    const struct place *pl = nub_strmap_get(&h->at, path);
    nub_free(path);
    if (pl)
      return pl;
    if (!parent_level(cur, up, sizeof(up)))
      return NULL;
    memcpy(cur, up, sizeof(cur));
  }
}

static void enqueue_children(struct hitem **q, size_t *n, size_t *cap, const struct nub_graph *g,
                             const struct nub_gpkg *p, const char *from)
{
  for (size_t e = 0; e < p->ndeps + p->noptional_deps; e++) {
    const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
    char *t = nub_gedge_target(ed->alias, ed->ref);
    const struct nub_gpkg *c = t ? nub_graph_find(g, t) : NULL;
    nub_free(t);
    if (!c || c->skip)
      continue;
    NUB_GROW(*q, *cap, *n + 1);
    (*q)[*n].from = nub_strdup(from);
    (*q)[*n].alias = nub_strdup(ed->alias);
    (*q)[*n].q = c;
    (*n)++;
  }
}

/* A member's "link:../lib" as a path from the project: "packages/lib". */
static char *link_from_root(const struct nub_importer *im, const char *ref)
{
  char from[4096], to[4096], rel[4096];

  if (!strcmp(im->path, "."))
    return nub_strdup(ref + 5);
  snprintf(from, sizeof(from), "/");
  snprintf(to, sizeof(to), "/%s/%s", im->path, ref + 5);
  return nub_path_relative(from, to, rel, sizeof(rel)) == 0 ? nub_strdup(rel)
                                                             : nub_strdup(ref + 5);
}

int nub_tree_from_graph(struct nub_tree *t, const struct nub_graph *g,
                        const struct nub_workspace *ws, const struct nub_config *cfg,
                        struct nub_err *err)
{
  struct hctx h;
  struct hitem *q = NULL;
  size_t qn = 0, qcap = 0, head = 0;
  int rc = 0;
  bool changed = true;

  memset(&h, 0, sizeof(h));
  h.g = g;
  /* npm links every workspace member at the top, under its name, and the
   * member's folder is a node of its own */
  for (size_t m = 0; ws && m < g->nimporters; m++) {
    const struct nub_ws_pkg *wp = nub_workspace_at(ws, g->importers[m].path);
    char *path;
    if (!wp)
      continue;
    put(&h, g->importers[m].path, NULL, NULL);
    path = child_path("", wp->man.name);
    if (!nub_strmap_get(&h.at, path))
      put(&h, path, NULL, wp->dir);
    nub_free(path);
  }
  /* the importers' own dependencies: the project's at the top, a member's
   * as high as nothing stands in the way (queued from its folder) */
  for (size_t m = 0; m < g->nimporters * NUB_DEP_KINDS; m++) {
    const struct nub_importer *im = &g->importers[m / NUB_DEP_KINDS];
    bool root = !strcmp(im->path, ".");
    const char *level = root ? "" : im->path;
    const struct nub_gdirect *d;
    size_t n = nub_importer_directs(im, (int)(m % NUB_DEP_KINDS), &d);
    if (!root && !(ws && nub_workspace_at(ws, im->path)))
      continue;
    for (size_t i = 0; i < n; i++) {
      char *path = child_path(level, d[i].alias), *tk;
      const struct nub_gpkg *p;
      if (nub_strmap_get(&h.at, path)) {
        nub_free(path);
        continue;
      }
      if (!strncmp(d[i].ref, "link:", 5)) {
        char *target = link_from_root(im, d[i].ref);
        const struct place *top = root ? NULL : resolve_from(&h, level, d[i].alias);
        /* a member's link that the top already answers is not repeated */
        if (!top || !top->link || strcmp(top->link, target))
          put(&h, path, NULL, target);
        nub_free(target);
        nub_free(path);
        continue;
      }
      if (!root) {
        tk = nub_gedge_target(d[i].alias, d[i].ref);
        p = tk ? nub_graph_find(g, tk) : NULL;
        nub_free(tk);
        if (p && !p->skip) {
          NUB_GROW(q, qcap, qn + 1);
          q[qn].from = nub_strdup(level);
          q[qn].alias = nub_strdup(d[i].alias);
          q[qn].q = p;
          qn++;
        }
        nub_free(path);
        continue;
      }
      tk = nub_gedge_target(d[i].alias, d[i].ref);
      p = tk ? nub_graph_find(g, tk) : NULL;
      nub_free(tk);
      if (p && !p->skip) {
        if (p->directory)
          put(&h, path, NULL, p->directory); /* npm links file: directories */
        else {
          put(&h, path, p, NULL);
          enqueue_children(&q, &qn, &qcap, g, p, path);
        }
      }
      nub_free(path);
    }
  }
  /* breadth-first: as high as no other version of the name stands in the way */
  while (head < qn) {
    struct hitem it = q[head++];
    char level[4096], best[4096], up[4096];
    bool reuse = false, have_best = false;

    snprintf(level, sizeof(level), "%s", it.from);
    for (;;) {
      char *path = child_path(level, it.alias);
      const struct place *pl = nub_strmap_get(&h.at, path);
      nub_free(path);
      if (pl) {
        reuse = pl->p == it.q;
        break; /* taken: the same package (reuse) or a conflict */
      }
      snprintf(best, sizeof(best), "%s", level);
      have_best = true;
      if (!parent_level(level, up, sizeof(up)))
        break;
      memcpy(level, up, sizeof(level));
    }
    if (!reuse) {
      char *path = child_path(have_best ? best : it.from, it.alias);
      if (!nub_strmap_get(&h.at, path)) {
        if (it.q->directory)
          put(&h, path, NULL, it.q->directory);
        else {
          put(&h, path, it.q, NULL);
          enqueue_children(&q, &qn, &qcap, g, it.q, path);
        }
      }
      nub_free(path);
    }
    nub_free(it.from);
    nub_free(it.alias);
  }
  nub_free(q);
  /* Check every edge resolves as the graph says; where a later placement
   * shadows it, give the package its own nested copy. Repeat until stable. */
  for (int round = 0; changed && round < 50; round++) {
    changed = false;
    for (size_t i = 0; i < h.n; i++) {
      const struct place *pl = h.all[i];
      if (!pl->p)
        continue;
      for (size_t e = 0; e < pl->p->ndeps + pl->p->noptional_deps; e++) {
        const struct nub_gedge *ed = e < pl->p->ndeps ? &pl->p->deps[e]
                                                       : &pl->p->optional_deps[e - pl->p->ndeps];
        char *tk = nub_gedge_target(ed->alias, ed->ref);
        const struct nub_gpkg *c = tk ? nub_graph_find(g, tk) : NULL;
        const struct place *found;
        nub_free(tk);
        if (!c || c->skip)
          continue;
        found = resolve_from(&h, pl->path, ed->alias);
        if (found && found->p == c)
          continue;
        {
          char *path = child_path(pl->path, ed->alias);
          if (!nub_strmap_get(&h.at, path)) {
            put(&h, path, c, NULL);
            changed = true;
          }
          nub_free(path);
        }
      }
    }
  }
  /* into the tree */
  for (size_t i = 0; i < h.n && rc == 0; i++) {
    const struct place *pl = h.all[i];
    size_t ni = nub_tree_add_node(t, pl->path);
    struct nub_node *nd = &t->nodes[ni];
    if (!pl->p && !pl->link) {
      nd->flags |= NUB_NF_LOCAL; /* a workspace member's folder */
      continue;
    }
    if (!pl->p) {
      nd->flags |= NUB_NF_LINK;
      nd->link_target = nub_strdup(pl->link);
      continue;
    }
    {
      const char *tb = pl->p->tarball;
      char *url = nub_pkg_tarball_url(cfg, cfg->project_dir, pl->p->name, pl->p->version, tb);
      if (!url) {
        rc = nub_err_set(err, -NUB_ENOREGISTRY, "no tarball URL for %s: %s", pl->p->key,
                         nub_config_no_registry_hint);
        break;
      }
      nd->pkg = nub_tree_pkg(t, pl->p->name, pl->p->version, url, pl->p->integrity);
      nd->gpkg = pl->p;
      nub_free(url);
    }
    if (pl->p->optional)
      nd->flags |= NUB_NF_OPTIONAL;
    /* its dependencies by name, as an npm lockfile lists them */
    nd->deps = nub_calloc(pl->p->ndeps + pl->p->noptional_deps + 1, sizeof(char *));
    for (size_t e = 0; e < pl->p->ndeps + pl->p->noptional_deps; e++)
      nd->deps[nd->ndeps++] = nub_strdup(e < pl->p->ndeps ? pl->p->deps[e].alias
                                                          : pl->p->optional_deps[e - pl->p->ndeps].alias);
  }
  for (size_t i = 0; i < h.n; i++) {
    nub_free(h.all[i]->path);
    nub_free(h.all[i]->link);
    nub_free(h.all[i]);
  }
  nub_free(h.all);
  nub_strmap_release(&h.at, NULL);
  if (rc == 0)
    rc = nub_tree_finish(t, "the lockfile", err);
  return rc;
}

/* ---- npm tree -> graph ---------------------------------------------------- */

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
    char *path = child_path(cur, name);
    size_t v = (size_t)(uintptr_t)nub_strmap_get(&c->bypath, path);
    nub_free(path);
    if (v)
      return (long)v - 1;
    if (!parent_level(cur, up, sizeof(up)))
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
