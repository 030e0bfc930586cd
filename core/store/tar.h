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
 * Hostile input: a header whose checksum does not add up, a size past the
 * end of the buffer, a pax record that does not parse or a name with a NUL
 * byte inside is an error with a reason; nothing is read outside the
 * buffer. */
#ifndef NUB_TAR_H
#define NUB_TAR_H

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

struct nub_tar_entry {
  const char *path; /* the raw bytes of the name, NUL-terminated */
  enum nub_tar_type type;
  unsigned mode;    /* permission bits from the header */
  const unsigned char *data; /* size bytes inside the buffer (files) */
  uint64_t size;
};

struct nub_tar {
  const unsigned char *p;
  size_t len, off;
  size_t entries; /* returned so far */
  struct nub_buf name, longname, paxpath; /* owned */
  const char *why; /* the reason of the last error (static text) */
};

void nub_tar_init(struct nub_tar *t, const void *buf, size_t len);
void nub_tar_release(struct nub_tar *t);
/* The next entry: 1 and *e filled (valid until the next call), 0 at the
 * end of the archive, -EBADMSG with t->why when the archive is corrupt. */
int nub_tar_next(struct nub_tar *t, struct nub_tar_entry *e);

#endif
