/* registry.c - packument client, cache and parser. */
#include "registry.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "diag.h"
#include "integrity.h"
#include "json.h"
#include "registry_url.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "path.h"
#include "strmap.h"

#define CACHE_MAGIC "NUBMETA1"
#define FRESH_SECONDS 300 /* cached documents younger than this skip the network */

enum { M_NEW, M_FETCHING, M_READY, M_FAILED };

struct entry {
  struct nub_meta *m;
  char *name, *url, *cache_path;
  char *version;  /* one version's document (GET <name>/<version>), or NULL */
  bool too_big;   /* its body went past max-document-size */
  bool full;      /* the full document, asked for its versions' dates */
  int state;
  int attempt;
  bool refetched;
  struct nub_packument *doc;
  int rc;
  char msg[768];
  struct nub_http_req req;
  struct nub_buf body;
  char *cached;  /* cached body (for a 304) */
  size_t cached_len;
  char *etag;
  uint64_t t0;
};

struct nub_meta {
  const struct nub_config *cfg;
  struct nub_pool *pool;
  struct nub_progress *prog;
  struct nub_meta_opts o;
  struct nub_http *http;
  pthread_mutex_t lock;
  pthread_cond_t cv;
  struct nub_strmap entries;
  char *cache_dir;
  struct nub_meta_stats st;
  struct nub_packument **retired; /* replaced by a refetch, still borrowed */
  size_t nretired, capretired;
};

/* ---- parsing ------------------------------------------------------------- */

static void pversion_free(struct nub_pversion *v)
{
  if (!v)
    return;
  nub_free(v->version);
  nub_version_release(&v->sv);
  nub_depmap_release(&v->deps);
  nub_depmap_release(&v->optional);
  nub_depmap_release(&v->peers);
  nub_strarray_free(v->peers_optional, v->npeers_optional);
  nub_strarray_free(v->bundled, v->nbundled);
  nub_strarray_free(v->os, v->nos);
  nub_strarray_free(v->cpu, v->ncpu);
  nub_strarray_free(v->libc, v->nlibc);
  nub_depmap_release(&v->engines);
  for (size_t i = 0; i < v->nbins; i++) {
    nub_free(v->bins[i].name);
    nub_free(v->bins[i].target);
  }
  nub_free(v->bins);
  nub_depmap_release(&v->bin_raw);
  nub_free(v->bin_dir);
  nub_free(v->tarball);
  nub_free(v->integrity);
  nub_free(v->shasum);
  nub_free(v->deprecated);
  nub_free(v->license);
  nub_free(v->funding);
  nub_free(v);
}

void nub_packument_free(struct nub_packument *p)
{
  if (!p)
    return;
  for (size_t i = 0; i < p->nversions; i++)
    pversion_free(p->versions[i]);
  nub_free(p->versions);
  nub_depmap_release(&p->tags);
  nub_free(p->name);
  nub_free(p);
}

/* Dependency maps as the registry serves them: only string values count
 * (null, numbers and nested objects in old documents are dropped). */
static void depmap_strings(const cJSON *o, struct nub_depmap *out)
{
  nub_json_depmap(o, out);
  for (size_t i = 0; i < out->n;) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, out->v[i].name);
    if (!cJSON_IsString(v)) {
      nub_free(out->v[i].name);
      nub_free(out->v[i].spec);
      out->v[i] = out->v[--out->n];
      continue;
    }
    i++;
  }
}

static int cmp_version(const void *a, const void *b)
{
  const struct nub_pversion *x = *(struct nub_pversion *const *)a;
  const struct nub_pversion *y = *(struct nub_pversion *const *)b;
  return nub_version_cmp(&x->sv, &y->sv);
}

static struct nub_pversion *parse_version(const cJSON *v, const char *name,
                                          const struct nub_config *cfg)
{
  struct nub_pversion *pv;
  const char *ver = nub_json_str(v, "version");
  const cJSON *dist, *meta, *it, *scripts, *bin;

  if (!ver || !cJSON_IsObject(v))
    return NULL;
  pv = nub_calloc(1, sizeof(*pv));
  if (nub_version_parse_loose(&pv->sv, ver) < 0) {
    nub_free(pv);
    return NULL; /* not semver: never selectable */
  }
  pv->version = nub_strdup(ver);
  {
    const cJSON *user = cJSON_GetObjectItemCaseSensitive(v, "_npmUser");
    const cJSON *att = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(v, "dist"), "attestations");
    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(user, "trustedPublisher")))
      pv->trust = 2;
    else if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(att, "provenance")))
      pv->trust = 1;
  }
  depmap_strings(cJSON_GetObjectItemCaseSensitive(v, "dependencies"), &pv->deps);
  depmap_strings(cJSON_GetObjectItemCaseSensitive(v, "optionalDependencies"), &pv->optional);
  depmap_strings(cJSON_GetObjectItemCaseSensitive(v, "peerDependencies"), &pv->peers);
  meta = cJSON_GetObjectItemCaseSensitive(v, "peerDependenciesMeta");
  if (cJSON_IsObject(meta)) {
    size_t cap = 0;
    cJSON_ArrayForEach(it, meta)
    {
      if (it->string && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "optional"))) {
        NUB_GROW(pv->peers_optional, cap, pv->npeers_optional + 1);
        pv->peers_optional[pv->npeers_optional++] = nub_strdup(it->string);
      }
    }
  }
  {
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(v, "bundleDependencies");
    if (!b)
      b = cJSON_GetObjectItemCaseSensitive(v, "bundledDependencies");
    if (cJSON_IsTrue(b)) { /* true means "all dependencies" */
      pv->bundled = nub_calloc(pv->deps.n + 1, sizeof(char *));
      for (size_t i = 0; i < pv->deps.n; i++)
        pv->bundled[pv->nbundled++] = nub_strdup(pv->deps.v[i].name);
    } else {
      nub_json_strarray(b, &pv->bundled, &pv->nbundled);
    }
  }
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(v, "os"), &pv->os, &pv->nos);
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(v, "cpu"), &pv->cpu, &pv->ncpu);
  nub_json_strarray(cJSON_GetObjectItemCaseSensitive(v, "libc"), &pv->libc, &pv->nlibc);
  depmap_strings(cJSON_GetObjectItemCaseSensitive(v, "engines"), &pv->engines);
  dist = cJSON_GetObjectItemCaseSensitive(v, "dist");
  if (cJSON_IsObject(dist)) {
    const char *tb = nub_json_str(dist, "tarball"), *integ = nub_json_str(dist, "integrity");
    const char *sha = nub_json_str(dist, "shasum");
    if (tb)
      pv->tarball = nub_rewrite_registry_url(cfg, name, tb);
    if (sha && strlen(sha) == 40)
      pv->shasum = nub_strdup(sha);
    if (integ && *integ) {
      pv->integrity = nub_strdup(integ);
    } else if (sha) {
      struct nub_sri s;
      char buf[128];
      if (nub_sri_from_hex_sha1(&s, sha) == 0) {
        nub_sri_format(&s, buf, sizeof(buf));
        pv->integrity = nub_strdup(buf);
      }
    }
  }
  if (!pv->tarball)
    pv->tarball = nub_registry_tarball_url(cfg, name, ver);
  {
    const char *dep = nub_json_str(v, "deprecated");
    if (dep && *dep)
      pv->deprecated = nub_strdup(dep);
  }
  {
    const cJSON *lic = cJSON_GetObjectItemCaseSensitive(v, "license");
    const cJSON *fund = cJSON_GetObjectItemCaseSensitive(v, "funding");
    const char *l = cJSON_IsObject(lic) ? nub_json_str(lic, "type")
                    : cJSON_IsString(lic) ? lic->valuestring : NULL;
    if (l && *l)
      pv->license = nub_strdup(l);
    if ((cJSON_IsString(fund) && *fund->valuestring) || (cJSON_IsObject(fund) && fund->child) ||
        (cJSON_IsArray(fund) && fund->child)) {
      char *txt = cJSON_PrintUnformatted(fund);
      pv->funding = txt ? nub_strdup(txt) : NULL;
      cJSON_free(txt);
    }
  }
  bin = cJSON_GetObjectItemCaseSensitive(v, "bin");
  if (bin)
    nub_json_bins(v, name, &pv->bins, &pv->nbins);
  if (cJSON_IsString(bin) && *bin->valuestring) {
    const char *slash = strrchr(name, '/');
    pv->bin_string = true;
    pv->bin_raw.v = nub_calloc(1, sizeof(*pv->bin_raw.v));
    pv->bin_raw.v[0].name = nub_strdup(slash ? slash + 1 : name);
    pv->bin_raw.v[0].spec = nub_strdup(bin->valuestring);
    pv->bin_raw.n = 1;
  } else if (cJSON_IsObject(bin)) {
    depmap_strings(bin, &pv->bin_raw);
  } else {
    const char *dir = nub_json_str(cJSON_GetObjectItemCaseSensitive(v, "directories"), "bin");
    if (dir && *dir)
      pv->bin_dir = nub_strdup(dir);
  }
  pv->has_bin = (cJSON_IsString(bin) && *bin->valuestring) ||
                (cJSON_IsObject(bin) && bin->child) ||
                (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(v, "directories")) &&
                 nub_json_str(cJSON_GetObjectItemCaseSensitive(v, "directories"), "bin"));
  pv->has_install_script = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "hasInstallScript"));
  scripts = cJSON_GetObjectItemCaseSensitive(v, "scripts");
  if (cJSON_IsObject(scripts) &&
      (nub_json_str(scripts, "preinstall") || nub_json_str(scripts, "install") || nub_json_str(scripts, "postinstall")))
    pv->has_install_script = true;
  return pv;
}

int64_t nub_iso_time(const char *s)
{
  struct tm tm;
  int y, mo, d, h, mi, sec, n = 0, oh = 0, om = 0;
  const char *p;
  int64_t t;

  if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 || n < 19)
    return 0;
  p = s + n;
  if (*p == '.') /* a fraction of a second */
    for (p++; *p >= '0' && *p <= '9'; p++)
      ;
  if ((*p == '+' || *p == '-') && sscanf(p + 1, "%2d:%2d", &oh, &om) == 2 && oh < 24 && om < 60) {
    int sign = *p == '-' ? -1 : 1;
    oh *= sign;
    om *= sign;
  } else if (*p && *p != 'Z') {
    return 0;
  }
  memset(&tm, 0, sizeof(tm));
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  t = (int64_t)timegm(&tm) - (int64_t)oh * 3600 - (int64_t)om * 60;
  return t > 0 ? t : 0;
}

/* Each version's date from the full document's "time" (whose keys follow
 * "versions"' order on the registries seen: walked beside it, looked up
 * when they part). */
static void read_times(struct nub_packument *p, const cJSON *times)
{
  const cJSON *cur = times->child;

  p->has_times = true;
  p->modified = nub_iso_time(nub_json_str(times, "modified"));
  for (size_t i = 0; i < p->nversions; i++) {
    struct nub_pversion *v = p->versions[i];
    const cJSON *t = cur && cur->string && !strcmp(cur->string, v->version)
                         ? cur
                         : cJSON_GetObjectItemCaseSensitive(times, v->version);
    if (t)
      cur = t->next;
    v->published = cJSON_IsString(t) ? nub_iso_time(t->valuestring) : 0;
  }
}

int nub_packument_parse(struct nub_packument **out, const char *json, size_t len,
                        const char *name, const struct nub_config *cfg,
                        struct nub_err *err)
{
  /* cJSON directly, not nub_json_parse: a registry's documents are
   * megabytes the user did not write, read on every cold resolve, and the
   * strict checks are for files a person edits */
  cJSON *root = cJSON_ParseWithLength(json, len), *vs, *it;
  struct nub_packument *p;
  size_t cap = 0;

  if (!root || !cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return nub_err_set(err, -NUB_EHTTP, "the registry's document for %s is not JSON", name);
  }
  p = nub_calloc(1, sizeof(*p));
  p->name = nub_strdup(name);
  depmap_strings(cJSON_GetObjectItemCaseSensitive(root, "dist-tags"), &p->tags);
  vs = cJSON_GetObjectItemCaseSensitive(root, "versions");
  if (cJSON_IsObject(vs)) {
    cJSON_ArrayForEach(it, vs)
    {
      struct nub_pversion *pv = parse_version(it, name, cfg);
      if (!pv)
        continue;
      NUB_GROW(p->versions, cap, p->nversions + 1);
      p->versions[p->nversions++] = pv;
    }
  }
  {
    const cJSON *times = cJSON_GetObjectItemCaseSensitive(root, "time");
    if (cJSON_IsObject(times))
      read_times(p, times); /* before sorting: in the document's order */
    if (!p->modified)
      p->modified = nub_iso_time(nub_json_str(root, "modified"));
  }
  cJSON_Delete(root);
  nub_sort(p->versions, p->nversions, sizeof(*p->versions), cmp_version);
  *out = p;
  return 0;
}

/* One version's document (GET <name>/<version>) as a packument of one. */
static int version_doc_parse(struct nub_packument **out, const char *json, size_t len,
                             const char *name, const char *version,
                             const struct nub_config *cfg, struct nub_err *err)
{
  cJSON *root = cJSON_ParseWithLength(json, len);
  struct nub_pversion *pv = root && cJSON_IsObject(root) ? parse_version(root, name, cfg) : NULL;
  struct nub_packument *p;

  cJSON_Delete(root);
  if (!pv || strcmp(pv->version, version)) {
    if (pv)
      pversion_free(pv);
    return nub_err_set(err, -NUB_EHTTP, "the registry's document for %s@%s is not that "
                       "version's", name, version);
  }
  p = nub_calloc(1, sizeof(*p));
  p->name = nub_strdup(name);
  p->versions = nub_calloc(1, sizeof(*p->versions));
  p->versions[p->nversions++] = pv;
  *out = p;
  return 0;
}

const struct nub_pversion *nub_packument_version(const struct nub_packument *p,
                                                 const char *version)
{
  for (size_t i = p->nversions; i > 0; i--)
    if (!strcmp(p->versions[i - 1]->version, version))
      return p->versions[i - 1];
  {
    /* "v1.2.3" or "1.2.3+build" spellings of a listed version */
    struct nub_version v;
    const struct nub_pversion *hit = NULL;
    if (nub_version_parse_loose(&v, version) < 0)
      return NULL;
    for (size_t i = p->nversions; i > 0 && !hit; i--)
      if (!nub_version_cmp(&p->versions[i - 1]->sv, &v))
        hit = p->versions[i - 1];
    nub_version_release(&v);
    return hit;
  }
}

/* ---- the client ---------------------------------------------------------- */

static char *encode_name(const char *name)
{
  /* "@scope/pkg" -> "@scope%2fpkg": some registries 406 on a raw slash */
  const char *slash = strchr(name, '/');
  if (name[0] == '@' && slash)
    return nub_asprintf("%.*s%%2f%s", (int)(slash - name), name, slash + 1);
  return nub_strdup(name);
}

int nub_meta_new(struct nub_meta **out, const struct nub_config *cfg,
                 struct nub_pool *pool, struct nub_progress *prog,
                 const struct nub_meta_opts *o, struct nub_err *err)
{
  struct nub_meta *m = nub_calloc(1, sizeof(*m));

  (void)err;
  m->cfg = cfg;
  m->pool = pool;
  m->prog = prog;
  m->o = *o;
  pthread_mutex_init(&m->lock, NULL);
  pthread_cond_init(&m->cv, NULL);
  m->cache_dir = nub_asprintf("%s/packuments", cfg->cache_dir);
  *out = m;
  return 0;
}

static void entry_free(void *v)
{
  struct entry *e = v;
  nub_free(e->name);
  nub_free(e->version);
  nub_free(e->url);
  nub_free(e->cache_path);
  nub_packument_free(e->doc);
  nub_buf_release(&e->body);
  nub_free(e->cached);
  nub_free(e->etag);
  nub_free(e);
}

void nub_meta_free(struct nub_meta *m)
{
  if (!m)
    return;
  if (m->http)
    nub_http_stop(m->http); /* aborts what is still in flight */
  nub_pool_drain(m->pool);
  nub_strmap_release(&m->entries, entry_free);
  for (size_t i = 0; i < m->nretired; i++)
    nub_packument_free(m->retired[i]);
  nub_free(m->retired);
  pthread_mutex_destroy(&m->lock);
  pthread_cond_destroy(&m->cv);
  nub_free(m->cache_dir);
  nub_free(m);
}

struct nub_http *nub_meta_http(struct nub_meta *m, struct nub_err *err)
{
  pthread_mutex_lock(&m->lock);
  if (!m->http && nub_http_start(&m->http, m->cfg, err) < 0)
    m->http = NULL;
  pthread_mutex_unlock(&m->lock);
  return m->http;
}

void nub_meta_stats(struct nub_meta *m, struct nub_meta_stats *out)
{
  pthread_mutex_lock(&m->lock);
  *out = m->st;
  pthread_mutex_unlock(&m->lock);
}

static void finish(struct entry *e, int state, int rc)
{
  struct nub_meta *m = e->m;

  pthread_mutex_lock(&m->lock);
  e->state = state;
  e->rc = rc;
  pthread_cond_broadcast(&m->cv);
  pthread_mutex_unlock(&m->lock);
}

/* Read "<magic>\t<etag>\t<unix time>\n<body>". */
static bool read_cache(struct entry *e, long *age)
{
  char *text = NULL, *nl, *tab1, *tab2;
  size_t len;

  if (nub_plat_read_file_at(NUB_PLAT_CWD, e->cache_path, e->m->cfg->max_document_bytes + 4096,
                            &text, &len) < 0)
    return false;
  nl = memchr(text, '\n', len);
  if (!nl || strncmp(text, CACHE_MAGIC "\t", 9)) {
    nub_free(text);
    return false;
  }
  *nl = '\0';
  tab1 = text + 8;
  tab2 = strchr(tab1 + 1, '\t');
  if (!tab2) {
    nub_free(text);
    return false;
  }
  *tab2 = '\0';
  nub_free(e->etag);
  e->etag = tab1[1] ? nub_strdup(tab1 + 1) : NULL;
  *age = (long)time(NULL) - strtol(tab2 + 1, NULL, 10);
  e->cached_len = len - (size_t)(nl + 1 - text);
  e->cached = nub_malloc(e->cached_len + 1);
  memcpy(e->cached, nl + 1, e->cached_len);
  e->cached[e->cached_len] = '\0';
  nub_free(text);
  return true;
}

static void write_cache(struct entry *e, const char *body, size_t len)
{
  struct nub_buf b = NUB_BUF_INIT;
  char *dir = nub_strdup(e->cache_path), *slash = strrchr(dir, '/');

  if (slash) {
    *slash = '\0';
    nub_plat_mkdir_p(dir, 0755);
  }
  nub_free(dir);
  nub_buf_addf(&b, "%s\t%s\t%ld\n", CACHE_MAGIC, e->etag ? e->etag : "", (long)time(NULL));
  nub_buf_add(&b, body, len);
  nub_plat_write_file_atomic(e->cache_path, b.data, b.len, 0644);
  nub_buf_release(&b);
}

static void start(struct nub_meta *m, struct entry *e);

/* An abbreviated document of a package changed after the gate's cutoff
 * (or not saying when): its versions' dates are in the full one only. */
static char *full_path(const char *cache_path)
{
  const char *dot = strrchr(cache_path, '.'); /* "<name>.json" -> "<name>.full.json" */
  return nub_asprintf("%.*s.full.json", (int)(dot - cache_path), cache_path);
}

static bool wants_dates(const struct entry *e)
{
  int64_t cutoff = e->m->o.times_after;
  bool want = (cutoff || e->m->o.full) && !e->version && !e->full && !e->doc->has_times &&
              (e->m->o.full || !e->doc->modified || e->doc->modified > cutoff);

  if (want && e->m->o.offline) { /* only what the cache has: else the dates stay unknown */
    char *path = full_path(e->cache_path);
    struct nub_plat_stat st;
    want = nub_plat_stat_at(NUB_PLAT_CWD, path, &st) == 0;
    nub_free(path);
  }
  return want;
}

static void ask_in_full(struct entry *e)
{
  struct nub_meta *m = e->m;

  nub_packument_free(e->doc);
  e->doc = NULL;
  nub_buf_release(&e->body);
  nub_free(e->cached);
  e->cached = NULL;
  e->cached_len = 0;
  nub_free(e->etag);
  e->etag = NULL;
  pthread_mutex_lock(&m->lock);
  e->full = true;
  e->attempt = 1;
  m->st.full++;
  {
    char *path = full_path(e->cache_path);
    nub_free(e->cache_path);
    e->cache_path = path;
  }
  start(m, e);
  pthread_mutex_unlock(&m->lock);
}

static void parse_job(void *arg, int worker)
{
  struct entry *e = arg;
  struct nub_err err;
  const char *body = e->body.len ? e->body.data : e->cached;
  size_t len = e->body.len ? e->body.len : e->cached_len;
  int rc;
  uint64_t t0 = NUB_DIAG_ON() ? nub_plat_now_ns() : 0;

  (void)worker;
  rc = e->version ? version_doc_parse(&e->doc, body ? body : "", body ? len : 0, e->name,
                                      e->version, e->m->cfg, &err)
                  : nub_packument_parse(&e->doc, body ? body : "", body ? len : 0, e->name,
                                        e->m->cfg, &err);
  if (rc < 0) {
    snprintf(e->msg, sizeof(e->msg), "%s", err.msg);
    finish(e, M_FAILED, rc);
    return;
  }
  if (e->body.len)
    write_cache(e, e->body.data, e->body.len);
  if (wants_dates(e)) {
    ask_in_full(e);
    return;
  }
  if (NUB_DIAG_ON()) {
    struct nub_jw w;
    nub_jw_begin(&w);
    nub_jw_str(&w, "pkg", e->name);
    nub_jw_int(&w, "bytes", (long long)len);
    nub_jw_int(&w, "versions", (long long)e->doc->nversions);
    nub_diag_event("registry", "packument_parse", t0, nub_plat_now_ns(), nub_jw_end(&w));
  }
  nub_buf_release(&e->body);
  nub_free(e->cached);
  e->cached = NULL;
  finish(e, M_READY, 0);
}

static void start_http(struct entry *e, uint64_t delay_ms);

/* A document is parsed ahead of every tarball waiting to be unpacked (those
 * go biggest first, fetch.c): the resolver waits for it, and its body is
 * held until it is parsed. Behind the unpacking, resolving from
 * package.json alone held 47 MB of bodies at its peak. */
static void submit_parse(struct nub_meta *m, struct entry *e)
{
  nub_pool_submit_prio(m->pool, parse_job, e, UINT64_MAX);
}

static bool on_body(void *ud, const char *p, size_t n)
{
  struct entry *e = ud;
  if (e->body.len + n > e->m->cfg->max_document_bytes) {
    e->too_big = true; /* said by on_done, not retried */
    return false;
  }
  nub_buf_add(&e->body, p, n);
  return true;
}

static void on_done(void *ud, const struct nub_http_result *r)
{
  struct entry *e = ud;
  struct nub_meta *m = e->m;
  int max = m->cfg->fetch_retries;

  if (NUB_DIAG_ON()) {
    struct nub_jw w;
    nub_jw_begin(&w);
    nub_jw_str(&w, "pkg", e->name);
    nub_jw_int(&w, "status", r->status);
    nub_jw_int(&w, "http", r->http_version);
    nub_jw_int(&w, "bytes", (long long)r->bytes);
    nub_jw_bool(&w, "revalidated", r->status == 304);
    nub_jw_int(&w, "retries", e->attempt - 1);
    nub_diag_event("registry", "packument_fetch", e->t0, nub_plat_now_ns(), nub_jw_end(&w));
  }
  if (e->too_big) {
    snprintf(e->msg, sizeof(e->msg),
             "the registry's document for %s (%s) is larger than max-document-size (%llu MiB); "
             "refused unread; raise max-document-size in .npmrc if the registry is yours",
             e->name, e->url, (unsigned long long)(m->cfg->max_document_bytes >> 20));
    nub_buf_release(&e->body);
    finish(e, M_FAILED, -NUB_ELIMIT);
    return;
  }
  if (r->cls == NUB_HTTP_OK && r->status == 304 && e->cached) {
    nub_buf_release(&e->body);
    write_cache(e, e->cached, e->cached_len); /* refresh the age */
    pthread_mutex_lock(&m->lock);
    m->st.revalidated++;
    pthread_mutex_unlock(&m->lock);
    submit_parse(m, e);
    return;
  }
  if (r->cls == NUB_HTTP_OK) {
    bool html = strstr(r->content_type, "html") != NULL ||
                (e->body.len && e->body.data[0] == '<');
    if (html || !e->body.len) {
      char head[96];
      size_t n = e->body.len < 80 ? e->body.len : 80;
      for (size_t i = 0; i < n; i++) {
        char ch = e->body.data[i];
        head[i] = ch == '\n' || ch == '\r' ? ' ' : ch;
      }
      head[n] = '\0';
      snprintf(e->msg, sizeof(e->msg),
               "GET %s returned HTTP %ld with content-type '%s', not package metadata "
               "(\"%s\"); check the registry URL and any proxy in between", e->url,
               r->status, r->content_type, head);
      finish(e, M_FAILED, -NUB_EHTTP);
      return;
    }
    nub_free(e->etag);
    e->etag = r->etag[0] ? nub_strdup(r->etag) : NULL;
    pthread_mutex_lock(&m->lock);
    m->st.fetched++;
    m->st.bytes += e->body.len;
    pthread_mutex_unlock(&m->lock);
    submit_parse(m, e);
    return;
  }
  if (r->cls == NUB_HTTP_NOTFOUND) {
    snprintf(e->msg, sizeof(e->msg), "package %s%s%s not found in the registry (%s: HTTP %ld)",
             e->name, e->version ? "@" : "", e->version ? e->version : "", e->url, r->status);
    finish(e, M_FAILED, -NUB_ENOTFOUND);
    return;
  }
  if (r->cls == NUB_HTTP_AUTH) {
    char *cred = nub_config_auth_for(m->cfg, e->url);
    if (r->status == 403)
      snprintf(e->msg, sizeof(e->msg),
               "the registry refused %s to this user (GET %s: HTTP 403); the token in .npmrc "
               "for it authenticates a user that may not read the package", e->name, e->url);
    else
      snprintf(e->msg, sizeof(e->msg),
               "the registry refused %s (GET %s: HTTP %ld): %s", e->name, e->url, r->status,
               cred ? "it does not accept the token in .npmrc for it (expired or revoked?)"
                    : "it wants a login; set //<host>/:_authToken for it in .npmrc");
    nub_free(cred);
    finish(e, M_FAILED, -NUB_EAUTH);
    return;
  }
  if (r->cls == NUB_HTTP_RETRY && e->attempt <= max && !nub_plat_interrupted()) {
    uint64_t ms = nub_http_retry_wait(m->cfg, m->prog, e->url, r->error, e->attempt, max,
                                      r->retry_after_s);
    e->attempt++;
    nub_buf_reset(&e->body);
    start_http(e, ms);
    return;
  }
  snprintf(e->msg, sizeof(e->msg), "cannot fetch the metadata of %s from %s: %s%s", e->name,
           e->url, r->error, e->attempt > 1 ? " (after retries)" : "");
  finish(e, M_FAILED, -NUB_ENETWORK);
}

static void start_http(struct entry *e, uint64_t delay_ms)
{
  struct nub_err err;
  struct nub_http *h = nub_meta_http(e->m, &err);

  if (!h) {
    snprintf(e->msg, sizeof(e->msg), "%s", err.msg);
    finish(e, M_FAILED, -NUB_ENETWORK);
    return;
  }
  memset(&e->req, 0, sizeof(e->req));
  e->req.url = e->url;
  e->req.accept = e->version || e->full ? "application/json"
                             : "application/vnd.npm.install-v1+json; q=1.0, application/json; "
                               "q=0.8, */*";
  e->req.if_none_match = e->cached ? e->etag : NULL;
  e->req.compressed = true;
  e->req.small = true;
  e->req.on_body = on_body;
  e->req.on_done = on_done;
  e->req.ud = e;
  e->req.not_before_ns = delay_ms ? nub_plat_now_ns() + delay_ms * 1000000ull : 0;
  e->t0 = nub_plat_now_ns();
  nub_http_submit(h, &e->req);
}

/* Called with the lock held for a new entry; decides cache vs network. */
static void start(struct nub_meta *m, struct entry *e)
{
  long age = 0;
  bool have = read_cache(e, &age);

  if (have && (m->o.offline || m->o.prefer_offline || e->version ||
               (age >= 0 && age < FRESH_SECONDS))) {
    m->st.from_cache++;
    if (NUB_DIAG_ON()) {
      struct nub_jw w;
      uint64_t t = nub_plat_now_ns();
      nub_jw_begin(&w);
      nub_jw_str(&w, "pkg", e->name);
      nub_jw_int(&w, "bytes", (long long)e->cached_len);
      nub_jw_int(&w, "age_s", age);
      nub_diag_event("registry", "packument_cache_hit", t, t, nub_jw_end(&w));
    }
    submit_parse(m, e);
    return;
  }
  if (m->o.offline) {
    snprintf(e->msg, sizeof(e->msg),
             "the metadata of %s is not cached (%s) and --offline forbids the network",
             e->name, m->cache_dir);
    e->state = M_FAILED;
    e->rc = -NUB_EOFFLINE;
    pthread_cond_broadcast(&m->cv);
    return;
  }
  pthread_mutex_unlock(&m->lock);
  start_http(e, 0);
  pthread_mutex_lock(&m->lock);
}

/* A version as a file name's part: no separator, no control character,
 * not starting with '.'. */
static bool valid_version_part(const char *v)
{
  if (!*v || *v == '.' || strlen(v) > 256)
    return false;
  for (; *v; v++)
    if ((unsigned char)*v < 0x20 || *v == '/' || *v == '\\' || *v == 0x7f)
      return false;
  return true;
}

/* The entry of name's packument (version NULL) or of one version's
 * document, started when new. */
static struct entry *lookup_or_start(struct nub_meta *m, const char *name, const char *version)
{
  char *key = version ? nub_asprintf("%s@%s", name, version) : NULL;
  struct entry *e = nub_strmap_get(&m->entries, key ? key : name);
  const char *reg;

  if (e) {
    nub_free(key);
    return e;
  }
  e = nub_calloc(1, sizeof(*e));
  e->m = m;
  e->name = nub_strdup(name);
  e->version = version ? nub_strdup(version) : NULL;
  e->attempt = 1;
  reg = nub_config_registry_for(m->cfg, name);
  {
    char *enc = encode_name(name);
    unsigned char h[32];
    char hex[65];
    e->url = version ? nub_asprintf("%s%s/%s", reg ? reg : "", enc, version)
                     : nub_asprintf("%s%s", reg ? reg : "", enc);
    nub_sha256(reg ? reg : "", reg ? strlen(reg) : 0, h);
    nub_hex(h, 8, hex);
    e->cache_path = version ? nub_asprintf("%s/%s/%s@%s.json", m->cache_dir, hex, enc, version)
                            : nub_asprintf("%s/%s/%s.json", m->cache_dir, hex, enc);
    nub_free(enc);
  }
  e->state = M_FETCHING;
  nub_strmap_put(&m->entries, key ? key : name, e);
  nub_free(key);
  m->st.requested++;
  /* the name and version make the cache file's name: nothing that is not
   * a package name or a version is asked for or written */
  if (!nub_valid_pkg_name(name) || (version && !valid_version_part(version))) {
    snprintf(e->msg, sizeof(e->msg), "'%s%s%s' is not a package name and version; not asked for",
             name, version ? "@" : "", version ? version : "");
    e->state = M_FAILED;
    e->rc = -NUB_EUNSAFE;
    return e;
  }
  if (!reg) {
    snprintf(e->msg, sizeof(e->msg), "cannot look up %s: %s", name, nub_config_no_registry_hint);
    e->state = M_FAILED;
    e->rc = -NUB_ENOREGISTRY;
    return e;
  }
  start(m, e);
  return e;
}

void nub_meta_want(struct nub_meta *m, const char *name)
{
  pthread_mutex_lock(&m->lock);
  lookup_or_start(m, name, NULL);
  pthread_mutex_unlock(&m->lock);
}

static int wait_for(struct nub_meta *m, struct entry *e, const struct nub_packument **out,
                    struct nub_err *err)
{
  while (e->state == M_FETCHING || e->state == M_NEW)
    pthread_cond_wait(&m->cv, &m->lock);
  if (e->state == M_FAILED)
    return nub_err_set(err, e->rc, "%s", e->msg);
  *out = e->doc;
  return 0;
}

int nub_meta_get(struct nub_meta *m, const char *name, const struct nub_packument **out,
                 struct nub_err *err)
{
  int rc;

  pthread_mutex_lock(&m->lock);
  rc = wait_for(m, lookup_or_start(m, name, NULL), out, err);
  pthread_mutex_unlock(&m->lock);
  return rc;
}

void nub_meta_want_version(struct nub_meta *m, const char *name, const char *version)
{
  pthread_mutex_lock(&m->lock);
  lookup_or_start(m, name, version);
  pthread_mutex_unlock(&m->lock);
}

static bool pending(const struct entry *e)
{
  return e->state == M_FETCHING || e->state == M_NEW;
}

/* Under m->lock: wait for e until deadline (monotonic ns); false on time
 * out. */
static bool wait_until(struct nub_meta *m, struct entry *e, uint64_t deadline)
{
  while (pending(e)) {
    uint64_t now = nub_plat_now_ns();
    struct timespec ts;
    uint64_t left;
    if (now >= deadline)
      return false;
    left = deadline - now;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)(left / 1000000000ull);
    ts.tv_nsec += (long)(left % 1000000000ull);
    if (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&m->cv, &m->lock, &ts);
  }
  return true;
}

int nub_meta_get_version(struct nub_meta *m, const char *name, const char *version,
                         unsigned hedge_ms, const struct nub_pversion **out,
                         struct nub_err *err)
{
  struct entry *ev, *ep = NULL;
  int rc = 0;

  *out = NULL;
  pthread_mutex_lock(&m->lock);
  ev = lookup_or_start(m, name, version);
  if (!wait_until(m, ev, nub_plat_now_ns() + (uint64_t)hedge_ms * 1000000ull)) {
    /* late: the packument too (the first answer wins) */
    ep = lookup_or_start(m, name, NULL);
    while (pending(ev) && pending(ep))
      pthread_cond_wait(&m->cv, &m->lock);
  }
  if (ev->state == M_READY) {
    *out = ev->doc->versions[0];
  } else if (ev->state == M_FAILED && ev->rc != -NUB_ENOTFOUND && ev->rc != -NUB_EHTTP &&
             ev->rc != -NUB_EOFFLINE) {
    rc = nub_err_set(err, ev->rc, "%s", ev->msg);
  } else {
    /* a registry (or, offline, a cache) without the version's document */
    const struct nub_packument *doc = NULL;
    if (!ep)
      ep = lookup_or_start(m, name, NULL);
    rc = wait_for(m, ep, &doc, err);
    if (rc == 0)
      *out = nub_packument_version(doc, version);
  }
  pthread_mutex_unlock(&m->lock);
  return rc;
}

void nub_meta_forget(struct nub_meta *m, const char *name)
{
  pthread_mutex_lock(&m->lock);
  /* the packument, and the versions' documents this run read */
  for (size_t i = 0; i < m->entries.cap; i++) {
    struct entry *e = m->entries.slots[i].val;
    if (m->entries.slots[i].key && !strcmp(e->name, name) && e->cache_path) {
      nub_plat_unlink_at(NUB_PLAT_CWD, e->cache_path, false);
      if (e->full) { /* and the abbreviated one it was asked for after */
        size_t n = strlen(e->cache_path) - strlen(".full.json");
        char *abbrev = nub_asprintf("%.*s.json", (int)n, e->cache_path);
        nub_plat_unlink_at(NUB_PLAT_CWD, abbrev, false);
        nub_free(abbrev);
      }
    }
  }
  pthread_mutex_unlock(&m->lock);
}

int nub_meta_refetch(struct nub_meta *m, const char *name, const struct nub_packument **out,
                     struct nub_err *err)
{
  struct entry *e;
  int rc;

  pthread_mutex_lock(&m->lock);
  e = lookup_or_start(m, name, NULL);
  rc = wait_for(m, e, out, err);
  if (rc == 0 && !e->refetched && !m->o.offline) {
    /* Replace the document; the old one stays alive until nub_meta_free,
     * since callers may still hold it. */
    e->refetched = true;
    nub_free(e->cached);
    e->cached = NULL;
    e->cached_len = 0;
    if (e->doc) {
      NUB_GROW(m->retired, m->capretired, m->nretired + 1);
      m->retired[m->nretired++] = e->doc;
      e->doc = NULL;
    }
    e->state = M_FETCHING;
    e->attempt = 1;
    nub_buf_reset(&e->body);
    pthread_mutex_unlock(&m->lock);
    start_http(e, 0);
    pthread_mutex_lock(&m->lock);
    rc = wait_for(m, e, out, err);
  }
  pthread_mutex_unlock(&m->lock);
  return rc;
}
