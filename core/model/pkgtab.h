/* pkgtab.h - the packages an install fetches, each once, keyed by its store
 * key (the identity of its tarball). The layouts' plans (a tree of
 * directories, a graph of dependency paths) point into it; fetch fills in
 * each package's store index. */
#ifndef NUB_PKGTAB_H
#define NUB_PKGTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "registry_url.h" /* NUB_LOCAL_DIR */

struct nub_index;
struct nub_patch_rule;

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
  bool failed;     /* could not be fetched (fail_code, fail_msg say why) */
  int fail_code;
  char *fail_msg;
  bool as_tree;    /* a miss is imported as a tree (nub_import_as_tree) */
  bool imported;   /* this install put it in the store */
  uint64_t distrust_ns; /* its stored files changed after this: fetched over them */
  bool prepare;    /* a git package the project trusts to be prepared before
                    * it is packed (prepare.h): a store identity of its own */
  bool prepare_blocked; /* a git package with scripts it was not trusted to
                         * run: packed unprepared (for the warning) */
  bool registry_integrity; /* its lockfile pins no integrity (yarn berry's):
                            * the registry's document gives it when it must
                            * be downloaded (plan.c), which may come after
                            * the download itself (fetch.h) */
  bool integrity_known;    /* that document's answer is in */
  /* the project's patch for it (patches.h; borrowed from the install's
   * patches) and its hash; the patched copy is a store identity of its
   * own, patched_key (patched.h), which `index` holds once the fetch has
   * made it. patch_hash is "" when unpatched. */
  const struct nub_patch_rule *patch_rule;
  bool patch_berry; /* applied by berry's rules */
  /* a patched copy of base, where a lockfile patches some copies of a
   * version and not others (yarn berry's): made from base's files once base
   * is fetched (it is never fetched itself); its key is the patched one */
  struct nub_pkg *base;
  char patch_hash[65];
  char patched_key[65];
  unsigned char fetch_state; /* private to fetch */
};

struct nub_pkgtab {
  struct nub_pkg **v;
  size_t n, cap;
  struct nub_pkg **slots; /* open addressing by key */
  size_t nslots;
  /* names whose git packages are prepared (borrowed; set before the first
   * nub_pkgtab_get, none with --ignore-scripts) */
  char *const *prepare_names;
  size_t nprepare;
  /* what each new package's as_tree is (set before the first
   * nub_pkgtab_get) */
  bool as_trees;
};

/* The package with this identity, creating it if new; strings are copied.
 * Not thread-safe. */
struct nub_pkg *nub_pkgtab_get(struct nub_pkgtab *t, const char *name, const char *version,
                               const char *tarball, const char *integrity);
void nub_pkgtab_release(struct nub_pkgtab *t);
/* A package of its own under key (a patched copy's: patched.h) standing for
 * base, which it is made from; the same one again for the same key. */
struct nub_pkg *nub_pkgtab_derive(struct nub_pkgtab *t, struct nub_pkg *base, const char key[65]);
/* What the package is linked as: its patched copy's key, else its own. */
static inline const char *nub_pkg_link_key(const struct nub_pkg *p)
{
  return p->patch_hash[0] ? p->patched_key : p->key;
}

/* Store key of a package identity: sha256("<integrity>") when known, else
 * sha256("url:<tarball>"); a prepared git package's is
 * sha256("prepared:<tarball>") (nub_pkgtab_get). */
void nub_pkg_key(const char *integrity, const char *tarball, char out[65]);

#endif
