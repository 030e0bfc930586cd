/* fuzz_tarball.c - the extraction path: gzip (or plain) tar into a store
 * import, with every check a tarball from the network meets (names, links,
 * traversal, limits), then the import discarded, held whole and streamed
 * (which must agree); and the tar reader and
 * the package.json finder on their own. The store is a temporary
 * directory, removed at exit. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "extract.h"
#include "nub_plat.h"
#include "path.h"
#include "store.h"
#include "tar.h"

static struct nub_store store;
static char dir[64];

static void cleanup(void)
{
  nub_store_close(&store);
  nub_plat_rm_rf(dir);
}

struct src {
  const uint8_t *p;
  size_t len;
  int given;
  size_t off, piece; /* piece: the stream's chunk size (0: all at once) */
};

static long rd(void *ud, const void **buf)
{
  struct src *s = ud;
  size_t n;
  if (s->piece) {
    n = s->len - s->off < s->piece ? s->len - s->off : s->piece;
    *buf = s->p + s->off;
    s->off += n;
    return (long)n;
  }
  if (s->given)
    return 0;
  s->given = 1;
  *buf = s->p;
  return (long)s->len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static int ready;
  struct nub_extract_limits lim = {2000, 1u << 20, 4u << 20};
  struct nub_extract_stats st, sst;
  struct nub_import *im;
  struct src ss = {data, size, 0, 0, 1 + size % 997};
  int rc, src_rc;
  struct nub_tar t;
  struct nub_tar_entry e;
  struct nub_err err;
  struct src s = {data, size, 0, 0, 0};
  char *pj = NULL, norm[4096];
  size_t pjlen;

  if (!ready) {
    snprintf(dir, sizeof(dir), "/tmp/nub-fuzz-store-%d", (int)getpid());
    nub_err_clear(&err);
    if (nub_store_open(&store, dir, &err) < 0)
      abort();
    atexit(cleanup);
    ready = 1;
  }
  nub_tar_init(&t, data, size);
  while (nub_tar_next(&t, &e) == 1)
    nub_path_normalize(e.path, norm, sizeof(norm));
  nub_tar_release(&t);
  nub_err_clear(&err);
  if (nub_tarball_package_json(data, size, &pj, &pjlen, &err) == 0)
    nub_free(pj);
  nub_err_clear(&err);
  if (nub_import_begin(&store, &im, &err) < 0)
    abort();
  memset(&st, 0, sizeof(st));
  rc = nub_extract(im, rd, &s, "fuzz@1.0.0", &lim, NULL, NULL, &st, &err);
  nub_import_abort(im);
  /* the stream, in odd pieces, accepts what the whole path accepts, with
   * the same files, and refuses what it refuses */
  nub_err_clear(&err);
  if (nub_import_begin(&store, &im, &err) < 0)
    abort();
  memset(&sst, 0, sizeof(sst));
  src_rc = nub_extract_stream(im, rd, &ss, "fuzz@1.0.0", &lim, NULL, &sst, &err);
  nub_import_abort(im);
  if ((rc == 0) != (src_rc == 0))
    abort();
  if (rc == 0 && (st.files != sst.files || st.bytes != sst.bytes || st.dirs != sst.dirs ||
                  st.skipped != sst.skipped))
    abort();
  return 0;
}
