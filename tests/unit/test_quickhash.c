/* test_quickhash.c - the change-noticing hash: fixed outputs (the same on
 * every platform and build), and every one-bit change of an input of every
 * length up to 80 bytes gives another hash. */
#include "nub_test.h"

#include <stdio.h>
#include <string.h>

#include "integrity.h"
#include "quickhash.h"

static void hex16(const void *p, size_t n, char out[33])
{
  unsigned char h[16];
  nub_quickhash(p, n, h);
  nub_hex(h, 16, out);
}

static void test_quickhash__fixed_values(void **state)
{
  char a[33], b[33], c[33];
  (void)state;
  hex16("", 0, a);
  hex16("a", 1, b);
  hex16("lockfileVersion: '9.0'\n", 23, c);
  /* outputs written down once: a change of the function shows here */
  assert_string_equal(a, "b9f57761996488c7815c0e3497745668");
  assert_string_equal(b, "db26027e059ecf1270d97ce21f4e0a3e");
  assert_string_equal(c, "5f33d8193dbad8edaffebec3cf5faec2");
}

static void test_quickhash__every_bit_matters(void **state)
{
  unsigned char buf[80], h0[16], h1[16];
  (void)state;
  for (size_t i = 0; i < sizeof(buf); i++)
    buf[i] = (unsigned char)(i * 37 + 11);
  for (size_t n = 0; n <= sizeof(buf); n++) {
    nub_quickhash(buf, n, h0);
    for (size_t bit = 0; bit < 8 * n; bit++) {
      buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
      nub_quickhash(buf, n, h1);
      buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
      assert_memory_not_equal(h0, h1, 16);
    }
    if (n) { /* the length itself counts: a trailing zero byte differs */
      unsigned char z[81] = {0};
      nub_quickhash(z, n, h0);
      nub_quickhash(z, n - 1, h1);
      assert_memory_not_equal(h0, h1, 16);
    }
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_quickhash__fixed_values),
    cmocka_unit_test(test_quickhash__every_bit_matters),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
