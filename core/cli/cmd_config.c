/* cmd_config.c - `nub config get <key>` and `nub config list`: what nub will
 * use, and which layer each value came from. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "nub_alloc.h"
#include "redact.h"

const char cli_config_help[] =
    "usage: nub config get <key>\n"
    "       nub config list\n\n"
    "Print effective settings. Layers, lowest first: builtin, global npmrc,\n"
    "~/.npmrc, the project's .npmrc, npm_config_* environment, flags.\n"
    "Credentials are never printed.\n";

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
    return cli_usage("config needs a subcommand: get <key> | list");
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
  } else {
    rc = cli_usage("config needs a subcommand: get <key> | list");
  }
  nub_config_release(&cfg);
  return rc;
}
