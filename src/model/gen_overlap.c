/* gen_overlap.c — Transformer Engine's TP communication overlap (Megatron-Core
 * --tp-comm-overlap): each sequence-parallel all-gather and reduce-scatter of
 * a layer hidden behind the GEMM that consumes or produces it (docs/zoo.md,
 * "TP communication overlap"). */
#include <math.h>
#include <string.h>

#include "model/gen.h"

/* Transformer Engine's defaults for its userbuffers overlaps
 * (transformer_engine/pytorch/module/base.py, initialize_ub, get_default_config;
 * Megatron-Core hands it the same names): ring exchange (qkv_fprop,
 * fc1_fprop, proj_dgrad, fc2_dgrad) in tp splits on 1 SM; pipelined chunks
 * (proj_fprop, fc2_fprop) in 4 splits on 16 SMs; bulk (qkv_wgrad, fc1_wgrad
 * under which the dgrad reduce-scatter runs) on 16 SMs. The GEMM beside a
 * comm kernel runs on the other SMs. */
#define TPO_RING_SMS 1.0
#define TPO_PIPE_SMS 16.0
#define TPO_PIPE_SPLITS 4.0
#define TPO_BULK_SMS 16.0

/* A sub-block's GEMM times per micro-batch (ns, launches aside): the first
 * GEMMs' forward and weight gradient (QKV or the MLP's up-projections: every
 * weight GEMM but the last), the last one's forward and data gradient (the
 * attention's output projection, fc2). */
typedef struct {
  double first_fprop, first_wgrad, last_fprop, last_dgrad;
} TpoGemms;

static void gemms(const Gen *g, int blk, TpoGemms *t) {
  OcLayer l;
  OcOp ops[OC_MAX_OPS];
  weft_opcost_layer(g->m, g->par, &l);
  int n = weft_opcost_ops(&l, (OcBlock)blk, ops, OC_MAX_OPS);
  memset(t, 0, sizeof *t);
  for (int i = 0; i < n; i++) {
    const OcOp *o = &ops[i];
    if (o->kind != OC_GEMM || o->once) continue;
    int last = !strcmp(o->name, "proj") || !strcmp(o->name, "fc2");
    int weight = 0; /* a weight GEMM: one of its ops is a weight gradient */
    for (int j = 0; j < n && !weight; j++)
      weight = ops[j].kind == OC_GEMM && ops[j].phase == WEFT_PHASE_WG && !strcmp(ops[j].name, o->name);
    if (!weight) continue;
    double ns = g->opcost ? weft_opcost_op_ns(g->dev, o, l.act_bytes) : o->flops * g->ns_per_flop;
    if (last && o->phase == WEFT_PHASE_FWD) t->last_fprop += ns;
    if (last && o->phase == WEFT_PHASE_IG) t->last_dgrad += ns;
    if (!last && o->phase == WEFT_PHASE_FWD) t->first_fprop += ns;
    if (!last && o->phase == WEFT_PHASE_WG) t->first_wgrad += ns;
  }
}

/* The slowdown of a GEMM that shares the GPU with a comm kernel on k SMs:
 * sms / (sms - k); none on a device without an SM count. */
static double slow(const Gen *g, double k) {
  double sms = g->dev->sms;
  return sms > k ? sms / (sms - k) : 1.0;
}

/* One forward pass's all-gather and reduce-scatter, mult times, into phase
 * ph: the all-gather of the S/t shard under the first GEMM (ring exchange:
 * the GEMM on the local chunk runs while the next arrives, so t-1 of its t
 * chunks hide the transfer: overlap (t-1)/t of the GEMM); the
 * reduce-scatter of S in 4 pipelined chunks after the last GEMM's (each
 * chunk's scatter under the next chunk's GEMM: the last chunk's, 1/4,
 * blocks; 3/4 hides under 3/4 of the GEMM). The GEMMs slow by the SMs the
 * comm kernels take: returned, to add to the phase's compute. */
static double fprop(Gen *g, GenBlock *blk, WeftPhase ph, double mult, double S,
                    const TpoGemms *t) {
  double tp = g->par->tp, ring = slow(g, TPO_RING_SMS), pipe = slow(g, TPO_PIPE_SMS);
  double q = (TPO_PIPE_SPLITS - 1) / TPO_PIPE_SPLITS;
  weft_gen_add_hidden(g, blk, ph, WEFT_COLL_ALLGATHER, GEN_TP, mult * S / tp, mult,
                      mult * (tp - 1) / tp * t->first_fprop * ring, GEN_HIDE_AG_FPROP);
  weft_gen_add(g, blk, ph, WEFT_COLL_REDUCESCATTER, GEN_TP, mult * S / TPO_PIPE_SPLITS, mult);
  weft_gen_add_hidden(g, blk, ph, WEFT_COLL_REDUCESCATTER, GEN_TP, mult * S * q,
                      mult * (TPO_PIPE_SPLITS - 1), mult * q * t->last_fprop * pipe,
                      GEN_HIDE_RS_FPROP);
  return mult * (t->first_fprop * (ring - 1) + t->last_fprop * (pipe - 1));
}

void weft_gen_tp_overlap(Gen *g, GenBlock *blk, int ob, double R, double rc, double S) {
  TpoGemms t;
  gemms(g, ob, &t);
  double tp = g->par->tp, ring = slow(g, TPO_RING_SMS), bulk = slow(g, TPO_BULK_SMS);
  blk->compute_ns[WEFT_PHASE_FWD] += fprop(g, blk, WEFT_PHASE_FWD, R, S, &t);
  if (rc > 0) blk->compute_ns[WEFT_PHASE_IG] += fprop(g, blk, WEFT_PHASE_IG, R * rc, S, &t);
  /* backward: the output gradient's all-gather under the last GEMM's dgrad
   * (ring exchange), the first GEMMs' dgrad reduce-scatter whole under their
   * wgrad (bulk) */
  weft_gen_add_hidden(g, blk, WEFT_PHASE_IG, WEFT_COLL_ALLGATHER, GEN_TP, R * S / tp, R,
                      R * (tp - 1) / tp * t.last_dgrad * ring, GEN_HIDE_AG_DGRAD);
  weft_gen_add_hidden(g, blk, WEFT_PHASE_IG, WEFT_COLL_REDUCESCATTER, GEN_TP, R * S, R,
                      R * t.first_wgrad * bulk, GEN_HIDE_RS_WGRAD);
  blk->compute_ns[WEFT_PHASE_IG] += R * t.last_dgrad * (ring - 1);
  blk->compute_ns[WEFT_PHASE_WG] += R * t.first_wgrad * (bulk - 1);
}
