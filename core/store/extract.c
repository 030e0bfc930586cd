/* extract.c - a tarball held whole -> gunzip (libdeflate) -> validated tar
 * entries (tar.c) -> store import; or the same streamed through windows
 * (zlib -> tar.c's stream reader). */
#include "extract.h"

#include <errno.h>
#include <stdarg.h>
#include <libdeflate.h>
#include <zlib.h>
#include <stdbool.h>
#include <string.h>

#include "buf.h"
#include "bytes.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "packlist.h"
#include "path.h"
#include "tar.h"

const struct nub_extract_limits nub_extract_default_limits = {
  200000, 512ull << 20, 1ull << 30,
};

/* Buffers bigger than these are not kept for the next tarball. */
#define KEEP_IN_MAX (8u << 20)
#define KEEP_OUT_MAX (4u << 20)

static bool is_gzip(const void *buf, size_t len)
{
  const unsigned char *p = buf;
  return len >= 18 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8;
}

/* A policy refusal (hostile entries, a cap): never retried, unlike a
 * tarball that may have been damaged on its way. */
static int refuse(struct nub_extract_stats *st, struct nub_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int refuse(struct nub_extract_stats *st, struct nub_err *err, const char *fmt, ...)
{
  va_list ap;

  st->refused = true;
  va_start(ap, fmt);
  nub_err_vset(err, -NUB_EEXTRACT, fmt, ap);
  va_end(ap);
  return -NUB_EEXTRACT;
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

/* Room for want bytes of output, the first `used` of them kept. */
static void grow_out(struct nub_extract_scratch *sc, size_t want, size_t used)
{
  if (want <= sc->outcap)
    return;
  if (used) {
    sc->out = nub_realloc(sc->out, want);
  } else { /* nothing to carry over: no copy */
    nub_free(sc->out);
    sc->out = nub_malloc(want);
  }
  sc->outcap = want;
}

/* Gunzip in[0..len) (one or more members; bytes after the last member
 * that do not start another are ignored, as gzip and Node do) into
 * sc->out, at most max bytes. The first guess of the size is the last
 * member's ISIZE, which a hostile file may forge: it only sizes the
 * buffer, never the result. 0, -EFBIG past max, or -EBADMSG with *why. */
/* How many bytes the gzip members at in[0..len) unpack to, counted through
 * a small window (nothing is kept), stopping past max: the size of a
 * tarball whose size field lied, learnt before a buffer is sized for it.
 * 0 (with *size), -EFBIG past max, -EBADMSG for damaged data. */
static int inflated_size(const unsigned char *in, size_t len, size_t max, size_t *size)
{
  unsigned char window[64 * 1024];
  size_t total = 0, pos = 0;
  z_stream z;
  int rc = 0;

  memset(&z, 0, sizeof(z));
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
    return -ENOMEM;
  while (rc == 0 && pos < len && is_gzip(in + pos, len - pos)) {
    int zr = Z_OK;
    inflateReset(&z);
    z.next_in = (unsigned char *)in + pos;
    z.avail_in = (uInt)(len - pos > UINT32_MAX ? UINT32_MAX : len - pos);
    while (zr == Z_OK) {
      z.next_out = window;
      z.avail_out = sizeof(window);
      zr = inflate(&z, Z_NO_FLUSH);
      total += sizeof(window) - z.avail_out;
      if (total > max)
        rc = -EFBIG;
      if (rc || (zr == Z_BUF_ERROR && !z.avail_in))
        break;
    }
    if (rc == 0 && zr != Z_STREAM_END)
      rc = -EBADMSG;
    pos = (size_t)(z.next_in - in);
  }
  inflateEnd(&z);
  *size = total;
  return rc;
}

static int gunzip(struct nub_extract_scratch *sc, const unsigned char *in, size_t len,
                  size_t max, size_t *outlen, const char **why)
{
  size_t total = 0, pos = 0, guess = nub_le32(in + len - 4);
  bool measured = false;

  if (!sc->dd)
    sc->dd = libdeflate_alloc_decompressor();
  if (!sc->dd) {
    *why = "out of memory";
    return -ENOMEM;
  }

  /* the last member's size field is no more than the whole (which is at
   * least that, mod 4 GiB): one past the cap is measured, allocating
   * nothing, and refused if true (a forged one is damage, as a stream,
   * which cannot see the field first, finds it) */
  if (guess > max) {
    size_t real = 0;
    int mrc = inflated_size(in, len, max, &real);
    if (mrc == -EBADMSG)
      *why = "invalid deflate data or a CRC that does not match";
    if (mrc < 0)
      return mrc;
    measured = true;
    guess = real;
  }
  if (guess < 4 * len)
    guess = 4 * len; /* tarballs compress about 4:1 */
  if (guess > max)
    guess = max;
  grow_out(sc, guess + 1, 0);
  while (pos < len && is_gzip(in + pos, len - pos)) {
    size_t used = 0, n = 0;
    enum libdeflate_result r =
        libdeflate_gzip_decompress_ex(sc->dd, in + pos, len - pos, sc->out + total,
                                      sc->outcap - total, &used, &n);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
      /* the size field lied (or there are several members): count what
       * the rest unpacks to, then size the buffer once; a bomb is refused
       * having allocated nothing more */
      size_t rest = 0;
      int mrc = measured ? -EFBIG : inflated_size(in + pos, len - pos, max - total, &rest);
      measured = true;
      if (mrc == -EBADMSG) {
        *why = "invalid deflate data";
        return mrc;
      }
      if (mrc < 0)
        return mrc;
      grow_out(sc, total + rest + 1, total);
      continue;
    }
    if (r != LIBDEFLATE_SUCCESS) {
      *why = "invalid deflate data or a CRC that does not match";
      return -EBADMSG;
    }
    total += n;
    pos += used;
    if (total > max)
      return -EFBIG;
  }
  if (pos == 0) {
    *why = "not a gzip member";
    return -EBADMSG;
  }
  *outlen = total;
  return 0;
}

/* The tar stream of a tarball: in itself, or gunzipped into sc->out (the
 * tar stream may exceed the content cap by its headers). */
static int tar_stream(struct nub_extract_scratch *sc, const unsigned char *in, size_t len,
                      const struct nub_extract_limits *lim, const unsigned char **tarp,
                      size_t *tarlen, const char **why)
{
  int rc;

  *tarp = in;
  *tarlen = len;
  if (!is_gzip(in, len))
    return 0;
  rc = gunzip(sc, in, len, lim->max_total_bytes + (lim->max_total_bytes >> 3), tarlen, why);
  if (rc == 0)
    *tarp = sc->out;
  return rc;
}

/* Where an entry goes in the package: the leading folder (whatever its
 * name, after any "./") stripped and the rest normalized into norm.
 * 1 for a path in the package, 0 for what lies outside one (the folder
 * itself, a file beside it), -1 when the name is absolute or escapes. */
static int entry_relpath(const char *raw, char norm[4096])
{
  const char *rest = raw;

  if (raw[0] == '/')
    return -1;
  while (rest[0] == '.' && rest[1] == '/')
    rest += 2;
  rest = strchr(rest, '/');
  if (!rest || !rest[1])
    return 0;
  return nub_path_normalize(rest + 1, norm, 4096) < 0 ? -1 : 1;
}

/* Every entry of tar into im, checked against lim; the data read through
 * nub_tar_read, so held whole or streamed alike. */
static int unpack_entries(struct nub_import *im, struct nub_tar *tar, const char *what,
                          const struct nub_extract_limits *lim, struct nub_extract_stats *st,
                          struct nub_err *err)
{
  struct nub_tar_entry e;
  char norm[4096];
  int r, rc;

  while ((r = nub_tar_next(tar, &e)) == 1) {
    const unsigned char *p;
    long n = 0;
    int where;

    if (++st->entries > lim->max_entries)
      return refuse(st, err, "%s: tarball has more than %llu entries; refusing the package",
                    what, (unsigned long long)lim->max_entries);
    where = entry_relpath(e.path, norm);
    if (where < 0)
      return refuse(st, err, "%s: tarball entry '%s' %s; refusing the package", what, e.path,
                    e.path[0] == '/' ? "has an absolute path"
                                     : "escapes the package or has an invalid name");
    if (where == 0) {
      st->skipped++; /* the folder itself, or a file outside any folder */
      continue;
    }
    if (e.type == NUB_TAR_DIR) {
      nub_import_dir(im, norm);
      st->dirs++;
      continue;
    }
    if (e.type != NUB_TAR_FILE) {
      st->skipped++; /* links, devices, fifos: dropped, as npm does */
      continue;
    }
    if (e.size > lim->max_entry_bytes || st->bytes + e.size > lim->max_total_bytes)
      return refuse(st, err, "%s: tarball unpacks to more than %s; refusing the package", what,
                    st->bytes + e.size > lim->max_total_bytes ? "the per-package cap"
                                                              : "the per-file cap");
    st->bytes += e.size;
    rc = nub_import_file_begin(im, norm, e.mode);
    while (rc == 0 && (n = nub_tar_read(tar, &p)) > 0)
      rc = nub_import_file_write(im, p, (size_t)n);
    if (rc == 0 && n < 0)
      return (int)n; /* the archive ends inside it, or the stream broke */
    if (rc == 0)
      rc = nub_import_file_end(im);
    if (rc == -EEXIST || rc == -ENOTDIR || rc == -EISDIR) {
      /* a file where the tarball has a directory, or under a file */
      return nub_err_set(err, -NUB_EEXTRACT, "%s: bad tarball: '%s' is both a file and a "
                         "directory in it", what, norm);
    }
    if (rc < 0)
      return nub_err_set(err, rc, "%s: cannot write to the store: %s", what,
                         nub_strerror(rc));
    st->files++;
  }
  return r;
}

int nub_extract(struct nub_import *im, nub_extract_read_fn rd, void *ud,
                const char *what, const struct nub_extract_limits *lim,
                nub_extract_check_fn check, struct nub_extract_scratch *scratch,
                struct nub_extract_stats *st, struct nub_err *err)
{
  struct nub_extract_scratch own;
  struct nub_extract_scratch *sc = scratch ? scratch : &own;
  struct nub_tar tar;
  const unsigned char *tarp;
  size_t tarlen = 0;
  int rc;

  memset(st, 0, sizeof(*st));
  memset(&own, 0, sizeof(own));
  nub_tar_init(&tar, NULL, 0);
  if (!lim)
    lim = &nub_extract_default_limits;
  nub_buf_reset(&sc->in);
  if (scratch)
    nub_import_reuse(im, &scratch->files);
  rc = slurp(rd, ud, lim->max_total_bytes, &sc->in);
  if (rc == -EFBIG) {
    rc = refuse(st, err, "%s: tarball is larger than the per-package cap; "
                     "refusing the package", what);
    goto out;
  }
  if (rc == 0 && check)
    rc = check(ud);
  if (rc < 0)
    goto out;
  {
    const char *why = "";
    rc = tar_stream(sc, (const unsigned char *)sc->in.data, sc->in.len, lim, &tarp, &tarlen,
                    &why);
    if (rc == -EFBIG) {
      rc = refuse(st, err, "%s: tarball unpacks to more than the "
                       "per-package cap; refusing the package", what);
      goto out;
    }
    if (rc < 0) {
      rc = nub_err_set(err, -NUB_EEXTRACT, "%s: corrupt tarball (gzip: %s)", what, why);
      goto out;
    }
  }
  nub_tar_init(&tar, tarp, tarlen);
  rc = unpack_entries(im, &tar, what, lim, st, err);
  if (rc == -EBADMSG)
    rc = nub_err_set(err, -NUB_EEXTRACT, "%s: corrupt tarball (%s)", what, tar.why);
out:
  st->held = sc->in.cap + sc->outcap + sc->files.cap;
  nub_tar_release(&tar);
  if (sc == &own)
    nub_extract_scratch_release(sc);
  else {
    if (sc->in.cap > KEEP_IN_MAX)
      nub_buf_release(&sc->in);
    if (sc->outcap > KEEP_OUT_MAX) {
      nub_free(sc->out);
      sc->out = NULL;
      sc->outcap = 0;
    }
    if (sc->files.cap > KEEP_IN_MAX) /* the file bytes of a big one */
      nub_buf_release(&sc->files);
  }
  return rc;
}

/* ---- the stream: compressed chunks -> zlib -> tar, through windows ------ */

/* gzip's smallest member (header and trailer): fewer bytes after a member
 * are not another one, as in the whole path (is_gzip). */
#define GZ_MIN 18

struct gzsrc {
  nub_extract_read_fn rd;
  void *ud;
  z_stream *z;
  const unsigned char *in; /* what is left of the chunk rd gave last */
  size_t inlen;
  unsigned char carry[GZ_MIN]; /* the look at a member's start, across chunks */
  size_t ncarry, carry_off;
  uint64_t read, out, max_read, max_out;
  bool started, plain, ended, in_member, eof;
  int err;          /* a read error, or what went wrong: -EFBIG, -EBADMSG */
  const char *why;  /* with -EBADMSG */
};

/* The next chunk from rd into s->in, once the last is used up. */
static int pull_chunk(struct gzsrc *s)
{
  const void *b;
  long n;

  if (s->inlen || s->eof)
    return 0;
  n = s->rd(s->ud, &b);
  if (n < 0)
    return (int)n;
  if (n == 0)
    s->eof = true;
  s->in = b;
  s->inlen = (size_t)n;
  s->read += (uint64_t)n;
  return s->read > s->max_read ? -EFBIG : 0;
}

/* The next compressed bytes: the carried ones first, then the chunk. */
static long src_next(struct gzsrc *s, const unsigned char **p)
{
  long n;
  int rc;

  if (s->carry_off < s->ncarry) {
    *p = s->carry + s->carry_off;
    n = (long)(s->ncarry - s->carry_off);
    s->carry_off = s->ncarry;
    return n;
  }
  if ((rc = pull_chunk(s)) < 0)
    return rc;
  *p = s->in;
  n = (long)s->inlen;
  s->inlen = 0;
  return n;
}

/* Bytes taken by src_next and not used: given back to be taken again. */
static void src_unget(struct gzsrc *s, const unsigned char *p, size_t n)
{
  if (n == 0)
    return;
  if (p >= s->carry && p < s->carry + sizeof(s->carry)) {
    s->carry_off = (size_t)(p - s->carry);
    return;
  }
  s->in = p;
  s->inlen = n;
}

/* Whether a gzip member starts here: at least GZ_MIN bytes, gathered into
 * carry when the chunk has fewer. 1, 0, or a read error. */
static int member_starts(struct gzsrc *s)
{
  size_t have = s->ncarry - s->carry_off;

  if (have + s->inlen < GZ_MIN) {
    memmove(s->carry, s->carry + s->carry_off, have);
    s->carry_off = 0;
    s->ncarry = have;
    while (s->ncarry < GZ_MIN) {
      size_t take;
      int rc = pull_chunk(s);
      if (rc < 0)
        return rc;
      if (!s->inlen)
        break; /* the end */
      take = GZ_MIN - s->ncarry < s->inlen ? GZ_MIN - s->ncarry : s->inlen;
      memcpy(s->carry + s->ncarry, s->in, take);
      s->ncarry += take;
      s->in += take;
      s->inlen -= take;
    }
    return is_gzip(s->carry, s->ncarry);
  }
  if (have) { /* the carry's bytes lead; the chunk completes the look */
    unsigned char look[GZ_MIN];
    memcpy(look, s->carry + s->carry_off, have < GZ_MIN ? have : GZ_MIN);
    if (have < GZ_MIN)
      memcpy(look + have, s->in, GZ_MIN - have);
    return is_gzip(look, GZ_MIN);
  }
  return is_gzip(s->in, s->inlen);
}

static long gz_fail(struct gzsrc *s, int rc, const char *why)
{
  s->err = rc;
  s->why = why;
  return rc;
}

/* nub_tar_fill_fn: up to room bytes of the tar stream. */
static long gz_fill(void *ud, unsigned char *dst, size_t room)
{
  struct gzsrc *s = ud;
  size_t made = 0;
  int rc;

  if (s->err)
    return s->err;
  if (!s->started) {
    s->started = true;
    rc = member_starts(s);
    if (rc < 0)
      return gz_fail(s, rc, "");
    s->plain = rc == 0;
    s->in_member = !s->plain;
  }
  while (made < room && !s->ended) {
    const unsigned char *p;
    long n;
    if (!s->plain && !s->in_member) { /* between members */
      rc = member_starts(s);
      if (rc < 0)
        return gz_fail(s, rc, "");
      if (rc == 0) {
        s->ended = true; /* what follows the last member is ignored */
        break;
      }
      inflateReset(s->z);
      s->in_member = true;
    }
    n = src_next(s, &p);
    if (n < 0)
      return gz_fail(s, (int)n, "");
    if (n == 0) {
      if (s->in_member)
        return gz_fail(s, -EBADMSG, "invalid deflate data or a CRC that does not match");
      s->ended = true;
      break;
    }
    if (s->plain) {
      size_t take = (size_t)n < room - made ? (size_t)n : room - made;
      memcpy(dst + made, p, take);
      made += take;
      src_unget(s, p + take, (size_t)n - take);
      continue;
    }
    s->z->next_in = (unsigned char *)p;
    s->z->avail_in = (uInt)n;
    s->z->next_out = dst + made;
    s->z->avail_out = (uInt)(room - made);
    rc = inflate(s->z, Z_NO_FLUSH);
    made = room - s->z->avail_out;
    src_unget(s, s->z->next_in, s->z->avail_in);
    if (rc == Z_STREAM_END)
      s->in_member = false;
    else if (rc != Z_OK && rc != Z_BUF_ERROR)
      return gz_fail(s, -EBADMSG, "invalid deflate data or a CRC that does not match");
  }
  s->out += made;
  if (s->out > s->max_out)
    return gz_fail(s, -EFBIG, "");
  return (long)made;
}

int nub_extract_stream(struct nub_import *im, nub_extract_read_fn rd, void *ud,
                       const char *what, const struct nub_extract_limits *lim,
                       struct nub_extract_scratch *scratch, struct nub_extract_stats *st,
                       struct nub_err *err)
{
  struct nub_extract_scratch own;
  struct nub_extract_scratch *sc = scratch ? scratch : &own;
  struct nub_tar tar;
  struct gzsrc s;
  int rc;

  memset(st, 0, sizeof(*st));
  memset(&own, 0, sizeof(own));
  memset(&s, 0, sizeof(s));
  if (!lim)
    lim = &nub_extract_default_limits;
  if (scratch)
    nub_import_reuse(im, &scratch->files);
  if (!sc->z) {
    sc->z = nub_calloc(1, sizeof(*sc->z));
    if (inflateInit2(sc->z, 16 + MAX_WBITS) != Z_OK) {
      nub_free(sc->z);
      sc->z = NULL;
      return nub_err_set(err, -ENOMEM, "%s: cannot unpack: out of memory", what);
    }
  }
  inflateReset(sc->z);
  s.rd = rd;
  s.ud = ud;
  s.z = sc->z;
  s.max_read = lim->max_total_bytes;
  s.max_out = lim->max_total_bytes + (lim->max_total_bytes >> 3);
  nub_tar_init_stream(&tar, gz_fill, &s, &sc->win);
  rc = unpack_entries(im, &tar, what, lim, st, err);
  /* past the tar's end to the stream's: every member's CRC is checked, as
   * the whole path checks them before reading an entry */
  while (rc == 0 && !s.ended) {
    long n = gz_fill(&s, (unsigned char *)sc->win.data, sc->win.cap - 1);
    if (n < 0)
      rc = (int)n;
    else if (n == 0)
      break;
  }
  if (rc < 0 && s.err == rc && rc == -EFBIG)
    rc = refuse(st, err, "%s: tarball %s the per-package cap; refusing the package", what,
                s.read > s.max_read ? "is larger than" : "unpacks to more than");
  else if (rc < 0 && s.err == rc && rc == -EBADMSG)
    rc = nub_err_set(err, -NUB_EEXTRACT, "%s: corrupt tarball (gzip: %s)", what, s.why);
  else if (rc == -EBADMSG)
    rc = nub_err_set(err, -NUB_EEXTRACT, "%s: corrupt tarball (%s)", what, tar.why);
  st->held = sc->win.cap + sc->files.cap;
  nub_tar_release(&tar);
  if (sc == &own)
    nub_extract_scratch_release(sc);
  else if (sc->files.cap > KEEP_IN_MAX)
    nub_buf_release(&sc->files);
  return rc;
}

int nub_tarball_package_json(const void *tgz, size_t len, char **out, size_t *outlen,
                             struct nub_err *err)
{
  struct nub_extract_scratch sc;
  struct nub_tar tar;
  struct nub_tar_entry e, found;
  const unsigned char *p;
  const char *why = "";
  char norm[4096];
  size_t n;
  bool have = false;
  int r, rc;

  memset(&sc, 0, sizeof(sc));
  *out = NULL;
  rc = tar_stream(&sc, tgz, len, &nub_extract_default_limits, &p, &n, &why);
  if (rc < 0) {
    nub_extract_scratch_release(&sc);
    return nub_err_set(err, -NUB_EEXTRACT, "corrupt tarball (gzip: %s)", why);
  }
  /* the file the import would install: named as it names entries, the
   * last of equal names winning */
  nub_tar_init(&tar, p, n);
  while ((r = nub_tar_next(&tar, &e)) == 1)
    if (e.type == NUB_TAR_FILE && entry_relpath(e.path, norm) == 1 &&
        !strcmp(norm, "package.json")) {
      found = e;
      have = true;
    }
  rc = -NUB_EEXTRACT;
  if (r < 0)
    nub_err_set(err, rc, "corrupt tarball (%s)", tar.why);
  else if (!have)
    nub_err_set(err, rc, "the tarball has no package.json");
  else {
    *out = nub_malloc(found.size + 1);
    memcpy(*out, found.data, found.size);
    (*out)[found.size] = '\0';
    *outlen = found.size;
    rc = 0;
  }
  nub_tar_release(&tar);
  nub_extract_scratch_release(&sc);
  return rc;
}

void nub_extract_scratch_release(struct nub_extract_scratch *s)
{
  nub_buf_release(&s->in);
  nub_buf_release(&s->files);
  nub_free(s->out);
  s->out = NULL;
  s->outcap = 0;
  if (s->dd)
    libdeflate_free_decompressor(s->dd);
  s->dd = NULL;
  nub_buf_release(&s->win);
  if (s->z) {
    inflateEnd(s->z);
    nub_free(s->z);
    s->z = NULL;
  }
}

struct walk {
  struct nub_import *im;
  struct nub_packlist *pl; /* NULL: every file (its cache of nested ignore
                            * files fills as the walk goes) */
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
  if (w->pl && (type == NUB_FT_DIR || type == NUB_FT_FILE) &&
      !nub_packlist_keeps(w->pl, w->rel.data, type == NUB_FT_DIR)) {
    /* not packed */
  } else if (type == NUB_FT_DIR) {
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
  struct walk w = {im, NULL, dir, NUB_BUF_INIT, st, err, what, 0};
  int rc;

  memset(st, 0, sizeof(*st));
  rc = nub_plat_list_dir_at(NUB_PLAT_CWD, dir, walk_entry, &w);
  if (rc < 0 && !err->msg[0])
    nub_err_set(err, rc, "%s: cannot read %s: %s", what, dir, nub_strerror(rc));
  nub_buf_release(&w.rel);
  return rc;
}

int nub_import_packed(struct nub_import *im, const char *dir, const char *what,
                      struct nub_extract_stats *st, struct nub_err *err)
{
  struct nub_packlist *pl = NULL;
  struct walk w = {im, NULL, dir, NUB_BUF_INIT, st, err, what, 0};
  int rc = nub_packlist_load(&pl, dir, err);

  memset(st, 0, sizeof(*st));
  if (rc < 0)
    return rc;
  w.pl = pl;
  rc = nub_plat_list_dir_at(NUB_PLAT_CWD, dir, walk_entry, &w);
  if (rc < 0 && !err->msg[0])
    nub_err_set(err, rc, "%s: cannot read %s: %s", what, dir, nub_strerror(rc));
  nub_buf_release(&w.rel);
  nub_packlist_free(pl);
  return rc;
}
