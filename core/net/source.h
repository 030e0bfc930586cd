/* source.h - where resolution's facts come from, behind one table: a
 * package's versions (the registry's packument), the commit a git ref
 * names and its checkout, a tarball named by URL. The resolver asks only
 * through it, so the same resolver runs on the registry and on packuments a
 * test writes (tests/cases). nub_source_registry is the real one: the
 * registry client (registry.h), the system's git (git.h: the checkouts
 * the fetch makes too) and the HTTP client the registry client started,
 * which the fetch shares. */
#ifndef NUB_SOURCE_H
#define NUB_SOURCE_H

#include <stdbool.h>

#include "buf.h"
#include "config.h"
#include "err.h"
#include "gitspec.h"
#include "progress.h"
#include "registry.h"

struct nub_source {
  void *ud;
  /* Start finding name's versions; returns at once (a prefetch). */
  void (*want)(void *ud, const char *name);
  /* name's versions, valid until the source is freed. again: what was read
   * may be stale (no version matched): ask afresh, once per name and run.
   * -NUB_ENOTFOUND for a name that does not exist. */
  int (*versions)(void *ud, const char *name, bool again, const struct nub_packument **out,
                  struct nub_err *err);
  /* The commit (40 hex) a git spec's ref or semver range names.
   * -NUB_ENOTFOUND when it names none (an abbreviated commit among them:
   * only a checkout finds those). `what` names the dependency in errors. */
  int (*git_commit)(void *ud, const struct nub_gitspec *g, const char *what, char commit[41],
                    struct nub_err *err);
  /* Check out the commit `ref` names (40 hex, or abbreviated) into a new
   * directory, *dir (the caller removes and frees it); commit receives the
   * full one. */
  int (*git_checkout)(void *ud, const char *url, const char *ref, const char *what,
                      char commit[41], char **dir, struct nub_err *err);
  /* The bytes at url (a tarball). NULL: tarballs by URL are not available. */
  int (*download)(void *ud, const char *url, struct nub_buf *body, struct nub_err *err);
};

/* The registry's source over meta (not owned): versions from packuments,
 * git through the system's git, downloads on meta's HTTP client with cfg's
 * retries, counted on prog (may be NULL). reg is the source's state, owned
 * by the caller and alive as long as *out is used. */
struct nub_source_reg {
  struct nub_meta *meta;
  const struct nub_config *cfg;
  struct nub_progress *prog;
  const char *tmp_root; /* where checkouts go (the store's tmp) */
};
void nub_source_registry(struct nub_source *out, struct nub_source_reg *reg);

#endif
