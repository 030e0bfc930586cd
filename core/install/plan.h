/* plan.h - the install plan: what to fetch and where it goes, from any
 * source. The sources:
 *   plan_tree.c   an npm lockfile (package-lock.json, npm-shrinkwrap.json)
 *                 or bun.lock: its tree is the plan, checked against
 *                 package.json;
 *   plan_graph.c  nub.lock or pnpm-lock.yaml, or the resolver (package.json
 *                 and the registry), which writes the lockfile back;
 *   plan_yarn.c   yarn.lock of yarn 1 (a graph, placed by yarn's hoisting);
 *   plan_berry.c  yarn.lock of yarn berry (the tree berry's linker builds).
 * A tree source fills `tree`, a graph source `graph`; the layout turns the
 * plan into its own shape (layout.h). Packages live once in `pkgs`. */
#ifndef NUB_PLAN_H
#define NUB_PLAN_H

#include <stdbool.h>

#include "buf.h"
#include "err.h"
#include "fetch.h"
#include "graph.h"
#include "pkgtab.h"
#include "tree.h"

struct nub_install_ctx;
struct nub_meta;

struct nub_plan {
  struct nub_pkgtab pkgs;  /* every package, once */
  struct nub_tree tree;    /* the hoisted shape: directories and packages */
  struct nub_graph graph;  /* the isolated shape: dependency paths and edges */
  bool have_tree, have_graph;
  const char *lockname;    /* the lockfile read, or the one written */
  bool resolved;           /* the resolver made it (not a lockfile) */
  struct nub_meta *meta;   /* the resolver's registry client */
  struct nub_fetch *fetch; /* downloads begun while resolving, or NULL */
  /* the lockfile to write (its bytes), held until node_modules is built */
  struct nub_buf lock_bytes;
  bool lock_staged;
  bool lock_written;       /* nub_plan_commit_lock wrote new bytes */
};

/* The store identity of a graph package (its tarball on the configured
 * registry unless the graph records one). */
struct nub_pkg *nub_plan_identity(struct nub_install_ctx *c, const char *name,
                                  const char *version, const char *tarball,
                                  const char *integrity);
/* Make every needed package present in the store (the "fetch" phase),
 * finishing downloads the resolver began. A package that cannot be fetched
 * fails the install unless it is optional in the final plan: then it is
 * left out (pkg->failed) with one warning. */
int nub_plan_fetch(struct nub_install_ctx *c, struct nub_fetch_result *fr,
                   struct nub_err *err);
void nub_plan_release(struct nub_plan *p);

/* The lockfile a plan source made (bytes, taken over): written at once
 * with --lockfile-only, else held for nub_plan_commit_lock, so that an
 * install that fails leaves the lockfile it found as it was (a lockfile
 * written first would pin what could not be installed: an integrity the
 * registry's own tarball does not match, a version that is not there). */
int nub_plan_stage_lock(struct nub_install_ctx *c, struct nub_buf *bytes, struct nub_err *err);
/* Write the staged lockfile (p->lockname) when its bytes differ from the
 * file's (no churn); 0 when nothing was staged. */
int nub_plan_commit_lock(struct nub_install_ctx *c, struct nub_err *err);

/* The sources, each a format's plan in the table of lockfmt.h. Each reads
 * or resolves the plan for c's project: a lockfile that must match
 * package.json and does not is an error naming the dependency; the
 * resolver's lockfile is written when its bytes change. */
int nub_plan_from_npm(struct nub_install_ctx *c, struct nub_err *err);
int nub_plan_from_bun(struct nub_install_ctx *c, struct nub_err *err);
int nub_plan_from_graph(struct nub_install_ctx *c, struct nub_err *err);
int nub_plan_from_yarn(struct nub_install_ctx *c, struct nub_err *err);
int nub_plan_from_berry(struct nub_install_ctx *c, struct nub_err *err);
/* yarn.lock, after the fetch: each package's peer dependencies from its
 * package.json, resolved as yarn resolves them (the version an ancestor on
 * its shortest path asks for, the nearest first), then yarn's hoisting
 * (hoist_yarn.h) into c->plan.tree; packages only incompatible ones lead to
 * are left out, as yarn leaves them. */
int nub_plan_yarn_place(struct nub_install_ctx *c, struct nub_err *err);
/* The resolver's graph for c's project into c->plan.graph (downloads begin
 * as versions are picked); prev: versions to keep where they satisfy. */
int nub_plan_resolve(struct nub_install_ctx *c, const struct nub_graph *prev,
                     struct nub_err *err);

#endif
