/* fetch.c - store lookups, then downloads into the store.
 *
 * Per download: the network thread appends body chunks to the job's queue;
 * the job goes to the worker pool when the body is complete. The worker
 * hashes the chunks (SRI), checks status and integrity, and only then
 * unpacks the tarball into the store (files as their entries end, the index
 * last); a failed check aborts with nothing of the tarball stored. */
#include "fetch.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "diag.h"
#include "extract.h"
#include "git.h"
#include "http.h"
#include "integrity.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "prepare.h"
#include "registry_url.h"
#include "strmap.h"
#include "url.h"

struct chunk {
  struct chunk *next;
  size_t len;
  char data[];
};

struct fetcher;

struct job {
  struct fetcher *f;
  struct job *next_all;
  struct nub_pkg *pkg;
  char what[256]; /* "name@version" */
  int attempt;
  char *get_url;  /* the project's URL with its credential (with_secret), or NULL */
  uint64_t received; /* bytes downloaded (this attempt's) */
  struct nub_http_req req;
  pthread_mutex_t lock;
  pthread_cond_t cv;
  struct chunk *head, *tail, *cur;
  size_t queued;
  uint64_t waiting; /* its share of fetcher.waiting */
  bool done, scheduled;
  struct nub_http_result res;
  struct job *next_deferred;
  bool counted; /* asked of the network: one of fetcher.outstanding */
  struct job *next_wait; /* fetcher.awaiting */
  /* worker side */
  struct nub_hasher h;
  struct nub_sri want, got; /* got is valid once digested */
  bool have_want;
  uint64_t bytes_in;
  uint64_t t_submit, t_first, t_wait_ns;
};

struct fetcher {
  struct nub_store *store;
  const struct nub_config *cfg;
  struct nub_pool *pool;
  struct nub_progress *prog;
  struct nub_http *http;
  bool own_http, offline, verify_all;
  char *const *secrets;
  size_t nsecrets;
  void (*on_stored)(void *ud, struct nub_pkg *p, int worker);
  void *on_stored_ud;
  pthread_mutex_t lock;
  pthread_cond_t cv;
  size_t pending, nfetch, cached, nmissing;
  struct nub_pkg *first_missing;
  struct job *jobs; /* every job, for freeing */
  bool cancel;
  int rc;
  struct nub_err err;
  uint64_t bytes;
  struct nub_extract_scratch *scratch; /* one per pool worker */
  int nscratch;
  /* bytes downloaded whole and waiting for a worker, and their peak (the
   * memory a fast network piles up in front of the unpacking) */
  uint64_t waiting, waiting_peak;
  struct job *deferred, *deferred_tail; /* downloads held back meanwhile */
  size_t outstanding; /* downloads asked for and not yet taken by a worker */
  /* downloads with no integrity to check them against (an old lockfile's
   * entries, allow-missing-integrity): said once at the end */
  size_t nunchecked;
  char first_unchecked[256];
  struct nub_strmap checkouts; /* resolved git identity -> a checkout (owned) */
  uint64_t held_peak; /* the most an extractor's buffers held */
  /* downloaded whole before the registry gave the integrity to check them
   * against (pkg->registry_integrity): they wait for it */
  struct job *awaiting;
  struct nub_strmap offered;   /* tarball URL -> its bytes (struct nub_buf *, owned) */
  size_t noffered;             /* how many were ever offered: most installs none */
};

/* A network faster than the unpacking piles whole tarballs up in memory
 * (53 MB of the large fixture's 63 MB at once, cold, on 2 cores; peak RSS
 * 232 MB against 125 MB bounded): new downloads wait while 6 per
 * connection (96 at network-concurrency's 16) are asked for and not yet
 * unpacking, or this much is downloaded and waiting. */
#define OUTSTANDING_PER_CONNECTION 6
#define WAITING_BUDGET (16u << 20)

static bool hold_back(const struct fetcher *f)
{
  size_t max = (size_t)(f->cfg->network_concurrency > 0 ? f->cfg->network_concurrency : 1) *
               OUTSTANDING_PER_CONNECTION;
  return !f->cancel && (f->outstanding >= max ||
                        __atomic_load_n(&f->waiting, __ATOMIC_RELAXED) >= WAITING_BUDGET);
}

/* ---- phase 1: what is already in the store ----------------------------- */

struct loadctx {
  struct nub_pkg **pkgs;
  struct nub_store *store;
  struct nub_progress *prog;
  bool verify;
  int *rc;
};

/* The stored package, when it is still what was imported; otherwise it is
 * dropped, said in one line, and marked to be fetched again over the
 * changed files. */
static int load_checked(struct nub_store *store, struct nub_progress *prog, bool verify,
                        struct nub_pkg *p)
{
  char why[600];
  int rc;

  if (p->tarball && !strncmp(p->tarball, NUB_LOCAL_DIR, strlen(NUB_LOCAL_DIR)))
    return -ENOENT; /* imported again: the directory may have changed */
  rc = nub_store_index_load(store, p->key, &p->index);
  if (rc < 0 || !verify || nub_store_check(store, p->index, why, sizeof(why)) == 0)
    return rc;
  nub_progress_warn(prog, "the store's copy of %s@%s is damaged: %s (an edit through a "
                    "hard-linked node_modules?); fetching it again", p->name, p->version, why);
  p->distrust_ns = p->index->stored_ns ? p->index->stored_ns : 1;
  nub_index_free(p->index);
  p->index = NULL;
  nub_store_index_remove(store, p->key);
  return -NUB_ESTORE;
}

static void load_one(void *vctx, size_t i, int worker)
{
  struct loadctx *c = vctx;
  struct nub_pkg *p = c->pkgs[i];

  (void)worker;
  if (p->index)
    return;
  c->rc[i] = load_checked(c->store, c->prog, c->verify, p);
}

/* ---- the job ------------------------------------------------------------ */

static void job_fail(struct fetcher *f, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void worker_run(void *arg, int worker);

/* Once cancelled, the downloads waiting for their integrity go to the
 * workers, which fail them. */
static void release_awaiting(struct fetcher *f)
{
  struct job *j;

  pthread_mutex_lock(&f->lock);
  j = f->awaiting;
  f->awaiting = NULL;
  pthread_mutex_unlock(&f->lock);
  while (j) {
    struct job *next = j->next_wait;
    nub_pool_submit(f->pool, worker_run, j);
    j = next;
  }
}

static void job_fail(struct fetcher *f, int rc, const char *fmt, ...)
{
  va_list ap;

  pthread_mutex_lock(&f->lock);
  if (!f->rc) {
    va_start(ap, fmt);
    nub_err_vset(&f->err, rc, fmt, ap);
    va_end(ap);
    f->rc = rc;
    f->cancel = true;
  }
  pthread_mutex_unlock(&f->lock);
  release_awaiting(f);
}

static void job_finished(struct job *j)
{
  struct fetcher *f = j->f;

  pthread_mutex_lock(&f->lock);
  f->pending--;
  pthread_cond_broadcast(&f->cv);
  pthread_mutex_unlock(&f->lock);
}

static void free_chunks(struct job *j)
{
  struct chunk *c = j->head;
  while (c) {
    struct chunk *n = c->next;
    nub_free(c);
    c = n;
  }
  nub_free(j->cur);
  j->head = j->tail = j->cur = NULL;
  j->queued = 0;
}

static void worker_run(void *arg, int worker);

/* The body is queued as it comes; the worker starts when it is complete,
 * since a tarball is unpacked only once it is whole and verified (a worker
 * started earlier would only wait on the network). */
static bool on_body(void *ud, const char *p, size_t n)
{
  struct job *j = ud;
  struct chunk *c;

  if (__atomic_load_n(&j->f->cancel, __ATOMIC_RELAXED))
    return false;
  c = nub_malloc(sizeof(*c) + n);
  c->next = NULL;
  c->len = n;
  memcpy(c->data, p, n);
  pthread_mutex_lock(&j->lock);
  if (!j->t_first)
    j->t_first = nub_plat_now_ns();
  if (j->tail)
    j->tail->next = c;
  else
    j->head = c;
  j->tail = c;
  j->queued += n;
  j->received += n;
  pthread_mutex_unlock(&j->lock);
  nub_progress_bytes(j->f->prog, j->what, j->received, n);
  return true;
}

static void on_done(void *ud, const struct nub_http_result *r)
{
  struct job *j = ud;
  bool schedule = false;
  size_t size;

  if (j->received >= (4u << 20))
    nub_progress_download_done(j->f->prog, j->what);
  pthread_mutex_lock(&j->lock);
  size = j->queued;
  j->res = *r;
  j->done = true;
  if (!j->scheduled)
    schedule = j->scheduled = true;
  pthread_cond_signal(&j->cv);
  pthread_mutex_unlock(&j->lock);
  /* Biggest first: the last tarballs to finish downloading are the big
   * ones, and started last they would leave one worker busy at the end
   * while the others idle. */
  if (schedule) {
    uint64_t now = __atomic_add_fetch(&j->f->waiting, size, __ATOMIC_RELAXED);
    uint64_t peak = __atomic_load_n(&j->f->waiting_peak, __ATOMIC_RELAXED);
    while (now > peak && !__atomic_compare_exchange_n(&j->f->waiting_peak, &peak, now, false,
                                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      ;
    j->waiting = size;
    nub_pool_submit_prio(j->f->pool, worker_run, j, size);
  }
}

/* A tarball on disk ("file:/abs/x-1.0.0.tgz", from a file: dependency):
 * never fetched over the network, never retried (what is on disk does not
 * change between attempts). */
static bool is_local(const struct nub_pkg *p)
{
  return p->tarball && !strncmp(p->tarball, "file:", 5);
}

/* A directory of the user's (NUB_LOCAL_DIR): imported on every install,
 * never from the network. */
static bool is_local_dir(const struct nub_pkg *p)
{
  return p->tarball && !strncmp(p->tarball, NUB_LOCAL_DIR, strlen(NUB_LOCAL_DIR));
}

/* Either kind of what is on this machine already: --offline allows it. */
static bool on_disk(const struct nub_pkg *p)
{
  return is_local(p) || is_local_dir(p);
}

/* A git dependency ("git+<url>#<commit>"): cloned with the system's git,
 * checked out at its commit and imported as a directory, on a worker. */
static void job_error(struct job *j, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool is_git(const struct nub_pkg *p)
{
  return nub_git_form_of(p->tarball) != NUB_GIT_NOT;
}

static void drop_body(void *b)
{
  if (b) {
    nub_buf_release(b);
    nub_free(b);
  }
}

static void drop_checkout(void *dir)
{
  if (dir) {
    nub_plat_rm_rf(dir);
    nub_free(dir);
  }
}

/* A directory into the store as the job's package: what npm pack would
 * take of it (packed), or every file. */
static int import_dir(struct job *j, const char *dir, bool packed, struct nub_err *err)
{
  struct nub_import *im = NULL;
  struct nub_extract_stats st;
  int rc = nub_import_begin(j->f->store, &im, err);

  memset(&st, 0, sizeof(st));
  if (rc < 0)
    return rc;
  rc = packed ? nub_import_packed(im, dir, j->what, &st, err)
              : nub_import_directory(im, dir, j->what, &st, err);
  if (rc < 0) {
    nub_import_abort(im);
    return rc;
  }
  return nub_import_commit(im, j->pkg->key, &j->pkg->index, err);
}

/* The end of a job that imported a directory: stored, or its error. */
static void dir_done(struct job *j, int rc, const struct nub_err *err)
{
  if (rc < 0) {
    job_error(j, rc, "%s", err->msg);
    return;
  }
  j->pkg->imported = true;
  nub_progress_add(j->f->prog, &j->f->prog->fetched, 1);
  nub_diag_mark("stored", j->what);
  job_finished(j);
}

/* The project's spec for the repository or tarball at url (written to
 * files without its credential), with the credential; NULL when it gave
 * none. Caller frees. */
static char *with_secret(const struct fetcher *f, const char *url, bool git)
{
  for (size_t i = 0; i < f->nsecrets; i++) {
    struct nub_gitspec g;
    struct nub_err e;
    char *u = NULL, *clean;
    bool same;
    if (git) {
      if (!nub_git_is_spec(f->secrets[i]) || nub_git_parse(f->secrets[i], &g, &e) < 0)
        continue;
      u = nub_strdup(g.url);
      nub_gitspec_release(&g);
    } else {
      u = nub_strdup(f->secrets[i]);
    }
    clean = nub_url_strip_userinfo(u);
    same = clean && !strcmp(clean, url);
    nub_free(clean);
    if (same)
      return u;
    nub_free(u);
  }
  return NULL;
}

static void git_job(void *arg, int worker)
{
  struct job *j = arg;
  struct fetcher *f = j->f;
  struct nub_err err;
  char commit[41], *url = NULL, *dir;
  enum nub_git_form form;
  bool packed;
  int rc;

  (void)worker;
  nub_err_clear(&err);
  if (!nub_git_split_resolved(j->pkg->tarball, &url, commit)) {
    job_error(j, -NUB_ESPEC, "%s: '%s' is not a git commit", j->what, j->pkg->tarball);
    return;
  }
  pthread_mutex_lock(&f->lock);
  dir = nub_strmap_get(&f->checkouts, j->pkg->tarball);
  if (dir)
    nub_strmap_put(&f->checkouts, j->pkg->tarball, NULL); /* taken */
  pthread_mutex_unlock(&f->lock);
  if (dir) {
    rc = 0; /* the resolver's checkout of this commit */
  } else {
    char *cred = with_secret(f, url, true), *tmp = nub_asprintf("%s/tmp", f->store->root);
    rc = nub_git_checkout_new(tmp, cred ? cred : url, commit, j->what, commit, &dir, &err);
    nub_free(tmp);
    nub_free(cred);
  }
  form = nub_git_form_of(j->pkg->tarball);
  packed = form == NUB_GIT_PACKED ||
           (rc == 0 && form == NUB_GIT_AS_YARN && nub_prepare_wanted(dir, NUB_PREPARE_YARN1));
  if (rc == 0 && packed && nub_prepare_wanted(dir, NUB_PREPARE_NPM)) {
    if (j->pkg->prepare)
      rc = nub_prepare_git(dir, j->what, j->pkg->tarball, f->store->root, f->offline, &err);
    else
      j->pkg->prepare_blocked = true;
  }
  if (rc == 0)
    rc = import_dir(j, dir, packed, &err);
  if (dir)
    nub_plat_rm_rf(dir);
  nub_free(dir);
  nub_free(url);
  dir_done(j, rc, &err);
}

/* A directory of the user's, imported as it is now, on a worker. */
static void local_dir_job(void *arg, int worker)
{
  struct job *j = arg;
  struct nub_err err;

  (void)worker;
  nub_err_clear(&err);
  dir_done(j, import_dir(j, j->pkg->tarball + strlen(NUB_LOCAL_DIR), false, &err), &err);
}

/* A local tarball takes the same path as a download: its bytes, then the
 * worker. */
static void read_local(struct job *j)
{
  struct nub_http_result r;
  char *data = NULL;
  size_t len = 0;
  int rc = nub_plat_read_file_at(NUB_PLAT_CWD, j->pkg->tarball + 5, 1u << 30, &data, &len);

  memset(&r, 0, sizeof(r));
  r.retry_after_s = -1;
  if (rc < 0) {
    r.cls = rc == -ENOENT ? NUB_HTTP_NOTFOUND : NUB_HTTP_FAIL;
    snprintf(r.error, sizeof(r.error), "%s", nub_strerror(rc));
  } else {
    r.status = 200;
    r.bytes = len;
    on_body(j, data, len);
  }
  nub_free(data);
  on_done(j, &r);
}

static void submit(struct job *j, uint64_t delay_ms)
{
  memset(&j->req, 0, sizeof(j->req));
  if (!j->get_url && j->f->nsecrets && j->pkg->tarball)
    j->get_url = with_secret(j->f, j->pkg->tarball, false);
  j->req.url = j->get_url ? j->get_url : j->pkg->tarball;
  j->req.accept = "application/octet-stream";
  j->req.on_body = on_body;
  j->req.on_done = on_done;
  j->req.ud = j;
  j->req.not_before_ns = delay_ms ? nub_plat_now_ns() + delay_ms * 1000000ull : 0;
  j->done = j->scheduled = false;
  j->received = 0;
  j->t_submit = nub_plat_now_ns();
  j->t_first = 0;
  if (is_local(j->pkg)) {
    read_local(j);
    return;
  }
  if (is_git(j->pkg)) {
    nub_pool_submit(j->f->pool, git_job, j);
    return;
  }
  if (is_local_dir(j->pkg)) {
    nub_pool_submit(j->f->pool, local_dir_job, j);
    return;
  }
  if (j->pkg->tarball && __atomic_load_n(&j->f->noffered, __ATOMIC_ACQUIRE)) {
    struct nub_buf *b;
    pthread_mutex_lock(&j->f->lock);
    b = nub_strmap_put(&j->f->offered, j->pkg->tarball, NULL); /* taken */
    pthread_mutex_unlock(&j->f->lock);
    if (b) { /* downloaded while resolving: the same path as a download */
      struct nub_http_result r;
      memset(&r, 0, sizeof(r));
      r.retry_after_s = -1;
      r.status = 200;
      r.bytes = b->len;
      on_body(j, b->data ? b->data : "", b->len);
      drop_body(b);
      on_done(j, &r);
      return;
    }
  }
  {
    /* decided and handed to the network under the lock, so that a cancel
     * (which stops the client under it) cannot come in between */
    struct fetcher *f = j->f;
    bool gone;
    pthread_mutex_lock(&f->lock);
    gone = f->cancel || !f->http;
    if (!gone && hold_back(f)) {
      j->next_deferred = NULL;
      if (f->deferred_tail)
        f->deferred_tail->next_deferred = j;
      else
        f->deferred = j;
      f->deferred_tail = j;
    } else if (!gone) {
      f->outstanding++;
      j->counted = true;
      nub_http_submit(f->http, &j->req);
    }
    pthread_mutex_unlock(&f->lock);
    if (gone)
      job_error(j, -NUB_EINTR, "interrupted");
  }
}

/* Downloads held back, started while the waiting bytes are under budget
 * again (every one, when the fetch is cancelled: they fail at once). */
static void kick(struct fetcher *f)
{
  for (;;) {
    struct job *j;
    bool gone = false;
    pthread_mutex_lock(&f->lock);
    j = f->deferred;
    if (j && (!hold_back(f) || f->cancel || !f->http)) {
      f->deferred = j->next_deferred;
      if (!f->deferred)
        f->deferred_tail = NULL;
      gone = f->cancel || !f->http;
      if (!gone) {
        f->outstanding++;
        j->counted = true;
        nub_http_submit(f->http, &j->req);
      }
    } else {
      j = NULL;
    }
    pthread_mutex_unlock(&f->lock);
    if (!j)
      return;
    if (gone)
      job_error(j, -NUB_EINTR, "interrupted");
  }
}

/* The extractor pulls the compressed stream through here. */
static long pull(void *ud, const void **buf)
{
  struct job *j = ud;
  uint64_t t0 = 0;

  nub_free(j->cur);
  j->cur = NULL;
  pthread_mutex_lock(&j->lock);
  if (!j->head && !j->done)
    t0 = nub_plat_now_ns();
  while (!j->head && !j->done)
    pthread_cond_wait(&j->cv, &j->lock);
  if (t0)
    j->t_wait_ns += nub_plat_now_ns() - t0;
  if (j->head) {
    struct chunk *c = j->head;
    j->head = c->next;
    if (!j->head)
      j->tail = NULL;
    j->queued -= c->len;
    pthread_mutex_unlock(&j->lock);
    j->cur = c;
    *buf = c->data;
    return (long)c->len;
  }
  pthread_mutex_unlock(&j->lock);
  if (j->res.cls != NUB_HTTP_OK)
    return -NUB_ENETWORK;
  return 0;
}

/* The whole body, downloaded, hashed where it lies (a tarball whose
 * digest is wrong is never unpacked, so none of its bytes reach the store);
 * the unpacking then takes the chunks, freeing each as it goes. */
static void digest(struct job *j)
{
  j->got.algo = j->have_want ? j->want.algo : NUB_HASH_SHA512;
  pthread_mutex_lock(&j->lock);
  for (struct chunk *c = j->head; c; c = c->next) {
    nub_hasher_update(&j->h, c->data, c->len);
    j->bytes_in += c->len;
  }
  pthread_mutex_unlock(&j->lock);
  nub_hasher_final(&j->h, j->got.digest, &j->got.len);
  nub_hasher_release(&j->h);
}

/* A package that cannot be fetched fails the install at once, unless it
 * may be optional: then the failure is recorded on the package and the
 * caller, who knows the final plan, decides (plan.c). */
static void record_failure(struct nub_pkg *p, int rc, const char *msg)
{
  p->failed = true;
  p->fail_code = rc;
  nub_free(p->fail_msg);
  p->fail_msg = nub_strdup(msg);
}

static void job_error(struct job *j, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void job_error(struct job *j, int rc, const char *fmt, ...)
{
  char msg[1024];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  free_chunks(j);
  if (j->pkg->optional && rc != -NUB_EINTR && !j->f->cancel) {
    record_failure(j->pkg, rc, msg);
  } else {
    job_fail(j->f, rc, "%s", msg);
    j->pkg->fail_code = rc; /* (what failed, for nub_plan_fetch to mend) */
  }
  job_finished(j);
}

/* Decide between retry and failure for an attempt that went wrong. */
static void retry_or_fail(struct job *j, int rc, bool retryable, double retry_after,
                          const char *why)
{
  struct fetcher *f = j->f;
  int max = f->cfg->fetch_retries;

  free_chunks(j);
  if (retryable && j->attempt <= max && !f->cancel && !nub_plat_interrupted()) {
    uint64_t ms = nub_http_retry_wait(f->cfg, f->prog, j->pkg->tarball, why, j->attempt, max,
                                      retry_after);
    j->attempt++;
    submit(j, ms);
    return;
  }
  if (retryable && j->attempt > 1)
    job_error(j, rc, "cannot fetch %s from %s: %s (after %d attempts)", j->what,
              j->pkg->tarball, why, j->attempt);
  else
    job_error(j, rc, "cannot fetch %s from %s: %s", j->what, j->pkg->tarball, why);
}

static void report(struct job *j, const struct nub_extract_stats *st, uint64_t t0,
                   uint64_t fresh, uint64_t present)
{
  struct nub_jw w;
  uint64_t t1 = nub_plat_now_ns();

  nub_jw_begin(&w);
  nub_jw_str(&w, "pkg", j->what);
  nub_jw_int(&w, "bytes", (long long)j->bytes_in);
  nub_jw_int(&w, "unpacked", (long long)st->bytes);
  nub_jw_int(&w, "files", (long long)st->files);
  nub_jw_int(&w, "http", j->res.http_version);
  nub_jw_int(&w, "status", j->res.status);
  nub_jw_int(&w, "retries", j->attempt - 1);
  nub_jw_num(&w, "net_wait_ms", (double)j->t_wait_ns / 1e6);
  nub_jw_num(&w, "cpu_ms", (double)(t1 - t0 - j->t_wait_ns) / 1e6);
  nub_diag_event("fetch", "tarball", j->t_submit, t1, nub_jw_end(&w));
  nub_jw_begin(&w);
  nub_jw_str(&w, "pkg", j->what);
  nub_jw_int(&w, "files", (long long)st->files);
  nub_jw_int(&w, "bytes", (long long)st->bytes);
  nub_jw_int(&w, "new", (long long)fresh);
  nub_jw_int(&w, "present", (long long)present);
  nub_diag_event("store", "import", t0, t1, nub_jw_end(&w));
}

/* A tarball that unpacks to more than this streams through fixed windows
 * (zlib, then tar's), so no worker holds a package whole, and big ones
 * unpack side by side with no budget to wait for. Smaller ones are
 * unpacked whole by libdeflate into a buffer the worker keeps (extract.c's
 * KEEP_OUT_MAX): 2.5 times zlib's speed there, while into a fresh buffer
 * the first touch of its pages costs more than that (87 MB: libdeflate 400
 * ms cold, 85 ms warm; zlib through a window 230 ms). */
#define STREAM_ABOVE (4u << 20)

/* What the downloaded body unpacks to: gzip's ISIZE (the last four bytes)
 * when it is larger than the body, else the body's size. Only an estimate:
 * the decoder never trusts it. */
static uint64_t unpacked_guess(const struct job *j)
{
  uint64_t isize = 0;

  if (j->tail && j->tail->len >= 4)
    isize = nub_le32((const unsigned char *)j->tail->data + j->tail->len - 4);
  return isize > j->queued ? isize : j->queued;
}

static void unpack_job(void *arg, int worker)
{
  struct job *j = arg;
  struct fetcher *f = j->f;
  struct nub_import *im = NULL;
  struct nub_extract_stats st;
  struct nub_err err;
  struct nub_sri *want = &j->want, *got = &j->got;
  const struct nub_http_result *r = &j->res;
  struct nub_extract_scratch *sc;
  bool have_want;
  int rc;
  uint64_t t0 = nub_plat_now_ns(), fresh = 0, present = 0;
  char why[384];

  nub_err_clear(&err);
  memset(&st, 0, sizeof(st));
  __atomic_sub_fetch(&f->waiting, j->waiting, __ATOMIC_RELAXED);
  j->waiting = 0;
  pthread_mutex_lock(&f->lock);
  if (j->counted) { /* a local tarball never was */
    f->outstanding--;
    j->counted = false;
  }
  pthread_mutex_unlock(&f->lock);
  kick(f);
  have_want = j->have_want =
      j->pkg->integrity && nub_sri_parse(want, j->pkg->integrity) == 0;
  nub_hasher_init(&j->h, have_want ? want->algo : NUB_HASH_SHA512);
  j->bytes_in = 0;
  j->t_wait_ns = 0;
  if (f->cancel) {
    nub_hasher_release(&j->h);
    job_error(j, -NUB_EINTR, "interrupted");
    return;
  }
  digest(j);

  if (r->cls != NUB_HTTP_OK || r->curl_code) {
    if (f->cancel) {
      job_error(j, -NUB_EINTR, "interrupted");
      return;
    }
    if (is_local(j->pkg)) {
      job_error(j, r->cls == NUB_HTTP_NOTFOUND ? -NUB_ENOTFOUND : -EIO,
                "%s: cannot read %s: %s", j->what, j->pkg->tarball + 5, r->error);
    } else if (r->cls == NUB_HTTP_NOTFOUND) {
      job_error(j, -NUB_ENOTFOUND, "%s not found at %s (HTTP %ld)", j->what,
                j->pkg->tarball, r->status);
    } else if (r->cls == NUB_HTTP_AUTH) {
      char *cred = nub_config_auth_for(f->cfg, j->pkg->tarball);
      job_error(j, -NUB_EAUTH, "the registry refused %s (GET %s: HTTP %ld): %s", j->what,
                j->pkg->tarball, r->status,
                r->status == 403 ? "the token in .npmrc for it authenticates a user that may "
                                   "not read the package"
                : cred ? "it does not accept the token in .npmrc for it (expired or revoked?)"
                       : "it wants a login; set //<host>/:_authToken for it in .npmrc");
      nub_free(cred);
    } else {
      snprintf(why, sizeof(why), "%s", r->error[0] ? r->error : "transfer failed");
      retry_or_fail(j, -NUB_ENETWORK, r->cls == NUB_HTTP_RETRY, r->retry_after_s, why);
    }
    return;
  }
  /* integrity first, so a corrupted transfer is reported as what it is,
   * whatever it would do to gzip or tar */
  if (have_want && !nub_sri_equal(want, got)) {
    char g[128];
    nub_sri_format(got, g, sizeof(g));
    snprintf(why, sizeof(why), "integrity mismatch: expected %s, got %s",
             j->pkg->integrity, g);
    if (j->attempt <= f->cfg->fetch_retries && !f->cancel && !is_local(j->pkg)) {
      retry_or_fail(j, -NUB_EINTEGRITY, true, -1, why);
      return;
    }
    job_error(j, -NUB_EINTEGRITY,
              "integrity mismatch for %s: expected %s, got %s; the tarball was not "
              "stored", j->what, j->pkg->integrity, g);
    return;
  }
  nub_import_begin(f->store, &im, &err);
  if (j->pkg->distrust_ns)
    nub_import_distrust(im, j->pkg->distrust_ns);
  if (j->pkg->as_tree)
    nub_import_as_tree(im, j->pkg->name);
  sc = worker < f->nscratch ? &f->scratch[worker] : NULL;
  if (unpacked_guess(j) > STREAM_ABOVE) {
    rc = nub_extract_stream(im, pull, j, j->what, NULL, sc, &st, &err);
  } else {
    if (sc) {
      /* the body is all here: the extractor's copy of it sized once, not
       * by doubling (half of it unused, for a big one) */
      nub_buf_reset(&sc->in);
      nub_buf_reserve(&sc->in, j->queued);
    }
    rc = nub_extract(im, pull, j, j->what, NULL, NULL, sc, &st, &err);
  }
  {
    uint64_t peak = __atomic_load_n(&f->held_peak, __ATOMIC_RELAXED);
    while (st.held > peak && !__atomic_compare_exchange_n(&f->held_peak, &peak, st.held, false,
                                                          __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      ;
  }
  if (rc < 0) {
    /* With a matching hash the bytes are the publisher's, so a tarball that
     * does not unpack is the package's fault. Without a known hash it may be
     * a corrupted transfer: retry it, unless it is a policy refusal. */
    bool final = have_want || st.refused || is_local(j->pkg);
    nub_import_abort(im);
    if (f->cancel)
      job_error(j, -NUB_EINTR, "interrupted");
    else if (final)
      job_error(j, rc, "%s", err.msg);
    else
      retry_or_fail(j, rc, true, -1, err.msg);
    return;
  }
  nub_diag_mark("fetched", j->what);
  if (NUB_DIAG_ON())
    nub_import_counts(im, &fresh, &present);
  rc = nub_import_commit(im, j->pkg->key, &j->pkg->index, &err);
  if (rc < 0) {
    job_error(j, rc, "%s: %s", j->what, err.msg);
    return;
  }
  j->pkg->imported = true;
  free_chunks(j);
  pthread_mutex_lock(&f->lock);
  f->bytes += j->bytes_in;
  pthread_mutex_unlock(&f->lock);
  nub_progress_add(f->prog, &f->prog->fetched, 1);
  nub_diag_mark("stored", j->what);
  if (NUB_DIAG_ON())
    report(j, &st, t0, fresh, present);
  if (f->on_stored && !__atomic_load_n(&f->cancel, __ATOMIC_RELAXED))
    f->on_stored(f->on_stored_ud, j->pkg, worker);
  job_finished(j);
}

static void worker_run(void *arg, int worker)
{
  struct job *j = arg;
  struct fetcher *f = j->f;

  if (j->pkg->registry_integrity) {
    pthread_mutex_lock(&f->lock);
    if (!j->pkg->integrity_known && !f->cancel) {
      /* nub_fetch_set_integrity sends it on */
      j->next_wait = f->awaiting;
      f->awaiting = j;
      pthread_mutex_unlock(&f->lock);
      return;
    }
    pthread_mutex_unlock(&f->lock);
  }

  unpack_job(j, worker);
}

int nub_fetch_begin(struct nub_fetch **out, struct nub_store *store,
                    const struct nub_config *cfg, struct nub_pool *pool,
                    struct nub_progress *prog, const struct nub_fetch_opts *o,
                    struct nub_http *http, struct nub_err *err)
{
  struct fetcher *f = nub_calloc(1, sizeof(*f));

  (void)err;
  f->store = store;
  f->cfg = cfg;
  f->pool = pool;
  f->nscratch = nub_pool_size(pool);
  f->scratch = nub_calloc((size_t)f->nscratch + 1, sizeof(*f->scratch));
  f->prog = prog;
  f->offline = o->offline;
  f->verify_all = o->verify_all && cfg->verify_store;
  f->on_stored = o->on_stored;
  f->on_stored_ud = o->on_stored_ud;
  f->secrets = o->secrets;
  f->nsecrets = o->nsecrets;
  f->http = http;
  f->own_http = http == NULL;
  pthread_mutex_init(&f->lock, NULL);
  pthread_cond_init(&f->cv, NULL);
  nub_err_clear(&f->err);
  *out = (struct nub_fetch *)f;
  return 0;
}

static void start_job(struct fetcher *f, struct nub_pkg *p)
{
  struct job *j = nub_calloc(1, sizeof(*j));

  j->f = f;
  j->pkg = p;
  j->attempt = 1;
  snprintf(j->what, sizeof(j->what), "%s@%s", p->name, p->version);
  pthread_mutex_init(&j->lock, NULL);
  pthread_cond_init(&j->cv, NULL);
  pthread_mutex_lock(&f->lock);
  j->next_all = f->jobs;
  f->jobs = j;
  f->pending++;
  f->nfetch++;
  if (!p->integrity && !p->registry_integrity && !on_disk(p) && !is_git(p) &&
      !f->nunchecked++)
    snprintf(f->first_unchecked, sizeof(f->first_unchecked), "%s", j->what);
  pthread_mutex_unlock(&f->lock);
  nub_progress_add(f->prog, &f->prog->fetch_total, 1);
  nub_diag_mark("queued", j->what);
  submit(j, 0);
}

size_t nub_fetch_probe(struct nub_fetch *fs, struct nub_pkg **pkgs, size_t n)
{
  struct fetcher *f = (struct fetcher *)fs;
  struct nub_pkg **todo = nub_malloc(sizeof(*todo) * (n + 1));
  struct loadctx lc;
  size_t m = 0, hits = 0;

  /* the store's indexes first, read on every worker: on a warm install
   * this is the whole fetch phase, and one thread reading 1,234 of them
   * took 10-50 ms */
  for (size_t i = 0; i < n; i++)
    if (!pkgs[i]->index && !pkgs[i]->fetch_state)
      todo[m++] = pkgs[i];
  lc.pkgs = todo;
  lc.store = f->store;
  lc.prog = f->prog;
  lc.verify = f->verify_all;
  lc.rc = nub_calloc(m + 1, sizeof(*lc.rc));
  nub_pool_for(f->pool, m, load_one, &lc);
  for (size_t i = 0; i < m; i++) {
    if (todo[i]->index) {
      todo[i]->fetch_state = 1;
      hits++;
    }
  }
  pthread_mutex_lock(&f->lock);
  f->cached += hits;
  pthread_mutex_unlock(&f->lock);
  nub_free(lc.rc);
  nub_free(todo);
  return hits;
}

void nub_fetch_add_all(struct nub_fetch *fs, struct nub_pkg **pkgs, size_t n)
{
  nub_fetch_probe(fs, pkgs, n);
  for (size_t i = 0; i < n; i++)
    if (!pkgs[i]->index)
      nub_fetch_add(fs, pkgs[i]); /* (loads again: -ENOENT is cheap) */
}

/* Queue one package; a miss in the store starts its download. */
void nub_fetch_add(struct nub_fetch *fs, struct nub_pkg *p)
{
  struct fetcher *f = (struct fetcher *)fs;
  int rc;

  if (p->index || p->fetch_state)
    return;
  p->fetch_state = 1;
  rc = load_checked(f->store, f->prog, f->verify_all, p);
  if (rc == 0) {
    pthread_mutex_lock(&f->lock);
    f->cached++;
    pthread_mutex_unlock(&f->lock);
    return;
  }
  if (rc == -NUB_ESTORE) /* unreadable: fetch over it */
    nub_store_index_remove(f->store, p->key);
  if (p->integrity) {
    struct nub_sri sri;
    if (nub_sri_parse(&sri, p->integrity) < 0) {
      /* never download unverified what the lockfile meant to pin */
      pthread_mutex_lock(&f->lock);
      if (!f->rc)
        f->rc = nub_err_set(&f->err, -NUB_EINTEGRITY,
                            "%s@%s has an unusable integrity value '%s' in the lockfile",
                            p->name, p->version, p->integrity);
      pthread_mutex_unlock(&f->lock);
      return;
    }
  }
  if (f->offline && !on_disk(p)) {
    if (p->optional) {
      /* missing offline: judged like a failed fetch */
      char msg[600];
      snprintf(msg, sizeof(msg), "%s@%s is not in the store at %s, and --offline forbids "
               "the network", p->name, p->version, f->store->root);
      record_failure(p, -NUB_EOFFLINE, msg);
      return;
    }
    pthread_mutex_lock(&f->lock);
    if (!f->nmissing++)
      f->first_missing = p;
    pthread_mutex_unlock(&f->lock);
    return;
  }
  pthread_mutex_lock(&f->lock);
  if (!f->http && !on_disk(p) && !is_git(p)) {
    struct nub_err e;
    if (nub_http_start(&f->http, f->cfg, &e) < 0) {
      if (!f->rc) {
        f->rc = e.code;
        f->err = e;
      }
      pthread_mutex_unlock(&f->lock);
      return;
    }
    f->own_http = true;
  }
  pthread_mutex_unlock(&f->lock);
  start_job(f, p);
}

void nub_fetch_set_integrity(struct nub_fetch *fs, struct nub_pkg *p, const char *integrity)
{
  struct fetcher *f = (struct fetcher *)fs;
  struct job *j = NULL, **at;

  pthread_mutex_lock(&f->lock);
  nub_free(p->integrity);
  p->integrity = integrity ? nub_strdup(integrity) : NULL;
  p->integrity_known = true;
  if (!integrity && !f->nunchecked++)
    snprintf(f->first_unchecked, sizeof(f->first_unchecked), "%s@%s", p->name, p->version);
  for (at = &f->awaiting; *at; at = &(*at)->next_wait)
    if ((*at)->pkg == p) {
      j = *at;
      *at = j->next_wait;
      break;
    }
  pthread_mutex_unlock(&f->lock);
  if (j)
    nub_pool_submit(f->pool, worker_run, j);
}

void nub_fetch_cancel(struct nub_fetch *fs, const struct nub_err *why)
{
  struct fetcher *f = (struct fetcher *)fs;

  pthread_mutex_lock(&f->lock);
  if (!f->rc) {
    f->rc = why->code;
    f->err = *why;
  }
  f->cancel = true;
  pthread_mutex_unlock(&f->lock);
  kick(f);
  release_awaiting(f);
}

void nub_fetch_use_http(struct nub_fetch *fs, struct nub_http *http)
{
  struct fetcher *f = (struct fetcher *)fs;

  pthread_mutex_lock(&f->lock);
  if (!f->http) {
    f->http = http;
    f->own_http = false;
  }
  pthread_mutex_unlock(&f->lock);
}

void nub_fetch_offer_checkout(struct nub_fetch *fs, const char *resolved, char *dir)
{
  struct fetcher *f = (struct fetcher *)fs;
  char *was;

  pthread_mutex_lock(&f->lock);
  was = nub_strmap_put(&f->checkouts, resolved, dir);
  pthread_mutex_unlock(&f->lock);
  drop_checkout(was);
}

void nub_fetch_offer_tarball(struct nub_fetch *fs, const char *url, struct nub_buf *body)
{
  struct fetcher *f = (struct fetcher *)fs;
  struct nub_buf *b = nub_malloc(sizeof(*b));

  *b = *body; /* moved */
  memset(body, 0, sizeof(*body));
  pthread_mutex_lock(&f->lock);
  b = nub_strmap_put(&f->offered, url, b);
  __atomic_add_fetch(&f->noffered, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&f->lock);
  drop_body(b); /* one offered before for the same URL */
}

int nub_fetch_end(struct nub_fetch *fs, struct nub_fetch_result *res, struct nub_err *err)
{
  struct fetcher *f = (struct fetcher *)fs;
  int rc = 0;

  pthread_mutex_lock(&f->lock);
  while (f->pending) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 1;
    pthread_cond_timedwait(&f->cv, &f->lock, &ts);
    if (nub_plat_interrupted() && !f->cancel) {
      struct nub_http *h = f->own_http ? f->http : NULL;
      f->cancel = true;
      if (!f->rc) {
        f->rc = -NUB_EINTR;
        nub_err_set(&f->err, -NUB_EINTR, "interrupted");
      }
      /* abort the transfers now rather than wait them out, and fail the
       * ones held back */
      pthread_mutex_unlock(&f->lock);
      kick(f);
      release_awaiting(f);
      pthread_mutex_lock(&f->lock);
      if (h) {
        f->http = NULL;
        pthread_mutex_unlock(&f->lock);
        nub_http_stop(h);
        pthread_mutex_lock(&f->lock);
      }
    }
  }
  pthread_mutex_unlock(&f->lock);
  if (f->own_http && f->http)
    nub_http_stop(f->http);
  nub_pool_drain(f->pool);
  if (f->nfetch)
    nub_diag_debugf("fetch: at most %.1f MB downloaded and waiting to be unpacked",
                    (double)f->waiting_peak / 1e6);
  if (f->nunchecked && !f->rc) {
    char more[64] = "";
    if (f->nunchecked > 1)
      snprintf(more, sizeof(more), " (and %zu more)", f->nunchecked - 1);
    nub_progress_warn(f->prog, "%s%s came with no integrity to check it against (none in "
                      "the lockfile): its tarball is installed unchecked", f->first_unchecked,
                      more);
  }
  memset(res, 0, sizeof(*res));
  res->fetched = f->nfetch;
  res->cached = f->cached;
  res->bytes = f->bytes;
  res->unpack_held_peak = f->held_peak;
  if (f->rc) {
    rc = f->rc;
    *err = f->err;
  } else if (f->nmissing) {
    char more[64] = "";
    if (f->nmissing > 1)
      snprintf(more, sizeof(more), " (and %zu more packages)", f->nmissing - 1);
    rc = nub_err_set(err, -NUB_EOFFLINE,
                     "%s@%s is not in the store at %s%s, and --offline forbids the network",
                     f->first_missing->name, f->first_missing->version, f->store->root, more);
  }
  while (f->jobs) {
    struct job *j = f->jobs;
    f->jobs = j->next_all;
    pthread_mutex_destroy(&j->lock);
    pthread_cond_destroy(&j->cv);
    nub_free(j->get_url);
    nub_free(j);
  }
  for (int i = 0; i < f->nscratch; i++)
    nub_extract_scratch_release(&f->scratch[i]);
  nub_free(f->scratch);
  nub_strmap_release(&f->checkouts, drop_checkout);
  nub_strmap_release(&f->offered, drop_body);
  pthread_mutex_destroy(&f->lock);
  pthread_cond_destroy(&f->cv);
  nub_free(f);
  return rc;
}

int nub_fetch_needed(struct nub_pkgtab *t, struct nub_store *store,
                     const struct nub_config *cfg, struct nub_pool *pool,
                     struct nub_progress *prog, const struct nub_fetch_opts *o,
                     struct nub_fetch_result *res, struct nub_err *err)
{
  struct nub_pkg **need = nub_malloc(sizeof(*need) * (t->n + 1));
  int *rcs;
  size_t n = 0;
  struct loadctx lc;
  struct nub_fetch *fs;

  for (size_t i = 0; i < t->n; i++)
    if (t->v[i]->needed)
      need[n++] = t->v[i];
  /* warm path: the store's indexes, read in parallel */
  rcs = nub_calloc(n + 1, sizeof(*rcs));
  lc.pkgs = need;
  lc.store = store;
  lc.prog = prog;
  lc.verify = o->verify_all && cfg->verify_store;
  lc.rc = rcs;
  nub_pool_for(pool, n, load_one, &lc);
  nub_free(rcs);
  nub_fetch_begin(&fs, store, cfg, pool, prog, o, NULL, err);
  for (size_t i = 0; i < n; i++) {
    if (need[i]->index)
      ((struct fetcher *)fs)->cached++;
    else
      nub_fetch_add(fs, need[i]);
  }
  nub_free(need);
  return nub_fetch_end(fs, res, err);
}
