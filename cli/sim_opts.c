/* sim_opts.c — the options `weft simulate` and `weft validate` share, the
 * settings and bandwidth they give, one simulated run, and the report head
 * and counters both commands print. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "sim_opts.h"

#define MAX_CHUNKS 1000000  /* bounds the events per collective a run can ask for */

const CliOpt cli_sim_opts[CLI_SIM_COUNT] = {
    [CLI_SIM_BW] = {"--bw", "B1,...,BD",
                    "GB/s per NPU per dim (default: the optimum, solved as\n"
                    "                        weft optimize would under the constraints given)"},
    [CLI_SIM_CHUNKS] = {"--chunks", "C", "chunks per collective (default 64)"},
    [CLI_SIM_INFLIGHT] = {"--in-flight", "K",
                          "chunks of a collective in a stage on a dim at once; they send\n"
                          "                        one at a time, latency overlapped (default 0:\n"
                          "                        every chunk, as NCCL's window; docs/simulate.md)"},
    [CLI_SIM_LATENCY] = {"--latency-ns", "L|L1,...,LD",
                         "per-step latency: one value, or one per dim (default 0)"},
    [CLI_SIM_ENDPOINT] = {"--endpoint-delay-ns", "E", "delay per step at the receiver (default 0)"},
    [CLI_SIM_ALG] = {"--algorithm", "A|A1,...,AD",
                     "default|ring|direct|hd, one or one per dim (default:\n"
                     "                        Ring ring, FullyConnected direct, Switch hd)"},
    [CLI_SIM_FIDELITY] = {"--fidelity", "dim|link",
                          "a dim as one shared resource, or every link of the NPU\n"
                          "                        graph (default dim)"},
    [CLI_SIM_SHARING] = {"--sharing", "maxmin|fifo",
                         "link fidelity: how flows share a link (default maxmin)"},
    [CLI_SIM_LIKE] = {"--like", "weft|astra-sim",
                      "whose semantics: weft's, or ASTRA-sim 1.0's analytical\n"
                      "                        backend (its training loop, queues, no link\n"
                      "                        sharing, per-hop latency; endpoint delay\n"
                      "                        default 10 ns; docs/simulate.md) (default weft)"},
    [CLI_SIM_ASTRA_SYS] = {"--astra-system", "FILE",
                           "an ASTRA-sim 1.0 system file (as --export-astra1 writes):\n"
                           "                        its chunks, active chunks, endpoint delay and\n"
                           "                        algorithms, with --like astra-sim"},
    [CLI_SIM_EXPORT1] = {"--export-astra1", "DIR",
                         "write the design and these settings as ASTRA-sim 1.0\n"
                         "                        analytical inputs (network.json: per-link GB/s\n"
                         "                        of 2^30 bytes/s, latency per hop; system.txt;\n"
                         "                        workload.txt)"},
    [CLI_SIM_JSON] = {"--json", NULL, "print one JSON object instead of the table"},
    [CLI_SIM_TRACE] = {"--trace", "FILE",
                       "timeline as Chrome trace-event JSON (ui.perfetto.dev)"},
    [CLI_SIM_TRACE_STAGES] = {"--trace-stages", NULL,
                              "also trace every chunk's per-dim stages (large)"},
    [CLI_SIM_TRACE_MAX] = {"--trace-max-mib", "M",
                           "stop tracing events past M MiB (default 1024; the trace\n"
                           "                        stays valid JSON and says so)"},
    [CLI_SIM_MAX_WORK] = {"--max-work", "N",
                          "refuse a run estimated at more than N events + flows +\n"
                          "                        links (default 1e9, minutes; 0: no limit)"},
    [CLI_SIM_GAPTOL] = {"--gap-tol", "X", "target relative optimality gap of the solve (1e-9)"},
    [CLI_SIM_PROGRESS] = {"--progress", "S",
                          "seconds between progress lines when stderr is not a\n"
                          "                        terminal (default 5; 0: no progress at all)"},
    [CLI_SIM_HELP] = {"--help", NULL, "this help"},
};

static void option_sets(CliSimArgs *a, CliOptSet sets[3]) {
  sets[0] = cli_inputs_set(&a->in);
  sets[1] = (CliOptSet){cli_sim_opts, CLI_SIM_COUNT, a->val, -1, NULL, 0, NULL};
  sets[2] = cli_inputs_model_set(&a->in);
}

int cli_sim_parse(int argc, char **argv, CliSimArgs *a) {
  CliOptSet sets[3];
  int npos;
  memset(a, 0, sizeof *a);
  option_sets(a, sets);
  return cli_opts_parse(argc, argv, sets, 3, &a->in.scenario, 1, &npos) ? EXIT_USAGE : 0;
}

void cli_sim_help_options(FILE *out) {
  CliSimArgs a;
  CliOptSet sets[3];
  option_sets(&a, sets);
  cli_opts_help(out, sets, 3);
}

const char *cli_fidelity_name(WeftFidelity f) { return f == WEFT_FIDELITY_LINK ? "link" : "dim"; }
const char *cli_sharing_name(WeftSharing s) { return s == WEFT_SHARE_FIFO ? "fifo" : "maxmin"; }
const char *cli_like_name(WeftSimLike l) { return l == WEFT_LIKE_ASTRA1 ? "astra-sim" : "weft"; }

/* ------------------------------------------------------------ option values */

/* "B1,B2,B3" for the error messages. */
static const char *dim_names(int ndims, char *buf, size_t size) {
  buf[0] = '\0';
  for (int d = 0; d < ndims; d++) {
    size_t n = strlen(buf);
    snprintf(buf + n, size - n, "%sB%d", d ? "," : "", d + 1);
  }
  return buf;
}

/* Split v on commas: the count (commas + 1) and up to max tokens. */
static int split(const char *v, const char **tok, size_t *len, int max) {
  int n = 0;
  for (const char *p = v;; n++) {
    const char *c = strchr(p, ',');
    size_t l = c ? (size_t)(c - p) : strlen(p);
    while (l && (*p == ' ' || *p == '\t')) p++, l--;
    if (n < max) tok[n] = p, len[n] = l;
    if (!c) return n + 1;
    p = c + 1;
  }
}

/* The count of a per-dim list: ndims, or 1 when one value may stand for
 * every dim (one_ok). Prints and returns -1 otherwise. */
static int list_count(const char *flag, const char *v, int n, int ndims, int one_ok) {
  if (n == ndims || (one_ok && n == 1)) return 0;
  char names[WEFT_MAX_DIMS * 4];
  dim_names(ndims, names, sizeof names);
  if (one_ok && ndims > 1)
    cli_fail("%s '%s': expected 1 value (every dim) or %d, one per dim (%s), got %d", flag, v,
             ndims, names, n);
  else
    cli_fail("%s '%s': expected %d value%s, one per dim (%s), got %d", flag, v, ndims,
             ndims == 1 ? "" : "s", names, n);
  return -1;
}

/* A per-dim list of numbers in [lo, hi] into out[ndims]; what says which
 * ("a non-negative number"). */
static int num_list(const char *flag, const char *v, int ndims, int one_ok, double lo,
                    double hi, const char *what, double *out) {
  const char *tok[WEFT_MAX_DIMS];
  size_t len[WEFT_MAX_DIMS];
  int n = split(v, tok, len, WEFT_MAX_DIMS);
  if (list_count(flag, v, n, ndims, one_ok)) return -1;
  for (int d = 0; d < n; d++)
    if (cli_number(tok[d], len[d], lo, 0, &out[d]) || out[d] > hi) {
      cli_fail("%s '%s': B%d must be %s, got '%.*s'", flag, v, d + 1, what, (int)len[d], tok[d]);
      return -1;
    }
  for (int d = n; d < ndims; d++) out[d] = out[0];
  return 0;
}

static int alg_list(const char *flag, const char *v, int ndims, WeftAlgorithm *out) {
  const char *tok[WEFT_MAX_DIMS];
  size_t len[WEFT_MAX_DIMS];
  int n = split(v, tok, len, WEFT_MAX_DIMS);
  if (list_count(flag, v, n, ndims, 1)) return -1;
  for (int d = 0; d < n; d++) {
    size_t l = len[d];
    while (l && (tok[d][l - 1] == ' ' || tok[d][l - 1] == '\t')) l--;
    int k = 0;
    while (k < WEFT_NALG && (strlen(weft_algorithm_name((WeftAlgorithm)k)) != l ||
                             strncmp(weft_algorithm_name((WeftAlgorithm)k), tok[d], l)))
      k++;
    if (k == WEFT_NALG) {
      if (n == 1) cli_fail("%s '%s': expected default, ring, direct or hd", flag, v);
      else
        cli_fail("%s '%s': B%d must be default, ring, direct or hd, got '%.*s'", flag, v, d + 1,
                 (int)len[d], tok[d]);
      return -1;
    }
    out[d] = (WeftAlgorithm)k;
  }
  for (int d = n; d < ndims; d++) out[d] = out[0];
  return 0;
}

/* The values that need no input file. */
static int scalar_options(const char *const *val, WeftSimSettings *s, WeftSettings *solve,
                          double *trace_mib) {
  const CliOpt *o = cli_sim_opts;
  int fid = 0, shr = 0, like = 0;
  if (val[CLI_SIM_CHUNKS] &&
      cli_opt_int(o[CLI_SIM_CHUNKS].name, val[CLI_SIM_CHUNKS], 1, MAX_CHUNKS, &s->chunks))
    return -1;
  if (val[CLI_SIM_INFLIGHT] &&
      cli_opt_int(o[CLI_SIM_INFLIGHT].name, val[CLI_SIM_INFLIGHT], 0, MAX_CHUNKS, &s->in_flight))
    return -1;
  if (val[CLI_SIM_ENDPOINT] &&
      cli_number(val[CLI_SIM_ENDPOINT], strlen(val[CLI_SIM_ENDPOINT]), 0.0, 0,
              &s->endpoint_delay_ns)) {
    cli_fail("%s '%s': expected a non-negative number", o[CLI_SIM_ENDPOINT].name,
             val[CLI_SIM_ENDPOINT]);
    return -1;
  }
  if (val[CLI_SIM_FIDELITY] &&
      cli_opt_choose(o[CLI_SIM_FIDELITY].name, val[CLI_SIM_FIDELITY], "dim", "link", &fid))
    return -1;
  if (val[CLI_SIM_SHARING] &&
      cli_opt_choose(o[CLI_SIM_SHARING].name, val[CLI_SIM_SHARING], "maxmin", "fifo", &shr))
    return -1;
  if (val[CLI_SIM_LIKE] &&
      cli_opt_choose(o[CLI_SIM_LIKE].name, val[CLI_SIM_LIKE], "weft", "astra-sim", &like))
    return -1;
  s->fidelity = fid ? WEFT_FIDELITY_LINK : WEFT_FIDELITY_DIM;
  s->sharing = shr ? WEFT_SHARE_FIFO : WEFT_SHARE_MAXMIN;
  s->like = like ? WEFT_LIKE_ASTRA1 : WEFT_LIKE_WEFT;
  if (like && fid) {
    cli_fail("--like astra-sim runs at dim fidelity (ASTRA-sim's analytical backend shares no "
             "link): drop --fidelity link");
    return -1;
  }
  if (like && !val[CLI_SIM_ENDPOINT]) s->endpoint_delay_ns = WEFT_ASTRA_ENDPOINT_NS;
  static const int by_file[] = {CLI_SIM_CHUNKS, CLI_SIM_INFLIGHT, CLI_SIM_ENDPOINT, CLI_SIM_ALG};
  for (size_t k = 0; val[CLI_SIM_ASTRA_SYS] && k < sizeof by_file / sizeof by_file[0]; k++)
    if (val[by_file[k]]) {
      cli_fail("--astra-system gives %s: drop one", o[by_file[k]].name);
      return -1;
    }
  if (val[CLI_SIM_ASTRA_SYS] && val[CLI_SIM_LIKE] && !like) {
    cli_fail("--astra-system runs with --like astra-sim, not --like weft");
    return -1;
  }
  if (val[CLI_SIM_ASTRA_SYS] && fid) {
    cli_fail("--astra-system runs at dim fidelity: drop --fidelity link");
    return -1;
  }
  if (val[CLI_SIM_SHARING] && s->fidelity != WEFT_FIDELITY_LINK) {
    cli_fail("--sharing goes with --fidelity link (a dim is shared equally)");
    return -1;
  }
  if (val[CLI_SIM_TRACE_STAGES] && !val[CLI_SIM_TRACE]) {
    cli_fail("--trace-stages goes with --trace FILE");
    return -1;
  }
  s->stage_spans = val[CLI_SIM_TRACE_STAGES] != NULL;
  if (val[CLI_SIM_MAX_WORK] &&
      cli_number(val[CLI_SIM_MAX_WORK], strlen(val[CLI_SIM_MAX_WORK]), 0.0, 0, &s->max_work)) {
    cli_fail("--max-work '%s': expected a non-negative number (0: no limit)",
             val[CLI_SIM_MAX_WORK]);
    return -1;
  }
  *trace_mib = CLI_TRACE_MAX_MIB;
  if (val[CLI_SIM_TRACE_MAX] && !val[CLI_SIM_TRACE]) {
    cli_fail("--trace-max-mib goes with --trace FILE");
    return -1;
  }
  if (val[CLI_SIM_TRACE_MAX] &&
      cli_number(val[CLI_SIM_TRACE_MAX], strlen(val[CLI_SIM_TRACE_MAX]), 0.0, 1, trace_mib)) {
    cli_fail("--trace-max-mib '%s': expected a positive number", val[CLI_SIM_TRACE_MAX]);
    return -1;
  }
  if (val[CLI_SIM_GAPTOL] &&
      (cli_number(val[CLI_SIM_GAPTOL], strlen(val[CLI_SIM_GAPTOL]), WEFT_MIN_GAP_TOL, 0,
                  &solve->gap_tol) || solve->gap_tol > 1.0)) {
    cli_fail("--gap-tol '%s': expected a number in [" CLI_TEXT(WEFT_MIN_GAP_TOL) ", 1]",
             val[CLI_SIM_GAPTOL]);
    return -1;
  }
  if (val[CLI_SIM_GAPTOL] && val[CLI_SIM_BW]) {
    cli_fail("--gap-tol is for the solve, which --bw replaces: drop one");
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------ the run */

int cli_sim_prepare(const CliSimArgs *a, const char *cmd, CliSimRun *run) {
  const char *const *val = a->val;
  WeftSettings solve;
  WeftError err;
  weft_error_clear(&err);
  memset(run, 0, sizeof *run);
  weft_sim_settings_default(&run->set);
  weft_settings_default(&solve);
  double trace_mib;
  if (cli_inputs_check(&a->in) || scalar_options(val, &run->set, &solve, &trace_mib) ||
      cli_out_check("--trace", val[CLI_SIM_TRACE]) ||
      cli_out_check("--export-astra1", val[CLI_SIM_EXPORT1]))
    return EXIT_USAGE;
  run->trace_max_bytes = trace_mib * 1048576.0;
  run->progress_s = -1.0;
  if (val[CLI_SIM_PROGRESS] && cli_progress_option(val[CLI_SIM_PROGRESS], &run->progress_s))
    return EXIT_USAGE;
  int rc = cli_inputs_load(&a->in, cmd, &run->sc);
  if (rc) return rc;
  /* A choice of parts (`Parts: [nvlink4, [ndr, xdr]]`): the combination
   * optimize picks (each solved on whole links, the best bound; the first
   * when none solves), with or without --bw: the network simulated is the
   * one optimize reports. */
  if (weft_parts_choices(&run->sc->net) > 1) {
    WeftPartChoices *pc = malloc(sizeof *pc);
    const char *zoo = a->in.mval[CLI_MO_ZOO] ? a->in.mval[CLI_MO_ZOO] : cli_zoo_dir();
    int crc = pc ? weft_parts_choose(run->sc, zoo, &solve, pc, &err) : WEFT_ENOMEM;
    if (crc == WEFT_ENOMEM) weft_error_set(&err, crc, "", 0, 0, NULL, "out of memory");
    free(pc);
    if (crc) {
      cli_error(&err);
      return crc == WEFT_ENOMEM || crc == WEFT_ESOLVER ? EXIT_RUNTIME : EXIT_USAGE;
    }
  }
  int D = run->sc->net.ndims;
  if ((val[CLI_SIM_BW] &&
       num_list(cli_sim_opts[CLI_SIM_BW].name, val[CLI_SIM_BW], D, 0, WEFT_MIN_BW_GBPS,
                WEFT_MAX_BW_GBPS,
                "a number of GB/s from " CLI_TEXT(WEFT_MIN_BW_GBPS) " to " CLI_TEXT(
                    WEFT_MAX_BW_GBPS),
                run->bw_gbps)) ||
      (val[CLI_SIM_LATENCY] && num_list(cli_sim_opts[CLI_SIM_LATENCY].name, val[CLI_SIM_LATENCY],
                                        D, 1, 0.0, HUGE_VAL, "a non-negative number",
                                        run->set.latency_ns)) ||
      (val[CLI_SIM_ALG] &&
       alg_list(cli_sim_opts[CLI_SIM_ALG].name, val[CLI_SIM_ALG], D, run->set.algorithm)))
    return EXIT_USAGE;
  if (val[CLI_SIM_ASTRA_SYS] &&
      weft_astra1_system_read(val[CLI_SIM_ASTRA_SYS], &run->sc->net, &run->set, &err)) {
    cli_error(&err);
    return EXIT_USAGE;
  }
  if (run->set.like == WEFT_LIKE_ASTRA1 && !run->set.in_flight) /* its active chunks */
    run->set.in_flight = WEFT_SIM_ASTRA_IN_FLIGHT;
  /* The network's own latency per step (LatencyNs, or an ASTRA-sim file's
   * per hop) is the default of --latency-ns. */
  if (!val[CLI_SIM_LATENCY])
    memcpy(run->set.latency_ns, run->sc->net.latency_ns, sizeof run->set.latency_ns);
  weft_scenario_spec(run->sc, &run->spec);
  if (val[CLI_SIM_EXPORT1] && (rc = cli_astra1_check(&run->spec))) return rc;
  if (val[CLI_SIM_TRACE]) {
    const char *names[WEFT_MAX_JOBS];
    for (int j = 0; j < run->sc->njobs; j++) names[j] = run->sc->job_name[j];
    if ((rc = cli_trace_open(val[CLI_SIM_TRACE], &run->spec, names, &run->set,
                             run->trace_max_bytes, &run->trace)))
      return rc;
    run->trace_path = val[CLI_SIM_TRACE];
    run->set.on_span = cli_trace_span;
    run->set.span_ctx = run->trace;
  }
  rc = weft_problem_create(&run->spec, &run->prob, &err);
  if (rc) {
    cli_error(&err);
    return rc == WEFT_ENOMEM || rc == WEFT_ESOLVER ? EXIT_RUNTIME : EXIT_USAGE;
  }
  run->bw_given = val[CLI_SIM_BW] ? CLI_BW_GIVEN : CLI_BW_OPTIMUM;
  int carried = !val[CLI_SIM_BW]; /* a design the network file carries (ASTRA-sim's bandwidth) */
  for (int d = 0; d < D; d++) carried &= run->sc->net.design_gbps[d] > 0.0;
  if (carried) {
    memcpy(run->bw_gbps, run->sc->net.design_gbps, sizeof run->bw_gbps);
    run->bw_given = CLI_BW_NETWORK;
  }
  if (run->bw_given == CLI_BW_OPTIMUM) {
    int whole = 0, src = WEFT_OK;  /* the network's whole links (LinkGBps): their optimum */
    for (int d = 0; d < D; d++) whole |= run->sc->net.link_gbps[d] > 0.0;
    if (whole) {
      WeftWholeResult *w = malloc(sizeof *w);
      src = w ? weft_whole_solve(&run->spec, &solve, w, &err) : WEFT_ENOMEM;
      if (src == WEFT_ENOMEM) weft_error_set(&err, src, "", 0, 0, NULL, "out of memory");
      if (!src) run->opt = w->result;
      free(w);
      if (src) {
        cli_error(&err);
        return src == WEFT_ENOMEM || src == WEFT_ESOLVER ? EXIT_RUNTIME : EXIT_USAGE;
      }
    }
    if ((!whole && weft_problem_solve(run->prob, &solve, &run->opt) < 0) ||
        run->opt.status != WEFT_STATUS_SOLVED) {
      cli_fail("no bandwidth to simulate: %s: %s (give --bw)",
               weft_status_name(run->opt.status), run->opt.message);
      return EXIT_RUNTIME;
    }
    memcpy(run->bw_gbps, run->opt.bw_gbps, sizeof run->bw_gbps);
  }
  return 0;
}

void cli_sim_progress_start(CliSimRun *run) {
  cli_progress_start(&run->pg, run->set.fidelity == WEFT_FIDELITY_LINK ? "events+flows" : "events",
                     run->progress_s);
  run->set.progress = cli_progress_update;
  run->set.progress_ctx = &run->pg;
}

void cli_sim_progress_end(CliSimRun *run) {
  cli_progress_end(&run->pg);
  run->set.progress = NULL;
  run->set.progress_ctx = NULL;
}

int cli_sim_run(CliSimRun *run) {
  WeftError err;
  weft_error_clear(&err);
  struct timespec t0, t1;
  cli_sim_progress_start(run);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = weft_simulate(&run->spec, run->bw_gbps, &run->set, &run->res, &err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  cli_sim_progress_end(run);
  run->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  if (run->trace) {
    int trc = cli_trace_close(run->trace, rc == 0);
    run->trace = NULL;
    if (!rc && trc) return trc;
  }
  return rc ? cli_sim_failed(rc, &err) : 0;
}

int cli_sim_export(const CliSimArgs *a, const CliSimRun *run) {
  const char *dir = a->val[CLI_SIM_EXPORT1];
  return dir ? cli_export_astra1(dir, &run->spec, run->bw_gbps, &run->set) : EXIT_OK;
}

int cli_sim_failed(int rc, const WeftError *err) {
  cli_error(err);
  if (!strcmp(err->field, "max_work"))
    cli_fail("hint: --max-work N raises the limit (0 removes it)");
  return rc == WEFT_EINPUT || rc == WEFT_EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
}

void cli_sim_free(CliSimRun *run) {
  if (run->trace) cli_trace_close(run->trace, 0);
  run->trace = NULL;
  weft_problem_free(run->prob);
  weft_scenario_free(run->sc);
  run->prob = NULL;
  run->sc = NULL;
}

/* ------------------------------------------------------------ report pieces */

const char *cli_sim_in_flight(const WeftSimSettings *s, char *buf, size_t n) {
  if (s->in_flight == WEFT_SIM_IN_FLIGHT_ALL && s->like != WEFT_LIKE_ASTRA1) return "all";
  snprintf(buf, n, "%d", s->in_flight ? s->in_flight : WEFT_SIM_ASTRA_IN_FLIGHT);
  return buf;
}

void cli_sim_print_head(FILE *out, const char *cmd, const CliSimRun *run) {
  const WeftNetwork *net = run->spec.net;
  const WeftSimSettings *s = &run->set;
  fprintf(out, "weft %s: loop %s, %d dims, %.0f NPUs", cmd,
          s->like == WEFT_LIKE_ASTRA1 ? "ASTRA-sim HYBRID_TRANSFORMER" : weft_loop_name(run->spec.loop),
          net->ndims, weft_network_npus_total(net));
  cli_spares_head(out, net);
  fprintf(out, ", %d job%s\n", run->spec.njobs, run->spec.njobs == 1 ? "" : "s");
  if (run->bw_given == CLI_BW_NETWORK && net->cluster[0])
    fprintf(out, "bandwidth: cluster %s's links (per GPU per direction)\n", net->cluster);
  else if (run->bw_given == CLI_BW_NETWORK)
    fputs("bandwidth: the network file's (its per-link bandwidth)\n", out);
  else if (run->bw_given == CLI_BW_GIVEN) fputs("bandwidth: given (--bw)\n", out);
  else
    fprintf(out, "bandwidth: the optimum of weft optimize (objective %s)\n",
            weft_objective_name(run->spec.objective));
  fprintf(out, "settings: fidelity %s", cli_fidelity_name(s->fidelity));
  if (s->fidelity == WEFT_FIDELITY_LINK) fprintf(out, " (%s sharing)", cli_sharing_name(s->sharing));
  char k[32];
  fprintf(out, ", %d chunk%s per collective, %s in flight, endpoint delay %.1f ns\n", s->chunks,
          s->chunks == 1 ? "" : "s", cli_sim_in_flight(s, k, sizeof k), s->endpoint_delay_ns);
  if (s->like == WEFT_LIKE_ASTRA1)
    fputs("semantics: ASTRA-sim 1.0 with its analytical backend (a queue per logical dim,\n"
          "  no link sharing, latency per hop (a Switch step 2 hops), whole ns and bytes;\n"
          "  docs/simulate.md)\n",
          out);
  fprintf(out, "\n  %-4s %-15s %6s %14s %-10s %12s\n", "dim", "topology", "npus", "bw_gbps",
          "algorithm", "latency_ns");
  for (int d = 0; d < net->ndims; d++) {
    fprintf(out, "  B%-3d %-15s %6d %14.6f %-10s %12.1f", d + 1,
            weft_topology_name(net->topology[d]), net->npus[d], run->bw_gbps[d],
            weft_algorithm_name(s->algorithm[d]), s->latency_ns[d]);
    cli_spares_dim(out, net, d);
    fputc('\n', out);
  }
}

void cli_sim_print_counters(FILE *out, const CliSimRun *run) {
  const WeftSimResult *r = &run->res;
  fprintf(out, "simulation: %llu events (peak %zu pending)", r->events, r->peak_events);
  if (run->set.fidelity == WEFT_FIDELITY_LINK)
    fprintf(out, ", %llu flows (peak %zu active)", r->flows, r->peak_flows);
  fprintf(out, ", wall %.3f s\n", run->wall_s);
}

void cli_json_arr(FILE *out, const double *v, int n) {
  fputc('[', out);
  for (int i = 0; i < n; i++) {
    if (i) fputs(", ", out);
    cli_json_num(out, v[i]);
  }
  fputc(']', out);
}

void cli_sim_json_head(FILE *out, const CliSimRun *run) {
  const WeftNetwork *net = run->spec.net;
  const WeftSimSettings *s = &run->set;
  fprintf(out, "  \"weft_version\": \"%s\",\n  \"loop\": ", WEFT_VERSION);
  cli_json_str(out, weft_loop_name(run->spec.loop));
  fputs(",\n  \"objective\": ", out);
  cli_json_str(out, weft_objective_name(run->spec.objective));
  fprintf(out, ",\n  \"bw_source\": \"%s\",\n  \"bw_gbps\": ",
          run->bw_given == CLI_BW_NETWORK ? "network"
          : run->bw_given == CLI_BW_GIVEN ? "given" : "optimum");
  cli_json_arr(out, run->bw_gbps, net->ndims);
  fprintf(out, ",\n  \"settings\": {\"fidelity\": \"%s\", \"sharing\": \"%s\", \"chunks\": %d, "
               "\"in_flight\": %d, \"endpoint_delay_ns\": ",
          cli_fidelity_name(s->fidelity), cli_sharing_name(s->sharing), s->chunks, s->in_flight);
  cli_json_num(out, s->endpoint_delay_ns);
  if (s->like == WEFT_LIKE_ASTRA1) fputs(", \"like\": \"astra-sim\"", out);
  fputs("},\n  \"dims\": [", out);
  for (int d = 0; d < net->ndims; d++) {
    fprintf(out, "%s\n    {\"dim\": %d, \"topology\": \"%s\", \"npus\": %d",
            d ? "," : "", d + 1, weft_topology_name(net->topology[d]), net->npus[d]);
    cli_spares_json(out, net, d);
    fputs(", \"bw_gbps\": ", out);
    cli_json_num(out, run->bw_gbps[d]);
    fprintf(out, ", \"algorithm\": \"%s\", \"latency_ns\": ", weft_algorithm_name(s->algorithm[d]));
    cli_json_num(out, s->latency_ns[d]);
    fputc('}', out);
  }
  fputs("\n  ],\n", out);
}

void cli_sim_json_counters(FILE *out, const CliSimRun *run) {
  const WeftSimResult *r = &run->res;
  fprintf(out, "  \"events\": %llu,\n  \"peak_events\": %zu,\n  \"flows\": %llu,\n"
               "  \"peak_flows\": %zu,\n  \"wall_time_ns\": ",
          r->events, r->peak_events, r->flows, r->peak_flows);
  cli_json_num(out, run->wall_s * 1e9);
  fputc('\n', out);
}
