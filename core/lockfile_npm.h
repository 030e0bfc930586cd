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
 * resolved against the configuration: a `resolved` URL on the default
 * registry's origin means "the configured registry" (npm's rule), and an
 * entry without one gets <registry><name>/-/<name>-<version>.tgz. */
int nub_lockfile_npm_parse(struct nub_tree *t, const char *text, size_t len,
                           const char *fname, const struct nub_config *cfg,
                           struct nub_err *err);

/* Whether s is an http(s) URL. */
bool nub_is_http_url(const char *s);

/* <reg><name>/-/<basename>-<version>.tgz, the registry tarball path (reg
 * ends in '/'; caller frees). */
char *nub_tarball_url_on(const char *reg, const char *name, const char *version);

/* The tarball URL of name@version on the configured registry for name
 * (caller frees), or NULL when no registry is configured. */
char *nub_registry_tarball_url(const struct nub_config *cfg, const char *name,
                               const char *version);

/* Rewrite a resolved URL that points at the default registry onto the
 * configured one (caller frees). */
char *nub_rewrite_registry_url(const struct nub_config *cfg, const char *name,
                               const char *url);

#endif
