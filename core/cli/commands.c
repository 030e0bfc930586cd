/* commands.c - the command table: every command's name, aliases, entry,
 * summary, help page and flags, and the commands that read the table
 * itself (help, completion). */
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "cli.h"
#include "nub_alloc.h"
#include "version.h"

static const char why_help[] =
    "usage: nub why <pkg>\n\n"
    "Every chain of dependencies from the project (or a workspace package) to\n"
    "<pkg>, as the lockfile has them; exit 1 when nothing depends on it.\n";
static const char cache_help[] =
    "usage: nub cache clean      remove the registry metadata cache\n"
    "       nub cache path       print where it is\n";
static const char completion_help[] =
    "usage: nub completion bash|zsh|fish\n\n"
    "Print a completion script for the shell: `eval \"$(nub completion bash)\"`.\n";
static const char help_help[] =
    "usage: nub help [<command>]\n\n"
    "The commands, or one command's usage and flags (also: nub <command> --help).\n";
static const char test_help[] =
    "usage: nub test [args...]      (t, tst)\n\n"
    "Run package.json's \"test\" script: the same as nub run test.\n";
static const char start_help[] =
    "usage: nub start [args...]\n\n"
    "Run package.json's \"start\" script: the same as nub run start.\n";
static const char stop_help[] =
    "usage: nub stop [args...]\n\n"
    "Run package.json's \"stop\" script: the same as nub run stop.\n";
static const char restart_help[] =
    "usage: nub restart [args...]\n\n"
    "Run package.json's \"restart\" script: the same as nub run restart.\n";

static int cmd_test(int argc, char **argv) { return cli_run_named(argc, argv, "test"); }
static int cmd_start(int argc, char **argv) { return cli_run_named(argc, argv, "start"); }
static int cmd_stop(int argc, char **argv) { return cli_run_named(argc, argv, "stop"); }
static int cmd_restart(int argc, char **argv) { return cli_run_named(argc, argv, "restart"); }

const struct cli_cmd cli_cmds[] = {
  {"install", "i", cmd_install, "install the project's dependencies", cli_install_help,
   cli_install_tabs, false},
  {"ci", "clean-install", cmd_ci, "remove node_modules, install exactly what the lockfile says",
   cli_ci_help, cli_install_tabs, false},
  {"add", NULL, cmd_add, "add dependencies to package.json and install them", cli_add_help,
   cli_add_tabs, false},
  {"remove", "rm,uninstall,un", cmd_remove, "remove dependencies from package.json",
   cli_remove_help, cli_install_tabs, false},
  {"update", "up,upgrade", cmd_update, "update dependencies within their ranges (-L: beyond)",
   cli_update_help, cli_update_tabs, false},
  {"init", NULL, cmd_init, "create a package.json", cli_init_help, cli_init_tabs, false},
  {"run", "run-script", cmd_run, "run a package.json script (no name: list them)",
   cli_run_help, cli_run_tabs, true},
  {"test", "t,tst", cmd_test, "run the test script", test_help, NULL, true},
  {"start", NULL, cmd_start, "run the start script", start_help, NULL, true},
  {"stop", NULL, cmd_stop, "run the stop script", stop_help, NULL, true},
  {"restart", NULL, cmd_restart, "run the restart script", restart_help, NULL, true},
  {"exec", NULL, cmd_exec, "run a command of node_modules/.bin (also: nubx)", cli_exec_help,
   NULL, true},
  {"dlx", "x", cmd_dlx, "install a package in a cache and run its command", cli_dlx_help, NULL,
   true},
  {"ls", "list", cmd_ls, "list installed dependencies (--depth N, --json)", cli_ls_help,
   cli_ls_tabs, false},
  {"why", NULL, cmd_why, "show what depends on a package", why_help, cli_why_tabs, false},
  {"outdated", NULL, cmd_outdated, "dependencies behind their wanted or latest version",
   cli_outdated_help, cli_outdated_tabs, false},
  {"rebuild", "rb", cmd_rebuild, "run the dependencies' build scripts again",
   cli_rebuild_help, cli_install_tabs, false},
  {"approve-builds", NULL, cmd_approve_builds, "approve dependencies' build scripts, then run them",
   cli_approve_help, cli_approve_tabs, false},
  {"patch", NULL, cmd_patch, "an editable copy of an installed package, for a patch",
   cli_patch_help, cli_patch_tabs, false},
  {"patch-commit", NULL, cmd_patch_commit, "write the changes of a patch copy as a patch, then "
   "install", cli_patch_commit_help, cli_patch_commit_tabs, false},
  {"link", "ln", cmd_link, "link a local package: globally (no name) or into the project",
   cli_link_help, NULL, false},
  {"licenses", NULL, cmd_licenses, "the licenses of the installed dependencies, a table or JSON",
   cli_licenses_help, cli_ls_tabs, false},
  {"unlink", NULL, cmd_unlink, "undo nub link: globally (no name) or in the project",
   cli_unlink_help, NULL, false},
  {"store", NULL, cmd_store, "the store: path, status, verify, prune", cli_store_help, NULL,
   false},
  {"cache", NULL, cmd_cache, "the metadata cache: clean, path", cache_help, NULL, false},
  {"config", NULL, cmd_config, "settings: get <key>, list, set <key> <value>, delete <key>",
   cli_config_help, NULL, false},
  {"diag", NULL, cmd_diag, "look at a run: report <run.jsonl>, diff <A> <B>", cli_diag_help,
   NULL, false},
  {"completion", NULL, cmd_completion, "print a completion script: bash, zsh or fish",
   completion_help, NULL, false},
  {"help", NULL, cmd_help, "show help for a command", help_help, NULL, false},
  {NULL, NULL, NULL, NULL, NULL, NULL, false},
};

void cli_usage_page(FILE *out)
{
  fprintf(out,
          "nub %s - a fast package manager for the npm ecosystem\n\n"
          "usage: nub <command> [flags]\n\ncommands:\n",
          NUB_VERSION);
  for (const struct cli_cmd *c = cli_cmds; c->name; c++) {
    fprintf(out, "  %-14s %s", c->name, c->summary);
    for (const char *p = c->aliases; p && *p;) {
      size_t len = strcspn(p, ",");
      fprintf(out, "%s%.*s", p == c->aliases ? " (" : ", ", (int)len, p);
      p += len + (p[len] == ',');
    }
    fprintf(out, "%s\n", c->aliases ? ")" : "");
  }
  fprintf(out,
          "\nglobal flags:\n"
          "  -C, --dir <dir>   run as if started in <dir>\n"
          "  -v, --version     print the version\n"
          "  -h, --help        print this help\n\n"
          "Run `nub help <command>` (or `nub <command> --help`) for a command's flags;\n"
          "`nub <script>` runs a package.json script that is no command's name.\n");
}

const struct cli_cmd *cli_find_cmd(const char *name)
{
  size_t n = strlen(name);

  for (const struct cli_cmd *c = cli_cmds; c->name; c++) {
    if (!strcmp(c->name, name))
      return c;
    for (const char *p = c->aliases; p && *p;) {
      const char *comma = strchr(p, ',');
      size_t len = comma ? (size_t)(comma - p) : strlen(p);
      if (len == n && !strncmp(p, name, n))
        return c;
      p = comma ? comma + 1 : p + len;
    }
  }
  return NULL;
}

void cli_cmd_help(FILE *out, const struct cli_cmd *c)
{
  fputs(c->help ? c->help : c->summary, out);
  if (c->opts)
    cli_opt_help(out, c->opts);
}

/* The command nearest to a misspelt one. */
const char *cli_nearest_cmd(const char *word)
{
  const char *cands[64];
  size_t n = 0;

  for (const struct cli_cmd *c = cli_cmds; c->name && n < 64; c++)
    cands[n++] = c->name;
  return cli_nearest(word, cands, n);
}

int cmd_help(int argc, char **argv)
{
  const struct cli_cmd *c;

  if (argc < 2) {
    cli_usage_page(stdout);
    return 0;
  }
  c = cli_find_cmd(argv[1]);
  if (!c) {
    const char *near = cli_nearest_cmd(argv[1]);
    if (near)
      return cli_usage("unknown command '%s'; did you mean '%s'?", argv[1], near);
    return cli_usage("unknown command '%s'", argv[1]);
  }
  cli_cmd_help(stdout, c);
  return 0;
}

/* ---- completion ------------------------------------------------------------ */

int cmd_completion(int argc, char **argv)
{
  struct nub_buf words = NUB_BUF_INIT;

  for (const struct cli_cmd *c = cli_cmds; c->name; c++)
    nub_buf_addf(&words, "%s%s", words.len ? " " : "", c->name);
  if (argc < 2 || !strcmp(argv[1], "bash")) {
    printf("# nub completion for bash: eval \"$(nub completion bash)\"\n"
           "_nub() {\n"
           "  local cur=${COMP_WORDS[COMP_CWORD]}\n"
           "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
           "    local scripts=$(node -e 'try{console.log(Object.keys(require(\"./package.json\")"
           ".scripts||{}).join(\" \"))}catch(e){}' 2>/dev/null)\n"
           "    COMPREPLY=($(compgen -W \"%s $scripts\" -- \"$cur\"))\n"
           "  elif [ \"${COMP_WORDS[1]}\" = run ]; then\n"
           "    COMPREPLY=($(compgen -W \"$(node -e 'try{console.log(Object.keys(require("
           "\"./package.json\").scripts||{}).join(\" \"))}catch(e){}' 2>/dev/null)\" -- \"$cur\"))\n"
           "  fi\n"
           "}\n"
           "complete -o default -F _nub nub\n",
           nub_buf_str(&words));
  } else if (!strcmp(argv[1], "zsh")) {
    printf("#compdef nub\n# nub completion for zsh: eval \"$(nub completion zsh)\"\n"
           "_nub() {\n"
           "  if (( CURRENT == 2 )); then\n"
           "    compadd %s\n"
           "  else\n"
           "    _files\n"
           "  fi\n"
           "}\n"
           "compdef _nub nub\n",
           nub_buf_str(&words));
  } else if (!strcmp(argv[1], "fish")) {
    printf("# nub completion for fish: nub completion fish | source\n"
           "complete -c nub -f -n '__fish_use_subcommand' -a '%s'\n",
           nub_buf_str(&words));
  } else {
    nub_buf_release(&words);
    return cli_usage("completion takes bash, zsh or fish");
  }
  nub_buf_release(&words);
  return 0;
}

