/* patch.h - `nub patch <pkg>[@<version>]`: an editable copy of an
 * installed package (its files from the store, with the project's patch
 * for it applied unless --ignore-existing), in
 * node_modules/.nub_patches/<name>@<version> or --edit-dir; and `nub
 * patch-commit <dir>`: what was changed there written as a patch file
 * (patches/<name>@<version>.patch, a scope's '/' as "__", as pnpm names
 * it) and as the setting where the project's tool reads it
 * (pnpm-workspace.yaml's patchedDependencies for pnpm's projects,
 * package.json's for bun's), then an install. Which copy is which package
 * is kept in node_modules/.nub-state/patch-edits. */
#ifndef NUB_PATCH_H
#define NUB_PATCH_H

#include "add.h"
#include "err.h"
#include "install.h"

/* The copy made: *dir (absolute) and *what ("name@version"); caller frees.
 * -NUB_EUSAGE for a name the lockfile does not have, or has at several
 * versions (name one); -NUB_ENOTFOUND when the store does not have it yet
 * (install first). */
int nub_patch_edit(const struct nub_add_opts *o, const char *spec, char **dir, char **what,
                   struct nub_err *err);
/* The patch of the copy at dir, its setting, then the install (res). *patch
 * gets the patch file's path from the project's root (caller frees). The
 * copy is removed when it is nub's own (under node_modules/.nub_patches).
 * -NUB_EUSAGE when dir is no copy `nub patch` made or nothing changed;
 * -NUB_ESPEC for a project whose tool nub does not write patches for. */
int nub_patch_commit(const struct nub_add_opts *o, const char *dir,
                     struct nub_install_result *res, char **patch, struct nub_err *err);

#endif
