/* report.c - the warnings an install collects on the way, shown once at
 * the end through the progress reporter (so that --silent silences them). */
#include "report.h"

#include "state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "install_ctx.h"
#include "nub_alloc.h"
#include "strmap.h"
#include "sync.h"

void nub_report_blocked(struct nub_install_ctx *c)
{
  struct nub_buf b = NUB_BUF_INIT;

  if (!c->nblocked)
    return;
  for (size_t i = 0; i < c->nblocked; i++) {
    nub_buf_addf(&b, "%s%s", i ? ", " : "", c->blocked[i]);
    if (c->blocked_note[i])
      nub_buf_addf(&b, " (%s)", c->blocked_note[i]);
  }
  nub_progress_warn(&c->prog,
                    "%zu %s install scripts that were not run: %s. Trust %s by name in "
                    "package.json \"trustedDependencies\" to run them.", c->nblocked,
                    c->nblocked == 1 ? "dependency has" : "dependencies have", nub_buf_str(&b),
                    c->nblocked == 1 ? "it" : "them");
  nub_buf_release(&b);
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

/* One warning per distinct line (peer variants of a package say the same). */
static void say_peer(struct nub_install_ctx *c, struct nub_strmap *said, const char *who,
                     const char *ver, const char *peer, const char *range, const char *found)
{
  char line[1024];

  if (found)
    snprintf(line, sizeof(line), "%s@%s wants %s@%s, found %s", who, ver, peer, range, found);
  else
    snprintf(line, sizeof(line), "%s@%s wants %s@%s, which is not installed", who, ver, peer,
             range);
  if (nub_strmap_get(said, line))
    return;
  nub_strmap_put(said, line, (void *)1);
  nub_progress_warn(&c->prog, "%s", line);
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

void nub_report_peers(struct nub_install_ctx *c)
{
  struct nub_strmap said;

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
  nub_strmap_release(&said, NULL);
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
