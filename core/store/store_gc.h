/* store_gc.h - keeping the store honest and small: `nub store verify`,
 * `nub store prune`, and the bookkeeping they need.
 *
 * verify re-hashes every content-addressed file against its name and checks
 * every package tree's files against its index (present, regular, the
 * recorded size: trees carry no hashes). A package with a bad file loses its
 * index (and its tree, and the bad content file), so the next install that
 * needs it fetches it again; the store stays consistent meanwhile, since an
 * index is what marks a package whole.
 *
 * prune keeps what the projects that use the store still need: every
 * install registers its project under <store>/v1/projects/, and prune reads
 * each registered project's state (the store keys it installed, the links
 * of its direct dependencies) and node_modules/.nub (the packages it keeps
 * itself): the global-virtual-store entries those links reach and, through
 * their links, the entries they depend on. Everything else goes: indexes, trees,
 * content files no kept index names, entries, and projects that no longer
 * exist. Installs hold the store's gc lock shared for their whole run and
 * prune holds it exclusively, so the two never overlap. */
#ifndef NUB_STORE_GC_H
#define NUB_STORE_GC_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "store.h"

struct nub_gc_result {
  size_t indexes, files, trees, entries, projects; /* looked at / kept */
  size_t bad, removed_indexes, removed_files, removed_trees, removed_entries,
      removed_projects;
  char **problems; /* one line each (owned) */
  size_t nproblems;
};

void nub_gc_result_release(struct nub_gc_result *r);

/* The store's gc lock: shared for an install, exclusive for prune. */
int nub_store_gc_lock(struct nub_store *s, bool exclusive, bool wait, int *fd);
/* Record that project_dir uses the store (prune keeps what it needs). */
void nub_store_register_project(struct nub_store *s, const char *project_dir);

int nub_store_verify(struct nub_store *s, struct nub_gc_result *r, struct nub_err *err);
/* `nub store status`: the install's own check of every package (each file
 * present at its recorded size, not written since it was stored: no
 * hashing), reported, nothing changed. */
int nub_store_status(struct nub_store *s, struct nub_gc_result *r, struct nub_err *err);
int nub_store_prune(struct nub_store *s, struct nub_gc_result *r, struct nub_err *err);

#endif
