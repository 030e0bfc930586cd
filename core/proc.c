/* proc.c - child processes whose output nub reads (proc.h). */
#include "proc.h"

#include <errno.h>
#include <stdio.h>

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

void nub_proc_last_line(const struct nub_buf *b, char *out, size_t cap)
{
  size_t end = b->len, start;

  while (end && (b->data[end - 1] == '\n' || b->data[end - 1] == '\r' || b->data[end - 1] == ' '))
    end--;
  start = end;
  while (start && b->data[start - 1] != '\n')
    start--;
  snprintf(out, cap, "%.*s", (int)(end - start), b->data ? b->data + start : "");
}
