/* simulate.c — one training iteration of a LIBRA problem simulated event
 * by event at a given bandwidth per dim, next to the analytic model's time.
 * Uses only <weft.h>.
 *   cc simulate.c $(pkg-config --cflags --libs weft)
 *   ./a.out network.yml workload.txt communicator.yml cost.yml B1,B2,... */
#include <stdio.h>
#include <stdlib.h>
#include <weft.h>

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s network.yml workload.txt communicator.yml cost.yml B1,B2,...\n",
            argv[0]);
    return 2;
  }
  WeftNetwork net;
  WeftCostModel cost;
  WeftCommunicator comm;
  WeftWorkload *wl = NULL;
  WeftError err;
  char buf[512];
  if (weft_network_read(argv[1], &net, &err) || weft_workload_read(argv[2], &wl, &err) ||
      weft_communicator_read(argv[3], &comm, &err) || weft_cost_model_read(argv[4], &cost, &err)) {
    fprintf(stderr, "simulate: %s\n", weft_error_format(&err, buf, sizeof buf));
    weft_workload_free(wl);
    return 2;
  }
  double bw[WEFT_MAX_DIMS];
  char *s = argv[5];
  for (int d = 0; d < net.ndims; d++) { /* "500,300,100,100" */
    bw[d] = strtod(s, &s);
    if (*s == ',') s++;
  }
  WeftSpec spec = {.net = &net, .cost = &cost, .njobs = 1, .loop = WEFT_LOOP_NO_OVERLAP};
  spec.jobs[0].workload = wl;
  spec.jobs[0].comm = &comm;
  spec.jobs[0].weight = 1.0;
  WeftSimSettings set;
  weft_sim_settings_default(&set);
  WeftSimResult sim;
  WeftProblem *p = NULL;
  WeftEval ev;
  int rc = weft_simulate(&spec, bw, &set, &sim, &err);
  if (!rc) rc = weft_problem_create(&spec, &p, &err);
  if (rc) {
    fprintf(stderr, "simulate: %s\n", weft_error_format(&err, buf, sizeof buf));
    weft_workload_free(wl);
    return 1;
  }
  weft_problem_evaluate(p, bw, &ev);
  printf("simulated %.6f ms, analytic %.6f ms (%llu events)\n", sim.time_ns / 1e6,
         ev.time_ns / 1e6, sim.events);
  weft_problem_free(p);
  weft_workload_free(wl);
  return 0;
}
