/* patchfile.h - a patch file (git's unified diff, as `pnpm patch-commit`
 * and `bun patch --commit` write it, or a plain one with "--- /dev/null"
 * for a new file, as `npm patch commit` writes it) written, read and
 * applied by the rules pnpm applies it with (its patch-package): a hunk is
 * looked for at its line and up to 20 lines either side, lines compare with their
 * trailing white space ignored, a file's "\ No newline at end of file" is
 * kept. git's own apply (libgit2's too) is stricter about white space, so
 * a patch pnpm applies would fail there: the rules are written here. */
#ifndef NUB_PATCHFILE_H
#define NUB_PATCHFILE_H

#include <stdbool.h>
#include <stddef.h>

struct nub_buf;
struct nub_err;

enum nub_patch_kind {
  NUB_PATCH_EDIT,   /* hunks on an existing file */
  NUB_PATCH_CREATE, /* a new file (its content is the first hunk's lines) */
  NUB_PATCH_DELETE,
  NUB_PATCH_RENAME, /* path -> to */
  NUB_PATCH_MODE,   /* its mode becomes `mode` */
};

struct nub_patch_line {
  const char *p; /* into the patch's text, without the leading ' ', '-', '+' */
  size_t len;
};

struct nub_patch_part {
  char type; /* ' ' context, '-' deletion, '+' insertion */
  bool no_eol; /* followed by "\ No newline at end of file" */
  struct nub_patch_line *lines;
  size_t n;
};

struct nub_patch_hunk {
  size_t old_start, old_len, new_start, new_len; /* starts are at least 1 */
  struct nub_patch_part *parts;
  size_t nparts;
};

struct nub_patch_op {
  enum nub_patch_kind kind;
  char *path; /* checked: relative, no "..", normalised */
  char *to;   /* RENAME's */
  unsigned mode; /* CREATE's, DELETE's, MODE's: 0644 or 0755 */
  struct nub_patch_hunk *hunks; /* EDIT's; CREATE's first is its content */
  size_t nhunks;
  char *only_for; /* yarn berry's "semver exclusivity <range>" header line: the
                   * versions of the package it applies to (NULL: all) */
};

/* One patch file, in the order its operations apply. Owns its text. */
struct nub_patch {
  char *text;
  struct nub_patch_op *ops;
  size_t nops;
};

/* Read a patch file. -NUB_EPATCH naming the line at fault when it is not
 * one (or a path in it leaves the package). */
int nub_patch_parse(const char *text, size_t len, struct nub_patch *out, struct nub_err *err);
void nub_patch_release(struct nub_patch *p);

/* Whose rules find a hunk: pnpm's (and bun's, npm's): at its old line, then
 * 1, -1... up to 20 lines either side; yarn berry's: from its new line
 * moved by the hunks before it, outwards as far as the file goes, never
 * before the end of the hunk before it. */
enum nub_patch_rules { NUB_PATCH_PNPM, NUB_PATCH_BERRY };

/* op's hunks (an EDIT) applied to a file's bytes, into out (reset first).
 * -NUB_EPATCH naming the hunk (1-based, and its line) that matches
 * nowhere within reach. */
int nub_patch_apply(const struct nub_patch_op *op, const char *in, size_t len,
                    enum nub_patch_rules rules, struct nub_buf *out, struct nub_err *err);
/* A CREATE's file content, into out (reset first). */
void nub_patch_created(const struct nub_patch_op *op, struct nub_buf *out);

/* One file's part of a patch as git writes it ("diff --git a/<path>
 * b/<path>", its index line, hunks with three lines of context), appended
 * to out: old NULL for a new file, new NULL for a deleted one; modes 0644
 * or 0755. Nothing when the bytes and mode are the same. -EINVAL (nothing
 * appended) when either side is not text (has a NUL byte). */
int nub_patch_diff(struct nub_buf *out, const char *path, const char *old, size_t oldlen,
                   unsigned oldmode, const char *new, size_t newlen, unsigned newmode);

#endif
