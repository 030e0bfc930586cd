/* install.c - the driver of `nub install`, top to bottom:
 *
 *   config -> project -> (up to date? stop) -> plan -> fetch -> layout
 *          -> bins -> scripts -> state
 *
 * The plan comes from a lockfile or the resolver (plan.h); the layout is
 * hoisted or isolated (layout.h); everything else is written once for
 * both. Each phase is timed for diag. */
#include "install.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "install_ctx.h"
#include "link_hoisted.h"
#include "integrity.h"
#include "layout.h"
#include "lifecycle.h"
#include "nub_alloc.h"
#include "patching.h"
#include "engines.h"
#include "pnpmfile.h"
#include "quickhash.h"
#include "record.h"
#include "registry.h"
#include "report.h"
#include "state.h"
#include "store_gc.h"
#include "version.h"

/* ---- setting up ------------------------------------------------------------ */

/* The settings that shape node_modules; a change means relink. */
static void settings_hash(struct nub_install_ctx *c, char out[33])
{
  struct nub_buf b = NUB_BUF_INIT;
  unsigned char h[16];

  nub_buf_addf(&b, "nub %s\nlayout %s\nimport %d\nomit_dev %d\nomit_opt %d\ndev_only %d\n",
               NUB_VERSION, c->layout->name, (int)c->s->cfg.import_method, c->o->omit_dev,
               c->o->omit_optional, c->o->dev_only);
  nub_buf_addf(&b, "registry %s\nstore %s\ngvs %d\n", c->s->cfg.registry ? c->s->cfg.registry : "",
               c->s->cfg.store_dir, c->s->cfg.gvs);
  /* a selection of workspace packages is a node_modules of its own */
  for (size_t i = 0; i < c->o->nfilters; i++)
    nub_buf_addf(&b, "filter %s in %s\n", c->o->filters[i], c->s->cwd_rel);
  if (c->o->workspace_root)
    nub_buf_adds(&b, "workspace-root\n");
  nub_quickhash(b.data, b.len, h);
  nub_hex(h, 16, out);
  nub_buf_release(&b);
}

/* Whether packages new to the store are unpacked as trees (store.h,
 * nub_import_as_tree): no content hash per file, one name per file.
 * NUB_STORE_TREES=0 keeps them content-addressed, to measure the
 * difference. */
static bool as_trees(const struct nub_install_ctx *c)
{
  const char *env = nub_plat_getenv("NUB_STORE_TREES");

  if (env && !strcmp(env, "0"))
    return false;
  /* not where whole directories are cloned from content files (macOS):
   * there a package's content files are what a clone is made of */
  if (c->caps.has_clonedir)
    return false;
  /* the hoisted layout links each file from its package's tree, and the
   * isolated one adopts the tree as the package's entry in the global
   * virtual store (link_isolated.c); without that store, isolated packages share
   * equal files through content names */
  return c->layout == &nub_layout_hoisted || c->s->cfg.gvs;
}

/* pnpm-workspace.yaml's overrides (over package.json's) and
 * onlyBuiltDependencies (when package.json names none) */
static void merge_workspace_settings(struct nub_install_ctx *c)
{
  struct nub_workspace *ws = &c->s->ws;
  struct nub_depmap *ov = &c->s->man.overrides;

  for (size_t i = 0; i < ws->overrides.n; i++) {
    const struct nub_dep *d = &ws->overrides.v[i];
    size_t k = 0;
    while (k < ov->n && strcmp(ov->v[k].name, d->name))
      k++;
    if (k == ov->n) {
      ov->v = nub_realloc(ov->v, (ov->n + 1) * sizeof(*ov->v));
      ov->v[ov->n].name = nub_strdup(d->name);
      ov->v[ov->n++].spec = NULL;
    }
    nub_free(ov->v[k].spec);
    {
      /* "$name" as pnpm records it: the project's own spec (vite's
       * "rolldown: $rolldown") */
      const char *own = d->spec[0] == '$' ? nub_manifest_own_spec(&c->s->man, d->spec + 1)
                                          : NULL;
      ov->v[k].spec = nub_strdup(own ? own : d->spec);
    }
  }
  if (!c->s->man.ntrusted && ws->nonly_built) {
    c->s->man.trusted = nub_calloc(ws->nonly_built, sizeof(char *));
    for (size_t i = 0; i < ws->nonly_built; i++)
      c->s->man.trusted[i] = nub_strdup(ws->only_built[i]);
    c->s->man.ntrusted = ws->nonly_built;
  }
  /* pnpm's allowBuilds map (what `pnpm approve-builds` writes) */
  for (size_t i = 0; i < ws->allow_builds.n; i++) {
    bool yes = !strcmp(ws->allow_builds.v[i].spec, "true");
    char ***v = yes ? &c->s->man.trusted : &c->s->man.denied;
    size_t *n = yes ? &c->s->man.ntrusted : &c->s->man.ndenied;
    *v = nub_realloc(*v, (*n + 1) * sizeof(char *));
    (*v)[(*n)++] = nub_strdup(ws->allow_builds.v[i].name);
  }
}

/* Patches a team committed where the project's tool does not read them
 * (package.json's "patchedDependencies" in a pnpm, yarn or shrinkwrap
 * project; pnpm's own field): installing the packages unpatched would be a
 * tree other than the one asked for, so the install stops. (Where the tool
 * reads them they are applied: patching.h.) */
static int refuse_patches(const struct nub_install_ctx *c, struct nub_err *err)
{
  const struct nub_manifest *m = &c->s->man;

  if (m->patched.n && !(c->s->proj.fmt->caps & NUB_LF_MANIFEST_PATCHES))
    return nub_err_set(err, -NUB_ESPEC,
                       "package.json's patchedDependencies: %s's tool does not read them there "
                       "(pnpm reads pnpm-workspace.yaml's; npm 12, bun and nub read "
                       "package.json's), and nub would install those packages unpatched; move "
                       "them where the project's tool reads them",
                       c->s->proj.fmt->file ? c->s->proj.fmt->file : "this lockfile");
  for (size_t i = 0; i < m->nunapplied; i++)
    if (strstr(m->unapplied[i], "patchedDependencies"))
      return nub_err_set(err, -NUB_ESPEC,
                         "package.json's %s: nub does not apply patches yet, and would "
                         "install those packages unpatched; install this project with its "
                         "own tool", m->unapplied[i]);
  return 0;
}

/* The other settings nub does not apply, one line each. */
static void say_unapplied(struct nub_install_ctx *c)
{
  const struct nub_manifest *m = &c->s->man;
  const struct nub_workspace *ws = &c->s->ws;

  for (size_t i = 0; i < m->nunapplied; i++)
    if (strcmp(m->unapplied[i], "packageExtensions") ||
        !(c->s->proj.fmt->caps & NUB_LF_MANIFEST_EXTS)) /* (applied: npm 12, bun) */
      nub_progress_warn(&c->prog, "package.json's %s is not applied by nub", m->unapplied[i]);
  for (size_t i = 0; i < ws->nunapplied; i++)
    nub_progress_warn(&c->prog, "pnpm-workspace.yaml's %s is not applied by nub",
                      ws->unapplied[i]);
}

struct dev_said {
  struct nub_progress *say;
  bool force;
  const char *first_error;
  char why[600];
};

static void dev_failed(void *ud, const char *engine, const char *why, bool is_error)
{
  struct dev_said *d = ud;

  if (!why) {
    nub_progress_warn(d->say, "package.json's devEngines.%s is not checked by nub, which "
                      "stands in for the tool it names", engine);
    return;
  }
  if (is_error && !d->force && !d->why[0]) {
    snprintf(d->why, sizeof(d->why), "package.json's devEngines.%s %s", engine, why);
    return;
  }
  nub_progress_warn(d->say, "package.json's devEngines.%s %s", engine, why);
}

/* npm's devEngines check, which npm makes before an install (npm's
 * projects): a failing engine whose onFail is error stops it (exit 80;
 * --force: a warning), "warn" warns. */
static int check_dev_engines(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_dev_env env = {c->caps.npm_os, c->caps.npm_cpu, c->caps.libc, NULL};
  struct nub_progress say;
  struct dev_said d;
  int rc;

  if (!c->s->man.dev_engines || !(c->s->proj.fmt->caps & NUB_LF_PACOTE_UNPACK))
    return 0;
  if (strstr(c->s->man.dev_engines, "\"runtime\"")) {
    if (!c->node_known)
      c->node_known = nub_node_version(c->s->cfg.cache_dir, c->node_version,
                                       sizeof(c->node_version)) ? 1 : -1;
    env.node = c->node_known > 0 ? c->node_version : NULL;
  }
  memset(&d, 0, sizeof(d));
  d.say = &say;
  d.force = c->o->force;
  nub_progress_start(&say, c->o->reporter == NUB_REPORTER_SILENT ? 2 : 3);
  rc = nub_dev_engines_check(c->s->man.dev_engines, &env, dev_failed, &d, err);
  nub_progress_stop(&say);
  if (rc < 0) {
    char msg[sizeof(err->msg)];
    snprintf(msg, sizeof(msg), "%s", err->msg);
    return nub_err_set(err, -NUB_EMANIFEST, "%s", msg);
  }
  if (d.why[0])
    return nub_err_set(err, -NUB_EPLATFORM, "%s (onFail: error; --force installs all the same)",
                       d.why);
  return 0;
}

/* pnpm's hooks file, for a project by pnpm's rules (a .pnpmfile.cjs in an
 * npm, yarn or bun project is read by none of them): pnpm-workspace.yaml's
 * pnpmfile, else .pnpmfile.mjs, else .pnpmfile.cjs, unless ignorePnpmfile
 * or --ignore-pnpmfile. */
static void find_pnpmfile(struct nub_install_ctx *c)
{
  const char *ignore = nub_depmap_get(&c->s->ws.settings, "ignorePnpmfile");

  if (c->o->ignore_pnpmfile || (ignore && !strcmp(ignore, "true")) ||
      !(c->s->proj.fmt->caps & NUB_LF_PNPM_PEERS))
    return;
  c->pnpmfile = nub_pnpmfile_find(c->s->proj.dir_fd,
                                  nub_depmap_get(&c->s->ws.settings, "pnpmfile"));
}

static void hook_said(void *ud, const char *hook, const char *line)
{
  struct nub_install_ctx *c = ud;

  nub_progress_warn(&c->prog, "%s %s: %s", c->pnpmfile, hook, line);
}

/* Starts the hooks' Node process and runs readPackage on every project's
 * manifest, as pnpm reads them through it (a frozen install too: the
 * lockfile must answer the manifests as the hook leaves them). */
static int start_hooks(struct nub_install_ctx *c, struct nub_err *err)
{
  int rc;

  if (!c->pnpmfile)
    return 0;
  rc = nub_pnpmfile_start(&c->hooks, c->s->proj.dir, c->pnpmfile, hook_said, c, err);
  if (rc < 0)
    return rc;
  if (nub_pnpmfile_unapplied(c->hooks))
    nub_progress_warn(&c->prog, "%s's %s hook%s not run by nub: only readPackage is",
                      c->pnpmfile, nub_pnpmfile_unapplied(c->hooks),
                      strchr(nub_pnpmfile_unapplied(c->hooks), ',') ? "s are" : " is");
  rc = nub_pnpmfile_read_manifest(c->hooks, &c->s->man, err);
  for (size_t i = 0; rc == 0 && i < c->s->ws.npkgs; i++)
    rc = nub_pnpmfile_read_manifest(c->hooks, &c->s->ws.pkgs[i].man, err);
  return rc;
}

/* What follows from the project once it is open: the layout, frozen or
 * not, the settings' fingerprint. */
static void setup(struct nub_install_ctx *c)
{
  merge_workspace_settings(c);
  nub_plat_caps(&c->caps);
  c->layout = c->s->proj.layout == NUB_LINKER_HOISTED ? &nub_layout_hoisted : &nub_layout_isolated;
  c->frozen = c->o->frozen == NUB_FROZEN_YES ||
              (c->o->frozen == NUB_FROZEN_DEFAULT && nub_plat_getenv("CI") && c->s->proj.lockfile);
  settings_hash(c, c->settings);
  find_pnpmfile(c);
  nub_install_read_allow(c);
}

/* The files the state fingerprints, in order: the lockfile, package.json,
 * the workspace's definition and its members' package.json. */
static size_t input_files(const struct nub_install_ctx *c, const char *lockfile, char ***out)
{
  size_t n = 0, cap = c->s->ws.npkgs + c->s->ws.patched.n + c->s->man.patched.n + 4;
  char **v = nub_calloc(cap, sizeof(char *));

  if (lockfile)
    v[n++] = nub_strdup(lockfile);
  v[n++] = nub_strdup("package.json");
  if (c->s->ws.source && !strcmp(c->s->ws.source, "pnpm-workspace.yaml"))
    v[n++] = nub_strdup("pnpm-workspace.yaml");
  for (size_t i = 0; i < c->s->ws.npkgs; i++)
    v[n++] = nub_asprintf("%s/package.json", c->s->ws.pkgs[i].dir);
  /* an edited patch is another tree */
  for (size_t i = 0; i < c->s->ws.patched.n; i++)
    v[n++] = nub_strdup(c->s->ws.patched.v[i].spec);
  for (size_t i = 0; i < c->s->man.patched.n && n < cap; i++)
    v[n++] = nub_strdup(c->s->man.patched.v[i].spec);
  /* an edited hooks file may change the manifests */
  if (c->pnpmfile && n < cap)
    v[n++] = nub_strdup(c->pnpmfile);
  *out = v;
  return n;
}

/* --filter / --workspace / -w: which projects of the workspace to install. */
static int select_projects(struct nub_install_ctx *c, struct nub_err *err)
{
  const struct nub_install_opts *o = c->o;

  if (!o->nfilters && !o->workspace_root)
    return 0;
  if (!c->s->ws.source)
    return nub_err_set(err, -NUB_EUSAGE, "%s selects workspace packages, but %s is not a "
                       "workspace (no \"workspaces\" in package.json, no pnpm-workspace.yaml)",
                       o->nfilters ? "--filter" : "--workspace-root", c->s->proj.dir);
  if (c->layout == &nub_layout_hoisted && o->session)
    return 0; /* add/remove/update: the selection chose the package.json to
               * edit; the hoisted layout installs the whole workspace, as
               * npm -w and yarn -W do */
  if (c->layout == &nub_layout_hoisted)
    return nub_err_set(err, -NUB_EUSAGE, "--filter selects workspace packages in the isolated "
                       "layout; the hoisted layout (%s) installs the whole workspace",
                       c->s->proj.layout_source);
  c->selected = nub_calloc(c->s->ws.npkgs + 1, sizeof(bool));
  if (o->nfilters) {
    int rc = nub_workspace_select(&c->s->ws, c->s->man.name, &c->s->man, c->s->cwd_rel,
                                  (char *const *)o->filters, o->nfilters, c->selected, err);
    if (rc < 0)
      return rc;
  }
  if (o->workspace_root)
    c->selected[0] = true;
  return 0;
}

/* "Already up to date": the state matches the files and settings. */
static bool up_to_date(struct nub_install_ctx *c)
{
  struct nub_state s;
  bool fresh = false;
  char **names;
  size_t n;

  if (c->o->force || c->o->ci || c->o->lockfile_only || c->o->frozen == NUB_FROZEN_NO ||
      c->o->nupdate || c->o->update_all || c->o->rebuild)
    return false;
  if (nub_state_read(&s, c->s->proj.dir_fd, true) < 0)
    return false;
  n = input_files(c, c->s->proj.lockfile, &names);
  fresh = !strcmp(s.settings, c->settings) && (size_t)s.nfiles == n;
  for (size_t i = 0; fresh && i < n; i++)
    fresh = !strcmp(s.files[i].name, names[i]);
  fresh = fresh && nub_state_files_match(&s, c->s->proj.dir_fd);
  /* the inputs as they were, but node_modules not: a repair, whatever it
   * changes (the summary says so) */
  if (fresh && !(nub_state_checks_exist(&s, c->s->proj.dir_fd) &&
                 nub_state_dirs_match(&s, c->s->proj.dir_fd))) {
    fresh = false;
    c->damaged = true;
  }
  nub_strarray_free(names, n);
  nub_state_release(&s);
  return fresh;
}

/* One command at a time per project, whatever the store; add, remove and
 * update hold the lock already, in their session (projlock.h). */
static int lock_project(struct nub_install_ctx *c, struct nub_err *err)
{
  if (c->s->opened & NUB_OPEN_LOCK)
    return 0;
  return nub_projlock_take(&c->plock, c->s->cfg.store_dir, c->s->proj.dir, &c->prog, err);
}

/* Concurrency sample for diag (every 50 ms while NUB_DIAG_* is on). */
static void sample(void *ud, struct nub_jw *w)
{
  struct nub_install_ctx *c = ud;
  size_t busy = 0, queued = 0;

  if (c->pool)
    nub_pool_load(c->pool, &busy, &queued);
  nub_jw_int(w, "workers_busy", (long long)busy);
  nub_jw_int(w, "jobs_queued", (long long)queued);
  nub_jw_int(w, "resolved", (long long)__atomic_load_n(&c->prog.resolved, __ATOMIC_RELAXED));
  nub_jw_int(w, "fetched", (long long)__atomic_load_n(&c->prog.fetched, __ATOMIC_RELAXED));
  nub_jw_int(w, "fetch_total", (long long)__atomic_load_n(&c->prog.fetch_total, __ATOMIC_RELAXED));
  nub_jw_int(w, "linked", (long long)__atomic_load_n(&c->prog.linked, __ATOMIC_RELAXED));
  nub_jw_int(w, "link_total", (long long)__atomic_load_n(&c->prog.link_total, __ATOMIC_RELAXED));
}

static int start_work(struct nub_install_ctx *c, struct nub_err *err)
{
  const char *jobs = nub_plat_getenv("NUB_JOBS");
  int rc, n;

  nub_progress_start(&c->prog, (int)c->o->reporter);
  for (size_t i = 0; i < c->s->cfg.nwarnings; i++)
    nub_progress_warn(&c->prog, "%s", c->s->cfg.warnings[i]);
  for (size_t i = 0; i < c->s->ws.nwarnings; i++)
    nub_progress_warn(&c->prog, "%s", c->s->ws.warnings[i]);
  say_unapplied(c);
  rc = nub_store_open(&c->store, c->s->cfg.store_dir, err);
  if (rc < 0)
    return rc;
  c->have_store = true;
  rc = lock_project(c, err);
  if (rc < 0)
    return rc;
  /* a prune of this store waits for us, and we for it */
  rc = nub_store_gc_lock(&c->store, false, false, &c->gc_lock_fd);
  if (rc == -EWOULDBLOCK) {
    nub_progress_warn(&c->prog, "nub store prune is running on %s; waiting for it",
                      c->store.root);
    rc = nub_store_gc_lock(&c->store, false, true, &c->gc_lock_fd);
  }
  if (rc < 0)
    return nub_err_set(err, rc, "cannot lock the store: %s", nub_strerror(rc));
  nub_store_clean_tmp(&c->store);
  /* File work is syscall-bound: two workers per CPU keep the disk busy
   * while some sleep on locks; the calling thread works too, so n threads
   * means n - 1 workers. */
  n = jobs && atoi(jobs) > 0 ? atoi(jobs) : 2 * c->caps.ncpu;
  c->pool = nub_pool_new(n > 1 ? n - 1 : 0, "workers");
  nub_diag_sampler_start(sample, c);
  nub_diag_debugf("node-linker: %s (%s)", c->layout->name, c->s->proj.layout_source);
  if (NUB_DIAG_ON()) {
    char v[64];
    nub_diag_set_meta("nub", NUB_VERSION);
    nub_diag_set_meta("layout", c->layout->name);
    nub_diag_set_meta("layout_source", c->s->proj.layout_source ? c->s->proj.layout_source : "");
    nub_diag_set_meta("lockfile", c->s->proj.lockfile ? c->s->proj.lockfile : "");
    nub_diag_set_meta("store", c->store.root);
    snprintf(v, sizeof(v), "%d", n);
    nub_diag_set_meta("threads", v);
    nub_diag_set_meta("global_virtual_store", c->s->cfg.gvs ? "true" : "false");
  }
  return 0;
}

/* ---- the phases ------------------------------------------------------------ */

/* A workspace member's own scripts, run after its dependencies' */
static const char *const member_events[] = {"preinstall", "install", "postinstall", "prepare"};

static int phase_plan(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_diag_phase ph;
  char detail[128];
  int rc;

  nub_diag_phase_begin(&ph, "resolve");
  rc = nub_patching_load(c, err);
  if (rc == 0)
    rc = c->s->proj.fmt->plan(c, err); /* the lockfile's format makes the plan (lockfmt.h) */
  if (rc == 0)
    rc = nub_patching_from_lock(c, err);
  /* every reader's names, checked once before anything is made of them
   * (a tree's paths are checked as it is finished, tree.h) */
  if (rc == 0 && c->plan.have_graph)
    rc = nub_graph_check_names(&c->plan.graph, c->s->proj.lockfile ? c->s->proj.lockfile
                                                                : "package.json", err);
  if (rc == 0)
    nub_install_select_importers(c);
  if (rc == 0 && !c->o->lockfile_only)
    rc = c->layout->shape(c, err);
  if (rc == 0 && !c->o->lockfile_only)
    rc = nub_patching_assign(c, err);
  if (rc == 0 && !c->o->lockfile_only)
    rc = nub_report_peers(c, err);
  nub_progress_set(&c->prog, &c->prog.resolved, c->installed);
  {
    int n = snprintf(detail, sizeof(detail), "%s%zu packages",
                     c->plan.have_graph && !c->plan.have_tree
                         ? (c->plan.resolved ? "fresh, " : "from lockfile, ")
                         : "",
                     c->installed);
    if (c->plan.meta && n > 0 && (size_t)n < sizeof(detail)) {
      /* the documents asked for, and how many again in full for their
       * dates (the release-age gate's cost) */
      struct nub_meta_stats st;
      nub_meta_stats(c->plan.meta, &st);
      snprintf(detail + n, sizeof(detail) - (size_t)n, ", %zu documents, %zu in full",
               st.requested, st.full);
    }
  }
  nub_diag_phase_end(&ph, detail);
  return rc;
}

/* The linker, started again (a second pass, refetch_changed, gets a new
 * one). */
static int fresh_linker(struct nub_install_ctx *c)
{
  int rc;

  if (c->have_linker)
    nub_linker_release(&c->linker);
  rc = nub_linker_init(&c->linker, &c->store, c->s->cfg.import_method);
  c->linker.verify = c->s->cfg.verify_store;
  c->have_linker = true;
  return rc;
}

/* A cold hoisted install from a lockfile links as the fetch stores
 * (hoisted.h); NUB_EARLY_LINK=0 turns it off, to measure the difference. */
static void start_early(struct nub_install_ctx *c)
{
  const char *env = nub_plat_getenv("NUB_EARLY_LINK");

  if (c->layout != &nub_layout_hoisted || !c->plan.have_tree || c->plan.fetch ||
      (env && !strcmp(env, "0")))
    return;
  if (fresh_linker(c) < 0)
    return;
  c->early = nub_hoisted_early_begin(c->s->proj.dir_fd, &c->plan.tree, &c->linker,
                                     nub_pool_size(c->pool), &c->prog);
}

static int phase_fetch(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_diag_phase ph;
  struct nub_fetch_result fr;
  char detail[128];
  int rc;

  nub_diag_phase_begin(&ph, "fetch");
  start_early(c);
  rc = nub_plan_fetch(c, &fr, err);
  for (size_t i = 0; i < c->plan.pkgs.n; i++) {
    const struct nub_pkg *p = c->plan.pkgs.v[i];
    if (!p->prepare_blocked)
      continue;
    nub_install_blocked(c, p->name, p->version, "a git dependency, packed unprepared");
  }
  /* an install that asked the registry nothing (no resolving, nothing
   * fetched) may be recorded: what it said is then what its inputs make it
   * say, no network's passing trouble */
  c->record = c->record && !c->plan.resolved && !fr.fetched;
  snprintf(detail, sizeof(detail), "%zu packages, %zu cached", fr.fetched, fr.cached);
  nub_diag_phase_end(&ph, detail);
  nub_diag_set_count("packages", (long long)c->installed);
  nub_diag_set_count("fetched", (long long)fr.fetched);
  nub_diag_set_count("cached", (long long)fr.cached);
  if (rc == 0)
    rc = c->layout->after_fetch(c, err);
  if (rc < 0 && c->early) {
    /* there was no node_modules: there is none again */
    nub_plat_rm_rf_at(c->s->proj.dir_fd, "node_modules");
    nub_hoisted_early_free(c->early);
    c->early = NULL;
  }
  return rc;
}

/* Whether node_modules can be kept and mended from the previous install's
 * state: the same layout and settings, and not `nub ci` or --force.
 * Otherwise (another tool's node_modules, an interrupted run) it is
 * removed. */
static int keep_previous(struct nub_install_ctx *c, const struct nub_state *old, bool *keep,
                         struct nub_err *err)
{
  struct nub_plat_stat st;
  int rc = 0;

  *keep = old && !c->o->ci && !c->o->force && !strcmp(old->layout, c->layout->name) &&
          !strcmp(old->settings, c->settings);
  /* (a node_modules made while the fetch ran is this install's own) */
  if (!*keep && !c->early && nub_plat_stat_at(c->s->proj.dir_fd, "node_modules", &st) == 0) {
    rc = nub_plat_rm_rf_at(c->s->proj.dir_fd, "node_modules");
    if (rc < 0)
      return nub_err_set(err, rc, "cannot clear node_modules: %s", nub_strerror(rc));
  }
  for (size_t i = 0; !*keep && i < c->s->ws.npkgs; i++) {
    char *nm = nub_asprintf("%s/node_modules", c->s->ws.pkgs[i].dir);
    rc = 0; /* (a member without node_modules has nothing to clear) */
    if (nub_plat_stat_at(c->s->proj.dir_fd, nm, &st) == 0 && st.type == NUB_FT_DIR)
      rc = nub_plat_rm_rf_at(c->s->proj.dir_fd, nm);
    if (rc < 0)
      rc = nub_err_set(err, rc, "cannot clear %s: %s", nm, nub_strerror(rc));
    nub_free(nm);
    if (rc < 0)
      return rc;
  }
  /* From here on node_modules is being changed: a stale state must not
   * survive an interrupted link. */
  nub_plat_unlink_at(c->s->proj.dir_fd, NUB_STATE_FILE, false);
  return 0;
}

static int phase_link(struct nub_install_ctx *c, const struct nub_state *old,
                      struct nub_layout_result *r, struct nub_err *err)
{
  struct nub_diag_phase ph;
  bool keep;
  char detail[160];
  int rc;

  memset(r, 0, sizeof(*r));
  rc = keep_previous(c, old, &keep, err);
  if (rc < 0)
    return rc;
  nub_diag_phase_begin(&ph, "link");
  if (!c->early) /* (the early links' linker goes on) */
    rc = fresh_linker(c);
  if (rc == 0)
    rc = c->layout->link(c, keep ? old : NULL, r, err);
  nub_hoisted_early_free(c->early);
  c->early = NULL;
  if (c->linker.copies_across_devices)
    nub_progress_warn(&c->prog, "the store (%s) is on another file system than the "
                      "project; files are copied instead of linked. Put the store on the "
                      "same file system (store-dir in .npmrc) to link them", c->store.root);
  if (c->layout == &nub_layout_hoisted)
    snprintf(detail, sizeof(detail), "%zu files", r->files);
  else
    snprintf(detail, sizeof(detail), "%zu files, %zu packages, %zu reused, %zu adopted",
             r->files, r->packages, r->reused, r->adopted);
  nub_diag_phase_end(&ph, detail);
  nub_diag_tally_add(&r->st.t);
  nub_diag_set_count("files", (long long)r->files);
  return rc;
}

/* The packages whose stored files the linker found changed (an edit
 * through a hard-linked node_modules, most likely): each said in one line,
 * dropped from the store and marked to be fetched over the changed files.
 * False when there were none. */
static bool refetch_changed(struct nub_install_ctx *c)
{
  struct nub_linker *l = &c->linker;

  if (!c->have_linker || !l->nchanged)
    return false;
  for (size_t i = 0; i < c->plan.pkgs.n; i++) {
    struct nub_pkg *p = c->plan.pkgs.v[i];
    bool hit = false;
    for (size_t k = 0; p->index && k < l->nchanged && !hit; k++)
      hit = !memcmp(l->changed[k], p->key, 65) || !memcmp(l->changed[k], nub_pkg_link_key(p), 65);
    if (!hit)
      continue;
    nub_progress_warn(&c->prog, "the store's copy of %s@%s is damaged: a file changed or "
                      "went missing after it was stored (an edit through a hard-linked "
                      "node_modules?); fetching it again", p->name, p->version);
    p->distrust_ns = p->index->stored_ns ? p->index->stored_ns : 1;
    nub_index_free(p->index);
    p->index = NULL;
    p->fetch_state = 0;
    nub_store_index_remove(&c->store, p->key);
    if (p->patch_hash[0]) /* made again from the package fetched again */
      nub_store_index_remove(&c->store, p->patched_key);
  }
  l->nchanged = 0;
  return true;
}

static int phase_bins(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_diag_phase ph;
  char detail[64];
  size_t nl = 0;
  int rc;

  nub_diag_phase_begin(&ph, "link_bins");
  rc = c->layout->bins(c, &nl, err);
  snprintf(detail, sizeof(detail), "%zu links", nl);
  nub_diag_phase_end(&ph, detail);
  return rc;
}

static int phase_scripts(struct nub_install_ctx *c, struct nub_err *err)
{
  static const char *const post[] = {"install", "postinstall", "prepare"};
  struct nub_diag_phase ph;
  int rc;

  nub_diag_phase_begin(&ph, "scripts");
  rc = nub_lifecycle_deps(c, err);
  if (rc == 0 && !c->o->rebuild) /* a rebuild is the dependencies' scripts */
    rc = nub_lifecycle_members(c, member_events, 4, err);
  if (rc == 0 && !c->o->rebuild)
    rc = nub_lifecycle_root(c, post, 3, err);
  nub_diag_phase_end(&ph, NULL);
  if (rc == 0)
    rc = nub_report_blocked(c, err);
  return rc;
}

/* What the next install compares with to find nothing to do. */
static void phase_state(struct nub_install_ctx *c, const struct nub_state *old,
                        const struct nub_layout_result *lr, struct nub_install_result *res)
{
  struct nub_diag_phase ph;
  struct nub_state s;

  nub_diag_phase_begin(&ph, "state");
  memset(&s, 0, sizeof(s));
  snprintf(s.layout, sizeof(s.layout), "%s", c->layout->name);
  memcpy(s.settings, c->settings, sizeof(s.settings));
  {
    char **names;
    size_t n = input_files(c, c->s->proj.lockfile ? c->s->proj.lockfile
                              : c->plan.have_graph ? c->plan.lockname
                                                   : NULL, &names);
    for (size_t i = 0; i < n; i++)
      nub_state_add_file(&s, c->s->proj.dir_fd, names[i]);
    nub_strarray_free(names, n);
  }
  nub_plat_mkdir_at(c->s->proj.dir_fd, NUB_STATE_DIR, 0755); /* before any time is read */
  c->layout->state(c, &s);
  nub_state_write(&s, c->s->proj.dir_fd);
  nub_store_register_project(&c->store, c->s->proj.dir); /* what prune keeps */
  nub_report_changes(c->old_directs, c->nold_directs, s.directs, s.ndirects, &res->changes,
                     &res->nchanges);
  nub_report_count(old, &s, &res->added, &res->changed, &res->removed);
  if (lr->removed > res->removed) /* strays: directories no install of nub's made */
    res->removed = lr->removed;
  /* node_modules was damaged and is as it was again: packages the hoisted
   * layout linked anew (it keeps the others), or a repair it cannot count */
  if (c->damaged && !res->added && !res->changed && !res->removed) {
    res->mended = true;
    if (c->layout == &nub_layout_hoisted)
      res->repaired = lr->packages;
  }
  nub_state_release(&s);
  nub_diag_phase_end(&ph, NULL);
}

/* ---- an install made again from its record (record.h) ---------------------- */

/* Whether a record may stand for this install: the isolated layout in the
 * global virtual store, one project (no workspace), the lockfile taken as
 * it is, no scripts of the project's own. (Whether every package lives in
 * the store, the layout says.) */
static bool recordable(const struct nub_install_ctx *c)
{
  const struct nub_install_opts *o = c->o;
  bool scripts = !o->ignore_scripts && !c->s->cfg.ignore_scripts;

  return c->layout == &nub_layout_isolated && c->s->cfg.gvs && c->s->proj.lockfile &&
         !c->s->ws.source && !o->ci && !o->force && !o->lockfile_only &&
         o->frozen != NUB_FROZEN_NO && !o->nupdate && !o->update_all && !o->rebuild &&
         !o->nfilters && !o->workspace_root &&
         !(scripts && (c->s->man.preinstall || c->s->man.install || c->s->man.postinstall ||
                       c->s->man.prepare));
}

/* The record's name: what shapes node_modules, this machine, and the bytes
 * of the input files. */
static int record_digest(const struct nub_install_ctx *c, char out[33])
{
  struct nub_buf ctx = NUB_BUF_INIT;
  char **names;
  size_t n = input_files(c, c->s->proj.lockfile, &names);
  int rc;

  nub_buf_addf(&ctx, "settings %s\nos %s\ncpu %s\nlibc %s\nscripts %d\nomit_peer %d\n",
               c->settings, c->caps.npm_os, c->caps.npm_cpu, c->caps.libc ? c->caps.libc : "-",
               !c->o->ignore_scripts && !c->s->cfg.ignore_scripts, c->o->omit_peer);
  /* every setting of every layer but credentials: what any of them makes
   * of the install (a stricter peer rule, say) is then a new record */
  for (size_t i = 0; i < c->s->cfg.nent; i++)
    if (!nub_config_is_credential(c->s->cfg.ent[i].key))
      nub_buf_addf(&ctx, "cfg %d %s=%s\n", (int)c->s->cfg.ent[i].layer, c->s->cfg.ent[i].key,
                   c->s->cfg.ent[i].val ? c->s->cfg.ent[i].val : "");
  rc = nub_record_digest(c->s->proj.dir_fd, ctx.data, names, n, out);
  nub_strarray_free(names, n);
  nub_buf_release(&ctx);
  return rc;
}

/* The phases a full install reports, said for a replay too, each with
 * what it did: nothing resolved or fetched, no file linked, every package
 * reused where the record put it. So every path prints the same lines,
 * and a tally of per-file events (none here) still matches "phase:link". */
static void said_replayed(size_t n)
{
  static const char *const names[] = {"resolve", "fetch", "link", "link_bins"};
  char detail[4][128];
  struct nub_diag_phase ph;

  snprintf(detail[0], sizeof(detail[0]), "0 packages resolved: the store's record");
  snprintf(detail[1], sizeof(detail[1]), "0 packages, %zu cached", n);
  snprintf(detail[2], sizeof(detail[2]), "0 files, %zu packages, %zu reused, 0 adopted", n, n);
  snprintf(detail[3], sizeof(detail[3]), "0 links: the record's");
  for (int i = 0; i < 4; i++) {
    nub_diag_phase_begin(&ph, names[i]);
    nub_diag_phase_end(&ph, detail[i]);
  }
}

/* The same inputs installed before from this store, into a project that
 * has no node_modules: its links made again from the record, which first
 * checks that every entry it names is still as it was. */
static bool replay(struct nub_install_ctx *c, struct nub_install_result *res)
{
  struct nub_plat_stat st;
  struct nub_diag_phase ph;
  struct nub_record r;
  char digest[33], detail[96], **names;
  size_t n;
  int rc;

  if (!recordable(c) || nub_plat_stat_at(c->s->proj.dir_fd, "node_modules", &st) != -ENOENT ||
      record_digest(c, digest) < 0)
    return false;
  nub_diag_phase_begin(&ph, "replay");
  rc = nub_record_replay(&c->store, digest, c->s->proj.dir_fd, &r);
  if (rc < 0) {
    nub_diag_phase_end(&ph, rc == -ENOENT ? "no record" : "the record is stale");
    return false;
  }
  for (size_t i = 0; i < r.nwarnings; i++)
    nub_progress_warn(&c->prog, "%s", r.warnings[i]);
  n = input_files(c, c->s->proj.lockfile, &names);
  for (size_t i = 0; i < n; i++)
    nub_state_add_file(&r.state, c->s->proj.dir_fd, names[i]);
  nub_strarray_free(names, n);
  nub_state_write(&r.state, c->s->proj.dir_fd);
  nub_store_register_project(&c->store, c->s->proj.dir); /* what prune keeps */
  nub_report_changes(NULL, 0, r.state.directs, r.state.ndirects, &res->changes,
                     &res->nchanges);
  res->added = c->installed = r.added;
  snprintf(detail, sizeof(detail), "%zu packages, from the store's record of these inputs",
           r.added);
  nub_diag_phase_end(&ph, detail);
  said_replayed(r.added);
  nub_record_release(&r);
  return true;
}

/* After a full install that a record may stand for (c->record): the
 * record. */
static void remember(struct nub_install_ctx *c, const struct nub_layout_result *lr)
{
  char digest[33];

  if (!c->record || !lr->entries || record_digest(c, digest) < 0)
    return;
  nub_record_save(&c->store, digest, c->s->proj.dir_fd, lr->entries, lr->nentries, c->installed,
                  c->prog.said, c->prog.nsaid);
}

static int run(struct nub_install_ctx *c, struct nub_install_result *res, struct nub_err *err)
{
  static const char *const pre[] = {"preinstall"};
  struct nub_layout_result lr;
  struct nub_state old;
  bool have_old;
  int rc;

  memset(&lr, 0, sizeof(lr));
  /* what the install says from here on (not the waits for locks before)
   * goes into its record too */
  c->record = c->prog.keep = recordable(c);
  /* an order the members' scripts cannot run in fails before anything,
   * the lockfile included, is written */
  rc = nub_lifecycle_members_check(c, member_events, 4, err);
  /* git packages the project trusts by name are prepared before packing */
  if (!c->o->ignore_scripts && !c->s->cfg.ignore_scripts) {
    c->plan.pkgs.prepare_names = c->s->man.trusted;
    c->plan.pkgs.nprepare = c->s->man.ntrusted;
  }
  c->plan.pkgs.as_trees = as_trees(c);
  if (rc == 0 && replay(c, res))
    return 0;
  if (rc == 0) /* (a replay needs none: the file is one of its inputs) */
    rc = start_hooks(c, err);
  if (rc == 0)
    rc = phase_plan(c, err);
  if (rc == 0 && c->o->lockfile_only && c->plan.lock_written) /* (static names) */
    res->lockfile = c->plan.lockname ? c->plan.lockname : c->s->proj.lockfile;
  if (rc < 0 || c->o->lockfile_only)
    return rc;
  /* what the previous install left, read once: its direct dependencies
   * for the summary (whatever its layout), its directories for mending */
  have_old = nub_state_read(&old, c->s->proj.dir_fd, false) == 0;
  if (have_old) {
    c->old_directs = old.directs;
    c->nold_directs = old.ndirects;
    old.directs = NULL;
    old.ndirects = 0;
  }
  if (!c->o->rebuild)
    rc = nub_lifecycle_root(c, pre, 1, err);
  if (rc == 0)
    rc = phase_fetch(c, err);
  if (rc == 0)
    rc = phase_link(c, have_old ? &old : NULL, &lr, err);
  /* changed store files: fetched again, then node_modules built afresh */
  for (int pass = 0; rc == -NUB_ESTORE && pass < 3 && refetch_changed(c); pass++) {
    struct nub_fetch_result fr;
    struct nub_err e2;
    nub_err_clear(&e2);
    rc = nub_plan_fetch(c, &fr, &e2);
    c->record = false;
    nub_strarray_free(lr.entries, lr.nentries);
    if (rc == 0)
      rc = phase_link(c, NULL, &lr, &e2);
    *err = e2;
  }
  /* node_modules is what the lockfile says: now it may say so */
  if (rc == 0)
    rc = nub_plan_commit_lock(c, err);
  if (rc == 0)
    rc = phase_bins(c, err);
  if (rc == 0)
    rc = phase_scripts(c, err);
  if (rc == 0) {
    phase_state(c, have_old ? &old : NULL, &lr, res);
    remember(c, &lr);
    if (c->plan.lock_written)
      res->lockfile = c->plan.lockname ? c->plan.lockname : c->s->proj.lockfile;
  }
  if (have_old)
    nub_state_release(&old);
  nub_strarray_free(lr.entries, lr.nentries);
  return rc;
}

/* ---- the driver ------------------------------------------------------------ */

int nub_install(const struct nub_install_opts *o, struct nub_install_result *res,
                struct nub_err *err)
{
  struct nub_install_ctx c;
  int rc;

  memset(&c, 0, sizeof(c));
  memset(res, 0, sizeof(*res));
  c.o = o;
  c.plock.fd = -1;
  c.own.lock.fd = -1;
  c.gc_lock_fd = -1;
  c.t0 = nub_diag_t0() ? nub_diag_t0() : nub_plat_now_ns();
  nub_plat_trap_interrupts();
  nub_plat_raise_nofile();
  if (o->session) { /* the caller's (add's): open, locked, package.json read anew */
    c.s = o->session;
    rc = nub_session_more(c.s, NUB_OPEN_PROJECT | NUB_OPEN_WORKSPACE, err);
  } else {
    /* run in a workspace package, the install is the workspace's; an edit
     * a killed command left is undone first (said whatever follows, an
     * up-to-date project too) */
    struct nub_progress say;
    struct nub_session_opts so = {o->dir, o->npmrc_dir, o->cfg, o->ncfg, &say, nub_lockfmts,
                                  &nub_lockfmt_none};
    nub_progress_start(&say, o->reporter == NUB_REPORTER_SILENT ? 2 : 3);
    c.s = &c.own;
    /* the workspace's definition before setup: pnpm-workspace.yaml's
     * settings are inputs, and its members are the no-op check's files */
    rc = nub_session_open(&c.own, NUB_OPEN_PROJECT | NUB_OPEN_WORKSPACE | NUB_OPEN_RECOVER,
                          &so, err);
    nub_progress_stop(&say);
    c.own.o.say = NULL;
  }
  if (rc < 0)
    goto out;
  setup(&c);
  rc = refuse_patches(&c, err);
  if (rc == 0)
    rc = check_dev_engines(&c, err);
  if (rc < 0)
    goto out;
  if (up_to_date(&c)) {
    res->up_to_date = true;
    goto out;
  }
  rc = nub_session_more(c.s, NUB_OPEN_MEMBERS, err);
  if (rc < 0)
    goto out;
  rc = select_projects(&c, err);
  if (rc < 0)
    goto out;
  if (o->frozen == NUB_FROZEN_YES && !c.s->proj.lockfile) {
    rc = nub_err_set(err, -NUB_ENOLOCKFILE,
                     "no lockfile in %s and --frozen-lockfile is set (nub ci needs one)",
                     c.s->root);
    goto out;
  }
  rc = start_work(&c, err);
  if (rc == 0)
    rc = nub_crypto_init(err); /* hashing from here on cannot fail */
  if (rc == 0)
    rc = run(&c, res, err);
  nub_diag_sampler_stop();
  if (NUB_DIAG_ON()) {
    struct nub_jw w;
    nub_jw_begin(&w);
    nub_jw_int(&w, "packages", (long long)c.installed);
    nub_jw_int(&w, "exit", nub_err_exit(rc));
    nub_diag_event("install", "total", c.t0, nub_plat_now_ns(), nub_jw_end(&w));
  }
  if (rc == 0)
    nub_diag_bench_line(c.s->root, nub_plat_now_ns() - c.t0);
out:
  if (nub_plat_interrupted() && rc < 0 && rc != -NUB_EINTR)
    rc = nub_err_set(err, -NUB_EINTR, "interrupted");
  nub_progress_stop(&c.prog);
  res->seconds = (double)(nub_plat_now_ns() - c.t0) / 1e9;
  nub_plan_release(&c.plan);
  if (c.pool)
    nub_pool_free(c.pool);
  nub_hoisted_early_free(c.early);
  if (c.have_linker)
    nub_linker_release(&c.linker);
  nub_plat_unlock(c.gc_lock_fd);
  nub_projlock_release(&c.plock);
  if (c.have_store)
    nub_store_close(&c.store);
  nub_session_close(&c.own);
  for (size_t i = 0; i < c.nblocked; i++) {
    nub_free(c.blocked[i]);
    nub_free(c.blocked_note[i]);
  }
  nub_free(c.blocked);
  nub_free(c.blocked_note);
  nub_free(c.selected);
  nub_free(c.secrets);
  nub_strarray_free(c.old_directs, c.nold_directs);
  nub_patches_release(&c.patches);
  nub_pnpmfile_stop(c.hooks);
  nub_free(c.pnpmfile);
  return rc;
}

void nub_install_result_release(struct nub_install_result *res)
{
  nub_strarray_free(res->changes, res->nchanges);
  res->changes = NULL;
  res->nchanges = 0;
}
