/* tree.c - the install plan's containers. */
#include "tree.h"


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nub_alloc.h"
#include "path.h"
#include "index.h"

void nub_tree_init(struct nub_tree *t, struct nub_pkgtab *pkgs)
{
  memset(t, 0, sizeof(*t));
  t->pkgs = pkgs;
}

struct nub_pkg *nub_tree_pkg(struct nub_tree *t, const char *name, const char *version,
                             const char *tarball, const char *integrity)
{
  return nub_pkgtab_get(t->pkgs, name, version, tarball, integrity);
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

long nub_tree_lookup(const struct nub_tree *t, const char *path)
{
  return bsearch_path(t, path, strlen(path));
}

long nub_tree_resolve(const struct nub_tree *t, long from, const char *name)
{
  static const char nm[] = "node_modules/";
  char path[4096];
  size_t nlen = strlen(name);

  /* called for every edge of the tree: the paths are put together by hand */
  for (long at = from;; at = t->nodes[at].parent) {
    size_t off = 0;
    long hit = -1;
    if (at >= 0) {
      off = strlen(t->nodes[at].path);
      if (off + 1 < sizeof(path)) {
        memcpy(path, t->nodes[at].path, off);
        path[off++] = '/';
      }
    }
    if (off + sizeof(nm) + nlen <= sizeof(path)) {
      memcpy(path + off, nm, sizeof(nm) - 1);
      memcpy(path + off + sizeof(nm) - 1, name, nlen + 1);
      hit = nub_tree_lookup(t, path);
    }
    if (hit >= 0 || at < 0)
      return hit;
  }
}

/* A node's path: normalised as it is (no "..", not absolute), and every
 * folder it names under a node_modules a package name. */
static bool safe_node_path(const char *path, const char *folder)
{
  char norm[4096];
  const char *p;

  if (nub_path_normalize(path, norm, sizeof(norm)) < 0 || strcmp(norm, path))
    return false;
  for (p = path; (p = strstr(p, "node_modules/")) != NULL; p += 13) {
    const char *name = p + 13, *end;
    char buf[256];
    if (p != path && p[-1] != '/')
      continue;
    end = strchr(name, '/');
    if (end && *name == '@')
      end = strchr(end + 1, '/');
    if (!end)
      end = name + strlen(name);
    if ((size_t)(end - name) >= sizeof(buf))
      return false;
    memcpy(buf, name, (size_t)(end - name));
    buf[end - name] = '\0';
    if (!nub_valid_pkg_name(buf))
      return false;
  }
  return !folder || nub_valid_pkg_name(folder);
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
    /* whichever reader or hoister made the path: it stays in the project,
     * and a package's folder is a package name */
    if (!safe_node_path(n->path, folder))
      return nub_err_set(err, -NUB_EUNSAFE,
                         "%s would install to '%s', which is not a package's folder under "
                         "node_modules; refusing", lockname, n->path);
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

void nub_tree_release_nodes(struct nub_tree *t)
{
  for (size_t i = 0; i < t->n; i++) {
    struct nub_node *n = &t->nodes[i];
    nub_free(n->path);
    nub_free(n->link_target);
    nub_strarray_free(n->os, n->nos);
    nub_strarray_free(n->cpu, n->ncpu);
    nub_strarray_free(n->libc, n->nlibc);
    nub_free(n->engine_node);
    nub_strarray_free(n->deps, n->ndeps);
    nub_strarray_free(n->opt_peers, n->nopt_peers);
    nub_depmap_release(&n->peers);
    if (n->member_specs) {
      for (int k = 0; k < 4; k++)
        nub_depmap_release(&n->member_specs[k]);
      nub_free(n->member_specs);
    }
    for (size_t b = 0; b < n->nbins; b++) {
      nub_free(n->bins[b].name);
      nub_free(n->bins[b].target);
    }
    nub_free(n->bins);
  }
  nub_free(t->nodes);
  t->nodes = NULL;
  t->n = t->cap = 0;
}

void nub_tree_release(struct nub_tree *t)
{
  nub_tree_release_nodes(t);
  nub_depmap_release(&t->root_deps);
  nub_depmap_release(&t->root_dev);
  nub_depmap_release(&t->root_optional);
  nub_depmap_release(&t->root_peer);
  nub_depmap_release(&t->overrides);
  nub_depmap_release(&t->patched);
  nub_depmap_release(&t->pkg_exts);
  nub_depmap_release(&t->lock_patches);
  nub_tree_init(t, t->pkgs);
}

size_t nub_node_nm_len(const struct nub_node *n)
{
  return (size_t)(n->folder - n->path) - 1;
}

size_t nub_node_holder_len(const struct nub_node *n)
{
  size_t nm = nub_node_nm_len(n);
  return n->folder[0] == '@' ? nm + 1 + strcspn(n->folder, "/") : nm;
}

