/* store.c - content-addressed store: open, indexes, staged imports. */
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "integrity.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "path.h"
#include "requires.h"
#include "strmap.h"

#define IDX_MAGIC "NUBIDX3"
#define MEM_LIMIT (1u << 20) /* file bytes kept in memory before spilling */

struct idx_hdr {
  char magic[8];
  uint32_t nfiles, ndirs, nbins, flags;
  uint32_t strtab_len, name_off, version_off, os_off;
  uint32_t cpu_off, libc_off, phantom_off, tree_off; /* tree_off: NUB_IDX_TREE */
  uint64_t bytes;
};

struct idx_file {
  unsigned char hash[32];
  uint64_t size;
  uint32_t path_off, mode;
};

_Static_assert(sizeof(struct idx_hdr) == 64, "index header layout");
_Static_assert(sizeof(struct idx_file) == 48, "index file record layout");

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

static int hexval(char c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The shard directory of name ("ab/..."), made if this handle has not. */
static int shard_ready(uint64_t made[4], int dirfd, const char *name)
{
  int hi = hexval(name[0]), lo = hexval(name[1]), i, rc;
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
  s->root = nub_asprintf("%s/v1", dir);
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
   * before (see hoisted.c). */
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

void nub_index_free(struct nub_index *idx)
{
  if (!idx)
    return;
  nub_free(idx->blob);
  nub_free(idx->files);
  nub_free(idx->dirs);
  nub_free(idx->bins);
  nub_free(idx);
}

static bool str_ok(const struct idx_hdr *h, const char *strtab, uint32_t off)
{
  return off < h->strtab_len && memchr(strtab + off, '\0', h->strtab_len - off);
}

/* Validate and unpack a raw index; takes ownership of blob. */
static int index_parse(char *blob, size_t len, struct nub_index **out)
{
  struct idx_hdr h;
  const struct idx_file *rf;
  const uint32_t *rd, *rb;
  const char *strtab;
  struct nub_index *idx;
  size_t need;

  if (len < sizeof(h))
    goto bad;
  memcpy(&h, blob, sizeof(h));
  if (memcmp(h.magic, IDX_MAGIC, 8))
    goto bad;
  need = sizeof(h) + (size_t)h.nfiles * sizeof(struct idx_file) +
         (size_t)h.ndirs * 4 + (size_t)h.nbins * 8 + h.strtab_len;
  if (need != len || h.nfiles > 1000000 || h.ndirs > 1000000 || h.nbins > 100000)
    goto bad;
  rf = (const struct idx_file *)(blob + sizeof(h));
  rd = (const uint32_t *)(rf + h.nfiles);
  rb = rd + h.ndirs;
  strtab = (const char *)(rb + 2 * (size_t)h.nbins);
  if (!str_ok(&h, strtab, h.name_off) || !str_ok(&h, strtab, h.version_off) ||
      !str_ok(&h, strtab, h.os_off) || !str_ok(&h, strtab, h.cpu_off) ||
      !str_ok(&h, strtab, h.libc_off) || !str_ok(&h, strtab, h.phantom_off) ||
      ((h.flags & NUB_IDX_TREE) && !str_ok(&h, strtab, h.tree_off)))
    goto bad;
  idx = nub_calloc(1, sizeof(*idx));
  idx->blob = blob;
  idx->len = len;
  idx->name = strtab + h.name_off;
  idx->version = strtab + h.version_off;
  idx->os = strtab + h.os_off;
  idx->cpu = strtab + h.cpu_off;
  idx->libc = strtab + h.libc_off;
  idx->phantoms = strtab + h.phantom_off;
  idx->tree = h.flags & NUB_IDX_TREE ? strtab + h.tree_off : NULL;
  idx->flags = h.flags;
  idx->nfiles = h.nfiles;
  idx->ndirs = h.ndirs;
  idx->nbins = h.nbins;
  idx->bytes = h.bytes;
  idx->files = nub_malloc(sizeof(*idx->files) * (h.nfiles ? h.nfiles : 1));
  idx->dirs = nub_malloc(sizeof(*idx->dirs) * (h.ndirs ? h.ndirs : 1));
  idx->bins = nub_malloc(sizeof(*idx->bins) * (h.nbins ? h.nbins : 1));
  for (uint32_t i = 0; i < h.nfiles; i++) {
    struct idx_file f;
    memcpy(&f, rf + i, sizeof(f));
    if (!str_ok(&h, strtab, f.path_off)) {
      nub_index_free(idx);
      return -NUB_ESTORE;
    }
    memcpy(idx->files[i].hash, f.hash, 32);
    idx->files[i].size = f.size;
    idx->files[i].path = strtab + f.path_off;
    idx->files[i].mode = f.mode & 0111 ? 0755 : 0644;
  }
  for (uint32_t i = 0; i < h.ndirs; i++) {
    uint32_t off;
    memcpy(&off, rd + i, 4);
    if (!str_ok(&h, strtab, off)) {
      nub_index_free(idx);
      return -NUB_ESTORE;
    }
    idx->dirs[i] = strtab + off;
  }
  for (uint32_t i = 0; i < h.nbins; i++) {
    uint32_t a, b;
    memcpy(&a, rb + 2 * i, 4);
    memcpy(&b, rb + 2 * i + 1, 4);
    if (!str_ok(&h, strtab, a) || !str_ok(&h, strtab, b)) {
      nub_index_free(idx);
      return -NUB_ESTORE;
    }
    idx->bins[i].name = strtab + a;
    idx->bins[i].target = strtab + b;
  }
  *out = idx;
  return 0;
bad:
  nub_free(blob);
  return -NUB_ESTORE;
}

int nub_store_index_load(struct nub_store *s, const char key[65],
                         struct nub_index **out)
{
  char rel[67];
  char *blob = NULL;
  size_t len = 0;
  int rc;

  key_path(key, rel);
  rc = nub_plat_read_file_at(s->index_fd, rel, 256u << 20, &blob, &len);
  if (rc < 0)
    return rc == -ENOENT ? -ENOENT : -NUB_ESTORE;
  rc = index_parse(blob, len, out);
  if (rc == 0)
    memcpy((*out)->key, key, 65);
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
  struct bundled_manifest {
    char *dir; /* "node_modules/x" */
    char *text;
    size_t len;
  } *bundled;
  size_t nbundled, capbundled;
  /* tree mode (nub_import_as_tree): the package directory being written,
   * <stage>/<tree_stage>/node_modules/<tree_name>, and the open file */
  char *tree_name;
  char tree_stage[24];
  int tree_fd, tfd;
  struct nub_strmap made; /* directories made in the tree */
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
  nub_hasher_init(&im->h, NUB_HASH_SHA256);
  *out = im;
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
  if (!im->tree_name) /* a tree's files are named by their paths */
    nub_hasher_reset(&im->h);
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
  return *exists && st.type == NUB_FT_FILE && st.size == size;
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
  if (!im->tree_name)
    nub_hasher_update(&im->h, p, n);
  im->cur.size += n;
  im->bytes += n;
  if (im->nf.fd >= 0)
    return nub_plat_write_all(im->nf.fd, p, n);
  if (im->tfd >= 0)
    return nub_plat_write_all(im->tfd, p, n);
  nub_buf_add(im->mem, p, n);
  if (im->mem->len > MEM_LIMIT && !im->cur_is_pkgjson)
    return im->tree_name ? tree_spill(im) : spill(im);
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
      if (folder && folder + strlen(folder) == dir + strlen(dir)) {
        struct bundled_manifest *b;
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

struct strtab {
  struct nub_buf b;
};

static uint32_t st_add(struct strtab *t, const char *s)
{
  uint32_t off = (uint32_t)t->b.len;
  nub_buf_add(&t->b, s, strlen(s) + 1);
  return off;
}

static bool is_under(const char *path, const char *dir)
{
  size_t n = strlen(dir);
  return !strncmp(path, dir, n) && path[n] == '/';
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
         st.size == im->files[i].size;
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

int nub_import_commit(struct nub_import *im, const char key[65],
                      struct nub_index **out, struct nub_err *err)
{
  struct nub_manifest m;
  bool have_m = false;
  struct nub_bin *bins = NULL;
  size_t nbins = 0, capbins = 0;
  char **exec_paths = NULL;
  size_t nexec = 0, capexec = 0;
  char **dirs = NULL;
  size_t ndirs = 0, capdirs = 0;
  struct strtab st = {NUB_BUF_INIT};
  struct nub_buf blob = NUB_BUF_INIT;
  struct idx_hdr h;
  unsigned flags = 0;
  int rc = 0;
  char rel[67];

  memset(&m, 0, sizeof(m));
  if (im->pkgjson) {
    struct nub_err perr;
    if (nub_manifest_parse(&m, im->pkgjson, im->pkgjson_len, "package.json", &perr) == 0)
      have_m = true;
  }
  if (have_m) {
    for (size_t i = 0; i < m.nbins; i++) {
      NUB_GROW(bins, capbins, nbins + 1);
      bins[nbins].name = nub_strdup(m.bins[i].name);
      bins[nbins].target = nub_strdup(m.bins[i].target);
      nbins++;
    }
    if (!m.nbins && m.directories_bin) {
      char dir[4096];
      /* pnpm links these; npm (and so the hoisted layout) does not */
      flags |= NUB_IDX_BINS_FROM_DIR;
      if (nub_path_normalize(m.directories_bin, dir, sizeof(dir)) > 0) {
        for (size_t i = 0; i < im->nfiles; i++) {
          const char *base;
          char nm[256];
          if (!is_under(im->files[i].path, dir))
            continue;
          base = strrchr(im->files[i].path, '/');
          if (!nub_bin_name(base ? base + 1 : im->files[i].path, nm, sizeof(nm)))
            continue;
          NUB_GROW(bins, capbins, nbins + 1);
          bins[nbins].name = nub_strdup(nm);
          bins[nbins].target = nub_strdup(im->files[i].path);
          nbins++;
        }
      }
    }
    if (m.preinstall || m.install || m.postinstall)
      flags |= NUB_IDX_INSTALL_SCRIPT;
  }
  nub_sort(im->files, im->nfiles, sizeof(*im->files), cmp_file);
  /* bundled packages' bins, by their paths in this package */
  for (size_t k = 0; k < im->nbundled; k++) {
    struct nub_manifest bm;
    struct nub_err berr;
    if (nub_manifest_parse(&bm, im->bundled[k].text, im->bundled[k].len, "package.json",
                           &berr) < 0)
      continue;
    for (size_t i = 0; i < bm.nbins; i++) {
      NUB_GROW(exec_paths, capexec, nexec + 1);
      exec_paths[nexec++] = nub_asprintf("%s/%s", im->bundled[k].dir, bm.bins[i].target);
    }
    nub_manifest_release(&bm);
  }
  for (size_t i = 0; i < im->nfiles; i++) {
    struct imp_file *f = &im->files[i];
    bool exec = f->tar_exec;
    /* Bin targets are made executable here, once, in the store: a chmod
     * through a hardlink later would change every project's copy. */
    for (size_t b = 0; b < nbins && !exec; b++)
      if (!strcmp(bins[b].target, f->path))
        exec = true;
    for (size_t b = 0; b < nexec && !exec; b++)
      if (!strcmp(exec_paths[b], f->path))
        exec = true;
    if (!strcmp(f->path, "binding.gyp"))
      flags |= NUB_IDX_BINDING_GYP;
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
    char *p = nub_strdup(im->files[i].path), *s;
    while ((s = strrchr(p, '/')) != NULL) {
      *s = '\0';
      NUB_GROW(dirs, capdirs, ndirs + 1);
      dirs[ndirs++] = nub_strdup(p);
    }
    nub_free(p);
  }
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
    flags |= NUB_IDX_TREE;
  }
  /* Serialise. */
  memset(&h, 0, sizeof(h));
  memcpy(h.magic, IDX_MAGIC, 8);
  h.nfiles = (uint32_t)im->nfiles;
  h.ndirs = (uint32_t)ndirs;
  h.nbins = (uint32_t)nbins;
  h.flags = flags;
  h.bytes = im->bytes;
  h.name_off = st_add(&st, have_m && m.name ? m.name : "");
  h.version_off = st_add(&st, have_m && m.version ? m.version : "");
  if (im->tree_name) {
    char *t = nub_asprintf("packages/%s/node_modules/%s", key, im->tree_name);
    h.tree_off = st_add(&st, t);
    nub_free(t);
  }
  {
    char *const *lists[3] = {m.os, m.cpu, m.libc};
    size_t counts[3] = {m.nos, m.ncpu, m.nlibc};
    uint32_t *offs[3] = {&h.os_off, &h.cpu_off, &h.libc_off};
    for (int k = 0; k < 3; k++) {
      struct nub_buf csv = NUB_BUF_INIT;
      for (size_t i = 0; have_m && i < counts[k]; i++) {
        if (i)
          nub_buf_addc(&csv, ',');
        nub_buf_adds(&csv, lists[k][i]);
      }
      *offs[k] = st_add(&st, nub_buf_str(&csv));
      nub_buf_release(&csv);
    }
  }
  {
    /* undeclared packages its code loads (phantom dependencies), sorted */
    char **names = nub_calloc(im->required.n + 1, sizeof(char *));
    size_t nn = 0;
    struct nub_buf csv = NUB_BUF_INIT;
    for (size_t i = 0; i < im->required.cap; i++) {
      const char *nm = im->required.slots[i].key;
      if (!nm || (have_m && ((m.name && !strcmp(nm, m.name)) || nub_depmap_get(&m.deps, nm) ||
                             nub_depmap_get(&m.optional, nm) || nub_depmap_get(&m.peer, nm))))
        continue;
      names[nn++] = (char *)nm;
    }
    nub_sort(names, nn, sizeof(*names), cmp_str);
    for (size_t i = 0; i < nn; i++) {
      if (i)
        nub_buf_addc(&csv, ',');
      nub_buf_adds(&csv, names[i]);
    }
    h.phantom_off = st_add(&st, nub_buf_str(&csv));
    nub_buf_release(&csv);
    nub_free(names);
  }
  {
    struct idx_file *rf = nub_calloc(im->nfiles + 1, sizeof(*rf));
    uint32_t *rd = nub_calloc(ndirs + 1, sizeof(*rd));
    uint32_t *rb = nub_calloc(2 * nbins + 1, sizeof(*rb));
    for (size_t i = 0; i < im->nfiles; i++) {
      memcpy(rf[i].hash, im->files[i].hash, 32);
      rf[i].size = im->files[i].size;
      rf[i].path_off = st_add(&st, im->files[i].path);
      rf[i].mode = im->files[i].tar_exec ? 0755 : 0644;
    }
    for (size_t i = 0; i < ndirs; i++)
      rd[i] = st_add(&st, dirs[i]);
    for (size_t i = 0; i < nbins; i++) {
      rb[2 * i] = st_add(&st, bins[i].name);
      rb[2 * i + 1] = st_add(&st, bins[i].target);
    }
    h.strtab_len = (uint32_t)st.b.len;
    nub_buf_add(&blob, &h, sizeof(h));
    nub_buf_add(&blob, rf, sizeof(*rf) * im->nfiles);
    nub_buf_add(&blob, rd, 4 * ndirs);
    nub_buf_add(&blob, rb, 8 * nbins);
    nub_buf_add(&blob, st.b.data ? st.b.data : "", st.b.len);
    nub_free(rf);
    nub_free(rd);
    nub_free(rb);
  }
  if (im->tree_name) {
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
    rc = index_parse(copy, blob.len, out);
    if (rc == 0)
      memcpy((*out)->key, key, 65);
  }
out:
  for (size_t i = 0; i < nbins; i++) {
    nub_free(bins[i].name);
    nub_free(bins[i].target);
  }
  nub_free(bins);
  for (size_t i = 0; i < nexec; i++)
    nub_free(exec_paths[i]);
  nub_free(exec_paths);
  for (size_t i = 0; i < ndirs; i++)
    nub_free(dirs[i]);
  nub_free(dirs);
  nub_buf_release(&st.b);
  nub_buf_release(&blob);
  if (have_m)
    nub_manifest_release(&m);
  free_import(im);
  return rc;
}
