/* tar.h - the entries of a tar archive held whole in memory: ustar, POSIX
 * pax ('x' and the older 'X' records: path and size; linkpath is not read,
 * links being skipped) and GNU long names ('L'; 'K' is passed over).
 *
 * Why not libarchive: it converts every pax path (UTF-8 by the standard)
 * to the current locale. In the C locale it keeps a non-ASCII name's bytes
 * but returns ARCHIVE_WARN ("Pathname can't be converted from UTF-8 to
 * current locale") for its header, which a reader must then tell apart
 * from a damaged one; in a UTF-8 locale it rewrites the name to Unicode
 * NFC on Linux, so an NFD name from the tarball comes out with other bytes
 * (measured with Debian's libarchive 3.6.2: "cafe\xcc\x81" read as
 * "caf\xc3\xa9"). npm writes the bytes the tarball has, and so does this
 * reader: names are never converted, whatever the locale.
 *
 * Two ways in: a buffer held whole (nub_tar_init), or a stream pulled
 * through a window of the caller's (nub_tar_init_stream), so that a big
 * archive never needs memory of its size. Both read the same entries and
 * refuse the same archives, with the same reasons; a stream learns that
 * an entry runs past the end only when it reads that far.
 *
 * Hostile input: a header whose checksum does not add up, a size past the
 * end of the data, a pax record that does not parse, an extended header
 * of more than NUB_TAR_META_MAX bytes or a name with a NUL byte inside is
 * an error with a reason; nothing is read outside the buffer. */
#ifndef NUB_TAR_H
#define NUB_TAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

enum nub_tar_type {
  NUB_TAR_FILE,     /* '0', '\0', '7' */
  NUB_TAR_DIR,      /* '5' */
  NUB_TAR_HARDLINK, /* '1' */
  NUB_TAR_SYMLINK,  /* '2' */
  NUB_TAR_OTHER,    /* devices, fifos, sparse files, anything else */
};

/* The biggest pax or GNU long-name header read (a path is at most 4 KiB
 * where it is used: anything near this is hostile). */
#define NUB_TAR_META_MAX (1u << 20)

struct nub_tar_entry {
  const char *path; /* the raw bytes of the name, NUL-terminated */
  enum nub_tar_type type;
  unsigned mode;    /* permission bits from the header */
  /* the size bytes inside the buffer (files), held whole; NULL from a
   * stream: read them with nub_tar_read */
  const unsigned char *data;
  uint64_t size;
};

/* Fill dst with up to room more bytes of the archive: how many (> 0), 0 at
 * its end, or a negative error, which the reader returns as it is. */
typedef long (*nub_tar_fill_fn)(void *ud, unsigned char *dst, size_t room);

struct nub_tar {
  const unsigned char *p;
  size_t len, off;
  size_t entries; /* returned so far */
  struct nub_buf name, longname, paxpath; /* owned */
  const char *why; /* the reason of the last error (static text) */
  uint64_t remain, pad; /* the current entry's bytes not read yet, its padding */
  /* a stream: p is win's bytes, refilled by fill */
  nub_tar_fill_fn fill;
  void *fill_ud;
  struct nub_buf *win;
  bool eof;
};

void nub_tar_init(struct nub_tar *t, const void *buf, size_t len);
/* A stream read through win (the caller's: kept across archives, so its
 * pages stay mapped; it grows past its capacity only for an extended
 * header bigger than it, never for a file). */
void nub_tar_init_stream(struct nub_tar *t, nub_tar_fill_fn fill, void *ud,
                         struct nub_buf *win);
void nub_tar_release(struct nub_tar *t);
/* The next entry: 1 and *e filled (valid until the next call), 0 at the
 * end of the archive, -EBADMSG with t->why when the archive is corrupt,
 * or the fill function's own error. */
int nub_tar_next(struct nub_tar *t, struct nub_tar_entry *e);
/* The next bytes of the current entry's data: their count (> 0) with *p
 * (valid until the next call), 0 when all were read, -EBADMSG (t->why) when
 * the archive ends inside them, or the fill function's error. Held whole,
 * the first call gives them all. */
long nub_tar_read(struct nub_tar *t, const unsigned char **p);

#endif
