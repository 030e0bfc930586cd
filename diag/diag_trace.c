/* diag_trace.c - NUB_DIAG_TRACE: the run as a Chrome trace (the trace
 * event format's JSON object form, which Perfetto's UI and chrome://tracing
 * open).
 *
 * Every event of the sink becomes a trace event on the lane of the thread
 * that emitted it (nub_diag_thread_name names lanes): spans are complete
 * events ("X"), instants "i", the sampler's numbers counters ("C"); the
 * phases get a lane of their own, on top. Events are formatted into one
 * growing buffer under the sink's lock and written at shutdown, with the
 * settings and the strategy tally in "otherData". Per-file link events are
 * kept apart: above NUB_TRACE_MAX_FILES of them they are written one span
 * per package and lane (start of its first file, end of its last, files and
 * bytes), so that a big install still loads; otherData says so. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "diag_int.h"
#include "nub_alloc.h"

#define NUB_TRACE_MAX_FILES 20000
#define PHASE_LANE 0 /* the phases, drawn first */

static void grow(struct nub_diag_sink *s, size_t more)
{
  if (s->trace_len + more + 1 <= s->trace_cap)
    return;
  s->trace_cap = (s->trace_len + more + 1) * 2;
  s->trace = nub_realloc(s->trace, s->trace_cap);
}

/* Append (under the lock) one formatted trace event, comma-separated. */
static void put_locked(struct nub_diag_sink *s, const char *ev, size_t n)
{
  grow(s, n + 2);
  if (s->trace_len)
    s->trace[s->trace_len++] = ',';
  s->trace[s->trace_len++] = '\n';
  memcpy(s->trace + s->trace_len, ev, n);
  s->trace_len += n;
  s->trace[s->trace_len] = '\0';
}

void nub__diag_trace_thread_locked(struct nub_diag_sink *s, const char *name, int lane)
{
  char ev[256], esc[128];
  int n;

  if (nub_json_escape(esc, sizeof(esc), name, strlen(name)) < 0)
    snprintf(esc, sizeof(esc), "thread");
  n = snprintf(ev, sizeof(ev),
               "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%d,"
               "\"args\":{\"name\":\"%s\"}},\n{\"ph\":\"M\",\"name\":\"thread_sort_index\","
               "\"pid\":1,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
               lane, esc, lane, lane);
  put_locked(s, ev, (size_t)n);
}

static double us(uint64_t ns)
{
  return ns >= nub__diag.t0 ? (double)(ns - nub__diag.t0) / 1e3 : 0.0;
}

/* The numbers of a flat JSON object, for a counter event's args. */
static size_t numbers_only(const char *meta, char *out, size_t cap)
{
  size_t o = 0;
  const char *p = meta;

  if (!meta || cap < 3)
    return 0;
  out[o++] = '{';
  while ((p = strchr(p, '"')) != NULL) {
    const char *k = p + 1, *ke = strchr(k, '"'), *v;
    if (!ke)
      break;
    v = ke + 1;
    if (*v != ':')
      break;
    v++;
    if ((*v >= '0' && *v <= '9') || *v == '-') {
      const char *ve = v;
      while ((*ve >= '0' && *ve <= '9') || *ve == '-' || *ve == '.' || *ve == 'e')
        ve++;
      if (o + (size_t)(ke - k) + (size_t)(ve - v) + 6 >= cap)
        break;
      if (o > 1)
        out[o++] = ',';
      out[o++] = '"';
      memcpy(out + o, k, (size_t)(ke - k));
      o += (size_t)(ke - k);
      out[o++] = '"';
      out[o++] = ':';
      memcpy(out + o, v, (size_t)(ve - v));
      o += (size_t)(ve - v);
      p = ve;
    } else if (*v == '"') {
      const char *ve = v + 1;
      while (*ve && *ve != '"')
        ve += *ve == '\\' && ve[1] ? 2 : 1;
      p = *ve ? ve + 1 : ve;
    } else {
      p = v;
    }
  }
  out[o++] = '}';
  out[o] = '\0';
  return o;
}

/* Spans that are not work of the thread that reports them, but the life of
 * a request (from its submission, while the thread did other things, and
 * many at once): async events ("b"/"e" with an id), which trace viewers
 * draw on tracks of their own instead of nesting them in the thread's. */
static bool is_async(const char *cat, const char *name)
{
  return (!strcmp(cat, "fetch") && !strcmp(name, "tarball")) ||
         (!strcmp(cat, "registry") && !strcmp(name, "packument_fetch"));
}

void nub__diag_trace_event_locked(struct nub_diag_sink *s, const char *cat, const char *name,
                                  uint64_t start_ns, uint64_t end_ns, const char *meta,
                                  int lane)
{
  char ev[3400];
  int n;

  if (is_async(cat, name)) {
    unsigned long long id = ++s->trace_async;
    n = snprintf(ev, sizeof(ev),
                 "{\"ph\":\"b\",\"name\":\"%s\",\"cat\":\"%s\",\"id\":\"0x%llx\",\"ts\":%.3f,"
                 "\"pid\":1,\"tid\":%d%s%s},\n{\"ph\":\"e\",\"name\":\"%s\",\"cat\":\"%s\","
                 "\"id\":\"0x%llx\",\"ts\":%.3f,\"pid\":1,\"tid\":%d}",
                 name, cat, id, us(start_ns), lane, meta ? ",\"args\":" : "", meta ? meta : "",
                 name, cat, id, us(end_ns), lane);
  } else if (!strcmp(cat, "sample")) {
    char args[512];
    numbers_only(meta, args, sizeof(args));
    n = snprintf(ev, sizeof(ev),
                 "{\"ph\":\"C\",\"name\":\"%s\",\"cat\":\"%s\",\"ts\":%.3f,\"pid\":1,"
                 "\"tid\":%d,\"args\":%s}", name, cat, us(end_ns), lane, args);
  } else if (end_ns > start_ns && strcmp(cat, "kernel")) {
    n = snprintf(ev, sizeof(ev),
                 "{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"%s\",\"ts\":%.3f,\"dur\":%.3f,"
                 "\"pid\":1,\"tid\":%d%s%s}",
                 name, cat, us(start_ns), (double)(end_ns - start_ns) / 1e3,
                 !strcmp(cat, "install_phase") ? PHASE_LANE : lane,
                 meta ? ",\"args\":" : "", meta ? meta : "");
  } else {
    /* (a phase's kernel counters are an instant at its end: their "dur" is
     * CPU time, not a span of the timeline) */
    n = snprintf(ev, sizeof(ev),
                 "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"%s\",\"cat\":\"%s\",\"ts\":%.3f,"
                 "\"pid\":1,\"tid\":%d%s%s}",
                 name, cat, us(end_ns), lane, meta ? ",\"args\":" : "", meta ? meta : "");
  }
  if (n > 0 && (size_t)n < sizeof(ev))
    put_locked(s, ev, (size_t)n);
  s->trace_events++;
}

void nub__diag_trace_file_locked(struct nub_diag_sink *s, int prim, const char *pkg,
                                 uint64_t bytes, uint64_t start_ns, uint64_t end_ns, int lane)
{
  struct nub_diag_tfile *f;

  NUB_GROW(s->tfiles, s->captfiles, s->ntfiles + 1);
  f = &s->tfiles[s->ntfiles++];
  f->pkg = nub_strdup(pkg ? pkg : "");
  f->prim = prim;
  f->bytes = bytes;
  f->start = start_ns;
  f->end = end_ns;
  f->lane = lane;
}

static int cmp_tfile(const void *a, const void *b)
{
  const struct nub_diag_tfile *x = a, *y = b;
  int c = strcmp(x->pkg, y->pkg);

  if (c)
    return c;
  if (x->lane != y->lane)
    return x->lane < y->lane ? -1 : 1;
  if (x->prim != y->prim)
    return x->prim < y->prim ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

static void file_event(struct nub_diag_sink *s, const struct nub_diag_tfile *f, size_t nfiles,
                       uint64_t bytes, uint64_t start, uint64_t end)
{
  char ev[1200], esc[600];
  int n;

  if (nub_json_escape(esc, sizeof(esc), f->pkg, strlen(f->pkg)) < 0)
    snprintf(esc, sizeof(esc), "?");
  n = snprintf(ev, sizeof(ev),
               "{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"linker\",\"ts\":%.3f,\"dur\":%.3f,"
               "\"pid\":1,\"tid\":%d,\"args\":{\"pkg\":\"%s\",\"files\":%zu,\"bytes\":%" PRIu64
               "}}",
               nub_diag_link_event_name((enum nub_prim)f->prim), us(start),
               (double)(end > start ? end - start : 0) / 1e3, f->lane, esc, nfiles, bytes);
  if (n > 0 && (size_t)n < sizeof(ev))
    put_locked(s, ev, (size_t)n);
}

void nub__diag_trace_write(struct nub_diag_sink *s)
{
  FILE *out;
  bool aggregate = s->ntfiles > NUB_TRACE_MAX_FILES;
  uint64_t files = 0;

  if (!s->trace_on || !s->trace_path)
    return;
  pthread_mutex_lock(&s->lock);
  if (aggregate)
    qsort(s->tfiles, s->ntfiles, sizeof(*s->tfiles), cmp_tfile);
  for (size_t i = 0; i < s->ntfiles;) {
    size_t j = i + 1;
    uint64_t bytes = s->tfiles[i].bytes, start = s->tfiles[i].start, end = s->tfiles[i].end;
    if (aggregate) {
      while (j < s->ntfiles && !strcmp(s->tfiles[j].pkg, s->tfiles[i].pkg) &&
             s->tfiles[j].lane == s->tfiles[i].lane && s->tfiles[j].prim == s->tfiles[i].prim) {
        bytes += s->tfiles[j].bytes;
        if (s->tfiles[j].start < start)
          start = s->tfiles[j].start;
        if (s->tfiles[j].end > end)
          end = s->tfiles[j].end;
        j++;
      }
    }
    file_event(s, &s->tfiles[i], j - i, bytes, start, end);
    files += j - i;
    i = j;
  }
  pthread_mutex_unlock(&s->lock);
  out = fopen(s->trace_path, "w");
  if (!out) {
    fprintf(stderr, "nub: warning: cannot write NUB_DIAG_TRACE '%s'\n", s->trace_path);
    return;
  }
  fprintf(out, "{\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"tool\":\"nub\"");
  for (int i = 0; i < s->nmeta; i++) {
    char esc[1024];
    if (nub_json_escape(esc, sizeof(esc), s->meta[i].val, strlen(s->meta[i].val)) >= 0)
      fprintf(out, ",\"%s\":\"%s\"", s->meta[i].key, esc);
  }
  fprintf(out, ",\"link_files\":%" PRIu64 ",\"link_events\":\"%s\"", files,
          aggregate ? "one span per package and thread (more than 20000 files)"
                    : "one span per file");
  fprintf(out, ",\"tally\":{");
  for (int p = 0, first = 1; p < NUB_PRIM__COUNT; p++) {
    if (!s->tally.files[p])
      continue;
    fprintf(out, "%s\"%s\":{\"files\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"ms\":%.3f}",
            first ? "" : ",", nub_diag_link_event_name((enum nub_prim)p), s->tally.files[p],
            s->tally.bytes[p], (double)s->tally.ns[p] / 1e6);
    first = 0;
  }
  fprintf(out, "},\"fallbacks\":%" PRIu64 "},\n\"traceEvents\":[\n"
          "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"nub\"}},\n"
          "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"phases\"}},\n"
          "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":0,\"args\":{\"sort_index\":0}}",
          s->tally.fallbacks);
  if (s->trace_len)
    fprintf(out, ",%s", s->trace);
  fprintf(out, "\n]}\n");
  fclose(out);
}

void nub__diag_trace_free(struct nub_diag_sink *s)
{
  for (size_t i = 0; i < s->ntfiles; i++)
    nub_free(s->tfiles[i].pkg);
  nub_free(s->tfiles);
  s->tfiles = NULL;
  s->ntfiles = s->captfiles = 0;
  nub_free(s->trace);
  s->trace = NULL;
  s->trace_len = s->trace_cap = 0;
  for (int i = 0; i < s->nmeta; i++)
    nub_free(s->meta[i].val);
  s->nmeta = 0;
  nub_free(s->trace_path);
  s->trace_path = NULL;
}

void nub_diag_set_meta(const char *key, const char *val)
{
  struct nub_diag_sink *s = &nub__diag;

  if (!NUB_DIAG_ON() || !s->trace_on)
    return;
  pthread_mutex_lock(&s->lock);
  for (int i = 0; i < s->nmeta; i++)
    if (!strcmp(s->meta[i].key, key)) {
      nub_free(s->meta[i].val);
      s->meta[i].val = nub_strdup(val);
      pthread_mutex_unlock(&s->lock);
      return;
    }
  if (s->nmeta < NUB_DIAG_MAXMETA) {
    s->meta[s->nmeta].key = key;
    s->meta[s->nmeta].val = nub_strdup(val);
    s->nmeta++;
  }
  pthread_mutex_unlock(&s->lock);
}
