/* edit.c - a command that edits the project's files, then installs
 * (edit.h). */
#include "edit.h"

#include "graph.h"

#include <string.h>

#include "lockfmt.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "workspace.h"

void nub_edit_keep(struct nub_edit *e, const char *path)
{
  struct nub_journal_file *f;

  for (size_t i = 0; i < e->nfiles; i++)
    if (!strcmp(e->files[i].path, path))
      return;
  NUB_GROW(e->files, e->capfiles, e->nfiles + 1);
  f = &e->files[e->nfiles++];
  f->path = nub_strdup(path);
  f->data = NULL;
  f->len = 0;
  if (nub_plat_read_file_at(NUB_PLAT_CWD, path, 1u << 30, &f->data, &f->len) < 0)
    f->data = NULL;
}


/* Put every file back as it was; a file that was not there goes. */
void nub_edit_restore(struct nub_edit *e)
{
  nub_journal_restore(e->files, e->nfiles);
}


void nub_edit_release(struct nub_edit *e)
{
  /* the edit is over, whole or put back */
  if (e->s.lock.journal && e->nfiles)
    nub_journal_done(e->s.lock.journal);
  if (e->have_prog)
    nub_progress_stop(&e->prog);
  if (e->pool)
    nub_pool_free(e->pool);
  for (size_t i = 0; i < e->nfiles; i++) {
    nub_free(e->files[i].path);
    nub_free(e->files[i].data);
  }
  nub_free(e->files);
  nub_strarray_free(e->targets, e->ntargets);
  nub_age_gate_release(&e->gate);
  if (e->locked) {
    nub_graph_release(e->locked);
    nub_free(e->locked);
  }
  nub_free(e->pick);
  nub_session_close(&e->s);
}


/* The project, its workspace, and the package.json files to edit. From
 * here to the lockfile's write this command alone edits the project: a
 * second `nub add` waits, then edits this one's result. */
int nub_edit_open(struct nub_edit *e, const struct nub_add_opts *o, struct nub_err *err)
{
  const struct nub_install_opts *io = &o->install;
  struct nub_progress say;
  struct nub_session_opts so = {io->dir, io->npmrc_dir, io->cfg, io->ncfg, &say, nub_lockfmts,
                                &nub_lockfmt_none};
  int rc;

  memset(e, 0, sizeof(*e));
  nub_progress_start(&say, io->reporter == NUB_REPORTER_SILENT ? 2 : 3);
  rc = nub_session_open(&e->s, NUB_OPEN_LOCK | NUB_OPEN_MEMBERS, &so, err);
  nub_progress_stop(&say);
  e->s.o.say = NULL;
  if (rc == -NUB_ENOMANIFEST) /* the fix, in the same line */
    rc = nub_err_set(err, rc, "no package.json in %s; run `nub init` to make one", e->s.root);
  if (rc < 0)
    return rc;
  e->targets = nub_calloc(e->s.ws.npkgs + 2, sizeof(char *));
  if (io->nfilters || io->workspace_root) {
    bool *sel = nub_calloc(e->s.ws.npkgs + 1, sizeof(bool));
    if (!e->s.ws.source) {
      nub_free(sel);
      return nub_err_set(err, -NUB_EUSAGE, "--filter and -w select workspace packages, but "
                         "%s is not a workspace", e->s.root);
    }
    if (io->nfilters)
      rc = nub_workspace_select(&e->s.ws, e->s.man.name, &e->s.man, e->s.cwd_rel,
                                (char *const *)io->filters, io->nfilters, sel, err);
    if (io->workspace_root)
      sel[0] = true;
    for (size_t i = 0; rc == 0 && i <= e->s.ws.npkgs; i++)
      if (sel[i])
        e->targets[e->ntargets++] = i ? nub_asprintf("%s/%s", e->s.root, e->s.ws.pkgs[i - 1].dir)
                                      : nub_strdup(e->s.root);
    nub_free(sel);
    return rc;
  }
  /* the member nub runs in, else the root */
  for (size_t i = 0; i < e->s.ws.npkgs; i++) {
    size_t dl = strlen(e->s.ws.pkgs[i].dir);
    if (!strncmp(e->s.cwd_rel, e->s.ws.pkgs[i].dir, dl) &&
        (e->s.cwd_rel[dl] == '\0' || e->s.cwd_rel[dl] == '/')) {
      e->targets[e->ntargets++] = nub_asprintf("%s/%s", e->s.root, e->s.ws.pkgs[i].dir);
      return 0;
    }
  }
  e->targets[e->ntargets++] = nub_strdup(e->s.root);
  return 0;
}


/* Every lockfile the install may write, kept so that a failure puts it back. */
void nub_edit_keep_lockfiles(struct nub_edit *e)
{
  for (size_t i = 0; nub_lockfmts[i]; i++) {
    char *p = nub_asprintf("%s/%s", e->s.root, nub_lockfmts[i]->file);
    nub_edit_keep(e, p); /* (once per file: keep_file knows it) */
    nub_free(p);
  }
}


/* The files the edit may change (every target's package.json, every
 * lockfile), recorded before the first change: an interruption from here on
 * leaves them to be put back by the next command (journal.h). */
int nub_edit_begin(struct nub_edit *e, struct nub_err *err)
{
  for (size_t t = 0; t < e->ntargets; t++) {
    char *pj = nub_asprintf("%s/package.json", e->targets[t]);
    nub_edit_keep(e, pj);
    nub_free(pj);
  }
  nub_edit_keep_lockfiles(e);
  return nub_journal_write(e->s.lock.journal, e->files, e->nfiles, err);
}


int nub_edit_install(struct nub_edit *e, const struct nub_add_opts *o,
                       struct nub_install_result *res, struct nub_err *err)
{
  struct nub_install_opts io = o->install;
  int rc;

  /* the same project, still locked, its package.json files read again */
  io.session = &e->s;
  rc = nub_session_reread(&e->s, err);
  if (rc == 0)
    rc = nub_install(&io, res, err);

  if (rc < 0)
    nub_edit_restore(e);
  return rc;
}

