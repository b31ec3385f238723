/* split.c — the port split of TopologyFinder as a choice: in proportion to
 * the AllReduce bytes, every port to rings (the public TopoOpt code's), or
 * the fastest split by simulation, found by branch and bound on the
 * link-load estimate (a proven lower bound on the simulated time). The
 * candidates share their matching rounds (finder.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topo/finder.h"

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

/* The public entry: TopologyFinder with the settings' split (finder.c), or
 * the best split when ar_degree asks for it. */
int weft_topo_build(const WeftTraffic *t, const WeftTopoSettings *s, WeftFabric **out,
                    WeftError *err) {
  if (s && s->ar_degree == WEFT_AR_DEGREE_BEST)
    return weft_topo_build_best(t, s, out, NULL, NULL, err);
  return finder_build(t, s, NULL, out, err);
}

/* One split, fixed. */
static int build_one(const WeftTraffic *t, const WeftTopoSettings *s, int ar, WeftFabric **out,
                     int *ar_ports, WeftError *err) {
  WeftTopoSettings c = *s;
  c.ar_degree = ar;
  int rc = weft_topo_build(t, &c, out, err);
  if (!rc && ar_ports) *ar_ports = ring_ports(*out);
  return rc;
}

/* Every even split wired (an unwirable one skipped) and bounded into c[];
 * *nc of them. WEFT_ENOMEM, or the last split's error when none wires. */
static int candidates(const WeftTraffic *t, const WeftTopoSettings *s, Cand *c, int *nc,
                      WeftError *err) {
  FinderMemo *memo = finder_memo_create();
  int rc = memo ? WEFT_OK : WEFT_ENOMEM, last_rc = WEFT_OK;
  WeftError last;
  weft_error_clear(&last);
  *nc = 0;
  /* from all rings down: each split's matching rounds extend the previous one's */
  for (int ar = s->degree - s->degree % 2; ar >= 0 && rc != WEFT_ENOMEM; ar -= 2) {
    WeftTopoSettings cs = *s;
    cs.ar_degree = ar;
    WeftFabric *f = NULL;
    WeftTopoTime est;
    rc = finder_build(t, &cs, memo, &f, &last);
    if (!rc) rc = weft_fabric_estimate(f, t, &est, &last);
    if (rc) { /* this split cannot be wired (e.g. matchings alone disconnected): skip it */
      weft_fabric_free(f);
      last_rc = rc;
      if (rc != WEFT_ENOMEM) rc = WEFT_OK;
      continue;
    }
    c[*nc].ar = ar;
    c[*nc].f = f;
    c[(*nc)++].bound_ns = est.time_ns;
  }
  finder_memo_free(memo);
  if (rc != WEFT_ENOMEM && *nc > 0) return WEFT_OK;
  for (int i = 0; i < *nc; i++) weft_fabric_free(c[i].f);
  *nc = 0;
  if (err && last.msg[0]) *err = last;
  return rc == WEFT_ENOMEM ? WEFT_ENOMEM : last_rc ? last_rc : WEFT_EINPUT;
}

int weft_topo_build_split(const WeftTraffic *t, const WeftTopoSettings *s, WeftPortSplit split,
                          WeftFabric **out, int *ar_ports, WeftError *err) {
  weft_error_clear(err);
  if (!out || !t || !s)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no traffic, settings or output");
  *out = NULL;
  int even = s->degree - s->degree % 2;
  switch (split) {
    case WEFT_PORT_SPLIT_PROPORTIONAL:
      return build_one(t, s, s->ar_degree >= 0 ? s->ar_degree : WEFT_AR_DEGREE_PROPORTIONAL, out,
                       ar_ports, err);
    case WEFT_PORT_SPLIT_RINGS:
      return build_one(t, s, even >= 2 ? even : WEFT_AR_DEGREE_PROPORTIONAL, out, ar_ports, err);
    case WEFT_PORT_SPLIT_BEST: return weft_topo_build_best(t, s, out, ar_ports, NULL, err);
    default:
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "port_split", "unknown port split %d",
                            (int)split);
  }
}

int weft_topo_build_best(const WeftTraffic *t, const WeftTopoSettings *s, WeftFabric **out,
                         int *ar_ports, WeftTopoTime *time, WeftError *err) {
  weft_error_clear(err);
  if (!out || !t || !s)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no traffic, settings or output");
  *out = NULL;
  if (s->degree < 1 || s->degree > WEFT_TOPO_MAX_DEGREE)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "degree",
                          "degree %d out of range (1 to %d ports per server)", s->degree,
                          WEFT_TOPO_MAX_DEGREE);
  Cand c[WEFT_TOPO_MAX_DEGREE / 2 + 1];
  int nc = 0, rc = candidates(t, s, c, &nc, err);
  if (rc) return rc;
  qsort(c, (size_t)nc, sizeof *c, by_bound);
  int best = -1;
  WeftTopoTime best_t;
  memset(&best_t, 0, sizeof best_t);
  best_t.time_ns = HUGE_VAL;
  for (int i = 0; i < nc && rc == WEFT_OK; i++) {
    if (!(c[i].bound_ns < best_t.time_ns)) break; /* no later split can be faster */
    WeftTopoTime sim;
    rc = weft_fabric_simulate(c[i].f, t, &sim, err);
    if (!rc && sim.time_ns < best_t.time_ns) {
      best_t = sim;
      best = i;
    }
  }
  if (!rc && best < 0)  /* every bound or time inf/NaN: nothing to choose */
    rc = weft_error_set(err, WEFT_EINPUT, "", 0, 0, "degree",
                        "no port split of %d ports gives a finite iteration time", s->degree);
  for (int i = 0; i < nc; i++)
    if (i != best || rc) weft_fabric_free(c[i].f);
  if (rc) return rc;
  *out = c[best].f;
  if (ar_ports) *ar_ports = ring_ports(*out);
  if (time) *time = best_t;
  return WEFT_OK;
}
