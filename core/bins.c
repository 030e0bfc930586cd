/* bins.c - .bin links for a tree of real package directories. */
#include "bins.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "store.h"

struct binlink {
  char *dir;    /* ".../node_modules/.bin" */
  const char *name;
  char *target; /* "../<folder>/<path>" */
  int prio;     /* 0 for a direct dependency at the top, 1 otherwise */
  const char *path;
  const struct nub_node *node;
  const char *target_rel; /* the bin's path inside the package */
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
    c = strcmp(x->path, y->path);
  return c;
}

static bool is_direct(const struct nub_depmap *direct, size_t ndirect, const char *name)
{
  for (size_t i = 0; i < ndirect; i++)
    if (nub_depmap_get(&direct[i], name))
      return true;
  return false;
}

int nub_bins_link(int proj_fd, const struct nub_tree *t, const struct nub_depmap *direct,
                  size_t ndirect, size_t *nlinks, struct nub_err *err)
{
  struct binlink *v = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  const char *lastdir = NULL;

  *nlinks = 0;
  for (size_t i = 0; i < t->n; i++) {
    const struct nub_node *nd = &t->nodes[i], *bins_of;
    size_t nb;
    if (nd->skip || !nd->folder || (nd->flags & (NUB_NF_BUNDLED | NUB_NF_LOCAL)))
      continue;
    if (!nd->pkg && !(nd->flags & NUB_NF_LINK))
      continue;
    {
      /* npm records a linked workspace's bins on the folder's own entry */
      const struct nub_node *src = nd;
      if ((nd->flags & NUB_NF_LINK) && !nd->bins_known && nd->link_target) {
        long ti = nub_tree_find(t, nd->link_target);
        if (ti >= 0)
          src = &t->nodes[ti];
      }
      bins_of = src;
    }
    nb = bins_of->bins_known ? bins_of->nbins
                             : (nd->pkg && nd->pkg->index ? nd->pkg->index->nbins : 0);
    for (size_t b = 0; b < nb; b++) {
      const char *name = bins_of->bins_known ? bins_of->bins[b].name : nd->pkg->index->bins[b].name;
      const char *tg = bins_of->bins_known ? bins_of->bins[b].target : nd->pkg->index->bins[b].target;
      size_t plen = (size_t)(nd->folder - nd->path);
      NUB_GROW(v, cap, n + 1);
      v[n].dir = nub_asprintf("%.*s.bin", (int)plen, nd->path);
      v[n].name = name;
      v[n].target = nub_asprintf("../%s/%s", nd->folder, tg);
      v[n].prio = nd->depth == 1 && is_direct(direct, ndirect, nd->folder) ? 0 : 1;
      v[n].path = nd->path;
      v[n].node = nd;
      v[n].target_rel = tg;
      n++;
    }
  }
  nub_sort(v, n, sizeof(*v), cmp_link);
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && !strcmp(v[i].dir, v[i - 1].dir) && !strcmp(v[i].name, v[i - 1].name))
      continue; /* a clash: the first one won */
    if (!lastdir || strcmp(lastdir, v[i].dir)) {
      rc = nub_plat_mkdir_at(proj_fd, v[i].dir, 0755);
      if (rc < 0 && rc != -EEXIST) {
        nub_err_set(err, rc, "cannot create %s: %s", v[i].dir, nub_strerror(rc));
        goto out;
      }
      lastdir = v[i].dir;
    }
    {
      char *lp = nub_asprintf("%s/%s", v[i].dir, v[i].name);
      rc = nub_plat_symlink_at(v[i].target, proj_fd, lp);
      if (rc == -EEXIST) {
        nub_plat_unlink_at(proj_fd, lp, false);
        rc = nub_plat_symlink_at(v[i].target, proj_fd, lp);
      }
      if (rc == 0 && (v[i].node->flags & NUB_NF_LINK)) {
        /* a linked folder's files are not from the store: fix the mode here */
        char *real = nub_asprintf("%s/%s", v[i].node->path, v[i].target_rel);
        struct nub_plat_stat st;
        if (nub_plat_stat_follow_at(proj_fd, real, &st) == 0 && (st.mode & 0111) != 0111)
          nub_plat_chmod_at(proj_fd, real, st.mode | 0111);
        nub_free(real);
      }
      nub_free(lp);
      if (rc < 0) {
        nub_err_set(err, rc, "cannot link %s/%s: %s", v[i].dir, v[i].name, nub_strerror(rc));
        goto out;
      }
    }
    (*nlinks)++;
  }
  rc = 0;
out:
  for (size_t i = 0; i < n; i++) {
    nub_free(v[i].dir);
    nub_free(v[i].target);
  }
  nub_free(v);
  return rc;
}
