/* bench_solve.c — time one exact solve of LIBRA's GPT-3 4-dim case (create +
 * solve, and solve alone), perf and perf-per-cost; check the optimum found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bench.h"

#define REPS 2000
#define WARMUP 100
#define TARGET_NS 50e3                /* 50 us per solve */
#define LIBRA_OPTIMUM_MS 708.4387     /* LIBRA's published perf optimum, this case */

/* LIBRA's multiple_constraints, 1-based. */
static const char *const LIBRA_CONS[] = {"sum = 1000", "B1 = 500", "B1 >= B2 >= B3", "B3 + B4 = 200"};

/* Inputs: LIBRA's files as loaded, or weft's built-in example as a fallback. */
typedef struct {
  WeftScenario *sc;  /* always used as the container */
  int libra;         /* 1: LIBRA's files and constraints */
  char source[WEFT_PATH_LEN];
} Inputs;

static int load_libra(const char *dir, Inputs *in, WeftError *err) {
  char p[4][WEFT_PATH_LEN];
  static const char *const rel[4] = {"network/4d_network.yml", "cost_model/4d_cost_model.yml",
                                     "communicator/GPT_3_4d.yml", "workload/GPT_3.txt"};
  for (int i = 0; i < 4; i++) snprintf(p[i], sizeof p[i], "%s/%s", dir, rel[i]);
  WeftScenario *sc = in->sc;
  int rc = weft_network_read(p[0], &sc->net, err);
  if (!rc) rc = weft_cost_model_read(p[1], &sc->cost, err);
  if (!rc) rc = weft_communicator_read(p[2], &sc->comm[0], err);
  if (!rc) rc = weft_workload_read(p[3], &sc->workload[0], err);
  if (rc) return rc;
  sc->njobs = 1;
  sc->weight[0] = 1.0;
  snprintf(sc->job_name[0], sizeof sc->job_name[0], "GPT_3");
  for (size_t i = 0; i < sizeof LIBRA_CONS / sizeof LIBRA_CONS[0] && !rc; i++)
    rc = weft_constraints_parse(&sc->cons, LIBRA_CONS[i], sc->net.ndims, err);
  in->libra = 1;
  snprintf(in->source, sizeof in->source, "%s (LIBRA's files, multiple_constraints)", dir);
  return rc;
}

static int load(Inputs *in, WeftError *err) {
  static const char *const dirs[] = {"/work/shared/libra-format", "../shared/libra-format"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
    if (access(dirs[i], R_OK) == 0) return load_libra(dirs[i], in, err);
  const char *fallback = "data/gpt3_4096npu_4d.yml";
  snprintf(in->source, sizeof in->source, "%s (fallback: LIBRA's files not found)", fallback);
  return weft_scenario_read(fallback, in->sc, err);
}

/* Time create+solve and solve alone for one objective; 0 or -1 (cannot run). */
static int bench_objective(WeftSpec *spec, WeftObjective obj, int libra, int *pass, int *ntargets) {
  static double t_full[REPS], t_solve[REPS];
  WeftSettings set;
  WeftResult res;
  WeftError err;
  WeftProblem *p = NULL;
  weft_settings_default(&set);
  spec->objective = obj;
  for (int r = -WARMUP; r < REPS; r++) {
    double t0 = bench_now_ns();
    int rc = weft_problem_create(spec, &p, &err);
    if (!rc) rc = weft_problem_solve(p, &set, &res);
    double t1 = bench_now_ns();
    weft_problem_free(p);
    p = NULL;
    if (rc || res.status != WEFT_STATUS_SOLVED) {
      char buf[1024];
      printf("FAIL %s: %s\n", weft_objective_name(obj),
             rc ? weft_error_format(&err, buf, sizeof buf) : res.message);
      return -1;
    }
    if (r >= 0) t_full[r] = t1 - t0;
  }
  if (weft_problem_create(spec, &p, &err)) return -1;
  for (int r = -WARMUP; r < REPS; r++) {
    double t0 = bench_now_ns();
    weft_problem_solve(p, &set, &res);
    double t1 = bench_now_ns();
    if (r >= 0) t_solve[r] = t1 - t0;
  }
  weft_problem_free(p);
  printf("objective %s: B = [", weft_objective_name(obj));
  for (int d = 0; d < res.ndims; d++) printf("%s%.6f", d ? ", " : "", res.bw_gbps[d]);
  printf("] GB/s, time %.6f ms, cost %.2f $, certified gap %.1e, %d iterations\n",
         res.eval.time_ns / 1e6, res.eval.cost_usd, res.gap, res.iterations);
  if (libra && obj == WEFT_OBJ_PERF)
    printf("  LIBRA's published optimum %.4f ms: weft %.6f ms, relative difference %+.2e\n",
           LIBRA_OPTIMUM_MS, res.eval.time_ns / 1e6,
           (res.eval.time_ns / 1e6 - LIBRA_OPTIMUM_MS) / LIBRA_OPTIMUM_MS);
  else if (obj == WEFT_OBJ_PERF)
    printf("  (not LIBRA's inputs: no comparison with its published %.4f ms)\n", LIBRA_OPTIMUM_MS);
  char name[96];
  snprintf(name, sizeof name, "%s: create + solve (median of %d)", weft_objective_name(obj), REPS);
  *pass += bench_report(name, bench_median(t_full, REPS), TARGET_NS);
  snprintf(name, sizeof name, "%s: solve alone (median of %d)", weft_objective_name(obj), REPS);
  *pass += bench_report(name, bench_median(t_solve, REPS), TARGET_NS);
  *ntargets += 2;
  return 0;
}

int main(void) {
  Inputs in = {0};
  WeftError err;
  char buf[1024];
  printf("bench_solve: GPT-3, 4 dims, 4096 NPUs\n");
  if (!(in.sc = weft_scenario_create())) return 1;
  if (load(&in, &err)) {
    printf("FAIL cannot load inputs: %s\n", weft_error_format(&err, buf, sizeof buf));
    weft_scenario_free(in.sc);
    return 1;
  }
  printf("inputs: %s\n", in.source);
  WeftSpec spec;
  weft_scenario_spec(in.sc, &spec);
  spec.loop = WEFT_LOOP_NO_OVERLAP;
  int pass = 0, ntargets = 0, rc = 0;
  if (bench_objective(&spec, WEFT_OBJ_PERF, in.libra, &pass, &ntargets) ||
      bench_objective(&spec, WEFT_OBJ_PERF_PER_COST, in.libra, &pass, &ntargets))
    rc = 1;
  /* With a system cost (docs/model.md "System cost"): an NPU at $25,000 and
   * 700 W, the network's 1.5 W per GB/s on every class, the default price,
   * PUE and lifetime; perf-per-cost then minimises time x (network + NPUs). */
  WeftCostModel *cm = &in.sc->cost;
  for (int i = 0; i < cm->nclasses; i++) {
    cm->cls[i].power_w_per_gbps = 1.5;
    cm->cls[i].has_power = 1;
  }
  if (!rc && (weft_system_cost_set(cm, "Npu", 25000.0, &err) ||
              weft_system_cost_set(cm, "NpuPowerW", 700.0, &err))) {
    printf("FAIL system cost: %s\n", weft_error_format(&err, buf, sizeof buf));
    rc = 1;
  }
  if (!rc) printf("with a system cost (Npu $25000, 700 W per NPU, 1.5 W per GB/s):\n");
  if (!rc && (bench_objective(&spec, WEFT_OBJ_PERF_PER_COST, 0, &pass, &ntargets) ||
              bench_objective(&spec, WEFT_OBJ_COST_PER_ITERATION, 0, &pass, &ntargets)))
    rc = 1;
  else
    printf("bench_solve: %d of %d targets met\n", pass, ntargets);
  weft_scenario_free(in.sc);
  return rc;
}
