/* bench_synth.c — time one exact solve (create + solve) of a synthetic 8-dim,
 * 1000-layer problem: perf and perf-per-cost, no-overlap and tp-dp-overlap,
 * each with the 1 ms target. */
#include <stdio.h>
#include <stdlib.h>

#include "common/bench.h"

#define REPS 201
#define WARMUP 5
#define TARGET_NS 1e6  /* 1 ms per solve */
#define SEED 20240501u

typedef struct {
  WeftObjective obj;
  WeftLoop loop;
  int has_target;
} Case;

/* Median create+solve time of one case, its result in *res; -1 if it fails. */
static int run_case(const Synth *s, const Case *c, double *median_ns, WeftResult *res) {
  static double t[REPS];
  WeftSpec spec;
  WeftSettings set;
  WeftError err;
  char buf[1024];
  synth_spec(s, c->obj, c->loop, &spec);
  weft_settings_default(&set);
  for (int r = -WARMUP; r < REPS; r++) {
    WeftProblem *p = NULL;
    double t0 = bench_now_ns();
    int rc = weft_problem_create(&spec, &p, &err);
    if (!rc) rc = weft_problem_solve(p, &set, res);
    double t1 = bench_now_ns();
    weft_problem_free(p);
    if (rc) {
      printf("FAIL %s/%s: %s\n", weft_objective_name(c->obj), weft_loop_name(c->loop),
             weft_error_format(&err, buf, sizeof buf));
      return -1;
    }
    if (res->status != WEFT_STATUS_SOLVED) {
      printf("FAIL %s/%s: %s: %s\n", weft_objective_name(c->obj), weft_loop_name(c->loop),
             weft_status_name(res->status), res->message);
      return -1;
    }
    if (r >= 0) t[r] = t1 - t0;
  }
  *median_ns = bench_median(t, REPS);
  return 0;
}

int main(void) {
  static const Case cases[] = {{WEFT_OBJ_PERF, WEFT_LOOP_NO_OVERLAP, 1},
                               {WEFT_OBJ_PERF_PER_COST, WEFT_LOOP_NO_OVERLAP, 1},
                               {WEFT_OBJ_PERF, WEFT_LOOP_TP_DP_OVERLAP, 1},
                               {WEFT_OBJ_PERF_PER_COST, WEFT_LOOP_TP_DP_OVERLAP, 1}};
  Synth s;
  WeftError err;
  char buf[1024];
  if (synth_build(&s, SEED, &err)) {
    printf("FAIL cannot build the synthetic problem: %s\n", weft_error_format(&err, buf, sizeof buf));
    synth_free(&s);
    return 1;
  }
  printf("bench_synth: %d dims (", SYNTH_DIMS);
  for (int d = 0; d < SYNTH_DIMS; d++)
    printf("%s%s %d", d ? ", " : "", weft_topology_name(s.net.topology[d]), s.net.npus[d]);
  printf("), %.0f NPUs, %d layers, seed %u\n", weft_network_npus_total(&s.net), s.wl->nlayers, SEED);
  printf("constraints:");
  for (int i = 0; i < s.ncons; i++) printf(" '%s'", s.cons_text[i]);
  printf("\n");
  int pass = 0, ntargets = 0, rc = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const Case *c = &cases[i];
    WeftResult res;
    double med;
    if (run_case(&s, c, &med, &res)) {
      rc = 1;
      break;
    }
    printf("%s, %s: time %.6f ms, cost %.2f $, certified gap %.1e, %d iterations\n",
           weft_objective_name(c->obj), weft_loop_name(c->loop), res.eval.time_ns / 1e6,
           res.eval.cost_usd, res.gap, res.iterations);
    char name[96];
    snprintf(name, sizeof name, "%s, %s: create + solve", weft_objective_name(c->obj),
             weft_loop_name(c->loop));
    if (c->has_target) {
      pass += bench_report(name, med, TARGET_NS);
      ntargets++;
    } else {
      printf("  %-44s %10.1f us   (no target)\n", name, med / 1e3);
    }
  }
  if (!rc) printf("bench_synth: %d of %d targets met (median of %d)\n", pass, ntargets, REPS);
  synth_free(&s);
  return rc;
}
