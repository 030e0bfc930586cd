/* graph.h - the resolved dependency graph in the shape of nub.lock (the
 * pnpm-lock.yaml v9 format): importers (the project) with their direct
 * dependencies, and packages keyed by dependency path
 * ("name@1.2.3", or with peer context "name@1.2.3(peer@2.0.0)").
 *
 * The resolver produces it, lockfile_pnpm.c reads and writes it, and the
 * isolated linker materialises it. Strings are owned by the graph. */
#ifndef NUB_GRAPH_H
#define NUB_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "manifest.h"

struct nub_pkg;

/* One edge: the folder name a dependency is visible under (an alias when
 * the spec was "npm:real@range"), and the dep path of its target. For
 * link:/file: targets, `ref` is "link:../dir" / "file:../dir". */
struct nub_gedge {
  char *alias;
  char *ref; /* the version part as the lockfile writes it: "1.2.3(peer@2)",
              * "real@1.2.3" for aliases, "link:../x" */
};

struct nub_gpkg {
  char *key;        /* dep path: snapshot key, "name@1.2.3(peer@1.0.0)" */
  char *pkg_key;    /* packages key without peer suffix: "name@1.2.3" */
  char *name;       /* registry name */
  char *version;
  /* packages: section */
  char *integrity;  /* resolution.integrity */
  char *tarball;    /* resolution.tarball for URL dependencies, else NULL */
  char *directory;  /* resolution.directory for file: dependencies */
  struct nub_depmap engines;
  /* what package.json's packageExtensions added to its manifest (bun:
   * resolve.h's ext_rule), as compact JSON: {"dependencies": [names],
   * "optionalDependencies", "peerDependencies", "peerDependenciesMeta"};
   * NULL when none applied */
  char *ext_applied;
  struct nub_depmap peers;          /* peerDependencies (specs) */
  char **peers_optional;            /* peerDependenciesMeta: optional */
  size_t npeers_optional;
  char **os, **cpu, **libc;
  size_t nos, ncpu, nlibc;
  bool has_bin;
  bool requires_build;              /* has install scripts (not in v9 output) */
  char *deprecated;
  char **bundled;
  size_t nbundled;
  /* snapshots: section */
  struct nub_gedge *deps;
  size_t ndeps;
  struct nub_gedge *optional_deps;
  size_t noptional_deps;
  char **transitive_peers;
  size_t ntransitive_peers;
  bool optional;    /* only reachable through optional dependencies */
  /* install-time data, not serialised */
  struct nub_depmap dep_specs, opt_specs; /* the resolver's: its package.json's
                                           * dependencies / optionalDependencies
                                           * (package-lock.json records them) */
  struct nub_depmap bins;                 /* the resolver's: command -> target */
  struct nub_depmap bin_raw;              /* the resolver's: "bin" as the registry
                                           * wrote it (nub_pversion) */
  bool bin_string;
  char *bin_dir;
  char **patterns;                        /* yarn.lock: the keys resolving to it */
  char *resolved;                         /* yarn.lock: `resolved` as written */
  char *shasum;                           /* the resolver's: dist.shasum, or NULL */
  size_t npatterns;
  struct nub_pkg *fetch;  /* store identity */
  bool skip;              /* filtered out for this platform / --prod */
  bool dev_only;          /* reachable only from devDependencies */
  bool afresh;            /* the resolver's: first met through a hoisted
                           * optional peer, so resolved from the registry's
                           * facts, not the previous lockfile's (pnpm) */
  bool local;             /* isolated layout: its entry is a directory in the
                           * project, not a link into the store (link_isolated.c) */
  size_t index;           /* position in graph->pkgs */
};

struct nub_gdirect {
  char *alias;     /* name in package.json */
  char *specifier; /* spec in package.json */
  char *ref;       /* version part: "1.2.3(peer@1)", "real@1.2.3", "link:x" */
};

struct nub_importer {
  char *path; /* "." for the root project */
  bool skip;  /* left out by --filter (not serialised) */
  struct nub_gdirect *deps, *dev, *optional;
  size_t ndeps, ndev, noptional;
};

/* The kinds of an importer's direct dependencies, in the order layouts,
 * bins and the state walk them. */
enum { NUB_DEP_PROD, NUB_DEP_OPTIONAL, NUB_DEP_DEV, NUB_DEP_KINDS };
/* An importer's direct dependencies of one kind (NUB_DEP_*): *out and how
 * many. */
size_t nub_importer_directs(const struct nub_importer *im, int kind,
                            const struct nub_gdirect **out);

/* The catalog entries the importers use (pnpm's "catalogs:" section):
 * alias, the catalog's range as specifier, the version it resolved to. */
struct nub_gcatalog {
  char *name; /* "default", or the named catalog's */
  struct nub_gdirect *entries;
  size_t n;
};

/* A path under the importer's directory: "node_modules/x" for the project,
 * "packages/a/node_modules/x" for a member. Caller frees. */
char *nub_importer_file(const struct nub_importer *im, const char *rest);
/* Where a "link:<rel>" ref of the importer points, as a path from the
 * project ("packages/b"; ".." applied); NULL for another ref or one that
 * leaves the file system's root. Caller frees. */
char *nub_importer_link_path(const struct nub_importer *im, const char *ref);
struct nub_graph;
/* The importer at path ("." for the project), or NULL. */
const struct nub_importer *nub_graph_importer(const struct nub_graph *g, const char *path);
/* How many directories deep the importer is below the project (0 for "."). */
int nub_importer_depth(const struct nub_importer *im);

struct nub_graph {
  bool auto_install_peers;
  bool exclude_links;
  /* Other `settings:` entries (dedupePeers, injectWorkspacePackages,
   * peersSuffixMaxLength, ...): name -> the value as YAML scalar text
   * ("true", "500"), written back verbatim so a round trip keeps them. */
  struct nub_depmap settings_extra;
  struct nub_depmap overrides;
  char *ext_checksum; /* packageExtensionsChecksum ("sha256-..."), or NULL */
  char *pnpmfile_checksum; /* pnpmfileChecksum ("sha256-..."), or NULL */
  /* patchedDependencies: the configured key ("b@1.0.0") -> the patch's
   * hash, which the keys of the packages it patches carry as
   * "(patch_hash=<hash>)"; sorted by key */
  struct nub_depmap patched;
  struct nub_gcatalog *catalogs; /* sorted by name, entries by alias */
  size_t ncatalogs;
  struct nub_importer *importers;
  size_t nimporters;
  struct nub_gpkg **pkgs; /* sorted by key */
  size_t npkgs, cappkgs;
};

void nub_graph_init(struct nub_graph *g);
void nub_graph_release(struct nub_graph *g);
/* Add a package (the graph takes ownership); keeps no order until sorted. */
void nub_graph_add(struct nub_graph *g, struct nub_gpkg *p);
/* Sort packages by key (byte order) and number them. */
void nub_graph_sort(struct nub_graph *g);
/* Sort, then mark every package that only optional edges reach (from the
 * importers' dependencies and devDependencies) `optional`. */
void nub_graph_mark_optional(struct nub_graph *g);
/* Find a package by dep path (after nub_graph_sort), or NULL. */
struct nub_gpkg *nub_graph_find(const struct nub_graph *g, const char *key);
/* p's edge named alias (its dependencies, then optional ones), or NULL. */
const struct nub_gedge *nub_gpkg_edge(const struct nub_gpkg *p, const char *alias);
/* The package p's edge named alias points at, or NULL (none, or a link). */
struct nub_gpkg *nub_graph_edge_target(const struct nub_graph *g, const struct nub_gpkg *p,
                                       const char *alias);
/* The dep path an edge points at: "name@<ref>" for plain refs, the ref itself
 * for aliases ("real@1.2.3"); NULL for link:/file: refs. Caller frees. */
char *nub_gedge_target(const char *alias, const char *ref);
/* Breadth-first from the importers' direct dependencies (importer by
 * importer, kind by kind, in edge order), then along each package's
 * dependencies and optional dependencies in edge order. enter(ud, to, from,
 * importer) is asked once per edge to a package (from: the package index
 * the edge leaves, -1 for a direct one) and says whether to go there; it
 * keeps its own record of what was entered. Returns how many were. */
size_t nub_graph_bfs(const struct nub_graph *g,
                     bool (*enter)(void *ud, size_t to, long from, size_t importer), void *ud);
/* The plain walk's rule: each package once, ud a bool per package (npkgs)
 * that says which were entered. */
bool nub_graph_enter_once(void *ud, size_t to, long from, size_t importer);
void nub_gpkg_free(struct nub_gpkg *p);
/* Drops the packages no importer reaches any more and the catalog entries
 * no importer's "catalog:" dependency names, then sorts and marks optional
 * ones again (a removal as pnpm makes it: the rest of the file as it was). */
void nub_graph_prune(struct nub_graph *g);
/* Every name that becomes a folder: each importer's path stays in the
 * project, each direct and package dependency is known by a package name
 * (path.h), each package has one. -NUB_EUNSAFE naming source (the
 * lockfile) and the dependent otherwise. */
int nub_graph_check_names(const struct nub_graph *g, const char *source, struct nub_err *err);
/* Record that catalog `name` gives `alias` `range`, resolved to `version`
 * (once per name and alias; the first wins). Keeps the sort order. */
void nub_graph_add_catalog(struct nub_graph *g, const char *name, const char *alias,
                           const char *range, const char *version);
/* The entry of catalog `name` for alias, or NULL. */
const struct nub_gdirect *nub_graph_catalog(const struct nub_graph *g, const char *name,
                                            const char *alias);

#endif
