/* test_overlap_gen.c — the generator's TP communication overlap
 * (--tp-comm-overlap, Transformer Engine's userbuffers): each TP collective's
 * bytes, calls and the GEMM time it hides behind, by hand, and the SMs its
 * comm kernels take from the GEMMs. */
#include "gen_fixture.h"
#include "model/par_check.h"

/* The tiny GeLU model (h 4, 2 heads of 2, ffn 16), seq 16, batch 8, on TP 2
 * (one dim of 2): 8 micro-batches of 1 sequence, R = 8, whole backward
 * (merged_backward), flat 1 ns per FLOP. Per micro-batch (16 tokens, t = 2):
 * QKV 2 x 16 x 6 x 4 = 768 FLOPs per GEMM (forward, dgrad, wgrad), the
 * projection 2 x 16 x 4 x 2 = 256; fc1 2 x 16 x 8 x 4 = 1024, fc2 1024.
 * One activation S = 16 x 4 x 2 = 128 bytes, its shard S/t = 64. */
static int g_layers = WEFT_LAYERS_MEGATRON; /* tpo_torch's layer_impl */
static const char *g_method = NULL;        /* tpo_method_*'s --tp-overlap-method */
static int g_lora = 0;                     /* tpo_method_lora's LoRA rank (QKV adapted) */
static const char *g_fp8buf = NULL;        /* tpo_fp8_buf's --tp-overlap-fp8-buf */

static int gen_ub(int sms, int rc, int fp8, int overlap, const int *ub, WeftWorkload *wl,
                  WeftCommunicator *comm, WeftError *e) {
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
  p.layer_impl = g_layers;
  if (ub) memcpy(p.tp_overlap_sms, ub, sizeof p.tp_overlap_sms);
  if (g_method && weft_tp_overlap_method_parse(g_method, p.tp_overlap_method, e)) return -1;
  if (g_fp8buf && weft_tp_overlap_fp8_buf_parse(g_fp8buf, &p.tp_overlap_fp8_buf, e)) return -1;
  if (g_lora) {
    p.lora_rank = g_lora;
    p.lora_targets = WEFT_LORA_QKV;
  }
  WeftGenInfo info;
  return weft_generate(&m, &d, &p, &net, 0, wl, comm, &info, e);
}

static int gen_o(int sms, int rc, int fp8, int overlap, WeftWorkload *wl, WeftCommunicator *comm) {
  WeftError e;
  int r = gen_ub(sms, rc, fp8, overlap, NULL, wl, comm, &e);
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
 * (bulk); QKV's input all-gathered again (512) under its dgrad, 8 x 768 =
 * 6144 (bulk). MLP: 4096, 6144; 4096, 8192, 8192. */
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
  coll(fx_layer(wl, "L1.attn.3"), I, AG, 512, 8, 6144);
  coll(fx_layer(wl, "L1.mlp"), F, AG, 512, 8, 4096);
  coll(fx_layer(wl, "L1.mlp.2"), F, RS, 256, 8, 0);
  coll(fx_layer(wl, "L1.mlp.3"), F, RS, 768, 24, 6144);
  coll(fx_layer(wl, "L1.mlp"), I, AG, 512, 8, 4096);
  coll(fx_layer(wl, "L1.mlp.2"), I, RS, 1024, 8, 8192);
  coll(fx_layer(wl, "L1.mlp.3"), I, AG, 512, 8, 8192);
  /* full recomputation: the recomputed forward's three join input-grad */
  CHECK_EQ_INT(gen(0, WEFT_RECOMPUTE_FULL, 0, wl, &comm), WEFT_OK);
  coll(fx_layer(wl, "L1.attn"), I, AG, 512, 8, 3072);
  coll(fx_layer(wl, "L1.attn.2"), I, RS, 256, 8, 0);
  coll(fx_layer(wl, "L1.attn.3"), I, RS, 768, 24, 1536);
  coll(fx_layer(wl, "L1.attn.4"), I, AG, 512, 8, 1024);
  coll(fx_layer(wl, "L1.attn.5"), I, RS, 1024, 8, 6144);
  coll(fx_layer(wl, "L1.attn.6"), I, AG, 512, 8, 6144);
  weft_workload_free(wl);
}

/* With 132 SMs the pipelined and bulk comm kernels take 16; the ring
 * exchange's moves its chunks with the copy engines (TE's use_ce) and takes
 * none: QKV's forward and the projection's dgrad run as long as alone, the
 * projection's forward 132/116, QKV's dgrad and wgrad 132/116. Forward
 * compute grows by 8 x 256 x 16/116, input-grad by 8 x 768 x 16/116 (QKV's
 * dgrad beside the input's all-gather), weight-grad by 8 x 768 x 16/116
 * (each entry rounded to whole ns); the ring's hidden time stays 3072, the
 * pipelined one's scales (1536 x 132/116). */
static void tpo_sms(void) {
  WeftWorkload *a = weft_workload_create(), *b = weft_workload_create();
  WeftCommunicator comm;
  CHECK_EQ_INT(gen(0, 0, 0, a, &comm), WEFT_OK);
  CHECK_EQ_INT(gen(132, 0, 0, b, &comm), WEFT_OK);
  const WeftLayer *x = fx_layer(a, "L1.attn"), *y = fx_layer(b, "L1.attn");
  double want[3] = {8 * 256.0 * 16 / 116, 8 * 768.0 * 16 / 116, 8 * 768.0 * 16 / 116};
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
  coll(fx_layer(wl, "L1.attn.3"), I, AG, 256, 8, 6144); /* ln_out's FP8 shard again */
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

/* A recipe's SMs per GEMM (the GPT-3 175B recipe's, dgxc-benchmarking
 * nemo_megatron/gpt3_175b_hydra.yaml: qkv_dgrad 4, qkv_wgrad 8, fc1_dgrad
 * 2, fc1_wgrad 4, proj_fprop 24, fc2_fprop 20) on 132 SMs, against no SM
 * count. Attention: the projection's forward 8 x 256 runs 132/108 as
 * long, QKV's dgrad 8 x 768 132/128, its wgrad 8 x 768 132/124; the
 * reduce-scatter's 3/4 under the projection 1536 x 132/108, the dgrad
 * reduce-scatter under the wgrad 6144 x 132/124, the input's all-gather
 * under the dgrad 6144 x 132/128. MLP: fc2's forward 8 x 1024 x 132/112,
 * fc1's dgrad 8 x 1024 x 132/130, its wgrad 8 x 1024 x 132/128; hidden
 * 6144 x 132/112, 8192 x 132/128, 8192 x 132/130. */
static void tpo_recipe(void) {
  WeftWorkload *a = weft_workload_create(), *b = weft_workload_create();
  WeftCommunicator comm;
  WeftError e;
  int ub[WEFT_TPO_NGEMMS] = {4, 8, 2, 4, 24, 20}; /* WeftTpoGemm order */
  CHECK_EQ_INT(gen(0, 0, 0, a, &comm), WEFT_OK);
  CHECK_EQ_INT(gen_ub(132, 0, 0, 1, ub, b, &comm, &e), WEFT_OK);
  const char *blk[2] = {"L1.attn", "L1.mlp"};
  double want[2][3] = {{8 * 256.0 * 24 / 108, 8 * 768.0 * 4 / 128, 8 * 768.0 * 8 / 124},
                       {8 * 1024.0 * 20 / 112, 8 * 1024.0 * 2 / 130, 8 * 1024.0 * 4 / 128}};
  double hid[2][3] = {{1536.0 * 132 / 108, 6144.0 * 132 / 124, 6144.0 * 132 / 128},
                      {6144.0 * 132 / 112, 8192.0 * 132 / 128, 8192.0 * 132 / 130}};
  for (int i = 0; i < 2; i++) {
    char n2[32], n3[32];
    snprintf(n2, sizeof n2, "%s.2", blk[i]);
    snprintf(n3, sizeof n3, "%s.3", blk[i]);
    const WeftLayer *x = fx_layer(a, blk[i]), *y = fx_layer(b, blk[i]);
    for (int ph = 0; ph < 3; ph++)
      CHECK(fabs(y->phase[ph].compute_ns - x->phase[ph].compute_ns - want[i][ph]) <= 1.0);
    CHECK_NEAR(fx_layer(b, n3)->phase[WEFT_PHASE_FWD].overlap_ns, round(hid[i][0]), 0);
    CHECK_NEAR(fx_layer(b, n2)->phase[WEFT_PHASE_IG].overlap_ns, round(hid[i][1]), 0);
    CHECK_NEAR(fx_layer(b, n3)->phase[WEFT_PHASE_IG].overlap_ns, round(hid[i][2]), 0);
    CHECK_NEAR(y->phase[WEFT_PHASE_IG].overlap_ns, x->phase[WEFT_PHASE_IG].overlap_ns, 0);
  }
  /* the device bounds them (0..131) with the overlap; without it they are
   * read by nothing (the same workload as TE's defaults) */
  ub[WEFT_TPO_FC2_FPROP] = 132;
  CHECK_EQ_INT(gen_ub(132, 0, 0, 1, ub, b, &comm, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "tp_overlap_sms") && strstr(e.msg, "fc2_fprop=132"));
  ub[WEFT_TPO_FC2_FPROP] = 131;
  CHECK_EQ_INT(gen_ub(132, 0, 0, 1, ub, b, &comm, &e), WEFT_OK);
  ub[WEFT_TPO_FC2_FPROP] = 132;
  CHECK_EQ_INT(gen_ub(132, 0, 0, 0, ub, a, &comm, &e), WEFT_OK);
  CHECK_EQ_INT(gen_ub(132, 0, 0, 0, NULL, b, &comm, &e), WEFT_OK);
  CHECK_NEAR(fx_layer(a, "L1.mlp")->phase[WEFT_PHASE_FWD].compute_ns,
             fx_layer(b, "L1.mlp")->phase[WEFT_PHASE_FWD].compute_ns, 0);
  weft_workload_free(a);
  weft_workload_free(b);
}

/* TE's aggregate on the ring exchanges, TP 4: the tiny model widened to h
 * 8, 4 heads, ffn 32 (one dim of 4). Per micro-batch: QKV 2 x 16 x 6 x 8 =
 * 1536 FLOPs, the projection 2 x 16 x 8 x 2 = 512, fc1 2048; S = 16 x 8 x
 * 2 = 256 bytes, the shard 64; R = 8. One chunk a step (default): the
 * forward's all-gather, 8 x 64 = 512 bytes, under 3/4 of QKV's 8 x 1536 =
 * 9216 ns, the gradient's under 3/4 of the projection's 8 x 512 = 3072.
 * Aggregated (qkv_fprop, proj_dgrad): the first of the 3 chunks blocks, 512
 * / 3 = 171 bytes (rounded), the other two, 341, hide under 2/4 of the
 * GEMM: 6144 and 2048 ns. The MLP's (fc1_fprop not named) stays: 512 under
 * 3/4 of 8 x 2048 = 12288. */
static void tpo_aggregate(void) {
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftError e;
  for (int agg = 0; agg < 2; agg++) {
    WeftModel m = fx_tiny(16, 1, 8);
    m.hidden = 8;
    m.heads = m.kv_heads = 4;
    m.ffn_hidden = 32;
    WeftDevice d = fx_unit_device(1e12);
    int n[1] = {4};
    WeftNetwork net = fx_net(1, n, WEFT_SWITCH);
    WeftParallel p;
    weft_parallel_default(&p);
    p.tp = 4;
    p.dp = 1;
    p.efficiency = 0.5;
    p.sequence_parallel = p.tp_comm_overlap = p.merged_backward = 1;
    CHECK_EQ_INT(weft_tp_overlap_aggregate_parse(agg ? "qkv_fprop proj_dgrad" : "fc2_dgrad",
                                                 &p.tp_overlap_aggregate, &e), WEFT_OK);
    WeftGenInfo info;
    CHECK_EQ_INT(weft_generate(&m, &d, &p, &net, 0, wl, &comm, &info, &e), WEFT_OK);
    int F = WEFT_PHASE_FWD, I = WEFT_PHASE_IG, AG = WEFT_COLL_ALLGATHER;
    if (!agg) {
      coll(fx_layer(wl, "L1.attn"), F, AG, 512, 8, 9216);
      coll(fx_layer(wl, "L1.attn"), I, AG, 512, 8, 3072);
    } else {
      coll(fx_layer(wl, "L1.attn"), F, AG, 171, 8, 0);
      coll(fx_layer(wl, "L1.attn.2"), F, AG, 341, 8, 6144);
      coll(fx_layer(wl, "L1.attn"), I, AG, 171, 8, 0);
      coll(fx_layer(wl, "L1.attn.2"), I, AG, 341, 8, 2048);
    }
    coll(fx_layer(wl, "L1.mlp"), F, AG, 512, 8, 12288);
    /* an odd tp cannot pair its ranks */
    if (agg) {
      p.tp = 1;
      CHECK_EQ_INT(weft_par_device_check(&p, &d, &e), WEFT_OK);
      p.tp = 3;
      CHECK_EQ_INT(weft_par_device_check(&p, &d, &e), WEFT_EINPUT);
      CHECK(!strcmp(e.field, "tp_overlap_aggregate") && strstr(e.msg, "even tp"));
    }
  }
  weft_workload_free(wl);
  int mask = 7;
  const char *bad[][2] = {{"qkv_fprop,qkv_fprop", "twice"},
                          {"proj_fprop", "no ring exchange"},
                          {"qkv", "unknown GEMM 'qkv'"},
                          {", ", "no GEMM"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK_EQ_INT(weft_tp_overlap_aggregate_parse(bad[i][0], &mask, &e), WEFT_EINPUT);
    CHECK(!strcmp(e.field, "tp_overlap_aggregate") && strstr(e.msg, bad[i][1]));
  }
  CHECK_EQ_INT(mask, 7);
  CHECK_EQ_INT(weft_tp_overlap_aggregate_parse("fc1_fprop,fc2_dgrad", &mask, &e), WEFT_OK);
  CHECK_EQ_INT(mask, WEFT_TPO_FC1_FPROP | WEFT_TPO_FC2_DGRAD);
}

/* The text rule of --tp-overlap-sms, the scenario key and the keyword. */
static void tpo_parse(void) {
  int sms[WEFT_TPO_NGEMMS];
  WeftError e;
  WeftParallel p;
  weft_parallel_default(&p);
  for (int i = 0; i < WEFT_TPO_NGEMMS; i++) CHECK_EQ_INT(p.tp_overlap_sms[i], 16);
  memcpy(sms, p.tp_overlap_sms, sizeof sms);
  CHECK_EQ_INT(weft_tp_overlap_sms_parse("proj_fprop=24, fc2_fprop=20 qkv_dgrad=0", sms, &e),
               WEFT_OK);
  int want[WEFT_TPO_NGEMMS] = {0, 16, 16, 16, 24, 20};
  for (int i = 0; i < WEFT_TPO_NGEMMS; i++) CHECK_EQ_INT(sms[i], want[i]);
  CHECK(!strcmp(weft_tp_overlap_gemm_name(WEFT_TPO_FC1_WGRAD), "fc1_wgrad"));
  const char *bad[][2] = {{"proj_fprop=24,proj_fprop=20", "given twice"},
                          {"fc3_fprop=2", "unknown GEMM 'fc3_fprop'"},
                          {"qkv_fprop=1", "ring exchange"},
                          {"fc1_wgrad=x", "fc1_wgrad=x"},
                          {"fc1_wgrad=-1", "fc1_wgrad=-1"},
                          {"fc1_wgrad=4097", "0..4096"},
                          {"fc1_wgrad=", "fc1_wgrad="},
                          {"fc1_wgrad", "NAME=SMS"},
                          {" , ", "no GEMM"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK_EQ_INT(weft_tp_overlap_sms_parse(bad[i][0], sms, &e), WEFT_EINPUT);
    CHECK(!strcmp(e.field, "tp_overlap_sms") && strstr(e.msg, bad[i][1]));
  }
  for (int i = 0; i < WEFT_TPO_NGEMMS; i++) CHECK_EQ_INT(sms[i], want[i]); /* unchanged */
}

/* torch layers (async TP as torchtitan runs it; docs/zoo.md, "Torch
 * layers"): the input gradient's reduce-scatter (QKV's dgrad, 8 x 128 =
 * 1024 bytes in 8 calls) is a plain collective, hidden under nothing, and
 * its comm kernel takes no SMs from the wgrad (with 132 SMs weight-grad
 * compute is 8 x 768 x 16/116 below Transformer Engine's); every other
 * collective as tpo_bytes. */
static void tpo_torch(void) {
  WeftWorkload *a = weft_workload_create(), *b = weft_workload_create();
  WeftCommunicator comm;
  int I = WEFT_PHASE_IG, AG = WEFT_COLL_ALLGATHER, RS = WEFT_COLL_REDUCESCATTER;
  CHECK_EQ_INT(gen(132, 0, 0, a, &comm), WEFT_OK);
  g_layers = WEFT_LAYERS_TORCH;
  CHECK_EQ_INT(gen(0, 0, 0, b, &comm), WEFT_OK);
  coll(fx_layer(b, "L1.attn"), I, AG, 512, 8, 1024);
  coll(fx_layer(b, "L1.attn.2"), I, RS, 1024, 8, 0);
  coll(fx_layer(b, "L1.attn.3"), I, AG, 512, 8, 6144);
  coll(fx_layer(b, "L1.mlp.2"), I, RS, 1024, 8, 0);
  /* FP8: the input's gathers in FP8 (8 x 32 = 256 bytes), the gradient's
   * in bf16 (512, where Transformer Engine's is FP8: 256) */
  CHECK_EQ_INT(gen(0, 0, WEFT_FP8_DELAYED, b, &comm), WEFT_OK);
  coll(fx_layer(b, "L1.attn"), WEFT_PHASE_FWD, AG, 256, 8, 3072);
  CHECK_EQ_INT(fx_layer(b, "L1.attn")->phase[I].coll, AG);
  CHECK_NEAR(fx_layer(b, "L1.attn")->phase[I].size_bytes, 512, 0);
  CHECK_NEAR(fx_layer(b, "L1.attn.3")->phase[I].size_bytes, 256, 0);
  /* and without the overlap: forward 256, input-grad 512 */
  CHECK_EQ_INT(gen_o(0, 0, WEFT_FP8_DELAYED, 0, b, &comm), WEFT_OK);
  CHECK_NEAR(fx_layer(b, "L1.attn")->phase[WEFT_PHASE_FWD].size_bytes, 256, 0);
  CHECK_NEAR(fx_layer(b, "L1.attn")->phase[I].size_bytes, 512, 0);
  CHECK_EQ_INT(gen(132, 0, 0, b, &comm), WEFT_OK);
  g_layers = WEFT_LAYERS_MEGATRON;
  double dw = fx_layer(a, "L1.attn")->phase[WEFT_PHASE_WG].compute_ns -
              fx_layer(b, "L1.attn")->phase[WEFT_PHASE_WG].compute_ns;
  CHECK(fabs(dw - 8 * 768.0 * 16 / 116) <= 1.0);
  weft_workload_free(a);
  weft_workload_free(b);
}

/* Full recomputation with torch layers (PyTorch's checkpoint stops once
 * every saved tensor is back; docs/zoo.md, "Torch layers"): the MLP's
 * output reduce-scatter is not run again (8 x 128 = 1024 bytes in
 * input-grad, the gradient's own; Megatron's layers 2048: the recomputed
 * forward's too), the attention's is (2048); the same without the
 * overlap. */
static void tpo_torch_rc(void) {
  WeftWorkload *a = weft_workload_create(), *b = weft_workload_create();
  WeftCommunicator comm;
  int I = WEFT_PHASE_IG, RS = WEFT_COLL_REDUCESCATTER;
  for (int ov = 0; ov < 2; ov++) {
    CHECK_EQ_INT(gen_o(0, WEFT_RECOMPUTE_FULL, 0, ov, a, &comm), WEFT_OK);
    g_layers = WEFT_LAYERS_TORCH;
    CHECK_EQ_INT(gen_o(0, WEFT_RECOMPUTE_FULL, 0, ov, b, &comm), WEFT_OK);
    g_layers = WEFT_LAYERS_MEGATRON;
    CHECK_NEAR(fx_coll_bytes(a, "L1.mlp", I, RS, -1), 2048, 0);
    CHECK_NEAR(fx_coll_bytes(b, "L1.mlp", I, RS, -1), 1024, 0);
    CHECK_NEAR(fx_coll_bytes(b, "L1.attn", I, RS, -1), 2048, 0);
  }
  weft_workload_free(a);
  weft_workload_free(b);
}

/* --tp-overlap-method's text rule; TE's defaults where it names none. */
static void tpo_method_parse(void) {
  WeftError e;
  WeftParallel p;
  weft_parallel_default(&p);
  int want_te[WEFT_TPO_NGEMMS] = {WEFT_TPO_BULK,     WEFT_TPO_BULK,    WEFT_TPO_BULK,
                                  WEFT_TPO_BULK,     WEFT_TPO_PIPELINE, WEFT_TPO_PIPELINE};
  for (int i = 0; i < WEFT_TPO_NGEMMS; i++) {
    CHECK_EQ_INT(p.tp_overlap_method[i], WEFT_TPO_METHOD_DEFAULT);
    CHECK_EQ_INT(weft_tp_overlap_method_of(&p, i), want_te[i]);
  }
  CHECK_EQ_INT(weft_tp_overlap_method_parse("proj_fprop=ring_exchange fc1_dgrad=pipeline,"
                                            "qkv_dgrad=bulk",
                                            p.tp_overlap_method, &e),
               WEFT_OK);
  int want[WEFT_TPO_NGEMMS] = {WEFT_TPO_BULK, 0, WEFT_TPO_PIPELINE, 0, WEFT_TPO_RING_EXCHANGE, 0};
  for (int i = 0; i < WEFT_TPO_NGEMMS; i++) CHECK_EQ_INT(p.tp_overlap_method[i], want[i]);
  const char *bad[][2] = {{"proj_fprop=pipeline,proj_fprop=ring_exchange", "given twice"},
                          {"fc2_fprop=bulk", "pipeline or ring_exchange, not bulk"},
                          {"qkv_wgrad=ring_exchange", "takes bulk, not ring_exchange"},
                          {"fc1_fprop=pipeline", "ring exchange only"},
                          {"fc3_dgrad=bulk", "unknown GEMM 'fc3_dgrad'"},
                          {"fc1_dgrad=ring", "expected bulk, pipeline or ring_exchange"},
                          {"fc1_dgrad=", "expected bulk, pipeline or ring_exchange"},
                          {"fc1_dgrad", "NAME=METHOD"},
                          {" ,", "no GEMM"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK_EQ_INT(weft_tp_overlap_method_parse(bad[i][0], p.tp_overlap_method, &e), WEFT_EINPUT);
    CHECK(!strcmp(e.field, "tp_overlap_method") && strstr(e.msg, bad[i][1]));
  }
  for (int i = 0; i < WEFT_TPO_NGEMMS; i++) CHECK_EQ_INT(p.tp_overlap_method[i], want[i]);
  /* the checks: TE asserts a reduce-scattering dgrad's wgrad absent from the
   * config; no userbuffers method with torch layers; values out of range */
  WeftDevice d = fx_unit_device(1e12);
  p.tp = 2;
  p.sequence_parallel = p.tp_comm_overlap = 1;
  CHECK_EQ_INT(weft_tp_overlap_check(&p, &d, &e), WEFT_OK);
  p.tp_overlap_method[WEFT_TPO_FC1_WGRAD] = WEFT_TPO_BULK;
  CHECK_EQ_INT(weft_tp_overlap_check(&p, &d, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "tp_overlap_method") && strstr(e.msg, "refuses fc1_wgrad"));
  p.tp_overlap_method[WEFT_TPO_FC1_WGRAD] = 0;
  p.layer_impl = WEFT_LAYERS_TORCH;
  CHECK_EQ_INT(weft_tp_overlap_check(&p, &d, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "torch layers") != NULL);
  p.layer_impl = WEFT_LAYERS_MEGATRON;
  p.tp_overlap_method[WEFT_TPO_FC2_FPROP] = 4;
  CHECK_EQ_INT(weft_tp_overlap_check(&p, &d, &e), WEFT_EINPUT);
  p.tp_overlap_method[WEFT_TPO_FC2_FPROP] = WEFT_TPO_BULK;
  CHECK_EQ_INT(weft_tp_overlap_check(&p, &d, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "fc2_fprop takes pipeline or ring_exchange, not bulk") != NULL);
}

/* The output projection's reduce-scatter as a ring exchange (TE's
 * split_overlap_rs P2P): t = 2 chunks, the other rank's sent by the copy
 * engines under the next chunk's GEMM, so all 8 x 128 = 1024 bytes hide
 * under 1/2 of the projection's 8 x 256 (1024 ns) in 8 x (t-1) = 8 sends,
 * none blocks; with 132 SMs the projection's forward keeps every SM
 * (forward compute as without SMs, where the pipelined one's grows by
 * 8 x 256 x 16/116). fc2 stays pipelined. The chunks' sum kernel is a
 * memory-bound kernel: the flat model charges none. */
static void tpo_method_ring_rs(void) {
  WeftWorkload *a = weft_workload_create(), *b = weft_workload_create();
  WeftCommunicator comm;
  int F = WEFT_PHASE_FWD, RS = WEFT_COLL_REDUCESCATTER;
  g_method = "proj_fprop=ring_exchange";
  CHECK_EQ_INT(gen(0, 0, 0, a, &comm), WEFT_OK);
  coll(fx_layer(a, "L1.attn.2"), F, RS, 1024, 8, 1024);
  CHECK(fx_layer(a, "L1.attn")->phase[F].coll == WEFT_COLL_ALLGATHER);
  CHECK_NEAR(fx_coll_bytes(a, "L1.attn", F, RS, -1), 1024, 0);
  coll(fx_layer(a, "L1.mlp.2"), F, RS, 256, 8, 0); /* fc2: pipelined, its last chunk */
  CHECK_EQ_INT(gen(132, 0, 0, b, &comm), WEFT_OK);
  CHECK_NEAR(fx_layer(b, "L1.attn")->phase[F].compute_ns, fx_layer(a, "L1.attn")->phase[F].compute_ns,
             0);
  g_method = NULL;
  weft_workload_free(a);
  weft_workload_free(b);
}

/* QKV's dgrad as a reduce-scatter overlap (TE's
 * dgrad_reduce_scatter_overlap): its output, 8 x 128 = 1024 bytes,
 * pipelined under itself (256 block in 8 calls, 768 in 24 under 3/4 of
 * QKV's dgrad 8 x 768: 4608) or as a ring exchange (1024 under 1/2 of it,
 * 3072, in 8 sends); no reduce-scatter under the wgrad; the input gathered
 * again by NCCL beside the dgrad (512 under all of it, 6144). With 132 SMs
 * the pipelined comm kernel slows QKV's dgrad by 132/116 (input-grad
 * compute as TE's bulk default, whose all-gather kernel slows it too) and
 * the wgrad keeps every SM (8 x 768 x 16/116 below the default's). */
static void tpo_method_rs_dgrad(void) {
  WeftWorkload *a = weft_workload_create(), *b = weft_workload_create();
  WeftCommunicator comm;
  int I = WEFT_PHASE_IG, W = WEFT_PHASE_WG, AG = WEFT_COLL_ALLGATHER, RS = WEFT_COLL_REDUCESCATTER;
  g_method = "qkv_dgrad=pipeline";
  CHECK_EQ_INT(gen(0, 0, 0, a, &comm), WEFT_OK);
  coll(fx_layer(a, "L1.attn"), I, AG, 512, 8, 1024);
  coll(fx_layer(a, "L1.attn.2"), I, RS, 256, 8, 0);
  coll(fx_layer(a, "L1.attn.3"), I, RS, 768, 24, 4608);
  coll(fx_layer(a, "L1.attn.4"), I, AG, 512, 8, 6144);
  CHECK_NEAR(fx_coll_bytes(a, "L1.attn", I, RS, -1), 1024, 0);
  CHECK_NEAR(fx_coll_bytes(a, "L1.mlp", I, RS, -1), 1024, 0);
  coll(fx_layer(a, "L1.mlp.2"), I, RS, 1024, 8, 8192); /* fc1: bulk, under its wgrad */
  g_method = "qkv_dgrad=ring_exchange";
  CHECK_EQ_INT(gen(0, 0, 0, a, &comm), WEFT_OK);
  coll(fx_layer(a, "L1.attn.2"), I, RS, 1024, 8, 3072);
  coll(fx_layer(a, "L1.attn.3"), I, AG, 512, 8, 6144);
  g_method = "qkv_dgrad=pipeline";
  CHECK_EQ_INT(gen(132, 0, 0, a, &comm), WEFT_OK);
  g_method = NULL;
  CHECK_EQ_INT(gen(132, 0, 0, b, &comm), WEFT_OK);
  const WeftLayer *x = fx_layer(a, "L1.attn"), *y = fx_layer(b, "L1.attn");
  CHECK(fabs(x->phase[I].compute_ns - y->phase[I].compute_ns) <= 1.0);
  CHECK(fabs(y->phase[W].compute_ns - x->phase[W].compute_ns - 8 * 768.0 * 16 / 116) <= 1.0);
  weft_workload_free(a);
  weft_workload_free(b);
}

/* LoRA (QKV adapted, rank 2) with QKV's dgrad pipelined (Megatron-Bridge's
 * LoRA userbuffers configs pipeline fc1_dgrad): the frozen QKV's dgrad
 * reduce-scatter, which blocks whole under TE's bulk default (no wgrad to
 * hide under; 1024 bytes, 8 calls), hides 3/4 under 3/4 of the dgrad
 * (the base GEMM's 8 x 768 x 3/4 = 4608); no input gathered again. */
static void tpo_method_lora(void) {
  WeftWorkload *a = weft_workload_create();
  WeftCommunicator comm;
  int I = WEFT_PHASE_IG, AG = WEFT_COLL_ALLGATHER, RS = WEFT_COLL_REDUCESCATTER;
  g_lora = 2;
  CHECK_EQ_INT(gen(0, 0, 0, a, &comm), WEFT_OK);
  CHECK_NEAR(fx_coll_bytes(a, "L1.attn", I, RS, -1), 1024, 0);
  CHECK_NEAR(fx_coll_bytes(a, "L1.attn", I, AG, -1), 512, 0); /* the gradient's alone */
  g_method = "qkv_dgrad=pipeline";
  CHECK_EQ_INT(gen(0, 0, 0, a, &comm), WEFT_OK);
  g_method = NULL;
  g_lora = 0;
  CHECK_NEAR(fx_coll_bytes(a, "L1.attn", I, RS, -1), 1024, 0);
  CHECK_NEAR(fx_coll_bytes(a, "L1.attn", I, AG, -1), 512, 0);
  int found = 0;
  for (int i = 0; i < a->nlayers; i++)
    if (!strncmp(a->layers[i].name, "L1.attn", 7) && (int)a->layers[i].phase[I].coll == RS &&
        a->layers[i].phase[I].overlap_ns > 0) {
      CHECK_NEAR(a->layers[i].phase[I].size_bytes, 768, 0);
      CHECK_NEAR(a->layers[i].phase[I].overlap_ns, 4608, 0);
      found++;
    }
  CHECK_EQ_INT(found, 1);
  weft_workload_free(a);
}

/* fp8_buf on a pipelined reduce-scatter (the recipes' fp8_buf: the GEMM
 * writes FP8, the comm kernel sums into BF16): with FP8 GEMMs the
 * projection's 8 x 128 bytes become 8 x 64 (the last chunk's 128 block in
 * 8 calls; 384 hide under 3/4 of the projection, 1536 as in tpo_bytes, in
 * 24), fc2's stay BF16 (256 block: not named); QKV's dgrad run pipelined
 * and named likewise (input-grad 128 + 384 under 4608). TE's rule: ignored on a ring exchange (the
 * projection's 1024 under 1024) and without FP8 GEMMs (256 + 768). The
 * names: only the four pipelined-capable ones, each once. */
static void tpo_fp8_buf(void) {
  WeftWorkload *a = weft_workload_create();
  WeftCommunicator comm;
  WeftError e;
  int F = WEFT_PHASE_FWD, I = WEFT_PHASE_IG, RS = WEFT_COLL_REDUCESCATTER;
  g_fp8buf = "proj_fprop qkv_dgrad";
  g_method = "qkv_dgrad=pipeline";
  CHECK_EQ_INT(gen(0, 0, WEFT_FP8_DELAYED, a, &comm), WEFT_OK);
  coll(fx_layer(a, "L1.attn.2"), F, RS, 128, 8, 0);
  coll(fx_layer(a, "L1.attn.3"), F, RS, 384, 24, 1536);
  coll(fx_layer(a, "L1.mlp.2"), F, RS, 256, 8, 0);
  coll(fx_layer(a, "L1.attn.2"), I, RS, 128, 8, 0);
  coll(fx_layer(a, "L1.attn.3"), I, RS, 384, 24, 4608);
  CHECK_EQ_INT(gen(0, 0, 0, a, &comm), WEFT_OK); /* BF16 GEMMs: read by nothing */
  coll(fx_layer(a, "L1.attn.2"), F, RS, 256, 8, 0);
  coll(fx_layer(a, "L1.attn.3"), F, RS, 768, 24, 1536);
  g_method = "proj_fprop=ring_exchange";
  CHECK_EQ_INT(gen(0, 0, WEFT_FP8_DELAYED, a, &comm), WEFT_OK);
  coll(fx_layer(a, "L1.attn.2"), F, RS, 1024, 8, 1024);
  g_method = g_fp8buf = NULL;
  int mask = 5;
  const char *bad[][2] = {{"proj_fprop,proj_fprop", "twice"},
                          {"qkv_wgrad", "bulk reduce-scatter"},
                          {"fc2_dgrad", "already"},
                          {"fc3", "unknown GEMM 'fc3'"},
                          {" ", "no GEMM"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK_EQ_INT(weft_tp_overlap_fp8_buf_parse(bad[i][0], &mask, &e), WEFT_EINPUT);
    CHECK(!strcmp(e.field, "tp_overlap_fp8_buf") && strstr(e.msg, bad[i][1]));
  }
  CHECK_EQ_INT(mask, 5);
  CHECK_EQ_INT(weft_tp_overlap_fp8_buf_parse("fc2_fprop,fc1_dgrad", &mask, &e), WEFT_OK);
  CHECK_EQ_INT(mask, (1 << WEFT_TPO_FC2_FPROP) | (1 << WEFT_TPO_FC1_DGRAD));
  WeftParallel p;
  weft_parallel_default(&p);
  p.tp_overlap_fp8_buf = 1 << WEFT_TPO_QKV_WGRAD;
  CHECK_EQ_INT(weft_tp_overlap_check(&p, NULL, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "tp_overlap_fp8_buf"));
  weft_workload_free(a);
}

const TestCase suite_overlapgen[] = {
    {"tpo_torch_rc", tpo_torch_rc},
    {"tpo_torch", tpo_torch},
    {"tpo_bytes", tpo_bytes},
    {"tpo_sms", tpo_sms},
    {"tpo_fp8", tpo_fp8},
    {"tpo_recipe", tpo_recipe},
    {"tpo_parse", tpo_parse},
    {"tpo_aggregate", tpo_aggregate},
    {"tpo_method_parse", tpo_method_parse},
    {"tpo_method_ring_rs", tpo_method_ring_rs},
    {"tpo_method_rs_dgrad", tpo_method_rs_dgrad},
    {"tpo_method_lora", tpo_method_lora},
    {"tpo_fp8_buf", tpo_fp8_buf},
    {0, 0},
};
