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

/* Whether the command's arguments ask for its help: -h or --help anywhere
 * before "--", or, for a command that hands its words to another program
 * (run, exec, dlx), as the first word only. */
static bool wants_help(const struct cli_cmd *c, int argc, char **argv)
{
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--"))
      return false;
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
      return true;
    if (c->passes_args)
      return false;
  }
  return false;
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
    cli_usage_page(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-v")) {
    printf("%s\n", NUB_VERSION);
    return 0;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    cli_usage_page(stdout);
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
    c = cli_find_cmd(argv[i]);
    if (!c) {
      /* any script of package.json by its name */
      const char *script = NULL;
      setup_libraries();
      if (cli_has_script(argv[i]))
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
      {
        const char *near = cli_nearest_cmd(argv[i]);
        if (near)
          rc = cli_usage("unknown command '%s' (and no script of that name in package.json); "
                         "did you mean '%s'?", argv[i], near);
        else
          rc = cli_usage("unknown command '%s' (and no script of that name in package.json)",
                         argv[i]);
      }
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
    if (wants_help(c, n, cargv)) {
      cli_cmd_help(stdout, c);
      nub_free(cargv);
      return 0;
    }
    setup_libraries();
    rc = c->run(n, cargv);
  }
  nub_free(cargv);
  nub_diag_shutdown();
  return rc;
}
