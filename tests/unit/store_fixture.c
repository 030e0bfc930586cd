/* store_fixture.c - see store_fixture.h. */
#include "store_fixture.h"

#include "nub_test.h"

#include "err.h"
#include "nub_alloc.h"
#include "nub_plat.h"

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
