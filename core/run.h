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

#endif
