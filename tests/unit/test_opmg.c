/* test_opmg.c — the kernels Megatron-Core launches around Transformer
 * Engine's layers (opcost_mg.c, docs/zoo.md "Around the linear layers"):
 * rotary embedding, the GQA query copy, the QKV gradients' concatenation,
 * the gradients added into main_grad, the embedding's dense gradient, the
 * weight-gradient GEMM's fp32 accumulation and the gradient buffer's
 * memset, each one's FLOPs and bytes by hand. */
#include <stdio.h>
#include <string.h>

#include "model/measured.h"
#include "model/opcost.h"
#include "../test.h"
#include "oc_fixture.h"

#define EXACT 1e-12

/* b = 1, s = 4, h = 8, 2 query heads of 4, 1 key/value head (GQA), FFN 32
 * (SwiGLU), vocab 16, TP 1; bf16 activations and parameters, fp32 main_grad. */
static OcLayer tiny(void) {
  OcLayer l = oc_tiny(3);
  l.kv_heads = 1;
  l.param_bytes = 2, l.grad_bytes = 4, l.rotary = 1;
  return l;
}

static const OcOp *find(const OcOp *ops, int n, const char *name, int phase) {
  return oc_find(ops, n, name, phase, 0);
}

static void check_op(const OcOp *ops, int n, const char *name, int phase, double flops,
                     double bytes) {
  const OcOp *o = oc_need(ops, n, name, phase);
  if (!o) return;
  CHECK_NEAR(o->flops, flops, EXACT);
  CHECK_NEAR(o->bytes, bytes, EXACT);
  CHECK(o->kind == OC_VECTOR && !o->once);
}

static int count(const OcOp *ops, int n, const char *prefix) {
  int c = 0;
  for (int i = 0; i < n; i++) c += !strncmp(ops[i].name, prefix, strlen(prefix));
  return c;
}

/* RoPE on Q: 4 tokens x 2 heads x 4 = 32 elements, 3 FLOPs each (96), read
 * and written at 2 bytes (128) + the fp32 angles 4 x 4 x 4 (64) = 192; on K
 * 16 elements: 48 FLOPs, 64 + 64 = 128 bytes; backward the same. The GQA
 * query's copy 32 x 2 x 2 = 128 bytes; the gradients' concatenation reads
 * and writes dQ, dK, dV: 4 x (8 + 4 + 4) x 2 x 2 = 256 bytes. */
static void rope_and_copies(void) {
  OcLayer l = tiny();
  OcOp ops[OC_MG_MAX];
  int n = weft_opcost_qkv_side_ops(&l, ops);
  CHECK_EQ_INT(n, 6);
  check_op(ops, n, "rope_q", WEFT_PHASE_FWD, 96, 192);
  check_op(ops, n, "rope_k", WEFT_PHASE_FWD, 48, 128);
  check_op(ops, n, "rope_q", WEFT_PHASE_IG, 96, 192);
  check_op(ops, n, "rope_k", WEFT_PHASE_IG, 48, 128);
  check_op(ops, n, "query_copy", WEFT_PHASE_FWD, 0, 128);
  check_op(ops, n, "qkv_grad_cat", WEFT_PHASE_IG, 0, 256);
  /* MHA: the query reshape is a view; RoPE's outputs still need the cat:
   * 4 x (8 + 8 + 8) x 4 = 384 bytes */
  l.kv_heads = 2;
  n = weft_opcost_qkv_side_ops(&l, ops);
  CHECK_EQ_INT(n, 5);
  CHECK(find(ops, n, "query_copy", WEFT_PHASE_FWD) == NULL);
  check_op(ops, n, "qkv_grad_cat", WEFT_PHASE_IG, 0, 384);
  check_op(ops, n, "rope_k", WEFT_PHASE_FWD, 96, 192);
  /* MHA with learned positions (GPT): Q, K, V stay views of one buffer */
  l.rotary = 0;
  CHECK_EQ_INT(weft_opcost_qkv_side_ops(&l, ops), 0);
  /* TP 2 halves the heads: Q 16 elements (64 + 64 bytes), no copy or cat
   * for 1 query head per group */
  l = tiny();
  l.tp = 2;
  n = weft_opcost_qkv_side_ops(&l, ops);
  check_op(ops, n, "rope_q", WEFT_PHASE_FWD, 48, 128);
  check_op(ops, n, "query_copy", WEFT_PHASE_FWD, 0, 64);
  /* MLA: the rope dims only (2 of them), k_pe one head: Q 4 x 2 x 2 = 16
   * elements, 64 + 32 angle bytes; K 8, 32 + 32; no copy, no cat */
  l = tiny();
  l.kv_heads = 2, l.kv_lora = 4, l.rope = 2;
  n = weft_opcost_qkv_side_ops(&l, ops);
  CHECK_EQ_INT(n, 4);
  check_op(ops, n, "rope_q", WEFT_PHASE_FWD, 48, 96);
  check_op(ops, n, "rope_k", WEFT_PHASE_IG, 24, 64);
}

/* main_grad.add_ each micro-batch: e elements, e FLOPs, e x (2 + 4 + 4)
 * bytes. SwiGLU: each norm's gain (8: 80 bytes). GeLU: gain and bias, the
 * QKV bias (2 x 4 + 1 x 8 = 16: 160 bytes) and the projection's (80); the
 * MLP's fc1 bias (32: 320) and fc2's (80). MoE: the router's 4 x 8 weight
 * (320). Embedding: the dense 16 x 8 gradient zeroed (256 bytes) and added
 * (1280); GeLU also the 4 x 8 position table (64, 320). */
static void grad_accum(void) {
  OcLayer l = tiny();
  OcOp ops[OC_MG_MAX];
  int n = weft_opcost_grad_accum_ops(&l, OC_ATTN, ops);
  CHECK_EQ_INT(n, 1);
  check_op(ops, n, "grad_accum_norm", WEFT_PHASE_WG, 8, 80);
  CHECK_EQ_INT(weft_opcost_grad_accum_ops(&l, OC_MLP, ops), 1);
  CHECK_EQ_INT(weft_opcost_grad_accum_ops(&l, OC_LOGITS, ops), 1);
  l.experts = 4;
  n = weft_opcost_grad_accum_ops(&l, OC_MOE, ops);
  CHECK_EQ_INT(n, 2);
  check_op(ops, n, "grad_accum_router", WEFT_PHASE_WG, 32, 320);
  n = weft_opcost_grad_accum_ops(&l, OC_EMB, ops);
  CHECK_EQ_INT(n, 2);
  check_op(ops, n, "embedding_grad_zero", WEFT_PHASE_WG, 0, 256);
  check_op(ops, n, "grad_accum_embedding", WEFT_PHASE_WG, 128, 1280);
  l.ffn_matrices = 2; /* the GeLU family: LayerNorm's bias and the linear biases */
  l.bias = l.layernorm = l.learned_pos = 1;
  n = weft_opcost_grad_accum_ops(&l, OC_ATTN, ops);
  CHECK_EQ_INT(n, 4);
  check_op(ops, n, "grad_accum_norm_bias", WEFT_PHASE_WG, 8, 80);
  check_op(ops, n, "grad_accum_qkv_bias", WEFT_PHASE_WG, 16, 160);
  check_op(ops, n, "grad_accum_proj_bias", WEFT_PHASE_WG, 8, 80);
  n = weft_opcost_grad_accum_ops(&l, OC_MLP, ops);
  CHECK_EQ_INT(n, 4);
  check_op(ops, n, "grad_accum_fc1_bias", WEFT_PHASE_WG, 32, 320);
  check_op(ops, n, "grad_accum_fc2_bias", WEFT_PHASE_WG, 8, 80);
  n = weft_opcost_grad_accum_ops(&l, OC_EMB, ops);
  CHECK_EQ_INT(n, 4);
  CHECK_NEAR(ops[2].bytes, 64, EXACT);
  CHECK_NEAR(ops[3].bytes, 320, EXACT);
  /* TP 2: the vocabulary's half (8 x 8 = 64 elements: 128 and 640 bytes) */
  l.tp = 2;
  n = weft_opcost_grad_accum_ops(&l, OC_EMB, ops);
  check_op(ops, n, "embedding_grad_zero", WEFT_PHASE_WG, 0, 128);
  check_op(ops, n, "grad_accum_embedding", WEFT_PHASE_WG, 64, 640);
  /* bf16 main_grad: 2 + 2 + 2 bytes an element */
  l = tiny();
  l.grad_bytes = 2;
  n = weft_opcost_grad_accum_ops(&l, OC_ATTN, ops);
  check_op(ops, n, "grad_accum_norm", WEFT_PHASE_WG, 8, 48);
}

/* The blocks list them: the attention block gains the 6 QKV kernels and the
 * norm's accumulation; a weight gradient's C is main_grad, read and
 * written at 4 bytes: the projection (4 x 8)(8 x 8) weight gradient reads
 * X and dY (32 + 32 elements at 2 bytes) and accumulates 64 x 8 = 512 bytes;
 * attention's score and context gradients (no weight) write 2 bytes. The
 * layer from a model sets rotary for the SwiGLU family only. */
static void in_blocks(void) {
  OcLayer l = tiny();
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  CHECK_EQ_INT(count(ops, n, "rope_"), 4);
  CHECK_EQ_INT(count(ops, n, "query_copy"), 1);
  CHECK_EQ_INT(count(ops, n, "qkv_grad_cat"), 1);
  CHECK_EQ_INT(count(ops, n, "grad_accum_"), 1);
  const OcOp *p = find(ops, n, "proj", WEFT_PHASE_WG);
  CHECK(p != NULL);
  if (p) CHECK_NEAR(p->bytes, 64 * 2 + 512, EXACT);
  const OcOp *c = find(ops, n, "context", WEFT_PHASE_IG);
  CHECK(c != NULL);
  n = weft_opcost_ops(&l, OC_EMB, ops, OC_MAX_OPS);
  CHECK_EQ_INT(count(ops, n, "embedding_grad_zero"), 1);
  WeftModel m;
  memset(&m, 0, sizeof m);
  m.seq_len = 4, m.hidden = 8, m.heads = 2, m.layers = 2, m.vocab = 16, m.ffn_hidden = 32;
  m.ffn_matrices = 3;
  WeftParallel par;
  weft_parallel_default(&par);
  par.grad_bytes = 4;
  weft_opcost_layer(&m, &par, &l);
  CHECK(l.rotary);
  CHECK_NEAR(l.grad_bytes, 4, EXACT);
  m.ffn_matrices = 2;
  weft_opcost_layer(&m, &par, &l);
  CHECK(!l.rotary);
}

/* On the H100's measured tables: a weight-gradient GEMM of few tokens (64)
 * and a large weight (8192 x 8192) accumulating into fp32 main_grad moves
 * 8192^2 x 8 bytes, which bound its time from below (bytes / achieved HBM
 * rate); the same GEMM in the forward keeps its measured time, under that. */
static void wgrad_floor(void) {
  WeftDevice d;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "h100", &d, &e), WEFT_OK);
  double k = 8192, bytes = 64 * k * 2 * 2 + k * k * 8;
  OcOp wg = {"w", WEFT_PHASE_WG, OC_GEMM, 1, k, k, 64, 2 * 64 * k * k, bytes, 0, 0, 0, 0, 0, 0, 0, 0};
  double floor_ns = bytes / (d.hbm_bytes_per_s * d.hbm_efficiency) * 1e9;
  CHECK_NEAR(weft_opcost_op_ns(&d, &wg, 2), floor_ns, 1e-9);
  OcOp fwd = wg;
  fwd.phase = WEFT_PHASE_FWD;
  CHECK(weft_opcost_op_ns(&d, &fwd, 2) < floor_ns);
}

/* The activations' backward (Megatron-Core's fused kernels) over e = 4 x
 * 32 = 128 elements at 2 bytes: swiglu_back reads g (128) and y (256) and
 * writes the cat (256): 640 elements, 1280 bytes (forward 3 x 128 x 2 =
 * 768); bias_gelu_back reads g and y and writes one: 768 bytes (forward
 * 512). FLOPs twice the forward's (SwiGLU 5, GeLU 8 an element). */
static void activations(void) {
  OcLayer l = tiny();
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  check_op(ops, n, "swiglu", WEFT_PHASE_FWD, 640, 768);
  check_op(ops, n, "swiglu", WEFT_PHASE_IG, 1280, 1280);
  l.ffn_matrices = 2;
  l.bias = 1;
  n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  check_op(ops, n, "bias_gelu", WEFT_PHASE_FWD, 1024, 512);
  check_op(ops, n, "bias_gelu", WEFT_PHASE_IG, 2048, 768);
  /* Nemotron-4's squared ReLU (no biases): one compiled kernel each way,
   * relu and square 2 FLOPs an element, reading 1 and writing 1 of the 128
   * (512 bytes); back reads g and x, writes 1 (768) */
  l.bias = 0;
  l.relu2 = 1;
  n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  CHECK(oc_find(ops, n, "bias_gelu", WEFT_PHASE_FWD, 0) == NULL);
  check_op(ops, n, "squared_relu", WEFT_PHASE_FWD, 256, 512);
  check_op(ops, n, "squared_relu", WEFT_PHASE_IG, 256, 768);
  /* eager (activation_fusion off), one op a kernel, tensors of the 128 by
   * hand from ATen: relu 2, pow 2; back pow_backward's copy 2, x2 2, x grad
   * 3, threshold_backward 3 (x 256 bytes) */
  l.act_eager = 1;
  n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  CHECK(oc_find(ops, n, "squared_relu", WEFT_PHASE_FWD, 0) == NULL);
  check_op(ops, n, "relu", WEFT_PHASE_FWD, 128, 512);
  check_op(ops, n, "square", WEFT_PHASE_FWD, 128, 512);
  check_op(ops, n, "square_back_copy", WEFT_PHASE_IG, 0, 512);
  check_op(ops, n, "square_back_scale", WEFT_PHASE_IG, 128, 512);
  check_op(ops, n, "square_back_mul", WEFT_PHASE_IG, 128, 768);
  check_op(ops, n, "relu_back", WEFT_PHASE_IG, 128, 768);
  /* eager GeLU with biases: the bias added before F.gelu (2 tensors), its
   * gradient summed after gelu_backward (1) */
  l.relu2 = 0;
  l.bias = 1;
  n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  check_op(ops, n, "bias_add", WEFT_PHASE_FWD, 128, 512);
  check_op(ops, n, "gelu", WEFT_PHASE_FWD, 1024, 512);
  check_op(ops, n, "gelu", WEFT_PHASE_IG, 2048, 768);
  check_op(ops, n, "bias_grad", WEFT_PHASE_IG, 128, 256);
  /* eager SwiGLU: silu 2 and the product 3 (the measured eager row, 5
   * tensors), back the product's two gradients 3 + 3, silu_backward 3, the
   * chunks' concatenation 4 = 13 */
  l = tiny();
  l.act_eager = 1;
  n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  check_op(ops, n, "swiglu", WEFT_PHASE_FWD, 640, 5 * 256);
  CHECK(oc_need(ops, n, "swiglu", WEFT_PHASE_FWD)->mem == WM_SWIGLU);
  CHECK(oc_find(ops, n, "swiglu", WEFT_PHASE_IG, 0) == NULL);
  double back = 0;
  for (int i = 0; i < n; i++)
    if (ops[i].phase == WEFT_PHASE_IG && ops[i].kind == OC_VECTOR && strstr(ops[i].name, "_back"))
      back += ops[i].bytes;
  CHECK_NEAR(back, 13 * 256, 0);
}

/* The MoE router's weight (4 x 8 = 32 elements, experts 4) is not TE's:
 * its weight-gradient GEMM (8 x 4)(4 x 4) reads X and dY (32 + 16 elements)
 * and writes its 32 at 2 bytes (96 + 64), then grad_accum_router adds it
 * (32 x 10 = 320 bytes); an expert's fc1 accumulates into main_grad. */
static void router(void) {
  OcLayer l = tiny();
  l.experts = 4, l.top_k = 1;
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_MOE, ops, OC_MAX_OPS);
  const OcOp *r = find(ops, n, "router", WEFT_PHASE_WG);
  CHECK(r != NULL);
  if (r) CHECK_NEAR(r->bytes, 96 + 64, EXACT);
  check_op(ops, n, "grad_accum_router", WEFT_PHASE_WG, 32, 320);
  /* 4 experts of 1 token: fc1 (1 x 8)(8 x 64) each, weight 512 x 8 bytes */
  const OcOp *f = find(ops, n, "fc1", WEFT_PHASE_WG);
  CHECK(f != NULL);
  if (f) CHECK_NEAR(f->bytes, 4 * ((8 + 64) * 2 + 512 * 8), EXACT);
}

const TestCase suite_opmg[] = {{"opmg/rope_and_copies", rope_and_copies},
                               {"opmg/grad_accum", grad_accum},
                               {"opmg/in_blocks", in_blocks},
                               {"opmg/wgrad_floor", wgrad_floor},
                               {"opmg/activations", activations},
                               {"opmg/router", router},
                               {0}};
