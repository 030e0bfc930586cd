/* engines.c - engines.node against the node on PATH (engines.h). */
#include "engines.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "proc.h"
#include "semver.h"

#include <cjson/cJSON.h>

extern char **environ;

/* The first executable "node" in PATH's directories (caller frees). */
static char *node_on_path(struct nub_plat_stat *st)
{
  const char *path = nub_plat_getenv("PATH");

  for (const char *p = path ? path : ""; *p;) {
    size_t n = strcspn(p, ":");
    char *cand = nub_asprintf("%.*s/node", (int)n, n ? p : ".");
    if (nub_plat_stat_follow_at(NUB_PLAT_CWD, cand, st) == 0 && st->type == NUB_FT_FILE &&
        (st->mode & 0111))
      return cand;
    nub_free(cand);
    p += n + (p[n] == ':');
  }
  return NULL;
}

bool nub_node_version(const char *cache_dir, char *out, size_t cap)
{
  struct nub_plat_stat st;
  char *node = node_on_path(&st), *file, *text = NULL, key[1200];
  struct nub_buf got = NUB_BUF_INIT;
  size_t len = 0;
  bool ok = false;

  if (!node)
    return false;
  snprintf(key, sizeof(key), "%s\t%llu\t%llu\t%llu\t", node, (unsigned long long)st.ino,
           (unsigned long long)st.size, (unsigned long long)st.mtime_ns);
  file = cache_dir ? nub_asprintf("%s/node-versions", cache_dir) : NULL;
  if (file && nub_plat_read_file_at(NUB_PLAT_CWD, file, 1u << 20, &text, &len) == 0) {
    for (char *l = text; l && l < text + len;) {
      char *nl = memchr(l, '\n', (size_t)(text + len - l));
      size_t kl = strlen(key);
      if (nl && (size_t)(nl - l) > kl && !strncmp(l, key, kl)) {
        snprintf(out, cap, "%.*s", (int)(nl - l - (long)kl), l + kl);
        ok = true;
        break;
      }
      l = nl ? nl + 1 : NULL;
    }
  }
  if (!ok) {
    const char *argv[] = {node, "--version", NULL};
    int rc = nub_proc_capture(argv, NULL, (const char *const *)environ, &got);
    const char *v = got.len && got.data[0] == 'v' ? got.data + 1 : NULL;
    size_t vl = v ? strcspn(v, "\r\n") : 0;
    if (rc == 0 && vl && vl < cap) {
      snprintf(out, cap, "%.*s", (int)vl, v);
      ok = true;
      if (file) { /* kept with the others, this binary's line first */
        struct nub_buf b = NUB_BUF_INIT;
        nub_buf_addf(&b, "%s%s\n", key, out);
        if (text && len < (64u << 10))
          nub_buf_add(&b, text, len);
        nub_plat_mkdir_p(cache_dir, 0755);
        nub_plat_write_file_atomic(file, b.data, b.len, 0644);
        nub_buf_release(&b);
      }
    }
  }
  nub_buf_release(&got);
  nub_free(text);
  nub_free(file);
  nub_free(node);
  return ok;
}

bool nub_engine_allows(const char *range, const char *version)
{
  if (!range || !*range)
    return true;
  return nub_semver_satisfies(range, version, true) == 1;
}

/* One wanted entry against what this machine is: NULL when it matches,
 * else why not (static text in buf). */
static const char *dep_fails(const cJSON *want, const char *engine, const char *name,
                             const char *version, char *buf, size_t cap)
{
  const cJSON *n = cJSON_GetObjectItemCaseSensitive(want, "name");
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(want, "version");

  if (!name) {
    snprintf(buf, cap, "cannot tell this machine's %s", engine);
    return buf;
  }
  if (strcmp(n->valuestring, name)) {
    snprintf(buf, cap, "wants %s %s, and this is %s", engine, n->valuestring, name);
    return buf;
  }
  if (!cJSON_IsString(v))
    return NULL;
  if (!version) {
    snprintf(buf, cap, "wants %s %s, and this %s cannot say its version", n->valuestring,
             v->valuestring, name);
    return buf;
  }
  if (nub_semver_satisfies(v->valuestring, version, false) == 1 ||
      !strcmp(v->valuestring, version))
    return NULL;
  snprintf(buf, cap, "wants %s %s, and this is %s", n->valuestring, v->valuestring, version);
  return buf;
}

static bool valid_dep(const cJSON *d)
{
  const cJSON *it;

  if (!cJSON_IsObject(d) || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(d, "name")))
    return false;
  cJSON_ArrayForEach(it, d)
  {
    if (strcmp(it->string, "name") && strcmp(it->string, "version") &&
        strcmp(it->string, "onFail"))
      return false;
    if (!cJSON_IsString(it))
      return false;
  }
  return true;
}

int nub_dev_engines_check(const char *json, const struct nub_dev_env *env,
                          void (*failed)(void *ud, const char *engine, const char *why,
                                         bool is_error),
                          void *ud, struct nub_err *err)
{
  static const char *const engines[] = {"runtime", "os", "cpu", "libc", "packageManager"};
  cJSON *root = cJSON_Parse(json), *e;
  int rc = 0;

  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return nub_err_set(err, -EINVAL, "package.json's devEngines is not an object");
  }
  cJSON_ArrayForEach(e, root)
  {
    const char *name = NULL, *version = NULL;
    const cJSON *deps[64], *last;
    char why[400] = "";
    size_t n = 0, bad = 0, k;
    for (k = 0; k < 5 && strcmp(e->string, engines[k]); k++)
      ;
    if (k == 5) {
      rc = nub_err_set(err, -EINVAL, "package.json's devEngines.%s is not an engine npm knows "
                       "(runtime, packageManager, os, cpu, libc)", e->string);
      break;
    }
    if (cJSON_IsArray(e)) {
      const cJSON *it;
      cJSON_ArrayForEach(it, e) if (n < 64) deps[n++] = it;
    } else {
      deps[n++] = e;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
      const cJSON *on = cJSON_GetObjectItemCaseSensitive(deps[i], "onFail");
      if (cJSON_IsString(on) && strcmp(on->valuestring, "ignore") &&
          strcmp(on->valuestring, "warn") && strcmp(on->valuestring, "error") &&
          strcmp(on->valuestring, "download"))
        rc = nub_err_set(err, -EINVAL, "package.json's devEngines.%s: onFail is ignore, warn, "
                         "error or download, not %s", e->string, on->valuestring);
      else if (!valid_dep(deps[i]))
        rc = nub_err_set(err, -EINVAL, "package.json's devEngines.%s: each entry is an "
                         "object with a name (and a version, an onFail)", e->string);
    }
    if (rc < 0)
      break;
    if (!n)
      continue;
    if (k == 4) { /* packageManager: nub is the one running */
      failed(ud, e->string, NULL, false);
      continue;
    }
    if (k == 0) {
      name = "node";
      version = env->node;
    } else {
      name = k == 1 ? env->os : k == 2 ? env->cpu : env->libc;
    }
    for (size_t i = 0; i < n; i++) {
      char buf[300];
      const char *w = dep_fails(deps[i], e->string, name, k == 1 ? NULL : version, buf,
                                sizeof(buf));
      if (w) {
        bad++;
        snprintf(why, sizeof(why), "%s", w);
      }
    }
    if (bad == n) {
      const cJSON *on;
      last = deps[n - 1];
      on = cJSON_GetObjectItemCaseSensitive(last, "onFail");
      if (!on || strcmp(on->valuestring, "ignore"))
        failed(ud, e->string, why, !on || strcmp(on->valuestring, "warn"));
    }
  }
  cJSON_Delete(root);
  return rc;
}
