/* globallink.c - `nub link` (globallink.h). */
#include "globallink.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "link.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "path.h"

char *nub_global_dir(void)
{
  const char *h = nub_plat_getenv("NUB_HOME"), *x = nub_plat_getenv("XDG_DATA_HOME");
  const char *home = nub_plat_home();

  if (h && *h)
    return nub_strdup(h);
  if (x && *x)
    return nub_asprintf("%s/nub/global", x);
  return home ? nub_asprintf("%s/.local/share/nub/global", home) : NULL;
}

/* dir/node_modules/<name> (scope made) -> target, replacing what is there. */
static int put_link(const char *dir, const char *name, const char *target, struct nub_err *err)
{
  char *path = nub_asprintf("%s/node_modules/%s", dir, name);
  char *parent = nub_strndup(path, (size_t)(strrchr(path, '/') - path));
  int rc = nub_mkdirs_at(NUB_PLAT_CWD, parent);

  if (rc == 0 || rc == -EEXIST) {
    nub_plat_rm_rf_at(NUB_PLAT_CWD, path);
    rc = nub_plat_symlink_at(target, NUB_PLAT_CWD, path);
  }
  if (rc < 0)
    nub_err_set(err, rc, "cannot link %s: %s", path, nub_strerror(rc));
  nub_free(parent);
  nub_free(path);
  return rc;
}

/* The package's bins into bindir, pointing into pkg_dir; made executable. */
static int put_bins(const char *bindir, const char *pkg_dir, const struct nub_manifest *m,
                    struct nub_err *err)
{
  int rc = 0;

  for (size_t i = 0; i < m->nbins && rc == 0; i++) {
    char *target = nub_asprintf("%s/%s", pkg_dir, m->bins[i].target);
    char *path = nub_asprintf("%s/%s", bindir, m->bins[i].name);
    struct nub_plat_stat st;
    rc = nub_mkdirs_at(NUB_PLAT_CWD, bindir);
    if (rc == -EEXIST)
      rc = 0;
    if (rc == 0) {
      nub_plat_unlink_at(NUB_PLAT_CWD, path, false);
      rc = nub_plat_symlink_at(target, NUB_PLAT_CWD, path);
    }
    if (rc == 0 && nub_plat_stat_follow_at(NUB_PLAT_CWD, target, &st) == 0)
      nub_plat_chmod_at(NUB_PLAT_CWD, target, st.mode | 0111);
    if (rc < 0)
      nub_err_set(err, rc, "cannot link %s: %s", path, nub_strerror(rc));
    nub_free(target);
    nub_free(path);
  }
  return rc;
}

int nub_link_global(const char *pkg_dir, char **name, struct nub_err *err)
{
  struct nub_manifest m;
  char *global = nub_global_dir(), *bin;
  bool loaded;
  int rc;

  *name = NULL;
  if (!global)
    return nub_err_set(err, -NUB_ECONFIG, "no home directory: set NUB_HOME for nub link");
  rc = nub_manifest_load(&m, pkg_dir, err);
  loaded = rc == 0;
  if (rc == 0 && (!m.name || !nub_valid_pkg_name(m.name)))
    rc = nub_err_set(err, -NUB_EMANIFEST, "%s/package.json has no valid name to link under",
                     pkg_dir);
  if (rc == 0)
    rc = put_link(global, m.name, pkg_dir, err);
  if (rc == 0) {
    bin = nub_asprintf("%s/bin", global);
    rc = put_bins(bin, pkg_dir, &m, err);
    nub_free(bin);
  }
  if (rc == 0)
    *name = nub_strdup(m.name);
  if (loaded)
    nub_manifest_release(&m);
  nub_free(global);
  return rc;
}

int nub_link_into(const char *project_dir, const char *what, char **name, char **target,
                  struct nub_err *err)
{
  struct nub_manifest m;
  char *dir, *bin;
  int rc;

  *name = *target = NULL;
  if (what[0] == '.' || what[0] == '/') {
    dir = what[0] == '/' ? nub_strdup(what) : nub_asprintf("%s/%s", project_dir, what);
  } else {
    char *global = nub_global_dir();
    char *g = global ? nub_asprintf("%s/node_modules/%s", global, what) : NULL;
    dir = g ? nub_plat_realpath(g) : NULL;
    nub_free(g);
    nub_free(global);
    if (!dir)
      return nub_err_set(err, -NUB_ENOTFOUND, "%s is not linked globally; run `nub link` in "
                         "its directory first", what);
  }
  {
    char *real = nub_plat_realpath(dir);
    if (!real) {
      rc = nub_err_set(err, -NUB_ENOTFOUND, "%s does not exist", dir);
      nub_free(dir);
      return rc;
    }
    nub_free(dir);
    dir = real;
  }
  rc = nub_manifest_load(&m, dir, err);
  if (rc < 0) {
    nub_free(dir);
    return rc;
  }
  if (!m.name || !nub_valid_pkg_name(m.name))
    rc = nub_err_set(err, -NUB_EMANIFEST, "%s/package.json has no valid name", dir);
  if (rc == 0)
    rc = put_link(project_dir, m.name, dir, err);
  if (rc == 0) {
    bin = nub_asprintf("%s/node_modules/.bin", project_dir);
    rc = put_bins(bin, dir, &m, err);
    nub_free(bin);
  }
  if (rc == 0) {
    *name = nub_strdup(m.name);
    *target = nub_strdup(dir);
  }
  nub_manifest_release(&m);
  nub_free(dir);
  return rc;
}

struct unbin {
  const char *bindir, *pkg_dir;
  size_t n;
};

/* A bin whose link points into the package: removed. */
static int unbin_one(void *payload, const char *name, enum nub_plat_ftype type)
{
  struct unbin *u = payload;
  char *path = nub_asprintf("%s/%s", u->bindir, name), target[4096];
  size_t n = strlen(u->pkg_dir);
  long len;

  (void)type;
  len = nub_plat_readlink_at(NUB_PLAT_CWD, path, target, sizeof(target));
  if (len > 0 && !strncmp(target, u->pkg_dir, n) && target[n] == '/' &&
      nub_plat_unlink_at(NUB_PLAT_CWD, path, false) == 0)
    u->n++;
  nub_free(path);
  return 0;
}

static void remove_bins(const char *bindir, const char *pkg_dir)
{
  struct unbin u = {bindir, pkg_dir, 0};

  nub_plat_list_dir_at(NUB_PLAT_CWD, bindir, unbin_one, &u);
}

/* path's link target, made absolute against path's folder (caller
 * frees), or NULL when path is no link. */
static char *link_target(const char *path)
{
  char t[4096];
  long len = nub_plat_readlink_at(NUB_PLAT_CWD, path, t, sizeof(t));

  if (len <= 0)
    return NULL;
  if (t[0] == '/')
    return nub_strdup(t);
  {
    char *dir = nub_strndup(path, (size_t)(strrchr(path, '/') - path));
    char *joined = nub_asprintf("%s/%s", dir, t), *real = nub_plat_realpath(joined);
    nub_free(dir);
    if (real) {
      nub_free(joined);
      return real;
    }
    return joined;
  }
}

int nub_unlink_global(const char *pkg_dir, char **name, struct nub_err *err)
{
  struct nub_manifest m;
  char *global = nub_global_dir(), *path = NULL, *target = NULL, *bin;
  int rc;

  *name = NULL;
  if (!global)
    return nub_err_set(err, -NUB_ECONFIG, "no home directory: set NUB_HOME for nub unlink");
  rc = nub_manifest_load(&m, pkg_dir, err);
  if (rc < 0) {
    nub_free(global);
    return rc;
  }
  if (!m.name || !nub_valid_pkg_name(m.name))
    rc = nub_err_set(err, -NUB_EMANIFEST, "%s/package.json has no valid name", pkg_dir);
  if (rc == 0) {
    path = nub_asprintf("%s/node_modules/%s", global, m.name);
    target = link_target(path);
    if (!target || strcmp(target, pkg_dir))
      rc = nub_err_set(err, -NUB_ENOTFOUND, "%s is not linked globally from here (%s)",
                       m.name, target ? target : "no link");
  }
  if (rc == 0) {
    rc = nub_plat_unlink_at(NUB_PLAT_CWD, path, false);
    if (rc < 0)
      nub_err_set(err, rc, "cannot remove %s: %s", path, nub_strerror(rc));
  }
  if (rc == 0) {
    bin = nub_asprintf("%s/bin", global);
    remove_bins(bin, pkg_dir);
    nub_free(bin);
    *name = nub_strdup(m.name);
  }
  nub_free(target);
  nub_free(path);
  nub_manifest_release(&m);
  nub_free(global);
  return rc;
}

int nub_unlink_from(const char *project_dir, const char *name, struct nub_err *err)
{
  char *path, *target, *bin;
  int rc = 0;

  if (!nub_valid_pkg_name(name))
    return nub_err_set(err, -NUB_EUSAGE, "'%s' is not a package name", name);
  path = nub_asprintf("%s/node_modules/%s", project_dir, name);
  target = link_target(path);
  if (!target)
    rc = nub_err_set(err, -NUB_ENOTFOUND, "node_modules/%s is not a link (nothing to unlink)",
                     name);
  if (rc == 0) {
    rc = nub_plat_unlink_at(NUB_PLAT_CWD, path, false);
    if (rc < 0)
      nub_err_set(err, rc, "cannot remove %s: %s", path, nub_strerror(rc));
  }
  if (rc == 0) {
    bin = nub_asprintf("%s/node_modules/.bin", project_dir);
    remove_bins(bin, target);
    nub_free(bin);
  }
  nub_free(target);
  nub_free(path);
  return rc;
}
