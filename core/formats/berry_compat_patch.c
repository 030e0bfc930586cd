/* berry_compat_patch.c - the texts of yarn berry's builtin compat patches
 * (berry.h), decoded from the table ci/gen-berry-patches.sh writes. */
#include <errno.h>
#include <libdeflate.h>
#include <stdint.h>
#include <string.h>

#include "berry.h"
#include "nub_alloc.h"

struct nub_compat_patch {
  const char *name;
  const unsigned char *z; /* raw deflate of the lines' form (the header says) */
  size_t zlen;
  size_t rawlen;  /* that form's size */
  size_t textlen; /* the text's */
};

#include "berry_compat_patches.h"

static uint32_t le32(const unsigned char *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int nub_berry_compat_patch(const char *spec, char **text, size_t *len)
{
  static const char prefix[] = NUB_BERRY_BUILTIN "compat/";
  const struct nub_compat_patch *cp = NULL;
  struct libdeflate_decompressor *dd;
  unsigned char *raw;
  const char **line;
  size_t *linelen, got = 0, at, n, u, out = 0;
  enum libdeflate_result r;
  char *t;

  *text = NULL;
  *len = 0;
  for (size_t i = 0; !strncmp(spec, prefix, sizeof(prefix) - 1) &&
                     i < sizeof(nub_compat_patches) / sizeof(*nub_compat_patches); i++) {
    const char *name = nub_compat_patches[i].name, *rest = spec + sizeof(prefix) - 1;
    size_t nl = strlen(name);
    if (!strncmp(rest, name, nl) && !strcmp(rest + nl, ">"))
      cp = &nub_compat_patches[i];
  }
  if (!cp)
    return -ENOENT;
  if (!(dd = libdeflate_alloc_decompressor()))
    return -ENOMEM;
  raw = nub_malloc(cp->rawlen);
  r = libdeflate_deflate_decompress(dd, cp->z, cp->zlen, raw, cp->rawlen, &got);
  libdeflate_free_decompressor(dd);
  n = got >= 8 ? le32(raw) : 0;
  u = got >= 8 ? le32(raw + 4) : 0;
  if (r != LIBDEFLATE_SUCCESS || got != cp->rawlen || 8 + n * 2 > got) {
    nub_free(raw);
    return -EIO;
  }
  /* the distinct lines, each ended by '\n' */
  line = nub_calloc(u + 1, sizeof(*line));
  linelen = nub_calloc(u + 1, sizeof(*linelen));
  at = 8 + n * 2;
  for (size_t k = 0; k < u; k++) {
    const unsigned char *nl = memchr(raw + at, '\n', got - at);
    if (!nl)
      break;
    line[k] = (const char *)raw + at;
    linelen[k] = (size_t)(nl - (raw + at));
    at = (size_t)(nl - raw) + 1;
  }
  t = nub_malloc(cp->textlen + 1);
  for (size_t i = 0; i < n; i++) {
    size_t id = (size_t)raw[8 + i * 2] | (size_t)raw[9 + i * 2] << 8;
    if (id >= u || !line[id] || out + linelen[id] + (i ? 1 : 0) > cp->textlen)
      break;
    if (i)
      t[out++] = '\n';
    memcpy(t + out, line[id], linelen[id]);
    out += linelen[id];
  }
  nub_free(line);
  nub_free(linelen);
  nub_free(raw);
  if (out != cp->textlen) {
    nub_free(t);
    return -EIO;
  }
  t[out] = '\0';
  *text = t;
  *len = out;
  return 0;
}
