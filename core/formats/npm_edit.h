/* npm_edit.h - npm's answer to a changed package.json when package-lock.json
 * is there: the lockfile's tree is the starting tree, as in arborist's
 * buildIdealTree. Only the edges that are missing, no longer satisfied, or
 * named by `update` are resolved again (the registry's pick for the spec);
 * each new package goes where arborist's PlaceDep puts it (the highest
 * node_modules on its dependent's chain with no conflict, replacing an older
 * copy there when everything that uses that copy accepts the new one),
 * copies the placement made redundant are removed, and packages nothing
 * reaches any more are pruned. Every other entry stays as the file had it;
 * the dev/optional/peer flags are computed again by npm's rule, and the
 * document is printed as npm prints it (json-stringify-nice's key order;
 * lockfileVersion 2 keeps its legacy "dependencies" tree). */
#ifndef NUB_NPM_EDIT_H
#define NUB_NPM_EDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"

#include "buf.h"
#include "err.h"
#include "registry.h"

struct nub_manifest;
struct nub_workspace;

struct nub_npm_edit_opts {
  const struct nub_manifest *root;
  const struct nub_workspace *ws; /* NULL: no workspace */
  const char *dir_name; /* the project folder's name: the lockfile's "name"
                         * when package.json has none */
  char *const *update;            /* `nub update <names>`: edges to these are resolved again */
  size_t nupdate;
  char *const *requested; /* `nub add <names>`: npm's explicit requests */
  size_t nrequested;
  bool omit_resolved; /* npm's omit-lockfile-registry-resolved */
  /* The registry version of name that spec (a range or a dist-tag) picks
   * (the caller's gate applied); *out lives as long as the caller's
   * documents. */
  int (*pick)(void *ud, const char *name, const char *spec, const struct nub_pversion **out,
              struct nub_err *err);
  void *ud;
};

/* The lockfile text[0..len) (named fname in errors) changed as `npm install`
 * changes it for o's manifests, into out. -NUB_ESPEC: the change needs
 * something this rule does not do (a git, tarball or file: dependency to
 * resolve, overrides, a new package with bundled dependencies, a v1 file);
 * the caller resolves afresh instead. Other errors are the pick's. */
int nub_npm_edit(const char *text, size_t len, const char *fname,
                 const struct nub_npm_edit_opts *o, struct nub_buf *out, struct nub_err *err);

/* A package-lock.json with git's merge-conflict markers, as npm reads one
 * (parse-conflict-json): each side taken whole, both parsed, and merged
 * (every entry of either; ours where both have one), printed into out for
 * nub_npm_edit to bring in line with package.json. -NUB_ELOCKFILE when a
 * side is not JSON. */
int nub_npm_unconflict(const char *text, size_t len, const char *fname, struct nub_buf *out,
                       struct nub_err *err);

/* doc as npm prints a lockfile: JSON.stringify with two spaces, each
 * object's keys ordered as json-stringify-nice orders them (values that are
 * not objects first; npm's key list first, the rest by localeCompare), and
 * a final newline. */
void nub_npm_stringify(const cJSON *doc, struct nub_buf *out);

#endif
