/* pkgfacts.h - what nub learns about a package as it enters the store, from
 * its package.json, its bundled dependencies' package.json files and its
 * file list: its bins ("bin", else "directories.bin", which pnpm links and
 * npm does not), which files must be executable (bin targets, bundled
 * packages' too), whether it has install scripts or a binding.gyp, its
 * platforms, and the packages its code loads without declaring them. The
 * store records them in the package's index (index.h). */
#ifndef NUB_PKGFACTS_H
#define NUB_PKGFACTS_H

#include <stdbool.h>
#include <stddef.h>

#include "manifest.h"
#include "strmap.h"

/* A bundled dependency's package.json, where the package keeps it. */
struct nub_bundled_manifest {
  char *dir; /* "node_modules/x" */
  char *text;
  size_t len;
};

struct nub_pkgfacts_input {
  const char *pkgjson;              /* the package's own package.json, or NULL */
  size_t pkgjson_len;
  const struct nub_bundled_manifest *bundled; /* their bins are made executable */
  size_t nbundled;
  const char *const *paths;         /* every file of the package */
  size_t npaths;
  const struct nub_strmap *required; /* names its JavaScript loads */
};

struct nub_pkgfacts {
  struct nub_manifest m;
  bool have_m;
  struct nub_bin *bins;
  size_t nbins;
  char **exec; /* paths that must be executable, sorted */
  size_t nexec;
  unsigned flags;            /* NUB_IDX_INSTALL_SCRIPT, _BINDING_GYP, _BINS_FROM_DIR */
  char *os, *cpu, *libc;     /* comma-joined ("" for any) */
  char *phantoms;            /* undeclared packages it loads, sorted, comma-joined */
};

void nub_pkgfacts_derive(struct nub_pkgfacts *f, const struct nub_pkgfacts_input *in);
/* Whether the file at path must be executable. */
bool nub_pkgfacts_exec(const struct nub_pkgfacts *f, const char *path);
void nub_pkgfacts_release(struct nub_pkgfacts *f);

#endif
