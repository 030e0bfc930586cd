/* layout.h - a node_modules layout: one set of operations, two
 * implementations (layout_hoisted.c: npm's tree of real directories;
 * layout_isolated.c: pnpm's symlinks into the global virtual store). The
 * driver (install.c) calls them in this order. */
#ifndef NUB_LAYOUT_H
#define NUB_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "link.h"
#include "state.h"

struct nub_install_ctx;
struct nub_pkg;

/* A package whose install scripts may run, where it was installed. */
struct nub_script_target {
  struct nub_pkg *pkg;
  char *dir; /* absolute; owned */
};

struct nub_layout_result {
  size_t packages, files, kept, reused, adopted, removed;
  struct nub_link_stats st;
  char **entries; /* the isolated layout's (isolated.h), owned; or NULL */
  size_t nentries;
};

struct nub_layout {
  const char *name; /* "hoisted", "isolated": the state records it */
  /* The plan in this layout's shape, and what of it this machine installs
   * (--omit, --prod, platforms): marks the packages to fetch (needed,
   * optional) and sets c->installed. */
  int (*shape)(struct nub_install_ctx *c, struct nub_err *err);
  /* After the fetch: leave out packages that failed and were optional,
   * optional packages of other platforms only their index tells, and what
   * only they needed. */
  int (*after_fetch)(struct nub_install_ctx *c, struct nub_err *err);
  /* Make node_modules. old: the previous install's state when it was this
   * layout with these settings (what matches is kept), else NULL and
   * node_modules was removed. */
  int (*link)(struct nub_install_ctx *c, const struct nub_state *old,
              struct nub_layout_result *r, struct nub_err *err);
  int (*bins)(struct nub_install_ctx *c, size_t *nlinks, struct nub_err *err);
  /* Packages with install scripts (or a binding.gyp), dependencies before
   * their dependents; the caller frees with nub_script_targets_free. */
  size_t (*script_targets)(struct nub_install_ctx *c, struct nub_script_target **out);
  /* The paths and store keys the state records, and what must still be on
   * disk for the next install to be a no-op. */
  void (*state)(struct nub_install_ctx *c, struct nub_state *s);
};

extern const struct nub_layout nub_layout_hoisted;
extern const struct nub_layout nub_layout_isolated;

void nub_script_targets_free(struct nub_script_target *v, size_t n);

#endif
