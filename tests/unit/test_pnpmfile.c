/* test_pnpmfile.c - pnpm's hooks file: which file, its checksum, and
 * readPackage run through Node (skipped where no node is on PATH). */
#include "nub_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "manifest.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "pnpmfile.h"
#include "registry.h"

static int open_dir(const char *d)
{
  int fd = nub_plat_open_dir_at(NUB_PLAT_CWD, d);
  assert_true(fd >= 0);
  return fd;
}

static void test_pnpmfile__find_and_checksum(void **state)
{
  char *d = nub_test_mkdtemp("pnpmfile"), *p, *sum = NULL;
  struct nub_err err;
  int fd;
  (void)state;

  fd = open_dir(d);
  assert_null(nub_pnpmfile_find(fd, NULL));
  p = nub_asprintf("%s/.pnpmfile.cjs", d);
  nub_test_write(p, "abc", 0644);
  nub_free(p);
  p = nub_pnpmfile_find(fd, NULL);
  assert_string_equal(p, ".pnpmfile.cjs");
  nub_free(p);
  /* sha256("abc") in base64, as pnpm writes pnpmfileChecksum */
  assert_int_equal(nub_pnpmfile_checksum(fd, ".pnpmfile.cjs", &sum, &err), 0);
  assert_string_equal(sum, "sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
  nub_free(sum);
  /* .mjs first; the setting before both */
  p = nub_asprintf("%s/.pnpmfile.mjs", d);
  nub_test_write(p, "", 0644);
  nub_free(p);
  p = nub_pnpmfile_find(fd, NULL);
  assert_string_equal(p, ".pnpmfile.mjs");
  nub_free(p);
  p = nub_pnpmfile_find(fd, "hooks/x.cjs");
  assert_string_equal(p, "hooks/x.cjs");
  nub_free(p);
  assert_int_equal(nub_pnpmfile_checksum(fd, "missing.cjs", &sum, &err), -NUB_EHOOK);
  nub_plat_close(fd);
  nub_free(d);
}

static bool have_node(void)
{
  return system("command -v node >/dev/null 2>&1") == 0;
}

static char *said;

static void keep_log(void *ud, const char *hook, const char *line)
{
  (void)ud;
  nub_free(said);
  said = nub_asprintf("%s: %s", hook, line);
}

static void test_pnpmfile__read_package(void **state)
{
  char *d = nub_test_mkdtemp("pnpmfile-run"), *p;
  struct nub_pnpmfile *h = NULL;
  struct nub_pversion pv;
  struct nub_manifest m;
  struct nub_dep dep = {(char *)"b", (char *)"^1.0.0"};
  struct nub_err err;
  (void)state;

  if (!have_node()) {
    nub_free(d);
    skip();
  }
  p = nub_asprintf("%s/.pnpmfile.cjs", d);
  nub_test_write(p,
                 "module.exports = { hooks: { readPackage(pkg, ctx) {\n"
                 "  if (pkg.name === 'a') { pkg.dependencies.b = '^2.0.0';\n"
                 "    pkg.peerDependencies.p = '*';\n"
                 "    pkg.peerDependenciesMeta = { p: { optional: true } };\n"
                 "    ctx.log('a ' + pkg.version + ' ' + pkg.dist.integrity); }\n"
                 "  if (pkg.name === 'proj') delete pkg.devDependencies.x;\n"
                 "  if (pkg.name === 'bad') throw new Error('no');\n"
                 "  return pkg; }, preResolution() {} } };\n",
                 0644);
  nub_free(p);
  assert_int_equal(nub_pnpmfile_start(&h, d, ".pnpmfile.cjs", keep_log, NULL, &err), 0);
  assert_true(nub_pnpmfile_has(h, "readPackage"));
  assert_string_equal(nub_pnpmfile_unapplied(h), "preResolution");

  memset(&pv, 0, sizeof(pv));
  pv.version = (char *)"1.0.0";
  pv.integrity = (char *)"sha512-x";
  pv.deps.v = nub_calloc(1, sizeof(dep));
  pv.deps.v[0].name = nub_strdup(dep.name);
  pv.deps.v[0].spec = nub_strdup(dep.spec);
  pv.deps.n = 1;
  assert_int_equal(nub_pnpmfile_read_version(h, "a", &pv, &err), 0);
  assert_string_equal(nub_depmap_get(&pv.deps, "b"), "^2.0.0");
  assert_string_equal(nub_depmap_get(&pv.peers, "p"), "*");
  assert_int_equal(pv.npeers_optional, 1);
  assert_string_equal(pv.peers_optional[0], "p");
  assert_string_equal(said, "readPackage: a 1.0.0 sha512-x");
  assert_null(nub_pnpmfile_ignored_change(h));
  assert_int_equal(nub_pnpmfile_read_version(h, "bad", &pv, &err), -NUB_EHOOK);
  assert_non_null(strstr(err.msg, "readPackage on bad failed: Error: no"));
  nub_depmap_release(&pv.deps);
  nub_depmap_release(&pv.optional);
  nub_depmap_release(&pv.peers);
  nub_strarray_free(pv.peers_optional, pv.npeers_optional);

  memset(&m, 0, sizeof(m));
  m.name = (char *)"proj";
  m.dev.v = nub_calloc(1, sizeof(dep));
  m.dev.v[0].name = nub_strdup("x");
  m.dev.v[0].spec = nub_strdup("1.0.0");
  m.dev.n = 1;
  assert_int_equal(nub_pnpmfile_read_manifest(h, &m, &err), 0);
  assert_int_equal(m.dev.n, 0);
  nub_depmap_release(&m.deps);
  nub_depmap_release(&m.dev);
  nub_depmap_release(&m.optional);
  nub_depmap_release(&m.peer);
  nub_pnpmfile_stop(h);
  nub_free(said);
  said = NULL;
  nub_free(d);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pnpmfile__find_and_checksum),
      cmocka_unit_test(test_pnpmfile__read_package),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
