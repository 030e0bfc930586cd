/* yarnrc.h - what nub reads of yarn berry's .yarnrc.yml: the settings that
 * shape the node_modules tree berry builds. Read from the project's folder,
 * then its parents, then the home folder (the nearest sets a key), as
 * berry reads them; YARN_NODE_LINKER and the like override a file. */
#ifndef NUB_YARNRC_H
#define NUB_YARNRC_H

#include <stdbool.h>
#include <stddef.h>

#include "berry.h"
#include "buf.h"
#include "err.h"

struct nub_yarnrc {
  char *node_linker;       /* "node-modules", "pnp", "pnpm"; NULL: berry's default (pnp) */
  char *node_linker_from;  /* the file (or variable) that set it */
  char *nm_hoisting_limits;/* NULL: none */
  bool nm_self_references; /* default true */
  /* where berry fetches packages from: npmRegistryServer (NULL: berry's
   * default), and npmScopes' (scopes[i] without '@', "" when a scope sets
   * none) */
  char *registry;
  char **scopes, **scope_registries;
  size_t nscopes;
  /* packageExtensions, as rows (berry.h); their strings are owned */
  struct nub_compat_row *exts;
  size_t nexts;
  /* keys berry does not know ("file: \"key\" (did you mean ...)"), and
   * whether a plugins: list may declare them */
  struct nub_buf unknown;
  bool plugins;
  /* enableScripts (the nearest file's; YARN_ENABLE_SCRIPTS first) */
  bool scripts_off, scripts_set;
};

/* Read the settings for the project at dir. A file that is not valid YAML,
 * or a setting of the wrong type, is -NUB_ECONFIG naming file, line and
 * column; so is a key berry does not know (with the nearest it does), as
 * berry refuses it, unless YARN_ENABLE_STRICT_SETTINGS=false or the
 * project has plugins (which may declare settings). */
int nub_yarnrc_load(struct nub_yarnrc *rc, const char *dir, struct nub_err *err);
void nub_yarnrc_release(struct nub_yarnrc *rc);
/* One file's text alone, as if read from path (exported for tests): no
 * other file, no environment, no refusal of unknown keys (rc->unknown
 * lists them). nub_yarnrc_release it whatever it returns. */
int nub_yarnrc_parse(struct nub_yarnrc *rc, const char *text, size_t len, const char *path,
                     struct nub_err *err);

#endif
