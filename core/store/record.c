/* record.c - installs remembered in the store, and made again (record.h). */
#include "record.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "integrity.h"
#include "manifest.h" /* nub_strarray_free */
#include "nub_alloc.h"
#include "nub_plat.h"
#include "strmap.h"

#define HEADER "nub-record 1\n"

int nub_record_digest(int dir_fd, const char *context, char *const *files, size_t nfiles,
                      char out[33])
{
  struct nub_buf b = NUB_BUF_INIT;
  unsigned char h[32];
  char hex[65];

  nub_buf_adds(&b, HEADER);
  nub_buf_adds(&b, context);
  for (size_t i = 0; i < nfiles; i++) {
    char *text = NULL;
    size_t len = 0;
    int rc = nub_plat_read_file_at(dir_fd, files[i], 1u << 30, &text, &len);
    if (rc < 0 && rc != -ENOENT) {
      nub_buf_release(&b);
      return rc;
    }
    if (rc == 0)
      nub_sha256(text, len, h);
    nub_free(text);
    nub_hex(h, 32, hex);
    nub_buf_addf(&b, "\nfile %s %s", files[i], rc == 0 ? hex : "-");
  }
  nub_sha256(b.data, b.len, h);
  nub_hex(h, 16, out);
  nub_buf_release(&b);
  return 0;
}

void nub_record_release(struct nub_record *r)
{
  nub_strarray_free(r->warnings, r->nwarnings);
  nub_state_release(&r->state);
  memset(r, 0, sizeof(*r));
}

static char *record_path(const struct nub_store *st, const char *digest)
{
  return nub_asprintf("%s/records/%s", st->root, digest);
}

/* ---- saving ---------------------------------------------------------------- */

struct walk {
  const struct nub_strmap *dirs;
  const char *dir;
  int proj_fd;
  struct nub_buf *out;
  bool ok;
};

/* Nothing that holds a tab or a newline goes into a line of the record. */
static bool plain(const char *s)
{
  return !strpbrk(s, "\t\n");
}

static int walk_entry(void *payload, const char *name, enum nub_plat_ftype type)
{
  struct walk *w = payload;
  char *path = nub_asprintf("%s/%s", w->dir, name);

  if (type == NUB_FT_LINK) {
    char target[4096];
    int n = nub_plat_readlink_at(w->proj_fd, path, target, sizeof(target));
    if (n < 0 || !plain(path) || !plain(target))
      w->ok = false;
    else
      nub_buf_addf(w->out, "link %s\t%s\n", path, target);
  } else if (type != NUB_FT_DIR ||
             !(nub_strmap_get(w->dirs, path) || !strcmp(path, NUB_STATE_DIR))) {
    w->ok = false; /* something the record would not make again */
  }
  nub_free(path);
  return w->ok ? 0 : 1;
}

struct aged {
  char *name;
  uint64_t mtime_ns;
};

struct listing {
  const char *dir;
  struct aged *v;
  size_t n, cap;
};

static int list_record(void *payload, const char *name, enum nub_plat_ftype type)
{
  struct listing *l = payload;
  struct nub_plat_stat st;
  char *path;

  if ((type != NUB_FT_FILE && type != NUB_FT_OTHER) || strstr(name, ".tmp-"))
    return 0; /* (another install's record being written) */
  path = nub_asprintf("%s/%s", l->dir, name);
  if (nub_plat_stat_at(NUB_PLAT_CWD, path, &st) == 0) {
    NUB_GROW(l->v, l->cap, l->n + 1);
    l->v[l->n].name = path;
    l->v[l->n++].mtime_ns = st.mtime_ns;
  } else {
    nub_free(path);
  }
  return 0;
}

static int newest_first(const void *a, const void *b)
{
  const struct aged *x = a, *y = b;
  return x->mtime_ns < y->mtime_ns ? 1 : x->mtime_ns > y->mtime_ns ? -1 : 0;
}

/* The store keeps the newest NUB_RECORDS_KEPT records: each is a few
 * hundred bytes per package, and a project whose lockfile keeps changing
 * would otherwise leave one per version of it. */
static void keep_newest(const char *dir, const char *just_written)
{
  struct listing l = {dir, NULL, 0, 0};

  nub_plat_list_dir_at(NUB_PLAT_CWD, dir, list_record, &l);
  if (l.n > NUB_RECORDS_KEPT) {
    size_t kept = 1; /* the one just written, whatever the clock's grain */
    nub_sort(l.v, l.n, sizeof(*l.v), newest_first);
    for (size_t i = 0; i < l.n; i++)
      if (strcmp(l.v[i].name, just_written) && kept++ >= NUB_RECORDS_KEPT)
        nub_plat_unlink_at(NUB_PLAT_CWD, l.v[i].name, false);
  }
  for (size_t i = 0; i < l.n; i++)
    nub_free(l.v[i].name);
  nub_free(l.v);
}

void nub_record_save(const struct nub_store *st, const char *digest, int proj_fd,
                     char *const *entries, size_t nentries, size_t added,
                     char *const *warnings, size_t nwarnings)
{
  struct nub_buf b = NUB_BUF_INIT;
  struct nub_state s;
  struct nub_strmap dirs;
  char *text = NULL, *copy, *dir, *path, *tmp;
  size_t len;
  bool ok = true;

  if (nub_plat_read_file_at(proj_fd, NUB_STATE_FILE, 256u << 20, &text, &len) < 0)
    return;
  copy = nub_strdup(text);
  if (nub_state_parse(&s, copy, len, false) < 0) {
    nub_free(text);
    return;
  }
  memset(&dirs, 0, sizeof(dirs));
  for (size_t i = 0; i < s.ndirs; i++)
    nub_strmap_put(&dirs, s.dirs[i].path, (void *)1);
  nub_buf_addf(&b, HEADER "added %zu\n", added);
  for (size_t i = 0; i < nwarnings && ok; i++) {
    ok = !strchr(warnings[i], '\n');
    nub_buf_addf(&b, "warn %s\n", warnings[i]);
  }
  for (size_t i = 0; i < nentries && ok; i++) {
    ok = !strchr(entries[i], '\n');
    nub_buf_addf(&b, "entry %s\n", entries[i]);
  }
  /* every directory the state stamps, parents first (the state is sorted),
   * holds only links and those directories */
  for (size_t i = 0; i < s.ndirs && ok; i++) {
    struct walk w = {&dirs, s.dirs[i].path, proj_fd, &b, true};
    ok = nub_plat_list_dir_at(proj_fd, s.dirs[i].path, walk_entry, &w) == 0 && w.ok;
  }
  nub_buf_adds(&b, "state\n");
  nub_buf_add(&b, text, len);
  nub_strmap_release(&dirs, NULL);
  nub_state_release(&s);
  nub_free(text);
  if (ok) {
    dir = nub_asprintf("%s/records", st->root);
    path = record_path(st, digest);
    tmp = nub_asprintf("%s.tmp-%d", path, nub_plat_pid());
    nub_plat_mkdir_at(NUB_PLAT_CWD, dir, 0755);
    {
      int fd = nub_plat_create_excl_at(NUB_PLAT_CWD, tmp, 0644);
      if (fd >= 0) {
        int rc = nub_plat_write_all(fd, b.data, b.len);
        nub_plat_close(fd);
        if (rc < 0 || nub_plat_rename_at(NUB_PLAT_CWD, tmp, NUB_PLAT_CWD, path) < 0)
          nub_plat_unlink_at(NUB_PLAT_CWD, tmp, false);
      }
    }
    keep_newest(dir, path);
    nub_free(tmp);
    nub_free(path);
    nub_free(dir);
  }
  nub_buf_release(&b);
}

void nub_record_forget_all(const struct nub_store *st)
{
  char *dir = nub_asprintf("%s/records", st->root);
  nub_plat_rm_rf_at(NUB_PLAT_CWD, dir);
  nub_free(dir);
}

/* ---- replaying ------------------------------------------------------------- */

static char *next_line(char **p)
{
  char *s = *p, *nl;

  if (!*s)
    return NULL;
  nl = strchr(s, '\n');
  if (!nl)
    return NULL; /* every line of a whole record ends */
  *nl = '\0';
  *p = nl + 1;
  return s;
}

/* An entry as it was: a directory in links/ by its name, a package tree by
 * what its ready marker names. */
static bool entry_as_was(char *line)
{
  char *tab = strchr(line, '\t'), cur[512];
  struct nub_plat_stat st;
  bool ok;

  if (!tab)
    return false;
  *tab = '\0';
  if (!tab[1]) {
    ok = nub_plat_stat_at(NUB_PLAT_CWD, line, &st) == 0 && st.type == NUB_FT_DIR;
  } else {
    char *marker = nub_asprintf("%s/ready", line);
    ok = nub_plat_readlink_at(NUB_PLAT_CWD, marker, cur, sizeof(cur)) >= 0 &&
         !strcmp(cur, tab + 1);
    nub_free(marker);
  }
  *tab = '\t';
  return ok;
}

/* The recorded state as the replay left the project: its directories
 * stamped anew (the state's own directory made first: making it changes
 * its parent's time), its files left for the caller to fingerprint. */
static void restamp(struct nub_state *s, int proj_fd)
{
  nub_plat_mkdir_at(proj_fd, NUB_STATE_DIR, 0755);
  for (size_t i = 0; i < s->ndirs; i++)
    if (nub_plat_dirstamp_at(proj_fd, s->dirs[i].path, &s->dirs[i].ctime_ns,
                             &s->dirs[i].ino) < 0)
      s->dirs[i].ctime_ns = s->dirs[i].ino = 0; /* the next install looks */
  s->nfiles = 0;
}

int nub_record_replay(const struct nub_store *st, const char *digest, int proj_fd,
                      struct nub_record *r)
{
  char *path = record_path(st, digest), *text = NULL, *p, *line, **links = NULL;
  struct nub_state *s = &r->state;
  size_t len, made = 0, nlinks = 0, caplinks = 0;
  int rc;

  memset(r, 0, sizeof(*r));
  rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, 256u << 20, &text, &len);
  nub_free(path);
  if (rc < 0)
    return -ENOENT;
  p = text;
  line = next_line(&p);
  rc = line && !strcmp(line, "nub-record 1") ? -ENOENT : -EINVAL; /* until the state */
  while (rc == -ENOENT && (line = next_line(&p)) != NULL) {
    if (!strncmp(line, "added ", 6)) {
      r->added = (size_t)strtoull(line + 6, NULL, 10);
    } else if (!strncmp(line, "warn ", 5)) {
      r->warnings = nub_realloc(r->warnings, sizeof(char *) * (r->nwarnings + 1));
      r->warnings[r->nwarnings++] = nub_strdup(line + 5);
    } else if (!strncmp(line, "entry ", 6)) {
      if (!entry_as_was(line + 6))
        rc = -ESTALE;
    } else if (!strncmp(line, "link ", 5)) {
      NUB_GROW(links, caplinks, nlinks + 1);
      links[nlinks++] = line + 5; /* made once the directories are */
    } else if (!strcmp(line, "state")) {
      size_t n = len - (size_t)(p - text);
      rc = nub_state_parse(s, nub_strndup(p, n), n, false) < 0 ? -ENOENT : 0;
    }
  }
  if (rc == -EINVAL)
    rc = -ENOENT; /* not a record this nub reads */
  /* the directories, parents first, then the links */
  for (made = 0; rc == 0 && made < s->ndirs; made++)
    if ((rc = nub_plat_mkdir_at(proj_fd, s->dirs[made].path, 0755)) < 0)
      break;
  for (size_t i = 0; rc == 0 && i < nlinks; i++) {
    char *tab = strchr(links[i], '\t');
    if (!tab)
      rc = -EINVAL;
    else {
      *tab = '\0';
      rc = nub_plat_symlink_at(tab + 1, proj_fd, links[i]);
    }
  }
  if (rc < 0) {
    /* what was made goes, nothing that was there */
    for (size_t i = made; i-- > 0;)
      nub_plat_rm_rf_at(proj_fd, s->dirs[i].path);
  } else {
    restamp(s, proj_fd);
  }
  nub_free(links);
  nub_free(text);
  if (rc < 0)
    nub_record_release(r);
  return rc;
}
