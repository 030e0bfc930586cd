/* init.h - `nub init`: a package.json as `npm init -y` writes it (name from
 * the folder, version 1.0.0, npm's test script, ISC, "type": "commonjs"),
 * and with a workspace member, the member's own folder and package.json
 * and its path added to the root's "workspaces". */
#ifndef NUB_INIT_H
#define NUB_INIT_H

#include "err.h"

/* In dir (absolute): a new package.json; -EEXIST (with a message) when one
 * is there. With member ("packages/a"), dir's package.json must exist (or
 * is made as above) and gets member in "workspaces" (unless a glob there
 * takes it in already), and dir/member gets a package.json of its own.
 * *made names the file written last (caller frees). */
int nub_init(const char *dir, const char *member, char **made, struct nub_err *err);

#endif
