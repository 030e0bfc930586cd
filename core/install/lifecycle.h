/* lifecycle.h - the install's lifecycle scripts, for every layout: the
 * project's own (preinstall before anything, then install, postinstall,
 * prepare), and each dependency's install scripts (or an implicit
 * `node-gyp rebuild`) when package.json trusts it by name; the others are
 * collected for one warning. */
#ifndef NUB_LIFECYCLE_H
#define NUB_LIFECYCLE_H

#include <stdbool.h>

#include "err.h"

struct nub_install_ctx;
struct nub_pkg;

/* The project's scripts for these events, in order (none with
 * --ignore-scripts). */
int nub_lifecycle_root(struct nub_install_ctx *c, const char *const *events, int nevents,
                       struct nub_err *err);
/* Workspace members' own scripts for these events: a member after the
 * members it depends on, members of one level at once (bounded by the
 * worker pool). A dependency cycle through a member with scripts is
 * -NUB_EWORKSPACE naming the cycle. */
int nub_lifecycle_members(struct nub_install_ctx *c, const char *const *events, int nevents,
                          struct nub_err *err);
/* The same order check alone, before anything is installed. */
int nub_lifecycle_members_check(struct nub_install_ctx *c, const char *const *events,
                                int nevents, struct nub_err *err);
/* Whether dependency p has scripts to run once installed: an install
 * script, an implicit node-gyp rebuild, or, for a git package bun installs
 * as its checkout, a prepare script (bun runs it in place). */
bool nub_lifecycle_builds(const struct nub_pkg *p);
/* The dependencies' install scripts, in the layout's order. */
int nub_lifecycle_deps(struct nub_install_ctx *c, struct nub_err *err);

#endif
