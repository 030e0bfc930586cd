/* lockfile_bun.c - bun.lock into the install plan; see lockfile_bun.h. */
#include "lockfile_bun.h"

#include <stdio.h>
#include <errno.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "gitspec.h"
#include "hoist_bun.h"
#include "integrity.h"
#include "json.h"
#include "registry_url.h"
#include "manifest.h"
#include "nub_plat.h"
#include "nub_alloc.h"
#include "path.h"
#include "pkgtab.h"
#include "strmap.h"

/* "a/@s/b/c" -> "node_modules/a/node_modules/@s/b/node_modules/c"; false
 * when a segment is not a package name. A key that starts with a workspace
 * member's name ("app/b") is under the member's folder
 * ("packages/app/node_modules/b"): ws maps names to folders. */
static bool key_to_path(const char *key, const struct nub_strmap *ws, struct nub_buf *out)
{
  const char *p = key;

  nub_buf_reset(out);
  if (ws && ws->n) {
    const char *e = strchr(key[0] == '@' && strchr(key, '/') ? strchr(key, '/') + 1 : key, '/');
    if (e) {
      char *first = nub_strndup(key, (size_t)(e - key));
      const char *dir = nub_strmap_get(ws, first);
      nub_free(first);
      if (dir) {
        nub_buf_addf(out, "%s/", dir);
        p = e + 1;
      }
    }
  }
  while (*p) {
    const char *e = strchr(p, '/');
    char name[215];
    size_t n;
    if (*p == '@') { /* a scope takes the next segment with it */
      if (!e)
        return false;
      e = strchr(e + 1, '/');
    }
    n = e ? (size_t)(e - p) : strlen(p);
    if (n == 0 || n >= sizeof(name))
      return false;
    memcpy(name, p, n);
    name[n] = '\0';
    if (!nub_valid_pkg_name(name))
      return false;
    nub_buf_adds(out, "node_modules/");
    nub_buf_adds(out, name);
    if (!e)
      break;
    nub_buf_addc(out, '/');
    p = e + 1;
  }
  return out->len > 0;
}

/* The tarball of a registry package: V[1] is "" (the configured registry),
 * a registry's base URL, or a tarball URL. */
static char *tarball_of(const struct nub_config *cfg, const char *name, const char *version,
                        const char *where)
{
  size_t n = strlen(where);
  char *reg, *url;

  if (!*where)
    return nub_registry_tarball_url(cfg, name, version);
  if (!nub_is_http_url(where))
    return NULL;
  if (n > 4 && !strcmp(where + n - 4, ".tgz"))
    return nub_rewrite_registry_url(cfg, name, where);
  reg = nub_asprintf("%s%s", where, where[n - 1] == '/' ? "" : "/");
  url = nub_tarball_url_on(reg, name, version);
  nub_free(reg);
  return url;
}

/* "a" or "@s/a": a package at the top, not under another */
static bool is_top_key(const char *k)
{
  const char *slash = strchr(k, '/');

  return k[0] == '@' ? slash && !strchr(slash + 1, '/') : !slash;
}

struct entry {
  const char *key; /* as the file has it, or as bun's layout places it */
  const cJSON *v;  /* the entry */
  char *path;
  const cJSON *meta; /* V[2], or NULL */
};

/* A package's metadata (V[2], or V[1] for what is not from a registry):
 * platform, install script, the names it depends on. */
static void set_meta(struct nub_node *n, const cJSON *meta)
{
  static const char *const keys[] = {"dependencies", "optionalDependencies",
                                     "peerDependencies"};
  size_t cap = 0;

  if (!cJSON_IsObject(meta))
    return;
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(meta, "os"), &n->os, &n->nos);
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(meta, "cpu"), &n->cpu, &n->ncpu);
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(meta, "libc"), &n->libc, &n->nlibc);
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(meta, "hasInstallScript")))
    n->flags |= NUB_NF_INSTALL_SCRIPT;
  for (size_t k = 0; k < 3; k++) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(meta, keys[k]), *it;
    cJSON_ArrayForEach(it, m)
    {
      if (!it->string)
        continue;
      NUB_GROW(n->deps, cap, n->ndeps + 1);
      n->deps[n->ndeps++] = nub_strdup(it->string);
    }
  }
}

static bool ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

/* An entry bun resolved elsewhere than a registry, as bun installs it:
 *   "x@link:<dir>"             a symlink to the directory;
 *   "x@file:<dir>"             a copy of the directory (every file but
 *                              node_modules and .git), its dependencies in
 *                              its own node_modules;
 *   "x@file:<f>.tgz", "x@<path>.tgz"  a tarball of the project's;
 *   "x@https://.../x.tgz"      a tarball URL, with its integrity;
 *   "x@git+<url>#<commit>", "x@github:<o>/<r>#<commit>"
 *                              the checkout at the commit (every file but
 *                              .git: bun does not pack). */
static int local_source(struct nub_tree *t, const char *key, const char *name,
                        const char *version, const cJSON *v, const char *path,
                        const char *fname, const struct nub_config *cfg, struct entry *out,
                        struct nub_err *err)
{
  const cJSON *meta = cJSON_GetArrayItem(v, 1), *third = cJSON_GetArrayItem(v, 2);
  const char *sri = cJSON_IsString(third) && *third->valuestring ? third->valuestring : NULL;
  char *tarball = NULL;
  const char *integrity = NULL;
  struct nub_node *n;
  size_t idx;

  if (!strncmp(version, "link:", 5)) {
    const char *to = version + 5;
    while (!strncmp(to, "./", 2))
      to += 2;
    if (!*to || *to == '/' || strchr(to, '\\'))
      return nub_err_set(err, -NUB_ESPEC, "%s entry '%s' links to '%s'; nub links relative "
                         "paths only", fname, key, version + 5);
    idx = nub_tree_add_node(t, path);
    t->nodes[idx].flags |= NUB_NF_LINK;
    t->nodes[idx].link_target = nub_strdup(to);
    return 0;
  }
  if (!strncmp(version, "git+", 4) || !strncmp(version, "github:", 7)) {
    char commit[41], *url = NULL;
    if (!strncmp(version, "github:", 7)) {
      /* bun fetches GitHub's archive of the commit: the same files as the
       * checkout */
      struct nub_gitspec g;
      struct nub_err e2;
      memset(&g, 0, sizeof(g));
      if (nub_git_parse(version, &g, &e2) < 0 || !g.ref || strlen(g.ref) != 40) {
        nub_gitspec_release(&g);
        return nub_err_set(err, -NUB_ELOCKFILE, "%s entry '%s' is %s, without its commit",
                           fname, key, version);
      }
      tarball = nub_asprintf("%s%s#%s", NUB_GIT_CHECKOUT, g.url, g.ref);
      nub_gitspec_release(&g);
    } else {
      if (!nub_git_split_resolved(version, &url, commit))
        return nub_err_set(err, -NUB_ELOCKFILE, "%s entry '%s' is %s, without its commit",
                           fname, key, version);
      nub_free(url);
      tarball = nub_asprintf("%s%s", NUB_GIT_CHECKOUT, version + 4);
    }
  } else if (nub_is_http_url(version)) {
    tarball = nub_strdup(version);
    integrity = sri;
  } else if (ends_with(version, ".tgz") || ends_with(version, ".tar.gz") ||
             ends_with(version, ".tar")) {
    tarball = nub_asprintf("file:%s", strncmp(version, "file:", 5) ? version : version + 5);
    integrity = sri;
  } else if (!strncmp(version, "file:", 5) && version[5]) {
    tarball = nub_asprintf("%s%s", NUB_LOCAL_DIR, version + 5);
  } else {
    return nub_err_set(err, -NUB_ESPEC, "%s entry '%s' is %s, a kind of source nub does not "
                       "install from bun.lock", fname, key, version);
  }
  if (integrity) {
    struct nub_sri s;
    if (nub_sri_parse(&s, integrity) < 0) {
      nub_free(tarball);
      return nub_err_set(err, -NUB_ELOCKFILE, "%s entry '%s' has an invalid integrity '%s'",
                         fname, key, integrity);
    }
  }
  idx = nub_tree_add_node(t, path);
  n = &t->nodes[idx];
  /* the version is the spec: bun's entry does not say more */
  n->pkg = nub_tree_pkg(t, name, version, tarball, integrity);
  nub_free(tarball);
  set_meta(n, meta);
  out->meta = cJSON_IsObject(meta) ? meta : NULL;
  return 0;
}

/* A JSON value of bun.lock's info object in bun's own style: "{ "k": v }",
 * "[a, b]", os/cpu/libc lists as "[ a, b, ]". */
static void json_text(struct nub_buf *b, const cJSON *v, const char *key);

/* One "key": value of an object, after a ", " unless it is the first. */
static void member(struct nub_buf *b, bool *first, const cJSON *it)
{
  if (!*first)
    nub_buf_adds(b, ", ");
  *first = false;
  nub_lockfile_bun_str(b, it->string ? it->string : "");
  nub_buf_adds(b, ": ");
  json_text(b, it, it->string);
}

static void json_text(struct nub_buf *b, const cJSON *v, const char *key)
{
  const cJSON *it;
  bool first = true;

  if (cJSON_IsObject(v)) {
    if (!v->child) {
      nub_buf_adds(b, "{}");
      return;
    }
    nub_buf_adds(b, "{ ");
    cJSON_ArrayForEach(it, v)
      member(b, &first, it);
    nub_buf_adds(b, " }");
  } else if (cJSON_IsArray(v)) {
    bool spaced = key && (!strcmp(key, "os") || !strcmp(key, "cpu") || !strcmp(key, "libc"));
    nub_buf_adds(b, spaced ? "[ " : "[");
    cJSON_ArrayForEach(it, v)
    {
      if (!spaced && !first)
        nub_buf_adds(b, ", ");
      first = false;
      json_text(b, it, NULL);
      if (spaced)
        nub_buf_adds(b, ", ");
    }
    nub_buf_adds(b, "]");
  } else if (cJSON_IsString(v)) {
    nub_lockfile_bun_str(b, v->valuestring);
  } else if (cJSON_IsBool(v)) {
    nub_buf_adds(b, cJSON_IsTrue(v) ? "true" : "false");
  } else if (cJSON_IsNumber(v)) {
    if (v->valuedouble == (double)(long long)v->valuedouble)
      nub_buf_addf(b, "%lld", (long long)v->valuedouble);
    else
      nub_buf_addf(b, "%.17g", v->valuedouble);
  } else {
    nub_buf_adds(b, "null");
  }
}

/* An entry's info object as bun writes it back: its values as the file has
 * them, its fields in bun's order (lockfile_bun_write.c's info()), any
 * other after them as they came. */
static void info_text(struct nub_buf *b, const cJSON *meta)
{
  static const char *const order[] = {"dependencies", "optionalDependencies",
                                      "peerDependencies", "optionalPeers", "os", "cpu", "libc",
                                      "hasInstallScript", "bin", "binDir", NULL};
  const cJSON *it;
  bool first = true;

  if (!meta->child) {
    nub_buf_adds(b, "{}");
    return;
  }
  nub_buf_adds(b, "{ ");
  for (int pass = 0; pass < 2; pass++)
    for (size_t k = 0; pass ? k < 1 : order[k] != NULL; k++)
      cJSON_ArrayForEach(it, meta)
      {
        bool known = false;
        for (size_t j = 0; order[j]; j++)
          known = known || (it->string && !strcmp(it->string, order[j]));
        if (!(pass ? known : !it->string || strcmp(it->string, order[k])))
          member(b, &first, it);
      }
  nub_buf_adds(b, " }");
}

/* One "packages" entry into a node. */
static int add_entry(struct nub_tree *t, const char *key, const cJSON *v, const char *fname,
                     const struct nub_config *cfg, const struct nub_strmap *ws,
                     const cJSON *workspaces, struct entry *out, struct nub_err *err)
{
  struct nub_buf path = NUB_BUF_INIT;
  const cJSON *spec = cJSON_GetArrayItem(v, 0), *where = cJSON_GetArrayItem(v, 1);
  const cJSON *meta = cJSON_GetArrayItem(v, 2), *sri = cJSON_GetArrayItem(v, 3);
  char name[215], *tarball;
  const char *at, *version;
  struct nub_node *n;
  int rc = 0;

  if (cJSON_IsString(sri) && !*sri->valuestring)
    sri = NULL; /* "": none recorded */
  if (!cJSON_IsArray(v) || !cJSON_IsString(spec))
    return nub_err_set(err, -NUB_ELOCKFILE, "%s entry '%s' is not a package", fname, key);
  if (!key_to_path(key, ws, &path)) {
    nub_buf_release(&path);
    return nub_err_set(err, -NUB_EUNSAFE, "%s has an unsafe entry path '%s'", fname, key);
  }
  /* the name may start with '@' (a scope): the separator is after it; an empty
   * spec has no "after" */
  at = spec->valuestring[0] ? strrchr(spec->valuestring + 1, '@') : NULL;
  if (!at || (size_t)(at - spec->valuestring) >= sizeof(name)) {
    rc = nub_err_set(err, -NUB_ELOCKFILE, "%s entry '%s' has a bad spec '%s'", fname, key,
                     spec->valuestring);
    goto out;
  }
  memcpy(name, spec->valuestring, (size_t)(at - spec->valuestring));
  name[at - spec->valuestring] = '\0';
  version = at + 1;
  if (!nub_valid_pkg_name(name)) {
    rc = nub_err_set(err, -NUB_EUNSAFE, "%s entry '%s' has an invalid package name '%s'",
                     fname, key, name);
    goto out;
  }
  if (!strncmp(version, "workspace:", 10)) { /* a member, linked where it is */
    size_t idx;
    if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(workspaces, version + 10))) {
      rc = nub_err_set(err, -NUB_ELOCKFILE, "%s entry '%s' is %s, but \"workspaces\" has "
                       "no '%s'", fname, key, spec->valuestring, version + 10);
      goto out;
    }
    idx = nub_tree_add_node(t, path.data);
    n = &t->nodes[idx];
    n->flags |= NUB_NF_LINK;
    n->link_target = nub_strdup(version + 10);
    out->path = nub_buf_take(&path);
    goto out;
  }
  if (!cJSON_IsString(where)) {
    /* not from a registry: [spec, meta, (integrity | commit | tag)] */
    rc = local_source(t, key, name, version, v, path.data, fname, cfg, out, err);
    if (rc == 0)
      out->path = nub_buf_take(&path);
    goto out;
  }
  if (strchr(version, ':') || nub_is_http_url(version)) {
    rc = nub_err_set(err, -NUB_ELOCKFILE, "%s entry '%s' is %s with a registry, which bun "
                     "does not write", fname, key, spec->valuestring);
    goto out;
  }
  if (cJSON_IsString(sri)) {
    struct nub_sri s;
    if (nub_sri_parse(&s, sri->valuestring) < 0) {
      rc = nub_err_set(err, -NUB_ELOCKFILE, "%s entry '%s' has an invalid integrity '%s'",
                       fname, key, sri->valuestring);
      goto out;
    }
  }
  tarball = tarball_of(cfg, name, version, where->valuestring);
  if (!tarball) {
    rc = *where->valuestring
             ? nub_err_set(err, -NUB_ELOCKFILE, "%s entry '%s' comes from '%s', which is "
                           "not a registry URL", fname, key, where->valuestring)
             : nub_err_set(err, -NUB_ENOREGISTRY, "%s entry '%s': %s", fname, key,
                           nub_config_no_registry_hint);
    goto out;
  }
  {
    size_t idx = nub_tree_add_node(t, path.data); /* may move t->nodes */
    n = &t->nodes[idx];
  }
  n->pkg = nub_tree_pkg(t, name, version, tarball,
                        cJSON_IsString(sri) ? sri->valuestring : NULL);
  nub_free(tarball);
  set_meta(n, meta);
  out->path = nub_buf_take(&path);
  out->meta = cJSON_IsObject(meta) ? meta : NULL;
out:
  nub_buf_release(&path);
  return rc;
}

/* ---- dev and optional, from the edges ------------------------------------ */

struct walk {
  struct nub_tree *t;
  struct nub_plat_caps caps;
  struct nub_strmap at; /* path -> node index + 1 */
  const struct nub_strmap *meta; /* path -> meta */
  size_t *queue;
  unsigned char *mark;
};

/* Node resolution: dep `name` from node `from` (-1: the project). */
static long resolve(const struct walk *w, long from, const char *name)
{
  struct nub_buf p = NUB_BUF_INIT;
  long found = -1;

  for (long j = from;; j = w->t->nodes[j].parent) {
    uintptr_t v;
    nub_buf_reset(&p);
    if (j >= 0)
      nub_buf_addf(&p, "%s/", w->t->nodes[j].path);
    nub_buf_addf(&p, "node_modules/%s", name);
    v = (uintptr_t)nub_strmap_get(&w->at, p.data);
    if (v) {
      found = (long)v - 1;
      break;
    }
    if (j < 0)
      break;
  }
  nub_buf_release(&p);
  return found;
}

enum { E_REQ = 1, E_OPT = 2 };

/* Packages for another platform are not entered, so what only they need is
 * left out too, as bun does (fsevents' bindings and nan on Linux). */
static bool here(const struct walk *w, long j)
{
  const struct nub_node *n = &w->t->nodes[j];
  return nub_platform_allows(n->os, n->nos, w->caps.npm_os) &&
         nub_platform_allows(n->cpu, n->ncpu, w->caps.npm_cpu) &&
         (!w->caps.libc || nub_platform_allows(n->libc, n->nlibc, w->caps.libc));
}

static bool in_array(const cJSON *a, const char *s)
{
  const cJSON *it;
  cJSON_ArrayForEach(it, a)
  {
    if (cJSON_IsString(it) && !strcmp(it->valuestring, s))
      return true;
  }
  return false;
}

/* Mark `bit` on everything reachable from the seeds through edges whose kind
 * is in `kinds`. */
enum { FROM_PROD = 1, FROM_DEV = 2 };

/* Mark `bit` on everything reachable from the workspaces' dependency maps
 * of the classes in `from_classes`, through edges whose kind is in `kinds`. */
static void reach(struct walk *w, const cJSON *workspaces, unsigned from_classes,
                  unsigned kinds, unsigned char bit)
{
  static const struct {
    const char *key;
    unsigned kind, from;
  } roots[] = {{"dependencies", E_REQ, FROM_PROD},
               {"peerDependencies", E_REQ, FROM_PROD},
               {"optionalDependencies", E_OPT, FROM_PROD},
               {"devDependencies", E_REQ, FROM_DEV}};
  static const char *const keys[] = {"dependencies", "peerDependencies",
                                     "optionalDependencies"};
  static const unsigned key_kind[] = {E_REQ, E_REQ, E_OPT};
  size_t head = 0, tail = 0;

  const cJSON *ws_entry;

  /* the seeds: every workspace's own dependencies, as Node finds them from
   * its folder (the root's from the top) */
  cJSON_ArrayForEach(ws_entry, workspaces)
  {
    long from = -1;
    if (!ws_entry->string || !cJSON_IsObject(ws_entry))
      continue;
    if (*ws_entry->string) {
      uintptr_t v = (uintptr_t)nub_strmap_get(&w->at, ws_entry->string);
      if (!v)
        continue;
      from = (long)v - 1;
    }
    for (size_t s = 0; s < sizeof(roots) / sizeof(roots[0]); s++) {
      const cJSON *it;
      if (!(roots[s].from & from_classes) || !(roots[s].kind & kinds))
        continue;
      cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ws_entry, roots[s].key))
      {
        long j = it->string ? resolve(w, from, it->string) : -1;
        if (j >= 0 && (w->t->nodes[j].flags & NUB_NF_LINK))
          continue; /* a member: its own dependencies are seeds already */
        if (j >= 0 && !(w->mark[j] & bit) && here(w, j)) {
          w->mark[j] |= bit;
          w->queue[tail++] = (size_t)j;
        }
      }
    }
  }
  while (head < tail) {
    size_t i = w->queue[head++];
    const cJSON *meta = nub_strmap_get(w->meta, w->t->nodes[i].path);
    const cJSON *opt_peers = meta ? cJSON_GetObjectItemCaseSensitive(meta, "optionalPeers")
                                  : NULL;
    for (size_t k = 0; meta && k < 3; k++) {
      const cJSON *m = cJSON_GetObjectItemCaseSensitive(meta, keys[k]), *it;
      cJSON_ArrayForEach(it, m)
      {
        unsigned kind = key_kind[k];
        long j;
        if (!it->string)
          continue;
        if (k == 1 && in_array(opt_peers, it->string))
          kind = E_OPT; /* a peer listed in optionalPeers */
        if (!(kind & kinds))
          continue;
        j = resolve(w, (long)i, it->string);
        if (j >= 0 && !(w->mark[j] & bit) && here(w, j)) {
          w->mark[j] |= bit;
          w->queue[tail++] = (size_t)j;
        }
      }
    }
  }
}

static void set_flags(struct nub_tree *t, const cJSON *workspaces,
                      const struct nub_strmap *meta)
{
  struct walk w;
  enum { PROD = 1, DEV = 2, REQ = 4 };

  memset(&w, 0, sizeof(w));
  w.t = t;
  nub_plat_caps(&w.caps);
  w.meta = meta;
  w.queue = nub_calloc(t->n + 1, sizeof(size_t));
  w.mark = nub_calloc(t->n + 1, 1);
  for (size_t i = 0; i < t->n; i++)
    nub_strmap_put(&w.at, t->nodes[i].path, (void *)(uintptr_t)(i + 1));
  reach(&w, workspaces, FROM_PROD, E_REQ | E_OPT, PROD);
  reach(&w, workspaces, FROM_DEV, E_REQ | E_OPT, DEV);
  reach(&w, workspaces, FROM_PROD | FROM_DEV, E_REQ, REQ); /* not through optional edges */
  for (size_t i = 0; i < t->n; i++) {
    if (t->nodes[i].flags & (NUB_NF_LINK | NUB_NF_LOCAL))
      continue; /* members and their links are always there */
    if (!w.mark[i] && !here(&w, (long)i)) {
      /* another platform's: flagged optional so the filter skips it */
      t->nodes[i].flags |= NUB_NF_OPTIONAL;
      continue;
    }
    if (!w.mark[i]) {
      t->nodes[i].skip = true; /* needed only by another platform's package */
      continue;
    }
    if ((w.mark[i] & DEV) && !(w.mark[i] & PROD))
      t->nodes[i].flags |= NUB_NF_DEV;
    if ((w.mark[i] & (PROD | DEV)) && !(w.mark[i] & REQ))
      t->nodes[i].flags |= (w.mark[i] & PROD) ? NUB_NF_OPTIONAL : NUB_NF_DEV_OPTIONAL;
  }
  nub_strmap_release(&w.at, NULL);
  nub_free(w.queue);
  nub_free(w.mark);
}

/* Each member of "workspaces": a folder of the project, with what its
 * package.json said. */
static int add_members(struct nub_tree *t, const cJSON *ws, const char *fname,
                       struct nub_err *err)
{
  const cJSON *e;

  cJSON_ArrayForEach(e, ws)
  {
    char norm[4096];
    size_t idx;
    if (!e->string || !*e->string)
      continue;
    if (!cJSON_IsObject(e) || nub_path_normalize(e->string, norm, sizeof(norm)) < 0 ||
        strcmp(norm, e->string) || !strncmp(norm, "node_modules", 12))
      return nub_err_set(err, -NUB_EUNSAFE, "%s has an unsafe workspace path '%s'", fname,
                         e->string);
    idx = nub_tree_add_node(t, e->string);
    t->nodes[idx].flags |= NUB_NF_LOCAL;
    t->nodes[idx].member_specs = nub_json_member_specs(e);
  }
  return 0;
}

/* ---- as bun lays it out ---------------------------------------------------- */

struct relayout {
  struct nub_tree *t;
  const char *fname;
  const struct nub_config *cfg;
  const struct nub_strmap *members;
  const cJSON *ws;
  const struct nub_bun_layout *lay;
};

static void free_ents(struct entry *ents, size_t n)
{
  for (size_t i = 0; i < n; i++)
    nub_free(ents[i].path);
  nub_free(ents);
}

/* The tree made again from what the keys resolve to, placed by bun's
 * hoisting (lockfile_bun_layout.c), when that is another tree than the
 * keys': each place an entry of the package placed there (*ents replaced).
 * A file with anything but registry packages and the workspace's members
 * keeps its keys, and so does one whose graph bun's hoisting cannot place
 * (nub_hoist_bun's refusals). */
static int relayout(struct relayout *r, struct entry **ents, size_t *nents, size_t *capents,
                    struct nub_err *err)
{
  struct nub_tree *t = r->t;
  const struct nub_bun_deps **deps = nub_calloc(t->n + 1, sizeof(*deps));
  struct nub_bun_deps *alldeps = nub_calloc(t->n + 1, sizeof(*alldeps));
  size_t nalldeps = t->n;
  const struct entry **ent_of = nub_calloc(t->n + 1, sizeof(*ent_of));
  struct nub_graph g;
  struct nub_bun_place *places = NULL;
  struct entry *nw = NULL;
  size_t np = 0, nnw = 0, capnw = 0, nplaced = 0;
  long *tmpl = NULL;
  bool same = true;
  struct nub_err e2;
  int rc = 0;

  nub_graph_init(&g);
  for (size_t i = 0; i < *nents; i++) {
    long at = (*ents)[i].path ? nub_tree_lookup(t, (*ents)[i].path) : -1;
    if (at >= 0 && (*ents)[i].meta) {
      static const char *const keys[3] = {"dependencies", "optionalDependencies",
                                          "peerDependencies"};
      struct nub_bun_deps *d = &alldeps[at];
      for (int k = 0; k < 3; k++)
        nub_json_depmap(cJSON_GetObjectItemCaseSensitive((*ents)[i].meta, keys[k]), &d->kind[k]);
      deps[at] = d;
    }
    if (at >= 0)
      ent_of[at] = &(*ents)[i];
  }
  for (size_t i = 0; i < t->n; i++) {
    const struct nub_node *n = &t->nodes[i];
    const cJSON *where = ent_of[i] ? cJSON_GetArrayItem(ent_of[i]->v, 1) : NULL;
    if (n->flags & NUB_NF_LOCAL)
      continue;
    if (!ent_of[i] || ((n->flags & NUB_NF_LINK)
                           ? !r->lay->ws || !n->link_target ||
                                 !nub_workspace_at(r->lay->ws, n->link_target) ||
                                 n->depth != 1
                           : !n->pkg || !cJSON_IsString(where)))
      goto keep; /* not only registry packages and members */
  }
  nub_bun_graph_of_keys(t, deps, r->lay->ws, &g, &tmpl);
  if (nub_hoist_bun(&g, r->lay->root, r->lay->ws, &places, &np, &e2) < 0) {
    nub_diag_debugf("%s: laid out as its keys say (%s)", r->fname, e2.msg);
    goto keep;
  }
  /* the places as entries: a package's from a node of it, a member's link
   * from its own */
  for (size_t k = 0; k < np; k++) {
    const struct nub_bun_place *pl = &places[k];
    const struct entry *from = NULL;
    struct nub_buf path = NUB_BUF_INIT;
    long at;
    if (pl->pkg) {
      from = ent_of[tmpl[pl->pkg->index]];
    } else if (pl->member) {
      for (size_t i = 0; i < t->n && !from; i++)
        if ((t->nodes[i].flags & NUB_NF_LINK) && t->nodes[i].depth == 1 &&
            t->nodes[i].link_target && !strcmp(t->nodes[i].link_target, pl->member->dir))
          from = ent_of[i];
    }
    if (!from)
      goto keep;
    NUB_GROW(nw, capnw, nnw + 1);
    memset(&nw[nnw], 0, sizeof(nw[nnw]));
    nw[nnw].key = pl->key;
    nw[nnw++].v = from->v;
    /* the same tree as the keys' while each place holds what is there */
    at = key_to_path(pl->key, r->members, &path) ? nub_tree_lookup(t, path.data) : -1;
    nub_buf_release(&path);
    if (at < 0 || !ent_of[at] || ent_of[at]->v != from->v)
      same = false;
  }
  for (size_t i = 0; i < t->n; i++)
    nplaced += !(t->nodes[i].flags & NUB_NF_LOCAL);
  if (same && nplaced == nnw)
    goto keep;
  nub_diag_debugf("%s: laid out as bun lays it out (%zu places; the keys had %zu)", r->fname,
                  nnw, nplaced);
  nub_tree_release_nodes(t);
  rc = add_members(t, r->ws, r->fname, err);
  for (size_t k = 0; rc == 0 && k < nnw; k++)
    rc = add_entry(t, nw[k].key, nw[k].v, r->fname, r->cfg, r->members, r->ws, &nw[k], err);
  if (rc == 0)
    rc = nub_tree_finish(t, r->fname, err);
  /* the entries are the places now (their keys borrowed from places) */
  for (size_t k = 0; k < nnw; k++)
    nw[k].key = NULL;
  free_ents(*ents, *nents);
  *ents = nw;
  *nents = nnw;
  *capents = capnw;
  nw = NULL;
  nnw = 0;
keep:
  free_ents(nw, nnw);
  nub_bun_places_free(places, np);
  nub_graph_release(&g);
  nub_free(tmpl);
  for (size_t i = 0; i < nalldeps; i++)
    for (int k = 0; k < 3; k++)
      nub_depmap_release(&alldeps[i].kind[k]);
  nub_free(alldeps);
  nub_free(deps);
  nub_free(ent_of);
  return rc;
}

int nub_lockfile_bun_parse(struct nub_tree *t, const char *text, size_t len,
                           const char *fname, const struct nub_config *cfg,
                           struct nub_err *err)
{
  return nub_lockfile_bun_read(t, text, len, fname, cfg, NULL, err);
}

int nub_lockfile_bun_read(struct nub_tree *t, const char *text, size_t len,
                          const char *fname, const struct nub_config *cfg,
                          const struct nub_bun_layout *lay, struct nub_err *err)
{
  cJSON *root = NULL;
  const cJSON *ver, *ws, *root_ws, *packages, *e;
  struct entry *ents = NULL;
  struct nub_strmap meta, members;
  size_t nents = 0, capents = 0;
  int rc;

  memset(&meta, 0, sizeof(meta));
  memset(&members, 0, sizeof(members));
  rc = nub_json_parse(text, len, fname, -NUB_ELOCKFILE, NUB_JSON_TRAILING_COMMAS, &root, err);
  if (rc < 0)
    goto out;
  if (!cJSON_IsObject(root)) {
    rc = nub_err_set(err, -NUB_ELOCKFILE, "%s must contain a JSON object", fname);
    goto out;
  }
  ver = cJSON_GetObjectItemCaseSensitive(root, "lockfileVersion");
  t->lockfile_version = cJSON_IsNumber(ver) ? ver->valueint : -1;
  {
    const cJSON *cv = cJSON_GetObjectItemCaseSensitive(root, "configVersion");
    t->config_version = cJSON_IsNumber(cv) ? cv->valueint : 0;
  }
  if (t->lockfile_version < 0 || t->lockfile_version > 3) {
    rc = nub_err_set(err, -NUB_ELOCKVERSION,
                     "%s has lockfileVersion %s, which nub does not read (0-3)", fname,
                     cJSON_IsNumber(ver) ? "newer than 3" : "missing");
    goto out;
  }
  {
    /* what the overrides were when it was written: a change resolves again */
    const cJSON *ov = cJSON_GetObjectItemCaseSensitive(root, "overrides"), *o, *k;
    size_t cap = 0;
    t->has_overrides = true;
    if (!cJSON_IsObject(ov))
      ov = NULL;
    for (o = ov ? ov->child : NULL; o; o = o->next) {
      if (!o->string)
        continue;
      if (cJSON_IsString(o)) {
        NUB_GROW(t->overrides.v, cap, t->overrides.n + 1);
        t->overrides.v[t->overrides.n].name = nub_strdup(o->string);
        t->overrides.v[t->overrides.n++].spec = nub_strdup(o->valuestring);
      }
      for (k = cJSON_IsObject(o) ? o->child : NULL; k; k = k->next) {
        if (!k->string || !cJSON_IsString(k))
          continue;
        NUB_GROW(t->overrides.v, cap, t->overrides.n + 1);
        t->overrides.v[t->overrides.n].name = nub_asprintf("%s>%s", o->string, k->string);
        t->overrides.v[t->overrides.n++].spec = nub_strdup(k->valuestring);
      }
    }
  }
  nub_json_depmap(cJSON_GetObjectItemCaseSensitive(root, "patchedDependencies"), &t->patched);
  {
    const cJSON *pe = cJSON_GetObjectItemCaseSensitive(root, "packageExtensions"), *it;
    nub_depmap_release(&t->pkg_exts);
    if (!cJSON_IsObject(pe))
      pe = NULL;
    cJSON_ArrayForEach(it, pe)
    {
      char *rec = it->string ? cJSON_PrintUnformatted(it) : NULL;
      if (!rec)
        continue;
      t->pkg_exts.v = nub_realloc(t->pkg_exts.v, (t->pkg_exts.n + 1) * sizeof(*t->pkg_exts.v));
      t->pkg_exts.v[t->pkg_exts.n].name = nub_strdup(it->string);
      t->pkg_exts.v[t->pkg_exts.n++].spec = nub_strdup(rec);
      cJSON_free(rec);
    }
  }
  ws = cJSON_GetObjectItemCaseSensitive(root, "workspaces");
  root_ws = cJSON_GetObjectItemCaseSensitive(ws, "");
  if (!cJSON_IsObject(root_ws)) {
    rc = nub_err_set(err, -NUB_ELOCKFILE, "%s has no root workspace (\"workspaces\": "
                     "{\"\": ...})", fname);
    goto out;
  }
  if ((rc = add_members(t, ws, fname, err)) < 0)
    goto out;
  nub_json_depmap(cJSON_GetObjectItemCaseSensitive(root_ws, "dependencies"), &t->root_deps);
  nub_json_depmap(cJSON_GetObjectItemCaseSensitive(root_ws, "devDependencies"), &t->root_dev);
  nub_json_depmap(cJSON_GetObjectItemCaseSensitive(root_ws, "optionalDependencies"),
                  &t->root_optional);
  nub_json_depmap(cJSON_GetObjectItemCaseSensitive(root_ws, "peerDependencies"),
                  &t->root_peer);
  t->has_root_deps = true;
  packages = cJSON_GetObjectItemCaseSensitive(root, "packages");
  if (packages && !cJSON_IsObject(packages)) {
    rc = nub_err_set(err, -NUB_ELOCKFILE, "%s: \"packages\" is not an object", fname);
    goto out;
  }
  /* members by name ("app": ["app@workspace:packages/app"]): keys under
   * them are in their folders */
  cJSON_ArrayForEach(e, packages)
  {
    const cJSON *spec = cJSON_GetArrayItem(e, 0);
    const char *w = cJSON_IsString(spec) ? strstr(spec->valuestring, "@workspace:") : NULL;
    if (e->string && w && is_top_key(e->string))
      nub_strmap_put(&members, e->string, (void *)(w + 11));
  }
  cJSON_ArrayForEach(e, packages)
  {
    if (!e->string)
      continue;
    NUB_GROW(ents, capents, nents + 1);
    memset(&ents[nents], 0, sizeof(ents[nents]));
    ents[nents].key = e->string;
    ents[nents].v = e;
    rc = add_entry(t, e->string, e, fname, cfg, &members, ws, &ents[nents], err);
    if (rc < 0)
      goto out;
    nents++;
  }
  rc = nub_tree_finish(t, fname, err);
  if (rc == 0 && lay && lay->root) {
    struct relayout r = {t, fname, cfg, &members, ws, lay};
    rc = relayout(&r, &ents, &nents, &capents, err);
  }
  if (rc < 0)
    goto out;
  for (size_t i = 0; i < nents; i++)
    if (ents[i].meta)
      nub_strmap_put(&meta, ents[i].path, (void *)ents[i].meta);
  set_flags(t, ws, &meta);
out:
  free_ents(ents, nents);
  nub_strmap_release(&meta, NULL);
  nub_strmap_release(&members, NULL);
  cJSON_Delete(root);
  return rc;
}

int nub_lockfile_bun_infos(const char *text, size_t len, const char *fname, struct nub_strmap *out,
                           struct nub_err *err)
{
  cJSON *root = NULL;
  const cJSON *v;
  int rc = nub_json_parse(text, len, fname, -NUB_ELOCKFILE, NUB_JSON_TRAILING_COMMAS, &root, err);

  if (rc < 0)
    return rc;
  cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(root, "packages"))
  {
    const cJSON *spec = cJSON_GetArrayItem(v, 0), *where = cJSON_GetArrayItem(v, 1);
    const cJSON *meta = cJSON_GetArrayItem(v, 2);
    const char *at;
    struct nub_buf info = NUB_BUF_INIT;
    /* registry entries only: [spec, registry, info, integrity] */
    if (!cJSON_IsArray(v) || !cJSON_IsString(spec) || !cJSON_IsString(where) ||
        !cJSON_IsObject(meta) || nub_strmap_get(out, spec->valuestring))
      continue;
    at = spec->valuestring[0] ? strrchr(spec->valuestring + 1, '@') : NULL;
    if (!at || strchr(at + 1, ':') || nub_is_http_url(at + 1))
      continue;
    info_text(&info, meta);
    nub_strmap_put(out, spec->valuestring, nub_buf_take(&info));
  }
  cJSON_Delete(root);
  return 0;
}

int nub_bun_unconflict(const char *text, size_t len, const char *fname, struct nub_buf *out,
                       struct nub_err *err)
{
  cJSON *doc;
  char *json;
  int rc = nub_json_unconflict(text, len, fname, -NUB_ELOCKFILE, NUB_JSON_TRAILING_COMMAS, &doc,
                               err);

  if (rc < 0)
    return rc;
  json = cJSON_PrintUnformatted(doc);
  cJSON_Delete(doc);
  if (!json)
    return nub_err_set(err, -ENOMEM, "out of memory merging %s", fname);
  nub_buf_adds(out, json);
  cJSON_free(json);
  return 0;
}
