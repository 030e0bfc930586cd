/* run.h - `nub run <script>` and `nub exec <bin>`: a package.json script or a
 * project's .bin command, with npm's environment (scripts.h). Nothing else
 * runs: no config, lockfile, registry or store work, so the cost is a
 * package.json read and the shell's start.
 *
 * A script runs in the directory of the nearest package.json at or above
 * the working directory (npm's prefix), with pre<name> and post<name>
 * around it when they exist; arguments are appended to the script alone,
 * quoted for sh. Without pre/post scripts nub becomes the shell (exec), so
 * the exit status and signals are the script's own. */
#ifndef NUB_RUN_H
#define NUB_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "manifest.h"

/* The project a command run in `cwd` belongs to: the nearest directory with
 * a package.json, and that package.json. -NUB_ENOMANIFEST when there is none. */
int nub_run_project(const char *cwd, char **dir, struct nub_manifest *man, struct nub_err *err);

struct nub_run_opts {
  const char *dir;         /* the project (nub_run_project) */
  const char *init_cwd;    /* where nub was started */
  const struct nub_manifest *man;
  const char *script;
  char *const *args;       /* appended to the script, quoted */
  size_t nargs;
  bool no_exec;            /* always wait for the script (several projects) */
};

/* Run the script; *status gets its exit status (0..255, 128+signal).
 * -NUB_ESCRIPT when there is no such script. */
int nub_run_script(const struct nub_run_opts *o, int *status, struct nub_err *err);

/* Run a command of the project's node_modules/.bin (any directory up from
 * the project), or from PATH, with the scripts' environment: replaces this
 * process, returns only on failure. */
int nub_run_exec(const char *dir, const char *init_cwd, const struct nub_manifest *man,
                 char *const *argv, struct nub_err *err);

struct nub_workspace;

/* `nub run -r` / `--filter`: the script in every selected project of a
 * workspace that has it, a project after the projects it depends on, up to
 * `concurrency` at once; each one's output (stdout and stderr, line by
 * line) goes to on_line with the project's directory. After a failure no
 * new project starts; *status is the first failure's exit status. */
struct nub_run_many_opts {
  const char *root, *init_cwd;
  const struct nub_workspace *ws;
  const struct nub_manifest *root_man;
  const bool *selected; /* project 0 the root, i the member i - 1 */
  const char *script;
  char *const *args;
  size_t nargs;
  int concurrency;
  void (*on_line)(void *ud, const char *project, const char *line, size_t len);
  void *ud;
};
/* *ran: how many projects had the script. */
int nub_run_many(const struct nub_run_many_opts *o, int *status, size_t *ran,
                 struct nub_err *err);

#endif
