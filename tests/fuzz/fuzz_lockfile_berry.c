/* fuzz_lockfile_berry.c - yarn berry's yarn.lock into its entries and, when
 * it parsed, the tree berry's linker builds from it (peers into instances,
 * merging, the hoister), for a root package.json made to match the
 * lockfile's own entry for the project (so that the placing is reached). */
#include "fuzz.h"

#include <stdlib.h>

#include "berry.h"
#include "lockfile_berry.h"
#include "manifest.h"

static void copy_map(struct nub_depmap *dst, const struct nub_depmap *src)
{
  dst->v = nub_calloc(src->n + 1, sizeof(*dst->v));
  for (size_t i = 0; i < src->n; i++) {
    dst->v[i].name = nub_strdup(src->v[i].name);
    dst->v[i].spec = nub_strdup(src->v[i].spec);
  }
  dst->n = src->n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = fuzz_text(data, size);
  struct nub_berry_lock l;
  struct nub_err err;

  nub_err_clear(&err);
  if (nub_lockfile_berry_parse(&l, text, size, "yarn.lock", &err) == 0) {
    const struct nub_berry_entry *root = NULL;
    for (size_t i = 0; i < l.n && !root; i++)
      if (!strcmp(l.v[i].reference, "workspace:."))
        root = &l.v[i];
    if (root) {
      struct nub_manifest m;
      struct nub_berry_ws ws = {"", &m};
      struct nub_berry_opts o;
      struct nub_berry_place *pl = NULL;
      size_t n = 0;
      memset(&m, 0, sizeof(m));
      m.name = nub_strdup(root->name);
      copy_map(&m.deps, &root->deps);
      copy_map(&m.peer, &root->peers);
      memset(&o, 0, sizeof(o));
      o.os = "linux";
      o.cpu = "x64";
      o.libc = "glibc";
      if (nub_berry_place(&l, &ws, 1, &o, &pl, &n, &err) == 0)
        nub_berry_places_free(pl, n);
      nub_manifest_release(&m);
    }
    nub_berry_lock_release(&l);
  }
  nub_free(text);
  return 0;
}
