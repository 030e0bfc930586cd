/* plat_extents.h - does a clone share its data blocks with its source?
 * An OS-specific probe, picked by CMake (plat_extents_linux.c or
 * plat_extents_other.c), so that test_plat.c stays free of OS #ifdefs. */
#ifndef NUB_PLAT_EXTENTS_H
#define NUB_PLAT_EXTENTS_H

#include <stddef.h>

/* 1: every data extent of dfd is shared and sits at the same physical address
 * as sfd's; 0: not shared; negative errno: this OS or file system cannot tell
 * (-ENOTSUP). `detail` gets a one-line human description either way. */
int nub_test_extents_shared(int sfd, int dfd, char *detail, size_t cap);

#endif
