/* patchfile.c - patch files read and applied as pnpm does (patchfile.h). */
#include "patchfile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "nub_alloc.h"
#include "path.h"

#define MAX_FUZZ 20

struct slice {
  const char *p;
  size_t len;
};

/* One file's part of the patch as read, before it is made operations. */
struct deets {
  size_t line; /* where it starts, for messages */
  struct slice diff_from, diff_to, old_mode, new_mode, deleted_mode, created_mode,
      rename_from, rename_to, from, to, from_raw, to_raw, only_for;
  bool have_hunks;
  struct nub_patch_hunk *hunks;
  size_t nhunks, caphunks;
};

struct reader {
  struct slice *lines;
  size_t nlines;
  struct deets *files;
  size_t nfiles, capfiles;
  struct deets cur;
  struct nub_patch_hunk *hunk; /* being read (owned until committed) */
  struct nub_patch_part *part; /* being read (owned until committed) */
  bool integrity_failed;
};

static bool is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static struct slice trim(struct slice s)
{
  while (s.len && is_space(*s.p)) {
    s.p++;
    s.len--;
  }
  while (s.len && is_space(s.p[s.len - 1]))
    s.len--;
  return s;
}

static struct slice after(struct slice s, size_t n)
{
  struct slice r = {s.p + (n < s.len ? n : s.len), n < s.len ? s.len - n : 0};
  return r;
}

static bool starts(struct slice s, const char *prefix)
{
  size_t n = strlen(prefix);
  return s.len >= n && !memcmp(s.p, prefix, n);
}

static void free_hunk(struct nub_patch_hunk *h)
{
  for (size_t i = 0; i < h->nparts; i++)
    nub_free(h->parts[i].lines);
  nub_free(h->parts);
}

static void free_part(struct nub_patch_part *p)
{
  if (p) {
    nub_free(p->lines);
    nub_free(p);
  }
}

static void free_deets(struct deets *d)
{
  for (size_t i = 0; i < d->nhunks; i++)
    free_hunk(&d->hunks[i]);
  nub_free(d->hunks);
  memset(d, 0, sizeof(*d));
}

static void commit_part(struct reader *r)
{
  if (!r->part)
    return;
  r->hunk->parts = nub_realloc(r->hunk->parts, (r->hunk->nparts + 1) * sizeof(*r->hunk->parts));
  r->hunk->parts[r->hunk->nparts++] = *r->part;
  nub_free(r->part);
  r->part = NULL;
}

static void commit_hunk(struct reader *r)
{
  if (!r->hunk)
    return;
  commit_part(r);
  NUB_GROW(r->cur.hunks, r->cur.caphunks, r->cur.nhunks + 1);
  r->cur.hunks[r->cur.nhunks++] = *r->hunk;
  nub_free(r->hunk);
  r->hunk = NULL;
}

static void commit_file(struct reader *r, size_t next_line)
{
  commit_hunk(r);
  NUB_GROW(r->files, r->capfiles, r->nfiles + 1);
  r->files[r->nfiles++] = r->cur;
  memset(&r->cur, 0, sizeof(r->cur));
  r->cur.line = next_line;
}

/* A decimal number; saturates rather than wraps (such a hunk matches
 * nowhere, as in pnpm). */
static const char *number(const char *p, const char *end, size_t *out)
{
  size_t v = 0;
  const char *s = p;
  for (; p < end && *p >= '0' && *p <= '9'; p++)
    v = v > ((size_t)1 << 40) ? v : v * 10 + (size_t)(*p - '0');
  *out = v;
  return p == s ? NULL : p;
}

/* "@@ -a[,b] +c[,d] @@...": starts at least 1, lengths 1 when not given. */
static bool hunk_header(struct slice line, struct nub_patch_hunk *h)
{
  struct slice s = trim(line);
  const char *p = s.p, *end = s.p + s.len;
  size_t v[4] = {0, 1, 0, 1};

  if (!starts(s, "@@ -"))
    return false;
  p += 4;
  for (int k = 0; k < 4; k += 2) {
    if (!(p = number(p, end, &v[k])))
      return false;
    if (p < end && *p == ',') {
      if (!(p = number(p + 1, end, &v[k + 1])))
        return false;
    }
    if (k == 0) {
      if (end - p < 2 || p[0] != ' ' || p[1] != '+')
        return false;
      p += 2;
    }
  }
  if (end - p < 3 || memcmp(p, " @@", 3))
    return false;
  h->old_start = v[0] ? v[0] : 1;
  h->old_len = v[1];
  h->new_start = v[2] ? v[2] : 1;
  h->new_len = v[3];
  return true;
}

static bool hunk_whole(const struct nub_patch_hunk *h)
{
  size_t old = 0, new = 0;
  for (size_t i = 0; i < h->nparts; i++) {
    if (h->parts[i].type != '+')
      old += h->parts[i].n;
    if (h->parts[i].type != '-')
      new += h->parts[i].n;
  }
  return old == h->old_len && new == h->new_len;
}

/* Whether the hunk being read has every line its header counts. */
static bool hunk_done(const struct reader *r)
{
  size_t old = 0, new = 0;

  if (!r->hunk)
    return false;
  for (size_t i = 0; i <= r->hunk->nparts; i++) {
    const struct nub_patch_part *p = i < r->hunk->nparts ? &r->hunk->parts[i] : r->part;
    if (!p)
      continue;
    old += p->type != '+' ? p->n : 0;
    new += p->type != '-' ? p->n : 0;
  }
  return old == r->hunk->old_len && new == r->hunk->new_len;
}

static int bad(struct nub_err *err, size_t line, const char *what)
{
  return nub_err_set(err, -NUB_EPATCH, "line %zu: %s", line + 1, what);
}

/* The lines to file parts: one pass of pnpm's reader (legacy: a "--- a/"
 * line inside hunks starts the next file, for diffs without "diff --git"
 * lines). */
static int read_lines(struct reader *r, bool legacy, struct nub_err *err)
{
  bool in_hunks = false;

  for (size_t i = 0; i < r->nlines; i++) {
    struct slice l = r->lines[i];
    if (!in_hunks) {
      if (starts(l, "@@")) {
        in_hunks = true;
        r->cur.have_hunks = true;
        i--;
      } else if (starts(l, "diff --git ")) {
        /* "diff --git a/<from> b/<to>": <from> ends at the first " b/" */
        const char *a = l.p + 11, *end = l.p + l.len, *b = NULL;
        if (r->cur.diff_from.len)
          commit_file(r, i);
        r->cur.line = i;
        for (const char *q = a + 2; q + 3 <= end && !b; q++)
          if (!memcmp(q, " b/", 3))
            b = q;
        if (end - a < 2 || memcmp(a, "a/", 2) || !b)
          return bad(err, i, "a \"diff --git\" line without a/ and b/ paths");
        r->cur.diff_from = (struct slice){a + 2, (size_t)(b - a - 2)};
        r->cur.diff_to = trim((struct slice){b + 3, (size_t)(end - b - 3)});
        if (memchr(r->cur.diff_from.p, '\r', r->cur.diff_from.len))
          return bad(err, i, "a \"diff --git\" line without a/ and b/ paths");
      } else if (starts(l, "old mode ")) {
        r->cur.old_mode = trim(after(l, 9));
      } else if (starts(l, "new mode ")) {
        r->cur.new_mode = trim(after(l, 9));
      } else if (starts(l, "deleted file mode ")) {
        r->cur.deleted_mode = trim(after(l, 18));
      } else if (starts(l, "new file mode ")) {
        r->cur.created_mode = trim(after(l, 14));
      } else if (starts(l, "semver exclusivity ")) {
        r->cur.only_for = trim(after(l, 19));
      } else if (starts(l, "rename from ")) {
        r->cur.rename_from = trim(after(l, 12));
      } else if (starts(l, "rename to ")) {
        r->cur.rename_to = trim(after(l, 10));
      } else if (starts(l, "--- ")) {
        r->cur.from = trim(after(l, 6));
        r->cur.from_raw = trim(after(l, 4));
      } else if (starts(l, "+++ ")) {
        r->cur.to = trim(after(l, 6));
        r->cur.to_raw = trim(after(l, 4));
      }
      continue;
    }
    if ((legacy && starts(l, "--- a/")) ||
        ((starts(l, "--- ") || starts(l, "+++ ")) && hunk_done(r))) {
      /* the next file's header: in a plain unified diff (npm 12's) it
       * follows the last hunk with no "diff --git" line between, known
       * by the hunk having all the lines its header counts (a line more
       * would fail the hunk in pnpm's reader anyway) */
      in_hunks = false;
      commit_file(r, i);
      i--;
      continue;
    }
    {
      char type = l.len ? l.p[0] : ' ';
      if (type == '\r')
        type = ' ';
      if (type == '@') {
        commit_hunk(r);
        r->hunk = nub_calloc(1, sizeof(*r->hunk));
        if (!hunk_header(l, r->hunk))
          return bad(err, i, "a hunk header that is not \"@@ -a,b +c,d @@\"");
      } else if (type == '\\') {
        if (!starts(l, "\\ No newline at end of file"))
          return bad(err, i, "a line starting with \\ other than \"\\ No newline at end of file\"");
        if (!r->part)
          return bad(err, i, "\"\\ No newline at end of file\" after no line");
        r->part->no_eol = true;
      } else if (type == ' ' || type == '-' || type == '+') {
        if (!r->hunk)
          return bad(err, i, "hunk lines before a hunk header");
        if (r->part && r->part->type != type)
          commit_part(r);
        if (!r->part) {
          r->part = nub_calloc(1, sizeof(*r->part));
          r->part->type = type;
        }
        r->part->lines = nub_realloc(r->part->lines, (r->part->n + 1) * sizeof(*r->part->lines));
        r->part->lines[r->part->n++] = (struct nub_patch_line){l.len ? l.p + 1 : l.p,
                                                               l.len ? l.len - 1 : 0};
      } else {
        /* anything else ends the file's hunks */
        in_hunks = false;
        commit_file(r, i);
        i--;
      }
    }
  }
  commit_file(r, r->nlines);
  for (size_t f = 0; f < r->nfiles; f++)
    for (size_t h = 0; h < r->files[f].nhunks; h++)
      if (!hunk_whole(&r->files[f].hunks[h])) {
        r->integrity_failed = true;
        return bad(err, r->files[f].line, "a hunk whose lines do not add up to its header");
      }
  return 0;
}

static void reader_reset(struct reader *r)
{
  for (size_t f = 0; f < r->nfiles; f++)
    free_deets(&r->files[f]);
  nub_free(r->files);
  r->files = NULL;
  r->nfiles = r->capfiles = 0;
  if (r->hunk) {
    free_hunk(r->hunk);
    nub_free(r->hunk);
    r->hunk = NULL;
  }
  free_part(r->part);
  r->part = NULL;
  free_deets(&r->cur);
  r->integrity_failed = false;
}

/* git's mode text to 0644 or 0755 (pnpm takes no other). */
static int file_mode(struct slice s, unsigned *out)
{
  unsigned v = 0;
  for (size_t i = 0; i < s.len && s.p[i] >= '0' && s.p[i] <= '7'; i++)
    v = (v << 3 | (unsigned)(s.p[i] - '0')) & 07777777;
  v &= 0777;
  if (v != 0644 && v != 0755)
    return -1;
  *out = v;
  return 0;
}

static int add_path(struct slice s, char **out, size_t line, struct nub_err *err)
{
  char *raw = nub_strndup(s.p, s.len), norm[4096];
  int rc = nub_path_normalize(raw, norm, sizeof(norm));
  if (rc < 0) {
    nub_err_set(err, -NUB_EPATCH, "line %zu: the path '%.200s' is not one inside the package",
                line + 1, raw);
    nub_free(raw);
    return -NUB_EPATCH;
  }
  nub_free(raw);
  *out = nub_strdup(norm);
  return 0;
}

static struct nub_patch_op *new_op(struct nub_patch *p, enum nub_patch_kind kind,
                                   const struct deets *d)
{
  struct nub_patch_op *op;
  p->ops = nub_realloc(p->ops, (p->nops + 1) * sizeof(*p->ops));
  op = &p->ops[p->nops++];
  memset(op, 0, sizeof(*op));
  op->kind = kind;
  if (d->only_for.len)
    op->only_for = nub_strndup(d->only_for.p, d->only_for.len);
  return op;
}

/* A new file's content: d's first hunk, taken by op (the others are not
 * used, as in pnpm). */
static void take_content(struct nub_patch_op *op, struct deets *d)
{
  if (!d->nhunks)
    return;
  op->hunks = d->hunks;
  op->nhunks = 1;
  for (size_t h = 1; h < d->nhunks; h++)
    free_hunk(&d->hunks[h]);
  d->hunks = NULL;
  d->nhunks = 0;
}

static bool is_dev_null(struct slice s)
{
  return s.len == 9 && !memcmp(s.p, "/dev/null", 9);
}

static struct slice first_of(struct slice a, struct slice b)
{
  return a.len ? a : b;
}

/* The file parts to operations, in pnpm's order: a rename, deletion or
 * creation; then a mode change; then the hunks. */
static int interpret(struct reader *r, struct nub_patch *p, struct nub_err *err)
{
  for (size_t f = 0; f < r->nfiles; f++) {
    struct deets *d = &r->files[f];
    struct slice dest = {NULL, 0};
    struct nub_patch_op *op;
    int rc = 0;
    /* an empty value is none, as in pnpm */
    if (d->rename_from.len) {
      if (!d->rename_to.len)
        return bad(err, d->line, "a rename without both \"rename from\" and \"rename to\"");
      op = new_op(p, NUB_PATCH_RENAME, d);
      rc = add_path(d->rename_from, &op->path, d->line, err);
      if (!rc)
        rc = add_path(d->rename_to, &op->to, d->line, err);
      dest = d->rename_to;
    } else if (d->deleted_mode.len) {
      struct slice path = first_of(d->diff_from, d->from);
      if (!path.len)
        return bad(err, d->line, "a deleted file without a path");
      op = new_op(p, NUB_PATCH_DELETE, d);
      if (file_mode(d->deleted_mode, &op->mode) < 0)
        return bad(err, d->line, "a file mode other than 644 or 755");
      rc = add_path(path, &op->path, d->line, err);
    } else if (d->created_mode.len) {
      struct slice path = first_of(d->diff_to, d->to);
      if (!path.len)
        return bad(err, d->line, "a new file without a path");
      op = new_op(p, NUB_PATCH_CREATE, d);
      if (file_mode(d->created_mode, &op->mode) < 0)
        return bad(err, d->line, "a file mode other than 644 or 755");
      rc = add_path(path, &op->path, d->line, err);
      if (!rc)
        take_content(op, d);
    } else if (!d->diff_from.len && is_dev_null(d->from_raw) && d->to.len) {
      /* a plain unified diff (npm 12 writes them): a file from nothing */
      op = new_op(p, NUB_PATCH_CREATE, d);
      op->mode = 0644;
      rc = add_path(d->to, &op->path, d->line, err);
      if (!rc)
        take_content(op, d);
    } else if (!d->diff_from.len && is_dev_null(d->to_raw) && d->from.len) {
      /* ... and one to nothing */
      op = new_op(p, NUB_PATCH_DELETE, d);
      op->mode = 0644;
      rc = add_path(d->from, &op->path, d->line, err);
    } else {
      dest = first_of(d->to, d->diff_to);
    }
    if (rc < 0)
      return rc;
    if (dest.len && d->old_mode.len && d->new_mode.len &&
        (d->old_mode.len != d->new_mode.len || memcmp(d->old_mode.p, d->new_mode.p, d->new_mode.len))) {
      op = new_op(p, NUB_PATCH_MODE, d);
      if (file_mode(d->new_mode, &op->mode) < 0)
        return bad(err, d->line, "a file mode other than 644 or 755");
      if ((rc = add_path(dest, &op->path, d->line, err)) < 0)
        return rc;
    }
    if (dest.len && d->nhunks) {
      op = new_op(p, NUB_PATCH_EDIT, d);
      if ((rc = add_path(dest, &op->path, d->line, err)) < 0)
        return rc;
      op->hunks = d->hunks;
      op->nhunks = d->nhunks;
      d->hunks = NULL;
      d->nhunks = 0;
    }
  }
  return 0;
}

int nub_patch_parse(const char *text, size_t len, struct nub_patch *out, struct nub_err *err)
{
  struct reader r;
  size_t cap = 0;
  int rc;

  memset(out, 0, sizeof(*out));
  memset(&r, 0, sizeof(r));
  out->text = nub_strndup(text, len);
  for (size_t at = 0; at <= len;) {
    const char *nl = memchr(out->text + at, '\n', len - at);
    size_t end = nl ? (size_t)(nl - out->text) : len;
    NUB_GROW(r.lines, cap, r.nlines + 1);
    r.lines[r.nlines++] = (struct slice){out->text + at, end - at};
    at = end + 1;
  }
  if (r.nlines && r.lines[r.nlines - 1].len == 0)
    r.nlines--;
  rc = read_lines(&r, false, err);
  if (rc < 0 && r.integrity_failed) {
    reader_reset(&r);
    rc = read_lines(&r, true, err);
  }
  if (rc == 0)
    rc = interpret(&r, out, err);
  reader_reset(&r);
  nub_free(r.lines);
  if (rc < 0)
    nub_patch_release(out);
  return rc;
}

void nub_patch_release(struct nub_patch *p)
{
  for (size_t i = 0; i < p->nops; i++) {
    for (size_t h = 0; h < p->ops[i].nhunks; h++)
      free_hunk(&p->ops[i].hunks[h]);
    nub_free(p->ops[i].hunks);
    nub_free(p->ops[i].path);
    nub_free(p->ops[i].to);
    nub_free(p->ops[i].only_for);
  }
  nub_free(p->ops);
  nub_free(p->text);
  memset(p, 0, sizeof(*p));
}

/* ---- applying ---------------------------------------------------------- */

/* The length without trailing white space: JavaScript's \s, ASCII and the
 * UTF-8 spaces pnpm's string compare also drops. */
static size_t trimmed_len(const char *p, size_t n)
{
  for (;;) {
    const unsigned char *u = (const unsigned char *)p;
    if (n && is_space(p[n - 1]))
      n--;
    else if (n >= 2 && u[n - 2] == 0xc2 && u[n - 1] == 0xa0)
      n -= 2;
    else if (n >= 3 && u[n - 3] == 0xef && u[n - 2] == 0xbb && u[n - 1] == 0xbf)
      n -= 3;
    else if (n >= 3 && u[n - 3] == 0xe2 && u[n - 2] == 0x80 &&
             ((u[n - 1] >= 0x80 && u[n - 1] <= 0x8a) || u[n - 1] == 0xa8 || u[n - 1] == 0xa9 ||
              u[n - 1] == 0xaf))
      n -= 3;
    else if (n >= 3 && ((u[n - 3] == 0xe2 && u[n - 2] == 0x81 && u[n - 1] == 0x9f) ||
                        (u[n - 3] == 0xe3 && u[n - 2] == 0x80 && u[n - 1] == 0x80) ||
                        (u[n - 3] == 0xe1 && u[n - 2] == 0x9a && u[n - 1] == 0x80)))
      n -= 3;
    else
      return n;
  }
}

static bool same_line(struct slice a, const struct nub_patch_line *b)
{
  size_t x = trimmed_len(a.p, a.len), y = trimmed_len(b->p, b->len);
  return x == y && !memcmp(a.p, b->p, x);
}

enum mod_kind { M_SPLICE, M_PUSH, M_POP };

struct mod {
  enum mod_kind kind;
  size_t at, del;
  const struct nub_patch_part *ins; /* M_SPLICE's inserted lines, or NULL */
};

/* Whether the hunk's old lines are at line index `at`: the changes it
 * makes there, or false. */
static bool evaluate(const struct nub_patch_hunk *h, const struct slice *lines, size_t n,
                     long at, struct mod *mods, size_t *nmods)
{
  size_t k = 0;

  if (at < 0 || (size_t)at > n || n - (size_t)at < h->old_len)
    return false;
  for (size_t i = 0; i < h->nparts; i++) {
    const struct nub_patch_part *part = &h->parts[i];
    if (part->type == '+') {
      mods[k++] = (struct mod){M_SPLICE, (size_t)at, 0, part};
      if (part->no_eol)
        mods[k++] = (struct mod){M_POP, 0, 0, NULL};
      continue;
    }
    for (size_t j = 0; j < part->n; j++, at++)
      if ((size_t)at >= n || !same_line(lines[at], &part->lines[j]))
        return false;
    if (part->type == '-') {
      mods[k++] = (struct mod){M_SPLICE, (size_t)at - part->n, part->n, NULL};
      if (part->no_eol)
        mods[k++] = (struct mod){M_PUSH, 0, 0, NULL};
    }
  }
  *nmods = k;
  return true;
}

/* pnpm's search: the hunk's old line, then 1 above, 1 below, ... 20. */
static bool find_pnpm(const struct nub_patch_hunk *h, const struct slice *lines, size_t n,
                      struct mod *mods, size_t *nmods)
{
  for (long offset = 0; labs(offset) <= MAX_FUZZ;
       offset = offset < 0 ? -offset : -offset - 1)
    if (evaluate(h, lines, n, (long)h->old_start - 1 + offset, mods, nmods))
      return true;
  return false;
}

/* berry's: from the hunk's new line moved as far as the hunks before it
 * were found moved (*fixup), outwards, the line before first, no earlier
 * than where the hunk before it ended (*frozen). */
static bool find_berry(const struct nub_patch_hunk *h, const struct slice *lines, size_t n,
                       long *fixup, long *frozen, struct mod *mods, size_t *nmods)
{
  long g0 = (long)h->new_start + *fixup, guess, prefix, suffix;

  if (g0 < *frozen)
    g0 = *frozen;
  /* no place past the file's end can match: from there down is the same
   * order of places berry tries, without counting down from a line
   * number the file does not have (a hunk header's, up to 2^40) */
  guess = g0 > (long)n ? (long)n : g0;
  prefix = guess - *frozen;
  suffix = (long)n - guess - (long)h->old_len;
  if (suffix < 0)
    suffix = 0;
  for (long off = 0; off <= (prefix > suffix ? prefix : suffix); off++) {
    long at = -1;
    if (off <= prefix && evaluate(h, lines, n, guess - off, mods, nmods))
      at = guess - off;
    else if (off <= suffix && evaluate(h, lines, n, guess + off, mods, nmods))
      at = guess + off;
    if (at >= 0) {
      *fixup += at - g0; /* how far from berry's first guess it was found */
      *frozen = at + (long)h->old_len;
      return true;
    }
  }
  return false;
}

int nub_patch_apply(const struct nub_patch_op *op, const char *in, size_t len,
                    enum nub_patch_rules rules, struct nub_buf *out, struct nub_err *err)
{
  long fixup = 0, frozen = 0;
  struct slice *lines = NULL;
  size_t n = 0, cap = 0;
  struct mod **mods = nub_calloc(op->nhunks ? op->nhunks : 1, sizeof(*mods));
  size_t *nmods = nub_calloc(op->nhunks ? op->nhunks : 1, sizeof(*nmods));
  long shift = 0;
  int rc = 0;

  nub_buf_reset(out);
  for (size_t at = 0; at <= len;) {
    const char *nl = memchr(in + at, '\n', len - at);
    size_t end = nl ? (size_t)(nl - in) : len;
    NUB_GROW(lines, cap, n + 1);
    lines[n++] = (struct slice){in + at, end - at};
    at = end + 1;
  }
  /* every hunk is found against the file as it was */
  for (size_t h = 0; h < op->nhunks && !rc; h++) {
    bool found;
    mods[h] = nub_calloc(op->hunks[h].nparts * 2 + 1, sizeof(**mods));
    found = rules == NUB_PATCH_BERRY
                ? find_berry(&op->hunks[h], lines, n, &fixup, &frozen, mods[h], &nmods[h])
                : find_pnpm(&op->hunks[h], lines, n, mods[h], &nmods[h]);
    if (!found)
      rc = nub_err_set(err, -NUB_EPATCH, "%s: hunk %zu (at line %zu) does not match the file",
                       op->path, h + 1, op->hunks[h].old_start);
  }
  /* then the changes, in order, each shifting those after it */
  for (size_t h = 0; h < op->nhunks && !rc; h++) {
    for (size_t k = 0; k < nmods[h]; k++) {
      const struct mod *m = &mods[h][k];
      if (m->kind == M_PUSH) {
        NUB_GROW(lines, cap, n + 1);
        lines[n++] = (struct slice){in, 0};
      } else if (m->kind == M_POP) {
        if (n)
          n--;
      } else {
        size_t at = (size_t)((long)m->at + shift), ins = m->ins ? m->ins->n : 0, del = m->del;
        if (at > n)
          at = n;
        if (del > n - at)
          del = n - at;
        NUB_GROW(lines, cap, n + ins);
        memmove(lines + at + ins, lines + at + del, (n - at - del) * sizeof(*lines));
        for (size_t j = 0; j < ins; j++)
          lines[at + j] = (struct slice){m->ins->lines[j].p, m->ins->lines[j].len};
        n = n - del + ins;
        shift += (long)ins - (long)m->del;
      }
    }
  }
  if (!rc)
    for (size_t i = 0; i < n; i++) {
      if (i)
        nub_buf_addc(out, '\n');
      nub_buf_add(out, lines[i].p, lines[i].len);
    }
  for (size_t h = 0; h < op->nhunks; h++)
    nub_free(mods[h]);
  nub_free(mods);
  nub_free(nmods);
  nub_free(lines);
  return rc;
}

void nub_patch_created(const struct nub_patch_op *op, struct nub_buf *out)
{
  const struct nub_patch_part *part = op->nhunks && op->hunks[0].nparts ? &op->hunks[0].parts[0]
                                                                        : NULL;
  nub_buf_reset(out);
  nub_buf_add(out, "", 0);
  if (!part)
    return;
  for (size_t i = 0; i < part->n; i++) {
    if (i)
      nub_buf_addc(out, '\n');
    nub_buf_add(out, part->lines[i].p, part->lines[i].len);
  }
  if (!part->no_eol)
    nub_buf_addc(out, '\n');
}
