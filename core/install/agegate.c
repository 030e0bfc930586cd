/* agegate.c - the release-age gate (see agegate.h). */
#include "agegate.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bunfig.h"
#include "lockfmt.h"
#include "nub_alloc.h"
#include "registry.h"
#include "workspace.h"

#define DAY 86400

/* One home's say: a window (seconds; 0 when it turns the gate off). */
struct say {
  bool set;
  int64_t window;
  bool strict;
  char source[128], exclude_key[96];
};

static void consider(struct say *best, const struct say *s)
{
  if (s->set && (!best->set || s->window > best->window))
    *best = *s;
}

/* A whole number (or, for npm's days, a decimal) of its unit. */
static int number(const char *v, bool decimal, double *out)
{
  char *end;
  double d = strtod(v, &end);

  while (*end == ' ')
    end++;
  /* 1e15 minutes is past any clock; the bound keeps the cast below defined (and
   * avoids libm, which a fresh system's linker does not add on its own). */
  if (end == v || *end || !(d >= 0 && d < 1e15))
    return -1;
  if (!decimal && d != (double)(long long)d)
    return -1;
  *out = d;
  return 0;
}

static int bad(struct nub_err *err, const char *key, const char *where, const char *v,
               const char *unit)
{
  return nub_err_set(err, -NUB_ECONFIG, "%s in %s is '%s', not a number of %s", key, where, v,
                     unit);
}

/* bun's value: seconds, or a number with a unit ("3d", "12h", "30m", "45s", "1w"). */
static int bun_seconds(const char *v, int64_t *out)
{
  char *end;
  double d = strtod(v, &end);
  int64_t unit = 1;

  if (end == v || !(d >= 0 && d < 1e15))
    return -1;
  switch (*end) {
  case '\0': break;
  case 's': unit = 1; end++; break;
  case 'm': unit = 60; end++; break;
  case 'h': unit = 3600; end++; break;
  case 'd': unit = DAY; end++; break;
  case 'w': unit = 7 * DAY; end++; break;
  default: return -1;
  }
  if (*end)
    return -1;
  *out = (int64_t)(d * (double)unit);
  return 0;
}

static void add_excludes(struct nub_age_gate *g, const char *list, const char *seps)
{
  char *copy = nub_strdup(list), *save = NULL;

  for (char *t = strtok_r(copy, seps, &save); t; t = strtok_r(NULL, seps, &save)) {
    while (*t == ' ' || *t == '\t')
      t++;
    for (size_t n = strlen(t); n && (t[n - 1] == ' ' || t[n - 1] == '\t' || t[n - 1] == '\r');)
      t[--n] = '\0';
    if (!*t)
      continue;
    g->exclude = nub_realloc(g->exclude, (g->nexclude + 1) * sizeof(char *));
    g->exclude[g->nexclude++] = nub_strdup(t);
  }
  nub_free(copy);
}

static int from_pnpm_yaml(const struct nub_workspace *ws, struct say *s, bool *strict_set,
                          bool *strict, struct nub_err *err)
{
  const char *v = ws ? nub_depmap_get(&ws->settings, "minimumReleaseAge") : NULL;
  const char *st = ws ? nub_depmap_get(&ws->settings, "minimumReleaseAgeStrict") : NULL;
  double d;

  if (st) {
    *strict_set = true;
    *strict = !strcmp(st, "true");
  }
  if (!v)
    return 0;
  if (number(v, false, &d) < 0)
    return bad(err, "minimumReleaseAge", "pnpm-workspace.yaml", v, "minutes");
  s->set = true;
  s->window = (int64_t)d * 60;
  s->strict = !st || !strcmp(st, "true");
  snprintf(s->source, sizeof(s->source), "minimumReleaseAge in pnpm-workspace.yaml");
  snprintf(s->exclude_key, sizeof(s->exclude_key), "minimumReleaseAgeExclude in pnpm-workspace.yaml");
  return 0;
}

static int from_npmrc(const struct nub_config *cfg, struct say *npm, struct say *pnpm,
                      struct nub_err *err)
{
  const char *days = nub_config_get(cfg, "min-release-age");
  const char *before = nub_config_get(cfg, "before");
  const char *mins = nub_config_get(cfg, "minimum-release-age");
  double d;

  if (before && *before) { /* npm: the date wins over the window */
    int64_t t = nub_iso_time(before);
    if (!t) {
      int y, mo, dd;
      struct tm tm;
      if (sscanf(before, "%4d-%2d-%2d", &y, &mo, &dd) != 3)
        return nub_err_set(err, -NUB_ECONFIG, "before in .npmrc is '%s', not a date "
                           "(2026-12-01 or 2026-12-01T12:00:00Z)", before);
      memset(&tm, 0, sizeof(tm));
      tm.tm_year = y - 1900;
      tm.tm_mon = mo - 1;
      tm.tm_mday = dd;
      t = (int64_t)timegm(&tm);
    }
    npm->set = true;
    npm->window = (int64_t)time(NULL) - t;
    if (npm->window < 0)
      npm->window = 0;
    npm->strict = true;
    snprintf(npm->source, sizeof(npm->source), "before=%s in .npmrc", before);
  } else if (days && *days) {
    if (number(days, true, &d) < 0)
      return bad(err, "min-release-age", ".npmrc", days, "days");
    npm->set = true;
    npm->window = (int64_t)(d * DAY);
    npm->strict = true;
    snprintf(npm->source, sizeof(npm->source), "min-release-age in .npmrc");
  }
  snprintf(npm->exclude_key, sizeof(npm->exclude_key), "min-release-age-exclude in .npmrc");
  if (mins && *mins) {
    if (number(mins, false, &d) < 0)
      return bad(err, "minimum-release-age", ".npmrc", mins, "minutes");
    pnpm->set = true;
    pnpm->window = (int64_t)d * 60;
    pnpm->strict = true;
    snprintf(pnpm->source, sizeof(pnpm->source), "minimum-release-age in .npmrc");
    snprintf(pnpm->exclude_key, sizeof(pnpm->exclude_key), "minimum-release-age-exclude in .npmrc");
  }
  return 0;
}

static int from_bunfig(const struct nub_bunfig *b, struct say *s, struct nub_err *err)
{
  const char *v = nub_depmap_get(&b->install, "minimumReleaseAge");

  if (!v)
    return 0;
  if (bun_seconds(v, &s->window) < 0)
    return bad(err, "minimumReleaseAge", b->file ? b->file : "bunfig.toml", v,
               "seconds (or \"3d\")");
  s->set = true;
  s->strict = true;
  snprintf(s->source, sizeof(s->source), "minimumReleaseAge in bunfig.toml");
  snprintf(s->exclude_key, sizeof(s->exclude_key), "minimumReleaseAgeExcludes in bunfig.toml");
  return 0;
}

int nub_age_gate_load(struct nub_age_gate *g, const struct nub_config *cfg,
                      const struct nub_workspace *ws, const char *dir,
                      const struct nub_lockfmt *fmt, struct nub_err *err)
{
  struct say best, yaml, npm, pnpm_rc, bun;
  struct nub_bunfig bf;
  bool strict_set = false, strict = false;
  int rc;

  memset(g, 0, sizeof(*g));
  memset(&best, 0, sizeof(best));
  memset(&yaml, 0, sizeof(yaml));
  memset(&npm, 0, sizeof(npm));
  memset(&pnpm_rc, 0, sizeof(pnpm_rc));
  memset(&bun, 0, sizeof(bun));
  rc = nub_bunfig_load(&bf, dir, err);
  if (rc == 0)
    rc = from_pnpm_yaml(ws, &yaml, &strict_set, &strict, err);
  if (rc == 0)
    rc = from_npmrc(cfg, &npm, &pnpm_rc, err);
  if (rc == 0)
    rc = from_bunfig(&bf, &bun, err);
  if (rc == 0) {
    const char *v;
    consider(&best, &yaml);
    consider(&best, &npm);
    consider(&best, &pnpm_rc);
    consider(&best, &bun);
    if (!best.set && fmt && (fmt->caps & NUB_LF_AGE_GATE)) {
      best.set = true;
      best.window = DAY;
      best.strict = strict_set && strict;
      snprintf(best.source, sizeof(best.source), "%s's default release age",
               fmt->tool ? fmt->tool : "nub");
      snprintf(best.exclude_key, sizeof(best.exclude_key),
               "minimumReleaseAgeExclude in pnpm-workspace.yaml");
    }
    if (ws)
      for (size_t i = 0; i < ws->nage_exclude; i++)
        add_excludes(g, ws->age_exclude[i], "");
    if ((v = nub_config_get(cfg, "min-release-age-exclude")))
      add_excludes(g, v, "\n,");
    if ((v = nub_config_get(cfg, "minimum-release-age-exclude")))
      add_excludes(g, v, "\n,");
    if ((v = nub_depmap_get(&bf.install, "minimumReleaseAgeExcludes")))
      add_excludes(g, v, "\n");
    if (ws && (v = nub_depmap_get(&ws->settings, "trustPolicy")) &&
        !strcmp(v, "no-downgrade")) {
      const char *after = nub_depmap_get(&ws->settings, "trustPolicyIgnoreAfter");
      g->trust = true;
      if (after && atoll(after) > 0)
        g->trust_after = (int64_t)time(NULL) - (int64_t)atoll(after) * 60;
      g->trust_exclude = nub_strarray_dup(ws->trust_exclude, ws->ntrust_exclude);
      g->ntrust_exclude = ws->ntrust_exclude;
    }
    if (best.set && best.window > 0) {
      g->window = best.window;
      g->cutoff = (int64_t)time(NULL) - best.window;
      g->strict = best.strict;
      memcpy(g->source, best.source, sizeof(g->source));
      memcpy(g->exclude_key, best.exclude_key, sizeof(g->exclude_key));
    }
  }
  nub_bunfig_release(&bf);
  if (rc < 0)
    nub_age_gate_release(g);
  return rc;
}

void nub_age_gate_release(struct nub_age_gate *g)
{
  nub_strarray_free(g->exclude, g->nexclude);
  nub_strarray_free(g->trust_exclude, g->ntrust_exclude);
  memset(g, 0, sizeof(*g));
}

/* "name@1.2.3 || 1.2.4" lists versions; a name or a glob, whole packages. */
static bool listed(char *const *list, size_t nlist, const char *name, const char *version)
{
  for (size_t i = 0; i < nlist; i++) {
    const char *x = list[i], *at = strchr(x + 1, '@');
    char pat[512];
    if (!at) {
      if (!fnmatch(x, name, 0))
        return true;
      continue;
    }
    snprintf(pat, sizeof(pat), "%.*s", (int)(at - x), x);
    if (fnmatch(pat, name, 0))
      continue;
    for (const char *v = at + 1; *v;) {
      size_t n;
      while (*v == ' ' || *v == '|')
        v++;
      n = strcspn(v, " |");
      if (n && strlen(version) == n && !strncmp(v, version, n))
        return true;
      v += n;
    }
  }
  return false;
}

static bool excluded(const struct nub_age_gate *g, const char *name, const char *version)
{
  return listed(g->exclude, g->nexclude, name, version);
}

/* The strongest evidence of the versions of p published before v. */
static int earlier_evidence(const struct nub_packument *p, const struct nub_pversion *v,
                            const struct nub_pversion **which)
{
  int best = 0;

  *which = NULL;
  for (size_t i = 0; i < p->nversions; i++) {
    const struct nub_pversion *o = p->versions[i];
    if (o != v && o->published && o->published < v->published && o->trust > best) {
      best = o->trust;
      *which = o;
    }
  }
  return best;
}

bool nub_trust_allows(const struct nub_age_gate *g, const struct nub_packument *p,
                      const struct nub_pversion *v)
{
  const struct nub_pversion *o;

  if (!g || !g->trust || !v->published ||
      listed(g->trust_exclude, g->ntrust_exclude, p->name, v->version) ||
      (g->trust_after && v->published < g->trust_after))
    return true;
  return v->trust >= earlier_evidence(p, v, &o);
}

int nub_trust_refuse(const struct nub_age_gate *g, const struct nub_packument *p,
                     const char *who, const struct nub_pversion *v, struct nub_err *err)
{
  static const char *const says[] = {"neither a trusted publisher nor provenance",
                                     "a provenance attestation", "a trusted publisher"};
  const struct nub_pversion *o;
  int was = earlier_evidence(p, v, &o);

  (void)g;
  return nub_err_set(err, -NUB_ETRUST,
                     "high-risk trust downgrade for %s@%s (wanted by %s; possible package "
                     "takeover): it was published with %s, where %s@%s had %s "
                     "(trustPolicy: no-downgrade in pnpm-workspace.yaml); if it is expected, "
                     "add it to trustPolicyExclude there", p->name, v->version, who,
                     says[v->trust > 2 ? 2 : v->trust], p->name, o ? o->version : "?",
                     says[was > 2 ? 2 : was]);
}

bool nub_age_gate_allows(const struct nub_age_gate *g, const struct nub_packument *p,
                         const struct nub_pversion *v)
{
  if (!nub_trust_allows(g, p, v))
    return false;
  if (!g || !g->cutoff || excluded(g, p->name, v->version))
    return true;
  if (v->published)
    return v->published <= g->cutoff;
  /* no date: old enough when nothing of the package changed since */
  return !p->has_times && p->modified && p->modified <= g->cutoff;
}

void nub_age_span(int64_t s, char *buf, size_t cap)
{
  static const struct {
    int64_t n;
    const char *one, *many;
  } units[] = {{DAY, "day", "days"}, {3600, "hour", "hours"}, {60, "minute", "minutes"},
               {1, "second", "seconds"}};

  for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
    if (s >= units[i].n || units[i].n == 1) {
      long long q = (long long)(s / units[i].n);
      snprintf(buf, cap, "%lld %s", q, q == 1 ? units[i].one : units[i].many);
      return;
    }
}

int nub_age_gate_fallback(const struct nub_age_gate *g, const char *name, const char *range,
                          const char *who, const struct nub_pversion *v, char **warning,
                          struct nub_err *err)
{
  char age[64], window[48];

  *warning = NULL;
  if (v->published) {
    char span[48];
    nub_age_span((int64_t)time(NULL) - v->published, span, sizeof(span));
    snprintf(age, sizeof(age), "was published %s ago", span);
  } else {
    snprintf(age, sizeof(age), "has no publication date in the registry's document");
  }
  nub_age_span(g->window, window, sizeof(window));
  if (g->strict)
    return nub_err_set(err, -NUB_ETOOYOUNG,
                       "no version of %s that matches '%s' (wanted by %s) is old enough: "
                       "%s %s, and %s wants %s; wait, or list %s in %s", name, range, who,
                       v->version, age, g->source, window, name, g->exclude_key);
  *warning = nub_asprintf("%s@%s %s, inside %s (%s); installed because no older version "
                          "matches '%s'", name, v->version, age, g->source, window, range);
  return 0;
}
