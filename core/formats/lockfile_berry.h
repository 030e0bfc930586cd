/* lockfile_berry.h - yarn berry's yarn.lock (yarn 2 and later: a YAML file
 * with "__metadata") read as its entries, each a resolved package with the
 * descriptors ("name@npm:^1.0.0") that resolve to it.
 *
 * Ranges are kept as berry writes them (with their protocol: "npm:^1.2.0",
 * "workspace:.", "patch:..."), dependencies in file order. The placing
 * (berry.h) gives them berry's meaning. */
#ifndef NUB_LOCKFILE_BERRY_H
#define NUB_LOCKFILE_BERRY_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "manifest.h"
#include "strmap.h"

struct nub_berry_entry {
  char *locator;     /* its resolution: "name@npm:1.2.3" */
  char *name;        /* the ident: "@scope/name" */
  char *reference;   /* "npm:1.2.3", "workspace:.", "patch:...", ... */
  char *version;     /* NULL when the entry has none */
  bool soft;         /* linkType: soft (workspaces, link:, portal:) */
  char *conditions;  /* "os=darwin & cpu=arm64" (berry's syntax), or NULL */
  struct nub_depmap deps, peers; /* ident -> range, in file order */
  struct nub_depmap bins;        /* command -> path inside the package */
  char **optional;   /* dependenciesMeta: the idents marked optional */
  size_t noptional;
  char **opt_peers;  /* peerDependenciesMeta: the idents marked optional */
  size_t nopt_peers;
  char *checksum;    /* berry's hash of its own archive (not the tarball's) */
  int line;          /* where the entry starts (1-based) */
};

struct nub_berry_lock {
  int version;       /* __metadata.version */
  char *cache_key;   /* __metadata.cacheKey */
  struct nub_berry_entry *v;
  size_t n;
  struct nub_strmap by_descriptor; /* "name@range" -> entry (borrowed) */
  struct nub_strmap by_locator;    /* resolution -> entry (borrowed) */
};

/* Whether yarn.lock text is berry's (it has a top-level __metadata), not
 * yarn 1's. */
bool nub_lockfile_is_berry(const char *text, size_t len);

/* Parse a berry yarn.lock. Bad YAML, a conflict marker, an entry without a
 * resolution or a descriptor twice are -NUB_ELOCKFILE naming the file, line
 * and column; a __metadata.version older than 4 (yarn 2's lockfiles, whose
 * descriptors berry normalises on reading) is -NUB_ELOCKVERSION. */
int nub_lockfile_berry_parse(struct nub_berry_lock *l, const char *text, size_t len,
                             const char *fname, struct nub_err *err);
void nub_berry_lock_release(struct nub_berry_lock *l);

/* The ident and range of a descriptor "name@range" ("@s/n@npm:^1" ->
 * "@s/n", "npm:^1"); false when it has no '@' after the name. The parts
 * point into a copy the caller frees (*name). */
bool nub_berry_split(const char *descriptor, char **name, const char **range);

#endif
