/* scripts.c - running one lifecycle script. */
#include "scripts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "version.h"

extern char **environ;

/* PATH: every node_modules/.bin from the package up to the project. */
static char *script_path(const char *proj_dir, const char *pkg_dir)
{
  struct nub_buf b = NUB_BUF_INIT;
  char *d = nub_strdup(pkg_dir);
  size_t plen = strlen(proj_dir);
  const char *old = nub_plat_getenv("PATH");

  for (;;) {
    nub_buf_addf(&b, "%s/node_modules/.bin:", d);
    if (strlen(d) <= plen)
      break;
    {
      char *s = strrchr(d, '/');
      if (!s || s == d)
        break;
      *s = '\0';
    }
  }
  nub_buf_adds(&b, old ? old : "/usr/local/bin:/usr/bin:/bin");
  nub_free(d);
  return nub_buf_take(&b);
}

int nub_script_run(const char *proj_dir, const char *pkg_dir, const char *pkg_name,
                   const char *pkg_version, const char *event, const char *cmd,
                   struct nub_err *err)
{
  const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
  size_t n = 0, cap = 16;
  const char **envp;
  char *vars[8];
  int nvars = 0, rc;

  for (char **e = environ; *e; e++)
    n++;
  envp = nub_calloc(n + 16, sizeof(char *));
  n = 0;
  vars[nvars++] = nub_asprintf("PATH=%s", "");
  nub_free(vars[0]);
  {
    char *p = script_path(proj_dir, pkg_dir);
    vars[0] = nub_asprintf("PATH=%s", p);
    nub_free(p);
  }
  vars[nvars++] = nub_asprintf("npm_lifecycle_event=%s", event);
  vars[nvars++] = nub_asprintf("npm_package_name=%s", pkg_name ? pkg_name : "");
  vars[nvars++] = nub_asprintf("npm_package_version=%s", pkg_version ? pkg_version : "");
  vars[nvars++] = nub_asprintf("INIT_CWD=%s", proj_dir);
  vars[nvars++] = nub_asprintf("npm_config_user_agent=nub/%s", NUB_VERSION);
  (void)cap;
  for (char **e = environ; *e; e++) {
    /* registry credentials never reach scripts */
    if (!strncmp(*e, "PATH=", 5) || !strncmp(*e, "npm_lifecycle_event=", 20) ||
        !strncmp(*e, "npm_package_", 12) || !strncmp(*e, "INIT_CWD=", 9) ||
        !strncasecmp(*e, "npm_config__auth", 16) || !strncasecmp(*e, "NPM_TOKEN=", 10))
      continue;
    envp[n++] = *e;
  }
  for (int i = 0; i < nvars; i++)
    envp[n++] = vars[i];
  envp[n] = NULL;
  rc = nub_plat_spawn_wait(argv, pkg_dir, envp);
  for (int i = 0; i < nvars; i++)
    nub_free(vars[i]);
  nub_free(envp);
  if (rc < 0)
    return nub_err_set(err, -NUB_ESCRIPT, "cannot run the %s script of %s: %s", event,
                       pkg_name ? pkg_name : pkg_dir, nub_strerror(rc));
  if (rc != 0)
    return nub_err_set(err, -NUB_ESCRIPT, "the %s script of %s@%s failed with exit code %d: %s",
                       event, pkg_name ? pkg_name : "(project)", pkg_version ? pkg_version : "",
                       rc, cmd);
  return 0;
}
