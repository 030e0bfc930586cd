/* json.c - strict JSON documents over cJSON, and typed field readers. */
#include "json.h"

#include <stdint.h>
#include <string.h>

#include <stdio.h>

#include "buf.h"
#include "nub_alloc.h"
#include "path.h"
#include "strmap.h"

static bool is_ws(unsigned char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Length of the UTF-8 sequence at s (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
  unsigned char c = s[0];
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;

  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4;
  else
    return 0;
  if (c == 0xE0)
    lo = 0xA0;
  else if (c == 0xED)
    hi = 0x9F;
  else if (c == 0xF0)
    lo = 0x90;
  else if (c == 0xF4)
    hi = 0x8F;
  if (avail < n || s[1] < lo || s[1] > hi)
    return 0;
  for (size_t i = 2; i < n; i++)
    if ((s[i] & 0xC0) != 0x80)
      return 0;
  return n;
}

/* Bytes the scan passes over without a look: inside a string everything
 * printable but the quote and the backslash; outside one everything ASCII
 * but the quote, brackets and the comma. Most of a lockfile is runs of
 * these (names, versions, hashes, indentation). */
static const unsigned char plain_in_str[256] = {
    [0x20 ... 0x21] = 1, [0x23 ... 0x5B] = 1, [0x5D ... 0x7F] = 1, /* not " \\ */
};
static const unsigned char plain_outside[256] = {
    /* not " , [ ] { } nor a control character but JSON's whitespace */
    [0x09] = 1, [0x0A] = 1, [0x0D] = 1, [0x20 ... 0x21] = 1, [0x23 ... 0x2B] = 1, [0x2D ... 0x5A] = 1, [0x5C] = 1,
    [0x5E ... 0x7A] = 1, [0x7C] = 1, [0x7E ... 0x7F] = 1,
};

/* What cJSON lets through: invalid UTF-8, raw control characters in
 * strings, nesting too deep for its recursion. Trailing commas (JSONC)
 * become spaces in `text`, so that offsets stay those of the file. Returns
 * the offset of the first fault, or len when there is none. */
static size_t scan(char *text, size_t len, bool jsonc, const char **why)
{
  const unsigned char *s = (const unsigned char *)text;
  bool in_str = false;
  int depth = 0;

  for (size_t i = 0; i < len;) {
    unsigned char c;
    if (in_str)
      while (i < len && plain_in_str[s[i]])
        i++;
    else
      while (i < len && plain_outside[s[i]])
        i++;
    if (i >= len)
      break;
    c = s[i];
    if (c >= 0x80) {
      size_t n = utf8_len(s + i, len - i);
      if (!n) {
        *why = "bytes that are not UTF-8";
        return i;
      }
      i += n;
      continue;
    }
    if (in_str) {
      if (c == '"') {
        in_str = false;
      } else if (c == '\\' && i + 1 < len && s[i + 1] < 0x80 && s[i + 1] >= 0x20) {
        i += 2;
        continue;
      } else if (c < 0x20) {
        *why = "a raw control character inside a string";
        return i;
      }
    } else if (c < 0x20) {
      /* cJSON would take any of them, NUL included, for whitespace */
      *why = c ? "a control character outside a string" : "a NUL byte";
      return i;
    } else if (c == '"') {
      in_str = true;
    } else if (c == '{' || c == '[') {
      if (++depth > NUB_JSON_MAX_DEPTH) {
        *why = "nesting deeper than 512 levels";
        return i;
      }
    } else if (c == '}' || c == ']') {
      depth--;
    } else if (c == ',' && jsonc) {
      size_t j = i + 1;
      while (j < len && is_ws(s[j]))
        j++;
      if (j < len && (s[j] == '}' || s[j] == ']'))
        text[i] = ' ';
    }
    i++;
  }
  return len;
}

/* JSON.parse keeps the last of equal keys in an object; cJSON's lookups
 * find the first. Earlier duplicates are dropped so that every reader sees
 * what npm sees ("scripts" given twice must not hide the second). Small
 * objects are compared pairwise, big ones (a lockfile's "packages")
 * through a map. */
static size_t key_hash(const char *s)
{
  size_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static void drop_duplicate_keys(cJSON *node)
{
  for (; node; node = node->next) {
    if (cJSON_IsObject(node)) {
      size_t n = 0;
      for (cJSON *c = node->child; c; c = c->next)
        n++;
      if (n > 1 && n <= 16) {
        for (cJSON *c = node->child; c;) {
          cJSON *next = c->next, *d = next;
          while (d && strcmp(d->string, c->string))
            d = d->next;
          if (d) /* a later one of the same name: this one goes */
            cJSON_Delete(cJSON_DetachItemViaPointer(node, c));
          c = next;
        }
      } else if (n > 16) {
        /* the keys by hash in one table of pointers: no copy of a key */
        size_t cap = 32;
        while (cap < 2 * n)
          cap *= 2;
        cJSON **slot = nub_calloc(cap, sizeof(*slot));
        for (cJSON *c = node->child; c;) {
          cJSON *next = c->next;
          size_t j = key_hash(c->string) & (cap - 1);
          while (slot[j] && strcmp(slot[j]->string, c->string))
            j = (j + 1) & (cap - 1);
          if (slot[j])
            cJSON_Delete(cJSON_DetachItemViaPointer(node, slot[j]));
          slot[j] = c;
          c = next;
        }
        nub_free(slot);
      }
    }
    if (cJSON_IsObject(node) || cJSON_IsArray(node))
      drop_duplicate_keys(node->child);
  }
}

int nub_json_parse(const char *text, size_t len, const char *fname, int code,
                   unsigned flags, cJSON **out, struct nub_err *err)
{
  const char *why = NULL, *end = NULL;
  size_t bom = 0, bad;
  char *copy;
  cJSON *root;
  int line, col;

  *out = NULL;
  if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
    bom = 3;
  if (nub_text_conflict_marker(text, len, &bad)) {
    nub_text_linecol(text, bad, &line, &col);
    return nub_err_set(err, code,
                       "%s:%d: unresolved merge-conflict marker; resolve the conflict and "
                       "try again", fname, line);
  }
  /* a copy: the scan may blank trailing commas, and cJSON wants the text
   * NUL-terminated to stop at a NUL byte inside it the way we report it */
  copy = nub_malloc(len + 1);
  memcpy(copy, text, len);
  copy[len] = '\0';
  bad = scan(copy + bom, len - bom, flags & NUB_JSON_TRAILING_COMMAS, &why);
  if (bad < len - bom) {
    nub_free(copy);
    nub_text_linecol(text, bom + bad, &line, &col);
    return nub_err_set(err, code, "%s is not valid JSON: %s at line %d column %d", fname,
                       why, line, col);
  }
  root = cJSON_ParseWithLengthOpts(copy + bom, len - bom, &end, 0);
  if (root) {
    size_t off = (size_t)(end - (copy + bom));
    while (off < len - bom && is_ws((unsigned char)copy[bom + off]))
      off++;
    if (off < len - bom) {
      cJSON_Delete(root);
      nub_free(copy);
      nub_text_linecol(text, bom + off, &line, &col);
      return nub_err_set(err, code,
                         "%s is not valid JSON: unexpected text after the end at line %d "
                         "column %d", fname, line, col);
    }
    nub_free(copy);
    drop_duplicate_keys(root);
    *out = root;
    return 0;
  }
  {
    size_t off = end && end >= copy + bom ? (size_t)(end - (copy + bom)) : 0, rest = off;
    while (rest < len - bom && is_ws((unsigned char)copy[bom + rest]))
      rest++;
    nub_free(copy);
    if (rest >= len - bom) {
      nub_text_linecol(text, len, &line, &col);
      return nub_err_set(err, code, "%s is not valid JSON: it ends early at line %d column %d",
                         fname, line, col);
    }
    nub_text_linecol(text, bom + off, &line, &col);
    return nub_err_set(err, code, "%s is not valid JSON: unexpected input at line %d column %d",
                       fname, line, col);
  }
}

/* Both sides' keys in theirs, ours where both have a value that is not
 * an object. */
static void merge_into(cJSON *theirs, const cJSON *ours)
{
  const cJSON *it;

  cJSON_ArrayForEach(it, ours)
  {
    cJSON *there = cJSON_GetObjectItemCaseSensitive(theirs, it->string);
    if (cJSON_IsObject(there) && cJSON_IsObject(it))
      merge_into(there, it);
    else if (there)
      cJSON_ReplaceItemInObjectCaseSensitive(theirs, it->string, cJSON_Duplicate(it, true));
    else
      cJSON_AddItemToObject(theirs, it->string, cJSON_Duplicate(it, true));
  }
}

int nub_json_unconflict(const char *text, size_t len, const char *fname, int code,
                        unsigned flags, cJSON **out, struct nub_err *err)
{
  struct nub_buf side[2];
  cJSON *doc[2] = {NULL, NULL};
  int rc = 0;

  *out = NULL;
  nub_text_conflict_sides(text, len, side);
  for (int i = 0; i < 2 && rc == 0; i++)
    rc = nub_json_parse(nub_buf_str(&side[i]), side[i].len, fname, code, flags, &doc[i], err);
  if (rc == 0 && cJSON_IsObject(doc[0]) && cJSON_IsObject(doc[1])) {
    merge_into(doc[1], doc[0]);
    *out = doc[1];
    doc[1] = NULL;
  } else {
    char tmp[sizeof(err->msg)];
    snprintf(tmp, sizeof(tmp), "%s", rc < 0 ? err->msg : "not an object");
    rc = nub_err_set(err, code, "%s has merge-conflict markers, and one side of the conflict "
                     "is not valid (%s); resolve it by hand", fname, tmp);
  }
  for (int i = 0; i < 2; i++) {
    cJSON_Delete(doc[i]);
    nub_buf_release(&side[i]);
  }
  return rc;
}

const char *nub_json_str(const cJSON *obj, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

bool nub_json_true(const cJSON *obj, const char *key)
{
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, key));
}

void nub_json_depmap(const cJSON *o, struct nub_depmap *out)
{
  const cJSON *it;
  size_t n = 0;

  out->v = NULL;
  out->n = 0;
  if (!cJSON_IsObject(o))
    return; /* arrays, null, strings: legacy oddities read as empty */
  cJSON_ArrayForEach(it, o) n++;
  if (!n)
    return;
  out->v = nub_calloc(n, sizeof(*out->v));
  cJSON_ArrayForEach(it, o)
  {
    if (!it->string)
      continue;
    out->v[out->n].name = nub_strdup(it->string);
    out->v[out->n].spec = nub_strdup(cJSON_IsString(it) ? it->valuestring : "*");
    out->n++;
  }
}

void nub_json_strarray(const cJSON *a, char ***out, size_t *n)
{
  const cJSON *it;
  size_t k = 0;

  *out = NULL;
  *n = 0;
  if (cJSON_IsString(a)) {
    *out = nub_calloc(1, sizeof(char *));
    (*out)[0] = nub_strdup(a->valuestring);
    *n = 1;
    return;
  }
  if (!cJSON_IsArray(a))
    return;
  cJSON_ArrayForEach(it, a) k++;
  if (!k)
    return;
  *out = nub_calloc(k, sizeof(char *));
  cJSON_ArrayForEach(it, a)
  {
    if (cJSON_IsString(it))
      (*out)[(*n)++] = nub_strdup(it->valuestring);
  }
}

static void add_bin(struct nub_bin **out, size_t *n, size_t *cap, const char *name,
                    const char *target)
{
  char nm[256], tg[4096];

  if (!nub_bin_name(name, nm, sizeof(nm)))
    return; /* unsafe names ("", "..", "../x") are dropped, like npm */
  if (nub_path_normalize(target, tg, sizeof(tg)) < 0)
    return;
  for (size_t i = 0; i < *n; i++)
    if (!strcmp((*out)[i].name, nm))
      return;
  NUB_GROW(*out, *cap, *n + 1);
  (*out)[*n].name = nub_strdup(nm);
  (*out)[*n].target = nub_strdup(tg);
  (*n)++;
}

void nub_json_bins(const cJSON *pkg, const char *pkgname, struct nub_bin **out, size_t *n)
{
  const cJSON *bin = cJSON_GetObjectItemCaseSensitive(pkg, "bin"), *it;
  size_t cap = 0;

  *out = NULL;
  *n = 0;
  if (cJSON_IsString(bin) && pkgname) {
    add_bin(out, n, &cap, pkgname, bin->valuestring);
  } else if (cJSON_IsObject(bin)) {
    cJSON_ArrayForEach(it, bin)
    {
      if (it->string && cJSON_IsString(it))
        add_bin(out, n, &cap, it->string, it->valuestring);
    }
  }
}

struct nub_depmap *nub_json_member_specs(const cJSON *obj)
{
  static const char *const keys[4] = {"dependencies", "devDependencies",
                                      "optionalDependencies", "peerDependencies"};
  struct nub_depmap *v = nub_calloc(4, sizeof(*v));

  for (int k = 0; k < 4; k++)
    nub_json_depmap(cJSON_GetObjectItemCaseSensitive(obj, keys[k]), &v[k]);
  return v;
}

static void pretty(const cJSON *v, struct nub_buf *out, int level)
{
  if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
    const cJSON *it;
    bool obj = cJSON_IsObject(v), first = true;
    if (!v->child) {
      nub_buf_adds(out, obj ? "{}" : "[]");
      return;
    }
    nub_buf_adds(out, obj ? "{\n" : "[\n");
    cJSON_ArrayForEach(it, v)
    {
      if (!first)
        nub_buf_adds(out, ",\n");
      first = false;
      for (int i = 0; i <= level; i++)
        nub_buf_adds(out, "  ");
      if (obj) {
        cJSON *k = cJSON_CreateString(it->string);
        char *t = cJSON_PrintUnformatted(k);
        nub_buf_addf(out, "%s: ", t);
        cJSON_free(t);
        cJSON_Delete(k);
      }
      pretty(it, out, level + 1);
    }
    nub_buf_adds(out, "\n");
    for (int i = 0; i < level; i++)
      nub_buf_adds(out, "  ");
    nub_buf_adds(out, obj ? "}" : "]");
    return;
  }
  {
    char *t = cJSON_PrintUnformatted(v);
    nub_buf_adds(out, t ? t : "null");
    cJSON_free(t);
  }
}

void nub_json_pretty(const cJSON *v, struct nub_buf *out)
{
  pretty(v, out, 0);
}
