/* engines.h - a package's engines.node against the node that will run it,
 * as npm's checkEngine and pnpm's packageIsInstallable judge it. */
#ifndef NUB_ENGINES_H
#define NUB_ENGINES_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* The version of the first `node` on PATH ("22.23.5", without the "v")
 * into out; false when there is none or it cannot say. Node is asked once
 * per binary: the answer is kept in cache_dir (node-versions), keyed by
 * the binary's path, inode, size and modification time. */
bool nub_node_version(const char *cache_dir, char *out, size_t cap);

/* Whether `range` (engines.node; NULL or "" allows all) allows node
 * `version`: semver with prereleases included, as npm and pnpm ask it; a
 * range that does not parse allows nothing, as npm's semver says. */
bool nub_engine_allows(const char *range, const char *version);

/* What this machine is, as devEngines names it: os ("linux"), cpu ("x64"),
 * libc ("glibc", "musl", NULL), node's version (NULL: no node). */
struct nub_dev_env {
  const char *os, *cpu, *libc, *node;
};

/* A devEngines engine nub does not check is told through skipped(ud,
 * engine); a failing one through failed(ud, engine, why, is_error): npm's
 * checkDevEngines on the project's devEngines (JSON text): runtime (node
 * and its version range), os, cpu, libc; an array's entries are
 * alternatives; onFail "error" (the default, and "download": nub fetches
 * no runtime), "warn", "ignore". packageManager is not checked: nub stands
 * in for the tool it names. -EINVAL when the text is not what npm accepts
 * (npm fails on it too), with why in err. */
int nub_dev_engines_check(const char *json, const struct nub_dev_env *env,
                          void (*failed)(void *ud, const char *engine, const char *why,
                                         bool is_error),
                          void *ud, struct nub_err *err);

#endif
