/* patches.c - the patches a project commits (patches.h). */
#include "patches.h"

#include <errno.h>
#include <string.h>

#include "integrity.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "path.h"
#include "semver.h"
#include "workspace.h"

#define MAX_PATCH_FILE (64u << 20)

/* "name@spec" (a scope's leading '@' is the name's) into its parts. */
static int split_key(struct nub_patch_rule *r, const char *key)
{
  const char *at = key[0] ? strrchr(key + 1, '@') : NULL;
  struct nub_version v;

  r->name = at ? nub_strndup(key, (size_t)(at - key)) : nub_strdup(key);
  if (!nub_valid_pkg_name(r->name))
    return -1;
  if (!at) {
    r->kind = NUB_PATCH_FOR_ALL;
    return 0;
  }
  r->spec = nub_strdup(at + 1);
  if (nub_version_parse(&v, r->spec) == 0) {
    nub_version_release(&v);
    r->kind = NUB_PATCH_FOR_VERSION;
    return 0;
  }
  {
    struct nub_range *rg = NULL;
    if (nub_range_parse(&rg, r->spec) < 0)
      return -1;
    nub_range_free(rg);
  }
  r->kind = NUB_PATCH_FOR_RANGE;
  return 0;
}

static void hash_file(const char *data, size_t len, char out[65])
{
  char *norm = nub_malloc(len + 1);
  size_t n = 0;
  unsigned char h[32];

  for (size_t i = 0; i < len; i++)
    if (!(data[i] == '\r' && i + 1 < len && data[i + 1] == '\n'))
      norm[n++] = data[i];
  nub_sha256(norm, n, h);
  nub_hex(h, 32, out);
  nub_free(norm);
}

/* r's file read and hashed. */
static int load_file(struct nub_patch_rule *r, const char *root, const char *home,
                     struct nub_err *err)
{
  char *data = NULL;
  size_t len = 0;
  int rc;

  r->path = nub_project_path(root, r->file);
  rc = nub_plat_read_file_at(NUB_PLAT_CWD, r->path, MAX_PATCH_FILE, &data, &len);
  if (rc < 0)
    return nub_err_set(err, -NUB_EPATCH, "%s's patchedDependencies: the patch for %s, %s, "
                       "cannot be read: %s", home, r->key, r->file, nub_strerror(rc));
  hash_file(data, len, r->hash);
  {
    struct nub_hasher h;
    struct nub_sri s;
    size_t dl = 0;
    memset(&s, 0, sizeof(s));
    nub_hasher_init(&h, NUB_HASH_SHA512);
    nub_hasher_update(&h, data, len);
    nub_hasher_final(&h, s.digest, &dl);
    nub_hasher_release(&h);
    s.algo = NUB_HASH_SHA512;
    s.len = dl;
    nub_sri_format(&s, r->sri, sizeof(r->sri));
  }
  nub_free(data);
  return 0;
}

int nub_patches_load(struct nub_patches *ps, const char *root, const struct nub_depmap *m,
                     const char *home, struct nub_err *err)
{
  memset(ps, 0, sizeof(*ps));
  ps->home = home;
  if (!m->n)
    return 0;
  ps->v = nub_calloc(m->n, sizeof(*ps->v));
  for (size_t i = 0; i < m->n; i++) {
    struct nub_patch_rule *r = &ps->v[ps->n++];
    int rc;
    r->key = nub_strdup(m->v[i].name);
    r->file = nub_strdup(m->v[i].spec);
    if (split_key(r, r->key) < 0)
      return nub_err_set(err, -NUB_EPATCH,
                         "%s's patchedDependencies: '%s' is not a package name with an "
                         "optional version or range", home, r->key);
    if ((rc = load_file(r, root, home, err)) < 0)
      return rc;
  }
  return 0;
}

int nub_patches_load_files(struct nub_patches *ps, const char *root, char *const *files,
                           size_t n, const char *home, struct nub_err *err)
{
  memset(ps, 0, sizeof(*ps));
  ps->home = home;
  ps->v = nub_calloc(n + 1, sizeof(*ps->v));
  for (size_t i = 0; i < n; i++) {
    struct nub_patch_rule *r = &ps->v[ps->n++];
    int rc;
    r->key = nub_strdup(files[i]);
    r->file = nub_strdup(files[i]);
    r->kind = NUB_PATCH_FOR_FILE;
    if ((rc = load_file(r, root, home, err)) < 0)
      return rc;
  }
  return 0;
}

void nub_patches_add_text(struct nub_patches *ps, const char *key, char *text, size_t len,
                          bool optional)
{
  struct nub_patch_rule *r;

  ps->v = nub_realloc(ps->v, (ps->n + 1) * sizeof(*ps->v));
  r = &ps->v[ps->n++];
  memset(r, 0, sizeof(*r));
  r->key = nub_strdup(key);
  r->file = nub_strdup(key);
  r->kind = NUB_PATCH_FOR_FILE;
  r->text = text;
  r->len = len;
  r->optional = optional;
  hash_file(text, len, r->hash);
}

struct nub_patch_rule *nub_patches_find(struct nub_patches *ps, const char *name,
                                        const char *version, int *rc, struct nub_err *err)
{
  struct nub_patch_rule *range = NULL, *all = NULL;

  *rc = 0;
  for (size_t i = 0; i < ps->n; i++) {
    struct nub_patch_rule *r = &ps->v[i];
    if (!r->name || strcmp(r->name, name))
      continue;
    if (r->kind == NUB_PATCH_FOR_VERSION) {
      struct nub_version a, b;
      bool same = false;
      if (nub_version_parse(&a, r->spec) == 0) {
        if (nub_version_parse(&b, version) == 0) {
          same = nub_version_cmp(&a, &b) == 0;
          nub_version_release(&b);
        }
        nub_version_release(&a);
      }
      if (same)
        return r;
    } else if (r->kind == NUB_PATCH_FOR_RANGE) {
      if (nub_semver_satisfies(r->spec, version, false) != 1)
        continue;
      if (range) {
        *rc = nub_err_set(err, -NUB_EPATCH,
                          "%s's patchedDependencies: both %s and %s are for %s@%s; keep one, "
                          "or name the version", ps->home, range->key, r->key, name, version);
        return NULL;
      }
      range = r;
    } else {
      all = r;
    }
  }
  return range ? range : all;
}

int nub_patches_of_project(struct nub_patches *ps, const char *root,
                           const struct nub_workspace *ws, const struct nub_manifest *man,
                           bool manifest_home, struct nub_err *err)
{
  if (ws->patched.n)
    return nub_patches_load(ps, root, &ws->patched, "pnpm-workspace.yaml", err);
  if (manifest_home)
    return nub_patches_load(ps, root, &man->patched, "package.json", err);
  memset(ps, 0, sizeof(*ps));
  return 0;
}

void nub_patches_release(struct nub_patches *ps)
{
  for (size_t i = 0; i < ps->n; i++) {
    nub_free(ps->v[i].key);
    nub_free(ps->v[i].name);
    nub_free(ps->v[i].spec);
    nub_free(ps->v[i].file);
    nub_free(ps->v[i].path);
    nub_free(ps->v[i].text);
  }
  nub_free(ps->v);
  memset(ps, 0, sizeof(*ps));
}
