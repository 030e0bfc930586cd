/* hoist_yarn.h - yarn 1's hoisting: the node_modules tree `yarn install`
 * builds from a yarn.lock graph, by yarn's own rules (its PackageHoister):
 *
 *  - prepass: of a package with several versions, the version the most
 *    distinct packages depend on is placed at the top first (unless a
 *    direct dependency has the name, or no version is used twice);
 *  - then the direct dependencies at the top, and level by level (each level
 *    sorted by "name@range", packages without peer dependencies first) each
 *    package as high as no other version of its name, and no name reserved
 *    ("tainted") on the way by a package hoisted through it, is in the way.
 *
 * Packages are the graph's; `has_peers` says whether a package declares
 * peerDependencies (yarn.lock does not record them: the caller reads them
 * from the package), NULL for none. A workspace (ws, NULL for none) is
 * hoisted as yarn 1 hoists one: the members linked at the top, each a
 * package with its own dependencies (devDependencies included) beside a
 * virtual aggregator of the root's and the members'; what cannot go to
 * the top stays in the member's folder (its node_modules). */
#ifndef NUB_HOIST_YARN_H
#define NUB_HOIST_YARN_H

#include <stdbool.h>

#include "config.h"
#include "err.h"
#include "graph.h"
#include "tree.h"

struct nub_workspace;

int nub_tree_from_graph_yarn(struct nub_tree *t, const struct nub_graph *g,
                             const struct nub_workspace *ws, const struct nub_config *cfg,
                             bool (*has_peers)(void *ud, const struct nub_gpkg *p), void *ud,
                             struct nub_err *err);

#endif
