/* buf.c - growable byte buffer. */
#include "buf.h"

#include <stdio.h>
#include <string.h>

#include "nub_alloc.h"

static void reserve(struct nub_buf *b, size_t extra)
{
  size_t need = b->len + extra + 1;

  if (need <= b->cap)
    return;
  NUB_GROW(b->data, b->cap, need);
}

void nub_buf_reserve(struct nub_buf *b, size_t n)
{
  size_t need = b->len + n + 1;

  if (need <= b->cap)
    return;
  b->data = nub_realloc(b->data, need);
  b->cap = need;
}

void nub_buf_add(struct nub_buf *b, const void *p, size_t n)
{
  reserve(b, n);
  memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void nub_buf_adds(struct nub_buf *b, const char *s) { nub_buf_add(b, s, strlen(s)); }

void nub_buf_addc(struct nub_buf *b, char c) { nub_buf_add(b, &c, 1); }

void nub_buf_addf(struct nub_buf *b, const char *fmt, ...)
{
  va_list ap, ap2;
  int n;

  va_start(ap, fmt);
  va_copy(ap2, ap);
  reserve(b, 64);
  n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
  if (n >= 0 && (size_t)n >= b->cap - b->len) {
    reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap2);
  }
  if (n > 0)
    b->len += (size_t)n;
  va_end(ap2);
  va_end(ap);
}

void nub_buf_reset(struct nub_buf *b)
{
  b->len = 0;
  if (b->data)
    b->data[0] = '\0';
}

void nub_buf_release(struct nub_buf *b)
{
  nub_free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

char *nub_buf_take(struct nub_buf *b)
{
  char *d = b->data ? b->data : nub_strdup("");
  b->data = NULL;
  b->len = b->cap = 0;
  return d;
}

const char *nub_buf_str(const struct nub_buf *b) { return b->data ? b->data : ""; }
