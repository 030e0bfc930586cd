/* add.c - `nub add` and `nub remove` (add.h). */
#include "add.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "edit.h"
#include "lockfile_pnpm.h"
#include "graph.h"
#include "journal.h"
#include "lockfmt.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "path.h"
#include "pkgjson_edit.h"
#include "pool.h"
#include "progress.h"
#include "project.h"
#include "projlock.h"
#include "resolve.h"
#include "session.h"
#include "registry.h"
#include "report.h"
#include "semver.h"
#include "workspace.h"
#include "wsyaml_edit.h"

static const char *const sections[] = {"dependencies", "devDependencies", "optionalDependencies",
                                       "peerDependencies"};

/* ---- what to save ---------------------------------------------------------- */

struct want {
  char name[256];
  char *spec; /* to save (owned) */
};

static bool is_path_spec(const char *s)
{
  return !strncmp(s, "file:", 5) || !strncmp(s, "link:", 5) || s[0] == '.' || s[0] == '/';
}

/* "name@req" -> name and req (NULL when none). */
static void split_arg(const char *arg, char *name, size_t cap, const char **req)
{
  const char *at = strchr(arg[0] == '@' ? arg + 1 : arg, '@');

  snprintf(name, cap, "%.*s", (int)(at ? (size_t)(at - arg) : strlen(arg)), arg);
  *req = at ? at + 1 : NULL;
}

static bool is_exact_version(const char *s)
{
  struct nub_version v;
  bool ok = nub_version_parse_loose(&v, s) == 0 && !strpbrk(s, " <>=^~*xX|");

  if (ok)
    nub_version_release(&v);
  return ok;
}

static int lookup(struct nub_meta *meta, const struct nub_age_gate *gate, const char *name,
                  const char *req, char **version, bool *was_tag, struct nub_err *err)
{
  const struct nub_packument *p;
  const struct nub_pversion *pv;
  const char *latest;
  int rc = nub_meta_get(meta, name, &p, err);

  *version = NULL;
  if (rc < 0)
    return rc;
  if (!p->nversions) /* (an unpublished name keeps a document of none) */
    return nub_err_set(err, -NUB_ENOTFOUND, "%s has no published versions (unpublished, or "
                       "never released); check the name", name);
  latest = nub_depmap_get(&p->tags, "latest");
  if (!req || !*req)
    req = "latest";
  *was_tag = nub_depmap_get(&p->tags, req) != NULL;
  if (!*was_tag) {
    struct nub_range *range = NULL;
    if (nub_range_parse_loose(&range, req) < 0)
      return nub_err_set(err, -NUB_ENOVERSION, "%s has no version or tag '%s'", name, req);
    nub_range_free(range);
  }
  pv = nub_resolve_choose(p, req, gate);
  if (!pv && gate->cutoff && (pv = nub_resolve_choose(p, req, NULL)) != NULL) {
    char *warning = NULL; /* (the install that follows says it) */
    rc = nub_age_gate_fallback(gate, name, req, "the command line", pv, &warning, err);
    nub_free(warning);
    if (rc < 0)
      return rc;
  }
  if (!pv)
    return nub_err_set(err, -NUB_ENOVERSION, "no version of %s matches '%s'%s%s", name, req,
                       latest ? "; latest is " : "", latest ? latest : "");
  *version = nub_strdup(pv->version);
  return 0;
}

/* The registry's documents for the lookups, under the project's release-age
 * gate (agegate.h). */
static int open_meta(struct nub_edit *e, struct nub_meta **meta, const struct nub_add_opts *o,
                     struct nub_err *err)
{
  struct nub_meta_opts mo = {o->install.offline, o->install.prefer_offline, 0, false};
  struct nub_project proj;
  struct nub_err ignored;
  int rc;

  /* (the install that follows reads the lockfile's format for good; two
   * lockfiles are its error to give) */
  if (nub_project_detect(&proj, e->s.root, &e->s.cfg, e->s.man.package_manager,
                         e->s.o.fmts, e->s.o.none, &ignored) < 0)
    proj.fmt = NULL;
  rc = nub_age_gate_load(&e->gate, &e->s.cfg, e->s.ws.source ? &e->s.ws : NULL, e->s.root,
                         proj.fmt, err);
  nub_project_release(&proj);
  if (rc < 0)
    return rc;
  mo.times_after = e->gate.cutoff;
  e->pool = nub_pool_new(1, "registry");
  nub_progress_start(&e->prog, (int)NUB_REPORTER_SILENT);
  e->have_prog = true;
  return nub_meta_new(meta, &e->s.cfg, e->pool, &e->prog, &mo, err);
}

/* pnpm's pick for a tag (`add x`, `add x@latest`) where a project of the
 * workspace already depends on x: the highest version those dependencies
 * are locked at that is not newer than the tag's (npm-resolver's preferred
 * versions, where direct dependencies weigh most; measured: a package only
 * deeper down is not preferred), else NULL. */
static const char *locked_pick(struct nub_edit *e, const char *name, const char *tagged)
{
  const char *best = NULL;
  struct nub_version tv, bv;

  if (!e->locked_read) {
    struct nub_project proj;
    struct nub_err ignored;
    e->locked_read = true;
    if (nub_project_detect(&proj, e->s.root, &e->s.cfg, e->s.man.package_manager, e->s.o.fmts,
                           e->s.o.none, &ignored) == 0) {
      char *text = NULL;
      size_t len = 0;
      if (proj.fmt && (proj.fmt->caps & NUB_LF_PNPM_PEERS) && proj.lockfile &&
          nub_project_read_lockfile(&proj, &e->s.cfg, &text, &len, &ignored) == 0) {
        e->locked = nub_calloc(1, sizeof(*e->locked));
        nub_graph_init(e->locked);
        if (nub_lockfile_pnpm_parse(e->locked, text, len, proj.lockfile, &ignored) < 0) {
          nub_graph_release(e->locked);
          nub_free(e->locked);
          e->locked = NULL;
        }
      }
      nub_free(text);
      nub_project_release(&proj);
    }
  }
  if (!e->locked || nub_version_parse(&tv, tagged) < 0)
    return NULL;
  memset(&bv, 0, sizeof(bv));
  for (size_t i = 0; i < e->locked->nimporters; i++)
    for (int k = 0; k < NUB_DEP_KINDS; k++) {
      const struct nub_gdirect *d;
      size_t n = nub_importer_directs(&e->locked->importers[i], k, &d);
      for (size_t j = 0; j < n; j++) {
        struct nub_version v;
        char *ver;
        if (strcmp(d[j].alias, name))
          continue;
        ver = nub_strndup(d[j].ref, strcspn(d[j].ref, "("));
        if (nub_version_parse(&v, ver) < 0) {
          nub_free(ver);
          continue;
        }
        if (nub_version_cmp(&v, &tv) <= 0 && (!best || nub_version_cmp(&v, &bv) > 0)) {
          nub_version_release(&bv);
          bv = v;
          nub_free(e->pick);
          best = e->pick = ver;
          continue;
        }
        nub_version_release(&v);
        nub_free(ver);
      }
    }
  nub_version_release(&bv);
  nub_version_release(&tv);
  return best;
}

/* The spec to save for one argument, looked up on the registry when needed. */
static int want_of(struct nub_edit *e, struct nub_meta **meta, const struct nub_add_opts *o,
                   const char *target, const char *arg, struct want *w, struct nub_err *err)
{
  const char *req, *prefix = nub_config_get(&e->s.cfg, "save-prefix");
  bool exact = o->exact || nub_config_bool(&e->s.cfg, "save-exact", false);
  char real[256], *version = NULL;
  const char *real_req = NULL;
  const struct nub_ws_pkg *member;
  bool was_tag = false;
  int rc;

  if (!prefix)
    prefix = "^";
  if (is_path_spec(arg)) {
    bool link = !strncmp(arg, "link:", 5);
    const char *path = !strncmp(arg, "file:", 5) || link ? arg + 5 : arg;
    char *abs = path[0] == '/' ? nub_strdup(path) : nub_asprintf("%s/%s%s%s", e->s.root,
                                                                 e->s.cwd_rel,
                                                                 e->s.cwd_rel[0] ? "/" : "", path);
    char rel[4096];
    struct nub_manifest m;
    rc = nub_manifest_load(&m, abs, err);
    if (rc == 0 && !m.name)
      rc = nub_err_set(err, -NUB_EMANIFEST, "%s/package.json has no name", abs);
    if (rc == 0) {
      snprintf(w->name, sizeof(w->name), "%s", m.name);
      if (nub_path_relative(target, abs, rel, sizeof(rel)) < 0)
        snprintf(rel, sizeof(rel), "%s", abs);
      w->spec = nub_asprintf("%s:%s", link ? "link" : "file", rel);
    }
    if (rc == 0)
      nub_manifest_release(&m);
    nub_free(abs);
    return rc;
  }
  split_arg(arg, w->name, sizeof(w->name), &req);
  if (!nub_valid_pkg_name(w->name))
    return nub_err_set(err, -NUB_EUSAGE, "'%s' is not a package name", w->name);
  if (req && (!strncmp(req, "workspace:", 10) || !strncmp(req, "catalog:", 8) ||
              !strncmp(req, "git", 3) || strstr(req, "://"))) {
    w->spec = nub_strdup(req); /* saved as given */
    return 0;
  }
  if (!req && e->s.ws.source && (member = nub_workspace_find(&e->s.ws, w->name)) != NULL) {
    w->spec = !strcmp(e->s.ws.source, "pnpm-workspace.yaml") || !member->man.version
                  ? nub_strdup("workspace:^")
                  : nub_asprintf("%s%s", exact ? "" : prefix, member->man.version);
    return 0;
  }
  snprintf(real, sizeof(real), "%s", w->name);
  real_req = req;
  if (req && !strncmp(req, "npm:", 4)) { /* an alias: npm:real[@req] */
    split_arg(req + 4, real, sizeof(real), &real_req);
    if (!nub_valid_pkg_name(real))
      return nub_err_set(err, -NUB_EUSAGE, "'%s' is not a package name", real);
  }
  if (!*meta && (rc = open_meta(e, meta, o, err)) < 0)
    return rc;
  rc = lookup(*meta, &e->gate, real, real_req, &version, &was_tag, err);
  if (rc < 0)
    return rc;
  if (was_tag || !real_req) {
    const char *kept = locked_pick(e, real, version);
    if (kept && strcmp(kept, version)) {
      nub_free(version);
      version = nub_strdup(kept);
    }
  }
  /* a range is saved as given; a version or a tag as save-prefix + version */
  /* a partial version ("18", "4.17") is a version too, as npm and pnpm save it */
  if (real_req && !was_tag && !is_exact_version(real_req) &&
      strspn(real_req, "0123456789.") != strlen(real_req))
    w->spec = req && !strncmp(req, "npm:", 4) ? nub_strdup(req) : nub_strdup(real_req);
  else if (strcmp(real, w->name))
    w->spec = nub_asprintf("npm:%s@%s%s", real, exact ? "" : prefix, version);
  else
    w->spec = nub_asprintf("%s%s", exact ? "" : prefix, version);
  nub_free(version);
  return 0;
}

/* ---- editing ------------------------------------------------------------------ */

static int read_pj(const char *dir, char **text, size_t *len, struct nub_err *err)
{
  char *path = nub_asprintf("%s/package.json", dir);
  int rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, 64u << 20, text, len);

  if (rc < 0)
    rc = nub_err_set(err, rc == -ENOENT ? -NUB_ENOMANIFEST : rc, "cannot read %s: %s", path,
                     nub_strerror(rc));
  nub_free(path);
  return rc;
}

static int write_pj(const char *dir, const struct nub_buf *b, struct nub_err *err)
{
  char *path = nub_asprintf("%s/package.json", dir);
  int rc = nub_plat_write_file_atomic(path, b->data, b->len, 0644);

  if (rc < 0)
    rc = nub_err_set(err, rc, "cannot write %s: %s", path, nub_strerror(rc));
  nub_free(path);
  return rc;
}

/* text := text with name in `keep` (spec) and in no other section. */
static int apply(char **text, size_t *len, const char *name, const char *spec,
                 enum nub_save_kind kind, struct nub_err *err)
{
  struct nub_buf b = NUB_BUF_INIT;
  bool removed;
  int rc = 0;

  for (int s = 0; s < 4 && rc == 0; s++) {
    bool keep = s == (int)kind || (kind == NUB_SAVE_PEER && s == NUB_SAVE_DEV);
    if (keep)
      rc = nub_pkgjson_set_dep(&b, *text, *len, sections[s], name, spec, err);
    else /* moved: a section it leaves empty goes */
      rc = nub_pkgjson_take_dep(&b, *text, *len, sections[s], name, true, &removed, err);
    if (rc == 0) {
      nub_free(*text);
      *len = b.len;
      *text = nub_buf_take(&b);
    }
  }
  nub_buf_release(&b);
  return rc;
}

int nub_add(const struct nub_add_opts *o, struct nub_install_result *res, char ***saved,
            size_t *nsaved, struct nub_err *err)
{
  struct nub_edit e;
  struct nub_meta *meta = NULL;
  struct want *w = nub_calloc(o->nspecs + 1, sizeof(*w));
  char **lines = NULL;
  size_t nlines = 0;
  int rc;

  memset(res, 0, sizeof(*res));
  *saved = NULL;
  *nsaved = 0;
  rc = nub_edit_open(&e, o, err);
  if (rc == 0)
    rc = nub_edit_begin(&e, err);
  for (size_t t = 0; rc == 0 && t < e.ntargets; t++) {
    char *text = NULL;
    size_t len = 0;
    struct nub_manifest check;
    rc = read_pj(e.targets[t], &text, &len, err);
    if (rc == 0)
      rc = nub_manifest_parse(&check, text, len, "package.json", err); /* valid JSON first */
    if (rc == 0)
      nub_manifest_release(&check);
    for (size_t i = 0; rc == 0 && i < o->nspecs; i++) {
      if (!w[i].spec)
        rc = want_of(&e, &meta, o, e.targets[t], o->specs[i], &w[i], err);
      if (rc == 0)
        rc = apply(&text, &len, w[i].name, w[i].spec, o->save, err);
    }
    if (rc == 0) {
      struct nub_buf b = {text, len, len + 1};
      rc = write_pj(e.targets[t], &b, err);
    }
    nub_free(text);
  }
  if (meta)
    nub_meta_free(meta);
  if (rc == 0) {
    struct nub_add_opts ao = *o;
    char **names = nub_calloc(o->nspecs + 1, sizeof(char *));
    for (size_t i = 0; i < o->nspecs; i++)
      names[i] = w[i].name;
    ao.install.requested = names;
    ao.install.nrequested = o->nspecs;
    rc = nub_edit_install(&e, &ao, res, err);
    nub_free(names);
  } else {
    nub_edit_restore(&e);
  }
  if (rc == 0) {
    lines = nub_calloc(o->nspecs + 1, sizeof(char *));
    for (size_t i = 0; i < o->nspecs; i++)
      lines[nlines++] = nub_asprintf("%s@%s", w[i].name, w[i].spec);
    *saved = lines;
    *nsaved = nlines;
  }
  for (size_t i = 0; i < o->nspecs; i++)
    nub_free(w[i].spec);
  nub_free(w);
  nub_edit_release(&e);
  return rc;
}

int nub_remove(const struct nub_add_opts *o, struct nub_install_result *res,
               struct nub_err *err)
{
  struct nub_edit e;
  bool keep_empty = false;
  int rc;

  memset(res, 0, sizeof(*res));
  rc = nub_edit_open(&e, o, err);
  if (rc == 0)
    rc = nub_edit_begin(&e, err);
  if (rc == 0) {
    /* a section left empty goes, as npm, pnpm and bun leave it; yarn 1
     * keeps "dependencies": {} */
    struct nub_project proj;
    struct nub_err ignored;
    if (nub_project_detect(&proj, e.s.root, &e.s.cfg, e.s.man.package_manager, e.s.o.fmts,
                           e.s.o.none, &ignored) == 0) {
      keep_empty = proj.fmt && !strcmp(proj.fmt->name, "yarn");
      nub_project_release(&proj);
    }
  }
  for (size_t i = 0; rc == 0 && i < o->nspecs; i++) {
    bool anywhere = false;
    for (size_t t = 0; rc == 0 && t < e.ntargets; t++) {
      char *text = NULL;
      size_t len = 0;
      struct nub_buf b = NUB_BUF_INIT;
      bool changed = false;
      rc = read_pj(e.targets[t], &text, &len, err);
      for (int s = 0; rc == 0 && s < 4; s++) {
        bool removed = false;
        rc = nub_pkgjson_take_dep(&b, text, len, sections[s], o->specs[i], !keep_empty, &removed,
                                  err);
        if (rc == 0) {
          nub_free(text);
          len = b.len;
          text = nub_buf_take(&b);
          changed = changed || removed;
        }
      }
      /* nor is it bundled any more (npm uninstall takes it from the list) */
      for (int s = 0; rc == 0 && changed && s < 2; s++) {
        bool removed = false;
        rc = nub_pkgjson_remove_from_array(&b, text, len,
                                           s ? "bundledDependencies" : "bundleDependencies",
                                           o->specs[i], &removed, err);
        if (rc == 0) {
          nub_free(text);
          len = b.len;
          text = nub_buf_take(&b);
        }
      }
      if (rc == 0 && changed) {
        struct nub_buf out = {text, len, len + 1};
        rc = write_pj(e.targets[t], &out, err);
      }
      anywhere = anywhere || changed;
      nub_free(text);
      nub_buf_release(&b);
    }
    if (rc == 0 && !anywhere)
      rc = nub_err_set(err, -NUB_EUSAGE, "%s is not a dependency of %s", o->specs[i],
                       e.ntargets == 1 ? e.targets[0] : "the selected packages");
  }
  if (rc == 0)
    rc = nub_edit_install(&e, o, res, err);
  else
    nub_edit_restore(&e);
  nub_edit_release(&e);
  return rc;
}

/* The operator of a range to keep when it moves to `version`. */
static char *moved_range(const char *spec, const char *version, const char *prefix)
{
  if (spec[0] == '^' || spec[0] == '~')
    return nub_asprintf("%c%s", spec[0], version);
  if (is_exact_version(spec))
    return nub_strdup(version);
  return nub_asprintf("%s%s", prefix, version);
}

static bool registry_spec(const char *spec)
{
  return strncmp(spec, "workspace:", 10) && strncmp(spec, "file:", 5) &&
         strncmp(spec, "link:", 5) && strncmp(spec, "catalog:", 8) && strncmp(spec, "git", 3) &&
         !strstr(spec, "://") && !strchr(spec, '/');
}

/* A name to update that no edited package.json depends on is said (as
 * pnpm says it; the rest are updated). */
static void warn_not_dependencies(struct nub_edit *e, const struct nub_add_opts *o)
{
  struct nub_progress say;
  bool *found = nub_calloc(o->nspecs + 1, sizeof(bool));

  for (size_t t = 0; t < e->ntargets; t++) {
    struct nub_manifest m;
    struct nub_err e2;
    if (nub_manifest_load(&m, e->targets[t], &e2) < 0)
      continue;
    for (size_t i = 0; i < o->nspecs; i++)
      found[i] = found[i] || nub_depmap_get(&m.deps, o->specs[i]) ||
                 nub_depmap_get(&m.dev, o->specs[i]) ||
                 nub_depmap_get(&m.optional, o->specs[i]) || nub_depmap_get(&m.peer, o->specs[i]);
    nub_manifest_release(&m);
  }
  nub_progress_start(&say, o->install.reporter == NUB_REPORTER_SILENT ? 2 : 3);
  for (size_t i = 0; i < o->nspecs; i++)
    if (!found[i])
      nub_progress_warn(&say, "%s is not a dependency of %s; nothing to update for it",
                        o->specs[i], e->ntargets == 1 ? e->targets[0] : "the selected packages");
  nub_progress_stop(&say);
  nub_free(found);
}

/* Whether the project's tool writes an update's new version into
 * package.json's range (`bun update x`, `pnpm update x`: "^1.4.1" ->
 * "^1.4.16"); npm's and yarn's keep the range. */
static bool update_bumps_ranges(struct nub_edit *e)
{
  struct nub_project proj;
  struct nub_err ignored;
  bool bumps = false;

  if (nub_project_detect(&proj, e->s.root, &e->s.cfg, e->s.man.package_manager, e->s.o.fmts,
                         e->s.o.none, &ignored) < 0)
    return false;
  bumps = proj.fmt && proj.lockfile &&
          (!strcmp(proj.fmt->name, "bun") || (proj.fmt->caps & NUB_LF_PNPM_PEERS));
  nub_project_release(&proj);
  return bumps;
}

/* pnpm's update of a "catalog:" dependency: the default catalog's range in
 * pnpm-workspace.yaml moves up to the version (`catalog:` at the file's top
 * level; a catalog written under `catalogs:` is left alone), and the
 * session's copy with it, for the install that follows. */
static int bump_catalog(struct nub_edit *e, struct nub_meta *meta, const char *name,
                        const char *prefix, char **line, struct nub_err *err)
{
  struct nub_catalog *cat = (struct nub_catalog *)nub_catalog_find(e->s.ws.catalogs,
                                                                   e->s.ws.ncatalogs, "default");
  char *path, *text = NULL, *version = NULL, *next;
  const char *range = NULL;
  size_t len = 0, k;
  bool was_tag;
  int rc;

  *line = NULL;
  for (k = 0; cat && k < cat->deps.n && !range; k++)
    if (!strcmp(cat->deps.v[k].name, name))
      range = cat->deps.v[k].spec;
  if (!range || (range[0] != '^' && range[0] != '~') || !registry_spec(range))
    return 0;
  rc = lookup(meta, &e->gate, name, range, &version, &was_tag, err);
  if (rc < 0)
    return rc;
  next = moved_range(range, version, prefix);
  nub_free(version);
  path = nub_asprintf("%s/pnpm-workspace.yaml", e->s.root);
  if (strcmp(next, range) &&
      nub_plat_read_file_at(NUB_PLAT_CWD, path, 64u << 20, &text, &len) == 0 &&
      (!strncmp(text, "catalog:", 8) || strstr(text, "\ncatalog:"))) {
    rc = nub_wsyaml_set(&text, &len, "catalog", name, next, err);
    if (rc == 0)
      rc = nub_plat_write_file_atomic(path, text, len, 0644);
    if (rc < 0 && !err->msg[0])
      nub_err_set(err, rc, "cannot write %s: %s", path, nub_strerror(rc));
    if (rc == 0) {
      *line = nub_asprintf("%s catalog:%s -> %s", name, range, next);
      nub_free(cat->deps.v[k - 1].spec);
      cat->deps.v[k - 1].spec = next;
      next = NULL;
    }
  }
  nub_free(text);
  nub_free(path);
  nub_free(next);
  return rc;
}

int nub_update(const struct nub_add_opts *o, bool latest, struct nub_install_result *res,
               char ***changed, size_t *nchanged, struct nub_err *err)
{
  struct nub_edit e;
  struct nub_meta *meta = NULL;
  struct nub_add_opts io = *o;
  char **lines = NULL;
  size_t nlines = 0, caplines = 0;
  int rc;

  memset(res, 0, sizeof(*res));
  *changed = NULL;
  *nchanged = 0;
  bool bump;

  rc = nub_edit_open(&e, o, err);
  if (rc == 0)
    warn_not_dependencies(&e, o);
  if (rc == 0 && e.s.ws.source && !strcmp(e.s.ws.source, "pnpm-workspace.yaml")) {
    char *yaml = nub_asprintf("%s/pnpm-workspace.yaml", e.s.root);
    nub_edit_keep(&e, yaml); /* (its catalog may move) */
    nub_free(yaml);
  }
  if (rc == 0)
    rc = nub_edit_begin(&e, err);
  bump = rc == 0 && !latest && update_bumps_ranges(&e);
  for (size_t t = 0; rc == 0 && (latest || bump) && t < e.ntargets; t++) {
    char *text = NULL;
    size_t len = 0;
    struct nub_manifest m;
    bool edited = false;
    const char *prefix = nub_config_get(&e.s.cfg, "save-prefix");
    rc = read_pj(e.targets[t], &text, &len, err);
    if (rc == 0)
      rc = nub_manifest_parse(&m, text, len, "package.json", err);
    if (rc < 0) {
      nub_free(text);
      break;
    }
    for (int s = 0; rc == 0 && s < 3; s++) {
      const struct nub_depmap *dm = s == 0 ? &m.deps : s == 1 ? &m.dev : &m.optional;
      for (size_t i = 0; rc == 0 && i < dm->n; i++) {
        const char *name = dm->v[i].name, *spec = dm->v[i].spec, *range = spec;
        char real[256], *version = NULL, *next, *full;
        bool was_tag = false;
        if (o->nspecs && !nub_strarray_has(o->specs, o->nspecs, name))
          continue;
        snprintf(real, sizeof(real), "%s", name);
        if (bump && (!strcmp(spec, "catalog:") || !strcmp(spec, "catalog:default")) &&
            e.s.ws.source && !strcmp(e.s.ws.source, "pnpm-workspace.yaml")) {
          char *line = NULL;
          if (!meta && (rc = open_meta(&e, &meta, o, err)) < 0)
            break;
          rc = bump_catalog(&e, meta, name, prefix ? prefix : "^", &line, err);
          if (line) {
            NUB_GROW(lines, caplines, nlines + 1);
            lines[nlines++] = line;
          }
          continue;
        }
        if (!strncmp(spec, "npm:", 4)) {
          split_arg(spec + 4, real, sizeof(real), &range);
          if (!range)
            range = "*";
        }
        if (!registry_spec(range) || (e.s.ws.source && nub_workspace_find(&e.s.ws, name)))
          continue;
        /* (within the range: only a ^ or ~ range moves up to the version) */
        if (!latest && range[0] != '^' && range[0] != '~')
          continue;
        if (!meta && (rc = open_meta(&e, &meta, o, err)) < 0)
          break;
        rc = lookup(meta, &e.gate, real, latest ? "latest" : range, &version, &was_tag, err);
        if (rc < 0)
          break;
        next = moved_range(range, version, prefix ? prefix : "^");
        full = strcmp(real, name) ? nub_asprintf("npm:%s@%s", real, next) : nub_strdup(next);
        if (strcmp(full, spec)) {
          struct nub_buf b = NUB_BUF_INIT;
          rc = nub_pkgjson_set_dep(&b, text, len, sections[s], name, full, err);
          if (rc == 0) {
            nub_free(text);
            len = b.len;
            text = nub_buf_take(&b);
            edited = true;
            NUB_GROW(lines, caplines, nlines + 1);
            lines[nlines++] = nub_asprintf("%s %s -> %s", name, spec, full);
          }
          nub_buf_release(&b);
        }
        nub_free(next);
        nub_free(full);
        nub_free(version);
      }
    }
    nub_manifest_release(&m);
    if (rc == 0 && edited) {
      struct nub_buf out = {text, len, len + 1};
      rc = write_pj(e.targets[t], &out, err);
    }
    nub_free(text);
  }
  if (meta)
    nub_meta_free(meta);
  if (rc == 0) {
    io.install.update = o->nspecs ? o->specs : NULL;
    io.install.nupdate = o->nspecs;
    io.install.update_all = !o->nspecs;
    rc = nub_edit_install(&e, &io, res, err);
  } else {
    nub_edit_restore(&e);
  }
  if (rc == 0) {
    *changed = lines;
    *nchanged = nlines;
  } else {
    nub_strarray_free(lines, nlines);
  }
  nub_edit_release(&e);
  return rc;
}

/* ---- approve-builds ---------------------------------------------------------- */

/* The builds the last install left waiting (report.h), "name@version". */
static void read_pending(const char *root, char ***out, size_t *n)
{
  char *path = nub_asprintf("%s/%s", root, NUB_PENDING_BUILDS), *text = NULL, *save = NULL;
  size_t len = 0, cap = 0;

  *out = NULL;
  *n = 0;
  if (nub_plat_read_file_at(NUB_PLAT_CWD, path, 1u << 20, &text, &len) == 0) {
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
      NUB_GROW(*out, cap, *n + 1);
      (*out)[(*n)++] = nub_strdup(l);
    }
  }
  nub_free(text);
  nub_free(path);
}

/* "name@version" -> name (a scope's '@' is not the separator). */
static void id_name(const char *id, char *name, size_t cap)
{
  const char *at = strchr(id[0] == '@' ? id + 1 : id, '@');
  snprintf(name, cap, "%.*s", (int)(at ? (size_t)(at - id) : strlen(id)), id);
}


static int approve_one(struct nub_edit *e, enum nub_approval_home home, const char *id,
                       struct nub_err *err)
{
  char name[300], *path, *text = NULL;
  size_t len = 0;
  struct nub_buf b = NUB_BUF_INIT;
  int rc;

  id_name(id, name, sizeof(name));
  path = home == NUB_APPROVE_ALLOW_BUILDS ? nub_asprintf("%s/pnpm-workspace.yaml", e->s.root)
                                          : nub_asprintf("%s/package.json", e->s.root);
  rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, 64u << 20, &text, &len);
  if (rc == -ENOENT && home == NUB_APPROVE_ALLOW_BUILDS) {
    text = nub_strdup("");
    rc = 0;
  }
  if (rc < 0) {
    rc = nub_err_set(err, rc, "cannot read %s: %s", path, nub_strerror(rc));
  } else if (home == NUB_APPROVE_ALLOW_BUILDS) {
    rc = nub_wsyaml_set(&text, &len, "allowBuilds", name, "true", err);
    if (rc == 0)
      rc = nub_plat_write_file_atomic(path, text, len, 0644);
  } else {
    struct nub_manifest m;
    rc = nub_manifest_parse(&m, text, len, "package.json", err);
    if (rc == 0) {
      bool have = nub_strarray_has(m.trusted, m.ntrusted, home == NUB_APPROVE_TRUSTED ? name : id);
      nub_manifest_release(&m);
      /* npm pins the version it approves (allow-scripts-pin) */
      if (home == NUB_APPROVE_ALLOW_SCRIPTS)
        rc = nub_pkgjson_set_member(&b, text, len, "allowScripts", id, "true", err);
      else if (!have)
        rc = nub_pkgjson_add_to_array(&b, text, len, "trustedDependencies", name, err);
      if (rc == 0 && b.len)
        rc = nub_plat_write_file_atomic(path, b.data, b.len, 0644);
    }
  }
  if (rc < 0 && !err->msg[0])
    nub_err_set(err, rc, "cannot write %s: %s", path, nub_strerror(rc));
  nub_buf_release(&b);
  nub_free(text);
  nub_free(path);
  return rc;
}

int nub_approve_builds(const struct nub_add_opts *o, bool all, struct nub_install_result *res,
                       char ***approved, size_t *napproved, char ***pending, size_t *npending,
                       struct nub_err *err)
{
  struct nub_edit e;
  struct nub_project proj;
  struct nub_err ignored;
  enum nub_approval_home home;
  char **want = NULL, **left = NULL, **names = NULL;
  size_t nwant = 0, nleft = 0, nnames = 0;
  int rc;

  memset(res, 0, sizeof(*res));
  *approved = *pending = NULL;
  *napproved = *npending = 0;
  rc = nub_edit_open(&e, o, err);
  if (rc < 0) {
    nub_edit_release(&e);
    return rc;
  }
  if (nub_project_detect(&proj, e.s.root, &e.s.cfg, e.s.man.package_manager, e.s.o.fmts,
                         e.s.o.none, &ignored) < 0)
    proj.fmt = NULL;
  home = proj.fmt ? proj.fmt->approve_in : NUB_APPROVE_TRUSTED;
  nub_project_release(&proj);
  read_pending(e.s.root, pending, npending);
  /* which: every waiting build (--all), or the ones named (a name alone
   * takes the version that waits, when one does) */
  want = nub_calloc(*npending + o->nspecs + 1, sizeof(char *));
  for (size_t i = 0; all && i < *npending; i++)
    want[nwant++] = nub_strdup((*pending)[i]);
  for (size_t k = 0; k < o->nspecs; k++) {
    char name[300], *id = NULL;
    id_name(o->specs[k], name, sizeof(name));
    if (!nub_valid_pkg_name(name)) {
      rc = nub_err_set(err, -NUB_EUSAGE, "'%s' is not a package name", o->specs[k]);
      break;
    }
    for (size_t i = 0; !id && strchr(o->specs[k] + 1, '@') == NULL && i < *npending; i++) {
      char pn[300];
      id_name((*pending)[i], pn, sizeof(pn));
      if (!strcmp(pn, name))
        id = nub_strdup((*pending)[i]);
    }
    want[nwant++] = id ? id : nub_strdup(o->specs[k]);
  }
  if (rc == 0 && nwant) {
    rc = nub_edit_begin(&e, err);
    if (rc == 0) {
      char *yaml = nub_asprintf("%s/pnpm-workspace.yaml", e.s.root);
      nub_edit_keep(&e, yaml);
      nub_free(yaml);
      rc = nub_journal_write(e.s.lock.journal, e.files, e.nfiles, err);
    }
    for (size_t i = 0; rc == 0 && i < nwant; i++)
      rc = approve_one(&e, home, want[i], err);
    if (rc == 0) { /* what still waits; then the approved ones' scripts run */
      struct nub_add_opts ro = *o;
      char *path = nub_asprintf("%s/%s", e.s.root, NUB_PENDING_BUILDS);
      struct nub_buf b = NUB_BUF_INIT;
      left = nub_calloc(*npending + 1, sizeof(char *));
      names = nub_calloc(nwant + 1, sizeof(char *));
      for (size_t i = 0; i < nwant; i++) {
        char name[300];
        id_name(want[i], name, sizeof(name));
        names[nnames++] = nub_strdup(name);
      }
      for (size_t i = 0; i < *npending; i++) {
        char name[300];
        id_name((*pending)[i], name, sizeof(name));
        if (!nub_strarray_has(names, nwant, name)) {
          left[nleft++] = nub_strdup((*pending)[i]);
          nub_buf_addf(&b, "%s\n", (*pending)[i]);
        }
      }
      ro.install.rebuild = true;
      ro.install.rebuild_names = names;
      ro.install.nrebuild = nwant;
      rc = nub_edit_install(&e, &ro, res, err);
      if (rc == 0 && nleft) /* after the builds ran: a failed one still waits */
        nub_plat_write_file_atomic(path, b.data, b.len, 0644);
      else if (rc == 0)
        nub_plat_unlink_at(NUB_PLAT_CWD, path, false);
      nub_buf_release(&b);
      nub_free(path);
    } else {
      nub_edit_restore(&e);
    }
  }
  if (rc == 0) {
    if (nwant) { /* what still waits after these */
      nub_strarray_free(*pending, *npending);
      *pending = left;
      *npending = nleft;
      left = NULL;
      nleft = 0;
    }
    *approved = want;
    *napproved = nwant;
    want = NULL;
    nwant = 0;
  }
  nub_strarray_free(want, nwant);
  nub_strarray_free(left, nleft);
  nub_strarray_free(names, nnames);
  nub_edit_release(&e);
  return rc;
}
