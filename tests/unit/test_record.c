/* test_record.c - installs remembered in the store (record.h): the digest
 * follows every input, a saved project is made again link for link, and a
 * record is refused (nothing made, nothing removed) when node_modules is
 * there, when an entry it names is gone or claimed for another, or when the
 * project held what a record cannot make. */
#include "nub_test.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nub_alloc.h"
#include "nub_plat.h"
#include "record.h"
#include "state.h"
#include "store_fixture.h"

struct fx {
  struct nub_test_store st;
  char *proj;
  int proj_fd;
  char *entry_x, *tree_y; /* a links/ entry and a package tree */
};

static void mkdirs(const char *path)
{
  assert_int_equal(nub_plat_mkdir_p(path, 0755), 0);
}

static void link_at(int fd, const char *target, const char *path)
{
  assert_int_equal(nub_plat_symlink_at(target, fd, path), 0);
}

/* A project as an install leaves it: links into the store, .bin, its state. */
static void install(struct fx *f)
{
  struct nub_state s;
  char *t;

  memset(&s, 0, sizeof(s));
  assert_int_equal(nub_plat_mkdir_at(f->proj_fd, "node_modules", 0755), 0);
  assert_int_equal(nub_plat_mkdir_at(f->proj_fd, "node_modules/@s", 0755), 0);
  assert_int_equal(nub_plat_mkdir_at(f->proj_fd, "node_modules/.bin", 0755), 0);
  assert_int_equal(nub_plat_mkdir_at(f->proj_fd, "node_modules/.nub", 0755), 0);
  t = nub_asprintf("%s/node_modules/x", f->entry_x);
  link_at(f->proj_fd, t, "node_modules/x");
  nub_free(t);
  t = nub_asprintf("%s/node_modules/@s/y", f->tree_y);
  link_at(f->proj_fd, t, "node_modules/@s/y");
  nub_free(t);
  link_at(f->proj_fd, "../x/bin.js", "node_modules/.bin/x");
  assert_int_equal(nub_plat_mkdir_at(f->proj_fd, NUB_STATE_DIR, 0755), 0);
  snprintf(s.layout, sizeof(s.layout), "isolated");
  snprintf(s.settings, sizeof(s.settings), "0123456789abcdef0123456789abcdef");
  nub_state_add_file(&s, f->proj_fd, "package.json");
  nub_state_add_check(&s, "node_modules/x");
  nub_state_add_check(&s, "node_modules/@s/y");
  nub_state_add_direct(&s, "x", "1.0.0");
  nub_state_add_dir(&s, f->proj_fd, "node_modules");
  nub_state_add_dir(&s, f->proj_fd, "node_modules/@s");
  nub_state_add_dir(&s, f->proj_fd, "node_modules/.bin");
  nub_state_add_dir(&s, f->proj_fd, "node_modules/.nub");
  s.keys = nub_calloc(3, sizeof(char *));
  s.paths = nub_calloc(3, sizeof(char *));
  s.keys[0] = nub_strdup("k1");
  s.paths[0] = nub_strdup("node_modules/.nub/x@1.0.0");
  s.keys[1] = nub_strdup("k2");
  s.paths[1] = nub_strdup("node_modules/.nub/@s+y@1.0.0");
  s.n = 2;
  assert_int_equal(nub_state_write(&s, f->proj_fd), 0);
  nub_state_release(&s);
}

static void save(struct fx *f)
{
  char *entries[2], *warnings[1] = {"y@1.0.0 wants z@^2, found 1.0.0"};

  entries[0] = nub_asprintf("%s\t", f->entry_x);
  entries[1] = nub_asprintf("%s\ty@1.0.0-00000000000000ab", f->tree_y);
  nub_record_save(&f->st.store, "d1", f->proj_fd, entries, 2, 2, warnings, 1);
  nub_free(entries[0]);
  nub_free(entries[1]);
}

static int setup(void **state)
{
  struct fx *f = nub_calloc(1, sizeof(*f));
  char *p;

  nub_test_store_open(&f->st, "record");
  f->proj = nub_asprintf("%s/proj", f->st.dir);
  mkdirs(f->proj);
  p = nub_asprintf("%s/package.json", f->proj);
  nub_test_write(p, "{\"name\": \"p\"}\n", 0644);
  nub_free(p);
  f->proj_fd = nub_plat_open_dir_at(NUB_PLAT_CWD, f->proj);
  assert_true(f->proj_fd >= 0);
  f->entry_x = nub_asprintf("%s/links/x@1.0.0-0123456789abcdef", f->st.store.root);
  p = nub_asprintf("%s/node_modules/x", f->entry_x);
  mkdirs(p);
  nub_free(p);
  f->tree_y = nub_asprintf("%s/packages/%064d", f->st.store.root, 7);
  p = nub_asprintf("%s/node_modules/@s/y", f->tree_y);
  mkdirs(p);
  nub_free(p);
  p = nub_asprintf("%s/ready", f->tree_y);
  link_at(NUB_PLAT_CWD, "y@1.0.0-00000000000000ab", p);
  nub_free(p);
  install(f);
  *state = f;
  return 0;
}

static int teardown(void **state)
{
  struct fx *f = *state;
  nub_plat_close(f->proj_fd);
  nub_free(f->proj);
  nub_free(f->entry_x);
  nub_free(f->tree_y);
  nub_test_store_close(&f->st);
  nub_free(f);
  return 0;
}

static void test_record__digest_follows_every_input(void **state)
{
  struct fx *f = *state;
  char *files[2] = {"package.json", "nub.lock"};
  char a[33], b[33], c[33], d[33], e[33];
  char *p = nub_asprintf("%s/nub.lock", f->proj);

  assert_int_equal(nub_record_digest(f->proj_fd, "settings s\n", files, 2, a), 0);
  assert_int_equal(nub_record_digest(f->proj_fd, "settings s\n", files, 2, b), 0);
  assert_string_equal(a, b);
  assert_int_equal(nub_record_digest(f->proj_fd, "settings t\n", files, 2, c), 0);
  assert_string_not_equal(a, c);
  nub_test_write(p, "", 0644); /* an empty lockfile is not a missing one */
  assert_int_equal(nub_record_digest(f->proj_fd, "settings s\n", files, 2, d), 0);
  assert_string_not_equal(a, d);
  nub_test_write(p, " ", 0644);
  assert_int_equal(nub_record_digest(f->proj_fd, "settings s\n", files, 2, e), 0);
  assert_string_not_equal(d, e);
  nub_free(p);
}

static void test_record__made_again_link_for_link(void **state)
{
  struct fx *f = *state;
  struct nub_record r;
  struct nub_state s;
  char buf[4096], *want;

  save(f);
  assert_int_equal(nub_plat_rm_rf_at(f->proj_fd, "node_modules"), 0);
  assert_int_equal(nub_record_replay(&f->st.store, "d1", f->proj_fd, &r), 0);
  assert_int_equal(r.added, 2);
  assert_int_equal(r.nwarnings, 1);
  assert_string_equal(r.warnings[0], "y@1.0.0 wants z@^2, found 1.0.0");
  want = nub_asprintf("%s/node_modules/x", f->entry_x);
  assert_true(nub_plat_readlink_at(f->proj_fd, "node_modules/x", buf, sizeof(buf)) > 0);
  assert_string_equal(buf, want);
  nub_free(want);
  assert_true(nub_plat_readlink_at(f->proj_fd, "node_modules/.bin/x", buf, sizeof(buf)) > 0);
  assert_string_equal(buf, "../x/bin.js");
  assert_true(nub_plat_readlink_at(f->proj_fd, "node_modules/@s/y", buf, sizeof(buf)) > 0);
  /* the state's lasting parts, and directories stamped as they are now */
  assert_int_equal(r.state.nchecks, 2);
  assert_int_equal(r.state.ndirects, 1);
  assert_int_equal(r.state.n, 2);
  assert_string_equal(r.state.paths[1], "node_modules/.nub/@s+y@1.0.0");
  assert_int_equal(r.state.ndirs, 4);
  assert_true(nub_state_dirs_match(&r.state, f->proj_fd));
  assert_int_equal(nub_state_add_file(&r.state, f->proj_fd, "package.json"), 0);
  assert_int_equal(nub_state_write(&r.state, f->proj_fd), 0);
  nub_record_release(&r);
  assert_int_equal(nub_state_read(&s, f->proj_fd, false), 0);
  assert_true(nub_state_dirs_match(&s, f->proj_fd));
  assert_true(nub_state_checks_exist(&s, f->proj_fd));
  nub_state_release(&s);
}

static void test_record__node_modules_there_is_left_alone(void **state)
{
  struct fx *f = *state;
  struct nub_record r;
  struct nub_plat_stat st;

  save(f);
  assert_int_equal(nub_plat_unlink_at(f->proj_fd, "node_modules/x", false), 0);
  assert_true(nub_record_replay(&f->st.store, "d1", f->proj_fd, &r) < 0);
  /* nothing it did not make was removed */
  assert_int_equal(nub_plat_stat_at(f->proj_fd, "node_modules/@s/y", &st), 0);
  assert_int_equal(nub_plat_stat_at(f->proj_fd, "node_modules/x", &st), -ENOENT);
}

static void test_record__an_entry_not_as_it_was_is_refused(void **state)
{
  struct fx *f = *state;
  struct nub_record r;
  struct nub_plat_stat st;
  char *ready = nub_asprintf("%s/ready", f->tree_y);

  save(f);
  assert_int_equal(nub_plat_rm_rf_at(f->proj_fd, "node_modules"), 0);
  /* a tree claimed for another entry since */
  assert_int_equal(nub_plat_unlink_at(NUB_PLAT_CWD, ready, false), 0);
  link_at(NUB_PLAT_CWD, "y@1.0.0-00000000000000cd", ready);
  assert_int_equal(nub_record_replay(&f->st.store, "d1", f->proj_fd, &r), -ESTALE);
  assert_int_equal(nub_plat_stat_at(f->proj_fd, "node_modules", &st), -ENOENT);
  /* as it was, then an entry in links/ gone */
  assert_int_equal(nub_plat_unlink_at(NUB_PLAT_CWD, ready, false), 0);
  link_at(NUB_PLAT_CWD, "y@1.0.0-00000000000000ab", ready);
  assert_int_equal(nub_record_replay(&f->st.store, "d1", f->proj_fd, &r), 0);
  nub_record_release(&r);
  assert_int_equal(nub_plat_rm_rf_at(f->proj_fd, "node_modules"), 0);
  assert_int_equal(nub_plat_rm_rf_at(NUB_PLAT_CWD, f->entry_x), 0);
  assert_int_equal(nub_record_replay(&f->st.store, "d1", f->proj_fd, &r), -ESTALE);
  assert_int_equal(nub_plat_stat_at(f->proj_fd, "node_modules", &st), -ENOENT);
  nub_free(ready);
}

static void test_record__only_links_and_stated_directories_are_recorded(void **state)
{
  struct fx *f = *state;
  struct nub_record r;
  char *p = nub_asprintf("%s/node_modules/.modules.yaml", f->proj);

  nub_test_write(p, "x\n", 0644); /* a file no record would make again */
  save(f);
  assert_int_equal(nub_record_replay(&f->st.store, "d1", f->proj_fd, &r), -ENOENT);
  nub_free(p);
  nub_plat_unlink_at(f->proj_fd, "node_modules/.modules.yaml", false);
  assert_int_equal(nub_plat_mkdir_at(f->proj_fd, "node_modules/.nub/x@1.0.0", 0755), 0);
  save(f); /* a package kept in the project: not a directory the state stamps */
  assert_int_equal(nub_record_replay(&f->st.store, "d1", f->proj_fd, &r), -ENOENT);
  nub_record_forget_all(&f->st.store);
}

static void test_record__forget_all(void **state)
{
  struct fx *f = *state;
  struct nub_record r;

  save(f);
  nub_record_forget_all(&f->st.store);
  assert_int_equal(nub_plat_rm_rf_at(f->proj_fd, "node_modules"), 0);
  assert_int_equal(nub_record_replay(&f->st.store, "d1", f->proj_fd, &r), -ENOENT);
}

static void test_record__the_newest_are_kept(void **state)
{
  struct fx *f = *state;
  char *dir = nub_asprintf("%s/records", f->st.store.root);
  size_t n = 0;

  assert_int_equal(nub_plat_mkdir_p(dir, 0755), 0);
  for (int i = 0; i < NUB_RECORDS_KEPT + 5; i++) {
    char *p = nub_asprintf("%s/old%02d", dir, i);
    nub_test_write(p, "nub-record 1\n", 0644);
    nub_free(p);
  }
  save(f); /* newer than every one above */
  {
    struct nub_record r;
    assert_int_equal(nub_plat_rm_rf_at(f->proj_fd, "node_modules"), 0);
    assert_int_equal(nub_record_replay(&f->st.store, "d1", f->proj_fd, &r), 0);
    nub_record_release(&r);
  }
  for (int i = 0; i < NUB_RECORDS_KEPT + 5; i++) {
    char *p = nub_asprintf("%s/old%02d", dir, i);
    struct nub_plat_stat st;
    n += nub_plat_stat_at(NUB_PLAT_CWD, p, &st) == 0;
    nub_free(p);
  }
  assert_int_equal(n, NUB_RECORDS_KEPT - 1);
  nub_free(dir);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_record__digest_follows_every_input, setup, teardown),
    cmocka_unit_test_setup_teardown(test_record__made_again_link_for_link, setup, teardown),
    cmocka_unit_test_setup_teardown(test_record__node_modules_there_is_left_alone, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(test_record__an_entry_not_as_it_was_is_refused, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(test_record__only_links_and_stated_directories_are_recorded,
                                    setup, teardown),
    cmocka_unit_test_setup_teardown(test_record__forget_all, setup, teardown),
    cmocka_unit_test_setup_teardown(test_record__the_newest_are_kept, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
