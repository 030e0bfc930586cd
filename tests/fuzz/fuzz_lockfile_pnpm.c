/* fuzz_lockfile_pnpm.c - nub.lock / pnpm-lock.yaml (libyaml underneath)
 * into a graph, and the graph written back out when it parsed; a text with
 * merge-conflict markers also through pnpm's merge of its two sides. */
#include "fuzz.h"

#include "buf.h"
#include "graph.h"
#include "lockfile_pnpm.h"
#include "text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = fuzz_text(data, size);
  struct nub_graph g;
  struct nub_err err;

  nub_graph_init(&g);
  nub_err_clear(&err);
  if (nub_lockfile_pnpm_parse(&g, text, size, "nub.lock", &err) == 0) {
    struct nub_buf out = NUB_BUF_INIT;
    nub_lockfile_pnpm_write(&g, &out);
    nub_buf_release(&out);
  }
  nub_graph_release(&g);
  if (nub_text_conflict_marker(text, size, &(size_t){0})) {
    nub_graph_init(&g);
    if (nub_lockfile_pnpm_unconflict(&g, text, size, "nub.lock", &err) == 0) {
      struct nub_buf out = NUB_BUF_INIT;
      nub_lockfile_pnpm_write(&g, &out);
      nub_buf_release(&out);
    }
    nub_graph_release(&g);
  }
  nub_free(text);
  return 0;
}
