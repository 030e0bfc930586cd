/* index.h - the store's index format: one small binary file per package
 * (what the store holds of it: its files with their hashes, sizes and
 * modes, its directories, its bins, and what nub learnt of it at import),
 * written last and atomically, so its presence means the package is whole.
 *
 * Layout (little-endian, as the host writes it; IDX_MAGIC names the
 * version): a 64-byte header, then nfiles 48-byte file records, ndirs
 * 4-byte string offsets, nbins pairs of 4-byte offsets, then the string
 * table. Every offset is checked against the table on load. */
#ifndef NUB_INDEX_H
#define NUB_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nub_buf;

enum nub_index_flag {
  NUB_IDX_INSTALL_SCRIPT = 1u << 0, /* preinstall/install/postinstall */
  NUB_IDX_BINDING_GYP = 1u << 1,    /* implicit `node-gyp rebuild` */
  NUB_IDX_TREE = 1u << 2,           /* files live in `tree`, not content-named */
  NUB_IDX_BINS_FROM_DIR = 1u << 3,  /* bins only from "directories.bin" */
  /* Whether package.json declares peerDependencies, for readers that need
   * them (yarn's hoisting reads them from the package): PEERS_KNOWN says
   * the index records it (an index written before does not), HAS_PEERS
   * that it does. */
  NUB_IDX_PEERS_KNOWN = 1u << 4,
  NUB_IDX_HAS_PEERS = 1u << 5,
  /* A prepare script (lifecycle.h); PREPARE_KNOWN: the index records it
   * (an index written before does not) */
  NUB_IDX_PREPARE_SCRIPT = 1u << 6,
  NUB_IDX_PREPARE_KNOWN = 1u << 7,
  /* A tree's files carry the CRC-32 of their bytes (little-endian, in
   * hash[0..3]; nub_index_tree_crc): what `nub store verify` reads them
   * against. Trees imported before have no check value. */
  NUB_IDX_TREE_CRC = 1u << 8,
};

struct nub_index_file {
  unsigned char hash[32]; /* SHA-256; a tree's files: see NUB_IDX_TREE_CRC */
  uint64_t size;
  const char *path; /* normalised, relative to the package root */
  unsigned mode;    /* 0644 or 0755 */
};

struct nub_index_bin {
  const char *name, *target;
};

struct nub_index {
  char key[65]; /* the store key it was loaded under */
  char *blob;   /* the raw index; strings point into it */
  size_t len;
  const char *name, *version;
  const char *os, *cpu, *libc; /* package.json's lists, comma-joined ("" = any) */
  const char *phantoms;         /* packages its code loads without declaring them,
                                 * comma-joined and sorted */
  const char *tree;             /* NUB_IDX_TREE: the package directory, relative
                                 * to the store root; else NULL */
  unsigned flags;
  uint32_t nfiles, ndirs, nbins;
  struct nub_index_file *files;
  const char **dirs; /* parents before children */
  struct nub_index_bin *bins;
  uint64_t bytes;
  /* When the index file was written (its mtime, from nub_store_index_load;
   * 0 for one just committed): none of the package's files is newer, unless
   * something wrote to it after (nub_store_check). */
  uint64_t stored_ns;
};

/* Validate and unpack a raw index; takes ownership of blob (freed on
 * failure too). -NUB_ESTORE when it is not a whole, valid index. */
int nub_index_parse(char *blob, size_t len, struct nub_index **out);
/* A tree file's check value (NUB_IDX_TREE_CRC), read and written. */
static inline uint32_t nub_index_tree_crc(const unsigned char hash[32])
{
  return (uint32_t)hash[0] | (uint32_t)hash[1] << 8 | (uint32_t)hash[2] << 16 |
         (uint32_t)hash[3] << 24;
}
static inline void nub_index_set_tree_crc(unsigned char hash[32], uint32_t crc)
{
  for (int i = 0; i < 4; i++)
    hash[i] = (unsigned char)(crc >> (8 * i));
}
void nub_index_free(struct nub_index *idx);
/* idx's file at path (relative to the package), or NULL. */
const struct nub_index_file *nub_index_file_at(const struct nub_index *idx, const char *path);

/* What a new index says, for nub_index_write. Strings are borrowed. */
struct nub_index_draft {
  const char *name, *version, *os, *cpu, *libc, *phantoms, *tree; /* tree may be NULL */
  unsigned flags; /* NUB_IDX_*; NUB_IDX_TREE is set from tree */
  uint64_t bytes;
  size_t nfiles, ndirs, nbins;
  const struct nub_index_file *files; /* modes 0644/0755 */
  const char *const *dirs;            /* sorted, parents first */
  const struct nub_index_bin *bins;
};

/* Serialise a draft into out (appended). */
void nub_index_write(const struct nub_index_draft *d, struct nub_buf *out);

#endif
