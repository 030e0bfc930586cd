/* requires.c - textual scan for bare module specifiers. */
#include "requires.h"

#include <stdbool.h>
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

/* One linear pass per keyword (memmem), instead of stepping through every
 * 'r', 'i' and 'f' of the source. */
void nub_scan_requires(const char *data, size_t len, void (*cb)(void *, const char *),
                       void *ud)
{
  static const struct {
    const char *kw;
    size_t n;
  } kws[] = {{"require", 7}, {"import", 6}, {"from", 4}};
  const char *end = data + len;

  for (size_t k = 0; k < sizeof(kws) / sizeof(kws[0]); k++) {
    const char *p = data;
    while (p < end) {
      const char *hit = memmem(p, (size_t)(end - p), kws[k].kw, kws[k].n);
      const char *q;
      if (!hit)
        break;
      p = hit + kws[k].n;
      if (hit > data && ident_char(hit[-1]))
        continue; /* inside another identifier */
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
  }
}
