/* pool.h - a fixed set of worker threads (no unbounded thread creation).
 *
 * Two ways to use it:
 *  - nub_pool_submit: queue one job (FIFO), e.g. a tarball to extract;
 *    nub_pool_submit_prio puts it before every job of lower priority;
 *    nub_pool_drain waits until the queue is empty and every job finished;
 *  - nub_pool_for: run fn(ctx, i, worker) for i in [0, n) on every worker
 *    and the calling thread, items handed out in order through an atomic
 *    counter, and return when all are done. */
#ifndef NUB_POOL_H
#define NUB_POOL_H

#include <stddef.h>
#include <stdint.h>

struct nub_pool;

typedef void (*nub_job_fn)(void *arg, int worker);
typedef void (*nub_for_fn)(void *ctx, size_t i, int worker);

/* nthreads workers (>= 1). Worker ids are 1..nthreads; the caller of
 * nub_pool_for runs as worker 0. */
struct nub_pool *nub_pool_new(int nthreads, const char *name);
void nub_pool_free(struct nub_pool *p);
int nub_pool_size(const struct nub_pool *p); /* workers + 1 */

void nub_pool_submit(struct nub_pool *p, nub_job_fn fn, void *arg); /* priority 0 */
void nub_pool_submit_prio(struct nub_pool *p, nub_job_fn fn, void *arg, uint64_t prio);
void nub_pool_drain(struct nub_pool *p);

void nub_pool_for(struct nub_pool *p, size_t n, nub_for_fn fn, void *ctx);

/* Workers running a job right now, and jobs waiting (a racy snapshot, for
 * diag samples). */
void nub_pool_load(struct nub_pool *p, size_t *busy, size_t *queued);

#endif
