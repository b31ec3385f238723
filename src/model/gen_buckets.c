/* gen_buckets.c — data-parallel gradient buckets (docs/zoo.md, "Gradient
 * buckets"), ZeRO 0-2, as Megatron-Core's DDP fills them: in backward order,
 * a bucket's reduction starts at the layer entry whose gradients fill it to
 * the bucket size (whole entries here; dense parameters over DP, experts'
 * over EDP in buckets of their own); each model chunk's last bucket at its
 * lowest entry. Without overlap, one bucket per chunk, all at the stage's
 * first entry (the end of the backward); ZeRO 1-2's parameter all-gathers
 * go with their buckets, or, without overlap_param_gather, all at that
 * first entry. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/gen.h"
#include "model/zoo.h"

/* Megatron-Core's default bucket: max(4e7, 1e6 x the DP size) parameters
 * (DistributedDataParallelConfig.bucket_size). */
#define BUCKET_MIN_PARAMS 4e7
#define BUCKET_PARAMS_PER_RANK 1e6

/* Parameters of layer i's entry e (0 attn, 1 mlp/moe) of kind x (0 dense, 1 expert). */
static double entry_elems(const Gen *g, const GenEntryParams *lp, int i, int e, int x) {
  if (e == 0) return x ? 0 : lp->attn;
  if (!(g->m->experts > 0 && weft_model_moe_layers(g->m, i, i))) return x ? 0 : lp->mlp;
  return x ? lp->moe_expert : lp->moe_dense;
}

int weft_gen_buckets_plan(const Gen *g, const GenLayerParams *lp, int first, int nlayers, int v,
                          const int *chunk_lo, const int *chunk_n, GenBuckets *bk) {
  const WeftParallel *p = g->par;
  memset(bk, 0, sizeof *bk);
  int span = nlayers; /* layers first..first+span-1 hold the stage's */
  if (chunk_lo) { /* placed chunks: from the lowest layer to the highest */
    int lo = 0, hi = 0;
    for (int c = 0; c < v; c++)
      if (chunk_n[c] > 0) {
        if (!lo || chunk_lo[c] < lo) lo = chunk_lo[c];
        if (chunk_lo[c] + chunk_n[c] - 1 > hi) hi = chunk_lo[c] + chunk_n[c] - 1;
      }
    first = lo;
    span = hi - lo + 1;
  }
  bk->first = first;
  if (!g->compact) { /* compact emission needs only the totals and the count */
    bk->sync = calloc((size_t)span * 8, sizeof *bk->sync); /* elements, then FP8 weights */
    if (!bk->sync) return WEFT_ENOMEM;
  }
  for (int x = 0; x < 2; x++) {
    double dp = g->size[x ? GEN_EDP : GEN_DP], own = BUCKET_PARAMS_PER_RANK * dp;
    double def = own > BUCKET_MIN_PARAMS ? own : BUCKET_MIN_PARAMS;
    bk->size[x] = !p->overlap_grad_reduce ? HUGE_VAL
                  : p->ddp_bucket_params > 0 ? p->ddp_bucket_params : def;
  }
  double fill[2] = {0, 0}, fill_lin[2] = {0, 0};
  int per = nlayers / v;
  for (int c = v - 1; c >= 0; c--) { /* chunk c: layers a..z */
    int a = first + c * per, z = c == v - 1 ? first + nlayers - 1 : a + per - 1;
    if (chunk_lo) a = chunk_lo[c], z = a + chunk_n[c] - 1; /* none when empty */
    double chunk[2] = {0, 0};
    for (int i = z; i >= a; i--)
      for (int e = 1; e >= 0; e--)
        for (int x = 0; x < 2; x++) {
          double el = entry_elems(g, &lp->el, i, e, x), lin = entry_elems(g, &lp->lin, i, e, x);
          fill[x] += el, chunk[x] += el, bk->total[x] += el;
          fill_lin[x] += lin, bk->total_lin[x] += lin;
          int last = i == a && e == 0 && p->overlap_grad_reduce;
          if (fill[x] > 0 && (fill[x] >= bk->size[x] || last)) {
            if (bk->sync) {
              bk->sync[4 * (i - first) + 2 * e + x] = fill[x];
              bk->sync[4 * span + 4 * (i - first) + 2 * e + x] = fill_lin[x];
            }
            bk->n[x]++;
            fill[x] = fill_lin[x] = 0;
          }
        }
    for (int x = 0; x < 2; x++) bk->n[x] += !p->overlap_grad_reduce && chunk[x] > 0;
  }
  if (bk->sync) /* no overlap: the first entry */
    for (int x = 0; x < 2; x++) bk->sync[x] += fill[x], bk->sync[4 * span + x] += fill_lin[x];
  bk->span = span;
  return WEFT_OK;
}

void weft_gen_bucket_entry(Gen *g, const GenBuckets *bk, int i, int e, const GenBlock *blk,
                           GenBlock *out) {
  *out = *blk;
  if (g->par->zero_stage == 3 || !bk->sync) return;
  int first = i == bk->first && e == 0, pg = g->par->overlap_param_gather;
  for (int x = 0; x < 2; x++) {
    GenKind k = x ? GEN_EDP : GEN_DP;
    int at = 4 * (i - bk->first) + 2 * e + x;
    double el = bk->sync[at], lin = bk->sync[4 * bk->span + at];
    if (el > 0) weft_gen_grad_bucket(g, out, k, el, lin, 1, 1, pg);
    if (first && !pg && bk->total[x] > 0) /* every bucket's gather, after the step */
      weft_gen_grad_bucket(g, out, k, bk->total[x], bk->total_lin[x], bk->n[x], 0, 1);
  }
}

void weft_gen_bucket_share(Gen *g, const GenBuckets *bk, double dense, double dense_lin,
                           double expert, double expert_lin, const GenBlock *blk, GenBlock *out) {
  *out = *blk;
  if (g->par->zero_stage == 3) return;
  double el[2] = {dense, expert}, lin[2] = {dense_lin, expert_lin};
  for (int x = 0; x < 2; x++)
    if (el[x] > 0 && bk->total[x] > 0)
      weft_gen_grad_bucket(g, out, x ? GEN_EDP : GEN_DP, el[x], lin[x],
                           bk->n[x] * el[x] / bk->total[x], 1, 1);
}

int weft_gen_bucket_bound(Gen *g, const GenBlock *blk) {
  GenBlock b = *blk;
  if (g->par->zero_stage != 3) { /* both kinds, reduce and gather */
    weft_gen_grad_bucket(g, &b, GEN_DP, 1e15, 0, 1, 1, 1);
    if (g->m->experts > 0) weft_gen_grad_bucket(g, &b, GEN_EDP, 1e15, 0, 1, 1, 1);
  }
  return weft_gen_block_entries(&b);
}
