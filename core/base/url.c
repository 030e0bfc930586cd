/* url.c - see url.h. */
#include "url.h"

#include <string.h>

#include "nub_alloc.h"

bool nub_is_http_url(const char *s)
{
  return !strncmp(s, "http://", 7) || nub_is_https_url(s);
}

bool nub_is_https_url(const char *s)
{
  return !strncmp(s, "https://", 8);
}

bool nub_url_authority(const char *url, struct nub_url_authority *a)
{
  const char *p = strstr(url, "://");

  memset(a, 0, sizeof(*a));
  if (!p)
    return false;
  a->start = a->host = p + 3;
  a->end = a->start + strcspn(a->start, "/?#");
  for (const char *q = a->start; q < a->end; q++)
    if (*q == '@')
      a->at = q; /* the last '@' ends the userinfo */
  if (a->at) {
    a->userinfo = a->start;
    a->host = a->at + 1;
  }
  return true;
}

void nub_url_host(const char *url, char *out, size_t cap)
{
  struct nub_url_authority a;
  size_t n;

  if (!cap)
    return;
  out[0] = '\0';
  if (!nub_url_authority(url, &a))
    return;
  n = (size_t)(a.end - a.host) < cap - 1 ? (size_t)(a.end - a.host) : cap - 1;
  memcpy(out, a.host, n);
  out[n] = '\0';
}

char *nub_url_strip_userinfo(const char *s)
{
  struct nub_url_authority a;
  const char *scheme_end, *scheme, *cut_from, *colon;
  bool web;

  if (!nub_url_authority(s, &a) || !a.userinfo)
    return NULL;
  scheme_end = a.start - 3;
  for (scheme = scheme_end; scheme > s && scheme[-1] != '+'; scheme--)
    ;
  web = (scheme_end - scheme == 4 && !strncmp(scheme, "http", 4)) ||
        (scheme_end - scheme == 5 && !strncmp(scheme, "https", 5));
  if (web) {
    cut_from = a.start;
  } else {
    colon = memchr(a.start, ':', (size_t)(a.at - a.start));
    if (!colon)
      return NULL; /* "ssh://git@host": a user name, no secret */
    cut_from = colon;
  }
  /* keep the '@' only where a user name stays before it */
  return nub_asprintf("%.*s%s", (int)(cut_from - s), s, web ? a.host : a.at);
}
