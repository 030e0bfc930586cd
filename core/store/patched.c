/* patched.c - a stored package with a patch applied (patched.h). The patch
 * is applied to the package's files in memory, as pnpm applies it to a
 * copy of the package (patchfile.h), and the result imported like a
 * directory: the package's own stored files are never written. */
#include "patched.h"

#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "extract.h"
#include "integrity.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "patchfile.h"
#include "semver.h"
#include "strmap.h"

#define MAX_PATCH_FILE (64u << 20)

void nub_patched_key(const char base_key[65], const char hash[65], enum nub_patch_rules rules,
                     char out[65])
{
  char text[200];
  unsigned char h[32];
  int n = snprintf(text, sizeof(text), "patched:%s:%s%s", base_key, hash,
                   rules == NUB_PATCH_BERRY ? ":berry" : "");

  nub_sha256(text, (size_t)n, h);
  nub_hex(h, 32, out);
}

/* A file as the patch leaves it: its bytes and mode, or gone. */
struct vfile {
  char *path;
  struct nub_buf data;
  unsigned mode;
  bool gone;
};

struct vdir {
  struct nub_store *s;
  const struct nub_index *base;
  struct nub_strmap changed; /* path -> struct vfile * */
  struct vfile **v;
  size_t n, cap;
};

/* The file at path as the operations so far leave it (loaded into a vfile
 * on first touch), or NULL when there is none. */
static struct vfile *get(struct vdir *d, const char *path, int *rc)
{
  struct vfile *f = nub_strmap_get(&d->changed, path);
  const struct nub_index_file *bf;
  char *data = NULL;
  size_t len = 0;

  *rc = 0;
  if (f)
    return f->gone ? NULL : f;
  if (!(bf = nub_index_file_at(d->base, path)))
    return NULL;
  *rc = nub_store_read_pkg_file(d->s, d->base, path, &data, &len);
  if (*rc < 0)
    return NULL;
  f = nub_calloc(1, sizeof(*f));
  f->path = nub_strdup(path);
  nub_buf_add(&f->data, data ? data : "", len);
  nub_free(data);
  f->mode = bf->mode;
  nub_strmap_put(&d->changed, path, f);
  NUB_GROW(d->v, d->cap, d->n + 1);
  d->v[d->n++] = f;
  return f;
}

/* A new file at path (replacing a gone one's entry). */
static struct vfile *put(struct vdir *d, const char *path, unsigned mode)
{
  struct vfile *f = nub_strmap_get(&d->changed, path);

  if (!f) {
    f = nub_calloc(1, sizeof(*f));
    f->path = nub_strdup(path);
    nub_strmap_put(&d->changed, path, f);
    NUB_GROW(d->v, d->cap, d->n + 1);
    d->v[d->n++] = f;
  }
  nub_buf_reset(&f->data);
  nub_buf_add(&f->data, "", 0);
  f->mode = mode;
  f->gone = false;
  return f;
}

/* Whether op is for this version: berry reads a part's "semver exclusivity"
 * range (prereleases included); pnpm's reader has no such line. */
static bool for_version(const struct nub_patch_op *op, enum nub_patch_rules rules,
                        const char *version)
{
  return !op->only_for || rules != NUB_PATCH_BERRY || !version ||
         nub_semver_satisfies(op->only_for, version, true) == 1;
}

static int apply_ops(struct vdir *d, const struct nub_patch *p, enum nub_patch_rules rules,
                     const char *version, struct nub_err *err)
{
  struct nub_buf out = NUB_BUF_INIT;
  int rc = 0;

  for (size_t i = 0; i < p->nops && rc == 0; i++) {
    const struct nub_patch_op *op = &p->ops[i];
    struct vfile *f, *t;
    if (!for_version(op, rules, version))
      continue;
    f = get(d, op->path, &rc);
    if (rc < 0)
      break;
    switch (op->kind) {
    case NUB_PATCH_CREATE:
      if (f) {
        rc = nub_err_set(err, -NUB_EPATCH, "it creates %s, which the package has", op->path);
        break;
      }
      f = put(d, op->path, op->mode);
      nub_patch_created(op, &f->data);
      break;
    case NUB_PATCH_EDIT:
      if (!f) {
        rc = nub_err_set(err, -NUB_EPATCH, "it changes %s, which the package does not have",
                         op->path);
        break;
      }
      rc = nub_patch_apply(op, f->data.data ? f->data.data : "", f->data.len, rules, &out, err);
      if (rc == 0) {
        nub_buf_release(&f->data);
        f->data = out;
        out = (struct nub_buf)NUB_BUF_INIT;
      }
      break;
    case NUB_PATCH_DELETE:
    case NUB_PATCH_MODE:
      if (!f) {
        rc = nub_err_set(err, -NUB_EPATCH, "it %s %s, which the package does not have",
                         op->kind == NUB_PATCH_DELETE ? "deletes" : "changes the mode of",
                         op->path);
        break;
      }
      if (op->kind == NUB_PATCH_DELETE)
        f->gone = true;
      else if (rules != NUB_PATCH_BERRY) /* berry changes a mode only where the */
        f->mode = op->mode;              /* executable bit stays: none of ours */
      break;
    case NUB_PATCH_RENAME:
      if (!f) {
        rc = nub_err_set(err, -NUB_EPATCH, "it renames %s, which the package does not have",
                         op->path);
        break;
      }
      if (get(d, op->to, &rc) || rc < 0) {
        if (rc == 0)
          rc = nub_err_set(err, -NUB_EPATCH, "it renames %s to %s, which the package has",
                           op->path, op->to);
        break;
      }
      t = put(d, op->to, f->mode);
      nub_buf_add(&t->data, f->data.data ? f->data.data : "", f->data.len);
      f->gone = true;
      break;
    }
  }
  nub_buf_release(&out);
  return rc;
}

static int import_all(struct vdir *d, struct nub_import *im)
{
  int rc = 0;

  for (uint32_t i = 0; i < d->base->ndirs && rc == 0; i++)
    rc = nub_import_dir(im, d->base->dirs[i]);
  for (uint32_t i = 0; i < d->base->nfiles && rc == 0; i++) {
    const struct nub_index_file *bf = &d->base->files[i];
    char *data = NULL;
    size_t len = 0;
    if (nub_strmap_get(&d->changed, bf->path))
      continue;
    rc = nub_store_read_pkg_file(d->s, d->base, bf->path, &data, &len);
    if (rc == 0)
      rc = nub_import_file_begin(im, bf->path, bf->mode);
    if (rc == 0)
      rc = nub_import_file_write(im, data, len);
    if (rc == 0)
      rc = nub_import_file_end(im);
    nub_free(data);
  }
  for (size_t i = 0; i < d->n && rc == 0; i++) {
    const struct vfile *f = d->v[i];
    if (f->gone)
      continue;
    rc = nub_import_file_begin(im, f->path, f->mode);
    if (rc == 0)
      rc = nub_import_file_write(im, f->data.data ? f->data.data : "", f->data.len);
    if (rc == 0)
      rc = nub_import_file_end(im);
  }
  return rc;
}

static void free_vfile(void *p)
{
  struct vfile *f = p;
  nub_free(f->path);
  nub_buf_release(&f->data);
  nub_free(f);
}

static void vdir_release(struct vdir *d)
{
  nub_strmap_release(&d->changed, free_vfile);
  nub_free(d->v);
  memset(d, 0, sizeof(*d));
}

int nub_store_patched(struct nub_store *s, const struct nub_index *base, const char *what,
                      const struct nub_patch_src *src, enum nub_patch_rules rules,
                      const char key[65], bool as_tree, const char *name,
                      struct nub_index **out, struct nub_err *err)
{
  struct nub_patch patch;
  struct vdir d;
  struct nub_import *im = NULL;
  char *text = NULL, why[512];
  size_t len = 0;
  bool unpatched = false;
  int rc;

  *out = NULL;
  if (nub_store_index_load(s, key, out) == 0) {
    if (nub_store_check(s, *out, why, sizeof(why)) == 0)
      return 0;
    nub_index_free(*out);
    *out = NULL;
    nub_store_index_remove(s, key);
  }
  if (src->text) {
    rc = nub_patch_parse(src->text, src->len, &patch, err);
  } else {
    rc = nub_plat_read_file_at(NUB_PLAT_CWD, src->path, MAX_PATCH_FILE, &text, &len);
    if (rc < 0)
      return nub_err_set(err, -NUB_EPATCH, "the patch for %s, %s, cannot be read: %s", what,
                         src->label, nub_strerror(rc));
    rc = nub_patch_parse(text, len, &patch, err);
    nub_free(text);
  }
  if (rc < 0)
    return nub_err_wrap(err, "the patch for %s, %s", what, src->label);
  memset(&d, 0, sizeof(d));
  d.s = s;
  d.base = base;
  rc = apply_ops(&d, &patch, rules, src->version, err);
  if (rc == -NUB_EPATCH)
    nub_err_wrap(err, "the patch for %s, %s, does not apply", what, src->label);
  if (rc == -NUB_EPATCH && src->optional) {
    /* as berry: the changes dropped, the package as published */
    vdir_release(&d);
    d.s = s;
    d.base = base;
    unpatched = true;
    rc = 0;
  }
  /* (err keeps why an optional patch did not apply: the import sets it
   * only when it fails) */
  if (rc == 0)
    rc = nub_import_begin(s, &im, err);
  if (rc == 0) {
    if (as_tree)
      nub_import_as_tree(im, name);
    rc = import_all(&d, im);
    if (rc < 0) {
      nub_import_abort(im);
      nub_err_set(err, rc, "cannot store %s patched: %s", what, nub_strerror(rc));
    } else {
      rc = nub_import_commit(im, key, out, err);
    }
  }
  vdir_release(&d);
  nub_patch_release(&patch);
  return rc == 0 && unpatched ? 1 : rc;
}
