/* path.c - validation of untrusted names and relative paths. */
#include "path.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nub_alloc.h"

static bool bad_char(unsigned char c) { return c < 0x20 || c == 0x7f || c == '\\'; }

static bool valid_part(const char *s, size_t n, bool scope_part)
{
  if (n == 0 || n > 214)
    return false;
  if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
    return false;
  if (!scope_part && (s[0] == '.' || s[0] == '_'))
    return false;
  /* a package named node_modules would make its folder look like the
   * directory that holds packages */
  if (n == 12 && !memcmp(s, "node_modules", 12))
    return false;
  for (size_t i = 0; i < n; i++)
    if (bad_char((unsigned char)s[i]) || s[i] == '/' || s[i] == ':')
      return false;
  return true;
}

bool nub_valid_pkg_name(const char *name)
{
  size_t n = strlen(name);
  const char *slash;

  if (n == 0 || n > 214)
    return false;
  if (name[0] != '@')
    return valid_part(name, n, false);
  slash = strchr(name, '/');
  if (!slash)
    return false;
  return valid_part(name + 1, (size_t)(slash - name - 1), true) &&
         valid_part(slash + 1, n - (size_t)(slash - name) - 1, false);
}

int nub_path_normalize(const char *in, char *out, size_t cap)
{
  size_t o = 0;
  int parts = 0;
  const char *p = in;

  if (!in || in[0] == '/' || cap == 0)
    return -EINVAL;
  while (*p) {
    const char *e = strchr(p, '/');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n == 0 || (n == 1 && p[0] == '.')) {
      /* "//" or "/./": nothing to add */
    } else if (n == 2 && p[0] == '.' && p[1] == '.') {
      return -EINVAL;
    } else {
      if (n > 255)
        return -EINVAL;
      for (size_t i = 0; i < n; i++)
        if (bad_char((unsigned char)p[i]))
          return -EINVAL;
      if (o + n + (o ? 1 : 0) + 1 > cap)
        return -EINVAL;
      if (o)
        out[o++] = '/';
      memcpy(out + o, p, n);
      o += n;
      parts++;
    }
    p += n;
    if (*p == '/')
      p++;
  }
  if (parts == 0)
    return -EINVAL;
  out[o] = '\0';
  return parts;
}

bool nub_bin_name(const char *in, char *out, size_t cap)
{
  const char *s = in;
  size_t n;

  if (s[0] == '@') {
    const char *slash = strchr(s, '/');
    if (!slash)
      return false;
    s = slash + 1;
  }
  n = strlen(s);
  if (n == 0 || n >= cap || (n == 1 && s[0] == '.') ||
      (n == 2 && s[0] == '.' && s[1] == '.'))
    return false;
  for (size_t i = 0; i < n; i++)
    if (bad_char((unsigned char)s[i]) || s[i] == '/')
      return false;
  memcpy(out, s, n + 1);
  return true;
}

const char *nub_path_pkg_name(const char *path)
{
  const char *nm = NULL, *p = path;

  /* the last "node_modules/" segment */
  while ((p = strstr(p, "node_modules/")) != NULL) {
    if (p == path || p[-1] == '/')
      nm = p;
    p += 13;
  }
  if (!nm || !nm[13])
    return NULL;
  return nm + 13;
}

/* Split an absolute path into its components, "." and ".." applied; max + 1
 * when there are more than max. */
static size_t lex_parts(const char *abs, const char **part, size_t *plen, size_t max)
{
  size_t n = 0;
  const char *p = abs;

  while (*p) {
    const char *s;
    while (*p == '/')
      p++;
    if (!*p)
      break;
    s = p;
    while (*p && *p != '/')
      p++;
    if (p - s == 1 && s[0] == '.')
      continue;
    if (p - s == 2 && s[0] == '.' && s[1] == '.') {
      if (n)
        n--;
      continue;
    }
    if (n == max)
      return max + 1; /* more components than room: the caller refuses */
    part[n] = s;
    plen[n] = (size_t)(p - s);
    n++;
  }
  return n;
}

int nub_path_relative(const char *from_dir, const char *to, char *out, size_t cap)
{
  const char *fp[256], *tp[256];
  size_t fl[256], tl[256], nf, nt, common = 0, o = 0;

  if (from_dir[0] != '/' || to[0] != '/')
    return -EINVAL;
  nf = lex_parts(from_dir, fp, fl, 256);
  nt = lex_parts(to, tp, tl, 256);
  if (nf > 256 || nt > 256)
    return -EINVAL;
  while (common < nf && common < nt && fl[common] == tl[common] &&
         !memcmp(fp[common], tp[common], fl[common]))
    common++;
  for (size_t i = common; i < nf; i++) {
    if (o + 3 >= cap)
      return -EINVAL;
    memcpy(out + o, "../", 3);
    o += 3;
  }
  for (size_t i = common; i < nt; i++) {
    if (o + tl[i] + 2 >= cap)
      return -EINVAL;
    memcpy(out + o, tp[i], tl[i]);
    o += tl[i];
    out[o++] = '/';
  }
  if (o == 0) {
    if (cap < 2)
      return -EINVAL;
    out[o++] = '.';
  } else if (out[o - 1] == '/') {
    o--;
  }
  out[o] = '\0';
  return 0;
}

char *nub_project_path(const char *project_dir, const char *path)
{
  return path[0] == '/' || !project_dir ? nub_strdup(path)
                                        : nub_asprintf("%s/%s", project_dir, path);
}

char *nub_path_nm_child(const char *level, const char *alias)
{
  return level[0] ? nub_asprintf("%s/node_modules/%s", level, alias)
                  : nub_asprintf("node_modules/%s", alias);
}

/* The level above `level`: "node_modules/a/node_modules/b" -> "node_modules/a",
 * "node_modules/a" -> "". Writes into out. */
bool nub_path_nm_parent(const char *level, char *out, size_t cap)
{
  const char *nm;

  if (!level[0])
    return false;
  /* the last "/node_modules/" before the folder name */
  nm = NULL;
  for (const char *p = level; (p = strstr(p, "/node_modules/")) != NULL; p++)
    nm = p;
  if (!nm) {
    out[0] = '\0';
    return true;
  }
  snprintf(out, cap, "%.*s", (int)(nm - level), level);
  return true;
}
