/* tar.c - tar entries from a buffer or a stream; see tar.h. */
#include "tar.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#define BLOCK 512
/* A stream's window: big enough that a fill is worth its call, small
 * enough to stay in the cache the decoder writes through. */
#define WINDOW (256u << 10)

/* Header fields (POSIX ustar; GNU shares the first 345 bytes). */
#define F_NAME 0
#define F_MODE 100
#define F_SIZE 124
#define F_CHKSUM 148
#define F_TYPE 156
#define F_MAGIC 257
#define F_PREFIX 345

void nub_tar_init(struct nub_tar *t, const void *buf, size_t len)
{
  memset(t, 0, sizeof(*t));
  t->p = buf;
  t->len = len;
  t->why = "";
}

void nub_tar_init_stream(struct nub_tar *t, nub_tar_fill_fn fill, void *ud,
                         struct nub_buf *win)
{
  nub_tar_init(t, NULL, 0);
  t->fill = fill;
  t->fill_ud = ud;
  t->win = win;
  nub_buf_reset(win);
  if (win->cap < WINDOW + 1)
    nub_buf_reserve(win, WINDOW);
  t->p = (const unsigned char *)win->data;
}

void nub_tar_release(struct nub_tar *t)
{
  nub_buf_release(&t->name);
  nub_buf_release(&t->longname);
  nub_buf_release(&t->paxpath);
}

static int bad(struct nub_tar *t, const char *why)
{
  t->why = why;
  return -EBADMSG;
}

/* A stream: at least n bytes from t->off on in the window, unless the
 * archive ends first (the caller checks what it got). Held whole, it is
 * all there already. */
static int ensure(struct nub_tar *t, size_t n)
{
  struct nub_buf *w = t->win;

  if (!t->fill || t->len - t->off >= n || t->eof)
    return 0;
  if (t->off) {
    memmove(w->data, w->data + t->off, t->len - t->off);
    t->len -= t->off;
    t->off = 0;
  }
  if (n + 1 > w->cap) { /* an extended header bigger than the window */
    w->len = t->len;
    nub_buf_reserve(w, n - t->len);
  }
  t->p = (const unsigned char *)w->data;
  while (t->len < n && !t->eof) {
    long got = t->fill(t->fill_ud, (unsigned char *)w->data + t->len, w->cap - 1 - t->len);
    if (got < 0)
      return (int)got;
    if (got == 0)
      t->eof = true;
    t->len += (size_t)got;
  }
  return 0;
}

long nub_tar_read(struct nub_tar *t, const unsigned char **p)
{
  size_t avail;
  int rc;

  if (!t->remain)
    return 0;
  if (t->len == t->off && (rc = ensure(t, 1)) < 0)
    return rc;
  avail = t->len - t->off;
  if (!avail)
    return bad(t, "an entry runs past the end of the archive");
  if (avail > t->remain)
    avail = (size_t)t->remain;
  *p = t->p + t->off;
  t->off += avail;
  t->remain -= avail;
  return (long)avail;
}

/* Past the current entry's unread bytes and its padding (which a final
 * entry may lack). */
static int skip_entry(struct nub_tar *t)
{
  const unsigned char *p;
  long n;
  int rc;

  while ((n = nub_tar_read(t, &p)) > 0) {
  }
  if (n < 0)
    return (int)n;
  while (t->pad) {
    size_t avail;
    if (t->len == t->off && (rc = ensure(t, 1)) < 0)
      return rc;
    avail = t->len - t->off;
    if (!avail)
      break;
    if (avail > t->pad)
      avail = (size_t)t->pad;
    t->off += avail;
    t->pad -= avail;
  }
  t->pad = 0;
  return 0;
}

/* An octal field (spaces and NULs around the digits), or base-256 when the
 * first byte has its high bit set (GNU, for sizes of 8 GiB and more). */
static bool number(const unsigned char *f, size_t n, uint64_t *out)
{
  uint64_t v = 0;
  size_t i = 0;

  if (f[0] & 0x80) {
    if (f[0] != 0x80)
      return false; /* negative, or more than 64 bits */
    for (i = 1; i < n; i++) {
      if (v >> 56)
        return false;
      v = (v << 8) | f[i];
    }
    *out = v;
    return true;
  }
  while (i < n && (f[i] == ' ' || f[i] == '\0'))
    i++;
  if (i == n) {
    *out = 0;
    return true;
  }
  for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
    if (v >> 60)
      return false;
    v = (v << 3) | (uint64_t)(f[i] - '0');
  }
  for (; i < n; i++)
    if (f[i] != ' ' && f[i] != '\0')
      return false;
  *out = v;
  return true;
}

static bool zero_block(const unsigned char *h)
{
  for (size_t i = 0; i < BLOCK; i++)
    if (h[i])
      return false;
  return true;
}

/* The checksum treats its own field as spaces; old tars summed signed
 * bytes, and both sums are accepted, as by every reader. */
static bool checksum_ok(const unsigned char *h)
{
  uint64_t want;
  long u = 0, s = 0;

  if (!number(h + F_CHKSUM, 8, &want))
    return false;
  for (size_t i = 0; i < BLOCK; i++) {
    unsigned char c = i >= F_CHKSUM && i < F_CHKSUM + 8 ? ' ' : h[i];
    u += c;
    s += (signed char)c;
  }
  return (uint64_t)u == want || (s >= 0 && (uint64_t)s == want);
}

static size_t field_len(const unsigned char *f, size_t n)
{
  const unsigned char *z = memchr(f, '\0', n);
  return z ? (size_t)(z - f) : n;
}

/* A NUL-terminated copy of a length-delimited name; a NUL inside is an
 * error (the name would mean something shorter to every C string API). */
static bool set_name(struct nub_buf *b, const unsigned char *p, size_t n)
{
  nub_buf_reset(b);
  if (memchr(p, '\0', n))
    return false;
  nub_buf_add(b, p, n);
  if (!b->data)
    nub_buf_adds(b, "");
  return true;
}

/* pax records "<len> <key>=<value>\n"; path and size are the ones that
 * change what an entry is (linkpath is not read: links are skipped). */
static int pax(struct nub_tar *t, const unsigned char *p, size_t n, bool *have_path,
               bool *have_size, uint64_t *size)
{
  size_t i = 0;

  while (i < n) {
    size_t rec = 0, j = i, k, eq;
    while (j < n && p[j] >= '0' && p[j] <= '9' && rec < n)
      rec = rec * 10 + (size_t)(p[j++] - '0');
    if (j == i || j >= n || p[j] != ' ' || rec <= j - i + 1 || rec > n - i ||
        p[i + rec - 1] != '\n')
      return bad(t, "a pax header record does not parse");
    k = j + 1;
    for (eq = k; eq < i + rec - 1 && p[eq] != '='; eq++)
      ;
    if (eq >= i + rec - 1)
      return bad(t, "a pax header record has no '='");
    {
      const unsigned char *key = p + k, *val = p + eq + 1;
      size_t klen = eq - k, vlen = i + rec - 1 - (eq + 1);
      if (klen == 4 && !memcmp(key, "path", 4)) {
        if (!set_name(&t->paxpath, val, vlen))
          return bad(t, "a pax path has a NUL byte inside");
        *have_path = true;
      } else if (klen == 4 && !memcmp(key, "size", 4)) {
        uint64_t v = 0;
        if (!vlen || vlen > 19)
          return bad(t, "a pax size is not a number");
        for (size_t d = 0; d < vlen; d++) {
          if (val[d] < '0' || val[d] > '9')
            return bad(t, "a pax size is not a number");
          v = v * 10 + (uint64_t)(val[d] - '0');
        }
        *size = v;
        *have_size = true;
      }
    }
    i += rec;
  }
  return 0;
}

int nub_tar_next(struct nub_tar *t, struct nub_tar_entry *e)
{
  bool have_long = false, have_pax_path = false, have_pax_size = false;
  uint64_t pax_size = 0;

  for (;;) {
    const unsigned char *h;
    uint64_t size, mode, padded;
    unsigned char type;
    bool meta;
    int rc;

    if ((rc = skip_entry(t)) < 0 || (rc = ensure(t, 2 * BLOCK)) < 0)
      return rc;
    if (t->len - t->off < BLOCK) {
      if (have_long || have_pax_path || have_pax_size)
        return bad(t, "the archive ends after an extended header");
      if (!t->entries)
        return bad(t, "not a tar archive");
      return 0; /* no end-of-archive blocks: the data ends here */
    }
    h = t->p + t->off;
    if (zero_block(h)) {
      /* the end is two zero blocks (or one before the data ends); a lone
       * one in between is passed over, as node-tar does */
      if (t->len - t->off < 2 * BLOCK || zero_block(h + BLOCK))
        return 0;
      t->off += BLOCK;
      continue;
    }
    if (!checksum_ok(h))
      return bad(t, t->entries ? "a header's checksum does not match" : "not a tar archive");
    if (!number(h + F_SIZE, 12, &size) || !number(h + F_MODE, 8, &mode))
      return bad(t, "a header has a size or mode that is not a number");
    type = h[F_TYPE];
    meta = type == 'x' || type == 'X' || type == 'L' || type == 'K' || type == 'g';
    if (have_pax_size && !meta)
      size = pax_size; /* a pax size is the next entry's, not a header's */
    padded = (size + BLOCK - 1) / BLOCK * BLOCK;
    if (meta) {
      /* read whole, so it must fit in memory */
      if (size > NUB_TAR_META_MAX)
        return bad(t, "an extended header is bigger than 1 MiB");
      if ((rc = ensure(t, BLOCK + (size_t)padded)) < 0)
        return rc;
      h = t->p + t->off; /* (the window may have moved) */
    }
    /* a stream learns this as it reads the entry (nub_tar_read) */
    if ((meta || !t->fill) && size > t->len - t->off - BLOCK)
      return bad(t, "an entry runs past the end of the archive");
    if (!t->fill && padded > t->len - t->off - BLOCK)
      padded = t->len - t->off - BLOCK; /* a final entry without padding */
    t->off += BLOCK;
    if (meta) {
      const unsigned char *d = t->p + t->off;
      if (padded > t->len - t->off)
        padded = t->len - t->off;
      t->off += (size_t)padded;
      if (type == 'x' || type == 'X') { /* 'X': the old name of the same header */
        rc = pax(t, d, (size_t)size, &have_pax_path, &have_pax_size, &pax_size);
        if (rc < 0)
          return rc;
      } else if (type == 'L') {
        if (!set_name(&t->longname, d, field_len(d, (size_t)size)))
          return bad(t, "a long name has a NUL byte inside");
        have_long = true;
      } /* 'K' (long link name) and 'g' (global pax) change nothing nub reads */
      continue;
    }
    if (have_pax_path) {
      nub_buf_reset(&t->name);
      nub_buf_add(&t->name, t->paxpath.data, t->paxpath.len);
    } else if (have_long) {
      nub_buf_reset(&t->name);
      nub_buf_add(&t->name, t->longname.data, t->longname.len);
    } else {
      size_t nl = field_len(h + F_NAME, 100);
      nub_buf_reset(&t->name);
      /* POSIX ustar splits long names: prefix "/" name (not GNU's magic) */
      if (!memcmp(h + F_MAGIC, "ustar\0", 6) && h[F_PREFIX]) {
        nub_buf_add(&t->name, h + F_PREFIX, field_len(h + F_PREFIX, 155));
        nub_buf_addc(&t->name, '/');
      }
      nub_buf_add(&t->name, h + F_NAME, nl);
    }
    if (!t->name.data)
      nub_buf_adds(&t->name, "");
    e->path = t->name.data;
    e->mode = (unsigned)(mode & 07777);
    e->data = t->fill ? NULL : t->p + t->off;
    e->size = size;
    switch (type) {
    case '0':
    case '\0':
    case '7':
      /* pre-POSIX tars marked directories by a trailing slash alone */
      e->type = t->name.len && t->name.data[t->name.len - 1] == '/' ? NUB_TAR_DIR
                                                                   : NUB_TAR_FILE;
      break;
    case '5':
      e->type = NUB_TAR_DIR;
      break;
    case '1':
      e->type = NUB_TAR_HARDLINK;
      break;
    case '2':
      e->type = NUB_TAR_SYMLINK;
      break;
    default:
      e->type = NUB_TAR_OTHER;
    }
    /* the data is read (nub_tar_read) or passed over (the next call) */
    t->remain = size;
    t->pad = padded - size;
    t->entries++;
    return 1;
  }
}
