/* nub_plat.h - the OS contract. The only header through which core/ and diag/
 * reach file-system primitives, clocks and resource usage.
 *
 * Conventions (mimalloc prim.h style):
 *  - Functions return 0 (or a documented non-negative value) on success and a raw
 *    negative errno on failure (-EEXIST, -EXDEV, ...). Nothing here prints.
 *  - No primitive falls back to another one. Which primitive to try next is policy
 *    that lives in core's linker; nub_plat_is_fallback() says whether an error
 *    means "this primitive cannot serve this file here" or is a real failure.
 *  - `*_at` functions take a directory fd (or NUB_PLAT_CWD) and a path relative to
 *    it, like openat(2). Destinations must not exist (-EEXIST) unless stated.
 *  - The build picks one backend: platform/linux or platform/macos, plus the
 *    POSIX code shared by both in platform/posix.
 */
#ifndef NUB_PLAT_H
#define NUB_PLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NUB_PLAT_CWD (-100) /* same value as AT_FDCWD on Linux; mapped on macOS */

/* Link primitives, in the order of the diag schema. X(enum, wire name). */
#define NUB_PRIM_MAP(X)                                                   \
  X(CLONEDIR, "clonedir")     /* macOS clonefile(2) of a whole directory */ \
  X(REFLINK, "reflink")       /* FICLONE / clonefile of one file */         \
  X(SMALL_COPY, "small_copy") /* macOS: small file copied, not cloned */    \
  X(COPY_RANGE, "copy_range") /* copy_file_range / fcopyfile */             \
  X(COPY, "copy")             /* portable read/write loop */                \
  X(HARDLINK, "hardlink")     /* linkat(2) */

enum nub_prim {
#define X(e, s) NUB_PRIM_##e,
  NUB_PRIM_MAP(X)
#undef X
  NUB_PRIM__COUNT
};

/* Stable wire name of a primitive ("reflink", "hardlink", ...). */
const char *nub_plat_prim_name(enum nub_prim p);

/* True when `rc` (a negative errno from primitive `p`) means "try the next
 * primitive": EXDEV, EOPNOTSUPP/ENOTSUP, ENOSYS, EMLINK (hardlink), EINVAL and
 * ENOTTY (clone on a file system without clones), EPERM where a file system
 * refuses the operation. Anything else (ENOENT, ENOSPC, EIO, EEXIST...) is a
 * real failure. */
bool nub_plat_is_fallback(enum nub_prim p, int rc);

struct nub_plat_caps {
  const char *os;       /* "linux" or "macos" */
  const char *npm_os;   /* the name npm's "os" field uses: "linux", "darwin" */
  const char *npm_cpu;  /* npm's "cpu" name: "x64", "arm64", ... */
  const char *libc;     /* "glibc", "musl" or NULL (npm's "libc" field) */
  int ncpu;             /* online CPUs, >= 1 */
  bool has_reflink;     /* the kernel has a file clone call */
  bool has_clonedir;    /* whole-directory clone (macOS clonefile) */
  bool has_copy_range;  /* in-kernel copy call */
};
void nub_plat_caps(struct nub_plat_caps *out);

/* ---- time and resource usage ------------------------------------------ */

uint64_t nub_plat_now_ns(void); /* monotonic */

enum nub_plat_who { NUB_RUSAGE_SELF, NUB_RUSAGE_THREAD };
struct nub_plat_rusage {
  uint64_t user_us, sys_us;
  uint64_t max_rss_bytes; /* bytes on every OS (Linux reports KiB) */
  uint64_t minflt, majflt, nvcsw, nivcsw, inblock, oublock;
};
/* THREAD is the calling thread (Linux RUSAGE_THREAD); -ENOTSUP where absent. */
int nub_plat_rusage(enum nub_plat_who who, struct nub_plat_rusage *out);

/* ---- link primitives (one file) --------------------------------------- */

/* linkat(2) without following symlinks. */
int nub_plat_hardlink_at(int sdir, const char *src, int ddir, const char *dst);

/* Copy-on-write clone of regular file src into new file dst with permission
 * bits `mode` (subject to the umask, like open(2)). Linux: O_EXCL create +
 * ioctl(FICLONE), the new file is removed on failure. macOS: clonefileat(2)
 * with CLONE_NOFOLLOW, then mode applied. */
int nub_plat_reflink_at(int sdir, const char *src, int ddir, const char *dst,
                        unsigned mode);
/* Same, from an open source fd (macOS fclonefileat(2)). */
int nub_plat_reflink_fd_at(int sfd, int ddir, const char *dst, unsigned mode);

/* In-kernel copy of `len` bytes from the start of sfd into the (empty) dfd.
 * Linux: copy_file_range(2) looped over short copies, the result size is
 * verified, ENOSYS is cached for the process. macOS: fcopyfile(3). */
int nub_plat_copy_range_fd(int sfd, int dfd, uint64_t len);
/* Portable read/write copy of `len` bytes; always available. */
int nub_plat_copy_stream_fd(int sfd, int dfd, uint64_t len);

/* File-level wrappers of the two copies: open src, create dst O_EXCL with
 * `mode`, copy, close; dst is removed on failure. `size` is src's size. */
int nub_plat_copy_range_at(int sdir, const char *src, int ddir, const char *dst,
                           unsigned mode, uint64_t size);
int nub_plat_copy_stream_at(int sdir, const char *src, int ddir,
                            const char *dst, unsigned mode, uint64_t size);

/* Clone a whole directory tree (macOS clonefileat(2) of a directory). dst must
 * not exist. -ENOTSUP where the OS has no directory clone (Linux). */
int nub_plat_clonedir_at(int sdir, const char *src, int ddir, const char *dst);

/* ---- directories, names, files ---------------------------------------- */

int nub_plat_symlink_at(const char *target, int ddir, const char *path);
/* Atomic publish that never overwrites: -EEXIST (or -ENOTEMPTY for a
 * directory) when `to` exists. renameat2(RENAME_NOREPLACE) / renamex_np
 * (RENAME_EXCL); where the file system lacks it, files use link+unlink and
 * directories a plain rename (which refuses a non-empty target). */
int nub_plat_rename_noreplace_at(int sdir, const char *from, int ddir,
                                 const char *to);
/* rename(2) that replaces `to`. */
int nub_plat_rename_at(int sdir, const char *from, int ddir, const char *to);
/* mkdirat(2); -EEXIST passes through. */
int nub_plat_mkdir_at(int dir, const char *path, unsigned mode);
/* Create `path` and missing parents; an existing directory is success. */
int nub_plat_mkdir_p(const char *path, unsigned mode);
/* Tell the file system that the directories created below `dir` start
 * independent hierarchies, so that it spreads them over its allocation
 * groups (ext4's Orlov allocator: FS_TOPDIR_FL) rather than packing them next
 * to the parent. A hint: -ENOTSUP where there is no such thing. */
int nub_plat_spread_hint(int dir);
/* Open a directory (O_DIRECTORY|O_CLOEXEC); returns the fd or -errno. */
int nub_plat_open_dir_at(int dir, const char *path);
int nub_plat_close(int fd);
int nub_plat_unlink_at(int dir, const char *path, bool is_dir);
/* Remove a tree; a missing path is success. Never follows symlinks. */
int nub_plat_rm_rf_at(int dir, const char *path);
int nub_plat_rm_rf(const char *path);

enum nub_plat_ftype { NUB_FT_NONE, NUB_FT_FILE, NUB_FT_DIR, NUB_FT_LINK,
                      NUB_FT_OTHER };
struct nub_plat_stat {
  enum nub_plat_ftype type;
  uint64_t size, dev, ino, nlink, mtime_ns;
  uint64_t ctime_ns; /* status change: also moves when the mtime is set back */
  unsigned mode; /* permission bits */
};
/* lstat-like (no follow). A missing path returns -ENOENT. */
int nub_plat_stat_at(int dir, const char *path, struct nub_plat_stat *out);
/* The status-change time and inode of the directory at path (no follow):
 * the one question the up-to-date check asks of every directory, so the
 * backends ask the kernel for those fields only (statx on Linux).
 * -ENOTDIR when path is something else, -ENOENT when it is missing. */
int nub_plat_dirstamp_at(int dir, const char *path, uint64_t *ctime_ns, uint64_t *ino);
/* stat that follows symlinks. */
int nub_plat_stat_follow_at(int dir, const char *path, struct nub_plat_stat *out);
/* readlinkat into buf (NUL-terminated); returns length or -errno. */
int nub_plat_readlink_at(int dir, const char *path, char *buf, size_t cap);
int nub_plat_chmod_at(int dir, const char *path, unsigned mode);
/* Set an open file's modification time (seconds since the epoch). */
int nub_plat_set_mtime_fd(int fd, int64_t sec);

/* Read a whole regular file into a fresh NUL-terminated buffer (caller
 * frees with nub_free). `max` caps the size (-EFBIG beyond). A directory is
 * -EISDIR, anything else that is not a regular file (a FIFO, a device)
 * -EINVAL, without waiting on it. */
int nub_plat_read_file_at(int dir, const char *path, size_t max, char **out,
                          size_t *len);
/* The same, and the file's stat as it was opened into *st. */
int nub_plat_read_file_stat_at(int dir, const char *path, size_t max, char **out,
                               size_t *len, struct nub_plat_stat *st);
/* Write a file atomically: temp file beside it, then rename over `path`. */
int nub_plat_write_file_atomic(const char *path, const void *buf, size_t len,
                               unsigned mode);
/* A file written before it has a name, then published under one at once,
 * never replacing anything: Linux makes it with O_TMPFILE and names it with
 * linkat(2) (no directory entry until then, nothing left after a crash);
 * elsewhere, or where the file system refuses O_TMPFILE, it is a temp name in
 * `stage_dir` renamed into place. `dir` must be on the file system the file
 * will be published on. Write through nf->fd. */
struct nub_plat_newfile {
  int fd;
  int stage_dir;
  char tmp[40]; /* its temp name in stage_dir; "" while unnamed (O_TMPFILE) */
};
int nub_plat_newfile_open(struct nub_plat_newfile *nf, int dir, int stage_dir,
                          unsigned mode);
/* Name the file dir/path and close it. -EEXIST when path exists (the new
 * file is then dropped). Always closes and clears nf. */
int nub_plat_newfile_publish(struct nub_plat_newfile *nf, int dir, const char *path);
/* Name the file dir/path, replacing whatever has that name, in one step
 * (rename(2)). Always closes and clears nf. */
int nub_plat_newfile_replace(struct nub_plat_newfile *nf, int dir, const char *path);
/* Drop an unpublished file. Safe on a cleared nf. */
void nub_plat_newfile_discard(struct nub_plat_newfile *nf);

/* Create a new file O_EXCL|O_WRONLY; returns fd or -errno. */
int nub_plat_create_excl_at(int dir, const char *path, unsigned mode);
int nub_plat_open_read_at(int dir, const char *path);
/* write(2) looped until done. */
int nub_plat_write_all(int fd, const void *buf, size_t len);
/* nub_plat_write_all to a pipe whose reader may be gone: -EPIPE then,
 * never a SIGPIPE. */
int nub_plat_write_pipe(int fd, const void *buf, size_t len);
/* read(2) once; returns bytes read (0 at EOF) or -errno. */
long nub_plat_read(int fd, void *buf, size_t len);

/* Directory listing: calls cb for each entry except "." and "..". A non-zero
 * return from cb stops the walk and is returned. */
typedef int (*nub_plat_dirent_cb)(void *payload, const char *name,
                                  enum nub_plat_ftype type);
int nub_plat_list_dir_at(int dir, const char *path, nub_plat_dirent_cb cb,
                         void *payload);

struct nub_plat_fsinfo {
  uint64_t dev;
  char fstype[32];     /* "ext4", "xfs", "btrfs", "apfs", "tmpfs", ... */
  bool case_sensitive; /* best effort */
};
int nub_plat_fs_info(const char *path, struct nub_plat_fsinfo *out);

/* ---- process ---------------------------------------------------------- */

/* Exclusive advisory lock on `path` (created if missing). With wait=false a
 * held lock returns -EWOULDBLOCK. On success *fd holds the lock until
 * nub_plat_unlock. */
int nub_plat_lock(const char *path, bool wait, int *fd);
/* The same lock taken shared: any number of holders, none while it is held
 * exclusively. */
int nub_plat_lock_shared(const char *path, bool wait, int *fd);
void nub_plat_unlock(int fd);
bool nub_plat_isatty(int fd);
int nub_plat_pid(void);
/* Whether a process with this pid exists (kill(pid, 0)). */
bool nub_plat_pid_alive(int pid);
/* Trap SIGINT and SIGTERM: the first one only sets a flag that long loops
 * poll (nub_plat_interrupted) so they can stop cleanly; a second one ends the
 * process at once with the default action. */
void nub_plat_trap_interrupts(void);
/* The signal number that interrupted the process, or 0. */
int nub_plat_interrupted(void);
/* Raise the soft open-file limit to the hard limit (best effort). */
void nub_plat_raise_nofile(void);
/* Value of an environment variable or NULL. */
const char *nub_plat_getenv(const char *name);
const char *nub_plat_home(void);
/* The per-user cache root: $XDG_CACHE_HOME or ~/.cache on Linux,
 * ~/Library/Caches on macOS. Caller frees. NULL if no home is known. */
char *nub_plat_cache_dir(void);
/* The canonical absolute path of `path` (symlinks followed; caller frees),
 * or NULL when it does not exist. */
char *nub_plat_realpath(const char *path);
/* Absolute path of the running executable (caller frees), or NULL. */
char *nub_plat_self_exe(void);
/* Run argv[0] with argv in `cwd`, environment `envp` (NULL = inherit), wait,
 * and return its exit status (0..255), 128+signal, or -errno. */
int nub_plat_spawn_wait(const char *const argv[], const char *cwd,
                        const char *const envp[]);
/* Start argv[0] in `cwd` with `envp`, its stdout and stderr into one pipe:
 * *pid and *fd (the read end; close it) are filled. 0 or -errno. Safe to
 * call from several threads at once: no child inherits another's pipe. */
int nub_plat_spawn_pipe(const char *const argv[], const char *cwd, const char *const envp[],
                        int *pid, int *fd);
/* Start argv[0] in `cwd` with `envp`, talking to it through two pipes:
 * *to_fd writes its stdin, *from_fd reads its stdout (close both); its
 * stderr is nub's. 0 or -errno. */
int nub_plat_spawn_duplex(const char *const argv[], const char *cwd, const char *const envp[],
                          int *pid, int *to_fd, int *from_fd);
/* Wait for a child started by nub_plat_spawn_pipe or _duplex: its exit status (0..255),
 * 128+signal, or -errno. */
int nub_plat_wait_child(int pid);
/* Replace this process with argv[0] (a path; with no '/' it is looked up on
 * envp's PATH) run in `cwd` with `envp`. Returns only on failure: -errno. */
int nub_plat_exec(const char *const argv[], const char *cwd, const char *const envp[]);

/* Load a shared library by path (dlopen with lazy binding, local symbols);
 * *handle receives it. When nothing loads from the path, its file name (the
 * soname) is tried in the loader's own paths, as a binary moved to another
 * libdir layout needs. -ENOENT with msg filled (dlerror, for the path) when
 * neither loads. */
int nub_plat_load_library(const char *path, void **handle, char *msg, size_t cap);
/* Address of a symbol in a loaded library, or NULL. */
void *nub_plat_symbol(void *handle, const char *name);

/* ---- probe ------------------------------------------------------------ */

/* Which primitives work from the store directory `store_dir` into `dst_dir`
 * (both open directory fds). Each primitive is tried once on a small temp
 * file; the verdict and errno are recorded. Leaves nothing behind. */
struct nub_plat_probe {
  bool works[NUB_PRIM__COUNT];
  int err[NUB_PRIM__COUNT]; /* negative errno of a failed try, else 0 */
  uint64_t src_dev, dst_dev;
};
int nub_plat_probe(int store_dir, int dst_dir, struct nub_plat_probe *out);

/* ---- fault injection (tests) ------------------------------------------ */
/* Only in builds configured with NUB_FAULT_INJECTION (the default when the
 * tests are built; -DNUB_TESTS=OFF builds leave it out). */

/* Make primitive `p` fail with `rc` (a negative errno) on every call, or stop
 * doing so with rc = 0. The env var NUB_PLAT_FAULT="hardlink=EXDEV,reflink=
 * EOPNOTSUPP" does the same at start-up (read by nub_plat_init). */
void nub_plat_inject_fault(enum nub_prim p, int rc);
/* Read NUB_PLAT_FAULT; call once at start-up. */
void nub_plat_init(void);

#endif
