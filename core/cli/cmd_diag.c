/* cmd_diag.c - `nub diag report` (one HTML file from a NUB_DIAG_FILE) and
 * `nub diag diff` (two runs side by side, as ratios). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "cli.h"
#include "diagfile.h"
#include "nub_alloc.h"
#include "nub_plat.h"

const char cli_diag_help[] =
    "usage: nub diag report <run.jsonl> [-o report.html]\n"
    "       nub diag diff <A.jsonl> <B.jsonl> [--json]\n\n"
    "A run's events come from NUB_DIAG_FILE=<run.jsonl> (see docs/diag.md).\n"
    "report writes one self-contained HTML page: the per-thread timeline, the\n"
    "phase split, the strategy tally, the slowest packages, the critical path\n"
    "and the kernel table (default: <run>.html beside the file).\n"
    "diff prints, per phase and per link primitive, A, B and B/A, and a verdict\n"
    "line; --json prints the same as one JSON object.\n";

static int report(int argc, char **argv)
{
  const char *in = NULL, *out = NULL;
  struct nub_buf b = NUB_BUF_INIT;
  struct nub_err err;
  char *def = NULL;
  int rc;

  for (int i = 2; i < argc; i++) {
    if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc)
      out = argv[++i];
    else if (!in && argv[i][0] != '-')
      in = argv[i];
    else
      return cli_usage("nub diag report: unexpected '%s'", argv[i]);
  }
  if (!in)
    return cli_usage("nub diag report needs a NUB_DIAG_FILE to read");
  if (!out) {
    size_t n = strlen(in);
    def = n > 6 && !strcmp(in + n - 6, ".jsonl") ? nub_asprintf("%.*s.html", (int)(n - 6), in)
                                                  : nub_asprintf("%s.html", in);
    out = def;
  }
  nub_err_clear(&err);
  rc = nub_diag_report_html(in, &b, &err);
  if (rc == 0) {
    rc = nub_plat_write_file_atomic(out, b.data, b.len, 0644);
    if (rc < 0)
      nub_err_set(&err, rc, "cannot write %s: %s", out, nub_strerror(rc));
  }
  if (rc == 0)
    printf("%s\n", out);
  nub_buf_release(&b);
  nub_free(def);
  return rc < 0 ? cli_fail(&err) : 0;
}

static double ratio(double a, double b) { return a > 0 ? b / a : 0; }

/* 40935 -> "40,935" */
static const char *grouped(uint64_t v, char *buf, size_t cap)
{
  char raw[32];
  size_t n = (size_t)snprintf(raw, sizeof(raw), "%llu", (unsigned long long)v), o = 0;

  for (size_t i = 0; i < n && o + 2 < cap; i++) {
    if (i && (n - i) % 3 == 0)
      buf[o++] = ',';
    buf[o++] = raw[i];
  }
  buf[o] = '\0';
  return buf;
}

/* The files a run linked by one primitive, as a share of all its files. */
static double share(const struct nub_diagrun *r, const char *prim)
{
  for (int i = 0; i < r->nprims; i++)
    if (!strcmp(r->prim[i].name, prim))
      return r->files ? 100.0 * (double)r->prim[i].files / (double)r->files : 0;
  return 0;
}

static double phase_ms(const struct nub_diagrun *r, const char *name, const char **detail)
{
  for (int i = 0; i < r->nphases; i++)
    if (!strcmp(r->phase[i].name, name)) {
      if (detail)
        *detail = r->phase[i].detail;
      return r->phase[i].ms;
    }
  return -1;
}

/* "link: 40,935 files, 100% link_hardlink in both; B/A 0.62" */
static void verdict(const struct nub_diagrun *a, const struct nub_diagrun *b, char *out,
                    size_t cap)
{
  const char *pa = a->nprims ? a->prim[0].name : "no link", *pb = b->nprims ? b->prim[0].name
                                                                            : "no link";
  double la = phase_ms(a, "link", NULL), lb = phase_ms(b, "link", NULL);
  char files[64], mix[200], g1[32], g2[32];

  /* the main primitive of each: the one with most files */
  for (int i = 1; i < a->nprims; i++)
    if (a->prim[i].files > a->prim[0].files && share(a, a->prim[i].name) > share(a, pa))
      pa = a->prim[i].name;
  for (int i = 1; i < b->nprims; i++)
    if (share(b, b->prim[i].name) > share(b, pb))
      pb = b->prim[i].name;
  if (a->files == b->files)
    snprintf(files, sizeof(files), "%s files", grouped(a->files, g1, sizeof(g1)));
  else
    snprintf(files, sizeof(files), "%s vs %s files", grouped(a->files, g1, sizeof(g1)),
             grouped(b->files, g2, sizeof(g2)));
  if (!strcmp(pa, pb) && share(a, pa) == share(b, pb))
    snprintf(mix, sizeof(mix), "%.0f%% %s in both", share(a, pa), pa);
  else
    snprintf(mix, sizeof(mix), "%.0f%% %s in A, %.0f%% %s in B", share(a, pa), pa,
             share(b, pb), pb);
  snprintf(out, cap, "link: %s, %s; B/A %.2f (total B/A %.2f)", files, mix,
           la > 0 && lb >= 0 ? lb / la : 0, ratio(a->total_ms, b->total_ms));
}

static int diff(int argc, char **argv)
{
  struct nub_diagrun *a = nub_calloc(1, sizeof(*a)), *b = nub_calloc(1, sizeof(*b));
  const char *pa = NULL, *pb = NULL;
  bool json = false;
  struct nub_err err;
  char v[400];
  int rc = 0;

  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--json"))
      json = true;
    else if (!pa)
      pa = argv[i];
    else if (!pb)
      pb = argv[i];
    else
      rc = cli_usage("nub diag diff: unexpected '%s'", argv[i]);
  }
  if (rc == 0 && !pb)
    rc = cli_usage("nub diag diff needs two NUB_DIAG_FILE runs: A and B");
  nub_err_clear(&err);
  if (rc == 0 && (nub_diagrun_load(a, pa, &err) < 0 || nub_diagrun_load(b, pb, &err) < 0))
    rc = cli_fail(&err);
  if (rc) {
    nub_free(a);
    nub_free(b);
    return rc;
  }
  verdict(a, b, v, sizeof(v));
  if (json) {
    printf("{\"a\":\"%s\",\"b\":\"%s\",\"total\":{\"a\":%.3f,\"b\":%.3f,\"ratio\":%.4f},"
           "\"phases\":{", pa, pb, a->total_ms, b->total_ms, ratio(a->total_ms, b->total_ms));
    for (int i = 0; i < a->nphases; i++) {
      double y = phase_ms(b, a->phase[i].name, NULL);
      printf("%s\"%s\":{\"a\":%.3f,\"b\":%.3f,\"ratio\":%.4f}", i ? "," : "", a->phase[i].name,
             a->phase[i].ms, y < 0 ? 0 : y, y < 0 ? 0 : ratio(a->phase[i].ms, y));
    }
    printf("},\"strategies\":{");
    for (int i = 0; i < a->nprims; i++)
      printf("%s\"%s\":{\"a_files\":%llu,\"a_share\":%.2f}", i ? "," : "", a->prim[i].name,
             (unsigned long long)a->prim[i].files, share(a, a->prim[i].name));
    for (int i = 0; i < b->nprims; i++)
      printf("%s\"B:%s\":{\"b_files\":%llu,\"b_share\":%.2f}", a->nprims || i ? "," : "",
             b->prim[i].name, (unsigned long long)b->prim[i].files, share(b, b->prim[i].name));
    printf("},\"files\":{\"a\":%llu,\"b\":%llu},\"packages\":{\"a\":%zu,\"b\":%zu},"
           "\"verdict\":\"%s\"}\n", (unsigned long long)a->files, (unsigned long long)b->files,
           a->packages, b->packages, v);
  } else {
    printf("%-22s %12s %12s %8s\n", "", "A", "B", "B/A");
    for (int i = 0; i < a->nphases; i++) {
      const char *da = a->phase[i].detail, *db = "";
      double y = phase_ms(b, a->phase[i].name, &db);
      char n[40];
      snprintf(n, sizeof(n), "phase %s", a->phase[i].name);
      if (y < 0)
        printf("%-22s %10.1fms %12s %8s  %s\n", n, a->phase[i].ms, "-", "-", da);
      else
        printf("%-22s %10.1fms %10.1fms %8.2f  %s | %s\n", n, a->phase[i].ms, y,
               ratio(a->phase[i].ms, y), da, db);
    }
    for (int i = 0; i < b->nphases; i++)
      if (phase_ms(a, b->phase[i].name, NULL) < 0)
        printf("phase %-16s %12s %10.1fms %8s\n", b->phase[i].name, "-", b->phase[i].ms, "-");
    printf("%-22s %10.1fms %10.1fms %8.2f\n", "total", a->total_ms, b->total_ms,
           ratio(a->total_ms, b->total_ms));
    for (int i = 0; i < a->nprims; i++)
      printf("A %-20s %8llu files %5.1f%%  %9.1fms summed\n", a->prim[i].name,
             (unsigned long long)a->prim[i].files, share(a, a->prim[i].name), a->prim[i].ms);
    for (int i = 0; i < b->nprims; i++)
      printf("B %-20s %8llu files %5.1f%%  %9.1fms summed\n", b->prim[i].name,
             (unsigned long long)b->prim[i].files, share(b, b->prim[i].name), b->prim[i].ms);
    printf("packages               %12zu %12zu\n", a->packages, b->packages);
    printf("%s\n", v);
  }
  nub_free(a);
  nub_free(b);
  return 0;
}

int cmd_diag(int argc, char **argv)
{
  if (argc >= 2 && !strcmp(argv[1], "report"))
    return report(argc, argv);
  if (argc >= 2 && !strcmp(argv[1], "diff"))
    return diff(argc, argv);
  return cli_usage("nub diag takes: report <run.jsonl> [-o out.html], diff <A> <B> [--json]");
}
