/* store.h - the store (DESIGN.md "Store"): content-addressed files, and
 * packages kept whole as trees.
 *
 * Layout under <store-dir>/v1:
 *   files/<2 hex>/<62 hex>[x]   file contents named by their SHA-256; the "x"
 *                               variant is the executable (0755) copy
 *   index/<2 hex>/<62 hex>      one index per tarball identity (see
 *                               nub_pkg_key): paths, hashes, sizes, modes,
 *                               bins; written last and atomically, so its
 *                               presence means "complete"
 *   packages/<key>/node_modules/<name>/
 *                               a package imported as a tree (see
 *                               nub_import_as_tree): its files under their
 *                               own paths, not content names
 *   packages/<key>/owner, ready symlinks naming the global-virtual-store
 *                               entry the tree is claimed for (link_isolated.c)
 *   links/<dir>-<hash>/         the global virtual store's entries for
 *                               other closures (link_isolated.c builds them in
 *                               links/.tmp-<pid>-<n> and renames them in)
 *   locks/<hash>                one lock file per project path, so two
 *                               installs of one project wait for each other
 *   tmp/<pid>-<n>/              staging of an import in progress
 *   metadata/                   the packument cache (registry.c), unless
 *                               NUB_CACHE_DIR moves it
 *
 * Write-once: every publish is a rename that never replaces; a loser of a
 * race drops its copy and uses the winner's. A killed import leaves only a
 * staging directory that a later run removes. */
#ifndef NUB_STORE_H
#define NUB_STORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "index.h"

struct nub_buf;

struct nub_stage_dir {
  char *name; /* under tmp/, led by our pid so that clean_tmp knows it */
  int fd;
};

struct nub_store {
  char *root; /* <dir>/v1 */
  int root_fd, files_fd, index_fd, tmp_fd, packages_fd;
  uint64_t files_made[4], index_made[4]; /* shard directories known to exist */
  /* Staging directories are reused by later imports and removed only at
   * close: a file system without a journal (ext4) scans every inode freed
   * in the last half minute on each allocation in its group, so freeing
   * while importing makes each later create slower. */
  pthread_mutex_t stage_lock;
  struct nub_stage_dir *stages; /* idle ones */
  size_t nstages, capstages;
  struct nub_stage_dir *all; /* every one made, for close */
  size_t nall, capall;
  unsigned tmp_seq; /* staged file names, unique across the store handle */
};

/* Open (creating on first use) the store under dir. */
int nub_store_open(struct nub_store *s, const char *dir, struct nub_err *err);
/* Close, removing the staging directories this handle made. */
void nub_store_close(struct nub_store *s);
/* Remove staging directories whose process is gone. */
void nub_store_clean_tmp(struct nub_store *s);
/* links/ (made on first use), opened; its absolute path in *abs (caller
 * frees). */
int nub_store_links(struct nub_store *s, int *fd, char **abs, struct nub_err *err);
/* The store's root (its format's directory, "<dir>/v1") for the store at
 * dir (a configuration's store-dir), for what a command finds there
 * without opening the store. Caller frees. */
char *nub_store_root_path(const char *dir);
/* <root>/<kind>/<hash of project_dir><suffix>, the directory made on first
 * use: a project's lock file ("locks", ""), the journal of an edit of it in
 * progress ("locks", ".edit"), its entry in the projects nub installed
 * ("projects"). root is the store's v1 directory. Caller frees. */
char *nub_store_project_path(const char *root, const char *kind, const char *project_dir,
                             const char *suffix);
/* The path of the lock file for a project (made on first use). */
char *nub_store_lock_path(struct nub_store *s, const char *project_dir);

/* Load an index by key. -ENOENT when absent; -NUB_ESTORE when unreadable. */
int nub_store_index_load(struct nub_store *s, const char key[65],
                         struct nub_index **out);
/* Read one file of a stored package (its tree, or its content file) by its
 * path in the package ("package.json"). -ENOENT when it has none. */
int nub_store_read_pkg_file(struct nub_store *s, const struct nub_index *idx, const char *rel,
                            char **data, size_t *len);
/* Whether a stored package's files are as they were imported: each there,
 * a regular file of its recorded size, and none modified after its index
 * was written (a write through a hard link in some node_modules moves the
 * shared inode's mtime). One stat per file. 0, or -NUB_ESTORE with what is
 * wrong ("lib/x.js was changed after it was stored") in why. */
int nub_store_check(struct nub_store *s, const struct nub_index *idx, char *why, size_t cap);
/* The date replacement store files carry (npm pack's fixed mtime). */
#define NUB_STORE_OLD_MTIME 499162500
/* Drop an index whose files turned out to be missing (next run refetches). */
void nub_store_index_remove(struct nub_store *s, const char key[65]);

/* Name of a content file relative to files_fd: "ab/<62 hex>" plus "x" for
 * the executable variant. out needs 67 bytes. */
void nub_store_file_name(const unsigned char hash[32], bool exec, char out[67]);

/* ---- import: one tarball's files staged, then published ---------------- */

struct nub_import;

int nub_import_begin(struct nub_store *s, struct nub_import **out,
                     struct nub_err *err);
/* Hold file bytes in buf (the caller's, kept across imports: a buffer that
 * is already grown and mapped costs no reallocation and no page faults)
 * rather than a buffer of the import's own. buf must outlive the import. */
void nub_import_reuse(struct nub_import *im, struct nub_buf *buf);
/* Write the package as a tree: each file straight into a package directory
 * of the store (packages/<key>/node_modules/<name>, published with one
 * rename at commit) instead of a content-addressed file. That costs no
 * content hash and gives each file one name, which the isolated layout's
 * global virtual store then adopts as the package's entry (link_isolated.c), so
 * that a cold install neither hashes nor links its files; the price is that
 * files equal across packages are not shared. Call before the first entry.
 * false (and the import stays content-addressed) when name cannot be a
 * directory name. */
bool nub_import_as_tree(struct nub_import *im, const char *name);
/* Files already in the store but changed after after_ns (the mtime of the
 * index that nub_store_check found them newer than) are replaced by this
 * import's copies instead of being taken as they are. */
void nub_import_distrust(struct nub_import *im, uint64_t after_ns);
/* An explicit directory entry (files imply their parents). */
int nub_import_dir(struct nub_import *im, const char *relpath);
/* A regular file: begin, write its bytes, end. relpath is normalised and
 * validated by the caller; tar_mode's executable bits decide 0644/0755. */
int nub_import_file_begin(struct nub_import *im, const char *relpath,
                          unsigned tar_mode);
int nub_import_file_write(struct nub_import *im, const void *p, size_t n);
int nub_import_file_end(struct nub_import *im);
/* Decide final modes (bin targets become executable), publish the files,
 * then the index under key. On success *out (if non-NULL) receives the
 * index. The import is freed either way. */
int nub_import_commit(struct nub_import *im, const char key[65],
                      struct nub_index **out, struct nub_err *err);
/* Discard everything staged; the store is unchanged. */
void nub_import_abort(struct nub_import *im);
/* Files staged as new content vs found already in the store. */
void nub_import_counts(const struct nub_import *im, uint64_t *fresh, uint64_t *present);

#endif
