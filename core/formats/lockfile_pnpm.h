/* lockfile_pnpm.h - nub.lock, which is the pnpm-lock.yaml v9 format
 * (`lockfileVersion: '9.0'`), read into and written from struct nub_graph.
 *
 * The writer reproduces pnpm's output byte for byte (pnpm 9 to 12 share it):
 * section order, blank lines, key order, flow/block style and js-yaml's
 * quoting. What the graph cannot hold is dropped on a round trip: other
 * top-level sections (catalogs, patchedDependencies, time, ...), importer
 * dependenciesMeta/publishDirectory, snapshot `patched`/`dev`/`id`,
 * `bundledDependencies: true` and `requiresBuild` (not part of v9 output). */
#ifndef NUB_LOCKFILE_PNPM_H
#define NUB_LOCKFILE_PNPM_H

#include <stddef.h>

#include "buf.h"
#include "err.h"
#include "graph.h"

/* Parse nub.lock / pnpm-lock.yaml text into g (nub_graph_init'ed by the
 * caller; release it whatever the result). `fname` names the file in errors.
 *
 * Every snapshot becomes a nub_gpkg: key = the snapshot key
 * ("name@1.0.0(peer@2.0.0)"), pkg_key = its packages: key, name/version from
 * pkg_key (split at the first '@' after a scope) unless the entry has its own
 * name:/version: fields (tarball and git packages), and the packages: data
 * copied in. A packages: entry that no snapshot uses becomes a nub_gpkg with
 * key = pkg_key. The graph comes back sorted (nub_graph_sort).
 *
 * Errors: -NUB_ELOCKVERSION for a lockfileVersion other than 9.x;
 * -NUB_ELOCKFILE for invalid YAML (with line:column), merge-conflict markers,
 * a wrongly typed known field, a snapshot without a packages: entry,
 * duplicate keys, or a resolution nub cannot install from (git, variations). */
int nub_lockfile_pnpm_parse(struct nub_graph *g, const char *text, size_t len,
                            const char *fname, struct nub_err *err);

/* A file with git's merge-conflict markers, read as pnpm reads one (its
 * mergeLockfileChanges): each side parsed, then every importer and package
 * of both in g, theirs' fields where both have a package, and of a
 * dependency both sides list, the greater version (theirs on a tie), with
 * theirs' specifier. Other sections are theirs'. Errors as above, or a
 * side that is not valid, -NUB_ELOCKFILE. */
int nub_lockfile_pnpm_unconflict(struct nub_graph *g, const char *text, size_t len,
                                 const char *fname, struct nub_err *err);

/* Serialise g deterministically, appending to out: pnpm's section order,
 * sorted keys (pnpm's priority order inside packages/snapshots entries),
 * flow style for resolution/engines/cpu/os/libc, quoting as js-yaml does.
 * A packages: entry is written once per pkg_key, with `name:`/`version:`
 * lines when they differ from what pkg_key says. g need not be sorted. */
void nub_lockfile_pnpm_write(const struct nub_graph *g, struct nub_buf *out);

#endif
