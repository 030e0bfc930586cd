/* tarball.c - see tarball.h. */
#include "tarball.h"

#include "nub_test.h"

#include <libdeflate.h>
#include <stdio.h>
#include <string.h>

#include "nub_alloc.h"

void nub_test_tar_octal(unsigned char *f, size_t n, unsigned long long v)
{
  char tmp[32];
  snprintf(tmp, sizeof(tmp), "%0*llo", (int)(n - 1), v);
  memcpy(f, tmp, n - 1);
  f[n - 1] = '\0';
}

void nub_test_tar_seal(unsigned char *h)
{
  unsigned sum = 0;
  memset(h + 148, ' ', 8);
  for (int i = 0; i < 512; i++)
    sum += h[i];
  nub_test_tar_octal(h + 148, 7, sum);
  h[155] = ' ';
}

void nub_test_tar_entry(struct nub_buf *b, const char *name, char type, const void *data,
                        size_t n, unsigned mode)
{
  unsigned char h[512];
  memset(h, 0, sizeof(h));
  memcpy(h, name, strlen(name) < 100 ? strlen(name) : 100);
  nub_test_tar_octal(h + 100, 8, mode);
  nub_test_tar_octal(h + 108, 8, 0);
  nub_test_tar_octal(h + 116, 8, 0);
  nub_test_tar_octal(h + 124, 12, n);
  nub_test_tar_octal(h + 136, 12, 499162500);
  h[156] = (unsigned char)type;
  memcpy(h + 257, "ustar\0" "00", 8);
  nub_test_tar_seal(h);
  nub_buf_add(b, h, 512);
  if (n) {
    static const char zeros[512];
    nub_buf_add(b, data, n);
    if (n % 512)
      nub_buf_add(b, zeros, 512 - n % 512);
  }
}

void nub_test_tar_pax(struct nub_buf *b, const char *records, size_t n)
{
  nub_test_tar_entry(b, "PaxHeader/x", 'x', records, n, 0644);
}

void nub_test_tar_finish(struct nub_buf *b)
{
  static const char zeros[1024];
  nub_buf_add(b, zeros, sizeof(zeros));
}

struct nub_buf nub_test_gzip(const void *p, size_t n)
{
  struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
  struct nub_buf out = NUB_BUF_INIT;
  size_t cap = libdeflate_gzip_compress_bound(c, n);
  out.data = nub_malloc(cap + 1);
  out.len = libdeflate_gzip_compress(c, p, n, out.data, cap);
  out.cap = cap + 1;
  assert_true(out.len > 0);
  libdeflate_free_compressor(c);
  return out;
}

struct nub_buf nub_test_npm_tarball(const char *pkg_json)
{
  struct nub_buf tar = NUB_BUF_INIT, gz;
  static const char js[] = "module.exports = 1;\n";

  nub_test_tar_entry(&tar, "package/package.json", '0', pkg_json, strlen(pkg_json), 0644);
  nub_test_tar_entry(&tar, "package/index.js", '0', js, sizeof(js) - 1, 0644);
  nub_test_tar_finish(&tar);
  gz = nub_test_gzip(tar.data, tar.len);
  nub_buf_release(&tar);
  return gz;
}
