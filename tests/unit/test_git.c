/* test_git.c - core/git.h: which specs are git dependencies and what git
 * is given for each (resolving and cloning run against real repositories
 * in e2e.resolve). */
#include "nub_test.h"

#include <string.h>

#include "git.h"
#include "nub_alloc.h"

static void expect(const char *spec, const char *url, const char *ref, const char *semver)
{
  struct nub_gitspec g;
  struct nub_err err;

  nub_err_clear(&err);
  assert_true(nub_git_is_spec(spec));
  assert_int_equal(nub_git_parse(spec, &g, &err), 0);
  assert_string_equal(g.url, url);
  if (ref)
    assert_string_equal(g.ref, ref);
  else
    assert_null(g.ref);
  if (semver)
    assert_string_equal(g.semver, semver);
  else
    assert_null(g.semver);
  nub_gitspec_release(&g);
}

static void test_git__specs(void **state)
{
  (void)state;
  expect("git+https://host.invalid/a/b.git#v1.2.0", "https://host.invalid/a/b.git", "v1.2.0",
         NULL);
  expect("git+ssh://git@host.invalid/a/b.git", "ssh://git@host.invalid/a/b.git", NULL, NULL);
  /* npm's scp-like form: git's own, without ssh:// */
  expect("git+ssh://git@host.invalid:a/b.git#main", "git@host.invalid:a/b.git", "main", NULL);
  /* a port stays a URL */
  expect("git+ssh://git@host.invalid:2222/a/b.git", "ssh://git@host.invalid:2222/a/b.git", NULL,
         NULL);
  expect("git+file:///srv/repo#semver:^1.0.0", "file:///srv/repo", NULL, "^1.0.0");
  expect("git://host.invalid/a/b.git", "git://host.invalid/a/b.git", NULL, NULL);
  expect("github:user/repo#semver:~2", "https://github.com/user/repo.git", NULL, "~2");
  expect("user/repo", "https://github.com/user/repo.git", NULL, NULL);
  expect("user/repo.git#abc", "https://github.com/user/repo.git", "abc", NULL);
}

static void test_git__not_git(void **state)
{
  struct nub_gitspec g;
  struct nub_err err;
  (void)state;
  assert_false(nub_git_is_spec("^1.0.0"));
  assert_false(nub_git_is_spec("@scope/name"));
  assert_false(nub_git_is_spec("file:../x"));
  assert_false(nub_git_is_spec("npm:x@1"));
  assert_false(nub_git_is_spec("https://host.invalid/x.tgz"));
  assert_false(nub_git_is_spec("a/b/c"));
  assert_false(nub_git_is_spec("./x/y"));
  /* an option is never a URL */
  nub_err_clear(&err);
  assert_int_equal(nub_git_parse("git+-uhack", &g, &err), -NUB_EUNSAFE);
}

static void test_git__resolved(void **state)
{
  char commit[41], *url = NULL, *r;
  (void)state;
  r = nub_git_resolved("https://h.invalid/r.git", "0123456789abcdef0123456789abcdef01234567");
  assert_string_equal(r, "git+https://h.invalid/r.git#0123456789abcdef0123456789abcdef01234567");
  assert_true(nub_git_split_resolved(r, &url, commit));
  assert_string_equal(url, "https://h.invalid/r.git");
  assert_string_equal(commit, "0123456789abcdef0123456789abcdef01234567");
  nub_free(url);
  nub_free(r);
  assert_false(nub_git_split_resolved("git+https://h.invalid/r.git#main", &url, commit));
  assert_false(nub_git_split_resolved("https://h.invalid/r.tgz", &url, commit));
  /* the checkout forms bun and yarn 1 install split the same way */
  for (int k = 0; k < 2; k++) {
    r = nub_asprintf("%shttps://h.invalid/r.git#0123456789abcdef0123456789abcdef01234567",
                     k ? NUB_GIT_YARN : NUB_GIT_CHECKOUT);
    assert_int_equal(nub_git_form_of(r), k ? NUB_GIT_AS_YARN : NUB_GIT_AS_CHECKOUT);
    assert_true(nub_git_split_resolved(r, &url, commit));
    assert_string_equal(url, "https://h.invalid/r.git");
    nub_free(url);
    nub_free(r);
  }
  assert_int_equal(nub_git_form_of("git+ssh://h.invalid/r#x"), NUB_GIT_PACKED);
  assert_int_equal(nub_git_form_of("https://h.invalid/git+x.tgz"), NUB_GIT_NOT);
  assert_int_equal(nub_git_form_of(NULL), NUB_GIT_NOT);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_git__specs),
      cmocka_unit_test(test_git__not_git),
      cmocka_unit_test(test_git__resolved),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
