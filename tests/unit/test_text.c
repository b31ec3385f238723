/* test_text.c — inputs parsed from text in memory (what the Python package
 * hands dicts over as): the same result as the file, errors placed in the
 * text under its name; the ABI checks; per-job phase compute and dim bytes. */
#include <string.h>

#include "../test.h"
#include "weft.h"

#define FIX "tests/fixtures/"

static void network_text_is_the_file(void) {
  WeftNetwork a, b;
  WeftError e;
  CHECK_EQ_INT(weft_network_read(FIX "net_2d.yml", &a, &e), WEFT_OK);
  /* JSON (flow YAML), keys in snake_case */
  const char *json = "{\"topology\": [\"Ring\", \"Switch\"],\n \"npus_count\": [8, 16],\n"
                     " \"cost_dimension\": [\"Package\", \"Cluster\"]}\n";
  CHECK_EQ_INT(weft_network_parse(json, "<network>", NULL, &b, &e), WEFT_OK);
  CHECK_EQ_INT(b.ndims, 2);
  CHECK(memcmp(a.npus, b.npus, sizeof a.npus) == 0);
  CHECK(memcmp(a.topology, b.topology, sizeof a.topology) == 0);
  CHECK(strcmp(b.cost_dim[1], "Cluster") == 0);
  CHECK(strcmp(b.file, "<network>") == 0);
  /* an error is placed in the text, under its name */
  const char *bad = "{\"Topology\": [\"Ring\", \"Switch\"],\n \"NpusCount\": [8,\n 1],\n"
                    " \"CostDimension\": [\"Package\", \"Cluster\"]}\n";
  CHECK_EQ_INT(weft_network_parse(bad, "<d>", NULL, &b, &e), WEFT_EINPUT);
  CHECK(strcmp(e.file, "<d>") == 0);
  CHECK_EQ_INT(e.line, 3);
  CHECK_EQ_INT(e.col, 2);
  CHECK(strcmp(e.field, "NpusCount") == 0);
  CHECK_EQ_INT(weft_network_parse("{\"Topology\": [", "<d>", NULL, &b, &e), WEFT_ESYNTAX);
  CHECK_EQ_INT(weft_network_parse(NULL, "<d>", NULL, &b, &e), WEFT_EINVAL);
  /* a cluster preset named in the text comes from the zoo given, as from a file's */
  CHECK_EQ_INT(weft_network_read_zoo("data/validation/dgx_a100_1536.yml", "data/zoo", &a, &e),
               WEFT_OK);
  CHECK_EQ_INT(weft_network_parse("{\"Cluster\": \"dgx-a100\", \"NpusCount\": [8, 192]}",
                                  "<n>", "data/zoo", &b, &e),
               WEFT_OK);
  CHECK(strcmp(b.cluster, "dgx-a100") == 0 && strcmp(b.cluster_device, a.cluster_device) == 0);
  for (int d = 0; d < 2; d++) {
    CHECK(a.design_gbps[d] == b.design_gbps[d] && a.design_gbps[d] > 0);
    CHECK(a.efficiency[d] == b.efficiency[d] && a.latency_ns[d] == b.latency_ns[d]);
  }
  CHECK_EQ_INT(weft_network_parse("{\"Cluster\": \"dgx-a100\", \"NpusCount\": [8, 4]}", "<n>",
                                  "/nonexistent", &b, &e),
               WEFT_EIO);
}

static void cost_and_communicator_text(void) {
  WeftCostModel a, b;
  WeftCommunicator ca, cb;
  WeftError e;
  CHECK_EQ_INT(weft_cost_model_read(FIX "cost_2d.yml", &a, &e), WEFT_OK);
  CHECK_EQ_INT(weft_communicator_read(FIX "comm_3d.yml", &ca, &e), WEFT_OK);
  /* the fixtures' values, written out as JSON */
  CHECK_EQ_INT(weft_cost_model_parse("{\"Package\": {\"Link\": 2.5},\n \"Cluster\": {\"Link\": 8,"
                                     " \"Switch\": 15.5, \"Nic\": 30}}",
                                     "<c>", &b, &e),
               WEFT_OK);
  CHECK_EQ_INT(b.nclasses, a.nclasses);
  for (int i = 0; i < a.nclasses && i < b.nclasses; i++) {
    CHECK(strcmp(a.cls[i].name, b.cls[i].name) == 0);
    CHECK(a.cls[i].link_usd_per_gbps == b.cls[i].link_usd_per_gbps);
    CHECK(a.cls[i].switch_usd_per_gbps == b.cls[i].switch_usd_per_gbps);
    CHECK(a.cls[i].nic_usd_per_gbps == b.cls[i].nic_usd_per_gbps);
  }
  CHECK_EQ_INT(weft_communicator_parse("{\"Forward\": [4, 4, -1], \"InputGrad\": [4, 4, -1],"
                                       " \"WeightGrad\": [-1, 2, 16]}",
                                       "<m>", &cb, &e),
               WEFT_OK);
  CHECK_EQ_INT(cb.ndims, 3);
  CHECK(memcmp(ca.group, cb.group, sizeof ca.group) == 0);
  CHECK_EQ_INT(weft_communicator_parse("{\"Forward\": [4, 4, -1]}", "<m>", &cb, &e), WEFT_EINPUT);
  CHECK(strcmp(e.file, "<m>") == 0);
}

/* Files named in a scenario's text are read from its name's directory, or
 * the working directory when the name has none. */
static void scenario_text_resolves_paths(void) {
  WeftScenario *a = weft_scenario_create(), *b = weft_scenario_create(),
               *c = weft_scenario_create();
  WeftError e;
  CHECK_EQ_INT(weft_scenario_read(FIX "scenario_3d.yml", a, &e), WEFT_OK);
  const char *here = "network: net_3d.yml\ncost_model: cost_3d.yml\nworkload: wl_tiny.txt\n"
                     "communicator: comm_3d.yml\n"
                     "constraints: [\"sum = 1000\", \"B1 = 500\", \"B1 >= B2 >= B3\"]\n"
                     "objective: perf-per-cost\nloop: tp-dp-overlap\n";
  CHECK_EQ_INT(weft_scenario_parse(here, FIX "text.yml", NULL, b, &e), WEFT_OK);
  const char *cwd = "{\"network\": \"" FIX "net_3d.yml\", \"cost_model\": \"" FIX "cost_3d.yml\","
                    " \"workload\": \"" FIX "wl_tiny.txt\", \"communicator\": \"" FIX "comm_3d.yml\","
                    " \"constraints\": [\"sum = 1000\", \"B1 = 500\", \"B1 >= B2 >= B3\"],"
                    " \"objective\": \"perf-per-cost\", \"loop\": \"tp-dp-overlap\"}";
  CHECK_EQ_INT(weft_scenario_parse(cwd, "<scenario>", NULL, c, &e), WEFT_OK);
  WeftScenario *s[2] = {b, c};
  for (int k = 0; k < 2; k++) {
    CHECK_EQ_INT(s[k]->njobs, 1);
    CHECK_EQ_INT(s[k]->cons.n, a->cons.n);
    CHECK_EQ_INT(s[k]->objective, WEFT_OBJ_PERF_PER_COST);
    CHECK_EQ_INT(s[k]->loop, WEFT_LOOP_TP_DP_OVERLAP);
    CHECK(memcmp(s[k]->net.npus, a->net.npus, sizeof a->net.npus) == 0);
    CHECK(s[k]->workload[0] && s[k]->workload[0]->nlayers == a->workload[0]->nlayers);
    CHECK(strcmp(s[k]->job_name[0], "wl_tiny") == 0);
  }
  CHECK_EQ_INT(weft_scenario_parse("{\"network\": \"net_3d.yml\"}", "<scenario>", NULL, c, &e),
               WEFT_EIO);  /* not in the working directory */
  CHECK_EQ_INT(c->njobs, 0);  /* nothing half-read */
  CHECK_EQ_INT(weft_scenario_parse("network: x\nbandwith: 3\n", "<s>", NULL, c, &e), WEFT_EINPUT);
  CHECK(strcmp(e.field, "bandwith") == 0 && e.line == 2 && strcmp(e.file, "<s>") == 0);
  weft_scenario_free(a);
  weft_scenario_free(b);
  weft_scenario_free(c);
}

static void abi_sizes_and_version(void) {
  CHECK(strcmp(weft_version(), WEFT_VERSION) == 0);
  CHECK_EQ_INT(weft_sizeof("WeftResult"), sizeof(WeftResult));
  CHECK_EQ_INT(weft_sizeof("WeftScenario"), sizeof(WeftScenario));
  CHECK_EQ_INT(weft_sizeof("WeftTopoSearchResult"), sizeof(WeftTopoSearchResult));
  CHECK_EQ_INT(weft_sizeof("WeftProblem"), 0);  /* opaque: no size to agree on */
  CHECK_EQ_INT(weft_sizeof("nonsense"), 0);
  CHECK_EQ_INT(weft_sizeof(NULL), 0);
}

/* wl_tiny on comm_3d (TP [4,4,-1], DP [-1,2,16]), by hand from LIBRA's
 * traffic rules (docs/model.md): e.g. attn's forward all-reduce of 1 MiB on
 * [4, 4]: 2 S 3/4 = 1572864 on B1, then S/4: 2 (S/4) 3/4 = 393216 on B2. */
static void job_breakdown_by_hand(void) {
  WeftScenario *sc = weft_scenario_create();
  WeftError e;
  CHECK_EQ_INT(weft_scenario_read(FIX "scenario_3d.yml", sc, &e), WEFT_OK);
  WeftSpec spec;
  weft_scenario_spec(sc, &spec);
  double comp[WEFT_NPHASES], bytes[WEFT_MAX_DIMS];
  weft_spec_phase_compute(&spec, 0, comp);
  CHECK_NEAR(comp[0], 1000 + 4000 + 7000, 0);
  CHECK_NEAR(comp[1], 2000 + 5000 + 8000, 0);
  CHECK_NEAR(comp[2], 3000 + 6000 + 9000, 0);
  weft_spec_dim_bytes(&spec, 0, bytes);
  /* B1: embed's all-to-all 4096*3/4, attn's all-reduce and all-gather
   * (65536*3 on B2 first, then 262144*3 on B1), mlp's reduce-scatter */
  CHECK_NEAR(bytes[0], 3072 + 1572864 + 786432 + 1536, 0);
  CHECK_NEAR(bytes[1], 3072 + 8192 + 393216 + 196608 + 384 + 4194304, 0);
  CHECK_NEAR(bytes[2], 7680 + 3932160, 0);
  weft_spec_phase_compute(&spec, 1, comp);  /* no such job: zeros */
  CHECK(comp[0] == 0 && comp[1] == 0 && comp[2] == 0);
  weft_scenario_free(sc);
}

const TestCase suite_text[] = {
    {"text/network", network_text_is_the_file},
    {"text/cost_and_communicator", cost_and_communicator_text},
    {"text/scenario_paths", scenario_text_resolves_paths},
    {"text/abi", abi_sizes_and_version},
    {"text/job_breakdown", job_breakdown_by_hand},
    {0, 0},
};
