/* fetch.h - make every package of the plan present in the store.
 *
 * Packages whose index is in the store are loaded (in parallel). The rest are
 * downloaded on the HTTP loop; their bytes stream through the integrity hash
 * into one buffer per tarball, which a pool worker unpacks (extract.h) into
 * the store once it is whole and verified. The index is published only after the integrity matched,
 * so a mismatch publishes nothing. A failed download+verify+extract is
 * retried as one unit (fetch-retries, jittered backoff, Retry-After). */
#ifndef NUB_FETCH_H
#define NUB_FETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "err.h"
#include "pool.h"
#include "progress.h"
#include "store.h"
#include "pkgtab.h"

struct nub_fetch_opts {
  bool offline;
};

struct nub_fetch_result {
  size_t cached, fetched;
  uint64_t bytes;
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
int nub_fetch_end(struct nub_fetch *f, struct nub_fetch_result *res, struct nub_err *err);

/* Load or fetch the index of every package with needed == true. */
int nub_fetch_needed(struct nub_pkgtab *t, struct nub_store *store,
                     const struct nub_config *cfg, struct nub_pool *pool,
                     struct nub_progress *prog, const struct nub_fetch_opts *o,
                     struct nub_fetch_result *res, struct nub_err *err);

#endif
