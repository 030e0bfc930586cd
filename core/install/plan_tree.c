/* plan_tree.c - the plan from a lockfile that is a tree: package-lock.json
 * or npm-shrinkwrap.json (v1-v3) and bun.lock. The tree is installed as it
 * is; it must still answer package.json (sync.h, npm's rule), or the
 * install stops naming the dependency, under --frozen-lockfile (nub ci, CI).
 * Otherwise, as `npm install` and `bun install` do, a lockfile that no
 * longer matches is resolved again and written back: package-lock.json v3,
 * or bun.lock, which is then read back as the tree to install (the tree
 * bun builds from the file nub wrote). */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "diag.h"
#include "install_ctx.h"
#include "lockfile_bun.h"
#include "hoist_npm.h"
#include "tree_graph.h"
#include "workspace.h"
#include "lockfile_npm.h"
#include "npm_edit.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "plan.h"
#include "resolve.h"
#include "semver.h"
#include "strmap.h"
#include "sync.h"
#include "text.h"

/* The lockfile's answer for each direct dependency of one importer (the
 * project, from = -1, or a workspace member's folder node): the node Node
 * finds from there and the spec the lockfile recorded. */
static bool importer_in_sync(struct nub_install_ctx *c, const struct nub_manifest *man,
                             long from, const struct nub_depmap *const locked[4], char *why,
                             size_t cap)
{
  const struct nub_tree *t = &c->plan.tree;
  const struct nub_depmap *maps[3] = {&man->deps, &man->dev, &man->optional};
  struct nub_locked *l;
  size_t n = 0, max = 0;
  bool ok;

  for (int k = 0; k < 3; k++)
    max += maps[k]->n;
  for (int k = 0; k < 4; k++)
    max += locked[k]->n;
  l = nub_calloc(max + 1, sizeof(*l));
  for (int k = 0; k < 7; k++) {
    const struct nub_depmap *m = k < 3 ? maps[k] : locked[k - 3];
    for (size_t i = 0; i < m->n; i++) {
      const char *alias = m->v[i].name;
      long ni;
      bool dup = false;
      for (size_t j = 0; j < n && !dup; j++)
        dup = !strcmp(l[j].alias, alias);
      if (dup)
        continue;
      l[n].alias = alias;
      for (int q = 0; q < 4 && !l[n].spec; q++)
        l[n].spec = nub_depmap_get(locked[q], alias);
      /* the root's peers are not dependencies package.json must list */
      l[n].listed = nub_depmap_get(locked[0], alias) || nub_depmap_get(locked[1], alias) ||
                    nub_depmap_get(locked[2], alias);
      ni = nub_tree_resolve(t, from, alias); /* node_modules/<alias>, seen from there */
      /* a member's dependency the lockfile does not record for it is missing,
       * whatever the hoisting put within its reach */
      if (from >= 0 && !l[n].spec)
        ni = -1;
      if (ni >= 0) {
        const struct nub_node *nd = &t->nodes[ni];
        l[n].present = true;
        if (nd->pkg) {
          l[n].name = nd->pkg->name;
          l[n].version = nd->pkg->version;
        } else if ((nd->flags & NUB_NF_LINK) && nd->link_target) {
          /* a link to a workspace member: the member's own version answers
           * the range, as npm ci takes it */
          const struct nub_ws_pkg *wp = nub_workspace_at(&c->s->ws, nd->link_target);
          if (wp && wp->man.name && wp->man.version) {
            l[n].name = wp->man.name;
            l[n].version = wp->man.version;
          }
        }
      }
      n++;
    }
  }
  ok = nub_sync_check(man, l, n, NUB_SYNC_SATISFIES, why, cap);
  nub_free(l);
  return ok;
}

static int cmp_dep(const void *a, const void *b)
{
  const struct nub_dep *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : strcmp(x->spec, y->spec);
}

/* Whether the lockfile's overrides are what package.json asks for now. */
static bool overrides_in_sync(const struct nub_manifest *m, const struct nub_tree *t)
{
  struct nub_depmap want;
  struct nub_dep *have;
  bool same;

  if (m->overrides_deep)
    return false; /* what nub cannot write: said when it tries */
  nub_lockfile_bun_overrides(m, &want);
  same = want.n == t->overrides.n;
  have = nub_calloc(t->overrides.n + 1, sizeof(*have));
  if (t->overrides.n)
    memcpy(have, t->overrides.v, t->overrides.n * sizeof(*have));
  nub_sort(have, t->overrides.n, sizeof(*have), cmp_dep);
  nub_sort(want.v, want.n, sizeof(*want.v), cmp_dep);
  for (size_t i = 0; same && i < want.n; i++)
    same = !cmp_dep(&want.v[i], &have[i]);
  nub_free(have);
  nub_depmap_release(&want);
  return same;
}

/* Whether bun.lock's patches are package.json's, in order (as bun writes
 * them anew when they are not). */
static bool patched_in_sync(const struct nub_manifest *m, const struct nub_tree *t)
{
  if (m->patched.n != t->patched.n)
    return false;
  for (size_t i = 0; i < m->patched.n; i++)
    if (strcmp(m->patched.v[i].name, t->patched.v[i].name) ||
        strcmp(m->patched.v[i].spec, t->patched.v[i].spec))
      return false;
  return true;
}

/* Whether package-lock.json records, for each package the project patches,
 * npm 12's "patched" of that patch file, and no other. */
static bool npm_patched_in_sync(struct nub_install_ctx *c, const struct nub_tree *t)
{
  size_t want = 0;

  for (size_t i = 0; i < t->n; i++) {
    const struct nub_node *n = &t->nodes[i];
    struct nub_patch_rule *r;
    const char *have;
    char key[600];
    struct nub_err e;
    int rc;
    if (!n->pkg || !c->patches.n)
      continue;
    snprintf(key, sizeof(key), "%s@%s", n->pkg->name, n->pkg->version);
    have = nub_depmap_get(&t->patched, key);
    r = nub_patches_find(&c->patches, n->pkg->name, n->pkg->version, &rc, &e);
    if (!r)
      continue;
    want++;
    if (!have || strncmp(have, r->sri, strlen(r->sri)) || have[strlen(r->sri)] != ' ' ||
        strcmp(have + strlen(r->sri) + 1, r->file))
      return false;
  }
  return want == t->patched.n;
}

/* The project and every workspace member: each answered by the lockfile,
 * and the lockfile's members the workspace's. */
static int lock_text(struct nub_install_ctx *c, bool bun, char **text, size_t *len,
                     bool *merged, struct nub_err *err);

/* Adds to `names` the entries of ext's map that the locked entry's map
 * `field` (its info object) has with the extension's range: bun's record
 * of what an extension added (the manifest's own entry wins, and is not
 * recorded). One the entry lacks altogether: false (bun would add it). */
static bool ext_names(const struct nub_depmap *ext, const cJSON *info, const char *field,
                      cJSON *names)
{
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(info, field);
  bool all = true;

  for (size_t i = 0; i < ext->n; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, ext->v[i].name);
    if (cJSON_IsString(v) && !strcmp(v->valuestring, ext->v[i].spec))
      cJSON_AddItemToArray(names, cJSON_CreateString(ext->v[i].name));
    else if (!v)
      all = false;
  }
  return all;
}

/* Whether bun.lock's "packageExtensions" record is what package.json's
 * packageExtensions make of its packages now ("packageExtensions in
 * package.json changed since bun.lock was saved", bun says otherwise). */
static bool bun_exts_in_sync(struct nub_install_ctx *c)
{
  const struct nub_manifest *m = &c->s->man;
  const struct nub_tree *t = &c->plan.tree;
  struct nub_strmap infos = {0};
  struct nub_err e;
  char *text = NULL;
  size_t len = 0, npred = 0;
  bool ok = true;

  if (!m->npkg_exts && !t->pkg_exts.n)
    return true;
  if (lock_text(c, true, &text, &len, &(bool){false}, &e) < 0 ||
      nub_lockfile_bun_infos(text, len, c->plan.lockname, &infos, &e) < 0) {
    nub_free(text);
    nub_strmap_release(&infos, nub_free);
    return false;
  }
  nub_free(text);
  for (size_t i = 0; ok && i < c->plan.pkgs.n; i++) {
    const struct nub_pkg *p = c->plan.pkgs.v[i];
    char key[600];
    const char *info_text, *rec;
    cJSON *info, *pred, *deps, *peers, *was;
    bool any = false;
    snprintf(key, sizeof(key), "%s@%s", p->name, p->version);
    for (size_t k = 0; k < m->npkg_exts && !any; k++)
      any = !strcmp(m->pkg_exts[k].name, p->name);
    rec = nub_depmap_get(&t->pkg_exts, key);
    if (!any && !rec)
      continue;
    info_text = nub_strmap_get(&infos, key);
    info = info_text ? cJSON_Parse(info_text) : NULL;
    pred = cJSON_CreateObject();
    deps = cJSON_CreateArray();
    peers = cJSON_CreateArray();
    for (int pass = 0; pass < 2; pass++)
      for (size_t k = 0; k < m->npkg_exts; k++) {
        const struct nub_pkg_ext *x = &m->pkg_exts[k];
        if (strcmp(x->name, p->name) ||
            (x->range && nub_semver_satisfies(x->range, p->version, false) != 1))
          continue;
        ok = ext_names(pass ? &x->optional : &x->deps, info,
                       pass ? "optionalDependencies" : "dependencies", deps) && ok;
        if (pass)
          ok = ext_names(&x->peers, info, "peerDependencies", peers) && ok;
      }
    if (cJSON_GetArraySize(deps))
      cJSON_AddItemToObject(pred, "dependencies", deps);
    else
      cJSON_Delete(deps);
    if (cJSON_GetArraySize(peers))
      cJSON_AddItemToObject(pred, "peerDependencies", peers);
    else
      cJSON_Delete(peers);
    was = rec ? cJSON_Parse(rec) : cJSON_CreateObject();
    ok = ok && cJSON_Compare(pred, was, true);
    npred += cJSON_GetArraySize(pred) > 0;
    cJSON_Delete(was);
    cJSON_Delete(pred);
    cJSON_Delete(info);
  }
  nub_strmap_release(&infos, nub_free);
  return ok && npred == t->pkg_exts.n;
}

static bool in_sync(struct nub_install_ctx *c, char *why, size_t cap)
{
  const struct nub_tree *t = &c->plan.tree;
  const struct nub_depmap *root[4] = {&t->root_deps, &t->root_dev, &t->root_optional,
                                      &t->root_peer};

  if (!importer_in_sync(c, &c->s->man, -1, root, why, cap))
    return false;
  if (t->has_overrides && !overrides_in_sync(&c->s->man, t)) {
    snprintf(why, cap, "its overrides are not package.json's");
    return false;
  }
  if (t->has_overrides && !patched_in_sync(&c->s->man, t)) {
    snprintf(why, cap, "its patchedDependencies are not package.json's");
    return false;
  }
  if (t->npm_patches && !npm_patched_in_sync(c, t)) {
    snprintf(why, cap, "the patches it records are not package.json's patchedDependencies");
    return false;
  }
  if (!strcmp(c->s->proj.fmt->name, "bun") && !bun_exts_in_sync(c)) {
    snprintf(why, cap, "package.json's packageExtensions changed since it was written");
    return false;
  }
  for (size_t i = 0; i < c->s->ws.npkgs; i++) {
    const struct nub_ws_pkg *m = &c->s->ws.pkgs[i];
    long ni = nub_tree_lookup(t, m->dir);
    const struct nub_node *nd = ni >= 0 ? &t->nodes[ni] : NULL;
    const struct nub_depmap *specs[4];
    char inner[512];
    if (!nd || !(nd->flags & NUB_NF_LOCAL) || !nd->member_specs) {
      snprintf(why, cap, "the workspace package %s is not in it", m->dir);
      return false;
    }
    for (int k = 0; k < 4; k++)
      specs[k] = &nd->member_specs[k];
    if (!importer_in_sync(c, &m->man, ni, specs, inner, sizeof(inner))) {
      snprintf(why, cap, "%s/package.json: %s", m->dir, inner);
      return false;
    }
  }
  for (size_t i = 0; i < t->n; i++)
    if ((t->nodes[i].flags & NUB_NF_LOCAL) && t->nodes[i].member_specs &&
        !nub_workspace_at(&c->s->ws, t->nodes[i].path)) {
      snprintf(why, cap, "it has the workspace package %s, which the workspace no longer "
               "lists", t->nodes[i].path);
      return false;
    }
  return true;
}


/* Whether the project's entry in the lockfile records package.json's
 * specs as they are now, section by section: a dependency added that the
 * tree already holds (so the tree answers it) still changes that entry,
 * and npm and bun write it when they install. */
static bool root_specs_stale(const struct nub_install_ctx *c, char *why, size_t cap)
{
  const struct nub_tree *t = &c->plan.tree;
  const struct nub_depmap *want[3] = {&c->s->man.deps, &c->s->man.dev, &c->s->man.optional};
  const struct nub_depmap *have[3] = {&t->root_deps, &t->root_dev, &t->root_optional};
  static const char *const field[3] = {"dependencies", "devDependencies",
                                       "optionalDependencies"};

  if (!t->has_root_deps)
    return false;
  for (int k = 0; k < 3; k++)
    for (size_t i = 0; i < want[k]->n; i++) {
      const char *rec = nub_depmap_get(have[k], want[k]->v[i].name);
      if (!rec || strcmp(rec, want[k]->v[i].spec)) {
        snprintf(why, cap, "its project entry does not record %s %s@%s", field[k],
                 want[k]->v[i].name, want[k]->v[i].spec);
        return true;
      }
    }
  return false;
}

/* Resolve again from the lockfile's tree: its versions are kept where they
 * still satisfy; the plan's tree is emptied for the caller to place. */
static int resolve_again(struct nub_install_ctx *c, const char *why, struct nub_err *err)
{
  struct nub_plan *p = &c->plan;
  struct nub_graph prev;
  int rc;

  nub_diag_debugf("re-resolving %s: %s", p->lockname, why);
  nub_graph_init(&prev);
  /* every pin the file records is one to keep, this machine's or not: a
   * package only another platform's package needs (bun.lock's wasm32
   * bindings' runtime) keeps its version too, as bun keeps it */
  for (size_t i = 0; i < p->tree.n; i++)
    p->tree.nodes[i].skip = false;
  rc = nub_graph_from_tree(&prev, &p->tree, &c->s->man, c->s->ws.source ? &c->s->ws : NULL, err);
  nub_tree_release(&p->tree);
  nub_tree_init(&p->tree, &p->pkgs);
  nub_graph_init(&p->graph);
  p->have_graph = true;
  if (rc == 0)
    rc = nub_plan_resolve(c, &prev, err);
  nub_graph_release(&prev);
  return rc;
}

struct npm_picker {
  struct nub_meta *meta;
  const struct nub_age_gate *gate;
};

/* The registry's version for a spec, as the resolver picks it. One the
 * gate refuses, or none at all, is left to the whole resolve, which says
 * so in its own words (npm_edit.h's -NUB_ESPEC). */
static int npm_pick(void *ud, const char *name, const char *spec, const struct nub_pversion **out,
                    struct nub_err *err)
{
  struct npm_picker *x = ud;
  const struct nub_packument *doc;
  int rc = nub_meta_get(x->meta, name, &doc, err);

  if (rc < 0)
    return rc;
  *out = nub_resolve_choose(doc, spec, x->gate);
  if (!*out)
    return nub_err_set(err, -NUB_ESPEC, "no version of %s for %s here", name, spec);
  return 0;
}

/* The lockfile's text, and whether it had git's merge-conflict markers:
 * then (never frozen) both sides merged, npm's rule for both formats (bun
 * has none: bun 1.4 ignores such a file and resolves afresh). */
static int lock_text(struct nub_install_ctx *c, bool bun, char **text, size_t *len,
                     bool *merged, struct nub_err *err)
{
  int rc = nub_project_read_lockfile(&c->s->proj, &c->s->cfg, text, len, err);
  struct nub_buf b = NUB_BUF_INIT;

  *merged = false;
  if (rc < 0 || c->frozen || !nub_text_conflict_marker(*text, *len, &(size_t){0}))
    return rc;
  rc = bun ? nub_bun_unconflict(*text, *len, c->plan.lockname, &b, err)
           : nub_npm_unconflict(*text, *len, c->plan.lockname, &b, err);
  nub_free(*text);
  *len = b.len;
  *text = nub_buf_take(&b);
  *merged = rc == 0;
  return rc;
}

/* npm install's own answer (npm_edit.h): the lockfile's tree changed only
 * where package.json asks, written back and read as the tree to install.
 * 1: a change the edit does not cover (the caller resolves afresh). */
static int edit_npm(struct nub_install_ctx *c, const char *why, struct nub_err *err)
{
  struct nub_plan *p = &c->plan;
  struct nub_meta_opts mo = {c->o->offline, c->o->prefer_offline, 0, false};
  struct nub_npm_edit_opts eo;
  struct npm_picker pk = {NULL, NULL};
  struct nub_age_gate gate;
  struct nub_buf b = NUB_BUF_INIT;
  const char *base = strrchr(c->s->proj.dir, '/');
  char *text = NULL;
  size_t len = 0;
  int rc;

  if (c->o->update_all)
    return 1;
  rc = nub_age_gate_load(&gate, &c->s->cfg, c->s->ws.source ? &c->s->ws : NULL, c->s->proj.dir,
                         c->s->proj.fmt, err);
  if (rc < 0)
    return rc;
  mo.times_after = gate.cutoff;
  mo.full = true;
  rc = nub_meta_new(&pk.meta, &c->s->cfg, c->pool, &c->prog, &mo, err);
  if (rc == 0)
    rc = lock_text(c, false, &text, &len, &(bool){false}, err);
  if (rc == 0) {
    memset(&eo, 0, sizeof(eo));
    pk.gate = &gate;
    eo.root = &c->s->man;
    eo.ws = c->s->ws.source ? &c->s->ws : NULL;
    eo.dir_name = base ? base + 1 : c->s->proj.dir;
    eo.update = c->o->update;
    eo.nupdate = c->o->nupdate;
    eo.requested = c->o->requested;
    eo.nrequested = c->o->nrequested;
    eo.omit_resolved = nub_config_bool(&c->s->cfg, "omit-lockfile-registry-resolved", false);
    eo.pick = npm_pick;
    eo.ud = &pk;
    nub_diag_debugf("updating %s as npm does: %s", p->lockname, why);
    rc = nub_npm_edit(text, len, p->lockname, &eo, &b, err);
    if (rc == -NUB_ESPEC) {
      nub_diag_debugf("%s; resolving afresh", err->msg);
      nub_err_clear(err);
      rc = 1;
    }
  }
  nub_free(text);
  if (pk.meta)
    nub_meta_free(pk.meta);
  nub_age_gate_release(&gate);
  if (rc == 0) {
    nub_tree_release(&p->tree);
    nub_tree_init(&p->tree, &p->pkgs);
    rc = nub_lockfile_npm_parse(&p->tree, b.data, b.len, p->lockname, &c->s->cfg, err);
  }
  if (rc == 0)
    rc = nub_plan_stage_lock(c, &b, err);
  nub_buf_release(&b);
  return rc;
}

/* npm install's answer to a lockfile that no longer matches: the edit
 * above; else resolve again, place the result npm's way and write
 * package-lock.json back (v3). */
static int re_resolve_npm(struct nub_install_ctx *c, const char *why, struct nub_err *err)
{
  struct nub_plan *p = &c->plan;
  int rc = edit_npm(c, why, err);

  if (rc <= 0)
    return rc;
  rc = resolve_again(c, why, err);

  if (rc == 0)
    rc = nub_tree_from_graph(&p->tree, &p->graph, c->s->ws.source ? &c->s->ws : NULL, &c->s->cfg, err);
  if (rc == 0) {
    struct nub_buf b = NUB_BUF_INIT;
    nub_lockfile_npm_write(&c->plan.tree, &c->plan.graph, &c->s->man,
                           c->s->ws.source ? &c->s->ws : NULL, &c->patches, &b);
    rc = nub_plan_stage_lock(c, &b, err);
  }
  return rc;
}

/* bun install's answer: resolve again, keeping the lockfile's versions
 * where they still satisfy, place the result bun's way, write bun.lock, and
 * install what it says (the written bytes parsed again: the tree bun
 * builds from them). */
static int re_resolve_bun(struct nub_install_ctx *c, const char *why, struct nub_err *err)
{
  struct nub_plan *p = &c->plan;
  struct nub_buf b = NUB_BUF_INIT;
  int version = p->tree.lockfile_version, config_version = p->tree.config_version;
  struct nub_strmap kept = {0};
  char *text = NULL;
  size_t len = 0;
  int rc = lock_text(c, true, &text, &len, &(bool){false}, err);

  if (rc == 0)
    rc = nub_lockfile_bun_infos(text, len, p->lockname, &kept, err);
  nub_free(text);
  /* a package an extension changed, or changes now, is written from its
   * manifest as extended now, not as the file had it */
  for (size_t i = 0; rc == 0 && i < p->tree.pkg_exts.n; i++)
    nub_free(nub_strmap_put(&kept, p->tree.pkg_exts.v[i].name, NULL));
  if (rc == 0)
    rc = resolve_again(c, why, err);
  for (size_t i = 0; rc == 0 && i < p->graph.npkgs; i++)
    if (p->graph.pkgs[i]->ext_applied && p->graph.pkgs[i]->pkg_key)
      nub_free(nub_strmap_put(&kept, p->graph.pkgs[i]->pkg_key, NULL));
  if (rc == 0)
    rc = nub_lockfile_bun_write(&p->graph, &c->s->man, c->s->ws.source ? &c->s->ws : NULL, &c->s->cfg,
                                version, config_version, &kept, &b, err);
  nub_strmap_release(&kept, nub_free);
  if (rc == 0) {
    struct nub_bun_layout lay = {&c->s->man, c->s->ws.source ? &c->s->ws : NULL};
    rc = nub_lockfile_bun_read(&p->tree, b.data, b.len, p->lockname, &c->s->cfg, &lay, err);
  }
  if (rc == 0)
    rc = nub_plan_stage_lock(c, &b, err);
  nub_buf_release(&b);
  return rc;
}

/* npm's or bun's lockfile: a tree (bun: bun.lock's rules). */
static int from_tree(struct nub_install_ctx *c, bool bun, struct nub_err *err)
{
  struct nub_plan *p = &c->plan;
  char *text = NULL, why[512];
  size_t len = 0;
  bool merged;
  int rc;

  p->lockname = c->s->proj.lockfile;
  /* a merge conflict: both sides, then brought in line with package.json
   * and written back (a frozen install refuses it) */
  rc = lock_text(c, bun, &text, &len, &merged, err);
  if (rc < 0)
    return rc;
  nub_tree_init(&p->tree, &p->pkgs);
  p->have_tree = true;
  if (bun) {
    struct nub_bun_layout lay = {&c->s->man, c->s->ws.source ? &c->s->ws : NULL};
    rc = nub_lockfile_bun_read(&p->tree, text, len, p->lockname, &c->s->cfg, &lay, err);
  } else
    rc = nub_lockfile_npm_parse(&p->tree, text, len, p->lockname, &c->s->cfg, err);
  nub_free(text);
  if (rc < 0)
    return rc;
  if (merged) {
    nub_install_warn_unconflict(c, bun ? "the pins of both kept, where bun 1.4 would drop the "
                                         "file and resolve afresh"
                                       : "as npm merges them");
    return bun ? re_resolve_bun(c, "it has merge-conflict markers", err)
               : re_resolve_npm(c, "it has merge-conflict markers", err);
  }
  if (c->o->frozen == NUB_FROZEN_NO || c->o->nupdate || c->o->update_all) {
    const char *w = c->o->frozen == NUB_FROZEN_NO ? "--no-frozen-lockfile" : "update";
    return bun ? re_resolve_bun(c, w, err) : re_resolve_npm(c, w, err);
  }
  if (in_sync(c, why, sizeof(why))) {
    /* (a frozen install takes the tree as it is, as npm ci does) */
    if (c->frozen || !root_specs_stale(c, why, sizeof(why)))
      return 0;
    return bun ? re_resolve_bun(c, why, err) : re_resolve_npm(c, why, err);
  }
  if (c->frozen)
    return nub_err_set(err, -NUB_EOUTDATED,
                       "%s is out of date with package.json: %s; run `nub install` or `%s` "
                       "to update it (or delete %s and let nub resolve)", p->lockname, why,
                       c->s->proj.fmt->install_cmd, p->lockname);
  return bun ? re_resolve_bun(c, why, err) : re_resolve_npm(c, why, err);
}

int nub_plan_from_npm(struct nub_install_ctx *c, struct nub_err *err)
{
  return from_tree(c, false, err);
}

int nub_plan_from_bun(struct nub_install_ctx *c, struct nub_err *err)
{
  return from_tree(c, true, err);
}
