/* pkgtab.c - the package table; see pkgtab.h. */
#include "pkgtab.h"

#include <string.h>

#include "gitspec.h"
#include "integrity.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "index.h"

void nub_pkg_key(const char *integrity, const char *tarball, char out[65])
{
  unsigned char h[32];
  struct nub_sri sri;

  if (integrity && nub_sri_parse(&sri, integrity) == 0) {
    char canon[128];
    /* The canonical form, so "sha512-x sha1-y" and "sha512-x" share a key. */
    nub_sri_format(&sri, canon, sizeof(canon));
    nub_sha256(canon, strlen(canon), h);
  } else {
    char *s = nub_asprintf("url:%s", tarball ? tarball : "");
    nub_sha256(s, strlen(s), h);
    nub_free(s);
  }
  nub_hex(h, 32, out);
}

static size_t slot_of(const char *key, size_t nslots)
{
  size_t h = 0;

  /* the key is already a hash: its first hex digits spread well */
  for (int i = 0; i < 12; i++)
    h = (h << 4) | (size_t)(key[i] <= '9' ? key[i] - '0' : key[i] - 'a' + 10);
  return h & (nslots - 1);
}

static void rehash(struct nub_pkgtab *t)
{
  size_t ns = t->nslots ? t->nslots * 2 : 1024;
  struct nub_pkg **s = nub_calloc(ns, sizeof(*s));

  for (size_t i = 0; i < t->n; i++) {
    size_t j = slot_of(t->v[i]->key, ns);
    while (s[j])
      j = (j + 1) & (ns - 1);
    s[j] = t->v[i];
  }
  nub_free(t->slots);
  t->slots = s;
  t->nslots = ns;
}

static struct nub_pkg *find_slot(struct nub_pkgtab *t, const char key[65], size_t *slot)
{
  size_t j;

  if (t->n * 2 >= t->nslots)
    rehash(t);
  j = slot_of(key, t->nslots);
  while (t->slots[j]) {
    if (!strcmp(t->slots[j]->key, key))
      return t->slots[j];
    j = (j + 1) & (t->nslots - 1);
  }
  *slot = j;
  return NULL;
}

static struct nub_pkg *add_at(struct nub_pkgtab *t, size_t slot, const char key[65],
                              const char *name, const char *version, const char *tarball,
                              const char *integrity)
{
  struct nub_pkg *p = nub_calloc(1, sizeof(*p));

  p->name = nub_strdup(name);
  p->version = nub_strdup(version ? version : "");
  p->tarball = tarball ? nub_strdup(tarball) : NULL;
  p->integrity = integrity ? nub_strdup(integrity) : NULL;
  memcpy(p->key, key, 65);
  p->as_tree = t->as_trees;
  t->slots[slot] = p;
  NUB_GROW(t->v, t->cap, t->n + 1);
  t->v[t->n++] = p;
  return p;
}

struct nub_pkg *nub_pkgtab_derive(struct nub_pkgtab *t, struct nub_pkg *base, const char key[65])
{
  size_t j;
  struct nub_pkg *p = find_slot(t, key, &j);

  if (p)
    return p;
  p = add_at(t, j, key, base->name, base->version, base->tarball, base->integrity);
  p->base = base;
  p->registry_integrity = base->registry_integrity;
  return p;
}

struct nub_pkg *nub_pkgtab_get(struct nub_pkgtab *t, const char *name, const char *version,
                               const char *tarball, const char *integrity)
{
  char key[65];
  size_t j;
  struct nub_pkg *p;

  /* (a git package yarn 1 installs may be prepared too: git.h) */
  enum nub_git_form form = nub_git_form_of(tarball);
  bool prepare = false;

  for (size_t i = 0; (form == NUB_GIT_PACKED || form == NUB_GIT_AS_YARN) && i < t->nprepare &&
                     !prepare;
       i++)
    prepare = nub_approval_matches(t->prepare_names[i], name, version);

  if (prepare) {
    unsigned char h[32];
    char *id = nub_asprintf("prepared:%s", tarball);
    nub_sha256(id, strlen(id), h);
    nub_hex(h, 32, key);
    nub_free(id);
  } else {
    nub_pkg_key(integrity, tarball, key);
  }
  if ((p = find_slot(t, key, &j)))
    return p;
  p = add_at(t, j, key, name, version, tarball, integrity);
  p->prepare = prepare;
  return p;
}

void nub_pkgtab_release(struct nub_pkgtab *t)
{
  for (size_t i = 0; i < t->n; i++) {
    struct nub_pkg *p = t->v[i];
    nub_free(p->name);
    nub_free(p->version);
    nub_free(p->tarball);
    nub_free(p->integrity);
    nub_free(p->fail_msg);
    nub_index_free(p->index);
    nub_free(p);
  }
  nub_free(t->v);
  nub_free(t->slots);
  memset(t, 0, sizeof(*t));
}
