/* test_journal.c - core/journal.h and core/projlock.h: an edit's files come
 * back as they were (contents, absence, bytes a text reader would trip on),
 * a journal that is not whole is dropped, and the project's lock is
 * exclusive and finishes what a killed holder left. */
#include "nub_test.h"

#include <errno.h>
#include <string.h>

#include "journal.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "projlock.h"

static char *read_all(const char *path)
{
  char *text = NULL;
  size_t len = 0;

  if (nub_plat_read_file_at(NUB_PLAT_CWD, path, 1 << 20, &text, &len) < 0)
    return NULL;
  return text;
}

static void test_journal__puts_files_back(void **state)
{
  char *dir = nub_test_mkdtemp("journal");
  char *pj = nub_asprintf("%s/package.json", dir), *lock = nub_asprintf("%s/nub.lock", dir);
  char *j = nub_asprintf("%s/edit", dir);
  static const char bin[] = {'{', '\0', '\n', '7', '\n', '}'};
  struct nub_journal_file v[2] = {{pj, (char *)bin, sizeof(bin)}, {lock, NULL, 0}};
  struct nub_err err;
  char *text = NULL;
  size_t len = 0;

  (void)state;
  nub_test_write(pj, "old", 0644);
  assert_int_equal(nub_journal_write(j, v, 2, &err), 0);
  /* the edit changes both, then is killed */
  nub_test_write(pj, "{\"new\": 1}", 0644);
  nub_test_write(lock, "new lock", 0644);
  assert_int_equal(nub_journal_recover(j, &err), 1);
  assert_int_equal(nub_plat_read_file_at(NUB_PLAT_CWD, pj, 1 << 20, &text, &len), 0);
  assert_int_equal(len, sizeof(bin));
  assert_memory_equal(text, bin, sizeof(bin));
  nub_free(text);
  assert_null(read_all(lock)); /* it was not there */
  assert_null(read_all(j));    /* and the journal is gone */
  assert_int_equal(nub_journal_recover(j, &err), 0);
  nub_free(pj);
  nub_free(lock);
  nub_free(j);
  nub_free(dir);
}

static void test_journal__a_torn_journal_is_dropped(void **state)
{
  char *dir = nub_test_mkdtemp("journal-torn");
  char *pj = nub_asprintf("%s/package.json", dir), *j = nub_asprintf("%s/edit", dir);
  char *text = nub_asprintf("nub-journal 1\n%s\n100\nshort", pj);
  struct nub_err err;

  (void)state;
  nub_test_write(pj, "kept", 0644);
  nub_test_write(j, text, 0600);
  assert_int_equal(nub_journal_recover(j, &err), -NUB_ESTORE);
  assert_null(read_all(j));
  nub_free(text);
  text = read_all(pj);
  assert_string_equal(text, "kept");
  nub_free(text);
  nub_free(pj);
  nub_free(j);
  nub_free(dir);
}

static void test_projlock__exclusive_and_recovers(void **state)
{
  char *store = nub_test_mkdtemp("projlock"), *proj = nub_asprintf("%s/proj", store);
  char *pj = nub_asprintf("%s/package.json", proj);
  struct nub_projlock a, b;
  struct nub_err err;
  int fd = -1;
  char *lockpath, *text;

  (void)state;
  nub_plat_mkdir_p(proj, 0755);
  nub_test_write(pj, "before", 0644);
  assert_int_equal(nub_projlock_take(&a, store, proj, NULL, &err), 0);
  assert_false(a.recovered);
  /* no one else has it meanwhile */
  lockpath = nub_asprintf("%s/v1/locks", store);
  {
    char *hex = strrchr(a.journal, '/') + 1, *p = nub_asprintf("%s/%.*s", lockpath,
                                                                 (int)strcspn(hex, "."), hex);
    assert_int_equal(nub_plat_lock(p, false, &fd), -EWOULDBLOCK);
    nub_free(p);
  }
  {
    struct nub_journal_file f = {pj, "before", 6};
    assert_int_equal(nub_journal_write(a.journal, &f, 1, &err), 0);
  }
  assert_true(nub_projlock_pending(store, proj));
  nub_test_write(pj, "half done", 0644);
  /* killed: the lock goes with the process, the journal stays */
  nub_plat_unlock(a.fd);
  a.fd = -1;
  nub_projlock_release(&a);
  assert_int_equal(nub_projlock_take(&b, store, proj, NULL, &err), 0);
  assert_true(b.recovered);
  text = read_all(pj);
  assert_string_equal(text, "before");
  nub_free(text);
  assert_false(nub_projlock_pending(store, proj));
  nub_projlock_release(&b);
  nub_free(lockpath);
  nub_free(pj);
  nub_free(proj);
  nub_free(store);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_journal__puts_files_back),
      cmocka_unit_test(test_journal__a_torn_journal_is_dropped),
      cmocka_unit_test(test_projlock__exclusive_and_recovers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
