/* inflate.c - whole-buffer deflate decoder; see inflate.h.
 *
 * Huffman codes are decoded through a first-level table indexed by the next
 * LBITS (DBITS) input bits; the rare longer codes go through second-level
 * tables. Entries are 32 bits, laid out so that the hot path needs few
 * instructions (the bits to drop are the low byte, a literal is the sign):
 *   bits 0-7   bits to consume: code length plus its extra bits (the full
 *              code length in sub-tables)
 *   bits 8-11  code length alone / bits of a sub-table's index
 *   bits 12-15 kind (below)
 *   bits 16-30 literal, base value, or sub-table offset
 *   bit 31     set for literals
 * Codes a set leaves unused stay K_BAD, so an incomplete code is refused
 * when (and only when) the input uses a missing code. */
#include "inflate.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "bytes.h"
#include "nub_alloc.h"

/* one bit each, so that the hot path tests a kind with one instruction */
enum { K_BAD = 0, K_LIT = 1, K_LEN = 2, K_SUB = 4, K_END = 8 };

#define LBITS 10
#define DBITS 8
#define MAXBITS 15
#define LSIZE ((1u << LBITS) + 288u * (1u << (MAXBITS - LBITS)))
#define DSIZE ((1u << DBITS) + 32u * (1u << (MAXBITS - DBITS)))
#define SLACK 320 /* output room kept past the end: a match + word copies */

#define ENTRY(len, kind, extra, val)                                               \
  ((uint32_t)((len) + (extra)) | ((uint32_t)(len) << 8) | ((uint32_t)(kind) << 12) | \
   ((uint32_t)(val) << 16) | ((kind) == K_LIT ? 1u << 31 : 0u))
#define SUB_ENTRY(sbits, off) (((uint32_t)(sbits) << 8) | ((uint32_t)K_SUB << 12) | \
                               ((uint32_t)(off) << 16))
#define E_TOTAL(e) ((e) & 0xffu)
#define E_LEN(e) (((e) >> 8) & 15u)
#define E_KIND(e) (((e) >> 12) & 15u)
#define E_IS(e, k) (((e) & ((uint32_t)(k) << 12)) != 0)
#define E_VAL(e) (((e) >> 16) & 0x7fffu)
#define E_IS_LIT(e) ((int32_t)(e) < 0)

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10,  11,  13,
                                      15, 17, 19, 23, 27, 31, 35, 43,  51,  59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,    65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2,  2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

struct bits {
  const uint8_t *p, *end;
  uint64_t buf;
  unsigned n;       /* valid bits in buf */
  unsigned virt;    /* zero bytes appended past the end of the input */
};

/* After a refill at least 56 bits are buffered. Past the end of the input
 * zero bytes are counted in virt; using any of them is a truncation. */
static inline void refill(struct bits *b)
{
  if (b->end - b->p >= 8) {
    b->buf |= nub_load64le(b->p) << b->n;
    b->p += (63 - b->n) >> 3;
    b->n |= 56;
    return;
  }
  while (b->n <= 56) {
    if (b->p < b->end)
      b->buf |= (uint64_t)*b->p++ << b->n;
    else
      b->virt++;
    b->n += 8;
  }
}

static inline void drop(struct bits *b, unsigned k)
{
  b->buf >>= k;
  b->n -= k;
}

static inline uint32_t take(struct bits *b, unsigned k)
{
  uint32_t v = (uint32_t)(b->buf & ((1ull << k) - 1));
  drop(b, k);
  return v;
}

static bool truncated(const struct bits *b)
{
  return b->virt * 8 > b->n;
}

/* Back to a byte boundary, with the buffered whole bytes given back to the
 * input: stored blocks and the gzip trailer are read straight from p. */
static void realign(struct bits *b)
{
  unsigned back;
  drop(b, b->n & 7);
  back = b->n / 8;
  back = back > b->virt ? back - b->virt : 0;
  b->p -= back;
  b->buf = 0;
  b->n = 0;
  b->virt = 0;
}

static uint32_t rev(uint32_t code, unsigned len)
{
  uint32_t r = 0;
  for (unsigned i = 0; i < len; i++, code >>= 1)
    r = (r << 1) | (code & 1);
  return r;
}

/* Build a decode table for n code lengths. kinds/bases/extras give each
 * symbol's meaning. Returns -1 for an over-subscribed set. */
static int build(uint32_t *t, unsigned tbits, unsigned tsize, const uint8_t *lens,
                 unsigned n, const uint8_t *kinds, const uint16_t *vals,
                 const uint8_t *extras)
{
  unsigned count[MAXBITS + 1] = {0}, next[MAXBITS + 2];
  unsigned subused = 1u << tbits, sub_of[1u << LBITS];
  int left = 1;

  for (unsigned i = 0; i < n; i++)
    count[lens[i]]++;
  count[0] = 0;
  for (unsigned l = 1; l <= MAXBITS; l++) {
    left = (left << 1) - (int)count[l];
    if (left < 0)
      return -1;
  }
  next[1] = 0;
  for (unsigned l = 1; l <= MAXBITS; l++)
    next[l + 1] = (next[l] + count[l]) << 1;
  for (unsigned i = 0; i < tsize; i++)
    t[i] = ENTRY(0, K_BAD, 0, 0);
  for (unsigned i = 0; i < (1u << tbits); i++)
    sub_of[i] = 0;
  for (unsigned s = 0; s < n; s++) {
    unsigned l = lens[s];
    uint32_t e, r;
    if (!l)
      continue;
    r = rev(next[l]++, l);
    e = ENTRY(l, kinds[s], extras[s], vals[s]);
    if (l <= tbits) {
      for (uint32_t i = r; i < (1u << tbits); i += 1u << l)
        t[i] = e;
    } else {
      unsigned lo = r & ((1u << tbits) - 1), sbits = MAXBITS - tbits;
      if (!sub_of[lo]) {
        if (subused + (1u << sbits) > tsize)
          return -1;
        sub_of[lo] = subused;
        t[lo] = SUB_ENTRY(sbits, subused);
        subused += 1u << sbits;
      }
      for (uint32_t i = r >> tbits; i < (1u << sbits); i += 1u << (l - tbits))
        t[sub_of[lo] + i] = e;
    }
  }
  return 0;
}

static inline uint32_t lookup(const uint32_t *t, unsigned tbits, uint64_t buf)
{
  uint32_t e = t[buf & ((1u << tbits) - 1)];
  if (__builtin_expect(E_IS(e, K_SUB), 0))
    e = t[E_VAL(e) + ((buf >> tbits) & ((1u << E_LEN(e)) - 1))];
  return e;
}

/* cap is what the decoder may fill: the allocation, but never more than
 * max (+ SLACK), so that a reused big buffer does not lift the cap. */
struct tables {
  uint32_t lit[LSIZE];
  uint32_t dist[DSIZE];
  uint8_t kinds[320];
  uint16_t vals[320];
  uint8_t extras[320];
};

static void litlen_meaning(struct tables *T)
{
  for (unsigned s = 0; s < 256; s++) {
    T->kinds[s] = K_LIT;
    T->vals[s] = (uint16_t)s;
    T->extras[s] = 0;
  }
  T->kinds[256] = K_END;
  T->vals[256] = 0;
  T->extras[256] = 0;
  for (unsigned s = 257; s < 288; s++) {
    bool ok = s < 286;
    T->kinds[s] = ok ? K_LEN : K_BAD;
    T->vals[s] = ok ? len_base[s - 257] : 0;
    T->extras[s] = ok ? len_extra[s - 257] : 0;
  }
}

static int build_lit(struct tables *T, const uint8_t *lens, unsigned n)
{
  litlen_meaning(T);
  return build(T->lit, LBITS, LSIZE, lens, n, T->kinds, T->vals, T->extras);
}

static int build_dist(struct tables *T, const uint8_t *lens, unsigned n)
{
  uint8_t kinds[32], extras[32];
  uint16_t vals[32];
  for (unsigned s = 0; s < 32; s++) {
    bool ok = s < 30;
    kinds[s] = ok ? K_LEN : K_BAD;
    vals[s] = ok ? dist_base[s] : 0;
    extras[s] = ok ? dist_extra[s] : 0;
  }
  return build(T->dist, DBITS, DSIZE, lens, n, kinds, vals, extras);
}

static int read_dynamic(struct bits *b, struct tables *T, const char **why)
{
  static const uint8_t order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                    11, 4,  12, 3, 13, 2, 14, 1, 15};
  uint8_t cl[19] = {0}, lens[320];
  uint8_t ckind[19], cextra[19];
  uint16_t cval[19];
  uint32_t ct[1u << 7];
  unsigned nlit, ndist, ncl, i = 0;

  refill(b);
  nlit = take(b, 5) + 257;
  ndist = take(b, 5) + 1;
  ncl = take(b, 4) + 4;
  if (nlit > 286 || ndist > 30)
    return *why = "too many length or distance codes", -EBADMSG;
  for (unsigned k = 0; k < ncl; k++) {
    refill(b);
    cl[order[k]] = (uint8_t)take(b, 3);
  }
  for (unsigned s = 0; s < 19; s++) {
    ckind[s] = K_LIT;
    cval[s] = (uint16_t)s;
    cextra[s] = 0;
  }
  /* code-length codes are at most 7 bits: one level suffices */
  {
    unsigned count[8] = {0}, next[9];
    int left = 1;
    for (unsigned s = 0; s < 19; s++)
      count[cl[s]]++;
    count[0] = 0;
    for (unsigned l = 1; l <= 7; l++) {
      left = (left << 1) - (int)count[l];
      if (left < 0)
        return *why = "invalid code-length code", -EBADMSG;
    }
    next[1] = 0;
    for (unsigned l = 1; l <= 7; l++)
      next[l + 1] = (next[l] + count[l]) << 1;
    for (unsigned k = 0; k < (1u << 7); k++)
      ct[k] = ENTRY(0, K_BAD, 0, 0);
    for (unsigned s = 0; s < 19; s++) {
      unsigned l = cl[s];
      if (!l)
        continue;
      for (uint32_t k = rev(next[l]++, l); k < (1u << 7); k += 1u << l)
        ct[k] = ENTRY(l, ckind[s], cextra[s], cval[s]);
    }
  }
  while (i < nlit + ndist) {
    uint32_t e, sym;
    unsigned rep = 0;
    uint8_t v = 0;
    refill(b);
    e = ct[b->buf & 127];
    if (E_KIND(e) == K_BAD)
      return *why = "invalid code length", -EBADMSG;
    drop(b, E_LEN(e));
    sym = E_VAL(e);
    if (sym < 16) {
      lens[i++] = (uint8_t)sym;
      continue;
    }
    if (sym == 16) {
      if (!i)
        return *why = "repeat with no previous length", -EBADMSG;
      v = lens[i - 1];
      rep = 3 + take(b, 2);
    } else if (sym == 17) {
      rep = 3 + take(b, 3);
    } else {
      rep = 11 + take(b, 7);
    }
    if (i + rep > nlit + ndist)
      return *why = "code lengths overflow", -EBADMSG;
    while (rep--)
      lens[i++] = v;
  }
  if (truncated(b))
    return *why = "truncated", -EBADMSG;
  if (!lens[256])
    return *why = "no end-of-block code", -EBADMSG;
  if (build_lit(T, lens, nlit) < 0 || build_dist(T, lens + nlit, ndist) < 0)
    return *why = "over-subscribed code", -EBADMSG;
  return 0;
}

static void read_fixed(struct tables *T)
{
  uint8_t lens[320];
  unsigned s = 0;
  for (; s < 144; s++)
    lens[s] = 8;
  for (; s < 256; s++)
    lens[s] = 9;
  for (; s < 280; s++)
    lens[s] = 7;
  for (; s < 288; s++)
    lens[s] = 8;
  build_lit(T, lens, 288);
  for (s = 0; s < 30; s++)
    lens[s] = 5;
  build_dist(T, lens, 30);
}

/* One block's symbols, through the tables. */
/* ---- the stream: a window of output over the whole input ---------------- */

#define WIN_HIST 32768u               /* deflate's distance limit */
#define WIN_CHUNK (256u * 1024u)      /* new output per call: stays in cache */
#define WIN_LIM (WIN_HIST + WIN_CHUNK) /* a symbol starts only below this */

enum { S_MEMBER, S_BLOCK, S_CODES, S_STORED, S_TRAILER, S_DONE };

struct nub_inflate_stream {
  struct tables T;
  struct bits b;
  const uint8_t *in, *end, *member; /* member: where the current one starts */
  bool gzip, check_crc, final, first;
  int state;
  size_t stored_left;
  uint64_t max, slid;     /* total output = slid + len */
  uint64_t member_start;  /* total output when the member began */
  uint32_t crc;
  size_t crc_from;        /* win[crc_from, len) is not in crc yet */
  size_t len;
  unsigned char win[WIN_LIM + 258 + SLACK];
};

/* Decode symbols until the block ends (0), the window is full (1) or an
 * error. A symbol starts only with room for the longest match. */
static int inflate_codes(struct nub_inflate_stream *s, const char **why)
{
  /* the bit reader in locals: stores into win (bytes, which may alias
   * anything) would otherwise force it back to memory at every byte */
  struct bits bl = s->b, *b = &bl;
  const struct tables *T = &s->T;
  unsigned char *win = s->win;
  size_t len = s->len;
  int rc = 0;

  for (;;) {
    uint32_t e, mlen, dist;
    uint64_t saved;

    if (len >= WIN_LIM) {
      rc = 1;
      break;
    }
    refill(b); /* >= 56 bits: a length code with its extra bits, a distance
                  code with its extra bits (15 + 5 + 15 + 13 = 48) */
    if (__builtin_expect(b->virt > 8, 0)) {
      rc = -EBADMSG, *why = "truncated"; /* decoding the zeros past the end */
      break;
    }
    e = lookup(T->lit, LBITS, b->buf);
    if (E_IS_LIT(e)) {
      drop(b, E_TOTAL(e));
      win[len++] = (unsigned char)(e >> 16);
      e = lookup(T->lit, LBITS, b->buf); /* >= 41 bits left: two more */
      if (E_IS_LIT(e)) {
        drop(b, E_TOTAL(e));
        win[len++] = (unsigned char)(e >> 16);
        e = lookup(T->lit, LBITS, b->buf);
        if (E_IS_LIT(e)) {
          drop(b, E_TOTAL(e));
          win[len++] = (unsigned char)(e >> 16);
        }
      }
      continue;
    }
    if (__builtin_expect(!E_IS(e, K_LEN), 0)) {
      drop(b, E_TOTAL(e));
      if (E_KIND(e) == K_END)
        rc = truncated(b) ? (*why = "truncated", -EBADMSG) : 0;
      else
        rc = -EBADMSG, *why = truncated(b) ? "truncated" : "invalid literal/length code";
      break;
    }
    saved = b->buf;
    drop(b, E_TOTAL(e));
    mlen = E_VAL(e) + (uint32_t)((saved & ((1ull << E_TOTAL(e)) - 1)) >> E_LEN(e));
    e = lookup(T->dist, DBITS, b->buf);
    if (__builtin_expect(!E_IS(e, K_LEN), 0)) {
      rc = -EBADMSG, *why = truncated(b) ? "truncated" : "invalid distance code";
      break;
    }
    saved = b->buf;
    drop(b, E_TOTAL(e));
    dist = E_VAL(e) + (uint32_t)((saved & ((1ull << E_TOTAL(e)) - 1)) >> E_LEN(e));
    /* bits past the end decode as zeros until the next refill notices or
     * the block's end checks: never read, the output is dropped */
    if (dist > len) {
      rc = -EBADMSG, *why = "distance too far back";
      break;
    }
    {
      unsigned char *dst = win + len;
      const unsigned char *src = dst - dist;
      len += mlen;
      if (dist >= 8) {
        /* five words at once cover most matches; may write up to 37 bytes
         * past the match (SLACK). A load that reads back an earlier store
         * has that store's size and address, which the CPU forwards */
        uint64_t w;
        memcpy(&w, src, 8), memcpy(dst, &w, 8);
        memcpy(&w, src + 8, 8), memcpy(dst + 8, &w, 8);
        memcpy(&w, src + 16, 8), memcpy(dst + 16, &w, 8);
        memcpy(&w, src + 24, 8), memcpy(dst + 24, &w, 8);
        memcpy(&w, src + 32, 8), memcpy(dst + 32, &w, 8);
        for (uint32_t d = 40; d < mlen; d += 8) {
          memcpy(&w, src + d, 8);
          memcpy(dst + d, &w, 8);
        }
      } else if (dist == 1) {
        memset(dst, *src, mlen);
      } else {
        for (uint32_t d = 0; d < mlen; d++)
          dst[d] = src[d];
      }
    }
  }
  s->len = len;
  s->b = bl;
  return rc;
}

bool nub_is_gzip(const void *buf, size_t len)
{
  const uint8_t *p = buf;
  return len >= 3 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8;
}

/* Skip a gzip member header; returns its length or -1. */
static long gz_header(const uint8_t *p, size_t len)
{
  size_t i = 10;
  unsigned flg;
  if (len < 10 || !nub_is_gzip(p, len))
    return -1;
  flg = p[3];
  if (flg & 0xe0)
    return -1; /* reserved bits */
  if (flg & 4) { /* FEXTRA */
    if (len < i + 2)
      return -1;
    i += 2 + ((size_t)p[i] | (size_t)p[i + 1] << 8);
  }
  for (unsigned f = 8; f <= 16; f <<= 1) { /* FNAME, FCOMMENT */
    if (!(flg & f))
      continue;
    while (i < len && p[i])
      i++;
    i++;
  }
  if (flg & 2)
    i += 2; /* FHCRC */
  return i <= len ? (long)i : -1;
}

struct nub_inflate_stream *nub_inflate_stream_new(void)
{
  return nub_calloc(1, sizeof(struct nub_inflate_stream));
}

void nub_inflate_stream_free(struct nub_inflate_stream *s)
{
  nub_free(s);
}

void nub_inflate_stream_begin(struct nub_inflate_stream *s, const void *in, size_t len,
                              bool gzip, bool check_crc, uint64_t max_out)
{
  s->in = s->member = in;
  s->end = s->in + len;
  s->gzip = gzip;
  s->check_crc = check_crc;
  s->first = true;
  s->final = false;
  s->state = S_MEMBER;
  s->stored_left = 0;
  s->max = max_out;
  s->slid = s->member_start = 0;
  s->crc = 0;
  s->crc_from = s->len = 0;
  memset(&s->b, 0, sizeof(s->b));
}

size_t nub_inflate_stream_used(const struct nub_inflate_stream *s)
{
  return (size_t)(s->b.p - s->in);
}

static void crc_upto(struct nub_inflate_stream *s)
{
  if (s->check_crc && s->len > s->crc_from)
    s->crc = nub_crc32(s->crc, s->win + s->crc_from, s->len - s->crc_from);
  s->crc_from = s->len;
}

/* One step of the state machine; 1 when the window is full. */
static int step(struct nub_inflate_stream *s, const char **why)
{
  struct bits *b = &s->b;
  int rc;

  switch (s->state) {
  case S_MEMBER:
    if (!s->gzip) {
      if (!s->first) {
        s->state = S_DONE;
        return 0;
      }
      s->b = (struct bits){s->in, s->end, 0, 0, 0};
    } else {
      long h;
      if (!s->first && (s->end - s->member < 2 || s->member[0] != 0x1f ||
                        s->member[1] != 0x8b)) {
        s->state = S_DONE; /* bytes after the last member are ignored, as gzip does */
        return 0;
      }
      h = gz_header(s->member, (size_t)(s->end - s->member));
      if (h < 0)
        return *why = s->first ? "not gzip data" : "bad gzip header", -EBADMSG;
      s->b = (struct bits){s->member + h, s->end, 0, 0, 0};
      s->member_start = s->slid + s->len;
      s->crc = 0;
      s->crc_from = s->len;
    }
    s->first = false;
    s->final = false;
    s->state = S_BLOCK;
    return 0;
  case S_BLOCK: {
    unsigned type;
    if (s->final) {
      realign(b);
      s->state = S_TRAILER;
      return 0;
    }
    refill(b);
    s->final = take(b, 1);
    type = take(b, 2);
    if (truncated(b))
      return *why = "truncated", -EBADMSG;
    if (type == 0) {
      realign(b);
      if (s->end - b->p < 4)
        return *why = "truncated", -EBADMSG;
      s->stored_left = (size_t)b->p[0] | (size_t)b->p[1] << 8;
      if ((s->stored_left ^ ((size_t)b->p[2] | (size_t)b->p[3] << 8)) != 0xffff)
        return *why = "stored block length check failed", -EBADMSG;
      b->p += 4;
      if ((size_t)(s->end - b->p) < s->stored_left)
        return *why = "truncated", -EBADMSG;
      s->state = S_STORED;
    } else if (type == 1) {
      read_fixed(&s->T);
      s->state = S_CODES;
    } else if (type == 2) {
      rc = read_dynamic(b, &s->T, why);
      if (rc < 0)
        return rc;
      s->state = S_CODES;
    } else {
      return *why = "invalid block type", -EBADMSG;
    }
    return 0;
  }
  case S_CODES:
    rc = inflate_codes(s, why);
    if (rc == 0)
      s->state = S_BLOCK;
    return rc;
  case S_STORED: {
    size_t n = s->stored_left, room = s->len < WIN_LIM ? WIN_LIM - s->len : 0;
    if (n > room)
      n = room;
    memcpy(s->win + s->len, b->p, n);
    s->len += n;
    b->p += n;
    s->stored_left -= n;
    if (s->stored_left)
      return 1;
    s->state = S_BLOCK;
    return 0;
  }
  case S_TRAILER:
    if (!s->gzip) {
      s->state = S_DONE;
      return 0;
    }
    if (s->end - b->p < 8)
      return *why = "truncated (no gzip trailer)", -EBADMSG;
    {
      const uint8_t *t = b->p;
      uint32_t crc = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 |
                     (uint32_t)t[3] << 24;
      uint32_t isize = (uint32_t)t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 |
                       (uint32_t)t[7] << 24;
      if (isize != (uint32_t)(s->slid + s->len - s->member_start))
        return *why = "length check failed", -EBADMSG;
      crc_upto(s);
      if (s->check_crc && s->crc != crc)
        return *why = "CRC check failed", -EBADMSG;
    }
    s->member = b->p + 8;
    s->state = S_MEMBER;
    return 0;
  default:
    return 0;
  }
}

int nub_inflate_stream_next(struct nub_inflate_stream *s, const unsigned char **out,
                            size_t *n, const char **why)
{
  size_t start;
  int rc = 0;

  *why = "";
  /* keep the last WIN_HIST bytes as history for the matches to come */
  if (s->len > WIN_HIST) {
    size_t drop_n = s->len - WIN_HIST;
    crc_upto(s);
    memmove(s->win, s->win + drop_n, WIN_HIST);
    s->len = WIN_HIST;
    s->crc_from = WIN_HIST;
    s->slid += drop_n;
  }
  start = s->len;
  while (s->state != S_DONE) {
    rc = step(s, why);
    if (rc < 0)
      break;
    if (rc == 1) {
      rc = 0;
      break;
    }
  }
  if (rc == 0 && s->slid + s->len > s->max)
    rc = -EFBIG, *why = "output too large";
  if (rc < 0) {
    *out = NULL;
    *n = 0;
    return rc;
  }
  *out = s->win + start;
  *n = s->len - start;
  return 0;
}

/* Whole-buffer helpers over the stream (tests, small callers). */
static int drain_all(struct nub_inflate_stream *s, struct nub_inflate_out *o,
                     const char **why)
{
  int rc;

  o->len = 0;
  for (;;) {
    const unsigned char *p;
    size_t n;
    rc = nub_inflate_stream_next(s, &p, &n, why);
    if (rc < 0 || n == 0)
      break;
    if (o->len + n + 1 > o->cap) {
      size_t cap = o->cap ? o->cap : 65536;
      while (cap < o->len + n + 1)
        cap *= 2;
      o->p = nub_realloc(o->p, cap);
      o->cap = cap;
    }
    memcpy(o->p + o->len, p, n);
    o->len += n;
  }
  if (rc < 0)
    o->len = 0;
  return rc;
}

int nub_inflate_raw(const void *in, size_t len, size_t max_out,
                    struct nub_inflate_out *o, size_t *used, const char **why)
{
  struct nub_inflate_stream *s = nub_inflate_stream_new();
  int rc;

  nub_inflate_stream_begin(s, in, len, false, false, max_out);
  rc = drain_all(s, o, why);
  if (rc == 0)
    *used = nub_inflate_stream_used(s);
  nub_inflate_stream_free(s);
  return rc;
}

int nub_gunzip(const void *in, size_t len, size_t max_out, bool check_crc,
               struct nub_inflate_out *o, const char **why)
{
  struct nub_inflate_stream *s = nub_inflate_stream_new();
  int rc;

  nub_inflate_stream_begin(s, in, len, true, check_crc, max_out);
  rc = drain_all(s, o, why);
  nub_inflate_stream_free(s);
  return rc;
}

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++)
      c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    crc_table[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++)
    for (int t = 1; t < 8; t++)
      crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
}

/* Slicing by 8. */
uint32_t nub_crc32(uint32_t crc, const void *buf, size_t len)
{
  const uint32_t(*t)[256] = (const uint32_t(*)[256])crc_table;
  const uint8_t *p = buf;

  pthread_once(&crc_once, crc_init);
  crc = ~crc;
  while (len >= 8) {
    uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                         (uint32_t)p[3] << 24);
    uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 |
                  (uint32_t)p[7] << 24;
    crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^
          t[4][lo >> 24] ^ t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
          t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
    p += 8;
    len -= 8;
  }
  while (len--)
    crc = t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}
