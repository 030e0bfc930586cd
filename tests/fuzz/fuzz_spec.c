/* fuzz_spec.c - the short strings nub reads out of package.json,
 * lockfiles and configuration: git dependency specs and resolved forms,
 * SRI strings, URLs (authority, host, redaction of credentials) and two
 * ranges' intersection (override keys). The input is "<a>\n<b>". */
#include "fuzz.h"

#include <stdlib.h>

#include "git.h"
#include "integrity.h"
#include "redact.h"
#include "semver.h"
#include "url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = fuzz_text(data, size);
  char *nl = strchr(text, '\n');
  const char *a = text, *b = nl ? nl + 1 : "*";
  struct nub_gitspec g;
  struct nub_err err;
  struct nub_sri sri;
  struct nub_url_authority au;
  char commit[41], host[256], *url = NULL, *red;

  if (nl)
    *nl = '\0';
  memset(&g, 0, sizeof(g));
  nub_err_clear(&err);
  if (nub_git_is_spec(a) && nub_git_parse(a, &g, &err) == 0)
    nub_gitspec_release(&g);
  if (nub_git_split_resolved(a, &url, commit))
    nub_free(url);
  nub_git_is_short_commit(a);
  if (nub_sri_parse(&sri, a) == 0) {
    char out[256];
    nub_sri_format(&sri, out, sizeof(out));
  }
  if (nub_url_authority(a, &au) && (au.end < au.start || au.host < au.start || au.host > au.end))
    abort();
  nub_url_host(a, host, sizeof(host));
  red = nub_redact_dup(a);
  nub_free(red);
  nub_semver_intersects(a, b);
  nub_free(text);
  return 0;
}
