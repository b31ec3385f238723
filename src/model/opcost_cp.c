/* opcost_cp.c — context parallelism's attention core as Transformer Engine's
 * P2P ring runs it (AttnFuncWithCPAndKVP2P, Megatron-Core's default
 * cp_comm_type "p2p"; docs/zoo.md, "Context parallelism"), read from
 * transformer_engine/pytorch/attention/dot_product_attention/
 * context_parallel.py (TransformerEngine commit d0067d0, 2026-08), BF16,
 * sbhd/bshd layouts:
 *
 * Each rank holds 2 chunks of c = s / (2 cp) tokens (chunk r and 2cp-1-r:
 * the load balancing of a causal mask), S = 2c local queries. The forward
 * runs cp steps; step 0 attends the local queries to the local K, V (causal
 * on the 2c x 2c block), step i > 0 to the block of rank r - i, received
 * from the previous rank while step i - 1 ran. Under a causal mask the
 * steps i <= r see only the received block's first chunk (all S queries
 * against c keys), the steps i > r only the local second chunk's queries
 * (c against 2c): one non-causal kernel each, both of 2c^2 score pairs, as
 * the diagonal step's causal (2c)^2 / 2. Every step returns its output and
 * its softmax LSE (fp32); the LSEs merge step by step (a clone of step 0's,
 * then one pass per step: read both, write one) and, after the last step,
 * the outputs (step 0's scaled into the output, then each step's scaled
 * and added: read the output, the step's output and both LSEs, write the
 * output), on half the rows for the steps that saw half the queries. The
 * backward mirrors it: K, V travel the ring again with the dK, dV being
 * accumulated, and each step's dQ, dK, dV are copied or added into their
 * buffers (one kernel per tensor: torch copy_ / add_), half of them where
 * the step saw half the queries or keys. Without a causal mask every step
 * is whole (S x S). */
#include "model/opcost.h"

/* FLOPs an element of the merge passes: LSE merge max, min, subtract, exp,
 * log1p, add (6); output merge: subtract and exp per LSE element (2), a
 * multiply and an add per output element (2, the add 0 on step 0's). */
#define LSE_MERGE_FLOPS 6.0
#define OUT_SCALE_FLOPS 2.0

typedef struct {
  OcOp *ops;
  int n, max;
} Out;

static void put(Out *o, OcOp op) {
  if (!(op.count > 0)) return; /* no such kernel (cp = 2 has no middle steps) */
  if (o->n < o->max) o->ops[o->n] = op;
  o->n++;
}

/* K and V heads a rank's ring moves and its kernels read: PyTorch's ring
 * gets them repeated to every query head (torchtitan's repeat_kv before SDPA). */
static double kv_heads(const OcLayer *l) {
  return (l->cp_torch ? l->heads : l->kv_heads) / l->tp;
}

/* count flash kernels of q queries against kv keys (all heads of the rank),
 * causal on a q == kv block: FLOPs and bytes as the one-kernel model's
 * (opcost.c, attention) for that shape. */
static OcOp kernel(const OcLayer *l, int phase, double q, double kv, int causal, double count,
                   int role, int rank) {
  double a = l->heads / l->tp, kvh = kv_heads(l), w = l->dqk + l->dv;
  double pairs = l->b * a * q * kv * weft_opcost_causal_fraction(kv, causal);
  int fwd = phase == WEFT_PHASE_FWD;
  double flops = fwd ? 2 * pairs * w : 2 * pairs * (3 * l->dqk + 2 * l->dv);
  double bytes = (l->b * q * a * w + l->b * kv * kvh * w) * l->act_bytes * (fwd ? 1 : 2);
  return (OcOp){"cp_attn", phase, OC_FUSED, l->b * a, q, kv, w / 2, flops, bytes, 0, 0, 0, 0,
                causal, count, role, rank};
}

/* count memory-bound passes of bytes and flops each. */
static OcOp pass(const char *name, int phase, double flops, double bytes, double count, int rank) {
  return (OcOp){name, phase, OC_VECTOR, 0, 0, 0, 0, flops, bytes, 0, 0, 0, 0, 0, count, 0, rank};
}

/* PyTorch's ring (torch/distributed/tensor/experimental/_attention.py:
 * _templated_ring_attention and its backward, _SDPAMerger, convert_to_f32
 * and enable_load_balance on, as torchtitan runs it; docs/zoo.md, "Context
 * parallelism"): the same load-balanced steps and kernels as Transformer
 * Engine's, K and V at every query head (repeat_kv), and eager torch ops
 * around them, each one kernel, its bytes read and written:
 *   forward: K, V made contiguous (2 copies); torch.cat of K, V for the
 *   rotater before every step but the last; each step's output cast to
 *   fp32; a whole step's merge out - sigmoid(lse_b - lse) (out - out_b)
 *   (3 kernels over the fp32 output) and lse - logsigmoid(lse - lse_b)
 *   (5 over the LSE, with the sigmoid's); a step that saw half the queries
 *   (the first rank's) merges into halves and rebuilds the output and LSE
 *   by torch.cat (_partial_update); the result cast back to bf16.
 *   backward: fp32 zeros for dQ, dK, dV; K, V contiguous again and
 *   concatenated before every step but the last; each step's dQ, dK, dV
 *   (bf16) added into the fp32 sums, a half-sized one into a chunk and the
 *   tensor rebuilt by torch.cat (dK, dV on the last rank, dQ on the first);
 *   the fp32 dK, dV concatenated every step for the send; the first rank's
 *   LSE half made contiguous; dQ and dK, dV cast to bf16 at the end. */
static int torch_ops(const OcLayer *l, OcOp *ops, int max) {
  Out o = {ops, 0, max};
  double cp = l->cp, S = l->s, c = S / 2, a = l->heads / l->tp, eb = l->act_bytes, f = 4;
  double Qe = l->b * S * a * l->dqk, Oe = l->b * S * a * l->dv; /* elements */
  double KV = weft_opcost_cp_block_bytes(l), KVe = KV / eb, Le = l->b * a * S; /* K, V: a heads */
  const int F = WEFT_PHASE_FWD, B = WEFT_PHASE_IG, X = OC_CP_LAST, Y = OC_CP_FIRST;
  /* forward, every rank */
  put(&o, pass("cp_kv_contig", F, 0, KV, 2, OC_CP_ALL));
  put(&o, pass("cp_kv_cat", F, 0, 2 * KV, cp - 1, OC_CP_ALL));
  put(&o, kernel(l, F, S, S, l->causal, 1, OC_CP_DIAGONAL, OC_CP_ALL));
  put(&o, pass("cp_out_f32", F, 0, Oe * (eb + f), 1, OC_CP_ALL));  /* step 0's */
  put(&o, pass("cp_out_bf16", F, 0, Oe * (f + eb), 1, OC_CP_ALL)); /* the result */
  /* the last rank: every step whole */
  put(&o, kernel(l, F, S, c, 0, cp - 1, OC_CP_OFF_DIAGONAL, X));
  put(&o, pass("cp_out_f32", F, 0, Oe * (eb + f), cp - 1, X));
  put(&o, pass("cp_out_merge", F, Oe, (8 * f * Oe + f * Le) / 3, 3 * (cp - 1), X));
  put(&o, pass("cp_lse_merge", F, Le, 13 * f * Le / 5, 5 * (cp - 1), X));
  /* the first rank: its second chunk's queries, merged into halves */
  put(&o, kernel(l, F, c, S, 0, cp - 1, OC_CP_OFF_DIAGONAL, Y));
  put(&o, pass("cp_out_f32", F, 0, Oe / 2 * (eb + f), cp - 1, Y));
  put(&o, pass("cp_out_merge", F, Oe / 2, (4 * f * Oe + f * Le / 2) / 3, 3 * (cp - 1), Y));
  put(&o, pass("cp_out_cat", F, 0, 2 * f * Oe, cp - 1, Y));
  put(&o, pass("cp_lse_merge", F, Le / 2, 6.5 * f * Le / 5, 5 * (cp - 1), Y));
  put(&o, pass("cp_lse_cat", F, 0, 2 * f * Le, cp - 1, Y));
  /* backward, every rank */
  put(&o, pass("cp_grad_zero", B, 0, f * (Qe + KVe) / 3, 3, OC_CP_ALL));
  put(&o, pass("cp_kv_contig", B, 0, KV, 2, OC_CP_ALL));
  put(&o, pass("cp_kv_cat", B, 0, 2 * KV, cp - 1, OC_CP_ALL));
  put(&o, kernel(l, B, S, S, l->causal, 1, OC_CP_DIAGONAL, OC_CP_ALL));
  put(&o, pass("cp_dkv_add", B, KVe / 2, (2 * f + eb) * KVe / 2, 2, OC_CP_ALL)); /* step 0 */
  put(&o, pass("cp_dq_add", B, Qe, (2 * f + eb) * Qe, 1, OC_CP_ALL));            /* step 0 */
  put(&o, pass("cp_dkv_cat", B, 0, 2 * f * KVe, cp, OC_CP_ALL));
  put(&o, pass("cp_grad_bf16", B, 0, (Qe + KVe) * (f + eb) / 2, 2, OC_CP_ALL));
  /* the last rank: dK, dV halves added into chunks, dQ whole */
  put(&o, kernel(l, B, S, c, 0, cp - 1, OC_CP_OFF_DIAGONAL, X));
  put(&o, pass("cp_dkv_add", B, KVe / 4, (2 * f + eb) * KVe / 4, 2 * (cp - 1), X));
  put(&o, pass("cp_dkv_chunk_cat", B, 0, f * KVe, 2 * (cp - 1), X));
  put(&o, pass("cp_dq_add", B, Qe, (2 * f + eb) * Qe, cp - 1, X));
  /* the first rank: dK, dV whole, dQ halves added into a chunk */
  put(&o, kernel(l, B, c, S, 0, cp - 1, OC_CP_OFF_DIAGONAL, Y));
  put(&o, pass("cp_lse_half", B, 0, f * Le, cp - 1, Y));
  put(&o, pass("cp_dkv_add", B, KVe / 2, (2 * f + eb) * KVe / 2, 2 * (cp - 1), Y));
  put(&o, pass("cp_dq_add", B, Qe / 2, (2 * f + eb) * Qe / 2, cp - 1, Y));
  put(&o, pass("cp_dq_chunk_cat", B, 0, 2 * f * Qe, cp - 1, Y));
  return o.n;
}

double weft_opcost_cp_block_bytes(const OcLayer *l) {
  return l->b * l->s * kv_heads(l) * (l->dqk + l->dv) * l->act_bytes;
}

int weft_opcost_cp_ops(const OcLayer *l, OcOp *ops, int max) {
  if (l->cp_torch) return torch_ops(l, ops, max);
  Out o = {ops, 0, max};
  double cp = l->cp, S = l->s, c = S / 2, a = l->heads / l->tp, eb = l->act_bytes;
  double KV = weft_opcost_cp_block_bytes(l);         /* K and V of the local tokens */
  double Q = l->b * S * a * l->dqk * eb;              /* local queries (and dQ) */
  double O = l->b * S * a * l->dv * eb;               /* local output */
  double Le = l->b * a * S, L = 4 * Le;               /* LSE elements, bytes (fp32) */
  double Oe = O / eb;
  const int F = WEFT_PHASE_FWD, B = WEFT_PHASE_IG;
  /* forward: K and V packed into the send buffer (torch.cat: read, write) */
  put(&o, pass("cp_kv_pack", F, 0, 2 * KV, 1, OC_CP_ALL));
  put(&o, kernel(l, F, S, S, l->causal, 1, OC_CP_DIAGONAL, OC_CP_ALL));
  put(&o, pass("cp_lse_init", F, 0, 2 * L, 1, OC_CP_ALL)); /* clone of step 0's LSE */
  put(&o, pass("cp_out_init", F, OUT_SCALE_FLOPS * Le + Oe, 2 * O + 2 * L, 1, OC_CP_ALL));
  /* backward: K, V copied into the ring buffer beside the dK, dV */
  put(&o, pass("cp_kv_pack", B, 0, 2 * KV, 1, OC_CP_ALL));
  put(&o, kernel(l, B, S, S, l->causal, 1, OC_CP_DIAGONAL, OC_CP_ALL));
  if (!l->causal) { /* every step whole, on every rank */
    put(&o, kernel(l, F, S, S, 0, cp - 1, OC_CP_OFF_DIAGONAL, OC_CP_ALL));
    put(&o, pass("cp_lse_merge", F, LSE_MERGE_FLOPS * Le, 3 * L, cp - 1, OC_CP_ALL));
    put(&o, pass("cp_out_merge", F, OUT_SCALE_FLOPS * (Le + Oe), 3 * O + 2 * L, cp - 1,
                 OC_CP_ALL));
    put(&o, kernel(l, B, S, S, 0, cp - 1, OC_CP_OFF_DIAGONAL, OC_CP_ALL));
    put(&o, pass("cp_dq_copy", B, 0, 2 * Q, 1, OC_CP_ALL));
    put(&o, pass("cp_dq_add", B, Q / eb, 3 * Q, cp - 1, OC_CP_ALL));
    put(&o, pass("cp_dkv_copy", B, 0, KV, 2, OC_CP_ALL));                  /* dK, dV */
    put(&o, pass("cp_dkv_add", B, KV / eb / 2, 1.5 * KV, 2 * (cp - 1), OC_CP_ALL));
    return o.n;
  }
  /* the last rank: every off-diagonal step all S queries against the
   * block's first chunk (c keys); merges on all rows */
  const int X = OC_CP_LAST, Y = OC_CP_FIRST;
  put(&o, kernel(l, F, S, c, 0, cp - 1, OC_CP_OFF_DIAGONAL, X));
  put(&o, pass("cp_lse_merge", F, LSE_MERGE_FLOPS * Le, 3 * L, cp - 1, X));
  put(&o, pass("cp_out_merge", F, OUT_SCALE_FLOPS * (Le + Oe), 3 * O + 2 * L, cp - 1, X));
  put(&o, kernel(l, B, S, c, 0, cp - 1, OC_CP_OFF_DIAGONAL, X));
  put(&o, pass("cp_dq_copy", B, 0, 2 * Q, 1, X));                 /* step 0 */
  put(&o, pass("cp_dq_add", B, Q / eb, 3 * Q, cp - 1, X));        /* the others */
  put(&o, pass("cp_dkv_copy", B, 0, KV / 2, 2, X));               /* step 0: dK, dV first halves */
  put(&o, pass("cp_dkv_add", B, KV / eb / 4, 0.75 * KV, 2 * (cp - 2), X)); /* middle: halves */
  put(&o, pass("cp_dkv_add", B, KV / eb / 2, 1.5 * KV, 2, X));    /* diagonal step: whole */
  /* the first rank: every off-diagonal step its second chunk's c queries
   * against the whole block (2c keys); merges on half the rows; its
   * backward first copies the second half of its LSE out */
  put(&o, kernel(l, F, c, S, 0, cp - 1, OC_CP_OFF_DIAGONAL, Y));
  put(&o, pass("cp_lse_merge", F, LSE_MERGE_FLOPS * Le / 2, 1.5 * L, cp - 1, Y));
  put(&o, pass("cp_out_merge", F, OUT_SCALE_FLOPS * (Le + Oe) / 2, 1.5 * O + L, cp - 1, Y));
  put(&o, pass("cp_lse_half", B, 0, L, 1, Y));
  put(&o, kernel(l, B, c, S, 0, cp - 1, OC_CP_OFF_DIAGONAL, Y));
  put(&o, pass("cp_dq_copy", B, 0, Q, 2, Y));                     /* step 0, diagonal: halves */
  put(&o, pass("cp_dq_add", B, Q / eb / 2, 1.5 * Q, cp - 1, Y));  /* halves */
  put(&o, pass("cp_dkv_copy", B, 0, KV, 2, Y));                   /* step 0: whole dK, dV */
  put(&o, pass("cp_dkv_add", B, KV / eb / 2, 1.5 * KV, 2 * (cp - 2), Y)); /* middle: whole */
  put(&o, pass("cp_dkv_add", B, KV / eb / 4, 0.75 * KV, 2, Y));   /* diagonal: first halves */
  put(&o, pass("cp_dkv_copy", B, 0, KV / 2, 2, Y));               /* diagonal: second halves */
  return o.n;
}
