/* query.c - a project's lockfile read for `nub ls` and `nub why` (query.h). */
#include "query.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "integrity.h"
#include "lockfmt.h"
#include "nub_alloc.h"
#include "nub_plat.h"

int nub_query_open(struct nub_query *q, const char *dir, struct nub_err *err)
{
  struct nub_session_opts so = {dir, NULL, NULL, 0, NULL, nub_lockfmts, &nub_lockfmt_none};
  char *text = NULL;
  size_t len = 0;
  int rc;

  memset(q, 0, sizeof(*q));
  rc = nub_session_open(&q->s, NUB_OPEN_MEMBERS | NUB_OPEN_PROJECT, &so, err);
  if (rc == 0 && !q->s.proj.lockfile)
    rc = nub_err_set(err, -NUB_ENOLOCKFILE, "no lockfile in %s; run `nub install` first",
                     q->s.root);
  if (rc == 0)
    rc = nub_crypto_init(err);
  if (rc < 0)
    return rc;
  rc = nub_project_read_lockfile(&q->s.proj, &q->s.cfg, &text, &len, err);
  if (rc < 0)
    return rc;
  nub_graph_init(&q->graph);
  q->have_graph = true;
  nub_tree_init(&q->tree, &q->pkgs);
  q->have_tree = true;
  {
    struct nub_lockfmt_src src = {q->s.root, q->s.proj.lockfile, &q->s.man,
                                  q->s.ws.source ? &q->s.ws : NULL, &q->s.cfg, &q->pkgs};
    rc = q->s.proj.fmt->graph(&src, text, len, &q->tree, &q->graph, err);
  }
  nub_free(text);
  if (rc == 0 && q->graph.npkgs)
    nub_graph_sort(&q->graph);
  return rc;
}

void nub_query_close(struct nub_query *q)
{
  if (q->have_graph)
    nub_graph_release(&q->graph);
  if (q->have_tree)
    nub_tree_release(&q->tree);
  nub_pkgtab_release(&q->pkgs);
  nub_session_close(&q->s);
  memset(q, 0, sizeof(*q));
}

char *nub_query_resolve(const char *from, const char *alias)
{
  char *d = nub_strdup(from);

  for (;;) {
    char *p = nub_asprintf("%s/node_modules/%s", d, alias), *slash;
    struct nub_plat_stat st;
    if (nub_plat_stat_follow_at(NUB_PLAT_CWD, p, &st) == 0) {
      char *real = nub_plat_realpath(p);
      nub_free(p);
      nub_free(d);
      return real;
    }
    nub_free(p);
    slash = strrchr(d, '/');
    if (!slash || slash == d)
      break;
    *slash = '\0';
  }
  nub_free(d);
  return NULL;
}
