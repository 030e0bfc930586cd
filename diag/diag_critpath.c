/* diag_critpath.c - NUB_DIAG_CRITPATH=1 reports from the recorded events:
 *  1. the critical path: the heaviest chain of non-overlapping work spans
 *     (weighted interval scheduling over spans sorted by end time), i.e. the
 *     packument -> tarball -> extract -> link steps that bounded the wall;
 *  2. worker starvation: time each pool sat idle and what it waited on
 *     ("starvation" events emitted by the pools);
 *  3. a per-package lifecycle table for the packages with the longest span.
 * Envelope categories (install, install_phase) and CPU-time categories
 * (kernel, sample) are not work spans and are left out of the path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag_int.h"
#include "nub_alloc.h"

static bool is_envelope(const char *cat)
{
  return !strcmp(cat, "install") || !strcmp(cat, "install_phase") ||
         !strcmp(cat, "kernel") || !strcmp(cat, "sample") ||
         !strcmp(cat, "starvation");
}

static int cmp_end(const void *a, const void *b)
{
  const struct nub_diag_record *x = *(const struct nub_diag_record *const *)a;
  const struct nub_diag_record *y = *(const struct nub_diag_record *const *)b;
  return x->end < y->end ? -1 : x->end > y->end ? 1 : 0;
}

struct span_by_dur {
  const struct nub_diag_record *r;
};

static int cmp_dur_desc(const void *a, const void *b)
{
  const struct nub_diag_record *x = ((const struct span_by_dur *)a)->r;
  const struct nub_diag_record *y = ((const struct span_by_dur *)b)->r;
  uint64_t dx = x->end - x->start, dy = y->end - y->start;
  return dx < dy ? 1 : dx > dy ? -1 : 0;
}

static void print_path(struct nub_diag_sink *s, double wall_ms)
{
  struct nub_diag_record **v = nub_malloc(sizeof(*v) * (s->nrec + 1));
  size_t n = 0, *pred, k = 0;
  uint64_t *best;
  bool *take, *on_path;
  size_t *chain;
  struct span_by_dur *off;
  size_t noff = 0;
  uint64_t total;

  for (size_t i = 0; i < s->nrec; i++)
    if (!is_envelope(s->rec[i].cat) && s->rec[i].end > s->rec[i].start)
      v[n++] = &s->rec[i];
  if (n == 0) {
    fprintf(stderr, "critical path: no work spans recorded\n");
    nub_free(v);
    return;
  }
  nub_sort(v, n, sizeof(*v), cmp_end);
  pred = nub_malloc(sizeof(*pred) * n);
  best = nub_calloc(n + 1, sizeof(*best));
  take = nub_calloc(n, sizeof(*take));
  on_path = nub_calloc(n, sizeof(*on_path));
  /* pred[i] = number of spans that end at or before v[i] starts. */
  for (size_t i = 0; i < n; i++) {
    size_t lo = 0, hi = i;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (v[mid]->end <= v[i]->start)
        lo = mid + 1;
      else
        hi = mid;
    }
    pred[i] = lo;
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t with = (v[i]->end - v[i]->start) + best[pred[i]];
    take[i] = with > best[i];
    best[i + 1] = take[i] ? with : best[i];
  }
  total = best[n];
  chain = nub_malloc(sizeof(*chain) * n);
  for (size_t i = n; i > 0;) {
    if (take[i - 1]) {
      chain[k++] = i - 1;
      on_path[i - 1] = true;
      i = pred[i - 1];
    } else {
      i--;
    }
  }
  fprintf(stderr, "critical path %.1fms (%.0f%% of %.1fms wall, %zu spans)\n",
          (double)total / 1e6, wall_ms > 0 ? 100.0 * (double)total / 1e6 / wall_ms : 0,
          wall_ms, k);
  fprintf(stderr, "%5s %10s %10s %-12s %-26s %s\n", "#", "start_ms", "dur_ms",
          "cat", "name", "pkg");
  {
    size_t shown = 0, small = 0;
    double small_ms = 0;
    for (size_t j = k; j > 0; j--) {
      const struct nub_diag_record *r = v[chain[j - 1]];
      double d = (double)(r->end - r->start) / 1e6;
      if (d < 1.0) {
        small++;
        small_ms += d;
        continue;
      }
      if (small) {
        fprintf(stderr, "      (collapsed %zu sub-1ms spans, %.1fms)\n", small,
                small_ms);
        small = 0;
        small_ms = 0;
      }
      if (shown++ < 40)
        fprintf(stderr, "%5zu %10.1f %10.1f %-12s %-26s %s\n", shown,
                nub_diag_ms(r->start), d, r->cat, r->name, r->pkg ? r->pkg : "");
    }
    if (small)
      fprintf(stderr, "      (collapsed %zu sub-1ms spans, %.1fms)\n", small,
              small_ms);
  }
  off = nub_malloc(sizeof(*off) * n);
  for (size_t i = 0; i < n; i++)
    if (!on_path[i])
      off[noff++].r = v[i];
  nub_sort(off, noff, sizeof(*off), cmp_dur_desc);
  if (noff) {
    fprintf(stderr, "top off-critical spans (overlapped with the path)\n");
    for (size_t i = 0; i < noff && i < 10; i++)
      fprintf(stderr, "  %10.1fms %-12s %-26s %s\n",
              (double)(off[i].r->end - off[i].r->start) / 1e6, off[i].r->cat,
              off[i].r->name, off[i].r->pkg ? off[i].r->pkg : "");
  }
  nub_free(off);
  nub_free(chain);
  nub_free(on_path);
  nub_free(take);
  nub_free(best);
  nub_free(pred);
  nub_free(v);
}

static void print_starvation(struct nub_diag_sink *s)
{
  struct { const char *name; uint64_t n, ns, max; } rows[32];
  int nrows = 0;

  for (size_t i = 0; i < s->nrec; i++) {
    const struct nub_diag_record *r = &s->rec[i];
    int j;
    if (strcmp(r->cat, "starvation"))
      continue;
    for (j = 0; j < nrows; j++)
      if (!strcmp(rows[j].name, r->name))
        break;
    if (j == nrows) {
      if (nrows == 32)
        continue;
      rows[nrows].name = r->name;
      rows[nrows].n = rows[nrows].ns = rows[nrows].max = 0;
      nrows++;
    }
    rows[j].n++;
    rows[j].ns += r->end - r->start;
    if (r->end - r->start > rows[j].max)
      rows[j].max = r->end - r->start;
  }
  fprintf(stderr, "worker starvation (idle time per pool and what it waited on)\n");
  if (!nrows) {
    fprintf(stderr, "  none recorded\n");
    return;
  }
  fprintf(stderr, "  %-30s %8s %10s %10s\n", "pool.waited_on", "n", "sum_ms",
          "max_ms");
  for (int j = 0; j < nrows; j++)
    fprintf(stderr, "  %-30s %8llu %10.1f %10.1f\n", rows[j].name,
            (unsigned long long)rows[j].n, (double)rows[j].ns / 1e6,
            (double)rows[j].max / 1e6);
}

struct life {
  const char *pkg;
  uint64_t first, last, n;
};

static int cmp_life(const void *a, const void *b)
{
  const struct life *x = a, *y = b;
  uint64_t sx = x->last - x->first, sy = y->last - y->first;
  return sx < sy ? 1 : sx > sy ? -1 : 0;
}

static int cmp_rec_pkg(const void *a, const void *b)
{
  const struct nub_diag_record *x = *(const struct nub_diag_record *const *)a;
  const struct nub_diag_record *y = *(const struct nub_diag_record *const *)b;
  return strcmp(x->pkg, y->pkg);
}

static void print_lifecycle(struct nub_diag_sink *s, double wall_ms)
{
  struct nub_diag_record **v = nub_malloc(sizeof(*v) * (s->nrec + 1));
  struct life *l = nub_malloc(sizeof(*l) * (s->nrec + 1));
  size_t n = 0, m = 0;

  for (size_t i = 0; i < s->nrec; i++)
    if (s->rec[i].pkg && !is_envelope(s->rec[i].cat))
      v[n++] = &s->rec[i];
  nub_sort(v, n, sizeof(*v), cmp_rec_pkg);
  for (size_t i = 0; i < n; i++) {
    if (m == 0 || strcmp(l[m - 1].pkg, v[i]->pkg)) {
      l[m].pkg = v[i]->pkg;
      l[m].first = v[i]->start;
      l[m].last = v[i]->end;
      l[m].n = 0;
      m++;
    }
    struct life *c = &l[m - 1];
    c->n++;
    if (v[i]->start < c->first)
      c->first = v[i]->start;
    if (v[i]->end > c->last)
      c->last = v[i]->end;
  }
  nub_sort(l, m, sizeof(*l), cmp_life);
  fprintf(stderr, "per-package lifecycle (top 20 by span, %zu packages)\n", m);
  fprintf(stderr, "  %-40s %9s %9s %9s %6s %6s\n", "pkg", "first_ms", "last_ms",
          "span_ms", "evts", "%wall");
  for (size_t i = 0; i < m && i < 20; i++) {
    double span = (double)(l[i].last - l[i].first) / 1e6;
    fprintf(stderr, "  %-40s %9.1f %9.1f %9.1f %6llu %5.1f%%\n", l[i].pkg,
            nub_diag_ms(l[i].first), nub_diag_ms(l[i].last), span,
            (unsigned long long)l[i].n, wall_ms > 0 ? 100.0 * span / wall_ms : 0);
  }
  nub_free(l);
  nub_free(v);
}

void nub__diag_print_critpath(struct nub_diag_sink *s)
{
  double wall = nub_diag_ms(nub_plat_now_ns());

  pthread_mutex_lock(&s->lock);
  fprintf(stderr, "\n");
  print_path(s, wall);
  fprintf(stderr, "\n");
  print_starvation(s);
  fprintf(stderr, "\n");
  print_lifecycle(s, wall);
  pthread_mutex_unlock(&s->lock);
}
