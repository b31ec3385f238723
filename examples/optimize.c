/* optimize.c — LIBRA's problem from its input files: the per-dimension
 * bandwidth that minimises iteration time under 'sum = 1000', solved
 * exactly, with its certified gap. Uses only <weft.h>.
 *   cc optimize.c $(pkg-config --cflags --libs weft)
 *   ./a.out network.yml workload.txt communicator.yml cost_model.yml */
#include <stdio.h>
#include <weft.h>

static int fail(const WeftError *err) {
  char buf[512];
  fprintf(stderr, "optimize: %s\n", weft_error_format(err, buf, sizeof buf));
  return 2;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s network.yml workload.txt communicator.yml cost.yml\n", argv[0]);
    return 2;
  }
  WeftNetwork net;
  WeftCostModel cost;
  WeftCommunicator comm;
  WeftWorkload *wl = NULL;
  WeftConstraints cons = {0};
  WeftError err;
  if (weft_network_read(argv[1], &net, &err) || weft_workload_read(argv[2], &wl, &err) ||
      weft_communicator_read(argv[3], &comm, &err) || weft_cost_model_read(argv[4], &cost, &err) ||
      weft_constraints_parse(&cons, "sum = 1000", net.ndims, &err)) {
    weft_workload_free(wl);
    return fail(&err);
  }
  WeftSpec spec = {.net = &net, .cost = &cost, .njobs = 1, .cons = &cons,
                   .objective = WEFT_OBJ_PERF, .loop = WEFT_LOOP_NO_OVERLAP};
  spec.jobs[0].workload = wl;
  spec.jobs[0].comm = &comm;
  spec.jobs[0].weight = 1.0;
  WeftProblem *p = NULL;
  WeftResult res;
  int rc = weft_problem_create(&spec, &p, &err);
  if (rc) {
    weft_workload_free(wl);
    return fail(&err);
  }
  weft_problem_solve(p, NULL, &res); /* NULL: the default settings */
  printf("status: %s (gap %.1e)\n", weft_status_name(res.status), res.gap);
  if (res.status == WEFT_STATUS_SOLVED) {
    for (int d = 0; d < res.ndims; d++) printf("B%d = %.6f GB/s\n", d + 1, res.bw_gbps[d]);
    printf("iteration time %.6f ms, network cost %.2f $\n", res.eval.time_ns / 1e6,
           res.eval.cost_usd);
  } else {
    printf("why: %s\n", res.message);
  }
  weft_problem_free(p);
  weft_workload_free(wl);
  return res.status == WEFT_STATUS_SOLVED ? 0 : 1;
}
