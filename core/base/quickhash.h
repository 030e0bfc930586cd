/* quickhash.h - a fast 128-bit hash for noticing change.
 *
 * Not cryptographic: for fingerprints nub compares with its own earlier
 * ones (the state file, lock names), where the input is the user's own and
 * a collision only means an install that is not repeated. Content that
 * comes from the network is hashed with SHA-2 (integrity.h). Kept apart
 * from OpenSSL so that a no-op install never loads it. */
#ifndef NUB_QUICKHASH_H
#define NUB_QUICKHASH_H

#include <stddef.h>

void nub_quickhash(const void *p, size_t n, unsigned char out[16]);

#endif
