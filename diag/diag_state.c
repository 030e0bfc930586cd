/* diag_state.c - the sink's state and the helpers every part of diag reads:
 * the clock origin, the lanes, the link events' names. It calls nothing else
 * of diag, so the sinks (report, critical path, trace) can read it without
 * calling back into the driver (diag.c), which calls them. */
#include "diag.h"
#include "diag_int.h"

bool nub_diag_on_;
bool nub_diag_debug_;

struct nub_diag_sink nub__diag;

uint64_t nub_diag_t0(void) { return nub__diag.t0; }

double nub_diag_ms(uint64_t ns)
{
  return ns >= nub__diag.t0 ? (double)(ns - nub__diag.t0) / 1e6 : 0.0;
}

static __thread int tls_lane = -1;

int nub__diag_lane(void)
{
  struct nub_diag_sink *s = &nub__diag;

  if (tls_lane < 0)
    tls_lane = __atomic_add_fetch(&s->next_lane, 1, __ATOMIC_RELAXED);
  return tls_lane;
}

static const char *const link_event_names[NUB_PRIM__COUNT] = {
  [NUB_PRIM_CLONEDIR] = "link_clonedir",
  [NUB_PRIM_REFLINK] = "link_reflink",
  [NUB_PRIM_SMALL_COPY] = "link_macos_small_copy",
  [NUB_PRIM_COPY_RANGE] = "link_copy",
  [NUB_PRIM_COPY] = "link_copy",
  [NUB_PRIM_HARDLINK] = "link_hardlink",
};

const char *nub_diag_link_event_name(enum nub_prim p)
{
  return (unsigned)p < NUB_PRIM__COUNT ? link_event_names[p] : "link_unknown";
}

