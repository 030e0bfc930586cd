/* fuzz_name.c - the one rule for names that become folders (path.h): every
 * name nub_valid_pkg_name takes stays one package folder under a
 * node_modules, and a tree whose node it names finishes only then. The
 * input is the name. */
#include "fuzz.h"

#include <stdbool.h>
#include <stdio.h>

#include "path.h"
#include "pkgtab.h"
#include "tree.h"

/* What a valid name must be, said another way: one component, or
 * "@scope/" and one; none of them "", ".", "..", "node_modules"; nothing
 * that leaves the folder or hides among nub's own entries. */
static void check_valid(const char *s)
{
  char path[600], norm[600];
  const char *last = s, *slash = strchr(s, '/');
  size_t n = strlen(s);

  if (n == 0 || n > 214 || s[0] == '/')
    abort();
  if (slash && (s[0] != '@' || strchr(slash + 1, '/') || slash == s + 1))
    abort();
  if (slash)
    last = slash + 1;
  if (!*last || last[0] == '.' || last[0] == '_' || !strcmp(last, "node_modules"))
    abort();
  for (const char *p = s; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == '\\' || *p == 0x7f)
      abort();
  /* under node_modules it normalises to itself: no "." or ".." part */
  snprintf(path, sizeof(path), "node_modules/%s", s);
  if (nub_path_normalize(path, norm, sizeof(norm)) < 0 || strcmp(norm, path))
    abort();
  if (strcmp(nub_path_pkg_name(path), s))
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *name = fuzz_text(data, size), *path;
  bool valid = nub_valid_pkg_name(name);
  struct nub_pkgtab pkgs;
  struct nub_tree t;
  struct nub_err err;
  int rc;

  if (valid)
    check_valid(name);
  /* a tree that puts the name at the top finishes only for a valid one */
  memset(&pkgs, 0, sizeof(pkgs));
  nub_tree_init(&t, &pkgs);
  path = nub_asprintf("node_modules/%s", name);
  nub_tree_add_node(&t, path);
  nub_err_clear(&err);
  rc = nub_tree_finish(&t, "fuzz", &err);
  if (rc == 0 && !valid)
    abort();
  nub_free(path);
  nub_tree_release(&t);
  nub_pkgtab_release(&pkgs);
  nub_free(name);
  return 0;
}
