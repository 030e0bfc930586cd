/* convert.h - between the two layouts' plans, for --node-linker overrides:
 *
 *  - a graph (nub.lock, pnpm-lock.yaml) to a hoisted tree: npm's placement
 *    rule, breadth-first from the project's dependencies, each package at the
 *    shallowest node_modules on its parent's chain that has no other version
 *    of the same name in the way (a conflict nests it under its parent);
 *  - an npm lockfile's tree to a graph: each node's dependencies found the
 *    way Node finds them (its own node_modules, then each parent's). */
#ifndef NUB_CONVERT_H
#define NUB_CONVERT_H

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

/* Build g (initialised by the caller) from an npm lockfile tree whose nodes
 * carry their dependency names (struct nub_node deps); each member of ws
 * (NULL: none) is an importer of its own. */
int nub_graph_from_tree(struct nub_graph *g, const struct nub_tree *t,
                        const struct nub_manifest *man, const struct nub_workspace *ws,
                        struct nub_err *err);

#endif
