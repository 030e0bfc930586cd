/* pkgfacts.c - package facts derived at import; see pkgfacts.h. */
#include "pkgfacts.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "index.h"
#include "nub_alloc.h"
#include "path.h"

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool is_under(const char *path, const char *dir)
{
  size_t n = strlen(dir);
  return !strncmp(path, dir, n) && path[n] == '/';
}

static void add_bin(struct nub_pkgfacts *f, size_t *cap, const char *name, const char *target)
{
  NUB_GROW(f->bins, *cap, f->nbins + 1);
  f->bins[f->nbins].name = nub_strdup(name);
  f->bins[f->nbins].target = nub_strdup(target);
  f->nbins++;
}

static void add_exec(struct nub_pkgfacts *f, size_t *cap, char *path)
{
  NUB_GROW(f->exec, *cap, f->nexec + 1);
  f->exec[f->nexec++] = path;
}

static char *csv(char *const *v, size_t n)
{
  struct nub_buf b = NUB_BUF_INIT;
  for (size_t i = 0; i < n; i++) {
    if (i)
      nub_buf_addc(&b, ',');
    nub_buf_adds(&b, v[i]);
  }
  return b.data ? nub_buf_take(&b) : nub_strdup("");
}

void nub_pkgfacts_derive(struct nub_pkgfacts *f, const struct nub_pkgfacts_input *in)
{
  struct nub_manifest *m = &f->m;
  size_t capbins = 0, capexec = 0;

  memset(f, 0, sizeof(*f));
  if (in->pkgjson) {
    struct nub_err perr;
    f->have_m = nub_manifest_parse(m, in->pkgjson, in->pkgjson_len, "package.json", &perr) == 0;
  }
  if (f->have_m) {
    for (size_t i = 0; i < m->nbins; i++)
      add_bin(f, &capbins, m->bins[i].name, m->bins[i].target);
    if (!m->nbins && m->directories_bin) {
      char dir[4096];
      f->flags |= NUB_IDX_BINS_FROM_DIR;
      if (nub_path_normalize(m->directories_bin, dir, sizeof(dir)) > 0)
        for (size_t i = 0; i < in->npaths; i++) {
          const char *base = strrchr(in->paths[i], '/');
          char nm[256];
          if (is_under(in->paths[i], dir) &&
              nub_bin_name(base ? base + 1 : in->paths[i], nm, sizeof(nm)))
            add_bin(f, &capbins, nm, in->paths[i]);
        }
    }
    if (m->preinstall || m->install || m->postinstall)
      f->flags |= NUB_IDX_INSTALL_SCRIPT;
    f->flags |= NUB_IDX_PREPARE_KNOWN | (m->prepare ? NUB_IDX_PREPARE_SCRIPT : 0);
    f->flags |= NUB_IDX_PEERS_KNOWN | (m->peer.n ? NUB_IDX_HAS_PEERS : 0);
  }
  /* bin targets become executable in the store, once: a chmod through a
   * hard link later would change every project's copy */
  for (size_t i = 0; i < f->nbins; i++)
    add_exec(f, &capexec, nub_strdup(f->bins[i].target));
  for (size_t k = 0; k < in->nbundled; k++) {
    struct nub_manifest bm;
    struct nub_err berr;
    if (nub_manifest_parse(&bm, in->bundled[k].text, in->bundled[k].len, "package.json",
                           &berr) < 0)
      continue;
    for (size_t i = 0; i < bm.nbins; i++)
      add_exec(f, &capexec, nub_asprintf("%s/%s", in->bundled[k].dir, bm.bins[i].target));
    nub_manifest_release(&bm);
  }
  if (f->nexec)
    nub_sort(f->exec, f->nexec, sizeof(*f->exec), cmp_str);
  for (size_t i = 0; i < in->npaths; i++)
    if (!strcmp(in->paths[i], "binding.gyp"))
      f->flags |= NUB_IDX_BINDING_GYP;
  f->os = f->have_m ? csv(m->os, m->nos) : nub_strdup("");
  f->cpu = f->have_m ? csv(m->cpu, m->ncpu) : nub_strdup("");
  f->libc = f->have_m ? csv(m->libc, m->nlibc) : nub_strdup("");
  {
    /* undeclared packages its code loads (phantom dependencies), sorted */
    const struct nub_strmap *req = in->required;
    char **names = nub_calloc((req ? req->n : 0) + 1, sizeof(char *));
    size_t nn = 0;
    for (size_t i = 0; req && i < req->cap; i++) {
      const char *nm = req->slots[i].key;
      if (!nm || (f->have_m && ((m->name && !strcmp(nm, m->name)) ||
                                nub_depmap_get(&m->deps, nm) ||
                                nub_depmap_get(&m->optional, nm) ||
                                nub_depmap_get(&m->peer, nm))))
        continue;
      names[nn++] = (char *)nm;
    }
    if (nn)
      nub_sort(names, nn, sizeof(*names), cmp_str);
    f->phantoms = csv(names, nn);
    nub_free(names);
  }
}

bool nub_pkgfacts_exec(const struct nub_pkgfacts *f, const char *path)
{
  return f->nexec && bsearch(&path, f->exec, f->nexec, sizeof(*f->exec), cmp_str) != NULL;
}

void nub_pkgfacts_release(struct nub_pkgfacts *f)
{
  for (size_t i = 0; i < f->nbins; i++) {
    nub_free(f->bins[i].name);
    nub_free(f->bins[i].target);
  }
  nub_free(f->bins);
  nub_strarray_free(f->exec, f->nexec);
  nub_free(f->os);
  nub_free(f->cpu);
  nub_free(f->libc);
  nub_free(f->phantoms);
  if (f->have_m)
    nub_manifest_release(&f->m);
  memset(f, 0, sizeof(*f));
}
