/* buf.h - growable byte buffer, always NUL-terminated (curl's dynbuf idea). */
#ifndef NUB_BUF_H
#define NUB_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct nub_buf {
  char *data; /* NUL-terminated; NULL until the first append */
  size_t len, cap;
};

#define NUB_BUF_INIT {NULL, 0, 0}

void nub_buf_add(struct nub_buf *b, const void *p, size_t n);
void nub_buf_adds(struct nub_buf *b, const char *s);
void nub_buf_addc(struct nub_buf *b, char c);
void nub_buf_addf(struct nub_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void nub_buf_reset(struct nub_buf *b);
/* Room for n more bytes, exactly (appends grow by doubling): for a size
 * known in advance. */
void nub_buf_reserve(struct nub_buf *b, size_t n);
void nub_buf_release(struct nub_buf *b);
/* Hand the data to the caller (who frees it with nub_free); b is reset. */
char *nub_buf_take(struct nub_buf *b);
const char *nub_buf_str(const struct nub_buf *b); /* "" when empty */

#endif
