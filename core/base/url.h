/* url.h - the parts of an http(s) URL that credentials and messages depend
 * on, found one way for every module (config's credential scopes, the HTTP
 * client's redirects, the registry rules). Pure string work. */
#ifndef NUB_URL_H
#define NUB_URL_H

#include <stdbool.h>
#include <stddef.h>

/* Whether s is an http(s) URL. */
bool nub_is_http_url(const char *s);
/* Whether s is an https URL. */
bool nub_is_https_url(const char *s);

/* The authority of "scheme://[userinfo@]host[:port][/...]": from after
 * "://" to the first '/', '?' or '#'; the userinfo runs to the last '@'
 * inside it. */
struct nub_url_authority {
  const char *start;    /* first byte after "://" */
  const char *userinfo; /* == start when there is userinfo, else NULL */
  const char *at;       /* the '@' ending it, or NULL */
  const char *host;     /* host[:port] */
  const char *end;      /* one past the authority */
};
/* false when url has no "://". */
bool nub_url_authority(const char *url, struct nub_url_authority *a);

/* The host[:port] of a URL into out (no userinfo); "" when it has none. */
void nub_url_host(const char *url, char *out, size_t cap);

/* s (a URL, or a spec such as "git+https://...") without the secret in
 * its userinfo: all of the userinfo for http(s) ("https://TOKEN@h/r" ->
 * "https://h/r"), the password alone for other schemes (ssh's user name is
 * part of the address). NULL when there is nothing to remove. What nub
 * writes to files (lockfiles, state, the store) is always this form.
 * Caller frees. */
char *nub_url_strip_userinfo(const char *s);

#endif
