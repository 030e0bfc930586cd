/* packlist.h - which files of a package directory `npm pack` would put in
 * its tarball, for directories nub packs itself (git dependencies): the
 * package.json "files" list when there is one, else the root .npmignore
 * (or, without one, .gitignore) in gitignore's syntax, npm's files that are
 * never packed (.git, .npmrc, package-lock.json, ...) and those that always
 * are (package.json, README, LICENSE, the main and bin files). Below the
 * root each directory's own .npmignore (else .gitignore) applies to what is
 * in it, with a "files" list too. Not yet: bundled dependencies. */
#ifndef NUB_PACKLIST_H
#define NUB_PACKLIST_H

#include <stdbool.h>

#include "err.h"

struct nub_packlist;

/* Read dir's package.json and ignore file. */
int nub_packlist_load(struct nub_packlist **out, const char *dir, struct nub_err *err);
void nub_packlist_free(struct nub_packlist *pl);
/* Whether the file (or, is_dir, a directory to walk into) at rel, a path
 * relative to the package root, is packed. */
bool nub_packlist_keeps(struct nub_packlist *pl, const char *rel, bool is_dir);

#endif
