/* test_extract.c - the extraction path: tar.h on its own (ustar, pax, GNU
 * long names, hostile headers) and nub_extract end to end into a store
 * import (gzip members, a forged size, a CRC that does not match, caps,
 * names kept byte for byte). */
#include "nub_test.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "extract.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "store.h"
#include "store_fixture.h"
#include "tar.h"
#include "tarball.h"

/* a pax header of a string's records */
#define PAX(b, s) nub_test_tar_pax(b, s, strlen(s))

/* ---- the tar reader ------------------------------------------------------- */

struct got {
  char path[4096];
  enum nub_tar_type type;
  uint64_t size;
  unsigned mode;
};

/* A stream's pieces: sizes that cross every boundary (a block, a header,
 * a window) at some point. */
static const size_t piece_sizes[] = {1, 7, 511, 512, 513, 3000, 70000};

struct pieces {
  const unsigned char *p;
  size_t len, off;
  unsigned turn;
};

static size_t next_piece(struct pieces *s, size_t room)
{
  size_t n = piece_sizes[s->turn++ % (sizeof(piece_sizes) / sizeof(piece_sizes[0]))];
  if (n > room)
    n = room;
  if (n > s->len - s->off)
    n = s->len - s->off;
  return n;
}

static long fill_pieces(void *ud, unsigned char *dst, size_t room)
{
  struct pieces *s = ud;
  size_t n = next_piece(s, room);
  memcpy(dst, s->p + s->off, n);
  s->off += n;
  return (long)n;
}

/* Every entry of buf, or the first error (then *err_why is set), read
 * whole (stream false) or as a stream in odd pieces. */
static int read_one_way(const struct nub_buf *b, bool stream, struct got *out, int max,
                        const char **err_why)
{
  struct nub_tar t;
  struct nub_tar_entry e;
  struct nub_buf win = NUB_BUF_INIT;
  struct pieces src = {(const unsigned char *)b->data, b->len, 0, 0};
  int n = 0, r;
  if (stream)
    nub_tar_init_stream(&t, fill_pieces, &src, &win);
  else
    nub_tar_init(&t, b->data, b->len);
  while ((r = nub_tar_next(&t, &e)) == 1 && n < max) {
    const unsigned char *p;
    long k;
    snprintf(out[n].path, sizeof(out[n].path), "%s", e.path);
    out[n].type = e.type;
    out[n].size = e.size;
    out[n].mode = e.mode;
    /* every other entry's data read, the rest passed over */
    if (n % 2)
      while ((k = nub_tar_read(&t, &p)) > 0) {
      }
    n++;
  }
  *err_why = t.why;
  nub_tar_release(&t);
  nub_buf_release(&win);
  return r < 0 ? r : n;
}

/* Both ways, which must agree on every entry and error. */
static int read_all(const struct nub_buf *b, struct got *out, int max, const char **err_why)
{
  struct got s[16];
  const char *swhy;
  int n = read_one_way(b, false, out, max, err_why);
  int sn = read_one_way(b, true, s, max < 16 ? max : 16, &swhy);

  assert_int_equal(sn, n);
  assert_string_equal(swhy, *err_why);
  for (int i = 0; i < n && i < 16; i++) {
    assert_string_equal(s[i].path, out[i].path);
    assert_int_equal(s[i].type, out[i].type);
    assert_int_equal(s[i].size, out[i].size);
    assert_int_equal(s[i].mode, out[i].mode);
  }
  return n;
}

static void test_tar__kinds_and_names(void **state)
{
  struct nub_buf b = NUB_BUF_INIT;
  struct got g[16];
  const char *why;
  char longname[300], prefixed[200];
  unsigned char h[512];
  (void)state;

  nub_test_tar_entry(&b, "package/index.js", '0', "x", 1, 0644);
  nub_test_tar_entry(&b, "package/bin/", '5', NULL, 0, 0755);
  nub_test_tar_entry(&b, "package/bin/run", '0', "#!", 2, 0755);
  nub_test_tar_entry(&b, "package/old-dir/", '\0', NULL, 0, 0755); /* V7: a slash makes a dir */
  nub_test_tar_entry(&b, "package/l", '2', NULL, 0, 0777);
  nub_test_tar_entry(&b, "package/h", '1', NULL, 0, 0644);
  nub_test_tar_entry(&b, "package/null", '3', NULL, 0, 0644);
  /* GNU long name */
  memset(longname, 'n', sizeof(longname) - 1);
  memcpy(longname, "package/", 8);
  longname[sizeof(longname) - 1] = '\0';
  nub_test_tar_entry(&b, "././@LongLink", 'L', longname, strlen(longname) + 1, 0644);
  nub_test_tar_entry(&b, "package/truncated-name", '0', "y", 1, 0644);
  /* pax path: raw UTF-8 bytes, NFD kept as NFD */
  PAX(&b, "26 path=package/cafe\xCC\x81.js\n");
  nub_test_tar_entry(&b, "package/cafe?.js", '0', "z", 1, 0644);
  /* ustar prefix */
  memset(h, 0, sizeof(h));
  snprintf(prefixed, sizeof(prefixed), "package/%0140d", 0);
  memcpy(h, "file.js", 7);
  nub_test_tar_octal(h + 100, 8, 0644);
  nub_test_tar_octal(h + 124, 12, 0);
  h[156] = '0';
  memcpy(h + 257, "ustar\0" "00", 8);
  memcpy(h + 345, prefixed, strlen(prefixed));
  nub_test_tar_seal(h);
  nub_buf_add(&b, h, 512);
  nub_test_tar_finish(&b);
  nub_test_tar_entry(&b, "package/after-the-end", '0', "q", 1, 0644);

  assert_int_equal(read_all(&b, g, 16, &why), 10);
  assert_string_equal(g[0].path, "package/index.js");
  assert_int_equal(g[0].type, NUB_TAR_FILE);
  assert_int_equal(g[0].size, 1);
  assert_int_equal(g[1].type, NUB_TAR_DIR);
  assert_int_equal(g[2].mode, 0755);
  assert_int_equal(g[3].type, NUB_TAR_DIR);
  assert_int_equal(g[4].type, NUB_TAR_SYMLINK);
  assert_int_equal(g[5].type, NUB_TAR_HARDLINK);
  assert_int_equal(g[6].type, NUB_TAR_OTHER);
  assert_string_equal(g[7].path, longname);
  assert_string_equal(g[8].path, "package/cafe\xCC\x81.js");
  assert_int_equal(g[8].size, 1);
  {
    char want[300];
    snprintf(want, sizeof(want), "%s/file.js", prefixed);
    assert_string_equal(g[9].path, want);
  }
  nub_buf_release(&b);
}

static void test_tar__hostile_headers(void **state)
{
  struct nub_buf b = NUB_BUF_INIT;
  struct got g[4];
  const char *why;
  (void)state;

  /* a checksum that does not add up: the first header, or a later one */
  nub_test_tar_entry(&b, "package/a", '0', "x", 1, 0644);
  b.data[0] ^= 1;
  assert_int_equal(read_all(&b, g, 4, &why), -EBADMSG);
  assert_non_null(strstr(why, "not a tar archive"));
  b.data[0] ^= 1;
  nub_test_tar_entry(&b, "package/b", '0', "x", 1, 0644);
  b.data[1024] ^= 1;
  assert_int_equal(read_all(&b, g, 4, &why), -EBADMSG);
  assert_non_null(strstr(why, "checksum"));
  nub_buf_reset(&b);

  /* a size past the end of the buffer */
  nub_test_tar_entry(&b, "package/a", '0', "xxxx", 4, 0644);
  b.len = 512 + 2;
  assert_int_equal(read_all(&b, g, 4, &why), -EBADMSG);
  assert_non_null(strstr(why, "past the end"));
  nub_buf_reset(&b);

  /* pax records that do not parse, a pax size that lies, a NUL in a path */
  PAX(&b, "99 path=package/x\n");
  nub_test_tar_entry(&b, "package/x", '0', NULL, 0, 0644);
  assert_int_equal(read_all(&b, g, 4, &why), -EBADMSG);
  assert_non_null(strstr(why, "pax"));
  nub_buf_reset(&b);
  PAX(&b, "21 size=99999999999\n");
  nub_test_tar_entry(&b, "package/x", '0', "x", 1, 0644);
  assert_int_equal(read_all(&b, g, 4, &why), -EBADMSG);
  nub_buf_reset(&b);
  nub_test_tar_pax(&b, "18 path=pack\0ge/x\n", 18);
  nub_test_tar_entry(&b, "package/x", '0', NULL, 0, 0644);
  assert_int_equal(read_all(&b, g, 4, &why), -EBADMSG);
  assert_non_null(strstr(why, "NUL"));
  nub_buf_reset(&b);

  /* an extended header with nothing after it */
  PAX(&b, "18 path=package/x\n");
  assert_int_equal(read_all(&b, g, 4, &why), -EBADMSG);
  nub_buf_reset(&b);

  /* a pax size is the next entry's, even past a GNU long name; 'X' is the
   * old name of a pax header; a lone zero block is not the end */
  PAX(&b, "10 size=3\n");
  nub_test_tar_entry(&b, "././@LongLink", 'L', "package/long-name.js", 21, 0644);
  nub_test_tar_entry(&b, "package/short", '0', "abc", 3, 0644);
  {
    /* the entry header said 3 too; make it lie so only the pax size works */
    unsigned char *h = (unsigned char *)b.data + b.len - 1024;
    nub_test_tar_octal(h + 124, 12, 1);
    nub_test_tar_seal(h);
  }
  {
    static const char rec[] = "25 path=package/old-x.js\n";
    nub_test_tar_entry(&b, "PaxHeader/y", 'X', rec, sizeof(rec) - 1, 0644);
  }
  nub_test_tar_entry(&b, "package/y", '0', "y", 1, 0644);
  {
    static const char zero[512];
    nub_buf_add(&b, zero, sizeof(zero));
  }
  nub_test_tar_entry(&b, "package/after-a-lone-zero-block", '0', "z", 1, 0644);
  nub_test_tar_finish(&b);
  assert_int_equal(read_all(&b, g, 4, &why), 3);
  assert_string_equal(g[0].path, "package/long-name.js");
  assert_int_equal(g[0].size, 3);
  assert_string_equal(g[1].path, "package/old-x.js");
  assert_string_equal(g[2].path, "package/after-a-lone-zero-block");
  nub_buf_reset(&b);

  /* no end blocks at all is fine; nor is garbage shorter than a block */
  nub_test_tar_entry(&b, "package/a", '0', "x", 1, 0644);
  nub_buf_add(&b, "junk", 4);
  assert_int_equal(read_all(&b, g, 4, &why), 1);
  nub_buf_release(&b);
}

/* ---- nub_extract ---------------------------------------------------------- */

struct src {
  const char *p;
  size_t len;
  bool given;
  unsigned turn; /* pieces (0: the whole at once) */
  size_t off;
};

static long rd(void *ud, const void **buf)
{
  struct src *s = ud;
  if (s->turn) {
    struct pieces pc = {(const unsigned char *)s->p, s->len, s->off, s->turn};
    size_t n = next_piece(&pc, SIZE_MAX);
    s->turn++;
    *buf = s->p + s->off;
    s->off += n;
    return (long)n;
  }
  if (s->given)
    return 0;
  s->given = true;
  *buf = s->p;
  return (long)s->len;
}

static bool last_refused; /* the last extract()'s failure was a refusal */

static void same_index(const struct nub_index *a, const struct nub_index *b)
{
  assert_int_equal(a->nfiles, b->nfiles);
  assert_int_equal(a->ndirs, b->ndirs);
  for (uint32_t i = 0; i < a->nfiles; i++) {
    assert_string_equal(a->files[i].path, b->files[i].path);
    assert_memory_equal(a->files[i].hash, b->files[i].hash, 32);
    assert_int_equal(a->files[i].size, b->files[i].size);
    assert_int_equal(a->files[i].mode, b->files[i].mode);
  }
}

/* One tarball through both extractors: the whole one (into sc) and the
 * stream in odd pieces, which must agree on the index, the error class and
 * whether it was a refusal. *out and err are the whole one's. */
static int extract(struct nub_test_store *f, const struct nub_buf *gz,
                   const struct nub_extract_limits *lim,
                   struct nub_extract_scratch *sc, const char *tag, struct nub_index **out,
                   struct nub_err *err)
{
  struct nub_extract_scratch ssc;
  struct nub_index *sx = NULL;
  struct nub_err serr;
  int rc[2];
  bool refused[2];

  memset(&ssc, 0, sizeof(ssc));
  for (int way = 0; way < 2; way++) {
    struct nub_import *im;
    struct nub_extract_stats st;
    struct src s = {gz->data, gz->len, false, (unsigned)way, 0};
    struct nub_err *e = way ? &serr : err;
    char key[65];
    assert_int_equal(nub_import_begin(&f->store, &im, e), 0);
    rc[way] = way ? nub_extract_stream(im, rd, &s, "p@1.0.0", lim, &ssc, &st, e)
                  : nub_extract(im, rd, &s, "p@1.0.0", lim, NULL, sc, &st, e);
    refused[way] = st.refused;
    if (rc[way] < 0) {
      nub_import_abort(im);
      continue;
    }
    memset(key, way ? 's' : '0', 64);
    key[64] = '\0';
    memcpy(key, tag, strlen(tag));
    rc[way] = nub_import_commit(im, key, way ? &sx : out, e);
  }
  /* the stream's window stays its size, whatever the tarball */
  assert_true(ssc.win.cap <= NUB_TAR_META_MAX + 1024 + 1);
  assert_null(ssc.out);
  assert_int_equal(ssc.in.cap, 0);
  nub_extract_scratch_release(&ssc);
  assert_int_equal(rc[1], rc[0]);
  if (refused[1] != refused[0]) print_message("%s: %s / %s\n", tag, err->msg, serr.msg);
  assert_int_equal(refused[1], refused[0]);
  last_refused = refused[0];
  if (rc[0] == 0) {
    same_index(*out, sx);
    nub_index_free(sx);
  } else {
    assert_int_equal(!!strstr(serr.msg, "corrupt tarball"), !!strstr(err->msg, "corrupt tarball"));
    assert_int_equal(!!strstr(serr.msg, "(gzip:"), !!strstr(err->msg, "(gzip:"));
  }
  return rc[0];
}

static bool has_path(const struct nub_index *x, const char *path)
{
  for (uint32_t i = 0; i < x->nfiles; i++)
    if (!strcmp(x->files[i].path, path))
      return true;
  return false;
}

static void test_extract__names_byte_for_byte(void **state)
{
  struct nub_test_store *f = *state;
  struct nub_buf t = NUB_BUF_INIT, gz;
  struct nub_index *x = NULL;
  struct nub_err err;
  static const char *const names[] = {
      "caf\xC3\xA9.js",           /* NFC */
      "cafe\xCC\x81-nfd.js",      /* NFD */
      "\xF0\x9F\x98\x80.js",      /* emoji */
      "d\xC3\xADr/\xC3\xBC.txt",  /* in a directory of its own */
  };
  nub_test_tar_entry(&t, "package/package.json", '0',
                     "{\"name\":\"p\",\"version\":\"1.0.0\"}", 31, 0644);
  for (size_t i = 0; i < 4; i++) {
    char rec[256], path[200];
    snprintf(path, sizeof(path), "path=package/%s\n", names[i]);
    snprintf(rec, sizeof(rec), "%zu %s", strlen(path) + 3, path);
    PAX(&t, rec);
    nub_test_tar_entry(&t, "package/ascii-fallback", '0', "1", 1, 0644);
  }
  nub_test_tar_finish(&t);
  gz = nub_test_gzip(t.data, t.len);
  assert_int_equal(extract(f, &gz, NULL, NULL, "aa", &x, &err), 0);
  for (size_t i = 0; i < 4; i++)
    assert_true(has_path(x, names[i]));
  assert_false(has_path(x, "ascii-fallback"));
  nub_index_free(x);
  nub_buf_release(&t);
  nub_buf_release(&gz);
}

/* A file where the tarball already has a directory of that name (and the
 * other way round): a bad tarball, named, not an I/O error. */
static void test_extract__file_over_directory(void **state)
{
  struct nub_test_store *f = *state;
  struct nub_err err;

  for (int tree = 0; tree < 2; tree++)
    for (int order = 0; order < 2; order++) {
      struct nub_buf t = NUB_BUF_INIT, gz;
      struct nub_import *im;
      struct nub_extract_stats st;
      struct src s;
      int rc;
      nub_test_tar_entry(&t, "package/package.json", '0',
                         "{\"name\":\"p\",\"version\":\"1.0.0\"}", 31, 0644);
      if (order == 0) {
        nub_test_tar_entry(&t, "package/x/", '5', NULL, 0, 0755);
        nub_test_tar_entry(&t, "package/x/a", '0', "a", 1, 0644);
        nub_test_tar_entry(&t, "package/x", '0', "x", 1, 0644);
      } else {
        nub_test_tar_entry(&t, "package/x", '0', "x", 1, 0644);
        nub_test_tar_entry(&t, "package/x/a", '0', "a", 1, 0644);
      }
      nub_test_tar_finish(&t);
      gz = nub_test_gzip(t.data, t.len);
      memset(&s, 0, sizeof(s));
      s.p = gz.data;
      s.len = gz.len;
      for (int way = 0; way < 2; way++) {
        s.given = false;
        assert_int_equal(nub_import_begin(&f->store, &im, &err), 0);
        if (tree)
          assert_true(nub_import_as_tree(im, "p"));
        rc = way ? nub_extract_stream(im, rd, &s, "p@1.0.0", NULL, NULL, &st, &err)
                 : nub_extract(im, rd, &s, "p@1.0.0", NULL, NULL, NULL, &st, &err);
        if (rc == 0) {
          char key[65];
          memset(key, tree ? 'c' : 'd', 64);
          key[62] = (char)('0' + way);
          key[63] = (char)('0' + order);
          key[64] = '\0';
          rc = nub_import_commit(im, key, NULL, &err);
        } else {
          nub_import_abort(im);
        }
        assert_int_equal(rc, -NUB_EEXTRACT);
        /* (a failure at commit gets the package's name from fetch.c) */
        assert_non_null(strstr(err.msg, "is both a file and a directory"));
      }
      nub_buf_release(&t);
      nub_buf_release(&gz);
    }
}

static void test_extract__gzip_members_and_faults(void **state)
{
  struct nub_test_store *f = *state;
  struct nub_buf t = NUB_BUF_INIT, gz, two = NUB_BUF_INIT;
  struct nub_index *x = NULL;
  struct nub_err err;
  struct nub_extract_scratch sc;
  char *big = nub_malloc(300000);

  memset(&sc, 0, sizeof(sc));
  memset(big, 'a', 300000); /* compresses 1000:1: the 4x first guess is too small */
  nub_test_tar_entry(&t, "package/big.txt", '0', big, 300000, 0644);
  nub_test_tar_finish(&t);
  gz = nub_test_gzip(t.data, t.len);
  assert_int_equal(extract(f, &gz, NULL, &sc, "b1", &x, &err), 0);
  assert_true(has_path(x, "big.txt"));
  nub_index_free(x);

  /* a forged ISIZE sizes the first buffer only, and the member is corrupt */
  {
    struct nub_buf forged = nub_test_gzip(t.data, t.len);
    memset(forged.data + forged.len - 4, 0xff, 4);
    assert_int_equal(extract(f, &forged, NULL, &sc, "b2", &x, &err), -NUB_EEXTRACT);
    forged.data[forged.len - 4] = 1;
    forged.data[forged.len - 3] = forged.data[forged.len - 2] = forged.data[forged.len - 1] = 0;
    assert_int_equal(extract(f, &forged, NULL, &sc, "b2", &x, &err), -NUB_EEXTRACT);
    nub_buf_release(&forged);
  }

  /* two members make one stream; bytes after the last are ignored */
  {
    struct nub_buf half1 = nub_test_gzip(t.data, 1024);
    struct nub_buf half2 = nub_test_gzip(t.data + 1024, t.len - 1024);
    nub_buf_add(&two, half1.data, half1.len);
    nub_buf_add(&two, half2.data, half2.len);
    nub_buf_add(&two, "\0\0\0\0", 4);
    nub_buf_release(&half1);
    nub_buf_release(&half2);
  }
  assert_int_equal(extract(f, &two, NULL, &sc, "b3", &x, &err), 0);
  assert_true(has_path(x, "big.txt"));
  nub_index_free(x);

  /* a CRC that does not match, deflate data cut short */
  {
    struct nub_buf bad = nub_test_gzip(t.data, t.len);
    bad.data[bad.len - 8] ^= 0x55;
    assert_int_equal(extract(f, &bad, NULL, &sc, "b4", &x, &err), -NUB_EEXTRACT);
    assert_non_null(strstr(err.msg, "p@1.0.0: corrupt tarball (gzip:"));
    bad.data[bad.len - 8] ^= 0x55;
    bad.len /= 2;
    assert_int_equal(extract(f, &bad, NULL, &sc, "b5", &x, &err), -NUB_EEXTRACT);
    nub_buf_release(&bad);
  }

  /* caps: unpacked bytes (a bomb), one file, entries; each a refusal,
   * which is never retried */
  {
    struct nub_extract_limits lim = {10, 100000, 200000};
    struct nub_buf many = NUB_BUF_INIT, mgz;
    assert_int_equal(extract(f, &gz, &lim, &sc, "b6", &x, &err), -NUB_EEXTRACT);
    assert_non_null(strstr(err.msg, "per-package cap"));
    assert_true(last_refused);
    lim.max_total_bytes = 1u << 30;
    assert_int_equal(extract(f, &gz, &lim, &sc, "b7", &x, &err), -NUB_EEXTRACT);
    assert_non_null(strstr(err.msg, "per-file cap"));
    assert_true(last_refused);
    for (int i = 0; i < 11; i++) {
      char name[64];
      snprintf(name, sizeof(name), "package/f%d.js", i);
      nub_test_tar_entry(&many, name, '0', "x", 1, 0644);
    }
    nub_test_tar_finish(&many);
    mgz = nub_test_gzip(many.data, many.len);
    assert_int_equal(extract(f, &mgz, &lim, &sc, "b8", &x, &err), -NUB_EEXTRACT);
    assert_non_null(strstr(err.msg, "more than 10 entries"));
    assert_true(last_refused);
    lim.max_entries = 11;
    assert_int_equal(extract(f, &mgz, &lim, &sc, "b9", &x, &err), 0);
    nub_index_free(x);
    nub_buf_release(&many);
    nub_buf_release(&mgz);
  }
  nub_extract_scratch_release(&sc);
  nub_buf_release(&t);
  nub_buf_release(&gz);
  nub_buf_release(&two);
  nub_free(big);
}

/* A gzip bomb is refused at the cap having allocated no more than its
 * first guess: an honest size field past the cap before anything, a
 * forged one after counting through a small window (never by growing the
 * buffer towards the cap). */
static void test_extract__a_bomb_allocates_nothing(void **state)
{
  struct nub_test_store *f = *state;
  struct nub_buf t = NUB_BUF_INIT, gz;
  struct nub_index *x = NULL;
  struct nub_err err;
  struct nub_extract_scratch sc;
  /* 3 MiB: a buffer grown towards it would be kept for the next tarball */
  struct nub_extract_limits lim = {200000, 1u << 30, 3u << 20};
  size_t n = 8u << 20;
  char *zeros = nub_calloc(n, 1);

  memset(&sc, 0, sizeof(sc));
  nub_test_tar_entry(&t, "package/zeros.bin", '0', zeros, n, 0644);
  nub_test_tar_finish(&t);
  gz = nub_test_gzip(t.data, t.len);
  assert_true(gz.len < 64 * 1024);
  assert_int_equal(extract(f, &gz, &lim, &sc, "z1", &x, &err), -NUB_EEXTRACT);
  assert_true(last_refused);
  assert_int_equal(sc.outcap, 0); /* the size field said so: nothing allocated */
  /* the size field says 1000 bytes */
  gz.data[gz.len - 4] = 0xe8;
  gz.data[gz.len - 3] = 0x03;
  gz.data[gz.len - 2] = gz.data[gz.len - 1] = 0;
  assert_int_equal(extract(f, &gz, &lim, &sc, "z2", &x, &err), -NUB_EEXTRACT);
  assert_true(last_refused);
  assert_true(sc.outcap <= 4 * gz.len + 1);
  nub_extract_scratch_release(&sc);
  nub_buf_release(&t);
  nub_buf_release(&gz);
  nub_free(zeros);
}

/* The manifest the resolver reads is the one the import installs: named
 * the same way ("./package/", doubled slashes), the last of equal names. */
static void test_extract__tarball_package_json(void **state)
{
  struct nub_buf t = NUB_BUF_INIT, gz;
  struct nub_err err;
  char *pj = NULL;
  size_t n = 0;

  (void)state;
  nub_test_tar_entry(&t, "./package/", '5', NULL, 0, 0755);
  nub_test_tar_entry(&t, "./package/lib/package.json", '0', "{\"v\":0}", 7, 0644);
  nub_test_tar_entry(&t, "./package//package.json", '0', "{\"v\":1}", 7, 0644);
  nub_test_tar_entry(&t, "./package/package.json", '0', "{\"v\":2}", 7, 0644);
  nub_test_tar_finish(&t);
  gz = nub_test_gzip(t.data, t.len);
  assert_int_equal(nub_tarball_package_json(gz.data, gz.len, &pj, &n, &err), 0);
  assert_string_equal(pj, "{\"v\":2}");
  assert_int_equal(n, 7);
  nub_free(pj);
  nub_buf_release(&gz);
  nub_buf_reset(&t);
  nub_test_tar_entry(&t, "package/lib/package.json", '0', "{}", 2, 0644);
  nub_test_tar_finish(&t);
  gz = nub_test_gzip(t.data, t.len);
  assert_int_equal(nub_tarball_package_json(gz.data, gz.len, &pj, &n, &err), -NUB_EEXTRACT);
  assert_non_null(strstr(err.msg, "no package.json"));
  nub_buf_release(&gz);
  nub_buf_release(&t);
}

static void test_extract__plain_tar_and_not_a_tarball(void **state)
{
  struct nub_test_store *f = *state;
  struct nub_buf t = NUB_BUF_INIT, junk = NUB_BUF_INIT;
  struct nub_index *x = NULL;
  struct nub_err err;

  nub_test_tar_entry(&t, "package/a.js", '0', "1", 1, 0644);
  nub_test_tar_finish(&t);
  assert_int_equal(extract(f, &t, NULL, NULL, "c1", &x, &err), 0);
  assert_true(has_path(x, "a.js"));
  nub_index_free(x);
  nub_buf_adds(&junk, "<!DOCTYPE html><html>sign in</html>................................"
                      "..............................................................."
                      "..............................................................."
                      "..............................................................."
                      "..............................................................."
                      "..............................................................."
                      "..............................................................."
                      "...............................................................");
  assert_int_equal(extract(f, &junk, NULL, NULL, "c2", &x, &err), -NUB_EEXTRACT);
  assert_non_null(strstr(err.msg, "corrupt tarball (not a tar archive)"));
  junk.len = 0;
  assert_int_equal(extract(f, &junk, NULL, NULL, "c3", &x, &err), -NUB_EEXTRACT);
  nub_buf_release(&t);
  nub_buf_release(&junk);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tar__kinds_and_names),
      cmocka_unit_test(test_tar__hostile_headers),
      cmocka_unit_test_setup_teardown(test_extract__names_byte_for_byte, nub_test_store_setup,
                                      nub_test_store_teardown),
      cmocka_unit_test_setup_teardown(test_extract__gzip_members_and_faults, nub_test_store_setup,
                                      nub_test_store_teardown),
      cmocka_unit_test_setup_teardown(test_extract__file_over_directory, nub_test_store_setup,
                                      nub_test_store_teardown),
      cmocka_unit_test_setup_teardown(test_extract__a_bomb_allocates_nothing,
                                      nub_test_store_setup, nub_test_store_teardown),
      cmocka_unit_test(test_extract__tarball_package_json),
      cmocka_unit_test_setup_teardown(test_extract__plain_tar_and_not_a_tarball,
                                      nub_test_store_setup, nub_test_store_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
