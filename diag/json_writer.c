/* json_writer.c - append-only JSON object writer with a fixed buffer (git's
 * json-writer idea, without a DOM). Overflow truncates to "{}" semantics: the
 * object is closed early and flagged, never left unterminated. */
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "nub_alloc.h"
#include "redact.h"

int nub_json_escape(char *buf, size_t cap, const char *s, size_t n)
{
  size_t o = 0;

  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    const char *esc = NULL;
    char u[8];

    switch (c) {
    case '"': esc = "\\\""; break;
    case '\\': esc = "\\\\"; break;
    case '\n': esc = "\\n"; break;
    case '\r': esc = "\\r"; break;
    case '\t': esc = "\\t"; break;
    default:
      if (c < 0x20) {
        snprintf(u, sizeof(u), "\\u%04x", c);
        esc = u;
      }
    }
    if (esc) {
      size_t l = strlen(esc);
      if (o + l >= cap)
        return -1;
      memcpy(buf + o, esc, l);
      o += l;
    } else {
      if (o + 1 >= cap)
        return -1;
      buf[o++] = (char)c;
    }
  }
  if (o < cap)
    buf[o] = '\0';
  return (int)o;
}

static void put(struct nub_jw *w, const char *s, size_t n)
{
  if (w->overflow || w->skip)
    return;
  if (w->len + n + 2 >= sizeof(w->buf)) { /* keep room for the closing brace */
    w->skip = true;
    return;
  }
  memcpy(w->buf + w->len, s, n);
  w->len += n;
  w->buf[w->len] = '\0';
}

/* Each member is written whole or not at all: key() marks where it starts and
 * done() cuts the buffer back to that mark if the member overflowed, so the
 * object is always valid JSON. */
static void key(struct nub_jw *w, const char *k)
{
  char tmp[256];
  int n;

  w->mark = w->len;
  if (w->len > 1)
    put(w, ",", 1);
  put(w, "\"", 1);
  n = nub_json_escape(tmp, sizeof(tmp), k, strlen(k));
  if (n < 0) {
    w->skip = true;
    return;
  }
  put(w, tmp, (size_t)n);
  put(w, "\":", 2);
}

static void done(struct nub_jw *w)
{
  if (w->skip) {
    w->len = w->mark;
    w->buf[w->len] = '\0';
    w->skip = false;
    w->overflow = true;
  }
}

void nub_jw_begin(struct nub_jw *w)
{
  w->len = 0;
  w->mark = 0;
  w->skip = false;
  w->overflow = false;
  w->open = true;
  put(w, "{", 1);
}

void nub_jw_strn(struct nub_jw *w, const char *k, const char *val, size_t vn)
{
  char tmp[768], *whole = NULL, *clean = NULL;
  int n;

  key(w, k);
  if (memchr(val, '@', vn)) { /* URLs with userinfo: cleaned whole, then clipped */
    whole = nub_strndup(val, vn);
    clean = nub_redact_dup(whole);
    val = clean;
    vn = strlen(clean);
  }
  n = nub_json_escape(tmp, sizeof(tmp), val, vn);
  if (n < 0) { /* clip long values rather than dropping the event */
    n = nub_json_escape(tmp, sizeof(tmp), val, vn > 120 ? 120 : vn);
    if (n < 0)
      n = 0;
  }
  put(w, "\"", 1);
  put(w, tmp, (size_t)n);
  put(w, "\"", 1);
  done(w);
  nub_free(whole);
  nub_free(clean);
}

void nub_jw_str(struct nub_jw *w, const char *k, const char *val)
{
  if (!val) {
    key(w, k);
    put(w, "null", 4);
    done(w);
    return;
  }
  nub_jw_strn(w, k, val, strlen(val));
}

void nub_jw_int(struct nub_jw *w, const char *k, long long v)
{
  char tmp[32];
  int n = snprintf(tmp, sizeof(tmp), "%lld", v);
  key(w, k);
  put(w, tmp, (size_t)n);
  done(w);
}

void nub_jw_num(struct nub_jw *w, const char *k, double v)
{
  char tmp[48];
  int n = snprintf(tmp, sizeof(tmp), "%.3f", v);
  key(w, k);
  put(w, tmp, (size_t)n);
  done(w);
}

void nub_jw_bool(struct nub_jw *w, const char *k, bool v)
{
  key(w, k);
  put(w, v ? "true" : "false", v ? 4 : 5);
  done(w);
}

void nub_jw_raw(struct nub_jw *w, const char *k, const char *json)
{
  key(w, k);
  put(w, json, strlen(json));
  done(w);
}

const char *nub_jw_end(struct nub_jw *w)
{
  if (w->open) {
    /* put() always leaves room for this brace. */
    w->buf[w->len++] = '}';
    w->buf[w->len] = '\0';
    w->open = false;
  }
  return w->buf;
}
