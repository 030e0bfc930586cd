/* plan_graph.c - the plan as a graph: nub.lock or pnpm-lock.yaml when it
 * still answers package.json (sync.h, pnpm's rule, and the same overrides),
 * else the resolver, whose graph is written back to the lockfile (nub.lock
 * unless the project has pnpm-lock.yaml). Downloads start while the
 * resolver still works: each picked version goes to the fetch session at
 * once. */
#include <stdio.h>
#include <string.h>

#include "berry.h"
#include "diag.h"
#include "install_ctx.h"
#include "integrity.h"
#include "lockfile_pnpm.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "plan.h"
#include "pnpmfile.h"
#include "registry.h"
#include "resolve.h"
#include "semver.h"
#include "strmap.h"
#include "sync.h"
#include "text.h"

static void on_checkout(void *ud, const char *resolved, char *dir)
{
  struct nub_install_ctx *c = ud;

  nub_fetch_offer_checkout(c->plan.fetch, resolved, dir);
}

static void on_tarball(void *ud, const char *url, struct nub_buf *body)
{
  struct nub_install_ctx *c = ud;

  nub_fetch_offer_tarball(c->plan.fetch, url, body);
}

static void on_pick(void *ud, const char *name, const struct nub_pversion *pv)
{
  struct nub_install_ctx *c = ud;
  struct nub_pkg *p;

  /* optional packages for another platform are never downloaded */
  if (!nub_install_platform_ok(c, pv->os, pv->nos, pv->cpu, pv->ncpu, pv->libc, pv->nlibc))
    return;
  p = nub_plan_identity(c, name, pv->version, pv->tarball, pv->integrity);
  p->needed = true;
  /* whether it is optional is known once the graph is: a failure is
   * recorded, and judged then (nub_plan_fetch) */
  p->optional = true;
  nub_fetch_add(c->plan.fetch, p);
}

static bool overrides_in_sync(const struct nub_graph *g, const struct nub_depmap *ov,
                              char *why, size_t cap)
{
  for (size_t i = 0; i < ov->n; i++) {
    const char *was = nub_depmap_get(&g->overrides, ov->v[i].name);
    if (!was || strcmp(was, ov->v[i].spec)) {
      snprintf(why, cap, "override %s changed to '%s'", ov->v[i].name, ov->v[i].spec);
      return false;
    }
  }
  for (size_t i = 0; i < g->overrides.n; i++)
    if (!nub_depmap_get(ov, g->overrides.v[i].name)) {
      snprintf(why, cap, "override %s was removed", g->overrides.v[i].name);
      return false;
    }
  return true;
}

/* Does one importer of the lockfile answer its package.json? */
static bool importer_in_sync(const struct nub_importer *im, const struct nub_manifest *m,
                             char *why, size_t cap)
{
  struct nub_locked *l;
  size_t n = 0;
  bool ok;

  l = nub_calloc(im->ndeps + im->ndev + im->noptional + 1, sizeof(*l));
  for (int k = 0; k < NUB_DEP_KINDS; k++) {
    const struct nub_gdirect *d;
    size_t nd = nub_importer_directs(im, k, &d);
    for (size_t i = 0; i < nd; i++) {
      l[n].alias = d[i].alias;
      l[n].spec = d[i].specifier;
      l[n].present = l[n].listed = true;
      n++;
    }
  }
  ok = nub_sync_check(m, l, n, NUB_SYNC_SPECIFIER, why, cap);
  nub_free(l);
  if (!ok && strcmp(im->path, ".")) { /* say which package.json */
    char inner[512];
    snprintf(inner, sizeof(inner), "%s", why);
    snprintf(why, cap, "%s/package.json: %s", im->path, inner);
  }
  return ok;
}

/* Whether the catalog entries an importer uses still give the ranges the
 * lockfile resolved. */
static bool catalogs_in_sync(const struct nub_install_ctx *c, const struct nub_graph *g,
                             const struct nub_importer *im, char *why, size_t cap)
{
  const struct nub_catalog *cats = c->s->ws.source ? c->s->ws.catalogs : c->s->man.catalogs;
  size_t ncats = c->s->ws.source ? c->s->ws.ncatalogs : c->s->man.ncatalogs;

  for (int k = 0; k < NUB_DEP_KINDS; k++) {
    const struct nub_gdirect *d;
    size_t nd = nub_importer_directs(im, k, &d);
    for (size_t i = 0; i < nd; i++) {
      const char *name, *now;
      const struct nub_catalog *cat;
      const struct nub_gdirect *was;
      if (strncmp(d[i].specifier, "catalog:", 8))
        continue;
      name = d[i].specifier[8] ? d[i].specifier + 8 : "default";
      cat = nub_catalog_find(cats, ncats, name);
      now = cat ? nub_depmap_get(&cat->deps, d[i].alias) : NULL;
      was = nub_graph_catalog(g, name, d[i].alias);
      if (!now || !was || strcmp(now, was->specifier)) {
        snprintf(why, cap, "the %s catalog's entry for %s changed", name, d[i].alias);
        return false;
      }
    }
  }
  return true;
}

/* pnpm's packageExtensionsChecksum of the workspace's packageExtensions
 * ("sha256-<base64>" of their object-hash text), or NULL. Caller frees. */
static char *ext_checksum(const struct nub_workspace *ws)
{
  struct nub_sri sri;
  char buf[128];

  if (!ws->pkg_exts_hash)
    return NULL;
  memset(&sri, 0, sizeof(sri));
  sri.algo = NUB_HASH_SHA256;
  sri.len = 32;
  nub_sha256(ws->pkg_exts_hash, strlen(ws->pkg_exts_hash), sri.digest);
  nub_sri_format(&sri, buf, sizeof(buf));
  return nub_strdup(buf);
}

static int cmp_dep_name(const void *a, const void *b)
{
  return strcmp(((const struct nub_dep *)a)->name, ((const struct nub_dep *)b)->name);
}

static int allow_source(void *ud, int kind, bool from_importer, const char *who,
                        const char *alias, const char *spec, struct nub_err *err)
{
  char what[1200];

  snprintf(what, sizeof(what), "%s depends on %s@%s", who, alias, spec);
  return nub_install_allow(ud, kind, from_importer, what, NULL, err);
}

/* pnpm's afterAllResolved on the lockfile a resolution writes (*b): a
 * changed answer is the resolution from then on, read and written again
 * as pnpm writes it. */
static int after_all_resolved(struct nub_install_ctx *c, struct nub_buf *b, struct nub_err *err)
{
  struct nub_graph g;
  bool changed;
  int rc = nub_pnpmfile_after_all_resolved(c->hooks, b, &changed, err);

  if (rc < 0 || !changed)
    return rc;
  nub_graph_init(&g);
  rc = nub_lockfile_pnpm_parse(&g, b->data, b->len, "the lockfile afterAllResolved returned",
                               err);
  if (rc < 0) {
    nub_graph_release(&g);
    return rc;
  }
  nub_graph_release(&c->plan.graph);
  c->plan.graph = g;
  b->len = 0;
  nub_lockfile_pnpm_write(&c->plan.graph, b);
  return 0;
}

static int read_package(void *ud, const char *name, struct nub_pversion *pv, struct nub_err *err)
{
  return nub_pnpmfile_read_version(ud, name, pv, err);
}

/* The patches as pnpm's lockfile records them: key -> hash, by key. */
static void patched_map(const struct nub_patches *ps, struct nub_depmap *out)
{
  nub_depmap_release(out);
  if (!ps->n)
    return;
  out->v = nub_calloc(ps->n, sizeof(*out->v));
  for (size_t i = 0; i < ps->n; i++) {
    out->v[i].name = nub_strdup(ps->v[i].key);
    out->v[i].spec = nub_strdup(ps->v[i].hash);
  }
  out->n = ps->n;
  nub_sort(out->v, out->n, sizeof(*out->v), cmp_dep_name);
}

/* Whether the lockfile's patchedDependencies are the project's: the same
 * keys, each with its file's hash now. */
static bool patches_in_sync(const struct nub_patches *ps, const struct nub_graph *g)
{
  if (ps->n != g->patched.n)
    return false;
  for (size_t i = 0; i < ps->n; i++) {
    const char *h = nub_depmap_get(&g->patched, ps->v[i].key);
    if (!h || strcmp(h, ps->v[i].hash))
      return false;
  }
  return true;
}

/* A boolean setting of pnpm's: pnpm-workspace.yaml's `key` (camelCase),
 * else .npmrc's `npmrc_key`; -1 when neither says. */
static int pnpm_setting(const struct nub_install_ctx *c, const char *key, const char *npmrc_key)
{
  const char *v = nub_depmap_get(&c->s->ws.settings, key);

  if (v)
    return !strcmp(v, "true");
  if (nub_config_get(&c->s->cfg, npmrc_key))
    return nub_config_bool(&c->s->cfg, npmrc_key, false);
  return -1;
}

/* Does the lockfile answer package.json: one importer per workspace
 * package, each in sync, and the same overrides and packageExtensions? */
static bool in_sync(const struct nub_install_ctx *c, const struct nub_graph *g, char *why,
                    size_t cap)
{
  const struct nub_importer *root = NULL;

  for (size_t i = 0; i < g->nimporters; i++)
    if (!strcmp(g->importers[i].path, "."))
      root = &g->importers[i];
  if (!root) {
    snprintf(why, cap, "the lockfile has no importer for the project");
    return false;
  }
  if (!overrides_in_sync(g, &c->s->man.overrides, why, cap))
    return false;
  {
    char *sum = ext_checksum(&c->s->ws);
    bool same = (!sum && !g->ext_checksum) || (sum && g->ext_checksum &&
                                               !strcmp(sum, g->ext_checksum));
    nub_free(sum);
    if (!same) {
      snprintf(why, cap, "pnpm-workspace.yaml's packageExtensions changed");
      return false;
    }
  }
  {
    /* pnpm's settings checker: a change of dedupePeers resolves again */
    const char *was = nub_depmap_get(&g->settings_extra, "dedupePeers");
    bool now = (c->s->proj.fmt->caps & NUB_LF_PNPM_PEERS) &&
               pnpm_setting(c, "dedupePeers", "dedupe-peers") == 1;
    if (now != (was && !strcmp(was, "true"))) {
      snprintf(why, cap, "the dedupePeers setting changed");
      return false;
    }
  }
  if (c->pnpmfile || g->pnpmfile_checksum) {
    /* pnpm's frozen install: "The current pnpmfileChecksum configuration
     * doesn't match the value found in the lockfile" */
    char *sum = NULL;
    struct nub_err e;
    bool same;
    if (c->pnpmfile)
      nub_pnpmfile_checksum(c->s->proj.dir_fd, c->pnpmfile, &sum, &e);
    same = sum && g->pnpmfile_checksum && !strcmp(sum, g->pnpmfile_checksum);
    nub_free(sum);
    if (!same) {
      snprintf(why, cap, "the pnpmfile (%s) changed", c->pnpmfile ? c->pnpmfile : "gone");
      return false;
    }
  }
  if (!patches_in_sync(&c->patches, g)) {
    snprintf(why, cap, "%s's patchedDependencies (or a patch file) changed",
             c->patches.home ? c->patches.home : "pnpm-workspace.yaml");
    return false;
  }
  if (g->nimporters != 1 + c->s->ws.npkgs) {
    for (size_t i = 0; i < c->s->ws.npkgs; i++) {
      bool found = false;
      for (size_t k = 0; k < g->nimporters && !found; k++)
        found = !strcmp(g->importers[k].path, c->s->ws.pkgs[i].dir);
      if (!found) {
        snprintf(why, cap, "the workspace package %s is new", c->s->ws.pkgs[i].dir);
        return false;
      }
    }
    snprintf(why, cap, "a workspace package was removed");
    return false;
  }
  for (size_t i = 0; i < g->nimporters; i++) {
    const struct nub_importer *im = &g->importers[i];
    const struct nub_ws_pkg *m = im == root ? NULL : nub_workspace_at(&c->s->ws, im->path);
    if (!catalogs_in_sync(c, g, im, why, cap))
      return false;
    if (im != root && !m) {
      snprintf(why, cap, "the lockfile's importer %s is not a workspace package", im->path);
      return false;
    }
    if (!importer_in_sync(im, m ? &m->man : &c->s->man, why, cap))
      return false;
  }
  return true;
}

/* The lockfile into g; one with git's merge-conflict markers (not
 * frozen) both sides merged as pnpm merges them, and *merged set. */
static int read_lock(struct nub_install_ctx *c, struct nub_graph *g, bool *merged,
                     struct nub_err *err)
{
  char *text = NULL;
  size_t len = 0;
  int rc = nub_project_read_lockfile(&c->s->proj, &c->s->cfg, &text, &len, err);

  if (rc < 0)
    return rc;
  *merged = !c->frozen && nub_text_conflict_marker(text, len, &(size_t){0});
  rc = *merged ? nub_lockfile_pnpm_unconflict(g, text, len, c->s->proj.lockfile, err)
               : nub_lockfile_pnpm_parse(g, text, len, c->s->proj.lockfile, err);
  nub_free(text);
  return rc;
}



/* The `settings:` a lockfile written again records: dedupePeers as the
 * resolver applied it, the others nub does not read as the previous file
 * had them. */
static void lock_settings(struct nub_graph *g, const struct nub_graph *prev, bool dedupe_peers)
{
  struct nub_depmap *m = &g->settings_extra;
  size_t n = prev ? prev->settings_extra.n : 0;

  nub_depmap_release(m);
  m->v = nub_calloc(n + 2, sizeof(*m->v));
  for (size_t i = 0; i < n; i++) {
    const struct nub_dep *d = &prev->settings_extra.v[i];
    if (strcmp(d->name, "dedupePeers")) {
      m->v[m->n].name = nub_strdup(d->name);
      m->v[m->n++].spec = nub_strdup(d->spec);
    }
  }
  if (dedupe_peers) {
    m->v[m->n].name = nub_strdup("dedupePeers");
    m->v[m->n++].spec = nub_strdup("true");
  }
}

int nub_plan_resolve(struct nub_install_ctx *c, const struct nub_graph *prev,
                     struct nub_err *err)
{
  struct nub_plan *p = &c->plan;
  struct nub_meta_opts mo = {c->o->offline, c->o->prefer_offline, 0, false};
  struct nub_resolve_opts ro;
  struct nub_age_gate gate;
  int rc;

  rc = nub_age_gate_load(&gate, &c->s->cfg, c->s->ws.source ? &c->s->ws : NULL, c->s->proj.dir,
                         c->s->proj.fmt, err);
  if (rc < 0)
    return rc;
  if (gate.cutoff) {
    char span[48];
    nub_age_span(gate.window, span, sizeof(span));
    nub_diag_debugf("release-age gate: %s (%s), %s", span, gate.source,
                    gate.strict ? "strict" : "lenient");
  }
  mo.times_after = gate.cutoff;
  /* a trust policy weighs who published each version and when: the full
   * documents' _npmUser and dates, which the abbreviated ones leave out */
  mo.full = gate.trust;
  rc = nub_meta_new(&p->meta, &c->s->cfg, c->pool, &c->prog, &mo, err);
  if (rc < 0) {
    nub_age_gate_release(&gate);
    return rc;
  }
  if (!c->o->lockfile_only) {
    struct nub_fetch_opts fo;
    struct nub_http *h = c->o->offline ? NULL : nub_meta_http(p->meta, err);
    nub_install_fetch_opts(c, &fo);
    rc = nub_fetch_begin(&p->fetch, &c->store, &c->s->cfg, c->pool, &c->prog, &fo, h, err);
    if (rc < 0) {
      nub_age_gate_release(&gate);
      return rc;
    }
  }
  memset(&ro, 0, sizeof(ro));
  ro.gate = &gate;
  ro.project_dir = c->s->proj.dir;
  ro.ws = c->s->ws.source ? &c->s->ws : NULL;
  ro.previous = prev;
  ro.forget = c->o->update;
  ro.nforget = c->o->nupdate;
  ro.forget_all = c->o->update_all;
  ro.overrides = &c->s->man.overrides;
  ro.allow_missing_integrity = nub_config_bool(&c->s->cfg, "allow-missing-integrity", false);
  ro.on_pick = p->fetch ? on_pick : NULL;
  ro.on_checkout = p->fetch ? on_checkout : NULL;
  ro.on_tarball = p->fetch ? on_tarball : NULL;
  ro.ud = c;
  ro.allow_source = allow_source;
  ro.prog = &c->prog;
  /* missing peers: installed unless the format's tool installs none, or
   * the project says no (pnpm-workspace.yaml, .npmrc; else the lockfile's
   * setting) */
  {
    int auto_peers = pnpm_setting(c, "autoInstallPeers", "auto-install-peers");
    int link_ws = pnpm_setting(c, "linkWorkspacePackages", "link-workspace-packages");
    ro.no_auto_peers = (c->s->proj.fmt->caps & NUB_LF_NO_AUTO_PEERS) || auto_peers == 0 ||
                       (auto_peers < 0 && prev && !prev->auto_install_peers);
    unsigned caps = c->s->proj.fmt->caps;
    ro.resolve_bundled = caps & NUB_LF_RESOLVES_BUNDLED;
    ro.pnpm_peers = caps & NUB_LF_PNPM_PEERS;
    ro.dedupe_peers = ro.pnpm_peers && pnpm_setting(c, "dedupePeers", "dedupe-peers") == 1;
    if (ro.pnpm_peers) {
      ro.prefer = c->o->requested;
      ro.nprefer = c->o->nrequested;
    }
    ro.by_pattern = caps & NUB_LF_LOCK_BY_PATTERN;
    ro.importer_peers = ro.no_auto_peers ? 0
                        : ((caps & NUB_LF_ROOT_PEERS) ? NUB_PEERS_ROOT : 0) |
                              ((caps & NUB_LF_MEMBER_PEERS) ? NUB_PEERS_MEMBERS : 0) |
                              ((caps & NUB_LF_OPTIONAL_IMPORTER_PEERS) ? NUB_PEERS_OPTIONAL : 0);
    ro.no_plain_member_links = link_ws == 0 ||
                               (link_ws < 0 && (c->s->proj.fmt->caps & NUB_LF_WORKSPACE_LINKS_ONLY));
  }
  {
    char *tmp = nub_asprintf("%s/tmp", c->store.root);
    struct nub_source_reg reg = {p->meta, &c->s->cfg, &c->prog, tmp};
    struct nub_source src;
    struct nub_pkg_ext *exts = NULL;
    size_t nexts = 0, ncompat;
    nub_source_registry(&src, &reg);
    /* pnpm's: the compatibility table's extensions, then the project's */
    if (ro.pnpm_peers && pnpm_setting(c, "ignoreCompatibilityDb", "ignore-compatibility-db") != 1)
      nub_compat_pkg_exts(&exts, &nexts);
    ncompat = nexts;
    if (c->s->ws.npkg_exts) {
      exts = nub_realloc(exts, (nexts + c->s->ws.npkg_exts) * sizeof(*exts));
      memcpy(exts + nexts, c->s->ws.pkg_exts, c->s->ws.npkg_exts * sizeof(*exts));
      nexts += c->s->ws.npkg_exts;
    }
    /* package.json's, where the format's tool reads them (bun) */
    if ((c->s->proj.fmt->caps & NUB_LF_MANIFEST_EXTS) && c->s->man.npkg_exts) {
      exts = nub_realloc(exts, (nexts + c->s->man.npkg_exts) * sizeof(*exts));
      memcpy(exts + nexts, c->s->man.pkg_exts, c->s->man.npkg_exts * sizeof(*exts));
      nexts += c->s->man.npkg_exts;
      ro.ext_rule = NUB_EXT_BUN;
    }
    ro.exts = exts;
    ro.nexts = nexts;
    ro.patches = &c->patches;
    if (nub_pnpmfile_has(c->hooks, "readPackage")) {
      ro.read_package = read_package;
      ro.read_package_ud = c->hooks;
    }
    rc = nub_resolve(&p->graph, &c->s->man, &src, &ro, err);
    if (rc == 0 && nub_pnpmfile_ignored_change(c->hooks))
      nub_progress_warn(&c->prog, "%s's readPackage changed %s: nub applies only its changes "
                        "to dependencies, optionalDependencies, peerDependencies and "
                        "peerDependenciesMeta", c->pnpmfile, nub_pnpmfile_ignored_change(c->hooks));
    for (size_t i = 0; i < ncompat; i++) /* (the project's are the workspace's) */
      nub_pkg_ext_release(&exts[i]);
    nub_free(exts);
    if (rc == 0) {
      p->graph.ext_checksum = ext_checksum(&c->s->ws);
      if (c->pnpmfile)
        rc = nub_pnpmfile_checksum(c->s->proj.dir_fd, c->pnpmfile, &p->graph.pnpmfile_checksum,
                                   err);
      patched_map(&c->patches, &p->graph.patched);
      lock_settings(&p->graph, prev, ro.dedupe_peers);
    }
    nub_free(tmp);
  }
  nub_age_gate_release(&gate);
  p->resolved = true;
  return rc;
}

/* pnpm writes a package the lockfile already has with the facts its entry
 * there states (engines, platforms, deprecation, bin, bundled
 * dependencies), not the registry's of today: a package an older pnpm
 * recorded without `libc`, or deprecated since, stays as it was; one
 * resolved afresh (met through a hoisted optional peer) has today's. */
static void keep_lock_facts(struct nub_graph *g, const struct nub_graph *prev)
{
  struct nub_strmap by_pkg;

  memset(&by_pkg, 0, sizeof(by_pkg));
  for (size_t i = 0; i < prev->npkgs; i++)
    if (!nub_strmap_get(&by_pkg, prev->pkgs[i]->pkg_key))
      nub_strmap_put(&by_pkg, prev->pkgs[i]->pkg_key, prev->pkgs[i]);
  for (size_t i = 0; i < g->npkgs; i++) {
    struct nub_gpkg *x = g->pkgs[i];
    const struct nub_gpkg *was = nub_strmap_get(&by_pkg, x->pkg_key);
    if (!was || x->afresh ||
        (was->integrity && x->integrity && strcmp(was->integrity, x->integrity)))
      continue;
    nub_depmap_release(&x->engines);
    nub_depmap_copy(&x->engines, &was->engines);
    nub_strarray_free(x->os, x->nos);
    x->os = nub_strarray_dup(was->os, x->nos = was->nos);
    nub_strarray_free(x->cpu, x->ncpu);
    x->cpu = nub_strarray_dup(was->cpu, x->ncpu = was->ncpu);
    nub_strarray_free(x->libc, x->nlibc);
    x->libc = nub_strarray_dup(was->libc, x->nlibc = was->nlibc);
    nub_strarray_free(x->bundled, x->nbundled);
    x->bundled = nub_strarray_dup(was->bundled, x->nbundled = was->nbundled);
    nub_free(x->deprecated);
    x->deprecated = was->deprecated ? nub_strdup(was->deprecated) : NULL;
    x->has_bin = was->has_bin;
  }
  nub_strmap_release(&by_pkg, NULL);
}

/* Takes off each importer's direct dependencies that its package.json no
 * longer names (in any of its maps, peers too); whether any went. */
static bool drop_removed(const struct nub_install_ctx *c, struct nub_graph *g)
{
  bool any = false;

  for (size_t i = 0; i < g->nimporters; i++) {
    struct nub_importer *im = &g->importers[i];
    const struct nub_ws_pkg *w = strcmp(im->path, ".") ? nub_workspace_at(&c->s->ws, im->path)
                                                        : NULL;
    const struct nub_manifest *m = w ? &w->man : &c->s->man;
    struct nub_gdirect *lists[3] = {im->deps, im->dev, im->optional};
    size_t *ns[3] = {&im->ndeps, &im->ndev, &im->noptional};
    if (strcmp(im->path, ".") && !w)
      continue;
    for (int k = 0; k < 3; k++) {
      size_t kept = 0;
      for (size_t j = 0; j < *ns[k]; j++) {
        const char *a = lists[k][j].alias;
        if (nub_depmap_get(&m->deps, a) || nub_depmap_get(&m->dev, a) ||
            nub_depmap_get(&m->optional, a) || nub_depmap_get(&m->peer, a)) {
          lists[k][kept++] = lists[k][j];
          continue;
        }
        nub_free(lists[k][j].alias);
        nub_free(lists[k][j].specifier);
        nub_free(lists[k][j].ref);
        any = true;
      }
      *ns[k] = kept;
    }
  }
  return any;
}

/* Whether a member's own peer is locked at a version the workspace root's
 * range for it no longer allows: pnpm resolves those again (with the
 * root's range) even when it only removes, so a prune will not do. */
static bool member_peer_moves(const struct nub_install_ctx *c, const struct nub_graph *g)
{
  const struct nub_manifest *root = &c->s->man;

  for (size_t i = 0; i < g->nimporters; i++) {
    const struct nub_importer *im = &g->importers[i];
    const struct nub_ws_pkg *w = strcmp(im->path, ".") ? nub_workspace_at(&c->s->ws, im->path)
                                                        : NULL;
    if (!w)
      continue;
    for (int k = 0; k < NUB_DEP_KINDS; k++) {
      const struct nub_gdirect *d;
      size_t n = nub_importer_directs(im, k, &d);
      for (size_t j = 0; j < n; j++) {
        const char *a = d[j].alias, *rs;
        char *ver;
        bool ok;
        if (!nub_depmap_get(&w->man.peer, a) || nub_depmap_get(&w->man.deps, a) ||
            nub_depmap_get(&w->man.dev, a) || nub_depmap_get(&w->man.optional, a))
          continue;
        rs = nub_depmap_get(&root->deps, a);
        if (!rs)
          rs = nub_depmap_get(&root->dev, a);
        if (!rs || !strncmp(rs, "catalog:", 8) || !strncmp(rs, "workspace:", 10))
          continue;
        ver = nub_strndup(d[j].ref, strcspn(d[j].ref, "("));
        ok = nub_semver_satisfies(rs, ver, true) != 0;
        nub_free(ver);
        if (!ok)
          return true;
      }
    }
  }
  return false;
}

int nub_plan_from_graph(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_plan *p = &c->plan;
  struct nub_graph prev;
  bool have_prev = false, fresh = false;
  char why[512] = "";
  int rc;

  nub_graph_init(&p->graph);
  nub_graph_init(&prev);
  p->have_graph = true;
  /* pnpm-lock.yaml stays pnpm-lock.yaml; everything else is nub.lock */
  p->lockname = c->s->proj.lockfile ? c->s->proj.lockfile : "nub.lock"; /* (none: the resolver's) */
  if (c->s->proj.lockfile) {
    bool merged;
    rc = read_lock(c, &prev, &merged, err);
    if (rc < 0)
      goto out;
    have_prev = true;
    fresh = !merged && in_sync(c, &prev, why, sizeof(why));
    if (merged) {
      nub_install_warn_unconflict(c, "as pnpm merges them: of a dependency both list, the "
                                     "greater version");
      snprintf(why, sizeof(why), "it had merge-conflict markers");
    }
  }
  if (have_prev && !fresh && !c->frozen && c->o->frozen != NUB_FROZEN_NO && !c->o->nupdate &&
      !c->o->update_all && (c->s->proj.fmt->caps & NUB_LF_PNPM_PEERS) && !prev.patched.n && drop_removed(c, &prev) &&
      in_sync(c, &prev, why, sizeof(why)) && !member_peer_moves(c, &prev)) {
    /* only dependencies were removed: pnpm prunes the lockfile, which
     * resolves nothing again (the rest stays as the file has it); measured
     * on real projects, it resolves again where the file has patches */
    struct nub_buf b = NUB_BUF_INIT;
    nub_graph_prune(&prev);
    p->graph = prev;
    nub_graph_init(&prev);
    nub_lockfile_pnpm_write(&p->graph, &b);
    rc = nub_plan_stage_lock(c, &b, err);
    goto out;
  }
  if (c->frozen && !fresh) {
    rc = nub_err_set(err, -NUB_EOUTDATED,
                     "%s is out of date with package.json: %s; run `nub install` without "
                     "--frozen-lockfile to update it", c->s->proj.lockfile, why);
    goto out;
  }
  if (have_prev && fresh && c->o->frozen != NUB_FROZEN_NO && !c->o->nupdate &&
      !c->o->update_all) {
    p->graph = prev; /* the lockfile is the resolution */
    nub_graph_init(&prev);
    have_prev = false;
    rc = 0;
    goto out;
  }
  if (have_prev && why[0])
    nub_diag_debugf("re-resolving: %s", why);
  rc = nub_plan_resolve(c, have_prev && c->o->frozen != NUB_FROZEN_NO ? &prev : NULL, err);
  if (rc == 0) {
    struct nub_buf b = NUB_BUF_INIT;
    if (have_prev && c->o->frozen != NUB_FROZEN_NO && !c->o->update_all)
      keep_lock_facts(&c->plan.graph, &prev);
    nub_lockfile_pnpm_write(&c->plan.graph, &b);
    rc = after_all_resolved(c, &b, err);
    if (rc == 0)
      rc = nub_plan_stage_lock(c, &b, err);
    nub_buf_release(&b); /* (what staging did not take: the hook failed) */
  }
out:
  nub_graph_release(&prev); /* what read_lock filled, even when it failed */
  return rc;
}
