/* split.c — the port split of TopologyFinder as a choice: in proportion to
 * the AllReduce bytes, every port to rings (the public TopoOpt code's), or
 * the fastest split by simulation, found by branch and bound on the
 * link-load estimate (a proven lower bound on the simulated time). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

typedef struct {
  int ar;            /* ring ports */
  WeftFabric *f;
  double bound_ns;   /* weft_fabric_estimate's time: <= the simulated one */
} Cand;

static int by_bound(const void *a, const void *b) {
  const Cand *x = a, *y = b;
  if (x->bound_ns != y->bound_ns) return x->bound_ns < y->bound_ns ? -1 : 1;
  return y->ar - x->ar; /* ties: more ring ports first */
}

/* Ring ports a server gives a TopoOpt fabric: two per stride (rings both ways). */
static int ring_ports(const WeftFabric *f) {
  const int *strides;
  return 2 * weft_fabric_strides(f, &strides);
}

static int build_with(const WeftTraffic *t, const WeftTopoSettings *s, int ar, WeftFabric **out,
                      WeftError *err) {
  WeftTopoSettings c = *s;
  c.ar_degree = ar;
  return weft_topo_build(t, &c, out, err);
}

int weft_topo_build_split(const WeftTraffic *t, const WeftTopoSettings *s, WeftPortSplit split,
                          WeftFabric **out, int *ar_ports, WeftError *err) {
  weft_error_clear(err);
  if (!out || !t || !s) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no traffic, settings or output");
  *out = NULL;
  int even = s->degree - s->degree % 2;
  if (split == WEFT_PORT_SPLIT_PROPORTIONAL || (split == WEFT_PORT_SPLIT_RINGS && even < 2)) {
    int rc = weft_topo_build(t, s, out, err);
    if (!rc && ar_ports) *ar_ports = ring_ports(*out);
    return rc;
  }
  if (split == WEFT_PORT_SPLIT_RINGS) {
    int rc = build_with(t, s, even, out, err);
    if (!rc && ar_ports) *ar_ports = even;
    return rc;
  }
  if (split != WEFT_PORT_SPLIT_BEST)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "port_split", "unknown port split %d", (int)split);
  Cand c[WEFT_TOPO_MAX_DEGREE / 2 + 1];
  int nc = 0, rc = WEFT_OK, last_rc = WEFT_OK;
  WeftError last;
  weft_error_clear(&last);
  for (int ar = even; ar >= 0 && rc != WEFT_ENOMEM; ar -= 2) {
    WeftFabric *f = NULL;
    WeftTopoTime est;
    rc = build_with(t, s, ar, &f, &last);
    if (!rc) rc = weft_fabric_estimate(f, t, &est, &last);
    if (rc) { /* this split cannot be wired (e.g. matchings alone disconnected): skip it */
      weft_fabric_free(f);
      last_rc = rc;
      if (rc != WEFT_ENOMEM) rc = WEFT_OK;
      continue;
    }
    c[nc].ar = ar;
    c[nc].f = f;
    c[nc++].bound_ns = est.time_ns;
  }
  if (rc == WEFT_ENOMEM || nc == 0) {
    for (int i = 0; i < nc; i++) weft_fabric_free(c[i].f);
    if (err && last.msg[0]) *err = last;
    return rc == WEFT_ENOMEM ? WEFT_ENOMEM : last_rc ? last_rc : WEFT_EINPUT;
  }
  qsort(c, (size_t)nc, sizeof *c, by_bound);
  int best = -1;
  double best_ns = HUGE_VAL;
  for (int i = 0; i < nc && rc == WEFT_OK; i++) {
    if (!(c[i].bound_ns < best_ns)) break; /* no later split can be faster */
    WeftTopoTime sim;
    rc = weft_fabric_simulate(c[i].f, t, &sim, err);
    if (!rc && sim.time_ns < best_ns) {
      best_ns = sim.time_ns;
      best = i;
    }
  }
  for (int i = 0; i < nc; i++)
    if (i != best || rc) weft_fabric_free(c[i].f);
  if (rc) return rc;
  *out = c[best].f;
  if (ar_ports) *ar_ports = c[best].ar;
  return WEFT_OK;
}
