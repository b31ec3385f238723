/* gen_tf_blocks.c — one layer's entries: its attention, dense MLP or MoE
 * sub-block with their TP, CP and expert-parallel communication and LoRA's,
 * and the embedding, logits and MTP head with the tied embedding's
 * all-reduce (docs/zoo.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/gen_tf.h"

/* TP collectives of a sub-block, mult passes: AR of S, or with sequence
 * parallelism AG of the S/tp shard (FP8 with FP8 GEMMs) + RS of S. Only out
 * of them run the output's collective (the rest stop before it:
 * weft_gen_rc_stops_early); grads of them gather the output's gradient: torch layers gather it in
 * the activations' width (torchao's Float8RowwiseParallel casts it to FP8
 * only inside the linear's backward, after the gather; Transformer Engine
 * casts it first). */
static void tp_comm_out(Gen *g, GenBlock *blk, WeftPhase ph, double mult, double grads, double out,
                        const Tf *t) {
  if (g->par->sequence_parallel) {
    double w = weft_gen_tp_ag_width(g), wg = g->par->layer_impl == WEFT_LAYERS_TORCH ? 1.0 : w;
    weft_gen_add(g, blk, ph, WEFT_COLL_ALLGATHER, GEN_TP,
                 ((mult - grads) * w + grads * wg) * t->S / g->par->tp, mult);
    weft_gen_add(g, blk, ph, WEFT_COLL_REDUCESCATTER, GEN_TP, out * t->S, out);
  } else {
    weft_gen_add(g, blk, ph, WEFT_COLL_ALLREDUCE, GEN_TP, out * t->S, out);
  }
}

static void tp_comm(Gen *g, GenBlock *blk, WeftPhase ph, double mult, double grads, const Tf *t) {
  tp_comm_out(g, blk, ph, mult, grads, mult, t);
}

/* The TP and ETP collectives of a MoE sub-block as Megatron-Core's all-to-all
 * token dispatcher runs them (docs/zoo.md, "Expert parallelism";
 * core_v0.10.0 `MoEAlltoAllTokenDispatcher`: permute -> A2A(EP) -> AG(ETP)
 * -> experts -> RS(ETP) -> A2A(EP) -> unpermute, its tp group the expert
 * tensor-parallel one, = TP unless folded off it): with sequence parallelism
 * a rank's tokens are its own shard (no TP collective before the router);
 * without, each TP rank dispatches 1/tp of the replicated tokens and the
 * outputs (and the input gradients) are all-gathered over TP. After the
 * dispatch the tokens are all-gathered over ETP for the experts' split
 * GEMMs and their outputs reduce-scattered before the combine (and mirrored
 * in backward): k S / tp per rank. Shared experts stay on the attention's
 * TP, every token: a dense MLP's TP collectives. Full recomputation runs the
 * forward's again. */
static void moe_tp_comm(Gen *g, GenBlock *blk, double R, double rc, const Tf *t) {
  const WeftParallel *p = g->par;
  double x = t->S * t->k / p->tp; /* a rank's dispatched token bytes */
  GenKind etp = g->etp == p->tp ? GEN_TP : GEN_ETP; /* the same ranks when etp = tp */
  for (int ph = WEFT_PHASE_FWD; ph <= WEFT_PHASE_IG; ph++) {
    double mult = ph == WEFT_PHASE_FWD ? R : R * (1 + rc);
    if (t->sh > 0) tp_comm(g, blk, (WeftPhase)ph, mult, ph == WEFT_PHASE_FWD ? 0 : R, t);
    if (!p->sequence_parallel)
      weft_gen_add(g, blk, (WeftPhase)ph, WEFT_COLL_ALLGATHER, GEN_TP, mult * t->S / p->tp, mult);
    weft_gen_add(g, blk, (WeftPhase)ph, WEFT_COLL_ALLGATHER, etp, mult * x, mult);
    weft_gen_add(g, blk, (WeftPhase)ph, WEFT_COLL_REDUCESCATTER, etp, mult * x * g->etp, mult);
  }
}

/* A micro-batch's EP all-to-all bytes: *Sk the combine's (the routed copies
 * of the rank's tokens, its 1/tp shard when it dispatches one: k of each
 * with the all-to-all dispatcher, one per destination rank with the flex
 * one), *d the dispatch's per combine byte (moe_dispatch_fp8: 1 / act_bytes;
 * else the activations' width, 1). */
void weft_tf_a2a_bytes(const Gen *g, const Tf *t, double *d, double *Sk) {
  const WeftParallel *p = g->par;
  *d = p->fp8 && p->moe_dispatch_fp8 ? 1.0 / p->act_bytes : 1.0;
  *Sk = (weft_gen_moe_dispatch_shard(p, g->etp) ? t->S / p->tp : t->S) *
        weft_opcost_moe_dispatch_copies(p->moe_dispatcher, p->moe_routing, t->E, t->k, p->ep);
}

/* A forward collective of b bytes, per micro-batch, and its full
 * recomputation's again in backward (share rc). */
static void fwd_coll(Gen *g, GenBlock *blk, WeftCollective c, double b, double R, double rc) {
  weft_gen_add(g, blk, WEFT_PHASE_FWD, c, GEN_TP, R * b, R);
  if (rc > 0) weft_gen_add(g, blk, WEFT_PHASE_IG, c, GEN_TP, R * rc * b, R * rc);
}

/* LoRA adapters' TP collectives (opcost.c lora_adapter; Megatron-Core's
 * parallel linears, plain NCCL, never TE's userbuffers), per micro-batch,
 * a full recomputation's forward ones again in backward. A column-parallel
 * base's (QKV, fc1): linear_in's r outputs all-gathered (gather_output),
 * linear_out's input gradient all-reduced (its input is replicated), and
 * without SP linear_in's input gradient all-reduced as well (with SP its
 * grad reduce is off: the base's reduce-scatter carries it). A row-parallel
 * base's (proj, fc2): linear_in's partial sums all-reduced, linear_out's
 * output all-gathered, linear_out's input gradient all-reduced, and with SP
 * the output's rows kept in forward and gathered back in backward. */
static void lora_tp_comm(Gen *g, GenBlock *blk, int attn, double R, double rc, const Tf *t) {
  const WeftParallel *p = g->par;
  int lt = weft_lora_targets_of(p);
  if (!lt || p->tp < 2) return;
  double T = t->b * t->sq, eb = p->act_bytes, r = p->lora_rank, tp = p->tp;
  double h = t->h; /* QKV's and fc1's input, proj's and fc2's output */
  if (attn ? lt & WEFT_LORA_QKV : lt & WEFT_LORA_FC1) { /* column-parallel base */
    fwd_coll(g, blk, WEFT_COLL_ALLGATHER, T * r / tp * eb, R, rc);
    weft_gen_add(g, blk, WEFT_PHASE_IG, WEFT_COLL_ALLREDUCE, GEN_TP, R * T * r * eb, R);
    if (!p->sequence_parallel)
      weft_gen_add(g, blk, WEFT_PHASE_IG, WEFT_COLL_ALLREDUCE, GEN_TP, R * T * h * eb, R);
  }
  if (attn ? lt & WEFT_LORA_PROJ : lt & WEFT_LORA_FC2) { /* row-parallel base */
    fwd_coll(g, blk, WEFT_COLL_ALLREDUCE, T * r * eb, R, rc);
    fwd_coll(g, blk, WEFT_COLL_ALLGATHER, T * h / tp * eb, R, rc);
    weft_gen_add(g, blk, WEFT_PHASE_IG, WEFT_COLL_ALLREDUCE, GEN_TP, R * T * r * eb, R);
    if (p->sequence_parallel)
      weft_gen_add(g, blk, WEFT_PHASE_IG, WEFT_COLL_ALLGATHER, GEN_TP, R * T * h / tp * eb, R);
  }
}

/* A layer's attention (moe < 0), dense MLP (0) or MoE MLP (1) sub-block.
 * Full recomputation runs the forward again in input-grad, its collectives
 * included; selective only the attention core (no collectives). */
void weft_tf_sub_block(Gen *g, const Tf *t, int moe, GenBlock *blk) {
  const WeftParallel *p = g->par;
  /* full: the share of the stage's layers recomputed (templates are shared) */
  double R = t->R, rc = (double)stage_rc(p, t, t->e) / t->Ls;
  double f = moe < 0 ? t->f_attn : moe ? t->f_moe : t->f_mlp;
  double c[WEFT_NPHASES];
  int ob = moe < 0 ? OC_ATTN : moe ? OC_MOE : OC_MLP;
  weft_gen_compute(g, ob, R, R * f * g->ns_per_flop, c);
  if (!g->opcost && moe < 0) c[WEFT_PHASE_IG] += R * t->x_attn * g->ns_per_flop; /* flash */
  /* selective recompute: the attention core's forward again in backward
   * (its FLOPs at the block's own rate: per operator or flat) */
  int mods = rc_mods(p);
  double att = (mods & WEFT_RC_CORE_ATTN ? t->f_core : 0) + (mods & WEFT_RC_MLA_UP_PROJ ? t->f_up : 0);
  double core = moe < 0 && f > 0 ? c[WEFT_PHASE_FWD] * att / f
                : moe == 0 && mods & WEFT_RC_MLP                ? c[WEFT_PHASE_FWD]
                : moe > 0                                       ? c[WEFT_PHASE_FWD] * moe_rc_share(p, t)
                                                                : 0.0;
  if (mods & WEFT_RC_TORCHTITAN_OP && moe <= 0) /* + its GEMMs: per operator, or a FLOP share */
    core += g->opcost ? R * g->oc_titan_ns[ob]
           : f > 0   ? c[WEFT_PHASE_FWD] * (moe < 0 ? t->f_tt_attn : t->f_tt_mlp) / f
                     : 0.0;
  weft_gen_block_clear(blk);
  blk->compute_ns[WEFT_PHASE_FWD] = c[WEFT_PHASE_FWD];
  blk->compute_ns[WEFT_PHASE_IG] = c[WEFT_PHASE_IG] + rc * c[WEFT_PHASE_FWD] + core; /* + recomputed */
  int early = rc > 0 && weft_gen_rc_stops_early(g, ob); /* torch's checkpoint: w2 and on not again */
  if (early) blk->compute_ns[WEFT_PHASE_IG] -= rc * R * g->oc_rc_skip_ns;
  blk->compute_ns[WEFT_PHASE_WG] = c[WEFT_PHASE_WG];
  if (!g->opcost && weft_lora_targets_of(p) && moe <= 0) /* flat: the adapters' alone */
    blk->compute_ns[WEFT_PHASE_WG] = R * (moe < 0 ? t->f_lora_attn : t->f_lora_mlp) * g->ns_per_flop;
  if (moe <= 0) lora_tp_comm(g, blk, moe < 0, R, rc, t);
  if (g->opcost && moe <= 0) { /* FP8's blocking amax all-reduces (gen_amax.c): stream time */
    double a = R * weft_gen_amax_block_ns(g, moe < 0, (double)t->v / t->Ls);
    blk->compute_ns[WEFT_PHASE_FWD] += a;
    blk->compute_ns[WEFT_PHASE_IG] += a * (1 + rc); /* a recomputed forward's again */
  }
  /* MoE as Megatron-Core's all-to-all dispatcher runs it: a rank dispatches
   * its 1/tp of the tokens (its sequence-parallel shard), folded or not.
   * Without SP and with the experts on TP (etp = tp), which Megatron-Core
   * refuses in training (core_v0.10.0 moe_layer.py), the block keeps a dense
   * MLP's TP collectives and every TP rank exchanges all the routed tokens
   * (an upper bound) */
  int disp = moe > 0 && weft_gen_moe_dispatch_shard(p, g->etp);
  if (disp) {
    moe_tp_comm(g, blk, R, rc, t);
  } else if (p->tp_comm_overlap && p->sequence_parallel && moe <= 0) { /* TE's userbuffers */
    weft_gen_tp_overlap(g, blk, ob, R, rc, t->S);
  } else {
    tp_comm(g, blk, WEFT_PHASE_FWD, R, 0, t);
    tp_comm_out(g, blk, WEFT_PHASE_IG, R * (1 + rc), R, early ? R : R * (1 + rc), t);
    /* torchtitan_op under SP: the policy saves no collective's output but
     * the reduce-scatter's, so the backward's replay all-gathers the norm's
     * output again for the GEMMs' weight gradients (the userbuffers path
     * above re-gathers it already) */
    if (mods & WEFT_RC_TORCHTITAN_OP && p->sequence_parallel && moe <= 0)
      weft_gen_add(g, blk, WEFT_PHASE_IG, WEFT_COLL_ALLGATHER, GEN_TP,
                   R * t->S * weft_gen_tp_ag_width(g) / p->tp, R);
  }
  if (moe < 0 && g->par->cp > 1 && weft_gen_cp_ring(g, blk, R, rc)) {
    /* CP: the P2P ring's transfers, hidden under its kernels */
  } else if (moe < 0) { /* CP: K, V gathered for forward and again for backward, dK, dV scattered */
    weft_gen_add(g, blk, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER, GEN_CP, R * t->kvs, R);
    weft_gen_add(g, blk, WEFT_PHASE_IG, WEFT_COLL_ALLGATHER, GEN_CP, R * t->kvs * (1 + rc),
                 R * (1 + rc));
    weft_gen_add(g, blk, WEFT_PHASE_IG, WEFT_COLL_REDUCESCATTER, GEN_CP, R * t->kvs * p->cp, R);
  }
  if (moe > 0) { /* dispatch + combine all-to-alls, forward and backward; moe_dispatch_fp8: the
                   forward dispatch in FP8;
                   with moe_a2a_overlap the paired share's are emit's (weft_gen_moe_a2a) */
    double d, Sk, x = 1.0 - t->a2a_q;
    weft_tf_a2a_bytes(g, t, &d, &Sk);
    if (p->moe_dispatcher == WEFT_MOE_HYBRIDEP) /* HybridEP's forward metadata: the routing
                                                  map (bool, tokens x experts) all-gathered */
      weft_gen_add(g, blk, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER, GEN_EP,
                   R * (weft_gen_moe_dispatch_shard(p, g->etp) ? t->S / p->tp : t->S) /
                       (t->h * p->act_bytes) * t->E,
                   R);
    weft_gen_add(g, blk, WEFT_PHASE_FWD, WEFT_COLL_ALLTOALL, GEN_EP, x * (1 + d) * R * Sk,
                 x * 2 * R);
    weft_gen_add(g, blk, WEFT_PHASE_IG, WEFT_COLL_ALLTOALL, GEN_EP,
                 x * (2 * R * Sk + rc * (1 + d) * R * Sk), x * 2 * R * (1 + rc));
  }
  double dense = moe < 0 ? t->el_attn : moe ? t->el_moe_dense : t->el_mlp;
  double expert = moe > 0 ? t->el_moe_expert : 0;
  double lin = moe < 0 ? t->lin_attn : moe ? t->lin_moe_dense : t->lin_mlp;
  if (p->zero_stage == 3) { /* parameters gathered for forward and again for backward */
    weft_gen_fsdp2_copies(g, blk,
                          weft_gen_gather_bytes(g, dense, lin) +
                              weft_gen_gather_bytes(g, expert, moe > 0 ? t->lin_moe_expert : 0),
                          dense + expert, R);
    weft_gen_zero3_gather(g, blk, GEN_DP, R * weft_gen_gather_bytes(g, dense, lin) / g->size[GEN_DP],
                          R, 1);
    weft_gen_zero3_gather(g, blk, GEN_EDP,
                          R * weft_gen_gather_bytes(g, expert, moe > 0 ? t->lin_moe_expert : 0) /
                              g->size[GEN_EDP],
                          R, 1);
  }
  if (p->zero_stage == 3) { /* per micro-batch; ZeRO 0-2: in buckets, at emission */
    weft_gen_grad_sync(g, blk, GEN_DP, dense, R);
    weft_gen_grad_sync(g, blk, GEN_EDP, expert, R);
  }
}

/* The tied embedding's gradient, summed between the first and the last
 * stage (Megatron's embedding group) before the DP synchronisation. */
void weft_tf_tied_allreduce(Gen *g, const Tf *t, GenBlock *blk) {
  if (t->tied)
    weft_gen_add_once(g, blk, WEFT_COLL_ALLREDUCE, GEN_EMB,
                      t->V * t->h / g->par->tp * g->par->grad_bytes);
}

/* Embedding (first stage): the vocab-parallel lookup's forward TP reduction. */
void weft_tf_emb_block(Gen *g, const Tf *t, GenBlock *emb) {
  const WeftParallel *p = g->par;
  double R = t->R;
  weft_gen_block_clear(emb);
  weft_gen_compute(g, OC_EMB, R, 0.0, emb->compute_ns); /* flat model: not charged */
  weft_gen_add(g, emb, WEFT_PHASE_FWD,
               p->sequence_parallel ? WEFT_COLL_REDUCESCATTER : WEFT_COLL_ALLREDUCE, GEN_TP,
               R * t->S, R);
  if (p->zero_stage == 3) { /* the pass's first gather: nothing before it to hide under */
    weft_gen_fsdp2_copies(g, emb, t->el_emb * p->param_bytes, t->el_emb, R);
    double x = p->no_reshard ? weft_gen_schedules(g) : R; /* kept gathered: once a schedule */
    weft_gen_add(g, emb, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER, GEN_DP,
                 x * t->el_emb / g->size[GEN_DP] * p->param_bytes, x);
  }
  weft_gen_grad_sync(g, emb, GEN_DP, t->el_emb, R);
  weft_tf_tied_allreduce(g, t, emb);
}

/* Logits (last stage): column-parallel over the vocabulary; its input is
 * gathered (SP) or copied, so the backward reduces over TP. Not recomputed.
 * Its weights: the tied embedding (pp = 1, synchronised by the embedding
 * entry), a copy of it (pp > 1) or its own (untied), plus the final norm. */
void weft_tf_logits_block(Gen *g, const Tf *t, GenBlock *lg) {
  const WeftParallel *p = g->par;
  double R = t->R, c = R * t->f_logits * g->ns_per_flop;
  double w = t->V * t->h / p->tp + t->el_norm; /* the weights it uses, tied or not */
  double gather = R * w / g->size[GEN_DP] * p->param_bytes;
  weft_gen_block_clear(lg);
  weft_gen_compute(g, OC_LOGITS, R, c, lg->compute_ns);
  if (p->sequence_parallel) {
    weft_gen_add(g, lg, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER, GEN_TP, R * t->S / p->tp, R);
    weft_gen_add(g, lg, WEFT_PHASE_IG, WEFT_COLL_REDUCESCATTER, GEN_TP, R * t->S, R);
  } else {
    weft_gen_add(g, lg, WEFT_PHASE_IG, WEFT_COLL_ALLREDUCE, GEN_TP, R * t->S, R);
  }
  if (p->zero_stage == 3) {
    weft_gen_fsdp2_copies(g, lg, w * p->param_bytes, t->el_out, R);
    weft_gen_zero3_gather(g, lg, GEN_DP, gather, R, 1);
  }
  weft_gen_grad_sync(g, lg, GEN_DP, t->el_out, R);
  weft_tf_tied_allreduce(g, t, lg);
}

/* The MTP modules' heads (last stage): D projections (2h x h, column-
 * parallel) and D passes of the shared output head, timed as the logits
 * kernel scaled by their FLOPs (f_head / f_logits), with the logits' TP
 * collectives each; the gradients of the projections and the 3 norms.
 * Their layers are emitted from the attention and MLP templates. */
void weft_tf_mtp_head_block(Gen *g, const Tf *t, GenBlock *hd) {
  const WeftParallel *p = g->par;
  double R = t->R, x = t->f_head / t->f_logits, c = R * t->f_head * g->ns_per_flop;
  weft_gen_block_clear(hd);
  weft_gen_compute(g, OC_LOGITS, R * x, c, hd->compute_ns);
  if (p->sequence_parallel) {
    weft_gen_add(g, hd, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER, GEN_TP, t->D * R * t->S / p->tp,
                 t->D * R);
    weft_gen_add(g, hd, WEFT_PHASE_IG, WEFT_COLL_REDUCESCATTER, GEN_TP, t->D * R * t->S, t->D * R);
  } else {
    weft_gen_add(g, hd, WEFT_PHASE_IG, WEFT_COLL_ALLREDUCE, GEN_TP, t->D * R * t->S, t->D * R);
  }
  weft_gen_grad_sync(g, hd, GEN_DP, t->D * (2 * t->h * t->h / p->tp + 3 * t->el_norm), R);
}
