/* fuzz_packument.c - a registry's document for a package (hostile input:
 * the registry or anything between it and nub may send anything), and the
 * lookups the resolver makes on what it parsed. */
#include "fuzz.h"

#include <stdlib.h>

#include "config.h"
#include "registry.h"
#include "semver.h"

static struct nub_config cfg;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static int ready;
  struct nub_packument *p = NULL;
  struct nub_err err;
  char *text;

  if (!ready) {
    setenv("npm_config_registry", "http://registry.invalid/", 1);
    setenv("npm_config_userconfig", "/nonexistent/npmrc", 1);
    setenv("npm_config_globalconfig", "/nonexistent/npmrc", 1);
    nub_err_clear(&err);
    if (nub_config_load(&cfg, "/nonexistent-project", NULL, 0, &err) < 0)
      abort();
    ready = 1;
  }
  text = fuzz_text(data, size);
  nub_err_clear(&err);
  if (nub_packument_parse(&p, text, size, "pkg", &cfg, &err) == 0) {
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
