/* test_inflate.c - the whole-buffer gzip/deflate decoder against streams
 * zlib made (inflate_vectors.h), hand-made invalid streams, every truncation
 * and random corruption (which must fail cleanly: the ASan build runs this
 * too). Real tarballs go through it in every end-to-end install. */
#include "nub_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inflate.h"
#include "inflate_vectors.h"
#include "nub_alloc.h"

/* the text the vectors compress; the same generator as the script's */
static unsigned char *gen_text(size_t *len)
{
  static const char *vocab[8] = {"require", "module", "export", "function",
                                 "return",  "const",  "the",    "package"};
  unsigned char *out = nub_malloc(V_TEXT_LEN + 1);
  uint32_t x = 12345;
  size_t n = 0;

  for (int i = 0; i < 1200; i++) {
    const char *w;
    x = (x * 1103515245u + 12345u) & 0x7fffffffu;
    w = vocab[(x >> 16) % 8];
    memcpy(out + n, w, strlen(w));
    n += strlen(w);
    out[n++] = (x >> 8) % 10 == 0 ? '\n' : ' ';
  }
  for (int i = 0; i < 1500; i++) {
    x = (x * 1103515245u + 12345u) & 0x7fffffffu;
    out[n++] = (unsigned char)((x >> 16) & 0xff);
  }
  assert_int_equal(n, V_TEXT_LEN);
  *len = n;
  return out;
}

static int gunzip(const void *in, size_t len, size_t max, bool crc,
                  struct nub_inflate_out *o)
{
  const char *why;
  return nub_gunzip(in, len, max, crc, o, &why);
}

static void test_crc32(void **state)
{
  (void)state;
  assert_int_equal(nub_crc32(0, "123456789", 9), 0xcbf43926u);
  assert_int_equal(nub_crc32(0, "", 0), 0);
  /* in pieces = at once */
  assert_int_equal(nub_crc32(nub_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u);
}

static void test_valid_streams(void **state)
{
  struct nub_inflate_out o = {NULL, 0, 0};
  size_t tlen, used;
  unsigned char *text = gen_text(&tlen);
  const char *why;

  (void)state;
  assert_int_equal(nub_crc32(0, text, tlen), V_TEXT_CRC);
  /* dynamic codes, long literal codes (second-level tables) */
  assert_int_equal(gunzip(v_dyn, sizeof(v_dyn), 1 << 20, true, &o), 0);
  assert_int_equal(o.len, tlen);
  assert_memory_equal(o.p, text, tlen);
  /* the same output buffer again: reused, same result */
  assert_int_equal(gunzip(v_dyn, sizeof(v_dyn), 1 << 20, true, &o), 0);
  assert_memory_equal(o.p, text, tlen);
  /* raw deflate, and where it ends */
  assert_int_equal(nub_inflate_raw(v_raw, sizeof(v_raw), 1 << 20, &o, &used, &why), 0);
  assert_int_equal(o.len, tlen);
  assert_memory_equal(o.p, text, tlen);
  assert_int_equal(used, sizeof(v_raw));
  /* stored block */
  assert_int_equal(gunzip(v_stored, sizeof(v_stored), 1 << 20, true, &o), 0);
  assert_int_equal(o.len, 30);
  assert_memory_equal(o.p, "abcabcabcabcabcabcabcabcabcabc", 30);
  /* fixed codes */
  assert_int_equal(gunzip(v_fixed, sizeof(v_fixed), 1 << 20, true, &o), 0);
  assert_int_equal(o.len, 24);
  assert_memory_equal(o.p, "hello hello hello hello\n", 24);
  /* FEXTRA, FNAME, FCOMMENT and FHCRC fields are skipped */
  assert_int_equal(gunzip(v_flagged, sizeof(v_flagged), 1 << 20, true, &o), 0);
  assert_int_equal(o.len, 7);
  assert_memory_equal(o.p, "flags!\n", 7);
  /* two members make one output; trailing zeros are ignored */
  {
    unsigned char two[sizeof(v_fixed) * 2 + 16];
    memcpy(two, v_fixed, sizeof(v_fixed));
    memcpy(two + sizeof(v_fixed), v_fixed, sizeof(v_fixed));
    memset(two + 2 * sizeof(v_fixed), 0, 16);
    assert_int_equal(gunzip(two, sizeof(two), 1 << 20, true, &o), 0);
    assert_int_equal(o.len, 48);
    assert_memory_equal(o.p + 24, "hello hello hello hello\n", 24);
  }
  nub_free(o.p);
  nub_free(text);
}

/* the text of v_long: 200 times the first 4000 bytes of gen_text and a
 * counter line */
static unsigned char *long_text(size_t *len)
{
  size_t tlen, n = 0;
  unsigned char *t = gen_text(&tlen), *out = nub_malloc(V_LONG_LEN + 8);

  for (int i = 0; i < 200; i++) {
    memcpy(out + n, t, 4000);
    n += 4000;
    n += (size_t)snprintf((char *)out + n, 8, "%06d\n", i);
  }
  nub_free(t);
  assert_int_equal(n, V_LONG_LEN);
  *len = n;
  return out;
}

/* Output many times the decoder's window: matches reach back across its
 * slides, stored blocks are split between windows, and the pieces come out
 * in order. */
static void test_longer_than_the_window(void **state)
{
  struct nub_inflate_out o = {NULL, 0, 0};
  struct nub_inflate_stream *s = nub_inflate_stream_new();
  size_t llen, got = 0, used;
  unsigned char *want = long_text(&llen);
  const char *why;
  int pieces = 0;

  (void)state;
  assert_int_equal(gunzip(v_long, sizeof(v_long), 1 << 24, true, &o), 0);
  assert_int_equal(o.len, llen);
  assert_memory_equal(o.p, want, llen);
  /* piece by piece */
  nub_inflate_stream_begin(s, v_long, sizeof(v_long), true, true, 1 << 24);
  for (;;) {
    const unsigned char *p;
    size_t n;
    assert_int_equal(nub_inflate_stream_next(s, &p, &n, &why), 0);
    if (!n)
      break;
    assert_true(got + n <= llen);
    assert_memory_equal(p, want + got, n);
    got += n;
    pieces++;
  }
  assert_int_equal(got, llen);
  assert_true(pieces > 2);
  /* the cap counts the whole output, not one window */
  assert_int_equal(gunzip(v_long, sizeof(v_long), llen - 1, false, &o), -EFBIG);
  /* cut anywhere: an error */
  for (size_t cut = 11; cut < sizeof(v_long); cut += 97)
    assert_int_not_equal(gunzip(v_long, cut, 1 << 24, false, &o), 0);

  /* stored blocks, 10 x 65535 bytes, made here */
  {
    size_t blk = 65535, nblk = 10, rawlen = nblk * (blk + 5);
    unsigned char *raw = nub_malloc(rawlen), *data = nub_malloc(nblk * blk);
    uint32_t x = 7;
    for (size_t i = 0; i < nblk * blk; i++) {
      x = x * 1103515245u + 12345u;
      data[i] = (unsigned char)(x >> 16);
    }
    for (size_t k = 0; k < nblk; k++) {
      unsigned char *h = raw + k * (blk + 5);
      h[0] = k == nblk - 1 ? 1 : 0; /* BFINAL, BTYPE 00, then byte-aligned */
      h[1] = (unsigned char)(blk & 0xff);
      h[2] = (unsigned char)(blk >> 8);
      h[3] = (unsigned char)(~blk & 0xff);
      h[4] = (unsigned char)((~blk >> 8) & 0xff);
      memcpy(h + 5, data + k * blk, blk);
    }
    assert_int_equal(nub_inflate_raw(raw, rawlen, 1 << 24, &o, &used, &why), 0);
    assert_int_equal(o.len, nblk * blk);
    assert_memory_equal(o.p, data, nblk * blk);
    assert_int_equal(used, rawlen);
    assert_int_equal(nub_inflate_raw(raw, rawlen - 1, 1 << 24, &o, &used, &why), -EBADMSG);
    nub_free(raw);
    nub_free(data);
  }
  nub_inflate_stream_free(s);
  nub_free(want);
  nub_free(o.p);
}

static void test_invalid_streams(void **state)
{
  struct nub_inflate_out o = {NULL, 0, 0};
  unsigned char buf[sizeof(v_dyn)];
  size_t used;
  const char *why;

  (void)state;
  /* a match before any output */
  assert_int_equal(nub_inflate_raw(v_far, sizeof(v_far), 1 << 20, &o, &used, &why),
                   -EBADMSG);
  assert_string_equal(why, "distance too far back");
  /* block type 3 */
  {
    unsigned char b3[4] = {0x07, 0, 0, 0};
    assert_int_equal(nub_inflate_raw(b3, sizeof(b3), 1 << 20, &o, &used, &why), -EBADMSG);
    assert_string_equal(why, "invalid block type");
  }
  /* a stored block whose length check fails */
  {
    unsigned char st[8] = {0x01, 0x05, 0x00, 0x00, 0x00, 'a', 'b', 'c'};
    assert_int_equal(nub_inflate_raw(st, sizeof(st), 1 << 20, &o, &used, &why), -EBADMSG);
  }
  /* not gzip at all */
  assert_int_equal(gunzip("plain text", 10, 1 << 20, true, &o), -EBADMSG);
  /* a wrong CRC fails only when asked to check it */
  memcpy(buf, v_dyn, sizeof(buf));
  buf[sizeof(buf) - 8] ^= 1;
  assert_int_equal(gunzip(buf, sizeof(buf), 1 << 20, true, &o), -EBADMSG);
  assert_int_equal(gunzip(buf, sizeof(buf), 1 << 20, false, &o), 0);
  /* a wrong ISIZE always fails */
  memcpy(buf, v_dyn, sizeof(buf));
  buf[sizeof(buf) - 4] ^= 1;
  assert_int_equal(gunzip(buf, sizeof(buf), 1 << 20, false, &o), -EBADMSG);
  /* output over the cap */
  assert_int_equal(gunzip(v_dyn, sizeof(v_dyn), 1000, false, &o), -EFBIG);
  /* reserved header flags */
  memcpy(buf, v_dyn, sizeof(buf));
  buf[3] |= 0x80;
  assert_int_equal(gunzip(buf, sizeof(buf), 1 << 20, false, &o), -EBADMSG);
  nub_free(o.p);
}

/* Every prefix of a valid stream is an error: never a crash, never success. */
static void test_every_truncation(void **state)
{
  struct nub_inflate_out o = {NULL, 0, 0};

  (void)state;
  for (size_t n = 0; n < sizeof(v_dyn); n++) {
    unsigned char *cut = nub_malloc(n + 1); /* exact size: ASan sees overreads */
    memcpy(cut, v_dyn, n);
    if (gunzip(cut, n, 1 << 20, false, &o) == 0)
      fail_msg("a stream cut to %zu of %zu bytes decoded", n, sizeof(v_dyn));
    nub_free(cut);
  }
  nub_free(o.p);
}

/* Random corruption: any result but a crash or an out-of-range read/write. */
static void test_corruption(void **state)
{
  struct nub_inflate_out o = {NULL, 0, 0};
  uint32_t x = 99;
  int ok = 0, bad = 0;

  (void)state;
  for (int i = 0; i < 4000; i++) {
    unsigned char *b = nub_malloc(sizeof(v_dyn));
    int rc, flips;
    memcpy(b, v_dyn, sizeof(v_dyn));
    x = x * 1103515245u + 12345u;
    flips = 1 + (int)((x >> 16) % 4);
    for (int k = 0; k < flips; k++) {
      x = x * 1103515245u + 12345u;
      /* past the 10-byte header, so the deflate data gets the damage */
      b[10 + (x >> 8) % (sizeof(v_dyn) - 18)] ^= (unsigned char)(1u << ((x >> 4) % 8));
    }
    rc = gunzip(b, sizeof(v_dyn), 1 << 20, true, &o);
    if (rc == 0)
      ok++;
    else if (rc == -EBADMSG || rc == -EFBIG)
      bad++;
    else
      fail_msg("unexpected rc %d", rc);
    nub_free(b);
  }
  /* the CRC catches what decodes to the wrong bytes */
  assert_true(bad > 3900);
  (void)ok;
  nub_free(o.p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crc32),
      cmocka_unit_test(test_valid_streams),
      cmocka_unit_test(test_longer_than_the_window),
      cmocka_unit_test(test_invalid_streams),
      cmocka_unit_test(test_every_truncation),
      cmocka_unit_test(test_corruption),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
