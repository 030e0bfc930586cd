/* workspace.c - finding a workspace's root and members (workspace.h). */
#include "workspace.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "buf.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "path.h"
#include "text.h"

#define MAX_DEPTH 32 /* of a "**" walk: symlinked directories may loop */

struct strs {
  char **v;
  size_t n, cap;
};

static void strs_add(struct strs *s, char *owned)
{
  NUB_GROW(s->v, s->cap, s->n + 1);
  s->v[s->n++] = owned;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- globs ----------------------------------------------------------------- */

/* "./packages/<glob>" and "packages/<glob>" are one glob. */
static const char *glob_body(const char *g)
{
  while (g[0] == '.' && g[1] == '/')
    g += 2;
  return g;
}

/* Split path into segments in place (buf is a copy); empty segments and "."
 * are dropped. */
static size_t split(char *buf, char **segs, size_t cap)
{
  size_t n = 0;

  for (char *p = buf; *p && n < cap;) {
    char *e = strchr(p, '/');
    if (e)
      *e = '\0';
    if (*p && strcmp(p, "."))
      segs[n++] = p;
    if (!e)
      break;
    p = e + 1;
  }
  return n;
}

static bool match_segs(char **ps, size_t np, char **ss, size_t ns)
{
  if (np == 0)
    return ns == 0;
  if (!strcmp(ps[0], "**")) {
    for (size_t k = 0; k <= ns; k++)
      if (match_segs(ps + 1, np - 1, ss + k, ns - k))
        return true;
    return false;
  }
  if (ns == 0 || fnmatch(ps[0], ss[0], FNM_PERIOD) != 0)
    return false;
  return match_segs(ps + 1, np - 1, ss + 1, ns - 1);
}

bool nub_workspace_glob_match(const char *glob, const char *rel)
{
  char gb[1024], rb[4096], *ps[64], *ss[256];
  size_t np, ns;

  snprintf(gb, sizeof(gb), "%s", glob_body(glob));
  snprintf(rb, sizeof(rb), "%s", rel);
  /* a trailing "/package.json" names the directory */
  {
    size_t gl = strlen(gb);
    if (gl >= 13 && !strcmp(gb + gl - 13, "/package.json"))
      gb[gl - 13] = '\0';
  }
  np = split(gb, ps, 64);
  ns = split(rb, ss, 256);
  for (size_t i = 0; i < ns; i++)
    if (!strcmp(ss[i], "node_modules"))
      return false;
  return np > 0 && match_segs(ps, np, ss, ns);
}

static bool excluded(char *const *globs, size_t n, const char *rel)
{
  for (size_t i = 0; i < n; i++)
    if (globs[i][0] == '!' && nub_workspace_glob_match(globs[i] + 1, rel))
      return true;
  return false;
}

static bool has_magic(const char *s)
{
  return strpbrk(s, "*?[") != NULL;
}

struct listing {
  struct strs names;
};

static int list_cb(void *payload, const char *name, enum nub_plat_ftype type)
{
  struct listing *l = payload;

  if (name[0] == '.' || !strcmp(name, "node_modules"))
    return 0;
  if (type == NUB_FT_DIR || type == NUB_FT_LINK)
    strs_add(&l->names, nub_strdup(name));
  return 0;
}

static bool is_dir(const char *abs)
{
  struct nub_plat_stat st;
  return nub_plat_stat_follow_at(NUB_PLAT_CWD, abs, &st) == 0 && st.type == NUB_FT_DIR;
}

static bool has_manifest(const char *root, const char *rel)
{
  char *p = nub_asprintf("%s/%s/package.json", root, rel);
  struct nub_plat_stat st;
  bool ok = nub_plat_stat_follow_at(NUB_PLAT_CWD, p, &st) == 0 && st.type == NUB_FT_FILE;

  nub_free(p);
  return ok;
}

/* Directories under root/rel that segments ps[0..np) match, into out. */
static void expand(const char *root, const char *rel, char **ps, size_t np, int depth,
                   struct strs *out)
{
  struct listing l;
  char *abs;

  if (np == 0) {
    if (rel[0] && has_manifest(root, rel))
      strs_add(out, nub_strdup(rel));
    return;
  }
  if (depth > MAX_DEPTH)
    return;
  if (strcmp(ps[0], "**") && !has_magic(ps[0])) {
    char *sub = rel[0] ? nub_asprintf("%s/%s", rel, ps[0]) : nub_strdup(ps[0]);
    char *a = nub_asprintf("%s/%s", root, sub);
    if (strcmp(ps[0], "node_modules") && is_dir(a))
      expand(root, sub, ps + 1, np - 1, depth + 1, out);
    nub_free(a);
    nub_free(sub);
    return;
  }
  if (!strcmp(ps[0], "**"))
    expand(root, rel, ps + 1, np - 1, depth + 1, out); /* zero directories */
  memset(&l, 0, sizeof(l));
  abs = rel[0] ? nub_asprintf("%s/%s", root, rel) : nub_strdup(root);
  nub_plat_list_dir_at(NUB_PLAT_CWD, abs, list_cb, &l);
  nub_sort(l.names.v, l.names.n, sizeof(char *), cmp_str);
  for (size_t i = 0; i < l.names.n; i++) {
    char *sub = rel[0] ? nub_asprintf("%s/%s", rel, l.names.v[i]) : nub_strdup(l.names.v[i]);
    char *a = nub_asprintf("%s/%s", root, sub);
    if (is_dir(a)) {
      if (!strcmp(ps[0], "**"))
        expand(root, sub, ps, np, depth + 1, out);
      else if (fnmatch(ps[0], l.names.v[i], FNM_PERIOD) == 0)
        expand(root, sub, ps + 1, np - 1, depth + 1, out);
    }
    nub_free(a);
    nub_free(sub);
  }
  nub_strarray_free(l.names.v, l.names.n);
  nub_free(abs);
}

/* ---- pnpm-workspace.yaml ----------------------------------------------------- */

struct yrd {
  yaml_document_t *doc;
  const char *file;
  struct nub_err *err;
};

static int ybad(struct yrd *r, const yaml_node_t *n, const char *what)
{
  return nub_err_set(r->err, -NUB_EMANIFEST, "%s:%zu:%zu: %s", r->file,
                     (size_t)n->start_mark.line + 1, (size_t)n->start_mark.column + 1, what);
}

static const char *yscalar(const yaml_node_t *n)
{
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int yseq(struct yrd *r, yaml_node_t *n, const char *key, char ***out, size_t *nout)
{
  struct strs s = {*out, *nout, *nout};
  char what[160];

  snprintf(what, sizeof(what), "%s must be a list of strings", key);
  if (n->type == YAML_SCALAR_NODE && !n->data.scalar.length)
    return 0; /* "packages:" with nothing after it */
  if (n->type != YAML_SEQUENCE_NODE)
    return ybad(r, n, what);
  for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
       it++) {
    const char *v = yscalar(yaml_document_get_node(r->doc, *it));
    if (!v) {
      *out = s.v;
      *nout = s.n;
      return ybad(r, yaml_document_get_node(r->doc, *it), what);
    }
    strs_add(&s, nub_strdup(v));
  }
  *out = s.v;
  *nout = s.n;
  return 0;
}

/* A map of names to scalars (values: what they are, for the error). */
static int ymap(struct yrd *r, yaml_node_t *n, const char *key, const char *values,
                struct nub_depmap *out)
{
  char what[160];
  size_t cap = out->n;

  snprintf(what, sizeof(what), "%s must map names to %s", key, values);
  if (n->type == YAML_SCALAR_NODE && !n->data.scalar.length)
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return ybad(r, n, what);
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
    const char *k = yscalar(yaml_document_get_node(r->doc, p->key));
    const char *v = yscalar(yaml_document_get_node(r->doc, p->value));
    if (!k || !v)
      return ybad(r, yaml_document_get_node(r->doc, p->value), what);
    NUB_GROW(out->v, cap, out->n + 1);
    out->v[out->n].name = nub_strdup(k);
    out->v[out->n].spec = nub_strdup(v);
    out->n++;
  }
  return 0;
}

static int add_catalog(struct yrd *r, struct nub_workspace *ws, const char *name,
                       yaml_node_t *n)
{
  char key[300];

  if (nub_catalog_find(ws->catalogs, ws->ncatalogs, name))
    return ybad(r, n, "the default catalog is given twice (catalog and catalogs.default)");
  ws->catalogs = nub_realloc(ws->catalogs, (ws->ncatalogs + 1) * sizeof(*ws->catalogs));
  memset(&ws->catalogs[ws->ncatalogs], 0, sizeof(*ws->catalogs));
  ws->catalogs[ws->ncatalogs].name = nub_strdup(name);
  snprintf(key, sizeof(key), "catalogs.%s", name);
  ws->ncatalogs++;
  return ymap(r, n, key, "version ranges", &ws->catalogs[ws->ncatalogs - 1].deps);
}

/* pnpm's settings that change what an install does and that nub does not
 * apply (yet): named, so that the install says so. */
static bool unapplied(const char *key)
{
  static const char *const keys[] = {
      "configDependencies",
      /* pnpm 10's; pnpm 12 applies allowBuilds alone (tested) */
      "neverBuiltDependencies", "ignoredBuiltDependencies"};

  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
    if (!strcmp(keys[i], key))
      return true;
  return false;
}

/* A plain YAML scalar that is a number to pnpm: -12, 3.5. */
static bool is_number(const char *t)
{
  size_t digits = 0, dots = 0;

  for (t += *t == '-'; *t; t++) {
    if (*t == '.')
      dots++;
    else if (isdigit((unsigned char)*t))
      digits++;
    else
      return false;
  }
  return digits && dots <= 1;
}

/* object-hash's text of a YAML node (objects with sorted keys), as pnpm
 * hashes packageExtensions for its lockfile: "object:1:string:3:foo:..." */
static void ohash(struct nub_buf *b, yaml_document_t *doc, yaml_node_t *n)
{
  if (n->type == YAML_MAPPING_NODE) {
    size_t np = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start), k = 0;
    yaml_node_pair_t **v = nub_calloc(np + 1, sizeof(*v));
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
      v[k++] = p;
    for (size_t i = 1; i < k; i++) /* insertion sort by key: a few keys */
      for (size_t j = i; j > 0; j--) {
        const char *a = yscalar(yaml_document_get_node(doc, v[j - 1]->key));
        const char *c = yscalar(yaml_document_get_node(doc, v[j]->key));
        yaml_node_pair_t *t;
        if (strcmp(a ? a : "", c ? c : "") <= 0)
          break;
        t = v[j - 1];
        v[j - 1] = v[j];
        v[j] = t;
      }
    nub_buf_addf(b, "object:%zu:", k);
    for (size_t i = 0; i < k; i++) {
      ohash(b, doc, yaml_document_get_node(doc, v[i]->key));
      nub_buf_addc(b, ':');
      ohash(b, doc, yaml_document_get_node(doc, v[i]->value));
      nub_buf_addc(b, ',');
    }
    nub_free(v);
  } else if (n->type == YAML_SEQUENCE_NODE) {
    nub_buf_addf(b, "array:%zu:",
                 (size_t)(n->data.sequence.items.top - n->data.sequence.items.start));
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         it++)
      ohash(b, doc, yaml_document_get_node(doc, *it));
  } else {
    const char *t = yscalar(n);
    bool plain = n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    if (plain && t && (!strcmp(t, "true") || !strcmp(t, "false")))
      nub_buf_addf(b, "bool:%s", t);
    else if (plain && t && (!*t || !strcmp(t, "null") || !strcmp(t, "~")))
      nub_buf_adds(b, "Null");
    else if (plain && t && is_number(t))
      nub_buf_addf(b, "number:%s", t);
    else
      nub_buf_addf(b, "string:%zu:%s", t ? strlen(t) : 0, t ? t : "");
  }
}

static void release_exts(struct nub_workspace *ws)
{
  for (size_t i = 0; i < ws->npkg_exts; i++)
    nub_pkg_ext_release(&ws->pkg_exts[i]);
  nub_free(ws->pkg_exts);
  nub_free(ws->pkg_exts_hash);
  ws->pkg_exts = NULL;
  ws->npkg_exts = 0;
  ws->pkg_exts_hash = NULL;
}

/* packageExtensions: selector ("name", "name@range") -> dependencies,
 * optionalDependencies, peerDependencies, peerDependenciesMeta. */
static int pkg_exts(struct yrd *r, struct nub_workspace *ws, yaml_node_t *n)
{
  struct nub_buf b = NUB_BUF_INIT;
  size_t cap = 0;
  int rc = 0;

  release_exts(ws); /* the file's last packageExtensions: key is the one */
  if (n->type == YAML_SCALAR_NODE && !n->data.scalar.length)
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return ybad(r, n, "packageExtensions must map package selectors to extensions");
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top && !rc;
       p++) {
    const char *sel = yscalar(yaml_document_get_node(r->doc, p->key)), *at;
    yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
    struct nub_pkg_ext *e;
    if (!sel || !*sel || v->type != YAML_MAPPING_NODE) {
      rc = ybad(r, v, "packageExtensions: each selector (name or name@range) maps to "
                "dependencies, optionalDependencies, peerDependencies, peerDependenciesMeta");
      break;
    }
    NUB_GROW(ws->pkg_exts, cap, ws->npkg_exts + 1);
    e = &ws->pkg_exts[ws->npkg_exts++];
    memset(e, 0, sizeof(*e));
    at = strchr(sel + 1, '@');
    e->name = at ? nub_strndup(sel, (size_t)(at - sel)) : nub_strdup(sel);
    e->range = at && at[1] ? nub_strdup(at + 1) : NULL;
    for (yaml_node_pair_t *f = v->data.mapping.pairs.start; f < v->data.mapping.pairs.top && !rc;
         f++) {
      const char *k = yscalar(yaml_document_get_node(r->doc, f->key));
      yaml_node_t *fv = yaml_document_get_node(r->doc, f->value);
      if (!k)
        continue;
      if (!strcmp(k, "dependencies"))
        rc = ymap(r, fv, "packageExtensions dependencies", "version ranges", &e->deps);
      else if (!strcmp(k, "optionalDependencies"))
        rc = ymap(r, fv, "packageExtensions optionalDependencies", "version ranges",
                  &e->optional);
      else if (!strcmp(k, "peerDependencies"))
        rc = ymap(r, fv, "packageExtensions peerDependencies", "version ranges", &e->peers);
      else if (!strcmp(k, "peerDependenciesMeta") && fv->type == YAML_MAPPING_NODE) {
        struct strs o = {NULL, 0, 0};
        for (yaml_node_pair_t *m = fv->data.mapping.pairs.start;
             m < fv->data.mapping.pairs.top; m++) {
          const char *peer = yscalar(yaml_document_get_node(r->doc, m->key));
          yaml_node_t *mv = yaml_document_get_node(r->doc, m->value);
          if (!peer || mv->type != YAML_MAPPING_NODE)
            continue;
          for (yaml_node_pair_t *q = mv->data.mapping.pairs.start;
               q < mv->data.mapping.pairs.top; q++) {
            const char *qk = yscalar(yaml_document_get_node(r->doc, q->key));
            const char *qv = yscalar(yaml_document_get_node(r->doc, q->value));
            if (qk && qv && !strcmp(qk, "optional") && !strcmp(qv, "true"))
              strs_add(&o, nub_strdup(peer));
          }
        }
        e->peers_optional = o.v;
        e->npeers_optional = o.n;
      }
    }
  }
  if (!rc && ws->npkg_exts) {
    ohash(&b, r->doc, n);
    ws->pkg_exts_hash = nub_strdup(nub_buf_str(&b));
  }
  nub_buf_release(&b);
  return rc;
}

/* peerDependencyRules: ignoreMissing, allowAny, allowedVersions. */
static int peer_rules(struct yrd *r, struct nub_workspace *ws, yaml_node_t *n)
{
  int rc = 0;

  if (n->type == YAML_SCALAR_NODE && !n->data.scalar.length)
    return 0;
  if (n->type != YAML_MAPPING_NODE)
    return ybad(r, n, "peerDependencyRules must be a mapping (ignoreMissing, allowAny, "
                "allowedVersions)");
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top && !rc;
       p++) {
    const char *k = yscalar(yaml_document_get_node(r->doc, p->key));
    yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
    if (!k)
      continue;
    if (!strcmp(k, "ignoreMissing"))
      rc = yseq(r, v, "peerDependencyRules.ignoreMissing", &ws->peer_ignore_missing,
                &ws->npeer_ignore_missing);
    else if (!strcmp(k, "allowAny"))
      rc = yseq(r, v, "peerDependencyRules.allowAny", &ws->peer_allow_any,
                &ws->npeer_allow_any);
    else if (!strcmp(k, "allowedVersions"))
      rc = ymap(r, v, "peerDependencyRules.allowedVersions", "version ranges",
                &ws->peer_allowed);
    else
      rc = ybad(r, v, "peerDependencyRules takes ignoreMissing, allowAny and allowedVersions");
  }
  return rc;
}

/* globs_only: for finding the root, only "packages" is read. */
/* Keys pnpm does not know: one warning naming them (with the nearest
 * known key), as pnpm 12 warns; an error when the project pins pnpm or nub
 * (packageManager), as pnpm 12 fails: then they cannot be meant for
 * another version. */
static int unknown_keys(struct nub_workspace *ws, char *const *keys, size_t n, const char *pin,
                        struct nub_err *err)
{
  struct nub_buf b = NUB_BUF_INIT;
  int rc = 0;

  for (size_t i = 0; i < n; i++) {
    const char *near = nub_pnpm_setting_nearest(keys[i]);
    nub_buf_addf(&b, "%s\"%s\"", i ? ", " : "", keys[i]);
    if (near)
      nub_buf_addf(&b, " (did you mean \"%s\"?)", near);
  }
  if (pin && (!strncmp(pin, "pnpm@", 5) || !strncmp(pin, "nub@", 4)))
    rc = nub_err_set(err, -NUB_ECONFIG, "pnpm-workspace.yaml has settings pnpm does not know: "
                     "%s; package.json pins %s (packageManager), so they cannot be meant for "
                     "another version: remove them or fix their spelling", nub_buf_str(&b), pin);
  else {
    struct strs w = {ws->warnings, ws->nwarnings, ws->nwarnings};
    strs_add(&w, nub_asprintf("pnpm-workspace.yaml has settings pnpm does not know, ignored: %s",
                              nub_buf_str(&b)));
    ws->warnings = w.v;
    ws->nwarnings = w.n;
  }
  nub_buf_release(&b);
  return rc;
}

static int read_pnpm_yaml(struct nub_workspace *ws, const char *text, size_t len,
                          bool globs_only, const char *pin, struct nub_err *err)
{
  struct strs unknown = {NULL, 0, 0};
  yaml_parser_t parser;
  yaml_document_t doc;
  yaml_node_t *root;
  struct yrd r = {&doc, "pnpm-workspace.yaml", err};
  int rc = 0;

  size_t off;

  if (nub_text_yaml_too_deep(text, len, 256, &off))
    return nub_err_set(err, -NUB_EMANIFEST, "pnpm-workspace.yaml: collections nested more "
                       "than 256 deep");
  if (!yaml_parser_initialize(&parser))
    return nub_err_set(err, -ENOMEM, "out of memory reading pnpm-workspace.yaml");
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  if (!yaml_parser_load(&parser, &doc)) {
    rc = nub_err_set(err, -NUB_EMANIFEST, "pnpm-workspace.yaml:%zu:%zu: %s",
                     (size_t)parser.problem_mark.line + 1,
                     (size_t)parser.problem_mark.column + 1,
                     parser.problem ? parser.problem : "not valid YAML");
    yaml_parser_delete(&parser);
    return rc;
  }
  yaml_parser_delete(&parser);
  root = yaml_document_get_root_node(&doc);
  if (root && root->type == YAML_SCALAR_NODE && !root->data.scalar.length)
    root = NULL; /* only comments */
  if (root && root->type != YAML_MAPPING_NODE)
    rc = ybad(&r, root, "the file must be a mapping (packages:, catalog:, ...)");
  for (yaml_node_pair_t *p = root && !rc ? root->data.mapping.pairs.start : NULL;
       p && p < root->data.mapping.pairs.top && !rc; p++) {
    const char *k = yscalar(yaml_document_get_node(&doc, p->key));
    yaml_node_t *v = yaml_document_get_node(&doc, p->value);
    if (!k)
      continue;
    if (!strcmp(k, "packages"))
      rc = yseq(&r, v, "packages", &ws->globs, &ws->nglobs);
    else if (globs_only)
      continue;
    else if (!nub_pnpm_setting_known(k))
      strs_add(&unknown, nub_strdup(k));
    else if (!strcmp(k, "catalog"))
      rc = add_catalog(&r, ws, "default", v);
    else if (!strcmp(k, "catalogs")) {
      if (v->type != YAML_MAPPING_NODE) {
        rc = ybad(&r, v, "catalogs must map catalog names to catalogs");
        break;
      }
      for (yaml_node_pair_t *c = v->data.mapping.pairs.start;
           c < v->data.mapping.pairs.top && !rc; c++) {
        const char *name = yscalar(yaml_document_get_node(&doc, c->key));
        if (name)
          rc = add_catalog(&r, ws, name, yaml_document_get_node(&doc, c->value));
      }
    } else if (!strcmp(k, "overrides"))
      rc = ymap(&r, v, "overrides", "version ranges", &ws->overrides);
    else if (unapplied(k) || (!strcmp(k, "pnpmfile") && !yscalar(v))) {
      /* (pnpmfile: one path is applied, pnpmfile.h; a list is not) */
      struct strs u = {ws->unapplied, ws->nunapplied, ws->nunapplied};
      strs_add(&u, nub_strdup(k));
      ws->unapplied = u.v;
      ws->nunapplied = u.n;
    } else if (!strcmp(k, "minimumReleaseAgeExclude"))
      rc = yseq(&r, v, "minimumReleaseAgeExclude", &ws->age_exclude, &ws->nage_exclude);
    else if (!strcmp(k, "trustPolicyExclude"))
      rc = yseq(&r, v, "trustPolicyExclude", &ws->trust_exclude, &ws->ntrust_exclude);
    else if (!strcmp(k, "allowBuilds"))
      rc = ymap(&r, v, "allowBuilds", "true or false", &ws->allow_builds);
    else if (!strcmp(k, "patchedDependencies"))
      rc = ymap(&r, v, "patchedDependencies", "patch files", &ws->patched);
    else if (!strcmp(k, "peerDependencyRules"))
      rc = peer_rules(&r, ws, v);
    else if (!strcmp(k, "packageExtensions"))
      rc = pkg_exts(&r, ws, v);
    else if (!strcmp(k, "onlyBuiltDependencies"))
      rc = yseq(&r, v, "onlyBuiltDependencies", &ws->only_built, &ws->nonly_built);
    else if (yscalar(v)) {
      /* pnpm's other settings, as written (linkWorkspacePackages: true) */
      struct nub_depmap *m = &ws->settings;
      m->v = nub_realloc(m->v, (m->n + 1) * sizeof(*m->v));
      m->v[m->n].name = nub_strdup(k);
      m->v[m->n].spec = nub_strdup(yscalar(v));
      m->n++;
    }
  }
  yaml_document_delete(&doc);
  if (!rc && unknown.n)
    rc = unknown_keys(ws, unknown.v, unknown.n, pin, err);
  nub_strarray_free(unknown.v, unknown.n);
  return rc;
}

int nub_workspace_parse_yaml(struct nub_workspace *ws, const char *text, size_t len,
                             const char *pin, struct nub_err *err)
{
  memset(ws, 0, sizeof(*ws));
  ws->source = "pnpm-workspace.yaml";
  return read_pnpm_yaml(ws, text, len, false, pin, err);
}

/* The globs of dir's workspace definition: pnpm-workspace.yaml wins over
 * package.json "workspaces" (as pnpm reads it). *source NULL: none. */
static int read_definition(struct nub_workspace *ws, const char *dir,
                           const struct nub_manifest *man, bool globs_only,
                           struct nub_err *err)
{
  char *path = nub_asprintf("%s/pnpm-workspace.yaml", dir), *text = NULL;
  size_t len = 0;
  int rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, 16u << 20, &text, &len);

  nub_free(path);
  if (rc == 0) {
    ws->source = "pnpm-workspace.yaml";
    rc = read_pnpm_yaml(ws, text, len, globs_only, man ? man->package_manager : NULL, err);
    nub_free(text);
    return rc;
  }
  if (rc != -ENOENT)
    return nub_err_set(err, rc, "cannot read %s/pnpm-workspace.yaml: %s", dir,
                       nub_strerror(rc));
  if (man && man->has_workspaces) {
    ws->source = "package.json";
    for (size_t i = 0; i < man->nworkspaces; i++) {
      struct strs s = {ws->globs, ws->nglobs, ws->nglobs};
      strs_add(&s, nub_strdup(man->workspaces[i]));
      ws->globs = s.v;
      ws->nglobs = s.n;
    }
  }
  return 0;
}

static bool takes_in(const struct nub_workspace *ws, const char *rel)
{
  if (excluded(ws->globs, ws->nglobs, rel))
    return false;
  for (size_t i = 0; i < ws->nglobs; i++)
    if (ws->globs[i][0] != '!' && nub_workspace_glob_match(ws->globs[i], rel))
      return true;
  return false;
}

/* The manifest read at the root, handed to the caller that wants it. */
static void hand_over(struct nub_manifest *m, bool have, struct nub_manifest *out,
                      bool *have_out)
{
  if (out && have) {
    *out = *m;
    *have_out = true;
  } else if (have) {
    nub_manifest_release(m);
  }
}

int nub_workspace_find_root(const char *dir, char **root, struct nub_manifest *root_man,
                            bool *have_root_man, struct nub_err *err)
{
  struct nub_manifest own_man;
  bool have_own;
  char *cand = nub_strdup(dir);
  size_t dl = strlen(dir);

  (void)err;
  *root = NULL;
  if (have_root_man)
    *have_root_man = false;
  have_own = nub_manifest_load(&own_man, dir, &(struct nub_err){0}) == 0;
  { /* a root of its own (the nearest definition wins, as in pnpm) */
    struct nub_workspace ws;
    struct nub_err e2;
    bool own;
    memset(&ws, 0, sizeof(ws));
    own = read_definition(&ws, dir, have_own ? &own_man : NULL, true, &e2) == 0 && ws.source;
    nub_workspace_release(&ws);
    if (own) {
      hand_over(&own_man, have_own, root_man, have_root_man);
      *root = cand;
      return 0;
    }
  }
  for (;;) {
    char *slash = strrchr(cand, '/');
    if (!slash || slash == cand)
      break;
    *slash = '\0'; /* the parent */
    {
      struct nub_workspace ws;
      struct nub_manifest man;
      struct nub_err e2;
      bool have_man = nub_manifest_load(&man, cand, &e2) == 0;
      bool hit = false;
      memset(&ws, 0, sizeof(ws));
      /* an ancestor that cannot be read is not this project's root */
      if (read_definition(&ws, cand, have_man ? &man : NULL, true, &e2) == 0 && ws.source) {
        size_t cl = strlen(cand);
        if (dl > cl && dir[cl] == '/')
          hit = takes_in(&ws, dir + cl + 1);
      }
      nub_workspace_release(&ws);
      if (hit) {
        hand_over(&man, have_man, root_man, have_root_man);
        if (have_own)
          nub_manifest_release(&own_man);
        *root = cand;
        return 0;
      }
      if (have_man)
        nub_manifest_release(&man);
    }
  }
  nub_free(cand);
  hand_over(&own_man, have_own, root_man, have_root_man);
  *root = nub_strdup(dir);
  return 0;
}

int nub_workspace_discover(struct nub_workspace *ws, const char *root,
                           const struct nub_manifest *root_man, struct nub_err *err)
{
  struct strs found = {0};
  int rc;

  memset(ws, 0, sizeof(*ws));
  ws->root = nub_strdup(root);
  rc = read_definition(ws, root, root_man, false, err);
  if (rc < 0 || !ws->source)
    return rc;
  if (!ws->ncatalogs && root_man && root_man->ncatalogs) {
    ws->catalogs = nub_calloc(root_man->ncatalogs, sizeof(*ws->catalogs));
    for (size_t i = 0; i < root_man->ncatalogs; i++) {
      const struct nub_catalog *c = &root_man->catalogs[i];
      ws->catalogs[i].name = nub_strdup(c->name);
      ws->catalogs[i].deps.v = nub_calloc(c->deps.n + 1, sizeof(struct nub_dep));
      for (size_t k = 0; k < c->deps.n; k++) {
        ws->catalogs[i].deps.v[k].name = nub_strdup(c->deps.v[k].name);
        ws->catalogs[i].deps.v[k].spec = nub_strdup(c->deps.v[k].spec);
      }
      ws->catalogs[i].deps.n = c->deps.n;
    }
    ws->ncatalogs = root_man->ncatalogs;
  }
  for (size_t i = 0; i < ws->nglobs; i++) {
    char gb[1024], *ps[64];
    size_t np, before = found.n;
    if (ws->globs[i][0] == '!')
      continue;
    snprintf(gb, sizeof(gb), "%s", glob_body(ws->globs[i]));
    {
      size_t gl = strlen(gb);
      if (gl >= 13 && !strcmp(gb + gl - 13, "/package.json"))
        gb[gl - 13] = '\0';
    }
    np = split(gb, ps, 64);
    if (np)
      expand(root, "", ps, np, 0, &found);
    if (found.n == before && np) {
      struct strs w = {ws->warnings, ws->nwarnings, ws->nwarnings};
      strs_add(&w, nub_asprintf("the workspace glob '%s' in %s matches no package (no "
                                "directory with a package.json)", ws->globs[i], ws->source));
      ws->warnings = w.v;
      ws->nwarnings = w.n;
    }
  }
  nub_sort(found.v, found.n, sizeof(char *), cmp_str);
  ws->pkgs = nub_calloc(found.n + 1, sizeof(*ws->pkgs));
  for (size_t i = 0; i < found.n; i++) {
    if ((ws->npkgs && !strcmp(ws->pkgs[ws->npkgs - 1].dir, found.v[i])) ||
        excluded(ws->globs, ws->nglobs, found.v[i])) {
      nub_free(found.v[i]);
      continue;
    }
    ws->pkgs[ws->npkgs++].dir = found.v[i];
  }
  nub_free(found.v);
  return 0;
}

int nub_workspace_load(struct nub_workspace *ws, struct nub_err *err)
{
  bool pnpm = ws->source && !strcmp(ws->source, "pnpm-workspace.yaml");

  for (size_t i = 0; i < ws->npkgs; i++) {
    struct nub_ws_pkg *p = &ws->pkgs[i];
    char *abs = nub_asprintf("%s/%s", ws->root, p->dir);
    char *shown = nub_asprintf("%s/package.json", p->dir);
    int rc = nub_manifest_load_as(&p->man, abs, shown, err);
    nub_free(abs);
    nub_free(shown);
    if (rc < 0)
      return rc;
    /* pnpm takes a package without a name (an importer known by its
     * folder, as test fixtures are); npm and bun need one */
    if (!p->man.name && pnpm)
      continue;
    if (!p->man.name || !nub_valid_pkg_name(p->man.name))
      return nub_err_set(err, -NUB_EWORKSPACE,
                         "the workspace package %s/package.json has %s \"name\"; every "
                         "package of a workspace needs its own valid name", p->dir,
                         p->man.name ? "an invalid" : "no");
    /* pnpm takes two packages of one name too (an importer is its folder;
     * a dependency on the name gets the first); npm and yarn refuse them */
    for (size_t k = 0; k < i && !pnpm; k++)
      if (ws->pkgs[k].man.name && !strcmp(ws->pkgs[k].man.name, p->man.name))
        return nub_err_set(err, -NUB_EWORKSPACE,
                           "two workspace packages are named %s: %s and %s; rename one "
                           "(\"name\" in its package.json)", p->man.name, ws->pkgs[k].dir,
                           p->dir);
  }
  ws->loaded = true;
  return 0;
}

const struct nub_ws_pkg *nub_workspace_find(const struct nub_workspace *ws, const char *name)
{
  for (size_t i = 0; ws->loaded && i < ws->npkgs; i++)
    if (ws->pkgs[i].man.name && !strcmp(ws->pkgs[i].man.name, name))
      return &ws->pkgs[i];
  return NULL;
}

const struct nub_ws_pkg *nub_workspace_at(const struct nub_workspace *ws, const char *dir)
{
  for (size_t i = 0; i < ws->npkgs; i++)
    if (!strcmp(ws->pkgs[i].dir, dir))
      return &ws->pkgs[i];
  return NULL;
}

/* ---- --filter ------------------------------------------------------------- */

static const struct nub_manifest *project_man(const struct nub_workspace *ws,
                                              const struct nub_manifest *root_man, size_t i)
{
  return i ? &ws->pkgs[i - 1].man : root_man;
}

/* Whether project a depends on project b (by name, in any dependency map). */
static bool depends_on(const struct nub_workspace *ws, const struct nub_manifest *root_man,
                       size_t a, size_t b)
{
  const struct nub_manifest *m = project_man(ws, root_man, a);
  const char *name = project_man(ws, root_man, b)->name;

  return a != b && name &&
         (nub_depmap_get(&m->deps, name) || nub_depmap_get(&m->dev, name) ||
          nub_depmap_get(&m->optional, name));
}

/* Add to set what `from` reaches along dependencies (down) or dependents. */
static void close_over(const struct nub_workspace *ws, const struct nub_manifest *root_man,
                       bool *set, const bool *from, bool down)
{
  size_t n = ws->npkgs + 1;
  bool changed = true;
  bool *reach = nub_calloc(n, sizeof(bool));

  memcpy(reach, from, n * sizeof(bool));
  while (changed) {
    changed = false;
    for (size_t a = 0; a < n; a++)
      for (size_t b = 0; b < n; b++) {
        size_t x = down ? a : b, y = down ? b : a; /* x reached, y new */
        if (reach[x] && !reach[y] && depends_on(ws, root_man, a, b)) {
          reach[y] = true;
          changed = true;
        }
      }
  }
  for (size_t i = 0; i < n; i++)
    if (reach[i] && !from[i])
      set[i] = true;
  nub_free(reach);
}

static bool path_selects(const char *dir, const char *pattern)
{
  size_t pl = strlen(pattern);

  if (!strcmp(pattern, "") || !strcmp(pattern, "."))
    return true; /* the directory nub runs in: everything under it */
  if (has_magic(pattern))
    return nub_workspace_glob_match(pattern, dir);
  return !strncmp(dir, pattern, pl) && (dir[pl] == '\0' || dir[pl] == '/');
}

int nub_workspace_select(const struct nub_workspace *ws, const char *root_name,
                         const struct nub_manifest *root_man, const char *cwd_rel,
                         char *const *sel, size_t nsel, bool *out, struct nub_err *err)
{
  size_t n = ws->npkgs + 1;
  bool any_include = false;
  bool *excl = nub_calloc(n, sizeof(bool));
  int rc = 0;

  (void)root_name;
  memset(out, 0, n * sizeof(bool));
  for (size_t k = 0; k < nsel && rc == 0; k++) {
    const char *s = sel[k];
    bool neg = s[0] == '!', with_deps = false, with_dependents = false, self = true;
    char core[1024];
    size_t len;
    bool *hit = nub_calloc(n, sizeof(bool)), matched = false;
    if (neg)
      s++;
    if (!strncmp(s, "...", 3)) {
      with_dependents = true;
      s += 3;
      if (*s == '^') {
        self = false;
        s++;
      }
    }
    snprintf(core, sizeof(core), "%s", s);
    len = strlen(core);
    if (len >= 3 && !strcmp(core + len - 3, "...")) {
      with_deps = true;
      core[len -= 3] = '\0';
      if (len && core[len - 1] == '^') {
        self = false;
        core[--len] = '\0';
      }
    }
    if (core[0] == '{' && len > 1 && core[len - 1] == '}') { /* {path} */
      memmove(core, core + 1, len - 2);
      core[len - 2] = '\0';
      len -= 2;
    }
    if (core[0] == '.' || (strchr(core, '/') != NULL && core[0] != '@')) {
      /* a path, relative to where nub runs */
      char joined[2048], norm[2048];
      const char *p = core;
      while (p[0] == '.' && p[1] == '/')
        p += 2;
      if (!strcmp(p, "."))
        p = "";
      snprintf(joined, sizeof(joined), "%s%s%s", cwd_rel, cwd_rel[0] && p[0] ? "/" : "", p);
      if (nub_path_normalize(joined, norm, sizeof(norm)) < 0)
        snprintf(norm, sizeof(norm), "%s", joined);
      for (size_t i = 0; i < n; i++) {
        const char *dir = i ? ws->pkgs[i - 1].dir : "";
        if (i == 0 ? !norm[0] || !strcmp(norm, ".") : path_selects(dir, norm))
          hit[i] = matched = true;
      }
    } else {
      for (size_t i = 0; i < n; i++) {
        const char *name = project_man(ws, root_man, i)->name;
        if (name && fnmatch(core, name, 0) == 0)
          hit[i] = matched = true;
      }
    }
    if (!matched) {
      rc = nub_err_set(err, -NUB_EWORKSPACE,
                       "--filter %s matches no package of the workspace (%zu packages; a "
                       "name, a glob of names, or a path like ./packages/x)", sel[k], n);
    } else {
      bool *set = nub_calloc(n, sizeof(bool));
      if (self)
        memcpy(set, hit, n * sizeof(bool));
      if (with_deps)
        close_over(ws, root_man, set, hit, true);
      if (with_dependents)
        close_over(ws, root_man, set, hit, false);
      for (size_t i = 0; i < n; i++)
        if (set[i]) {
          if (neg)
            excl[i] = true;
          else
            out[i] = true;
        }
      nub_free(set);
      any_include = any_include || !neg;
    }
    nub_free(hit);
  }
  if (rc == 0 && !any_include) /* only exclusions: from everything */
    for (size_t i = 0; i < n; i++)
      out[i] = true;
  for (size_t i = 0; i < n; i++)
    if (excl[i])
      out[i] = false;
  nub_free(excl);
  return rc;
}

void nub_workspace_release(struct nub_workspace *ws)
{
  nub_free(ws->root);
  nub_strarray_free(ws->globs, ws->nglobs);
  for (size_t i = 0; i < ws->npkgs; i++) {
    nub_free(ws->pkgs[i].dir);
    nub_manifest_release(&ws->pkgs[i].man);
  }
  nub_free(ws->pkgs);
  nub_catalogs_free(ws->catalogs, ws->ncatalogs);
  nub_depmap_release(&ws->overrides);
  nub_depmap_release(&ws->settings);
  release_exts(ws);
  nub_strarray_free(ws->only_built, ws->nonly_built);
  nub_strarray_free(ws->age_exclude, ws->nage_exclude);
  nub_strarray_free(ws->trust_exclude, ws->ntrust_exclude);
  nub_depmap_release(&ws->allow_builds);
  nub_depmap_release(&ws->patched);
  nub_strarray_free(ws->peer_ignore_missing, ws->npeer_ignore_missing);
  nub_strarray_free(ws->peer_allow_any, ws->npeer_allow_any);
  nub_depmap_release(&ws->peer_allowed);
  nub_strarray_free(ws->warnings, ws->nwarnings);
  nub_strarray_free(ws->unapplied, ws->nunapplied);
  memset(ws, 0, sizeof(*ws));
}
