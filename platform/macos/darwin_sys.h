/* darwin_sys.h - the Darwin headers the macOS backend needs. With
 * NUB_DARWIN_SHIM defined (a Linux test build) a shim that emulates the Darwin
 * calls with Linux primitives stands in, so that the backend's control flow is
 * compiled and unit-tested on every CI run. */
#ifndef NUB_DARWIN_SYS_H
#define NUB_DARWIN_SYS_H

#ifdef NUB_DARWIN_SHIM
#include "darwin_shim.h"
#else
#include <copyfile.h>
#include <mach-o/dyld.h>
#include <sys/attr.h>
#include <sys/clonefile.h>
#include <sys/mount.h>
#include <sys/param.h>
#endif

#endif
