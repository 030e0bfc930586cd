/* plat_macos.c - the macOS backend: clonefile(2) of files and of whole
 * directories, fclonefileat(2), fcopyfile(3), renamex_np RENAME_EXCL,
 * statfs f_fstypename, getrusage (ru_maxrss already in bytes). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../nub_alloc.h"
#include "../plat_int.h"
#include "darwin_sys.h"

void nub_plat_caps(struct nub_plat_caps *out)
{
  long n = sysconf(_SC_NPROCESSORS_ONLN);

  memset(out, 0, sizeof(*out));
  out->os = "macos";
  out->npm_os = "darwin";
  out->npm_cpu = nub__plat_npm_cpu();
  out->libc = NULL;
  out->ncpu = n > 0 ? (int)n : 1;
  out->has_reflink = true;
  out->has_clonedir = true;
  out->has_copy_range = true;
}

int nub_plat_rusage(enum nub_plat_who who, struct nub_plat_rusage *out)
{
  struct rusage ru;

  if (who == NUB_RUSAGE_THREAD)
    return -ENOTSUP; /* no per-thread getrusage on Darwin */
  if (getrusage(RUSAGE_SELF, &ru) < 0)
    return nub__plat_neg_errno();
  out->user_us = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec;
  out->sys_us = (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
  out->max_rss_bytes = (uint64_t)ru.ru_maxrss; /* Darwin: bytes */
  out->minflt = (uint64_t)ru.ru_minflt;
  out->majflt = (uint64_t)ru.ru_majflt;
  out->nvcsw = (uint64_t)ru.ru_nvcsw;
  out->nivcsw = (uint64_t)ru.ru_nivcsw;
  out->inblock = (uint64_t)ru.ru_inblock;
  out->oublock = (uint64_t)ru.ru_oublock;
  return 0;
}

/* clonefile copies the source's permission bits; the store creates its files
 * with the final mode, so `mode` only matters where it differs. clonefile
 * also clones symlinks and whole directories, which a one-file reflink must
 * not produce: refuse them as Linux does (O_NOFOLLOW gives ELOOP), and never
 * chmod through a link. */
static int fix_mode(int ddir, const char *dst, unsigned mode)
{
  struct stat st;

  if (fstatat(PD(ddir), dst, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return nub__plat_neg_errno();
  if (S_ISLNK(st.st_mode))
    return -ELOOP;
  if (!S_ISREG(st.st_mode))
    return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
  if ((st.st_mode & 07777) != (mode & 07777) &&
      fchmodat(PD(ddir), dst, (mode_t)mode, 0) < 0)
    return nub__plat_neg_errno();
  return 0;
}

int nub_plat_reflink_at(int sdir, const char *src, int ddir, const char *dst,
                        unsigned mode)
{
  int rc;

  NUB_PLAT_FAULT(NUB_PRIM_REFLINK);
  if (clonefileat(PD(sdir), src, PD(ddir), dst, CLONE_NOFOLLOW) < 0)
    return nub__plat_neg_errno();
  rc = fix_mode(ddir, dst, mode);
  if (rc < 0)
    nub_plat_rm_rf_at(ddir, dst); /* a file, or what a wrong source made */
  return rc;
}

int nub_plat_reflink_fd_at(int sfd, int ddir, const char *dst, unsigned mode)
{
  int rc;

  NUB_PLAT_FAULT(NUB_PRIM_REFLINK);
  if (fclonefileat(sfd, PD(ddir), dst, 0) < 0)
    return nub__plat_neg_errno();
  rc = fix_mode(ddir, dst, mode);
  if (rc < 0)
    nub_plat_rm_rf_at(ddir, dst);
  return rc;
}

int nub_plat_copy_range_fd(int sfd, int dfd, uint64_t len)
{
  struct stat st;

  NUB_PLAT_FAULT(NUB_PRIM_COPY_RANGE);
  /* fcopyfile copies from the fd's current offset; the contract copies from
   * the start of sfd even after the caller has read from it. */
  if (lseek(sfd, 0, SEEK_SET) < 0)
    return nub__plat_neg_errno();
  if (fcopyfile(sfd, dfd, NULL, COPYFILE_DATA) < 0)
    return nub__plat_neg_errno();
  if (fstat(dfd, &st) < 0)
    return nub__plat_neg_errno();
  return (uint64_t)st.st_size == len ? 0 : -EIO;
}

int nub_plat_clonedir_at(int sdir, const char *src, int ddir, const char *dst)
{
  NUB_PLAT_FAULT(NUB_PRIM_CLONEDIR);
  if (clonefileat(PD(sdir), src, PD(ddir), dst, CLONE_NOFOLLOW) < 0)
    return nub__plat_neg_errno();
  return 0;
}

static int noreplace_unsupported;

int nub_plat_rename_noreplace_at(int sdir, const char *from, int ddir,
                                 const char *to)
{
  if (!__atomic_load_n(&noreplace_unsupported, __ATOMIC_RELAXED)) {
    if (renameatx_np(PD(sdir), from, PD(ddir), to, RENAME_EXCL) == 0)
      return 0;
    if (errno != ENOTSUP && errno != EINVAL && errno != ENOSYS)
      return nub__plat_neg_errno();
    __atomic_store_n(&noreplace_unsupported, 1, __ATOMIC_RELAXED);
  }
  return nub__plat_rename_noreplace_fallback(sdir, from, ddir, to);
}

/* No O_TMPFILE on macOS: a temp name in the stage directory. */
int nub_plat_newfile_open(struct nub_plat_newfile *nf, int dir, int stage_dir,
                          unsigned mode)
{
  (void)dir;
  return nub__plat_newfile_named_open(nf, stage_dir, mode);
}

int nub_plat_newfile_publish(struct nub_plat_newfile *nf, int dir, const char *path)
{
  return nub__plat_newfile_named_publish(nf, dir, path, nub_plat_rename_noreplace_at);
}

int nub_plat_newfile_replace(struct nub_plat_newfile *nf, int dir, const char *path)
{
  return nub__plat_newfile_named_replace(nf, dir, path);
}

int nub_plat_spread_hint(int dir)
{
  (void)dir;
  return -ENOTSUP; /* APFS has no allocation groups to spread over */
}

int nub_plat_fs_info(const char *path, struct nub_plat_fsinfo *out)
{
  struct statfs sf;
  struct stat st;
  long cs;

  memset(out, 0, sizeof(*out));
  if (statfs(path, &sf) < 0 || stat(path, &st) < 0)
    return nub__plat_neg_errno();
  out->dev = (uint64_t)st.st_dev;
  snprintf(out->fstype, sizeof(out->fstype), "%s", sf.f_fstypename);
  cs = pathconf(path, _PC_CASE_SENSITIVE);
  out->case_sensitive = cs != 0; /* -1 (unknown) counts as sensitive */
  return 0;
}

char *nub_plat_cache_dir(void)
{
  const char *h = nub_plat_home();
  return h ? nub_asprintf("%s/Library/Caches", h) : NULL;
}

char *nub_plat_self_exe(void)
{
  char buf[4096];
  uint32_t size = sizeof(buf);

  if (_NSGetExecutablePath(buf, &size) != 0)
    return NULL;
  return nub_strdup(buf);
}

int nub_plat_dirstamp_at(int dir, const char *path, uint64_t *ctime_ns, uint64_t *ino)
{
  return nub__plat_dirstamp_stat(dir, path, ctime_ns, ino);
}

int nub_plat_copy_range_at(int sdir, const char *src, int ddir, const char *dst,
                           unsigned mode, uint64_t size)
{
  NUB_PLAT_FAULT(NUB_PRIM_COPY_RANGE);
  return nub__plat_copy_at(nub_plat_copy_range_fd, sdir, src, ddir, dst, mode, size);
}
