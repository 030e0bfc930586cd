/* redact.h - secrets out of what nub prints or traces. A URL's userinfo
 * ("https://user:password@host/") becomes "***". Error records
 * (nub_err_set), warnings (progress.h), debug lines and diag strings pass
 * through here, whole, before anything cuts them to a buffer: a URL cut
 * before its '@' would no longer look like one. (Tokens never reach a
 * message at all: they live in the configuration and in request headers
 * only.) */
#ifndef NUB_REDACT_H
#define NUB_REDACT_H

#include <stdarg.h>
#include <stddef.h>

/* Copy `in` to out (cap bytes, always NUL-terminated when cap > 0) with
 * the userinfo of every "scheme://userinfo@host" replaced by "***", and
 * every byte that is neither printable ASCII, tab, newline nor part of
 * well-formed UTF-8 written as \xNN (a message stays valid, readable text
 * whatever bytes it quotes). Returns the length written. */
size_t nub_redact(char *out, size_t cap, const char *in);
/* The same into a string of its own (caller frees with nub_free). */
char *nub_redact_dup(const char *in);
/* vasprintf, then redacted: the message is whole when it is cleaned. */
char *nub_redact_vfmt(const char *fmt, va_list ap);

#endif
