/* gitspec.h - a git dependency as text: the spec a package.json writes
 * parsed into a repository URL and a ref, and the resolved id a lockfile
 * and the store name it by. Nothing here runs git (git.h does). */
#ifndef NUB_GITSPEC_H
#define NUB_GITSPEC_H

#include <stdbool.h>

#include "err.h"

struct nub_gitspec {
  char *url;    /* what git is given: https://, ssh://, file://, git:// */
  char *ref;    /* a branch, tag or commit; NULL: the default branch */
  char *semver; /* "#semver:<range>": the highest tag v?X.Y.Z in range */
};

/* Whether spec names a git dependency: git+https://, git+ssh://,
 * git+file://, git://, github:user/repo, user/repo (GitHub shorthand). */
bool nub_git_is_spec(const char *spec);
/* Parse such a spec. -NUB_ESPEC for one that is not. */
int nub_git_parse(const char *spec, struct nub_gitspec *out, struct nub_err *err);
void nub_gitspec_release(struct nub_gitspec *g);

/* A ref that may be an abbreviated commit (4 to 39 hex digits): ls-remote
 * does not list those, so the resolver clones to find it. */
bool nub_git_is_short_commit(const char *ref);
/* "git+<url>#<commit>": how lockfiles and the store name a resolved git
 * dependency (npm's `resolved`), the URL without its userinfo's secret
 * (url.h): a password never reaches a file. Caller frees. */
char *nub_git_resolved(const char *url, const char *commit);
/* A git package as bun installs it: every file of the checkout (but .git),
 * not npm pack's selection; a store identity of its own. */
#define NUB_GIT_CHECKOUT "git-checkout+"
/* A git package as yarn 1 installs it: the checkout as bun's, unless its
 * package.json has a prepare script; then it is prepared (when trusted) and
 * packed as npm packs (yarn 1 runs yarn install and yarn pack in it). */
#define NUB_GIT_YARN "git-yarn+"
/* Which of the three a package's tarball field names, if any. */
enum nub_git_form {
  NUB_GIT_NOT,         /* not a git package */
  NUB_GIT_PACKED,      /* "git+": npm pack's selection, prepared as npm does */
  NUB_GIT_AS_CHECKOUT, /* NUB_GIT_CHECKOUT */
  NUB_GIT_AS_YARN,     /* NUB_GIT_YARN */
};
enum nub_git_form nub_git_form_of(const char *tarball);
/* The reverse: url and commit from "git+<url>#<commit>" (or the checkout
 * forms). false if not one. */
bool nub_git_split_resolved(const char *resolved, char **url, char commit[41]);

#endif
