/* fuzz_json.c - the strict JSON reader (package.json, package-lock.json,
 * npm-shrinkwrap.json, bun.lock's JSONC) and package.json's reading. */
#include "fuzz.h"

#include "json.h"
#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = fuzz_text(data, size);
  struct nub_err err;
  struct nub_manifest m;
  cJSON *doc = NULL;

  nub_err_clear(&err);
  if (nub_json_parse(text, size, "x.json", -NUB_ELOCKFILE, 0, &doc, &err) == 0)
    cJSON_Delete(doc);
  nub_err_clear(&err);
  if (nub_json_parse(text, size, "bun.lock", -NUB_ELOCKFILE, NUB_JSON_TRAILING_COMMAS, &doc,
                     &err) == 0)
    cJSON_Delete(doc);
  nub_err_clear(&err);
  memset(&m, 0, sizeof(m));
  if (nub_manifest_parse(&m, text, size, "package.json", &err) == 0)
    nub_manifest_release(&m);
  nub_free(text);
  return 0;
}
