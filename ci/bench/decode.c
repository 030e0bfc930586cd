/* decode.c - the decode-only corpus benchmark: gunzip every .tgz in a
 * directory (held in memory first), with libdeflate (what nub uses) and
 * zlib, one CPU, and print the median of several passes each.
 *
 *   cc -O2 ci/bench/decode.c -ldeflate -lz -o /tmp/decode && /tmp/decode DIR [passes]
 *
 * Built with -DNUB_INFLATE and core/inflate.c of a tree that still has it
 * (before libdeflate), it times that decoder as a third column. */
#include <dirent.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#ifdef NUB_INFLATE
#include "inflate.h"
#endif

struct blob {
  unsigned char *p;
  size_t n;
};

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static size_t gz_libdeflate(struct libdeflate_decompressor *d, const struct blob *b,
                            unsigned char **out, size_t *cap)
{
  size_t got = 0;
  for (;;) {
    enum libdeflate_result r = libdeflate_gzip_decompress(d, b->p, b->n, *out, *cap, &got);
    if (r == LIBDEFLATE_SUCCESS)
      return got;
    if (r != LIBDEFLATE_INSUFFICIENT_SPACE) {
      fprintf(stderr, "libdeflate: bad data\n");
      exit(1);
    }
    *cap *= 2;
    *out = realloc(*out, *cap);
  }
}

static size_t gz_zlib(const struct blob *b, unsigned char *out, size_t cap)
{
  z_stream z;
  size_t total = 0;
  memset(&z, 0, sizeof(z));
  inflateInit2(&z, 16 + MAX_WBITS);
  z.next_in = b->p;
  z.avail_in = (uInt)b->n;
  for (;;) {
    int r;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    r = inflate(&z, Z_NO_FLUSH);
    total += cap - z.avail_out;
    if (r == Z_STREAM_END)
      break;
    if (r != Z_OK && r != Z_BUF_ERROR) {
      fprintf(stderr, "zlib: error %d\n", r);
      exit(1);
    }
  }
  inflateEnd(&z);
  return total;
}

int main(int argc, char **argv)
{
  DIR *d;
  struct dirent *e;
  struct blob *v = NULL;
  size_t n = 0, cap = 0, in = 0, outbytes = 0, bufcap = 1 << 20;
  int passes = argc > 2 ? atoi(argv[2]) : 5;
  unsigned char *buf = malloc(bufcap);
  struct libdeflate_decompressor *ld = libdeflate_alloc_decompressor();
  double t_ld[64], t_z[64];
#ifdef NUB_INFLATE
  double t_nub[64];
  struct nub_inflate_stream *zs = nub_inflate_stream_new();
#endif

  if (argc < 2 || !(d = opendir(argv[1]))) {
    fprintf(stderr, "usage: decode DIR [passes]\n");
    return 2;
  }
  while ((e = readdir(d))) {
    char path[4096];
    FILE *f;
    long len;
    if (!strstr(e->d_name, ".tgz"))
      continue;
    snprintf(path, sizeof(path), "%s/%s", argv[1], e->d_name);
    if (!(f = fopen(path, "rb")))
      continue;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    rewind(f);
    if (n == cap)
      v = realloc(v, (cap = cap ? 2 * cap : 1024) * sizeof(*v));
    v[n].p = malloc((size_t)len);
    v[n].n = fread(v[n].p, 1, (size_t)len, f);
    in += v[n].n;
    n++;
    fclose(f);
  }
  closedir(d);
  if (passes > 64)
    passes = 64;
  for (int p = 0; p < passes; p++) {
    double t0 = now();
    outbytes = 0;
    for (size_t i = 0; i < n; i++)
      outbytes += gz_libdeflate(ld, &v[i], &buf, &bufcap);
    t_ld[p] = now() - t0;
    t0 = now();
    for (size_t i = 0; i < n; i++)
      gz_zlib(&v[i], buf, bufcap);
    t_z[p] = now() - t0;
#ifdef NUB_INFLATE
    t0 = now();
    /* as nub used it: 256 KiB windows, CRC left to the SRI check */
    for (size_t i = 0; i < n; i++) {
      const unsigned char *out;
      size_t got;
      const char *why;
      nub_inflate_stream_begin(zs, v[i].p, v[i].n, true, false, 1u << 30);
      while (nub_inflate_stream_next(zs, &out, &got, &why) == 0 && got)
        ;
    }
    t_nub[p] = now() - t0;
#endif
  }
  qsort(t_ld, (size_t)passes, sizeof(double), cmp);
  qsort(t_z, (size_t)passes, sizeof(double), cmp);
  printf("%zu tarballs, %.1f MB in, %.1f MB out, %d passes, CPU seconds (median)\n", n,
         in / 1e6, outbytes / 1e6, passes);
  printf("libdeflate %.3f s\nzlib       %.3f s\n", t_ld[passes / 2], t_z[passes / 2]);
#ifdef NUB_INFLATE
  qsort(t_nub, (size_t)passes, sizeof(double), cmp);
  printf("inflate.c  %.3f s (windowed, no CRC)\n", t_nub[passes / 2]);
#endif
  return 0;
}
