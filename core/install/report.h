/* report.h - the warnings an install collects on the way and shows once
 * at the end. (The summary line is the CLI's, from nub_install_result.) */
#ifndef NUB_REPORT_H
#define NUB_REPORT_H

#include <stddef.h>

struct nub_err;
struct nub_install_ctx;

/* Where an install leaves the builds waiting for an approval, one
 * "name@version" a line (`nub approve-builds` reads it). */
#define NUB_PENDING_BUILDS "node_modules/.nub-state/pending-builds"

/* The dependencies whose install scripts waited for an approval (also
 * written to NUB_PENDING_BUILDS, unless it is a rebuild): a
 * warning saying where the project's tool keeps approvals, or, when the
 * project asks unapproved builds to fail (strictDepBuilds, pnpm 12's
 * default; strict-allow-scripts), -NUB_EUNAPPROVED naming them. */
int nub_report_blocked(struct nub_install_ctx *c, struct nub_err *err);

/* One line per package whose peer dependency is missing or of a version
 * its range does not allow, as pnpm reports them ("react-dom@18.3.1 wants
 * react@^18.3.1, found 17.0.2"), less what pnpm-workspace.yaml's
 * peerDependencyRules allow. With strictPeerDependencies (or .npmrc's
 * strict-peer-dependencies) any line left fails the install: -NUB_EPEERS. */
int nub_report_peers(struct nub_install_ctx *c, struct nub_err *err);

/* The direct dependencies that came, went or changed between two lists of
 * "<alias> <version>" (state.h), as "+ alias version" / "- alias version"
 * lines in name order; the caller frees them (nub_strarray_free). */
void nub_report_changes(char *const *old, size_t nold, char *const *now, size_t nnow,
                        char ***out, size_t *nout);

struct nub_state;
/* What an install changed in node_modules, from the previous state (NULL:
 * none) and the new one, package directory by package directory: one that
 * is new is added, one whose package differs is changed, one gone is
 * removed. */
void nub_report_count(const struct nub_state *old, const struct nub_state *now, size_t *added,
                      size_t *changed, size_t *removed);

#endif
