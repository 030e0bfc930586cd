/* test_requires.c - the textual scan for bare module specifiers that feeds
 * phantom-dependency links in the global virtual store. */
#include "nub_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nub_alloc.h"
#include "requires.h"

struct found {
  char names[32][64];
  int n;
};

static void collect(void *ud, const char *name)
{
  struct found *f = ud;
  if (f->n < 32)
    snprintf(f->names[f->n++], 64, "%s", name);
}

static bool has(const struct found *f, const char *name)
{
  for (int i = 0; i < f->n; i++)
    if (!strcmp(f->names[i], name))
      return true;
  return false;
}

static void scan(const char *src, struct found *f)
{
  memset(f, 0, sizeof(*f));
  nub_scan_requires(src, strlen(src), collect, f);
}

static void test_requires__forms(void **state)
{
  struct found f;
  (void)state;
  scan("var a = require('alpha');\n"
       "const b = require( \"beta/sub/file\" );\n"
       "import g from 'gamma';\n"
       "import { d } from \"@scope/delta/x.js\";\n"
       "import 'side-effect';\n"
       "const e = await import(`eps`);\n"
       "export * from 'zeta'\n",
       &f);
  assert_true(has(&f, "alpha"));
  assert_true(has(&f, "beta"));
  assert_true(has(&f, "gamma"));
  assert_true(has(&f, "@scope/delta"));
  assert_true(has(&f, "side-effect"));
  assert_true(has(&f, "eps"));
  assert_true(has(&f, "zeta"));
  assert_int_equal(f.n, 7);
}

static void test_requires__not_packages(void **state)
{
  struct found f;
  (void)state;
  scan("require('./local'); require('../up'); require('/abs/x');\n"
       "require('node:fs'); import x from 'https://cdn/x.js';\n"
       "myrequire('nope'); obj.require('nope2'); reimport('nope3');\n"
       "require(variable); require('@scope'); require('');\n"
       "const from = 1; // from\n",
       &f);
  assert_int_equal(f.n, 0);
}

static void test_requires__unterminated_input(void **state)
{
  struct found f;
  (void)state;
  scan("require('abc", &f); /* cut off: no name */
  assert_int_equal(f.n, 0);
  scan("require", &f);
  assert_int_equal(f.n, 0);
}

/* The scan steps 16 bytes at a time and finishes byte by byte: a keyword
 * must be found at every offset, across a step and in the tail. */
static void test_requires__every_alignment(void **state)
{
  static const char *forms[3] = {"require('abc')", "import('abc')", "x from 'abc'"};
  char src[128];
  struct found f;

  (void)state;
  for (int k = 0; k < 3; k++) {
    for (int pad = 0; pad < 48; pad++) {
      for (int after_n = 0; after_n < 24; after_n += 23) {
        memset(src, ' ', sizeof(src));
        memcpy(src + pad, forms[k], strlen(forms[k]));
        src[pad + strlen(forms[k]) + (size_t)after_n] = '\0';
        scan(src, &f);
        if (f.n != 1 || !has(&f, "abc"))
          fail_msg("form %d at offset %d (+%d after): %d names", k, pad, after_n, f.n);
      }
    }
  }
  /* near misses at every offset find nothing */
  for (int pad = 0; pad < 40; pad++) {
    static const char miss[] = "requir('a') fro 'b' impor('c') xrequire('d')";
    memset(src, ' ', sizeof(src));
    memcpy(src + pad, miss, sizeof(miss) - 1);
    src[pad + sizeof(miss) - 1] = '\0';
    scan(src, &f);
    assert_int_equal(f.n, 0);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_requires__forms),
    cmocka_unit_test(test_requires__not_packages),
    cmocka_unit_test(test_requires__unterminated_input),
    cmocka_unit_test(test_requires__every_alignment),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
