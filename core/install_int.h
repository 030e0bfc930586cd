/* install_int.h - what the install pipeline's files share (install.c for the
 * common steps and the hoisted layout, install_isolated.c for the isolated
 * one). Not a public interface. */
#ifndef NUB_INSTALL_INT_H
#define NUB_INSTALL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "graph.h"
#include "config.h"
#include "install.h"
#include "link.h"
#include "manifest.h"
#include "pool.h"
#include "progress.h"
#include "project.h"
#include "store.h"
#include "tree.h"

struct nub_install_ctx {
  const struct nub_install_opts *o;
  struct nub_config cfg;
  struct nub_manifest man;
  struct nub_project proj;
  struct nub_store store;
  struct nub_tree tree; /* hoisted: the plan; isolated: the package table */
  struct nub_pool *pool;
  struct nub_progress prog;
  struct nub_linker linker;
  int lock_fd;
  bool have_cfg, have_man, have_proj, have_store, have_linker;
  uint64_t t0;
  char settings[65];
  size_t installed; /* packages in the final tree */
  size_t nblocked;
  struct nub_buf blocked;
  struct nub_graph *given; /* a graph made from another plan (npm tree) */
};

bool nub__trusted(const struct nub_manifest *m, const char *name);
int nub__run_root_scripts(struct nub_install_ctx *c, const char *const *events, int nevents,
                          struct nub_err *err);
void nub__print_summary(struct nub_install_ctx *c, size_t added, size_t removed);
/* One line naming the dependencies whose install scripts were not run. */
void nub__warn_blocked(struct nub_install_ctx *c);
/* Mark what c->tree installs on this machine (dev/optional/platform). */
int nub__hoisted_filter(struct nub_install_ctx *c, struct nub_err *err);
/* The hoisted pipeline from c->tree (fetch, link, bins, scripts, state). */
int nub__install_hoisted_tree(struct nub_install_ctx *c, struct nub_err *err);
/* The isolated layout's pipeline (resolve or read nub.lock, fetch, link);
 * with c->given set it installs that graph instead. With the hoisted layout
 * requested, the graph is hoisted and handed to nub__install_hoisted_tree. */
int nub__install_isolated(struct nub_install_ctx *c, struct nub_err *err);

#endif
