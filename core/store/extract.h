/* extract.h - safe tarball extraction into a store import: the tarball is
 * held whole, gunzipped whole by libdeflate (which checks every member's
 * CRC-32 too) and its entries read by tar.h, names byte for byte; or, for
 * a big one, streamed through zlib and tar.h's window (nub_extract_stream),
 * with the same rules.
 *
 * Rules (reliability research, npm's behaviour where it is safe):
 *  - the leading folder ("package/" or any other name) is stripped;
 *  - regular files and directories are materialised; symlink, hardlink,
 *    device, fifo and socket entries are skipped and counted, as npm does;
 *  - absolute paths, ".." components, backslashes and over-long names make
 *    the tarball an error: nothing of it is published;
 *  - only the executable bit of a mode survives (0644/0755);
 *  - caps: 200,000 entries, 512 MiB per entry, 1 GiB per tarball; exceeding
 *    one is an error, never a silent truncation. */
#ifndef NUB_EXTRACT_H
#define NUB_EXTRACT_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"
#include "store.h"

/* Pull the next chunk of the compressed stream: returns its length (>0), 0 at
 * the end, or a negative error. *buf stays valid until the next call. */
typedef long (*nub_extract_read_fn)(void *ud, const void **buf);
/* Called once the whole stream has been read and before anything of it is
 * unpacked (same ud): a non-zero return (a negative error) stops the
 * extraction with that error, e.g. for an integrity mismatch. */
typedef int (*nub_extract_check_fn)(void *ud);

struct nub_extract_limits {
  uint64_t max_entries, max_entry_bytes, max_total_bytes;
};
extern const struct nub_extract_limits nub_extract_default_limits;

struct nub_extract_stats {
  uint64_t entries, files, dirs, bytes, skipped;
  bool refused; /* the error was a refusal (hostile entry, a cap), not damage */
  uint64_t held; /* what the scratch's buffers held at the end, the most */
};

/* The buffers for the whole compressed stream and the unpacked tar stream,
 * and the decoder, which a thread keeps from one tarball to the next so
 * that their pages stay mapped. Zero-initialise; nub_extract_scratch_release
 * at the end. Very big buffers are dropped after use rather than kept. */
struct libdeflate_decompressor;
struct z_stream_s;
struct nub_extract_scratch {
  struct nub_buf in;                 /* the compressed tarball */
  unsigned char *out;                /* the tar stream, unpacked whole */
  size_t outcap;
  struct libdeflate_decompressor *dd;
  struct nub_buf files; /* the import's file bytes (nub_import_reuse) */
  /* nub_extract_stream: the unpacked window and zlib's state */
  struct nub_buf win;
  struct z_stream_s *z;
};
void nub_extract_scratch_release(struct nub_extract_scratch *s);

/* Extract a gzip'd (or plain) tar from rd into im. `what` names the package
 * in errors ("lodash@4.17.21"). The whole compressed stream is read first
 * (into `scratch`; NULL: buffers of its own), then `check` runs (the
 * caller's verification of a cryptographic digest), then it is unpacked.
 * Returns 0, the read callback's or the check's own negative error, or
 * -NUB_EEXTRACT with a message. */
int nub_extract(struct nub_import *im, nub_extract_read_fn rd, void *ud,
                const char *what, const struct nub_extract_limits *lim,
                nub_extract_check_fn check, struct nub_extract_scratch *scratch,
                struct nub_extract_stats *st, struct nub_err *err);

/* The same, streamed: unpacked as rd gives it, through a window of fixed
 * size (tar.h) and zlib's 32 KiB one, so the memory it takes does not grow
 * with the tarball (only a file's bytes up to the import's spill size, and
 * an extended header). There is no check: the caller verifies the digest
 * before (the bytes are all downloaded) or, with them, before committing.
 * The same entries, refusals and errors as nub_extract, except which cap a
 * refusal names (a stream meets an entry's caps before the total) and
 * that damage is found where it is read, after earlier entries went to im
 * (which the caller aborts). */
int nub_extract_stream(struct nub_import *im, nub_extract_read_fn rd, void *ud,
                       const char *what, const struct nub_extract_limits *lim,
                       struct nub_extract_scratch *scratch, struct nub_extract_stats *st,
                       struct nub_err *err);

/* The package.json of a (gzip'd) tarball, the one in its top folder: *out
 * is NUL-terminated (nub_free it). -NUB_EEXTRACT when there is none. */
int nub_tarball_package_json(const void *tgz, size_t len, char **out, size_t *outlen,
                             struct nub_err *err);

/* Import a directory of the project (a "file:" dependency) into im: every
 * regular file below it except node_modules and .git, modes kept to their
 * executable bit. Symlinks are skipped, never followed. */
int nub_import_directory(struct nub_import *im, const char *dir, const char *what,
                         struct nub_extract_stats *st, struct nub_err *err);
/* The same with only the files `npm pack` would pack (packlist.h): a
 * directory nub packs itself, such as a git dependency's checkout. */
int nub_import_packed(struct nub_import *im, const char *dir, const char *what,
                      struct nub_extract_stats *st, struct nub_err *err);

#endif
