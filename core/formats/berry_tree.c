/* berry_tree.c - yarn berry's yarn.lock as a tree of the hoisted layout
 * (tree.h): the places berry.h finds, with each package's registry
 * identity, bins and links; for the install (plan_berry.c) and for the
 * commands that read the lockfile (query.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "berry.h"
#include "config.h"
#include "diag.h"
#include "lockfile_berry.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "path.h"
#include "tree.h"
#include "workspace.h"
#include "yarnrc.h"

/* The version a reference installs from the registry ("npm:1.2.3", or a
 * compat patch of one), or NULL. Caller frees. */
static char *registry_version(const struct nub_berry_entry *e, char **archive_url)
{
  char *un = nub_berry_unpatched(e->reference);
  const char *ref = un ? un : e->reference;
  char *v = NULL;

  *archive_url = NULL;
  if (!strncmp(ref, "npm:", 4)) {
    const char *params = strstr(ref, "::");
    v = params ? nub_strndup(ref + 4, (size_t)(params - ref - 4)) : nub_strdup(ref + 4);
    /* a tarball somewhere else than the registry's usual path */
    if (params && (params = strstr(params, "__archiveUrl="))) {
      const char *end = strchr(params, '&');
      char *enc = end ? nub_strndup(params + 13, (size_t)(end - params - 13))
                      : nub_strdup(params + 13);
      size_t n = 0;
      for (size_t i = 0; enc[i]; i++) {
        if (enc[i] == '%' && enc[i + 1] && enc[i + 2]) {
          char hex[3] = {enc[i + 1], enc[i + 2], 0};
          enc[n++] = (char)strtol(hex, NULL, 16);
          i += 2;
        } else
          enc[n++] = enc[i];
      }
      enc[n] = '\0';
      *archive_url = enc;
    }
  }
  nub_free(un);
  return v;
}

static void add_bins(struct nub_node *nd, const struct nub_berry_entry *e)
{
  nd->bins = nub_calloc(e->bins.n + 1, sizeof(*nd->bins));
  for (size_t i = 0; i < e->bins.n; i++) {
    char name[256], target[4096];
    if (!nub_bin_name(e->bins.v[i].name, name, sizeof(name)) ||
        nub_path_normalize(e->bins.v[i].spec, target, sizeof(target)) < 0)
      continue; /* berry would not link it either */
    nd->bins[nd->nbins].name = nub_strdup(name);
    nd->bins[nd->nbins++].target = nub_strdup(target);
  }
  nd->bins_known = true;
}

static int linker_allowed(const struct nub_yarnrc *rc, bool linker_given, struct nub_err *err)
{
  const char *nl = rc->node_linker ? rc->node_linker : "pnp";

  if (!strcmp(nl, "node-modules") || linker_given)
    return 0;
  return nub_err_set(err, -NUB_ECONFIG,
                     "this yarn berry project installs with nodeLinker: %s (%s), which has no "
                     "node_modules; nub builds node_modules: set nodeLinker: node-modules in "
                     ".yarnrc.yml, or pass --node-linker hoisted",
                     nl, rc->node_linker_from ? rc->node_linker_from : "yarn's default");
}

/* url without its trailing slashes equals other's? */
static bool same_url(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);

  while (la && a[la - 1] == '/')
    la--;
  while (lb && b[lb - 1] == '/')
    lb--;
  return la == lb && !strncmp(a, b, la);
}

/* berry fetches from the registries .yarnrc.yml names, nub from those of
 * its npm configuration: where they differ for a package of the lockfile,
 * one name could be two packages (a private scope's taken from a public
 * registry), and berry's checksum, which would tell, is not the tarball's.
 * Refused, naming the setting to make. (Without npmRegistryServer berry
 * uses its public mirror of npm's registry: no difference there.) */
static int same_registries(const struct nub_yarnrc *rc, const struct nub_berry_lock *l,
                           const struct nub_config *cfg, struct nub_err *err)
{
  for (size_t i = 0; i < l->n; i++) {
    const struct nub_berry_entry *e = &l->v[i];
    const char *want = rc->registry, *have, *slash;
    char scope[256] = "";
    if (strncmp(e->reference, "npm:", 4) && !nub_berry_is_compat_patch(e->reference))
      continue;
    if (e->name[0] == '@' && (slash = strchr(e->name, '/')) &&
        (size_t)(slash - e->name) < sizeof(scope)) {
      snprintf(scope, sizeof(scope), "%.*s", (int)(slash - e->name - 1), e->name + 1);
      for (size_t k = 0; k < rc->nscopes; k++)
        if (!strcmp(rc->scopes[k], scope) && rc->scope_registries[k][0])
          want = rc->scope_registries[k];
    }
    if (!want)
      continue;
    have = nub_config_registry_for(cfg, e->name);
    if (have && same_url(want, have))
      continue;
    if (scope[0])
      return nub_err_set(err, -NUB_ECONFIG,
                         "yarn berry fetches @%s packages (%s) from %s (.yarnrc.yml), nub's npm "
                         "configuration from %s; set @%s:registry=%s in .npmrc (with its "
                         "token), so that both install the same packages",
                         scope, e->name, want, have ? have : "no registry", scope, want);
    return nub_err_set(err, -NUB_ECONFIG,
                       "yarn berry fetches packages (%s) from %s (.yarnrc.yml "
                       "npmRegistryServer), nub's npm configuration from %s; set registry=%s "
                       "in .npmrc, so that both install the same packages",
                       e->name, want, have ? have : "no registry", want);
  }
  return 0;
}

int nub_berry_tree(struct nub_tree *t, const char *text, size_t len,
                   const struct nub_berry_project *bp, struct nub_err *err)
{
  struct nub_berry_lock l;
  struct nub_yarnrc rc;
  struct nub_berry_opts o;
  struct nub_berry_ws *ws;
  struct nub_berry_place *places = NULL;
  size_t nmembers = bp->ws ? bp->ws->npkgs : 0, nws = 1 + nmembers, nplaces = 0;
  int r;

  r = nub_yarnrc_load(&rc, bp->dir, err);
  if (r < 0)
    return r;
  if (bp->scripts_off)
    *bp->scripts_off = rc.scripts_off;
  r = linker_allowed(&rc, bp->linker_given, err);
  if (r == 0)
    r = nub_lockfile_berry_parse(&l, text, len, bp->lockname, err);
  if (r < 0) {
    nub_yarnrc_release(&rc);
    return r;
  }
  r = same_registries(&rc, &l, bp->cfg, err);
  if (r < 0) {
    nub_berry_lock_release(&l);
    nub_yarnrc_release(&rc);
    return r;
  }
  nub_diag_debugf("yarn berry lockfile (version %d): its checksums hash yarn's own archives, "
                  "not the registry's tarballs; downloads are checked against the "
                  "registry's integrity", l.version);
  ws = nub_calloc(nws + 1, sizeof(*ws));
  ws[0].dir = "";
  ws[0].man = bp->root;
  for (size_t i = 0; i < nmembers; i++) {
    ws[i + 1].dir = bp->ws->pkgs[i].dir;
    ws[i + 1].man = &bp->ws->pkgs[i].man;
  }
  memset(&o, 0, sizeof(o));
  o.os = bp->os;
  o.cpu = bp->cpu;
  o.libc = bp->libc;
  o.hoisting_limits = rc.nm_hoisting_limits;
  o.no_self_references = !rc.nm_self_references;
  o.exts = rc.exts;
  o.nexts = rc.nexts;
  o.resolutions = bp->root->overrides.n ? &bp->root->overrides : NULL;
  {
    uint64_t t0 = nub_plat_now_ns();
    r = nub_berry_place(&l, ws, nws, &o, &places, &nplaces, err);
    nub_diag_debugf("yarn berry: %zu packages placed in %.1f ms", nplaces,
                    (double)(nub_plat_now_ns() - t0) / 1e6);
  }
  if (r == 0) {
    /* the members' folders hold what is placed under them */
    for (size_t i = 0; i < nmembers; i++) {
      size_t idx = nub_tree_add_node(t, bp->ws->pkgs[i].dir);
      t->nodes[idx].flags |= NUB_NF_LOCAL;
    }
    for (size_t i = 0; i < nplaces && r == 0; i++) {
      const struct nub_berry_place *pl = &places[i];
      size_t idx = nub_tree_add_node(t, pl->path);
      struct nub_node *nd = &t->nodes[idx];
      nd->order = pl->order;
      if (pl->optional)
        nd->flags |= pl->dev ? NUB_NF_DEV_OPTIONAL : NUB_NF_OPTIONAL;
      else if (pl->dev)
        nd->flags |= NUB_NF_DEV;
      nd->deps = pl->deps;
      nd->ndeps = pl->ndeps;
      places[i].deps = NULL;
      places[i].ndeps = 0;
      if (pl->ws >= 0 || (pl->entry && pl->entry->soft)) {
        if (!pl->link) {
          r = nub_err_set(err, -NUB_ESPEC, "%s: %s links a folder outside the project (%s); "
                          "nub links only the project's own folders", bp->lockname,
                          pl->entry->name, pl->entry->reference);
          break;
        }
        nd->link_target = nub_strdup(pl->link);
        nd->flags |= NUB_NF_LINK;
        continue;
      }
      {
        char *url = NULL, *version = registry_version(pl->entry, &url);
        char *patch = nub_berry_patch_file(pl->entry->reference);
        if (!patch && nub_berry_is_compat_patch(pl->entry->reference)) {
          /* berry's own patch of it, named as the reference names it */
          const char *b = strstr(pl->entry->reference, NUB_BERRY_BUILTIN);
          const char *e = b ? strchr(b, '>') : NULL;
          if (e)
            patch = nub_strndup(b, (size_t)(e - b + 1));
        }
        nd->pkg = bp->identity(bp->ud, pl->entry->name, version ? version : pl->entry->version,
                               url);
        if (patch) { /* the project's patch of this copy: applied as berry applies it */
          struct nub_depmap *m = &t->lock_patches;
          m->v = nub_realloc(m->v, (m->n + 1) * sizeof(*m->v));
          m->v[m->n].name = nub_strdup(nd->path);
          m->v[m->n++].spec = patch;
          patch = NULL;
        }
        nub_free(patch);
        nub_free(version);
        nub_free(url);
      }
      add_bins(nd, pl->entry);
    }
    if (r == 0)
      r = nub_tree_finish(t, bp->lockname, err);
  }
  nub_berry_places_free(places, nplaces);
  nub_free(ws);
  nub_berry_lock_release(&l);
  nub_yarnrc_release(&rc);
  return r;
}
