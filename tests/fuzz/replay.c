/* replay.c - the harnesses without libFuzzer: each argument (a file, or a
 * folder of files) is read and given to LLVMFuzzerTestOneInput once. The
 * ordinary test build links every harness with this main, so a harness
 * that no longer compiles against the code it fuzzes fails there (not only
 * under clang), and ctest replays the crash regressions under the
 * sanitizers of that build. */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  uint8_t *data;
  long n;

  if (!f)
    return -1;
  if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return -1;
  }
  data = nub_malloc((size_t)n + 1);
  if (fread(data, 1, (size_t)n, f) != (size_t)n) {
    nub_free(data);
    fclose(f);
    return -1;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(data, (size_t)n);
  nub_free(data);
  return 0;
}

int main(int argc, char **argv)
{
  int runs = 0;

  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: %s: no such file\n", argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      if (replay_file(argv[i]) < 0) {
        fprintf(stderr, "replay: %s: unreadable\n", argv[i]);
        return 1;
      }
      runs++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    struct dirent *e;
    if (!d)
      return 1;
    while ((e = readdir(d))) {
      char path[4096];
      if (e->d_name[0] == '.')
        continue;
      snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
      if (replay_file(path) < 0) {
        fprintf(stderr, "replay: %s: unreadable\n", path);
        closedir(d);
        return 1;
      }
      runs++;
    }
    closedir(d);
  }
  printf("replay: %d inputs\n", runs);
  return 0;
}
