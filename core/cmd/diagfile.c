/* diagfile.c - a run's JSONL read back; see diagfile.h. */
#include "diagfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "strmap.h"

extern const char nub_report_page_head[], nub_report_page_tail[];

/* Calls fn for every event line of path (parsed; lines that are not JSON
 * objects fail the read). */
static int each_event(const char *path, int (*fn)(void *ud, cJSON *ev, const char *line,
                                                 size_t len),
                      void *ud, struct nub_err *err)
{
  char *text = NULL;
  size_t len = 0;
  int rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, (size_t)2 << 30, &text, &len), lineno = 0;

  if (rc < 0)
    return nub_err_set(err, rc == -ENOENT ? -ENOENT : rc, "cannot read %s: %s", path,
                       nub_strerror(rc));
  for (char *p = text; p < text + len;) {
    char *nl = memchr(p, '\n', (size_t)(text + len - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
    cJSON *ev = NULL;
    lineno++;
    if (n) {
      struct nub_err e2;
      nub_err_clear(&e2);
      if (nub_json_parse(p, n, path, -NUB_EUSAGE, 0, &ev, &e2) < 0 || !cJSON_IsObject(ev) ||
          !nub_json_str(ev, "cat")) {
        cJSON_Delete(ev);
        nub_free(text);
        return nub_err_set(err, -NUB_EUSAGE, "%s:%d: not an event of NUB_DIAG_FILE", path,
                           lineno);
      }
      rc = fn(ud, ev, p, n);
      cJSON_Delete(ev);
      if (rc < 0)
        break;
    }
    p += n + 1;
  }
  nub_free(text);
  return rc < 0 ? rc : 0;
}

static double num(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

struct load {
  struct nub_diagrun *r;
  struct nub_strmap pkgs;
  double last_t;
};

static int load_one(void *ud, cJSON *ev, const char *line, size_t len)
{
  struct load *L = ud;
  struct nub_diagrun *r = L->r;
  const char *cat = nub_json_str(ev, "cat"), *name = nub_json_str(ev, "name");
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(ev, "meta");
  const char *pkg = cJSON_IsObject(meta) ? nub_json_str(meta, "pkg") : NULL;
  double dur = num(ev, "dur"), t = num(ev, "t");

  (void)line, (void)len;
  r->events++;
  if (t > L->last_t)
    L->last_t = t;
  if (!name)
    return 0;
  if (pkg && !nub_strmap_get(&L->pkgs, pkg)) {
    nub_strmap_put(&L->pkgs, pkg, (void *)1);
    r->packages++;
  }
  if (!strcmp(cat, "install_phase") && r->nphases < NUB_DIAGRUN_MAX) {
    const char *d = cJSON_IsObject(meta) ? nub_json_str(meta, "detail") : NULL;
    snprintf(r->phase[r->nphases].name, sizeof(r->phase[0].name), "%s", name);
    snprintf(r->phase[r->nphases].detail, sizeof(r->phase[0].detail), "%s", d ? d : "");
    r->phase[r->nphases++].ms = dur;
  } else if (!strcmp(cat, "linker")) {
    int i;
    for (i = 0; i < r->nprims && strcmp(r->prim[i].name, name); i++)
      ;
    if (i == r->nprims && r->nprims < NUB_DIAGRUN_MAX)
      snprintf(r->prim[r->nprims++].name, sizeof(r->prim[0].name), "%s", name);
    if (i < r->nprims) {
      /* one event per file, or per package with its count (clonedir) */
      const cJSON *nf = cJSON_IsObject(meta) ? cJSON_GetObjectItemCaseSensitive(meta, "files")
                                             : NULL;
      uint64_t files = cJSON_IsNumber(nf) ? (uint64_t)nf->valuedouble : 1;
      r->prim[i].files += files;
      r->prim[i].bytes += cJSON_IsObject(meta) ? (uint64_t)num(meta, "bytes") : 0;
      r->prim[i].ms += dur;
      r->files += files;
    }
  } else if (!strcmp(cat, "install") && !strcmp(name, "total")) {
    r->total_ms = dur;
  }
  return 0;
}

int nub_diagrun_load(struct nub_diagrun *r, const char *path, struct nub_err *err)
{
  struct load L = {r, {NULL, 0, 0}, 0};
  int rc;

  memset(r, 0, sizeof(*r));
  rc = each_event(path, load_one, &L, err);
  if (rc == 0 && !r->total_ms)
    r->total_ms = L.last_t;
  if (rc == 0 && !r->events)
    rc = nub_err_set(err, -NUB_EUSAGE, "%s has no events (is it a NUB_DIAG_FILE?)", path);
  nub_strmap_release(&L.pkgs, NULL);
  return rc;
}

/* ---- the report ----------------------------------------------------------- */

struct embed {
  struct nub_buf *out;
  size_t n;
};

static int embed_one(void *ud, cJSON *ev, const char *line, size_t len)
{
  struct embed *E = ud;

  (void)ev;
  if (E->n++)
    nub_buf_add(E->out, ",\n", 2);
  /* inside <script>: no "</" may close it early */
  for (size_t i = 0; i < len; i++) {
    if (line[i] == '<' && i + 1 < len && line[i + 1] == '/')
      nub_buf_add(E->out, "<\\", 2);
    else
      nub_buf_add(E->out, line + i, 1);
  }
  return 0;
}

int nub_diag_report_html(const char *path, struct nub_buf *out, struct nub_err *err)
{
  struct embed E = {out, 0};
  size_t start = out->len;
  int rc;

  nub_buf_add(out, nub_report_page_head, strlen(nub_report_page_head));
  rc = each_event(path, embed_one, &E, err);
  if (rc == 0 && !E.n)
    rc = nub_err_set(err, -NUB_EUSAGE, "%s has no events (is it a NUB_DIAG_FILE?)", path);
  if (rc < 0) {
    out->len = start;
    return rc;
  }
  nub_buf_add(out, nub_report_page_tail, strlen(nub_report_page_tail));
  return 0;
}
