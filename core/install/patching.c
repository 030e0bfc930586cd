/* patching.c - the project's committed patches in an install
 * (patching.h). */
#include "patching.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "berry.h"
#include "diag.h"
#include "nub_alloc.h"
#include "patched.h"

int nub_patching_load(struct nub_install_ctx *c, struct nub_err *err)
{
  nub_patches_release(&c->patches);
  return nub_patches_of_project(&c->patches, c->s->root, &c->s->ws, &c->s->man,
                                c->s->proj.fmt->caps & NUB_LF_MANIFEST_PATCHES, err);
}

int nub_patching_from_lock(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_tree *t = &c->plan.tree;
  char **files;
  size_t n = 0;
  int rc;

  if (c->patches.n || !c->plan.have_tree || !t->lock_patches.n)
    return 0;
  /* each patch file once; berry's builtin ones (which name no file) after */
  files = nub_calloc(t->lock_patches.n, sizeof(*files));
  for (size_t i = 0; i < t->lock_patches.n; i++)
    if (strncmp(t->lock_patches.v[i].spec, NUB_BERRY_BUILTIN, strlen(NUB_BERRY_BUILTIN)) &&
        !nub_strarray_has(files, n, t->lock_patches.v[i].spec))
      files[n++] = nub_strdup(t->lock_patches.v[i].spec);
  rc = nub_patches_load_files(&c->patches, c->s->root, files, n, "yarn.lock", err);
  nub_strarray_free(files, n);
  c->patches.berry = true;
  for (size_t i = 0; rc == 0 && i < t->lock_patches.n; i++) {
    const char *spec = t->lock_patches.v[i].spec;
    char *text = NULL;
    size_t len = 0;
    bool have = false;
    if (strncmp(spec, NUB_BERRY_BUILTIN, strlen(NUB_BERRY_BUILTIN)))
      continue;
    for (size_t k = 0; k < c->patches.n && !have; k++)
      have = !strcmp(c->patches.v[k].file, spec);
    if (have)
      continue;
    rc = nub_berry_compat_patch(spec, &text, &len);
    if (rc == -ENOENT) { /* a builtin patch of a later yarn: the package as published */
      nub_diag_debugf("patches: %s is no builtin patch nub knows; not applied", spec);
      rc = 0;
      continue;
    }
    if (rc < 0)
      return nub_err_set(err, -NUB_EPATCH, "yarn.lock: berry's builtin patch %s: nub's copy of "
                         "it does not decode (%s)", spec, nub_strerror(rc));
    nub_patches_add_text(&c->patches, spec, text, len, true);
  }
  /* the copies it names become patched copies of their packages */
  for (size_t i = 0; rc == 0 && i < t->lock_patches.n; i++) {
    long ni = nub_tree_lookup(t, t->lock_patches.v[i].name);
    struct nub_node *nd = ni >= 0 ? &t->nodes[ni] : NULL;
    struct nub_patch_rule *r = NULL;
    char key[65];
    for (size_t k = 0; k < c->patches.n && !r; k++)
      if (!strcmp(c->patches.v[k].file, t->lock_patches.v[i].spec))
        r = &c->patches.v[k];
    if (!nd || !nd->pkg || !r)
      continue;
    r->used = true;
    nub_patched_key(nd->pkg->key, r->hash, NUB_PATCH_BERRY, key);
    nd->pkg = nub_pkgtab_derive(&c->plan.pkgs, nd->pkg, key);
    memcpy(nd->pkg->patch_hash, r->hash, sizeof(nd->pkg->patch_hash));
    nd->pkg->patch_rule = r;
    nd->pkg->patch_berry = true;
    memcpy(nd->pkg->patched_key, key, sizeof(key));
  }
  return rc;
}

int nub_patching_assign(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_patches *ps = &c->patches;
  const char *allow = nub_depmap_get(&c->s->ws.settings, "allowUnusedPatches");
  int rc = 0;

  if (!ps->n)
    return 0;
  if (ps->berry) {
    /* patched copies are made to stand for their own packages (above):
     * those must be fetched */
    for (size_t i = 0; i < c->plan.pkgs.n; i++) {
      struct nub_pkg *p = c->plan.pkgs.v[i];
      if (p->base && p->needed) {
        p->base->optional = p->base->needed ? p->base->optional && p->optional : p->optional;
        p->base->needed = true;
      }
    }
    return 0;
  }
  for (size_t i = 0; i < ps->n; i++)
    ps->v[i].used = false;
  for (size_t i = 0; i < c->plan.pkgs.n; i++) {
    struct nub_pkg *p = c->plan.pkgs.v[i];
    struct nub_patch_rule *r;
    p->patch_hash[0] = '\0';
    p->patch_rule = NULL;
    if (!p->needed)
      continue;
    r = nub_patches_find(ps, p->name, p->version, &rc, err);
    if (rc < 0)
      return rc;
    if (!r)
      continue;
    r->used = true;
    memcpy(p->patch_hash, r->hash, sizeof(p->patch_hash));
    p->patch_rule = r;
    p->patch_berry = ps->berry;
    nub_patched_key(p->key, p->patch_hash, ps->berry ? NUB_PATCH_BERRY : NUB_PATCH_PNPM,
                    p->patched_key);
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
    const struct nub_pkg *from = p->base ? p->base : p;
    if (p->base && p->base->failed && !p->failed) { /* an optional one that failed */
      p->failed = true;
      p->fail_code = p->base->fail_code;
    }
    if (!p->patch_hash[0] || !p->needed || !from->index || from->failed ||
        (p->index && !strcmp(p->index->key, p->patched_key)))
      continue;
    snprintf(what, sizeof(what), "%s@%s", p->name, p->version);
    {
      const struct nub_patch_rule *r = p->patch_rule;
      struct nub_patch_src src = {.label = r->file, .path = r->path, .text = r->text,
                                  .len = r->len, .version = p->version,
                                  .optional = r->optional};
      rc = nub_store_patched(&c->store, from->index, what, &src,
                             p->patch_berry ? NUB_PATCH_BERRY : NUB_PATCH_PNPM, p->patched_key,
                             p->as_tree, p->name, &idx, err);
    }
    if (rc == 1) { /* an optional one that does not apply: as published, as berry */
      nub_progress_warn(&c->prog, "%s; installed as published, as yarn does", err->msg);
      rc = 0;
    }
    if (rc == -NUB_EPATCH) {
      char m[sizeof(err->msg)];
      snprintf(m, sizeof(m), "%s; mend the patch, or take it out of %s's patchedDependencies",
               err->msg, c->patches.home);
      return nub_err_set(err, rc, "%s", m);
    }
    if (rc < 0)
      return rc;
    nub_index_free(p->index); /* (the package's own, or none for a copy) */
    p->index = idx;
    made++;
  }
  if (made)
    nub_diag_debugf("patches: %zu packages patched", made);
  return 0;
}
