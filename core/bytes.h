/* bytes.h - reading fixed-width little-endian words from byte buffers. */
#ifndef NUB_BYTES_H
#define NUB_BYTES_H

#include <stdint.h>
#include <string.h>

/* The 8 bytes at p as a little-endian word, on any host, unaligned. */
static inline uint64_t nub_load64le(const void *p)
{
  uint64_t w;
  memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  return w;
}

#endif
