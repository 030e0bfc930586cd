/* fuzz_npmrc.c - one .npmrc text (with ${VAR} expansion), then the
 * lookups an install makes of it: settings, and the credential for a URL. */
#include "fuzz.h"

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = fuzz_text(data, size);
  struct nub_config cfg;
  struct nub_err err;
  char *auth;

  memset(&cfg, 0, sizeof(cfg));
  nub_err_clear(&err);
  if (nub_config_parse_npmrc(&cfg, text, "/fuzz/.npmrc", NUB_CFG_USER, true, &err) == 0) {
    nub_config_get(&cfg, "registry");
    nub_config_get(&cfg, "@scope:registry");
    auth = nub_config_auth_for(&cfg, "https://registry.invalid/a/-/a-1.0.0.tgz");
    nub_free(auth);
    auth = nub_config_auth_for(&cfg, "http://127.0.0.1:4873/@s%2fb");
    nub_free(auth);
  }
  nub_config_release(&cfg);
  nub_free(text);
  return 0;
}
