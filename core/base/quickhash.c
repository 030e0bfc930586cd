/* quickhash.c - see quickhash.h. Two 64-bit lanes, each step a 64x64->128
 * multiply folded to 64 bits: every input bit reaches every output bit
 * after the final mixing. Output is the same on every platform (words are
 * read little-endian). */
#include "quickhash.h"

#include <stdint.h>
#include <string.h>

#include "bytes.h"

#define K0 0xa0761d6478bd642full
#define K1 0xe7037ed1a0b428dbull
#define K2 0x8ebc6af09c88c6e3ull
#define K3 0x589965cc75374cc3ull

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
    uint64_t a = nub_load64le(s + i), b = nub_load64le(s + i + 8);
    h1 = fold(h1 ^ a, K2) + b;
    h2 = fold(h2 ^ b, K3) + a;
  }
  memcpy(tail, s + i, n - i);
  h1 = fold(h1 ^ nub_load64le(tail), K2) + nub_load64le(tail + 8);
  h2 = fold(h2 ^ nub_load64le(tail + 8), K3) + nub_load64le(tail);
  h1 = fold(h1 ^ h2, K0);
  h2 = fold(h2 ^ h1, K1);
  h1 = fold(h1 ^ (h2 >> 29), K2);
  for (int k = 0; k < 8; k++) {
    out[k] = (unsigned char)(h1 >> (8 * k));
    out[8 + k] = (unsigned char)(h2 >> (8 * k));
  }
}
