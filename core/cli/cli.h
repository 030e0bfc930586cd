/* cli.h - the command table of the `nub` executable. Each command parses its
 * own flags, returns an exit status, and prints errors through cli_fail. */
#ifndef NUB_CLI_H
#define NUB_CLI_H

#include <stdbool.h>

#include "err.h"

struct cli_cmd {
  const char *name;
  const char *alias;
  int (*run)(int argc, char **argv);
  const char *summary;
  const char *help;
};

extern const struct cli_cmd cli_cmds[];

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
int cmd_link(int argc, char **argv);
int cmd_exec(int argc, char **argv);
/* `nub <script>`: run the package.json script `script` (argv[0] is it). */
int cli_run_named(int argc, char **argv, const char *script);
/* Whether the nearest package.json has a script of that name. */
bool cli_has_script(const char *name);

extern const char cli_install_help[];
extern const char cli_config_help[];
extern const char cli_run_help[];
extern const char cli_add_help[];
extern const char cli_ls_help[];
extern const char cli_outdated_help[];
extern const char cli_store_help[];
extern const char cli_dlx_help[];
extern const char cli_link_help[];
extern const char cli_exec_help[];

/* Print "nub: <msg>" (and ERR_NUB_<code>) on stderr; return the exit status. */
int cli_fail(const struct nub_err *err);
/* Usage error: print the message and a hint, return 2. */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
