/* lockfile_bun.h - bun.lock (bun's text lockfile, lockfileVersion 0-2) read
 * into the install plan, as the hoisted tree bun itself lays out: every key
 * of "packages" is a path of package names ("a", "a/b", "@s/x/c") and means
 * node_modules/a/node_modules/b. The root workspace's dependency specs come
 * from "workspaces"[""]; every other workspace is a member folder (its
 * specs kept for the sync check), linked at the top under its name
 * ("app": ["app@workspace:packages/app"]), and a key under a member's name
 * ("app/b") is in the member's folder (packages/app/node_modules/b), as
 * bun's hoisted linker places it. Entries from elsewhere than a registry
 * are installed as bun installs them: link: a symlink, file: a copy of the
 * directory (NUB_LOCAL_DIR) or the tarball, a tarball URL with its
 * integrity, git+<url>#<commit> and github: the whole checkout
 * (NUB_GIT_CHECKOUT); their version is the spec, bun records no other. */
#ifndef NUB_LOCKFILE_BUN_H
#define NUB_LOCKFILE_BUN_H

#include "config.h"
#include "err.h"
#include "tree.h"
#include "strmap.h"

/* Parse bun.lock text (JSON with trailing commas). `fname` names the file in
 * errors. Registry packages get their tarball on the configured registry
 * (or on the registry the entry names). Dev-only and optional-only packages
 * are flagged from the dependency edges, as bun decides them. */
int nub_lockfile_bun_parse(struct nub_tree *t, const char *text, size_t len,
                           const char *fname, const struct nub_config *cfg,
                           struct nub_err *err);

/* Each registry entry's info object as bun wrote it: "name@version" ->
 * text (owned by out), so that a write-back keeps an unchanged package's
 * as it was (bin paths, libc, peers as its bun recorded them). Read only
 * when the file is written back, not on every install. */
int nub_lockfile_bun_infos(const char *text, size_t len, const char *fname, struct nub_strmap *out,
                           struct nub_err *err);

#include "buf.h"
#include "strmap.h"
#include "graph.h"
#include "manifest.h"

struct nub_workspace;

/* bun.lock for a resolved graph g, as bun 1.4 writes it: the project's and
 * ws's members' package.json specs, the packages placed by bun's hoisting
 * (hoist_bun.h), lockfileVersion `version` and configVersion
 * `config_version` (a file's own are kept, as bun keeps them; an override
 * object makes it lockfileVersion 3, as bun 1.4 writes it). What nub
 * cannot write into bun.lock (overrides nested deeper than bun follows, a
 * scoped yarn-style resolution, a member's link: outside the workspace) is
 * -NUB_ESPEC naming it. kept (may be NULL): the file's own info objects
 * (nub_lockfile_bun_infos), written back for the packages still there. */
int nub_lockfile_bun_write(const struct nub_graph *g, const struct nub_manifest *root,
                           const struct nub_workspace *ws, const struct nub_config *cfg,
                           int version, int config_version, const struct nub_strmap *kept,
                           struct nub_buf *out, struct nub_err *err);
/* s as a JSON string the way bun writes one. */
void nub_lockfile_bun_str(struct nub_buf *b, const char *s);

/* The "overrides" bun.lock records for root's package.json, one entry per
 * string as nub_tree.overrides holds them (owned by out). */
void nub_lockfile_bun_overrides(const struct nub_manifest *root, struct nub_depmap *out);

#endif
