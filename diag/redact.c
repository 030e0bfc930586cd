/* redact.c - userinfo out of URLs in text; see redact.h. */
#include "redact.h"

#include <string.h>

#include "nub_alloc.h"

/* Where the authority of a URL starting at p ends (at '/', '?', '#',
 * white space, a quote or the end). */
static const char *authority_end(const char *p)
{
  while (*p && !strchr("/?#\"' \t\r\n<>", *p))
    p++;
  return p;
}

size_t nub_redact(char *out, size_t cap, const char *in)
{
  size_t o = 0;

  if (!cap)
    return 0;
  while (*in && o + 1 < cap) {
    const char *sep = strstr(in, "://");
    const char *auth, *end, *at = NULL;
    size_t n;
    if (!sep) {
      n = strlen(in);
      if (n > cap - 1 - o)
        n = cap - 1 - o;
      memcpy(out + o, in, n);
      o += n;
      break;
    }
    auth = sep + 3;
    end = authority_end(auth);
    for (const char *q = auth; q < end; q++)
      if (*q == '@')
        at = q; /* the last '@' ends the userinfo */
    n = (size_t)(auth - in);
    if (n > cap - 1 - o)
      n = cap - 1 - o;
    memcpy(out + o, in, n);
    o += n;
    if (at) {
      if (o + 4 >= cap)
        break; /* no room for the mask: never the userinfo instead */
      memcpy(out + o, "***", 3);
      o += 3;
      in = at;
    } else {
      in = auth;
    }
  }
  out[o] = '\0';
  return o;
}

char *nub_redact_dup(const char *in)
{
  size_t n = strlen(in), urls = 0, cap;
  char *out;

  for (const char *p = in; (p = strstr(p, "://")) != NULL; p += 3)
    urls++;
  cap = n + 3 * urls + 1; /* each mask may be longer than what it hides */
  out = nub_malloc(cap);
  nub_redact(out, cap, in);
  return out;
}

char *nub_redact_vfmt(const char *fmt, va_list ap)
{
  char *raw = nub_vasprintf(fmt, ap), *clean = nub_redact_dup(raw);

  nub_free(raw);
  return clean;
}
