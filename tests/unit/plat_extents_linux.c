/* plat_extents_linux.c - FS_IOC_FIEMAP: a reflink clone's extents carry
 * FIEMAP_EXTENT_SHARED and map to the source's physical blocks. */
#include "plat_extents.h"

#include <errno.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#define MAX_EXTENTS 256u

/* FIEMAP_FLAG_SYNC: delayed allocation would otherwise report no extents. */
static struct fiemap *map_of(int fd, int *err)
{
  struct fiemap *fm = calloc(1, sizeof(*fm) + MAX_EXTENTS * sizeof(struct fiemap_extent));

  *err = 0;
  if (!fm) {
    *err = -ENOMEM;
    return NULL;
  }
  fm->fm_start = 0;
  fm->fm_length = FIEMAP_MAX_OFFSET;
  fm->fm_flags = FIEMAP_FLAG_SYNC;
  fm->fm_extent_count = MAX_EXTENTS;
  if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
    *err = errno == ENOTTY || errno == EOPNOTSUPP ? -ENOTSUP : -errno;
    free(fm);
    return NULL;
  }
  return fm;
}

int nub_test_extents_shared(int sfd, int dfd, char *detail, size_t cap)
{
  struct fiemap *s, *d;
  int err, rc = 1;
  unsigned shared = 0, same_phys = 0;

  s = map_of(sfd, &err);
  if (!s) {
    snprintf(detail, cap, "FS_IOC_FIEMAP on source failed (%d)", err);
    return err;
  }
  d = map_of(dfd, &err);
  if (!d) {
    snprintf(detail, cap, "FS_IOC_FIEMAP on clone failed (%d)", err);
    free(s);
    return err;
  }
  for (uint32_t i = 0; i < d->fm_mapped_extents; i++) {
    const struct fiemap_extent *e = &d->fm_extents[i];
    if (e->fe_flags & FIEMAP_EXTENT_SHARED)
      shared++;
    for (uint32_t j = 0; j < s->fm_mapped_extents; j++) {
      const struct fiemap_extent *f = &s->fm_extents[j];
      if (f->fe_logical == e->fe_logical && f->fe_physical == e->fe_physical) {
        same_phys++;
        break;
      }
    }
  }
  if (d->fm_mapped_extents == 0 || shared != d->fm_mapped_extents ||
      same_phys != d->fm_mapped_extents)
    rc = 0;
  snprintf(detail, cap,
           "clone has %u extent(s), %u FIEMAP_EXTENT_SHARED, %u at the "
           "source's physical address (first 0x%llx)",
           d->fm_mapped_extents, shared, same_phys,
           d->fm_mapped_extents
               ? (unsigned long long)d->fm_extents[0].fe_physical
               : 0ull);
  free(s);
  free(d);
  return rc;
}
