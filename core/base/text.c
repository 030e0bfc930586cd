/* text.c - positions in text; see text.h. */
#include "text.h"

#include <ctype.h>
#include <string.h>

#include "buf.h"

void nub_text_linecol(const char *text, size_t off, int *line, int *col)
{
  int l = 1, c = 1;

  for (size_t i = 0; i < off && text[i]; i++) {
    if (text[i] == '\n') {
      l++;
      c = 1;
    } else {
      c++;
    }
  }
  *line = l;
  *col = c;
}

int nub_hex_digit(char c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

bool nub_text_conflict_marker(const char *text, size_t len, size_t *off)
{
  for (size_t i = 0; i + 7 <= len;) {
    const char *nl;
    if (!memcmp(text + i, "<<<<<<<", 7) &&
        (i + 7 == len || text[i + 7] == ' ' || text[i + 7] == '\n' || text[i + 7] == '\r')) {
      *off = i;
      return true;
    }
    nl = memchr(text + i, '\n', len - i);
    if (!nl)
      break;
    i = (size_t)(nl - text) + 1;
  }
  return false;
}

/* Whether the line p[0..n) starts with marker (7 characters) and then
 * ends or goes on with a space. */
static bool marker_line(const char *p, size_t n, const char *marker)
{
  return n >= 7 && !memcmp(p, marker, 7) &&
         (n == 7 || p[7] == ' ' || p[7] == '\n' || p[7] == '\r');
}

void nub_text_conflict_sides(const char *text, size_t len, struct nub_buf side[2])
{
  enum { BOTH, OURS, BASE, THEIRS } state = BOTH;
  const char *p = text, *end = text + len;

  side[0] = (struct nub_buf)NUB_BUF_INIT;
  side[1] = (struct nub_buf)NUB_BUF_INIT;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);
    if (marker_line(p, n, "<<<<<<<"))
      state = OURS;
    else if (state != BOTH && marker_line(p, n, "|||||||"))
      state = BASE;
    else if (state != BOTH && marker_line(p, n, "======="))
      state = THEIRS;
    else if (state != BOTH && marker_line(p, n, ">>>>>>>"))
      state = BOTH;
    else {
      if (state == BOTH || state == OURS)
        nub_buf_add(&side[0], p, n);
      if (state == BOTH || state == THEIRS)
        nub_buf_add(&side[1], p, n);
    }
    p += n;
  }
}

bool nub_text_yaml_too_deep(const char *text, size_t len, int limit, size_t *off)
{
  int depth = 0;
  char quote = 0;

  for (size_t i = 0; i < len; i++) {
    char ch = text[i];
    if (quote) {
      if (ch == '\\' && quote == '"' && i + 1 < len)
        i++;
      else if (ch == quote)
        quote = 0;
      continue;
    }
    if (ch == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\n')) {
      while (i < len && text[i] != '\n')
        i++;
      continue;
    }
    if ((ch == '"' || ch == '\'') && (i == 0 || strchr(" \t\n[{,:", text[i - 1])))
      quote = ch;
    else if (ch == '[' || ch == '{') {
      if (++depth > limit) {
        *off = i;
        return true;
      }
    } else if ((ch == ']' || ch == '}') && depth > 0)
      depth--;
  }
  return false;
}

/* Optimal string alignment distance, in half-edits (a change of case alone
 * costs 1, any other edit 2), between a and b (both under 64 bytes). */
static int distance2(const char *a, size_t la, const char *b, size_t lb)
{
  int d[64][64];

  for (size_t i = 0; i <= la; i++)
    d[i][0] = (int)i * 2;
  for (size_t j = 0; j <= lb; j++)
    d[0][j] = (int)j * 2;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      int sub = a[i - 1] == b[j - 1] ? 0
                : tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 1 : 2;
      int best = d[i - 1][j - 1] + sub;
      if (d[i - 1][j] + 2 < best)
        best = d[i - 1][j] + 2;
      if (d[i][j - 1] + 2 < best)
        best = d[i][j - 1] + 2;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 2 < best)
        best = d[i - 2][j - 2] + 2;
      d[i][j] = best;
    }
  return d[la][lb];
}

const char *nub_text_nearest(const char *word, const char *const *v, size_t n)
{
  size_t lw = strlen(word);
  int limit = (int)(lw / 3), best = -1;
  const char *found = NULL;

  if (limit < 1)
    limit = 1;
  if (limit > 3)
    limit = 3;
  if (lw >= 64)
    return NULL;
  for (size_t i = 0; i < n; i++) {
    size_t lv = strlen(v[i]);
    int dist;
    if (lv >= 64 || (lv > lw ? lv - lw : lw - lv) > (size_t)limit)
      continue;
    dist = distance2(word, lw, v[i], lv);
    if (dist <= limit * 2 && (best < 0 || dist < best)) {
      best = dist;
      found = v[i];
    }
  }
  return found;
}

/* JavaScript's localeCompare (text.h): letters and digits by their primary weight,
 * case-insensitively, punctuation before digits before letters, in CLDR's
 * order of punctuation; ties broken by case (lower first), then bytes. */
static int primary(unsigned char ch)
{
  static const char punct[] = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";
  const char *p;

  if (ch >= 'A' && ch <= 'Z')
    ch = (unsigned char)(ch - 'A' + 'a');
  if (ch >= 'a' && ch <= 'z')
    return 200 + ch;
  if (ch >= '0' && ch <= '9')
    return 100 + ch;
  if (ch && (p = strchr(punct, ch)) != NULL)
    return 10 + (int)(p - punct);
  return 400 + ch; /* anything else after */
}

int nub_locale_cmp(const char *a, const char *b)
{
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  size_t i;

  for (i = 0; x[i] && y[i]; i++)
    if (primary(x[i]) != primary(y[i]))
      return primary(x[i]) - primary(y[i]);
  if (x[i] || y[i])
    return x[i] ? 1 : -1;
  for (i = 0; x[i]; i++) /* the same letters: lowercase first */
    if (x[i] != y[i])
      return (x[i] >= 'a' && x[i] <= 'z') ? -1 : 1;
  return 0;
}
