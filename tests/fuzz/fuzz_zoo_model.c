/* fuzz_zoo_model.c — a zoo model file (weft_model_read), then the workload
 * generator on it (weft_generate, compact) on a fixed 8-NPU switch with a
 * TP degree taken from the input's length: 0 or an error with a reason; what
 * is read and generated is finite and within the limits. */
#include <string.h>

#include "fuzz.h"

static WeftNetwork net8;
static WeftDevice dev;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  memset(&net8, 0, sizeof net8);
  net8.ndims = 1;
  net8.topology[0] = WEFT_SWITCH;
  net8.npus[0] = 8;
  strcpy(net8.cost_dim[0], "Pod");
  memset(&dev, 0, sizeof dev);
  strcpy(dev.name, "fuzz");
  dev.peak_flops = 1e15;
  dev.hbm_bytes = 1e12;
  dev.hbm_bytes_per_s = 3e12;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("model.yml", data, size);
  static WeftModel m;
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_model_read(path, &m, &err);
  fuzz_check_result(rc, &err, "weft_model_read");
  if (rc) return 0;
  FUZZ_CHECK(m.arch >= WEFT_ARCH_TRANSFORMER && m.arch <= WEFT_ARCH_CNN, "arch", NULL);
  FUZZ_CHECK(m.global_batch >= 1, "global_batch", NULL);
  FUZZ_CHECK(m.nlayers >= 0 && m.nlayers <= WEFT_MAX_MODEL_LAYERS, "nlayers", NULL);
  FUZZ_CHECK(m.nbottom >= 0 && m.nbottom <= m.nlayers, "nbottom", NULL);
  for (int i = 0; i < m.nlayers; i++)
    FUZZ_CHECK(!isnan(m.layer[i].fwd_flops) && m.layer[i].fwd_flops >= 0 &&
                   !isnan(m.layer[i].params) && m.layer[i].params >= 0,
               "layer figures", NULL);
  double params = weft_model_params(&m);
  FUZZ_CHECK(!isnan(params) && params >= 0, "model params", NULL);

  WeftParallel par;
  weft_parallel_default(&par);
  par.tp = 1 << (size % 4);  /* 1, 2, 4, 8 */
  par.dp = 8 / par.tp;
  WeftWorkload *wl = weft_workload_create();
  FUZZ_CHECK(wl != NULL, "workload_create", NULL);
  static WeftCommunicator comm;
  WeftGenInfo info;
  weft_error_clear(&err);
  rc = weft_generate(&m, &dev, &par, &net8, 1, wl, &comm, &info, &err);
  fuzz_check_result(rc, &err, "weft_generate");
  if (rc == 0) {
    FUZZ_CHECK(wl->nlayers >= 1, "generated layers", NULL);
    for (int i = 0; i < wl->nlayers; i++)
      for (int p = 0; p < WEFT_NPHASES; p++) {
        const WeftPhaseSpec *ph = &wl->layers[i].phase[p];
        FUZZ_CHECK(!isnan(ph->compute_ns) && ph->compute_ns >= 0, "generated compute", NULL);
        FUZZ_CHECK(!isnan(ph->size_bytes) && ph->size_bytes >= 0, "generated size", NULL);
      }
    FUZZ_CHECK(comm.ndims == net8.ndims, "generated communicator", NULL);
  }
  weft_workload_free(wl);
  return 0;
}
