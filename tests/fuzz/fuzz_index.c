/* fuzz_index.c - the store's index format, as a damaged store presents it. */
#include "fuzz.h"

#include "index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *blob = nub_malloc(size ? size : 1);
  struct nub_index *idx = NULL;

  memcpy(blob, data, size);
  if (nub_index_parse(blob, size, &idx) == 0) /* takes blob either way */
    nub_index_free(idx);
  return 0;
}
