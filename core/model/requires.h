/* requires.h - find the packages a JavaScript file loads by bare name
 * (require("x"), require('x/sub'), import ... from "@s/x", import("x")), so
 * that packages using dependencies they never declared (phantom dependencies)
 * can still find them from the global virtual store. A cheap textual scan:
 * a name in a comment counts too, which only ever adds a harmless link. */
#ifndef NUB_REQUIRES_H
#define NUB_REQUIRES_H

#include <stddef.h>

/* Calls cb with each package name ("x", "@s/x") found in data. */
void nub_scan_requires(const char *data, size_t len,
                       void (*cb)(void *ud, const char *name), void *ud);

#endif
