/* bench_point.c — one co-design point's solver share: create + solve + free
 * of a small problem built in memory (4 dims, a compact workload), over
 * shapes, parallelizations, constraint sets and objectives. Target 6 us. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bench.h"

#define REPS 300
#define WARMUP 20
#define TARGET_NS 6e3  /* the co-design loop's budget for create + solve */

/* GPT-3 175B-like model: enough to give sizes and times their real scale. */
#define HIDDEN 12288.0
#define LAYERS 96
#define SEQ 2048.0
#define GLOBAL_BATCH 1536
#define BYTES 2.0             /* bf16 */
#define FLOPS_PER_NS 150e3    /* 150 TFLOP/s achieved */

static const int SHAPES[][4] = {{4, 8, 4, 32}, {2, 8, 8, 32}, {4, 4, 8, 32}, {8, 8, 4, 16}};
/* tp, pp, dp; zero (ZeRO-3 all-gathers on the dp group) */
static const int PARS[][4] = {{16, 1, 256, 0}, {8, 4, 128, 1}, {4, 8, 128, 0},
                              {32, 4, 32, 1},  {2, 16, 128, 0}};
#define NSHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])
#define NPARS (int)(sizeof PARS / sizeof PARS[0])

/* Constraint sets; the last is for perf only (perf-per-cost needs a scale). */
static const char *const CONS_SETS[][5] = {
    {"sum = 1000", NULL},
    {"sum = 1000", "B1 = 500", "B1 >= B2 >= B3", "B3 + B4 = 200", NULL},
    {"cost <= 3e7", NULL},
};
#define NCONS_SETS 3

typedef struct {
  WeftNetwork net;
  WeftCostModel cost;
  WeftCommunicator comm;
  WeftWorkload *wl;
  WeftConstraints cons;
  WeftSpec spec;
  char label[96];
} Point;

/* Lay groups of the given sizes on the dims innermost first (LIBRA's
 * communicator). Returns 0, or -1 when a size does not factor. */
static int map_groups(const int *npus, int ndims, const int *sizes, int ngroups,
                      int (*out)[WEFT_MAX_DIMS]) {
  int rem[WEFT_MAX_DIMS];
  for (int d = 0; d < ndims; d++) rem[d] = npus[d];
  for (int g = 0; g < ngroups; g++) {
    int need = sizes[g];
    for (int d = 0; d < ndims; d++) {
      out[g][d] = -1;
      if (need == 1 || rem[d] == 1) continue;
      int take = need % rem[d] == 0 ? rem[d] : rem[d] % need == 0 ? need : 0;
      if (!take) return -1;
      out[g][d] = take;
      rem[d] /= take;
      need /= take;
    }
    if (need != 1) return -1;
  }
  return 0;
}

static void add_layer(WeftWorkload *wl, const char *name, const double *compute_ns,
                      const WeftCollective *coll, const double *bytes, const int *group) {
  WeftLayer l;
  memset(&l, 0, sizeof l);
  snprintf(l.name, sizeof l.name, "%s", name);
  for (int ph = 0; ph < WEFT_NPHASES; ph++) {
    l.phase[ph].compute_ns = compute_ns[ph];
    l.phase[ph].coll = coll[ph];
    l.phase[ph].size_bytes = coll[ph] == WEFT_COLL_NONE ? 0.0 : bytes[ph];
    l.phase[ph].group = group ? group[ph] : 0;
  }
  weft_workload_add(wl, &l);
}

/* The compact workload of one parallelization: the transformer blocks of a
 * stage merged into one entry, the embedding, pipeline p2p and ZeRO-3. */
static int point_build(Point *pt, const int *shape, const int *par, int cons_set,
                       WeftObjective obj) {
  static const char *const classes[4] = {"InterChiplet", "InterPackage", "InterNode", "InterPod"};
  static const double link[4] = {2.00001, 4.00002, 4.00003, 7.80004};
  static const WeftTopology topo[4] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_RING, WEFT_SWITCH};
  memset(pt, 0, sizeof *pt);
  int tp = par[0], pp = par[1], dp = par[2], zero = par[3];
  pt->net.ndims = pt->comm.ndims = 4;
  pt->cost.nclasses = 4;
  for (int d = 0; d < 4; d++) {
    pt->net.topology[d] = topo[d];
    pt->net.npus[d] = shape[d];
    snprintf(pt->net.cost_dim[d], WEFT_NAME_LEN, "%s", classes[d]);
    WeftCostClass *c = &pt->cost.cls[d];
    snprintf(c->name, sizeof c->name, "%s", classes[d]);
    c->link_usd_per_gbps = link[d];
    c->switch_usd_per_gbps = d == 3 ? 18.00004 : 13.00002;
    c->nic_usd_per_gbps = 31.60004;
    c->has_link = 1;
    c->has_switch = c->has_nic = d == 3;
  }
  int sizes[3] = {tp, pp, dp}, g[3][WEFT_MAX_DIMS];
  if (map_groups(shape, 4, sizes, 3, g)) return -1;
  for (int d = 0; d < 4; d++) {
    pt->comm.group[WEFT_PHASE_FWD][d] = pt->comm.group[WEFT_PHASE_IG][d] = g[0][d];
    pt->comm.group[WEFT_PHASE_WG][d] = g[2][d];
  }
  pt->comm.nextra = 2;
  snprintf(pt->comm.extra_name[0], sizeof pt->comm.extra_name[0], "pp");
  snprintf(pt->comm.extra_name[1], sizeof pt->comm.extra_name[1], "dp");
  memcpy(pt->comm.extra[0], g[1], sizeof g[1]);
  memcpy(pt->comm.extra[1], g[2], sizeof g[2]);
  if (!(pt->wl = weft_workload_create())) return -1;
  pt->wl->ngroups = 2;
  snprintf(pt->wl->group_name[0], sizeof pt->wl->group_name[0], "pp");
  snprintf(pt->wl->group_name[1], sizeof pt->wl->group_name[1], "dp");
  double lps = (double)LAYERS / pp, mb = (double)GLOBAL_BATCH / dp;  /* microbatches */
  double act = SEQ * HIDDEN * BYTES;                                  /* per microbatch */
  double params = 12.0 * HIDDEN * HIDDEN * lps / tp;                 /* per NPU */
  double fwd_ns = 2.0 * 12.0 * HIDDEN * HIDDEN * SEQ * lps * mb / tp / FLOPS_PER_NS;
  double blk_c[3] = {fwd_ns, fwd_ns, fwd_ns};
  WeftCollective blk_k[3] = {tp > 1 ? WEFT_COLL_ALLREDUCE : WEFT_COLL_NONE,
                             tp > 1 ? WEFT_COLL_ALLREDUCE : WEFT_COLL_NONE,
                             zero ? WEFT_COLL_REDUCESCATTER : WEFT_COLL_ALLREDUCE};
  double blk_b[3] = {2.0 * act * lps * mb, 2.0 * act * lps * mb, params * BYTES};
  add_layer(pt->wl, "blocks", blk_c, blk_k, blk_b, NULL);
  double emb_c[3] = {fwd_ns / lps / 8, fwd_ns / lps / 8, fwd_ns / lps / 8};
  WeftCollective emb_k[3] = {WEFT_COLL_NONE, WEFT_COLL_NONE, WEFT_COLL_ALLREDUCE};
  double emb_b[3] = {0, 0, 50257.0 * HIDDEN / tp * BYTES};
  add_layer(pt->wl, "embedding", emb_c, emb_k, emb_b, NULL);
  if (pp > 1) {
    double c[3] = {0, 0, 0}, b[3] = {act / tp * mb, act / tp * mb, 0};
    WeftCollective k[3] = {WEFT_COLL_SENDRECV, WEFT_COLL_SENDRECV, WEFT_COLL_NONE};
    int grp[3] = {1, 1, 0};
    add_layer(pt->wl, "pipeline", c, k, b, grp);
  }
  if (zero) {
    double c[3] = {0, 0, 0}, b[3] = {params * BYTES, params * BYTES, 0};
    WeftCollective k[3] = {WEFT_COLL_ALLGATHER, WEFT_COLL_ALLGATHER, WEFT_COLL_NONE};
    int grp[3] = {2, 2, 0};
    add_layer(pt->wl, "zero3", c, k, b, grp);
  }
  WeftError err;
  for (int i = 0; CONS_SETS[cons_set][i]; i++)
    if (weft_constraints_parse(&pt->cons, CONS_SETS[cons_set][i], 4, &err)) return -1;
  pt->spec.net = &pt->net;
  pt->spec.cost = &pt->cost;
  pt->spec.njobs = 1;
  pt->spec.jobs[0].workload = pt->wl;
  pt->spec.jobs[0].comm = &pt->comm;
  pt->spec.jobs[0].weight = 1.0;
  pt->spec.cons = &pt->cons;
  pt->spec.objective = obj;
  pt->spec.loop = WEFT_LOOP_NO_OVERLAP;
  snprintf(pt->label, sizeof pt->label, "%dx%dx%dx%d tp%d pp%d dp%d%s cons%d %s", shape[0],
           shape[1], shape[2], shape[3], tp, pp, dp, zero ? " zero3" : "", cons_set,
           weft_objective_name(obj));
  return 0;
}

/* Time one point: fills the medians of create, solve and create+solve+free. */
static int time_point(const Point *pt, double *t_create, double *t_solve, double *t_point,
                      WeftResult *res) {
  static double tc[REPS], ts[REPS], tp[REPS];
  WeftSettings set;
  weft_settings_default(&set);
  for (int r = -WARMUP; r < REPS; r++) {
    WeftProblem *p = NULL;
    WeftError err;
    double t0 = bench_now_ns();
    int rc = weft_problem_create(&pt->spec, &p, &err);
    double t1 = bench_now_ns();
    if (!rc) rc = weft_problem_solve(p, &set, res);
    double t2 = bench_now_ns();
    weft_problem_free(p);
    double t3 = bench_now_ns();
    if (rc) return rc;
    if (r >= 0) { tc[r] = t1 - t0; ts[r] = t2 - t1; tp[r] = t3 - t0; }
  }
  *t_create = bench_median(tc, REPS);
  *t_solve = bench_median(ts, REPS);
  *t_point = bench_median(tp, REPS);
  return 0;
}

/* bench_point [WEFT [-v]]: the weft path (make bench passes it) is unused;
 * -v lists every point. */
int main(int argc, char **argv) {
  int verbose = argc > 2 && !strcmp(argv[2], "-v");
  enum { MAXP = NSHAPES * NPARS * 5 };
  static double mc[MAXP], ms[MAXP], mp[MAXP];
  int n = 0, bad = 0, iters = 0;
  printf("bench_point: create + solve + free of a co-design point (4 dims, compact workload)\n");
  double sweep0 = bench_now_ns();
  for (int s = 0; s < NSHAPES; s++)
    for (int q = 0; q < NPARS; q++)
      for (int cs = 0; cs < NCONS_SETS; cs++)
        for (int o = 0; o < 2; o++) {
          WeftObjective obj = o ? WEFT_OBJ_PERF_PER_COST : WEFT_OBJ_PERF;
          if (obj == WEFT_OBJ_PERF_PER_COST && cs == 2) continue;
          Point pt;
          WeftResult res;
          if (point_build(&pt, SHAPES[s], PARS[q], cs, obj)) {
            weft_workload_free(pt.wl);
            continue;  /* the parallelization does not map on this shape */
          }
          int rc = time_point(&pt, &mc[n], &ms[n], &mp[n], &res);
          if (rc || res.status != WEFT_STATUS_SOLVED || !(res.gap <= 1e-9)) {
            printf("FAIL %s: %s\n", pt.label, rc ? weft_strerror(rc) : res.message);
            bad++;
          } else if (verbose) {
            printf("  %-52s %6.2f us (create %5.2f, solve %5.2f) %2d it, T %.6f ms\n", pt.label,
                   mp[n] / 1e3, mc[n] / 1e3, ms[n] / 1e3, res.iterations,
                   res.eval.time_ns / 1e6);
          }
          iters += res.iterations;
          weft_workload_free(pt.wl);
          n++;
        }
  double sweep_ns = bench_now_ns() - sweep0;
  if (n == 0) {
    printf("FAIL no point could be built\n");
    return 1;
  }
  double worst = 0.0;
  for (int i = 0; i < n; i++) worst = mp[i] > worst ? mp[i] : worst;
  double avg_iters = (double)iters / n;
  double med_p = bench_median(mp, n);
  printf("%d points (%d failed), %.1f interior-point iterations on average\n", n, bad, avg_iters);
  printf("  create alone, median over points               %10.1f us\n", bench_median(mc, n) / 1e3);
  printf("  solve alone, median over points                %10.1f us\n", bench_median(ms, n) / 1e3);
  printf("  slowest point (its median)                     %10.1f us\n", worst / 1e3);
  printf("  sweep throughput incl. timing overhead         %10.0f points/s\n",
         (double)n * (REPS + WARMUP) / (sweep_ns / 1e9));
  printf("  points/s per core at the median                %10.0f points/s\n", 1e9 / med_p);
  int pass = bench_report("create + solve + free, median over points", med_p, TARGET_NS);
  printf("bench_point: %d of 1 targets met\n", pass);
  return bad ? 1 : 0;
}
