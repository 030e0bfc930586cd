/* fuzz.h - what every libFuzzer harness shares: the entry point's
 * declaration, and the input as a NUL-terminated copy (parsers take text). */
#ifndef NUB_FUZZ_H
#define NUB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "nub_alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline char *fuzz_text(const uint8_t *data, size_t size)
{
  char *s = nub_malloc(size + 1);
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

/* A configuration of nobody's: a registry that is never asked, no npmrc. */
static inline const struct nub_config *fuzz_config(void)
{
  static struct nub_config cfg;
  static int ready;
  struct nub_err err;

  if (!ready) {
    setenv("npm_config_registry", "http://registry.invalid/", 1);
    setenv("npm_config_userconfig", "/nonexistent/npmrc", 1);
    setenv("npm_config_globalconfig", "/nonexistent/npmrc", 1);
    nub_err_clear(&err);
    if (nub_config_load(&cfg, "/nonexistent-project", NULL, 0, &err) < 0)
      abort();
    ready = 1;
  }
  return &cfg;
}

#endif
