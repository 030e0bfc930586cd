/* store.c - content-addressed store: open, indexes, staged imports. */
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "buf.h"
#include "diag.h"
#include "integrity.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "path.h"
#include "quickhash.h"
#include "pkgfacts.h"
#include "requires.h"
#include "strmap.h"
#include "text.h"

#define MEM_LIMIT (1u << 20) /* file bytes kept in memory before spilling */

/* ---- open -------------------------------------------------------------- */

/* Shard directories are made when first written to, not at open: a cold
 * install would otherwise start with 512 mkdir calls on its critical path
 * (and an isolated one writes no content files at all). A store made by an
 * earlier version has them all, which its marker says. */
static void shards_known(uint64_t made[4], int dirfd)
{
  struct nub_plat_stat st;

  if (nub_plat_stat_at(dirfd, ".shards", &st) == 0)
    made[0] = made[1] = made[2] = made[3] = ~0ull;
}

/* The shard directory of name ("ab/..."), made if this handle has not. */
static int shard_ready(uint64_t made[4], int dirfd, const char *name)
{
  int hi = nub_hex_digit(name[0]), lo = nub_hex_digit(name[1]), i, rc;
  char dir[3] = {name[0], name[1], 0};

  if (hi < 0 || lo < 0 || name[2] != '/')
    return 0;
  i = hi * 16 + lo;
  if (__atomic_load_n(&made[i / 64], __ATOMIC_RELAXED) & (1ull << (i % 64)))
    return 0;
  rc = nub_plat_mkdir_at(dirfd, dir, 0755);
  if (rc < 0 && rc != -EEXIST)
    return rc;
  __atomic_fetch_or(&made[i / 64], 1ull << (i % 64), __ATOMIC_RELAXED);
  return 0;
}

int nub_store_open(struct nub_store *s, const char *dir, struct nub_err *err)
{
  int rc;

  memset(s, 0, sizeof(*s));
  pthread_mutex_init(&s->stage_lock, NULL);
  s->root_fd = s->files_fd = s->index_fd = s->tmp_fd = s->packages_fd = -1;
  s->root = nub_store_root_path(dir);
  rc = nub_plat_mkdir_p(s->root, 0755);
  if (rc < 0)
    goto fail;
  s->root_fd = nub_plat_open_dir_at(NUB_PLAT_CWD, s->root);
  if (s->root_fd < 0) {
    rc = s->root_fd;
    goto fail;
  }
  static const char *const subs[] = {"files", "index", "tmp", "packages"};
  for (int i = 0; i < 4; i++) {
    rc = nub_plat_mkdir_at(s->root_fd, subs[i], 0755);
    if (rc < 0 && rc != -EEXIST)
      goto fail;
  }
  s->files_fd = nub_plat_open_dir_at(s->root_fd, "files");
  s->index_fd = nub_plat_open_dir_at(s->root_fd, "index");
  s->tmp_fd = nub_plat_open_dir_at(s->root_fd, "tmp");
  s->packages_fd = nub_plat_open_dir_at(s->root_fd, "packages");
  if (s->files_fd < 0 || s->index_fd < 0 || s->tmp_fd < 0 || s->packages_fd < 0) {
    rc = s->files_fd < 0 ? s->files_fd : s->index_fd < 0 ? s->index_fd
         : s->tmp_fd < 0 ? s->tmp_fd : s->packages_fd;
    goto fail;
  }
  /* Shards and staging directories start hierarchies of their own: spread,
   * their files do not queue behind the inodes of a store deleted just
   * before (see link_hoisted.c). */
  nub_plat_spread_hint(s->files_fd);
  nub_plat_spread_hint(s->index_fd);
  nub_plat_spread_hint(s->tmp_fd);
  shards_known(s->files_made, s->files_fd);
  shards_known(s->index_made, s->index_fd);
  return 0;
fail:
  nub_err_set(err, rc, "cannot open the store at %s: %s", s->root, nub_strerror(rc));
  nub_store_close(s);
  return rc;
}

void nub_store_close(struct nub_store *s)
{
  for (size_t i = 0; i < s->nall; i++) {
    nub_plat_close(s->all[i].fd);
    nub_plat_rm_rf_at(s->tmp_fd, s->all[i].name);
    nub_free(s->all[i].name);
  }
  nub_free(s->all);
  nub_free(s->stages);
  pthread_mutex_destroy(&s->stage_lock);
  nub_plat_close(s->root_fd);
  nub_plat_close(s->files_fd);
  nub_plat_close(s->index_fd);
  nub_plat_close(s->tmp_fd);
  nub_plat_close(s->packages_fd);
  nub_free(s->root);
  memset(s, 0, sizeof(*s));
  pthread_mutex_init(&s->stage_lock, NULL);
  s->root_fd = s->files_fd = s->index_fd = s->tmp_fd = s->packages_fd = -1;
}

int nub_store_links(struct nub_store *s, int *fd, char **abs, struct nub_err *err)
{
  *abs = nub_asprintf("%s/links", s->root);
  nub_plat_mkdir_at(s->root_fd, "links", 0755);
  *fd = nub_plat_open_dir_at(s->root_fd, "links");
  if (*fd < 0)
    return nub_err_set(err, *fd, "cannot open %s: %s", *abs, nub_strerror(*fd));
  return 0;
}

char *nub_store_root_path(const char *dir)
{
  return nub_asprintf("%s/v1", dir);
}

char *nub_store_project_path(const char *root, const char *kind, const char *project_dir,
                             const char *suffix)
{
  unsigned char h[16];
  char hex[33], *dir = nub_asprintf("%s/%s", root, kind), *path;

  nub_quickhash(project_dir, strlen(project_dir), h);
  nub_hex(h, 16, hex);
  nub_plat_mkdir_p(dir, 0755);
  path = nub_asprintf("%s/%s%s", dir, hex, suffix);
  nub_free(dir);
  return path;
}

char *nub_store_lock_path(struct nub_store *s, const char *project_dir)
{
  return nub_store_project_path(s->root, "locks", project_dir, "");
}

struct clean_ctx {
  int tmp_fd;
};

static int clean_one(void *payload, const char *name, enum nub_plat_ftype type)
{
  struct clean_ctx *c = payload;
  int pid = atoi(name);

  (void)type;
  if (pid > 0 && !nub_plat_pid_alive(pid))
    nub_plat_rm_rf_at(c->tmp_fd, name);
  return 0;
}

void nub_store_clean_tmp(struct nub_store *s)
{
  struct clean_ctx c = {s->tmp_fd};
  nub_plat_list_dir_at(s->tmp_fd, ".", clean_one, &c);
}

/* ---- indexes ------------------------------------------------------------ */

static void key_path(const char key[65], char out[67])
{
  out[0] = key[0];
  out[1] = key[1];
  out[2] = '/';
  memcpy(out + 3, key + 2, 62);
  out[65] = '\0';
}

void nub_store_file_name(const unsigned char hash[32], bool exec, char out[67])
{
  char hex[65];

  nub_hex(hash, 32, hex);
  out[0] = hex[0];
  out[1] = hex[1];
  out[2] = '/';
  memcpy(out + 3, hex + 2, 62);
  out[65] = exec ? 'x' : '\0';
  out[66] = '\0';
}

int nub_store_index_load(struct nub_store *s, const char key[65],
                         struct nub_index **out)
{
  char rel[67];
  char *blob = NULL;
  size_t len = 0;
  int rc;

  struct nub_plat_stat st;

  key_path(key, rel);
  rc = nub_plat_read_file_stat_at(s->index_fd, rel, 256u << 20, &blob, &len, &st);
  if (rc < 0)
    return rc == -ENOENT ? -ENOENT : -NUB_ESTORE;
  rc = nub_index_parse(blob, len, out);
  if (rc == 0) {
    memcpy((*out)->key, key, 65);
    (*out)->stored_ns = st.mtime_ns;
  }
  return rc;
}

void nub_store_index_remove(struct nub_store *s, const char key[65])
{
  char rel[67];

  key_path(key, rel);
  nub_plat_unlink_at(s->index_fd, rel, false);
}

/* ---- import ------------------------------------------------------------- */

/* A file of the package. Its content is in the store (under the mode the
 * tar entry had) from the moment its entry ends. */
struct imp_file {
  char *path;
  unsigned char hash[32];
  uint64_t size;
  bool tar_exec;
};

struct nub_import {
  struct nub_store *store;
  struct nub_stage_dir stage; /* borrowed from the store; fd -1 until needed */
  struct imp_file *files;
  size_t nfiles, capfiles;
  char **dirs;
  size_t ndirs, capdirs;
  uint64_t bytes;
  size_t nfresh; /* files this import wrote into the store */
  /* the file being written */
  struct imp_file cur;
  bool in_file;
  struct nub_buf own_mem, *mem; /* mem: own_mem or a caller's, see nub_import_reuse */
  struct nub_plat_newfile nf; /* nf.fd >= 0 once a big file spilled */
  struct nub_hasher h;
  struct nub_strmap required; /* package names its JS files load */
  struct nub_strmap byname;   /* file path -> index + 1 in files */
  char *pkgjson; /* the package's own package.json, for bins and scripts */
  size_t pkgjson_len;
  bool cur_is_pkgjson;
  /* package.json files of bundled dependencies ("node_modules/x/..."): their
   * bins' targets are made executable too, as npm links them */
  struct nub_bundled_manifest *bundled;
  size_t nbundled, capbundled;
  /* tree mode (nub_import_as_tree): the package directory being written,
   * <stage>/<tree_stage>/node_modules/<tree_name>, and the open file */
  char *tree_name;
  char tree_stage[24];
  int tree_fd, tfd;
  struct nub_strmap made; /* directories made in the tree */
  uint64_t distrust_ns; /* store files changed after this are replaced, not reused */
  uint32_t crc; /* tree mode: the current file's CRC-32 so far */
};

static int ensure_stage_dir(struct nub_import *im)
{
  struct nub_store *s = im->store;
  struct nub_stage_dir d = {NULL, -1};
  int rc = 0;

  if (im->stage.fd >= 0)
    return 0;
  pthread_mutex_lock(&s->stage_lock);
  if (s->nstages) {
    d = s->stages[--s->nstages];
  } else {
    d.name = nub_asprintf("%d-%zu-%llu", nub_plat_pid(), s->nall,
                          (unsigned long long)(nub_plat_now_ns() % 1000000007ull));
    rc = nub_plat_mkdir_at(s->tmp_fd, d.name, 0755);
    if (rc == 0) {
      d.fd = nub_plat_open_dir_at(s->tmp_fd, d.name);
      rc = d.fd < 0 ? d.fd : 0;
    }
    if (rc == 0) {
      NUB_GROW(s->all, s->capall, s->nall + 1);
      s->all[s->nall++] = d;
    } else {
      nub_plat_rm_rf_at(s->tmp_fd, d.name);
      nub_free(d.name);
    }
  }
  pthread_mutex_unlock(&s->stage_lock);
  if (rc < 0)
    return rc;
  im->stage = d;
  return 0;
}

/* A name no other import of this store handle stages under. */
static unsigned next_tmpno(struct nub_import *im)
{
  return __atomic_fetch_add(&im->store->tmp_seq, 1, __ATOMIC_RELAXED);
}

int nub_import_begin(struct nub_store *s, struct nub_import **out, struct nub_err *err)
{
  struct nub_import *im = nub_calloc(1, sizeof(*im));

  (void)err;
  im->store = s;
  im->stage.fd = -1;
  im->nf.fd = -1;
  im->tree_fd = im->tfd = -1;
  im->mem = &im->own_mem;
  *out = im; /* the hasher is made by the first content-addressed file */
  return 0;
}

void nub_import_reuse(struct nub_import *im, struct nub_buf *buf)
{
  im->mem = buf;
}

/* A registry name, safe as a path: "x" or "@s/x", no dot segments. */
static bool tree_name_ok(const char *n)
{
  const char *slash = strchr(n, '/');
  if (!*n || *n == '.' || strstr(n, "..") || strchr(n, '\\'))
    return false;
  if (slash)
    return *n == '@' && slash[1] && slash[1] != '.' && !strchr(slash + 1, '/');
  return true;
}

bool nub_import_as_tree(struct nub_import *im, const char *name)
{
  if (im->nfiles || im->in_file || !tree_name_ok(name))
    return false;
  nub_free(im->tree_name);
  im->tree_name = nub_strdup(name);
  return true;
}

static int ensure_tree_dir(struct nub_import *im)
{
  char path[600];
  int rc;

  if (im->tree_fd >= 0)
    return 0;
  rc = ensure_stage_dir(im);
  if (rc < 0)
    return rc;
  snprintf(im->tree_stage, sizeof(im->tree_stage), "t%u", next_tmpno(im));
  snprintf(path, sizeof(path), "%s/node_modules/%s", im->tree_stage, im->tree_name);
  /* each level at once: new, so a first try of the whole path would fail */
  for (char *sl = strchr(path, '/');; sl = strchr(sl + 1, '/')) {
    if (sl)
      *sl = '\0';
    rc = nub_plat_mkdir_at(im->stage.fd, path, 0755);
    if (sl)
      *sl = '/';
    if (rc < 0 && rc != -EEXIST)
      return rc;
    if (!sl)
      break;
  }
  im->tree_fd = nub_plat_open_dir_at(im->stage.fd, path);
  return im->tree_fd < 0 ? im->tree_fd : 0;
}

/* The directories above path (and path itself when `self`), each made
 * once per import: tarballs seldom list their directories, and a create
 * that fails first costs a syscall. */
static int tree_mkdirs(struct nub_import *im, const char *path, bool self)
{
  char buf[4096];
  size_t n = strlen(path);

  if (n + 1 >= sizeof(buf))
    return -ENAMETOOLONG;
  memcpy(buf, path, n);
  buf[n] = '/';
  buf[n + 1] = '\0';
  if (!self)
    buf[n] = '\0';
  for (char *s = strchr(buf, '/'); s; s = strchr(s + 1, '/')) {
    *s = '\0';
    if (!nub_strmap_get(&im->made, buf)) {
      int rc = nub_plat_mkdir_at(im->tree_fd, buf, 0755);
      if (rc < 0 && rc != -EEXIST)
        return rc;
      nub_strmap_put(&im->made, buf, im);
    }
    *s = '/';
  }
  return 0;
}

/* The current file, created in the package directory. A later tar entry
 * with the same path replaces an earlier one, as tar does. */
static int tree_create(struct nub_import *im)
{
  const char *path = im->cur.path;
  unsigned mode = im->cur.tar_exec ? 0755 : 0644;
  int rc = ensure_tree_dir(im), fd;

  if (rc == 0)
    rc = tree_mkdirs(im, path, false);
  if (rc < 0)
    return rc;
  fd = nub_plat_create_excl_at(im->tree_fd, path, mode);
  if (fd == -EEXIST) {
    nub_plat_unlink_at(im->tree_fd, path, false);
    fd = nub_plat_create_excl_at(im->tree_fd, path, mode);
  }
  return fd;
}

static int tree_spill(struct nub_import *im)
{
  int fd = tree_create(im);

  if (fd < 0)
    return fd;
  im->tfd = fd;
  fd = nub_plat_write_all(im->tfd, im->mem->data ? im->mem->data : "", im->mem->len);
  nub_buf_reset(im->mem);
  return fd;
}

void nub_import_counts(const struct nub_import *im, uint64_t *fresh, uint64_t *present)
{
  *fresh = im->nfresh;
  *present = im->nfiles - im->nfresh;
}

void nub_import_distrust(struct nub_import *im, uint64_t after_ns)
{
  im->distrust_ns = after_ns;
}

int nub_import_dir(struct nub_import *im, const char *relpath)
{
  NUB_GROW(im->dirs, im->capdirs, im->ndirs + 1);
  im->dirs[im->ndirs++] = nub_strdup(relpath);
  return 0;
}

int nub_import_file_begin(struct nub_import *im, const char *relpath, unsigned tar_mode)
{
  memset(&im->cur, 0, sizeof(im->cur));
  im->cur.path = nub_strdup(relpath);
  im->cur.tar_exec = (tar_mode & 0111) != 0;
  im->in_file = true;
  im->cur_is_pkgjson = !strcmp(relpath, "package.json");
  nub_buf_reset(im->mem);
  if (!im->tree_name) { /* a tree's files are named by their paths */
    if (im->h.ctx)
      nub_hasher_reset(&im->h);
    else
      nub_hasher_init(&im->h, NUB_HASH_SHA256);
  }
  im->crc = 0;
  return 0;
}

/* A new store file, unnamed until its hash is known. */
static int open_new(struct nub_import *im, bool exec)
{
  int rc = ensure_stage_dir(im);

  if (rc < 0)
    return rc;
  return nub_plat_newfile_open(&im->nf, im->store->files_fd, im->stage.fd,
                               exec ? 0755 : 0644);
}

static int spill(struct nub_import *im)
{
  int rc = open_new(im, im->cur.tar_exec);

  if (rc < 0)
    return rc;
  rc = nub_plat_write_all(im->nf.fd, im->mem->data ? im->mem->data : "", im->mem->len);
  nub_buf_reset(im->mem);
  return rc;
}

/* Whether the store holds `name` whole: a file of the size its content
 * hashed at (see put_small). *exists tells whether anything has the name. */
static bool have_whole(struct nub_import *im, const char *name, uint64_t size, bool *exists)
{
  struct nub_plat_stat st;

  *exists = nub_plat_stat_at(im->store->files_fd, name, &st) == 0;
  return *exists && st.type == NUB_FT_FILE && st.size == size &&
         !(im->distrust_ns && st.mtime_ns > im->distrust_ns);
}

/* Name the new file in im->nf after its content: over a short one that has
 * the name (`over`), or afresh, where a racing import's copy is as good. */
static int publish_new(struct nub_import *im, const char *name, bool over)
{
  int rc = shard_ready(im->store->files_made, im->store->files_fd, name);

  if (rc < 0) {
    nub_plat_newfile_discard(&im->nf);
    return rc;
  }
  /* A replacement is dated back (to npm pack's fixed date), so that it is
   * not newer than the index of any other package that shares it (the
   * check of nub_store_check); a fresh file is older than its index anyway. */
  if (over)
    nub_plat_set_mtime_fd(im->nf.fd, NUB_STORE_OLD_MTIME);
  rc = over ? nub_plat_newfile_replace(&im->nf, im->store->files_fd, name)
            : nub_plat_newfile_publish(&im->nf, im->store->files_fd, name);

  if (rc == -EEXIST || rc == -ENOTEMPTY)
    return 0;
  if (rc == 0)
    im->nfresh++;
  return rc;
}

/* A small file, whose hash is known before it is written, is created under
 * its final name at once: an atomic publish (a temp file renamed or linked
 * in) costs a third more system time per file, and most files are small.
 * The protocol that keeps the store consistent without it: a store file is
 * whole when its size is the size its content hashed at. Everything that
 * trusts a file found in the store compares sizes first (a package's index
 * records them, and is published only after all its files were whole), so a
 * file cut short by a crash or a full disk is never linked; the next import
 * of that content finds it short and replaces it with a whole copy, renamed
 * over it in one step (which also covers a writer that is still busy: it
 * keeps writing to an inode no name points to any more). */
static int put_small(struct nub_import *im, const char *name, const char *data,
                     size_t len)
{
  bool exists;
  int rc, fd = shard_ready(im->store->files_made, im->store->files_fd, name);

  if (fd == 0)
    fd = nub_plat_create_excl_at(im->store->files_fd, name,
                                 im->cur.tar_exec ? 0755 : 0644);

  if (fd >= 0) {
    rc = nub_plat_write_all(fd, data, len);
    if (nub_plat_close(fd) < 0 && rc == 0)
      rc = -EIO;
    if (rc == 0)
      im->nfresh++;
    return rc; /* a short file left by a failed write is replaced later */
  }
  if (fd != -EEXIST)
    return fd;
  if (have_whole(im, name, len, &exists))
    return 0;
  /* short (or not a file): a whole copy, renamed over it */
  rc = open_new(im, im->cur.tar_exec);
  if (rc < 0)
    return rc;
  rc = nub_plat_write_all(im->nf.fd, data, len);
  if (rc < 0) {
    nub_plat_newfile_discard(&im->nf);
    return rc;
  }
  return publish_new(im, name, exists);
}

int nub_import_file_write(struct nub_import *im, const void *p, size_t n)
{
  /* a tree's check value costs a fraction of a content hash (libdeflate's
   * CRC-32 runs at memory speed) */
  if (!im->tree_name)
    nub_hasher_update(&im->h, p, n);
  else
    im->crc = libdeflate_crc32(im->crc, p, n);
  im->cur.size += n;
  im->bytes += n;
  if (im->nf.fd >= 0)
    return nub_plat_write_all(im->nf.fd, p, n);
  if (im->tfd >= 0)
    return nub_plat_write_all(im->tfd, p, n);
  if (im->mem->len + n > MEM_LIMIT && !im->cur_is_pkgjson) {
    /* what came so far to a file of its own, then these bytes straight
     * from the caller's buffer: a big file is never copied into memory
     * (a tarball hands its files over whole) */
    int rc = im->tree_name ? tree_spill(im) : spill(im);
    if (rc < 0)
      return rc;
    return nub_plat_write_all(im->nf.fd >= 0 ? im->nf.fd : im->tfd, p, n);
  }
  nub_buf_add(im->mem, p, n);
  return 0;
}

static void add_file(struct nub_import *im)
{
  /* tar semantics: a later entry with the same path replaces the earlier */
  uintptr_t at = (uintptr_t)nub_strmap_get(&im->byname, im->cur.path);

  if (at) {
    nub_free(im->files[at - 1].path);
    im->files[at - 1] = im->cur;
    return;
  }
  NUB_GROW(im->files, im->capfiles, im->nfiles + 1);
  im->files[im->nfiles++] = im->cur;
  nub_strmap_put(&im->byname, im->cur.path, (void *)(uintptr_t)im->nfiles);
}

static void note_required(void *ud, const char *name)
{
  struct nub_import *im = ud;
  if (!nub_strmap_get(&im->required, name))
    nub_strmap_put(&im->required, name, im);
}

static bool is_js(const char *path)
{
  const char *dot = strrchr(path, '.');
  return dot && (!strcmp(dot, ".js") || !strcmp(dot, ".cjs") || !strcmp(dot, ".mjs"));
}

int nub_import_file_end(struct nub_import *im)
{
  char name[67];
  int rc = 0;

  if (!im->tree_name)
    nub_hasher_final(&im->h, im->cur.hash, NULL);
  else
    nub_index_set_tree_crc(im->cur.hash, im->crc);
  im->in_file = false;
  if (im->cur_is_pkgjson) {
    nub_free(im->pkgjson);
    im->pkgjson_len = im->mem->len;
    im->pkgjson = nub_malloc(im->mem->len + 1);
    memcpy(im->pkgjson, im->mem->data ? im->mem->data : "", im->mem->len);
    im->pkgjson[im->mem->len] = 0;
  }
  if (im->nf.fd < 0 && im->tfd < 0 && !im->cur_is_pkgjson && im->mem->len &&
      is_js(im->cur.path))
    nub_scan_requires(im->mem->data, im->mem->len, note_required, im);
  if (im->nf.fd < 0 && im->tfd < 0 && !strncmp(im->cur.path, "node_modules/", 13)) {
    size_t pl = strlen(im->cur.path);
    if (pl > 13 + 13 && !strcmp(im->cur.path + pl - 13, "/package.json")) {
      char *dir = nub_strndup(im->cur.path, pl - 13);
      const char *folder = nub_path_pkg_name(dir);
      /* "node_modules/x" or "node_modules/@s/x", not a folder inside one */
      const char *slash = folder ? strchr(folder, '/') : NULL;
      if (folder && (folder[0] == '@' ? slash && slash[1] && !strchr(slash + 1, '/') : !slash)) {
        struct nub_bundled_manifest *b;
        NUB_GROW(im->bundled, im->capbundled, im->nbundled + 1);
        b = &im->bundled[im->nbundled++];
        b->dir = dir;
        b->len = im->mem->len;
        b->text = nub_malloc(b->len + 1);
        memcpy(b->text, im->mem->data ? im->mem->data : "", b->len);
        b->text[b->len] = '\0';
        dir = NULL;
      }
      nub_free(dir);
    }
  }
  if (im->tree_name) {
    /* tree mode: the file's name is its path in the package directory */
    if (im->tfd < 0) {
      const char *data = im->cur_is_pkgjson ? im->pkgjson : im->mem->data;
      size_t len = im->cur_is_pkgjson ? im->pkgjson_len : im->mem->len;
      int fd = tree_create(im);
      rc = fd < 0 ? fd : nub_plat_write_all(fd, data ? data : "", len);
      if (fd >= 0 && nub_plat_close(fd) < 0 && rc == 0)
        rc = -EIO;
    } else {
      rc = nub_plat_close(im->tfd) < 0 ? -EIO : 0;
      im->tfd = -1;
    }
    if (rc == 0)
      im->nfresh++;
    goto out;
  }
  /* Files are content-addressed, so each is published as soon as its hash
   * is known: whatever happens to the rest of the tarball, a file under its
   * own hash is correct. The package appears only with its index. */
  nub_store_file_name(im->cur.hash, im->cur.tar_exec, name);
  if (im->nf.fd >= 0) { /* a big file, written as it came */
    bool exists;
    if (have_whole(im, name, im->cur.size, &exists))
      nub_plat_newfile_discard(&im->nf);
    else
      rc = publish_new(im, name, exists);
    goto out;
  }
  {
    const char *data = im->cur_is_pkgjson ? im->pkgjson : im->mem->data;
    size_t len = im->cur_is_pkgjson ? im->pkgjson_len : im->mem->len;
    rc = put_small(im, name, data ? data : "", len);
  }
out:
  nub_buf_reset(im->mem);
  if (rc < 0) {
    nub_free(im->cur.path);
    im->cur.path = NULL;
    return rc;
  }
  add_file(im);
  return 0;
}

static void free_import(struct nub_import *im)
{
  for (size_t i = 0; i < im->nfiles; i++)
    nub_free(im->files[i].path);
  nub_free(im->files);
  for (size_t i = 0; i < im->ndirs; i++)
    nub_free(im->dirs[i]);
  nub_free(im->dirs);
  if (im->in_file)
    nub_free(im->cur.path);
  nub_plat_newfile_discard(&im->nf);
  if (im->tfd >= 0)
    nub_plat_close(im->tfd);
  if (im->tree_fd >= 0)
    nub_plat_close(im->tree_fd);
  if (im->tree_stage[0] && im->stage.fd >= 0)
    nub_plat_rm_rf_at(im->stage.fd, im->tree_stage); /* not published */
  nub_free(im->tree_name);
  nub_strmap_release(&im->made, NULL);
  nub_buf_release(&im->own_mem);
  nub_hasher_release(&im->h);
  nub_free(im->pkgjson);
  for (size_t i = 0; i < im->nbundled; i++) {
    nub_free(im->bundled[i].dir);
    nub_free(im->bundled[i].text);
  }
  nub_free(im->bundled);
  nub_strmap_release(&im->required, NULL);
  nub_strmap_release(&im->byname, NULL);
  if (im->stage.fd >= 0) {
    /* Files an aborted import left behind have names no one reuses; they
     * go when the store is closed. */
    struct nub_store *s = im->store;
    pthread_mutex_lock(&s->stage_lock);
    NUB_GROW(s->stages, s->capstages, s->nstages + 1);
    s->stages[s->nstages++] = im->stage;
    pthread_mutex_unlock(&s->stage_lock);
  }
  nub_free(im);
}

void nub_import_abort(struct nub_import *im)
{
  if (im)
    free_import(im);
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_file(const void *a, const void *b)
{
  return strcmp(((const struct imp_file *)a)->path, ((const struct imp_file *)b)->path);
}

/* Make the content of f present under mode `exec` too, when its tar entry
 * had the other mode (a bin target without its x bit): one inode cannot
 * carry both modes, so that takes a copy. */
static int publish_mode(struct nub_import *im, struct imp_file *f, bool exec)
{
  char name[67], other[67], tmp[16];
  bool found;
  int rc;

  if (exec == f->tar_exec)
    return 0;
  if (im->tree_name) /* the package's own file: its mode is the package's */
    return nub_plat_chmod_at(im->tree_fd, f->path, exec ? 0755 : 0644);
  nub_store_file_name(f->hash, exec, name);
  if (have_whole(im, name, f->size, &found))
    return 0;
  rc = ensure_stage_dir(im);
  if (rc < 0)
    return rc;
  nub_store_file_name(f->hash, !exec, other);
  snprintf(tmp, sizeof(tmp), "%u", next_tmpno(im));
  rc = nub_plat_copy_stream_at(im->store->files_fd, other, im->stage.fd, tmp,
                               exec ? 0755 : 0644, f->size);
  if (rc == 0 && exec)
    rc = nub_plat_chmod_at(im->stage.fd, tmp, 0755); /* past the umask */
  if (rc == 0)
    rc = shard_ready(im->store->files_made, im->store->files_fd, name);
  if (rc == 0 && found) /* short: replaced in one step */
    rc = nub_plat_rename_at(im->stage.fd, tmp, im->store->files_fd, name);
  else if (rc == 0)
    rc = nub_plat_rename_noreplace_at(im->stage.fd, tmp, im->store->files_fd, name);
  if (rc == -EEXIST || rc == -ENOTEMPTY)
    rc = 0; /* another import published it first; ours goes at close */
  return rc;
}

/* Whether the tree at packages/<key> has every file of this import at its
 * size: a racing import's copy, or a damaged one to be replaced. */
static bool tree_whole(struct nub_import *im, const char *key)
{
  char path[600];
  int fd;
  bool ok = true;

  snprintf(path, sizeof(path), "%s/node_modules/%s", key, im->tree_name);
  fd = nub_plat_open_dir_at(im->store->packages_fd, path);
  if (fd < 0)
    return false;
  for (size_t i = 0; i < im->nfiles && ok; i++) {
    struct nub_plat_stat st;
    ok = nub_plat_stat_at(fd, im->files[i].path, &st) == 0 && st.type == NUB_FT_FILE &&
         st.size == im->files[i].size &&
         !(im->distrust_ns && st.mtime_ns > im->distrust_ns);
  }
  nub_plat_close(fd);
  return ok;
}

/* Move the staged package directory to packages/<key> (one rename, however
 * many files). A whole copy already there wins; a damaged one is moved
 * aside (into our staging directory, removed at close) and replaced. */
static int publish_tree(struct nub_import *im, const char *key)
{
  int rc;

  nub_plat_close(im->tree_fd);
  im->tree_fd = -1;
  for (int attempt = 0; attempt < 2; attempt++) {
    rc = nub_plat_rename_noreplace_at(im->stage.fd, im->tree_stage, im->store->packages_fd,
                                      key);
    if (rc == 0) {
      im->tree_stage[0] = '\0';
      return 0;
    }
    if (rc != -EEXIST && rc != -ENOTEMPTY)
      return rc;
    if (tree_whole(im, key))
      return 0; /* ours is removed with the import */
    if (attempt == 0) {
      char aside[32];
      snprintf(aside, sizeof(aside), "old%u", next_tmpno(im));
      rc = nub_plat_rename_at(im->store->packages_fd, key, im->stage.fd, aside);
      if (rc < 0 && rc != -ENOENT)
        return rc;
    }
  }
  return -EEXIST;
}

/* A file path that is also the parent directory of another, or NULL;
 * paths are sorted. */
static const char *conflicting_path(const char **paths, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    char prefix[4096];
    size_t len = strlen(paths[i]);
    if (len >= sizeof(prefix))
      continue;
    memcpy(prefix, paths[i], len + 1);
    for (char *s = strrchr(prefix, '/'); s; s = strrchr(prefix, '/')) {
      const char *key = prefix, **hit;
      *s = '\0';
      hit = bsearch(&key, paths, n, sizeof(*paths), cmp_str);
      if (hit)
        return *hit;
    }
  }
  return NULL;
}

int nub_import_commit(struct nub_import *im, const char key[65],
                      struct nub_index **out, struct nub_err *err)
{
  struct nub_pkgfacts facts;
  struct nub_pkgfacts_input in;
  struct nub_index_draft d;
  struct nub_index_file *rf = NULL;
  const char **paths;
  char **dirs = NULL, *tree = NULL;
  size_t ndirs = 0, capdirs = 0;
  struct nub_buf blob = NUB_BUF_INIT;
  int rc = 0;
  char rel[67];

  nub_sort(im->files, im->nfiles, sizeof(*im->files), cmp_file);
  paths = nub_calloc(im->nfiles + 1, sizeof(*paths));
  for (size_t i = 0; i < im->nfiles; i++)
    paths[i] = im->files[i].path;
  {
    /* a file under a path that is itself a file ("x" and "x/a") can be
     * neither linked nor unpacked: the tarball is bad */
    const char *bad = conflicting_path(paths, im->nfiles);
    if (bad) {
      rc = nub_err_set(err, -NUB_EEXTRACT, "bad tarball: '%s' is both a file and a "
                       "directory in it", bad);
      nub_free(paths);
      nub_import_abort(im);
      return rc;
    }
  }
  memset(&in, 0, sizeof(in));
  in.pkgjson = im->pkgjson;
  in.pkgjson_len = im->pkgjson_len;
  in.bundled = im->bundled;
  in.nbundled = im->nbundled;
  in.paths = paths;
  in.npaths = im->nfiles;
  in.required = &im->required;
  nub_pkgfacts_derive(&facts, &in);

  for (size_t i = 0; i < im->nfiles; i++) {
    struct imp_file *f = &im->files[i];
    bool exec = f->tar_exec || nub_pkgfacts_exec(&facts, f->path);
    rc = publish_mode(im, f, exec);
    if (rc < 0) {
      nub_err_set(err, rc, "cannot publish %s into the store: %s", f->path,
                  nub_strerror(rc));
      goto out;
    }
    f->tar_exec = exec; /* now the final mode */
  }
  /* Directories: explicit entries plus every parent of a file. */
  for (size_t i = 0; i < im->ndirs; i++) {
    NUB_GROW(dirs, capdirs, ndirs + 1);
    dirs[ndirs++] = nub_strdup(im->dirs[i]);
  }
  for (size_t i = 0; i < im->nfiles; i++) {
    char *p = nub_strdup(im->files[i].path), *sl;
    while ((sl = strrchr(p, '/')) != NULL) {
      *sl = '\0';
      NUB_GROW(dirs, capdirs, ndirs + 1);
      dirs[ndirs++] = nub_strdup(p);
    }
    nub_free(p);
  }
  if (ndirs)
    nub_sort(dirs, ndirs, sizeof(*dirs), cmp_str);
  {
    size_t w = 0;
    for (size_t i = 0; i < ndirs; i++) {
      if (w && !strcmp(dirs[w - 1], dirs[i])) {
        nub_free(dirs[i]);
        continue;
      }
      dirs[w++] = dirs[i];
    }
    ndirs = w;
  }
  if (im->tree_name) {
    rc = ensure_tree_dir(im);
    for (size_t i = 0; rc == 0 && i < im->ndirs; i++)
      rc = tree_mkdirs(im, im->dirs[i], true); /* explicit, maybe empty */
    if (rc < 0) {
      nub_err_set(err, rc, "cannot write to the store: %s", nub_strerror(rc));
      goto out;
    }
    tree = nub_asprintf("packages/%s/node_modules/%s", key, im->tree_name);
  }
  /* the index */
  rf = nub_calloc(im->nfiles + 1, sizeof(*rf));
  for (size_t i = 0; i < im->nfiles; i++) {
    memcpy(rf[i].hash, im->files[i].hash, 32);
    rf[i].size = im->files[i].size;
    rf[i].path = im->files[i].path;
    rf[i].mode = im->files[i].tar_exec ? 0755 : 0644;
  }
  memset(&d, 0, sizeof(d));
  d.name = facts.have_m ? facts.m.name : NULL;
  d.version = facts.have_m ? facts.m.version : NULL;
  d.os = facts.os;
  d.cpu = facts.cpu;
  d.libc = facts.libc;
  d.phantoms = facts.phantoms;
  d.tree = tree;
  d.flags = facts.flags | (tree ? NUB_IDX_TREE_CRC : 0); /* NUB_IDX_TREE follows from d.tree */
  d.bytes = im->bytes;
  d.nfiles = im->nfiles;
  d.files = rf;
  d.ndirs = ndirs;
  d.dirs = (const char *const *)dirs;
  d.nbins = facts.nbins;
  d.bins = (const struct nub_index_bin *)facts.bins;
  nub_index_write(&d, &blob);
  if (tree) {
    rc = publish_tree(im, key);
    if (rc < 0) {
      nub_err_set(err, rc, "cannot publish the package into the store: %s",
                  nub_strerror(rc));
      goto out;
    }
  }
  /* The index is published last: its presence means the package is whole. */
  rc = ensure_stage_dir(im);
  if (rc < 0) {
    nub_err_set(err, rc, "cannot stage the index: %s", nub_strerror(rc));
    goto out;
  }
  rc = nub_plat_newfile_open(&im->nf, im->store->index_fd, im->stage.fd, 0644);
  if (rc == 0) {
    rc = nub_plat_write_all(im->nf.fd, blob.data, blob.len);
    if (rc < 0)
      nub_plat_newfile_discard(&im->nf);
  }
  key_path(key, rel);
  if (rc == 0) {
    rc = shard_ready(im->store->index_made, im->store->index_fd, rel);
    if (rc < 0)
      nub_plat_newfile_discard(&im->nf);
  }
  if (rc == 0) {
    rc = nub_plat_newfile_publish(&im->nf, im->store->index_fd, rel);
    if (rc == -EEXIST)
      rc = 0; /* another install published the same package first */
  }
  if (rc < 0) {
    nub_err_set(err, rc, "cannot write the store index: %s", nub_strerror(rc));
    goto out;
  }
  if (out) {
    char *copy = nub_malloc(blob.len);
    memcpy(copy, blob.data, blob.len);
    rc = nub_index_parse(copy, blob.len, out);
    if (rc == 0)
      memcpy((*out)->key, key, 65);
  }
out:
  nub_free(paths);
  nub_free(rf);
  nub_free(tree);
  for (size_t i = 0; i < ndirs; i++)
    nub_free(dirs[i]);
  nub_free(dirs);
  nub_buf_release(&blob);
  nub_pkgfacts_release(&facts);
  free_import(im);
  return rc;
}

int nub_store_read_pkg_file(struct nub_store *s, const struct nub_index *idx, const char *rel,
                            char **data, size_t *len)
{
  for (uint32_t i = 0; i < idx->nfiles; i++) {
    char name[67], *path;
    int rc;
    if (strcmp(idx->files[i].path, rel))
      continue;
    if (idx->tree) {
      path = nub_asprintf("%s/%s/%s", s->root, idx->tree, rel);
    } else {
      nub_store_file_name(idx->files[i].hash, (idx->files[i].mode & 0111) != 0, name);
      path = nub_asprintf("%s/files/%s", s->root, name);
    }
    rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, 1u << 26, data, len);
    nub_free(path);
    return rc;
  }
  return -ENOENT;
}
