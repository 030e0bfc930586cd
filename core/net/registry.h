/* registry.h - package metadata (packuments): fetched concurrently on the
 * HTTP loop (abbreviated "install-v1" documents, falling back to full JSON),
 * deduplicated in flight, cached on disk with ETag revalidation, parsed on the
 * worker pool, tolerant of legacy oddities (null fields, "dependencies" given
 * as an array, shasum without integrity, huge documents).
 *
 * nub_meta_want() starts a fetch and returns at once (prefetch);
 * nub_meta_get() waits for the document. Both are thread-safe. */
#ifndef NUB_REGISTRY_H
#define NUB_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "http.h"
#include "manifest.h"
#include "pool.h"
#include "progress.h"
#include "semver.h"

/* One version of a package, as the resolver needs it. */
struct nub_pversion {
  char *version;
  struct nub_version sv;
  struct nub_depmap deps, optional, peers;
  char **peers_optional;
  size_t npeers_optional;
  char **bundled;
  size_t nbundled;
  char **os, **cpu, **libc;
  size_t nos, ncpu, nlibc;
  struct nub_depmap engines;
  char *tarball;   /* after registry rewriting */
  char *integrity; /* SRI; from shasum when there is no integrity */
  char *shasum;    /* dist.shasum (hex sha1), or NULL: yarn.lock's URL fragment */
  char *deprecated;
  /* "license" (an object's "type"), and "funding" as compact JSON text:
   * package-lock.json records both */
  char *license, *funding;
  bool has_bin, has_install_script;
  struct nub_bin *bins; /* "bin" (package-lock.json records it) */
  size_t nbins;
  /* "bin" as the document writes it (bun.lock records it so): command ->
   * target unnormalised, in document order; bin_string when it was one
   * string; bin_dir is "directories.bin" when there is no "bin" */
  struct nub_depmap bin_raw;
  bool bin_string;
  char *bin_dir;
  /* when it was published (unix seconds; the full document's "time"), 0
   * when the document does not say */
  int64_t published;
  /* the evidence of who published it: 2 a trusted publisher (the full
   * document's _npmUser.trustedPublisher), 1 a provenance attestation
   * (dist.attestations.provenance), 0 neither (pnpm's trustPolicy) */
  unsigned char trust;
};

struct nub_packument {
  char *name;
  struct nub_depmap tags;          /* dist-tags */
  struct nub_pversion **versions;  /* ascending by semver precedence */
  size_t nversions;
  int64_t modified; /* its last change (unix seconds), 0 when unsaid */
  bool has_times;   /* a full document: "time" gives each version's date */
};

struct nub_meta;

struct nub_meta_opts {
  bool offline;        /* cache only; a miss is an error */
  bool prefer_offline; /* any cached copy, however old, without revalidation */
  /* A release-age gate's cutoff (unix seconds), or 0. The abbreviated
   * document has no per-version dates, only the package's "modified": one
   * modified after the cutoff (or not saying when) is asked for again in
   * full, so that its versions' dates are known; the others' versions are
   * all older than the cutoff, and cost nothing more. */
  int64_t times_after;
  /* Every document in full (license, funding: what npm records when it
   * adds to package-lock.json, read from the full documents it asks for). */
  bool full;
};

int nub_meta_new(struct nub_meta **out, const struct nub_config *cfg,
                 struct nub_pool *pool, struct nub_progress *prog,
                 const struct nub_meta_opts *o, struct nub_err *err);
void nub_meta_free(struct nub_meta *m);
/* The HTTP client, started on first network use (shared with tarballs). */
struct nub_http *nub_meta_http(struct nub_meta *m, struct nub_err *err);

void nub_meta_want(struct nub_meta *m, const char *name);
/* Wait for name's packument; *out stays valid until nub_meta_free. */
int nub_meta_get(struct nub_meta *m, const char *name,
                 const struct nub_packument **out, struct nub_err *err);
/* The record of a version already chosen (its integrity, say): its own
 * document (GET <name>/<version>, a few kilobytes where the packument may
 * be megabytes; cached for good, since a published version does not
 * change), or the packument's when the registry has no such documents
 * (404), when offline only the packument is cached, or when the packument,
 * asked for once the version's document is hedge_ms late, answers first.
 * *out NULL (and 0) when the packument has no such version. */
void nub_meta_want_version(struct nub_meta *m, const char *name, const char *version);
int nub_meta_get_version(struct nub_meta *m, const char *name, const char *version,
                         unsigned hedge_ms, const struct nub_pversion **out,
                         struct nub_err *err);
/* Drop the cached document and fetch it again from the registry (once per
 * name and run): "no matching version" may be a stale cache. */
int nub_meta_refetch(struct nub_meta *m, const char *name,
                     const struct nub_packument **out, struct nub_err *err);

/* Drop name's documents (its packument, its versions' this run read) from
 * the metadata cache (this run keeps its copies):
 * a tarball that does not match the integrity it gives, so that the next
 * run asks the registry again instead of failing on the same document. */
void nub_meta_forget(struct nub_meta *m, const char *name);

/* "2026-12-03T19:32:47.000Z" (or "+01:00", or no zone: UTC) as unix
 * seconds; 0 when it is not such a date. */
int64_t nub_iso_time(const char *s);

/* Parse a packument (exported for tests). `name` is the requested name. */
int nub_packument_parse(struct nub_packument **out, const char *json, size_t len,
                        const char *name, const struct nub_config *cfg,
                        struct nub_err *err);
void nub_packument_free(struct nub_packument *p);
/* The version named exactly, or NULL. */
const struct nub_pversion *nub_packument_version(const struct nub_packument *p,
                                                 const char *version);

/* Counters for diag and the summary. */
struct nub_meta_stats {
  size_t requested, from_cache, revalidated, fetched, bytes;
  size_t full; /* documents asked for again in full for their dates */
};
void nub_meta_stats(struct nub_meta *m, struct nub_meta_stats *out);

#endif
