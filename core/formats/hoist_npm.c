/* hoist_npm.c - npm's placement of a graph into a hoisted tree; see
 * hoist_npm.h. */
#include "hoist_npm.h"

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

/* Where Node finds `alias` from a package at `level`. */
static const struct place *resolve_from(struct hctx *h, const char *level, const char *alias)
{
  char cur[4096], up[4096];

  snprintf(cur, sizeof(cur), "%s", level);
  for (;;) {
    char *path = nub_path_nm_child(cur, alias);
    const struct place *pl = nub_strmap_get(&h->at, path);
    nub_free(path);
    if (pl)
      return pl;
    if (!nub_path_nm_parent(cur, up, sizeof(up)))
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
/* Whether a place holding a serves an edge to b. npm knows no peer
 * contexts: another variant of the same name@version ("p@1.0.0(react@17)"
 * beside "p@1.0.0(react@18)") is the same package to it, its edge met, so
 * it is not placed a second time. */
static bool same_package(const struct nub_gpkg *a, const struct nub_gpkg *b)
{
  return a == b || (a && a->pkg_key && b->pkg_key && !strcmp(a->pkg_key, b->pkg_key));
}

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
    if (!wp || !wp->man.name)
      continue; /* (an unnamed member is pnpm's: nothing links it) */
    put(&h, g->importers[m].path, NULL, NULL);
    path = nub_path_nm_child("", wp->man.name);
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
      char *path = nub_path_nm_child(level, d[i].alias), *tk;
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
      char *path = nub_path_nm_child(level, it.alias);
      const struct place *pl = nub_strmap_get(&h.at, path);
      nub_free(path);
      if (pl) {
        reuse = same_package(pl->p, it.q);
        break; /* taken: the same package (reuse) or a conflict */
      }
      snprintf(best, sizeof(best), "%s", level);
      have_best = true;
      if (!nub_path_nm_parent(level, up, sizeof(up)))
        break;
      memcpy(level, up, sizeof(level));
    }
    if (!reuse) {
      char *path = nub_path_nm_child(have_best ? best : it.from, it.alias);
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
        if (found && same_package(found->p, c))
          continue;
        {
          char *path = nub_path_nm_child(pl->path, ed->alias);
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
    /* its platform, as the graph records it (npm writes it so) */
    nd->os = nub_strarray_dup(pl->p->os, pl->p->nos);
    nd->nos = pl->p->nos;
    nd->cpu = nub_strarray_dup(pl->p->cpu, pl->p->ncpu);
    nd->ncpu = pl->p->ncpu;
    nd->libc = nub_strarray_dup(pl->p->libc, pl->p->nlibc);
    nd->nlibc = pl->p->nlibc;
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
