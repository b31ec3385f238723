/* sim_fixture.h — a one-job network, workload and settings built in code
 * for the simulator's suites (test_sim.c, test_sim_link.c). */
#ifndef WEFT_TEST_SIM_FIXTURE_H
#define WEFT_TEST_SIM_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "../test.h"
#include "weft.h"

typedef struct {
  WeftNetwork net;
  WeftCostModel cm;
  WeftCommunicator comm;
  WeftWorkload *wl;
  WeftSpec spec;
  WeftSimSettings set;
  double bw[WEFT_MAX_DIMS];
} Sim;

/* D dims of npus[] and topo[], every phase's group the whole network. */
static inline void sim_init(Sim *s, int D, const int *npus, const WeftTopology *topo,
                            const double *bw) {
  memset(s, 0, sizeof *s);
  s->net.ndims = D;
  s->cm.nclasses = 1;
  snprintf(s->cm.cls[0].name, WEFT_NAME_LEN, "c");
  s->cm.cls[0].link_usd_per_gbps = s->cm.cls[0].switch_usd_per_gbps =
      s->cm.cls[0].nic_usd_per_gbps = 1.0;
  s->cm.cls[0].has_link = s->cm.cls[0].has_switch = s->cm.cls[0].has_nic = 1;
  for (int d = 0; d < D; d++) {
    s->net.npus[d] = npus[d];
    s->net.topology[d] = topo[d];
    snprintf(s->net.cost_dim[d], WEFT_NAME_LEN, "c");
    s->bw[d] = bw[d];
  }
  s->comm.ndims = D;
  for (int p = 0; p < WEFT_NPHASES; p++)
    for (int d = 0; d < D; d++) s->comm.group[p][d] = npus[d];
  s->wl = weft_workload_create();
  s->spec.net = &s->net;
  s->spec.cost = &s->cm;
  s->spec.njobs = 1;
  s->spec.jobs[0].workload = s->wl;
  s->spec.jobs[0].comm = &s->comm;
  s->spec.jobs[0].weight = 1.0;
  weft_sim_settings_default(&s->set);
  s->set.chunks = 1;
}

/* A layer: compute per phase (fwd, ig, wg), one collective per phase. */
static inline void sim_layer(Sim *s, const double *comp, const WeftCollective *c,
                             const double *bytes) {
  WeftLayer l;
  memset(&l, 0, sizeof l);
  snprintf(l.name, sizeof l.name, "l%d", s->wl->nlayers);
  for (int p = 0; p < WEFT_NPHASES; p++) {
    l.phase[p].compute_ns = comp ? comp[p] : 0.0;
    l.phase[p].coll = c[p];
    l.phase[p].size_bytes = bytes[p];
  }
  weft_workload_add(s->wl, &l);
}

/* One forward collective on the whole network. */
static inline void sim_one(Sim *s, WeftCollective c, double bytes) {
  WeftCollective cs[3] = {c, WEFT_COLL_NONE, WEFT_COLL_NONE};
  double b[3] = {bytes, 0, 0};
  sim_layer(s, NULL, cs, b);
}

static inline double sim_run(Sim *s, WeftSimResult *r) {
  WeftError e;
  int rc = weft_simulate(&s->spec, s->bw, &s->set, r, &e);
  if (rc) fprintf(stderr, "  simulate: %s\n", e.msg);
  CHECK_EQ_INT(rc, 0);
  return rc ? -1.0 : r->time_ns;
}

static inline double analytic(Sim *s) {
  WeftProblem *p = NULL;
  WeftError e;
  WeftEval ev;
  CHECK_EQ_INT(weft_problem_create(&s->spec, &p, &e), 0);
  CHECK_EQ_INT(weft_problem_evaluate(p, s->bw, &ev), 0);
  weft_problem_free(p);
  return ev.time_ns;
}

static inline void sim_free(Sim *s) { weft_workload_free(s->wl); }

#endif
