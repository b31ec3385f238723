/* test_opcost.c — the per-operator compute model: each operator's FLOPs and
 * bytes by hand, the roofline switch, wave quantization, monotonicity and
 * its use by the generator. */
#include <stdio.h>
#include <string.h>

#include "model/measured.h"
#include "model/opcost.h"
#include "../test.h"
#include "oc_fixture.h"

#define EXACT 1e-12 /* sums of a few exact products: only rounding */
#define NS_ROUND 1e-5 /* workloads hold whole ns: 0.5 ns of 3e5 or more */

/* b = 1, s = 4, h = 8, 2 heads (head dim 4), FFN 32, vocab 16, TP 1, bf16. */
static OcLayer tiny(int ffn_matrices) { return oc_tiny(ffn_matrices); }

static void check_op(const OcOp *ops, int n, const char *name, int phase, double flops,
                     double bytes) {
  const OcOp *o = oc_need(ops, n, name, phase);
  if (!o) return;
  CHECK_NEAR(o->flops, flops, EXACT);
  CHECK_NEAR(o->bytes, bytes, EXACT);
}

/* T = 4 tokens. Norm: 32 elements x 8 FLOPs (LayerNorm), read + write 2 bytes.
 * QKV: (4 x 8)(8 x 24): 2*4*24*8 = 1536 FLOPs, (32 + 192 + 96) * 2 = 640 bytes.
 * Score and context: 2 heads of (4 x 4)(4 x 4): 256 FLOPs, 2*48*2 = 192 bytes.
 * Softmax: 32 scores x 5, 2*32*2 bytes; dropout (p 0.1) 32 FLOPs, 128 + 32
 * mask bytes. Proj: (4 x 8)(8 x 8): 512 FLOPs, 256 bytes. Bias-dropout-add:
 * 3*32 FLOPs, 3*32*2 + 32 bytes (the mask written). Without dropout no
 * attention dropout op, and the bias-add-residual 2*32 FLOPs and 3*32*2
 * bytes. Backward: GEMMs twice, vector kernels 2x; QKV's
 * weight gradient accumulates into main_grad (its 192 elements read and
 * written at 2 bytes, grad_bytes unset: act_bytes): 32*2 + 96*2 + 192*4 =
 * 1024 bytes. The four gradients added into main_grad each micro-batch
 * (GeLU family): the norm's gain and bias, the QKV and projection biases. */
static void attention_ops(void) {
  OcLayer l = tiny(2);
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  CHECK_EQ_INT(n, 18 + 4);
  CHECK(oc_find(ops, n, "attn_dropout", WEFT_PHASE_FWD, 0) == NULL);
  check_op(ops, n, "bias_dropout_add", WEFT_PHASE_FWD, 64, 192);
  check_op(ops, n, "bias_dropout_add", WEFT_PHASE_IG, 128, 384);
  l.attn_drop = l.hidden_drop = 0.1;
  n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  CHECK_EQ_INT(n, 20 + 4);
  check_op(ops, n, "attn_norm", WEFT_PHASE_FWD, 256, 128);
  check_op(ops, n, "attn_norm", WEFT_PHASE_IG, 512, 256);
  check_op(ops, n, "qkv", WEFT_PHASE_FWD, 1536, 640);
  check_op(ops, n, "qkv", WEFT_PHASE_WG, 1536, 1024);
  check_op(ops, n, "score", WEFT_PHASE_FWD, 256, 192);
  check_op(ops, n, "softmax", WEFT_PHASE_FWD, 160, 128);
  check_op(ops, n, "attn_dropout", WEFT_PHASE_FWD, 32, 160);
  check_op(ops, n, "attn_dropout", WEFT_PHASE_IG, 64, 320);
  check_op(ops, n, "context", WEFT_PHASE_FWD, 256, 192);
  check_op(ops, n, "proj", WEFT_PHASE_FWD, 512, 256);
  check_op(ops, n, "bias_dropout_add", WEFT_PHASE_FWD, 96, 224);
  check_op(ops, n, "bias_dropout_add", WEFT_PHASE_IG, 192, 448);
  /* the backward GEMMs' shapes: dX = dY W^T is (4 x 24)(24 x 8), dW = X^T dY
   * is (8 x 4)(4 x 24); score's two gradients both into IG (no weights) */
  const OcOp *dx = oc_find(ops, n, "qkv", WEFT_PHASE_IG, 0);
  const OcOp *dw = oc_find(ops, n, "qkv", WEFT_PHASE_WG, 0);
  CHECK(dx && dx->m == 4 && dx->n == 8 && dx->k == 24);
  CHECK(dw && dw->m == 8 && dw->n == 24 && dw->k == 4);
  CHECK(oc_find(ops, n, "score", WEFT_PHASE_IG, 1) != NULL);
  CHECK(oc_find(ops, n, "score", WEFT_PHASE_WG, 0) == NULL);
  /* forward GEMM FLOPs = the generator's attention formula 2bsh(h + 2kv) +
   * 4bs^2h + 2bsh^2 = 1536 + 512 + 512; backward twice that */
  double gemm[WEFT_NPHASES] = {0, 0, 0};
  for (int i = 0; i < n; i++)
    if (ops[i].kind == OC_GEMM) gemm[ops[i].phase] += ops[i].flops;
  CHECK_NEAR(gemm[WEFT_PHASE_FWD], 2560, EXACT);
  CHECK_NEAR(gemm[WEFT_PHASE_IG] + gemm[WEFT_PHASE_WG], 2 * 2560, EXACT);
  CHECK_NEAR(gemm[WEFT_PHASE_WG], 1536 + 512, EXACT); /* qkv and proj weights */
}

/* GeLU MLP: fc1 (4 x 8)(8 x 32) and fc2 (4 x 32)(32 x 8): 2048 FLOPs each;
 * bias-GeLU over 128 elements: 8 FLOPs and 4 bytes each. SwiGLU: gate and
 * up as one fc1 of twice the width (Megatron-Core's linear_fc1), swiglu
 * reads 2 and writes 1 of 128 elements, RMSNorm
 * 4 FLOPs per element; no dropout, a plain residual add (1 FLOP, 6 bytes).
 * Gradients added into main_grad: GeLU the norm's gain and bias and the
 * two biases (4), SwiGLU the norm's gain (1). */
static void mlp_ops(void) {
  OcLayer l = tiny(2);
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  CHECK_EQ_INT(n, 2 + 3 + 2 + 3 + 2 + 4);
  check_op(ops, n, "fc1", WEFT_PHASE_FWD, 2048, (32 + 256 + 128) * 2);
  check_op(ops, n, "bias_gelu", WEFT_PHASE_FWD, 1024, 512);
  check_op(ops, n, "fc2", WEFT_PHASE_FWD, 2048, (128 + 256 + 32) * 2);
  l = tiny(3);
  n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  CHECK_EQ_INT(n, 2 + 3 + 2 + 3 + 2 + 1);
  check_op(ops, n, "mlp_norm", WEFT_PHASE_FWD, 128, 128);
  check_op(ops, n, "fc1", WEFT_PHASE_FWD, 4096, (32 + 512 + 256) * 2);
  CHECK(oc_find(ops, n, "gate", WEFT_PHASE_FWD, 0) == NULL);
  check_op(ops, n, "swiglu", WEFT_PHASE_FWD, 640, 768);
  /* one fused kernel each way (Megatron-Core's swiglu / swiglu_back, as
   * torch.compile fuses it too): backward reads g and y, writes 2 of 128
   * elements (5 x 256 bytes); neither takes the measured eager row (two
   * kernels, 5 tensors moved forward), both the copy bandwidth */
  check_op(ops, n, "swiglu", WEFT_PHASE_IG, 1280, 1280);
  CHECK(oc_need(ops, n, "swiglu", WEFT_PHASE_FWD)->mem == WM_MEM_NONE);
  CHECK(oc_need(ops, n, "swiglu", WEFT_PHASE_IG)->mem == WM_MEM_NONE);
  check_op(ops, n, "residual_add", WEFT_PHASE_FWD, 32, 192);
  CHECK(oc_find(ops, n, "attn_dropout", WEFT_PHASE_FWD, 0) == NULL);
  /* TP 2 with sequence parallelism: GEMM widths and the norm halve */
  l.tp = 2;
  l.sp = 1;
  n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  check_op(ops, n, "mlp_norm", WEFT_PHASE_FWD, 64, 64);
  check_op(ops, n, "fc1", WEFT_PHASE_FWD, 2048, (32 + 256 + 128) * 2);
  /* MoE, 4 experts, top 2, EP 2: 2 local experts of 4*2*2/4 = 4 tokens each;
   * the router (4 x 8)(8 x 4) */
  l = tiny(2);
  l.experts = 4;
  l.top_k = 2;
  l.ep = 2;
  n = weft_opcost_ops(&l, OC_MOE, ops, OC_MAX_OPS);
  check_op(ops, n, "router", WEFT_PHASE_FWD, 256, (32 + 32 + 16) * 2);
  const OcOp *fc1 = oc_find(ops, n, "fc1", WEFT_PHASE_FWD, 0);
  CHECK(fc1 && fc1->batch == 2 && fc1->m == 4);
  if (fc1) CHECK_NEAR(fc1->flops, 2 * 2048, EXACT);
  /* TP 2 with SP (experts on TP): Megatron-Core's all-to-all dispatcher
   * routes each rank's sequence shard, 4 / 2 = 2 tokens: the router (2 x 8)(8
   * x 4), 128 FLOPs; the experts get ep 2 ranks' 2 x 2 tokens gathered over
   * TP 2: 4 tokens each, width 32 / 2 */
  l.tp = 2;
  l.sp = 1;
  n = weft_opcost_ops(&l, OC_MOE, ops, OC_MAX_OPS);
  check_op(ops, n, "router", WEFT_PHASE_FWD, 128, (16 + 32 + 8) * 2);
  fc1 = oc_find(ops, n, "fc1", WEFT_PHASE_FWD, 0);
  CHECK(fc1 && fc1->batch == 2 && fc1->m == 4 && fc1->n == 16);
  /* without SP every TP rank routes all 4 tokens (the upper bound) */
  l.sp = 0;
  n = weft_opcost_ops(&l, OC_MOE, ops, OC_MAX_OPS);
  check_op(ops, n, "router", WEFT_PHASE_FWD, 256, (32 + 32 + 16) * 2);
}

/* One op's kernel count and bytes (the op must be there). */
static void check_kernels(const OcOp *ops, int n, const char *name, int phase, double count,
                          double bytes) {
  const OcOp *o = oc_need(ops, n, name, phase);
  if (!o) return;
  CHECK_NEAR(o->count, count, EXACT);
  CHECK_NEAR(o->bytes, bytes, EXACT);
}

/* The kernels around a MoE layer's GEMMs (opcost_moe.c), Megatron-Core
 * core_v0.10.0's all-to-all dispatcher: tiny's 4 tokens, h 8, bf16, 4
 * experts, top 2, EP 2 (2 local experts), TP 1. Router tensor R = 4 x 4 =
 * 16 elements, each small kernel 8 R = 128 bytes; N = 4 x 2 = 8 routed
 * copies, x = N h 2 = 128 bytes, y = 4 h 2 = 64.
 * Eager: router 27 kernels forward, 14 backward; permute's 5 small, its
 * index_select 2x + 8N = 320; unpermute's 5 small, the probs product 2x +
 * N 2 = 272, the output's zeros y = 64, scatter_add_ x + 2y + 8N = 320;
 * backward the gather x + y + 8N = 256, the product's 272, dC x tokens 3x
 * = 384 summed over h x + N 2 = 144, masked_select's 4 small, zeros 64,
 * index_add_ 320; 2 local experts: the chunks sorted to and from expert
 * order, 2 kernels of 2x = 256 each way.
 * Fused (--moe-permute-fusion, TE's Triton kernels): the row map's 2
 * kernels of 128; permute x + y + 4R = 256, unpermute x + y + R 2 + 4R =
 * 288; backward unpermute's 2x + y + R 2 + 4R = 416, permute's 256.
 * --moe-router-fusion: 7 and 5 kernels. TP 2 with SP: a rank routes its 2
 * tokens (R = 8, x = 64), the sorts move the 2 TP ranks' gathered copies,
 * 2 x 64 x 2 = 256. */
static void moe_side_ops(void) {
  OcLayer l = tiny(3);
  l.experts = 4, l.top_k = 2, l.ep = 2;
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_MOE, ops, OC_MAX_OPS);
  const int F = WEFT_PHASE_FWD, B = WEFT_PHASE_IG;
  check_kernels(ops, n, "moe_router_small", F, 27, 128);
  check_kernels(ops, n, "moe_router_small", B, 14, 128);
  check_kernels(ops, n, "moe_permute_small", F, 5, 128);
  check_kernels(ops, n, "moe_permute", F, 1, 320);
  check_kernels(ops, n, "moe_unpermute_small", F, 5, 128);
  check_kernels(ops, n, "moe_unpermute_probs", F, 1, 272);
  check_kernels(ops, n, "moe_unpermute_zeros", F, 1, 64);
  check_kernels(ops, n, "moe_unpermute_scatter", F, 1, 320);
  check_kernels(ops, n, "moe_unpermute_gather", B, 1, 256);
  check_kernels(ops, n, "moe_unpermute_probs", B, 1, 272);
  check_kernels(ops, n, "moe_unpermute_probs_grad", B, 1, 384);
  check_kernels(ops, n, "moe_unpermute_probs_sum", B, 1, 144);
  check_kernels(ops, n, "moe_permute_small", B, 4, 128);
  check_kernels(ops, n, "moe_permute_zeros", B, 1, 64);
  check_kernels(ops, n, "moe_permute_index_add", B, 1, 320);
  check_kernels(ops, n, "moe_sort_chunks", F, 2, 256);
  check_kernels(ops, n, "moe_sort_chunks", B, 2, 256);
  l.permute_fusion = 1;
  l.router_fusion = 1;
  n = weft_opcost_ops(&l, OC_MOE, ops, OC_MAX_OPS);
  CHECK(oc_find(ops, n, "moe_unpermute_scatter", F, 0) == NULL);
  check_kernels(ops, n, "moe_router_small", F, 7, 128);
  check_kernels(ops, n, "moe_router_small", B, 5, 128);
  check_kernels(ops, n, "moe_row_id_map", F, 2, 128);
  check_kernels(ops, n, "moe_permute", F, 1, 256);
  check_kernels(ops, n, "moe_unpermute", F, 1, 288);
  check_kernels(ops, n, "moe_unpermute", B, 1, 416);
  check_kernels(ops, n, "moe_permute", B, 1, 256);
  check_kernels(ops, n, "moe_sort_chunks", F, 2, 256);
  l = tiny(3);
  l.experts = 4, l.top_k = 2, l.ep = 2, l.tp = 2, l.sp = 1;
  n = weft_opcost_ops(&l, OC_MOE, ops, OC_MAX_OPS);
  check_kernels(ops, n, "moe_router_small", F, 27, 64);
  check_kernels(ops, n, "moe_permute", F, 1, 2 * 64 + 8 * 4);
  check_kernels(ops, n, "moe_sort_chunks", F, 2, 256);
  /* one local expert: nothing to sort */
  l.ep = 4;
  n = weft_opcost_ops(&l, OC_MOE, ops, OC_MAX_OPS);
  CHECK(oc_find(ops, n, "moe_sort_chunks", F, 0) == NULL);
  CHECK(oc_find(ops, n, "moe_fp8_padding", F, 0) == NULL);
  /* FP8 GEMMs: TE's padding of the expert rows and the unpadding of their
   * outputs, 2 kernels each way over the N etp = 4 x 2 / 2 x 2 = 8 rows of
   * h 8 at 2 bytes, read and written: 2 x 128 = 256 bytes each */
  l.fp8 = WEFT_FP8_CURRENT;
  n = weft_opcost_ops(&l, OC_MOE, ops, OC_MAX_OPS);
  check_kernels(ops, n, "moe_fp8_padding", F, 2, 256);
  check_kernels(ops, n, "moe_fp8_padding", B, 2, 256);
}

/* The flex dispatcher's copies of a token (one per destination rank): the
 * formula against a brute-force count over every k-subset of the experts
 * (E experts on ep ranks, E / ep consecutive ones each), the mean number of
 * ranks a subset touches; the all-to-all dispatcher's k. */
static double ranks_touched_mean(int E, int k, int ep) {
  double sum = 0, count = 0;
  for (unsigned mask = 0; mask < (1u << E); mask++) {
    if (__builtin_popcount(mask) != k) continue;
    int ranks = 0;
    for (int r = 0; r < ep; r++) {
      unsigned span = ((1u << (E / ep)) - 1) << (r * (E / ep));
      ranks += (mask & span) != 0;
    }
    sum += ranks, count++;
  }
  return sum / count;
}

static void moe_dispatch_copies(void) {
  static const int c[][3] = {{4, 2, 2}, {16, 4, 4}, {12, 3, 3}, {16, 8, 8}, {20, 6, 5}, {8, 8, 2}};
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    const int R = WEFT_ROUTING_RANDOM;
    double got = weft_opcost_moe_dispatch_copies(WEFT_MOE_DEEPEP, R, c[i][0], c[i][1], c[i][2]);
    CHECK_NEAR(got, ranks_touched_mean(c[i][0], c[i][1], c[i][2]), 1e-12);
    CHECK_NEAR(weft_opcost_moe_dispatch_copies(WEFT_MOE_HYBRIDEP, R, c[i][0], c[i][1], c[i][2]),
               got, 0);
    CHECK_NEAR(weft_opcost_moe_dispatch_copies(WEFT_MOE_ALLTOALL, R, c[i][0], c[i][1], c[i][2]),
               c[i][1], 0);
  }
  CHECK_NEAR(weft_opcost_moe_dispatch_copies(WEFT_MOE_DEEPEP, WEFT_ROUTING_RANDOM, 4, 2, 2),
             5.0 / 3, 1e-15); /* by hand */
  /* Qwen3-30B-A3B on EP 8 (128 experts, 16 a rank, top 8): C(112, 8) / C(128, 8) through
   * log-factorials, 112! 120! / (104! 128!): 5.3394 copies (docs/zoo.md) */
  double none = exp(lgamma(113) + lgamma(121) - lgamma(105) - lgamma(129));
  CHECK_NEAR(weft_opcost_moe_dispatch_copies(WEFT_MOE_DEEPEP, WEFT_ROUTING_RANDOM, 128, 8, 8),
             8 * (1 - none), 1e-9);
  CHECK_NEAR(8 * (1 - none), 5.3394, 1e-4);
  /* past 64 chosen experts (lgamma's path) against the product itself, factor by factor:
   * 1024 experts on 4 ranks (256 each), top 100; and a top_k past the other ranks' experts
   * (every rank reached), at once for a hostile count */
  long double prod = 1;
  for (int i = 0; i < 100; i++) prod *= (long double)(768 - i) / (1024 - i);
  CHECK_NEAR(weft_opcost_moe_dispatch_copies(WEFT_MOE_DEEPEP, WEFT_ROUTING_RANDOM, 1024, 100, 4),
             4 * (1 - (double)prod), 1e-9);
  CHECK_NEAR(weft_opcost_moe_dispatch_copies(WEFT_MOE_DEEPEP, WEFT_ROUTING_RANDOM, 1024, 769, 4),
             4.0, 0);
  CHECK_NEAR(weft_opcost_moe_dispatch_copies(WEFT_MOE_DEEPEP, WEFT_ROUTING_RANDOM, 2147483640.0,
                                             2e9, 8),
             8.0, 0);
}

/* Blocked routing (AutoModel's FakeBalancedGate: token t to experts tk ..
 * tk + k - 1 mod E): the mean count of ranks against a token-by-token
 * simulation of the gate over E x k tokens (a whole number of periods), and
 * by hand: 12 experts top 3 on 3 ranks (4 each), blocks {0,1,2} {3,4,5}
 * {6,7,8} {9,10,11} touch 1, 2, 2, 1 ranks: 1.5; Qwen3-30B-A3B on EP 8
 * (16 experts a rank, blocks of 8 aligned to 8): 1; DeepSeek-V3 on EP 64
 * (256 experts, 4 a rank, top 8): 2. The all-to-all dispatcher's k either
 * way. */
static double blocked_simulated(int E, int k, int ep) {
  double sum = 0;
  for (int t = 0; t < E * k; t++) {
    int touched[64] = {0}, n = 0;
    for (int j = 0; j < k; j++) {
      int r = ((t * k + j) % E) / (E / ep); /* torch.arange(T k).view(-1, k) % E */
      n += !touched[r];
      touched[r] = 1;
    }
    sum += n;
  }
  return sum / (E * k);
}

static void moe_dispatch_blocked(void) {
  static const int c[][3] = {{12, 3, 3}, {16, 4, 4}, {16, 8, 8}, {20, 6, 5}, {8, 8, 2},
                             {24, 5, 6}, {30, 4, 10}, {7, 3, 7}, {64, 6, 16}};
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    CHECK_NEAR(weft_opcost_moe_dispatch_copies(WEFT_MOE_DEEPEP, WEFT_ROUTING_BLOCKED, c[i][0],
                                               c[i][1], c[i][2]),
               blocked_simulated(c[i][0], c[i][1], c[i][2]), 1e-12);
    CHECK_NEAR(weft_opcost_moe_dispatch_copies(WEFT_MOE_ALLTOALL, WEFT_ROUTING_BLOCKED, c[i][0],
                                               c[i][1], c[i][2]),
               c[i][1], 0);
  }
  CHECK_NEAR(weft_opcost_moe_dispatch_copies(WEFT_MOE_DEEPEP, WEFT_ROUTING_BLOCKED, 12, 3, 3), 1.5,
             0);
  CHECK_NEAR(weft_opcost_moe_dispatch_copies(WEFT_MOE_DEEPEP, WEFT_ROUTING_BLOCKED, 128, 8, 8), 1.0,
             0);
  CHECK_NEAR(weft_opcost_moe_dispatch_copies(WEFT_MOE_HYBRIDEP, WEFT_ROUTING_BLOCKED, 256, 8, 64),
             2.0, 0);
  /* A hostile count, answered at once: E = 8 x 268435455 on 8 ranks. Blocks
   * of 3 start on multiples of 3 and 3 divides per: none crosses a rank.
   * Blocks of 4 start anywhere (gcd(4, per) = 1): the 3 starts of per - 3 ..
   * per - 1 within a rank cross into the next. */
  CHECK_NEAR(weft_opcost_moe_dispatch_copies(WEFT_MOE_DEEPEP, WEFT_ROUTING_BLOCKED, 2147483640.0, 3,
                                             8),
             1.0, 0);
  CHECK_NEAR(weft_opcost_moe_dispatch_copies(WEFT_MOE_DEEPEP, WEFT_ROUTING_BLOCKED, 2147483640.0, 4,
                                             8),
             1.0 + 3.0 / 268435455.0, 1e-15);
}

/* The flex dispatcher's kernels (docs/zoo.md, "MoE dispatchers") on
 * moe_side_ops' tiny layer (4 tokens, h 8, 4 experts top 2, EP 2, R = 16,
 * N = 8, x = 128 bytes): a token reaches 5/3 ranks on average
 * (moe_dispatch_copies), so the rank permutes y' = 4 x 5/3 x 8 x 2 = 320/3
 * bytes of received copies. DeepEP: its 18 metadata kernels forward (8 R =
 * 128 bytes each), Megatron's permute of the received copies (fused: x + y'
 * + 4R = 256 + 320/3 - 64), no chunk sort, TE's FP8 padding kept. HybridEP:
 * its preprocessing kernel, its permute and unpermute a pass each way of x +
 * y', no chunk sort, no FP8 padding (aligned in its permute). */
static void moe_flex_ops(void) {
  OcLayer l = tiny(3);
  l.experts = 4, l.top_k = 2, l.ep = 2;
  l.permute_fusion = 1;
  l.fp8 = WEFT_FP8_CURRENT;
  l.dispatcher = WEFT_MOE_DEEPEP;
  OcOp ops[OC_MAX_OPS];
  const int F = WEFT_PHASE_FWD, B = WEFT_PHASE_IG;
  const double x = 128, y = 4 * (5.0 / 3) * 8 * 2, R = 16;
  int n = weft_opcost_ops(&l, OC_MOE, ops, OC_MAX_OPS);
  check_kernels(ops, n, "moe_deepep_small", F, 18, 8 * R);
  check_kernels(ops, n, "moe_permute", F, 1, x + y + 4 * R);
  check_kernels(ops, n, "moe_unpermute", F, 1, x + y + R * 2 + 4 * R);
  CHECK(oc_find(ops, n, "moe_sort_chunks", F, 0) == NULL);
  CHECK(oc_find(ops, n, "moe_deepep_small", B, 0) == NULL);
  check_kernels(ops, n, "moe_fp8_padding", F, 2, 256);
  l.dispatcher = WEFT_MOE_HYBRIDEP;
  n = weft_opcost_ops(&l, OC_MOE, ops, OC_MAX_OPS);
  check_kernels(ops, n, "moe_hybridep_small", F, 1, 8 * R);
  check_kernels(ops, n, "moe_permute", F, 1, x + y);
  check_kernels(ops, n, "moe_unpermute", F, 1, x + y);
  check_kernels(ops, n, "moe_permute", B, 1, x + y);
  check_kernels(ops, n, "moe_unpermute", B, 1, x + y);
  CHECK(oc_find(ops, n, "moe_sort_chunks", F, 0) == NULL);
  CHECK(oc_find(ops, n, "moe_fp8_padding", F, 0) == NULL);
  CHECK(oc_find(ops, n, "moe_row_id_map", F, 0) == NULL);
}

/* Logits (4 x 8)(8 x 16): 1024 FLOPs; cross-entropy over 64 logits. */
static void logits_ops(void) {
  OcLayer l = tiny(2);
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_LOGITS, ops, OC_MAX_OPS);
  check_op(ops, n, "logits", WEFT_PHASE_FWD, 1024, (32 + 128 + 64) * 2);
  /* the loss, per logit (docs/zoo.md, "The loss"). Megatron's unfused
   * kernels: cast 2 + 4, max 4, subtract 8, exp 8, sum 4, divide 8 = 38
   * bytes, 5 FLOPs; backward: scale 8, cast back 4 + 2 = 14 bytes, 1 FLOP */
  l.ce = WEFT_CE_MEGATRON;
  n = weft_opcost_ops(&l, OC_LOGITS, ops, OC_MAX_OPS);
  check_op(ops, n, "cross_entropy", WEFT_PHASE_FWD, 5 * 64, 38 * 64);
  check_op(ops, n, "cross_entropy", WEFT_PHASE_IG, 64, 14 * 64);
  CHECK(oc_find(ops, n, "loss_cast", WEFT_PHASE_FWD, 0) == NULL);
  /* Megatron-Core's fused (compiled) ones, the default: cast and max 2 + 4,
   * subtract-exp-sum 4 + 4, divide 4 + 4 = 22; backward reads the softmax 4,
   * writes it back 4 and the bf16 gradient 2 = 10 */
  l.ce = WEFT_CE_FUSED;
  n = weft_opcost_ops(&l, OC_LOGITS, ops, OC_MAX_OPS);
  check_op(ops, n, "cross_entropy", WEFT_PHASE_FWD, 5 * 64, 22 * 64);
  check_op(ops, n, "cross_entropy", WEFT_PHASE_IG, 64, 10 * 64);
  /* Transformer Engine's: the logits read twice and the gradient written
   * over them (3 x 2), scaled in place backward (2 x 2) */
  l.ce = WEFT_CE_TE;
  n = weft_opcost_ops(&l, OC_LOGITS, ops, OC_MAX_OPS);
  check_op(ops, n, "cross_entropy", WEFT_PHASE_FWD, 5 * 64, 6 * 64);
  check_op(ops, n, "cross_entropy", WEFT_PHASE_IG, 64, 4 * 64);
  /* torch: the cast to fp32 (2 + 4, back 4 + 2), then F.cross_entropy on
   * fp32 (8 forward, 16 backward), measured as 2 x 64 two-byte units split
   * as the bytes are */
  l.ce = WEFT_CE_TORCH;
  n = weft_opcost_ops(&l, OC_LOGITS, ops, OC_MAX_OPS);
  check_op(ops, n, "loss_cast", WEFT_PHASE_FWD, 0, 6 * 64);
  check_op(ops, n, "loss_cast", WEFT_PHASE_IG, 0, 6 * 64);
  check_op(ops, n, "cross_entropy", WEFT_PHASE_FWD, 5 * 64, 8 * 64);
  check_op(ops, n, "cross_entropy", WEFT_PHASE_IG, 64, 16 * 64);
  const OcOp *ce = oc_find(ops, n, "cross_entropy", WEFT_PHASE_FWD, 0);
  CHECK(ce && ce->mem == WM_CROSS_ENTROPY);
  if (ce) CHECK_NEAR(ce->elems, 128.0 / 3, 1e-12);
  ce = oc_find(ops, n, "cross_entropy", WEFT_PHASE_IG, 0);
  if (ce) CHECK_NEAR(ce->elems, 256.0 / 3, 1e-12);
  /* torch_nocast: the same kernels on the bf16 logits, no cast (2 x 2
   * forward, 4 x 2 backward), measured as 64 two-byte units split 1 : 2 */
  l.ce = WEFT_CE_TORCH_NOCAST;
  n = weft_opcost_ops(&l, OC_LOGITS, ops, OC_MAX_OPS);
  CHECK(oc_find(ops, n, "loss_cast", WEFT_PHASE_FWD, 0) == NULL);
  check_op(ops, n, "cross_entropy", WEFT_PHASE_FWD, 5 * 64, 4 * 64);
  check_op(ops, n, "cross_entropy", WEFT_PHASE_IG, 64, 8 * 64);
  ce = oc_find(ops, n, "cross_entropy", WEFT_PHASE_FWD, 0);
  CHECK(ce && ce->mem == WM_CROSS_ENTROPY);
  if (ce) CHECK_NEAR(ce->elems, 64.0 / 3, 1e-12);
  ce = oc_find(ops, n, "cross_entropy", WEFT_PHASE_IG, 0);
  if (ce) CHECK_NEAR(ce->elems, 128.0 / 3, 1e-12);
  l.ce = WEFT_CE_TORCH;
  /* fp32 activations: nothing to cast */
  l.act_bytes = 4;
  n = weft_opcost_ops(&l, OC_LOGITS, ops, OC_MAX_OPS);
  CHECK(oc_find(ops, n, "loss_cast", WEFT_PHASE_FWD, 0) == NULL);
  check_op(ops, n, "cross_entropy", WEFT_PHASE_FWD, 5 * 64, 8 * 64);
  l.ce = WEFT_CE_MEGATRON;
  n = weft_opcost_ops(&l, OC_LOGITS, ops, OC_MAX_OPS);
  check_op(ops, n, "cross_entropy", WEFT_PHASE_FWD, 5 * 64, 32 * 64);
  check_op(ops, n, "cross_entropy", WEFT_PHASE_IG, 64, 8 * 64);
  l.ce = WEFT_CE_FUSED; /* max 4, subtract-exp-sum 8, divide 8; back 8 + 4 */
  n = weft_opcost_ops(&l, OC_LOGITS, ops, OC_MAX_OPS);
  check_op(ops, n, "cross_entropy", WEFT_PHASE_FWD, 5 * 64, 20 * 64);
  check_op(ops, n, "cross_entropy", WEFT_PHASE_IG, 64, 12 * 64);
  l.act_bytes = 2;
  n = weft_opcost_ops(&l, OC_EMB, ops, OC_MAX_OPS);
  check_op(ops, n, "embedding", WEFT_PHASE_FWD, 32, 192); /* token + position in, sum out */
  check_op(ops, n, "embedding", WEFT_PHASE_WG, 64, 384);
  /* the list is cut at max, never overrun */
  CHECK_EQ_INT(weft_opcost_ops(&l, OC_ATTN, ops, 3), 3);
}

static WeftDevice dev(double peak, double vec, double bw, int sms, int tm, int tn) {
  WeftDevice d;
  memset(&d, 0, sizeof d);
  d.peak_flops = peak;
  d.peak_vector_flops = vec;
  d.hbm_bytes_per_s = bw;
  d.sms = sms;
  d.tile_m = tm;
  d.tile_n = tn;
  d.gemm_efficiency = d.hbm_efficiency = 1.0;
  return d;
}

/* Ridge of a vector kernel: 10 TFLOP/s over 1 TB/s = 10 FLOP/byte. At 5
 * FLOP/byte the bytes decide (1e9 B: 1 ms), at 20 the FLOPs (20e9: 2 ms).
 * A square GEMM of side N on one 1 x 1 tile at 1 TFLOP/s and 1 TB/s:
 * 2N^3 FLOPs against 6N^2 bytes, ridge at N = 3. */
static void roofline_switch(void) {
  WeftDevice d = dev(1e12, 10e12, 1e12, 1, 1, 1);
  OcOp lo = {"v", WEFT_PHASE_FWD, OC_VECTOR, 0, 0, 0, 0, 5e9, 1e9, 0, 0, 0, 0, 0, 0, 0, 0};
  OcOp hi = {"v", WEFT_PHASE_FWD, OC_VECTOR, 0, 0, 0, 0, 20e9, 1e9, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK_NEAR(weft_opcost_op_ns(&d, &lo, 2), 1e6, EXACT);
  CHECK_NEAR(weft_opcost_op_ns(&d, &hi, 2), 2e6, EXACT);
  d.hbm_efficiency = 0.5; /* half the bandwidth: the memory-bound one doubles */
  CHECK_NEAR(weft_opcost_op_ns(&d, &lo, 2), 2e6, EXACT);
  CHECK_NEAR(weft_opcost_op_ns(&d, &hi, 2), 2e6, EXACT);
  d.hbm_efficiency = 1.0;
  OcOp g2 = {"g", WEFT_PHASE_FWD, OC_GEMM, 1, 2, 2, 2, 16, 24, 0, 0, 0, 0, 0, 0, 0, 0};
  OcOp g6 = {"g", WEFT_PHASE_FWD, OC_GEMM, 1, 6, 6, 6, 432, 216, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK_NEAR(weft_opcost_op_ns(&d, &g2, 2), 0.024, EXACT); /* 24 B / 1 TB/s */
  CHECK_NEAR(weft_opcost_op_ns(&d, &g6, 2), 0.432, EXACT); /* 432 / 1 TFLOP/s */
  d.gemm_efficiency = 0.5; /* the compute-bound one doubles, the other not */
  CHECK_NEAR(weft_opcost_op_ns(&d, &g2, 2), 0.032, EXACT);
  CHECK_NEAR(weft_opcost_op_ns(&d, &g6, 2), 0.864, EXACT);
}

/* A weight-gradient GEMM adding into main_grad (opcost.c wgrad_acc_ns):
 * one full wave, 256 x (108*128) x 4096 at 312 x 0.8 TFLOP/s, g = 116.15 us;
 * its epilogue reads and writes 256 x 13824 elements at 2 x 4 bytes (fp32
 * main_grad) = 28.31 MB: at 0.5 TB/s E = 56.62 us, of which a fifth of g
 * (23.23 us) hides: g + 33.39 us. A bf16 main_grad (E 28.31 us) hides whole
 * under half of g; so does everything when the layer's gradients are
 * written (FSDP), and a forward GEMM never pays it. */
static void wgrad_accumulate(void) {
  WeftDevice d = dev(312e12, 19.5e12, 0.5e12, 108, 256, 128);
  d.gemm_efficiency = 0.8;
  double k = 4096, g = 108 * 2.0 * 256 * 128 * k / (312e12 * 0.8) * 1e9;
  double e = 256.0 * 108 * 128 * 8 / 0.5e12 * 1e9;
  OcOp op = {"g", WEFT_PHASE_WG, OC_GEMM, 1, 256, 108 * 128, k, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  OcLayer l = oc_tiny(2);
  l.grad_bytes = 4;
  CHECK_NEAR(weft_opcost_layer_op_ns(&d, &l, &op), g, EXACT); /* main_grad 0: written */
  l.main_grad = 1;
  CHECK_NEAR(weft_opcost_layer_op_ns(&d, &l, &op), g + e - OC_WGRAD_HIDE_FP32 * g, 1e-9);
  CHECK(e - OC_WGRAD_HIDE_FP32 * g > 33.3e3 && e - OC_WGRAD_HIDE_FP32 * g < 33.5e3);
  l.grad_bytes = 2;
  CHECK_NEAR(weft_opcost_layer_op_ns(&d, &l, &op), g, EXACT);
  l.grad_bytes = 4;
  op.phase = WEFT_PHASE_FWD;
  CHECK_NEAR(weft_opcost_layer_op_ns(&d, &l, &op), g, EXACT);
}

/* 108 SMs, 256 x 128 tiles, 312 TFLOP/s x 0.8, unlimited bandwidth: a
 * 256 x (108*128) x 4096 GEMM is one full wave of 108 tiles; one more tile
 * (109, or a single column more: tile quantization) is a second wave and
 * takes twice as long; 216 tiles still two waves. */
static void wave_quantization(void) {
  WeftDevice d = dev(312e12, 19.5e12, 1e30, 108, 256, 128);
  d.gemm_efficiency = 0.8;
  double k = 4096, wave_ns = 108 * 2.0 * 256 * 128 * k / (312e12 * 0.8) * 1e9;
  OcOp g = {"g", WEFT_PHASE_FWD, OC_GEMM, 1, 256, 108 * 128, k, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK_NEAR(weft_opcost_op_ns(&d, &g, 2), wave_ns, EXACT);
  g.n = 109 * 128;
  CHECK_NEAR(weft_opcost_op_ns(&d, &g, 2), 2 * wave_ns, EXACT);
  g.n = 108 * 128 + 1;
  CHECK_NEAR(weft_opcost_op_ns(&d, &g, 2), 2 * wave_ns, EXACT);
  g.n = 216 * 128;
  CHECK_NEAR(weft_opcost_op_ns(&d, &g, 2), 2 * wave_ns, EXACT);
  g.n = 128; /* one tile: a whole wave's time, 1/108 of peak */
  CHECK_NEAR(weft_opcost_op_ns(&d, &g, 2), wave_ns, EXACT);
  g.n = 108 * 128;
  g.batch = 2; /* a batch of two: 216 tiles, two waves */
  CHECK_NEAR(weft_opcost_op_ns(&d, &g, 2), 2 * wave_ns, EXACT);
  /* FP8 activations use the FP8 rate when the device has one */
  d.peak_fp8_flops = 624e12;
  g.batch = 1;
  CHECK_NEAR(weft_opcost_op_ns(&d, &g, 1), wave_ns / 2, EXACT);
  CHECK_NEAR(weft_opcost_op_ns(&d, &g, 2), wave_ns, EXACT);
}

/* A bigger GEMM is never faster: m, n or k grown by any step, on a
 * realistic device (A100-like, HBM-bound shapes included). */
static void monotone(void) {
  WeftDevice d = dev(312e12, 19.5e12, 2039e9, 108, 256, 128);
  d.gemm_efficiency = 0.8;
  d.hbm_efficiency = 0.9;
  static const double dims[] = {1, 7, 64, 100, 128, 255, 256, 257, 1000, 2048, 4097, 12288, 50000};
  const int nd = (int)(sizeof dims / sizeof dims[0]);
  int bad = 0;
  for (int a = 0; a < nd; a++)
    for (int b = 0; b < nd; b++)
      for (int c = 0; c < nd; c++) {
        double m = dims[a], n = dims[b], k = dims[c];
        OcOp g = {"g", 0, OC_GEMM, 1, m, n, k, 2 * m * n * k, (m * k + k * n + m * n) * 2, 0, 0, 0, 0, 0, 0, 0, 0};
        double t = weft_opcost_op_ns(&d, &g, 2);
        for (int axis = 0; axis < 3; axis++) {
          OcOp h = g;
          double *x = axis == 0 ? &h.m : axis == 1 ? &h.n : &h.k;
          *x += 1 + *x / 3;
          h.flops = 2 * h.m * h.n * h.k;
          h.bytes = (h.m * h.k + h.k * h.n + h.m * h.n) * 2;
          bad += weft_opcost_op_ns(&d, &h, 2) < t;
        }
      }
  CHECK_EQ_INT(bad, 0);
}

/* The optimizer: the gradient buffer's memset (2 bytes for each of the
 * rank's 3e9 gradients: ZeRO-1 keeps them all), the gradient norm's 2 bytes
 * per parameter of the 1e9 shard (the gradient read), then Adam's 28 (12 +
 * 12 + 2 + 2), at 1 TB/s x 0.5. */
static void optimizer(void) {
  WeftDevice d = dev(1e12, 1e12, 1e12, 1, 1, 1);
  d.hbm_efficiency = 0.5;
  WeftParallel p;
  weft_parallel_default(&p);
  CHECK_NEAR(weft_opcost_optimizer_ns(&d, &p, 1e9, 3e9), (6e9 + 2e9 + 28e9) / 0.5e12 * 1e9, EXACT);
}

/* The generator: efficiency 0 takes the per-operator times (forward = the
 * attention block's forward ops, recomputation adds it to IG); an explicit
 * efficiency, or a device without the data, keeps the flat model. */
static void generator_uses_it(void) {
  WeftModel m;
  memset(&m, 0, sizeof m);
  snprintf(m.name, sizeof m.name, "t");
  m.arch = WEFT_ARCH_TRANSFORMER;
  m.global_batch = 8;
  m.seq_len = 1024;
  m.layers = 2;
  m.hidden = 1024;
  m.heads = m.kv_heads = 16;
  m.ffn_hidden = 4096;
  m.ffn_matrices = 2;
  m.vocab = 32000;
  WeftDevice d = dev(312e12, 19.5e12, 2039e9, 108, 256, 128);
  d.gemm_efficiency = 0.8;
  d.hbm_efficiency = 0.9;
  d.hbm_bytes = 80e9;
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = 1;
  net.npus[0] = 2;
  net.topology[0] = WEFT_RING;
  snprintf(net.cost_dim[0], sizeof net.cost_dim[0], "c");
  WeftParallel p;
  weft_parallel_default(&p);
  p.merged_backward = 1; /* whole layers, as derived by hand */
  p.dp = 2; /* 8 / (2 x 1) = 4 micro-batches */
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError e;
  CHECK(wl != NULL);
  if (!wl) return;
  CHECK_EQ_INT(weft_generate(&m, &d, &p, &net, 0, wl, &comm, &info, &e), WEFT_OK);
  OcLayer l;
  weft_opcost_layer(&m, &p, &l);
  double ns[WEFT_NPHASES];
  weft_opcost_block(&d, &l, OC_ATTN, ns);
  int attn = -1;
  for (int i = 0; i < wl->nlayers; i++)
    if (!strcmp(wl->layers[i].name, "L1.attn")) attn = i;
  CHECK(attn >= 0);
  if (attn < 0) {
    weft_workload_free(wl);
    return;
  }
  CHECK_NEAR(wl->layers[attn].phase[WEFT_PHASE_FWD].compute_ns, 4 * ns[WEFT_PHASE_FWD], NS_ROUND);
  CHECK_NEAR(wl->layers[attn].phase[WEFT_PHASE_IG].compute_ns, 4 * ns[WEFT_PHASE_IG], NS_ROUND);
  CHECK(wl->layers[attn].phase[WEFT_PHASE_WG].compute_ns > 4 * ns[WEFT_PHASE_WG]); /* + Adam */
  p.recompute = 1;
  CHECK_EQ_INT(weft_generate(&m, &d, &p, &net, 0, wl, &comm, &info, &e), WEFT_OK);
  CHECK_NEAR(wl->layers[attn].phase[WEFT_PHASE_IG].compute_ns,
             4 * ns[WEFT_PHASE_IG] + 4 * ns[WEFT_PHASE_FWD], NS_ROUND);
  p.recompute = 0;
  /* flat: 4 micro-batches x the forward FLOPs at 312 TFLOP/s x eff */
  double f = 2.0 * 1024 * 1024 * 3072 + 4.0 * 1024 * 1024 * 1024 + 2.0 * 1024 * 1024 * 1024;
  double flat_ns = 4 * f / (312e12 * 0.5) * 1e9;
  p.efficiency = 0.5;
  CHECK_EQ_INT(weft_generate(&m, &d, &p, &net, 0, wl, &comm, &info, &e), WEFT_OK);
  CHECK_NEAR(wl->layers[attn].phase[WEFT_PHASE_FWD].compute_ns, flat_ns, NS_ROUND);
  CHECK_NEAR(wl->layers[attn].phase[WEFT_PHASE_WG].compute_ns, flat_ns, NS_ROUND);
  p.efficiency = 0.0;
  d.sms = 0; /* no per-operator data: auto means 0.5 per FLOP */
  CHECK_EQ_INT(weft_generate(&m, &d, &p, &net, 0, wl, &comm, &info, &e), WEFT_OK);
  CHECK_NEAR(wl->layers[attn].phase[WEFT_PHASE_FWD].compute_ns, flat_ns, NS_ROUND);
  weft_workload_free(wl);
}

/* The presets carry the model's figures (devices.yml); the keys come all
 * together, tiles as two sides, efficiencies in (0, 1]. */
static void presets(void) {
  WeftDevice d;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "a100", &d, &e), WEFT_OK);
  CHECK(weft_opcost_ready(&d));
  CHECK_EQ_INT(d.sms, 108);
  CHECK(d.tile_m == 256 && d.tile_n == 128);
  CHECK_NEAR(d.peak_tf32_flops, 156e12, EXACT);
  CHECK(d.peak_fp8_flops == 0); /* A100 has no FP8 */
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "h100", &d, &e), WEFT_OK);
  CHECK_EQ_INT(d.sms, 132);
  CHECK_NEAR(d.peak_fp8_flops, 1979e12, EXACT);
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "mi300x", &d, &e), WEFT_OK);
  CHECK_EQ_INT(d.sms, 304);
  CHECK_NEAR(d.hbm_bytes_per_s, 5300e9, EXACT);
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "h200", &d, &e), WEFT_OK);
  CHECK_NEAR(d.hbm_bytes_per_s, 4800e9, EXACT);
  CHECK_EQ_INT(weft_zoo_device("tests/fixtures/zoo/opdev_partial", "half", &d, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "missing key 'tile'") != NULL);
  CHECK_EQ_INT(weft_zoo_device("tests/fixtures/zoo/opdev_tile", "onetile", &d, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "tile must be [rows, cols]") != NULL && e.line == 6);
  CHECK_EQ_INT(weft_zoo_device("tests/fixtures/zoo/opdev_eff", "fast", &d, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "gemm_efficiency") != NULL && e.line == 8);
}

/* The roofline written out as docs/zoo.md states it (no GEMM shape model),
 * divisions and all: a GEMM's time to the last bit, tile sides powers of two
 * or not, whole multiples of the tile included (where a rounded quotient
 * would show in the ceil); and a block's phases are its operators' times
 * summed in order (the block works the device's rates out once). */
static double direct_ns(const WeftDevice *d, const OcOp *op) {
  double mem = op->bytes / (d->hbm_bytes_per_s * d->hbm_efficiency) * 1e9;
  double tiles = op->batch * ceil(op->m / d->tile_m) * ceil(op->n / d->tile_n);
  double wave = (double)d->sms * 2.0 * d->tile_m * d->tile_n * op->k;
  double cmp = ceil(tiles / d->sms) * wave / (d->peak_flops * d->gemm_efficiency) * 1e9;
  return cmp > mem ? cmp : mem;
}

static void written_out(void) {
  /* 525 * (1/75) rounds to 7 + 2^-50: a ceil of it would be 8 */
  static const int sides[][2] = {{256, 128}, {100, 96}, {75, 91}, {1, 1}, {64, 3}};
  unsigned long long x = 11;
  int bad = 0;
  for (int t = 0; t < 5; t++) {
    WeftDevice d = dev(312e12, 19.5e12, 2039e9, 108, sides[t][0], sides[t][1]);
    d.gemm_efficiency = 0.8;
    d.hbm_efficiency = 0.9;
    for (int i = 0; i < 2000; i++) {
      double v[4];
      for (int j = 0; j < 4; j++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        v[j] = 1 + (double)(x >> 44) / 7.0; /* fractional sides too (s / cp) */
      }
      if (i % 2) { /* whole multiples of the tile: where a rounded quotient would show */
        v[0] = sides[t][0] * floor(v[0]);
        v[1] = sides[t][1] * floor(v[1]);
      }
      OcOp g = {"g", 0, OC_GEMM, 1 + (i % 3), v[0], v[1], v[2], 0, v[3] * 1e3, 0, 0, 0, 0, 0, 0, 0, 0};
      bad += weft_opcost_op_ns(&d, &g, 2) != direct_ns(&d, &g);
    }
  }
  CHECK_EQ_INT(bad, 0);
  WeftDevice d = dev(312e12, 19.5e12, 2039e9, 108, 256, 128);
  d.gemm_efficiency = 0.8;
  d.hbm_efficiency = 0.9;
  d.attention_efficiency = 0.6;
  OcLayer l = tiny(3);
  l.b = 2, l.s = 4096, l.h = 12288, l.heads = l.kv_heads = 96, l.dqk = l.dv = 128, l.tp = 8;
  l.kv_len = 4096, l.ffn = l.moe_ffn = 49152, l.vocab = 51200, l.experts = 8, l.top_k = 2;
  for (int flash = 0; flash < 4; flash++)
    for (int b = 0; b < OC_NBLOCKS; b++) {
      OcOp ops[OC_MAX_OPS];
      double ns[WEFT_NPHASES], sum[WEFT_NPHASES] = {0, 0, 0};
      l.flash = flash & 1, l.graphs = flash >> 1;
      int n = weft_opcost_ops(&l, (OcBlock)b, ops, OC_MAX_OPS);
      for (int i = 0; i < n; i++) /* each kernel with its launch, graphs or eager; an op
                                   * standing for count kernels, count of them */
        sum[ops[i].phase] += (ops[i].count > 0 ? ops[i].count : 1) *
                             weft_opcost_launch_ns(weft_opcost_op_ns(&d, &ops[i], l.act_bytes), l.graphs);
      weft_opcost_block(&d, &l, (OcBlock)b, ns);
      for (int ph = 0; ph < WEFT_NPHASES; ph++) CHECK(ns[ph] == sum[ph]);
    }
}

const TestCase suite_opcost[] = {{"presets", presets},
{"attention_ops", attention_ops},
                                 {"mlp_ops", mlp_ops},
                                 {"moe_side_ops", moe_side_ops},
                                 {"moe_dispatch_copies", moe_dispatch_copies},
                                 {"moe_dispatch_blocked", moe_dispatch_blocked},
                                 {"moe_flex_ops", moe_flex_ops},
                                 {"logits_ops", logits_ops},
                                 {"roofline_switch", roofline_switch},
                                 {"wave_quantization", wave_quantization},
                                 {"wgrad_accumulate", wgrad_accumulate},
                                 {"monotone", monotone},
                                 {"optimizer", optimizer},
                                 {"written_out", written_out},
                                 {"generator_uses_it", generator_uses_it},
                                 {0}};
