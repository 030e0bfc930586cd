/* install.c - placeholder until the pipeline lands. */
#include "install.h"

int nub_install(const struct nub_install_opts *opts, struct nub_err *err)
{
  (void)opts;
  return nub_err_set(err, -NUB_EUSAGE, "install is not built yet");
}
