/* test_json.c - core/json.h: JSON read as strictly as JSON.parse, with the
 * fault's line and column, and field readers that survive wrong types. */
#include <string.h>

#include "nub_test.h"

#include "err.h"
#include "buf.h"
#include "json.h"
#include "manifest.h"
#include "nub_alloc.h"

static int parse(const char *text, size_t len, unsigned flags, struct nub_err *err)
{
  cJSON *root = NULL;
  int rc = nub_json_parse(text, len, "f.json", -NUB_ELOCKFILE, flags, &root, err);
  if (rc == 0)
    assert_non_null(root);
  else
    assert_null(root);
  cJSON_Delete(root);
  return rc;
}

#define P(s) parse((s), sizeof(s) - 1, 0, &err)

static void test_json__accepts_what_json_parse_accepts(void **state)
{
  struct nub_err err;
  (void)state;
  assert_int_equal(P("{}"), 0);
  assert_int_equal(P("  {\"a\": [1, 2, {\"b\": null}]}\n\n"), 0);
  assert_int_equal(P("\xEF\xBB\xBF{\"caf\xC3\xA9\": \"\xF0\x9F\x98\x80\"}"), 0);
  assert_int_equal(P("{\"esc\": \"\\u0001\\n\\t\\\"\"}"), 0);
  assert_int_equal(P("[\"\xE2\x82\xAC\", \"\xF4\x8F\xBF\xBF\"]"), 0);
}

static void test_json__refuses_with_line_and_column(void **state)
{
  struct nub_err err;
  (void)state;
  assert_int_equal(P("{\"a\": 1}\n}\n"), -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "f.json is not valid JSON: unexpected text after the end at "
                                  "line 2 column 1"));
  assert_int_equal(P("{\"a\": 1} garbage"), -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "line 1 column 10"));
  assert_int_equal(P("{\n\"a\x01\": 1}"), -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "control character inside a string at line 2 column 3"));
  assert_int_equal(P("{\"a\": \"tab\there\"}"), -NUB_ELOCKFILE);
  assert_int_equal(P("{\"\xFF\": 1}"), -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "not UTF-8 at line 1 column 3"));
  /* overlong, surrogate, beyond U+10FFFF, truncated sequences */
  assert_int_equal(P("[\"\xC0\xAF\"]"), -NUB_ELOCKFILE);
  assert_int_equal(P("[\"\xE0\x80\xAF\"]"), -NUB_ELOCKFILE);
  assert_int_equal(P("[\"\xED\xA0\x80\"]"), -NUB_ELOCKFILE);
  assert_int_equal(P("[\"\xF4\x90\x80\x80\"]"), -NUB_ELOCKFILE);
  assert_int_equal(P("[\"\xE2\x82\"]"), -NUB_ELOCKFILE);
  /* a NUL byte ends nothing: it is a fault where it stands */
  assert_int_equal(parse("{\"a\": 1}\0{}", 11, 0, &err), -NUB_ELOCKFILE);
  assert_int_equal(parse("{\"a\0b\": 1}", 10, 0, &err), -NUB_ELOCKFILE);
  /* nor between tokens, where cJSON would take it (and any control
   * character) for whitespace */
  assert_int_equal(parse("{\0\"a\": 1}", 10, 0, &err), -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "a NUL byte at line 1 column 2"));
  assert_int_equal(parse("[1,\0 2]", 7, 0, &err), -NUB_ELOCKFILE);
  assert_int_equal(P("{\"a\":\x01 1}"), -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "control character outside a string"));
  assert_int_equal(P("{\"a\":\t1,\r\n\"b\": 2}"), 0);
  assert_int_equal(P(""), -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "ends early"));
  assert_int_equal(P("{\"a\": "), -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "ends early"));
  assert_int_equal(P("{\n  \"a\": ^1\n}"), -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "unexpected input at line 2 column 8"));
  assert_int_equal(P("{\n<<<<<<< HEAD\n}"), -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "merge-conflict"));
  assert_int_equal(P("{\"a\": [1,]}"), -NUB_ELOCKFILE);
}

static void test_json__depth_is_bounded(void **state)
{
  struct nub_err err;
  size_t n = 100000;
  char *deep = nub_malloc(2 * n + 1);
  (void)state;
  memset(deep, '[', n);
  memset(deep + n, ']', n);
  deep[2 * n] = '\0';
  assert_int_equal(parse(deep, 2 * n, 0, &err), -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "nesting deeper than 512 levels at line 1 column 513"));
  assert_int_equal(parse(deep + n - 100, 200, 0, &err), 0);
  nub_free(deep);
}

static void test_json__trailing_commas_when_asked(void **state)
{
  struct nub_err err;
  static const char t[] = "{\n  \"a\": [1, 2,\n  ],\n  \"b\": {\"c\": \",}\",},\n}\n";
  static const char bad[] = "{\n  \"a\": [1,\n  ],\n  x\n}";
  (void)state;
  assert_int_equal(parse(t, sizeof(t) - 1, NUB_JSON_TRAILING_COMMAS, &err), 0);
  assert_int_equal(parse(t, sizeof(t) - 1, 0, &err), -NUB_ELOCKFILE);
  /* positions are those of the file, commas and all */
  assert_int_equal(parse(bad, sizeof(bad) - 1, NUB_JSON_TRAILING_COMMAS, &err), -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "at line 4 column"));
}

static void test_json__fields_of_the_wrong_type(void **state)
{
  struct nub_err err;
  cJSON *root;
  struct nub_depmap m;
  char **v;
  size_t n;
  struct nub_bin *bins;
  static const char t[] = "{\"name\": 3, \"dependencies\": [\"a\"], \"optionalDependencies\": "
                          "{\"x\": 1, \"y\": \"^2\"}, \"os\": \"linux\", \"cpu\": [1, \"x64\"], "
                          "\"bin\": {\"../evil\": \"a.js\", \"ok\": \"./bin/ok.js\", \"n\": 5}}";
  (void)state;
  assert_int_equal(nub_json_parse(t, sizeof(t) - 1, "p", -NUB_EMANIFEST, 0, &root, &err), 0);
  assert_null(nub_json_str(root, "name"));
  assert_null(nub_json_str(root, "missing"));
  assert_false(nub_json_true(root, "name"));
  nub_json_depmap(cJSON_GetObjectItemCaseSensitive(root, "dependencies"), &m);
  assert_int_equal(m.n, 0);
  nub_json_depmap(cJSON_GetObjectItemCaseSensitive(root, "optionalDependencies"), &m);
  assert_int_equal(m.n, 2);
  assert_string_equal(nub_depmap_get(&m, "x"), "*");
  assert_string_equal(nub_depmap_get(&m, "y"), "^2");
  nub_depmap_release(&m);
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(root, "os"), &v, &n);
  assert_int_equal(n, 1);
  assert_string_equal(v[0], "linux");
  nub_strarray_free(v, n);
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(root, "cpu"), &v, &n);
  assert_int_equal(n, 1);
  assert_string_equal(v[0], "x64");
  nub_strarray_free(v, n);
  nub_json_bins(root, "p", &bins, &n);
  assert_int_equal(n, 1);
  assert_string_equal(bins[0].name, "ok");
  assert_string_equal(bins[0].target, "bin/ok.js");
  nub_free(bins[0].name);
  nub_free(bins[0].target);
  nub_free(bins);
  cJSON_Delete(root);
}

/* Of equal keys the last wins, as under JSON.parse, in small and big
 * objects and at any depth; package.json readers see the same. */
static void test_json__the_last_of_equal_keys(void **state)
{
  static const char small[] = "{\"a\":1,\"b\":{\"x\":1,\"x\":[2]},\"a\":3}";
  struct nub_buf big = NUB_BUF_INIT;
  struct nub_manifest m;
  struct nub_err err;
  cJSON *root = NULL;
  static const char pj[] = "{\"name\":\"p\",\"version\":\"1.0.0\",\"scripts\":{},"
                           "\"dependencies\":{\"a\":\"1\"},\"scripts\":{\"postinstall\":"
                           "\"node x\"},\"dependencies\":{\"b\":\"2\"}}";

  (void)state;
  assert_int_equal(nub_json_parse(small, sizeof(small) - 1, "f.json", -NUB_ELOCKFILE, 0, &root,
                                  &err), 0);
  assert_int_equal(cJSON_GetArraySize(root), 2);
  assert_int_equal(cJSON_GetObjectItem(root, "a")->valueint, 3);
  assert_true(cJSON_IsArray(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "b"), "x")));
  cJSON_Delete(root);

  nub_buf_adds(&big, "{");
  for (int i = 0; i < 40; i++)
    nub_buf_addf(&big, "\"k%d\":%d,", i % 30, i);
  nub_buf_adds(&big, "\"end\":0}");
  assert_int_equal(nub_json_parse(big.data, big.len, "f.json", -NUB_ELOCKFILE, 0, &root, &err),
                   0);
  assert_int_equal(cJSON_GetArraySize(root), 31);
  assert_int_equal(cJSON_GetObjectItem(root, "k5")->valueint, 35);
  assert_int_equal(cJSON_GetObjectItem(root, "k29")->valueint, 29);
  cJSON_Delete(root);
  nub_buf_release(&big);

  assert_int_equal(nub_manifest_parse(&m, pj, sizeof(pj) - 1, "package.json", &err), 0);
  assert_non_null(m.postinstall);
  assert_string_equal(m.postinstall, "node x");
  assert_int_equal(m.deps.n, 1);
  assert_string_equal(m.deps.v[0].name, "b");
  nub_manifest_release(&m);
}

/* Overrides of every tool as the resolver's "[parent>]name[@range]" keys:
 * npm's nested objects keep scoped names whole and a key's range (which the
 * resolver matches as npm does), yarn's paths give the last package under
 * its parent. */
static void test_json__override_keys(void **state)
{
  static const char pj[] =
      "{\"name\":\"p\",\"overrides\":{\"foo\":{\"@s/bar\":\"1\",\".\":\"2\"},"
      "\"@s/x@^1\":\"3\"},\"resolutions\":{\"**/q\":\"4\",\"a/b/c\":\"5\","
      "\"@s/a/@t/b\":\"6\",\"@s/lone\":\"7\"},\"pnpm\":{\"overrides\":{\"m>n\":\"8\"}}}";
  static const char *const want[][2] = {
      {"foo>@s/bar", "1"}, {"foo", "2"}, {"@s/x@^1", "3"}, {"q", "4"}, {"b>c", "5"},
      {"@s/a>@t/b", "6"}, {"@s/lone", "7"}, {"m>n", "8"}};
  struct nub_manifest m;
  struct nub_err err;

  (void)state;
  assert_int_equal(nub_manifest_parse(&m, pj, sizeof(pj) - 1, "package.json", &err), 0);
  assert_int_equal(m.overrides.n, 8);
  for (size_t i = 0; i < 8; i++) {
    const char *v = nub_depmap_get(&m.overrides, want[i][0]);
    if (!v || strcmp(v, want[i][1]))
      fail_msg("override %s: %s, want %s", want[i][0], v ? v : "(none)", want[i][1]);
  }
  nub_manifest_release(&m);
}

static void test_json__unconflict(void **state)
{
  /* npm's parse-conflict-json: both sides' keys, objects merged key by
   * key, ours where both have another value */
  static const char t[] = "{\n"
                          "  \"a\": {\n"
                          "<<<<<<< HEAD\n"
                          "    \"x\": 1,\n"
                          "    \"v\": \"ours\"\n"
                          "=======\n"
                          "    \"y\": 2,\n"
                          "    \"v\": \"theirs\"\n"
                          ">>>>>>> branch\n"
                          "  }\n"
                          "}\n";
  struct nub_err err;
  cJSON *doc;

  (void)state;
  nub_err_clear(&err);
  assert_int_equal(nub_json_unconflict(t, strlen(t), "x.json", -NUB_ELOCKFILE, 0, &doc, &err), 0);
  {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(doc, "a");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(a, "x")->valueint, 1);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(a, "y")->valueint, 2);
    assert_string_equal(nub_json_str(a, "v"), "ours");
  }
  cJSON_Delete(doc);
  /* a side that is no JSON: the file named, resolve by hand */
  assert_int_equal(nub_json_unconflict("<<<<<<< a\n{\n=======\n{}\n>>>>>>> b\n", 33, "x.json",
                                       -NUB_ELOCKFILE, 0, &doc, &err),
                   -NUB_ELOCKFILE);
  assert_null(doc);
  assert_non_null(strstr(err.msg, "x.json has merge-conflict markers"));
  assert_non_null(strstr(err.msg, "by hand"));
}

static void test_json__pretty_as_javascript_writes_it(void **state)
{
  cJSON *v = cJSON_Parse("{\"z\":[\"1\",2,true,null],\"a\":{},\"e\":[],\"q\":\"x\\\"y\",\"o\":{\"k\":1.5}}");
  struct nub_buf b = NUB_BUF_INIT;
  (void)state;

  nub_json_pretty(v, &b);
  nub_buf_addc(&b, '\0');
  /* JSON.stringify(v, null, 2): keys in their order */
  assert_string_equal(b.data, "{\n  \"z\": [\n    \"1\",\n    2,\n    true,\n    null\n  ],\n"
                              "  \"a\": {},\n  \"e\": [],\n  \"q\": \"x\\\"y\",\n"
                              "  \"o\": {\n    \"k\": 1.5\n  }\n}");
  nub_buf_release(&b);
  cJSON_Delete(v);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_json__unconflict),
      cmocka_unit_test(test_json__accepts_what_json_parse_accepts),
      cmocka_unit_test(test_json__refuses_with_line_and_column),
      cmocka_unit_test(test_json__depth_is_bounded),
      cmocka_unit_test(test_json__trailing_commas_when_asked),
      cmocka_unit_test(test_json__fields_of_the_wrong_type),
      cmocka_unit_test(test_json__the_last_of_equal_keys),
      cmocka_unit_test(test_json__override_keys),
      cmocka_unit_test(test_json__pretty_as_javascript_writes_it),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
