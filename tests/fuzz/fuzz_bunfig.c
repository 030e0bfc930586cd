/* fuzz_bunfig.c - one bunfig.toml text: the [install] table nub reads. */
#include "fuzz.h"

#include "bunfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = fuzz_text(data, size);
  struct nub_bunfig b;
  struct nub_err err;

  memset(&b, 0, sizeof(b));
  nub_err_clear(&err);
  if (nub_bunfig_parse(&b, text, size, "/fuzz/bunfig.toml", &err) == 0) {
    nub_depmap_get(&b.install, "minimumReleaseAge");
    nub_depmap_get(&b.install, "minimumReleaseAgeExcludes");
  }
  nub_bunfig_release(&b);
  nub_free(text);
  return 0;
}
