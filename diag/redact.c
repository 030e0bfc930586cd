/* redact.c - userinfo out of URLs in text; see redact.h. */
#include "redact.h"

#include <string.h>

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
    if (at && o + 4 < cap) {
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
