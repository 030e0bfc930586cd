/* manifest.c - package.json reader. */
#include "manifest.h"

#include <cJSON.h>
#include <errno.h>
#include <string.h>

#include "nub_alloc.h"
#include "nub_plat.h"
#include "path.h"

void nub_text_linecol(const char *text, size_t off, int *line, int *col)
{
  int l = 1, c = 1;

  for (size_t i = 0; i < off && text[i]; i++) {
    if (text[i] == '\n') {
      l++;
      c = 1;
    } else {
      c++;
    }
  }
  *line = l;
  *col = c;
}

void nub_json_depmap(const void *obj, struct nub_depmap *out)
{
  const cJSON *o = obj, *it;
  size_t n = 0;

  out->v = NULL;
  out->n = 0;
  if (!cJSON_IsObject(o))
    return; /* arrays, null, strings: legacy oddities read as empty */
  cJSON_ArrayForEach(it, o) n++;
  if (!n)
    return;
  out->v = nub_calloc(n, sizeof(*out->v));
  cJSON_ArrayForEach(it, o)
  {
    if (!it->string)
      continue;
    out->v[out->n].name = nub_strdup(it->string);
    out->v[out->n].spec = nub_strdup(cJSON_IsString(it) ? it->valuestring : "*");
    out->n++;
  }
}

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

const char *nub_depmap_get(const struct nub_depmap *m, const char *name)
{
  for (size_t i = 0; i < m->n; i++)
    if (!strcmp(m->v[i].name, name))
      return m->v[i].spec;
  return NULL;
}

void nub_json_strarray(const void *arr, char ***out, size_t *n)
{
  const cJSON *a = arr, *it;
  size_t k = 0;

  *out = NULL;
  *n = 0;
  if (cJSON_IsString(a)) { /* "os": "linux" happens */
    *out = nub_calloc(1, sizeof(char *));
    (*out)[0] = nub_strdup(a->valuestring);
    *n = 1;
    return;
  }
  if (!cJSON_IsArray(a))
    return;
  cJSON_ArrayForEach(it, a) k++;
  if (!k)
    return;
  *out = nub_calloc(k, sizeof(char *));
  cJSON_ArrayForEach(it, a)
  {
    if (cJSON_IsString(it))
      (*out)[(*n)++] = nub_strdup(it->valuestring);
  }
}

void nub_strarray_free(char **v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    nub_free(v[i]);
  nub_free(v);
}

static void add_bin(struct nub_bin **out, size_t *n, size_t *cap,
                    const char *name, const char *target)
{
  char nm[256], tg[4096];

  if (!nub_bin_name(name, nm, sizeof(nm)))
    return; /* unsafe names ("", "..", "../x") are dropped, like npm */
  if (nub_path_normalize(target, tg, sizeof(tg)) < 0)
    return;
  for (size_t i = 0; i < *n; i++)
    if (!strcmp((*out)[i].name, nm))
      return;
  NUB_GROW(*out, *cap, *n + 1);
  (*out)[*n].name = nub_strdup(nm);
  (*out)[*n].target = nub_strdup(tg);
  (*n)++;
}

void nub_json_bins(const void *pkg, const char *pkgname, struct nub_bin **out,
                   size_t *n)
{
  const cJSON *bin = cJSON_GetObjectItemCaseSensitive(pkg, "bin"), *it;
  size_t cap = 0;

  *out = NULL;
  *n = 0;
  if (cJSON_IsString(bin) && pkgname) {
    add_bin(out, n, &cap, pkgname, bin->valuestring);
  } else if (cJSON_IsObject(bin)) {
    cJSON_ArrayForEach(it, bin)
    {
      if (it->string && cJSON_IsString(it))
        add_bin(out, n, &cap, it->string, it->valuestring);
    }
  }
}

static char *dup_str(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? nub_strdup(v->valuestring) : NULL;
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

int nub_manifest_parse(struct nub_manifest *out, const char *text, size_t len,
                       const char *path, struct nub_err *err)
{
  const char *end = NULL;
  cJSON *root, *scripts, *dirs, *pnpm;

  memset(out, 0, sizeof(*out));
  if (len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
      (unsigned char)text[2] == 0xBF) {
    text += 3;
    len -= 3;
  }
  root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
  if (!root || !cJSON_IsObject(root)) {
    int line, col;
    size_t off = end && end >= text ? (size_t)(end - text) : 0;
    const char *marker = strstr(text, "\n<<<<<<< ");
    cJSON_Delete(root);
    if (marker || !strncmp(text, "<<<<<<< ", 8))
      return nub_err_set(err, -NUB_EMANIFEST,
                         "%s has unresolved merge-conflict markers; resolve them "
                         "and try again", path);
    if (!root && len > 0) {
      nub_text_linecol(text, off, &line, &col);
      return nub_err_set(err, -NUB_EMANIFEST,
                         "%s is not valid JSON: unexpected input at line %d "
                         "column %d", path, line, col);
    }
    return nub_err_set(err, -NUB_EMANIFEST, "%s must contain a JSON object", path);
  }
  out->name = dup_str(root, "name");
  out->version = dup_str(root, "version");
  nub_json_depmap(cJSON_GetObjectItemCaseSensitive(root, "dependencies"), &out->deps);
  nub_json_depmap(cJSON_GetObjectItemCaseSensitive(root, "devDependencies"), &out->dev);
  nub_json_depmap(cJSON_GetObjectItemCaseSensitive(root, "optionalDependencies"),
                  &out->optional);
  nub_json_depmap(cJSON_GetObjectItemCaseSensitive(root, "peerDependencies"), &out->peer);
  {
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "bundleDependencies");
    if (!b)
      b = cJSON_GetObjectItemCaseSensitive(root, "bundledDependencies");
    nub_json_strarray(b, &out->bundled, &out->nbundled);
  }
  nub_json_bins(root, out->name, &out->bins, &out->nbins);
  dirs = cJSON_GetObjectItemCaseSensitive(root, "directories");
  if (!out->nbins && cJSON_IsObject(dirs))
    out->directories_bin = dup_str(dirs, "bin");
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(root, "os"), &out->os, &out->nos);
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(root, "cpu"), &out->cpu, &out->ncpu);
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(root, "libc"), &out->libc, &out->nlibc);
  out->package_manager = dup_str(root, "packageManager");
  scripts = cJSON_GetObjectItemCaseSensitive(root, "scripts");
  if (cJSON_IsObject(scripts)) {
    out->has_scripts_field = true;
    out->preinstall = dup_str(scripts, "preinstall");
    out->install = dup_str(scripts, "install");
    out->postinstall = dup_str(scripts, "postinstall");
    out->prepare = dup_str(scripts, "prepare");
  }
  /* Which dependencies may run install scripts: bun's trustedDependencies,
   * pnpm's onlyBuiltDependencies, or nub's own allowBuilds list. */
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(root, "trustedDependencies"),
                    &out->trusted, &out->ntrusted);
  pnpm = cJSON_GetObjectItemCaseSensitive(root, "pnpm");
  if (!out->ntrusted && cJSON_IsObject(pnpm))
    nub_json_strarray(cJSON_GetObjectItemCaseSensitive(pnpm, "onlyBuiltDependencies"),
                      &out->trusted, &out->ntrusted);
  if (!out->ntrusted)
    nub_json_strarray(cJSON_GetObjectItemCaseSensitive(root, "allowBuilds"),
                      &out->trusted, &out->ntrusted);
  cJSON_Delete(root);
  return 0;
}

int nub_manifest_load(struct nub_manifest *out, const char *dir, struct nub_err *err)
{
  char *path = nub_asprintf("%s/package.json", dir), *text = NULL;
  size_t len = 0;
  int rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, 64u << 20, &text, &len);

  if (rc < 0) {
    memset(out, 0, sizeof(*out));
    rc = nub_err_set(err, rc == -ENOENT ? -NUB_EMANIFEST : rc,
                     rc == -ENOENT ? "no package.json in %s" : "cannot read %s/package.json: %s",
                     dir, nub_strerror(rc));
    nub_free(path);
    return rc;
  }
  rc = nub_manifest_parse(out, text, len, "package.json", err);
  nub_free(text);
  nub_free(path);
  return rc;
}

void nub_manifest_release(struct nub_manifest *m)
{
  nub_free(m->name);
  nub_free(m->version);
  nub_depmap_release(&m->deps);
  nub_depmap_release(&m->dev);
  nub_depmap_release(&m->optional);
  nub_depmap_release(&m->peer);
  nub_strarray_free(m->bundled, m->nbundled);
  for (size_t i = 0; i < m->nbins; i++) {
    nub_free(m->bins[i].name);
    nub_free(m->bins[i].target);
  }
  nub_free(m->bins);
  nub_free(m->directories_bin);
  nub_strarray_free(m->os, m->nos);
  nub_strarray_free(m->cpu, m->ncpu);
  nub_strarray_free(m->libc, m->nlibc);
  nub_free(m->package_manager);
  nub_free(m->preinstall);
  nub_free(m->install);
  nub_free(m->postinstall);
  nub_free(m->prepare);
  nub_strarray_free(m->trusted, m->ntrusted);
  memset(m, 0, sizeof(*m));
}
