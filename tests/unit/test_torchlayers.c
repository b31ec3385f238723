/* test_torchlayers.c — dense layers written as PyTorch modules with DTensor
 * TP (layer_impl torch; opcost_torch.c, opcost.c): the separate projection
 * GEMMs' shapes against the fused ones, autograd's gradient sums, repeat_kv,
 * DTensor's layout copies (vanilla and async TP), FP8's input cast on the
 * shard, and the torchtitan_op replay's copy, each by hand. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gen_fixture.h"
#include "model/opcost.h"

#define EXACT 1e-9

/* b 2, s 64 (T = 128 tokens), h 64, 4 heads of 16, 2 KV heads, SwiGLU of
 * 256, bf16, flash, TP 2 with SP: U = T h 2 bytes = 16,384. */
static OcLayer layer(void) {
  OcLayer l;
  memset(&l, 0, sizeof l);
  l.b = 2, l.s = l.kv_len = 64, l.h = 64, l.heads = 4, l.kv_heads = 2;
  l.dqk = l.dv = 16;
  l.ffn = l.moe_ffn = 256, l.vocab = 16, l.ffn_matrices = 3;
  l.tp = 2, l.ep = l.cp = 1, l.sp = 1;
  l.flash = l.causal = 1, l.rotary = 1;
  l.act_bytes = l.param_bytes = 2;
  l.torch = 1;
  return l;
}
#define U 16384.0

/* Ops of block blk named name in phase ph: how many, their bytes. */
static int find(const OcLayer *l, OcBlock blk, const char *name, int ph, double *bytes) {
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(l, blk, ops, OC_MAX_OPS), k = 0;
  *bytes = 0;
  for (int i = 0; i < n; i++)
    if (!strcmp(ops[i].name, name) && ops[i].phase == ph) k++, *bytes += ops[i].bytes;
  return k;
}

/* The first GEMM op of that name and phase. */
static OcOp gemm_op(const OcLayer *l, OcBlock blk, const char *name, int ph) {
  OcOp ops[OC_MAX_OPS], none;
  memset(&none, 0, sizeof none);
  int n = weft_opcost_ops(l, blk, ops, OC_MAX_OPS);
  for (int i = 0; i < n; i++)
    if (!strcmp(ops[i].name, name) && ops[i].phase == ph && ops[i].kind == OC_GEMM) return ops[i];
  return none;
}

/* wq is T x (4 x 16 / 2 = 32) x 64, wk and wv T x (2 x 16 / 2 = 16) x 64:
 * together the fused qkv's FLOPs (T x 64 x 64 x 2); w1 and w3 each T x 128
 * x 64, the fused fc1 T x 256 x 64; no fused op is left. */
static void projections(void) {
  OcLayer l = layer();
  double by;
  OcOp q = gemm_op(&l, OC_ATTN, "wq", WEFT_PHASE_FWD), k = gemm_op(&l, OC_ATTN, "wk", WEFT_PHASE_FWD),
       v = gemm_op(&l, OC_ATTN, "wv", WEFT_PHASE_FWD);
  CHECK_NEAR(q.m, 128, EXACT);
  CHECK_NEAR(q.n, 32, EXACT);
  CHECK_NEAR(k.n, 16, EXACT);
  CHECK_NEAR(v.n, 16, EXACT);
  CHECK_NEAR(q.k + k.k + v.k, 3 * 64, EXACT);
  CHECK_NEAR(q.flops + k.flops + v.flops, 2.0 * 128 * 64 * 64, EXACT);
  CHECK_EQ_INT(find(&l, OC_ATTN, "qkv", WEFT_PHASE_FWD, &by), 0);
  OcOp w1 = gemm_op(&l, OC_MLP, "w1", WEFT_PHASE_FWD), w3 = gemm_op(&l, OC_MLP, "w3", WEFT_PHASE_FWD);
  CHECK_NEAR(w1.n, 128, EXACT);
  CHECK_NEAR(w3.n, 128, EXACT);
  CHECK_EQ_INT(find(&l, OC_MLP, "fc1", WEFT_PHASE_FWD, &by), 0);
  /* Megatron's layers: the fused ones, no torch op */
  l.torch = 0;
  OcOp f = gemm_op(&l, OC_ATTN, "qkv", WEFT_PHASE_FWD);
  CHECK_NEAR(f.n, 64, EXACT);
  CHECK_EQ_INT(find(&l, OC_ATTN, "grad_sum", WEFT_PHASE_IG, &by), 0);
  CHECK_EQ_INT(find(&l, OC_ATTN, "repeat_kv", WEFT_PHASE_FWD, &by), 0);
  CHECK_EQ_INT(find(&l, OC_ATTN, "dtensor_ag_copy", WEFT_PHASE_FWD, &by), 0);
}

/* Autograd's sum of the input gradients (U each): compiled, one kernel
 * reading 3 and writing 1 (4U) for the attention, 3U for the MLP's two;
 * eager, an add of 3 tensors per extra reader (2 x 3U, 1 x 3U). */
static void grad_sums(void) {
  OcLayer l = layer();
  double by;
  CHECK_EQ_INT(find(&l, OC_ATTN, "grad_sum", WEFT_PHASE_IG, &by), 1);
  CHECK_NEAR(by, 4 * U, EXACT);
  CHECK_EQ_INT(find(&l, OC_MLP, "grad_sum", WEFT_PHASE_IG, &by), 1);
  CHECK_NEAR(by, 3 * U, EXACT);
  l.norm_eager = 1;
  CHECK_EQ_INT(find(&l, OC_ATTN, "grad_sum", WEFT_PHASE_IG, &by), 2);
  CHECK_NEAR(by, 6 * U, EXACT);
  CHECK_EQ_INT(find(&l, OC_MLP, "grad_sum", WEFT_PHASE_IG, &by), 1);
  CHECK_NEAR(by, 3 * U, EXACT);
  l.ffn_matrices = 2; /* a GeLU MLP: one reader, no sum */
  CHECK_EQ_INT(find(&l, OC_MLP, "grad_sum", WEFT_PHASE_IG, &by), 0);
  /* MLA: two readers of the input (the query's and the KV's
   * down-projections), eager: one add */
  l.kv_lora = 16, l.q_lora = 16, l.rope = 8, l.kv_heads = l.heads;
  CHECK_EQ_INT(find(&l, OC_ATTN, "grad_sum", WEFT_PHASE_IG, &by), 1);
  CHECK_NEAR(by, 3 * U, EXACT);
  CHECK_EQ_INT(find(&l, OC_ATTN, "repeat_kv", WEFT_PHASE_FWD, &by), 0);
}

/* repeat_kv: per rank 1 KV head to 2 query heads, K and V of 16 each:
 * read T x 1 x 32, write T x 2 x 32 elements, 2 bytes: 128 x 3 x 32 x 2 =
 * 24,576, forward and backward; none when every head has its own K, V. */
static void repeat(void) {
  OcLayer l = layer();
  double by;
  CHECK_EQ_INT(find(&l, OC_ATTN, "repeat_kv", WEFT_PHASE_FWD, &by), 1);
  CHECK_NEAR(by, 24576, EXACT);
  CHECK_EQ_INT(find(&l, OC_ATTN, "repeat_kv", WEFT_PHASE_IG, &by), 1);
  CHECK_NEAR(by, 24576, EXACT);
  l.kv_heads = 4;
  CHECK_EQ_INT(find(&l, OC_ATTN, "repeat_kv", WEFT_PHASE_FWD, &by), 0);
}

/* Vanilla TP under SP: forward the gathered input copied (2U) and wo's
 * output before its reduce-scatter (2U); backward the gathered gradient
 * (2U); the input gradient's reduce-scatter copy is compiled into the sum
 * (none) or, eager, a copy of its own (2U). Without SP or at TP 1: none. */
static void vanilla(void) {
  OcLayer l = layer();
  double by;
  for (int blk = OC_ATTN; blk <= OC_MLP; blk++) {
    CHECK_EQ_INT(find(&l, (OcBlock)blk, "dtensor_ag_copy", WEFT_PHASE_FWD, &by), 1);
    CHECK_NEAR(by, 2 * U, EXACT);
    CHECK_EQ_INT(find(&l, (OcBlock)blk, "dtensor_rs_copy", WEFT_PHASE_FWD, &by), 1);
    CHECK_NEAR(by, 2 * U, EXACT);
    CHECK_EQ_INT(find(&l, (OcBlock)blk, "dtensor_ag_copy", WEFT_PHASE_IG, &by), 1);
    CHECK_NEAR(by, 2 * U, EXACT);
    CHECK_EQ_INT(find(&l, (OcBlock)blk, "dtensor_rs_copy", WEFT_PHASE_IG, &by), 0);
  }
  CHECK_NEAR(weft_opcost_torch_ag_copy_bytes(&l), 2 * U, EXACT);
  l.norm_eager = 1;
  CHECK_EQ_INT(find(&l, OC_ATTN, "dtensor_rs_copy", WEFT_PHASE_IG, &by), 1);
  CHECK_NEAR(by, 2 * U, EXACT);
  l.norm_eager = 0;
  l.ffn_matrices = 2; /* fc1's dgrad is scattered as it is: copied */
  CHECK_EQ_INT(find(&l, OC_MLP, "dtensor_rs_copy", WEFT_PHASE_IG, &by), 1);
  l.ffn_matrices = 3;
  /* FP8: the input gathered in FP8 (1 byte): its copy U; the gradient is
   * gathered in bf16 (torchao casts it inside the linear): 2U */
  l.fp8 = WEFT_FP8_CURRENT;
  CHECK_EQ_INT(find(&l, OC_ATTN, "dtensor_ag_copy", WEFT_PHASE_FWD, &by), 1);
  CHECK_NEAR(by, U, EXACT);
  CHECK_EQ_INT(find(&l, OC_ATTN, "dtensor_ag_copy", WEFT_PHASE_IG, &by), 1);
  CHECK_NEAR(by, 2 * U, EXACT);
  l.fp8 = 0;
  l.sp = 0;
  CHECK_EQ_INT(find(&l, OC_ATTN, "dtensor_ag_copy", WEFT_PHASE_FWD, &by), 0);
  CHECK_NEAR(weft_opcost_torch_ag_copy_bytes(&l), 0, EXACT);
  l.sp = 1, l.tp = 1;
  CHECK_EQ_INT(find(&l, OC_ATTN, "dtensor_rs_copy", WEFT_PHASE_FWD, &by), 0);
}

/* Async TP: the fused GEMMs take the copies away; the fused
 * matmul-reduce-scatter sums its stacked partials (read U, write U/2); a
 * GeLU fc1's dgrad fuses too, a sum's scatter stays compiled into it. */
static void async_tp(void) {
  OcLayer l = layer();
  l.tp_async = 1;
  double by;
  for (int blk = OC_ATTN; blk <= OC_MLP; blk++) {
    CHECK_EQ_INT(find(&l, (OcBlock)blk, "dtensor_ag_copy", WEFT_PHASE_FWD, &by) +
                     find(&l, (OcBlock)blk, "dtensor_ag_copy", WEFT_PHASE_IG, &by) +
                     find(&l, (OcBlock)blk, "dtensor_rs_copy", WEFT_PHASE_FWD, &by) +
                     find(&l, (OcBlock)blk, "dtensor_rs_copy", WEFT_PHASE_IG, &by),
                 0);
    CHECK_EQ_INT(find(&l, (OcBlock)blk, "async_tp_reduce", WEFT_PHASE_FWD, &by), 1);
    CHECK_NEAR(by, 1.5 * U, EXACT);
  }
  CHECK_NEAR(weft_opcost_torch_ag_copy_bytes(&l), 0, EXACT);
  l.ffn_matrices = 2;
  CHECK_EQ_INT(find(&l, OC_MLP, "dtensor_rs_copy", WEFT_PHASE_IG, &by), 0);
  l.ffn_matrices = 3, l.norm_eager = 1; /* eager: the sum's scatter is copied */
  CHECK_EQ_INT(find(&l, OC_MLP, "dtensor_rs_copy", WEFT_PHASE_IG, &by), 1);
}

/* FP8 (current scaling): under SP, Float8ColwiseParallel casts the local
 * shard (T/2 x 64 = 4,096 elements) once before the gather: wq's cast,
 * none for wk, wv; at TP 1 each linear casts its full input (3 x 8,192). */
static void fp8_cast(void) {
  OcLayer l = layer();
  l.fp8 = WEFT_FP8_CURRENT;
  double by;
  CHECK_EQ_INT(find(&l, OC_ATTN, "fp8_amax_input", WEFT_PHASE_FWD, &by), 2); /* wq's and wo's */
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  CHECK(n > 0);
  double first = -1;
  for (int i = 0; i < n && first < 0; i++)
    if (!strcmp(ops[i].name, "fp8_amax_input")) first = ops[i].flops; /* 1 FLOP an element */
  CHECK_NEAR(first, 128 * 64 / 2, EXACT);
  l.tp = 1, l.sp = 0;
  CHECK_EQ_INT(find(&l, OC_ATTN, "fp8_amax_input", WEFT_PHASE_FWD, &by), 4); /* + wk, wv */
  CHECK_NEAR(by, 4 * 128 * 64 * 2, EXACT); /* 3 inputs and wo's (64 wide at TP 1) */
}

/* torchtitan_op's replay re-gathers the block's input: with torch layers
 * under SP its copy is added to what the policy recomputes, at the copy's
 * op time; megatron layers and async TP add nothing. */
static void replay(void) {
  WeftDevice d;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "h100", &d, &e), WEFT_OK);
  OcLayer l = layer(), m = layer();
  m.torch = 0;
  OcOp cp = {"dtensor_ag_copy", WEFT_PHASE_IG, OC_VECTOR, 0, 0, 0, 0, 0, 2 * U, 0, 0, 0, 0, 0, 0, 0, 0};
  double t = weft_opcost_launch_ns(weft_opcost_layer_op_ns(&d, &l, &cp), 0);
  CHECK(t > 0);
  /* the same GEMMs either way: wk's and wo's, w3's */
  CHECK_NEAR(weft_opcost_block_titan_rc_ns(&d, &l, OC_ATTN) -
                 weft_opcost_block_titan_rc_ns(&d, &m, OC_ATTN), t, 1e-6);
  CHECK_NEAR(weft_opcost_block_titan_rc_ns(&d, &l, OC_MLP) -
                 weft_opcost_block_titan_rc_ns(&d, &m, OC_MLP), t, 1e-6);
  l.tp_async = 1;
  CHECK_NEAR(weft_opcost_block_titan_rc_ns(&d, &l, OC_ATTN),
             weft_opcost_block_titan_rc_ns(&d, &m, OC_ATTN), 1e-6);
}

/* What full recomputation leaves out with torch layers: of the MLP, w2's
 * (fc2's) forward GEMM, the residual add and the output's layout copy,
 * each at its op time with its launch; nothing of the attention, nothing
 * with Megatron's layers. */
static void rc_skip(void) {
  WeftDevice d;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "h100", &d, &e), WEFT_OK);
  OcLayer l = layer();
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS), k = 0;
  double want = 0;
  for (int i = 0; i < n; i++) {
    const OcOp *o = &ops[i];
    if (o->phase != WEFT_PHASE_FWD) continue;
    if ((o->kind == OC_GEMM && !strcmp(o->name, "fc2")) || !strcmp(o->name, "residual_add") ||
        !strcmp(o->name, "dtensor_rs_copy")) {
      want += weft_opcost_launch_ns(weft_opcost_layer_op_ns(&d, &l, o), 0);
      k++;
    }
  }
  CHECK_EQ_INT(k, 3);
  CHECK(want > 0);
  CHECK_NEAR(weft_opcost_torch_rc_skip_ns(&d, &l, OC_MLP), want, 1e-6 * want);
  CHECK_NEAR(weft_opcost_torch_rc_skip_ns(&d, &l, OC_ATTN), 0, 0);
  l.torch = 0;
  CHECK_NEAR(weft_opcost_torch_rc_skip_ns(&d, &l, OC_MLP), 0, 0);
}

/* The generator's side: a 2-layer model (h 1024, 16 heads, SwiGLU of
 * 4096) on TP 2 with SP, one micro-batch; full recomputation adds the
 * MLP's forward to its input-grad less what the checkpoint leaves out
 * (weft_opcost_torch_rc_skip_ns), the attention's whole. */
static double mlp_ig(int recompute, int torch, double *fwd, double *skip) {
  WeftModel m = fx_llm(2);
  WeftDevice d = fx_oc_device(2000e9, 0.8);
  int four = 4;
  WeftNetwork net = fx_net(1, &four, WEFT_SWITCH);
  WeftParallel p;
  weft_parallel_default(&p);
  p.tp = 2, p.dp = 2, p.sequence_parallel = 1, p.recompute = recompute;
  p.layer_impl = torch ? WEFT_LAYERS_TORCH : WEFT_LAYERS_MEGATRON;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError e;
  double ig = -1;
  if (weft_generate(&m, &d, &p, &net, 0, wl, &comm, &info, &e) == WEFT_OK) {
    const WeftLayer *x = NULL;
    for (int i = 0; i < wl->nlayers && !x; i++)
      if (!strcmp(wl->layers[i].name, "L1.mlp")) x = &wl->layers[i];
    if (x) ig = x->phase[WEFT_PHASE_IG].compute_ns, *fwd = x->phase[WEFT_PHASE_FWD].compute_ns;
  }
  OcLayer l;
  weft_opcost_layer(&m, &p, &l);
  *skip = weft_opcost_torch_rc_skip_ns(&d, &l, OC_MLP);
  weft_workload_free(wl);
  return ig;
}

static void rc_skip_gen(void) {
  double f0, f1, s0, s1;
  for (int torch = 0; torch < 2; torch++) {
    double none = mlp_ig(WEFT_RECOMPUTE_NONE, torch, &f0, &s0);
    double full = mlp_ig(WEFT_RECOMPUTE_FULL, torch, &f1, &s1);
    CHECK(none > 0 && full > 0 && f0 > 0);
    CHECK_NEAR(f1, f0, 1.0);
    CHECK(torch ? s1 > 0 : s1 == 0);
    CHECK(fabs(full - none - (f1 - s1)) <= 2.0); /* whole ns per entry */
  }
}

const TestCase suite_torchlayers[] = {{"torch_rc_skip_gen", rc_skip_gen},{"torch_rc_skip", rc_skip},{"torch_projections", projections},
                                      {"torch_grad_sums", grad_sums},
                                      {"torch_repeat_kv", repeat},
                                      {"torch_dtensor_vanilla", vanilla},
                                      {"torch_dtensor_async", async_tp},
                                      {"torch_fp8_shard_cast", fp8_cast},
                                      {"torch_replay_copy", replay},
                                      {0}};
