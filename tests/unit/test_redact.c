/* test_redact.c - diag/redact.h and the places that clean what they print:
 * userinfo never survives, however the text is cut (a full buffer, a
 * message longer than its record, a diag string longer than the writer's
 * buffer). */
#include "nub_test.h"

#include <string.h>

#include "diag.h"
#include "err.h"
#include "nub_alloc.h"
#include "redact.h"

static void no_secret(const char *s)
{
  if (strstr(s, "ali") || strstr(s, "s3c"))
    fail_msg("a secret survived: %s", s);
}

static void test_redact__masks_userinfo(void **state)
{
  char out[128];

  (void)state;
  nub_redact(out, sizeof(out), "GET https://alice:s3cret@reg.example/x and http://h/y");
  assert_string_equal(out, "GET https://***@reg.example/x and http://h/y");
  nub_redact(out, sizeof(out), "a@b.c (no URL) https://h/@scope/pkg");
  assert_string_equal(out, "a@b.c (no URL) https://h/@scope/pkg");
}

/* Every size of output buffer: cut, but never cut to the userinfo. */
static void test_redact__every_buffer_size(void **state)
{
  static const char in[] = "x https://alice:s3cret@reg.example/p";

  (void)state;
  for (size_t cap = 1; cap < sizeof(in) + 8; cap++) {
    char out[sizeof(in) + 8];
    nub_redact(out, cap, in);
    assert_true(strlen(out) < cap);
    no_secret(out);
  }
}

/* A message longer than the error record, with the URL across the cut. */
static void test_redact__error_record_cut_inside_a_url(void **state)
{
  struct nub_err e;
  char pad[2048];

  (void)state;
  for (size_t n = sizeof(e.msg) - 40; n < sizeof(e.msg); n++) {
    memset(pad, 'a', n);
    pad[n] = '\0';
    nub_err_set(&e, -1, "%s https://alice:s3cret@reg.example/p", pad);
    no_secret(e.msg);
  }
  nub_err_set(&e, -1, "cannot reach https://alice:s3cret@reg.example/");
  assert_string_equal(e.msg, "cannot reach https://***@reg.example/");
  nub_err_wrap(&e, "fetching https://bob:s3cret2@other.example/x");
  no_secret(e.msg);
  assert_null(strstr(e.msg, "bob"));
}

/* A diag string longer than the writer's buffer is clipped after it is
 * cleaned. */
static void test_redact__long_diag_string(void **state)
{
  struct nub_jw w;
  char *val = nub_malloc(4096);
  const char *json;

  (void)state;
  memset(val, 'p', 3000);
  strcpy(val + 3000, " https://alice:s3cret@reg.example/p");
  nub_jw_begin(&w);
  nub_jw_str(&w, "url", val);
  json = nub_jw_end(&w);
  no_secret(json);
  /* and the URL first, the padding after: clipped, still clean */
  strcpy(val, "https://alice:s3cret@reg.example/");
  memset(val + strlen(val), 'p', 3000);
  val[3100] = '\0';
  nub_jw_begin(&w);
  nub_jw_str(&w, "url", val);
  json = nub_jw_end(&w);
  no_secret(json);
  nub_free(val);
}

/* A corrupted packument's tarball URL reached an error line byte for byte
 * (invalid UTF-8 on the terminal); bytes that are not text are \xNN now,
 * valid UTF-8 and tabs stay. */
static void test_redact__bytes_that_are_not_text(void **state)
{
  char out[128];
  char *dup;
  (void)state;
  nub_redact(out, sizeof(out), "a-\xce\xd1z.tgz \x01\r caf\xc3\xa9\t\xe2\x82\xac");
  assert_string_equal(out, "a-\\xce\\xd1z.tgz \\x01\\x0d caf\xc3\xa9\t\xe2\x82\xac");
  dup = nub_redact_dup("https://u:p@h/\xff");
  assert_string_equal(dup, "https://***@h/\\xff");
  nub_free(dup);
  /* a cut never splits an escape */
  nub_redact(out, 6, "ab\xff" "cd");
  assert_string_equal(out, "ab");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_redact__masks_userinfo),
      cmocka_unit_test(test_redact__every_buffer_size),
      cmocka_unit_test(test_redact__error_record_cut_inside_a_url),
      cmocka_unit_test(test_redact__long_diag_string),
      cmocka_unit_test(test_redact__bytes_that_are_not_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
