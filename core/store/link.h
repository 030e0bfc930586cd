/* link.h - materialise a package from the store into a directory, file by
 * file through the primitive ladder of --package-import-method (or with one
 * whole-directory clone where the OS has it). The policy of which primitive
 * to try next lives here; platform/ only runs primitives.
 *
 * Ladders (a rung is skipped when the per-run probe found it unusable from
 * the store to the destination device, and stepped over for one file when it
 * fails with an error nub_plat_is_fallback accepts):
 *   auto:      Linux hardlink > copy_range > copy; macOS clonedir > reflink > copy_range > copy
 *   hardlink:  hardlink > copy_range > copy
 *   clone, clone-or-copy: clonedir (macOS) > reflink > copy_range > copy
 *   copy:      copy_range > copy
 * Every linked file emits one diag event named for the primitive that served
 * it (link_hardlink, link_reflink, link_copy, ...). */
#ifndef NUB_LINK_H
#define NUB_LINK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "diag.h"
#include "err.h"
#include "store.h"

#define NUB_LINK_MAX_RUNGS 6

struct nub_linker {
  struct nub_store *store;
  enum nub_prim ladder[NUB_LINK_MAX_RUNGS];
  int nrungs;
  bool small_copy;       /* macOS: copy files under 16 KiB instead of cloning */
  /* Rungs found unusable for this run (probe or EXDEV/ENOTSUP at run time),
   * with the error that ruled them out. Written under lock, read racily:
   * a stale read only costs one failed attempt. */
  bool off[NUB_PRIM__COUNT];
  int off_err[NUB_PRIM__COUNT];
  uint64_t probed_dev;
  bool probed;
  pthread_mutex_t lock;
  bool notice_printed;
  bool copies_across_devices; /* the probe found the store on another device */
  /* verify-store-integrity: each store file is stat'ed just before it is
   * linked (its inode is then hot for the link: about 6% of a warm hoisted
   * install, against 18% for a pass of its own). A file not at its size or
   * newer than its package's index is not linked; the package's key goes
   * into `changed` (under lock) and the link fails with -NUB_ESTORE, for
   * the driver to fetch it again and link once more. */
  bool verify;
  char (*changed)[65];
  size_t nchanged, capchanged;
};

/* Per-worker counters, summed by the caller into the diag tally. */
struct nub_link_stats {
  struct nub_diag_tally t;
  uint64_t files, dirs;
  bool quiet; /* store-internal work (trees): no per-file diag events */
};

/* Add a worker's counters into a total. */
void nub_link_stats_add(struct nub_link_stats *dst, const struct nub_link_stats *src);

int nub_linker_init(struct nub_linker *l, struct nub_store *s,
                    enum nub_import_method m);
void nub_linker_release(struct nub_linker *l);

/* Probe the store -> destination pair once per destination device (the
 * directory fd dst_dir is where packages will go). Rules out rungs that cannot
 * work there; copies_across_devices says when the install has to copy
 * because the store is on another file system. */
void nub_linker_probe(struct nub_linker *l, int dst_dir);

/* Materialise idx into the directory `name` under parent_fd. The directory
 * may already exist (empty, or created by a nested package); files must not.
 * `pkg` names the package in diag events and errors. */
int nub_link_package(struct nub_linker *l, const struct nub_index *idx,
                     int parent_fd, const char *name, const char *pkg,
                     struct nub_link_stats *st, struct nub_err *err);


/* Create a directory and its missing parents below dir (a relative path);
 * existing directories are fine. */
int nub_mkdirs_at(int dir, const char *path);

#endif
