/* nub_alloc.h - the one allocator of nub's own code (a thin layer over mimalloc).
 *
 * Contract: nub_malloc, nub_calloc, nub_realloc and the string helpers never
 * return NULL. On out-of-memory they run the fatal hook (diag flush), print
 * "nub: out of memory allocating N bytes" on stderr and abort(). Freeing NULL
 * is allowed. Memory from these functions is freed with nub_free only.
 */
#ifndef NUB_ALLOC_H
#define NUB_ALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *nub_malloc(size_t n);
void *nub_calloc(size_t count, size_t size);
void *nub_realloc(void *p, size_t n);
void nub_free(void *p);
char *nub_strdup(const char *s);
char *nub_strndup(const char *s, size_t n);
/* printf into a fresh string; caller owns the result. */
char *nub_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *nub_vasprintf(const char *fmt, va_list ap);

/* Called once before abort() on a fatal condition (OOM), e.g. to flush diag. */
void nub_alloc_set_fatal_hook(void (*hook)(void));

/* Grow *p (element size `size`) so that it holds at least `need` elements;
 * *cap is updated. Amortised doubling. */
void nub_grow(void **p, size_t *cap, size_t need, size_t size);
#define NUB_GROW(ptr, cap, need) \
  nub_grow((void **)&(ptr), &(cap), (need), sizeof(*(ptr)))

/* qsort that accepts an empty (possibly NULL) array: the C library's is
 * declared nonnull, and an empty list is common here. */
#include <stdlib.h>
static inline void nub_sort(void *base, size_t n, size_t size,
                            int (*cmp)(const void *, const void *))
{
  if (n > 1)
    qsort(base, n, size, cmp);
}

#endif
