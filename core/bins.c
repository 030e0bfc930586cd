/* bins.c - .bin links for a tree of real package directories. */
#include "bins.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "link.h"
#include "path.h"
#include "store.h"
#include "workspace.h"

/* One .bin entry to make. Where two want one name in one directory, the
 * lower prio wins, then the smaller order key. */
struct binlink {
  char *dir;    /* ".../node_modules/.bin" */
  char *name;
  char *target; /* "../<folder>/<path>" */
  int prio;
  const char *order;
  char *fix_mode; /* a target outside the store, made executable here (owned) */
};

static int cmp_link(const void *a, const void *b)
{
  const struct binlink *x = a, *y = b;
  int c = strcmp(x->dir, y->dir);
  if (!c)
    c = strcmp(x->name, y->name);
  if (!c)
    c = x->prio - y->prio;
  if (!c)
    c = strcmp(x->order, y->order);
  return c;
}

static bool is_direct(const struct nub_depmap *direct, size_t ndirect, const char *name)
{
  for (size_t i = 0; i < ndirect; i++)
    if (nub_depmap_get(&direct[i], name))
      return true;
  return false;
}

/* Make the links of v (sorted here), the first of each name winning. */
static int write_links(int proj_fd, struct binlink *v, size_t n, size_t *nlinks,
                       struct nub_err *err)
{
  const char *lastdir = NULL;
  int rc = 0;

  *nlinks = 0;
  if (n)
    nub_sort(v, n, sizeof(*v), cmp_link);
  for (size_t i = 0; i < n; i++) {
    char *lp;
    if (i > 0 && !strcmp(v[i].dir, v[i - 1].dir) && !strcmp(v[i].name, v[i - 1].name))
      continue; /* a clash: the first one won */
    if (!lastdir || strcmp(lastdir, v[i].dir)) {
      rc = nub_mkdirs_at(proj_fd, v[i].dir);
      if (rc < 0 && rc != -EEXIST)
        return nub_err_set(err, rc, "cannot create %s: %s", v[i].dir, nub_strerror(rc));
      lastdir = v[i].dir;
    }
    lp = nub_asprintf("%s/%s", v[i].dir, v[i].name);
    rc = nub_plat_symlink_at(v[i].target, proj_fd, lp);
    if (rc == -EEXIST) { /* left from before: this install's list decides */
      nub_plat_unlink_at(proj_fd, lp, false);
      rc = nub_plat_symlink_at(v[i].target, proj_fd, lp);
    }
    if (rc == 0 && v[i].fix_mode) {
      struct nub_plat_stat st;
      if (nub_plat_stat_follow_at(proj_fd, v[i].fix_mode, &st) == 0 &&
          (st.mode & 0111) != 0111)
        nub_plat_chmod_at(proj_fd, v[i].fix_mode, st.mode | 0111);
    }
    if (rc < 0) {
      nub_err_set(err, rc, "cannot link %s: %s", lp, nub_strerror(rc));
      nub_free(lp);
      return rc;
    }
    nub_free(lp);
    (*nlinks)++;
  }
  return 0;
}

static void free_links(struct binlink *v, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    nub_free(v[i].dir);
    nub_free(v[i].name);
    nub_free(v[i].target);
    nub_free(v[i].fix_mode);
  }
  nub_free(v);
}

/* The bins of a node, as npm would link them: what the lockfile records
 * (v2/v3 record every package's "bin"), else the package.json the store
 * indexed ("directories.bin" does not count: npm links none from it), else,
 * for a bundled package of a v1 lockfile, its package.json on disk. */
static size_t node_bins(const struct nub_node *nd, const struct nub_tree *t, int proj_fd,
                        struct nub_manifest *m, bool *have_m, const struct nub_bin **out)
{
  const struct nub_node *src = nd;

  /* npm records a linked workspace's bins on the folder's own entry */
  if ((nd->flags & NUB_NF_LINK) && !nd->nbins && nd->link_target) {
    long ti = nub_tree_lookup(t, nd->link_target);
    if (ti >= 0)
      src = &t->nodes[ti];
  }
  if (src->bins_known) {
    *out = src->bins;
    return src->nbins;
  }
  /* a bundled package, or a linked folder whose bins the lockfile does not
   * record (bun.lock's workspaces): its package.json on disk says */
  if (((nd->flags & NUB_NF_BUNDLED) && !nd->pkg) ||
      ((nd->flags & NUB_NF_LINK) && nd->link_target)) {
    char *text = NULL, *path = nd->flags & NUB_NF_LINK
                                   ? nub_asprintf("%s/package.json", nd->link_target)
                                   : nub_asprintf("%s/package.json", nd->path);
    size_t len = 0;
    struct nub_err err;
    if (nub_plat_read_file_at(proj_fd, path, 1u << 20, &text, &len) == 0 &&
        nub_manifest_parse(m, text, len, path, &err) == 0)
      *have_m = true;
    nub_free(text);
    nub_free(path);
    *out = *have_m ? m->bins : NULL;
    return *have_m ? m->nbins : 0;
  }
  *out = NULL;
  return 0;
}

int nub_bins_link(int proj_fd, const struct nub_tree *t, const struct nub_depmap *direct,
                  size_t ndirect, size_t *nlinks, struct nub_err *err)
{
  struct binlink *v = NULL;
  size_t n = 0, cap = 0;
  int rc;

  for (size_t i = 0; i < t->n; i++) {
    const struct nub_node *nd = &t->nodes[i];
    const struct nub_index *idx = nd->pkg ? nd->pkg->index : NULL;
    const struct nub_bin *mb = NULL;
    struct nub_manifest m;
    bool have_m = false;
    size_t nb, plen;
    if (nd->skip || !nd->folder || (nd->flags & NUB_NF_LOCAL))
      continue;
    if (!nd->pkg && !(nd->flags & (NUB_NF_LINK | NUB_NF_BUNDLED)))
      continue;
    if (nd->flags & NUB_NF_BUNDLED && nd->parent >= 0 && t->nodes[nd->parent].skip)
      continue;
    nb = node_bins(nd, t, proj_fd, &m, &have_m, &mb);
    if (!mb && !nd->bins_known && idx && !(idx->flags & NUB_IDX_BINS_FROM_DIR))
      nb = idx->nbins;
    else if (!mb)
      nb = 0;
    plen = (size_t)(nd->folder - nd->path);
    for (size_t b = 0; b < nb; b++) {
      const char *name = mb ? mb[b].name : idx->bins[b].name;
      const char *tg = mb ? mb[b].target : idx->bins[b].target;
      NUB_GROW(v, cap, n + 1);
      v[n].dir = nub_asprintf("%.*s.bin", (int)plen, nd->path);
      v[n].name = nub_strdup(name);
      v[n].target = nub_asprintf("../%s/%s", nd->folder, tg);
      v[n].prio = nd->depth == 1 && is_direct(direct, ndirect, nd->folder) ? 0 : 1;
      v[n].order = nd->path;
      /* a linked folder's files are not from the store: its mode is fixed here */
      v[n].fix_mode = nd->flags & NUB_NF_LINK ? nub_asprintf("%s/%s", nd->path, tg) : NULL;
      n++;
    }
    if (have_m)
      nub_manifest_release(&m);
  }
  rc = write_links(proj_fd, v, n, nlinks, err);
  free_links(v, n);
  return rc;
}

/* The member a link: edge of importer im points at, or NULL. */
static const struct nub_ws_pkg *linked_member(const char *proj_dir,
                                              const struct nub_importer *im,
                                              const struct nub_workspace *ws, const char *ref)
{
  char *abs, rel[4096];
  const struct nub_ws_pkg *m = NULL;

  if (!ws)
    return NULL;
  abs = strcmp(im->path, ".") ? nub_asprintf("%s/%s/%s", proj_dir, im->path, ref + 5)
                              : nub_asprintf("%s/%s", proj_dir, ref + 5);
  if (nub_path_relative(proj_dir, abs, rel, sizeof(rel)) == 0)
    m = nub_workspace_at(ws, rel);
  nub_free(abs);
  return m;
}

int nub_bins_link_importers(int proj_fd, const char *proj_dir, const struct nub_graph *g,
                            const struct nub_workspace *ws, bool omit_dev, size_t *nlinks,
                            struct nub_err *err)
{
  struct binlink *v = NULL;
  size_t n = 0, cap = 0;
  int rc;

  for (size_t m = 0; m < g->nimporters * NUB_DEP_KINDS; m++) {
    const struct nub_importer *im = &g->importers[m / NUB_DEP_KINDS];
    int kind = (int)(m % NUB_DEP_KINDS);
    const struct nub_gdirect *d;
    size_t nd = nub_importer_directs(im, kind, &d);
    char *bindir = nub_importer_file(im, "node_modules/.bin");
    if ((kind == NUB_DEP_DEV && omit_dev) || im->skip)
      nd = 0;
    for (size_t i = 0; i < nd; i++) {
      char *t = nub_gedge_target(d[i].alias, d[i].ref);
      struct nub_gpkg *p = t ? nub_graph_find(g, t) : NULL;
      const struct nub_ws_pkg *wm = NULL;
      const struct nub_index *idx = NULL;
      size_t nb;
      nub_free(t);
      if (!strncmp(d[i].ref, "link:", 5))
        wm = linked_member(proj_dir, im, ws, d[i].ref);
      else if (!p || p->skip || !p->fetch || !(idx = p->fetch->index))
        continue;
      if (!wm && !idx)
        continue;
      nb = wm ? wm->man.nbins : idx->nbins;
      for (size_t b = 0; b < nb; b++) {
        const char *name = wm ? wm->man.bins[b].name : idx->bins[b].name;
        const char *tg = wm ? wm->man.bins[b].target : idx->bins[b].target;
        NUB_GROW(v, cap, n + 1);
        v[n].dir = nub_strdup(bindir);
        v[n].name = nub_strdup(name);
        v[n].target = nub_asprintf("../%s/%s", d[i].alias, tg);
        v[n].prio = kind; /* dependencies, optional, dev: the first keeps a name */
        v[n].order = d[i].alias;
        v[n].fix_mode = wm ? nub_asprintf("%s/%s", wm->dir, tg) : NULL;
        n++;
      }
    }
    nub_free(bindir);
  }
  rc = write_links(proj_fd, v, n, nlinks, err);
  free_links(v, n);
  return rc;
}
