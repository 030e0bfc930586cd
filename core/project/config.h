/* config.h - settings from .npmrc files, npm_config_* env and CLI flags.
 *
 * Layers, lowest to highest: built-in defaults, global npmrc, user ~/.npmrc,
 * project .npmrc, environment (npm_config_<key>), command-line flags.
 * ${VAR} is expanded in the user and global files. In a repository's own
 * .npmrc it is expanded only in a credential bound to a registry that
 * trusted configuration chose (so a cloned repository cannot send a CI
 * secret to a host of its choosing); elsewhere such a credential is
 * withheld with a warning, never sent as its literal text. Credentials are
 * bound to a registry URL ("//host/path/:_authToken") and go only to URLs
 * under it, the host compared whole. */
#ifndef NUB_CONFIG_H
#define NUB_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "err.h"

enum nub_cfg_layer {
  NUB_CFG_BUILTIN,
  NUB_CFG_GLOBAL,
  NUB_CFG_USER,
  NUB_CFG_PROJECT,
  NUB_CFG_ENV,
  NUB_CFG_CLI,
  NUB_CFG__LAYERS
};

struct nub_cfg_entry {
  char *key, *val;
  enum nub_cfg_layer layer;
  bool withheld; /* a credential that must not be sent (see config.c) */
};

enum nub_node_linker { NUB_LINKER_AUTO, NUB_LINKER_HOISTED, NUB_LINKER_ISOLATED };
enum nub_import_method {
  NUB_IMPORT_AUTO,
  NUB_IMPORT_HARDLINK,
  NUB_IMPORT_CLONE,
  NUB_IMPORT_CLONE_OR_COPY,
  NUB_IMPORT_COPY
};

struct nub_config {
  struct nub_cfg_entry *ent; /* every key seen, all layers */
  size_t nent, capent;
  char *files[NUB_CFG__LAYERS]; /* path of the file read per layer, or NULL */

  /* Derived, effective values (owned). */
  char *project_dir;       /* absolute */
  char *registry;          /* with a trailing slash, or NULL if none is known */
  char *default_registry;  /* the build's default (npm's), or NULL */
  char *store_dir;         /* content-addressed store root */
  char *cache_dir;         /* metadata cache root */
  enum nub_node_linker linker;
  enum nub_import_method import_method;
  int fetch_retries;
  long fetch_retry_mintimeout_ms, fetch_retry_maxtimeout_ms;
  long fetch_timeout_ms;       /* whole request, 0 = none */
  long fetch_low_speed_limit;  /* bytes/s ... */
  long fetch_low_speed_time_ms;/* ... below which for this long is a stall */
  int network_concurrency;
  uint64_t max_document_bytes; /* max-document-size (MiB): a registry document */
  uint64_t max_lockfile_bytes; /* max-lockfile-size (MiB): a lockfile read whole */
  bool strict_ssl;
  bool ignore_scripts;
  bool verify_store; /* verify-store-integrity (pnpm's name): nub_store_check */
  bool gvs; /* global virtual store for the isolated layout */
  char **warnings; /* one line each, for the CLI to show once (owned) */
  size_t nwarnings;
};

/* Load every layer for a project rooted at project_dir. cli holds "key=value"
 * strings from flags (may be NULL). On failure err names the file and line. */
int nub_config_load(struct nub_config *cfg, const char *project_dir,
                    const char *const *cli, size_t ncli, struct nub_err *err);
/* The same, with the project layer read from npmrc_dir/.npmrc instead: a
 * project made on the side for another one (`nub dlx`'s) reads the
 * configuration of the project it was run from. */
int nub_config_load_for(struct nub_config *cfg, const char *project_dir, const char *npmrc_dir,
                        const char *const *cli, size_t ncli, struct nub_err *err);
void nub_config_release(struct nub_config *cfg);

/* Effective raw value of a key, or NULL. Keys are compared case-insensitively
 * with '_' and '-' equal, like npm. An array ("key[]=" lines of one file)
 * is its values, one per line. */
const char *nub_config_get(const struct nub_config *cfg, const char *key);
/* Layer the effective value came from (NUB_CFG__LAYERS if unset). */
enum nub_cfg_layer nub_config_layer(const struct nub_config *cfg, const char *key);
bool nub_config_bool(const struct nub_config *cfg, const char *key, bool dflt);
const char *nub_config_layer_name(enum nub_cfg_layer l);

/* Registry for a package name ("@scope/x" uses @scope:registry if set).
 * Always ends with '/'. NULL when no registry is configured. */
const char *nub_config_registry_for(const struct nub_config *cfg,
                                    const char *name);
/* Authorization header value for a request URL ("Bearer t" or "Basic b64"),
 * by npm's rules: the credential of any kind (_authToken, _auth,
 * username + _password) bound to the longest //host[:port]/path/ above
 * the URL, the host compared whole. NULL if none. Caller frees. */
char *nub_config_auth_for(const struct nub_config *cfg, const char *url);
/* Whether a key is a credential ("//host/:_authToken" and the like), whose
 * value is never printed. */
bool nub_config_is_credential(const char *key);
/* Whether an environment entry ("NAME=value") holds a credential: npm's
 * settings in any case and spelling (npm_config__authToken,
 * NPM_CONFIG__PASSWORD, npm_config_password, npm_config_otp, any
 * "npm_config_//host/:..." ...), NPM_TOKEN and NODE_AUTH_TOKEN. Scripts
 * never see these. */
bool nub_config_env_is_secret(const char *entry);

/* npm's own keys in .npmrc, and nub's (npm_settings.c): whether key is one
 * (a key bound to a registry or scope by its tail: "//host/:_authToken"),
 * and the nearest one to a key that is not (NULL: none near). */
bool nub_npm_setting_known(const char *key);
const char *nub_npm_setting_nearest(const char *key);
/* The pnpm setting a kebab-case key spells (shamefully-hoist:
 * "shamefullyHoist"; caller frees), or NULL. */
char *nub_npm_setting_pnpm_name(const char *key);

/* Parse one npmrc text into entries of `layer` (exported for tests).
 * expand_env: substitute ${VAR} (user/global files only). */
int nub_config_parse_npmrc(struct nub_config *cfg, const char *text,
                           const char *path, enum nub_cfg_layer layer,
                           bool expand_env, struct nub_err *err);

/* The message shown when no registry is configured at all. */
extern const char nub_config_no_registry_hint[];

#endif
