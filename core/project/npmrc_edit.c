/* npmrc_edit.c - one key of an .npmrc changed in place (npmrc_edit.h). */
#include "npmrc_edit.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "nub_alloc.h"
#include "nub_plat.h"

/* Whether the line [p, e) sets key (ini: "key = value", "key=value"). */
static bool sets(const char *p, const char *e, const char *key)
{
  const char *eq;
  size_t n = strlen(key);

  while (p < e && (*p == ' ' || *p == '\t'))
    p++;
  if (p == e || *p == '#' || *p == ';' || *p == '[')
    return false;
  eq = memchr(p, '=', (size_t)(e - p));
  if (!eq)
    return false;
  while (eq > p && (eq[-1] == ' ' || eq[-1] == '\t'))
    eq--;
  return (size_t)(eq - p) == n && !strncmp(p, key, n);
}

static void add_value(struct nub_buf *b, const char *value)
{
  size_t n = strlen(value);
  bool quote = n && (value[0] == ' ' || value[n - 1] == ' ' || value[0] == '"' ||
                     value[0] == '\'' || strpbrk(value, ";#\r\n"));

  if (!quote) {
    nub_buf_adds(b, value);
    return;
  }
  {
    cJSON *s = cJSON_CreateString(value);
    char *t = cJSON_PrintUnformatted(s);
    nub_buf_adds(b, t);
    cJSON_free(t);
    cJSON_Delete(s);
  }
}

int nub_npmrc_edit(const char *path, const char *key, const char *value, unsigned new_mode,
                   struct nub_err *err)
{
  struct nub_plat_stat st;
  struct nub_buf out = NUB_BUF_INIT;
  char *text = NULL;
  size_t len = 0;
  bool done = false;
  int rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, 16u << 20, &text, &len);

  if (rc < 0 && rc != -ENOENT)
    return nub_err_set(err, rc, "cannot read %s: %s", path, nub_strerror(rc));
  for (const char *p = text, *end = text + len; p && p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl + 1 : end;
    if (!sets(p, nl ? nl : end, key)) {
      nub_buf_add(&out, p, (size_t)(le - p));
    } else if (value && !done) {
      nub_buf_addf(&out, "%s=", key);
      add_value(&out, value);
      nub_buf_adds(&out, "\n");
      done = true;
    }
    p = le;
  }
  if (value && !done) {
    if (out.len && out.data[out.len - 1] != '\n')
      nub_buf_adds(&out, "\n");
    nub_buf_addf(&out, "%s=", key);
    add_value(&out, value);
    nub_buf_adds(&out, "\n");
  }
  if (nub_plat_stat_follow_at(NUB_PLAT_CWD, path, &st) == 0)
    new_mode = st.mode & 07777;
  rc = nub_plat_write_file_atomic(path, out.data ? out.data : "", out.len, new_mode);
  nub_buf_release(&out);
  nub_free(text);
  if (rc < 0)
    return nub_err_set(err, rc, "cannot write %s: %s", path, nub_strerror(rc));
  return 0;
}
