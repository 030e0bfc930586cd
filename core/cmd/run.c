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

/* ---- several projects ------------------------------------------------------ */

#include <pthread.h>

#include "pool.h"
#include "workspace.h"

struct many {
  const struct nub_run_many_opts *o;
  size_t *todo; /* projects of the level being run */
  int *status;
  int *rcs;
  struct nub_err *errs;
  pthread_mutex_t out_lock;
  bool stop;
};

static const struct nub_manifest *project_man(const struct nub_run_many_opts *o, size_t i)
{
  return i ? &o->ws->pkgs[i - 1].man : o->root_man;
}

static char *project_dir(const struct nub_run_many_opts *o, size_t i)
{
  return i ? nub_asprintf("%s/%s", o->root, o->ws->pkgs[i - 1].dir) : nub_strdup(o->root);
}

/* One script of project i, its output line by line to on_line. */
static int run_captured(struct many *m, size_t i, const char *event, const char *cmd,
                        int *status, struct nub_err *err)
{
  const struct nub_run_many_opts *o = m->o;
  const struct nub_manifest *man = project_man(o, i);
  char *dir = project_dir(o, i), *pj = nub_asprintf("%s/package.json", dir);
  const char *who = i ? o->ws->pkgs[i - 1].dir : ".";
  const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
  struct nub_script s = {dir, NULL, man->name, man->version, pj, event, cmd, o->init_cwd,
                         "run-script"};
  char **env = nub_script_env(&s), buf[8192];
  struct nub_buf line = NUB_BUF_INIT;
  int pid = -1, fd = -1, rc;
  long got;

  rc = nub_plat_spawn_pipe(argv, dir, (const char *const *)env, &pid, &fd);
  nub_script_env_free(env);
  if (rc < 0) {
    rc = nub_err_set(err, rc, "cannot run the %s script of %s: %s", event, who,
                     nub_strerror(rc));
    goto out;
  }
  {
    char *head = nub_asprintf("$ %s", cmd);
    pthread_mutex_lock(&m->out_lock);
    o->on_line(o->ud, who, head, strlen(head));
    pthread_mutex_unlock(&m->out_lock);
    nub_free(head);
  }
  while ((got = nub_plat_read(fd, buf, sizeof(buf))) > 0 || got == -EINTR) {
    for (long k = 0; k < got; k++) {
      if (buf[k] != '\n') {
        nub_buf_addc(&line, buf[k]);
        continue;
      }
      pthread_mutex_lock(&m->out_lock);
      o->on_line(o->ud, who, nub_buf_str(&line), line.len);
      pthread_mutex_unlock(&m->out_lock);
      nub_buf_reset(&line);
    }
  }
  if (line.len) {
    pthread_mutex_lock(&m->out_lock);
    o->on_line(o->ud, who, nub_buf_str(&line), line.len);
    pthread_mutex_unlock(&m->out_lock);
  }
  nub_plat_close(fd);
  rc = nub_plat_wait_child(pid);
  if (rc < 0) {
    rc = nub_err_set(err, rc, "cannot wait for the %s script of %s: %s", event, who,
                     nub_strerror(rc));
    goto out;
  }
  *status = rc;
  rc = 0;
out:
  nub_buf_release(&line);
  nub_free(pj);
  nub_free(dir);
  return rc;
}

static void run_project(void *ud, size_t k, int worker)
{
  struct many *m = ud;
  const struct nub_run_many_opts *o = m->o;
  size_t i = m->todo[k];
  const struct nub_manifest *man = project_man(o, i);
  char *pre_name = nub_asprintf("pre%s", o->script), *post_name = nub_asprintf("post%s", o->script);
  const char *pre = nub_depmap_get(&man->scripts, pre_name);
  const char *post = nub_depmap_get(&man->scripts, post_name);
  struct nub_buf full = NUB_BUF_INIT;
  int rc = 0;

  (void)worker;
  nub_buf_adds(&full, nub_depmap_get(&man->scripts, o->script));
  for (size_t a = 0; a < o->nargs; a++) {
    nub_buf_addc(&full, ' ');
    add_quoted(&full, o->args[a]);
  }
  if (!__atomic_load_n(&m->stop, __ATOMIC_RELAXED)) {
    if (pre)
      rc = run_captured(m, i, pre_name, pre, &m->status[k], &m->errs[k]);
    if (rc == 0 && !m->status[k])
      rc = run_captured(m, i, o->script, nub_buf_str(&full), &m->status[k], &m->errs[k]);
    if (rc == 0 && !m->status[k] && post)
      rc = run_captured(m, i, post_name, post, &m->status[k], &m->errs[k]);
  }
  m->rcs[k] = rc;
  if (rc < 0 || m->status[k])
    __atomic_store_n(&m->stop, true, __ATOMIC_RELAXED);
  nub_buf_release(&full);
  nub_free(pre_name);
  nub_free(post_name);
}

/* Whether project a depends on project b by name. */
static bool depends(const struct nub_run_many_opts *o, size_t a, size_t b)
{
  const struct nub_manifest *m = project_man(o, a);
  const char *name = project_man(o, b)->name;

  return a != b && name &&
         (nub_depmap_get(&m->deps, name) || nub_depmap_get(&m->dev, name) ||
          nub_depmap_get(&m->optional, name));
}

int nub_run_many(const struct nub_run_many_opts *o, int *status, size_t *ran,
                 struct nub_err *err)
{
  size_t n = o->ws->npkgs + 1;
  int *level = nub_calloc(n, sizeof(int)), maxlevel = 0, rc = 0;
  struct nub_pool *pool = o->concurrency > 1 ? nub_pool_new(o->concurrency - 1, "scripts")
                                             : NULL;
  struct many m;

  *status = 0;
  *ran = 0;
  memset(&m, 0, sizeof(m));
  m.o = o;
  pthread_mutex_init(&m.out_lock, NULL);
  /* levels: one more than the deepest project depended on (a cycle stops
   * growing after n rounds and runs as it stands, as pnpm does) */
  for (size_t round = 0; round < n; round++) {
    bool changed = false;
    for (size_t a = 0; a < n; a++)
      for (size_t b = 0; b < n; b++)
        if (o->selected[a] && o->selected[b] && depends(o, a, b) && level[a] <= level[b]) {
          level[a] = level[b] + 1;
          changed = true;
        }
    if (!changed)
      break;
  }
  for (size_t i = 0; i < n; i++)
    if (level[i] > maxlevel)
      maxlevel = level[i];
  for (int lv = 0; lv <= maxlevel && rc == 0 && !*status; lv++) {
    size_t k = 0;
    m.todo = nub_calloc(n, sizeof(size_t));
    for (size_t i = 0; i < n; i++)
      if (o->selected[i] && level[i] == lv &&
          nub_depmap_get(&project_man(o, i)->scripts, o->script))
        m.todo[k++] = i;
    m.status = nub_calloc(k + 1, sizeof(int));
    m.rcs = nub_calloc(k + 1, sizeof(int));
    m.errs = nub_calloc(k + 1, sizeof(struct nub_err));
    /* at most `concurrency` at once: the pool's threads and this one */
    if (k && o->concurrency <= 1)
      for (size_t j = 0; j < k; j++)
        run_project(&m, j, 0);
    else if (k)
      nub_pool_for(pool, k, run_project, &m);
    *ran += k;
    for (size_t j = 0; j < k && rc == 0 && !*status; j++) {
      if (m.rcs[j] < 0) {
        *err = m.errs[j];
        rc = m.rcs[j];
      } else if (m.status[j]) {
        *status = m.status[j];
        nub_err_set(err, -NUB_ESCRIPT, "the %s script of %s failed with exit code %d",
                    o->script, m.todo[j] ? o->ws->pkgs[m.todo[j] - 1].dir : ".", m.status[j]);
      }
    }
    nub_free(m.todo);
    nub_free(m.status);
    nub_free(m.rcs);
    nub_free(m.errs);
  }
  if (pool)
    nub_pool_free(pool);
  pthread_mutex_destroy(&m.out_lock);
  nub_free(level);
  return rc;
}
