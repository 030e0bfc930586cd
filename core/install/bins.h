/* bins.h - node_modules/.bin entries: relative symlinks to each package's
 * bin targets, in the .bin of the node_modules that holds the package (npm's
 * rule: node_modules/a/node_modules/b gets node_modules/a/node_modules/.bin).
 * Targets were made executable when the store imported them. */
#ifndef NUB_BINS_H
#define NUB_BINS_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "graph.h"
#include "tree.h"

/* bun's native bin links: the bins of a package named here link straight
 * to the binary of its platform package, the first of its dependencies
 * whose os and cpu are both stated and both this machine's (bun's
 * postinstall optimizer: esbuild's bin/esbuild as @esbuild/linux-x64's),
 * when that package has the file; else to its own. */
struct nub_bins_native {
  char *const *names;
  size_t nnames;
  const char *os, *cpu; /* npm's names for this machine */
  bool lf_shebang;      /* a target's CRLF #! line made LF (npm: always) */
};

/* The hoisted layout: the bins of every installed node. Direct dependencies of the project
 * win a name clash at the top level; otherwise the first path in sorted
 * order wins. A target whose "#!" line ends in CRLF gets an LF there (npm's
 * bin-links; a copy replaces the store's link). native: bun's rules
 * above, or NULL for npm's. *nlinks receives the count. */
int nub_bins_link(int proj_fd, const struct nub_tree *t, const struct nub_depmap *direct,
                  size_t ndirect, const struct nub_bins_native *native, size_t *nlinks,
                  struct nub_err *err);

/* yarn 1's bins (a tree from hoist_yarn.c): every package's dependencies'
 * bins in that package's own node_modules/.bin (the nearest installed copy
 * of each dependency, as Node finds it), and in the project's
 * node_modules/.bin the bins of every package, the first of each name in
 * yarn's order, direct dependencies last so that they win. Targets that do
 * not exist are skipped, as yarn skips them. */
int nub_bins_link_yarn(int proj_fd, const struct nub_tree *t, size_t *nlinks,
                       struct nub_err *err);

struct nub_workspace;

/* yarn berry's bins (a tree from berry.h): each package's in the .bin of
 * the node_modules that holds it, as npm, but as the package.json in its
 * files states them (not the lockfile's: the registry's, which turned
 * "directories.bin" into "bin"), only those whose file exists
 * and, in a clash, the first package in berry's order (node->order); each
 * workspace's own bins (root: the project's package.json; ws: the members)
 * in its own node_modules/.bin, over its dependencies', made executable. */
int nub_bins_link_berry(int proj_fd, const struct nub_tree *t, const struct nub_manifest *root,
                        const struct nub_workspace *ws, size_t *nlinks, struct nub_err *err);

/* The isolated layout: the bins of each importer's direct dependencies in
 * its node_modules/.bin (dependencies, then optional, then dev ones keep a
 * name); a linked workspace member's bins come from its package.json (ws),
 * and its targets are made executable. */
int nub_bins_link_importers(int proj_fd, const char *proj_dir, const struct nub_graph *g,
                            const struct nub_workspace *ws, bool omit_dev, size_t *nlinks,
                            struct nub_err *err);

#endif
