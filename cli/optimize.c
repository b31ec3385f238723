/* optimize.c — `weft optimize`: read a scenario, LIBRA's four files, or a
 * network and cost model with a model from the zoo (inputs.c); add
 * command-line constraints, solve exactly, report, export. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inputs.h"
#include "opts.h"
#include "plot.h"

enum { O_JSON, O_EXPORT, O_EXPORT1, O_PLOT, O_GAPTOL, O_LINKS, O_MAXLINKS, O_MAXNODES,
       O_TIMELIMIT, O_TRAINTOKENS, O_REFINE, O_HELP, O_COUNT };

/* One row per option: drives parsing and --help alike (after the shared
 * input options of inputs.h, before the --model options of model_opts.h). */
static const CliOpt opts[O_COUNT] = {
    [O_JSON] = {"--json", NULL, "print one JSON object instead of the table"},
    [O_EXPORT] = {"--export-astra", "FILE",
                  "write the design as an ASTRA-sim 2.0 network yml (per-link\n"
                  "                        GB/s of 2^30 bytes/s, latency per hop)"},
    [O_EXPORT1] = {"--export-astra1", "DIR",
                   "write the design as ASTRA-sim 1.0 analytical inputs:\n"
                   "                        DIR/network.json (per-link GB/s of 2^30 bytes/s,\n"
                   "                        latency per hop), system.txt, workload.txt\n"
                   "                        (docs/simulate.md)"},
    [O_PLOT] = {"--plot", "FILE", "draw the design vs EqualBW as .png, .svg or .pdf (gnuplot)"},
    [O_GAPTOL] = {"--gap-tol", "X", "target relative optimality gap (default 1e-9)"},
    [O_LINKS] = {"--link-gbps", "R1,...,RD",
                 "whole links: B_d = n_d x R_d GB/s, n_d whole (0 = continuous;\n"
                 "                        the network's LinkGBps; docs/model.md)"},
    [O_MAXLINKS] = {"--max-links", "M1,...,MD",
                    "at most M_d whole links per NPU on dim d (0 = no limit;\n"
                    "                        the network's MaxLinks)"},
    [O_MAXNODES] = {"--max-nodes", "N",
                    "whole links: stop branch and bound after N nodes, the\n"
                    "                        gap left said as such (default 100000)"},
    [O_TIMELIMIT] = {"--time-limit", "S",
                     "whole links: stop branch and bound after S seconds\n"
                     "                        (default 60; 0 = none)"},
    [O_TRAINTOKENS] = {"--train-tokens", "N",
                       "a model job: report the time and cost to train N tokens\n"
                       "                        (docs/model.md \"System cost\")"},
    [O_REFINE] = {"--refine-with-sim", NULL,
                  "re-solve with simulated collective times; takes weft\n"
                  "                        simulate's options (see --refine-with-sim --help)"},
    [O_HELP] = {"--help", NULL, "this help"},
};

typedef struct {
  CliInputs in;
  const char *val[O_COUNT];
} Args;

static void option_sets(Args *a, CliOptSet sets[3]) {
  sets[0] = cli_inputs_set(&a->in);
  sets[1] = (CliOptSet){opts, O_COUNT, a->val, -1, NULL, 0, NULL};
  sets[2] = cli_inputs_model_set(&a->in);
}

static void help(FILE *out) {
  Args a;
  CliOptSet sets[3];
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
  cli_opts_help(out, sets, 3);
}

static int parse_args(int argc, char **argv, Args *a) {
  CliOptSet sets[3];
  int npos;
  memset(a, 0, sizeof *a);
  option_sets(a, sets);
  return cli_opts_parse(argc, argv, sets, 3, &a->in.scenario, 1, &npos);
}

/* Everything optimize owns; freed in one place. */
typedef struct {
  WeftScenario *sc;
  WeftProblem *prob;
  WeftPartChoices *choices;
} State;

/* The plot's titles: the jobs and the network, then the objective, loop
 * and constraints (as many as fit a line). */
static void plot_titles(const WeftScenario *sc, const WeftSpec *spec, char *title, size_t tn,
                        char *sub, size_t sn) {
  char net[256];
  size_t k = 0;
  title[0] = '\0';
  for (int j = 0; j < sc->njobs && k < tn; j++)
    k += (size_t)snprintf(title + k, tn - k, "%s%s", j ? " + " : "", sc->job_name[j]);
  cli_plot_network(&sc->net, net, sizeof net);
  if (k < tn) snprintf(title + k, tn - k, " on %.0f NPUs: %s", weft_network_npus_total(&sc->net), net);
  k = (size_t)snprintf(sub, sn, "objective %s, loop %s", weft_objective_name(spec->objective),
                       weft_loop_name(spec->loop));
  for (int c = 0; c < sc->cons.n && k < sn; c++) {
    if (k + strlen(sc->cons.c[c].text) + 24 > 140) {
      k += (size_t)snprintf(sub + k, sn - k, ", ... (%d constraints)", sc->cons.n);
      break;
    }
    k += (size_t)snprintf(sub + k, sn - k, "%s%s", c ? ", " : "; ", sc->cons.c[c].text);
  }
}

static int finish(State *st, int code) {
  free(st->choices);
  weft_problem_free(st->prob);
  weft_scenario_free(st->sc);
  return code;
}

int cmd_optimize(int argc, char **argv) {
  Args a;
  State st = {0};
  WeftError err;
  weft_error_clear(&err);
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) /* another command line: simulate's options */
    if (!strcmp(argv[i], opts[O_REFINE].name)) {
      memmove(argv + i, argv + i + 1, (size_t)(argc - i) * sizeof *argv); /* keeps argv[argc] */
      return cli_refine(argc - 1, argv);
    }
  if (parse_args(argc, argv, &a)) return EXIT_USAGE;
  if (a.val[O_HELP]) {
    help(stdout);
    return EXIT_OK;
  }
  if (cli_inputs_check(&a.in)) return EXIT_USAGE;
  WeftSettings set;
  weft_settings_default(&set);
  if (a.val[O_GAPTOL]) {
    if (cli_number(a.val[O_GAPTOL], strlen(a.val[O_GAPTOL]), WEFT_MIN_GAP_TOL, 0,
                   &set.gap_tol) || set.gap_tol > 1.0) {
      cli_fail("--gap-tol '%s': expected a number in [" CLI_TEXT(WEFT_MIN_GAP_TOL) ", 1]",
               a.val[O_GAPTOL]);
      return EXIT_USAGE;
    }
  }
  long long nodes;
  const char *mn = a.val[O_MAXNODES], *tl = a.val[O_TIMELIMIT];
  if (mn) {
    if (cli_int_value(mn, strlen(mn), 1, INT_MAX, &nodes)) {
      cli_fail("--max-nodes '%s': expected an integer in 1..%d", mn, INT_MAX);
      return EXIT_USAGE;
    }
    set.max_nodes = (int)nodes;
  }
  if (tl && cli_number(tl, strlen(tl), 0.0, 0, &set.time_limit_s)) {
    cli_fail("--time-limit '%s': expected a non-negative number of seconds (0: none)", tl);
    return EXIT_USAGE;
  }
  const char *const onames[2] = {"--export-astra", "--plot"},
                    *opaths[2] = {a.val[O_EXPORT], a.val[O_PLOT]};
  if (cli_out_check("--export-astra", a.val[O_EXPORT]) ||
      cli_out_check("--export-astra1", a.val[O_EXPORT1]) || cli_out_distinct(2, onames, opaths))
    return EXIT_USAGE;
  double train_tokens = 0.0;
  const char *tt = a.val[O_TRAINTOKENS];
  if (tt && (cli_number(tt, strlen(tt), 0.0, 1, &train_tokens) || !(train_tokens <= 1e30))) {
    cli_fail("--train-tokens '%s': expected a positive number of tokens (at most 1e30)", tt);
    return EXIT_USAGE;
  }
  int prc = a.val[O_PLOT] ? cli_plot_check(a.val[O_PLOT]) : 0;
  if (prc) return prc;
  int rc = cli_inputs_load(&a.in, "optimize", &st.sc);
  if (rc) return rc;
  if ((rc = cli_links_apply(a.val[O_LINKS], a.val[O_MAXLINKS], &st.sc->net)))
    return finish(&st, rc);
  WeftPartChoices *pc = NULL;  /* a choice of parts: each combination solved, the best kept */
  if (weft_parts_choices(&st.sc->net) > 1) {
    if (!(pc = st.choices = malloc(sizeof *pc))) {
      cli_fail("out of memory");
      return finish(&st, EXIT_RUNTIME);
    }
    const char *zoo = a.in.mval[CLI_MO_ZOO] ? a.in.mval[CLI_MO_ZOO] : cli_zoo_dir();
    if ((rc = weft_parts_choose(st.sc, zoo, &set, pc, &err))) {
      cli_error(&err);
      return finish(&st, rc == WEFT_ENOMEM || rc == WEFT_ESOLVER ? EXIT_RUNTIME : EXIT_USAGE);
    }
  }
  WeftSpec spec;
  weft_scenario_spec(st.sc, &spec);
  /* Tokens per iteration: known for one model job (the generator's). */
  double tokens = spec.njobs == 1 ? st.sc->tokens_per_iteration[0] : 0.0;
  if (tt && !(tokens > 0.0)) {
    cli_fail("--train-tokens needs one model job (--model, or a scenario whose one workload is "
             "a model mapping): only there are the tokens per iteration known");
    return finish(&st, EXIT_USAGE);
  }
  if (a.val[O_EXPORT1] && (rc = cli_astra1_check(&spec))) return finish(&st, rc);
  rc = weft_problem_create(&spec, &st.prob, &err);
  WeftWholeResult whole;
  int has_whole = 0;
  for (int d = 0; d < st.sc->net.ndims; d++) has_whole |= st.sc->net.link_gbps[d] > 0.0;
  if (!rc && has_whole) rc = weft_whole_solve(&spec, &set, &whole, &err);
  if (rc) {
    cli_error(&err);
    return finish(&st, rc == WEFT_ENOMEM || rc == WEFT_ESOLVER ? EXIT_RUNTIME : EXIT_USAGE);
  }
  WeftResult res;
  if (has_whole) res = whole.result;
  else weft_problem_solve(st.prob, &set, &res);
  int solved = res.status == WEFT_STATUS_SOLVED;
  double eq_bw[WEFT_MAX_DIMS] = {0};
  char eq_why[256] = "";
  WeftEval eq;
  memset(&eq, 0, sizeof eq);
  Report r = {.spec = &spec, .res = &res, .whole = has_whole ? &whole : NULL,
              .system = weft_cost_model_has_system(&st.sc->cost) ||
                        spec.objective == WEFT_OBJ_COST_PER_ITERATION,
              .tokens_per_iteration = tokens, .train_tokens = train_tokens,
              .parts = weft_network_has_parts(&st.sc->net) ? st.sc->parts : NULL,
              .choices = pc};
  weft_system_cost_resolved(&st.sc->cost, &r.sys);
  for (int j = 0; j < spec.njobs; j++) r.job_names[j] = st.sc->job_name[j];
  if (solved) { /* the best equal split that meets the constraints, if any */
    if (weft_problem_equal_bw(st.prob, eq_bw, eq_why, sizeof eq_why)) {
      weft_problem_evaluate(st.prob, eq_bw, &eq);
      r.equal = &eq;
      r.equal_bw_gbps = eq_bw;
    } else { /* the plot leaves the baseline out (NaN: gnuplot's missing data) */
      r.equal_none = eq_why;
      for (int d = 0; d < res.ndims; d++) eq_bw[d] = (double)NAN;
      eq.time_ns = eq.cost_usd = eq.perf_per_cost = (double)NAN;
      eq.job[0].compute_ns = (double)NAN;
      for (int ph = 0; ph < WEFT_NPHASES; ph++) eq.job[0].comm_ns[ph] = (double)NAN;
    }
  }
  const char *export_path = a.val[O_EXPORT];
  if (export_path && solved &&
      weft_astra_network_write(export_path, &st.sc->net, res.bw_gbps, NULL, &err)) {
    cli_error(&err);
    return finish(&st, EXIT_RUNTIME);
  }
  WeftSimSettings as1;
  cli_astra1_settings(&st.sc->net, &as1);
  if (a.val[O_EXPORT1] && solved &&
      (rc = cli_export_astra1(a.val[O_EXPORT1], &spec, res.bw_gbps, &as1)))
    return finish(&st, rc);
  if (a.val[O_JSON]) report_json(stdout, &r);
  else report_table(stdout, &r);
  if (a.val[O_EXPORT1] && solved && !a.val[O_JSON])
    cli_astra1_note(stdout, a.val[O_EXPORT1], &spec, &as1);
  if (!solved) {
    cli_fail("%s: %s%s", weft_status_name(res.status), res.message,
             export_path || a.val[O_EXPORT1] ? " (nothing exported)" : "");
    return finish(&st, EXIT_RUNTIME);
  }
  if (a.val[O_PLOT]) { /* one design: no Pareto set (npoints 0) */
    char title[512], sub[256];
    plot_titles(st.sc, &spec, title, sizeof title, sub, sizeof sub);
    PlotData pd = {.title = title, .subtitle = sub, .objective = spec.objective,
                   .net = &st.sc->net,
                   .bw_gbps = res.bw_gbps, .equal_bw_gbps = eq_bw,
                   .chosen_cost_usd = res.eval.cost_usd, .chosen_time_ns = res.eval.time_ns,
                   .equal_cost_usd = eq.cost_usd, .equal_time_ns = eq.time_ns};
    cli_plot_times(&spec, &res.eval, &pd.compute_ns, pd.comm_ns);
    cli_plot_times(&spec, &eq, &pd.equal_compute_ns, pd.equal_comm_ns);
    if ((rc = cli_plot(a.val[O_PLOT], &pd))) return finish(&st, rc);
  }
  return finish(&st, EXIT_OK);
}
