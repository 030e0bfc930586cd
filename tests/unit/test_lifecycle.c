/* test_lifecycle.c - which dependencies have scripts to run once installed
 * (nub_lifecycle_builds), from their store index's flags. */
#include "nub_test.h"

#include <string.h>

#include "git.h"
#include "index.h"
#include "lifecycle.h"
#include "pkgtab.h"

static bool builds(const char *tarball, unsigned flags)
{
  struct nub_index idx;
  struct nub_pkg p;

  memset(&idx, 0, sizeof(idx));
  memset(&p, 0, sizeof(p));
  idx.flags = flags;
  p.tarball = (char *)tarball;
  p.index = &idx;
  return nub_lifecycle_builds(&p);
}

static void test_lifecycle__builds(void **state)
{
  const char *reg = "http://r.invalid/a/-/a-1.0.0.tgz";
  const char *bun = NUB_GIT_CHECKOUT "https://h.invalid/r.git#0123456789abcdef0123456789abcdef01234567";
  const unsigned known = NUB_IDX_PEERS_KNOWN | NUB_IDX_PREPARE_KNOWN;
  (void)state;
  assert_true(builds(reg, known | NUB_IDX_INSTALL_SCRIPT));
  assert_true(builds(reg, known | NUB_IDX_BINDING_GYP));
  assert_false(builds(reg, known));
  /* a registry package's prepare is never run once installed */
  assert_false(builds(reg, known | NUB_IDX_PREPARE_SCRIPT));
  /* a git checkout bun installs: its prepare runs in place */
  assert_true(builds(bun, known | NUB_IDX_PREPARE_SCRIPT));
  assert_false(builds(bun, known));
  /* an index written before the prepare flags existed says nothing about
   * prepare (it has the peers flag): package.json decides when it runs */
  assert_true(builds(bun, NUB_IDX_PEERS_KNOWN));
  assert_true(builds(bun, 0));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lifecycle__builds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
