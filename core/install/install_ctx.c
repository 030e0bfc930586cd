/* install_ctx.c - what the stages of an install ask of its context. */
#include "install_ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines.h"
#include "nub_alloc.h"
#include "gitspec.h"
#include "resolve.h"
#include "url.h"

bool nub_install_trusted(const struct nub_install_ctx *c, const char *name, const char *version)
{
  for (size_t i = 0; i < c->s->man.ntrusted; i++)
    if (nub_approval_matches(c->s->man.trusted[i], name, version))
      return true;
  return false;
}

bool nub_install_denied(const struct nub_install_ctx *c, const char *name, const char *version)
{
  if (c->builds_off)
    return true;
  for (size_t i = 0; i < c->s->man.ndenied; i++)
    if (nub_approval_matches(c->s->man.denied[i], name, version))
      return true;
  return false;
}

bool nub_install_platform_ok(const struct nub_install_ctx *c, char *const *os, size_t nos,
                             char *const *cpu, size_t ncpu, char *const *libc, size_t nlibc)
{
  return nub_platform_allows(os, nos, c->caps.npm_os) &&
         nub_platform_allows(cpu, ncpu, c->caps.npm_cpu) &&
         (!c->caps.libc || nub_platform_allows(libc, nlibc, c->caps.libc));
}

bool nub_install_platform_warns(const struct nub_install_ctx *c)
{
  const char *ws = nub_depmap_get(&c->s->ws.settings, "engineStrict");

  if (!(c->s->proj.fmt->caps & NUB_LF_PLATFORM_WARNS))
    return false;
  if (ws)
    return strcmp(ws, "true") != 0;
  return !nub_config_bool(&c->s->cfg, "engine-strict", false);
}

void nub_install_warn_unconflict(struct nub_install_ctx *c, const char *how)
{
  nub_progress_warn(&c->prog, "%s has merge-conflict markers: both sides merged (%s), then "
                    "brought in line with package.json and written back", c->s->proj.lockfile,
                    how);
}

bool nub_install_libc_by_name_ok(const struct nub_install_ctx *c, const char *name,
                                 size_t nlibc)
{
  const char *said = NULL;

  if (nlibc || !c->caps.libc || !(c->s->proj.fmt->caps & NUB_LF_LIBC_FROM_NAME))
    return true;
  for (const char *p = name; *p;) {
    size_t n = strcspn(p, "-/");
    if ((n == 4 && !strncmp(p, "musl", 4)))
      said = "musl";
    else if ((n == 3 && !strncmp(p, "gnu", 3)) || (n == 5 && !strncmp(p, "glibc", 5)))
      said = "glibc";
    p += n;
    if (*p)
      p++;
  }
  return !said || !strcmp(said, c->caps.libc);
}

bool nub_install_selected(const struct nub_install_ctx *c, size_t i)
{
  return !c->selected || c->selected[i];
}

void nub_install_select_importers(struct nub_install_ctx *c)
{
  struct nub_graph *g = &c->plan.graph;

  for (size_t m = 0; c->selected && m < g->nimporters; m++) {
    struct nub_importer *im = &g->importers[m];
    const struct nub_ws_pkg *wp = nub_workspace_at(&c->s->ws, im->path);
    im->skip = !strcmp(im->path, ".") ? !c->selected[0]
               : wp                   ? !c->selected[1 + (size_t)(wp - c->s->ws.pkgs)]
                                      : true;
  }
}

void nub_install_fetch_opts(struct nub_install_ctx *c, struct nub_fetch_opts *fo)
{
  memset(fo, 0, sizeof(*fo));
  fo->offline = c->o->offline;
  fo->verify_all = c->o->ci || c->o->force;
  if (!c->secrets) { /* the root's and every member's, once */
    size_t n = c->s->man.secrets.n;
    for (size_t i = 0; i < c->s->ws.npkgs; i++)
      n += c->s->ws.pkgs[i].man.secrets.n;
    c->secrets = nub_calloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < c->s->man.secrets.n; i++)
      c->secrets[c->nsecrets++] = c->s->man.secrets.v[i].spec;
    for (size_t i = 0; i < c->s->ws.npkgs; i++)
      for (size_t k = 0; k < c->s->ws.pkgs[i].man.secrets.n; k++)
        c->secrets[c->nsecrets++] = c->s->ws.pkgs[i].man.secrets.v[k].spec;
  }
  fo->secrets = c->secrets;
  fo->nsecrets = c->nsecrets;
}

void nub_install_blocked(struct nub_install_ctx *c, const char *name, const char *version,
                         const char *note)
{
  char *id = nub_asprintf("%s@%s", name, version);

  for (size_t i = 0; i < c->nblocked; i++)
    if (!strcmp(c->blocked[i], id)) {
      if (note && !c->blocked_note[i])
        c->blocked_note[i] = nub_strdup(note);
      nub_free(id);
      return;
    }
  c->blocked = nub_realloc(c->blocked, (c->nblocked + 1) * sizeof(char *));
  c->blocked_note = nub_realloc(c->blocked_note, (c->nblocked + 1) * sizeof(char *));
  c->blocked[c->nblocked] = id;
  c->blocked_note[c->nblocked++] = note ? nub_strdup(note) : NULL;
}

int nub_install_engine_check(struct nub_install_ctx *c, const char *what, const char *range,
                             bool optional, bool *skip, struct nub_err *err)
{
  const char *ws = nub_depmap_get(&c->s->ws.settings, "engineStrict");
  bool strict;

  *skip = false;
  if (!range || !*range || !(c->s->proj.fmt->caps & NUB_LF_ENGINES))
    return 0;
  if (!c->node_known)
    c->node_known = nub_node_version(c->s->cfg.cache_dir, c->node_version,
                                     sizeof(c->node_version)) ? 1 : -1;
  if (c->node_known < 0 || nub_engine_allows(range, c->node_version))
    return 0;
  if (optional) { /* npm marks it inert, pnpm skips it: whatever the flags */
    *skip = true;
    return 0;
  }
  strict = ws ? !strcmp(ws, "true") : nub_config_bool(&c->s->cfg, "engine-strict", false);
  if (strict && !c->o->force)
    return nub_err_set(err, -NUB_EPLATFORM,
                       "%s wants node %s, and the node on PATH is %s (engine-strict is set: "
                       "use that node, or --force to install it anyway)", what, range,
                       c->node_version);
  nub_progress_warn(&c->prog, "%s wants node %s; the node on PATH is %s (unsupported engine)",
                    what, range, c->node_version);
  return 0;
}

static const char *const allow_keys[] = {"allow-git", "allow-remote", "allow-file",
                                         "allow-directory"};

void nub_install_read_allow(struct nub_install_ctx *c)
{
  const char *pm = c->s->man.package_manager;
  bool npm12 = pm && !strncmp(pm, "npm@", 4) && atoi(pm + 4) >= 12;

  memset(c->allow, NUB_ALLOW_ALL, sizeof(c->allow));
  if (!(c->s->proj.fmt->caps & NUB_LF_PACOTE_UNPACK)) /* (npm's formats) */
    return;
  for (int k = 0; k < 4; k++) {
    const char *v = nub_config_get(&c->s->cfg, allow_keys[k]);
    if (v && !strcmp(v, "none"))
      c->allow[k] = NUB_ALLOW_NONE;
    else if (v && !strcmp(v, "root"))
      c->allow[k] = NUB_ALLOW_ROOT;
    else if (!v && npm12 && (k == NUB_SRC_GIT || k == NUB_SRC_REMOTE))
      c->allow[k] = NUB_ALLOW_NONE;
  }
}

int nub_install_allow(const struct nub_install_ctx *c, int kind, bool from_importer,
                      const char *what, const char *url, struct nub_err *err)
{
  static const char *const kinds[] = {"git", "remote", "file", "directory"};
  int a = kind >= 0 && kind < 4 ? c->allow[kind] : NUB_ALLOW_ALL;

  if (a == NUB_ALLOW_ALL || (a == NUB_ALLOW_ROOT && from_importer))
    return 0;
  if (kind == NUB_SRC_REMOTE && url) {
    /* a tarball on the registry's own host is the registry's */
    char host[256], reg[256];
    const char *r = c->s->cfg.registry;
    nub_url_host(url, host, sizeof(host));
    nub_url_host(r ? r : "", reg, sizeof(reg));
    if (host[0] && !strcmp(host, reg))
      return 0;
    for (size_t i = 0; i < c->s->cfg.nent; i++) {
      const char *k = c->s->cfg.ent[i].key, *v = c->s->cfg.ent[i].val;
      size_t kl = strlen(k);
      if (v && kl > 9 && !strcmp(k + kl - 9, ":registry")) {
        nub_url_host(v, reg, sizeof(reg));
        if (host[0] && !strcmp(host, reg))
          return 0;
      }
    }
  }
  return nub_err_set(err, -NUB_ESPEC,
                     "%s: fetching %s%s dependencies is disabled (%s=%s%s); set %s=all "
                     "(or root) in .npmrc to allow it, as npm asks", what,
                     a == NUB_ALLOW_ROOT ? "non-root " : "", kinds[kind], allow_keys[kind],
                     a == NUB_ALLOW_ROOT ? "root" : "none",
                     nub_config_get(&c->s->cfg, allow_keys[kind]) ? ""
                                                                  : ", npm 12's default",
                     allow_keys[kind]);
}

/* The kind of source a spec names, as npm-package-arg sorts it (-1: the
 * registry's). */
static int spec_kind(const char *spec)
{
  if (!spec)
    return -1;
  if (!strncmp(spec, "file:", 5) || spec[0] == '.' || spec[0] == '/' || spec[0] == '~')
    return strstr(spec, ".tgz") || strstr(spec, ".tar") ? NUB_SRC_FILE : NUB_SRC_DIRECTORY;
  if (!strncmp(spec, "http://", 7) || !strncmp(spec, "https://", 8))
    return NUB_SRC_REMOTE;
  if (strncmp(spec, "npm:", 4) && nub_git_is_spec(spec))
    return NUB_SRC_GIT;
  return -1;
}

static bool manifest_asks(const struct nub_manifest *m, const char *name, int kind)
{
  const struct nub_depmap *maps[] = {&m->deps, &m->dev, &m->optional, &m->peer};

  for (int i = 0; i < 4; i++)
    if (spec_kind(nub_depmap_get(maps[i], name)) == kind)
      return true;
  return false;
}

int nub_install_allow_node(const struct nub_install_ctx *c, const struct nub_node *n,
                           struct nub_err *err)
{
  const char *src = n->pkg ? n->pkg->tarball : NULL;
  const char *name = n->pkg ? n->pkg->name : n->folder;
  int kind = -1;
  bool asked;
  char what[700];

  if (n->flags & NUB_NF_LINK) {
    for (size_t i = 0; i < c->s->ws.npkgs; i++)
      if (n->link_target && !strcmp(n->link_target, c->s->ws.pkgs[i].dir))
        return 0; /* a workspace member */
    kind = NUB_SRC_DIRECTORY;
  } else if (src && !strncmp(src, "file:", 5)) {
    kind = NUB_SRC_FILE;
  } else if (src && (!strncmp(src, "git+", 4) || nub_git_is_spec(src))) {
    kind = NUB_SRC_GIT;
  } else if (src && (!strncmp(src, "http://", 7) || !strncmp(src, "https://", 8))) {
    kind = NUB_SRC_REMOTE;
  }
  if (kind < 0 || c->allow[kind] == NUB_ALLOW_ALL || !name)
    return 0;
  asked = manifest_asks(&c->s->man, name, kind);
  for (size_t i = 0; !asked && i < c->s->ws.npkgs; i++)
    asked = manifest_asks(&c->s->ws.pkgs[i].man, name, kind);
  snprintf(what, sizeof(what), "%s (%s)", n->path, src ? src : n->link_target ? n->link_target
                                                                             : "?");
  /* a URL a package.json names is remote; a registry package's resolved
   * URL is remote only off the registries' hosts */
  return nub_install_allow(c, kind, asked, what, asked ? NULL : src, err);
}
