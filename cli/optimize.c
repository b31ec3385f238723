/* optimize.c — `weft optimize`: read a scenario or LIBRA's four files,
 * add command-line constraints, solve exactly, report, export. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* One row per option: drives parsing and --help alike. */
typedef struct {
  const char *name;
  const char *arg; /* NULL: a flag */
  const char *help;
} Opt;

enum { O_NETWORK, O_WORKLOAD, O_COMM, O_COST, O_CONSTRAINT, O_OBJECTIVE, O_LOOP, O_JSON,
       O_EXPORT, O_GAPTOL, O_HELP, O_COUNT };

static const Opt opts[O_COUNT] = {
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
    [O_GAPTOL] = {"--gap-tol", "X", "target relative optimality gap (default 1e-9)"},
    [O_HELP] = {"--help", NULL, "this help"},
};

static void help(FILE *out) {
  fputs("usage: weft optimize SCENARIO.yml [options]\n"
        "       weft optimize --network N.yml --workload W.txt --communicator C.yml\n"
        "                     --cost-model M.yml [options]\n\n"
        "Per-dimension bandwidth B1..BD (GB/s per NPU) that minimises iteration time\n"
        "(or time x cost) under linear constraints, with a certified optimality gap,\n"
        "next to the EqualBW baseline. Exit 0 solved, 1 no solution (infeasible,\n"
        "unbounded), 2 bad input.\n\noptions:\n",
        out);
  for (int i = 0; i < O_COUNT; i++) {
    char left[64];
    snprintf(left, sizeof left, "%s%s%s", opts[i].name, opts[i].arg ? " " : "",
             opts[i].arg ? opts[i].arg : "");
    fprintf(out, "  %-22s%s%s\n", left, strlen(left) > 21 ? "\n                        " : "",
            opts[i].help);
  }
}

typedef struct {
  const char *val[O_COUNT];
  const char *cons[WEFT_MAX_CONSTRAINTS];
  int ncons;
  const char *scenario;
} Args;

static int parse_args(int argc, char **argv, Args *a) {
  memset(a, 0, sizeof *a);
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    if (strncmp(s, "--", 2) != 0 || s[2] == '\0') {
      if (a->scenario) {
        cli_fail("optimize takes one scenario file, got '%s' and '%s'", a->scenario, s);
        return -1;
      }
      a->scenario = s;
      continue;
    }
    const char *eq = strchr(s, '=');
    size_t len = eq ? (size_t)(eq - s) : strlen(s);
    int k = -1;
    for (int o = 0; o < O_COUNT; o++)
      if (strlen(opts[o].name) == len && !strncmp(opts[o].name, s, len)) k = o;
    if (k < 0) {
      cli_fail("unknown option '%.*s' (try 'weft optimize --help')", (int)len, s);
      return -1;
    }
    const char *v = "";
    if (opts[k].arg) {
      if (eq) v = eq + 1;
      else if (i + 1 < argc) v = argv[++i];
      else {
        cli_fail("option '%s' needs a value (%s)", opts[k].name, opts[k].arg);
        return -1;
      }
    } else if (eq) {
      cli_fail("option '%s' takes no value", opts[k].name);
      return -1;
    }
    if (k == O_CONSTRAINT) {
      if (a->ncons == WEFT_MAX_CONSTRAINTS) {
        cli_fail("too many --constraint options (at most %d)", WEFT_MAX_CONSTRAINTS);
        return -1;
      }
      a->cons[a->ncons++] = v;
    } else {
      a->val[k] = v;
    }
  }
  return 0;
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
                          "missing %s (or give a scenario file; see 'weft optimize --help')", missing);
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
  if (a.scenario && (a.val[O_NETWORK] || a.val[O_WORKLOAD] || a.val[O_COMM] || a.val[O_COST])) {
    cli_fail("give a scenario file or --network/--workload/--communicator/--cost-model, not both");
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
  st.sc = weft_scenario_create();
  if (!st.sc) {
    cli_fail("out of memory");
    return EXIT_RUNTIME;
  }
  int rc = a.scenario ? weft_scenario_read(a.scenario, st.sc, &err) : load_files(&a, st.sc, &err);
  if (rc) {
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
  return finish(&st, EXIT_OK);
}
