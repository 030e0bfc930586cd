/* main.c - argv -> command table; the only place that prints errors and picks
 * the exit status. */
#include <cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "redact.h"
#include "version.h"

const struct cli_cmd cli_cmds[] = {
  {"install", "i", cmd_install, "install the project's dependencies", cli_install_help},
  {"ci", "clean-install", cmd_ci,
   "remove node_modules and install exactly what the lockfile says", cli_install_help},
  {"config", NULL, cmd_config, "print effective settings (get <key> | list)",
   cli_config_help},
  {"add", NULL, cmd_add, "add dependencies to package.json and install them", cli_add_help},
  {"remove", "rm", cmd_remove, "remove dependencies from package.json (also: uninstall, un)",
   cli_add_help},
  {"uninstall", "un", cmd_remove, "the same as remove", cli_add_help},
  {"update", "up", cmd_update, "update dependencies within their ranges (--latest: beyond)",
   cli_add_help},
  {"ls", "list", cmd_ls, "list installed dependencies (--depth N, --json)", cli_ls_help},
  {"why", NULL, cmd_why, "show what depends on a package", cli_ls_help},
  {"outdated", NULL, cmd_outdated, "dependencies behind their wanted or latest version",
   cli_outdated_help},
  {"run", "run-script", cmd_run, "run a package.json script (no name: list them)",
   cli_run_help},
  {"rebuild", "rb", cmd_rebuild, "run the dependencies' build scripts again (names or all)",
   cli_install_help},
  {"link", "ln", cmd_link, "link a local package: globally (no name) or into the project",
   cli_link_help},
  {"dlx", "x", cmd_dlx, "install a package in a cache and run its command", cli_dlx_help},
  {"store", NULL, cmd_store, "the store: path, status, verify, prune", cli_store_help},
  {"cache", NULL, cmd_cache, "the metadata cache: clean, path", cli_store_help},
  {"diag", NULL, cmd_diag, "look at a run: report <run.jsonl>, diff <A> <B>", cli_diag_help},
  {"completion", NULL, cmd_completion, "print a completion script (bash, zsh, fish)", NULL},
  {"exec", NULL, cmd_exec, "run a command of node_modules/.bin (also: nubx)", cli_exec_help},
  {"help", NULL, cmd_help, "show help for a command", NULL},
  {NULL, NULL, NULL, NULL, NULL},
};

static void usage(FILE *out)
{
  fprintf(out,
          "nub %s - a fast package manager for the npm ecosystem\n\n"
          "usage: nub <command> [flags]\n\ncommands:\n",
          NUB_VERSION);
  for (const struct cli_cmd *c = cli_cmds; c->name; c++)
    fprintf(out, "  %-10s %s%s%s%s\n", c->name, c->summary,
            c->alias ? " (alias: " : "", c->alias ? c->alias : "",
            c->alias ? ")" : "");
  fprintf(out,
          "\nglobal flags:\n"
          "  -C, --dir <dir>   run as if started in <dir>\n"
          "  -v, --version     print the version\n"
          "  -h, --help        print this help\n\n"
          "Run `nub help <command>` for a command's flags.\n");
}

int cli_usage(const char *fmt, ...)
{
  va_list ap;

  fprintf(stderr, "nub: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nrun `nub --help` for usage\n");
  return 2;
}

int cli_fail(const struct nub_err *err)
{
  const char *name = nub_err_name(err->code);
  char clean[sizeof(err->msg) + 64];

  nub_redact(clean, sizeof(clean), err->msg);
  if (err->msg[0])
    fprintf(stderr, "nub: error: %s", clean);
  else
    fprintf(stderr, "nub: error: %s", nub_strerror(err->code));
  if (name)
    fprintf(stderr, " (ERR_NUB_%s)", name);
  fputc('\n', stderr);
  return nub_err_exit(err->code);
}

static const struct cli_cmd *find_cmd(const char *name)
{
  for (const struct cli_cmd *c = cli_cmds; c->name; c++)
    if (!strcmp(c->name, name) || (c->alias && !strcmp(c->alias, name)))
      return c;
  return NULL;
}

int cmd_help(int argc, char **argv)
{
  const struct cli_cmd *c;

  if (argc < 2) {
    usage(stdout);
    return 0;
  }
  c = find_cmd(argv[1]);
  if (!c)
    return cli_usage("unknown command '%s'", argv[1]);
  if (c->help)
    fputs(c->help, stdout);
  else
    printf("nub %s: %s\n", c->name, c->summary);
  return 0;
}

/* cJSON allocates through nub's allocator too (libcurl: see http.c). */
static void setup_libraries(void)
{
  cJSON_Hooks hooks = {nub_malloc, nub_free};

  cJSON_InitHooks(&hooks);
}

int main(int argc, char **argv)
{
  const struct cli_cmd *c;
  int i = 1, rc;
  char **cargv;

  nub_plat_init();
  nub_diag_init();
  {
    /* nubx: a second name of the binary, for `nub exec` */
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    if (!strcmp(base, "nubx")) {
      setup_libraries();
      argv[0] = (char *)"exec";
      return cmd_exec(argc, argv);
    }
  }

  /* Global flags before the command. -C/--dir is kept for the command. */
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-v")) {
    printf("%s\n", NUB_VERSION);
    return 0;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage(stdout);
    return 0;
  }
  /* `nub -C dir install` == `nub install -C dir` */
  cargv = nub_calloc((size_t)argc + 1, sizeof(*cargv));
  {
    int n = 0;
    const char *dirflag = NULL, *dirval = NULL;
    while (i < argc && argv[i][0] == '-') {
      if ((!strcmp(argv[i], "-C") || !strcmp(argv[i], "--dir")) && i + 1 < argc) {
        dirflag = "--dir";
        dirval = argv[i + 1];
        i += 2;
      } else if (!strncmp(argv[i], "--dir=", 6)) {
        dirflag = "--dir";
        dirval = argv[i] + 6;
        i++;
      } else {
        rc = cli_usage("unknown flag '%s' before the command", argv[i]);
        nub_free(cargv);
        return rc;
      }
    }
    if (i >= argc) {
      nub_free(cargv);
      return cli_usage("missing command");
    }
    c = find_cmd(argv[i]);
    if (!c) {
      /* npm's aliases of `run`, and any script of package.json by its name */
      static const char *const run_aliases[] = {"test", "t", "tst", "start", "stop",
                                                "restart", NULL};
      const char *script = NULL;
      for (int a = 0; run_aliases[a] && !script; a++)
        if (!strcmp(argv[i], run_aliases[a]))
          script = argv[i][0] == 't' ? "test" : argv[i];
      setup_libraries();
      if (!script && cli_has_script(argv[i]))
        script = argv[i];
      if (script) {
        cargv[n++] = argv[i++];
        if (dirflag) {
          cargv[n++] = (char *)dirflag;
          cargv[n++] = (char *)dirval;
        }
        while (i < argc)
          cargv[n++] = argv[i++];
        rc = cli_run_named(n, cargv, script);
        nub_free(cargv);
        return rc;
      }
      rc = cli_usage("unknown command '%s' (and no script of that name in package.json)",
                     argv[i]);
      nub_free(cargv);
      return rc;
    }
    cargv[n++] = argv[i++];
    if (dirflag) {
      cargv[n++] = (char *)dirflag;
      cargv[n++] = (char *)dirval;
    }
    while (i < argc)
      cargv[n++] = argv[i++];
    setup_libraries();
    rc = c->run(n, cargv);
  }
  nub_free(cargv);
  nub_diag_shutdown();
  return rc;
}
