/* semver.h - versions and ranges with the semantics of node-semver v7 (the
 * npm `semver` package), which is what decides the versions npm installs.
 *
 * Versions. nub_version_parse follows semver.clean(s): surrounding whitespace
 * is trimmed, then any run of leading '=' and 'v' ("=v1.2.3", "vv1.2.3"),
 * then whitespace again, and what is left must be a full strict SemVer 2.0
 * version "MAJOR.MINOR.PATCH[-PRE][+BUILD]" (an optional single 'v' still
 * allowed) of at most 256 characters, with no leading zeros in numbers and no
 * number above 2^53-1 (JavaScript's MAX_SAFE_INTEGER). The _loose variant is
 * clean(s, {loose: true}): also leading zeros ("01.2.3"), prerelease without
 * the hyphen ("1.2.3beta") and whitespace between the prefix and the number.
 *
 * Ranges. nub_range_parse is `new semver.Range(s)`; the _loose variant is
 * `new semver.Range(s, {loose: true})` as npm's own resolver uses it (loose
 * versions inside the range, comparators that do not parse are dropped).
 * Dist-tags ("latest", "next") are not ranges and give -EINVAL, so a caller
 * tries the tag table next. Matching follows node-semver's testSet: a version
 * with a prerelease tag only satisfies a comparator set in which some
 * comparator has the same MAJOR.MINOR.PATCH and a prerelease tag itself,
 * unless include_prerelease (node-semver's {includePrerelease: true}) is set.
 *
 * A range longer than NUB_RANGE_MAX_LEN bytes is not one (-E2BIG from the
 * parsers, false or -EINVAL from the rest): real ones are some tens of
 * bytes, and the cost of one grows with its alternatives times the
 * versions it is tested against.
 *
 * All functions return 0 or -EINVAL; nothing here does I/O or keeps state. */
#ifndef NUB_SEMVER_H
#define NUB_SEMVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NUB_RANGE_MAX_LEN 16384

/* Largest number node-semver accepts in a version (Number.MAX_SAFE_INTEGER). */
#define NUB_SEMVER_MAX_NUM 9007199254740991ULL

struct nub_version {
  uint64_t major, minor, patch;
  char **pre;  /* prerelease identifiers, owned; numeric ones normalized */
  size_t npre;
  char *build; /* build metadata without '+', or NULL; owned; never compared */
  char *raw;   /* normalized "1.2.3-beta.1" (no 'v', no build), owned */
};

/* On success *out owns its strings (release with nub_version_release); on
 * failure *out is zeroed and -EINVAL returned. */
int nub_version_parse(struct nub_version *out, const char *s);
int nub_version_parse_loose(struct nub_version *out, const char *s);
void nub_version_release(struct nub_version *v);
/* <0, 0, >0 by SemVer 2.0 precedence: build metadata is ignored, a version
 * with a prerelease sorts before the release, numeric identifiers compare as
 * numbers and before alphanumeric ones, a shorter identifier list sorts first
 * when it is a prefix of the longer. */
int nub_version_cmp(const struct nub_version *a, const struct nub_version *b);
bool nub_version_is_prerelease(const struct nub_version *v);

/* A parsed range: alternatives (||) of comparator sets (space = AND). */
struct nub_range;

/* "" , "*", "x" and "||" are "any version"; garbage and dist-tags -EINVAL. */
int nub_range_parse(struct nub_range **out, const char *s);
int nub_range_parse_loose(struct nub_range **out, const char *s);
void nub_range_free(struct nub_range *r);
/* The range as node-semver's validRange(s, {includePrerelease}) prints it,
 * e.g. "^1.2.3" -> ">=1.2.3 <2.0.0-0", "*" for any; owned by r. NULL only
 * when node-semver could not build the include_prerelease form (a bound one
 * past 2^53-1). */
const char *nub_range_format(const struct nub_range *r, bool include_prerelease);
bool nub_range_satisfies(const struct nub_range *r, const struct nub_version *v,
                         bool include_prerelease);
/* Index of the highest version in vs[0..n) that satisfies r (the first of
 * equal ones), or -1. NULL entries are skipped. */
long nub_range_max_satisfying(const struct nub_range *r,
                              const struct nub_version *const *vs, size_t n,
                              bool include_prerelease);

/* Whether version satisfies range, both given as text, as parsing each and
 * nub_range_satisfies would say (1 or 0; -EINVAL when either does not
 * parse). The common forms ("1.2.3", "^1.2.3", "~1.2.3", ">=1.2.3" against
 * a plain "1.2.3") are decided without building the range: checking every
 * peer and direct dependency of a lockfile calls this thousands of times. */
int nub_semver_satisfies(const char *range, const char *version, bool include_prerelease);

/* node-semver's intersects(r1, r2): whether some version could satisfy
 * both (without include_prerelease), decided comparator by comparator as
 * node-semver does. The text form: 1 or 0, -EINVAL when either does not
 * parse. */
bool nub_range_intersects(const struct nub_range *a, const struct nub_range *b);
int nub_semver_intersects(const char *r1, const char *r2);

/* Whether s parses as a range (nub_range_parse would return 0), the common
 * forms decided without building it. */
bool nub_range_valid(const char *s);

/* True if s is one exact version by nub_version_parse's rules (so a spec
 * names a version, not a range or a tag). */
bool nub_semver_is_exact(const char *s);

#endif
