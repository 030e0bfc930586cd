/* store_gc.c - `nub store verify` and `nub store prune` (store_gc.h). */
#include "store_gc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libdeflate.h>

#include "buf.h"
#include "index.h"
#include "integrity.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "record.h"
#include "state.h"
#include "strmap.h"

void nub_gc_result_release(struct nub_gc_result *r)
{
  nub_strarray_free(r->problems, r->nproblems);
  memset(r, 0, sizeof(*r));
}

static void problem(struct nub_gc_result *r, const char *fmt, const char *a, const char *b,
                    const char *c)
{
  r->problems = nub_realloc(r->problems, (r->nproblems + 1) * sizeof(char *));
  r->problems[r->nproblems++] = nub_asprintf(fmt, a, b, c);
}

int nub_store_gc_lock(struct nub_store *s, bool exclusive, bool wait, int *fd)
{
  char *dir = nub_asprintf("%s/locks", s->root), *path = nub_asprintf("%s/gc", dir);
  int rc;

  nub_plat_mkdir_p(dir, 0755);
  rc = exclusive ? nub_plat_lock(path, wait, fd) : nub_plat_lock_shared(path, wait, fd);
  nub_free(path);
  nub_free(dir);
  return rc;
}

void nub_store_register_project(struct nub_store *s, const char *project_dir)
{
  char *path = nub_store_project_path(s->root, "projects", project_dir, "");

  nub_plat_symlink_at(project_dir, NUB_PLAT_CWD, path); /* -EEXIST: known already */
  nub_free(path);
}

/* ---- walking the store -------------------------------------------------------- */

struct names {
  char **v;
  size_t n, cap;
};

static int collect(void *payload, const char *name, enum nub_plat_ftype type)
{
  struct names *l = payload;

  (void)type;
  NUB_GROW(l->v, l->cap, l->n + 1);
  l->v[l->n++] = nub_strdup(name);
  return 0;
}

static void list(const char *dir, struct names *out)
{
  memset(out, 0, sizeof(*out));
  nub_plat_list_dir_at(NUB_PLAT_CWD, dir, collect, out);
}

static void names_free(struct names *l)
{
  nub_strarray_free(l->v, l->n);
  memset(l, 0, sizeof(*l));
}

static bool is_hex(const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!strchr("0123456789abcdef", s[i]))
      return false;
  return s[n] == '\0';
}

/* Every index key in the store. */
static void index_keys(struct nub_store *s, struct names *keys)
{
  char *idir = nub_asprintf("%s/index", s->root);
  struct names shards;

  memset(keys, 0, sizeof(*keys));
  list(idir, &shards);
  for (size_t i = 0; i < shards.n; i++) {
    struct names files;
    char *sd;
    if (!is_hex(shards.v[i], 2))
      continue;
    sd = nub_asprintf("%s/%s", idir, shards.v[i]);
    list(sd, &files);
    for (size_t k = 0; k < files.n; k++)
      if (is_hex(files.v[k], 62)) {
        NUB_GROW(keys->v, keys->cap, keys->n + 1);
        keys->v[keys->n++] = nub_asprintf("%s%s", shards.v[i], files.v[k]);
      }
    names_free(&files);
    nub_free(sd);
  }
  names_free(&shards);
  nub_free(idir);
}

/* A stored file read back: its SHA-256 (a content file's name) and/or its
 * CRC-32 (a tree file's check value, NUB_IDX_TREE_CRC). */
static bool read_back(const char *path, unsigned char sha256[32], uint32_t *crc)
{
  char *data = NULL;
  size_t len = 0;

  if (nub_plat_read_file_at(NUB_PLAT_CWD, path, (size_t)1 << 34, &data, &len) < 0)
    return false;
  if (sha256)
    nub_sha256(data, len, sha256);
  if (crc)
    *crc = libdeflate_crc32(0, data, len);
  nub_free(data);
  return true;
}

/* ---- verify ------------------------------------------------------------------ */

/* A package whose files do not match its index loses the index (and its
 * tree): the next install fetches it again. */
static void drop_package(struct nub_store *s, const struct nub_index *idx,
                         struct nub_gc_result *r)
{
  nub_store_index_remove(s, idx->key);
  r->removed_indexes++;
  if (idx->tree) {
    char *dir = nub_asprintf("%s/packages/%s", s->root, idx->key);
    if (nub_plat_rm_rf_at(NUB_PLAT_CWD, dir) == 0)
      r->removed_trees++;
    nub_free(dir);
  }
}

/* verify (repair: content files re-hashed, bad packages dropped) and
 * status (the install's own check, reported only) are one walk. */
static int check_all(struct nub_store *s, bool repair, struct nub_gc_result *r)
{
  struct names keys;

  memset(r, 0, sizeof(*r));
  index_keys(s, &keys);
  for (size_t i = 0; i < keys.n; i++) {
    struct nub_index *idx = NULL;
    bool bad = false;
    char why[600];
    int rc = nub_store_index_load(s, keys.v[i], &idx);
    r->indexes++;
    if (rc < 0) {
      char rel[80];
      snprintf(rel, sizeof(rel), "%.2s/%s", keys.v[i], keys.v[i] + 2);
      problem(r, "index %s: unreadable (%s)%s", rel, nub_strerror(rc), "");
      if (repair) {
        nub_plat_unlink_at(s->index_fd, rel, false);
        r->removed_indexes++;
      }
      r->bad++;
      continue;
    }
    if (idx->tree)
      r->trees++;
    r->files += idx->nfiles;
    /* the install's own check first (sizes, mtimes) */
    if (nub_store_check(s, idx, why, sizeof(why)) < 0) {
      problem(r, "%s@%s: %s", idx->name, idx->version, why);
      bad = true;
    }
    /* then every content file re-hashed (even when the check failed: a
     * changed copy must go, or the next import finds it at its size and
     * keeps it) */
    for (uint32_t f = 0; repair && f < idx->nfiles && !idx->tree; f++) {
      const struct nub_index_file *x = &idx->files[f];
      unsigned char h[32];
      char name[67], *path;
      nub_store_file_name(x->hash, (x->mode & 0111) != 0, name);
      path = nub_asprintf("%s/files/%s", s->root, name);
      if (read_back(path, h, NULL) && memcmp(h, x->hash, 32)) {
        problem(r, "%s@%s: %s was changed (its content is not what its name says)",
                idx->name, idx->version, x->path);
        /* the bad copy goes too: an import would find it and keep it */
        if (nub_plat_unlink_at(NUB_PLAT_CWD, path, false) == 0)
          r->removed_files++;
        bad = true;
      }
      nub_free(path);
    }
    /* a tree's files read against their check values (a tree imported
     * before they were recorded has its sizes checked only); a changed tree
     * goes whole with its index below */
    for (uint32_t f = 0; repair && !bad && idx->tree && (idx->flags & NUB_IDX_TREE_CRC) &&
                         f < idx->nfiles; f++) {
      const struct nub_index_file *x = &idx->files[f];
      char *path = nub_asprintf("%s/%s/%s", s->root, idx->tree, x->path);
      uint32_t crc;
      if (read_back(path, NULL, &crc) && crc != nub_index_tree_crc(x->hash)) {
        problem(r, "%s@%s: %s was changed (its content is not what was unpacked)",
                idx->name, idx->version, x->path);
        bad = true;
      }
      nub_free(path);
    }
    if (bad) {
      r->bad++;
      if (repair)
        drop_package(s, idx, r);
    }
    nub_index_free(idx);
  }
  names_free(&keys);
  return 0;
}

int nub_store_verify(struct nub_store *s, struct nub_gc_result *r, struct nub_err *err)
{
  (void)err;
  return check_all(s, true, r);
}

int nub_store_status(struct nub_store *s, struct nub_gc_result *r, struct nub_err *err)
{
  (void)err;
  return check_all(s, false, r);
}

/* ---- prune ------------------------------------------------------------------- */

struct live {
  struct nub_store *s;
  size_t rootlen;
  struct nub_strmap keys;    /* index keys in use */
  struct nub_strmap entries; /* "links/<name>" and "packages/<key>" in use */
  struct names queue;        /* entries to walk */
};

/* An absolute path inside the store's links/ or packages/: the entry it is
 * in ("links/<name>", "packages/<key>"), kept and queued. */
static void keep_entry(struct live *lv, const char *abs)
{
  const char *rel;
  const char *kinds[2] = {"links/", "packages/"};

  if (strncmp(abs, lv->s->root, lv->rootlen) || abs[lv->rootlen] != '/')
    return;
  rel = abs + lv->rootlen + 1;
  for (int k = 0; k < 2; k++) {
    size_t kl = strlen(kinds[k]);
    if (!strncmp(rel, kinds[k], kl)) {
      char *entry = nub_strndup(rel, kl + strcspn(rel + kl, "/"));
      if (!nub_strmap_get(&lv->entries, entry)) {
        nub_strmap_put(&lv->entries, entry, (void *)1);
        NUB_GROW(lv->queue.v, lv->queue.cap, lv->queue.n + 1);
        lv->queue.v[lv->queue.n++] = nub_strdup(entry);
        if (k == 1) /* a tree is its index's */
          nub_strmap_put(&lv->keys, entry + kl, (void *)1);
      }
      nub_free(entry);
      return;
    }
  }
}

/* The targets of the symlinks in dir (and in its scopes). */
static void follow_links(struct live *lv, const char *dir, int depth)
{
  struct names n;

  list(dir, &n);
  for (size_t i = 0; i < n.n; i++) {
    char *p = nub_asprintf("%s/%s", dir, n.v[i]);
    struct nub_plat_stat st;
    if (nub_plat_stat_at(NUB_PLAT_CWD, p, &st) == 0) {
      if (st.type == NUB_FT_LINK) {
        char *real = nub_plat_realpath(p);
        if (real)
          keep_entry(lv, real);
        nub_free(real);
      } else if (st.type == NUB_FT_DIR && n.v[i][0] == '@' && depth == 0) {
        follow_links(lv, p, 1);
      }
    }
    nub_free(p);
  }
  names_free(&n);
}

/* A direct dependency's link (relative to the project): the entry it
 * reaches, or, for a directory of the project's own (file:), the entries
 * its node_modules links to. */
static void follow_direct(struct live *lv, const char *project, const char *rel)
{
  char *p = nub_asprintf("%s/%s", project, rel), *real = nub_plat_realpath(p);

  if (real && !strncmp(real, lv->s->root, lv->rootlen) && real[lv->rootlen] == '/') {
    keep_entry(lv, real);
  } else if (real) {
    char *nm = nub_asprintf("%s/node_modules", real);
    follow_links(lv, nm, 0);
    nub_free(nm);
  }
  nub_free(real);
  nub_free(p);
}

/* node_modules/.nub: the packages the project keeps (their dependency
 * links), the hidden hoist, and an older layout's links per package. */
static void follow_nub(struct live *lv, const char *nub_dir)
{
  struct names n;

  follow_links(lv, nub_dir, 0);
  list(nub_dir, &n);
  for (size_t i = 0; i < n.n; i++) {
    char *p = nub_asprintf("%s/%s", nub_dir, n.v[i]);
    struct nub_plat_stat st;
    if (nub_plat_stat_at(NUB_PLAT_CWD, p, &st) == 0 && st.type == NUB_FT_DIR) {
      char *nm = strcmp(n.v[i], "node_modules") ? nub_asprintf("%s/node_modules", p)
                                                : nub_strdup(p);
      follow_links(lv, nm, 0);
      nub_free(nm);
    }
    nub_free(p);
  }
  names_free(&n);
}

/* One registered project: what its state says it installed, and the
 * entries of the global virtual store its links reach. */
static bool keep_project(struct live *lv, const char *project)
{
  int fd = nub_plat_open_dir_at(NUB_PLAT_CWD, project);
  struct nub_state st;
  bool ok = false;

  if (fd < 0)
    return false;
  if (nub_state_read(&st, fd, false) == 0) {
    char *nub_dir = nub_asprintf("%s/node_modules/.nub", project);
    ok = true;
    for (size_t i = 0; i < st.n; i++)
      if (st.keys[i] && strcmp(st.keys[i], "-"))
        nub_strmap_put(&lv->keys, st.keys[i], (void *)1);
    for (size_t i = 0; i < st.nchecks; i++)
      follow_direct(lv, project, st.checks[i]);
    follow_nub(lv, nub_dir);
    nub_free(nub_dir);
    nub_state_release(&st);
  }
  nub_plat_close(fd);
  return ok;
}

int nub_store_prune(struct nub_store *s, struct nub_gc_result *r, struct nub_err *err)
{
  struct live lv;
  struct names projects, keys, shards, links, trees;
  struct nub_strmap files;
  char *pdir = nub_asprintf("%s/projects", s->root);

  (void)err;
  memset(r, 0, sizeof(*r));
  memset(&lv, 0, sizeof(lv));
  memset(&files, 0, sizeof(files));
  lv.s = s;
  lv.rootlen = strlen(s->root);
  /* records name entries this prune may remove */
  nub_record_forget_all(s);
  /* what the projects use, and the entries those entries link to */
  list(pdir, &projects);
  for (size_t i = 0; i < projects.n; i++) {
    char *link = nub_asprintf("%s/%s", pdir, projects.v[i]), target[4096];
    long n = nub_plat_readlink_at(NUB_PLAT_CWD, link, target, sizeof(target));
    r->projects++;
    if (n <= 0 || !keep_project(&lv, target)) {
      nub_plat_unlink_at(NUB_PLAT_CWD, link, false);
      r->removed_projects++;
    }
    nub_free(link);
  }
  for (size_t q = 0; q < lv.queue.n; q++) {
    char *nm = nub_asprintf("%s/%s/node_modules", s->root, lv.queue.v[q]);
    follow_links(&lv, nm, 0);
    nub_free(nm);
  }
  /* indexes: the kept ones name the content files to keep */
  index_keys(s, &keys);
  for (size_t i = 0; i < keys.n; i++) {
    struct nub_index *idx = NULL;
    r->indexes++;
    if (!nub_strmap_get(&lv.keys, keys.v[i])) {
      char rel[80];
      snprintf(rel, sizeof(rel), "%.2s/%s", keys.v[i], keys.v[i] + 2);
      nub_plat_unlink_at(s->index_fd, rel, false);
      r->removed_indexes++;
      continue;
    }
    if (nub_store_index_load(s, keys.v[i], &idx) == 0) {
      for (uint32_t f = 0; !idx->tree && f < idx->nfiles; f++) {
        char name[67];
        nub_store_file_name(idx->files[f].hash, (idx->files[f].mode & 0111) != 0, name);
        nub_strmap_put(&files, name, (void *)1);
      }
      nub_index_free(idx);
    }
  }
  /* content files no kept index names */
  {
    char *fdir = nub_asprintf("%s/files", s->root);
    list(fdir, &shards);
    for (size_t i = 0; i < shards.n; i++) {
      struct names fl;
      char *sd;
      if (!is_hex(shards.v[i], 2))
        continue;
      sd = nub_asprintf("%s/%s", fdir, shards.v[i]);
      list(sd, &fl);
      for (size_t k = 0; k < fl.n; k++) {
        char name[80];
        r->files++;
        snprintf(name, sizeof(name), "%s/%s", shards.v[i], fl.v[k]);
        if (!nub_strmap_get(&files, name)) {
          char *p = nub_asprintf("%s/%s", sd, fl.v[k]);
          if (nub_plat_unlink_at(NUB_PLAT_CWD, p, false) == 0)
            r->removed_files++;
          nub_free(p);
        }
      }
      names_free(&fl);
      nub_free(sd);
    }
    names_free(&shards);
    nub_free(fdir);
  }
  /* trees and entries nothing links to */
  for (int k = 0; k < 2; k++) {
    const char *kind = k ? "packages" : "links";
    char *dir = nub_asprintf("%s/%s", s->root, kind);
    struct names *l = k ? &trees : &links;
    list(dir, l);
    for (size_t i = 0; i < l->n; i++) {
      char *entry = nub_asprintf("%s/%s", kind, l->v[i]);
      if (l->v[i][0] == '.') { /* an entry being built */
        nub_free(entry);
        continue;
      }
      if (k)
        r->trees++;
      else
        r->entries++;
      if (!nub_strmap_get(&lv.entries, entry) &&
          !(k && nub_strmap_get(&lv.keys, l->v[i]))) {
        char *p = nub_asprintf("%s/%s", s->root, entry);
        if (nub_plat_rm_rf_at(NUB_PLAT_CWD, p) == 0) {
          if (k)
            r->removed_trees++;
          else
            r->removed_entries++;
        }
        nub_free(p);
      }
      nub_free(entry);
    }
    names_free(l);
    nub_free(dir);
  }
  names_free(&projects);
  names_free(&keys);
  names_free(&lv.queue);
  nub_strmap_release(&lv.keys, NULL);
  nub_strmap_release(&lv.entries, NULL);
  nub_strmap_release(&files, NULL);
  nub_free(pdir);
  return 0;
}
