/* prepare.c - git dependencies prepared before they are packed (prepare.h). */
#include "prepare.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "proc.h"

extern char **environ;

/* The resolved identities being prepared by the installs above this one. */
#define PREPARING_ENV "NUB_GIT_PREPARING"

bool nub_prepare_wanted(const char *dir, enum nub_prepare_rule rule)
{
  static const char *const scripts[] = {"prepare", "build", "prepack", "preinstall",
                                        "install", "postinstall"};
  struct nub_manifest m;
  struct nub_err err;
  bool want = false;

  if (nub_manifest_load(&m, dir, &err) < 0)
    return false; /* packing reports what is wrong with it */
  if (rule == NUB_PREPARE_YARN1) {
    want = nub_depmap_get(&m.scripts, "prepare") != NULL;
    nub_manifest_release(&m);
    return want;
  }
  for (size_t i = 0; i < sizeof(scripts) / sizeof(*scripts) && !want; i++)
    want = nub_depmap_get(&m.scripts, scripts[i]) != NULL;
  /* npm also prepares every workspace project */
  want = want || m.has_workspaces;
  nub_manifest_release(&m);
  return want;
}

static bool being_prepared(const char *list, const char *resolved)
{
  size_t n = strlen(resolved);

  for (const char *p = list; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len == n && !memcmp(p, resolved, n))
      return true;
    p = nl ? nl + 1 : p + len;
  }
  return false;
}

/* The lockfiles a nested install may write, to take away what it added. */
static const char *const lockfiles[] = {"nub.lock", "package-lock.json", "bun.lock",
                                        "yarn.lock", "pnpm-lock.yaml"};
#define NLOCKFILES (sizeof(lockfiles) / sizeof(*lockfiles))

static bool exists_in(const char *dir, const char *name)
{
  struct nub_plat_stat st;
  char *p = nub_asprintf("%s/%s", dir, name);
  bool ok = nub_plat_stat_at(NUB_PLAT_CWD, p, &st) == 0;

  nub_free(p);
  return ok;
}

int nub_prepare_git(const char *dir, const char *what, const char *resolved,
                    const char *store_root, bool offline, struct nub_err *err)
{
  const char *seen = nub_plat_getenv(PREPARING_ENV);
  char *self = nub_plat_self_exe();
  const char *argv[6];
  bool had[NLOCKFILES];
  struct nub_buf out = NUB_BUF_INIT;
  char **env, line[512];
  size_t n = 0, k = 0;
  int argc = 0, rc;

  if (being_prepared(seen, resolved)) {
    nub_free(self);
    return 0;
  }
  if (!self)
    return nub_err_set(err, -NUB_ESCRIPT, "%s: cannot prepare it: nub cannot find its own binary",
                       what);
  for (size_t i = 0; i < NLOCKFILES; i++)
    had[i] = exists_in(dir, lockfiles[i]);
  while (environ[n])
    n++;
  env = nub_calloc(n + 3, sizeof(*env));
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], PREPARING_ENV "=", sizeof(PREPARING_ENV)) &&
        strncmp(environ[i], "NUB_STORE_DIR=", 14) && strncmp(environ[i], "NODE_ENV=", 9))
      env[k++] = nub_strdup(environ[i]);
  /* the same store, so that what it fetches is there for the next install */
  env[k++] = nub_asprintf("NUB_STORE_DIR=%s", store_root);
  env[k++] = nub_asprintf(PREPARING_ENV "=%s%s%s", seen ? seen : "", seen && *seen ? "\n" : "",
                          resolved);
  env[k] = NULL;
  argv[argc++] = self;
  argv[argc++] = "install";
  argv[argc++] = "--silent";
  if (offline)
    argv[argc++] = "--offline";
  argv[argc] = NULL;

  rc = nub_proc_capture(argv, dir, (const char *const *)env, &out);
  for (size_t i = 0; i < k; i++)
    nub_free(env[i]);
  nub_free(env);
  nub_free(self);
  if (rc != 0) {
    nub_proc_reason(&out, line, sizeof(line));
    nub_buf_release(&out);
    if (rc < 0)
      return nub_err_set(err, -NUB_ESCRIPT, "%s: cannot start nub to prepare it: %s", what,
                         nub_strerror(rc));
    return nub_err_set(err, -NUB_ESCRIPT,
                       "%s: preparing the git dependency (installing its dependencies and "
                       "running its prepare script) failed with exit code %d%s%s",
                       what, rc, line[0] ? ": " : "", line);
  }
  nub_buf_release(&out);
  for (size_t i = 0; i < NLOCKFILES; i++)
    if (!had[i]) {
      char *p = nub_asprintf("%s/%s", dir, lockfiles[i]);
      nub_plat_unlink_at(NUB_PLAT_CWD, p, false);
      nub_free(p);
    }
  return 0;
}
