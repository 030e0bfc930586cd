/* err.h - error codes and the error record an operation fills.
 *
 * Functions return 0 or a negative code: -errno for OS failures (as platform/
 * returns them) or -NUB_E* for nub's own. Detail goes into a struct nub_err
 * owned by the caller; only the CLI prints it. nub_err_set returns the code so
 * failures read `return nub_err_set(err, -NUB_EINTEGRITY, "...", ...)`.
 *
 * Each code maps to an exit status family (README "Exit codes"). */
#ifndef NUB_ERR_H
#define NUB_ERR_H

#include <stdarg.h>

/* X(name, value, exit status, short description) */
#define NUB_ERR_MAP(X)                                                        \
  X(EUSAGE, 2000, 2, "usage error")                                           \
  X(ECONFIG, 2001, 78, "configuration error")                                 \
  X(ENOREGISTRY, 2002, 78, "no registry configured")                          \
  X(ENOLOCKFILE, 2010, 10, "no lockfile")                                     \
  X(ELOCKFILE, 2011, 11, "malformed lockfile")                                \
  X(ELOCKVERSION, 2012, 12, "unsupported lockfile version")                   \
  X(EOUTDATED, 2016, 16, "lockfile out of date with package.json")            \
  X(EAMBIGUOUS, 2017, 17, "more than one lockfile")                           \
  X(ENOVERSION, 2020, 20, "no matching version")                              \
  X(ESPEC, 2021, 21, "a kind of dependency nub does not install")             \
  X(ETOOYOUNG, 2022, 22, "no version old enough for the release-age gate")     \
  X(EPEERS, 2023, 23, "peer dependencies not satisfied (strict)")             \
  X(EPATCH, 2024, 24, "a patch does not apply")                               \
  X(ETRUST, 2025, 25, "a version published with weaker evidence (trustPolicy)") \
  X(EINTEGRITY, 2030, 30, "integrity mismatch")                               \
  X(EEXTRACT, 2031, 31, "bad tarball")                                        \
  X(ESTORE, 2032, 32, "store corrupt")                                        \
  X(ENOTFOUND, 2040, 40, "package not found")                                 \
  X(ENETWORK, 2041, 41, "network error")                                      \
  X(EAUTH, 2042, 42, "not authorized")                                        \
  X(EOFFLINE, 2043, 43, "not available offline")                              \
  X(EUNSAFE, 2044, 44, "unsafe name or path")                                 \
  X(EHTTP, 2045, 45, "registry error")                                        \
  X(ELIMIT, 2046, 46, "input beyond a limit")                                 \
  X(ESCRIPT, 2050, 50, "lifecycle script failed")                             \
  X(EUNAPPROVED, 2051, 51, "a dependency's build is not approved")             \
  X(EHOOK, 2052, 52, "a pnpmfile hook failed")                                \
  X(ELINK, 2060, 60, "cannot link")                                           \
  X(EBUSY, 2061, 61, "another install holds the project lock")                \
  X(EMANIFEST, 2070, 70, "malformed package.json")                            \
  X(ENOMANIFEST, 2071, 71, "no package.json")                                 \
  X(EWORKSPACE, 2072, 72, "workspace error")                                  \
  X(EPLATFORM, 2080, 80, "unsupported platform")                              \
  X(EINTR, 2130, 130, "interrupted")

enum nub_errcode {
#define X(name, val, exit, desc) NUB_##name = val,
  NUB_ERR_MAP(X)
#undef X
};

struct nub_err {
  int code;      /* 0, -errno or -NUB_E* */
  char msg[1024]; /* one line, lowercase, names the thing at fault */
};

int nub_err_set(struct nub_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int nub_err_vset(struct nub_err *e, int code, const char *fmt, va_list ap);
/* Prefix the existing message: "<prefix>: <old message>". Returns the code. */
int nub_err_wrap(struct nub_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void nub_err_clear(struct nub_err *e);
/* Exit status for a code (1 for a plain -errno, 0 for 0). */
int nub_err_exit(int code);
/* Text for a code: strerror for -errno, the description for -NUB_E*. */
const char *nub_strerror(int code);
/* Symbolic name without prefix ("INTEGRITY", ...), or NULL for -errno; the
 * CLI prints it as ERR_NUB_<name>. */
const char *nub_err_name(int code);

#endif
