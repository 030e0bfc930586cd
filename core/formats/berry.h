/* berry.h - the node_modules tree yarn berry builds (nodeLinker:
 * node-modules) from its yarn.lock, by berry's own rules:
 *
 *  1. every package is the lockfile's entry for the descriptor that names
 *     it, after the changes berry makes to a package before using it: the
 *     package extensions (its built-in table, berry_compat_data.h, and the
 *     project's packageExtensions), an optional @types/<name> peer for each
 *     peer, dependencies sorted by "name@range"; typescript, fsevents and
 *     resolve are taken through berry's built-in compat patches (which
 *     change nothing a node_modules install uses) as berry records them;
 *  2. a package with peer dependencies becomes one instance per parent
 *     that depends on it, its peers what that parent provides (instances
 *     that end up the same are merged), as berry's peer resolution does;
 *  3. packages whose os/cpu/libc conditions rule out this machine are left
 *     out;
 *  4. the graph is hoisted by berry's node_modules hoister (preferring the
 *     version most packages use, keeping every package's dependencies and
 *     peers resolving to the same instances as in the graph).
 *
 * The result is the list of package directories, each with its lockfile
 * entry. Workspaces are the project's folders, linked where berry links
 * them. */
#ifndef NUB_BERRY_H
#define NUB_BERRY_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "lockfile_berry.h"
#include "manifest.h"

struct nub_config;

/* One package extension: packages matching `selector` ("name@range") get
 * a dependency ('d'), a peer dependency ('p') or a peer's meta field
 * ('m': `value` names the field, which becomes true). */
struct nub_compat_row {
  const char *selector;
  char kind;
  const char *name, *value;
};

struct nub_pkg_ext;
/* The table of berry_compat_data.h as pnpm applies it too (its default
 * packageExtensions, from the same @yarnpkg/extensions): one extension per
 * selector, in the table's order, appended to *v (*n of them; the caller
 * releases each with nub_pkg_ext_release, then *v). */
void nub_compat_pkg_exts(struct nub_pkg_ext **v, size_t *n);

/* A workspace of the project: the root ("" dir) first. */
struct nub_berry_ws {
  const char *dir;                /* relative to the project, "" for the root */
  const struct nub_manifest *man; /* its package.json */
};

struct nub_berry_opts {
  const char *os, *cpu, *libc;    /* this machine, in berry's words (linux, x64, glibc) */
  /* nmHoistingLimits: "none" (or NULL), "workspaces", "dependencies" */
  const char *hoisting_limits;
  bool no_self_references;        /* nmSelfReferences: false */
  const struct nub_compat_row *exts; /* .yarnrc.yml packageExtensions, after the table's */
  size_t nexts;
  /* the root's "resolutions" ("name" or "parent>name" -> range), or NULL */
  const struct nub_depmap *resolutions;
};

/* One directory of the tree. */
struct nub_berry_place {
  char *path;                          /* "node_modules/a/node_modules/@s/b" */
  const struct nub_berry_entry *entry; /* its package (NULL for a workspace) */
  long ws;                             /* a workspace linked here: its index, else -1 */
  char *link;                          /* a soft link's target from the project, or NULL */
  char **deps;                         /* the names it requires (dependencies and the
                                        * peers given to it) */
  size_t ndeps;
  bool optional;                       /* only optional dependencies lead to it */
  bool dev;                            /* only devDependencies lead to it */
  long order;                          /* berry's order of its node_modules entries
                                        * (a bin name's first owner keeps it) */
};

/* The tree for lockfile l and workspaces ws[0..nws) (ws[0] the root).
 * A workspace dependency no lockfile descriptor answers is -NUB_EOUTDATED
 * naming it (berry's --immutable rule); an entry whose dependency no entry
 * resolves is -NUB_ELOCKFILE; what nub does not install (a patch of the
 * project's, exec:, a git or tarball reference) is -NUB_ESPEC naming the
 * package. *out holds *nout places, freed with nub_berry_places_free. */
int nub_berry_place(const struct nub_berry_lock *l, const struct nub_berry_ws *ws, size_t nws,
                    const struct nub_berry_opts *o, struct nub_berry_place **out,
                    size_t *nout, struct nub_err *err);
void nub_berry_places_free(struct nub_berry_place *v, size_t n);

/* Whether a reference is one of berry's builtin compat patches. */
bool nub_berry_is_compat_patch(const char *reference);

/* For a patch: reference (a builtin compat patch, "patch:typescript@npm%3A
 * 5.9.3#optional!builtin<compat/typescript>::version=...", or the
 * project's), the reference it patches ("npm:5.9.3"), as a new string;
 * NULL for anything else. */
char *nub_berry_unpatched(const char *reference);
/* For a patch: reference of the project's own patch file ("#~/.yarn/
 * patches/x.patch", or "#./x.patch" bound to the workspace that asked for
 * it by "::locator="), that file's path from the project's root, checked
 * to stay inside it; NULL for a compat patch, several patch files, or a
 * path nub cannot place. Caller frees. */
char *nub_berry_patch_file(const char *reference);
/* How a patch: reference names one of berry's builtin patches
 * ("builtin<compat/typescript>"), as the tree's lock_patches hold it. */
#define NUB_BERRY_BUILTIN "builtin<"
/* The text of the builtin patch spec names ("builtin<compat/typescript>",
 * resolve's, fsevents'), as yarn 4.18 applies it; *text (NUL-ended, *len
 * bytes) is the caller's. -ENOENT for another spec (a later yarn's), -EIO
 * if the table nub carries does not decode. */
int nub_berry_compat_patch(const char *spec, char **text, size_t *len);

/* ---- as the hoisted layout's tree (berry_tree.c) --------------------------- */

struct nub_tree;
struct nub_pkg;
struct nub_workspace;

/* The project a berry lockfile is read for. */
struct nub_berry_project {
  const char *dir;                 /* its folder (absolute): .yarnrc.yml is read from here up */
  const char *lockname;            /* "yarn.lock", for messages */
  const struct nub_manifest *root; /* its package.json */
  const struct nub_workspace *ws;  /* its members, or NULL */
  const char *os, *cpu, *libc;     /* this machine, npm's names */
  const struct nub_config *cfg;    /* nub's registries (checked against .yarnrc.yml's) */
  bool linker_given;               /* --node-linker (or node-linker) chose the layout */
  /* the package of a place: name@version from the registry, or from
   * tarball when berry records another URL */
  struct nub_pkg *(*identity)(void *ud, const char *name, const char *version,
                              const char *tarball);
  void *ud;
  /* set when .yarnrc.yml (or YARN_ENABLE_SCRIPTS) says enableScripts:
   * false: berry runs no dependency's build (may be NULL) */
  bool *scripts_off;
};

/* Fill t (empty, nub_tree_init'ed) with the tree of berry lockfile text:
 * the members' folders, each place with its package (identity), bins from
 * the lockfile and links; sorted by nub_tree_finish. nodeLinker other than
 * node-modules without linker_given is -NUB_ECONFIG; the rest as
 * nub_berry_place and nub_lockfile_berry_parse. */
int nub_berry_tree(struct nub_tree *t, const char *text, size_t len,
                   const struct nub_berry_project *bp, struct nub_err *err);

/* ---- the hoister (hoist_berry.c) ------------------------------------------ */

/* A package as berry's node_modules linker sees it: its dependencies by
 * the names it requires them under, in berry's order (itself first), a
 * target of -1 being a peer nothing provides. */
struct nub_berry_pnode {
  const char *name;      /* its ident */
  const char *reference; /* unique per instance ("virtual:<n>#npm:1.0.0") */
  const char *ident;     /* name@reference without the instance part */
  struct nub_berry_pdep {
    const char *name;    /* the name it is required by (an alias may differ) */
    long target;         /* index of the package, or -1 */
  } *deps;
  size_t ndeps;
  const char **peers;    /* the names that are peers */
  size_t npeers;
  bool soft;             /* linked, not copied (workspaces, link:, portal:) */
  long ws;               /* a workspace: its index; else -1 */
  const char *location;  /* a soft package's folder from the project */
  const char **ws_peers; /* a workspace's package.json peerDependencies: its node
                          * takes them from its parent */
  size_t nws_peers;
};

/* One package directory the hoisted tree has: its path, the package and
 * the name it was placed under. */
struct nub_berry_hplace {
  char *path;
  long pnode;
};

/* Hoist the graph whose root is pnodes[root] (the project's workspace)
 * the way berry's node_modules linker does; ws_dirs[i] is workspace i's
 * folder. limits: nmHoistingLimits per workspace (NULL: none). */
int nub_berry_hoist(const struct nub_berry_pnode *pnodes, size_t n, long root,
                    const char *const *ws_dirs, const char *const *ws_limits,
                    const bool *ws_self_refs, size_t nws,
                    struct nub_berry_hplace **out, size_t *nout, struct nub_err *err);

#endif
