/* install.c - `nub install`: config -> project -> resolve -> fetch -> link ->
 * link_bins -> scripts -> state, with a phase line for each. */
#include "install.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bins.h"
#include "convert.h"
#include "buf.h"
#include "config.h"
#include "diag.h"
#include "fetch.h"
#include "hoisted.h"
#include "integrity.h"
#include "link.h"
#include "lockfile_bun.h"
#include "lockfile_npm.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "pool.h"
#include "progress.h"
#include "project.h"
#include "quickhash.h"
#include "scripts.h"
#include "semver.h"
#include "state.h"
#include "store.h"
#include "tree.h"
#include "version.h"
#include "install_int.h"

/* ---- helpers ------------------------------------------------------------ */

static int absolute_dir(const char *dir, char **out, struct nub_err *err)
{
  char cwd[4096];

  if (!getcwd(cwd, sizeof(cwd)))
    return nub_err_set(err, -errno, "cannot read the current directory");
  if (!dir)
    *out = nub_strdup(cwd);
  else if (dir[0] == '/')
    *out = nub_strdup(dir);
  else
    *out = nub_asprintf("%s/%s", cwd, dir);
  return 0;
}

/* The settings that shape node_modules; a change means relink. */
static void settings_hash(struct nub_install_ctx *c, char out[65])
{
  struct nub_buf b = NUB_BUF_INIT;
  unsigned char h[16];

  nub_buf_addf(&b, "nub %s\nlayout %d\nimport %d\nomit_dev %d\nomit_opt %d\ndev_only %d\n",
               NUB_VERSION, (int)c->proj.layout, (int)c->cfg.import_method,
               c->o->omit_dev, c->o->omit_optional, c->o->dev_only);
  nub_buf_addf(&b, "registry %s\nstore %s\ngvs %d\n", c->cfg.registry ? c->cfg.registry : "",
               c->cfg.store_dir, c->cfg.gvs);
  nub_quickhash(b.data, b.len, h);
  nub_hex(h, 16, out);
  nub_buf_release(&b);
}

/* ---- the plan ------------------------------------------------------------ */

static void count_installed(struct nub_install_ctx *c)
{
  c->installed = 0;
  for (size_t i = 0; i < c->tree.n; i++) {
    const struct nub_node *n = &c->tree.nodes[i];
    if (!n->skip && !(n->flags & (NUB_NF_BUNDLED | NUB_NF_LOCAL)) &&
        (n->pkg || (n->flags & NUB_NF_LINK)))
      c->installed++;
  }
}

/* Mark skipped nodes (dev/optional omitted, other platforms) and which
 * packages are needed. A skipped node takes its nested nodes with it. */
int nub__hoisted_filter(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_tree *t = &c->tree;
  struct nub_plat_caps caps;
  const char *os, *cpu;

  nub_plat_caps(&caps);
  os = caps.npm_os;
  cpu = caps.npm_cpu;

  for (size_t i = 0; i < t->n; i++) {
    struct nub_node *n = &t->nodes[i];
    unsigned f = n->flags;
    bool dev = f & NUB_NF_DEV, opt = f & NUB_NF_OPTIONAL, devopt = f & NUB_NF_DEV_OPTIONAL;

    if (n->parent >= 0 && t->nodes[n->parent].skip) {
      n->skip = true;
      continue;
    }
    if ((dev && c->o->omit_dev) || (opt && c->o->omit_optional) ||
        (devopt && c->o->omit_dev && c->o->omit_optional) ||
        ((f & NUB_NF_PEER) && c->o->omit_peer) ||
        (c->o->dev_only && !dev && !devopt && n->depth == 1)) {
      n->skip = true;
      continue;
    }
    if (!nub_platform_allows(n->os, n->nos, os) || !nub_platform_allows(n->cpu, n->ncpu, cpu) ||
        (caps.libc && !nub_platform_allows(n->libc, n->nlibc, caps.libc))) {
      if (opt || devopt) {
        n->skip = true;
        continue;
      }
      if (!c->o->force)
        return nub_err_set(err, -NUB_EPLATFORM,
                           "%s (%s@%s) does not support this platform (%s %s) and is "
                           "not optional; use --force to install it anyway", n->path,
                           n->pkg ? n->pkg->name : "?", n->pkg ? n->pkg->version : "?",
                           os, cpu);
    }
  }
  for (size_t i = 0; i < t->n; i++) {
    struct nub_node *n = &t->nodes[i];
    if (!n->skip && n->pkg && !(n->flags & (NUB_NF_BUNDLED | NUB_NF_LOCAL | NUB_NF_LINK))) {
      if (!n->pkg->needed)
        n->pkg->optional = true;
      n->pkg->needed = true;
      if (!(n->flags & (NUB_NF_OPTIONAL | NUB_NF_DEV_OPTIONAL)))
        n->pkg->optional = false; /* some required node installs it */
    }
  }
  count_installed(c);
  return 0;
}

/* After the fetch: optional packages that could not be fetched are left
 * out, and so are optional packages for another platform that old lockfiles
 * (v1) did not mark - found out from their own package.json, which the store
 * index keeps. Everything nested in a skipped node goes with it. */
static void skip_foreign_optionals(struct nub_install_ctx *c)
{
  struct nub_tree *t = &c->tree;
  struct nub_plat_caps caps;

  nub_plat_caps(&caps);
  for (size_t i = 0; i < t->n; i++) {
    struct nub_node *n = &t->nodes[i];
    const struct nub_index *x;
    if (n->skip) {
      continue;
    }
    if (n->parent >= 0 && t->nodes[n->parent].skip) {
      n->skip = true;
      continue;
    }
    if (n->pkg && n->pkg->failed) { /* an optional package that could not be fetched */
      n->skip = true;
      continue;
    }
    if (!(n->flags & (NUB_NF_OPTIONAL | NUB_NF_DEV_OPTIONAL)) || !n->pkg || !n->pkg->index)
      continue;
    x = n->pkg->index;
    if (!nub_platform_allows_csv(x->os, caps.npm_os) ||
        !nub_platform_allows_csv(x->cpu, caps.npm_cpu) ||
        (caps.libc && !nub_platform_allows_csv(x->libc, caps.libc))) {
      n->skip = true;
    }
  }
  count_installed(c);
}

/* Does a locked version satisfy a package.json spec? Specs that are not
 * semver ranges (tags, URLs, git, file:) are the lockfile's business. */
static bool spec_ok(const char *spec, const char *name, const struct nub_node *n)
{
  struct nub_range *r = NULL;
  struct nub_version v;
  bool ok = true;
  const char *want_name = name;
  char alias[512];

  if (!n->pkg)
    return true;
  if (!strncmp(spec, "npm:", 4)) {
    const char *at = strrchr(spec + 4, '@');
    if (at && at != spec + 4) {
      snprintf(alias, sizeof(alias), "%.*s", (int)(at - spec - 4), spec + 4);
      want_name = alias;
      spec = at + 1;
    } else {
      want_name = spec + 4;
      spec = "*";
    }
  }
  if (strcmp(want_name, n->pkg->name))
    return false;
  if (nub_range_parse(&r, spec) < 0)
    return true;
  if (nub_version_parse(&v, n->pkg->version) == 0) {
    ok = nub_range_satisfies(r, &v, true);
    nub_version_release(&v);
  }
  nub_range_free(r);
  return ok;
}

/* npm ci's rule: package.json and the lockfile must agree. */
static int check_in_sync(struct nub_install_ctx *c, struct nub_err *err)
{
  const struct nub_depmap *maps[] = {&c->man.deps, &c->man.dev, &c->man.optional};
  const struct nub_depmap *locked[] = {&c->tree.root_deps, &c->tree.root_dev,
                                       &c->tree.root_optional};
  const char *lf = c->proj.lockfile;

  for (int m = 0; m < 3; m++) {
    for (size_t i = 0; i < maps[m]->n; i++) {
      const char *name = maps[m]->v[i].name, *spec = maps[m]->v[i].spec;
      char *path = nub_asprintf("node_modules/%s", name);
      long ni = nub_tree_find(&c->tree, path);
      nub_free(path);
      if (ni < 0)
        return nub_err_set(err, -NUB_EOUTDATED,
                           "package.json wants %s@%s but %s does not have it; "
                           "run `npm install` (or delete %s) to update the lockfile",
                           name, spec, lf, lf);
      if (c->tree.has_root_deps) {
        const char *lspec = nub_depmap_get(locked[m], name);
        if (!lspec) {
          for (int k = 0; k < 3 && !lspec; k++)
            lspec = nub_depmap_get(locked[k], name);
        }
        if (lspec && strcmp(lspec, spec) &&
            !spec_ok(spec, name, &c->tree.nodes[ni]))
          return nub_err_set(err, -NUB_EOUTDATED,
                             "package.json wants %s@%s but %s has %s@%s (from %s); "
                             "the lockfile is out of date", name, spec, lf, name,
                             c->tree.nodes[ni].pkg ? c->tree.nodes[ni].pkg->version : "?",
                             lspec);
      } else if (!spec_ok(spec, name, &c->tree.nodes[ni])) {
        return nub_err_set(err, -NUB_EOUTDATED,
                           "package.json wants %s@%s but %s has %s@%s; the lockfile "
                           "is out of date", name, spec, lf, name,
                           c->tree.nodes[ni].pkg ? c->tree.nodes[ni].pkg->version : "?");
      }
    }
  }
  if (c->tree.has_root_deps) {
    for (int m = 0; m < 3; m++)
      for (size_t i = 0; i < locked[m]->n; i++) {
        const char *name = locked[m]->v[i].name;
        if (!nub_depmap_get(&c->man.deps, name) && !nub_depmap_get(&c->man.dev, name) &&
            !nub_depmap_get(&c->man.optional, name))
          return nub_err_set(err, -NUB_EOUTDATED,
                             "%s lists %s as a dependency of the project, but "
                             "package.json no longer does; the lockfile is out of date",
                             lf, name);
      }
  }
  return 0;
}

static int read_npm_lock(struct nub_install_ctx *c, struct nub_err *err)
{
  char *text = NULL;
  size_t len = 0;
  int rc = nub_plat_read_file_at(c->proj.dir_fd, c->proj.lockfile, 1u << 30, &text, &len);

  if (rc < 0)
    return nub_err_set(err, rc, "cannot read %s: %s", c->proj.lockfile, nub_strerror(rc));
  if (c->proj.lock == NUB_LOCK_BUN)
    rc = nub_lockfile_bun_parse(&c->tree, text, len, c->proj.lockfile, &c->cfg, err);
  else
    rc = nub_lockfile_npm_parse(&c->tree, text, len, c->proj.lockfile, &c->cfg, err);
  nub_free(text);
  return rc;
}

/* ---- scripts -------------------------------------------------------------- */

bool nub__trusted(const struct nub_manifest *m, const char *name)
{
  for (size_t i = 0; i < m->ntrusted; i++)
    if (!strcmp(m->trusted[i], name))
      return true;
  return false;
}

static int run_dep_scripts(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_tree *t = &c->tree;
  int maxd = 0, rc;

  for (size_t i = 0; i < t->n; i++)
    if (t->nodes[i].depth > maxd)
      maxd = t->nodes[i].depth;
  /* deepest first: a package's dependencies are built before it */
  for (int d = maxd; d >= 1; d--) {
    for (size_t i = 0; i < t->n; i++) {
      struct nub_node *n = &t->nodes[i];
      struct nub_manifest pm;
      char *dir;
      const char *events[3] = {"preinstall", "install", "postinstall"};
      if (n->depth != d || n->skip || !n->pkg || !n->pkg->index ||
          (n->flags & (NUB_NF_BUNDLED | NUB_NF_LINK | NUB_NF_LOCAL)))
        continue;
      if (!(n->pkg->index->flags & (NUB_IDX_INSTALL_SCRIPT | NUB_IDX_BINDING_GYP)))
        continue;
      if (c->o->ignore_scripts || c->cfg.ignore_scripts)
        continue;
      if (!nub__trusted(&c->man, n->pkg->name)) {
        if (c->nblocked++)
          nub_buf_adds(&c->blocked, ", ");
        nub_buf_addf(&c->blocked, "%s@%s", n->pkg->name, n->pkg->version);
        continue;
      }
      dir = nub_asprintf("%s/%s", c->proj.dir, n->path);
      rc = nub_manifest_load(&pm, dir, err);
      if (rc < 0) {
        nub_free(dir);
        return rc;
      }
      {
        const char *cmds[3] = {pm.preinstall, pm.install, pm.postinstall};
        if (!pm.preinstall && !pm.install && !pm.postinstall &&
            (n->pkg->index->flags & NUB_IDX_BINDING_GYP))
          cmds[1] = "node-gyp rebuild";
        for (int e = 0; e < 3 && rc == 0; e++)
          if (cmds[e])
            rc = nub_script_run(c->proj.dir, dir, n->pkg->name, n->pkg->version,
                                events[e], cmds[e], err);
      }
      nub_manifest_release(&pm);
      nub_free(dir);
      if (rc < 0)
        return rc;
    }
  }
  return 0;
}

int nub__run_root_scripts(struct nub_install_ctx *c, const char *const *events, int nevents,
                            struct nub_err *err)
{
  if (c->o->ignore_scripts || c->cfg.ignore_scripts)
    return 0;
  for (int i = 0; i < nevents; i++) {
    const char *cmd = !strcmp(events[i], "preinstall") ? c->man.preinstall
                      : !strcmp(events[i], "install")  ? c->man.install
                      : !strcmp(events[i], "postinstall") ? c->man.postinstall
                                                          : c->man.prepare;
    int rc;
    if (!cmd)
      continue;
    rc = nub_script_run(c->proj.dir, c->proj.dir, c->man.name, c->man.version, events[i],
                        cmd, err);
    if (rc < 0)
      return rc;
  }
  return 0;
}

/* ---- the pipeline --------------------------------------------------------- */

/* Concurrency sample for diag (every 50 ms while NUB_DIAG_* is on). */
static void sample(void *ud, struct nub_jw *w)
{
  struct nub_install_ctx *c = ud;
  size_t busy = 0, queued = 0;

  if (c->pool)
    nub_pool_load(c->pool, &busy, &queued);
  nub_jw_int(w, "workers_busy", (long long)busy);
  nub_jw_int(w, "jobs_queued", (long long)queued);
  nub_jw_int(w, "fetched", (long long)__atomic_load_n(&c->prog.fetched, __ATOMIC_RELAXED));
  nub_jw_int(w, "fetch_total", (long long)__atomic_load_n(&c->prog.fetch_total, __ATOMIC_RELAXED));
  nub_jw_int(w, "linked", (long long)__atomic_load_n(&c->prog.linked, __ATOMIC_RELAXED));
  nub_jw_int(w, "link_total", (long long)__atomic_load_n(&c->prog.link_total, __ATOMIC_RELAXED));
}

static int lock_project(struct nub_install_ctx *c, struct nub_err *err)
{
  unsigned char h[16];
  char hex[65], *dir, *path;
  int rc;

  nub_quickhash(c->proj.dir, strlen(c->proj.dir), h);
  nub_hex(h, 16, hex);
  dir = nub_asprintf("%s/locks", c->store.root);
  nub_plat_mkdir_p(dir, 0755);
  path = nub_asprintf("%s/%s", dir, hex);
  rc = nub_plat_lock(path, false, &c->lock_fd);
  if (rc == -EWOULDBLOCK) {
    nub_progress_warn(&c->prog, "another nub install is running in %s; waiting for it",
                      c->proj.dir);
    rc = nub_plat_lock(path, true, &c->lock_fd);
  }
  nub_free(dir);
  nub_free(path);
  if (rc < 0)
    return nub_err_set(err, -NUB_EBUSY, "cannot lock the project: %s", nub_strerror(rc));
  return 0;
}

static void record_state(struct nub_install_ctx *c)
{
  struct nub_state s;
  size_t k = 0;

  memset(&s, 0, sizeof(s));
  snprintf(s.layout, sizeof(s.layout), "%s",
           c->proj.layout == NUB_LINKER_HOISTED ? "hoisted" : "isolated");
  memcpy(s.settings, c->settings, sizeof(s.settings));
  if (c->proj.lockfile)
    nub_fingerprint(c->proj.dir_fd, c->proj.lockfile, &s.files[s.nfiles++]);
  nub_fingerprint(c->proj.dir_fd, "package.json", &s.files[s.nfiles++]);
  s.keys = nub_calloc(c->tree.n + 1, sizeof(char *));
  s.paths = nub_calloc(c->tree.n + 1, sizeof(char *));
  for (size_t i = 0; i < c->tree.n; i++) {
    const struct nub_node *n = &c->tree.nodes[i];
    if (n->skip || (n->flags & (NUB_NF_BUNDLED | NUB_NF_LOCAL)))
      continue;
    s.keys[k] = nub_strdup(n->pkg ? n->pkg->key : "-");
    s.paths[k] = nub_strdup(n->path);
    if (n->depth == 1)
      nub_state_add_check(&s, n->path);
    k++;
  }
  s.n = k;
  nub_state_write(&s, c->proj.dir_fd);
  nub_state_release(&s);
}

/* "Already up to date": the state matches the files and settings. */
static bool up_to_date(struct nub_install_ctx *c)
{
  struct nub_state s;
  bool fresh = false;

  if (c->o->force || c->o->ci || c->o->lockfile_only || c->o->frozen == NUB_FROZEN_NO)
    return false;
  if (nub_state_read(&s, c->proj.dir_fd, true) < 0)
    return false;
  fresh = !strcmp(s.settings, c->settings) && nub_state_files_match(&s, c->proj.dir_fd) &&
          nub_state_checks_exist(&s, c->proj.dir_fd) &&
          s.nfiles == (c->proj.lockfile ? 2 : 1) &&
          (!c->proj.lockfile || !strcmp(s.files[0].name, c->proj.lockfile));
  nub_state_release(&s);
  return fresh;
}

void nub__warn_blocked(struct nub_install_ctx *c)
{
  if (c->nblocked)
    nub_progress_warn(&c->prog,
                      "%zu dependencies have install scripts that were not run: %s. "
                      "Trust them by name in package.json \"trustedDependencies\" to "
                      "run them.", c->nblocked, nub_buf_str(&c->blocked));
}

void nub__print_summary(struct nub_install_ctx *c, size_t added, size_t removed)
{
  double secs = (double)(nub_plat_now_ns() - c->t0) / 1e9;

  if (c->o->reporter == NUB_REPORTER_SILENT)
    return;
  if (removed)
    printf("added %zu packages, removed %zu packages in %.2fs\n", added, removed, secs);
  else
    printf("added %zu packages in %.2fs\n", added, secs);
  fflush(stdout);
}

/* The hoisted pipeline from a built plan (c->tree): scripts, fetch, link,
 * bins, state. Shared by npm lockfiles and graphs hoisted by --node-linker. */
int nub__install_hoisted_tree(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_diag_phase ph;
  struct nub_fetch_result fr;
  struct nub_fetch_opts fo = {c->o->offline};
  struct nub_hoisted_result hr;
  struct nub_state old;
  bool have_old = false;
  char detail[128];
  int rc;
  static const char *const pre[] = {"preinstall"};
  static const char *const post[] = {"install", "postinstall", "prepare"};

  rc = nub__run_root_scripts(c, pre, 1, err);
  if (rc < 0)
    return rc;

  nub_diag_phase_begin(&ph, "fetch");
  rc = nub_fetch_tree(&c->tree, &c->store, &c->cfg, c->pool, &c->prog, &fo, &fr, err);
  snprintf(detail, sizeof(detail), "%zu packages, %zu cached", fr.fetched, fr.cached);
  nub_diag_phase_end(&ph, detail);
  nub_diag_set_count("packages", (long long)c->installed);
  nub_diag_set_count("fetched", (long long)fr.fetched);
  nub_diag_set_count("cached", (long long)fr.cached);
  if (rc < 0)
    return rc;
  skip_foreign_optionals(c);

  if (!c->o->ci && !c->o->force && nub_state_read(&old, c->proj.dir_fd, false) == 0) {
    have_old = !strcmp(old.layout, "hoisted") && !strcmp(old.settings, c->settings);
    if (!have_old)
      nub_state_release(&old);
  }
  if (!have_old) {
    struct nub_plat_stat st;
    /* nub ci, --force, a layout or settings change, or node_modules from
     * another tool or an interrupted run: rebuild it from scratch */
    if (nub_plat_stat_at(c->proj.dir_fd, "node_modules", &st) == 0) {
      rc = nub_plat_rm_rf_at(c->proj.dir_fd, "node_modules");
      if (rc < 0)
        return nub_err_set(err, rc, "cannot clear node_modules: %s", nub_strerror(rc));
    }
  }
  /* From here on node_modules is being changed: a stale state must not
   * survive an interrupted link. */
  nub_plat_unlink_at(c->proj.dir_fd, NUB_STATE_FILE, false);

  nub_diag_phase_begin(&ph, "link");
  rc = nub_linker_init(&c->linker, &c->store, c->cfg.import_method);
  c->have_linker = true;
  if (rc == 0)
    rc = nub_hoisted_link(c->proj.dir_fd, &c->tree, have_old ? &old : NULL, &c->linker,
                          c->pool, &c->prog, &hr, err);
  snprintf(detail, sizeof(detail), "%llu files", (unsigned long long)hr.st.files);
  nub_diag_phase_end(&ph, detail);
  nub_diag_tally_add(&hr.st.t);
  nub_diag_set_count("files", (long long)hr.st.files);
  if (have_old)
    nub_state_release(&old);
  if (rc < 0)
    return rc;

  nub_diag_phase_begin(&ph, "link_bins");
  {
    size_t nl = 0;
    const struct nub_depmap direct[] = {c->man.deps, c->man.dev, c->man.optional};
    rc = nub_bins_link(c->proj.dir_fd, &c->tree, direct, 3, &nl, err);
    snprintf(detail, sizeof(detail), "%zu links", nl);
  }
  nub_diag_phase_end(&ph, detail);
  if (rc < 0)
    return rc;

  nub_diag_phase_begin(&ph, "scripts");
  rc = run_dep_scripts(c, err);
  if (rc == 0)
    rc = nub__run_root_scripts(c, post, 3, err);
  nub_diag_phase_end(&ph, NULL);
  if (rc < 0)
    return rc;
  nub__warn_blocked(c);

  nub_diag_phase_begin(&ph, "state");
  record_state(c);
  nub_diag_phase_end(&ph, NULL);
  nub_progress_stop(&c->prog);
  nub__print_summary(c, hr.packages, hr.removed);
  return 0;
}

/* The plan of an npm lockfile: read, checked against package.json, filtered. */
static int plan_npm(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_diag_phase ph;
  char detail[128];
  int rc;

  nub_diag_phase_begin(&ph, "resolve");
  rc = read_npm_lock(c, err);
  if (rc == 0 && (c->o->frozen != NUB_FROZEN_NO))
    rc = check_in_sync(c, err);
  if (rc == 0)
    rc = nub__hoisted_filter(c, err);
  nub_progress_set(&c->prog, &c->prog.resolved, c->installed);
  snprintf(detail, sizeof(detail), "%zu packages", c->installed);
  nub_diag_phase_end(&ph, detail);
  return rc;
}

static int install_hoisted(struct nub_install_ctx *c, struct nub_err *err)
{
  int rc = plan_npm(c, err);

  if (rc < 0 || c->o->lockfile_only)
    return rc; /* the npm lockfile is already the resolution */
  return nub__install_hoisted_tree(c, err);
}

/* --node-linker isolated with an npm lockfile: its tree becomes a graph. */
static int install_npm_isolated(struct nub_install_ctx *c, struct nub_err *err)
{
  int rc = plan_npm(c, err);

  if (rc < 0 || c->o->lockfile_only)
    return rc;
  c->given = nub_calloc(1, sizeof(*c->given));
  nub_graph_init(c->given);
  rc = nub_graph_from_tree(c->given, &c->tree, &c->man, err);
  if (rc == 0)
    rc = nub__install_isolated(c, err);
  nub_graph_release(c->given);
  nub_free(c->given);
  c->given = NULL;
  return rc;
}

int nub_install(const struct nub_install_opts *o, struct nub_err *err)
{
  struct nub_install_ctx c;
  char *dir = NULL;
  int rc;

  memset(&c, 0, sizeof(c));
  c.o = o;
  c.lock_fd = -1;
  c.t0 = nub_diag_t0() ? nub_diag_t0() : nub_plat_now_ns();
  nub_plat_trap_interrupts();
  nub_plat_raise_nofile();
  rc = absolute_dir(o->dir, &dir, err);
  if (rc < 0)
    return rc;
  rc = nub_config_load(&c.cfg, dir, o->cfg, o->ncfg, err);
  if (rc < 0)
    goto out;
  c.have_cfg = true;
  rc = nub_manifest_load(&c.man, dir, err);
  if (rc < 0)
    goto out;
  c.have_man = true;
  rc = nub_project_detect(&c.proj, dir, &c.cfg, c.man.package_manager, err);
  c.have_proj = true; /* released whatever detect did */
  if (rc < 0)
    goto out;
  settings_hash(&c, c.settings);
  if (up_to_date(&c)) {
    if (o->reporter != NUB_REPORTER_SILENT)
      printf("Already up to date\n");
    rc = 0;
    goto out;
  }
  if (o->frozen == NUB_FROZEN_YES && !c.proj.lockfile) {
    rc = nub_err_set(err, -NUB_ENOLOCKFILE,
                     "no lockfile in %s and --frozen-lockfile is set (nub ci needs one)", dir);
    goto out;
  }
  nub_progress_start(&c.prog, (int)o->reporter);
  for (size_t i = 0; i < c.cfg.nwarnings; i++)
    nub_progress_warn(&c.prog, "%s", c.cfg.warnings[i]);
  rc = nub_store_open(&c.store, c.cfg.store_dir, err);
  if (rc < 0)
    goto out;
  c.have_store = true;
  rc = lock_project(&c, err);
  if (rc < 0)
    goto out;
  nub_store_clean_tmp(&c.store);
  {
    struct nub_plat_caps caps;
    nub_plat_caps(&caps);
    /* File work is syscall-bound: two workers per CPU keep the disk busy
     * while some sleep on locks. */
    const char *jobs = nub_plat_getenv("NUB_JOBS");
    int n = jobs && atoi(jobs) > 0 ? atoi(jobs) : 2 * caps.ncpu;
    /* the calling thread works too, so n threads means n - 1 workers */
    c.pool = nub_pool_new(n > 1 ? n - 1 : 0, "workers");
  }
  nub_diag_sampler_start(sample, &c);
  nub_diag_debugf("node-linker: %s (%s)",
                  c.proj.layout == NUB_LINKER_HOISTED ? "hoisted" : "isolated",
                  c.proj.layout_source);
  switch (c.proj.lock) {
  case NUB_LOCK_YARN:
    rc = nub_err_set(err, -NUB_ELOCKVERSION,
                     "%s is not supported by this nub yet; install with its own tool, "
                     "or convert it to package-lock.json", c.proj.lockfile);
    goto out;
  default:
    break;
  }
  if (c.proj.lock == NUB_LOCK_NPM || c.proj.lock == NUB_LOCK_SHRINKWRAP ||
      c.proj.lock == NUB_LOCK_BUN) {
    if (c.proj.layout == NUB_LINKER_ISOLATED)
      rc = install_npm_isolated(&c, err);
    else
      rc = install_hoisted(&c, err);
  } else {
    rc = nub__install_isolated(&c, err);
  }
  nub_diag_sampler_stop();
  if (NUB_DIAG_ON()) {
    struct nub_jw w;
    nub_jw_begin(&w);
    nub_jw_int(&w, "packages", (long long)c.installed);
    nub_jw_int(&w, "exit", nub_err_exit(rc));
    nub_diag_event("install", "total", c.t0, nub_plat_now_ns(), nub_jw_end(&w));
  }
  if (rc == 0)
    nub_diag_bench_line(dir, nub_plat_now_ns() - c.t0);
out:
  if (nub_plat_interrupted() && rc < 0 && rc != -NUB_EINTR)
    rc = nub_err_set(err, -NUB_EINTR, "interrupted");
  nub_progress_stop(&c.prog);
  if (c.pool)
    nub_pool_free(c.pool);
  if (c.have_linker)
    nub_linker_release(&c.linker);
  nub_plat_unlock(c.lock_fd);
  nub_tree_release(&c.tree);
  if (c.have_store)
    nub_store_close(&c.store);
  if (c.have_proj)
    nub_project_release(&c.proj);
  if (c.have_man)
    nub_manifest_release(&c.man);
  if (c.have_cfg)
    nub_config_release(&c.cfg);
  nub_buf_release(&c.blocked);
  nub_free(dir);
  return rc;
}
