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

/* Bytes that reach a terminal as they are: tab, newline, printable ASCII
 * and well-formed UTF-8. Anything else (a control character, a byte of a
 * corrupted document or of a Latin-1 file name) is written \xNN, so that a
 * message stays one readable line of valid text. Returns the length of the
 * sequence at p that passes (0: escape p[0]). */
static size_t passes(const unsigned char *p)
{
  size_t n;

  if (*p == '\t' || *p == '\n' || (*p >= 0x20 && *p < 0x7f))
    return 1;
  if (*p >= 0xc2 && *p <= 0xdf)
    n = 2;
  else if (*p >= 0xe0 && *p <= 0xef)
    n = 3;
  else if (*p >= 0xf0 && *p <= 0xf4)
    n = 4;
  else
    return 0;
  for (size_t i = 1; i < n; i++)
    if ((p[i] & 0xc0) != 0x80)
      return 0;
  return n;
}

static size_t escape(char *out, size_t cap, const char *in)
{
  static const char hex[] = "0123456789abcdef";
  const unsigned char *p = (const unsigned char *)in;
  size_t o = 0;

  while (*p) {
    size_t n = passes(p);
    if (n) {
      if (o + n >= cap)
        break;
      memcpy(out + o, p, n);
      o += n;
      p += n;
      continue;
    }
    if (o + 4 >= cap)
      break;
    out[o++] = '\\';
    out[o++] = 'x';
    out[o++] = hex[*p >> 4];
    out[o++] = hex[*p & 15];
    p++;
  }
  out[o] = '\0';
  return o;
}

static size_t escaped_len(const char *in)
{
  const unsigned char *p = (const unsigned char *)in;
  size_t len = 0;

  while (*p) {
    size_t n = passes(p);
    len += n ? n : 4;
    p += n ? n : 1;
  }
  return len;
}

static size_t mask(char *out, size_t cap, const char *in)
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

static char *mask_dup(const char *in)
{
  size_t n = strlen(in), urls = 0, cap;
  char *out;

  for (const char *p = in; (p = strstr(p, "://")) != NULL; p += 3)
    urls++;
  cap = n + 3 * urls + 1; /* each mask may be longer than what it hides */
  out = nub_malloc(cap);
  mask(out, cap, in);
  return out;
}

size_t nub_redact(char *out, size_t cap, const char *in)
{
  char *masked;
  size_t n;

  if (!cap)
    return 0;
  if (!strstr(in, "://"))
    return escape(out, cap, in); /* nothing to mask: no copy */
  masked = mask_dup(in);
  n = escape(out, cap, masked);
  nub_free(masked);
  return n;
}

char *nub_redact_dup(const char *in)
{
  char *masked = mask_dup(in), *out;
  size_t cap = escaped_len(masked) + 1;

  out = nub_malloc(cap);
  escape(out, cap, masked);
  nub_free(masked);
  return out;
}

char *nub_redact_vfmt(const char *fmt, va_list ap)
{
  char *raw = nub_vasprintf(fmt, ap), *clean = nub_redact_dup(raw);

  nub_free(raw);
  return clean;
}
