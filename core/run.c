/* run.c - `nub run` and `nub exec` (run.h). */
#include "run.h"

#include <errno.h>
#include <string.h>

#include "buf.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "scripts.h"

int nub_run_project(const char *cwd, char **dir, struct nub_manifest *man, struct nub_err *err)
{
  char *d = nub_strdup(cwd);

  for (;;) {
    char *pj = nub_asprintf("%s/package.json", d[0] ? d : "");
    struct nub_plat_stat st;
    bool there = nub_plat_stat_follow_at(NUB_PLAT_CWD, pj, &st) == 0 && st.type == NUB_FT_FILE;
    char *slash;
    nub_free(pj);
    if (there) {
      int rc = nub_manifest_load(man, d[0] ? d : "/", err);
      if (rc < 0) {
        nub_free(d);
        return rc;
      }
      *dir = d;
      return 0;
    }
    slash = strrchr(d, '/');
    if (!slash || !d[0])
      break;
    *slash = '\0';
  }
  nub_free(d);
  memset(man, 0, sizeof(*man));
  return nub_err_set(err, -NUB_ENOMANIFEST, "no package.json in %s or any directory above it",
                     cwd);
}

/* One argument for sh: as it is when it is plain, else in single quotes. */
static void add_quoted(struct nub_buf *b, const char *a)
{
  bool plain = *a != '\0';

  for (const char *p = a; *p && plain; p++)
    plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%",
                   *p) != NULL;
  if (plain) {
    nub_buf_adds(b, a);
    return;
  }
  nub_buf_addc(b, '\'');
  for (const char *p = a; *p; p++) {
    if (*p == '\'')
      nub_buf_adds(b, "'\\''");
    else
      nub_buf_addc(b, *p);
  }
  nub_buf_addc(b, '\'');
}

static int run_one(const struct nub_run_opts *o, const char *event, const char *cmd,
                   bool last, int *status, struct nub_err *err)
{
  const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
  char *pj = nub_asprintf("%s/package.json", o->dir);
  struct nub_script s = {o->dir, NULL, o->man->name, o->man->version, pj, event, cmd,
                         o->init_cwd, "run-script"};
  char **env = nub_script_env(&s);
  int rc;

  if (last && !o->no_exec) {
    rc = nub_plat_exec(argv, o->dir, (const char *const *)env);
    /* only on failure */
  } else {
    rc = nub_plat_spawn_wait(argv, o->dir, (const char *const *)env);
  }
  nub_script_env_free(env);
  nub_free(pj);
  if (rc < 0)
    return nub_err_set(err, rc, "cannot run the %s script: %s", event, nub_strerror(rc));
  *status = rc;
  return 0;
}

int nub_run_script(const struct nub_run_opts *o, int *status, struct nub_err *err)
{
  const char *cmd = nub_depmap_get(&o->man->scripts, o->script);
  char *pre_name = nub_asprintf("pre%s", o->script), *post_name = nub_asprintf("post%s", o->script);
  const char *pre = nub_depmap_get(&o->man->scripts, pre_name);
  const char *post = nub_depmap_get(&o->man->scripts, post_name);
  struct nub_buf full = NUB_BUF_INIT;
  int rc = 0;

  *status = 0;
  if (!cmd) {
    rc = nub_err_set(err, -NUB_ESCRIPT, "%s has no script '%s'",
                     o->man->name ? o->man->name : o->dir, o->script);
    goto out;
  }
  nub_buf_adds(&full, cmd);
  for (size_t i = 0; i < o->nargs; i++) {
    nub_buf_addc(&full, ' ');
    add_quoted(&full, o->args[i]);
  }
  if (pre) {
    rc = run_one(o, pre_name, pre, false, status, err);
    if (rc < 0 || *status)
      goto out;
  }
  rc = run_one(o, o->script, nub_buf_str(&full), !post, status, err);
  if (rc < 0 || *status)
    goto out;
  if (post)
    rc = run_one(o, post_name, post, true, status, err);
out:
  nub_buf_release(&full);
  nub_free(pre_name);
  nub_free(post_name);
  return rc;
}

int nub_run_exec(const char *dir, const char *init_cwd, const struct nub_manifest *man,
                 char *const *argv, struct nub_err *err)
{
  char *pj = nub_asprintf("%s/package.json", dir);
  struct nub_script s = {init_cwd, NULL, man->name, man->version, pj, "exec", argv[0],
                         init_cwd, "exec"};
  char **env;
  int rc;

  /* the project's .bin dirs from where nub runs up (npm exec runs in the
   * working directory, with the project's commands first) */
  s.pkg_dir = init_cwd;
  if (strncmp(init_cwd, dir, strlen(dir)))
    s.pkg_dir = dir;
  env = nub_script_env(&s);
  rc = nub_plat_exec((const char *const *)argv, init_cwd, (const char *const *)env);
  nub_script_env_free(env);
  nub_free(pj);
  return nub_err_set(err, rc == -ENOENT ? -NUB_ENOTFOUND : rc,
                     "cannot run %s: %s (not in node_modules/.bin or on PATH)", argv[0],
                     nub_strerror(rc));
}
