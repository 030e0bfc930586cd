/* fetch.h - make every package of the plan present in the store.
 *
 * Packages whose index is in the store are loaded (in parallel). The rest
 * are downloaded on the HTTP loop, or read from disk for a "file:" tarball;
 * a pool worker hashes the whole body (SRI), checks it against the
 * package's integrity and only then unpacks it (extract.h) into the store,
 * the index last, so a mismatch stores nothing. A failed
 * download+verify+extract is retried as one unit (fetch-retries, jittered
 * backoff, Retry-After).
 *
 * Failures: a package that may be optional (pkg->optional) does not stop
 * the install; its failure is recorded on it (failed, fail_code, fail_msg)
 * for the plan to judge once it is final (plan.c). Any other failure ends
 * the fetch with its code and a message naming the package. --offline turns
 * a package missing from the store into -NUB_EOFFLINE; an interrupt
 * (nub_plat_interrupted) aborts the transfers with -NUB_EINTR. */
#ifndef NUB_FETCH_H
#define NUB_FETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "buf.h"
#include "err.h"
#include "pool.h"
#include "progress.h"
#include "store.h"
#include "pkgtab.h"

struct nub_fetch_opts {
  bool offline;
  /* check every stored package's files before taking it (nub_store_check;
   * `nub ci`, --force); otherwise the linker checks each file it links */
  bool verify_all;
  /* Called on the pool's worker `worker` that downloaded and stored p,
   * once p->index is set (not for packages the store had, nor git or
   * directory packages): what may be done with it before the fetch ends. */
  void (*on_stored)(void *ud, struct nub_pkg *p, int worker);
  void *on_stored_ud;
  /* the project's dependency specs that carry a credential, as written
   * (manifest.h nub_manifest_secret; borrowed until nub_fetch_end): a git
   * clone or a download whose URL is one of theirs without it (as every
   * lockfile records it) uses theirs */
  char *const *secrets;
  size_t nsecrets;
};

struct nub_fetch_result {
  size_t cached, fetched;
  uint64_t bytes;
  /* the most one extractor's buffers held (extract.h's held), over every
   * tarball: what a worker's memory grows to */
  uint64_t unpack_held_peak;
};

/* A fetch session: packages are added as they become known (the resolver
 * adds each as soon as it picks a version); nub_fetch_end waits for every
 * download and frees the session. http may be shared (NULL: own client). */
struct nub_fetch;
struct nub_http;
int nub_fetch_begin(struct nub_fetch **out, struct nub_store *store,
                    const struct nub_config *cfg, struct nub_pool *pool,
                    struct nub_progress *prog, const struct nub_fetch_opts *o,
                    struct nub_http *http, struct nub_err *err);
/* Thread-safe. Loads the index from the store or starts the download. */
void nub_fetch_add(struct nub_fetch *f, struct nub_pkg *p);
/* Load the store's index of each package that has one, in parallel; the
 * others are left for nub_fetch_add. Returns how many were found. */
size_t nub_fetch_probe(struct nub_fetch *f, struct nub_pkg **pkgs, size_t n);
/* nub_fetch_add for many, the store's indexes read in parallel first. */
void nub_fetch_add_all(struct nub_fetch *f, struct nub_pkg **pkgs, size_t n);
int nub_fetch_end(struct nub_fetch *f, struct nub_fetch_result *res, struct nub_err *err);
/* The integrity of p (pkg->registry_integrity: known only once the
 * registry's document came), or NULL to install it unchecked (said once at
 * the end): its download, which may have been waiting for it whole, is
 * checked and unpacked. Thread-safe. */
void nub_fetch_set_integrity(struct nub_fetch *f, struct nub_pkg *p, const char *integrity);
/* End the fetch with why: transfers are aborted, nothing more is stored;
 * nub_fetch_end reports it. */
void nub_fetch_cancel(struct nub_fetch *f, const struct nub_err *why);
/* Download through http (another module's client) unless the fetch has
 * started its own already. */
void nub_fetch_use_http(struct nub_fetch *f, struct nub_http *http);
/* A checkout of the git package resolved as "git+<url>#<commit>" that is
 * already on disk (the resolver's): packed from there instead of cloned
 * again. The session owns dir and removes it, used or not. Thread-safe. */
void nub_fetch_offer_checkout(struct nub_fetch *f, const char *resolved, char *dir);
/* The bytes of the tarball at url, downloaded already (the resolver's):
 * taken from *body (left empty), used instead of a download. */
void nub_fetch_offer_tarball(struct nub_fetch *f, const char *url, struct nub_buf *body);

/* Load or fetch the index of every package with needed == true. */
int nub_fetch_needed(struct nub_pkgtab *t, struct nub_store *store,
                     const struct nub_config *cfg, struct nub_pool *pool,
                     struct nub_progress *prog, const struct nub_fetch_opts *o,
                     struct nub_fetch_result *res, struct nub_err *err);

#endif
