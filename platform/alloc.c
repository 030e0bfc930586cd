/* alloc.c - nub_malloc & co over mimalloc; out-of-memory is fatal. */
#include "nub_alloc.h"

#include <mimalloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Sanitizer builds use the C library's allocator so that AddressSanitizer
 * sees every allocation (it cannot look inside mimalloc's heaps). */
#ifdef NUB_ALLOC_LIBC
#define mi_malloc malloc
#define mi_calloc calloc
#define mi_realloc realloc
#define mi_free free
#endif

static void (*fatal_hook)(void);

void nub_alloc_set_fatal_hook(void (*hook)(void)) { fatal_hook = hook; }

static void oom(size_t n)
{
  char msg[96];
  int len;

  if (fatal_hook) {
    void (*h)(void) = fatal_hook;
    fatal_hook = NULL; /* the hook itself may allocate and fail */
    h();
  }
  /* No stdio buffering here: the heap is exhausted. */
  len = snprintf(msg, sizeof(msg), "nub: out of memory allocating %zu bytes\n", n);
  if (len > 0 && write(2, msg, (size_t)len) < 0) {
    /* nothing left to do */
  }
  abort();
}

void *nub_malloc(size_t n)
{
  void *p = mi_malloc(n ? n : 1);
  if (!p)
    oom(n);
  return p;
}

void *nub_calloc(size_t count, size_t size)
{
  void *p = mi_calloc(count ? count : 1, size ? size : 1);
  if (!p)
    oom(count * size);
  return p;
}

void *nub_realloc(void *p, size_t n)
{
  void *q = mi_realloc(p, n ? n : 1);
  if (!q)
    oom(n);
  return q;
}

void nub_free(void *p) { mi_free(p); }

char *nub_strndup(const char *s, size_t n)
{
  char *d = nub_malloc(n + 1);
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

char *nub_strdup(const char *s) { return nub_strndup(s, strlen(s)); }

char *nub_vasprintf(const char *fmt, va_list ap)
{
  char small[256];
  va_list ap2;
  int n;
  char *out;

  va_copy(ap2, ap);
  n = vsnprintf(small, sizeof(small), fmt, ap2);
  va_end(ap2);
  if (n < 0)
    return nub_strdup("");
  if ((size_t)n < sizeof(small))
    return nub_strndup(small, (size_t)n);
  out = nub_malloc((size_t)n + 1);
  vsnprintf(out, (size_t)n + 1, fmt, ap);
  return out;
}

char *nub_asprintf(const char *fmt, ...)
{
  va_list ap;
  char *s;

  va_start(ap, fmt);
  s = nub_vasprintf(fmt, ap);
  va_end(ap);
  return s;
}

void nub_grow(void **p, size_t *cap, size_t need, size_t size)
{
  size_t c = *cap;

  if (need <= c)
    return;
  if (c < 8)
    c = 8;
  while (c < need)
    c *= 2;
  *p = nub_realloc(*p, c * size);
  *cap = c;
}
