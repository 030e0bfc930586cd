/* lockfmt.h - each lockfile format behind one table of operations (as
 * curl's TLS backends, libalpm's db_operations, libsolv's repo readers).
 *
 * Everything nub does differently per format is here and in the format's
 * own files: which file it is, how it is told apart from another of that
 * name (yarn 1 and berry both write yarn.lock), the layout its tool builds,
 * how it becomes a plan (read, checked against package.json, resolved again
 * and written back where its tool would), how it reads as a graph for the
 * commands that look (ls, why, outdated), how its tool places a graph into
 * a tree and links .bin. The driver, the layouts and the queries call
 * these; nothing else asks which format a project has. Adding a format is
 * a file and a row of nub_lockfmts. */
#ifndef NUB_LOCKFMT_H
#define NUB_LOCKFMT_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "err.h"

struct nub_install_ctx;
struct nub_manifest;
struct nub_workspace;
struct nub_pkgtab;
struct nub_tree;
struct nub_graph;

/* What a reader needs of the project besides the lockfile's text. */
struct nub_lockfmt_src {
  const char *dir;                 /* the project (absolute) */
  const char *lockname;            /* the file, as errors name it */
  const struct nub_manifest *man;  /* the root's package.json */
  const struct nub_workspace *ws;  /* its members, or NULL */
  const struct nub_config *cfg;
  struct nub_pkgtab *pkgs;         /* where packages go */
};

enum {
  NUB_LF_WRITES = 1u << 0,           /* nub writes it back as its tool does */
  NUB_LF_PLACE_AFTER_FETCH = 1u << 1, /* its tool places packages knowing their
                                      * package.json (yarn 1's peers): the
                                      * hoisted tree comes after the fetch */
  NUB_LF_OS_CPU_ONLY = 1u << 2,       /* its tool leaves out optional packages
                                      * of other platforms by os and cpu, not
                                      * libc (yarn 1) */
  NUB_LF_NO_AUTO_PEERS = 1u << 3,     /* its tool installs no missing peer
                                      * dependency when it resolves (yarn 1) */
  /* which importers' own peerDependencies its tool installs: the project's
   * (pnpm, bun), each workspace member's (pnpm, bun, npm), and whether the
   * optional ones too (pnpm) */
  NUB_LF_ROOT_PEERS = 1u << 5,
  NUB_LF_MEMBER_PEERS = 1u << 6,
  NUB_LF_OPTIONAL_IMPORTER_PEERS = 1u << 7,
  /* its tool unpacks as npm's pacote does: a package's .gitignore becomes
   * .npmignore, and only files make folders (no empty directory entries) */
  NUB_LF_PACOTE_UNPACK = 1u << 8,
  /* its tool gates releases younger than a day when nothing says otherwise
   * (pnpm 12; nub's own): agegate.h */
  NUB_LF_AGE_GATE = 1u << 9,
  /* an unapproved dependency build fails its tool's install unless told
   * otherwise (pnpm 12's strictDepBuilds) */
  NUB_LF_STRICT_BUILDS = 1u << 10,
  /* its tool applies package.json's "patchedDependencies" (bun, npm 12;
   * nub's own): patching.h */
  NUB_LF_MANIFEST_PATCHES = 1u << 11,
  /* its tool resolves and records a package's bundled dependencies like
   * any other (yarn 1 ignores bundleDependencies when it resolves) */
  NUB_LF_RESOLVES_BUNDLED = 1u << 12,
  /* its tool locks a version per pattern (name@range) and resolves a new
   * pattern with the registry's pick (yarn 1) */
  NUB_LF_LOCK_BY_PATTERN = 1u << 13,
  /* its tool installs a dependency for another platform that is not
   * optional, with a warning (pnpm's packageIsInstallable, unless
   * engine-strict); npm and yarn 1 refuse it, and so does nub elsewhere */
  NUB_LF_PLATFORM_WARNS = 1u << 14,
  /* its tool reads an optional package's C library from its name where
   * the lockfile states none ("-musl", "-gnu": pnpm 12, which infers a
   * platform from a name with a cpu or libc token) */
  NUB_LF_LIBC_FROM_NAME = 1u << 15,
  /* its layout lets a package find what the lockfile resolves for it
   * nowhere, where its hoisting puts it (pnpm's node_modules/.pnpm/
   * node_modules) */
  NUB_LF_HIDDEN_HOIST = 1u << 16,
  /* its tool resolves peers by pnpm 12's rules (resolve.h's pnpm_peers) */
  NUB_LF_PNPM_PEERS = 1u << 17,
  /* its tool checks each package's engines.node, as its lockfile records
   * it, against the node it runs on: an optional package it does not allow
   * is left out, another is warned of (an error under engine-strict): npm's
   * checkEngine, pnpm's packageIsInstallable. bun and yarn berry check
   * none; yarn 1 reads engines from the packages (plan_yarn.c) */
  NUB_LF_ENGINES = 1u << 18,
  /* its tool applies package.json's "packageExtensions" by its own rule
   * (resolve.h's ext_rule) and records what they added (bun; npm 12's
   * are named, not applied) */
  NUB_LF_MANIFEST_EXTS = 1u << 19,
  NUB_LF_WORKSPACE_LINKS_ONLY = 1u << 4, /* its tool links a workspace member
                                      * for workspace: specs only, a plain
                                      * range taking the registry's (pnpm,
                                      * unless linkWorkspacePackages) */
};

enum nub_approval_home {
  NUB_APPROVE_TRUSTED,       /* package.json "trustedDependencies" (bun, nub) */
  NUB_APPROVE_ALLOW_BUILDS,  /* pnpm-workspace.yaml "allowBuilds" (pnpm 12) */
  NUB_APPROVE_ALLOW_SCRIPTS, /* package.json "allowScripts" (npm 12) */
};
/* "pnpm-workspace.yaml \"allowBuilds\" (<name>: true)": for messages. */
const char *nub_approval_home_name(enum nub_approval_home h);

struct nub_lockfmt {
  const char *name;        /* "npm", "bun", "yarn", "berry", "pnpm", "nub" */
  const char *file;        /* the file it lives in */
  const char *tool;        /* package.json "packageManager" naming its tool */
  const char *install_cmd; /* what its tool runs to bring it up to date */
  enum nub_node_linker layout; /* the layout its tool builds */
  unsigned caps;           /* NUB_LF_* */
  /* Whether the file's first bytes are this format's, where two formats
   * share a file name; NULL: the name says it. */
  bool (*detect)(const char *head, size_t len);
  /* c->plan from the lockfile (or, for the resolver, from package.json and
   * the registry): checked against package.json, resolved again and
   * staged for writing where its tool would write it, or refused under
   * --frozen-lockfile naming the dependency. */
  int (*plan)(struct nub_install_ctx *c, struct nub_err *err);
  /* The lockfile's text as a graph (the commands that look: ls, why,
   * outdated); a tree format fills tree and converts it. */
  int (*graph)(const struct nub_lockfmt_src *src, const char *text, size_t len,
               struct nub_tree *tree, struct nub_graph *out, struct nub_err *err);
  /* The hoisted layout's tree from the plan's graph, as its tool places it;
   * NULL: npm's placement. */
  int (*place)(struct nub_install_ctx *c, struct nub_err *err);
  /* The hoisted layout's .bin links, by its tool's rule; NULL: npm's. */
  int (*bins)(struct nub_install_ctx *c, size_t *nlinks, struct nub_err *err);
  /* Where its tool keeps a dependency's build approval (what the warning
   * about builds waiting for one names, and `nub approve-builds` writes). */
  enum nub_approval_home approve_in;
};

/* Every format with a file, in the order a project's files are looked for
 * (npm-shrinkwrap.json before package-lock.json, as npm prefers it). */
extern const struct nub_lockfmt *const nub_lockfmts[];
/* A project without a lockfile: resolved from package.json, nub.lock
 * written. */
extern const struct nub_lockfmt nub_lockfmt_none;

#endif
