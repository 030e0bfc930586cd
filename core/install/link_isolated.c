/* link_isolated.c - the isolated layout and the global virtual store. */
#include "link_isolated.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "integrity.h"
#include "lifecycle.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "path.h"
#include "semver.h"
#include "strmap.h"
#include "tree.h"

#define MAX_DIRNAME 120

void nub_dep_path_filename(const char *dep_path, char *out, size_t cap)
{
  char buf[4096];
  size_t n = 0;
  bool upper = false, peers = strchr(dep_path, '(') != NULL;

  for (const char *p = dep_path; *p && n + 1 < sizeof(buf); p++) {
    char c = *p;
    if (strchr("\\/:*?\"<>|#", c))
      c = '+';
    if (peers && (c == '(' || c == ')')) {
      /* "(a)(b)" -> "_a_b": ")(" and "(" become "_", a final ")" goes */
      if (c == ')' && (p[1] == '\0'))
        continue;
      if (c == ')' && p[1] == '(') {
        p++;
        c = '_';
      } else {
        c = '_';
      }
    }
    if (c >= 'A' && c <= 'Z')
      upper = true;
    buf[n++] = c;
  }
  buf[n] = '\0';
  if (n > MAX_DIRNAME || (upper && strncmp(buf, "file+", 5))) {
    unsigned char h[32];
    char hex[65];
    nub_sha256(buf, n, h);
    nub_hex(h, 16, hex);
    snprintf(out, cap, "%.*s_%s", MAX_DIRNAME - 33, buf, hex);
    return;
  }
  snprintf(out, cap, "%s", buf);
}

struct ipkg {
  struct nub_gpkg *g;
  char dir[256];
  char entry[300]; /* GVS entry name */
  char *line;      /* "key\tintegrity\n", for closure hashes */
  size_t linelen;
  unsigned char disp; /* enum disp, decided before anything is linked */
  bool local;      /* materialised in the project, not shared */
  bool has_link;   /* links a folder of the project (so it is local) */
  struct iedge {
    const char *alias;
    struct ipkg *to;  /* NULL for a link: edge */
    const char *link; /* a link: edge's folder, from the project (pnpm writes
                       * a workspace package that meets a peer so) */
  } *edges;
  size_t nedges;
};

/* What the link phase does with a package (decide_one). */
enum disp {
  D_LOCAL,  /* materialised in the project (all are, without the store) */
  D_REUSED, /* its entry is in links/, whole */
  D_READY,  /* its tree is its entry, whole */
  D_ADOPT,  /* its tree is claimed for its entry: link the dependencies */
  D_BUILD,  /* an entry of its own in links/, linked from the store */
};

struct ictx {
  struct nub_graph *g;
  struct ipkg *p;
  size_t n;
  struct nub_strmap bykey;
  size_t *order; /* c->p indices, most files first */
  size_t *byrank; /* c->p indices in key order */
  int proj_fd, links_fd;
  char *links_abs;
  struct nub_store *store;
  struct nub_linker *l;
  struct nub_progress *prog;
  const struct nub_isolated_opts *o;
  struct nub_link_stats *stats;
  size_t built, reused, adopted;
  pthread_mutex_t lock;
  int rc;
  struct nub_err err;
};

static bool trusted(const struct nub_isolated_opts *o, const char *name, const char *version)
{
  for (size_t i = 0; i < o->ntrusted; i++)
    if (nub_approval_matches(o->trusted[i], name, version))
      return true;
  return false;
}

static void fail(struct ictx *c, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_rc(struct ictx *c, int rc, const char *fmt, const char *arg);

static void fail(struct ictx *c, int rc, const char *fmt, ...)
{
  va_list ap;

  pthread_mutex_lock(&c->lock);
  if (!c->rc) {
    c->rc = rc;
    va_start(ap, fmt);
    nub_err_vset(&c->err, rc, fmt, ap);
    va_end(ap);
  }
  pthread_mutex_unlock(&c->lock);
}

static int fail_rc(struct ictx *c, int rc, const char *fmt, const char *arg)
{
  fail(c, rc, fmt, arg);
  return rc;
}

/* "../" for every directory between a link and the root it is relative to:
 * "node_modules/@s/x" sits two levels below "node_modules"'s parent. */
static void up_levels(struct nub_buf *b, const char *alias, int base)
{
  int d = base;
  for (const char *s = alias; *s; s++)
    if (*s == '/')
      d++;
  for (int i = 0; i < d; i++)
    nub_buf_adds(b, "../");
}

/* Closure hash: the package and every package it can reach, listed in key
 * order (c->byrank) as "key\tintegrity" lines, then the package's own edges. */
static void closure_hash(struct ictx *c, struct ipkg *p, bool *seen, size_t *stack,
                         char out[33])
{
  struct nub_buf b = NUB_BUF_INIT;
  size_t sp = 0;
  unsigned char h[32];
  char hex[65];

  memset(seen, 0, c->n);
  stack[sp++] = (size_t)(p - c->p);
  seen[p - c->p] = true;
  while (sp) {
    struct ipkg *x = &c->p[stack[--sp]];
    for (size_t e = 0; e < x->nedges; e++) {
      struct ipkg *t = x->edges[e].to;
      if (t && !seen[t - c->p]) {
        seen[t - c->p] = true;
        stack[sp++] = (size_t)(t - c->p);
      }
    }
  }
  for (size_t r = 0; r < c->n; r++) {
    size_t i = c->byrank[r];
    if (seen[i])
      nub_buf_add(&b, c->p[i].line, c->p[i].linelen);
  }
  /* the edges too: the same set can be wired differently */
  for (size_t e = 0; e < p->nedges; e++)
    nub_buf_addf(&b, "%s>%s\n", p->edges[e].alias,
                 p->edges[e].to ? p->edges[e].to->g->key : "-");
  nub_sha256(b.data ? b.data : "", b.len, h);
  nub_hex(h, 8, hex);
  memcpy(out, hex, 17);
  nub_buf_release(&b);
}

/* A folder of the project named by a lockfile: relative, no "..". */
static bool safe_rel(const char *path)
{
  char norm[4096];
  return nub_path_normalize(path, norm, sizeof(norm)) > 0;
}

struct keyed {
  const char *key;
  size_t i;
};

static int cmp_keyed(const void *a, const void *b)
{
  return strcmp(((const struct keyed *)a)->key, ((const struct keyed *)b)->key);
}

static bool has_edge(const struct ipkg *p, const char *alias)
{
  for (size_t e = 0; e < p->nedges; e++)
    if (!strcmp(p->edges[e].alias, alias))
      return true;
  return false;
}

/* Packages that load dependencies they never declared find them through the
 * project's hidden hoist; from the global virtual store (where Node sees the
 * store path, not the project's) they need their own link, to the version
 * the hoist would give. The link is part of the entry, and of its hash. */
static void add_phantom_edges(struct ictx *c)
{
  struct nub_strmap hoist;

  memset(&hoist, 0, sizeof(hoist));
  for (size_t i = 0; i < c->n; i++) {
    struct ipkg *p = &c->p[i], *cur = nub_strmap_get(&hoist, p->g->name);
    struct nub_version a, b;
    bool better = !cur;
    if (cur && nub_version_parse_loose(&a, p->g->version) == 0) {
      if (nub_version_parse_loose(&b, cur->g->version) == 0) {
        better = nub_version_cmp(&a, &b) > 0;
        nub_version_release(&b);
      }
      nub_version_release(&a);
    }
    if (better)
      nub_strmap_put(&hoist, p->g->name, p);
  }
  for (size_t i = 0; i < c->n; i++) {
    struct ipkg *p = &c->p[i];
    const struct nub_index *idx = p->g->fetch ? p->g->fetch->index : NULL;
    const char *s, *e;
    if (!idx || !idx->phantoms || !*idx->phantoms)
      continue;
    for (s = idx->phantoms; *s; s = *e ? e + 1 : e) {
      char name[215];
      struct ipkg *to;
      e = strchr(s, ',');
      if (!e)
        e = s + strlen(s);
      if ((size_t)(e - s) >= sizeof(name))
        continue;
      memcpy(name, s, (size_t)(e - s));
      name[e - s] = '\0';
      to = nub_strmap_get(&hoist, name);
      if (!to || to == p || has_edge(p, name))
        continue;
      p->edges = nub_realloc(p->edges, sizeof(*p->edges) * (p->nedges + 1));
      p->edges[p->nedges].alias = to->g->name; /* borrowed from the graph */
      p->edges[p->nedges].to = to;
      p->nedges++;
    }
  }
  nub_strmap_release(&hoist, NULL);
}

static int prepare(struct ictx *c)
{
  size_t *stack;
  bool *seen, changed = true;

  c->p = nub_calloc(c->g->npkgs + 1, sizeof(*c->p));
  for (size_t i = 0; i < c->g->npkgs; i++) {
    struct nub_gpkg *g = c->g->pkgs[i];
    if (g->skip)
      continue;
    c->p[c->n].g = g;
    nub_dep_path_filename(g->key, c->p[c->n].dir, sizeof(c->p[c->n].dir));
    nub_strmap_put(&c->bykey, g->key, &c->p[c->n]);
    c->n++;
  }
  for (size_t i = 0; i < c->n; i++) {
    struct ipkg *p = &c->p[i];
    struct nub_gpkg *g = p->g;
    size_t total = g->ndeps + g->noptional_deps;
    p->edges = nub_calloc(total + 1, sizeof(*p->edges));
    for (size_t k = 0; k < total; k++) {
      const struct nub_gedge *e = k < g->ndeps ? &g->deps[k] : &g->optional_deps[k - g->ndeps];
      char *t = nub_gedge_target(e->alias, e->ref);
      struct ipkg *to = t ? nub_strmap_get(&c->bykey, t) : NULL;
      nub_free(t);
      if (!to && !strncmp(e->ref, "link:", 5) && e->ref[5] && e->ref[5] != '/' &&
          safe_rel(e->ref + 5)) {
        /* a folder of the project: this package's entry is the project's */
        p->edges[p->nedges].alias = e->alias;
        p->edges[p->nedges].to = NULL;
        p->edges[p->nedges].link = e->ref + 5;
        p->nedges++;
        p->has_link = true;
        continue;
      }
      if (!to)
        continue; /* skipped (another platform) */
      p->edges[p->nedges].alias = e->alias;
      p->edges[p->nedges].to = to;
      p->edges[p->nedges].link = NULL;
      p->nedges++;
    }
    /* a lockfile may not say that a package builds (npm's, bun's, yarn's
     * do not always): what was fetched does */
    p->local = !c->o->gvs ||
               ((g->requires_build || (g->fetch && nub_lifecycle_builds(g->fetch))) &&
                trusted(c->o, g->name, g->version)) ||
               g->directory || p->has_link;
  }
  add_phantom_edges(c);
  /* a package that links to a project-local one is project-local too */
  while (changed) {
    changed = false;
    for (size_t i = 0; i < c->n; i++) {
      if (c->p[i].local)
        continue;
      for (size_t e = 0; e < c->p[i].nedges; e++)
        if (c->p[i].edges[e].to && c->p[i].edges[e].to->local) {
          c->p[i].local = true;
          changed = true;
          break;
        }
    }
  }
  for (size_t i = 0; i < c->n; i++)
    c->p[i].g->local = c->p[i].local; /* for the state the driver records */
  stack = nub_malloc(sizeof(size_t) * (c->n + 1));
  seen = nub_malloc(c->n + 1);
  c->byrank = nub_malloc(sizeof(size_t) * (c->n + 1));
  {
    struct keyed *k = nub_malloc(sizeof(*k) * (c->n + 1));
    for (size_t i = 0; i < c->n; i++) {
      struct nub_gpkg *g = c->p[i].g;
      k[i].key = g->key;
      k[i].i = i;
      /* a prepared git package is another package than the same commit
       * packed as it is (prepare.h): another entry */
      c->p[i].line = nub_asprintf("%s\t%s%s\n", g->key, g->integrity ? g->integrity : "",
                                  g->fetch && g->fetch->prepare ? "\tprepared" : "");
      c->p[i].linelen = strlen(c->p[i].line);
    }
    nub_sort(k, c->n, sizeof(*k), cmp_keyed);
    for (size_t i = 0; i < c->n; i++)
      c->byrank[i] = k[i].i;
    nub_free(k);
  }
  for (size_t i = 0; i < c->n; i++) {
    char h[33];
    if (c->p[i].local)
      continue;
    closure_hash(c, &c->p[i], seen, stack, h);
    snprintf(c->p[i].entry, sizeof(c->p[i].entry), "%s-%s", c->p[i].dir, h);
  }
  nub_free(stack);
  nub_free(seen);
  return 0;
}

/* Whether t's entry is its package tree (packages/<key>) rather than a
 * directory in links/ (decided in decide_one). */
static bool entry_is_tree(const struct ipkg *t)
{
  return t->disp == D_READY || t->disp == D_ADOPT;
}

/* A link from the project to a package in the global virtual store points
 * at its entry there by absolute path: the project keeps no name of its own
 * for it, so that a warm install makes one link per direct dependency, not
 * one per package (a target that long is a block of its own on ext4). */
static void gvs_target(const struct ictx *c, const struct ipkg *t, struct nub_buf *b)
{
  if (entry_is_tree(t))
    nub_buf_addf(b, "%s/packages/%s/node_modules/%s", c->store->root,
                 t->g->fetch->index->key, t->g->name);
  else
    nub_buf_addf(b, "%s/%s/node_modules/%s", c->links_abs, t->entry, t->g->name);
}

/* The package's dependency links, in base at "<prefix>node_modules/".
 * Siblings in the global virtual store are reached as <to_links><entry> or
 * <to_packages><key>, the prefixes saying how links/ and packages/ are
 * reached from two levels above the link; in the project (to_links NULL)
 * through their .nub/<dir> names if they are there too, else at their
 * entries in the store. */
static int link_deps(struct ictx *c, struct ipkg *p, int base_fd, const char *prefix,
                     const char *to_links, const char *to_packages, const char *what)
{
  struct nub_buf path = NUB_BUF_INIT, tgt = NUB_BUF_INIT;
  int rc = 0;

  for (size_t e = 0; e < p->nedges; e++) {
    struct ipkg *t = p->edges[e].to;
    const char *alias = p->edges[e].alias;
    if (!strcmp(alias, p->g->name))
      continue; /* a package never links itself over its own files */
    nub_buf_reset(&path);
    nub_buf_reset(&tgt);
    nub_buf_addf(&path, "%snode_modules/%s", prefix, alias);
    if (!t) {
      /* a folder of the project, from node_modules/.nub/<dir>/node_modules
       * (this package is the project's: never in the shared store) */
      up_levels(&tgt, alias, 2);
      nub_buf_addf(&tgt, "../../%s", p->edges[e].link);
    } else if (!to_links && !t->local) {
      gvs_target(c, t, &tgt);
    } else {
      up_levels(&tgt, alias, 2);
      if (to_links && !t->local && entry_is_tree(t))
        nub_buf_addf(&tgt, "%s%s/node_modules/%s", to_packages, t->g->fetch->index->key,
                     t->g->name);
      else if (to_links && !t->local)
        nub_buf_addf(&tgt, "%s%s/node_modules/%s", to_links, t->entry, t->g->name);
      else
        nub_buf_addf(&tgt, "%s/node_modules/%s", t->dir, t->g->name);
    }
    rc = nub_plat_symlink_at(tgt.data, base_fd, path.data);
    if (rc == -ENOENT && strchr(alias, '/')) { /* the scope's directory, once */
      char *scope = nub_strndup(path.data, (size_t)(strrchr(path.data, '/') - path.data));
      nub_mkdirs_at(base_fd, scope);
      nub_free(scope);
      rc = nub_plat_symlink_at(tgt.data, base_fd, path.data);
    }
    if (rc < 0 && rc != -EEXIST) {
      fail(c, rc, "cannot link %s of %s: %s", alias, what, nub_strerror(rc));
      break;
    }
    rc = 0;
  }
  nub_buf_release(&path);
  nub_buf_release(&tgt);
  return rc;
}

/* The package's files plus its dependency links, under base (a directory fd)
 * at "<prefix>node_modules/". */
static int build_entry(struct ictx *c, struct ipkg *p, int base_fd, const char *prefix,
                       bool gvs_siblings, int worker)
{
  struct nub_err err;
  struct nub_buf path = NUB_BUF_INIT;
  const struct nub_index *idx = p->g->fetch ? p->g->fetch->index : NULL;
  char what[512];
  int rc;

  snprintf(what, sizeof(what), "%s@%s", p->g->name, p->g->version);
  if (!idx)
    return nub_err_set(&c->err, -NUB_ESTORE, "%s is not in the store", what), -NUB_ESTORE;
  nub_buf_addf(&path, "%snode_modules/%s", prefix, p->g->name);
  rc = nub_link_package(c->l, idx, base_fd, path.data, what, &c->stats[worker], &err);
  nub_buf_release(&path);
  if (rc < 0) {
    fail(c, rc, "%s", err.msg);
    return rc;
  }
  return link_deps(c, p, base_fd, prefix, gvs_siblings ? "" : NULL, "../packages/", what);
}

/* A package the store holds as a tree (packages/<key>/node_modules/<name>)
 * becomes the entry of the first closure that needs it, where it is: its
 * dependency links go beside it and the project links to packages/<key>.
 * No file is linked or copied, and nothing is added to the shared links/
 * directory (whose lock the threads would queue on). In packages/<key>:
 *   owner  a symlink naming the entry the tree is claimed for (made
 *          atomically: one closure gets it; an install of the same closure
 *          may finish what another started, its links being the same)
 *   ready  the same, made once the dependency links are in: a warm install
 *          trusts the tree as the entry when this names its entry
 * Any other closure gets an entry of its own, hard-linked from the tree. */
static bool adoptable(const struct ictx *c, const struct nub_index *idx)
{
  return idx && idx->tree && c->l->nrungs && c->l->ladder[0] != NUB_PRIM_CLONEDIR;
}

static bool marker_is(struct ictx *c, const char *key, const char *marker, const char *entry)
{
  char path[96], cur[300];

  snprintf(path, sizeof(path), "%s/%s", key, marker);
  return nub_plat_readlink_at(c->store->packages_fd, path, cur, sizeof(cur)) >= 0 &&
         !strcmp(cur, entry);
}

/* Claim the tree for p's entry: true when it is (now or already) ours. */
static bool claim(struct ictx *c, struct ipkg *p, const char *key)
{
  char path[96];
  int rc;

  snprintf(path, sizeof(path), "%s/owner", key);
  rc = nub_plat_symlink_at(p->entry, c->store->packages_fd, path);
  return rc == 0 || (rc == -EEXIST && marker_is(c, key, "owner", p->entry));
}

static int finish_adoption(struct ictx *c, struct ipkg *p)
{
  const char *key = p->g->fetch->index->key;
  char prefix[80], what[512], path[96];
  int rc;

  snprintf(what, sizeof(what), "%s@%s", p->g->name, p->g->version);
  /* the links sit two levels below packages/<key>: ../links/ from there */
  snprintf(prefix, sizeof(prefix), "%s/", key);
  rc = link_deps(c, p, c->store->packages_fd, prefix, "../links/", "", what);
  if (rc < 0)
    return rc;
  snprintf(path, sizeof(path), "%s/ready", key);
  rc = nub_plat_symlink_at(p->entry, c->store->packages_fd, path);
  if (rc < 0 && rc != -EEXIST) {
    fail(c, rc, "cannot publish %s in the global virtual store: %s", p->entry,
         nub_strerror(rc));
    return rc;
  }
  return 0;
}

/* Pass one, before anything is linked: what becomes of each package. */
static void decide_one(void *vctx, size_t i, int worker)
{
  struct ictx *c = vctx;
  struct ipkg *p = &c->p[i];
  const struct nub_index *idx = p->g->fetch ? p->g->fetch->index : NULL;
  struct nub_plat_stat st;
  bool tree = adoptable(c, idx);

  (void)worker;
  if (p->local) {
    p->disp = D_LOCAL;
    return;
  }
  /* a tree this install just unpacked is nobody's entry yet (or, raced,
   * the claim says whose): straight to the claim */
  if (tree && p->g->fetch->imported) {
    p->disp = claim(c, p, idx->key) ? D_ADOPT : D_BUILD;
    return;
  }
  if (tree && marker_is(c, idx->key, "ready", p->entry)) {
    p->disp = D_READY;
    return;
  }
  if (nub_plat_stat_follow_at(c->links_fd, p->entry, &st) == 0) {
    p->disp = D_REUSED;
    return;
  }
  if (nub_plat_stat_at(c->links_fd, p->entry, &st) == 0 && st.type == NUB_FT_LINK)
    nub_plat_unlink_at(c->links_fd, p->entry, false); /* its tree is gone */
  p->disp = tree && claim(c, p, idx->key) ? D_ADOPT : D_BUILD;
}

struct by_size {
  size_t size, i;
};

static int cmp_size_desc(const void *a, const void *b)
{
  const struct by_size *x = a, *y = b;
  if (x->size != y->size)
    return x->size < y->size ? 1 : -1;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* The absolute path of a project-relative one. */
static char *abs_of(const struct ictx *c, const char *rel)
{
  return nub_asprintf("%s/%s", c->o->proj_dir, rel);
}

/* A file: directory is used where it is, as npm links it: its dependencies
 * go into its own node_modules, as links to their entries in the
 * project's .nub or the store (Node resolves from the directory's real
 * path). */
static int link_dir_deps(struct ictx *c, struct ipkg *p)
{
  char *dir = abs_of(c, p->g->directory), *nm = nub_asprintf("%s/node_modules", dir);
  int rc = nub_plat_mkdir_p(nm, 0755);

  if (rc < 0 && rc != -EEXIST) {
    fail(c, rc, "cannot create %s: %s", nm, nub_strerror(rc));
    goto out;
  }
  rc = 0;
  for (size_t e = 0; e < p->nedges && rc == 0; e++) {
    struct ipkg *t = p->edges[e].to;
    char *at = nub_asprintf("%s/%s", nm, p->edges[e].alias), *parent = nub_strdup(at);
    char *to, rel[4096];
    if (!t) {
      to = abs_of(c, p->edges[e].link);
    } else if (t->local) {
      to = nub_asprintf("%s/node_modules/.nub/%s/node_modules/%s", c->o->proj_dir, t->dir,
                        t->g->name);
    } else {
      struct nub_buf b = NUB_BUF_INIT;
      gvs_target(c, t, &b);
      to = nub_buf_take(&b);
    }
    *strrchr(parent, '/') = '\0';
    nub_plat_mkdir_p(parent, 0755); /* a scope */
    if (!t || t->local ? nub_path_relative(parent, to, rel, sizeof(rel)) < 0
                 : (size_t)snprintf(rel, sizeof(rel), "%s", to) >= sizeof(rel)) {
      rc = fail_rc(c, -ENAMETOOLONG, "cannot link %s: the path is too long", at);
    } else {
      nub_plat_rm_rf_at(NUB_PLAT_CWD, at);
      rc = nub_plat_symlink_at(rel, NUB_PLAT_CWD, at);
      if (rc < 0)
        fail(c, rc, "cannot link %s: %s", at, nub_strerror(rc));
    }
    nub_free(at);
    nub_free(parent);
    nub_free(to);
  }
out:
  nub_free(dir);
  nub_free(nm);
  return rc;
}

/* A package of the global virtual store is ready for the project's links. */
static void linked(struct ictx *c, const struct ipkg *p)
{
  nub_progress_add(c->prog, &c->prog->linked, 1);
  if (NUB_DIAG_ON()) {
    char what[512];
    snprintf(what, sizeof(what), "%s@%s", p->g->name, p->g->version);
    nub_diag_mark("linked", what);
  }
}

static void link_one(void *vctx, size_t k, int worker)
{
  struct ictx *c = vctx;
  size_t i = c->order[k];
  struct ipkg *p = &c->p[i];
  char nmpath[600];
  int rc;

  if (c->rc || nub_plat_interrupted())
    return;
  snprintf(nmpath, sizeof(nmpath), "node_modules/.nub/%s", p->dir);
  if (p->g->directory) {
    if (link_dir_deps(c, p) == 0)
      nub_progress_add(c->prog, &c->prog->linked, 1);
    return;
  }
  if (p->disp == D_LOCAL) {
    struct nub_plat_stat st;
    char prefix[600];
    if (nub_plat_stat_at(c->proj_fd, nmpath, &st) == 0)
      return; /* kept from the previous install */
    snprintf(prefix, sizeof(prefix), "%s/", nmpath);
    /* in the project, siblings are reached through .nub/<dir> names */
    if (build_entry(c, p, c->proj_fd, prefix, false, worker) == 0)
      nub_progress_add(c->prog, &c->prog->linked, 1);
    __atomic_add_fetch(&c->built, 1, __ATOMIC_RELAXED);
    return;
  }
  if (p->disp == D_ADOPT) {
    if (finish_adoption(c, p) == 0) {
      __atomic_add_fetch(&c->adopted, 1, __ATOMIC_RELAXED);
      linked(c, p);
    }
    return;
  }
  if (p->disp != D_BUILD) {
    __atomic_add_fetch(&c->reused, 1, __ATOMIC_RELAXED);
    linked(c, p);
    return;
  }
  {
    /* build it beside the others under a private name, then publish it
     * with a rename that never replaces: a racing install's copy wins */
    char tmp[128];
    int tfd;
    snprintf(tmp, sizeof(tmp), ".tmp-%d-%zu", nub_plat_pid(), i);
    rc = nub_plat_mkdir_at(c->links_fd, tmp, 0755);
    if (rc == -EEXIST) { /* left by a crashed process that had our pid */
      nub_plat_rm_rf_at(c->links_fd, tmp);
      rc = nub_plat_mkdir_at(c->links_fd, tmp, 0755);
    }
    if (rc < 0) {
      fail(c, rc, "cannot create %s/%s: %s", c->links_abs, tmp, nub_strerror(rc));
      return;
    }
    tfd = nub_plat_open_dir_at(c->links_fd, tmp);
    rc = tfd < 0 ? tfd : build_entry(c, p, tfd, "", true, worker);
    nub_plat_close(tfd);
    {
      bool published = false;
      if (rc == 0) {
        rc = nub_plat_rename_noreplace_at(c->links_fd, tmp, c->links_fd, p->entry);
        published = rc == 0;
        if (rc == -EEXIST || rc == -ENOTEMPTY)
          rc = 0; /* a racing install's copy won; ours goes below */
        else if (rc == 0)
          __atomic_add_fetch(&c->built, 1, __ATOMIC_RELAXED);
      }
      if (!published)
        nub_plat_rm_rf_at(c->links_fd, tmp);
    }
    if (rc < 0)
      fail(c, rc, "cannot publish %s in the global virtual store: %s", p->entry,
           nub_strerror(rc));
    else
      linked(c, p);
  }
}

/* Each importer's direct dependencies in its node_modules: links to their
 * entries in the store, into node_modules/.nub of the project for packages
 * kept there (a member's climb to the project first), to file:
 * directories, and to linked workspace members. */
static int top_links(struct ictx *c)
{
  struct nub_buf path = NUB_BUF_INIT, tgt = NUB_BUF_INIT;
  int rc = 0;

  for (size_t m = 0; m < c->g->nimporters * NUB_DEP_KINDS; m++) {
    const struct nub_importer *im = &c->g->importers[m / NUB_DEP_KINDS];
    int kind = (int)(m % NUB_DEP_KINDS), depth = nub_importer_depth(im);
    const struct nub_gdirect *d;
    size_t n = im->skip ? 0 : nub_importer_directs(im, kind, &d);
    if ((kind == NUB_DEP_DEV && c->o->omit_dev) ||
        (kind == NUB_DEP_OPTIONAL && c->o->omit_optional))
      continue;
    for (size_t i = 0; i < n; i++) {
      char *t = nub_gedge_target(d[i].alias, d[i].ref);
      struct ipkg *p = t ? nub_strmap_get(&c->bykey, t) : NULL;
      nub_free(t);
      nub_buf_reset(&path);
      nub_buf_reset(&tgt);
      if (depth)
        nub_buf_addf(&path, "%s/", im->path);
      nub_buf_addf(&path, "node_modules/%s", d[i].alias);
      if (p && !p->local) {
        gvs_target(c, p, &tgt); /* its entry in the store */
      } else if (p && p->g->directory) {
        char *from = abs_of(c, path.data), *to = abs_of(c, p->g->directory), rel[4096];
        *strrchr(from, '/') = '\0';
        if (nub_path_relative(from, to, rel, sizeof(rel)) == 0)
          nub_buf_adds(&tgt, rel);
        nub_free(from);
        nub_free(to);
      } else if (p) {
        up_levels(&tgt, d[i].alias, 0);
        for (int u = 0; depth && u <= depth; u++)
          nub_buf_adds(&tgt, "../");
        nub_buf_addf(&tgt, "%s.nub/%s/node_modules/%s", depth ? "node_modules/" : "", p->dir,
                     p->g->name);
      } else if (!strncmp(d[i].ref, "link:", 5)) {
        up_levels(&tgt, d[i].alias, 0);
        nub_buf_addf(&tgt, "../%s", d[i].ref + 5);
      } else {
        continue; /* an optional dependency left out on this platform */
      }
      {
        char *parent = nub_strndup(path.data, (size_t)(strrchr(path.data, '/') - path.data));
        if (depth || strchr(d[i].alias, '/'))
          nub_mkdirs_at(c->proj_fd, parent);
        nub_free(parent);
      }
      rc = nub_plat_symlink_at(tgt.data, c->proj_fd, path.data);
      if (rc == -EEXIST) {
        nub_plat_rm_rf_at(c->proj_fd, path.data);
        rc = nub_plat_symlink_at(tgt.data, c->proj_fd, path.data);
      }
      if (rc < 0) {
        nub_err_set(&c->err, rc, "cannot link %s: %s", path.data, nub_strerror(rc));
        goto out;
      }
    }
  }
  /* The hidden hoist: every package once, for undeclared (phantom) deps of
   * the packages in the project. Node resolves a package in the global
   * virtual store from its real path there, so when every package is there
   * the hoist would be links nobody follows (phantom links are in the
   * entries instead). */
  {
    bool any_local = false;
    for (size_t i = 0; i < c->n && !any_local; i++)
      any_local = c->p[i].local && !c->p[i].g->directory;
    if (!any_local)
      goto out;
  }
  nub_mkdirs_at(c->proj_fd, "node_modules/.nub/node_modules");
  for (size_t i = 0; i < c->n; i++) {
    struct ipkg *p = &c->p[i];
    struct nub_plat_stat st;
    if (p->g->directory)
      continue; /* not in .nub: linked where it is */
    nub_buf_reset(&path);
    nub_buf_reset(&tgt);
    nub_buf_addf(&path, "node_modules/.nub/node_modules/%s", p->g->name);
    if (nub_plat_stat_at(c->proj_fd, path.data, &st) == 0)
      continue;
    if (!p->local) {
      gvs_target(c, p, &tgt);
    } else {
      up_levels(&tgt, p->g->name, 0);
      nub_buf_addf(&tgt, "../%s/node_modules/%s", p->dir, p->g->name);
    }
    if (strchr(p->g->name, '/')) {
      char *scope = nub_strndup(path.data, (size_t)(strrchr(path.data, '/') - path.data));
      nub_mkdirs_at(c->proj_fd, scope);
      nub_free(scope);
    }
    nub_plat_symlink_at(tgt.data, c->proj_fd, path.data);
  }
out:
  nub_buf_release(&path);
  nub_buf_release(&tgt);
  return rc;
}

/* Every package's entry in the store, when every package has one. */
static void list_entries(const struct ictx *c, struct nub_isolated_result *res)
{
  for (size_t i = 0; i < c->n; i++)
    if (c->p[i].local)
      return;
  res->entries = nub_calloc(c->n + 1, sizeof(char *));
  for (size_t i = 0; i < c->n; i++) {
    const struct ipkg *p = &c->p[i];
    res->entries[i] = entry_is_tree(p)
                          ? nub_asprintf("%s/packages/%s\t%s", c->store->root,
                                         p->g->fetch->index->key, p->entry)
                          : nub_asprintf("%s/%s\t", c->links_abs, p->entry);
  }
  res->nentries = c->n;
}

struct stray {
  struct nub_strmap keep;
  char **names;
  size_t n, cap;
};

static int stray_entry(void *payload, const char *name, enum nub_plat_ftype type)
{
  struct stray *w = payload;

  if (name[0] != '.' && strcmp(name, "node_modules") &&
      (type == NUB_FT_LINK || !nub_strmap_get(&w->keep, name))) {
    NUB_GROW(w->names, w->cap, w->n + 1);
    w->names[w->n++] = nub_strdup(name);
  }
  return 0;
}

/* node_modules/.nub holds the packages kept in the project and the hidden
 * hoist, nothing else: not a package that moved to the global virtual
 * store since, nor the per-package links an older layout kept there (a
 * link where a package is to be kept would pass for it). It is
 * small, so looking costs one directory read. */
static void drop_strays(struct ictx *c)
{
  struct stray w;

  memset(&w, 0, sizeof(w));
  for (size_t i = 0; i < c->n; i++)
    if (c->p[i].local && !c->p[i].g->directory)
      nub_strmap_put(&w.keep, c->p[i].dir, (void *)1);
  nub_plat_list_dir_at(c->proj_fd, "node_modules/.nub", stray_entry, &w);
  for (size_t i = 0; i < w.n; i++) {
    char *path = nub_asprintf("node_modules/.nub/%s", w.names[i]);
    nub_plat_rm_rf_at(c->proj_fd, path);
    nub_free(path);
    nub_free(w.names[i]);
  }
  nub_free(w.names);
  nub_strmap_release(&w.keep, NULL);
}

int nub_isolated_link(int proj_fd, struct nub_graph *g, struct nub_store *store,
                      struct nub_linker *l, struct nub_pool *pool,
                      struct nub_progress *prog, const struct nub_isolated_opts *o,
                      struct nub_isolated_result *res, struct nub_err *err)
{
  struct ictx c;
  int nw = nub_pool_size(pool), rc;

  memset(res, 0, sizeof(*res));
  memset(&c, 0, sizeof(c));
  c.g = g;
  c.proj_fd = proj_fd;
  c.store = store;
  c.l = l;
  c.prog = prog;
  c.o = o;
  c.links_fd = -1;
  pthread_mutex_init(&c.lock, NULL);
  nub_err_clear(&c.err);
  prepare(&c);
  rc = nub_mkdirs_at(proj_fd, "node_modules");
  if (rc == 0) {
    /* .nub below it then lands in a fresh allocation group, and with it the
     * inodes of its symlinks (see hoisted.c) */
    int nm = nub_plat_open_dir_at(proj_fd, "node_modules");
    if (nm >= 0) {
      nub_plat_spread_hint(nm);
      nub_plat_close(nm);
    }
    rc = nub_mkdirs_at(proj_fd, "node_modules/.nub");
  }
  if (rc < 0) {
    nub_err_set(err, rc, "cannot create node_modules/.nub: %s", nub_strerror(rc));
    goto out;
  }
  {
    int nm = nub_plat_open_dir_at(proj_fd, "node_modules/.nub");
    if (nm >= 0) {
      nub_plat_spread_hint(nm); /* see hoisted.c */
      nub_linker_probe(l, nm);
      nub_plat_close(nm);
    }
  }
  drop_strays(&c);
  if (o->gvs) {
    rc = nub_store_links(store, &c.links_fd, &c.links_abs, err);
    if (rc < 0)
      goto out;
    nub_plat_spread_hint(c.links_fd);
  }
  c.stats = nub_calloc((size_t)nw, sizeof(*c.stats));
  nub_progress_set(prog, &prog->link_total, c.n);
  /* Biggest packages first, so that no thread is left with a big one at
   * the end while the others idle. */
  {
    struct by_size *bs = nub_calloc(c.n + 1, sizeof(*bs));
    c.order = nub_calloc(c.n + 1, sizeof(*c.order));
    for (size_t i = 0; i < c.n; i++) {
      const struct nub_index *idx = c.p[i].g->fetch ? c.p[i].g->fetch->index : NULL;
      bs[i].size = idx ? (size_t)idx->nfiles + idx->ndirs : 0;
      bs[i].i = i;
    }
    nub_sort(bs, c.n, sizeof(*bs), cmp_size_desc);
    for (size_t i = 0; i < c.n; i++)
      c.order[i] = bs[i].i;
    nub_free(bs);
  }
  if (o->gvs)
    nub_pool_for(pool, c.n, decide_one, &c);
  nub_pool_for(pool, c.n, link_one, &c);
  if (!c.rc && nub_plat_interrupted())
    nub_err_set(&c.err, c.rc = -NUB_EINTR, "interrupted while linking");
  if (!c.rc)
    c.rc = top_links(&c);
  for (int i = 0; i < nw; i++)
    nub_link_stats_add(&res->st, &c.stats[i]);
  res->packages = c.n;
  res->built = c.built;
  res->reused = c.reused;
  res->adopted = c.adopted;
  res->files = res->st.files;
  if (!c.rc && o->gvs && o->list_entries)
    list_entries(&c, res);
  rc = c.rc;
  if (rc)
    *err = c.err;
out:
  for (size_t i = 0; i < c.n; i++) {
    nub_free(c.p[i].edges);
    nub_free(c.p[i].line);
  }
  nub_free(c.byrank);
  nub_free(c.p);
  nub_free(c.order);
  nub_free(c.stats);
  nub_strmap_release(&c.bykey, NULL);
  nub_plat_close(c.links_fd);
  nub_free(c.links_abs);
  pthread_mutex_destroy(&c.lock);
  return rc;
}
