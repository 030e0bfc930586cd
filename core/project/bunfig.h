/* bunfig.toml - what nub reads of bun's configuration: the [install]
 * table's plain settings. The project's bunfig.toml, then the user's
 * ($XDG_CONFIG_HOME/.bunfig.toml, ~/.bunfig.toml), the project's winning
 * key by key, as bun reads them.
 *
 * No TOML library is packaged for C on Debian, and nub needs one table of
 * scalars and string arrays: this reads exactly that subset (comments,
 * [tables], key = integer | float | boolean | "string" | 'string' |
 * [strings], an array over several lines). Anything else in the file
 * (inline tables, dotted keys, other tables' values) is skipped, not
 * misread; a line nub cannot read in [install] is -NUB_ECONFIG naming the
 * file and line. */
#ifndef NUB_BUNFIG_H
#define NUB_BUNFIG_H

#include <stddef.h>

#include "dep.h"
#include "err.h"

struct nub_bunfig {
  /* [install]: key -> value as written (strings unquoted, arrays' items
   * joined by '\n') */
  struct nub_depmap install;
  char *file; /* the first file that had [install] settings, or NULL */
};

int nub_bunfig_load(struct nub_bunfig *b, const char *project_dir, struct nub_err *err);
/* Parse one file's text into b (the keys b has already win); exported for
 * tests. */
int nub_bunfig_parse(struct nub_bunfig *b, const char *text, size_t len, const char *path,
                     struct nub_err *err);
void nub_bunfig_release(struct nub_bunfig *b);

#endif
