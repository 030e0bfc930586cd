/* lockfmts.c - the table of lockfile formats (lockfmt.h): each row names
 * the format's own code, which lives in its files (lockfile_<fmt>.c reads
 * and writes it, hoist_<tool>.c places as its tool, plan_<shape>.c makes
 * the install's plan of it). */
#include "lockfmt.h"

#include <string.h>

#include "berry.h"
#include "bins.h"
#include "tree_graph.h"
#include "install_ctx.h"
#include "lockfile_berry.h"
#include "lockfile_bun.h"
#include "lockfile_npm.h"
#include "lockfile_pnpm.h"
#include "lockfile_yarn.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "plan.h"
#include "registry_url.h"

/* ---- reading as a graph (ls, why, outdated) ------------------------------- */

static int tree_graph(const struct nub_lockfmt_src *src, struct nub_tree *tree,
                      struct nub_graph *out, int rc, struct nub_err *err)
{
  if (rc == 0)
    rc = nub_graph_from_tree(out, tree, src->man, src->ws, err);
  return rc;
}

static int graph_npm(const struct nub_lockfmt_src *src, const char *text, size_t len,
                     struct nub_tree *tree, struct nub_graph *out, struct nub_err *err)
{
  return tree_graph(src, tree, out,
                    nub_lockfile_npm_parse(tree, text, len, src->lockname, src->cfg, err), err);
}

static int graph_bun(const struct nub_lockfmt_src *src, const char *text, size_t len,
                     struct nub_tree *tree, struct nub_graph *out, struct nub_err *err)
{
  struct nub_bun_layout lay = {src->man, src->ws};
  return tree_graph(src, tree, out,
                    nub_lockfile_bun_read(tree, text, len, src->lockname, src->cfg,
                                          src->man ? &lay : NULL, err),
                    err);
}

static int graph_pnpm(const struct nub_lockfmt_src *src, const char *text, size_t len,
                      struct nub_tree *tree, struct nub_graph *out, struct nub_err *err)
{
  (void)tree;
  return nub_lockfile_pnpm_parse(out, text, len, src->lockname, err);
}

static int graph_yarn(const struct nub_lockfmt_src *src, const char *text, size_t len,
                      struct nub_tree *tree, struct nub_graph *out, struct nub_err *err)
{
  (void)tree;
  return nub_lockfile_yarn_parse(out, text, len, src->lockname, src->man, src->ws, src->cfg,
                                 NULL, err);
}

/* A berry lockfile's package: name@version on the configured registry. */
struct berry_ud {
  const struct nub_lockfmt_src *src;
  struct nub_tree *tree;
};

static struct nub_pkg *berry_identity(void *ud, const char *name, const char *version,
                                      const char *tarball)
{
  struct berry_ud *b = ud;
  char *url = nub_pkg_tarball_url(b->src->cfg, b->src->dir, name, version, tarball);
  struct nub_pkg *p = nub_tree_pkg(b->tree, name, version, url, NULL);

  nub_free(url);
  return p;
}

static int graph_berry(const struct nub_lockfmt_src *src, const char *text, size_t len,
                       struct nub_tree *tree, struct nub_graph *out, struct nub_err *err)
{
  struct nub_plat_caps caps;
  struct berry_ud ud = {src, tree};
  struct nub_berry_project bp = {
      .dir = src->dir,
      .lockname = src->lockname,
      .root = src->man,
      .ws = src->ws,
      .cfg = src->cfg,
      .linker_given = src->cfg->linker != NUB_LINKER_AUTO,
      .identity = berry_identity,
      .ud = &ud,
  };

  nub_plat_caps(&caps);
  bp.os = caps.npm_os;
  bp.cpu = caps.npm_cpu;
  bp.libc = caps.libc;
  return tree_graph(src, tree, out, nub_berry_tree(tree, text, len, &bp, err), err);
}

/* ---- the hoisted layout's .bin, by each tool's rule ----------------------- */

static int bins_yarn(struct nub_install_ctx *c, size_t *nlinks, struct nub_err *err)
{
  /* (a yarn.lock installed in the isolated layout, placed npm's way from
   * the graph, has no yarn order) */
  return nub_bins_link_yarn(c->s->proj.dir_fd, &c->plan.tree, nlinks, err);
}

static int bins_berry(struct nub_install_ctx *c, size_t *nlinks, struct nub_err *err)
{
  return nub_bins_link_berry(c->s->proj.dir_fd, &c->plan.tree, &c->s->man,
                             c->s->ws.source ? &c->s->ws : NULL, nlinks, err);
}

/* bun links the bins of esbuild and @anthropic-ai/claude-code (or of the
 * project's "nativeDependencies", which replace them) to their platform
 * package's binary (its postinstall optimizer); the rest as npm does. */
static int bins_bun(struct nub_install_ctx *c, size_t *nlinks, struct nub_err *err)
{
  static char *const defaults[] = {"esbuild", "@anthropic-ai/claude-code"};
  const struct nub_depmap direct[] = {c->s->man.deps, c->s->man.dev, c->s->man.optional};
  struct nub_bins_native native = {defaults, 2, c->caps.npm_os, c->caps.npm_cpu, true};

  if (c->s->man.has_native_deps) {
    native.names = c->s->man.native_deps;
    native.nnames = c->s->man.nnative_deps;
  }
  {
    /* bun's own switch, honoured as bun reads it ("1" or "true") */
    const char *off = nub_plat_getenv("BUN_FEATURE_FLAG_DISABLE_NATIVE_DEPENDENCY_LINKER");
    if (off && (!strcmp(off, "1") || !strcmp(off, "true")))
      native.nnames = 0;
  }
  return nub_bins_link(c->s->proj.dir_fd, &c->plan.tree, direct, 3, &native, nlinks, err);
}

/* ---- the table -------------------------------------------------------------- */

static bool is_yarn1(const char *head, size_t len)
{
  return !nub_lockfile_is_berry(head, len);
}

const char *nub_approval_home_name(enum nub_approval_home h)
{
  switch (h) {
  case NUB_APPROVE_ALLOW_BUILDS: return "pnpm-workspace.yaml \"allowBuilds\" (<name>: true)";
  case NUB_APPROVE_ALLOW_SCRIPTS: return "package.json \"allowScripts\" (\"<name>\": true)";
  case NUB_APPROVE_TRUSTED: break;
  }
  return "package.json \"trustedDependencies\"";
}

const struct nub_lockfmt nub_lockfmt_nub = {
  "nub", "nub.lock", "nub", "nub install", NUB_LINKER_ISOLATED,
  NUB_LF_WRITES | NUB_LF_ROOT_PEERS | NUB_LF_MEMBER_PEERS | NUB_LF_OPTIONAL_IMPORTER_PEERS |
      NUB_LF_AGE_GATE | NUB_LF_MANIFEST_PATCHES | NUB_LF_PNPM_PEERS | NUB_LF_ENGINES,
  NULL, nub_plan_from_graph, graph_pnpm, NULL, NULL,
  NUB_APPROVE_TRUSTED,
};
const struct nub_lockfmt nub_lockfmt_pnpm = {
  "pnpm", "pnpm-lock.yaml", "pnpm", "pnpm install", NUB_LINKER_ISOLATED,
  NUB_LF_WRITES | NUB_LF_WORKSPACE_LINKS_ONLY | NUB_LF_ROOT_PEERS | NUB_LF_MEMBER_PEERS |
      NUB_LF_OPTIONAL_IMPORTER_PEERS | NUB_LF_AGE_GATE | NUB_LF_STRICT_BUILDS |
      NUB_LF_PLATFORM_WARNS | NUB_LF_LIBC_FROM_NAME | NUB_LF_HIDDEN_HOIST |
      NUB_LF_PNPM_PEERS | NUB_LF_ENGINES,
  NULL, nub_plan_from_graph, graph_pnpm, NULL, NULL,
  NUB_APPROVE_ALLOW_BUILDS,
};
const struct nub_lockfmt nub_lockfmt_shrinkwrap = {
  "npm-shrinkwrap", "npm-shrinkwrap.json", "npm", "npm install", NUB_LINKER_HOISTED,
  NUB_LF_WRITES | NUB_LF_MEMBER_PEERS | NUB_LF_PACOTE_UNPACK | NUB_LF_ENGINES, NULL,
  nub_plan_from_npm, graph_npm, NULL, NULL,
  NUB_APPROVE_ALLOW_SCRIPTS,
};
const struct nub_lockfmt nub_lockfmt_npm = {
  "npm", "package-lock.json", "npm", "npm install", NUB_LINKER_HOISTED,
  NUB_LF_WRITES | NUB_LF_MEMBER_PEERS | NUB_LF_PACOTE_UNPACK | NUB_LF_MANIFEST_PATCHES |
      NUB_LF_ENGINES, NULL,
  nub_plan_from_npm, graph_npm, NULL, NULL,
  NUB_APPROVE_ALLOW_SCRIPTS,
};
const struct nub_lockfmt nub_lockfmt_yarn = {
  "yarn", "yarn.lock", "yarn", "yarn install", NUB_LINKER_HOISTED,
  NUB_LF_WRITES | NUB_LF_PLACE_AFTER_FETCH | NUB_LF_OS_CPU_ONLY | NUB_LF_NO_AUTO_PEERS |
  NUB_LF_RESOLVES_BUNDLED | NUB_LF_LOCK_BY_PATTERN,
  is_yarn1, nub_plan_from_yarn, graph_yarn,
  nub_plan_yarn_place, bins_yarn,
  NUB_APPROVE_TRUSTED,
};
const struct nub_lockfmt nub_lockfmt_berry = {
  "berry", "yarn.lock", "yarn", "yarn install", NUB_LINKER_HOISTED, 0,
  nub_lockfile_is_berry, nub_plan_from_berry, graph_berry, NULL, bins_berry,
  NUB_APPROVE_TRUSTED,
};
const struct nub_lockfmt nub_lockfmt_bun = {
  "bun", "bun.lock", "bun", "bun install", NUB_LINKER_HOISTED,
  NUB_LF_WRITES | NUB_LF_ROOT_PEERS | NUB_LF_MEMBER_PEERS | NUB_LF_MANIFEST_PATCHES |
      NUB_LF_MANIFEST_EXTS, NULL,
  nub_plan_from_bun,
  graph_bun, NULL, bins_bun,
  NUB_APPROVE_TRUSTED,
};
const struct nub_lockfmt nub_lockfmt_none = {
  "none", NULL, NULL, "nub install", NUB_LINKER_ISOLATED,
  NUB_LF_WRITES | NUB_LF_ROOT_PEERS | NUB_LF_MEMBER_PEERS | NUB_LF_OPTIONAL_IMPORTER_PEERS |
      NUB_LF_AGE_GATE | NUB_LF_MANIFEST_PATCHES | NUB_LF_PNPM_PEERS | NUB_LF_ENGINES,
  NULL, nub_plan_from_graph, NULL, NULL, NULL,
  NUB_APPROVE_TRUSTED,
};

const struct nub_lockfmt *const nub_lockfmts[] = {
  &nub_lockfmt_nub, &nub_lockfmt_pnpm, &nub_lockfmt_shrinkwrap, &nub_lockfmt_npm,
  &nub_lockfmt_yarn, &nub_lockfmt_berry, &nub_lockfmt_bun, NULL,
};
