/* dep.c - the vocabulary of dependencies: name -> spec maps, string
 * arrays, npm's alias specs and os/cpu/libc filters. */
#include "dep.h"

#include <stdio.h>
#include <string.h>

#include "nub_alloc.h"

void nub_depmap_release(struct nub_depmap *m)
{
  for (size_t i = 0; i < m->n; i++) {
    nub_free(m->v[i].name);
    nub_free(m->v[i].spec);
  }
  nub_free(m->v);
  m->v = NULL;
  m->n = 0;
}

void nub_depmap_copy(struct nub_depmap *dst, const struct nub_depmap *src)
{
  if (!src->n)
    return; /* (no allocation per package for what most have none of) */
  dst->v = nub_calloc(src->n + 1, sizeof(*dst->v));
  for (size_t i = 0; i < src->n; i++) {
    dst->v[i].name = nub_strdup(src->v[i].name);
    dst->v[i].spec = nub_strdup(src->v[i].spec);
  }
  dst->n = src->n;
}

const char *nub_depmap_get(const struct nub_depmap *m, const char *name)
{
  for (size_t i = 0; i < m->n; i++)
    if (!strcmp(m->v[i].name, name))
      return m->v[i].spec;
  return NULL;
}

bool nub_spec_npm_alias(const char *spec, char *name, size_t cap, const char **range)
{
  const char *s = spec + 4, *at;

  if (strncmp(spec, "npm:", 4))
    return false;
  at = strchr(s[0] == '@' ? s + 1 : s, '@');
  snprintf(name, cap, "%.*s", (int)(at ? (size_t)(at - s) : strlen(s)), s);
  *range = at ? at + 1 : NULL;
  return true;
}

bool nub_strarray_has(char *const *v, size_t n, const char *s)
{
  for (size_t i = 0; i < n; i++)
    if (!strcmp(v[i], s))
      return true;
  return false;
}

void nub_strarray_free(char **v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    nub_free(v[i]);
  nub_free(v);
}

bool nub_platform_allows(char *const *list, size_t n, const char *value)
{
  bool any_positive = false, matched = false;

  if (n == 0)
    return true;
  for (size_t i = 0; i < n; i++) {
    const char *s = list[i];
    if (s[0] == '!') {
      if (!strcmp(s + 1, value))
        return false;
    } else {
      any_positive = true;
      if (!strcmp(s, value) || !strcmp(s, "any"))
        matched = true;
    }
  }
  return !any_positive || matched;
}

bool nub_platform_allows_csv(const char *csv, const char *value)
{
  char *items[64], *copy;
  size_t n = 0;
  bool ok;

  if (!csv || !*csv)
    return true;
  copy = nub_strdup(csv);
  for (char *p = copy; p && n < 64;) {
    char *c = strchr(p, ',');
    if (c)
      *c = '\0';
    items[n++] = p;
    p = c ? c + 1 : NULL;
  }
  ok = nub_platform_allows(items, n, value);
  nub_free(copy);
  return ok;
}

char **nub_strarray_dup(char *const *v, size_t n)
{
  char **out;

  if (!n)
    return NULL;
  out = nub_calloc(n, sizeof(char *));
  for (size_t i = 0; i < n; i++)
    out[i] = nub_strdup(v[i]);
  return out;
}
