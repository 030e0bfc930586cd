/* diag.h - tracing: phase timings, JSONL events, live print, summaries.
 *
 * Everything is off by default. nub_diag_init() reads the environment once:
 *   NUB_LOG=debug (or RUST_LOG=debug)  phase lines on stderr ("phase:link 27.9ms (1234 files)")
 *   NUB_DIAG_FILE=<path>               one JSON object per event (truncated at start)
 *   NUB_DIAG_PRINT=1                   live event lines on stderr
 *   NUB_DIAG_THRESHOLD_MS=<n>          hide live lines shorter than n ms
 *   NUB_DIAG_SUMMARY=1                 aggregate table at exit
 *   NUB_DIAG_CRITPATH=1                keep events; critical path report at exit
 *   NUB_DIAG_KERNEL=1                  getrusage deltas around each phase
 *   NUB_BENCH_PHASES_FILE=<path>       one JSON line per install appended
 *   NUB_DIAG_TRACE=<path>              a Chrome trace (Perfetto, chrome://tracing)
 *
 * Call sites test NUB_DIAG_ON() (one predictable branch) before doing any work
 * for an event, including reading the clock. The sink is the only global
 * mutable state of nub besides config; it is thread-safe.
 *
 * Event schema (one line each): {"t":<ms since start, end of the event>,
 * "cat":"<category>","name":"<name>","dur":<ms>,"tid":<thread lane>,
 * "meta":{...}} with 3 decimals; "thread" events name the lanes.
 */
#ifndef NUB_DIAG_H
#define NUB_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nub_plat.h"

extern bool nub_diag_on_;    /* any structured knob is set */
extern bool nub_diag_debug_; /* NUB_LOG=debug phase lines */

#ifdef NUB_DIAG_DISABLED
#define NUB_DIAG_ON() 0
#else
#define NUB_DIAG_ON() (__builtin_expect(nub_diag_on_, 0))
#endif

void nub_diag_init(void);
/* Flush buffered events, print the summary/critical path reports, close files.
 * Safe to call more than once. */
void nub_diag_shutdown(void);
/* Flush buffered events only (fatal paths). */
void nub_diag_flush(void);
/* Milliseconds since nub_diag_init. */
double nub_diag_ms(uint64_t ns);
uint64_t nub_diag_t0(void);

/* ---- tiny JSON object writer for event meta and bench lines ------------ */
struct nub_jw {
  char buf[1024];
  size_t len, mark;
  bool open, skip;
  bool overflow; /* some member did not fit and was left out */
};
void nub_jw_begin(struct nub_jw *w);
void nub_jw_str(struct nub_jw *w, const char *key, const char *val);
void nub_jw_strn(struct nub_jw *w, const char *key, const char *val, size_t n);
void nub_jw_int(struct nub_jw *w, const char *key, long long v);
void nub_jw_num(struct nub_jw *w, const char *key, double v);
void nub_jw_bool(struct nub_jw *w, const char *key, bool v);
/* Insert pre-formatted JSON (an object or array) as the value of key. */
void nub_jw_raw(struct nub_jw *w, const char *key, const char *json);
const char *nub_jw_end(struct nub_jw *w);
/* Append `s` JSON-escaped (without quotes) to buf; returns bytes written or
 * -1 if cap is too small. */
int nub_json_escape(char *buf, size_t cap, const char *s, size_t n);

/* ---- events ------------------------------------------------------------ */

/* A span that ended at end_ns and started at start_ns (both nub_plat_now_ns
 * values; start == end for an instant). meta is a JSON object or NULL. */
void nub_diag_event(const char *cat, const char *name, uint64_t start_ns,
                    uint64_t end_ns, const char *meta);

/* Per-file link events are the hottest: counted in the tally and written
 * without building meta strings at the call site. errno_from is the negative
 * errno of the first failed rung (0 if none) and prim_from its primitive. */
void nub_diag_link_file(enum nub_prim prim, const char *pkg, uint64_t bytes,
                        uint64_t start_ns, uint64_t end_ns, int errno_from,
                        enum nub_prim prim_from);

/* ---- phases ------------------------------------------------------------ */

struct nub_diag_phase {
  const char *name;
  uint64_t t0;
  struct nub_plat_rusage ru0;
  bool ru_ok;
};
void nub_diag_phase_begin(struct nub_diag_phase *p, const char *name);
/* Ends the phase: emits an install_phase event, a kernel delta when enabled,
 * records it for the bench file, and prints "phase:<name> <dur> (<detail>)"
 * with NUB_LOG=debug. detail may be NULL. Returns the duration in ns. */
uint64_t nub_diag_phase_end(struct nub_diag_phase *p, const char *detail);

/* Counters reported in the bench phases line (packages, files, ...). */
void nub_diag_set_count(const char *key, long long v);
/* Append the NUB_BENCH_PHASES_FILE line for this run (total from t0). */
void nub_diag_bench_line(const char *cwd, uint64_t total_ns);

/* Every 50 ms while diag is on, call fn to fill a JSON object that is
 * emitted as a "sample"/"concurrency" instant (worker and transfer counts).
 * nub_diag_sampler_stop joins the thread. No-ops when diag is off. */
void nub_diag_sampler_start(void (*fn)(void *ud, struct nub_jw *w), void *ud);
void nub_diag_sampler_stop(void);

/* Name the calling thread's lane ("main", "network", "worker 3") in the
 * JSONL (a "thread" event) and the trace. */
void nub_diag_thread_name(const char *name);
/* A setting of the run for the trace's metadata (key a static string). */
void nub_diag_set_meta(const char *key, const char *val);

/* A lifecycle mark of one package: "queued", "fetched", "stored", "linked". */
void nub_diag_mark(const char *what, const char *pkg);

/* printf-style debug line on stderr when NUB_LOG=debug. */
void nub_diag_debugf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Format a duration like "12.3ms", "812µs" or "1.23s". */
void nub_diag_fmt_dur(char *buf, size_t cap, uint64_t ns);

/* Tally of link primitives seen so far (files, bytes, ns per primitive). */
struct nub_diag_tally {
  uint64_t files[NUB_PRIM__COUNT];
  uint64_t bytes[NUB_PRIM__COUNT];
  uint64_t ns[NUB_PRIM__COUNT];
  uint64_t fallbacks; /* files that needed more than one rung */
};
/* Add a linker's per-run counts to the tally (one call per link phase). */
void nub_diag_tally_add(const struct nub_diag_tally *t);
/* "link_hardlink", "link_reflink", ... for a primitive. */
const char *nub_diag_link_event_name(enum nub_prim p);

#endif
