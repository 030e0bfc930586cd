/* install.h - `nub install` / `nub ci`: the pipeline of DESIGN.md
 * (config -> project -> plan -> fetch -> layout -> bins -> scripts -> state). */
#ifndef NUB_INSTALL_H
#define NUB_INSTALL_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

struct nub_session;

enum nub_frozen {
  NUB_FROZEN_DEFAULT, /* frozen when CI is set and a lockfile exists, else prefer */
  NUB_FROZEN_YES,
  NUB_FROZEN_NO,
  NUB_FROZEN_PREFER
};

enum nub_reporter { NUB_REPORTER_DEFAULT, NUB_REPORTER_APPEND, NUB_REPORTER_SILENT };

struct nub_install_opts {
  const char *dir;          /* project directory (default: cwd) */
  const char *npmrc_dir;    /* whose .npmrc is the project's layer (default: dir) */
  /* the project, opened by the caller (add's, holding the project's lock:
   * session.h), or NULL: the install opens it from dir */
  struct nub_session *session;
  enum nub_frozen frozen;
  enum nub_reporter reporter;
  bool ci;                  /* `nub ci`: remove node_modules, frozen */
  bool offline, prefer_offline;
  bool omit_dev, omit_optional, omit_peer, dev_only;
  bool ignore_scripts, lockfile_only, force;
  bool ignore_pnpmfile; /* --ignore-pnpmfile: pnpm's hooks file is not run */
  /* workspaces: --filter selectors (pnpm's syntax; --workspace <name> too),
   * and -w/--workspace-root; none: the whole workspace */
  const char *const *filters;
  size_t nfilters;
  bool workspace_root;
  /* `nub update`: these packages (update_all: every one) are resolved
   * again to the newest version their ranges allow, whatever the lockfile
   * had */
  char *const *update;
  size_t nupdate;
  bool update_all;
  /* `nub add`: the names it added (npm's explicit requests: a lockfile's
   * copy of them is replaced by the version asked for, and copies further
   * down that it answers go) */
  char *const *requested;
  size_t nrequested;
  /* `nub rebuild`: the install runs whatever is up to date, and only the
   * dependencies' build scripts (these names; none: every trusted one) */
  bool rebuild;
  char *const *rebuild_names;
  size_t nrebuild;
  const char *const *cfg;   /* "key=value" settings from flags */
  size_t ncfg;
};

/* What an install did, for the CLI to report. */
struct nub_install_result {
  bool up_to_date;       /* nothing to do: node_modules matched already */
  /* package directories this install made, made anew with another
   * package, took away (from the previous install's state), and made again
   * as they were (a repair) */
  size_t added, changed, removed, repaired;
  bool mended; /* node_modules had been damaged and was put back (repaired:
                * how many packages, when the layout counts them) */
  double seconds;
  const char *lockfile; /* the lockfile, when this install wrote it (a static
                         * name), or NULL */
  /* the project's direct dependencies that came, went or changed, as
   * "+ name 1.2.3" / "- name 1.2.2" lines (owned: nub_install_result_release) */
  char **changes;
  size_t nchanges;
};

void nub_install_result_release(struct nub_install_result *res);

int nub_install(const struct nub_install_opts *opts, struct nub_install_result *res,
                struct nub_err *err);

#endif
