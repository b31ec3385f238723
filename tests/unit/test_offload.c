/* test_offload.c — activation offloading as Megatron-Core and Transformer
 * Engine run it (--cpu-offloading-num-layers): the stall of TE's default
 * schedule against an event-by-event timeline and by hand, the memory and
 * the time it adds by hand, and the inputs it refuses. */
#include <string.h>

#include "model/offload.h"
#include "../test.h"
#include "gen_fixture.h"
#include "weft.h"

/* TE's DefaultOffloadSynchronizer step by step (cpu_offload.py): layer j
 * starts after layer j - 1 and, j >= W = L - N, after copy j - W is done;
 * copy i (i < N) starts after layer i and after copy i - 1. The pass's end
 * less L x compute. */
static double timeline_stall(int L, int N, double f, double c) {
  double done[64], end = 0, stream = 0;
  int W = L - N;
  for (int j = 0; j < L; j++) {
    double start = end;
    if (j >= W && done[j - W] > start) start = done[j - W];
    end = start + f;
    if (j < N) {
      stream = (stream > end ? stream : end) + c;
      done[j] = stream;
    }
  }
  return end - L * f;
}

/* TE's figures (docs cpu_offloading.rst): 5 layers, 2 offloaded (3 sets in
 * HBM) hide copies up to a layer's compute; 3 offloaded (2 sets) stall when
 * a copy outlasts a layer. By hand, compute 10, copy 15: N = 2: copy 0
 * [10, 25], copy 1 [25, 40]; layer 3 (W = 3) needs copy 0 by 30, layer 4
 * copy 1 by 40: no stall (2 x 15 - 3 x 10 = 0). N = 3 (W = 2): layer 2
 * waits for copy 0 (25 > 20): [25, 35]; copy 2 [40, 55]; layer 3 waits for
 * copy 1: [40, 50]; layer 4 for copy 2: [55, 65]: 65 - 50 = 15 = 3 x 15 -
 * 3 x 10. N = 4 (W = 1): no
 * overlap, 4 x 15 = 60. Then the closed form equals the timeline over every
 * split of 2..12 layers and copies shorter and longer than the compute. */
static void of_schedule(void) {
  CHECK_NEAR(weft_offload_stall_ns(5, 2, 10, 15), 0, 0);
  CHECK_NEAR(weft_offload_stall_ns(5, 3, 10, 15), 15, 0);
  CHECK_NEAR(weft_offload_stall_ns(5, 4, 10, 15), 60, 0);
  CHECK_NEAR(weft_offload_stall_ns(5, 0, 10, 15), 0, 0);
  CHECK_NEAR(timeline_stall(5, 3, 10, 15), 15, 0);
  static const double copies[] = {0, 3, 9.5, 10, 10.5, 17, 40};
  for (int L = 2; L <= 12; L++)
    for (int N = 1; N < L; N++)
      for (size_t k = 0; k < sizeof copies / sizeof copies[0]; k++)
        CHECK_NEAR(weft_offload_stall_ns(L, N, 10, copies[k]), timeline_stall(L, N, 10, copies[k]),
                   1e-9);
}

/* The tiny GeLU model (h 4, 2 heads, s 2, b 1; 1 ns a FLOP), 4 layers: a
 * layer keeps sbh (34 + 5 a s / h) = 8 x (34 + 5) = 312 bytes (Korthikanti
 * et al., 2-byte activations), the logits 4 b s V = 64 bytes: 1312 in all.
 * Offloading the first 2 keeps the last 2: 688. Its forward is 832 FLOPs a
 * layer, its backward 1664. Host link 1/8 byte a ns: a layer's copy takes
 * 312 x 8 = 2496 ns. Forward (W = 2): 2 x 2496 - 2 x 832 = 3328 more, 832 a
 * layer; backward: 2 x 2496 - 2 x 1664 = 1664, 416 a layer. 3 offloaded (W =
 * 1): 3 x 2496 = 7488 each way, 1872 a layer; memory 1312 - 3 x 312 = 376.
 * A link of 1 byte a ns (312 ns a copy) hides under the compute: nothing. */
static void of_generate(void) {
  WeftModel m = fx_tiny(2, 4, 1);
  WeftDevice dev = fx_unit_device(1e15);
  dev.host_bytes_per_s = 0.125e9;
  static const int n[1] = {1};
  WeftNetwork net = fx_net(1, n, WEFT_RING);
  WeftParallel par;
  weft_parallel_default(&par);
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
  CHECK_NEAR(info.mem.activations_bytes, 1312, 0);
  const WeftLayer *a = fx_find_layer(wl, "L2.attn");
  CHECK(a != NULL);
  double fwd = a->phase[WEFT_PHASE_FWD].compute_ns, ig = a->phase[WEFT_PHASE_IG].compute_ns;
  static const struct {
    int N;
    double host, act, fwd, ig;
  } c[] = {{2, 0.125e9, 688, 832, 416}, {3, 0.125e9, 376, 1872, 1872}, {2, 1e9, 688, 0, 0}};
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    par.cpu_offloading_num_layers = c[i].N;
    dev.host_bytes_per_s = c[i].host;
    CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_OK);
    CHECK_NEAR(info.mem.activations_bytes, c[i].act, 1e-9);
    for (int l = 1; l <= 4; l++) {
      char name[32];
      snprintf(name, sizeof name, "L%d.attn", l);
      a = fx_find_layer(wl, name);
      CHECK(a && fabs(a->phase[WEFT_PHASE_FWD].compute_ns - (fwd + c[i].fwd)) < 1e-6 &&
            fabs(a->phase[WEFT_PHASE_IG].compute_ns - (ig + c[i].ig)) < 1e-6);
    }
    CHECK_NEAR(info.model_flops, 10368, 0); /* nothing recomputed */
  }
  weft_workload_free(wl);
}

/* What Megatron-Core refuses (TransformerConfig.__post_init__), what TE does
 * (num_layers < model_layers), and a device without a host link. */
static void of_refused(void) {
  WeftModel m = fx_tiny(2, 4, 1);
  WeftDevice dev = fx_unit_device(1e15);
  dev.host_bytes_per_s = 1e9;
  static const int one[1] = {1}, two[1] = {2};
  WeftNetwork net = fx_net(1, one, WEFT_RING), net2 = fx_net(1, two, WEFT_RING);
  WeftParallel par;
  weft_parallel_default(&par);
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  par.cpu_offloading_num_layers = 4; /* every layer */
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "cpu_offloading_num_layers"));
  par.cpu_offloading_num_layers = -1;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  par.cpu_offloading_num_layers = 2;
  par.recompute = WEFT_RECOMPUTE_SELECTIVE;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "cpu_offloading_num_layers"));
  par.recompute = WEFT_RECOMPUTE_NONE;
  par.pp = 2;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net2, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "cpu_offloading_num_layers"));
  par.pp = 1;
  dev.host_bytes_per_s = 0;
  CHECK_EQ_INT(weft_generate(&m, &dev, &par, &net, 0, wl, &comm, &info, &err), WEFT_EINPUT);
  CHECK(!strcmp(err.field, "host_gbps") && strstr(err.msg, "unit"));
  weft_workload_free(wl);
}

const TestCase suite_offload[] = {
    {"offload/schedule", of_schedule},
    {"offload/generate", of_generate},
    {"offload/refused", of_refused},
    {0, 0},
};
