/* test_store.c - core/store.h, index.h and pkgfacts.h: an import becomes
 * content files and an index (or a tree), the facts derived on the way
 * (bins, exec bits of bundled bins, script flags, phantoms), and what a
 * damaged index or store does. */
#include "nub_test.h"

#include <errno.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "index.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "pkgfacts.h"
#include "store.h"
#include "store_fixture.h"

static void put(struct nub_import *im, const char *path, const char *data, unsigned mode)
{
  assert_int_equal(nub_import_file_begin(im, path, mode), 0);
  assert_int_equal(nub_import_file_write(im, data, strlen(data)), 0);
  assert_int_equal(nub_import_file_end(im), 0);
}

static const struct nub_index_file *file_of(const struct nub_index *x, const char *path)
{
  for (uint32_t i = 0; i < x->nfiles; i++)
    if (!strcmp(x->files[i].path, path))
      return &x->files[i];
  return NULL;
}

static void key_of(char c, char key[65])
{
  memset(key, c, 64);
  key[64] = '\0';
}

static struct nub_index *import_sample(struct nub_test_store *f, bool tree, char c)
{
  struct nub_import *im;
  struct nub_index *x = NULL;
  struct nub_err err;
  char key[65];

  assert_int_equal(nub_import_begin(&f->store, &im, &err), 0);
  if (tree)
    assert_true(nub_import_as_tree(im, "@s/p"));
  put(im, "package.json",
      "{\"name\":\"@s/p\",\"version\":\"1.2.3\",\"bin\":{\"p\":\"cli.js\"},"
      "\"os\":[\"linux\",\"darwin\"],\"dependencies\":{\"dep\":\"1\"},"
      "\"scripts\":{\"postinstall\":\"node x\"}}", 0644);
  put(im, "cli.js", "#!/usr/bin/env node\nrequire('dep'); require('phantom');\n", 0644);
  put(im, "lib/a.js", "module.exports = require('./b') + require('other/x');\n", 0644);
  put(im, "binding.gyp", "{}", 0644);
  put(im, "node_modules/bun/package.json",
      "{\"name\":\"bun\",\"version\":\"1.0.0\",\"bin\":\"bin/run\"}", 0644);
  put(im, "node_modules/bun/bin/run", "#!/bin/sh\n", 0644);
  /* a package.json deeper in a bundled package is not a package's */
  put(im, "node_modules/bun/lib/package.json", "{\"bin\":{\"t\":\"tool.js\"}}", 0644);
  put(im, "node_modules/bun/lib/tool.js", "x", 0644);
  key_of(c, key);
  assert_int_equal(nub_import_commit(im, key, &x, &err), 0);
  return x;
}

static void test_store__import_commit_load(void **state)
{
  struct nub_test_store *f = *state;
  struct nub_index *x = import_sample(f, false, 'a'), *y = NULL;
  char key[65];

  assert_string_equal(x->name, "@s/p");
  assert_string_equal(x->version, "1.2.3");
  assert_string_equal(x->os, "linux,darwin");
  assert_string_equal(x->phantoms, "other,phantom");
  assert_true(x->flags & NUB_IDX_INSTALL_SCRIPT);
  assert_true(x->flags & NUB_IDX_BINDING_GYP);
  assert_false(x->flags & NUB_IDX_TREE);
  assert_int_equal(x->nbins, 1);
  assert_string_equal(x->bins[0].name, "p");
  /* bin targets, the bundled package's too, are executable in the store */
  assert_int_equal(file_of(x, "cli.js")->mode, 0755);
  assert_int_equal(file_of(x, "node_modules/bun/bin/run")->mode, 0755);
  assert_int_equal(file_of(x, "node_modules/bun/lib/tool.js")->mode, 0644);
  assert_int_equal(file_of(x, "lib/a.js")->mode, 0644);
  /* the same index from disk */
  key_of('a', key);
  assert_int_equal(nub_store_index_load(&f->store, key, &y), 0);
  assert_int_equal(y->nfiles, x->nfiles);
  assert_memory_equal(y->files[0].hash, x->files[0].hash, 32);
  nub_index_free(y);
  /* a missing one, then a removed one */
  key_of('b', key);
  assert_int_equal(nub_store_index_load(&f->store, key, &y), -ENOENT);
  key_of('a', key);
  nub_store_index_remove(&f->store, key);
  assert_int_equal(nub_store_index_load(&f->store, key, &y), -ENOENT);
  nub_index_free(x);
}

static void test_store__tree_import(void **state)
{
  struct nub_test_store *f = *state;
  struct nub_index *x = import_sample(f, true, 'c');
  struct nub_plat_stat st;
  char *p;

  assert_true(x->flags & NUB_IDX_TREE);
  assert_non_null(x->tree);
  p = nub_asprintf("%s/%s/cli.js", f->store.root, x->tree);
  assert_int_equal(nub_plat_stat_at(NUB_PLAT_CWD, p, &st), 0);
  assert_int_equal(st.mode & 0777, 0755);
  nub_free(p);
  /* each file's CRC-32, for `nub store verify` (zlib.crc32(b"x"), (b"{}")) */
  assert_true(x->flags & NUB_IDX_TREE_CRC);
  assert_int_equal(nub_index_tree_crc(file_of(x, "node_modules/bun/lib/tool.js")->hash),
                   0x8cdc1683u);
  assert_int_equal(nub_index_tree_crc(file_of(x, "binding.gyp")->hash), 0xa3a6bf43u);
  nub_index_free(x);
}

static void test_store__damaged_index(void **state)
{
  struct nub_test_store *f = *state;
  struct nub_index *x = import_sample(f, false, 'd'), *y = NULL;
  char *blob;

  /* truncations (every seventh length, header and records alike) and a
   * flipped offset are refused, never read out of bounds */
  for (size_t n = 0; n < x->len; n += 7) {
    blob = nub_malloc(n + 1);
    memcpy(blob, x->blob, n);
    assert_int_equal(nub_index_parse(blob, n, &y), -NUB_ESTORE);
  }
  blob = nub_malloc(x->len);
  memcpy(blob, x->blob, x->len);
  /* the first file's path offset: after the 64-byte header, at byte 40 of
   * its 48-byte record (hash 32, size 8) */
  memset(blob + 64 + 40, 0xff, 4);
  assert_int_equal(nub_index_parse(blob, x->len, &y), -NUB_ESTORE);
  nub_index_free(x);
}

static void test_store__facts_directories_bin(void **state)
{
  struct nub_pkgfacts pf;
  struct nub_pkgfacts_input in;
  static const char pj[] = "{\"name\":\"sshpk\",\"directories\":{\"bin\":\"./bin\"}}";
  const char *paths[] = {"bin/a", "bin/b", "lib/c.js"};
  (void)state;
  memset(&in, 0, sizeof(in));
  in.pkgjson = pj;
  in.pkgjson_len = sizeof(pj) - 1;
  in.paths = paths;
  in.npaths = 3;
  nub_pkgfacts_derive(&pf, &in);
  assert_true(pf.flags & NUB_IDX_BINS_FROM_DIR);
  assert_int_equal(pf.nbins, 2);
  assert_true(nub_pkgfacts_exec(&pf, "bin/b"));
  assert_false(nub_pkgfacts_exec(&pf, "lib/c.js"));
  nub_pkgfacts_release(&pf);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_store__import_commit_load, nub_test_store_setup,
                                      nub_test_store_teardown),
      cmocka_unit_test_setup_teardown(test_store__tree_import, nub_test_store_setup,
                                      nub_test_store_teardown),
      cmocka_unit_test_setup_teardown(test_store__damaged_index, nub_test_store_setup,
                                      nub_test_store_teardown),
      cmocka_unit_test(test_store__facts_directories_bin),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
