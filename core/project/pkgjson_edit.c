/* pkgjson_edit.c - package.json edited as text (pkgjson_edit.h). A small
 * scanner over text already known to be valid JSON finds the spans of an
 * object's members; edits splice bytes in and out of those spans. */
#include "pkgjson_edit.h"

#include <stdio.h>
#include <string.h>

#include "json.h"
#include "nub_alloc.h"

struct span {
  size_t key, key_end, val, val_end; /* key includes its quotes */
};

struct obj {
  size_t open, close; /* offsets of '{' and '}' */
  struct span *m;
  size_t n;
};

static size_t skip_ws(const char *t, size_t len, size_t p)
{
  while (p < len && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r'))
    p++;
  return p;
}

static size_t skip_string(const char *t, size_t len, size_t p)
{
  for (p++; p < len && t[p] != '"'; p++)
    if (t[p] == '\\')
      p++;
  return p + 1;
}

static size_t skip_value(const char *t, size_t len, size_t p)
{
  int depth = 0;

  if (t[p] == '"')
    return skip_string(t, len, p);
  if (t[p] != '{' && t[p] != '[') {
    while (p < len && !strchr(",}] \t\r\n", t[p]))
      p++;
    return p;
  }
  for (; p < len; p++) {
    if (t[p] == '"') {
      p = skip_string(t, len, p) - 1;
    } else if (t[p] == '{' || t[p] == '[') {
      depth++;
    } else if (t[p] == '}' || t[p] == ']') {
      if (--depth == 0)
        return p + 1;
    }
  }
  return p;
}

/* The members of the object whose '{' is at p. */
static void scan_object(const char *t, size_t len, size_t p, struct obj *o)
{
  size_t cap = 0;

  memset(o, 0, sizeof(*o));
  o->open = p;
  p = skip_ws(t, len, p + 1);
  while (p < len && t[p] != '}') {
    struct span s;
    s.key = p;
    s.key_end = skip_string(t, len, p);
    p = skip_ws(t, len, s.key_end);
    p = skip_ws(t, len, p + 1); /* the ':' */
    s.val = p;
    s.val_end = skip_value(t, len, p);
    NUB_GROW(o->m, cap, o->n + 1);
    o->m[o->n++] = s;
    p = skip_ws(t, len, s.val_end);
    if (p < len && t[p] == ',')
      p = skip_ws(t, len, p + 1);
  }
  o->close = p;
}

static bool key_is(const char *t, const struct span *s, const char *name)
{
  size_t n = strlen(name);
  return s->key_end - s->key == n + 2 && !memcmp(t + s->key + 1, name, n);
}

static int key_cmp(const char *t, const struct span *s, const char *name)
{
  size_t kl = s->key_end - s->key - 2, n = strlen(name);
  int c = memcmp(t + s->key + 1, name, kl < n ? kl : n);
  return c ? c : (int)kl - (int)n;
}

static int span_cmp(const char *t, const struct span *a, const struct span *b)
{
  size_t al = a->key_end - a->key, bl = b->key_end - b->key;
  int c = memcmp(t + a->key, t + b->key, al < bl ? al : bl);
  return c ? c : (int)al - (int)bl;
}

/* The whitespace before offset p on its line ("" when p's line has text
 * before it). */
static void indent_of(const char *t, size_t p, char *out, size_t cap)
{
  size_t s = p;

  while (s > 0 && (t[s - 1] == ' ' || t[s - 1] == '\t'))
    s--;
  if (s > 0 && t[s - 1] != '\n') {
    out[0] = '\0';
    return;
  }
  snprintf(out, cap, "%.*s", (int)(p - s), t + s);
}

static void add_json_string(struct nub_buf *b, const char *s)
{
  cJSON *tmp = cJSON_CreateString(s);
  char *txt = cJSON_PrintUnformatted(tmp);

  nub_buf_adds(b, txt ? txt : "\"\"");
  cJSON_free(txt);
  cJSON_Delete(tmp);
}

struct style {
  const char *nl; /* "\n", "\r\n", or "" for a one-line file */
  char unit[32];  /* one level of indentation */
};

static void detect_style(const char *t, size_t len, const struct obj *top, struct style *st)
{
  st->nl = memchr(t, '\n', len) ? (strstr(t, "\r\n") ? "\r\n" : "\n") : "";
  snprintf(st->unit, sizeof(st->unit), "  ");
  if (top->n) {
    char ind[32];
    indent_of(t, top->m[0].key, ind, sizeof(ind));
    if (ind[0])
      snprintf(st->unit, sizeof(st->unit), "%s", ind);
  }
  if (!*st->nl)
    st->unit[0] = '\0';
}

/* A member "name": value, value already JSON ("\"^1.0.0\"", "true"). */
static void add_member(struct nub_buf *b, const char *name, const char *value)
{
  add_json_string(b, name);
  nub_buf_adds(b, ": ");
  nub_buf_adds(b, value);
}

/* An object written on one line ({"a":"1","b":"2"} or { "a": "1" }): its
 * own separators, copied (the colon after a key, what follows a comma). */
struct inline_style {
  char colon[8], comma[8];
};

static bool one_line(const char *t, const struct obj *o, struct inline_style *is)
{
  size_t n;

  if (!o->n || memchr(t + o->open, '\n', o->close - o->open))
    return false;
  n = o->m[0].val - o->m[0].key_end;
  if (n >= sizeof(is->colon))
    return false;
  memcpy(is->colon, t + o->m[0].key_end, n);
  is->colon[n] = '\0';
  if (o->n > 1) {
    n = o->m[1].key - o->m[0].val_end;
    if (n >= sizeof(is->comma))
      return false;
    memcpy(is->comma, t + o->m[0].val_end, n);
    is->comma[n] = '\0';
  } else {
    /* one member: spaced after the comma when it is after the colon */
    snprintf(is->comma, sizeof(is->comma), ",%s",
             strchr(is->colon, ' ') || t[o->m[0].key - 1] == ' ' ? " " : "");
  }
  return true;
}

static void add_member_inline(struct nub_buf *b, const char *name, const char *value,
                              const struct inline_style *is)
{
  add_json_string(b, name);
  nub_buf_adds(b, is->colon);
  nub_buf_adds(b, value);
}

/* out = t with section[name] = value (JSON text), laid out like its
 * neighbours: the one writer of a member for set_dep and set_member. */
static int set_member(struct nub_buf *out, const char *t, size_t len, const char *section,
                      const char *name, const char *spec, struct nub_err *err)
{
  struct obj top, sec;
  struct style st;
  size_t p = skip_ws(t, len, 0), si;

  nub_buf_reset(out);
  if (p >= len || t[p] != '{')
    return nub_err_set(err, -NUB_EMANIFEST, "package.json must contain a JSON object");
  scan_object(t, len, p, &top);
  detect_style(t, len, &top, &st);
  for (si = 0; si < top.n && !key_is(t, &top.m[si], section); si++)
    ;
  if (si == top.n && top.n) {
    /* a new section after the last key, on one line when the file is */
    struct inline_style is;
    if (one_line(t, &top, &is)) {
      size_t at = top.m[top.n - 1].val_end;
      nub_buf_add(out, t, at);
      nub_buf_adds(out, is.comma);
      add_json_string(out, section);
      nub_buf_adds(out, is.colon);
      nub_buf_adds(out, "{");
      add_member_inline(out, name, spec, &is);
      nub_buf_adds(out, "}");
      nub_buf_add(out, t + at, len - at);
      nub_free(top.m);
      return 0;
    }
  }
  if (si == top.n) { /* a new section after the last key */
    size_t at = top.n ? top.m[top.n - 1].val_end : top.open + 1;
    nub_buf_add(out, t, at);
    nub_buf_addf(out, "%s%s%s", top.n ? "," : "", st.nl, st.unit);
    add_json_string(out, section);
    nub_buf_addf(out, ": {%s%s%s", st.nl, st.unit, st.unit);
    add_member(out, name, spec);
    nub_buf_addf(out, "%s%s}", st.nl, st.unit);
    if (!top.n)
      nub_buf_adds(out, st.nl);
    nub_buf_add(out, t + at, len - at);
    nub_free(top.m);
    return 0;
  }
  if (t[top.m[si].val] != '{') {
    nub_free(top.m);
    return nub_err_set(err, -NUB_EMANIFEST, "package.json: \"%s\" is not an object; fix it "
                       "by hand first", section);
  }
  scan_object(t, len, top.m[si].val, &sec);
  {
    size_t k;
    for (k = 0; k < sec.n && !key_is(t, &sec.m[k], name); k++)
      ;
    if (k < sec.n) { /* there: the value alone changes */
      nub_buf_add(out, t, sec.m[k].val);
      nub_buf_adds(out, spec);
      nub_buf_add(out, t + sec.m[k].val_end, len - sec.m[k].val_end);
    } else if (!sec.n && one_line(t, &top, &(struct inline_style){0})) {
      struct inline_style is;
      one_line(t, &top, &is);
      nub_buf_add(out, t, sec.open + 1);
      add_member_inline(out, name, spec, &is);
      nub_buf_add(out, t + sec.close, len - sec.close);
    } else if (!sec.n) { /* "{}": opened up */
      char ind[32];
      indent_of(t, top.m[si].key, ind, sizeof(ind));
      nub_buf_add(out, t, sec.open + 1);
      nub_buf_addf(out, "%s%s%s", st.nl, ind, st.unit);
      add_member(out, name, spec);
      nub_buf_addf(out, "%s%s", st.nl, ind);
      nub_buf_add(out, t + sec.close, len - sec.close);
    } else {
      bool sorted = true;
      size_t at;
      char ind[32];
      struct inline_style is;
      bool inl = one_line(t, &sec, &is);
      for (size_t j = 1; j < sec.n && sorted; j++)
        sorted = span_cmp(t, &sec.m[j - 1], &sec.m[j]) <= 0;
      indent_of(t, sec.m[0].key, ind, sizeof(ind));
      at = sec.n;
      if (sorted)
        for (at = 0; at < sec.n && key_cmp(t, &sec.m[at], name) < 0; at++)
          ;
      if (inl && at == 0) { /* one line: its own separators */
        nub_buf_add(out, t, sec.m[0].key);
        add_member_inline(out, name, spec, &is);
        nub_buf_adds(out, is.comma);
        nub_buf_add(out, t + sec.m[0].key, len - sec.m[0].key);
      } else if (inl) {
        size_t after = sec.m[at - 1].val_end;
        nub_buf_add(out, t, after);
        nub_buf_adds(out, is.comma);
        add_member_inline(out, name, spec, &is);
        nub_buf_add(out, t + after, len - after);
      } else if (at == 0) { /* before the first, which keeps its place after ours */
        nub_buf_add(out, t, sec.m[0].key);
        add_member(out, name, spec);
        nub_buf_addf(out, ",%s%s", *st.nl ? st.nl : " ", ind);
        nub_buf_add(out, t + sec.m[0].key, len - sec.m[0].key);
      } else {
        size_t after = sec.m[at - 1].val_end;
        nub_buf_add(out, t, after);
        nub_buf_addf(out, ",%s%s", *st.nl ? st.nl : " ", ind);
        add_member(out, name, spec);
        nub_buf_add(out, t + after, len - after);
      }
    }
  }
  nub_free(sec.m);
  nub_free(top.m);
  return 0;
}

int nub_pkgjson_set_dep(struct nub_buf *out, const char *t, size_t len, const char *section,
                        const char *name, const char *spec, struct nub_err *err)
{
  struct nub_buf v = NUB_BUF_INIT;
  int rc;

  add_json_string(&v, spec);
  rc = set_member(out, t, len, section, name, nub_buf_str(&v), err);
  nub_buf_release(&v);
  return rc;
}

int nub_pkgjson_set_member(struct nub_buf *out, const char *t, size_t len, const char *section,
                           const char *name, const char *json_value, struct nub_err *err)
{
  return set_member(out, t, len, section, name, json_value, err);
}

int nub_pkgjson_remove_dep(struct nub_buf *out, const char *t, size_t len,
                           const char *section, const char *name, bool *removed,
                           struct nub_err *err)
{
  return nub_pkgjson_take_dep(out, t, len, section, name, false, removed, err);
}

int nub_pkgjson_take_dep(struct nub_buf *out, const char *t, size_t len, const char *section,
                         const char *name, bool drop_empty, bool *removed, struct nub_err *err)
{
  struct obj top, sec;
  size_t p = skip_ws(t, len, 0), si, k;

  nub_buf_reset(out);
  *removed = false;
  if (p >= len || t[p] != '{')
    return nub_err_set(err, -NUB_EMANIFEST, "package.json must contain a JSON object");
  scan_object(t, len, p, &top);
  for (si = 0; si < top.n && !key_is(t, &top.m[si], section); si++)
    ;
  if (si == top.n || t[top.m[si].val] != '{') {
    nub_buf_add(out, t, len);
    nub_free(top.m);
    return 0;
  }
  scan_object(t, len, top.m[si].val, &sec);
  for (k = 0; k < sec.n && !key_is(t, &sec.m[k], name); k++)
    ;
  if (k == sec.n) {
    nub_buf_add(out, t, len);
  } else if (sec.n == 1 && drop_empty && top.n > 1) { /* the section goes too */
    if (si + 1 < top.n) {
      nub_buf_add(out, t, top.m[si].key);
      nub_buf_add(out, t + top.m[si + 1].key, len - top.m[si + 1].key);
    } else {
      nub_buf_add(out, t, top.m[si - 1].val_end);
      nub_buf_add(out, t + top.m[si].val_end, len - top.m[si].val_end);
    }
    *removed = true;
  } else if (sec.n == 1) { /* the section stays, empty */
    nub_buf_add(out, t, sec.open + 1);
    nub_buf_add(out, t + sec.close, len - sec.close);
    *removed = true;
  } else if (k + 1 < sec.n) { /* up to the next key */
    nub_buf_add(out, t, sec.m[k].key);
    nub_buf_add(out, t + sec.m[k + 1].key, len - sec.m[k + 1].key);
    *removed = true;
  } else { /* the last: from the end of the one before */
    nub_buf_add(out, t, sec.m[k - 1].val_end);
    nub_buf_add(out, t + sec.m[k].val_end, len - sec.m[k].val_end);
    *removed = true;
  }
  nub_free(sec.m);
  nub_free(top.m);
  return 0;
}

int nub_pkgjson_add_to_array(struct nub_buf *out, const char *t, size_t len, const char *key,
                             const char *value, struct nub_err *err)
{
  struct obj top;
  struct style st;
  size_t p = skip_ws(t, len, 0), si;

  nub_buf_reset(out);
  if (p >= len || t[p] != '{')
    return nub_err_set(err, -NUB_EMANIFEST, "package.json must contain a JSON object");
  scan_object(t, len, p, &top);
  detect_style(t, len, &top, &st);
  for (si = 0; si < top.n && !key_is(t, &top.m[si], key); si++)
    ;
  if (si == top.n) { /* a new array after the last key */
    size_t at = top.n ? top.m[top.n - 1].val_end : top.open + 1;
    nub_buf_add(out, t, at);
    nub_buf_addf(out, "%s%s%s", top.n ? "," : "", st.nl, st.unit);
    add_json_string(out, key);
    nub_buf_addf(out, ": [%s%s%s", st.nl, st.unit, st.unit);
    add_json_string(out, value);
    nub_buf_addf(out, "%s%s]", st.nl, st.unit);
    if (!top.n)
      nub_buf_adds(out, st.nl);
    nub_buf_add(out, t + at, len - at);
  } else if (t[top.m[si].val] != '[') {
    nub_free(top.m);
    return nub_err_set(err, -NUB_EMANIFEST, "package.json: \"%s\" is not an array", key);
  } else {
    /* after the last element (or into "[]"), as the elements are laid out */
    size_t open = top.m[si].val, close = top.m[si].val_end - 1, last = open, q;
    char ind[32];
    for (q = skip_ws(t, len, open + 1); q < close;) {
      size_t e = skip_value(t, len, q);
      last = e;
      q = skip_ws(t, len, e);
      if (q < close && t[q] == ',')
        q = skip_ws(t, len, q + 1);
    }
    indent_of(t, top.m[si].key, ind, sizeof(ind));
    if (last == open) {
      nub_buf_add(out, t, open + 1);
      nub_buf_addf(out, "%s%s%s", st.nl, ind, st.unit);
      add_json_string(out, value);
      nub_buf_addf(out, "%s%s", st.nl, ind);
      nub_buf_add(out, t + close, len - close);
    } else {
      bool multi = memchr(t + open, '\n', close - open) != NULL;
      nub_buf_add(out, t, last);
      if (multi)
        nub_buf_addf(out, ",%s%s%s", st.nl, ind, st.unit);
      else
        nub_buf_adds(out, ", ");
      add_json_string(out, value);
      nub_buf_add(out, t + last, len - last);
    }
  }
  nub_free(top.m);
  return 0;
}

int nub_pkgjson_remove_from_array(struct nub_buf *out, const char *t, size_t len, const char *key,
                                  const char *value, bool *removed, struct nub_err *err)
{
  struct obj top;
  struct nub_buf want = NUB_BUF_INIT;
  size_t p = skip_ws(t, len, 0), si;

  nub_buf_reset(out);
  *removed = false;
  if (p >= len || t[p] != '{')
    return nub_err_set(err, -NUB_EMANIFEST, "package.json must contain a JSON object");
  scan_object(t, len, p, &top);
  for (si = 0; si < top.n && !key_is(t, &top.m[si], key); si++)
    ;
  add_json_string(&want, value);
  if (si < top.n && t[top.m[si].val] == '[') {
    size_t open = top.m[si].val, close = top.m[si].val_end - 1, prev = open, q;
    for (q = skip_ws(t, len, open + 1); q < close;) {
      size_t e = skip_value(t, len, q), next = skip_ws(t, len, e);
      bool more = next < close && t[next] == ',';
      if (more)
        next = skip_ws(t, len, next + 1);
      if (e - q == want.len && !memcmp(t + q, want.data, want.len)) {
        /* the element and one comma beside it go; the layout stays */
        size_t from = prev == open ? q : prev, to = prev == open ? (more ? next : e) : e;
        if (prev == open && !more) /* the only one: "[]" */
          from = open + 1, to = close;
        nub_buf_add(out, t, from);
        nub_buf_add(out, t + to, len - to);
        *removed = true;
        break;
      }
      prev = e;
      q = next;
    }
  }
  if (!*removed)
    nub_buf_add(out, t, len);
  nub_buf_release(&want);
  nub_free(top.m);
  return 0;
}
