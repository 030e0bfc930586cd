/* fuzz_yarnrc.c - one .yarnrc.yml text: the settings nub reads (linker,
 * registries, packageExtensions, enableScripts) and the keys berry does not
 * know. */
#include "fuzz.h"

#include "yarnrc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = fuzz_text(data, size);
  struct nub_yarnrc rc;
  struct nub_err err;

  nub_err_clear(&err);
  if (nub_yarnrc_parse(&rc, text, size, "/fuzz/.yarnrc.yml", &err) == 0)
    (void)nub_buf_str(&rc.unknown);
  nub_yarnrc_release(&rc);
  nub_free(text);
  return 0;
}
