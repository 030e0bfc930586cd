/* bins.c - .bin links for a tree of real package directories. */
#include "bins.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "link.h"
#include "text.h"
#include "path.h"
#include "store.h"
#include "strmap.h"
#include "sync.h"
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
  bool lf_shebang; /* a CRLF on its target's #! line becomes LF (npm, bun) */
};

/* npm's bin-links (fix-bin.js), and bun after it: a bin target whose
 * first line is "#!..." ending in CRLF (seen in its first 2048 bytes) gets
 * that line's CR removed, so the kernel finds the interpreter. The file in
 * node_modules is a link into the store: a copy with the line fixed
 * replaces it, the store's stays as the tarball had it. */
static void fix_shebang(int dir, const char *path)
{
  char head[2048], *data = NULL, *tmp;
  long got;
  size_t len = 0, cr = 0;
  struct nub_plat_stat st;
  int fd = nub_plat_open_read_at(dir, path);

  if (fd < 0)
    return;
  got = nub_plat_read(fd, head, sizeof(head));
  nub_plat_close(fd);
  if (got < 4 || head[0] != '#' || head[1] != '!')
    return;
  for (long i = 2; i < got; i++)
    if (head[i] == '\n') {
      cr = i >= 4 && head[i - 1] == '\r' ? (size_t)i - 1 : 0;
      break;
    }
  if (!cr || nub_plat_read_file_stat_at(dir, path, (size_t)1 << 30, &data, &len, &st) < 0)
    return;
  if (len > cr && data[cr] == '\r') {
    memmove(data + cr, data + cr + 1, len - cr - 1);
    tmp = nub_asprintf("%s.nub-lf-%d", path, nub_plat_pid());
    fd = nub_plat_create_excl_at(dir, tmp, (st.mode & 0777) | 0111);
    if (fd >= 0) {
      int rc = nub_plat_write_all(fd, data, len - 1);
      nub_plat_close(fd);
      if (rc == 0)
        rc = nub_plat_chmod_at(dir, tmp, (st.mode & 0777) | 0111); /* past the umask */
      if (rc == 0)
        rc = nub_plat_rename_at(dir, tmp, dir, path);
      if (rc < 0)
        nub_plat_unlink_at(dir, tmp, false);
    }
    nub_free(tmp);
  }
  nub_free(data);
}

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
  const struct binlink *made = NULL; /* the last link made */
  int rc = 0;

  *nlinks = 0;
  if (n)
    nub_sort(v, n, sizeof(*v), cmp_link);
  for (size_t i = 0; i < n; i++) {
    struct nub_plat_stat st;
    char *lp, rel[4096];
    const char *target_rel = NULL;
    if (made && !strcmp(v[i].dir, made->dir) && !strcmp(v[i].name, made->name))
      continue; /* a clash: the first one won */
    /* a target that is not there (a file the package lacks, a symlink
     * its tarball had and the unpacking dropped) gets no link, as npm's
     * bin-links skips it: the next package of that name may have one */
    {
      /* ".." applied by name: the .bin directory may not be there yet */
      bool absolute = v[i].dir[0] == '/';
      char *abs = nub_asprintf("%s%s/%s", absolute ? "" : "/r/", v[i].dir, v[i].target);
      rc = nub_path_relative(absolute ? "/" : "/r", abs, rel + 1, sizeof(rel) - 1);
      nub_free(abs);
      rel[0] = '/';
      if (rc < 0 || nub_plat_stat_follow_at(absolute ? NUB_PLAT_CWD : proj_fd,
                                            absolute ? rel : rel + 1, &st) < 0)
        continue;
      target_rel = rel + 1;
    }
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
    if (rc == 0 && v[i].fix_mode && (st.mode & 0111) != 0111) /* (st: the target's) */
      nub_plat_chmod_at(proj_fd, v[i].fix_mode, st.mode | 0111);
    if (rc == 0 && v[i].lf_shebang && !v[i].fix_mode && v[i].dir[0] != '/')
      fix_shebang(proj_fd, target_rel); /* (not in a folder of the user's) */
    if (rc < 0) {
      nub_err_set(err, rc, "cannot link %s: %s", lp, nub_strerror(rc));
      nub_free(lp);
      return rc;
    }
    nub_free(lp);
    made = &v[i];
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

/* node_bins, else what the store's index recorded (not "directories.bin",
 * from which npm links none), as pairs borrowed from the node, m or the
 * index; the caller frees *out (and m when *have_m). */
static size_t node_bin_pairs(const struct nub_node *nd, const struct nub_tree *t, int proj_fd,
                             struct nub_manifest *m, bool *have_m,
                             struct nub_index_bin **out)
{
  const struct nub_index *idx = nd->pkg ? nd->pkg->index : NULL;
  const struct nub_bin *mb = NULL;
  size_t nb = node_bins(nd, t, proj_fd, m, have_m, &mb);

  if (!mb && !nd->bins_known && idx && !(idx->flags & NUB_IDX_BINS_FROM_DIR))
    nb = idx->nbins;
  else if (!mb)
    nb = 0;
  *out = nub_calloc(nb + 1, sizeof(**out));
  for (size_t b = 0; b < nb; b++) {
    (*out)[b].name = mb ? mb[b].name : idx->bins[b].name;
    (*out)[b].target = mb ? mb[b].target : idx->bins[b].target;
  }
  return nb;
}

/* The node of nd's platform package under bun's native rule, or -1. */
static long native_package(const struct nub_tree *t, size_t i,
                           const struct nub_bins_native *native)
{
  const struct nub_node *nd = &t->nodes[i];

  if (!native || !nd->pkg || !nub_strarray_has(native->names, native->nnames, nd->pkg->name) ||
      !strcmp(native->os, "win32"))
    return -1;
  for (size_t d = 0; d < nd->ndeps; d++) {
    long r = nub_tree_resolve(t, (long)i, nd->deps[d]);
    const struct nub_node *x = r >= 0 ? &t->nodes[r] : NULL;
    if (!x || x->skip || !x->pkg || !x->nos || !x->ncpu)
      continue;
    if (nub_platform_allows(x->os, x->nos, native->os) &&
        nub_platform_allows(x->cpu, x->ncpu, native->cpu))
      return r;
  }
  return -1;
}

int nub_bins_link(int proj_fd, const struct nub_tree *t, const struct nub_depmap *direct,
                  size_t ndirect, const struct nub_bins_native *native, size_t *nlinks,
                  struct nub_err *err)
{
  struct binlink *v = NULL;
  size_t n = 0, cap = 0;
  int rc;

  for (size_t i = 0; i < t->n; i++) {
    const struct nub_node *nd = &t->nodes[i];
    struct nub_index_bin *bins;
    struct nub_manifest m;
    bool have_m = false;
    size_t nb, plen;
    long native_at;
    if (nd->skip || !nd->folder || (nd->flags & NUB_NF_LOCAL))
      continue;
    if (!nd->pkg && !(nd->flags & (NUB_NF_LINK | NUB_NF_BUNDLED)))
      continue;
    if (nd->flags & NUB_NF_BUNDLED && nd->parent >= 0 && t->nodes[nd->parent].skip)
      continue;
    nb = node_bin_pairs(nd, t, proj_fd, &m, &have_m, &bins);
    plen = (size_t)(nd->folder - nd->path);
    native_at = native_package(t, i, native);
    for (size_t b = 0; b < nb; b++) {
      const char *name = bins[b].name, *tg = bins[b].target;
      NUB_GROW(v, cap, n + 1);
      v[n] = (struct binlink){0};
      v[n].dir = nub_asprintf("%.*s.bin", (int)plen, nd->path);
      v[n].name = nub_strdup(name);
      v[n].target = NULL;
      if (native_at >= 0) {
        /* the platform package's file of the same path, when it has it */
        char *file = nub_asprintf("%s/%s", t->nodes[native_at].path, tg), rel[4096];
        char *from = nub_asprintf("/%s", v[n].dir), *to = nub_asprintf("/%s", file);
        struct nub_plat_stat st;
        if (nub_plat_stat_at(proj_fd, file, &st) == 0 && st.type == NUB_FT_FILE &&
            nub_path_relative(from, to, rel, sizeof(rel)) == 0)
          v[n].target = nub_strdup(rel);
        nub_free(from);
        nub_free(to);
        nub_free(file);
      }
      if (!v[n].target)
        v[n].target = nub_asprintf("../%s/%s", nd->folder, tg);
      v[n].lf_shebang = native ? native->lf_shebang : true;
      v[n].prio = nd->depth == 1 && is_direct(direct, ndirect, nd->folder) ? 0 : 1;
      v[n].order = nd->path;
      /* a linked folder's files are not from the store: its mode is fixed here */
      v[n].fix_mode = nd->flags & NUB_NF_LINK ? nub_asprintf("%s/%s", nd->path, tg) : NULL;
      n++;
    }
    nub_free(bins);
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
        v[n] = (struct binlink){0};
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

/* ---- yarn berry ---------------------------------------------------------------- */

/* A bin whose file exists: the link from dir to base/target. */
static bool push_berry_bin(int proj_fd, struct binlink **v, size_t *n, size_t *cap,
                           const char *dir, const char *base, const char *name,
                           const char *target, int prio, const char *order, bool fix)
{
  char *src = base[0] ? nub_asprintf("%s/%s", base, target) : nub_strdup(target);
  char from[4096], to[4096], rel[4096];
  struct nub_plat_stat st;

  if (nub_plat_stat_follow_at(proj_fd, src, &st) < 0) { /* berry skips these */
    nub_free(src);
    return false;
  }
  snprintf(from, sizeof(from), "/%s", dir);
  snprintf(to, sizeof(to), "/%s", src);
  if (nub_path_relative(from, to, rel, sizeof(rel)) < 0) {
    nub_free(src);
    return false;
  }
  NUB_GROW(*v, *cap, *n + 1);
  (*v)[*n] = (struct binlink){0};
  (*v)[*n].dir = nub_strdup(dir);
  (*v)[*n].name = nub_strdup(name);
  (*v)[*n].target = nub_strdup(rel);
  (*v)[*n].prio = prio;
  (*v)[*n].order = order;
  (*v)[*n].fix_mode = fix ? src : NULL;
  if (!fix)
    nub_free(src);
  (*n)++;
  return true;
}

int nub_bins_link_berry(int proj_fd, const struct nub_tree *t, const struct nub_manifest *root,
                        const struct nub_workspace *ws, size_t *nlinks, struct nub_err *err)
{
  struct binlink *v = NULL;
  size_t n = 0, cap = 0, nws = ws ? ws->npkgs : 0;
  char **orders = nub_calloc(t->n + 1, sizeof(char *));
  int rc;

  for (size_t i = 0; i < t->n; i++) {
    const struct nub_node *nd = &t->nodes[i];
    struct nub_index_bin *bins;
    struct nub_manifest m;
    bool have_m = false;
    size_t nb, plen;
    char *dir;
    if (nd->skip || !nd->folder || (nd->flags & NUB_NF_LOCAL) ||
        (!nd->pkg && !(nd->flags & NUB_NF_LINK)))
      continue;
    if (nd->pkg && nd->pkg->index && !(nd->flags & NUB_NF_LINK)) {
      /* berry links the bins of the package.json in the package's files,
       * not the lockfile's (the registry's, where npm made "directories.
       * bin" into "bin": none from it for berry) */
      const struct nub_index *idx = nd->pkg->index;
      nb = idx->flags & NUB_IDX_BINS_FROM_DIR ? 0 : idx->nbins;
      bins = nub_calloc(nb + 1, sizeof(*bins));
      memcpy(bins, idx->bins, nb * sizeof(*bins));
    } else {
      nb = node_bin_pairs(nd, t, proj_fd, &m, &have_m, &bins);
    }
    plen = (size_t)(nd->folder - nd->path);
    dir = nub_asprintf("%.*s.bin", (int)plen, nd->path);
    orders[i] = nub_asprintf("%012ld", nd->order);
    for (size_t b = 0; b < nb; b++)
      push_berry_bin(proj_fd, &v, &n, &cap, dir, nd->path, bins[b].name, bins[b].target, 1,
                     orders[i], (nd->flags & NUB_NF_LINK) != 0);
    nub_free(bins);
    nub_free(dir);
    if (have_m)
      nub_manifest_release(&m);
  }
  /* each workspace's own bins in its own node_modules/.bin, over its
   * dependencies' */
  for (size_t w = 0; w <= nws; w++) {
    const struct nub_manifest *m = w ? &ws->pkgs[w - 1].man : root;
    const char *base = w ? ws->pkgs[w - 1].dir : "";
    char *dir = w ? nub_asprintf("%s/node_modules/.bin", base) : nub_strdup("node_modules/.bin");
    for (size_t b = 0; b < m->nbins; b++)
      push_berry_bin(proj_fd, &v, &n, &cap, dir, base, m->bins[b].name, m->bins[b].target, 0,
                     "", true);
    nub_free(dir);
  }
  rc = write_links(proj_fd, v, n, nlinks, err);
  free_links(v, n);
  nub_strarray_free(orders, t->n);
  return rc;
}

/* ---- yarn 1 ------------------------------------------------------------------- */

/* A node and where yarn's flat tree has it: its path, but a workspace
 * member's own folder and what is in it through the member's link at the
 * top ("node_modules/@x/app/node_modules/b" for packages/app/node_modules/
 * b), as the hoister names an entry under a member hoisted to the top. */
struct yarn_flat {
  const struct nub_node *nd;
  char *at;
};

static int cmp_order(const void *a, const void *b)
{
  return nub_locale_cmp(((const struct yarn_flat *)a)->at, ((const struct yarn_flat *)b)->at);
}

/* links: the links at the top to a folder of the project (members) */
static char *yarn_flat_at(const struct nub_node *const *links, size_t nlinks,
                          const struct nub_node *nd)
{
  for (size_t i = 0; i < nlinks; i++) {
    const struct nub_node *l = links[i];
    size_t dl = strlen(l->link_target);
    if (!strncmp(nd->path, l->link_target, dl) && (!nd->path[dl] || nd->path[dl] == '/') &&
        nd != l)
      return nub_asprintf("%s%s", l->path, nd->path + dl);
  }
  return nub_strdup(nd->path);
}

/* One bin of node d into dir (".../node_modules/.bin"), a later push
 * winning over an earlier one of the same name. */
static void push_yarn_bin(int proj_fd, struct binlink **v, size_t *n, size_t *cap,
                          const char *dir, const struct nub_node *d, const char *name,
                          const char *target, int *seq)
{
  /* a member's bins from its real folder, not through its link */
  const char *base = (d->flags & NUB_NF_LINK) && d->link_target ? d->link_target : d->path;
  char *src = nub_asprintf("%s/%s", base, target), from[4096], to[4096], rel[4096];
  struct nub_plat_stat st;

  if (nub_plat_stat_follow_at(proj_fd, src, &st) < 0) {
    /* yarn links no bin whose file is missing, but has made the folder for
     * it already (package-linker's linkSelfDependencies) */
    (void)nub_mkdirs_at(proj_fd, dir); /* not made: only the tree differs */
    nub_free(src);
    return;
  }
  snprintf(from, sizeof(from), "/%s", dir);
  snprintf(to, sizeof(to), "/%s", src);
  if (nub_path_relative(from, to, rel, sizeof(rel)) < 0) {
    nub_free(src);
    return;
  }
  NUB_GROW(*v, *cap, *n + 1);
  (*v)[*n] = (struct binlink){0};
  (*v)[*n].dir = nub_strdup(dir);
  (*v)[*n].name = nub_strdup(name);
  (*v)[*n].target = nub_strdup(rel);
  (*v)[*n].prio = -(*seq)++; /* the last one written is the one that stays */
  (*v)[*n].order = "";
  (*v)[*n].fix_mode = src;
  (*n)++;
}

static size_t yarn_bins(const struct nub_node *d, const struct nub_bin **mb,
                        const struct nub_index **idx)
{
  *mb = NULL;
  *idx = d->pkg ? d->pkg->index : NULL;
  if (d->bins_known) {
    *mb = d->bins;
    return d->nbins;
  }
  /* "directories.bin" counts: yarn 1's manifest normalising makes each file
   * of that folder a bin when there is no "bin" (sshpk 1.x) */
  return *idx ? (*idx)->nbins : 0;
}

/* A workspace member's folder or its link at the top. */
static bool yarn_member(const struct nub_node *n)
{
  return (n->flags & NUB_NF_LOCAL) || ((n->flags & NUB_NF_LINK) && n->bins_known);
}

/* The name the top's bins know a node by: its package's, a member link's
 * folder; NULL for a member's folder. */
static const char *yarn_name(const struct nub_node *n)
{
  if (n->pkg)
    return n->pkg->name;
  return (n->flags & NUB_NF_LINK) ? n->folder : NULL;
}

int nub_bins_link_yarn(int proj_fd, const struct nub_tree *t, size_t *nlinks,
                       struct nub_err *err)
{
  struct yarn_flat *fl = nub_calloc(t->n + 1, sizeof(*fl));
  const struct nub_node **flat = nub_calloc(t->n + 1, sizeof(*flat));
  const struct nub_node **mlinks = nub_calloc(t->n + 1, sizeof(*mlinks));
  struct binlink *v = NULL;
  size_t n = 0, cap = 0, nf = 0, nml = 0;
  struct nub_strmap first; /* package name -> node, for the top */
  int seq = 0, rc;

  memset(&first, 0, sizeof(first));
  /* packages, and a workspace's members: their folders (whose
   * node_modules/.bin gets their dependencies' bins) and their links at the
   * top (whose own bins go to the top's) */
  for (size_t i = 0; i < t->n; i++)
    if ((t->nodes[i].flags & NUB_NF_LINK) && t->nodes[i].link_target && t->nodes[i].depth == 1)
      mlinks[nml++] = &t->nodes[i];
  for (size_t i = 0; i < t->n; i++)
    if (!t->nodes[i].skip && (t->nodes[i].pkg || yarn_member(&t->nodes[i]))) {
      fl[nf].nd = &t->nodes[i];
      fl[nf++].at = yarn_flat_at(mlinks, nml, &t->nodes[i]);
    }
  nub_sort(fl, nf, sizeof(*fl), cmp_order);
  for (size_t i = 0; i < nf; i++) {
    flat[i] = fl[i].nd;
    nub_free(fl[i].at);
  }
  nub_free(fl);
  nub_free(mlinks);
  /* each package's dependencies' bins in its own node_modules/.bin */
  for (size_t i = 0; i < nf; i++) {
    const struct nub_node *p = flat[i];
    char *dir = nub_asprintf("%s/node_modules/.bin", p->path);
    long pi = p - t->nodes;
    for (size_t k = 0; k < p->ndeps; k++) {
      long di = nub_tree_resolve(t, pi, p->deps[k]);
      const struct nub_node *d = di >= 0 ? &t->nodes[di] : NULL;
      const struct nub_bin *mb;
      const struct nub_index *idx;
      size_t nb;
      if (!d || d->skip || (!d->pkg && !(d->flags & NUB_NF_LINK)))
        continue;
      nb = yarn_bins(d, &mb, &idx);
      for (size_t b = 0; b < nb; b++)
        push_yarn_bin(proj_fd, &v, &n, &cap, dir, d, mb ? mb[b].name : idx->bins[b].name,
                      mb ? mb[b].target : idx->bins[b].target, &seq);
    }
    nub_free(dir);
  }
  /* the top: the first package of each name (a direct dependency wins the
   * name), linked in yarn's order with the direct dependencies last */
  for (size_t i = 0; i < nf; i++) {
    const char *nm = yarn_name(flat[i]);
    if (nm && ((flat[i]->flags & NUB_NF_DIRECT) || !nub_strmap_get(&first, nm)))
      nub_strmap_put(&first, nm, (void *)flat[i]);
  }
  for (int dpass = 0; dpass < 2; dpass++)
    for (size_t i = 0; i < nf; i++) {
      const struct nub_node *p = flat[i];
      const struct nub_bin *mb;
      const struct nub_index *idx;
      size_t nb;
      if (!yarn_name(p) || nub_strmap_get(&first, yarn_name(p)) != p ||
          ((p->flags & NUB_NF_DIRECT) != 0) != (dpass == 1))
        continue;
      nb = yarn_bins(p, &mb, &idx);
      for (size_t b = 0; b < nb; b++)
        push_yarn_bin(proj_fd, &v, &n, &cap, "node_modules/.bin", p,
                      mb ? mb[b].name : idx->bins[b].name,
                      mb ? mb[b].target : idx->bins[b].target, &seq);
    }
  rc = write_links(proj_fd, v, n, nlinks, err);
  free_links(v, n);
  nub_strmap_release(&first, NULL);
  nub_free(flat);
  return rc;
}
