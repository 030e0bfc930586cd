/* git.c - git dependencies through the system's git; see git.h. */
#include "git.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "url.h"
#include "proc.h"
#include "semver.h"

extern char **environ;

static bool is_hex(const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!isxdigit((unsigned char)s[i]))
      return false;
  return true;
}

/* ---- running git ----------------------------------------------------------- */

static char *find_git(void)
{
  const char *path = nub_plat_getenv("PATH");
  char *copy, *save = NULL, *found = NULL;

  if (!path || !*path)
    path = "/usr/local/bin:/usr/bin:/bin";
  copy = nub_strdup(path);
  for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
    struct nub_plat_stat st;
    char *p = nub_asprintf("%s/git", *d ? d : ".");
    if (nub_plat_stat_follow_at(NUB_PLAT_CWD, p, &st) == 0 && st.type == NUB_FT_FILE &&
        (st.mode & 0111))
      found = p;
    else
      nub_free(p);
  }
  nub_free(copy);
  return found;
}

/* git's environment: the user's (keys, credential helpers, proxies), never
 * a prompt for a password (it would hang the install). */
static char **git_env(void)
{
  size_t n = 0, o = 0;
  char **env;

  while (environ[n])
    n++;
  env = nub_calloc(n + 3, sizeof(*env));
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "GIT_TERMINAL_PROMPT=", 20) && strncmp(environ[i], "GIT_DIR=", 8))
      env[o++] = environ[i];
  env[o++] = "GIT_TERMINAL_PROMPT=0";
  env[o] = NULL;
  return env;
}

/* Run git with args (after the safety options) in cwd; its output in *out.
 * Returns git's exit status, or -errno when it could not be started. */
static int run_git(const char *const *args, const char *cwd, struct nub_buf *out)
{
  const char *argv[24];
  char *git = find_git();
  char **env;
  int n = 0, rc;

  if (!git)
    return -ENOENT;
  argv[n++] = git;
  /* no transport that runs a command, whatever the URL says */
  argv[n++] = "-c";
  argv[n++] = "protocol.ext.allow=never";
  argv[n++] = "-c";
  argv[n++] = "advice.detachedHead=false";
  for (int i = 0; args[i] && n < 23; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  env = git_env();
  rc = nub_proc_capture(argv, cwd, (const char *const *)env, out);
  nub_free(env);
  nub_free(git);
  return rc;
}

static int git_failed(struct nub_err *err, int rc, const struct nub_buf *b, const char *what,
                      const char *url, const char *doing)
{
  char why[400];

  if (rc == -ENOENT)
    return nub_err_set(err, -NUB_ESPEC, "%s is a git dependency (%s), and git is not "
                       "installed; install git and run the install again", what, url);
  nub_proc_reason(b, why, sizeof(why));
  return nub_err_set(err, -NUB_ENETWORK, "%s: git %s %s failed: %s", what, doing, url,
                     why[0] ? why : "no output");
}

int nub_git_resolve(const struct nub_gitspec *g, const char *what, char commit[41],
                    struct nub_err *err)
{
  const char *args[] = {"ls-remote", "--", g->url, NULL};
  struct nub_buf out = NUB_BUF_INIT;
  struct nub_range *range = NULL;
  struct nub_version best;
  bool have_best = false;
  char want[512] = "";
  int rc;

  commit[0] = '\0';
  if (g->ref && strlen(g->ref) == 40 && is_hex(g->ref, 40)) {
    memcpy(commit, g->ref, 41);
    for (int i = 0; i < 40; i++)
      commit[i] = (char)tolower((unsigned char)commit[i]);
    return 0;
  }
  if (g->semver && nub_range_parse_loose(&range, g->semver) < 0)
    return nub_err_set(err, -NUB_ESPEC, "%s: '#semver:%s' is not a range", what, g->semver);
  rc = run_git(args, NULL, &out);
  if (rc != 0) {
    rc = git_failed(err, rc, &out, what, g->url, "ls-remote");
    goto done;
  }
  memset(&best, 0, sizeof(best));
  for (char *p = out.data; p && p < out.data + out.len;) {
    char *nl = memchr(p, '\n', (size_t)(out.data + out.len - p)), *tab, *name;
    size_t len = nl ? (size_t)(nl - p) : (size_t)(out.data + out.len - p);
    if (len > 41 && p[40] == '\t' && is_hex(p, 40)) {
      tab = p + 40;
      name = nub_strndup(tab + 1, len - 41);
      if (range && !strncmp(name, "refs/tags/", 10)) {
        size_t nn = strlen(name);
        bool peeled = nn > 3 && !strcmp(name + nn - 3, "^{}");
        struct nub_version v;
        if (peeled)
          name[nn - 3] = '\0';
        memset(&v, 0, sizeof(v));
        if (nub_version_parse_loose(&v, name + 10) == 0) {
          /* the range parsed once, the tag's version as read */
          if (nub_range_satisfies(range, &v, false) &&
              (!have_best || nub_version_cmp(&v, &best) > 0 ||
               (peeled && nub_version_cmp(&v, &best) == 0))) {
            if (have_best)
              nub_version_release(&best);
            best = v;
            have_best = true;
            memcpy(commit, p, 40); /* an annotated tag's commit comes peeled, after it */
            commit[40] = '\0';
          } else {
            nub_version_release(&v);
          }
        }
      } else if (!range) {
        bool hit;
        if (!g->ref)
          hit = !strcmp(name, "HEAD");
        else
          hit = !strcmp(name, g->ref) ||
                (!strncmp(name, "refs/heads/", 11) && !strcmp(name + 11, g->ref)) ||
                (!strncmp(name, "refs/tags/", 10) && !strncmp(name + 10, g->ref, strlen(g->ref)) &&
                 (!name[10 + strlen(g->ref)] || !strcmp(name + 10 + strlen(g->ref), "^{}")));
        if (hit && (!commit[0] || strstr(name, "^{}"))) {
          memcpy(commit, p, 40);
          commit[40] = '\0';
        }
      }
      nub_free(name);
    }
    p += len + 1;
  }
  if (have_best)
    nub_version_release(&best);
  if (!commit[0]) {
    snprintf(want, sizeof(want), "%s%s", g->semver ? "a tag in semver:" : "ref ",
             g->semver ? g->semver : g->ref ? g->ref : "HEAD");
    rc = nub_err_set(err, -NUB_ENOTFOUND, "%s: %s has no %s", what, g->url, want);
  }
done:
  nub_range_free(range);
  nub_buf_release(&out);
  return rc;
}

int nub_git_checkout_short(const char *url, const char *ref, const char *dir, const char *what,
                           char commit[41], struct nub_err *err)
{
  const char *clone[] = {"clone", "--quiet", "--no-checkout", "--", url, dir, NULL};
  char spec[64];
  const char *parse[] = {"-C", dir, "rev-parse", "--verify", "--quiet", spec, NULL};
  struct nub_buf out = NUB_BUF_INIT;
  int rc;

  snprintf(spec, sizeof(spec), "%s^{commit}", ref);
  rc = run_git(clone, NULL, &out);
  if (rc != 0) {
    rc = git_failed(err, rc, &out, what, url, "clone");
    goto done;
  }
  nub_buf_reset(&out);
  rc = run_git(parse, NULL, &out);
  if (rc != 0 || out.len < 40 || !is_hex(out.data, 40)) {
    rc = nub_err_set(err, -NUB_ENOTFOUND, "%s: %s has no commit %s", what, url, ref);
    goto done;
  }
  memcpy(commit, out.data, 40);
  commit[40] = '\0';
  {
    const char *co[] = {"-C", dir, "checkout", "--quiet", commit, "--", NULL};
    nub_buf_reset(&out);
    rc = run_git(co, NULL, &out);
    if (rc != 0)
      rc = nub_err_set(err, -NUB_ENOTFOUND, "%s: %s has no commit %s (git checkout failed)",
                       what, url, commit);
  }
done:
  nub_buf_release(&out);
  return rc;
}

int nub_git_checkout(const char *url, const char *commit, const char *dir, const char *what,
                     struct nub_err *err)
{
  const char *clone[] = {"clone", "--quiet", "--no-checkout", "--", url, dir, NULL};
  const char *co[] = {"-C", dir, "checkout", "--quiet", commit, "--", NULL};
  struct nub_buf out = NUB_BUF_INIT;
  int rc = run_git(clone, NULL, &out);

  if (rc != 0) {
    rc = git_failed(err, rc, &out, what, url, "clone");
  } else {
    nub_buf_reset(&out);
    rc = run_git(co, NULL, &out);
    if (rc != 0)
      rc = nub_err_set(err, -NUB_ENOTFOUND, "%s: %s has no commit %s (%s)", what, url, commit,
                       out.len ? "git checkout failed" : "no output");
  }
  nub_buf_release(&out);
  return rc;
}

int nub_git_checkout_new(const char *tmp_root, const char *url, const char *ref,
                         const char *what, char commit[41], char **dir, struct nub_err *err)
{
  static unsigned seq;
  int rc;

  *dir = nub_asprintf("%s/%d-git-%u", tmp_root, nub_plat_pid(),
                      __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
  nub_plat_rm_rf(*dir);
  if (strlen(ref) == 40 && is_hex(ref, 40)) {
    if (commit != ref)
      memcpy(commit, ref, 41);
    rc = nub_git_checkout(url, ref, *dir, what, err);
  } else {
    rc = nub_git_checkout_short(url, ref, *dir, what, commit, err);
  }
  if (rc < 0) {
    nub_plat_rm_rf(*dir);
    nub_free(*dir);
    *dir = NULL;
  }
  return rc;
}
