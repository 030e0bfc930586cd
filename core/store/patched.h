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

/* The stored package `base` with the patch file at patch_path applied,
 * stored under key (a tree when as_tree, named name) and loaded into
 * *out; one already stored under key, whole, is used as it is. `what`
 * ("b@1.0.0") names the package in errors: -NUB_EPATCH for a patch that
 * cannot be read or does not apply (naming the file and the hunk). */
int nub_store_patched(struct nub_store *s, const struct nub_index *base, const char *what,
                      const char *patch_path, enum nub_patch_rules rules, const char key[65],
                      bool as_tree, const char *name, struct nub_index **out,
                      struct nub_err *err);

#endif
