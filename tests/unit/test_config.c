/* test_config.c - core/config.h: npmrc layers, and which credential a
 * request URL gets (npm's nerf-dart rules, the host compared whole). */
#include <stdlib.h>
#include <string.h>

#include "nub_test.h"

#include "config.h"
#include "npmrc_edit.h"
#include "nub_alloc.h"
#include "nub_plat.h"

static void load(struct nub_config *cfg, const char *user_text, const char *proj_text)
{
  char *dir = nub_test_mkdtemp("config"), *home = nub_asprintf("%s/home", dir), *p;
  struct nub_err err;

  assert_int_equal(nub_plat_mkdir_p(home, 0755), 0);
  p = nub_asprintf("%s/.npmrc", home);
  nub_test_write(p, user_text, 0644);
  nub_free(p);
  if (proj_text) {
    p = nub_asprintf("%s/.npmrc", dir);
    nub_test_write(p, proj_text, 0644);
    nub_free(p);
  }
  setenv("HOME", home, 1);
  unsetenv("npm_config_registry");
  unsetenv("npm_config_userconfig");
  setenv("npm_config_globalconfig", "/nonexistent/npmrc", 1);
  assert_int_equal(nub_config_load(cfg, dir, NULL, 0, &err), 0);
  nub_plat_rm_rf_at(NUB_PLAT_CWD, dir); /* read: the files are not needed again */
  nub_free(home);
  nub_free(dir);
}

static void expect_auth(const struct nub_config *cfg, const char *url, const char *want)
{
  char *a = nub_config_auth_for(cfg, url);
  if (!want) {
    if (a)
      fail_msg("%s got '%s', wanted none", url, a);
    return;
  }
  if (!a || strcmp(a, want))
    fail_msg("%s got '%s', wanted '%s'", url, a ? a : "(none)", want);
  nub_free(a);
}

/* the project .npmrc's keys nothing reads are named, npm's way */
static void test_config__unknown_keys(void **state)
{
  struct nub_config cfg;

  (void)state;
  assert_true(nub_npm_setting_known("registry"));
  assert_true(nub_npm_setting_known("SAVE_EXACT"));
  assert_true(nub_npm_setting_known("@scope:registry"));
  assert_true(nub_npm_setting_known("//r.example/:_authToken"));
  assert_true(nub_npm_setting_known("store-dir")); /* nub's own */
  assert_false(nub_npm_setting_known("//r.example/:_authTokn"));
  assert_false(nub_npm_setting_known("min-release-agee"));
  assert_string_equal(nub_npm_setting_nearest("min-release-agee"), "min-release-age");
  {
    char *camel = nub_npm_setting_pnpm_name("shamefully-hoist");
    assert_string_equal(camel, "shamefullyHoist");
    nub_free(camel);
    assert_null(nub_npm_setting_pnpm_name("foo-bar"));
  }
  load(&cfg, "user-thing=1\n", "registry=http://r.example/\nsave-exakt=true\nauto-install-peers=true\n");
  assert_int_equal(cfg.nwarnings, 2); /* the user's file is the user's */
  assert_non_null(strstr(cfg.warnings[0], "\"save-exakt\" (did you mean \"save-exact\"?)"));
  assert_non_null(strstr(cfg.warnings[1], "auto-install-peers (autoInstallPeers)"));
  nub_config_release(&cfg);
}

static void test_config__credentials_by_nerf_dart(void **state)
{
  struct nub_config cfg;
  (void)state;
  load(&cfg,
       "registry=https://reg.example.com/\n"
       "//reg.example.com:username=alice\n"
       "//reg.example.com:_password=cHc=\n" /* "pw" */
       "//reg.example.com/deep/path/:_authToken=deep\n"
       "//other.example:8080/:_authToken=other\n"
       "//bare.example/:_auth=YmFyZQ==\n",
       NULL);
  /* username + _password, no trailing slash on the key: the whole host */
  expect_auth(&cfg, "https://reg.example.com/x", "Basic YWxpY2U6cHc=");
  expect_auth(&cfg, "http://reg.example.com/x/-/x-1.0.0.tgz", "Basic YWxpY2U6cHc=");
  expect_auth(&cfg, "https://reg.example.com.evil.net/x", NULL);
  expect_auth(&cfg, "https://evil.net/reg.example.com/x", NULL);
  expect_auth(&cfg, "https://user:pw@reg.example.com.evil.net/", NULL);
  /* the longest path wins, host names are case-insensitive */
  expect_auth(&cfg, "https://REG.example.com/deep/path/pkg", "Bearer deep");
  expect_auth(&cfg, "https://reg.example.com/deep/pathology", "Basic YWxpY2U6cHc=");
  /* ports are part of the host */
  expect_auth(&cfg, "https://other.example:8080/p", "Bearer other");
  expect_auth(&cfg, "https://other.example/p", NULL);
  expect_auth(&cfg, "https://other.example:80801/p", NULL);
  expect_auth(&cfg, "https://bare.example/p?x=1#y", "Basic YmFyZQ==");
  expect_auth(&cfg, "not a url", NULL);
  nub_config_release(&cfg);
}

static void test_config__env_vars_in_project_credentials(void **state)
{
  struct nub_config cfg;
  (void)state;
  setenv("NUB_UNIT_SECRET", "s3", 1);
  unsetenv("NUB_UNIT_UNSET");
  /* trusted registry: the user's file chose it */
  load(&cfg, "registry=https://reg.example.com/\n",
       "//reg.example.com/:_authToken=${NUB_UNIT_SECRET}\n"
       "//evil.example/:_authToken=${NUB_UNIT_SECRET}\n");
  expect_auth(&cfg, "https://reg.example.com/a", "Bearer s3");
  expect_auth(&cfg, "https://evil.example/a", NULL);
  assert_int_equal(cfg.nwarnings, 1);
  assert_non_null(strstr(cfg.warnings[0], "//evil.example/:_authToken"));
  nub_config_release(&cfg);
  /* the repository names the registry itself: withheld */
  load(&cfg, "", "registry=https://reg.example.com/\n"
                 "//reg.example.com/:_authToken=${NUB_UNIT_SECRET}\n");
  expect_auth(&cfg, "https://reg.example.com/a", NULL);
  assert_int_equal(cfg.nwarnings, 1);
  nub_config_release(&cfg);
  /* the user's file: expanded; unset variables are never sent literally */
  load(&cfg, "//reg.example.com/:_authToken=${NUB_UNIT_SECRET}\n"
             "//two.example/:_authToken=${NUB_UNIT_UNSET}\n", NULL);
  expect_auth(&cfg, "https://reg.example.com/a", "Bearer s3");
  expect_auth(&cfg, "https://two.example/a", NULL);
  assert_int_equal(cfg.nwarnings, 1);
  assert_non_null(strstr(cfg.warnings[0], "not set"));
  nub_config_release(&cfg);
}

static void test_config__registry_userinfo(void **state)
{
  struct nub_config cfg;
  (void)state;
  load(&cfg, "registry=https://bob:p%40ss@reg.example.com/npm/\n", NULL);
  expect_auth(&cfg, "https://reg.example.com/npm/x/-/x-1.tgz", "Basic Ym9iOnBAc3M=");
  expect_auth(&cfg, "https://reg.example.com/other/x", NULL);
  expect_auth(&cfg, "https://cdn.example.com/npm/x", NULL);
  nub_config_release(&cfg);
}

/* Found by fuzz_npmrc: a key that ${VAR} expansion made shorter than
 * two bytes was looked at two bytes before its start (its "[]" suffix). */
static void test_config__key_emptied_by_expansion(void **state)
{
  struct nub_config cfg;
  struct nub_err err;
  (void)state;
  unsetenv("NUB_UNIT_UNSET");
  memset(&cfg, 0, sizeof(cfg));
  nub_err_clear(&err);
  assert_int_equal(nub_config_parse_npmrc(&cfg, "${NUB_UNIT_UNSET?}=1\nx${NUB_UNIT_UNSET?}=2\n"
                                          "a[]${NUB_UNIT_UNSET?}=3\n",
                                          "/t/.npmrc", NUB_CFG_USER, true, &err), 0);
  assert_string_equal(nub_config_get(&cfg, "x"), "2");
  assert_string_equal(nub_config_get(&cfg, "a"), "3");
  nub_config_release(&cfg);
}

static char *slurp(const char *path)
{
  char *text = NULL;
  size_t len = 0;
  assert_int_equal(nub_plat_read_file_at(NUB_PLAT_CWD, path, 1 << 20, &text, &len), 0);
  return text;
}

static void test_config__npmrc_edit(void **state)
{
  char *d = nub_test_mkdtemp("npmrc-edit"), *path = nub_asprintf("%s/.npmrc", d), *text;
  struct nub_plat_stat st;
  struct nub_err err;
  (void)state;

  /* a new file: the user's alone */
  assert_int_equal(nub_npmrc_edit(path, "save-exact", "true", 0600, &err), 0);
  assert_int_equal(nub_plat_stat_at(NUB_PLAT_CWD, path, &st), 0);
  assert_int_equal(st.mode & 0777, 0600);
  nub_test_write(path, "# team\nregistry = http://r.invalid/\nsave-exact=false\n"
                       "; note\nsave-exact=again\n", 0644);
  /* the first line of the key replaced, later ones gone, the rest kept */
  assert_int_equal(nub_npmrc_edit(path, "save-exact", "true", 0600, &err), 0);
  text = slurp(path);
  assert_string_equal(text, "# team\nregistry = http://r.invalid/\nsave-exact=true\n; note\n");
  nub_free(text);
  assert_int_equal(nub_plat_stat_at(NUB_PLAT_CWD, path, &st), 0);
  assert_int_equal(st.mode & 0777, 0644); /* (its own mode kept) */
  /* appended, quoted where npm's ini writer quotes */
  assert_int_equal(nub_npmrc_edit(path, "init-author-name", "A;B", 0600, &err), 0);
  assert_int_equal(nub_npmrc_edit(path, "tag-version-prefix", " v", 0600, &err), 0);
  assert_int_equal(nub_npmrc_edit(path, "registry", NULL, 0600, &err), 0);
  text = slurp(path);
  assert_string_equal(text, "# team\nsave-exact=true\n; note\ninit-author-name=\"A;B\"\n"
                            "tag-version-prefix=\" v\"\n");
  nub_free(text);
  /* what nub writes, nub reads back */
  {
    struct nub_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    text = slurp(path);
    assert_int_equal(nub_config_parse_npmrc(&cfg, text, path, NUB_CFG_USER, false, &err), 0);
    assert_string_equal(nub_config_get(&cfg, "init-author-name"), "A;B");
    assert_string_equal(nub_config_get(&cfg, "tag-version-prefix"), " v");
    nub_config_release(&cfg);
    nub_free(text);
  }
  nub_free(path);
  nub_free(d);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_config__credentials_by_nerf_dart),
      cmocka_unit_test(test_config__env_vars_in_project_credentials),
      cmocka_unit_test(test_config__unknown_keys),
      cmocka_unit_test(test_config__registry_userinfo),
      cmocka_unit_test(test_config__key_emptied_by_expansion),
      cmocka_unit_test(test_config__npmrc_edit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
