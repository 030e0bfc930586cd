/* install_isolated.c - `nub install` for the isolated layout: read nub.lock
 * (or pnpm-lock.yaml) or resolve package.json, write the lockfile, fetch
 * (downloads start while resolution goes on), link, bins, scripts, state. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "convert.h"
#include "extract.h"
#include "fetch.h"
#include "graph.h"
#include "install_int.h"
#include "isolated.h"
#include "lockfile_npm.h"
#include "lockfile_pnpm.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "registry.h"
#include "resolve.h"
#include "scripts.h"
#include "state.h"

struct iso {
  struct nub_install_ctx *c;
  struct nub_graph g;
  struct nub_meta *meta;
  struct nub_fetch *fetch;
  struct nub_plat_caps caps;
  bool resolved;     /* the graph came from the resolver */
  const char *lockname;
};

static bool platform_ok(const struct nub_plat_caps *caps, char *const *os, size_t nos,
                        char *const *cpu, size_t ncpu, char *const *libc, size_t nlibc)
{
  return nub_platform_allows(os, nos, caps->npm_os) &&
         nub_platform_allows(cpu, ncpu, caps->npm_cpu) &&
         (!caps->libc || nub_platform_allows(libc, nlibc, caps->libc));
}

/* The store identity of a graph package (shared by every peer variant). */
static struct nub_pkg *identity(struct iso *s, const char *name, const char *version,
                                const char *tarball, const char *integrity)
{
  char *url = tarball ? nub_strdup(tarball)
                      : nub_registry_tarball_url(&s->c->cfg, name, version);
  struct nub_pkg *p = nub_tree_pkg(&s->c->tree, name, version, url, integrity);
  nub_free(url);
  /* a package new to the store becomes its entry in the global virtual
   * store where it is unpacked (isolated.c, adopt); not where whole
   * directories are cloned from content files (macOS) */
  p->as_tree = s->c->cfg.gvs && !s->caps.has_clonedir;
  return p;
}

static void on_pick(void *ud, const char *name, const struct nub_pversion *pv)
{
  struct iso *s = ud;
  struct nub_pkg *p;

  /* optional packages for another platform are never downloaded */
  if (!platform_ok(&s->caps, pv->os, pv->nos, pv->cpu, pv->ncpu, pv->libc, pv->nlibc))
    return;
  p = identity(s, name, pv->version, pv->tarball, pv->integrity);
  p->needed = true;
  p->optional = true; /* until the graph says otherwise */
  nub_fetch_add(s->fetch, p);
}

/* Does the lockfile's importer match package.json? why names the first
 * dependency that differs. */
static bool in_sync(const struct nub_graph *g, const struct nub_manifest *m,
                    const struct nub_depmap *overrides, char *why, size_t cap)
{
  const struct nub_importer *im = g->nimporters ? &g->importers[0] : NULL;
  const struct nub_depmap *maps[3] = {&m->deps, &m->dev, &m->optional};
  size_t total = 0;

  if (!im) {
    snprintf(why, cap, "the lockfile has no importer for the project");
    return false;
  }
  for (size_t i = 0; i < overrides->n; i++) {
    const char *was = nub_depmap_get(&g->overrides, overrides->v[i].name);
    if (!was || strcmp(was, overrides->v[i].spec)) {
      snprintf(why, cap, "override %s changed to '%s'", overrides->v[i].name,
               overrides->v[i].spec);
      return false;
    }
  }
  if (g->overrides.n != overrides->n) {
    for (size_t i = 0; i < g->overrides.n; i++)
      if (!nub_depmap_get(overrides, g->overrides.v[i].name)) {
        snprintf(why, cap, "override %s was removed", g->overrides.v[i].name);
        return false;
      }
  }
  for (int k = 0; k < 3; k++) {
    const struct nub_gdirect *d = k == 0 ? im->deps : k == 1 ? im->dev : im->optional;
    size_t n = k == 0 ? im->ndeps : k == 1 ? im->ndev : im->noptional;
    const char *field = k == 0 ? "dependencies" : k == 1 ? "devDependencies"
                                                         : "optionalDependencies";
    for (size_t i = 0; i < maps[k]->n; i++) {
      const struct nub_dep *dep = &maps[k]->v[i];
      const struct nub_gdirect *hit = NULL;
      /* npm: a name in optionalDependencies leaves dependencies */
      if (k == 0 && nub_depmap_get(&m->optional, dep->name))
        continue;
      if (k == 1 && (nub_depmap_get(&m->deps, dep->name) ||
                     nub_depmap_get(&m->optional, dep->name)))
        continue;
      total++;
      for (size_t j = 0; j < n; j++)
        if (!strcmp(d[j].alias, dep->name))
          hit = &d[j];
      if (!hit) {
        snprintf(why, cap, "%s %s@%s is not in the lockfile", field, dep->name, dep->spec);
        return false;
      }
      if (strcmp(hit->specifier, dep->spec)) {
        snprintf(why, cap, "%s %s changed from '%s' (lockfile) to '%s' (package.json)",
                 field, dep->name, hit->specifier, dep->spec);
        return false;
      }
    }
  }
  if (total != im->ndeps + im->ndev + im->noptional) {
    for (int k = 0; k < 3; k++) {
      const struct nub_gdirect *d = k == 0 ? im->deps : k == 1 ? im->dev : im->optional;
      size_t n = k == 0 ? im->ndeps : k == 1 ? im->ndev : im->noptional;
      for (size_t j = 0; j < n; j++)
        if (!nub_depmap_get(&m->deps, d[j].alias) && !nub_depmap_get(&m->dev, d[j].alias) &&
            !nub_depmap_get(&m->optional, d[j].alias)) {
          snprintf(why, cap, "%s is in the lockfile but no longer in package.json",
                   d[j].alias);
          return false;
        }
    }
  }
  return true;
}

static int read_lock(struct iso *s, struct nub_graph *g, struct nub_err *err)
{
  char *text = NULL;
  size_t len = 0;
  int rc = nub_plat_read_file_at(s->c->proj.dir_fd, s->c->proj.lockfile, 1u << 30, &text,
                                 &len);

  if (rc < 0)
    return nub_err_set(err, rc, "cannot read %s: %s", s->c->proj.lockfile, nub_strerror(rc));
  rc = nub_lockfile_pnpm_parse(g, text, len, s->c->proj.lockfile, err);
  nub_free(text);
  return rc;
}

/* Write the lockfile only when its bytes change (no churn). */
static int write_lock(struct iso *s, struct nub_err *err)
{
  struct nub_buf b = NUB_BUF_INIT;
  char *old = NULL, *path;
  size_t oldlen = 0;
  int rc = 0;

  nub_lockfile_pnpm_write(&s->g, &b);
  if (nub_plat_read_file_at(s->c->proj.dir_fd, s->lockname, 1u << 30, &old, &oldlen) == 0 &&
      oldlen == b.len && !memcmp(old, b.data, b.len)) {
    nub_free(old);
    nub_buf_release(&b);
    return 0;
  }
  nub_free(old);
  path = nub_asprintf("%s/%s", s->c->proj.dir, s->lockname);
  rc = nub_plat_write_file_atomic(path, b.data, b.len, 0644);
  if (rc < 0)
    nub_err_set(err, rc, "cannot write %s: %s", path, nub_strerror(rc));
  nub_free(path);
  nub_buf_release(&b);
  return rc;
}

/* Skip what this install leaves out: optional packages for another platform,
 * dev-only packages under --prod, optional ones under --no-optional. */
static int filter(struct iso *s, struct nub_err *err)
{
  struct nub_graph *g = &s->g;
  const struct nub_importer *im = g->nimporters ? &g->importers[0] : NULL;
  bool *reach = nub_calloc(g->npkgs + 1, sizeof(bool));
  size_t *stack = nub_malloc(sizeof(size_t) * (g->npkgs + 1)), sp = 0;
  int rc = 0;

  for (size_t i = 0; i < g->npkgs; i++) {
    struct nub_gpkg *p = g->pkgs[i];
    p->skip = false;
    if (!platform_ok(&s->caps, p->os, p->nos, p->cpu, p->ncpu, p->libc, p->nlibc)) {
      if (p->optional) {
        p->skip = true;
        continue;
      }
      if (!s->c->o->force) {
        rc = nub_err_set(err, -NUB_EPLATFORM,
                         "%s does not support this platform (%s %s) and is not optional; "
                         "use --force to install it anyway", p->key, s->caps.npm_os,
                         s->caps.npm_cpu);
        goto out;
      }
    }
    if (p->optional && s->c->o->omit_optional)
      p->skip = true;
  }
  /* what the kept direct dependencies reach */
  for (int k = 0; im && k < 3; k++) {
    const struct nub_gdirect *d = k == 0 ? im->deps : k == 1 ? im->optional : im->dev;
    size_t n = k == 0 ? im->ndeps : k == 1 ? im->noptional : im->ndev;
    if ((k == 2 && s->c->o->omit_dev) || (k != 2 && s->c->o->dev_only) ||
        (k == 1 && s->c->o->omit_optional))
      continue;
    for (size_t i = 0; i < n; i++) {
      char *t = nub_gedge_target(d[i].alias, d[i].ref);
      struct nub_gpkg *p = t ? nub_graph_find(g, t) : NULL;
      nub_free(t);
      if (p && !p->skip && !reach[p->index]) {
        reach[p->index] = true;
        stack[sp++] = p->index;
      }
    }
  }
  while (sp) {
    struct nub_gpkg *p = g->pkgs[stack[--sp]];
    for (size_t e = 0; e < p->ndeps + p->noptional_deps; e++) {
      const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
      char *t = nub_gedge_target(ed->alias, ed->ref);
      struct nub_gpkg *q = t ? nub_graph_find(g, t) : NULL;
      nub_free(t);
      if (q && !q->skip && !reach[q->index]) {
        reach[q->index] = true;
        stack[sp++] = q->index;
      }
    }
  }
  for (size_t i = 0; i < g->npkgs; i++)
    if (!reach[i])
      g->pkgs[i]->skip = true;
out:
  nub_free(reach);
  nub_free(stack);
  return rc;
}

static int fetch_all(struct iso *s, struct nub_fetch_result *fr, struct nub_err *err)
{
  struct nub_install_ctx *c = s->c;
  struct nub_fetch_opts fo = {c->o->offline};
  int rc;

  if (!s->fetch) {
    rc = nub_fetch_begin(&s->fetch, &c->store, &c->cfg, c->pool, &c->prog, &fo, NULL, err);
    if (rc < 0)
      return rc;
  }
  for (size_t i = 0; i < s->g.npkgs; i++) {
    struct nub_gpkg *p = s->g.pkgs[i];
    if (p->skip)
      continue;
    if (p->directory) {
      /* a file: directory is re-imported every time: it may have changed */
      struct nub_import *im;
      struct nub_extract_stats st;
      char *abs = nub_asprintf("%s/%s", c->proj.dir, p->directory);
      char *id = nub_asprintf("file:%s", abs);
      p->fetch = nub_tree_pkg(&c->tree, p->name, p->version, id, NULL);
      nub_free(id);
      nub_index_free(p->fetch->index);
      p->fetch->index = NULL;
      nub_import_begin(&c->store, &im, err);
      rc = nub_import_directory(im, abs, p->key, &st, err);
      nub_free(abs);
      if (rc < 0) {
        nub_import_abort(im);
        return rc;
      }
      rc = nub_import_commit(im, p->fetch->key, &p->fetch->index, err);
      if (rc < 0)
        return rc;
      continue;
    }
    p->fetch = identity(s, p->name, p->version, p->tarball, p->integrity);
    if (!p->optional)
      p->fetch->optional = false;
    else if (!p->fetch->needed)
      p->fetch->optional = true;
    p->fetch->needed = true;
    nub_fetch_add(s->fetch, p->fetch);
  }
  rc = nub_fetch_end(s->fetch, fr, err);
  s->fetch = NULL;
  if (rc < 0)
    return rc;
  for (size_t i = 0; i < s->g.npkgs; i++) {
    struct nub_gpkg *p = s->g.pkgs[i];
    if (!p->skip && p->fetch && p->fetch->failed)
      p->skip = true; /* an optional package that could not be fetched */
  }
  return 0;
}

static int run_dep_scripts(struct iso *s, struct nub_err *err)
{
  struct nub_install_ctx *c = s->c;

  for (size_t i = 0; i < s->g.npkgs; i++) {
    struct nub_gpkg *p = s->g.pkgs[i];
    const struct nub_index *idx = p->fetch ? p->fetch->index : NULL;
    char dir[300], *pdir;
    struct nub_manifest pm;
    int rc;

    if (p->skip || !idx || !(idx->flags & (NUB_IDX_INSTALL_SCRIPT | NUB_IDX_BINDING_GYP)))
      continue;
    if (c->o->ignore_scripts || c->cfg.ignore_scripts)
      continue;
    if (!nub__trusted(&c->man, p->name)) {
      if (c->nblocked++)
        nub_buf_adds(&c->blocked, ", ");
      nub_buf_addf(&c->blocked, "%s@%s", p->name, p->version);
      continue;
    }
    nub_dep_path_filename(p->key, dir, sizeof(dir));
    pdir = nub_asprintf("%s/node_modules/.nub/%s/node_modules/%s", c->proj.dir, dir, p->name);
    rc = nub_manifest_load(&pm, pdir, err);
    if (rc == 0) {
      const char *cmds[3] = {pm.preinstall, pm.install, pm.postinstall};
      static const char *const ev[3] = {"preinstall", "install", "postinstall"};
      if (!pm.preinstall && !pm.install && !pm.postinstall &&
          (idx->flags & NUB_IDX_BINDING_GYP))
        cmds[1] = "node-gyp rebuild";
      for (int e = 0; e < 3 && rc == 0; e++)
        if (cmds[e])
          rc = nub_script_run(c->proj.dir, pdir, p->name, p->version, ev[e], cmds[e], err);
      nub_manifest_release(&pm);
    }
    nub_free(pdir);
    if (rc < 0)
      return rc;
  }
  return 0;
}

static void record_state(struct iso *s)
{
  struct nub_install_ctx *c = s->c;
  struct nub_state st;
  const struct nub_importer *im = s->g.nimporters ? &s->g.importers[0] : NULL;
  size_t k = 0;

  memset(&st, 0, sizeof(st));
  snprintf(st.layout, sizeof(st.layout), "isolated");
  memcpy(st.settings, c->settings, sizeof(st.settings));
  nub_fingerprint(c->proj.dir_fd, s->lockname, &st.files[st.nfiles++]);
  nub_fingerprint(c->proj.dir_fd, "package.json", &st.files[st.nfiles++]);
  for (int kk = 0; im && kk < 3; kk++) {
    const struct nub_gdirect *d = kk == 0 ? im->deps : kk == 1 ? im->optional : im->dev;
    size_t n = kk == 0 ? im->ndeps : kk == 1 ? im->noptional : im->ndev;
    for (size_t i = 0; i < n; i++) {
      char *t = nub_gedge_target(d[i].alias, d[i].ref);
      struct nub_gpkg *p = t ? nub_graph_find(&s->g, t) : NULL;
      char *path = nub_asprintf("node_modules/%s", d[i].alias);
      nub_free(t);
      if ((p && !p->skip) || !strncmp(d[i].ref, "link:", 5))
        nub_state_add_check(&st, path);
      nub_free(path);
    }
  }
  st.keys = nub_calloc(s->g.npkgs + 1, sizeof(char *));
  st.paths = nub_calloc(s->g.npkgs + 1, sizeof(char *));
  for (size_t i = 0; i < s->g.npkgs; i++) {
    char dir[300];
    if (s->g.pkgs[i]->skip)
      continue;
    nub_dep_path_filename(s->g.pkgs[i]->key, dir, sizeof(dir));
    st.keys[k] = nub_strdup(s->g.pkgs[i]->fetch ? s->g.pkgs[i]->fetch->key : "-");
    st.paths[k] = nub_asprintf("node_modules/.nub/%s", dir);
    k++;
  }
  st.n = k;
  nub_state_write(&st, c->proj.dir_fd);
  nub_state_release(&st);
}

/* Drop what the previous isolated install had and this one does not. */
static void reconcile(struct iso *s)
{
  struct nub_install_ctx *c = s->c;
  struct nub_state old;
  bool keep_tree;

  keep_tree = !c->o->ci && !c->o->force && nub_state_read(&old, c->proj.dir_fd, false) == 0;
  if (keep_tree && (strcmp(old.layout, "isolated") || strcmp(old.settings, c->settings))) {
    nub_state_release(&old);
    keep_tree = false;
  }
  if (!keep_tree) {
    struct nub_plat_stat st;
    if (nub_plat_stat_at(c->proj.dir_fd, "node_modules", &st) == 0)
      nub_plat_rm_rf_at(c->proj.dir_fd, "node_modules");
    return;
  }
  for (size_t i = 0; i < old.n; i++) {
    bool still = false;
    for (size_t j = 0; j < s->g.npkgs && !still; j++) {
      char dir[300], path[320];
      if (s->g.pkgs[j]->skip)
        continue;
      nub_dep_path_filename(s->g.pkgs[j]->key, dir, sizeof(dir));
      snprintf(path, sizeof(path), "node_modules/.nub/%s", dir);
      still = !strcmp(path, old.paths[i]);
    }
    if (!still)
      nub_plat_rm_rf_at(c->proj.dir_fd, old.paths[i]);
  }
  for (size_t i = 0; i < old.nchecks; i++)
    nub_plat_rm_rf_at(c->proj.dir_fd, old.checks[i]); /* top-level links are redone */
  nub_plat_rm_rf_at(c->proj.dir_fd, "node_modules/.bin");
  nub_plat_rm_rf_at(c->proj.dir_fd, "node_modules/.nub/node_modules");
  nub_state_release(&old);
}

int nub__install_isolated(struct nub_install_ctx *c, struct nub_err *err)
{
  struct iso s;
  struct nub_diag_phase ph;
  struct nub_fetch_result fr;
  struct nub_isolated_result ir;
  struct nub_graph prev;
  const struct nub_depmap *overrides = &c->man.overrides;
  bool have_prev = false, frozen, fresh = false;
  char why[512] = "", detail[160];
  int rc;
  static const char *const pre[] = {"preinstall"};
  static const char *const post[] = {"install", "postinstall", "prepare"};

  memset(&s, 0, sizeof(s));
  memset(&fr, 0, sizeof(fr));
  memset(&ir, 0, sizeof(ir));
  s.c = c;
  nub_plat_caps(&s.caps);
  nub_graph_init(&s.g);
  nub_graph_init(&prev);
  /* pnpm-lock.yaml stays pnpm-lock.yaml; everything else is nub.lock */
  s.lockname = c->proj.lock == NUB_LOCK_PNPM ? "pnpm-lock.yaml" : "nub.lock";
  frozen = c->o->frozen == NUB_FROZEN_YES ||
           (c->o->frozen == NUB_FROZEN_DEFAULT && nub_plat_getenv("CI") && c->proj.lockfile);

  nub_diag_phase_begin(&ph, "resolve");
  if (c->given) {
    /* a plan made from another lockfile (npm's tree): install it as is */
    s.g = *c->given;
    memset(c->given, 0, sizeof(*c->given));
    s.lockname = c->proj.lockfile;
    nub_graph_sort(&s.g);
    rc = filter(&s, err);
    goto out_phase;
  }
  if (c->proj.lockfile) {
    rc = read_lock(&s, &prev, err);
    if (rc < 0)
      goto out_phase;
    have_prev = true;
    fresh = in_sync(&prev, &c->man, overrides, why, sizeof(why));
  }
  if (frozen) {
    if (!have_prev) {
      rc = nub_err_set(err, -NUB_ENOLOCKFILE,
                       "no lockfile and --frozen-lockfile is set (the default when CI is "
                       "set); run `nub install --no-frozen-lockfile` to create nub.lock");
      goto out_phase;
    }
    if (!fresh) {
      rc = nub_err_set(err, -NUB_EOUTDATED,
                       "%s is out of date with package.json: %s; run `nub install` "
                       "without --frozen-lockfile to update it", c->proj.lockfile, why);
      goto out_phase;
    }
  }
  if (have_prev && fresh && c->o->frozen != NUB_FROZEN_NO) {
    s.g = prev; /* the lockfile is the resolution */
    have_prev = false;
  } else {
    struct nub_meta_opts mo = {c->o->offline, c->o->prefer_offline};
    struct nub_resolve_opts ro;
    struct nub_fetch_opts fo = {c->o->offline};

    if (have_prev && why[0])
      nub_diag_debugf("re-resolving: %s", why);
    rc = nub_meta_new(&s.meta, &c->cfg, c->pool, &c->prog, &mo, err);
    if (rc < 0)
      goto out_phase;
    if (!c->o->lockfile_only) {
      struct nub_http *h = c->o->offline ? NULL : nub_meta_http(s.meta, err);
      rc = nub_fetch_begin(&s.fetch, &c->store, &c->cfg, c->pool, &c->prog, &fo, h, err);
      if (rc < 0)
        goto out_phase;
    }
    memset(&ro, 0, sizeof(ro));
    ro.project_dir = c->proj.dir;
    ro.previous = have_prev && c->o->frozen != NUB_FROZEN_NO ? &prev : NULL;
    ro.overrides = overrides;
    ro.on_pick = s.fetch ? on_pick : NULL;
    ro.ud = &s;
    rc = nub_resolve(&s.g, &c->man, s.meta, &ro, err);
    s.resolved = true;
    if (rc < 0)
      goto out_phase;
    rc = write_lock(&s, err);
    if (rc < 0)
      goto out_phase;
  }
  nub_graph_sort(&s.g);
  rc = filter(&s, err);
out_phase:
  {
    size_t kept = 0;
    for (size_t i = 0; i < s.g.npkgs; i++)
      kept += !s.g.pkgs[i]->skip;
    c->installed = kept;
    snprintf(detail, sizeof(detail), "%s%zu packages", s.resolved ? "fresh, " : "from lockfile, ",
             kept);
  }
  nub_diag_phase_end(&ph, detail);
  if (rc < 0 || c->o->lockfile_only)
    goto out;
  if (c->proj.layout == NUB_LINKER_HOISTED) {
    /* --node-linker hoisted: the graph placed npm's way. Downloads the
     * resolver started finish first; the hoisted fetch then finds them. */
    if (s.fetch) {
      rc = nub_fetch_end(s.fetch, &fr, err);
      s.fetch = NULL;
      if (rc < 0)
        goto out;
    }
    rc = nub_tree_from_graph(&c->tree, &s.g, &c->cfg, err);
    if (rc == 0)
      rc = nub__hoisted_filter(c, err);
    if (rc == 0)
      rc = nub__install_hoisted_tree(c, err);
    goto out;
  }

  rc = nub__run_root_scripts(c, pre, 1, err);
  if (rc < 0)
    goto out;

  nub_diag_phase_begin(&ph, "fetch");
  rc = fetch_all(&s, &fr, err);
  snprintf(detail, sizeof(detail), "%zu packages, %zu cached", fr.fetched, fr.cached);
  nub_diag_phase_end(&ph, detail);
  nub_diag_set_count("packages", (long long)c->installed);
  nub_diag_set_count("fetched", (long long)fr.fetched);
  nub_diag_set_count("cached", (long long)fr.cached);
  if (rc < 0)
    goto out;

  reconcile(&s);
  nub_plat_unlink_at(c->proj.dir_fd, NUB_STATE_FILE, false);

  nub_diag_phase_begin(&ph, "link");
  rc = nub_linker_init(&c->linker, &c->store, c->cfg.import_method);
  c->have_linker = true;
  if (rc == 0) {
    struct nub_isolated_opts io;
    memset(&io, 0, sizeof(io));
    io.gvs = c->cfg.gvs;
    io.omit_dev = c->o->omit_dev;
    io.omit_optional = c->o->omit_optional;
    io.trusted = c->man.trusted;
    io.ntrusted = c->man.ntrusted;
    rc = nub_isolated_link(c->proj.dir_fd, &s.g, &c->store, &c->linker, c->pool, &c->prog,
                           &io, &ir, err);
  }
  snprintf(detail, sizeof(detail), "%zu files, %zu packages, %zu reused, %zu adopted",
           ir.files, ir.packages, ir.reused, ir.adopted);
  nub_diag_phase_end(&ph, detail);
  nub_diag_tally_add(&ir.st.t);
  nub_diag_set_count("files", (long long)ir.files);
  if (rc < 0)
    goto out;

  nub_diag_phase_begin(&ph, "link_bins");
  {
    size_t nl = 0;
    rc = nub_isolated_bins(c->proj.dir_fd, &s.g, c->o->omit_dev, &nl, err);
    snprintf(detail, sizeof(detail), "%zu links", nl);
  }
  nub_diag_phase_end(&ph, detail);
  if (rc < 0)
    goto out;

  nub_diag_phase_begin(&ph, "scripts");
  rc = run_dep_scripts(&s, err);
  if (rc == 0)
    rc = nub__run_root_scripts(c, post, 3, err);
  nub_diag_phase_end(&ph, NULL);
  if (rc < 0)
    goto out;
  nub__warn_blocked(c);

  nub_diag_phase_begin(&ph, "state");
  record_state(&s);
  nub_diag_phase_end(&ph, NULL);
  nub_progress_stop(&c->prog);
  nub__print_summary(c, c->installed, 0);
out:
  if (s.fetch) {
    struct nub_err e2;
    nub_fetch_end(s.fetch, &fr, &e2);
  }
  if (s.meta)
    nub_meta_free(s.meta);
  if (have_prev)
    nub_graph_release(&prev);
  nub_graph_release(&s.g);
  return rc;
}
