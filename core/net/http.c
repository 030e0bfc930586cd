/* http.c - libcurl multi loop on a dedicated thread. */
#include "http.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "diag.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "url.h"
#include "version.h"

/* libcurl is loaded on first use, not at start-up: with its dependency
 * closure (TLS, HTTP/2, IDN, Kerberos, LDAP, ...) it is some 30 shared
 * libraries, and mapping them costs more than a warm install's whole
 * resolve phase. Installs that never touch the network never pay for it.
 * Calls below go through this table; the names shadow curl's own. */
#ifndef NUB_LIBCURL
#define NUB_LIBCURL "libcurl.so.4"
#endif

#define CURL_FUNCS(X)                                                          \
  X(curl_global_init_mem) X(curl_easy_cleanup) X(curl_easy_getinfo)            \
  X(curl_easy_init) X(curl_easy_reset) X(curl_easy_setopt) X(curl_easy_strerror) \
  X(curl_multi_add_handle) X(curl_multi_cleanup) X(curl_multi_info_read)       \
  X(curl_multi_init) X(curl_multi_perform) X(curl_multi_poll)                  \
  X(curl_multi_remove_handle) X(curl_multi_setopt) X(curl_multi_wakeup)        \
  X(curl_slist_append) X(curl_slist_free_all)

static struct {
  pthread_mutex_t lock;
  bool loaded;
  void *lib;
#define X(f) __typeof__(f) *f;
  CURL_FUNCS(X)
#undef X
} cu = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* curl.h makes some of these macros (type checks); ours must win. */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#undef curl_multi_setopt

static void *calloc_hook(size_t n, size_t s) { return nub_calloc(n, s); }
static char *strdup_hook(const char *s) { return nub_strdup(s); }

static int curl_load(struct nub_err *err)
{
  char msg[512];
  int rc = 0;

  pthread_mutex_lock(&cu.lock);
  if (cu.loaded)
    goto out;
  rc = nub_plat_load_library(NUB_LIBCURL, &cu.lib, msg, sizeof(msg));
  if (rc < 0) {
    nub_err_set(err, -NUB_ENETWORK, "cannot load libcurl (%s): %s", NUB_LIBCURL, msg);
    goto out;
  }
#define X(f)                                                                   \
  cu.f = (__typeof__(cu.f))nub_plat_symbol(cu.lib, #f);                        \
  if (!cu.f) {                                                                 \
    rc = nub_err_set(err, -NUB_ENETWORK, "libcurl (%s) lacks %s", NUB_LIBCURL, #f); \
    goto out;                                                                  \
  }
  CURL_FUNCS(X)
#undef X
  /* libcurl allocates through nub's allocator too */
  cu.curl_global_init_mem(CURL_GLOBAL_DEFAULT, nub_malloc, nub_free, nub_realloc, strdup_hook,
                       calloc_hook);
  cu.loaded = true;
out:
  pthread_mutex_unlock(&cu.lock);
  return rc;
}

/* From here on the library calls go through the table. */
#define curl_global_init_mem cu.curl_global_init_mem
#define curl_easy_cleanup cu.curl_easy_cleanup
#define curl_easy_getinfo cu.curl_easy_getinfo
#define curl_easy_init cu.curl_easy_init
#define curl_easy_reset cu.curl_easy_reset
#define curl_easy_setopt cu.curl_easy_setopt
#define curl_easy_strerror cu.curl_easy_strerror
#define curl_multi_add_handle cu.curl_multi_add_handle
#define curl_multi_cleanup cu.curl_multi_cleanup
#define curl_multi_info_read cu.curl_multi_info_read
#define curl_multi_init cu.curl_multi_init
#define curl_multi_perform cu.curl_multi_perform
#define curl_multi_poll cu.curl_multi_poll
#define curl_multi_remove_handle cu.curl_multi_remove_handle
#define curl_multi_setopt cu.curl_multi_setopt
#define curl_multi_wakeup cu.curl_multi_wakeup
#define curl_slist_append cu.curl_slist_append
#define curl_slist_free_all cu.curl_slist_free_all

struct nub_http {
  CURLM *multi;
  pthread_t thread;
  pthread_mutex_t lock;
  struct nub_http_req *pending; /* submitted, not yet started */
  bool stop;
  int running;
  const struct nub_config *cfg;
  char ua[96];
  long stall_s;
  char *cafile; /* the one CA bundle every connection verifies against */
  char *capath; /* or, without a configured cafile, the system's directory of
                 * hashed certificates (see pick_capath) */
  void **free_easy; /* recycled easy handles keep their connection hints */
  size_t nfree, capfree;
  struct nub_http_req **active; /* started, not finished */
  size_t nactive, capactive;
};

uint64_t nub_http_backoff_ms(const struct nub_config *cfg, int attempt,
                             double retry_after_s)
{
  double base = (double)cfg->fetch_retry_mintimeout_ms;
  double jitter;

  if (retry_after_s >= 0)
    return (uint64_t)(retry_after_s * 1000.0);
  for (int i = 1; i < attempt; i++)
    base *= 4;
  if (base > (double)cfg->fetch_retry_maxtimeout_ms)
    base = (double)cfg->fetch_retry_maxtimeout_ms;
  /* +-20%, so that many clients that failed together do not retry together */
  jitter = 0.8 + 0.4 * ((double)(nub_plat_now_ns() % 1000) / 1000.0);
  return (uint64_t)(base * jitter);
}

static enum nub_http_class classify(int code, long status)
{
  if (code == CURLE_OK) {
    if ((status >= 200 && status < 300) || status == 304)
      return NUB_HTTP_OK;
    if (status == 404 || status == 410)
      return NUB_HTTP_NOTFOUND;
    if (status == 401 || status == 403)
      return NUB_HTTP_AUTH;
    if (status == 408 || status == 429 || status >= 500)
      return NUB_HTTP_RETRY;
    return NUB_HTTP_FAIL;
  }
  switch (code) {
  case CURLE_COULDNT_CONNECT:
  case CURLE_OPERATION_TIMEDOUT:
  case CURLE_PARTIAL_FILE:
  case CURLE_RECV_ERROR:
  case CURLE_SEND_ERROR:
  case CURLE_GOT_NOTHING:
  case CURLE_HTTP2:
  case CURLE_HTTP2_STREAM:
  case CURLE_SSL_CONNECT_ERROR:
  case CURLE_COULDNT_RESOLVE_HOST: /* flaky DNS is common on CI */
    return NUB_HTTP_RETRY;
  default:
    return NUB_HTTP_FAIL;
  }
}

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
  struct nub_http_req *r = ud;
  size_t len = size * n;
  long status = 0;

  curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
  r->res.bytes += len;
  if (status >= 300 && status != 304)
    return len; /* error bodies are not content */
  if (r->on_body && !r->on_body(r->ud, p, len))
    return 0;
  return len;
}

static void copy_value(char *dst, size_t cap, const char *v, size_t n)
{
  while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' '))
    n--;
  while (n && (*v == ' ' || *v == '\t')) {
    v++;
    n--;
  }
  if (n >= cap)
    n = cap - 1;
  memcpy(dst, v, n);
  dst[n] = '\0';
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
  struct nub_http_req *r = ud;
  size_t len = size * n;
  const char *colon = memchr(p, ':', len);

  if (len > 5 && !strncmp(p, "HTTP/", 5)) { /* a new response (after 1xx, a proxy's CONNECT) */
    r->res.content_type[0] = r->res.etag[0] = r->res.last_modified[0] = '\0';
    r->res.retry_after_s = -1;
    return len;
  }
  if (!colon)
    return len;
  {
    size_t kl = (size_t)(colon - p);
    const char *v = colon + 1;
    size_t vl = len - kl - 1;
    if (kl == 12 && !strncasecmp(p, "content-type", 12))
      copy_value(r->res.content_type, sizeof(r->res.content_type), v, vl);
    else if (kl == 4 && !strncasecmp(p, "etag", 4))
      copy_value(r->res.etag, sizeof(r->res.etag), v, vl);
    else if (kl == 13 && !strncasecmp(p, "last-modified", 13))
      copy_value(r->res.last_modified, sizeof(r->res.last_modified), v, vl);
    else if (kl == 11 && !strncasecmp(p, "retry-after", 11)) {
      char tmp[64];
      char *end;
      double s;
      copy_value(tmp, sizeof(tmp), v, vl);
      s = strtod(tmp, &end);
      /* An HTTP date instead of seconds: wait a conservative while. */
      r->res.retry_after_s = end != tmp && s >= 0 ? s : 5.0;
    }
  }
  return len;
}

static CURL *get_easy(struct nub_http *h)
{
  if (h->nfree)
    return h->free_easy[--h->nfree];
  return curl_easy_init();
}

static void put_easy(struct nub_http *h, CURL *e)
{
  curl_easy_reset(e);
  NUB_GROW(h->free_easy, h->capfree, h->nfree + 1);
  h->free_easy[h->nfree++] = e;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
  struct nub_http_req *r = ud;
  uint64_t now = nub_plat_now_ns();

  (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
  if (!r->begun_ns) {
    r->begun_ns = now;
    return 0;
  }
  if ((now - r->begun_ns) / 1000000 > (uint64_t)r->timeout_ms) {
    r->timed_out = true;
    return 1;
  }
  return 0;
}

static void start_req(struct nub_http *h, struct nub_http_req *r)
{
  CURL *e = get_easy(h);
  struct curl_slist *hdrs = NULL;
  const char *v;
  char line[512];

  r->easy = e;
  r->timeout_ms = h->cfg->fetch_timeout_ms;
  memset(&r->res, 0, sizeof(r->res));
  r->res.retry_after_s = -1;
  curl_easy_setopt(e, CURLOPT_URL, r->location ? r->location : r->url);
  curl_easy_setopt(e, CURLOPT_PRIVATE, r);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
  curl_easy_setopt(e, CURLOPT_USERAGENT, h->ua);
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
  curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  /* every transfer has a receive buffer of this size (a hundred of them at
   * once): 256 KiB each held 25 MB of a cold install's peak; 64 KiB still
   * takes a TLS record or more per call. Resolving without a lockfile has
   * hundreds of documents open at once, most of a few kilobytes: 64 KiB
   * each held 28 MB there. */
  curl_easy_setopt(e, CURLOPT_BUFFERSIZE, r->small ? 16L * 1024 : 64L * 1024);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 15000L);
  /* Slower than fetch-low-speed-limit bytes/s over fetch-low-speed-time is
   * a stall; a server trickling a byte a second is cut off by it. */
  curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, h->cfg->fetch_low_speed_limit);
  curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, h->stall_s);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->curl_error);
  r->curl_error[0] = 0;
  /* fetch-timeout bounds the whole request, headers and body, as in npm.
   * Not CURLOPT_TIMEOUT: that clock starts when the handle is added and so
   * counts the time a request waits in libcurl's queue for a connection,
   * which on a big install is most of it. The clock here starts at the
   * first progress call, once the transfer is under way, and runs on
   * across redirects: each hop is part of the one request. */
  if (!r->hops)
    r->begun_ns = 0;
  r->timed_out = false;
  if (h->cfg->fetch_timeout_ms > 0) {
    curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(e, CURLOPT_XFERINFODATA, r);
    curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
  }
  if (r->compressed)
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
  if (!h->cfg->strict_ssl) {
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (h->capath) {
    /* the issuer looked up by its hash, not the whole bundle parsed */
    curl_easy_setopt(e, CURLOPT_CAINFO, NULL);
    curl_easy_setopt(e, CURLOPT_CAPATH, h->capath);
  } else if (h->cafile) {
    /* A bundle alone lets libcurl parse it once per multi handle and keep
     * the store; with a CA directory beside it (Debian's libcurl default)
     * every new connection parses the whole bundle again. */
    curl_easy_setopt(e, CURLOPT_CAINFO, h->cafile);
    curl_easy_setopt(e, CURLOPT_CAPATH, NULL);
  }
  v = nub_config_get(h->cfg, "https-proxy");
  if (!(v && *v))
    v = nub_config_get(h->cfg, "proxy");
  if (v && *v)
    curl_easy_setopt(e, CURLOPT_PROXY, v);
  v = nub_config_get(h->cfg, "noproxy");
  if (v && *v)
    curl_easy_setopt(e, CURLOPT_NOPROXY, v);
  if (r->accept) {
    snprintf(line, sizeof(line), "Accept: %s", r->accept);
    hdrs = curl_slist_append(hdrs, line);
  }
  if (r->if_none_match) {
    snprintf(line, sizeof(line), "If-None-Match: %s", r->if_none_match);
    hdrs = curl_slist_append(hdrs, line);
  }
  /* Credentials go only to the registry they are bound to: looked up for
   * this hop's own URL (redirects are followed in finish), and never after
   * a redirect from https to plain http, where anyone on the way reads
   * them (libcurl drops them there too) */
  if (!r->downgraded) {
    char *auth = nub_config_auth_for(h->cfg, r->location ? r->location : r->url);
    if (auth) {
      char *a = nub_asprintf("Authorization: %s", auth);
      hdrs = curl_slist_append(hdrs, a);
      nub_free(a);
      nub_free(auth);
    }
  }
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdrs);
  r->hdrs = hdrs;
  NUB_GROW(h->active, h->capactive, h->nactive + 1);
  h->active[h->nactive++] = r;
  curl_multi_add_handle(h->multi, e);
}

/* The handle goes back to the pool; the request is no longer active. */
static void detach(struct nub_http *h, struct nub_http_req *r, CURL *e)
{
  curl_multi_remove_handle(h->multi, e);
  curl_slist_free_all(r->hdrs);
  r->hdrs = NULL;
  r->easy = NULL;
  for (size_t i = 0; i < h->nactive; i++)
    if (h->active[i] == r) {
      h->active[i] = h->active[--h->nactive];
      break;
    }
  put_easy(h, e);
}

bool nub_http_redirect_downgrades(const char *from, const char *to)
{
  return nub_is_https_url(from) && !nub_is_https_url(to);
}

static void finish(struct nub_http *h, CURL *e, CURLcode code)
{
  struct nub_http_req *r = NULL;
  long status = 0, ver = 0;
  const char *why = NULL;

  curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&r);
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_getinfo(e, CURLINFO_HTTP_VERSION, &ver);
  if (code == CURLE_OK && (status == 301 || status == 302 || status == 303 || status == 307 ||
                           status == 308)) {
    char *to = NULL;
    curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &to);
    if (to && nub_is_http_url(to) && r->hops < 10) {
      char *next = nub_strdup(to); /* `to` lives in the handle, reset below */
      if (nub_http_redirect_downgrades(r->location ? r->location : r->url, next))
        r->downgraded = true;
      detach(h, r, e);
      nub_free(r->location);
      r->location = next;
      r->hops++;
      start_req(h, r);
      return;
    }
    if (to && r->hops >= 10)
      code = CURLE_TOO_MANY_REDIRECTS;
    else if (to)
      why = "a redirect to a URL that is not http(s)";
    /* without a Location: the status says it */
  }
  detach(h, r, e);
  if (r->timed_out)
    code = CURLE_OPERATION_TIMEDOUT; /* ours, not the caller's abort */
  r->res.curl_code = (int)code;
  r->res.status = status;
  r->res.http_version = ver == CURL_HTTP_VERSION_2_0 ? 2 : ver == CURL_HTTP_VERSION_3 ? 3 : 1;
  r->res.cls = classify((int)code, status);
  if (code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE ||
      code == CURLE_SSL_CERTPROBLEM || code == CURLE_SSL_ISSUER_ERROR)
    snprintf(r->res.error, sizeof(r->res.error),
             "%s (certificates checked against %s); for a private CA set cafile=<bundle> "
             "in .npmrc, or strict-ssl=false to skip the check", curl_easy_strerror(code),
             h->capath ? h->capath : h->cafile ? h->cafile : "the system's CA store");
  else if (r->timed_out)
    snprintf(r->res.error, sizeof(r->res.error),
             "no complete answer within %ld ms (fetch-timeout; raise it in .npmrc for a "
             "slow link)", r->timeout_ms);
  else if (code == CURLE_OPERATION_TIMEDOUT)
    snprintf(r->res.error, sizeof(r->res.error),
             "%s (fetch-low-speed-limit=%ld bytes/s over fetch-low-speed-time=%ld ms)",
             r->curl_error[0] ? r->curl_error : curl_easy_strerror(code),
             h->cfg->fetch_low_speed_limit, h->stall_s * 1000);
  else if (code != CURLE_OK)
    snprintf(r->res.error, sizeof(r->res.error), "%s", curl_easy_strerror(code));
  else if (why)
    snprintf(r->res.error, sizeof(r->res.error), "HTTP %ld, %s", status, why);
  else if (r->res.cls != NUB_HTTP_OK)
    snprintf(r->res.error, sizeof(r->res.error), "HTTP %ld", status);
  nub_free(r->location);
  r->location = NULL;
  r->hops = 0;
  r->downgraded = false;
  r->on_done(r->ud, &r->res);
}

static void *loop(void *arg)
{
  struct nub_http *h = arg;

  nub_diag_thread_name("network");
  for (;;) {
    struct nub_http_req *ready = NULL, **pp;
    uint64_t now = nub_plat_now_ns(), wake = UINT64_MAX;
    int timeout_ms, msgs;
    CURLMsg *m;
    bool stop;

    bool intr = nub_plat_interrupted(); /* Ctrl-C: no transfer is waited out */

    pthread_mutex_lock(&h->lock);
    stop = h->stop;
    pp = &h->pending;
    while (*pp) {
      struct nub_http_req *r = *pp;
      if (stop || intr || r->not_before_ns <= now) {
        *pp = r->next;
        r->next = ready;
        ready = r;
      } else {
        if (r->not_before_ns < wake)
          wake = r->not_before_ns;
        pp = &r->next;
      }
    }
    pthread_mutex_unlock(&h->lock);
    while (ready) {
      struct nub_http_req *r = ready;
      ready = r->next;
      r->next = NULL;
      if (stop || intr) {
        memset(&r->res, 0, sizeof(r->res));
        r->res.curl_code = CURLE_ABORTED_BY_CALLBACK;
        r->res.cls = NUB_HTTP_FAIL;
        snprintf(r->res.error, sizeof(r->res.error), "aborted");
        r->on_done(r->ud, &r->res);
      } else {
        start_req(h, r);
      }
    }
    if (stop || intr) {
      /* abort what is in flight; after Ctrl-C the loop stays, failing
       * whatever is asked of it until the client is stopped */
      while ((m = curl_multi_info_read(h->multi, &msgs)) != NULL)
        if (m->msg == CURLMSG_DONE)
          finish(h, m->easy_handle, m->data.result);
      while (h->nactive)
        finish(h, h->active[h->nactive - 1]->easy, CURLE_ABORTED_BY_CALLBACK);
      if (stop)
        break;
      curl_multi_poll(h->multi, NULL, 0, 100, NULL);
      continue;
    }
    curl_multi_perform(h->multi, &h->running);
    while ((m = curl_multi_info_read(h->multi, &msgs)) != NULL)
      if (m->msg == CURLMSG_DONE)
        finish(h, m->easy_handle, m->data.result);
    timeout_ms = 200;
    if (wake != UINT64_MAX) {
      uint64_t d = wake > now ? (wake - now) / 1000000 : 0;
      if (d < (uint64_t)timeout_ms)
        timeout_ms = (int)d;
    }
    curl_multi_poll(h->multi, NULL, 0, timeout_ms, NULL);
  }
  return NULL;
}

/* The configured cafile, else libcurl's built-in bundle when it is a file
 * we can see; NULL leaves libcurl's own defaults alone. */
static char *pick_cafile(const struct nub_config *cfg)
{
  const char *v = nub_config_get(cfg, "cafile");
  struct nub_plat_stat st;
  char *def = NULL;
  CURL *e;

  if (v && *v)
    return nub_strdup(v);
  e = curl_easy_init();
  if (!e)
    return NULL;
  if (curl_easy_getinfo(e, CURLINFO_CAINFO, &def) == CURLE_OK && def && *def &&
      nub_plat_stat_at(NUB_PLAT_CWD, def, &st) == 0 && st.type == NUB_FT_FILE)
    def = nub_strdup(def);
  else
    def = NULL;
  curl_easy_cleanup(e);
  return def;
}

/* An OpenSSL-style certificate directory entry: <8 hex digits>.<n>. */
static int hashed_entry(void *ud, const char *name, enum nub_plat_ftype type)
{
  (void)ud;
  (void)type;
  if (strlen(name) != 10 || name[8] != '.' || name[9] < '0' || name[9] > '9')
    return 0;
  for (int i = 0; i < 8; i++)
    if (!strchr("0123456789abcdef", name[i]))
      return 0;
  return 1;
}

/* Without a configured cafile: libcurl's default CA directory when it is
 * one of hashed names (Debian's /etc/ssl/certs, kept by
 * update-ca-certificates beside the bundle it makes from the same
 * certificates). OpenSSL then reads the one issuer a server needs instead
 * of parsing the whole bundle (144 certificates here): the first TLS
 * handshake took 44 ms with the bundle and 6 ms with the directory. NULL:
 * the bundle, as before. */
static char *pick_capath(const struct nub_config *cfg)
{
  const char *v = nub_config_get(cfg, "cafile");
  char *def = NULL;
  CURL *e;

  if (v && *v)
    return NULL;
  e = curl_easy_init();
  if (!e)
    return NULL;
  if (curl_easy_getinfo(e, CURLINFO_CAPATH, &def) == CURLE_OK && def && *def &&
      nub_plat_list_dir_at(NUB_PLAT_CWD, def, hashed_entry, NULL) == 1)
    def = nub_strdup(def);
  else
    def = NULL;
  curl_easy_cleanup(e);
  return def;
}

int nub_http_start(struct nub_http **out, const struct nub_config *cfg,
                   struct nub_err *err)
{
  struct nub_http *h;
  struct nub_plat_caps caps;
  int rc = curl_load(err);

  if (rc < 0)
    return rc;
  h = nub_calloc(1, sizeof(*h));

  h->cfg = cfg;
  h->multi = curl_multi_init();
  if (!h->multi) {
    nub_free(h);
    return nub_err_set(err, -NUB_ENETWORK, "cannot initialise the HTTP client");
  }
  nub_plat_caps(&caps);
  snprintf(h->ua, sizeof(h->ua), "nub/%s (%s)", NUB_VERSION, caps.os);
  h->cafile = pick_cafile(cfg);
  h->capath = pick_capath(cfg);
  h->stall_s = cfg->fetch_low_speed_time_ms / 1000;
  if (h->stall_s < 1)
    h->stall_s = 1;
  curl_multi_setopt(h->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
  curl_multi_setopt(h->multi, CURLMOPT_MAX_HOST_CONNECTIONS,
                    (long)cfg->network_concurrency);
  curl_multi_setopt(h->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS,
                    (long)cfg->network_concurrency);
  pthread_mutex_init(&h->lock, NULL);
  if (pthread_create(&h->thread, NULL, loop, h) != 0) {
    curl_multi_cleanup(h->multi);
    nub_free(h->cafile);
    nub_free(h->capath);
    nub_free(h);
    return nub_err_set(err, -NUB_ENETWORK, "cannot start the network thread");
  }
  *out = h;
  return 0;
}

void nub_http_submit(struct nub_http *h, struct nub_http_req *r)
{
  pthread_mutex_lock(&h->lock);
  r->next = h->pending;
  h->pending = r;
  pthread_mutex_unlock(&h->lock);
  curl_multi_wakeup(h->multi);
}

void nub_http_stop(struct nub_http *h)
{
  if (!h)
    return;
  pthread_mutex_lock(&h->lock);
  h->stop = true;
  pthread_mutex_unlock(&h->lock);
  curl_multi_wakeup(h->multi);
  pthread_join(h->thread, NULL);
  for (size_t i = 0; i < h->nfree; i++)
    curl_easy_cleanup(h->free_easy[i]);
  nub_free(h->free_easy);
  nub_free(h->active);
  nub_free(h->cafile);
  nub_free(h->capath);
  curl_multi_cleanup(h->multi);
  pthread_mutex_destroy(&h->lock);
  nub_free(h);
}

struct get_wait {
  pthread_mutex_t lock;
  pthread_cond_t cv;
  struct nub_buf *out;
  size_t max;
  bool done, too_big;
  struct nub_http_result res;
};

static bool get_body(void *ud, const char *p, size_t n)
{
  struct get_wait *g = ud;

  if (g->out->len + n > g->max) {
    g->too_big = true;
    return false;
  }
  nub_buf_add(g->out, p, n);
  return true;
}

static void get_done(void *ud, const struct nub_http_result *r)
{
  struct get_wait *g = ud;

  pthread_mutex_lock(&g->lock);
  g->res = *r;
  g->done = true;
  pthread_cond_signal(&g->cv);
  pthread_mutex_unlock(&g->lock);
}

int nub_http_get(struct nub_http *h, const struct nub_config *cfg, struct nub_progress *prog,
                 const char *url, size_t max, struct nub_buf *out, struct nub_err *err)
{
  size_t start = out->len;
  int max_tries = cfg->fetch_retries;
  uint64_t wait_ms = 0;

  for (int attempt = 1;; attempt++) {
    struct get_wait g = {.out = out, .max = max};
    struct nub_http_req req;
    memset(&req, 0, sizeof(req));
    pthread_mutex_init(&g.lock, NULL);
    pthread_cond_init(&g.cv, NULL);
    req.url = url;
    req.on_body = get_body;
    req.on_done = get_done;
    req.ud = &g;
    req.not_before_ns = wait_ms ? nub_plat_now_ns() + wait_ms * 1000000ull : 0;
    out->len = start;
    nub_http_submit(h, &req);
    pthread_mutex_lock(&g.lock);
    while (!g.done)
      pthread_cond_wait(&g.cv, &g.lock);
    pthread_mutex_unlock(&g.lock);
    pthread_mutex_destroy(&g.lock);
    pthread_cond_destroy(&g.cv);
    if (g.too_big)
      return nub_err_set(err, -NUB_ENETWORK, "GET %s: more than %zu MiB", url, max >> 20);
    if (g.res.cls == NUB_HTTP_OK && g.res.curl_code == 0)
      return 0;
    if (g.res.cls == NUB_HTTP_NOTFOUND)
      return nub_err_set(err, -NUB_ENOTFOUND, "GET %s: HTTP %ld", url, g.res.status);
    if (g.res.cls == NUB_HTTP_AUTH)
      return nub_err_set(err, -NUB_EAUTH, "GET %s: HTTP %ld; check the auth token for its "
                         "host in .npmrc", url, g.res.status);
    if (g.res.cls != NUB_HTTP_RETRY || attempt > max_tries || nub_plat_interrupted())
      return nub_err_set(err, -NUB_ENETWORK, "GET %s: %s", url,
                         g.res.error[0] ? g.res.error : "transfer failed");
    wait_ms = nub_http_retry_wait(cfg, prog, url, g.res.error, attempt, max_tries,
                                  g.res.retry_after_s);
  }
}

uint64_t nub_http_retry_wait(const struct nub_config *cfg, struct nub_progress *prog,
                             const char *url, const char *why, int attempt, int max,
                             double retry_after_s)
{
  uint64_t ms = nub_http_backoff_ms(cfg, attempt, retry_after_s);
  char host[256], key[700];
  int left = max - attempt + 1;

  nub_url_host(url, host, sizeof(host));
  snprintf(key, sizeof(key), "%s|%s", host, why);
  /* once per host and cause: a registry that is down is one line */
  nub_progress_warn_once(prog, key, "GET %s: %s; retrying in %.1fs (%d %s left; other "
                         "requests to %s that fail so retry quietly)", url, why,
                         (double)ms / 1000.0, left, left == 1 ? "retry" : "retries", host);
  return ms;
}
