/* bench_topo_scale.c — what `weft topo` does by default (TopoOpt's wiring
 * with the port split chosen by simulation, then every other fabric
 * simulated: ideal switch, Fat-tree of the same cost with 3 tiers when 2
 * cannot hold the servers, expander) at 1,024 and 4,096 servers, d = 8.
 * Targets: 1,024 servers with an AllReduce over all + 4,096 random pairs
 * <= 5 s; DLRM on 1,024 <= 10 s; 4,096 servers <= 60 s; peak memory <= 2 GB.
 * One run each (each takes seconds). The baselines are simulated on every
 * core, as `weft topo` does. The targets are wall time; the CPU time beside
 * it is the work (over all threads). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "common/bench.h"

#define DEGREE 8
#define PAIRS 4096
#define MEM_TARGET_KB (2.0 * 1024 * 1024)

/* An AllReduce of 256 MB over all n servers, PAIRS random distinct pairs of
 * 1 to 100 MB, 1 ms of compute. */
static WeftTraffic *make_traffic(int n, uint64_t seed) {
  BenchRng rng = {seed};
  WeftTraffic *t = weft_traffic_create(n);
  int *m = malloc((size_t)n * sizeof *m);
  if (!t || !m) {
    free(m);
    weft_traffic_free(t);
    return NULL;
  }
  for (int i = 0; i < n; i++) m[i] = i;
  int rc = weft_traffic_add_allreduce(t, m, n, 256e6);
  while (!rc && t->ndemand < PAIRS) {
    int a = (int)(bench_rng_next(&rng) % (uint32_t)n), b = (int)(bench_rng_next(&rng) % (uint32_t)n);
    if (a != b && weft_traffic_demand(t, a, b) == 0)
      rc = weft_traffic_add_demand(t, a, b, 1e6 * (double)(1 + bench_rng_next(&rng) % 100));
  }
  t->compute_ns = 1e6;
  free(m);
  if (rc) {
    weft_traffic_free(t);
    return NULL;
  }
  return t;
}

static double cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The whole command on traffic t; the slowest fabric's time into *worst_ms,
 * TopoOpt's ring ports into *ar. */
static int run_topo(const WeftTraffic *t, double *worst_ms, int *ar) {
  int n = t->nservers, rc;
  WeftTopoSettings s;
  weft_topo_settings_default(&s);
  s.degree = DEGREE;
  WeftPrices p;
  weft_topo_prices_default(&p);
  WeftFabric *f[4] = {NULL, NULL, NULL, NULL};
  WeftError err;
  WeftTopoTime tt[4];
  rc = weft_topo_build_best(t, &s, &f[0], ar, &tt[0], &err);
  if (!rc) rc = weft_fabric_switch(n, DEGREE * s.port_gbps, &f[1], &err);
  double nic = DEGREE * s.port_gbps, over = 0, cost = rc ? 0 : weft_fabric_cost(f[0], &p);
  if (!rc && weft_fabric_fattree_at_cost(n, 32, 2, cost, &p, &nic, &over, &f[2], &err)) {
    nic = DEGREE * s.port_gbps;
    over = 0;
    rc = weft_fabric_fattree_at_cost(n, 32, 3, cost, &p, &nic, &over, &f[2], &err);
  }
  if (!rc) rc = weft_fabric_expander(n, DEGREE, s.port_gbps, 1, &f[3], &err);
  *worst_ms = 0;
  const WeftFabric *base[3] = {f[1], f[2], f[3]}; /* TopoOpt's time came with it */
  if (!rc) rc = weft_fabric_simulate_many(base, 3, t, 0, &tt[1], &err);
  for (int k = 0; !rc && k < 4; k++)
    if (tt[k].time_ns / 1e6 > *worst_ms) *worst_ms = tt[k].time_ns / 1e6;
  if (rc) printf("FAIL: %s\n", err.msg);
  for (int k = 0; k < 4; k++) weft_fabric_free(f[k]);
  return rc;
}

static int timed(const char *name, const WeftTraffic *t, double target_ns) {
  double worst, t0 = bench_now_ns(), c0 = cpu_ns();
  int ar = 0;
  if (!t || run_topo(t, &worst, &ar)) return -1;
  double dt = bench_now_ns() - t0, dc = cpu_ns() - c0;
  printf("  (best split: %d of %d ports to rings; slowest fabric %.3f ms of iteration; "
         "cpu %.2f s)\n", ar, DEGREE, worst, dc / 1e9);
  return bench_report(name, dt, target_ns);
}

int main(void) {
  int pass = 0, targets = 0, r;
  printf("bench_topo_scale: weft topo's work (build + 4 fabrics simulated), d = %d\n", DEGREE);
  WeftTraffic *t = make_traffic(1024, 42);
  r = timed("1024 servers, AllReduce + 4096 pairs", t, 5e9);
  weft_traffic_free(t);
  if (r < 0) return 1;
  pass += r, targets++;

  WeftModel m;
  WeftDevice dev;
  WeftError err;
  t = NULL;
  if (weft_zoo_model("data/zoo", "dlrm", &m, &err) || weft_zoo_device("data/zoo", "a100", &dev, &err) ||
      weft_traffic_from_model(&m, &dev, 1024, 1, NULL, &t, &err)) {
    printf("FAIL dlrm: %s (run from the repository root)\n", err.msg);
    return 1;
  }
  r = timed("dlrm, 1024 servers", t, 10e9);
  weft_traffic_free(t);
  if (r < 0) return 1;
  pass += r, targets++;

  t = make_traffic(4096, 43);
  r = timed("4096 servers, AllReduce + 4096 pairs", t, 60e9);
  weft_traffic_free(t);
  if (r < 0) return 1;
  pass += r, targets++;

  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  int mem_ok = (double)ru.ru_maxrss <= MEM_TARGET_KB;
  printf("  %-44s %10.0f MB  %s (target <= 2048 MB)\n", "peak memory (max RSS)",
         (double)ru.ru_maxrss / 1024, mem_ok ? "PASS" : "MISS");
  pass += mem_ok, targets++;
  printf("bench_topo_scale: %d of %d targets met\n", pass, targets);
  return 0;
}
