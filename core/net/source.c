/* source.c - the registry's source of facts for the resolver; see source.h. */
#include "source.h"

#include <string.h>

#include "git.h"
#include "http.h"

static void reg_want(void *ud, const char *name)
{
  struct nub_source_reg *r = ud;
  nub_meta_want(r->meta, name);
}

static int reg_versions(void *ud, const char *name, bool again,
                        const struct nub_packument **out, struct nub_err *err)
{
  struct nub_source_reg *r = ud;
  return again ? nub_meta_refetch(r->meta, name, out, err)
               : nub_meta_get(r->meta, name, out, err);
}

static int reg_git_commit(void *ud, const struct nub_gitspec *g, const char *what,
                          char commit[41], struct nub_err *err)
{
  (void)ud;
  return nub_git_resolve(g, what, commit, err);
}

static int reg_git_checkout(void *ud, const char *url, const char *ref, const char *what,
                            char commit[41], char **dir, struct nub_err *err)
{
  struct nub_source_reg *r = ud;
  return nub_git_checkout_new(r->tmp_root, url, ref, what, commit, dir, err);
}

static int reg_download(void *ud, const char *url, struct nub_buf *body, struct nub_err *err)
{
  struct nub_source_reg *r = ud;
  struct nub_http *h = nub_meta_http(r->meta, err);

  if (!h)
    return err->code ? err->code : -NUB_ENETWORK;
  return nub_http_get(h, r->cfg, r->prog, url, 1u << 30, body, err);
}

void nub_source_registry(struct nub_source *out, struct nub_source_reg *reg)
{
  memset(out, 0, sizeof(*out));
  out->ud = reg;
  out->want = reg_want;
  out->versions = reg_versions;
  out->git_commit = reg_git_commit;
  out->git_checkout = reg_git_checkout;
  out->download = reg->cfg ? reg_download : NULL;
}
