/* integrity.h - Subresource Integrity strings and the hashes nub computes:
 * SHA-512/SHA-1 of tarballs (lockfile integrity) and SHA-256 of file
 * contents (store addresses). OpenSSL stays inside integrity.c. */
#ifndef NUB_INTEGRITY_H
#define NUB_INTEGRITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Load libcrypto (once): -NUB_EPLATFORM with the reason when it cannot be.
 * Every other function here needs it to have succeeded. */
int nub_crypto_init(struct nub_err *err);

enum nub_hash_algo { NUB_HASH_SHA1, NUB_HASH_SHA256, NUB_HASH_SHA384, NUB_HASH_SHA512 };

#define NUB_SRI_MAX_ALT 4

struct nub_sri {
  enum nub_hash_algo algo;
  unsigned char digest[64];
  size_t len;
  /* further digests of the same algorithm in the string (any may match) */
  unsigned char alt[NUB_SRI_MAX_ALT][64];
  int nalt;
};

/* Parse an SRI string ("sha512-<base64>", possibly several space-separated
 * hashes: the strongest algorithm is kept, with every digest given for it,
 * as ssri does). -EINVAL if none is usable. */
int nub_sri_parse(struct nub_sri *out, const char *s);
/* From a hex sha1 `shasum` as packuments carry it. */
int nub_sri_from_hex_sha1(struct nub_sri *out, const char *hex);
/* "sha512-<base64>" into buf (at least 100 bytes). */
void nub_sri_format(const struct nub_sri *s, char *buf, size_t cap);
/* Does the computed digest `got` match any digest of `want`? */
bool nub_sri_equal(const struct nub_sri *want, const struct nub_sri *got);
const char *nub_hash_algo_name(enum nub_hash_algo a);

/* Incremental hash. */
struct nub_hasher {
  void *ctx; /* EVP_MD_CTX */
  enum nub_hash_algo algo;
};
void nub_hasher_init(struct nub_hasher *h, enum nub_hash_algo algo);
void nub_hasher_update(struct nub_hasher *h, const void *p, size_t n);
/* Writes the digest into out (64 bytes room) and its length; the hasher can
 * be reused after nub_hasher_reset. */
void nub_hasher_final(struct nub_hasher *h, unsigned char *out, size_t *len);
void nub_hasher_reset(struct nub_hasher *h);
void nub_hasher_release(struct nub_hasher *h);

void nub_sha256(const void *p, size_t n, unsigned char out[32]);
/* Lowercase hex of n bytes into out (2n+1 bytes). */
void nub_hex(const unsigned char *p, size_t n, char *out);

#endif
