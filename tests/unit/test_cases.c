/* test_cases.c - the data-driven cases of tests/cases: each file a small
 * registry, a project, and what the resolver and the hoisters must make of
 * them, run without the network (in the manner of libsolv's testcases).
 *
 * A case file, line by line ('#' starts a comment; the first is its title):
 *
 *   pkg <name> <version> [<dep>@<range>] [opt:<dep>@<range>]
 *       [peer:<dep>@<range>] [optpeer:<dep>@<range>] [bin:<cmd>]
 *                               one version the registry has
 *   tag <name> <tag> <version>  a dist-tag (latest defaults to the highest)
 *   file <path>                 a file of the project, up to a line "end"
 *   expect graph                the resolver's graph, up to "end"
 *   expect tree <hoister>       npm, bun or yarn: the hoisted tree of the
 *                               resolver's graph (yarn: of yarn.lock's
 *                               graph when the project has one); berry: the
 *                               tree of the project's berry yarn.lock
 *   expect error <text>         the resolver fails with a message holding
 *                               text
 *   known <what>: <reason>      nub is known to differ from the incumbent on
 *                               expectation <what> ("tree npm"): the case
 *                               still runs it, says KNOWN with the reason
 *                               when it differs, and fails when it no
 *                               longer does (drop the line then). Each is
 *                               an open difference, listed, never hidden.
 *
 * A graph reads one line per importer ("." first) and package (by key):
 * "<key> -> <dep> ...", each dep its target's key, "alias=" before it when
 * it is known by another name, "dev:" or "opt:" before a direct
 * dependency of those kinds and "opt:" before an optional one. A tree
 * reads one line per folder, by path: "<path> <name>@<version>", or
 * "<path> -> <target>" for a link, "<path> (member)" for a workspace
 * member's folder.
 *
 * NUB_CASES_DIR names the folder (CMake sets it); NUB_CASE=<name> runs one
 * case; a failing case prints what it got in the file's own words, so a
 * new case can be written by running it with an empty expectation. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nub_test.h"

#include "berry.h"
#include "buf.h"
#include "config.h"
#include "err.h"
#include "graph.h"
#include "hoist_bun.h"
#include "hoist_npm.h"
#include "hoist_yarn.h"
#include "lockfile_yarn.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "pkgtab.h"
#include "registry.h"
#include "semver.h"
#include "resolve.h"
#include "source.h"
#include "strmap.h"
#include "tree.h"
#include "workspace.h"

#ifndef NUB_CASES_DIR
#define NUB_CASES_DIR "tests/cases"
#endif

/* ---- the case file ------------------------------------------------------- */

struct cpkg {
  char *name, *version;
  struct nub_buf deps, opt, peer, peer_meta, bin; /* JSON members, comma-led */
};

struct expect {
  char *what; /* "graph", "tree npm", "error" */
  struct nub_buf text;
  char *known; /* the reason nub is known to differ, or NULL */
};

struct tcase {
  char *path, *title;
  struct cpkg *pkgs;
  size_t npkgs;
  struct nub_depmap tags; /* "name tag" -> version */
  struct nub_depmap files; /* path -> content */
  struct nub_depmap known; /* expectation -> why nub differs */
  struct expect *exp;
  size_t nexp;
};

static char *trim(char *s)
{
  char *e;
  while (*s == ' ' || *s == '\t')
    s++;
  e = s + strlen(s);
  while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
    *--e = '\0';
  return s;
}

static void depmap_add(struct nub_depmap *m, const char *k, const char *v)
{
  m->v = nub_realloc(m->v, (m->n + 1) * sizeof(*m->v));
  m->v[m->n].name = nub_strdup(k);
  m->v[m->n].spec = nub_strdup(v);
  m->n++;
}

/* "b@^1", "@s/b@1.x": the name and the range (split at the last '@' past
 * the first character). */
static void split_dep(const char *tok, char *name, size_t cap, const char **range)
{
  const char *at = strrchr(tok + 1, '@');
  snprintf(name, cap, "%.*s", (int)(at ? (size_t)(at - tok) : strlen(tok)), tok);
  *range = at ? at + 1 : "*";
}

static void parse_pkg(struct tcase *c, char *line)
{
  struct cpkg *p;
  char *save = NULL, *tok;

  c->pkgs = nub_realloc(c->pkgs, (c->npkgs + 1) * sizeof(*c->pkgs));
  p = &c->pkgs[c->npkgs++];
  memset(p, 0, sizeof(*p));
  p->name = nub_strdup(strtok_r(line, " \t", &save));
  p->version = nub_strdup(strtok_r(NULL, " \t", &save));
  while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
    struct nub_buf *into = &p->deps;
    char name[256];
    const char *range;
    if (!strncmp(tok, "opt:", 4)) {
      into = &p->opt;
      tok += 4;
    } else if (!strncmp(tok, "peer:", 5)) {
      into = &p->peer;
      tok += 5;
    } else if (!strncmp(tok, "optpeer:", 8)) {
      into = &p->peer;
      tok += 8;
      split_dep(tok, name, sizeof(name), &range);
      nub_buf_addf(&p->peer_meta, "%s\"%s\":{\"optional\":true}", p->peer_meta.len ? "," : "",
                   name);
    } else if (!strncmp(tok, "bin:", 4)) {
      nub_buf_addf(&p->bin, "%s\"%s\":\"bin/%s.js\"", p->bin.len ? "," : "", tok + 4, tok + 4);
      continue;
    }
    split_dep(tok, name, sizeof(name), &range);
    nub_buf_addf(into, "%s\"%s\":\"%s\"", into->len ? "," : "", name, range);
  }
}

static int load_case(struct tcase *c, const char *path)
{
  FILE *f = fopen(path, "r");
  char line[4096];
  struct nub_buf *block = NULL;
  char *file_name = NULL;

  memset(c, 0, sizeof(*c));
  if (!f)
    return -errno;
  c->path = nub_strdup(path);
  while (fgets(line, sizeof(line), f)) {
    char *s;
    if (block) {
      char copy[sizeof(line)];
      snprintf(copy, sizeof(copy), "%s", line);
      if (!strcmp(trim(copy), "end")) {
        if (file_name) {
          depmap_add(&c->files, file_name, nub_buf_str(block));
          nub_free(file_name);
          file_name = NULL;
          nub_buf_release(block);
          nub_free(block);
        }
        block = NULL;
        continue;
      }
      nub_buf_addf(block, "%s", line);
      continue;
    }
    s = trim(line);
    if (!*s)
      continue;
    if (*s == '#') {
      if (!c->title)
        c->title = nub_strdup(trim(s + 1));
      continue;
    }
    if (!strncmp(s, "pkg ", 4)) {
      parse_pkg(c, s + 4);
    } else if (!strncmp(s, "tag ", 4)) {
      char n[256], t[64], v[64], key[400];
      if (sscanf(s + 4, "%255s %63s %63s", n, t, v) == 3) {
        snprintf(key, sizeof(key), "%s %s", n, t);
        depmap_add(&c->tags, key, v);
      }
    } else if (!strncmp(s, "file ", 5)) {
      file_name = nub_strdup(trim(s + 5));
      block = nub_calloc(1, sizeof(*block));
    } else if (!strncmp(s, "known ", 6)) {
      char *colon = strchr(s + 6, ':');
      if (!colon)
        fail_msg("%s: \"known <what>: <reason>\" has no reason", path);
      *colon = '\0';
      depmap_add(&c->known, trim(s + 6), trim(colon + 1));
    } else if (!strncmp(s, "expect ", 7)) {
      struct expect *e;
      c->exp = nub_realloc(c->exp, (c->nexp + 1) * sizeof(*c->exp));
      e = &c->exp[c->nexp++];
      memset(e, 0, sizeof(*e));
      if (!strncmp(s + 7, "error ", 6)) {
        e->what = nub_strdup("error");
        nub_buf_addf(&e->text, "%s", trim(s + 13));
      } else {
        e->what = nub_strdup(trim(s + 7));
        block = &e->text;
      }
    } else {
      fclose(f);
      fail_msg("%s: cannot read the line '%s'", path, s);
    }
  }
  fclose(f);
  if (block)
    fail_msg("%s: a block has no \"end\"", path);
  return 0;
}

static void free_case(struct tcase *c)
{
  for (size_t i = 0; i < c->npkgs; i++) {
    nub_free(c->pkgs[i].name);
    nub_free(c->pkgs[i].version);
    nub_buf_release(&c->pkgs[i].deps);
    nub_buf_release(&c->pkgs[i].opt);
    nub_buf_release(&c->pkgs[i].peer);
    nub_buf_release(&c->pkgs[i].peer_meta);
    nub_buf_release(&c->pkgs[i].bin);
  }
  nub_free(c->pkgs);
  nub_depmap_release(&c->tags);
  nub_depmap_release(&c->files);
  nub_depmap_release(&c->known);
  for (size_t i = 0; i < c->nexp; i++) {
    nub_free(c->exp[i].what);
    nub_buf_release(&c->exp[i].text);
  }
  nub_free(c->exp);
  nub_free(c->path);
  nub_free(c->title);
}

/* ---- the registry of a case ------------------------------------------------ */

struct creg {
  struct tcase *c;
  const struct nub_config *cfg;
  struct nub_strmap docs; /* name -> struct nub_packument * */
};

static int reg_versions(void *ud, const char *name, bool again,
                        const struct nub_packument **out, struct nub_err *err)
{
  struct creg *r = ud;
  struct nub_packument *p = nub_strmap_get(&r->docs, name);
  struct nub_buf j = NUB_BUF_INIT;
  const char *latest = NULL;
  int rc, n = 0;

  (void)again;
  if (p) {
    *out = p;
    return 0;
  }
  nub_buf_addf(&j, "{\"name\":\"%s\",\"versions\":{", name);
  for (size_t i = 0; i < r->c->npkgs; i++) {
    const struct cpkg *k = &r->c->pkgs[i];
    if (strcmp(k->name, name))
      continue;
    nub_buf_addf(&j,
                 "%s\"%s\":{\"name\":\"%s\",\"version\":\"%s\",\"dependencies\":{%s},"
                 "\"optionalDependencies\":{%s},\"peerDependencies\":{%s},"
                 "\"peerDependenciesMeta\":{%s}%s%s%s,\"dist\":{\"tarball\":"
                 "\"http://cases.invalid/%s/-/%s-%s.tgz\"}}",
                 n++ ? "," : "", k->version, name, k->version, nub_buf_str(&k->deps),
                 nub_buf_str(&k->opt), nub_buf_str(&k->peer), nub_buf_str(&k->peer_meta),
                 k->bin.len ? ",\"bin\":{" : "", nub_buf_str(&k->bin), k->bin.len ? "}" : "",
                 name, strrchr(name, '/') ? strrchr(name, '/') + 1 : name, k->version);
  }
  nub_buf_addf(&j, "},\"dist-tags\":{");
  n = 0;
  for (size_t i = 0; i < r->c->tags.n; i++) {
    size_t nl = strlen(name);
    if (!strncmp(r->c->tags.v[i].name, name, nl) && r->c->tags.v[i].name[nl] == ' ') {
      nub_buf_addf(&j, "%s\"%s\":\"%s\"", n++ ? "," : "", r->c->tags.v[i].name + nl + 1,
                   r->c->tags.v[i].spec);
      if (!strcmp(r->c->tags.v[i].name + nl + 1, "latest"))
        latest = r->c->tags.v[i].spec;
    }
  }
  if (!latest) {
    /* the highest version, as a registry's latest usually is */
    const struct cpkg *hi = NULL;
    for (size_t i = 0; i < r->c->npkgs; i++)
      if (!strcmp(r->c->pkgs[i].name, name)) {
        struct nub_version a = {0}, b = {0};
        bool higher = hi && nub_version_parse(&a, r->c->pkgs[i].version) == 0 &&
                      nub_version_parse(&b, hi->version) == 0 && nub_version_cmp(&a, &b) > 0;
        if (hi) {
          nub_version_release(&a);
          nub_version_release(&b);
        }
        if (!hi || higher)
          hi = &r->c->pkgs[i];
      }
    if (hi)
      nub_buf_addf(&j, "%s\"latest\":\"%s\"", n ? "," : "", hi->version);
  }
  nub_buf_addf(&j, "}}");
  if (!strstr(nub_buf_str(&j), "\"version\":")) {
    nub_buf_release(&j);
    return nub_err_set(err, -NUB_ENOTFOUND, "%s is not in the case's registry", name);
  }
  rc = nub_packument_parse(&p, j.data, j.len, name, r->cfg, err);
  nub_buf_release(&j);
  if (rc < 0)
    return rc;
  nub_strmap_put(&r->docs, name, p);
  *out = p;
  return 0;
}

static void reg_want(void *ud, const char *name)
{
  (void)ud;
  (void)name;
}

static int reg_git(void *ud, const struct nub_gitspec *g, const char *what, char commit[41],
                   struct nub_err *err)
{
  (void)ud;
  (void)g;
  (void)commit;
  return nub_err_set(err, -NUB_ENETWORK, "%s: the cases have no git", what);
}

static int reg_checkout(void *ud, const char *url, const char *ref, const char *what,
                        char commit[41], char **dir, struct nub_err *err)
{
  (void)ud;
  (void)url;
  (void)ref;
  (void)dir;
  (void)commit;
  return nub_err_set(err, -NUB_ENETWORK, "%s: the cases have no git", what);
}

static void free_doc(void *v) { nub_packument_free(v); }

/* Whether the case's registry gives name@version peer dependencies (what
 * yarn 1 reads from the package itself). */
static bool case_has_peers(void *ud, const struct nub_gpkg *p)
{
  const struct tcase *c = ud;
  for (size_t i = 0; i < c->npkgs; i++)
    if (!strcmp(c->pkgs[i].name, p->name) && !strcmp(c->pkgs[i].version, p->version))
      return c->pkgs[i].peer.len > 0;
  return p->peers.n > 0;
}

/* ---- what came out, in the file's words ------------------------------------ */

static void dump_edge(struct nub_buf *out, const char *prefix, const char *alias, const char *ref)
{
  char *t = nub_gedge_target(alias, ref);
  const char *shown = t ? t : ref;
  size_t al = strlen(alias);
  bool same = !strncmp(shown, alias, al) && shown[al] == '@';

  nub_buf_addf(out, " %s%s%s%s", prefix, same ? "" : alias, same ? "" : "=", shown);
  nub_free(t);
}

static void dump_graph(const struct nub_graph *g, struct nub_buf *out)
{
  static const char *const kinds[NUB_DEP_KINDS] = {"", "opt:", "dev:"};
  for (size_t i = 0; i < g->nimporters; i++) {
    nub_buf_addf(out, "%s ->", g->importers[i].path);
    for (int k = 0; k < NUB_DEP_KINDS; k++) {
      const struct nub_gdirect *d;
      size_t n = nub_importer_directs(&g->importers[i], k, &d);
      for (size_t e = 0; e < n; e++)
        dump_edge(out, kinds[k], d[e].alias, d[e].ref);
    }
    nub_buf_addf(out, "\n");
  }
  for (size_t i = 0; i < g->npkgs; i++) {
    const struct nub_gpkg *p = g->pkgs[i];
    nub_buf_addf(out, "%s", p->key);
    if (p->ndeps + p->noptional_deps)
      nub_buf_addf(out, " ->");
    for (size_t e = 0; e < p->ndeps; e++)
      dump_edge(out, "", p->deps[e].alias, p->deps[e].ref);
    for (size_t e = 0; e < p->noptional_deps; e++)
      dump_edge(out, "opt:", p->optional_deps[e].alias, p->optional_deps[e].ref);
    nub_buf_addf(out, "\n");
  }
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void dump_lines(char **lines, size_t n, struct nub_buf *out)
{
  qsort(lines, n, sizeof(*lines), cmp_str);
  for (size_t i = 0; i < n; i++) {
    nub_buf_addf(out, "%s\n", lines[i]);
    nub_free(lines[i]);
  }
  nub_free(lines);
}

static void dump_tree(const struct nub_tree *t, struct nub_buf *out)
{
  char **lines = nub_calloc(t->n + 1, sizeof(char *));
  size_t n = 0;

  for (size_t i = 0; i < t->n; i++) {
    const struct nub_node *nd = &t->nodes[i];
    if (nd->flags & NUB_NF_LINK)
      lines[n++] = nub_asprintf("%s -> %s", nd->path, nd->link_target);
    else if (nd->flags & NUB_NF_LOCAL || !nd->pkg)
      lines[n++] = nub_asprintf("%s (member)", nd->path);
    else
      lines[n++] = nub_asprintf("%s %s@%s", nd->path, nd->pkg->name, nd->pkg->version);
  }
  dump_lines(lines, n, out);
}

static void dump_bun(const struct nub_bun_place *v, size_t nv, struct nub_buf *out)
{
  char **lines = nub_calloc(nv + 1, sizeof(char *));
  size_t n = 0;

  for (size_t i = 0; i < nv; i++) {
    /* bun.lock's keys are paths without node_modules: shown as folders */
    struct nub_buf path = NUB_BUF_INIT;
    const char *k = v[i].key;
    /* "a/b" is node_modules/a/node_modules/b; a scope's '/' stays */
    nub_buf_addf(&path, "node_modules/");
    while (*k) {
      const char *slash = strchr(*k == '@' ? strchr(k, '/') + 1 : k, '/');
      size_t len = slash ? (size_t)(slash - k) : strlen(k);
      nub_buf_addf(&path, "%.*s", (int)len, k);
      k += len;
      if (*k == '/') {
        nub_buf_addf(&path, "/node_modules/");
        k++;
      }
    }
    if (v[i].link)
      lines[n++] = nub_asprintf("%s -> %s", nub_buf_str(&path), v[i].link);
    else if (v[i].member)
      lines[n++] = nub_asprintf("%s (member)", nub_buf_str(&path));
    else
      lines[n++] = nub_asprintf("%s %s@%s", nub_buf_str(&path), v[i].pkg->name,
                                v[i].pkg->version);
    nub_buf_release(&path);
  }
  dump_lines(lines, n, out);
}

/* ---- one case --------------------------------------------------------------- */

static struct nub_pkg *berry_identity(void *ud, const char *name, const char *version,
                                      const char *tarball)
{
  char url[600];

  /* a package's identity is its tarball: the registry's, by name@version */
  snprintf(url, sizeof(url), "http://cases.invalid/%s/-/%s.tgz", name, version);
  return nub_pkgtab_get(ud, name, version, tarball ? tarball : url, NULL);
}

/* Run what e asks of the project in dir; the outcome in the file's words. */
static void run_expect(struct tcase *c, const struct expect *e, const char *dir,
                       struct nub_manifest *man, struct nub_workspace *ws,
                       const struct nub_config *cfg, struct nub_buf *got)
{
  struct creg reg = {c, cfg, {0}};
  struct nub_source src = {&reg, reg_want, reg_versions, reg_git, reg_checkout, NULL};
  struct nub_resolve_opts ro;
  struct nub_graph g;
  struct nub_err err = {0};
  const char *yarn_lock = nub_depmap_get(&c->files, "yarn.lock");
  const struct nub_workspace *wsp = ws->source ? ws : NULL;
  int rc = 0;

  nub_graph_init(&g);
  memset(&ro, 0, sizeof(ro));
  ro.project_dir = dir;
  ro.ws = wsp;
  ro.overrides = &man->overrides;
  ro.allow_missing_integrity = true;
  /* yarn 1 installs no missing peer (its format's NUB_LF_NO_AUTO_PEERS);
   * pnpm's graph links members for workspace: only (NUB_LF_WORKSPACE_LINKS_ONLY) */
  ro.no_auto_peers = !strcmp(e->what, "tree yarn");
  ro.no_plain_member_links = !strcmp(e->what, "graph");
  /* a project's own peers, as each tool installs them (the formats'
   * NUB_LF_ROOT_PEERS, _MEMBER_PEERS, _OPTIONAL_IMPORTER_PEERS) */
  ro.importer_peers = !strcmp(e->what, "graph")      ? NUB_PEERS_ROOT | NUB_PEERS_MEMBERS |
                                                           NUB_PEERS_OPTIONAL
                      : !strcmp(e->what, "tree bun") ? NUB_PEERS_ROOT | NUB_PEERS_MEMBERS
                      : !strcmp(e->what, "tree npm") ? NUB_PEERS_MEMBERS
                                                     : 0;
  if (!strcmp(e->what, "tree berry")) {
    struct nub_pkgtab pt = {0};
    struct nub_tree t;
    struct nub_berry_project bp = {dir,   "yarn.lock", man,   wsp,           "linux", "x64",
                                   "glibc", cfg,       false, berry_identity, &pt,
                                   NULL};
    nub_tree_init(&t, &pt);
    rc = yarn_lock ? nub_berry_tree(&t, yarn_lock, strlen(yarn_lock), &bp, &err)
                   : nub_err_set(&err, -NUB_ELOCKFILE, "the case has no yarn.lock");
    if (rc == 0)
      dump_tree(&t, got);
    nub_tree_release(&t);
    nub_pkgtab_release(&pt);
  } else if (!strcmp(e->what, "tree yarn") && yarn_lock) {
    struct nub_pkgtab pt = {0};
    struct nub_tree t;
    nub_tree_init(&t, &pt);
    rc = nub_lockfile_yarn_parse(&g, yarn_lock, strlen(yarn_lock), "yarn.lock", man, wsp, cfg,
                                 NULL, &err);
    if (rc == 0)
      rc = nub_tree_from_graph_yarn(&t, &g, wsp, cfg, case_has_peers, c, &err);
    if (rc == 0)
      dump_tree(&t, got);
    nub_tree_release(&t);
    nub_pkgtab_release(&pt);
  } else {
    rc = nub_resolve(&g, man, &src, &ro, &err);
    if (rc == 0 && !strcmp(e->what, "graph")) {
      dump_graph(&g, got);
    } else if (rc == 0 && !strncmp(e->what, "tree ", 5)) {
      struct nub_pkgtab pt = {0};
      struct nub_tree t;
      nub_tree_init(&t, &pt);
      if (!strcmp(e->what, "tree npm")) {
        rc = nub_tree_from_graph(&t, &g, wsp, cfg, &err);
        if (rc == 0)
          dump_tree(&t, got);
      } else if (!strcmp(e->what, "tree yarn")) {
        rc = nub_tree_from_graph_yarn(&t, &g, wsp, cfg, case_has_peers, c, &err);
        if (rc == 0)
          dump_tree(&t, got);
      } else if (!strcmp(e->what, "tree bun")) {
        struct nub_bun_place *v = NULL;
        size_t nv = 0;
        rc = nub_hoist_bun(&g, man, wsp, &v, &nv, &err);
        if (rc == 0)
          dump_bun(v, nv, got);
        nub_bun_places_free(v, nv);
      } else {
        fail_msg("%s: no such expectation '%s'", c->path, e->what);
      }
      nub_tree_release(&t);
      nub_pkgtab_release(&pt);
    }
  }
  if (rc < 0)
    nub_buf_addf(got, "error %s\n", err.msg);
  nub_graph_release(&g);
  nub_strmap_release(&reg.docs, free_doc);
}

static void run_case(void **state)
{
  struct tcase *c = *state;
  char *dir = nub_test_mkdtemp("case");
  struct nub_manifest man;
  struct nub_workspace ws;
  struct nub_config cfg;
  struct nub_err err = {0};
  int failures = 0;

  memset(&ws, 0, sizeof(ws));
  for (size_t i = 0; i < c->files.n; i++) {
    char *p = nub_asprintf("%s/%s", dir, c->files.v[i].name);
    for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
      *s = '\0';
      (void)mkdir(p, 0755);
      *s = '/';
    }
    nub_test_write(p, c->files.v[i].spec, 0644);
    nub_free(p);
  }
  assert_int_equal(nub_config_load(&cfg, dir, NULL, 0, &err), 0);
  if (nub_manifest_load(&man, dir, &err) < 0)
    fail_msg("%s: %s", c->path, err.msg);
  if (nub_workspace_discover(&ws, dir, &man, &err) < 0 ||
      (ws.source && nub_workspace_load(&ws, &err) < 0))
    fail_msg("%s: %s", c->path, err.msg);
  for (size_t i = 0; i < c->nexp; i++) {
    const struct expect *e = &c->exp[i];
    struct nub_buf got = NUB_BUF_INIT;
    const char *known;
    bool ok;
    run_expect(c, e, dir, &man, &ws, &cfg, &got);
    if (!strcmp(e->what, "error"))
      ok = !strncmp(nub_buf_str(&got), "error ", 6) && strstr(nub_buf_str(&got), e->text.data);
    else
      ok = !strcmp(nub_buf_str(&got), nub_buf_str(&e->text));
    known = nub_depmap_get(&c->known, e->what);
    if (!ok && known) {
      print_message("KNOWN %s: %s: %s\n", c->path, e->what, known);
    } else if (ok && known) {
      failures++;
      print_error("%s: expect %s now holds, but the case says nub differs (%s): drop its "
                  "\"known\" line\n", c->path, e->what, known);
    } else if (!ok) {
      failures++;
      print_error("%s (%s): expect %s\n--- wanted\n%s--- got\n%s---\n", c->path,
                  c->title ? c->title : "", e->what, nub_buf_str(&e->text), nub_buf_str(&got));
    }
    nub_buf_release(&got);
  }
  nub_workspace_release(&ws);
  nub_manifest_release(&man);
  nub_config_release(&cfg);
  nub_free(dir);
  if (failures)
    fail_msg("%s: %d expectation(s) not met", c->path, failures);
}

/* ---- every case file -------------------------------------------------------- */

static void collect(const char *dir, char ***paths, size_t *n)
{
  DIR *d = opendir(dir);
  struct dirent *de;

  if (!d)
    return;
  while ((de = readdir(d)) != NULL) {
    char *p;
    size_t len = strlen(de->d_name);
    if (de->d_name[0] == '.')
      continue;
    p = nub_asprintf("%s/%s", dir, de->d_name);
    if (len > 2 && !strcmp(de->d_name + len - 2, ".t")) {
      *paths = nub_realloc(*paths, (*n + 1) * sizeof(char *));
      (*paths)[(*n)++] = p;
    } else {
      collect(p, paths, n);
      nub_free(p);
    }
  }
  closedir(d);
}

int main(void)
{
  const char *dir = getenv("NUB_CASES_DIR") ? getenv("NUB_CASES_DIR") : NUB_CASES_DIR;
  const char *only = getenv("NUB_CASE");
  char **paths = NULL;
  size_t n = 0, nt = 0;
  struct CMUnitTest *tests;
  struct tcase *cases;
  int rc;

  collect(dir, &paths, &n);
  qsort(paths, n, sizeof(*paths), cmp_str);
  if (!n) {
    fprintf(stderr, "test_cases: no case files under %s\n", dir);
    return 1;
  }
  tests = nub_calloc(n, sizeof(*tests));
  cases = nub_calloc(n, sizeof(*cases));
  for (size_t i = 0; i < n; i++) {
    const char *name = paths[i] + strlen(dir) + 1;
    if (only && !strstr(name, only))
      continue;
    if (load_case(&cases[nt], paths[i]) < 0) {
      fprintf(stderr, "test_cases: cannot read %s\n", paths[i]);
      return 1;
    }
    tests[nt].name = name;
    tests[nt].test_func = run_case;
    tests[nt].initial_state = &cases[nt];
    nt++;
  }
  rc = _cmocka_run_group_tests("cases", tests, nt, NULL, NULL);
  for (size_t i = 0; i < nt; i++)
    free_case(&cases[i]);
  for (size_t i = 0; i < n; i++)
    nub_free(paths[i]);
  nub_free(paths);
  nub_free(cases);
  nub_free(tests);
  return rc;
}
