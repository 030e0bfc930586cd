/* patches.h - the patches a project commits (pnpm-workspace.yaml's
 * patchedDependencies, package.json's for bun and npm 12): which package
 * each is for, and its hash, as pnpm records it (the lockfile's
 * patchedDependencies and its "(patch_hash=...)" keys). */
#ifndef NUB_PATCHES_H
#define NUB_PATCHES_H

#include <stdbool.h>
#include <stddef.h>

#include "dep.h"
#include "err.h"

enum nub_patch_for {
  NUB_PATCH_FOR_VERSION, NUB_PATCH_FOR_RANGE, NUB_PATCH_FOR_ALL,
  NUB_PATCH_FOR_FILE, /* no package: the lockfile says which copies it patches */
};

struct nub_patch_rule {
  char *key;  /* as written: "b@1.0.0", "b@^1", "b" (FOR_FILE: the file) */
  char *name; /* NULL for FOR_FILE */
  char *spec; /* the version or range; NULL for ALL */
  enum nub_patch_for kind;
  char *file; /* as written, relative to the project's root */
  char *path; /* absolute; NULL for one given as text */
  char *text; /* or its text, with len (yarn berry's builtin patches) */
  size_t len;
  bool optional; /* berry's "optional!": where it does not apply, none */
  char hash[65]; /* hex SHA-256 of the file, CRLF read as LF (pnpm's) */
  char sri[100]; /* "sha512-..." of its bytes (npm 12's package-lock records it) */
  bool used;
};

struct nub_patches {
  const char *home; /* where they are written: "pnpm-workspace.yaml", ... */
  bool berry;       /* yarn berry's (its lockfile's patch: references): berry's
                     * rules apply them (patchfile.h) */
  struct nub_patch_rule *v;
  size_t n;
};

/* Each of m's "key: file" read and hashed; root is the project's root
 * (absolute). -NUB_EPATCH naming home and the key when a key is not a
 * package name with an optional version or range, or its file cannot be
 * read. Needs hashing (nub_crypto_init). */
int nub_patches_load(struct nub_patches *ps, const char *root, const struct nub_depmap *m,
                     const char *home, struct nub_err *err);
/* The patch files a lockfile names (yarn berry's), each a rule of kind
 * FOR_FILE, read and hashed. */
int nub_patches_load_files(struct nub_patches *ps, const char *root, char *const *files,
                           size_t n, const char *home, struct nub_err *err);
/* A patch a lockfile names that is no file (yarn berry's builtin ones):
 * a rule of kind FOR_FILE whose file is key, taking text (len bytes). */
void nub_patches_add_text(struct nub_patches *ps, const char *key, char *text, size_t len,
                          bool optional);
/* The rule for name@version, pnpm's order: the exact version, else the one
 * range that holds it (two: -NUB_EPATCH), else the name alone. NULL (and 0
 * in *rc) when none is. */
struct nub_patch_rule *nub_patches_find(struct nub_patches *ps, const char *name,
                                        const char *version, int *rc, struct nub_err *err);
void nub_patches_release(struct nub_patches *ps);
struct nub_workspace;
struct nub_manifest;
/* The project's patches from where its tool reads them: pnpm-workspace.yaml
 * (ws) when it has some, else package.json (man) when manifest_home (a
 * bun.lock project's, nub's own). */
int nub_patches_of_project(struct nub_patches *ps, const char *root,
                           const struct nub_workspace *ws, const struct nub_manifest *man,
                           bool manifest_home, struct nub_err *err);

#endif
