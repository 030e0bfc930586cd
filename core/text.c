/* text.c - positions in text; see text.h. */
#include "text.h"

#include <string.h>

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
