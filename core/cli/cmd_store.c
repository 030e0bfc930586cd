/* cmd_store.c - `nub store path`, `nub cache clean`, `nub dlx` and
 * `nub completion`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"
#include "config.h"
#include "install.h"
#include "integrity.h"
#include "link.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "quickhash.h"
#include "run.h"
#include "store.h"
#include "store_gc.h"

const char cli_store_help[] =
    "usage: nub store path       print where the store is (store-dir)\n"
    "       nub store status     check every package as an install does (files present,\n"
    "                            at their size, not written since stored); report the\n"
    "                            changed ones and exit 1, changing nothing\n"
    "       nub store verify     read every store file back against what was stored (a\n"
    "                            content file's SHA-256, a package tree file's CRC-32);\n"
    "                            a bad package is dropped (the next install fetches it\n"
    "                            again). Exit 1 when something was bad\n"
    "       nub store prune      remove what no project that used the store still needs\n"
    "                            (waits for installs, and they for it)\n"
    "       nub cache clean      remove the registry metadata cache\n"
    "       nub cache path       print where it is\n";

const char cli_dlx_help[] =
    "usage: nub dlx <pkg>[@version] [args...]   (x)\n\n"
    "Install a package into a cache directory under the store (reused for a day)\n"
    "and run its command with the arguments, in the current directory. A package\n"
    "with several commands runs the one named like the package.\n";

static int load_cfg(struct nub_config *cfg, struct nub_err *err)
{
  char cwd[4096];

  if (!getcwd(cwd, sizeof(cwd)))
    return nub_err_set(err, -NUB_EUSAGE, "cannot read the current directory");
  return nub_config_load(cfg, cwd, NULL, 0, err);
}

int cmd_store(int argc, char **argv)
{
  struct nub_config cfg;
  struct nub_err err;

  struct nub_store store;
  struct nub_gc_result r;
  int rc, lock = -1;

  nub_err_clear(&err);
  if (argc < 2 || (strcmp(argv[1], "path") && strcmp(argv[1], "verify") &&
                   strcmp(argv[1], "prune") && strcmp(argv[1], "status")))
    return cli_usage("nub store takes: path, status, verify, prune");
  if (load_cfg(&cfg, &err) < 0)
    return cli_fail(&err);
  if (!strcmp(argv[1], "path")) {
    printf("%s/v1\n", cfg.store_dir);
    nub_config_release(&cfg);
    return 0;
  }
  rc = nub_store_open(&store, cfg.store_dir, &err);
  nub_config_release(&cfg);
  if (rc < 0)
    return cli_fail(&err);
  /* status only reads: beside installs; verify and prune change the store */
  {
    bool excl = strcmp(argv[1], "status") != 0;
    rc = nub_store_gc_lock(&store, excl, false, &lock);
    if (rc == -EWOULDBLOCK) {
      fprintf(stderr, "nub: %s is using %s; waiting for it\n",
              excl ? "an install" : "a prune", store.root);
      rc = nub_store_gc_lock(&store, excl, true, &lock);
    }
  }
  if (rc < 0) {
    nub_err_set(&err, rc, "cannot lock the store: %s", nub_strerror(rc));
    nub_store_close(&store);
    return cli_fail(&err);
  }
  if (!strcmp(argv[1], "status")) {
    rc = nub_store_status(&store, &r, &err);
    for (size_t i = 0; i < r.nproblems; i++)
      printf("%s\n", r.problems[i]);
    printf("%zu packages checked (%zu files, %zu as trees): %zu changed%s\n", r.indexes,
           r.files, r.trees, r.bad, r.bad ? " (`nub store verify` drops them; the next "
                                            "install fetches them again)" : "");
    rc = rc < 0 ? cli_fail(&err) : r.bad ? 1 : 0;
  } else if (!strcmp(argv[1], "verify")) {
    rc = nub_store_verify(&store, &r, &err);
    for (size_t i = 0; i < r.nproblems; i++)
      printf("%s\n", r.problems[i]);
    printf("%zu packages checked (%zu files, %zu as trees): %zu bad, dropped (the next "
           "install fetches them again)\n", r.indexes, r.files, r.trees, r.bad);
    rc = rc < 0 ? cli_fail(&err) : r.bad ? 1 : 0;
  } else {
    rc = nub_store_prune(&store, &r, &err);
    printf("kept what %zu of %zu projects use; removed %zu packages, %zu files, %zu trees, "
           "%zu entries\n", r.projects - r.removed_projects, r.projects, r.removed_indexes,
           r.removed_files, r.removed_trees, r.removed_entries);
    rc = rc < 0 ? cli_fail(&err) : 0;
  }
  nub_gc_result_release(&r);
  nub_plat_unlock(lock);
  nub_store_close(&store);
  return rc;
}

int cmd_cache(int argc, char **argv)
{
  struct nub_config cfg;
  struct nub_err err;
  int rc = 0;

  nub_err_clear(&err);
  if (argc < 2 || (strcmp(argv[1], "clean") && strcmp(argv[1], "path")))
    return cli_usage("nub cache takes: clean, path");
  if (load_cfg(&cfg, &err) < 0)
    return cli_fail(&err);
  if (!strcmp(argv[1], "path")) {
    printf("%s\n", cfg.cache_dir);
  } else {
    /* the packuments only: packages stay in the store */
    char *dir = nub_asprintf("%s/packuments", cfg.cache_dir);
    rc = nub_plat_rm_rf_at(NUB_PLAT_CWD, dir);
    if (rc < 0 && rc != -2) {
      nub_err_set(&err, rc, "cannot remove %s: %s", dir, nub_strerror(rc));
      rc = cli_fail(&err);
    } else {
      rc = 0;
    }
    nub_free(dir);
  }
  nub_config_release(&cfg);
  return rc;
}

/* ---- dlx -------------------------------------------------------------------- */

#define DLX_MAX_AGE (24 * 3600)

/* The command of the installed package: its only bin, or the one named
 * like the package (without its scope). */
static char *dlx_bin(const char *dir, const char *name)
{
  char *pkg = nub_asprintf("%s/node_modules/%s", dir, name), *bin = NULL;
  struct nub_manifest m;
  struct nub_err err;
  const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;

  if (nub_manifest_load(&m, pkg, &err) == 0) {
    for (size_t i = 0; i < m.nbins && !bin; i++)
      if (m.nbins == 1 || !strcmp(m.bins[i].name, base))
        bin = nub_asprintf("%s/node_modules/.bin/%s", dir, m.bins[i].name);
    nub_manifest_release(&m);
  }
  nub_free(pkg);
  return bin;
}

int cmd_dlx(int argc, char **argv)
{
  struct nub_config cfg;
  struct nub_err err;
  const char *spec, *at, *range;
  char name[256], cwd[4096], proj[4096], key_hex[33], *dir, *pj, *bin;
  unsigned char h[16];
  struct nub_plat_stat st;
  int i = 1, rc;

  nub_err_clear(&err);
  if (i < argc && !strcmp(argv[i], "--"))
    i++;
  if (i >= argc)
    return cli_usage("dlx needs a package");
  spec = argv[i++];
  at = strchr(spec[0] == '@' ? spec + 1 : spec, '@');
  snprintf(name, sizeof(name), "%.*s", (int)(at ? (size_t)(at - spec) : strlen(spec)), spec);
  range = at ? at + 1 : "latest";
  if (!getcwd(cwd, sizeof(cwd)))
    return cli_usage("cannot read the current directory");
  /* the configuration of the project dlx runs in (npm's prefix: the
   * nearest package.json), as npx reads it: its registry, scoped
   * registries and their credentials */
  {
    struct nub_manifest m;
    char *pdir = NULL;
    if (nub_run_project(cwd, &pdir, &m, &err) == 0) {
      snprintf(proj, sizeof(proj), "%s", pdir);
      nub_manifest_release(&m);
    } else {
      snprintf(proj, sizeof(proj), "%s", cwd);
    }
    nub_free(pdir);
    nub_err_clear(&err);
  }
  if (nub_config_load(&cfg, proj, NULL, 0, &err) < 0)
    return cli_fail(&err);
  /* one cache entry per spec and registry: a tool from one registry never
   * answers for a project whose configuration names another */
  {
    const char *reg = nub_config_registry_for(&cfg, name);
    char *id = nub_asprintf("%s\n%s", spec, reg ? reg : "");
    nub_quickhash(id, strlen(id), h);
    nub_free(id);
  }
  nub_hex(h, 16, key_hex);
  dir = nub_asprintf("%s/v1/dlx/%s", cfg.store_dir, key_hex);
  pj = nub_asprintf("%s/package.json", dir);
  bin = dlx_bin(dir, name);
  /* a cache younger than a day is used as it is */
  if (!bin || nub_plat_stat_at(NUB_PLAT_CWD, pj, &st) < 0 ||
      (uint64_t)time(NULL) > st.mtime_ns / 1000000000u + DLX_MAX_AGE) {
    char *text = nub_asprintf("{\"name\": \"nub-dlx\", \"private\": true, "
                              "\"dependencies\": {\"%s\": \"%s\"}}\n", name, range);
    struct nub_install_opts o;
    struct nub_install_result res;
    nub_free(bin);
    bin = NULL;
    nub_mkdirs_at(NUB_PLAT_CWD, dir);
    rc = nub_plat_write_file_atomic(pj, text, strlen(text), 0644);
    nub_free(text);
    memset(&o, 0, sizeof(o));
    o.dir = dir;
    o.npmrc_dir = proj;
    o.reporter = NUB_REPORTER_SILENT;
    o.frozen = NUB_FROZEN_NO; /* the newest that matches, each time */
    if (rc == 0)
      rc = nub_install(&o, &res, &err);
    else
      nub_err_set(&err, rc, "cannot write %s: %s", pj, nub_strerror(rc));
    if (rc == 0)
      nub_install_result_release(&res);
    if (rc < 0) {
      nub_free(dir);
      nub_free(pj);
      nub_config_release(&cfg);
      return cli_fail(&err);
    }
    bin = dlx_bin(dir, name);
  }
  nub_config_release(&cfg);
  nub_free(pj);
  if (!bin) {
    fprintf(stderr, "nub: error: %s has no command to run (no \"bin\" in its package.json)\n",
            name);
    nub_free(dir);
    return 1;
  }
  {
    struct nub_manifest none;
    char **args = nub_calloc((size_t)argc + 2, sizeof(char *));
    int n = 0;
    memset(&none, 0, sizeof(none));
    args[n++] = bin;
    while (i < argc)
      args[n++] = argv[i++];
    nub_run_exec(dir, cwd, &none, args, &err);
    nub_free(args);
  }
  nub_free(bin);
  nub_free(dir);
  return cli_fail(&err) == 40 ? 127 : 126;
}

/* ---- link ------------------------------------------------------------------ */

#include "globallink.h"

const char cli_link_help[] =
    "usage: nub link              in a package: link it globally by its name\n"
    "       nub link <name>       in a project: node_modules/<name> -> the global link\n"
    "       nub link <dir>        in a project: node_modules/<name> -> <dir>\n\n"
    "The global directory is $NUB_HOME (else $XDG_DATA_HOME/nub/global, else\n"
    "~/.local/share/nub/global); its bin/ gets the package's commands. A link into\n"
    "a project is not saved in package.json: the next install removes it (as\n"
    "`npm link`); `nub add link:<dir>` saves one. `nub unlink` undoes either.\n";

int cmd_link(int argc, char **argv)
{
  char cwd[4096], *name = NULL, *target = NULL;
  struct nub_err err;
  int rc;

  nub_err_clear(&err);
  if (!getcwd(cwd, sizeof(cwd)))
    return cli_usage("cannot read the current directory");
  if (argc < 2) {
    rc = nub_link_global(cwd, &name, &err);
    if (rc == 0) {
      char *g = nub_global_dir();
      printf("linked %s: %s/node_modules/%s -> %s\n", name, g, name, cwd);
      nub_free(g);
    }
  } else {
    rc = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
      rc = nub_link_into(cwd, argv[i], &name, &target, &err);
      if (rc == 0)
        printf("linked %s: node_modules/%s -> %s\n", name, name, target);
      if (i + 1 < argc) {
        nub_free(name);
        nub_free(target);
        name = target = NULL;
      }
    }
  }
  nub_free(name);
  nub_free(target);
  return rc < 0 ? cli_fail(&err) : 0;
}

const char cli_unlink_help[] =
    "usage: nub unlink            in a package: undo its `nub link` (the global link\n"
    "                             and its commands in the global bin/)\n"
    "       nub unlink <name>...  in a project: undo `nub link <name>`, then install,\n"
    "                             so that what package.json asks for is back\n";

int cmd_unlink(int argc, char **argv)
{
  char cwd[4096], *name = NULL;
  struct nub_err err;
  int rc = 0;

  nub_err_clear(&err);
  if (!getcwd(cwd, sizeof(cwd)))
    return cli_usage("cannot read the current directory");
  if (argc < 2) {
    rc = nub_unlink_global(cwd, &name, &err);
    if (rc == 0)
      printf("unlinked %s\n", name);
    nub_free(name);
    return rc < 0 ? cli_fail(&err) : 0;
  }
  for (int i = 1; i < argc && rc == 0; i++) {
    rc = nub_unlink_from(cwd, argv[i], &err);
    if (rc == 0)
      printf("unlinked %s\n", argv[i]);
  }
  if (rc < 0)
    return cli_fail(&err);
  /* (pnpm unlink's way: the project installed again, the package as
   * package.json and the lockfile have it, if they do) */
  {
    char *install[] = {(char *)"install", NULL};
    return cmd_install(1, install);
  }
}
