/* opcost.c — the operators of a transformer layer (docs/zoo.md): each
 * block's GEMMs, attention and vector kernels with their FLOPs and bytes,
 * FP8's casts, LoRA's adapters; what they take on a device is
 * opcost_time.c's. */
#include <math.h>
#include <string.h>

#include "model/gemm_eff.h"
#include "model/measured.h"
#include "model/opcost.h"
#include "model/zoo.h"

/* FLOPs per element of the vector kernels (counted by hand, docs/zoo.md). */
#define LAYERNORM_FLOPS 8.0 /* mean 1, variance 3, normalise 2, affine 2 */
#define RMSNORM_FLOPS 4.0   /* square-accumulate 2, normalise 1, gain 1 */
#define SOFTMAX_FLOPS 5.0   /* scale, max, subtract-exp, sum, divide */
#define GELU_FLOPS 8.0      /* bias add + tanh approximation */
#define SWIGLU_FLOPS 5.0    /* silu(x) = x * sigmoid(x): 4, times up: 1 */

int weft_opcost_ready(const WeftDevice *d) {
  return d && d->sms > 0 && d->tile_m > 0 && d->tile_n > 0 && d->gemm_efficiency > 0 &&
         d->hbm_efficiency > 0 && d->hbm_bytes_per_s > 0 && d->peak_vector_flops > 0 &&
         d->peak_flops > 0;
}

void weft_opcost_layer(const WeftModel *m, const WeftParallel *par, OcLayer *l) {
  memset(l, 0, sizeof *l);
  double cp = par->cp > 1 ? par->cp : 1;
  l->b = par->micro_batch;
  l->s = m->seq_len / cp;
  l->kv_len = m->seq_len;
  l->h = m->hidden;
  l->heads = m->heads;
  WeftModelWidths w;
  weft_model_widths(m, &w);
  l->kv_heads = w.kv_heads;
  l->dqk = w.dqk;
  l->dv = w.dv;
  l->q_lora = w.q_lora;
  l->kv_lora = w.kv_lora;
  l->rope = w.rope;
  l->ffn = w.ffn;
  l->moe_ffn = w.moe_ffn;
  l->shared = m->shared_experts;
  l->ffn_matrices = (int)w.ffn_matrices;
  l->vocab = m->vocab;
  l->experts = m->experts;
  l->top_k = m->experts > 0 ? (m->top_k > 0 ? m->top_k : 1) : 0;
  l->tp = par->tp;
  l->ep = par->ep > 0 ? par->ep : 1;
  l->etp = par->expert_tp > 0 ? par->expert_tp : par->tp;
  l->sp = par->sequence_parallel;
  l->flash = par->attention != WEFT_ATTENTION_STANDARD; /* flash or fa2: fused */
  l->flex = par->attention == WEFT_ATTENTION_FLEX;
  l->fa2 = par->attention == WEFT_ATTENTION_FA2 || l->flex; /* flex: FA2's rows, then faster */
  l->permute_fusion = par->moe_permute_fusion;
  l->router_fusion = par->moe_router_fusion;
  l->dispatcher = par->moe_dispatcher;
  l->routing = par->moe_routing;
  l->torch = par->layer_impl == WEFT_LAYERS_TORCH;
  l->tp_async = par->tp_comm_overlap;
  l->ce = par->cross_entropy;
  l->act_eager = par->activation_eager;
  l->norm_eager = par->norm_eager;
  l->rope_eager = par->rope_eager;
  l->causal = !m->bidirectional;
  l->window = m->window;
  l->windowed = weft_opcost_window_share(m);
  l->fp8 = par->fp8;
  l->graphs = par->cuda_graphs;
  l->graph_scope = par->cuda_graph_scope;
  l->act_bytes = par->act_bytes;
  l->param_bytes = par->param_bytes;
  l->cp = cp;
  /* Transformer Engine's ring has no sliding window: those keep one kernel
   * (PyTorch's ring is refused with one, generate.c) */
  l->cp_torch = par->cp_comm == WEFT_CP_TORCH_ALLGATHER || par->cp_comm == WEFT_CP_TORCH_ALLTOALL;
  l->cp_ring = cp > 1 && l->flash && (par->cp_comm == WEFT_CP_P2P || l->cp_torch) &&
               !(l->window > 0 && l->windowed > 0);
  l->grad_bytes = par->grad_bytes;
  l->main_grad = par->zero_stage < 3;
  /* rotary positions: the SwiGLU family (Llama's, as the embedding's rule
   * below) and MLA; the GeLU family adds learned positions instead */
  l->rotary = weft_model_rotary(m);
  l->learned_pos = !l->rotary;
  l->bias = weft_model_biased(m);
  l->layernorm = weft_model_layernorm(m);
  l->relu2 = l->ffn_matrices == 2 && m->activation == WEFT_ACT_RELU2;
  l->attn_drop = weft_dropout(m, par, 0);
  l->hidden_drop = weft_dropout(m, par, 1);
  l->lora_rank = par->lora_rank > 0 ? par->lora_rank : 0;
  l->lora_targets = weft_lora_targets_of(par);
  l->pack = weft_opcost_pack_len(par, l->s);
}

double weft_opcost_pack_len(const WeftParallel *p, double s) {
  return p->packed_sample_len > 0 && p->packed_sample_len < s ? p->packed_sample_len : 0;
}

double weft_opcost_window_share(const WeftModel *m) {
  if (m->window <= 0 || m->layers < 1) return 0;
  int full = m->window_full_every > 0 ? m->layers / m->window_full_every : 0;
  return (double)(m->layers - full) / m->layers;
}

/* The MoE router's GEMM: a plain parameter whose weight gradient is
 * written, then added by its hook, not added into main_grad by the GEMM
 * (wgrad_acc_ns tells it by this name's address). */
const char weft_opcost_router[] = "router";

typedef struct {
  OcOp *ops;
  int n, max;
  double eb;  /* bytes per activation element */
  double pb;  /* bytes per parameter (an FP8 weight cast reads them) */
  double gb;  /* bytes per main_grad element (a weight-gradient GEMM accumulates) */
  int fp8;    /* the layer's WeftFp8 recipe */
  int norm_fp8; /* the last norm wrote the next GEMM's FP8 input (LayerNormLinear) */
  int norm_amax; /* the last norm took its output's amax (current scaling, LayerNormLinear) */
  int shared_cast; /* the next GEMMs' FP8 input was cast for an earlier one (torch layers) */
  double cast_div; /* the next GEMM's FP8 input cast runs on 1/cast_div of its rows (0: all) */
  /* Transformer Engine under sequence parallelism (tp > 1): the next GEMM's
   * input (column-parallel: QKV, fc1) or output gradient (row-parallel: proj,
   * fc2) is gathered over TP; a per-tensor FP8 recipe casts the rank's shard
   * (1/tp of the rows), gathers the FP8 copy and transposes the gathered one
   * (0: not gathered) */
  double sp_in, sp_grad;
  int frozen; /* LoRA: the weight GEMMs' weights are frozen (no weight gradient) */
} List;


/* An empty list of at most max ops for layer l's operators. */
static List layer_list(const OcLayer *l, OcOp *ops, int max) {
  List L = {ops, 0, max, l->act_bytes, l->param_bytes, weft_opcost_grad_width(l), l->fp8, 0, 0, 0, 0, 0, 0,
            l->lora_rank > 0};
  return L;
}

static void put(List *L, const OcOp *op) {
  if (L->n < L->max) L->ops[L->n] = *op;
  L->n++;
}

/* The layer's recipe scales per tensor (one FP8 copy transposes into the other). */
static int per_tensor(const List *L) {
  return L->fp8 == WEFT_FP8_DELAYED || L->fp8 == WEFT_FP8_CURRENT;
}

/* TE's sequence-parallel TP gather of an operand: tp when it happens (the
 * List's sp_in, sp_grad), else 0. */
static double sp_gather(const OcLayer *l) { return l->sp && l->tp > 1 && !l->torch ? l->tp : 0; }

double weft_opcost_fp8_copy_bytes(int mode, int weight) {
  switch (mode) {
    case WEFT_FP8_DELAYED:
    case WEFT_FP8_CURRENT: return 1.0;
    case WEFT_FP8_MXFP8: return 1 + 1 / OC_MX_BLOCK;
    case WEFT_FP8_BLOCKWISE: return 1 + 4 / (weight ? OC_BLOCK_2D : OC_BLOCK_1D);
    case WEFT_FP8_NVFP4: return 0.5 + 1 / (weight ? OC_NV_BLOCK_2D : OC_NV_BLOCK);
    default: return 0.0;
  }
}

double weft_opcost_fp8_cast_bytes(int mode, double e, double src_bytes, int weight) {
  if (mode < WEFT_FP8_DELAYED || mode > WEFT_FP8_NVFP4) return 0;
  double b = e * (src_bytes + 2 * weft_opcost_fp8_copy_bytes(mode, weight));
  /* delayed: + history read and rolled, scale read and written, scale_inv */
  return mode == WEFT_FP8_DELAYED ? b + 2 * 4 * OC_AMAX_HISTORY + 3 * 4 : b;
}

/* The cast of `tensors` tensors of e elements each (src_bytes wide) to FP8
 * in the layer's recipe: current scaling's (and NVFP4's per-tensor) amax
 * pass first (1 FLOP and src_bytes read an element; none for a GEMM input
 * whose norm took the amax, norm_amax), then the cast (scale 1 FLOP, and
 * the amax 1 when the cast records it; NVFP4 the random Hadamard transform
 * of an activation's or gradient's column-wise copy, fused in), writing
 * both copies, or the row-wise one alone (rowwise). */
static void fp8_cast(List *L, const char *name, const char *amax, int phase, double tensors,
                     double e, double src_bytes, int once, int rowwise) {
  int nv = L->fp8 == WEFT_FP8_NVFP4, cur = L->fp8 == WEFT_FP8_CURRENT || nv;
  if (cur && !(L->norm_amax && phase == WEFT_PHASE_FWD && !once)) {
    OcOp a = {amax, phase, OC_VECTOR, 0, 0, 0, 0, tensors * e, tensors * e * src_bytes, 0, once,
              0, 0, 0, 0, 0, 0};
    put(L, &a);
  }
  double flops = nv ? 1 + (once ? 0 : OC_RHT_FLOPS) : cur ? 1 : 2;
  double bytes = weft_opcost_fp8_cast_bytes(L->fp8, e, src_bytes, once) -
                 (rowwise ? e * weft_opcost_fp8_copy_bytes(L->fp8, once) : 0);
  OcOp c = {name, phase, OC_VECTOR, 0, 0, 0, 0, tensors * e * flops, tensors * bytes, 0, once,
            0, 0, 0, 0, 0, 0};
  put(L, &c);
}

/* The cast of a TP-gathered operand under a per-tensor recipe (delayed,
 * current), as Transformer Engine runs it with sequence parallelism: the
 * rank's shard (e / tp elements) cast to its row-wise FP8 copy alone (current
 * scaling's amax pass on the shard first, its TP all-reduce in gen_amax.c),
 * the FP8 shards all-gathered, and the gathered e elements transposed for
 * the weight gradient (TE v1.13 base.py grad_output_preprocess: "cast,
 * transpose for efficient gather", cast_to_fp8 of the shard,
 * gather_along_first_dim, tex.fp8_transpose; TE 2.x distributed.py
 * _all_gather_fp8: the shard quantized, gathered, then its transpose made).
 * phase: the cast's; the transpose runs in weight-grad. */
static void fp8_cast_gathered(List *L, const char *name, const char *amax, const char *tname,
                              int phase, double batch, double e, double tp, double src_bytes,
                              int frozen) {
  fp8_cast(L, name, amax, phase, 1, batch * e / tp, src_bytes, 0, 1);
  OcOp t = {tname, WEFT_PHASE_WG, OC_VECTOR, 0, 0, 0, 0, 0, 2 * batch * e, 0, 0, 0, 0, 0, 0, 0, 0};
  if (!frozen) put(L, &t); /* a frozen weight has no weight gradient to transpose for */
}

/* A GEMM of the forward pass and its two backward GEMMs: dA = dC B^T
 * (m x k, inner n) into IG, dB = A^T dC (k x n, inner m) into WG when B is
 * a weight, else IG (attention's activation x activation products). An FP8
 * GEMM reads its inputs at 1 byte an element and writes act_bytes; an NVFP4
 * one reads half a byte and a scale byte per 16 elements of an activation
 * or gradient (ia), per 16 x 16 of a weight (iw). A weight's gradient
 * accumulates into main_grad (Megatron's gradient_accumulation_fusion, TE's
 * fuse_wgrad_accumulation: the GEMM's out is weight.main_grad, accumulate
 * beta 1): read and written at gb bytes, every micro-batch (the first's
 * read, skipped under is_first_microbatch, is charged too). */
static void gemm8(List *L, const char *name, double batch, double m, double n, double k,
                  int weight, int fp8) {
  int prec = !fp8 ? 0 : fp8 == WEFT_FP8_NVFP4 ? 2 : 1;
  double eb = L->eb, ia = prec == 2 ? 0.5 + 1 / OC_NV_BLOCK : prec ? 1.0 : eb;
  double iw = prec == 2 ? 0.5 + 1 / OC_NV_BLOCK_2D : ia;
  OcOp f = {name, WEFT_PHASE_FWD, OC_GEMM, batch, m, n, k, 2 * batch * m * n * k,
            batch * (m * k * ia + k * n * iw + m * n * eb), prec, 0, 0, 0, 0, 0, 0, 0};
  OcOp da = {name, WEFT_PHASE_IG, OC_GEMM, batch, m, k, n, f.flops,
             batch * (m * n * ia + k * n * iw + m * k * eb), prec, 0, 0, 0, 0, 0, 0, 0};
  int dbp = weight ? WEFT_PHASE_WG : WEFT_PHASE_IG;
  OcOp db = {name, dbp, OC_GEMM, batch, k, n, m, f.flops,
             batch * ((m * k + m * n) * ia + k * n * (weight ? 2 * L->gb : eb)), prec, 0, 0, 0, 0, 0, 0, 0};
  /* a frozen weight (LoRA): no weight gradient, so Transformer Engine makes
   * only the row-wise FP8 copies of the input and the output gradient (TE
   * 2.x linear.py: the input quantizer's columnwise usage only when the
   * weight requires grad; the backward's ctx.requires_wgrad) */
  int frz = weight && L->frozen;
  put(L, &f);
  put(L, &da);
  if (!frz) put(L, &db);
  if (fp8 && weight && L->norm_fp8) { /* LayerNormLinear (TE v1.8, layernorm_linear.py):
    * the norm wrote the FP8 input; the backward transposes it (tex.fp8_transpose) */
    OcOp t = {"fp8_transpose_input", WEFT_PHASE_WG, OC_VECTOR, 0, 0, 0, 0, 0,
              2 * batch * m * k, 0, 0, 0, 0, 0, 0, 0, 0};
    if (!frz) put(L, &t);
  } else if (fp8 && weight && L->sp_in > 1 && per_tensor(L)) { /* gathered over TP */
    fp8_cast_gathered(L, "fp8_cast_input", "fp8_amax_input", "fp8_transpose_input",
                      WEFT_PHASE_FWD, batch, m * k, L->sp_in, eb, frz);
  } else if (fp8 && weight && !L->shared_cast) { /* Transformer Engine's FP8 linear layer
                                                  * (docs/zoo.md, "FP8") */
    fp8_cast(L, "fp8_cast_input", "fp8_amax_input", WEFT_PHASE_FWD, batch,
             m * k / (L->cast_div > 1 ? L->cast_div : 1), eb, 0, frz);
  }
  L->cast_div = 0;
  if (fp8 && weight) {
    if (L->sp_grad > 1 && per_tensor(L))
      fp8_cast_gathered(L, "fp8_cast_grad", "fp8_amax_grad", "fp8_transpose_grad", WEFT_PHASE_IG,
                        batch, m * n, L->sp_grad, eb, frz);
    else
      fp8_cast(L, "fp8_cast_grad", "fp8_amax_grad", WEFT_PHASE_IG, batch, m * n, eb, 0, frz);
    fp8_cast(L, "fp8_cast_weight", "fp8_amax_weight", WEFT_PHASE_FWD, batch, k * n, L->pb, 1, 0);
  }
  L->norm_fp8 = L->norm_amax = 0;
  L->sp_in = L->sp_grad = 0;
}

static void gemm(List *L, const char *name, double batch, double m, double n, double k,
                 int weight) {
  gemm8(L, name, batch, m, n, k, weight, 0);
}

/* A vector kernel: forward FLOPs and bytes, and its backward's in bwd_phase. */
static void vec2(List *L, const char *name, double flops, double bytes, double bwd_flops,
                 double bwd_bytes, int bwd_phase) {
  OcOp f = {name, WEFT_PHASE_FWD, OC_VECTOR, 0, 0, 0, 0, flops, bytes, 0, 0, 0, 0, 0, 0, 0, 0};
  OcOp b = {name, bwd_phase, OC_VECTOR, 0, 0, 0, 0, bwd_flops, bwd_bytes, 0, 0, 0, 0, 0, 0, 0, 0};
  put(L, &f);
  put(L, &b);
}

/* A vector kernel; its backward moves twice the bytes and does twice the
 * FLOPs (reads the saved input and the gradient). */
static void vec(List *L, const char *name, double flops, double bytes, int bwd_phase) {
  vec2(L, name, flops, bytes, 2 * flops, 2 * bytes, bwd_phase);
}

/* The kernel the last vec/vec2 pair runs in the measured tables: fwd over
 * e elements (in 2-byte units: the tables are BF16), its backward the
 * measured bwd kernel over e or, when none was measured (bwd 0), fwd's
 * over twice e, as the bytes above. */
static void tag(List *L, int fwd, int bwd, double e) {
  double u = e * L->eb / 2;
  if (L->n < 2 || L->n > L->max) return;
  OcOp *f = &L->ops[L->n - 2], *b = &L->ops[L->n - 1];
  f->mem = fwd;
  f->elems = u;
  b->mem = bwd ? bwd : fwd;
  b->elems = bwd ? u : 2 * u;
}

/* One eager kernel moving bytes (read and written) at the copy bandwidth. */
static void kb(List *L, const char *name, int phase, double flops, double bytes) {
  OcOp o = {name, phase, OC_VECTOR, 0, 0, 0, 0, flops, bytes, 0, 0, 0, 0, 0, 0, 0, 0};
  put(L, &o);
}

/* LoRA's adapter on a linear layer of in x out (whole, before TP) over T
 * tokens (docs/zoo.md, "LoRA"), as Megatron-Bridge's ParallelLinearAdapter
 * runs it (peft/utils.py; LoRALinear adds it to the base output): on a
 * column-parallel base (QKV, fc1) linear_in is a ColumnParallelLinear
 * (in -> r, its r / tp outputs all-gathered) over the base's gathered
 * input, linear_out a ColumnParallelLinear (r -> out / tp); on a
 * row-parallel one (proj, fc2) linear_in a RowParallelLinear (in / tp -> r,
 * all-reduced), linear_out a ColumnParallelLinear that gathers its output
 * (torch.cat along the last dim: a copy) and, under sequence parallelism,
 * keeps the rank's rows. Both Megatron-Core linears, not Transformer
 * Engine's: BF16 GEMMs whose weight gradients add into main_grad. Then the
 * scale by alpha / r and the add to the base output, one kernel each (a
 * kernel even at alpha = r: x * 1.0); backward the scale again and the
 * adapter's input gradient added to the base's, and the gathered output's
 * gradient split (a copy). The TP collectives are gen_transformer.c's. */
static void lora_adapter(List *L, const OcLayer *l, double T, double in, double out, int row) {
  double r = l->lora_rank, tp = l->tp, eb = L->eb;
  int frozen = L->frozen;
  L->frozen = 0; /* the adapters train */
  if (row) {
    gemm(L, "lora_a", 1, T, r, in / tp, 1);
    gemm(L, "lora_b", 1, T, out / tp, r, 1);
    if (tp > 1) {
      kb(L, "lora_gather_cat", WEFT_PHASE_FWD, 0, 2 * T * out * eb);
      kb(L, "lora_split_copy", WEFT_PHASE_IG, 0, 2 * T * out / tp * eb);
    }
  } else {
    gemm(L, "lora_a", 1, T, r / tp, in, 1);
    gemm(L, "lora_b", 1, T, out / tp, r, 1);
  }
  L->frozen = frozen;
  double e = row && !l->sp ? T * out : T * out / tp; /* the output's, as the base's */
  double x = T * in / (row ? tp : 1);                  /* the input's */
  kb(L, "lora_scale", WEFT_PHASE_FWD, e, 2 * e * eb);
  kb(L, "lora_add", WEFT_PHASE_FWD, e, 3 * e * eb);
  kb(L, "lora_scale", WEFT_PHASE_IG, e, 2 * e * eb);
  kb(L, "lora_grad_add", WEFT_PHASE_IG, x, 3 * x * eb);
}

/* RMSNorm as eager PyTorch runs torchtitan's module (torchtitan/models/
 * norms.py RMSNorm, @9dec370: x * rsqrt(x.float().pow(2).mean(-1) + eps),
 * type_as(x), times the weight; WeftParallel.norm_eager), e elements of
 * width eb over T rows, fp32 (4 bytes) inside, one ATen op a kernel, the
 * backward autograd's formulas:
 *   forward   to fp32 (eb + 4)e, pow 8e, mean 4e, + eps and rsqrt on T,
 *             x r 8e, type_as (4 + eb)e, times the weight 2 eb e
 *   backward  g w 2 eb e, (g y) and its row sum over the weight's
 *             gradient 3 eb e + eb e, to fp32 (eb + 4)e, g r 8e, (g x)
 *             12e and its row sum 4e, rsqrt's on T, mean's expanded
 *             division 4e, pow_backward's x.pow(1) 8e, times 2 8e, times
 *             the gradient 12e, the two gradients of x added 12e, to eb
 *             (4 + eb)e */
static void eager_rmsnorm(List *L, double e, double T, double eb) {
  const int F = WEFT_PHASE_FWD, B = WEFT_PHASE_IG;
  const double f = 4;
  kb(L, "rmsnorm_to_f32", F, 0, (eb + f) * e);
  kb(L, "rmsnorm_pow", F, e, 2 * f * e);
  kb(L, "rmsnorm_mean", F, e, f * e + f * T);
  kb(L, "rmsnorm_add_eps", F, T, 2 * f * T);
  kb(L, "rmsnorm_rsqrt", F, T, 2 * f * T);
  kb(L, "rmsnorm_mul", F, e, 2 * f * e + f * T);
  kb(L, "rmsnorm_type_as", F, 0, (f + eb) * e);
  kb(L, "rmsnorm_weight", F, e, 2 * eb * e);
  kb(L, "rmsnorm_weight_back", B, e, 2 * eb * e);
  kb(L, "rmsnorm_weight_grad_mul", B, e, 3 * eb * e);
  kb(L, "rmsnorm_weight_grad_sum", B, e, eb * e);
  kb(L, "rmsnorm_type_as_back", B, 0, (eb + f) * e);
  kb(L, "rmsnorm_mul_back", B, e, 2 * f * e + f * T);
  kb(L, "rmsnorm_r_grad_mul", B, e, 3 * f * e);
  kb(L, "rmsnorm_r_grad_sum", B, e, f * e);
  kb(L, "rmsnorm_rsqrt_back", B, 3 * T, 3 * f * T);
  kb(L, "rmsnorm_mean_back", B, e, f * e + f * T);
  kb(L, "rmsnorm_pow_back_copy", B, 0, 2 * f * e);
  kb(L, "rmsnorm_pow_back_scale", B, e, 2 * f * e);
  kb(L, "rmsnorm_pow_back_mul", B, e, 3 * f * e);
  kb(L, "rmsnorm_x_grad_add", B, e, 3 * f * e);
  kb(L, "rmsnorm_to_f32_back", B, 0, (f + eb) * e);
}

/* A norm; linear: it feeds a TE LayerNormLinear (Megatron's
 * TELayerNormColumnParallelLinear), which under delayed scaling writes the
 * GEMM's FP8 input itself (TE v1.8 layernorm_linear.py: _apply_normalization
 * with an FP8 output): 1 byte an element out, the scale 2 FLOPs an element,
 * the amax history and scales as a cast's; the GEMM then casts no input.
 * Under current scaling it writes its BF16 output and takes that output's
 * amax in the same kernel (1 FLOP an element), which the GEMM's input cast
 * then uses instead of an amax pass of its own (TE PR #2013, 2025-08:
 * "Fuse amax computation into normalization kernel for current scaling",
 * Float8CurrentScalingQuantizer::quantize_with_amax; TE 2.7 on). */
static void norm(List *L, const OcLayer *l, const char *name, int linear) {
  double e = l->b * l->s * l->h / (l->sp ? l->tp : 1), eb = L->eb;
  if (l->norm_eager && !l->layernorm) { /* no fused cast: the linear casts its own input */
    eager_rmsnorm(L, e, e / l->h, eb);
    L->norm_fp8 = L->norm_amax = 0;
    return;
  }
  int ln = l->layernorm, f8 = linear && L->fp8 == WEFT_FP8_DELAYED && !l->torch; /* TE's */
  int am = linear && L->fp8 == WEFT_FP8_CURRENT && !l->torch;
  double fl = e * (ln ? LAYERNORM_FLOPS : RMSNORM_FLOPS) + (am ? e : 0);
  if (f8)
    vec2(L, name, fl + 2 * e, e * (eb + 1) + 2 * 4 * OC_AMAX_HISTORY + 3 * 4, 2 * fl,
         4 * e * eb, WEFT_PHASE_IG);
  else
    vec(L, name, fl, 2 * e * eb, WEFT_PHASE_IG);
  tag(L, ln ? WM_LAYERNORM_FWD : WM_RMSNORM_FWD, ln ? WM_LAYERNORM_BWD : WM_RMSNORM_BWD, e);
  if (f8 && L->n >= 2 && L->n <= L->max) /* the measured bf16 norm, by its bytes */
    L->ops[L->n - 2].elems *= (eb + 1) / (2 * eb);
  L->norm_fp8 = f8;
  L->norm_amax = am;
}

/* The last vec/vec2 pair's measured kernels by bytes: the forward at kernel
 * fwd, whose table rows move fpe bytes an element, the backward at bwd (bpe),
 * each over its own op's bytes. */
static void tag_bytes(List *L, int fwd, double fpe, int bwd, double bpe) {
  if (L->n < 2 || L->n > L->max) return;
  OcOp *f = &L->ops[L->n - 2], *b = &L->ops[L->n - 1];
  f->mem = fwd;
  f->elems = f->bytes / fpe;
  b->mem = bwd;
  b->elems = b->bytes / bpe;
}

/* The residual add after a sub-block, as Megatron-Core's bias-dropout-add
 * (fusions/fused_bias_dropout.py, one fused kernel with
 * bias_dropout_fusion): x (+ the GeLU family's bias) through dropout, plus
 * the residual. Reads x and the residual, writes the sum: 3 tensors, a
 * FLOP each for the bias and the add; the backward as every vector
 * kernel's, twice the bytes and FLOPs. With hidden dropout p > 0 (none at
 * p = 0: torch's dropout returns its input) the kernel also draws the
 * random mask and writes it, 1 byte an element (a bool, kept for backward),
 * a FLOP each: e bytes more forward, twice that backward (where it is
 * read). The measured tables, each by its bytes: the forward at the
 * dropout kernel's rows with dropout (it draws the random numbers), else
 * at the add's; the backward at the add's. */
static void residual(List *L, const OcLayer *l) {
  double e = l->b * l->s * l->h / (l->sp ? l->tp : 1), eb = L->eb;
  int bias = l->bias, drop = l->hidden_drop > 0;
  double mask = drop ? e : 0;
  vec(L, bias || drop ? "bias_dropout_add" : "residual_add", e * (1 + bias) + mask,
      3 * e * eb + mask, WEFT_PHASE_IG);
  tag_bytes(L, drop ? WM_DROPOUT : WM_ADD, drop ? OC_DROPOUT_ROW_BYTES : OC_ADD_ROW_BYTES,
            WM_ADD, OC_ADD_ROW_BYTES);
}

/* The loss over e logits (docs/zoo.md, "The loss"), as the implementation
 * ce runs it. Bytes per logit, eb the logits' width (the output layer
 * writes them at act_bytes), 4 an fp32 element:
 *   megatron  Megatron-Core's vocab_parallel_cross_entropy, one kernel per
 *             line: forward casts to fp32 (eb + 4; none when eb is 4),
 *             takes the max (4), subtracts it in place (8), exponentiates in
 *             place (8), sums (4) and divides in place (8, the softmax kept
 *             for backward); backward scales it by the loss gradient in
 *             place (8) and autograd casts it back to the logits' type
 *             (4 + eb)
 *   fused     the same lines in three torch.compile'd functions (jit_fuser,
 *             megatron/core/fusions/fused_cross_entropy.py): the cast and
 *             max in one kernel (eb + 4), the subtract, exp and sum in one
 *             writing the exp back into its input (8), the divide (8);
 *             backward one kernel reading the softmax, writing the mutated
 *             input back (compile keeps an input's in-place update) and the
 *             gradient at eb (8 + eb)
 *   te        Transformer Engine's Triton kernels (common/triton/
 *             cross_entropy.py): online_softmax_kernel reads the logits
 *             (eb), cross_entropy_kernel reads them again and writes the
 *             gradient in their place (2 eb); backward element_mul_kernel
 *             scales it in place (2 eb)
 *   torch     PyTorch's F.cross_entropy on the logits cast to fp32
 *             (torchtitan's loss_fn): the cast (eb + 4, backward 4 + eb)
 *             and the fused log-softmax / NLL kernels on 4-byte elements
 *             (forward reads 4 and keeps 4, backward writes the zeroed
 *             gradient 4 and reads 8, writes 4: 16)
 *   torch_nocast  the same fused kernels on the logits at their own width,
 *             no cast (NeMo AutoModel's MaskedCrossEntropy, fp32_upcast
 *             false): forward 2 eb, backward 4 eb
 * On a device with measured tables torch's kernels take the measured
 * F.cross_entropy rows (bf16; at eb / 2 times the elements, the tables'
 * 2-byte units: twice for fp32) and every other kernel the copy bandwidth
 * by its bytes.
 * FLOPs: max, subtract, exp, sum, divide (5) and the product (1). */
static void cross_entropy(List *L, int ce, double e) {
  double eb = L->eb, cast = eb == 4.0 ? 0.0 : 4.0 + eb;
  double fwd, bwd;
  switch (ce) {
    case WEFT_CE_MEGATRON: fwd = cast + 4 + 8 + 8 + 4 + 8, bwd = 8 + cast; break;
    case WEFT_CE_TE: fwd = 3 * eb, bwd = 2 * eb; break;
    case WEFT_CE_TORCH: fwd = 8, bwd = 16; break;
    case WEFT_CE_TORCH_NOCAST: fwd = 2 * eb, bwd = 4 * eb; break;
    default: fwd = (eb == 4.0 ? 4 : eb + 4) + 8 + 8, bwd = 8 + eb; break; /* fused */
  }
  if (ce == WEFT_CE_TORCH && cast > 0)
    vec2(L, "loss_cast", 0, cast * e, 0, cast * e, WEFT_PHASE_IG);
  vec2(L, "cross_entropy", SOFTMAX_FLOPS * e, fwd * e, e, bwd * e, WEFT_PHASE_IG);
  int torch = ce == WEFT_CE_TORCH || ce == WEFT_CE_TORCH_NOCAST;
  if (!torch || L->n < 2 || L->n > L->max) return;
  /* measured forward and backward together (fp32: 2e of the tables' 2-byte
   * units; torch_nocast at the logits' width), shared as the bytes are */
  OcOp *f = &L->ops[L->n - 2], *b = &L->ops[L->n - 1];
  double units = e * (ce == WEFT_CE_TORCH ? 4.0 : eb) / 2;
  f->mem = b->mem = WM_CROSS_ENTROPY;
  f->elems = units * fwd / (fwd + bwd);
  b->elems = units * bwd / (fwd + bwd);
}

/* Q, K, V projections: one GEMM (T x h)(h x (h + 2 kv) / t), or MLA's
 * down-projections to the latents (replicated over TP), their RMSNorms and
 * the up-projections (heads split over TP). */
static void qkv_proj(List *L, const OcLayer *l) {
  double T = l->b * l->s, tp = l->tp, a = l->heads;
  int f8 = l->fp8;
  if (l->kv_lora > 0) {
    double eb = L->eb;
    if (l->q_lora > 0) {
      gemm8(L, "q_down", 1, T, l->q_lora, l->h, 1, f8);
      vec(L, "q_norm", T * l->q_lora * RMSNORM_FLOPS, 2 * T * l->q_lora * eb, WEFT_PHASE_IG);
      tag(L, WM_RMSNORM_FWD, WM_RMSNORM_BWD, T * l->q_lora);
      gemm8(L, "q_up", 1, T, a * l->dqk / tp, l->q_lora, 1, f8);
    } else {
      gemm8(L, "q_proj", 1, T, a * l->dqk / tp, l->h, 1, f8);
    }
    gemm8(L, "kv_down", 1, T, l->kv_lora + l->rope, l->h, 1, f8);
    vec(L, "kv_norm", T * l->kv_lora * RMSNORM_FLOPS, 2 * T * l->kv_lora * eb, WEFT_PHASE_IG);
    tag(L, WM_RMSNORM_FWD, WM_RMSNORM_BWD, T * l->kv_lora);
    gemm8(L, "kv_up", 1, T, a * (l->dqk - l->rope + l->dv) / tp, l->kv_lora, 1, f8);
  } else if (l->torch) { /* torchtitan's wq, wk, wv: three nn.Linear, one input */
    L->cast_div = l->sp ? tp : 1; /* Float8ColwiseParallel casts the shard, then gathers */
    gemm8(L, "wq", 1, T, a * l->dqk / tp, l->h, 1, f8);
    L->shared_cast = tp > 1; /* DTensor TP: Float8ColwiseParallel's input cast once */
    gemm8(L, "wk", 1, T, l->kv_heads * l->dqk / tp, l->h, 1, f8);
    gemm8(L, "wv", 1, T, l->kv_heads * l->dv / tp, l->h, 1, f8);
    L->shared_cast = 0;
  } else {
    L->sp_in = sp_gather(l);
    double out = a * l->dqk + l->kv_heads * (l->dqk + l->dv);
    gemm8(L, "qkv", 1, T, out / tp, l->h, 1, f8);
    if (l->lora_targets & WEFT_LORA_QKV) lora_adapter(L, l, T, l->h, out, 0);
  }
}

static void attention(List *L, const OcLayer *l) {
  double T = l->b * l->s, tp = l->tp, a = l->heads / tp, kvh = l->kv_heads / tp;
  norm(L, l, "attn_norm", l->kv_lora == 0); /* MLA's q_down, kv_down: no LayerNormLinear */
  qkv_proj(L, l);
  L->norm_fp8 = L->norm_amax = 0;
  OcOp side[OC_MG_MAX];
  int ns = weft_opcost_qkv_side_ops(l, side);
  for (int i = 0; i < ns; i++) put(L, &side[i]);
  if (l->cp_ring) { /* context parallel: the P2P ring's steps (opcost_cp.c) */
    int room = L->max - L->n;
    L->n += weft_opcost_cp_ops(l, L->ops + (room > 0 ? L->n : 0), room > 0 ? room : 0);
  } else if (l->flash) { /* fused: Q, K, V in, O out; backward recomputes the scores */
    /* packed samples (cp 1): b s / pack sequences of pack tokens each, as
     * the varlen kernel runs them (the same Q, K, V, O bytes) */
    double nb = l->pack > 0 ? l->b * l->s / l->pack : l->b, q = l->pack > 0 ? l->pack : l->s;
    double kv = l->pack > 0 ? l->pack : l->kv_len;
    double pairs = nb * a * q * kv * weft_opcost_pair_fraction(kv, l->causal, l->window, l->windowed);
    double fl = 2 * pairs * (l->dqk + l->dv);      /* QK^T, PV */
    double bl = 2 * pairs * (3 * l->dqk + 2 * l->dv); /* QK^T again, dV, dP, dQ, dK */
    double by = (T * a * (l->dqk + l->dv) + l->b * l->kv_len * kvh * (l->dqk + l->dv)) * L->eb;
    double bh = nb * a, d = (l->dqk + l->dv) / 2;
    OcOp f = {"flash_attn", WEFT_PHASE_FWD, OC_FUSED, bh, q, kv, d, fl, by, 0, 0,
              0, 0, l->causal, 0, 0, 0};
    OcOp b = {"flash_attn", WEFT_PHASE_IG, OC_FUSED, bh, q, kv, d, bl, 2 * by, 0, 0,
              0, 0, l->causal, 0, 0, 0};
    put(L, &f);
    put(L, &b);
  } else {
    double e = l->b * a * l->s * l->kv_len; /* score elements */
    gemm(L, "score", l->b * a, l->s, l->kv_len, l->dqk, 0);
    vec(L, "softmax", SOFTMAX_FLOPS * e, 2 * e * L->eb, WEFT_PHASE_IG);
    tag(L, WM_SOFTMAX, 0, e);
    if (l->attn_drop > 0) { /* torch's dropout on the probabilities: reads them, writes
                               the kept ones and the 1-byte mask (backward twice) */
      vec(L, "attn_dropout", e, 2 * e * L->eb + e, WEFT_PHASE_IG);
      tag_bytes(L, WM_DROPOUT, OC_DROPOUT_ROW_BYTES, WM_ADD, OC_ADD_ROW_BYTES);
    }
    gemm(L, "context", l->b * a, l->s, l->dv, l->kv_len, 0);
  }
  L->sp_grad = sp_gather(l);
  gemm8(L, "proj", 1, T, l->h, a * l->dv, 1, l->fp8);
  if (l->lora_targets & WEFT_LORA_PROJ) lora_adapter(L, l, T, l->heads * l->dv, l->h, 1);
  residual(L, l);
}

/* The activation of e elements out: fwd_io tensors of e read and written
 * forward, bwd_io backward; the backward at the measured forward kernel's
 * rate over bwd_io / fwd_io of its elements (the same bytes). */
static void act(List *L, const char *name, double flops, double e, double fwd_io, double bwd_io,
                int kernel) {
  vec2(L, name, flops, fwd_io * e * L->eb, 2 * flops, bwd_io * e * L->eb, WEFT_PHASE_IG);
  tag(L, kernel, 0, e);
  if (L->n >= 2 && L->n <= L->max) L->ops[L->n - 1].elems = L->ops[L->n - 2].elems * bwd_io / fwd_io;
}

/* One eager PyTorch kernel over n tensors of e elements (read and written
 * together), at the copy bandwidth by its bytes. */
static void kern(List *L, const char *name, int phase, double flops, double n, double e) {
  kb(L, name, phase, flops, n * e * L->eb);
}

/* The activation as eager PyTorch runs it (Megatron-Core's
 * bias_activation_fusion off: mlp.py calls activation_func, autograd the
 * backward; WeftParallel.activation_eager), one op a kernel, each line's
 * tensors of e by hand from ATen:
 *   GeLU      [bias add: read, write 2] F.gelu 2 (the measured row);
 *             back: gelu_backward 3 [the bias gradient's sum 1]
 *   sq. ReLU  relu 2, pow 2; back: pow_backward's self.pow(1) copy 2,
 *             times 2 2, times the gradient 3; threshold_backward 3
 *   SwiGLU    silu 2 and the product 3 (the measured swiglu_eager row);
 *             back: the product's two gradients 3 + 3, silu_backward 3,
 *             the chunks' gradients concatenated 4 */
static void eager_act(List *L, const OcLayer *l, double e) {
  const int F = WEFT_PHASE_FWD, B = WEFT_PHASE_IG;
  if (l->ffn_matrices == 3) {
    OcOp fw = {"swiglu", F, OC_VECTOR, 0, 0, 0, 0, SWIGLU_FLOPS * e, 5 * e * L->eb, 0, 0,
               WM_SWIGLU, e * L->eb / 2, 0, 0, 0, 0};
    put(L, &fw);
    kern(L, "swiglu_mul_back", B, e, 3, e);
    kern(L, "swiglu_mul_back", B, e, 3, e);
    kern(L, "silu_back", B, 4 * e, 3, e);
    kern(L, "swiglu_cat_back", B, 0, 4, e);
  } else if (l->relu2) {
    kern(L, "relu", F, e, 2, e);
    kern(L, "square", F, e, 2, e);
    kern(L, "square_back_copy", B, 0, 2, e);
    kern(L, "square_back_scale", B, e, 2, e);
    kern(L, "square_back_mul", B, e, 3, e);
    kern(L, "relu_back", B, e, 3, e);
  } else {
    if (l->bias) kern(L, "bias_add", F, e, 2, e);
    act(L, "gelu", GELU_FLOPS * e, e, 2, 3, WM_GELU);
    if (l->bias) kern(L, "bias_grad", B, e, 1, e);
  }
}

/* The MLP of width f (split over tp ranks) on tokens per group, groups of them side by side (MoE
 * experts). SwiGLU's gate and up projections are one GEMM of width 2f, as
 * Megatron-Core's linear_fc1 (and its grouped experts') runs them. The
 * activations as Megatron-Core's fused kernels (fusions/fused_bias_gelu.py,
 * fused_bias_swiglu.py, one @jit_fuser kernel each way): bias_gelu reads y
 * and writes f (2 tensors of e), bias_gelu_back reads g and y and writes one
 * (3); swiglu reads y (2e) and writes e (3), swiglu_back reads g (e) and y
 * (2e) and writes their cat (2e): 5. Squared ReLU (Nemotron-4:
 * megatron/core/activations.py squared_relu, @jit_fuser; NeMo 1.x's the
 * same) as bias_gelu's bytes: one compiled kernel each way. */
static void mlp(List *L, const OcLayer *l, double groups, double tokens, double width,
                double tp, int gathered) {
  double f = width / tp, e = groups * tokens * f;
  int f8 = l->fp8;
  L->sp_in = gathered ? sp_gather(l) : 0; /* a dense MLP's (and shared experts') input */
  if (l->torch && l->ffn_matrices == 3 && groups == 1) { /* torchtitan's w1, w3 */
    L->cast_div = l->sp ? tp : 1; /* Float8ColwiseParallel casts the shard, then gathers */
    gemm8(L, "w1", 1, tokens, f, l->h, 1, f8);
    L->shared_cast = tp > 1; /* Float8ColwiseParallel's input cast once */
    gemm8(L, "w3", 1, tokens, f, l->h, 1, f8);
    L->shared_cast = 0;
  } else {
    gemm8(L, "fc1", groups, tokens, (l->ffn_matrices == 3 ? 2 : 1) * f, l->h, 1, f8);
    if (l->lora_targets & WEFT_LORA_FC1 && gathered && groups == 1) /* a dense MLP's */
      lora_adapter(L, l, tokens, l->h, (l->ffn_matrices == 3 ? 2 : 1) * width, 0);
  }
  L->sp_in = 0;
  if (l->act_eager)
    eager_act(L, l, e);
  else if (l->ffn_matrices == 3)
    /* one compiled kernel each way, at the copy bandwidth by its bytes: the
     * measured swiglu_eager row times PyTorch's two eager kernels (silu, then
     * the product: 5 tensors of e moved, not 3), which neither Megatron-Core
     * nor torch.compile'd torchtitan runs */
    vec2(L, "swiglu", SWIGLU_FLOPS * e, 3 * e * L->eb, 2 * SWIGLU_FLOPS * e, 5 * e * L->eb,
         WEFT_PHASE_IG);
  else if (l->relu2) /* relu, square: 2 FLOPs; back 2 */
    vec2(L, "squared_relu", 2 * e, 2 * e * L->eb, 2 * e, 3 * e * L->eb, WEFT_PHASE_IG);
  else
    act(L, l->bias ? "bias_gelu" : "gelu", GELU_FLOPS * e, e, 2, 3, WM_GELU);
  L->sp_grad = gathered ? sp_gather(l) : 0;
  gemm8(L, "fc2", groups, tokens, l->h, f, 1, f8);
  if (l->lora_targets & WEFT_LORA_FC2 && gathered && groups == 1)
    lora_adapter(L, l, tokens, width, l->h, 1);
}

int weft_opcost_ops(const OcLayer *l, OcBlock blk, OcOp *ops, int max) {
  List L = layer_list(l, ops, max);
  double T = l->b * l->s;
  switch (blk) {
    case OC_ATTN: attention(&L, l); break;
    case OC_MLP:
      norm(&L, l, "mlp_norm", 1);
      mlp(&L, l, 1, T, l->ffn, l->tp, 1);
      residual(&L, l);
      break;
    case OC_MOE: { /* ep ranks' tokens, top_k each, spread over E experts; E/ep here */
      double etp = l->etp > 0 ? l->etp : l->tp, per = T * l->top_k * l->ep / l->experts;
      norm(&L, l, "moe_norm", 0); /* a TENorm: the router and experts follow */
      /* Megatron-Core's all-to-all dispatcher (core_v0.10.0 token_dispatcher.py): a rank
       * routes its 1/tp of the tokens (its sequence shard); the experts get ep ranks'
       * shares, gathered over etp (= tp unless folded) */
      if (l->sp || etp != l->tp) {
        gemm(&L, weft_opcost_router, 1, T / l->tp, l->experts, l->h, 1);
        per = per * etp / l->tp;
      } else { /* no SP, experts on TP: every TP rank routes all T (gen_transformer.c) */
        gemm(&L, weft_opcost_router, 1, T, l->experts, l->h, 1);
      }
      if (L.n >= 1 && L.n <= L.max) /* a plain nn.Parameter (TopKRouter): its weight
                                      * gradient is written, the hook adds it */
        L.ops[L.n - 1].bytes -= l->h * l->experts * (2 * L.gb - L.eb);
      double groups = l->experts / l->ep;
      mlp(&L, l, groups, per, l->moe_ffn, etp, 0); /* tokens by all-to-all, not gathered */
      if (l->shared > 0) mlp(&L, l, l->shared, T, l->moe_ffn, l->tp, 1); /* every token, locally */
      OcOp side[OC_MOE_MAX];
      int ns = weft_opcost_moe_side_ops(l, side);
      for (int i = 0; i < ns; i++) put(&L, &side[i]);
      residual(&L, l);
      break;
    }
    case OC_LOGITS:
      norm(&L, l, "final_norm", 0); /* the output layer: not a TE layer */
      gemm(&L, "logits", 1, T, l->vocab / l->tp, l->h, 1);
      cross_entropy(&L, l->ce, T * l->vocab / l->tp);
      break;
    case OC_EMB: { /* token rows gathered (+ learned positions added) */
      double e = T * l->h;
      int pos = l->learned_pos;
      vec(&L, "embedding", pos ? e : 0, (pos ? 3 : 2) * e * L.eb, WEFT_PHASE_WG);
      tag(&L, WM_COPY, 0, e);
      break;
    }
    default: break;
  }
  OcOp tops[OC_TORCH_MAX];
  int nt = weft_opcost_torch_ops(l, blk, tops);
  for (int i = 0; i < nt; i++) put(&L, &tops[i]);
  OcOp acc[OC_MG_MAX];
  int na = l->lora_rank > 0 ? 0 /* frozen: no gradient to add */
                            : weft_opcost_grad_accum_ops(l, blk, acc);
  for (int i = 0; i < na; i++) put(&L, &acc[i]);
  return L.n < max ? L.n : max;
}

void weft_opcost_fwd_gemm_op(const OcLayer *l, const char *name, double m, double n, double k,
                             OcOp *op) {
  OcOp ops[8];
  List L = layer_list(l, ops, 8);
  gemm8(&L, name, 1, m, n, k, 1, l->fp8);
  *op = ops[0];
}
