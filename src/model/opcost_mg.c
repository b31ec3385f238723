/* opcost_mg.c — the kernels Megatron-Core launches around Transformer
 * Engine's linear layers and attention (docs/zoo.md, "Around the linear
 * layers"), as Megatron-Core core_v0.8.0 (NeMo 24.07) runs them with TE
 * v1.8: rotary embedding, the query copy and gradient concatenation of the
 * fused QKV projection, and the gradients its DDP hooks add into main_grad. */
#include "model/opcost.h"

/* Fused RoPE (rotary_pos_embedding.py, apply_rotary_pos_emb ->
 * fused_apply_rotary_pos_emb): out = x cos + rotate_half(x) sin, 2
 * multiplies and 1 add an element; the angles read from the fp32 freqs
 * tensor [s, 1, 1, d] (RotaryEmbedding.forward builds it in fp32). */
#define ROPE_FLOPS 3.0
#define FREQ_BYTES 4.0

static OcOp vop(const char *name, int phase, double flops, double bytes) {
  OcOp o = {name, phase, OC_VECTOR, 0, 0, 0, 0, flops, bytes, 0, 0, 0, 0, 0, 0, 0, 0};
  return o;
}

/* RoPE as eager PyTorch runs torchtitan's apply_rotary_emb (torchtitan/
 * models/llama/model.py @9dec370; WeftParallel.rope_eager) on a tensor of e
 * elements: x.float() (eb + 4)e, the complex product with freqs_cis (read
 * and written in fp32, 8e, and the complex64 angles, s d / 2 x 8 bytes),
 * type_as (4 + eb)e; the backward the same three (the gradient to fp32,
 * times the conjugate angles, back to eb). 3 FLOPs a real element (a
 * complex product is 6 for 2). */
static int eager_rope(const char *name, double e, double fb, double eb, OcOp *ops) {
  int n = 0;
  for (int ph = WEFT_PHASE_FWD; ph <= WEFT_PHASE_IG; ph++) {
    ops[n++] = vop(name, ph, 0, (eb + 4) * e);
    ops[n++] = vop(name, ph, ROPE_FLOPS * e, 8 * e + fb);
    ops[n++] = vop(name, ph, 0, (4 + eb) * e);
  }
  return n;
}

int weft_opcost_qkv_side_ops(const OcLayer *l, OcOp *ops) {
  int n = 0, mla = l->kv_lora > 0;
  double T = l->b * l->s, eb = l->act_bytes, a = l->heads / l->tp, kvh = l->kv_heads / l->tp;
  if (l->rotary) { /* attention.py, Attention.forward: query, then key */
    double d = mla ? l->rope : l->dqk;   /* MLA: the rope dims only, k_pe one head */
    double eq = T * a * d, ek = T * (mla ? 1 : kvh) * d, fb = l->s * d * FREQ_BYTES;
    if (l->rope_eager) { /* the complex64 angles, s x d / 2 x 8 bytes: fb too */
      n += eager_rope("rope_q_eager", eq, fb, eb, ops + n);
      n += eager_rope("rope_k_eager", ek, fb, eb, ops + n);
    } else {
      ops[n++] = vop("rope_q", WEFT_PHASE_FWD, ROPE_FLOPS * eq, 2 * eq * eb + fb);
      ops[n++] = vop("rope_k", WEFT_PHASE_FWD, ROPE_FLOPS * ek, 2 * ek * eb + fb);
      ops[n++] = vop("rope_q", WEFT_PHASE_IG, ROPE_FLOPS * eq, 2 * eq * eb + fb);
      ops[n++] = vop("rope_k", WEFT_PHASE_IG, ROPE_FLOPS * ek, 2 * ek * eb + fb);
    }
  }
  if (mla || l->torch) return n; /* torch layers: q, k, v views of their own GEMMs' */
  int gqa = l->kv_heads < l->heads;
  /* SelfAttention.get_query_key_value_tensors splits [s, b, ng, (np/ng + 2)
   * hn] along its last dim; query.reshape to [s, b, np, hn] cannot be a
   * view when np/ng > 1 (the groups' stride is (np/ng + 2) hn): a copy */
  if (gqa) ops[n++] = vop("query_copy", WEFT_PHASE_FWD, 0, 2 * T * a * l->dqk * eb);
  /* TE's _SplitAlongDim.backward returns the gradients' buffer as is only
   * when dQ, dK, dV are adjacent views of one; after RoPE (new tensors) or
   * the query's copy they are not: torch.cat reads and writes them */
  if (gqa || l->rotary)
    ops[n++] = vop("qkv_grad_cat", WEFT_PHASE_IG, 0,
                   2 * T * (a * l->dqk + kvh * (l->dqk + l->dv)) * eb);
  return n;
}

/* main_grad.add_(param.grad) of e elements (DistributedDataParallel's
 * _make_param_hook, every micro-batch's backward): the gradient read at the
 * parameters' width, main_grad read and written at its own. */
static OcOp accum(const char *name, double e, double pb, double gb) {
  return vop(name, WEFT_PHASE_WG, e, e * (pb + 2 * gb));
}

int weft_opcost_grad_accum_ops(const OcLayer *l, OcBlock blk, OcOp *ops) {
  int n = 0, ln = l->layernorm, lb = l->bias; /* LayerNorm's bias; linear biases */
  double pb = l->param_bytes > 0 ? l->param_bytes : l->act_bytes;
  double gb = l->grad_bytes > 0 ? l->grad_bytes : l->act_bytes, h = l->h, tp = l->tp;
  const char *gain = "grad_accum_norm", *bias = "grad_accum_norm_bias";
  switch (blk) { /* a norm's gain (and bias) are not TE's fused-wgrad weights */
    case OC_ATTN:
      ops[n++] = accum(gain, h, pb, gb);
      if (ln) ops[n++] = accum(bias, h, pb, gb);
      if (l->kv_lora > 0) { /* MLA's latent RMSNorms */
        if (l->q_lora > 0) ops[n++] = accum(gain, l->q_lora, pb, gb);
        ops[n++] = accum(gain, l->kv_lora, pb, gb);
      }
      if (lb) { /* the bias gradients TE returns (a GEMM epilogue or the FP8 cast's) */
        double qkv = (l->heads * l->dqk + l->kv_heads * (l->dqk + l->dv)) / tp;
        ops[n++] = accum("grad_accum_qkv_bias", qkv, pb, gb);
        ops[n++] = accum("grad_accum_proj_bias", h, pb, gb);
      }
      break;
    case OC_MLP:
      ops[n++] = accum(gain, h, pb, gb);
      if (ln) ops[n++] = accum(bias, h, pb, gb);
      if (lb) {
        ops[n++] = accum("grad_accum_fc1_bias", l->ffn / tp, pb, gb);
        ops[n++] = accum("grad_accum_fc2_bias", h, pb, gb);
      }
      break;
    case OC_MOE: /* the router's weight is a plain nn.Parameter (TopKRouter) */
      ops[n++] = accum(gain, h, pb, gb);
      if (ln) ops[n++] = accum(bias, h, pb, gb);
      ops[n++] = accum("grad_accum_router", l->experts * h, pb, gb);
      break;
    case OC_LOGITS: /* the output layer's weight: fused (gradient_accumulation_fusion) */
      ops[n++] = accum(gain, h, pb, gb);
      if (ln) ops[n++] = accum(bias, h, pb, gb);
      break;
    case OC_EMB: { /* F.embedding's backward (PyTorch's embedding_dense_backward_cuda)
                    * makes a dense gradient of the table, at::zeros first, then the
                    * hook adds all of it: V / tp rows (VocabParallelEmbedding) */
      double v = l->vocab / tp * h;
      ops[n++] = vop("embedding_grad_zero", WEFT_PHASE_WG, 0, v * pb);
      ops[n++] = accum("grad_accum_embedding", v, pb, gb);
      if (l->learned_pos) { /* learned positions: a table of kv_len (the sequence) rows */
        double p = l->kv_len * h;
        ops[n++] = vop("embedding_grad_zero", WEFT_PHASE_WG, 0, p * pb);
        ops[n++] = accum("grad_accum_embedding", p, pb, gb);
      }
      break;
    }
    default: break;
  }
  return n;
}
