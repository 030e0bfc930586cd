/* test_workspace.c - core/workspace.h: globs, discovery from package.json
 * and pnpm-workspace.yaml, the root from inside a member, --filter. */
#include "nub_test.h"

#include <stdio.h>
#include <string.h>

#include "manifest.h"
#include "nub_alloc.h"
#include "workspace.h"

#include <stdlib.h>

/* dir/rel with its parent directories; returns the path (caller frees) */
static char *write_in(const char *dir, const char *rel, const char *text)
{
  char *path = nub_asprintf("%s/%s", dir, rel);
  char *parent = nub_strndup(path, (size_t)(strrchr(path, '/') - path));
  char *cmd = nub_asprintf("mkdir -p '%s'", parent);

  assert_int_equal(system(cmd), 0);
  nub_free(cmd);
  nub_free(parent);
  nub_test_write(path, text, 0644);
  return path;
}

static void test_workspace__globs(void **state)
{
  (void)state;
  assert_true(nub_workspace_glob_match("packages/*", "packages/a"));
  assert_true(nub_workspace_glob_match("./packages/*", "packages/a"));
  assert_false(nub_workspace_glob_match("packages/*", "packages/a/b"));
  assert_true(nub_workspace_glob_match("packages/**", "packages/a/b"));
  assert_true(nub_workspace_glob_match("libs/**/core", "libs/core"));
  assert_true(nub_workspace_glob_match("libs/**/core", "libs/x/y/core"));
  assert_true(nub_workspace_glob_match("apps/web", "apps/web"));
  assert_true(nub_workspace_glob_match("apps/web/package.json", "apps/web"));
  assert_false(nub_workspace_glob_match("packages/*", "packages/.hidden"));
  assert_false(nub_workspace_glob_match("packages/**", "packages/a/node_modules/b"));
  assert_false(nub_workspace_glob_match("packages/[ab]", "packages/c"));
  assert_true(nub_workspace_glob_match("packages/[ab]", "packages/b"));
}

static const char *member_json(const char *name)
{
  static char buf[256];
  snprintf(buf, sizeof(buf), "{\"name\": \"%s\", \"version\": \"1.0.0\"}", name);
  return buf;
}

/* a tree of members; the test's directory is the root */
static char *workspace_tree(const char *tag)
{
  char *root = nub_test_mkdtemp(tag);
  static const char *const dirs[] = {"packages/a", "packages/b", "packages/skip",
                                     "libs/deep/c", "libs/node_modules/x", "other/d"};
  static const char *const names[] = {"a", "b", "skip", "c", "x", "d"};

  for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
    char *rel = nub_asprintf("%s/package.json", dirs[i]);
    nub_free(write_in(root, rel, member_json(names[i])));
    nub_free(rel);
  }
  return root;
}

static void test_workspace__discover_from_package_json(void **state)
{
  char *root = workspace_tree("ws-pj");
  struct nub_manifest man;
  struct nub_workspace ws;
  struct nub_err err;
  const char *pj = "{\"name\": \"root\", \"workspaces\": {\"packages\": "
                   "[\"packages/*\", \"libs/**\", \"!packages/skip\", \"none/*\"]}}";

  (void)state;
  assert_int_equal(nub_manifest_parse(&man, pj, strlen(pj), "package.json", &err), 0);
  assert_int_equal(nub_workspace_discover(&ws, root, &man, &err), 0);
  assert_string_equal(ws.source, "package.json");
  assert_int_equal(ws.npkgs, 3);
  assert_string_equal(ws.pkgs[0].dir, "libs/deep/c");
  assert_string_equal(ws.pkgs[1].dir, "packages/a");
  assert_string_equal(ws.pkgs[2].dir, "packages/b");
  assert_int_equal(ws.nwarnings, 1);
  assert_non_null(strstr(ws.warnings[0], "none/*"));
  assert_int_equal(nub_workspace_load(&ws, &err), 0);
  assert_non_null(nub_workspace_find(&ws, "c"));
  assert_null(nub_workspace_find(&ws, "skip"));
  {
    /* the root from inside a member, and from a directory no glob takes */
    char *inside = nub_asprintf("%s/packages/a", root), *found = NULL;
    char *outside = nub_asprintf("%s/other/d", root);
    struct nub_manifest got;
    bool have = false;
    nub_free(write_in(root, "package.json", pj));
    assert_int_equal(nub_workspace_find_root(inside, &found, NULL, NULL, &err), 0);
    assert_string_equal(found, root);
    nub_free(found);
    /* the root's package.json, read on the way, handed over */
    assert_int_equal(nub_workspace_find_root(inside, &found, &got, &have, &err), 0);
    assert_true(have);
    assert_string_equal(got.name, "root");
    nub_manifest_release(&got);
    nub_free(found);
    nub_free(inside);
    assert_int_equal(nub_workspace_find_root(outside, &found, NULL, NULL, &err), 0);
    assert_string_equal(found, outside);
    nub_free(found);
    nub_free(outside);
  }
  nub_workspace_release(&ws);
  nub_manifest_release(&man);
  nub_free(root);
}

static void test_workspace__pnpm_yaml(void **state)
{
  char *root = workspace_tree("ws-yaml");
  struct nub_workspace ws;
  struct nub_err err;
  const struct nub_catalog *cat;

  (void)state;
  nub_free(write_in(root, "pnpm-workspace.yaml",
                    "packages:\n  - 'packages/*'\n  - '!**/skip'\ncatalog:\n  react: ^18.0.0\n"
                    "catalogs:\n  next:\n    react: ^19.0.0\noverrides:\n  b: 2.0.0\n"
                    "onlyBuiltDependencies:\n  - esbuild\n"
                    "allowBuilds:\n  esbuild: true\n  core-js@3.1.0 || 3.1.1: false\n"
                    "peerDependencyRules:\n  ignoreMissing: ['@babel/*']\n"
                    "  allowAny: [react]\n  allowedVersions:\n    a@1>b: '2'\n"
                    "strictPeerDependencies: true\n"));
  assert_int_equal(nub_workspace_discover(&ws, root, NULL, &err), 0);
  assert_string_equal(ws.source, "pnpm-workspace.yaml");
  assert_int_equal(ws.npkgs, 2);
  cat = nub_catalog_find(ws.catalogs, ws.ncatalogs, "default");
  assert_non_null(cat);
  assert_string_equal(nub_depmap_get(&cat->deps, "react"), "^18.0.0");
  cat = nub_catalog_find(ws.catalogs, ws.ncatalogs, "next");
  assert_string_equal(nub_depmap_get(&cat->deps, "react"), "^19.0.0");
  assert_string_equal(nub_depmap_get(&ws.overrides, "b"), "2.0.0");
  assert_int_equal(ws.nonly_built, 1);
  assert_string_equal(nub_depmap_get(&ws.allow_builds, "esbuild"), "true");
  assert_string_equal(nub_depmap_get(&ws.allow_builds, "core-js@3.1.0 || 3.1.1"), "false");
  assert_int_equal(ws.npeer_ignore_missing, 1);
  assert_string_equal(ws.peer_ignore_missing[0], "@babel/*");
  assert_int_equal(ws.npeer_allow_any, 1);
  assert_string_equal(nub_depmap_get(&ws.peer_allowed, "a@1>b"), "2");
  assert_string_equal(nub_depmap_get(&ws.settings, "strictPeerDependencies"), "true");
  nub_workspace_release(&ws);

  /* packageExtensions, and the object-hash text pnpm's checksum is of */
  nub_free(write_in(root, "pnpm-workspace.yaml",
                    "packages: ['packages/*']\npackageExtensions:\n  foo@1:\n"
                    "    dependencies:\n      bar: ^1.0.0\n"
                    "    peerDependenciesMeta:\n      baz:\n        optional: true\n"));
  assert_int_equal(nub_workspace_discover(&ws, root, NULL, &err), 0);
  assert_int_equal(ws.npkg_exts, 1);
  assert_string_equal(ws.pkg_exts[0].name, "foo");
  assert_string_equal(ws.pkg_exts[0].range, "1");
  assert_string_equal(nub_depmap_get(&ws.pkg_exts[0].deps, "bar"), "^1.0.0");
  assert_int_equal(ws.pkg_exts[0].npeers_optional, 1);
  assert_string_equal(ws.pkg_exts_hash,
                      "object:1:string:5:foo@1:object:2:string:12:dependencies:object:1:"
                      "string:3:bar:string:6:^1.0.0,,string:20:peerDependenciesMeta:"
                      "object:1:string:3:baz:object:1:string:8:optional:bool:true,,,,");
  nub_workspace_release(&ws);

  /* a key pnpm does not know: one warning with the nearest it does */
  nub_free(write_in(root, "pnpm-workspace.yaml", "packages: ['packages/*']\nsaveExactt: true\n"));
  assert_int_equal(nub_workspace_discover(&ws, root, NULL, &err), 0);
  assert_int_equal(ws.nwarnings, 1);
  assert_non_null(strstr(ws.warnings[0], "\"saveExactt\" (did you mean \"saveExact\"?)"));
  nub_workspace_release(&ws);

  /* bad input: one line naming the file, line and column */
  nub_free(write_in(root, "pnpm-workspace.yaml", "packages: 7\n"));
  assert_int_equal(nub_workspace_discover(&ws, root, NULL, &err), -NUB_EMANIFEST);
  assert_non_null(strstr(err.msg, "pnpm-workspace.yaml:1:"));
  assert_non_null(strstr(err.msg, "list of strings"));
  nub_workspace_release(&ws);
  nub_free(write_in(root, "pnpm-workspace.yaml", "packages:\n  - [unclosed\n"));
  assert_int_equal(nub_workspace_discover(&ws, root, NULL, &err), -NUB_EMANIFEST);
  assert_non_null(strstr(err.msg, "pnpm-workspace.yaml:"));
  nub_workspace_release(&ws);
  nub_free(write_in(root, "pnpm-workspace.yaml",
                    "catalog:\n  a: 1\ncatalogs:\n  default:\n    a: 2\n"));
  assert_int_equal(nub_workspace_discover(&ws, root, NULL, &err), -NUB_EMANIFEST);
  assert_non_null(strstr(err.msg, "twice"));
  nub_workspace_release(&ws);
  nub_free(root);
}

/* an approval names a package, or some of its versions */
static void test_workspace__approval_matches(void **state)
{
  (void)state;
  assert_true(nub_approval_matches("esbuild", "esbuild", "0.25.0"));
  assert_true(nub_approval_matches("esbuild", "esbuild", NULL));
  assert_false(nub_approval_matches("esbuild", "esbuild-wasm", "0.25.0"));
  assert_false(nub_approval_matches("esbuild-wasm", "esbuild", "0.25.0"));
  assert_true(nub_approval_matches("core-js@3.1.0 || 3.1.1", "core-js", "3.1.1"));
  assert_false(nub_approval_matches("core-js@3.1.0 || 3.1.1", "core-js", "3.1.2"));
  assert_false(nub_approval_matches("core-js@3.1.0", "core-js", "3.1.01"));
  assert_true(nub_approval_matches("@scope/x@1.0.0", "@scope/x", "1.0.0"));
  assert_false(nub_approval_matches("@scope/x@1.0.0", "@scope", "1.0.0"));
}

/* pnpm 12's own keys, and the nearest for a misspelt one */
static void test_workspace__pnpm_settings(void **state)
{
  (void)state;
  assert_true(nub_pnpm_setting_known("minimumReleaseAge"));
  assert_true(nub_pnpm_setting_known("allowBuilds"));
  assert_true(nub_pnpm_setting_known("catalogs"));
  assert_true(nub_pnpm_setting_known("packages"));
  assert_false(nub_pnpm_setting_known("minimumReleaseAgee"));
  assert_false(nub_pnpm_setting_known(""));
  assert_string_equal(nub_pnpm_setting_nearest("minimumReleaseAgee"), "minimumReleaseAge");
  assert_string_equal(nub_pnpm_setting_nearest("autoInstalPeers"), "autoInstallPeers");
  assert_null(nub_pnpm_setting_nearest("zzzzzzzzzzzzzzzzzzzz"));
}

static void test_workspace__duplicate_names(void **state)
{
  char *root = workspace_tree("ws-dup");
  struct nub_manifest man;
  struct nub_workspace ws;
  struct nub_err err;
  const char *pj = "{\"workspaces\": [\"packages/*\", \"other/*\"]}";

  (void)state;
  nub_free(write_in(root, "other/d/package.json", member_json("a")));
  assert_int_equal(nub_manifest_parse(&man, pj, strlen(pj), "package.json", &err), 0);
  assert_int_equal(nub_workspace_discover(&ws, root, &man, &err), 0);
  assert_int_equal(nub_workspace_load(&ws, &err), -NUB_EWORKSPACE);
  assert_non_null(strstr(err.msg, "two workspace packages are named a: other/d and packages/a"));
  nub_workspace_release(&ws);
  nub_manifest_release(&man);
  nub_free(root);
}

static void test_workspace__select(void **state)
{
  char *root = nub_test_mkdtemp("ws-sel");
  struct nub_manifest man;
  struct nub_workspace ws;
  struct nub_err err;
  bool sel[8];
  const char *pj = "{\"name\": \"root\", \"workspaces\": [\"p/*\"]}";
  char *s1[] = {"app..."}, *s2[] = {"...@x/core"}, *s3[] = {"...^@x/core", "!@x/ui"},
       *s4[] = {"./p/ui"}, *s5[] = {"@x/*"}, *s6[] = {"nothing"}, *s7[] = {"!app"};

  (void)state;
  nub_free(write_in(root, "p/core/package.json", "{\"name\": \"@x/core\", \"version\": \"1.0.0\"}"));
  nub_free(write_in(root, "p/ui/package.json",
                    "{\"name\": \"@x/ui\", \"dependencies\": {\"@x/core\": \"workspace:*\"}}"));
  nub_free(write_in(root, "p/app/package.json",
                    "{\"name\": \"app\", \"devDependencies\": {\"@x/ui\": \"workspace:*\"}}"));
  assert_int_equal(nub_manifest_parse(&man, pj, strlen(pj), "package.json", &err), 0);
  assert_int_equal(nub_workspace_discover(&ws, root, &man, &err), 0);
  assert_int_equal(nub_workspace_load(&ws, &err), 0);
  /* projects: 0 root, 1 p/app, 2 p/core, 3 p/ui */
  assert_int_equal(nub_workspace_select(&ws, "root", &man, "", s1, 1, sel, &err), 0);
  assert_true(!sel[0] && sel[1] && sel[2] && sel[3]);
  assert_int_equal(nub_workspace_select(&ws, "root", &man, "", s2, 1, sel, &err), 0);
  assert_true(!sel[0] && sel[1] && sel[2] && sel[3]);
  assert_int_equal(nub_workspace_select(&ws, "root", &man, "", s3, 2, sel, &err), 0);
  assert_true(!sel[0] && sel[1] && !sel[2] && !sel[3]);
  assert_int_equal(nub_workspace_select(&ws, "root", &man, "", s4, 1, sel, &err), 0);
  assert_true(!sel[0] && !sel[1] && !sel[2] && sel[3]);
  assert_int_equal(nub_workspace_select(&ws, "root", &man, "", s5, 1, sel, &err), 0);
  assert_true(!sel[0] && !sel[1] && sel[2] && sel[3]);
  assert_int_equal(nub_workspace_select(&ws, "root", &man, "", s7, 1, sel, &err), 0);
  assert_true(sel[0] && !sel[1] && sel[2] && sel[3]);
  assert_int_equal(nub_workspace_select(&ws, "root", &man, "", s6, 1, sel, &err),
                   -NUB_EWORKSPACE);
  assert_non_null(strstr(err.msg, "--filter nothing matches no package"));
  {
    char *here[] = {"."};
    assert_int_equal(nub_workspace_select(&ws, "root", &man, "p/core", here, 1, sel, &err), 0);
    assert_true(!sel[0] && !sel[1] && sel[2] && !sel[3]);
  }
  nub_workspace_release(&ws);
  nub_manifest_release(&man);
  nub_free(root);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_workspace__globs),
      cmocka_unit_test(test_workspace__discover_from_package_json),
      cmocka_unit_test(test_workspace__pnpm_yaml),
      cmocka_unit_test(test_workspace__approval_matches),
      cmocka_unit_test(test_workspace__pnpm_settings),
      cmocka_unit_test(test_workspace__duplicate_names),
      cmocka_unit_test(test_workspace__select),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
