/* link_isolated.h - the isolated (pnpm-style) layout:
 *
 *   node_modules/<dep>              -> .nub/<dir>/node_modules/<dep>
 *   node_modules/.nub/<dir>/node_modules/<name>/...   the package's files
 *   node_modules/.nub/<dir>/node_modules/<child>      -> ../../<childdir>/node_modules/<child>
 *   node_modules/.nub/node_modules/<name>             hidden hoist (phantom-dependency fallback)
 *
 * <dir> is the dependency path made a file name (pnpm's depPathToFilename:
 * "/" -> "+", peer suffixes "(a@1)(b@2)" -> "_a@1_b@2", long or uppercase
 * names cut with a hash tail).
 *
 * With the global virtual store a package lives in an entry of the store,
 * <store>/v1/links/<dir>-<hash> (or its unpacked tree, packages/<key>), that
 * holds the files and the dependency links; <hash> covers the package and
 * its whole dependency closure, so an entry never changes once built. The
 * project links to the entries of its direct dependencies by absolute path
 * and keeps nothing else, so a warm install costs a symlink per direct
 * dependency:
 *
 *   node_modules/<dep>              -> <store>/v1/links/<dir>-<hash>/node_modules/<dep>
 *
 * Packages that run build scripts (and their dependents) stay in the
 * project, in .nub as above; their links to the others point into the
 * store the same way. */
#ifndef NUB_LINK_ISOLATED_H
#define NUB_LINK_ISOLATED_H

#include <stdbool.h>

#include "err.h"
#include "graph.h"
#include "link.h"
#include "pool.h"
#include "progress.h"
#include "store.h"

struct nub_isolated_opts {
  bool gvs;
  bool omit_dev, omit_optional;
  char *const *trusted; /* names allowed to run build scripts */
  size_t ntrusted;
  const char *proj_dir; /* absolute: file: directories are linked from it */
  bool list_entries;    /* fill the result's entries (for a record) */
};

struct nub_isolated_result {
  size_t packages, built, reused, files;
  size_t adopted; /* trees in the store made entries where they are */
  struct nub_link_stats st;
  /* with list_entries and the global virtual store, when every package
   * lives there: each package's entry, "<absolute path>\t<what its ready
   * marker names, or nothing for an entry in links/>" (owned; NULL
   * otherwise) */
  char **entries;
  size_t nentries;
};

/* pnpm's depPathToFilename with the default 120-byte cap. out: 256 bytes. */
void nub_dep_path_filename(const char *dep_path, char *out, size_t cap);

/* Materialise graph g (packages with skip == false; fetch->index loaded). */
int nub_isolated_link(int proj_fd, struct nub_graph *g, struct nub_store *store,
                      struct nub_linker *l, struct nub_pool *pool,
                      struct nub_progress *prog, const struct nub_isolated_opts *o,
                      struct nub_isolated_result *res, struct nub_err *err);

#endif
