/* report.c - the warnings an install collects on the way, shown once at
 * the end through the progress reporter (so that --silent silences them). */
#include "report.h"

#include "install_ctx.h"

void nub_report_blocked(struct nub_install_ctx *c)
{
  if (c->nblocked)
    nub_progress_warn(&c->prog,
                      "%zu dependencies have install scripts that were not run: %s. "
                      "Trust them by name in package.json \"trustedDependencies\" to "
                      "run them.", c->nblocked, nub_buf_str(&c->blocked));
}
