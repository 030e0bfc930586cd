/* tree.c - the install plan's containers. */
#include "tree.h"

#include <stdlib.h>
#include <string.h>

#include "integrity.h"
#include "nub_alloc.h"
#include "path.h"
#include "store.h"

void nub_tree_init(struct nub_tree *t) { memset(t, 0, sizeof(*t)); }

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

static void rehash(struct nub_tree *t)
{
  size_t ns = t->nslots ? t->nslots * 2 : 1024;
  struct nub_pkg **s = nub_calloc(ns, sizeof(*s));

  for (size_t i = 0; i < t->npkgs; i++) {
    size_t j = slot_of(t->pkgs[i]->key, ns);
    while (s[j])
      j = (j + 1) & (ns - 1);
    s[j] = t->pkgs[i];
  }
  nub_free(t->slots);
  t->slots = s;
  t->nslots = ns;
}

struct nub_pkg *nub_tree_pkg(struct nub_tree *t, const char *name,
                             const char *version, const char *tarball,
                             const char *integrity)
{
  char key[65];
  size_t j;
  struct nub_pkg *p;

  nub_pkg_key(integrity, tarball, key);
  if (t->npkgs * 2 >= t->nslots)
    rehash(t);
  j = slot_of(key, t->nslots);
  while (t->slots[j]) {
    if (!strcmp(t->slots[j]->key, key))
      return t->slots[j];
    j = (j + 1) & (t->nslots - 1);
  }
  p = nub_calloc(1, sizeof(*p));
  p->name = nub_strdup(name);
  p->version = nub_strdup(version ? version : "");
  p->tarball = tarball ? nub_strdup(tarball) : NULL;
  p->integrity = integrity ? nub_strdup(integrity) : NULL;
  memcpy(p->key, key, sizeof(key));
  t->slots[j] = p;
  NUB_GROW(t->pkgs, t->cappkgs, t->npkgs + 1);
  t->pkgs[t->npkgs++] = p;
  return p;
}

size_t nub_tree_add_node(struct nub_tree *t, const char *path)
{
  struct nub_node *n;

  NUB_GROW(t->nodes, t->cap, t->n + 1);
  n = &t->nodes[t->n];
  memset(n, 0, sizeof(*n));
  n->path = nub_strdup(path);
  n->parent = -1;
  return t->n++;
}

long nub_tree_find(const struct nub_tree *t, const char *path)
{
  for (size_t i = 0; i < t->n; i++)
    if (!strcmp(t->nodes[i].path, path))
      return (long)i;
  return -1;
}

static int cmp_node(const void *a, const void *b)
{
  return strcmp(((const struct nub_node *)a)->path, ((const struct nub_node *)b)->path);
}

static long bsearch_path(const struct nub_tree *t, const char *path, size_t len)
{
  size_t lo = 0, hi = t->n;

  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strncmp(t->nodes[mid].path, path, len);
    if (c == 0 && t->nodes[mid].path[len] != '\0')
      c = 1;
    if (c < 0)
      lo = mid + 1;
    else if (c > 0)
      hi = mid;
    else
      return (long)mid;
  }
  return -1;
}

int nub_tree_finish(struct nub_tree *t, const char *lockname, struct nub_err *err)
{
  nub_sort(t->nodes, t->n, sizeof(*t->nodes), cmp_node);
  for (size_t i = 0; i < t->n; i++) {
    struct nub_node *n = &t->nodes[i];
    const char *folder = nub_path_pkg_name(n->path), *p;
    int depth = 0;

    if (i > 0 && !strcmp(t->nodes[i - 1].path, n->path))
      return nub_err_set(err, -NUB_ELOCKFILE, "%s lists '%s' twice", lockname, n->path);
    n->folder = folder;
    for (p = n->path; (p = strstr(p, "node_modules/")) != NULL; p += 13)
      if (p == n->path || p[-1] == '/')
        depth++;
    n->depth = depth;
    n->parent = -1;
    if (folder && folder - n->path > 13) {
      /* "X/node_modules/<folder>": the enclosing node is at X */
      size_t plen = (size_t)(folder - n->path) - 14;
      n->parent = bsearch_path(t, n->path, plen);
      if (n->parent < 0 && depth > 1)
        return nub_err_set(err, -NUB_ELOCKFILE,
                           "%s entry '%s' is nested in '%.*s', which the "
                           "lockfile does not list", lockname, n->path, (int)plen,
                           n->path);
    }
  }
  return 0;
}

void nub_tree_release(struct nub_tree *t)
{
  for (size_t i = 0; i < t->n; i++) {
    struct nub_node *n = &t->nodes[i];
    nub_free(n->path);
    nub_free(n->link_target);
    nub_strarray_free(n->os, n->nos);
    nub_strarray_free(n->cpu, n->ncpu);
    nub_strarray_free(n->libc, n->nlibc);
    nub_strarray_free(n->deps, n->ndeps);
    for (size_t b = 0; b < n->nbins; b++) {
      nub_free(n->bins[b].name);
      nub_free(n->bins[b].target);
    }
    nub_free(n->bins);
  }
  nub_free(t->nodes);
  for (size_t i = 0; i < t->npkgs; i++) {
    struct nub_pkg *p = t->pkgs[i];
    nub_free(p->name);
    nub_free(p->version);
    nub_free(p->tarball);
    nub_free(p->integrity);
    nub_index_free(p->index);
    nub_free(p);
  }
  nub_free(t->pkgs);
  nub_free(t->slots);
  nub_depmap_release(&t->root_deps);
  nub_depmap_release(&t->root_dev);
  nub_depmap_release(&t->root_optional);
  nub_depmap_release(&t->root_peer);
  memset(t, 0, sizeof(*t));
}
