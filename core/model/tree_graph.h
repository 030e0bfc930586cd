/* tree_graph.h - an npm lockfile's tree (or any hoisted tree) read as a
 * graph, for the isolated layout and the commands that look: each node's
 * dependencies found the way Node finds them (its own node_modules, then
 * each parent's). */
#ifndef NUB_TREE_GRAPH_H
#define NUB_TREE_GRAPH_H

#include "err.h"
#include "graph.h"
#include "tree.h"

struct nub_manifest;
struct nub_workspace;

/* Build g (initialised by the caller) from an npm lockfile tree whose nodes
 * carry their dependency names (struct nub_node deps); each member of ws
 * (NULL: none) is an importer of its own. */
int nub_graph_from_tree(struct nub_graph *g, const struct nub_tree *t,
                        const struct nub_manifest *man, const struct nub_workspace *ws,
                        struct nub_err *err);

#endif
