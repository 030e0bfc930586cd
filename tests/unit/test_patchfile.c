/* test_patchfile.c - core/base/patchfile.h: patch files as pnpm reads and
 * applies them (its patch-package's rules): data-driven cases of a file,
 * a patch and what pnpm makes of them. */
#include "nub_test.h"

#include <errno.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "patchfile.h"

/* What `pnpm patch-commit` wrote for an edit and a new file. */
static const char PNPM_PATCH[] =
    "diff --git a/added.txt b/added.txt\n"
    "new file mode 100644\n"
    "index 0000000000000000000000000000000000000000..fa49b077972391ad58037050f2a75f74e3671e92\n"
    "--- /dev/null\n"
    "+++ b/added.txt\n"
    "@@ -0,0 +1 @@\n"
    "+new file\n"
    "diff --git a/index.js b/index.js\n"
    "index e80f298eb3889c3e90d845c22868b25069fc5b8a..bec40921bb36ba2de3a8ce9aaa5e815766c2adc1 100644\n"
    "--- a/index.js\n"
    "+++ b/index.js\n"
    "@@ -2,6 +2,6 @@\n"
    " // Fixture package for nub's e2e tests.\n"
    " module.exports = {\n"
    "   name: \"b\",\n"
    "-  version: \"1.0.0\",\n"
    "+  version: \"1.0.0-patched\",\n"
    "   deps: {},\n"
    " };\n";

static const char INDEX_JS[] = "'use strict';\n"
                               "// Fixture package for nub's e2e tests.\n"
                               "module.exports = {\n"
                               "  name: \"b\",\n"
                               "  version: \"1.0.0\",\n"
                               "  deps: {},\n"
                               "};\n";

static void test_patchfile__pnpm_written(void **state)
{
  struct nub_patch p;
  struct nub_err err;
  struct nub_buf out = NUB_BUF_INIT;

  (void)state;
  assert_int_equal(nub_patch_parse(PNPM_PATCH, strlen(PNPM_PATCH), &p, &err), 0);
  assert_int_equal(p.nops, 2);
  assert_int_equal(p.ops[0].kind, NUB_PATCH_CREATE);
  assert_string_equal(p.ops[0].path, "added.txt");
  assert_int_equal(p.ops[0].mode, 0644);
  nub_patch_created(&p.ops[0], &out);
  assert_string_equal(nub_buf_str(&out), "new file\n");
  assert_int_equal(p.ops[1].kind, NUB_PATCH_EDIT);
  assert_string_equal(p.ops[1].path, "index.js");
  assert_int_equal(p.ops[1].nhunks, 1);
  assert_int_equal(nub_patch_apply(&p.ops[1], INDEX_JS, strlen(INDEX_JS), NUB_PATCH_PNPM, &out, &err), 0);
  assert_string_equal(nub_buf_str(&out), "'use strict';\n"
                                          "// Fixture package for nub's e2e tests.\n"
                                          "module.exports = {\n"
                                          "  name: \"b\",\n"
                                          "  version: \"1.0.0-patched\",\n"
                                          "  deps: {},\n"
                                          "};\n");
  nub_buf_release(&out);
  nub_patch_release(&p);
}

struct apply_case {
  const char *name, *file, *patch;
  const char *want; /* NULL: the hunk does not apply (EPATCH) */
};

static void test_patchfile__apply_cases(void **state)
{
  static const struct apply_case cases[] = {
      {"exact", "a\nb\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a\nB\nc\n"},
      /* the hunk is found 2 lines below where it says */
      {"fuzz down", "x\ny\na\nb\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
       "x\ny\na\nB\nc\n"},
      /* and above */
      {"fuzz up", "a\nb\nc\n", "--- a/f\n+++ b/f\n@@ -4,3 +4,3 @@\n a\n-b\n+B\n c\n",
       "a\nB\nc\n"},
      /* trailing white space and CR do not count when matching */
      {"trailing space", "a  \r\nb\t\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
       "a  \r\nB\nc\n"},
      /* leading white space does */
      {"leading space", " a\nb\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", NULL},
      {"no match", "a\nq\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", NULL},
      /* beyond 20 lines away: not found */
      {"too far",
       "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\nb\n",
       "--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-b\n+B\n", NULL},
      {"20 lines away",
       "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\nb\n",
       "--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-b\n+B\n",
       "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\nB\n"},
      /* two hunks: the second's place shifts by what the first added */
      {"two hunks", "a\nb\nc\nd\ne\nf\ng\n",
       "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n+a2\n b\n@@ -6,2 +7,1 @@\n f\n-g\n",
       "a\na2\nb\nc\nd\ne\nf\n"},
      /* a file without a final newline, which the patch keeps so */
      {"no eol kept", "a\nb",
       "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
       "\\ No newline at end of file\n",
       "a\nc"},
      /* and one that gains it */
      {"eol added", "a\nb",
       "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
       "a\nb\n"},
      /* a blank line in a hunk is a context line */
      {"blank context", "a\n\nb\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-b\n+B\n",
       "a\n\nB\n"},
  };

  (void)state;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const struct apply_case *c = &cases[i];
    struct nub_patch p;
    struct nub_err err;
    struct nub_buf out = NUB_BUF_INIT;
    int rc;
    print_message("case %s\n", c->name);
    assert_int_equal(nub_patch_parse(c->patch, strlen(c->patch), &p, &err), 0);
    assert_int_equal(p.nops, 1);
    assert_int_equal(p.ops[0].kind, NUB_PATCH_EDIT);
    rc = nub_patch_apply(&p.ops[0], c->file, strlen(c->file), NUB_PATCH_PNPM, &out, &err);
    if (c->want) {
      assert_int_equal(rc, 0);
      assert_string_equal(nub_buf_str(&out), c->want);
    } else {
      assert_int_equal(rc, -NUB_EPATCH);
      assert_non_null(strstr(err.msg, "f: hunk 1"));
    }
    /* berry's search finds the same, and beyond 20 lines too */
    rc = nub_patch_apply(&p.ops[0], c->file, strlen(c->file), NUB_PATCH_BERRY, &out, &err);
    if (c->want) {
      assert_int_equal(rc, 0);
      assert_string_equal(nub_buf_str(&out), c->want);
    } else if (!strcmp(c->name, "too far")) {
      assert_int_equal(rc, 0);
      assert_non_null(strstr(nub_buf_str(&out), "20\nB\n"));
    } else {
      assert_int_equal(rc, -NUB_EPATCH);
    }
    nub_buf_release(&out);
    nub_patch_release(&p);
  }
}

/* Where the two searches part: a context found twice, as near above as
 * below. pnpm looks above the hunk's old line first; berry starts at its
 * new line (one below) and takes the line before first. Neither matches
 * before the end of the hunk before it in berry. */
static void test_patchfile__berry_search(void **state)
{
  /* "x" at lines 1 and 3 (1-based); the hunk says line 2 */
  static const char file[] = "x\ny\nx\ny\n";
  static const char patch[] = "--- a/f\n+++ b/f\n@@ -2,1 +2,1 @@\n-x\n+X\n";
  struct nub_patch p;
  struct nub_err err;
  struct nub_buf out = NUB_BUF_INIT;

  (void)state;
  assert_int_equal(nub_patch_parse(patch, strlen(patch), &p, &err), 0);
  /* pnpm: index 1 (no), 0 (yes): line 1 */
  assert_int_equal(nub_patch_apply(&p.ops[0], file, strlen(file), NUB_PATCH_PNPM, &out, &err), 0);
  assert_string_equal(nub_buf_str(&out), "X\ny\nx\ny\n");
  /* berry: index 2 (yes): line 3 */
  assert_int_equal(nub_patch_apply(&p.ops[0], file, strlen(file), NUB_PATCH_BERRY, &out, &err), 0);
  assert_string_equal(nub_buf_str(&out), "x\ny\nX\ny\n");
  nub_patch_release(&p);
  /* a header's line far past the end (found by fuzzing: berry's search
   * counted down from it line by line) is looked for from the end */
  {
    static const char far[] = "--- a/f\n+++ b/f\n@@ -1,1 +99999999999,1 @@\n-y\n+Y\n";
    assert_int_equal(nub_patch_parse(far, strlen(far), &p, &err), 0);
    assert_int_equal(nub_patch_apply(&p.ops[0], file, strlen(file), NUB_PATCH_BERRY, &out, &err),
                     0);
    assert_string_equal(nub_buf_str(&out), "x\ny\nx\nY\n");
    nub_patch_release(&p);
  }
  nub_buf_release(&out);
}

static void test_patchfile__operations(void **state)
{
  static const char text[] = "diff --git a/old.js b/new.js\n"
                             "similarity index 100%\n"
                             "rename from old.js\n"
                             "rename to new.js\n"
                             "diff --git a/bin/cli b/bin/cli\n"
                             "old mode 100644\n"
                             "new mode 100755\n"
                             "diff --git a/gone.js b/gone.js\n"
                             "deleted file mode 100644\n"
                             "--- a/gone.js\n"
                             "+++ /dev/null\n"
                             "@@ -1 +0,0 @@\n"
                             "-x\n"
                             "diff --git a/empty b/empty\n"
                             "new file mode 100755\n";
  struct nub_patch p;
  struct nub_err err;
  struct nub_buf out = NUB_BUF_INIT;

  (void)state;
  assert_int_equal(nub_patch_parse(text, strlen(text), &p, &err), 0);
  assert_int_equal(p.nops, 4);
  assert_int_equal(p.ops[0].kind, NUB_PATCH_RENAME);
  assert_string_equal(p.ops[0].path, "old.js");
  assert_string_equal(p.ops[0].to, "new.js");
  assert_int_equal(p.ops[1].kind, NUB_PATCH_MODE);
  assert_string_equal(p.ops[1].path, "bin/cli");
  assert_int_equal(p.ops[1].mode, 0755);
  assert_int_equal(p.ops[2].kind, NUB_PATCH_DELETE);
  assert_string_equal(p.ops[2].path, "gone.js");
  assert_int_equal(p.ops[3].kind, NUB_PATCH_CREATE);
  assert_int_equal(p.ops[3].mode, 0755);
  nub_patch_created(&p.ops[3], &out);
  assert_int_equal(out.len, 0);
  nub_buf_release(&out);
  nub_patch_release(&p);
}

/* yarn berry's builtin patches head a file's part with the versions it is
 * for; each operation keeps its own. */
static void test_patchfile__semver_exclusivity(void **state)
{
  static const char text[] = "diff --git a/a.js b/a.js\n"
                             "semver exclusivity >=1.9\n"
                             "--- a/a.js\n"
                             "+++ b/a.js\n"
                             "@@ -1 +1 @@\n"
                             "-x\n"
                             "+y\n"
                             "diff --git a/b.js b/b.js\n"
                             "--- a/b.js\n"
                             "+++ b/b.js\n"
                             "@@ -1 +1 @@\n"
                             "-x\n"
                             "+y\n"
                             "diff --git a/copy/c.js b/c.js\n"
                             "new file mode 100644\n"
                             "semver exclusivity  ^2.2 \n"
                             "--- /dev/null\n"
                             "+++ b/c.js\n"
                             "@@ -0,0 +1 @@\n"
                             "+z\n";
  struct nub_patch p;
  struct nub_err err;

  (void)state;
  assert_int_equal(nub_patch_parse(text, strlen(text), &p, &err), 0);
  assert_int_equal(p.nops, 3);
  assert_string_equal(p.ops[0].only_for, ">=1.9");
  assert_null(p.ops[1].only_for);
  assert_int_equal(p.ops[2].kind, NUB_PATCH_CREATE);
  assert_string_equal(p.ops[2].path, "c.js");
  assert_string_equal(p.ops[2].only_for, "^2.2");
  nub_patch_release(&p);
}

/* What `npm patch commit` (npm 12) writes: no "diff --git" lines, a tab
 * after the paths, "/dev/null" for a new file. */
static void test_patchfile__npm_written(void **state)
{
  static const char text[] = "--- a/index.js\t\n"
                             "+++ b/index.js\t\n"
                             "@@ -1,2 +1,2 @@\n"
                             " 'use strict';\n"
                             "-// old\n"
                             "+// new\n"
                             "--- a/lib/x.js\t\n"
                             "+++ b/lib/x.js\t\n"
                             "@@ -1,1 +1,1 @@\n"
                             "-a\n"
                             "+b\n"
                             "--- /dev/null\t\n"
                             "+++ b/new.txt\t\n"
                             "@@ -0,0 +1,1 @@\n"
                             "+hi\n"
                             "--- a/gone.txt\t\n"
                             "+++ /dev/null\t\n"
                             "@@ -1,1 +0,0 @@\n"
                             "-bye\n";
  struct nub_patch p;
  struct nub_err err;
  struct nub_buf out = NUB_BUF_INIT;

  (void)state;
  assert_int_equal(nub_patch_parse(text, strlen(text), &p, &err), 0);
  assert_int_equal(p.nops, 4);
  assert_int_equal(p.ops[0].kind, NUB_PATCH_EDIT);
  assert_string_equal(p.ops[0].path, "index.js");
  assert_int_equal(p.ops[1].kind, NUB_PATCH_EDIT);
  assert_string_equal(p.ops[1].path, "lib/x.js");
  assert_int_equal(nub_patch_apply(&p.ops[0], "'use strict';\n// old\n", 22, NUB_PATCH_PNPM,
                                   &out, &err), 0);
  assert_string_equal(nub_buf_str(&out), "'use strict';\n// new\n");
  assert_int_equal(p.ops[2].kind, NUB_PATCH_CREATE);
  assert_string_equal(p.ops[2].path, "new.txt");
  nub_patch_created(&p.ops[2], &out);
  assert_string_equal(nub_buf_str(&out), "hi\n");
  assert_int_equal(p.ops[3].kind, NUB_PATCH_DELETE);
  assert_string_equal(p.ops[3].path, "gone.txt");
  nub_buf_release(&out);
  nub_patch_release(&p);
}

static void test_patchfile__refused(void **state)
{
  static const char *const bad[] = {
      /* a path that leaves the package */
      "diff --git a/../../etc/x b/../../etc/x\nnew file mode 100644\n--- /dev/null\n"
      "+++ b/../../etc/x\n@@ -0,0 +1 @@\n+x\n",
      "diff --git a/x b//etc/x\n--- a/x\n+++ b//etc/x\n@@ -1 +1 @@\n-a\n+b\n",
      /* a symlink's mode */
      "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+t\n",
      /* a bad hunk header, an unknown pragma, lines that do not add up */
      "--- a/f\n+++ b/f\n@@ -1,x +1 @@\n-a\n+b\n",
      "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ what\n+b\n",
      "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n",
      "diff --git nothing\n",
  };

  (void)state;
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    struct nub_patch p;
    struct nub_err err;
    print_message("case %zu\n", i);
    assert_int_equal(nub_patch_parse(bad[i], strlen(bad[i]), &p, &err), -NUB_EPATCH);
    assert_non_null(strstr(err.msg, "line "));
  }
}

/* What git (so pnpm patch-commit) writes for the same change, byte for
 * byte: the index line's blob ids included. */
static void test_patchfile__diff_as_git_writes_it(void **state)
{
  struct nub_buf out = NUB_BUF_INIT;
  const char *added = strstr(PNPM_PATCH, "diff --git a/added.txt");
  const char *index = strstr(PNPM_PATCH, "diff --git a/index.js");
  static const char new_index[] = "'use strict';\n"
                                  "// Fixture package for nub's e2e tests.\n"
                                  "module.exports = {\n"
                                  "  name: \"b\",\n"
                                  "  version: \"1.0.0-patched\",\n"
                                  "  deps: {},\n"
                                  "};\n";

  (void)state;
  assert_int_equal(nub_patch_diff(&out, "added.txt", NULL, 0, 0, "new file\n", 9, 0644), 0);
  assert_int_equal(out.len, (size_t)(index - added));
  assert_memory_equal(out.data, added, out.len);
  nub_buf_reset(&out);
  assert_int_equal(nub_patch_diff(&out, "index.js", INDEX_JS, strlen(INDEX_JS), 0644, new_index,
                                  strlen(new_index), 0644), 0);
  assert_string_equal(nub_buf_str(&out), index);
  /* the same bytes and mode: nothing; a NUL: not text */
  nub_buf_reset(&out);
  assert_int_equal(nub_patch_diff(&out, "x", "a\n", 2, 0644, "a\n", 2, 0644), 0);
  assert_int_equal(out.len, 0);
  assert_int_equal(nub_patch_diff(&out, "x", "a\n", 2, 0644, "a\0b", 3, 0644), -EINVAL);
  assert_int_equal(out.len, 0);
  nub_buf_release(&out);
}

/* A small deterministic generator of texts and edits. */
static unsigned long rnd_state = 12345;
static unsigned rnd(unsigned n)
{
  rnd_state = rnd_state * 6364136223846793005UL + 1442695040888963407UL;
  return (unsigned)(rnd_state >> 33) % n;
}

static void gen(struct nub_buf *b, unsigned lines)
{
  static const char *const words[] = {"a", "b", "c", "", "  x", "}", "return 1;"};
  for (unsigned i = 0; i < lines; i++) {
    nub_buf_adds(b, words[rnd(7)]);
    if (i + 1 < lines || rnd(4))
      nub_buf_addc(b, '\n');
  }
}

/* Whatever two texts, their diff read and applied to the first gives the
 * second (through the reader and applier pnpm's rules use). */
static void test_patchfile__diff_round_trip(void **state)
{
  (void)state;
  for (int round = 0; round < 400; round++) {
    struct nub_buf a = NUB_BUF_INIT, b = NUB_BUF_INIT, d = NUB_BUF_INIT, out = NUB_BUF_INIT;
    struct nub_patch p;
    struct nub_err err;
    gen(&a, rnd(30));
    if (rnd(2)) { /* an edit of a */
      size_t at = a.len ? rnd((unsigned)a.len) : 0;
      nub_buf_add(&b, a.data ? a.data : "", at);
      gen(&b, rnd(5));
      if (a.len > at + 3)
        nub_buf_add(&b, a.data + at + rnd(3), a.len - at - 3);
    } else {
      gen(&b, rnd(30));
    }
    nub_buf_add(&a, "", 0);
    nub_buf_add(&b, "", 0);
    assert_int_equal(nub_patch_diff(&d, "f.js", a.data, a.len, 0644, b.data, b.len, 0644), 0);
    if (!d.len) {
      assert_int_equal(a.len, b.len);
    } else {
      size_t i;
      assert_int_equal(nub_patch_parse(d.data, d.len, &p, &err), 0);
      for (i = 0; i < p.nops && p.ops[i].kind != NUB_PATCH_EDIT; i++)
        ;
      if (i < p.nops) {
        assert_int_equal(nub_patch_apply(&p.ops[i], a.data, a.len, NUB_PATCH_PNPM, &out, &err), 0);
        if (out.len != b.len || memcmp(out.data ? out.data : "", b.data, b.len))
          fail_msg("round %d:\n--- a\n%s\n--- b\n%s\n--- diff\n%s\n--- got\n%s", round,
                   a.data, b.data, d.data, nub_buf_str(&out));
      }
      nub_patch_release(&p);
    }
    nub_buf_release(&a);
    nub_buf_release(&b);
    nub_buf_release(&d);
    nub_buf_release(&out);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_patchfile__pnpm_written),
      cmocka_unit_test(test_patchfile__apply_cases),
      cmocka_unit_test(test_patchfile__berry_search),
      cmocka_unit_test(test_patchfile__operations),
      cmocka_unit_test(test_patchfile__npm_written),
      cmocka_unit_test(test_patchfile__semver_exclusivity),
      cmocka_unit_test(test_patchfile__refused),
      cmocka_unit_test(test_patchfile__diff_as_git_writes_it),
      cmocka_unit_test(test_patchfile__diff_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
