/* index.c - the store's index format; see index.h. */
#include "index.h"

#include <string.h>

#include "buf.h"
#include "err.h"
#include "nub_alloc.h"

/* 4: names byte for byte (3 kept what libarchive made of them), bundled
 * packages' bin targets executable, NUB_IDX_BINS_FROM_DIR */
#define IDX_MAGIC "NUBIDX4"

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

const struct nub_index_file *nub_index_file_at(const struct nub_index *idx, const char *path)
{
  for (uint32_t i = 0; i < idx->nfiles; i++)
    if (!strcmp(idx->files[i].path, path))
      return &idx->files[i];
  return NULL;
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

int nub_index_parse(char *blob, size_t len, struct nub_index **out)
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

/* A string table: offsets of NUL-terminated strings in one buffer. */
static uint32_t st_add(struct nub_buf *b, const char *s)
{
  uint32_t off = (uint32_t)b->len;
  nub_buf_add(b, s, strlen(s) + 1);
  return off;
}

void nub_index_write(const struct nub_index_draft *d, struct nub_buf *out)
{
  struct nub_buf st = NUB_BUF_INIT;
  struct idx_hdr h;
  struct idx_file *rf = nub_calloc(d->nfiles + 1, sizeof(*rf));
  uint32_t *rd = nub_calloc(d->ndirs + 1, sizeof(*rd));
  uint32_t *rb = nub_calloc(2 * d->nbins + 1, sizeof(*rb));

  memset(&h, 0, sizeof(h));
  memcpy(h.magic, IDX_MAGIC, 8);
  h.nfiles = (uint32_t)d->nfiles;
  h.ndirs = (uint32_t)d->ndirs;
  h.nbins = (uint32_t)d->nbins;
  h.flags = (d->flags & ~(unsigned)NUB_IDX_TREE) | (d->tree ? NUB_IDX_TREE : 0);
  h.bytes = d->bytes;
  h.name_off = st_add(&st, d->name ? d->name : "");
  h.version_off = st_add(&st, d->version ? d->version : "");
  if (d->tree)
    h.tree_off = st_add(&st, d->tree);
  h.os_off = st_add(&st, d->os ? d->os : "");
  h.cpu_off = st_add(&st, d->cpu ? d->cpu : "");
  h.libc_off = st_add(&st, d->libc ? d->libc : "");
  h.phantom_off = st_add(&st, d->phantoms ? d->phantoms : "");
  for (size_t i = 0; i < d->nfiles; i++) {
    memcpy(rf[i].hash, d->files[i].hash, 32);
    rf[i].size = d->files[i].size;
    rf[i].path_off = st_add(&st, d->files[i].path);
    rf[i].mode = d->files[i].mode & 0111 ? 0755 : 0644;
  }
  for (size_t i = 0; i < d->ndirs; i++)
    rd[i] = st_add(&st, d->dirs[i]);
  for (size_t i = 0; i < d->nbins; i++) {
    rb[2 * i] = st_add(&st, d->bins[i].name);
    rb[2 * i + 1] = st_add(&st, d->bins[i].target);
  }
  h.strtab_len = (uint32_t)st.len;
  nub_buf_add(out, &h, sizeof(h));
  nub_buf_add(out, rf, sizeof(*rf) * d->nfiles);
  nub_buf_add(out, rd, 4 * d->ndirs);
  nub_buf_add(out, rb, 8 * d->nbins);
  nub_buf_add(out, st.data ? st.data : "", st.len);
  nub_free(rf);
  nub_free(rd);
  nub_free(rb);
  nub_buf_release(&st);
}
