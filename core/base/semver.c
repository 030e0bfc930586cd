/* semver.c - node-semver v7 versions and ranges (see semver.h).
 *
 * A range is compiled the way node-semver compiles it: a chain of textual
 * rewrites (build strip, hyphen ranges, operator whitespace, ~ and ^,
 * x-ranges, stars, >=0.0.0) that ends in plain comparators. Each of node's
 * regular expressions is a small hand matcher here, with the regex engine's
 * greedy-then-backtrack behaviour where it changes a result. Keeping node's
 * chain rather than a grammar of our own is what makes odd inputs ("=1.x",
 * "1.2.3 - 2", "> =1", "^ 1", "1.2.3 ||") mean to nub what they mean to npm.
 *
 * includePrerelease changes the rewrites (lower bounds become X-0), so a
 * range is compiled twice, once per setting, and matching picks one. */
#include "semver.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nub_alloc.h"

/* node-semver's MAX_LENGTH for a version string. */
#define SEMVER_MAX_LENGTH 256

/* ---- characters and views ---------------------------------------------- */

/* A piece of a string; p == NULL is a regex group that did not take part
 * (JavaScript's undefined), which isX() treats like "x". */
struct sv {
  const char *p;
  size_t n;
};

static bool is_ws(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_ident(char c)
{
  return is_digit(c) || is_alpha(c) || c == '-';
}

/* s[i], or NUL past the end, so matchers can look ahead without checks. */
static char at(const char *s, size_t n, size_t i)
{
  return i < n ? s[i] : '\0';
}

static bool sv_is(struct sv v, const char *lit)
{
  return v.p && v.n == strlen(lit) && memcmp(v.p, lit, v.n) == 0;
}

static struct sv sv_trim(struct sv v)
{
  while (v.n && is_ws(v.p[0]))
    v.p++, v.n--;
  while (v.n && is_ws(v.p[v.n - 1]))
    v.n--;
  return v;
}

/* ---- string builder ---------------------------------------------------- */

struct sb {
  char *p;
  size_t n, cap;
};

static void sb_addn(struct sb *b, const char *s, size_t n)
{
  NUB_GROW(b->p, b->cap, b->n + n + 1);
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
}

static void sb_adds(struct sb *b, const char *s)
{
  sb_addn(b, s, strlen(s));
}

static void sb_addc(struct sb *b, char c)
{
  sb_addn(b, &c, 1);
}

static void sb_addsv(struct sb *b, struct sv v)
{
  if (v.p)
    sb_addn(b, v.p, v.n);
}

static void sb_addu(struct sb *b, uint64_t v)
{
  char tmp[24];

  snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
  sb_adds(b, tmp);
}

/* JavaScript's `${+num + 1}` for a digit string. Above 2^53 node's result
 * is a number its own version parser then rejects; any digit string that
 * big does the same here, so past 16 digits the digits go out unchanged. */
static void sb_add_succ(struct sb *b, struct sv num)
{
  uint64_t v = 0;

  while (num.n > 1 && num.p[0] == '0')
    num.p++, num.n--;
  if (num.n > 16) {
    sb_addsv(b, num);
    return;
  }
  for (size_t i = 0; i < num.n; i++)
    v = v * 10 + (uint64_t)(num.p[i] - '0');
  sb_addu(b, v + 1);
}

/* The built string (an empty one when nothing was added), owned by caller. */
static char *sb_take(struct sb *b)
{
  char *p = b->p ? b->p : nub_strdup("");

  b->p = NULL;
  b->n = b->cap = 0;
  return p;
}

/* JavaScript's split: pieces between separators, empty ones included.
 * ws_run splits on runs of whitespace (/\s+/), otherwise on single spaces. */
struct splitter {
  const char *s;
  size_t n, pos;
  bool ws_run, done;
};

static struct splitter split_init(struct sv v, bool ws_run)
{
  struct splitter it = {v.p, v.n, 0, ws_run, false};

  return it;
}

static bool split_next(struct splitter *it, struct sv *piece)
{
  size_t e = it->pos;

  if (it->done)
    return false;
  while (e < it->n && !(it->ws_run ? is_ws(it->s[e]) : it->s[e] == ' '))
    e++;
  piece->p = it->s + it->pos;
  piece->n = e - it->pos;
  if (e == it->n) {
    it->done = true;
  } else {
    e++;
    while (it->ws_run && e < it->n && is_ws(it->s[e]))
      e++;
    it->pos = e;
  }
  return true;
}

/* ---- the regex pieces of node-semver's internal/re.js ------------------- */

/* NUMERICIDENTIFIER 0|[1-9]\d*, or NUMERICIDENTIFIERLOOSE \d+. */
static size_t m_num(const char *s, size_t n, size_t i, bool loose)
{
  if (!is_digit(at(s, n, i)))
    return i;
  if (!loose && s[i] == '0')
    return i + 1;
  while (is_digit(at(s, n, i)))
    i++;
  return i;
}

/* PRERELEASEIDENTIFIER: \d*[a-zA-Z-][a-zA-Z0-9-]* tried first, then a
 * numeric identifier. */
static size_t m_preid(const char *s, size_t n, size_t i, bool loose)
{
  size_t j = i;

  while (is_digit(at(s, n, j)))
    j++;
  if (is_alpha(at(s, n, j)) || at(s, n, j) == '-') {
    j++;
    while (is_ident(at(s, n, j)))
      j++;
    return j;
  }
  return m_num(s, n, i, loose);
}

/* PRERELEASE -(ID(.ID)*) or PRERELEASELOOSE -?(ID(.ID)*); *pre gets the
 * identifiers. Returns the end, i when there is none. */
static size_t m_pre(const char *s, size_t n, size_t i, bool loose, struct sv *pre)
{
  bool hyphen = at(s, n, i) == '-';
  size_t st = i + hyphen, e;

  pre->p = NULL;
  if (!hyphen && !loose)
    return i;
  e = m_preid(s, n, st, loose);
  if (e == st) {
    if (!hyphen || !loose)
      return i;
    /* The loose regex gives the optional hyphen back: '-' alone is a
     * non-numeric identifier, so "1.2.3-" is 1.2.3 with prerelease "-". */
    st = i;
    e = m_preid(s, n, st, loose);
  }
  while (at(s, n, e) == '.') {
    size_t f = m_preid(s, n, e + 1, loose);

    if (f == e + 1)
      break;
    e = f;
  }
  pre->p = s + st;
  pre->n = e - st;
  return e;
}

/* BUILD +([a-zA-Z0-9-]+(.[a-zA-Z0-9-]+)*). */
static size_t m_build(const char *s, size_t n, size_t i, struct sv *build)
{
  size_t e = i + 1;

  build->p = NULL;
  if (at(s, n, i) != '+' || !is_ident(at(s, n, e)))
    return i;
  while (is_ident(at(s, n, e)))
    e++;
  while (at(s, n, e) == '.' && is_ident(at(s, n, e + 1))) {
    e++;
    while (is_ident(at(s, n, e)))
      e++;
  }
  build->p = s + i + 1;
  build->n = e - i - 1;
  return e;
}

/* GTLT ((?:<|>)?=?). Greedy is what the regex keeps: where a shorter
 * operator would also match, the following [v=\s]* eats the '=' anyway. */
static size_t m_gtlt(const char *s, size_t n, size_t i, struct sv *op)
{
  size_t j = i;

  if (at(s, n, j) == '<' || at(s, n, j) == '>')
    j++;
  if (at(s, n, j) == '=')
    j++;
  op->p = s + i;
  op->n = j - i;
  return j;
}

static bool is_vprefix(char c)
{
  return c == 'v' || c == '=' || is_ws(c);
}

/* A full version: FULLPLAIN v?MAIN PRE? BUILD?, or LOOSEPLAIN
 * [v=\s]*MAINLOOSE PRELOOSE? BUILD?. */
struct plain {
  struct sv num[3], pre, build;
};

/* The plain version filling all of s[i..n). */
static bool m_plain(const char *s, size_t n, size_t i, bool loose, struct plain *pl)
{
  size_t e, pst, pend;

  if (loose) {
    while (i < n && is_vprefix(s[i]))
      i++;
  } else if (at(s, n, i) == 'v') {
    i++;
  }
  for (int k = 0; k < 3; k++) {
    e = m_num(s, n, i, loose);
    if (e == i)
      return false;
    pl->num[k].p = s + i;
    pl->num[k].n = e - i;
    i = e;
    if (k < 2) {
      if (at(s, n, i) != '.')
        return false;
      i++;
    }
  }
  pst = pl->num[2].p - s;
  pend = i;
  for (;;) {
    e = m_pre(s, n, pend, loose, &pl->pre);
    e = m_build(s, n, e, &pl->build);
    if (e == n)
      return true;
    /* A backtracking regex hands patch digits to a hyphenless loose
     * prerelease when that is the only way to reach the end: loose
     * "1.2.34.5" is 1.2.3-4.5 to node. */
    if (!loose || pend - pst <= 1)
      return false;
    pend--;
    pl->num[2].n--;
  }
}

/* XRANGEPLAIN [v=\s]*(XID)(?:\.(XID)(?:\.(XID)PRE?BUILD?)?)? with XID
 * NUMERICIDENTIFIER|x|X|\*; the loose form uses the loose pieces. */
struct xr {
  struct sv M, m, p, pre;
  size_t start, end; /* the whole match, prefix included */
};

static size_t m_xid(const char *s, size_t n, size_t i, bool loose)
{
  char c = at(s, n, i);

  if (c == 'x' || c == 'X' || c == '*')
    return i + 1;
  return m_num(s, n, i, loose);
}

/* pcap limits the digits of a numeric patch, for backtracking callers. */
static bool m_xrange(const char *s, size_t n, size_t i, bool loose, size_t pcap,
                     struct xr *x)
{
  struct sv build;
  size_t e, f;

  memset(x, 0, sizeof *x);
  x->start = i;
  while (i < n && is_vprefix(s[i]))
    i++;
  e = m_xid(s, n, i, loose);
  if (e == i)
    return false;
  x->M = (struct sv){s + i, e - i};
  if (at(s, n, e) == '.' && (f = m_xid(s, n, e + 1, loose)) != e + 1) {
    x->m = (struct sv){s + e + 1, f - e - 1};
    e = f;
    if (at(s, n, e) == '.' && (f = m_xid(s, n, e + 1, loose)) != e + 1) {
      if (is_digit(s[e + 1]) && f - e - 1 > pcap)
        f = e + 1 + pcap;
      x->p = (struct sv){s + e + 1, f - e - 1};
      e = m_pre(s, n, f, loose, &x->pre);
      e = m_build(s, n, e, &build);
    }
  }
  x->end = e;
  return true;
}

/* node runs its regexes on whitespace-collapsed text, in "safe" forms
 * where \s* and \s+ take one character at most. Text can still hold two
 * (build metadata is stripped from between them), so the limit shows. */
static size_t skip_ws1(const char *s, size_t n, size_t i)
{
  return i + is_ws(at(s, n, i));
}

/* What must follow an x-range for the enclosing regex to match. */
enum xr_tail {
  XR_END,    /* \s*$ */
  XR_HYPHEN, /* \s+-\s+ (the first half of a hyphen range) */
};

/* End of the tail at i, or 0 if it does not match there. */
static size_t m_tail(const char *s, size_t n, size_t i, enum xr_tail tail)
{
  if (tail == XR_END)
    return skip_ws1(s, n, i) == n ? n : 0;
  if (!is_ws(at(s, n, i)) || at(s, n, i + 1) != '-' || !is_ws(at(s, n, i + 2)))
    return 0;
  return i + 3;
}

/* An x-range at i followed by tail; *after is where the tail ends. */
static bool m_xrange_tail(const char *s, size_t n, size_t i, bool loose,
                          enum xr_tail tail, struct xr *x, size_t *after)
{
  size_t pcap = SIZE_MAX;

  for (;;) {
    if (!m_xrange(s, n, i, loose, pcap, x))
      return false;
    if ((*after = m_tail(s, n, x->end, tail)) != 0)
      return true;
    /* As in m_plain: backtracking moves loose patch digits to a
     * prerelease; nothing else the regex could retry can match. */
    if (!loose || !x->p.p || !is_digit(x->p.p[0]) || x->p.n <= 1)
      return false;
    pcap = x->p.n - 1;
  }
}

/* node-semver's isX: absent, "x", "X" or "*". */
static bool is_x(struct sv id)
{
  return !id.p || sv_is(id, "x") || sv_is(id, "X") || sv_is(id, "*");
}

/* ---- versions ---------------------------------------------------------- */

/* JavaScript's +digits, refusing what is above MAX_SAFE_INTEGER. */
static int num_value(struct sv d, uint64_t *out)
{
  uint64_t v = 0;

  for (size_t i = 0; i < d.n; i++) {
    uint64_t dig = (uint64_t)(d.p[i] - '0');

    if (v > (NUB_SEMVER_MAX_NUM - dig) / 10)
      return -EINVAL;
    v = v * 10 + dig;
  }
  *out = v;
  return 0;
}

/* node keeps a prerelease identifier as a number (so "01" prints as "1")
 * only when it is all digits and below MAX_SAFE_INTEGER. */
static char *pre_ident(struct sv id)
{
  uint64_t v = 0;
  size_t i;

  for (i = 0; i < id.n && is_digit(id.p[i]); i++)
    ;
  if (i == id.n && num_value(id, &v) == 0 && v < NUB_SEMVER_MAX_NUM) {
    char tmp[24];

    snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
    return nub_strdup(tmp);
  }
  return nub_strndup(id.p, id.n);
}

void nub_version_release(struct nub_version *v)
{
  if (!v)
    return;
  for (size_t i = 0; i < v->npre; i++)
    nub_free(v->pre[i]);
  nub_free(v->pre);
  nub_free(v->build);
  nub_free(v->raw);
  memset(v, 0, sizeof *v);
}

/* `new SemVer(text)` once the text matched: the checks that are not syntax.
 * len is the length of the version string node would see. */
static int version_build(const struct plain *pl, size_t len, struct nub_version *out)
{
  struct sb raw = {0};

  memset(out, 0, sizeof *out);
  if (len > SEMVER_MAX_LENGTH || num_value(pl->num[0], &out->major) ||
      num_value(pl->num[1], &out->minor) || num_value(pl->num[2], &out->patch))
    return -EINVAL;
  sb_addu(&raw, out->major);
  sb_addc(&raw, '.');
  sb_addu(&raw, out->minor);
  sb_addc(&raw, '.');
  sb_addu(&raw, out->patch);
  if (pl->pre.p) {
    size_t cap = 0;

    for (const char *q = pl->pre.p; q < pl->pre.p + pl->pre.n; q++)
      cap += *q == '.';
    out->pre = nub_calloc(cap + 1, sizeof *out->pre);
    for (size_t st = 0, i = 0; i <= pl->pre.n; i++) {
      if (i == pl->pre.n || pl->pre.p[i] == '.') {
        out->pre[out->npre] = pre_ident((struct sv){pl->pre.p + st, i - st});
        sb_addc(&raw, out->npre ? '.' : '-');
        sb_adds(&raw, out->pre[out->npre]);
        out->npre++;
        st = i + 1;
      }
    }
  }
  if (pl->build.p)
    out->build = nub_strndup(pl->build.p, pl->build.n);
  out->raw = sb_take(&raw);
  return 0;
}

/* semver.clean(s, {loose}): trim, drop leading '='/'v', parse the rest. */
static int version_parse(struct nub_version *out, const char *s, bool loose)
{
  struct sv v;
  struct plain pl;

  memset(out, 0, sizeof *out);
  if (!s)
    return -EINVAL;
  v = sv_trim((struct sv){s, strlen(s)});
  while (v.n && (v.p[0] == '=' || v.p[0] == 'v'))
    v.p++, v.n--;
  if (v.n > SEMVER_MAX_LENGTH)
    return -EINVAL;
  v = sv_trim(v);
  if (!m_plain(v.p, v.n, 0, loose, &pl))
    return -EINVAL;
  return version_build(&pl, v.n, out);
}

int nub_version_parse(struct nub_version *out, const char *s)
{
  return version_parse(out, s, false);
}

int nub_version_parse_loose(struct nub_version *out, const char *s)
{
  return version_parse(out, s, true);
}

bool nub_semver_is_exact(const char *s)
{
  struct nub_version v;

  if (version_parse(&v, s, false))
    return false;
  nub_version_release(&v);
  return true;
}

bool nub_version_is_prerelease(const struct nub_version *v)
{
  return v->npre > 0;
}

static bool all_digits(const char *s)
{
  if (!*s)
    return false;
  for (; *s; s++)
    if (!is_digit(*s))
      return false;
  return true;
}

static int sign(int x)
{
  return (x > 0) - (x < 0);
}

/* compareIdentifiers: numbers by value (exactly, where node's doubles would
 * round above 2^53), numbers before words, words by code unit. */
static int cmp_ident(const char *a, const char *b)
{
  bool an = all_digits(a), bn = all_digits(b);

  if (an && bn) {
    size_t la, lb;

    while (a[0] == '0' && a[1])
      a++;
    while (b[0] == '0' && b[1])
      b++;
    la = strlen(a);
    lb = strlen(b);
    if (la != lb)
      return la < lb ? -1 : 1;
    return sign(strcmp(a, b));
  }
  if (an != bn)
    return an ? -1 : 1;
  return sign(strcmp(a, b));
}

static int cmp_u64(uint64_t a, uint64_t b)
{
  return (a > b) - (a < b);
}

int nub_version_cmp(const struct nub_version *a, const struct nub_version *b)
{
  int c = cmp_u64(a->major, b->major);

  if (!c)
    c = cmp_u64(a->minor, b->minor);
  if (!c)
    c = cmp_u64(a->patch, b->patch);
  if (c)
    return c;
  /* No prerelease ranks above any prerelease of the same release. */
  if (!a->npre || !b->npre)
    return (a->npre == 0) - (b->npre == 0);
  for (size_t i = 0;; i++) {
    if (i == a->npre || i == b->npre)
      return (i < a->npre) - (i < b->npre);
    if ((c = cmp_ident(a->pre[i], b->pre[i])) != 0)
      return c;
  }
}

/* ---- comparators ------------------------------------------------------- */

enum op { OP_ANY, OP_EQ, OP_LT, OP_LE, OP_GT, OP_GE };

static const char *const op_str[] = {"", "", "<", "<=", ">", ">="};

struct comparator {
  enum op op;
  struct nub_version v; /* unused for OP_ANY */
};

struct cset {
  struct comparator *c;
  size_t n, cap;
};

struct rform {
  struct cset *set;
  size_t n, cap;
  char *str; /* validRange's text; NULL when this form failed to build */
};

struct nub_range {
  struct rform form[2]; /* [include_prerelease] */
};

struct popts {
  bool loose, incpr;
};

/* COMPARATOR ^GTLT\s*(FULLPLAIN)$|^$ (COMPARATORLOOSE with LOOSEPLAIN). */
static bool cmp_match(struct sv c, bool loose, enum op *op, struct plain *pl,
                      size_t *plain_at)
{
  struct sv o;
  size_t i;

  if (!c.n) {
    *op = OP_ANY;
    return true;
  }
  i = skip_ws1(c.p, c.n, m_gtlt(c.p, c.n, 0, &o));
  if (!m_plain(c.p, c.n, i, loose, pl))
    return false;
  *plain_at = i;
  if (o.n == 0 || sv_is(o, "="))
    *op = OP_EQ;
  else if (sv_is(o, "<"))
    *op = OP_LT;
  else if (sv_is(o, "<="))
    *op = OP_LE;
  else if (sv_is(o, ">"))
    *op = OP_GT;
  else
    *op = OP_GE;
  return true;
}

static void cmp_release(struct comparator *c)
{
  if (c->op != OP_ANY)
    nub_version_release(&c->v);
}

/* Same value ("<1.2.3-0") to node; the build is not part of it. */
static bool cmp_same(const struct comparator *a, const struct comparator *b)
{
  return a->op == b->op && (a->op == OP_ANY || strcmp(a->v.raw, b->v.raw) == 0);
}

static bool cmp_is_null(const struct comparator *c)
{
  return c->op == OP_LT && strcmp(c->v.raw, "0.0.0-0") == 0;
}

static bool cmp_test(const struct comparator *c, const struct nub_version *v)
{
  int r;

  if (c->op == OP_ANY)
    return true;
  r = nub_version_cmp(v, &c->v);
  switch (c->op) {
  case OP_EQ:
    return r == 0;
  case OP_LT:
    return r < 0;
  case OP_LE:
    return r <= 0;
  case OP_GT:
    return r > 0;
  case OP_GE:
    return r >= 0;
  default:
    return true;
  }
}

static void cset_release(struct cset *s)
{
  for (size_t i = 0; i < s->n; i++)
    cmp_release(&s->c[i]);
  nub_free(s->c);
  memset(s, 0, sizeof *s);
}

/* ---- the rewrites of classes/range.js ---------------------------------- */

typedef void rewrite_fn(struct sb *out, struct sv tok, const struct popts *o);

/* s.trim()?.split(/\s+/).map(fn).join(' ') */
static char *map_tokens(struct sv s, bool trim, rewrite_fn *fn, const struct popts *o)
{
  struct sb out = {0};
  struct splitter it = split_init(trim ? sv_trim(s) : s, true);
  struct sv tok;
  bool first = true;

  while (split_next(&it, &tok)) {
    if (!first)
      sb_addc(&out, ' ');
    first = false;
    fn(&out, tok, o);
  }
  return sb_take(&out);
}

static struct sv sv_of(const char *s)
{
  return (struct sv){s, strlen(s)};
}

/* The x-range of a ~ or ^ token ("~>1.2", "^v1.x"), anchored at its end. */
static bool lone_op_xrange(struct sv tok, char op, const struct popts *o, struct xr *x)
{
  size_t i = 1, after;

  if (!tok.n || tok.p[0] != op)
    return false;
  if (op == '~' && at(tok.p, tok.n, 1) == '>')
    i = 2;
  return m_xrange_tail(tok.p, tok.n, i, o->loose, XR_END, x, &after);
}

/* Appends "M.m.p"; an absent piece adds nothing, so callers can follow
 * with a computed one. */
static void sb_ver(struct sb *b, struct sv M, struct sv m, struct sv p)
{
  sb_addsv(b, M);
  sb_addc(b, '.');
  sb_addsv(b, m);
  sb_addc(b, '.');
  sb_addsv(b, p);
}

static const struct sv zero = {"0", 1};

/* What ~ and ^ share: for op + x-range, the lower bound (a partial version
 * filled with zeros, and with -0 under includePrerelease) and the " <" of
 * the upper one; returns true when the caller is to finish that. Anything
 * else is copied, and "~x" / "^*" (any) become nothing. */
static bool lone_op_lower(struct sb *out, struct sv tok, char op, const struct popts *o,
                          struct xr *x)
{
  if (!lone_op_xrange(tok, op, o, x)) {
    sb_addsv(out, tok);
    return false;
  }
  if (is_x(x->M))
    return false;
  sb_adds(out, ">=");
  if (is_x(x->m) || is_x(x->p)) {
    sb_ver(out, x->M, is_x(x->m) ? zero : x->m, zero);
    sb_adds(out, o->incpr ? "-0" : "");
  } else {
    sb_ver(out, x->M, x->m, x->p);
    if (x->pre.p) {
      sb_addc(out, '-');
      sb_addsv(out, x->pre);
    }
  }
  sb_adds(out, " <");
  return true;
}

/* "<M+1.0.0-0", or "<M.m+1.0-0" with minor true. */
static void sb_next(struct sb *out, const struct xr *x, bool minor)
{
  if (!minor) {
    sb_add_succ(out, x->M);
    sb_adds(out, ".0.0-0");
    return;
  }
  sb_addsv(out, x->M);
  sb_addc(out, '.');
  sb_add_succ(out, x->m);
  sb_adds(out, ".0-0");
}

/* replaceTilde: ~1.2.3 := >=1.2.3 <1.3.0-0, ~1.2 := >=1.2.0 <1.3.0-0,
 * ~1 := >=1.0.0 <2.0.0-0, ~x := any. */
static void rw_tilde(struct sb *out, struct sv tok, const struct popts *o)
{
  struct xr x;

  if (lone_op_lower(out, tok, '~', o, &x))
    sb_next(out, &x, !is_x(x.m));
}

/* replaceCaret: changes that keep the left-most non-zero part:
 * ^1.2.3 := >=1.2.3 <2.0.0-0, ^0.2.3 := >=0.2.3 <0.3.0-0,
 * ^0.0.3 := >=0.0.3 <0.0.4-0, ^1.x := >=1.0.0 <2.0.0-0, ^* := any. */
static void rw_caret(struct sb *out, struct sv tok, const struct popts *o)
{
  struct xr x;

  if (!lone_op_lower(out, tok, '^', o, &x))
    return;
  /* node compares the text: loose "00" is not "0" here. */
  if (is_x(x.m) || !sv_is(x.M, "0")) {
    sb_next(out, &x, false);
  } else if (!is_x(x.p) && sv_is(x.m, "0")) {
    sb_ver(out, x.M, x.m, (struct sv){NULL, 0});
    sb_add_succ(out, x.p);
    sb_adds(out, "-0");
  } else {
    sb_next(out, &x, true);
  }
}

/* replaceXRange: 1.x := >=1.0.0 <2.0.0-0, >1.2 := >=1.3.0, <=1.2 :=
 * <1.3.0-0, <1.2 := <1.2.0-0, * := any, >* := nothing. */
static void rw_xrange(struct sb *out, struct sv tok, const struct popts *o)
{
  const char *pr = o->incpr ? "-0" : "";
  struct sv gt;
  struct xr x;
  size_t i, after;
  bool xM, xm, xp;

  tok = sv_trim(tok);
  i = skip_ws1(tok.p, tok.n, m_gtlt(tok.p, tok.n, 0, &gt));
  if (!m_xrange_tail(tok.p, tok.n, i, o->loose, XR_END, &x, &after) ||
      (is_x(x.M) && !is_x(x.m)) || (is_x(x.m) && x.p.p && !is_x(x.p))) {
    sb_addsv(out, tok); /* not an x-range, or "1.x.3": left to fail later */
    return;
  }
  xM = is_x(x.M);
  xm = xM || is_x(x.m);
  xp = xm || is_x(x.p);
  if (sv_is(gt, "=") && xp)
    gt.n = 0;
  if (xM) {
    sb_adds(out, sv_is(gt, ">") || sv_is(gt, "<") ? "<0.0.0-0" : "*");
    return;
  }
  if (gt.n && xp) {
    if (sv_is(gt, ">") || sv_is(gt, "<=")) {
      /* The next minor (or major) is the first version past all of 1.2.x. */
      sb_adds(out, sv_is(gt, ">") ? ">=" : "<");
      if (xm) {
        sb_add_succ(out, x.M);
        sb_adds(out, ".0.0");
      } else {
        sb_addsv(out, x.M);
        sb_addc(out, '.');
        sb_add_succ(out, x.m);
        sb_adds(out, ".0");
      }
      sb_adds(out, sv_is(gt, ">") ? pr : "-0");
    } else {
      sb_addsv(out, gt);
      sb_ver(out, x.M, xm ? zero : x.m, zero);
      sb_adds(out, sv_is(gt, "<") ? "-0" : pr);
    }
    return;
  }
  if (!xp) {
    sb_addsv(out, tok); /* a plain comparator */
    return;
  }
  sb_adds(out, ">=");
  sb_ver(out, x.M, xm ? zero : x.m, zero);
  sb_adds(out, pr);
  sb_adds(out, " <");
  sb_next(out, &x, !xm);
}

/* replaceStars: drop the first STAR (<|>)?=?\s*\* left after the rewrites. */
static char *replace_stars(struct sv s)
{
  struct sb out = {0};

  s = sv_trim(s);
  for (size_t i = 0; i < s.n; i++) {
    size_t j = i;

    if (s.p[j] == '<' || s.p[j] == '>')
      j++;
    if (at(s.p, s.n, j) == '=')
      j++;
    j = skip_ws1(s.p, s.n, j);
    if (at(s.p, s.n, j) == '*') {
      sb_addn(&out, s.p, i);
      sb_addn(&out, s.p + j + 1, s.n - j - 1);
      return sb_take(&out);
    }
  }
  sb_addsv(&out, s);
  return sb_take(&out);
}

/* parseComparator: one space-free token to zero or more comparators. */
static void parse_comparator(struct sb *out, struct sv tok, const struct popts *o)
{
  char *a = map_tokens(tok, true, rw_caret, o);
  char *b = map_tokens(sv_of(a), true, rw_tilde, o);
  char *c = map_tokens(sv_of(b), false, rw_xrange, o);
  char *d = replace_stars(sv_of(c));

  sb_adds(out, d);
  nub_free(a);
  nub_free(b);
  nub_free(c);
  nub_free(d);
}

/* BUILDSTRIPRE: build metadata goes before anything reads the range. */
static char *strip_build(const char *s)
{
  struct sb out = {0};
  size_t n = strlen(s), i = 0;

  while (i < n) {
    struct sv b;
    size_t e = m_build(s, n, i, &b);

    if (e == i)
      sb_addc(&out, s[i++]);
    else
      i = e;
  }
  return sb_take(&out);
}

/* HYPHENRANGE ^\s*(XR)\s+-\s+(XR)\s*$: 1.2.3 - 2.3.4 := >=1.2.3 <=2.3.4,
 * a partial left side fills with zeros, a partial right side is an x-range
 * (1.2 - 2.3 := >=1.2.0 <2.4.0-0). */
static char *hyphen_replace(const char *s, const struct popts *o)
{
  const char *z = o->incpr ? "-0" : "";
  size_t n = strlen(s), i = 0, j, end;
  struct xr f, t;
  struct sb out = {0};
  bool have_from = true;

  i = skip_ws1(s, n, i);
  if (!m_xrange_tail(s, n, i, o->loose, XR_HYPHEN, &f, &j) ||
      !m_xrange_tail(s, n, j, o->loose, XR_END, &t, &end))
    return nub_strdup(s);

  if (is_x(f.M)) {
    have_from = false;
  } else if (is_x(f.m) || is_x(f.p)) {
    sb_adds(&out, ">=");
    sb_ver(&out, f.M, is_x(f.m) ? zero : f.m, zero);
    sb_adds(&out, z);
  } else {
    /* The text as written, 'v' or '=' prefix included, as node has it. */
    sb_adds(&out, ">=");
    sb_addn(&out, s + f.start, f.end - f.start);
    if (!f.pre.p)
      sb_adds(&out, z);
  }

  if (is_x(t.M))
    return sb_take(&out); /* node trims the lone space away */
  if (have_from)
    sb_addc(&out, ' ');
  if (is_x(t.m) || is_x(t.p)) {
    sb_addc(&out, '<');
    sb_next(&out, &t, !is_x(t.m));
  } else if (t.pre.p) {
    sb_adds(&out, "<=");
    sb_ver(&out, t.M, t.m, t.p);
    sb_addc(&out, '-');
    sb_addsv(&out, t.pre);
  } else if (o->incpr) {
    sb_addc(&out, '<');
    sb_ver(&out, t.M, t.m, (struct sv){NULL, 0});
    sb_add_succ(&out, t.p);
    sb_adds(&out, "-0");
  } else {
    sb_adds(&out, "<=");
    sb_addn(&out, s + t.start, t.end - t.start);
  }
  return sb_take(&out);
}

static bool is_vstart(char c)
{
  return is_digit(c) || c == 'x' || c == 'X' || c == '*';
}

/* Where a COMPARATORTRIM version (LOOSEPLAIN|XRANGEPLAIN, unanchored)
 * starting at the version start s[i] ends. */
static size_t trim_version_end(const char *s, size_t n, size_t i)
{
  struct sv unused;
  struct xr x;
  size_t e = i;
  int k;

  for (k = 0; k < 3; k++) {
    size_t f = m_num(s, n, e, true);

    if (f == e)
      break;
    e = f;
    if (k < 2) {
      if (at(s, n, e) != '.')
        break;
      e++;
    }
  }
  if (k == 3) {
    e = m_pre(s, n, e, true, &unused);
    return m_build(s, n, e, &unused);
  }
  m_xrange(s, n, i, false, SIZE_MAX, &x);
  return x.end;
}

/* COMPARATORTRIM: "> 1.2.3" becomes ">1.2.3". A port of node-semver's
 * internal/trim-comparator-whitespace.js, which reproduces the regex
 * replacement: the one whitespace after an operator (or after the single
 * whitespace that starts the match) goes. */
static char *trim_comparator_ws(const char *s)
{
  struct sb out = {0};
  size_t n = strlen(s), cur = 0, from = 0;

  while (cur < n) {
    size_t st = cur, w;

    if (s[cur] == '<' || s[cur] == '>') {
      cur++;
    } else if (!is_vprefix(s[cur]) && !is_vstart(s[cur])) {
      cur++;
      continue;
    }
    while (cur < n && is_vprefix(s[cur]))
      cur++;
    if (!is_vstart(at(s, n, cur)))
      continue;
    w = st;
    if (is_ws(s[w]))
      w++;
    if (at(s, n, w) == '<' || at(s, n, w) == '>')
      w++;
    if (at(s, n, w) == '=')
      w++;
    if (is_ws(at(s, n, w))) {
      sb_addn(&out, s + from, w - from);
      from = w + 1;
    }
    cur = trim_version_end(s, n, cur);
  }
  sb_adds(&out, s + from);
  return sb_take(&out);
}

/* TILDETRIM (\s*)~>?\s+ -> $1~ and CARETTRIM (\s*)\^\s+ -> $1^, one
 * whitespace at most (see skip_ws1). */
static char *lone_op_trim(const char *s, char op)
{
  struct sb out = {0};
  size_t n = strlen(s);

  for (size_t i = 0; i < n;) {
    size_t j = i + 1;

    if (s[i] == op) {
      if (op == '~' && at(s, n, j) == '>')
        j++;
      if (is_ws(at(s, n, j))) {
        sb_addc(&out, op);
        i = j + 1;
        continue;
      }
    }
    sb_addc(&out, s[i++]);
  }
  return sb_take(&out);
}

/* A rewritten comparator text to a comparator, as `new Comparator()`.
 * Returns 1 for text the loose filter drops, -EINVAL for an error. */
static int comparator_make(struct sv c, const struct popts *o, struct comparator *out)
{
  struct plain pl;
  size_t plain_at = 0;

  /* replaceGTE0: >=0.0.0 (>=0.0.0-0 with includePrerelease) is any. */
  if (sv_is(c, o->incpr ? ">=0.0.0-0" : ">=0.0.0"))
    c.n = 0;
  memset(out, 0, sizeof *out);
  if (!cmp_match(c, o->loose, &out->op, &pl, &plain_at))
    return o->loose ? 1 : -EINVAL;
  if (out->op == OP_ANY)
    return 0;
  return version_build(&pl, c.n - plain_at, &out->v);
}

/* Range.parseRange: one || alternative to a comparator set. An empty set
 * (loose mode dropped everything) is not an error here. */
static int parse_set(const char *part, const struct popts *o, struct cset *set)
{
  char *s1 = strip_build(part);
  char *s2 = hyphen_replace(s1, o);
  char *s3 = trim_comparator_ws(s2);
  char *s4 = lone_op_trim(s3, '~');
  char *s5 = lone_op_trim(s4, '^');
  struct sb joined = {0};
  struct splitter it = split_init(sv_of(s5), false);
  struct sv tok;
  bool first = true;
  int rc = 0;

  memset(set, 0, sizeof *set);
  while (split_next(&it, &tok)) {
    if (!first)
      sb_addc(&joined, ' ');
    first = false;
    parse_comparator(&joined, tok, o);
  }
  nub_free(s1);
  nub_free(s2);
  nub_free(s3);
  nub_free(s4);
  nub_free(s5);

  s1 = sb_take(&joined); /* the comparators, space-separated */
  it = split_init(sv_of(s1), true);
  while (split_next(&it, &tok)) {
    struct comparator c;
    int r = comparator_make(tok, o, &c);

    if (r < 0) {
      rc = r;
      break;
    }
    if (r == 0) {
      NUB_GROW(set->c, set->cap, set->n + 1);
      set->c[set->n++] = c;
    }
  }
  nub_free(s1);
  if (rc) {
    cset_release(set);
    return rc;
  }

  /* A set holding <0.0.0-0 matches nothing and is just that; duplicates
   * go; "any" goes when anything else is left. None of it changes what
   * matches, but it is what validRange prints. */
  for (size_t i = 0; i < set->n; i++) {
    if (cmp_is_null(&set->c[i])) {
      struct comparator keep = set->c[i];

      set->c[i].op = OP_ANY; /* now owned by keep */
      cset_release(set);
      NUB_GROW(set->c, set->cap, 1);
      set->c[set->n++] = keep;
      return 0;
    }
  }
  {
    size_t k = 0;

    for (size_t i = 0; i < set->n; i++) {
      bool dup = false;

      for (size_t j = 0; j < k && !dup; j++)
        dup = cmp_same(&set->c[j], &set->c[i]);
      if (dup)
        cmp_release(&set->c[i]);
      else
        set->c[k++] = set->c[i];
    }
    set->n = k;
  }
  if (set->n > 1) {
    size_t k = 0;

    for (size_t i = 0; i < set->n; i++)
      if (set->c[i].op != OP_ANY)
        set->c[k++] = set->c[i];
    set->n = k;
  }
  return 0;
}

static void rform_release(struct rform *f)
{
  for (size_t i = 0; i < f->n; i++)
    cset_release(&f->set[i]);
  nub_free(f->set);
  nub_free(f->str);
  memset(f, 0, sizeof *f);
}

static bool set_is_any(const struct cset *s)
{
  return s->n == 1 && s->c[0].op == OP_ANY;
}

static void rform_format(struct rform *f)
{
  struct sb out = {0};

  for (size_t i = 0; i < f->n; i++) {
    if (i)
      sb_adds(&out, "||");
    for (size_t k = 0; k < f->set[i].n; k++) {
      const struct comparator *c = &f->set[i].c[k];

      if (k)
        sb_addc(&out, ' ');
      sb_adds(&out, op_str[c->op]);
      if (c->op != OP_ANY)
        sb_adds(&out, c->v.raw);
    }
  }
  if (!out.n)
    sb_addc(&out, '*'); /* validRange's `range || '*'` */
  f->str = sb_take(&out);
}

/* The Range constructor for one setting of includePrerelease. */
static int rform_build(struct rform *f, const char *raw, const struct popts *o)
{
  const char *p = raw;

  memset(f, 0, sizeof *f);
  for (;;) {
    const char *bar = strstr(p, "||");
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    struct sv part = sv_trim((struct sv){p, len});
    char *text = nub_strndup(part.p, part.n);
    struct cset set;
    int rc = parse_set(text, o, &set);

    nub_free(text);
    if (rc) {
      rform_release(f);
      return rc;
    }
    if (set.n) {
      NUB_GROW(f->set, f->cap, f->n + 1);
      f->set[f->n++] = set;
    } else {
      cset_release(&set);
    }
    if (!bar)
      break;
    p = bar + 2;
  }
  if (!f->n)
    return -EINVAL;

  /* Null sets go unless all are; then an "any" set stands for them all.
   * The latter does change matching for prereleases ("* || 1.0.0-rc.1"
   * refuses 1.0.0-rc.1), and node does it, so nub does too. */
  if (f->n > 1) {
    size_t k = 0, live = 0;

    for (size_t i = 0; i < f->n; i++)
      live += !cmp_is_null(&f->set[i].c[0]);
    for (size_t i = 0; i < f->n; i++) {
      if (live ? cmp_is_null(&f->set[i].c[0]) : i > 0)
        cset_release(&f->set[i]);
      else
        f->set[k++] = f->set[i];
    }
    f->n = k;
    for (size_t i = 0; f->n > 1 && i < f->n; i++) {
      if (set_is_any(&f->set[i])) {
        struct cset keep = f->set[i];

        for (size_t j = 0; j < f->n; j++)
          if (j != i)
            cset_release(&f->set[j]);
        f->set[0] = keep;
        f->n = 1;
      }
    }
  }
  rform_format(f);
  return 0;
}

static int range_parse(struct nub_range **out, const char *s, bool loose)
{
  struct nub_range *r;
  struct sb raw = {0};
  struct sv t;
  char *text;
  int rc;

  *out = NULL;
  if (!s)
    return -EINVAL;
  if (strlen(s) > NUB_RANGE_MAX_LEN)
    return -E2BIG;
  /* range.trim().replace(/\s+/g, ' ') */
  t = sv_trim(sv_of(s));
  for (size_t i = 0; i < t.n; i++) {
    if (!is_ws(t.p[i]))
      sb_addc(&raw, t.p[i]);
    else if (!is_ws(t.p[i - 1]))
      sb_addc(&raw, ' ');
  }
  text = sb_take(&raw);
  r = nub_calloc(1, sizeof *r);
  rc = rform_build(&r->form[0], text, &(struct popts){loose, false});
  if (rc == 0) {
    /* May fail alone (a bound one past 2^53-1); node's satisfies() with
     * includePrerelease then matches nothing, and so does ours. */
    (void)rform_build(&r->form[1], text, &(struct popts){loose, true});
  }
  nub_free(text);
  if (rc) {
    nub_range_free(r);
    return rc;
  }
  *out = r;
  return 0;
}

int nub_range_parse(struct nub_range **out, const char *s)
{
  return range_parse(out, s, false);
}

int nub_range_parse_loose(struct nub_range **out, const char *s)
{
  return range_parse(out, s, true);
}

void nub_range_free(struct nub_range *r)
{
  if (!r)
    return;
  rform_release(&r->form[0]);
  rform_release(&r->form[1]);
  nub_free(r);
}

const char *nub_range_format(const struct nub_range *r, bool include_prerelease)
{
  return r->form[include_prerelease].str;
}

/* testSet: every comparator holds, and a prerelease version is only let in
 * by a comparator on the same release that names a prerelease itself, so
 * ^1.2.3-beta.2 takes 1.2.3-beta.4 but not 1.2.4-beta.1. */
static bool set_test(const struct cset *s, const struct nub_version *v, bool incpr)
{
  for (size_t i = 0; i < s->n; i++)
    if (!cmp_test(&s->c[i], v))
      return false;
  if (!v->npre || incpr)
    return true;
  for (size_t i = 0; i < s->n; i++) {
    const struct comparator *c = &s->c[i];

    if (c->op != OP_ANY && c->v.npre && c->v.major == v->major &&
        c->v.minor == v->minor && c->v.patch == v->patch)
      return true;
  }
  return false;
}

bool nub_range_satisfies(const struct nub_range *r, const struct nub_version *v,
                         bool include_prerelease)
{
  const struct rform *f = &r->form[include_prerelease];

  for (size_t i = 0; i < f->n; i++)
    if (set_test(&f->set[i], v, include_prerelease))
      return true;
  return false;
}

/* ---- intersection (node-semver's Comparator/Range.intersects) ----------- */

/* `new Range(c).test(v)`: one comparator, with the prerelease rule. */
static bool one_test(const struct comparator *c, const struct nub_version *v)
{
  struct cset s = {(struct comparator *)c, 1, 1};
  return set_test(&s, v, false);
}

static bool below_zero(const struct comparator *c)
{
  return c->op == OP_LT && !c->v.major && !c->v.minor && !c->v.patch;
}

static bool cmp_intersects(const struct comparator *a, const struct comparator *b)
{
  bool a_up = a->op == OP_GT || a->op == OP_GE, b_up = b->op == OP_GT || b->op == OP_GE;
  bool a_down = a->op == OP_LT || a->op == OP_LE, b_down = b->op == OP_LT || b->op == OP_LE;
  int r;

  if (a->op == OP_ANY || b->op == OP_ANY)
    return true;
  if (a->op == OP_EQ)
    return one_test(b, &a->v);
  if (b->op == OP_EQ)
    return one_test(a, &b->v);
  if (below_zero(a) || below_zero(b)) /* nothing is lower */
    return false;
  if ((a_up && b_up) || (a_down && b_down))
    return true;
  r = nub_version_cmp(&a->v, &b->v);
  if (r == 0 && (a->op == OP_GE || a->op == OP_LE) && (b->op == OP_GE || b->op == OP_LE))
    return true;
  return (r < 0 && a_up && b_down) || (r > 0 && a_down && b_up);
}

static bool set_satisfiable(const struct cset *s)
{
  for (size_t i = s->n; i-- > 1;)
    for (size_t j = 0; j < i; j++)
      if (!cmp_intersects(&s->c[i], &s->c[j]))
        return false;
  return true;
}

bool nub_range_intersects(const struct nub_range *a, const struct nub_range *b)
{
  const struct rform *x = &a->form[0], *y = &b->form[0];

  for (size_t i = 0; i < x->n; i++) {
    if (!set_satisfiable(&x->set[i]))
      continue;
    for (size_t j = 0; j < y->n; j++) {
      bool all = set_satisfiable(&y->set[j]);
      for (size_t p = 0; all && p < x->set[i].n; p++)
        for (size_t q = 0; all && q < y->set[j].n; q++)
          all = cmp_intersects(&x->set[i].c[p], &y->set[j].c[q]);
      if (all)
        return true;
    }
  }
  return false;
}

int nub_semver_intersects(const char *r1, const char *r2)
{
  struct nub_range *a = NULL, *b = NULL;
  int rc = -EINVAL;

  if (nub_range_parse(&a, r1) == 0 && nub_range_parse(&b, r2) == 0)
    rc = nub_range_intersects(a, b);
  if (a)
    nub_range_free(a);
  if (b)
    nub_range_free(b);
  return rc;
}

long nub_range_max_satisfying(const struct nub_range *r,
                              const struct nub_version *const *vs, size_t n,
                              bool include_prerelease)
{
  long best = -1;

  for (size_t i = 0; i < n; i++) {
    if (!vs[i] || !nub_range_satisfies(r, vs[i], include_prerelease))
      continue;
    if (best < 0 || nub_version_cmp(vs[best], vs[i]) < 0)
      best = (long)i;
  }
  return best;
}

/* ---- the common forms, without building a range ------------------------- */

/* A number of 1 to 15 digits (below 2^53), no leading zero. */
static const char *quick_num(const char *s, const char *e, uint64_t *out)
{
  uint64_t v = 0;
  size_t n = 0;

  while (s + n < e && is_digit(s[n]) && n < 16)
    v = v * 10 + (uint64_t)(s[n++] - '0');
  if (n == 0 || n > 15 || (n > 1 && s[0] == '0'))
    return NULL;
  *out = v;
  return s + n;
}

/* "M.m.p" and nothing after it. */
static bool quick_triple(const char *s, uint64_t t[3])
{
  const char *e = s + strlen(s);

  for (int i = 0; i < 3; i++) {
    if (!(s = quick_num(s, e, &t[i])))
      return false;
    if (i < 2 && *s++ != '.')
      return false;
  }
  return s == e;
}

static int quick_cmp(const uint64_t a[3], const uint64_t b[3])
{
  for (int i = 0; i < 3; i++)
    if (a[i] != b[i])
      return a[i] < b[i] ? -1 : 1;
  return 0;
}

/* A version in a comparator: 1-3 numbers, the rest x / X / * ("1.2",
 * "5.x.x"; 0 numbers for "*"), and a prerelease tag only after three. */
struct qver {
  uint64_t n[3];
  int parts;
  bool pre;
};

/* A prerelease tag [s, e) by the strict grammar: dot-separated identifiers
 * of [0-9A-Za-z-], numeric ones without a leading zero. */
static bool quick_pre(const char *s, const char *e)
{
  if (s == e)
    return false; /* "1.2.3-": a hyphen and no tag */
  while (s < e) {
    const char *d = memchr(s, '.', (size_t)(e - s));
    const char *end = d ? d : e;
    bool numeric = true;
    if (end == s)
      return false;
    for (const char *c = s; c < end; c++) {
      if (!is_ident(*c))
        return false;
      numeric &= is_digit(*c);
    }
    if (numeric && end - s > 1 && *s == '0')
      return false;
    if (numeric && end - s > 15)
      return false; /* past 2^53: the full parser's to judge */
    s = d ? d + 1 : e;
    if (d && s == e)
      return false;
  }
  return true;
}

static bool quick_qver(const char *s, const char *e, struct qver *v)
{
  bool x = false;

  memset(v, 0, sizeof(*v));
  if (e - s > 256)
    return false; /* past node-semver's MAX_LENGTH: the full parser's to refuse */
  for (int i = 0; i < 3 && s < e; i++) {
    if (i && *s++ != '.')
      return false;
    if (s < e && (*s == 'x' || *s == 'X' || *s == '*')) {
      x = true;
      s++;
    } else {
      if (x || !(s = quick_num(s, e, &v->n[i])))
        return false; /* not a number, or one after an x */
      v->parts++;
    }
  }
  if (s < e && *s == '-' && v->parts == 3) {
    if (!quick_pre(s + 1, e))
      return false;
    v->pre = true;
    s = e;
  }
  return s == e && (v->parts || x);
}

/* One comparator [a, b): an operator (^ ~ ~> = >= > <= <) and a qver, or
 * -2 for anything else (hyphen ranges, 'v' prefixes, build metadata: the
 * full parser decides those). Against a version without prerelease, whose
 * order to a bound with one is that of the three numbers alone. */
static int quick_comparator(const char *a, const char *b, const uint64_t ver[3])
{
  struct qver q;
  uint64_t lo[3] = {0, 0, 0}, hi[3];
  char op = '=';
  int c;

  if (b - a >= 2 && a[0] == '~' && a[1] == '>')
    op = '~', a += 2;
  else if (*a == '^' || *a == '~' || *a == '=')
    op = *a++;
  else if (*a == '>' || *a == '<') {
    op = *a++;
    if (a < b && *a == '=') {
      op = op == '>' ? 'G' : 'L';
      a++;
    }
  }
  if (!quick_qver(a, b, &q))
    return -2;
  for (int i = 0; i < q.parts; i++)
    lo[i] = q.n[i];
  if (q.parts == 0) /* "*" */
    return op == '=' || op == '^' || op == '~' || op == 'G' ? 1 : -2;
  c = quick_cmp(ver, lo);
  if (q.parts < 3) { /* x-ranges */
    switch (op) {
    case 'G': return c >= 0;
    case '=':
    case '~':
      hi[0] = q.parts == 1 ? lo[0] + 1 : lo[0];
      hi[1] = q.parts == 1 ? 0 : lo[1] + 1;
      break;
    case '^':
      hi[0] = q.parts == 1 || lo[0] ? lo[0] + 1 : 0;
      hi[1] = q.parts == 1 || lo[0] ? 0 : lo[1] + 1;
      break;
    default: return -2;
    }
    hi[2] = 0;
    return c >= 0 && quick_cmp(ver, hi) < 0;
  }
  switch (op) {
  case '=': return !q.pre && c == 0;
  case 'G': return c >= 0;
  case '>': return q.pre ? c >= 0 : c > 0;
  case 'L': return q.pre ? c < 0 : c <= 0;
  case '<': return c < 0;
  case '~':
    hi[0] = lo[0], hi[1] = lo[1] + 1, hi[2] = 0;
    break;
  default: /* ^: the left-most non-zero part may not change */
    hi[0] = lo[0] ? lo[0] + 1 : 0;
    hi[1] = lo[0] ? 0 : lo[1] ? lo[1] + 1 : 0;
    hi[2] = lo[0] || lo[1] ? 0 : lo[2] + 1;
    break;
  }
  return c >= 0 && quick_cmp(ver, hi) < 0;
}

static bool is_op_char(char c)
{
  return c == '<' || c == '>' || c == '=' || c == '^' || c == '~';
}

/* A range of alternatives ("||") of comparators (whitespace between them;
 * an operator may stand apart from its version, as node-semver allows),
 * each a quick_comparator form, against a version without prerelease (so
 * include_prerelease changes nothing). 1, 0, or -2 when it is not that. */
static int quick_range(const char *range, const uint64_t ver[3])
{
  const char *p = range;
  int any = 0;

  if (strlen(range) > NUB_RANGE_MAX_LEN)
    return -2; /* (the parser refuses it) */
  for (;;) {
    const char *bar = strstr(p, "||");
    const char *end = bar ? bar : p + strlen(p);
    int all = 1;
    while (p < end && is_ws(*p))
      p++;
    while (end > p && is_ws(end[-1]))
      end--;
    if (p == end)
      return -2; /* an empty alternative */
    while (p < end) {
      const char *tok = p, *t;
      int r;
      while (p < end && is_op_char(*p))
        p++;
      if (p > tok) /* an operator apart from its version */
        while (p < end && is_ws(*p))
          p++;
      t = p;
      while (p < end && !is_ws(*p))
        p++;
      if (t == p)
        return -2;
      if (t > tok && is_ws(t[-1])) {
        /* rejoin "op version" for the comparator parser */
        char buf[80];
        size_t ol = 0, vl = (size_t)(p - t);
        while (is_op_char(tok[ol]))
          ol++;
        if (ol + vl >= sizeof(buf))
          return -2;
        memcpy(buf, tok, ol);
        memcpy(buf + ol, t, vl);
        r = quick_comparator(buf, buf + ol + vl, ver);
      } else {
        r = quick_comparator(tok, p, ver);
      }
      if (r < 0)
        return -2;
      all &= r;
      while (p < end && is_ws(*p))
        p++;
    }
    any |= all;
    if (!bar)
      return any;
    p = bar + 2;
  }
}

int nub_semver_satisfies(const char *range, const char *version, bool include_prerelease)
{
  struct nub_range *r = NULL;
  struct nub_version v;
  uint64_t ver[3];
  int ok;

  if (quick_triple(version, ver) && (ok = quick_range(range, ver)) >= 0)
    return ok;
  if (nub_range_parse(&r, range) < 0)
    return -EINVAL;
  if (nub_version_parse(&v, version) < 0) {
    nub_range_free(r);
    return -EINVAL;
  }
  ok = nub_range_satisfies(r, &v, include_prerelease);
  nub_version_release(&v);
  nub_range_free(r);
  return ok;
}

bool nub_range_valid(const char *s)
{
  static const uint64_t origin[3];
  struct nub_range *r = NULL;

  if (s && quick_range(s, origin) >= 0)
    return true;
  if (nub_range_parse(&r, s) < 0)
    return false;
  nub_range_free(r);
  return true;
}
