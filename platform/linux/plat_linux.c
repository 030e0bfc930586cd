/* plat_linux.c - the Linux backend: FICLONE, copy_file_range, renameat2,
 * statfs magic numbers, getrusage (KiB -> bytes, RUSAGE_THREAD). */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../nub_alloc.h"
#include "../plat_int.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

void nub_plat_caps(struct nub_plat_caps *out)
{
  long n = sysconf(_SC_NPROCESSORS_ONLN);

  memset(out, 0, sizeof(*out));
  out->os = "linux";
  out->npm_os = "linux";
  out->npm_cpu = nub__plat_npm_cpu();
  {
    /* musl systems carry its dynamic loader; glibc ones do not */
    struct stat st;
    out->libc = stat("/lib/ld-musl-x86_64.so.1", &st) == 0 ||
                        stat("/lib/ld-musl-aarch64.so.1", &st) == 0
                    ? "musl"
                    : "glibc";
  }
  out->ncpu = n > 0 ? (int)n : 1;
  out->has_reflink = true; /* FICLONE exists; the file system decides */
  out->has_clonedir = false;
  out->has_copy_range = true;
}

int nub_plat_rusage(enum nub_plat_who who, struct nub_plat_rusage *out)
{
  struct rusage ru;

  if (getrusage(who == NUB_RUSAGE_THREAD ? RUSAGE_THREAD : RUSAGE_SELF, &ru) < 0)
    return nub__plat_neg_errno();
  out->user_us = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec;
  out->sys_us = (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
  out->max_rss_bytes = (uint64_t)ru.ru_maxrss * 1024u; /* Linux: KiB */
  out->minflt = (uint64_t)ru.ru_minflt;
  out->majflt = (uint64_t)ru.ru_majflt;
  out->nvcsw = (uint64_t)ru.ru_nvcsw;
  out->nivcsw = (uint64_t)ru.ru_nivcsw;
  out->inblock = (uint64_t)ru.ru_inblock;
  out->oublock = (uint64_t)ru.ru_oublock;
  return 0;
}

int nub_plat_reflink_fd_at(int sfd, int ddir, const char *dst, unsigned mode)
{
  int dfd, rc = 0;

  NUB_PLAT_FAULT(NUB_PRIM_REFLINK);
  dfd = openat(PD(ddir), dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
               (mode_t)mode);
  if (dfd < 0)
    return nub__plat_neg_errno();
  if (ioctl(dfd, FICLONE, sfd) < 0)
    rc = nub__plat_neg_errno();
  if (close(dfd) < 0 && rc == 0)
    rc = nub__plat_neg_errno();
  if (rc < 0)
    unlinkat(PD(ddir), dst, 0);
  return rc;
}

int nub_plat_reflink_at(int sdir, const char *src, int ddir, const char *dst,
                        unsigned mode)
{
  int sfd, rc;

  NUB_PLAT_FAULT(NUB_PRIM_REFLINK);
  sfd = openat(PD(sdir), src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (sfd < 0)
    return nub__plat_neg_errno();
  rc = nub_plat_reflink_fd_at(sfd, ddir, dst, mode);
  close(sfd);
  return rc;
}

/* ENOSYS from copy_file_range is a property of the kernel: remember it. */
static int copy_range_enosys;

int nub_plat_copy_range_fd(int sfd, int dfd, uint64_t len)
{
  uint64_t done = 0;
  /* Explicit offsets: the copy starts at byte 0 of sfd (and dfd) whatever
   * the fds' positions, e.g. after the source was read for its hash. */
  loff_t in_off = 0, out_off = 0;

  NUB_PLAT_FAULT(NUB_PRIM_COPY_RANGE);
  if (__atomic_load_n(&copy_range_enosys, __ATOMIC_RELAXED))
    return -ENOSYS;
  while (done < len) {
    size_t chunk = len - done > (1u << 30) ? (1u << 30) : (size_t)(len - done);
    ssize_t n = copy_file_range(sfd, &in_off, dfd, &out_off, chunk, 0);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      if (errno == ENOSYS)
        __atomic_store_n(&copy_range_enosys, 1, __ATOMIC_RELAXED);
      return nub__plat_neg_errno();
    }
    /* 0 before the expected end: procfs-like sources and some overlayfs
     * kernels copy nothing. Report it so the caller takes the next rung. */
    if (n == 0)
      return done == 0 ? -EINVAL : -EIO;
    done += (uint64_t)n;
  }
  {
    struct stat st;
    if (fstat(dfd, &st) < 0)
      return nub__plat_neg_errno();
    if ((uint64_t)st.st_size != len)
      return -EIO;
  }
  return 0;
}

int nub_plat_clonedir_at(int sdir, const char *src, int ddir, const char *dst)
{
  (void)sdir;
  (void)src;
  (void)ddir;
  (void)dst;
  NUB_PLAT_FAULT(NUB_PRIM_CLONEDIR);
  return -ENOTSUP;
}

/* Cached when the file system answers EINVAL (no RENAME_NOREPLACE support). */
static int noreplace_unsupported;

int nub_plat_rename_noreplace_at(int sdir, const char *from, int ddir,
                                 const char *to)
{
  if (!__atomic_load_n(&noreplace_unsupported, __ATOMIC_RELAXED)) {
    if (syscall(SYS_renameat2, PD(sdir), from, PD(ddir), to,
                RENAME_NOREPLACE) == 0)
      return 0;
    if (errno != EINVAL && errno != ENOSYS)
      return nub__plat_neg_errno();
    __atomic_store_n(&noreplace_unsupported, 1, __ATOMIC_RELAXED);
  }
  return nub__plat_rename_noreplace_fallback(sdir, from, ddir, to);
}

/* How an O_TMPFILE file gets its name: linkat(AT_EMPTY_PATH) needs
 * CAP_DAC_READ_SEARCH, the /proc/self/fd path does not but needs /proc.
 * 0 = not tried yet; cached, like noreplace_unsupported. */
enum { TMPF_UNKNOWN, TMPF_EMPTY_PATH, TMPF_PROC, TMPF_NONE };
static int tmpfile_link_how;
static int tmpfile_unsupported; /* the file system refused O_TMPFILE */

int nub_plat_newfile_open(struct nub_plat_newfile *nf, int dir, int stage_dir,
                          unsigned mode)
{
  nf->stage_dir = stage_dir;
  nf->tmp[0] = '\0';
  if (!__atomic_load_n(&tmpfile_unsupported, __ATOMIC_RELAXED) &&
      __atomic_load_n(&tmpfile_link_how, __ATOMIC_RELAXED) != TMPF_NONE) {
    nf->fd = openat(PD(dir), ".", O_TMPFILE | O_RDWR | O_CLOEXEC, (mode_t)mode);
    if (nf->fd >= 0)
      return 0;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
      return nub__plat_neg_errno();
    __atomic_store_n(&tmpfile_unsupported, 1, __ATOMIC_RELAXED);
  }
  return nub__plat_newfile_named_open(nf, stage_dir, mode);
}

static int link_tmpfile(int fd, int dir, const char *path)
{
  int how = __atomic_load_n(&tmpfile_link_how, __ATOMIC_RELAXED);
  char proc[40];

  if (how == TMPF_UNKNOWN || how == TMPF_EMPTY_PATH) {
    if (linkat(fd, "", PD(dir), path, AT_EMPTY_PATH) == 0) {
      __atomic_store_n(&tmpfile_link_how, TMPF_EMPTY_PATH, __ATOMIC_RELAXED);
      return 0;
    }
    if (errno != EPERM && errno != ENOENT && errno != EINVAL)
      return nub__plat_neg_errno();
    /* ENOENT here is "no capability" only if the target dir exists; the
     * /proc attempt below tells the two apart. */
  }
  snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
  if (linkat(AT_FDCWD, proc, PD(dir), path, AT_SYMLINK_FOLLOW) == 0) {
    __atomic_store_n(&tmpfile_link_how, TMPF_PROC, __ATOMIC_RELAXED);
    return 0;
  }
  if (errno == ENOENT && access("/proc/self/fd", X_OK) != 0) {
    __atomic_store_n(&tmpfile_link_how, TMPF_NONE, __ATOMIC_RELAXED);
    return -ENOTSUP;
  }
  return nub__plat_neg_errno();
}

/* No way to name an O_TMPFILE file here: copy it into a named one in the
 * stage directory. */
static int copy_to_named(struct nub_plat_newfile *nf, struct nub_plat_newfile *named)
{
  char buf[65536];
  off_t off = 0;
  ssize_t n;
  int rc = nub__plat_newfile_named_open(named, nf->stage_dir, 0644);

  if (rc < 0)
    return rc;
  {
    struct stat st;
    if (fstat(nf->fd, &st) == 0)
      fchmod(named->fd, st.st_mode & 07777);
  }
  while ((n = pread(nf->fd, buf, sizeof(buf), off)) > 0) {
    rc = nub_plat_write_all(named->fd, buf, (size_t)n);
    if (rc < 0)
      break;
    off += n;
  }
  if (n < 0)
    rc = nub__plat_neg_errno();
  if (rc < 0)
    nub_plat_newfile_discard(named);
  return rc;
}

/* Give an unnamed file its temp name in the stage directory. */
static int name_in_stage(struct nub_plat_newfile *nf)
{
  int rc;

  nub__plat_newfile_tmpname(nf);
  rc = link_tmpfile(nf->fd, nf->stage_dir, nf->tmp);
  if (rc == -ENOTSUP) {
    struct nub_plat_newfile named;
    rc = copy_to_named(nf, &named);
    if (rc == 0) {
      close(nf->fd);
      *nf = named;
      return 0;
    }
  }
  if (rc < 0)
    nf->tmp[0] = '\0';
  return rc;
}

int nub_plat_newfile_replace(struct nub_plat_newfile *nf, int dir, const char *path)
{
  if (!nf->tmp[0]) { /* linkat cannot replace: a temp name, then rename */
    int rc = name_in_stage(nf);
    if (rc < 0) {
      nub_plat_newfile_discard(nf);
      return rc;
    }
  }
  return nub__plat_newfile_named_replace(nf, dir, path);
}

int nub_plat_newfile_publish(struct nub_plat_newfile *nf, int dir, const char *path)
{
  int rc;

  if (nf->tmp[0])
    return nub__plat_newfile_named_publish(nf, dir, path, nub_plat_rename_noreplace_at);
  rc = link_tmpfile(nf->fd, dir, path);
  if (rc == -ENOTSUP) {
    rc = name_in_stage(nf);
    if (rc == 0)
      return nub__plat_newfile_named_publish(nf, dir, path, nub_plat_rename_noreplace_at);
  }
  close(nf->fd);
  nf->fd = -1;
  return rc;
}

int nub_plat_spread_hint(int dir)
{
  int flags = 0;

  if (ioctl(dir, FS_IOC_GETFLAGS, &flags) < 0)
    return nub__plat_neg_errno();
  if (flags & FS_TOPDIR_FL)
    return 0;
  flags |= FS_TOPDIR_FL;
  if (ioctl(dir, FS_IOC_SETFLAGS, &flags) < 0)
    return nub__plat_neg_errno();
  return 0;
}

static const char *fs_name(unsigned long magic)
{
  switch (magic) {
  case 0xEF53: return "ext4";
  case 0x58465342: return "xfs";
  case 0x9123683E: return "btrfs";
  case 0x01021994: return "tmpfs";
  case 0x794c7630: return "overlayfs";
  case 0x6969: return "nfs";
  case 0x2fc12fc1: return "zfs";
  case 0xF2F52010: return "f2fs";
  case 0xca451a4e: return "bcachefs";
  case 0x65735546: return "fuse";
  case 0xFF534D42: return "cifs";
  case 0x5346544e: return "ntfs";
  case 0x4d44: return "vfat";
  default: return "unknown";
  }
}

int nub_plat_fs_info(const char *path, struct nub_plat_fsinfo *out)
{
  struct statfs sf;
  struct stat st;

  memset(out, 0, sizeof(*out));
  if (statfs(path, &sf) < 0 || stat(path, &st) < 0)
    return nub__plat_neg_errno();
  out->dev = (uint64_t)st.st_dev;
  snprintf(out->fstype, sizeof(out->fstype), "%s",
           fs_name((unsigned long)sf.f_type));
  out->case_sensitive = sf.f_type != 0x4d44 && sf.f_type != 0x5346544e;
  return 0;
}

char *nub_plat_cache_dir(void)
{
  const char *x = getenv("XDG_CACHE_HOME");
  const char *h = nub_plat_home();

  if (x && x[0] == '/')
    return nub_strdup(x);
  return h ? nub_asprintf("%s/.cache", h) : NULL;
}

char *nub_plat_self_exe(void)
{
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

  if (n <= 0)
    return NULL;
  buf[n] = '\0';
  return nub_strdup(buf);
}

int nub_plat_dirstamp_at(int dir, const char *path, uint64_t *ctime_ns, uint64_t *ino)
{
  struct statx sx;

  /* Only the fields asked for are filled and copied out: the no-op stats
   * every package directory, and the full stat costs ~15% more. */
  if (statx(PD(dir), path, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
            STATX_TYPE | STATX_INO | STATX_CTIME, &sx) < 0)
    return nub__plat_neg_errno();
  if ((sx.stx_mask & (STATX_TYPE | STATX_INO | STATX_CTIME)) !=
      (STATX_TYPE | STATX_INO | STATX_CTIME))
    return nub__plat_dirstamp_stat(dir, path, ctime_ns, ino); /* cannot answer in part */
  if (!S_ISDIR(sx.stx_mode))
    return -ENOTDIR;
  *ctime_ns = (uint64_t)sx.stx_ctime.tv_sec * 1000000000ull + sx.stx_ctime.tv_nsec;
  *ino = sx.stx_ino;
  return 0;
}

int nub_plat_copy_range_at(int sdir, const char *src, int ddir, const char *dst,
                           unsigned mode, uint64_t size)
{
  NUB_PLAT_FAULT(NUB_PRIM_COPY_RANGE);
  return nub__plat_copy_at(nub_plat_copy_range_fd, sdir, src, ddir, dst, mode, size);
}
