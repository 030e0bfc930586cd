/* test_berry.c - core/berry.h: the tree yarn berry's node_modules linker
 * builds from its lockfile, on the fixture projects berry 4.18.1 made
 * (tests/fixtures/projects/berry*): where each package goes, which
 * instance of a package with peers, what the conditions leave out; and
 * the compat patch's reference. */
#include "nub_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "berry.h"
#include "buf.h"
#include "integrity.h"
#include "lockfile_berry.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "patchfile.h"

#ifndef NUB_SOURCE_DIR
#error "NUB_SOURCE_DIR must name the source tree"
#endif

static char *slurp(const char *rel, size_t *len)
{
  char *path = nub_asprintf("%s/tests/fixtures/projects/%s", NUB_SOURCE_DIR, rel);
  FILE *fp = fopen(path, "rb");
  struct nub_buf b = NUB_BUF_INIT;
  char chunk[8192];
  size_t n;

  if (!fp)
    fail_msg("cannot open %s", path);
  while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
    nub_buf_add(&b, chunk, n);
  fclose(fp);
  nub_free(path);
  nub_buf_addc(&b, '\0');
  *len = b.len - 1;
  return b.data;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The places for project `proj` (members: its package.json dirs) on
 * os/cpu, as "path" or "path -> link", sorted, one string. */
static char *place(const char *proj, const char *const *members, size_t nmembers,
                   const char *os, const struct nub_compat_row *exts, size_t nexts,
                   int *rc_out, struct nub_err *err)
{
  char *rel = nub_asprintf("%s/yarn.lock", proj), *text;
  size_t len, nws = nmembers + 1, n = 0;
  struct nub_berry_lock l;
  struct nub_manifest *mans = nub_calloc(nws, sizeof(*mans));
  struct nub_berry_ws *ws = nub_calloc(nws, sizeof(*ws));
  struct nub_berry_opts o;
  struct nub_berry_place *pl = NULL;
  struct nub_buf out = NUB_BUF_INIT;
  char **lines;

  text = slurp(rel, &len);
  nub_free(rel);
  assert_int_equal(nub_lockfile_berry_parse(&l, text, len, "yarn.lock", err), 0);
  for (size_t i = 0; i < nws; i++) {
    char *dir = i ? nub_asprintf("%s/tests/fixtures/projects/%s/%s", NUB_SOURCE_DIR, proj,
                                 members[i - 1])
                  : nub_asprintf("%s/tests/fixtures/projects/%s", NUB_SOURCE_DIR, proj);
    assert_int_equal(nub_manifest_load(&mans[i], dir, err), 0);
    nub_free(dir);
    ws[i].dir = i ? members[i - 1] : "";
    ws[i].man = &mans[i];
  }
  memset(&o, 0, sizeof(o));
  o.os = os;
  o.cpu = "x64";
  o.libc = "glibc";
  o.exts = exts;
  o.nexts = nexts;
  o.resolutions = mans[0].overrides.n ? &mans[0].overrides : NULL;
  *rc_out = nub_berry_place(&l, ws, nws, &o, &pl, &n, err);
  lines = nub_calloc(n + 1, sizeof(char *));
  for (size_t i = 0; i < n; i++)
    lines[i] = pl[i].link ? nub_asprintf("%s -> %s", pl[i].path, pl[i].link)
                          : nub_asprintf("%s %s", pl[i].path, pl[i].entry->version);
  qsort(lines, n, sizeof(char *), cmp_str);
  for (size_t i = 0; i < n; i++) {
    nub_buf_adds(&out, lines[i]);
    nub_buf_addc(&out, '\n');
  }
  nub_buf_addc(&out, '\0');
  nub_strarray_free(lines, n);
  nub_berry_places_free(pl, n);
  for (size_t i = 0; i < nws; i++)
    nub_manifest_release(&mans[i]);
  nub_free(mans);
  nub_free(ws);
  nub_berry_lock_release(&l);
  nub_free(text);
  return out.data;
}

static const struct nub_compat_row e_gets_tagged[] = {{"e@*", 'd', "tagged", "^1.0.0"}};

static void test_berry__project(void **state)
{
  struct nub_err err;
  int rc;
  char *got;

  (void)state;
  got = place("berry", NULL, 0, "linux", e_gets_tagged, 1, &rc, &err);
  assert_int_equal(rc, 0);
  /* plugin: one instance under host-a (react-like 1, at the top) and one
   * under host-b (with its react-like 2); debug kept under uses-debug with
   * the supports-color it peers on (berry's built-in extension); twin's b
   * from the resolutions; tagged from the project's extension of e */
  assert_string_equal(got,
                      "node_modules/@scope/d 1.0.0\n"
                      "node_modules/a 1.0.0\n"
                      "node_modules/aa-uses-z 1.0.0\n"
                      "node_modules/b 1.0.0\n"
                      "node_modules/b-two 2.0.0\n"
                      "node_modules/bin-a 1.0.0\n"
                      "node_modules/bin-z 1.0.0\n"
                      "node_modules/c 1.0.0\n"
                      "node_modules/c/node_modules/b 2.0.0\n"
                      "node_modules/e 1.0.0\n"
                      "node_modules/host-a 1.0.0\n"
                      "node_modules/host-b 1.0.0\n"
                      "node_modules/host-b/node_modules/plugin 1.0.0\n"
                      "node_modules/host-b/node_modules/react-like 2.0.0\n"
                      "node_modules/opt-linux 1.0.0\n"
                      "node_modules/peer-host 1.0.0\n"
                      "node_modules/plugin 1.0.0\n"
                      "node_modules/react-like 1.0.0\n"
                      "node_modules/supports-color 1.0.0\n"
                      "node_modules/tagged 1.1.0\n"
                      "node_modules/twin 1.0.0\n"
                      "node_modules/twin/node_modules/b 2.0.0\n"
                      "node_modules/typescript 5.0.0\n"
                      "node_modules/uses-debug 1.0.0\n"
                      "node_modules/uses-debug/node_modules/debug 4.1.0\n"
                      "node_modules/uses-debug/node_modules/supports-color 2.0.0\n"
                      "node_modules/zz-uses-a 1.0.0\n");
  nub_free(got);
  /* another machine: its optional package instead; without the project's
   * extension, no tagged */
  got = place("berry", NULL, 0, "darwin", NULL, 0, &rc, &err);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(got, "node_modules/opt-darwin 1.0.0\n"));
  assert_null(strstr(got, "opt-linux"));
  assert_null(strstr(got, "tagged"));
  nub_free(got);
}

static void test_berry__workspace(void **state)
{
  static const char *const members[] = {"packages/app", "packages/lib", "packages/tool"};
  struct nub_err err;
  int rc;
  char *got;

  (void)state;
  got = place("berry-workspace", members, 3, "linux", NULL, 0, &rc, &err);
  assert_int_equal(rc, 0);
  /* members linked at the top, lib's b@2 in its own folder (the root has
   * b@1), link: to the project's folder */
  assert_string_equal(got,
                      "node_modules/@fx/lib -> packages/lib\n"
                      "node_modules/a 1.0.0\n"
                      "node_modules/app -> packages/app\n"
                      "node_modules/b 1.0.0\n"
                      "node_modules/c 1.0.0\n"
                      "node_modules/c/node_modules/b 2.0.0\n"
                      "node_modules/host-b 1.0.0\n"
                      "node_modules/host-b/node_modules/plugin 1.0.0\n"
                      "node_modules/host-b/node_modules/react-like 2.0.0\n"
                      "node_modules/local -> vendor/local\n"
                      "node_modules/react-like 1.0.0\n"
                      "node_modules/tool -> packages/tool\n"
                      "node_modules/twin 1.0.0\n"
                      "packages/lib/node_modules/b 2.0.0\n");
  nub_free(got);
}

static void test_berry__unpatched(void **state)
{
  char *s;

  (void)state;
  s = nub_berry_unpatched("patch:typescript@npm%3A5.9.3#optional!builtin<compat/typescript>"
                          "::version=5.9.3&hash=5786d5");
  assert_string_equal(s, "npm:5.9.3");
  nub_free(s);
  s = nub_berry_unpatched("patch:@s/x@npm%3A1.0.0#optional!builtin<compat/x>");
  assert_string_equal(s, "npm:1.0.0");
  nub_free(s);
  /* a patch of the project's: what it patches, and its file from the root
   * (relative to the workspace that asked for it, or to the root with ~/) */
  s = nub_berry_unpatched("patch:e@npm%3A1.0.0#./e.patch::version=1.0.0");
  assert_string_equal(s, "npm:1.0.0");
  nub_free(s);
  s = nub_berry_patch_file("patch:e@npm%3A1.0.0#./e.patch::version=1.0.0&locator="
                           "p%40workspace%3Apackages%2Fa");
  assert_string_equal(s, "packages/a/e.patch");
  nub_free(s);
  s = nub_berry_patch_file("patch:e@npm%3A1.0.0#~/.yarn/patches/e.patch::version=1.0.0");
  assert_string_equal(s, ".yarn/patches/e.patch");
  nub_free(s);
  /* none: a compat patch, no locator for a relative path, a path out of
   * the project, several files */
  assert_null(nub_berry_patch_file("patch:x@npm%3A1.0.0#optional!builtin<compat/x>"));
  assert_null(nub_berry_patch_file("patch:e@npm%3A1.0.0#./e.patch::version=1.0.0"));
  assert_null(nub_berry_patch_file("patch:e@npm%3A1.0.0#~/../e.patch"));
  assert_null(nub_berry_patch_file("patch:e@npm%3A1.0.0#~/a.patch&~/b.patch"));
  /* no patch at all */
  assert_null(nub_berry_unpatched("npm:1.0.0"));
}

/* berry's builtin patches decode to the texts yarn 4.18.1 carries (their
 * SHA-256 as ci/gen-berry-patches.sh recorded it), each one patch file
 * whose parts name the versions they are for. */
static void test_berry__compat_patches(void **state)
{
  static const struct {
    const char *name, *sha256;
    size_t len, nops;
  } cases[] = {
      {"fsevents", "c62b08088fa21dbb19db74069951f179ad4ffb32004ca1ee317488baae9c6738", 7869, 6},
      {"resolve", "307623eb03334703208bf128f2175e425819abf00e359079afd6d630360691dd", 4798, 1},
      {"typescript", "a09a70449c5b921585d3b0e3b564ba0225ab01f0661833b3e15b4ad693656669", 4122362,
       198},
  };
  struct nub_err err;

  (void)state;
  assert_int_equal(nub_crypto_init(&err), 0);
  for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
    char *text = NULL, hex[65];
    unsigned char h[32];
    size_t len = 0;
    struct nub_patch p;
    char spec[64];
    snprintf(spec, sizeof(spec), "builtin<compat/%s>", cases[i].name);
    assert_int_equal(nub_berry_compat_patch(spec, &text, &len), 0);
    assert_int_equal(len, cases[i].len);
    assert_int_equal(strlen(text), len);
    nub_sha256(text, len, h);
    nub_hex(h, 32, hex);
    assert_string_equal(hex, cases[i].sha256);
    assert_int_equal(nub_patch_parse(text, len, &p, &err), 0);
    if (cases[i].nops)
      assert_int_equal(p.nops, cases[i].nops);
    for (size_t k = 0; k < p.nops; k++)
      assert_non_null(p.ops[k].only_for);
    nub_patch_release(&p);
    nub_free(text);
  }
  {
    char *text = (char *)"x";
    size_t len = 1;
    assert_int_equal(nub_berry_compat_patch("builtin<compat/left-pad>", &text, &len), -ENOENT);
    assert_int_equal(nub_berry_compat_patch("builtin<compat/typescript", &text, &len), -ENOENT);
    assert_null(text);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_berry__project),
      cmocka_unit_test(test_berry__workspace),
      cmocka_unit_test(test_berry__unpatched),
      cmocka_unit_test(test_berry__compat_patches),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
