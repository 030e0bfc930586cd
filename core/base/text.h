/* text.h - positions in text, for error messages that name a line and a
 * column (every reader of files: JSON, YAML, npmrc). */
#ifndef NUB_TEXT_H
#define NUB_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/* Line and column (1-based) of byte offset `off` in text. */
void nub_text_linecol(const char *text, size_t off, int *line, int *col);

/* Whether text has a line starting with a merge-conflict marker
 * ("<<<<<<<" then a space or the line's end); *off is where it starts. */
bool nub_text_conflict_marker(const char *text, size_t len, size_t *off);

/* The two sides of a text with git's merge-conflict markers, as yarn's
 * and npm's readers split one: a line outside a conflict goes to both,
 * from "<<<<<<<" to "=======" to side[0] (ours, less a "|||||||" base
 * section), from there to ">>>>>>>" to side[1] (theirs). side[] are
 * initialised here (an empty side's data is NULL: nub_buf_str); the caller
 * releases them. */
void nub_text_conflict_sides(const char *text, size_t len, struct nub_buf side[2]);

/* Whether YAML text nests flow collections ("[[[", "{{") deeper than
 * limit; *off is where it passes it. libyaml's document loader takes time
 * quadratic in that depth (100k levels: half a minute), so readers refuse
 * such input first. Quoted scalars and comments are skipped. */
bool nub_text_yaml_too_deep(const char *text, size_t len, int limit, size_t *off);

/* For "did you mean": the word of v[0..n) nearest word (edits: insert,
 * delete, replace a character, swap two neighbours; case counts as half),
 * when at most a third of word's length away (at least 1, at most 3);
 * else NULL. Words over 63 bytes are never near. */
const char *nub_text_nearest(const char *word, const char *const *v, size_t n);

/* The value of a hex digit (either case), or -1. */
int nub_hex_digit(char c);

/* JavaScript's a.localeCompare(b, "en") for names and paths (the CLDR root
 * collation): punctuation before digits before letters, case-insensitive
 * first, lowercase before uppercase on a tie. npm sorts its lockfile's keys
 * so, yarn its flat tree. */
int nub_locale_cmp(const char *a, const char *b);

#endif
