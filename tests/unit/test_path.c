/* test_path.c - core/path.h: names and paths from untrusted input, and the
 * relative paths symlinks are made of. */
#include "nub_test.h"

#include <errno.h>
#include <string.h>

#include "nub_alloc.h"
#include "path.h"

static void test_path__package_names(void **state)
{
  (void)state;
  assert_true(nub_valid_pkg_name("lodash"));
  assert_true(nub_valid_pkg_name("@scope/x"));
  assert_true(nub_valid_pkg_name("JSONStream"));
  assert_false(nub_valid_pkg_name(""));
  assert_false(nub_valid_pkg_name("@scope"));
  assert_false(nub_valid_pkg_name("../x"));
  assert_false(nub_valid_pkg_name(".hidden"));
  assert_false(nub_valid_pkg_name("a\\b"));
  assert_false(nub_valid_pkg_name("x/y"));
  /* the keys an alias could hide a path in (each a folder under
   * node_modules, and a metadata cache file's name) */
  assert_false(nub_valid_pkg_name(".."));
  assert_false(nub_valid_pkg_name("."));
  assert_false(nub_valid_pkg_name(".bin"));
  assert_false(nub_valid_pkg_name(".nub-state"));
  assert_false(nub_valid_pkg_name("node_modules"));
  assert_false(nub_valid_pkg_name("@s/node_modules"));
  assert_false(nub_valid_pkg_name("@s/.."));
  assert_false(nub_valid_pkg_name("@s/../x"));
  assert_false(nub_valid_pkg_name("../.git/hooks"));
  assert_false(nub_valid_pkg_name("/etc/passwd"));
  assert_true(nub_valid_pkg_name("node_modules2"));
}

static void test_path__normalize(void **state)
{
  char out[64];

  (void)state;
  assert_int_equal(nub_path_normalize("./a//b/./c", out, sizeof(out)), 3);
  assert_string_equal(out, "a/b/c");
  assert_int_equal(nub_path_normalize("a/../b", out, sizeof(out)), -EINVAL);
  assert_int_equal(nub_path_normalize("/etc/passwd", out, sizeof(out)), -EINVAL);
  assert_int_equal(nub_path_normalize("a\\b", out, sizeof(out)), -EINVAL);
  assert_int_equal(nub_path_normalize("./", out, sizeof(out)), -EINVAL);
}

static void test_path__relative(void **state)
{
  char out[4096];
  char deep[2048];
  size_t o = 0;

  (void)state;
  assert_int_equal(nub_path_relative("/p/node_modules", "/p/node_modules/.nub/x", out,
                                     sizeof(out)), 0);
  assert_string_equal(out, ".nub/x");
  assert_int_equal(nub_path_relative("/p/a/b", "/p/c", out, sizeof(out)), 0);
  assert_string_equal(out, "../../c");
  assert_int_equal(nub_path_relative("/p/./a/../b", "/p/b", out, sizeof(out)), 0);
  assert_string_equal(out, ".");
  assert_int_equal(nub_path_relative("p", "/p", out, sizeof(out)), -EINVAL);
  assert_int_equal(nub_path_relative("/a", "/b", out, 3), -EINVAL);
  /* more components than it can hold: refused, not cut short */
  for (int i = 0; i < 300; i++) {
    deep[o++] = '/';
    deep[o++] = 'd';
  }
  deep[o] = '\0';
  assert_int_equal(nub_path_relative("/", deep, out, sizeof(out)), -EINVAL);
}

static void test_path__project_paths(void **state)
{
  char *p;

  (void)state;
  p = nub_project_path("/proj", "vendor/x.tgz");
  assert_string_equal(p, "/proj/vendor/x.tgz");
  nub_free(p);
  p = nub_project_path("/proj", "/abs/x.tgz");
  assert_string_equal(p, "/abs/x.tgz");
  nub_free(p);
  assert_string_equal(nub_path_pkg_name("node_modules/a/node_modules/@s/b"), "@s/b");
  assert_null(nub_path_pkg_name("lib/a"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_path__package_names),
      cmocka_unit_test(test_path__normalize),
      cmocka_unit_test(test_path__relative),
      cmocka_unit_test(test_path__project_paths),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
