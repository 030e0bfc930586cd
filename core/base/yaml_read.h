/* yaml_read.h - reading YAML documents (lockfiles, .yarnrc.yml) through
 * libyaml's document API, with errors that name the file, line and
 * column. The readers of pnpm-lock.yaml, yarn berry's yarn.lock and
 * .yarnrc.yml share it. */
#ifndef NUB_YAML_READ_H
#define NUB_YAML_READ_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "err.h"
#include "dep.h"

/* Parse text into doc (the caller deletes it with yaml_document_delete on
 * success). Refused first, as -NUB_ELOCKFILE naming line and column (code
 * replaces it when not 0): a merge-conflict marker, flow collections nested
 * deeper than 256 (libyaml's loader is quadratic there), invalid YAML. An
 * empty document gives a document without a root node. */
int nub_yaml_load(yaml_document_t *doc, const char *text, size_t len, const char *fname,
                  int code, struct nub_err *err);

/* A reader: the document, the file name for errors, the error record and
 * the code a bad node gives (-NUB_ELOCKFILE, -NUB_EMANIFEST, ...). */
struct nub_yrd {
  yaml_document_t *doc;
  const char *fname;
  struct nub_err *err;
  int code;
};

#define NUB_Y_FOR_PAIRS(m, pr)                                                    \
  for (yaml_node_pair_t *pr = (m)->data.mapping.pairs.start;                      \
       pr < (m)->data.mapping.pairs.top; pr++)

static inline size_t nub_y_npairs(const yaml_node_t *m)
{
  return (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
}

static inline yaml_node_t *nub_y_node(const struct nub_yrd *r, int i)
{
  return yaml_document_get_node(r->doc, i);
}

/* The text of a scalar node, NULL for anything else. */
static inline const char *nub_y_sval(const yaml_node_t *n)
{
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

struct cJSON;
/* The node as the JSON value a YAML loader makes of it: maps, sequences,
 * and plain scalars typed (true/false, null, numbers), quoted ones strings.
 * NULL for a node nested deeper than 512. The caller deletes it. */
struct cJSON *nub_yaml_to_json(yaml_document_t *doc, yaml_node_t *n);

/* A plain empty, "~" or "null" scalar (or no node): the field is absent. */
bool nub_y_is_null(const yaml_node_t *n);
/* true / True / TRUE. */
bool nub_y_is_true(const yaml_node_t *n);

/* "<file>:<line>:<col>: <message>" with r->code (or `code` for the v
 * variant); returns the code. */
int nub_y_bad(const struct nub_yrd *r, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int nub_y_vbad(const struct nub_yrd *r, int code, const yaml_node_t *n, const char *fmt,
               va_list ap);
/* A mapping, or NULL for an absent value; anything else is an error
 * naming `what`. */
int nub_y_map(const struct nub_yrd *r, yaml_node_t *n, const char *what, yaml_node_t **out);
/* The key of a pair, which must be a string. */
int nub_y_key(const struct nub_yrd *r, yaml_node_pair_t *pr, const char *what,
              const char **out);
/* A string field into *out (replacing it); an absent one leaves it. */
int nub_y_str(const struct nub_yrd *r, yaml_node_t *n, const char *what, char **out);
/* A mapping of strings to strings, in file order (absent values skipped). */
int nub_y_depmap(const struct nub_yrd *r, yaml_node_t *n, const char *what,
                 struct nub_depmap *out);
/* A list of strings (a lone string reads as a list of one). */
int nub_y_strarray(const struct nub_yrd *r, yaml_node_t *n, const char *what, char ***out,
                   size_t *nout);

#endif
