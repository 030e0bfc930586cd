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

bool nub_text_yaml_too_deep(const char *text, size_t len, int limit, size_t *off)
{
  int depth = 0;
  char quote = 0;

  for (size_t i = 0; i < len; i++) {
    char ch = text[i];
    if (quote) {
      if (ch == '\\' && quote == '"' && i + 1 < len)
        i++;
      else if (ch == quote)
        quote = 0;
      continue;
    }
    if (ch == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\n')) {
      while (i < len && text[i] != '\n')
        i++;
      continue;
    }
    if ((ch == '"' || ch == '\'') && (i == 0 || strchr(" \t\n[{,:", text[i - 1])))
      quote = ch;
    else if (ch == '[' || ch == '{') {
      if (++depth > limit) {
        *off = i;
        return true;
      }
    } else if ((ch == ']' || ch == '}') && depth > 0)
      depth--;
  }
  return false;
}
