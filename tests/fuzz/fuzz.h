/* fuzz.h - what every libFuzzer harness shares: the entry point's
 * declaration, and the input as a NUL-terminated copy (parsers take text). */
#ifndef NUB_FUZZ_H
#define NUB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nub_alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline char *fuzz_text(const uint8_t *data, size_t size)
{
  char *s = nub_malloc(size + 1);
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

#endif
