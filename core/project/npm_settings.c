/* npm_settings.c - the keys npm knows in .npmrc, and nub's own there, for
 * naming the ones nothing reads (config.h).
 *
 * npm's list is npm 11.21's config definitions with the credential keys
 * it takes bound to a registry (_authToken, username, ...) and the ones it
 * sets itself; npm warns of any other key ("Unknown project config").
 * Keys compare as npm compares them: any case, '_' as '-'. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "nub_alloc.h"
#include "text.h"
#include "workspace.h"

static const char *const npm_keys[] = {
    "_auth", "_authToken", "_password", "access", "all", "allow-directory", "allow-file",
    "allow-git", "allow-remote", "allow-same-version", "allow-scripts", "allow-scripts-pending",
    "allow-scripts-pin", "also", "audit", "audit-level", "auth-type", "before", "bin-links",
    "browser", "bypass-2fa", "ca", "cache", "cache-max", "cache-min", "cafile", "call", "cert",
    "certfile", "cidr", "color", "commit-hooks", "cpu", "dangerously-allow-all-scripts", "depth",
    "description", "dev", "diff", "diff-dst-prefix", "diff-ignore-all-space", "diff-name-only",
    "diff-no-prefix", "diff-src-prefix", "diff-text", "diff-unified", "dry-run", "editor", "email",
    "engine-strict", "expect-result-count", "expect-results", "expires", "fetch-retries",
    "fetch-retry-factor", "fetch-retry-maxtimeout", "fetch-retry-mintimeout", "fetch-timeout",
    "force", "foreground-scripts", "format-package-lock", "fund", "git", "git-tag-version",
    "global", "global-prefix", "global-style", "globalconfig", "heading", "https-proxy",
    "if-present", "ignore-scripts", "include", "include-attestations", "include-staged",
    "include-workspace-root", "init-author-email", "init-author-name", "init-author-url",
    "init-license", "init-module", "init-private", "init-type", "init-version",
    "init.author.email", "init.author.name", "init.author.url", "init.license", "init.module",
    "init.version", "install-links", "install-strategy", "json", "key", "keyfile",
    "legacy-bundling", "legacy-peer-deps", "libc", "link", "local-address", "local-prefix",
    "location", "lockfile-version", "loglevel", "logs-dir", "logs-max", "long", "maxsockets",
    "message", "min-release-age", "min-release-age-exclude", "name", "node-gyp", "node-options",
    "noproxy", "npm-version", "offline", "omit", "omit-lockfile-registry-resolved", "only",
    "optional", "orgs", "orgs-permission", "os", "otp", "pack-destination", "package",
    "package-lock", "package-lock-only", "packages", "packages-all",
    "packages-and-scopes-permission", "parseable", "password", "prefer-dedupe", "prefer-offline",
    "prefer-online", "prefix", "preid", "production", "progress", "provenance", "provenance-file",
    "proxy", "read-only", "rebuild-bundle", "registry", "replace-registry-host", "save",
    "save-bundle", "save-dev", "save-exact", "save-optional", "save-peer", "save-prefix",
    "save-prod", "sbom-format", "sbom-type", "scope", "scopes", "script-shell", "searchexclude",
    "searchlimit", "searchopts", "searchstaleness", "shell", "shrinkwrap", "sign-git-commit",
    "sign-git-tag", "strict-allow-scripts", "strict-peer-deps", "strict-ssl", "tag",
    "tag-version-prefix", "timing", "token-description", "umask", "unicode", "update-notifier",
    "usage", "user-agent", "userconfig", "username", "version", "versions", "viewer", "which",
    "workspace", "workspaces", "workspaces-update", "yes",
};

/* read by nub (and pnpm before 11) from .npmrc; npm does not know them */
static const char *const nub_keys[] = {
    "allow-missing-integrity", "enable-global-virtual-store", "fetch-low-speed-limit",
    "fetch-low-speed-time", "max-document-size", "max-lockfile-size", "minimum-release-age",
    "minimum-release-age-exclude", "network-concurrency", "node-linker", "package-import-method",
    "store-dir", "verify-store-integrity",
};

#define N(v) (sizeof(v) / sizeof(v[0]))

static bool same(const char *a, const char *b)
{
  for (; *a && *b; a++, b++) {
    char x = (char)tolower((unsigned char)*a), y = (char)tolower((unsigned char)*b);
    if ((x == '_' ? '-' : x) != (y == '_' ? '-' : y))
      return false;
  }
  return *a == *b;
}

static bool in(const char *key, const char *const *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (same(key, v[i]))
      return true;
  return false;
}

bool nub_npm_setting_known(const char *key)
{
  const char *base = strrchr(key, ':');

  if (base) /* "@scope:registry", "//host/:_authToken": npm checks the tail */
    key = base + 1;
  return in(key, npm_keys, N(npm_keys)) || in(key, nub_keys, N(nub_keys));
}

const char *nub_npm_setting_nearest(const char *key)
{
  const char *near = nub_text_nearest(key, npm_keys, N(npm_keys));

  return near ? near : nub_text_nearest(key, nub_keys, N(nub_keys));
}

char *nub_npm_setting_pnpm_name(const char *key)
{
  char *camel = nub_malloc(strlen(key) + 1), *o = camel;

  for (const char *p = key; *p; p++)
    if ((*p == '-' || *p == '_') && p[1] && o != camel)
      *o++ = (char)toupper((unsigned char)*++p);
    else
      *o++ = (char)tolower((unsigned char)*p);
  *o = '\0';
  if (nub_pnpm_setting_known(camel))
    return camel;
  nub_free(camel);
  return NULL;
}
