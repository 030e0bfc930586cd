/* yaml_emit.c - a YAML writer that prints what js-yaml's dumper prints
 * (pnpm writes its lockfile with js-yaml, and pnpm 12's Rust port copies that
 * output exactly): its scalar-style choice, block style with flow for the
 * keys a style names, and @zkochan/js-yaml's blank lines. A lockfile that
 * pnpm and nub both write must not churn, so every rule was checked against
 * pnpm 12.4 output (ci/bench/fixtures and tests/fixtures/lockfiles). */
#include "yaml_emit.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "nub_alloc.h"

/* ---- js-yaml's scalar styles ------------------------------------------- */

#define CP_NONE 0xFFFFFFFFu /* "no previous character" */
#define CP_BAD 0x80000000u  /* an invalid UTF-8 byte (in the low 8 bits) */

static uint32_t utf8_next(const unsigned char **pp, const unsigned char *end)
{
  const unsigned char *p = *pp;
  uint32_t c = p[0], min;
  int n;

  if (c < 0x80) {
    *pp = p + 1;
    return c;
  }
  if ((c & 0xE0) == 0xC0) {
    n = 1, c &= 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 2, c &= 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 3, c &= 0x07, min = 0x10000;
  } else {
    goto bad;
  }
  if (end - p <= n)
    goto bad;
  for (int i = 1; i <= n; i++) {
    if ((p[i] & 0xC0) != 0x80)
      goto bad;
    c = (c << 6) | (p[i] & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
    goto bad;
  *pp = p + n + 1;
  return c;
bad:
  *pp = p + 1;
  return CP_BAD | p[0];
}

/* js-yaml's isPrintable: what may appear unescaped. Tab, CR, NBSP and NEL
 * are not, which sends such strings to double quotes. */
static bool y_printable(uint32_t c)
{
  return (c >= 0x20 && c <= 0x7E) ||
         (c >= 0xA1 && c <= 0xD7FF && c != 0x2028 && c != 0x2029) ||
         (c >= 0xE000 && c <= 0xFFFD && c != 0xFEFF) || (c >= 0x10000 && c <= 0x10FFFF);
}

static bool y_white(uint32_t c) { return c == ' ' || c == '\t'; }

static bool y_flow_indicator(uint32_t c)
{
  return c == ',' || c == '[' || c == ']' || c == '{' || c == '}';
}

/* isPlainSafe: may c follow prev inside a plain scalar? In flow context the
 * flow indicators end a scalar; "#" after a space starts a comment; ": "
 * would start a mapping. */
static bool y_plain_safe(uint32_t c, uint32_t prev, bool inblock)
{
  bool ns_or_white = y_printable(c);
  bool ns = ns_or_white && !y_white(c);
  bool prev_ns = prev != CP_NONE && y_printable(prev) && !y_white(prev);

  return ((inblock ? ns_or_white : ns_or_white && !y_flow_indicator(c)) && c != '#' &&
          !(prev == ':' && !ns)) ||
         (prev_ns && c == '#') || (prev == ':' && ns);
}

static bool y_plain_safe_first(uint32_t c)
{
  return y_printable(c) && !y_white(c) && (c >= 0x80 || !strchr("-?:,[]{}#&*!|=>'\"%@`", (int)c));
}

static bool y_plain_safe_last(uint32_t c) { return !y_white(c) && c != ':'; }

/* Greedy run of min..max decimal digits at s[*i]. */
static bool y_digits(const char *s, size_t *i, int min, int max)
{
  int n = 0;

  while (n < max && s[*i] >= '0' && s[*i] <= '9')
    (*i)++, n++;
  return n >= min;
}

/* js-yaml's int type (core schema): 0b/0o/0x forms and "_" separators. */
static bool y_is_int(const char *s)
{
  size_t i = 0, n = strlen(s);
  bool digits = false;
  char ch;

  if (!n)
    return false;
  ch = s[i];
  if (ch == '-' || ch == '+')
    ch = s[++i];
  if (ch == '0') {
    if (i + 1 == n)
      return true;
    ch = s[++i];
    if (ch == 'b' || ch == 'o' || ch == 'x') {
      char base = ch;
      for (i++; i < n; i++) {
        ch = s[i];
        if (ch == '_')
          continue;
        if (base == 'b' ? (ch != '0' && ch != '1')
            : base == 'o' ? (ch < '0' || ch > '7')
                          : !isxdigit((unsigned char)ch))
          return false;
        digits = true;
      }
      return digits && ch != '_';
    }
  }
  if (ch == '_')
    return false;
  for (; i < n; i++) {
    ch = s[i];
    if (ch == '_')
      continue;
    if (ch < '0' || ch > '9')
      return false;
    digits = true;
  }
  return digits && ch != '_';
}

/* js-yaml's float type: "1", "9.0", "1e5", ".5", "1_000", ".inf", ".nan". */
static bool y_is_float(const char *s)
{
  size_t n = strlen(s), i = 0, k;
  const char *t = s + (s[0] == '-' || s[0] == '+');

  if (!n || s[n - 1] == '_')
    return false;
  if (!strcmp(t, ".inf") || !strcmp(t, ".Inf") || !strcmp(t, ".INF") || !strcmp(s, ".nan") ||
      !strcmp(s, ".NaN") || !strcmp(s, ".NAN"))
    return true;
  i = (size_t)(t - s);
  if (s[i] >= '0' && s[i] <= '9') {
    i += strspn(s + i, "0123456789_");
    if (s[i] == '.')
      i += 1 + strspn(s + i + 1, "0123456789_");
  } else if (s[0] == '.') {
    k = strspn(s + 1, "0123456789_");
    if (!k)
      return false;
    i = 1 + k;
  } else {
    return false;
  }
  if (s[i] == 'e' || s[i] == 'E') {
    i++;
    if (s[i] == '-' || s[i] == '+')
      i++;
    k = strspn(s + i, "0123456789");
    if (!k)
      return false;
    i += k;
  }
  return s[i] == '\0';
}

/* js-yaml's timestamp type: "2020-01-01", "2020-1-1 10:00:00.5 +01:00". */
static bool y_is_timestamp(const char *s)
{
  size_t i = 0, j;

  if (!y_digits(s, &i, 4, 4) || s[i++] != '-')
    return false;
  j = i; /* the date alone: 2020-01-01 */
  if (y_digits(s, &j, 2, 2) && s[j] == '-') {
    j++;
    if (y_digits(s, &j, 2, 2) && !s[j])
      return true;
  }
  if (!y_digits(s, &i, 1, 2) || s[i++] != '-' || !y_digits(s, &i, 1, 2))
    return false;
  if (s[i] == 'T' || s[i] == 't') {
    i++;
  } else if (y_white((unsigned char)s[i])) {
    while (y_white((unsigned char)s[i]))
      i++;
  } else {
    return false;
  }
  if (!y_digits(s, &i, 1, 2) || s[i++] != ':' || !y_digits(s, &i, 2, 2) || s[i++] != ':' ||
      !y_digits(s, &i, 2, 2))
    return false;
  if (s[i] == '.') {
    i++;
    y_digits(s, &i, 0, 1 << 30);
  }
  if (s[i]) {
    while (y_white((unsigned char)s[i]))
      i++;
    if (s[i] == 'Z') {
      i++;
    } else if (s[i] == '-' || s[i] == '+') {
      i++;
      if (!y_digits(s, &i, 1, 2))
        return false;
      if (s[i] == ':') {
        i++;
        if (!y_digits(s, &i, 2, 2))
          return false;
      }
    } else {
      return false;
    }
  }
  return s[i] == '\0';
}

/* Would a plain scalar with this text load as something other than a string
 * (js-yaml's default schema: null, bool, int, float, timestamp, merge)? Note
 * that YAML 1.1's yes/no/on/off are strings here and stay unquoted. */
static bool y_ambiguous(const char *s)
{
  static const char *const words[] = {"~",    "null",  "Null",  "NULL",  "true", "True",
                                      "TRUE", "false", "False", "FALSE", "<<",   NULL};

  for (int i = 0; words[i]; i++)
    if (!strcmp(s, words[i]))
      return true;
  return y_is_int(s) || y_is_float(s) || y_is_timestamp(s);
}

enum { ST_PLAIN, ST_SINGLE, ST_LITERAL, ST_DOUBLE };

/* js-yaml's chooseScalarStyle with lineWidth -1 (never fold) and single
 * quotes preferred. single_line: keys and flow context, no block scalars. */
static int y_choose_style(const char *s, bool single_line, bool inblock)
{
  const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
  uint32_t c, prev = CP_NONE;
  bool plain, line_break = false;

  if (p == end)
    return ST_SINGLE;
  c = utf8_next(&p, end);
  plain = y_plain_safe_first(c);
  p = (const unsigned char *)s;
  while (p < end) {
    c = utf8_next(&p, end);
    if (!single_line && c == '\n')
      line_break = true;
    else if (!y_printable(c))
      return ST_DOUBLE;
    plain = plain && y_plain_safe(c, prev, inblock);
    prev = c;
  }
  plain = plain && y_plain_safe_last(prev);
  if (!line_break)
    return plain && !y_ambiguous(s) ? ST_PLAIN : ST_SINGLE;
  return ST_LITERAL;
}

/* A literal block scalar ("|-", "|", "|+", with "2" when the text starts
 * with a space), its lines indented by `indent`. */
static void y_put_literal(struct nub_buf *out, const char *s, int indent)
{
  size_t n = strlen(s);
  bool clip = s[n - 1] == '\n';
  bool keep = clip && (n == 1 || s[n - 2] == '\n');
  const char *p = s, *end = s + n;

  nub_buf_addc(out, '|');
  if (s[strspn(s, "\n")] == ' ')
    nub_buf_addc(out, '2');
  if (keep)
    nub_buf_addc(out, '+');
  else if (!clip)
    nub_buf_addc(out, '-');
  nub_buf_addc(out, '\n');
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *lend = nl ? nl + 1 : end;
    if (!(lend - p == 1 && *p == '\n'))
      for (int i = 0; i < indent; i++)
        nub_buf_addc(out, ' ');
    nub_buf_add(out, p, (size_t)(lend - p));
    p = lend;
  }
  if (clip) /* js-yaml's dropEndingNewline */
    out->data[--out->len] = '\0';
}

static void y_put_double(struct nub_buf *out, const char *s)
{
  const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);

  nub_buf_addc(out, '"');
  while (p < end) {
    const unsigned char *start = p;
    uint32_t c = utf8_next(&p, end);
    const char *esc = NULL;
    switch (c) {
    case 0x00: esc = "\\0"; break;
    case 0x07: esc = "\\a"; break;
    case 0x08: esc = "\\b"; break;
    case 0x09: esc = "\\t"; break;
    case 0x0A: esc = "\\n"; break;
    case 0x0B: esc = "\\v"; break;
    case 0x0C: esc = "\\f"; break;
    case 0x0D: esc = "\\r"; break;
    case 0x1B: esc = "\\e"; break;
    case 0x22: esc = "\\\""; break;
    case 0x5C: esc = "\\\\"; break;
    case 0x85: esc = "\\N"; break;
    case 0xA0: esc = "\\_"; break;
    case 0x2028: esc = "\\L"; break;
    case 0x2029: esc = "\\P"; break;
    }
    if (esc)
      nub_buf_adds(out, esc);
    else if (y_printable(c))
      nub_buf_add(out, start, (size_t)(p - start));
    else if (c & CP_BAD)
      nub_buf_addf(out, "\\x%02X", (unsigned)(c & 0xFF));
    else if (c <= 0xFF)
      nub_buf_addf(out, "\\x%02X", (unsigned)c);
    else if (c <= 0xFFFF)
      nub_buf_addf(out, "\\u%04X", (unsigned)c);
    else
      nub_buf_addf(out, "\\U%08X", (unsigned)c);
  }
  nub_buf_addc(out, '"');
}

/* Write s as js-yaml would at nesting `level` (block scalars are indented
 * by 2 * level). */
static void y_put_scalar(struct nub_buf *out, const char *s, int level, bool single_line,
                         bool inblock)
{
  switch (y_choose_style(s, single_line, inblock)) {
  case ST_PLAIN:
    nub_buf_adds(out, s);
    break;
  case ST_SINGLE:
    nub_buf_addc(out, '\'');
    for (; *s; s++) {
      if (*s == '\'')
        nub_buf_addc(out, '\'');
      nub_buf_addc(out, *s);
    }
    nub_buf_addc(out, '\'');
    break;
  case ST_LITERAL:
    y_put_literal(out, s, 2 * (level < 1 ? 1 : level));
    break;
  default:
    y_put_double(out, s);
    break;
  }
}

/* ---- the tree the writer prints ----------------------------------------- */

enum ytype { Y_STR, Y_RAW, Y_MAP, Y_SEQ };

struct ypair;

/* Strings are borrowed from the graph or are literals. */
struct nub_ynode {
  enum ytype t;
  const char *s;        /* Y_STR, Y_RAW (printed verbatim) */
  struct ypair *pairs;  /* Y_MAP */
  const char **items;   /* Y_SEQ, scalars only */
  size_t n, cap;
};

struct ypair {
  const char *key;
  int prio;
  struct nub_ynode *val;
};

static struct nub_ynode *y_new(struct nub_ydoc *t, enum ytype type, const char *s)
{
  struct nub_ynode *y = nub_calloc(1, sizeof(*y));

  y->t = type;
  y->s = s;
  NUB_GROW(t->all, t->cap, t->n + 1);
  t->all[t->n++] = y;
  return y;
}

static void y_tree_free(struct nub_ydoc *t)
{
  for (size_t i = 0; i < t->n; i++) {
    nub_free(t->all[i]->pairs);
    nub_free(t->all[i]->items);
    nub_free(t->all[i]);
  }
  nub_free(t->all);
}

void nub_yset(struct nub_ynode *m, const char *key, struct nub_ynode *v)
{
  NUB_GROW(m->pairs, m->cap, m->n + 1);
  m->pairs[m->n].key = key;
  m->pairs[m->n].prio = 0;
  m->pairs[m->n++].val = v;
}

void nub_yset_str(struct nub_ydoc *t, struct nub_ynode *m, const char *key, const char *s)
{
  nub_yset(m, key, y_new(t, Y_STR, s));
}

void nub_yset_seq(struct nub_ydoc *t, struct nub_ynode *m, const char *key, char *const *v,
                  size_t n)
{
  struct nub_ynode *seq;

  if (!n)
    return;
  seq = y_new(t, Y_SEQ, NULL);
  seq->items = nub_malloc(n * sizeof(*seq->items));
  for (size_t i = 0; i < n; i++)
    seq->items[i] = v[i];
  seq->n = seq->cap = n;
  nub_yset(m, key, seq);
}

void nub_yset_depmap(struct nub_ydoc *t, struct nub_ynode *m, const char *key,
                     const struct nub_depmap *d)
{
  struct nub_ynode *sub;

  if (!d->n)
    return;
  sub = y_new(t, Y_MAP, NULL);
  for (size_t i = 0; i < d->n; i++)
    nub_yset_str(t, sub, d->v[i].name, d->v[i].spec);
  nub_yset(m, key, sub);
}

static int y_cmp_pair(const void *a, const void *b)
{
  const struct ypair *x = a, *y = b;

  if (x->prio && y->prio)
    return x->prio - y->prio;
  if (x->prio)
    return -1;
  if (y->prio)
    return 1;
  return strcmp(x->key, y->key);
}

void nub_ysort(struct nub_ynode *m, const char *const *order)
{
  if (m->t != Y_MAP)
    return;
  for (size_t i = 0; i < m->n; i++) {
    m->pairs[i].prio = 0;
    for (int k = 0; order && order[k]; k++)
      if (!strcmp(m->pairs[i].key, order[k])) {
        m->pairs[i].prio = k + 1;
        break;
      }
    nub_ysort(m->pairs[i].val, order);
  }
  if (m->n > 1)
    nub_sort(m->pairs, m->n, sizeof(*m->pairs), y_cmp_pair);
}

/* ---- printing (js-yaml's writeNode family) ------------------------------ */

static void y_newline(struct nub_buf *out, int level)
{
  nub_buf_addc(out, '\n');
  for (int i = 0; i < level; i++)
    nub_buf_add(out, "  ", 2);
}

/* A key; js-yaml makes keys longer than 1024 characters explicit ("? "). */
static bool y_put_key(struct nub_buf *out, const char *key, int level, bool inblock)
{
  size_t at = out->len;

  y_put_scalar(out, key, level, true, inblock);
  if (out->len - at <= 1024)
    return false;
  nub_buf_add(out, "  ", 2);
  memmove(out->data + at + 2, out->data + at, out->len - 2 - at);
  memcpy(out->data + at, "? ", 2);
  return true;
}

static void y_put_flow(struct nub_buf *out, const struct nub_ynode *v, int level)
{
  switch (v->t) {
  case Y_RAW:
    nub_buf_adds(out, v->s);
    break;
  case Y_STR:
    y_put_scalar(out, v->s, level, true, false);
    break;
  case Y_SEQ:
    nub_buf_addc(out, '[');
    for (size_t i = 0; i < v->n; i++) {
      if (i)
        nub_buf_add(out, ", ", 2);
      y_put_scalar(out, v->items[i], level, true, false);
    }
    nub_buf_addc(out, ']');
    break;
  case Y_MAP:
    nub_buf_addc(out, '{');
    for (size_t i = 0; i < v->n; i++) {
      if (i)
        nub_buf_add(out, ", ", 2);
      y_put_key(out, v->pairs[i].key, level, false);
      nub_buf_add(out, ": ", 2);
      y_put_flow(out, v->pairs[i].val, level);
    }
    nub_buf_addc(out, '}');
    break;
  }
}

/* blank: 0 none, 1 between entries (the root), 2 before every entry. */
static void y_put_block_map(struct nub_buf *out, const struct nub_ynode *m, int level, bool compact,
                            int blank, const struct nub_yaml_style *st);

static void y_put_block_seq(struct nub_buf *out, const struct nub_ynode *v, int level, bool compact)
{
  for (size_t i = 0; i < v->n; i++) {
    if (!compact || i)
      y_newline(out, level);
    nub_buf_add(out, "- ", 2);
    y_put_scalar(out, v->items[i], level + 1, false, true);
  }
}

/* The value of `key` in a block mapping, from the ':' on. compact: the key
 * was explicit, so a block collection starts on the ": " line. */
static void y_put_value(struct nub_buf *out, const char *key, const struct nub_ynode *v, int level,
                        bool compact, const struct nub_yaml_style *st)
{
  if (v->t == Y_STR) {
    nub_buf_add(out, ": ", 2);
    y_put_scalar(out, v->s, level, false, true);
  } else if (v->t == Y_RAW || !v->n || (st->flow_key && st->flow_key(key))) {
    nub_buf_add(out, ": ", 2);
    y_put_flow(out, v, level);
  } else {
    nub_buf_adds(out, compact ? ": " : ":");
    if (v->t == Y_MAP)
      y_put_block_map(out, v, level, compact, st->blank_key && st->blank_key(key) ? 2 : 0, st);
    else
      y_put_block_seq(out, v, level, compact);
  }
}

static void y_put_block_map(struct nub_buf *out, const struct nub_ynode *m, int level, bool compact,
                            int blank, const struct nub_yaml_style *st)
{
  for (size_t i = 0; i < m->n; i++) {
    bool expl;
    if (blank == 2 || (blank == 1 && i))
      nub_buf_addc(out, '\n');
    if (!compact || i)
      y_newline(out, level);
    expl = y_put_key(out, m->pairs[i].key, level + 1, true);
    if (expl)
      y_newline(out, level);
    y_put_value(out, m->pairs[i].key, m->pairs[i].val, level + 1, expl, st);
  }
}

/* ---- the interface (yaml_emit.h) ---------------------------------------- */

void nub_ydoc_init(struct nub_ydoc *d)
{
  memset(d, 0, sizeof(*d));
}

void nub_ydoc_free(struct nub_ydoc *d)
{
  y_tree_free(d);
  for (size_t i = 0; i < d->nowned; i++)
    nub_free(d->owned[i]);
  nub_free(d->owned);
  memset(d, 0, sizeof(*d));
}

const char *nub_ydoc_keep(struct nub_ydoc *d, char *s)
{
  NUB_GROW(d->owned, d->capowned, d->nowned + 1);
  d->owned[d->nowned++] = s;
  return s;
}

struct nub_ynode *nub_ymap(struct nub_ydoc *d)
{
  return y_new(d, Y_MAP, NULL);
}

struct nub_ynode *nub_yraw(struct nub_ydoc *d, const char *text)
{
  return y_new(d, Y_RAW, text);
}

void nub_yscalar(struct nub_buf *out, const char *s, int level, bool inblock)
{
  y_put_scalar(out, s, level, true, inblock);
}

void nub_yprint(struct nub_buf *out, const struct nub_ynode *root,
                const struct nub_yaml_style *st)
{
  y_put_block_map(out, root, 0, true, 1, st);
  nub_buf_addc(out, '\n');
}
