/* gitspec.c - what a git dependency's spec and resolved id say; see
 * gitspec.h. */
#include "gitspec.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "nub_alloc.h"
#include "url.h"

static bool is_hex(const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!isxdigit((unsigned char)s[i]))
      return false;
  return true;
}

/* "user/repo" or "user/repo#ref": GitHub's shorthand, as npm reads it. */
static bool is_shorthand(const char *s)
{
  const char *slash = strchr(s, '/'), *end = strchr(s, '#');
  size_t n = end ? (size_t)(end - s) : strlen(s);

  if (!slash || slash == s || (size_t)(slash - s) + 1 >= n || s[0] == '@' || s[0] == '.')
    return false;
  for (size_t i = 0; i < n; i++)
    if (!(isalnum((unsigned char)s[i]) || strchr("-_./", s[i])) ||
        (s[i] == '/' && s + i != slash))
      return false;
  return true;
}

bool nub_git_is_spec(const char *spec)
{
  return !strncmp(spec, "git+", 4) || !strncmp(spec, "git://", 6) ||
         !strncmp(spec, "github:", 7) || is_shorthand(spec);
}

void nub_gitspec_release(struct nub_gitspec *g)
{
  nub_free(g->url);
  nub_free(g->ref);
  nub_free(g->semver);
  memset(g, 0, sizeof(*g));
}

int nub_git_parse(const char *spec, struct nub_gitspec *out, struct nub_err *err)
{
  const char *hash = strchr(spec, '#');
  size_t n = hash ? (size_t)(hash - spec) : strlen(spec);
  char *base = nub_strndup(spec, n);

  memset(out, 0, sizeof(*out));
  if (!strncmp(base, "git+", 4)) {
    out->url = nub_strdup(base + 4);
  } else if (!strncmp(base, "git://", 6)) {
    out->url = nub_strdup(base);
  } else {
    const char *path = !strncmp(base, "github:", 7) ? base + 7 : base;
    if (!is_shorthand(path)) {
      nub_free(base);
      return nub_err_set(err, -NUB_ESPEC, "'%s' is not a git dependency nub understands", spec);
    }
    out->url = nub_asprintf("https://github.com/%s%s", path,
                            strlen(path) > 4 && !strcmp(path + strlen(path) - 4, ".git") ? ""
                                                                                        : ".git");
  }
  nub_free(base);
  /* ssh://git@host:user/repo (npm's scp-like form) is git's git@host:user/repo */
  if (!strncmp(out->url, "ssh://", 6)) {
    char *colon = strchr(out->url + 6, ':'), *slash = strchr(out->url + 6, '/');
    if (colon && (!slash || colon < slash) && !isdigit((unsigned char)colon[1])) {
      char *scp = nub_strdup(out->url + 6);
      nub_free(out->url);
      out->url = scp;
    }
  }
  if (out->url[0] == '-') {
    nub_gitspec_release(out);
    return nub_err_set(err, -NUB_EUNSAFE, "'%s' is not a repository URL", spec);
  }
  if (hash && hash[1]) {
    if (!strncmp(hash + 1, "semver:", 7))
      out->semver = nub_strdup(hash + 8);
    else
      out->ref = nub_strdup(hash + 1);
  }
  return 0;
}

bool nub_git_is_short_commit(const char *ref)
{
  size_t n = ref ? strlen(ref) : 0;
  return n >= 4 && n < 40 && is_hex(ref, n);
}

char *nub_git_resolved(const char *url, const char *commit)
{
  char *clean = nub_url_strip_userinfo(url), *r;

  r = nub_asprintf("git+%s#%s", clean ? clean : url, commit);
  nub_free(clean);
  return r;
}

enum nub_git_form nub_git_form_of(const char *tarball)
{
  if (!tarball)
    return NUB_GIT_NOT;
  if (!strncmp(tarball, "git+", 4))
    return NUB_GIT_PACKED;
  if (!strncmp(tarball, NUB_GIT_CHECKOUT, strlen(NUB_GIT_CHECKOUT)))
    return NUB_GIT_AS_CHECKOUT;
  if (!strncmp(tarball, NUB_GIT_YARN, strlen(NUB_GIT_YARN)))
    return NUB_GIT_AS_YARN;
  return NUB_GIT_NOT;
}

bool nub_git_split_resolved(const char *resolved, char **url, char commit[41])
{
  static const size_t prefix[] = {0, 4, sizeof(NUB_GIT_CHECKOUT) - 1, sizeof(NUB_GIT_YARN) - 1};
  const char *hash;
  size_t skip = prefix[nub_git_form_of(resolved)];

  if (!skip)
    return false;
  hash = strrchr(resolved, '#');
  if (!hash || strlen(hash + 1) != 40 || !is_hex(hash + 1, 40))
    return false;
  *url = nub_strndup(resolved + skip, (size_t)(hash - resolved - skip));
  memcpy(commit, hash + 1, 41);
  return true;
}
