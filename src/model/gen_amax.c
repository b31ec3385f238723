/* gen_amax.c — FP8's amax all-reduces, blocking and latency-bound, timed
 * by NCCL's own latency model (docs/zoo.md, "FP8"): delayed scaling's of
 * an FP8 region's amaxes over the pipeline stage's ranks, current
 * scaling's of a sequence-parallel GEMM operand's over TP. */
#include "model/gen.h"

/* NCCL's tuning model (src/graph/tuning.cc, v2.21.5 to v2.23.4 alike), in
 * us: the base latency of the LL protocol's tree and ring, and the per-hop
 * hardware latency of LL on NVLink and of LL tree and ring on the network;
 * a ring's intra-node steps cost at least the network overhead when it
 * spans nodes (getNetOverhead: 1 us on x86 Intel, a DGX H100's CPUs). The
 * amaxes are a few KB: LL, latency-bound; NCCL takes the faster of the two. */
#define NCCL_LL_TREE_BASE_US 6.8
#define NCCL_LL_RING_BASE_US 6.6
#define NCCL_LL_NVLINK_US 0.6
#define NCCL_LL_NET_TREE_US 5.0
#define NCCL_LL_NET_RING_US 2.7
#define NCCL_NET_OVERHEAD_US 1.0

static int log2i(long long n) { /* NCCL's: floor(log2 n), 0 for n <= 1 */
  int l = 0;
  while (n > 1) {
    n >>= 1;
    l++;
  }
  return l;
}

double weft_nccl_ll_allreduce_ns(long long ranks, long long nodes) {
  if (ranks < 2) return 0.0;
  if (nodes < 1) nodes = 1;
  long long ppn = ranks / nodes;
  double ring, tree;
  if (nodes == 1) { /* one node: every hop NVLink */
    ring = NCCL_LL_RING_BASE_US + 2.0 * (double)(ranks - 1) * NCCL_LL_NVLINK_US;
    tree = NCCL_LL_TREE_BASE_US + 2.0 * (double)(ppn - 1) * NCCL_LL_NVLINK_US;
  } else {
    double steps = 2.0 * (double)(ranks - 1), inter = 2.0 * (double)nodes;
    double intra = NCCL_LL_NVLINK_US > NCCL_NET_OVERHEAD_US ? NCCL_LL_NVLINK_US : NCCL_NET_OVERHEAD_US;
    ring = NCCL_LL_RING_BASE_US + (steps - inter) * intra + inter * NCCL_LL_NET_RING_US;
    tree = NCCL_LL_TREE_BASE_US +
           2.0 * ((double)(ppn - 1) * NCCL_LL_NVLINK_US + log2i(nodes) * NCCL_LL_NET_TREE_US);
  }
  return 1e3 * (ring < tree ? ring : tree);
}

/* The reduction group's ranks on each dim: the stage's (TP x CP x DP,
 * Megatron-Core's amax reduction group), the dim's NPUs over the
 * pipeline's span there; or TP x CP's (--tp-only-amax-red). The first dim
 * is the node (NVLink), the others the network. */
static double region_ns(const Gen *g) {
  const WeftNetwork *net = g->net;
  int mode = g->par->fp8_amax_reduce;
  if (mode == WEFT_AMAX_OFF) return 0.0;
  long long ranks = 1, nodes = 1;
  for (int d = 0; d < net->ndims; d++) {
    int pp = g->span[GEN_PP][d] > 1 ? g->span[GEN_PP][d] : 1, n = net->npus[d] / pp;
    if (mode == WEFT_AMAX_TP) /* TP and CP only */
      n = (g->span[GEN_TP][d] > 1 ? g->span[GEN_TP][d] : 1) *
          (g->span[GEN_CP][d] > 1 ? g->span[GEN_CP][d] : 1);
    ranks *= n;
    if (d > 0) nodes *= n;
  }
  return weft_nccl_ll_allreduce_ns(ranks, nodes);
}

/* One all-reduce of a tensor's amax over TP (its nodes: TP's span past the
 * first dim). */
static double tp_ns(const Gen *g) {
  long long nodes = 1;
  for (int d = 1; d < g->net->ndims; d++)
    if (g->span[GEN_TP][d] > 1) nodes *= g->span[GEN_TP][d];
  return weft_nccl_ll_allreduce_ns(g->par->tp, nodes);
}

double weft_gen_amax_block_ns(const Gen *g, int attn, double region_share) {
  const WeftParallel *p = g->par;
  double ns = 0.0;
  /* Delayed scaling: an FP8 region (a model chunk, one micro-batch) ends its
   * forward with a blocking amax all-reduce, and its backward with another
   * (TE 1.12 fp8.py, fp8_autocast_exit; the first module's backward),
   * carried by the attention blocks, region_share of one each. */
  if (attn && p->fp8 == WEFT_FP8_DELAYED) ns += region_ns(g) * region_share;
  /* Current scaling (and NVFP4's per-tensor scale) with sequence parallelism:
   * the FP8 copy TP all-gathers needs one scale on every TP rank, so the
   * column-parallel GEMM's input amax (QKV, fc1; forward) and the row-
   * parallel one's output-gradient amax (proj, fc2; input-grad) are all-
   * reduced over TP, blocking (TE 2.8 linear.py, layernorm_linear.py
   * _customize_quantizers_float8_current_scaling: with_amax_reduction;
   * quantizer.cpp: allreduce(...)->wait()): one a pass in each block. */
  if (p->sequence_parallel && p->tp > 1 && (p->fp8 == WEFT_FP8_CURRENT || p->fp8 == WEFT_FP8_NVFP4))
    ns += tp_ns(g);
  return ns;
}
