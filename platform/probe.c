/* probe.c - which link primitives work between two directories (nub_plat.h
 * nub_plat_probe): made of the backend's primitives and posix's, on every
 * OS, and called by no other file of platform/ (so the posix layer stays a
 * leaf under the backends). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plat_int.h"

int nub_plat_probe(int store_dir, int dst_dir, struct nub_plat_probe *out)
{
  static unsigned seq;
  char src[64], dst[64];
  static const char data[] = "nub link probe\n";
  struct stat a, b;
  int fd, rc;

  memset(out, 0, sizeof(*out));
  if (fstat(store_dir, &a) < 0 || fstat(dst_dir, &b) < 0)
    return nub__plat_neg_errno();
  out->src_dev = (uint64_t)a.st_dev;
  out->dst_dev = (uint64_t)b.st_dev;
  snprintf(src, sizeof(src), ".nub-probe-src-%d-%u", (int)getpid(),
           __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
  fd = openat(store_dir, src, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return nub__plat_neg_errno();
  rc = nub_plat_write_all(fd, data, sizeof(data) - 1);
  close(fd);
  if (rc < 0) {
    unlinkat(store_dir, src, 0);
    return rc;
  }
  for (int p = 0; p < NUB_PRIM__COUNT; p++) {
    snprintf(dst, sizeof(dst), ".nub-probe-dst-%d-%u", (int)getpid(),
             __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
    switch ((enum nub_prim)p) {
    case NUB_PRIM_HARDLINK:
      rc = nub_plat_hardlink_at(store_dir, src, dst_dir, dst);
      break;
    case NUB_PRIM_REFLINK:
      rc = nub_plat_reflink_at(store_dir, src, dst_dir, dst, 0644);
      break;
    case NUB_PRIM_COPY_RANGE:
      rc = nub_plat_copy_range_at(store_dir, src, dst_dir, dst, 0644,
                                  sizeof(data) - 1);
      break;
    case NUB_PRIM_COPY:
    case NUB_PRIM_SMALL_COPY:
      rc = nub_plat_copy_stream_at(store_dir, src, dst_dir, dst, 0644,
                                   sizeof(data) - 1);
      break;
    case NUB_PRIM_CLONEDIR: {
      /* A one-file directory stands for a package tree. */
      char sd[80];
      snprintf(sd, sizeof(sd), "%s.d", src);
      rc = mkdirat(store_dir, sd, 0755) < 0 ? nub__plat_neg_errno() : 0;
      if (rc == 0) {
        rc = nub_plat_clonedir_at(store_dir, sd, dst_dir, dst);
        unlinkat(store_dir, sd, AT_REMOVEDIR);
        if (rc == 0)
          unlinkat(dst_dir, dst, AT_REMOVEDIR);
      }
      out->works[p] = rc == 0;
      out->err[p] = rc < 0 ? rc : 0;
      continue;
    }
    default:
      rc = -ENOTSUP;
      break;
    }
    out->works[p] = rc == 0;
    out->err[p] = rc < 0 ? rc : 0;
    if (rc == 0)
      unlinkat(dst_dir, dst, 0);
  }
  unlinkat(store_dir, src, 0);
  return 0;
}
