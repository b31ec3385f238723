/* inputs.h — the inputs optimize, simulate and validate share: a scenario,
 * LIBRA's four files, or --model with a network and cost model; then the
 * --constraint, --objective and --loop given on top. */
#ifndef WEFT_CLI_INPUTS_H
#define WEFT_CLI_INPUTS_H

#include "model_opts.h"
#include "opts.h"
#include "weft.h"

enum { CLI_IN_NETWORK, CLI_IN_CLUSTER, CLI_IN_NPUS, CLI_IN_ACTIVE, CLI_IN_FABRIC, CLI_IN_PLANES, CLI_IN_WORKLOAD, CLI_IN_COMM,
       CLI_IN_COST, CLI_IN_PARTS, CLI_IN_PARTS_PER_DIM, CLI_IN_CONSTRAINT, CLI_IN_OBJECTIVE,
       CLI_IN_LOOP, CLI_IN_NPU_USD, CLI_IN_NPU_POWER, CLI_IN_ELECTRICITY, CLI_IN_PUE,
       CLI_IN_LIFETIME, CLI_IN_COUNT };

extern const CliOpt cli_input_opts[CLI_IN_COUNT];
/* The system cost's options, cli_input_opts[CLI_IN_NPU_USD ..] (--npu-usd,
 * --npu-power-w, --electricity-usd-per-kwh, --pue, --lifetime-years): a
 * command that takes them parses that slice as one more option set.
 * cli_system_apply sets the given ones (val[0..CLI_SYSTEM_OPTS), NULL:
 * absent) on cm; 0, or prints why and returns -1. */
#define CLI_SYSTEM_OPTS (CLI_IN_LIFETIME - CLI_IN_NPU_USD + 1)
int cli_system_apply(const char *const *val, WeftCostModel *cm);

/* The parsed values: val[] by CLI_IN_*, mval[] by CLI_MO_* (model_opts.h). */
typedef struct {
  const char *val[CLI_IN_COUNT];
  const char *mval[CLI_MO_COUNT];
  const char *cons[WEFT_MAX_CONSTRAINTS];  /* every --constraint, in order */
  int ncons;
  const char *scenario;  /* the positional SCENARIO.yml, NULL when absent */
} CliInputs;

/* The option sets filling in (which must outlive parsing): the input options
 * (--constraint repeatable) and the --model options. A command lists its own
 * options between the two, as optimize's help does. */
CliOptSet cli_inputs_set(CliInputs *in);
CliOptSet cli_inputs_model_set(CliInputs *in);

/* Checks that need no file: a scenario and files together, --tp without
 * --model, --cluster with --network or without --npus. 0, or prints why and
 * returns EXIT_USAGE. */
int cli_inputs_check(const CliInputs *in);

/* The network options every command shares: --network FILE, or --cluster
 * NAME with --npus N. cli_network_check: not both, --npus with --cluster
 * and in range; 0 or prints why and returns EXIT_USAGE. cli_network_load
 * (after the check): the file (its Cluster: resolved in zoo, NULL for the
 * default zoo) or the preset's network, errors naming the options. */
int cli_network_check(const char *network, const char *cluster, const char *npus);
int cli_network_load(const char *network, const char *cluster, const char *npus,
                     const char *zoo, WeftNetwork *net, WeftError *err);

/* Read the inputs into a new scenario, add the command-line constraints,
 * objective and loop. cmd names the command for the help hint. 0 and *out
 * set, or prints why and returns EXIT_USAGE (bad input) or EXIT_RUNTIME (out
 * of memory) with *out NULL. */
int cli_inputs_load(const CliInputs *in, const char *cmd, WeftScenario **out);

#endif
