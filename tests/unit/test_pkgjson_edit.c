/* test_pkgjson_edit.c - core/pkgjson_edit.h: package.json edited byte for
 * byte (indentation, tabs, CRLF, final newline, key order). */
#include "nub_test.h"

#include <string.h>

#include "pkgjson_edit.h"

static void expect_set(const char *in, const char *sec, const char *name, const char *spec,
                       const char *want)
{
  struct nub_buf b = NUB_BUF_INIT;
  struct nub_err err;

  assert_int_equal(nub_pkgjson_set_dep(&b, in, strlen(in), sec, name, spec, &err), 0);
  assert_string_equal(nub_buf_str(&b), want);
  nub_buf_release(&b);
}

static void expect_remove(const char *in, const char *sec, const char *name, const char *want,
                          bool was)
{
  struct nub_buf b = NUB_BUF_INIT;
  struct nub_err err;
  bool removed;

  assert_int_equal(nub_pkgjson_remove_dep(&b, in, strlen(in), sec, name, &removed, &err), 0);
  assert_string_equal(nub_buf_str(&b), want);
  assert_int_equal(removed, was);
  nub_buf_release(&b);
}

static void test_pkgjson_edit__set(void **state)
{
  (void)state;
  /* two spaces, sorted: in its place */
  expect_set("{\n  \"name\": \"x\",\n  \"dependencies\": {\n    \"a\": \"1\",\n    \"c\": \"3\"\n  }\n}\n",
             "dependencies", "b", "^2.0.0",
             "{\n  \"name\": \"x\",\n  \"dependencies\": {\n    \"a\": \"1\",\n    \"b\": \"^2.0.0\",\n    \"c\": \"3\"\n  }\n}\n");
  /* on one line, minified or spaced: its own separators, still one line */
  expect_set("{\"name\":\"x\",\"dependencies\":{\"a\":\"1\",\"c\":\"3\"}}\n",
             "dependencies", "b", "2",
             "{\"name\":\"x\",\"dependencies\":{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\"}}\n");
  expect_set("{\"name\":\"x\"}\n", "devDependencies", "b", "2",
             "{\"name\":\"x\",\"devDependencies\":{\"b\":\"2\"}}\n");
  expect_set("{ \"dependencies\": { \"c\": \"3\" } }", "dependencies", "a", "1",
             "{ \"dependencies\": { \"a\": \"1\", \"c\": \"3\" } }");
  /* first place */
  expect_set("{\n  \"dependencies\": {\n    \"m\": \"1\"\n  }\n}",
             "dependencies", "a", "^1.0.0",
             "{\n  \"dependencies\": {\n    \"a\": \"^1.0.0\",\n    \"m\": \"1\"\n  }\n}");
  /* unsorted: at the end */
  expect_set("{\n    \"dependencies\": {\n        \"z\": \"1\",\n        \"a\": \"1\"\n    }\n}\n",
             "dependencies", "m", "2",
             "{\n    \"dependencies\": {\n        \"z\": \"1\",\n        \"a\": \"1\",\n        \"m\": \"2\"\n    }\n}\n");
  /* tabs and CRLF, a new section */
  expect_set("{\r\n\t\"name\": \"x\",\r\n\t\"version\": \"1.0.0\"\r\n}\r\n",
             "devDependencies", "jest", "^29.0.0",
             "{\r\n\t\"name\": \"x\",\r\n\t\"version\": \"1.0.0\",\r\n\t\"devDependencies\": {\r\n\t\t\"jest\": \"^29.0.0\"\r\n\t}\r\n}\r\n");
  /* an existing entry: its value alone */
  expect_set("{\"dependencies\":{\"a\":\"1\",\"b\":\"2\"}}", "dependencies", "a", "^3.0.0",
             "{\"dependencies\":{\"a\":\"^3.0.0\",\"b\":\"2\"}}");
  /* one line, a new key */
  expect_set("{\"dependencies\": {\"a\": \"1\"}}", "dependencies", "b", "2",
             "{\"dependencies\": {\"a\": \"1\", \"b\": \"2\"}}");
  /* an empty section opens up */
  expect_set("{\n  \"dependencies\": {}\n}\n", "dependencies", "a", "1",
             "{\n  \"dependencies\": {\n    \"a\": \"1\"\n  }\n}\n");
  /* an empty object */
  expect_set("{}\n", "dependencies", "a", "1",
             "{\n  \"dependencies\": {\n    \"a\": \"1\"\n  }\n}\n");
  /* scoped names, values with quotes escaped */
  expect_set("{\n  \"dependencies\": {\n    \"@a/x\": \"1\"\n  }\n}\n", "dependencies", "@b/y",
             "npm:z@\"1\"",
             "{\n  \"dependencies\": {\n    \"@a/x\": \"1\",\n    \"@b/y\": \"npm:z@\\\"1\\\"\"\n  }\n}\n");
}

/* npm 12's allowScripts: a value of another JSON kind, as written */
static void test_pkgjson_edit__set_member(void **state)
{
  static const char *const in = "{\n  \"name\": \"x\",\n  \"allowScripts\": {\n    "
                                "\"esbuild@0.1.0\": true\n  }\n}\n";
  struct nub_buf b = NUB_BUF_INIT;
  struct nub_err err;

  (void)state;
  assert_int_equal(nub_pkgjson_set_member(&b, in, strlen(in), "allowScripts", "scripted@1.0.0",
                                          "false", &err), 0);
  assert_string_equal(nub_buf_str(&b), "{\n  \"name\": \"x\",\n  \"allowScripts\": {\n    "
                                       "\"esbuild@0.1.0\": true,\n    \"scripted@1.0.0\": "
                                       "false\n  }\n}\n");
  nub_buf_release(&b);
  b = (struct nub_buf)NUB_BUF_INIT;
  assert_int_equal(nub_pkgjson_set_member(&b, "{}\n", 3, "allowScripts", "a", "true", &err), 0);
  assert_string_equal(nub_buf_str(&b), "{\n  \"allowScripts\": {\n    \"a\": true\n  }\n}\n");
  nub_buf_release(&b);
}

static void test_pkgjson_edit__remove(void **state)
{
  const char *three = "{\n  \"dependencies\": {\n    \"a\": \"1\",\n    \"b\": \"2\",\n    \"c\": \"3\"\n  },\n  \"x\": 1\n}\n";

  (void)state;
  expect_remove(three, "dependencies", "a",
                "{\n  \"dependencies\": {\n    \"b\": \"2\",\n    \"c\": \"3\"\n  },\n  \"x\": 1\n}\n", true);
  expect_remove(three, "dependencies", "b",
                "{\n  \"dependencies\": {\n    \"a\": \"1\",\n    \"c\": \"3\"\n  },\n  \"x\": 1\n}\n", true);
  expect_remove(three, "dependencies", "c",
                "{\n  \"dependencies\": {\n    \"a\": \"1\",\n    \"b\": \"2\"\n  },\n  \"x\": 1\n}\n", true);
  expect_remove("{\r\n  \"devDependencies\": {\r\n    \"a\": \"1\"\r\n  }\r\n}", "devDependencies",
                "a", "{\r\n  \"devDependencies\": {}\r\n}", true);
  expect_remove(three, "dependencies", "zz", three, false);
  expect_remove(three, "peerDependencies", "a", three, false);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pkgjson_edit__set),
      cmocka_unit_test(test_pkgjson_edit__set_member),
      cmocka_unit_test(test_pkgjson_edit__remove),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
