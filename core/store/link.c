/* link.c - the per-file primitive ladder and per-package materialisation. */
#include "link.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nub_alloc.h"
#include "nub_plat.h"

#define SMALL_COPY_MAX (16 * 1024)

int nub_linker_init(struct nub_linker *l, struct nub_store *s,
                    enum nub_import_method m)
{
  struct nub_plat_caps caps;
  int n = 0;

  memset(l, 0, sizeof(*l));
  l->store = s;
  pthread_mutex_init(&l->lock, NULL);
  nub_plat_caps(&caps);
  switch (m) {
  case NUB_IMPORT_AUTO:
    if (caps.has_clonedir) {
      /* macOS: APFS clones are cheaper than hard links and safe to write */
      l->ladder[n++] = NUB_PRIM_CLONEDIR;
      l->ladder[n++] = NUB_PRIM_REFLINK;
    } else {
      /* Linux: linkat measured faster than per-file FICLONE even on XFS */
      l->ladder[n++] = NUB_PRIM_HARDLINK;
    }
    break;
  case NUB_IMPORT_HARDLINK:
    l->ladder[n++] = NUB_PRIM_HARDLINK;
    break;
  case NUB_IMPORT_CLONE:
  case NUB_IMPORT_CLONE_OR_COPY:
    if (caps.has_clonedir)
      l->ladder[n++] = NUB_PRIM_CLONEDIR;
    l->ladder[n++] = NUB_PRIM_REFLINK;
    break;
  case NUB_IMPORT_COPY:
    break;
  }
  l->ladder[n++] = NUB_PRIM_COPY_RANGE;
  l->ladder[n++] = NUB_PRIM_COPY;
  l->nrungs = n;
  /* aube measured small-file copies beating clonefile on APFS */
  l->small_copy = caps.has_clonedir && m == NUB_IMPORT_AUTO;
  return 0;
}

void nub_linker_release(struct nub_linker *l)
{
  pthread_mutex_destroy(&l->lock);
  nub_free(l->changed);
  l->changed = NULL;
  l->nchanged = l->capchanged = 0;
}

void nub_link_stats_add(struct nub_link_stats *dst, const struct nub_link_stats *src)
{
  for (int p = 0; p < NUB_PRIM__COUNT; p++) {
    dst->t.files[p] += src->t.files[p];
    dst->t.bytes[p] += src->t.bytes[p];
    dst->t.ns[p] += src->t.ns[p];
  }
  dst->t.fallbacks += src->t.fallbacks;
  dst->files += src->files;
  dst->dirs += src->dirs;
}

static bool uses(const struct nub_linker *l, enum nub_prim p)
{
  for (int i = 0; i < l->nrungs; i++)
    if (l->ladder[i] == p)
      return true;
  return false;
}

void nub_linker_probe(struct nub_linker *l, int dst_dir)
{
  struct nub_plat_probe pr;

  pthread_mutex_lock(&l->lock);
  if (nub_plat_probe(l->store->tmp_fd, dst_dir, &pr) == 0 &&
      (!l->probed || pr.dst_dev != l->probed_dev)) {
    l->probed = true;
    l->probed_dev = pr.dst_dev;
    for (int p = 0; p < NUB_PRIM__COUNT; p++) {
      if (p == NUB_PRIM_COPY || p == NUB_PRIM_SMALL_COPY)
        continue; /* the last rung always stays */
      if (!pr.works[p] && nub_plat_is_fallback((enum nub_prim)p, pr.err[p])) {
        l->off[p] = true;
        l->off_err[p] = pr.err[p];
      }
    }
    if (!l->notice_printed && uses(l, NUB_PRIM_HARDLINK) && l->off[NUB_PRIM_HARDLINK] &&
        pr.src_dev != pr.dst_dev) {
      l->copies_across_devices = true; /* the driver says so, once */
      l->notice_printed = true;
    }
    nub_diag_debugf("link probe: dev %llu -> %llu, hardlink %s, reflink %s, copy_range %s",
                    (unsigned long long)pr.src_dev, (unsigned long long)pr.dst_dev,
                    pr.works[NUB_PRIM_HARDLINK] ? "yes" : "no",
                    pr.works[NUB_PRIM_REFLINK] ? "yes" : "no",
                    pr.works[NUB_PRIM_COPY_RANGE] ? "yes" : "no");
  }
  pthread_mutex_unlock(&l->lock);
}

static void rule_out(struct nub_linker *l, enum nub_prim p, int rc)
{
  /* EMLINK is about one store inode, not the device: keep the rung. */
  if (p == NUB_PRIM_HARDLINK && rc == -EMLINK)
    return;
  pthread_mutex_lock(&l->lock);
  if (!l->off[p]) {
    l->off[p] = true;
    l->off_err[p] = rc;
  }
  pthread_mutex_unlock(&l->lock);
}

static int try_prim(enum nub_prim p, int sfd, const char *src,
                    const struct nub_index_file *f, int ddir, const char *dst)
{
  switch (p) {
  case NUB_PRIM_HARDLINK:
    return nub_plat_hardlink_at(sfd, src, ddir, dst);
  case NUB_PRIM_REFLINK:
    return nub_plat_reflink_at(sfd, src, ddir, dst, f->mode);
  case NUB_PRIM_COPY_RANGE:
    return nub_plat_copy_range_at(sfd, src, ddir, dst, f->mode, f->size);
  case NUB_PRIM_SMALL_COPY:
  case NUB_PRIM_COPY:
    return nub_plat_copy_stream_at(sfd, src, ddir, dst, f->mode, f->size);
  case NUB_PRIM_CLONEDIR:
  case NUB_PRIM__COUNT:
    break;
  }
  return -ENOTSUP;
}

/* One file from src (under directory fd sfd: a content name in the store's
 * files, or a path in a package tree) to dst under ddir. */
static int link_from(struct nub_linker *l, int sfd, const char *src,
                     const struct nub_index_file *f, uint64_t stored_ns, int ddir,
                     const char *dst, const char *pkg, struct nub_link_stats *st)
{
  int first_err = 0, rc = -ENOTSUP;
  enum nub_prim first_prim = NUB_PRIM_COPY, used = NUB_PRIM_COPY;
  uint64_t t0 = NUB_DIAG_ON() ? nub_plat_now_ns() : 0;

  if (l->verify) {
    struct nub_plat_stat s;
    rc = nub_plat_stat_at(sfd, src, &s);
    if (rc < 0 || s.type != NUB_FT_FILE || s.size != f->size ||
        (stored_ns && s.mtime_ns > stored_ns))
      return -ESTALE;
  }

  if (l->small_copy && f->size <= SMALL_COPY_MAX) {
    used = NUB_PRIM_SMALL_COPY;
    rc = try_prim(NUB_PRIM_SMALL_COPY, sfd, src, f, ddir, dst);
    goto done;
  }
  for (int i = 0; i < l->nrungs; i++) {
    enum nub_prim p = l->ladder[i];
    if (p == NUB_PRIM_CLONEDIR)
      continue; /* whole packages only */
    if (l->off[p] && i + 1 < l->nrungs) {
      if (!first_err) {
        first_err = l->off_err[p];
        first_prim = p;
      }
      continue;
    }
    rc = try_prim(p, sfd, src, f, ddir, dst);
    used = p;
    if (rc == 0 || i + 1 == l->nrungs || !nub_plat_is_fallback(p, rc))
      break;
    if (!first_err) {
      first_err = rc;
      first_prim = p;
    }
    rule_out(l, p, rc);
  }
done:
  if (rc == 0) {
    st->t.files[used]++;
    st->t.bytes[used] += f->size;
    if (first_err)
      st->t.fallbacks++;
    st->files++;
    if (NUB_DIAG_ON() && !st->quiet) {
      uint64_t t1 = nub_plat_now_ns();
      st->t.ns[used] += t1 - t0;
      nub_diag_link_file(used, pkg, f->size, t0, t1, first_err, first_prim);
    }
  }
  return rc;
}

static int link_file(struct nub_linker *l, const struct nub_index_file *f, uint64_t stored_ns,
                     int ddir, const char *dst, const char *pkg, struct nub_link_stats *st)
{
  char src[67];

  nub_store_file_name(f->hash, f->mode & 0111, src);
  return link_from(l, l->store->files_fd, src, f, stored_ns, ddir, dst, pkg, st);
}

int nub_mkdirs_at(int dir, const char *path)
{
  char buf[4096];
  size_t n = strlen(path);
  int rc = nub_plat_mkdir_at(dir, path, 0755);

  if (rc == 0 || rc == -EEXIST)
    return 0;
  if (rc != -ENOENT || n >= sizeof(buf))
    return rc;
  memcpy(buf, path, n + 1);
  for (size_t i = 1; i < n; i++) {
    if (buf[i] != '/')
      continue;
    buf[i] = '\0';
    rc = nub_plat_mkdir_at(dir, buf, 0755);
    buf[i] = '/';
    if (rc < 0 && rc != -EEXIST)
      return rc;
  }
  rc = nub_plat_mkdir_at(dir, buf, 0755);
  return rc == -EEXIST ? 0 : rc;
}

/* One file of idx into fd: from its package tree (tfd) or its content
 * name in the store's files. */
static int link_index_file(struct nub_linker *l, int tfd, const struct nub_index *idx,
                           const struct nub_index_file *f, int fd, const char *pkg,
                           struct nub_link_stats *st)
{
  return tfd >= 0 ? link_from(l, tfd, f->path, f, idx->stored_ns, fd, f->path, pkg, st)
                  : link_file(l, f, idx->stored_ns, fd, f->path, pkg, st);
}

/* A package to fetch again (see nub_linker.changed). */
static void note_changed(struct nub_linker *l, const struct nub_index *idx)
{
  pthread_mutex_lock(&l->lock);
  NUB_GROW(l->changed, l->capchanged, l->nchanged + 1);
  memcpy(l->changed[l->nchanged++], idx->key, 65);
  pthread_mutex_unlock(&l->lock);
}

/* Per-file materialisation into dir fd (used for package directories and
 * for building the store's trees). */
static int link_files(struct nub_linker *l, const struct nub_index *idx, int fd,
                      const char *name, const char *pkg, struct nub_link_stats *st,
                      struct nub_err *err)
{
  int rc = 0, tfd = -1;

  if (idx->tree) {
    tfd = nub_plat_open_dir_at(l->store->root_fd, idx->tree);
    if (tfd < 0 && l->verify) {
      note_changed(l, idx);
      return nub_err_set(err, -NUB_ESTORE, "the store lost %s (%s)", pkg, idx->tree);
    }
    if (tfd < 0) {
      /* gone from the store: forget the package, so that the next run
       * fetches it again */
      nub_store_index_remove(l->store, idx->key);
      return nub_err_set(err, -NUB_ESTORE, "the store lost %s (%s: %s); run the install "
                         "again to fetch it", pkg, idx->tree, nub_strerror(tfd));
    }
  }
  for (uint32_t i = 0; i < idx->ndirs; i++) {
    rc = nub_plat_mkdir_at(fd, idx->dirs[i], 0755);
    if (rc < 0 && rc != -EEXIST) {
      rc = nub_err_set(err, rc, "cannot create %s/%s for %s: %s", name, idx->dirs[i], pkg,
                       nub_strerror(rc));
      goto out;
    }
    st->dirs++;
  }
  for (uint32_t i = 0; i < idx->nfiles; i++) {
    const struct nub_index_file *f = &idx->files[i];
    rc = link_index_file(l, tfd, idx, f, fd, pkg, st);
    if (rc == -EEXIST) {
      /* a file the tree already has (a bundled copy under a deeper real
       * placement): the later placement wins, as npm's does */
      nub_plat_unlink_at(fd, f->path, false);
      rc = link_index_file(l, tfd, idx, f, fd, pkg, st);
    }
    if (rc < 0) {
      if (rc == -ESTALE) {
        note_changed(l, idx);
        rc = nub_err_set(err, -NUB_ESTORE, "the store's copy of %s changed after it was "
                         "stored (%s)", pkg, f->path);
      } else if (rc == -ENOENT) {
        /* forget the package, so that the next run fetches it again */
        nub_store_index_remove(l->store, idx->key);
        rc = nub_err_set(err, -NUB_ESTORE,
                         "the store lost a file of %s (%s); run the install again to "
                         "fetch it", pkg, f->path);
      } else if (rc == -ENOSPC || rc == -EDQUOT) {
        /* the file system, not the file, is at fault */
        rc = nub_err_set(err, rc, "the file system holding node_modules is full (%s: no room "
                         "for %s/%s of %s); free space there and run the install again",
                         nub_strerror(rc), name, f->path, pkg);
      } else {
        rc = nub_err_set(err, rc, "cannot link %s/%s for %s: %s", name, f->path, pkg,
                         nub_strerror(rc));
      }
      goto out;
    }
  }
out:
  if (tfd >= 0)
    nub_plat_close(tfd);
  return rc;
}

/* The package's tree in the store (<store>/v1/trees/<key>), built once from
 * the content files, so that a whole package can be cloned in one call. */
static int ensure_tree(struct nub_linker *l, const struct nub_index *idx, const char *pkg,
                       int *trees_fd, struct nub_err *err)
{
  static unsigned seq;
  struct nub_plat_stat st;
  struct nub_link_stats scratch;
  char tmp[96];
  int rc, fd;

  rc = nub_plat_mkdir_at(l->store->root_fd, "trees", 0755);
  if (rc < 0 && rc != -EEXIST)
    return rc;
  *trees_fd = nub_plat_open_dir_at(l->store->root_fd, "trees");
  if (*trees_fd < 0)
    return *trees_fd;
  if (nub_plat_stat_at(*trees_fd, idx->key, &st) == 0)
    return 0;
  snprintf(tmp, sizeof(tmp), ".tmp-%d-%u", nub_plat_pid(),
           __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
  rc = nub_plat_mkdir_at(*trees_fd, tmp, 0755);
  if (rc < 0)
    return rc;
  fd = nub_plat_open_dir_at(*trees_fd, tmp);
  if (fd < 0)
    return fd;
  memset(&scratch, 0, sizeof(scratch));
  scratch.quiet = true;
  rc = link_files(l, idx, fd, tmp, pkg, &scratch, err);
  nub_plat_close(fd);
  if (rc == 0) {
    rc = nub_plat_rename_noreplace_at(*trees_fd, tmp, *trees_fd, idx->key);
    if (rc == -EEXIST || rc == -ENOTEMPTY)
      rc = 0; /* another install built it first */
  }
  nub_plat_rm_rf_at(*trees_fd, tmp);
  return rc;
}

/* One clonefile(2) of the package's store tree. 1 = done, 0 = use the
 * per-file ladder, < 0 = a real failure. */
static int try_clonedir(struct nub_linker *l, const struct nub_index *idx, int parent_fd,
                        const char *name, const char *pkg, struct nub_link_stats *st,
                        struct nub_err *err)
{
  int trees_fd = -1, rc;
  uint64_t t0 = NUB_DIAG_ON() ? nub_plat_now_ns() : 0;

  if (l->off[NUB_PRIM_CLONEDIR] || idx->nfiles == 0)
    return 0;
  {
    /* the clone's parent must exist; the package directory must not */
    const char *slash = strrchr(name, '/');
    if (slash) {
      char *parent = nub_strndup(name, (size_t)(slash - name));
      rc = nub_mkdirs_at(parent_fd, parent);
      nub_free(parent);
      if (rc < 0)
        return nub_err_set(err, rc, "cannot create the parent of %s: %s", name,
                           nub_strerror(rc));
    }
  }
  rc = ensure_tree(l, idx, pkg, &trees_fd, err);
  if (rc == 0)
    rc = nub_plat_clonedir_at(trees_fd, idx->key, parent_fd, name);
  nub_plat_close(trees_fd);
  if (rc == 0) {
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < idx->nfiles; i++)
      bytes += idx->files[i].size;
    st->t.files[NUB_PRIM_CLONEDIR] += idx->nfiles;
    st->t.bytes[NUB_PRIM_CLONEDIR] += bytes;
    st->files += idx->nfiles;
    if (NUB_DIAG_ON()) {
      struct nub_jw w;
      uint64_t t1 = nub_plat_now_ns();
      st->t.ns[NUB_PRIM_CLONEDIR] += t1 - t0;
      nub_jw_begin(&w);
      nub_jw_str(&w, "pkg", pkg);
      nub_jw_int(&w, "bytes", (long long)bytes);
      nub_jw_int(&w, "files", idx->nfiles);
      nub_jw_str(&w, "prim", "clonedir");
      nub_diag_event("linker", "link_clonedir", t0, t1, nub_jw_end(&w));
    }
    return 1;
  }
  if (rc == -EEXIST)
    return 0; /* the directory is already there (nested placements): per file */
  if (nub_plat_is_fallback(NUB_PRIM_CLONEDIR, rc)) {
    rule_out(l, NUB_PRIM_CLONEDIR, rc);
    return 0;
  }
  return nub_err_set(err, rc, "cannot clone %s for %s: %s", name, pkg, nub_strerror(rc));
}

int nub_link_package(struct nub_linker *l, const struct nub_index *idx,
                     int parent_fd, const char *name, const char *pkg,
                     struct nub_link_stats *st, struct nub_err *err)
{
  int fd, rc = 0;

  if (l->nrungs && l->ladder[0] == NUB_PRIM_CLONEDIR) {
    rc = try_clonedir(l, idx, parent_fd, name, pkg, st, err);
    if (rc != 0)
      return rc < 0 ? rc : 0;
  }
  /* The hoisted linker makes package roots ahead of the workers: open
   * first, so that an existing root costs no failing mkdir. */
  fd = nub_plat_open_dir_at(parent_fd, name);
  if (fd == -ENOENT) {
    rc = nub_mkdirs_at(parent_fd, name);
    if (rc < 0)
      return nub_err_set(err, rc, "cannot create %s for %s: %s", name, pkg,
                         nub_strerror(rc));
    fd = nub_plat_open_dir_at(parent_fd, name);
  }
  if (fd < 0)
    return nub_err_set(err, fd, "cannot open %s for %s: %s", name, pkg,
                       nub_strerror(fd));
  rc = link_files(l, idx, fd, name, pkg, st, err);
  nub_plat_close(fd);
  return rc;
}
