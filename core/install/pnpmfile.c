/* pnpmfile.c - pnpm's install hooks run by one Node process (pnpmfile.h). */
#include "pnpmfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "integrity.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "registry.h"
#include "scripts.h"
#include "yaml_read.h"

/* The driver Node runs: loads the file (import() for ES modules), then
 * answers one request per line, in order. What a hook prints on stdout
 * (which carries the answers) goes nowhere, as in pnpm 12; context.log's
 * lines come back with the answer. */
static const char driver[] =
    "'use strict';\n"
    "const file = process.argv[1];\n"
    "const answer = ((w) => (o) => w(JSON.stringify(o) + '\\n'))"
    "(process.stdout.write.bind(process.stdout));\n"
    "process.stdout.write = (c, e, cb) => {\n"
    "  if (typeof e === 'function') e(); else if (typeof cb === 'function') cb();\n"
    "  return true;\n"
    "};\n"
    "const esm = () => import(require('node:url').pathToFileURL(file).href);\n"
    "let hooks = {}, failed = null;\n"
    "const why = (e) => {\n"
    "  if (!(e instanceof Error)) return String(e);\n"
    "  const at = String(e.stack || '').split('\\n').find((l) => l.includes(file + ':'));\n"
    "  const line = at && /^(\\d+)/.exec(at.slice(at.lastIndexOf(file + ':') + file.length + 1));\n"
    "  return String(e) + (line ? ' (line ' + line[1] + ')' : '');\n"
    "};\n"
    "let chain = (/\\.mjs$/.test(file) ? esm() : Promise.resolve().then(() => {\n"
    "  try { return require(file); }\n"
    "  catch (e) { if (e && e.code === 'ERR_REQUIRE_ESM') return esm(); throw e; }\n"
    "})).then((m) => {\n"
    "  const h = m && (m.hooks || (m.default && m.default.hooks));\n"
    "  hooks = h && typeof h === 'object' ? h : {};\n"
    "}, (e) => { failed = why(e); });\n"
    "async function handle(line) {\n"
    "  const logs = [];\n"
    "  try {\n"
    "    if (failed !== null) return answer({ err: failed });\n"
    "    const req = JSON.parse(line);\n"
    "    if (req.q === 'hooks')\n"
    "      return answer({ ok: Object.keys(hooks).filter((k) => typeof hooks[k] === 'function') });\n"
    "    if (req.hook === 'afterAllResolved') {\n"
    "      const res = await hooks.afterAllResolved(req.lockfile, { log: (m) => logs.push(String(m)) });\n"
    "      if (!res || typeof res !== 'object' || Array.isArray(res))\n"
    "        throw new Error('afterAllResolved did not return a lockfile object');\n"
    "      return answer({ ok: res, logs });\n"
    "    }\n"
    "    const pkg = req.pkg;\n"
    "    for (const k of ['dependencies', 'devDependencies', 'optionalDependencies',\n"
    "                     'peerDependencies'])\n"
    "      if (pkg[k] == null) pkg[k] = {};\n"
    "    const res = await hooks.readPackage(pkg, { log: (m) => logs.push(String(m)) });\n"
    "    if (!res || typeof res !== 'object' || Array.isArray(res))\n"
    "      throw new Error('readPackage did not return a package manifest object');\n"
    "    for (const k of ['dependencies', 'devDependencies', 'optionalDependencies',\n"
    "                     'peerDependencies'])\n"
    "      for (const [n, r] of Object.entries(res[k] || {}))\n"
    "        if (typeof r !== 'string')\n"
    "          throw new Error('readPackage gave ' + k + '.' + n + ' a ' + typeof r +\n"
    "                          ', not a range (delete the key to drop it)');\n"
    "    answer({ ok: res, logs });\n"
    "  } catch (e) { answer({ err: why(e), logs }); }\n"
    "}\n"
    "require('node:readline').createInterface({ input: process.stdin })\n"
    "  .on('line', (line) => { chain = chain.then(() => handle(line)); })\n"
    "  .on('close', () => chain.then(() => process.exit(0)));\n";

/* The hooks pnpm has that nub does not run (readPackage and
 * afterAllResolved it does). */
static const char *const other_hooks[] = {"preResolution", "updateConfig",
                                          "importPackage", "fetchers", "filterLog",
                                          "beforePacking", NULL};

struct nub_pnpmfile {
  int pid, to, from;
  char *rel;
  nub_pnpmfile_log_fn log;
  void *ud;
  struct nub_buf in; /* what Node said that is not yet a whole line */
  char **hooks;
  size_t nhooks;
  char *unapplied;
  char *ignored; /* the first change readPackage made that nub does not apply */
};

char *nub_pnpmfile_find(int root_fd, const char *setting)
{
  static const char *const names[] = {".pnpmfile.mjs", ".pnpmfile.cjs", NULL};
  struct nub_plat_stat st;

  if (setting)
    return nub_strdup(setting);
  for (int i = 0; names[i]; i++)
    if (nub_plat_stat_at(root_fd, names[i], &st) == 0)
      return nub_strdup(names[i]);
  return NULL;
}

int nub_pnpmfile_checksum(int root_fd, const char *rel, char **out, struct nub_err *err)
{
  struct nub_sri sri;
  char *text = NULL, buf[128];
  size_t len = 0;
  int rc = nub_plat_read_file_at(root_fd, rel, 16u << 20, &text, &len);

  if (rc < 0)
    return nub_err_set(err, -NUB_EHOOK, "cannot read the pnpmfile %s: %s", rel,
                       nub_strerror(rc));
  memset(&sri, 0, sizeof(sri));
  sri.algo = NUB_HASH_SHA256;
  sri.len = 32;
  nub_sha256(text, len, sri.digest);
  nub_sri_format(&sri, buf, sizeof(buf));
  nub_free(text);
  *out = nub_strdup(buf);
  return 0;
}

/* The next line Node wrote (owned by h->in until the next call), or NULL
 * at its end. */
static char *next_line(struct nub_pnpmfile *h, size_t *consumed)
{
  for (;;) {
    char chunk[65536], *nl;
    long r;
    if (h->in.len && (nl = memchr(h->in.data, '\n', h->in.len)) != NULL) {
      *nl = '\0';
      *consumed = (size_t)(nl - h->in.data) + 1;
      return h->in.data;
    }
    r = nub_plat_read(h->from, chunk, sizeof(chunk));
    if (r <= 0)
      return NULL;
    nub_buf_add(&h->in, chunk, (size_t)r);
  }
}

static void drop_line(struct nub_pnpmfile *h, size_t n)
{
  memmove(h->in.data, h->in.data + n, h->in.len - n);
  h->in.len -= n;
}

/* One request, its answer: the parsed line (caller deletes), or NULL with
 * err filled when Node is gone or said something that is not JSON. */
static cJSON *ask(struct nub_pnpmfile *h, const char *req, struct nub_err *err)
{
  size_t n = 0;
  char *line;
  cJSON *ans;
  int rc = nub_plat_write_pipe(h->to, req, strlen(req));

  if (rc == 0)
    rc = nub_plat_write_pipe(h->to, "\n", 1);
  line = rc == 0 ? next_line(h, &n) : NULL;
  if (!line) {
    nub_plat_close(h->to);
    h->to = -1;
    rc = nub_plat_wait_child(h->pid);
    h->pid = -1;
    if (rc == 127)
      nub_err_set(err, -NUB_EHOOK, "%s needs Node to run its hooks, and no `node` is on PATH "
                  "(--ignore-pnpmfile installs without them)", h->rel);
    else
      nub_err_set(err, -NUB_EHOOK, "%s: Node ended (exit %d) before it answered", h->rel, rc);
    return NULL;
  }
  ans = cJSON_Parse(line);
  if (!ans)
    nub_err_set(err, -NUB_EHOOK, "%s: Node answered something that is not JSON: %.200s",
                h->rel, line);
  drop_line(h, n);
  return ans;
}

/* The hook's error as one line: its first line (the message). */
static int hook_failed(struct nub_pnpmfile *h, const char *what, const cJSON *e,
                       struct nub_err *err)
{
  const char *s = cJSON_IsString(e) ? e->valuestring : "failed";
  size_t len = strcspn(s, "\n");

  return nub_err_set(err, -NUB_EHOOK, "%s: %s failed: %.*s", h->rel, what, (int)len, s);
}

static void say_logs(struct nub_pnpmfile *h, const char *hook, const cJSON *logs)
{
  const cJSON *it;

  if (!h->log)
    return;
  cJSON_ArrayForEach(it, logs)
  {
    if (cJSON_IsString(it))
      h->log(h->ud, hook, it->valuestring);
  }
}

int nub_pnpmfile_start(struct nub_pnpmfile **out, const char *root, const char *rel,
                       nub_pnpmfile_log_fn log, void *ud, struct nub_err *err)
{
  struct nub_pnpmfile *h = nub_calloc(1, sizeof(*h));
  char *abs = rel[0] == '/' ? nub_strdup(rel) : nub_asprintf("%s/%s", root, rel);
  /* node from the scripts' PATH; $0 names the shell's own complaint */
  const char *argv[] = {"/bin/sh", "-c", "exec node -e \"$1\" \"$2\"", "node", driver, abs,
                        NULL};
  struct nub_script s = {root, root, NULL, NULL, NULL, "pnpmfile", "", root, "install"};
  char **env = nub_script_env(&s);
  struct nub_buf names = NUB_BUF_INIT;
  cJSON *ans;
  int rc;

  h->rel = nub_strdup(rel);
  h->log = log;
  h->ud = ud;
  h->to = h->from = h->pid = -1;
  rc = nub_plat_spawn_duplex(argv, root, (const char *const *)env, &h->pid, &h->to, &h->from);
  nub_script_env_free(env);
  nub_free(abs);
  if (rc < 0) {
    nub_err_set(err, -NUB_EHOOK, "cannot start node for %s: %s", rel, nub_strerror(rc));
    nub_pnpmfile_stop(h);
    return -NUB_EHOOK;
  }
  ans = ask(h, "{\"q\":\"hooks\"}", err);
  if (!ans) {
    nub_pnpmfile_stop(h);
    return -NUB_EHOOK;
  }
  if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(ans, "ok"))) {
    rc = hook_failed(h, "loading it", cJSON_GetObjectItemCaseSensitive(ans, "err"), err);
    cJSON_Delete(ans);
    nub_pnpmfile_stop(h);
    return rc;
  }
  {
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ans, "ok"))
    {
      if (!cJSON_IsString(it))
        continue;
      h->hooks = nub_realloc(h->hooks, (h->nhooks + 1) * sizeof(char *));
      h->hooks[h->nhooks++] = nub_strdup(it->valuestring);
    }
  }
  cJSON_Delete(ans);
  for (int i = 0; other_hooks[i]; i++)
    if (nub_pnpmfile_has(h, other_hooks[i]))
      nub_buf_addf(&names, "%s%s", names.len ? ", " : "", other_hooks[i]);
  h->unapplied = names.len ? nub_buf_take(&names) : NULL;
  nub_buf_release(&names);
  *out = h;
  return 0;
}

bool nub_pnpmfile_has(const struct nub_pnpmfile *h, const char *name)
{
  for (size_t i = 0; h && i < h->nhooks; i++)
    if (!strcmp(h->hooks[i], name))
      return true;
  return false;
}

const char *nub_pnpmfile_unapplied(const struct nub_pnpmfile *h)
{
  return h ? h->unapplied : NULL;
}

/* readPackage on *pkg (owned by the caller): replaced by the hook's answer. */
static int read_package(struct nub_pnpmfile *h, cJSON **pkg, struct nub_err *err)
{
  cJSON *req = cJSON_CreateObject(), *ans, *ok;
  char *text;
  int rc = 0;

  cJSON_AddStringToObject(req, "hook", "readPackage");
  cJSON_AddItemReferenceToObject(req, "pkg", *pkg);
  text = cJSON_PrintUnformatted(req);
  cJSON_Delete(req);
  ans = ask(h, text, err);
  cJSON_free(text);
  if (!ans)
    return -NUB_EHOOK;
  say_logs(h, "readPackage", cJSON_GetObjectItemCaseSensitive(ans, "logs"));
  ok = cJSON_DetachItemFromObjectCaseSensitive(ans, "ok");
  if (cJSON_IsObject(ok)) {
    cJSON_Delete(*pkg);
    *pkg = ok;
  } else {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(*pkg, "name");
    char what[300];
    snprintf(what, sizeof(what), "readPackage on %s",
             cJSON_IsString(name) ? name->valuestring : "a package");
    rc = hook_failed(h, what, cJSON_GetObjectItemCaseSensitive(ans, "err"), err);
    cJSON_Delete(ok);
  }
  cJSON_Delete(ans);
  return rc;
}

/* ---- manifests as JSON and back -------------------------------------------- */

/* The fields nub takes back from readPackage's answer. */
static const char *const taken[] = {"dependencies", "devDependencies", "optionalDependencies",
                                    "peerDependencies", "peerDependenciesMeta", NULL};

static void put_map(cJSON *o, const char *key, const struct nub_depmap *m)
{
  cJSON *x = cJSON_AddObjectToObject(o, key);

  for (size_t i = 0; i < m->n; i++)
    cJSON_AddStringToObject(x, m->v[i].name, m->v[i].spec ? m->v[i].spec : "");
}

static void put_list(cJSON *o, const char *key, char **v, size_t n)
{
  if (n)
    cJSON_AddItemToObject(o, key, cJSON_CreateStringArray((const char *const *)v, (int)n));
}

static void put_meta(cJSON *o, char **opt, size_t n)
{
  cJSON *x;

  if (!n)
    return;
  x = cJSON_AddObjectToObject(o, "peerDependenciesMeta");
  for (size_t i = 0; i < n; i++)
    cJSON_AddBoolToObject(cJSON_AddObjectToObject(x, opt[i]), "optional", 1);
}

/* m, replaced by the answer's map `key` (the driver checked its values are
 * strings; anything else is left out). */
static void take_map(const cJSON *o, const char *key, struct nub_depmap *m)
{
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key), *it;
  size_t n = 0;

  nub_depmap_release(m);
  cJSON_ArrayForEach(it, x) n++;
  if (!n)
    return;
  m->v = nub_calloc(n, sizeof(*m->v));
  cJSON_ArrayForEach(it, x)
  {
    if (it->string && cJSON_IsString(it)) {
      m->v[m->n].name = nub_strdup(it->string);
      m->v[m->n++].spec = nub_strdup(it->valuestring);
    }
  }
}

static void take_meta(const cJSON *o, char ***opt, size_t *n)
{
  const cJSON *it;

  nub_strarray_free(*opt, *n);
  *opt = NULL;
  *n = 0;
  cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "peerDependenciesMeta"))
  {
    if (it->string && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "optional"))) {
      *opt = nub_realloc(*opt, (*n + 1) * sizeof(char *));
      (*opt)[(*n)++] = nub_strdup(it->string);
    }
  }
}

/* Notes the first field the hook changed that nub does not take back. */
static void note_ignored(struct nub_pnpmfile *h, const cJSON *before, const cJSON *after,
                         const char *name)
{
  const cJSON *it;

  if (h->ignored)
    return;
  cJSON_ArrayForEach(it, after)
  {
    bool ours = false;
    const cJSON *was = cJSON_GetObjectItemCaseSensitive(before, it->string);
    for (int i = 0; taken[i] && !ours; i++)
      ours = !strcmp(it->string, taken[i]);
    if (!ours && (!was || !cJSON_Compare(was, it, true))) {
      h->ignored = nub_asprintf("%s's %s", name, it->string);
      return;
    }
  }
}

/* The maps a readPackage answer gives back (dev NULL: a registry
 * version's, which pnpm does not install). */
struct taken_maps {
  struct nub_depmap *deps, *dev, *optional, *peers;
  char ***peers_optional;
  size_t *npeers_optional;
};

/* readPackage on pkg (owned), then its answer's maps into t. */
static int round_trip(struct nub_pnpmfile *h, cJSON *pkg, const char *name,
                      const struct taken_maps *t, struct nub_err *err)
{
  cJSON *before = cJSON_Duplicate(pkg, true);
  int rc = read_package(h, &pkg, err);

  if (rc == 0) {
    take_map(pkg, "dependencies", t->deps);
    if (t->dev)
      take_map(pkg, "devDependencies", t->dev);
    take_map(pkg, "optionalDependencies", t->optional);
    take_map(pkg, "peerDependencies", t->peers);
    take_meta(pkg, t->peers_optional, t->npeers_optional);
    note_ignored(h, before, pkg, name);
  }
  cJSON_Delete(before);
  cJSON_Delete(pkg);
  return rc;
}

int nub_pnpmfile_read_version(struct nub_pnpmfile *h, const char *name, struct nub_pversion *pv,
                              struct nub_err *err)
{
  struct taken_maps t = {&pv->deps, NULL, &pv->optional, &pv->peers, &pv->peers_optional,
                         &pv->npeers_optional};
  cJSON *pkg, *dist;

  if (!nub_pnpmfile_has(h, "readPackage"))
    return 0;
  /* the fields pnpm gives the hook of a registry version */
  pkg = cJSON_CreateObject();
  cJSON_AddStringToObject(pkg, "name", name);
  cJSON_AddStringToObject(pkg, "version", pv->version);
  dist = cJSON_AddObjectToObject(pkg, "dist");
  if (pv->integrity)
    cJSON_AddStringToObject(dist, "integrity", pv->integrity);
  if (pv->shasum)
    cJSON_AddStringToObject(dist, "shasum", pv->shasum);
  if (pv->tarball)
    cJSON_AddStringToObject(dist, "tarball", pv->tarball);
  put_map(pkg, "dependencies", &pv->deps);
  put_map(pkg, "optionalDependencies", &pv->optional);
  put_map(pkg, "peerDependencies", &pv->peers);
  put_meta(pkg, pv->peers_optional, pv->npeers_optional);
  if (pv->engines.n)
    put_map(pkg, "engines", &pv->engines);
  put_list(pkg, "os", pv->os, pv->nos);
  put_list(pkg, "cpu", pv->cpu, pv->ncpu);
  put_list(pkg, "libc", pv->libc, pv->nlibc);
  if (pv->deprecated)
    cJSON_AddStringToObject(pkg, "deprecated", pv->deprecated);
  return round_trip(h, pkg, name, &t, err);
}

int nub_pnpmfile_read_manifest(struct nub_pnpmfile *h, struct nub_manifest *m,
                               struct nub_err *err)
{
  struct taken_maps t = {&m->deps, &m->dev, &m->optional, &m->peer, &m->peers_optional,
                         &m->npeers_optional};
  cJSON *pkg;

  if (!nub_pnpmfile_has(h, "readPackage"))
    return 0;
  pkg = cJSON_CreateObject();
  if (m->name)
    cJSON_AddStringToObject(pkg, "name", m->name);
  if (m->version)
    cJSON_AddStringToObject(pkg, "version", m->version);
  put_map(pkg, "dependencies", &m->deps);
  put_map(pkg, "devDependencies", &m->dev);
  put_map(pkg, "optionalDependencies", &m->optional);
  put_map(pkg, "peerDependencies", &m->peer);
  put_meta(pkg, m->peers_optional, m->npeers_optional);
  return round_trip(h, pkg, m->name ? m->name : "the project", &t, err);
}

int nub_pnpmfile_after_all_resolved(struct nub_pnpmfile *h, struct nub_buf *lock,
                                    bool *changed, struct nub_err *err)
{
  yaml_document_t doc;
  cJSON *obj, *req, *ans, *ok;
  char *text;
  int rc;

  *changed = false;
  if (!nub_pnpmfile_has(h, "afterAllResolved"))
    return 0;
  rc = nub_yaml_load(&doc, lock->data, lock->len, "the lockfile", -NUB_EHOOK, err);
  if (rc < 0)
    return rc;
  obj = nub_yaml_to_json(&doc, yaml_document_get_root_node(&doc));
  yaml_document_delete(&doc);
  if (!obj)
    return nub_err_set(err, -NUB_EHOOK, "%s: the lockfile is too deep to hand to "
                       "afterAllResolved", h->rel);
  req = cJSON_CreateObject();
  cJSON_AddStringToObject(req, "hook", "afterAllResolved");
  cJSON_AddItemReferenceToObject(req, "lockfile", obj);
  text = cJSON_PrintUnformatted(req);
  cJSON_Delete(req);
  ans = ask(h, text, err);
  cJSON_free(text);
  if (!ans) {
    cJSON_Delete(obj);
    return -NUB_EHOOK;
  }
  say_logs(h, "afterAllResolved", cJSON_GetObjectItemCaseSensitive(ans, "logs"));
  ok = cJSON_GetObjectItemCaseSensitive(ans, "ok");
  if (!cJSON_IsObject(ok)) {
    rc = hook_failed(h, "afterAllResolved", cJSON_GetObjectItemCaseSensitive(ans, "err"), err);
  } else if (!cJSON_Compare(ok, obj, true)) {
    /* its answer as JSON, which is YAML to the lockfile's reader */
    char *t = cJSON_PrintUnformatted(ok);
    lock->len = 0;
    nub_buf_adds(lock, t);
    cJSON_free(t);
    *changed = true;
  }
  cJSON_Delete(ans);
  cJSON_Delete(obj);
  return rc;
}

const char *nub_pnpmfile_ignored_change(const struct nub_pnpmfile *h)
{
  return h ? h->ignored : NULL;
}

void nub_pnpmfile_stop(struct nub_pnpmfile *h)
{
  if (!h)
    return;
  if (h->to >= 0)
    nub_plat_close(h->to); /* its stdin ends: the driver's readline closes */
  if (h->from >= 0)
    nub_plat_close(h->from);
  if (h->pid > 0)
    nub_plat_wait_child(h->pid);
  nub_strarray_free(h->hooks, h->nhooks);
  nub_buf_release(&h->in);
  nub_free(h->unapplied);
  nub_free(h->ignored);
  nub_free(h->rel);
  nub_free(h);
}
