/* inflate.c - whole-buffer deflate decoder; see inflate.h.
 *
 * Huffman codes are decoded through a first-level table indexed by the next
 * LBITS (DBITS) input bits; the rare longer codes go through second-level
 * tables. Entries are 32 bits:
 *   bits 0-4   code length (bits to consume; the full length in sub-tables)
 *   bits 5-7   kind (below)
 *   bits 8-12  extra bits of a length or distance / bits of a sub-table
 *   bits 16-31 literal, base value, or sub-table offset
 * Codes a set leaves unused stay K_BAD, so an incomplete code is refused
 * when (and only when) the input uses a missing code. */
#include "inflate.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "nub_alloc.h"

enum { K_BAD, K_LIT, K_LEN, K_END, K_SUB };

#define LBITS 10
#define DBITS 8
#define MAXBITS 15
#define LSIZE ((1u << LBITS) + 288u * (1u << (MAXBITS - LBITS)))
#define DSIZE ((1u << DBITS) + 32u * (1u << (MAXBITS - DBITS)))
#define SLACK 320 /* output room kept past the end: a match + word copies */

#define ENTRY(len, kind, extra, val)                                        \
  ((uint32_t)(len) | ((uint32_t)(kind) << 5) | ((uint32_t)(extra) << 8) | \
   ((uint32_t)(val) << 16))
#define E_LEN(e) ((e) & 31u)
#define E_KIND(e) (((e) >> 5) & 7u)
#define E_EXTRA(e) (((e) >> 8) & 31u)
#define E_VAL(e) ((e) >> 16)

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

static inline uint64_t load64le(const uint8_t *p)
{
  uint64_t w;
  memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  return w;
}

/* After a refill at least 56 bits are buffered. Past the end of the input
 * zero bytes are counted in virt; using any of them is a truncation. */
static inline void refill(struct bits *b)
{
  if (b->end - b->p >= 8) {
    b->buf |= load64le(b->p) << b->n;
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
        t[lo] = ENTRY(0, K_SUB, sbits, subused);
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
  if (E_KIND(e) == K_SUB)
    e = t[E_VAL(e) + ((buf >> tbits) & ((1u << E_EXTRA(e)) - 1))];
  return e;
}

/* cap is what the decoder may fill: the allocation, but never more than
 * max (+ SLACK), so that a reused big buffer does not lift the cap. */
struct out {
  unsigned char *p;
  size_t len, cap, alloc, max;
};

static void out_init(struct out *o, const struct nub_inflate_out *io, size_t max)
{
  o->p = io->p;
  o->len = 0;
  o->alloc = io->cap;
  o->max = max;
  o->cap = o->alloc < max + SLACK ? o->alloc : max + SLACK;
}

/* Room for `need` more bytes plus SLACK. */
static int grow(struct out *o, size_t need)
{
  size_t want = o->len + need + SLACK, cap = o->alloc > 65536 ? o->alloc : 65536;
  if (o->len + need > o->max)
    return -EFBIG;
  if (want <= o->cap)
    return 0;
  while (cap < want)
    cap *= 2;
  if (cap > o->max + SLACK)
    cap = o->max + SLACK;
  if (cap > o->alloc) {
    o->p = nub_realloc(o->p, cap);
    o->alloc = cap;
  }
  o->cap = cap;
  return 0;
}

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
static int inflate_codes(struct bits *b, struct tables *T, struct out *o, const char **why)
{
  for (;;) {
    uint32_t e, len, d, dist;
    int rc;

    refill(b); /* >= 56 bits: a length code with its extra bits, a distance
                  code with its extra bits (15 + 5 + 15 + 13 = 48) */
    if (__builtin_expect(b->virt > 8, 0))
      return *why = "truncated", -EBADMSG; /* decoding the zeros past the end */
    e = lookup(T->lit, LBITS, b->buf);
    drop(b, E_LEN(e));
    if (E_KIND(e) == K_LIT) {
      if (o->len >= o->cap - SLACK && (rc = grow(o, 1)) < 0)
        return *why = "output too large", rc;
      o->p[o->len++] = (unsigned char)E_VAL(e);
      /* a second literal while the buffer holds enough bits */
      if (b->n >= MAXBITS) {
        e = lookup(T->lit, LBITS, b->buf);
        if (E_KIND(e) == K_LIT) {
          drop(b, E_LEN(e));
          if (o->len >= o->cap - SLACK && (rc = grow(o, 1)) < 0)
            return *why = "output too large", rc;
          o->p[o->len++] = (unsigned char)E_VAL(e);
        }
      }
      continue;
    }
    if (E_KIND(e) == K_END) {
      if (truncated(b))
        return *why = "truncated", -EBADMSG;
      return 0;
    }
    if (E_KIND(e) != K_LEN)
      return *why = truncated(b) ? "truncated" : "invalid literal/length code", -EBADMSG;
    len = E_VAL(e) + take(b, E_EXTRA(e));
    e = lookup(T->dist, DBITS, b->buf);
    if (E_KIND(e) != K_LEN)
      return *why = truncated(b) ? "truncated" : "invalid distance code", -EBADMSG;
    drop(b, E_LEN(e));
    dist = E_VAL(e) + take(b, E_EXTRA(e));
    if (truncated(b))
      return *why = "truncated", -EBADMSG;
    if (dist > o->len)
      return *why = "distance too far back", -EBADMSG;
    if (o->len + len > o->cap - SLACK && (rc = grow(o, len)) < 0)
      return *why = "output too large", rc;
    {
      unsigned char *dst = o->p + o->len;
      const unsigned char *src = dst - dist;
      o->len += len;
      if (dist >= 8) {
        /* 8 bytes at a time; may write up to 7 past the match (SLACK) */
        for (d = 0; d < len; d += 8) {
          uint64_t w;
          memcpy(&w, src + d, 8);
          memcpy(dst + d, &w, 8);
        }
      } else if (dist == 1) {
        memset(dst, *src, len);
      } else {
        for (d = 0; d < len; d++)
          dst[d] = src[d];
      }
    }
  }
}

static int inflate_stream(struct bits *b, struct out *o, const char **why)
{
  struct tables *T = nub_malloc(sizeof(*T));
  int rc = 0, final;

  do {
    unsigned type;
    refill(b);
    final = (int)take(b, 1);
    type = take(b, 2);
    if (type == 0) {
      size_t n;
      realign(b);
      if (b->end - b->p < 4) {
        rc = -EBADMSG, *why = "truncated";
        break;
      }
      n = (size_t)b->p[0] | (size_t)b->p[1] << 8;
      if ((n ^ ((size_t)b->p[2] | (size_t)b->p[3] << 8)) != 0xffff) {
        rc = -EBADMSG, *why = "stored block length check failed";
        break;
      }
      b->p += 4;
      if ((size_t)(b->end - b->p) < n) {
        rc = -EBADMSG, *why = "truncated";
        break;
      }
      if (o->len + n > o->cap - SLACK && (rc = grow(o, n)) < 0) {
        *why = "output too large";
        break;
      }
      memcpy(o->p + o->len, b->p, n);
      o->len += n;
      b->p += n;
    } else if (type == 1) {
      read_fixed(T);
      rc = inflate_codes(b, T, o, why);
    } else if (type == 2) {
      rc = read_dynamic(b, T, why);
      if (rc == 0)
        rc = inflate_codes(b, T, o, why);
    } else {
      rc = -EBADMSG, *why = "invalid block type";
    }
    if (rc == 0 && truncated(b))
      rc = -EBADMSG, *why = "truncated";
  } while (rc == 0 && !final);
  nub_free(T);
  if (rc == 0)
    realign(b);
  return rc;
}

int nub_inflate_raw(const void *in, size_t len, size_t max_out,
                    struct nub_inflate_out *io, size_t *used, const char **why)
{
  struct bits b = {in, (const uint8_t *)in + len, 0, 0, 0};
  struct out o;
  int rc;

  out_init(&o, io, max_out);
  rc = grow(&o, 0);
  *why = "";
  if (rc == 0)
    rc = inflate_stream(&b, &o, why);
  io->p = o.p;
  io->cap = o.alloc;
  io->len = rc == 0 ? o.len : 0;
  if (rc == -EFBIG)
    *why = "output too large";
  if (rc == 0)
    *used = (size_t)(b.p - (const uint8_t *)in);
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

/* A member's ISIZE, a hint for the output size (it may lie: never trusted
 * beyond that). */
static size_t size_hint(const uint8_t *p, size_t len, size_t max)
{
  size_t n;
  if (len < 18)
    return 0;
  p += len - 4;
  n = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
  return n < max ? n : max;
}

int nub_gunzip(const void *in, size_t len, size_t max_out, bool check_crc,
               struct nub_inflate_out *io, const char **why)
{
  const uint8_t *p = in, *end = p + len;
  struct out o;
  int rc;
  bool first = true;

  out_init(&o, io, max_out);
  rc = grow(&o, size_hint(p, len, max_out));
  *why = "";
  while (rc == 0) {
    long h;
    size_t start = o.len;
    struct bits b;
    if (!first && (end - p < 2 || p[0] != 0x1f || p[1] != 0x8b))
      break; /* trailing bytes after the last member are ignored, as gzip does */
    h = gz_header(p, (size_t)(end - p));
    if (h < 0) {
      rc = -EBADMSG, *why = first ? "not gzip data" : "bad gzip header";
      break;
    }
    b = (struct bits){p + h, end, 0, 0, 0};
    rc = inflate_stream(&b, &o, why);
    if (rc < 0)
      break;
    if (end - b.p < 8) {
      rc = -EBADMSG, *why = "truncated (no gzip trailer)";
      break;
    }
    {
      uint32_t crc = (uint32_t)b.p[0] | (uint32_t)b.p[1] << 8 |
                     (uint32_t)b.p[2] << 16 | (uint32_t)b.p[3] << 24;
      uint32_t isize = (uint32_t)b.p[4] | (uint32_t)b.p[5] << 8 |
                       (uint32_t)b.p[6] << 16 | (uint32_t)b.p[7] << 24;
      if (isize != (uint32_t)(o.len - start)) {
        rc = -EBADMSG, *why = "length check failed";
        break;
      }
      if (check_crc && nub_crc32(0, o.p + start, o.len - start) != crc) {
        rc = -EBADMSG, *why = "CRC check failed";
        break;
      }
    }
    p = b.p + 8;
    first = false;
  }
  io->p = o.p;
  io->cap = o.alloc;
  io->len = rc == 0 ? o.len : 0;
  if (rc == -EFBIG)
    *why = "output too large";
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
