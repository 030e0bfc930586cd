/* err.c - error records and the code -> exit status map. */
#include "err.h"

#include <stdio.h>
#include <string.h>

#include "nub_alloc.h"
#include "redact.h"

int nub_err_vset(struct nub_err *e, int code, const char *fmt, va_list ap)
{
  if (e) {
    /* cleaned whole, then cut to the record */
    char *msg = nub_redact_vfmt(fmt, ap);
    e->code = code;
    snprintf(e->msg, sizeof(e->msg), "%s", msg);
    nub_free(msg);
  }
  return code;
}

int nub_err_set(struct nub_err *e, int code, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  nub_err_vset(e, code, fmt, ap);
  va_end(ap);
  return code;
}

int nub_err_wrap(struct nub_err *e, const char *fmt, ...)
{
  char old[sizeof(e->msg)], *prefix;
  va_list ap;

  va_start(ap, fmt);
  prefix = nub_redact_vfmt(fmt, ap);
  va_end(ap);
  memcpy(old, e->msg, sizeof(old));
  snprintf(e->msg, sizeof(e->msg), "%s: %s", prefix, old);
  nub_free(prefix);
  return e->code;
}

void nub_err_clear(struct nub_err *e)
{
  e->code = 0;
  e->msg[0] = '\0';
}

int nub_err_exit(int code)
{
  if (code == 0)
    return 0;
  switch (-code) {
#define X(name, val, exit, desc) \
  case val:                      \
    return exit;
    NUB_ERR_MAP(X)
#undef X
  default:
    return 1;
  }
}

const char *nub_strerror(int code)
{
  switch (-code) {
#define X(name, val, exit, desc) \
  case val:                      \
    return desc;
    NUB_ERR_MAP(X)
#undef X
  default:
    return code < 0 ? strerror(-code) : "success";
  }
}

const char *nub_err_name(int code)
{
  switch (-code) {
#define X(name, val, exit, desc) \
  case val:                      \
    return &#name[1]; /* "INTEGRITY" for NUB_EINTEGRITY */
    NUB_ERR_MAP(X)
#undef X
  default:
    return NULL;
  }
}
