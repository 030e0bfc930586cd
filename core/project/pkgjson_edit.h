/* pkgjson_edit.h - package.json edited as text, for add and remove: one
 * dependency set or removed, every other byte kept (indentation, key order,
 * line endings, a final newline or its absence). The text must be valid
 * JSON (nub_manifest_parse it first). A new key goes where it sorts when
 * the section's keys are sorted (as npm and pnpm keep them), else at its
 * end; a new section goes after the last top-level key, indented like its
 * neighbours. */
#ifndef NUB_PKGJSON_EDIT_H
#define NUB_PKGJSON_EDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "err.h"

/* out = text with section[name] = spec ("dependencies", "devDependencies",
 * "optionalDependencies", "peerDependencies"). */
int nub_pkgjson_set_dep(struct nub_buf *out, const char *text, size_t len,
                        const char *section, const char *name, const char *spec,
                        struct nub_err *err);
/* The same with a value of any JSON kind, given as JSON text ("true"):
 * npm 12's "allowScripts" map. */
int nub_pkgjson_set_member(struct nub_buf *out, const char *text, size_t len,
                           const char *section, const char *name, const char *json_value,
                           struct nub_err *err);
/* out = text without section[name]; *removed says whether it was there. */
int nub_pkgjson_remove_dep(struct nub_buf *out, const char *text, size_t len,
                           const char *section, const char *name, bool *removed,
                           struct nub_err *err);

/* The same; with drop_empty, a section left empty goes as well (a
 * dependency moved to another section leaves no "devDependencies": {}). */
int nub_pkgjson_take_dep(struct nub_buf *out, const char *text, size_t len,
                         const char *section, const char *name, bool drop_empty, bool *removed,
                         struct nub_err *err);

/* out = text with value appended to the top-level array `key` (made after
 * the last key when there is none), laid out like its neighbours. */
int nub_pkgjson_add_to_array(struct nub_buf *out, const char *text, size_t len,
                             const char *key, const char *value, struct nub_err *err);
/* out = text without the string value in the top-level array `key` (one
 * comma beside it with it; the only one leaves "[]"); *removed says whether
 * it was there. */
int nub_pkgjson_remove_from_array(struct nub_buf *out, const char *text, size_t len,
                                  const char *key, const char *value, bool *removed,
                                  struct nub_err *err);

#endif
