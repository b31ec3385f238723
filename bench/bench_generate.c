/* bench_generate.c — time weft_generate on GPT-3 175B (96 layers, built in
 * memory) over LIBRA's 4096-NPU network: full (< 1 ms) and compact (< 5 us). */
#include <stdio.h>
#include <string.h>

#include "common/bench.h"

#define REPS 2000
#define WARMUP 200
#define TARGET_FULL_NS 1e6    /* the bound for GPT-3 175B */
#define TARGET_COMPACT_NS 5e3 /* the co-design loop calls it ~1e5 times per second per core */

static WeftModel gpt3(void) {
  WeftModel m;
  memset(&m, 0, sizeof m);
  snprintf(m.name, sizeof m.name, "gpt3-175b");
  m.arch = WEFT_ARCH_TRANSFORMER;
  m.global_batch = 1536;
  m.seq_len = 2048;
  m.layers = 96;
  m.hidden = 12288;
  m.heads = 96;
  m.kv_heads = 96;
  m.ffn_hidden = 4 * 12288;
  m.ffn_matrices = 2;
  m.vocab = 50257;
  return m;
}

/* Median time of one call; -1 when generation fails. */
static double time_one(const WeftModel *m, const WeftDevice *dev, const WeftParallel *par,
                       const WeftNetwork *net, int compact, int *nlayers) {
  static double t[REPS];
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  if (!wl) return -1;
  for (int r = -WARMUP; r < REPS; r++) {
    double t0 = bench_now_ns();
    int rc = weft_generate(m, dev, par, net, compact, wl, &comm, &info, &err);
    double t1 = bench_now_ns();
    if (rc) {
      char buf[512];
      printf("FAIL weft_generate: %s\n", weft_error_format(&err, buf, sizeof buf));
      weft_workload_free(wl);
      return -1;
    }
    if (r >= 0) t[r] = t1 - t0;
  }
  *nlayers = wl->nlayers;
  weft_workload_free(wl);
  return bench_median(t, REPS);
}

int main(void) {
  printf("bench_generate: GPT-3 175B, 96 layers, 4 x 8 x 4 x 32 NPUs\n");
  WeftModel m = gpt3();
  WeftDevice dev;
  memset(&dev, 0, sizeof dev);
  snprintf(dev.name, sizeof dev.name, "a100");
  dev.peak_flops = 312e12;
  dev.hbm_bytes = 80.0 * 1073741824.0;
  dev.hbm_bytes_per_s = 2039e9;
  /* the preset's per-operator figures (data/zoo/devices.yml): the default
   * compute model, costed once per generation */
  dev.peak_tf32_flops = 156e12;
  dev.peak_vector_flops = 19.5e12;
  dev.sms = 108;
  dev.tile_m = 256;
  dev.tile_n = 128;
  dev.gemm_efficiency = 0.8;
  dev.hbm_efficiency = 0.9;
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  static const int npus[4] = {4, 8, 4, 32};
  net.ndims = 4;
  memcpy(net.npus, npus, sizeof npus);
  static const struct {
    const char *what;
    int tp, pp, dp, sp, zero, recompute;
  } cfg[] = {{"TP-16 DP-256, ZeRO-1, recompute", 16, 1, 256, 0, 1, 1},
             {"TP-16 PP-4 DP-64, SP, ZeRO-3, recompute", 16, 4, 64, 1, 3, 1}};
  int pass = 0, ntargets = 0;
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
    WeftParallel par;
    weft_parallel_default(&par);
    par.tp = cfg[i].tp;
    par.pp = cfg[i].pp;
    par.dp = cfg[i].dp;
    par.sequence_parallel = cfg[i].sp;
    par.zero_stage = cfg[i].zero;
    par.recompute = cfg[i].recompute;
    for (int compact = 0; compact <= 1; compact++) {
      int nl = 0;
      double t = time_one(&m, &dev, &par, &net, compact, &nl);
      if (t < 0) return 1;
      char name[96];
      snprintf(name, sizeof name, "%s (%d entries)", compact ? "compact" : "full", nl);
      if (!compact) printf("%s\n", cfg[i].what);
      pass += bench_report(name, t, compact ? TARGET_COMPACT_NS : TARGET_FULL_NS);
      ntargets++;
    }
  }
  printf("bench_generate: %d of %d targets met\n", pass, ntargets);
  return 0;
}
