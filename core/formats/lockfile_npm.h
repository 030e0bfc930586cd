/* lockfile_npm.h - package-lock.json / npm-shrinkwrap.json, versions 1, 2
 * and 3, read into the install plan. The tree is exactly the lockfile's: v2
 * and v3 key every node by its node_modules path; v1 nests them under
 * "dependencies". */
#ifndef NUB_LOCKFILE_NPM_H
#define NUB_LOCKFILE_NPM_H

#include <stdbool.h>

#include "config.h"
#include "err.h"
#include "buf.h"
#include "tree.h"

/* Parse lockfile text. `fname` names the file in errors. Tarball URLs are
 * resolved against the configuration (registry_url.h): a `resolved` URL on
 * the default registry's origin means "the configured registry" (npm's
 * rule), and an entry without one gets the configured registry's URL. */
int nub_lockfile_npm_parse(struct nub_tree *t, const char *text, size_t len,
                           const char *fname, const struct nub_config *cfg,
                           struct nub_err *err);

struct nub_graph;
struct nub_workspace;
struct nub_patches;

/* package-lock.json (lockfileVersion 3) for tree t, which hoist_npm.c made
 * from graph g (the nodes' gpkg): the root entry from root (and its
 * workspace globs), one entry per node with version, resolved, integrity,
 * npm's dev / optional / devOptional flags and the package's own
 * dependency ranges, links for workspace members and each member's own
 * entry. Written as JSON.stringify(lock, null, 2) writes it. */
/* A package the project patches (npm 12, package.json's
 * patchedDependencies) gets npm's "patched": {integrity, path}, and the
 * file lockfileVersion 4, as npm 12 writes it. */
void nub_lockfile_npm_write(const struct nub_tree *t, const struct nub_graph *g,
                            const struct nub_manifest *root, const struct nub_workspace *ws,
                            struct nub_patches *patches, struct nub_buf *out);

#endif
