/* strmap.h - string -> pointer hash map (open addressing, FNV-1a). Keys are
 * copied; values are borrowed unless release is given a free function. Not
 * thread-safe: callers lock. */
#ifndef NUB_STRMAP_H
#define NUB_STRMAP_H

#include <stddef.h>

struct nub_strmap_slot {
  char *key;
  void *val;
};

struct nub_strmap {
  struct nub_strmap_slot *slots;
  size_t cap, n;
};

void *nub_strmap_get(const struct nub_strmap *m, const char *key);
/* Insert or replace; returns the previous value (or NULL). */
void *nub_strmap_put(struct nub_strmap *m, const char *key, void *val);
void nub_strmap_release(struct nub_strmap *m, void (*free_val)(void *));
/* Iterate: for (size_t i = 0; i < m->cap; i++) if (m->slots[i].key) ... */

#endif
