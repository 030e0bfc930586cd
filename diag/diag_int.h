/* diag_int.h - the sink's state, shared by the diag sources only. */
#ifndef NUB_DIAG_INT_H
#define NUB_DIAG_INT_H

#include <pthread.h>
#include <stdio.h>

#include "diag.h"

#define NUB_DIAG_BUFSZ (256 * 1024)
#define NUB_DIAG_MAXPHASES 32
#define NUB_DIAG_MAXCOUNTS 16
#define NUB_DIAG_AGG_SLOTS 512
#define NUB_DIAG_PKG_SLOTS 8192
#define NUB_DIAG_MAXRECORDS 1000000
#define NUB_DIAG_MAXFALLBACKS 32
#define NUB_DIAG_MAXMETA 16

/* A per-file link event kept for the trace (diag_trace.c). */
struct nub_diag_tfile {
  char *pkg;
  int prim, lane;
  uint64_t bytes, start, end;
};

struct nub_diag_agg {
  const char *cat, *name; /* static strings from call sites */
  uint64_t n, sum_ns, max_ns;
};

struct nub_diag_pkgagg {
  char *pkg;
  uint64_t n, sum_ns, first_ns, last_ns;
};

struct nub_diag_record {
  const char *cat, *name;
  uint64_t start, end;
  char *pkg; /* owned, may be NULL */
};

struct nub_diag_kernel {
  const char *phase;
  struct nub_plat_rusage d; /* deltas; max_rss_bytes is the absolute peak */
  uint64_t wall_ns;
};

struct nub_diag_fallback {
  enum nub_prim from;
  int err; /* positive errno */
  uint64_t n;
};

struct nub_diag_sink {
  bool initialised, shut;
  pthread_mutex_t lock;
  uint64_t t0, events;

  FILE *file;
  char *buf;
  size_t buf_len;
  bool jsonl, print, summary, critpath, kernel, aggregate;
  uint64_t threshold_ns;
  char *bench_path;

  struct nub_diag_agg agg[NUB_DIAG_AGG_SLOTS];
  struct nub_diag_pkgagg *pkgs; /* NUB_DIAG_PKG_SLOTS, allocated lazily */
  struct nub_diag_record *rec;
  size_t nrec, caprec;

  struct { const char *name; uint64_t ns; } phases[NUB_DIAG_MAXPHASES];
  int nphases;
  struct { const char *key; long long v; } counts[NUB_DIAG_MAXCOUNTS];
  int ncounts;
  struct nub_diag_kernel kern[NUB_DIAG_MAXPHASES];
  int nkern;
  struct nub_diag_tally tally;
  struct nub_diag_fallback fb[NUB_DIAG_MAXFALLBACKS];
  int nfb;

  /* NUB_DIAG_TRACE */
  bool trace_on;
  char *trace_path;
  char *trace; /* formatted events, comma-separated */
  size_t trace_len, trace_cap;
  uint64_t trace_events, trace_async;
  struct nub_diag_tfile *tfiles;
  size_t ntfiles, captfiles;
  struct { const char *key; char *val; } meta[NUB_DIAG_MAXMETA];
  int nmeta;
  int next_lane; /* lanes handed out (0 is the phases') */
};

extern struct nub_diag_sink nub__diag;

void nub__diag_agg_add_locked(struct nub_diag_sink *s, const char *cat,
                              const char *name, uint64_t dur_ns);
void nub__diag_pkg_add_locked(struct nub_diag_sink *s, const char *meta,
                              uint64_t start_ns, uint64_t end_ns);
void nub__diag_record_locked(struct nub_diag_sink *s, const char *cat,
                             const char *name, uint64_t start_ns,
                             uint64_t end_ns, const char *meta);
/* Record the CPU and kernel counters a phase used since ru0 and write them
 * into w (begun here) for the "kernel" event the driver emits; *cpu_ns is
 * the CPU time. -1 when the counters cannot be read. */
int nub__diag_kernel_delta(const char *phase, const struct nub_plat_rusage *ru0,
                           uint64_t t0, uint64_t t1, struct nub_jw *w, uint64_t *cpu_ns);
void nub__diag_print_summary(struct nub_diag_sink *s);
void nub__diag_print_critpath(struct nub_diag_sink *s);
void nub__diag_free_records(struct nub_diag_sink *s);
/* The calling thread's lane in the trace (1 for the first, then 2, ...). */
int nub__diag_lane(void);
void nub__diag_trace_event_locked(struct nub_diag_sink *s, const char *cat, const char *name,
                                  uint64_t start_ns, uint64_t end_ns, const char *meta,
                                  int lane);
void nub__diag_trace_file_locked(struct nub_diag_sink *s, int prim, const char *pkg,
                                 uint64_t bytes, uint64_t start_ns, uint64_t end_ns, int lane);
void nub__diag_trace_thread_locked(struct nub_diag_sink *s, const char *name, int lane);
void nub__diag_trace_write(struct nub_diag_sink *s);
void nub__diag_trace_free(struct nub_diag_sink *s);
/* Extract the value of "pkg" (or "name") from a meta object into buf. */
bool nub__diag_meta_pkg(const char *meta, char *buf, size_t cap);

#endif
