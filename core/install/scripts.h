/* scripts.h - running package.json scripts: lifecycle scripts during an
 * install (the project's own preinstall, install, postinstall and prepare
 * unless --ignore-scripts; a dependency's only when package.json trusts it
 * by name: "trustedDependencies", pnpm's "onlyBuiltDependencies" or
 * "allowBuilds") and `nub run`. One environment, npm's: PATH with every
 * node_modules/.bin from the package's directory up, npm_lifecycle_event,
 * npm_lifecycle_script, npm_package_name/version/json, npm_command,
 * npm_execpath (this nub), npm_config_user_agent naming nub, INIT_CWD.
 * Registry credentials in the environment never reach a script. */
#ifndef NUB_SCRIPTS_H
#define NUB_SCRIPTS_H

#include "err.h"

struct nub_script {
  const char *pkg_dir;       /* where it runs */
  const char *top_dir;       /* .bin directories on PATH stop here; NULL: at / */
  const char *pkg_name, *pkg_version;
  const char *package_json;  /* its path (npm_package_json), or NULL */
  const char *event, *cmd;   /* "postinstall", "node build.js" */
  const char *init_cwd;      /* where nub was started; NULL: top_dir or pkg_dir */
  const char *command;       /* npm_command: "install", "run-script", "exec" */
};

/* s's environment, NULL-terminated (free with nub_script_env_free). */
char **nub_script_env(const struct nub_script *s);
void nub_script_env_free(char **env);

/* Run one lifecycle script with `sh -c` in pkg_dir, PATH extended with the
 * .bin directories from pkg_dir up to the project. Output goes to the
 * terminal. -NUB_ESCRIPT with the exit status in the message when it fails. */
int nub_script_run(const char *proj_dir, const char *pkg_dir, const char *pkg_name,
                   const char *pkg_version, const char *event, const char *cmd,
                   struct nub_err *err);

#endif
