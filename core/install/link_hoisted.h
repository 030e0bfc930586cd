/* link_hoisted.h - the hoisted (npm) layout: every node at its lockfile path as a
 * real directory, files from the store through the linker, spread over the
 * worker pool one depth level at a time (a nested node needs its parent's
 * directory). An existing node_modules keeps the package directories that
 * still match the previous state and loses what the plan no longer has. */
#ifndef NUB_LINK_HOISTED_H
#define NUB_LINK_HOISTED_H

#include "err.h"
#include "link.h"
#include "pool.h"
#include "progress.h"
#include "state.h"
#include "tree.h"

struct nub_hoisted_result {
  size_t packages; /* package directories created */
  size_t kept;     /* left in place from the previous install */
  size_t removed;
  struct nub_link_stats st;
};

/* old: the previous state (nodes loaded) or NULL when there is none.
 * early: the packages linked while the fetch ran (below), or NULL. */
struct nub_hoisted_early;
int nub_hoisted_link(int proj_fd, struct nub_tree *t, const struct nub_state *old,
                     struct nub_linker *l, struct nub_pool *pool,
                     struct nub_progress *prog, struct nub_hoisted_early *early,
                     struct nub_hoisted_result *res, struct nub_err *err);

/* Linking while the fetch runs: a cold install from a lockfile knows every
 * node's path before the first download, so each package at the top of
 * node_modules is linked on the worker that stored it, as soon as it is
 * stored, instead of after the last download (the link phase waited on
 * the slowest tarball with the workers idle). Nested nodes, links and
 * packages already in the store are left to nub_hoisted_link, which
 * skips what was done here. Only where node_modules does not exist yet
 * (proj_fd has none): nothing is in the way, and nothing of the user's is
 * lost when the install fails and the caller removes node_modules again.
 * l is initialised and probed here; optional nodes are never linked early
 * (the fetch may leave them out). */
struct nub_hoisted_early *nub_hoisted_early_begin(int proj_fd, struct nub_tree *t,
                                                  struct nub_linker *l, int nworkers,
                                                  struct nub_progress *prog);
/* The fetch's hook (nub_fetch_opts.on_stored): ud is the early state. */
void nub_hoisted_early_stored(void *ud, struct nub_pkg *p, int worker);
size_t nub_hoisted_early_count(const struct nub_hoisted_early *e);
void nub_hoisted_early_free(struct nub_hoisted_early *e);

#endif
