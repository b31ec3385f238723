/* bench_codesign.c — the co-design inner loop (generate + exact solve) in
 * points per second per core and as the median time of one feasible point,
 * the wall time of a 10,000-point GPT-3 175B codesign on 4096 NPUs with
 * 2 threads, the report's summary (top designs, points that are one design
 * merged) per point, a GB200 NVL72 co-design of DeepSeek-V3 on 18,432
 * GPUs (256 racks; 64 of each 72 working in its variant: 16,384), and one
 * point of a network built of parts under the system cost (whole links, $ per
 * iteration), and the scale-up domain sweep (two models over eight domain
 * sizes in one search); PASS/MISS against the targets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bench.h"

#define ZOO "data/zoo"
#define RATE_TARGET 100e3      /* design points per second per core */
#define WALL_TARGET_NS 1e9     /* 10,000 points on 2 threads */
#define REPS 5                 /* median of */
#define POINT_TARGET_NS 10e3   /* a co-design point, generation + exact solve (median) */
#define POINT_ROUNDS 11        /* each point's time: the median of this many */
#define SUMMARY_TARGET_NS 1e3  /* the summary's share of a point: a tenth of POINT_TARGET_NS */
#define VARIANTS 72            /* 6 orders x 3 recomputations x 4 ZeRO stages per design */
#define NVL72_TARGET_NS 10e9   /* the NVL72 co-design, enumeration to Pareto front, 2 threads */
#define NVL72_RACKS 256        /* 18,432 GPUs; 16,384 working with 64 of 72 per rack */
#define PARTS_TARGET_NS 20e3   /* a point with parts and system cost (issue 22) */

static const char *const CONS[] = {"sum = 1000", "B1 >= B2 >= B3 >= B4"};

typedef struct {
  WeftModel model;
  WeftDevice dev;
  WeftCostModel cost;
  WeftNetwork fixed;     /* data/gpt3/network_4d.yml: 4x8x4x32 */
  WeftNetwork *shapes;   /* the 10,000-point run's shapes */
  size_t nshapes;
  WeftConstraints cons;
} Inputs;

static int load(Inputs *in, WeftError *err) {
  memset(in, 0, sizeof *in);
  int rc = weft_zoo_model(ZOO, "gpt3-175b", &in->model, err);
  if (!rc) rc = weft_zoo_device(ZOO, "a100", &in->dev, err);
  if (!rc) rc = weft_cost_model_read("data/gpt3/cost_4d.yml", &in->cost, err);
  if (!rc) rc = weft_network_read("data/gpt3/network_4d.yml", &in->fixed, err);
  for (size_t i = 0; i < sizeof CONS / sizeof CONS[0] && !rc; i++)
    rc = weft_constraints_parse(&in->cons, CONS[i], 4, err);
  /* Every shape of Ring x FC x Ring x Switch with dims at most 16, 64, 64, 64:
   * 100 shapes (exponents of 2 summing to 12, bounded 4, 6, 6, 6). */
  static const int maxd[4] = {16, 64, 64, 64};
  if (!rc)
    rc = weft_network_shapes(in->fixed.topology, (const char(*)[WEFT_NAME_LEN])in->fixed.cost_dim,
                             4, 4096, maxd, &in->shapes, &in->nshapes, err);
  return rc;
}

static void spec_init(Inputs *in, WeftCodesignSpec *sp, const WeftNetwork *nets, int nnets) {
  memset(sp, 0, sizeof *sp);
  sp->model = &in->model;
  sp->device = &in->dev;
  weft_parallel_default(&sp->base);
  sp->nnets = nnets;
  sp->nets = nets;
  sp->cost = &in->cost;
  sp->cons = &in->cons;
  sp->objective = WEFT_OBJ_PERF;
  sp->loop = WEFT_LOOP_NO_OVERLAP;
  weft_settings_default(&sp->settings);
}

/* Median seconds of evaluating pts[0..n) (fresh copies of tmpl) on threads. */
static double time_run(const WeftCodesignSpec *sp, const WeftDesignPoint *tmpl, size_t n,
                       int threads, WeftDesignPoint *work) {
  double t[REPS];
  WeftRunSettings rs;
  weft_run_settings_default(&rs);
  rs.threads = threads;
  for (int r = 0; r < REPS; r++) {
    memcpy(work, tmpl, n * sizeof *work);
    double t0 = bench_now_ns();
    weft_codesign_run(sp, work, n, &rs, NULL);
    t[r] = (bench_now_ns() - t0) / 1e9;
  }
  return bench_median(t, REPS);
}

/* The median over pts[0..n) of each point's own time: weft_codesign_eval
 * (generation + exact solve, its workload allocated and freed: one point
 * on its own), the points taken in turn each round so none runs right
 * after itself; a point's time is its median over POINT_ROUNDS rounds. */
static double point_median_ns(const WeftCodesignSpec *sp, const WeftDesignPoint *pts, size_t n) {
  double *t = malloc(n * POINT_ROUNDS * sizeof *t), *med = malloc(n * sizeof *med), m = 0.0;
  if (!t || !med) {
    free(t);
    free(med);
    return 0.0;
  }
  for (int r = 0; r < POINT_ROUNDS; r++)
    for (size_t i = 0; i < n; i++) {
      WeftDesignPoint pt = pts[i];
      double t0 = bench_now_ns();
      weft_codesign_eval(sp, &pt);
      t[i * POINT_ROUNDS + (size_t)r] = bench_now_ns() - t0;
    }
  for (size_t i = 0; i < n; i++) med[i] = bench_median(t + i * POINT_ROUNDS, POINT_ROUNDS);
  if (n) m = bench_median(med, (int)n);
  free(t);
  free(med);
  return m;
}

static int rate_line(const char *name, size_t n, double s) {
  double rate = s > 0 ? (double)n / s : 0.0;
  int pass = rate >= RATE_TARGET;
  printf("  %-44s %10.0f pts/s   target >= %6.0f pts/s   %s\n", name, rate, RATE_TARGET,
         pass ? "PASS" : "MISS");
  return pass;
}

/* 4. `weft codesign --model deepseek-v3 --npus 18432 --network N.yml
 * (Cluster: gb200-nvl72, NpusCount: [72, 256]) --ep-list 8,16,32,64 --zero 1
 * --recompute full --all-orders --constraint 'B1 <= 900' --constraint
 * 'B2 <= 50'`: the network and its variant with 64 of 72 working
 * (weft_network_actives), every point, the Pareto front; wall time, median
 * of REPS. The best design must use the domain: 64 of 72 working, TP > 1
 * and EP > 1 both inside the rack (the groups laid innermost multiply to a
 * divisor of 64). Returns 1 on PASS. */
static int nvl72(WeftError *err) {
  static WeftModel model;  /* large: off the stack */
  WeftDevice dev;
  WeftCostModel cost;
  WeftCluster cl;
  WeftNetwork net, *nets = NULL;
  WeftConstraints cons;
  size_t nnets = 0;
  memset(&cons, 0, sizeof cons);
  int rc = weft_zoo_model(ZOO, "deepseek-v3", &model, err);
  if (!rc) rc = weft_zoo_device(ZOO, "gb200", &dev, err);
  if (!rc) rc = weft_cost_model_read("data/validation/cost.yml", &cost, err);
  if (!rc) rc = weft_zoo_cluster(ZOO, "gb200-nvl72", &cl, err);
  if (!rc) rc = weft_cluster_network(&cl, 72 * NVL72_RACKS, &net, err);
  if (!rc) rc = weft_constraints_parse(&cons, "B1 <= 900", 2, err);
  if (!rc) rc = weft_constraints_parse(&cons, "B2 <= 50", 2, err);
  if (rc) {
    printf("bench_codesign: cannot load the NVL72 inputs: %s\n", err->msg);
    return 0;
  }
  WeftCodesignSpec sp;
  memset(&sp, 0, sizeof sp);
  sp.model = &model;
  sp.device = &dev;
  weft_parallel_default(&sp.base);
  sp.nep = 4, sp.ep[0] = 8, sp.ep[1] = 16, sp.ep[2] = 32, sp.ep[3] = 64;
  sp.base.zero_stage = 1;
  sp.base.recompute = WEFT_RECOMPUTE_FULL;
  sp.all_orders = 1;
  sp.cost = &cost;
  sp.cons = &cons;
  sp.objective = WEFT_OBJ_PERF;
  sp.loop = WEFT_LOOP_NO_OVERLAP;
  weft_settings_default(&sp.settings);
  double t[REPS];
  size_t m = 0, nok = 0, best = 0;
  int used = 0;  /* the best design has 64 of 72 working with TP and EP inside the rack */
  for (int r = 0; r < REPS; r++) {
    WeftDesignPoint *pts = NULL;
    double t0 = bench_now_ns();
    if (weft_network_actives(&net, 1, &nets, &nnets, err)) return 0;
    sp.nets = nets;
    sp.nnets = (int)nnets;
    if (weft_codesign_points(&sp, &pts, &m, err)) {
      printf("bench_codesign: cannot enumerate: %s\n", err->msg);
      return 0;
    }
    WeftRunSettings rs;
    weft_run_settings_default(&rs);
    rs.threads = 2;
    weft_codesign_run(&sp, pts, m, &rs, NULL);
    size_t *idx = malloc(m * sizeof *idx);
    if (idx) weft_pareto(pts, m, idx);
    t[r] = bench_now_ns() - t0;
    nok = 0;
    for (size_t i = 0; i < m; i++)
      if (pts[i].status == WEFT_POINT_OK && (!nok++ || pts[i].time_ns < pts[best].time_ns))
        best = i;
    WeftDesignPoint b = nok ? pts[best] : pts[0];
    free(idx);
    free(pts);
    if (r + 1 < REPS) free(nets);
    else {
      const WeftNetwork *bn = &nets[b.net];
      static const char *const nm[] = {"TP", "PP", "DP"};
      /* inside the rack: TP then EP innermost (TP-DP-PP), or EP, EDP, TP (DP-TP-PP) */
      long in = b.par.order[0] == WEFT_PAR_TP ? (long)b.par.tp * b.par.ep
                                              : (long)b.par.dp * b.par.tp;
      used = nok && bn->npus[0] == 64 && bn->spares[0] == 8 && b.par.order[2] == WEFT_PAR_PP &&
             b.par.tp > 1 && b.par.ep > 1 && 64 % in == 0;
      printf("  NVL72: %zu networks, %zu points (%zu ok); best tp %d pp %d dp %d ep %d %s-%s-%s, "
             "%d of %d of each rack working, %.1f ms per iteration\n",
             nnets, m, nok, b.par.tp, b.par.pp, b.par.dp, b.par.ep, nm[b.par.order[0] % 3],
             nm[b.par.order[1] % 3], nm[b.par.order[2] % 3], bn->npus[0],
             bn->npus[0] + bn->spares[0], b.time_ns / 1e6);
      if (!used) printf("  NVL72: MISS: the best design does not use the domain\n");
      free(nets);
    }
  }
  return bench_report("NVL72 DeepSeek-V3 codesign, 18432 GPUs, wall", bench_median(t, REPS),
                      NVL72_TARGET_NS) && used;
}

/* 5. The scale-up domain sweep (docs/search.md, "Several models, best per
 * network file"): `weft codesign --model llama3-405b,deepseek-v3 --device
 * gb200 --npus 18432 --network data/domains/d{8,16,32,36,72,144,288,576}.yml
 * --ep-list 1,8,16,32,64 --tp 1,2,4,8 --zero 1 --recompute full
 * --all-orders`: the files and their variants with spares, both models,
 * every point on 2 threads; wall time, median of REPS (target: as the NVL72
 * co-design's, 10 s). Returns 1 on PASS. */
static int count_ok(void *ctx, size_t first, WeftDesignPoint *pts, size_t n) {
  (void)first;
  for (size_t i = 0; i < n; i++) *(size_t *)ctx += pts[i].status == WEFT_POINT_OK;
  return 0;
}

static int domain_sweep(WeftError *err) {
  static const int dom[8] = {8, 16, 32, 36, 72, 144, 288, 576};
  static WeftModel models[2];
  static WeftNetwork files[8];
  WeftDevice dev;
  WeftCostModel cost;
  WeftConstraints cons;
  memset(&cons, 0, sizeof cons);
  int rc = weft_zoo_model(ZOO, "llama3-405b", &models[0], err);
  if (!rc) rc = weft_zoo_model(ZOO, "deepseek-v3", &models[1], err);
  if (!rc) rc = weft_zoo_device(ZOO, "gb200", &dev, err);
  if (!rc) rc = weft_cost_model_read("data/validation/cost.yml", &cost, err);
  for (int k = 0; k < 8 && !rc; k++) {
    char path[64];
    snprintf(path, sizeof path, "data/domains/d%d.yml", dom[k]);
    rc = weft_network_read_zoo(path, ZOO, &files[k], err);
  }
  if (!rc) rc = weft_constraints_parse(&cons, "B1 = 900", 2, err);
  if (!rc) rc = weft_constraints_parse(&cons, "B2 = 50", 2, err);
  if (rc) {
    printf("bench_codesign: cannot load the domain sweep's inputs: %s\n", err->msg);
    return 0;
  }
  WeftCodesignSpec sp;
  memset(&sp, 0, sizeof sp);
  sp.model = &models[0];
  sp.nmodels = 2;
  sp.models = models;
  sp.device = &dev;
  weft_parallel_default(&sp.base);
  sp.base.zero_stage = 1;
  sp.base.recompute = WEFT_RECOMPUTE_FULL;
  sp.all_orders = 1;
  sp.ntp = 4, sp.tp[0] = 1, sp.tp[1] = 2, sp.tp[2] = 4, sp.tp[3] = 8;
  static const int eps[5] = {1, 8, 16, 32, 64};
  sp.nep = 5;
  memcpy(sp.ep, eps, sizeof eps);
  sp.cost = &cost;
  sp.cons = &cons;
  sp.objective = WEFT_OBJ_PERF;
  sp.loop = WEFT_LOOP_NO_OVERLAP;
  weft_settings_default(&sp.settings);
  double t[REPS];
  size_t m = 0, nok = 0;
  for (int r = 0; r < REPS; r++) {
    WeftNetwork *nets = NULL;
    size_t nnets = 0;
    double t0 = bench_now_ns();
    if (weft_network_actives(files, 8, &nets, &nnets, err)) return 0;
    sp.nets = nets;
    sp.nnets = (int)nnets;
    WeftRunSettings rs;
    weft_run_settings_default(&rs);
    rs.threads = 2;
    nok = 0;
    rc = weft_codesign_stream(&sp, &rs, 0, count_ok, &nok, err); /* as the CLI: chunk by chunk */
    t[r] = bench_now_ns() - t0;
    if (!rc) rc = weft_codesign_count(&sp, &m, err);
    free(nets);
    if (rc) {
      printf("bench_codesign: the domain sweep failed: %s\n", err->msg);
      return 0;
    }
  }
  printf("  domain sweep: 2 models x 8 domain sizes (and their variants), %zu points (%zu ok)\n",
         m, nok);
  return bench_report("domain sweep 8..576, 2 models, 18432 GPUs, wall", bench_median(t, REPS),
                      NVL72_TARGET_NS);
}

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  Inputs in;
  WeftError err;
  if (load(&in, &err)) {
    char buf[1024];
    printf("bench_codesign: cannot load inputs: %s\n", weft_error_format(&err, buf, sizeof buf));
    return 1;
  }
  printf("bench_codesign: GPT-3 175B on 4096 A100s, constraints sum = 1000, B1 >= B2 >= B3 >= B4\n");

  /* 1. Inner loop, one thread: every default point on the 4-dim 4x8x4x32
   * network (91 (tp, pp) pairs x 4 micro-batches x 6 orders), then only the
   * points that were generated and solved (status OK). */
  WeftCodesignSpec sp;
  spec_init(&in, &sp, &in.fixed, 1);
  sp.all_orders = 1;
  WeftDesignPoint *all = NULL, *work = NULL, *ok = NULL;
  size_t n = 0, nok = 0;
  if (weft_codesign_points(&sp, &all, &n, &err) || !(work = malloc(n * sizeof *work)) ||
      !(ok = malloc(n * sizeof *ok))) {
    printf("bench_codesign: cannot enumerate: %s\n", err.msg);
    return 1;
  }
  double s_all = time_run(&sp, all, n, 1, work);
  size_t count[6] = {0};
  for (size_t i = 0; i < n; i++) {
    count[work[i].status < 6 ? work[i].status : 5]++;
    if (work[i].status == WEFT_POINT_OK) {
      ok[nok] = all[i];
      nok++;
    }
  }
  printf("  inner loop on 4x8x4x32, 1 thread: %zu points (%zu ok, %zu no memory, %zu invalid, "
         "%zu other)\n", n, count[0], count[1], count[2], count[3] + count[4] + count[5]);
  int pass = 1;
  pass &= rate_line("all points (mostly rejected early)", n, s_all);
  double s_ok = nok ? time_run(&sp, ok, nok, 1, work) : 0.0;
  pass &= rate_line("feasible points (each generated + solved)", nok, s_ok);
  pass &= bench_report("one feasible point, median (generated + solved)",
                       nok ? point_median_ns(&sp, ok, nok) : 0.0, POINT_TARGET_NS);

  /* 2. A 10,000-point codesign, 2 threads: 100 shapes x tp {1..16} x
   * pp {1..16} (powers of two) x micro-batch {1, 2, 4, 8}; enumeration,
   * evaluation and the Pareto front, wall time. */
  spec_init(&in, &sp, in.shapes, (int)in.nshapes);
  sp.ntp = sp.npp = 5;
  for (int k = 0; k < 5; k++) sp.tp[k] = sp.pp[k] = 1 << k;
  double t[REPS];
  size_t m = 0, nfront = 0, nok2 = 0;
  for (int r = 0; r < REPS; r++) {
    WeftDesignPoint *pts = NULL;
    double t0 = bench_now_ns();
    if (weft_codesign_points(&sp, &pts, &m, &err)) {
      printf("bench_codesign: cannot enumerate: %s\n", err.msg);
      return 1;
    }
    WeftRunSettings rs;
    weft_run_settings_default(&rs);
    rs.threads = 2;
    weft_codesign_run(&sp, pts, m, &rs, NULL);
    size_t *idx = malloc(m * sizeof *idx);
    nfront = idx ? weft_pareto(pts, m, idx) : 0;
    t[r] = bench_now_ns() - t0;
    nok2 = 0;
    for (size_t i = 0; i < m; i++) nok2 += pts[i].status == WEFT_POINT_OK;
    free(idx);
    free(pts);
  }
  printf("  codesign: %zu shapes, %zu points (%zu ok), Pareto front %zu designs\n", in.nshapes, m,
         nok2, nfront);
  pass &= bench_report("10,000-point codesign, 2 threads, wall", bench_median(t, REPS),
                       WALL_TARGET_NS);
  if (m != 10000) printf("  note: %zu points, not 10,000\n", m);

  /* 3. The summary a report keeps (top 10, the front) over a stream in
   * which every feasible design comes as 72 points with the same figures
   * (orders, recomputations, ZeRO stages that change nothing): the worst
   * case of merging, per point added, _top included. */
  size_t ns = nok * VARIANTS;  /* work[0..nok): the feasible points as evaluated in 1. */
  WeftDesignPoint *stream = malloc((ns ? ns : 1) * sizeof *stream);
  if (!stream) return 1;
  for (size_t i = 0; i < ns; i++) {
    WeftDesignPoint *p = &stream[i];
    size_t v = i % VARIANTS;
    *p = work[i / VARIANTS];
    p->par.recompute = (int)(v % 3);
    p->par.zero_stage = (int)(v / 3 % 4);
    static const WeftParDim perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                           {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    memcpy(p->par.order, perm[v / 12], sizeof p->par.order);
  }
  size_t ndesigns = 0;
  for (int r = 0; r < REPS; r++) {
    double t0 = bench_now_ns();
    WeftCodesignSummary *s = weft_codesign_summary_create(10);
    for (size_t i = 0; s && i < ns; i++) weft_codesign_summary_add(s, i, &stream[i]);
    const WeftIndexedPoint *top;
    ndesigns = weft_codesign_summary_top(s, &top);
    weft_codesign_summary_front(s, &top);
    t[r] = (bench_now_ns() - t0) / (double)(ns ? ns : 1);
    weft_codesign_summary_free(s);
  }
  printf("  summary: %zu points (%zu feasible designs x %d), top %zu designs\n", ns, nok,
         VARIANTS, ndesigns);
  pass &= bench_report("summary per point (top 10, merging)", bench_median(t, REPS),
                       SUMMARY_TARGET_NS);
  free(stream);
  pass &= nvl72(&err);
  pass &= domain_sweep(&err);

  /* 4. Parts and system cost (docs/parts.md, "Co-design with parts"): the
   * 4x8x4x32 network built of nvlink5, nvlink4, nvlink4, ndr (each point
   * solved on whole links), an NPU at $25,000 and 700 W, objective $ per
   * iteration; the median feasible point as in 1. */
  WeftNetwork *bound = NULL;
  WeftDimParts(*dims)[WEFT_MAX_DIMS] = NULL;
  WeftCostModel cost = in.cost;
  WeftNetwork net = in.fixed;
  const char *names[4] = {"nvlink5", "nvlink4", "nvlink4", "ndr"};
  int nb = 0;
  if (weft_network_set_parts(&net, names, 4, "parts", &err) ||
      weft_system_cost_set(&cost, "Npu", 25000, &err) ||
      weft_system_cost_set(&cost, "NpuPowerW", 700, &err) ||
      weft_codesign_parts(&net, 1, ZOO, NULL, &cost, &bound, &nb, &dims, &err)) {
    printf("bench_codesign: cannot bind the parts: %s\n", err.msg);
    return 1;
  }
  spec_init(&in, &sp, bound, 1);
  sp.cost = &cost;
  sp.all_orders = 1;
  sp.objective = WEFT_OBJ_COST_PER_ITERATION;
  free(all);
  all = NULL;
  if (weft_codesign_points(&sp, &all, &n, &err)) {
    printf("bench_codesign: cannot enumerate: %s\n", err.msg);
    return 1;
  }
  WeftDesignPoint *pw = realloc(work, n * sizeof *pw), *po = realloc(ok, n * sizeof *po);
  if (!pw || !po) return 1;
  work = pw;
  ok = po;
  time_run(&sp, all, n, 1, work);
  nok = 0;
  for (size_t i = 0; i < n; i++)
    if (work[i].status == WEFT_POINT_OK) ok[nok++] = all[i];
  printf("  parts nvlink5,nvlink4,nvlink4,ndr, Npu $25000 700 W, cost-per-iteration: %zu points, "
         "%zu ok\n", n, nok);
  pass &= bench_report("one feasible point, parts + system cost, median",
                       nok ? point_median_ns(&sp, ok, nok) : 0.0, PARTS_TARGET_NS);
  /* Where the time goes (no targets): the same points on whole links
   * without the system cost (perf), and the system cost on the continuous
   * 4x8x4x32 (no parts: no branch and bound). */
  sp.objective = WEFT_OBJ_PERF;
  printf("  %-44s %10.1f us   (whole links, objective perf)\n", "  of which: parts alone",
         nok ? point_median_ns(&sp, ok, nok) / 1e3 : 0.0);
  WeftCostModel sys_only = in.cost;
  weft_system_cost_set(&sys_only, "Npu", 25000, NULL);
  weft_system_cost_set(&sys_only, "NpuPowerW", 700, NULL);
  spec_init(&in, &sp, &in.fixed, 1);
  sp.cost = &sys_only;
  sp.objective = WEFT_OBJ_COST_PER_ITERATION;
  printf("  %-44s %10.1f us   (continuous, objective cost-per-iteration)\n",
         "  of which: system cost alone", nok ? point_median_ns(&sp, ok, nok) / 1e3 : 0.0);
  free(bound);
  free(dims);
  free(all);
  free(work);
  free(ok);
  free(in.shapes);
  printf("bench_codesign: %s\n", pass ? "all targets met" : "some targets missed");
  return 0;
}
