/* simulate.c — `weft simulate`: one training iteration of each job simulated
 * at a given bandwidth (or the optimum), reported per phase and per dim. */
#include <string.h>

#include "cli.h"
#include "sim_opts.h"

static void help(FILE *out) {
  fputs("usage: weft simulate SCENARIO.yml [--bw B1,...,BD] [options]\n"
        "       weft simulate --network N.yml --workload W.txt --communicator C.yml\n"
        "                     --cost-model M.yml [--bw B1,...,BD] [options]\n"
        "       weft simulate --model NAME [--tp T ...] --network N.yml\n"
        "                     --cost-model M.yml [--bw B1,...,BD] [options]\n\n"
        "Simulate one training iteration of each job, event by event, at a per-dim\n"
        "bandwidth (GB/s per NPU): each collective cut into chunks, each chunk\n"
        "through its per-dim stages and their algorithm's steps, each step a\n"
        "transfer then the dim's latency; the overlap stream (weight-grad of\n"
        "tp-dp-overlap, forward and input-grad of fwd-ig-overlap) competing with\n"
        "the blocking collectives. Without --bw, the optimum of\n"
        "weft optimize (same inputs, constraints, objective, loop) is simulated.\n"
        "Reports per job the iteration time, per phase compute, communication and\n"
        "exposed communication, per dim bytes, busy time and utilisation\n"
        "(docs/simulate.md). Exit 0 done, 1 no optimum or runtime failure, 2 bad\n"
        "input.\n\noptions:\n",
        out);
  cli_sim_help_options(out);
}

static void row(FILE *out, const char *name, double compute_ns, double comm_ns,
                double exposed_ns) {
  fprintf(out, "  %-12s %16.6f %16.6f %16.6f\n", name, compute_ns / 1e6, comm_ns / 1e6,
          exposed_ns / 1e6);
}

static void table(FILE *out, const CliSimRun *run) {
  const WeftSimResult *r = &run->res;
  int D = run->spec.net->ndims;
  cli_sim_print_head(out, "simulate", run);
  for (int j = 0; j < r->njobs; j++) {
    const WeftSimJob *sj = &r->job[j];
    double comp[WEFT_NPHASES], comm = 0.0, exposed = 0.0;
    weft_spec_phase_compute(&run->spec, j, comp);
    fprintf(out, "\njob %s (weight %g): time_ms %.6f, %d collective%s\n", run->sc->job_name[j],
            run->spec.jobs[j].weight, sj->t.time_ns / 1e6, sj->ncollectives,
            sj->ncollectives == 1 ? "" : "s");
    fprintf(out, "  %-12s %16s %16s %16s\n", "phase", "compute_ms", "comm_ms", "exposed_ms");
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      row(out, weft_phase_name((WeftPhase)ph), comp[ph], sj->t.comm_ns[ph],
          sj->t.exposed_comm_ns[ph]);
      comm += sj->t.comm_ns[ph];
      exposed += sj->t.exposed_comm_ns[ph];
    }
    row(out, "total", sj->t.compute_ns, comm, exposed);
    fprintf(out, "  %-4s %14s %18s %16s %8s\n", "dim", "bw_gbps", "size_bytes", "busy_ms", "util");
    for (int d = 0; d < D; d++)
      fprintf(out, "  B%-3d %14.6f %18.0f %16.6f %8.4f\n", d + 1, run->bw_gbps[d],
              sj->dim_bytes[d], sj->dim_busy_ns[d] / 1e6, sj->dim_util[d]);
  }
  if (r->njobs > 1) fprintf(out, "\ntime_ms (weighted sum over jobs): %.6f\n", r->time_ns / 1e6);
  fputc('\n', out);
  cli_sim_print_counters(out, run);
}

static void json(FILE *out, const CliSimRun *run) {
  const WeftSimResult *r = &run->res;
  int D = run->spec.net->ndims;
  fputs("{\n", out);
  cli_sim_json_head(out, run);
  fputs("  \"time_ns\": ", out);
  cli_json_num(out, r->time_ns);
  fputs(",\n  \"jobs\": [", out);
  for (int j = 0; j < r->njobs; j++) {
    const WeftSimJob *sj = &r->job[j];
    double comp[WEFT_NPHASES];
    weft_spec_phase_compute(&run->spec, j, comp);
    fprintf(out, "%s\n    {\"name\": ", j ? "," : "");
    cli_json_str(out, run->sc->job_name[j]);
    fputs(", \"weight\": ", out);
    cli_json_num(out, run->spec.jobs[j].weight);
    fputs(", \"time_ns\": ", out);
    cli_json_num(out, sj->t.time_ns);
    fputs(", \"compute_ns\": ", out);
    cli_json_num(out, sj->t.compute_ns);
    fprintf(out, ", \"collectives\": %d,\n     \"phases\": [", sj->ncollectives);
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      fprintf(out, "%s\n      {\"phase\": \"%s\", \"compute_ns\": ", ph ? "," : "",
              weft_phase_name((WeftPhase)ph));
      cli_json_num(out, comp[ph]);
      fputs(", \"comm_ns\": ", out);
      cli_json_num(out, sj->t.comm_ns[ph]);
      fputs(", \"exposed_comm_ns\": ", out);
      cli_json_num(out, sj->t.exposed_comm_ns[ph]);
      fputc('}', out);
    }
    fputs("],\n     \"dims\": [", out);
    for (int d = 0; d < D; d++) {
      fprintf(out, "%s\n      {\"dim\": %d, \"bw_gbps\": ", d ? "," : "", d + 1);
      cli_json_num(out, run->bw_gbps[d]);
      fputs(", \"size_bytes\": ", out);
      cli_json_num(out, sj->dim_bytes[d]);
      fputs(", \"busy_ns\": ", out);
      cli_json_num(out, sj->dim_busy_ns[d]);
      fputs(", \"util\": ", out);
      cli_json_num(out, sj->dim_util[d]);
      fputc('}', out);
    }
    fputs("]}", out);
  }
  fputs("\n  ],\n", out);
  cli_sim_json_counters(out, run);
  fputs("}\n", out);
}

int cmd_simulate(int argc, char **argv) {
  CliSimArgs a;
  if (cli_sim_parse(argc, argv, &a)) return EXIT_USAGE;
  if (a.val[CLI_SIM_HELP]) {
    help(stdout);
    return EXIT_OK;
  }
  CliSimRun run;
  int rc = cli_sim_prepare(&a, "simulate", &run);
  if (!rc) rc = cli_sim_run(&run);
  if (!rc) rc = cli_sim_export(&a, &run);
  if (!rc) {
    if (a.val[CLI_SIM_JSON]) json(stdout, &run);
    else table(stdout, &run);
    if (a.val[CLI_SIM_EXPORT1] && !a.val[CLI_SIM_JSON])
      cli_astra1_note(stdout, a.val[CLI_SIM_EXPORT1], &run.spec, &run.set);
  }
  cli_sim_free(&run);
  return rc;
}
