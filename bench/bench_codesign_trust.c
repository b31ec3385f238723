/* bench_codesign_trust.c — can a large co-design trust every solve? 100,000
 * points of a tp-dp-overlap co-design of GPT-3 175B on 16,384 NPUs over 5
 * dims, one core: the points the solver did not solve (failed, or reported
 * infeasible or unbounded under a constraint that always has an optimum),
 * against 0, and the wall time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bench.h"

#define ZOO "data/zoo"
#define COST "tests/fixtures/cost_5d.yml"  /* data/gpt3/cost_4d.yml + a rack ring */
#define NPUS 16384
#define POINTS 100000        /* the first 100,000 of the 102,960 enumerated */
#define CHUNK 10000          /* POINTS is a whole number of chunks */
#define EXAMPLES 3           /* failed points shown */

typedef struct {
  size_t count[WEFT_POINT_NSTATUS];
  size_t seen;
  size_t example[EXAMPLES];
  char reason[EXAMPLES][160];
  int nexample;
} Tally;

static int tally(void *ctx, size_t first, WeftDesignPoint *pts, size_t n) {
  Tally *t = ctx;
  for (size_t j = 0; j < n; j++) {
    WeftPointStatus s = pts[j].status;
    t->count[(int)s < WEFT_POINT_NSTATUS ? s : WEFT_POINT_FAILED]++;
    int unsolved = s == WEFT_POINT_FAILED || s == WEFT_POINT_INFEASIBLE ||
                   s == WEFT_POINT_UNBOUNDED;
    if (unsolved && t->nexample < EXAMPLES) {
      t->example[t->nexample] = first + j;
      snprintf(t->reason[t->nexample++], sizeof t->reason[0], "%s", pts[j].reason);
    }
  }
  t->seen += n;
  return t->seen >= POINTS ? 1 : 0;  /* 1: enough points, stop */
}

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  WeftModel model;
  WeftDevice dev;
  WeftCostModel cost;
  WeftConstraints cons;
  WeftNetwork *shapes = NULL;
  size_t nshapes = 0, total = 0;
  WeftError err;
  char buf[1024];
  memset(&cons, 0, sizeof cons);
  /* Ring x FullyConnected x Ring x Ring x Switch, every shape of 16,384 =
   * 2^14 NPUs: C(13, 4) = 715 */
  const WeftTopology topo[5] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_RING, WEFT_RING,
                                WEFT_SWITCH};
  const char cls[5][WEFT_NAME_LEN] = {"Chiplet", "Package", "Node", "Rack", "Pod"};
  int rc = weft_zoo_model(ZOO, "gpt3-175b", &model, &err);
  if (!rc) rc = weft_zoo_device(ZOO, "a100", &dev, &err);
  if (!rc) rc = weft_cost_model_read(COST, &cost, &err);
  if (!rc) rc = weft_constraints_parse(&cons, "sum = 1000", 5, &err);
  if (!rc) rc = weft_network_shapes(topo, cls, 5, NPUS, NULL, &shapes, &nshapes, &err);
  if (rc) {
    printf("bench_codesign_trust: cannot load inputs: %s\n",
           weft_error_format(&err, buf, sizeof buf));
    return 1;
  }
  /* tp {8, 16, 32} x pp {16, 32} x micro-batch {1, 2, 4, 8} x 6 orders on
   * each shape: dp = 16384 / (tp pp) in 16..128, nearly every point fits and
   * reaches the solver */
  WeftCodesignSpec sp;
  memset(&sp, 0, sizeof sp);
  sp.model = &model;
  sp.device = &dev;
  weft_parallel_default(&sp.base);
  sp.nnets = (int)nshapes;
  sp.nets = shapes;
  sp.cost = &cost;
  sp.cons = &cons;
  sp.objective = WEFT_OBJ_PERF;
  sp.loop = WEFT_LOOP_TP_DP_OVERLAP;
  weft_settings_default(&sp.settings);
  sp.ntp = 3, sp.tp[0] = 8, sp.tp[1] = 16, sp.tp[2] = 32;
  sp.npp = 2, sp.pp[0] = 16, sp.pp[1] = 32;
  sp.nmb = 4, sp.mb[0] = 1, sp.mb[1] = 2, sp.mb[2] = 4, sp.mb[3] = 8;
  sp.all_orders = 1;
  if (weft_codesign_count(&sp, &total, &err)) {
    printf("bench_codesign_trust: cannot enumerate: %s\n", err.msg);
    return 1;
  }
  printf("bench_codesign_trust: GPT-3 175B on %d A100s, tp-dp-overlap, sum = 1000,\n"
         "  %zu shapes of Ring x FullyConnected x Ring x Ring x Switch, tp {8,16,32} x\n"
         "  pp {16,32} x mb {1,2,4,8} x 6 orders: the first %d of %zu points, 1 thread\n",
         NPUS, nshapes, POINTS, total);
  Tally t;
  memset(&t, 0, sizeof t);
  WeftRunSettings rs;
  weft_run_settings_default(&rs);
  rs.threads = 1;
  double t0 = bench_now_ns();
  rc = weft_codesign_stream(&sp, &rs, CHUNK, tally, &t, &err);
  double wall_s = (bench_now_ns() - t0) / 1e9;
  if (rc < 0) {
    printf("bench_codesign_trust: the run failed: %s\n", err.msg);
    return 1;
  }
  size_t unsolved = t.count[WEFT_POINT_FAILED] + t.count[WEFT_POINT_INFEASIBLE] +
                    t.count[WEFT_POINT_UNBOUNDED];
  size_t solved_or_not = unsolved + t.count[WEFT_POINT_OK];
  printf("  %zu points in %.1f s (%.0f us per point): %zu ok, %zu failed, %zu infeasible, "
         "%zu unbounded; %zu no memory, %zu invalid (never reach the solver)\n",
         t.seen, wall_s, t.seen ? wall_s * 1e6 / (double)t.seen : 0.0, t.count[WEFT_POINT_OK],
         t.count[WEFT_POINT_FAILED], t.count[WEFT_POINT_INFEASIBLE],
         t.count[WEFT_POINT_UNBOUNDED], t.count[WEFT_POINT_NO_MEMORY],
         t.count[WEFT_POINT_INVALID]);
  for (int k = 0; k < t.nexample; k++)
    printf("  e.g. point %zu: %s\n", t.example[k], t.reason[k]);
  int pass = unsolved == 0;
  printf("  failed points: %zu of %zu   target 0   %s\n", unsolved, solved_or_not,
         pass ? "PASS" : "MISS");
  if (t.seen != POINTS) printf("  note: %zu points, not %d\n", t.seen, POINTS);
  free(shapes);
  printf("bench_codesign_trust: %s\n", pass ? "all targets met" : "some targets missed");
  return 0;
}
