/* yarnrc.c - .yarnrc.yml, the part that shapes node_modules. */
#include "yarnrc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nub_alloc.h"
#include "nub_plat.h"
#include "text.h"
#include "yaml_read.h"

static int rd_exts(struct nub_yarnrc *rc, const struct nub_yrd *r, yaml_node_t *n)
{
  yaml_node_t *m;
  int err = nub_y_map(r, n, "packageExtensions", &m);

  if (err || !m)
    return err;
  NUB_Y_FOR_PAIRS(m, pr) {
    const char *sel;
    yaml_node_t *v = nub_y_node(r, pr->value), *ext;
    if ((err = nub_y_key(r, pr, "packageExtensions", &sel)) ||
        (err = nub_y_map(r, v, "a package extension", &ext)))
      return err;
    if (!ext)
      continue;
    NUB_Y_FOR_PAIRS(ext, fp) {
      const char *field;
      yaml_node_t *fv = nub_y_node(r, fp->value), *fm;
      char kind;
      if ((err = nub_y_key(r, fp, "a package extension", &field)))
        return err;
      if (!strcmp(field, "dependencies"))
        kind = 'd';
      else if (!strcmp(field, "peerDependencies"))
        kind = 'p';
      else if (!strcmp(field, "peerDependenciesMeta"))
        kind = 'm';
      else
        continue;
      if ((err = nub_y_map(r, fv, field, &fm)))
        return err;
      if (!fm)
        continue;
      NUB_Y_FOR_PAIRS(fm, ep) {
        const char *name;
        yaml_node_t *ev = nub_y_node(r, ep->value);
        if ((err = nub_y_key(r, ep, field, &name)))
          return err;
        if (kind == 'm') {
          yaml_node_t *mm;
          if ((err = nub_y_map(r, ev, field, &mm)))
            return err;
          for (yaml_node_pair_t *q = mm ? mm->data.mapping.pairs.start : NULL;
               mm && q < mm->data.mapping.pairs.top; q++) {
            const char *mk = nub_y_sval(nub_y_node(r, q->key));
            if (mk && nub_y_is_true(nub_y_node(r, q->value))) {
              rc->exts = nub_realloc(rc->exts, (rc->nexts + 1) * sizeof(*rc->exts));
              rc->exts[rc->nexts].selector = nub_strdup(sel);
              rc->exts[rc->nexts].kind = 'm';
              rc->exts[rc->nexts].name = nub_strdup(name);
              rc->exts[rc->nexts++].value = nub_strdup(mk);
            }
          }
          continue;
        }
        if (!nub_y_sval(ev))
          return nub_y_bad(r, ev, "%s.%s must be a range", field, name);
        rc->exts = nub_realloc(rc->exts, (rc->nexts + 1) * sizeof(*rc->exts));
        rc->exts[rc->nexts].selector = nub_strdup(sel);
        rc->exts[rc->nexts].kind = kind;
        rc->exts[rc->nexts].name = nub_strdup(name);
        rc->exts[rc->nexts++].value = nub_strdup(nub_y_sval(ev));
      }
    }
  }
  return 0;
}

/* yarn 4.18's settings (`yarn config`, its bundled plugins), and plugins:
 * berry refuses a file with any other key unless YARN_ENABLE_STRICT_SETTINGS
 * is false or a plugin of the project's may declare it. Sorted, for
 * bsearch. */
static const char *const berry_keys[] = {
    "approvedGitRepositories", "cacheFolder", "cacheMigrationMode", "catalog", "catalogs",
    "changesetBaseRefs", "changesetIgnorePatterns", "checksumBehavior", "cloneConcurrency",
    "compressionLevel", "constraintsPath", "defaultLanguageName", "defaultProtocol",
    "defaultSemverRangePrefix", "deferredVersionFolder", "enableCacheClean", "enableColors",
    "enableConstraintsChecks", "enableGlobalCache", "enableHardenedMode", "enableHyperlinks",
    "enableImmutableCache", "enableImmutableInstalls", "enableInlineBuilds", "enableInlineHunks",
    "enableMessageNames", "enableMirror", "enableNetwork", "enableOfflineMode",
    "enableProgressBars", "enableScripts", "enableStrictSettings", "enableStrictSsl",
    "enableTelemetry", "enableTimers", "enableTips", "enableTransparentWorkspaces", "globalFolder",
    "httpProxy", "httpRetry", "httpTimeout", "httpsCaFilePath", "httpsCertFilePath",
    "httpsKeyFilePath", "httpsProxy", "ignorePath", "immutablePatterns", "initEditorConfig",
    "initFields", "initScope", "injectEnvironmentFiles", "installStatePath", "lastUpdateCheck",
    "logFilters", "minizip", "networkConcurrency", "networkSettings", "nmHoistingLimits", "nmMode",
    "nmSelfReferences", "nodeExperimentalPackageMap", "nodeLinker", "nodePackageMapType",
    "npmAlwaysAuth", "npmAuditExcludePackages", "npmAuditIgnoreAdvisories", "npmAuditRegistry",
    "npmAuthIdent", "npmAuthToken", "npmMinimalAgeGate", "npmPreapprovedPackages",
    "npmPublishAccess", "npmPublishProvenance", "npmPublishRegistry", "npmRegistries",
    "npmRegistryServer", "npmScopes", "packageExtensions", "patchFolder", "plugins",
    "pnpEnableEsmLoader", "pnpEnableInlining", "pnpFallbackMode", "pnpIgnorePatterns", "pnpMode",
    "pnpShebang", "pnpUnpluggedFolder", "pnpZipBackend", "pnpmInstallConcurrency",
    "pnpmStoreFolder", "preferDeferredVersions", "preferInteractive", "preferReuse",
    "preferTruncatedLines", "progressBarStyle", "rcFilename", "supportedArchitectures",
    "taskPoolConcurrency", "taskPoolMode", "telemetryInterval", "telemetryUserId",
    "tsEnableAutoTypes", "unsafeHttpWhitelist", "virtualFolder", "winLinkType", "yarnPath",
};

#define NBERRY (sizeof(berry_keys) / sizeof(berry_keys[0]))

static int cmp_key(const void *a, const void *b)
{
  return strcmp((const char *)a, *(const char *const *)b);
}

/* The keys of path berry does not know, for nub_yarnrc_load to refuse. */
static void note_unknown(struct nub_yarnrc *rc, const char *path, const char *k)
{
  const char *near;

  if (bsearch(k, berry_keys, NBERRY, sizeof(berry_keys[0]), cmp_key))
    return;
  if (!rc->unknown.len)
    nub_buf_addf(&rc->unknown, "%s: ", path);
  else
    nub_buf_adds(&rc->unknown, ", ");
  nub_buf_addf(&rc->unknown, "\"%s\"", k);
  if ((near = nub_text_nearest(k, berry_keys, NBERRY)))
    nub_buf_addf(&rc->unknown, " (did you mean \"%s\"?)", near);
}

/* One file's text: keys it sets that no nearer file set. */
static int parse_one(struct nub_yarnrc *rc, const char *text, size_t len, const char *path,
                     bool *have_ext, bool *have_lim, bool *have_self, struct nub_err *err)
{
  yaml_document_t doc;
  yaml_node_t *root;
  struct nub_yrd r = {&doc, path, err, -NUB_ECONFIG};
  int rc2;

  rc2 = nub_yaml_load(&doc, text, len, path, -NUB_ECONFIG, err);
  if (rc2 < 0)
    return rc2;
  root = yaml_document_get_root_node(&doc);
  if (root && root->type == YAML_MAPPING_NODE) {
    NUB_Y_FOR_PAIRS(root, pr) {
      const char *k = nub_y_sval(nub_y_node(&r, pr->key));
      yaml_node_t *v = nub_y_node(&r, pr->value);
      if (!k)
        continue;
      note_unknown(rc, path, k);
      if (!strcmp(k, "plugins"))
        rc->plugins = true;
      else if (!strcmp(k, "enableScripts") && !rc->scripts_set && nub_y_sval(v)) {
        rc->scripts_set = true;
        rc->scripts_off = !strcmp(nub_y_sval(v), "false");
      }
      if (!strcmp(k, "nodeLinker") && !rc->node_linker) {
        if (!nub_y_sval(v)) {
          rc2 = nub_y_bad(&r, v, "nodeLinker must be a string");
          break;
        }
        rc->node_linker = nub_strdup(nub_y_sval(v));
        rc->node_linker_from = nub_strdup(path);
      } else if (!strcmp(k, "nmHoistingLimits") && !*have_lim) {
        *have_lim = true;
        if (!nub_y_sval(v)) {
          rc2 = nub_y_bad(&r, v, "nmHoistingLimits must be none, workspaces or dependencies");
          break;
        }
        rc->nm_hoisting_limits = nub_strdup(nub_y_sval(v));
      } else if (!strcmp(k, "nmSelfReferences") && !*have_self) {
        *have_self = true;
        rc->nm_self_references = !nub_y_sval(v) || strcmp(nub_y_sval(v), "false");
      } else if (!strcmp(k, "npmRegistryServer") && !rc->registry) {
        if (!nub_y_sval(v)) {
          rc2 = nub_y_bad(&r, v, "npmRegistryServer must be a URL");
          break;
        }
        rc->registry = nub_strdup(nub_y_sval(v));
      } else if (!strcmp(k, "npmScopes") && v->type == YAML_MAPPING_NODE) {
        NUB_Y_FOR_PAIRS(v, sp) {
          const char *scope = nub_y_sval(nub_y_node(&r, sp->key));
          yaml_node_t *sv = nub_y_node(&r, sp->value);
          const char *reg = NULL;
          bool have = false;
          if (!scope)
            continue;
          for (size_t i = 0; i < rc->nscopes && !have; i++)
            have = !strcmp(rc->scopes[i], scope);
          if (have)
            continue; /* a nearer file set it */
          if (sv->type == YAML_MAPPING_NODE)
            NUB_Y_FOR_PAIRS(sv, fp) {
              const char *f = nub_y_sval(nub_y_node(&r, fp->key));
              if (f && !strcmp(f, "npmRegistryServer"))
                reg = nub_y_sval(nub_y_node(&r, fp->value));
            }
          rc->scopes = nub_realloc(rc->scopes, (rc->nscopes + 1) * sizeof(char *));
          rc->scope_registries =
              nub_realloc(rc->scope_registries, (rc->nscopes + 1) * sizeof(char *));
          rc->scopes[rc->nscopes] = nub_strdup(scope[0] == '@' ? scope + 1 : scope);
          rc->scope_registries[rc->nscopes++] = nub_strdup(reg ? reg : "");
        }
      } else if (!strcmp(k, "packageExtensions") && !*have_ext) {
        *have_ext = true;
        if ((rc2 = rd_exts(rc, &r, v)) < 0)
          break;
      }
    }
  }
  yaml_document_delete(&doc);
  return rc2 < 0 ? rc2 : 0;
}

static int read_one(struct nub_yarnrc *rc, const char *path, bool *have_ext, bool *have_lim,
                    bool *have_self, struct nub_err *err)
{
  char *text = NULL;
  size_t len = 0;
  int r;

  if (nub_plat_read_file_at(NUB_PLAT_CWD, path, 1u << 24, &text, &len) < 0)
    return 0; /* none there */
  r = parse_one(rc, text, len, path, have_ext, have_lim, have_self, err);
  nub_free(text);
  return r;
}

int nub_yarnrc_parse(struct nub_yarnrc *rc, const char *text, size_t len, const char *path,
                     struct nub_err *err)
{
  bool have_ext = false, have_lim = false, have_self = false;

  memset(rc, 0, sizeof(*rc));
  rc->nm_self_references = true;
  return parse_one(rc, text, len, path, &have_ext, &have_lim, &have_self, err);
}

int nub_yarnrc_load(struct nub_yarnrc *rc, const char *dir, struct nub_err *err)
{
  bool have_ext = false, have_lim = false, have_self = false;
  const char *env;
  char *d = nub_strdup(dir);
  int r = 0;

  memset(rc, 0, sizeof(*rc));
  rc->nm_self_references = true;
  if ((env = nub_plat_getenv("YARN_ENABLE_SCRIPTS")) && *env) {
    rc->scripts_set = true;
    rc->scripts_off = !strcmp(env, "false") || !strcmp(env, "0");
  }
  if ((env = nub_plat_getenv("YARN_NODE_LINKER")) && *env) {
    rc->node_linker = nub_strdup(env);
    rc->node_linker_from = nub_strdup("YARN_NODE_LINKER");
  }
  if ((env = nub_plat_getenv("YARN_NPM_REGISTRY_SERVER")) && *env)
    rc->registry = nub_strdup(env);
  if ((env = nub_plat_getenv("YARN_NM_HOISTING_LIMITS")) && *env) {
    rc->nm_hoisting_limits = nub_strdup(env);
    have_lim = true;
  }
  /* the project's folder up to the root, then the home folder */
  for (;;) {
    char *path = nub_asprintf("%s/.yarnrc.yml", d[0] ? d : "");
    char *slash;
    r = read_one(rc, path, &have_ext, &have_lim, &have_self, err);
    nub_free(path);
    if (r < 0)
      break;
    slash = strrchr(d, '/');
    if (!slash || slash == d) {
      if (slash == d && d[1]) {
        d[1] = '\0';
        d[0] = '\0';
        continue;
      }
      break;
    }
    *slash = '\0';
  }
  nub_free(d);
  if (r == 0 && (env = nub_plat_getenv("HOME")) && *env) {
    char *path = nub_asprintf("%s/.yarnrc.yml", env);
    r = read_one(rc, path, &have_ext, &have_lim, &have_self, err);
    nub_free(path);
  }
  env = nub_plat_getenv("YARN_ENABLE_STRICT_SETTINGS");
  /* (berry reads enableStrictSettings too late for a file to turn it off
   * for itself: only the environment does, tested) */
  if (r == 0 && rc->unknown.len && !rc->plugins && !(env && !strcmp(env, "false")))
    r = nub_err_set(err, -NUB_ECONFIG, "yarn does not know these settings, and refuses them as "
                    "nub does: %s; fix them (or run with YARN_ENABLE_STRICT_SETTINGS=false)",
                    nub_buf_str(&rc->unknown));
  if (r < 0)
    nub_yarnrc_release(rc);
  return r;
}

void nub_yarnrc_release(struct nub_yarnrc *rc)
{
  nub_free(rc->node_linker);
  nub_free(rc->node_linker_from);
  nub_free(rc->nm_hoisting_limits);
  nub_free(rc->registry);
  nub_strarray_free(rc->scopes, rc->nscopes);
  nub_strarray_free(rc->scope_registries, rc->nscopes);
  for (size_t i = 0; i < rc->nexts; i++) {
    nub_free((char *)rc->exts[i].selector);
    nub_free((char *)rc->exts[i].name);
    nub_free((char *)rc->exts[i].value);
  }
  nub_free(rc->exts);
  nub_buf_release(&rc->unknown);
  memset(rc, 0, sizeof(*rc));
}
