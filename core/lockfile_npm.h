/* lockfile_npm.h - package-lock.json / npm-shrinkwrap.json, versions 1, 2
 * and 3, read into the install plan. The tree is exactly the lockfile's: v2
 * and v3 key every node by its node_modules path; v1 nests them under
 * "dependencies". */
#ifndef NUB_LOCKFILE_NPM_H
#define NUB_LOCKFILE_NPM_H

#include <stdbool.h>

#include "config.h"
#include "err.h"
#include "tree.h"

/* Parse lockfile text. `fname` names the file in errors. Tarball URLs are
 * resolved against the configuration (registry_url.h): a `resolved` URL on
 * the default registry's origin means "the configured registry" (npm's
 * rule), and an entry without one gets the configured registry's URL. */
int nub_lockfile_npm_parse(struct nub_tree *t, const char *text, size_t len,
                           const char *fname, const struct nub_config *cfg,
                           struct nub_err *err);

#endif
