/* wsyaml_edit.c - pnpm-workspace.yaml edited as text (wsyaml_edit.h). */
#include "wsyaml_edit.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "nub_alloc.h"

int nub_wsyaml_set(char **text, size_t *len, const char *section, const char *name,
                   const char *value, struct nub_err *err)
{
  struct nub_buf b = NUB_BUF_INIT;
  char key[600];
  const char *t = *text, *end = *text + *len, *line = t, *block = NULL;
  size_t sl = strlen(section);

  snprintf(key, sizeof(key), name[0] == '@' ? "'%s'" : "%s", name);
  for (; line < end;) { /* the top-level "<section>:" line */
    const char *eol = memchr(line, '\n', (size_t)(end - line));
    size_t n = (size_t)((eol ? eol : end) - line);
    if (n > sl && !strncmp(line, section, sl) && line[sl] == ':') {
      const char *rest = line + sl + 1;
      while (rest < line + n && (*rest == ' ' || *rest == '\t' || *rest == '\r'))
        rest++;
      if (rest < line + n && *rest != '#')
        return nub_err_set(err, -NUB_ECONFIG, "pnpm-workspace.yaml: %s is written on one "
                           "line; add \"%s: %s\" to it by hand", section, name, value);
      block = eol ? eol + 1 : end;
      break;
    }
    line = eol ? eol + 1 : end;
  }
  if (!block) {
    nub_buf_add(&b, t, *len);
    if (*len && t[*len - 1] != '\n')
      nub_buf_adds(&b, "\n");
    nub_buf_addf(&b, "%s:\n  %s: %s\n", section, key, value);
  } else {
    /* the map's lines: indented ones after it; ours replaced or added first */
    const char *p = block, *ins = block;
    char indent[32] = "  ";
    bool first = true;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '#')) {
      const char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p;
      const char *stop = eol ? eol : end;
      size_t ind;
      while (q < stop && (*q == ' ' || *q == '\t'))
        q++;
      ind = (size_t)(q - p);
      if (q < stop && *q != '#' && *q != '\r') {
        if (!ind)
          break;
        if (first && ind < sizeof(indent)) {
          memcpy(indent, p, ind);
          indent[ind] = '\0';
          first = false;
        }
        if ((size_t)(stop - q) > strlen(key) && !strncmp(q, key, strlen(key)) &&
            q[strlen(key)] == ':') { /* there: its value becomes value */
          nub_buf_add(&b, t, (size_t)(q - t));
          nub_buf_addf(&b, "%s: %s", key, value);
          nub_buf_add(&b, stop, (size_t)(end - stop));
          goto done;
        }
      }
      p = eol ? eol + 1 : end;
    }
    nub_buf_add(&b, t, (size_t)(ins - t));
    nub_buf_addf(&b, "%s%s: %s\n", indent, key, value);
    nub_buf_add(&b, ins, (size_t)(end - ins));
  }
done:
  nub_free(*text);
  *len = b.len;
  *text = nub_buf_take(&b);
  return 0;
}
