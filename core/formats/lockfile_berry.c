/* lockfile_berry.c - yarn berry's yarn.lock, read with libyaml. */
#include "lockfile_berry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nub_alloc.h"
#include "semver.h"
#include "yaml_read.h"

bool nub_lockfile_is_berry(const char *text, size_t len)
{
  /* berry writes __metadata first, after its header comment; yarn 1's
   * first line that is not a comment is an entry */
  size_t i = 0;

  while (i < len) {
    size_t e = i;
    while (e < len && text[e] != '\n')
      e++;
    if (e > i && text[i] != '#' && text[i] != '\r')
      return e - i >= 11 && !memcmp(text + i, "__metadata:", 11);
    i = e + 1;
  }
  return false;
}

bool nub_berry_split(const char *descriptor, char **name, const char **range)
{
  const char *at = strchr(descriptor[0] == '@' ? descriptor + 1 : descriptor, '@');

  *name = NULL;
  *range = NULL;
  if (!at || at == descriptor)
    return false;
  *name = nub_strndup(descriptor, (size_t)(at - descriptor));
  *range = at + 1;
  return true;
}

/* Lockfiles before version 7 (yarn 2 and 3) wrote descriptors as
 * package.json has them; berry adds its default protocol on reading. */
static char *normalise_old(const char *name, const char *range)
{
  struct nub_range *r = NULL;
  bool semverish = nub_range_parse(&r, range) == 0;
  bool tag = range[0] && strspn(range, "abcdefghijklmnopqrstuvwxyz0123456789-._") ==
                             strlen(range) && (range[0] >= 'a' && range[0] <= 'z');

  nub_range_free(r);
  if ((semverish || tag) && !strchr(range, ':'))
    return nub_asprintf("%s@npm:%s", name, range);
  return nub_asprintf("%s@%s", name, range);
}

static int rd_meta_flags(const struct nub_yrd *r, yaml_node_t *n, const char *what,
                         char ***out, size_t *nout)
{
  yaml_node_t *m;
  int rc = nub_y_map(r, n, what, &m);

  if (rc || !m)
    return rc;
  /* the key given twice in one entry: the last one is the one (the first's
   * count must not run past the second's array) */
  nub_strarray_free(*out, *nout);
  *nout = 0;
  *out = nub_calloc(nub_y_npairs(m) + 1, sizeof(char *));
  NUB_Y_FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = nub_y_node(r, pr->value), *vm;
    if ((rc = nub_y_key(r, pr, what, &k)) || (rc = nub_y_map(r, v, what, &vm)))
      return rc;
    if (!vm)
      continue;
    NUB_Y_FOR_PAIRS(vm, fp) {
      const char *f = nub_y_sval(nub_y_node(r, fp->key));
      if (f && !strcmp(f, "optional") && nub_y_is_true(nub_y_node(r, fp->value))) {
        /* "name" or "name@version": the name is what is optional */
        const char *at = strchr(k[0] == '@' ? k + 1 : k, '@');
        (*out)[(*nout)++] = at ? nub_strndup(k, (size_t)(at - k)) : nub_strdup(k);
      }
    }
  }
  return 0;
}

static int rd_entry(const struct nub_yrd *r, yaml_node_t *v, struct nub_berry_entry *e)
{
  int rc = 0;

  if (v->type != YAML_MAPPING_NODE)
    return nub_y_bad(r, v, "a lockfile entry must be a mapping");
  NUB_Y_FOR_PAIRS(v, pr) {
    const char *k;
    yaml_node_t *f = nub_y_node(r, pr->value);
    if ((rc = nub_y_key(r, pr, "entry", &k)))
      return rc;
    if (!strcmp(k, "resolution"))
      rc = nub_y_str(r, f, "resolution", &e->locator);
    else if (!strcmp(k, "version"))
      rc = nub_y_str(r, f, "version", &e->version);
    else if (!strcmp(k, "linkType")) {
      const char *t = nub_y_sval(f);
      if (!t || (strcmp(t, "hard") && strcmp(t, "soft") && strcmp(t, "HARD") &&
                 strcmp(t, "SOFT")))
        return nub_y_bad(r, f, "linkType must be hard or soft");
      e->soft = t[0] == 's' || t[0] == 'S';
    } else if (!strcmp(k, "conditions"))
      rc = nub_y_str(r, f, "conditions", &e->conditions);
    else if (!strcmp(k, "dependencies"))
      rc = nub_y_depmap(r, f, "dependencies", &e->deps);
    else if (!strcmp(k, "peerDependencies"))
      rc = nub_y_depmap(r, f, "peerDependencies", &e->peers);
    else if (!strcmp(k, "bin"))
      rc = nub_y_depmap(r, f, "bin", &e->bins);
    else if (!strcmp(k, "dependenciesMeta"))
      rc = rd_meta_flags(r, f, "dependenciesMeta", &e->optional, &e->noptional);
    else if (!strcmp(k, "peerDependenciesMeta"))
      rc = rd_meta_flags(r, f, "peerDependenciesMeta", &e->opt_peers, &e->nopt_peers);
    else if (!strcmp(k, "checksum"))
      rc = nub_y_str(r, f, "checksum", &e->checksum);
    if (rc)
      return rc;
  }
  if (!e->locator)
    return nub_y_bad(r, v, "the entry has no resolution");
  if (!nub_berry_split(e->locator, &e->name, (const char **)&e->reference)) {
    nub_free(e->name);
    e->name = NULL;
    return nub_y_bad(r, v, "resolution '%s' is not name@reference", e->locator);
  }
  e->reference = nub_strdup(e->reference);
  return 0;
}

static void entry_release(struct nub_berry_entry *e)
{
  nub_free(e->locator);
  nub_free(e->name);
  nub_free(e->reference);
  nub_free(e->version);
  nub_free(e->conditions);
  nub_depmap_release(&e->deps);
  nub_depmap_release(&e->peers);
  nub_depmap_release(&e->bins);
  nub_strarray_free(e->optional, e->noptional);
  nub_strarray_free(e->opt_peers, e->nopt_peers);
  nub_free(e->checksum);
}

/* berry splits an entry's key on commas with the space around them */
static int add_descriptors(struct nub_berry_lock *l, const struct nub_yrd *r,
                           yaml_node_t *kn, const char *key, struct nub_berry_entry *e)
{
  const char *s = key;

  while (*s) {
    const char *end = strchr(s, ',');
    size_t n = end ? (size_t)(end - s) : strlen(s);
    char *d, *name;
    const char *range;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
      n--;
    d = nub_strndup(s, n);
    if (!nub_berry_split(d, &name, &range) || !*range) {
      nub_free(name);
      nub_y_bad(r, kn, "'%s' is not a descriptor (name@range)", d);
      nub_free(d);
      return r->err->code;
    }
    if (l->version <= 6) {
      char *norm = normalise_old(name, range);
      nub_free(d);
      d = norm;
    }
    nub_free(name);
    if (nub_strmap_get(&l->by_descriptor, d)) {
      nub_y_bad(r, kn, "descriptor '%s' is listed twice", d);
      nub_free(d);
      return r->err->code;
    }
    nub_strmap_put(&l->by_descriptor, d, e);
    nub_free(d);
    if (!end)
      break;
    s = end + 1;
    while (*s == ' ' || *s == '\t')
      s++;
  }
  return 0;
}

int nub_lockfile_berry_parse(struct nub_berry_lock *l, const char *text, size_t len,
                             const char *fname, struct nub_err *err)
{
  yaml_document_t doc;
  yaml_node_t *root, *meta = NULL;
  struct nub_yrd r = {&doc, fname, err, -NUB_ELOCKFILE};
  size_t cap = 0;
  int rc;

  memset(l, 0, sizeof(*l));
  rc = nub_yaml_load(&doc, text, len, fname, -NUB_ELOCKFILE, err);
  if (rc < 0)
    return rc;
  root = yaml_document_get_root_node(&doc);
  if (!root || root->type != YAML_MAPPING_NODE) {
    rc = root ? nub_y_bad(&r, root, "expected a mapping of entries with __metadata")
              : nub_err_set(err, -NUB_ELOCKFILE, "%s is empty", fname);
    goto out;
  }
  NUB_Y_FOR_PAIRS(root, pr) {
    const char *k = nub_y_sval(nub_y_node(&r, pr->key));
    if (k && !strcmp(k, "__metadata"))
      meta = nub_y_node(&r, pr->value);
  }
  if (!meta || meta->type != YAML_MAPPING_NODE) {
    rc = nub_y_bad(&r, meta ? meta : root, "__metadata must be a mapping with the lockfile's "
                   "version");
    goto out;
  }
  NUB_Y_FOR_PAIRS(meta, pr) {
    const char *k = nub_y_sval(nub_y_node(&r, pr->key));
    yaml_node_t *v = nub_y_node(&r, pr->value);
    if (!k)
      continue;
    if (!strcmp(k, "version")) {
      const char *s = nub_y_sval(v);
      char *end = NULL;
      long n = s ? strtol(s, &end, 10) : 0;
      if (!s || !*s || *end || n <= 0 || n > 1000) {
        rc = nub_y_bad(&r, v, "__metadata.version must be a number");
        goto out;
      }
      l->version = (int)n;
    } else if (!strcmp(k, "cacheKey") && (rc = nub_y_str(&r, v, "cacheKey", &l->cache_key)))
      goto out;
  }
  if (!l->version) {
    rc = nub_y_bad(&r, meta, "__metadata has no version");
    goto out;
  }
  if (l->version < 4) {
    r.code = -NUB_ELOCKVERSION;
    rc = nub_y_bad(&r, meta, "lockfile version %d is older than any yarn berry nub reads "
                   "(4 and later); run yarn install with yarn 3 or later to update it",
                   l->version);
    goto out;
  }
  NUB_Y_FOR_PAIRS(root, pr) {
    yaml_node_t *kn = nub_y_node(&r, pr->key), *v = nub_y_node(&r, pr->value);
    const char *k = nub_y_sval(kn);
    struct nub_berry_entry *e;
    if (!k) {
      rc = nub_y_bad(&r, kn, "entry keys must be strings");
      goto out;
    }
    if (!strcmp(k, "__metadata"))
      continue;
    NUB_GROW(l->v, cap, l->n + 1);
    e = &l->v[l->n++];
    memset(e, 0, sizeof(*e));
    e->line = (int)kn->start_mark.line + 1;
    if ((rc = rd_entry(&r, v, e)))
      goto out;
  }
  /* the maps point at entries: filled once the array stops moving */
  for (size_t i = 0; i < l->n; i++) {
    struct nub_berry_entry *e = &l->v[i];
    if (nub_strmap_get(&l->by_locator, e->locator)) {
      rc = nub_err_set(err, -NUB_ELOCKFILE, "%s:%d: resolution '%s' has two entries", fname,
                       e->line, e->locator);
      goto out;
    }
    nub_strmap_put(&l->by_locator, e->locator, e);
  }
  {
    size_t i = 0;
    NUB_Y_FOR_PAIRS(root, pr) {
      yaml_node_t *kn = nub_y_node(&r, pr->key);
      const char *k = nub_y_sval(kn);
      if (!strcmp(k, "__metadata"))
        continue;
      if ((rc = add_descriptors(l, &r, kn, k, &l->v[i++])))
        goto out;
    }
  }
out:
  yaml_document_delete(&doc);
  if (rc < 0)
    nub_berry_lock_release(l);
  return rc;
}

void nub_berry_lock_release(struct nub_berry_lock *l)
{
  for (size_t i = 0; i < l->n; i++)
    entry_release(&l->v[i]);
  nub_free(l->v);
  nub_free(l->cache_key);
  nub_strmap_release(&l->by_descriptor, NULL);
  nub_strmap_release(&l->by_locator, NULL);
  memset(l, 0, sizeof(*l));
}
