/* lockfile_pnpm_merge.c - a pnpm-lock.yaml (or nub.lock) with git's
 * merge-conflict markers, both sides merged as pnpm merges them
 * (lockfile_pnpm.h). */
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "lockfile_pnpm.h"
#include "nub_alloc.h"
#include "semver.h"
#include "text.h"

/* pnpm's mergeVersions: of two refs ("1.2.3(peer@1)"), the one whose
 * version (before the peer suffix) is greater; theirs on a tie, and where
 * either is no version (a link:, an alias' "real@1.2.3"). */
static bool ours_greater(const char *ours, const char *theirs)
{
  struct nub_version a, b;
  char *x = nub_strndup(ours, strcspn(ours, "(")), *y = nub_strndup(theirs, strcspn(theirs, "("));
  bool gt = false;

  if (nub_version_parse(&a, x) == 0) {
    if (nub_version_parse(&b, y) == 0) {
      gt = nub_version_cmp(&a, &b) > 0;
      nub_version_release(&b);
    }
    nub_version_release(&a);
  }
  nub_free(x);
  nub_free(y);
  return gt;
}

/* Ours' edges into theirs: an alias only ours has is added, one both have
 * keeps the greater version. */
static void merge_edges(struct nub_gedge **tv, size_t *tn, struct nub_gedge *ov, size_t on)
{
  for (size_t i = 0; i < on; i++) {
    struct nub_gedge *t = NULL;
    for (size_t k = 0; k < *tn && !t; k++)
      if (!strcmp((*tv)[k].alias, ov[i].alias))
        t = &(*tv)[k];
    if (!t) {
      *tv = nub_realloc(*tv, (*tn + 1) * sizeof(**tv));
      (*tv)[(*tn)++] = ov[i];
      ov[i].alias = ov[i].ref = NULL;
    } else if (ours_greater(ov[i].ref, t->ref)) {
      nub_free(t->ref);
      t->ref = ov[i].ref;
      ov[i].ref = NULL;
    }
  }
}

/* The same for an importer's direct dependencies of one kind; the
 * specifier is theirs (pnpm's takeChangedValue). */
static void merge_directs(struct nub_gdirect **tv, size_t *tn, struct nub_gdirect *ov, size_t on)
{
  for (size_t i = 0; i < on; i++) {
    struct nub_gdirect *t = NULL;
    for (size_t k = 0; k < *tn && !t; k++)
      if (!strcmp((*tv)[k].alias, ov[i].alias))
        t = &(*tv)[k];
    if (!t) {
      *tv = nub_realloc(*tv, (*tn + 1) * sizeof(**tv));
      (*tv)[(*tn)++] = ov[i];
      memset(&ov[i], 0, sizeof(ov[i]));
    } else if (ours_greater(ov[i].ref, t->ref)) {
      nub_free(t->ref);
      t->ref = ov[i].ref;
      ov[i].ref = NULL;
    }
  }
}

/* pnpm's mergeLockfileChanges(ours, theirs), into theirs: every importer
 * and package of both, theirs' fields where both have a package, the
 * dependency maps merged by version. */
static void merge(struct nub_graph *theirs, struct nub_graph *ours)
{
  for (size_t i = 0; i < ours->nimporters; i++) {
    struct nub_importer *o = &ours->importers[i], *t = NULL;
    for (size_t k = 0; k < theirs->nimporters && !t; k++)
      if (!strcmp(theirs->importers[k].path, o->path))
        t = &theirs->importers[k];
    if (!t) {
      theirs->importers = nub_realloc(theirs->importers,
                                      (theirs->nimporters + 1) * sizeof(*theirs->importers));
      theirs->importers[theirs->nimporters++] = *o;
      memset(o, 0, sizeof(*o));
      continue;
    }
    merge_directs(&t->deps, &t->ndeps, o->deps, o->ndeps);
    merge_directs(&t->dev, &t->ndev, o->dev, o->ndev);
    merge_directs(&t->optional, &t->noptional, o->optional, o->noptional);
  }
  for (size_t i = 0; i < ours->npkgs; i++) {
    struct nub_gpkg *o = ours->pkgs[i], *t = nub_graph_find(theirs, o->key);
    if (!t) {
      ours->pkgs[i] = NULL;
      nub_graph_add(theirs, o);
      continue;
    }
    merge_edges(&t->deps, &t->ndeps, o->deps, o->ndeps);
    merge_edges(&t->optional_deps, &t->noptional_deps, o->optional_deps, o->noptional_deps);
  }
  nub_graph_sort(theirs);
}

int nub_lockfile_pnpm_unconflict(struct nub_graph *g, const char *text, size_t len,
                                 const char *fname, struct nub_err *err)
{
  struct nub_buf side[2];
  struct nub_graph ours;
  int rc;

  nub_graph_init(&ours);
  nub_text_conflict_sides(text, len, side);
  rc = nub_lockfile_pnpm_parse(&ours, nub_buf_str(&side[0]), side[0].len, fname, err);
  if (rc == 0)
    rc = nub_lockfile_pnpm_parse(g, nub_buf_str(&side[1]), side[1].len, fname, err);
  if (rc == 0)
    merge(g, &ours);
  else {
    char tmp[sizeof(err->msg)];
    snprintf(tmp, sizeof(tmp), "%s", err->msg);
    rc = nub_err_set(err, -NUB_ELOCKFILE, "%s has merge-conflict markers, and one side of the "
                     "conflict is not valid (%s); resolve it by hand", fname, tmp);
  }
  nub_graph_release(&ours);
  nub_buf_release(&side[0]);
  nub_buf_release(&side[1]);
  return rc;
}
