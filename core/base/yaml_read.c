/* yaml_read.c - libyaml documents with errors that say where. */
#include "yaml_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "nub_alloc.h"
#include "text.h"

int nub_yaml_load(yaml_document_t *doc, const char *text, size_t len, const char *fname,
                  int code, struct nub_err *err)
{
  yaml_parser_t parser;
  size_t off;
  int rc = 0;

  if (!code)
    code = -NUB_ELOCKFILE;
  if (nub_text_conflict_marker(text, len, &off)) {
    int line, col;
    nub_text_linecol(text, off, &line, &col);
    return nub_err_set(err, code,
                       "%s:%d: unresolved merge-conflict marker; resolve the conflict "
                       "(or delete the lockfile and re-resolve)",
                       fname, line);
  }
  if (nub_text_yaml_too_deep(text, len, 256, &off)) {
    int line, col;
    nub_text_linecol(text, off, &line, &col);
    return nub_err_set(err, code, "%s:%d:%d: collections nested more than 256 deep; this is "
                       "not a file nub or the tool that owns it writes", fname, line, col);
  }
  if (!yaml_parser_initialize(&parser))
    return nub_err_set(err, -ENOMEM, "out of memory parsing %s", fname);
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  if (!yaml_parser_load(&parser, doc)) { /* libyaml frees doc itself */
    int line = (int)parser.problem_mark.line + 1, col = (int)parser.problem_mark.column + 1;
    if (parser.error == YAML_READER_ERROR)
      nub_text_linecol(text, parser.problem_offset, &line, &col);
    if (parser.error == YAML_MEMORY_ERROR)
      rc = nub_err_set(err, -ENOMEM, "out of memory parsing %s", fname);
    else
      rc = nub_err_set(err, code, "%s:%d:%d: invalid YAML: %s%s%s%s", fname, line, col,
                       parser.problem ? parser.problem : "syntax error",
                       parser.context ? " (" : "", parser.context ? parser.context : "",
                       parser.context ? ")" : "");
  }
  yaml_parser_delete(&parser);
  return rc;
}

bool nub_y_is_null(const yaml_node_t *n)
{
  const char *s = nub_y_sval(n);

  return !n || (s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
                 !strcmp(s, "NULL")));
}

bool nub_y_is_true(const yaml_node_t *n)
{
  const char *s = nub_y_sval(n);

  return s && (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"));
}

int nub_y_vbad(const struct nub_yrd *r, int code, const yaml_node_t *n, const char *fmt,
               va_list ap)
{
  char msg[768];

  vsnprintf(msg, sizeof(msg), fmt, ap);
  return nub_err_set(r->err, code, "%s:%lu:%lu: %s", r->fname,
                     (unsigned long)n->start_mark.line + 1,
                     (unsigned long)n->start_mark.column + 1, msg);
}

int nub_y_bad(const struct nub_yrd *r, const yaml_node_t *n, const char *fmt, ...)
{
  va_list ap;
  int rc;

  va_start(ap, fmt);
  rc = nub_y_vbad(r, r->code ? r->code : -NUB_ELOCKFILE, n, fmt, ap);
  va_end(ap);
  return rc;
}

int nub_y_map(const struct nub_yrd *r, yaml_node_t *n, const char *what, yaml_node_t **out)
{
  *out = NULL;
  if (nub_y_is_null(n))
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return nub_y_bad(r, n, "%s must be a mapping", what);
  *out = n;
  return 0;
}

int nub_y_key(const struct nub_yrd *r, yaml_node_pair_t *pr, const char *what,
              const char **out)
{
  yaml_node_t *k = nub_y_node(r, pr->key);

  *out = nub_y_sval(k);
  if (!*out)
    return nub_y_bad(r, k, "%s: keys must be strings", what);
  return 0;
}

int nub_y_str(const struct nub_yrd *r, yaml_node_t *n, const char *what, char **out)
{
  if (nub_y_is_null(n))
    return 0;
  if (!nub_y_sval(n))
    return nub_y_bad(r, n, "%s must be a string", what);
  nub_free(*out);
  *out = nub_strdup(nub_y_sval(n));
  return 0;
}

int nub_y_depmap(const struct nub_yrd *r, yaml_node_t *n, const char *what,
                 struct nub_depmap *out)
{
  yaml_node_t *m;
  int rc = nub_y_map(r, n, what, &m);

  if (rc || !m)
    return rc;
  nub_depmap_release(out);
  out->v = nub_calloc(nub_y_npairs(m) + 1, sizeof(*out->v));
  NUB_Y_FOR_PAIRS(m, pr) {
    const char *k;
    yaml_node_t *v = nub_y_node(r, pr->value);
    if ((rc = nub_y_key(r, pr, what, &k)))
      return rc;
    if (nub_y_is_null(v))
      continue;
    if (!nub_y_sval(v))
      return nub_y_bad(r, v, "%s['%s'] must be a string", what, k);
    out->v[out->n].name = nub_strdup(k);
    out->v[out->n++].spec = nub_strdup(nub_y_sval(v));
  }
  return 0;
}

int nub_y_strarray(const struct nub_yrd *r, yaml_node_t *n, const char *what, char ***out,
                   size_t *nout)
{
  size_t cnt;

  if (nub_y_is_null(n))
    return 0;
  nub_strarray_free(*out, *nout);
  *out = NULL;
  *nout = 0;
  if (nub_y_sval(n)) { /* a lone string reads as a one-element list */
    *out = nub_malloc(sizeof(**out));
    (*out)[(*nout)++] = nub_strdup(nub_y_sval(n));
    return 0;
  }
  if (n->type != YAML_SEQUENCE_NODE)
    return nub_y_bad(r, n, "%s must be a list", what);
  cnt = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
  *out = nub_malloc((cnt + 1) * sizeof(**out));
  for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
       it++) {
    yaml_node_t *v = nub_y_node(r, *it);
    if (!nub_y_sval(v))
      return nub_y_bad(r, v, "%s must be a list of strings", what);
    (*out)[(*nout)++] = nub_strdup(nub_y_sval(v));
  }
  return 0;
}

static bool plain_number(const char *t)
{
  char *end;

  if (!*t || strchr(t, '_') || (t[0] == '0' && t[1] && t[1] != '.'))
    return false;
  (void)strtod(t, &end);
  return *end == '\0';
}

static cJSON *to_json(yaml_document_t *doc, yaml_node_t *n, int depth)
{
  cJSON *out;

  if (!n || depth > 512)
    return NULL;
  if (n->type == YAML_SCALAR_NODE) {
    const char *t = (const char *)n->data.scalar.value;
    if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
      if (nub_y_is_null(n))
        return cJSON_CreateNull();
      if (!strcmp(t, "true") || !strcmp(t, "false"))
        return cJSON_CreateBool(!strcmp(t, "true"));
      if (plain_number(t))
        return cJSON_CreateNumber(strtod(t, NULL));
    }
    return cJSON_CreateString(t);
  }
  if (n->type == YAML_SEQUENCE_NODE) {
    out = cJSON_CreateArray();
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++) {
      cJSON *v = to_json(doc, yaml_document_get_node(doc, *it), depth + 1);
      if (!v) {
        cJSON_Delete(out);
        return NULL;
      }
      cJSON_AddItemToArray(out, v);
    }
    return out;
  }
  out = cJSON_CreateObject();
  NUB_Y_FOR_PAIRS(n, pr)
  {
    yaml_node_t *k = yaml_document_get_node(doc, pr->key);
    cJSON *v = to_json(doc, yaml_document_get_node(doc, pr->value), depth + 1);
    if (!v || !nub_y_sval(k)) {
      cJSON_Delete(v);
      cJSON_Delete(out);
      return NULL;
    }
    cJSON_AddItemToObject(out, nub_y_sval(k), v);
  }
  return out;
}

cJSON *nub_yaml_to_json(yaml_document_t *doc, yaml_node_t *n)
{
  return to_json(doc, n, 0);
}
