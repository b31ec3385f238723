/* bench_topo.c — TopologyFinder on 1024 servers, d = 8: an AllReduce over
 * all of them and a seeded sparse model-parallel demand (4 partners per
 * server). Target: the whole build (TotientPerms rings, matching rounds,
 * routing index) <= 1 s. */
#include <stdio.h>
#include <stdlib.h>

#include "common/bench.h"

#define NSERVERS 1024
#define DEGREE 8
#define PARTNERS 4       /* model-parallel destinations per server */
#define REPS 5
#define TARGET_NS 1e9    /* the whole build */

static WeftTraffic *make_traffic(uint64_t seed) {
  BenchRng rng = {seed};
  WeftTraffic *t = weft_traffic_create(NSERVERS);
  int *m = malloc(NSERVERS * sizeof *m);
  if (!t || !m) {
    free(m);
    weft_traffic_free(t);
    return NULL;
  }
  for (int i = 0; i < NSERVERS; i++) m[i] = i;
  int rc = weft_traffic_add_allreduce(t, m, NSERVERS, 256e6);
  for (int i = 0; !rc && i < NSERVERS; i++)
    for (int k = 0; !rc && k < PARTNERS; k++) {
      int j = (int)(bench_rng_next(&rng) % NSERVERS);
      if (j != i) rc = weft_traffic_add_demand(t, i, j, 1e6 * (1.0 + 99.0 * bench_rng_unif(&rng)));
    }
  free(m);
  if (rc) {
    weft_traffic_free(t);
    return NULL;
  }
  return t;
}

/* Median build time over REPS; the last fabric's figures into *f_out. */
static int time_build(const WeftTraffic *t, int ar_degree, double *median_ns, int *nstrides,
                      int *nmp) {
  WeftTopoSettings s;
  weft_topo_settings_default(&s);
  s.degree = DEGREE;
  s.ar_degree = ar_degree;
  double times[REPS];
  for (int r = 0; r < REPS; r++) {
    WeftFabric *f = NULL;
    WeftError err;
    double t0 = bench_now_ns();
    int rc = weft_topo_build(t, &s, &f, &err);
    times[r] = bench_now_ns() - t0;
    if (rc) {
      printf("FAIL build: %s\n", err.msg);
      return 1;
    }
    const int *p;
    *nstrides = weft_fabric_strides(f, &p);
    *nmp = weft_fabric_mp_links(f, &p);
    weft_fabric_free(f);
  }
  *median_ns = bench_median(times, REPS);
  return 0;
}

int main(void) {
  WeftTraffic *t = make_traffic(42);
  if (!t) {
    printf("FAIL cannot build the traffic\n");
    return 1;
  }
  printf("bench_topo: TopologyFinder, %d servers, d = %d, AllReduce over all + %d demand pairs\n",
         NSERVERS, DEGREE, t->ndemand);
  int s[WEFT_TOPO_MAX_DEGREE], diam = 0, pass = 0, targets = 0;
  double times[REPS];
  for (int r = 0; r < REPS; r++) {
    double t0 = bench_now_ns();
    weft_totient_strides(NSERVERS, NSERVERS, 3, s, &diam);
    times[r] = bench_now_ns() - t0;
  }
  printf("  TotientPerms, 3 strides: %d %d %d, diameter %d, %.1f ms\n", s[0], s[1], s[2], diam,
         bench_median(times, REPS) / 1e6);
  int nstr, nmp;
  double med;
  if (time_build(t, 6, &med, &nstr, &nmp)) return 1;
  printf("  ar_degree 6: %d strides, %d model-parallel links (%d rounds)\n", nstr, nmp,
         DEGREE - 2 * nstr);
  pass += bench_report("build, 3 rings + 2 matching rounds + index", med, TARGET_NS);
  targets++;
  if (time_build(t, -1, &med, &nstr, &nmp)) return 1;
  printf("  proportional split: %d strides, %d model-parallel links (%d rounds)\n", nstr, nmp,
         DEGREE - 2 * nstr);
  printf("  %-44s %10.1f us\n", "build, proportional split", med / 1e3);
  weft_traffic_free(t);
  printf("bench_topo: %d of %d targets met\n", pass, targets);
  return 0;
}
