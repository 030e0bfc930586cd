/* cmd_config.c - `nub config get <key>` and `nub config list`: what nub will
 * use, and which layer each value came from. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "npmrc_edit.h"
#include "nub_plat.h"
#include "nub_alloc.h"
#include "redact.h"

const char cli_config_help[] =
    "usage: nub config get <key>\n"
    "       nub config list\n"
    "       nub config set <key> <value> | <key>=<value>... [--location user|project]\n"
    "       nub config delete <key>... [--location user|project]   (rm)\n\n"
    "Print effective settings. Layers, lowest first: builtin, global npmrc,\n"
    "~/.npmrc, the project's .npmrc, npm_config_* environment, flags.\n"
    "Credentials are never printed. set and delete change one .npmrc as npm\n"
    "does (~/.npmrc, or npm_config_userconfig; --location project: ./.npmrc),\n"
    "its other lines and comments kept; a key npm does not know is refused.\n";

static bool secret(const char *key)
{
  return nub_config_is_credential(key) || strstr(key, "_auth") || strstr(key, "_password") ||
         strstr(key, "token");
}

/* A value as shown: URLs lose their userinfo. */
static const char *shown(const char *v, char *buf, size_t cap)
{
  if (!v)
    return NULL;
  nub_redact(buf, cap, v);
  return buf;
}

/* `config set` (set) or `delete`: npm's arguments ("key value", "key=value"
 * pairs, keys to delete) into the file --location names. */
static int config_edit(const struct nub_config *cfg, const char *dir, bool set, int argc,
                       char **argv)
{
  const char *loc = "user";
  char *path, *keys[64], *vals[64];
  int n = 0, rc = 0;
  struct nub_err err;

  for (int i = 0; i < argc && n < 64; i++) {
    const char *a = argv[i], *eq;
    if (!strcmp(a, "--location") || !strcmp(a, "-L")) {
      if (++i >= argc)
        return cli_usage("--location takes user or project");
      loc = argv[i];
      continue;
    }
    if (!strncmp(a, "--location=", 11)) {
      loc = a + 11;
      continue;
    }
    eq = set ? strchr(a, '=') : NULL;
    keys[n] = eq ? nub_strndup(a, (size_t)(eq - a)) : nub_strdup(a);
    vals[n] = eq ? nub_strdup(eq + 1)
              : set && i + 1 < argc ? nub_strdup(argv[++i]) : NULL;
    if (set && !vals[n])
      vals[n] = nub_strdup("");
    n++;
  }
  if (!n)
    rc = cli_usage("config %s needs a key", set ? "set" : "delete");
  for (int k = 0; rc == 0 && k < n; k++)
    if (!nub_npm_setting_known(keys[k])) {
      const char *near = nub_npm_setting_nearest(keys[k]);
      rc = cli_usage("`%s` is not a valid npm option%s%s%s", keys[k], near ? " (did you mean " : "",
                     near ? near : "", near ? "?)" : "");
    }
  if (rc == 0 && strcmp(loc, "user") && strcmp(loc, "project"))
    rc = cli_usage("--location takes user or project, not '%s' (nub writes no global npmrc)",
                   loc);
  if (rc == 0) {
    const char *user = nub_config_get(cfg, "userconfig");
    const char *home = nub_plat_home();
    path = !strcmp(loc, "project") ? nub_asprintf("%s/.npmrc", dir)
           : user                  ? nub_strdup(user)
           : home                  ? nub_asprintf("%s/.npmrc", home)
                                   : NULL;
    if (!path)
      rc = cli_usage("no home directory: set HOME, or use --location project");
    for (int k = 0; rc == 0 && k < n; k++) {
      nub_err_clear(&err);
      if (nub_npmrc_edit(path, keys[k], set ? vals[k] : NULL,
                         !strcmp(loc, "project") ? 0644 : 0600, &err) < 0)
        rc = cli_fail(&err);
    }
    nub_free(path);
  }
  for (int k = 0; k < n; k++) {
    nub_free(keys[k]);
    nub_free(vals[k]);
  }
  return rc;
}

int cmd_config(int argc, char **argv)
{
  struct nub_config cfg;
  struct nub_err err;
  char cwd[4096];
  const char *dir = NULL;
  int i = 1, rc;

  if (i + 1 < argc && (!strcmp(argv[i], "--dir") || !strcmp(argv[i], "-C"))) {
    dir = argv[i + 1];
    i += 2;
  }
  if (i >= argc)
    return cli_usage("config needs a subcommand: get <key> | list | set | delete");
  if (!dir) {
    if (!getcwd(cwd, sizeof(cwd)))
      return cli_usage("cannot read the current directory");
    dir = cwd;
  }
  nub_err_clear(&err);
  rc = nub_config_load(&cfg, dir, NULL, 0, &err);
  if (rc < 0)
    return cli_fail(&err);
  if (!strcmp(argv[i], "get") && i + 1 < argc) {
    const char *key = argv[i + 1];
    const char *v;
    if (!strcmp(key, "registry"))
      v = cfg.registry;
    else if (!strcmp(key, "store-dir"))
      v = cfg.store_dir;
    else if (!strcmp(key, "default-registry"))
      v = cfg.default_registry;
    else
      v = nub_config_get(&cfg, key);
    char buf[4096];
    if (secret(key))
      v = v ? "(set)" : NULL;
    v = shown(v, buf, sizeof(buf));
    printf("%s\n", v ? v : "undefined");
    rc = 0;
  } else if (!strcmp(argv[i], "list")) {
    char buf[4096];
    for (size_t e = 0; e < cfg.nent; e++)
      printf("%s=%s ; %s\n", cfg.ent[e].key,
             secret(cfg.ent[e].key) ? "(set)" : shown(cfg.ent[e].val, buf, sizeof(buf)),
             nub_config_layer_name(cfg.ent[e].layer));
    printf("; store-dir=%s\n", cfg.store_dir);
    rc = 0;
  } else if (!strcmp(argv[i], "set") || !strcmp(argv[i], "delete") || !strcmp(argv[i], "rm")) {
    rc = config_edit(&cfg, dir, argv[i][0] == 's', argc - i - 1, argv + i + 1);
  } else {
    rc = cli_usage("config needs a subcommand: get <key> | list | set | delete");
  }
  nub_config_release(&cfg);
  return rc;
}
