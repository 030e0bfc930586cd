/* json.h - reading JSON documents (package.json, npm and bun lockfiles,
 * packuments) with cJSON, as strictly as JSON.parse: the modules that read
 * JSON include this header, and no other header names a cJSON type.
 *
 * Strict means what npm refuses is refused here too: anything but
 * whitespace after the top-level value, bytes that are not UTF-8, raw
 * control characters inside strings, nesting deeper than NUB_JSON_MAX_DEPTH.
 * And what it keeps is what JSON.parse keeps: of equal keys in an object,
 * the last.
 * cJSON on its own accepts all of these and stops reading at the first
 * stray '}', which once installed 45 packages of a 78-package lockfile. */
#ifndef NUB_JSON_H
#define NUB_JSON_H

#include <cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "dep.h"
#include "text.h"

#define NUB_JSON_MAX_DEPTH 512

enum nub_json_flags {
  NUB_JSON_TRAILING_COMMAS = 1u << 0, /* JSONC as bun writes it: ",}" and ",]" */
};

/* Parse text[0..len) into *out (cJSON_Delete it). A UTF-8 byte-order mark is
 * skipped. On failure *out is NULL and err holds one line naming `fname`,
 * the line and column and what is wrong, with `code` (-NUB_ELOCKFILE,
 * -NUB_EMANIFEST, ...); the code is returned. */
int nub_json_parse(const char *text, size_t len, const char *fname, int code,
                   unsigned flags, cJSON **out, struct nub_err *err);

/* A JSON text with git's merge-conflict markers (text.h), read as npm's
 * parse-conflict-json reads one: each side parsed (flags as above), then
 * one document with both sides' keys, objects merged key by key, ours
 * where both have a value that is not an object. A side that is not valid
 * JSON is `code`, saying to resolve the conflict by hand. */
int nub_json_unconflict(const char *text, size_t len, const char *fname, int code,
                        unsigned flags, cJSON **out, struct nub_err *err);

/* Typed field readers: a missing field or one of another type reads as
 * absent (NULL, false, empty), never as a crash. */
const char *nub_json_str(const cJSON *obj, const char *key);
bool nub_json_true(const cJSON *obj, const char *key);
/* A dependency map; arrays, null or strings (legacy registry oddities) read
 * as empty, a value that is not a string as "*". */
void nub_json_depmap(const cJSON *obj, struct nub_depmap *out);

struct nub_buf;
/* v as JavaScript's JSON.stringify(v, null, 2) writes it (keys in their
 * order, two spaces a level, [] and {} when empty), appended to out. */
void nub_json_pretty(const cJSON *v, struct nub_buf *out);
/* A list of strings; a lone string is a list of one ("os": "linux"). */
/* A workspace member's recorded specs from a lockfile object with
 * "dependencies", "devDependencies", "optionalDependencies" and
 * "peerDependencies" maps (npm's packages[dir], bun's workspaces[dir]): four
 * maps in that order (struct nub_node's member_specs; its owner frees). */
struct nub_depmap *nub_json_member_specs(const cJSON *obj);
void nub_json_strarray(const cJSON *arr, char ***out, size_t *n);
/* package.json "bin" (a string names the package's own command). Unsafe
 * command names and targets are dropped, as npm drops them. */
void nub_json_bins(const cJSON *pkg, const char *pkgname, struct nub_bin **out, size_t *n);

#endif
