/* query.c - a project's lockfile read for `nub ls` and `nub why` (query.h). */
#include "query.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "berry.h"
#include "convert.h"
#include "integrity.h"
#include "lockfile_berry.h"
#include "lockfile_bun.h"
#include "lockfile_npm.h"
#include "lockfile_pnpm.h"
#include "lockfile_yarn.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "registry_url.h"

/* A berry lockfile's package: name@version on the configured registry. */
static struct nub_pkg *berry_identity(void *ud, const char *name, const char *version,
                                      const char *tarball)
{
  struct nub_query *q = ud;
  char *url = nub_pkg_tarball_url(&q->cfg, q->root, name, version, tarball);
  struct nub_pkg *p = nub_tree_pkg(&q->tree, name, version, url, NULL);

  nub_free(url);
  return p;
}

int nub_query_open(struct nub_query *q, const char *dir, struct nub_err *err)
{
  char cwd[4096], *start, *text = NULL;
  size_t len = 0;
  int rc;

  memset(q, 0, sizeof(*q));
  if (!getcwd(cwd, sizeof(cwd)))
    return nub_err_set(err, -errno, "cannot read the current directory");
  start = !dir ? nub_strdup(cwd) : dir[0] == '/' ? nub_strdup(dir)
                                                 : nub_asprintf("%s/%s", cwd, dir);
  rc = nub_workspace_find_root(start, &q->root, &q->man, &q->have_man, err);
  nub_free(start);
  if (rc == 0)
    rc = nub_config_load(&q->cfg, q->root, NULL, 0, err);
  q->have_cfg = rc == 0;
  if (rc == 0 && !q->have_man) /* to say why it cannot be read */
    rc = nub_manifest_load(&q->man, q->root, err);
  q->have_man = rc == 0;
  if (rc == 0) {
    rc = nub_workspace_discover(&q->ws, q->root, &q->man, err);
    q->have_ws = true;
  }
  if (rc == 0 && q->ws.source)
    rc = nub_workspace_load(&q->ws, err);
  if (rc == 0) {
    rc = nub_project_detect(&q->proj, q->root, &q->cfg, q->man.package_manager, err);
    q->have_proj = true;
  }
  if (rc == 0 && !q->proj.lockfile)
    rc = nub_err_set(err, -NUB_ENOLOCKFILE, "no lockfile in %s; run `nub install` first",
                     q->root);
  if (rc == 0)
    rc = nub_crypto_init(err);
  if (rc < 0)
    return rc;
  rc = nub_project_read_lockfile(&q->proj, &q->cfg, &text, &len, err);
  if (rc < 0)
    return rc;
  nub_graph_init(&q->graph);
  q->have_graph = true;
  switch (q->proj.lock) {
  case NUB_LOCK_NUB:
  case NUB_LOCK_PNPM:
    rc = nub_lockfile_pnpm_parse(&q->graph, text, len, q->proj.lockfile, err);
    break;
  case NUB_LOCK_NPM:
  case NUB_LOCK_SHRINKWRAP:
  case NUB_LOCK_BUN:
    nub_tree_init(&q->tree, &q->pkgs);
    q->have_tree = true;
    rc = q->proj.lock == NUB_LOCK_BUN
             ? nub_lockfile_bun_parse(&q->tree, text, len, q->proj.lockfile, &q->cfg, err)
             : nub_lockfile_npm_parse(&q->tree, text, len, q->proj.lockfile, &q->cfg, err);
    if (rc == 0)
      rc = nub_graph_from_tree(&q->graph, &q->tree, &q->man, q->ws.source ? &q->ws : NULL,
                               err);
    break;
  case NUB_LOCK_YARN:
    if (nub_lockfile_is_berry(text, len)) {
      struct nub_plat_caps caps;
      struct nub_berry_project bp = {
          .dir = q->root,
          .lockname = q->proj.lockfile,
          .root = &q->man,
          .ws = q->ws.source ? &q->ws : NULL,
          .cfg = &q->cfg,
          .linker_given = q->cfg.linker != NUB_LINKER_AUTO,
          .identity = berry_identity,
          .ud = q,
      };
      nub_plat_caps(&caps);
      bp.os = caps.npm_os;
      bp.cpu = caps.npm_cpu;
      bp.libc = caps.libc;
      nub_tree_init(&q->tree, &q->pkgs);
      q->have_tree = true;
      rc = nub_berry_tree(&q->tree, text, len, &bp, err);
      if (rc == 0)
        rc = nub_graph_from_tree(&q->graph, &q->tree, &q->man, q->ws.source ? &q->ws : NULL,
                                 err);
      break;
    }
    rc = nub_lockfile_yarn_parse(&q->graph, text, len, q->proj.lockfile, &q->man,
                                 q->ws.source ? &q->ws : NULL, &q->cfg, NULL, err);
    break;
  default:
    rc = nub_err_set(err, -NUB_ELOCKVERSION, "%s is not supported by this nub yet",
                     q->proj.lockfile);
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
  if (q->have_proj)
    nub_project_release(&q->proj);
  if (q->have_ws)
    nub_workspace_release(&q->ws);
  if (q->have_man)
    nub_manifest_release(&q->man);
  if (q->have_cfg)
    nub_config_release(&q->cfg);
  nub_free(q->root);
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
