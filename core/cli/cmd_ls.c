/* cmd_ls.c - `nub ls` (list) and `nub why`: the lockfile's graph (query.h),
 * printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cli.h"
#include "nub_alloc.h"
#include "query.h"

const char cli_ls_help[] =
    "usage: nub ls [--depth N] [--json] [--prod|--dev] [<pkg>...]   (list)\n\n"
    "The project's dependencies (each workspace package's too) as the\n"
    "lockfile has them, N levels deep (default 0: the direct ones), with where\n"
    "each is on disk in --json. Names limit the list to those packages and what\n"
    "leads to them.\n"
    "why: every chain of dependencies from the project (or a workspace package)\n"
    "to <pkg>; exit 1 when nothing depends on it.\n";

enum { Q_JSON = 1, Q_DEPTH, Q_ALL, Q_PROD, Q_DEV, Q_DIR };
static const struct cli_opt ls_opts[] = {
  {"flags:", CLI_OPT_TITLE, NULL, NULL},
  {"--json", Q_JSON, NULL, "as JSON, with where each package is on disk"},
  {"--depth", Q_DEPTH, "<n>", "levels below the direct dependencies (default 0)"},
  {"-a|--all", Q_ALL, NULL, "every level"},
  {"-P|--prod|--production", Q_PROD, NULL, "dependencies and optionalDependencies only"},
  {"-D|--dev", Q_DEV, NULL, "devDependencies only"},
  {"-C|--dir", Q_DIR, "<dir>", "run as if started in <dir>"},
  {NULL, 0, NULL, NULL},
};
static const struct cli_opt dir_opt[] = {
  {"flags:", CLI_OPT_TITLE, NULL, NULL},
  {"-C|--dir", Q_DIR, "<dir>", "run as if started in <dir>"},
  {NULL, 0, NULL, NULL},
};
static const struct cli_opt outdated_opts[] = {
  {"--json", Q_JSON, NULL, "as JSON: current, wanted, latest, dependent, type"},
  {NULL, 0, NULL, NULL},
};
const struct cli_opt *const cli_ls_tabs[] = {ls_opts, NULL};
const struct cli_opt *const cli_why_tabs[] = {dir_opt, NULL};
const struct cli_opt *const cli_outdated_tabs[] = {dir_opt, outdated_opts, NULL};

static const char *const kind_name[NUB_DEP_KINDS] = {"dependencies", "optionalDependencies",
                                                     "devDependencies"};

struct ls {
  struct nub_query *q;
  int depth;
  bool json, prod, dev;
  char **only;
  size_t nonly;
  struct nub_buf out;
};

static const struct nub_gpkg *target(const struct nub_graph *g, const char *alias,
                                     const char *ref)
{
  char *t = nub_gedge_target(alias, ref);
  const struct nub_gpkg *p = t ? nub_graph_find(g, t) : NULL;

  nub_free(t);
  return p;
}

/* Whether p is, or leads within `left` levels to, one of the names asked for. */
static bool leads_to(struct ls *l, const struct nub_gpkg *p, int left, int guard)
{
  if (!l->nonly)
    return true;
  if (!p || guard > 64)
    return false;
  if (nub_strarray_has(l->only, l->nonly, p->name))
    return true;
  for (size_t e = 0; left > 0 && e < p->ndeps + p->noptional_deps; e++) {
    const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
    if (leads_to(l, target(&l->q->graph, ed->alias, ed->ref), left - 1, guard + 1))
      return true;
  }
  return false;
}

static void json_str(struct nub_buf *b, const char *s)
{
  nub_buf_addc(b, '"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      nub_buf_addf(b, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      nub_buf_addf(b, "\\u%04x", *s);
    else
      nub_buf_addc(b, *s);
  }
  nub_buf_addc(b, '"');
}

static void print_pkg(struct ls *l, const char *alias, const char *ref, const struct nub_gpkg *p,
                      const char *from_dir, int level, const char *indent, bool last,
                      const char *tag);

static void print_children(struct ls *l, const struct nub_gpkg *p, const char *dir, int level,
                           const char *indent)
{
  size_t n = p->ndeps + p->noptional_deps, shown = 0, total = 0;

  for (size_t e = 0; e < n; e++) {
    const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
    total += leads_to(l, target(&l->q->graph, ed->alias, ed->ref), l->depth - level, 0);
  }
  for (size_t e = 0; e < n; e++) {
    const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
    const struct nub_gpkg *c = target(&l->q->graph, ed->alias, ed->ref);
    if (!leads_to(l, c, l->depth - level, 0))
      continue;
    shown++;
    print_pkg(l, ed->alias, ed->ref, c, dir, level, indent, shown == total, NULL);
  }
}

static void print_pkg(struct ls *l, const char *alias, const char *ref, const struct nub_gpkg *p,
                      const char *from_dir, int level, const char *indent, bool last,
                      const char *tag)
{
  char *dir = from_dir ? nub_query_resolve(from_dir, alias) : NULL;
  const char *version = p ? p->version : ref;
  bool deeper = p && level < l->depth && (p->ndeps || p->noptional_deps);

  if (l->json) {
    json_str(&l->out, alias);
    nub_buf_adds(&l->out, ": {\"version\": ");
    json_str(&l->out, version);
    if (p && strcmp(p->name, alias)) {
      nub_buf_adds(&l->out, ", \"from\": ");
      json_str(&l->out, p->name);
    }
    if (dir) {
      nub_buf_adds(&l->out, ", \"path\": ");
      json_str(&l->out, dir);
    }
    if (deeper) {
      size_t before;
      nub_buf_adds(&l->out, ", \"dependencies\": {");
      before = l->out.len;
      for (size_t e = 0; e < p->ndeps + p->noptional_deps; e++) {
        const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e]
                                                  : &p->optional_deps[e - p->ndeps];
        const struct nub_gpkg *c = target(&l->q->graph, ed->alias, ed->ref);
        if (!leads_to(l, c, l->depth - level - 1, 0))
          continue;
        if (l->out.len > before)
          nub_buf_adds(&l->out, ", ");
        print_pkg(l, ed->alias, ed->ref, c, dir, level + 1, "", false, NULL);
      }
      nub_buf_addc(&l->out, '}');
    }
    nub_buf_addc(&l->out, '}');
  } else {
    char *next = nub_asprintf("%s%s", indent, last ? "    " : "│   ");
    nub_buf_addf(&l->out, "%s%s %s", indent, last ? "└──" : "├──", alias);
    if (!p)
      nub_buf_addf(&l->out, " %s", ref); /* a link: a workspace package, a directory */
    else if (strcmp(p->name, alias))
      nub_buf_addf(&l->out, "@npm:%s@%s", p->name, version);
    else
      nub_buf_addf(&l->out, "@%s", version);
    nub_buf_addf(&l->out, "%s%s\n", tag ? " " : "", tag ? tag : "");
    if (deeper)
      print_children(l, p, dir, level + 1, next);
    nub_free(next);
  }
  nub_free(dir);
}

static void print_importer(struct ls *l, const struct nub_importer *im, bool first)
{
  const struct nub_ws_pkg *wp = strcmp(im->path, ".") ? nub_workspace_at(&l->q->s.ws, im->path)
                                                      : NULL;
  const struct nub_manifest *m = wp ? &wp->man : &l->q->s.man;
  char *abs = strcmp(im->path, ".") ? nub_asprintf("%s/%s", l->q->s.root, im->path)
                                    : nub_strdup(l->q->s.root);
  size_t total = 0, shown = 0;

  for (int k = 0; k < NUB_DEP_KINDS; k++) {
    const struct nub_gdirect *d;
    size_t n = nub_importer_directs(im, k, &d);
    if ((k == NUB_DEP_DEV && l->prod) || (k != NUB_DEP_DEV && l->dev))
      continue;
    for (size_t i = 0; i < n; i++)
      total += leads_to(l, target(&l->q->graph, d[i].alias, d[i].ref), l->depth, 0);
  }
  if (l->json) {
    nub_buf_adds(&l->out, first ? "[\n  {\"name\": " : ",\n  {\"name\": ");
    json_str(&l->out, m->name ? m->name : "");
    if (m->version) {
      nub_buf_adds(&l->out, ", \"version\": ");
      json_str(&l->out, m->version);
    }
    nub_buf_adds(&l->out, ", \"path\": ");
    json_str(&l->out, abs);
  } else {
    nub_buf_addf(&l->out, "%s%s%s%s %s\n", first ? "" : "\n", m->name ? m->name : "(no name)",
                 m->version ? "@" : "", m->version ? m->version : "", abs);
  }
  for (int k = 0; k < NUB_DEP_KINDS; k++) {
    const struct nub_gdirect *d;
    size_t n = nub_importer_directs(im, k, &d), before = 0;
    bool opened = false;
    if ((k == NUB_DEP_DEV && l->prod) || (k != NUB_DEP_DEV && l->dev))
      continue;
    for (size_t i = 0; i < n; i++) {
      const struct nub_gpkg *p = target(&l->q->graph, d[i].alias, d[i].ref);
      if (!leads_to(l, p, l->depth, 0))
        continue;
      shown++;
      if (l->json) {
        if (!opened) {
          nub_buf_addf(&l->out, ", \"%s\": {", kind_name[k]);
          before = l->out.len;
          opened = true;
        }
        if (l->out.len > before)
          nub_buf_adds(&l->out, ", ");
        print_pkg(l, d[i].alias, d[i].ref, p, abs, 0, "", false, NULL);
      } else {
        print_pkg(l, d[i].alias, d[i].ref, p, abs, 0, "", shown == total,
                  k == NUB_DEP_DEV ? "(dev)" : k == NUB_DEP_OPTIONAL ? "(optional)" : NULL);
      }
    }
    if (opened)
      nub_buf_addc(&l->out, '}');
  }
  if (l->json)
    nub_buf_addc(&l->out, '}');
  nub_free(abs);
}

int cmd_ls(int argc, char **argv)
{
  struct nub_query q;
  struct nub_err err;
  struct ls l;
  const char *dir = NULL;
  int rc;

  memset(&l, 0, sizeof(l));
  nub_err_clear(&err);
  l.only = nub_calloc((size_t)argc + 1, sizeof(char *));
  {
    int i = 1, id;
    const char *val;
    while ((id = cli_opt_next(cli_ls_tabs, "ls", argc, argv, &i, &val)) != CLI_OPT_END) {
      switch (id) {
      case CLI_OPT_BAD: nub_free(l.only); return 2;
      case CLI_OPT_ARG: l.only[l.nonly++] = (char *)val; break;
      case Q_JSON: l.json = true; break;
      case Q_DEPTH: l.depth = atoi(val); break;
      case Q_ALL: l.depth = 1000; break;
      case Q_PROD: l.prod = true; break;
      case Q_DEV: l.dev = true; break;
      case Q_DIR: dir = val; break;
      default: break;
      }
    }
  }
  if (l.nonly && l.depth < 1000)
    l.depth = l.depth ? l.depth : 1000; /* a name anywhere below */
  rc = nub_query_open(&q, dir, &err);
  if (rc < 0) {
    nub_query_close(&q);
    nub_free(l.only);
    return cli_fail(&err);
  }
  l.q = &q;
  for (size_t m = 0; m < q.graph.nimporters; m++)
    print_importer(&l, &q.graph.importers[m], m == 0);
  if (l.json)
    nub_buf_adds(&l.out, "\n]\n");
  fwrite(l.out.data ? l.out.data : "", 1, l.out.len, stdout);
  nub_buf_release(&l.out);
  nub_query_close(&q);
  nub_free(l.only);
  return 0;
}

/* ---- why ----------------------------------------------------------------- */

struct why {
  struct nub_query *q;
  const char *name;
  const struct nub_gpkg **path;
  const char **aliases;
  size_t depth, found;
  bool *on_path;
  struct nub_buf out;
};

static void why_walk(struct why *w, const struct nub_gpkg *p, const char *alias,
                     const char *head)
{
  if (!p || w->on_path[p->index] || w->depth > 64 || w->found >= 200)
    return;
  w->path[w->depth] = p;
  w->aliases[w->depth] = alias;
  w->depth++;
  if (!strcmp(p->name, w->name) || !strcmp(alias, w->name)) {
    nub_buf_adds(&w->out, head);
    for (size_t i = 0; i < w->depth; i++) {
      const struct nub_gpkg *x = w->path[i];
      nub_buf_addf(&w->out, " > %s%s%s@%s", w->aliases[i],
                   strcmp(x->name, w->aliases[i]) ? "@npm:" : "",
                   strcmp(x->name, w->aliases[i]) ? x->name : "", x->version);
    }
    nub_buf_addc(&w->out, '\n');
    w->found++;
  } else {
    w->on_path[p->index] = true;
    for (size_t e = 0; e < p->ndeps + p->noptional_deps; e++) {
      const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
      why_walk(w, target(&w->q->graph, ed->alias, ed->ref), ed->alias, head);
    }
    w->on_path[p->index] = false;
  }
  w->depth--;
}

int cmd_why(int argc, char **argv)
{
  struct nub_query q;
  struct nub_err err;
  struct why w;
  const char *dir = NULL, *name = NULL;
  int rc;

  nub_err_clear(&err);
  {
    int i = 1, id;
    const char *val;
    while ((id = cli_opt_next(cli_why_tabs, "why", argc, argv, &i, &val)) != CLI_OPT_END) {
      if (id == CLI_OPT_BAD)
        return 2;
      if (id == CLI_OPT_ARG)
        name = val;
      else if (id == Q_DIR)
        dir = val;
    }
  }
  if (!name)
    return cli_usage("nub why needs a package name");
  rc = nub_query_open(&q, dir, &err);
  if (rc < 0) {
    nub_query_close(&q);
    return cli_fail(&err);
  }
  memset(&w, 0, sizeof(w));
  w.q = &q;
  w.name = name;
  w.path = nub_calloc(80, sizeof(*w.path));
  w.aliases = nub_calloc(80, sizeof(*w.aliases));
  w.on_path = nub_calloc(q.graph.npkgs + 1, sizeof(bool));
  for (size_t m = 0; m < q.graph.nimporters; m++) {
    const struct nub_importer *im = &q.graph.importers[m];
    const struct nub_ws_pkg *wp = strcmp(im->path, ".") ? nub_workspace_at(&q.s.ws, im->path)
                                                        : NULL;
    const char *pname = wp ? (wp->man.name ? wp->man.name : wp->dir) : q.s.man.name;
    for (int k = 0; k < NUB_DEP_KINDS; k++) {
      const struct nub_gdirect *d;
      size_t n = nub_importer_directs(im, k, &d);
      char *head = nub_asprintf("%s (%s)", pname ? pname : im->path, kind_name[k]);
      for (size_t i = 0; i < n; i++) {
        const struct nub_gpkg *p = target(&q.graph, d[i].alias, d[i].ref);
        if (!p && !strcmp(d[i].alias, name)) { /* a link: a workspace package */
          nub_buf_addf(&w.out, "%s > %s (%s)\n", head, d[i].alias, d[i].ref);
          w.found++;
        }
        why_walk(&w, p, d[i].alias, head);
      }
      nub_free(head);
    }
  }
  if (!w.found)
    fprintf(stderr, "nub: nothing in %s depends on %s\n", q.s.proj.lockfile, name);
  fwrite(w.out.data ? w.out.data : "", 1, w.out.len, stdout);
  nub_buf_release(&w.out);
  nub_free(w.path);
  nub_free(w.aliases);
  nub_free(w.on_path);
  rc = w.found ? 0 : 1;
  nub_query_close(&q);
  return rc;
}

/* ---- outdated ------------------------------------------------------------ */

#include "pool.h"
#include "progress.h"
#include "registry.h"
#include "semver.h"

const char cli_outdated_help[] =
    "usage: nub outdated [--json] [<pkg>...]\n\n"
    "For each direct dependency from the registry (each workspace package's\n"
    "too): the version installed (current), the newest its range allows\n"
    "(wanted) and the registry's latest. Exit 1 when any is behind, as npm.\n";

static const struct nub_pversion *wanted_of(const struct nub_packument *p, const char *range_s)
{
  struct nub_range *range = NULL;
  const char *latest = nub_depmap_get(&p->tags, "latest");
  const struct nub_pversion *lv = latest ? nub_packument_version(p, latest) : NULL, *w = NULL;

  if (nub_range_parse_loose(&range, range_s) < 0) {
    const char *tag = nub_depmap_get(&p->tags, range_s);
    return tag ? nub_packument_version(p, tag) : NULL;
  }
  if (lv && nub_range_satisfies(range, &lv->sv, false))
    w = lv;
  for (size_t i = p->nversions; !w && i > 0; i--)
    if (nub_range_satisfies(range, &p->versions[i - 1]->sv, false))
      w = p->versions[i - 1];
  nub_range_free(range);
  return w;
}

int cmd_outdated(int argc, char **argv)
{
  struct nub_query q;
  struct nub_err err;
  struct nub_meta *meta = NULL;
  struct nub_pool *pool = NULL;
  struct nub_progress prog;
  struct nub_buf out = NUB_BUF_INIT;
  struct nub_meta_opts mo = {false, false, 0, false};
  const char *dir = NULL;
  char **only = nub_calloc((size_t)argc + 1, sizeof(char *));
  size_t nonly = 0, behind = 0, rows = 0;
  bool json = false;
  int rc;

  nub_err_clear(&err);
  memset(&prog, 0, sizeof(prog));
  {
    int i = 1, id;
    const char *val;
    while ((id = cli_opt_next(cli_outdated_tabs, "outdated", argc, argv, &i, &val)) !=
           CLI_OPT_END) {
      if (id == CLI_OPT_BAD) {
        nub_free(only);
        return 2;
      }
      if (id == CLI_OPT_ARG)
        only[nonly++] = (char *)val;
      else if (id == Q_JSON)
        json = true;
      else if (id == Q_DIR)
        dir = val;
    }
  }
  rc = nub_query_open(&q, dir, &err);
  if (rc == 0) {
    pool = nub_pool_new(1, "registry");
    nub_progress_start(&prog, 2 /* silent */);
    rc = nub_meta_new(&meta, &q.s.cfg, pool, &prog, &mo, &err);
  }
  if (!json && rc == 0)
    nub_buf_addf(&out, "%-30s %-12s %-12s %-12s %s\n", "Package", "Current", "Wanted", "Latest",
                 "Dependent");
  if (json)
    nub_buf_adds(&out, "{");
  for (size_t m = 0; rc == 0 && m < q.graph.nimporters; m++) {
    const struct nub_importer *im = &q.graph.importers[m];
    const struct nub_ws_pkg *wp = strcmp(im->path, ".") ? nub_workspace_at(&q.s.ws, im->path)
                                                        : NULL;
    const char *who = wp ? (wp->man.name ? wp->man.name : wp->dir)
                         : q.s.man.name ? q.s.man.name : ".";
    for (int k = 0; rc == 0 && k < NUB_DEP_KINDS; k++) {
      const struct nub_gdirect *d;
      size_t n = nub_importer_directs(im, k, &d);
      for (size_t i = 0; rc == 0 && i < n; i++) {
        const struct nub_gpkg *p = target(&q.graph, d[i].alias, d[i].ref);
        const struct nub_packument *pk;
        const struct nub_pversion *w;
        const char *latest, *range = d[i].specifier;
        char real[256];
        if (!p || p->directory || (nonly && !nub_strarray_has(only, nonly, d[i].alias)))
          continue;
        if (!strncmp(range, "workspace:", 10) || !strncmp(range, "link:", 5) ||
            !strncmp(range, "file:", 5) || !strncmp(range, "catalog:", 8))
          continue;
        snprintf(real, sizeof(real), "%s", p->name);
        if (!strncmp(range, "npm:", 4)) {
          const char *at = strchr(range + 5, '@');
          range = at ? at + 1 : "*";
        }
        rc = nub_meta_get(meta, real, &pk, &err);
        if (rc < 0)
          break;
        w = wanted_of(pk, range);
        latest = nub_depmap_get(&pk->tags, "latest");
        if ((w && strcmp(w->version, p->version)) || (latest && strcmp(latest, p->version))) {
          behind++;
          if (json) {
            nub_buf_addf(&out, "%s\n  ", rows ? "," : "");
            json_str(&out, d[i].alias);
            nub_buf_adds(&out, ": {\"current\": ");
            json_str(&out, p->version);
            nub_buf_adds(&out, ", \"wanted\": ");
            json_str(&out, w ? w->version : p->version);
            nub_buf_adds(&out, ", \"latest\": ");
            json_str(&out, latest ? latest : "");
            nub_buf_adds(&out, ", \"dependent\": ");
            json_str(&out, who);
            nub_buf_adds(&out, ", \"type\": ");
            json_str(&out, kind_name[k]);
            nub_buf_addc(&out, '}');
          } else {
            nub_buf_addf(&out, "%-30s %-12s %-12s %-12s %s%s\n", d[i].alias, p->version,
                         w ? w->version : p->version, latest ? latest : "-", who,
                         k == NUB_DEP_DEV ? " (dev)" : "");
          }
          rows++;
        }
      }
    }
  }
  if (json)
    nub_buf_adds(&out, rows ? "\n}\n" : "}\n");
  if (rc == 0 && (rows || json))
    fwrite(out.data ? out.data : "", 1, out.len, stdout);
  nub_buf_release(&out);
  if (meta)
    nub_meta_free(meta);
  if (pool) {
    nub_progress_stop(&prog);
    nub_pool_free(pool);
  }
  nub_query_close(&q);
  nub_free(only);
  if (rc < 0)
    return cli_fail(&err);
  return behind ? 1 : 0;
}

/* ---- licenses ------------------------------------------------------------ */

#include <cjson/cJSON.h>

#include "json.h"
#include "nub_plat.h"

const char cli_licenses_help[] =
    "usage: nub licenses [ls|list] [--json] [--prod|--dev]\n\n"
    "The licenses of the installed dependencies (every level), as pnpm licenses\n"
    "lists them: a table of package and license, or with --json, by license:\n"
    "each package's name, versions, paths, license, author, homepage and\n"
    "description, read from its package.json where it is installed.\n";

/* One installed package (by name): its versions and folders, and what its
 * package.json says. */
struct lic {
  char *name, *license, *author, *homepage, *description;
  char **versions, **paths; /* by version; a path per version */
  size_t nversions, npaths;
  unsigned char *reach; /* per version: 1 from the dependencies, 2 from devDependencies */
  bool prod, dev; /* reached through the projects' dependencies, devDependencies */
};

struct lics {
  struct nub_query *q;
  bool prod, dev;
  struct lic *v;
  size_t n, cap;
  bool *seen; /* per graph package, in this walk */
  bool walk_dev; /* this walk starts at the devDependencies */
};

static char *json_dup(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) && v->valuestring[0] ? nub_strdup(v->valuestring) : NULL;
}

/* pnpm's reading of "license": a string, an object's "type", or the old
 * "licenses" array's types joined; "Unknown" when none. */
static char *license_of(const cJSON *m)
{
  const cJSON *l = cJSON_GetObjectItemCaseSensitive(m, "license");
  const cJSON *ls = cJSON_GetObjectItemCaseSensitive(m, "licenses"), *it;
  struct nub_buf b = NUB_BUF_INIT;

  if (cJSON_IsString(l) && l->valuestring[0])
    return nub_strdup(l->valuestring);
  if (cJSON_IsObject(l) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(l, "type")))
    return json_dup(l, "type");
  if (!cJSON_IsArray(ls))
    ls = NULL;
  cJSON_ArrayForEach(it, ls)
  {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "type");
    if (cJSON_IsString(t))
      nub_buf_addf(&b, "%s%s", b.len ? " OR " : "", t->valuestring);
  }
  if (b.len)
    return nub_buf_take(&b);
  nub_buf_release(&b);
  return nub_strdup("Unknown");
}

static struct lic *lic_for(struct lics *L, const char *name)
{
  for (size_t i = 0; i < L->n; i++)
    if (!strcmp(L->v[i].name, name))
      return &L->v[i];
  NUB_GROW(L->v, L->cap, L->n + 1);
  memset(&L->v[L->n], 0, sizeof(L->v[0]));
  L->v[L->n].name = nub_strdup(name);
  return &L->v[L->n++];
}

/* A version and its folder, once, kept in version order. */
static void add_version(struct lic *x, const char *version, const char *dir, unsigned char how)
{
  struct nub_version a, b;
  size_t at = x->nversions;

  for (size_t i = 0; i < x->nversions; i++)
    if (!strcmp(x->versions[i], version)) {
      x->reach[i] |= how;
      return;
    }
  if (nub_version_parse_loose(&a, version) == 0) {
    for (size_t i = 0; i < x->nversions && at == x->nversions; i++)
      if (nub_version_parse_loose(&b, x->versions[i]) == 0) {
        if (nub_version_cmp(&a, &b) < 0)
          at = i;
        nub_version_release(&b);
      }
    nub_version_release(&a);
  }
  x->versions = nub_realloc(x->versions, (x->nversions + 1) * sizeof(char *));
  x->paths = nub_realloc(x->paths, (x->npaths + 1) * sizeof(char *));
  x->reach = nub_realloc(x->reach, x->nversions + 1);
  memmove(x->reach + at + 1, x->reach + at, x->nversions - at);
  x->reach[at] = how;
  memmove(x->versions + at + 1, x->versions + at, (x->nversions - at) * sizeof(char *));
  memmove(x->paths + at + 1, x->paths + at, (x->npaths - at) * sizeof(char *));
  x->versions[at] = nub_strdup(version);
  x->paths[at] = nub_strdup(dir);
  x->nversions++;
  x->npaths++;
}

/* p (required as alias from from_dir) and, once per package, what it
 * depends on. */
static void lic_walk(struct lics *L, const char *alias, const struct nub_gpkg *p,
                     const char *from_dir)
{
  char *dir;

  if (!p || L->seen[p->index])
    return;
  dir = nub_query_resolve(from_dir, alias);
  if (!dir)
    return; /* not installed here (another platform's, left out) */
  L->seen[p->index] = true;
  {
    struct lic *x = lic_for(L, p->name);
    char *pj = nub_asprintf("%s/package.json", dir), *text = NULL;
    size_t len = 0;
    add_version(x, p->version, dir, L->walk_dev ? 2 : 1);
    if (L->walk_dev)
      x->dev = true;
    else
      x->prod = true;
    if (!x->license && nub_plat_read_file_at(NUB_PLAT_CWD, pj, 8u << 20, &text, &len) == 0) {
      cJSON *m = cJSON_ParseWithLength(text, len);
      const cJSON *a = cJSON_GetObjectItemCaseSensitive(m, "author");
      x->license = license_of(m);
      x->author = cJSON_IsString(a) ? json_dup(m, "author") : json_dup(a, "name");
      x->homepage = json_dup(m, "homepage");
      x->description = json_dup(m, "description");
      cJSON_Delete(m);
    }
    if (!x->license)
      x->license = nub_strdup("Unknown");
    nub_free(text);
    nub_free(pj);
  }
  for (size_t e = 0; e < p->ndeps + p->noptional_deps; e++) {
    const struct nub_gedge *ed = e < p->ndeps ? &p->deps[e] : &p->optional_deps[e - p->ndeps];
    lic_walk(L, ed->alias, target(&L->q->graph, ed->alias, ed->ref), dir);
  }
  nub_free(dir);
}

static int cmp_lic(const void *a, const void *b)
{
  const struct lic *x = a, *y = b;
  int c = strcmp(x->license, y->license);
  return c ? c : strcmp(x->name, y->name);
}

static void lic_json(struct nub_buf *out, const struct lic *v, size_t n, unsigned char mask)
{
  cJSON *root = cJSON_CreateObject();

  for (size_t i = 0; i < n; i++) {
    cJSON *group = cJSON_GetObjectItemCaseSensitive(root, v[i].license), *e;
    if (!group)
      group = cJSON_AddArrayToObject(root, v[i].license);
    e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", v[i].name);
    {
      /* the versions this listing reaches (--prod, --dev), each with its folder */
      cJSON *vs = cJSON_AddArrayToObject(e, "versions"), *ps;
      ps = cJSON_CreateArray();
      for (size_t k = 0; k < v[i].nversions; k++)
        if (v[i].reach[k] & mask) {
          cJSON_AddItemToArray(vs, cJSON_CreateString(v[i].versions[k]));
          cJSON_AddItemToArray(ps, cJSON_CreateString(v[i].paths[k]));
        }
      cJSON_AddItemToObject(e, "paths", ps);
    }
    cJSON_AddStringToObject(e, "license", v[i].license);
    if (v[i].author)
      cJSON_AddStringToObject(e, "author", v[i].author);
    if (v[i].homepage)
      cJSON_AddStringToObject(e, "homepage", v[i].homepage);
    if (v[i].description)
      cJSON_AddStringToObject(e, "description", v[i].description);
    cJSON_AddItemToArray(group, e);
  }
  nub_json_pretty(root, out);
  nub_buf_adds(out, "\n");
  cJSON_Delete(root);
}

/* pnpm's table: a box, a line between rows. */
static void lic_table(struct nub_buf *out, const struct lic *v, size_t n)
{
  size_t w1 = strlen("Package"), w2 = strlen("License");

  for (size_t i = 0; i < n; i++) {
    if (strlen(v[i].name) + (v[i].prod ? 0 : 6) > w1)
      w1 = strlen(v[i].name) + (v[i].prod ? 0 : 6);
    if (strlen(v[i].license) > w2)
      w2 = strlen(v[i].license);
  }
#define RULE(l, m, r)                                                                         \
  do {                                                                                        \
    nub_buf_adds(out, l);                                                                     \
    for (size_t k = 0; k < w1 + 2; k++)                                                       \
      nub_buf_adds(out, "─");                                                                 \
    nub_buf_adds(out, m);                                                                     \
    for (size_t k = 0; k < w2 + 2; k++)                                                       \
      nub_buf_adds(out, "─");                                                                 \
    nub_buf_adds(out, r "\n");                                                                \
  } while (0)
  RULE("┌", "┬", "┐");
  nub_buf_addf(out, "│ %-*s │ %-*s │\n", (int)w1, "Package", (int)w2, "License");
  for (size_t i = 0; i < n; i++) {
    char *nm = nub_asprintf("%s%s", v[i].name, v[i].prod ? "" : " (dev)");
    RULE("├", "┼", "┤");
    nub_buf_addf(out, "│ %-*s │ %-*s │\n", (int)w1, nm, (int)w2, v[i].license);
    nub_free(nm);
  }
  RULE("└", "┴", "┘");
#undef RULE
}

int cmd_licenses(int argc, char **argv)
{
  struct nub_query q;
  struct nub_err err;
  struct lics L;
  struct nub_buf out = NUB_BUF_INIT;
  const char *dir = NULL;
  bool json = false;
  int rc;

  memset(&L, 0, sizeof(L));
  nub_err_clear(&err);
  {
    int i = 1, id;
    const char *val;
    while ((id = cli_opt_next(cli_ls_tabs, "licenses", argc, argv, &i, &val)) != CLI_OPT_END) {
      switch (id) {
      case CLI_OPT_BAD: return 2;
      case CLI_OPT_ARG:
        if (strcmp(val, "ls") && strcmp(val, "list"))
          return cli_usage("licenses takes ls or list, not '%s'", val);
        break;
      case Q_JSON: json = true; break;
      case Q_PROD: L.prod = true; break;
      case Q_DEV: L.dev = true; break;
      case Q_DIR: dir = val; break;
      default: break;
      }
    }
  }
  rc = nub_query_open(&q, dir, &err);
  if (rc < 0) {
    nub_query_close(&q);
    return cli_fail(&err);
  }
  L.q = &q;
  L.seen = nub_calloc(q.graph.npkgs + 1, sizeof(bool));
  /* two walks: from the dependencies, then from the devDependencies (a
   * package only the second reaches is pnpm's "(dev)") */
  for (int pass = 0; pass < 2; pass++) {
    L.walk_dev = pass == 1;
    memset(L.seen, 0, (q.graph.npkgs + 1) * sizeof(bool));
    for (size_t m = 0; m < q.graph.nimporters; m++) {
      const struct nub_importer *im = &q.graph.importers[m];
      char *abs = strcmp(im->path, ".") ? nub_asprintf("%s/%s", q.s.root, im->path)
                                        : nub_strdup(q.s.root);
      for (int k = 0; k < NUB_DEP_KINDS; k++) {
        const struct nub_gdirect *d;
        size_t n = nub_importer_directs(im, k, &d);
        if ((k == NUB_DEP_DEV) != L.walk_dev)
          continue;
        for (size_t i = 0; i < n; i++)
          lic_walk(&L, d[i].alias, target(&q.graph, d[i].alias, d[i].ref), abs);
      }
      nub_free(abs);
    }
  }
  nub_sort(L.v, L.n, sizeof(L.v[0]), cmp_lic);
  {
    size_t k = 0;
    struct lic *shown = nub_calloc(L.n + 1, sizeof(*shown));
    for (size_t i = 0; i < L.n; i++)
      if ((!L.prod || L.v[i].prod) && (!L.dev || L.v[i].dev))
        shown[k++] = L.v[i];
    if (json)
      lic_json(&out, shown, k, L.prod ? 1 : L.dev ? 2 : 3);
    else if (k)
      lic_table(&out, shown, k);
    nub_free(shown);
  }
  fwrite(out.data ? out.data : "", 1, out.len, stdout);
  nub_buf_release(&out);
  for (size_t i = 0; i < L.n; i++) {
    nub_free(L.v[i].name);
    nub_free(L.v[i].license);
    nub_free(L.v[i].author);
    nub_free(L.v[i].homepage);
    nub_free(L.v[i].description);
    nub_strarray_free(L.v[i].versions, L.v[i].nversions);
    nub_strarray_free(L.v[i].paths, L.v[i].npaths);
    nub_free(L.v[i].reach);
  }
  nub_free(L.v);
  nub_free(L.seen);
  nub_query_close(&q);
  return 0;
}
