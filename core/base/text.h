/* text.h - positions in text, for error messages that name a line and a
 * column (every reader of files: JSON, YAML, npmrc). */
#ifndef NUB_TEXT_H
#define NUB_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Line and column (1-based) of byte offset `off` in text. */
void nub_text_linecol(const char *text, size_t off, int *line, int *col);

/* Whether text has a line starting with a merge-conflict marker
 * ("<<<<<<<" then a space or the line's end); *off is where it starts. */
bool nub_text_conflict_marker(const char *text, size_t len, size_t *off);

/* Whether YAML text nests flow collections ("[[[", "{{") deeper than
 * limit; *off is where it passes it. libyaml's document loader takes time
 * quadratic in that depth (100k levels: half a minute), so readers refuse
 * such input first. Quoted scalars and comments are skipped. */
bool nub_text_yaml_too_deep(const char *text, size_t len, int limit, size_t *off);

/* The value of a hex digit (either case), or -1. */
int nub_hex_digit(char c);

#endif
