/* bench_flow.c — the flow engine on a 1024-NPU NPU graph (Ring 4 x FC 8 x
 * Ring 4 x Switch 8, 100 GB/s per dim): steps of flows from every NPU, alone
 * or pipelined per dim. Target: a few hundred ns per flow, all included. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bench.h"

#define REPS 41
#define WARMUP 3
#define TARGET_NS_PER_FLOW 300.0  /* 15 M flows in ~5 s leaves half for the simulator */
#define SIZE_BYTES 1048576.0
#define MAX_HOPS 16
#define STREAM_FLOWS 2000000      /* flows per run of the pipelined case */

typedef struct {
  int nflows, cap;
  int *path;     /* nflows x MAX_HOPS */
  int *nhops;
  double *size;  /* bytes per flow */
} Step;

/* NPU v's coordinate on dim d moved to c. */
static int with_coord(const WeftNetwork *net, int v, int d, int c) {
  int st = 1;
  for (int e = 0; e < d; e++) st *= net->npus[e];
  return v + (c - (v / st) % net->npus[d]) * st;
}

static int coord_of(const WeftNetwork *net, int v, int d) {
  for (int e = 0; e < d; e++) v /= net->npus[e];
  return v % net->npus[d];
}

static int step_add(Step *s, const WeftNetwork *net, int src, int dst, double size) {
  if (s->nflows == s->cap) {
    int cap = s->cap ? 2 * s->cap : 4096;
    int *p = realloc(s->path, (size_t)cap * MAX_HOPS * sizeof *p);
    if (p) s->path = p;
    int *h = realloc(s->nhops, (size_t)cap * sizeof *h);
    if (h) s->nhops = h;
    double *z = realloc(s->size, (size_t)cap * sizeof *z);
    if (z) s->size = z;
    if (!p || !h || !z) return -1;
    s->cap = cap;
  }
  int i = s->nflows++;
  s->nhops[i] = weft_network_route(net, src, dst, s->path + (size_t)i * MAX_HOPS, MAX_HOPS);
  s->size[i] = size;
  return s->nhops[i] > 0 ? 0 : -1;
}

/* Every NPU to its ring neighbours on dim d (ring-style) or to every peer
 * of dim d (direct-style), size x scale(v) bytes each, per NPU v. */
static int step_dim(Step *s, const WeftNetwork *net, int d, int direct, double size, int uneven) {
  int N = (int)weft_network_npus_total(net), n = net->npus[d];
  for (int v = 0; v < N; v++) {
    double b = size * (uneven ? 1.0 + (double)(v % 13) / 13.0 : 1.0);
    int c = coord_of(net, v, d);
    for (int j = 0; j < n; j++) {
      int ring_peer = j == (c + 1) % n || j == (c + n - 1) % n;
      if (j == c || (!direct && !ring_peer)) continue;
      if (step_add(s, net, v, with_coord(net, v, d, j), b)) return -1;
    }
  }
  return 0;
}

static void step_free(Step *s) {
  free(s->path);
  free(s->nhops);
  free(s->size);
  memset(s, 0, sizeof *s);
}

static int step_start(WeftFlowSim *fs, const Step *s, unsigned long long tag) {
  for (int i = 0; i < s->nflows; i++)
    if (weft_flowsim_start(fs, s->path + (size_t)i * MAX_HOPS, s->nhops[i], s->size[i], tag))
      return -1;
  return 0;
}

typedef struct {
  double start_ns, first_ns, run_ns, total_ns;  /* medians per step */
  unsigned long long events;
} Timing;

/* Start the step's flows, the first recompute (next), then run to the end. */
static int time_step(WeftFlowSim *fs, const Step *s, Timing *tm) {
  static double ts[REPS], tf[REPS], tr[REPS], tt[REPS];
  unsigned long long done[512];
  for (int r = -WARMUP; r < REPS; r++) {
    unsigned long long events = 0;
    double t0 = bench_now_ns();
    if (step_start(fs, s, 0)) return -1;
    double t1 = bench_now_ns();
    double t = weft_flowsim_next(fs);
    double t2 = bench_now_ns();
    events++;
    size_t left = (size_t)s->nflows;
    while (left > 0) {
      int k = weft_flowsim_advance(fs, t, done, 512);
      if (k < 0) return -1;
      left -= (size_t)k;
      if (k < 512 && left > 0) {
        events++;
        t = weft_flowsim_next(fs);
      }
    }
    double t3 = bench_now_ns();
    if (r >= 0) {
      ts[r] = t1 - t0;
      tf[r] = t2 - t1;
      tr[r] = t3 - t2;
      tt[r] = t3 - t0;
      tm->events = events;
    }
  }
  tm->start_ns = bench_median(ts, REPS);
  tm->first_ns = bench_median(tf, REPS);
  tm->run_ns = bench_median(tr, REPS);
  tm->total_ns = bench_median(tt, REPS);
  return 0;
}

/* Four streams, one per dim (ring, direct, ring, direct), each starting its
 * next step as soon as its last one ended, sizes differing per stream so
 * they drift apart: the simulator's pattern, many local events. Returns
 * ns per flow, -1 on failure; the completion events and flows run. */
static double run_streams(WeftFlowSim *fs, const Step *st, unsigned long long *events,
                          long long *flows) {
  int pending[4];
  long long started = 0;
  unsigned long long done[512];
  *events = 0;
  double t0 = bench_now_ns();
  for (int k = 0; k < 4; k++) {
    if (step_start(fs, &st[k], (unsigned long long)k)) return -1;
    pending[k] = st[k].nflows;
    started += st[k].nflows;
  }
  while (weft_flowsim_active(fs) > 0) {
    double t = weft_flowsim_next(fs);
    int n;
    (*events)++;
    do {
      if ((n = weft_flowsim_advance(fs, t, done, 512)) < 0) return -1;
      for (int i = 0; i < n; i++) {
        int k = (int)done[i];
        if (--pending[k] == 0 && started < STREAM_FLOWS) {
          if (step_start(fs, &st[k], (unsigned long long)k)) return -1;
          pending[k] = st[k].nflows;
          started += st[k].nflows;
        }
      }
    } while (n == 512);
  }
  *flows = started;
  return (bench_now_ns() - t0) / (double)started;
}

/* bench_flow [WEFT [KIND]]: the weft path (make bench passes it) is unused;
 * KIND 0..4 runs one case alone (for profiling). */
int main(int argc, char **argv) {
  static const char *const names[4] = {"ring step, dim 0 (2 flows/NPU)",
                                       "direct step, dim 1 FC (7 flows/NPU)",
                                       "direct step, dim 3 Switch (7 flows/NPU)",
                                       "all three, uneven sizes (16 flows/NPU)"};
  int only = argc > 2 ? atoi(argv[2]) : -1;
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  static const WeftTopology topo[4] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_RING, WEFT_SWITCH};
  static const int npus[4] = {4, 8, 4, 8};
  double bw[4] = {100.0, 100.0, 100.0, 100.0};
  net.ndims = 4;
  for (int d = 0; d < 4; d++) {
    net.topology[d] = topo[d];
    net.npus[d] = npus[d];
  }
  WeftGraph *g = NULL;
  WeftError err;
  char buf[1024];
  double g0 = bench_now_ns();
  if (weft_network_graph(&net, bw, &g, &err)) {
    printf("FAIL cannot build the graph: %s\n", weft_error_format(&err, buf, sizeof buf));
    return 1;
  }
  double g1 = bench_now_ns();
  printf("bench_flow: flow engine on 1024 NPUs, Ring 4 x FC 8 x Ring 4 x Switch 8, max-min\n");
  printf("  graph: %d nodes, %d links, built in %.1f us\n", weft_graph_nodes(g),
         weft_graph_nlinks(g), (g1 - g0) / 1e3);
  WeftFlowSim *fs = NULL;
  if (weft_flowsim_create(g, WEFT_SHARE_MAXMIN, &fs)) {
    printf("FAIL cannot create the flow engine\n");
    return 1;
  }
  int pass = 0, ntargets = 0, bad = 0;
  double worst_per_flow = 0.0;
  for (int kind = 0; kind < 4; kind++) {
    if (only >= 0 && kind != only) continue;
    Step s = {0};
    Timing tm = {0};
    int rc = 0;
    if (kind == 0 || kind == 3) rc |= step_dim(&s, &net, 0, 0, SIZE_BYTES, kind == 3);
    if (kind == 1 || kind == 3) rc |= step_dim(&s, &net, 1, 1, SIZE_BYTES / 7.0, kind == 3);
    if (kind == 2 || kind == 3) rc |= step_dim(&s, &net, 3, 1, SIZE_BYTES / 7.0, kind == 3);
    if (rc || time_step(fs, &s, &tm)) {
      printf("FAIL %s\n", names[kind]);
      step_free(&s);
      bad = 1;
      continue;
    }
    double per_flow = tm.total_ns / s.nflows;
    if (per_flow > worst_per_flow) worst_per_flow = per_flow;
    printf("  %s: %d flows, %llu completion events\n", names[kind], s.nflows, tm.events);
    printf("    start %.0f ns/flow, first recompute %.0f ns/flow (%.1f us), run to end %.0f ns/flow"
           " (%.1f us per event), %.2f M flows/s\n",
           tm.start_ns / s.nflows, tm.first_ns / s.nflows, tm.first_ns / 1e3,
           tm.run_ns / s.nflows, tm.run_ns / (double)tm.events / 1e3, s.nflows / tm.total_ns * 1e3);
    char label[96];
    snprintf(label, sizeof label, "step of %d flows, start to end", s.nflows);
    pass += bench_report(label, tm.total_ns, TARGET_NS_PER_FLOW * s.nflows);
    ntargets++;
    step_free(&s);
  }
  if (only < 0 || only == 4) {
    Step st[4] = {{0}};
    unsigned long long events = 0;
    long long flows = 0;
    int rc = 0;
    for (int k = 0; k < 4; k++)
      rc |= step_dim(&st[k], &net, k, k % 2, SIZE_BYTES * (1.0 + 0.37 * k) / (k % 2 ? 7.0 : 1.0), 0);
    double per_flow = rc ? -1.0 : run_streams(fs, st, &events, &flows);
    if (per_flow < 0) {
      printf("FAIL pipelined streams\n");
      bad = 1;
    } else {
      if (per_flow > worst_per_flow) worst_per_flow = per_flow;
      printf("  pipelined: a step stream per dim, %lld flows, %llu completion events: %.0f ns/flow,"
             " %.2f M flows/s\n", flows, events, per_flow, 1e3 / per_flow);
      pass += bench_report("1000 flows of the pipelined streams", per_flow * 1000.0,
                           TARGET_NS_PER_FLOW * 1000.0);
      ntargets++;
    }
    for (int k = 0; k < 4; k++) step_free(&st[k]);
  }
  printf("  15 M flows at the slowest rate above: %.2f s\n", worst_per_flow * 15e6 / 1e9);
  printf("bench_flow: %d of %d targets met\n", pass, ntargets);
  weft_flowsim_free(fs);
  weft_graph_free(g);
  return bad;
}
