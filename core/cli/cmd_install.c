/* cmd_install.c - `nub install` (`i`) and `nub ci`: flags -> nub_install. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "add.h"
#include "install.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "nub_plat.h"

const char cli_install_help[] =
    "usage: nub install [flags]\n"
    "       nub ci [flags]\n\n"
    "Install the dependencies of the project in the current directory.\n"
    "An npm lockfile (package-lock.json, npm-shrinkwrap.json) gives the hoisted\n"
    "layout npm would build; nub.lock, pnpm-lock.yaml or no lockfile gives the\n"
    "isolated layout. `nub ci` removes node_modules and installs exactly what the\n"
    "lockfile says (frozen).\n\n"
    "flags:\n"
    "  --frozen-lockfile            fail if package.json and the lockfile disagree\n"
    "                               (default when CI is set and a lockfile exists)\n"
    "  --prefer-frozen-lockfile     use the lockfile when it satisfies package.json\n"
    "  --no-frozen-lockfile         always re-resolve\n"
    "  --lockfile-only              write the lockfile, do not touch node_modules\n"
    "  --offline                    never use the network; fail on a store miss\n"
    "  --prefer-offline             use cached metadata without revalidating\n"
    "  -P, --prod, --production     skip devDependencies (also --omit=dev)\n"
    "  -D, --dev                    install devDependencies only\n"
    "  --omit=<dev|optional|peer>   skip a dependency type (repeatable)\n"
    "  --no-optional                skip optionalDependencies\n"
    "  --ignore-scripts             do not run lifecycle scripts\n"
    "  --force                      relink every package\n"
    "  --node-linker <isolated|hoisted>\n"
    "                               override the layout chosen from the lockfile\n"
    "  --package-import-method <auto|hardlink|clone|clone-or-copy|copy>\n"
    "                               how files get from the store into node_modules\n"
    "  --no-global-virtual-store    isolated layout: keep packages in the project\n"
    "  --registry <url>             registry to use (overrides .npmrc)\n"
    "  --store-dir <dir>            content-addressed store location\n"
    "  --reporter <default|append-only|silent>, -s/--silent\n"
    "  -C, --dir <dir>              run in <dir>\n\n"
    "workspaces (package.json \"workspaces\" or pnpm-workspace.yaml; run anywhere\n"
    "in the workspace, the whole workspace is installed):\n"
    "  -F, --filter <selector>      only these packages (repeatable): a name or glob\n"
    "                               (@app/*), a path (./packages/app, {packages/*}),\n"
    "                               <sel>... with its dependencies, ...<sel> with its\n"
    "                               dependents (^ leaves <sel> out), !<sel> to exclude\n"
    "  --workspace <name|path>      the same as --filter <name|path> (npm's flag)\n"
    "  -w, --workspace-root         the workspace root's own dependencies\n";

const char cli_add_help[] =
    "usage: nub add <pkg>[@range|@tag|@version]... [flags]\n"
    "       nub remove <pkg>... [flags]        (rm, uninstall, un)\n"
    "       nub install <pkg>...               (the same as add)\n\n"
    "Edit package.json (only the dependency changes; indentation, key order and\n"
    "line endings stay) and install: what changed is resolved, the lockfile is\n"
    "written back in the project's format. If the install fails, package.json and\n"
    "the lockfile are put back as they were. Also: <alias>@npm:<pkg>[@range],\n"
    "file:<dir>, link:<dir>.\n\n"
    "flags (and every install flag):\n"
    "  -D, --save-dev        to devDependencies\n"
    "  -O, --save-optional   to optionalDependencies\n"
    "  --save-peer           to peerDependencies (and devDependencies)\n"
    "  -P, --save-prod       to dependencies (the default)\n"
    "  -E, --save-exact      the exact version, no save-prefix\n"
    "  -w, --workspace-root  the workspace root's package.json\n"
    "  -F, --filter <sel>    these workspace packages' package.json\n\n"
    "nub update [<pkg>...] [-L|--latest]   (up)\n"
    "  resolve the named packages (none: all) again to the newest versions their\n"
    "  ranges allow; --latest first moves package.json's ranges to the latest\n"
    "  version (keeping ^, ~ or exact).\n";

/* Flags that take a value and map to a config key. */
static const struct { const char *flag, *key; } value_flags[] = {
  {"--node-linker", "node-linker"},
  {"--package-import-method", "package-import-method"},
  {"--registry", "registry"},
  {"--store-dir", "store-dir"},
  {"--network-concurrency", "network-concurrency"},
  {"--fetch-retries", "fetch-retries"},
  {"--fetch-timeout", "fetch-timeout"},
};

/* pos: where package names go (add, remove); NULL: none are taken. */
static int parse(int argc, char **argv, struct nub_install_opts *o, char ***cfgv,
                 const char ***filtv, char **pos, size_t *npos)
{
  size_t ncfg = 0, nfilt = 0;
  char **cfg = nub_calloc((size_t)argc * 2 + 2, sizeof(char *));
  const char **filt = nub_calloc((size_t)argc + 1, sizeof(char *));

  *cfgv = cfg;
  *filtv = filt;
  o->filters = filt;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = NULL;
    size_t flen;
    bool matched = false;

    if (!strcmp(a, "-C") || !strcmp(a, "--dir")) {
      if (i + 1 >= argc)
        return cli_usage("%s needs a directory", a);
      o->dir = argv[++i];
      continue;
    }
    if (!strncmp(a, "--dir=", 6)) {
      o->dir = a + 6;
      continue;
    }
    if (!strcmp(a, "-F") || !strcmp(a, "--filter") || !strcmp(a, "--workspace")) {
      if (i + 1 >= argc)
        return cli_usage("%s needs a package name, glob or path", a);
      filt[nfilt++] = argv[++i];
      o->nfilters = nfilt;
      continue;
    }
    if (!strncmp(a, "--filter=", 9) || !strncmp(a, "--workspace=", 12)) {
      filt[nfilt++] = strchr(a, '=') + 1;
      o->nfilters = nfilt;
      continue;
    }
    if (!strcmp(a, "-w") || !strcmp(a, "--workspace-root")) {
      o->workspace_root = true;
      continue;
    }
    for (size_t f = 0; f < sizeof(value_flags) / sizeof(value_flags[0]); f++) {
      flen = strlen(value_flags[f].flag);
      if (!strncmp(a, value_flags[f].flag, flen) && (a[flen] == '\0' || a[flen] == '=')) {
        if (a[flen] == '=')
          val = a + flen + 1;
        else if (i + 1 < argc)
          val = argv[++i];
        else
          return cli_usage("%s needs a value", a);
        cfg[ncfg++] = nub_asprintf("%s=%s", value_flags[f].key, val);
        matched = true;
        break;
      }
    }
    if (matched)
      continue;
    if (!strcmp(a, "--frozen-lockfile"))
      o->frozen = NUB_FROZEN_YES;
    else if (!strcmp(a, "--no-frozen-lockfile"))
      o->frozen = NUB_FROZEN_NO;
    else if (!strcmp(a, "--prefer-frozen-lockfile"))
      o->frozen = NUB_FROZEN_PREFER;
    else if (!strcmp(a, "--offline"))
      o->offline = true;
    else if (!strcmp(a, "--prefer-offline"))
      o->prefer_offline = true;
    else if (!strcmp(a, "-P") || !strcmp(a, "--prod") || !strcmp(a, "--production"))
      o->omit_dev = true;
    else if (!strcmp(a, "-D") || !strcmp(a, "--dev"))
      o->dev_only = true;
    else if (!strcmp(a, "--no-optional"))
      o->omit_optional = true;
    else if (!strncmp(a, "--omit=", 7) || !strcmp(a, "--omit")) {
      const char *w = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : "");
      if (!strcmp(w, "dev"))
        o->omit_dev = true;
      else if (!strcmp(w, "optional"))
        o->omit_optional = true;
      else if (!strcmp(w, "peer"))
        o->omit_peer = true;
      else
        return cli_usage("--omit takes dev, optional or peer, not '%s'", w);
    } else if (!strcmp(a, "--ignore-scripts"))
      o->ignore_scripts = true;
    else if (!strcmp(a, "--lockfile-only"))
      o->lockfile_only = true;
    else if (!strcmp(a, "--force") || !strcmp(a, "-f"))
      o->force = true;
    else if (!strcmp(a, "--no-global-virtual-store"))
      cfg[ncfg++] = nub_strdup("enable-global-virtual-store=false");
    else if (!strcmp(a, "--global-virtual-store"))
      cfg[ncfg++] = nub_strdup("enable-global-virtual-store=true");
    else if (!strcmp(a, "-s") || !strcmp(a, "--silent"))
      o->reporter = NUB_REPORTER_SILENT;
    else if (!strncmp(a, "--reporter", 10)) {
      const char *w = a[10] == '=' ? a + 11 : (i + 1 < argc ? argv[++i] : "");
      if (!strcmp(w, "default"))
        o->reporter = NUB_REPORTER_DEFAULT;
      else if (!strcmp(w, "append-only"))
        o->reporter = NUB_REPORTER_APPEND;
      else if (!strcmp(w, "silent"))
        o->reporter = NUB_REPORTER_SILENT;
      else
        return cli_usage("--reporter takes default, append-only or silent, not '%s'", w);
    } else if (!strcmp(a, "--loglevel")) {
      i++; /* accepted for compatibility; NUB_LOG steers debug output */
    } else if (a[0] == '-')
      return cli_usage("unknown flag '%s' for %s", a, argv[0]);
    else if (pos)
      pos[(*npos)++] = argv[i];
    else
      return cli_usage("nub %s takes no package names ('%s')", argv[0], a);
  }
  o->cfg = (const char *const *)cfg;
  o->ncfg = ncfg;
  return 0;
}

/* Whether flag a takes the next argument as its value. */
static bool takes_value(const char *a)
{
  static const char *const with[] = {"-C", "--dir", "-F", "--filter", "--workspace", "--omit",
                                     "--reporter", "--loglevel", NULL};
  if (strchr(a, '='))
    return false;
  for (int i = 0; with[i]; i++)
    if (!strcmp(a, with[i]))
      return true;
  for (size_t f = 0; f < sizeof(value_flags) / sizeof(value_flags[0]); f++)
    if (!strcmp(a, value_flags[f].flag))
      return true;
  return false;
}

static void print_result(const struct nub_install_opts *o, const struct nub_install_result *res)
{
  if (o->reporter == NUB_REPORTER_SILENT)
    return;
  if (res->up_to_date)
    printf("Already up to date\n");
  else if (res->removed)
    printf("added %zu packages, removed %zu packages in %.2fs\n", res->added, res->removed,
           res->seconds);
  else if (!o->lockfile_only)
    printf("added %zu packages in %.2fs\n", res->added, res->seconds);
  for (size_t i = 0; i < res->nchanges; i++)
    printf("%s\n", res->changes[i]);
  fflush(stdout);
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
  rc = parse(argc, argv, &o, &cfg, &filters, pos, &npos);
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
  if (cfg) {
    for (size_t i = 0; cfg[i]; i++)
      nub_free(cfg[i]);
    nub_free(cfg);
  }
  nub_free(filters);
  nub_free(pos);
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
  char **cfg = NULL, **pos = nub_calloc((size_t)argc + 1, sizeof(char *)), **rest;
  const char **filters = NULL;
  size_t npos = 0;
  int n = 0, rc;

  memset(&ao, 0, sizeof(ao));
  memset(&res, 0, sizeof(res));
  nub_err_clear(&err);
  rest = nub_calloc((size_t)argc + 1, sizeof(char *));
  for (int k = 0; k < argc; k++) {
    const char *a = argv[k];
    if (k && (!strcmp(a, "-D") || !strcmp(a, "--save-dev")))
      ao.save = NUB_SAVE_DEV;
    else if (k && (!strcmp(a, "-O") || !strcmp(a, "--save-optional")))
      ao.save = NUB_SAVE_OPTIONAL;
    else if (k && !strcmp(a, "--save-peer"))
      ao.save = NUB_SAVE_PEER;
    else if (k && (!strcmp(a, "-P") || !strcmp(a, "--save-prod")))
      ao.save = NUB_SAVE_PROD;
    else if (k && (!strcmp(a, "-E") || !strcmp(a, "--save-exact")))
      ao.exact = true;
    else if (k && !strcmp(a, "--save"))
      continue;
    else if (k && kind == EDIT_UPDATE && (!strcmp(a, "-L") || !strcmp(a, "--latest")))
      latest = true;
    else
      rest[n++] = argv[k];
  }
  rc = parse(n, rest, &ao.install, &cfg, &filters, pos, &npos);
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
      if (rc == 0 && ao.install.reporter != NUB_REPORTER_SILENT)
        for (size_t i = 0; i < nsaved; i++)
          printf("saved %s\n", saved[i]);
      nub_strarray_free(saved, nsaved);
    }
    if (rc < 0)
      rc = cli_fail(&err);
    else
      print_result(&ao.install, &res);
  }
  nub_install_result_release(&res);
  if (cfg) {
    for (size_t i = 0; cfg[i]; i++)
      nub_free(cfg[i]);
    nub_free(cfg);
  }
  nub_free(filters);
  nub_free(pos);
  nub_free(rest);
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
  rc = parse(argc, argv, &o, &cfg, &filters, NULL, NULL);
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
  if (cfg) {
    for (size_t i = 0; cfg[i]; i++)
      nub_free(cfg[i]);
    nub_free(cfg);
  }
  nub_free(filters);
  return rc;
}

int cmd_install(int argc, char **argv) { return run(argc, argv, false); }
int cmd_ci(int argc, char **argv) { return run(argc, argv, true); }
