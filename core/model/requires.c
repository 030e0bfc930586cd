/* requires.c - textual scan for bare module specifiers. */
#include "requires.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "path.h"

static void take(const char *p, const char *end, void (*cb)(void *, const char *), void *ud)
{
  char q = *p, name[215];
  const char *s = p + 1, *e = s, *cut;
  size_t n;

  if (q != '"' && q != '\'' && q != '`')
    return;
  while (e < end && *e != q && *e != '\n' && e - s < 300)
    e++;
  if (e >= end || *e != q || e == s)
    return;
  if (*s == '.' || *s == '/' || memchr(s, ':', (size_t)(e - s)))
    return; /* relative, absolute, "node:fs", URLs */
  /* the package part: "x" of "x/sub", "@s/x" of "@s/x/sub" */
  if (*s == '@') {
    const char *slash = memchr(s, '/', (size_t)(e - s));
    if (!slash)
      return;
    cut = memchr(slash + 1, '/', (size_t)(e - slash - 1));
  } else {
    cut = memchr(s, '/', (size_t)(e - s));
  }
  n = (size_t)((cut ? cut : e) - s);
  if (n == 0 || n >= sizeof(name))
    return;
  memcpy(name, s, n);
  name[n] = '\0';
  if (nub_valid_pkg_name(name))
    cb(ud, name);
}

static const char *skip_ws(const char *p, const char *end)
{
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    p++;
  return p;
}

static bool ident_char(char ch)
{
  return ch == '_' || ch == '$' || ch == '.' || (ch >= 'a' && ch <= 'z') ||
         (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

/* What follows a keyword found at kw (k: 0 require, 1 import, 2 from). */
static void after(int k, const char *data, const char *kw, const char *end,
                  void (*cb)(void *, const char *), void *ud)
{
  static const size_t n[3] = {7, 6, 4};
  const char *p = kw + n[k], *q;

  if (kw > data && ident_char(kw[-1]))
    return; /* inside another identifier */
  q = skip_ws(p, end);
  if (k == 0) { /* require("x") */
    if (q < end && *q == '(')
      take(skip_ws(q + 1, end), end, cb, ud);
  } else if (k == 1) { /* import("x"), import "x" */
    if (q < end && *q == '(')
      take(skip_ws(q + 1, end), end, cb, ud);
    else if (q < end && (*q == '"' || *q == '\''))
      take(q, end, cb, ud);
  } else if (p < end && (*p == ' ' || *p == '"' || *p == '\'')) { /* from "x" */
    take(q, end, cb, ud);
  }
}

/* The keyword starting at p, if any (-1). */
static int keyword_at(const char *p, const char *end)
{
  size_t left = (size_t)(end - p);
  if (*p == 'r' && left >= 7 && !memcmp(p, "require", 7))
    return 0;
  if (*p == 'i' && left >= 6 && !memcmp(p, "import", 6))
    return 1;
  if (*p == 'f' && left >= 4 && !memcmp(p, "from", 4))
    return 2;
  return -1;
}

/* One pass, 16 bytes a step: a keyword can start only where its first
 * letter and a later one are both in place ('r'..'e' six apart for
 * require, 'i'..'t' five apart for import, 'f'..'m' three apart for from),
 * which few positions of real code satisfy. GCC/Clang vector extensions:
 * SSE2 on x86-64, NEON on arm64. */
typedef signed char nub_v16 __attribute__((vector_size(16)));

static nub_v16 load16(const char *p)
{
  nub_v16 v;
  memcpy(&v, p, 16);
  return v;
}

void nub_scan_requires(const char *data, size_t len, void (*cb)(void *, const char *),
                       void *ud)
{
  const char *end = data + len, *p = data;

  while (end - p >= 16 + 6) {
    nub_v16 c0 = load16(p);
    nub_v16 m = ((c0 == 'r') & (load16(p + 6) == 'e')) |
                ((c0 == 'i') & (load16(p + 5) == 't')) |
                ((c0 == 'f') & (load16(p + 3) == 'm'));
    uint64_t w[2];
    memcpy(w, &m, 16);
    if (w[0] | w[1]) {
      for (int j = 0; j < 16; j++) {
        int k;
        if (!m[j])
          continue;
        k = keyword_at(p + j, end);
        if (k >= 0)
          after(k, data, p + j, end, cb, ud);
      }
    }
    p += 16;
  }
  for (; p < end; p++) {
    int k = keyword_at(p, end);
    if (k >= 0)
      after(k, data, p, end, cb, ud);
  }
}
