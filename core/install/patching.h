/* patching.h - the project's committed patches in an install: read with
 * the plan (the lockfile's freshness and the resolver's keys depend on
 * them), given to the packages they are for once the layout is shaped,
 * and applied once those are in the store (patched.h). */
#ifndef NUB_PATCHING_H
#define NUB_PATCHING_H

#include "install_ctx.h"

/* c->patches from the project's settings (pnpm-workspace.yaml's
 * patchedDependencies, else package.json's where the project's tool reads
 * them there: bun's): each file read and hashed. */
int nub_patching_load(struct nub_install_ctx *c, struct nub_err *err);
/* The patches the lockfile itself names (yarn berry's patch: entries,
 * nub_tree.lock_patches), when the project's settings name none: applied
 * by berry's rules. */
int nub_patching_from_lock(struct nub_install_ctx *c, struct nub_err *err);
/* Each package of the plan its patch; a patch for no package is an error
 * (-NUB_EPATCH), as in pnpm, unless allowUnusedPatches is set. */
int nub_patching_assign(struct nub_install_ctx *c, struct nub_err *err);
/* Each fetched patched package's index replaced by its patched copy's
 * (made on first use). -NUB_EPATCH when a patch does not apply. */
int nub_patching_apply(struct nub_install_ctx *c, struct nub_err *err);

#endif
