/* extract.c - libarchive stream -> validated entries -> store import. */
#include "extract.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "buf.h"
#include "inflate.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "path.h"

/* libarchive is loaded on first use (a tarball to unpack), for the same
 * reason as libcurl in http.c: warm installs never need it or its ~15
 * dependencies. */
#ifndef NUB_LIBARCHIVE
#define NUB_LIBARCHIVE "libarchive.so.13"
#endif

#define ARCHIVE_FUNCS(X)                                                       \
  X(archive_entry_filetype) X(archive_entry_hardlink) X(archive_entry_pathname) \
  X(archive_entry_perm) X(archive_error_string) X(archive_read_data_block)     \
  X(archive_read_free) X(archive_read_new) X(archive_read_next_header)         \
  X(archive_read_open)                      \
  X(archive_read_support_filter_none) X(archive_read_support_format_tar)       \
  X(archive_set_error)

static struct {
  pthread_mutex_t lock;
  bool loaded;
  void *lib;
#define X(f) __typeof__(f) *f;
  ARCHIVE_FUNCS(X)
#undef X
} la = {.lock = PTHREAD_MUTEX_INITIALIZER};


static int archive_load(struct nub_err *err)
{
  char msg[512];
  int rc = 0;

  pthread_mutex_lock(&la.lock);
  if (la.loaded)
    goto out;
  rc = nub_plat_load_library(NUB_LIBARCHIVE, &la.lib, msg, sizeof(msg));
  if (rc < 0) {
    nub_err_set(err, -NUB_EEXTRACT, "cannot load libarchive (%s): %s", NUB_LIBARCHIVE, msg);
    goto out;
  }
#define X(f)                                                                   \
  la.f = (__typeof__(la.f))nub_plat_symbol(la.lib, #f);                        \
  if (!la.f) {                                                                 \
    rc = nub_err_set(err, -NUB_EEXTRACT, "libarchive (%s) lacks %s", NUB_LIBARCHIVE, #f); \
    goto out;                                                                  \
  }
  ARCHIVE_FUNCS(X)
#undef X
  la.loaded = true;
out:
  pthread_mutex_unlock(&la.lock);
  return rc;
}

/* From here on the library calls go through the table. */
#define archive_entry_filetype la.archive_entry_filetype
#define archive_entry_hardlink la.archive_entry_hardlink
#define archive_entry_pathname la.archive_entry_pathname
#define archive_entry_perm la.archive_entry_perm
#define archive_error_string la.archive_error_string
#define archive_read_data_block la.archive_read_data_block
#define archive_read_free la.archive_read_free
#define archive_read_new la.archive_read_new
#define archive_read_next_header la.archive_read_next_header
#define archive_read_open la.archive_read_open
#define archive_read_support_filter_none la.archive_read_support_filter_none
#define archive_read_support_format_tar la.archive_read_support_format_tar
#define archive_set_error la.archive_set_error

const struct nub_extract_limits nub_extract_default_limits = {
  200000, 512ull << 20, 1ull << 30,
};

/* An input buffer bigger than this is not kept for the next tarball. */
#define KEEP_IN_MAX (8u << 20)

/* The tar stream for libarchive: the decoder's windows, or the input as it
 * is when it is not gzip'd. */
struct src {
  struct nub_inflate_stream *zs; /* NULL: plain */
  const unsigned char *data;
  size_t len;
  bool given;
  int rc;          /* the decoder's error */
  const char *why; /* its reason */
};

static la_ssize_t read_cb(struct archive *a, void *ud, const void **buf)
{
  struct src *s = ud;
  size_t n;

  if (!s->zs) {
    if (s->given)
      return 0;
    s->given = true;
    *buf = s->data;
    return (la_ssize_t)s->len;
  }
  s->rc = nub_inflate_stream_next(s->zs, (const unsigned char **)buf, &n, &s->why);
  if (s->rc < 0) {
    archive_set_error(a, EIO, "gzip: %s", s->why);
    return -1;
  }
  return (la_ssize_t)n;
}

/* The decoder's failure as the message a user sees. */
static int decode_error(const struct src *s, const char *what, struct nub_err *err)
{
  if (s->rc == -EFBIG)
    return nub_err_set(err, -NUB_EEXTRACT, "%s: tarball unpacks to more than the "
                       "per-package cap; refusing the package", what);
  return nub_err_set(err, -NUB_EEXTRACT, "%s: corrupt tarball (gzip: %s)", what, s->why);
}

/* Read rd to its end into one buffer, at most `max` bytes. */
static int slurp(nub_extract_read_fn rd, void *ud, uint64_t max, struct nub_buf *b)
{
  for (;;) {
    const void *p;
    long n = rd(ud, &p);
    if (n <= 0)
      return (int)n;
    if (b->len + (size_t)n > max)
      return -EFBIG;
    nub_buf_add(b, p, (size_t)n);
  }
}

static const char *type_name(mode_t t)
{
  switch (t) {
  case AE_IFLNK: return "symlink";
  case AE_IFCHR: return "character device";
  case AE_IFBLK: return "block device";
  case AE_IFIFO: return "fifo";
  case AE_IFSOCK: return "socket";
  default: return "special file";
  }
}

int nub_extract(struct nub_import *im, nub_extract_read_fn rd, void *ud,
                const char *what, const struct nub_extract_limits *lim,
                nub_extract_check_fn check, struct nub_extract_scratch *scratch,
                struct nub_extract_stats *st, struct nub_err *err)
{
  struct archive *a = NULL;
  struct archive_entry *e;
  struct src s = {NULL, NULL, 0, false, 0, ""};
  struct nub_extract_scratch own = {NUB_BUF_INIT, NULL, NUB_BUF_INIT};
  struct nub_extract_scratch *sc = scratch ? scratch : &own;
  char norm[4096];
  int rc = archive_load(err), r;

  memset(st, 0, sizeof(*st));
  if (rc < 0)
    return rc;
  if (!lim)
    lim = &nub_extract_default_limits;
  nub_buf_reset(&sc->in);
  if (scratch)
    nub_import_reuse(im, &scratch->files);
  rc = slurp(rd, ud, lim->max_total_bytes, &sc->in);
  if (rc == -EFBIG) {
    rc = nub_err_set(err, -NUB_EEXTRACT, "%s: tarball is larger than the per-package cap; "
                     "refusing the package", what);
    goto out;
  }
  if (rc == 0 && check)
    rc = check(ud);
  if (rc < 0)
    goto out;
  if (nub_is_gzip(sc->in.data, sc->in.len)) {
    if (!sc->zs)
      sc->zs = nub_inflate_stream_new();
    /* the tar stream may exceed the content cap by its headers */
    nub_inflate_stream_begin(sc->zs, sc->in.data, sc->in.len, true, check == NULL,
                             lim->max_total_bytes + (lim->max_total_bytes >> 3));
    s.zs = sc->zs;
  } else {
    s.data = (const unsigned char *)sc->in.data;
    s.len = sc->in.len;
  }
  a = archive_read_new();
  archive_read_support_filter_none(a);
  archive_read_support_format_tar(a);
  if (archive_read_open(a, &s, NULL, read_cb, NULL) != ARCHIVE_OK) {
    rc = s.rc ? decode_error(&s, what, err)
              : nub_err_set(err, -NUB_EEXTRACT, "%s: not a tarball (%s)", what,
                            archive_error_string(a));
    goto out;
  }
  while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
    const char *raw = archive_entry_pathname(e), *rest;
    mode_t type = archive_entry_filetype(e);
    bool hardlink = archive_entry_hardlink(e) != NULL;

    if (++st->entries > lim->max_entries) {
      rc = nub_err_set(err, -NUB_EEXTRACT, "%s: tarball has more than %llu entries",
                       what, (unsigned long long)lim->max_entries);
      goto out;
    }
    if (!raw || !*raw) {
      st->skipped++;
      continue;
    }
    if (raw[0] == '/') {
      rc = nub_err_set(err, -NUB_EEXTRACT,
                       "%s: tarball entry '%s' has an absolute path; refusing the "
                       "package", what, raw);
      goto out;
    }
    /* Strip the leading folder whatever its name. */
    rest = raw;
    while (rest[0] == '.' && rest[1] == '/')
      rest += 2;
    rest = strchr(rest, '/');
    if (!rest || !rest[1]) {
      st->skipped++; /* the folder itself, or a file outside any folder */
      continue;
    }
    rest++;
    if (nub_path_normalize(rest, norm, sizeof(norm)) < 0) {
      rc = nub_err_set(err, -NUB_EEXTRACT,
                       "%s: tarball entry '%s' escapes the package or has an "
                       "invalid name; refusing the package", what, raw);
      goto out;
    }
    if (hardlink) {
      st->skipped++; /* links are dropped, as npm does */
      continue;
    }
    if (type == AE_IFDIR) {
      nub_import_dir(im, norm);
      st->dirs++;
      continue;
    }
    if (type != AE_IFREG) {
      (void)type_name;
      st->skipped++;
      continue;
    }
    {
      const void *buf;
      size_t size;
      la_int64_t off, expect = 0;
      uint64_t ebytes = 0;
      static const char zeros[4096];

      nub_import_file_begin(im, norm, (unsigned)archive_entry_perm(e));
      while ((r = archive_read_data_block(a, &buf, &size, &off)) == ARCHIVE_OK) {
        /* sparse holes read as zeros */
        while (expect < off) {
          size_t z = (size_t)(off - expect) < sizeof(zeros) ? (size_t)(off - expect)
                                                            : sizeof(zeros);
          rc = nub_import_file_write(im, zeros, z);
          if (rc < 0)
            goto io_fail;
          expect += (la_int64_t)z;
          ebytes += z;
        }
        ebytes += size;
        st->bytes += size;
        if (ebytes > lim->max_entry_bytes || st->bytes > lim->max_total_bytes) {
          rc = nub_err_set(err, -NUB_EEXTRACT,
                           "%s: tarball unpacks to more than %s; refusing the package",
                           what, ebytes > lim->max_entry_bytes ? "the per-file cap"
                                                               : "the per-package cap");
          goto out;
        }
        rc = nub_import_file_write(im, buf, size);
        if (rc < 0)
          goto io_fail;
        expect = off + (la_int64_t)size;
      }
      if (r != ARCHIVE_EOF) {
        rc = s.rc ? decode_error(&s, what, err)
                  : nub_err_set(err, -NUB_EEXTRACT, "%s: corrupt tarball at '%s' (%s)",
                                what, raw, archive_error_string(a));
        goto out;
      }
      rc = nub_import_file_end(im);
      if (rc < 0)
        goto io_fail;
      st->files++;
    }
  }
  if (r != ARCHIVE_EOF) {
    rc = s.rc ? decode_error(&s, what, err)
              : nub_err_set(err, -NUB_EEXTRACT, "%s: corrupt tarball (%s)", what,
                            archive_error_string(a));
    goto out;
  }
  goto out;
io_fail:
  nub_err_set(err, rc, "%s: cannot write to the store: %s", what, nub_strerror(rc));
out:
  if (a)
    archive_read_free(a);
  if (sc == &own)
    nub_extract_scratch_release(sc);
  else if (sc->in.cap > KEEP_IN_MAX)
    nub_buf_release(&sc->in);
  return rc;
}

void nub_extract_scratch_release(struct nub_extract_scratch *s)
{
  nub_buf_release(&s->in);
  nub_buf_release(&s->files);
  nub_inflate_stream_free(s->zs);
  s->zs = NULL;
}

struct walk {
  struct nub_import *im;
  const char *root;
  struct nub_buf rel;
  struct nub_extract_stats *st;
  struct nub_err *err;
  const char *what;
  int rc;
};

static int walk_entry(void *payload, const char *name, enum nub_plat_ftype type)
{
  struct walk *w = payload;
  size_t mark = w->rel.len;
  int rc = 0;

  if (w->rel.len == 0 && (!strcmp(name, "node_modules") || !strcmp(name, ".git")))
    return 0;
  if (w->rel.len)
    nub_buf_addc(&w->rel, '/');
  nub_buf_adds(&w->rel, name);
  if (type == NUB_FT_DIR) {
    char *abs = nub_asprintf("%s/%s", w->root, w->rel.data);
    nub_import_dir(w->im, w->rel.data);
    rc = nub_plat_list_dir_at(NUB_PLAT_CWD, abs, walk_entry, w);
    nub_free(abs);
  } else if (type == NUB_FT_FILE) {
    char *abs = nub_asprintf("%s/%s", w->root, w->rel.data), *data = NULL;
    size_t len = 0;
    struct nub_plat_stat st;
    rc = nub_plat_stat_at(NUB_PLAT_CWD, abs, &st);
    if (rc == 0)
      rc = nub_plat_read_file_at(NUB_PLAT_CWD, abs, 512u << 20, &data, &len);
    if (rc == 0) {
      nub_import_file_begin(w->im, w->rel.data, st.mode);
      rc = nub_import_file_write(w->im, data, len);
      if (rc == 0)
        rc = nub_import_file_end(w->im);
      w->st->files++;
      w->st->bytes += len;
    }
    if (rc < 0)
      nub_err_set(w->err, rc, "%s: cannot read %s: %s", w->what, abs, nub_strerror(rc));
    nub_free(data);
    nub_free(abs);
  }
  w->rel.len = mark;
  if (w->rel.data)
    w->rel.data[mark] = '\0';
  return rc;
}

int nub_import_directory(struct nub_import *im, const char *dir, const char *what,
                         struct nub_extract_stats *st, struct nub_err *err)
{
  struct walk w = {im, dir, NUB_BUF_INIT, st, err, what, 0};
  int rc;

  memset(st, 0, sizeof(*st));
  rc = nub_plat_list_dir_at(NUB_PLAT_CWD, dir, walk_entry, &w);
  if (rc < 0 && !err->msg[0])
    nub_err_set(err, rc, "%s: cannot read %s: %s", what, dir, nub_strerror(rc));
  nub_buf_release(&w.rel);
  return rc;
}
