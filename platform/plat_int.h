/* plat_int.h - internal to platform/: shared by the POSIX code and the per-OS
 * backends. Never included outside platform/. */
#ifndef NUB_PLAT_INT_H
#define NUB_PLAT_INT_H

#include <fcntl.h>

#include "nub_plat.h"

/* Map nub's "current directory" marker to the OS's AT_FDCWD. */
#define PD(d) ((d) == NUB_PLAT_CWD ? AT_FDCWD : (d))

/* Injected failures, one slot per primitive (0 = none); see nub_plat_inject_fault. */
extern int nub__plat_fault[NUB_PRIM__COUNT];
#ifdef NUB_FAULT_INJECTION
#define NUB_PLAT_FAULT(p)                 \
  do {                                    \
    if (nub__plat_fault[(p)] != 0)        \
      return nub__plat_fault[(p)];        \
  } while (0)
#else /* a build without tests has no fault table to consult */
#define NUB_PLAT_FAULT(p) ((void)0)
#endif

/* npm's name for this CPU ("x64", "arm64"). */
const char *nub__plat_npm_cpu(void);

/* rename without replace where the kernel call is missing: link+unlink for
 * files, a checked rename for directories (plat_posix.c). */
int nub__plat_rename_noreplace_fallback(int sdir, const char *from, int ddir,
                                        const char *to);

/* nub_plat_newfile_* with a temp name in nf->stage_dir (plat_posix.c). */
int nub__plat_newfile_named_open(struct nub_plat_newfile *nf, int stage_dir,
                                 unsigned mode);
int nub__plat_newfile_named_publish(struct nub_plat_newfile *nf, int dir, const char *path,
                                    int (*rename_noreplace)(int, const char *, int,
                                                            const char *));
/* Copy sdir/src to a new ddir/dst (mode) through fn (a backend's copy of
 * one open file into another): what the backends' *_at copies share. */
int nub__plat_copy_at(int (*fn)(int, int, uint64_t), int sdir, const char *src, int ddir,
                      const char *dst, unsigned mode, uint64_t size);
int nub__plat_newfile_named_replace(struct nub_plat_newfile *nf, int dir,
                                    const char *path);
/* A temp name for nf in nf->stage_dir ("nf.<pid>.<n>"). */
void nub__plat_newfile_tmpname(struct nub_plat_newfile *nf);

/* errno as a negative value (never 0, even if errno was clobbered). */
int nub__plat_neg_errno(void);
/* nub_plat_dirstamp_at from a whole stat: macOS's, and Linux's where statx
 * cannot answer the fields asked for. */
int nub__plat_dirstamp_stat(int dir, const char *path, uint64_t *ctime_ns, uint64_t *ino);

#endif
