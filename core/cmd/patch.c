/* patch.c - `nub patch` and `nub patch-commit` (patch.h). */
#include "patch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "edit.h"
#include "lockfmt.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "patched.h"
#include "patches.h"
#include "patchfile.h"
#include "path.h"
#include "pkgjson_edit.h"
#include "pkgtab.h"
#include "project.h"
#include "query.h"
#include "registry_url.h"
#include "store.h"
#include "strmap.h"
#include "workspace.h"
#include "wsyaml_edit.h"

#define EDITS ".nub-state/patch-edits"
#define OWN_DIR "node_modules/.nub_patches"
#define MAX_FILE (256u << 20)

/* ---- the record of the copies: "<dir>\t<name>@<version>\t<store key>" --- */

static char *edits_path(const char *root)
{
  return nub_asprintf("%s/node_modules/%s", root, EDITS);
}

/* The record's line for dir: name@version and key, or false. */
static bool edit_of(const char *root, const char *dir, char **what, char key[65])
{
  char *path = edits_path(root), *text = NULL;
  size_t len = 0, dl = strlen(dir);
  bool found = false;

  if (nub_plat_read_file_at(NUB_PLAT_CWD, path, 1u << 20, &text, &len) == 0) {
    for (char *line = text; line && *line && !found;) {
      char *eol = strchr(line, '\n'), *t1, *t2;
      if (eol)
        *eol = '\0';
      t1 = strchr(line, '\t');
      t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
      if (t2 && (size_t)(t1 - line) == dl && !strncmp(line, dir, dl) && strlen(t2 + 1) == 64) {
        *what = nub_strndup(t1 + 1, (size_t)(t2 - t1 - 1));
        memcpy(key, t2 + 1, 65);
        found = true;
      }
      line = eol ? eol + 1 : NULL;
    }
  }
  nub_free(text);
  nub_free(path);
  return found;
}

/* The record with dir's line replaced (what NULL: taken out). */
static int set_edit(const char *root, const char *dir, const char *what, const char *key)
{
  char *path = edits_path(root), *text = NULL;
  size_t len = 0, dl = strlen(dir);
  struct nub_buf b = NUB_BUF_INIT;
  int rc;

  if (nub_plat_read_file_at(NUB_PLAT_CWD, path, 1u << 20, &text, &len) == 0) {
    for (char *line = text; line && *line;) {
      char *eol = strchr(line, '\n');
      size_t n = eol ? (size_t)(eol - line) : strlen(line);
      if (!(n > dl && line[dl] == '\t' && !strncmp(line, dir, dl)))
        nub_buf_addf(&b, "%.*s\n", (int)n, line);
      line = eol ? eol + 1 : NULL;
    }
  }
  if (what)
    nub_buf_addf(&b, "%s\t%s\t%s\n", dir, what, key);
  {
    char *parent = nub_asprintf("%s/node_modules/.nub-state", root);
    nub_plat_mkdir_p(parent, 0755);
    nub_free(parent);
  }
  rc = nub_plat_write_file_atomic(path, b.data ? b.data : "", b.len, 0644);
  nub_buf_release(&b);
  nub_free(text);
  nub_free(path);
  return rc;
}

/* ---- nub patch ----------------------------------------------------------- */

/* "name[@version]" (a scope's '@' is the name's) into its parts. */
static void split_spec(const char *spec, char *name, size_t cap, const char **version)
{
  const char *at = spec[0] ? strchr(spec + 1, '@') : NULL;

  snprintf(name, cap, "%.*s", (int)(at ? (size_t)(at - spec) : strlen(spec)), spec);
  *version = at ? at + 1 : NULL;
}

/* The package's files written under dir (made; it must not be there). */
static int write_copy(struct nub_store *st, const struct nub_index *idx, const char *dir,
                      struct nub_err *err)
{
  int rc = nub_plat_mkdir_p(dir, 0755);

  if (rc < 0)
    return nub_err_set(err, rc, "cannot make %s: %s", dir, nub_strerror(rc));
  for (uint32_t i = 0; i < idx->ndirs && rc == 0; i++) {
    char *p = nub_asprintf("%s/%s", dir, idx->dirs[i]);
    rc = nub_plat_mkdir_p(p, 0755);
    nub_free(p);
  }
  for (uint32_t i = 0; i < idx->nfiles && rc == 0; i++) {
    char *p = nub_asprintf("%s/%s", dir, idx->files[i].path), *slash = strrchr(p, '/');
    char *data = NULL;
    size_t len = 0;
    *slash = '\0';
    rc = nub_plat_mkdir_p(p, 0755);
    *slash = '/';
    if (rc == 0)
      rc = nub_store_read_pkg_file(st, idx, idx->files[i].path, &data, &len);
    if (rc == 0)
      rc = nub_plat_write_file_atomic(p, data ? data : "", len, idx->files[i].mode);
    if (rc < 0)
      nub_err_set(err, rc, "cannot write %s: %s", p, nub_strerror(rc));
    nub_free(data);
    nub_free(p);
  }
  return rc;
}

int nub_patch_edit(const struct nub_add_opts *o, const char *spec, char **dir, char **what,
                   struct nub_err *err)
{
  struct nub_query q;
  struct nub_store st;
  bool have_store = false;
  struct nub_index *idx = NULL;
  struct nub_patches ps;
  const struct nub_gpkg *g = NULL;
  const char *version;
  char name[300], key[65], versions[512] = "";
  struct nub_plat_stat sb;
  int rc;

  *dir = *what = NULL;
  memset(&ps, 0, sizeof(ps));
  split_spec(spec, name, sizeof(name), &version);
  if (!nub_valid_pkg_name(name))
    return nub_err_set(err, -NUB_EUSAGE, "'%s' is not a package name", spec);
  rc = nub_query_open(&q, o->install.dir, err);
  /* the package: the one version the lockfile has of it, or the one named */
  for (size_t i = 0; rc == 0 && i < q.graph.npkgs; i++) {
    const struct nub_gpkg *p = q.graph.pkgs[i];
    size_t vl = strlen(versions);
    if (strcmp(p->name, name) || p->directory || (version && strcmp(p->version, version)))
      continue;
    if (!g)
      g = p;
    else if (strcmp(g->version, p->version) && !strstr(versions, p->version))
      snprintf(versions + vl, sizeof(versions) - vl, "%s%s%s", vl ? "" : g->version, ", ",
               p->version);
  }
  if (rc == 0 && !g)
    rc = nub_err_set(err, -NUB_EUSAGE, "%s has no %s%s%s in it", q.s.proj.lockfile, name,
                     version ? "@" : "", version ? version : "");
  if (rc == 0 && versions[0])
    rc = nub_err_set(err, -NUB_EUSAGE, "%s has %s at %s; name one: nub patch %s@<version>",
                     q.s.proj.lockfile, name, versions, name);
  if (rc == 0) {
    char *url = nub_pkg_tarball_url(&q.s.cfg, q.s.root, g->name, g->version, g->tarball);
    nub_pkg_key(g->integrity, url, key);
    nub_free(url);
    *what = nub_asprintf("%s@%s", g->name, g->version);
    rc = nub_store_open(&st, q.s.cfg.store_dir, err);
    have_store = rc == 0;
  }
  if (rc == 0 && nub_store_index_load(&st, key, &idx) < 0)
    rc = nub_err_set(err, -NUB_ENOTFOUND, "%s is not in the store yet; run `nub install` first",
                     *what);
  /* the project's patch for it, applied, unless asked not to */
  if (rc == 0 && !o->ignore_existing)
    rc = nub_patches_of_project(&ps, q.s.root, &q.s.ws, &q.s.man,
                                q.s.proj.fmt->caps & NUB_LF_MANIFEST_PATCHES, err);
  if (rc == 0 && !o->ignore_existing) {
    struct nub_patch_rule *r = nub_patches_find(&ps, g->name, g->version, &rc, err);
    if (r) {
      struct nub_index *pidx = NULL;
      char pkey[65];
      nub_patched_key(key, r->hash, NUB_PATCH_PNPM, pkey);
      struct nub_patch_src src = {.label = r->file, .path = r->path};
      rc = nub_store_patched(&st, idx, *what, &src, NUB_PATCH_PNPM, pkey, false, g->name,
                             &pidx, err);
      if (rc == 0) {
        nub_index_free(idx);
        idx = pidx;
      }
    }
  }
  if (rc == 0) {
    char *cwd = nub_plat_realpath(".");
    *dir = o->edit_dir ? nub_project_path(cwd ? cwd : q.s.root, o->edit_dir)
                       : nub_asprintf("%s/%s/%s", q.s.root, OWN_DIR, *what);
    nub_free(cwd);
    if (nub_plat_stat_at(NUB_PLAT_CWD, *dir, &sb) == 0)
      rc = nub_err_set(err, -NUB_EUSAGE, "%s is there already; commit it (nub patch-commit "
                       "'%s'), remove it, or give another --edit-dir", *dir, *dir);
  }
  if (rc == 0)
    rc = write_copy(&st, idx, *dir, err);
  if (rc == 0) {
    char *real = nub_plat_realpath(*dir);
    if (real) {
      nub_free(*dir);
      *dir = real;
    }
    rc = set_edit(q.s.root, *dir, *what, key);
    if (rc < 0)
      nub_err_set(err, rc, "cannot write node_modules/%s: %s", EDITS, nub_strerror(rc));
  }
  if (rc < 0) {
    nub_free(*dir);
    nub_free(*what);
    *dir = *what = NULL;
  }
  nub_patches_release(&ps);
  nub_index_free(idx);
  if (have_store)
    nub_store_close(&st);
  nub_query_close(&q);
  return rc;
}

/* ---- nub patch-commit ---------------------------------------------------- */

struct walk {
  const char *root; /* the copy */
  char **paths;     /* its files, relative */
  size_t n, cap;
  int rc;
};

static int walk_dir(struct walk *w, const char *rel);

struct walk_at {
  struct walk *w;
  const char *rel;
};

static int on_entry(void *ud, const char *name, enum nub_plat_ftype type)
{
  struct walk_at *a = ud;
  char *rel = a->rel[0] ? nub_asprintf("%s/%s", a->rel, name) : nub_strdup(name);

  if (type == NUB_FT_DIR) {
    if (strcmp(name, "node_modules"))
      a->w->rc = walk_dir(a->w, rel);
    nub_free(rel);
  } else if (type == NUB_FT_FILE) {
    NUB_GROW(a->w->paths, a->w->cap, a->w->n + 1);
    a->w->paths[a->w->n++] = rel;
  } else {
    nub_free(rel); /* links and the rest are not part of a package */
  }
  return a->w->rc;
}

static int walk_dir(struct walk *w, const char *rel)
{
  struct walk_at a = {w, rel};
  char *path = rel[0] ? nub_asprintf("%s/%s", w->root, rel) : nub_strdup(w->root);
  int rc = nub_plat_list_dir_at(NUB_PLAT_CWD, path, on_entry, &a);

  nub_free(path);
  return rc < 0 ? rc : w->rc;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The patch turning the stored package idx into the copy at dir. */
static int diff_copy(struct nub_store *st, const struct nub_index *idx, const char *dir,
                     struct nub_buf *out, struct nub_err *err)
{
  struct walk w = {dir, NULL, 0, 0, 0};
  char **all;
  size_t n = 0;
  int rc = walk_dir(&w, "");

  if (rc < 0) {
    for (size_t i = 0; i < w.n; i++)
      nub_free(w.paths[i]);
    nub_free(w.paths);
    return nub_err_set(err, rc, "cannot read %s: %s", dir, nub_strerror(rc));
  }
  all = nub_calloc(w.n + idx->nfiles + 1, sizeof(char *));
  {
    /* the copy's files, then the package's it no longer has */
    struct nub_strmap seen;
    memset(&seen, 0, sizeof(seen));
    for (size_t i = 0; i < w.n; i++) {
      all[n++] = w.paths[i];
      nub_strmap_put(&seen, w.paths[i], (void *)1);
    }
    for (uint32_t i = 0; i < idx->nfiles; i++)
      if (!nub_strmap_get(&seen, idx->files[i].path))
        all[n++] = nub_strdup(idx->files[i].path);
    nub_strmap_release(&seen, NULL);
  }
  nub_free(w.paths);
  qsort(all, n, sizeof(*all), cmp_str);
  for (size_t i = 0; i < n && rc == 0; i++) {
    const struct nub_index_file *bf = nub_index_file_at(idx, all[i]);
    char *old = NULL, *new = NULL, *path = nub_asprintf("%s/%s", dir, all[i]);
    size_t oldlen = 0, newlen = 0;
    unsigned newmode = 0644;
    struct nub_plat_stat sb;
    bool have_new = nub_plat_stat_at(NUB_PLAT_CWD, path, &sb) == 0;
    if (bf)
      rc = nub_store_read_pkg_file(st, idx, all[i], &old, &oldlen);
    if (rc == 0 && have_new) {
      newmode = (sb.mode & 0111) ? 0755 : 0644;
      rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, MAX_FILE, &new, &newlen);
    }
    if (rc < 0)
      nub_err_set(err, rc, "cannot read %s: %s", all[i], nub_strerror(rc));
    else if (nub_patch_diff(out, all[i], bf ? (old ? old : "") : NULL, oldlen,
                            bf ? bf->mode : 0644, have_new ? (new ? new : "") : NULL, newlen,
                            newmode) < 0)
      rc = nub_err_set(err, -NUB_EUSAGE, "%s is not text (a NUL byte): nub writes text "
                       "patches only; change it some other way", all[i]);
    nub_free(old);
    nub_free(new);
    nub_free(path);
  }
  for (size_t i = 0; i < n; i++)
    nub_free(all[i]);
  nub_free(all);
  return rc;
}

/* The setting: pnpm-workspace.yaml's map, or package.json's. */
static int write_setting(struct nub_edit *e, bool yaml, const char *what, const char *rel,
                         struct nub_err *err)
{
  char *path = nub_asprintf("%s/%s", e->s.root, yaml ? "pnpm-workspace.yaml" : "package.json");
  char *text = NULL;
  size_t len = 0;
  struct nub_buf b = NUB_BUF_INIT;
  int rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, 64u << 20, &text, &len);

  if (rc == -ENOENT && yaml) {
    text = nub_strdup("");
    rc = 0;
  }
  if (rc < 0) {
    rc = nub_err_set(err, rc, "cannot read %s: %s", path, nub_strerror(rc));
  } else if (yaml) {
    rc = nub_wsyaml_set(&text, &len, "patchedDependencies", what, rel, err);
    if (rc == 0)
      rc = nub_plat_write_file_atomic(path, text, len, 0644);
  } else {
    rc = nub_pkgjson_set_dep(&b, text, len, "patchedDependencies", what, rel, err);
    if (rc == 0)
      rc = nub_plat_write_file_atomic(path, b.data, b.len, 0644);
  }
  if (rc < 0 && !err->msg[0])
    nub_err_set(err, rc, "cannot write %s: %s", path, nub_strerror(rc));
  nub_buf_release(&b);
  nub_free(text);
  nub_free(path);
  return rc;
}

int nub_patch_commit(const struct nub_add_opts *o, const char *dir,
                     struct nub_install_result *res, char **patch, struct nub_err *err)
{
  struct nub_edit e;
  struct nub_store st;
  bool have_store = false, yaml;
  struct nub_index *idx = NULL;
  struct nub_buf diff = NUB_BUF_INIT;
  char *real = NULL, *what = NULL, *rel = NULL, *abs = NULL, key[65];
  const struct nub_lockfmt *fmt = NULL;
  int rc;

  *patch = NULL;
  memset(res, 0, sizeof(*res));
  rc = nub_edit_open(&e, o, err);
  if (rc == 0) {
    real = nub_plat_realpath(dir);
    if (!real || !edit_of(e.s.root, real, &what, key))
      rc = nub_err_set(err, -NUB_EUSAGE, "%s is no copy `nub patch` made in this project; "
                       "make one with nub patch <pkg>", dir);
  }
  if (rc == 0) {
    rc = nub_store_open(&st, e.s.cfg.store_dir, err);
    have_store = rc == 0;
  }
  if (rc == 0 && nub_store_index_load(&st, key, &idx) < 0)
    rc = nub_err_set(err, -NUB_ENOTFOUND, "%s is no longer in the store; run `nub install`, "
                     "then nub patch it again", what);
  if (rc == 0)
    rc = diff_copy(&st, idx, real, &diff, err);
  if (rc == 0 && !diff.len)
    rc = nub_err_set(err, -NUB_EUSAGE, "nothing in %s differs from %s", dir, what);
  /* where the project's tool reads patches */
  if (rc == 0) {
    struct nub_project proj;
    struct nub_err ignored;
    memset(&proj, 0, sizeof(proj));
    if (nub_project_detect(&proj, e.s.root, &e.s.cfg, e.s.man.package_manager, e.s.o.fmts,
                           e.s.o.none, &ignored) == 0)
      fmt = proj.fmt;
    if (!fmt)
      fmt = e.s.o.none;
    nub_project_release(&proj);
  }
  if (rc == 0) {
    struct nub_plat_stat sb;
    char *ws = nub_asprintf("%s/pnpm-workspace.yaml", e.s.root);
    yaml = !strcmp(fmt->name, "pnpm") || nub_plat_stat_at(NUB_PLAT_CWD, ws, &sb) == 0;
    nub_free(ws);
    if (!yaml && !(fmt->caps & NUB_LF_MANIFEST_PATCHES))
      rc = nub_err_set(err, -NUB_ESPEC, "nub writes patches for pnpm's, npm 12's and bun's "
                       "projects (and its own); %s's tool keeps them elsewhere", fmt->file);
  }
  if (rc == 0) {
    struct nub_buf f = NUB_BUF_INIT;
    nub_buf_addf(&f, "%s/", o->patches_dir ? o->patches_dir : "patches");
    for (const char *p = what; *p; p++) /* "@s/x@1.0.0" -> "@s__x@1.0.0", as pnpm names it */
      nub_buf_adds(&f, *p == '/' ? "__" : (char[2]){*p, '\0'});
    nub_buf_adds(&f, ".patch");
    rel = nub_buf_take(&f);
    abs = nub_project_path(e.s.root, rel);
    nub_edit_keep(&e, abs);
    {
      char *p = nub_asprintf("%s/%s", e.s.root, yaml ? "pnpm-workspace.yaml" : "package.json");
      nub_edit_keep(&e, p);
      nub_free(p);
    }
    rc = nub_edit_begin(&e, err);
  }
  if (rc == 0) {
    char *slash = strrchr(abs, '/');
    *slash = '\0';
    nub_plat_mkdir_p(abs, 0755);
    *slash = '/';
    rc = nub_plat_write_file_atomic(abs, diff.data, diff.len, 0644);
    if (rc < 0)
      nub_err_set(err, rc, "cannot write %s: %s", abs, nub_strerror(rc));
    if (rc == 0)
      rc = write_setting(&e, yaml, what, rel, err);
    if (rc < 0)
      nub_edit_restore(&e);
  }
  if (rc == 0)
    rc = nub_edit_install(&e, o, res, err);
  if (rc == 0) {
    char *own = nub_asprintf("%s/%s/", e.s.root, OWN_DIR);
    set_edit(e.s.root, real, NULL, NULL);
    if (!strncmp(real, own, strlen(own)))
      nub_plat_rm_rf(real);
    nub_free(own);
    *patch = rel;
    rel = NULL;
  }
  nub_buf_release(&diff);
  nub_index_free(idx);
  if (have_store)
    nub_store_close(&st);
  nub_free(real);
  nub_free(what);
  nub_free(rel);
  nub_free(abs);
  nub_edit_release(&e);
  return rc;
}
