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
#include "lockfmt.h"
#include "manifest.h"

struct nub_project {
  char *dir;
  int dir_fd;
  const struct nub_lockfmt *fmt; /* the lockfile's format; nub_lockfmt_none-like
                                  * (file NULL) when there is none */
  const char *lockfile; /* fmt->file, or NULL */
  enum nub_node_linker layout;
  const char *layout_source; /* "package-lock.json", "--node-linker", ... */
};

/* Detect the lockfile among the formats fmts (in order; a format whose
 * file is there and whose detect takes its first bytes) and the layout;
 * none: `none` (the resolver's). Does not parse package.json. */
int nub_project_detect(struct nub_project *p, const char *dir, const struct nub_config *cfg,
                       const char *package_manager, const struct nub_lockfmt *const *fmts,
                       const struct nub_lockfmt *none, struct nub_err *err);
void nub_project_release(struct nub_project *p);
/* The project's lockfile, read whole (caller frees *text): a file larger
 * than max-lockfile-size is refused (-NUB_ELIMIT, naming the setting)
 * before it is read. */
int nub_project_read_lockfile(const struct nub_project *p, const struct nub_config *cfg,
                              char **text, size_t *len, struct nub_err *err);

#endif
