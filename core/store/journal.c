/* journal.c - the journal of an edit of project files (journal.h).
 *
 * Format: "nub-journal 1\n", then per file "<path>\n<len>\n<bytes>\n"
 * with len -1 (and no bytes) for a file that was absent. Written whole
 * with one atomic rename, so a journal is either there and complete or
 * not there. */
#include "journal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "nub_alloc.h"
#include "nub_plat.h"

#define MAGIC "nub-journal 1\n"
#define MAX_JOURNAL ((size_t)1 << 31)

int nub_journal_write(const char *journal, const struct nub_journal_file *v, size_t n,
                      struct nub_err *err)
{
  struct nub_buf b = NUB_BUF_INIT;
  int rc;

  nub_buf_adds(&b, MAGIC);
  for (size_t i = 0; i < n; i++) {
    if (v[i].data) {
      nub_buf_addf(&b, "%s\n%zu\n", v[i].path, v[i].len);
      nub_buf_add(&b, v[i].data, v[i].len);
      nub_buf_adds(&b, "\n");
    } else {
      nub_buf_addf(&b, "%s\n-1\n", v[i].path);
    }
  }
  rc = nub_plat_write_file_atomic(journal, b.data, b.len, 0600);
  nub_buf_release(&b);
  if (rc < 0)
    return nub_err_set(err, rc, "cannot write %s: %s", journal, nub_strerror(rc));
  return 0;
}

void nub_journal_restore(const struct nub_journal_file *v, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    if (v[i].data)
      nub_plat_write_file_atomic(v[i].path, v[i].data, v[i].len, 0644);
    else
      nub_plat_unlink_at(NUB_PLAT_CWD, v[i].path, false);
  }
}

void nub_journal_done(const char *journal)
{
  nub_plat_unlink_at(NUB_PLAT_CWD, journal, false);
}

/* One line of text[*pos..len) (without its '\n'), or NULL at the end. */
static char *line(const char *text, size_t len, size_t *pos)
{
  const char *nl = memchr(text + *pos, '\n', len - *pos);
  char *s;

  if (!nl)
    return NULL;
  s = nub_strndup(text + *pos, (size_t)(nl - (text + *pos)));
  *pos = (size_t)(nl - text) + 1;
  return s;
}

/* The files recorded in text, or -1 when it is not a whole journal. */
static long parse(const char *text, size_t len, struct nub_journal_file **out)
{
  size_t pos = strlen(MAGIC), n = 0, cap = 0;
  struct nub_journal_file *v = NULL;

  *out = NULL;
  if (len < pos || memcmp(text, MAGIC, pos))
    return -1;
  while (pos < len) {
    char *path = line(text, len, &pos), *num = path ? line(text, len, &pos) : NULL, *end;
    long long flen = num ? strtoll(num, &end, 10) : 0;
    bool ok = num && *num && !*end && path[0] == '/' && flen >= -1 &&
              (flen < 0 || (size_t)flen < len - pos);
    nub_free(num);
    if (ok && flen >= 0 && text[pos + (size_t)flen] != '\n')
      ok = false;
    if (!ok) {
      nub_free(path);
      for (size_t i = 0; i < n; i++) {
        nub_free(v[i].path);
        nub_free(v[i].data);
      }
      nub_free(v);
      return -1;
    }
    NUB_GROW(v, cap, n + 1);
    v[n].path = path;
    v[n].data = NULL;
    if (flen >= 0) { /* bytes as they were, NULs and all */
      v[n].data = nub_malloc((size_t)flen + 1);
      memcpy(v[n].data, text + pos, (size_t)flen);
      v[n].data[flen] = '\0';
    }
    v[n].len = flen >= 0 ? (size_t)flen : 0;
    n++;
    if (flen >= 0)
      pos += (size_t)flen + 1;
  }
  *out = v;
  return (long)n;
}

int nub_journal_recover(const char *journal, struct nub_err *err)
{
  struct nub_journal_file *v;
  char *text = NULL;
  size_t len = 0;
  long n;
  int rc = nub_plat_read_file_at(NUB_PLAT_CWD, journal, MAX_JOURNAL, &text, &len);

  if (rc == -ENOENT)
    return 0;
  if (rc < 0)
    return nub_err_set(err, -NUB_ESTORE, "cannot read %s: %s", journal, nub_strerror(rc));
  n = parse(text, len, &v);
  nub_free(text);
  if (n < 0) {
    nub_journal_done(journal);
    return nub_err_set(err, -NUB_ESTORE, "%s is not a journal nub wrote; it was removed",
                       journal);
  }
  nub_journal_restore(v, (size_t)n);
  for (long i = 0; i < n; i++) {
    nub_free(v[i].path);
    nub_free(v[i].data);
  }
  nub_free(v);
  nub_journal_done(journal);
  return 1;
}
