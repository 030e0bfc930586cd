/* fuzz_patchfile.c - one patch file, applied to a file: the input is
 * "<file bytes>\0<patch>", or a patch alone applied to a fixed file. */
#include "fuzz.h"

#include <string.h>

#include "buf.h"
#include "patchfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const char fixed[] = "'use strict';\nmodule.exports = {\n  a: 1,\n};\n";
  const char *file = fixed, *patch = (const char *)data;
  size_t flen = sizeof(fixed) - 1, plen = size;
  const uint8_t *nul = memchr(data, 0, size);
  struct nub_patch p;
  struct nub_err err;
  struct nub_buf out = NUB_BUF_INIT;

  if (nul) {
    file = (const char *)data;
    flen = (size_t)(nul - data);
    patch = (const char *)nul + 1;
    plen = size - flen - 1;
  }
  nub_err_clear(&err);
  if (nub_patch_parse(patch, plen, &p, &err) == 0) {
    for (size_t i = 0; i < p.nops; i++) {
      if (p.ops[i].kind == NUB_PATCH_EDIT)
        (void)nub_patch_apply(&p.ops[i], file, flen, size && (data[0] & 1) ? NUB_PATCH_BERRY
                                                                          : NUB_PATCH_PNPM,
                              &out, &err);
      else if (p.ops[i].kind == NUB_PATCH_CREATE)
        nub_patch_created(&p.ops[i], &out);
    }
    nub_patch_release(&p);
  }
  nub_buf_release(&out);
  return 0;
}
