/* scripts.c - running one lifecycle script. */
#include "scripts.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "config.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "version.h"

extern char **environ;

/* PATH: every node_modules/.bin from the package up to top (or to /). */
static char *script_path(const char *top, const char *pkg_dir)
{
  struct nub_buf b = NUB_BUF_INIT;
  char *d = nub_strdup(pkg_dir);
  size_t tlen = top ? strlen(top) : 0;
  const char *old = nub_plat_getenv("PATH");

  for (;;) {
    nub_buf_addf(&b, "%s/node_modules/.bin:", d[0] ? d : "");
    if (top && strlen(d) <= tlen)
      break;
    {
      char *s = strrchr(d, '/');
      if (!s)
        break;
      *s = '\0';
      if (s == d && !top) { /* the root's own */
        nub_buf_adds(&b, "/node_modules/.bin:");
        break;
      }
    }
  }
  nub_buf_adds(&b, old ? old : "/usr/local/bin:/usr/bin:/bin");
  nub_free(d);
  return nub_buf_take(&b);
}

/* What nub sets, and so drops from the inherited environment. */
static bool replaced(const char *e)
{
  static const char *const ours[] = {"PATH=", "npm_lifecycle_", "npm_package_", "INIT_CWD=",
                                     "npm_config_user_agent=", "npm_execpath=",
                                     "npm_command=", NULL};
  for (int i = 0; ours[i]; i++)
    if (!strncmp(e, ours[i], strlen(ours[i])))
      return true;
  /* registry credentials never reach scripts */
  return nub_config_env_is_secret(e);
}

char **nub_script_env(const struct nub_script *s)
{
  size_t n = 0, k = 0;
  char **env, *path, *self = nub_plat_self_exe();

  for (char **e = environ; *e; e++)
    n++;
  env = nub_calloc(n + 16, sizeof(char *));
  for (char **e = environ; *e; e++)
    if (!replaced(*e))
      env[k++] = nub_strdup(*e);
  path = script_path(s->top_dir, s->pkg_dir);
  env[k++] = nub_asprintf("PATH=%s", path);
  nub_free(path);
  env[k++] = nub_asprintf("npm_lifecycle_event=%s", s->event);
  env[k++] = nub_asprintf("npm_lifecycle_script=%s", s->cmd);
  env[k++] = nub_asprintf("npm_package_name=%s", s->pkg_name ? s->pkg_name : "");
  env[k++] = nub_asprintf("npm_package_version=%s", s->pkg_version ? s->pkg_version : "");
  if (s->package_json)
    env[k++] = nub_asprintf("npm_package_json=%s", s->package_json);
  env[k++] = nub_asprintf("INIT_CWD=%s", s->init_cwd ? s->init_cwd
                                         : s->top_dir ? s->top_dir : s->pkg_dir);
  env[k++] = nub_asprintf("npm_config_user_agent=nub/%s", NUB_VERSION);
  if (s->command)
    env[k++] = nub_asprintf("npm_command=%s", s->command);
  if (self)
    env[k++] = nub_asprintf("npm_execpath=%s", self);
  nub_free(self);
  env[k] = NULL;
  return env;
}

void nub_script_env_free(char **env)
{
  for (size_t i = 0; env && env[i]; i++)
    nub_free(env[i]);
  nub_free(env);
}

int nub_script_run(const char *proj_dir, const char *pkg_dir, const char *pkg_name,
                   const char *pkg_version, const char *event, const char *cmd,
                   struct nub_err *err)
{
  const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
  struct nub_script s = {pkg_dir, proj_dir, pkg_name, pkg_version, NULL, event, cmd,
                         proj_dir, "install"};
  char **env = nub_script_env(&s);
  int rc = nub_plat_spawn_wait(argv, pkg_dir, (const char *const *)env);

  nub_script_env_free(env);
  if (rc < 0)
    return nub_err_set(err, -NUB_ESCRIPT, "cannot run the %s script of %s: %s", event,
                       pkg_name ? pkg_name : pkg_dir, nub_strerror(rc));
  if (rc != 0)
    return nub_err_set(err, -NUB_ESCRIPT, "the %s script of %s@%s failed with exit code %d: %s",
                       event, pkg_name ? pkg_name : "(project)", pkg_version ? pkg_version : "",
                       rc, cmd);
  return 0;
}
