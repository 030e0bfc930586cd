/* store_fixture.h - a fresh, empty store in a temporary directory, for the
 * unit tests of what goes into one (store, extraction, fetch). */
#ifndef NUB_TEST_STORE_FIXTURE_H
#define NUB_TEST_STORE_FIXTURE_H

#include "store.h"

struct nub_test_store {
  char *dir; /* the temporary directory; the store is <dir>/store */
  struct nub_store store;
};
void nub_test_store_open(struct nub_test_store *t, const char *tag);
void nub_test_store_close(struct nub_test_store *t);
/* As cmocka setup and teardown: *state is a struct nub_test_store. */
int nub_test_store_setup(void **state);
int nub_test_store_teardown(void **state);

#endif
