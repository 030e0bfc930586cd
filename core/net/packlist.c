/* packlist.c - npm pack's choice of files; see packlist.h. Patterns are
 * matched with fnmatch(3), gitignore's way: a pattern without a slash
 * (but a trailing one) matches a name at any depth, one with a slash is
 * anchored at the root, a trailing slash matches directories only, `!`
 * takes a file back, the last matching line wins, and a directory that is
 * excluded takes everything in it. */
#include "packlist.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "json.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "path.h"
#include "strmap.h"

struct rule {
  char *pat;
  bool neg, dir_only, anchored;
};

/* A directory's own ignore file below the root: its lines, relative to it. */
struct nested {
  struct rule *v;
  size_t n;
};

struct nub_packlist {
  bool have_files; /* package.json "files": only what it lists */
  struct rule *files, *ignore;
  size_t nfiles, nignore;
  char **always; /* main and bin targets, normalised */
  size_t nalways;
  char *dir;                 /* the package's directory */
  struct nub_strmap nested;  /* subdirectory -> struct nested, read once */
};

/* npm never packs these (npm-packlist's defaults). */
static const char *const never_any[] = {".git", ".svn", ".hg", "CVS", ".npmrc", ".DS_Store",
                                        "npm-debug.log", ".npmignore", ".gitignore", NULL};
static const char *const never_root[] = {"node_modules", "package-lock.json", "yarn.lock",
                                         "pnpm-lock.yaml", ".lock-wscript", NULL};

static void add_rule(struct rule **v, size_t *n, const char *line)
{
  char *p = nub_strdup(line), *s = p;
  size_t len;
  struct rule r = {0};

  while (*s == ' ' || *s == '\t')
    s++;
  len = strlen(s);
  while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
    s[--len] = '\0';
  if (!len || s[0] == '#') {
    nub_free(p);
    return;
  }
  if (s[0] == '!') {
    r.neg = true;
    s++;
  }
  while (!strncmp(s, "./", 2))
    s += 2;
  len = strlen(s);
  if (len && s[len - 1] == '/') {
    r.dir_only = true;
    s[--len] = '\0';
  }
  if (s[0] == '/') {
    r.anchored = true;
    s++;
  }
  if (strchr(s, '/'))
    r.anchored = true;
  if (!*s) {
    nub_free(p);
    return;
  }
  r.pat = nub_strdup(s);
  nub_free(p);
  *v = nub_realloc(*v, (*n + 1) * sizeof(**v));
  (*v)[(*n)++] = r;
}

/* Whether rule r matches rel (or a directory above it: is_dir says whether
 * rel itself is one). */
static bool rule_matches(const struct rule *r, const char *rel, bool is_dir)
{
  char buf[4096];
  size_t n = strlen(rel);

  if (n >= sizeof(buf))
    return false;
  memcpy(buf, rel, n + 1);
  /* rel itself, then each directory above it */
  for (;;) {
    const char *base = strrchr(buf, '/');
    bool dir = is_dir || strlen(buf) < n;
    if (!r->dir_only || dir) {
      if (r->anchored ? fnmatch(r->pat, buf, FNM_PATHNAME) == 0
                      : fnmatch(r->pat, base ? base + 1 : buf, 0) == 0)
        return true;
    }
    {
      char *slash = strrchr(buf, '/');
      if (!slash)
        return false;
      *slash = '\0';
    }
  }
}

/* The last matching rule decides (a "files" entry takes a file in, an
 * ignore line leaves it out, `!` the other way round); none: `def`. */
static bool decide(const struct rule *v, size_t n, const char *rel, bool is_dir, bool def,
                   bool match_keeps, bool *matched)
{
  bool keep = def;

  *matched = false;
  for (size_t i = 0; i < n; i++)
    if (rule_matches(&v[i], rel, is_dir)) {
      keep = match_keeps != v[i].neg;
      *matched = true;
    }
  return keep;
}

static bool in_list(const char *const *list, const char *name)
{
  for (int i = 0; list[i]; i++)
    if (!strcmp(list[i], name))
      return true;
  return false;
}

static bool never(const char *rel)
{
  const char *base = strrchr(rel, '/');
  const char *name = base ? base + 1 : rel;
  size_t n = strlen(name);

  if (in_list(never_any, name) || (!base && in_list(never_root, name)))
    return true;
  if (!strncmp(name, "._", 2) || (n > 5 && !strcmp(name + n - 5, ".orig")) ||
      (name[0] == '.' && n > 4 && !strcmp(name + n - 4, ".swp")))
    return true;
  return false;
}

static bool always(const struct nub_packlist *pl, const char *rel)
{
  if (!strchr(rel, '/')) {
    if (!strcmp(rel, "package.json") || !strncasecmp(rel, "readme", 6) ||
        !strncasecmp(rel, "license", 7) || !strncasecmp(rel, "licence", 7))
      return true;
  }
  for (size_t i = 0; i < pl->nalways; i++)
    if (!strcmp(pl->always[i], rel))
      return true;
  return false;
}

/* <dir>/.npmignore, else <dir>/.gitignore, into v (npm-packlist reads the
 * first of them a directory has). */
static void read_ignore(const char *dir, struct rule **v, size_t *n)
{
  for (int k = 0; k < 2; k++) {
    char *path = nub_asprintf("%s/%s", dir, k ? ".gitignore" : ".npmignore"), *text = NULL;
    size_t len = 0;
    int rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, 4u << 20, &text, &len);
    nub_free(path);
    if (rc < 0)
      continue;
    for (char *p = text, *nl; p && *p; p = nl ? nl + 1 : NULL) {
      nl = strchr(p, '\n');
      if (nl)
        *nl = '\0';
      add_rule(v, n, p);
    }
    nub_free(text);
    return;
  }
}

/* The ignore file of subdirectory sub (relative to the root), read once. */
static const struct nested *nested_of(struct nub_packlist *pl, const char *sub)
{
  struct nested *x = nub_strmap_get(&pl->nested, sub);

  if (!x) {
    char *dir = nub_asprintf("%s/%s", pl->dir, sub);
    x = nub_calloc(1, sizeof(*x));
    read_ignore(dir, &x->v, &x->n);
    nub_free(dir);
    nub_strmap_put(&pl->nested, sub, x);
  }
  return x;
}

/* The ignore files of the directories above rel, from the top down, each
 * over rel's path below its directory: a later one overrides (npm's rule:
 * below the root they apply even with a "files" list). */
static bool nested_keeps(struct nub_packlist *pl, const char *rel, bool is_dir, bool keep)
{
  char sub[4096];
  size_t n = strlen(rel);
  bool matched;

  if (!pl->dir || n >= sizeof(sub))
    return keep;
  for (const char *s = strchr(rel, '/'); s; s = strchr(s + 1, '/')) {
    const struct nested *x;
    memcpy(sub, rel, (size_t)(s - rel));
    sub[s - rel] = '\0';
    x = nested_of(pl, sub);
    if (x->n)
      keep = decide(x->v, x->n, s + 1, is_dir, keep, false, &matched);
  }
  return keep;
}

bool nub_packlist_keeps(struct nub_packlist *pl, const char *rel, bool is_dir)
{
  bool matched;

  if (never(rel))
    return false;
  if (!is_dir && always(pl, rel))
    return true;
  if (pl->have_files) {
    if (is_dir) {
      /* walk into a directory that holds, or is inside, something listed */
      size_t n = strlen(rel);
      for (size_t i = 0; i < pl->nfiles; i++) {
        const char *p = pl->files[i].pat;
        if (pl->files[i].neg)
          continue;
        if ((!strncmp(p, rel, n) && (p[n] == '/' || !p[n])) || strpbrk(p, "*?[") ||
            rule_matches(&pl->files[i], rel, true))
          return true;
      }
      for (size_t i = 0; i < pl->nalways; i++)
        if (!strncmp(pl->always[i], rel, n) && pl->always[i][n] == '/')
          return true;
      return false;
    }
    if (!decide(pl->files, pl->nfiles, rel, false, false, true, &matched))
      return false;
    /* with a "files" list the root's ignore file does not apply; the
     * nested ones do */
    return nested_keeps(pl, rel, is_dir, true) || always(pl, rel);
  }
  return nested_keeps(pl, rel, is_dir,
                      decide(pl->ignore, pl->nignore, rel, is_dir, true, false, &matched)) ||
         (!is_dir && always(pl, rel));
}

static void add_always(struct nub_packlist *pl, const char *path)
{
  char norm[4096];

  if (!path || nub_path_normalize(path, norm, sizeof(norm)) < 0)
    return;
  pl->always = nub_realloc(pl->always, (pl->nalways + 1) * sizeof(char *));
  pl->always[pl->nalways++] = nub_strdup(norm);
}

int nub_packlist_load(struct nub_packlist **out, const char *dir, struct nub_err *err)
{
  struct nub_packlist *pl = nub_calloc(1, sizeof(*pl));
  char *path = nub_asprintf("%s/package.json", dir), *text = NULL;
  size_t len = 0;
  cJSON *doc = NULL;
  int rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, 64u << 20, &text, &len);
  bool text_read = rc == 0;

  if (text_read)
    rc = nub_json_parse(text, len, path, -NUB_EMANIFEST, 0, &doc, err);
  nub_free(text);
  if (rc == 0) {
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(doc, "files");
    const cJSON *bin = cJSON_GetObjectItemCaseSensitive(doc, "bin"), *it;
    if (cJSON_IsArray(files)) {
      pl->have_files = true;
      cJSON_ArrayForEach(it, files)
        if (cJSON_IsString(it))
          add_rule(&pl->files, &pl->nfiles, it->valuestring);
      /* a listed directory is everything in it */
      for (size_t i = 0, n = pl->nfiles; i < n; i++)
        pl->files[i].anchored = true;
    }
    add_always(pl, nub_json_str(doc, "main"));
    if (cJSON_IsString(bin))
      add_always(pl, bin->valuestring);
    else if (cJSON_IsObject(bin))
      cJSON_ArrayForEach(it, bin)
        if (cJSON_IsString(it))
          add_always(pl, it->valuestring);
  }
  cJSON_Delete(doc);
  nub_free(path);
  if (rc < 0 && rc != -ENOENT) {
    if (!text_read) /* (a parse error has said what it was) */
      nub_err_set(err, rc, "cannot read %s/package.json: %s", dir, nub_strerror(rc));
    nub_packlist_free(pl);
    return rc;
  }
  /* the root's ignore file: .npmignore, else .gitignore */
  read_ignore(dir, &pl->ignore, &pl->nignore);
  pl->dir = nub_strdup(dir);
  *out = pl;
  return 0;
}

static void free_rules(struct rule *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    nub_free(v[i].pat);
  nub_free(v);
}

static void free_nested(void *p)
{
  struct nested *x = p;
  free_rules(x->v, x->n);
  nub_free(x);
}

void nub_packlist_free(struct nub_packlist *pl)
{
  if (!pl)
    return;
  free_rules(pl->files, pl->nfiles);
  free_rules(pl->ignore, pl->nignore);
  nub_strarray_free(pl->always, pl->nalways);
  nub_strmap_release(&pl->nested, free_nested);
  nub_free(pl->dir);
  nub_free(pl);
}
