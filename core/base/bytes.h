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
/* The 4 bytes at p as a little-endian word. */
static inline uint32_t nub_le32(const void *p)
{
  const unsigned char *b = p;
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

#endif
  return w;
}

/* The 4 bytes at p as a little-endian word. */
static inline uint32_t nub_le32(const void *p)
{
  const unsigned char *b = p;
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

#endif
