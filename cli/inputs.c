/* inputs.c — reading what optimize, simulate and validate take: a scenario,
 * LIBRA's four files, or a network and cost model with a model from the zoo;
 * then command-line constraints, objective and loop. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inputs.h"

/* Several jobs each need their own communicator and weight: a scenario
 * file pairs them, the command line cannot say which goes with which. */
#define CLI_MAX_NPUS (1 << 30) /* a network's NPUs, as the readers allow (WEFT_MAX_NPUS) */

#define CLI_IN_SEVERAL_JOBS \
  "several jobs go in a scenario file's 'workloads:' list (docs/scenario.md)"

const CliOpt cli_input_opts[CLI_IN_COUNT] = {
    [CLI_IN_NETWORK] = {"--network", "FILE", "LIBRA network yml (Topology, NpusCount, CostDimension)"},
    [CLI_IN_CLUSTER] = {"--cluster", "NAME",
                        "the network of a cluster preset instead of --network\n"
                        "                        (weft zoo lists them; needs --npus)"},
    [CLI_IN_NPUS] = {"--npus", "N", "GPUs of the --cluster network"},
    [CLI_IN_ACTIVE] = {"--active", "A1,...,AD",
                       "NPUs of each dim that work (0: all); the rest are spares,\n"
                       "                        bought (in the cost) but idle"},
    [CLI_IN_FABRIC] = {"--fabric", "F1,...,FD",
                       "fabric shape of each dim: fat-tree, rail-optimized,\n"
                       "                        rail-only, torus ('-': as the network has it)"},
    [CLI_IN_PLANES] = {"--planes", "P1,...,PD",
                       "planes each Switch dim's links are split over (0: as\n"
                       "                        the network has it; docs/model.md)"},
    [CLI_IN_WORKLOAD] = {"--workload", "FILE", "ASTRA-sim 1.0 workload text (12 fields per layer),\n"
                         "                        or a Chakra trace set (a directory or PREFIX of\n"
                         "                        PREFIX.RANK.et; no --communicator)",
                         CLI_IN_SEVERAL_JOBS},
    [CLI_IN_COMM] = {"--communicator", "FILE",
                     "LIBRA communicator yml (Forward, InputGrad, WeightGrad)", CLI_IN_SEVERAL_JOBS},
    [CLI_IN_COST] = {"--cost-model", "FILE", "LIBRA cost-model yml ($ per GB/s of Link, Switch, Nic)"},
    [CLI_IN_PARTS] = {"--parts", "FILE",
                      "a parts catalog over the built-in data/parts (docs/parts.md)"},
    [CLI_IN_PARTS_PER_DIM] = {"--parts-per-dim", "P1,...,PD",
                              "build dim d of catalog part P_d: its link rate, limit\n"
                              "                        and cost ('-' keeps a dim as it is)"},
    [CLI_IN_CONSTRAINT] = {"--constraint", "EXPR",
                           "linear constraint over B1..BD, sum, cost (repeatable):\n"
                           "                        'sum = 1000', 'B1 >= B2 >= B3', 'cost <= 2e7'"},
    [CLI_IN_OBJECTIVE] = {"--objective", "perf|perf-per-cost|cost-per-iteration",
                          "minimise time, time x cost, or $ per iteration\n"
                          "                        (default perf; docs/model.md \"System cost\")"},
    [CLI_IN_LOOP] = {"--loop", "no-overlap|tp-dp-overlap|fwd-ig-overlap",
                     "training loop (default no-overlap)"},
    /* The cost model's system figures (its Npu, NpuPowerW, ... keys), set
     * through weft_system_cost_set: the file's ranges, the file's rule. */
    [CLI_IN_NPU_USD] = {"--npu-usd", "USD", "$ per NPU (the cost model's Npu)"},
    [CLI_IN_NPU_POWER] = {"--npu-power-w", "W", "W per NPU (NpuPowerW)"},
    [CLI_IN_ELECTRICITY] = {"--electricity-usd-per-kwh", "USD",
                            "electricity price (ElectricityUsdPerKwh; default 0.08)"},
    [CLI_IN_PUE] = {"--pue", "X", "facility over IT power, >= 1 (Pue; default 1.58)"},
    [CLI_IN_LIFETIME] = {"--lifetime-years", "Y", "capex amortised over Y years (LifetimeYears; default 4)"},
};

CliOptSet cli_inputs_set(CliInputs *in) {
  return (CliOptSet){cli_input_opts, CLI_IN_COUNT, in->val, CLI_IN_CONSTRAINT, in->cons,
                     WEFT_MAX_CONSTRAINTS, &in->ncons};
}

CliOptSet cli_inputs_model_set(CliInputs *in) {
  return (CliOptSet){cli_model_opts, CLI_MO_COUNT, in->mval, -1, NULL, 0, NULL};
}

int cli_inputs_check(const CliInputs *in) {
  const char *const *v = in->val;
  if (in->scenario && (v[CLI_IN_NETWORK] || v[CLI_IN_CLUSTER] || v[CLI_IN_NPUS] ||
                       v[CLI_IN_WORKLOAD] || v[CLI_IN_COMM] || v[CLI_IN_COST] ||
                       in->mval[CLI_MO_MODEL])) {
    const char *w = in->scenario;
    if (!strchr(w, '/') && !strchr(w, '.')) /* '2', 'on': a stray value, not a file */
      cli_fail("unexpected argument '%s' (the option before it takes no value, or took the word "
               "before it; a scenario file comes alone, without --network/--model)", w);
    else
      cli_fail("give a scenario file or --network/--cluster/--workload/--communicator/"
               "--cost-model/--model, not both");
    return EXIT_USAGE;
  }
  if (cli_network_check(v[CLI_IN_NETWORK], v[CLI_IN_CLUSTER], v[CLI_IN_NPUS])) return EXIT_USAGE;
  if (v[CLI_IN_ACTIVE]) {
    double a[WEFT_MAX_DIMS];
    if (in->scenario) {
      cli_fail("--active goes with --network or --cluster (a scenario's network file says "
               "'Active: [...]')");
      return EXIT_USAGE;
    }
    if (cli_numbers("--active", v[CLI_IN_ACTIVE], a) < 0) return EXIT_USAGE;
  }
  if (v[CLI_IN_FABRIC] && in->scenario) {
    cli_fail("--fabric goes with --network or --cluster (a scenario's network file says "
             "'Fabric: [...]')");
    return EXIT_USAGE;
  }
  if (v[CLI_IN_PLANES]) {
    double p[WEFT_MAX_DIMS];
    if (in->scenario) {
      cli_fail("--planes goes with --network or --cluster (a scenario's network file says "
               "'Planes: [...]')");
      return EXIT_USAGE;
    }
    if (cli_numbers("--planes", v[CLI_IN_PLANES], p) < 0) return EXIT_USAGE;
  }
  for (int k = 0; k < CLI_MO_COUNT; k++)
    if (!in->mval[CLI_MO_MODEL] && in->mval[k] && k != CLI_MO_ZOO) {
      cli_fail("%s goes with --model (a job from the model zoo)", cli_model_opts[k].name);
      return EXIT_USAGE;
    }
  return 0;
}

int cli_system_apply(const char *const *val, WeftCostModel *cm) {
  static const char *const sys_key[CLI_SYSTEM_OPTS] = {"Npu", "NpuPowerW", "ElectricityUsdPerKwh",
                                                       "Pue", "LifetimeYears"};
  for (int k = 0; k < CLI_SYSTEM_OPTS; k++) {
    const char *v = val[k], *name = cli_input_opts[CLI_IN_NPU_USD + k].name;
    double x;
    WeftError err;
    if (!v) continue;
    if (cli_number(v, strlen(v), -HUGE_VAL, 0, &x)) {
      cli_fail("%s '%s': expected a number", name, v);
      return -1;
    }
    if (weft_system_cost_set(cm, sys_key[k], x, &err)) {
      cli_fail("%s '%s': %s", name, v, err.msg);
      return -1;
    }
  }
  return 0;
}

int cli_network_check(const char *network, const char *cluster, const char *npus) {
  if (cluster && network) {
    cli_fail("give --network or --cluster, not both (a network file names its cluster with "
             "'Cluster: NAME')");
    return EXIT_USAGE;
  }
  if (!cluster != !npus) {
    cli_fail(cluster ? "--cluster needs --npus N (the GPUs of its network)"
                     : "--npus goes with --cluster (a network file gives its own NPUs)");
    return EXIT_USAGE;
  }
  long long n;
  if (npus && cli_int_value(npus, strlen(npus), 2, CLI_MAX_NPUS, &n)) {
    cli_fail("--npus must be an integer in 2..%d, got '%s'", CLI_MAX_NPUS, npus);
    return EXIT_USAGE;
  }
  return 0;
}

int cli_network_load(const char *network, const char *cluster, const char *npus_text,
                     const char *zoo, WeftNetwork *net, WeftError *err) {
  if (!zoo) zoo = cli_zoo_dir();
  if (!cluster) return weft_network_read_zoo(network, zoo, net, err);
  long long npus = 0;  /* checked by cli_network_check */
  cli_int_value(npus_text, strlen(npus_text), 2, CLI_MAX_NPUS, &npus);
  WeftCluster c;
  int rc = weft_zoo_cluster(zoo, cluster, &c, err);
  if (!rc) rc = weft_cluster_network(&c, (int)npus, net, err);
  char where[WEFT_PATH_LEN];
  snprintf(where, sizeof where, "--cluster %s --npus %lld", cluster, npus);
  if (!rc) snprintf(net->file, sizeof net->file, "%s", where);
  else if (!err->file[0]) {  /* weft_cluster_network's: say which options */
    char msg[sizeof err->msg], field[sizeof err->field];
    snprintf(msg, sizeof msg, "%s", err->msg);
    snprintf(field, sizeof field, "%s", err->field);
    weft_error_set(err, rc, where, 0, 0, field, "%s", msg);
  }
  return rc;
}

/* --fabric (NULL: nothing) onto net: weft_network_set_fabric's rule. */
static int fabric_apply(const char *fabric, WeftNetwork *net, WeftError *err) {
  if (!fabric) return WEFT_OK;
  char buf[CLI_PARTS_LIST_LEN];
  const char *names[WEFT_MAX_DIMS + 1];
  int n = cli_parts_list(fabric, buf, names);
  return weft_network_set_fabric(net, names, n, "", NULL, "--fabric", err);
}

static int load_network(const CliInputs *in, WeftNetwork *net, WeftError *err) {
  const char *const *v = in->val;
  int rc = cli_network_load(v[CLI_IN_NETWORK], v[CLI_IN_CLUSTER], v[CLI_IN_NPUS],
                            in->mval[CLI_MO_ZOO], net, err);
  if (!rc) rc = cli_active_apply(v[CLI_IN_ACTIVE], net, err);
  if (!rc) rc = fabric_apply(v[CLI_IN_FABRIC], net, err);
  if (!rc && v[CLI_IN_PLANES]) {
    double p[WEFT_MAX_DIMS];
    int n = cli_numbers("--planes", v[CLI_IN_PLANES], p);  /* parsed by cli_inputs_check */
    rc = weft_network_set_planes(net, p, n, "", NULL, "--planes", err);
  }
  return rc;
}

/* Whether parts will price the network without a cost model: --parts-per-dim
 * names a part for every dim (a network file's Parts: is only known once read,
 * so --cost-model stays needed unless the options say so). */
static int parts_price(const CliInputs *in) {
  const char *p = in->val[CLI_IN_PARTS_PER_DIM];
  if (!p) return 0;
  for (;;) {  /* every entry a name: not empty, not '-' */
    size_t l = strcspn(p, ","), b = strspn(p, " ");
    size_t e = l;
    while (e > b && p[e - 1] == ' ') e--;
    if (e == b || (e - b == 1 && p[b] == '-')) return 0;
    if (!p[l]) return 1;
    p += l + 1;
  }
}

int cli_parts_list(const char *list, char buf[CLI_PARTS_LIST_LEN],
                   const char *names[WEFT_MAX_DIMS + 1]) {
  int n = 0;
  snprintf(buf, CLI_PARTS_LIST_LEN, "%s", list);
  for (char *p = buf; n <= WEFT_MAX_DIMS; n++) {
    char *c = strchr(p, ',');
    if (c) *c = '\0';
    while (*p == ' ') p++;
    for (char *e = p + strlen(p); e > p && e[-1] == ' ';) *--e = '\0';
    names[n] = p;
    if (!c) {
      n++;
      break;
    }
    p = c + 1;
  }
  return n;
}

/* --parts-per-dim onto the network, then the catalog (built-in beside the
 * zoo, --parts over it) bound: rates, limits, cost classes. */
static int bind_parts(const CliInputs *in, WeftScenario *sc, WeftError *err) {
  const char *list = in->val[CLI_IN_PARTS_PER_DIM];
  const char *zoo = in->mval[CLI_MO_ZOO] ? in->mval[CLI_MO_ZOO] : cli_zoo_dir();
  const char *file = in->val[CLI_IN_PARTS];
  if (list) {
    char buf[CLI_PARTS_LIST_LEN];
    const char *names[WEFT_MAX_DIMS + 1];
    int n = cli_parts_list(list, buf, names);
    int rc = weft_network_set_parts(&sc->net, names, n, "--parts-per-dim", err);
    if (rc) return rc;
  }
  if (!file && !list && sc->parts_file[0]) return WEFT_OK;  /* a scenario's, bound */
  if (!file && sc->parts_file[0]) file = sc->parts_file;    /* rebind with the scenario's */
  return weft_scenario_bind_parts(sc, zoo, file, err);
}

static int load_files(const CliInputs *in, const char *cmd, WeftScenario *sc, WeftError *err) {
  static const int need[] = {CLI_IN_NETWORK, CLI_IN_WORKLOAD, CLI_IN_COMM, CLI_IN_COST};
  const char *const *v = in->val;
  char missing[128] = "";
  int chakra = v[CLI_IN_WORKLOAD] && weft_chakra_is_trace(v[CLI_IN_WORKLOAD]);
  if (chakra && v[CLI_IN_COMM])
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL,
                          "--workload %s is a Chakra trace set: its communicator groups come "
                          "from the traces; drop --communicator",
                          v[CLI_IN_WORKLOAD]);
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    if (!v[need[i]] && !(need[i] == CLI_IN_NETWORK && v[CLI_IN_CLUSTER]) &&
        !(need[i] == CLI_IN_COMM && chakra) &&
        !(need[i] == CLI_IN_COST && (parts_price(in) || v[CLI_IN_NETWORK]))) {
      strcat(missing, missing[0] ? ", " : "");
      strcat(missing, cli_input_opts[need[i]].name);
    }
  if (missing[0])
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL,
                          "missing %s (or give a scenario file, or --model; see 'weft %s "
                          "--help')",
                          missing, cmd);
  int rc = load_network(in, &sc->net, err);
  if (!rc && !v[CLI_IN_COST] && !parts_price(in) && !weft_network_has_parts(&sc->net))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL,
                          "missing --cost-model (the network names no Parts; or give a scenario "
                          "file, or --model; see 'weft %s --help')", cmd);
  if (!rc && v[CLI_IN_COST]) rc = weft_cost_model_read(v[CLI_IN_COST], &sc->cost, err);
  if (!rc) rc = bind_parts(in, sc, err);
  if (!rc && chakra) rc = weft_chakra_read(v[CLI_IN_WORKLOAD], &sc->net, &sc->workload[0],
                                           &sc->comm[0], err);
  if (!rc && !chakra) rc = weft_communicator_read(v[CLI_IN_COMM], &sc->comm[0], err);
  if (!rc && !chakra) rc = weft_workload_read(v[CLI_IN_WORKLOAD], &sc->workload[0], err);
  if (rc) return rc;
  sc->njobs = 1;
  sc->weight[0] = 1.0;
  const char *base = strrchr(v[CLI_IN_WORKLOAD], '/');
  base = base ? base + 1 : v[CLI_IN_WORKLOAD];
  snprintf(sc->job_name[0], sizeof sc->job_name[0], "%.*s", (int)strcspn(base, "."), base);
  double scratch[WEFT_MAX_DIMS];
  rc = weft_communicator_check(&sc->comm[0], &sc->net, err);
  if (!rc) rc = weft_cost_per_gbps(&sc->net, &sc->cost, scratch, err);
  return rc;
}

/* --model: network and cost model from their files, the job generated from
 * the zoo by the same library call as a scenario's model workload. A bad
 * option value is printed here and gives WEFT_EINVAL with err->msg empty. */
static int load_model(const CliInputs *in, WeftScenario *sc, WeftError *err) {
  const char *const *v = in->val;
  int has_net = v[CLI_IN_NETWORK] || v[CLI_IN_CLUSTER];
  if (!has_net || (!v[CLI_IN_COST] && !parts_price(in)))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "--model needs %s%s%s",
                          has_net ? "" : "--network (or --cluster)",
                          !has_net && !v[CLI_IN_COST] ? " and " : "",
                          v[CLI_IN_COST] ? ""
                                         : "--cost-model (or --parts-per-dim: its parts carry "
                                           "their prices)");
  if (v[CLI_IN_WORKLOAD] || v[CLI_IN_COMM])
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL,
                          "--model generates the workload and communicator: drop %s",
                          v[CLI_IN_WORKLOAD] ? "--workload" : "--communicator");
  CliModel *cm = malloc(sizeof *cm);  /* holds a WeftModel: kept off the stack */
  if (!cm) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  if (cli_model_opts_apply(in->mval, cm)) {
    free(cm);
    weft_error_clear(err);
    err->code = WEFT_EINVAL;  /* printed already */
    return WEFT_EINVAL;
  }
  if (!cm->dp_given) cm->par.dp = 0;  /* NPUs / (tp x pp), on the network read below */
  double scratch[WEFT_MAX_DIMS];
  int rc = load_network(in, &sc->net, err);
  if (!rc && v[CLI_IN_COST]) rc = weft_cost_model_read(v[CLI_IN_COST], &sc->cost, err);
  if (!rc) rc = bind_parts(in, sc, err);
  if (!rc) rc = weft_cost_per_gbps(&sc->net, &sc->cost, scratch, err);
  if (!rc)  /* no --device: the network's cluster's GPU, else a100 */
    rc = weft_scenario_add_model_job(sc, cm->zoo_dir, cm->model_name, in->mval[CLI_MO_DEVICE],
                                     &cm->par, err);
  if (!rc) rc = weft_communicator_check(&sc->comm[0], &sc->net, err);
  free(cm);
  return rc;
}

/* The command line's constraints, objective and loop on top of the files'. */
static int apply_options(const CliInputs *in, WeftScenario *sc) {
  WeftError err;
  for (int i = 0; i < in->ncons; i++) {
    /* on a scenario's: replaces its constraints over the same left-hand side */
    if (weft_constraints_override(&sc->cons, in->cons[i], sc->net.ndims, &err)) {
      cli_fail("--constraint '%s': column %d: %s", in->cons[i], err.col, err.msg);
      return EXIT_USAGE;
    }
  }
  if (cli_system_apply(in->val + CLI_IN_NPU_USD, &sc->cost)) return EXIT_USAGE;
  const char *obj = in->val[CLI_IN_OBJECTIVE], *loop = in->val[CLI_IN_LOOP];
  if ((obj && cli_opt_objective(cli_input_opts[CLI_IN_OBJECTIVE].name, obj, &sc->objective)) ||
      (loop && cli_opt_loop(cli_input_opts[CLI_IN_LOOP].name, loop, &sc->loop)))
    return EXIT_USAGE;
  int sched; /* DualPipe's own loop, what its paired chunks are for */
  if (!loop && in->mval[CLI_MO_SCHED] &&
      weft_schedule_parse(in->mval[CLI_MO_SCHED], &sched, NULL) == WEFT_OK &&
      sched == WEFT_SCHEDULE_DUALPIPE)
    sc->loop = WEFT_LOOP_FWD_IG_OVERLAP;
  return 0;
}

int cli_inputs_load(const CliInputs *in, const char *cmd, WeftScenario **out) {
  WeftError err;
  weft_error_clear(&err);
  *out = NULL;
  WeftScenario *sc = weft_scenario_create();
  if (!sc) {
    cli_fail("out of memory");
    return EXIT_RUNTIME;
  }
  const char *zoo = in->mval[CLI_MO_ZOO] ? in->mval[CLI_MO_ZOO] : cli_zoo_dir();
  const char *model = in->mval[CLI_MO_MODEL];
  double scratch[WEFT_MAX_DIMS];
  int rc = in->scenario ? weft_scenario_read_parts(in->scenario, zoo, in->val[CLI_IN_PARTS], sc,
                                                   &err)
           : model      ? load_model(in, sc, &err)
                        : load_files(in, cmd, sc, &err);
  if (!rc && in->scenario && in->val[CLI_IN_PARTS_PER_DIM] &&
      !(rc = bind_parts(in, sc, &err)))
    rc = weft_cost_per_gbps(&sc->net, &sc->cost, scratch, &err);
  if (rc) {
    if (model && !err.file[0] && rc != WEFT_EINVAL)  /* the generator's: say whose */
      cli_fail("--model %s: %s", model, err.msg);
    else if (err.msg[0])
      cli_error(&err);
    weft_scenario_free(sc);
    return rc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
  }
  if ((rc = apply_options(in, sc))) {
    weft_scenario_free(sc);
    return rc;
  }
  *out = sc;
  return 0;
}
