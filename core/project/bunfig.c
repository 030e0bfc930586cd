/* bunfig.c - bun's [install] settings (see bunfig.h). */
#include "bunfig.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "nub_alloc.h"
#include "nub_plat.h"

static const char *skip_ws(const char *p, const char *end)
{
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  return p;
}

/* A quoted string at p (basic "..." with \" \\ \n \t escapes, or literal
 * '...'): appended to out; *next after the closing quote. -1: unclosed. */
static int quoted(const char *p, const char *end, struct nub_buf *out, const char **next)
{
  char q = *p++;

  while (p < end && *p != q && *p != '\n') {
    if (q == '"' && *p == '\\' && p + 1 < end) {
      char c = p[1];
      nub_buf_addc(out, c == 'n' ? '\n' : c == 't' ? '\t' : c);
      p += 2;
      continue;
    }
    nub_buf_addc(out, *p++);
  }
  if (p >= end || *p != q)
    return -1;
  *next = p + 1;
  return 0;
}

static void put(struct nub_bunfig *b, const char *key, const char *value)
{
  struct nub_depmap *m = &b->install;

  if (nub_depmap_get(m, key))
    return; /* the nearer file said it */
  m->v = nub_realloc(m->v, (m->n + 1) * sizeof(*m->v));
  m->v[m->n].name = nub_strdup(key);
  m->v[m->n].spec = nub_strdup(value);
  m->n++;
}

int nub_bunfig_parse(struct nub_bunfig *b, const char *text, size_t len, const char *path,
                     struct nub_err *err)
{
  const char *p = text, *end = text + len;
  bool in_install = false;
  size_t line = 1;
  int rc = 0;

  while (p < end && rc == 0) {
    const char *eol = memchr(p, '\n', (size_t)(end - p)), *k, *ke;
    struct nub_buf key = NUB_BUF_INIT, val = NUB_BUF_INIT;
    size_t at = line;

    if (!eol)
      eol = end;
    p = skip_ws(p, eol);
    if (p == eol || *p == '#') {
      p = eol + 1;
      line++;
      continue;
    }
    if (*p == '[') { /* a table: [install], [install.scopes], [[array]] */
      const char *close = memchr(p, ']', (size_t)(eol - p));
      in_install = close && close - p == 8 && !strncmp(p, "[install]", 9);
      p = eol + 1;
      line++;
      continue;
    }
    if (!in_install) {
      /* another table's value may span lines (an array): skip to its end */
      const char *eq = memchr(p, '=', (size_t)(eol - p));
      const char *v = eq ? skip_ws(eq + 1, eol) : eol;
      if (v < eol && *v == '[' && !memchr(v, ']', (size_t)(eol - v))) {
        const char *close = memchr(v, ']', (size_t)(end - v));
        for (const char *c = v; c < (close ? close : end); c++)
          line += *c == '\n';
        eol = close ? memchr(close, '\n', (size_t)(end - close)) : end;
        if (!eol)
          eol = end;
      }
      p = eol + 1;
      line++;
      continue;
    }
    k = p;
    if (*k == '"' || *k == '\'') {
      if (quoted(k, eol, &key, &ke) < 0)
        goto bad;
    } else {
      for (ke = k; ke < eol && *ke != '=' && *ke != ' ' && *ke != '\t'; ke++)
        ;
      nub_buf_add(&key, k, (size_t)(ke - k));
    }
    ke = skip_ws(ke, eol);
    if (ke >= eol || *ke != '=' || !key.len)
      goto bad;
    p = skip_ws(ke + 1, eol);
    if (p < eol && (*p == '"' || *p == '\'')) {
      if (quoted(p, eol, &val, &p) < 0)
        goto bad;
    } else if (p < eol && *p == '[') { /* strings, over as many lines as it takes */
      size_t items = 0;
      p++;
      for (;;) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ',')) {
          line += *p == '\n';
          p++;
        }
        if (p < end && *p == '#') {
          while (p < end && *p != '\n')
            p++;
          continue;
        }
        if (p >= end)
          goto bad;
        if (*p == ']') {
          p++;
          break;
        }
        if (*p != '"' && *p != '\'')
          goto bad;
        if (items++)
          nub_buf_addc(&val, '\n');
        if (quoted(p, end, &val, &p) < 0)
          goto bad;
      }
      eol = memchr(p, '\n', (size_t)(end - p));
      if (!eol)
        eol = end;
    } else {
      const char *v = p;
      while (p < eol && *p != '#')
        p++;
      while (p > v && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\r'))
        p--;
      if (p == v)
        goto bad;
      nub_buf_add(&val, v, (size_t)(p - v));
    }
    put(b, nub_buf_str(&key), nub_buf_str(&val));
    nub_buf_release(&key);
    nub_buf_release(&val);
    p = eol + 1;
    line++;
    continue;
  bad:
    nub_buf_release(&key);
    nub_buf_release(&val);
    rc = nub_err_set(err, -NUB_ECONFIG, "%s:%zu: nub cannot read this [install] setting "
                     "(key = number, boolean, \"string\" or [\"strings\"])", path, at);
  }
  return rc;
}

static int load_file(struct nub_bunfig *b, const char *path, struct nub_err *err)
{
  char *text = NULL;
  size_t len = 0;
  int rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, 4u << 20, &text, &len);

  if (rc == -ENOENT || rc == -ENOTDIR)
    return 0;
  if (rc < 0)
    return nub_err_set(err, -NUB_ECONFIG, "cannot read %s: %s", path, nub_strerror(rc));
  rc = nub_bunfig_parse(b, text, len, path, err);
  nub_free(text);
  if (rc == 0 && !b->file && b->install.n)
    b->file = nub_strdup(path);
  return rc;
}

int nub_bunfig_load(struct nub_bunfig *b, const char *project_dir, struct nub_err *err)
{
  const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
  char *path = nub_asprintf("%s/bunfig.toml", project_dir);
  int rc;

  memset(b, 0, sizeof(*b));
  rc = load_file(b, path, err);
  nub_free(path);
  if (rc == 0 && xdg && *xdg) {
    path = nub_asprintf("%s/.bunfig.toml", xdg);
    rc = load_file(b, path, err);
    nub_free(path);
  }
  if (rc == 0 && home && *home) {
    path = nub_asprintf("%s/.bunfig.toml", home);
    rc = load_file(b, path, err);
    nub_free(path);
  }
  return rc;
}

void nub_bunfig_release(struct nub_bunfig *b)
{
  nub_depmap_release(&b->install);
  nub_free(b->file);
  memset(b, 0, sizeof(*b));
}
