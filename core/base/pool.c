/* pool.c - worker threads over a mutex/condvar queue. Idle time is reported
 * to diag as "starvation" spans so the critical-path report can say where
 * workers waited. */
#include "pool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "diag.h"
#include "nub_alloc.h"

struct job {
  nub_job_fn fn;
  void *arg;
  uint64_t prio, seq; /* higher prio first; equal ones in submission order */
};

struct forctx {
  nub_for_fn fn;
  void *ctx;
  size_t n;
  size_t next; /* atomic */
  size_t done; /* atomic */
};

struct nub_pool {
  pthread_mutex_t lock;
  pthread_cond_t cv_work, cv_idle;
  pthread_t *threads;
  int n;
  struct job *q; /* a binary heap */
  size_t len, cap;
  uint64_t seq;
  size_t running;
  bool stop;
  struct forctx *fc; /* the nub_pool_for in progress, if any */
  const char *name;
};

static void run_for(struct forctx *fc, int worker)
{
  for (;;) {
    size_t i = __atomic_fetch_add(&fc->next, 1, __ATOMIC_RELAXED);
    if (i >= fc->n)
      break;
    fc->fn(fc->ctx, i, worker);
    __atomic_fetch_add(&fc->done, 1, __ATOMIC_RELEASE);
  }
}

struct warg {
  struct nub_pool *p;
  int id;
};

static bool before(const struct job *a, const struct job *b)
{
  return a->prio != b->prio ? a->prio > b->prio : a->seq < b->seq;
}

/* The first job of the heap (p->len > 0, lock held). */
static struct job heap_pop(struct nub_pool *p)
{
  struct job top = p->q[0];
  size_t i = 0;

  p->q[0] = p->q[--p->len];
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < p->len && before(&p->q[l], &p->q[m]))
      m = l;
    if (r < p->len && before(&p->q[r], &p->q[m]))
      m = r;
    if (m == i)
      break;
    struct job t = p->q[i];
    p->q[i] = p->q[m];
    p->q[m] = t;
    i = m;
  }
  return top;
}

static void *worker_main(void *arg)
{
  struct warg *w = arg;
  struct nub_pool *p = w->p;
  int id = w->id;

  nub_free(w);
  if (NUB_DIAG_ON()) {
    char name[48];
    snprintf(name, sizeof(name), "worker %d", id);
    nub_diag_thread_name(name);
  }
  pthread_mutex_lock(&p->lock);
  for (;;) {
    struct job j;
    uint64_t idle0 = 0;

    if (NUB_DIAG_ON())
      idle0 = nub_plat_now_ns();
    while (!p->stop && !p->len && !p->fc)
      pthread_cond_wait(&p->cv_work, &p->lock);
    if (NUB_DIAG_ON()) {
      uint64_t t = nub_plat_now_ns();
      if (t - idle0 > 1000000) /* idle spans over 1 ms */
        nub_diag_event("starvation", p->name, idle0, t, NULL);
    }
    if (p->stop)
      break;
    if (p->fc) {
      struct forctx *fc = p->fc;
      p->running++;
      pthread_mutex_unlock(&p->lock);
      run_for(fc, id);
      pthread_mutex_lock(&p->lock);
      p->running--;
      if (p->fc == fc && __atomic_load_n(&fc->next, __ATOMIC_RELAXED) >= fc->n)
        pthread_cond_broadcast(&p->cv_idle);
      /* wait for the for-loop to be retired before looking again */
      while (p->fc == fc && !p->stop)
        pthread_cond_wait(&p->cv_work, &p->lock);
      continue;
    }
    j = heap_pop(p);
    p->running++;
    pthread_mutex_unlock(&p->lock);
    j.fn(j.arg, id);
    pthread_mutex_lock(&p->lock);
    p->running--;
    if (!p->len && !p->running)
      pthread_cond_broadcast(&p->cv_idle);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

struct nub_pool *nub_pool_new(int nthreads, const char *name)
{
  struct nub_pool *p = nub_calloc(1, sizeof(*p));

  if (nthreads < 0)
    nthreads = 0;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->cv_work, NULL);
  pthread_cond_init(&p->cv_idle, NULL);
  p->name = name;
  p->threads = nub_calloc((size_t)nthreads, sizeof(*p->threads));
  for (int i = 0; i < nthreads; i++) {
    struct warg *w = nub_malloc(sizeof(*w));
    w->p = p;
    w->id = i + 1;
    if (pthread_create(&p->threads[i], NULL, worker_main, w) != 0) {
      nub_free(w);
      break;
    }
    p->n++;
  }
  return p;
}

int nub_pool_size(const struct nub_pool *p) { return p->n + 1; }

void nub_pool_submit_prio(struct nub_pool *p, nub_job_fn fn, void *arg, uint64_t prio)
{
  size_t i;

  pthread_mutex_lock(&p->lock);
  NUB_GROW(p->q, p->cap, p->len + 1);
  i = p->len++;
  p->q[i] = (struct job){fn, arg, prio, p->seq++};
  while (i && before(&p->q[i], &p->q[(i - 1) / 2])) {
    struct job t = p->q[i];
    p->q[i] = p->q[(i - 1) / 2];
    p->q[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
  pthread_cond_signal(&p->cv_work);
  pthread_mutex_unlock(&p->lock);
}

void nub_pool_submit(struct nub_pool *p, nub_job_fn fn, void *arg)
{
  nub_pool_submit_prio(p, fn, arg, 0);
}

void nub_pool_drain(struct nub_pool *p)
{
  pthread_mutex_lock(&p->lock);
  while (p->len || p->running)
    pthread_cond_wait(&p->cv_idle, &p->lock);
  pthread_mutex_unlock(&p->lock);
}

void nub_pool_for(struct nub_pool *p, size_t n, nub_for_fn fn, void *ctx)
{
  struct forctx fc = {fn, ctx, n, 0, 0};

  if (n == 0)
    return;
  nub_pool_drain(p);
  pthread_mutex_lock(&p->lock);
  p->fc = &fc;
  pthread_cond_broadcast(&p->cv_work);
  pthread_mutex_unlock(&p->lock);
  run_for(&fc, 0);
  pthread_mutex_lock(&p->lock);
  while (__atomic_load_n(&fc.done, __ATOMIC_ACQUIRE) < n || p->running)
    pthread_cond_wait(&p->cv_idle, &p->lock);
  p->fc = NULL;
  pthread_cond_broadcast(&p->cv_work);
  pthread_mutex_unlock(&p->lock);
}

void nub_pool_free(struct nub_pool *p)
{
  if (!p)
    return;
  pthread_mutex_lock(&p->lock);
  p->stop = true;
  pthread_cond_broadcast(&p->cv_work);
  pthread_mutex_unlock(&p->lock);
  for (int i = 0; i < p->n; i++)
    pthread_join(p->threads[i], NULL);
  nub_free(p->threads);
  nub_free(p->q);
  pthread_cond_destroy(&p->cv_work);
  pthread_cond_destroy(&p->cv_idle);
  pthread_mutex_destroy(&p->lock);
  nub_free(p);
}


void nub_pool_load(struct nub_pool *p, size_t *busy, size_t *queued)
{
  pthread_mutex_lock(&p->lock);
  *busy = p->running;
  *queued = p->len;
  pthread_mutex_unlock(&p->lock);
}
