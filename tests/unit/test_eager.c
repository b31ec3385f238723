/* test_eager.c — RMSNorm and RoPE as eager PyTorch runs torchtitan's
 * modules (norm_fusion off, rope_fusion off; opcost.c eager_rmsnorm,
 * opcost_mg.c eager_rope): each kernel's bytes summed by hand, LayerNorm
 * left as one kernel, and the op list's headroom. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/opcost.h"
#include "../test.h"

#define EXACT 1e-9

/* b 1, s 256 tokens, h 1024, 2 heads of 64 (a toy: h is not heads x 64),
 * 1 KV head, SwiGLU, TP 1, bf16, flash. */
static OcLayer layer(void) {
  OcLayer l;
  memset(&l, 0, sizeof l);
  l.b = 1, l.s = 256, l.kv_len = 256, l.h = 1024, l.heads = 2, l.kv_heads = 1;
  l.dqk = l.dv = 64;
  l.ffn = l.moe_ffn = 4096, l.vocab = 16, l.ffn_matrices = 3;
  l.tp = l.ep = l.cp = 1;
  l.flash = l.causal = 1, l.rotary = 1;
  l.act_bytes = l.param_bytes = 2;
  return l;
}

/* Kernels and bytes of the attention block's ops whose name starts with
 * prefix, in phase. */
static void sum(const OcLayer *l, const char *prefix, int phase, double *k, double *bytes) {
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(l, OC_ATTN, ops, OC_MAX_OPS);
  *k = *bytes = 0;
  for (int i = 0; i < n; i++)
    if (!strncmp(ops[i].name, prefix, strlen(prefix)) && ops[i].phase == phase) {
      double c = ops[i].count > 0 ? ops[i].count : 1;
      *k += c;
      *bytes += c * ops[i].bytes;
    }
}

/* The attention's RMSNorm over e = 256 x 1024 = 262,144 elements, T = 256
 * rows, bf16 in and out, fp32 inside (4 bytes).
 * Forward, 8 kernels: x.float() reads 2 and writes 4 bytes an element (6e),
 * pow(2) 4 + 4 (8e), mean reads 4e and writes T floats (4e + 4T), + eps
 * and rsqrt on T (8T each), x times r reads x and r, writes (8e + 4T),
 * type_as 4 + 2 (6e), times the weight 2 + 2 (4e): 36e + 24T = 9,443,328.
 * Backward, 14 kernels: the gradient times the weight (4e), the weight's
 * gradient: g times y (6e) and its sum over the rows (2e); type_as's
 * backward to fp32 (6e); g r (8e + 4T); r's gradient: g x (12e) and its
 * row sum (4e); rsqrt's on T (12T); mean's expanded division (4e + 4T);
 * pow_backward: x.pow(1) (8e), times 2 (8e), times the gradient (12e); the
 * two gradients of x added (12e); back to bf16 (6e): 92e + 20T = 24,122,368. */
static void rmsnorm(void) {
  OcLayer l = layer();
  double k, by;
  sum(&l, "rmsnorm_", WEFT_PHASE_FWD, &k, &by);
  CHECK_NEAR(k, 0, EXACT); /* fused by default */
  l.norm_eager = 1;
  sum(&l, "rmsnorm_", WEFT_PHASE_FWD, &k, &by);
  CHECK_NEAR(k, 8, EXACT);
  CHECK_NEAR(by, 36.0 * 262144 + 24 * 256, EXACT);
  sum(&l, "rmsnorm_", WEFT_PHASE_IG, &k, &by);
  CHECK_NEAR(k, 14, EXACT);
  CHECK_NEAR(by, 92.0 * 262144 + 20 * 256, EXACT);
  sum(&l, "attn_norm", WEFT_PHASE_FWD, &k, &by);
  CHECK_NEAR(k, 0, EXACT); /* the fused kernel is gone */
  /* LayerNorm: one ATen kernel either way */
  OcLayer ln = layer(), le = layer();
  ln.layernorm = le.layernorm = 1;
  le.norm_eager = 1;
  OcOp a[OC_MAX_OPS], b[OC_MAX_OPS];
  int na = weft_opcost_ops(&ln, OC_ATTN, a, OC_MAX_OPS), nb = weft_opcost_ops(&le, OC_ATTN, b,
                                                                             OC_MAX_OPS);
  CHECK_EQ_INT(na, nb);
  for (int i = 0; i < na && i < nb; i++) {
    CHECK(!strcmp(a[i].name, b[i].name));
    CHECK_NEAR(a[i].bytes, b[i].bytes, EXACT);
  }
}

/* RoPE on the query (256 x 2 x 64 = 32,768 elements) and the key (one
 * head: 16,384), each way: to fp32 (6e), the complex product reading and
 * writing fp32 (8e) and the complex64 angles (256 x 32 x 8 = 65,536
 * bytes), back to bf16 (6e): 20e + 65,536 a tensor, 3 kernels. Forward and
 * backward alike: 20 x 49,152 + 2 x 65,536 = 1,114,112 in 6 kernels; the
 * fused kernels (rope_q, rope_k) gone. */
static void rope(void) {
  OcLayer l = layer();
  l.rope_eager = 1;
  for (int ph = WEFT_PHASE_FWD; ph <= WEFT_PHASE_IG; ph++) {
    double kq, bq, kk, bk;
    sum(&l, "rope_q_eager", ph, &kq, &bq);
    sum(&l, "rope_k_eager", ph, &kk, &bk);
    CHECK_NEAR(kq + kk, 6, EXACT);
    CHECK_NEAR(bq + bk, 1114112, EXACT);
    CHECK_NEAR(bq, 20.0 * 32768 + 65536, EXACT);
  }
  double k, by;
  sum(&l, "rope_q", WEFT_PHASE_FWD, &k, &by);
  CHECK_NEAR(k, 3, EXACT); /* only the eager ones match the prefix */
  l.rope_eager = 0;
  sum(&l, "rope_q", WEFT_PHASE_FWD, &k, &by);
  CHECK_NEAR(k, 1, EXACT);
}

/* The longest attention block (PyTorch's CP ring, eager norm and RoPE, FP8
 * delayed casts, GQA) fits OC_MAX_OPS: its list, counted in a larger
 * buffer, is no longer than the bound callers allocate. */
static void headroom(void) {
  OcLayer l = layer();
  l.norm_eager = l.rope_eager = l.act_eager = 1;
  l.cp = 8, l.kv_len = 2048, l.cp_ring = l.cp_torch = 1;
  l.fp8 = WEFT_FP8_DELAYED;
  static OcOp big[1024];
  for (int blk = OC_ATTN; blk <= OC_MLP; blk++) {
    int n = weft_opcost_ops(&l, (OcBlock)blk, big, 1024);
    CHECK(n > 0 && n <= OC_MAX_OPS);
  }
}

const TestCase suite_eager[] = {{"eager_rmsnorm", rmsnorm},
                                {"eager_rope", rope},
                                {"eager_headroom", headroom},
                                {0}};
