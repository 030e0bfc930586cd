/* lockfile_npm_write.c - package-lock.json v3 from a tree placed from a
 * graph (lockfile_npm.h). The document is built with cJSON and printed as
 * npm prints it (nub_npm_stringify: its key order). */
#include <string.h>

#include "graph.h"
#include "json.h"
#include "lockfile_npm.h"
#include "npm_edit.h"

#include "patches.h"
#include "nub_alloc.h"
#include "workspace.h"

/* ---- building ---------------------------------------------------------------- */

static void add_map(cJSON *o, const char *key, const struct nub_depmap *m)
{
  cJSON *x;

  if (!m->n)
    return;
  x = cJSON_AddObjectToObject(o, key);
  for (size_t i = 0; i < m->n; i++)
    cJSON_AddStringToObject(x, m->v[i].name, m->v[i].spec);
}

static void add_list(cJSON *o, const char *key, char *const *v, size_t n)
{
  cJSON *a;

  if (!n)
    return;
  a = cJSON_AddArrayToObject(o, key);
  for (size_t i = 0; i < n; i++)
    cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
}

/* The manifest's dependency maps, as the root's and each member's entry
 * repeat them. */
static void add_manifest_deps(cJSON *o, const struct nub_manifest *m)
{
  add_map(o, "dependencies", &m->deps);
  add_map(o, "devDependencies", &m->dev);
  add_map(o, "optionalDependencies", &m->optional);
  add_map(o, "peerDependencies", &m->peer);
}

enum { R_PROD = 1, R_REQ = 2, R_DEV = 4 };

/* npm's flags: what the production dependencies reach (R_PROD), through
 * required edges only (R_REQ), and what the dev dependencies reach. */
static unsigned char *reach_flags(const struct nub_graph *g)
{
  unsigned char *mark = nub_calloc(g->npkgs + 1, 1);
  size_t *stack = nub_calloc(g->npkgs + 1, sizeof(size_t));

  for (int pass = 0; pass < 3; pass++) {
    unsigned char bit = pass == 0 ? R_PROD : pass == 1 ? R_REQ : R_DEV;
    size_t sp = 0;
    for (size_t m = 0; m < g->nimporters; m++) {
      const struct nub_importer *im = &g->importers[m];
      for (int k = 0; k < NUB_DEP_KINDS; k++) {
        const struct nub_gdirect *d;
        size_t n = nub_importer_directs(im, k, &d);
        if ((pass == 2) != (k == NUB_DEP_DEV) || (pass == 1 && k == NUB_DEP_OPTIONAL))
          continue;
        for (size_t i = 0; i < n; i++) {
          char *t = nub_gedge_target(d[i].alias, d[i].ref);
          struct nub_gpkg *p = t ? nub_graph_find(g, t) : NULL;
          nub_free(t);
          if (p && !(mark[p->index] & bit)) {
            mark[p->index] |= bit;
            stack[sp++] = p->index;
          }
        }
      }
    }
    while (sp) {
      const struct nub_gpkg *p = g->pkgs[stack[--sp]];
      size_t ne = p->ndeps + (pass == 1 ? 0 : p->noptional_deps);
      for (size_t e = 0; e < ne; e++) {
        const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
        char *t = nub_gedge_target(ed->alias, ed->ref);
        struct nub_gpkg *q = t ? nub_graph_find(g, t) : NULL;
        nub_free(t);
        if (q && !(mark[q->index] & bit)) {
          mark[q->index] |= bit;
          stack[sp++] = q->index;
        }
      }
    }
  }
  nub_free(stack);
  return mark;
}

static bool add_package(cJSON *e, const struct nub_node *nd, const struct nub_gpkg *p,
                        unsigned char mark, struct nub_patches *patches)
{
  struct nub_patch_rule *r = NULL;
  int prc;
  struct nub_err perr;

  const char *folder = nd->folder ? nd->folder : "";

  if (strcmp(folder, p->name))
    cJSON_AddStringToObject(e, "name", p->name); /* an npm: alias */
  cJSON_AddStringToObject(e, "version", p->version);
  if (nd->pkg && nd->pkg->tarball)
    cJSON_AddStringToObject(e, "resolved", nd->pkg->tarball);
  if (p->integrity)
    cJSON_AddStringToObject(e, "integrity", p->integrity);
  if (!(mark & R_REQ)) {
    bool prod = mark & R_PROD, dev = mark & R_DEV;
    if (dev && !prod)
      cJSON_AddTrueToObject(e, "dev");
    else if (prod && !dev)
      cJSON_AddTrueToObject(e, "optional");
    else if (prod && dev)
      cJSON_AddTrueToObject(e, "devOptional");
  }
  if (p->requires_build)
    cJSON_AddTrueToObject(e, "hasInstallScript");
  add_map(e, "bin", &p->bins); /* npm ci links bins from these */
  add_map(e, "engines", &p->engines);
  add_list(e, "os", p->os, p->nos);
  add_list(e, "cpu", p->cpu, p->ncpu);
  add_list(e, "libc", p->libc, p->nlibc);
  if (p->deprecated)
    cJSON_AddStringToObject(e, "deprecated", p->deprecated);
  add_map(e, "dependencies", &p->dep_specs);
  add_map(e, "optionalDependencies", &p->opt_specs);
  add_map(e, "peerDependencies", &p->peers);
  if (p->npeers_optional) {
    cJSON *meta = cJSON_AddObjectToObject(e, "peerDependenciesMeta");
    for (size_t i = 0; i < p->npeers_optional; i++)
      cJSON_AddTrueToObject(cJSON_AddObjectToObject(meta, p->peers_optional[i]), "optional");
  }
  add_list(e, "bundleDependencies", p->bundled, p->nbundled);
  if (patches && patches->n && (r = nub_patches_find(patches, p->name, p->version, &prc, &perr))) {
    cJSON *pa = cJSON_AddObjectToObject(e, "patched");
    cJSON_AddStringToObject(pa, "integrity", r->sri);
    cJSON_AddStringToObject(pa, "path", r->file);
  }
  return r != NULL;
}

void nub_lockfile_npm_write(const struct nub_tree *t, const struct nub_graph *g,
                            const struct nub_manifest *root, const struct nub_workspace *ws,
                            struct nub_patches *patches, struct nub_buf *out)
{
  cJSON *doc = cJSON_CreateObject(), *pk, *re, *ver;
  unsigned char *mark = reach_flags(g);
  bool patched = false;

  if (root->name)
    cJSON_AddStringToObject(doc, "name", root->name);
  if (root->version)
    cJSON_AddStringToObject(doc, "version", root->version);
  ver = cJSON_AddNumberToObject(doc, "lockfileVersion", 3);
  cJSON_AddTrueToObject(doc, "requires");
  pk = cJSON_AddObjectToObject(doc, "packages");
  re = cJSON_AddObjectToObject(pk, "");
  if (root->name)
    cJSON_AddStringToObject(re, "name", root->name);
  if (root->version)
    cJSON_AddStringToObject(re, "version", root->version);
  if (ws && ws->source && !strcmp(ws->source, "package.json"))
    add_list(re, "workspaces", ws->globs, ws->nglobs);
  add_manifest_deps(re, root);
  /* nodes in path order (the tree is sorted), members' folders with them */
  for (size_t i = 0; i < t->n; i++) {
    const struct nub_node *nd = &t->nodes[i];
    cJSON *e;
    if (nd->skip)
      continue;
    e = cJSON_AddObjectToObject(pk, nd->path);
    if (nd->flags & NUB_NF_LOCAL) {
      const struct nub_ws_pkg *m = ws ? nub_workspace_at(ws, nd->path) : NULL;
      if (m) {
        if (m->man.name)
          cJSON_AddStringToObject(e, "name", m->man.name);
        if (m->man.version)
          cJSON_AddStringToObject(e, "version", m->man.version);
        if (m->man.nbins) { /* npm links a member's bins from its entry */
          cJSON *b = cJSON_AddObjectToObject(e, "bin");
          for (size_t k = 0; k < m->man.nbins; k++)
            cJSON_AddStringToObject(b, m->man.bins[k].name, m->man.bins[k].target);
        }
        add_manifest_deps(e, &m->man);
      }
    } else if (nd->flags & NUB_NF_LINK) {
      cJSON_AddStringToObject(e, "resolved", nd->link_target);
      cJSON_AddTrueToObject(e, "link");
    } else if (nd->gpkg) {
      patched |= add_package(e, nd, nd->gpkg, mark[nd->gpkg->index], patches);
    }
  }
  if (patched) /* npm 12 marks a lockfile with patches so */
    cJSON_SetNumberValue(ver, 4);
  nub_npm_stringify(doc, out);
  nub_free(mark);
  cJSON_Delete(doc);
}
