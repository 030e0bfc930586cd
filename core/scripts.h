/* scripts.h - lifecycle scripts. The project's own preinstall, install,
 * postinstall and prepare run (unless --ignore-scripts). A dependency's
 * install scripts run only when package.json trusts it by name
 * ("trustedDependencies", pnpm's "onlyBuiltDependencies" or "allowBuilds");
 * the others are listed once, with how to allow them. */
#ifndef NUB_SCRIPTS_H
#define NUB_SCRIPTS_H

#include "err.h"

/* Run one script with `sh -c` in pkg_dir, PATH extended with the .bin
 * directories from pkg_dir up to the project. Output goes to the terminal.
 * -NUB_ESCRIPT with the exit status in the message when it fails. */
int nub_script_run(const char *proj_dir, const char *pkg_dir, const char *pkg_name,
                   const char *pkg_version, const char *event, const char *cmd,
                   struct nub_err *err);

#endif
