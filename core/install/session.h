/* session.h - the project a command works on, opened once (apk-tools'
 * apk_ctx with its applet's open flags, libalpm's handle): the root (the
 * workspace's, from wherever the command runs), the configuration, the
 * root's package.json, the workspace and its members, the lockfile's
 * format, and the project's lock. install, add, remove, update, the
 * queries and run -r open one; add hands its own to the install it runs.
 * Everything in it is owned by it and freed by nub_session_close. */
#ifndef NUB_SESSION_H
#define NUB_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "err.h"
#include "manifest.h"
#include "project.h"
#include "projlock.h"
#include "workspace.h"

struct nub_progress;

enum {
  NUB_OPEN_CONFIG = 1u << 0,    /* .npmrc layers, environment, flags */
  NUB_OPEN_MANIFEST = 1u << 1,  /* the root's package.json (an error without one) */
  NUB_OPEN_WORKSPACE = 1u << 2, /* the workspace's definition (members found, not read) */
  NUB_OPEN_MEMBERS = 1u << 3,   /* every member's package.json */
  NUB_OPEN_PROJECT = 1u << 4,   /* the lockfile and its format, the layout */
  NUB_OPEN_LOCK = 1u << 5,      /* the project's lock, held until close (projlock.h) */
  NUB_OPEN_RECOVER = 1u << 6,   /* without holding the lock: undo an edit a killed
                                 * command left, before package.json is read */
};

struct nub_session_opts {
  const char *dir;              /* where the command runs (NULL: the working directory) */
  const char *npmrc_dir;        /* whose .npmrc is the project layer (NULL: the root) */
  const char *const *cfg;       /* "key=value" settings from flags */
  size_t ncfg;
  struct nub_progress *say;     /* where the lock's wait and a recovery are said */
  const struct nub_lockfmt *const *fmts; /* PROJECT: the formats (lockfmt.h) */
  const struct nub_lockfmt *none;        /* PROJECT: without a lockfile */
};

struct nub_session {
  char *root;    /* the workspace root, or the project (absolute) */
  char *cwd_rel; /* where the command runs, relative to root ("" at the root) */
  struct nub_config cfg;
  struct nub_manifest man;
  struct nub_workspace ws;
  struct nub_project proj;
  struct nub_projlock lock;
  bool undone;   /* an interrupted edit was undone while opening */
  unsigned opened; /* the NUB_OPEN_* done */
  struct nub_session_opts o; /* as opened (borrowed strings) */
};

/* Open what flags ask for (each implies what it needs: PROJECT the
 * manifest and the configuration, MEMBERS the workspace, LOCK the
 * configuration; a workspace's members alone read no configuration, for
 * `nub run -r`). On failure the session is still closed with
 * nub_session_close. */
int nub_session_open(struct nub_session *s, unsigned flags, const struct nub_session_opts *o,
                     struct nub_err *err);
/* Open more of an open session (e.g. MEMBERS once an install knows it is
 * not up to date). */
int nub_session_more(struct nub_session *s, unsigned flags, struct nub_err *err);
/* Read the root's and the members' package.json again (after an edit). */
int nub_session_reread(struct nub_session *s, struct nub_err *err);
void nub_session_close(struct nub_session *s);

#endif
