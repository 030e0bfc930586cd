/* hoist_bun.h - bun's hoisting: the node_modules tree `bun install` lays
 * out for a resolved graph, the tree bun.lock's "packages" keys name.
 *
 * Breadth first from the project: each package's dependencies in bun's
 * order (workspace members, then dev, optional, prod and peer
 * dependencies, each by name), and each goes
 *   - nowhere new, when the first package of its name on the way up is the
 *     same package (or, for a peer, one that satisfies its range, or a
 *     direct dependency of the project);
 *   - into its dependent's own node_modules, when that first one is another
 *     package;
 *   - to the top, when no package of its name is on the way up.
 * Never to a level in between, never replacing what is placed (bun's
 * Tree.hoistDependency). Every dependency is placed, dev, optional and
 * other platforms' packages included: bun.lock records them all. */
#ifndef NUB_HOIST_BUN_H
#define NUB_HOIST_BUN_H

#include <stddef.h>

#include "err.h"
#include "graph.h"
#include "workspace.h"

/* One placed package. */
struct nub_bun_place {
  char *key;                       /* bun.lock's key: "a", "a/b", "app/b" */
  const char *alias;               /* the folder name (the key's last part) */
  const struct nub_gpkg *pkg;      /* a package of the graph, or NULL: */
  const struct nub_ws_pkg *member; /* a workspace member, at the top, or */
  char *link;                      /* a link: of the project's (its target,
                                    * relative to the project) */
};

/* The places for graph g (importers[0] the project, the others ws's
 * members), in bun.lock's order: by depth of the enclosing folder, its
 * path, then the name. -NUB_ESPEC naming a dependency whose kind of source
 * this does not place (a link: of a member's). root is the project's
 * package.json: its peers (and ws's members' own) are placed as peers. */
int nub_hoist_bun(const struct nub_graph *g, const struct nub_manifest *root,
                  const struct nub_workspace *ws, struct nub_bun_place **out, size_t *n,
                  struct nub_err *err);
void nub_bun_places_free(struct nub_bun_place *v, size_t n);

#endif
