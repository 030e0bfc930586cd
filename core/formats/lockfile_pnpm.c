/* lockfile_pnpm.c - nub.lock (pnpm-lock.yaml v9) reader and writer.
 *
 * Reading goes through libyaml's document API. Writing does not use
 * libyaml's emitter: pnpm serialises with js-yaml, and a lockfile that pnpm
 * and nub both write must not churn. So the writer builds a tree from the
 * graph, sorts it the way pnpm's sortLockfileKeys does and prints it with
 * yaml_emit.h, under pnpm's rules (which keys are flow, where blank lines
 * go). */
#include "lockfile_pnpm.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "gitspec.h"
#include "nub_alloc.h"
#include "text.h"
#include "yaml_emit.h"
#include "yaml_read.h"

/* ---- pnpm's layout rules ------------------------------------------------- */

/* pnpm's sortLockfileKeys: these keys first, in this order, the rest by code
 * unit. It sorts deep, so a dependency *named* "os" or "name" moves up too;
 * pnpm's output has that quirk and so does ours. */
static const char *const pkg_key_order[] = {
    "resolution", "id", "name", "version", "engines", "cpu", "os", "libc", "deprecated",
    "hasBin", "prepare", "requiresBuild", "bundleDependencies", "peerDependencies",
    "peerDependenciesMeta", "dependencies", "optionalDependencies",
    "transitivePeerDependencies", "dev", "optional", NULL};
/* ... and for importers (pnpm reuses its root key order there). */
static const char *const importer_key_order[] = {
    "lockfileVersion", "settings", "catalogs", "overrides", "packageExtensionsChecksum",
    "pnpmfileChecksum", "patchedDependencies", "importers", "packages", NULL};

/* Collections under these keys are written in flow style, at any depth
 * (hence pnpm's `os: {specifier: 1.0.0, version: 1.0.0}` for a dependency
 * named "os"). */
static bool y_flow_key(const char *k)
{
  return !strcmp(k, "resolution") || !strcmp(k, "engines") || !strcmp(k, "cpu") ||
         !strcmp(k, "os") || !strcmp(k, "libc");
}

/* Mappings under these keys get a blank line before every entry. */
static bool y_blank_key(const char *k)
{
  return !strcmp(k, "importers") || !strcmp(k, "packages") || !strcmp(k, "snapshots");
}

static const struct nub_yaml_style pnpm_style = {y_flow_key, y_blank_key};

/* ---- graph -> tree ------------------------------------------------------ */

/* Length of the name in a "name@version" key: up to the first '@' after a
 * scope's leading one (a name holds no other '@'; a version may, as in
 * "foo@git+ssh://git@host/x"). 0 when there is no version part. */
static size_t key_name_len(const char *k)
{
  const char *at = k[0] ? strchr(k + 1, '@') : NULL;

  return at ? (size_t)(at - k) : 0;
}

/* alias: {specifier, version} for each of d[0..n) */
static struct nub_ynode *y_direct_map(struct nub_ydoc *t, const struct nub_gdirect *d, size_t n)
{
  struct nub_ynode *sub = nub_ymap(t);

  for (size_t i = 0; i < n; i++) {
    struct nub_ynode *e = nub_ymap(t);
    if (d[i].specifier)
      nub_yset_str(t, e, "specifier", d[i].specifier);
    if (d[i].ref)
      nub_yset_str(t, e, "version", d[i].ref);
    nub_yset(sub, d[i].alias, e);
  }
  return sub;
}

static void y_set_direct(struct nub_ydoc *t, struct nub_ynode *m, const char *key,
                         const struct nub_gdirect *d, size_t n)
{
  if (n)
    nub_yset(m, key, y_direct_map(t, d, n));
}

static void y_set_edges(struct nub_ydoc *t, struct nub_ynode *m, const char *key,
                        const struct nub_gedge *e, size_t n)
{
  struct nub_ynode *sub;

  if (!n)
    return;
  sub = nub_ymap(t);
  for (size_t i = 0; i < n; i++)
    nub_yset_str(t, sub, e[i].alias, e[i].ref);
  nub_yset(m, key, sub);
}

static const char *pkg_key_of(const struct nub_gpkg *p)
{
  return p->pkg_key ? p->pkg_key : p->key;
}

static struct nub_ynode *y_package(struct nub_ydoc *t, const struct nub_gpkg *p)
{
  struct nub_ynode *m = nub_ymap(t);
  const char *pk = pkg_key_of(p);
  size_t nl = key_name_len(pk);

  if (p->tarball && !strncmp(p->tarball, "git+", 4)) {
    /* pnpm's git resolution: {commit, repo, type: git} */
    struct nub_ynode *r = nub_ymap(t);
    char *url = NULL, commit[41];
    if (nub_git_split_resolved(p->tarball, &url, commit)) {
      nub_yset_str(t, r, "commit", nub_ydoc_keep(t, nub_strdup(commit)));
      nub_yset_str(t, r, "repo", nub_ydoc_keep(t, url));
      nub_yset_str(t, r, "type", "git");
      nub_yset(m, "resolution", r);
    }
  } else if (p->integrity || p->tarball || p->directory) {
    struct nub_ynode *r = nub_ymap(t);
    if (p->integrity)
      nub_yset_str(t, r, "integrity", p->integrity);
    if (p->tarball)
      nub_yset_str(t, r, "tarball", p->tarball);
    if (p->directory) {
      nub_yset_str(t, r, "directory", p->directory);
      nub_yset_str(t, r, "type", "directory");
    }
    nub_yset(m, "resolution", r);
  }
  /* name:/version: only where the key does not already say them (tarball
   * URLs, git) */
  if (p->name && (!nl || strlen(p->name) != nl || strncmp(p->name, pk, nl)))
    nub_yset_str(t, m, "name", p->name);
  if (p->version && (!nl || strcmp(p->version, pk + nl + 1)))
    nub_yset_str(t, m, "version", p->version);
  nub_yset_depmap(t, m, "engines", &p->engines);
  nub_yset_seq(t, m, "cpu", p->cpu, p->ncpu);
  nub_yset_seq(t, m, "os", p->os, p->nos);
  nub_yset_seq(t, m, "libc", p->libc, p->nlibc);
  if (p->deprecated)
    nub_yset_str(t, m, "deprecated", p->deprecated);
  if (p->has_bin)
    nub_yset(m, "hasBin", nub_yraw(t, "true"));
  nub_yset_depmap(t, m, "peerDependencies", &p->peers);
  if (p->npeers_optional) {
    struct nub_ynode *meta = nub_ymap(t);
    for (size_t i = 0; i < p->npeers_optional; i++) {
      struct nub_ynode *o = nub_ymap(t);
      nub_yset(o, "optional", nub_yraw(t, "true"));
      nub_yset(meta, p->peers_optional[i], o);
    }
    nub_yset(m, "peerDependenciesMeta", meta);
  }
  nub_yset_seq(t, m, "bundledDependencies", p->bundled, p->nbundled);
  nub_ysort(m, pkg_key_order);
  return m;
}

static struct nub_ynode *y_snapshot(struct nub_ydoc *t, const struct nub_gpkg *p)
{
  struct nub_ynode *m = nub_ymap(t);

  y_set_edges(t, m, "dependencies", p->deps, p->ndeps);
  y_set_edges(t, m, "optionalDependencies", p->optional_deps, p->noptional_deps);
  nub_yset_seq(t, m, "transitivePeerDependencies", p->transitive_peers, p->ntransitive_peers);
  if (p->optional)
    nub_yset(m, "optional", nub_yraw(t, "true"));
  nub_ysort(m, pkg_key_order);
  return m;
}

static int cmp_importer(const void *a, const void *b)
{
  return strcmp((*(struct nub_importer *const *)a)->path,
                (*(struct nub_importer *const *)b)->path);
}

static int cmp_by_pkg_key(const void *a, const void *b)
{
  const struct nub_gpkg *x = *(struct nub_gpkg *const *)a, *y = *(struct nub_gpkg *const *)b;
  int c = strcmp(pkg_key_of(x), pkg_key_of(y));

  return c ? c : strcmp(x->key, y->key);
}

static int cmp_by_key(const void *a, const void *b)
{
  return strcmp((*(struct nub_gpkg *const *)a)->key, (*(struct nub_gpkg *const *)b)->key);
}

void nub_lockfile_pnpm_write(const struct nub_graph *g, struct nub_buf *out)
{
  struct nub_ydoc t;
  struct nub_ynode *root, *settings, *sect;
  struct nub_importer **ims = NULL;
  struct nub_gpkg **pk = NULL;

  nub_ydoc_init(&t);
  root = nub_ymap(&t);
  nub_yset_str(&t, root, "lockfileVersion", "9.0");

  /* settings: pnpm writes them sorted by name */
  settings = nub_ymap(&t);
  nub_yset(settings, "autoInstallPeers", nub_yraw(&t, g->auto_install_peers ? "true" : "false"));
  nub_yset(settings, "excludeLinksFromLockfile",
        nub_yraw(&t, g->exclude_links ? "true" : "false"));
  for (size_t i = 0; i < g->settings_extra.n; i++) {
    const struct nub_dep *d = &g->settings_extra.v[i];
    if (strcmp(d->name, "autoInstallPeers") && strcmp(d->name, "excludeLinksFromLockfile"))
      nub_yset(settings, d->name, nub_yraw(&t, d->spec));
  }
  nub_ysort(settings, NULL);
  nub_yset(root, "settings", settings);

  if (g->ncatalogs) {
    sect = nub_ymap(&t);
    for (size_t i = 0; i < g->ncatalogs; i++)
      nub_yset(sect, g->catalogs[i].name,
               y_direct_map(&t, g->catalogs[i].entries, g->catalogs[i].n));
    nub_yset(root, "catalogs", sect);
  }

  /* overrides keep their configured order, as in pnpm */
  if (g->overrides.n)
    nub_yset_depmap(&t, root, "overrides", &g->overrides);
  if (g->ext_checksum)
    nub_yset_str(&t, root, "packageExtensionsChecksum", g->ext_checksum);
  if (g->pnpmfile_checksum)
    nub_yset_str(&t, root, "pnpmfileChecksum", g->pnpmfile_checksum);
  if (g->patched.n)
    nub_yset_depmap(&t, root, "patchedDependencies", &g->patched);

  sect = nub_ymap(&t);
  if (g->nimporters) {
    ims = nub_malloc(g->nimporters * sizeof(*ims));
    for (size_t i = 0; i < g->nimporters; i++)
      ims[i] = &g->importers[i];
    nub_sort(ims, g->nimporters, sizeof(*ims), cmp_importer);
  }
  for (size_t i = 0; i < g->nimporters; i++) {
    struct nub_ynode *im = nub_ymap(&t);
    y_set_direct(&t, im, "dependencies", ims[i]->deps, ims[i]->ndeps);
    y_set_direct(&t, im, "devDependencies", ims[i]->dev, ims[i]->ndev);
    y_set_direct(&t, im, "optionalDependencies", ims[i]->optional, ims[i]->noptional);
    nub_ysort(im, importer_key_order);
    nub_yset(sect, ims[i]->path, im);
  }
  nub_yset(root, "importers", sect);

  if (g->npkgs) {
    pk = nub_malloc(g->npkgs * sizeof(*pk));
    memcpy(pk, g->pkgs, g->npkgs * sizeof(*pk));
    /* packages: one entry per pkg_key, whatever the number of snapshots */
    nub_sort(pk, g->npkgs, sizeof(*pk), cmp_by_pkg_key);
    sect = nub_ymap(&t);
    for (size_t i = 0; i < g->npkgs; i++)
      if (!i || strcmp(pkg_key_of(pk[i]), pkg_key_of(pk[i - 1])))
        nub_yset(sect, pkg_key_of(pk[i]), y_package(&t, pk[i]));
    nub_yset(root, "packages", sect);

    nub_sort(pk, g->npkgs, sizeof(*pk), cmp_by_key);
    sect = nub_ymap(&t);
    for (size_t i = 0; i < g->npkgs; i++)
      nub_yset(sect, pk[i]->key, y_snapshot(&t, pk[i]));
    nub_yset(root, "snapshots", sect);
  }

  nub_yprint(out, root, &pnpm_style);
  nub_free(pk);
  nub_free(ims);
  nub_ydoc_free(&t);
}

/* ---- reading ------------------------------------------------------------ */

/* What the file may say but nub does not install: -NUB_ESPEC. */
static int rd_unsupported(struct nub_yrd *r, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int rd_unsupported(struct nub_yrd *r, const yaml_node_t *n, const char *fmt, ...)
{
  va_list ap;
  int rc;

  va_start(ap, fmt);
  rc = nub_y_vbad(r, -NUB_ESPEC, n, fmt, ap);
  va_end(ap);
  return rc;
}

static int rd_edges(struct nub_yrd *r, yaml_node_t *n, const char *what, struct nub_gedge **out,
                    size_t *nout)
{
  yaml_node_t *m;
  int rc = nub_y_map(r, n, what, &m);

  if (rc || !m)
    return rc;
  for (size_t i = 0; i < *nout; i++) {
    nub_free((*out)[i].alias);
    nub_free((*out)[i].ref);
  }
  nub_free(*out);
  *nout = 0;
  *out = nub_calloc(nub_y_npairs(m) + 1, sizeof(**out));
  NUB_Y_FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = nub_y_node(r, pr->value);
    if ((rc = nub_y_key(r, pr, what, &k)))
      return rc;
    if (!nub_y_sval(v) || nub_y_is_null(v))
      return nub_y_bad(r, v, "%s['%s'] must be a version or dependency path", what, k);
    (*out)[*nout].alias = nub_strdup(k);
    (*out)[(*nout)++].ref = nub_strdup(nub_y_sval(v));
  }
  return 0;
}

static int rd_direct(struct nub_yrd *r, yaml_node_t *n, const char *what, struct nub_gdirect **out,
                     size_t *nout)
{
  yaml_node_t *m;
  int rc = nub_y_map(r, n, what, &m);

  if (rc || !m)
    return rc;
  for (size_t i = 0; i < *nout; i++) {
    nub_free((*out)[i].alias);
    nub_free((*out)[i].specifier);
    nub_free((*out)[i].ref);
  }
  nub_free(*out);
  *nout = 0;
  *out = nub_calloc(nub_y_npairs(m) + 1, sizeof(**out));
  NUB_Y_FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = nub_y_node(r, pr->value), *e;
    struct nub_gdirect *d;
    if ((rc = nub_y_key(r, pr, what, &k)))
      return rc;
    if (v->type != YAML_MAPPING_NODE)
      return nub_y_bad(r, v, "%s['%s'] must be a mapping with specifier and version", what, k);
    d = &(*out)[(*nout)++];
    d->alias = nub_strdup(k);
    NUB_Y_FOR_PAIRS(v, pe) {
      const char *f;
      e = nub_y_node(r, pe->value);
      if ((rc = nub_y_key(r, pe, what, &f)))
        return rc;
      if (!strcmp(f, "specifier"))
        rc = nub_y_str(r, e, "specifier", &d->specifier);
      else if (!strcmp(f, "version"))
        rc = nub_y_str(r, e, "version", &d->ref);
      if (rc)
        return rc;
    }
    if (!d->ref)
      return nub_y_bad(r, v, "%s['%s'] has no version", what, k);
    if (!d->specifier)
      return nub_y_bad(r, v, "%s['%s'] has no specifier", what, k);
  }
  return 0;
}

static int rd_resolution(struct nub_yrd *r, yaml_node_t *n, const char *pkey, struct nub_gpkg *p)
{
  yaml_node_t *m;
  const char *type = NULL;
  int rc = nub_y_map(r, n, "resolution", &m);

  if (rc || !m)
    return rc;
  char *repo = NULL, *commit = NULL;

  NUB_Y_FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = nub_y_node(r, pr->value);
    if ((rc = nub_y_key(r, pr, "resolution", &k)))
      break;
    if (!strcmp(k, "integrity"))
      rc = nub_y_str(r, v, "resolution.integrity", &p->integrity);
    else if (!strcmp(k, "repo"))
      rc = nub_y_str(r, v, "resolution.repo", &repo);
    else if (!strcmp(k, "commit"))
      rc = nub_y_str(r, v, "resolution.commit", &commit);
    else if (!strcmp(k, "tarball"))
      rc = nub_y_str(r, v, "resolution.tarball", &p->tarball);
    else if (!strcmp(k, "directory"))
      rc = nub_y_str(r, v, "resolution.directory", &p->directory);
    else if (!strcmp(k, "type"))
      type = nub_y_sval(v);
    if (rc)
      break;
  }
  if (rc == 0 && type && !strcmp(type, "git")) {
    char tmp[41];
    char *resolved = repo && commit ? nub_git_resolved(repo, commit) : NULL, *u = NULL;
    bool ok = resolved && nub_git_split_resolved(resolved, &u, tmp);
    nub_free(u);
    nub_free(repo);
    nub_free(commit);
    if (!ok) {
      nub_free(resolved);
      return nub_y_bad(r, n, "packages['%s']: a git resolution needs a repo and a 40-hex commit",
                    pkey);
    }
    nub_free(p->tarball);
    p->tarball = resolved;
    return 0;
  }
  nub_free(repo);
  nub_free(commit);
  if (rc)
    return rc;
  /* Silently dropping a git or runtime resolution would install the wrong
   * thing (or nothing) later; say so while the file position is known. */
  if (type && strcmp(type, "directory")) {
    return rd_unsupported(r, n, "packages['%s']: '%s' resolutions are not supported by nub",
                          pkey, type);
  }
  if (type && !p->directory)
    return nub_y_bad(r, n, "packages['%s']: a directory resolution needs a directory", pkey);
  return 0;
}

static int rd_peers_meta(struct nub_yrd *r, yaml_node_t *n, struct nub_gpkg *p)
{
  yaml_node_t *m;
  int rc = nub_y_map(r, n, "peerDependenciesMeta", &m);

  if (rc || !m)
    return rc;
  nub_strarray_free(p->peers_optional, p->npeers_optional);
  p->npeers_optional = 0;
  p->peers_optional = nub_malloc((nub_y_npairs(m) + 1) * sizeof(*p->peers_optional));
  NUB_Y_FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = nub_y_node(r, pr->value), *meta;
    if ((rc = nub_y_key(r, pr, "peerDependenciesMeta", &k)) ||
        (rc = nub_y_map(r, v, "peerDependenciesMeta entry", &meta)))
      return rc;
    if (!meta)
      continue;
    NUB_Y_FOR_PAIRS(meta, pm) {
      const char *f = nub_y_sval(nub_y_node(r, pm->key));
      if (f && !strcmp(f, "optional") && nub_y_is_true(nub_y_node(r, pm->value))) {
        p->peers_optional[p->npeers_optional++] = nub_strdup(k);
        break;
      }
    }
  }
  return 0;
}

/* The packages: entry `n` (keyed pkey) into p. */
static int rd_package(struct nub_yrd *r, const char *pkey, yaml_node_t *n, struct nub_gpkg *p)
{
  yaml_node_t *m;
  int rc = nub_y_map(r, n, "a packages entry", &m);

  if (rc || !m)
    return rc;
  NUB_Y_FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = nub_y_node(r, pr->value);
    if ((rc = nub_y_key(r, pr, "packages entry", &k)))
      return rc;
    if (!strcmp(k, "resolution"))
      rc = rd_resolution(r, v, pkey, p);
    else if (!strcmp(k, "name"))
      rc = nub_y_str(r, v, "name", &p->name);
    else if (!strcmp(k, "version"))
      rc = nub_y_str(r, v, "version", &p->version);
    else if (!strcmp(k, "engines"))
      rc = nub_y_depmap(r, v, "engines", &p->engines);
    else if (!strcmp(k, "cpu"))
      rc = nub_y_strarray(r, v, "cpu", &p->cpu, &p->ncpu);
    else if (!strcmp(k, "os"))
      rc = nub_y_strarray(r, v, "os", &p->os, &p->nos);
    else if (!strcmp(k, "libc"))
      rc = nub_y_strarray(r, v, "libc", &p->libc, &p->nlibc);
    else if (!strcmp(k, "hasBin"))
      p->has_bin = nub_y_is_true(v);
    else if (!strcmp(k, "requiresBuild"))
      p->requires_build = nub_y_is_true(v);
    else if (!strcmp(k, "deprecated"))
      rc = nub_y_str(r, v, "deprecated", &p->deprecated);
    else if (!strcmp(k, "peerDependencies"))
      rc = nub_y_depmap(r, v, "peerDependencies", &p->peers);
    else if (!strcmp(k, "peerDependenciesMeta"))
      rc = rd_peers_meta(r, v, p);
    else if ((!strcmp(k, "bundledDependencies") || !strcmp(k, "bundleDependencies")) &&
             v->type == YAML_SEQUENCE_NODE) /* `true` (bundle all) has no place */
      rc = nub_y_strarray(r, v, k, &p->bundled, &p->nbundled);
    if (rc)
      return rc;
  }
  return 0;
}

static int rd_snapshot(struct nub_yrd *r, yaml_node_t *n, struct nub_gpkg *p)
{
  yaml_node_t *m;
  int rc = nub_y_map(r, n, "a snapshots entry", &m);

  if (rc || !m)
    return rc;
  NUB_Y_FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = nub_y_node(r, pr->value);
    if ((rc = nub_y_key(r, pr, "snapshots entry", &k)))
      return rc;
    if (!strcmp(k, "dependencies"))
      rc = rd_edges(r, v, "dependencies", &p->deps, &p->ndeps);
    else if (!strcmp(k, "optionalDependencies"))
      rc = rd_edges(r, v, "optionalDependencies", &p->optional_deps, &p->noptional_deps);
    else if (!strcmp(k, "transitivePeerDependencies"))
      rc = nub_y_strarray(r, v, "transitivePeerDependencies", &p->transitive_peers,
                       &p->ntransitive_peers);
    else if (!strcmp(k, "optional"))
      p->optional = nub_y_is_true(v);
    if (rc)
      return rc;
  }
  return 0;
}

/* Where the peer suffix "(peer@1.0.0)(other@2.0.0)" (or a "(patch_hash=..)")
 * of a snapshot key starts: pnpm's indexOfPeersSuffix, which walks balanced
 * parentheses back from the end. strlen(k) when there is none. */
static size_t peers_suffix_at(const char *k)
{
  size_t n = strlen(k);
  int open = 1;

  if (!n || k[n - 1] != ')')
    return n;
  for (size_t i = n - 1; i-- > 0;) {
    if (k[i] == '(')
      open--;
    else if (k[i] == ')')
      open++;
    else if (!open)
      return i + 1;
  }
  return n;
}

struct pent {
  const char *key;
  yaml_node_t *node, *keynode;
  bool used;
};

static int cmp_pent(const void *a, const void *b)
{
  return strcmp(((const struct pent *)a)->key, ((const struct pent *)b)->key);
}

/* A gpkg for packages entry e under dep path `key`. */
static int rd_gpkg(struct nub_yrd *r, struct nub_graph *g, struct pent *e, const char *key,
                   yaml_node_t *snap)
{
  struct nub_gpkg *p = nub_calloc(1, sizeof(*p));
  size_t nl = key_name_len(e->key);
  int rc;

  nub_graph_add(g, p);
  if (!nl)
    return nub_y_bad(r, e->keynode, "packages key '%s' is not name@version", e->key);
  p->key = nub_strdup(key);
  p->pkg_key = nub_strdup(e->key);
  p->name = nub_strndup(e->key, nl);
  p->version = nub_strdup(e->key + nl + 1);
  e->used = true;
  if ((rc = rd_package(r, e->key, e->node, p)))
    return rc;
  return snap ? rd_snapshot(r, snap, p) : 0;
}

static int rd_packages(struct nub_yrd *r, struct nub_graph *g, yaml_node_t *packages,
                       yaml_node_t *snapshots)
{
  struct pent *ents = NULL;
  size_t n = 0;
  int rc = 0;

  if (packages) {
    ents = nub_calloc(nub_y_npairs(packages) + 1, sizeof(*ents));
    NUB_Y_FOR_PAIRS(packages, pr) {
      if ((rc = nub_y_key(r, pr, "packages", &ents[n].key)))
        goto out;
      ents[n].keynode = nub_y_node(r, pr->key);
      ents[n++].node = nub_y_node(r, pr->value);
    }
    nub_sort(ents, n, sizeof(*ents), cmp_pent);
    for (size_t i = 1; i < n; i++)
      if (!strcmp(ents[i].key, ents[i - 1].key)) {
        rc = nub_y_bad(r, ents[i].keynode, "packages has '%s' twice", ents[i].key);
        goto out;
      }
  }
  if (snapshots) {
    NUB_Y_FOR_PAIRS(snapshots, pr) {
      const char *k;
      struct pent probe, *e;
      size_t cut;
      if ((rc = nub_y_key(r, pr, "snapshots", &k)))
        goto out;
      cut = peers_suffix_at(k);
      probe.key = nub_strndup(k, cut);
      e = n ? bsearch(&probe, ents, n, sizeof(*ents), cmp_pent) : NULL;
      nub_free((char *)probe.key);
      if (!e) {
        rc = nub_y_bad(r, nub_y_node(r, pr->key), "snapshot '%s' has no packages entry", k);
        goto out;
      }
      if ((rc = rd_gpkg(r, g, e, k, nub_y_node(r, pr->value))))
        goto out;
    }
  }
  for (size_t i = 0; i < n; i++)
    if (!ents[i].used && (rc = rd_gpkg(r, g, &ents[i], ents[i].key, NULL)))
      goto out;
  if (g->npkgs) /* nub_sort(NULL, 0, ...) is undefined */
    nub_graph_sort(g);
  for (size_t i = 1; i < g->npkgs; i++)
    if (!strcmp(g->pkgs[i]->key, g->pkgs[i - 1]->key)) {
      rc = nub_err_set(r->err, -NUB_ELOCKFILE, "%s: snapshots has '%s' twice", r->fname,
                       g->pkgs[i]->key);
      goto out;
    }
out:
  nub_free(ents);
  return rc;
}

static int rd_importers(struct nub_yrd *r, struct nub_graph *g, yaml_node_t *n)
{
  yaml_node_t *m;
  int rc = nub_y_map(r, n, "importers", &m);

  if (rc || !m)
    return rc;
  g->importers = nub_calloc(nub_y_npairs(m) + 1, sizeof(*g->importers));
  NUB_Y_FOR_PAIRS(m, pr) {
    const char *path;
    char where[512], what[600];
    yaml_node_t *im;
    struct nub_importer *dst;
    if ((rc = nub_y_key(r, pr, "importers", &path)))
      return rc;
    dst = &g->importers[g->nimporters++];
    dst->path = nub_strdup(path);
    snprintf(where, sizeof(where), "importers['%s']", path);
    if ((rc = nub_y_map(r, nub_y_node(r, pr->value), where, &im)))
      return rc;
    if (!im)
      continue;
    NUB_Y_FOR_PAIRS(im, ps) {
      const char *k;
      yaml_node_t *v = nub_y_node(r, ps->value);
      if ((rc = nub_y_key(r, ps, where, &k)))
        return rc;
      snprintf(what, sizeof(what), "%s.%s", where, k);
      if (!strcmp(k, "dependencies"))
        rc = rd_direct(r, v, what, &dst->deps, &dst->ndeps);
      else if (!strcmp(k, "devDependencies"))
        rc = rd_direct(r, v, what, &dst->dev, &dst->ndev);
      else if (!strcmp(k, "optionalDependencies"))
        rc = rd_direct(r, v, what, &dst->optional, &dst->noptional);
      if (rc)
        return rc;
    }
  }
  return 0;
}

/* patchedDependencies: key -> hash (pnpm 10 and later), or key -> {hash,
 * path} (pnpm 9); the hash either way. */
static int rd_patched(struct nub_yrd *r, struct nub_graph *g, yaml_node_t *n)
{
  yaml_node_t *m;
  int rc = nub_y_map(r, n, "patchedDependencies", &m);

  if (rc || !m)
    return rc;
  NUB_Y_FOR_PAIRS(m, pr) {
    const char *key, *hash;
    yaml_node_t *v = nub_y_node(r, pr->value);
    if ((rc = nub_y_key(r, pr, "patchedDependencies", &key)))
      return rc;
    hash = nub_y_sval(v);
    if (!hash && v && v->type == YAML_MAPPING_NODE)
      NUB_Y_FOR_PAIRS(v, hp) {
        const char *hk = nub_y_sval(nub_y_node(r, hp->key));
        if (hk && !strcmp(hk, "hash"))
          hash = nub_y_sval(nub_y_node(r, hp->value));
      }
    if (!hash)
      return nub_y_bad(r, v, "patchedDependencies' %s has no hash", key);
    g->patched.v = nub_realloc(g->patched.v, (g->patched.n + 1) * sizeof(*g->patched.v));
    g->patched.v[g->patched.n].name = nub_strdup(key);
    g->patched.v[g->patched.n].spec = nub_strdup(hash);
    g->patched.n++;
  }
  return 0;
}

static int rd_catalogs(struct nub_yrd *r, struct nub_graph *g, yaml_node_t *n)
{
  yaml_node_t *m;
  int rc = nub_y_map(r, n, "catalogs", &m);

  if (rc || !m)
    return rc;
  NUB_Y_FOR_PAIRS(m, pr) {
    const char *name;
    char what[300];
    struct nub_gdirect *v = NULL;
    size_t nv = 0;
    if ((rc = nub_y_key(r, pr, "catalogs", &name)))
      return rc;
    snprintf(what, sizeof(what), "catalogs.%s", name);
    rc = rd_direct(r, nub_y_node(r, pr->value), what, &v, &nv);
    for (size_t i = 0; i < nv; i++) {
      if (rc == 0)
        nub_graph_add_catalog(g, name, v[i].alias, v[i].specifier, v[i].ref);
      nub_free(v[i].alias);
      nub_free(v[i].specifier);
      nub_free(v[i].ref);
    }
    nub_free(v);
    if (rc)
      return rc;
  }
  return 0;
}

static int rd_settings(struct nub_yrd *r, struct nub_graph *g, yaml_node_t *n)
{
  yaml_node_t *m;
  int rc = nub_y_map(r, n, "settings", &m);

  if (rc || !m)
    return rc;
  nub_depmap_release(&g->settings_extra);
  g->settings_extra.v = nub_calloc(nub_y_npairs(m) + 1, sizeof(*g->settings_extra.v));
  NUB_Y_FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = nub_y_node(r, pr->value);
    struct nub_buf text = NUB_BUF_INIT;
    struct nub_dep *d;
    if ((rc = nub_y_key(r, pr, "settings", &k)))
      return rc;
    if (!strcmp(k, "autoInstallPeers")) {
      g->auto_install_peers = nub_y_is_true(v);
      continue;
    }
    if (!strcmp(k, "excludeLinksFromLockfile")) {
      g->exclude_links = nub_y_is_true(v);
      continue;
    }
    if (!nub_y_sval(v)) /* a list or map setting: nothing in nub uses one */
      continue;
    /* Keep the YAML text: plain scalars (true, 500) as they were, strings
     * as the writer would quote them. */
    if (v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
      nub_buf_adds(&text, nub_y_sval(v));
    else
      nub_yscalar(&text, nub_y_sval(v), 2, true);
    d = &g->settings_extra.v[g->settings_extra.n++];
    d->name = nub_strdup(k);
    d->spec = text.data ? nub_buf_take(&text) : nub_strdup("");
  }
  return 0;
}

/* 9, 9.0, 9.1, ...: pnpm 9 and later write 9.0; a minor bump stays
 * compatible by pnpm's own rule. */
static bool is_v9(const char *v)
{
  if (!v || v[0] != '9')
    return false;
  if (!v[1])
    return true;
  return v[1] == '.' && v[2] && strspn(v + 2, "0123456789") == strlen(v + 2);
}

int nub_lockfile_pnpm_parse(struct nub_graph *g, const char *text, size_t len,
                            const char *fname, struct nub_err *err)
{
  yaml_document_t doc;
  yaml_node_t *root, *ver = NULL, *settings = NULL, *overrides = NULL, *patched = NULL,
              *importers = NULL,
                     *packages = NULL, *snapshots = NULL, *catalogs = NULL;
  struct nub_yrd r = {&doc, fname, err, -NUB_ELOCKFILE};
  int rc = 0;

  rc = nub_yaml_load(&doc, text, len, fname, -NUB_ELOCKFILE, err);
  if (rc < 0)
    return rc;

  root = yaml_document_get_root_node(&doc);
  if (!root) {
    rc = nub_err_set(err, -NUB_ELOCKFILE, "%s is empty", fname);
    goto out;
  }
  if (root->type != YAML_MAPPING_NODE) {
    rc = nub_y_bad(&r, root, "expected a mapping with lockfileVersion at the top level");
    goto out;
  }
  NUB_Y_FOR_PAIRS(root, pr) {
    const char *k = nub_y_sval(nub_y_node(&r, pr->key));
    yaml_node_t *v = nub_y_node(&r, pr->value);
    if (!k)
      continue;
    if (!strcmp(k, "lockfileVersion"))
      ver = v;
    else if (!strcmp(k, "settings"))
      settings = v;
    else if (!strcmp(k, "overrides"))
      overrides = v;
    else if (!strcmp(k, "patchedDependencies"))
      patched = v;
    else if (!strcmp(k, "packageExtensionsChecksum") && nub_y_sval(v)) {
      nub_free(g->ext_checksum); /* (a key given twice: the last wins) */
      g->ext_checksum = nub_strdup(nub_y_sval(v));
    } else if (!strcmp(k, "pnpmfileChecksum") && nub_y_sval(v)) {
      nub_free(g->pnpmfile_checksum);
      g->pnpmfile_checksum = nub_strdup(nub_y_sval(v));
    }    else if (!strcmp(k, "catalogs"))
      catalogs = v;
    else if (!strcmp(k, "importers"))
      importers = v;
    else if (!strcmp(k, "packages"))
      packages = v;
    else if (!strcmp(k, "snapshots"))
      snapshots = v;
  }
  if (!ver) {
    rc = nub_err_set(err, -NUB_ELOCKFILE,
                     "%s has no lockfileVersion; nub reads pnpm lockfiles with "
                     "lockfileVersion 9.x (pnpm 9 and later)",
                     fname);
    goto out;
  }
  if (!is_v9(nub_y_sval(ver))) {
    rc = nub_err_set(err, -NUB_ELOCKVERSION,
                     "%s:%lu:%lu: lockfileVersion '%s' is not supported; nub reads "
                     "lockfileVersion 9.x (pnpm 9 and later)",
                     fname, (unsigned long)ver->start_mark.line + 1,
                     (unsigned long)ver->start_mark.column + 1,
                     nub_y_sval(ver) ? nub_y_sval(ver) : "(not a string)");
    goto out;
  }
  if ((rc = rd_settings(&r, g, settings)) || (rc = rd_catalogs(&r, g, catalogs)) ||
      (rc = nub_y_depmap(&r, overrides, "overrides", &g->overrides)) ||
      (rc = rd_patched(&r, g, patched)) || (rc = rd_importers(&r, g, importers)) || (rc = nub_y_map(&r, packages, "packages", &packages)) ||
      (rc = nub_y_map(&r, snapshots, "snapshots", &snapshots)))
    goto out;
  rc = rd_packages(&r, g, packages, snapshots);
out:
  yaml_document_delete(&doc);
  return rc;
}
