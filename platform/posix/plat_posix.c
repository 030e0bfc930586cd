/* plat_posix.c - the part of the OS contract that POSIX gives both Linux and
 * macOS: hard links, portable copies, names, directories, files, locks,
 * processes, the link probe and fault injection. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../nub_alloc.h"
#include "../plat_int.h"

extern char **environ;

int nub__plat_fault[NUB_PRIM__COUNT];

int nub__plat_neg_errno(void) { return errno ? -errno : -EIO; }

/* ---- names, classification, faults ------------------------------------ */

const char *nub_plat_prim_name(enum nub_prim p)
{
  static const char *const names[] = {
#define X(e, s) s,
    NUB_PRIM_MAP(X)
#undef X
  };
  return (unsigned)p < NUB_PRIM__COUNT ? names[p] : "unknown";
}

bool nub_plat_is_fallback(enum nub_prim p, int rc)
{
  int e = -rc;

  if (rc >= 0)
    return false;
  /* ENOTSUP and EOPNOTSUPP are the same value on Linux and differ on macOS,
   * hence if-chains rather than a switch. */
  if (e == EXDEV || e == EOPNOTSUPP || e == ENOTSUP || e == ENOSYS)
    return true;
  switch (p) {
  case NUB_PRIM_HARDLINK:
    /* EMLINK: the store inode hit the link cap; EPERM: the file system (FUSE,
     * protected_hardlinks) refuses links. */
    return e == EMLINK || e == EPERM;
  case NUB_PRIM_REFLINK:
  case NUB_PRIM_CLONEDIR:
    /* FICLONE answers EINVAL on file systems without clones and ENOTTY where
     * the ioctl is unknown; LXC-on-ZFS and Android answer EPERM. */
    return e == EINVAL || e == ENOTTY || e == EPERM;
  case NUB_PRIM_COPY_RANGE:
    /* eCryptfs answers EINVAL, old CephFS EACCES. */
    return e == EINVAL || e == EACCES || e == EPERM;
  case NUB_PRIM_SMALL_COPY:
  case NUB_PRIM_COPY:
  case NUB_PRIM__COUNT:
    break;
  }
  return false;
}

void nub_plat_inject_fault(enum nub_prim p, int rc)
{
  if ((unsigned)p < NUB_PRIM__COUNT)
    nub__plat_fault[p] = rc;
}

static int errno_by_name(const char *s, size_t n)
{
  static const struct { const char *name; int e; } tab[] = {
    {"EXDEV", EXDEV},   {"EOPNOTSUPP", EOPNOTSUPP}, {"ENOTSUP", ENOTSUP},
    {"ENOSYS", ENOSYS}, {"EMLINK", EMLINK},         {"EPERM", EPERM},
    {"EINVAL", EINVAL}, {"ENOSPC", ENOSPC},         {"EIO", EIO},
    {"EACCES", EACCES}, {"ENOTTY", ENOTTY},
  };
  for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
    if (strlen(tab[i].name) == n && !strncmp(tab[i].name, s, n))
      return tab[i].e;
  return 0;
}

void nub_plat_init(void)
{
#ifdef NUB_FAULT_INJECTION
  const char *spec = getenv("NUB_PLAT_FAULT");
#else
  const char *spec = NULL;
#endif

  while (spec && *spec) {
    const char *end = strchr(spec, ',');
    const char *eq = strchr(spec, '=');
    size_t len = end ? (size_t)(end - spec) : strlen(spec);

    if (eq && eq < spec + len) {
      for (int p = 0; p < NUB_PRIM__COUNT; p++) {
        const char *name = nub_plat_prim_name((enum nub_prim)p);
        if (strlen(name) == (size_t)(eq - spec) &&
            !strncmp(name, spec, (size_t)(eq - spec))) {
          int e = errno_by_name(eq + 1, (size_t)(spec + len - eq - 1));
          if (e)
            nub__plat_fault[p] = -e;
        }
      }
    }
    spec = end ? end + 1 : NULL;
  }
}

/* npm's name for the CPU this build runs on (process.arch). */
const char *nub__plat_npm_cpu(void)
{
#if defined(__x86_64__)
  return "x64";
#elif defined(__aarch64__)
  return "arm64";
#elif defined(__i386__)
  return "ia32";
#elif defined(__arm__)
  return "arm";
#elif defined(__powerpc64__)
  return "ppc64";
#elif defined(__s390x__)
  return "s390x";
#elif defined(__riscv) && __riscv_xlen == 64
  return "riscv64";
#else
  return "unknown";
#endif
}

/* ---- time ------------------------------------------------------------- */

uint64_t nub_plat_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- link primitives shared by both OSes ------------------------------ */

int nub_plat_hardlink_at(int sdir, const char *src, int ddir, const char *dst)
{
  NUB_PLAT_FAULT(NUB_PRIM_HARDLINK);
  if (linkat(PD(sdir), src, PD(ddir), dst, 0) < 0)
    return nub__plat_neg_errno();
  return 0;
}

int nub_plat_copy_stream_fd(int sfd, int dfd, uint64_t len)
{
  char buf[65536];
  uint64_t done = 0;

  NUB_PLAT_FAULT(NUB_PRIM_COPY);
  while (done < len) {
    size_t want = len - done < sizeof(buf) ? (size_t)(len - done) : sizeof(buf);
    ssize_t n = pread(sfd, buf, want, (off_t)done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return nub__plat_neg_errno();
    }
    if (n == 0)
      return -EIO; /* the source shrank under us */
    int rc = nub_plat_write_all(dfd, buf, (size_t)n);
    if (rc < 0)
      return rc;
    done += (uint64_t)n;
  }
  return 0;
}

int nub__plat_copy_at(int (*fn)(int, int, uint64_t), int sdir, const char *src, int ddir,
                      const char *dst, unsigned mode, uint64_t size)
{
  int sfd, dfd, rc;

  sfd = openat(PD(sdir), src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (sfd < 0)
    return nub__plat_neg_errno();
  dfd = openat(PD(ddir), dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
               (mode_t)mode);
  if (dfd < 0) {
    rc = nub__plat_neg_errno();
    close(sfd);
    return rc;
  }
  rc = fn(sfd, dfd, size);
  close(sfd);
  if (close(dfd) < 0 && rc == 0)
    rc = nub__plat_neg_errno();
  if (rc < 0)
    unlinkat(PD(ddir), dst, 0);
  return rc;
}

int nub_plat_copy_stream_at(int sdir, const char *src, int ddir,
                            const char *dst, unsigned mode, uint64_t size)
{
  NUB_PLAT_FAULT(NUB_PRIM_COPY);
  return nub__plat_copy_at(nub_plat_copy_stream_fd, sdir, src, ddir, dst, mode, size);
}

/* ---- names and directories -------------------------------------------- */

int nub_plat_symlink_at(const char *target, int ddir, const char *path)
{
  if (symlinkat(target, PD(ddir), path) < 0)
    return nub__plat_neg_errno();
  return 0;
}

int nub__plat_rename_noreplace_fallback(int sdir, const char *from, int ddir,
                                        const char *to)
{
  struct stat st;

  /* Fallback: link+unlink never replaces a file; rename(2) of a directory
   * refuses a non-empty target, and an empty one is no loss. */
  if (fstatat(PD(sdir), from, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return nub__plat_neg_errno();
  if (!S_ISDIR(st.st_mode)) {
    if (linkat(PD(sdir), from, PD(ddir), to, 0) < 0)
      return nub__plat_neg_errno();
    unlinkat(PD(sdir), from, 0);
    return 0;
  }
  if (fstatat(PD(ddir), to, &st, AT_SYMLINK_NOFOLLOW) == 0)
    return -EEXIST;
  if (renameat(PD(sdir), from, PD(ddir), to) < 0)
    return nub__plat_neg_errno();
  return 0;
}

int nub_plat_rename_at(int sdir, const char *from, int ddir, const char *to)
{
  if (renameat(PD(sdir), from, PD(ddir), to) < 0)
    return nub__plat_neg_errno();
  return 0;
}

int nub_plat_mkdir_at(int dir, const char *path, unsigned mode)
{
  if (mkdirat(PD(dir), path, (mode_t)mode) < 0)
    return nub__plat_neg_errno();
  return 0;
}

int nub_plat_mkdir_p(const char *path, unsigned mode)
{
  char buf[4096];
  size_t len = strlen(path);
  struct stat st;

  if (len == 0 || len >= sizeof(buf))
    return len ? -ENAMETOOLONG : -ENOENT;
  if (mkdir(path, (mode_t)mode) == 0)
    return 0;
  if (errno == EEXIST)
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
  if (errno != ENOENT)
    return nub__plat_neg_errno();
  memcpy(buf, path, len + 1);
  for (size_t i = 1; i < len; i++) {
    if (buf[i] != '/')
      continue;
    buf[i] = '\0';
    if (mkdir(buf, (mode_t)mode) < 0 && errno != EEXIST) {
      buf[i] = '/';
      return nub__plat_neg_errno();
    }
    buf[i] = '/';
  }
  if (mkdir(buf, (mode_t)mode) < 0 && errno != EEXIST)
    return nub__plat_neg_errno();
  return 0;
}

int nub_plat_open_dir_at(int dir, const char *path)
{
  int fd = openat(PD(dir), path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  return fd < 0 ? nub__plat_neg_errno() : fd;
}

int nub_plat_close(int fd)
{
  if (fd >= 0 && close(fd) < 0)
    return nub__plat_neg_errno();
  return 0;
}

int nub_plat_unlink_at(int dir, const char *path, bool is_dir)
{
  if (unlinkat(PD(dir), path, is_dir ? AT_REMOVEDIR : 0) < 0)
    return nub__plat_neg_errno();
  return 0;
}

static int rm_tree_fd(int dfd)
{
  DIR *d = fdopendir(dfd);
  struct dirent *de;
  int rc = 0;

  if (!d) {
    rc = nub__plat_neg_errno();
    close(dfd);
    return rc;
  }
  while ((de = readdir(d)) != NULL) {
    const char *n = de->d_name;
    if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
      continue;
    if (unlinkat(dirfd(d), n, 0) == 0)
      continue;
    if (errno == EISDIR || errno == EPERM) {
      int sub = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                        O_CLOEXEC);
      if (sub < 0) {
        rc = nub__plat_neg_errno();
        break;
      }
      rc = rm_tree_fd(sub);
      if (rc < 0)
        break;
      if (unlinkat(dirfd(d), n, AT_REMOVEDIR) < 0 && errno != ENOENT) {
        rc = nub__plat_neg_errno();
        break;
      }
    } else if (errno != ENOENT) {
      rc = nub__plat_neg_errno();
      break;
    }
  }
  closedir(d);
  return rc;
}

int nub_plat_rm_rf_at(int dir, const char *path)
{
  int fd, rc;

  if (unlinkat(PD(dir), path, 0) == 0 || errno == ENOENT)
    return 0;
  if (errno != EISDIR && errno != EPERM)
    return nub__plat_neg_errno();
  fd = openat(PD(dir), path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT ? 0 : nub__plat_neg_errno();
  rc = rm_tree_fd(fd);
  if (rc < 0)
    return rc;
  if (unlinkat(PD(dir), path, AT_REMOVEDIR) < 0 && errno != ENOENT)
    return nub__plat_neg_errno();
  return 0;
}

int nub_plat_rm_rf(const char *path) { return nub_plat_rm_rf_at(NUB_PLAT_CWD, path); }

static enum nub_plat_ftype ftype_of(mode_t m)
{
  if (S_ISREG(m))
    return NUB_FT_FILE;
  if (S_ISDIR(m))
    return NUB_FT_DIR;
  if (S_ISLNK(m))
    return NUB_FT_LINK;
  return NUB_FT_OTHER;
}

static void fill_stat(struct nub_plat_stat *out, const struct stat *st)
{
  out->type = ftype_of(st->st_mode);
  out->size = (uint64_t)st->st_size;
  out->dev = (uint64_t)st->st_dev;
  out->ino = (uint64_t)st->st_ino;
  out->nlink = (uint64_t)st->st_nlink;
  out->mode = (unsigned)(st->st_mode & 07777);
#if defined(__APPLE__)
  out->mtime_ns = (uint64_t)st->st_mtimespec.tv_sec * 1000000000ull +
                  (uint64_t)st->st_mtimespec.tv_nsec;
  out->ctime_ns = (uint64_t)st->st_ctimespec.tv_sec * 1000000000ull +
                  (uint64_t)st->st_ctimespec.tv_nsec;
#else
  out->mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000ull +
                  (uint64_t)st->st_mtim.tv_nsec;
  out->ctime_ns = (uint64_t)st->st_ctim.tv_sec * 1000000000ull +
                  (uint64_t)st->st_ctim.tv_nsec;
#endif
}

int nub_plat_stat_at(int dir, const char *path, struct nub_plat_stat *out)
{
  struct stat st;

  if (fstatat(PD(dir), path, &st, AT_SYMLINK_NOFOLLOW) < 0) {
    out->type = NUB_FT_NONE;
    return nub__plat_neg_errno();
  }
  fill_stat(out, &st);
  return 0;
}

int nub__plat_dirstamp_stat(int dir, const char *path, uint64_t *ctime_ns, uint64_t *ino)
{
  struct nub_plat_stat st;
  int rc = nub_plat_stat_at(dir, path, &st);

  if (rc < 0)
    return rc;
  if (st.type != NUB_FT_DIR)
    return -ENOTDIR;
  *ctime_ns = st.ctime_ns;
  *ino = st.ino;
  return 0;
}

int nub_plat_stat_follow_at(int dir, const char *path, struct nub_plat_stat *out)
{
  struct stat st;

  if (fstatat(PD(dir), path, &st, 0) < 0) {
    out->type = NUB_FT_NONE;
    return nub__plat_neg_errno();
  }
  fill_stat(out, &st);
  return 0;
}

int nub_plat_readlink_at(int dir, const char *path, char *buf, size_t cap)
{
  ssize_t n;

  if (cap == 0)
    return -ENAMETOOLONG;
  /* Offer the whole buffer: only a reply that fills it may be truncated, so a
   * target of exactly cap - 1 bytes still fits with its NUL. */
  n = readlinkat(PD(dir), path, buf, cap);
  if (n < 0)
    return nub__plat_neg_errno();
  if ((size_t)n >= cap)
    return -ENAMETOOLONG;
  buf[n] = '\0';
  return (int)n;
}

int nub_plat_chmod_at(int dir, const char *path, unsigned mode)
{
  if (fchmodat(PD(dir), path, (mode_t)mode, 0) < 0)
    return nub__plat_neg_errno();
  return 0;
}

int nub_plat_set_mtime_fd(int fd, int64_t sec)
{
  struct timespec ts[2] = {{0, UTIME_OMIT}, {(time_t)sec, 0}};

  if (futimens(fd, ts) < 0)
    return nub__plat_neg_errno();
  return 0;
}

/* ---- files ------------------------------------------------------------ */

int nub_plat_create_excl_at(int dir, const char *path, unsigned mode)
{
  int fd = openat(PD(dir), path,
                  O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                  (mode_t)mode);
  return fd < 0 ? nub__plat_neg_errno() : fd;
}

static unsigned newfile_seq;

void nub__plat_newfile_tmpname(struct nub_plat_newfile *nf)
{
  unsigned n = __atomic_fetch_add(&newfile_seq, 1, __ATOMIC_RELAXED);
  snprintf(nf->tmp, sizeof(nf->tmp), "nf.%ld.%u", (long)getpid(), n);
}

int nub__plat_newfile_named_open(struct nub_plat_newfile *nf, int stage_dir,
                                 unsigned mode)
{
  nub__plat_newfile_tmpname(nf);
  nf->fd = openat(PD(stage_dir), nf->tmp,
                  O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, (mode_t)mode);
  nf->stage_dir = stage_dir;
  if (nf->fd < 0) {
    nf->tmp[0] = '\0';
    return nub__plat_neg_errno();
  }
  return 0;
}

int nub__plat_newfile_named_publish(struct nub_plat_newfile *nf, int dir, const char *path,
                                    int (*rename_noreplace)(int, const char *, int,
                                                            const char *))
{
  int rc = close(nf->fd) < 0 ? nub__plat_neg_errno() : 0;

  nf->fd = -1;
  if (rc == 0)
    rc = rename_noreplace(nf->stage_dir, nf->tmp, dir, path);
  if (rc < 0)
    unlinkat(PD(nf->stage_dir), nf->tmp, 0);
  nf->tmp[0] = '\0';
  return rc;
}

int nub__plat_newfile_named_replace(struct nub_plat_newfile *nf, int dir,
                                    const char *path)
{
  int rc = close(nf->fd) < 0 ? nub__plat_neg_errno() : 0;

  nf->fd = -1;
  if (rc == 0 && renameat(PD(nf->stage_dir), nf->tmp, PD(dir), path) < 0)
    rc = nub__plat_neg_errno();
  if (rc < 0)
    unlinkat(PD(nf->stage_dir), nf->tmp, 0);
  nf->tmp[0] = '\0';
  return rc;
}

void nub_plat_newfile_discard(struct nub_plat_newfile *nf)
{
  if (nf->fd >= 0)
    close(nf->fd);
  if (nf->tmp[0])
    unlinkat(PD(nf->stage_dir), nf->tmp, 0);
  nf->fd = -1;
  nf->tmp[0] = '\0';
}

int nub_plat_open_read_at(int dir, const char *path)
{
  int fd = openat(PD(dir), path, O_RDONLY | O_CLOEXEC);
  return fd < 0 ? nub__plat_neg_errno() : fd;
}

int nub_plat_write_all(int fd, const void *buf, size_t len)
{
  const char *p = buf;

  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return nub__plat_neg_errno();
    }
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

int nub_plat_write_pipe(int fd, const void *buf, size_t len)
{
  sigset_t pipe_set, old, pending;
  int rc, sig;

  /* a reader gone is EPIPE here, not a SIGPIPE that ends nub: blocked for
   * the write, and the one it raised taken off (sigwait: macOS has no
   * sigtimedwait) */
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  rc = nub_plat_write_all(fd, buf, len);
  if (rc == -EPIPE && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE))
    sigwait(&pipe_set, &sig);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

long nub_plat_read(int fd, void *buf, size_t len)
{
  for (;;) {
    ssize_t n = read(fd, buf, len);
    if (n >= 0)
      return (long)n;
    if (errno != EINTR)
      return nub__plat_neg_errno();
  }
}

int nub_plat_read_file_at(int dir, const char *path, size_t max, char **out,
                          size_t *len)
{
  return nub_plat_read_file_stat_at(dir, path, max, out, len, NULL);
}

int nub_plat_read_file_stat_at(int dir, const char *path, size_t max, char **out,
                               size_t *len, struct nub_plat_stat *sto)
{
  struct stat st;
  int fd, rc = 0;
  size_t cap, got = 0;
  char *buf;

  /* O_NONBLOCK: opening a FIFO would otherwise wait for a writer (a FIFO
   * put in the store, or named package.json, hung the reader for good);
   * only regular files are read, and on those O_NONBLOCK changes nothing
   * (open(2)), so it stays set: clearing it cost two fcntl per file read */
  fd = openat(PD(dir), path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return nub__plat_neg_errno();
  if (fstat(fd, &st) < 0) {
    rc = nub__plat_neg_errno();
    close(fd);
    return rc;
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
  }
  if (sto)
    fill_stat(sto, &st);
  if ((uint64_t)st.st_size > max) {
    close(fd);
    return -EFBIG;
  }
  cap = (size_t)st.st_size + 1;
  buf = nub_malloc(cap);
  for (;;) {
    long n;
    if (got + 1 >= cap) {
      if (cap > max + 1) {
        rc = -EFBIG;
        break;
      }
      cap *= 2;
      buf = nub_realloc(buf, cap);
    }
    n = nub_plat_read(fd, buf + got, cap - 1 - got);
    if (n < 0) {
      rc = (int)n;
      break;
    }
    if (n == 0)
      break;
    got += (size_t)n;
    /* a regular file read up to its size: no growing, no read for EOF
     * (size 0 may mean "unknown", as in /proc: read on) */
    if (st.st_size > 0 && got == (size_t)st.st_size)
      break;
  }
  close(fd);
  if (rc < 0) {
    nub_free(buf);
    return rc;
  }
  buf[got] = '\0';
  *out = buf;
  if (len)
    *len = got;
  return 0;
}

int nub_plat_write_file_atomic(const char *path, const void *buf, size_t len,
                               unsigned mode)
{
  char tmp[4096];
  static unsigned counter;
  int fd, rc;
  int n = snprintf(tmp, sizeof(tmp), "%s.tmp-%d-%u", path, (int)getpid(),
                   __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));

  if (n < 0 || (size_t)n >= sizeof(tmp))
    return -ENAMETOOLONG;
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, (mode_t)mode);
  if (fd < 0)
    return nub__plat_neg_errno();
  rc = nub_plat_write_all(fd, buf, len);
  if (close(fd) < 0 && rc == 0)
    rc = nub__plat_neg_errno();
  if (rc == 0 && rename(tmp, path) < 0)
    rc = nub__plat_neg_errno();
  if (rc < 0)
    unlink(tmp);
  return rc;
}

int nub_plat_list_dir_at(int dir, const char *path, nub_plat_dirent_cb cb,
                         void *payload)
{
  int fd = openat(PD(dir), path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d;
  struct dirent *de;
  int rc = 0;

  if (fd < 0)
    return nub__plat_neg_errno();
  d = fdopendir(fd);
  if (!d) {
    rc = nub__plat_neg_errno();
    close(fd);
    return rc;
  }
  while ((de = readdir(d)) != NULL) {
    const char *n = de->d_name;
    enum nub_plat_ftype t = NUB_FT_OTHER;
    if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
      continue;
    switch (de->d_type) {
    case DT_REG: t = NUB_FT_FILE; break;
    case DT_DIR: t = NUB_FT_DIR; break;
    case DT_LNK: t = NUB_FT_LINK; break;
    case DT_UNKNOWN: {
      struct stat st;
      t = fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) == 0
              ? ftype_of(st.st_mode) : NUB_FT_OTHER;
      break;
    }
    default: break;
    }
    rc = cb(payload, n, t);
    if (rc != 0)
      break;
  }
  closedir(d);
  return rc;
}

/* ---- process ---------------------------------------------------------- */

static int lock_as(const char *path, bool wait, int *fd, int how)
{
  int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (f < 0)
    return nub__plat_neg_errno();
  for (;;) {
    if (flock(f, how | (wait ? 0 : LOCK_NB)) == 0)
      break;
    if (errno == EINTR)
      continue;
    int rc = errno == EWOULDBLOCK ? -EWOULDBLOCK : nub__plat_neg_errno();
    close(f);
    return rc;
  }
  *fd = f;
  return 0;
}

int nub_plat_lock(const char *path, bool wait, int *fd)
{
  return lock_as(path, wait, fd, LOCK_EX);
}

int nub_plat_lock_shared(const char *path, bool wait, int *fd)
{
  return lock_as(path, wait, fd, LOCK_SH);
}

void nub_plat_unlock(int fd)
{
  if (fd >= 0) {
    flock(fd, LOCK_UN);
    close(fd);
  }
}

bool nub_plat_isatty(int fd) { return isatty(fd) == 1; }
int nub_plat_pid(void) { return (int)getpid(); }

bool nub_plat_pid_alive(int pid)
{
  return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}
const char *nub_plat_getenv(const char *name) { return getenv(name); }

const char *nub_plat_home(void)
{
  const char *h = getenv("HOME");
  return h && *h ? h : NULL;
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
  if (interrupted) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  interrupted = sig;
}

void nub_plat_trap_interrupts(void)
{
  struct sigaction sa;

  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int nub_plat_interrupted(void) { return (int)interrupted; }

void nub_plat_raise_nofile(void)
{
  struct rlimit rl;

  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rlim_t want = rl.rlim_max;
    if (want == RLIM_INFINITY || want > 65536)
      want = 65536;
    if (want > rl.rlim_cur) {
      rl.rlim_cur = want;
      setrlimit(RLIMIT_NOFILE, &rl);
    }
  }
}

/* Children are forked under one lock, so that no fork falls between
 * another spawn's pipe() and the close-on-exec flags on its ends (macOS has
 * no pipe2): a child that inherited another's pipe would keep it open, and
 * its reader would wait for that child too. The lock is held for the fork
 * only, never while waiting. */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;

int nub_plat_spawn_wait(const char *const argv[], const char *cwd,
                        const char *const envp[])
{
  pid_t pid;
  int status, rc;

  /* posix_spawn has no portable chdir action; fork+exec keeps it simple. */
  pthread_mutex_lock(&fork_lock);
  pid = fork();
  if (pid != 0)
    pthread_mutex_unlock(&fork_lock);
  if (pid < 0)
    return nub__plat_neg_errno();
  if (pid == 0) {
    if (cwd && chdir(cwd) < 0)
      _exit(127);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (envp)
      execve(argv[0], (char *const *)argv, (char *const *)envp);
    else
      execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  for (;;) {
    rc = (int)waitpid(pid, &status, 0);
    if (rc >= 0)
      break;
    if (errno != EINTR)
      return nub__plat_neg_errno();
  }
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return 1;
}

int nub_plat_spawn_pipe(const char *const argv[], const char *cwd, const char *const envp[],
                        int *pid_out, int *fd_out)
{
  int p[2];
  pid_t pid;

  /* Both ends close on exec: another child started at the same time must
   * not keep this one's pipe open (fork_lock). The child's dup2 copies stay. */
  pthread_mutex_lock(&fork_lock);
  if (pipe(p) < 0) {
    int rc = nub__plat_neg_errno();
    pthread_mutex_unlock(&fork_lock);
    return rc;
  }
  fcntl(p[0], F_SETFD, FD_CLOEXEC);
  fcntl(p[1], F_SETFD, FD_CLOEXEC);
  pid = fork();
  if (pid != 0)
    pthread_mutex_unlock(&fork_lock);
  if (pid < 0) {
    int rc = nub__plat_neg_errno();
    close(p[0]);
    close(p[1]);
    return rc;
  }
  if (pid == 0) {
    close(p[0]);
    dup2(p[1], 1);
    dup2(p[1], 2);
    if (p[1] > 2)
      close(p[1]);
    if (cwd && chdir(cwd) < 0)
      _exit(127);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    execve(argv[0], (char *const *)argv, (char *const *)envp);
    _exit(127);
  }
  close(p[1]);
  *pid_out = (int)pid;
  *fd_out = p[0];
  return 0;
}

int nub_plat_spawn_duplex(const char *const argv[], const char *cwd, const char *const envp[],
                          int *pid_out, int *to_fd, int *from_fd)
{
  int in[2], out[2];
  pid_t pid;

  /* every end closes on exec, as in nub_plat_spawn_pipe */
  pthread_mutex_lock(&fork_lock);
  if (pipe(in) < 0) {
    int rc = nub__plat_neg_errno();
    pthread_mutex_unlock(&fork_lock);
    return rc;
  }
  if (pipe(out) < 0) {
    int rc = nub__plat_neg_errno();
    close(in[0]);
    close(in[1]);
    pthread_mutex_unlock(&fork_lock);
    return rc;
  }
  for (int i = 0; i < 2; i++) {
    fcntl(in[i], F_SETFD, FD_CLOEXEC);
    fcntl(out[i], F_SETFD, FD_CLOEXEC);
  }
  pid = fork();
  if (pid != 0)
    pthread_mutex_unlock(&fork_lock);
  if (pid < 0) {
    int rc = nub__plat_neg_errno();
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    return rc;
  }
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    if (cwd && chdir(cwd) < 0)
      _exit(127);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    execve(argv[0], (char *const *)argv, (char *const *)envp);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  *pid_out = (int)pid;
  *to_fd = in[1];
  *from_fd = out[0];
  return 0;
}

int nub_plat_wait_child(int pid)
{
  int status, rc;

  for (;;) {
    rc = (int)waitpid((pid_t)pid, &status, 0);
    if (rc >= 0)
      break;
    if (errno != EINTR)
      return nub__plat_neg_errno();
  }
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return 1;
}

char *nub_plat_realpath(const char *path)
{
  char *r = realpath(path, NULL), *out;

  if (!r)
    return NULL;
  out = nub_strdup(r);
  free(r); /* realpath's own malloc */
  return out;
}

int nub_plat_exec(const char *const argv[], const char *cwd, const char *const envp[])
{
  if (cwd && chdir(cwd) < 0)
    return nub__plat_neg_errno();
  fflush(NULL);
  if (strchr(argv[0], '/')) {
    execve(argv[0], (char *const *)argv, (char *const *)envp);
  } else {
    /* execvpe searches the PATH of this process; the script's is in envp */
    const char *path = NULL;
    for (size_t i = 0; envp && envp[i]; i++)
      if (!strncmp(envp[i], "PATH=", 5))
        path = envp[i] + 5;
    for (const char *p = path ? path : "/usr/bin:/bin"; p && *p;) {
      const char *e = strchr(p, ':');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      char full[4096];
      if (n && n + strlen(argv[0]) + 2 < sizeof(full)) {
        memcpy(full, p, n);
        full[n] = '/';
        memcpy(full + n + 1, argv[0], strlen(argv[0]) + 1);
        if (access(full, X_OK) == 0) {
          execve(full, (char *const *)argv, (char *const *)envp);
          return nub__plat_neg_errno();
        }
      }
      p = e ? e + 1 : NULL;
    }
    errno = ENOENT;
  }
  return nub__plat_neg_errno();
}

/* ---- shared libraries -------------------------------------------------- */

int nub_plat_load_library(const char *path, void **handle, char *msg, size_t cap)
{
  void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  const char *base = strrchr(path, '/');

  if (!h && base && base[1]) {
    /* The path is the library's place where nub was built; a distribution
     * may keep it in another libdir. Its file name is the soname, which the
     * dynamic loader finds in its own paths. The first error is the one
     * that names the configured path. */
    const char *e = dlerror();
    snprintf(msg, cap, "%s", e ? e : "unknown error");
    h = dlopen(base + 1, RTLD_LAZY | RTLD_LOCAL);
    if (!h)
      return -ENOENT;
  }
  if (!h) {
    const char *e = dlerror();
    snprintf(msg, cap, "%s", e ? e : "unknown error");
    return -ENOENT;
  }
  *handle = h;
  return 0;
}

void *nub_plat_symbol(void *handle, const char *name) { return dlsym(handle, name); }

/* ---- probe ------------------------------------------------------------ */

