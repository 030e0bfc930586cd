/* manifest.h - package.json. cJSON stays inside manifest.c and the other
 * JSON readers; callers see plain C arrays. */
#ifndef NUB_MANIFEST_H
#define NUB_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include "dep.h"
#include "err.h"

/* A named set of version ranges that "catalog:<name>" specs refer to
 * (pnpm-workspace.yaml, bun's package.json); the default one is "default". */
struct nub_catalog {
  char *name;
  struct nub_depmap deps;
};

/* One package extension (pnpm's packageExtensions in pnpm-workspace.yaml;
 * package.json's, which npm 12 and bun read): what to add to the manifests
 * of name (of the versions range allows; NULL: all). How it merges is the
 * tool's (resolve.h). */
struct nub_pkg_ext {
  char *name, *range;
  struct nub_depmap deps, optional, peers;
  char **peers_optional; /* peerDependenciesMeta's optional: true */
  size_t npeers_optional;
};

/* Frees what e owns. */
void nub_pkg_ext_release(struct nub_pkg_ext *e);

struct nub_manifest {
  char *name, *version; /* NULL when absent */
  struct nub_depmap deps, dev, optional, peer; /* specs without secrets (url.h) */
  char **peers_optional; size_t npeers_optional; /* peerDependenciesMeta's optional */
  /* the specs above that carried userinfo, as written (name -> spec): only
   * for the git command or download that needs the credential; nothing
   * written to a file takes them */
  struct nub_depmap secrets;
  /* npm "overrides", yarn "resolutions", "pnpm.overrides": "name" or
   * "parent>name" -> spec */
  struct nub_depmap overrides;
  /* "patchedDependencies" (bun's, npm 12's): "name@version" -> patch file,
   * in file order */
  struct nub_depmap patched;
  /* npm "overrides" as written, keys with their ranges, for a lockfile that
   * records that shape (bun.lock): an entry is a spec, or (kids.n > 0, spec
   * NULL) an object of one level whose "." is the entry's own spec;
   * overrides_deep when some object nests another */
  struct nub_override_raw {
    char *key, *spec;
    struct nub_depmap kids;
  } *overrides_raw;
  size_t noverrides_raw;
  bool overrides_deep;
  char **bundled; size_t nbundled;
  struct nub_bin *bins; size_t nbins;
  char *directories_bin; /* "directories.bin" when there is no "bin" */
  char **os, **cpu, **libc; size_t nos, ncpu, nlibc;
  char *package_manager;
  char *dev_engines; /* "devEngines" as compact JSON text, or NULL */
  /* "packageExtensions" (npm 12's and bun's), in file order, and as
   * compact JSON text (npm hashes its canonical form); NULL/0 when absent.
   * A malformed one is an error (exit 70), as npm refuses it. */
  struct nub_pkg_ext *pkg_exts;
  size_t npkg_exts;
  char *pkg_exts_json;
  /* lifecycle scripts we care about, NULL when absent */
  char *preinstall, *install, *postinstall, *prepare;
  struct nub_depmap scripts; /* every script: name -> command, in file order */
  bool has_scripts_field;
  /* whose install scripts may run (trustedDependencies, pnpm's
   * onlyBuiltDependencies, npm 12's allowScripts: true) and whose may not
   * (allowScripts: false); each "name" or "name@1.0.0 || 1.0.1"
   * (nub_approval_matches) */
  char **trusted; size_t ntrusted;
  char **denied; size_t ndenied;
  /* bun's "nativeDependencies": packages whose bins link to their platform
   * package's binary (has_native_deps when the field is there at all) */
  char **native_deps; size_t nnative_deps;
  bool has_native_deps;
  /* "workspaces": the array, or the object form's "packages" (globs, '!'
   * excludes); has_workspaces when the field is there at all */
  char **workspaces; size_t nworkspaces;
  bool has_workspaces;
  /* bun's catalogs: "workspaces.catalog(s)" or top-level "catalog(s)" */
  struct nub_catalog *catalogs; size_t ncatalogs;
  /* settings that change an install and that nub does not apply, as
   * written ("patchedDependencies", "pnpm.packageExtensions"): the driver
   * says so, or refuses (patches) */
  char **unapplied; size_t nunapplied;
};

/* Parse package.json text. `path` names the file in errors, which carry
 * line:column and spot merge-conflict markers. A malformed dependency map
 * (an array, null) reads as empty, as old registry documents need. */
int nub_manifest_parse(struct nub_manifest *out, const char *text, size_t len,
                       const char *path, struct nub_err *err);
/* Read and parse <dir>/package.json. -ENOENT (with a message) if missing. */
int nub_manifest_load(struct nub_manifest *out, const char *dir,
                      struct nub_err *err);
/* The same, naming the file `shown` in errors ("packages/a/package.json"). */
int nub_manifest_load_as(struct nub_manifest *out, const char *dir, const char *shown,
                         struct nub_err *err);
/* Catalog `name` of v[0..n), or NULL. */
const struct nub_catalog *nub_catalog_find(const struct nub_catalog *v, size_t n,
                                           const char *name);
void nub_catalogs_free(struct nub_catalog *v, size_t n);
void nub_manifest_release(struct nub_manifest *m);
/* The spec of dependency `name` as package.json wrote it, credential and
 * all, when it carried one; else NULL. */
const char *nub_manifest_secret(const struct nub_manifest *m, const char *name);
/* An override's "$name": the project's own spec for name (dependencies,
 * devDependencies, optionalDependencies, in that order), or NULL. */
const char *nub_manifest_own_spec(const struct nub_manifest *m, const char *name);
/* Whether an approval entry ("name", or "name@1.0.0 || 1.0.1": those
 * versions) names name@version (version NULL: any of its versions). */
bool nub_approval_matches(const char *entry, const char *name, const char *version);

#endif
