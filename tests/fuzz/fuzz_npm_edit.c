/* fuzz_npm_edit.c - package-lock.json changed as npm changes it
 * (npm_edit.h): the first byte picks the entry point; the edit runs for a
 * project whose package.json asks for a, b and c, against a registry that
 * answers every name with one version; a conflicted file is merged; a
 * bun.lock's info objects are read. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "lockfile_bun.h"
#include "manifest.h"
#include "npm_edit.h"
#include "strmap.h"

static int pick(void *ud, const char *name, const char *spec, const struct nub_pversion **out,
                struct nub_err *err)
{
  static struct nub_pversion pv;
  static char version[] = "1.0.0", tarball[] = "http://127.0.0.1/x.tgz";
  (void)ud;
  (void)spec;
  if (!strcmp(name, "missing"))
    return nub_err_set(err, -NUB_ENOTFOUND, "no %s", name);
  pv.version = version;
  pv.tarball = tarball;
  *out = &pv;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const char pj[] = "{\"name\":\"p\",\"version\":\"1.0.0\",\"dependencies\":{\"a\":\"^1.0.0\","
                           "\"b\":\"npm:c@^1\"},\"devDependencies\":{\"missing\":\"*\"},"
                           "\"bundleDependencies\":[\"a\"]}";
  struct nub_manifest man;
  struct nub_npm_edit_opts o;
  struct nub_buf out = NUB_BUF_INIT;
  struct nub_strmap infos = {0};
  struct nub_err err;
  char *text;
  int mode;

  if (size < 1)
    return 0;
  mode = data[0] % 3;
  text = fuzz_text(data + 1, size - 1);
  nub_err_clear(&err);
  if (mode == 0 && nub_manifest_parse(&man, pj, sizeof(pj) - 1, "package.json", &err) == 0) {
    memset(&o, 0, sizeof(o));
    o.root = &man;
    o.dir_name = "p";
    o.pick = pick;
    o.omit_resolved = data[0] & 4;
    nub_npm_edit(text, size - 1, "package-lock.json", &o, &out, &err);
    nub_manifest_release(&man);
  } else if (mode == 1) {
    nub_npm_unconflict(text, size - 1, "package-lock.json", &out, &err);
  } else {
    nub_lockfile_bun_infos(text, size - 1, "bun.lock", &infos, &err);
    nub_strmap_release(&infos, nub_free);
  }
  nub_buf_release(&out);
  nub_free(text);
  return 0;
}
