/* fuzz_workspace_yaml.c - one pnpm-workspace.yaml text: packages, catalogs,
 * overrides, approvals, peer rules, packageExtensions and their hash, the
 * keys pnpm does not know (pinned or not, by the first byte). */
#include "fuzz.h"

#include "workspace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *pin = size && (data[0] & 1) ? "pnpm@12.23.0" : NULL;
  char *text;
  struct nub_workspace ws;
  struct nub_err err;

  if (size) {
    data++;
    size--;
  }
  text = fuzz_text(data, size);
  nub_err_clear(&err);
  if (nub_workspace_parse_yaml(&ws, text, size, pin, &err) == 0) {
    for (size_t i = 0; i < ws.npkg_exts; i++)
      nub_depmap_get(&ws.pkg_exts[i].deps, "a");
    nub_depmap_get(&ws.settings, "strictPeerDependencies");
  }
  nub_workspace_release(&ws);
  nub_free(text);
  return 0;
}
