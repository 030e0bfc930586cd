/* link_hoisted.c - materialise a hoisted tree. */
#include "link_hoisted.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "strmap.h"

struct wave {
  struct nub_tree *t;
  size_t *order; /* node indexes of this depth, biggest first */
  size_t n;
  int proj_fd;
  struct nub_linker *l;
  struct nub_progress *prog;
  struct nub_link_stats *stats; /* one per worker */
  bool *keep;
  pthread_mutex_t lock;
  int rc;
  struct nub_err err;
  size_t roots_done; /* atomic: package roots of the wave created so far */
};

/* The package roots of a wave share a few parents (node_modules above all),
 * and creating a directory holds its parent's lock - long, when the file
 * system spreads it over allocation groups. One thread makes the roots, in
 * job order, ahead of the workers that fill them: nobody spins on the lock. */
static void make_roots(struct wave *w)
{
  for (size_t k = 0; k < w->n; k++) {
    struct nub_node *n = &w->t->nodes[w->order[k]];
    if (!(n->flags & NUB_NF_LINK))
      nub_mkdirs_at(w->proj_fd, n->path); /* errors surface when linking */
    __atomic_store_n(&w->roots_done, k + 1, __ATOMIC_RELEASE);
  }
}

/* Whether a file of idx lies under folder dir (idx's files sorted by path). */
static bool has_file_under(const struct nub_index *idx, const char *dir)
{
  size_t dl = strlen(dir), lo = 0, hi = idx->nfiles;

  while (lo < hi) { /* the first path not below "dir/" */
    size_t mid = lo + (hi - lo) / 2;
    int c = strncmp(idx->files[mid].path, dir, dl);
    if (c < 0 || (c == 0 && (unsigned char)idx->files[mid].path[dl] < '/'))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < idx->nfiles && !strncmp(idx->files[lo].path, dir, dl) &&
         idx->files[lo].path[dl] == '/';
}

/* npm's pacote, after the package is linked at root:
 * - each ".gitignore" becomes ".npmignore", unless the package has a
 *   .npmignore beside it, which then stays alone (whatever their order in
 *   the tarball); the store keeps the tarball's names;
 * - its tar filter keeps file entries only, so a folder exists only as a
 *   file's parent: the tarball's empty folders go (deepest first; never a
 *   node_modules, where nested packages go). */
static void pacote_fixups(int proj_fd, const char *root, const struct nub_index *idx)
{
  for (uint32_t f = 0; f < idx->nfiles; f++) {
    const char *p = idx->files[f].path, *slash = strrchr(p, '/');
    size_t dl = slash ? (size_t)(slash - p) + 1 : 0;
    bool has_npmignore = false;
    char *from, *to;
    if (strcmp(p + dl, ".gitignore"))
      continue;
    for (uint32_t k = 0; k < idx->nfiles && !has_npmignore; k++)
      has_npmignore = !strncmp(idx->files[k].path, p, dl) &&
                      !strcmp(idx->files[k].path + dl, ".npmignore");
    from = nub_asprintf("%s/%s", root, p);
    to = nub_asprintf("%s/%.*s.npmignore", root, (int)dl, p);
    if (has_npmignore)
      nub_plat_unlink_at(proj_fd, from, false);
    else
      nub_plat_rename_at(proj_fd, from, proj_fd, to);
    nub_free(from);
    nub_free(to);
  }
  for (uint32_t d = idx->ndirs; d-- > 0;) {
    const char *dir = idx->dirs[d];
    char *path;
    if (has_file_under(idx, dir) || !strcmp(dir, "node_modules") ||
        !strncmp(dir, "node_modules/", 13) || strstr(dir, "/node_modules"))
      continue;
    path = nub_asprintf("%s/%s", root, dir);
    nub_plat_unlink_at(proj_fd, path, true);
    nub_free(path);
  }
}

static void link_node(void *vctx, size_t job, int worker)
{
  struct wave *w = vctx;
  size_t i, ni;
  struct nub_node *n;
  struct nub_err err;
  int rc;

  if (job == 0) {
    make_roots(w);
    return;
  }
  i = job - 1;
  ni = w->order[i];
  n = &w->t->nodes[ni];
  if (__atomic_load_n(&w->rc, __ATOMIC_RELAXED) || nub_plat_interrupted())
    return;
  while (__atomic_load_n(&w->roots_done, __ATOMIC_ACQUIRE) <= i)
    sched_yield();
  if (n->flags & NUB_NF_LINK) {
    /* symlink relative to the link's own directory */
    char *parent = nub_strdup(n->path), *slash = strrchr(parent, '/');
    struct nub_buf tgt = NUB_BUF_INIT;
    for (const char *p = n->path; *p; p++)
      if (*p == '/')
        nub_buf_adds(&tgt, "../");
    nub_buf_adds(&tgt, n->link_target);
    if (slash) {
      *slash = '\0';
      nub_mkdirs_at(w->proj_fd, parent);
    }
    nub_free(parent);
    nub_plat_rm_rf_at(w->proj_fd, n->path);
    rc = nub_plat_symlink_at(nub_buf_str(&tgt), w->proj_fd, n->path);
    nub_buf_release(&tgt);
    if (rc < 0) {
      nub_err_set(&err, rc, "cannot link %s -> %s: %s", n->path, n->link_target,
                  nub_strerror(rc));
      goto fail;
    }
    return;
  }
  {
    char what[512];
    snprintf(what, sizeof(what), "%s@%s", n->pkg->name, n->pkg->version);
    rc = nub_link_package(w->l, n->pkg->index, w->proj_fd, n->path, what,
                          &w->stats[worker], &err);
    if (rc == 0 && w->t->pacote_unpack)
      pacote_fixups(w->proj_fd, n->path, n->pkg->index);
  }
  if (rc < 0)
    goto fail;
  nub_progress_add(w->prog, &w->prog->linked, 1);
  if (NUB_DIAG_ON()) {
    char what[512];
    snprintf(what, sizeof(what), "%s@%s", n->pkg->name, n->pkg->version);
    nub_diag_mark("linked", what);
  }
  return;
fail:
  pthread_mutex_lock(&w->lock);
  if (!w->rc) {
    w->rc = rc;
    w->err = err;
  }
  pthread_mutex_unlock(&w->lock);
}

static int cmp_size_desc(const void *a, const void *b, void *t)
{
  const struct nub_tree *tree = t;
  const struct nub_node *x = &tree->nodes[*(const size_t *)a];
  const struct nub_node *y = &tree->nodes[*(const size_t *)b];
  uint32_t fx = x->pkg && x->pkg->index ? x->pkg->index->nfiles : 0;
  uint32_t fy = y->pkg && y->pkg->index ? y->pkg->index->nfiles : 0;
  return fx < fy ? 1 : fx > fy ? -1 : 0;
}

/* qsort_r differs between glibc and BSD; a tiny insertion-free merge sort
 * keeps us portable. */
static void sort_order(size_t *v, size_t n, const struct nub_tree *t)
{
  size_t *tmp;

  if (n < 2)
    return;
  tmp = nub_malloc(n * sizeof(*tmp));
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = lo + width < n ? lo + width : n;
      size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      size_t a = lo, b = mid, k = lo;
      while (a < mid && b < hi)
        tmp[k++] = cmp_size_desc(&v[b], &v[a], (void *)t) < 0 ? v[b++] : v[a++];
      while (a < mid)
        tmp[k++] = v[a++];
      while (b < hi)
        tmp[k++] = v[b++];
    }
    memcpy(v, tmp, n * sizeof(*v));
  }
  nub_free(tmp);
}

static bool is_installable(const struct nub_node *n)
{
  return !n->skip && !(n->flags & (NUB_NF_BUNDLED | NUB_NF_LOCAL)) &&
         ((n->flags & NUB_NF_LINK) || n->pkg);
}

struct sweep {
  int proj_fd;
  const char *holder;
  const struct nub_strmap *want; /* plan paths, and the scopes that hold some */
  struct nub_hoisted_result *res;
};

/* An entry the plan does not have, in a directory that changed: added by
 * hand or another tool; removed as `npm ci` would (dot entries such as
 * .bin or .cache are left alone). */
static int sweep_entry(void *payload, const char *name, enum nub_plat_ftype type)
{
  struct sweep *w = payload;
  char *path;

  (void)type;
  if (name[0] == '.')
    return 0;
  path = nub_asprintf("%s/%s", w->holder, name);
  if (!nub_strmap_get(w->want, path)) {
    nub_plat_rm_rf_at(w->proj_fd, path);
    w->res->removed++;
  }
  nub_free(path);
  return 0;
}

/* Which nodes can stay as they are, and which old paths must go. A node is
 * kept when the previous install made it from the same package and its
 * directory is as that install left it (its time in the state); the
 * directories holding packages whose time changed are swept of what the
 * plan does not have. */
static void reconcile(int proj_fd, struct nub_tree *t, const struct nub_state *old,
                      bool *keep, struct nub_hoisted_result *res)
{
  /* old paths are sorted by path, as are t->nodes */
  size_t j = 0;
  char **removed = NULL;
  size_t nrem = 0, caprem = 0;
  struct nub_strmap want, swept;

  memset(&want, 0, sizeof(want));
  memset(&swept, 0, sizeof(swept));
  for (size_t i = 0; i < t->n; i++) {
    struct nub_node *n = &t->nodes[i];
    int c = 1;
    while (j < old->n && (c = strcmp(old->paths[j], n->path)) < 0)
      j++;
    if (j < old->n && c == 0 && is_installable(n) && n->pkg &&
        !strcmp(old->keys[j], nub_pkg_link_key(n->pkg)) &&
        nub_state_dir_unchanged(proj_fd, n->path, nub_state_dir(old, n->path)) &&
        (n->parent < 0 || keep[n->parent] || !is_installable(&t->nodes[n->parent])))
      keep[i] = true;
    if (is_installable(n)) {
      nub_strmap_put(&want, n->path, n);
      if (n->folder[0] == '@') {
        char *scope = nub_strndup(n->path, nub_node_holder_len(n));
        nub_strmap_put(&want, scope, n);
        nub_free(scope);
      }
    }
  }
  for (size_t k = 0; k < old->n; k++) {
    long ni = nub_tree_lookup(t, old->paths[k]);
    bool parent_gone = false;
    if (ni >= 0 && keep[ni])
      continue;
    for (size_t r = 0; r < nrem; r++) {
      size_t rl = strlen(removed[r]);
      if (!strncmp(old->paths[k], removed[r], rl) && old->paths[k][rl] == '/')
        parent_gone = true;
    }
    if (parent_gone)
      continue;
    {
      struct nub_plat_stat st;
      bool there = nub_plat_stat_at(proj_fd, old->paths[k], &st) == 0;
      nub_plat_rm_rf_at(proj_fd, old->paths[k]);
      NUB_GROW(removed, caprem, nrem + 1);
      removed[nrem++] = old->paths[k];
      /* a package the plan no longer has counts as removed; one that is
       * relinked (changed on disk, or another version) does not */
      if (there && (ni < 0 || !is_installable(&t->nodes[ni])))
        res->removed++;
    }
  }
  /* what was added by hand: in node_modules, in a scope, in a package's
   * own node_modules */
  for (size_t i = 0; i < t->n; i++) {
    const struct nub_node *n = &t->nodes[i];
    size_t hl;
    if (!is_installable(n))
      continue;
    for (int level = 0; level < 2; level++) {
      /* the scope, and the node_modules that holds it */
      char *holder;
      struct sweep w;
      hl = level == 0 ? nub_node_holder_len(n) : nub_node_nm_len(n);
      if (level == 1 && n->folder[0] != '@')
        break;
      holder = nub_strndup(n->path, hl);
      if (!nub_strmap_get(&swept, holder)) {
        nub_strmap_put(&swept, holder, (void *)1);
        if (!nub_state_dir_unchanged(proj_fd, holder, nub_state_dir(old, holder))) {
          w.proj_fd = proj_fd;
          w.holder = holder;
          w.want = &want;
          w.res = res;
          nub_plat_list_dir_at(proj_fd, holder, sweep_entry, &w);
        }
      }
      nub_free(holder);
    }
  }
  nub_strmap_release(&want, NULL);
  nub_strmap_release(&swept, NULL);
  nub_free(removed);
}

/* node_modules made (or there) and the linker probed against it; a fresh
 * one spread over the file system's allocation groups. */
static int open_root(int proj_fd, struct nub_linker *l)
{
  int rc = nub_plat_mkdir_at(proj_fd, "node_modules", 0755), nm;

  if (rc < 0 && rc != -EEXIST)
    return rc;
  nm = nub_plat_open_dir_at(proj_fd, "node_modules");
  if (nm >= 0) {
    /* Every package directory starts a hierarchy of its own. Spread over
     * the file system's allocation groups, a fresh tree does not queue
     * behind the directories of the one deleted just before (ext4 skips
     * recently freed inodes one by one when it allocates near them). */
    nub_plat_spread_hint(nm);
    nub_linker_probe(l, nm);
    nub_plat_close(nm);
  }
  return 0;
}

/* ---- linking while the fetch runs (hoisted.h) ---------------------------- */

struct nub_hoisted_early {
  int proj_fd;
  struct nub_tree *t;
  struct nub_linker *l;
  struct nub_progress *prog;
  struct nub_strmap first; /* pkg key -> its first early node + 1 */
  size_t *next;            /* the next early node of the same package + 1 */
  bool *done;              /* node linked */
  struct nub_link_stats *stats; /* one per worker */
  int nworkers;
  size_t ndone;            /* atomic */
};

/* A node at the top of the project's node_modules (not a member's) that
 * is surely installed, as it is stored (a patched package is linked once
 * its patched copy is made, after the fetch). */
static bool early_node(const struct nub_node *n)
{
  return is_installable(n) && !(n->flags & (NUB_NF_LINK | NUB_NF_OPTIONAL | NUB_NF_DEV_OPTIONAL)) &&
         !n->pkg->patch_hash[0] &&
         n->depth == 1 && !strncmp(n->path, "node_modules/", 13);
}

struct nub_hoisted_early *nub_hoisted_early_begin(int proj_fd, struct nub_tree *t,
                                                  struct nub_linker *l, int nworkers,
                                                  struct nub_progress *prog)
{
  struct nub_hoisted_early *e;
  struct nub_plat_stat st;
  size_t n = 0;

  if (nub_plat_stat_at(proj_fd, "node_modules", &st) != -ENOENT || open_root(proj_fd, l) < 0)
    return NULL;
  e = nub_calloc(1, sizeof(*e));
  e->proj_fd = proj_fd;
  e->t = t;
  e->l = l;
  e->prog = prog;
  e->nworkers = nworkers;
  e->next = nub_calloc(t->n + 1, sizeof(*e->next));
  e->done = nub_calloc(t->n + 1, sizeof(*e->done));
  e->stats = nub_calloc((size_t)nworkers + 1, sizeof(*e->stats));
  for (size_t i = t->n; i-- > 0;) {
    const struct nub_node *nd = &t->nodes[i];
    if (!early_node(nd))
      continue;
    e->next[i] = (size_t)(uintptr_t)nub_strmap_get(&e->first, nd->pkg->key);
    nub_strmap_put(&e->first, nd->pkg->key, (void *)(uintptr_t)(i + 1));
    n++;
  }
  nub_diag_debugf("link: %zu packages may be linked as they are stored", n);
  return e;
}

void nub_hoisted_early_stored(void *ud, struct nub_pkg *p, int worker)
{
  struct nub_hoisted_early *e = ud;
  size_t at = (size_t)(uintptr_t)nub_strmap_get(&e->first, p->key);

  if (worker < 0 || worker >= e->nworkers)
    return; /* not one of the pool's: left to the link phase */
  for (; at && p->index && !nub_plat_interrupted(); at = e->next[at - 1]) {
    struct nub_node *n = &e->t->nodes[at - 1];
    struct nub_err err;
    char what[512];
    snprintf(what, sizeof(what), "%s@%s", p->name, p->version);
    if (nub_link_package(e->l, p->index, e->proj_fd, n->path, what, &e->stats[worker],
                         &err) < 0) {
      /* the link phase makes it again, and says what is wrong if it is */
      nub_plat_rm_rf_at(e->proj_fd, n->path);
      continue;
    }
    if (e->t->pacote_unpack)
      pacote_fixups(e->proj_fd, n->path, p->index);
    e->done[at - 1] = true;
    __atomic_add_fetch(&e->ndone, 1, __ATOMIC_RELAXED);
    nub_progress_add(e->prog, &e->prog->linked, 1);
    if (NUB_DIAG_ON())
      nub_diag_mark("linked", what);
  }
}

size_t nub_hoisted_early_count(const struct nub_hoisted_early *e)
{
  return e ? __atomic_load_n(&e->ndone, __ATOMIC_RELAXED) : 0;
}

void nub_hoisted_early_free(struct nub_hoisted_early *e)
{
  if (!e)
    return;
  nub_strmap_release(&e->first, NULL);
  nub_free(e->next);
  nub_free(e->done);
  nub_free(e->stats);
  nub_free(e);
}

int nub_hoisted_link(int proj_fd, struct nub_tree *t, const struct nub_state *old,
                     struct nub_linker *l, struct nub_pool *pool,
                     struct nub_progress *prog, struct nub_hoisted_early *early,
                     struct nub_hoisted_result *res, struct nub_err *err)
{
  struct wave w;
  int maxdepth = 0, rc;
  size_t total = 0;
  int nw = nub_pool_size(pool);

  memset(res, 0, sizeof(*res));
  memset(&w, 0, sizeof(w));
  w.keep = nub_calloc(t->n + 1, sizeof(bool));
  if (old)
    reconcile(proj_fd, t, old, w.keep, res);
  for (size_t i = 0; early && i < t->n; i++) {
    if (!early->done[i])
      continue;
    if (is_installable(&t->nodes[i])) {
      w.keep[i] = true; /* made while the fetch ran */
      res->packages++;
    } else { /* the fetch left it out after all */
      nub_plat_rm_rf_at(proj_fd, t->nodes[i].path);
    }
  }
  for (int i = 0; early && i < early->nworkers; i++)
    nub_link_stats_add(&res->st, &early->stats[i]);
  rc = early ? 0 : open_root(proj_fd, l); /* (done before the fetch, early) */
  if (rc < 0) {
    nub_free(w.keep);
    return nub_err_set(err, rc, "cannot create node_modules: %s", nub_strerror(rc));
  }
  for (size_t i = 0; i < t->n; i++) {
    if (is_installable(&t->nodes[i]) && !w.keep[i]) {
      total++;
      if (t->nodes[i].depth > maxdepth)
        maxdepth = t->nodes[i].depth;
    } else if (w.keep[i] && !(early && early->done[i])) {
      res->kept++;
    }
  }
  nub_progress_set(prog, &prog->link_total, total + nub_hoisted_early_count(early));
  w.t = t;
  w.proj_fd = proj_fd;
  w.l = l;
  w.prog = prog;
  w.stats = nub_calloc((size_t)nw, sizeof(*w.stats));
  w.order = nub_malloc(sizeof(size_t) * (t->n + 1));
  pthread_mutex_init(&w.lock, NULL);
  nub_err_clear(&w.err);
  for (int d = 1; d <= maxdepth && !w.rc; d++) {
    w.n = 0;
    for (size_t i = 0; i < t->n; i++)
      if (t->nodes[i].depth == d && is_installable(&t->nodes[i]) && !w.keep[i])
        w.order[w.n++] = i;
    sort_order(w.order, w.n, t);
    w.roots_done = 0;
    nub_pool_for(pool, w.n + 1, link_node, &w); /* job 0 makes the roots */
    if (nub_plat_interrupted() && !w.rc) {
      w.rc = -NUB_EINTR;
      nub_err_set(&w.err, -NUB_EINTR, "interrupted while linking");
    }
  }
  for (int i = 0; i < nw; i++)
    nub_link_stats_add(&res->st, &w.stats[i]);
  res->packages += total;
  rc = w.rc;
  if (rc)
    *err = w.err;
  pthread_mutex_destroy(&w.lock);
  nub_free(w.stats);
  nub_free(w.order);
  nub_free(w.keep);
  return rc;
}
