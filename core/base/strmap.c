/* strmap.c - string hash map. */
#include "strmap.h"

#include <stdint.h>
#include <string.h>

#include "nub_alloc.h"

static uint64_t fnv(const char *s)
{
  uint64_t h = 1469598103934665603ull;
  while (*s)
    h = (h ^ (unsigned char)*s++) * 1099511628211ull;
  return h;
}

void *nub_strmap_get(const struct nub_strmap *m, const char *key)
{
  size_t i;

  if (!m->cap)
    return NULL;
  for (i = fnv(key) & (m->cap - 1); m->slots[i].key; i = (i + 1) & (m->cap - 1))
    if (!strcmp(m->slots[i].key, key))
      return m->slots[i].val;
  return NULL;
}

static void grow(struct nub_strmap *m)
{
  size_t nc = m->cap ? m->cap * 2 : 64;
  struct nub_strmap_slot *s = nub_calloc(nc, sizeof(*s));

  for (size_t i = 0; i < m->cap; i++) {
    size_t j;
    if (!m->slots[i].key)
      continue;
    for (j = fnv(m->slots[i].key) & (nc - 1); s[j].key; j = (j + 1) & (nc - 1)) {
    }
    s[j] = m->slots[i];
  }
  nub_free(m->slots);
  m->slots = s;
  m->cap = nc;
}

void *nub_strmap_put(struct nub_strmap *m, const char *key, void *val)
{
  size_t i;

  if ((m->n + 1) * 2 > m->cap)
    grow(m);
  for (i = fnv(key) & (m->cap - 1); m->slots[i].key; i = (i + 1) & (m->cap - 1)) {
    if (!strcmp(m->slots[i].key, key)) {
      void *old = m->slots[i].val;
      m->slots[i].val = val;
      return old;
    }
  }
  m->slots[i].key = nub_strdup(key);
  m->slots[i].val = val;
  m->n++;
  return NULL;
}

void nub_strmap_release(struct nub_strmap *m, void (*free_val)(void *))
{
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->slots[i].key)
      continue;
    nub_free(m->slots[i].key);
    if (free_val)
      free_val(m->slots[i].val);
  }
  nub_free(m->slots);
  memset(m, 0, sizeof(*m));
}
