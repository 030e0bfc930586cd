/* test_semver.c - core/semver.h against node-semver's own expectations.
 *
 * The table rows under "node-semver test/fixtures" are ported from the test
 * fixtures of the npm `semver` package (ISC license, Copyright (c) Isaac Z.
 * Schlueter and Contributors): range-include, range-exclude, comparisons,
 * equality, invalid-versions, valid-versions, range-parse and the
 * max-satisfying cases. Rows under "nub" are ours; every row was checked
 * against semver 7.8 when it was written. Fixture rows whose input is not a
 * string (a RegExp, `false`, an object) have no C counterpart and are left
 * out.
 *
 * Versions go through nub_version_parse(_loose), which follows
 * semver.clean(): "=1.2.3" is a version here where `new SemVer("=1.2.3")`
 * throws. No fixture row depends on that difference. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nub_test.h"

#include "nub_alloc.h"
#include "semver.h"

#define LOOSE 1u /* node-semver's {loose: true} */
#define INCPR 2u /* node-semver's {includePrerelease: true} */

/* range-include / range-exclude: does version satisfy range? */
struct range_case {
  const char *range, *version;
  unsigned flags;
};

/* comparisons: a > b; equality: a == b */
struct cmp_case {
  const char *a, *b;
  unsigned flags;
};

struct str_case {
  const char *s;
  unsigned flags;
};

struct valid_case {
  const char *s;
  unsigned flags;
  uint64_t major, minor, patch;
  const char *pre;   /* identifiers joined with '.', or NULL */
  const char *build; /* or NULL */
  const char *raw;
};

/* validRange(range, flags): the normalized text, NULL for not a range */
struct parse_case {
  const char *range, *want;
  unsigned flags;
};

/* maxSatisfying: versions space-separated, want an index or -1 */
struct max_case {
  const char *range, *versions;
  unsigned flags;
  long want;
};

static const struct range_case range_include[] = {
  /* node-semver test/fixtures */
  {"1.0.0 - 2.0.0", "1.2.3", LOOSE},
  {"^1.2.3+build", "1.2.3", LOOSE},
  {"^1.2.3+build", "1.3.0", LOOSE},
  {"1.2.3-pre+asdf - 2.4.3-pre+asdf", "1.2.3", LOOSE},
  {"1.2.3pre+asdf - 2.4.3-pre+asdf", "1.2.3", LOOSE},
  {"1.2.3-pre+asdf - 2.4.3pre+asdf", "1.2.3", LOOSE},
  {"1.2.3pre+asdf - 2.4.3pre+asdf", "1.2.3", LOOSE},
  {"1.2.3-pre+asdf - 2.4.3-pre+asdf", "1.2.3-pre.2", LOOSE},
  {"1.2.3-pre+asdf - 2.4.3-pre+asdf", "2.4.3-alpha", LOOSE},
  {"1.2.3+asdf - 2.4.3+asdf", "1.2.3", LOOSE},
  {"1.0.0", "1.0.0", LOOSE},
  {">=*", "0.2.4", LOOSE},
  {"", "1.0.0", LOOSE},
  {"*", "1.2.3", 0},
  {"*", "v1.2.3", LOOSE},
  {">=1.0.0", "1.0.0", 0},
  {">=1.0.0", "1.0.1", 0},
  {">=1.0.0", "1.1.0", 0},
  {">1.0.0", "1.0.1", 0},
  {">1.0.0", "1.1.0", LOOSE},
  {"<=2.0.0", "2.0.0", LOOSE},
  {"<=2.0.0", "1.9999.9999", LOOSE},
  {"<=2.0.0", "0.2.9", LOOSE},
  {"<2.0.0", "1.9999.9999", LOOSE},
  {"<2.0.0", "0.2.9", LOOSE},
  {">= 1.0.0", "1.0.0", LOOSE},
  {">=  1.0.0", "1.0.1", LOOSE},
  {">=   1.0.0", "1.1.0", LOOSE},
  {"> 1.0.0", "1.0.1", LOOSE},
  {">  1.0.0", "1.1.0", LOOSE},
  {"<=   2.0.0", "2.0.0", LOOSE},
  {"<= 2.0.0", "1.9999.9999", LOOSE},
  {"<=  2.0.0", "0.2.9", LOOSE},
  {"<    2.0.0", "1.9999.9999", LOOSE},
  {"<\t2.0.0", "0.2.9", LOOSE},
  {">=0.1.97", "v0.1.97", LOOSE},
  {">=0.1.97", "0.1.97", LOOSE},
  {"0.1.20 || 1.2.4", "1.2.4", LOOSE},
  {">=0.2.3 || <0.0.1", "0.0.0", LOOSE},
  {">=0.2.3 || <0.0.1", "0.2.3", LOOSE},
  {">=0.2.3 || <0.0.1", "0.2.4", LOOSE},
  {"||", "1.3.4", LOOSE},
  {"2.x.x", "2.1.3", LOOSE},
  {"1.2.x", "1.2.3", LOOSE},
  {"1.2.x || 2.x", "2.1.3", LOOSE},
  {"1.2.x || 2.x", "1.2.3", LOOSE},
  {"x", "1.2.3", LOOSE},
  {"2.*.*", "2.1.3", LOOSE},
  {"1.2.*", "1.2.3", LOOSE},
  {"1.2.* || 2.*", "2.1.3", LOOSE},
  {"1.2.* || 2.*", "1.2.3", LOOSE},
  {"*", "1.2.3", LOOSE},
  {"2", "2.1.2", LOOSE},
  {"2.3", "2.3.1", LOOSE},
  {"~0.0.1", "0.0.1", LOOSE},
  {"~0.0.1", "0.0.2", LOOSE},
  {"~x", "0.0.9", LOOSE},
  {"~2", "2.0.9", LOOSE},
  {"~2.4", "2.4.0", LOOSE},
  {"~2.4", "2.4.5", LOOSE},
  {"~>3.2.1", "3.2.2", LOOSE},
  {"~1", "1.2.3", LOOSE},
  {"~>1", "1.2.3", LOOSE},
  {"~> 1", "1.2.3", LOOSE},
  {"~1.0", "1.0.2", LOOSE},
  {"~ 1.0", "1.0.2", LOOSE},
  {"~ 1.0.3", "1.0.12", LOOSE},
  {"~ 1.0.3alpha", "1.0.12", LOOSE},
  {">=1", "1.0.0", LOOSE},
  {">= 1", "1.0.0", LOOSE},
  {"<1.2", "1.1.1", LOOSE},
  {"< 1.2", "1.1.1", LOOSE},
  {"~v0.5.4-pre", "0.5.5", LOOSE},
  {"~v0.5.4-pre", "0.5.4", LOOSE},
  {"=0.7.x", "0.7.2", LOOSE},
  {"<=0.7.x", "0.7.2", LOOSE},
  {">=0.7.x", "0.7.2", LOOSE},
  {"<=0.7.x", "0.6.2", LOOSE},
  {"~1.2.1 >=1.2.3", "1.2.3", LOOSE},
  {"~1.2.1 =1.2.3", "1.2.3", LOOSE},
  {"~1.2.1 1.2.3", "1.2.3", LOOSE},
  {"~1.2.1 >=1.2.3 1.2.3", "1.2.3", LOOSE},
  {"~1.2.1 1.2.3 >=1.2.3", "1.2.3", LOOSE},
  {">=1.2.1 1.2.3", "1.2.3", LOOSE},
  {"1.2.3 >=1.2.1", "1.2.3", LOOSE},
  {">=1.2.3 >=1.2.1", "1.2.3", LOOSE},
  {">=1.2.1 >=1.2.3", "1.2.3", LOOSE},
  {">=1.2", "1.2.8", LOOSE},
  {"^1.2.3", "1.8.1", LOOSE},
  {"^0.1.2", "0.1.2", LOOSE},
  {"^0.1", "0.1.2", LOOSE},
  {"^0.0.1", "0.0.1", LOOSE},
  {"^1.2", "1.4.2", LOOSE},
  {"^1.2 ^1", "1.4.2", LOOSE},
  {"^1.2.3-alpha", "1.2.3-pre", LOOSE},
  {"^1.2.0-alpha", "1.2.0-pre", LOOSE},
  {"^0.0.1-alpha", "0.0.1-beta", LOOSE},
  {"^0.0.1-alpha", "0.0.1", LOOSE},
  {"^0.1.1-alpha", "0.1.1-beta", LOOSE},
  {"^x", "1.2.3", LOOSE},
  {"x - 1.0.0", "0.9.7", LOOSE},
  {"x - 1.x", "0.9.7", LOOSE},
  {"1.0.0 - x", "1.9.7", LOOSE},
  {"1.x - x", "1.9.7", LOOSE},
  {"<=7.x", "7.9.9", LOOSE},
  {"2.x", "2.0.0-pre.0", INCPR},
  {"2.x", "2.1.0-pre.0", INCPR},
  {"1.1.x", "1.1.0-a", INCPR},
  {"1.1.x", "1.1.1-a", INCPR},
  {"~1.1", "1.1.0-a", INCPR},
  {"~1.1.x", "1.1.0-a", INCPR},
  {"~1.1", "1.1.1-a", INCPR},
  {"~2", "2.0.0-pre.0", INCPR},
  {"~2.x", "2.0.0-pre.0", INCPR},
  {"*", "1.0.0-rc1", INCPR},
  {"^1.0.0-0", "1.0.1-rc1", INCPR},
  {"^1.0.0-rc2", "1.0.1-rc1", INCPR},
  {"^1.0.0", "1.0.1-rc1", INCPR},
  {"^1.0.0", "1.1.0-rc1", INCPR},
  {"1 - 2", "2.0.0-pre", INCPR},
  {"1 - 2", "1.0.0-pre", INCPR},
  {"1.0 - 2", "1.0.0-pre", INCPR},
  {"=0.7.x", "0.7.0-asdf", INCPR},
  {">=0.7.x", "0.7.0-asdf", INCPR},
  {"<=0.7.x", "0.7.0-asdf", INCPR},
  {">=1.0.0 <=1.1.0", "1.1.0-pre", INCPR},
  /* nub */
  {"^0.0.x", "0.0.5", 0},
  {"^0.0.x", "0.0.0", 0},
  {"^0.x", "0.9.1", 0},
  {"^1.x", "1.99.0", 0},
  {"^*", "3.4.5", 0},
  {"^*", "0.0.0", 0},
  {"^1.2.x", "1.9.0", 0},
  {"^0.2.3", "0.2.9", 0},
  {"^0.0.3", "0.0.3", 0},
  {"^1.2.3-beta.2", "1.2.3-beta.4", 0},
  {"^1.2.3-beta.2", "1.2.4", 0},
  {"^1.2.3-beta.2", "1.2.3", 0},
  {"~1.2.3-beta.2", "1.2.3-beta.10", 0},
  {"~1.2.3-beta.2", "1.2.9", 0},
  {"~1.2", "1.2.0", 0},
  {"~1", "1.9.9", 0},
  {"~0.2.3", "0.2.4", 0},
  {"~>1.2.3", "1.2.5", 0},
  {"~> 1.2.3", "1.2.5", 0},
  {">=0.34.0-next.4 <1.0.0", "0.34.0-next.5", 0},
  {">=0.34.0-next.4 <1.0.0", "0.34.0", 0},
  {">=0.34.0-next.4 <1.0.0", "0.99.99", 0},
  {"1.0.0+build", "1.0.0", 0},
  {"1.0.0", "1.0.0+build", 0},
  {"1.0.0+a", "1.0.0+b", 0},
  {"1.2.3 || 2.x", "1.2.3", 0},
  {"1.2.3 || 2.x", "2.5.0", 0},
  {"1.0.0-rc.1 || >=2.0.0-rc.1", "2.0.0-rc.2", 0},
  {"1.0.0-rc.1 || 2.0.0-rc.1", "2.0.0-rc.1", 0},
  {"<1.0.0 || >=2.0.0-beta", "2.0.0-beta.1", 0},
  {"1.2.3 - 2.3.4", "1.2.3", 0},
  {"1.2.3 - 2.3.4", "2.3.4", 0},
  {"1.2 - 2.3", "2.3.99", 0},
  {"1.2.3 - 2", "2.99.0", 0},
  {"1.2.3-beta.1 - 2", "1.2.3-beta.2", 0},
  {"<=1.2", "1.2.99", 0},
  {"<=1.2", "0.0.1", 0},
  {">1", "2.0.0", 0},
  {">1.2", "1.3.0", 0},
  {"<1.2", "1.1.99", 0},
  {">=1.2", "1.2.0", 0},
  {"<=1", "1.99.0", 0},
  {"=1.2", "1.2.7", 0},
  {">= 1.2.3", "1.2.3", 0},
  {">=   1.2.3   <  2", "1.5.0", 0},
  {"\t^1.2.3\n", "1.3.0", 0},
  {" 1.2.3 ", "1.2.3", 0},
  {"v1.2.3", "1.2.3", 0},
  {"=1.2.3", "1.2.3", 0},
  {"=v1.2.3", "1.2.3", 0},
  {"1.2.3", "v1.2.3", 0},
  {"1.2.3", "=1.2.3", 0},
  {"1.2.3", " =v1.2.3 ", 0},
  {"X", "1.2.3", 0},
  {"x.x.x", "0.0.1", 0},
  {"", "0.0.0", 0},
  {"||", "9.9.9", 0},
  {"1.2.3 ||", "5.0.0", 0},
  {"*", "1.0.0-beta", INCPR},
  {">=1.0.0", "2.0.0-rc.1", INCPR},
  {"~1.2", "1.2.0-rc.1", INCPR},
  {"^1.2", "1.2.0-0", INCPR},
  {"1.2.3 - 2.3.4", "2.3.4-rc.1", INCPR},
  {"^1.2.3", "1.9.0-beta", INCPR},
  {">=9007199254740991.0.0", "9007199254740991.0.0", 0},
  {"1.2.3-9007199254740992", "1.2.3-9007199254740992", 0},
  {"1.2.3beta", "1.2.3-beta", LOOSE},
  {"~1.2.3beta", "1.2.4", LOOSE},
  {"01.02.03", "1.2.3", LOOSE},
  {"latest 1.2.3", "1.2.3", LOOSE},
  {">=1.2.3 foo", "1.5.0", LOOSE},
  {"1.2.34.5", "1.2.3-4.5", LOOSE},
};

static const struct range_case range_exclude[] = {
  /* node-semver test/fixtures */
  {"1.0.0 - 2.0.0", "2.2.3", LOOSE},
  {"1.2.3+asdf - 2.4.3+asdf", "1.2.3-pre.2", LOOSE},
  {"1.2.3+asdf - 2.4.3+asdf", "2.4.3-alpha", LOOSE},
  {"^1.2.3+build", "2.0.0", LOOSE},
  {"^1.2.3+build", "1.2.0", LOOSE},
  {"^1.2.3", "1.2.3-pre", LOOSE},
  {"^1.2", "1.2.0-pre", LOOSE},
  {">1.2", "1.3.0-beta", LOOSE},
  {"<=1.2.3", "1.2.3-beta", LOOSE},
  {"^1.2.3", "1.2.3-beta", LOOSE},
  {"=0.7.x", "0.7.0-asdf", LOOSE},
  {">=0.7.x", "0.7.0-asdf", LOOSE},
  {"<=0.7.x", "0.7.0-asdf", LOOSE},
  {"1", "1.0.0beta", LOOSE},
  {"<1", "1.0.0beta", LOOSE},
  {"< 1", "1.0.0beta", LOOSE},
  {"1.0.0", "1.0.1", LOOSE},
  {">=1.0.0", "0.0.0", LOOSE},
  {">=1.0.0", "0.0.1", LOOSE},
  {">=1.0.0", "0.1.0", LOOSE},
  {">1.0.0", "0.0.1", LOOSE},
  {">1.0.0", "0.1.0", LOOSE},
  {"<=2.0.0", "3.0.0", LOOSE},
  {"<=2.0.0", "2.9999.9999", LOOSE},
  {"<=2.0.0", "2.2.9", LOOSE},
  {"<2.0.0", "2.9999.9999", LOOSE},
  {"<2.0.0", "2.2.9", LOOSE},
  {">=0.1.97", "v0.1.93", LOOSE},
  {">=0.1.97", "0.1.93", LOOSE},
  {"0.1.20 || 1.2.4", "1.2.3", LOOSE},
  {">=0.2.3 || <0.0.1", "0.0.3", LOOSE},
  {">=0.2.3 || <0.0.1", "0.2.2", LOOSE},
  {"2.x.x", "1.1.3", 0},
  {"2.x.x", "3.1.3", LOOSE},
  {"1.2.x", "1.3.3", LOOSE},
  {"1.2.x || 2.x", "3.1.3", LOOSE},
  {"1.2.x || 2.x", "1.1.3", LOOSE},
  {"2.*.*", "1.1.3", LOOSE},
  {"2.*.*", "3.1.3", LOOSE},
  {"1.2.*", "1.3.3", LOOSE},
  {"1.2.* || 2.*", "3.1.3", LOOSE},
  {"1.2.* || 2.*", "1.1.3", LOOSE},
  {"2", "1.1.2", LOOSE},
  {"2.3", "2.4.1", LOOSE},
  {"~0.0.1", "0.1.0-alpha", LOOSE},
  {"~0.0.1", "0.1.0", LOOSE},
  {"~2.4", "2.5.0", LOOSE},
  {"~2.4", "2.3.9", LOOSE},
  {"~>3.2.1", "3.3.2", LOOSE},
  {"~>3.2.1", "3.2.0", LOOSE},
  {"~1", "0.2.3", LOOSE},
  {"~>1", "2.2.3", LOOSE},
  {"~1.0", "1.1.0", LOOSE},
  {"<1", "1.0.0", LOOSE},
  {">=1.2", "1.1.1", LOOSE},
  {"1", "2.0.0beta", LOOSE},
  {"~v0.5.4-beta", "0.5.4-alpha", LOOSE},
  {"=0.7.x", "0.8.2", LOOSE},
  {">=0.7.x", "0.6.2", LOOSE},
  {"<0.7.x", "0.7.2", LOOSE},
  {"<1.2.3", "1.2.3-beta", LOOSE},
  {"=1.2.3", "1.2.3-beta", LOOSE},
  {">1.2", "1.2.8", LOOSE},
  {"^0.0.1", "0.0.2-alpha", LOOSE},
  {"^0.0.1", "0.0.2", LOOSE},
  {"^1.2.3", "2.0.0-alpha", LOOSE},
  {"^1.2.3", "1.2.2", LOOSE},
  {"^1.2", "1.1.9", LOOSE},
  {"*", "v1.2.3-foo", LOOSE},
  {"*", "not a version", LOOSE},
  {">=2", "glorp", LOOSE},
  {"2.x", "3.0.0-pre.0", INCPR},
  {"^0.0.3", "0.0.3-alpha", INCPR},
  {"^0.2.3", "0.2.3-alpha", INCPR},
  {"^1.0.0", "1.0.0-rc1", INCPR},
  {"^1.0.0", "2.0.0-rc1", INCPR},
  {"^1.2.3-rc2", "2.0.0", INCPR},
  {"^1.0.0", "2.0.0-rc1", LOOSE},
  {"1 - 2", "3.0.0-pre", INCPR},
  {"1 - 2", "2.0.0-pre", LOOSE},
  {"1 - 2", "1.0.0-pre", LOOSE},
  {"1.0 - 2", "1.0.0-pre", LOOSE},
  {"1.1.x", "1.0.0-a", LOOSE},
  {"1.1.x", "1.1.0-a", LOOSE},
  {"1.1.x", "1.2.0-a", LOOSE},
  {"1.1.x", "1.2.0-a", INCPR},
  {"1.1.x", "1.0.0-a", INCPR},
  {"1.x", "1.0.0-a", LOOSE},
  {"1.x", "1.1.0-a", LOOSE},
  {"1.x", "1.2.0-a", LOOSE},
  {"1.x", "0.0.0-a", INCPR},
  {"1.x", "2.0.0-a", INCPR},
  {">=1.0.0 <1.1.0", "1.1.0", LOOSE},
  {">=1.0.0 <1.1.0", "1.1.0", INCPR},
  {">=1.0.0 <1.1.0", "1.1.0-pre", LOOSE},
  {">=1.0.0 <1.1.0-pre", "1.1.0-pre", LOOSE},
  {"== 1.0.0 || foo", "2.0.0", LOOSE},
  /* nub */
  {"^0.0.x", "0.1.0", 0},
  {"^0.0.x", "0.0.5-beta", 0},
  {"^0.x", "1.0.0", 0},
  {"^*", "1.0.0-beta", 0},
  {"^0.2.3", "0.3.0", 0},
  {"^0.2.3", "0.2.2", 0},
  {"^0.0.3", "0.0.4", 0},
  {"^1.2.x", "2.0.0", 0},
  {"^1.2.3-beta.2", "1.2.4-beta.1", 0},
  {"^1.2.3-beta.2", "1.2.3-beta.1", 0},
  {"^1.2.3-beta.2", "2.0.0-beta.2", 0},
  {"~1.2.3-beta.2", "1.2.4-beta.1", 0},
  {"~1.2.3-beta.2", "1.3.0", 0},
  {"~1.2", "1.3.0", 0},
  {"~0.2.3", "0.3.0", 0},
  {">=0.34.0-next.4 <1.0.0", "0.34.0-next.3", 0},
  {">=0.34.0-next.4 <1.0.0", "0.35.0-next.5", 0},
  {">=0.34.0-next.4 <1.0.0", "1.0.0", 0},
  {">=0.34.0-next.4 <1.0.0", "1.0.0-rc.1", 0},
  {"1.0.0+build", "1.0.1", 0},
  {"1.2.3 || 2.x", "1.2.4", 0},
  {"1.2.3 || 2.x", "2.0.0-rc.1", 0},
  {"1.0.0-rc.1 || 2.0.0-rc.1", "1.5.0-rc.1", 0},
  {"* || 1.0.0-rc.1", "1.0.0-rc.1", 0},
  {"1.2.3 - 2.3.4", "2.3.5", 0},
  {"1.2.3 - 2.3.4", "1.2.2", 0},
  {"1.2.3 - 2.3.4", "2.3.4-rc.1", 0},
  {"1.2 - 2.3", "2.4.0", 0},
  {"1.2.3 - 2", "3.0.0", 0},
  {"<=1.2", "1.3.0", 0},
  {"<=1.2", "1.3.0-0", 0},
  {">1", "1.9.9", 0},
  {">1", "2.0.0-0", 0},
  {">1.2", "1.2.99", 0},
  {"<1.2", "1.2.0", 0},
  {"<1.2", "1.2.0-0", 0},
  {">=1.2.3 <1.2.3", "1.2.3", 0},
  {">1.2.3 <=1.2.3", "1.2.3", 0},
  {">1.2.3 <1.2.4", "1.2.4-0", 0},
  {">=1.2.3 <1.2.3", "1.2.3", INCPR},
  {"<0.0.0-0", "0.0.0-0", INCPR},
  {">*", "1.0.0", 0},
  {"<x", "0.0.0", 0},
  {"*", "1.0.0-beta", 0},
  {"", "1.0.0-beta", 0},
  {"x", "0.0.0-0", 0},
  {">=1.0.0", "2.0.0-rc.1", 0},
  {"1.2.3", "1.2.3-0", 0},
  {"1.2.3", "1.2.4", 0},
  {"^1.2.3", "2.0.0-0", INCPR},
  {"~1.2", "1.3.0-0", INCPR},
  {">=1.2.3 foo", "1.5.0", 0},
  {"latest", "1.0.0", 0},
  {"next", "1.0.0", LOOSE},
  {"1.2.3", "1.2.3beta", 0},
  {"1.0.0-rc.1 || 2.0.0-rc.1", "2.0.0-rc.2", 0},
  {"1.2.3 - 1.2.9007199254740991", "1.2.4", INCPR},
};

static const struct cmp_case comparisons[] = {
  /* node-semver test/fixtures */
  {"0.0.0", "0.0.0-foo", LOOSE},
  {"0.0.1", "0.0.0", LOOSE},
  {"1.0.0", "0.9.9", LOOSE},
  {"0.10.0", "0.9.0", LOOSE},
  {"0.99.0", "0.10.0", 0},
  {"2.0.0", "1.2.3", 0},
  {"v0.0.0", "0.0.0-foo", LOOSE},
  {"v0.0.1", "0.0.0", LOOSE},
  {"v1.0.0", "0.9.9", LOOSE},
  {"v0.10.0", "0.9.0", LOOSE},
  {"v0.99.0", "0.10.0", LOOSE},
  {"v2.0.0", "1.2.3", LOOSE},
  {"0.0.0", "v0.0.0-foo", LOOSE},
  {"0.0.1", "v0.0.0", LOOSE},
  {"1.0.0", "v0.9.9", LOOSE},
  {"0.10.0", "v0.9.0", LOOSE},
  {"0.99.0", "v0.10.0", LOOSE},
  {"2.0.0", "v1.2.3", LOOSE},
  {"1.2.3", "1.2.3-asdf", LOOSE},
  {"1.2.3", "1.2.3-4", LOOSE},
  {"1.2.3", "1.2.3-4-foo", LOOSE},
  {"1.2.3-5-foo", "1.2.3-5", LOOSE},
  {"1.2.3-5", "1.2.3-4", LOOSE},
  {"1.2.3-5-foo", "1.2.3-5-Foo", LOOSE},
  {"3.0.0", "2.7.2+asdf", LOOSE},
  {"1.2.3-a.10", "1.2.3-a.5", LOOSE},
  {"1.2.3-a.b", "1.2.3-a.5", LOOSE},
  {"1.2.3-a.b", "1.2.3-a", LOOSE},
  {"1.2.3-a.b.c.10.d.5", "1.2.3-a.b.c.5.d.100", LOOSE},
  {"1.2.3-r2", "1.2.3-r100", LOOSE},
  {"1.2.3-r100", "1.2.3-R2", LOOSE},
  /* nub */
  {"1.0.0", "1.0.0-rc.1", 0},
  {"1.0.0-rc.1", "1.0.0-beta.11", 0},
  {"1.0.0-beta.11", "1.0.0-beta.2", 0},
  {"1.0.0-beta.2", "1.0.0-beta", 0},
  {"1.0.0-beta", "1.0.0-alpha.beta", 0},
  {"1.0.0-alpha.beta", "1.0.0-alpha.1", 0},
  {"1.0.0-alpha.1", "1.0.0-alpha", 0},
  {"1.0.0-a", "1.0.0-9", 0},
  {"1.0.0-0a", "1.0.0-999", 0},
  {"1.0.0-10", "1.0.0-9", 0},
  {"1.0.0-a.b.c", "1.0.0-a.b", 0},
  {"2.0.0", "1.99999.99999", 0},
  {"1.0.0-b", "1.0.0-A", 0},
  {"1.0.0--", "1.0.0-1", 0},
  {"9007199254740991.0.0", "9007199254740990.9.9", 0},
  {"1.0.0-1.0.0", "1.0.0-1.0", 0},
  {"1.2.3-beta.01", "1.2.3-beta.0", LOOSE},
  {"1.2.3beta", "1.2.3-alpha", LOOSE},
};

static const struct cmp_case equality[] = {
  /* node-semver test/fixtures */
  {"1.2.3", "v1.2.3", LOOSE},
  {"1.2.3", "=1.2.3", LOOSE},
  {"1.2.3", "v 1.2.3", LOOSE},
  {"1.2.3", "= 1.2.3", LOOSE},
  {"1.2.3", " v1.2.3", LOOSE},
  {"1.2.3", " =1.2.3", LOOSE},
  {"1.2.3", " v 1.2.3", LOOSE},
  {"1.2.3", " = 1.2.3", LOOSE},
  {"1.2.3-0", "v1.2.3-0", LOOSE},
  {"1.2.3-0", "=1.2.3-0", LOOSE},
  {"1.2.3-0", "v 1.2.3-0", LOOSE},
  {"1.2.3-0", "= 1.2.3-0", LOOSE},
  {"1.2.3-0", " v1.2.3-0", LOOSE},
  {"1.2.3-0", " =1.2.3-0", LOOSE},
  {"1.2.3-0", " v 1.2.3-0", LOOSE},
  {"1.2.3-0", " = 1.2.3-0", LOOSE},
  {"1.2.3-1", "v1.2.3-1", LOOSE},
  {"1.2.3-1", "=1.2.3-1", LOOSE},
  {"1.2.3-1", "v 1.2.3-1", LOOSE},
  {"1.2.3-1", "= 1.2.3-1", LOOSE},
  {"1.2.3-1", " v1.2.3-1", LOOSE},
  {"1.2.3-1", " =1.2.3-1", LOOSE},
  {"1.2.3-1", " v 1.2.3-1", LOOSE},
  {"1.2.3-1", " = 1.2.3-1", LOOSE},
  {"1.2.3-beta", "v1.2.3-beta", LOOSE},
  {"1.2.3-beta", "=1.2.3-beta", LOOSE},
  {"1.2.3-beta", "v 1.2.3-beta", LOOSE},
  {"1.2.3-beta", "= 1.2.3-beta", LOOSE},
  {"1.2.3-beta", " v1.2.3-beta", LOOSE},
  {"1.2.3-beta", " =1.2.3-beta", LOOSE},
  {"1.2.3-beta", " v 1.2.3-beta", LOOSE},
  {"1.2.3-beta", " = 1.2.3-beta", LOOSE},
  {"1.2.3-beta+build", " = 1.2.3-beta+otherbuild", LOOSE},
  {"1.2.3+build", " = 1.2.3+otherbuild", LOOSE},
  {"1.2.3-beta+build", "1.2.3-beta+otherbuild", LOOSE},
  {"1.2.3+build", "1.2.3+otherbuild", LOOSE},
  {"  v1.2.3+build", "1.2.3+otherbuild", LOOSE},
  /* nub */
  {"1.2.3", "v1.2.3", 0},
  {"1.2.3", "=1.2.3", 0},
  {"1.2.3", "  1.2.3  ", 0},
  {"1.2.3+build", "1.2.3", 0},
  {"1.2.3-beta+a.b", "1.2.3-beta+c", 0},
  {"1.2.3", "=v1.2.3", 0},
  {"1.2.3", "vv1.2.3", 0},
  {"1.0.0-01", "1.0.0-1", LOOSE},
  {"01.02.03", "1.2.3", LOOSE},
};

static const struct str_case invalid_versions[] = {
  /* node-semver test/fixtures */
  {"111111111111111111111111111111111111111111111111111111111111"
     "111111111111111111111111111111111111111111111111111111111111"
     "111111111111111111111111111111111111111111111111111111111111"
     "111111111111111111111111111111111111111111111111111111111111"
     "111111111111111.0.0",
   0},
  {"90071992547409910.0.0", 0},
  {"0.90071992547409910.0", 0},
  {"0.0.90071992547409910", 0},
  {"hello, world", 0},
  {"hello, world", LOOSE},
  {"xyz", LOOSE},
  /* nub */
  {"", 0},
  {" ", 0},
  {"1", 0},
  {"1.2", 0},
  {"1.2.3.4", 0},
  {"01.2.3", 0},
  {"1.02.3", 0},
  {"1.2.03", 0},
  {"1.2.3-01", 0},
  {"1.2.3-", 0},
  {"1.2.3+", 0},
  {"1.2.3-beta..1", 0},
  {"1.2.3-beta.", 0},
  {"1.2.3+build.", 0},
  {"1.2.3+build..1", 0},
  {"1.2.3beta", 0},
  {"a.b.c", 0},
  {"1.2.x", 0},
  {"1.2.*", 0},
  {"^1.2.3", 0},
  {"~1.2.3", 0},
  {">=1.2.3", 0},
  {"1.2.3 - 2.0.0", 0},
  {"latest", 0},
  {"v", 0},
  {"=", 0},
  {"-1.2.3", 0},
  {"1.-2.3", 0},
  {"1.2.3-bet@", 0},
  {"1.2.3+b!ld", 0},
  {"v 1.2.3 4", 0},
  {"9007199254740992.0.0", 0},
  {"0.9007199254740992.0", 0},
  {"0.0.9007199254740992", 0},
  {"18446744073709551616.0.0", 0},
  {"1.2.3-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaa",
   0},
  {"1.2.3\t-beta", 0},
  {"= v 1.2.3", 0},
  {"1.2.3-alpha.0001", 0},
  {"1.2.3.4", LOOSE},
  {"1.2", LOOSE},
  {"=", LOOSE},
  {"1.2.3 beta", LOOSE},
  {"9007199254740992.0.0", LOOSE},
  {"011111111111111111111111111111111111111111111111111111111111"
     "111111111111111111111111111111111111111111111111111111111111"
     "111111111111111111111111111111111111111111111111111111111111"
     "111111111111111111111111111111111111111111111111111111111111"
     "11111111111111111.0.0",
   LOOSE},
};

static const struct valid_case valid_versions[] = {
  /* node-semver test/fixtures */
  {"1.0.0", 0, 1ULL, 0ULL, 0ULL, NULL, NULL, "1.0.0"},
  {"2.1.0", 0, 2ULL, 1ULL, 0ULL, NULL, NULL, "2.1.0"},
  {"3.2.1", 0, 3ULL, 2ULL, 1ULL, NULL, NULL, "3.2.1"},
  {"v1.2.3", 0, 1ULL, 2ULL, 3ULL, NULL, NULL, "1.2.3"},
  {"1.2.3-0", 0, 1ULL, 2ULL, 3ULL, "0", NULL, "1.2.3-0"},
  {"1.2.3-123", 0, 1ULL, 2ULL, 3ULL, "123", NULL, "1.2.3-123"},
  {"1.2.3-1.2.3", 0, 1ULL, 2ULL, 3ULL, "1.2.3", NULL, "1.2.3-1.2.3"},
  {"1.2.3-1a", 0, 1ULL, 2ULL, 3ULL, "1a", NULL, "1.2.3-1a"},
  {"1.2.3-a1", 0, 1ULL, 2ULL, 3ULL, "a1", NULL, "1.2.3-a1"},
  {"1.2.3-alpha", 0, 1ULL, 2ULL, 3ULL, "alpha", NULL, "1.2.3-alpha"},
  {"1.2.3-alpha.1", 0, 1ULL, 2ULL, 3ULL, "alpha.1", NULL, "1.2.3-alpha.1"},
  {"1.2.3-alpha-1", 0, 1ULL, 2ULL, 3ULL, "alpha-1", NULL, "1.2.3-alpha-1"},
  {"1.2.3-alpha-.-beta", 0, 1ULL, 2ULL, 3ULL, "alpha-.-beta", NULL, "1.2.3-alpha-.-beta"},
  {"1.2.3+456", 0, 1ULL, 2ULL, 3ULL, NULL, "456", "1.2.3"},
  {"1.2.3+build", 0, 1ULL, 2ULL, 3ULL, NULL, "build", "1.2.3"},
  {"1.2.3+new-build", 0, 1ULL, 2ULL, 3ULL, NULL, "new-build", "1.2.3"},
  {"1.2.3+build.1", 0, 1ULL, 2ULL, 3ULL, NULL, "build.1", "1.2.3"},
  {"1.2.3+build.1a", 0, 1ULL, 2ULL, 3ULL, NULL, "build.1a", "1.2.3"},
  {"1.2.3+build.a1", 0, 1ULL, 2ULL, 3ULL, NULL, "build.a1", "1.2.3"},
  {"1.2.3+build.alpha", 0, 1ULL, 2ULL, 3ULL, NULL, "build.alpha", "1.2.3"},
  {"1.2.3+build.alpha.beta", 0, 1ULL, 2ULL, 3ULL, NULL, "build.alpha.beta", "1.2.3"},
  {"1.2.3-alpha+build", 0, 1ULL, 2ULL, 3ULL, "alpha", "build", "1.2.3-alpha"},
  /* nub */
  {"9007199254740991.9007199254740991.9007199254740991",
   0,
   9007199254740991ULL,
   9007199254740991ULL,
   9007199254740991ULL,
   NULL,
   NULL,
   "9007199254740991.9007199254740991.9007199254740991"},
  {"0.0.0", 0, 0ULL, 0ULL, 0ULL, NULL, NULL, "0.0.0"},
  {"  v1.2.3  ", 0, 1ULL, 2ULL, 3ULL, NULL, NULL, "1.2.3"},
  {"=v1.2.3", 0, 1ULL, 2ULL, 3ULL, NULL, NULL, "1.2.3"},
  {"vv=1.2.3-rc.1+b", 0, 1ULL, 2ULL, 3ULL, "rc.1", "b", "1.2.3-rc.1"},
  {"1.2.3-9007199254740991",
   0,
   1ULL,
   2ULL,
   3ULL,
   "9007199254740991",
   NULL,
   "1.2.3-9007199254740991"},
  {"1.2.3-x-y-z.-", 0, 1ULL, 2ULL, 3ULL, "x-y-z.-", NULL, "1.2.3-x-y-z.-"},
  {"1.2.3+001.002", 0, 1ULL, 2ULL, 3ULL, NULL, "001.002", "1.2.3"},
  {"01.002.0003", LOOSE, 1ULL, 2ULL, 3ULL, NULL, NULL, "1.2.3"},
  {"1.2.3beta", LOOSE, 1ULL, 2ULL, 3ULL, "beta", NULL, "1.2.3-beta"},
  {"1.2.3-01.002", LOOSE, 1ULL, 2ULL, 3ULL, "1.2", NULL, "1.2.3-1.2"},
  {"v 1.2.3", LOOSE, 1ULL, 2ULL, 3ULL, NULL, NULL, "1.2.3"},
  {"=v 1.2.3", LOOSE, 1ULL, 2ULL, 3ULL, NULL, NULL, "1.2.3"},
  {"1.2.3-", LOOSE, 1ULL, 2ULL, 3ULL, "-", NULL, "1.2.3--"},
  {"1.2.34.5", LOOSE, 1ULL, 2ULL, 3ULL, "4.5", NULL, "1.2.3-4.5"},
  {"1.2.3-09007199254740991",
   LOOSE,
   1ULL,
   2ULL,
   3ULL,
   "09007199254740991",
   NULL,
   "1.2.3-09007199254740991"},
};

static const struct parse_case range_parse[] = {
  /* node-semver test/fixtures */
  {"1.0.0 - 2.0.0", ">=1.0.0 <=2.0.0", 0},
  {"1.0.0 - 2.0.0", ">=1.0.0-0 <2.0.1-0", INCPR},
  {"1 - 2", ">=1.0.0 <3.0.0-0", 0},
  {"1 - 2", ">=1.0.0-0 <3.0.0-0", INCPR},
  {"1.0 - 2.0", ">=1.0.0 <2.1.0-0", 0},
  {"1.0 - 2.0", ">=1.0.0-0 <2.1.0-0", INCPR},
  {"1.0.0", "1.0.0", 0},
  {">=*", "*", 0},
  {"", "*", 0},
  {"*", "*", 0},
  {">=1.0.0", ">=1.0.0", 0},
  {">1.0.0", ">1.0.0", 0},
  {"<=2.0.0", "<=2.0.0", 0},
  {"1", ">=1.0.0 <2.0.0-0", 0},
  {"<2.0.0", "<2.0.0", 0},
  {">= 1.0.0", ">=1.0.0", 0},
  {">=  1.0.0", ">=1.0.0", 0},
  {">=   1.0.0", ">=1.0.0", 0},
  {"> 1.0.0", ">1.0.0", 0},
  {">  1.0.0", ">1.0.0", 0},
  {"<=   2.0.0", "<=2.0.0", 0},
  {"<= 2.0.0", "<=2.0.0", 0},
  {"<=  2.0.0", "<=2.0.0", 0},
  {"<    2.0.0", "<2.0.0", 0},
  {"<\t2.0.0", "<2.0.0", 0},
  {">=0.1.97", ">=0.1.97", 0},
  {"0.1.20 || 1.2.4", "0.1.20||1.2.4", 0},
  {">=0.2.3 || <0.0.1", ">=0.2.3||<0.0.1", 0},
  {"||", "*", 0},
  {"2.x.x", ">=2.0.0 <3.0.0-0", 0},
  {"1.2.x", ">=1.2.0 <1.3.0-0", 0},
  {"1.2.x || 2.x", ">=1.2.0 <1.3.0-0||>=2.0.0 <3.0.0-0", 0},
  {"1.x.5", NULL, 0},
  {"1.*.5", NULL, 0},
  {"1.x.5 || 2.x", NULL, 0},
  {"x.1", NULL, 0},
  {"x.1.2", NULL, 0},
  {"x.x.1", NULL, 0},
  {"x", "*", 0},
  {"2.*.*", ">=2.0.0 <3.0.0-0", 0},
  {"1.2.*", ">=1.2.0 <1.3.0-0", 0},
  {"1.2.* || 2.*", ">=1.2.0 <1.3.0-0||>=2.0.0 <3.0.0-0", 0},
  {"2", ">=2.0.0 <3.0.0-0", 0},
  {"2.3", ">=2.3.0 <2.4.0-0", 0},
  {"~2.4", ">=2.4.0 <2.5.0-0", 0},
  {"~>3.2.1", ">=3.2.1 <3.3.0-0", 0},
  {"~1", ">=1.0.0 <2.0.0-0", 0},
  {"~>1", ">=1.0.0 <2.0.0-0", 0},
  {"~> 1", ">=1.0.0 <2.0.0-0", 0},
  {"~1.0", ">=1.0.0 <1.1.0-0", 0},
  {"~ 1.0", ">=1.0.0 <1.1.0-0", 0},
  {"~1", ">=1.0.0-0 <2.0.0-0", INCPR},
  {"~1.x", ">=1.0.0-0 <2.0.0-0", INCPR},
  {"~1.2", ">=1.2.0-0 <1.3.0-0", INCPR},
  {"~1.2.x", ">=1.2.0-0 <1.3.0-0", INCPR},
  {"~0.0", "<0.1.0-0", INCPR},
  {"~1.2.3", ">=1.2.3 <1.3.0-0", INCPR},
  {"~1.2.3-beta.4", ">=1.2.3-beta.4 <1.3.0-0", INCPR},
  {"^0", "<1.0.0-0", 0},
  {"^ 1", ">=1.0.0 <2.0.0-0", 0},
  {"^0.1", ">=0.1.0 <0.2.0-0", 0},
  {"^1.0", ">=1.0.0 <2.0.0-0", 0},
  {"^1.2", ">=1.2.0 <2.0.0-0", 0},
  {"^0.0.1", ">=0.0.1 <0.0.2-0", 0},
  {"^0.0.1-beta", ">=0.0.1-beta <0.0.2-0", 0},
  {"^0.1.2", ">=0.1.2 <0.2.0-0", 0},
  {"^1.2.3", ">=1.2.3 <2.0.0-0", 0},
  {"^1.2.3-beta.4", ">=1.2.3-beta.4 <2.0.0-0", 0},
  {"<1", "<1.0.0-0", 0},
  {"< 1", "<1.0.0-0", 0},
  {">=1", ">=1.0.0", 0},
  {">= 1", ">=1.0.0", 0},
  {"<1.2", "<1.2.0-0", 0},
  {"< 1.2", "<1.2.0-0", 0},
  {">01.02.03", ">1.2.3", LOOSE},
  {">01.02.03", NULL, 0},
  {"~1.2.3beta", ">=1.2.3-beta <1.3.0-0", LOOSE},
  {"~1.2.3beta", NULL, 0},
  {"^ 1.2 ^ 1", ">=1.2.0 <2.0.0-0 >=1.0.0", 0},
  {"1.2 - 3.4.5", ">=1.2.0 <=3.4.5", 0},
  {"1.2.3 - 3.4", ">=1.2.3 <3.5.0-0", 0},
  {"1.2 - 3.4", ">=1.2.0 <3.5.0-0", 0},
  {">1", ">=2.0.0", 0},
  {">1.2", ">=1.3.0", 0},
  {">X", "<0.0.0-0", 0},
  {"<X", "<0.0.0-0", 0},
  {"<x <* || >* 2.x", "<0.0.0-0", 0},
  {">x 2.x || * || <x", "*", 0},
  {">=09090", NULL, 0},
  {">=09090", ">=9090.0.0", LOOSE},
  {">=09090-0", NULL, INCPR},
  {">=09090-0", NULL, LOOSE | INCPR},
  {"^9007199254740991.0.0", NULL, 0},
  {"=9007199254740991.0.0", "9007199254740991.0.0", 0},
  {"^9007199254740990.0.0", ">=9007199254740990.0.0 <9007199254740991.0.0-0", 0},
  {"1.x.x+build >2.x+build", ">=1.0.0 <2.0.0-0 >=3.0.0", 0},
  {">=1.x+build <2.x.x+build", ">=1.0.0 <2.0.0-0", 0},
  {"1.x.x+build || 2.x.x+build", ">=1.0.0 <2.0.0-0||>=2.0.0 <3.0.0-0", 0},
  {"1.x+build.123", ">=1.0.0 <2.0.0-0", 0},
  {"1.x.x+meta-data", ">=1.0.0 <2.0.0-0", 0},
  {"1.x.x+build.123 >2.x.x+meta-data", ">=1.0.0 <2.0.0-0 >=3.0.0", 0},
  {"1.x.x+build <2.x.x+meta", ">=1.0.0 <2.0.0-0", 0},
  {">1.x+build <=2.x.x+meta", ">=2.0.0 <3.0.0-0", 0},
  {" 1.x.x+build   >2.x.x+build  ", ">=1.0.0 <2.0.0-0 >=3.0.0", 0},
  {"^1.x+build", ">=1.0.0 <2.0.0-0", 0},
  {"^1.x.x+build", ">=1.0.0 <2.0.0-0", 0},
  {"^1.2.x+build", ">=1.2.0 <2.0.0-0", 0},
  {"^1.x+meta-data", ">=1.0.0 <2.0.0-0", 0},
  {"^1.x.x+build.123", ">=1.0.0 <2.0.0-0", 0},
  {"~1.x+build", ">=1.0.0 <2.0.0-0", 0},
  {"~1.x.x+build", ">=1.0.0 <2.0.0-0", 0},
  {"~1.2.x+build", ">=1.2.0 <1.3.0-0", 0},
  {"~1.x+meta-data", ">=1.0.0 <2.0.0-0", 0},
  {"~1.x.x+build.123", ">=1.0.0 <2.0.0-0", 0},
  {"^1.x.x+build || ~2.x.x+meta", ">=1.0.0 <2.0.0-0||>=2.0.0 <3.0.0-0", 0},
  {"~1.x.x+build >2.x+meta", ">=1.0.0 <2.0.0-0 >=3.0.0", 0},
  {"^1.x+build.123 <2.x.x+meta-data", ">=1.0.0 <2.0.0-0", 0},
  {"1.x.x-alpha+build", ">=1.0.0 <2.0.0-0", 0},
  {">1.x.x-alpha+build", ">=2.0.0", 0},
  {">=1.x.x-alpha+build <2.x.x+build", ">=1.0.0 <2.0.0-0", 0},
  {"1.x.x-alpha+build || 2.x.x+build", ">=1.0.0 <2.0.0-0||>=2.0.0 <3.0.0-0", 0},
  {"4.17.0+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaa3",
   "4.17.0",
   LOOSE},
  {"4.17.0+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaa",
   "4.17.0",
   LOOSE},
  {"v1.0+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaax6",
   ">=1.0.0 <1.1.0-0",
   0},
  {"1.2.3+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaa - 2.0.0",
   ">=1.2.3 <=2.0.0",
   0},
  {"1.2.3+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaa - 2.0.0",
   ">=1.2.3 <=2.0.0",
   LOOSE},
  {"> 1.2.3+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaa",
   ">1.2.3",
   0},
  {">= 1.2.3+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaa",
   ">=1.2.3",
   LOOSE},
  {"~1.2.3+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaa",
   ">=1.2.3 <1.3.0-0",
   0},
  {"^1.2.3+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaa",
   ">=1.2.3 <2.0.0-0",
   0},
  {"1.2.3+sha512.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaa",
   "1.2.3",
   LOOSE},
  {"1.2.3+sha256.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.bbbbbbbbbbbbbbbbbbbbbbbbbb"
     "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
     "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
     "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
   "1.2.3",
   LOOSE},
  {"1.2.3+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaa || 2.0.0+bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
     "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
     "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
     "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
     "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
   "1.2.3||2.0.0",
   LOOSE},
  /* nub */
  {"^0.0.x", "<0.1.0-0", 0},
  {"^0.0.x", "<0.1.0-0", INCPR},
  {"^0.x", "<1.0.0-0", 0},
  {"^1.x", ">=1.0.0 <2.0.0-0", 0},
  {"^*", "*", 0},
  {"^1.2.x", ">=1.2.0 <2.0.0-0", 0},
  {"^0.2.3", ">=0.2.3 <0.3.0-0", 0},
  {"^0.0.3", ">=0.0.3 <0.0.4-0", 0},
  {"^0.0", "<0.1.0-0", 0},
  {"^1.2.3", ">=1.2.3 <2.0.0-0", INCPR},
  {"^1.2", ">=1.2.0-0 <2.0.0-0", INCPR},
  {"~1.2.3", ">=1.2.3 <1.3.0-0", 0},
  {"~1.2", ">=1.2.0 <1.3.0-0", 0},
  {"~1", ">=1.0.0 <2.0.0-0", 0},
  {"~0.2.3", ">=0.2.3 <0.3.0-0", 0},
  {"~1.2.3-beta.2", ">=1.2.3-beta.2 <1.3.0-0", 0},
  {"~> 1.2.3", ">=1.2.3 <1.3.0-0", 0},
  {"~", NULL, 0},
  {"^", NULL, 0},
  {"~*", "*", 0},
  {"~x", "*", 0},
  {"^x.x", "*", 0},
  {"1.x", ">=1.0.0 <2.0.0-0", 0},
  {"1.2.*", ">=1.2.0 <1.3.0-0", 0},
  {"*", "*", 0},
  {"X", "*", 0},
  {"", "*", 0},
  {"x.x.x", "*", 0},
  {"1.x", ">=1.0.0-0 <2.0.0-0", INCPR},
  {"*", "*", INCPR},
  {"1.2.3 - 2.3.4", ">=1.2.3 <=2.3.4", 0},
  {"1.2 - 2.3", ">=1.2.0 <2.4.0-0", 0},
  {"1.2.3 - 2", ">=1.2.3 <3.0.0-0", 0},
  {"* - 2", "<3.0.0-0", 0},
  {"* - 2.0.0", "<=2.0.0", 0},
  {"1.2.3 - *", ">=1.2.3", 0},
  {"1.2.3-rc.1 - 2.0.0-rc.2", ">=1.2.3-rc.1 <=2.0.0-rc.2", 0},
  {"1.2.3 - 2.3.4", ">=1.2.3-0 <2.3.5-0", INCPR},
  {"1.2.3 -2.3.4", NULL, 0},
  {"1.2.3- 2.3.4", NULL, 0},
  {">1.2", ">=1.3.0", 0},
  {"<1.2", "<1.2.0-0", 0},
  {"<=1.2", "<1.3.0-0", 0},
  {">=1.2", ">=1.2.0", 0},
  {">1", ">=2.0.0", 0},
  {"<=1", "<2.0.0-0", 0},
  {"=1.2", ">=1.2.0 <1.3.0-0", 0},
  {">1.2", ">=1.3.0-0", INCPR},
  {">=1.2", ">=1.2.0-0", INCPR},
  {">=1.2.3", ">=1.2.3", 0},
  {">=0.0.0", "*", 0},
  {">=0.0.0", ">=0.0.0", INCPR},
  {">=0.0.0-0", ">=0.0.0-0", 0},
  {">=0.0.0-0", "*", INCPR},
  {">=*", "*", 0},
  {"<=*", "*", 0},
  {">*", "<0.0.0-0", 0},
  {">= 1.2.3", ">=1.2.3", 0},
  {">=\t1.2.3", ">=1.2.3", 0},
  {">=  1.2.3  <   2", ">=1.2.3 <2.0.0-0", 0},
  {"  >=1.2.3\t\t<2.0.0  ", ">=1.2.3 <2.0.0", 0},
  {"> =1.2.3", ">=1.2.3", 0},
  {"> = 1.2.3", NULL, 0},
  {">== 1.2.3", NULL, 0},
  {"==1.2.3", NULL, 0},
  {"==1.2", ">=1.2.0 <1.3.0-0", 0},
  {"=1.2.3", "1.2.3", 0},
  {"v1.2.3", "1.2.3", 0},
  {"=v1.2.3", "1.2.3", 0},
  {"1.2.3 || 2.x", "1.2.3||>=2.0.0 <3.0.0-0", 0},
  {"1.2.3||2.x", "1.2.3||>=2.0.0 <3.0.0-0", 0},
  {"1.2.3 ||", "*", 0},
  {"|| 1.2.3", "*", 0},
  {"1.2.3 | 2", NULL, 0},
  {"1.2.3 ||| 2", NULL, 0},
  {">=1.2.3 <1.2.3", ">=1.2.3 <1.2.3", 0},
  {">=1.2.3 >=1.2.3", ">=1.2.3", 0},
  {"<0.0.0-0 1.2.3", "<0.0.0-0", 0},
  {"<0.0.0-0 || 1.2.3", "1.2.3", 0},
  {"<0.0.0-0 || <0.0.0-0", "<0.0.0-0", 0},
  {"* || 1.0.0-rc.1", "*", 0},
  {"1.0.0+build", "1.0.0", 0},
  {"^1.0.0+build.1", ">=1.0.0 <2.0.0-0", 0},
  {"1.0.0+build - 2.0.0+x", ">=1.0.0 <=2.0.0", 0},
  {">=0.34.0-next.4 <1.0.0", ">=0.34.0-next.4 <1.0.0", 0},
  {"latest", NULL, 0},
  {"next", NULL, 0},
  {"beta", NULL, 0},
  {"latest", NULL, LOOSE},
  {"1.2.3 latest", NULL, 0},
  {"1.2.3 latest", "1.2.3", LOOSE},
  {"garbage", NULL, 0},
  {"1.2.3.4", NULL, 0},
  {"1.x.3", NULL, 0},
  {"x.2", NULL, 0},
  {"~1.2.3-", NULL, 0},
  {"^1.2.3.", NULL, 0},
  {">=a.b.c", NULL, 0},
  {"@1.2.3", NULL, 0},
  {"1.2.3 ^", NULL, 0},
  {"npm:foo@1", NULL, 0},
  {"file:../foo", NULL, 0},
  {"git+https://x/y.git", NULL, 0},
  {">=9007199254740992.0.0", NULL, 0},
  {"1.2.3 - 1.2.9007199254740991", ">=1.2.3 <=1.2.9007199254740991", 0},
  {"1.2.3 - 1.2.9007199254740991", NULL, INCPR},
  {"<=9007199254740991.x", NULL, 0},
  {"1.2.34.5", "1.2.3-4.5", LOOSE},
  {"~1.2.3beta", NULL, 0},
  {"^01.2.3", ">=1.2.3 <2.0.0-0", LOOSE},
  {"^00.2.3", ">=0.2.3 <1.0.0-0", LOOSE},
  {"1.2.3- ", "1.2.3--", LOOSE},
  {">=1.2.3 foo", ">=1.2.3", LOOSE},
  {"~1.2.3 ~1.2.4", ">=1.2.3 <1.3.0-0 >=1.2.4", 0},
  {"1 2", ">=1.0.0 <2.0.0-0 >=2.0.0 <3.0.0-0", 0},
};

static const struct max_case max_satisfying[] = {
  {"1.2", "1.2.3 1.2.4", 0, 1}, /* node-semver */
  {"1.2", "1.2.4 1.2.3", 0, 0}, /* node-semver */
  {"~1.2.3", "1.2.3 1.2.4 1.2.5 1.2.6", 0, 3}, /* node-semver */
  {"~2.0.0",
   "1.1.0 1.2.0 1.2.1 1.3.0 2.0.0b1 2.0.0b2 2.0.0b3 2.0.0 2.1.0",
   LOOSE,
   7}, /* node-semver */
  {"some frogs and sneks-v2.5.6", "1.2.3", 0, -1}, /* node-semver */
  {"^1.2.3", "1.2.3 1.9.0 2.0.0 1.10.0 1.9.9", 0, 3},
  {"^1.2.3", "2.0.0 0.9.0", 0, -1},
  {"^1.2.3", "", 0, -1},
  {"^1.2.3", "1.3.0 1.3.0+b 1.2.9", 0, 0},
  {"^1.2.3", "1.3.0+b 1.3.0", 0, 0},
  {"*", "1.0.0 2.0.0-rc.1 1.5.0", 0, 2},
  {"*", "1.0.0 2.0.0-rc.1 1.5.0", INCPR, 1},
  {">=2.0.0-rc.0", "1.0.0 2.0.0-rc.1 2.0.0-rc.2", 0, 2},
  {"^2.0.0-rc.1", "2.0.0-rc.1 2.0.0-rc.10 2.0.0-rc.9 2.0.1-rc.1", 0, 1},
  {"~1.2.3-beta.2", "1.2.3-beta.1 1.2.3-beta.4 1.2.4-beta.1", 0, 1},
  {"1.2.3 || 2.x", "1.2.3 2.9.9 3.0.0", 0, 1},
  {"1.2.3 - 2.3.4", "2.3.4 2.3.5 2.3.4-rc.1", 0, 0},
  {"1.2.3 - 2.3.4", "2.3.4-rc.1 1.0.0", INCPR, 0},
  {"latest", "1.0.0", 0, -1},
  {">=1.2.3 <1.2.3", "1.2.3", 0, -1},
  {"^0.0.x", "0.0.1 0.0.9 0.1.0", 0, 1},
  {"^0.x", "0.1.0 0.99.0 1.0.0", 0, 1},
  {">=0.34.0-next.4 <1.0.0", "0.34.0-next.3 0.34.0-next.5 0.33.0", 0, 1},
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int vparse(struct nub_version *v, const char *s, unsigned flags)
{
  return flags & LOOSE ? nub_version_parse_loose(v, s) : nub_version_parse(v, s);
}

static int rparse(struct nub_range **r, const char *s, unsigned flags)
{
  return flags & LOOSE ? nub_range_parse_loose(r, s) : nub_range_parse(r, s);
}

static const char *fl(unsigned flags)
{
  static const char *const names[] = {"", " [loose]", " [incpr]", " [loose incpr]"};

  return names[flags & 3];
}

/* Like node-semver's satisfies(): a range or version that does not parse
 * satisfies nothing. */
static bool satisfies(const char *range, const char *version, unsigned flags)
{
  struct nub_range *r;
  struct nub_version v;
  bool ok;

  if (rparse(&r, range, flags))
    return false;
  if (vparse(&v, version, flags)) {
    nub_range_free(r);
    return false;
  }
  ok = nub_range_satisfies(r, &v, flags & INCPR);
  nub_version_release(&v);
  nub_range_free(r);
  return ok;
}

static void test_range_include(void **state)
{
  size_t bad = 0;

  (void)state;
  for (size_t i = 0; i < NELEM(range_include); i++) {
    const struct range_case *c = &range_include[i];

    if (!satisfies(c->range, c->version, c->flags)) {
      print_error("range_include[%zu]: \"%s\" should take \"%s\"%s\n", i,
                  c->range, c->version, fl(c->flags));
      bad++;
    }
  }
  assert_int_equal(bad, 0);
}

static void test_range_exclude(void **state)
{
  size_t bad = 0;

  (void)state;
  for (size_t i = 0; i < NELEM(range_exclude); i++) {
    const struct range_case *c = &range_exclude[i];

    if (satisfies(c->range, c->version, c->flags)) {
      print_error("range_exclude[%zu]: \"%s\" should refuse \"%s\"%s\n", i,
                  c->range, c->version, fl(c->flags));
      bad++;
    }
  }
  assert_int_equal(bad, 0);
}

/* want: the sign nub_version_cmp(a, b) must have. */
static size_t check_cmp(const char *table, const struct cmp_case *cases, size_t n,
                        int want)
{
  size_t bad = 0;

  for (size_t i = 0; i < n; i++) {
    const struct cmp_case *c = &cases[i];
    struct nub_version a, b;

    if (vparse(&a, c->a, c->flags) || vparse(&b, c->b, c->flags)) {
      print_error("%s[%zu]: \"%s\" or \"%s\" did not parse\n", table, i, c->a, c->b);
      nub_version_release(&a);
      bad++;
      continue;
    }
    if (nub_version_cmp(&a, &b) != want || nub_version_cmp(&b, &a) != -want ||
        nub_version_cmp(&a, &a) != 0 || nub_version_cmp(&b, &b) != 0) {
      print_error("%s[%zu]: cmp(\"%s\", \"%s\") = %d, want %d\n", table, i, c->a,
                  c->b, nub_version_cmp(&a, &b), want);
      bad++;
    }
    nub_version_release(&a);
    nub_version_release(&b);
  }
  return bad;
}

static void test_comparisons(void **state)
{
  (void)state;
  assert_int_equal(check_cmp("comparisons", comparisons, NELEM(comparisons), 1), 0);
}

static void test_equality(void **state)
{
  (void)state;
  assert_int_equal(check_cmp("equality", equality, NELEM(equality), 0), 0);
}

static void test_invalid_versions(void **state)
{
  size_t bad = 0;

  (void)state;
  for (size_t i = 0; i < NELEM(invalid_versions); i++) {
    const struct str_case *c = &invalid_versions[i];
    struct nub_version v;
    int rc = vparse(&v, c->s, c->flags);

    if (rc != -EINVAL || v.raw || v.pre || v.build ||
        (!(c->flags & LOOSE) && nub_semver_is_exact(c->s))) {
      print_error("invalid_versions[%zu]: \"%s\"%s parsed (rc %d)\n", i, c->s,
                  fl(c->flags), rc);
      nub_version_release(&v);
      bad++;
    }
  }
  assert_int_equal(bad, 0);
}

static bool str_eq(const char *a, const char *b)
{
  return a == b || (a && b && strcmp(a, b) == 0);
}

static void test_valid_versions(void **state)
{
  size_t bad = 0;

  (void)state;
  for (size_t i = 0; i < NELEM(valid_versions); i++) {
    const struct valid_case *c = &valid_versions[i];
    struct nub_version v;
    char pre[512] = "";

    if (vparse(&v, c->s, c->flags)) {
      print_error("valid_versions[%zu]: \"%s\"%s did not parse\n", i, c->s, fl(c->flags));
      bad++;
      continue;
    }
    for (size_t k = 0; k < v.npre; k++) {
      if (k)
        strcat(pre, ".");
      strcat(pre, v.pre[k]);
    }
    if (v.major != c->major || v.minor != c->minor || v.patch != c->patch ||
        !str_eq(v.npre ? pre : NULL, c->pre) || !str_eq(v.build, c->build) ||
        strcmp(v.raw, c->raw) != 0 || nub_version_is_prerelease(&v) != (c->pre != NULL) ||
        (!(c->flags & LOOSE) && !nub_semver_is_exact(c->s))) {
      print_error("valid_versions[%zu]: \"%s\" gave %s (pre %s, build %s)\n", i, c->s,
                  v.raw, v.npre ? pre : "-", v.build ? v.build : "-");
      bad++;
    }
    nub_version_release(&v);
  }
  assert_int_equal(bad, 0);
}

static void test_range_parse(void **state)
{
  size_t bad = 0;

  (void)state;
  for (size_t i = 0; i < NELEM(range_parse); i++) {
    const struct parse_case *c = &range_parse[i];
    struct nub_range *r;
    int rc = rparse(&r, c->range, c->flags);
    const char *got = rc ? NULL : nub_range_format(r, c->flags & INCPR);

    if ((rc != 0 && rc != -EINVAL) || (rc && r) || !str_eq(got, c->want)) {
      print_error("range_parse[%zu]: \"%s\"%s gave \"%s\", want \"%s\"\n", i,
                  c->range, fl(c->flags), got ? got : "(invalid)",
                  c->want ? c->want : "(invalid)");
      bad++;
    }
    if (!rc)
      nub_range_free(r);
  }
  assert_int_equal(bad, 0);
}

static void test_max_satisfying(void **state)
{
  size_t bad = 0;

  (void)state;
  for (size_t i = 0; i < NELEM(max_satisfying); i++) {
    const struct max_case *c = &max_satisfying[i];
    struct nub_version vs[16];
    const struct nub_version *pv[16];
    struct nub_range *r = NULL;
    char *list = nub_strdup(c->versions);
    size_t n = 0;
    long got = -1;

    for (char *t = list; *t;) {
      char *sp = strchr(t, ' ');

      if (sp)
        *sp = '\0';
      assert_true(n < NELEM(vs));
      pv[n] = vparse(&vs[n], t, c->flags) ? NULL : &vs[n];
      n++;
      t = sp ? sp + 1 : t + strlen(t);
    }
    if (rparse(&r, c->range, c->flags) == 0)
      got = nub_range_max_satisfying(r, pv, n, c->flags & INCPR);
    if (got != c->want) {
      print_error("max_satisfying[%zu]: \"%s\" over \"%s\" gave %ld, want %ld\n", i,
                  c->range, c->versions, got, c->want);
      bad++;
    }
    nub_range_free(r);
    for (size_t k = 0; k < n; k++)
      nub_version_release(&vs[k]);
    nub_free(list);
  }
  assert_int_equal(bad, 0);
}

/* A tag names no version: callers tell tags from ranges by -EINVAL. */
static void test_dist_tags(void **state)
{
  static const char *const tags[] = {"latest", "next", "beta", "canary", "rc",
                                     "legacy", "insiders", "v2-beta"};
  struct nub_range *r;

  (void)state;
  for (size_t i = 0; i < NELEM(tags); i++) {
    assert_int_equal(nub_range_parse(&r, tags[i]), -EINVAL);
    assert_null(r);
    assert_int_equal(nub_range_parse_loose(&r, tags[i]), -EINVAL);
    assert_null(r);
    assert_false(nub_semver_is_exact(tags[i]));
  }
}

static void test_is_exact(void **state)
{
  (void)state;
  assert_true(nub_semver_is_exact("1.2.3"));
  assert_true(nub_semver_is_exact("v1.2.3"));
  assert_true(nub_semver_is_exact("=1.2.3"));
  assert_true(nub_semver_is_exact(" 1.2.3-rc.1+b.2 "));
  assert_false(nub_semver_is_exact("^1.2.3"));
  assert_false(nub_semver_is_exact("~1.2.3"));
  assert_false(nub_semver_is_exact("1.2"));
  assert_false(nub_semver_is_exact("1.2.x"));
  assert_false(nub_semver_is_exact("1.2.3 || 1.2.4"));
  assert_false(nub_semver_is_exact(">=1.2.3"));
  assert_false(nub_semver_is_exact("1.2.3beta"));
  assert_false(nub_semver_is_exact(""));
  assert_false(nub_semver_is_exact(NULL));
}

/* Where node-semver cannot build the includePrerelease form of a range (its
 * upper bound passes 2^53-1), satisfies() with it is false, without it the
 * range still works. */
static void test_incpr_form_missing(void **state)
{
  struct nub_range *r;
  struct nub_version v;

  (void)state;
  assert_int_equal(nub_range_parse(&r, "1.2.3 - 1.2.9007199254740991"), 0);
  assert_string_equal(nub_range_format(r, false), ">=1.2.3 <=1.2.9007199254740991");
  assert_null(nub_range_format(r, true));
  assert_int_equal(nub_version_parse(&v, "1.2.4"), 0);
  assert_true(nub_range_satisfies(r, &v, false));
  assert_false(nub_range_satisfies(r, &v, true));
  nub_version_release(&v);
  nub_range_free(r);
}

/* Deliberately unlike node-semver: numeric prerelease identifiers past 2^53
 * compare exactly, where node's doubles call these two equal. */
static void test_big_prerelease_ids(void **state)
{
  struct nub_version a, b;

  (void)state;
  assert_int_equal(nub_version_parse(&a, "1.0.0-18446744073709551617"), 0);
  assert_int_equal(nub_version_parse(&b, "1.0.0-18446744073709551616"), 0);
  assert_true(nub_version_cmp(&a, &b) > 0);
  assert_true(nub_version_cmp(&b, &a) < 0);
  nub_version_release(&a);
  nub_version_release(&b);
  assert_int_equal(nub_version_parse(&a, "1.0.0-9007199254740993"), 0);
  assert_int_equal(nub_version_parse(&b, "1.0.0-9007199254740992"), 0);
  assert_true(nub_version_cmp(&a, &b) > 0);
  nub_version_release(&a);
  nub_version_release(&b);
}

static void test_api_edges(void **state)
{
  struct nub_version v;
  struct nub_range *r;
  const struct nub_version *none[] = {NULL, NULL};

  (void)state;
  assert_int_equal(nub_version_parse(&v, NULL), -EINVAL);
  assert_int_equal(nub_version_parse_loose(&v, NULL), -EINVAL);
  assert_int_equal(nub_range_parse(&r, NULL), -EINVAL);
  assert_null(r);
  nub_version_release(NULL);
  nub_range_free(NULL);

  /* Release leaves a zeroed version: a second release is harmless. */
  assert_int_equal(nub_version_parse(&v, "1.2.3-a.1+b"), 0);
  assert_int_equal(v.npre, 2);
  assert_string_equal(v.pre[0], "a");
  assert_string_equal(v.pre[1], "1");
  assert_string_equal(v.build, "b");
  assert_string_equal(v.raw, "1.2.3-a.1");
  nub_version_release(&v);
  assert_null(v.raw);
  nub_version_release(&v);

  assert_int_equal(nub_range_parse(&r, "*"), 0);
  assert_int_equal(nub_range_max_satisfying(r, none, 2, false), -1);
  assert_int_equal(nub_range_max_satisfying(r, none, 0, true), -1);
  nub_range_free(r);
}

/* nub_semver_satisfies and nub_range_valid decide the common forms
 * themselves: they must say what the full parser and nub_range_satisfies
 * say, for every form, around every bound, zeros included, with and
 * without include_prerelease. */
static const char *const sat_vnums[] = {"0", "1", "2", "10"};

/* One range against every version of the grid (tails: "" and, for the
 * full versions, a prerelease and build metadata). */
static void check_range(const char *range, bool tails)
{
  static const char *const tail[] = {"", "-beta.1", "+build"};
  struct nub_range *r = NULL;
  bool valid = nub_range_parse(&r, range) == 0;
  char version[64];

  if (nub_range_valid(range) != valid)
    fail_msg("nub_range_valid(\"%s\") is %d, the parser says %d", range,
             nub_range_valid(range), valid);
  for (size_t x = 0; x < 4; x++)
    for (size_t y = 0; y < 4; y++)
      for (size_t z = 0; z < 4; z++)
        for (size_t t = 0; t < (tails ? 3u : 1u); t++)
          for (int inc = 0; inc < 2; inc++) {
            struct nub_version v;
            int want = -EINVAL, got;
            snprintf(version, sizeof(version), "%s.%s.%s%s", sat_vnums[x], sat_vnums[y],
                     sat_vnums[z], tail[t]);
            if (valid && nub_version_parse(&v, version) == 0) {
              want = nub_range_satisfies(r, &v, inc);
              nub_version_release(&v);
            }
            got = nub_semver_satisfies(range, version, inc);
            if (got != want)
              fail_msg("%s against %s (include_prerelease %d): %d, want %d", version, range,
                       inc, got, want);
          }
  nub_range_free(r);
}

static void test_satisfies_text(void **state)
{
  static const char *const ops[] = {
      "",       "=",       "^",         "~",           ">=",         ">",
      "<",      "<=",      "v",         " ^",          "^v",         ">= ",
      "~>",     "~> ",     "^ ",        "* || ^",      "^1.0.0 || ~", ">=1.0.0 <",
      "x ",     "^2.0.0  || ", "1.2 || ", "^1.0.0-0 || ", "<2.0.0 ",   " || ",
      "1.0.0 - ", "^1 ||", "1.x.x ", "<=1 ", ">1.2 ", "\t^"};
  /* after the operator: full versions, partial ones, x-ranges, prerelease
   * bounds (valid, empty, with a leading zero) */
  static const char *const shapes[] = {
      "%s%s.%s.%s",    "%s%s",          "%s%s.%s",        "%s%s.x",    "%s%s.x.x",
      "%s%s.*",        "%s%s.%s.x",     "%s*",            "%s%s.X",    "%s%s.x.%s",
      "%s%s.%s.%s-0",  "%s%s.%s.%s-rc.1", "%s%s.%s.%s-01", "%s%s.%s.%s-", "%s%s.%s.%s-a.",
      "%s%s.%s.%s+b"};
  static const char *const rnums[] = {"0", "1", "10", "01"};
  char range[64];

  (void)state;
  for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
    for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
      for (size_t a = 0; a < 4; a++)
        for (size_t b = 0; b < 4; b++)
          for (size_t c = 0; c < (sh == 0 ? 4u : 2u); c++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
            snprintf(range, sizeof(range), shapes[sh], ops[o], rnums[a], rnums[b], rnums[c]);
#pragma GCC diagnostic pop
            check_range(range, sh == 0);
          }
  assert_int_equal(nub_semver_satisfies("latest", "1.0.0", false), -EINVAL);
  assert_int_equal(nub_semver_satisfies("^1.0.0", "nope", false), -EINVAL);
  assert_int_equal(nub_semver_satisfies("^1.2.3-", "1.5.0", false), -EINVAL);
  assert_false(nub_range_valid("1.2.3-"));
  assert_int_equal(nub_semver_satisfies(">=1.2.3 <2", "1.9.0", false), 1);
  assert_int_equal(nub_semver_satisfies("^16.8.0 || ^17.0.0 || ^18.0.0", "17.0.2", false), 1);
  assert_int_equal(nub_semver_satisfies("^16.8.0 || ^17.0.0 || ^18.0.0", "19.0.0", false), 0);
  assert_int_equal(nub_semver_satisfies(">=1.0.0 <2.0.0", "2.0.0", false), 0);
  assert_int_equal(nub_semver_satisfies("^1.0.0 ||", "3.0.0", false), 1);
  assert_int_equal(nub_semver_satisfies("", "3.0.0", false), 1);
  assert_int_equal(nub_semver_satisfies("^1.2.3", "1.3.0-beta", false), 0);
  assert_int_equal(nub_semver_satisfies("^1.2.3", "1.3.0-beta", true), 1);
  assert_int_equal(nub_semver_satisfies("^1.999999999999999.0", "1.999999999999999.5", false),
                   1);
}

/* Range intersection, against node-semver 7's intersects() (the figures
 * below are what it printed for each pair). */
/* A range past NUB_RANGE_MAX_LEN is not one, however it is asked. */
/* "1.0.0 || 1.0.0 || ... 1.0.0", padded with spaces to n bytes. */
static char *long_range(size_t n)
{
  char *s = malloc(n + 1);

  memset(s, ' ', n);
  for (size_t i = 0; i + 14 <= n - 5; i += 9)
    memcpy(s + i, "1.0.0 || ", 9);
  memcpy(s + n - 5, "1.0.0", 5);
  s[n] = '\0';
  return s;
}

static void test_range_length_bound(void **state)
{
  char *s = long_range(NUB_RANGE_MAX_LEN + 1);
  struct nub_range *r = NULL;

  (void)state;
  assert_int_equal(nub_range_parse(&r, s), -E2BIG);
  assert_null(r);
  assert_int_equal(nub_range_parse_loose(&r, s), -E2BIG);
  assert_false(nub_range_valid(s));
  assert_int_equal(nub_semver_satisfies(s, "1.0.0", false), -EINVAL);
  free(s);
  s = long_range(NUB_RANGE_MAX_LEN); /* at the bound: a range */
  assert_int_equal(nub_range_parse(&r, s), 0);
  nub_range_free(r);
  assert_int_equal(nub_semver_satisfies(s, "1.0.0", false), 1);
  free(s);
}

static void test_intersects(void **state)
{
  static const struct {
    const char *a, *b;
    int want;
  } cases[] = {
    {"^1.0.0", "^2.0.0", 0},
    {"^1.0.0", "1.2.3", 1},
    {">=1.0.0 <2.0.0", "1.x", 1},
    {"~1.2.0", "1.3.0", 0},
    {">1.0.0", "<1.0.0", 0},
    {">=1.0.0", "<=1.0.0", 1},
    {">1.0.0", "<=1.0.0", 0},
    {"1.0.0 || 2.0.0", "^2.0.0", 1},
    {"*", "^1.0.0", 1},
    {"", "1.0.0", 1},
    {"<0.0.0", "*", 1},
    {"^1.0.0-beta", "1.0.0-beta.2", 0},
    {">=2.0.0-0", "^1.0.0", 0},
    {"1.2.3", "1.2.4", 0},
    {"1.2.3-alpha", "^1.2.0", 0},
    {"^0.1.0", "0.2.0", 0},
    {"<2.0.0", ">=1.5.0 <1.6.0", 1},
    {">=3.0.0 <2.0.0", "*", 0},
    {"~2", "2.x", 1},
    {"1 - 2", "^3.0.0", 0},
    {"<1.0.0 || >=2.0.0", "1.5.0", 0},
  };
  (void)state;
  for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
    int got = nub_semver_intersects(cases[i].a, cases[i].b);
    int back = nub_semver_intersects(cases[i].b, cases[i].a);
    if (got != cases[i].want || back != cases[i].want)
      fail_msg("intersects(%s, %s): %d / %d, node-semver says %d", cases[i].a, cases[i].b, got,
               back, cases[i].want);
  }
  assert_int_equal(nub_semver_intersects("latest", "^1.0.0"), -EINVAL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_range_include),
    cmocka_unit_test(test_range_exclude),
    cmocka_unit_test(test_comparisons),
    cmocka_unit_test(test_equality),
    cmocka_unit_test(test_invalid_versions),
    cmocka_unit_test(test_valid_versions),
    cmocka_unit_test(test_range_parse),
    cmocka_unit_test(test_max_satisfying),
    cmocka_unit_test(test_dist_tags),
    cmocka_unit_test(test_is_exact),
    cmocka_unit_test(test_incpr_form_missing),
    cmocka_unit_test(test_big_prerelease_ids),
    cmocka_unit_test(test_api_edges),
    cmocka_unit_test(test_satisfies_text),
    cmocka_unit_test(test_intersects),
    cmocka_unit_test(test_range_length_bound),
  };

  return cmocka_run_group_tests(tests, NULL, NULL);
}
