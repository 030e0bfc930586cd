/* sync.h - whether a lockfile still answers package.json, for every
 * lockfile format. Every direct dependency (dependencies, devDependencies,
 * optionalDependencies) must have an answer in the lockfile, and nothing
 * the lockfile records for the project may be gone from package.json. For
 * a dependency that is there, one of two rules:
 *   NUB_SYNC_SATISFIES  (npm, bun; what `npm ci` accepts) the package at
 *                       the dependency's place is the one named (an npm:
 *                       alias names another) and its version satisfies
 *                       the range; a spec that is not a range (a tag, a
 *                       URL, git, file:) must equal the recorded one;
 *   NUB_SYNC_SPECIFIER  (pnpm-lock.yaml, nub.lock; what pnpm's frozen
 *                       install accepts) the recorded specifier equals
 *                       package.json's. */
#ifndef NUB_SYNC_H
#define NUB_SYNC_H

#include <stdbool.h>
#include <stddef.h>

#include "manifest.h"

enum nub_sync_rule { NUB_SYNC_SATISFIES, NUB_SYNC_SPECIFIER };

/* The lockfile's answer for one direct dependency of the project. */
struct nub_locked {
  const char *alias;   /* the name package.json uses */
  const char *spec;    /* what the lockfile recorded package.json saying, or NULL */
  const char *name;    /* the package installed there, or NULL (a link) */
  const char *version;
  bool present;        /* something is installed there (package or link) */
  bool listed;         /* the lockfile lists it as the project's dependency */
};

/* true when in sync; else why (for "<lockfile> is out of date: <why>")
 * names the first dependency that differs. */
bool nub_sync_check(const struct nub_manifest *m, const struct nub_locked *l, size_t n,
                    enum nub_sync_rule rule, char *why, size_t cap);

/* Whether version satisfies spec for package `name` ("npm:real@range"
 * aliases name `real`). Specs that are not ranges are never satisfied. */
bool nub_sync_satisfies(const char *spec, const char *alias, const char *name,
                        const char *version);

#endif
