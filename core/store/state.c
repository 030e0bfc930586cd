/* state.c - node_modules/.nub-state read/write and the freshness check. */
#include "state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "integrity.h"
#include "nub_alloc.h"
#include "manifest.h"
#include "nub_plat.h"
#include "quickhash.h"

int nub_fingerprint(int dir_fd, const char *name, struct nub_fingerprint *out)
{
  struct nub_plat_stat st;
  char *text = NULL;
  size_t len = 0;
  unsigned char h[16];
  int rc;

  memset(out, 0, sizeof(*out));
  snprintf(out->name, sizeof(out->name), "%s", name);
  if (nub_plat_stat_follow_at(dir_fd, name, &st) < 0)
    return 0;
  rc = nub_plat_read_file_at(dir_fd, name, 1u << 30, &text, &len);
  if (rc < 0)
    return rc;
  nub_quickhash(text, len, h);
  nub_free(text);
  nub_hex(h, 16, out->hash);
  out->size = st.size;
  out->mtime_ns = st.mtime_ns;
  return 0;
}

int nub_state_add_file(struct nub_state *s, int dir_fd, const char *name)
{
  NUB_GROW(s->files, s->capfiles, (size_t)s->nfiles + 1);
  return nub_fingerprint(dir_fd, name, &s->files[s->nfiles++]);
}

void nub_state_add_check(struct nub_state *s, const char *path)
{
  s->checks = nub_realloc(s->checks, sizeof(char *) * (s->nchecks + 1));
  s->checks[s->nchecks++] = nub_strdup(path);
}

bool nub_state_checks_exist(const struct nub_state *s, int dir_fd)
{
  for (size_t i = 0; i < s->nchecks; i++) {
    struct nub_plat_stat st;
    /* following links: a dangling top-level link is a broken install */
    if (nub_plat_stat_follow_at(dir_fd, s->checks[i], &st) < 0)
      return false;
  }
  return true;
}

void nub_state_add_direct(struct nub_state *s, const char *alias, const char *version)
{
  s->directs = nub_realloc(s->directs, sizeof(char *) * (s->ndirects + 1));
  s->directs[s->ndirects++] = nub_asprintf("%s %s", alias, version);
}

void nub_state_add_dir(struct nub_state *s, int dir_fd, const char *path)
{
  uint64_t ct, ino;

  if (nub_plat_dirstamp_at(dir_fd, path, &ct, &ino) < 0)
    return;
  NUB_GROW(s->dirs, s->capdirs, s->ndirs + 1);
  s->dirs[s->ndirs].path = nub_strdup(path);
  s->dirs[s->ndirs].ctime_ns = ct;
  s->dirs[s->ndirs].ino = ino;
  s->ndirs++;
}

bool nub_state_dir_unchanged(int dir_fd, const char *path, const struct nub_dirstamp *d)
{
  uint64_t ct, ino;

  return d && nub_plat_dirstamp_at(dir_fd, path, &ct, &ino) == 0 && ct == d->ctime_ns &&
         ino == d->ino;
}

bool nub_state_dirs_match(const struct nub_state *s, int dir_fd)
{
  /* Every stamp but node_modules' own lies under it: looked up from an open
   * node_modules, each stat walks one path component less. */
  static const char nm[] = "node_modules/";
  int nm_fd = s->ndirs > 1 ? nub_plat_open_dir_at(dir_fd, "node_modules") : -1;
  bool ok = true;

  for (size_t i = 0; i < s->ndirs && ok; i++) {
    const char *p = s->dirs[i].path;
    if (nm_fd >= 0 && !strncmp(p, nm, sizeof(nm) - 1))
      ok = nub_state_dir_unchanged(nm_fd, p + sizeof(nm) - 1, &s->dirs[i]);
    else
      ok = nub_state_dir_unchanged(dir_fd, p, &s->dirs[i]);
  }
  if (nm_fd >= 0)
    nub_plat_close(nm_fd);
  return ok;
}

static int cmp_stamp(const void *a, const void *b)
{
  return strcmp(((const struct nub_dirstamp *)a)->path, ((const struct nub_dirstamp *)b)->path);
}

const struct nub_dirstamp *nub_state_dir(const struct nub_state *s, const char *path)
{
  struct nub_dirstamp key = {(char *)path, 0, 0};
  return s->ndirs ? bsearch(&key, s->dirs, s->ndirs, sizeof(*s->dirs), cmp_stamp) : NULL;
}

static bool in_text(const struct nub_state *s, const char *p)
{
  return s->text && p >= s->text && p < s->text + s->textlen;
}

void nub_state_release(struct nub_state *s)
{
  nub_strarray_free(s->checks, s->nchecks);
  nub_strarray_free(s->directs, s->ndirects);
  for (size_t i = 0; i < s->ndirs; i++)
    if (!in_text(s, s->dirs[i].path))
      nub_free(s->dirs[i].path);
  nub_free(s->dirs);
  for (size_t i = 0; i < s->n; i++) {
    nub_free(s->keys[i]);
    nub_free(s->paths[i]);
  }
  nub_free(s->keys);
  nub_free(s->paths);
  nub_free(s->text);
  nub_free(s->files);
  memset(s, 0, sizeof(*s));
}

/* A decimal number of 1 to 19 digits (which cannot overflow) at *p; *p
 * moves past it. The stamps are most of the no-op's reading: kept tight. */
static bool parse_u64(const char **p, uint64_t *out)
{
  const unsigned char *q = (const unsigned char *)*p, *start = q;
  uint64_t v = 0;
  unsigned d;

  while ((d = (unsigned)*q - '0') < 10) {
    v = v * 10 + d;
    q++;
  }
  if (q == start || q - start > 19)
    return false;
  *p = (const char *)q;
  *out = v;
  return true;
}

static bool stamps_sorted(const struct nub_state *s)
{
  for (size_t i = 1; i < s->ndirs; i++)
    if (strcmp(s->dirs[i - 1].path, s->dirs[i].path) > 0)
      return false;
  return true;
}

static char *next_line(char **p)
{
  char *s = *p, *nl;

  if (!s || !*s)
    return NULL;
  nl = strchr(s, '\n');
  if (nl) {
    *nl = '\0';
    *p = nl + 1;
  } else {
    *p = s + strlen(s);
  }
  return s;
}

int nub_state_read(struct nub_state *s, int dir_fd, bool header_only)
{
  char *text = NULL;
  size_t len;
  int rc = nub_plat_read_file_at(dir_fd, NUB_STATE_FILE, 256u << 20, &text, &len);

  memset(s, 0, sizeof(*s));
  if (rc < 0)
    return rc == -ENOENT || rc == -ENOTDIR ? -ENOENT : -EINVAL;
  return nub_state_parse(s, text, len, header_only);
}

int nub_state_parse(struct nub_state *s, char *text, size_t len, bool header_only)
{
  char *p, *line;
  size_t n = 0;

  memset(s, 0, sizeof(*s));
  s->text = text;
  s->textlen = len;
  p = text;
  line = next_line(&p);
  if (!line || strcmp(line, "nub-state 2")) {
    nub_state_release(s);
    return -EINVAL;
  }
  while ((line = next_line(&p)) != NULL) {
    /* the dir lines are most of the header: tested first */
    if (line[0] == 'd' && line[1] == 'i' && line[2] == 'r' && line[3] == ' ') {
      const char *q = line + 4;
      uint64_t ct, ino;
      if (parse_u64(&q, &ct) && *q++ == ' ' && parse_u64(&q, &ino) && *q++ == ' ' && *q) {
        NUB_GROW(s->dirs, s->capdirs, s->ndirs + 1);
        s->dirs[s->ndirs].path = (char *)q; /* into text, which the state keeps */
        s->dirs[s->ndirs].ctime_ns = ct;
        s->dirs[s->ndirs].ino = ino;
        s->ndirs++;
      }
    } else if (!strncmp(line, "layout ", 7)) {
      snprintf(s->layout, sizeof(s->layout), "%s", line + 7);
    } else if (!strncmp(line, "settings ", 9)) {
      snprintf(s->settings, sizeof(s->settings), "%s", line + 9);
    } else if (!strncmp(line, "file ", 5)) {
      struct nub_fingerprint *f;
      unsigned long long size, mt;
      char name[256], hash[65];
      NUB_GROW(s->files, s->capfiles, (size_t)s->nfiles + 1);
      f = &s->files[s->nfiles];
      if (sscanf(line + 5, "%255s %llu %llu %64s", name, &size, &mt, hash) >= 3) {
        snprintf(f->name, sizeof(f->name), "%s", name);
        f->size = size;
        f->mtime_ns = mt;
        snprintf(f->hash, sizeof(f->hash), "%s", strcmp(hash, "-") ? hash : "");
        s->nfiles++;
      }
    } else if (!strncmp(line, "check ", 6)) {
      nub_state_add_check(s, line + 6);
    } else if (!strncmp(line, "direct ", 7)) {
      s->directs = nub_realloc(s->directs, sizeof(char *) * (s->ndirects + 1));
      s->directs[s->ndirects++] = nub_strdup(line + 7);
    } else if (!strncmp(line, "nodes ", 6)) {
      n = (size_t)strtoull(line + 6, NULL, 10);
      break;
    }
  }
  if (!header_only && n) {
    s->keys = nub_calloc(n, sizeof(char *));
    s->paths = nub_calloc(n, sizeof(char *));
    while (s->n < n && (line = next_line(&p)) != NULL) {
      char *sp = strchr(line, ' ');
      if (!sp)
        break;
      *sp = '\0';
      s->keys[s->n] = nub_strdup(line);
      s->paths[s->n] = nub_strdup(sp + 1);
      s->n++;
    }
    if (s->n != n) {
      nub_state_release(s);
      return -EINVAL;
    }
  }
  /* written sorted; sorted again in case a hand edit changed that */
  if (!stamps_sorted(s))
    nub_sort(s->dirs, s->ndirs, sizeof(*s->dirs), cmp_stamp);
  return 0;
}

int nub_state_write(struct nub_state *s, int dir_fd)
{
  struct nub_buf b = NUB_BUF_INIT;
  int rc, fd;
  char tmp[64];

  if (s->ndirs)
    nub_sort(s->dirs, s->ndirs, sizeof(*s->dirs), cmp_stamp);

  nub_buf_addf(&b, "nub-state 2\nlayout %s\nsettings %s\n", s->layout, s->settings);
  for (int i = 0; i < s->nfiles; i++)
    nub_buf_addf(&b, "file %s %llu %llu %s\n", s->files[i].name,
                 (unsigned long long)s->files[i].size,
                 (unsigned long long)s->files[i].mtime_ns,
                 s->files[i].hash[0] ? s->files[i].hash : "-");
  for (size_t i = 0; i < s->nchecks; i++)
    nub_buf_addf(&b, "check %s\n", s->checks[i]);
  for (size_t i = 0; i < s->ndirs; i++)
    if (!i || strcmp(s->dirs[i].path, s->dirs[i - 1].path))
      nub_buf_addf(&b, "dir %llu %llu %s\n", (unsigned long long)s->dirs[i].ctime_ns,
                   (unsigned long long)s->dirs[i].ino, s->dirs[i].path);
  for (size_t i = 0; i < s->ndirects; i++)
    nub_buf_addf(&b, "direct %s\n", s->directs[i]);
  nub_buf_addf(&b, "nodes %zu\n", s->n);
  for (size_t i = 0; i < s->n; i++)
    nub_buf_addf(&b, "%s %s\n", s->keys[i], s->paths[i]);
  snprintf(tmp, sizeof(tmp), "%s.tmp-%d", NUB_STATE_FILE, nub_plat_pid());
  fd = nub_plat_create_excl_at(dir_fd, tmp, 0644);
  if (fd == -EEXIST) {
    nub_plat_unlink_at(dir_fd, tmp, false);
    fd = nub_plat_create_excl_at(dir_fd, tmp, 0644);
  }
  if (fd < 0) {
    nub_buf_release(&b);
    return fd;
  }
  rc = nub_plat_write_all(fd, b.data, b.len);
  nub_plat_close(fd);
  if (rc == 0)
    rc = nub_plat_rename_at(dir_fd, tmp, dir_fd, NUB_STATE_FILE);
  if (rc < 0)
    nub_plat_unlink_at(dir_fd, tmp, false);
  nub_buf_release(&b);
  return rc;
}

bool nub_state_files_match(const struct nub_state *s, int dir_fd)
{
  for (int i = 0; i < s->nfiles; i++) {
    const struct nub_fingerprint *f = &s->files[i];
    struct nub_plat_stat st;
    struct nub_fingerprint now;

    if (nub_plat_stat_follow_at(dir_fd, f->name, &st) < 0) {
      if (f->hash[0])
        return false; /* it existed then */
      continue;
    }
    if (!f->hash[0])
      return false; /* it did not exist then */
    if (st.size == f->size && st.mtime_ns == f->mtime_ns)
      continue;
    if (st.size != f->size)
      return false;
    /* touched: the same bytes still count as unchanged */
    if (nub_fingerprint(dir_fd, f->name, &now) < 0 || strcmp(now.hash, f->hash))
      return false;
  }
  return true;
}
