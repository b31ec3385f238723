/* optimize.c — `weft optimize`: read a scenario, LIBRA's four files, or a
 * network and cost model with a model from the zoo; add command-line
 * constraints, solve exactly, report, export. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "model_opts.h"
#include "opts.h"

enum { O_NETWORK, O_WORKLOAD, O_COMM, O_COST, O_CONSTRAINT, O_OBJECTIVE, O_LOOP, O_JSON,
       O_EXPORT, O_PLOT, O_GAPTOL, O_HELP, O_COUNT };

/* One row per option: drives parsing and --help alike (with the shared
 * --model options of model_opts.h after these). */
static const CliOpt opts[O_COUNT] = {
    [O_NETWORK] = {"--network", "FILE", "LIBRA network yml (Topology, NpusCount, CostDimension)"},
    [O_WORKLOAD] = {"--workload", "FILE", "ASTRA-sim 1.0 workload text (12 fields per layer)"},
    [O_COMM] = {"--communicator", "FILE", "LIBRA communicator yml (Forward, InputGrad, WeightGrad)"},
    [O_COST] = {"--cost-model", "FILE", "LIBRA cost-model yml ($ per GB/s of Link, Switch, Nic)"},
    [O_CONSTRAINT] = {"--constraint", "EXPR",
                      "linear constraint over B1..BD, sum, cost (repeatable):\n"
                      "                        'sum = 1000', 'B1 >= B2 >= B3', 'cost <= 2e7'"},
    [O_OBJECTIVE] = {"--objective", "perf|perf-per-cost", "minimise time, or time x cost (default perf)"},
    [O_LOOP] = {"--loop", "no-overlap|tp-dp-overlap", "training loop (default no-overlap)"},
    [O_JSON] = {"--json", NULL, "print one JSON object instead of the table"},
    [O_EXPORT] = {"--export-astra", "FILE", "write the design as an ASTRA-sim 2.0 network yml"},
    [O_PLOT] = {"--plot", "FILE", "draw the design vs EqualBW as .png or .svg (needs gnuplot)"},
    [O_GAPTOL] = {"--gap-tol", "X", "target relative optimality gap (default 1e-9)"},
    [O_HELP] = {"--help", NULL, "this help"},
};

typedef struct {
  const char *val[O_COUNT];
  const char *mval[CLI_MO_COUNT];  /* --model, --tp, ... (model_opts.h) */
  const char *cons[WEFT_MAX_CONSTRAINTS];
  int ncons;
  const char *scenario;
} Args;

static void option_sets(Args *a, CliOptSet sets[2]) {
  sets[0] = (CliOptSet){opts, O_COUNT, a->val, O_CONSTRAINT, a->cons, WEFT_MAX_CONSTRAINTS,
                        &a->ncons};
  sets[1] = (CliOptSet){cli_model_opts, CLI_MO_COUNT, a->mval, -1, NULL, 0, NULL};
}

static void help(FILE *out) {
  Args a;
  CliOptSet sets[2];
  option_sets(&a, sets);
  fputs("usage: weft optimize SCENARIO.yml [options]\n"
        "       weft optimize --network N.yml --workload W.txt --communicator C.yml\n"
        "                     --cost-model M.yml [options]\n"
        "       weft optimize --model NAME [--tp T --pp P ...] --network N.yml\n"
        "                     --cost-model M.yml [options]\n\n"
        "Per-dimension bandwidth B1..BD (GB/s per NPU) that minimises iteration time\n"
        "(or time x cost) under linear constraints, with a certified optimality gap,\n"
        "next to the EqualBW baseline. With --model, the job's workload and\n"
        "communicator are generated from the model zoo for the parallelization\n"
        "given (as a scenario's {model: ...} workload). Exit 0 solved, 1 no\n"
        "solution (infeasible, unbounded), 2 bad input (also a job that does not\n"
        "fit in memory).\n\noptions:\n",
        out);
  cli_opts_help(out, sets, 2);
}

static int parse_args(int argc, char **argv, Args *a) {
  CliOptSet sets[2];
  int npos;
  memset(a, 0, sizeof *a);
  option_sets(a, sets);
  return cli_opts_parse(argc, argv, sets, 2, &a->scenario, 1, &npos);
}

/* Everything optimize owns; freed in one place. */
typedef struct {
  WeftScenario *sc;
  WeftProblem *prob;
} State;

static int finish(State *st, int code) {
  weft_problem_free(st->prob);
  weft_scenario_free(st->sc);
  return code;
}

/* *out = 0 or 1 for the value named n0 or n1 (the library's own names). */
static int choose(const char *flag, const char *v, const char *n0, const char *n1, int *out) {
  if (!strcmp(v, n0)) *out = 0;
  else if (!strcmp(v, n1)) *out = 1;
  else {
    cli_fail("%s '%s': expected %s or %s", flag, v, n0, n1);
    return -1;
  }
  return 0;
}

static int load_files(const Args *a, WeftScenario *sc, WeftError *err) {
  static const int need[] = {O_NETWORK, O_WORKLOAD, O_COMM, O_COST};
  char missing[128] = "";
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    if (!a->val[need[i]]) {
      strcat(missing, missing[0] ? ", " : "");
      strcat(missing, opts[need[i]].name);
    }
  if (missing[0])
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL,
                          "missing %s (or give a scenario file, or --model; see 'weft optimize "
                          "--help')",
                          missing);
  int rc = weft_network_read(a->val[O_NETWORK], &sc->net, err);
  if (!rc) rc = weft_cost_model_read(a->val[O_COST], &sc->cost, err);
  if (!rc) rc = weft_communicator_read(a->val[O_COMM], &sc->comm[0], err);
  if (!rc) rc = weft_workload_read(a->val[O_WORKLOAD], &sc->workload[0], err);
  if (rc) return rc;
  sc->njobs = 1;
  sc->weight[0] = 1.0;
  const char *base = strrchr(a->val[O_WORKLOAD], '/');
  base = base ? base + 1 : a->val[O_WORKLOAD];
  snprintf(sc->job_name[0], sizeof sc->job_name[0], "%.*s", (int)strcspn(base, "."), base);
  double scratch[WEFT_MAX_DIMS];
  rc = weft_communicator_check(&sc->comm[0], &sc->net, err);
  if (!rc) rc = weft_cost_per_gbps(&sc->net, &sc->cost, scratch, err);
  return rc;
}

/* --model: network and cost model from their files, the job generated from
 * the zoo by the same library call as a scenario's model workload. A bad
 * option value is printed here and gives WEFT_EINVAL with err->msg empty. */
static int load_model(const Args *a, WeftScenario *sc, WeftError *err) {
  if (!a->val[O_NETWORK] || !a->val[O_COST])
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "--model needs %s%s%s",
                          a->val[O_NETWORK] ? "" : "--network",
                          !a->val[O_NETWORK] && !a->val[O_COST] ? " and " : "",
                          a->val[O_COST] ? "" : "--cost-model");
  if (a->val[O_WORKLOAD] || a->val[O_COMM])
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL,
                          "--model generates the workload and communicator: drop %s",
                          a->val[O_WORKLOAD] ? "--workload" : "--communicator");
  CliModel *cm = malloc(sizeof *cm);  /* holds a WeftModel: kept off the stack */
  if (!cm) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  if (cli_model_opts_apply(a->mval, cm)) {
    free(cm);
    weft_error_clear(err);
    err->code = WEFT_EINVAL;  /* printed already */
    return WEFT_EINVAL;
  }
  if (!cm->dp_given) cm->par.dp = 0;  /* NPUs / (tp x pp), on the network read below */
  double scratch[WEFT_MAX_DIMS];
  int rc = weft_network_read(a->val[O_NETWORK], &sc->net, err);
  if (!rc) rc = weft_cost_model_read(a->val[O_COST], &sc->cost, err);
  if (!rc) rc = weft_cost_per_gbps(&sc->net, &sc->cost, scratch, err);
  if (!rc)
    rc = weft_scenario_add_model_job(sc, cm->zoo_dir, cm->model_name, cm->device_name,
                                     &cm->par, err);
  if (!rc) rc = weft_communicator_check(&sc->comm[0], &sc->net, err);
  free(cm);
  return rc;
}

int cmd_optimize(int argc, char **argv) {
  Args a;
  State st = {0};
  WeftError err;
  weft_error_clear(&err);
  if (parse_args(argc, argv, &a)) return EXIT_USAGE;
  if (a.val[O_HELP]) {
    help(stdout);
    return EXIT_OK;
  }
  if (a.scenario && (a.val[O_NETWORK] || a.val[O_WORKLOAD] || a.val[O_COMM] || a.val[O_COST] ||
                     a.mval[CLI_MO_MODEL])) {
    cli_fail("give a scenario file or --network/--workload/--communicator/--cost-model/--model, "
             "not both");
    return EXIT_USAGE;
  }
  for (int k = 0; k < CLI_MO_COUNT; k++)
    if (!a.mval[CLI_MO_MODEL] && a.mval[k] && k != CLI_MO_ZOO) {
      cli_fail("%s goes with --model (a job from the model zoo)", cli_model_opts[k].name);
      return EXIT_USAGE;
    }
  WeftSettings set;
  weft_settings_default(&set);
  if (a.val[O_GAPTOL]) {
    char *end;
    errno = 0;
    set.gap_tol = strtod(a.val[O_GAPTOL], &end);
    if (errno || *end || !(set.gap_tol > 0) || !isfinite(set.gap_tol)) {
      cli_fail("--gap-tol '%s': expected a positive number", a.val[O_GAPTOL]);
      return EXIT_USAGE;
    }
  }
  if (a.val[O_PLOT] && cli_plot_check(a.val[O_PLOT])) return EXIT_USAGE;
  st.sc = weft_scenario_create();
  if (!st.sc) {
    cli_fail("out of memory");
    return EXIT_RUNTIME;
  }
  const char *zoo = a.mval[CLI_MO_ZOO] ? a.mval[CLI_MO_ZOO] : cli_zoo_dir();
  const char *model = a.mval[CLI_MO_MODEL];
  int rc = a.scenario ? weft_scenario_read_zoo(a.scenario, zoo, st.sc, &err)
           : model    ? load_model(&a, st.sc, &err)
                      : load_files(&a, st.sc, &err);
  if (rc) {
    if (model && !err.file[0] && rc != WEFT_EINVAL)  /* the generator's: say whose */
      cli_fail("--model %s: %s", model, err.msg);
    else if (err.msg[0])
      cli_error(&err);
    return finish(&st, rc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE);
  }
  for (int i = 0; i < a.ncons; i++) {
    if (weft_constraints_parse(&st.sc->cons, a.cons[i], st.sc->net.ndims, &err)) {
      cli_fail("--constraint '%s': column %d: %s", a.cons[i], err.col, err.msg);
      return finish(&st, EXIT_USAGE);
    }
  }
  if ((a.val[O_OBJECTIVE] &&
       choose(opts[O_OBJECTIVE].name, a.val[O_OBJECTIVE], weft_objective_name(WEFT_OBJ_PERF),
              weft_objective_name(WEFT_OBJ_PERF_PER_COST), &st.sc->objective)) ||
      (a.val[O_LOOP] &&
       choose(opts[O_LOOP].name, a.val[O_LOOP], weft_loop_name(WEFT_LOOP_NO_OVERLAP),
              weft_loop_name(WEFT_LOOP_TP_DP_OVERLAP), &st.sc->loop)))
    return finish(&st, EXIT_USAGE);
  WeftSpec spec;
  weft_scenario_spec(st.sc, &spec);
  rc = weft_problem_create(&spec, &st.prob, &err);
  if (rc) {
    cli_error(&err);
    return finish(&st, rc == WEFT_ENOMEM || rc == WEFT_ESOLVER ? EXIT_RUNTIME : EXIT_USAGE);
  }
  WeftResult res;
  weft_problem_solve(st.prob, &set, &res);
  int solved = res.status == WEFT_STATUS_SOLVED;
  double eq_bw[WEFT_MAX_DIMS];
  WeftEval eq;
  Report r = {&spec, &res, NULL, NULL, {0}};
  for (int j = 0; j < spec.njobs; j++) r.job_names[j] = st.sc->job_name[j];
  if (solved) {
    weft_equal_bw(res.bw_gbps, res.ndims, eq_bw);
    weft_problem_evaluate(st.prob, eq_bw, &eq);
    r.equal = &eq;
    r.equal_bw_gbps = eq_bw;
  }
  if (a.val[O_EXPORT] && solved &&
      weft_astra_network_write(a.val[O_EXPORT], &st.sc->net, res.bw_gbps, NULL, &err)) {
    cli_error(&err);
    return finish(&st, EXIT_RUNTIME);
  }
  if (a.val[O_JSON]) report_json(stdout, &r);
  else report_table(stdout, &r);
  if (!solved) {
    cli_fail("%s: %s%s", weft_status_name(res.status), res.message,
             a.val[O_EXPORT] ? " (nothing exported)" : "");
    return finish(&st, EXIT_RUNTIME);
  }
  if (a.val[O_PLOT]) { /* one design: no Pareto set (npoints 0) */
    PlotData pd = {.title = a.scenario ? a.scenario : model ? model : a.val[O_WORKLOAD],
                   .ndims = res.ndims,
                   .bw_gbps = res.bw_gbps, .equal_bw_gbps = eq_bw,
                   .chosen_cost_usd = res.eval.cost_usd, .chosen_time_ns = res.eval.time_ns,
                   .equal_cost_usd = eq.cost_usd, .equal_time_ns = eq.time_ns};
    cli_plot_times(&spec, &res.eval, &pd.compute_ns, pd.comm_ns);
    cli_plot_times(&spec, &eq, &pd.equal_compute_ns, pd.equal_comm_ns);
    if ((rc = cli_plot(a.val[O_PLOT], &pd))) return finish(&st, rc);
  }
  return finish(&st, EXIT_OK);
}
