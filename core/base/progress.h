/* progress.h - what the user sees while an install runs: on a TTY one
 * updating line (resolved / fetched / linked counts), redrawn by a small
 * thread every 100 ms; without a TTY no progress noise. Warnings go through
 * here so they never tear the progress line. */
#ifndef NUB_PROGRESS_H
#define NUB_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nub_progress {
  bool live;   /* stderr is a TTY and the reporter allows it */
  bool lines;  /* no TTY (or append-only): a line on stdout each second once
                * an install has taken one, when something moved */
  bool silent; /* --silent: warnings too are dropped, errors are not */
  size_t resolved, fetch_total, fetched, link_total, linked; /* atomics */
  uint64_t bytes;        /* downloaded so far (atomic) */
  char big[128];         /* the big download under way ("next@16.5.0"), or "" */
  uint64_t big_bytes;    /* its bytes so far (under lock) */
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cv;
  bool running, stop, drawn;
  uint64_t *once; /* what nub_progress_warn_once has said (hashes; owned) */
  size_t nonce, caponce;
  bool keep;      /* keep every warning's text in said, --silent or not */
  char **said;    /* owned */
  size_t nsaid, capsaid;
};

/* reporter: 0 default, 1 append-only, 2 silent (enum nub_reporter), 3
 * warnings only (no progress: a command's short step) */
void nub_progress_start(struct nub_progress *p, int reporter);
/* Stops the redraw thread and frees what the reporter keeps (said too). */
void nub_progress_stop(struct nub_progress *p);
void nub_progress_add(struct nub_progress *p, size_t *field, size_t n);
/* n more bytes of the download of `what`, which has `so_far` now: counted,
 * and a big one (past a few MB) shown by name on the line. */
void nub_progress_bytes(struct nub_progress *p, const char *what, uint64_t so_far, size_t n);
/* The download of `what` is over: no longer shown. */
void nub_progress_download_done(struct nub_progress *p, const char *what);
void nub_progress_set(struct nub_progress *p, size_t *field, size_t v);
/* "nub: warn: ..." on stderr (suppressed by --silent). */
void nub_progress_warn(struct nub_progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same, once per `key` per install (a host that cannot be reached is
 * said once, not once per request); returns whether it printed. */
bool nub_progress_warn_once(struct nub_progress *p, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
