/* tree.h - the hoisted layout's plan: nodes (the directories of the layout
 * and the package each holds, from the package table). npm and bun
 * lockfile readers produce it, hoist_npm.c makes it from a graph, the
 * hoisted linker materialises it. */
#ifndef NUB_TREE_H
#define NUB_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "manifest.h"
#include "pkgtab.h"


enum nub_node_flag {
  NUB_NF_DEV = 1u << 0,
  NUB_NF_OPTIONAL = 1u << 1,
  NUB_NF_DEV_OPTIONAL = 1u << 2,
  NUB_NF_PEER = 1u << 3,
  NUB_NF_BUNDLED = 1u << 4,        /* ships inside its parent's tarball */
  NUB_NF_LINK = 1u << 5,           /* a symlink to link_target */
  NUB_NF_INSTALL_SCRIPT = 1u << 6, /* lockfile says it has install scripts */
  NUB_NF_LOCAL = 1u << 7,          /* a folder of the project (workspace) */
  NUB_NF_DIRECT = 1u << 8,         /* placed as a direct dependency (yarn's order) */
};

struct nub_gpkg;

/* One directory of the layout. */
struct nub_node {
  char *path;        /* relative to the project: "node_modules/a/node_modules/b" */
  const char *folder;/* the package folder name inside path ("b", "@s/b") */
  struct nub_pkg *pkg; /* NULL for links and local folders */
  char *link_target; /* NUB_NF_LINK: target relative to the project */
  unsigned flags;
  char **os, **cpu, **libc;
  size_t nos, ncpu, nlibc;
  char *engine_node; /* its engines.node as an npm lockfile records it, or NULL
                      * (a node made from a graph: its gpkg's engines) */
  char **deps;       /* names it depends on (for the isolated conversion) */
  size_t ndeps;
  char **opt_peers;  /* of those, peers it can do without (peerDependenciesMeta) */
  size_t nopt_peers;
  struct nub_depmap peers; /* peerDependencies: name -> range */
  struct nub_bin *bins; /* from the lockfile when it records them */
  size_t nbins;
  bool bins_known;
  int depth;         /* node_modules segments in path (1 = top level) */
  long parent;       /* index of the enclosing node, -1 at the top */
  bool skip;         /* filtered out (dev, optional, platform) */
  /* NUB_NF_LOCAL (a workspace member): what the lockfile recorded its
   * package.json saying, [0] dependencies, [1] devDependencies,
   * [2] optionalDependencies, [3] peerDependencies; NULL when it did not */
  struct nub_depmap *member_specs;
  const struct nub_gpkg *gpkg; /* made from a graph (hoist_npm.c): its package */
  long order;        /* yarn's flat-tree position (bins' precedence), else 0 */
};

struct nub_tree {
  struct nub_node *nodes;
  size_t n, cap;
  struct nub_pkgtab *pkgs; /* where its packages live (not owned) */
  int lockfile_version;
  /* The lockfile records no platform of its packages (npm's v1, yarn 1's):
   * an optional package's os, cpu and libc are its package.json's, read
   * after the fetch. Else the lockfile's fields are the whole rule: what
   * they do not say (a libc older npm and bun versions left out) does not
   * filter, as their tools do not. */
  bool platform_unrecorded;
  /* The tool unpacks as npm's pacote does, and the hoisted linker after it:
   * a package's ".gitignore" becomes ".npmignore" (one of the package's own
   * .npmignore wins), and a tarball's directory entries make no folder (a
   * folder is there as a file's parent only). */
  bool pacote_unpack;
  int config_version;   /* bun.lock's "configVersion" (0 when it has none) */
  bool has_root_deps; /* the lockfile records the root's dependency specs */
  struct nub_depmap root_deps, root_dev, root_optional, root_peer;
  /* bun.lock's "overrides", one entry per string in it: "b" for a plain
   * one, "a>b" for b in a's object (the object's own is "a>.") */
  bool has_overrides;
  struct nub_depmap overrides;
  /* bun.lock's "patchedDependencies": "name@version" -> patch file, in
   * file order; package-lock.json's (v4, npm 12) "patched" entries:
   * "name@version" -> "<integrity> <path>" */
  struct nub_depmap patched;
  /* bun.lock's "packageExtensions": "name@version" -> what package.json's
   * packageExtensions added to it, as compact JSON ({"dependencies": [..],
   * "peerDependencies": [..]}) */
  struct nub_depmap pkg_exts;
  bool npm_patches; /* a package-lock.json that would record npm 12's patches */
  /* the patches a lockfile itself applies (yarn berry's patch: entries),
   * to the copies it names: node path -> the patch file, from the
   * project's root, or berry's own "builtin<compat/NAME>" */
  struct nub_depmap lock_patches;
};

/* An empty tree whose packages go into pkgs. */
void nub_tree_init(struct nub_tree *t, struct nub_pkgtab *pkgs);
/* Frees the nodes (the package table is the caller's). */
void nub_tree_release(struct nub_tree *t);
/* Frees the nodes only, leaving an empty tree with the rest as it was. */
void nub_tree_release_nodes(struct nub_tree *t);
/* nub_pkgtab_get on the tree's table. */
struct nub_pkg *nub_tree_pkg(struct nub_tree *t, const char *name,
                             const char *version, const char *tarball,
                             const char *integrity);
/* Append a node; path is copied. Returns its index. */
size_t nub_tree_add_node(struct nub_tree *t, const char *path);
/* The length of the node's path up to the node_modules that holds it
 * ("node_modules/a/node_modules"), and up to the directory that holds it
 * (the scope for "@s/b", else the same). */
size_t nub_node_nm_len(const struct nub_node *n);
size_t nub_node_holder_len(const struct nub_node *n);
/* Index of the node at exactly `path`, or -1, by binary search: once
 * nub_tree_finish has sorted the nodes. */
long nub_tree_lookup(const struct nub_tree *t, const char *path);
/* The node Node's resolution finds for `name` required from node `from`
 * (-1: the project): <from>/node_modules/<name>, then each enclosing
 * node's, then the top; -1 when there is none. */
long nub_tree_resolve(const struct nub_tree *t, long from, const char *name);
/* Sort nodes by path and fill depth/parent/folder; returns -NUB_ELOCKFILE
 * with a message when a nested node has no enclosing package entry. */
int nub_tree_finish(struct nub_tree *t, const char *lockname, struct nub_err *err);

#endif
