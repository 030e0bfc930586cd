/* quickhash.c - see quickhash.h. Two 64-bit lanes, each step a 64x64->128
 * multiply folded to 64 bits: every input bit reaches every output bit
 * after the final mixing. Output is the same on every platform (words are
 * read little-endian). */
#include "quickhash.h"

#include <stdint.h>
#include <string.h>

#define K0 0xa0761d6478bd642full
#define K1 0xe7037ed1a0b428dbull
#define K2 0x8ebc6af09c88c6e3ull
#define K3 0x589965cc75374cc3ull

static inline uint64_t rd64(const unsigned char *p)
{
  uint64_t v;
  memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

static inline uint64_t fold(uint64_t a, uint64_t b)
{
  __uint128_t r = (__uint128_t)a * b;
  return (uint64_t)r ^ (uint64_t)(r >> 64);
}

void nub_quickhash(const void *p, size_t n, unsigned char out[16])
{
  const unsigned char *s = p;
  uint64_t h1 = K0 ^ (uint64_t)n, h2 = K1 + (uint64_t)n;
  unsigned char tail[16] = {0};
  size_t i = 0;

  for (; i + 16 <= n; i += 16) {
    uint64_t a = rd64(s + i), b = rd64(s + i + 8);
    h1 = fold(h1 ^ a, K2) + b;
    h2 = fold(h2 ^ b, K3) + a;
  }
  memcpy(tail, s + i, n - i);
  h1 = fold(h1 ^ rd64(tail), K2) + rd64(tail + 8);
  h2 = fold(h2 ^ rd64(tail + 8), K3) + rd64(tail);
  h1 = fold(h1 ^ h2, K0);
  h2 = fold(h2 ^ h1, K1);
  h1 = fold(h1 ^ (h2 >> 29), K2);
  for (int k = 0; k < 8; k++) {
    out[k] = (unsigned char)(h1 >> (8 * k));
    out[8 + k] = (unsigned char)(h2 >> (8 * k));
  }
}
