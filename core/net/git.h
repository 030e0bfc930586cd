/* git.h - git dependencies through the system's git: a spec's ref
 * (gitspec.h) resolved to a commit (git ls-remote), the commit checked out
 * into a directory (git clone + checkout). nub does
 * not speak git itself; git checks every object it fetches by its hash,
 * and a commit names the whole tree, so the commit is the identity. */
#ifndef NUB_GIT_H
#define NUB_GIT_H

#include <stdbool.h>

#include "err.h"
#include "gitspec.h"

/* The commit (40 hex) the spec's ref or semver range names in the
 * repository. -NUB_ENOTFOUND (no such ref, no tag in range) or
 * -NUB_ENETWORK (git failed: its last line of output said why), naming the
 * dependency (`what`) and the URL with credentials redacted. */
int nub_git_resolve(const struct nub_gitspec *g, const char *what, char commit[41],
                    struct nub_err *err);
/* Clone url into dir (which must not exist), find the commit an abbreviated
 * ref names (*commit, 40 hex) and check it out there. -NUB_ENOTFOUND when
 * the repository has no such commit. */
int nub_git_checkout_short(const char *url, const char *ref, const char *dir, const char *what,
                           char commit[41], struct nub_err *err);
/* Clone url into dir (which must not exist) and check out commit there. */
int nub_git_checkout(const char *url, const char *commit, const char *dir, const char *what,
                     struct nub_err *err);
/* The one place a checkout is made for nub's own use: a new directory under
 * tmp_root ("<tmp_root>/<pid>-git-<n>": a killed install leaves nothing
 * the store's tmp cleaning does not find), the commit `ref` names (40 hex,
 * or abbreviated) checked out there; *commit the full one, *dir the
 * directory (caller removes and frees it). */
int nub_git_checkout_new(const char *tmp_root, const char *url, const char *ref,
                         const char *what, char commit[41], char **dir, struct nub_err *err);

#endif
