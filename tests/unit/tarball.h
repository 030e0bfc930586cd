/* tarball.h - building tar archives and gzip members in tests (the
 * extraction and fetch tests feed them to nub). */
#ifndef NUB_TEST_TARBALL_H
#define NUB_TEST_TARBALL_H

#include <stddef.h>

#include "buf.h"

/* An octal field of n bytes (NUL-terminated), and the header checksum:
 * for tests that forge headers by hand. */
void nub_test_tar_octal(unsigned char *f, size_t n, unsigned long long v);
void nub_test_tar_seal(unsigned char *h);
/* One ustar header of `type` ('0' file, '5' directory, 'x' pax, ...) and
 * its data, padded to 512, appended to b. Names over 100 bytes are cut. */
void nub_test_tar_entry(struct nub_buf *b, const char *name, char type, const void *data,
                        size_t n, unsigned mode);
/* A pax extended header carrying `records` (n bytes). */
void nub_test_tar_pax(struct nub_buf *b, const char *records, size_t n);
/* The two zero blocks that end an archive. */
void nub_test_tar_finish(struct nub_buf *b);
/* One gzip member of [p, p+n) (libdeflate, level 6). */
struct nub_buf nub_test_gzip(const void *p, size_t n);
/* A whole npm-style tarball: package/package.json = pkg_json, plus
 * package/index.js, gzipped. */
struct nub_buf nub_test_npm_tarball(const char *pkg_json);

#endif
