/* query.h - what a project's lockfile says is installed, for the commands
 * that look rather than install (`nub ls`, `nub why`): the lockfile as a
 * graph (an npm or bun tree converted the way Node finds each dependency),
 * every workspace member an importer, and where each package is on disk. */
#ifndef NUB_QUERY_H
#define NUB_QUERY_H

#include <stdbool.h>

#include "config.h"
#include "err.h"
#include "graph.h"
#include "manifest.h"
#include "pkgtab.h"
#include "project.h"
#include "session.h"
#include "tree.h"
#include "workspace.h"

struct nub_query {
  struct nub_session s;   /* the project (the workspace root), its members */
  struct nub_pkgtab pkgs;
  struct nub_tree tree;
  struct nub_graph graph; /* sorted */
  bool have_tree, have_graph;
};

/* Open the project nub runs in (dir: NULL for the working directory) and
 * read its lockfile. -NUB_ENOLOCKFILE when it has none. */
int nub_query_open(struct nub_query *q, const char *dir, struct nub_err *err);
void nub_query_close(struct nub_query *q);

/* Where Node finds `alias` required from directory `from` (absolute): the
 * real path of the first <dir>/node_modules/<alias> up from it, or NULL.
 * Caller frees. */
char *nub_query_resolve(const char *from, const char *alias);

#endif
