/* manifest.c - package.json reader. */
#include "manifest.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

#include "nub_alloc.h"
#include "url.h"
#include "nub_plat.h"
#include "path.h"

static char *dup_str(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? nub_strdup(v->valuestring) : NULL;
}

static void flatten(const cJSON *o, const char *prefix, struct nub_depmap *out, size_t *cap)
{
  const cJSON *it;

  cJSON_ArrayForEach(it, o)
  {
    char *key;
    if (!it->string)
      continue;
    if (!strcmp(it->string, ".")) {
      if (prefix && cJSON_IsString(it)) {
        NUB_GROW(out->v, *cap, out->n + 1);
        out->v[out->n].name = nub_strdup(prefix);
        out->v[out->n].spec = nub_strdup(it->valuestring);
        out->n++;
      }
      continue;
    }
    /* keys keep their range ("foo@1"): the resolver matches it */
    key = prefix ? nub_asprintf("%s>%s", prefix, it->string) : nub_strdup(it->string);
    if (cJSON_IsString(it)) {
      NUB_GROW(out->v, *cap, out->n + 1);
      out->v[out->n].name = key;
      out->v[out->n].spec = nub_strdup(it->valuestring);
      out->n++;
      continue;
    }
    if (cJSON_IsObject(it))
      flatten(it, key, out, cap);
    nub_free(key);
  }
}

/* A yarn resolution path ("**" / "a/b/c", "@s/a/@t/b") as the key the
 * resolver looks up: the last package, under its parent ("b>c",
 * "@s/a>@t/b"); a scoped name is two segments. In place: it only shrinks. */
static void yarn_key(char *s)
{
  const char *names[2] = {NULL, NULL}; /* the last two names */
  size_t lens[2] = {0, 0};
  const char *p = s;
  char out[1024];

  while (!strncmp(p, "**/", 3))
    p += 3;
  while (*p) {
    const char *e = strchr(p, '/');
    if (*p == '@' && e)
      e = strchr(e + 1, '/'); /* "@scope/name" */
    if (!e)
      e = p + strlen(p);
    names[0] = names[1];
    lens[0] = lens[1];
    names[1] = p;
    lens[1] = (size_t)(e - p);
    p = *e ? e + 1 : e;
  }
  if (!names[1])
    return;
  if (names[0])
    snprintf(out, sizeof(out), "%.*s>%.*s", (int)lens[0], names[0], (int)lens[1], names[1]);
  else
    snprintf(out, sizeof(out), "%.*s", (int)lens[1], names[1]);
  memcpy(s, out, strlen(out) + 1);
}

/* npm "overrides" in its own shape (nub_manifest.overrides_raw). */
static void read_overrides_raw(const cJSON *o, struct nub_manifest *out)
{
  const cJSON *it, *kid;
  size_t n = 0;

  if (!cJSON_IsObject(o))
    return;
  cJSON_ArrayForEach(it, o) n++;
  out->overrides_raw = n ? nub_calloc(n, sizeof(*out->overrides_raw)) : NULL;
  cJSON_ArrayForEach(it, o)
  {
    struct nub_override_raw *r = &out->overrides_raw[out->noverrides_raw];
    if (!it->string || (!cJSON_IsString(it) && !cJSON_IsObject(it)))
      continue;
    r->key = nub_strdup(it->string);
    if (cJSON_IsString(it)) {
      r->spec = nub_strdup(it->valuestring);
    } else {
      size_t k = 0;
      cJSON_ArrayForEach(kid, it) k++;
      r->kids.v = k ? nub_calloc(k, sizeof(*r->kids.v)) : NULL;
      cJSON_ArrayForEach(kid, it)
      {
        if (cJSON_IsObject(kid))
          out->overrides_deep = true;
        if (!kid->string || !cJSON_IsString(kid))
          continue;
        r->kids.v[r->kids.n].name = nub_strdup(kid->string);
        r->kids.v[r->kids.n].spec = nub_strdup(kid->valuestring);
        r->kids.n++;
      }
    }
    out->noverrides_raw++;
  }
}

/* The settings a team's tool applies and nub does not (yet): npm 12's
 * "patchedDependencies" (bun's are applied: patching.h) and
 * "packageExtensions", and pnpm's own under "pnpm". */
static void read_unapplied(const cJSON *root, const cJSON *pnpm, struct nub_manifest *out)
{
  static const char *const top[] = {"packageExtensions"};
  static const char *const in_pnpm[] = {"patchedDependencies", "packageExtensions",
                                        "peerDependencyRules", "neverBuiltDependencies",
                                        "ignoredBuiltDependencies", "allowedVersions"};
  size_t cap = 0;

  for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++)
    if (cJSON_GetObjectItemCaseSensitive(root, top[i])) {
      NUB_GROW(out->unapplied, cap, out->nunapplied + 1);
      out->unapplied[out->nunapplied++] = nub_strdup(top[i]);
    }
  for (size_t i = 0; cJSON_IsObject(pnpm) && i < sizeof(in_pnpm) / sizeof(in_pnpm[0]); i++)
    if (cJSON_GetObjectItemCaseSensitive(pnpm, in_pnpm[i])) {
      NUB_GROW(out->unapplied, cap, out->nunapplied + 1);
      out->unapplied[out->nunapplied++] = nub_asprintf("pnpm.%s", in_pnpm[i]);
    }
}

void nub_pkg_ext_release(struct nub_pkg_ext *e)
{
  nub_free(e->name);
  nub_free(e->range);
  nub_depmap_release(&e->deps);
  nub_depmap_release(&e->optional);
  nub_depmap_release(&e->peers);
  nub_strarray_free(e->peers_optional, e->npeers_optional);
}

/* "packageExtensions": selector ("name" or "name@range") -> the maps to
 * add. Entries that are not objects are left out (npm refuses the file,
 * which its own install then says). */
static void read_pkg_exts(const cJSON *root, struct nub_manifest *out)
{
  const cJSON *pe = cJSON_GetObjectItemCaseSensitive(root, "packageExtensions"), *it;
  size_t cap = 0;
  char *t;

  if (!cJSON_IsObject(pe))
    return;
  t = cJSON_PrintUnformatted(pe);
  out->pkg_exts_json = nub_strdup(t);
  cJSON_free(t);
  cJSON_ArrayForEach(it, pe)
  {
    const char *sel = it->string, *at;
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(it, "peerDependenciesMeta"), *m;
    struct nub_pkg_ext *e;
    if (!sel || !*sel || !cJSON_IsObject(it))
      continue;
    NUB_GROW(out->pkg_exts, cap, out->npkg_exts + 1);
    e = &out->pkg_exts[out->npkg_exts++];
    memset(e, 0, sizeof(*e));
    at = strchr(sel + 1, '@');
    e->name = at ? nub_strndup(sel, (size_t)(at - sel)) : nub_strdup(sel);
    e->range = at && at[1] ? nub_strdup(at + 1) : NULL;
    nub_json_depmap(cJSON_GetObjectItemCaseSensitive(it, "dependencies"), &e->deps);
    nub_json_depmap(cJSON_GetObjectItemCaseSensitive(it, "optionalDependencies"), &e->optional);
    nub_json_depmap(cJSON_GetObjectItemCaseSensitive(it, "peerDependencies"), &e->peers);
    if (!cJSON_IsObject(meta))
      meta = NULL;
    cJSON_ArrayForEach(m, meta)
    {
      if (m->string && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "optional"))) {
        e->peers_optional = nub_realloc(e->peers_optional,
                                        (e->npeers_optional + 1) * sizeof(char *));
        e->peers_optional[e->npeers_optional++] = nub_strdup(m->string);
      }
    }
  }
}

/* npm "overrides" (nested objects: "a>b"), yarn "resolutions" (paths) and
 * "pnpm.overrides" ("a>b" already), as one map of "[parent>]name" keys. */
static void read_overrides(const cJSON *root, struct nub_depmap *out)
{
  const cJSON *pn = cJSON_GetObjectItemCaseSensitive(root, "pnpm");
  const cJSON *srcs[3] = {cJSON_GetObjectItemCaseSensitive(root, "overrides"),
                          cJSON_GetObjectItemCaseSensitive(root, "resolutions"),
                          cJSON_IsObject(pn) ? cJSON_GetObjectItemCaseSensitive(pn, "overrides")
                                             : NULL};
  size_t cap = 0;

  for (int i = 0; i < 3; i++) {
    size_t from = out->n;
    if (!cJSON_IsObject(srcs[i]))
      continue;
    flatten(srcs[i], NULL, out, &cap);
    if (i == 1)
      for (size_t k = from; k < out->n; k++)
        yarn_key(out->v[k].name);
  }
}

const struct nub_catalog *nub_catalog_find(const struct nub_catalog *v, size_t n,
                                           const char *name)
{
  for (size_t i = 0; i < n; i++)
    if (!strcmp(v[i].name, name))
      return &v[i];
  return NULL;
}

void nub_catalogs_free(struct nub_catalog *v, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    nub_free(v[i].name);
    nub_depmap_release(&v[i].deps);
  }
  nub_free(v);
}

/* bun's catalogs: "catalog" is the default one, "catalogs" the named ones;
 * a name seen twice keeps the first. */
static void read_catalogs(const cJSON *o, struct nub_manifest *out)
{
  const cJSON *def = cJSON_GetObjectItemCaseSensitive(o, "catalog");
  const cJSON *named = cJSON_GetObjectItemCaseSensitive(o, "catalogs"), *it;
  size_t cap = out->ncatalogs;

  if (cJSON_IsObject(def) && !nub_catalog_find(out->catalogs, out->ncatalogs, "default")) {
    NUB_GROW(out->catalogs, cap, out->ncatalogs + 1);
    out->catalogs[out->ncatalogs].name = nub_strdup("default");
    nub_json_depmap(def, &out->catalogs[out->ncatalogs].deps);
    out->ncatalogs++;
  }
  if (!cJSON_IsObject(named))
    return;
  cJSON_ArrayForEach(it, named)
  {
    if (!it->string || !cJSON_IsObject(it) ||
        nub_catalog_find(out->catalogs, out->ncatalogs, it->string))
      continue;
    NUB_GROW(out->catalogs, cap, out->ncatalogs + 1);
    out->catalogs[out->ncatalogs].name = nub_strdup(it->string);
    nub_json_depmap(it, &out->catalogs[out->ncatalogs].deps);
    out->ncatalogs++;
  }
}

/* "workspaces": ["a/<glob>"] or {"packages": ["a/<glob>"], "catalog": {...}} */
static void read_workspaces(const cJSON *root, struct nub_manifest *out)
{
  const cJSON *ws = cJSON_GetObjectItemCaseSensitive(root, "workspaces");

  if (cJSON_IsArray(ws)) {
    out->has_workspaces = true;
    nub_json_strarray(ws, &out->workspaces, &out->nworkspaces);
  } else if (cJSON_IsObject(ws)) {
    out->has_workspaces = true;
    nub_json_strarray(cJSON_GetObjectItemCaseSensitive(ws, "packages"), &out->workspaces,
                      &out->nworkspaces);
    read_catalogs(ws, out);
  }
  read_catalogs(root, out);
}

/* A spec with a secret in its URL ("git+https://user:token@host/r.git")
 * is read without it; the spec as written goes to m->secrets, for the git
 * command or download that needs it (nub_manifest_secret). */
static void keep_secrets_aside(struct nub_manifest *m)
{
  struct nub_depmap *maps[4] = {&m->deps, &m->dev, &m->optional, &m->peer};
  size_t cap = 0;

  for (int k = 0; k < 4; k++) {
    for (size_t i = 0; i < maps[k]->n; i++) {
      struct nub_dep *d = &maps[k]->v[i];
      char *clean = nub_url_strip_userinfo(d->spec);
      if (!clean)
        continue;
      if (!nub_depmap_get(&m->secrets, d->name)) {
        NUB_GROW(m->secrets.v, cap, m->secrets.n + 1);
        m->secrets.v[m->secrets.n].name = nub_strdup(d->name);
        m->secrets.v[m->secrets.n].spec = d->spec;
        m->secrets.n++;
      } else {
        nub_free(d->spec);
      }
      d->spec = clean;
    }
  }
}

const char *nub_manifest_secret(const struct nub_manifest *m, const char *name)
{
  return nub_depmap_get(&m->secrets, name);
}

int nub_manifest_parse(struct nub_manifest *out, const char *text, size_t len,
                       const char *path, struct nub_err *err)
{
  cJSON *root, *scripts, *dirs, *pnpm;
  int rc;

  memset(out, 0, sizeof(*out));
  rc = nub_json_parse(text, len, path, -NUB_EMANIFEST, 0, &root, err);
  if (rc < 0)
    return rc;
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
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
    /* peerDependenciesMeta: the peers marked optional */
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "peerDependenciesMeta"), *it;
    if (!cJSON_IsObject(meta))
      meta = NULL;
    cJSON_ArrayForEach(it, meta)
    {
      if (!it->string || !nub_json_true(it, "optional"))
        continue;
      out->peers_optional = nub_realloc(out->peers_optional,
                                        (out->npeers_optional + 1) * sizeof(char *));
      out->peers_optional[out->npeers_optional++] = nub_strdup(it->string);
    }
  }
  keep_secrets_aside(out);
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
  {
    const cJSON *de = cJSON_GetObjectItemCaseSensitive(root, "devEngines");
    char *t = de ? cJSON_PrintUnformatted(de) : NULL;
    out->dev_engines = t ? nub_strdup(t) : NULL;
    cJSON_free(t);
  }
  scripts = cJSON_GetObjectItemCaseSensitive(root, "scripts");
  if (cJSON_IsObject(scripts)) {
    out->has_scripts_field = true;
    out->preinstall = dup_str(scripts, "preinstall");
    out->install = dup_str(scripts, "install");
    out->postinstall = dup_str(scripts, "postinstall");
    out->prepare = dup_str(scripts, "prepare");
    nub_json_depmap(scripts, &out->scripts);
  }
  /* Which dependencies may run install scripts: bun's trustedDependencies,
   * pnpm's onlyBuiltDependencies, or nub's own allowBuilds list. */
  out->has_native_deps = cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root,
                                                                       "nativeDependencies"));
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(root, "nativeDependencies"),
                    &out->native_deps, &out->nnative_deps);
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(root, "trustedDependencies"),
                    &out->trusted, &out->ntrusted);
  pnpm = cJSON_GetObjectItemCaseSensitive(root, "pnpm");
  if (!out->ntrusted && cJSON_IsObject(pnpm))
    nub_json_strarray(cJSON_GetObjectItemCaseSensitive(pnpm, "onlyBuiltDependencies"),
                      &out->trusted, &out->ntrusted);
  if (!out->ntrusted)
    nub_json_strarray(cJSON_GetObjectItemCaseSensitive(root, "allowBuilds"),
                      &out->trusted, &out->ntrusted);
  {
    /* npm 12's "allowScripts": {"esbuild": true, "core-js@3.1.0": false} */
    const cJSON *as = cJSON_GetObjectItemCaseSensitive(root, "allowScripts"), *it;
    size_t capt = out->ntrusted, capd = 0;
    if (!cJSON_IsObject(as))
      as = NULL;
    cJSON_ArrayForEach(it, as)
    {
      if (!it->string || !cJSON_IsBool(it))
        continue;
      if (cJSON_IsTrue(it)) {
        NUB_GROW(out->trusted, capt, out->ntrusted + 1);
        out->trusted[out->ntrusted++] = nub_strdup(it->string);
      } else {
        NUB_GROW(out->denied, capd, out->ndenied + 1);
        out->denied[out->ndenied++] = nub_strdup(it->string);
      }
    }
  }
  {
    /* yarn's "dependenciesMeta": {"fsevents": {"built": false}}: berry
     * builds every dependency unless told not to; a no is a denial here */
    const cJSON *dm = cJSON_GetObjectItemCaseSensitive(root, "dependenciesMeta"), *it;
    size_t capd = out->ndenied;
    if (!cJSON_IsObject(dm))
      dm = NULL;
    cJSON_ArrayForEach(it, dm)
    {
      const cJSON *built = cJSON_GetObjectItemCaseSensitive(it, "built");
      if (it->string && cJSON_IsFalse(built)) {
        NUB_GROW(out->denied, capd, out->ndenied + 1);
        out->denied[out->ndenied++] = nub_strdup(it->string);
      }
    }
  }
  read_unapplied(root, pnpm, out);
  read_pkg_exts(root, out);
  nub_json_depmap(cJSON_GetObjectItemCaseSensitive(root, "patchedDependencies"), &out->patched);
  read_overrides(root, &out->overrides);
  read_overrides_raw(cJSON_GetObjectItemCaseSensitive(root, "overrides"), out);
  read_workspaces(root, out);
  cJSON_Delete(root);
  return 0;
}

int nub_manifest_load(struct nub_manifest *out, const char *dir, struct nub_err *err)
{
  return nub_manifest_load_as(out, dir, "package.json", err);
}

int nub_manifest_load_as(struct nub_manifest *out, const char *dir, const char *shown,
                         struct nub_err *err)
{
  char *path = nub_asprintf("%s/package.json", dir), *text = NULL;
  size_t len = 0;
  int rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, 64u << 20, &text, &len);

  if (rc < 0) {
    memset(out, 0, sizeof(*out));
    if (rc == -ENOENT)
      rc = nub_err_set(err, -NUB_ENOMANIFEST, "no package.json in %s", dir);
    else if (rc == -EINVAL || rc == -EISDIR) /* a FIFO, a device, a directory */
      rc = nub_err_set(err, -NUB_EMANIFEST, "%s/package.json is not a regular file", dir);
    else
      rc = nub_err_set(err, rc, "cannot read %s/package.json: %s", dir, nub_strerror(rc));
    nub_free(path);
    return rc;
  }
  rc = nub_manifest_parse(out, text, len, shown, err);
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
  nub_depmap_release(&m->secrets);
  nub_depmap_release(&m->overrides);
  nub_depmap_release(&m->patched);
  for (size_t i = 0; i < m->noverrides_raw; i++) {
    nub_free(m->overrides_raw[i].key);
    nub_free(m->overrides_raw[i].spec);
    nub_depmap_release(&m->overrides_raw[i].kids);
  }
  nub_free(m->overrides_raw);
  nub_strarray_free(m->bundled, m->nbundled);
  nub_strarray_free(m->unapplied, m->nunapplied);
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
  nub_free(m->dev_engines);
  for (size_t i = 0; i < m->npkg_exts; i++)
    nub_pkg_ext_release(&m->pkg_exts[i]);
  nub_free(m->pkg_exts);
  nub_free(m->pkg_exts_json);
  nub_free(m->preinstall);
  nub_free(m->install);
  nub_free(m->postinstall);
  nub_free(m->prepare);
  nub_depmap_release(&m->scripts);
  nub_strarray_free(m->trusted, m->ntrusted);
  nub_strarray_free(m->denied, m->ndenied);
  nub_strarray_free(m->peers_optional, m->npeers_optional);
  nub_strarray_free(m->native_deps, m->nnative_deps);
  nub_strarray_free(m->workspaces, m->nworkspaces);
  nub_catalogs_free(m->catalogs, m->ncatalogs);
  memset(m, 0, sizeof(*m));
}

const char *nub_manifest_own_spec(const struct nub_manifest *m, const char *name)
{
  const char *own = nub_depmap_get(&m->deps, name);

  if (!own)
    own = nub_depmap_get(&m->dev, name);
  if (!own)
    own = nub_depmap_get(&m->optional, name);
  return own;
}

bool nub_approval_matches(const char *entry, const char *name, const char *version)
{
  size_t n = strlen(name);
  const char *v;

  if (strncmp(entry, name, n) || (entry[n] && entry[n] != '@'))
    return false;
  if (!entry[n] || !version)
    return true;
  for (v = entry + n + 1; *v;) { /* "1.0.0 || 1.0.1" */
    size_t k;
    while (*v == ' ' || *v == '|')
      v++;
    k = strcspn(v, " |");
    if (k && strlen(version) == k && !strncmp(v, version, k))
      return true;
    v += k;
  }
  return false;
}
