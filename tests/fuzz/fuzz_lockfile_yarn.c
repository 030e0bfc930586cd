/* fuzz_lockfile_yarn.c - yarn.lock v1 into a graph, against a root
 * package.json that asks for a few names, and written back when it parsed. */
#include "fuzz.h"

#include <stdlib.h>

#include "buf.h"
#include "config.h"
#include "graph.h"
#include "lockfile_yarn.h"
#include "manifest.h"

static const char root_pj[] =
    "{\"name\":\"root\",\"version\":\"1.0.0\",\"dependencies\":{\"a\":\"^1.0.0\","
    "\"@s/b\":\"~2.0.0\",\"c\":\"npm:d@^3\"},\"devDependencies\":{\"e\":\"*\"}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static struct nub_manifest root;
  static struct nub_config cfg;
  static int ready;
  char *text = fuzz_text(data, size);
  struct nub_graph g;
  struct nub_err err;
  bool stale = false;

  if (!ready) {
    nub_err_clear(&err);
    if (nub_manifest_parse(&root, root_pj, sizeof(root_pj) - 1, "package.json", &err) < 0)
      abort();
    cfg.registry = (char *)"http://registry.invalid/";
    ready = 1;
  }
  nub_graph_init(&g);
  nub_err_clear(&err);
  if (nub_lockfile_yarn_parse(&g, text, size, "yarn.lock", &root, NULL, &cfg, &stale, &err) ==
      0) {
    struct nub_buf out = NUB_BUF_INIT;
    nub_lockfile_yarn_write(&g, &cfg, &root.overrides, &out);
    nub_buf_release(&out);
  }
  nub_graph_release(&g);
  nub_free(text);
  return 0;
}
