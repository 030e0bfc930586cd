/* replay.c - the harnesses without libFuzzer: each argument (a file, or a
 * folder of files) is read and given to LLVMFuzzerTestOneInput once. The
 * ordinary test build links every harness with this main, so a harness
 * that no longer compiles against the code it fuzzes fails there (not only
 * under clang), and ctest replays the crash regressions under the
 * sanitizers of that build. */
#include <stdio.h>

#include "fuzz.h"
#include "nub_plat.h"

#define REPLAY_MAX (64u << 20)

struct replay {
  const char *dir;
  int runs;
};

static int replay_file(void *payload, const char *name, enum nub_plat_ftype type)
{
  struct replay *rp = payload;
  char path[4096], *data;
  size_t len;

  if (rp->dir && name[0] == '.')
    return 0; /* a folder's hidden files are no inputs */
  snprintf(path, sizeof(path), "%s%s%s", rp->dir ? rp->dir : "", rp->dir ? "/" : "", name);
  if (nub_plat_read_file_at(NUB_PLAT_CWD, path, REPLAY_MAX, &data, &len) < 0) {
    fprintf(stderr, "replay: %s: unreadable\n", path);
    return -1;
  }
  LLVMFuzzerTestOneInput((const uint8_t *)data, len);
  nub_free(data);
  rp->runs++;
  return 0;
}

int main(int argc, char **argv)
{
  struct replay rp = {NULL, 0};

  for (int i = 1; i < argc; i++) {
    struct nub_plat_stat st;
    if (nub_plat_stat_follow_at(NUB_PLAT_CWD, argv[i], &st) != 0) {
      fprintf(stderr, "replay: %s: no such file\n", argv[i]);
      return 1;
    }
    rp.dir = st.type == NUB_FT_DIR ? argv[i] : NULL;
    if (rp.dir ? nub_plat_list_dir_at(NUB_PLAT_CWD, argv[i], replay_file, &rp) != 0
               : replay_file(&rp, argv[i], st.type) != 0)
      return 1;
  }
  printf("replay: %d inputs\n", rp.runs);
  return 0;
}
