/* test_agegate.c - core/install/agegate.h and what it stands on: bun's
 * [install] table (bunfig.h), the registry document's dates (registry.h),
 * the exclusions, and the resolver's pick under a gate (dist-tags moved as
 * pnpm moves them, the deprecated last). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nub_test.h"

#include "agegate.h"
#include "bunfig.h"
#include "config.h"
#include "lockfmt.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "registry.h"
#include "resolve.h"
#include "workspace.h"

static void test_agegate__bunfig_install_table(void **state)
{
  static const char text[] =
      "# bun's settings\n"
      "telemetry = false\n"
      "[run]\n"
      "minimumReleaseAge = 1 # another table's: not read\n"
      "[install]\n"
      "registry = \"http://127.0.0.1:1/\" # a comment\n"
      "minimumReleaseAge = 259200\n"
      "'quoted key' = 'lit\\eral'\n"
      "minimumReleaseAgeExcludes = [\n"
      "  \"@types/node\", # why\n"
      "  'typescript',\n"
      "]\n"
      "exact = true\n"
      "[install.scopes]\n"
      "myorg = { token = \"x\" }\n";
  struct nub_bunfig b;
  struct nub_err err;

  (void)state;
  memset(&b, 0, sizeof(b));
  assert_int_equal(nub_bunfig_parse(&b, text, strlen(text), "bunfig.toml", &err), 0);
  assert_string_equal(nub_depmap_get(&b.install, "registry"), "http://127.0.0.1:1/");
  assert_string_equal(nub_depmap_get(&b.install, "minimumReleaseAge"), "259200");
  assert_string_equal(nub_depmap_get(&b.install, "quoted key"), "lit\\eral");
  assert_string_equal(nub_depmap_get(&b.install, "minimumReleaseAgeExcludes"),
                      "@types/node\ntypescript");
  assert_string_equal(nub_depmap_get(&b.install, "exact"), "true");
  assert_null(nub_depmap_get(&b.install, "telemetry"));
  assert_null(nub_depmap_get(&b.install, "myorg"));
  assert_int_equal(b.install.n, 5);
  nub_bunfig_release(&b);
}

static void test_agegate__bunfig_bad_lines(void **state)
{
  static const char *const bad[] = {
      "[install]\nminimumReleaseAge\n",
      "[install]\nminimumReleaseAge = \n",
      "[install]\nx = \"unclosed\n",
      "[install]\nx = [\"a\", b]\n",
      "[install]\nx = [\"a\",\n",
  };
  (void)state;
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    struct nub_bunfig b;
    struct nub_err err;
    memset(&b, 0, sizeof(b));
    assert_int_equal(nub_bunfig_parse(&b, bad[i], strlen(bad[i]), "bunfig.toml", &err),
                     -NUB_ECONFIG);
    assert_non_null(strstr(err.msg, "bunfig.toml:2:"));
    nub_bunfig_release(&b);
  }
}

static void test_agegate__iso_time(void **state)
{
  (void)state;
  assert_int_equal(nub_iso_time("1970-01-01T00:00:00.000Z"), 0);
  assert_int_equal(nub_iso_time("2020-01-02T00:00:00.000Z"), 1577923200);
  assert_int_equal(nub_iso_time("2026-12-03T19:32:47Z"), 1796326367);
  assert_int_equal(nub_iso_time("2026-11-30T23:05:20+00:00"), 1796079920);
  assert_int_equal(nub_iso_time("2026-12-01T00:05:20+01:00"), 1796079920);
  assert_int_equal(nub_iso_time("2026-11-30T18:05:20.5-05:00"), 1796079920);
  assert_int_equal(nub_iso_time("2026-11-30T23:05:20 junk"), 0);
  assert_int_equal(nub_iso_time("yesterday"), 0);
  assert_int_equal(nub_iso_time(NULL), 0);
}

/* A registry document: versions with dates (seconds ago; -1: none). */
static struct nub_packument *doc(const char *name, const char *const *versions,
                                 const long *ago, size_t n, const char *latest,
                                 const char *deprecated, bool full)
{
  char buf[4096], *p = buf, stamp[32];
  struct nub_packument *out;
  struct nub_config cfg;
  struct nub_err err;
  time_t now = time(NULL), newest = 0;

  memset(&cfg, 0, sizeof(cfg));
  p += sprintf(p, "{\"name\":\"%s\",\"dist-tags\":{\"latest\":\"%s\"},\"versions\":{", name,
               latest);
  for (size_t i = 0; i < n; i++)
    p += sprintf(p, "%s\"%s\":{\"name\":\"%s\",\"version\":\"%s\",%s\"dist\":{\"integrity\":"
                 "\"sha512-AA==\",\"tarball\":\"http://127.0.0.1:1/x.tgz\"}}", i ? "," : "",
                 versions[i], name, versions[i],
                 deprecated && !strcmp(deprecated, versions[i]) ? "\"deprecated\":\"no\"," : "");
  p += sprintf(p, "}");
  if (full) {
    p += sprintf(p, ",\"time\":{\"created\":\"2019-01-01T00:00:00.000Z\"");
    for (size_t i = 0; i < n; i++) {
      time_t t = now - ago[i];
      if (ago[i] < 0)
        continue;
      if (t > newest)
        newest = t;
      strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S.000Z", gmtime(&t));
      p += sprintf(p, ",\"%s\":\"%s\"", versions[i], stamp);
    }
    p += sprintf(p, "}");
  } else {
    for (size_t i = 0; i < n; i++)
      if (now - ago[i] > newest)
        newest = now - ago[i];
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S.000Z", gmtime(&newest));
    p += sprintf(p, ",\"modified\":\"%s\"", stamp); /* the abbreviated document's */
  }
  sprintf(p, "}");
  assert_int_equal(nub_packument_parse(&out, buf, strlen(buf), name, &cfg, &err), 0);
  return out;
}

static struct nub_age_gate gate_of(long window, const char *const *exclude, size_t n)
{
  struct nub_age_gate g;

  memset(&g, 0, sizeof(g));
  g.window = window;
  g.cutoff = (int64_t)time(NULL) - window;
  g.strict = true;
  g.exclude = nub_calloc(n + 1, sizeof(char *));
  for (size_t i = 0; i < n; i++)
    g.exclude[g.nexclude++] = nub_strdup(exclude[i]);
  return g;
}

#define DAY 86400L

static const char *pick(const struct nub_packument *p, const char *spec,
                        const struct nub_age_gate *g)
{
  const struct nub_pversion *v = nub_resolve_choose(p, spec, g);
  return v ? v->version : "(none)";
}

static void test_agegate__pick_under_the_gate(void **state)
{
  static const char *const vs[] = {"1.0.0", "1.1.0", "1.2.0", "2.0.0-rc.1", "2.0.0", "2.1.0"};
  static const long ago[] = {400 * DAY, 300 * DAY, 3 * DAY, 2 * DAY, 3600, 60};
  struct nub_packument *p = doc("x", vs, ago, 6, "2.1.0", "1.2.0", true);
  struct nub_age_gate day = gate_of(DAY, NULL, 0), week = gate_of(7 * DAY, NULL, 0);

  (void)state;
  assert_true(p->has_times);
  assert_int_equal(p->versions[0]->published, (int64_t)time(NULL) - 400 * DAY);
  /* no gate: as ever */
  assert_string_equal(pick(p, "^1.0.0", NULL), "1.2.0");
  assert_string_equal(pick(p, "latest", NULL), "2.1.0");
  /* a day: 2.0.0 and 2.1.0 are too young; "latest" moves below itself,
   * past the prerelease and past the deprecated 1.2.0 (pnpm's rule: the
   * deprecated only when nothing else is left); a range takes 1.2.0 */
  assert_string_equal(pick(p, "^1.0.0", &day), "1.2.0");
  assert_string_equal(pick(p, "latest", &day), "1.1.0");
  assert_string_equal(pick(p, "^2.0.0", &day), "(none)");
  assert_string_equal(pick(p, ">=2.0.0-rc.0", &day), "2.0.0-rc.1");
  /* a week: only 1.0.0 and 1.1.0 */
  assert_string_equal(pick(p, "^1.0.0", &week), "1.1.0");
  assert_string_equal(pick(p, "latest", &week), "1.1.0");
  nub_age_gate_release(&day);
  nub_age_gate_release(&week);
  nub_packument_free(p);
}

static void test_agegate__exclusions(void **state)
{
  static const char *const vs[] = {"1.0.0", "1.1.0", "1.2.0"};
  static const long ago[] = {400 * DAY, 60, 30};
  static const char *const by_version[] = {"x@1.1.0 || 9.9.9"};
  static const char *const by_name[] = {"@org/*", "x"};
  static const char *const other[] = {"y", "x@1.2.1"};
  struct nub_packument *p = doc("x", vs, ago, 3, "1.2.0", NULL, true);
  struct nub_age_gate g1 = gate_of(DAY, by_version, 1), g2 = gate_of(DAY, by_name, 2),
                      g3 = gate_of(DAY, other, 2);

  (void)state;
  assert_string_equal(pick(p, "^1.0.0", &g1), "1.1.0");
  assert_string_equal(pick(p, "^1.0.0", &g2), "1.2.0");
  assert_string_equal(pick(p, "^1.0.0", &g3), "1.0.0");
  nub_age_gate_release(&g1);
  nub_age_gate_release(&g2);
  nub_age_gate_release(&g3);
  nub_packument_free(p);
}

static void test_agegate__abbreviated_documents(void **state)
{
  /* no dates: a package not modified inside the window is old enough
   * whole; one modified inside it cannot be judged (the client asks for
   * the full document then) */
  static const char *const vs[] = {"1.0.0", "1.1.0"};
  static const long old[] = {400 * DAY, 30 * DAY}, young[] = {400 * DAY, 60};
  struct nub_packument *a = doc("x", vs, old, 2, "1.1.0", NULL, false),
                       *b = doc("x", vs, young, 2, "1.1.0", NULL, false);
  struct nub_age_gate g = gate_of(DAY, NULL, 0);

  (void)state;
  assert_false(a->has_times);
  assert_string_equal(pick(a, "^1.0.0", &g), "1.1.0");
  assert_string_equal(pick(b, "^1.0.0", &g), "(none)");
  nub_age_gate_release(&g);
  nub_packument_free(a);
  nub_packument_free(b);
}

/* the rows' two kinds: a tool without a default gate, one with */
static const struct nub_lockfmt npm_fmt = {.name = "npm", .tool = "npm", .caps = NUB_LF_WRITES};
static const struct nub_lockfmt pnpm_fmt = {.name = "pnpm", .tool = "pnpm",
                                            .caps = NUB_LF_WRITES | NUB_LF_AGE_GATE};

static void load_gate(struct nub_age_gate *g, const char *npmrc, const char *yaml,
                      const char *bunfig, const struct nub_lockfmt *fmt, int want_rc,
                      const char *want_msg)
{
  char *dir = nub_test_mkdtemp("agegate"), *home = nub_asprintf("%s/home", dir), *p;
  struct nub_config cfg;
  struct nub_workspace ws;
  struct nub_err err;
  int rc;

  assert_int_equal(nub_plat_mkdir_p(home, 0755), 0);
  setenv("HOME", home, 1);
  unsetenv("XDG_CONFIG_HOME");
  unsetenv("npm_config_registry");
  unsetenv("npm_config_userconfig");
  setenv("npm_config_globalconfig", "/nonexistent/npmrc", 1);
  p = nub_asprintf("%s/package.json", dir);
  nub_test_write(p, "{\"name\":\"p\",\"version\":\"1.0.0\"}", 0644);
  nub_free(p);
  if (npmrc) {
    p = nub_asprintf("%s/.npmrc", dir);
    nub_test_write(p, npmrc, 0644);
    nub_free(p);
  }
  if (yaml) {
    p = nub_asprintf("%s/pnpm-workspace.yaml", dir);
    nub_test_write(p, yaml, 0644);
    nub_free(p);
  }
  if (bunfig) {
    p = nub_asprintf("%s/bunfig.toml", dir);
    nub_test_write(p, bunfig, 0644);
    nub_free(p);
  }
  assert_int_equal(nub_config_load(&cfg, dir, NULL, 0, &err), 0);
  memset(&ws, 0, sizeof(ws));
  assert_int_equal(nub_workspace_discover(&ws, dir, NULL, &err), 0);
  rc = nub_age_gate_load(g, &cfg, ws.source ? &ws : NULL, dir, fmt, &err);
  assert_int_equal(rc, want_rc);
  if (want_msg)
    assert_non_null(strstr(err.msg, want_msg));
  nub_workspace_release(&ws);
  nub_config_release(&cfg);
  nub_plat_rm_rf_at(NUB_PLAT_CWD, dir);
  nub_free(home);
  nub_free(dir);
}

static void test_agegate__homes_and_units(void **state)
{
  struct nub_age_gate g;

  (void)state;
  load_gate(&g, NULL, NULL, NULL, &npm_fmt, 0, NULL);
  assert_int_equal(g.cutoff, 0); /* npm: opt-in */
  load_gate(&g, NULL, NULL, NULL, &pnpm_fmt, 0, NULL);
  assert_int_equal(g.window, DAY); /* pnpm 12: a day, lenient */
  assert_false(g.strict);
  assert_string_equal(g.source, "pnpm's default release age");
  nub_age_gate_release(&g);
  load_gate(&g, "min-release-age=2.5\nmin-release-age-exclude[]=a\nmin-release-age-exclude[]=b,c\n",
            NULL, NULL, &npm_fmt, 0, NULL);
  assert_int_equal(g.window, 5 * DAY / 2);
  assert_true(g.strict);
  assert_int_equal(g.nexclude, 3);
  assert_string_equal(g.exclude[2], "c");
  nub_age_gate_release(&g);
  /* the longest window wins; every home's exclusions count */
  load_gate(&g, "minimum-release-age=60\n",
            "packages: []\nminimumReleaseAge: 4320\nminimumReleaseAgeExclude:\n  - x@1.0.0\n",
            "[install]\nminimumReleaseAge = \"2d\"\nminimumReleaseAgeExcludes = [\"y\"]\n",
            &npm_fmt, 0, NULL);
  assert_int_equal(g.window, 3 * DAY);
  assert_string_equal(g.source, "minimumReleaseAge in pnpm-workspace.yaml");
  assert_int_equal(g.nexclude, 2);
  nub_age_gate_release(&g);
  /* pnpm's lenient switch, and 0 turning the default off */
  load_gate(&g, NULL, "packages: []\nminimumReleaseAge: 10\nminimumReleaseAgeStrict: false\n",
            NULL, &pnpm_fmt, 0, NULL);
  assert_int_equal(g.window, 600);
  assert_false(g.strict);
  nub_age_gate_release(&g);
  load_gate(&g, NULL, "packages: []\nminimumReleaseAge: 0\n", NULL, &pnpm_fmt, 0, NULL);
  assert_int_equal(g.cutoff, 0);
  load_gate(&g, "before=2020-01-01\n", NULL, NULL, &npm_fmt, 0, NULL);
  assert_int_equal(g.cutoff, 1577836800);
  nub_age_gate_release(&g);
  /* bad values name the setting */
  load_gate(&g, "min-release-age=soon\n", NULL, NULL, &npm_fmt, -NUB_ECONFIG,
            "min-release-age in .npmrc is 'soon', not a number of days");
  load_gate(&g, NULL, NULL, "[install]\nminimumReleaseAge = \"3y\"\n", &npm_fmt,
            -NUB_ECONFIG, "not a number of seconds");
  load_gate(&g, "before=someday\n", NULL, NULL, &npm_fmt, -NUB_ECONFIG,
            "before in .npmrc is 'someday', not a date");
}

static void test_agegate__spans(void **state)
{
  char b[48];

  (void)state;
  nub_age_span(DAY, b, sizeof(b));
  assert_string_equal(b, "1 day");
  nub_age_span(3 * DAY + 5, b, sizeof(b));
  assert_string_equal(b, "3 days");
  nub_age_span(7200, b, sizeof(b));
  assert_string_equal(b, "2 hours");
  nub_age_span(59, b, sizeof(b));
  assert_string_equal(b, "59 seconds");
  nub_age_span(0, b, sizeof(b));
  assert_string_equal(b, "0 seconds");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_agegate__bunfig_install_table),
      cmocka_unit_test(test_agegate__bunfig_bad_lines),
      cmocka_unit_test(test_agegate__iso_time),
      cmocka_unit_test(test_agegate__pick_under_the_gate),
      cmocka_unit_test(test_agegate__exclusions),
      cmocka_unit_test(test_agegate__abbreviated_documents),
      cmocka_unit_test(test_agegate__homes_and_units),
      cmocka_unit_test(test_agegate__spans),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
