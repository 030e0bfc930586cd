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

#endif
