/* hoisted.h - the hoisted (npm) layout: every node at its lockfile path as a
 * real directory, files from the store through the linker, spread over the
 * worker pool one depth level at a time (a nested node needs its parent's
 * directory). An existing node_modules keeps the package directories that
 * still match the previous state and loses what the plan no longer has. */
#ifndef NUB_HOISTED_H
#define NUB_HOISTED_H

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

/* old: the previous state (nodes loaded) or NULL when there is none. */
int nub_hoisted_link(int proj_fd, struct nub_tree *t, const struct nub_state *old,
                     struct nub_linker *l, struct nub_pool *pool,
                     struct nub_progress *prog, struct nub_hoisted_result *res,
                     struct nub_err *err);

#endif
