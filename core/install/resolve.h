/* resolve.h - package.json + registry metadata -> the dependency graph.
 *
 * Deterministic: dependencies are visited breadth-first in name order and a
 * version is picked from the packument (never from timing), so the same
 * inputs give a byte-identical nub.lock. Per dependency: overrides apply
 * first ("overrides", "resolutions", "pnpm.overrides"); an "npm:" alias names
 * another package; an already-picked version that satisfies the range is
 * reused; else a version the previous lockfile had; else the registry's
 * "latest" when it satisfies, else the highest satisfying version. A range
 * nothing satisfies refetches the packument once, then fails naming the
 * range, who asked for it, and the newest versions.
 *
 * Peer dependencies are resolved from the dependent's ancestors (nearest
 * first); missing non-optional peers are installed automatically (unless
 * o->no_auto_peers); packages
 * whose peers resolve differently get distinct keys
 * ("react-dom@18.2.0(react@18.2.0)"), pnpm-style, transitive peers included.
 *
 * Packuments of children are requested (src->want) as soon as a version is
 * picked, and on_pick lets the caller start the tarball download at once.
 *
 * Any depth up to NUB_RESOLVE_MAX_DEPTH packages in one chain (cycles
 * closed where they meet) resolves whole; a deeper one is refused
 * (-NUB_ELIMIT, naming where), never cut short. */
#ifndef NUB_RESOLVE_H
#define NUB_RESOLVE_H

#include "agegate.h"
#include "buf.h"
#include "config.h"
#include "err.h"
#include "graph.h"
#include "manifest.h"
#include "patches.h"
#include "progress.h"
#include "registry.h"
#include "source.h"

#define NUB_RESOLVE_MAX_DEPTH 10000

struct nub_workspace;
struct nub_pkg_ext;

enum { NUB_PEERS_ROOT = 1u << 0, NUB_PEERS_MEMBERS = 1u << 1, NUB_PEERS_OPTIONAL = 1u << 2 };

/* Workspaces: every member of o->ws is an importer beside the project
 * ("."), with its own direct dependencies. A direct dependency
 * "workspace:<range>" (also "*", "^", "~", "<alias>@<range>") links the
 * member of that name, and so does a plain range the member satisfies (npm's
 * rule: the local package wins over the registry's; not with
 * o->no_plain_member_links, pnpm's default); "catalog:" and
 * "catalog:<name>" take the range from the workspace's catalogs. */
enum { NUB_EXT_PNPM, NUB_EXT_BUN };

/* Where a dependency that is not a registry range comes from. */
enum nub_source_kind { NUB_SRC_GIT, NUB_SRC_REMOTE, NUB_SRC_FILE, NUB_SRC_DIRECTORY, NUB_SRC_KINDS };

struct nub_resolve_opts {
  const char *project_dir;
  const struct nub_workspace *ws; /* NULL, or a loaded workspace */
  const struct nub_graph *previous; /* versions to keep where they satisfy */
  char *const *forget;              /* ... except for these names */
  size_t nforget;
  bool forget_all;
  const struct nub_depmap *overrides;
  /* package extensions, applied to every registry version picked, by
   * ext_rule: NUB_EXT_PNPM (every matching one; the manifest's own entries
   * win, the extension's listed first) or NUB_EXT_BUN (the same, added
   * after the manifest's own and recorded: gpkg's ext_applied) */
  const struct nub_pkg_ext *exts;
  size_t nexts;
  int ext_rule;
  /* Whether a dependency from outside the registry may be fetched (npm's
   * allow-git, allow-remote, allow-file, allow-directory), or NULL for all:
   * kind (enum nub_source_kind), whether an importer (the project or a
   * member) asks for it, who asks, the spec. 0, or negative with err filled
   * to refuse it before anything is fetched or cloned. */
  int (*allow_source)(void *ud, int kind, bool from_importer, const char *who,
                      const char *alias, const char *spec, struct nub_err *err);
  /* pnpm's readPackage hook (pnpmfile.h), or NULL: given each picked
   * registry version's own copy after the extensions, it may replace that
   * copy's dependency maps and optional peers. 0 or negative (err filled). */
  int (*read_package)(void *ud, const char *name, struct nub_pversion *pv, struct nub_err *err);
  void *read_package_ud;
  /* the project's patches: a patched package's key carries
   * "(patch_hash=<hash>)" before its peers, as in pnpm */
  struct nub_patches *patches;
  /* A registry version with neither dist.integrity nor dist.shasum cannot be
   * checked: refused (-NUB_EINTEGRITY) unless this is set. */
  bool allow_missing_integrity;
  /* Called for every picked registry package version from the resolver
   * thread (to start its download at once). */
  void (*on_pick)(void *ud, const char *name, const struct nub_pversion *pv);
  /* Called with the checkout the resolver made of a git dependency to read
   * its package.json (resolved: "git+<url>#<commit>"; dir: owned by the
   * callee from then on), so that the fetch need not clone it again.
   * NULL: the resolver removes it. */
  void (*on_checkout)(void *ud, const char *resolved, char *dir);
  /* The same for a tarball named by URL, downloaded to read it: its bytes
   * (moved out of *body) go to the fetch instead of a second download. */
  void (*on_tarball)(void *ud, const char *url, struct nub_buf *body);
  void *ud;
  struct nub_progress *prog; /* its "resolved" count moves with each pick */
  /* A plain range links no member (pnpm's link-workspace-packages=false):
   * only workspace: specs do. */
  bool no_plain_member_links;
  /* No missing peer is installed (yarn 1 and berry install none; pnpm's
   * auto-install-peers=false): a peer no ancestor provides stays missing. */
  bool no_auto_peers;
  /* pnpm 12's peer rules (NUB_LF_PNPM_PEERS): a peerDependenciesMeta
   * entry without a peerDependencies one is an optional peer "*"; a peer
   * that is also a dependency is a peer (the ancestors' copy when it is the
   * same version, else its own), in the key, and its own peers stay its
   * own; and, unless no_auto_peers, an optional peer no ancestor provides
   * takes the highest version this resolution met (none: the previous
   * lockfile had) that every range of it allows, as if each importer had
   * it in scope (getHoistableOptionalPeers). */
  bool pnpm_peers;
  /* pnpm's dedupePeers: a peer is named in keys by name@version alone,
   * without its own peers. */
  bool dedupe_peers;
  /* pnpm: the names `add` asked for; a package's edge to one of them does
   * not keep its locked version but takes the newest the graph has that
   * its range allows (the added one: pnpm dedupes onto it). */
  char *const *prefer;
  size_t nprefer;
  /* An importer's peerDependencies that its other maps do not name are
   * installed as its dependencies: the project's (NUB_PEERS_ROOT: pnpm and
   * bun), each member's (NUB_PEERS_MEMBERS: pnpm, bun, npm), the optional
   * ones too (NUB_PEERS_OPTIONAL: pnpm); yarn installs none. */
  unsigned importer_peers;
  /* A package's bundled dependencies are resolved like the others (yarn 1
   * records them); else they ship inside its tarball and are not. */
  bool resolve_bundled;
  /* yarn 1's lock: a version is kept per pattern (name@range) as
   * o->previous recorded it, and a pattern it lacks takes the registry's
   * pick, not a version another pattern picked; `forget` reopens the
   * project's own patterns of a name and, as yarn upgrade <name> does, the
   * patterns its locked package asked for, depth first, down to the
   * project's own. */
  bool by_pattern;
  /* The release-age gate (agegate.h), or NULL: a version it refuses is
   * picked only when nothing it allows matches, then as it says (an error,
   * or installed with a warning). Versions kept from o->previous are not
   * asked again. */
  const struct nub_age_gate *gate;
};

/* The graph of man (and o->ws's members) from what src says of packages,
 * git refs and tarballs: nothing else is read but the project's own files
 * (file: dependencies). */
int nub_resolve(struct nub_graph *out, const struct nub_manifest *man,
                const struct nub_source *src, const struct nub_resolve_opts *o,
                struct nub_err *err);

/* The version of p that spec (a range, or a dist-tag) picks as the resolver
 * picks it, among those gate allows (NULL: all): a tag's version (under the
 * gate, moved as pnpm moves it), else "latest" when it satisfies, else the
 * highest that does. NULL: none. */
const struct nub_pversion *nub_resolve_choose(const struct nub_packument *p, const char *spec,
                                              const struct nub_age_gate *gate);

#endif
