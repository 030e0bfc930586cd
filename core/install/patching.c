/* patching.c - the project's committed patches in an install
 * (patching.h). */
#include "patching.h"

#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "nub_alloc.h"
#include "patched.h"

int nub_patching_load(struct nub_install_ctx *c, struct nub_err *err)
{
  nub_patches_release(&c->patches);
  return nub_patches_of_project(&c->patches, c->s->root, &c->s->ws, &c->s->man,
                                c->s->proj.fmt->caps & NUB_LF_MANIFEST_PATCHES, err);
}

int nub_patching_assign(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_patches *ps = &c->patches;
  const char *allow = nub_depmap_get(&c->s->ws.settings, "allowUnusedPatches");
  int rc = 0;

  if (!ps->n)
    return 0;
  for (size_t i = 0; i < ps->n; i++)
    ps->v[i].used = false;
  for (size_t i = 0; i < c->plan.pkgs.n; i++) {
    struct nub_pkg *p = c->plan.pkgs.v[i];
    struct nub_patch_rule *r;
    p->patch_hash[0] = '\0';
    p->patch_file = NULL;
    if (!p->needed)
      continue;
    r = nub_patches_find(ps, p->name, p->version, &rc, err);
    if (rc < 0)
      return rc;
    if (!r)
      continue;
    r->used = true;
    memcpy(p->patch_hash, r->hash, sizeof(p->patch_hash));
    p->patch_file = r->path;
    nub_patched_key(p->key, p->patch_hash, p->patched_key);
  }
  /* an install of some members only has not seen every package */
  if (c->selected || (allow && !strcmp(allow, "true")))
    return 0;
  for (size_t i = 0; i < ps->n; i++)
    if (!ps->v[i].used)
      return nub_err_set(err, -NUB_EPATCH,
                         "%s's patchedDependencies: %s (%s) patches no package of this "
                         "install; remove it, or set allowUnusedPatches: true",
                         ps->home, ps->v[i].key, ps->v[i].file);
  return 0;
}

int nub_patching_apply(struct nub_install_ctx *c, struct nub_err *err)
{
  size_t made = 0;

  for (size_t i = 0; i < c->plan.pkgs.n; i++) {
    struct nub_pkg *p = c->plan.pkgs.v[i];
    struct nub_index *idx = NULL;
    char what[512];
    int rc;
    if (!p->patch_hash[0] || !p->needed || !p->index || p->failed ||
        !strcmp(p->index->key, p->patched_key))
      continue;
    snprintf(what, sizeof(what), "%s@%s", p->name, p->version);
    rc = nub_store_patched(&c->store, p->index, what, p->patch_file, p->patched_key,
                           p->as_tree, p->name, &idx, err);
    if (rc == -NUB_EPATCH) {
      char m[sizeof(err->msg)];
      snprintf(m, sizeof(m), "%s; mend the patch, or take it out of %s's patchedDependencies",
               err->msg, c->patches.home);
      return nub_err_set(err, rc, "%s", m);
    }
    if (rc < 0)
      return rc;
    nub_index_free(p->index);
    p->index = idx;
    made++;
  }
  if (made)
    nub_diag_debugf("patches: %zu packages patched", made);
  return 0;
}
