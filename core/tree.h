/* tree.h - the install plan: unique packages (what to fetch) and nodes (the
 * directories of the layout and where each package goes). Lockfile readers
 * produce it; fetch fills in store indexes; linkers materialise it. */
#ifndef NUB_TREE_H
#define NUB_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "manifest.h"

struct nub_index;

enum nub_node_flag {
  NUB_NF_DEV = 1u << 0,
  NUB_NF_OPTIONAL = 1u << 1,
  NUB_NF_DEV_OPTIONAL = 1u << 2,
  NUB_NF_PEER = 1u << 3,
  NUB_NF_BUNDLED = 1u << 4,        /* ships inside its parent's tarball */
  NUB_NF_LINK = 1u << 5,           /* a symlink to link_target */
  NUB_NF_INSTALL_SCRIPT = 1u << 6, /* lockfile says it has install scripts */
  NUB_NF_LOCAL = 1u << 7,          /* a folder of the project (workspace) */
};

/* One fetchable package, unique by store key (tarball identity). */
struct nub_pkg {
  char *name;      /* registry name (not an alias) */
  char *version;
  char *tarball;   /* absolute URL, after registry rewriting */
  char *integrity; /* SRI string or NULL */
  char key[65];    /* store index key: hex sha256 of the identity */
  struct nub_index *index; /* loaded by fetch; owned */
  bool needed;     /* some non-skipped node installs it */
  bool optional;   /* every node that installs it is optional: a failed fetch
                    * skips it instead of failing the install */
  bool failed;     /* an optional package that could not be fetched */
  bool as_tree;    /* a miss is imported as a tree (nub_import_as_tree) */
  bool imported;   /* this install put it in the store */
  unsigned char fetch_state; /* private to fetch */
};

/* One directory of the layout. */
struct nub_node {
  char *path;        /* relative to the project: "node_modules/a/node_modules/b" */
  const char *folder;/* the package folder name inside path ("b", "@s/b") */
  struct nub_pkg *pkg; /* NULL for links and local folders */
  char *link_target; /* NUB_NF_LINK: target relative to the project */
  unsigned flags;
  char **os, **cpu, **libc;
  size_t nos, ncpu, nlibc;
  char **deps;       /* names it depends on (for the isolated conversion) */
  size_t ndeps;
  struct nub_bin *bins; /* from the lockfile when it records them */
  size_t nbins;
  bool bins_known;
  int depth;         /* node_modules segments in path (1 = top level) */
  long parent;       /* index of the enclosing node, -1 at the top */
  bool skip;         /* filtered out (dev, optional, platform) */
};

struct nub_tree {
  struct nub_node *nodes;
  size_t n, cap;
  struct nub_pkg **pkgs;
  size_t npkgs, cappkgs;
  struct nub_pkg **slots; /* open-addressing table keyed by pkg->key */
  size_t nslots;
  int lockfile_version;
  bool has_root_deps; /* the lockfile records the root's dependency specs */
  struct nub_depmap root_deps, root_dev, root_optional, root_peer;
};

void nub_tree_init(struct nub_tree *t);
void nub_tree_release(struct nub_tree *t);
/* The package with this identity, creating it if new; strings are copied. */
struct nub_pkg *nub_tree_pkg(struct nub_tree *t, const char *name,
                             const char *version, const char *tarball,
                             const char *integrity);
/* Append a node; path is copied. Returns its index. */
size_t nub_tree_add_node(struct nub_tree *t, const char *path);
/* Index of the node at exactly `path`, or -1. Linear; for building only. */
long nub_tree_find(const struct nub_tree *t, const char *path);
/* Sort nodes by path and fill depth/parent/folder; returns -NUB_ELOCKFILE
 * with a message when a nested node has no enclosing package entry. */
int nub_tree_finish(struct nub_tree *t, const char *lockname, struct nub_err *err);

/* Store key of a package identity: sha256("<integrity>") when known, else
 * sha256("url:<tarball>"). */
void nub_pkg_key(const char *integrity, const char *tarball, char out[65]);

#endif
