/* lockfile_npm.c - npm lockfile reader (v1 nested, v2/v3 flat). */
#include "lockfile_npm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "gitspec.h"
#include "integrity.h"
#include "json.h"
#include "nub_alloc.h"
#include "path.h"
#include "workspace.h"
#include "registry_url.h"

#define jstr nub_json_str
#define jtrue nub_json_true

/* Fill a node's package from version/resolved/integrity; handles npm:
 * aliases and refuses sources nub cannot fetch yet, naming the entry. */
static int set_pkg(struct nub_tree *t, struct nub_node *n, const char *real_name,
                   const char *version, const char *resolved, const char *integrity,
                   const struct nub_config *cfg, const char *fname,
                   struct nub_err *err)
{
  char *tarball = NULL;
  const char *name = real_name, *ver;
  char aliased[512];

  if (!version)
    return nub_err_set(err, -NUB_ELOCKFILE, "%s entry '%s' has no version", fname,
                       n->path);
  if (nub_spec_npm_alias(version, aliased, sizeof(aliased), &ver)) { /* v1: "npm:real@1.2.3" */
    if (!ver || !*ver || !aliased[0])
      return nub_err_set(err, -NUB_ELOCKFILE, "%s entry '%s' has a bad alias '%s'",
                         fname, n->path, version);
    name = aliased;
    version = ver;
  }
  if (!nub_valid_pkg_name(name))
    return nub_err_set(err, -NUB_EUNSAFE, "%s entry '%s' has an invalid package name '%s'",
                       fname, n->path, name);
  if (resolved && !strncmp(resolved, "git+", 4)) {
    /* npm's resolved git dependency: "git+<url>#<commit>" */
    char commit[41], *url = NULL;
    if (!nub_git_split_resolved(resolved, &url, commit))
      return nub_err_set(err, -NUB_ELOCKFILE, "%s entry '%s' is a git dependency without its "
                         "commit (%s)", fname, n->path, resolved);
    nub_free(url);
    tarball = nub_strdup(resolved);
  } else if (resolved && (!strncmp(resolved, "git", 3) || strstr(resolved, "://github.com/") ||
                          !strncmp(resolved, "github:", 7))) {
    return nub_err_set(err, -NUB_ESPEC,
                       "%s entry '%s' is a git dependency nub cannot install from (%s)",
                       fname, n->path, resolved);
  }
  if (!tarball && resolved && !strncmp(resolved, "file:", 5)) {
    /* a tarball of the project's (npm records file: directories as links) */
    tarball = nub_pkg_tarball_url(cfg, cfg->project_dir, name, version, resolved);
  }
  if (integrity) {
    struct nub_sri sri;
    if (nub_sri_parse(&sri, integrity) < 0) {
      nub_free(tarball);
      return nub_err_set(err, -NUB_ELOCKFILE, "%s entry '%s' has an invalid integrity '%s'",
                         fname, n->path, integrity);
    }
  }
  if (tarball) {
    /* set above */
  } else if (resolved && nub_is_http_url(resolved)) {
    tarball = nub_rewrite_registry_url(cfg, name, resolved);
  } else if (nub_is_http_url(version)) { /* v1 URL dependency: version is the URL */
    tarball = nub_strdup(version);
  } else {
    tarball = nub_registry_tarball_url(cfg, name, version);
    if (!tarball)
      return nub_err_set(err, -NUB_ENOREGISTRY, "%s entry '%s' has no resolved URL and %s",
                         fname, n->path, nub_config_no_registry_hint);
  }
  n->pkg = nub_tree_pkg(t, name, version, tarball, integrity);
  nub_free(tarball);
  return 0;
}

/* The names a node depends on: dependency maps (v2/v3) or "requires" (v1). */
static void set_deps(struct nub_node *n, const cJSON *e)
{
  static const char *const keys[] = {"dependencies", "optionalDependencies",
                                     "peerDependencies", "requires"};
  size_t cap = 0;

  for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, keys[k]), *it;
    /* v1's "dependencies" holds nested entries, not names */
    if (!cJSON_IsObject(m) || (k == 0 && cJSON_GetObjectItemCaseSensitive(e, "requires")))
      continue;
    cJSON_ArrayForEach(it, m)
    {
      bool dup = false;
      if (!it->string)
        continue;
      if (k == 0 && cJSON_IsObject(it))
        continue; /* a v1 nested entry */
      for (size_t i = 0; i < n->ndeps && !dup; i++)
        dup = !strcmp(n->deps[i], it->string);
      if (dup)
        continue;
      NUB_GROW(n->deps, cap, n->ndeps + 1);
      n->deps[n->ndeps++] = nub_strdup(it->string);
    }
  }
  nub_json_depmap(cJSON_GetObjectItemCaseSensitive(e, "peerDependencies"), &n->peers);
  {
    /* optional peers: an edge that does not make its target needed */
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(e, "peerDependenciesMeta"), *it;
    const cJSON *deps = cJSON_GetObjectItemCaseSensitive(e, "dependencies");
    const cJSON *opt = cJSON_GetObjectItemCaseSensitive(e, "optionalDependencies");
    size_t pcap = 0;
    cJSON_ArrayForEach(it, meta)
    {
      if (!it->string || !nub_json_true(it, "optional") ||
          cJSON_GetObjectItemCaseSensitive(deps, it->string) ||
          cJSON_GetObjectItemCaseSensitive(opt, it->string))
        continue;
      NUB_GROW(n->opt_peers, pcap, n->nopt_peers + 1);
      n->opt_peers[n->nopt_peers++] = nub_strdup(it->string);
    }
  }
}

static void set_platform(struct nub_node *n, const cJSON *e)
{
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(e, "os"), &n->os, &n->nos);
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(e, "cpu"), &n->cpu, &n->ncpu);
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(e, "libc"), &n->libc, &n->nlibc);
  {
    const cJSON *node = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(e, "engines"), "node");
    if (cJSON_IsString(node)) {
      nub_free(n->engine_node);
      n->engine_node = nub_strdup(node->valuestring);
    }
  }
}

static unsigned flags_of(const cJSON *e)
{
  unsigned f = 0;

  if (jtrue(e, "dev"))
    f |= NUB_NF_DEV;
  if (jtrue(e, "optional"))
    f |= NUB_NF_OPTIONAL;
  if (jtrue(e, "devOptional"))
    f |= NUB_NF_DEV_OPTIONAL;
  if (jtrue(e, "peer"))
    f |= NUB_NF_PEER;
  if (jtrue(e, "inBundle") || jtrue(e, "bundled"))
    f |= NUB_NF_BUNDLED;
  if (jtrue(e, "hasInstallScript"))
    f |= NUB_NF_INSTALL_SCRIPT;
  return f;
}

/* Whether the root entry's "workspaces" globs take folder `key` in (a
 * member, not a file: directory). */
static bool is_member(const cJSON *packages, const char *key)
{
  const cJSON *root = cJSON_GetObjectItemCaseSensitive(packages, "");
  const cJSON *globs = cJSON_GetObjectItemCaseSensitive(root, "workspaces"), *g;
  bool in = false;

  if (cJSON_IsObject(globs))
    globs = cJSON_GetObjectItemCaseSensitive(globs, "packages");
  cJSON_ArrayForEach(g, globs)
  {
    if (!cJSON_IsString(g))
      continue;
    if (g->valuestring[0] == '!' && nub_workspace_glob_match(g->valuestring + 1, key))
      return false;
    if (g->valuestring[0] != '!' && nub_workspace_glob_match(g->valuestring, key))
      in = true;
  }
  return in;
}

/* arborist's inDepBundle: an entry is bundled by the nearest ancestor's
 * bundler, found from the top down. When the package right under the project
 * (or a member) is itself in a bundle, the bundler is the project: npm ci
 * installs it and everything bundled beneath it like any other dependency.
 * Otherwise the bundler is a package, whose tarball brings the entry. */
static bool in_dep_bundle(const cJSON *packages, const char *key)
{
  const char *nm = strstr(key, "node_modules/");
  const char *name, *end;
  const cJSON *top_entry;
  char top[4096];
  size_t len;

  if (!nm)
    return false;
  name = nm + 13;
  end = strchr(name, '/');
  if (end && name[0] == '@')
    end = strchr(end + 1, '/');
  if (!end)
    return false; /* right under the project or a member: its bundler is that */
  len = (size_t)(end - key);
  if (len >= sizeof(top))
    return true;
  memcpy(top, key, len);
  top[len] = '\0';
  top_entry = cJSON_GetObjectItemCaseSensitive(packages, top);
  return !top_entry || !(jtrue(top_entry, "inBundle") || jtrue(top_entry, "bundled"));
}

static int parse_v2(struct nub_tree *t, const cJSON *packages, const char *fname,
                    const struct nub_config *cfg, struct nub_err *err)
{
  const cJSON *e;

  cJSON_ArrayForEach(e, packages)
  {
    const char *key = e->string;
    struct nub_node *n;
    size_t idx;
    int rc;

    if (!key)
      continue;
    if (!cJSON_IsObject(e))
      return nub_err_set(err, -NUB_ELOCKFILE, "%s entry '%s' is not an object", fname, key);
    if (key[0] == '\0') { /* the root project */
      nub_json_depmap(cJSON_GetObjectItemCaseSensitive(e, "dependencies"), &t->root_deps);
      nub_json_depmap(cJSON_GetObjectItemCaseSensitive(e, "devDependencies"), &t->root_dev);
      nub_json_depmap(cJSON_GetObjectItemCaseSensitive(e, "optionalDependencies"),
                      &t->root_optional);
      nub_json_depmap(cJSON_GetObjectItemCaseSensitive(e, "peerDependencies"), &t->root_peer);
      t->has_root_deps = true;
      continue;
    }
    {
      char norm[4096];
      if (nub_path_normalize(key, norm, sizeof(norm)) < 0 || strcmp(norm, key))
        return nub_err_set(err, -NUB_EUNSAFE, "%s has an unsafe entry path '%s'", fname, key);
    }
    idx = nub_tree_add_node(t, key);
    n = &t->nodes[idx];
    n->flags = flags_of(e);
    set_platform(n, e);
    set_deps(n, e);
    {
      /* v2 and v3 record every package's "bin": none recorded is none */
      const char *folder = nub_path_pkg_name(key);
      nub_json_bins(e, folder ? folder : key, &n->bins, &n->nbins);
      n->bins_known = true;
    }
    if (!strstr(key, "node_modules/") || (strncmp(key, "node_modules/", 13) &&
                                          !nub_path_pkg_name(key))) {
      n->flags |= NUB_NF_LOCAL; /* a workspace folder of the project */
      if (is_member(packages, key))
        n->member_specs = nub_json_member_specs(e);
      continue;
    }
    if (!nub_path_pkg_name(key))
      return nub_err_set(err, -NUB_ELOCKFILE, "%s entry '%s' is not a package path",
                         fname, key);
    if (jtrue(e, "link")) {
      const char *target = jstr(e, "resolved");
      char norm[4096];
      if (!target)
        return nub_err_set(err, -NUB_ELOCKFILE, "%s link entry '%s' has no target",
                           fname, key);
      /* targets are relative to the project and may leave it ("../lib") */
      if (target[0] == '/' || strlen(target) >= sizeof(norm))
        return nub_err_set(err, -NUB_EUNSAFE, "%s link entry '%s' has an unsafe target '%s'",
                           fname, key, target);
      n->flags |= NUB_NF_LINK;
      n->link_target = nub_strdup(target);
      continue;
    }
    if ((n->flags & NUB_NF_BUNDLED) && in_dep_bundle(packages, key))
      continue; /* comes inside its bundler's tarball */
    n->flags &= ~NUB_NF_BUNDLED;
    {
      const char *folder = nub_path_pkg_name(key);
      const char *real = jstr(e, "name");
      const cJSON *patched = cJSON_GetObjectItemCaseSensitive(e, "patched");
      rc = set_pkg(t, n, real ? real : folder, jstr(e, "version"), jstr(e, "resolved"),
                   jstr(e, "integrity"), cfg, fname, err);
      if (rc < 0)
        return rc;
      /* npm 12's record of a patch it applied (lockfileVersion 4) */
      if (cJSON_IsObject(patched) && jstr(patched, "integrity") && jstr(patched, "path") &&
          jstr(e, "version")) {
        struct nub_depmap *m = &t->patched;
        m->v = nub_realloc(m->v, (m->n + 1) * sizeof(*m->v));
        m->v[m->n].name = nub_asprintf("%s@%s", real ? real : folder, jstr(e, "version"));
        m->v[m->n].spec = nub_asprintf("%s %s", jstr(patched, "integrity"), jstr(patched, "path"));
        m->n++;
      }
    }
  }
  return 0;
}

static int parse_v1(struct nub_tree *t, const cJSON *deps, const char *prefix,
                    const char *fname, const struct nub_config *cfg, int depth,
                    struct nub_err *err)
{
  const cJSON *e;

  if (depth > 200)
    return nub_err_set(err, -NUB_ELOCKFILE, "%s nests dependencies too deeply", fname);
  cJSON_ArrayForEach(e, deps)
  {
    const char *name = e->string;
    char *path;
    size_t idx;
    struct nub_node *n;
    int rc;

    if (!name || !cJSON_IsObject(e))
      return nub_err_set(err, -NUB_ELOCKFILE, "%s dependency '%s' is not an object",
                         fname, name ? name : "?");
    if (!nub_valid_pkg_name(name))
      return nub_err_set(err, -NUB_EUNSAFE, "%s has an invalid dependency name '%s'",
                         fname, name);
    path = prefix[0] ? nub_asprintf("%s/node_modules/%s", prefix, name)
                     : nub_asprintf("node_modules/%s", name);
    idx = nub_tree_add_node(t, path);
    n = &t->nodes[idx];
    n->flags = flags_of(e);
    set_deps(n, e);
    if (!(n->flags & NUB_NF_BUNDLED)) {
      const char *version = jstr(e, "version");
      if (version && !strncmp(version, "file:", 5)) {
        n->flags |= NUB_NF_LINK;
        n->link_target = nub_strdup(version + 5);
      } else {
        rc = set_pkg(t, n, name, version, jstr(e, "resolved"), jstr(e, "integrity"), cfg,
                     fname, err);
        if (rc < 0) {
          nub_free(path);
          return rc;
        }
      }
    }
    {
      const cJSON *sub = cJSON_GetObjectItemCaseSensitive(e, "dependencies");
      if (cJSON_IsObject(sub)) {
        rc = parse_v1(t, sub, path, fname, cfg, depth + 1, err);
        if (rc < 0) {
          nub_free(path);
          return rc;
        }
      }
    }
    nub_free(path);
  }
  return 0;
}

int nub_lockfile_npm_parse(struct nub_tree *t, const char *text, size_t len,
                           const char *fname, const struct nub_config *cfg,
                           struct nub_err *err)
{
  cJSON *root;
  const cJSON *ver, *packages, *deps;
  int rc = nub_json_parse(text, len, fname, -NUB_ELOCKFILE, 0, &root, err);

  if (rc < 0)
    return rc;
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return nub_err_set(err, -NUB_ELOCKFILE, "%s must contain a JSON object", fname);
  }
  ver = cJSON_GetObjectItemCaseSensitive(root, "lockfileVersion");
  packages = cJSON_GetObjectItemCaseSensitive(root, "packages");
  deps = cJSON_GetObjectItemCaseSensitive(root, "dependencies");
  t->lockfile_version = cJSON_IsNumber(ver) ? ver->valueint : 0;
  t->platform_unrecorded = t->lockfile_version < 2; /* v1 records no os or cpu */
  if (t->lockfile_version > 4) {
    rc = nub_err_set(err, -NUB_ELOCKVERSION,
                     "%s has lockfileVersion %d, newer than nub reads (1-4); "
                     "upgrade nub", fname, t->lockfile_version);
  } else if (cJSON_IsObject(packages) && t->lockfile_version >= 2) {
    t->npm_patches = true;
    rc = parse_v2(t, packages, fname, cfg, err);
  } else if (t->lockfile_version >= 2) {
    rc = nub_err_set(err, -NUB_ELOCKFILE, "%s (lockfileVersion %d) has no \"packages\"",
                     fname, t->lockfile_version);
  } else if (cJSON_IsObject(deps) || !deps) {
    if (deps)
      rc = parse_v1(t, deps, "", fname, cfg, 0, err);
  } else {
    rc = nub_err_set(err, -NUB_ELOCKFILE, "%s: \"dependencies\" is not an object", fname);
  }
  cJSON_Delete(root);
  if (rc == 0)
    rc = nub_tree_finish(t, fname, err);
  return rc;
}
