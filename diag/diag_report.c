/* diag_report.c - what the sink prints or appends at exit: the summary table,
 * the strategy tally, the slowest packages, kernel deltas, the critical path
 * report and the bench phases line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag_int.h"
#include "nub_alloc.h"

/* ---- aggregation (caller holds the lock) ------------------------------- */

static uint64_t hash_ptrs(const void *a, const void *b)
{
  uint64_t h = (uint64_t)(uintptr_t)a * 0x9E3779B97F4A7C15ull;
  return h ^ ((uint64_t)(uintptr_t)b * 0xC2B2AE3D27D4EB4Full);
}

void nub__diag_agg_add_locked(struct nub_diag_sink *s, const char *cat,
                              const char *name, uint64_t dur_ns)
{
  uint64_t h = hash_ptrs(cat, name);

  for (unsigned i = 0; i < NUB_DIAG_AGG_SLOTS; i++) {
    struct nub_diag_agg *a = &s->agg[(h + i) % NUB_DIAG_AGG_SLOTS];
    /* Names are compared by content: the same literal may live at two
     * addresses in two translation units. */
    if (!a->cat) {
      a->cat = cat;
      a->name = name;
    } else if (strcmp(a->cat, cat) || strcmp(a->name, name)) {
      continue;
    }
    a->n++;
    a->sum_ns += dur_ns;
    if (dur_ns > a->max_ns)
      a->max_ns = dur_ns;
    return;
  }
}

bool nub__diag_meta_pkg(const char *meta, char *buf, size_t cap)
{
  const char *p;
  size_t n = 0;

  if (!meta)
    return false;
  p = strstr(meta, "\"pkg\":\"");
  if (!p)
    return false;
  p += 7;
  while (p[n] && p[n] != '"' && n + 1 < cap)
    n++;
  memcpy(buf, p, n);
  buf[n] = '\0';
  return n > 0;
}

static uint64_t hash_str(const char *s)
{
  uint64_t h = 1469598103934665603ull;
  while (*s)
    h = (h ^ (unsigned char)*s++) * 1099511628211ull;
  return h;
}

void nub__diag_pkg_add_locked(struct nub_diag_sink *s, const char *meta,
                              uint64_t start_ns, uint64_t end_ns)
{
  char pkg[256];
  uint64_t h;

  if (!nub__diag_meta_pkg(meta, pkg, sizeof(pkg)))
    return;
  if (!s->pkgs)
    s->pkgs = nub_calloc(NUB_DIAG_PKG_SLOTS, sizeof(*s->pkgs));
  h = hash_str(pkg);
  for (unsigned i = 0; i < NUB_DIAG_PKG_SLOTS; i++) {
    struct nub_diag_pkgagg *a = &s->pkgs[(h + i) % NUB_DIAG_PKG_SLOTS];
    if (!a->pkg) {
      a->pkg = nub_strdup(pkg);
      a->first_ns = start_ns;
    } else if (strcmp(a->pkg, pkg)) {
      continue;
    }
    a->n++;
    a->sum_ns += end_ns - start_ns;
    if (start_ns < a->first_ns)
      a->first_ns = start_ns;
    if (end_ns > a->last_ns)
      a->last_ns = end_ns;
    return;
  }
}

void nub__diag_record_locked(struct nub_diag_sink *s, const char *cat,
                             const char *name, uint64_t start_ns,
                             uint64_t end_ns, const char *meta)
{
  char pkg[256];
  struct nub_diag_record *r;

  if (s->nrec >= NUB_DIAG_MAXRECORDS)
    return;
  NUB_GROW(s->rec, s->caprec, s->nrec + 1);
  r = &s->rec[s->nrec++];
  r->cat = cat;
  r->name = name;
  r->start = start_ns;
  r->end = end_ns;
  r->pkg = nub__diag_meta_pkg(meta, pkg, sizeof(pkg)) ? nub_strdup(pkg) : NULL;
}

void nub__diag_free_records(struct nub_diag_sink *s)
{
  for (size_t i = 0; i < s->nrec; i++)
    nub_free(s->rec[i].pkg);
  nub_free(s->rec);
  s->rec = NULL;
  s->nrec = s->caprec = 0;
  if (s->pkgs) {
    for (unsigned i = 0; i < NUB_DIAG_PKG_SLOTS; i++)
      nub_free(s->pkgs[i].pkg);
    nub_free(s->pkgs);
    s->pkgs = NULL;
  }
}

/* ---- kernel deltas ----------------------------------------------------- */

int nub__diag_kernel_delta(const char *phase, const struct nub_plat_rusage *ru0,
                           uint64_t t0, uint64_t t1, struct nub_jw *w, uint64_t *cpu_ns)
{
  struct nub_diag_sink *s = &nub__diag;
  struct nub_plat_rusage ru1, d;

  if (nub_plat_rusage(NUB_RUSAGE_SELF, &ru1) < 0)
    return -1;
  d.user_us = ru1.user_us - ru0->user_us;
  d.sys_us = ru1.sys_us - ru0->sys_us;
  d.max_rss_bytes = ru1.max_rss_bytes;
  d.minflt = ru1.minflt - ru0->minflt;
  d.majflt = ru1.majflt - ru0->majflt;
  d.nvcsw = ru1.nvcsw - ru0->nvcsw;
  d.nivcsw = ru1.nivcsw - ru0->nivcsw;
  d.inblock = ru1.inblock - ru0->inblock;
  d.oublock = ru1.oublock - ru0->oublock;
  nub_jw_begin(w);
  nub_jw_num(w, "user_ms", (double)d.user_us / 1e3);
  nub_jw_num(w, "sys_ms", (double)d.sys_us / 1e3);
  nub_jw_int(w, "rss_peak", (long long)d.max_rss_bytes);
  nub_jw_int(w, "minor_faults", (long long)d.minflt);
  nub_jw_int(w, "major_faults", (long long)d.majflt);
  nub_jw_int(w, "vol_ctxsw", (long long)d.nvcsw);
  nub_jw_int(w, "invol_ctxsw", (long long)d.nivcsw);
  nub_jw_int(w, "block_in", (long long)d.inblock);
  nub_jw_int(w, "block_out", (long long)d.oublock);
  nub_jw_num(w, "wall_ms", (double)(t1 - t0) / 1e6);
  *cpu_ns = (d.user_us + d.sys_us) * 1000u;
  pthread_mutex_lock(&s->lock);
  if (s->nkern < NUB_DIAG_MAXPHASES) {
    s->kern[s->nkern].phase = phase;
    s->kern[s->nkern].d = d;
    s->kern[s->nkern].wall_ns = t1 - t0;
    s->nkern++;
  }
  pthread_mutex_unlock(&s->lock);
  return 0;
}

/* ---- summary ----------------------------------------------------------- */

static int cmp_agg(const void *a, const void *b)
{
  const struct nub_diag_agg *x = a, *y = b;
  return x->sum_ns < y->sum_ns ? 1 : x->sum_ns > y->sum_ns ? -1 : 0;
}

static int cmp_pkg(const void *a, const void *b)
{
  const struct nub_diag_pkgagg *x = a, *y = b;
  return x->sum_ns < y->sum_ns ? 1 : x->sum_ns > y->sum_ns ? -1 : 0;
}

void nub__diag_print_summary(struct nub_diag_sink *s)
{
  struct nub_diag_agg rows[NUB_DIAG_AGG_SLOTS];
  int n = 0;
  double wall = nub_diag_ms(nub_plat_now_ns());

  pthread_mutex_lock(&s->lock);
  for (unsigned i = 0; i < NUB_DIAG_AGG_SLOTS; i++)
    if (s->agg[i].cat)
      rows[n++] = s->agg[i];
  nub_sort(rows, (size_t)n, sizeof(rows[0]), cmp_agg);
  fprintf(stderr, "diag total %.1fms\n", wall);
  fprintf(stderr, "%-14s %-28s %8s %10s %9s %9s %7s\n", "cat", "name", "n",
          "sum_ms", "mean_ms", "max_ms", "%wall");
  for (int i = 0; i < n && i < 40; i++) {
    double sum = (double)rows[i].sum_ns / 1e6;
    fprintf(stderr, "%-14s %-28s %8llu %10.1f %9.3f %9.1f %6.1f%%\n",
            rows[i].cat, rows[i].name, (unsigned long long)rows[i].n, sum,
            sum / (double)rows[i].n, (double)rows[i].max_ns / 1e6,
            wall > 0 ? 100.0 * sum / wall : 0.0);
  }

  fprintf(stderr, "\nstrategy tally\n%-22s %9s %12s %10s\n", "primitive",
          "files", "bytes", "ms");
  for (int p = 0; p < NUB_PRIM__COUNT; p++) {
    if (!s->tally.files[p])
      continue;
    fprintf(stderr, "%-22s %9llu %12llu %10.1f\n",
            nub_diag_link_event_name((enum nub_prim)p),
            (unsigned long long)s->tally.files[p],
            (unsigned long long)s->tally.bytes[p], (double)s->tally.ns[p] / 1e6);
  }
  for (int i = 0; i < s->nfb; i++)
    fprintf(stderr, "fallback from %-13s %s x%llu\n",
            nub_plat_prim_name(s->fb[i].from), strerror(s->fb[i].err),
            (unsigned long long)s->fb[i].n);

  if (s->nkern) {
    fprintf(stderr, "\nkernel (getrusage deltas per phase)\n");
    fprintf(stderr, "%-14s %9s %9s %9s %10s %8s %8s %8s %8s %8s\n", "phase",
            "wall_ms", "user_ms", "sys_ms", "rss_peakMB", "minflt", "majflt",
            "vcsw", "ivcsw", "blk_out");
    for (int i = 0; i < s->nkern; i++) {
      const struct nub_diag_kernel *k = &s->kern[i];
      fprintf(stderr, "%-14s %9.1f %9.1f %9.1f %10.1f %8llu %8llu %8llu %8llu %8llu\n",
              k->phase, (double)k->wall_ns / 1e6, (double)k->d.user_us / 1e3,
              (double)k->d.sys_us / 1e3, (double)k->d.max_rss_bytes / 1048576.0,
              (unsigned long long)k->d.minflt, (unsigned long long)k->d.majflt,
              (unsigned long long)k->d.nvcsw, (unsigned long long)k->d.nivcsw,
              (unsigned long long)k->d.oublock);
    }
  }

  if (s->pkgs) {
    struct nub_diag_pkgagg *top = nub_malloc(sizeof(*top) * NUB_DIAG_PKG_SLOTS);
    int m = 0;
    for (unsigned i = 0; i < NUB_DIAG_PKG_SLOTS; i++)
      if (s->pkgs[i].pkg)
        top[m++] = s->pkgs[i];
    nub_sort(top, (size_t)m, sizeof(*top), cmp_pkg);
    fprintf(stderr, "\nslowest packages (sum of their events)\n%-40s %8s %10s %10s\n",
            "pkg", "events", "sum_ms", "span_ms");
    for (int i = 0; i < m && i < 10; i++)
      fprintf(stderr, "%-40s %8llu %10.1f %10.1f\n", top[i].pkg,
              (unsigned long long)top[i].n, (double)top[i].sum_ns / 1e6,
              (double)(top[i].last_ns - top[i].first_ns) / 1e6);
    nub_free(top);
  }
  pthread_mutex_unlock(&s->lock);
}

/* ---- bench phases line ------------------------------------------------- */

void nub_diag_bench_line(const char *cwd, uint64_t total_ns)
{
  struct nub_diag_sink *s = &nub__diag;
  FILE *f;
  char phases[1024], tally[512];
  size_t o = 0, t = 0;
  struct nub_jw w;

  if (!s->initialised || !s->bench_path)
    return;
  pthread_mutex_lock(&s->lock);
  o += (size_t)snprintf(phases + o, sizeof(phases) - o, "{");
  for (int i = 0; i < s->nphases && o < sizeof(phases) - 64; i++)
    o += (size_t)snprintf(phases + o, sizeof(phases) - o, "%s\"%s\":%.3f",
                          i ? "," : "", s->phases[i].name,
                          (double)s->phases[i].ns / 1e6);
  snprintf(phases + o, sizeof(phases) - o, "}");
  t += (size_t)snprintf(tally + t, sizeof(tally) - t, "{");
  for (int p = 0, first = 1; p < NUB_PRIM__COUNT && t < sizeof(tally) - 64; p++) {
    if (!s->tally.files[p])
      continue;
    t += (size_t)snprintf(tally + t, sizeof(tally) - t, "%s\"%s\":%llu",
                          first ? "" : ",", nub_plat_prim_name((enum nub_prim)p),
                          (unsigned long long)s->tally.files[p]);
    first = 0;
  }
  snprintf(tally + t, sizeof(tally) - t, "}");
  nub_jw_begin(&w);
  nub_jw_str(&w, "cwd", cwd);
  nub_jw_str(&w, "scenario", nub_plat_getenv("NUB_BENCH_SCENARIO"));
  nub_jw_num(&w, "total_ms", (double)total_ns / 1e6);
  for (int i = 0; i < s->ncounts; i++)
    nub_jw_int(&w, s->counts[i].key, s->counts[i].v);
  nub_jw_raw(&w, "phases_ms", phases);
  nub_jw_raw(&w, "tally", tally);
  pthread_mutex_unlock(&s->lock);
  f = fopen(s->bench_path, "a");
  if (!f) {
    fprintf(stderr, "nub: warning: cannot append to NUB_BENCH_PHASES_FILE '%s'\n",
            s->bench_path);
    return;
  }
  fprintf(f, "%s\n", nub_jw_end(&w));
  fclose(f);
}
