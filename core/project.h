/* project.h - the project being installed: its package.json, which lockfile
 * owns it, and the layout that follows (DESIGN.md "Layout policy"):
 *   package-lock.json / npm-shrinkwrap.json -> hoisted (npm's tree)
 *   nub.lock, pnpm-lock.yaml or none        -> isolated
 *   --node-linker / node-linker overrides either way.
 * Two lockfiles of different tools are an error that asks the user to pick,
 * unless package.json's "packageManager" names the tool. */
#ifndef NUB_PROJECT_H
#define NUB_PROJECT_H

#include "config.h"
#include "err.h"
#include "manifest.h"

enum nub_lock_kind {
  NUB_LOCK_NONE,
  NUB_LOCK_NPM,        /* package-lock.json */
  NUB_LOCK_SHRINKWRAP, /* npm-shrinkwrap.json */
  NUB_LOCK_NUB,        /* nub.lock */
  NUB_LOCK_PNPM,       /* pnpm-lock.yaml */
  NUB_LOCK_YARN,       /* yarn.lock */
  NUB_LOCK_BUN,        /* bun.lock */
};

struct nub_project {
  char *dir;
  int dir_fd;
  enum nub_lock_kind lock;
  const char *lockfile; /* file name, or NULL */
  enum nub_node_linker layout;
  const char *layout_source; /* "package-lock.json", "--node-linker", ... */
};

/* Detect the lockfile and the layout. Does not parse package.json. */
int nub_project_detect(struct nub_project *p, const char *dir,
                       const struct nub_config *cfg, const char *package_manager,
                       struct nub_err *err);
void nub_project_release(struct nub_project *p);
/* The project's lockfile, read whole (caller frees *text): a file larger
 * than max-lockfile-size is refused (-NUB_ELIMIT, naming the setting)
 * before it is read. */
int nub_project_read_lockfile(const struct nub_project *p, const struct nub_config *cfg,
                              char **text, size_t *len, struct nub_err *err);

#endif
