/* test_buckets.c — data-parallel gradient buckets as Megatron-Core's DDP
 * fills them (docs/zoo.md, "Gradient buckets"): where each bucket's
 * reduction and gather sit, by hand, with and without overlap, compact
 * emission's totals, the default size, and the time they hide. */
#include "gen_fixture.h"

/* The tiny GeLU model (h 4, ffn 16), 4 layers, dp 8: per layer the attention
 * holds QKV 4 x 12 + 12, projection 4 x 4 + 4 and a LayerNorm's 8: 88
 * parameters; the MLP 4 x 16 + 16 + 16 x 4 + 4 + 8 = 156. The backward meets
 * L4.mlp, L4.attn, L3.mlp, ..., L1.attn. */
static int gen(WeftParallel *p, int compact, WeftWorkload *wl, WeftCommunicator *comm) {
  WeftModel m = fx_tiny(16, 4, 8);
  WeftDevice d = fx_unit_device(1e12);
  int n[1] = {8};
  WeftNetwork net = fx_net(1, n, WEFT_SWITCH);
  WeftGenInfo info;
  WeftError e;
  p->dp = 8;
  int rc = weft_generate(&m, &d, p, &net, compact, wl, comm, &info, &e);
  if (rc) fprintf(stderr, "  generate: %s\n", e.msg);
  return rc;
}

static WeftParallel par(double bucket, int zero) {
  WeftParallel p;
  weft_parallel_default(&p);
  p.ddp_bucket_params = bucket;
  p.zero_stage = zero;
  return p;
}

/* The weight-grad collective of entry name: type, bytes, calls. */
static void wg(const WeftWorkload *wl, const char *name, int coll, double bytes, double calls) {
  const WeftLayer *l = fx_layer(wl, name);
  CHECK_EQ_INT(l->phase[WEFT_PHASE_WG].coll, coll);
  CHECK_NEAR(l->phase[WEFT_PHASE_WG].size_bytes, bytes, 0);
  CHECK_NEAR(l->phase[WEFT_PHASE_WG].calls, calls, 1e-12);
}

/* Buckets of 200: each layer's MLP (156) and attention (88) fill one, which
 * closes at the attention: 244 parameters, 488 bytes of bf16 gradients,
 * all-reduced (ZeRO 0). Buckets of 500: L4.mlp + L4.attn + L3.mlp + L3.attn
 * + L2.mlp = 644 close at L2.mlp; L2.attn + L1.mlp + L1.attn = 332, the
 * last, at L1.attn. */
static void placement(void) {
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  CHECK(wl != NULL);
  if (!wl) return;
  WeftParallel p = par(200, 0);
  CHECK_EQ_INT(gen(&p, 0, wl, &comm), WEFT_OK);
  const char *attn[4] = {"L1.attn", "L2.attn", "L3.attn", "L4.attn"};
  const char *mlp[4] = {"L1.mlp", "L2.mlp", "L3.mlp", "L4.mlp"};
  for (int i = 0; i < 4; i++) {
    wg(wl, attn[i], WEFT_COLL_ALLREDUCE, 488, 1);
    wg(wl, mlp[i], WEFT_COLL_NONE, 0, 0);
  }
  p = par(500, 0);
  CHECK_EQ_INT(gen(&p, 0, wl, &comm), WEFT_OK);
  wg(wl, "L2.mlp", WEFT_COLL_ALLREDUCE, 1288, 1);
  wg(wl, "L1.attn", WEFT_COLL_ALLREDUCE, 664, 1);
  const char *none[6] = {"L4.mlp", "L4.attn", "L3.mlp", "L3.attn", "L2.attn", "L1.mlp"};
  for (int i = 0; i < 6; i++) wg(wl, none[i], WEFT_COLL_NONE, 0, 0);
  /* without overlap: one bucket, all 976 parameters after the backward */
  p.overlap_grad_reduce = 0;
  CHECK_EQ_INT(gen(&p, 0, wl, &comm), WEFT_OK);
  wg(wl, "L1.attn", WEFT_COLL_ALLREDUCE, 1952, 1);
  wg(wl, "L2.mlp", WEFT_COLL_NONE, 0, 0);
  /* the default, max(4e7, 1e6 x 8) = 4e7 parameters: one bucket too, at its end */
  p = par(0, 0);
  CHECK_EQ_INT(gen(&p, 0, wl, &comm), WEFT_OK);
  wg(wl, "L1.attn", WEFT_COLL_ALLREDUCE, 1952, 1);
  wg(wl, "L4.attn", WEFT_COLL_NONE, 0, 0);
  weft_workload_free(wl);
}

/* ZeRO-1 (the distributed optimizer), buckets of 500: each bucket's
 * reduce-scatter of its gradients and all-gather of its 1/8 shard of
 * parameters (644 / 8 x 2 = 161 bytes, 332 / 8 x 2 = 83); without
 * overlap_param_gather, every gather at the end: 976 / 8 x 2 = 244 bytes in
 * the 2 buckets' calls. */
static void zero1_gather(void) {
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  CHECK(wl != NULL);
  if (!wl) return;
  WeftParallel p = par(500, 1);
  CHECK_EQ_INT(gen(&p, 0, wl, &comm), WEFT_OK);
  wg(wl, "L2.mlp", WEFT_COLL_REDUCESCATTER, 1288, 1);
  wg(wl, "L2.mlp.2", WEFT_COLL_ALLGATHER, 161, 1);
  wg(wl, "L1.attn", WEFT_COLL_REDUCESCATTER, 664, 1);
  wg(wl, "L1.attn.2", WEFT_COLL_ALLGATHER, 83, 1);
  p.overlap_param_gather = 0;
  CHECK_EQ_INT(gen(&p, 0, wl, &comm), WEFT_OK);
  wg(wl, "L2.mlp", WEFT_COLL_REDUCESCATTER, 1288, 1);
  CHECK(!fx_find_layer(wl, "L2.mlp.2"));
  wg(wl, "L1.attn", WEFT_COLL_REDUCESCATTER, 664, 1);
  wg(wl, "L1.attn.2", WEFT_COLL_ALLGATHER, 244, 2);
  weft_workload_free(wl);
}

/* Compact emission keeps the bytes (4 x 244 x 2 = 1952) and the buckets'
 * calls (2 of 500) in all, shared by the merged entries in proportion to
 * their parameters; no-overlap times match the layer-by-layer workload. */
static void compact_totals(void) {
  WeftWorkload *wl = weft_workload_create(), *full = weft_workload_create();
  WeftCommunicator comm, comm_full;
  CHECK(wl && full);
  if (!wl || !full) {
    weft_workload_free(wl);
    weft_workload_free(full);
    return;
  }
  WeftParallel p = par(500, 0);
  CHECK_EQ_INT(gen(&p, 1, wl, &comm), WEFT_OK);
  double bytes = 0, calls = 0;
  for (int i = 0; i < wl->nlayers; i++) /* the layers' (the embedding's and logits' apart) */
    if (wl->layers[i].phase[WEFT_PHASE_WG].coll == WEFT_COLL_ALLREDUCE &&
        (strstr(wl->layers[i].name, "attn") || strstr(wl->layers[i].name, "mlp"))) {
      bytes += wl->layers[i].phase[WEFT_PHASE_WG].size_bytes;
      calls += wl->layers[i].phase[WEFT_PHASE_WG].calls;
    }
  CHECK_NEAR(bytes, 1952, 0);
  CHECK_NEAR(calls, 2, 1e-12);
  CHECK_EQ_INT(gen(&p, 0, full, &comm_full), WEFT_OK);
  int n[1] = {8};
  WeftNetwork net = fx_net(1, n, WEFT_SWITCH);
  net.latency_ns[0] = 1000; /* the calls count */
  double bw[1] = {1e-3};
  double a = fx_eval_time(&net, wl, &comm, WEFT_LOOP_NO_OVERLAP, bw);
  double b = fx_eval_time(&net, full, &comm_full, WEFT_LOOP_NO_OVERLAP, bw);
  CHECK(a > 0);
  CHECK_NEAR(a, b, 1e-12);
  weft_workload_free(wl);
  weft_workload_free(full);
}

/* Under tp-dp-overlap, buckets of 200 hide all but the last bucket's
 * all-reduce under the backward; one bucket (no overlap) hides none of the
 * layers': 1952 bytes all-reduced over 8 at 1 byte/ns, 2 x 7/8 x 1952 =
 * 3416 ns after the layers' backward (only the embedding's own small sync
 * and compute can still overlap it, so at most no-overlap's time). */
static void hides(void) {
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  CHECK(wl != NULL);
  if (!wl) return;
  int n[1] = {8};
  WeftNetwork net = fx_net(1, n, WEFT_SWITCH);
  double bw[1] = {1};
  WeftParallel p = par(200, 0);
  p.overlap_grad_reduce = 0;
  CHECK_EQ_INT(gen(&p, 0, wl, &comm), WEFT_OK);
  double off = fx_eval_time(&net, wl, &comm, WEFT_LOOP_TP_DP_OVERLAP, bw);
  double none = fx_eval_time(&net, wl, &comm, WEFT_LOOP_NO_OVERLAP, bw);
  CHECK(off <= none && off >= none - 100); /* the embedding's 192 bytes at most */
  p.overlap_grad_reduce = 1;
  CHECK_EQ_INT(gen(&p, 0, wl, &comm), WEFT_OK);
  double on = fx_eval_time(&net, wl, &comm, WEFT_LOOP_TP_DP_OVERLAP, bw);
  CHECK(on < off);
  CHECK(on >= off - 3416 * 3 / 4.0 - 1e-6); /* at most the first three buckets hidden */
  weft_workload_free(wl);
}

/* A bucket size outside [1, 1e15] is refused (field ddp_bucket_size). */
static void bad_size(void) {
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  CHECK(wl != NULL);
  if (!wl) return;
  WeftModel m = fx_tiny(16, 4, 8);
  WeftDevice d = fx_unit_device(1e12);
  int n[1] = {8};
  WeftNetwork net = fx_net(1, n, WEFT_SWITCH);
  WeftGenInfo info;
  WeftError e;
  WeftParallel p = par(0.5, 0);
  p.dp = 8;
  CHECK_EQ_INT(weft_generate(&m, &d, &p, &net, 0, wl, &comm, &info, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "ddp_bucket_size"));
  p.ddp_bucket_params = 2e15;
  CHECK_EQ_INT(weft_generate(&m, &d, &p, &net, 0, wl, &comm, &info, &e), WEFT_EINPUT);
  weft_workload_free(wl);
}

const TestCase suite_buckets[] = {{"bucket/placement", placement},
                                  {"bucket/zero1_gather", zero1_gather},
                                  {"bucket/compact_totals", compact_totals},
                                  {"bucket/hides", hides},
                                  {"bucket/bad_size", bad_size},
                                  {NULL, NULL}};
