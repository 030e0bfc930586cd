/* report.c - the warnings an install collects on the way, shown once at
 * the end through the progress reporter (so that --silent silences them). */
#include "report.h"

#include "state.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "install_ctx.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "semver.h"
#include "strmap.h"
#include "sync.h"

/* Whether an unapproved build fails the install: pnpm's strictDepBuilds
 * (pnpm-workspace.yaml only: pnpm 12 no longer reads its settings from
 * .npmrc), npm's strict-allow-scripts (.npmrc, which only npm's projects
 * read), else the format's tool's default (pnpm 12: yes), else whether
 * this is CI. */
static bool strict_builds(const struct nub_install_ctx *c, const char **why)
{
  const char *v = nub_depmap_get(&c->s->ws.settings, "strictDepBuilds");
  bool pnpm = (c->s->proj.fmt->caps & NUB_LF_STRICT_BUILDS) != 0;

  if (v) {
    *why = "strictDepBuilds in pnpm-workspace.yaml";
    return !strcmp(v, "true");
  }
  if (!pnpm && nub_config_get(&c->s->cfg, "strict-allow-scripts")) {
    *why = "strict-allow-scripts in .npmrc";
    return nub_config_bool(&c->s->cfg, "strict-allow-scripts", false);
  }
  if (pnpm) {
    *why = "pnpm 12's default strictDepBuilds (set strictDepBuilds: false in "
           "pnpm-workspace.yaml to only warn)";
    return true;
  }
  /* in CI a build that silently did not run is a broken deploy found later */
  *why = "CI is set (a build waiting for approval fails there; strict-allow-scripts=false "
         "in .npmrc only warns)";
  return nub_plat_getenv("CI") != NULL;
}

/* The builds waiting for an approval, one "name@version" a line, for
 * `nub approve-builds` (gone when none waits; left alone when scripts were
 * off and nothing was asked). */
static void keep_pending(struct nub_install_ctx *c)
{
  char *path = nub_asprintf("%s/%s", c->s->proj.dir, NUB_PENDING_BUILDS);
  struct nub_buf b = NUB_BUF_INIT;

  if (c->nblocked) {
    char *dir = nub_asprintf("%s/%s", c->s->proj.dir, NUB_STATE_DIR);
    for (size_t i = 0; i < c->nblocked; i++)
      nub_buf_addf(&b, "%s\n", c->blocked[i]);
    if (nub_plat_mkdir_p(dir, 0755) == 0)
      nub_plat_write_file_atomic(path, b.data, b.len, 0644);
    nub_free(dir);
  } else if (!c->o->ignore_scripts && !c->s->cfg.ignore_scripts) {
    nub_plat_unlink_at(NUB_PLAT_CWD, path, false);
  }
  nub_buf_release(&b);
  nub_free(path);
}

int nub_report_blocked(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_buf b = NUB_BUF_INIT;
  const char *why, *where = nub_approval_home_name(c->s->proj.fmt->approve_in);
  int rc = 0;

  if (!c->o->rebuild)
    keep_pending(c);
  if (!c->nblocked)
    return 0;
  for (size_t i = 0; i < c->nblocked; i++) {
    nub_buf_addf(&b, "%s%s", i ? ", " : "", c->blocked[i]);
    if (c->blocked_note[i])
      nub_buf_addf(&b, " (%s)", c->blocked_note[i]);
  }
  if (strict_builds(c, &why))
    rc = nub_err_set(err, -NUB_EUNAPPROVED,
                     "%zu %s install scripts that no approval covers: %s; approve %s in %s "
                     "(`nub approve-builds` writes it), or say no to %s there (%s)", c->nblocked,
                     c->nblocked == 1 ? "dependency has" : "dependencies have", nub_buf_str(&b),
                     c->nblocked == 1 ? "it" : "them", where, c->nblocked == 1 ? "it" : "them",
                     why);
  else
    nub_progress_warn(&c->prog,
                      "%zu %s install scripts that were not run: %s. Approve %s in %s to run "
                      "them (`nub approve-builds`).", c->nblocked,
                      c->nblocked == 1 ? "dependency has" : "dependencies have",
                      nub_buf_str(&b), c->nblocked == 1 ? "it" : "them", where);
  nub_buf_release(&b);
  return rc;
}

struct change {
  const char *line; /* "alias version" */
  char sign;
};

static int cmp_change(const void *a, const void *b)
{
  const struct change *x = a, *y = b;
  size_t lx = strcspn(x->line, " "), ly = strcspn(y->line, " ");
  int c = strncmp(x->line, y->line, lx < ly ? lx : ly);
  if (!c)
    c = lx < ly ? -1 : lx > ly;
  return c ? c : (x->sign == '-' ? -1 : y->sign == '-'); /* "-" before "+" */
}

void nub_report_changes(char *const *old, size_t nold, char *const *now, size_t nnow,
                        char ***out, size_t *nout)
{
  struct change *v = nub_calloc(nold + nnow + 1, sizeof(*v));
  size_t n = 0;

  for (size_t i = 0; i < nold; i++)
    if (!nub_strarray_has(now, nnow, old[i]))
      v[n++] = (struct change){old[i], '-'};
  for (size_t i = 0; i < nnow; i++)
    if (!nub_strarray_has(old, nold, now[i]))
      v[n++] = (struct change){now[i], '+'};
  nub_sort(v, n, sizeof(*v), cmp_change);
  *out = nub_calloc(n + 1, sizeof(char *));
  *nout = n;
  for (size_t i = 0; i < n; i++)
    (*out)[i] = nub_asprintf("%c %s", v[i].sign, v[i].line);
  nub_free(v);
}

/* What pnpm's peerDependencyRules say of one peer issue (found NULL: the
 * peer is missing): whether it is fine after all. */
static bool peer_ruled_fine(const struct nub_workspace *ws, const char *who, const char *ver,
                            const char *peer, const char *found)
{
  char *const *pats = found ? ws->peer_allow_any : ws->peer_ignore_missing;
  size_t npats = found ? ws->npeer_allow_any : ws->npeer_ignore_missing;

  for (size_t i = 0; i < npats; i++)
    if (!fnmatch(pats[i], peer, 0))
      return true;
  for (size_t i = 0; found && i < ws->peer_allowed.n; i++) {
    /* "peer", or "parent>peer", "parent@range>peer": the parent named must
     * be the one that wants it */
    const char *key = ws->peer_allowed.v[i].name, *gt = strrchr(key, '>');
    if (strcmp(gt ? gt + 1 : key, peer))
      continue;
    if (gt) {
      char parent[300];
      char *at;
      snprintf(parent, sizeof(parent), "%.*s", (int)(gt - key), key);
      at = strchr(parent[0] == '@' ? parent + 1 : parent, '@');
      if (at)
        *at++ = '\0'; /* parent now its name, at its range */
      if (strcmp(parent, who) || (at && nub_semver_satisfies(at, ver, true) != 1))
        continue;
    }
    if (nub_semver_satisfies(ws->peer_allowed.v[i].spec, found, true) == 1)
      return true;
  }
  return false;
}

struct peer_said {
  struct nub_strmap lines; /* one per distinct line (peer variants say the same) */
  struct nub_buf first;    /* the first few, for a strict install's error */
  size_t n;
};

static void say_peer(struct nub_install_ctx *c, struct peer_said *said, const char *who,
                     const char *ver, const char *peer, const char *range, const char *found)
{
  char line[1024];

  if (peer_ruled_fine(&c->s->ws, who, ver, peer, found))
    return;
  if (found)
    snprintf(line, sizeof(line), "%s@%s wants %s@%s, found %s", who, ver, peer, range, found);
  else
    snprintf(line, sizeof(line), "%s@%s wants %s@%s, which is not installed", who, ver, peer,
             range);
  if (nub_strmap_get(&said->lines, line))
    return;
  nub_strmap_put(&said->lines, line, (void *)1);
  if (said->n++ < 3)
    nub_buf_addf(&said->first, "%s%s", said->n > 1 ? "; " : "", line);
  nub_progress_warn(&c->prog, "%s", line);
}

/* pnpm's strictPeerDependencies (pnpm-workspace.yaml; off by default). */
static bool strict_peers(const struct nub_install_ctx *c, const char **why)
{
  /* pnpm 12 reads the switch from pnpm-workspace.yaml only; .npmrc's
   * strict-peer-dependencies leaves its install green, and nub's too */
  const char *v = nub_depmap_get(&c->s->ws.settings, "strictPeerDependencies");

  *why = "strictPeerDependencies in pnpm-workspace.yaml";
  return v && !strcmp(v, "true");
}

static const char *edge_version(const struct nub_graph *g, const struct nub_gpkg *p,
                                const char *alias)
{
  for (int o = 0; o < 2; o++) {
    const struct nub_gedge *v = o ? p->optional_deps : p->deps;
    size_t n = o ? p->noptional_deps : p->ndeps;
    for (size_t e = 0; e < n; e++)
      if (!strcmp(v[e].alias, alias)) {
        char *t = nub_gedge_target(v[e].alias, v[e].ref);
        const struct nub_gpkg *q = t ? nub_graph_find(g, t) : NULL;
        nub_free(t);
        return q ? q->version : NULL;
      }
  }
  return NULL;
}

int nub_report_peers(struct nub_install_ctx *c, struct nub_err *err)
{
  struct peer_said said;
  const char *why;
  int rc = 0;

  memset(&said, 0, sizeof(said));
  if (c->plan.have_tree) {
    const struct nub_tree *t = &c->plan.tree;
    for (size_t i = 0; i < t->n; i++) {
      const struct nub_node *n = &t->nodes[i];
      if (n->skip || !n->pkg)
        continue;
      for (size_t k = 0; k < n->peers.n; k++) {
        const struct nub_dep *d = &n->peers.v[k];
        long hit = nub_tree_resolve(t, (long)i, d->name);
        const struct nub_node *q = hit >= 0 && !t->nodes[hit].skip ? &t->nodes[hit] : NULL;
        if (!q) {
          if (!nub_strarray_has(n->opt_peers, n->nopt_peers, d->name))
            say_peer(c, &said, n->pkg->name, n->pkg->version, d->name, d->spec, NULL);
        } else if (q->pkg && !nub_sync_satisfies(d->spec, d->name, q->pkg->name,
                                                 q->pkg->version)) {
          say_peer(c, &said, n->pkg->name, n->pkg->version, d->name, d->spec,
                   q->pkg->version);
        }
      }
    }
  } else if (c->plan.have_graph) {
    const struct nub_graph *g = &c->plan.graph;
    for (size_t i = 0; i < g->npkgs; i++) {
      const struct nub_gpkg *p = g->pkgs[i];
      if (p->skip)
        continue;
      for (size_t k = 0; k < p->peers.n; k++) {
        const struct nub_dep *d = &p->peers.v[k];
        const char *found = edge_version(g, p, d->name);
        if (!found) {
          if (!nub_strarray_has(p->peers_optional, p->npeers_optional, d->name))
            say_peer(c, &said, p->name, p->version, d->name, d->spec, NULL);
        } else if (!nub_sync_satisfies(d->spec, d->name, d->name, found)) {
          say_peer(c, &said, p->name, p->version, d->name, d->spec, found);
        }
      }
    }
  }
  if (said.n && strict_peers(c, &why))
    rc = nub_err_set(err, -NUB_EPEERS, "%zu peer dependenc%s not satisfied (%s): %s%s; install "
                     "what they want, or allow it in pnpm-workspace.yaml's peerDependencyRules",
                     said.n, said.n == 1 ? "y is" : "ies are", why, nub_buf_str(&said.first),
                     said.n > 3 ? "; ..." : "");
  nub_strmap_release(&said.lines, NULL);
  nub_buf_release(&said.first);
  return rc;
}

void nub_report_count(const struct nub_state *old, const struct nub_state *now, size_t *added,
                      size_t *changed, size_t *removed)
{
  struct nub_strmap was, is;

  *added = *changed = *removed = 0;
  memset(&was, 0, sizeof(was));
  memset(&is, 0, sizeof(is));
  for (size_t i = 0; old && i < old->n; i++)
    nub_strmap_put(&was, old->paths[i], old->keys[i]);
  for (size_t i = 0; i < now->n; i++) {
    const char *key = nub_strmap_get(&was, now->paths[i]);
    nub_strmap_put(&is, now->paths[i], now->keys[i]);
    if (!key)
      (*added)++;
    else if (strcmp(key, now->keys[i]))
      (*changed)++;
  }
  for (size_t i = 0; old && i < old->n; i++)
    if (!nub_strmap_get(&is, old->paths[i]))
      (*removed)++;
  nub_strmap_release(&was, NULL);
  nub_strmap_release(&is, NULL);
}
