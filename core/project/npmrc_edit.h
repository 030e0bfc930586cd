/* npmrc_edit.h - `nub config set` and `delete`: one key of an .npmrc file
 * changed in place, the file's other lines (comments included) kept as they
 * are, where npm rewrites the whole file. */
#ifndef NUB_NPMRC_EDIT_H
#define NUB_NPMRC_EDIT_H

#include "err.h"

/* In the .npmrc at path (made when missing, with new_mode: 0600 for a
 * user's, as npm makes it; an existing file keeps its own), key's line becomes "key=value" (the first one; the others with
 * that key go), or is appended; value NULL removes every line of key. A
 * value npm's ini writer would quote (spaces at its ends, ';', '#', a
 * leading quote) is written as a JSON string, as npm writes it. Written
 * atomically. 0 or -errno (err names the file). */
int nub_npmrc_edit(const char *path, const char *key, const char *value, unsigned new_mode,
                   struct nub_err *err);

#endif
