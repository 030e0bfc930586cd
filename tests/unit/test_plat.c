/* test_plat.c - the OS contract (platform/nub_plat.h), one source for every
 * backend: Linux, macOS, and the macOS backend over the Darwin shim on Linux.
 * It branches on nub_plat_caps() and on the errors the primitives return,
 * never on the OS, so what passes here holds wherever it runs.
 *
 * Environment:
 *   NUB_TEST_DIR=<dir>           work there (e.g. on an XFS mount) instead of
 *                                a fresh directory under $NUB_TEST_TMP
 *   NUB_TEST_EXPECT_REFLINK=1    the file system clones: reflink must succeed
 *                                and the clone must share the source's extents
 *   NUB_TEST_EXPECT_FSTYPE=<t>   fs_info of the work dir must report <t>
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "nub_test.h"

#include "nub_alloc.h"
#include "nub_plat.h"
#include "plat_extents.h"

static char *g_base;      /* every test gets a fresh subdirectory of this */
static bool g_base_owned; /* we created it, so we remove it */
static struct nub_plat_caps g_caps;
static volatile uint64_t g_sink; /* keeps the CPU burner from being elided */

struct ctx {
  char *path; /* this test's directory */
  int dir;    /* and an fd on it */
};

/* ---- helpers ------------------------------------------------------------- */

static bool env_is(const char *name, const char *want)
{
  const char *v = getenv(name);
  return v && !strcmp(v, want);
}

static bool expect_reflink(void) { return env_is("NUB_TEST_EXPECT_REFLINK", "1"); }

static const char *ename(int rc) { return rc < 0 ? strerror(-rc) : "ok"; }

#define CHECK_RC(rc, want, what)                                              \
  do {                                                                        \
    int rc_ = (rc), want_ = (want);                                           \
    if (rc_ != want_)                                                         \
      fail_msg("%s: rc %d (%s), want %d (%s)", (what), rc_, ename(rc_), want_, \
               ename(want_));                                                 \
  } while (0)

/* Set-up and verification use raw POSIX calls, not the code under test. */
static void put_file(int dir, const char *name, const void *data, size_t len,
                     unsigned mode)
{
  const char *p = data;
  int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

  if (fd < 0)
    fail_msg("create %s: %s", name, strerror(errno));
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      fail_msg("write %s: %s", name, strerror(errno));
    p += n;
    len -= (size_t)n;
  }
  /* fchmod, not the open mode: the bits under test must not depend on umask. */
  if (fchmod(fd, (mode_t)mode) < 0 || close(fd) < 0)
    fail_msg("finish %s: %s", name, strerror(errno));
}

static void put_str(int dir, const char *name, const char *s, unsigned mode)
{
  put_file(dir, name, s, strlen(s), mode);
}

static char *get_file(int dir, const char *name, size_t *len)
{
  struct stat st;
  char *buf;
  size_t got = 0;
  int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);

  if (fd < 0 || fstat(fd, &st) < 0)
    fail_msg("open %s: %s", name, strerror(errno));
  buf = nub_malloc((size_t)st.st_size + 1);
  while (got < (size_t)st.st_size) {
    ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      fail_msg("read %s: %s", name, n < 0 ? strerror(errno) : "short");
    got += (size_t)n;
  }
  close(fd);
  buf[got] = '\0';
  *len = got;
  return buf;
}

static void assert_same_bytes(int dir, const char *a, const char *b)
{
  size_t la, lb;
  char *x = get_file(dir, a, &la), *y = get_file(dir, b, &lb);

  if (la != lb || memcmp(x, y, la) != 0)
    fail_msg("%s (%zu bytes) and %s (%zu bytes) differ", a, la, b, lb);
  nub_free(x);
  nub_free(y);
}

static void assert_content(int dir, const char *name, const char *want)
{
  size_t len;
  char *got = get_file(dir, name, &len);

  if (len != strlen(want) || memcmp(got, want, len) != 0)
    fail_msg("%s holds \"%s\", want \"%s\"", name, got, want);
  nub_free(got);
}

static bool exists(int dir, const char *name)
{
  struct stat st;
  return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static struct stat st_of(int dir, const char *name)
{
  struct stat st;
  if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    fail_msg("stat %s: %s", name, strerror(errno));
  return st;
}

static unsigned perm(const struct stat *st) { return (unsigned)(st->st_mode & 07777); }

/* Deterministic bytes that are neither zero nor periodic, so a short, shifted
 * or sparse copy cannot compare equal by accident. */
static unsigned char *pattern(size_t n, uint32_t seed)
{
  unsigned char *b = nub_malloc(n ? n : 1);
  uint32_t x = seed | 1u;

  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b[i] = (unsigned char)x;
  }
  return b;
}

static void put_pattern(int dir, const char *name, size_t n, uint32_t seed,
                        unsigned mode)
{
  unsigned char *b = pattern(n, seed);
  put_file(dir, name, b, n, mode);
  nub_free(b);
}

static int count_cb(void *payload, const char *name, enum nub_plat_ftype type)
{
  (void)name;
  (void)type;
  (*(int *)payload)++;
  return 0;
}

static int entries(int dir, const char *path)
{
  int n = 0;
  CHECK_RC(nub_plat_list_dir_at(dir, path, count_cb, &n), 0, path);
  return n;
}


/* ---- the link primitives, as one table ----------------------------------- */

enum op {
  OP_HARDLINK_AT,
  OP_REFLINK_AT,
  OP_REFLINK_FD,
  OP_COPY_RANGE_AT,
  OP_COPY_RANGE_FD,
  OP_COPY_STREAM_AT,
  OP_COPY_STREAM_FD,
  OP__COUNT
};

static const struct {
  const char *name;
  enum nub_prim prim;
} ops[OP__COUNT] = {
  [OP_HARDLINK_AT] = {"hardlink_at", NUB_PRIM_HARDLINK},
  [OP_REFLINK_AT] = {"reflink_at", NUB_PRIM_REFLINK},
  [OP_REFLINK_FD] = {"reflink_fd_at", NUB_PRIM_REFLINK},
  [OP_COPY_RANGE_AT] = {"copy_range_at", NUB_PRIM_COPY_RANGE},
  [OP_COPY_RANGE_FD] = {"copy_range_fd", NUB_PRIM_COPY_RANGE},
  [OP_COPY_STREAM_AT] = {"copy_stream_at", NUB_PRIM_COPY},
  [OP_COPY_STREAM_FD] = {"copy_stream_fd", NUB_PRIM_COPY},
};

static bool is_reflink(enum op op) { return op == OP_REFLINK_AT || op == OP_REFLINK_FD; }

/* The call behind a reflink, for the log only. */
static const char *clone_call(enum op op)
{
  if (!strcmp(g_caps.os, "linux"))
    return "ioctl(FICLONE)";
  return op == OP_REFLINK_FD ? "fclonefileat(2)" : "clonefileat(2)";
}

/* Run one primitive from dir/src to dir/dst. The fd variants get a freshly
 * opened source and an O_EXCL destination, as core's linker gives them. */
static int run_op(enum op op, int dir, const char *src, const char *dst,
                  unsigned mode, uint64_t size)
{
  int sfd, dfd, rc;

  switch (op) {
  case OP_HARDLINK_AT:
    return nub_plat_hardlink_at(dir, src, dir, dst);
  case OP_REFLINK_AT:
    return nub_plat_reflink_at(dir, src, dir, dst, mode);
  case OP_COPY_RANGE_AT:
    return nub_plat_copy_range_at(dir, src, dir, dst, mode, size);
  case OP_COPY_STREAM_AT:
    return nub_plat_copy_stream_at(dir, src, dir, dst, mode, size);
  case OP_REFLINK_FD:
  case OP_COPY_RANGE_FD:
  case OP_COPY_STREAM_FD:
  case OP__COUNT:
    break;
  }
  sfd = nub_plat_open_read_at(dir, src);
  if (sfd < 0)
    return sfd;
  if (op == OP_REFLINK_FD) {
    rc = nub_plat_reflink_fd_at(sfd, dir, dst, mode);
    nub_plat_close(sfd);
    return rc;
  }
  dfd = nub_plat_create_excl_at(dir, dst, mode);
  if (dfd < 0) {
    nub_plat_close(sfd);
    return dfd;
  }
  rc = op == OP_COPY_RANGE_FD ? nub_plat_copy_range_fd(sfd, dfd, size)
                              : nub_plat_copy_stream_fd(sfd, dfd, size);
  nub_plat_close(sfd);
  nub_plat_close(dfd);
  if (rc < 0)
    unlinkat(dir, dst, 0);
  return rc;
}

/* A reflink that fails must fail in a way the linker falls back from, and
 * must not leave a half-made destination behind. */
static void check_reflink_refused(int rc, int dir, const char *dst,
                                  const char *what)
{
  if (expect_reflink())
    fail_msg("%s: NUB_TEST_EXPECT_REFLINK=1 but rc %d (%s)", what, rc, ename(rc));
  if (!nub_plat_is_fallback(NUB_PRIM_REFLINK, rc))
    fail_msg("%s: rc %d (%s) is not a fallback error", what, rc, ename(rc));
  if (exists(dir, dst))
    fail_msg("%s: failed with %d but left %s behind", what, rc, dst);
}

/* ---- fixtures ------------------------------------------------------------ */

static int setup(void **state)
{
  struct ctx *c = nub_calloc(1, sizeof(*c));

  c->path = nub_asprintf("%s/t-XXXXXX", g_base);
  if (!mkdtemp(c->path)) {
    print_error("mkdtemp %s: %s\n", c->path, strerror(errno));
    return -1;
  }
  c->dir = nub_plat_open_dir_at(NUB_PLAT_CWD, c->path);
  if (c->dir < 0) {
    print_error("open %s: %s\n", c->path, ename(c->dir));
    return -1;
  }
  *state = c;
  return 0;
}

static int teardown(void **state)
{
  struct ctx *c = *state;
  int rc;

  /* A failed assertion may have left a fault armed: never leak it. */
  for (int p = 0; p < NUB_PRIM__COUNT; p++)
    nub_plat_inject_fault((enum nub_prim)p, 0);
  nub_plat_close(c->dir);
  rc = nub_plat_rm_rf(c->path);
  if (rc < 0)
    print_error("rm_rf %s: %s\n", c->path, ename(rc));
  nub_free(c->path);
  nub_free(c);
  return rc < 0 ? -1 : 0;
}

/* ---- link primitives ----------------------------------------------------- */

/* Every primitive, fd and _at flavour, gives the source's bytes and bits:
 * 0644 and 0755 sources, empty, tiny and multi-block. Hardlink shares the
 * inode (nlink 2); reflink and copies make a distinct one. */
static void test_ops_bytes_mode_inode(void **state)
{
  struct ctx *c = *state;
  static const unsigned modes[] = {0644, 0755};
  static const size_t sizes[] = {0, 5, 200 * 1024 + 7};
  char src[64], dst[96], what[160];

  for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
      struct stat a, b;

      snprintf(src, sizeof(src), "src-%o-%zu", modes[m], sizes[s]);
      put_pattern(c->dir, src, sizes[s], (uint32_t)(m * 7 + s + 1), modes[m]);
      a = st_of(c->dir, src);
      assert_int_equal(perm(&a), modes[m]);
      for (int op = 0; op < OP__COUNT; op++) {
        int rc;

        snprintf(dst, sizeof(dst), "%s-%s", ops[op].name, src);
        snprintf(what, sizeof(what), "%s %s", ops[op].name, src);
        rc = run_op((enum op)op, c->dir, src, dst, modes[m], sizes[s]);
        if (rc != 0 && is_reflink((enum op)op)) {
          check_reflink_refused(rc, c->dir, dst, what);
          continue;
        }
        CHECK_RC(rc, 0, what);
        assert_same_bytes(c->dir, src, dst);
        a = st_of(c->dir, src);
        b = st_of(c->dir, dst);
        if (!S_ISREG(b.st_mode) || perm(&b) != modes[m])
          fail_msg("%s: mode %o, want regular file %o", what,
                   (unsigned)b.st_mode, modes[m]);
        if (op == OP_HARDLINK_AT) {
          if (a.st_dev != b.st_dev || a.st_ino != b.st_ino ||
              a.st_nlink != 2 || b.st_nlink != 2)
            fail_msg("%s: not the same inode with nlink 2", what);
          /* Later primitives expect a lone source inode again. */
          assert_int_equal(unlinkat(c->dir, dst, 0), 0);
          a = st_of(c->dir, src);
          assert_int_equal(a.st_nlink, 1);
        } else if (a.st_dev != b.st_dev || a.st_ino == b.st_ino ||
                   a.st_nlink != 1 || b.st_nlink != 1) {
          fail_msg("%s: want a distinct inode on the same device", what);
        }
      }
    }
  }
}

/* The `mode` argument wins over the source's bits (clonefile copies the
 * source's, so the macOS backend must apply it). */
static void test_ops_requested_mode(void **state)
{
  struct ctx *c = *state;
  static const unsigned pairs[][2] = {{0644, 0755}, {0755, 0600}};
  char src[32], dst[64], what[128];

  for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
    snprintf(src, sizeof(src), "src-%o", pairs[i][0]);
    put_str(c->dir, src, "console.log('hi')\n", pairs[i][0]);
    for (int op = OP_REFLINK_AT; op < OP__COUNT; op++) {
      struct stat st;
      int rc;

      snprintf(dst, sizeof(dst), "%s-%o", ops[op].name, pairs[i][1]);
      snprintf(what, sizeof(what), "%s %s as %o", ops[op].name, src, pairs[i][1]);
      rc = run_op((enum op)op, c->dir, src, dst, pairs[i][1], 18);
      if (rc != 0 && is_reflink((enum op)op)) {
        check_reflink_refused(rc, c->dir, dst, what);
        continue;
      }
      CHECK_RC(rc, 0, what);
      st = st_of(c->dir, dst);
      if (perm(&st) != pairs[i][1])
        fail_msg("%s: got mode %o", what, perm(&st));
      assert_same_bytes(c->dir, src, dst);
    }
  }
}

/* An existing destination is -EEXIST (a real failure, not a fallback) and is
 * left exactly as it was. */
static void test_ops_existing_destination(void **state)
{
  struct ctx *c = *state;
  struct stat before, after;
  char what[96];

  put_str(c->dir, "src", "new bytes that must not land\n", 0644);
  put_str(c->dir, "keep", "precious\n", 0600);
  before = st_of(c->dir, "keep");
  for (int op = 0; op < OP__COUNT; op++) {
    int rc = run_op((enum op)op, c->dir, "src", "keep", 0644, 29);

    snprintf(what, sizeof(what), "%s onto an existing file", ops[op].name);
    CHECK_RC(rc, -EEXIST, what);
    assert_false(nub_plat_is_fallback(ops[op].prim, rc));
    assert_content(c->dir, "keep", "precious\n");
    after = st_of(c->dir, "keep");
    if (after.st_ino != before.st_ino || perm(&after) != 0600 ||
        after.st_nlink != 1)
      fail_msg("%s: the existing file was replaced or changed", what);
    assert_int_equal(st_of(c->dir, "src").st_nlink, 1);
  }

  /* The other creators share the rule. */
  CHECK_RC(nub_plat_symlink_at("src", c->dir, "keep"), -EEXIST, "symlink_at");
  CHECK_RC(nub_plat_mkdir_at(c->dir, "keep", 0755), -EEXIST, "mkdir_at");
  CHECK_RC(nub_plat_create_excl_at(c->dir, "keep", 0644), -EEXIST,
           "create_excl_at");
  assert_content(c->dir, "keep", "precious\n");

  if (g_caps.has_clonedir) {
    assert_int_equal(mkdirat(c->dir, "tree", 0755), 0);
    put_str(c->dir, "tree/a", "a\n", 0644);
    assert_int_equal(mkdirat(c->dir, "have", 0755), 0);
    put_str(c->dir, "have/mine", "mine\n", 0644);
    CHECK_RC(nub_plat_clonedir_at(c->dir, "tree", c->dir, "have"), -EEXIST,
             "clonedir_at onto an existing directory");
    assert_int_equal(entries(c->dir, "have"), 1);
    assert_content(c->dir, "have/mine", "mine\n");
  }
}

/* A missing source is -ENOENT, which the linker must report, not fall back
 * from; nothing is created. So is a missing destination directory. */
static void test_ops_missing_source(void **state)
{
  struct ctx *c = *state;
  char what[96];

  put_str(c->dir, "src", "x\n", 0644);
  for (int op = 0; op < OP__COUNT; op++) {
    int rc = run_op((enum op)op, c->dir, "nope", "dst", 0644, 2);

    snprintf(what, sizeof(what), "%s from a missing source", ops[op].name);
    CHECK_RC(rc, -ENOENT, what);
    if (nub_plat_is_fallback(ops[op].prim, rc))
      fail_msg("%s: ENOENT classified as fallback", what);
    assert_false(exists(c->dir, "dst"));

    rc = run_op((enum op)op, c->dir, "src", "no-such-dir/dst", 0644, 2);
    snprintf(what, sizeof(what), "%s into a missing directory", ops[op].name);
    CHECK_RC(rc, -ENOENT, what);
    assert_false(nub_plat_is_fallback(ops[op].prim, rc));
  }

  if (g_caps.has_clonedir) {
    int rc = nub_plat_clonedir_at(c->dir, "nope", c->dir, "dst");
    CHECK_RC(rc, -ENOENT, "clonedir_at from a missing source");
    assert_false(nub_plat_is_fallback(NUB_PRIM_CLONEDIR, rc));
  }
  assert_false(exists(c->dir, "dst"));
}

/* A symlink is not a file to clone or copy: reflink and the copies refuse it
 * (ELOOP, as O_NOFOLLOW answers), leave nothing at dst and never reach
 * through it to chmod or read the target. clonefile(2) would clone the link
 * itself, so the macOS backend must check. */
static void test_ops_symlink_source(void **state)
{
  struct ctx *c = *state;
  static const enum op refused[] = {OP_REFLINK_AT, OP_COPY_RANGE_AT,
                                    OP_COPY_STREAM_AT};
  char what[96];

  put_str(c->dir, "target", "t\n", 0600);
  assert_int_equal(symlinkat("target", c->dir, "link"), 0);
  for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
    enum op op = refused[i];
    int rc = run_op(op, c->dir, "link", "dst", 0755, 2);

    snprintf(what, sizeof(what), "%s of a symlink", ops[op].name);
    /* A file system without clones may say so before it looks at src. */
    bool cannot_clone = is_reflink(op) && !expect_reflink() &&
                        nub_plat_is_fallback(NUB_PRIM_REFLINK, rc);
    if (!cannot_clone)
      CHECK_RC(rc, -ELOOP, what);
    assert_false(nub_plat_is_fallback(ops[op].prim, -ELOOP));
    assert_false(exists(c->dir, "dst"));
    {
      struct stat t = st_of(c->dir, "target");
      if (perm(&t) != 0600)
        fail_msg("%s: the link's target became %o", what, perm(&t));
    }
  }
}

/* A clone of a multi-block file: where the file system clones, the clone
 * shares the source's extents and a write to it leaves the source intact;
 * where it does not, the error is a fallback one and nothing is left. */
static void test_reflink_clone(void **state)
{
  struct ctx *c = *state;
  const size_t size = 1024 * 1024 + 123;
  struct nub_plat_fsinfo fs;
  static const char *const clones[] = {"clone-at", "clone-fd"};

  CHECK_RC(nub_plat_fs_info(c->path, &fs), 0, "fs_info");
  put_pattern(c->dir, "big", size, 42, 0644);
  for (int i = 0; i < 2; i++) {
    enum op op = i == 0 ? OP_REFLINK_AT : OP_REFLINK_FD;
    char detail[256];
    struct stat a, b;
    int rc, sfd, dfd, shared;

    rc = run_op(op, c->dir, "big", clones[i], 0644, size);
    if (rc != 0) {
      check_reflink_refused(rc, c->dir, clones[i], ops[op].name);
      print_message("plat: %s on %s: rc %d (%s): fallback-classified, no "
                    "destination left\n",
                    ops[op].name, fs.fstype, rc, ename(rc));
      continue;
    }
    print_message("plat: %s on %s: rc 0 (%zu bytes) via %s\n",
                  ops[op].name, fs.fstype, size, clone_call(op));
    assert_same_bytes(c->dir, "big", clones[i]);
    a = st_of(c->dir, "big");
    b = st_of(c->dir, clones[i]);
    assert_true(a.st_dev == b.st_dev && a.st_ino != b.st_ino);
    assert_int_equal(perm(&b), 0644);

    sfd = openat(c->dir, "big", O_RDONLY | O_CLOEXEC);
    dfd = openat(c->dir, clones[i], O_RDWR | O_CLOEXEC);
    assert_true(sfd >= 0 && dfd >= 0);
    shared = nub_test_extents_shared(sfd, dfd, detail, sizeof(detail));
    print_message("plat: %s extents: %s\n", ops[op].name, detail);
    if (shared == 0 && expect_reflink())
      fail_msg("%s: rc 0 but the clone shares no extents with the source",
               ops[op].name);
    if (shared == 1)
      print_message("plat: %s shares extents with its source (copy-on-write "
                    "clone verified)\n", ops[op].name);
    else if (shared == 0)
      print_message("plat: %s: no shared extents, the data was copied (no "
                    "reflink on %s)\n", ops[op].name, fs.fstype);

    /* Copy-on-write: writing the clone must not reach the source. */
    assert_int_equal(pwrite(dfd, "CLOBBER", 7, 4096), 7);
    close(dfd);
    close(sfd);
    {
      size_t len;
      char *got = get_file(c->dir, "big", &len);
      unsigned char *want = pattern(size, 42);
      assert_int_equal(len, size);
      assert_memory_equal(got, want, size);
      nub_free(got);
      nub_free(want);
    }
  }
}

static void assert_same_file(int dir, const char *a, const char *b)
{
  struct stat x = st_of(dir, a), y = st_of(dir, b);

  assert_same_bytes(dir, a, b);
  if (!S_ISREG(y.st_mode) || perm(&x) != perm(&y) || x.st_ino == y.st_ino)
    fail_msg("%s vs %s: want a regular file, mode %o, distinct inode", a, b,
             perm(&x));
}

/* Whole-tree clone where the OS has one (macOS), -ENOTSUP where not (Linux). */
static void test_clonedir(void **state)
{
  struct ctx *c = *state;
  char target[64];
  int rc;

  assert_int_equal(mkdirat(c->dir, "pkg", 0755), 0);
  assert_int_equal(mkdirat(c->dir, "pkg/bin", 0755), 0);
  assert_int_equal(mkdirat(c->dir, "pkg/lib", 0750), 0);
  assert_int_equal(mkdirat(c->dir, "pkg/lib/deep", 0755), 0);
  assert_int_equal(mkdirat(c->dir, "pkg/empty", 0700), 0);
  put_str(c->dir, "pkg/package.json", "{\"name\":\"pkg\"}\n", 0644);
  put_str(c->dir, "pkg/bin/cli.js", "#!/usr/bin/env node\n", 0755);
  put_pattern(c->dir, "pkg/lib/deep/data.bin", 70000, 9, 0644);
  assert_int_equal(symlinkat("../package.json", c->dir, "pkg/bin/link"), 0);

  rc = nub_plat_clonedir_at(c->dir, "pkg", c->dir, "copy");
  if (!g_caps.has_clonedir) {
    CHECK_RC(rc, -ENOTSUP, "clonedir_at without a directory clone");
    assert_true(nub_plat_is_fallback(NUB_PRIM_CLONEDIR, rc));
    assert_false(exists(c->dir, "copy"));
    print_message("plat: clonedir_at: -ENOTSUP, fallback-classified\n");
    return;
  }
  CHECK_RC(rc, 0, "clonedir_at");
  assert_same_file(c->dir, "pkg/package.json", "copy/package.json");
  assert_same_file(c->dir, "pkg/bin/cli.js", "copy/bin/cli.js");
  assert_same_file(c->dir, "pkg/lib/deep/data.bin", "copy/lib/deep/data.bin");
  assert_true(S_ISLNK(st_of(c->dir, "copy/bin/link").st_mode));
  assert_int_equal(readlinkat(c->dir, "copy/bin/link", target, sizeof(target)),
                   15);
  assert_memory_equal(target, "../package.json", 15);
  assert_true(S_ISDIR(st_of(c->dir, "copy/empty").st_mode));
  assert_int_equal(entries(c->dir, "copy/empty"), 0);
  {
    struct stat lib = st_of(c->dir, "copy/lib");
    assert_int_equal(perm(&lib), 0750);
  }
  assert_int_equal(entries(c->dir, "copy"), entries(c->dir, "pkg"));
  assert_int_equal(entries(c->dir, "copy/bin"), 2);
  assert_true(st_of(c->dir, "copy").st_ino != st_of(c->dir, "pkg").st_ino);
  print_message("plat: clonedir_at: cloned a 3-file tree with a symlink and "
                "an empty directory\n");
}

/* copy_range on a few MiB: the size is verified, the copy starts at offset 0
 * whatever the source fd's position, and a source shorter than promised is an
 * error (with no destination left by the _at form). */
static void test_copy_range_large(void **state)
{
  struct ctx *c = *state;
  const size_t size = 5 * 1024 * 1024 + 4321;
  char skip[100];
  int sfd, dfd;

  assert_true(g_caps.has_copy_range);
  put_pattern(c->dir, "big", size, 7, 0644);
  CHECK_RC(nub_plat_copy_range_at(c->dir, "big", c->dir, "copy", 0644, size), 0,
           "copy_range_at 5 MiB");
  assert_int_equal(st_of(c->dir, "copy").st_size, size);
  assert_same_bytes(c->dir, "big", "copy");

  for (int i = 0; i < 2; i++) {
    const char *name = i == 0 ? "copy-range-fd" : "copy-stream-fd";
    sfd = nub_plat_open_read_at(c->dir, "big");
    assert_true(sfd >= 0);
    assert_int_equal(nub_plat_read(sfd, skip, sizeof(skip)), sizeof(skip));
    dfd = nub_plat_create_excl_at(c->dir, name, 0644);
    assert_true(dfd >= 0);
    CHECK_RC(i == 0 ? nub_plat_copy_range_fd(sfd, dfd, size)
                    : nub_plat_copy_stream_fd(sfd, dfd, size),
             0, name);
    nub_plat_close(sfd);
    nub_plat_close(dfd);
    assert_int_equal(st_of(c->dir, name).st_size, size);
    assert_same_bytes(c->dir, "big", name);
  }

  for (int op = OP_COPY_RANGE_AT; op < OP__COUNT; op++) {
    int rc = run_op((enum op)op, c->dir, "big", "short", 0644, size + 1);
    if (rc >= 0)
      fail_msg("%s: size %zu promised, %zu there, rc %d", ops[op].name,
               size + 1, size, rc);
    assert_false(exists(c->dir, "short"));
  }
}

/* ---- error classification ------------------------------------------------ */

static void test_classifier(void **state)
{
  static const char *const wire[] = {"clonedir", "reflink", "small_copy",
                                     "copy_range", "copy", "hardlink"};
  (void)state;

  assert_int_equal(NUB_PRIM__COUNT, 6);
  for (int p = 0; p < NUB_PRIM__COUNT; p++) {
    enum nub_prim pr = (enum nub_prim)p;
    const char *n = nub_plat_prim_name(pr);

    assert_string_equal(n, wire[p]);
    /* "This primitive cannot serve here": every primitive. */
    assert_true(nub_plat_is_fallback(pr, -EXDEV));
    assert_true(nub_plat_is_fallback(pr, -EOPNOTSUPP));
    assert_true(nub_plat_is_fallback(pr, -ENOTSUP));
    assert_true(nub_plat_is_fallback(pr, -ENOSYS));
    /* Real failures, whatever the primitive. */
    assert_false(nub_plat_is_fallback(pr, -ENOENT));
    assert_false(nub_plat_is_fallback(pr, -ENOSPC));
    assert_false(nub_plat_is_fallback(pr, -EIO));
    assert_false(nub_plat_is_fallback(pr, -EEXIST));
    /* Not errors at all. */
    assert_false(nub_plat_is_fallback(pr, 0));
    assert_false(nub_plat_is_fallback(pr, 3));
    /* EMLINK is the hardlink cap, nothing else's business. */
    if (pr == NUB_PRIM_HARDLINK)
      assert_true(nub_plat_is_fallback(pr, -EMLINK));
    else
      assert_false(nub_plat_is_fallback(pr, -EMLINK));
  }
  /* EINVAL: a file system without clones answering FICLONE. */
  assert_true(nub_plat_is_fallback(NUB_PRIM_REFLINK, -EINVAL));
  assert_true(nub_plat_is_fallback(NUB_PRIM_REFLINK, -ENOTTY));
  assert_false(nub_plat_is_fallback(NUB_PRIM_HARDLINK, -EINVAL));
  assert_false(nub_plat_is_fallback(NUB_PRIM_COPY, -EINVAL));
  assert_string_equal(nub_plat_prim_name(NUB_PRIM__COUNT), "unknown");
}

/* ---- names and directories ----------------------------------------------- */

/* A new file has no name until it is published; publishing never replaces,
 * and a dropped file leaves nothing in either directory. */
static void test_newfile(void **state)
{
  struct ctx *c = *state;
  struct nub_plat_newfile nf;
  struct stat st;

  assert_int_equal(mkdirat(c->dir, "stage", 0755), 0);
  assert_int_equal(mkdirat(c->dir, "pub", 0755), 0);
  {
    int stage = nub_plat_open_dir_at(c->dir, "stage");
    int pub = nub_plat_open_dir_at(c->dir, "pub");
    assert_true(stage >= 0 && pub >= 0);

    CHECK_RC(nub_plat_newfile_open(&nf, pub, stage, 0755), 0, "newfile_open");
    CHECK_RC(nub_plat_write_all(nf.fd, "one\n", 4), 0, "write");
    assert_int_equal(entries(pub, "."), 0); /* unnamed until published */
    CHECK_RC(nub_plat_newfile_publish(&nf, pub, "x"), 0, "publish");
    assert_int_equal(nf.fd, -1);
    assert_content(pub, "x", "one\n");
    assert_int_equal(fstatat(pub, "x", &st, 0), 0);
    assert_int_equal(st.st_mode & 0100, 0100);

    CHECK_RC(nub_plat_newfile_open(&nf, pub, stage, 0644), 0, "newfile_open 2");
    CHECK_RC(nub_plat_write_all(nf.fd, "two\n", 4), 0, "write 2");
    CHECK_RC(nub_plat_newfile_publish(&nf, pub, "x"), -EEXIST, "publish onto x");
    assert_content(pub, "x", "one\n");

    CHECK_RC(nub_plat_newfile_open(&nf, pub, stage, 0644), 0, "newfile_open 3");
    CHECK_RC(nub_plat_write_all(nf.fd, "three\n", 6), 0, "write 3");
    nub_plat_newfile_discard(&nf);
    nub_plat_newfile_discard(&nf); /* twice is harmless */
    assert_int_equal(entries(pub, "."), 1);
    assert_int_equal(entries(stage, "."), 0);

    /* replace: over an existing name, in one step */
    CHECK_RC(nub_plat_newfile_open(&nf, pub, stage, 0644), 0, "newfile_open 4");
    CHECK_RC(nub_plat_write_all(nf.fd, "four\n", 5), 0, "write 4");
    CHECK_RC(nub_plat_newfile_replace(&nf, pub, "x"), 0, "replace x");
    assert_int_equal(nf.fd, -1);
    assert_content(pub, "x", "four\n");
    assert_int_equal(entries(pub, "."), 1);
    assert_int_equal(entries(stage, "."), 0);
    nub_plat_close(stage);
    nub_plat_close(pub);
  }
}

static void test_rename_noreplace(void **state)
{
  struct ctx *c = *state;
  int rc;

  put_str(c->dir, "a", "A\n", 0644);
  CHECK_RC(nub_plat_rename_noreplace_at(c->dir, "a", c->dir, "b"), 0,
           "rename_noreplace onto a missing name");
  assert_false(exists(c->dir, "a"));
  assert_content(c->dir, "b", "A\n");

  put_str(c->dir, "c", "C\n", 0644);
  CHECK_RC(nub_plat_rename_noreplace_at(c->dir, "b", c->dir, "c"), -EEXIST,
           "rename_noreplace onto a file");
  assert_content(c->dir, "b", "A\n");
  assert_content(c->dir, "c", "C\n");

  assert_int_equal(mkdirat(c->dir, "d1", 0755), 0);
  put_str(c->dir, "d1/f", "1\n", 0644);
  assert_int_equal(mkdirat(c->dir, "d2", 0755), 0);
  put_str(c->dir, "d2/f", "2\n", 0644);
  rc = nub_plat_rename_noreplace_at(c->dir, "d1", c->dir, "d2");
  if (rc != -EEXIST && rc != -ENOTEMPTY)
    fail_msg("dir onto a non-empty dir: rc %d (%s)", rc, ename(rc));
  assert_content(c->dir, "d1/f", "1\n");
  assert_content(c->dir, "d2/f", "2\n");

  assert_int_equal(mkdirat(c->dir, "d3", 0755), 0);
  rc = nub_plat_rename_noreplace_at(c->dir, "d1", c->dir, "d3");
  if (rc != -EEXIST && rc != -ENOTEMPTY)
    fail_msg("dir onto an empty dir: rc %d (%s)", rc, ename(rc));
  assert_content(c->dir, "d1/f", "1\n");

  CHECK_RC(nub_plat_rename_noreplace_at(c->dir, "d1", c->dir, "d4"), 0,
           "dir onto a missing name");
  assert_content(c->dir, "d4/f", "1\n");
  CHECK_RC(nub_plat_rename_noreplace_at(c->dir, "gone", c->dir, "d5"), -ENOENT,
           "rename_noreplace of a missing name");

  /* rename_at does replace. */
  CHECK_RC(nub_plat_rename_at(c->dir, "b", c->dir, "c"), 0, "rename_at");
  assert_content(c->dir, "c", "A\n");
  assert_false(exists(c->dir, "b"));
}

static void test_mkdir_p(void **state)
{
  struct ctx *c = *state;
  char *deep = nub_asprintf("%s/a/b/c/d", c->path);
  char *file = nub_asprintf("%s/f", c->path);
  char *under = nub_asprintf("%s/f/x", c->path);

  CHECK_RC(nub_plat_mkdir_p(deep, 0755), 0, "mkdir_p a/b/c/d");
  assert_true(S_ISDIR(st_of(c->dir, "a/b/c/d").st_mode));
  CHECK_RC(nub_plat_mkdir_p(deep, 0755), 0, "mkdir_p again");
  CHECK_RC(nub_plat_mkdir_p(c->path, 0755), 0, "mkdir_p of an existing dir");
  put_str(c->dir, "a/b/c/d/x", "x", 0644);
  CHECK_RC(nub_plat_mkdir_p(deep, 0755), 0, "mkdir_p of a populated dir");
  assert_content(c->dir, "a/b/c/d/x", "x");

  put_str(c->dir, "f", "file\n", 0644);
  assert_true(nub_plat_mkdir_p(file, 0755) < 0);
  assert_true(nub_plat_mkdir_p(under, 0755) < 0);
  assert_content(c->dir, "f", "file\n");

  CHECK_RC(nub_plat_mkdir_at(c->dir, "m", 0755), 0, "mkdir_at");
  CHECK_RC(nub_plat_mkdir_at(c->dir, "m", 0755), -EEXIST, "mkdir_at again");
  nub_free(deep);
  nub_free(file);
  nub_free(under);
}

/* rm_rf removes files, nested dirs and symlinks, and never follows a symlink
 * out of the tree. */
static void test_rm_rf(void **state)
{
  struct ctx *c = *state;
  char *abs_out = nub_asprintf("%s/outside", c->path);
  char *tree = nub_asprintf("%s/tree", c->path);

  assert_int_equal(mkdirat(c->dir, "outside", 0755), 0);
  put_str(c->dir, "outside/survivor", "still here\n", 0644);

  assert_int_equal(mkdirat(c->dir, "tree", 0755), 0);
  assert_int_equal(mkdirat(c->dir, "tree/a", 0755), 0);
  assert_int_equal(mkdirat(c->dir, "tree/a/b", 0700), 0);
  assert_int_equal(mkdirat(c->dir, "tree/a/b/c", 0755), 0);
  put_str(c->dir, "tree/top", "t\n", 0644);
  put_str(c->dir, "tree/a/b/c/leaf", "l\n", 0444);
  put_str(c->dir, "tree/a/b/exe", "e\n", 0755);
  assert_int_equal(symlinkat("../outside", c->dir, "tree/rel-out"), 0);
  assert_int_equal(symlinkat(abs_out, c->dir, "tree/a/abs-out"), 0);
  assert_int_equal(symlinkat("top", c->dir, "tree/to-file"), 0);
  assert_int_equal(symlinkat("nowhere", c->dir, "tree/a/b/dangling"), 0);

  CHECK_RC(nub_plat_rm_rf(tree), 0, "rm_rf tree");
  assert_false(exists(c->dir, "tree"));
  assert_content(c->dir, "outside/survivor", "still here\n");

  /* The path itself a symlink to a directory: the link goes, not the dir. */
  assert_int_equal(symlinkat("outside", c->dir, "link-to-out"), 0);
  CHECK_RC(nub_plat_rm_rf_at(c->dir, "link-to-out"), 0, "rm_rf_at of a link");
  assert_false(exists(c->dir, "link-to-out"));
  assert_content(c->dir, "outside/survivor", "still here\n");

  CHECK_RC(nub_plat_rm_rf_at(c->dir, "never-was"), 0, "rm_rf_at missing");
  put_str(c->dir, "plain", "p", 0644);
  CHECK_RC(nub_plat_rm_rf_at(c->dir, "plain"), 0, "rm_rf_at of a file");
  assert_false(exists(c->dir, "plain"));

  assert_int_equal(mkdirat(c->dir, "e", 0755), 0);
  /* EISDIR on Linux, EPERM on macOS: either way the directory stays. */
  assert_true(nub_plat_unlink_at(c->dir, "e", false) < 0);
  assert_true(exists(c->dir, "e"));
  CHECK_RC(nub_plat_unlink_at(c->dir, "e", true), 0, "unlink_at dir");
  assert_false(exists(c->dir, "e"));
  nub_free(abs_out);
  nub_free(tree);
}

static void test_stat_symlink_readlink(void **state)
{
  struct ctx *c = *state;
  struct nub_plat_stat s, f;
  struct stat raw;
  char buf[64];

  put_str(c->dir, "file", "12345", 0640);
  raw = st_of(c->dir, "file");
  CHECK_RC(nub_plat_stat_at(c->dir, "file", &s), 0, "stat_at file");
  assert_int_equal(s.type, NUB_FT_FILE);
  assert_int_equal(s.size, 5);
  assert_int_equal(s.mode, 0640);
  assert_int_equal(s.nlink, 1);
  assert_true(s.dev == (uint64_t)raw.st_dev && s.ino == (uint64_t)raw.st_ino);
  assert_true(s.mtime_ns > 0);

  CHECK_RC(nub_plat_stat_at(NUB_PLAT_CWD, c->path, &s), 0, "stat_at dir (CWD)");
  assert_int_equal(s.type, NUB_FT_DIR);

  CHECK_RC(nub_plat_symlink_at("file", c->dir, "link"), 0, "symlink_at");
  CHECK_RC(nub_plat_stat_at(c->dir, "link", &s), 0, "stat_at link");
  assert_int_equal(s.type, NUB_FT_LINK);
  CHECK_RC(nub_plat_stat_follow_at(c->dir, "link", &f), 0, "stat_follow_at");
  assert_int_equal(f.type, NUB_FT_FILE);
  assert_true(f.ino == (uint64_t)raw.st_ino);

  CHECK_RC(nub_plat_readlink_at(c->dir, "link", buf, sizeof(buf)), 4,
           "readlink_at");
  assert_string_equal(buf, "file");
  /* Exactly enough room for the target and its NUL. */
  CHECK_RC(nub_plat_readlink_at(c->dir, "link", buf, 5), 4,
           "readlink_at into a buffer of exactly 5");
  assert_string_equal(buf, "file");
  CHECK_RC(nub_plat_readlink_at(c->dir, "link", buf, 4), -ENAMETOOLONG,
           "readlink_at into a short buffer");
  CHECK_RC(nub_plat_readlink_at(c->dir, "file", buf, sizeof(buf)), -EINVAL,
           "readlink_at of a regular file");

  CHECK_RC(nub_plat_stat_at(c->dir, "missing", &s), -ENOENT, "stat_at missing");
  assert_int_equal(s.type, NUB_FT_NONE);
  CHECK_RC(nub_plat_stat_follow_at(c->dir, "missing", &s), -ENOENT,
           "stat_follow_at missing");
  CHECK_RC(nub_plat_symlink_at("nowhere", c->dir, "dangling"), 0,
           "symlink_at dangling");
  CHECK_RC(nub_plat_stat_follow_at(c->dir, "dangling", &s), -ENOENT,
           "stat_follow_at dangling");

  CHECK_RC(nub_plat_chmod_at(c->dir, "file", 0604), 0, "chmod_at");
  CHECK_RC(nub_plat_stat_at(c->dir, "file", &s), 0, "stat_at after chmod");
  assert_int_equal(s.mode, 0604);
}

/* The up-to-date check's question: a directory's ctime and inode, nothing
 * else answered for other kinds of entry. */
static void test_dirstamp(void **state)
{
  struct ctx *c = *state;
  struct nub_plat_stat s;
  uint64_t ct = 0, ino = 0, ct2 = 0, ino2 = 0;

  CHECK_RC(nub_plat_mkdir_at(c->dir, "d", 0755), 0, "mkdir d");
  CHECK_RC(nub_plat_dirstamp_at(c->dir, "d", &ct, &ino), 0, "dirstamp_at d");
  CHECK_RC(nub_plat_stat_at(c->dir, "d", &s), 0, "stat_at d");
  assert_true(ct == s.ctime_ns && ino == s.ino && ct > 0);
  put_str(c->dir, "d/f", "x", 0644); /* an entry made inside moves the time */
  CHECK_RC(nub_plat_dirstamp_at(c->dir, "d", &ct2, &ino2), 0, "dirstamp_at d again");
  CHECK_RC(nub_plat_stat_at(c->dir, "d", &s), 0, "stat_at d again");
  assert_true(ct2 == s.ctime_ns && ino2 == ino);
  CHECK_RC(nub_plat_dirstamp_at(c->dir, "d/f", &ct, &ino), -ENOTDIR, "dirstamp_at file");
  CHECK_RC(nub_plat_symlink_at("d", c->dir, "l"), 0, "symlink_at");
  CHECK_RC(nub_plat_dirstamp_at(c->dir, "l", &ct, &ino), -ENOTDIR,
           "dirstamp_at a link to a directory (not followed)");
  CHECK_RC(nub_plat_dirstamp_at(c->dir, "missing", &ct, &ino), -ENOENT, "dirstamp_at missing");
}

/* Only regular files are read whole: a FIFO is refused without waiting
 * for a writer (the alarm turns a wait into a failure). */
static void test_read_file_not_regular(void **state)
{
  struct ctx *c = *state;
  char *text = NULL, *fifo = nub_asprintf("%s/fifo", c->path);
  size_t len = 0;

  assert_int_equal(mkfifo(fifo, 0644), 0);
  alarm(10);
  CHECK_RC(nub_plat_read_file_at(c->dir, "fifo", 1024, &text, &len), -EINVAL,
           "read_file_at a FIFO");
  alarm(0);
  assert_null(text);
  CHECK_RC(nub_plat_mkdir_at(c->dir, "d2", 0755), 0, "mkdir d2");
  CHECK_RC(nub_plat_read_file_at(c->dir, "d2", 1024, &text, &len), -EISDIR,
           "read_file_at a directory");
  nub_free(fifo);
}

/* ---- files --------------------------------------------------------------- */

static void test_files_roundtrip(void **state)
{
  struct ctx *c = *state;
  static const char data[] = "line one\n\0binary\xff\x01 tail";
  char *path = nub_asprintf("%s/cfg", c->path);
  char *out = NULL, *nodir = nub_asprintf("%s/none/cfg", c->path);
  size_t len = 0;
  struct stat st;

  CHECK_RC(nub_plat_write_file_atomic(path, data, sizeof(data) - 1, 0640), 0,
           "write_file_atomic");
  CHECK_RC(nub_plat_read_file_at(c->dir, "cfg", 1 << 20, &out, &len), 0,
           "read_file_at");
  assert_int_equal(len, sizeof(data) - 1);
  assert_memory_equal(out, data, len);
  assert_int_equal(out[len], '\0');
  nub_free(out);
  st = st_of(c->dir, "cfg");
  assert_int_equal(perm(&st), 0640);

  /* Replace: the new bytes, and no temp file left beside it. */
  CHECK_RC(nub_plat_write_file_atomic(path, "v2", 2, 0644), 0,
           "write_file_atomic over");
  assert_content(c->dir, "cfg", "v2");
  assert_int_equal(entries(c->dir, "."), 1);

  CHECK_RC(nub_plat_write_file_atomic(path, "", 0, 0644), 0, "write empty");
  CHECK_RC(nub_plat_read_file_at(c->dir, "cfg", 16, &out, &len), 0,
           "read_file_at empty");
  assert_int_equal(len, 0);
  assert_int_equal(out[0], '\0');
  nub_free(out);

  CHECK_RC(nub_plat_write_file_atomic(path, "0123456789", 10, 0644), 0, "write");
  CHECK_RC(nub_plat_read_file_at(c->dir, "cfg", 10, &out, &len), 0,
           "read_file_at at the cap");
  nub_free(out);
  CHECK_RC(nub_plat_read_file_at(c->dir, "cfg", 9, &out, &len), -EFBIG,
           "read_file_at over the cap");
  CHECK_RC(nub_plat_read_file_at(c->dir, "missing", 10, &out, &len), -ENOENT,
           "read_file_at missing");
  CHECK_RC(nub_plat_read_file_at(NUB_PLAT_CWD, c->path, 10, &out, &len),
           -EISDIR, "read_file_at of a directory");
  CHECK_RC(nub_plat_write_file_atomic(nodir, "x", 1, 0644), -ENOENT,
           "write_file_atomic into a missing dir");
  assert_int_equal(entries(c->dir, "."), 1);

  /* create_excl_at + write_all + open_read_at + read. */
  {
    char buf[16];
    int fd = nub_plat_create_excl_at(c->dir, "w", 0600);
    assert_true(fd >= 0);
    CHECK_RC(nub_plat_write_all(fd, "hello", 5), 0, "write_all");
    nub_plat_close(fd);
    fd = nub_plat_open_read_at(c->dir, "w");
    assert_true(fd >= 0);
    assert_int_equal(nub_plat_read(fd, buf, sizeof(buf)), 5);
    assert_int_equal(nub_plat_read(fd, buf, sizeof(buf)), 0);
    assert_memory_equal(buf, "hello", 5);
    CHECK_RC(nub_plat_close(fd), 0, "close");
    CHECK_RC(nub_plat_open_read_at(c->dir, "nope"), -ENOENT, "open_read_at");
    CHECK_RC(nub_plat_open_dir_at(c->dir, "w"), -ENOTDIR, "open_dir_at file");
  }
  nub_free(path);
  nub_free(nodir);
}

struct seen {
  char names[8][16];
  enum nub_plat_ftype types[8];
  int n;
};

static int seen_cb(void *payload, const char *name, enum nub_plat_ftype type)
{
  struct seen *s = payload;

  if (s->n >= 8)
    return -E2BIG;
  snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
  s->types[s->n++] = type;
  return 0;
}

static int stop_cb(void *payload, const char *name, enum nub_plat_ftype type)
{
  (void)name;
  (void)type;
  (*(int *)payload)++;
  return 7;
}

static enum nub_plat_ftype type_of(const struct seen *s, const char *name)
{
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->names[i], name))
      return s->types[i];
  fail_msg("list_dir_at did not report %s", name);
  return NUB_FT_NONE;
}

static void test_list_dir(void **state)
{
  struct ctx *c = *state;
  struct seen s = {.n = 0};
  int calls = 0;

  assert_int_equal(mkdirat(c->dir, "d", 0755), 0);
  put_str(c->dir, "d/file", "f", 0644);
  assert_int_equal(mkdirat(c->dir, "d/sub", 0755), 0);
  assert_int_equal(symlinkat("file", c->dir, "d/link"), 0);
  assert_int_equal(symlinkat("sub", c->dir, "d/dirlink"), 0);

  CHECK_RC(nub_plat_list_dir_at(c->dir, "d", seen_cb, &s), 0, "list_dir_at");
  assert_int_equal(s.n, 4); /* no "." or ".." */
  assert_int_equal(type_of(&s, "file"), NUB_FT_FILE);
  assert_int_equal(type_of(&s, "sub"), NUB_FT_DIR);
  assert_int_equal(type_of(&s, "link"), NUB_FT_LINK);
  assert_int_equal(type_of(&s, "dirlink"), NUB_FT_LINK);

  assert_int_equal(nub_plat_list_dir_at(c->dir, "d", stop_cb, &calls), 7);
  assert_int_equal(calls, 1);
  assert_int_equal(entries(c->dir, "d/sub"), 0);
  CHECK_RC(nub_plat_list_dir_at(c->dir, "missing", seen_cb, &s), -ENOENT,
           "list_dir_at missing");
  CHECK_RC(nub_plat_list_dir_at(c->dir, "d/file", seen_cb, &s), -ENOTDIR,
           "list_dir_at of a file");
}

/* ---- process, time, resources ------------------------------------------- */

/* flock locks belong to the open file description: a second open of the same
 * path in this very process conflicts like another process would. */
static void test_lock(void **state)
{
  struct ctx *c = *state;
  char *path = nub_asprintf("%s/lock", c->path);
  int a = -1, b = -1;

  CHECK_RC(nub_plat_lock(path, false, &a), 0, "first lock");
  assert_true(a >= 0);
  assert_true(exists(c->dir, "lock"));
  b = -1;
  CHECK_RC(nub_plat_lock(path, false, &b), -EWOULDBLOCK, "second lock");
  assert_int_equal(b, -1);
  nub_plat_unlock(a);
  CHECK_RC(nub_plat_lock(path, false, &b), 0, "lock after unlock");
  nub_plat_unlock(b);
  CHECK_RC(nub_plat_lock(path, true, &a), 0, "waiting lock, uncontended");
  nub_plat_unlock(a);
  nub_free(path);
}

static void test_rusage(void **state)
{
  struct nub_plat_rusage self, self2, thr;
  const size_t touch = 32u << 20;
  volatile unsigned char *mem;
  uint64_t t0, cpu0;
  int rc;
  (void)state;

  /* Touch 32 MiB so that the peak RSS is well above 1 MiB in any unit. */
  mem = malloc(touch);
  assert_non_null((void *)mem);
  for (size_t i = 0; i < touch; i += 4096)
    mem[i] = (unsigned char)i;
  free((void *)mem);

  CHECK_RC(nub_plat_rusage(NUB_RUSAGE_SELF, &self), 0, "rusage self");
  if (self.max_rss_bytes < touch || self.max_rss_bytes > (1ull << 40))
    fail_msg("max_rss_bytes %llu: not bytes (KiB?)",
             (unsigned long long)self.max_rss_bytes);

  /* Burn CPU until the accounting moves (bounded by 5 s of wall time). */
  cpu0 = self.user_us + self.sys_us;
  t0 = nub_plat_now_ns();
  do {
    for (int i = 0; i < 1000000; i++)
      g_sink += (uint64_t)i;
    CHECK_RC(nub_plat_rusage(NUB_RUSAGE_SELF, &self2), 0, "rusage self again");
  } while (self2.user_us + self2.sys_us == cpu0 &&
           nub_plat_now_ns() - t0 < 5000000000ull);
  assert_true(self2.user_us + self2.sys_us > cpu0);
  assert_true(self2.user_us >= self.user_us && self2.sys_us >= self.sys_us);
  assert_true(self2.minflt >= self.minflt);

  rc = nub_plat_rusage(NUB_RUSAGE_THREAD, &thr);
  if (rc == 0) {
    assert_true(thr.user_us + thr.sys_us > 0);
    print_message("plat: rusage THREAD supported\n");
  } else {
    CHECK_RC(rc, -ENOTSUP, "rusage thread");
    print_message("plat: rusage THREAD: -ENOTSUP\n");
  }
}

static void test_now_ns(void **state)
{
  struct timespec ts = {0, 5 * 1000 * 1000};
  uint64_t a, b, prev;
  (void)state;

  prev = a = nub_plat_now_ns();
  for (int i = 0; i < 1000; i++) {
    uint64_t t = nub_plat_now_ns();
    assert_true(t >= prev);
    prev = t;
  }
  nanosleep(&ts, NULL);
  b = nub_plat_now_ns();
  assert_true(b - a >= 4 * 1000 * 1000);     /* nanoseconds, not micro */
  assert_true(b - a < 60ull * 1000000000ull); /* and not something else */
}

static void test_caps_fs_info(void **state)
{
  struct ctx *c = *state;
  struct nub_plat_fsinfo fs;
  const char *want = getenv("NUB_TEST_EXPECT_FSTYPE");
  char *missing = nub_asprintf("%s/missing", c->path);

  assert_true(!strcmp(g_caps.os, "linux") || !strcmp(g_caps.os, "macos"));
  assert_true(g_caps.ncpu >= 1);
  assert_true(!g_caps.has_clonedir || g_caps.has_reflink);

  CHECK_RC(nub_plat_fs_info(c->path, &fs), 0, "fs_info");
  assert_true(fs.fstype[0] != '\0');
  assert_true(strlen(fs.fstype) < sizeof(fs.fstype));
  assert_true(fs.dev == (uint64_t)st_of(c->dir, ".").st_dev);
  print_message("plat: backend %s, work dir on %s (case %s)\n", g_caps.os,
                fs.fstype, fs.case_sensitive ? "sensitive" : "insensitive");
  if (want && *want && strcmp(fs.fstype, want) != 0)
    fail_msg("fs_info says %s, NUB_TEST_EXPECT_FSTYPE=%s", fs.fstype, want);
  CHECK_RC(nub_plat_fs_info(missing, &fs), -ENOENT, "fs_info missing");
  nub_free(missing);
}

/* The probe between two directories of one file system: hardlink and copy
 * work, each other verdict is consistent with the primitive's own answer,
 * and nothing is left behind. */
static void test_probe(void **state)
{
  struct ctx *c = *state;
  struct nub_plat_probe pr;
  int store, dst;

  assert_int_equal(mkdirat(c->dir, "store", 0755), 0);
  assert_int_equal(mkdirat(c->dir, "dst", 0755), 0);
  store = nub_plat_open_dir_at(c->dir, "store");
  dst = nub_plat_open_dir_at(c->dir, "dst");
  assert_true(store >= 0 && dst >= 0);

  CHECK_RC(nub_plat_probe(store, dst, &pr), 0, "probe");
  assert_true(pr.src_dev == pr.dst_dev);
  assert_true(pr.works[NUB_PRIM_HARDLINK]);
  assert_true(pr.works[NUB_PRIM_COPY]);
  for (int p = 0; p < NUB_PRIM__COUNT; p++) {
    print_message("plat: probe %-10s %s %s\n",
                  nub_plat_prim_name((enum nub_prim)p),
                  pr.works[p] ? "works" : "fails",
                  pr.works[p] ? "" : ename(pr.err[p]));
    if (pr.works[p])
      assert_int_equal(pr.err[p], 0);
  }
  if (pr.works[NUB_PRIM_REFLINK])
    assert_true(g_caps.has_reflink);
  else if (expect_reflink())
    fail_msg("probe: reflink fails (%s) with NUB_TEST_EXPECT_REFLINK=1",
             ename(pr.err[NUB_PRIM_REFLINK]));
  else
    assert_true(nub_plat_is_fallback(NUB_PRIM_REFLINK, pr.err[NUB_PRIM_REFLINK]));
  assert_true(pr.works[NUB_PRIM_CLONEDIR] == g_caps.has_clonedir);
  if (!g_caps.has_clonedir)
    assert_true(nub_plat_is_fallback(NUB_PRIM_CLONEDIR, pr.err[NUB_PRIM_CLONEDIR]));
  if (g_caps.has_copy_range)
    assert_true(pr.works[NUB_PRIM_COPY_RANGE]);
  assert_int_equal(entries(store, "."), 0);
  assert_int_equal(entries(dst, "."), 0);

  /* An injected fault shows in the verdict and still leaves nothing. */
  nub_plat_inject_fault(NUB_PRIM_HARDLINK, -EXDEV);
  CHECK_RC(nub_plat_probe(store, dst, &pr), 0, "probe with a fault");
  nub_plat_inject_fault(NUB_PRIM_HARDLINK, 0);
  assert_false(pr.works[NUB_PRIM_HARDLINK]);
  assert_int_equal(pr.err[NUB_PRIM_HARDLINK], -EXDEV);
  assert_true(pr.works[NUB_PRIM_COPY]);
  assert_int_equal(entries(store, "."), 0);
  assert_int_equal(entries(dst, "."), 0);
  nub_plat_close(store);
  nub_plat_close(dst);
}

/* ---- fault injection ----------------------------------------------------- */

static void test_fault_injection(void **state)
{
  struct ctx *c = *state;
  char what[96];

  put_str(c->dir, "src", "payload\n", 0644);
  nub_plat_inject_fault(NUB_PRIM_HARDLINK, -EXDEV);
  CHECK_RC(nub_plat_hardlink_at(c->dir, "src", c->dir, "dst"), -EXDEV,
           "hardlink_at with a fault");
  assert_false(exists(c->dir, "dst"));
  nub_plat_inject_fault(NUB_PRIM_HARDLINK, 0);
  CHECK_RC(nub_plat_hardlink_at(c->dir, "src", c->dir, "dst"), 0,
           "hardlink_at after the reset");
  assert_int_equal(st_of(c->dir, "dst").st_ino, st_of(c->dir, "src").st_ino);
  assert_int_equal(unlinkat(c->dir, "dst", 0), 0);

  /* Every primitive, fd flavours included, fails first and creates nothing. */
  for (int op = 0; op < OP__COUNT; op++) {
    nub_plat_inject_fault(ops[op].prim, -ENOSPC);
    snprintf(what, sizeof(what), "%s with an injected ENOSPC", ops[op].name);
    CHECK_RC(run_op((enum op)op, c->dir, "src", "dst", 0644, 8), -ENOSPC, what);
    assert_false(exists(c->dir, "dst"));
    nub_plat_inject_fault(ops[op].prim, 0);
  }
  nub_plat_inject_fault(NUB_PRIM_CLONEDIR, -EXDEV);
  CHECK_RC(nub_plat_clonedir_at(c->dir, "src", c->dir, "dst"), -EXDEV,
           "clonedir_at with a fault");
  nub_plat_inject_fault(NUB_PRIM_CLONEDIR, 0);
  /* Out-of-range primitives are ignored, not written out of bounds. */
  nub_plat_inject_fault(NUB_PRIM__COUNT, -EIO);
  nub_plat_inject_fault((enum nub_prim)-1, -EIO);
  CHECK_RC(nub_plat_copy_stream_at(c->dir, "src", c->dir, "dst", 0644, 8), 0,
           "copy_stream_at without a fault");
  assert_same_bytes(c->dir, "src", "dst");
}

static void test_fault_env(void **state)
{
  struct ctx *c = *state;

  put_str(c->dir, "src", "payload\n", 0644);
  /* Unknown primitives and errno names are skipped, not fatal. */
  assert_int_equal(setenv("NUB_PLAT_FAULT",
                          "hardlink=EXDEV,reflink=EOPNOTSUPP,bogus=EIO,"
                          "copy_range=NOTANERRNO,copy=ENOSPC",
                          1),
                   0);
  nub_plat_init();
  assert_int_equal(unsetenv("NUB_PLAT_FAULT"), 0);
  CHECK_RC(nub_plat_hardlink_at(c->dir, "src", c->dir, "h"), -EXDEV,
           "hardlink_at under NUB_PLAT_FAULT");
  CHECK_RC(nub_plat_reflink_at(c->dir, "src", c->dir, "r", 0644), -EOPNOTSUPP,
           "reflink_at under NUB_PLAT_FAULT");
  CHECK_RC(nub_plat_copy_stream_at(c->dir, "src", c->dir, "s", 0644, 8), -ENOSPC,
           "copy_stream_at under NUB_PLAT_FAULT");
  CHECK_RC(nub_plat_copy_range_at(c->dir, "src", c->dir, "cr", 0644, 8), 0,
           "copy_range_at (its fault named no errno)");
  assert_false(exists(c->dir, "h") || exists(c->dir, "r") || exists(c->dir, "s"));

  /* An empty variable changes nothing; reset by hand. */
  assert_int_equal(setenv("NUB_PLAT_FAULT", "", 1), 0);
  nub_plat_init();
  assert_int_equal(unsetenv("NUB_PLAT_FAULT"), 0);
  CHECK_RC(nub_plat_hardlink_at(c->dir, "src", c->dir, "h"), -EXDEV,
           "init does not clear faults");
  for (int p = 0; p < NUB_PRIM__COUNT; p++)
    nub_plat_inject_fault((enum nub_prim)p, 0);
  CHECK_RC(nub_plat_hardlink_at(c->dir, "src", c->dir, "h"), 0,
           "hardlink_at after the reset");
}

static void test_process(void **state)
{
  struct ctx *c = *state;
  char *exe = nub_plat_self_exe();
  const char *base;
  struct nub_plat_stat s;

  assert_non_null(exe);
  assert_true(exe[0] == '/');
  base = strrchr(exe, '/') + 1;
  assert_true(!strncmp(base, "test_plat", 9));
  CHECK_RC(nub_plat_stat_follow_at(NUB_PLAT_CWD, exe, &s), 0, "stat self_exe");
  assert_int_equal(s.type, NUB_FT_FILE);
  nub_free(exe);
  assert_int_equal(nub_plat_pid(), (int)getpid());
  assert_false(nub_plat_isatty(-1));

  {
    const char *const argv[] = {"/bin/sh", "-c", "echo hi > ran; exit 3", NULL};
    CHECK_RC(nub_plat_spawn_wait(argv, c->path, NULL), 3, "spawn_wait exit 3");
    assert_content(c->dir, "ran", "hi\n");
  }
  {
    const char *const argv[] = {"/bin/sh", "-c", "test \"$NUB_T\" = yes", NULL};
    const char *const envp[] = {"NUB_T=yes", NULL};
    CHECK_RC(nub_plat_spawn_wait(argv, NULL, envp), 0, "spawn_wait envp");
  }
  {
    const char *const argv[] = {"/bin/sh", "-c", "kill -TERM $$", NULL};
    CHECK_RC(nub_plat_spawn_wait(argv, NULL, NULL), 128 + SIGTERM,
             "spawn_wait killed");
  }
  {
    const char *const argv[] = {"/nonexistent/prog", NULL};
    CHECK_RC(nub_plat_spawn_wait(argv, NULL, NULL), 127, "spawn_wait missing");
  }
}

/* The spread hint is only a hint: it succeeds, or says the file system has
 * no such thing; directories made below keep working either way. */
static void test_spread_hint(void **state)
{
  struct ctx *c = *state;
  int rc = nub_plat_spread_hint(c->dir);
  struct nub_plat_stat st;

  assert_true(rc == 0 || rc == -ENOTSUP || rc == -EOPNOTSUPP || rc == -ENOTTY ||
              rc == -EINVAL);
  assert_int_equal(nub_plat_mkdir_at(c->dir, "child", 0755), 0);
  assert_int_equal(nub_plat_stat_at(c->dir, "child", &st), 0);
  assert_int_equal(st.type, NUB_FT_DIR);
  /* twice is fine */
  rc = nub_plat_spread_hint(c->dir);
  assert_true(rc <= 0);
}

/* Shared libraries: a missing one is -ENOENT with the loader's message; the
 * C library loads and has its symbols. */
static void test_load_library(void **state)
{
  void *h = NULL;
  char msg[256];

  (void)state;
  assert_int_equal(nub_plat_load_library("/nonexistent/libnope.so", &h, msg, sizeof(msg)),
                   -ENOENT);
  assert_true(msg[0] != '\0');
#ifdef NUB_TEST_LIBCRYPTO
  {
    /* A binary built where libcrypto lives in one directory, run where it
     * lives in another: the configured path is missing, the soname is not. */
    const char *so = strrchr(NUB_TEST_LIBCRYPTO, '/');
    char moved[512];
    snprintf(moved, sizeof(moved), "/nonexistent-libdir%s", so ? so : "/" NUB_TEST_LIBCRYPTO);
    h = NULL;
    assert_int_equal(nub_plat_load_library(moved, &h, msg, sizeof(msg)), 0);
    assert_non_null(h);
    assert_non_null(nub_plat_symbol(h, "EVP_MD_CTX_new"));
  }
#endif
}

int main(void)
{
  const char *dir = getenv("NUB_TEST_DIR");
  const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    T(test_ops_bytes_mode_inode),
    T(test_ops_requested_mode),
    T(test_ops_existing_destination),
    T(test_ops_missing_source),
    T(test_ops_symlink_source),
    T(test_reflink_clone),
    T(test_clonedir),
    T(test_copy_range_large),
    T(test_classifier),
    T(test_rename_noreplace),
    T(test_newfile),
    T(test_mkdir_p),
    T(test_rm_rf),
    T(test_stat_symlink_readlink),
    T(test_dirstamp),
    T(test_read_file_not_regular),
    T(test_files_roundtrip),
    T(test_list_dir),
    T(test_lock),
    T(test_rusage),
    T(test_now_ns),
    T(test_caps_fs_info),
    T(test_probe),
    T(test_fault_injection),
    T(test_fault_env),
    T(test_process),
    T(test_spread_hint),
    T(test_load_library),
#undef T
  };
  int failed;

  /* Modes under test are compared exactly; pin the mask that open(2) and
   * mkdir(2) apply rather than inherit the caller's. */
  umask(022);
  /* A fault armed from outside would fail every test for the wrong reason. */
  unsetenv("NUB_PLAT_FAULT");
  nub_plat_caps(&g_caps);
  if (dir && *dir) {
    g_base = nub_strdup(dir);
  } else {
    g_base = nub_test_mkdtemp("plat");
    g_base_owned = true;
  }
  print_message("plat: backend %s (reflink %d, clonedir %d, copy_range %d), "
                "work dir %s%s\n",
                g_caps.os, g_caps.has_reflink, g_caps.has_clonedir,
                g_caps.has_copy_range, g_base,
                expect_reflink() ? ", reflink expected" : "");
  failed = cmocka_run_group_tests_name("plat", tests, NULL, NULL);
  if (g_base_owned)
    nub_plat_rm_rf(g_base);
  nub_free(g_base);
  return failed;
}
