/* gen_tf.h — what the transformer generator's files share (gen_transformer.c
 * and the gen_tf_*.c below it): the layout of one derivation (Tf), the
 * stages' and chunks' layer counts, what recomputation runs again, and the
 * functions each file gives the ones above it. Data flows one way:
 * gen_tf_setup.c (checks, per-micro-batch shapes) and gen_tf_plan.c (stages,
 * the critical one, its repeats) and gen_tf_blocks.c (a layer's compute and
 * communication entries) below gen_tf_memory.c (memory, the info), all below
 * gen_transformer.c (the entries in order). */
#ifndef WEFT_GEN_TF_H
#define WEFT_GEN_TF_H

#include "model/gen.h"
#include "model/gen_names.h"
#include "model/offload.h"
#include "model/pipeline.h"
#include "model/zoo.h"

#define PLAN_STACK_STAGES 64 /* stages planned on the stack, without allocating */

typedef struct {
  double b, s, sq, h, a, ffn, fe, fm, V, E, k, sh; /* sq = s / cp: a rank's tokens of a
                                                      sequence; fe: an expert's width */
  double dqk, dv, akv;                     /* per-head widths, key/value heads */
  double ql, kl, rope;                     /* MLA latents (kl 0: standard attention) */
  int L, Ls, m, v;                         /* v chunks/stage */
  int *sl, e, first;                       /* layers per stage; the critical stage, its 1st layer */
  int sl_stack[PLAN_STACK_STAGES];         /* sl when pp is at most that: no allocation */
  int *cl;                                 /* pp_layout: layers per chunk (pp v, layout order) */
  int tied;                                /* output layer = the embedding (GeLU family) */
  int flash;                               /* fused attention kernel */
  double R;                                /* stage work repeats (docs/zoo.md, "Pipeline") */
  double a2a_q;                            /* moe_a2a_overlap: the paired share (0: off) */
  int ga, ms;                               /* ga_steps: schedules an iteration, each of ms
                                              micro-batches (ga 1: ms = m) */
  double bubble;                           /* DualPipe: the critical rank's bubble / its work */
  double S;                                /* b*sq*h*act_bytes: one activation */
  double kvs;                              /* b*sq*K,V widths/t*act_bytes: the CP exchange */
  /* forward FLOPs one rank executes per micro-batch: attention, dense MLP,
   * MoE MLP, logits; x_attn what flash's backward adds beyond 2 x forward;
   * f_core: the standard attention core (scores + context), what selective
   * recomputation runs again */
  double f_attn, x_attn, f_mlp, f_moe, f_logits, f_core;
  double f_attn_lin; /* the attention's linear layers: its weight-gradient FLOPs (DualPipe's W) */
  double f_up, m_up; /* MLA's up-projections (a rank's, the model's): mla_up_proj recomputes them */
  /* torchtitan_op's recomputed GEMMs (a rank's: attention wk + wo, MLP w3; the model's) */
  double f_tt_attn, f_tt_mlp, m_tt;
  /* the model's FLOPs per micro-batch (Megatron's count: full s^2 scores,
   * every parameter once), and the scores flash recomputes */
  double m_attn, m_mlp, m_moe, m_logits, m_core, m_flash_rc;
  /* parameters per NPU (shards) */
  double el_attn, el_mlp, el_moe_dense, el_moe_expert, el_emb, el_out, el_norm;
  /* of them the FP8 GEMMs' weights (no biases, norms, router): fp8_param_gather */
  double lin_attn, lin_mlp, lin_moe_dense, lin_moe_expert, lin_mtp_dense, lin_mtp_expert;
  double opt_ns;                           /* the optimizer step (emit times it once) */
  /* multi-token prediction on the last stage: D modules, their layer MoE
   * (mtp_moe) or dense; per micro-batch the rank's forward FLOPs f_mtp and
   * the model's m_mtp (layers, projections, output heads), the head's share
   * f_head (projection + logits), the parameter shards */
  int D, mtp_moe;
  double f_mtp, m_mtp, f_head, el_mtp_dense, el_mtp_expert;
  /* LoRA (docs/zoo.md, "LoRA"): the el_ and lin_ above are the trained
   * parameters, the adapters (no FP8 weights); frz_ the frozen base's
   * elements and its FP8 GEMMs' weights per NPU (memory only); the
   * adapters' forward FLOPs per micro-batch (a rank's, in f_attn and f_mlp;
   * the model's, in m_attn and m_mlp) */
  double frz_attn, frz_mlp, frz_emb, frz_out, frz_lin_attn, frz_lin_mlp;
  double f_lora_attn, f_lora_mlp, m_lora;
} Tf;


/* MoE layers among lo..hi (none without experts: no call per stage then). */
static inline int moe_layers(const Gen *g, int lo, int hi) {
  return g->m->experts > 0 ? weft_model_moe_layers(g->m, lo, hi) : 0;
}

/* Layers lo..hi of stage k's chunk c under the layout (hi < lo: none). */
static inline void layout_chunk(const Tf *t, int pp, int k, int c, int *lo, int *hi) {
  int x = c * pp + k, a = 1;
  for (int i = 0; i < x; i++) a += t->cl[i];
  *lo = a;
  *hi = a + t->cl[x] - 1;
}

/* MoE layers of stage k's chunks under a layout. */
static inline int layout_moe(const Gen *g, const Tf *t, int k) {
  int ne = 0, a, z;
  for (int c = 0; c < t->v && g->m->experts > 0; c++) {
    layout_chunk(t, g->par->pp, k, c, &a, &z);
    if (z >= a) ne += moe_layers(g, a, z);
  }
  return ne;
}

/* MoE layers of stage k (first layer lo unless a layout places its chunks). */
static inline int stage_moe(const Gen *g, const Tf *t, int k, int lo) {
  return t->cl ? layout_moe(g, t, k) : moe_layers(g, lo, lo + t->sl[k] - 1);
}

static inline int has_layout(const WeftParallel *p) { return p->pp_layout != NULL; } /* "": refused */

/* Megatron's uneven split: the embedding and/or the loss count as a layer. */
static inline int accounted(const WeftParallel *p) {
  return p->pp_account_embedding || p->pp_account_loss;
}

/* Layers of stage k: stage_layers; weft_stage_layers_accounted's (chunks
 * of c, the end chunks one fewer: valid once check() passed); else
 * weft_stage_layers_balanced's (L / pp, or floor/ceil with the floor ones
 * at the ends first). */
static inline int stage_layers_of(const WeftParallel *p, int layers, int k) {
  if (p->stage_layers) return p->stage_layers[k];
  if (accounted(p)) {
    int e = p->pp_account_embedding != 0, l = p->pp_account_loss != 0;
    int v = p->virtual_stages > 1 ? p->virtual_stages : 1;
    int c = (layers + e + l) / (p->pp * v);
    return v * c - (k == 0 ? e : 0) - (k == p->pp - 1 ? l : 0);
  }
  int q = layers / p->pp, light = layers % p->pp ? p->pp - layers % p->pp : 0;
  int pos = k <= p->pp - 1 - k ? 2 * k : 2 * (p->pp - 1 - k) + 1;
  return light ? q + (pos >= light) : q;
}
/* Layers of a stage of n (v chunks) that full recomputation runs again:
 * all of them, or with method block the first N of each chunk (docs/zoo.md,
 * "Partial recomputation"); none without full recomputation. */
static inline int rc_layers(const WeftParallel *p, int n, int v) {
  if (p->recompute != WEFT_RECOMPUTE_FULL) return 0;
  if (p->recompute_method != WEFT_RECOMPUTE_BLOCK) return n;
  long long r = (long long)p->recompute_num_layers * v;
  return r < n ? (int)r : n;
}

/* Layers of stage k that full recomputation runs again: a layout's chunks
 * one by one (block: the first N of each), else rc_layers of its v chunks. */
static inline int stage_rc(const WeftParallel *p, const Tf *t, int k) {
  if (!t->cl) return rc_layers(p, t->sl[k], t->v);
  int r = 0;
  for (int c = 0; c < t->v; c++) r += rc_layers(p, t->cl[c * p->pp + k], 1);
  return r;
}

/* Selective recomputation's modules (WeftRecomputeModule bits; 0 when not
 * selective; the attention core by default). torchtitan_op recomputes the
 * core too: an attention that is not one fused kernel (SDPA, whose output
 * the policy saves) keeps no scores (its products are bmm, not mm). */
static inline int rc_mods(const WeftParallel *p) {
  if (p->recompute != WEFT_RECOMPUTE_SELECTIVE) return 0;
  if (p->recompute_modules & WEFT_RC_TORCHTITAN_OP) return WEFT_RC_TORCHTITAN_OP | WEFT_RC_CORE_ATTN;
  return p->recompute_modules ? p->recompute_modules : WEFT_RC_CORE_ATTN;
}

/* The share of a MoE layer's forward selective recomputation runs again:
 * all of it (moe), the shared experts' part, or nothing. */
static inline double moe_rc_share(const WeftParallel *p, const Tf *t) {
  int m = rc_mods(p);
  return m & WEFT_RC_MOE ? 1.0 : m & WEFT_RC_SHARED_EXPERTS && t->k + t->sh > 0 ? t->sh / (t->k + t->sh) : 0.0;
}

/* The emitted stage's layers of chunk c of v: [*lo, *hi] (1-based; a
 * layout's may be empty, hi < lo). */
static inline void chunk_layers(const Gen *g, const Tf *t, int v, int c, int *lo, int *hi) {
  if (t->cl) {
    layout_chunk(t, g->par->pp, t->e, c, lo, hi);
    return;
  }
  int n = t->Ls / v;
  *lo = t->first + c * n;
  *hi = *lo + n - 1;
}

/* gen_tf_setup.c: the configuration checked (input errors, named); the
 * per-micro-batch shapes, FLOPs and parameter shards derived. */
int weft_tf_check(Gen *g, Tf *t);
void weft_tf_derive(const Gen *g, Tf *t);

/* gen_tf_plan.c: stage sizes, the critical stage and its repeats; the
 * model's FLOPs per micro-batch and the recomputed ones. */
int weft_tf_plan(Gen *g, Tf *t);
double weft_tf_model_layers(const Gen *g, const Tf *t, int mode, double *recompute);

/* gen_tf_blocks.c: a layer's sub-block (attention, dense or MoE MLP) and
 * the embedding, logits and MTP head entries, with their communication. */
void weft_tf_sub_block(Gen *g, const Tf *t, int moe, GenBlock *blk);
void weft_tf_tied_allreduce(Gen *g, const Tf *t, GenBlock *blk);
void weft_tf_emb_block(Gen *g, const Tf *t, GenBlock *emb);
void weft_tf_logits_block(Gen *g, const Tf *t, GenBlock *lg);
void weft_tf_mtp_head_block(Gen *g, const Tf *t, GenBlock *hd);
/* a micro-batch's EP all-to-all bytes: *Sk the combine's, *d the dispatch's
 * per combine byte */
void weft_tf_a2a_bytes(const Gen *g, const Tf *t, double *d, double *Sk);

/* gen_tf_memory.c: a layer's activations, what recomputation drops, the
 * optimizer step, and the info (memory per NPU, FLOPs, tokens). */
double weft_tf_layer_act(const Gen *g, const Tf *t, int moe, double *core);
double weft_tf_rc_drop(const Gen *g, const Tf *t, int moe, double full, double core);
double weft_tf_optimizer_ns(const Gen *g, const Tf *t);
void weft_tf_fill_info(Gen *g, const Tf *t);

#endif
