/* bench_toposearch.c — TopoOpt's alternating optimisation for DLRM on 128
 * servers (d = 4, 100 Gbit/s ports), 1000 strategy moves: <= 60 s. */
#include <stdio.h>
#include <string.h>

#include "common/bench.h"

#define TARGET_NS 60e9

int main(void) {
  WeftModel m;
  WeftDevice dev;
  WeftError err;
  if (weft_zoo_model("data/zoo", "dlrm", &m, &err) || weft_zoo_device("data/zoo", "a100", &dev, &err)) {
    printf("FAIL zoo: %s\n", err.msg);
    return 1;
  }
  WeftTopoSearch s;
  weft_topo_search_default(&s);
  s.model = &m;
  s.dev = &dev;
  s.nservers = 128;
  s.topo.degree = 4;
  s.topo.port_gbps = 100.0 / 8;
  s.iterations = 1000;
  s.rounds = 1; /* all 1000 moves in one annealing round, then one rebuild */
  WeftTopoSearchResult r;
  printf("bench_toposearch: DLRM (26 tables), 128 servers, 4 x 100 Gbit/s, %d moves\n",
         s.iterations);
  double t0 = bench_now_ns();
  int rc = weft_topo_search(&s, &r, &err);
  double t1 = bench_now_ns();
  if (rc) {
    printf("FAIL search: %s\n", err.msg);
    return 1;
  }
  printf("  start %.6f ms -> best %.6f ms (tp %d), %d moves, %d accepted, %d rebuilds, "
         "%.2f ms per move\n",
         r.first_time_ns / 1e6, r.time_ns / 1e6, r.tp, r.iterations, r.accepted, r.rounds,
         (t1 - t0) / 1e6 / (r.iterations ? r.iterations : 1));
  int pass = bench_report("alternating optimisation, 1000 moves", t1 - t0, TARGET_NS);
  weft_fabric_free(r.fabric);
  printf("bench_toposearch: %d of 1 targets met\n", pass);
  return 0;
}
