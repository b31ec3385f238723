/* bench_topo_eval.c — `weft topo-eval --model topoopt-dlrm` as the library
 * runs it with its defaults (128 servers, 53 points of 200 strategy moves:
 * TopoOpt and the expander over d 4, 8 and five port speeds, the switch and
 * two Fat-trees over eleven NICs), by flow simulation and with --estimate.
 * Target: <= 10 s each (wall; the CPU time beside it for a shared machine). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common/bench.h"

#define TARGET_NS 10e9

static int run(const WeftModel *m, const WeftDevice *dev, int simulate, const char *name,
               int *pass) {
  WeftTopoEval e;
  weft_topo_eval_default(&e);
  e.model = m;
  e.dev = dev;
  e.simulate = simulate;
  WeftEvalPoint *p = NULL;
  int n = 0;
  WeftError err;
  clock_t c0 = clock();
  double t0 = bench_now_ns();
  int rc = weft_topo_eval(&e, &p, &n, &err);
  double wall = bench_now_ns() - t0, cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
  if (rc) {
    printf("FAIL topo-eval: %s\n", err.msg);
    return 1;
  }
  double best = 0;
  for (int i = 0; i < n; i++)
    if (p[i].fabric == WEFT_EVAL_TOPOOPT && (best == 0 || p[i].time_ns < best)) best = p[i].time_ns;
  printf("  %s: %d points, fastest TopoOpt %.3f ms, CPU %.1f s\n", name, n, best / 1e6, cpu);
  *pass += bench_report(name, wall, TARGET_NS);
  free(p);
  return 0;
}

int main(void) {
  WeftModel *m = malloc(sizeof *m);
  WeftDevice dev;
  WeftError err;
  if (!m || weft_zoo_model("data/zoo", "topoopt-dlrm", m, &err) ||
      weft_zoo_device("data/zoo", "a100", &dev, &err)) {
    printf("FAIL zoo: %s\n", m ? err.msg : "out of memory");
    free(m);
    return 1;
  }
  printf("bench_topo_eval: topo-eval, topoopt-dlrm, 128 servers x 4 A100, defaults\n");
  int pass = 0;
  if (run(m, &dev, 1, "topo-eval, flow simulation", &pass) ||
      run(m, &dev, 0, "topo-eval --estimate", &pass)) {
    free(m);
    return 1;
  }
  free(m);
  printf("bench_topo_eval: %d of 2 targets met\n", pass);
  return 0;
}
