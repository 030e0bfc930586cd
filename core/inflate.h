/* inflate.h - whole-buffer gzip decoding (RFC 1951 deflate in RFC 1952
 * members).
 *
 * Why nub has its own: a tarball is held whole before it is unpacked, and a
 * decoder that sees all of its input and a growable output at once can skip
 * the bookkeeping a streaming one needs at every symbol; inflating is the
 * largest user-space cost of a cold install.
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

/* A decoder's output: owned by the caller, who may keep it between calls so
 * that its pages stay mapped (nub_free(p) when done). len is reset by each
 * call; cap bytes are allocated, past len there is slack. */
struct nub_inflate_out {
  unsigned char *p;
  size_t len, cap;
};

/* Decode every gzip member of in[0..len) into o. check_crc verifies each
 * member's CRC-32 (it can be skipped when the caller verifies a
 * cryptographic digest of the compressed bytes). Returns 0, -EFBIG past
 * max_out, or -EBADMSG with a static reason in *why. */
int nub_gunzip(const void *in, size_t len, size_t max_out, bool check_crc,
               struct nub_inflate_out *o, const char **why);

/* A raw deflate stream (no gzip framing): *used is how many input bytes it
 * took. */
int nub_inflate_raw(const void *in, size_t len, size_t max_out,
                    struct nub_inflate_out *o, size_t *used, const char **why);

uint32_t nub_crc32(uint32_t crc, const void *buf, size_t len);

#endif
