/* test_fetch.c - core/fetch.h without a network: "file:" tarballs take the
 * download path (integrity, extraction, the index published last), a
 * second fetch finds the store, a mismatch stores nothing, an optional
 * package's failure is recorded on it, --offline names what is missing. */
#include "nub_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "err.h"
#include "fetch.h"
#include "index.h"
#include "integrity.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "pkgtab.h"
#include "pool.h"
#include "progress.h"
#include "store.h"
#include "store_fixture.h"
#include "tarball.h"

struct fx {
  struct nub_test_store ts; /* ts.dir: the test's directory */
  struct nub_config cfg;
  struct nub_pool *pool;
  struct nub_progress prog;
  struct nub_pkgtab t;
};

static int setup(void **state)
{
  struct fx *f = nub_calloc(1, sizeof(*f));
  static const char *const cli[] = {"fetch-retries=0", "registry=http://127.0.0.1:9/"};
  struct nub_err err;

  nub_test_store_open(&f->ts, "fetch");
  setenv("HOME", f->ts.dir, 1);
  unsetenv("npm_config_registry");
  unsetenv("npm_config_userconfig");
  setenv("npm_config_globalconfig", "/nonexistent/npmrc", 1);
  assert_int_equal(nub_crypto_init(&err), 0);
  assert_int_equal(nub_config_load(&f->cfg, f->ts.dir, cli, 2, &err), 0);
  f->pool = nub_pool_new(2, "test");
  nub_progress_start(&f->prog, 2);
  *state = f;
  return 0;
}

static int teardown(void **state)
{
  struct fx *f = *state;
  nub_progress_stop(&f->prog);
  nub_pkgtab_release(&f->t);
  nub_pool_free(f->pool);
  nub_config_release(&f->cfg);
  nub_test_store_close(&f->ts);
  nub_free(f);
  return 0;
}

/* gz written as `file` under the test
 * directory; its URL ("file:/abs/...") and SRI (sha512 of its bytes) into
 * url and sri. */
static void put_tarball(struct fx *f, const char *file, const struct nub_buf *gz, char **url,
                        char sri[128])
{
  char *path = nub_asprintf("%s/%s", f->ts.dir, file);
  struct nub_hasher h;
  struct nub_sri s;
  FILE *fp = fopen(path, "wb");

  assert_non_null(fp);
  assert_int_equal(fwrite(gz->data, 1, gz->len, fp), gz->len);
  fclose(fp);
  memset(&s, 0, sizeof(s));
  s.algo = NUB_HASH_SHA512;
  nub_hasher_init(&h, NUB_HASH_SHA512);
  nub_hasher_update(&h, gz->data, gz->len);
  nub_hasher_final(&h, s.digest, &s.len);
  nub_hasher_release(&h);
  nub_sri_format(&s, sri, 128);
  *url = nub_asprintf("file:%s", path);
  nub_free(path);
}

/* A tarball of name@version written under the test directory. */
static void make_tarball(struct fx *f, const char *name, const char *version, char **url,
                         char sri[128])
{
  char json[256], file[300];
  struct nub_buf gz;

  snprintf(json, sizeof(json), "{\"name\":\"%s\",\"version\":\"%s\"}", name, version);
  snprintf(file, sizeof(file), "%s-%s.tgz", name, version);
  gz = nub_test_npm_tarball(json);
  put_tarball(f, file, &gz, url, sri);
  nub_buf_release(&gz);
}

/* A tarball whose one big file (zeros) unpacks to `mb` MiB: it compresses
 * to almost nothing, and its gzip size field says how big it gets. */
static void make_big_tarball(struct fx *f, const char *name, size_t mb, char **url, char sri[128])
{
  char json[256], file[300];
  struct nub_buf tar = NUB_BUF_INIT, gz;
  char *zeros = nub_calloc(mb << 20, 1);

  snprintf(json, sizeof(json), "{\"name\":\"%s\",\"version\":\"1.0.0\"}", name);
  snprintf(file, sizeof(file), "%s-1.0.0.tgz", name);
  nub_test_tar_entry(&tar, "package/package.json", '0', json, strlen(json), 0644);
  nub_test_tar_entry(&tar, "package/big.bin", '0', zeros, mb << 20, 0644);
  nub_test_tar_finish(&tar);
  gz = nub_test_gzip(tar.data, tar.len);
  put_tarball(f, file, &gz, url, sri);
  nub_free(zeros);
  nub_buf_release(&tar);
  nub_buf_release(&gz);
}

static int fetch(struct fx *f, bool offline, struct nub_fetch_result *res, struct nub_err *err)
{
  struct nub_fetch_opts o = {.offline = offline};
  return nub_fetch_needed(&f->t, &f->ts.store, &f->cfg, f->pool, &f->prog, &o, res, err);
}

static void test_fetch__local_tarball_then_store(void **state)
{
  struct fx *f = *state;
  struct nub_fetch_result res;
  struct nub_err err;
  struct nub_pkg *p;
  struct nub_index *x = NULL;
  char sri[128], *url;

  make_tarball(f, "a", "1.0.0", &url, sri);
  p = nub_pkgtab_get(&f->t, "a", "1.0.0", url, sri);
  p->needed = true;
  assert_int_equal(fetch(f, false, &res, &err), 0);
  assert_int_equal(res.fetched, 1);
  assert_int_equal(res.cached, 0);
  assert_non_null(p->index);
  assert_string_equal(p->index->name, "a");
  assert_int_equal(nub_store_index_load(&f->ts.store, p->key, &x), 0);
  nub_index_free(x);

  /* the second time the store has it, even with the file gone */
  nub_index_free(p->index);
  p->index = NULL;
  assert_int_equal(unlink(url + 5), 0);
  assert_int_equal(fetch(f, true, &res, &err), 0);
  assert_int_equal(res.fetched, 0);
  assert_int_equal(res.cached, 1);
  assert_non_null(p->index);
  nub_free(url);
}

/* Big packages (40 MiB and 12 MiB unpacked) stream through fixed windows:
 * every one arrives whole, with small ones among them, and no extractor's
 * buffers ever hold a package whole (they held 40 MiB and more, with at
 * most 32 MiB of them unpacking at once, before). */
static void test_fetch__big_packages_never_held_whole(void **state)
{
  struct fx *f = *state;
  struct nub_fetch_result res;
  struct nub_err err;
  struct nub_pkg *p[8];
  char sri[128], *url, name[16];

  for (int i = 0; i < 8; i++) {
    snprintf(name, sizeof(name), "%s%d", i % 2 ? "small" : "big", i);
    if (i % 2)
      make_tarball(f, name, "1.0.0", &url, sri);
    else
      make_big_tarball(f, name, i < 4 ? 40 : 12, &url, sri);
    p[i] = nub_pkgtab_get(&f->t, name, "1.0.0", url, sri);
    p[i]->needed = true;
    nub_free(url);
  }
  assert_int_equal(fetch(f, false, &res, &err), 0);
  assert_int_equal(res.fetched, 8);
  for (int i = 0; i < 8; i++) {
    assert_non_null(p[i]->index);
    if (!(i % 2)) {
      uint64_t want = (i < 4 ? 40u : 12u) << 20;
      assert_int_equal(p[i]->index->nfiles, 2);
      assert_true(p[i]->index->files[0].size == want || p[i]->index->files[1].size == want);
    }
  }
  assert_true(res.unpack_held_peak > 0);
  assert_true(res.unpack_held_peak < (4u << 20));
}

static void test_fetch__integrity_mismatch_stores_nothing(void **state)
{
  struct fx *f = *state;
  struct nub_fetch_result res;
  struct nub_err err;
  struct nub_pkg *p;
  struct nub_index *x = NULL;
  char sri[128], other[128], *url, *url2;

  make_tarball(f, "b", "1.0.0", &url, sri);
  make_tarball(f, "c", "1.0.0", &url2, other);
  p = nub_pkgtab_get(&f->t, "b", "1.0.0", url, other); /* c's digest for b's bytes */
  p->needed = true;
  assert_int_equal(fetch(f, false, &res, &err), -NUB_EINTEGRITY);
  assert_non_null(strstr(err.msg, "b@1.0.0"));
  assert_null(p->index);
  assert_int_equal(nub_store_index_load(&f->ts.store, p->key, &x), -ENOENT);
  nub_free(url);
  nub_free(url2);
}

static void test_fetch__unusable_integrity_is_never_fetched(void **state)
{
  struct fx *f = *state;
  struct nub_fetch_result res;
  struct nub_err err;
  struct nub_pkg *p;
  char sri[128], *url;

  make_tarball(f, "d", "1.0.0", &url, sri);
  p = nub_pkgtab_get(&f->t, "d", "1.0.0", url, "sha512-");
  p->needed = true;
  assert_int_equal(fetch(f, false, &res, &err), -NUB_EINTEGRITY);
  assert_non_null(strstr(err.msg, "d@1.0.0"));
  assert_int_equal(res.fetched, 0);
  nub_free(url);
}

static void test_fetch__optional_failure_is_recorded(void **state)
{
  struct fx *f = *state;
  struct nub_fetch_result res;
  struct nub_err err;
  struct nub_pkg *ok, *gone;
  char sri[128], *url, *missing;

  make_tarball(f, "e", "1.0.0", &url, sri);
  missing = nub_asprintf("file:%s/nothing-1.0.0.tgz", f->ts.dir);
  ok = nub_pkgtab_get(&f->t, "e", "1.0.0", url, sri);
  gone = nub_pkgtab_get(&f->t, "nothing", "1.0.0", missing, NULL);
  ok->needed = gone->needed = gone->optional = true;
  assert_int_equal(fetch(f, false, &res, &err), 0);
  assert_non_null(ok->index);
  assert_false(ok->failed);
  assert_true(gone->failed);
  assert_true(gone->fail_code < 0);
  assert_non_null(gone->fail_msg);
  assert_non_null(strstr(gone->fail_msg, "nothing@1.0.0"));
  assert_null(gone->index);

  /* one that is not optional fails the fetch */
  nub_free(missing);
  missing = nub_asprintf("file:%s/required-1.0.0.tgz", f->ts.dir);
  gone = nub_pkgtab_get(&f->t, "required", "1.0.0", missing, NULL);
  gone->needed = true;
  assert_true(fetch(f, false, &res, &err) < 0);
  assert_non_null(strstr(err.msg, "required@1.0.0"));
  assert_false(gone->failed);
  nub_free(url);
  nub_free(missing);
}

/* A damaged tarball on disk is not fetched again: it would be the same. */
static void test_fetch__a_local_tarball_is_not_retried(void **state)
{
  struct fx *f = *state;
  static const char *const cli[] = {"fetch-retries=3", "fetch-retry-mintimeout=1",
                                    "fetch-retry-maxtimeout=2", "registry=http://127.0.0.1:9/"};
  struct nub_fetch_result res;
  struct nub_err err;
  struct nub_pkg *p;
  char *path = nub_asprintf("%s/broken-1.0.0.tgz", f->ts.dir), *url;

  nub_config_release(&f->cfg);
  assert_int_equal(nub_config_load(&f->cfg, f->ts.dir, cli, 4, &err), 0);
  nub_test_write(path, "\x1f\x8b\x08 not really gzip", 0644);
  url = nub_asprintf("file:%s", path);
  p = nub_pkgtab_get(&f->t, "broken", "1.0.0", url, NULL);
  p->needed = true;
  assert_true(fetch(f, false, &res, &err) < 0);
  assert_non_null(strstr(err.msg, "broken@1.0.0"));
  assert_null(strstr(err.msg, "attempts"));
  nub_free(url);
  nub_free(path);
}

static void test_fetch__offline_names_the_missing(void **state)
{
  struct fx *f = *state;
  struct nub_fetch_result res;
  struct nub_err err;
  struct nub_pkg *p, *q, *opt;

  p = nub_pkgtab_get(&f->t, "f", "1.0.0", "http://127.0.0.1:9/f/-/f-1.0.0.tgz", NULL);
  q = nub_pkgtab_get(&f->t, "g", "2.0.0", "http://127.0.0.1:9/g/-/g-2.0.0.tgz", NULL);
  opt = nub_pkgtab_get(&f->t, "h", "3.0.0", "http://127.0.0.1:9/h/-/h-3.0.0.tgz", NULL);
  p->needed = q->needed = opt->needed = opt->optional = true;
  assert_int_equal(fetch(f, true, &res, &err), -NUB_EOFFLINE);
  assert_true(strstr(err.msg, "f@1.0.0") || strstr(err.msg, "g@2.0.0"));
  assert_non_null(strstr(err.msg, "and 1 more"));
  assert_non_null(strstr(err.msg, "--offline"));
  assert_true(opt->failed);
  assert_int_equal(opt->fail_code, -NUB_EOFFLINE);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_fetch__local_tarball_then_store, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fetch__big_packages_never_held_whole, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fetch__integrity_mismatch_stores_nothing, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_fetch__unusable_integrity_is_never_fetched, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_fetch__optional_failure_is_recorded, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fetch__a_local_tarball_is_not_retried, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_fetch__offline_names_the_missing, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
