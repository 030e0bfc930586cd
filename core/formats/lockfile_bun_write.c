/* lockfile_bun_write.c - bun.lock as bun 1.4 writes it; see lockfile_bun.h.
 *
 * The layout, by what bun 1.4.5 writes: two-space indents and a comma after
 * every member of a multi-line object; "workspaces" (the project as "",
 * members by path), then trustedDependencies, overrides and catalogs when
 * there are any, then "packages" one entry per line with a blank line
 * between them, each [spec, registry, info, integrity] for a registry
 * package. The info object is on one line, its fields in bun's order:
 * dependencies, optionalDependencies, peerDependencies, optionalPeers, os,
 * cpu, libc, hasInstallScript, bin. */
#include "lockfile_bun.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "hoist_bun.h"
#include "nub_alloc.h"
#include "path.h"
#include "registry_url.h"
#include "workspace.h"

static void str(struct nub_buf *b, const char *s)
{
  nub_buf_addc(b, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '"': nub_buf_adds(b, "\\\""); break;
    case '\\': nub_buf_adds(b, "\\\\"); break;
    case '\b': nub_buf_adds(b, "\\b"); break;
    case '\f': nub_buf_adds(b, "\\f"); break;
    case '\n': nub_buf_adds(b, "\\n"); break;
    case '\r': nub_buf_adds(b, "\\r"); break;
    case '\t': nub_buf_adds(b, "\\t"); break;
    default:
      if (*p < 0x20)
        nub_buf_addf(b, "\\u%04X", *p);
      else
        nub_buf_addc(b, (char)*p);
    }
  }
  nub_buf_addc(b, '"');
}

void nub_lockfile_bun_str(struct nub_buf *b, const char *s)
{
  str(b, s);
}

static void indent(struct nub_buf *b, int level)
{
  for (int i = 0; i < level; i++)
    nub_buf_adds(b, "  ");
}

static int cmp_dep(const void *a, const void *b)
{
  return strcmp(((const struct nub_dep *)a)->name, ((const struct nub_dep *)b)->name);
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A sorted copy of m's entries (borrowed strings); skip: names left out. */
static struct nub_dep *sorted(const struct nub_depmap *m, const struct nub_depmap *skip,
                              size_t *n)
{
  struct nub_dep *v = nub_calloc(m->n + 1, sizeof(*v));

  *n = 0;
  for (size_t i = 0; i < m->n; i++)
    if (!skip || !nub_depmap_get(skip, m->v[i].name))
      v[(*n)++] = m->v[i];
  nub_sort(v, *n, sizeof(*v), cmp_dep);
  return v;
}

/* A "$name" override: the spec of the root's own dependency of that name,
 * or NULL (bun leaves such an entry out). Anything else as it is. */
static const char *override_spec(const struct nub_manifest *root, const char *spec)
{
  const char *s;

  if (spec[0] != '$')
    return spec;
  if ((s = nub_depmap_get(&root->deps, spec + 1)) || (s = nub_depmap_get(&root->dev, spec + 1)) ||
      (s = nub_depmap_get(&root->optional, spec + 1)))
    return s;
  return NULL;
}

static int cmp_raw(const void *a, const void *b)
{
  return strcmp((*(const struct nub_override_raw *const *)a)->key,
                (*(const struct nub_override_raw *const *)b)->key);
}

static bool ranged(const char *key)
{
  return strchr(key + (key[0] == '@'), '@') != NULL;
}

/* Whether bun records some override as an object (then lockfileVersion 3). */
static bool raw_nested(const struct nub_manifest *root)
{
  for (size_t i = 0; i < root->noverrides_raw; i++) {
    const struct nub_override_raw *r = &root->overrides_raw[i];
    if (r->spec ? override_spec(root, r->spec) && ranged(r->key) : true)
      return true;
  }
  return false;
}

/* package.json's "overrides" as bun 1.4 records them: sorted by key at each
 * level; a string under a key that carries a range ("b@^1") becomes that
 * key's "."; objects of one level kept as objects. */
static void raw_overrides(struct nub_buf *b, const struct nub_manifest *root)
{
  const struct nub_override_raw **v = nub_calloc(root->noverrides_raw + 1, sizeof(*v));
  size_t n = 0;
  bool any = false;

  for (size_t i = 0; i < root->noverrides_raw; i++)
    v[n++] = &root->overrides_raw[i];
  nub_sort(v, n, sizeof(*v), cmp_raw);
  for (size_t i = 0; i < n; i++) {
    const char *key = v[i]->key, *spec = v[i]->spec ? override_spec(root, v[i]->spec) : NULL;
    struct nub_dep *kids;
    size_t nk;

    if (v[i]->spec && !spec)
      continue;
    if (!any)
      nub_buf_adds(b, "  \"overrides\": {\n");
    any = true;
    indent(b, 2);
    str(b, key);
    if (spec && !ranged(key)) {
      nub_buf_adds(b, ": ");
      str(b, spec);
      nub_buf_adds(b, ",\n");
      continue;
    }
    nub_buf_adds(b, ": {\n");
    if (spec) {
      indent(b, 3);
      nub_buf_adds(b, "\".\": ");
      str(b, spec);
      nub_buf_adds(b, ",\n");
    }
    kids = sorted(&v[i]->kids, NULL, &nk);
    for (size_t k = 0; k < nk; k++) {
      const char *ks = override_spec(root, kids[k].spec);
      if (!ks)
        continue;
      indent(b, 3);
      str(b, kids[k].name);
      nub_buf_adds(b, ": ");
      str(b, ks);
      nub_buf_adds(b, ",\n");
    }
    nub_free(kids);
    indent(b, 2);
    nub_buf_adds(b, "},\n");
  }
  if (any)
    nub_buf_adds(b, "  },\n");
  nub_free(v);
}

static void put_override(struct nub_depmap *out, size_t *cap, char *name, const char *spec)
{
  NUB_GROW(out->v, *cap, out->n + 1);
  out->v[out->n].name = name;
  out->v[out->n++].spec = nub_strdup(spec);
}

void nub_lockfile_bun_overrides(const struct nub_manifest *root, struct nub_depmap *out)
{
  size_t cap = 0;

  memset(out, 0, sizeof(*out));
  if (!root->noverrides_raw) {
    for (size_t i = 0; i < root->overrides.n; i++)
      put_override(out, &cap, nub_strdup(root->overrides.v[i].name), root->overrides.v[i].spec);
    return;
  }
  for (size_t i = 0; i < root->noverrides_raw; i++) {
    const struct nub_override_raw *r = &root->overrides_raw[i];
    const char *spec = r->spec ? override_spec(root, r->spec) : NULL;
    if (spec)
      put_override(out, &cap, ranged(r->key) ? nub_asprintf("%s>.", r->key) : nub_strdup(r->key),
                   spec);
    for (size_t k = 0; k < r->kids.n; k++)
      if ((spec = override_spec(root, r->kids.v[k].spec)) != NULL)
        put_override(out, &cap, nub_asprintf("%s>%s", r->key, r->kids.v[k].name), spec);
  }
}

/* A multi-line dependency map of a workspace, at `level`. */
static void ws_group(struct nub_buf *b, int level, const char *key, const struct nub_depmap *m)
{
  size_t n;
  struct nub_dep *v;

  if (!m->n)
    return;
  v = sorted(m, NULL, &n);
  indent(b, level);
  str(b, key);
  nub_buf_adds(b, ": {\n");
  for (size_t i = 0; i < n; i++) {
    indent(b, level + 1);
    str(b, v[i].name);
    nub_buf_adds(b, ": ");
    str(b, v[i].spec);
    nub_buf_adds(b, ",\n");
  }
  indent(b, level);
  nub_buf_adds(b, "},\n");
  nub_free(v);
}

static int cmp_cstr(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void workspace(struct nub_buf *b, const char *key, const struct nub_manifest *m,
                      bool member)
{
  indent(b, 2);
  str(b, key);
  if (!m->name && !m->deps.n && !m->dev.n && !m->optional.n && !m->peer.n) {
    nub_buf_adds(b, ": {},\n");
    return;
  }
  nub_buf_adds(b, ": {\n");
  if (m->name) {
    indent(b, 3);
    nub_buf_adds(b, "\"name\": ");
    str(b, m->name);
    nub_buf_adds(b, ",\n");
  }
  if (member && m->version) {
    indent(b, 3);
    nub_buf_adds(b, "\"version\": ");
    str(b, m->version);
    nub_buf_adds(b, ",\n");
  }
  if (member && m->nbins) {
    indent(b, 3);
    nub_buf_adds(b, "\"bin\": {\n");
    for (size_t i = 0; i < m->nbins; i++) {
      indent(b, 4);
      str(b, m->bins[i].name);
      nub_buf_adds(b, ": ");
      str(b, m->bins[i].target);
      nub_buf_adds(b, ",\n");
    }
    indent(b, 3);
    nub_buf_adds(b, "},\n");
  }
  ws_group(b, 3, "dependencies", &m->deps);
  ws_group(b, 3, "devDependencies", &m->dev);
  ws_group(b, 3, "optionalDependencies", &m->optional);
  ws_group(b, 3, "peerDependencies", &m->peer);
  if (m->npeers_optional) { /* peerDependenciesMeta's optional ones, sorted */
    char **v = nub_calloc(m->npeers_optional, sizeof(char *));
    memcpy(v, m->peers_optional, m->npeers_optional * sizeof(char *));
    nub_sort(v, m->npeers_optional, sizeof(char *), cmp_cstr);
    indent(b, 3);
    nub_buf_adds(b, "\"optionalPeers\": [\n");
    for (size_t i = 0; i < m->npeers_optional; i++) {
      indent(b, 4);
      str(b, v[i]);
      nub_buf_adds(b, ",\n");
    }
    indent(b, 3);
    nub_buf_adds(b, "],\n");
    nub_free(v);
  }
  indent(b, 2);
  nub_buf_adds(b, "},\n");
}

/* ---- one package's info object ---------------------------------------------- */

static void field(struct nub_buf *b, bool *first, const char *key)
{
  nub_buf_adds(b, *first ? " " : ", ");
  *first = false;
  str(b, key);
  nub_buf_adds(b, ": ");
}

static void inline_map(struct nub_buf *b, bool *first, const char *key,
                       const struct nub_dep *v, size_t n)
{
  if (!n)
    return;
  field(b, first, key);
  nub_buf_adds(b, "{ ");
  for (size_t i = 0; i < n; i++) {
    if (i)
      nub_buf_adds(b, ", ");
    str(b, v[i].name);
    nub_buf_adds(b, ": ");
    str(b, v[i].spec);
  }
  nub_buf_adds(b, " }");
}

/* bun's tables of the values os and cpu take (its order: by length, then
 * bytes); libc's. */
static const char *const OS[] = {"aix", "linux", "sunos", "win32", "darwin", "android",
                                 "freebsd", "openbsd", NULL};
static const char *const CPU[] = {"arm", "ppc", "x32", "x64", "ia32", "mips", "s390",
                                  "arm64", "ppc64", "s390x", "mipsel", NULL};
static const char *const LIBC[] = {"glibc", "musl", NULL};

/* An os/cpu/libc list the way bun prints it: the set it allows, named by
 * what it includes or by what it leaves out (whichever is shorter), one
 * name bare, several in an array; nothing when it allows everything. */
static void negatable(struct nub_buf *b, bool *first, const char *key, char **v, size_t n,
                      const char *const *table)
{
  bool in[16] = {false}, any_pos = false;
  size_t nt = 0, nin = 0, shown = 0;
  bool names_in;

  if (!n)
    return;
  while (table[nt])
    nt++;
  for (size_t i = 0; i < n; i++)
    any_pos = any_pos || v[i][0] != '!';
  for (size_t t = 0; t < nt; t++) {
    bool named = false, negated = false;
    for (size_t i = 0; i < n; i++) {
      if (!strcmp(v[i], table[t]))
        named = true;
      if (v[i][0] == '!' && !strcmp(v[i] + 1, table[t]))
        negated = true;
    }
    in[t] = any_pos ? named && !negated : !negated;
    nin += in[t];
  }
  if (nin == nt)
    return;
  field(b, first, key);
  if (!nin) {
    nub_buf_adds(b, "\"none\"");
    return;
  }
  names_in = nt - nin >= nin;
  shown = names_in ? nin : nt - nin;
  if (shown > 1)
    nub_buf_adds(b, "[ ");
  for (size_t t = 0; t < nt; t++) {
    if (in[t] != names_in)
      continue;
    if (names_in)
      str(b, table[t]);
    else
      nub_buf_addf(b, "\"!%s\"", table[t]);
    if (shown > 1)
      nub_buf_adds(b, ", ");
  }
  if (shown > 1)
    nub_buf_adds(b, "]");
}

static bool also_dep(const struct nub_gpkg *p, const char *name)
{
  return nub_depmap_get(&p->dep_specs, name) || nub_depmap_get(&p->opt_specs, name);
}

static void info(struct nub_buf *b, const struct nub_gpkg *p)
{
  bool first = true;
  size_t n;
  struct nub_dep *v;

  nub_buf_addc(b, '{');
  v = sorted(&p->dep_specs, &p->opt_specs, &n);
  inline_map(b, &first, "dependencies", v, n);
  nub_free(v);
  v = sorted(&p->opt_specs, NULL, &n);
  inline_map(b, &first, "optionalDependencies", v, n);
  nub_free(v);
  {
    /* optional peers only peerDependenciesMeta names are "*", as bun
     * records them; a peer that is a dependency too is a dependency */
    struct nub_depmap peers = {0};
    size_t extra = 0;
    for (size_t i = 0; i < p->npeers_optional; i++)
      extra += !nub_depmap_get(&p->peers, p->peers_optional[i]);
    peers.v = nub_calloc(p->peers.n + extra + 1, sizeof(*peers.v));
    for (size_t i = 0; i < p->peers.n; i++)
      if (!also_dep(p, p->peers.v[i].name))
        peers.v[peers.n++] = p->peers.v[i];
    for (size_t i = 0; i < p->npeers_optional; i++)
      if (!nub_depmap_get(&p->peers, p->peers_optional[i]) && !also_dep(p, p->peers_optional[i])) {
        peers.v[peers.n].name = p->peers_optional[i];
        peers.v[peers.n++].spec = (char *)"*";
      }
    v = sorted(&peers, NULL, &n);
    inline_map(b, &first, "peerDependencies", v, n);
    nub_free(v);
    nub_free(peers.v);
  }
  {
    char **names = nub_calloc(p->npeers_optional + 1, sizeof(char *));
    size_t nn = 0;
    for (size_t i = 0; i < p->npeers_optional; i++)
      if (!also_dep(p, p->peers_optional[i]))
        names[nn++] = p->peers_optional[i];
    nub_sort(names, nn, sizeof(char *), cmp_str);
    if (nn) {
      field(b, &first, "optionalPeers");
      nub_buf_addc(b, '[');
      for (size_t i = 0; i < nn; i++) {
        if (i)
          nub_buf_adds(b, ", ");
        str(b, names[i]);
      }
      nub_buf_addc(b, ']');
    }
    nub_free(names);
  }
  negatable(b, &first, "os", p->os, p->nos, OS);
  negatable(b, &first, "cpu", p->cpu, p->ncpu, CPU);
  negatable(b, &first, "libc", p->libc, p->nlibc, LIBC);
  if (p->requires_build) {
    field(b, &first, "hasInstallScript");
    nub_buf_adds(b, "true");
  }
  if (p->bin_string && p->bin_raw.n) {
    field(b, &first, "bin");
    str(b, p->bin_raw.v[0].spec);
  } else if (p->bin_raw.n) {
    inline_map(b, &first, "bin", p->bin_raw.v, p->bin_raw.n);
  } else if (p->bin_dir) {
    field(b, &first, "binDir");
    str(b, p->bin_dir);
  }
  nub_buf_adds(b, first ? "}" : " }");
}

/* The registry element: "" for the build's default registry (bun's own
 * default), else the tarball's URL. */
static void registry(struct nub_buf *b, const struct nub_config *cfg, const struct nub_gpkg *p)
{
  char *url = p->tarball ? nub_strdup(p->tarball)
                         : nub_registry_tarball_url(cfg, p->name, p->version);
  const char *def = cfg->default_registry;

  if (!url || (def && !strncmp(url, def, strlen(def))))
    nub_buf_adds(b, "\"\"");
  else
    str(b, url);
  nub_free(url);
}

static void integrity(struct nub_buf *b, const char *sri)
{
  size_t n = sri ? strcspn(sri, " \t") : 0; /* the first hash of several */
  char *one = nub_strndup(sri ? sri : "", n);

  str(b, one);
  nub_free(one);
}

/* A package named by its tarball (a URL or a file), not a registry one
 * whose tarball lies off the registry's usual path: its key says so
 * ("name@<url>", where a registry package's is "name@<version>"). */
static bool is_url_dependency(const struct nub_gpkg *p)
{
  size_t n = strlen(p->name);
  return !strncmp(p->key, p->name, n) && p->key[n] == '@' &&
         (strstr(p->key + n + 1, "://") || !strncmp(p->key + n + 1, "file:", 5));
}

static int entry(struct nub_buf *b, const struct nub_bun_place *pl,
                 const struct nub_config *cfg, const struct nub_strmap *kept,
                 struct nub_err *err)
{
  const struct nub_gpkg *p = pl->pkg;

  indent(b, 2);
  str(b, pl->key);
  nub_buf_adds(b, ": [");
  if (pl->member) {
    /* (the alias: a member linked by path may have no name of its own) */
    char *spec = nub_asprintf("%s@workspace:%s", pl->alias, pl->member->dir);
    str(b, spec);
    nub_free(spec);
  } else if (pl->link) {
    char *spec = nub_asprintf("%s@link:%s", pl->alias, pl->link);
    str(b, spec);
    nub_buf_adds(b, ", {}");
    nub_free(spec);
  } else if (p->directory) {
    /* a folder: its path from the project, its own package.json's facts */
    char *spec = nub_asprintf("%s@file:%s", p->name, p->directory);
    str(b, spec);
    nub_free(spec);
    nub_buf_adds(b, ", ");
    info(b, p);
  } else if (p->tarball && !strncmp(p->tarball, "git+", 4)) {
    /* git: the commit, and bun's tag of the checkout (the commit too) */
    const char *hash = strrchr(p->tarball, '#');
    char *spec = nub_asprintf("%s@%s", p->name, p->tarball);
    str(b, spec);
    nub_free(spec);
    nub_buf_adds(b, ", ");
    info(b, p);
    nub_buf_adds(b, ", ");
    str(b, hash ? hash + 1 : "");
  } else if (p->tarball && (!strncmp(p->tarball, "http://", 7) ||
                            !strncmp(p->tarball, "https://", 8) ||
                            !strncmp(p->tarball, "file:", 5)) &&
             is_url_dependency(p)) {
    /* a tarball by URL or a file of the project's: named by it, no
     * registry element */
    char *spec;
    if (!strncmp(p->tarball, "file:", 5)) {
      char rel[4096];
      const char *path = p->tarball + 5;
      if (path[0] == '/' && cfg->project_dir &&
          nub_path_relative(cfg->project_dir, path, rel, sizeof(rel)) == 0)
        path = rel;
      spec = nub_asprintf("%s@%s", p->name, path);
    } else {
      spec = nub_asprintf("%s@%s", p->name, p->tarball);
    }
    str(b, spec);
    nub_free(spec);
    nub_buf_adds(b, ", ");
    info(b, p);
    nub_buf_adds(b, ", ");
    integrity(b, p->integrity);
  } else if (p->tarball && strncmp(p->tarball, "http", 4)) {
    return nub_err_set(err, -NUB_ESPEC, "%s@%s comes from %s, which nub cannot write into "
                       "bun.lock yet; run `bun install`", p->name, p->version, p->tarball);
  } else {
    char *spec = nub_asprintf("%s@%s", p->name, p->version);
    const char *was = kept ? nub_strmap_get(kept, spec) : NULL;
    str(b, spec);
    nub_free(spec);
    nub_buf_adds(b, ", ");
    registry(b, cfg, p);
    nub_buf_adds(b, ", ");
    if (was)
      nub_buf_adds(b, was); /* as the file had it: bun writes it back so */
    else
      info(b, p);
    nub_buf_adds(b, ", ");
    integrity(b, p->integrity);
  }
  nub_buf_adds(b, "]");
  return 0;
}

static int cmp_gpkg_key(const void *a, const void *b)
{
  return strcmp((*(struct nub_gpkg *const *)a)->pkg_key, (*(struct nub_gpkg *const *)b)->pkg_key);
}

/* package.json's packageExtensions as bun 1.4 records what they added:
 * "name@version": { "dependencies": [names], "peerDependencies": [names] },
 * by key; an optional dependency counts among "dependencies" (bun's
 * record), peerDependenciesMeta not at all. */
static void ext_section(struct nub_buf *out, const struct nub_graph *g)
{
  struct nub_gpkg **v = nub_calloc(g->npkgs + 1, sizeof(*v));
  size_t n = 0;

  for (size_t i = 0; i < g->npkgs; i++)
    if (g->pkgs[i]->ext_applied && g->pkgs[i]->pkg_key &&
        (!n || strcmp(v[n - 1]->pkg_key, g->pkgs[i]->pkg_key)))
      v[n++] = g->pkgs[i];
  nub_sort(v, n, sizeof(*v), cmp_gpkg_key);
  if (n)
    nub_buf_adds(out, "  \"packageExtensions\": {\n");
  for (size_t i = 0; i < n; i++) {
    cJSON *rec = cJSON_Parse(v[i]->ext_applied), *it;
    const char *groups[2][3] = {{"dependencies", "dependencies", "optionalDependencies"},
                                {"peerDependencies", "peerDependencies", NULL}};
    bool first_group = true;
    if (i && !strcmp(v[i - 1]->pkg_key, v[i]->pkg_key)) {
      cJSON_Delete(rec);
      continue;
    }
    nub_buf_addf(out, "    \"%s\": {", v[i]->pkg_key);
    for (int gi = 0; gi < 2; gi++) {
      bool any = false;
      for (int k = 1; k < 3 && groups[gi][k]; k++) {
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, groups[gi][k]))
        {
          if (!any)
            nub_buf_addf(out, "%s\"%s\": [", first_group ? " " : ", ", groups[gi][0]);
          nub_buf_addf(out, "%s\"%s\"", any ? ", " : "", it->valuestring);
          any = true;
        }
      }
      if (any) {
        nub_buf_adds(out, "]");
        first_group = false;
      }
    }
    nub_buf_adds(out, " },\n");
    cJSON_Delete(rec);
  }
  if (n)
    nub_buf_adds(out, "  },\n");
  nub_free(v);
}

int nub_lockfile_bun_write(const struct nub_graph *g, const struct nub_manifest *root,
                           const struct nub_workspace *ws, const struct nub_config *cfg,
                           int version, int config_version, const struct nub_strmap *kept,
                           struct nub_buf *out, struct nub_err *err)
{
  struct nub_bun_place *places = NULL;
  size_t nplaces = 0;
  int rc;

  if (root->overrides_deep)
    return nub_err_set(err, -NUB_ESPEC, "package.json's \"overrides\" nest more than one "
                       "level, which bun does not support and nub cannot write into bun.lock");
  for (size_t i = 0; !root->noverrides_raw && i < root->overrides.n; i++) {
    const char *nm = root->overrides.v[i].name;
    if (nm[0] && (strchr(nm + (nm[0] == '@'), '>') || strchr(nm + 1, '@')))
      return nub_err_set(err, -NUB_ESPEC, "the resolution '%s' is scoped, which nub cannot "
                         "write into bun.lock yet; run `bun install`", nm);
  }
  rc = nub_hoist_bun(g, root, ws, &places, &nplaces, err);
  if (rc < 0)
    return rc;
  /* bun 1.4 writes 3 with an override object, else 2 (or what was read) */
  if (raw_nested(root))
    version = 3;
  else if (version >= 3)
    version = 2;
  nub_buf_addf(out, "{\n  \"lockfileVersion\": %d,\n  \"configVersion\": %d,\n",
               version < 1 ? 1 : version, config_version);
  nub_buf_adds(out, "  \"workspaces\": {\n");
  workspace(out, "", root, false);
  if (ws) {
    const struct nub_ws_pkg **m = nub_calloc(ws->npkgs + 1, sizeof(*m));
    for (size_t i = 0; i < ws->npkgs; i++)
      m[i] = &ws->pkgs[i];
    /* by path, bytes (ws->pkgs is in that order already; sorted anyway) */
    for (size_t i = 1; i < ws->npkgs; i++)
      for (size_t j = i; j > 0 && strcmp(m[j - 1]->dir, m[j]->dir) > 0; j--) {
        const struct nub_ws_pkg *t = m[j];
        m[j] = m[j - 1];
        m[j - 1] = t;
      }
    for (size_t i = 0; i < ws->npkgs; i++)
      workspace(out, m[i]->dir, &m[i]->man, true);
    nub_free(m);
  }
  nub_buf_adds(out, "  },\n");
  {
    /* the trusted names the tree has, as package.json lists them */
    bool any = false;
    for (size_t i = 0; i < root->ntrusted; i++) {
      bool present = false;
      for (size_t k = 0; k < nplaces && !present; k++)
        present = places[k].pkg && !strcmp(places[k].pkg->name, root->trusted[i]);
      if (!present)
        continue;
      if (!any)
        nub_buf_adds(out, "  \"trustedDependencies\": [\n");
      any = true;
      indent(out, 2);
      str(out, root->trusted[i]);
      nub_buf_adds(out, ",\n");
    }
    if (any)
      nub_buf_adds(out, "  ],\n");
  }
  /* the patches, as package.json lists them */
  if (root->patched.n) {
    nub_buf_adds(out, "  \"patchedDependencies\": {\n");
    for (size_t i = 0; i < root->patched.n; i++) {
      indent(out, 2);
      str(out, root->patched.v[i].name);
      nub_buf_adds(out, ": ");
      str(out, root->patched.v[i].spec);
      nub_buf_adds(out, ",\n");
    }
    nub_buf_adds(out, "  },\n");
  }
  /* overrides (npm's as written, else resolutions and pnpm's by name) and
   * catalogs: maps by name, like a workspace's groups */
  if (root->noverrides_raw) {
    raw_overrides(out, root);
  } else {
    ws_group(out, 1, "overrides", &root->overrides);
  }
  {
    const struct nub_catalog *def = nub_catalog_find(root->catalogs, root->ncatalogs, "default");
    const struct nub_catalog **cs = nub_calloc(root->ncatalogs + 1, sizeof(*cs));
    size_t nc = 0;
    if (def)
      ws_group(out, 1, "catalog", &def->deps);
    for (size_t c = 0; c < root->ncatalogs; c++)
      if (strcmp(root->catalogs[c].name, "default"))
        cs[nc++] = &root->catalogs[c];
    for (size_t i = 1; i < nc; i++) /* by name */
      for (size_t j = i; j > 0 && strcmp(cs[j - 1]->name, cs[j]->name) > 0; j--) {
        const struct nub_catalog *t = cs[j];
        cs[j] = cs[j - 1];
        cs[j - 1] = t;
      }
    if (nc) {
      nub_buf_adds(out, "  \"catalogs\": {\n");
      for (size_t c = 0; c < nc; c++)
        ws_group(out, 2, cs[c]->name, &cs[c]->deps);
      nub_buf_adds(out, "  },\n");
    }
    nub_free(cs);
  }
  ext_section(out, g);
  if (!nplaces) {
    nub_buf_adds(out, "  \"packages\": {}\n}\n");
  } else {
    nub_buf_adds(out, "  \"packages\": {\n");
    for (size_t i = 0; i < nplaces && rc == 0; i++) {
      if (i)
        nub_buf_adds(out, ",\n\n");
      rc = entry(out, &places[i], cfg, kept, err);
    }
    nub_buf_adds(out, ",\n  }\n}\n");
  }
  nub_bun_places_free(places, nplaces);
  return rc;
}
