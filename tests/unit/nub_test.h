/* nub_test.h - shared helpers for the cmocka unit tests. */
#ifndef NUB_TEST_H
#define NUB_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four headers above first. */
#include <cmocka.h>

/* A fresh empty directory for one test under $NUB_TEST_TMP (or /tmp);
 * returns a path the caller frees with nub_free. */
char *nub_test_mkdtemp(const char *tag);
/* Write a file (creating it), aborting the test on failure. */
void nub_test_write(const char *path, const char *data, unsigned mode);

/* A fresh, empty store in a temporary directory, for the tests of what
 * goes into one (store, extraction, fetch). */
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
