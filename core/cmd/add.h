/* add.h - `nub add` and `nub remove`: package.json edited (pkgjson_edit.h),
 * then an install, which resolves what changed and writes the lockfile back
 * in the project's own format. If anything fails, every package.json and
 * the lockfile are put back byte for byte (a lockfile the install created
 * is removed).
 *
 * add <name>[@range|@tag|@version], <alias>@npm:<name>[@...], file:/link:
 * paths: a registry package is looked up first; what is saved is the range
 * given, or the version found with save-prefix (default "^"; save-exact or
 * --save-exact: none). A name that is a workspace member is saved as
 * "workspace:^" under pnpm-workspace.yaml, "^<its version>" otherwise. A
 * dependency moves from the other sections into the one asked for (npm's
 * rule). The package.json edited is the project's, or in a workspace the
 * member nub runs in, the root with -w, or those --filter selects. */
#ifndef NUB_ADD_H
#define NUB_ADD_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "install.h"

enum nub_save_kind { NUB_SAVE_PROD, NUB_SAVE_DEV, NUB_SAVE_OPTIONAL, NUB_SAVE_PEER };

struct nub_add_opts {
  struct nub_install_opts install; /* dir, --filter/-w, flags for the install */
  char *const *specs;
  size_t nspecs;
  enum nub_save_kind save;
  bool exact;
  /* patch's and patch-commit's (patch.h) */
  const char *edit_dir, *patches_dir;
  bool ignore_existing;
};

/* Add the specs; res is the install's. *saved gets "name@spec" lines of what
 * package.json now says (caller frees with nub_strarray_free). */
int nub_add(const struct nub_add_opts *o, struct nub_install_result *res, char ***saved,
            size_t *nsaved, struct nub_err *err);
/* `nub update [names]`: the names (none: everything) resolved again to the
 * newest versions their ranges allow; with latest, the ranges in
 * package.json first move to the registry's latest version (the range's
 * operator kept: "^1.2.0" -> "^2.0.1", "~1.2" -> "~2.0.1", "1.2.0" ->
 * "2.0.1"; workspace:, file:, link: and git specs stay). *changed gets the
 * "name old -> new" lines of package.json edits (caller frees). */
int nub_update(const struct nub_add_opts *o, bool latest, struct nub_install_result *res,
               char ***changed, size_t *nchanged, struct nub_err *err);
/* Remove the names (o->specs) from every dependency section. A name in no
 * section of any edited package.json is -NUB_EUSAGE. */
int nub_remove(const struct nub_add_opts *o, struct nub_install_result *res,
               struct nub_err *err);

/* `nub approve-builds [<pkg>...] [--all]`: the dependency builds the last
 * install left waiting (report.h's NUB_PENDING_BUILDS), or the named ones,
 * approved where the project's tool keeps approvals (its format's
 * approve_in: pnpm-workspace.yaml allowBuilds, npm 12's package.json
 * allowScripts pinned to the version, or trustedDependencies), then run
 * (a rebuild of them). Neither names nor all: nothing is edited, *pending
 * lists what waits. *approved: the "name[@version]" approved; *pending:
 * what still waits (caller frees both). */
int nub_approve_builds(const struct nub_add_opts *o, bool all, struct nub_install_result *res,
                       char ***approved, size_t *napproved, char ***pending, size_t *npending,
                       struct nub_err *err);

#endif
