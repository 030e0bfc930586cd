/* darwin_shim.h - just enough of Darwin for platform/macos/plat_macos.c to
 * compile and run on Linux (tests only; see platform/macos/darwin_sys.h).
 *
 * Each call keeps its Darwin contract (-1 + errno, the same flags and error
 * cases) so that the backend's control flow is what runs on a Mac; only the
 * mechanism underneath is Linux. Include this after the system headers: it
 * renames statfs, pathconf and getrusage with macros so that the Darwin
 * flavours (f_fstypename, _PC_CASE_SENSITIVE, ru_maxrss in bytes) replace
 * glibc's in the code that follows. */
#ifndef NUB_DARWIN_SHIM_H
#define NUB_DARWIN_SHIM_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <unistd.h>

/* ---- <sys/clonefile.h> --------------------------------------------------- */

#define CLONE_NOFOLLOW 0x0001    /* clone a symlink src itself */
#define CLONE_NOOWNERCOPY 0x0002 /* don't copy ownership */
#define CLONE_ACL 0x0004         /* copy the ACL (ignored: none on Linux) */

/* Files: FICLONE where the file system has it, else a byte copy (APFS always
 * clones, so the backend never sees ENOTSUP from the shim). Directories: the
 * whole tree. dst must not exist (EEXIST); src and dst on different devices
 * give EXDEV. Mode bits and timestamps come from src, as on APFS. */
int clonefile(const char *src, const char *dst, uint32_t flags);
int clonefileat(int src_dirfd, const char *src, int dst_dirfd, const char *dst,
                uint32_t flags);
int fclonefileat(int srcfd, int dst_dirfd, const char *dst, uint32_t flags);

/* ---- <copyfile.h> -------------------------------------------------------- */

typedef struct nub_shim_copyfile_state *copyfile_state_t;
typedef uint32_t copyfile_flags_t;
#define COPYFILE_ACL (1 << 0)
#define COPYFILE_STAT (1 << 1)
#define COPYFILE_XATTR (1 << 2)
#define COPYFILE_DATA (1 << 3)
#define COPYFILE_SECURITY (COPYFILE_STAT | COPYFILE_ACL)
#define COPYFILE_METADATA (COPYFILE_SECURITY | COPYFILE_XATTR)
#define COPYFILE_ALL (COPYFILE_METADATA | COPYFILE_DATA)

/* COPYFILE_DATA copies from the current offset of `from` to the current
 * offset of `to` (Darwin's copyfile_data is a read/write loop on the fds);
 * COPYFILE_STAT copies the mode bits. ACL/XATTR are accepted and ignored. */
int fcopyfile(int from, int to, copyfile_state_t state, copyfile_flags_t flags);

/* ---- <stdio.h> renamex_np ------------------------------------------------ */

#define RENAME_SWAP 0x00000002
#define RENAME_EXCL 0x00000004
/* RENAME_EXCL -> renameat2(RENAME_NOREPLACE), RENAME_SWAP -> RENAME_EXCHANGE. */
int renameatx_np(int fromfd, const char *from, int tofd, const char *to,
                 unsigned int flags);
int renamex_np(const char *from, const char *to, unsigned int flags);

/* ---- <sys/mount.h> statfs ------------------------------------------------ */

#define MFSTYPENAMELEN 16
struct nub_shim_statfs {
  uint32_t f_bsize;
  uint64_t f_blocks, f_bfree, f_bavail, f_files, f_ffree;
  uint32_t f_type;
  char f_fstypename[MFSTYPENAMELEN]; /* "ext4", "xfs", ... never empty */
};
int nub_shim_statfs(const char *path, struct nub_shim_statfs *buf);

/* ---- <unistd.h> pathconf ------------------------------------------------- */

/* Darwin-only names, far from glibc's enum so a leak to the real pathconf
 * fails (EINVAL) instead of answering another question. */
#define _PC_CASE_SENSITIVE 0x4e5501
#define _PC_CASE_PRESERVING 0x4e5502
long nub_shim_pathconf(const char *path, int name);

/* ---- <sys/resource.h> getrusage ------------------------------------------ */

/* Darwin reports ru_maxrss in bytes, Linux in KiB. */
int nub_shim_getrusage(int who, struct rusage *ru);

/* ---- <mach-o/dyld.h> ----------------------------------------------------- */

/* 0 on success; -1 with *bufsize set to the size needed when buf is short. */
int _NSGetExecutablePath(char *buf, uint32_t *bufsize);

#ifndef NUB_DARWIN_SHIM_IMPL
#define statfs nub_shim_statfs
#define pathconf nub_shim_pathconf
#undef getrusage
#define getrusage nub_shim_getrusage
#endif

#endif
