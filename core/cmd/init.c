/* init.c - `nub init` (init.h). */
#include "init.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "link.h"
#include "manifest.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "path.h"
#include "pkgjson_edit.h"
#include "workspace.h"

/* npm's name for a folder: "node-" and ".js"/"-js" dropped, spaces to
 * dashes, lower case. */
static char *name_of(const char *dir)
{
  const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
  size_t n = strlen(base);
  char *s;

  if (!strncmp(base, "node-", 5)) {
    base += 5;
    n -= 5;
  }
  if (n > 3 && (!strcmp(base + n - 3, ".js") || !strcmp(base + n - 3, "-js")))
    n -= 3;
  s = nub_strndup(base, n);
  for (char *p = s; *p; p++)
    *p = *p == ' ' ? '-' : (char)tolower((unsigned char)*p);
  return s;
}

static void write_string(struct nub_buf *b, const char *s)
{
  nub_buf_addc(b, '"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      nub_buf_addc(b, '\\');
    nub_buf_addc(b, *s);
  }
  nub_buf_addc(b, '"');
}

static int write_new(const char *dir, const char *workspace, char **made, struct nub_err *err)
{
  char *path = nub_asprintf("%s/package.json", dir), *name = name_of(dir);
  struct nub_plat_stat st;
  struct nub_buf b = NUB_BUF_INIT;
  int rc;

  if (nub_plat_stat_at(NUB_PLAT_CWD, path, &st) == 0) {
    rc = nub_err_set(err, -EEXIST, "%s exists already", path);
    goto out;
  }
  if (!nub_valid_pkg_name(name)) {
    rc = nub_err_set(err, -NUB_EUSAGE, "the folder's name '%s' is not a package name; run "
                     "nub init in a folder named like the package", name);
    goto out;
  }
  nub_buf_adds(&b, "{\n  \"name\": ");
  write_string(&b, name);
  nub_buf_adds(&b, ",\n  \"version\": \"1.0.0\",\n  \"description\": \"\",\n"
                   "  \"main\": \"index.js\",\n  \"scripts\": {\n"
                   "    \"test\": \"echo \\\"Error: no test specified\\\" && exit 1\"\n  },\n"
                   "  \"keywords\": [],\n  \"author\": \"\",\n  \"license\": \"ISC\",\n"
                   "  \"type\": \"commonjs\"");
  if (workspace) {
    nub_buf_adds(&b, ",\n  \"workspaces\": [\n    ");
    write_string(&b, workspace);
    nub_buf_adds(&b, "\n  ]");
  }
  nub_buf_adds(&b, "\n}\n");
  rc = nub_mkdirs_at(NUB_PLAT_CWD, dir);
  if (rc < 0 && rc != -EEXIST)
    goto out;
  rc = nub_plat_write_file_atomic(path, b.data, b.len, 0644);
  if (rc < 0)
    nub_err_set(err, rc, "cannot write %s: %s", path, nub_strerror(rc));
  else
    *made = nub_strdup(path);
out:
  nub_buf_release(&b);
  nub_free(name);
  nub_free(path);
  return rc;
}

/* member into the root's "workspaces" array (the last entry), or a new
 * "workspaces" after the last key, the file's own indentation kept. */
static int add_member(const char *dir, const char *member, struct nub_err *err)
{
  char *path = nub_asprintf("%s/package.json", dir), *text = NULL;
  size_t len = 0;
  struct nub_manifest m;
  struct nub_buf b = NUB_BUF_INIT;
  int rc = nub_plat_read_file_at(NUB_PLAT_CWD, path, 64u << 20, &text, &len);

  if (rc < 0) {
    rc = nub_err_set(err, rc, "cannot read %s: %s", path, nub_strerror(rc));
    goto out;
  }
  rc = nub_manifest_parse(&m, text, len, path, err);
  if (rc < 0)
    goto out;
  {
    bool have = false;
    for (size_t i = 0; i < m.nworkspaces && !have; i++)
      have = nub_workspace_glob_match(m.workspaces[i], member);
    if (have) {
      nub_manifest_release(&m);
      goto out; /* taken in already */
    }
    if (m.has_workspaces && !m.nworkspaces && !strstr(text, "\"workspaces\": []")) {
      nub_manifest_release(&m);
      rc = nub_err_set(err, -NUB_EUSAGE, "%s: \"workspaces\" is not an array nub can add to; "
                       "add \"%s\" by hand", path, member);
      goto out;
    }
  }
  nub_manifest_release(&m);
  rc = nub_pkgjson_add_to_array(&b, text, len, "workspaces", member, err);
  if (rc == 0)
    rc = nub_plat_write_file_atomic(path, b.data, b.len, 0644);
  if (rc < 0 && !err->code)
    nub_err_set(err, rc, "cannot write %s: %s", path, nub_strerror(rc));
out:
  nub_buf_release(&b);
  nub_free(text);
  nub_free(path);
  return rc;
}

int nub_init(const char *dir, const char *member, char **made, struct nub_err *err)
{
  char norm[4096], *mdir;
  struct nub_plat_stat st;
  int rc;

  *made = NULL;
  if (!member)
    return write_new(dir, NULL, made, err);
  if (nub_path_normalize(member, norm, sizeof(norm)) < 0)
    return nub_err_set(err, -NUB_EUSAGE, "'%s' is not a folder inside the project", member);
  {
    char *root_pj = nub_asprintf("%s/package.json", dir);
    bool have_root = nub_plat_stat_at(NUB_PLAT_CWD, root_pj, &st) == 0;
    nub_free(root_pj);
    rc = have_root ? add_member(dir, norm, err) : write_new(dir, norm, made, err);
  }
  if (rc < 0)
    return rc;
  nub_free(*made);
  *made = NULL;
  mdir = nub_asprintf("%s/%s", dir, norm);
  rc = write_new(mdir, NULL, made, err);
  nub_free(mdir);
  return rc;
}
