/* cmd_init.c - `nub init`: flags -> init.h. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "init.h"
#include "nub_alloc.h"

const char cli_init_help[] =
    "usage: nub init [-y] [-w <dir>]\n\n"
    "Write a package.json in the current directory, as `npm init -y` writes it\n"
    "(the folder's name, version 1.0.0). With -w <dir>, a workspace package: its\n"
    "folder and package.json, and <dir> added to the root's \"workspaces\" (the\n"
    "root's package.json is made too when there is none).\n";

enum { I_YES = 1, I_WORKSPACE, I_DIR };
static const struct cli_opt init_opts[] = {
  {"flags:", CLI_OPT_TITLE, NULL, NULL},
  {"-y|--yes", I_YES, NULL, "accepted, as npm's (nub asks nothing)"},
  {"-w|--workspace", I_WORKSPACE, "<dir>", "a workspace package in <dir>"},
  {"-C|--dir", I_DIR, "<dir>", "run as if started in <dir>"},
  {NULL, 0, NULL, NULL},
};
const struct cli_opt *const cli_init_tabs[] = {init_opts, NULL};

int cmd_init(int argc, char **argv)
{
  const char *member = NULL, *dir = NULL, *val;
  char cwd[4096], *made = NULL, *abs;
  struct nub_err err;
  int i = 1, id, rc;

  while ((id = cli_opt_next(cli_init_tabs, "init", argc, argv, &i, &val)) != CLI_OPT_END) {
    if (id == CLI_OPT_BAD)
      return 2;
    if (id == CLI_OPT_ARG)
      return cli_usage("nub init takes no names ('%s'); -w <dir> makes a workspace package",
                       val);
    if (id == I_WORKSPACE)
      member = val;
    else if (id == I_DIR)
      dir = val;
  }
  if (!getcwd(cwd, sizeof(cwd)))
    return cli_usage("cannot read the current directory");
  abs = !dir ? nub_strdup(cwd) : dir[0] == '/' ? nub_strdup(dir) : nub_asprintf("%s/%s", cwd, dir);
  nub_err_clear(&err);
  rc = nub_init(abs, member, &made, &err);
  nub_free(abs);
  if (rc < 0)
    return cli_fail(&err);
  printf("wrote %s\n", made);
  nub_free(made);
  return 0;
}
