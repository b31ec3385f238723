/* refine.c — `weft optimize --refine-with-sim`: the exact optimum, then
 * re-solves with every collective scaled by its simulated / analytic time,
 * keeping the design the simulator finds fastest (weft_refine_with_sim). It
 * takes weft simulate's options (chunks, latency, fidelity, ...). */
#include <string.h>

#include "cli.h"
#include "sim_opts.h"

#define REFINE_MAX_ITER 8
#define REFINE_REL_TOL 1e-4  /* stop when a re-solve gains less than this */

static void help(FILE *out) {
  fputs("usage: weft optimize --refine-with-sim (SCENARIO.yml | --network ... | --model ...)\n"
        "                     [simulation options]\n\n"
        "Solve exactly, simulate the optimum, then re-solve with every collective\n"
        "scaled by its simulated / analytic time at the current design, while the\n"
        "simulated iteration time improves (at most 8 re-solves, gains below 0.01%\n"
        "stop it). Prints the plain optimum and the refined design, analytic and\n"
        "simulated (docs/simulate.md). Exit 0 done, 1 no optimum or runtime\n"
        "failure, 2 bad input (including a run over --max-work).\n\n"
        "options:\n",
        out);
  cli_sim_help_options(out);
}

static void table(FILE *out, const CliSimRun *run, const WeftRefine *rf, double plain_ns) {
  int D = run->spec.net->ndims;
  cli_sim_print_head(out, "optimize --refine-with-sim", run);
  fprintf(out, "\n  %-8s", "design");
  for (int d = 0; d < D; d++) fprintf(out, " %12s%-2d", "B", d + 1);
  fprintf(out, " %16s %16s\n", "analytic_ms", "simulated_ms");
  fprintf(out, "  %-8s", "optimum");
  for (int d = 0; d < D; d++) fprintf(out, " %14.6f", run->bw_gbps[d]);
  fprintf(out, " %16.6f %16.6f\n", plain_ns / 1e6, rf->first_simulated_ns / 1e6);
  fprintf(out, "  %-8s", "refined");
  for (int d = 0; d < D; d++) fprintf(out, " %14.6f", rf->bw_gbps[d]);
  fprintf(out, " %16.6f %16.6f\n", rf->analytic_ns / 1e6, rf->simulated_ns / 1e6);
  fprintf(out, "\nre-solves: %d (%s); simulated time per design, ms:", rf->iterations,
          rf->converged ? "converged" : "iteration limit");
  for (int k = 0; k <= rf->iterations; k++) fprintf(out, " %.6f", rf->sim_ns[k] / 1e6);
  fprintf(out, "\nsimulated gain over the plain optimum: %.4f%%\n",
          100.0 * (1.0 - rf->simulated_ns / rf->first_simulated_ns));
}

static void json(FILE *out, const CliSimRun *run, const WeftRefine *rf, double plain_ns) {
  int D = run->spec.net->ndims;
  fputs("{\n", out);
  cli_sim_json_head(out, run);
  fputs("  \"optimum\": {\"bw_gbps\": ", out);
  cli_json_arr(out, run->bw_gbps, D);
  fputs(", \"analytic_time_ns\": ", out);
  cli_json_num(out, plain_ns);
  fputs(", \"simulated_time_ns\": ", out);
  cli_json_num(out, rf->first_simulated_ns);
  fputs("},\n  \"refined\": {\"bw_gbps\": ", out);
  cli_json_arr(out, rf->bw_gbps, D);
  fputs(", \"analytic_time_ns\": ", out);
  cli_json_num(out, rf->analytic_ns);
  fputs(", \"simulated_time_ns\": ", out);
  cli_json_num(out, rf->simulated_ns);
  fprintf(out, "},\n  \"iterations\": %d,\n  \"converged\": %s,\n  \"simulated_time_ns\": ",
          rf->iterations, rf->converged ? "true" : "false");
  cli_json_arr(out, rf->sim_ns, rf->iterations + 1);
  fputs("\n}\n", out);
}

int cli_refine(int argc, char **argv) {
  CliSimArgs a;
  if (cli_sim_parse(argc, argv, &a)) return EXIT_USAGE;
  if (a.val[CLI_SIM_HELP]) {
    help(stdout);
    return EXIT_OK;
  }
  static const int refused[] = {CLI_SIM_BW, CLI_SIM_TRACE, CLI_SIM_EXPORT1};
  for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++)
    if (a.val[refused[k]]) {
      cli_fail("--refine-with-sim chooses the bandwidth and simulates many designs: drop %s",
               cli_sim_opts[refused[k]].name);
      return EXIT_USAGE;
    }
  CliSimRun run;
  int rc = cli_sim_prepare(&a, "optimize", &run); /* solves the plain optimum */
  if (!rc) {
    WeftSettings st;
    WeftRefine rf;
    WeftError err;
    weft_settings_default(&st);
    cli_sim_progress_start(&run); /* each simulation counts its own work */
    int src = weft_refine_with_sim(&run.spec, &st, &run.set, REFINE_MAX_ITER, REFINE_REL_TOL,
                                   &rf, &err);
    cli_sim_progress_end(&run);
    if (src) {
      rc = cli_sim_failed(src, &err);  /* as weft simulate and weft validate report it */
    } else if (a.val[CLI_SIM_JSON]) {
      json(stdout, &run, &rf, run.opt.eval.time_ns);
    } else {
      table(stdout, &run, &rf, run.opt.eval.time_ns);
    }
  }
  cli_sim_free(&run);
  return rc;
}
