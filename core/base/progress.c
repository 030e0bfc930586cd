/* progress.c - the TTY progress line. */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "nub_alloc.h"
#include "nub_plat.h"
#include "quickhash.h"
#include "redact.h"

#define BIG_DOWNLOAD (4u << 20)

/* "resolved 3, fetched 1/3 (12.4 MB), linked 0/0" and the big download's
 * bytes, into line. */
static void describe(struct nub_progress *p, char *line, size_t cap)
{
  uint64_t bytes = __atomic_load_n(&p->bytes, __ATOMIC_RELAXED);
  int n = snprintf(line, cap, "resolved %zu, fetched %zu/%zu",
                   __atomic_load_n(&p->resolved, __ATOMIC_RELAXED),
                   __atomic_load_n(&p->fetched, __ATOMIC_RELAXED),
                   __atomic_load_n(&p->fetch_total, __ATOMIC_RELAXED));

  if (n > 0 && (size_t)n < cap && bytes >= 100000)
    n += snprintf(line + n, cap - (size_t)n, " (%.1f MB)", (double)bytes / 1e6);
  if (n > 0 && (size_t)n < cap)
    n += snprintf(line + n, cap - (size_t)n, ", linked %zu/%zu",
                  __atomic_load_n(&p->linked, __ATOMIC_RELAXED),
                  __atomic_load_n(&p->link_total, __ATOMIC_RELAXED));
  if (n > 0 && (size_t)n < cap && p->big[0])
    snprintf(line + n, cap - (size_t)n, "; downloading %s: %.1f MB", p->big,
             (double)p->big_bytes / 1e6);
}

static void draw(struct nub_progress *p)
{
  char line[512];

  describe(p, line, sizeof(line));
  fprintf(stderr, "\r\x1b[K%s", line);
  fflush(stderr);
  p->drawn = true;
}

static void clear(struct nub_progress *p)
{
  if (p->drawn) {
    fputs("\r\x1b[K", stderr);
    fflush(stderr);
    p->drawn = false;
  }
}

static void *loop(void *arg)
{
  struct nub_progress *p = arg;
  uint64_t t0 = nub_plat_now_ns(), last_line = 0;
  char said[512] = "";

  pthread_mutex_lock(&p->lock);
  while (!p->stop) {
    struct timespec ts;
    uint64_t now;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 100000000;
    if (ts.tv_nsec >= 1000000000) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&p->cv, &p->lock, &ts);
    now = nub_plat_now_ns();
    if (p->stop || nub_plat_interrupted()) {
      /* after Ctrl-C the line goes at once: the error says the rest */
      clear(p);
      if (nub_plat_interrupted())
        break;
      continue;
    }
    /* quick installs finish before a line would be worth drawing */
    if (p->live && now - t0 > 200000000) {
      draw(p);
    } else if (p->lines && now - t0 >= 1000000000ull && now - last_line >= 1000000000ull) {
      char line[512];
      describe(p, line, sizeof(line));
      if (strcmp(line, said)) { /* only when something moved */
        printf("Progress: %s\n", line);
        fflush(stdout);
        snprintf(said, sizeof(said), "%s", line);
      }
      last_line = now;
    }
  }
  clear(p);
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

void nub_progress_download_done(struct nub_progress *p, const char *what)
{
  if (!(p->live || p->lines))
    return;
  pthread_mutex_lock(&p->lock);
  if (!strcmp(p->big, what))
    p->big[0] = '\0';
  pthread_mutex_unlock(&p->lock);
}

void nub_progress_bytes(struct nub_progress *p, const char *what, uint64_t so_far, size_t n)
{
  __atomic_add_fetch(&p->bytes, n, __ATOMIC_RELAXED);
  if (so_far < BIG_DOWNLOAD || !(p->live || p->lines))
    return;
  pthread_mutex_lock(&p->lock);
  if (!p->big[0] || !strcmp(p->big, what) || so_far > p->big_bytes) {
    snprintf(p->big, sizeof(p->big), "%s", what);
    p->big_bytes = so_far;
  }
  pthread_mutex_unlock(&p->lock);
}

void nub_progress_start(struct nub_progress *p, int reporter)
{
  memset(p, 0, sizeof(*p));
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->cv, NULL);
  p->silent = reporter == 2;
  p->live = reporter == 0 && nub_plat_isatty(2) && !nub_plat_getenv("CI");
  p->lines = (reporter == 0 || reporter == 1) && !p->live;
  if ((p->live || p->lines) && pthread_create(&p->thread, NULL, loop, p) == 0)
    p->running = true;
}

void nub_progress_stop(struct nub_progress *p)
{
  if (p->running) {
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    p->running = false;
  }
  nub_free(p->once);
  p->once = NULL;
  p->nonce = p->caponce = 0;
  for (size_t i = 0; i < p->nsaid; i++)
    nub_free(p->said[i]);
  nub_free(p->said);
  p->said = NULL;
  p->nsaid = p->capsaid = 0;
}

void nub_progress_add(struct nub_progress *p, size_t *field, size_t n)
{
  (void)p;
  __atomic_add_fetch(field, n, __ATOMIC_RELAXED);
}

void nub_progress_set(struct nub_progress *p, size_t *field, size_t v)
{
  (void)p;
  __atomic_store_n(field, v, __ATOMIC_RELAXED);
}

static void vwarn(struct nub_progress *p, const char *fmt, va_list ap)
{
  char *clean = nub_redact_vfmt(fmt, ap);

  pthread_mutex_lock(&p->lock);
  if (!p->silent) {
    clear(p);
    fprintf(stderr, "nub: warn: %s\n", clean);
  }
  if (p->keep) {
    NUB_GROW(p->said, p->capsaid, p->nsaid + 1);
    p->said[p->nsaid++] = clean;
    clean = NULL;
  }
  pthread_mutex_unlock(&p->lock);
  nub_free(clean);
}

void nub_progress_warn(struct nub_progress *p, const char *fmt, ...)
{
  va_list ap;

  if (p->silent && !p->keep)
    return;
  va_start(ap, fmt);
  vwarn(p, fmt, ap);
  va_end(ap);
}

bool nub_progress_warn_once(struct nub_progress *p, const char *key, const char *fmt, ...)
{
  unsigned char h[16];
  uint64_t k;
  bool seen = false;
  va_list ap;

  nub_quickhash(key, strlen(key), h);
  memcpy(&k, h, sizeof(k));
  pthread_mutex_lock(&p->lock);
  for (size_t i = 0; i < p->nonce && !seen; i++)
    seen = p->once[i] == k;
  if (!seen) {
    NUB_GROW(p->once, p->caponce, p->nonce + 1);
    p->once[p->nonce++] = k;
  }
  pthread_mutex_unlock(&p->lock);
  if (seen || (p->silent && !p->keep))
    return false;
  va_start(ap, fmt);
  vwarn(p, fmt, ap);
  va_end(ap);
  return !p->silent;
}
