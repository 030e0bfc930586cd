/* nub_test.c - shared helpers for the cmocka unit tests. */
#include "nub_test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nub_alloc.h"
#include "nub_plat.h"

char *nub_test_mkdtemp(const char *tag)
{
  const char *base = getenv("NUB_TEST_TMP");
  char *tmpl;

  if (!base || !*base)
    base = "/tmp";
  nub_plat_mkdir_p(base, 0755);
  tmpl = nub_asprintf("%s/%s-XXXXXX", base, tag);
  if (!mkdtemp(tmpl))
    fail_msg("mkdtemp %s failed", tmpl);
  return tmpl;
}

void nub_test_write(const char *path, const char *data, unsigned mode)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, (mode_t)mode);
  size_t n = strlen(data);

  if (fd < 0)
    fail_msg("cannot create %s", path);
  if (write(fd, data, n) != (ssize_t)n)
    fail_msg("cannot write %s", path);
  close(fd);
  chmod(path, (mode_t)mode);
}

void nub_test_store_open(struct nub_test_store *t, const char *tag)
{
  struct nub_err err;
  char *dir;

  t->dir = nub_test_mkdtemp(tag);
  dir = nub_asprintf("%s/store", t->dir);
  if (nub_store_open(&t->store, dir, &err) < 0)
    fail_msg("cannot open a store at %s: %s", dir, err.msg);
  nub_free(dir);
}

void nub_test_store_close(struct nub_test_store *t)
{
  nub_store_close(&t->store);
  nub_plat_rm_rf_at(NUB_PLAT_CWD, t->dir);
  nub_free(t->dir);
  t->dir = NULL;
}

int nub_test_store_setup(void **state)
{
  struct nub_test_store *t = nub_calloc(1, sizeof(*t));
  nub_test_store_open(t, "store");
  *state = t;
  return 0;
}

int nub_test_store_teardown(void **state)
{
  nub_test_store_close(*state);
  nub_free(*state);
  return 0;
}
