/* integrity.c - SRI parsing and hashing over OpenSSL's EVP interface.
 *
 * libcrypto is loaded on first use (like libcurl): an
 * install with nothing to do, and `nub --version`, never pay for loading
 * and relocating it. The calls below go through this table; the names
 * shadow OpenSSL's own. */
#include "integrity.h"

#include <errno.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "nub_plat.h"

#ifndef NUB_LIBCRYPTO
#define NUB_LIBCRYPTO "libcrypto.so.3"
#endif

#define CRYPTO_FUNCS(X)                                                         \
  X(EVP_MD_fetch) X(EVP_MD_CTX_new) X(EVP_MD_CTX_free) X(EVP_DigestInit_ex)     \
  X(EVP_DigestUpdate) X(EVP_DigestFinal_ex) X(EVP_Digest)

static struct {
  void *lib;
#define X(f) __typeof__(f) *f;
  CRYPTO_FUNCS(X)
#undef X
  EVP_MD *mds[4]; /* fetched once: OpenSSL 3 otherwise looks an algorithm up
                   * in its provider table, under a lock, for every digest */
} cr;
static pthread_once_t cr_once = PTHREAD_ONCE_INIT;
static char cr_why[512]; /* why loading failed; "" when it did not */

static void cr_load(void)
{
  static const char *const names[4] = {"SHA1", "SHA256", "SHA384", "SHA512"};

  if (nub_plat_load_library(NUB_LIBCRYPTO, &cr.lib, cr_why, sizeof(cr_why)) < 0)
    return;
#define X(f)                                                                   \
  cr.f = (__typeof__(cr.f))nub_plat_symbol(cr.lib, #f);                        \
  if (!cr.f) {                                                                 \
    snprintf(cr_why, sizeof(cr_why), "it lacks " #f);                          \
    return;                                                                    \
  }
  CRYPTO_FUNCS(X)
#undef X
  for (int i = 0; i < 4; i++) {
    cr.mds[i] = cr.EVP_MD_fetch(NULL, names[i], NULL);
    if (!cr.mds[i]) {
      snprintf(cr_why, sizeof(cr_why), "it has no %s", names[i]);
      return;
    }
  }
}

int nub_crypto_init(struct nub_err *err)
{
  pthread_once(&cr_once, cr_load);
  if (cr_why[0])
    return nub_err_set(err, -NUB_EPLATFORM, "cannot use libcrypto (%s): %s; install OpenSSL 3",
                       NUB_LIBCRYPTO, cr_why);
  return 0;
}

/* Callers that hash have had nub_crypto_init succeed (the driver calls it
 * before any work); hashing without it is a programming error. */
static const EVP_MD *md_of(enum nub_hash_algo a)
{
  pthread_once(&cr_once, cr_load);
  if (cr_why[0])
    abort();
  return cr.mds[(unsigned)a < 4 ? a : NUB_HASH_SHA512];
}

/* From here on the library calls go through the table. */
#define EVP_MD_CTX_new cr.EVP_MD_CTX_new
#define EVP_MD_CTX_free cr.EVP_MD_CTX_free
#define EVP_DigestInit_ex cr.EVP_DigestInit_ex
#define EVP_DigestUpdate cr.EVP_DigestUpdate
#define EVP_DigestFinal_ex cr.EVP_DigestFinal_ex
#define EVP_Digest cr.EVP_Digest

static size_t len_of(enum nub_hash_algo a)
{
  switch (a) {
  case NUB_HASH_SHA1: return 20;
  case NUB_HASH_SHA256: return 32;
  case NUB_HASH_SHA384: return 48;
  case NUB_HASH_SHA512: return 64;
  }
  return 64;
}

const char *nub_hash_algo_name(enum nub_hash_algo a)
{
  switch (a) {
  case NUB_HASH_SHA1: return "sha1";
  case NUB_HASH_SHA256: return "sha256";
  case NUB_HASH_SHA384: return "sha384";
  case NUB_HASH_SHA512: return "sha512";
  }
  return "?";
}

static int b64val(char c)
{
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

/* Decode base64 [s, e) into out; returns bytes or -1. */
static long b64dec(const char *s, const char *e, unsigned char *out, size_t cap)
{
  unsigned acc = 0;
  int bits = 0;
  size_t n = 0;

  for (; s < e && *s != '='; s++) {
    int v = b64val(*s);
    if (v < 0)
      return -1;
    acc = (acc << 6) | (unsigned)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (n >= cap)
        return -1;
      out[n++] = (unsigned char)((acc >> bits) & 0xff);
    }
  }
  return (long)n;
}

int nub_sri_parse(struct nub_sri *out, const char *s)
{
  out->nalt = 0;
  static const struct { const char *p; enum nub_hash_algo a; } algos[] = {
    {"sha512-", NUB_HASH_SHA512}, {"sha384-", NUB_HASH_SHA384},
    {"sha256-", NUB_HASH_SHA256}, {"sha1-", NUB_HASH_SHA1},
  };
  bool found = false;

  if (!s)
    return -EINVAL;
  while (*s) {
    const char *e;
    while (*s == ' ' || *s == '\t' || *s == '\n')
      s++;
    e = s;
    while (*e && *e != ' ' && *e != '\t' && *e != '\n')
      e++;
    for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++) {
      size_t pl = strlen(algos[i].p);
      const char *q;
      unsigned char d[64];
      long n;
      if ((size_t)(e - s) <= pl || strncmp(s, algos[i].p, pl))
        continue;
      q = memchr(s + pl, '?', (size_t)(e - s - (long)pl)); /* SRI options */
      n = b64dec(s + pl, q ? q : e, d, sizeof(d));
      if (n != (long)len_of(algos[i].a))
        break;
      /* Keep the strongest algorithm, and every digest given for it. */
      if (!found || algos[i].a > out->algo) {
        out->algo = algos[i].a;
        out->len = (size_t)n;
        memcpy(out->digest, d, (size_t)n);
        out->nalt = 0;
        found = true;
      } else if (algos[i].a == out->algo && out->nalt < NUB_SRI_MAX_ALT) {
        memcpy(out->alt[out->nalt++], d, (size_t)n);
      }
      break;
    }
    s = e;
  }
  return found ? 0 : -EINVAL;
}

int nub_sri_from_hex_sha1(struct nub_sri *out, const char *hex)
{
  if (!hex || strlen(hex) != 40)
    return -EINVAL;
  for (int i = 0; i < 20; i++) {
    unsigned v;
    if (sscanf(hex + 2 * i, "%2x", &v) != 1)
      return -EINVAL;
    out->digest[i] = (unsigned char)v;
  }
  out->algo = NUB_HASH_SHA1;
  out->len = 20;
  out->nalt = 0;
  return 0;
}

void nub_sri_format(const struct nub_sri *s, char *buf, size_t cap)
{
  static const char tab[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t o = 0;
  int n = snprintf(buf, cap, "%s-", nub_hash_algo_name(s->algo));

  if (n < 0 || (size_t)n >= cap)
    return;
  o = (size_t)n;
  for (size_t i = 0; i < s->len && o + 5 < cap; i += 3) {
    unsigned v = (unsigned)s->digest[i] << 16;
    if (i + 1 < s->len)
      v |= (unsigned)s->digest[i + 1] << 8;
    if (i + 2 < s->len)
      v |= s->digest[i + 2];
    buf[o++] = tab[(v >> 18) & 63];
    buf[o++] = tab[(v >> 12) & 63];
    buf[o++] = i + 1 < s->len ? tab[(v >> 6) & 63] : '=';
    buf[o++] = i + 2 < s->len ? tab[v & 63] : '=';
  }
  buf[o] = '\0';
}

bool nub_sri_equal(const struct nub_sri *want, const struct nub_sri *got)
{
  if (want->algo != got->algo || want->len != got->len)
    return false;
  if (!memcmp(want->digest, got->digest, got->len))
    return true;
  for (int i = 0; i < want->nalt; i++)
    if (!memcmp(want->alt[i], got->digest, got->len))
      return true;
  return false;
}

void nub_hasher_init(struct nub_hasher *h, enum nub_hash_algo algo)
{
  const EVP_MD *md = md_of(algo); /* loads libcrypto */

  h->ctx = EVP_MD_CTX_new();
  h->algo = algo;
  if (!h->ctx || EVP_DigestInit_ex(h->ctx, md, NULL) != 1)
    abort(); /* out of memory in OpenSSL: nothing sensible is left to do */
}

void nub_hasher_update(struct nub_hasher *h, const void *p, size_t n)
{
  if (n)
    EVP_DigestUpdate(h->ctx, p, n);
}

void nub_hasher_final(struct nub_hasher *h, unsigned char *out, size_t *len)
{
  unsigned int l = 0;
  EVP_DigestFinal_ex(h->ctx, out, &l);
  if (len)
    *len = l;
}

void nub_hasher_reset(struct nub_hasher *h)
{
  EVP_DigestInit_ex(h->ctx, md_of(h->algo), NULL);
}

void nub_hasher_release(struct nub_hasher *h)
{
  if (h->ctx)
    EVP_MD_CTX_free(h->ctx);
  h->ctx = NULL;
}

void nub_sha256(const void *p, size_t n, unsigned char out[32])
{
  unsigned int l = 32;
  const EVP_MD *md = md_of(NUB_HASH_SHA256); /* loads libcrypto */
  EVP_Digest(p, n, out, &l, md, NULL);
}

void nub_hex(const unsigned char *p, size_t n, char *out)
{
  static const char hx[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = hx[p[i] >> 4];
    out[2 * i + 1] = hx[p[i] & 15];
  }
  out[2 * n] = '\0';
}
