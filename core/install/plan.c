/* plan.c - package identities, and the fetch phase that makes the plan's
 * packages present in the store. */
#include "plan.h"

#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "link_hoisted.h"
#include "install_ctx.h"
#include "nub_alloc.h"
#include "nub_plat.h"
#include "patching.h"
#include "registry.h"
#include "registry_url.h"

struct nub_pkg *nub_plan_identity(struct nub_install_ctx *c, const char *name,
                                  const char *version, const char *tarball,
                                  const char *integrity)
{
  char *url = nub_pkg_tarball_url(&c->s->cfg, c->s->proj.dir, name, version, tarball);
  struct nub_pkg *p = nub_pkgtab_get(&c->plan.pkgs, name, version, url, integrity);

  nub_free(url);
  return p;
}

/* A version's document later than this, and its packument is asked for
 * too: most come in tens of milliseconds, a few take a second (the
 * registry's cache does not hold them as it holds packuments). */
#define HEDGE_MS 300

/* Packages whose lockfile pins no integrity (yarn berry's) that the store
 * does not have: their downloads start at once, beside the registry's
 * documents of those versions (a few kilobytes each, where a packument may
 * be megabytes), asked for all at once; each download is checked when its
 * document's integrity is in (fetch.h). */
static int registry_integrities(struct nub_install_ctx *c, struct nub_fetch *f,
                                struct nub_pkg **v, size_t n, struct nub_err *err)
{
  struct nub_plan *p = &c->plan;
  size_t want = 0;
  uint64_t t0;
  int rc = 0;

  for (size_t i = 0; i < n; i++)
    want += !v[i]->index && v[i]->registry_integrity && !v[i]->integrity_known;
  if (!want)
    return 0;
  if (!p->meta) {
    struct nub_meta_opts mo = {c->o->offline, c->o->prefer_offline, 0, false};
    rc = nub_meta_new(&p->meta, &c->s->cfg, c->pool, &c->prog, &mo, err);
    if (rc < 0)
      return rc;
  }
  t0 = nub_plat_now_ns();
  for (size_t i = 0; i < n; i++)
    if (!v[i]->index && v[i]->registry_integrity && !v[i]->integrity_known)
      nub_meta_want_version(p->meta, v[i]->name, v[i]->version);
  /* one client for both, when the documents are not all cached */
  if (!c->o->offline) {
    struct nub_err e2;
    struct nub_http *h = nub_meta_http(p->meta, &e2);
    if (h)
      nub_fetch_use_http(f, h);
  }
  for (size_t i = 0; i < n; i++)
    if (!v[i]->index && v[i]->registry_integrity && !v[i]->integrity_known)
      nub_fetch_add(f, v[i]);
  for (size_t i = 0; i < n && rc == 0; i++) {
    struct nub_pkg *k = v[i];
    const struct nub_packument *doc;
    const struct nub_pversion *pv;
    if (k->index || !k->registry_integrity || k->integrity_known)
      continue;
    rc = nub_meta_get_version(p->meta, k->name, k->version, HEDGE_MS, &pv, err);
    if (rc == 0 && !pv) { /* the packument may be a stale copy */
      rc = nub_meta_refetch(p->meta, k->name, &doc, err);
      if (rc == 0)
        pv = nub_packument_version(doc, k->version);
    }
    if (rc == 0 && !pv)
      rc = nub_err_set(err, -NUB_ENOVERSION, "%s@%s is in %s but not on the registry (%s)",
                       k->name, k->version, p->lockname ? p->lockname : "the lockfile",
                       c->s->cfg.registry ? c->s->cfg.registry : "none configured");
    if (rc == 0 && !pv->integrity &&
        !nub_config_bool(&c->s->cfg, "allow-missing-integrity", false))
      rc = nub_err_set(err, -NUB_EINTEGRITY, "the registry gives no integrity for %s@%s, so "
                       "its download cannot be checked; set allow-missing-integrity=true to "
                       "install it unchecked", k->name, k->version);
    if (rc == 0)
      nub_fetch_set_integrity(f, k, pv->integrity);
  }
  if (rc < 0)
    nub_fetch_cancel(f, err);
  nub_diag_debugf("integrity from the registry's documents: %zu packages in %.1f ms", want,
                  (double)(nub_plat_now_ns() - t0) / 1e6);
  return rc;
}

int nub_plan_fetch(struct nub_install_ctx *c, struct nub_fetch_result *fr, struct nub_err *err)
{
  struct nub_plan *p = &c->plan;
  struct nub_fetch_opts fo;
  struct nub_fetch *f = p->fetch;
  int rc;

  memset(fr, 0, sizeof(*fr));
  p->fetch = NULL;
  nub_install_fetch_opts(c, &fo);
  if (c->early) { /* the layout links what is stored as it is (hoisted.h) */
    fo.on_stored = nub_hoisted_early_stored;
    fo.on_stored_ud = c->early;
  }
  if (!f) {
    rc = nub_fetch_begin(&f, &c->store, &c->s->cfg, c->pool, &c->prog, &fo,
                         p->meta ? nub_meta_http(p->meta, err) : NULL, err);
    if (rc < 0)
      return rc;
  }
  {
    struct nub_pkg **need = nub_malloc(sizeof(*need) * (p->pkgs.n + 1));
    size_t n = 0;
    for (size_t i = 0; i < p->pkgs.n; i++)
      if (p->pkgs.v[i]->needed && !p->pkgs.v[i]->base) /* (a patched copy is made, not fetched) */
        need[n++] = p->pkgs.v[i];
    nub_fetch_probe(f, need, n);
    rc = registry_integrities(c, f, need, n, err);
    if (rc == 0)
      nub_fetch_add_all(f, need, n);
    nub_free(need);
  }
  {
    /* a failure above is the fetch's too (nub_fetch_cancel): it ends with it */
    struct nub_err e2;
    int frc = nub_fetch_end(f, fr, rc < 0 ? &e2 : err);
    if (rc == 0)
      rc = frc;
  }
  /* a tarball that is not where its metadata says, or unlike the
   * integrity it gives: the metadata may be what is wrong (a corrupted or
   * stale document in the cache), so the next run asks the registry again */
  for (size_t i = 0; p->meta && i < p->pkgs.n; i++)
    if (p->pkgs.v[i]->fail_code == -NUB_EINTEGRITY || p->pkgs.v[i]->fail_code == -NUB_ENOTFOUND)
      nub_meta_forget(p->meta, p->pkgs.v[i]->name);
  if (rc < 0)
    return rc;
  /* what failed: left out when it is optional in the final plan, else the
   * install fails on the first one, with its own message */
  for (size_t i = 0; i < p->pkgs.n; i++) {
    struct nub_pkg *k = p->pkgs.v[i];
    if (!k->failed || !k->needed || k->optional)
      continue;
    return nub_err_set(err, k->fail_code, "%s", k->fail_msg ? k->fail_msg : "fetch failed");
  }
  for (size_t i = 0; i < p->pkgs.n; i++) {
    struct nub_pkg *k = p->pkgs.v[i];
    if (k->failed && k->needed)
      nub_progress_warn(&c->prog, "skipping optional dependency %s@%s: %s", k->name,
                        k->version, k->fail_msg ? k->fail_msg : "fetch failed");
  }
  return nub_patching_apply(c, err);
}

int nub_plan_stage_lock(struct nub_install_ctx *c, struct nub_buf *bytes, struct nub_err *err)
{
  struct nub_plan *p = &c->plan;

  nub_buf_release(&p->lock_bytes);
  p->lock_bytes = *bytes;
  *bytes = (struct nub_buf)NUB_BUF_INIT;
  p->lock_staged = true;
  return c->o->lockfile_only ? nub_plan_commit_lock(c, err) : 0;
}

int nub_plan_commit_lock(struct nub_install_ctx *c, struct nub_err *err)
{
  struct nub_plan *p = &c->plan;
  char *old = NULL, *path;
  size_t oldlen = 0;
  int rc = 0;

  if (!p->lock_staged)
    return 0;
  p->lock_staged = false;
  if (nub_plat_read_file_at(c->s->proj.dir_fd, p->lockname, 1u << 30, &old, &oldlen) == 0 &&
      oldlen == p->lock_bytes.len && !memcmp(old, p->lock_bytes.data, oldlen)) {
    nub_free(old);
    return 0;
  }
  nub_free(old);
  path = nub_asprintf("%s/%s", c->s->proj.dir, p->lockname);
  rc = nub_plat_write_file_atomic(path, p->lock_bytes.data ? p->lock_bytes.data : "",
                                  p->lock_bytes.len, 0644);
  if (rc < 0)
    nub_err_set(err, rc, "cannot write %s: %s", path, nub_strerror(rc));
  else
    p->lock_written = true;
  nub_free(path);
  return rc;
}

void nub_plan_release(struct nub_plan *p)
{
  if (p->fetch) {
    struct nub_fetch_result fr;
    struct nub_err e;
    nub_fetch_end(p->fetch, &fr, &e);
  }
  if (p->meta)
    nub_meta_free(p->meta);
  if (p->have_tree)
    nub_tree_release(&p->tree);
  if (p->have_graph)
    nub_graph_release(&p->graph);
  nub_pkgtab_release(&p->pkgs);
  nub_buf_release(&p->lock_bytes);
  memset(p, 0, sizeof(*p));
}
