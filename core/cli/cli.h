/* cli.h - the command table of the `nub` executable. Each command parses its
 * own flags, returns an exit status, and prints errors through cli_fail. */
#ifndef NUB_CLI_H
#define NUB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "err.h"

/* One option of a command: its spellings ("-D|--save-dev|--dev"), what
 * cli_opt_next returns for it, the name of its value in the help ("<dir>";
 * NULL for a switch) and one line of help. An entry whose id is
 * CLI_OPT_TITLE heads a section of the help (its names are the heading). A
 * table ends with names NULL. */
struct cli_opt {
  const char *names;
  int id;
  const char *arg;
  const char *help;
};
enum { CLI_OPT_END = -1, CLI_OPT_ARG = -2, CLI_OPT_BAD = -3, CLI_OPT_TITLE = -4 };

/* The next of argv[*i..argc) against the tables (searched in order, the
 * first spelling found wins): an option's id (its value in *val, from
 * "--x=v" or the next argument), CLI_OPT_ARG for a word that is no option
 * (in *val), CLI_OPT_END at the end or past "--", CLI_OPT_BAD when the
 * usage line (with the nearest spelling) has been printed. */
int cli_opt_next(const struct cli_opt *const *tabs, const char *cmd, int argc, char **argv,
                 int *i, const char **val);
/* The help lines of the tables (an option an earlier table spells too is
 * left out: it is not this command's). */
void cli_opt_help(FILE *out, const struct cli_opt *const *tabs);
/* The candidate nearest to a misspelt word (a couple of edits, or a word
 * it begins), or NULL. */
const char *cli_nearest(const char *word, const char *const *cands, size_t n);

struct cli_cmd {
  const char *name;
  const char *aliases; /* comma-separated: "rm,uninstall,un", or NULL */
  int (*run)(int argc, char **argv);
  const char *summary;
  const char *help;                   /* usage and what it does */
  const struct cli_opt *const *opts;  /* its flags, for the help; NULL: none */
  bool passes_args;                   /* words after the first go to a child
                                       * (run, exec, dlx): only a first -h is
                                       * nub's */
};

extern const struct cli_cmd cli_cmds[];
/* The command called name or one of its aliases, or NULL. */
const struct cli_cmd *cli_find_cmd(const char *name);
/* The command nearest to a misspelt one, or NULL. */
const char *cli_nearest_cmd(const char *word);
/* `nub --help`: every command, a line each. */
void cli_usage_page(FILE *out);
/* Print a command's help page (usage, then its flags). */
void cli_cmd_help(FILE *out, const struct cli_cmd *c);

int cmd_install(int argc, char **argv);
int cmd_ci(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_add(int argc, char **argv);
int cmd_remove(int argc, char **argv);
int cmd_update(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_why(int argc, char **argv);
int cmd_outdated(int argc, char **argv);
int cmd_diag(int argc, char **argv);
extern const char cli_diag_help[];
int cmd_store(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_dlx(int argc, char **argv);
int cmd_completion(int argc, char **argv);
int cmd_rebuild(int argc, char **argv);
int cmd_approve_builds(int argc, char **argv);
int cmd_patch(int argc, char **argv);
int cmd_patch_commit(int argc, char **argv);
int cmd_link(int argc, char **argv);
int cmd_unlink(int argc, char **argv);
int cmd_licenses(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_init(int argc, char **argv);
/* `nub <script>`: run the package.json script `script` (argv[0] is it). */
int cli_run_named(int argc, char **argv, const char *script);
/* Whether the nearest package.json has a script of that name. */
bool cli_has_script(const char *name);

extern const char cli_install_help[];
extern const char cli_ci_help[];
extern const char cli_rebuild_help[];
extern const char cli_approve_help[];
extern const char cli_patch_help[];
extern const char cli_patch_commit_help[];
extern const char cli_remove_help[];
extern const char cli_update_help[];
extern const struct cli_opt *const cli_install_tabs[];
extern const struct cli_opt *const cli_add_tabs[];
extern const struct cli_opt *const cli_update_tabs[];
extern const struct cli_opt *const cli_approve_tabs[];
extern const struct cli_opt *const cli_patch_tabs[];
extern const struct cli_opt *const cli_patch_commit_tabs[];
extern const char cli_config_help[];
extern const char cli_run_help[];
extern const char cli_add_help[];
extern const char cli_ls_help[];
extern const struct cli_opt *const cli_ls_tabs[];
extern const struct cli_opt *const cli_why_tabs[];
extern const struct cli_opt *const cli_outdated_tabs[];
extern const struct cli_opt *const cli_run_tabs[];
extern const char cli_outdated_help[];
extern const char cli_store_help[];
extern const char cli_dlx_help[];
extern const char cli_link_help[];
extern const char cli_unlink_help[];
extern const char cli_licenses_help[];
extern const char cli_exec_help[];
extern const char cli_init_help[];
extern const struct cli_opt *const cli_init_tabs[];

/* Print "nub: <msg>" (and ERR_NUB_<code>) on stderr; return the exit status. */
int cli_fail(const struct nub_err *err);
/* Usage error: print the message and a hint, return 2. */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
