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

static void draw(struct nub_progress *p)
{
  fprintf(stderr, "\r\x1b[Kresolved %zu, fetched %zu/%zu, linked %zu/%zu",
          __atomic_load_n(&p->resolved, __ATOMIC_RELAXED),
          __atomic_load_n(&p->fetched, __ATOMIC_RELAXED),
          __atomic_load_n(&p->fetch_total, __ATOMIC_RELAXED),
          __atomic_load_n(&p->linked, __ATOMIC_RELAXED),
          __atomic_load_n(&p->link_total, __ATOMIC_RELAXED));
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
  uint64_t t0 = nub_plat_now_ns();

  pthread_mutex_lock(&p->lock);
  while (!p->stop) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 100000000;
    if (ts.tv_nsec >= 1000000000) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&p->cv, &p->lock, &ts);
    /* quick installs finish before a line would be worth drawing */
    if (!p->stop && nub_plat_now_ns() - t0 > 200000000)
      draw(p);
  }
  clear(p);
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

void nub_progress_start(struct nub_progress *p, int reporter)
{
  memset(p, 0, sizeof(*p));
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->cv, NULL);
  p->silent = reporter == 2;
  p->live = reporter == 0 && nub_plat_isatty(2) && !nub_plat_getenv("CI");
  if (p->live && pthread_create(&p->thread, NULL, loop, p) == 0)
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
