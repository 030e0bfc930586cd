/* install_ctx.c - what the stages of an install ask of its context. */
#include "install_ctx.h"

#include <string.h>

bool nub_install_trusted(const struct nub_install_ctx *c, const char *name)
{
  for (size_t i = 0; i < c->man.ntrusted; i++)
    if (!strcmp(c->man.trusted[i], name))
      return true;
  return false;
}

bool nub_install_platform_ok(const struct nub_install_ctx *c, char *const *os, size_t nos,
                             char *const *cpu, size_t ncpu, char *const *libc, size_t nlibc)
{
  return nub_platform_allows(os, nos, c->caps.npm_os) &&
         nub_platform_allows(cpu, ncpu, c->caps.npm_cpu) &&
         (!c->caps.libc || nub_platform_allows(libc, nlibc, c->caps.libc));
}

bool nub_install_selected(const struct nub_install_ctx *c, size_t i)
{
  return !c->selected || c->selected[i];
}

void nub_install_select_importers(struct nub_install_ctx *c)
{
  struct nub_graph *g = &c->plan.graph;

  for (size_t m = 0; c->selected && m < g->nimporters; m++) {
    struct nub_importer *im = &g->importers[m];
    const struct nub_ws_pkg *wp = nub_workspace_at(&c->ws, im->path);
    im->skip = !strcmp(im->path, ".") ? !c->selected[0]
               : wp                   ? !c->selected[1 + (size_t)(wp - c->ws.pkgs)]
                                      : true;
  }
}
