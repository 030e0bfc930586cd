/* test_text.c - core/text.h: positions in text, and the nearest word for
 * "did you mean". */
#include "nub_test.h"

#include <string.h>

#include "text.h"

static void test_text__linecol(void **state)
{
  int line, col;

  (void)state;
  nub_text_linecol("ab\ncd\n", 4, &line, &col);
  assert_int_equal(line, 2);
  assert_int_equal(col, 2);
}

static void test_text__nearest(void **state)
{
  static const char *const keys[] = {"minimumReleaseAge", "minimumReleaseAgeExclude",
                                     "packages", "catalog", "catalogs", "overrides",
                                     "strictPeerDependencies", "allowBuilds"};
  const size_t n = sizeof(keys) / sizeof(keys[0]);

  (void)state;
  assert_string_equal(nub_text_nearest("minimumReleaseAgee", keys, n), "minimumReleaseAge");
  assert_string_equal(nub_text_nearest("minimumreleaseage", keys, n), "minimumReleaseAge");
  assert_string_equal(nub_text_nearest("pakcages", keys, n), "packages"); /* a swap */
  assert_string_equal(nub_text_nearest("catalogz", keys, n), "catalog");
  assert_string_equal(nub_text_nearest("catalogs", keys, n), "catalogs"); /* itself */
  assert_string_equal(nub_text_nearest("strictPeerDeps", keys, n) ? "x" : "none", "none");
  assert_null(nub_text_nearest("zzz", keys, n));
  assert_null(nub_text_nearest("", keys, n));
  assert_null(nub_text_nearest("allowBuild", keys, 0));
  {
    char longword[80];
    memset(longword, 'a', sizeof(longword) - 1);
    longword[sizeof(longword) - 1] = '\0';
    assert_null(nub_text_nearest(longword, keys, n));
  }
}

static void test_text__conflict_sides(void **state)
{
  /* git's markers with diff3's base section: the base goes to neither
   * side, a "=======" outside a conflict is text */
  static const char t[] = "top\n"
                          "<<<<<<< HEAD\n"
                          "ours\n"
                          "||||||| base\n"
                          "old\n"
                          "=======\n"
                          "theirs\n"
                          ">>>>>>> branch\n"
                          "=======\n"
                          "<<<<<<<\n"
                          "=======\n"
                          "t2\n"
                          ">>>>>>>\n"
                          "end";
  struct nub_buf side[2];

  (void)state;
  nub_text_conflict_sides(t, strlen(t), side);
  assert_string_equal(nub_buf_str(&side[0]), "top\nours\n=======\nend");
  assert_string_equal(nub_buf_str(&side[1]), "top\ntheirs\n=======\nt2\nend");
  nub_buf_release(&side[0]);
  nub_buf_release(&side[1]);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_text__conflict_sides),
      cmocka_unit_test(test_text__linecol),
      cmocka_unit_test(test_text__nearest),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
