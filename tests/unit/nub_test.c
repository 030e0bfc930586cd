/* nub_test.c - shared helpers for the cmocka unit tests. */
#include "nub_test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nub_alloc.h"
#include "nub_plat.h"

char *nub_test_mkdtemp(const char *tag)
{
  const char *base = getenv("NUB_TEST_TMP");
  char *tmpl;

  if (!base || !*base)
    base = "/tmp";
  nub_plat_mkdir_p(base, 0755);
  tmpl = nub_asprintf("%s/%s-XXXXXX", base, tag);
  if (!mkdtemp(tmpl))
    fail_msg("mkdtemp %s failed", tmpl);
  return tmpl;
}

void nub_test_write(const char *path, const char *data, unsigned mode)
{
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, (mode_t)mode);
  size_t n = strlen(data);

  if (fd < 0)
    fail_msg("cannot create %s", path);
  if (write(fd, data, n) != (ssize_t)n)
    fail_msg("cannot write %s", path);
  close(fd);
  chmod(path, (mode_t)mode);
}
