/* install_ctx.c - what the stages of an install ask of its context. */
#include "install_ctx.h"

#include <string.h>

#include "nub_alloc.h"

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
