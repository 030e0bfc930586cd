/* fuzz_semver.c - ranges and versions (strict and loose), and matching:
 * the input is "<range>\n<version>". */
#include "fuzz.h"

#include "semver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = fuzz_text(data, size);
  char *nl = strchr(text, '\n');
  const char *range = text, *version = nl ? nl + 1 : "1.2.3";
  struct nub_range *r = NULL;
  struct nub_version v;

  if (nl)
    *nl = '\0';
  if (nub_range_parse(&r, range) == 0)
    nub_range_free(r);
  r = NULL;
  if (nub_range_parse_loose(&r, range) == 0)
    nub_range_free(r);
  memset(&v, 0, sizeof(v));
  if (nub_version_parse(&v, version) == 0)
    nub_version_release(&v);
  memset(&v, 0, sizeof(v));
  if (nub_version_parse_loose(&v, version) == 0)
    nub_version_release(&v);
  nub_semver_satisfies(range, version, false);
  nub_semver_satisfies(range, version, true);
  nub_semver_is_exact(range);
  nub_free(text);
  return 0;
}
