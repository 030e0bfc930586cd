/* proc.c - child processes whose output nub reads (proc.h). */
#include "proc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nub_plat.h"

int nub_proc_capture(const char *const argv[], const char *cwd, const char *const envp[],
                     struct nub_buf *out)
{
  int pid, fd, rc = nub_plat_spawn_pipe(argv, cwd, envp, &pid, &fd);

  if (rc < 0)
    return rc;
  for (;;) {
    char buf[4096];
    long r = nub_plat_read(fd, buf, sizeof(buf));
    if (r == -EINTR)
      continue;
    if (r <= 0)
      break;
    nub_buf_add(out, buf, (size_t)r);
  }
  nub_plat_close(fd);
  return nub_plat_wait_child(pid);
}

/* Whether the line [p, e) begins with what says a command failed. */
static bool says_failure(const char *p, const char *e)
{
  static const char *const heads[] = {"fatal:", "error:", "nub: error:", NULL};

  for (int i = 0; heads[i]; i++) {
    size_t n = strlen(heads[i]);
    if ((size_t)(e - p) >= n && !strncmp(p, heads[i], n))
      return true;
  }
  return false;
}

void nub_proc_reason(const struct nub_buf *b, char *out, size_t cap)
{
  size_t end = b->len, start;

  /* git says what failed on a "fatal:" line and adds hints after it
   * ("Please make sure you have the correct access rights") */
  for (const char *p = b->data, *e = b->data + b->len; p && p < e;) {
    const char *nl = memchr(p, '\n', (size_t)(e - p)), *le = nl ? nl : e;
    if (says_failure(p, le)) {
      while (le > p && (le[-1] == '\r' || le[-1] == ' '))
        le--;
      snprintf(out, cap, "%.*s", (int)(le - p), p);
      return;
    }
    p = nl ? nl + 1 : e;
  }
  while (end && (b->data[end - 1] == '\n' || b->data[end - 1] == '\r' || b->data[end - 1] == ' '))
    end--;
  start = end;
  while (start && b->data[start - 1] != '\n')
    start--;
  snprintf(out, cap, "%.*s", (int)(end - start), b->data ? b->data + start : "");
}
