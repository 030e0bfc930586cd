/* registry_url.h - the URL rules every reader of package locations shares
 * (the registry client, every lockfile reader, the plan): tarball paths on
 * a registry, and npm's rule that a URL on the default registry means
 * whichever registry is configured now. */
#ifndef NUB_REGISTRY_URL_H
#define NUB_REGISTRY_URL_H

#include <stdbool.h>

#include "config.h"
#include "url.h" /* nub_is_http_url for every reader */

/* The tarball of a package that is a directory of the user's, copied as it
 * is (bun's file: directories): "local-dir+<absolute path>". It is
 * imported again on every install, since the directory may have changed. */
#define NUB_LOCAL_DIR "local-dir+"

/* <reg><name>/-/<basename>-<version>.tgz, the registry tarball path (reg
 * ends in '/'; caller frees). */
char *nub_tarball_url_on(const char *reg, const char *name, const char *version);

/* The tarball URL of name@version on the configured registry for name
 * (caller frees), or NULL when no registry is configured. */
char *nub_registry_tarball_url(const struct nub_config *cfg, const char *name,
                               const char *version);

/* Where a package's tarball is: its registry's tarball for name@version
 * when tarball is NULL, "file:<absolute path>" for a file: tarball (a
 * relative one is the project's), the same for a NUB_LOCAL_DIR directory,
 * else tarball itself. Caller frees; NULL
 * when no registry is configured. */
char *nub_pkg_tarball_url(const struct nub_config *cfg, const char *project_dir,
                          const char *name, const char *version, const char *tarball);

/* Rewrite a resolved URL that points at the default registry onto the
 * configured one (caller frees). */
char *nub_rewrite_registry_url(const struct nub_config *cfg, const char *name,
                               const char *url);

#endif
