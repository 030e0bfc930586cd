/* cli.c - what every command shares: errors and usage lines, the option
 * tables, the nearest word to a misspelt one. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nub_alloc.h"
#include "redact.h"

int cli_usage(const char *fmt, ...)
{
  va_list ap;

  fprintf(stderr, "nub: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nrun `nub --help` for usage\n");
  return 2;
}

int cli_fail(const struct nub_err *err)
{
  const char *name = nub_err_name(err->code);
  char clean[sizeof(err->msg) + 64];

  nub_redact(clean, sizeof(clean), err->msg);
  if (err->msg[0])
    fprintf(stderr, "nub: error: %s", clean);
  else
    fprintf(stderr, "nub: error: %s", nub_strerror(err->code));
  if (name)
    fprintf(stderr, " (ERR_NUB_%s)", name);
  fputc('\n', stderr);
  return nub_err_exit(err->code);
}

/* Edits (insert, delete, change, swap of neighbours) from a to b, stopping
 * past max. */
static size_t distance(const char *a, const char *b, size_t max)
{
  size_t la = strlen(a), lb = strlen(b), d[3][64], best = 0;

  if (la > 62 || lb > 62)
    return max + 1;
  if (la > lb ? la - lb > max : lb - la > max)
    return max + 1;
  for (size_t j = 0; j <= lb; j++)
    d[0][j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t *cur = d[i % 3], *prev = d[(i - 1) % 3], *prev2 = d[(i + 1) % 3];
    cur[0] = i;
    best = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = a[i - 1] != b[j - 1], v = prev[j - 1] + cost;
      if (prev[j] + 1 < v)
        v = prev[j] + 1;
      if (cur[j - 1] + 1 < v)
        v = cur[j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
        v = prev2[j - 2] + 1;
      cur[j] = v;
      if (v < best)
        best = v;
    }
    if (best > max)
      return max + 1;
  }
  return d[la % 3][lb];
}

const char *cli_nearest(const char *word, const char *const *cands, size_t n)
{
  const char *best = NULL;
  size_t bestd = (size_t)-1, max = strlen(word) <= 4 ? 1 : 2;

  for (size_t i = 0; i < n; i++) {
    size_t d = cands[i] ? distance(word, cands[i], max) : max + 1;
    /* a prefix of a longer name counts as near: "instal" for "install" */
    if (d > max && cands[i] && strlen(word) >= 3 && !strncmp(cands[i], word, strlen(word)))
      d = max;
    if (d <= max && d < bestd) {
      best = cands[i];
      bestd = d;
    }
  }
  return best;
}

/* ---- option tables -------------------------------------------------------- */

/* Whether `a` is one of the spellings "x|y|z" of an option. */
static bool spelled(const char *spellings, const char *a, size_t alen)
{
  for (const char *p = spellings; p && *p;) {
    const char *bar = strchr(p, '|');
    size_t n = bar ? (size_t)(bar - p) : strlen(p);
    if (n == alen && !strncmp(p, a, n))
      return true;
    p = bar ? bar + 1 : p + n;
  }
  return false;
}

static const struct cli_opt *find_opt(const struct cli_opt *const *tabs, const char *a,
                                      size_t alen)
{
  for (size_t t = 0; tabs[t]; t++)
    for (const struct cli_opt *o = tabs[t]; o->names; o++)
      if (spelled(o->names, a, alen))
        return o;
  return NULL;
}

/* Every spelling of every option, for the nearest one. */
static const char *suggest(const struct cli_opt *const *tabs, const char *a)
{
  const char *cands[256] = {0}, *near;
  static char out[64];
  size_t n = 0;

  for (size_t t = 0; tabs[t]; t++)
    for (const struct cli_opt *o = tabs[t]; o->names; o++)
      for (const char *p = o->names; *p && n < 255;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        char *s = nub_strndup(p, len);
        cands[n++] = s;
        p = bar ? bar + 1 : p + len;
      }
  near = cli_nearest(a, cands, n);
  out[0] = '\0';
  if (near)
    snprintf(out, sizeof(out), "%s", near);
  for (size_t i = 0; i < n; i++)
    nub_free((char *)cands[i]);
  return out[0] ? out : NULL;
}

int cli_opt_next(const struct cli_opt *const *tabs, const char *cmd, int argc, char **argv,
                 int *i, const char **val)
{
  const char *a, *eq;
  const struct cli_opt *o;
  size_t alen;

  *val = NULL;
  if (*i >= argc)
    return CLI_OPT_END;
  a = argv[*i];
  if (a[0] != '-' || !a[1]) {
    (*i)++;
    *val = a;
    return CLI_OPT_ARG;
  }
  if (!strcmp(a, "--")) {
    (*i)++;
    return CLI_OPT_END;
  }
  eq = a[1] == '-' ? strchr(a, '=') : NULL;
  alen = eq ? (size_t)(eq - a) : strlen(a);
  o = find_opt(tabs, a, alen);
  if (!o) {
    char *name = nub_strndup(a, alen);
    const char *near = suggest(tabs, name);
    if (near)
      cli_usage("unknown flag '%s' for nub %s; did you mean '%s'?", name, cmd, near);
    else
      cli_usage("unknown flag '%s' for nub %s (nub help %s lists them)", name, cmd, cmd);
    nub_free(name);
    return CLI_OPT_BAD;
  }
  (*i)++;
  if (!o->arg) {
    if (eq) {
      cli_usage("%.*s takes no value", (int)alen, a);
      return CLI_OPT_BAD;
    }
    return o->id;
  }
  if (eq) {
    *val = eq + 1;
  } else if (*i < argc) {
    *val = argv[(*i)++];
  } else {
    cli_usage("%s needs %s", a, o->arg);
    return CLI_OPT_BAD;
  }
  return o->id;
}

/* Whether some spelling of o is an option of an earlier table (whose
 * meaning wins there: add's -D over install's). */
static bool shadowed(const struct cli_opt *const *tabs, size_t t, const struct cli_opt *o)
{
  for (const char *p = o->names; *p;) {
    const char *bar = strchr(p, '|');
    size_t len = bar ? (size_t)(bar - p) : strlen(p);
    for (size_t u = 0; u < t; u++)
      for (const struct cli_opt *q = tabs[u]; q->names; q++)
        if (q->id != CLI_OPT_TITLE && spelled(q->names, p, len))
          return true;
    p = bar ? bar + 1 : p + len;
  }
  return false;
}

/* text, wrapped at 78 columns, every line after the first indented by col */
static void wrapped(FILE *out, const char *text, int col)
{
  int at = col;

  while (*text) {
    size_t w = strcspn(text, " ");
    if (at > col && at + 1 + (int)w > 78) {
      fprintf(out, "\n%*s", col, "");
      at = col;
    } else if (at > col) {
      fputc(' ', out);
      at++;
    }
    fprintf(out, "%.*s", (int)w, text);
    at += (int)w;
    text += w;
    while (*text == ' ')
      text++;
  }
  fputc('\n', out);
}

void cli_opt_help(FILE *out, const struct cli_opt *const *tabs)
{
  for (size_t t = 0; tabs[t]; t++)
    for (const struct cli_opt *o = tabs[t]; o->names; o++) {
      char left[96];
      size_t n = 0;
      if (o->id == CLI_OPT_TITLE) {
        fprintf(out, "\n%s\n", o->names);
        continue;
      }
      if (shadowed(tabs, t, o))
        continue;
      left[0] = '\0';
      /* short spellings first, as the peers list them: "-D, --save-dev" */
      for (int pass = 0; pass < 2; pass++)
        for (const char *p = o->names; *p;) {
          const char *bar = strchr(p, '|');
          size_t len = bar ? (size_t)(bar - p) : strlen(p);
          bool is_short = len == 2;
          if (is_short == (pass == 0) && n < sizeof(left) - 8)
            n += (size_t)snprintf(left + n, sizeof(left) - n, "%s%.*s", n ? ", " : "", (int)len,
                                  p);
          p = bar ? bar + 1 : p + len;
        }
      if (o->arg && n < sizeof(left) - 2)
        snprintf(left + n, sizeof(left) - n, " %s", o->arg);
      if (strlen(left) > 28)
        fprintf(out, "  %s\n%31s", left, "");
      else
        fprintf(out, "  %-28s ", left);
      wrapped(out, o->help, 31);
    }
}
