/* test_link.c - the linker's primitive ladder and package materialisation.
 *
 * Built twice: against the native platform (Linux here: hard links, and the
 * ladder driven by injected faults) and, on Linux, against the macOS backend
 * over the Darwin shim (whole-directory clones, the small-file copy
 * threshold). Tests branch on the platform's capabilities, not the OS. */
#include "nub_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "link.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "store.h"

struct fx {
  char *dir;
  struct nub_store store;
  struct nub_index *idx;
  int dst_fd;
};

static const char big_marker = 'Z';

/* A package with a small file, a 64 KiB file, a nested file and a bin. */
static int setup(void **state)
{
  struct fx *f = nub_calloc(1, sizeof(*f));
  struct nub_err err;
  struct nub_import *im;
  char *dst, key[65];
  char *big = nub_malloc(65536);
  static const char pj[] = "{\"name\":\"p\",\"version\":\"1.0.0\",\"bin\":{\"p\":\"bin/p.js\"}}";

  memset(big, big_marker, 65536);
  f->dir = nub_test_mkdtemp("link");
  {
    char *s = nub_asprintf("%s/store", f->dir);
    assert_int_equal(nub_store_open(&f->store, s, &err), 0);
    nub_free(s);
  }
  assert_int_equal(nub_import_begin(&f->store, &im, &err), 0);
  nub_import_file_begin(im, "package.json", 0644);
  nub_import_file_write(im, pj, strlen(pj));
  assert_int_equal(nub_import_file_end(im), 0);
  nub_import_file_begin(im, "index.js", 0644);
  nub_import_file_write(im, "module.exports = 1;\n", 20);
  assert_int_equal(nub_import_file_end(im), 0);
  nub_import_file_begin(im, "lib/deep/x.js", 0644);
  nub_import_file_write(im, "exports.x = 2;\n", 15);
  assert_int_equal(nub_import_file_end(im), 0);
  nub_import_file_begin(im, "bin/p.js", 0644); /* not executable in the tarball */
  nub_import_file_write(im, "#!/usr/bin/env node\n", 20);
  assert_int_equal(nub_import_file_end(im), 0);
  nub_import_file_begin(im, "big.bin", 0644);
  nub_import_file_write(im, big, 65536);
  assert_int_equal(nub_import_file_end(im), 0);
  memset(key, 'a', 64);
  key[64] = '\0';
  assert_int_equal(nub_import_commit(im, key, &f->idx, &err), 0);
  dst = nub_asprintf("%s/dst", f->dir);
  assert_int_equal(nub_plat_mkdir_p(dst, 0755), 0);
  f->dst_fd = nub_plat_open_dir_at(NUB_PLAT_CWD, dst);
  assert_true(f->dst_fd >= 0);
  nub_free(dst);
  nub_free(big);
  *state = f;
  return 0;
}

static int teardown(void **state)
{
  struct fx *f = *state;

  for (int p = 0; p < NUB_PRIM__COUNT; p++)
    nub_plat_inject_fault((enum nub_prim)p, 0);
  nub_plat_close(f->dst_fd);
  nub_index_free(f->idx);
  nub_store_close(&f->store);
  nub_plat_rm_rf(f->dir);
  nub_free(f->dir);
  nub_free(f);
  return 0;
}

static void assert_same_files(struct fx *f, const char *name)
{
  for (uint32_t i = 0; i < f->idx->nfiles; i++) {
    char *rel = nub_asprintf("%s/%s", name, f->idx->files[i].path);
    struct nub_plat_stat st;
    assert_int_equal(nub_plat_stat_at(f->dst_fd, rel, &st), 0);
    assert_int_equal(st.size, f->idx->files[i].size);
    assert_int_equal(st.mode & 0777, f->idx->files[i].mode);
    nub_free(rel);
  }
}

static uint64_t total(const struct nub_link_stats *st)
{
  uint64_t n = 0;
  for (int p = 0; p < NUB_PRIM__COUNT; p++)
    n += st->t.files[p];
  return n;
}

/* The bin target became executable in the store, once, at import. */
static void test_link__bin_target_is_executable_in_store(void **state)
{
  struct fx *f = *state;
  bool found = false;

  for (uint32_t i = 0; i < f->idx->nfiles; i++) {
    if (!strcmp(f->idx->files[i].path, "bin/p.js")) {
      assert_int_equal(f->idx->files[i].mode, 0755);
      found = true;
    } else if (!strcmp(f->idx->files[i].path, "index.js")) {
      assert_int_equal(f->idx->files[i].mode, 0644);
    }
  }
  assert_true(found);
  assert_int_equal(f->idx->nbins, 1);
  assert_string_equal(f->idx->bins[0].name, "p");
}

/* auto: hard links on Linux, whole-directory clones where the OS has them. */
static void test_link__auto_uses_fastest_primitive(void **state)
{
  struct fx *f = *state;
  struct nub_linker l;
  struct nub_link_stats st;
  struct nub_plat_caps caps;
  struct nub_err err;

  memset(&st, 0, sizeof(st));
  nub_plat_caps(&caps);
  nub_linker_init(&l, &f->store, NUB_IMPORT_AUTO);
  nub_linker_probe(&l, f->dst_fd);
  assert_int_equal(nub_link_package(&l, f->idx, f->dst_fd, "node_modules/p", "p@1.0.0", &st, &err),
                   0);
  assert_same_files(f, "node_modules/p");
  assert_int_equal(total(&st), f->idx->nfiles);
  if (caps.has_clonedir) {
    struct nub_plat_stat s;
    char *tree = nub_asprintf("%s/store/v1/trees/%s", f->dir, f->idx->key);
    assert_int_equal(st.t.files[NUB_PRIM_CLONEDIR], f->idx->nfiles);
    assert_int_equal(nub_plat_stat_at(NUB_PLAT_CWD, tree, &s), 0); /* built once */
    nub_free(tree);
    /* a second copy comes from the same tree with one more clone */
    memset(&st, 0, sizeof(st));
    assert_int_equal(nub_link_package(&l, f->idx, f->dst_fd, "other/p", "p@1.0.0", &st, &err), 0);
    assert_int_equal(st.t.files[NUB_PRIM_CLONEDIR], f->idx->nfiles);
    assert_same_files(f, "other/p");
  } else {
    struct nub_plat_stat a, b;
    char src[67];
    assert_int_equal(st.t.files[NUB_PRIM_HARDLINK], f->idx->nfiles);
    /* shares the store's inode */
    assert_int_equal(nub_plat_stat_at(f->dst_fd, "node_modules/p/index.js", &a), 0);
    for (uint32_t i = 0; i < f->idx->nfiles; i++)
      if (!strcmp(f->idx->files[i].path, "index.js"))
        nub_store_file_name(f->idx->files[i].hash, false, src);
    assert_int_equal(nub_plat_stat_at(f->store.files_fd, src, &b), 0);
    assert_int_equal(a.ino, b.ino);
  }
  nub_linker_release(&l);
}

/* EXDEV from hard links: the device is ruled out, copies serve every file,
 * and each is counted as a fallback. */
static void test_link__exdev_falls_back_to_copy(void **state)
{
  struct fx *f = *state;
  struct nub_linker l;
  struct nub_link_stats st;
  struct nub_err err;

  memset(&st, 0, sizeof(st));
  nub_plat_inject_fault(NUB_PRIM_HARDLINK, -EXDEV);
  nub_linker_init(&l, &f->store, NUB_IMPORT_HARDLINK);
  assert_int_equal(nub_link_package(&l, f->idx, f->dst_fd, "x", "p@1.0.0", &st, &err), 0);
  assert_same_files(f, "x");
  assert_int_equal(st.t.files[NUB_PRIM_HARDLINK], 0);
  assert_int_equal(st.t.files[NUB_PRIM_COPY_RANGE] + st.t.files[NUB_PRIM_COPY], f->idx->nfiles);
  assert_int_equal(st.t.fallbacks, f->idx->nfiles);
  assert_true(l.off[NUB_PRIM_HARDLINK]);
  assert_int_equal(l.off_err[NUB_PRIM_HARDLINK], -EXDEV);
  nub_linker_release(&l);
}

/* EMLINK concerns one store inode: that file is copied, the rung stays. */
static void test_link__emlink_is_per_file(void **state)
{
  struct fx *f = *state;
  struct nub_linker l;
  struct nub_link_stats st;
  struct nub_err err;

  memset(&st, 0, sizeof(st));
  nub_plat_inject_fault(NUB_PRIM_HARDLINK, -EMLINK);
  nub_linker_init(&l, &f->store, NUB_IMPORT_HARDLINK);
  assert_int_equal(nub_link_package(&l, f->idx, f->dst_fd, "y", "p@1.0.0", &st, &err), 0);
  assert_false(l.off[NUB_PRIM_HARDLINK]);
  assert_int_equal(st.t.fallbacks, f->idx->nfiles);
  nub_linker_release(&l);
}

/* copy_file_range refusing (EINVAL, e.g. eCryptfs) steps down to read/write. */
static void test_link__copy_range_falls_back_to_stream(void **state)
{
  struct fx *f = *state;
  struct nub_linker l;
  struct nub_link_stats st;
  struct nub_err err;

  memset(&st, 0, sizeof(st));
  nub_plat_inject_fault(NUB_PRIM_COPY_RANGE, -EINVAL);
  nub_linker_init(&l, &f->store, NUB_IMPORT_COPY);
  assert_int_equal(nub_link_package(&l, f->idx, f->dst_fd, "z", "p@1.0.0", &st, &err), 0);
  assert_same_files(f, "z");
  assert_int_equal(st.t.files[NUB_PRIM_COPY], f->idx->nfiles);
  nub_linker_release(&l);
}

/* A real failure (EIO) is not a fallback: the package fails, naming itself. */
static void test_link__real_failure_stops(void **state)
{
  struct fx *f = *state;
  struct nub_linker l;
  struct nub_link_stats st;
  struct nub_err err;

  memset(&st, 0, sizeof(st));
  nub_plat_inject_fault(NUB_PRIM_HARDLINK, -EIO);
  nub_linker_init(&l, &f->store, NUB_IMPORT_HARDLINK);
  assert_true(nub_link_package(&l, f->idx, f->dst_fd, "w", "p@1.0.0", &st, &err) < 0);
  assert_non_null(strstr(err.msg, "p@1.0.0"));
  nub_linker_release(&l);
}

/* clone: a file system without clones gives every file to the copy rungs,
 * and the probe records why. */
static void test_link__clone_method_ladder(void **state)
{
  struct fx *f = *state;
  struct nub_linker l;
  struct nub_link_stats st;
  struct nub_err err;

  memset(&st, 0, sizeof(st));
  nub_plat_inject_fault(NUB_PRIM_CLONEDIR, -ENOTSUP);
  nub_plat_inject_fault(NUB_PRIM_REFLINK, -EOPNOTSUPP);
  nub_linker_init(&l, &f->store, NUB_IMPORT_CLONE);
  nub_linker_probe(&l, f->dst_fd);
  assert_true(l.off[NUB_PRIM_REFLINK]);
  assert_int_equal(l.off_err[NUB_PRIM_REFLINK], -EOPNOTSUPP);
  assert_int_equal(nub_link_package(&l, f->idx, f->dst_fd, "c", "p@1.0.0", &st, &err), 0);
  assert_same_files(f, "c");
  assert_int_equal(st.t.files[NUB_PRIM_REFLINK], 0);
  assert_int_equal(st.t.fallbacks, f->idx->nfiles);
  nub_linker_release(&l);
}

/* Where directory clones exist but fail (another volume), auto clones file
 * by file, and copies the small files (<= 16 KiB) instead of cloning them. */
static void test_link__small_copy_threshold(void **state)
{
  struct fx *f = *state;
  struct nub_linker l;
  struct nub_link_stats st;
  struct nub_plat_caps caps;
  struct nub_err err;

  nub_plat_caps(&caps);
  if (!caps.has_clonedir)
    skip();
  memset(&st, 0, sizeof(st));
  nub_plat_inject_fault(NUB_PRIM_CLONEDIR, -EXDEV);
  nub_linker_init(&l, &f->store, NUB_IMPORT_AUTO);
  assert_int_equal(nub_link_package(&l, f->idx, f->dst_fd, "s", "p@1.0.0", &st, &err), 0);
  assert_same_files(f, "s");
  assert_true(l.off[NUB_PRIM_CLONEDIR]);
  assert_int_equal(st.t.files[NUB_PRIM_SMALL_COPY], f->idx->nfiles - 1); /* all but big.bin */
  assert_int_equal(st.t.files[NUB_PRIM_REFLINK], 1);
  nub_linker_release(&l);
}

/* An existing package directory cannot be cloned over: files go one by one. */
static void test_link__clonedir_into_existing_dir(void **state)
{
  struct fx *f = *state;
  struct nub_linker l;
  struct nub_link_stats st;
  struct nub_plat_caps caps;
  struct nub_err err;

  nub_plat_caps(&caps);
  if (!caps.has_clonedir)
    skip();
  memset(&st, 0, sizeof(st));
  assert_int_equal(nub_plat_mkdir_at(f->dst_fd, "e", 0755), 0);
  nub_linker_init(&l, &f->store, NUB_IMPORT_AUTO);
  assert_int_equal(nub_link_package(&l, f->idx, f->dst_fd, "e", "p@1.0.0", &st, &err), 0);
  assert_same_files(f, "e");
  assert_int_equal(st.t.files[NUB_PRIM_CLONEDIR], 0);
  assert_false(l.off[NUB_PRIM_CLONEDIR]); /* EEXIST says nothing about the device */
  nub_linker_release(&l);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_link__bin_target_is_executable_in_store, setup, teardown),
    cmocka_unit_test_setup_teardown(test_link__auto_uses_fastest_primitive, setup, teardown),
    cmocka_unit_test_setup_teardown(test_link__exdev_falls_back_to_copy, setup, teardown),
    cmocka_unit_test_setup_teardown(test_link__emlink_is_per_file, setup, teardown),
    cmocka_unit_test_setup_teardown(test_link__copy_range_falls_back_to_stream, setup, teardown),
    cmocka_unit_test_setup_teardown(test_link__real_failure_stops, setup, teardown),
    cmocka_unit_test_setup_teardown(test_link__clone_method_ladder, setup, teardown),
    cmocka_unit_test_setup_teardown(test_link__small_copy_threshold, setup, teardown),
    cmocka_unit_test_setup_teardown(test_link__clonedir_into_existing_dir, setup, teardown),
  };
  nub_plat_init();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
