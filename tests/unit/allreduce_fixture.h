/* allreduce_fixture.h — one weight-grad all-reduce of S bytes over a 2-dim
 * cluster network with the group spanning g0 x g1 NPUs, every bandwidth pinned
 * by "B1 = b1", "B2 = b2", solved by the library: the iteration time (NAN when
 * it does not solve). Shared by test_cluster.c and test_hw.c, which check it
 * against the collective's time by hand. */
#ifndef WEFT_TEST_ALLREDUCE_FIXTURE_H
#define WEFT_TEST_ALLREDUCE_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../test.h"
#include "weft.h"

static double allreduce_time_ns(const WeftNetwork *net, int g0, int g1, double S,
                                const char *b1, const char *b2) {
  WeftError e;
  WeftCostModel cm;
  memset(&cm, 0, sizeof cm);
  cm.nclasses = 2;  /* the cost is no part of the time */
  for (int d = 0; d < 2; d++) {
    snprintf(cm.cls[d].name, WEFT_NAME_LEN, "%s", net->cost_dim[d]);
    cm.cls[d].link_usd_per_gbps = cm.cls[d].switch_usd_per_gbps = cm.cls[d].nic_usd_per_gbps = 1;
    cm.cls[d].has_link = cm.cls[d].has_switch = cm.cls[d].has_nic = 1;
  }
  WeftCommunicator comm;
  memset(&comm, 0, sizeof comm);
  comm.ndims = 2;
  for (int p = 0; p < WEFT_NPHASES; p++) comm.group[p][0] = g0, comm.group[p][1] = g1;
  WeftWorkload *wl = weft_workload_create();
  WeftLayer l;
  memset(&l, 0, sizeof l);
  l.phase[WEFT_PHASE_WG].coll = WEFT_COLL_ALLREDUCE;
  l.phase[WEFT_PHASE_WG].size_bytes = S;
  weft_workload_add(wl, &l);
  WeftConstraints cons;
  memset(&cons, 0, sizeof cons);
  CHECK_EQ_INT(weft_constraints_parse(&cons, b1, 2, &e), WEFT_OK);
  CHECK_EQ_INT(weft_constraints_parse(&cons, b2, 2, &e), WEFT_OK);
  WeftSpec spec;
  memset(&spec, 0, sizeof spec);
  spec.net = net;
  spec.cost = &cm;
  spec.njobs = 1;
  spec.jobs[0].workload = wl;
  spec.jobs[0].comm = &comm;
  spec.jobs[0].weight = 1.0;
  spec.cons = &cons;
  WeftProblem *p = NULL;
  WeftResult r;
  double t = (double)NAN;
  CHECK_EQ_INT(weft_problem_create(&spec, &p, &e), WEFT_OK);
  if (p && weft_problem_solve(p, NULL, &r) == WEFT_OK && r.status == WEFT_STATUS_SOLVED)
    t = r.eval.time_ns;
  weft_problem_free(p);
  weft_workload_free(wl);
  return t;
}

#endif
