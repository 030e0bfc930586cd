/* test_lockfile_npm.c - core/lockfile_npm.h and lockfile_bun.h: the plan an
 * npm or bun lockfile gives (the basic fixture in v1, v2, v3 and bun.lock:
 * the same tree), and what a damaged entry does. Also hoist_npm.h and tree_graph.h: that tree
 * as a graph and back. */
#include "nub_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config.h"
#include "hoist_npm.h"
#include "tree_graph.h"
#include "err.h"
#include "graph.h"
#include "lockfile_bun.h"
#include "lockfile_npm.h"
#include "nub_alloc.h"
#include "pkgtab.h"
#include "tree.h"

#ifndef NUB_SOURCE_DIR
#error "NUB_SOURCE_DIR must name the source tree"
#endif

/* A well-formed sha512 SRI of its own for every name@version. */
static void fake_sri(const char *id, size_t n, struct nub_buf *out)
{
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  unsigned char d[66];
  for (size_t i = 0; i < 66; i++)
    d[i] = (unsigned char)(id[i % n] * (i + 1));
  d[64] = d[65] = 0;
  nub_buf_adds(out, "sha512-");
  for (size_t i = 0; i < 64; i += 3) {
    unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8 | d[i + 2];
    nub_buf_addc(out, tab[(v >> 18) & 63]);
    nub_buf_addc(out, tab[(v >> 12) & 63]);
    nub_buf_addc(out, i + 1 < 64 ? tab[(v >> 6) & 63] : '=');
    nub_buf_addc(out, i + 2 < 64 ? tab[v & 63] : '=');
  }
}

/* A fixture template with the registry and every integrity filled in. */
static char *render(const char *rel, size_t *len)
{
  char *path = nub_asprintf("%s/tests/fixtures/projects/%s", NUB_SOURCE_DIR, rel);
  FILE *fp = fopen(path, "rb");
  struct nub_buf in = NUB_BUF_INIT, out = NUB_BUF_INIT;
  char chunk[8192];
  size_t n;

  if (!fp)
    fail_msg("cannot open %s", path);
  while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
    nub_buf_add(&in, chunk, n);
  fclose(fp);
  for (const char *p = in.data; p && *p;) {
    if (!strncmp(p, "@@REGISTRY@@", 12)) {
      nub_buf_adds(&out, "http://127.0.0.1:9");
      p += 12;
    } else if (!strncmp(p, "@@INTEGRITY:", 12)) {
      const char *e = strstr(p + 12, "@@");
      if (!e)
        e = p + strlen(p);
      fake_sri(p + 12, (size_t)(e - p - 12), &out);
      p = *e ? e + 2 : e;
    } else {
      nub_buf_addc(&out, *p++);
    }
  }
  nub_free(path);
  nub_buf_release(&in);
  *len = out.len;
  return nub_buf_take(&out);
}

static struct nub_config cfg;
static bool have_cfg;

static int group_setup(void **state)
{
  struct nub_err err;
  (void)state;
  setenv("npm_config_registry", "http://127.0.0.1:9/", 1);
  setenv("npm_config_globalconfig", "/nonexistent", 1);
  setenv("HOME", "/nonexistent", 1);
  assert_int_equal(nub_config_load(&cfg, "/nonexistent-project", NULL, 0, &err), 0);
  have_cfg = true;
  return 0;
}

static int group_teardown(void **state)
{
  (void)state;
  if (have_cfg)
    nub_config_release(&cfg);
  return 0;
}

static const struct nub_node *node(const struct nub_tree *t, const char *path)
{
  long i = nub_tree_lookup(t, path);
  if (i < 0)
    fail_msg("no node %s", path);
  return &t->nodes[i];
}

static void check_basic(const struct nub_tree *t, bool has_platforms)
{
  assert_string_equal(node(t, "node_modules/a")->pkg->version, "1.0.0");
  assert_string_equal(node(t, "node_modules/b")->pkg->version, "1.0.0");
  assert_string_equal(node(t, "node_modules/c/node_modules/b")->pkg->version, "2.0.0");
  assert_int_equal(node(t, "node_modules/c/node_modules/b")->depth, 2);
  assert_string_equal(node(t, "node_modules/@scope/d")->folder, "@scope/d");
  assert_true(node(t, "node_modules/opt-linux")->flags & NUB_NF_OPTIONAL);
  assert_true(node(t, "node_modules/dev-only")->flags & NUB_NF_DEV);
  /* b@1 and b@2 are two packages; the two opt-* have their platforms */
  assert_ptr_not_equal(node(t, "node_modules/b")->pkg,
                       node(t, "node_modules/c/node_modules/b")->pkg);
  if (has_platforms) /* v1 lockfiles do not record os/cpu */
    assert_int_equal(node(t, "node_modules/opt-win")->nos, 1);
}

static void test_npm__every_version_gives_the_same_tree(void **state)
{
  static const char *const files[] = {"basic/package-lock.v1.json", "basic/package-lock.v2.json",
                                      "basic/package-lock.v3.json"};
  (void)state;
  for (int i = 0; i < 3; i++) {
    struct nub_pkgtab pt;
    struct nub_tree t;
    struct nub_err err;
    size_t len;
    char *text = render(files[i], &len);
    memset(&pt, 0, sizeof(pt));
    nub_tree_init(&t, &pt);
    assert_int_equal(nub_lockfile_npm_parse(&t, text, len, "package-lock.json", &cfg, &err), 0);
    check_basic(&t, i > 0);
    assert_int_equal(pt.n, 10); /* a, b@1, b@2, c, @scope/d, e, dev-only, three opt-* */
    nub_tree_release(&t);
    nub_pkgtab_release(&pt);
    nub_free(text);
  }
}

static void test_bun__the_same_tree(void **state)
{
  struct nub_pkgtab pt;
  struct nub_tree t;
  struct nub_err err;
  size_t len;
  char *text = render("basic/bun.lock.template", &len);
  (void)state;
  memset(&pt, 0, sizeof(pt));
  nub_tree_init(&t, &pt);
  assert_int_equal(nub_lockfile_bun_parse(&t, text, len, "bun.lock", &cfg, &err), 0);
  check_basic(&t, true);
  nub_tree_release(&t);
  nub_pkgtab_release(&pt);
  nub_free(text);
}

/* An empty spec string: no name to read past a scope's '@' (read a byte
 * beyond the string before). */
static void test_bun__an_empty_spec(void **state)
{
  static const char text[] = "{\"lockfileVersion\": 1, \"workspaces\": {\"\": {\"name\": \"x\"}},"
                             " \"packages\": {\"a\": [\"\"]}}";
  struct nub_pkgtab pt;
  struct nub_tree t;
  struct nub_err err;
  (void)state;
  memset(&pt, 0, sizeof(pt));
  nub_tree_init(&t, &pt);
  assert_int_equal(nub_lockfile_bun_parse(&t, text, strlen(text), "bun.lock", &cfg, &err),
                   -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "has a bad spec ''"));
  nub_tree_release(&t);
  nub_pkgtab_release(&pt);
}

static int parse_str(const char *text, struct nub_err *err)
{
  struct nub_pkgtab pt;
  struct nub_tree t;
  int rc;
  memset(&pt, 0, sizeof(pt));
  nub_tree_init(&t, &pt);
  rc = nub_lockfile_npm_parse(&t, text, strlen(text), "package-lock.json", &cfg, err);
  nub_tree_release(&t);
  nub_pkgtab_release(&pt);
  return rc;
}

static void test_npm__damaged_entries(void **state)
{
  struct nub_err err;
  (void)state;
  /* wrong types and missing fields are errors naming the entry, never crashes */
  assert_int_equal(parse_str("{\"lockfileVersion\":3,\"packages\":{\"node_modules/a\":3}}", &err),
                   -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "node_modules/a"));
  assert_int_equal(parse_str("{\"lockfileVersion\":3,\"packages\":{\"node_modules/a\":{}}}", &err),
                   -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "has no version"));
  assert_int_equal(parse_str("{\"lockfileVersion\":3,\"packages\":{\"node_modules/../x\":"
                             "{\"version\":\"1.0.0\"}}}", &err), -NUB_EUNSAFE);
  assert_int_equal(parse_str("{\"lockfileVersion\":3,\"packages\":{\"node_modules/a\":"
                             "{\"version\":\"1.0.0\",\"integrity\":\"md5-x\"}}}", &err),
                   -NUB_ELOCKFILE);
  /* a git entry names its commit (npm always writes it); without, it is damaged */
  assert_int_equal(parse_str("{\"lockfileVersion\":3,\"packages\":{\"node_modules/a\":"
                             "{\"version\":\"1.0.0\",\"resolved\":\"git+ssh://h/x.git\"}}}", &err),
                   -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "without its commit"));
  assert_int_equal(parse_str("{\"lockfileVersion\":3,\"packages\":{\"node_modules/a\":"
                             "{\"version\":\"1.0.0\",\"resolved\":\"git+ssh://h/x.git#"
                             "0123456789abcdef0123456789abcdef01234567\"}}}", &err), 0);
  /* another form of git nub cannot install from */
  assert_int_equal(parse_str("{\"lockfileVersion\":3,\"packages\":{\"node_modules/a\":"
                             "{\"version\":\"1.0.0\",\"resolved\":\"github:u/x\"}}}", &err),
                   -NUB_ESPEC);
  assert_int_equal(parse_str("{\"lockfileVersion\":3,\"packages\":{\"node_modules/a/node_modules/b\":"
                             "{\"version\":\"1.0.0\"}}}", &err), -NUB_ELOCKFILE);
  assert_non_null(strstr(err.msg, "nested"));
  /* 4 is npm 12's with patches (read as 3 with "patched" entries); 5 is unknown */
  assert_int_equal(parse_str("{\"lockfileVersion\":5}", &err), -NUB_ELOCKVERSION);
  assert_int_equal(parse_str("{\"lockfileVersion\":4}", &err), -NUB_ELOCKFILE);
  assert_int_equal(parse_str("{\"lockfileVersion\":3,\"packages\":[]}", &err), -NUB_ELOCKFILE);
  assert_int_equal(parse_str("{\"lockfileVersion\":1,\"dependencies\":{\"a\":"
                             "{\"version\":1}}}", &err), -NUB_ELOCKFILE);
  /* a value of the wrong type in a field nub only reads is taken as absent */
  assert_int_equal(parse_str("{\"lockfileVersion\":3,\"packages\":{\"node_modules/a\":"
                             "{\"version\":\"1.0.0\",\"dependencies\":[1],\"os\":7,"
                             "\"bin\":\"x\",\"dev\":\"yes\"}}}", &err), 0);
}

static void test_convert__tree_to_graph_and_back(void **state)
{
  struct nub_pkgtab pt, pt2;
  struct nub_tree t, back;
  struct nub_graph g;
  struct nub_manifest m;
  struct nub_err err;
  size_t len;
  char *text = render("basic/package-lock.v3.json", &len);
  static const char pj[] = "{\"name\":\"basic\",\"dependencies\":{\"a\":\"^1.0.0\",\"c\":\"^1.0.0\","
                           "\"@scope/d\":\"^1.0.0\",\"e\":\"^1.0.0\"},\"devDependencies\":"
                           "{\"dev-only\":\"^1.0.0\"},\"optionalDependencies\":{\"opt-linux\":"
                           "\"^1.0.0\",\"opt-darwin\":\"^1.0.0\",\"opt-win\":\"^1.0.0\"}}";
  (void)state;
  memset(&pt, 0, sizeof(pt));
  memset(&pt2, 0, sizeof(pt2));
  nub_tree_init(&t, &pt);
  assert_int_equal(nub_lockfile_npm_parse(&t, text, len, "package-lock.json", &cfg, &err), 0);
  assert_int_equal(nub_manifest_parse(&m, pj, sizeof(pj) - 1, "package.json", &err), 0);
  nub_graph_init(&g);
  assert_int_equal(nub_graph_from_tree(&g, &t, &m, NULL, &err), 0);
  nub_graph_sort(&g);
  assert_non_null(nub_graph_find(&g, "b@1.0.0"));
  assert_non_null(nub_graph_find(&g, "b@2.0.0"));
  assert_int_equal(g.nimporters, 1);
  /* npm's placement again: b@1 hoisted (a's, the first), b@2 nested under c */
  nub_tree_init(&back, &pt2);
  assert_int_equal(nub_tree_from_graph(&back, &g, NULL, &cfg, &err), 0);
  assert_string_equal(node(&back, "node_modules/c/node_modules/b")->pkg->version, "2.0.0");
  assert_string_equal(node(&back, "node_modules/b")->pkg->version, "1.0.0");
  nub_tree_release(&back);
  nub_graph_release(&g);
  nub_manifest_release(&m);
  nub_tree_release(&t);
  nub_pkgtab_release(&pt);
  nub_pkgtab_release(&pt2);
  nub_free(text);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_npm__every_version_gives_the_same_tree),
      cmocka_unit_test(test_bun__the_same_tree),
      cmocka_unit_test(test_bun__an_empty_spec),
      cmocka_unit_test(test_npm__damaged_entries),
      cmocka_unit_test(test_convert__tree_to_graph_and_back),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
