/* workspace.h - a workspace (monorepo): its root and member packages, found
 * the way npm, yarn and bun (package.json "workspaces") and pnpm
 * (pnpm-workspace.yaml "packages") find them, and the settings
 * pnpm-workspace.yaml carries (catalogs, overrides, onlyBuiltDependencies).
 *
 * Globs: one pattern per path segment matched with fnmatch(3) ("*", "?",
 * "[...]"), "**" for any number of directories; a leading "!" excludes what
 * it matches. A member is a matched directory with a package.json;
 * node_modules and dot directories are never walked into. */
#ifndef NUB_WORKSPACE_H
#define NUB_WORKSPACE_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "manifest.h"

struct nub_ws_pkg {
  char *dir; /* relative to the root: "packages/a" */
  struct nub_manifest man;
};

struct nub_workspace {
  char *root;         /* absolute */
  const char *source; /* "pnpm-workspace.yaml" or "package.json"; NULL: not a workspace */
  char **globs;       /* as written */
  size_t nglobs;
  struct nub_ws_pkg *pkgs; /* members, by dir; manifests after nub_workspace_load */
  size_t npkgs;
  bool loaded;
  /* pnpm-workspace.yaml's; with package.json workspaces the root
   * manifest's (bun) */
  struct nub_catalog *catalogs;
  size_t ncatalogs;
  struct nub_depmap overrides;
  char **only_built;
  size_t nonly_built;
  char **age_exclude; /* minimumReleaseAgeExclude */
  size_t nage_exclude;
  char **trust_exclude; /* trustPolicyExclude */
  size_t ntrust_exclude;
  struct nub_depmap allow_builds; /* allowBuilds: name[@versions] -> "true"/"false" */
  struct nub_depmap patched; /* patchedDependencies: name[@version|@range] -> file */
  /* peerDependencyRules: peer names (or globs) whose absence, or whose
   * any version, is fine; and [parent[@range]>]peer -> a range also fine */
  char **peer_ignore_missing;
  size_t npeer_ignore_missing;
  char **peer_allow_any;
  size_t npeer_allow_any;
  struct nub_depmap peer_allowed;
  /* packageExtensions (nub_pkg_ext), and their object-hash text, whose
   * SHA-256 pnpm records as packageExtensionsChecksum (NULL: none) */
  struct nub_pkg_ext *pkg_exts;
  size_t npkg_exts;
  char *pkg_exts_hash;
  /* pnpm-workspace.yaml's other settings whose value is a scalar, as
   * written: key -> "true", "500", ... */
  struct nub_depmap settings;
  char **warnings; /* one line each: a glob that matches nothing */
  size_t nwarnings;
  /* pnpm-workspace.yaml's settings that change an install and that nub
   * does not apply (patchedDependencies, packageExtensions, ...) */
  char **unapplied;
  size_t nunapplied;
};

/* The root of the workspace `dir` (absolute) belongs to: the nearest
 * directory, dir itself or an ancestor, whose workspace globs take dir in;
 * else dir. Caller frees *root. The root's package.json, read on the way,
 * goes to *root_man when root_man is given and it could be read
 * (*have_root_man; the caller releases it): read once, not again. */
int nub_workspace_find_root(const char *dir, char **root, struct nub_manifest *root_man,
                            bool *have_root_man, struct nub_err *err);
/* Read root's workspace definition (root_man: its package.json) and expand
 * its globs into members (sorted by dir). Not a workspace: ws->source is
 * NULL and there are no members. */
int nub_workspace_discover(struct nub_workspace *ws, const char *root,
                           const struct nub_manifest *root_man, struct nub_err *err);
/* Parse every member's package.json. A member without a name, or two with
 * one name, is an error naming both directories, except in a pnpm workspace
 * (pnpm-workspace.yaml), whose importers are their folders. */
int nub_workspace_load(struct nub_workspace *ws, struct nub_err *err);
/* The member named `name` (the first, in a pnpm workspace with two), or
 * NULL. */
const struct nub_ws_pkg *nub_workspace_find(const struct nub_workspace *ws, const char *name);
/* The member at dir (relative to the root), or NULL. */
const struct nub_ws_pkg *nub_workspace_at(const struct nub_workspace *ws, const char *dir);
/* Whether glob matches the relative path rel (exclusions not applied). */
bool nub_workspace_glob_match(const char *glob, const char *rel);
/* The projects the selectors pick, pnpm's --filter syntax: a name or glob
 * of names ("@app/<glob>"), a path ("./packages/app", "{packages/<glob>}") relative
 * to cwd_rel (the directory nub runs in, relative to the root: "" or
 * "packages/app"), "<sel>..." with the project's workspace dependencies,
 * "...<sel>" with its dependents ("^" leaves the project itself out:
 * "<sel>^...", "...^<sel>"), "!<sel>" to exclude. Project 0 is the root
 * (root_name its name, may be NULL), project i the member i - 1: out gets
 * 1 + npkgs flags. A selector that matches nothing is -NUB_EWORKSPACE. */
int nub_workspace_select(const struct nub_workspace *ws, const char *root_name,
                         const struct nub_manifest *root_man, const char *cwd_rel,
                         char *const *sel, size_t nsel, bool *out, struct nub_err *err);
void nub_workspace_release(struct nub_workspace *ws);
/* pnpm-workspace.yaml's text alone, no member read (exported for tests):
 * what nub_workspace_discover reads of it; pin is package.json's
 * packageManager (or NULL). nub_workspace_release it whatever it returns. */
int nub_workspace_parse_yaml(struct nub_workspace *ws, const char *text, size_t len,
                             const char *pin, struct nub_err *err);

/* pnpm's settings (pnpm_settings.c): whether pnpm 12 knows key in
 * pnpm-workspace.yaml, and the known key nearest a key it does not (NULL:
 * none near). */
bool nub_pnpm_setting_known(const char *key);
const char *nub_pnpm_setting_nearest(const char *key);

#endif
