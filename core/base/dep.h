/* dep.h - the vocabulary of dependencies, shared by package.json, the
 * lockfile readers and the JSON and YAML helpers: name -> spec maps,
 * command links, string arrays, npm's alias specs, os/cpu/libc filters. */
#ifndef NUB_DEP_H
#define NUB_DEP_H

#include <stdbool.h>
#include <stddef.h>

struct nub_dep {
  char *name, *spec;
};

struct nub_depmap {
  struct nub_dep *v;
  size_t n;
};

struct nub_bin {
  char *name, *target; /* validated command name, normalised relative path */
};

void nub_depmap_release(struct nub_depmap *m);
/* dst (empty) as a copy of src; nothing allocated for an empty src. */
void nub_depmap_copy(struct nub_depmap *dst, const struct nub_depmap *src);
void nub_strarray_free(char **v, size_t n);
/* A copy of v[0..n) (NULL for none); nub_strarray_free it. */
char **nub_strarray_dup(char *const *v, size_t n);
/* An npm alias spec, "npm:<name>[@<range>]": true with the name (into
 * name, cap bytes) and *range (NULL when none is given); false for any
 * other spec. The name runs to the first '@' after its scope, as npm
 * reads it. */
bool nub_spec_npm_alias(const char *spec, char *name, size_t cap, const char **range);
/* Whether s is one of v[0..n). */
bool nub_strarray_has(char *const *v, size_t n, const char *s);
const char *nub_depmap_get(const struct nub_depmap *m, const char *name);

/* npm's os/cpu/libc filter: entries may be negated with '!'; an empty list
 * allows everything. */
bool nub_platform_allows(char *const *list, size_t n, const char *value);
/* The same for a comma-joined list ("darwin,!win32"). */
bool nub_platform_allows_csv(const char *csv, const char *value);

#endif
