/* cmd_install.c - `nub install` (`i`) and `nub ci`: flags -> nub_install. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "add.h"
#include "patch.h"
#include "install.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "nub_plat.h"

const char cli_install_help[] =
    "usage: nub install [flags]            (i)\n"
    "       nub install <pkg>...           (the same as nub add)\n\n"
    "Install the dependencies of the project in the current directory.\n"
    "An npm lockfile (package-lock.json, npm-shrinkwrap.json) gives the hoisted\n"
    "layout npm would build; a yarn.lock yarn's, a bun.lock bun's; nub.lock,\n"
    "pnpm-lock.yaml or no lockfile gives the isolated layout.\n";

const char cli_ci_help[] =
    "usage: nub ci [flags]                 (clean-install)\n\n"
    "Remove node_modules and install exactly what the lockfile says: a lockfile\n"
    "that does not answer package.json is an error (exit 16), none is exit 10.\n";

const char cli_rebuild_help[] =
    "usage: nub rebuild [<pkg>...] [flags]  (rb)\n\n"
    "Run the install scripts of the named dependencies (none: every trusted one)\n"
    "again, in the installed tree.\n";

const char cli_approve_help[] =
    "usage: nub approve-builds [<pkg>...] [--all] [flags]\n\n"
    "Approve the build scripts of dependencies the last install left waiting\n"
    "(no names and no --all: list them), where the project's tool keeps\n"
    "approvals: pnpm-workspace.yaml's allowBuilds for a pnpm project, npm 12's\n"
    "allowScripts (pinned to the version) for an npm one, package.json's\n"
    "trustedDependencies otherwise. Then their scripts run.\n";

const char cli_patch_help[] =
    "usage: nub patch <pkg>[@<version>] [--edit-dir <dir>] [--ignore-existing]\n\n"
    "Copy an installed package (as the lockfile pins it; with the project's patch\n"
    "for it applied, unless --ignore-existing) into\n"
    "node_modules/.nub_patches/<name>@<version>, or <dir>, to edit. Then\n"
    "nub patch-commit <dir> writes the changes as a patch.\n";

const char cli_patch_commit_help[] =
    "usage: nub patch-commit <dir> [--patches-dir <dir>] [flags]\n\n"
    "Write what was changed in a copy `nub patch` made as\n"
    "patches/<name>@<version>.patch, name it where the project's tool reads\n"
    "patches (pnpm-workspace.yaml's patchedDependencies for pnpm, package.json's\n"
    "for bun), and install: the package is installed patched.\n";

const char cli_add_help[] =
    "usage: nub add <pkg>[@range|@tag|@version]... [flags]\n\n"
    "Edit package.json (only the dependency changes; indentation, key order and\n"
    "line endings stay) and install: what changed is resolved, the lockfile is\n"
    "written back in the project's format. If the install fails, package.json and\n"
    "the lockfile are put back as they were. Also: <alias>@npm:<pkg>[@range],\n"
    "file:<dir>, link:<dir>, git URLs.\n";

const char cli_remove_help[] =
    "usage: nub remove <pkg>... [flags]    (rm, uninstall, un)\n\n"
    "Take the packages out of package.json (every dependency section) and\n"
    "install; a name that is no dependency is an error.\n";

const char cli_update_help[] =
    "usage: nub update [<pkg>...] [flags]  (up)\n\n"
    "Resolve the named packages (none: all) again to the newest versions their\n"
    "ranges allow; in a bun or pnpm project a ^ or ~ range then moves up to\n"
    "that version, as bun and pnpm write it (pnpm-workspace.yaml's catalog\n"
    "too); with --latest, first move package.json's ranges to the latest\n"
    "version (keeping ^, ~ or exact).\n";

enum {
  O_DIR = 1, O_FILTER, O_WROOT, O_FROZEN, O_NO_FROZEN, O_PREFER_FROZEN, O_OFFLINE,
  O_PREFER_OFFLINE, O_PROD, O_DEV, O_NO_OPTIONAL, O_OMIT, O_IGNORE_SCRIPTS, O_LOCKFILE_ONLY,
  O_FORCE, O_NO_GVS, O_GVS, O_SILENT, O_REPORTER, O_LOGLEVEL,
  O_CFG_LINKER, O_CFG_IMPORT, O_CFG_REGISTRY, O_CFG_STORE, O_CFG_NETCONC, O_CFG_RETRIES,
  O_CFG_TIMEOUT, O_SAVE_DEV, O_SAVE_OPTIONAL, O_SAVE_PEER, O_SAVE_PROD, O_SAVE_EXACT, O_SAVE, O_LATEST,
  O_ALL, O_EDIT_DIR, O_IGNORE_EXISTING, O_PATCHES_DIR, O_IGNORE_PNPMFILE,
};

/* Flags that take a value and become the setting of that name. */
static const struct { int id; const char *key; } setting_flags[] = {
  {O_CFG_LINKER, "node-linker"}, {O_CFG_IMPORT, "package-import-method"},
  {O_CFG_REGISTRY, "registry"}, {O_CFG_STORE, "store-dir"},
  {O_CFG_NETCONC, "network-concurrency"}, {O_CFG_RETRIES, "fetch-retries"},
  {O_CFG_TIMEOUT, "fetch-timeout"},
};

const struct cli_opt cli_install_opts[] = {
  {"flags:", CLI_OPT_TITLE, NULL, NULL},
  {"--frozen-lockfile", O_FROZEN, NULL,
   "fail if package.json and the lockfile disagree (default when CI is set)"},
  {"--prefer-frozen-lockfile", O_PREFER_FROZEN, NULL, "use the lockfile when it answers package.json"},
  {"--no-frozen-lockfile", O_NO_FROZEN, NULL, "always resolve again"},
  {"--lockfile-only", O_LOCKFILE_ONLY, NULL, "write the lockfile, leave node_modules"},
  {"--offline", O_OFFLINE, NULL, "never use the network; fail on a store miss"},
  {"--prefer-offline", O_PREFER_OFFLINE, NULL, "use cached metadata without revalidating"},
  {"-P|--prod|--production", O_PROD, NULL, "skip devDependencies (also --omit=dev)"},
  {"-D|--dev", O_DEV, NULL, "install devDependencies only"},
  {"--omit", O_OMIT, "<dev|optional|peer>", "skip a kind of dependency (repeatable)"},
  {"--no-optional", O_NO_OPTIONAL, NULL, "skip optionalDependencies"},
  {"--ignore-scripts", O_IGNORE_SCRIPTS, NULL, "run no lifecycle scripts"},
  {"--ignore-pnpmfile", O_IGNORE_PNPMFILE, NULL, "run no .pnpmfile.cjs hooks (pnpm projects)"},
  {"-f|--force", O_FORCE, NULL, "check and relink every package"},
  {"--node-linker", O_CFG_LINKER, "<isolated|hoisted>", "the layout, whatever the lockfile"},
  {"--package-import-method", O_CFG_IMPORT, "<auto|hardlink|clone|clone-or-copy|copy>",
   "how files get from the store into node_modules"},
  {"--no-global-virtual-store", O_NO_GVS, NULL, "isolated layout: packages in the project"},
  {"--global-virtual-store", O_GVS, NULL, "isolated layout: packages in the store (default)"},
  {"--registry", O_CFG_REGISTRY, "<url>", "the registry (over .npmrc)"},
  {"--store-dir", O_CFG_STORE, "<dir>", "the store's location"},
  {"--network-concurrency", O_CFG_NETCONC, "<n>", "connections per registry host (16)"},
  {"--fetch-retries", O_CFG_RETRIES, "<n>", "retries of a failed request (2)"},
  {"--fetch-timeout", O_CFG_TIMEOUT, "<ms>", "a whole request's time limit (300000)"},
  {"--reporter", O_REPORTER, "<default|append-only|silent>", "what is printed"},
  {"-s|--silent", O_SILENT, NULL, "print nothing but errors"},
  {"--loglevel", O_LOGLEVEL, "<level>", "accepted, as npm's (NUB_LOG=debug for more)"},
  {"-C|--dir", O_DIR, "<dir>", "run as if started in <dir>"},
  {"workspaces (run anywhere in one, the whole workspace is installed):", CLI_OPT_TITLE,
   NULL, NULL},
  {"-F|--filter|--workspace", O_FILTER, "<sel>",
   "only these packages (repeatable): a name or glob, a path (./packages/app), "
   "<sel>... with its dependencies, ...<sel> with its dependents, ^ leaves <sel> "
   "out, !<sel> excludes"},
  {"-w|--workspace-root", O_WROOT, NULL, "the workspace root's own dependencies"},
  {NULL, 0, NULL, NULL},
};

/* add's, remove's and update's own, before install's (so -D saves to
 * devDependencies, as every peer reads it there) */
const struct cli_opt cli_save_opts[] = {
  {"where to save (add):", CLI_OPT_TITLE, NULL, NULL},
  {"-D|--dev|--save-dev", O_SAVE_DEV, NULL, "to devDependencies"},
  {"-O|--optional|--save-optional", O_SAVE_OPTIONAL, NULL, "to optionalDependencies"},
  {"--peer|--save-peer", O_SAVE_PEER, NULL, "to peerDependencies (and devDependencies)"},
  {"-P|--prod|--save-prod", O_SAVE_PROD, NULL, "to dependencies (the default)"},
  {"-E|--exact|--save-exact", O_SAVE_EXACT, NULL, "the exact version, no save-prefix"},
  {"--save", O_SAVE, NULL, "accepted, as npm's (saving is the default)"},
  {NULL, 0, NULL, NULL},
};

const struct cli_opt cli_update_opts[] = {
  {"update:", CLI_OPT_TITLE, NULL, NULL},
  {"-L|--latest", O_LATEST, NULL, "move package.json's ranges to the latest version"},
  {NULL, 0, NULL, NULL},
};

const struct cli_opt cli_approve_opts[] = {
  {"approve-builds:", CLI_OPT_TITLE, NULL, NULL},
  {"--all", O_ALL, NULL, "every build that waits"},
  {NULL, 0, NULL, NULL},
};

const struct cli_opt cli_patch_opts[] = {
  {"patch:", CLI_OPT_TITLE, NULL, NULL},
  {"--edit-dir", O_EDIT_DIR, "<dir>", "where the copy goes"},
  {"--ignore-existing", O_IGNORE_EXISTING, NULL, "the package as published, not as patched"},
  {"-C|--dir", O_DIR, "<dir>", "run as if started in <dir>"},
  {NULL, 0, NULL, NULL},
};

const struct cli_opt cli_patch_commit_opts[] = {
  {"patch-commit:", CLI_OPT_TITLE, NULL, NULL},
  {"--patches-dir", O_PATCHES_DIR, "<dir>", "where the patch file goes (patches)"},
  {NULL, 0, NULL, NULL},
};

const struct cli_opt *const cli_install_tabs[] = {cli_install_opts, NULL};
const struct cli_opt *const cli_patch_tabs[] = {cli_patch_opts, NULL};
const struct cli_opt *const cli_patch_commit_tabs[] = {cli_patch_commit_opts, cli_install_opts,
                                                       NULL};
const struct cli_opt *const cli_approve_tabs[] = {cli_approve_opts, cli_install_opts, NULL};
const struct cli_opt *const cli_add_tabs[] = {cli_save_opts, cli_install_opts, NULL};
const struct cli_opt *const cli_update_tabs[] = {cli_update_opts, cli_save_opts,
                                                 cli_install_opts, NULL};

/* The flags of argv into o (and, for add, remove and update, ao); package
 * names into pos (NULL: none are taken); *sw: the command's own switch
 * (update's --latest, approve-builds' --all). */
static int parse(const struct cli_opt *const *tabs, int argc, char **argv,
                 struct nub_install_opts *o, struct nub_add_opts *ao, bool *sw,
                 char ***cfgv, const char ***filtv, char **pos, size_t *npos)
{
  size_t ncfg = 0, nfilt = 0;
  char **cfg = nub_calloc((size_t)argc * 2 + 2, sizeof(char *));
  const char **filt = nub_calloc((size_t)argc + 1, sizeof(char *));
  int i = 1, id;
  const char *val;

  *cfgv = cfg;
  *filtv = filt;
  o->filters = filt;
  while ((id = cli_opt_next(tabs, argv[0], argc, argv, &i, &val)) != CLI_OPT_END) {
    switch (id) {
    case CLI_OPT_BAD:
      return 2;
    case CLI_OPT_ARG:
      if (!pos)
        return cli_usage("nub %s takes no package names ('%s')", argv[0], val);
      pos[(*npos)++] = (char *)val;
      break;
    case O_DIR: o->dir = val; break;
    case O_FILTER: filt[nfilt++] = val; o->nfilters = nfilt; break;
    case O_WROOT: o->workspace_root = true; break;
    case O_FROZEN: o->frozen = NUB_FROZEN_YES; break;
    case O_NO_FROZEN: o->frozen = NUB_FROZEN_NO; break;
    case O_PREFER_FROZEN: o->frozen = NUB_FROZEN_PREFER; break;
    case O_OFFLINE: o->offline = true; break;
    case O_PREFER_OFFLINE: o->prefer_offline = true; break;
    case O_PROD: o->omit_dev = true; break;
    case O_DEV: o->dev_only = true; break;
    case O_NO_OPTIONAL: o->omit_optional = true; break;
    case O_OMIT:
      if (!strcmp(val, "dev"))
        o->omit_dev = true;
      else if (!strcmp(val, "optional"))
        o->omit_optional = true;
      else if (!strcmp(val, "peer"))
        o->omit_peer = true;
      else
        return cli_usage("--omit takes dev, optional or peer, not '%s'", val);
      break;
    case O_IGNORE_SCRIPTS: o->ignore_scripts = true; break;
    case O_IGNORE_PNPMFILE: o->ignore_pnpmfile = true; break;
    case O_LOCKFILE_ONLY: o->lockfile_only = true; break;
    case O_FORCE: o->force = true; break;
    case O_NO_GVS: cfg[ncfg++] = nub_strdup("enable-global-virtual-store=false"); break;
    case O_GVS: cfg[ncfg++] = nub_strdup("enable-global-virtual-store=true"); break;
    case O_SILENT: o->reporter = NUB_REPORTER_SILENT; break;
    case O_REPORTER:
      if (!strcmp(val, "default"))
        o->reporter = NUB_REPORTER_DEFAULT;
      else if (!strcmp(val, "append-only"))
        o->reporter = NUB_REPORTER_APPEND;
      else if (!strcmp(val, "silent"))
        o->reporter = NUB_REPORTER_SILENT;
      else
        return cli_usage("--reporter takes default, append-only or silent, not '%s'", val);
      break;
    case O_LOGLEVEL: break; /* accepted; NUB_LOG steers debug output */
    case O_CFG_LINKER: case O_CFG_IMPORT: case O_CFG_REGISTRY: case O_CFG_STORE:
    case O_CFG_NETCONC: case O_CFG_RETRIES: case O_CFG_TIMEOUT:
      for (size_t f = 0; f < sizeof(setting_flags) / sizeof(setting_flags[0]); f++)
        if (setting_flags[f].id == id)
          cfg[ncfg++] = nub_asprintf("%s=%s", setting_flags[f].key, val);
      break;
    case O_SAVE_DEV: ao->save = NUB_SAVE_DEV; break;
    case O_SAVE_OPTIONAL: ao->save = NUB_SAVE_OPTIONAL; break;
    case O_SAVE_PEER: ao->save = NUB_SAVE_PEER; break;
    case O_SAVE_PROD: ao->save = NUB_SAVE_PROD; break;
    case O_SAVE_EXACT: ao->exact = true; break;
    case O_SAVE: break;
    case O_LATEST: case O_ALL: case O_IGNORE_EXISTING: *sw = true; break;
    case O_EDIT_DIR: ao->edit_dir = val; break;
    case O_PATCHES_DIR: ao->patches_dir = val; break;
    default: break;
    }
  }
  /* what follows "--" is package names too */
  while (pos && i < argc)
    pos[(*npos)++] = argv[i++];
  o->cfg = (const char *const *)cfg;
  o->ncfg = ncfg;
  return 0;
}

/* Whether flag a takes the next argument as its value. */
static bool takes_value(const char *a)
{
  if (strchr(a, '='))
    return false;
  for (const struct cli_opt *o = cli_install_opts; o->names; o++) {
    const char *p = strstr(o->names, a);
    size_t n = strlen(a);
    if (o->arg && p && (p == o->names || p[-1] == '|') && (p[n] == '\0' || p[n] == '|'))
      return true;
  }
  return false;
}

static void print_result(const struct nub_install_opts *o, const struct nub_install_result *res)
{
  const size_t counts[4] = {res->added, res->removed, res->changed, res->repaired};
  static const char *const verbs[4] = {"added", "removed", "changed", "repaired"};
  bool any = false;

  if (o->reporter == NUB_REPORTER_SILENT)
    return;
  for (int k = 0; k < 4; k++)
    any = any || counts[k];
  if (o->lockfile_only) {
    if (res->lockfile)
      printf("wrote %s in %.2fs\n", res->lockfile, res->seconds);
    else
      printf("the lockfile is up to date\n");
  } else if (res->mended && !res->repaired) {
    printf("repaired node_modules in %.2fs\n", res->seconds);
  } else if (!any && !res->nchanges && res->lockfile) {
    printf("updated %s; node_modules did not change (%.2fs)\n", res->lockfile, res->seconds);
  } else if (res->up_to_date || (!any && !res->nchanges)) {
    printf("Already up to date\n");
  } else {
    /* npm's words: "added 1 package, removed 2 packages in 0.05s" */
    bool first = true;
    for (int k = 0; k < 4; k++) {
      if (!counts[k] && (k || any))
        continue;
      printf("%s%s %zu package%s", first ? "" : ", ", verbs[k], counts[k],
             counts[k] == 1 ? "" : "s");
      first = false;
    }
    printf(" in %.2fs\n", res->seconds);
  }
  for (size_t i = 0; i < res->nchanges; i++)
    printf("%s\n", res->changes[i]);
  fflush(stdout);
}

/* What parse() handed out: --config pairs (NULL-ended), --filter values,
 * the positionals. */
static void parsed_release(char **cfg, const char **filters, char **pos)
{
  for (size_t i = 0; cfg && cfg[i]; i++)
    nub_free(cfg[i]);
  nub_free(cfg);
  nub_free(filters);
  nub_free(pos);
}

int cmd_rebuild(int argc, char **argv)
{
  struct nub_install_opts o;
  struct nub_install_result res;
  struct nub_err err;
  char **cfg = NULL, **pos = nub_calloc((size_t)argc + 1, sizeof(char *));
  const char **filters = NULL;
  size_t npos = 0;
  int rc;

  memset(&o, 0, sizeof(o));
  memset(&res, 0, sizeof(res));
  nub_err_clear(&err);
  rc = parse(cli_install_tabs, argc, argv, &o, NULL, NULL, &cfg, &filters, pos, &npos);
  if (rc == 0) {
    o.rebuild = true;
    o.rebuild_names = pos;
    o.nrebuild = npos;
    if (o.frozen == NUB_FROZEN_DEFAULT)
      o.frozen = NUB_FROZEN_PREFER;
    rc = nub_install(&o, &res, &err);
    if (rc < 0)
      rc = cli_fail(&err);
    else if (o.reporter != NUB_REPORTER_SILENT)
      printf("rebuilt in %.2fs\n", res.seconds);
  }
  nub_install_result_release(&res);
  parsed_release(cfg, filters, pos);
  return rc;
}

enum edit_kind { EDIT_ADD, EDIT_REMOVE, EDIT_UPDATE };

/* add, remove, update: their own flags out of argv, the rest is install's. */
static int edit(int argc, char **argv, enum edit_kind kind)
{
  bool remove = kind == EDIT_REMOVE, latest = false;
  struct nub_add_opts ao;
  struct nub_install_result res;
  struct nub_err err;
  char **cfg = NULL, **pos = nub_calloc((size_t)argc + 1, sizeof(char *));
  const char **filters = NULL;
  size_t npos = 0;
  int rc;

  memset(&ao, 0, sizeof(ao));
  memset(&res, 0, sizeof(res));
  nub_err_clear(&err);
  rc = parse(kind == EDIT_UPDATE ? cli_update_tabs : cli_add_tabs, argc, argv, &ao.install, &ao,
             &latest, &cfg, &filters, pos, &npos);
  if (rc == 0 && !npos && kind != EDIT_UPDATE)
    rc = cli_usage("nub %s needs package names", remove ? "remove" : "add");
  /* an edit of package.json is never a frozen install, CI or not */
  if (ao.install.frozen == NUB_FROZEN_DEFAULT)
    ao.install.frozen = NUB_FROZEN_PREFER;
  if (rc == 0) {
    ao.specs = pos;
    ao.nspecs = npos;
    if (kind == EDIT_UPDATE) {
      char **changed = NULL;
      size_t nchanged = 0;
      rc = nub_update(&ao, latest, &res, &changed, &nchanged, &err);
      if (rc == 0 && ao.install.reporter != NUB_REPORTER_SILENT)
        for (size_t i = 0; i < nchanged; i++)
          printf("package.json: %s\n", changed[i]);
      nub_strarray_free(changed, nchanged);
    } else if (remove) {
      rc = nub_remove(&ao, &res, &err);
    } else {
      char **saved = NULL;
      size_t nsaved = 0;
      rc = nub_add(&ao, &res, &saved, &nsaved, &err);
      static const char *const where[] = {"dependencies", "devDependencies",
                                          "optionalDependencies",
                                          "peerDependencies (and devDependencies)"};
      if (rc == 0 && ao.install.reporter != NUB_REPORTER_SILENT)
        for (size_t i = 0; i < nsaved; i++)
          printf("saved %s to %s\n", saved[i], where[ao.save]);
      nub_strarray_free(saved, nsaved);
    }
    if (rc < 0)
      rc = cli_fail(&err);
    else
      print_result(&ao.install, &res);
  }
  nub_install_result_release(&res);
  parsed_release(cfg, filters, pos);
  return rc;
}

int cmd_approve_builds(int argc, char **argv)
{
  struct nub_add_opts ao;
  struct nub_install_result res;
  struct nub_err err;
  char **cfg = NULL, **pos = nub_calloc((size_t)argc + 1, sizeof(char *));
  char **approved = NULL, **pending = NULL;
  const char **filters = NULL;
  size_t npos = 0, napproved = 0, npending = 0;
  bool all = false;
  int rc;

  memset(&ao, 0, sizeof(ao));
  memset(&res, 0, sizeof(res));
  nub_err_clear(&err);
  rc = parse(cli_approve_tabs, argc, argv, &ao.install, &ao, &all, &cfg, &filters, pos, &npos);
  if (ao.install.frozen == NUB_FROZEN_DEFAULT)
    ao.install.frozen = NUB_FROZEN_PREFER;
  if (rc == 0) {
    ao.specs = pos;
    ao.nspecs = npos;
    rc = nub_approve_builds(&ao, all, &res, &approved, &napproved, &pending, &npending, &err);
    if (rc < 0) {
      rc = cli_fail(&err);
    } else if (ao.install.reporter != NUB_REPORTER_SILENT) {
      for (size_t i = 0; i < napproved; i++)
        printf("approved %s\n", approved[i]);
      if (napproved)
        printf("built in %.2fs\n", res.seconds);
      if (npending) {
        printf("%s build%s still wait%s for approval (nub approve-builds <pkg>... or --all):\n",
               napproved ? "these" : "the last install left these", npending == 1 ? "" : "s",
               npending == 1 ? "s" : "");
        for (size_t i = 0; i < npending; i++)
          printf("  %s\n", pending[i]);
      } else if (!napproved) {
        printf("no dependency build waits for approval\n");
      }
    }
  }
  nub_strarray_free(approved, napproved);
  nub_strarray_free(pending, npending);
  nub_install_result_release(&res);
  parsed_release(cfg, filters, pos);
  return rc;
}

int cmd_add(int argc, char **argv) { return edit(argc, argv, EDIT_ADD); }
int cmd_remove(int argc, char **argv) { return edit(argc, argv, EDIT_REMOVE); }
int cmd_update(int argc, char **argv) { return edit(argc, argv, EDIT_UPDATE); }

static int run(int argc, char **argv, bool ci)
{
  struct nub_install_opts o;
  struct nub_err err;
  char **cfg = NULL;
  const char **filters = NULL;
  int rc;

  memset(&o, 0, sizeof(o));
  nub_err_clear(&err);
  if (!ci) { /* `nub install <pkg>...` is `nub add <pkg>...` (npm's) */
    for (int k = 1; k < argc; k++)
      if (argv[k][0] != '-' && !(k > 1 && takes_value(argv[k - 1])))
        return cmd_add(argc, argv);
  }
  rc = parse(cli_install_tabs, argc, argv, &o, NULL, NULL, &cfg, &filters, NULL, NULL);
  if (rc == 0) {
    if (ci) {
      o.ci = true;
      o.frozen = NUB_FROZEN_YES;
    }
    struct nub_install_result res;
    rc = nub_install(&o, &res, &err);
    if (rc < 0) {
      rc = cli_fail(&err);
    } else {
      rc = 0;
      print_result(&o, &res);
    }
    nub_install_result_release(&res);
  }
  parsed_release(cfg, filters, NULL);
  return rc;
}

int cmd_install(int argc, char **argv) { return run(argc, argv, false); }
int cmd_ci(int argc, char **argv) { return run(argc, argv, true); }

int cmd_patch(int argc, char **argv)
{
  struct nub_add_opts ao;
  struct nub_err err;
  char **cfg = NULL, **pos = nub_calloc((size_t)argc + 1, sizeof(char *)), *dir = NULL,
       *what = NULL;
  const char **filters = NULL;
  size_t npos = 0;
  int rc;

  memset(&ao, 0, sizeof(ao));
  nub_err_clear(&err);
  rc = parse(cli_patch_tabs, argc, argv, &ao.install, &ao, &ao.ignore_existing, &cfg, &filters,
             pos, &npos);
  if (rc == 0 && npos != 1)
    rc = cli_usage("nub patch takes one package: nub patch <pkg>[@<version>]");
  if (rc == 0) {
    rc = nub_patch_edit(&ao, pos[0], &dir, &what, &err);
    if (rc < 0) {
      rc = cli_fail(&err);
    } else {
      printf("%s copied to %s\n", what, dir);
      printf("edit it there, then run: nub patch-commit '%s'\n", dir);
    }
  }
  nub_free(dir);
  nub_free(what);
  parsed_release(cfg, filters, pos);
  return rc;
}

int cmd_patch_commit(int argc, char **argv)
{
  struct nub_add_opts ao;
  struct nub_install_result res;
  struct nub_err err;
  char **cfg = NULL, **pos = nub_calloc((size_t)argc + 1, sizeof(char *)), *patch = NULL;
  const char **filters = NULL;
  size_t npos = 0;
  bool sw = false;
  int rc;

  memset(&ao, 0, sizeof(ao));
  memset(&res, 0, sizeof(res));
  nub_err_clear(&err);
  rc = parse(cli_patch_commit_tabs, argc, argv, &ao.install, &ao, &sw, &cfg, &filters, pos,
             &npos);
  if (ao.install.frozen == NUB_FROZEN_DEFAULT)
    ao.install.frozen = NUB_FROZEN_PREFER;
  if (rc == 0 && npos != 1)
    rc = cli_usage("nub patch-commit takes the copy's folder: nub patch-commit <dir>");
  if (rc == 0) {
    rc = nub_patch_commit(&ao, pos[0], &res, &patch, &err);
    if (rc < 0)
      rc = cli_fail(&err);
    else if (ao.install.reporter != NUB_REPORTER_SILENT)
      printf("wrote %s; installed in %.2fs\n", patch, res.seconds);
  }
  nub_free(patch);
  nub_install_result_release(&res);
  parsed_release(cfg, filters, pos);
  return rc;
}
