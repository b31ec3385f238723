/* validate.c — `weft validate`: the analytic model (weft optimize's) next to
 * the simulation at the same bandwidth, per job and quantity, with the
 * relative error; says which effects the simulation adds. */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "sim_opts.h"

static void help(FILE *out) {
  fputs("usage: weft validate SCENARIO.yml [--bw B1,...,BD] [options]\n"
        "       weft validate --network N.yml --workload W.txt --communicator C.yml\n"
        "                     --cost-model M.yml [--bw B1,...,BD] [options]\n"
        "       weft validate --model NAME [--tp T ...] --network N.yml\n"
        "                     --cost-model M.yml [--bw B1,...,BD] [options]\n\n"
        "Evaluate the analytic model weft optimize uses and simulate the same design\n"
        "at the same bandwidth (the optimum without --bw), and print per job the\n"
        "iteration time, compute, communication and exposed communication per phase\n"
        "and per-dim utilisation: analytic | simulated | error (simulated/analytic\n"
        "- 1). With --chunks 1000 and no latency the two agree to well under 1% for\n"
        "a dim-fidelity run of one collective at a time; the differences are the\n"
        "effects the simulation adds (docs/simulate.md). Exit 0 done, 1 no optimum\n"
        "or runtime failure, 2 bad input.\n\noptions:\n",
        out);
  cli_sim_help_options(out);
}

/* The quantities compared, analytic and simulated alike. */
typedef struct {
  double time_ns, compute_ns, comm_ns[WEFT_NPHASES], exposed_ns[WEFT_NPHASES];
  double util[WEFT_MAX_DIMS];
} Side;

static void sides(const CliSimRun *run, const WeftEval *ev, int j, Side *an, Side *si) {
  const WeftJobTime *a = &ev->job[j], *s = &run->res.job[j].t;
  double bytes[WEFT_MAX_DIMS];
  weft_spec_dim_bytes(&run->spec, j, bytes);
  *an = (Side){a->time_ns, a->compute_ns, {0}, {0}, {0}};
  *si = (Side){s->time_ns, s->compute_ns, {0}, {0}, {0}};
  for (int ph = 0; ph < WEFT_NPHASES; ph++) {
    an->comm_ns[ph] = a->comm_ns[ph];
    an->exposed_ns[ph] = a->exposed_comm_ns[ph];
    si->comm_ns[ph] = s->comm_ns[ph];
    si->exposed_ns[ph] = s->exposed_comm_ns[ph];
  }
  for (int d = 0; d < run->spec.net->ndims; d++) {
    double cap = run->bw_gbps[d] * a->time_ns;
    an->util[d] = cap > 0 ? bytes[d] / cap : 0.0;
    si->util[d] = run->res.job[j].dim_util[d];
  }
}

/* simulated / analytic - 1; HUGE_VAL (printed "-" or null) when analytic is 0. */
static double rel(double an, double si) { return an != 0.0 ? si / an - 1.0 : HUGE_VAL; }

/* One line saying what the simulation adds to the analytic model. */
static void note(FILE *out, const CliSimRun *run) {
  const WeftSimSettings *s = &run->set;
  int D = run->spec.net->ndims, lat = s->endpoint_delay_ns > 0, same = 1;
  for (int d = 0; d < D; d++) {
    lat |= s->latency_ns[d] > 0;
    same &= s->latency_ns[d] == s->latency_ns[0];
  }
  char k[32];
  fprintf(out, "\nnote: the simulation includes %d chunk%s per collective (%s in flight), ",
          s->chunks, s->chunks == 1 ? "" : "s", cli_sim_in_flight(s, k, sizeof k));
  if (!lat) fputs("no latency", out);
  else {
    fputs("latency ", out);
    for (int d = 0; d < (same ? 1 : D); d++) fprintf(out, "%s%g", d ? "," : "", s->latency_ns[d]);
    fprintf(out, " ns%s + endpoint delay %g ns per step", same ? "" : " (per dim)",
            s->endpoint_delay_ns);
  }
  if (s->fidelity == WEFT_FIDELITY_LINK)
    fprintf(out, ", link fidelity (%s sharing)", cli_sharing_name(s->sharing));
  else fputs(", dim fidelity", out);
  if (s->like == WEFT_LIKE_ASTRA1)
    fputs(", ASTRA-sim 1.0's training loop (input-grad collectives under weight-grad "
          "compute, weight-grad collectives queued to the end; comm counts their queueing)",
          out);
  else if (run->spec.loop == WEFT_LOOP_TP_DP_OVERLAP)
    fputs(", the weight-grad stream sharing the dims", out);
  else if (run->spec.loop == WEFT_LOOP_FWD_IG_OVERLAP)
    fputs(", the forward/input-grad stream sharing the dims", out);
  int net_lat = 0; /* the analytic model's latency: the network's, once per step */
  for (int d = 0; d < D; d++) net_lat |= run->spec.net->latency_ns[d] > 0;
  fprintf(out, "; the analytic model is the limit of infinitely many chunks, %s, each "
               "collective alone on whole dims\n",
          net_lat ? "the network's latency once per step (not pipelined)" : "no latency");
}

/* One line: name, both sides (divided by scale), the error in %. */
static void row(FILE *out, const char *name, double an, double si, double scale) {
  fprintf(out, "  %-24s %16.6f %16.6f", name, an / scale, si / scale);
  double e = rel(an, si);
  if (e == HUGE_VAL) fprintf(out, " %10s\n", "-");
  else fprintf(out, " %+10.3f\n", fabs(e) < 5e-6 ? 0.0 : 100.0 * e);  /* no "-0.000" */
}

static const char *const SHORT[WEFT_NPHASES] = {"fwd", "ig", "wg"};

static void table(FILE *out, const CliSimRun *run, const WeftEval *ev) {
  int D = run->spec.net->ndims;
  cli_sim_print_head(out, "validate", run);
  note(out, run);
  for (int j = 0; j < run->res.njobs; j++) {
    Side an, si;
    sides(run, ev, j, &an, &si);
    fprintf(out, "\njob %s (weight %g)\n", run->sc->job_name[j], run->spec.jobs[j].weight);
    fprintf(out, "  %-24s %16s %16s %10s\n", "", "analytic", "simulated", "error_%");
    row(out, "time_ms", an.time_ns, si.time_ns, 1e6);
    row(out, "compute_ms", an.compute_ns, si.compute_ns, 1e6);
    char name[40];
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      snprintf(name, sizeof name, "%s_comm_ms", SHORT[ph]);
      row(out, name, an.comm_ns[ph], si.comm_ns[ph], 1e6);
    }
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      snprintf(name, sizeof name, "exposed_%s_comm_ms", SHORT[ph]);
      row(out, name, an.exposed_ns[ph], si.exposed_ns[ph], 1e6);
    }
    for (int d = 0; d < D; d++) {
      snprintf(name, sizeof name, "util_B%d", d + 1);
      row(out, name, an.util[d], si.util[d], 1.0);
    }
  }
  if (run->res.njobs > 1) {
    fputc('\n', out);
    row(out, "time_ms (weighted sum)", ev->time_ns, run->res.time_ns, 1e6);
  }
  fputc('\n', out);
  cli_sim_print_counters(out, run);
}

static void json_side(FILE *out, const Side *s, int D) {
  fputs("{\"time_ns\": ", out);
  cli_json_num(out, s->time_ns);
  fputs(", \"compute_ns\": ", out);
  cli_json_num(out, s->compute_ns);
  fputs(", \"comm_ns\": ", out);
  cli_json_arr(out, s->comm_ns, WEFT_NPHASES);
  fputs(", \"exposed_comm_ns\": ", out);
  cli_json_arr(out, s->exposed_ns, WEFT_NPHASES);
  fputs(", \"dim_util\": ", out);
  cli_json_arr(out, s->util, D);
  fputc('}', out);
}

static void json(FILE *out, const CliSimRun *run, const WeftEval *ev) {
  int D = run->spec.net->ndims;
  fputs("{\n", out);
  cli_sim_json_head(out, run);
  fputs("  \"time_ns\": {\"analytic\": ", out);
  cli_json_num(out, ev->time_ns);
  fputs(", \"simulated\": ", out);
  cli_json_num(out, run->res.time_ns);
  fputs(", \"rel_error\": ", out);
  cli_json_num(out, rel(ev->time_ns, run->res.time_ns));
  fputs("},\n  \"jobs\": [", out);
  for (int j = 0; j < run->res.njobs; j++) {
    Side an, si, er;
    sides(run, ev, j, &an, &si);
    er.time_ns = rel(an.time_ns, si.time_ns);
    er.compute_ns = rel(an.compute_ns, si.compute_ns);
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      er.comm_ns[ph] = rel(an.comm_ns[ph], si.comm_ns[ph]);
      er.exposed_ns[ph] = rel(an.exposed_ns[ph], si.exposed_ns[ph]);
    }
    for (int d = 0; d < D; d++) er.util[d] = rel(an.util[d], si.util[d]);
    fprintf(out, "%s\n    {\"name\": ", j ? "," : "");
    cli_json_str(out, run->sc->job_name[j]);
    fputs(", \"weight\": ", out);
    cli_json_num(out, run->spec.jobs[j].weight);
    fputs(",\n     \"analytic\": ", out);
    json_side(out, &an, D);
    fputs(",\n     \"simulated\": ", out);
    json_side(out, &si, D);
    /* the same keys, each simulated/analytic - 1 (a fraction; null when analytic is 0) */
    fputs(",\n     \"rel_error\": {\"time\": ", out);
    cli_json_num(out, er.time_ns);
    fputs(", \"compute\": ", out);
    cli_json_num(out, er.compute_ns);
    fputs(", \"comm\": ", out);
    cli_json_arr(out, er.comm_ns, WEFT_NPHASES);
    fputs(", \"exposed_comm\": ", out);
    cli_json_arr(out, er.exposed_ns, WEFT_NPHASES);
    fputs(", \"dim_util\": ", out);
    cli_json_arr(out, er.util, D);
    fputs("}}", out);
  }
  fputs("\n  ],\n", out);
  cli_sim_json_counters(out, run);
  fputs("}\n", out);
}

int cmd_validate(int argc, char **argv) {
  CliSimArgs a;
  if (cli_sim_parse(argc, argv, &a)) return EXIT_USAGE;
  if (a.val[CLI_SIM_HELP]) {
    help(stdout);
    return EXIT_OK;
  }
  CliSimRun run;
  WeftEval ev;
  int rc = cli_sim_prepare(&a, "validate", &run);
  if (!rc && weft_problem_evaluate(run.prob, run.bw_gbps, &ev)) {
    cli_fail("the analytic model cannot be evaluated at this bandwidth (a dim with traffic "
             "at 0 GB/s?)");
    rc = EXIT_USAGE;
  }
  if (!rc) rc = cli_sim_run(&run);
  if (!rc) rc = cli_sim_export(&a, &run);
  if (!rc) {
    if (a.val[CLI_SIM_JSON]) json(stdout, &run, &ev);
    else table(stdout, &run, &ev);
    if (a.val[CLI_SIM_EXPORT1] && !a.val[CLI_SIM_JSON])
      cli_astra1_note(stdout, a.val[CLI_SIM_EXPORT1], &run.spec, &run.set);
  }
  cli_sim_free(&run);
  return rc;
}
