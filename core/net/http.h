/* http.h - the registry's HTTP client: one libcurl multi loop on its own
 * thread, HTTP/2 multiplexing where the server offers it, connection reuse,
 * many transfers at once. libcurl stays inside http.c.
 *
 * A request is one attempt; retry policy belongs to the caller (fetch and
 * metadata retry a whole download+verify+extract unit). Callbacks run on the
 * network thread and must not block for long.
 *
 * Redirects (at most 10, http and https only) are followed here, not by
 * libcurl, so that each hop gets the credential its own URL is bound to
 * (nub_config_auth_for) and none other - and none at all once a redirect
 * went from https to plain http. */
#ifndef NUB_HTTP_H
#define NUB_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "progress.h"

struct nub_http;

/* Outcome classes, for retry decisions. */
enum nub_http_class {
  NUB_HTTP_OK,        /* 2xx (or 304) */
  NUB_HTTP_RETRY,     /* 408, 429, 5xx, reset, timeout, truncated body */
  NUB_HTTP_NOTFOUND,  /* 404 / 410 */
  NUB_HTTP_AUTH,      /* 401 / 403 */
  NUB_HTTP_FAIL,      /* anything else: other 4xx, DNS, TLS, aborted */
};

struct nub_http_result {
  int curl_code;            /* 0 = transfer completed */
  long status;              /* HTTP status, 0 if none */
  enum nub_http_class cls;
  char error[512];          /* curl's message or "HTTP 500"; for TLS failures
                             * with the CA bundle used and the settings to fix it */
  char content_type[96];
  char etag[128];
  char last_modified[64];
  double retry_after_s;     /* from Retry-After, -1 if absent */
  int http_version;         /* 1, 2 or 3 */
  uint64_t bytes;           /* body bytes received */
};

struct nub_http_req {
  const char *url;          /* must stay valid until on_done */
  const char *accept;       /* Accept header or NULL */
  const char *if_none_match;/* ETag for revalidation or NULL */
  bool compressed;          /* ask for gzip/br content-encoding (metadata) */
  bool small;               /* mostly small bodies (documents): a smaller
                             * receive buffer (a resolve has hundreds open) */
  uint64_t not_before_ns;   /* do not start before this time (backoff) */
  /* Body bytes as they arrive. Return false to abort the transfer. */
  bool (*on_body)(void *ud, const char *p, size_t n);
  /* Called once with the outcome; the request may be freed or resubmitted
   * from inside it. */
  void (*on_done)(void *ud, const struct nub_http_result *r);
  void *ud;
  /* private */
  void *easy;
  void *hdrs;
  struct nub_http_req *next;
  char *location; /* where a redirect sent the request (owned), or NULL */
  int hops;
  bool downgraded; /* a redirect went from https to http: no credential */
  long timeout_ms;    /* fetch-timeout for this request */
  uint64_t begun_ns;  /* first progress call of this hop, 0 before */
  bool timed_out;     /* aborted by fetch-timeout */
  char curl_error[256]; /* libcurl's own words (CURL_ERROR_SIZE) */
  struct nub_http_result res;
};

int nub_http_start(struct nub_http **out, const struct nub_config *cfg,
                   struct nub_err *err);
/* Queue a request (thread-safe). */
void nub_http_submit(struct nub_http *h, struct nub_http_req *r);
/* Abort every transfer (their on_done runs with curl_code != 0), stop the
 * thread and free the client. */
void nub_http_stop(struct nub_http *h);

/* GET url into out (appended) and wait for it, retried with back-off like
 * any download (fetch-retries); at most max bytes. 0, or -NUB_ENOTFOUND,
 * -NUB_EAUTH, -NUB_ENETWORK with the URL and what failed in err. For the
 * few requests a caller cannot go on without, such as a tarball that
 * package.json names by URL, whose package.json the resolver must read. */
struct nub_buf;
int nub_http_get(struct nub_http *h, const struct nub_config *cfg, struct nub_progress *prog,
                 const char *url, size_t max, struct nub_buf *out, struct nub_err *err);

/* Whether a redirect from `from` to `to` leaves TLS (https -> http). */
bool nub_http_redirect_downgrades(const char *from, const char *to);

/* Backoff before retry number `attempt` (1-based): min(min_ms * 4^(n-1),
 * max_ms) with +-20% jitter, or Retry-After when the server sent one. */
uint64_t nub_http_backoff_ms(const struct nub_config *cfg, int attempt,
                             double retry_after_s);

/* The backoff before retry `attempt` of `max` for url, said once per host
 * and cause through prog ("GET <url>: <why>; retrying in ..."). */
uint64_t nub_http_retry_wait(const struct nub_config *cfg, struct nub_progress *prog,
                             const char *url, const char *why, int attempt, int max,
                             double retry_after_s);

#endif
