/* store_check.c - is a stored package still what was imported? See store.h.
 *
 * The store never writes a file after its package's index (the index is
 * published last), so a file newer than the index was written by someone
 * else: in practice an edit through a hard link of a project's
 * node_modules, which changes the one inode every project shares. Checking
 * size and mtime costs one stat per file and no reading. */
#include "store.h"

#include <errno.h>
#include <stdio.h>

#include "err.h"
#include "index.h"
#include "nub_plat.h"

int nub_store_check(struct nub_store *s, const struct nub_index *idx, char *why, size_t cap)
{
  int dfd = s->files_fd, rc = 0;

  if (idx->tree) {
    dfd = nub_plat_open_dir_at(s->root_fd, idx->tree);
    if (dfd < 0) {
      snprintf(why, cap, "its directory %s is gone", idx->tree);
      return -NUB_ESTORE;
    }
  }
  for (uint32_t i = 0; i < idx->nfiles && rc == 0; i++) {
    const struct nub_index_file *f = &idx->files[i];
    struct nub_plat_stat st;
    char name[67];
    const char *at = f->path;
    int r;

    if (!idx->tree) {
      nub_store_file_name(f->hash, (f->mode & 0111) != 0, name);
      at = name;
    }
    r = nub_plat_stat_at(dfd, at, &st);
    if (r < 0)
      snprintf(why, cap, "%s is missing from the store", f->path);
    else if (st.type != NUB_FT_FILE || st.size != f->size)
      snprintf(why, cap, "%s is not the size it was stored at", f->path);
    else if (idx->stored_ns && st.mtime_ns > idx->stored_ns)
      snprintf(why, cap, "%s was changed after it was stored", f->path);
    else
      continue;
    rc = -NUB_ESTORE;
  }
  if (idx->tree)
    nub_plat_close(dfd);
  return rc;
}
