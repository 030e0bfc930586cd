/* lockfile_pnpm.c - nub.lock (pnpm-lock.yaml v9) reader and writer.
 *
 * Reading goes through libyaml's document API. Writing does not use
 * libyaml's emitter: pnpm serialises with js-yaml (pnpm 12's Rust port copies
 * that output exactly), and a lockfile that pnpm and nub both write must not
 * churn. So the writer builds a small tree from the graph, sorts it the way
 * pnpm's sortLockfileKeys does, and prints it with the rules of js-yaml's
 * dumper: its scalar-style choice, block style except for a few keys, and
 * @zkochan/js-yaml's blank lines. Every rule below was checked against
 * pnpm 12.4 output (ci/bench/fixtures and tests/fixtures/lockfiles). */
#include "lockfile_pnpm.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "text.h"
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
struct ynode {
  enum ytype t;
  const char *s;        /* Y_STR, Y_RAW (printed verbatim) */
  struct ypair *pairs;  /* Y_MAP */
  const char **items;   /* Y_SEQ, scalars only */
  size_t n, cap;
};

struct ypair {
  const char *key;
  int prio;
  struct ynode *val;
};

struct ytree {
  struct ynode **all;
  size_t n, cap;
};

static struct ynode *y_new(struct ytree *t, enum ytype type, const char *s)
{
  struct ynode *y = nub_calloc(1, sizeof(*y));

  y->t = type;
  y->s = s;
  NUB_GROW(t->all, t->cap, t->n + 1);
  t->all[t->n++] = y;
  return y;
}

static void y_tree_free(struct ytree *t)
{
  for (size_t i = 0; i < t->n; i++) {
    nub_free(t->all[i]->pairs);
    nub_free(t->all[i]->items);
    nub_free(t->all[i]);
  }
  nub_free(t->all);
}

static void y_set(struct ynode *m, const char *key, struct ynode *v)
{
  NUB_GROW(m->pairs, m->cap, m->n + 1);
  m->pairs[m->n].key = key;
  m->pairs[m->n].prio = 0;
  m->pairs[m->n++].val = v;
}

static void y_set_str(struct ytree *t, struct ynode *m, const char *key, const char *s)
{
  y_set(m, key, y_new(t, Y_STR, s));
}

static void y_set_seq(struct ytree *t, struct ynode *m, const char *key, char *const *v,
                      size_t n)
{
  struct ynode *seq;

  if (!n)
    return;
  seq = y_new(t, Y_SEQ, NULL);
  seq->items = nub_malloc(n * sizeof(*seq->items));
  for (size_t i = 0; i < n; i++)
    seq->items[i] = v[i];
  seq->n = seq->cap = n;
  y_set(m, key, seq);
}

static void y_set_depmap(struct ytree *t, struct ynode *m, const char *key,
                         const struct nub_depmap *d)
{
  struct ynode *sub;

  if (!d->n)
    return;
  sub = y_new(t, Y_MAP, NULL);
  for (size_t i = 0; i < d->n; i++)
    y_set_str(t, sub, d->v[i].name, d->v[i].spec);
  y_set(m, key, sub);
}

/* pnpm's sortLockfileKeys: these keys first, in this order, the rest by code
 * unit. It sorts deep, so a dependency *named* "os" or "name" moves up too;
 * pnpm's output has that quirk and so does ours. */
static const char *const pkg_key_order[] = {
    "resolution", "id", "name", "version", "engines", "cpu", "os", "libc", "deprecated",
    "hasBin", "prepare", "requiresBuild", "bundleDependencies", "peerDependencies",
    "peerDependenciesMeta", "dependencies", "optionalDependencies",
    "transitivePeerDependencies", "dev", "optional", NULL};
/* ... and for importers (pnpm reuses its root key order there). */
static const char *const importer_key_order[] = {
    "lockfileVersion", "settings", "catalogs", "overrides", "packageExtensionsChecksum",
    "pnpmfileChecksum", "patchedDependencies", "importers", "packages", NULL};

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

static void y_sort_deep(struct ynode *m, const char *const *order)
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
    y_sort_deep(m->pairs[i].val, order);
  }
  if (m->n > 1)
    nub_sort(m->pairs, m->n, sizeof(*m->pairs), y_cmp_pair);
}

/* ---- printing (js-yaml's writeNode family) ------------------------------ */

/* Collections under these keys are written in flow style, at any depth
 * (hence pnpm's `os: {specifier: 1.0.0, version: 1.0.0}` for a dependency
 * named "os"). */
static bool y_flow_key(const char *k)
{
  return !strcmp(k, "resolution") || !strcmp(k, "engines") || !strcmp(k, "cpu") ||
         !strcmp(k, "os") || !strcmp(k, "libc");
}

/* Mappings under these keys get a blank line before every entry. */
static bool y_blank_key(const char *k)
{
  return !strcmp(k, "importers") || !strcmp(k, "packages") || !strcmp(k, "snapshots");
}

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

static void y_put_flow(struct nub_buf *out, const struct ynode *v, int level)
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
static void y_put_block_map(struct nub_buf *out, const struct ynode *m, int level, bool compact,
                            int blank);

static void y_put_block_seq(struct nub_buf *out, const struct ynode *v, int level, bool compact)
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
static void y_put_value(struct nub_buf *out, const char *key, const struct ynode *v, int level,
                        bool compact)
{
  if (v->t == Y_STR) {
    nub_buf_add(out, ": ", 2);
    y_put_scalar(out, v->s, level, false, true);
  } else if (v->t == Y_RAW || !v->n || y_flow_key(key)) {
    nub_buf_add(out, ": ", 2);
    y_put_flow(out, v, level);
  } else {
    nub_buf_adds(out, compact ? ": " : ":");
    if (v->t == Y_MAP)
      y_put_block_map(out, v, level, compact, y_blank_key(key) ? 2 : 0);
    else
      y_put_block_seq(out, v, level, compact);
  }
}

static void y_put_block_map(struct nub_buf *out, const struct ynode *m, int level, bool compact,
                            int blank)
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
    y_put_value(out, m->pairs[i].key, m->pairs[i].val, level + 1, expl);
  }
}

/* ---- graph -> tree ------------------------------------------------------ */

/* Length of the name in a "name@version" key: up to the first '@' after a
 * scope's leading one (a name holds no other '@'; a version may, as in
 * "foo@git+ssh://git@host/x"). 0 when there is no version part. */
static size_t key_name_len(const char *k)
{
  const char *at = k[0] ? strchr(k + 1, '@') : NULL;

  return at ? (size_t)(at - k) : 0;
}

static void y_set_direct(struct ytree *t, struct ynode *m, const char *key,
                         const struct nub_gdirect *d, size_t n)
{
  struct ynode *sub;

  if (!n)
    return;
  sub = y_new(t, Y_MAP, NULL);
  for (size_t i = 0; i < n; i++) {
    struct ynode *e = y_new(t, Y_MAP, NULL);
    if (d[i].specifier)
      y_set_str(t, e, "specifier", d[i].specifier);
    if (d[i].ref)
      y_set_str(t, e, "version", d[i].ref);
    y_set(sub, d[i].alias, e);
  }
  y_set(m, key, sub);
}

static void y_set_edges(struct ytree *t, struct ynode *m, const char *key,
                        const struct nub_gedge *e, size_t n)
{
  struct ynode *sub;

  if (!n)
    return;
  sub = y_new(t, Y_MAP, NULL);
  for (size_t i = 0; i < n; i++)
    y_set_str(t, sub, e[i].alias, e[i].ref);
  y_set(m, key, sub);
}

static const char *pkg_key_of(const struct nub_gpkg *p)
{
  return p->pkg_key ? p->pkg_key : p->key;
}

static struct ynode *y_package(struct ytree *t, const struct nub_gpkg *p)
{
  struct ynode *m = y_new(t, Y_MAP, NULL);
  const char *pk = pkg_key_of(p);
  size_t nl = key_name_len(pk);

  if (p->integrity || p->tarball || p->directory) {
    struct ynode *r = y_new(t, Y_MAP, NULL);
    if (p->integrity)
      y_set_str(t, r, "integrity", p->integrity);
    if (p->tarball)
      y_set_str(t, r, "tarball", p->tarball);
    if (p->directory) {
      y_set_str(t, r, "directory", p->directory);
      y_set_str(t, r, "type", "directory");
    }
    y_set(m, "resolution", r);
  }
  /* name:/version: only where the key does not already say them (tarball
   * URLs, git) */
  if (p->name && (!nl || strlen(p->name) != nl || strncmp(p->name, pk, nl)))
    y_set_str(t, m, "name", p->name);
  if (p->version && (!nl || strcmp(p->version, pk + nl + 1)))
    y_set_str(t, m, "version", p->version);
  y_set_depmap(t, m, "engines", &p->engines);
  y_set_seq(t, m, "cpu", p->cpu, p->ncpu);
  y_set_seq(t, m, "os", p->os, p->nos);
  y_set_seq(t, m, "libc", p->libc, p->nlibc);
  if (p->deprecated)
    y_set_str(t, m, "deprecated", p->deprecated);
  if (p->has_bin)
    y_set(m, "hasBin", y_new(t, Y_RAW, "true"));
  y_set_depmap(t, m, "peerDependencies", &p->peers);
  if (p->npeers_optional) {
    struct ynode *meta = y_new(t, Y_MAP, NULL);
    for (size_t i = 0; i < p->npeers_optional; i++) {
      struct ynode *o = y_new(t, Y_MAP, NULL);
      y_set(o, "optional", y_new(t, Y_RAW, "true"));
      y_set(meta, p->peers_optional[i], o);
    }
    y_set(m, "peerDependenciesMeta", meta);
  }
  y_set_seq(t, m, "bundledDependencies", p->bundled, p->nbundled);
  y_sort_deep(m, pkg_key_order);
  return m;
}

static struct ynode *y_snapshot(struct ytree *t, const struct nub_gpkg *p)
{
  struct ynode *m = y_new(t, Y_MAP, NULL);

  y_set_edges(t, m, "dependencies", p->deps, p->ndeps);
  y_set_edges(t, m, "optionalDependencies", p->optional_deps, p->noptional_deps);
  y_set_seq(t, m, "transitivePeerDependencies", p->transitive_peers, p->ntransitive_peers);
  if (p->optional)
    y_set(m, "optional", y_new(t, Y_RAW, "true"));
  y_sort_deep(m, pkg_key_order);
  return m;
}

static int cmp_importer(const void *a, const void *b)
{
  return strcmp((*(struct nub_importer *const *)a)->path,
                (*(struct nub_importer *const *)b)->path);
}

static int cmp_by_pkg_key(const void *a, const void *b)
{
  const struct nub_gpkg *x = *(struct nub_gpkg *const *)a, *y = *(struct nub_gpkg *const *)b;
  int c = strcmp(pkg_key_of(x), pkg_key_of(y));

  return c ? c : strcmp(x->key, y->key);
}

static int cmp_by_key(const void *a, const void *b)
{
  return strcmp((*(struct nub_gpkg *const *)a)->key, (*(struct nub_gpkg *const *)b)->key);
}

void nub_lockfile_pnpm_write(const struct nub_graph *g, struct nub_buf *out)
{
  struct ytree t = {NULL, 0, 0};
  struct ynode *root = y_new(&t, Y_MAP, NULL), *settings, *sect;
  struct nub_importer **ims = NULL;
  struct nub_gpkg **pk = NULL;

  y_set_str(&t, root, "lockfileVersion", "9.0");

  /* settings: pnpm writes them sorted by name */
  settings = y_new(&t, Y_MAP, NULL);
  y_set(settings, "autoInstallPeers", y_new(&t, Y_RAW, g->auto_install_peers ? "true" : "false"));
  y_set(settings, "excludeLinksFromLockfile",
        y_new(&t, Y_RAW, g->exclude_links ? "true" : "false"));
  for (size_t i = 0; i < g->settings_extra.n; i++) {
    const struct nub_dep *d = &g->settings_extra.v[i];
    if (strcmp(d->name, "autoInstallPeers") && strcmp(d->name, "excludeLinksFromLockfile"))
      y_set(settings, d->name, y_new(&t, Y_RAW, d->spec));
  }
  y_sort_deep(settings, NULL);
  y_set(root, "settings", settings);

  /* overrides keep their configured order, as in pnpm */
  if (g->overrides.n)
    y_set_depmap(&t, root, "overrides", &g->overrides);

  sect = y_new(&t, Y_MAP, NULL);
  if (g->nimporters) {
    ims = nub_malloc(g->nimporters * sizeof(*ims));
    for (size_t i = 0; i < g->nimporters; i++)
      ims[i] = &g->importers[i];
    nub_sort(ims, g->nimporters, sizeof(*ims), cmp_importer);
  }
  for (size_t i = 0; i < g->nimporters; i++) {
    struct ynode *im = y_new(&t, Y_MAP, NULL);
    y_set_direct(&t, im, "dependencies", ims[i]->deps, ims[i]->ndeps);
    y_set_direct(&t, im, "devDependencies", ims[i]->dev, ims[i]->ndev);
    y_set_direct(&t, im, "optionalDependencies", ims[i]->optional, ims[i]->noptional);
    y_sort_deep(im, importer_key_order);
    y_set(sect, ims[i]->path, im);
  }
  y_set(root, "importers", sect);

  if (g->npkgs) {
    pk = nub_malloc(g->npkgs * sizeof(*pk));
    memcpy(pk, g->pkgs, g->npkgs * sizeof(*pk));
    /* packages: one entry per pkg_key, whatever the number of snapshots */
    nub_sort(pk, g->npkgs, sizeof(*pk), cmp_by_pkg_key);
    sect = y_new(&t, Y_MAP, NULL);
    for (size_t i = 0; i < g->npkgs; i++)
      if (!i || strcmp(pkg_key_of(pk[i]), pkg_key_of(pk[i - 1])))
        y_set(sect, pkg_key_of(pk[i]), y_package(&t, pk[i]));
    y_set(root, "packages", sect);

    nub_sort(pk, g->npkgs, sizeof(*pk), cmp_by_key);
    sect = y_new(&t, Y_MAP, NULL);
    for (size_t i = 0; i < g->npkgs; i++)
      y_set(sect, pk[i]->key, y_snapshot(&t, pk[i]));
    y_set(root, "snapshots", sect);
  }

  y_put_block_map(out, root, 0, true, 1);
  nub_buf_addc(out, '\n');
  nub_free(pk);
  nub_free(ims);
  y_tree_free(&t);
}

/* ---- reading ------------------------------------------------------------ */

struct rd {
  yaml_document_t *doc;
  const char *fname;
  struct nub_err *err;
};

#define FOR_PAIRS(m, pr)                                                          \
  for (yaml_node_pair_t *pr = (m)->data.mapping.pairs.start;                      \
       pr < (m)->data.mapping.pairs.top; pr++)

static size_t npairs(const yaml_node_t *m)
{
  return (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
}

static yaml_node_t *rd_node(struct rd *r, int i) { return yaml_document_get_node(r->doc, i); }

static int rd_bad(struct rd *r, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int rd_bad(struct rd *r, const yaml_node_t *n, const char *fmt, ...)
{
  char msg[768];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return nub_err_set(r->err, -NUB_ELOCKFILE, "%s:%lu:%lu: %s", r->fname,
                     (unsigned long)n->start_mark.line + 1,
                     (unsigned long)n->start_mark.column + 1, msg);
}

static const char *sval(const yaml_node_t *n)
{
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A plain empty, "~" or "null" scalar: the field is absent. */
static bool is_null(const yaml_node_t *n)
{
  const char *s = sval(n);

  return !n || (s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
                 !strcmp(s, "NULL")));
}

static bool is_true(const yaml_node_t *n)
{
  const char *s = sval(n);

  return s && (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"));
}

/* A mapping (NULL for an absent/null value), or an error naming `what`. */
static int rd_map(struct rd *r, yaml_node_t *n, const char *what, yaml_node_t **out)
{
  *out = NULL;
  if (is_null(n))
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return rd_bad(r, n, "%s must be a mapping", what);
  *out = n;
  return 0;
}

static int rd_key(struct rd *r, yaml_node_pair_t *pr, const char *what, const char **out)
{
  yaml_node_t *k = rd_node(r, pr->key);

  *out = sval(k);
  if (!*out)
    return rd_bad(r, k, "%s: keys must be strings", what);
  return 0;
}

static int rd_str(struct rd *r, yaml_node_t *n, const char *what, char **out)
{
  if (is_null(n))
    return 0;
  if (!sval(n))
    return rd_bad(r, n, "%s must be a string", what);
  nub_free(*out);
  *out = nub_strdup(sval(n));
  return 0;
}

static int rd_depmap(struct rd *r, yaml_node_t *n, const char *what, struct nub_depmap *out)
{
  yaml_node_t *m;
  int rc = rd_map(r, n, what, &m);

  if (rc || !m)
    return rc;
  nub_depmap_release(out);
  out->v = nub_calloc(npairs(m) + 1, sizeof(*out->v));
  FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = rd_node(r, pr->value);
    if ((rc = rd_key(r, pr, what, &k)))
      return rc;
    if (is_null(v))
      continue;
    if (!sval(v))
      return rd_bad(r, v, "%s['%s'] must be a string", what, k);
    out->v[out->n].name = nub_strdup(k);
    out->v[out->n++].spec = nub_strdup(sval(v));
  }
  return 0;
}

static int rd_strarray(struct rd *r, yaml_node_t *n, const char *what, char ***out, size_t *nout)
{
  size_t cnt;

  if (is_null(n))
    return 0;
  nub_strarray_free(*out, *nout);
  *out = NULL;
  *nout = 0;
  if (sval(n)) { /* a lone string reads as a one-element list */
    *out = nub_malloc(sizeof(**out));
    (*out)[(*nout)++] = nub_strdup(sval(n));
    return 0;
  }
  if (n->type != YAML_SEQUENCE_NODE)
    return rd_bad(r, n, "%s must be a list", what);
  cnt = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
  *out = nub_malloc((cnt + 1) * sizeof(**out));
  for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
       it++) {
    yaml_node_t *v = rd_node(r, *it);
    if (!sval(v))
      return rd_bad(r, v, "%s must be a list of strings", what);
    (*out)[(*nout)++] = nub_strdup(sval(v));
  }
  return 0;
}

static int rd_edges(struct rd *r, yaml_node_t *n, const char *what, struct nub_gedge **out,
                    size_t *nout)
{
  yaml_node_t *m;
  int rc = rd_map(r, n, what, &m);

  if (rc || !m)
    return rc;
  for (size_t i = 0; i < *nout; i++) {
    nub_free((*out)[i].alias);
    nub_free((*out)[i].ref);
  }
  nub_free(*out);
  *nout = 0;
  *out = nub_calloc(npairs(m) + 1, sizeof(**out));
  FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = rd_node(r, pr->value);
    if ((rc = rd_key(r, pr, what, &k)))
      return rc;
    if (!sval(v) || is_null(v))
      return rd_bad(r, v, "%s['%s'] must be a version or dependency path", what, k);
    (*out)[*nout].alias = nub_strdup(k);
    (*out)[(*nout)++].ref = nub_strdup(sval(v));
  }
  return 0;
}

static int rd_direct(struct rd *r, yaml_node_t *n, const char *what, struct nub_gdirect **out,
                     size_t *nout)
{
  yaml_node_t *m;
  int rc = rd_map(r, n, what, &m);

  if (rc || !m)
    return rc;
  for (size_t i = 0; i < *nout; i++) {
    nub_free((*out)[i].alias);
    nub_free((*out)[i].specifier);
    nub_free((*out)[i].ref);
  }
  nub_free(*out);
  *nout = 0;
  *out = nub_calloc(npairs(m) + 1, sizeof(**out));
  FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = rd_node(r, pr->value), *e;
    struct nub_gdirect *d;
    if ((rc = rd_key(r, pr, what, &k)))
      return rc;
    if (v->type != YAML_MAPPING_NODE)
      return rd_bad(r, v, "%s['%s'] must be a mapping with specifier and version", what, k);
    d = &(*out)[(*nout)++];
    d->alias = nub_strdup(k);
    FOR_PAIRS(v, pe) {
      const char *f;
      e = rd_node(r, pe->value);
      if ((rc = rd_key(r, pe, what, &f)))
        return rc;
      if (!strcmp(f, "specifier"))
        rc = rd_str(r, e, "specifier", &d->specifier);
      else if (!strcmp(f, "version"))
        rc = rd_str(r, e, "version", &d->ref);
      if (rc)
        return rc;
    }
    if (!d->ref)
      return rd_bad(r, v, "%s['%s'] has no version", what, k);
    if (!d->specifier)
      return rd_bad(r, v, "%s['%s'] has no specifier", what, k);
  }
  return 0;
}

static int rd_resolution(struct rd *r, yaml_node_t *n, const char *pkey, struct nub_gpkg *p)
{
  yaml_node_t *m;
  const char *type = NULL;
  int rc = rd_map(r, n, "resolution", &m);

  if (rc || !m)
    return rc;
  FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = rd_node(r, pr->value);
    if ((rc = rd_key(r, pr, "resolution", &k)))
      return rc;
    if (!strcmp(k, "integrity"))
      rc = rd_str(r, v, "resolution.integrity", &p->integrity);
    else if (!strcmp(k, "tarball"))
      rc = rd_str(r, v, "resolution.tarball", &p->tarball);
    else if (!strcmp(k, "directory"))
      rc = rd_str(r, v, "resolution.directory", &p->directory);
    else if (!strcmp(k, "type"))
      type = sval(v);
    if (rc)
      return rc;
  }
  /* Silently dropping a git or runtime resolution would install the wrong
   * thing (or nothing) later; say so while the file position is known. */
  if (type && strcmp(type, "directory")) {
    rd_bad(r, n, "packages['%s']: '%s' resolutions are not supported by nub", pkey, type);
    return r->err->code = -NUB_ESPEC;
  }
  if (type && !p->directory)
    return rd_bad(r, n, "packages['%s']: a directory resolution needs a directory", pkey);
  return 0;
}

static int rd_peers_meta(struct rd *r, yaml_node_t *n, struct nub_gpkg *p)
{
  yaml_node_t *m;
  int rc = rd_map(r, n, "peerDependenciesMeta", &m);

  if (rc || !m)
    return rc;
  nub_strarray_free(p->peers_optional, p->npeers_optional);
  p->npeers_optional = 0;
  p->peers_optional = nub_malloc((npairs(m) + 1) * sizeof(*p->peers_optional));
  FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = rd_node(r, pr->value), *meta;
    if ((rc = rd_key(r, pr, "peerDependenciesMeta", &k)) ||
        (rc = rd_map(r, v, "peerDependenciesMeta entry", &meta)))
      return rc;
    if (!meta)
      continue;
    FOR_PAIRS(meta, pm) {
      const char *f = sval(rd_node(r, pm->key));
      if (f && !strcmp(f, "optional") && is_true(rd_node(r, pm->value))) {
        p->peers_optional[p->npeers_optional++] = nub_strdup(k);
        break;
      }
    }
  }
  return 0;
}

/* The packages: entry `n` (keyed pkey) into p. */
static int rd_package(struct rd *r, const char *pkey, yaml_node_t *n, struct nub_gpkg *p)
{
  yaml_node_t *m;
  int rc = rd_map(r, n, "a packages entry", &m);

  if (rc || !m)
    return rc;
  FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = rd_node(r, pr->value);
    if ((rc = rd_key(r, pr, "packages entry", &k)))
      return rc;
    if (!strcmp(k, "resolution"))
      rc = rd_resolution(r, v, pkey, p);
    else if (!strcmp(k, "name"))
      rc = rd_str(r, v, "name", &p->name);
    else if (!strcmp(k, "version"))
      rc = rd_str(r, v, "version", &p->version);
    else if (!strcmp(k, "engines"))
      rc = rd_depmap(r, v, "engines", &p->engines);
    else if (!strcmp(k, "cpu"))
      rc = rd_strarray(r, v, "cpu", &p->cpu, &p->ncpu);
    else if (!strcmp(k, "os"))
      rc = rd_strarray(r, v, "os", &p->os, &p->nos);
    else if (!strcmp(k, "libc"))
      rc = rd_strarray(r, v, "libc", &p->libc, &p->nlibc);
    else if (!strcmp(k, "hasBin"))
      p->has_bin = is_true(v);
    else if (!strcmp(k, "requiresBuild"))
      p->requires_build = is_true(v);
    else if (!strcmp(k, "deprecated"))
      rc = rd_str(r, v, "deprecated", &p->deprecated);
    else if (!strcmp(k, "peerDependencies"))
      rc = rd_depmap(r, v, "peerDependencies", &p->peers);
    else if (!strcmp(k, "peerDependenciesMeta"))
      rc = rd_peers_meta(r, v, p);
    else if ((!strcmp(k, "bundledDependencies") || !strcmp(k, "bundleDependencies")) &&
             v->type == YAML_SEQUENCE_NODE) /* `true` (bundle all) has no place */
      rc = rd_strarray(r, v, k, &p->bundled, &p->nbundled);
    if (rc)
      return rc;
  }
  return 0;
}

static int rd_snapshot(struct rd *r, yaml_node_t *n, struct nub_gpkg *p)
{
  yaml_node_t *m;
  int rc = rd_map(r, n, "a snapshots entry", &m);

  if (rc || !m)
    return rc;
  FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = rd_node(r, pr->value);
    if ((rc = rd_key(r, pr, "snapshots entry", &k)))
      return rc;
    if (!strcmp(k, "dependencies"))
      rc = rd_edges(r, v, "dependencies", &p->deps, &p->ndeps);
    else if (!strcmp(k, "optionalDependencies"))
      rc = rd_edges(r, v, "optionalDependencies", &p->optional_deps, &p->noptional_deps);
    else if (!strcmp(k, "transitivePeerDependencies"))
      rc = rd_strarray(r, v, "transitivePeerDependencies", &p->transitive_peers,
                       &p->ntransitive_peers);
    else if (!strcmp(k, "optional"))
      p->optional = is_true(v);
    if (rc)
      return rc;
  }
  return 0;
}

/* Where the peer suffix "(peer@1.0.0)(other@2.0.0)" (or a "(patch_hash=..)")
 * of a snapshot key starts: pnpm's indexOfPeersSuffix, which walks balanced
 * parentheses back from the end. strlen(k) when there is none. */
static size_t peers_suffix_at(const char *k)
{
  size_t n = strlen(k);
  int open = 1;

  if (!n || k[n - 1] != ')')
    return n;
  for (size_t i = n - 1; i-- > 0;) {
    if (k[i] == '(')
      open--;
    else if (k[i] == ')')
      open++;
    else if (!open)
      return i + 1;
  }
  return n;
}

struct pent {
  const char *key;
  yaml_node_t *node, *keynode;
  bool used;
};

static int cmp_pent(const void *a, const void *b)
{
  return strcmp(((const struct pent *)a)->key, ((const struct pent *)b)->key);
}

/* A gpkg for packages entry e under dep path `key`. */
static int rd_gpkg(struct rd *r, struct nub_graph *g, struct pent *e, const char *key,
                   yaml_node_t *snap)
{
  struct nub_gpkg *p = nub_calloc(1, sizeof(*p));
  size_t nl = key_name_len(e->key);
  int rc;

  nub_graph_add(g, p);
  if (!nl)
    return rd_bad(r, e->keynode, "packages key '%s' is not name@version", e->key);
  p->key = nub_strdup(key);
  p->pkg_key = nub_strdup(e->key);
  p->name = nub_strndup(e->key, nl);
  p->version = nub_strdup(e->key + nl + 1);
  e->used = true;
  if ((rc = rd_package(r, e->key, e->node, p)))
    return rc;
  return snap ? rd_snapshot(r, snap, p) : 0;
}

static int rd_packages(struct rd *r, struct nub_graph *g, yaml_node_t *packages,
                       yaml_node_t *snapshots)
{
  struct pent *ents = NULL;
  size_t n = 0;
  int rc = 0;

  if (packages) {
    ents = nub_calloc(npairs(packages) + 1, sizeof(*ents));
    FOR_PAIRS(packages, pr) {
      if ((rc = rd_key(r, pr, "packages", &ents[n].key)))
        goto out;
      ents[n].keynode = rd_node(r, pr->key);
      ents[n++].node = rd_node(r, pr->value);
    }
    nub_sort(ents, n, sizeof(*ents), cmp_pent);
    for (size_t i = 1; i < n; i++)
      if (!strcmp(ents[i].key, ents[i - 1].key)) {
        rc = rd_bad(r, ents[i].keynode, "packages has '%s' twice", ents[i].key);
        goto out;
      }
  }
  if (snapshots) {
    FOR_PAIRS(snapshots, pr) {
      const char *k;
      struct pent probe, *e;
      size_t cut;
      if ((rc = rd_key(r, pr, "snapshots", &k)))
        goto out;
      cut = peers_suffix_at(k);
      probe.key = nub_strndup(k, cut);
      e = n ? bsearch(&probe, ents, n, sizeof(*ents), cmp_pent) : NULL;
      nub_free((char *)probe.key);
      if (!e) {
        rc = rd_bad(r, rd_node(r, pr->key), "snapshot '%s' has no packages entry", k);
        goto out;
      }
      if ((rc = rd_gpkg(r, g, e, k, rd_node(r, pr->value))))
        goto out;
    }
  }
  for (size_t i = 0; i < n; i++)
    if (!ents[i].used && (rc = rd_gpkg(r, g, &ents[i], ents[i].key, NULL)))
      goto out;
  if (g->npkgs) /* nub_sort(NULL, 0, ...) is undefined */
    nub_graph_sort(g);
  for (size_t i = 1; i < g->npkgs; i++)
    if (!strcmp(g->pkgs[i]->key, g->pkgs[i - 1]->key)) {
      rc = nub_err_set(r->err, -NUB_ELOCKFILE, "%s: snapshots has '%s' twice", r->fname,
                       g->pkgs[i]->key);
      goto out;
    }
out:
  nub_free(ents);
  return rc;
}

static int rd_importers(struct rd *r, struct nub_graph *g, yaml_node_t *n)
{
  yaml_node_t *m;
  int rc = rd_map(r, n, "importers", &m);

  if (rc || !m)
    return rc;
  g->importers = nub_calloc(npairs(m) + 1, sizeof(*g->importers));
  FOR_PAIRS(m, pr) {
    const char *path;
    char where[512], what[600];
    yaml_node_t *im;
    struct nub_importer *dst;
    if ((rc = rd_key(r, pr, "importers", &path)))
      return rc;
    dst = &g->importers[g->nimporters++];
    dst->path = nub_strdup(path);
    snprintf(where, sizeof(where), "importers['%s']", path);
    if ((rc = rd_map(r, rd_node(r, pr->value), where, &im)))
      return rc;
    if (!im)
      continue;
    FOR_PAIRS(im, ps) {
      const char *k;
      yaml_node_t *v = rd_node(r, ps->value);
      if ((rc = rd_key(r, ps, where, &k)))
        return rc;
      snprintf(what, sizeof(what), "%s.%s", where, k);
      if (!strcmp(k, "dependencies"))
        rc = rd_direct(r, v, what, &dst->deps, &dst->ndeps);
      else if (!strcmp(k, "devDependencies"))
        rc = rd_direct(r, v, what, &dst->dev, &dst->ndev);
      else if (!strcmp(k, "optionalDependencies"))
        rc = rd_direct(r, v, what, &dst->optional, &dst->noptional);
      if (rc)
        return rc;
    }
  }
  return 0;
}

static int rd_settings(struct rd *r, struct nub_graph *g, yaml_node_t *n)
{
  yaml_node_t *m;
  int rc = rd_map(r, n, "settings", &m);

  if (rc || !m)
    return rc;
  nub_depmap_release(&g->settings_extra);
  g->settings_extra.v = nub_calloc(npairs(m) + 1, sizeof(*g->settings_extra.v));
  FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = rd_node(r, pr->value);
    struct nub_buf text = NUB_BUF_INIT;
    struct nub_dep *d;
    if ((rc = rd_key(r, pr, "settings", &k)))
      return rc;
    if (!strcmp(k, "autoInstallPeers")) {
      g->auto_install_peers = is_true(v);
      continue;
    }
    if (!strcmp(k, "excludeLinksFromLockfile")) {
      g->exclude_links = is_true(v);
      continue;
    }
    if (!sval(v)) /* a list or map setting: nothing in nub uses one */
      continue;
    /* Keep the YAML text: plain scalars (true, 500) as they were, strings
     * as the writer would quote them. */
    if (v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
      nub_buf_adds(&text, sval(v));
    else
      y_put_scalar(&text, sval(v), 2, true, true);
    d = &g->settings_extra.v[g->settings_extra.n++];
    d->name = nub_strdup(k);
    d->spec = text.data ? nub_buf_take(&text) : nub_strdup("");
  }
  return 0;
}

/* 9, 9.0, 9.1, ...: pnpm 9 and later write 9.0; a minor bump stays
 * compatible by pnpm's own rule. */
static bool is_v9(const char *v)
{
  if (!v || v[0] != '9')
    return false;
  if (!v[1])
    return true;
  return v[1] == '.' && v[2] && strspn(v + 2, "0123456789") == strlen(v + 2);
}

static bool find_conflict(const char *text, size_t len, size_t *off)
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

int nub_lockfile_pnpm_parse(struct nub_graph *g, const char *text, size_t len,
                            const char *fname, struct nub_err *err)
{
  yaml_parser_t parser;
  yaml_document_t doc;
  yaml_node_t *root, *ver = NULL, *settings = NULL, *overrides = NULL, *importers = NULL,
                     *packages = NULL, *snapshots = NULL;
  struct rd r = {&doc, fname, err};
  size_t off;
  int rc = 0;

  if (find_conflict(text, len, &off)) {
    int line, col;
    nub_text_linecol(text, off, &line, &col);
    return nub_err_set(err, -NUB_ELOCKFILE,
                       "%s:%d: unresolved merge-conflict marker; resolve the conflict "
                       "(or delete the lockfile and re-resolve)",
                       fname, line);
  }
  if (!yaml_parser_initialize(&parser))
    return nub_err_set(err, -ENOMEM, "out of memory parsing %s", fname);
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  if (!yaml_parser_load(&parser, &doc)) { /* libyaml frees doc itself */
    int line = (int)parser.problem_mark.line + 1, col = (int)parser.problem_mark.column + 1;
    if (parser.error == YAML_READER_ERROR)
      nub_text_linecol(text, parser.problem_offset, &line, &col);
    if (parser.error == YAML_MEMORY_ERROR)
      rc = nub_err_set(err, -ENOMEM, "out of memory parsing %s", fname);
    else
      rc = nub_err_set(err, -NUB_ELOCKFILE, "%s:%d:%d: invalid YAML: %s%s%s%s", fname, line,
                       col, parser.problem ? parser.problem : "syntax error",
                       parser.context ? " (" : "", parser.context ? parser.context : "",
                       parser.context ? ")" : "");
    yaml_parser_delete(&parser);
    return rc;
  }
  yaml_parser_delete(&parser);

  root = yaml_document_get_root_node(&doc);
  if (!root) {
    rc = nub_err_set(err, -NUB_ELOCKFILE, "%s is empty", fname);
    goto out;
  }
  if (root->type != YAML_MAPPING_NODE) {
    rc = rd_bad(&r, root, "expected a mapping with lockfileVersion at the top level");
    goto out;
  }
  FOR_PAIRS(root, pr) {
    const char *k = sval(rd_node(&r, pr->key));
    yaml_node_t *v = rd_node(&r, pr->value);
    if (!k)
      continue;
    if (!strcmp(k, "lockfileVersion"))
      ver = v;
    else if (!strcmp(k, "settings"))
      settings = v;
    else if (!strcmp(k, "overrides"))
      overrides = v;
    else if (!strcmp(k, "importers"))
      importers = v;
    else if (!strcmp(k, "packages"))
      packages = v;
    else if (!strcmp(k, "snapshots"))
      snapshots = v;
  }
  if (!ver) {
    rc = nub_err_set(err, -NUB_ELOCKFILE,
                     "%s has no lockfileVersion; nub reads pnpm lockfiles with "
                     "lockfileVersion 9.x (pnpm 9 and later)",
                     fname);
    goto out;
  }
  if (!is_v9(sval(ver))) {
    rc = nub_err_set(err, -NUB_ELOCKVERSION,
                     "%s:%lu:%lu: lockfileVersion '%s' is not supported; nub reads "
                     "lockfileVersion 9.x (pnpm 9 and later)",
                     fname, (unsigned long)ver->start_mark.line + 1,
                     (unsigned long)ver->start_mark.column + 1,
                     sval(ver) ? sval(ver) : "(not a string)");
    goto out;
  }
  if ((rc = rd_settings(&r, g, settings)) ||
      (rc = rd_depmap(&r, overrides, "overrides", &g->overrides)) ||
      (rc = rd_importers(&r, g, importers)) || (rc = rd_map(&r, packages, "packages", &packages)) ||
      (rc = rd_map(&r, snapshots, "snapshots", &snapshots)))
    goto out;
  rc = rd_packages(&r, g, packages, snapshots);
out:
  yaml_document_delete(&doc);
  return rc;
}
