/* install_ctx.h - what the stages of one install share: the driver
 * (install.c) owns it; plan sources (plan_*.c), layouts (layout_*.c),
 * lifecycle scripts and the report read and fill it. Not a public
 * interface. */
#ifndef NUB_INSTALL_CTX_H
#define NUB_INSTALL_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "config.h"
#include "fetch.h"
#include "install.h"
#include "link.h"
#include "manifest.h"
#include "nub_plat.h"
#include "patches.h"
#include "plan.h"
#include "pool.h"
#include "progress.h"
#include "project.h"
#include "projlock.h"
#include "session.h"
#include "store.h"
#include "workspace.h"

struct nub_layout;
struct nub_node;
struct nub_pnpmfile;

struct nub_install_ctx {
  const struct nub_install_opts *o;
  /* the project (session.h): the caller's (add's), or own. Its man is the
   * root's package.json with pnpm-workspace.yaml's overrides and
   * onlyBuiltDependencies merged in; ws has its members read. */
  struct nub_session *s;
  struct nub_session own;
  struct nub_store store;
  struct nub_pool *pool;
  struct nub_progress prog;
  struct nub_linker linker;
  /* the hoisted layout linking while the fetch runs (hoisted.h), or NULL */
  struct nub_hoisted_early *early;
  struct nub_plan plan;
  const struct nub_layout *layout;
  struct nub_plat_caps caps;
  /* the node on PATH, asked when a package's engines first need it
   * (engines.h): node_known 0 not yet, 1 in node_version, -1 none */
  char node_version[64];
  int node_known;
  /* npm's allow-git, allow-remote, allow-file, allow-directory (by enum
   * nub_source_kind): NUB_ALLOW_ALL, _ROOT or _NONE (npm projects) */
  unsigned char allow[4];
  struct nub_projlock plock; /* held while it installs, unless the caller holds it */
  bool damaged;         /* the inputs as the last install left them, node_modules not */
  int gc_lock_fd;       /* the store's gc lock, held shared (store_gc.h) */
  bool have_store, have_linker;
  bool frozen;          /* the lockfile must already match package.json */
  uint64_t t0;
  char settings[33];    /* fingerprint of what shapes node_modules */
  size_t installed;     /* packages in the layout */
  bool record;          /* its layout is recorded for a replay (record.h): a
                         * recordable install that fetched nothing */
  /* dependencies whose install scripts did not run: "name@version", and
   * what to say of each (or NULL); one entry per package */
  char **blocked, **blocked_note;
  size_t nblocked;
  bool builds_off;      /* berry's enableScripts: false: no dependency's build runs,
                         * none waits for an approval */
  bool *selected;       /* --filter: project 0 the root, i the member i - 1; NULL: all */
  char **secrets;       /* specs with credentials (nub_manifest_secret), borrowed */
  size_t nsecrets;
  struct nub_patches patches; /* the project's committed patches (patching.h) */
  /* pnpm's hooks file (pnpmfile.h): its path from the root, NULL when the
   * project has none (or --ignore-pnpmfile); its Node process, started
   * when the install needs the hooks */
  char *pnpmfile;
  struct nub_pnpmfile *hooks;
  char **old_directs;   /* the previous install's direct dependencies */
  size_t nold_directs;
};

/* The fetch's options: --offline, --force/ci, and the credentials the
 * project's package.json files give git and tarball-URL dependencies. */
void nub_install_fetch_opts(struct nub_install_ctx *c, struct nub_fetch_opts *fo);
/* Record that name@version has install scripts that did not run, once per
 * package (note, such as "a git dependency, packed unprepared", is kept
 * from whoever says it). */
void nub_install_blocked(struct nub_install_ctx *c, const char *name, const char *version,
                         const char *note);
/* Mark the graph's importers --filter leaves out (importer->skip). */
void nub_install_select_importers(struct nub_install_ctx *c);
/* Whether --filter keeps project i (0 the root, i the member i - 1). */
bool nub_install_selected(const struct nub_install_ctx *c, size_t i);
/* Whether the project lets name@version run install scripts (an approval
 * in any home: manifest.h's trusted), and whether it says no (denied: not
 * run and not reported as waiting for approval). */
bool nub_install_trusted(const struct nub_install_ctx *c, const char *name, const char *version);
bool nub_install_denied(const struct nub_install_ctx *c, const char *name, const char *version);
/* Whether a package for these platforms installs on this machine. */
bool nub_install_platform_ok(const struct nub_install_ctx *c, char *const *os, size_t nos,
                             char *const *cpu, size_t ncpu, char *const *libc, size_t nlibc);
/* Whether a package for another platform that is not optional is
 * installed with a warning, as the lockfile's tool installs it
 * (NUB_LF_PLATFORM_WARNS: pnpm, unless engineStrict in pnpm-workspace.yaml
 * or engine-strict in .npmrc), rather than refused. */
bool nub_install_platform_warns(const struct nub_install_ctx *c);
/* The one line an install says when the lockfile has git's merge-conflict
 * markers and both sides are merged (`how`: by whose rule, "as pnpm merges
 * them") before it is brought in line with package.json and written back. */
void nub_install_warn_unconflict(struct nub_install_ctx *c, const char *how);
/* For an optional package whose lockfile entry states no libc (nlibc 0):
 * whether the C library its name says ("-musl", "-gnu", "-glibc" as a
 * "-" or "/" separated part) is this machine's, where the lockfile's tool
 * reads it so (NUB_LF_LIBC_FROM_NAME); true for a name that says none. */
bool nub_install_libc_by_name_ok(const struct nub_install_ctx *c, const char *name,
                                 size_t nlibc);
enum { NUB_ALLOW_ALL, NUB_ALLOW_ROOT, NUB_ALLOW_NONE };
/* npm's allow-* settings into c->allow: .npmrc's (any layer), else all,
 * but none for git and remote URLs when package.json's packageManager pins
 * npm 12 or later (npm 12's defaults). Only npm's lockfiles have them. */
void nub_install_read_allow(struct nub_install_ctx *c);
/* Whether a dependency of `kind` (enum nub_source_kind) may be installed,
 * asked for by an importer or not: 0, or -NUB_ESPEC naming it, the
 * setting and the way to allow it, as npm's EALLOW* refuses it. url: a
 * lockfile's resolved URL for a package no spec names by URL, which is the
 * registry's when on one of the registries' hosts (npm 12); NULL for a
 * spec that is a URL, remote wherever it points. */
int nub_install_allow(const struct nub_install_ctx *c, int kind, bool from_importer,
                      const char *what, const char *url, struct nub_err *err);
/* nub_install_allow for a node of the hoisted tree, from what the
 * lockfile says of it (its resolved URL, a link outside the workspace):
 * an importer asks for it when its package.json names it with a spec of
 * that kind. */
int nub_install_allow_node(const struct nub_install_ctx *c, const struct nub_node *n,
                           struct nub_err *err);
/* A package whose engines.node is `range` (what: its path or key), where
 * the project's tool checks engines (NUB_LF_ENGINES): when the node on PATH
 * is not one the range allows, an optional package is left out (*skip),
 * another is warned of once, or is an error under engine-strict (exit 80,
 * unless --force), as npm and pnpm judge it. Nothing to check (no range,
 * no node) is 0 with *skip false. */
int nub_install_engine_check(struct nub_install_ctx *c, const char *what, const char *range,
                             bool optional, bool *skip, struct nub_err *err);

#endif
