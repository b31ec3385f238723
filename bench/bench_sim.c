/* bench_sim.c — the iteration simulator: dim fidelity on LIBRA's GPT-3
 * example (96 layers, 4096 NPUs, 4 dims, 64 chunks: <= 0.5 s) and link
 * fidelity on an 8-layer GPT-3-like transformer on 1024 NPUs (16 chunks:
 * <= 10 s), with events/s and how the cost grows with NPUs and chunks;
 * and the dim-level case under ASTRA-sim 1.0's semantics (<= 0.5 s). */
#include <stdio.h>
#include <string.h>

#include "common/bench.h"

#define TARGET_DIM_NS 0.5e9
#define TARGET_LINK_NS 10e9

static int solve(const WeftSpec *spec, double *bw, double *analytic_ns) {
  WeftProblem *p = NULL;
  WeftError err;
  WeftSettings st;
  WeftResult res;
  weft_settings_default(&st);
  if (weft_problem_create(spec, &p, &err)) {
    printf("FAIL problem: %s\n", err.msg);
    return -1;
  }
  weft_problem_solve(p, &st, &res);
  weft_problem_free(p);
  if (res.status != WEFT_STATUS_SOLVED) return -1;
  memcpy(bw, res.bw_gbps, sizeof res.bw_gbps);
  *analytic_ns = res.eval.time_ns;
  return 0;
}

/* Wall time of one simulation; -1 on failure. */
static double sim_once(const WeftSpec *spec, const double *bw, const WeftSimSettings *s,
                       WeftSimResult *r) {
  WeftError err;
  double t0 = bench_now_ns();
  int rc = weft_simulate(spec, bw, s, r, &err);
  double t1 = bench_now_ns();
  if (rc) {
    char buf[512];
    printf("FAIL simulate: %s\n", weft_error_format(&err, buf, sizeof buf));
    return -1;
  }
  return t1 - t0;
}

static int dim_level(void) {
  const char *path = "data/gpt3_4096npu_4d.yml";
  WeftScenario *sc = weft_scenario_create();
  WeftError err;
  if (!sc || weft_scenario_read(path, sc, &err)) {
    printf("FAIL %s: %s\n", path, sc ? err.msg : "out of memory");
    weft_scenario_free(sc);
    return -1;
  }
  WeftSpec spec;
  weft_scenario_spec(sc, &spec);
  double bw[WEFT_MAX_DIMS], analytic;
  int pass = 0;
  if (solve(&spec, bw, &analytic)) {
    weft_scenario_free(sc);
    return -1;
  }
  WeftSimSettings s;
  weft_sim_settings_default(&s);
  WeftSimResult r;
  printf("dim fidelity: %s (%d layers), at its optimum\n", path, sc->workload[0]->nlayers);
  static const int chunks[] = {1, 64, 1024};
  for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
    s.chunks = chunks[k];
    double t[5];
    int reps = chunks[k] == 64 ? 5 : 1;
    for (int i = 0; i < reps; i++)
      if ((t[i] = sim_once(&spec, bw, &s, &r)) < 0) return -1;
    double med = bench_median(t, reps);
    printf("  chunks %4d: simulated %.6f ms, analytic %.6f ms (%+.4f%%), %llu events, "
           "peak %zu pending, %.1f M events/s\n",
           chunks[k], r.time_ns / 1e6, analytic / 1e6, 100 * (r.time_ns / analytic - 1),
           r.events, r.peak_events, r.events / med * 1e3);
    if (chunks[k] == 64) pass = bench_report("dim fidelity, 64 chunks", med, TARGET_DIM_NS);
  }
  /* The same under ASTRA-sim 1.0's semantics (500 ns per hop, 10 ns endpoint
   * delay): what ASTRA-sim itself takes minutes to hours for. */
  weft_sim_settings_default(&s);
  s.like = WEFT_LIKE_ASTRA1;
  s.endpoint_delay_ns = WEFT_ASTRA_ENDPOINT_NS;
  for (int d = 0; d < spec.net->ndims; d++)
    s.latency_ns[d] = spec.net->topology[d] == WEFT_SWITCH ? 1000 : 500;
  printf("ASTRA-sim semantics (--like astra-sim), 500 ns per hop:\n");
  for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
    s.chunks = chunks[k];
    double t[5];
    int reps = chunks[k] == 64 ? 5 : 1;
    for (int i = 0; i < reps; i++)
      if ((t[i] = sim_once(&spec, bw, &s, &r)) < 0) return -1;
    double med = bench_median(t, reps);
    printf("  chunks %4d: simulated %.6f ms, %llu events, %.3f ms wall\n", chunks[k],
           r.time_ns / 1e6, r.events, med / 1e6);
    if (chunks[k] == 64)
      pass += bench_report("ASTRA-sim semantics, 64 chunks", med, TARGET_DIM_NS);
  }
  weft_scenario_free(sc);
  return pass;
}

static WeftModel transformer(int layers) {
  WeftModel m;
  memset(&m, 0, sizeof m);
  snprintf(m.name, sizeof m.name, "gpt3-like-%d", layers);
  m.arch = WEFT_ARCH_TRANSFORMER;
  m.global_batch = 512;
  m.seq_len = 2048;
  m.layers = layers;
  m.hidden = 12288;
  m.heads = 96;
  m.kv_heads = 96;
  m.ffn_hidden = 4 * 12288;
  m.ffn_matrices = 2;
  m.vocab = 50257;
  return m;
}

/* The transformer on npus[4] (Ring, FullyConnected, Ring, Switch), TP over
 * the first two dims, DP over the rest, simulated at link fidelity. */
static double link_case(const int *npus, int tp, int chunks, int print, WeftSimResult *r) {
  WeftModel m = transformer(8);
  WeftDevice dev;
  memset(&dev, 0, sizeof dev);
  snprintf(dev.name, sizeof dev.name, "a100");
  dev.peak_flops = 312e12;
  dev.hbm_bytes = 80.0 * 1073741824.0;
  dev.hbm_bytes_per_s = 2039e9;
  WeftNetwork net;
  WeftCostModel cm;
  memset(&net, 0, sizeof net);
  memset(&cm, 0, sizeof cm);
  static const WeftTopology topo[4] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_RING, WEFT_SWITCH};
  net.ndims = 4;
  int N = 1;
  for (int d = 0; d < 4; d++) {
    net.npus[d] = npus[d];
    net.topology[d] = topo[d];
    snprintf(net.cost_dim[d], WEFT_NAME_LEN, "c");
    N *= npus[d];
  }
  cm.nclasses = 1;
  snprintf(cm.cls[0].name, WEFT_NAME_LEN, "c");
  cm.cls[0].link_usd_per_gbps = cm.cls[0].switch_usd_per_gbps = cm.cls[0].nic_usd_per_gbps = 1;
  cm.cls[0].has_link = cm.cls[0].has_switch = cm.cls[0].has_nic = 1;
  WeftParallel par;
  weft_parallel_default(&par);
  par.tp = tp;
  par.dp = N / tp;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  if (!wl || weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err)) {
    printf("FAIL generate: %s\n", wl ? err.msg : "out of memory");
    weft_workload_free(wl);
    return -1;
  }
  WeftConstraints cons;
  memset(&cons, 0, sizeof cons);
  weft_constraints_parse(&cons, "B1 + B2 + B3 + B4 = 1000", 4, &err);
  WeftSpec spec = {&net, &cm, 1, {{wl, &comm, 1.0, "job"}}, &cons, WEFT_OBJ_PERF,
                   WEFT_LOOP_NO_OVERLAP};
  double bw[WEFT_MAX_DIMS], analytic, t = -1;
  if (!solve(&spec, bw, &analytic)) {
    WeftSimSettings s;
    weft_sim_settings_default(&s);
    s.fidelity = WEFT_FIDELITY_LINK;
    s.chunks = chunks;
    t = sim_once(&spec, bw, &s, r);
    if (t >= 0 && print)
      printf("  %4d NPUs %dx%dx%dx%d, TP %d, %2d chunks: %8.1f ms wall, %9llu events, %10llu "
             "flows (peak %zu), %.2f M flows/s; simulated %.4f ms vs analytic %.4f ms\n",
             N, npus[0], npus[1], npus[2], npus[3], tp, chunks, t / 1e6, r->events, r->flows,
             r->peak_flows, r->flows / t * 1e3, r->time_ns / 1e6, analytic / 1e6);
  }
  weft_workload_free(wl);
  return t;
}

static int link_level(void) {
  static const int big[4] = {4, 8, 4, 8}, small[4] = {4, 8, 4, 2};
  WeftSimResult r;
  printf("link fidelity: GPT-3-like transformer, 8 layers, no-overlap\n");
  if (link_case(small, 32, 16, 1, &r) < 0) return -1;
  if (link_case(big, 32, 4, 1, &r) < 0) return -1;
  double t = link_case(big, 32, 16, 1, &r);
  if (t < 0) return -1;
  return bench_report("link fidelity, 1024 NPUs, 16 chunks", t, TARGET_LINK_NS);
}

int main(void) {
  printf("bench_sim: iteration simulator\n");
  int a = dim_level(), b = link_level();
  if (a < 0 || b < 0) return 1;
  printf("bench_sim: %d of 3 targets met\n", a + b);
  return 0;
}
