/* yaml_emit.h - YAML documents written the way js-yaml (pnpm's dumper)
 * writes them. Build a tree of maps, sequences and scalars (strings are
 * borrowed: they must outlive the document), sort it, print it. */
#ifndef NUB_YAML_EMIT_H
#define NUB_YAML_EMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "dep.h"

struct nub_buf;
struct nub_ynode;

/* A document: it owns its nodes. */
struct nub_ydoc {
  struct nub_ynode **all;
  size_t n, cap;
  char **owned; /* strings handed over with nub_ydoc_keep */
  size_t nowned, capowned;
};

/* Which keys print their collection in flow style ("{a: 1}") and which
 * mappings get a blank line before every entry. */
struct nub_yaml_style {
  bool (*flow_key)(const char *key);
  bool (*blank_key)(const char *key);
};

void nub_ydoc_init(struct nub_ydoc *d);
void nub_ydoc_free(struct nub_ydoc *d);
/* Hand s (nub_malloc'd) to the document, which frees it with itself; for a
 * string made only for the document. Returns s. */
const char *nub_ydoc_keep(struct nub_ydoc *d, char *s);
struct nub_ynode *nub_ymap(struct nub_ydoc *d);
/* A scalar printed verbatim ("true", "9.0"). */
struct nub_ynode *nub_yraw(struct nub_ydoc *d, const char *text);
void nub_yset(struct nub_ynode *m, const char *key, struct nub_ynode *v);
/* A string, quoted or not as js-yaml would. */
void nub_yset_str(struct nub_ydoc *d, struct nub_ynode *m, const char *key, const char *s);
/* A sequence of strings (nothing when n is 0). */
void nub_yset_seq(struct nub_ydoc *d, struct nub_ynode *m, const char *key, char *const *v,
                  size_t n);
/* A mapping of name -> spec (nothing when empty). */
void nub_yset_depmap(struct nub_ydoc *d, struct nub_ynode *m, const char *key,
                     const struct nub_depmap *dm);
/* Sort a mapping and every mapping below it: the keys in `order` first (in
 * that order), then the rest by code unit (pnpm's sortLockfileKeys). */
void nub_ysort(struct nub_ynode *m, const char *const *order);
/* One scalar on one line, as js-yaml would quote it at this indentation
 * level (inside a block collection or not). */
void nub_yscalar(struct nub_buf *out, const char *s, int level, bool inblock);
/* The document with root as its top mapping (a blank line between its
 * entries), and a final newline. */
void nub_yprint(struct nub_buf *out, const struct nub_ynode *root,
                const struct nub_yaml_style *st);

#endif
