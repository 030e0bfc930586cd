/* sync.c - package.json against a lockfile's answer; see sync.h. */
#include "sync.h"

#include <stdio.h>
#include <string.h>

#include "semver.h"

/* "npm:real@range" -> real and range; else alias and spec. */
static void split_alias(const char *spec, const char *alias, char *name, size_t cap,
                        const char **range)
{
  if (nub_spec_npm_alias(spec, name, cap, range)) {
    if (!*range)
      *range = "*";
    return;
  }
  snprintf(name, cap, "%s", alias);
  *range = spec;
}

bool nub_sync_satisfies(const char *spec, const char *alias, const char *name,
                        const char *version)
{
  char want[512];
  const char *range;

  split_alias(spec, alias, want, sizeof(want), &range);
  if (!name || !version || strcmp(want, name))
    return false;
  return nub_semver_satisfies(range, version, true) == 1;
}

static bool is_range(const char *spec)
{
  const char *range = spec;
  char name[512];

  split_alias(spec, "", name, sizeof(name), &range);
  return nub_range_valid(range);
}

static const struct nub_locked *find(const struct nub_locked *l, size_t n, const char *alias)
{
  for (size_t i = 0; i < n; i++)
    if (!strcmp(l[i].alias, alias))
      return &l[i];
  return NULL;
}

bool nub_sync_check(const struct nub_manifest *m, const struct nub_locked *l, size_t n,
                    enum nub_sync_rule rule, char *why, size_t cap)
{
  const struct nub_depmap *maps[3] = {&m->deps, &m->dev, &m->optional};
  static const char *const field[3] = {"dependencies", "devDependencies",
                                       "optionalDependencies"};

  for (int k = 0; k < 3; k++) {
    for (size_t i = 0; i < maps[k]->n; i++) {
      const struct nub_dep *d = &maps[k]->v[i];
      const struct nub_locked *x = find(l, n, d->name);
      bool ranged;
      /* npm: a name in optionalDependencies leaves the other maps */
      if (k == 0 && nub_depmap_get(&m->optional, d->name))
        continue;
      if (k == 1 && (nub_depmap_get(&m->deps, d->name) ||
                     nub_depmap_get(&m->optional, d->name)))
        continue;
      if (!x || !x->present || (rule == NUB_SYNC_SPECIFIER && !x->listed)) {
        snprintf(why, cap, "%s %s@%s is not in the lockfile", field[k], d->name, d->spec);
        return false;
      }
      if (rule == NUB_SYNC_SPECIFIER) {
        if (!x->spec || strcmp(x->spec, d->spec)) {
          snprintf(why, cap, "%s %s changed from '%s' (lockfile) to '%s' (package.json)",
                   field[k], d->name, x->spec ? x->spec : "", d->spec);
          return false;
        }
        continue;
      }
      ranged = is_range(d->spec);
      if (x->spec && !strcmp(x->spec, d->spec) && (!x->name || !ranged))
        continue; /* recorded as asked: links, tags, URLs, git */
      if (x->name && ranged) {
        if (nub_sync_satisfies(d->spec, d->name, x->name, x->version))
          continue;
        snprintf(why, cap, "%s wants %s@%s but the lockfile has %s@%s there", field[k],
                 d->name, d->spec, x->name, x->version ? x->version : "?");
        return false;
      }
      snprintf(why, cap, "%s %s changed from '%s' (lockfile) to '%s' (package.json)",
               field[k], d->name, x->spec ? x->spec : "(nothing)", d->spec);
      return false;
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (!l[i].listed)
      continue;
    const char *peer = nub_depmap_get(&m->peer, l[i].alias);
    /* a project's own peer, installed for it (pnpm records it among the
     * dependencies, with the peer's range as the specifier) */
    if (peer && (!l[i].spec || !strcmp(l[i].spec, peer) ||
                 (l[i].name && nub_sync_satisfies(peer, l[i].alias, l[i].name, l[i].version))))
      continue;
    if (!nub_depmap_get(&m->deps, l[i].alias) && !nub_depmap_get(&m->dev, l[i].alias) &&
        !nub_depmap_get(&m->optional, l[i].alias)) {
      snprintf(why, cap, "%s is in the lockfile but no longer in package.json", l[i].alias);
      return false;
    }
  }
  return true;
}
