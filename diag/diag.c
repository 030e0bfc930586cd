/* diag.c - the diag sink: env knobs, JSONL writer, live printer, phase lines,
 * aggregates for the summary, kernel deltas and the bench phases line.
 *
 * One mutex guards the sink. Events are formatted on the caller's stack and
 * copied into a 256 KiB buffer under the lock, so a disabled sink costs
 * nothing and an enabled one costs a format and a memcpy per event. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "redact.h"
#include "diag_int.h"
#include "nub_alloc.h"

static const char *env_set(const char *name)
{
  const char *v = nub_plat_getenv(name);
  return v && *v && strcmp(v, "0") != 0 ? v : NULL;
}

static bool env_debug(const char *name)
{
  const char *v = nub_plat_getenv(name);
  /* RUST_LOG-style filters: "debug", "trace", "nub=debug", "info,nub=debug". */
  return v && (strstr(v, "debug") || strstr(v, "trace"));
}

void nub_diag_init(void)
{
  struct nub_diag_sink *s = &nub__diag;
  const char *v;

  if (s->initialised)
    return;
  memset(s, 0, sizeof(*s));
  s->initialised = true;
  pthread_mutex_init(&s->lock, NULL);
  s->t0 = nub_plat_now_ns();
  nub_diag_debug_ = env_debug("NUB_LOG") || env_debug("RUST_LOG");

  v = env_set("NUB_DIAG_FILE");
  if (v) {
    s->file = fopen(v, "w");
    if (!s->file)
      fprintf(stderr, "nub: warning: cannot open NUB_DIAG_FILE '%s': %s\n", v,
              strerror(errno));
    else
      s->buf = nub_malloc(NUB_DIAG_BUFSZ);
  }
  s->print = env_set("NUB_DIAG_PRINT") != NULL;
  v = env_set("NUB_DIAG_THRESHOLD_MS");
  s->threshold_ns = v ? (uint64_t)(strtod(v, NULL) * 1e6) : 0;
  s->summary = env_set("NUB_DIAG_SUMMARY") != NULL;
  s->critpath = env_set("NUB_DIAG_CRITPATH") != NULL;
  s->kernel = env_set("NUB_DIAG_KERNEL") != NULL;
  v = env_set("NUB_BENCH_PHASES_FILE");
  s->bench_path = v ? nub_strdup(v) : NULL;
  v = env_set("NUB_DIAG_TRACE");
  if (v) {
    s->trace_on = true;
    s->trace_path = nub_strdup(v);
  }
  s->jsonl = s->file != NULL;
  nub_diag_on_ = s->jsonl || s->print || s->summary || s->critpath || s->kernel || s->trace_on;
  /* Any structured knob turns the in-memory aggregates on (summary needs them,
   * and they are what a crash report would show). */
  s->aggregate = nub_diag_on_;
  if (s->print)
    fprintf(stderr, "[diag] active threshold=%gms summary=%s\n",
            (double)s->threshold_ns / 1e6, s->summary ? "true" : "false");
  nub_alloc_set_fatal_hook(nub_diag_flush);
  nub_diag_thread_name("main");
}

/* Caller holds the lock. */
static void buf_flush_locked(struct nub_diag_sink *s)
{
  if (s->file && s->buf_len) {
    fwrite(s->buf, 1, s->buf_len, s->file);
    s->buf_len = 0;
  }
}

static void buf_put_locked(struct nub_diag_sink *s, const char *line, size_t n)
{
  if (!s->file)
    return;
  if (s->buf_len + n > NUB_DIAG_BUFSZ)
    buf_flush_locked(s);
  if (n > NUB_DIAG_BUFSZ) {
    fwrite(line, 1, n, s->file);
    return;
  }
  memcpy(s->buf + s->buf_len, line, n);
  s->buf_len += n;
}

void nub_diag_flush(void)
{
  struct nub_diag_sink *s = &nub__diag;

  if (!s->initialised)
    return;
  pthread_mutex_lock(&s->lock);
  buf_flush_locked(s);
  if (s->file)
    fflush(s->file);
  pthread_mutex_unlock(&s->lock);
}

void nub_diag_fmt_dur(char *buf, size_t cap, uint64_t ns)
{
  if (ns < 1000000)
    snprintf(buf, cap, "%.1f\xc2\xb5s", (double)ns / 1e3);
  else if (ns < 10000000000ull)
    snprintf(buf, cap, "%.1fms", (double)ns / 1e6);
  else
    snprintf(buf, cap, "%.2fs", (double)ns / 1e9);
}

void nub_diag_event(const char *cat, const char *name, uint64_t start_ns,
                    uint64_t end_ns, const char *meta)
{
  struct nub_diag_sink *s = &nub__diag;
  char line[1400];
  int n, lane;
  uint64_t dur = end_ns > start_ns ? end_ns - start_ns : 0;
  bool show;

  if (!nub_diag_on_)
    return;
  lane = nub__diag_lane();
  n = snprintf(line, sizeof(line),
               "{\"t\":%.3f,\"cat\":\"%s\",\"name\":\"%s\",\"dur\":%.3f,\"tid\":%d%s%s}\n",
               nub_diag_ms(end_ns), cat, name, (double)dur / 1e6, lane,
               meta ? ",\"meta\":" : "", meta ? meta : "");
  if (n < 0)
    return;
  if ((size_t)n >= sizeof(line)) {
    /* Meta too long for one line: keep the event, drop the meta. */
    n = snprintf(line, sizeof(line),
                 "{\"t\":%.3f,\"cat\":\"%s\",\"name\":\"%s\",\"dur\":%.3f,\"tid\":%d}\n",
                 nub_diag_ms(end_ns), cat, name, (double)dur / 1e6, lane);
  }
  show = s->print && dur >= s->threshold_ns;
  pthread_mutex_lock(&s->lock);
  if (s->jsonl)
    buf_put_locked(s, line, (size_t)n);
  if (s->aggregate) {
    nub__diag_agg_add_locked(s, cat, name, dur);
    if (s->summary && meta)
      nub__diag_pkg_add_locked(s, meta, start_ns, end_ns);
  }
  if (s->critpath)
    nub__diag_record_locked(s, cat, name, start_ns, end_ns, meta);
  if (s->trace_on && strcmp(cat, "linker") && strcmp(cat, "thread"))
    nub__diag_trace_event_locked(s, cat, name, start_ns, end_ns, meta, lane);
  s->events++;
  pthread_mutex_unlock(&s->lock);
  if (show)
    fprintf(stderr, "[diag %9.2fms] %s.%-28s %9.3fms%s%s\n",
            nub_diag_ms(end_ns), cat, name, (double)dur / 1e6,
            meta ? " " : "", meta ? meta : "");
}

void nub_diag_link_file(enum nub_prim prim, const char *pkg, uint64_t bytes,
                        uint64_t start_ns, uint64_t end_ns, int errno_from,
                        enum nub_prim prim_from)
{
  struct nub_jw w;

  if (!nub_diag_on_)
    return;
  nub_jw_begin(&w);
  nub_jw_str(&w, "pkg", pkg);
  nub_jw_int(&w, "bytes", (long long)bytes);
  nub_jw_str(&w, "prim", nub_plat_prim_name(prim));
  if (errno_from) {
    struct nub_diag_sink *s = &nub__diag;
    int i;
    pthread_mutex_lock(&s->lock);
    for (i = 0; i < s->nfb; i++)
      if (s->fb[i].from == prim_from && s->fb[i].err == -errno_from)
        break;
    if (i == s->nfb && s->nfb < NUB_DIAG_MAXFALLBACKS) {
      s->fb[i].from = prim_from;
      s->fb[i].err = -errno_from;
      s->fb[i].n = 0;
      s->nfb++;
    }
    if (i < s->nfb)
      s->fb[i].n++;
    pthread_mutex_unlock(&s->lock);
    nub_jw_str(&w, "fallback_from", nub_plat_prim_name(prim_from));
    nub_jw_int(&w, "errno", -errno_from);
    nub_jw_str(&w, "error", strerror(-errno_from));
  }
  nub_diag_event("linker", nub_diag_link_event_name(prim), start_ns, end_ns,
                 nub_jw_end(&w));
  if (nub__diag.trace_on) {
    struct nub_diag_sink *s = &nub__diag;
    int lane = nub__diag_lane();
    pthread_mutex_lock(&s->lock);
    nub__diag_trace_file_locked(s, (int)prim, pkg, bytes, start_ns, end_ns, lane);
    if (errno_from)
      nub__diag_trace_event_locked(s, "fallback", nub_plat_prim_name(prim_from), end_ns, end_ns,
                                   NULL, lane);
    pthread_mutex_unlock(&s->lock);
  }
}

void nub_diag_tally_add(const struct nub_diag_tally *t)
{
  struct nub_diag_sink *s = &nub__diag;

  pthread_mutex_lock(&s->lock);
  for (int i = 0; i < NUB_PRIM__COUNT; i++) {
    s->tally.files[i] += t->files[i];
    s->tally.bytes[i] += t->bytes[i];
    s->tally.ns[i] += t->ns[i];
  }
  s->tally.fallbacks += t->fallbacks;
  pthread_mutex_unlock(&s->lock);
}

void nub_diag_debugf(const char *fmt, ...)
{
  va_list ap;
  char *clean;

  if (!nub_diag_debug_)
    return;
  va_start(ap, fmt);
  clean = nub_redact_vfmt(fmt, ap);
  va_end(ap);
  fprintf(stderr, "DEBUG %s\n", clean);
  nub_free(clean);
}

/* ---- phases ------------------------------------------------------------ */

void nub_diag_phase_begin(struct nub_diag_phase *p, const char *name)
{
  p->name = name;
  p->t0 = nub_plat_now_ns();
  p->ru_ok = nub__diag.kernel && nub_plat_rusage(NUB_RUSAGE_SELF, &p->ru0) == 0;
}

uint64_t nub_diag_phase_end(struct nub_diag_phase *p, const char *detail)
{
  struct nub_diag_sink *s = &nub__diag;
  uint64_t t1 = nub_plat_now_ns();
  uint64_t dur = t1 - p->t0;

  if (nub_diag_debug_) {
    char d[32];
    nub_diag_fmt_dur(d, sizeof(d), dur);
    fprintf(stderr, "DEBUG phase:%s %s%s%s%s\n", p->name, d,
            detail ? " (" : "", detail ? detail : "", detail ? ")" : "");
  }
  if (s->initialised) {
    pthread_mutex_lock(&s->lock);
    if (s->nphases < NUB_DIAG_MAXPHASES) {
      s->phases[s->nphases].name = p->name;
      s->phases[s->nphases].ns = dur;
      s->nphases++;
    }
    pthread_mutex_unlock(&s->lock);
  }
  if (NUB_DIAG_ON()) {
    struct nub_jw w;
    const char *meta = NULL;
    if (detail) {
      nub_jw_begin(&w);
      nub_jw_str(&w, "detail", detail);
      meta = nub_jw_end(&w);
    }
    nub_diag_event("install_phase", p->name, p->t0, t1, meta);
    if (p->ru_ok) {
      struct nub_jw kw;
      uint64_t cpu;
      /* A kernel event is CPU time, not a wall span: t is the phase end and
       * dur the CPU milliseconds; the critical path ignores this category. */
      if (nub__diag_kernel_delta(p->name, &p->ru0, p->t0, t1, &kw, &cpu) == 0)
        nub_diag_event("kernel", p->name, t1 - cpu, t1, nub_jw_end(&kw));
    }
  }
  return dur;
}

void nub_diag_thread_name(const char *name)
{
  struct nub_diag_sink *s = &nub__diag;
  uint64_t t;
  struct nub_jw w;
  int lane;

  if (!NUB_DIAG_ON())
    return;
  lane = nub__diag_lane();
  t = nub_plat_now_ns();
  nub_jw_begin(&w);
  nub_jw_str(&w, "name", name);
  nub_diag_event("thread", "name", t, t, nub_jw_end(&w));
  if (!s->trace_on)
    return;
  pthread_mutex_lock(&s->lock);
  nub__diag_trace_thread_locked(s, name, lane);
  pthread_mutex_unlock(&s->lock);
}

void nub_diag_set_count(const char *key, long long v)
{
  struct nub_diag_sink *s = &nub__diag;

  if (!s->initialised)
    return;
  pthread_mutex_lock(&s->lock);
  for (int i = 0; i < s->ncounts; i++) {
    if (!strcmp(s->counts[i].key, key)) {
      s->counts[i].v = v;
      pthread_mutex_unlock(&s->lock);
      return;
    }
  }
  if (s->ncounts < NUB_DIAG_MAXCOUNTS) {
    s->counts[s->ncounts].key = key;
    s->counts[s->ncounts].v = v;
    s->ncounts++;
  }
  pthread_mutex_unlock(&s->lock);
}

void nub_diag_shutdown(void)
{
  struct nub_diag_sink *s = &nub__diag;

  if (!s->initialised || s->shut)
    return;
  s->shut = true;
  nub_diag_flush();
  if (s->summary)
    nub__diag_print_summary(s);
  if (s->critpath)
    nub__diag_print_critpath(s);
  if (s->print)
    fprintf(stderr, "[diag] flushed %llu events over %.1fms\n",
            (unsigned long long)s->events, nub_diag_ms(nub_plat_now_ns()));
  if (s->file) {
    fclose(s->file);
    s->file = NULL;
  }
  nub__diag_trace_write(s);
  nub__diag_trace_free(s);
  nub_free(s->buf);
  s->buf = NULL;
  nub__diag_free_records(s);
}

/* ---- sampler ------------------------------------------------------------- */

static struct {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cv;
  bool running, stop;
  void (*fn)(void *, struct nub_jw *);
  void *ud;
} sampler = {.lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void *sampler_main(void *arg)
{
  (void)arg;
  nub_diag_thread_name("sampler");
  pthread_mutex_lock(&sampler.lock);
  while (!sampler.stop) {
    struct timespec ts;
    struct nub_jw w;
    uint64_t t;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50000000;
    if (ts.tv_nsec >= 1000000000) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&sampler.cv, &sampler.lock, &ts);
    if (sampler.stop)
      break;
    nub_jw_begin(&w);
    sampler.fn(sampler.ud, &w);
    t = nub_plat_now_ns();
    nub_diag_event("sample", "concurrency", t, t, nub_jw_end(&w));
  }
  pthread_mutex_unlock(&sampler.lock);
  return NULL;
}

void nub_diag_sampler_start(void (*fn)(void *ud, struct nub_jw *w), void *ud)
{
  if (!NUB_DIAG_ON() || sampler.running)
    return;
  sampler.fn = fn;
  sampler.ud = ud;
  sampler.stop = false;
  sampler.running = pthread_create(&sampler.thread, NULL, sampler_main, NULL) == 0;
}

void nub_diag_sampler_stop(void)
{
  if (!sampler.running)
    return;
  pthread_mutex_lock(&sampler.lock);
  sampler.stop = true;
  pthread_cond_signal(&sampler.cv);
  pthread_mutex_unlock(&sampler.lock);
  pthread_join(sampler.thread, NULL);
  sampler.running = false;
}

void nub_diag_mark(const char *what, const char *pkg)
{
  struct nub_jw w;
  uint64_t t;

  if (!NUB_DIAG_ON())
    return;
  t = nub_plat_now_ns();
  nub_jw_begin(&w);
  nub_jw_str(&w, "pkg", pkg);
  nub_diag_event("lifecycle", what, t, t, nub_jw_end(&w));
}
