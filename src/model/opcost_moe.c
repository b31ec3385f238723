/* opcost_moe.c — the kernels of a MoE layer around its router and expert
 * GEMMs (docs/zoo.md, "Around the MoE GEMMs"), as Megatron-Core
 * core_v0.10.0 (NeMo 24.12) runs them with the all-to-all token dispatcher
 * and its defaults (moe_permute_fusion off, no router fusion): the router's
 * top-k, softmax, capacity mask and load-balancing loss in eager PyTorch
 * (transformer/moe/router.py TopKRouter, moe_utils.py
 * topk_softmax_with_capacity and switch_load_balancing_loss_func), the
 * tokens' permutation before the all-to-all and its inverse after
 * (moe_utils.py permute, unpermute), and the chunks sorted by local expert
 * when a rank holds several (sort_chunks_by_idxs). */
#include <math.h>

#include "model/opcost.h"

/* Small kernels on the router's [tokens x experts] tensors: each one charged
 * as reading and writing one such tensor in fp32 (8 bytes an element, an
 * upper bound on every one of them; they are launch-bound). Counted in
 * core_v0.10.0's code, training, top-k after the softmax (the default):
 * forward, topk_softmax_with_capacity: topk, softmax, type_as, zeros_like,
 * scatter (clone + scatter), zeros_like, int, scatter (clone + scatter),
 * bool, sum, then the capacity mask: topk over the tokens, zeros_like,
 * scatter (clone + scatter), bool, the product with the mask (18); the aux
 * loss's softmax, probs.sum, product, sum, scale (5); the loss tracker's
 * divide and add (2); the dispatcher's routing_map.sum and long (2): 27.
 * Backward (autograd): the mask product, the scatter's gather, type_as,
 * softmax, top-k's zeros and scatter, the aux-loss scaler's ones_like and
 * scale, the loss's scale, product, sum and softmax backward, its cast, the
 * two logits gradients added: 14. */
#define ROUTER_FWD_KERNELS 27.0
#define ROUTER_BWD_KERNELS 14.0
/* --moe-router-fusion (Megatron-Core @d98e8a6 router.py, moe_utils.py with
 * fused=True -> Transformer Engine @d0067d0 pytorch/router.py): one kernel
 * each way for the top-k with its score function
 * (FusedTopkScoreFunction), the aux loss's scores
 * (FusedComputeScoresForMoEAuxLoss) and the aux loss (FusedAuxLoss); the
 * tracker's 2 and the dispatcher's 2 stay: 7 forward; backward the 3 and
 * the scaler's ones_like and scale: 5. */
#define ROUTER_FUSED_FWD_KERNELS 7.0
#define ROUTER_FUSED_BWD_KERNELS 5.0
/* permute: routing_map.T.contiguous, arange, masked_select (nonzero, its
 * size read back, the gather: 3); unpermute: probs.T.contiguous,
 * routing_map.T.contiguous, masked_select (3). Backward: masked_select's
 * (zeros, masked_scatter) and the transposes' copies. */
#define PERMUTE_FWD_KERNELS 5.0
#define UNPERMUTE_FWD_KERNELS 5.0
#define PERMUTE_BWD_KERNELS 4.0
/* int64 indices (sorted_indices) */
#define INDEX_BYTES 8.0
/* The flex dispatcher with DeepEP (Megatron-Core core_r0.16.0 b0cc2706,
 * token_dispatcher.py _DeepepManager, fused_a2a.py fused_dispatch), forward
 * only (the backward reuses the dispatch's handle): setup_metadata's topk
 * over the probabilities and their cast to fp32 (a bf16 router: 2);
 * get_dispatch_layout and DeepEP's notify_dispatch (2); _indices_to_multihot
 * on the received tokens: two zeros, the != mask, indices[mask] (nonzero and
 * gather), arange, mask.sum, repeat_interleave (cumsum and fill), the
 * index_put, probs[mask] (nonzero and gather), the second index_put, .bool()
 * (14). */
#define DEEPEP_FWD_KERNELS 18.0
/* HybridEP (core_r0.16.0 fused_a2a.py HybridEPDispatch): its preprocessing
 * kernel on the gathered routing map, forward only. */
#define HYBRIDEP_FWD_KERNELS 1.0

static OcOp vop(const char *name, int phase, double bytes, double count) {
  OcOp o = {name, phase, OC_VECTOR, 0, 0, 0, 0, 0, bytes, 0, 0, 0, 0, 0, count, 0, 0};
  return o;
}

/* --moe-permute-fusion (Megatron-Core core_v0.11.0 moe_utils.py permute,
 * unpermute, sort_chunks_by_idxs with fused=True -> Transformer Engine
 * v2.1 transformer_engine/pytorch/permutation.py, map_type "mask", and its
 * Triton kernels in pytorch/triton/permutation.py): the row map built in
 * two passes over the routing map (make_row_id_map: 2 kernels, int32),
 * then one kernel each way: _permute_kernel reads each token's row once and
 * writes its k copies (y + x, the map 4 R); _unpermute_kernel reads the N
 * rows and the merging probabilities and writes the token rows (x + R eb +
 * y); backward the unpermute's gradient kernel reads the output gradient
 * and the forward's N rows (for the probabilities' gradient) and writes the
 * N rows' gradient and the probabilities' (y + 2 x + R eb), and the
 * permute's is an unpermute without probabilities (x + y). */
static int fused_permute(OcOp *ops, double R, double x, double y, double eb) {
  int n = 0;
  const int F = WEFT_PHASE_FWD, B = WEFT_PHASE_IG;
  ops[n++] = vop("moe_row_id_map", F, 8 * R, 2);
  ops[n++] = vop("moe_permute", F, x + y + 4 * R, 1);
  ops[n++] = vop("moe_unpermute", F, x + y + R * eb + 4 * R, 1);
  ops[n++] = vop("moe_unpermute", B, 2 * x + y + R * eb + 4 * R, 1);
  ops[n++] = vop("moe_permute", B, x + y + 4 * R, 1);
  return n;
}

/* Blocked routing: token t to experts tk .. tk + k - 1 (mod E), the ranks
 * holding per = E / ep each. The starts s = tk mod E run over the multiples
 * of g = gcd(E, k), each once a period; with k - 1 = q per + r, the block
 * from s spans q + 1 ranks, one more when s mod per >= per - r (at most ep).
 * s mod per runs evenly over the multiples of h = gcd(g, per), so the mean
 * is closed: a loop over the period would take E / g steps. */
static long long gcd_ll(long long a, long long b) {
  while (b) {
    long long r = a % b;
    a = b;
    b = r;
  }
  return a;
}

static double blocked_ranks(long long E, long long k, long long ep) {
  long long per = E / ep, q = (k - 1) / per, r = (k - 1) % per;
  long long h = gcd_ll(gcd_ll(E, k), per), cls = per / h; /* s mod per: cls values */
  long long more = cls - (per - r + h - 1) / h;         /* of them >= per - r */
  double lo = (double)(q + 1 < ep ? q + 1 : ep), hi = (double)(q + 2 < ep ? q + 2 : ep);
  return ((double)(cls - more) * lo + (double)more * hi) / (double)cls;
}

double weft_opcost_moe_dispatch_copies(int dispatcher, int routing, double experts, double top_k,
                                       double ep) {
  if (dispatcher == WEFT_MOE_ALLTOALL || ep <= 1) return top_k;
  long long E = (long long)experts, k = (long long)top_k, P = (long long)ep;
  if (routing == WEFT_ROUTING_BLOCKED && E >= P && E % P == 0 && k >= 1 && k <= E)
    return blocked_ranks(E, k, P);
  /* random: a rank holds none of the k chosen experts with C(E - per, k) / C(E, k), a
   * product of k factors; past 64 of them (no zoo model routes to as many) by lgamma, so
   * that a hostile top_k costs no time */
  double none = 1.0, per = experts / ep;
  if (top_k > experts - per) none = 0.0; /* k exceed the other ranks' experts: every rank */
  else if (top_k <= 64)
    for (int i = 0; i < (int)top_k; i++) none *= (experts - per - i) / (experts - i);
  else
    none = exp(lgamma(experts - per + 1) - lgamma(experts - per - top_k + 1) +
               lgamma(experts - top_k + 1) - lgamma(experts + 1));
  return ep * (1 - none);
}

int weft_opcost_moe_side_ops(const OcLayer *l, OcOp *ops) {
  int n = 0;
  double etp = l->etp > 0 ? l->etp : l->tp;
  /* the tokens the rank routes: its sequence shard with the dispatcher (SP,
   * or experts folded off TP), else all of them (weft_opcost_ops' router) */
  double Tr = l->b * l->s / (l->sp || etp != l->tp ? l->tp : 1);
  double R = Tr * l->experts, N = Tr * l->top_k, eb = l->act_bytes, h = l->h;
  double x = N * h * eb, y = Tr * h * eb; /* the routed copies; the layer's tokens */
  const int F = WEFT_PHASE_FWD, B = WEFT_PHASE_IG;
  int rf = l->router_fusion, flex = l->dispatcher != WEFT_MOE_ALLTOALL;
  ops[n++] = vop("moe_router_small", F, 8 * R, rf ? ROUTER_FUSED_FWD_KERNELS : ROUTER_FWD_KERNELS);
  ops[n++] = vop("moe_router_small", B, 8 * R, rf ? ROUTER_FUSED_BWD_KERNELS : ROUTER_BWD_KERNELS);
  if (flex) /* the flex dispatcher permutes the received copies, one per source rank and
             * token, into the N expert rows after the dispatch, and back before the combine */
    y = Tr * h * eb *
        weft_opcost_moe_dispatch_copies(l->dispatcher, l->routing, l->experts, l->top_k, l->ep);
  if (l->dispatcher == WEFT_MOE_HYBRIDEP) { /* HybridEP's own permute and unpermute stages
                                             * (hybrid_ep executor.cu), a pass each way */
    ops[n++] = vop("moe_hybridep_small", F, 8 * R, HYBRIDEP_FWD_KERNELS);
    ops[n++] = vop("moe_permute", F, x + y, 1);
    ops[n++] = vop("moe_unpermute", F, x + y, 1);
    ops[n++] = vop("moe_unpermute", B, x + y, 1);
    ops[n++] = vop("moe_permute", B, x + y, 1);
    return n; /* no chunk sort; the FP8 padding in its permute (TE's Fp8Padding then
               * finds the counts aligned and copies nothing) */
  }
  if (l->dispatcher == WEFT_MOE_DEEPEP)
    ops[n++] = vop("moe_deepep_small", F, 8 * R, DEEPEP_FWD_KERNELS);
  if (l->permute_fusion) { /* TE's fused kernels (below) */
    n += fused_permute(ops + n, R, x, y, eb);
  } else {
    /* permute: tokens.index_select(0, sorted_indices): N rows gathered */
    ops[n++] = vop("moe_permute_small", F, 8 * R, PERMUTE_FWD_KERNELS);
    ops[n++] = vop("moe_permute", F, 2 * x + INDEX_BYTES * N, 1);
    /* unpermute: tokens x probs (read, written), zeros for the output,
     * scatter_add_ of the N rows into it (read, the output read and written) */
    ops[n++] = vop("moe_unpermute_small", F, 8 * R, UNPERMUTE_FWD_KERNELS);
    ops[n++] = vop("moe_unpermute_probs", F, 2 * x + N * eb, 1);
    ops[n++] = vop("moe_unpermute_zeros", F, y, 1);
    ops[n++] = vop("moe_unpermute_scatter", F, x + 2 * y + INDEX_BYTES * N, 1);
    /* backward: scatter_add's gather (the output gradient's rows, N written);
     * the product's two gradients: dC x probs (2 x + N eb), dC x tokens (3 x)
     * summed over h (x + N eb); index_select's: zeros, then index_add_ of the
     * N rows (read, the output read and written) */
    ops[n++] = vop("moe_unpermute_gather", B, x + y + INDEX_BYTES * N, 1);
    ops[n++] = vop("moe_unpermute_probs", B, 2 * x + N * eb, 1);
    ops[n++] = vop("moe_unpermute_probs_grad", B, 3 * x, 1);
    ops[n++] = vop("moe_unpermute_probs_sum", B, x + N * eb, 1);
    ops[n++] = vop("moe_permute_small", B, 8 * R, PERMUTE_BWD_KERNELS);
    ops[n++] = vop("moe_permute_zeros", B, y, 1);
    ops[n++] = vop("moe_permute_index_add", B, x + 2 * y + INDEX_BYTES * N, 1);
  }
  if (!flex && l->experts / l->ep > 1) { /* sort_chunks_by_idxs, to and from expert order: a
                                 * torch.cat of the N x etp gathered rows each, and its
                                 * backward's (torch.split's gradient is a cat); fused:
                                 * TE's sort_chunks_by_idx kernel, the same bytes */
    ops[n++] = vop("moe_sort_chunks", F, 2 * x * etp, 2);
    ops[n++] = vop("moe_sort_chunks", B, 2 * x * etp, 2);
  }
  if (l->fp8) { /* FP8 (any recipe) grouped experts behind the all-to-all dispatcher
                 * (Megatron-Core core_v0.10.0 to 2026-08, TEGroupedMLP.forward: Fp8Padding
                 * then Fp8Unpadding; TE v1.13 fp8_padding.py fused_multi_row_padding, its
                 * backward a torch.cat of the row slices; fp8_unpadding.py the reverse):
                 * the N etp expert rows copied into 16-row-aligned chunks and the outputs
                 * back, a kernel each, each way */
    ops[n++] = vop("moe_fp8_padding", F, 2 * x * etp, 2);
    ops[n++] = vop("moe_fp8_padding", B, 2 * x * etp, 2);
  }
  return n;
}
