/* project.c - lockfile detection and layout policy. */
#include "project.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nub_alloc.h"
#include "nub_plat.h"

/* The first bytes of a file, enough for a format to know its own. */
static size_t head_of(int dir_fd, const char *file, char *buf, size_t cap)
{
  int fd = nub_plat_open_read_at(dir_fd, file);
  long n = fd >= 0 ? nub_plat_read(fd, buf, cap) : -1;

  if (fd >= 0)
    nub_plat_close(fd);
  return n > 0 ? (size_t)n : 0;
}

int nub_project_detect(struct nub_project *p, const char *dir, const struct nub_config *cfg,
                       const char *package_manager, const struct nub_lockfmt *const *fmts,
                       const struct nub_lockfmt *none, struct nub_err *err)
{
  bool present[16] = {false};
  int npresent = 0, first = -1;
  char tool[32] = "", head[4096];
  size_t nhead = 0;
  const char *headfile = NULL;

  memset(p, 0, sizeof(*p));
  p->dir = nub_strdup(dir);
  p->dir_fd = nub_plat_open_dir_at(NUB_PLAT_CWD, dir);
  if (p->dir_fd < 0)
    return nub_err_set(err, p->dir_fd, "cannot open the project directory %s: %s", dir,
                       nub_strerror(p->dir_fd));
  if (package_manager) {
    const char *at = strchr(package_manager, '@');
    size_t n = at ? (size_t)(at - package_manager) : strlen(package_manager);
    if (n < sizeof(tool)) {
      memcpy(tool, package_manager, n);
      tool[n] = '\0';
    }
  }
  for (size_t i = 0; fmts[i] && i < 16; i++) {
    struct nub_plat_stat st;
    present[i] = nub_plat_stat_follow_at(p->dir_fd, fmts[i]->file, &st) == 0 &&
                 st.type == NUB_FT_FILE;
    if (present[i] && fmts[i]->detect) { /* one file, two formats: its bytes tell */
      if (!headfile || strcmp(headfile, fmts[i]->file)) {
        nhead = head_of(p->dir_fd, fmts[i]->file, head, sizeof(head));
        headfile = fmts[i]->file;
      }
      present[i] = fmts[i]->detect(head, nhead);
    }
    if (!present[i])
      continue;
    /* two files of one tool's one format: the earlier wins, as its tool
     * reads it (npm prefers npm-shrinkwrap.json over package-lock.json) */
    if (first >= 0 && !strcmp(fmts[first]->tool, fmts[i]->tool) &&
        fmts[first]->plan == fmts[i]->plan)
      continue;
    npresent++;
    if (first < 0)
      first = (int)i;
  }
  if (npresent == 0) {
    /* bun's old binary lockfile alone: resolving afresh would silently
     * ignore the versions it pins */
    struct nub_plat_stat st;
    if (nub_plat_stat_follow_at(p->dir_fd, "bun.lockb", &st) == 0)
      return nub_err_set(err, -NUB_ELOCKVERSION,
                         "bun.lockb is bun's binary lockfile, which nub does not read; "
                         "have bun write bun.lock (`bun install --save-text-lockfile`), "
                         "or delete bun.lockb to resolve afresh");
  }
  if (npresent > 1) {
    int pick = -1;
    for (size_t i = 0; fmts[i] && i < 16 && tool[0]; i++)
      if (present[i] && !strcmp(fmts[i]->tool, tool) && pick < 0)
        pick = (int)i;
    if (pick < 0) {
      char names[256] = "";
      for (size_t i = 0; fmts[i] && i < 16; i++) {
        if (!present[i])
          continue;
        if (names[0])
          strncat(names, " and ", sizeof(names) - strlen(names) - 1);
        strncat(names, fmts[i]->file, sizeof(names) - strlen(names) - 1);
      }
      return nub_err_set(err, -NUB_EAMBIGUOUS,
                         "found %s; nub cannot tell which tool owns this project: "
                         "delete the stale lockfile, or name the tool in "
                         "package.json \"packageManager\"", names);
    }
    first = pick;
  }
  p->fmt = first >= 0 ? fmts[first] : none;
  p->lockfile = first >= 0 ? fmts[first]->file : NULL;
  p->layout = p->fmt->layout;
  p->layout_source = p->lockfile ? p->lockfile : "default";
  if (cfg->linker != NUB_LINKER_AUTO) {
    p->layout = cfg->linker;
    p->layout_source = nub_config_layer(cfg, "node-linker") == NUB_CFG_CLI
                           ? "--node-linker"
                           : "node-linker setting";
  }
  return 0;
}

void nub_project_release(struct nub_project *p)
{
  nub_plat_close(p->dir_fd);
  nub_free(p->dir);
  memset(p, 0, sizeof(*p));
  p->dir_fd = -1;
}

int nub_project_read_lockfile(const struct nub_project *p, const struct nub_config *cfg,
                              char **text, size_t *len, struct nub_err *err)
{
  int rc = nub_plat_read_file_at(p->dir_fd, p->lockfile, (size_t)cfg->max_lockfile_bytes, text,
                                 len);

  if (rc == -EFBIG)
    return nub_err_set(err, -NUB_ELIMIT,
                       "%s is larger than max-lockfile-size (%llu MiB); if the file is "
                       "yours, raise max-lockfile-size in .npmrc", p->lockfile,
                       (unsigned long long)(cfg->max_lockfile_bytes >> 20));
  if (rc < 0)
    return nub_err_set(err, rc, "cannot read %s: %s", p->lockfile, nub_strerror(rc));
  return 0;
}
