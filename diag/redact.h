/* redact.h - secrets out of everything nub prints or traces. A URL's
 * userinfo ("https://user:password@host/") becomes "***": every warning,
 * error line, debug line and diag string passes through here, so no call
 * site has to remember to. (Tokens never reach a message at all: they live
 * in the configuration and in request headers only.) */
#ifndef NUB_REDACT_H
#define NUB_REDACT_H

#include <stddef.h>

/* Copy `in` to out (cap bytes, always NUL-terminated when cap > 0) with
 * the userinfo of every "scheme://userinfo@host" replaced by "***".
 * Returns the length written. */
size_t nub_redact(char *out, size_t cap, const char *in);

#endif
