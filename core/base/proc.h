/* proc.h - a child process whose output nub reads whole (git, a nested nub
 * install): its stdout and stderr together, then its exit status. */
#ifndef NUB_PROC_H
#define NUB_PROC_H

#include "buf.h"

/* Run argv[0] with argv in cwd and envp; its output is appended to *out.
 * Returns its exit status (0..255, 128+signal), or -errno when it could
 * not be started. */
int nub_proc_capture(const char *const argv[], const char *cwd, const char *const envp[],
                     struct nub_buf *out);
/* The line of a failed command's output that says what failed, into line:
 * the first that begins "fatal:" or "error:" (git's, nub's own), else the
 * last non-empty one. */
void nub_proc_reason(const struct nub_buf *out, char *line, size_t cap);

#endif
