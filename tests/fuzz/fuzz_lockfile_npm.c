/* fuzz_lockfile_npm.c - package-lock.json / npm-shrinkwrap.json (v1-v3) and
 * bun.lock into a tree (laid out again as bun lays it out). The first byte
 * picks the reader. */
#include "fuzz.h"

#include <stdlib.h>

#include "config.h"
#include "lockfile_bun.h"
#include "lockfile_npm.h"
#include "manifest.h"
#include "pkgtab.h"
#include "tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct nub_pkgtab pkgs;
  struct nub_tree t;
  struct nub_err err;
  char *text;
  int bun;
  const struct nub_config *cfg = fuzz_config();

  if (size < 1)
    return 0;
  bun = data[0] & 1;
  text = fuzz_text(data + 1, size - 1);
  memset(&pkgs, 0, sizeof(pkgs));
  nub_tree_init(&t, &pkgs);
  nub_err_clear(&err);
  if (bun) {
    /* as an install reads it: the tree laid out again from the keys */
    struct nub_manifest man;
    struct nub_bun_layout lay = {&man, NULL};
    memset(&man, 0, sizeof(man));
    nub_lockfile_bun_read(&t, text, size - 1, "bun.lock", cfg, &lay, &err);
  }
  else
    nub_lockfile_npm_parse(&t, text, size - 1, "package-lock.json", cfg, &err);
  nub_tree_release(&t);
  nub_pkgtab_release(&pkgs);
  nub_free(text);
  return 0;
}
