/* hoist_npm.h - npm's placement rule, for a graph (nub.lock,
 * pnpm-lock.yaml, the resolver's) laid out hoisted: breadth-first from the
 * project's dependencies, each package at the shallowest node_modules on
 * its parent's chain that has no other version of the same name in the way
 * (a conflict nests it under its parent). */
#ifndef NUB_HOIST_NPM_H
#define NUB_HOIST_NPM_H

#include "config.h"
#include "err.h"
#include "graph.h"
#include "tree.h"

struct nub_workspace;

/* Build t (initialised by the caller) from g. Skipped packages are left out.
 * Tarball URLs come from the configured registry unless g records one.
 * Members of ws (NULL: none) are linked at the top under their names, as
 * npm links them, and their dependencies placed from their folders. */
int nub_tree_from_graph(struct nub_tree *t, const struct nub_graph *g,
                        const struct nub_workspace *ws, const struct nub_config *cfg,
                        struct nub_err *err);

#endif
