/* diagfile.h - reading a run's NUB_DIAG_FILE (JSONL) back: the figures
 * `nub diag diff` compares, and the self-contained HTML report of
 * `nub diag report`. Works on files of older builds too (no "tid": one
 * lane; no kernel events: no kernel table). */
#ifndef NUB_DIAGFILE_H
#define NUB_DIAGFILE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"

#define NUB_DIAGRUN_MAX 32

struct nub_diagrun {
  struct {
    char name[32];
    double ms;
    char detail[160];
  } phase[NUB_DIAGRUN_MAX]; /* install_phase events, in order */
  int nphases;
  struct {
    char name[40]; /* link_hardlink, link_reflink, ... */
    uint64_t files, bytes;
    double ms;    /* summed over the files (work, not wall) */
  } prim[NUB_DIAGRUN_MAX];
  int nprims;
  double total_ms; /* the install's "total" event, else the last event's end */
  uint64_t events, files;
  size_t packages; /* distinct packages the events name */
};

/* Read path's events. -ENOENT / -NUB_EUSAGE (not a diag file) with a
 * message naming the file and line. */
int nub_diagrun_load(struct nub_diagrun *r, const char *path, struct nub_err *err);

/* The HTML report of path's events, appended to out: one file, no network,
 * no external scripts or fonts (the events are embedded, the page draws
 * the per-thread timeline, the phase split, the strategy tally, the
 * slowest packages, the critical path and the kernel table). */
int nub_diag_report_html(const char *path, struct nub_buf *out, struct nub_err *err);

#endif
