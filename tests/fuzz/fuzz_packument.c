/* fuzz_packument.c - a registry's document for a package (hostile input:
 * the registry or anything between it and nub may send anything), and the
 * lookups the resolver makes on what it parsed. */
#include "fuzz.h"

#include <stdlib.h>

#include "config.h"
#include "registry.h"
#include "semver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct nub_packument *p = NULL;
  struct nub_err err;
  char *text;
  const struct nub_config *cfg = fuzz_config();

  text = fuzz_text(data, size);
  nub_err_clear(&err);
  if (nub_packument_parse(&p, text, size, "pkg", cfg, &err) == 0) {
    for (size_t i = 0; i < p->nversions; i++) {
      const struct nub_pversion *v = p->versions[i];
      if (nub_packument_version(p, v->version) == NULL)
        abort(); /* every version it lists is found by its name */
      nub_semver_satisfies("^1.0.0", v->version, false);
    }
    for (size_t i = 0; i < p->tags.n; i++)
      nub_packument_version(p, p->tags.v[i].spec);
    nub_packument_free(p);
  }
  nub_free(text);
  return 0;
}
