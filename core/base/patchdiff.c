/* patchdiff.c - one file's part of a patch, as git writes it
 * (patchfile.h's nub_patch_diff): Myers' diff of the lines, hunks with
 * three lines of context. */
#include "patchfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "integrity.h"
#include "nub_alloc.h"

#define CONTEXT 3
/* Beyond this many differences the diff is "all old lines out, all new in":
 * still a patch that applies; the rounds kept for the way back cost about
 * 8 * MAX_D^2 bytes at most. */
#define MAX_D 1024

struct line {
  const char *p;
  size_t len;
  bool eol; /* ends with '\n' (only the last line may not) */
};

static size_t split(const char *t, size_t len, struct line **out)
{
  size_t n = 0, cap = 0;
  struct line *v = NULL;

  for (size_t at = 0; at < len;) {
    const char *nl = memchr(t + at, '\n', len - at);
    size_t end = nl ? (size_t)(nl - t) : len;
    NUB_GROW(v, cap, n + 1);
    v[n++] = (struct line){t + at, end - at, nl != NULL};
    at = end + 1;
  }
  *out = v;
  return n;
}

static bool same(const struct line *a, const struct line *b)
{
  return a->len == b->len && a->eol == b->eol && !memcmp(a->p, b->p, a->len);
}

/* The edit script, one byte per step: '=' both, '-' old only, '+' new
 * only. Myers' greedy algorithm, forward, with each round's furthest
 * reaches kept for the way back. */
static char *script(const struct line *a, size_t n, const struct line *b, size_t m,
                    size_t *len)
{
  long off = (long)(n + m) + 1, max = (long)(n + m);
  long dmax = max < MAX_D ? max : MAX_D, found = -1;
  long *v = nub_calloc((size_t)(2 * off + 1), sizeof(long));
  /* (v[off + diag] is the furthest x reached on diagonal diag = x - y) */
  long **trace = nub_calloc((size_t)dmax + 2, sizeof(long *));
  char *s;
  size_t k = 0;

  for (long d = 0; d <= dmax && found < 0; d++) {
    for (long diag = -d; diag <= d; diag += 2) {
      long x = (diag == -d || (diag != d && v[off + diag - 1] < v[off + diag + 1]))
                   ? v[off + diag + 1]
                   : v[off + diag - 1] + 1;
      long y = x - diag;
      while (x < (long)n && y < (long)m && same(&a[x], &b[y])) {
        x++;
        y++;
      }
      v[off + diag] = x;
      if (x >= (long)n && y >= (long)m) {
        found = d;
        break;
      }
    }
    /* the reaches of diagonals -d..d, all the way back needs of round d */
    trace[d] = nub_malloc((size_t)(2 * d + 1) * sizeof(long));
    memcpy(trace[d], v + off - d, (size_t)(2 * d + 1) * sizeof(long));
  }
  s = nub_malloc(n + m + 1);
  if (found < 0) { /* too different: everything out, everything in */
    memset(s, '-', n);
    memset(s + n, '+', m);
    k = n + m;
  } else {
    /* back from the end, steps collected in reverse */
    long x = (long)n, y = (long)m;
    for (long d = found; d >= 0; d--) {
      const long *pv = d ? trace[d - 1] + (d - 1) : NULL; /* pv[diag]: round d-1's */
      long diag = x - y, prev, px, py;
      if (d == 0) {
        while (x > 0 && y > 0) {
          s[k++] = '=';
          x--;
          y--;
        }
        break;
      }
      prev = (diag == -d || (diag != d && pv[diag - 1] < pv[diag + 1])) ? diag + 1 : diag - 1;
      px = pv[prev];
      py = px - prev;
      while (x > px && y > py) {
        s[k++] = '=';
        x--;
        y--;
      }
      s[k++] = prev == diag + 1 ? '+' : '-';
      x = px;
      y = py;
    }
    for (size_t i = 0; i < k / 2; i++) {
      char c = s[i];
      s[i] = s[k - 1 - i];
      s[k - 1 - i] = c;
    }
  }
  for (long d = 0; d <= dmax + 1; d++)
    nub_free(trace[d]);
  nub_free(trace);
  nub_free(v);
  *len = k;
  return s;
}

static void add_line(struct nub_buf *out, char type, const struct line *l)
{
  nub_buf_addc(out, type);
  nub_buf_add(out, l->p, l->len);
  nub_buf_addc(out, '\n');
  if (!l->eol)
    nub_buf_adds(out, "\\ No newline at end of file\n");
}

static void range(struct nub_buf *out, char sign, size_t start, size_t count)
{
  if (count == 1)
    nub_buf_addf(out, " %c%zu", sign, start);
  else
    nub_buf_addf(out, " %c%zu,%zu", sign, start, count);
}

/* The hunks of the script s (steps k), as git groups them. */
static void hunks(struct nub_buf *out, const char *s, size_t k, const struct line *a,
                  const struct line *b)
{
  size_t i = 0;
  /* old and new line numbers (0-based) at each step, counted as we go */
  size_t *ax = nub_malloc((k + 1) * sizeof(size_t)), *bx = nub_malloc((k + 1) * sizeof(size_t));

  ax[0] = bx[0] = 0;
  for (size_t j = 0; j < k; j++) {
    ax[j + 1] = ax[j] + (s[j] != '+');
    bx[j + 1] = bx[j] + (s[j] != '-');
  }
  while (i < k) {
    size_t first, last, start, end, na = 0, nb = 0;
    while (i < k && s[i] == '=')
      i++;
    if (i == k)
      break;
    first = last = i;
    /* the next change joins this hunk when their contexts meet */
    for (size_t j = i + 1; j < k; j++) {
      if (s[j] == '=')
        continue;
      if (j - last - 1 > 2 * CONTEXT)
        break;
      last = j;
    }
    start = first > CONTEXT ? first - CONTEXT : 0;
    end = last + 1 + CONTEXT < k ? last + 1 + CONTEXT : k;
    for (size_t j = start; j < end; j++) {
      na += s[j] != '+';
      nb += s[j] != '-';
    }
    nub_buf_adds(out, "@@");
    range(out, '-', na ? ax[start] + 1 : ax[start], na);
    range(out, '+', nb ? bx[start] + 1 : bx[start], nb);
    nub_buf_adds(out, " @@\n");
    for (size_t j = start; j < end; j++) {
      if (s[j] == '+')
        add_line(out, '+', &b[bx[j]]);
      else
        add_line(out, s[j] == '=' ? ' ' : '-', &a[ax[j]]);
    }
    i = end;
  }
  nub_free(ax);
  nub_free(bx);
}

/* git's object id of a blob: SHA-1 of "blob <size>\0<bytes>", in hex. */
static void blob_id(const char *p, size_t len, char out[41])
{
  struct nub_hasher h;
  unsigned char d[64];
  size_t dl = 0;
  char head[40];
  int n = snprintf(head, sizeof(head), "blob %zu", len);

  nub_hasher_init(&h, NUB_HASH_SHA1);
  nub_hasher_update(&h, head, (size_t)n + 1);
  nub_hasher_update(&h, p, len);
  nub_hasher_final(&h, d, &dl);
  nub_hasher_release(&h);
  nub_hex(d, 20, out);
}

int nub_patch_diff(struct nub_buf *out, const char *path, const char *old, size_t oldlen,
                   unsigned oldmode, const char *new, size_t newlen, unsigned newmode)
{
  static const char zero[] = "0000000000000000000000000000000000000000";
  struct line *a = NULL, *b = NULL;
  size_t n, m, k;
  char *s, ida[41], idb[41];
  bool changed;

  if ((old && memchr(old, '\0', oldlen)) || (new && memchr(new, '\0', newlen)))
    return -EINVAL;
  changed = !old || !new || oldlen != newlen || memcmp(old, new, oldlen);
  if (!changed && oldmode == newmode)
    return 0;
  nub_buf_addf(out, "diff --git a/%s b/%s\n", path, path);
  if (!old)
    nub_buf_addf(out, "new file mode 100%o\n", newmode);
  else if (!new)
    nub_buf_addf(out, "deleted file mode 100%o\n", oldmode);
  else if (oldmode != newmode)
    nub_buf_addf(out, "old mode 100%o\nnew mode 100%o\n", oldmode, newmode);
  if (!changed)
    return 0;
  if (old)
    blob_id(old, oldlen, ida);
  if (new)
    blob_id(new, newlen, idb);
  nub_buf_addf(out, "index %s..%s", old ? ida : zero, new ? idb : zero);
  if (old && new && oldmode == newmode)
    nub_buf_addf(out, " 100%o", newmode);
  nub_buf_addc(out, '\n');
  n = old ? split(old, oldlen, &a) : 0;
  m = new ? split(new, newlen, &b) : 0;
  if (n || m) {
    if (old)
      nub_buf_addf(out, "--- a/%s\n", path);
    else
      nub_buf_adds(out, "--- /dev/null\n");
    if (new)
      nub_buf_addf(out, "+++ b/%s\n", path);
    else
      nub_buf_adds(out, "+++ /dev/null\n");
    s = script(a, n, b, m, &k);
    hunks(out, s, k, a, b);
    nub_free(s);
  }
  nub_free(a);
  nub_free(b);
  return 0;
}
