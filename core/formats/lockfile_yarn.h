/* lockfile_yarn.h - yarn.lock of yarn 1 ("# yarn lockfile v1") read into a
 * graph: one package per entry (name@version), its dependencies found by
 * their "name@range" specifiers among the entries' keys, as yarn finds them,
 * and one importer per project of the workspace from its package.json.
 *
 * The format is yarn's own: entries at column 0, "key1, key2:" (keys quoted
 * when they hold spaces or ':'), fields indented by two spaces (`version`,
 * `resolved` with "#<sha1>", `integrity`), maps of dependencies indented by
 * four. Integrity comes from `integrity`, else the sha1 in the URL fragment.
 * A berry lockfile (__metadata) is refused here: lockfile_berry.h reads it. */
#ifndef NUB_LOCKFILE_YARN_H
#define NUB_LOCKFILE_YARN_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "err.h"
#include "graph.h"
#include "manifest.h"

struct nub_workspace;

/* Parse yarn.lock text into g, with importers from root (and ws's members,
 * ws may be NULL). A direct dependency whose "name@spec" no entry lists is
 * -NUB_EOUTDATED naming it (yarn's --frozen-lockfile rule), or, with
 * stale non-NULL, left out with *stale set; bad syntax is -NUB_ELOCKFILE
 * with the line. git's merge-conflict markers: with stale non-NULL both
 * sides are read and merged as yarn 1 merges them (a pattern in both takes
 * theirs' entry) and *stale is set, else -NUB_ELOCKFILE. */
int nub_lockfile_yarn_parse(struct nub_graph *g, const char *text, size_t len,
                            const char *fname, const struct nub_manifest *root,
                            const struct nub_workspace *ws, const struct nub_config *cfg,
                            bool *stale, struct nub_err *err);

#include "buf.h"

/* yarn.lock v1 for graph g (from the resolver or from yarn.lock), as yarn's
 * own stringify writes it; fills each package's `patterns`. resolutions
 * (package.json's, "[parent>]name" -> spec; NULL: none) add their own
 * pattern to the version they chose, as yarn records it. */
void nub_lockfile_yarn_write(struct nub_graph *g, const struct nub_config *cfg,
                             const struct nub_depmap *resolutions,
                             struct nub_buf *out);

#endif
