/* wsyaml_edit.h - pnpm-workspace.yaml edited as text, as a person would:
 * the rest of the file (comments, order, quoting) stays as it is. */
#ifndef NUB_WSYAML_EDIT_H
#define NUB_WSYAML_EDIT_H

#include <stddef.h>

#include "err.h"

/* *text with "<name>: <value>" in the top-level map `section` (a name
 * starting with '@' quoted): the entry already there gets the value, else
 * it is added first in the map, made at the end when there is none.
 * -NUB_ECONFIG when the map is written on one line ("section: {...}"). */
int nub_wsyaml_set(char **text, size_t *len, const char *section, const char *name,
                   const char *value, struct nub_err *err);

#endif
