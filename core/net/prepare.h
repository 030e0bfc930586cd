/* prepare.h - a git dependency prepared as npm prepares one before packing
 * it: when its package.json has a script that builds something (prepare,
 * build, prepack, preinstall, install or postinstall), its dependencies,
 * devDependencies included, are installed in the checkout by nub itself,
 * which runs the checkout's own preinstall, install, postinstall and
 * prepare scripts; what npm pack would take is packed afterwards. Only for
 * packages the project trusts by name (trustedDependencies); a package
 * already being prepared further up the chain is not prepared again, as
 * npm does for cycles of git dependencies. */
#ifndef NUB_PREPARE_H
#define NUB_PREPARE_H

#include <stdbool.h>

#include "err.h"

/* Whose rule says what asks for preparation: npm's (any of the scripts
 * above, or workspaces) or yarn 1's (a prepare script alone; without one
 * yarn installs the checkout as it is). */
enum nub_prepare_rule { NUB_PREPARE_NPM, NUB_PREPARE_YARN1 };

/* Whether the checkout in dir asks for preparation under rule. */
bool nub_prepare_wanted(const char *dir, enum nub_prepare_rule rule);
/* Prepare the checkout in dir (what: "name@version" for messages; resolved:
 * its "git+<url>#<commit>", the identity that stops cycles). The store's
 * root is shared with the nested install; offline is passed on. Lockfiles
 * the nested install writes are removed again (npm packs none of them).
 * -NUB_ESCRIPT naming the package and the nested install's last line when
 * it fails. */
int nub_prepare_git(const char *dir, const char *what, const char *resolved,
                    const char *store_root, bool offline, struct nub_err *err);

#endif
