/* agegate.h - the release-age gate: a version published less than a while
 * ago is not picked while an older one satisfies the range (a package
 * taken over today is not installed today).
 *
 * Read from every tool's home, each in its own unit, the longest window
 * winning and the exclusions of all of them counting:
 *   pnpm-workspace.yaml  minimumReleaseAge (minutes), minimumReleaseAgeExclude,
 *                        minimumReleaseAgeStrict
 *   .npmrc (and env)     min-release-age (days), before (a date),
 *                        min-release-age-exclude (npm); minimum-release-age
 *                        (minutes), minimum-release-age-exclude (pnpm's)
 *   bunfig.toml          [install] minimumReleaseAge (seconds, or "3d"),
 *                        minimumReleaseAgeExcludes
 * A window set anywhere is strict (nothing old enough is an error, as npm,
 * bun and pnpm do when it is set). When none is set, a format whose tool
 * gates by default (NUB_LF_AGE_GATE: pnpm 12's and nub's own, one day) is
 * lenient: nothing old enough installs the newest that satisfies and says
 * so (pnpm then also adds it to minimumReleaseAgeExclude; nub writes no
 * setting). An exclusion is a name, a glob over names ("@org/" and a star), or
 * "name@1.2.3 || 1.2.4" (those versions only). */
#ifndef NUB_AGEGATE_H
#define NUB_AGEGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "err.h"

struct nub_lockfmt;
struct nub_workspace;
struct nub_packument;
struct nub_pversion;

struct nub_age_gate {
  int64_t cutoff;  /* unix seconds: published after it is too young; 0: no gate */
  int64_t window;  /* seconds */
  bool strict;
  char **exclude;
  size_t nexclude;
  char source[128]; /* "minimumReleaseAge in pnpm-workspace.yaml" */
  /* pnpm's trustPolicy: no-downgrade (pnpm-workspace.yaml): a version
   * published with weaker evidence (a trusted publisher, then a provenance
   * attestation, then neither) than an earlier-published version of the
   * package is not picked, unless trustPolicyExclude names it or it was
   * published before trust_after (trustPolicyIgnoreAfter, minutes ago) */
  bool trust;
  int64_t trust_after;
  char **trust_exclude;
  size_t ntrust_exclude;
  char exclude_key[96]; /* where an exclusion goes: "minimumReleaseAgeExclude in pnpm-workspace.yaml" */
};

/* The gate for the project at dir (ws: its pnpm-workspace.yaml settings, or
 * NULL; fmt: its lockfile's format, whose tool's one-day default applies
 * when nothing says and it has NUB_LF_AGE_GATE). A value that is not a
 * number of its unit is -NUB_ECONFIG naming it. */
int nub_age_gate_load(struct nub_age_gate *g, const struct nub_config *cfg,
                      const struct nub_workspace *ws, const char *dir,
                      const struct nub_lockfmt *fmt, struct nub_err *err);
void nub_age_gate_release(struct nub_age_gate *g);

/* Whether v of p may be picked: old enough, or excluded. A document without
 * dates counts as old enough when the package was last modified before the
 * cutoff. */
bool nub_age_gate_allows(const struct nub_age_gate *g, const struct nub_packument *p,
                         const struct nub_pversion *v);
/* v (wanted by who as name@range) is the newest match, and too young, and
 * nothing older matches: a strict gate's error (-NUB_ETOOYOUNG, naming the
 * version, its age, the setting and where an exclusion goes); else 0 and
 * *warning, the line to say (the caller's). */
int nub_age_gate_fallback(const struct nub_age_gate *g, const char *name, const char *range,
                          const char *who, const struct nub_pversion *v, char **warning,
                          struct nub_err *err);
/* Whether v of p passes the trust policy (true when there is none). */
bool nub_trust_allows(const struct nub_age_gate *g, const struct nub_packument *p,
                      const struct nub_pversion *v);
/* v (wanted by who) fails it and nothing that passes satisfies the range:
 * pnpm's "High-risk trust downgrade" error, -NUB_ETRUST naming the
 * version, its evidence, the earlier one's and where an exclusion goes. */
int nub_trust_refuse(const struct nub_age_gate *g, const struct nub_packument *p,
                     const char *who, const struct nub_pversion *v, struct nub_err *err);
/* "3 hours", "2 days": a span for messages. */
void nub_age_span(int64_t seconds, char *buf, size_t cap);

#endif
