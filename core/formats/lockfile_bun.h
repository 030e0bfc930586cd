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

#include "buf.h"
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

struct nub_manifest;
struct nub_workspace;
struct nub_graph;

/* What bun lays the tree out for: the project's package.json and its
 * workspace (NULL: none). */
struct nub_bun_layout {
  const struct nub_manifest *root;
  const struct nub_workspace *ws;
};

/* bun.lock as `bun install` installs it: bun reads the keys as what each
 * dependency resolves to and lays the tree out again from that (its
 * hoisting, hoist_bun.h), so that a file an older bun wrote (zod-to-
 * json-schema at the top with its own zod, where bun 1.4 puts it under
 * astro) installs as today's bun places it. The keys stand where that is
 * the same tree, and where the file has anything but registry packages and
 * the workspace's members. lay NULL: the keys as written (parse). */
int nub_lockfile_bun_read(struct nub_tree *t, const char *text, size_t len,
                          const char *fname, const struct nub_config *cfg,
                          const struct nub_bun_layout *lay, struct nub_err *err);

/* A bun.lock with git's merge-conflict markers, both sides merged into out
 * (JSON): bun 1.4 itself ignores such a file and resolves afresh, nub keeps
 * the pins of both, by npm's rule (json.h's nub_json_unconflict), for the
 * install to bring in line with package.json. */
int nub_bun_unconflict(const char *text, size_t len, const char *fname, struct nub_buf *out,
                       struct nub_err *err);

/* A package's dependencies as its bun.lock entry names them: name ->
 * spec, of each kind. */
struct nub_bun_deps {
  struct nub_depmap kind[3]; /* dependencies, optionalDependencies, peerDependencies */
};

/* The graph the keys of bun.lock resolve to (lockfile_bun_layout.c): t
 * its tree as the keys place it, deps[i] node i's dependencies (or NULL).
 * A package per name@version and what its dependencies resolve to (a
 * numbered variant, "b@1.0.0(1)", where copies resolve otherwise), its
 * dependencies, optional dependencies and peers found from its key as bun
 * finds them (its own folder's, then each parent's); the project's and
 * ws's members' direct dependencies from the specs the file records.
 * *tmpl (caller frees): for each package of g, a node of it. */
int nub_bun_graph_of_keys(const struct nub_tree *t, const struct nub_bun_deps *const *deps,
                          const struct nub_workspace *ws, struct nub_graph *g, long **tmpl);

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
