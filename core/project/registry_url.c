/* registry_url.c - where packages live on a registry; see registry_url.h. */
#include "registry_url.h"

#include <string.h>

#include "nub_alloc.h"
#include "path.h"

char *nub_tarball_url_on(const char *reg, const char *name, const char *version)
{
  const char *base = strrchr(name, '/');

  /* "@s/n" is "@s%2fn" in packument paths but stays "@s/n" in tarball paths */
  return nub_asprintf("%s%s/-/%s-%s.tgz", reg, name, base ? base + 1 : name, version);
}

char *nub_registry_tarball_url(const struct nub_config *cfg, const char *name,
                               const char *version)
{
  const char *reg = nub_config_registry_for(cfg, name);

  return reg ? nub_tarball_url_on(reg, name, version) : NULL;
}

char *nub_rewrite_registry_url(const struct nub_config *cfg, const char *name,
                               const char *url)
{
  const char *reg = nub_config_registry_for(cfg, name);
  const char *def = cfg->default_registry;
  size_t dl;

  if (!reg || !def || !strcmp(reg, def))
    return nub_strdup(url);
  dl = strlen(def);
  if (!strncmp(url, def, dl))
    return nub_asprintf("%s%s", reg, url + dl);
  /* the same host over plain http is the same registry to npm */
  if (!strncmp(def, "https://", 8) && !strncmp(url, "http://", 7) &&
      !strncmp(url + 7, def + 8, dl - 8))
    return nub_asprintf("%s%s", reg, url + 7 + (dl - 8));
  return nub_strdup(url);
}

char *nub_pkg_tarball_url(const struct nub_config *cfg, const char *project_dir,
                          const char *name, const char *version, const char *tarball)
{
  char *abs, *url;

  if (!tarball)
    return nub_registry_tarball_url(cfg, name, version);
  if (!strncmp(tarball, NUB_LOCAL_DIR, strlen(NUB_LOCAL_DIR))) {
    abs = nub_project_path(project_dir, tarball + strlen(NUB_LOCAL_DIR));
    url = nub_asprintf("%s%s", NUB_LOCAL_DIR, abs);
    nub_free(abs);
    return url;
  }
  if (strncmp(tarball, "file:", 5))
    return nub_strdup(tarball);
  abs = nub_project_path(project_dir, tarball + 5);
  url = nub_asprintf("file:%s", abs);
  nub_free(abs);
  return url;
}
