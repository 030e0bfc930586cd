/* patched.h - a stored package with a project's patch applied: a store
 * identity of its own (the package's and the patch's hashes), made once
 * from the package's stored files and linked like any other. */
#ifndef NUB_PATCHED_H
#define NUB_PATCHED_H

#include <stdbool.h>

#include "err.h"
#include "index.h"
#include "patchfile.h"
#include "store.h"

/* The store key of base_key patched with the patch whose hash is hash,
 * applied by the rules given. */
void nub_patched_key(const char base_key[65], const char hash[65], enum nub_patch_rules rules,
                     char out[65]);

/* A patch to apply. */
struct nub_patch_src {
  const char *label;   /* names it in errors: its file, or berry's "builtin<compat/x>" */
  const char *path;    /* its file, read when text is NULL */
  const char *text;    /* or its text (yarn berry's builtin patches) */
  size_t len;
  const char *version; /* the package's: by berry's rules a part headed "semver
                        * exclusivity <range>" applies only to versions in it */
  bool optional;       /* berry's "optional!" patches: one that does not apply
                        * leaves the package as published */
};

/* The stored package `base` with the patch src applied, stored under key
 * (a tree when as_tree, named name) and loaded into *out; one already
 * stored under key, whole, is used as it is. `what` ("b@1.0.0") names the
 * package in errors: -NUB_EPATCH for a patch that cannot be read or does
 * not apply (naming the file and the hunk). An optional patch that does
 * not apply: the package's own files stored under key, 1 returned and err
 * saying why (for a warning). */
int nub_store_patched(struct nub_store *s, const struct nub_index *base, const char *what,
                      const struct nub_patch_src *src, enum nub_patch_rules rules,
                      const char key[65], bool as_tree, const char *name,
                      struct nub_index **out, struct nub_err *err);

#endif
