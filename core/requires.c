/* requires.c - textual scan for bare module specifiers. */
#include "requires.h"

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

void nub_scan_requires(const char *data, size_t len, void (*cb)(void *, const char *),
                       void *ud)
{
  const char *p = data, *end = data + len;

  while (p < end) {
    const char *r = memchr(p, 'r', (size_t)(end - p));
    const char *i = memchr(p, 'i', (size_t)(end - p));
    const char *f = memchr(p, 'f', (size_t)(end - p));
    const char *hit = r;
    if (!hit || (i && i < hit))
      hit = i;
    if (!hit || (f && f < hit))
      hit = f;
    if (!hit)
      break;
    p = hit + 1;
    if (hit > data && (hit[-1] == '_' || hit[-1] == '$' || hit[-1] == '.' ||
                       (hit[-1] >= 'a' && hit[-1] <= 'z') || (hit[-1] >= 'A' && hit[-1] <= 'Z') ||
                       (hit[-1] >= '0' && hit[-1] <= '9')))
      continue; /* inside another identifier */
    if (*hit == 'r' && end - hit > 8 && !memcmp(hit, "require", 7)) {
      const char *q = skip_ws(hit + 7, end);
      if (q < end && *q == '(')
        take(skip_ws(q + 1, end), end, cb, ud);
    } else if (*hit == 'i' && end - hit > 7 && !memcmp(hit, "import", 6)) {
      const char *q = skip_ws(hit + 6, end);
      if (q < end && *q == '(')
        take(skip_ws(q + 1, end), end, cb, ud);
      else if (q < end && (*q == '"' || *q == '\''))
        take(q, end, cb, ud); /* import "x" */
    } else if (*hit == 'f' && end - hit > 5 && !memcmp(hit, "from", 4) &&
               (hit[4] == ' ' || hit[4] == '"' || hit[4] == '\'')) {
      take(skip_ws(hit + 4, end), end, cb, ud);
    }
  }
}
