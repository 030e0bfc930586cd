/* text.c - positions in text; see text.h. */
#include "text.h"

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
