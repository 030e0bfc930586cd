/* darwin_shim.c - Darwin calls emulated with Linux primitives; see
 * darwin_shim.h. Errors follow Darwin: -1 and errno. */
#define NUB_DARWIN_SHIM_IMPL /* this file calls the real statfs & co */
#include "darwin_shim.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* ---- clonefile ----------------------------------------------------------- */

static int clone_entry(int sdir, const char *name, const struct stat *st,
                       bool follow, int ddir, const char *dst);

/* Remove what a failed clone created, keeping the clone's errno. */
static void remove_tree(int dir, const char *path)
{
  int saved = errno;
  int fd;
  DIR *d;
  struct dirent *de;

  if (unlinkat(dir, path, 0) == 0 || errno == ENOENT) {
    errno = saved;
    return;
  }
  fd = openat(dir, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0 && (d = fdopendir(fd)) != NULL) {
    while ((de = readdir(d)) != NULL)
      if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
        remove_tree(dirfd(d), de->d_name);
    closedir(d);
  } else if (fd >= 0) {
    close(fd);
  }
  unlinkat(dir, path, AT_REMOVEDIR);
  errno = saved;
}

/* Darwin refuses to clone across devices; so does the shim, even where it
 * would fall back to a byte copy. */
static int same_dev(int dfd_or_dir, const char *name, dev_t dev)
{
  struct stat st;
  int rc = name ? fstatat(dfd_or_dir, name, &st, AT_SYMLINK_NOFOLLOW)
                : fstat(dfd_or_dir, &st);

  if (rc < 0)
    return -1;
  if (st.st_dev != dev) {
    errno = EXDEV;
    return -1;
  }
  return 0;
}

static int copy_bytes(int sfd, int dfd)
{
  char buf[65536];
  off_t off = 0;

  for (;;) {
    ssize_t n = pread(sfd, buf, sizeof(buf), off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    if (n == 0)
      return 0;
    for (ssize_t w = 0; w < n;) {
      ssize_t m = pwrite(dfd, buf + w, (size_t)(n - w), off + w);
      if (m < 0 && errno == EINTR)
        continue;
      if (m < 0)
        return -1;
      w += m;
    }
    off += n;
  }
}

static void copy_times(int fd, const struct stat *st)
{
  struct timespec ts[2] = {st->st_atim, st->st_mtim};
  futimens(fd, ts);
}

static int clone_file(int sfd, const struct stat *st, int ddir, const char *dst)
{
  int dfd = openat(ddir, dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

  if (dfd < 0)
    return -1;
  if (same_dev(dfd, NULL, st->st_dev) < 0)
    goto fail;
  if (ioctl(dfd, FICLONE, sfd) < 0) {
    /* No reflink here (ext4, tmpfs): APFS would still clone, so copy. */
    if (errno != EOPNOTSUPP && errno != EINVAL && errno != ENOTTY &&
        errno != EXDEV && errno != ENOSYS)
      goto fail;
    if (copy_bytes(sfd, dfd) < 0)
      goto fail;
  }
  /* Exactly the source's bits, whatever the umask: a clone copies them. */
  if (fchmod(dfd, st->st_mode & 07777) < 0)
    goto fail;
  copy_times(dfd, st);
  if (close(dfd) < 0) {
    dfd = -1;
    goto fail;
  }
  return 0;
fail:
  if (dfd >= 0)
    close(dfd);
  remove_tree(ddir, dst);
  return -1;
}

static int clone_dir(int sfd, const struct stat *st, int ddir, const char *dst)
{
  int dfd = -1, lfd;
  DIR *d = NULL;
  struct dirent *de;

  if (mkdirat(ddir, dst, 0700) < 0)
    return -1;
  dfd = openat(ddir, dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0 || same_dev(dfd, NULL, st->st_dev) < 0)
    goto fail;
  /* A fresh open: fdopendir would share (and move) the caller's offset. */
  lfd = openat(sfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lfd < 0)
    goto fail;
  d = fdopendir(lfd);
  if (!d) {
    close(lfd);
    goto fail;
  }
  while ((errno = 0, de = readdir(d)) != NULL) {
    struct stat cst;
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
      continue;
    if (fstatat(dirfd(d), de->d_name, &cst, AT_SYMLINK_NOFOLLOW) < 0 ||
        clone_entry(dirfd(d), de->d_name, &cst, false, dfd, de->d_name) < 0)
      goto fail;
  }
  if (errno != 0)
    goto fail;
  closedir(d);
  d = NULL;
  /* Mode and times last: creating the children changed both. */
  if (fchmod(dfd, st->st_mode & 07777) < 0)
    goto fail;
  copy_times(dfd, st);
  close(dfd);
  return 0;
fail:
  if (d)
    closedir(d);
  if (dfd >= 0)
    close(dfd);
  remove_tree(ddir, dst);
  return -1;
}

static int clone_open(int sfd, const struct stat *st, int ddir, const char *dst)
{
  if (S_ISREG(st->st_mode))
    return clone_file(sfd, st, ddir, dst);
  if (S_ISDIR(st->st_mode))
    return clone_dir(sfd, st, ddir, dst);
  errno = ENOTSUP; /* fifos, devices, sockets */
  return -1;
}

static int clone_entry(int sdir, const char *name, const struct stat *st,
                       bool follow, int ddir, const char *dst)
{
  int sfd, rc;

  if (S_ISLNK(st->st_mode)) {
    char target[4096];
    ssize_t n = readlinkat(sdir, name, target, sizeof(target) - 1);
    if (n < 0)
      return -1;
    target[n] = '\0';
    if (symlinkat(target, ddir, dst) < 0)
      return -1;
    if (same_dev(ddir, dst, st->st_dev) < 0) {
      remove_tree(ddir, dst);
      return -1;
    }
    return 0;
  }
  sfd = openat(sdir, name,
               O_RDONLY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW) |
                   (S_ISDIR(st->st_mode) ? O_DIRECTORY : 0));
  if (sfd < 0)
    return -1;
  rc = clone_open(sfd, st, ddir, dst);
  {
    int saved = errno;
    close(sfd);
    errno = saved;
  }
  return rc;
}

static int check_flags(uint32_t flags)
{
  if (flags & ~(uint32_t)(CLONE_NOFOLLOW | CLONE_NOOWNERCOPY | CLONE_ACL)) {
    errno = EINVAL;
    return -1;
  }
  return 0;
}

int clonefileat(int src_dirfd, const char *src, int dst_dirfd, const char *dst,
                uint32_t flags)
{
  struct stat st;
  bool follow = !(flags & CLONE_NOFOLLOW);

  if (check_flags(flags) < 0)
    return -1;
  if (fstatat(src_dirfd, src, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) < 0)
    return -1;
  /* Checked up front so that EEXIST wins over every other failure. */
  {
    struct stat dst_st;
    if (fstatat(dst_dirfd, dst, &dst_st, AT_SYMLINK_NOFOLLOW) == 0) {
      errno = EEXIST;
      return -1;
    }
  }
  return clone_entry(src_dirfd, src, &st, follow, dst_dirfd, dst);
}

int clonefile(const char *src, const char *dst, uint32_t flags)
{
  return clonefileat(AT_FDCWD, src, AT_FDCWD, dst, flags);
}

int fclonefileat(int srcfd, int dst_dirfd, const char *dst, uint32_t flags)
{
  struct stat st, dst_st;

  if (check_flags(flags) < 0 || fstat(srcfd, &st) < 0)
    return -1;
  if (fstatat(dst_dirfd, dst, &dst_st, AT_SYMLINK_NOFOLLOW) == 0) {
    errno = EEXIST;
    return -1;
  }
  return clone_open(srcfd, &st, dst_dirfd, dst);
}

/* ---- fcopyfile ----------------------------------------------------------- */

int fcopyfile(int from, int to, copyfile_state_t state, copyfile_flags_t flags)
{
  (void)state;
  if (flags & COPYFILE_DATA) {
    char buf[65536];
    for (;;) {
      ssize_t n = read(from, buf, sizeof(buf));
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -1;
      if (n == 0)
        break;
      for (ssize_t w = 0; w < n;) {
        ssize_t m = write(to, buf + w, (size_t)(n - w));
        if (m < 0 && errno == EINTR)
          continue;
        if (m < 0)
          return -1;
        w += m;
      }
    }
  }
  if (flags & COPYFILE_STAT) {
    struct stat st;
    if (fstat(from, &st) < 0 || fchmod(to, st.st_mode & 07777) < 0)
      return -1;
  }
  return 0;
}

/* ---- renamex_np ---------------------------------------------------------- */

int renameatx_np(int fromfd, const char *from, int tofd, const char *to,
                 unsigned int flags)
{
  unsigned int lf = 0;

  if (flags & ~(unsigned int)(RENAME_SWAP | RENAME_EXCL) ||
      (flags & RENAME_SWAP && flags & RENAME_EXCL)) {
    errno = EINVAL;
    return -1;
  }
  if (flags & RENAME_EXCL)
    lf |= RENAME_NOREPLACE;
  if (flags & RENAME_SWAP)
    lf |= RENAME_EXCHANGE;
  return (int)syscall(SYS_renameat2, fromfd, from, tofd, to, lf);
}

int renamex_np(const char *from, const char *to, unsigned int flags)
{
  return renameatx_np(AT_FDCWD, from, AT_FDCWD, to, flags);
}

/* ---- statfs, pathconf ---------------------------------------------------- */

static const char *fs_type_name(unsigned long magic)
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
  case 0x65735546: return "fuse";
  case 0x4d44: return "msdos";
  default: return "unknown";
  }
}

int nub_shim_statfs(const char *path, struct nub_shim_statfs *buf)
{
  struct statfs sf;

  if (statfs(path, &sf) < 0)
    return -1;
  memset(buf, 0, sizeof(*buf));
  buf->f_bsize = (uint32_t)sf.f_bsize;
  buf->f_blocks = (uint64_t)sf.f_blocks;
  buf->f_bfree = (uint64_t)sf.f_bfree;
  buf->f_bavail = (uint64_t)sf.f_bavail;
  buf->f_files = (uint64_t)sf.f_files;
  buf->f_ffree = (uint64_t)sf.f_ffree;
  buf->f_type = (uint32_t)sf.f_type;
  snprintf(buf->f_fstypename, sizeof(buf->f_fstypename), "%s",
           fs_type_name((unsigned long)sf.f_type));
  return 0;
}

long nub_shim_pathconf(const char *path, int name)
{
  if (name == _PC_CASE_SENSITIVE || name == _PC_CASE_PRESERVING) {
    struct statfs sf;
    if (statfs(path, &sf) < 0)
      return -1;
    /* FAT preserves case but ignores it; every Linux-native fs has both. */
    if (name == _PC_CASE_PRESERVING)
      return 1;
    return sf.f_type == 0x4d44 ? 0 : 1;
  }
  return pathconf(path, name);
}

/* ---- getrusage, _NSGetExecutablePath ------------------------------------- */

int nub_shim_getrusage(int who, struct rusage *ru)
{
  if (getrusage(who, ru) < 0)
    return -1;
  ru->ru_maxrss *= 1024;
  return 0;
}

int _NSGetExecutablePath(char *buf, uint32_t *bufsize)
{
  char tmp[4096];
  ssize_t n = readlink("/proc/self/exe", tmp, sizeof(tmp) - 1);

  if (n < 0)
    return -1;
  if ((uint32_t)n + 1 > *bufsize) {
    *bufsize = (uint32_t)n + 1;
    return -1;
  }
  memcpy(buf, tmp, (size_t)n);
  buf[n] = '\0';
  return 0;
}
