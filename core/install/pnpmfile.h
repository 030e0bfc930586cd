/* pnpmfile.h - pnpm's install hooks (.pnpmfile.mjs, .pnpmfile.cjs, or the
 * file pnpm-workspace.yaml's `pnpmfile` names), run as pnpm 12 runs them:
 * one Node process (the `node` on PATH) for the whole install, asked one
 * JSON line at a time over its stdin and answering on its stdout. Only a
 * project that has such a file starts one.
 *
 * readPackage is applied (to the projects' manifests and to every version
 * the resolver picks), and afterAllResolved (to the lockfile a resolution
 * writes); the other hooks a file defines are named by
 * nub_pnpmfile_unapplied. */
#ifndef NUB_PNPMFILE_H
#define NUB_PNPMFILE_H

#include <stdbool.h>

#include "err.h"

struct nub_manifest;
struct nub_pversion;

/* The hooks file of the project whose lockfile is in root_fd: `setting`
 * (pnpm-workspace.yaml's pnpmfile, NULL when unset), else .pnpmfile.mjs,
 * else .pnpmfile.cjs; NULL when there is none. Caller frees. */
char *nub_pnpmfile_find(int root_fd, const char *setting);

/* pnpm's pnpmfileChecksum: "sha256-<base64>" of the file's bytes, into
 * *out (caller frees). 0 or negative. */
int nub_pnpmfile_checksum(int root_fd, const char *rel, char **out, struct nub_err *err);

/* A line a hook logged (context.log): hook's name, the text. */
typedef void (*nub_pnpmfile_log_fn)(void *ud, const char *hook, const char *line);

struct nub_pnpmfile;

/* Starts Node on root/rel with the environment scripts get (no registry
 * credentials), loads the file and learns its hooks. 0 or negative: Node
 * missing, or the file failing to load, is -NUB_EHOOK naming it. */
int nub_pnpmfile_start(struct nub_pnpmfile **out, const char *root, const char *rel,
                       nub_pnpmfile_log_fn log, void *ud, struct nub_err *err);

/* Whether the file defines hooks.<name> as a function. */
bool nub_pnpmfile_has(const struct nub_pnpmfile *h, const char *name);

/* The hooks it defines that nub does not run, "a, b" (NULL: none). */
const char *nub_pnpmfile_unapplied(const struct nub_pnpmfile *h);

/* readPackage on a registry version's manifest (name's pv, a copy whose
 * dependency maps and optional peers the caller owns): those are replaced
 * by the hook's. 0, or -NUB_EHOOK with the hook's error. */
int nub_pnpmfile_read_version(struct nub_pnpmfile *h, const char *name, struct nub_pversion *pv,
                              struct nub_err *err);

/* readPackage on a project's manifest (the root's or a member's): its
 * dependency maps (dev too) and optional peers replaced by the hook's. */
int nub_pnpmfile_read_manifest(struct nub_pnpmfile *h, struct nub_manifest *m,
                               struct nub_err *err);

/* afterAllResolved on the lockfile the resolution gives (pnpm-lock.yaml
 * text in *lock), handed to it as the object pnpm hands it: when its
 * answer differs, *lock becomes that answer (JSON, which the lockfile's
 * YAML reader reads) and *changed is set. */
struct nub_buf;
int nub_pnpmfile_after_all_resolved(struct nub_pnpmfile *h, struct nub_buf *lock,
                                    bool *changed, struct nub_err *err);

/* What readPackage changed that nub does not apply (a field other than the
 * dependency maps and peerDependenciesMeta): "name's field", the first
 * one met; NULL when none. */
const char *nub_pnpmfile_ignored_change(const struct nub_pnpmfile *h);

/* Ends the Node process (its stdin closed) and frees h; NULL is fine. */
void nub_pnpmfile_stop(struct nub_pnpmfile *h);

#endif
