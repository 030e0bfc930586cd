/* config.c - .npmrc layers, env and flags -> struct nub_config. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "text.h"
#include "url.h"

#ifndef NUB_DEFAULT_REGISTRY
#define NUB_DEFAULT_REGISTRY ""
#endif
#ifndef NUB_DEFAULT_GLOBALCONFIG
#define NUB_DEFAULT_GLOBALCONFIG ""
#endif

const char nub_config_no_registry_hint[] =
    "no registry is configured: set one with `registry=<url>` in .npmrc, "
    "npm_config_registry=<url> in the environment, or --registry <url>";

static const char *const layer_names[] = {"builtin", "global", "user",
                                          "project", "env", "cli"};

const char *nub_config_layer_name(enum nub_cfg_layer l)
{
  return (unsigned)l < NUB_CFG__LAYERS ? layer_names[l] : "unset";
}

/* npm compares keys case-insensitively and treats '_' like '-', except in
 * credential keys ("//host/:_authToken") whose tail is case-sensitive. */
static bool key_eq(const char *a, const char *b)
{
  if (a[0] == '/' || b[0] == '/')
    return strcmp(a, b) == 0;
  for (; *a && *b; a++, b++) {
    char x = (char)tolower((unsigned char)*a), y = (char)tolower((unsigned char)*b);
    if (x == '_')
      x = '-';
    if (y == '_')
      y = '-';
    if (x != y)
      return false;
  }
  return *a == *b;
}

static void set_entry(struct nub_config *cfg, const char *key, const char *val,
                      enum nub_cfg_layer layer, bool append)
{
  /* A later line in the same layer replaces an earlier one; an array's
   * ("key[]=") adds to it, one value per line. */
  for (size_t i = 0; i < cfg->nent; i++) {
    if (cfg->ent[i].layer == layer && key_eq(cfg->ent[i].key, key)) {
      char *v = append ? nub_asprintf("%s\n%s", cfg->ent[i].val, val) : nub_strdup(val);
      nub_free(cfg->ent[i].val);
      cfg->ent[i].val = v;
      return;
    }
  }
  NUB_GROW(cfg->ent, cfg->capent, cfg->nent + 1);
  cfg->ent[cfg->nent].key = nub_strdup(key);
  cfg->ent[cfg->nent].val = nub_strdup(val);
  cfg->ent[cfg->nent].layer = layer;
  cfg->ent[cfg->nent].withheld = false;
  cfg->nent++;
}

static const struct nub_cfg_entry *find(const struct nub_config *cfg,
                                        const char *key)
{
  const struct nub_cfg_entry *best = NULL;

  for (size_t i = 0; i < cfg->nent; i++)
    if (key_eq(cfg->ent[i].key, key) && (!best || cfg->ent[i].layer >= best->layer))
      best = &cfg->ent[i];
  return best;
}

const char *nub_config_get(const struct nub_config *cfg, const char *key)
{
  const struct nub_cfg_entry *e = find(cfg, key);
  return e ? e->val : NULL;
}

enum nub_cfg_layer nub_config_layer(const struct nub_config *cfg, const char *key)
{
  const struct nub_cfg_entry *e = find(cfg, key);
  return e ? e->layer : NUB_CFG__LAYERS;
}

bool nub_config_bool(const struct nub_config *cfg, const char *key, bool dflt)
{
  const char *v = nub_config_get(cfg, key);

  if (!v)
    return dflt;
  if (!strcmp(v, "") || !strcasecmp(v, "true") || !strcmp(v, "1") ||
      !strcasecmp(v, "yes"))
    return true;
  if (!strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "no"))
    return false;
  return dflt;
}

/* ${VAR} -> value; ${VAR?} -> value or empty; an unset ${VAR} stays literal
 * (npm's rules). */
static char *expand_vars(const char *s)
{
  size_t cap = strlen(s) + 64, len = 0;
  char *out = nub_malloc(cap);

  while (*s) {
    if (s[0] == '$' && s[1] == '{') {
      const char *end = strchr(s + 2, '}');
      if (end) {
        char name[256];
        size_t n = (size_t)(end - s - 2);
        bool optional = n > 0 && s[2 + n - 1] == '?';
        const char *v;
        if (optional)
          n--;
        if (n < sizeof(name)) {
          memcpy(name, s + 2, n);
          name[n] = '\0';
          v = getenv(name);
          if (v || optional) {
            size_t vl = v ? strlen(v) : 0;
            NUB_GROW(out, cap, len + vl + 1);
            memcpy(out + len, v ? v : "", vl);
            len += vl;
            s = end + 1;
            continue;
          }
        }
      }
    }
    NUB_GROW(out, cap, len + 2);
    out[len++] = *s++;
  }
  out[len] = '\0';
  return out;
}

static char *trim(char *s)
{
  char *e;

  while (*s == ' ' || *s == '\t')
    s++;
  e = s + strlen(s);
  while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
    *--e = '\0';
  return s;
}

/* Unquote a "..." value (JSON-ish escapes) or '...' value in place. */
static char *unquote(char *v)
{
  size_t n = strlen(v);

  if (n >= 2 && ((v[0] == '"' && v[n - 1] == '"') ||
                 (v[0] == '\'' && v[n - 1] == '\''))) {
    char q = v[0], *o = v;
    v[n - 1] = '\0';
    for (char *p = v + 1; *p; p++) {
      if (q == '"' && *p == '\\' && p[1]) {
        p++;
        *o++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
      } else {
        *o++ = *p;
      }
    }
    *o = '\0';
  }
  return v;
}

int nub_config_parse_npmrc(struct nub_config *cfg, const char *text,
                           const char *path, enum nub_cfg_layer layer,
                           bool expand_env, struct nub_err *err)
{
  const char *p = text;
  int lineno = 0;

  if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
      (unsigned char)p[2] == 0xBF)
    p += 3;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    char *line = nub_strndup(p, n), *l = trim(line), *eq, *k, *v;

    lineno++;
    p = nl ? nl + 1 : p + n;
    if (!*l || *l == ';' || *l == '#' || *l == '[') { /* [sections] are ignored like npm */
      nub_free(line);
      continue;
    }
    eq = strchr(l, '=');
    if (!eq) {
      /* npm treats a bare key as "true". */
      k = l;
      v = (char *)"true";
    } else {
      *eq = '\0';
      k = trim(l);
      v = unquote(trim(eq + 1));
    }
    if (!*k) {
      int rc = nub_err_set(err, -NUB_ECONFIG, "%s:%d: line has no key", path, lineno);
      nub_free(line);
      return rc;
    }
    {
      char *key = expand_env ? expand_vars(k) : nub_strdup(k);
      char *val = expand_env ? expand_vars(v) : nub_strdup(v);
      /* (the key's length after expansion: ${X?} may empty it) */
      size_t kl = strlen(key);
      bool array = kl > 2 && !strcmp(key + kl - 2, "[]");
      if (array)
        key[kl - 2] = '\0';
      if (*key)
        set_entry(cfg, key, val, layer, array);
      nub_free(key);
      nub_free(val);
    }
    nub_free(line);
  }
  return 0;
}

static int load_file(struct nub_config *cfg, const char *path,
                     enum nub_cfg_layer layer, bool expand, struct nub_err *err)
{
  char *text = NULL;
  size_t len;
  int rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, 4u << 20, &text, &len);

  if (rc == -ENOENT || rc == -ENOTDIR)
    return 0;
  if (rc < 0)
    return nub_err_set(err, -NUB_ECONFIG, "cannot read %s: %s", path,
                       nub_strerror(rc));
  cfg->files[layer] = nub_strdup(path);
  rc = nub_config_parse_npmrc(cfg, text, path, layer, expand, err);
  nub_free(text);
  return rc;
}

/* npm_config_foo_bar=x and NPM_CONFIG_FOO_BAR=x set "foo-bar". */
static void load_env(struct nub_config *cfg)
{
  extern char **environ;

  for (char **e = environ; e && *e; e++) {
    const char *s = *e, *eq;
    if (strncasecmp(s, "npm_config_", 11))
      continue;
    eq = strchr(s, '=');
    if (!eq || eq == s + 11)
      continue;
    {
      char *key = nub_strndup(s + 11, (size_t)(eq - s - 11));
      for (char *c = key; *c; c++)
        *c = *c == '_' ? '-' : (char)tolower((unsigned char)*c);
      /* npm_config_userconfig and friends only steer file lookup. */
      set_entry(cfg, key, eq + 1, NUB_CFG_ENV, false);
      nub_free(key);
    }
  }
}

static char *with_slash(const char *url)
{
  size_t n = strlen(url);
  return n && url[n - 1] == '/' ? nub_strdup(url) : nub_asprintf("%s/", url);
}

static long get_long(const struct nub_config *cfg, const char *key, long dflt)
{
  const char *v = nub_config_get(cfg, key);
  char *end;
  long x;

  if (!v || !*v)
    return dflt;
  x = strtol(v, &end, 10);
  return *end ? dflt : x;
}

/* "registry" or "@scope:registry". */
static bool is_registry_key(const char *k)
{
  size_t kl = strlen(k);
  return key_eq(k, "registry") || (k[0] == '@' && kl > 9 && !strcmp(k + kl - 9, ":registry"));
}

/* npm's "nerf dart" of a URL: "//host[:port]/path/", cut after the last
 * '/', without scheme, userinfo, query or fragment, the host lowercased.
 * false when url is not an http(s) URL or does not fit. */
static bool nerf_dart(const char *url, char *out, size_t cap)
{
  struct nub_url_authority a;
  const char *path, *pend;
  size_t o = 0;

  if (!nub_is_http_url(url) || !nub_url_authority(url, &a))
    return false;
  path = a.end;
  pend = path + strcspn(path, "?#");
  while (pend > path && pend[-1] != '/')
    pend--;
  if ((size_t)(a.end - a.host) + (size_t)(pend - path) + 4 > cap || a.end == a.host)
    return false;
  out[o++] = '/';
  out[o++] = '/';
  for (const char *q = a.host; q < a.end; q++)
    out[o++] = (char)tolower((unsigned char)*q);
  if (pend == path)
    out[o++] = '/';
  memcpy(out + o, path, (size_t)(pend - path));
  o += (size_t)(pend - path);
  out[o] = '\0';
  return true;
}

static void add_warning(struct nub_config *cfg, char *msg)
{
  cfg->warnings = nub_realloc(cfg->warnings, sizeof(char *) * (cfg->nwarnings + 1));
  cfg->warnings[cfg->nwarnings++] = msg;
}

/* The project .npmrc's keys nothing reads: one line for those npm does not
 * know (npm warns of each), one for pnpm's settings, which pnpm 12 reads
 * only from pnpm-workspace.yaml. */
static void warn_unknown(struct nub_config *cfg)
{
  struct nub_buf typo = NUB_BUF_INIT, pnpm = NUB_BUF_INIT;

  for (size_t i = 0; i < cfg->nent; i++) {
    const char *k = cfg->ent[i].key, *near;
    char *camel;
    if (cfg->ent[i].layer != NUB_CFG_PROJECT || nub_npm_setting_known(k))
      continue;
    if ((camel = nub_npm_setting_pnpm_name(k))) {
      nub_buf_addf(&pnpm, "%s%s (%s)", pnpm.len ? ", " : "", k, camel);
      nub_free(camel);
      continue;
    }
    nub_buf_addf(&typo, "%s\"%s\"", typo.len ? ", " : "", k);
    if ((near = nub_npm_setting_nearest(k)))
      nub_buf_addf(&typo, " (did you mean \"%s\"?)", near);
  }
  if (typo.len)
    add_warning(cfg, nub_asprintf(".npmrc has settings npm does not know, ignored: %s",
                                  nub_buf_str(&typo)));
  if (pnpm.len)
    add_warning(cfg, nub_asprintf(".npmrc has pnpm settings, which pnpm 12 reads only from "
                                  "pnpm-workspace.yaml: %s; neither pnpm nor nub applies them "
                                  "here", nub_buf_str(&pnpm)));
  nub_buf_release(&typo);
  nub_buf_release(&pnpm);
}

/* Whether a registry that trusted configuration chose (the build's default,
 * a global or user npmrc, the environment, the command line) gets the
 * credential bound to `base` ("//host/path/" or "//host/path"). */
static bool trusted_registry_under(const struct nub_config *cfg, const char *base)
{
  size_t bl = strlen(base);

  for (size_t i = 0; i < cfg->nent; i++) {
    const struct nub_cfg_entry *e = &cfg->ent[i];
    char nerf[2048];
    if (e->layer == NUB_CFG_PROJECT || !is_registry_key(e->key))
      continue;
    if (!nerf_dart(e->val, nerf, sizeof(nerf)))
      continue;
    if (!strncmp(nerf, base, bl) && (base[bl - 1] == '/' || nerf[bl] == '/'))
      return true;
  }
  return false;
}

/* ${VAR} in a credential. A repository's own .npmrc may name any host, so
 * its credentials get a variable only for a registry trusted configuration
 * chose; otherwise (and wherever a variable is unset) the credential is
 * withheld - never sent as the literal text - and one warning says why. */
static void guard_credentials(struct nub_config *cfg)
{
  for (size_t i = 0; i < cfg->nent; i++) {
    struct nub_cfg_entry *e = &cfg->ent[i];
    char base[2048];
    const char *colon;
    if (!nub_config_is_credential(e->key) || !strstr(e->val, "${"))
      continue;
    colon = strrchr(e->key, ':');
    snprintf(base, sizeof(base), "%.*s", (int)(colon - e->key), e->key);
    if (e->layer == NUB_CFG_PROJECT) {
      if (!trusted_registry_under(cfg, base)) {
        e->withheld = true;
        add_warning(cfg, nub_asprintf(
            "%s in %s takes a secret from the environment for a registry that only "
            "this repository names; it was not used. Set the registry in ~/.npmrc, the "
            "environment or --registry, or move the line to ~/.npmrc",
            e->key, cfg->files[NUB_CFG_PROJECT] ? cfg->files[NUB_CFG_PROJECT] : ".npmrc"));
        continue;
      }
      {
        char *x = expand_vars(e->val);
        nub_free(e->val);
        e->val = x;
      }
    }
    if (strstr(e->val, "${")) {
      e->withheld = true;
      add_warning(cfg, nub_asprintf("%s (%s config) names an environment variable that "
                                    "is not set; it was not used", e->key,
                                    nub_config_layer_name(e->layer)));
    }
  }
}

int nub_config_load(struct nub_config *cfg, const char *project_dir,
                    const char *const *cli, size_t ncli, struct nub_err *err)
{
  return nub_config_load_for(cfg, project_dir, project_dir, cli, ncli, err);
}

int nub_config_load_for(struct nub_config *cfg, const char *project_dir, const char *npmrc_dir,
                        const char *const *cli, size_t ncli, struct nub_err *err)
{
  const char *home = nub_plat_home();
  const char *userrc, *globalrc, *v;
  char *path;
  int rc;

  memset(cfg, 0, sizeof(*cfg));
  cfg->project_dir = nub_strdup(project_dir);
  if (NUB_DEFAULT_REGISTRY[0])
    set_entry(cfg, "registry", NUB_DEFAULT_REGISTRY, NUB_CFG_BUILTIN, false);

  /* env first, so npm_config_userconfig / globalconfig can steer the files */
  load_env(cfg);
  for (size_t i = 0; i < ncli; i++) {
    const char *eq = strchr(cli[i], '=');
    if (eq) {
      char *k = nub_strndup(cli[i], (size_t)(eq - cli[i]));
      set_entry(cfg, k, eq + 1, NUB_CFG_CLI, false);
      nub_free(k);
    }
  }

  globalrc = nub_config_get(cfg, "globalconfig");
  if (!globalrc && sizeof(NUB_DEFAULT_GLOBALCONFIG) > 1)
    globalrc = NUB_DEFAULT_GLOBALCONFIG;
  if (globalrc) {
    char *g = nub_strdup(globalrc);
    rc = load_file(cfg, g, NUB_CFG_GLOBAL, true, err);
    nub_free(g);
    if (rc < 0)
      return rc;
  }
  userrc = nub_config_get(cfg, "userconfig");
  if (userrc) {
    char *u = nub_strdup(userrc);
    rc = load_file(cfg, u, NUB_CFG_USER, true, err);
    nub_free(u);
    if (rc < 0)
      return rc;
  } else if (home) {
    path = nub_asprintf("%s/.npmrc", home);
    rc = load_file(cfg, path, NUB_CFG_USER, true, err);
    nub_free(path);
    if (rc < 0)
      return rc;
  }
  path = nub_asprintf("%s/.npmrc", npmrc_dir);
  rc = load_file(cfg, path, NUB_CFG_PROJECT, false, err);
  nub_free(path);
  if (rc < 0)
    return rc;
  warn_unknown(cfg);

  /* Derived values. */
  v = nub_config_get(cfg, "registry");
  if (v && *v) {
    if (!nub_is_http_url(v))
      return nub_err_set(err, -NUB_ECONFIG,
                         "registry '%s' (from %s config) is not an http(s) URL", v,
                         nub_config_layer_name(nub_config_layer(cfg, "registry")));
    cfg->registry = with_slash(v);
  }
  if (NUB_DEFAULT_REGISTRY[0])
    cfg->default_registry = with_slash(NUB_DEFAULT_REGISTRY);

  v = nub_plat_getenv("NUB_STORE_DIR");
  if (!v || !*v)
    v = nub_config_get(cfg, "store-dir");
  if (v && *v) {
    cfg->store_dir = nub_strdup(v);
  } else {
    char *c = nub_plat_cache_dir();
    if (!c)
      return nub_err_set(err, -NUB_ECONFIG,
                         "cannot find a store directory: set HOME, NUB_STORE_DIR "
                         "or store-dir in .npmrc");
    cfg->store_dir = nub_asprintf("%s/nub", c);
    nub_free(c);
  }
  v = nub_plat_getenv("NUB_CACHE_DIR");
  cfg->cache_dir = v && *v ? nub_strdup(v) : nub_asprintf("%s/metadata", cfg->store_dir);

  v = nub_config_get(cfg, "node-linker");
  cfg->linker = NUB_LINKER_AUTO;
  if (v && !strcmp(v, "hoisted"))
    cfg->linker = NUB_LINKER_HOISTED;
  else if (v && !strcmp(v, "isolated"))
    cfg->linker = NUB_LINKER_ISOLATED;
  else if (v && *v && strcmp(v, "auto"))
    return nub_err_set(err, -NUB_ECONFIG,
                       "node-linker '%s' is not one of isolated, hoisted", v);

  v = nub_config_get(cfg, "package-import-method");
  cfg->import_method = NUB_IMPORT_AUTO;
  if (v && *v) {
    if (!strcmp(v, "auto"))
      cfg->import_method = NUB_IMPORT_AUTO;
    else if (!strcmp(v, "hardlink"))
      cfg->import_method = NUB_IMPORT_HARDLINK;
    else if (!strcmp(v, "clone"))
      cfg->import_method = NUB_IMPORT_CLONE;
    else if (!strcmp(v, "clone-or-copy"))
      cfg->import_method = NUB_IMPORT_CLONE_OR_COPY;
    else if (!strcmp(v, "copy"))
      cfg->import_method = NUB_IMPORT_COPY;
    else
      return nub_err_set(err, -NUB_ECONFIG,
                         "package-import-method '%s' is not one of auto, "
                         "hardlink, clone, clone-or-copy, copy", v);
  }
  cfg->fetch_retries = (int)get_long(cfg, "fetch-retries", 2);
  cfg->fetch_retry_mintimeout_ms = get_long(cfg, "fetch-retry-mintimeout", 1000);
  cfg->fetch_retry_maxtimeout_ms = get_long(cfg, "fetch-retry-maxtimeout", 30000);
  /* npm's meaning and default: the whole request within five minutes */
  cfg->fetch_timeout_ms = get_long(cfg, "fetch-timeout", 300000);
  /* and a transfer slower than 1 kB/s for 30 s is cut off well before */
  cfg->fetch_low_speed_limit = get_long(cfg, "fetch-low-speed-limit", 1024);
  cfg->fetch_low_speed_time_ms = get_long(cfg, "fetch-low-speed-time", 30000);
  if (cfg->fetch_low_speed_time_ms < 1000)
    cfg->fetch_low_speed_time_ms = 1000;
  if (cfg->fetch_low_speed_limit < 1)
    cfg->fetch_low_speed_limit = 1;
  /* connections per registry host (pnpm's default): over HTTP/2 each
   * carries many requests at once, and every extra one costs a TLS
   * handshake; 64 made a cold install of 1,234 packages 5% slower */
  cfg->network_concurrency = (int)get_long(cfg, "network-concurrency", 16);
  if (cfg->network_concurrency < 1)
    cfg->network_concurrency = 1;
  if (cfg->fetch_retries < 0)
    cfg->fetch_retries = 0;
  /* what one document may be before it is refused, not read whole:
   * registry documents (the largest real ones are some tens of MB) and
   * lockfiles (a 3,000-package monorepo's is a few MB) */
  cfg->max_document_bytes = (uint64_t)get_long(cfg, "max-document-size", 128) << 20;
  cfg->max_lockfile_bytes = (uint64_t)get_long(cfg, "max-lockfile-size", 128) << 20;
  cfg->strict_ssl = nub_config_bool(cfg, "strict-ssl", true);
  cfg->verify_store = nub_config_bool(cfg, "verify-store-integrity", true);
  /* A user-level ignore-scripts=true is not undone by a project file. */
  cfg->ignore_scripts = nub_config_bool(cfg, "ignore-scripts", false);
  if (!cfg->ignore_scripts &&
      nub_config_layer(cfg, "ignore-scripts") == NUB_CFG_PROJECT) {
    for (size_t i = 0; i < cfg->nent; i++)
      if (key_eq(cfg->ent[i].key, "ignore-scripts") &&
          cfg->ent[i].layer <= NUB_CFG_USER &&
          (!strcasecmp(cfg->ent[i].val, "true") || !strcmp(cfg->ent[i].val, "")))
        cfg->ignore_scripts = true;
  }
  /* Scoped registries get the same trailing slash as the main one. */
  for (size_t i = 0; i < cfg->nent; i++) {
    const char *k = cfg->ent[i].key;
    if (k[0] == '@' && is_registry_key(k)) {
      char *fixed = with_slash(cfg->ent[i].val);
      nub_free(cfg->ent[i].val);
      cfg->ent[i].val = fixed;
    }
  }
  cfg->gvs = nub_config_bool(cfg, "enable-global-virtual-store", true);
  guard_credentials(cfg);
  return 0;
}

void nub_config_release(struct nub_config *cfg)
{
  for (size_t i = 0; i < cfg->nent; i++) {
    nub_free(cfg->ent[i].key);
    nub_free(cfg->ent[i].val);
  }
  nub_free(cfg->ent);
  for (int l = 0; l < NUB_CFG__LAYERS; l++)
    nub_free(cfg->files[l]);
  nub_free(cfg->project_dir);
  nub_free(cfg->registry);
  nub_free(cfg->default_registry);
  nub_free(cfg->store_dir);
  nub_free(cfg->cache_dir);
  for (size_t i = 0; i < cfg->nwarnings; i++)
    nub_free(cfg->warnings[i]);
  nub_free(cfg->warnings);
  memset(cfg, 0, sizeof(*cfg));
}

const char *nub_config_registry_for(const struct nub_config *cfg,
                                    const char *name)
{
  if (name && name[0] == '@') {
    const char *slash = strchr(name, '/');
    if (slash) {
      char key[256];
      int n = snprintf(key, sizeof(key), "%.*s:registry", (int)(slash - name), name);
      if (n > 0 && (size_t)n < sizeof(key)) {
        const struct nub_cfg_entry *e = find(cfg, key);
        if (e && nub_is_http_url(e->val))
          return e->val; /* given a trailing slash by nub_config_load */
      }
    }
  }
  return cfg->registry;
}

static const char b64tab[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64(const char *s)
{
  size_t n = strlen(s), o = 0;
  char *out = nub_malloc(4 * ((n + 2) / 3) + 1);

  for (size_t i = 0; i < n; i += 3) {
    unsigned v = (unsigned char)s[i] << 16;
    if (i + 1 < n)
      v |= (unsigned char)s[i + 1] << 8;
    if (i + 2 < n)
      v |= (unsigned char)s[i + 2];
    out[o++] = b64tab[(v >> 18) & 63];
    out[o++] = b64tab[(v >> 12) & 63];
    out[o++] = i + 1 < n ? b64tab[(v >> 6) & 63] : '=';
    out[o++] = i + 2 < n ? b64tab[v & 63] : '=';
  }
  out[o] = '\0';
  return out;
}

/* The credential setting `base:kind`, or NULL; withheld values (see
 * guard_project_credentials) count as absent. */
static const char *cred(const struct nub_config *cfg, const char *base, const char *kind)
{
  const struct nub_cfg_entry *best = NULL;
  size_t bl = strlen(base), kl = strlen(kind);

  for (size_t i = 0; i < cfg->nent; i++) {
    const char *k = cfg->ent[i].key;
    if (cfg->ent[i].withheld || strncmp(k, base, bl) || k[bl] != ':' ||
        strcmp(k + bl + 1, kind) || strlen(k) != bl + 1 + kl)
      continue;
    if (!best || cfg->ent[i].layer >= best->layer)
      best = &cfg->ent[i];
  }
  return best && best->val[0] ? best->val : NULL;
}

static char *b64_decode(const char *s)
{
  char *dec = nub_strdup(s);
  size_t n = 0;
  unsigned acc = 0;
  int bits = 0;

  for (const char *c = s; *c && *c != '='; c++) {
    const char *pos = strchr(b64tab, *c);
    if (!pos)
      break;
    acc = (acc << 6) | (unsigned)(pos - b64tab);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      dec[n++] = (char)((acc >> bits) & 0xff);
    }
  }
  dec[n] = '\0';
  return dec;
}

/* Every kind of credential bound to exactly `base`. */
static char *auth_at(const struct nub_config *cfg, const char *base)
{
  const char *v, *user, *pw;

  if ((v = cred(cfg, base, "_authToken")))
    return nub_asprintf("Bearer %s", v);
  if ((v = cred(cfg, base, "_auth")))
    return nub_asprintf("Basic %s", v);
  user = cred(cfg, base, "username");
  pw = cred(cfg, base, "_password");
  if (user && pw) {
    /* _password is stored base64-encoded in .npmrc */
    char *dec = b64_decode(pw), *pair = nub_asprintf("%s:%s", user, dec), *enc = b64(pair);
    char *out = nub_asprintf("Basic %s", enc);
    nub_free(dec);
    nub_free(pair);
    nub_free(enc);
    return out;
  }
  return NULL;
}

/* A registry given as "https://user:password@host/path/" lends its
 * userinfo (percent-decoded) to every URL under its nerf dart, as npm
 * does: tarballs on the registry's host need it as much as packuments. */
static char *url_userinfo_auth(const struct nub_config *cfg, const char *url)
{
  char want[2048];

  if (!nerf_dart(url, want, sizeof(want)))
    return NULL;
  for (size_t i = 0; i < cfg->nent; i++) {
    const struct nub_cfg_entry *e = &cfg->ent[i];
    struct nub_url_authority a;
    char reg[2048], pair[1024];
    size_t o = 0;
    if (!is_registry_key(e->key) || e != find(cfg, e->key))
      continue; /* only the effective value of each registry setting */
    if (!nub_url_authority(e->val, &a) || !a.at || !nerf_dart(e->val, reg, sizeof(reg)) ||
        strncmp(want, reg, strlen(reg)))
      continue;
    for (const char *q = a.userinfo; q < a.at && o + 1 < sizeof(pair); q++) {
      if (*q == '%' && q + 2 < a.at && nub_hex_digit(q[1]) >= 0 && nub_hex_digit(q[2]) >= 0) {
        pair[o++] = (char)(nub_hex_digit(q[1]) * 16 + nub_hex_digit(q[2]));
        q += 2;
      } else {
        pair[o++] = *q;
      }
    }
    pair[o] = '\0';
    {
      char *enc = b64(pair), *out = nub_asprintf("Basic %s", enc);
      nub_free(enc);
      return out;
    }
  }
  return NULL;
}

/* npm's lookup (npm-registry-fetch's regKeyFromURI): from the request's
 * nerf dart up, one path segment at a time, the first key with a
 * credential of any kind wins, with or without its trailing slash. The
 * host is always compared whole: "//reg.example.com" never matches
 * "//reg.example.com.evil.net/". */
char *nub_config_auth_for(const struct nub_config *cfg, const char *url)
{
  char key[2048];
  size_t n;

  if (!nerf_dart(url, key, sizeof(key)))
    return NULL;
  for (n = strlen(key); n > 2;) {
    char *a = auth_at(cfg, key);
    if (a)
      return a;
    key[n - 1] = '\0'; /* "//h/a/" -> "//h/a" */
    a = auth_at(cfg, key);
    if (a)
      return a;
    while (n > 2 && key[n - 1] != '/')
      key[--n] = '\0';
  }
  return url_userinfo_auth(cfg, url);
}

bool nub_config_env_is_secret(const char *entry)
{
  static const char *const names[] = {"auth", "authtoken", "password", "username", "otp",
                                      "token", "certfile", "keyfile", "cert", "key", NULL};
  const char *eq = strchr(entry, '='), *k;
  char key[128];
  size_t n = 0;

  if (!eq)
    return false;
  if (((size_t)(eq - entry) == 9 && !strncmp(entry, "NPM_TOKEN", 9)) ||
      ((size_t)(eq - entry) == 15 && !strncmp(entry, "NODE_AUTH_TOKEN", 15)))
    return true;
  if (strncasecmp(entry, "npm_config_", 11))
    return false;
  k = entry + 11;
  /* a setting scoped to a registry ("//host/:_authToken") is a credential
   * whatever its tail */
  for (const char *q = k; q + 1 < eq; q++)
    if (q[0] == '/' && q[1] == '/')
      return true;
  /* the key in any spelling: "_authToken", "-authtoken", "AUTH_TOKEN" */
  for (; k < eq && n + 1 < sizeof(key); k++)
    if (*k != '_' && *k != '-')
      key[n++] = (char)tolower((unsigned char)*k);
  key[n] = '\0';
  for (int i = 0; names[i]; i++)
    if (!strcmp(key, names[i]))
      return true;
  return false;
}

bool nub_config_is_credential(const char *key)
{
  const char *c;

  if (key[0] != '/' || key[1] != '/' || !(c = strrchr(key, ':')))
    return false;
  c++;
  return !strcmp(c, "_authToken") || !strcmp(c, "_auth") || !strcmp(c, "_password") ||
         !strcmp(c, "username") || !strcmp(c, "certfile") || !strcmp(c, "keyfile");
}
