/* test_overlap_gen.c — the generator's TP communication overlap
 * (--tp-comm-overlap, Transformer Engine's userbuffers): each TP collective's
 * bytes, calls and the GEMM time it hides behind, by hand, and the SMs its
 * comm kernels take from the GEMMs. */
#include "gen_fixture.h"

/* The tiny GeLU model (h 4, 2 heads of 2, ffn 16), seq 16, batch 8, on TP 2
 * (one dim of 2): 8 micro-batches of 1 sequence, R = 8, whole backward
 * (merged_backward), flat 1 ns per FLOP. Per micro-batch (16 tokens, t = 2):
 * QKV 2 x 16 x 6 x 4 = 768 FLOPs per GEMM (forward, dgrad, wgrad), the
 * projection 2 x 16 x 4 x 2 = 256; fc1 2 x 16 x 8 x 4 = 1024, fc2 1024.
 * One activation S = 16 x 4 x 2 = 128 bytes, its shard S/t = 64. */
static int gen_o(int sms, int rc, int fp8, int overlap, WeftWorkload *wl, WeftCommunicator *comm) {
  WeftModel m = fx_tiny(16, 1, 8);
  WeftDevice d = fx_unit_device(1e12);
  d.sms = sms;
  d.peak_fp8_flops = 2 * d.peak_flops;
  int n[1] = {2};
  WeftNetwork net = fx_net(1, n, WEFT_SWITCH);
  WeftParallel p;
  weft_parallel_default(&p);
  p.tp = 2;
  p.dp = 1;
  p.efficiency = 0.5;
  p.sequence_parallel = 1;
  p.tp_comm_overlap = overlap;
  p.merged_backward = 1;
  p.recompute = rc;
  p.fp8 = fp8;
  WeftGenInfo info;
  WeftError e;
  int r = weft_generate(&m, &d, &p, &net, 0, wl, comm, &info, &e);
  if (r) fprintf(stderr, "  generate: %s\n", e.msg);
  return r;
}

static int gen(int sms, int rc, int fp8, WeftWorkload *wl, WeftCommunicator *comm) {
  return gen_o(sms, rc, fp8, 1, wl, comm);
}

static void coll(const WeftLayer *l, int ph, int c, double bytes, double calls, double ov) {
  CHECK_EQ_INT(l->phase[ph].coll, c);
  CHECK_NEAR(l->phase[ph].size_bytes, bytes, 0);
  CHECK_NEAR(l->phase[ph].calls, calls, 1e-12);
  CHECK_NEAR(l->phase[ph].overlap_ns, ov, 0);
}

/* No SM count (no slowdown). Forward: the all-gather of 8 x 64 = 512 bytes
 * (8 calls) under (t-1)/t of QKV's 8 x 768: 3072 ns (ring exchange); the
 * reduce-scatter of 8 x 128 in 4 pipelined chunks: 256 bytes block (8
 * calls), 768 (24 calls) hide under 3/4 of the projection's 8 x 256: 1536.
 * Input-grad: the gradient's all-gather (512) under half the projection's
 * dgrad, 1024; QKV's dgrad reduce-scatter (1024) under its wgrad, 6144
 * (bulk). MLP: 4096, 6144; 4096, 8192. */
static void tpo_bytes(void) {
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  CHECK_EQ_INT(gen(0, 0, 0, wl, &comm), WEFT_OK);
  int F = WEFT_PHASE_FWD, I = WEFT_PHASE_IG, AG = WEFT_COLL_ALLGATHER, RS = WEFT_COLL_REDUCESCATTER;
  coll(fx_layer(wl, "L1.attn"), F, AG, 512, 8, 3072);
  coll(fx_layer(wl, "L1.attn.2"), F, RS, 256, 8, 0);
  coll(fx_layer(wl, "L1.attn.3"), F, RS, 768, 24, 1536);
  coll(fx_layer(wl, "L1.attn"), I, AG, 512, 8, 1024);
  coll(fx_layer(wl, "L1.attn.2"), I, RS, 1024, 8, 6144);
  coll(fx_layer(wl, "L1.mlp"), F, AG, 512, 8, 4096);
  coll(fx_layer(wl, "L1.mlp.2"), F, RS, 256, 8, 0);
  coll(fx_layer(wl, "L1.mlp.3"), F, RS, 768, 24, 6144);
  coll(fx_layer(wl, "L1.mlp"), I, AG, 512, 8, 4096);
  coll(fx_layer(wl, "L1.mlp.2"), I, RS, 1024, 8, 8192);
  /* full recomputation: the recomputed forward's three join input-grad */
  CHECK_EQ_INT(gen(0, WEFT_RECOMPUTE_FULL, 0, wl, &comm), WEFT_OK);
  coll(fx_layer(wl, "L1.attn"), I, AG, 512, 8, 3072);
  coll(fx_layer(wl, "L1.attn.2"), I, RS, 256, 8, 0);
  coll(fx_layer(wl, "L1.attn.3"), I, RS, 768, 24, 1536);
  coll(fx_layer(wl, "L1.attn.4"), I, AG, 512, 8, 1024);
  coll(fx_layer(wl, "L1.attn.5"), I, RS, 1024, 8, 6144);
  weft_workload_free(wl);
}

/* With 132 SMs the pipelined and bulk comm kernels take 16; the ring
 * exchange's moves its chunks with the copy engines (TE's use_ce) and takes
 * none: QKV's forward and the projection's dgrad run as long as alone, the
 * projection's forward 132/116, QKV's wgrad 132/116. Forward compute grows
 * by 8 x 256 x 16/116, input-grad by nothing, weight-grad by
 * 8 x 768 x 16/116 (each entry rounded to whole ns); the ring's hidden
 * time stays 3072, the pipelined one's scales (1536 x 132/116). */
static void tpo_sms(void) {
  WeftWorkload *a = weft_workload_create(), *b = weft_workload_create();
  WeftCommunicator comm;
  CHECK_EQ_INT(gen(0, 0, 0, a, &comm), WEFT_OK);
  CHECK_EQ_INT(gen(132, 0, 0, b, &comm), WEFT_OK);
  const WeftLayer *x = fx_layer(a, "L1.attn"), *y = fx_layer(b, "L1.attn");
  double want[3] = {8 * 256.0 * 16 / 116, 0, 8 * 768.0 * 16 / 116};
  for (int ph = 0; ph < 3; ph++)
    CHECK(fabs(y->phase[ph].compute_ns - x->phase[ph].compute_ns - want[ph]) <= 1.0);
  CHECK_NEAR(y->phase[WEFT_PHASE_FWD].overlap_ns, 3072, 0);
  CHECK_NEAR(y->phase[WEFT_PHASE_IG].overlap_ns, 1024, 0);
  CHECK_NEAR(fx_layer(b, "L1.attn.3")->phase[WEFT_PHASE_FWD].overlap_ns,
             round(1536.0 * 132 / 116), 0);
  weft_workload_free(a);
  weft_workload_free(b);
}

/* FP8 GEMMs (delayed scaling) on 2-byte activations: the all-gathers' buffers
 * are FP8 (TE's fp8_buf), 1 byte an element: the forward's and the
 * gradient's all-gather move 8 x 32 = 256 bytes instead of 512; the
 * reduce-scatters stay BF16 (256 + 768 forward, 1024 under the wgrad). The
 * hidden times are the FP8 GEMMs' (the flat model: the same FLOPs, the
 * same ns), as in tpo_bytes. */
static void tpo_fp8(void) {
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  CHECK_EQ_INT(gen(0, 0, WEFT_FP8_DELAYED, wl, &comm), WEFT_OK);
  int F = WEFT_PHASE_FWD, I = WEFT_PHASE_IG, AG = WEFT_COLL_ALLGATHER, RS = WEFT_COLL_REDUCESCATTER;
  coll(fx_layer(wl, "L1.attn"), F, AG, 256, 8, 3072);
  coll(fx_layer(wl, "L1.attn.2"), F, RS, 256, 8, 0);
  coll(fx_layer(wl, "L1.attn.3"), F, RS, 768, 24, 1536);
  coll(fx_layer(wl, "L1.attn"), I, AG, 256, 8, 1024);
  coll(fx_layer(wl, "L1.attn.2"), I, RS, 1024, 8, 6144);
  coll(fx_layer(wl, "L1.mlp"), F, AG, 256, 8, 4096);
  coll(fx_layer(wl, "L1.mlp"), I, AG, 256, 8, 4096);
  /* without the overlap TE gathers the FP8 copies too: per pass the
   * all-gather of 8 x 32 = 256 bytes and the BF16 reduce-scatter of 1024,
   * nothing hidden (the reduce-scatter, merged into the entry after it) */
  CHECK_EQ_INT(gen_o(0, 0, WEFT_FP8_DELAYED, 0, wl, &comm), WEFT_OK);
  coll(fx_layer(wl, "L1.attn"), F, AG, 256, 8, 0);
  coll(fx_layer(wl, "L1.attn.2"), F, RS, 1024, 8, 0);
  coll(fx_layer(wl, "L1.attn"), I, AG, 256, 8, 0);
  coll(fx_layer(wl, "L1.attn.2"), I, RS, 1024, 8, 0);
  CHECK_EQ_INT(gen_o(0, 0, 0, 0, wl, &comm), WEFT_OK); /* BF16: 512 */
  coll(fx_layer(wl, "L1.attn"), F, AG, 512, 8, 0);
  coll(fx_layer(wl, "L1.attn"), I, AG, 512, 8, 0);
  weft_workload_free(wl);
}

const TestCase suite_overlapgen[] = {
    {"tpo_bytes", tpo_bytes},
    {"tpo_sms", tpo_sms},
    {"tpo_fp8", tpo_fp8},
    {0, 0},
};
