/* fuzz_scenario_dir.h — the files a fuzzed scenario can name, beside it in
 * the scratch directory: LIBRA inputs for 3 and 2 dims, a workload, and a
 * zoo with three small models and two devices (from tests/fixtures). */
#ifndef WEFT_FUZZ_SCENARIO_DIR_H
#define WEFT_FUZZ_SCENARIO_DIR_H

#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static inline void fuzz_scenario_dir(void) {
  static const char *const files[][2] = {
      {"net_3d.yml", "net.yml"},   {"cost_3d.yml", "cost.yml"}, {"comm_3d.yml", "comm.yml"},
      {"net_2d.yml", "net2.yml"},  {"cost_2d.yml", "cost2.yml"}, {"comm_2d.yml", "comm2.yml"},
      {"wl_tiny.txt", "wl.txt"},   {"wl_header.txt", "wl2.txt"},
      {"zoo/mini/devices.yml", "zoo/devices.yml"},
      {"zoo/mini/models/alpha.yml", "zoo/models/tiny.yml"},
      {"zoo/dlrm_tiny.yml", "zoo/models/dlrm_tiny.yml"}};
  mkdir(fuzz_path("zoo"), 0755);
  mkdir(fuzz_path("zoo/models"), 0755);
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
    fuzz_copy_fixture(files[i][0], files[i][1]);
  static const char gpt[] =  /* a transformer model jobs on 128 or 512 NPUs can use */
      "arch: transformer\nglobal_batch: 1024\nseq_len: 64\nlayers: 4\nhidden: 256\n"
      "heads: 16\nvocab: 1000\n";
  fuzz_write("zoo/models/gpt.yml", gpt, sizeof gpt - 1);
}

/* What any scenario read must satisfy. */
static inline void fuzz_check_scenario(const WeftScenario *sc) {
  FUZZ_CHECK(sc->net.ndims >= 1 && sc->net.ndims <= WEFT_MAX_DIMS, "scenario dims", NULL);
  FUZZ_CHECK(sc->njobs >= 1 && sc->njobs <= WEFT_MAX_JOBS, "scenario jobs", NULL);
  FUZZ_CHECK(sc->cons.n >= 0 && sc->cons.n <= WEFT_MAX_CONSTRAINTS, "scenario constraints", NULL);
  FUZZ_CHECK(sc->objective == WEFT_OBJ_PERF || sc->objective == WEFT_OBJ_PERF_PER_COST,
             "scenario objective", NULL);
  FUZZ_CHECK(sc->loop >= 0 && sc->loop < WEFT_NLOOPS, "scenario loop", NULL);
  for (int j = 0; j < sc->njobs; j++) {
    FUZZ_CHECK(sc->workload[j] != NULL && sc->workload[j]->nlayers >= 1, "job workload", NULL);
    FUZZ_CHECK(fuzz_finite(sc->weight[j]) && sc->weight[j] > 0, "job weight", NULL);
    FUZZ_CHECK(sc->comm[j].ndims == sc->net.ndims, "job communicator dims", NULL);
    for (int k = 0; k < j; k++)
      FUZZ_CHECK(strcmp(sc->job_name[j], sc->job_name[k]) != 0, "job names distinct", NULL);
  }
  for (int d = 0; d < sc->net.ndims; d++) FUZZ_CHECK(sc->net.npus[d] > 1, "npus per dim", NULL);
}

#endif
