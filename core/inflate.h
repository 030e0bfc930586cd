/* inflate.h - whole-buffer gzip decoding (RFC 1951 deflate in RFC 1952
 * members).
 *
 * Why nub has its own: a tarball is held whole before it is unpacked, and a
 * decoder that sees all of its input at once, and checks output room once
 * per symbol, skips the bookkeeping a fully streaming one needs; inflating
 * is the largest user-space cost of a cold install.
 *
 * Safety contract (the input is hostile until proven otherwise): the decoder
 * never reads outside [in, in + len) nor writes outside its output buffer;
 * invalid codes, distances reaching before the start, truncated input and
 * output beyond `max_out` are errors, never undefined behaviour. */
#ifndef NUB_INFLATE_H
#define NUB_INFLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when buf starts like a gzip member. */
bool nub_is_gzip(const void *buf, size_t len);

/* A decoder over a whole input held in memory, handing out its output a
 * window at a time (256 KiB, after 32 KiB of history), so that what is
 * unpacked is used while it is still in the CPU's cache and the memory it
 * takes stays small. Allocate once, begin per input. */
struct nub_inflate_stream;
struct nub_inflate_stream *nub_inflate_stream_new(void);
void nub_inflate_stream_free(struct nub_inflate_stream *s);
/* in[0..len) is gzip members (gzip) or one raw deflate stream. check_crc
 * verifies each member's CRC-32 (skip it when the caller verifies a
 * cryptographic digest of the compressed bytes). */
void nub_inflate_stream_begin(struct nub_inflate_stream *s, const void *in, size_t len,
                              bool gzip, bool check_crc, uint64_t max_out);
/* The next piece of output in *out (valid until the next call), *n bytes,
 * 0 at the end. Returns 0, -EFBIG past max_out, or -EBADMSG with a static
 * reason in *why. */
int nub_inflate_stream_next(struct nub_inflate_stream *s, const unsigned char **out,
                            size_t *n, const char **why);
/* Raw streams: input bytes the stream took. */
size_t nub_inflate_stream_used(const struct nub_inflate_stream *s);

/* Whole output at once, into a caller-owned growable buffer (nub_free(p)). */
struct nub_inflate_out {
  unsigned char *p;
  size_t len, cap;
};
int nub_gunzip(const void *in, size_t len, size_t max_out, bool check_crc,
               struct nub_inflate_out *o, const char **why);
int nub_inflate_raw(const void *in, size_t len, size_t max_out,
                    struct nub_inflate_out *o, size_t *used, const char **why);

uint32_t nub_crc32(uint32_t crc, const void *buf, size_t len);

#endif
