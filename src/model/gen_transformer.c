/* gen_transformer.c — Megatron-style transformer workloads: TP (+SP), CP, PP
 * 1F1B (Megatron's uneven split), DP with ZeRO, MoE expert parallel;
 * standard or flash attention (sliding windows), MLA, head_dim; full,
 * partial and module recomputation; multi-token prediction; FLOPs, traffic
 * and memory per docs/zoo.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
static int moe_layers(const Gen *g, int lo, int hi) {
  return g->m->experts > 0 ? weft_model_moe_layers(g->m, lo, hi) : 0;
}

/* Layers lo..hi of stage k's chunk c under the layout (hi < lo: none). */
static void layout_chunk(const Tf *t, int pp, int k, int c, int *lo, int *hi) {
  int x = c * pp + k, a = 1;
  for (int i = 0; i < x; i++) a += t->cl[i];
  *lo = a;
  *hi = a + t->cl[x] - 1;
}

/* MoE layers of stage k's chunks under a layout. */
static int layout_moe(const Gen *g, const Tf *t, int k) {
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

static int has_layout(const WeftParallel *p) { return p->pp_layout != NULL; } /* "": refused */

/* Megatron's uneven split: the embedding and/or the loss count as a layer. */
static int accounted(const WeftParallel *p) {
  return p->pp_account_embedding || p->pp_account_loss;
}

/* Layers of stage k: stage_layers; weft_stage_layers_accounted's (chunks
 * of c, the end chunks one fewer: valid once check() passed); else
 * weft_stage_layers_balanced's (L / pp, or floor/ceil with the floor ones
 * at the ends first). */
static int stage_layers_of(const WeftParallel *p, int layers, int k) {
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

/* Kinds of middle stages (layer counts) whose first stage fill_info keeps. */
#define MEM_KINDS 8

/* pp x micro-batches above which the 1F1B timeline is not timed (~1 s). */
#define GEN_MAX_PIPELINE_STEPS 1e8
#define GEN_MAX_LAYOUT_CHUNKS (1 << 20) /* pp_layout's pp x virtual_stages */
/* pp x v x micro-batches above which a layout's interleaved timeline is not
 * timed: it keeps two end times per (micro-batch, chunk), 64 MB at most. */
#define GEN_MAX_LAYOUT_STEPS 4e6

static int check(Gen *g, Tf *t) {
  const WeftModel *m = g->m;
  const WeftParallel *p = g->par;
  const struct {
    const char *name;
    int v;
  } pos[] = {{"seq_len", m->seq_len},
             {"layers", m->layers},
             {"hidden", m->hidden},
             {"heads", m->heads},
             {"vocab", m->vocab}};
  for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++)
    if (pos[i].v < 1)
      return weft_gen_fail(g, WEFT_EINPUT, pos[i].name, "model '%s': %s must be >= 1, got %d",
                           m->name, pos[i].name, pos[i].v);
  if (m->experts < 0 || (m->experts > 0 && (m->top_k < 0 || m->top_k > m->experts)))
    return weft_gen_fail(g, WEFT_EINPUT, "top_k",
                         "model '%s': experts %d, top_k %d: need experts >= 0 and top_k <= experts",
                         m->name, m->experts, m->top_k);
  if (has_layout(p)) {
    long long chunks = (long long)(p->virtual_stages > 1 ? p->virtual_stages : 1) * p->pp;
    if (p->stage_layers || accounted(p))
      return weft_gen_fail(g, WEFT_EINPUT, "pp_layout",
                           "pp_layout and %s both say how the layers split: give one",
                           p->stage_layers ? "pp_layers" : "pp_account_embedding/pp_account_loss");
    if (chunks > GEN_MAX_LAYOUT_CHUNKS)
      return weft_gen_fail(g, WEFT_EINPUT, "pp_layout",
                           "pp_layout: pp x virtual_stages = %lld chunks, at most %d", chunks,
                           GEN_MAX_LAYOUT_CHUNKS);
    if (!(t->cl = malloc((size_t)chunks * sizeof *t->cl)))
      return weft_gen_fail(g, WEFT_ENOMEM, "", "out of memory for %lld pipeline chunks", chunks);
    int rc = weft_pp_layout_parse(p->pp_layout, p->pp, (int)(chunks / p->pp), m->layers,
                                  m->mtp_layers, t->cl, g->err);
    if (rc) return rc;
  } else if (accounted(p)) {
    int e = p->pp_account_embedding != 0, l = p->pp_account_loss != 0;
    long long v = p->virtual_stages > 1 ? p->virtual_stages : 1, chunks = v * p->pp;
    if (p->stage_layers)
      return weft_gen_fail(g, WEFT_EINPUT, "pp_account",
                           "pp_layers and pp_account_embedding/pp_account_loss both say how the "
                           "layers split: give one");
    if ((m->layers + e + l) % chunks)
      return weft_gen_fail(g, WEFT_EINPUT, "pp_account",
                           "pp_account: %d layers + %d (embedding, loss) = %d do not split into "
                           "pp x virtual_stages = %lld chunks of equal layers",
                           m->layers, e + l, m->layers + e + l, chunks);
    if (stage_layers_of(p, m->layers, 0) < 1 || stage_layers_of(p, m->layers, p->pp - 1) < 1)
      return weft_gen_fail(g, WEFT_EINPUT, "pp_account",
                           "pp_account: chunks of %lld layer(s) leave an end stage no layer",
                           (m->layers + e + l) / chunks);
  } else if (p->stage_layers) {
    long long sum = 0;
    if (p->nstage_layers != p->pp)
      return weft_gen_fail(g, WEFT_EINPUT, "pp_layers", "pp_layers has %d stages, pp = %d",
                           p->nstage_layers, p->pp);
    for (int k = 0; k < p->pp; k++) {
      if (p->stage_layers[k] < 1)
        return weft_gen_fail(g, WEFT_EINPUT, "pp_layers", "pp_layers: stage %d has %d layers",
                             k + 1, p->stage_layers[k]);
      sum += p->stage_layers[k];
    }
    if (sum != m->layers)
      return weft_gen_fail(g, WEFT_EINPUT, "pp_layers",
                           "pp_layers sum to %lld layers, %s has %d", sum, m->name, m->layers);
  } else if (p->pp > m->layers) {
    return weft_gen_fail(g, WEFT_EINPUT, "pp", "pp = %d stages for the %d layers of %s: every stage needs a layer", p->pp,
                         m->layers, m->name);
  }
  if (m->heads % p->tp)
    return weft_gen_fail(g, WEFT_EINPUT, "tp", "tp = %d does not divide the %d heads of %s", p->tp,
                         m->heads, m->name);
  if (m->seq_len % p->cp)
    return weft_gen_fail(g, WEFT_EINPUT, "cp",
                         "cp = %d does not divide the %d-token sequences of %s", p->cp,
                         m->seq_len, m->name);
  long long per = (long long)p->dp * p->micro_batch;
  if (m->global_batch % per)
    return weft_gen_fail(g, WEFT_EINPUT, "micro_batch",
                         "global batch %d is not a multiple of dp*micro_batch = %d*%d = %lld",
                         m->global_batch, p->dp, p->micro_batch, per);
  if (p->ep > 1 || g->fold) {
    const char *what = p->ep > 1 ? "ep" : "etp";
    if (m->experts == 0)
      return weft_gen_fail(g, WEFT_EINPUT, what, "%s = %d but %s has no experts",
                           p->ep > 1 ? "ep" : "etp", p->ep > 1 ? p->ep : p->expert_tp, m->name);
    if (m->experts % p->ep)
      return weft_gen_fail(g, WEFT_EINPUT, "ep", "ep = %d must divide the %d experts", p->ep,
                           m->experts);
    long long w = (long long)p->tp * p->cp * p->dp, x = (long long)g->etp * p->ep;
    if (w % x) /* Megatron-Core: etp x ep x edp = tp x cp x dp */
      return weft_gen_fail(g, WEFT_EINPUT, "ep",
                           "etp x ep = %d x %d must divide tp x cp x dp = %d x %d x %d (the "
                           "experts fold over the ranks of a stage; etp defaults to tp)",
                           g->etp, p->ep, p->tp, p->cp, p->dp);
  }
  t->b = p->micro_batch;
  t->s = m->seq_len;
  t->sq = (double)m->seq_len / p->cp;
  t->h = m->hidden;
  t->a = m->heads;
  t->akv = m->kv_lora_rank > 0 ? m->heads : m->kv_heads > 0 ? m->kv_heads : m->heads;
  t->dqk = t->dv = weft_model_head_dim(m);
  if (m->kv_lora_rank > 0) {
    t->dqk = m->qk_nope_head_dim + m->qk_rope_head_dim;
    t->dv = m->v_head_dim;
    t->ql = m->q_lora_rank;
    t->kl = m->kv_lora_rank;
    t->rope = m->qk_rope_head_dim;
  }
  t->ffn = m->ffn_hidden > 0 ? m->ffn_hidden : 4.0 * t->h;
  t->fe = m->moe_ffn_hidden > 0 ? m->moe_ffn_hidden : t->ffn;
  t->fm = m->ffn_matrices > 0 ? m->ffn_matrices : 2;
  t->V = m->vocab;
  t->E = m->experts;
  t->k = m->experts > 0 ? (m->top_k > 0 ? m->top_k : 1) : 0;
  t->sh = m->experts > 0 ? m->shared_experts : 0;
  t->flash = p->attention != WEFT_ATTENTION_STANDARD; /* flash or fa2: fused */
  t->L = m->layers;
  t->m = (int)(m->global_batch / per);
  t->ga = p->ga_steps > 1 ? p->ga_steps : 1;
  if (t->m % t->ga)
    return weft_gen_fail(g, WEFT_EINPUT, "ga_steps",
                         "ga_steps = %d does not divide the %d micro-batches (global batch / "
                         "(dp x micro_batch))",
                         t->ga, t->m);
  t->ms = t->m / t->ga;
  /* Interleaved 1F1B (Narayanan et al. 2021): each stage holds v chunks of
   * c layers; the bubble shrinks to (pp-1)/v micro-batch slots while every
   * micro-batch crosses v times as many stage boundaries. The first and the
   * last stage may hold c layers fewer: a chunk of theirs holds the
   * embedding or the output layer alone (Llama 3: one layer fewer on each
   * end stage, 126 layers in 128 slots). */
  t->v = p->virtual_stages > 1 ? p->virtual_stages : 1;
  int fits = p->pp > 1 && p->pp <= m->layers;
  if (t->v > 1 && fits && !accounted(p) && !t->cl) { /* accounted: chunks of c, checked above */
    int mid = 0; /* the full stages' layers: the most any stage holds */
    for (int k = 0; k < p->pp; k++)
      if (stage_layers_of(p, m->layers, k) > mid) mid = stage_layers_of(p, m->layers, k);
    int c = mid / t->v;
    fits = mid % t->v == 0 && c > 0;
    for (int k = 0; k < p->pp && fits; k++) {
      int n = stage_layers_of(p, m->layers, k), end = k == 0 || k == p->pp - 1;
      fits = n == mid || (end && n == mid - c);
    }
  }
  if (t->v > 1 && (!fits || t->ms % p->pp))
    return weft_gen_fail(g, WEFT_EINPUT, "virtual_stages",
                         "virtual_stages = %d needs pp > 1, stages of virtual_stages x c layers "
                         "(the first and last may hold c fewer) and pp dividing the %d "
                         "micro-batches%s",
                         t->v, t->ms, t->ga > 1 ? " of each ga_steps schedule" : "");
  if (p->schedule == WEFT_SCHEDULE_DUALPIPE &&
      (p->pp < 2 || p->pp % 2 || t->v > 1 || t->m % 2 || t->m < 2 * p->pp))
    return weft_gen_fail(g, WEFT_EINPUT, "schedule",
                         "schedule dualpipe needs an even pp >= 2, virtual_stages 1 and an even "
                         "number of micro-batches >= 2 pp; got pp = %d, virtual_stages = %d, "
                         "%d micro-batches",
                         p->pp, t->v, t->m);
  if (p->schedule == WEFT_SCHEDULE_DUALPIPE && t->ga > 1 && p->pp > 1)
    return weft_gen_fail(g, WEFT_EINPUT, "ga_steps",
                         "ga_steps = %d with schedule dualpipe: weft times DualPipe over every "
                         "micro-batch of the iteration in one schedule",
                         t->ga);
  if (p->schedule != WEFT_SCHEDULE_1F1B && p->schedule != WEFT_SCHEDULE_DUALPIPE)
    return weft_gen_fail(g, WEFT_EINVAL, "schedule", "unknown pipeline schedule %d", p->schedule);
  int a2a = weft_gen_a2a_check(g, t->v, m->mtp_layers);
  if (a2a) return a2a;
  /* the exact 1F1B timeline takes O(pp m) steps */
  if (t->v == 1 && p->pp > 1 && p->schedule == WEFT_SCHEDULE_1F1B &&
      (double)p->pp * t->ms > GEN_MAX_PIPELINE_STEPS)
    return weft_gen_fail(g, WEFT_EINPUT, "pp",
                         "pp x micro-batches = %d x %d: at most %.0f pipeline steps are timed",
                         p->pp, t->ms, GEN_MAX_PIPELINE_STEPS);
  if (t->v > 1 && t->cl && (double)p->pp * t->v * t->ms > GEN_MAX_LAYOUT_STEPS)
    return weft_gen_fail(g, WEFT_EINPUT, "pp_layout",
                         "pp x virtual_stages x micro-batches = %d x %d x %d: at most %.0f "
                         "interleaved steps are timed",
                         p->pp, t->v, t->ms, GEN_MAX_LAYOUT_STEPS);
  t->tied = weft_model_tied(m) && p->pp > 1; /* the last stage holds a copy of the embedding */
  g->size[GEN_EMB] = t->tied ? 2 : 1;
  return WEFT_OK;
}

/* LoRA (generate.c refuses it with experts, MLA, MTP, DualPipe, ZeRO-3):
 * every parameter derive counted becomes frozen, and the adapters of the
 * targeted layers (weft_lora_params) are what trains: their gradients,
 * optimizer states and data-parallel reduction; their GEMMs (BF16, never
 * FP8) add their FLOPs to the blocks'. */
static void lora_derive(const Gen *g, Tf *t, double Tr, double Tm) {
  const WeftParallel *p = g->par;
  int lt = weft_lora_targets_of(p);
  t->frz_attn = t->frz_mlp = t->frz_emb = t->frz_out = t->frz_lin_attn = t->frz_lin_mlp = 0;
  t->f_lora_attn = t->f_lora_mlp = t->m_lora = 0;
  if (!lt) return;
  double r = p->lora_rank, h = t->h, tp = p->tp;
  double qkv = t->a * t->dqk + t->akv * (t->dqk + t->dv), fc1 = (t->fm == 3 ? 2 : 1) * t->ffn;
  double ea = (lt & WEFT_LORA_QKV ? weft_lora_params(h, qkv, r) : 0) +
              (lt & WEFT_LORA_PROJ ? weft_lora_params(t->a * t->dv, h, r) : 0);
  double em = (lt & WEFT_LORA_FC1 ? weft_lora_params(h, fc1, r) : 0) +
              (lt & WEFT_LORA_FC2 ? weft_lora_params(t->ffn, h, r) : 0);
  t->frz_attn = t->el_attn;
  t->frz_mlp = t->el_mlp;
  t->frz_emb = t->el_emb;
  t->frz_out = t->el_out;
  t->frz_lin_attn = t->lin_attn;
  t->frz_lin_mlp = t->lin_mlp;
  t->el_attn = ea / tp;
  t->el_mlp = em / tp;
  t->el_emb = t->el_out = 0; /* the embedding, output layer and norms frozen */
  t->lin_attn = t->lin_mlp = 0;
  t->f_lora_attn = 2 * Tr * ea / tp; /* a token's adapter FLOPs: 2 r (in + out) */
  t->f_lora_mlp = 2 * Tr * em / tp;
  t->m_lora = 2 * Tm * (ea + em);
  t->f_attn += t->f_lora_attn;
  t->f_mlp += t->f_lora_mlp;
  t->m_attn += 2 * Tm * ea;
  t->m_mlp += 2 * Tm * em;
}

/* FLOPs (2 per multiply-add) and parameter shards; docs/zoo.md. The
 * model's traits (zoo_family.c), as weft_model_params counts them: biases
 * or none, LayerNorm or RMSNorm, learned positions or rotary ones, an
 * output layer tied or untied (the GeLU family the first of each, SwiGLU
 * the second). The attention's linear layers split over TP by heads, except MLA's
 * down-projections to the latents, which every TP rank computes whole. */
static void derive(const Gen *g, Tf *t) {
  const WeftParallel *p = g->par;
  double b = t->b, s = t->s, h = t->h, tp = p->tp, a = t->a;
  double Tr = b * t->sq, Tm = b * s; /* tokens of a micro-batch on a rank, in the model */
  int bias = weft_model_biased(g->m);
  double norm = t->el_norm = weft_model_layernorm(g->m) ? 2 * h : h; /* replicated over TP */
  t->S = Tr * h * p->act_bytes;
  t->kvs = Tr * t->akv / tp * (t->dqk + t->dv) * p->act_bytes;
  /* attention linears per token: rep (MLA latents, whole on every TP rank), split */
  double rep = 0, rep_el = 0;
  if (t->kl > 0) {
    rep = h * (t->kl + t->rope) + (t->ql > 0 ? h * t->ql : 0);
    rep_el = rep + t->kl + t->ql; /* + the latents' RMSNorms */
  }
  double attn_el = weft_model_attention_params(g->m);
  double split = /* less the biases (a biased model's): Q, output, K and V */
      attn_el - rep_el - (bias && t->kl == 0 ? a * t->dqk + h + 2 * t->akv * t->dqk : 0);
  /* MLA's up-projections: Q from the query latent (when it has one), K's
   * nope part and V from the KV latent; TP-split like the heads */
  double up = t->kl > 0 ? (t->ql > 0 ? t->ql * a * t->dqk : 0) + t->kl * a * (t->dqk - t->rope + t->dv)
                        : 0;
  t->m_up = 2 * Tm * up;
  t->f_up = 2 * Tr * up / tp;
  /* packed samples (flash, cp 1): each token attends within its sample of
   * pk tokens, s / pk samples a sequence: the scores shrink by pk / s */
  double pk = weft_opcost_pack_len(p, s);
  if (!(pk > 0)) pk = s;
  double core_r = 2 * Tr * pk * a / tp * (t->dqk + t->dv); /* full s_q x pk scores, PV */
  t->m_core = 2 * Tm * pk * a * (t->dqk + t->dv);
  t->m_attn = 2 * Tm * (rep + split) + t->m_core;
  t->m_flash_rc = t->flash ? t->m_core * t->dqk / (t->dqk + t->dv) : 0; /* QK^T again */
  double lin_r = t->f_attn_lin = 2 * Tr * (rep + split / tp);
  if (t->flash) { /* fused: the causal fraction of the blocks; backward 3 dqk + 2 dv */
    double c = core_r * weft_opcost_pair_fraction(pk, !g->m->bidirectional, g->m->window,
                                                  weft_opcost_window_share(g->m));
    t->f_attn = lin_r + c;
    t->x_attn = c * (3 * t->dqk + 2 * t->dv) / (t->dqk + t->dv) - 2 * c;
    t->f_core = 0; /* nothing left for selective recomputation */
  } else {
    t->f_attn = lin_r + core_r;
    t->x_attn = 0;
    t->f_core = core_r;
  }
  t->m_mlp = 2 * Tm * h * t->ffn * t->fm;
  t->f_mlp = t->m_mlp / Tm * Tr / tp;
  double tt_attn = h * (t->akv * t->dqk + a * t->dv), tt_mlp = t->fm == 3 ? h * t->ffn : 0;
  t->f_tt_attn = 2 * Tr * tt_attn / tp;
  t->f_tt_mlp = 2 * Tr * tt_mlp / tp;
  t->m_tt = 2 * Tm * (tt_attn + tt_mlp);
  double expert_f = 2 * h * t->fe * t->fm; /* per token */
  t->m_moe = Tm * ((t->k + t->sh) * expert_f + 2 * h * t->E);
  t->f_moe = t->m_moe / Tm * Tr / tp;
  t->m_logits = 2 * Tm * h * t->V;
  t->f_logits = t->m_logits / Tm * Tr / tp;
  double expert = t->fm * h * t->fe + (bias ? t->fe + h : 0);
  t->el_attn = (attn_el - rep_el) / tp + rep_el + norm;
  t->el_mlp = (t->fm * h * t->ffn + (bias ? t->ffn + h : 0)) / tp + norm;
  t->el_moe_dense = h * t->E + norm + t->sh * expert / tp; /* router, norm, shared experts */
  t->el_moe_expert = t->E / p->ep * expert / g->etp; /* split over ETP (tp unless folded) */
  t->lin_attn = split / tp + rep;
  t->lin_mlp = t->fm * h * t->ffn / tp;
  t->lin_moe_dense = t->sh * t->fm * h * t->fe / tp;
  t->lin_moe_expert = t->E / p->ep * t->fm * h * t->fe / g->etp;
  t->el_emb = t->V * h / tp + (weft_model_rotary(g->m) ? 0 : s * h); /* vocab-parallel; learned
                                                                        positions replicated */
  /* MTP (DeepSeek-V3 Section 2.2): per module the 2h x h projection
   * (column-parallel), a layer like the last one, the shared head again */
  t->D = g->m->mtp_layers;
  t->mtp_moe = moe_layers(g, t->L, t->L);
  double proj_r = 2 * Tr * 2 * h * h / tp, proj_m = 2 * Tm * 2 * h * h;
  t->f_head = t->D * (proj_r + t->f_logits);
  t->f_mtp = t->D * (t->f_attn + (t->mtp_moe ? t->f_moe : t->f_mlp)) + t->f_head;
  t->m_mtp = t->D * (t->m_attn + (t->mtp_moe ? t->m_moe : t->m_mlp) + proj_m + t->m_logits);
  t->el_mtp_dense = t->D * (t->el_attn + (t->mtp_moe ? t->el_moe_dense : t->el_mlp) +
                            2 * h * h / tp + 3 * norm);
  t->el_mtp_expert = t->D * (t->mtp_moe ? t->el_moe_expert : 0);
  t->lin_mtp_dense = t->D * (t->lin_attn + (t->mtp_moe ? t->lin_moe_dense : t->lin_mlp) +
                             2 * h * h / tp); /* the projection: Transformer Engine's too */
  t->lin_mtp_expert = t->D * (t->mtp_moe ? t->lin_moe_expert : 0);
  t->el_out = (weft_model_tied(g->m) && p->pp == 1 ? 0 : t->V * h / tp) + norm; /* + final norm */
  lora_derive(g, t, Tr, Tm);
}

/* Layers of a stage of n (v chunks) that full recomputation runs again:
 * all of them, or with method block the first N of each chunk (docs/zoo.md,
 * "Partial recomputation"); none without full recomputation. */
static int rc_layers(const WeftParallel *p, int n, int v) {
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
static int rc_mods(const WeftParallel *p) {
  if (p->recompute != WEFT_RECOMPUTE_SELECTIVE) return 0;
  if (p->recompute_modules & WEFT_RC_TORCHTITAN_OP) return WEFT_RC_TORCHTITAN_OP | WEFT_RC_CORE_ATTN;
  return p->recompute_modules ? p->recompute_modules : WEFT_RC_CORE_ATTN;
}

/* The share of a MoE layer's forward selective recomputation runs again:
 * all of it (moe), the shared experts' part, or nothing. */
static double moe_rc_share(const WeftParallel *p, const Tf *t) {
  int m = rc_mods(p);
  return m & WEFT_RC_MOE ? 1.0 : m & WEFT_RC_SHARED_EXPERTS && t->k + t->sh > 0 ? t->sh / (t->k + t->sh) : 0.0;
}

/* The forward FLOPs one rank runs for layers lo..hi and its backward
 * (2 x forward, flash's extra, the recomputed forward or attention core). */
static double layers_work(const Gen *g, const Tf *t, int lo, int hi, int v, int mode,
                          double *bwd) {
  int n = hi - lo + 1, ne = moe_layers(g, lo, hi);
  double f = n * t->f_attn + (n - ne) * t->f_mlp + ne * t->f_moe;
  int mods = rc_mods(g->par);
  double rc = mode == WEFT_RECOMPUTE_FULL ? f * rc_layers(g->par, n, v) / n
              : mode == WEFT_RECOMPUTE_SELECTIVE
                  ? (mods & WEFT_RC_CORE_ATTN ? n * t->f_core : 0) +
                        (mods & WEFT_RC_MLA_UP_PROJ ? n * t->f_up : 0) +
                        (mods & WEFT_RC_MLP ? (n - ne) * t->f_mlp : 0) +
                        (mods & WEFT_RC_TORCHTITAN_OP ? n * (t->f_tt_attn + t->f_tt_mlp) : 0) +
                        ne * t->f_moe * moe_rc_share(g->par, t)
                  : 0;
  *bwd = 2 * f + n * t->x_attn + rc;
  return f;
}

/* The weight-gradient FLOPs one rank runs for layers lo..hi: every linear
 * layer's, as many as its forward (the attention core has no weights). */
static double weight_work(const Gen *g, const Tf *t, int lo, int hi) {
  int n = hi - lo + 1, ne = moe_layers(g, lo, hi);
  return n * t->f_attn_lin + (n - ne) * t->f_mlp + ne * t->f_moe;
}

/* The model's FLOPs of all layers per micro-batch and the recomputed ones. */
static double model_layers(const Gen *g, const Tf *t, int mode, double *recompute) {
  int n = t->L, ne = moe_layers(g, 1, t->L), r = 0;
  double f = n * t->m_attn + (n - ne) * t->m_mlp + ne * t->m_moe;
  for (int k = 0; k < g->par->pp; k++) r += stage_rc(g->par, t, k);
  int mods = rc_mods(g->par);
  double sel = (mods & WEFT_RC_CORE_ATTN && !t->flash ? n * t->m_core : 0) +
               (mods & WEFT_RC_MLA_UP_PROJ ? n * t->m_up : 0) +
               (mods & WEFT_RC_MLP ? (n - ne) * t->m_mlp : 0) +
               (mods & WEFT_RC_TORCHTITAN_OP ? n * t->m_tt : 0) +
               ne * t->m_moe * moe_rc_share(g->par, t);
  *recompute = n * t->m_flash_rc + (mode == WEFT_RECOMPUTE_FULL ? f * r / n
                                    : mode == WEFT_RECOMPUTE_SELECTIVE ? sel : 0);
  return f;
}

/* DualPipe (DeepSeek-V3 Technical Report, Section 3.2.1, Table 2): rank k
 * runs stage k for the m/2 micro-batches fed at the first stage and stage
 * pp-1-k for the m/2 fed at the last, so m x (F + B) of work with F, B the
 * mean of its two stages' forward and full backward; the bubble is
 * (pp/2 - 1)(F&B + B - 3W), W the weight-gradient part of B and F&B a
 * forward and a backward chunk run together, whose compute is F + B (what
 * their communication hides is the training loop's, fwd-ig-overlap). The
 * critical rank's time over the slowest stage's f + b is R: the emitted
 * stage, repeated R times, takes that rank's time. */
static double dualpipe_repeats(const Gen *g, Tf *t, const double *fw, const double *bw) {
  int pp = g->par->pp;
  double worst = 0.0;
  /* lo: stage k's first layer; tail: the layers after stage j = pp-1-k */
  for (int k = 0, lo = 1, tail = 0; k < pp / 2; lo += t->sl[k], tail += t->sl[pp - 1 - k], k++) {
    int j = pp - 1 - k, loj = t->L + 1 - tail - t->sl[j];
    double w = weight_work(g, t, lo, lo + t->sl[k] - 1) +
               weight_work(g, t, loj, loj + t->sl[j] - 1) + (k == 0 ? t->f_logits : 0);
    double F = (fw[k] + fw[j]) / 2, B = (bw[k] + bw[j]) / 2, W = w / 2;
    double bubble = (pp / 2 - 1) * (F + 2 * B - 3 * W);
    double work = t->m * (F + B), rank = work + (bubble > 0 ? bubble : 0);
    if (rank > worst) {
      worst = rank;
      t->bubble = (rank - work) / work;
    }
  }
  return worst / (fw[t->e] + bw[t->e]);
}

/* Stage sizes, the critical stage and the repeats R of its per-micro-batch
 * work. 1F1B (v = 1): R = T / (f_e + b_e), T the exact timeline of the
 * stages' forward and backward FLOPs (backward = 2 x forward + the
 * recomputed forward; the logits on the last stage), e the slowest stage
 * (ties: the last). Equal stages with a last no lighter (every pp dividing
 * the layers) have the closed form T = (pp-1) W + m W_last, what the
 * timeline gives (tests/unit/test_recompute.c), without its O(pp m) steps.
 * Interleaved (equal stages): R = m + (pp-1)/v on the last. */
static int plan(Gen *g, Tf *t) {
  const WeftParallel *p = g->par;
  int pp = p->pp, rc;
  int small = pp <= PLAN_STACK_STAGES;
  double fw_stack[2 * PLAN_STACK_STAGES];
  t->sl = small ? t->sl_stack : malloc((size_t)pp * sizeof *t->sl);
  double *fw = small ? fw_stack : malloc(2 * (size_t)pp * sizeof *fw);
  if (!t->sl || !fw) {
    if (!small) free(fw);
    return weft_gen_fail(g, WEFT_ENOMEM, "", "out of memory for %d pipeline stages", pp);
  }
  double *bw = fw + pp, *cf = NULL; /* cf, cb: a layout's chunks (layout order) */
  if (t->cl) {
    for (int k = 0; k < pp; k++) t->sl[k] = 0;
    for (int x = 0; x < pp * t->v; x++) t->sl[x % pp] += t->cl[x];
  } else if (p->stage_layers)
    for (int k = 0; k < pp; k++) t->sl[k] = p->stage_layers[k];
  else if (accounted(p)) {
    if ((rc = weft_stage_layers_accounted(t->L, pp, t->v, p->pp_account_embedding,
                                          p->pp_account_loss, t->sl, g->err)))
      goto out;
  } else if ((rc = weft_stage_layers_balanced(t->L, pp, t->sl, g->err)))
    goto out;
  if (t->cl && !(cf = calloc(2 * (size_t)pp * t->v, sizeof *cf))) {
    rc = weft_gen_fail(g, WEFT_ENOMEM, "", "out of memory for %d pipeline chunks", pp * t->v);
    goto out;
  }
  t->e = pp - 1;
  for (int k = 0, lo = 1; k < pp; lo += t->sl[k++]) {
    double b = 0, f = 0;
    if (cf) /* a stage's work: its chunks', each over its own layers */
      for (int c = 0, a, z; c < t->v; c++) {
        layout_chunk(t, pp, k, c, &a, &z);
        double cb = 0, x = z >= a ? layers_work(g, t, a, z, 1, p->recompute, &cb) : 0;
        cf[c * pp + k] = x, cf[pp * t->v + c * pp + k] = cb;
        f += x, b += cb;
      }
    else
      f = layers_work(g, t, lo, lo + t->sl[k] - 1, t->v, p->recompute, &b);
    if (k == pp - 1) { /* logits (not recomputed) and the MTP modules, whose layers are
                          timed as the stage's (with its share of full recomputation) */
      double lay = t->f_mtp - t->f_head, f0 = f, b0 = b;
      f += t->f_logits + t->f_mtp;
      b += 2 * (t->f_logits + t->f_mtp) + t->D * t->x_attn +
           (p->recompute == WEFT_RECOMPUTE_FULL ? lay * stage_rc(p, t, k) / t->sl[k] : 0);
      if (cf) { /* in the last chunk, with the loss */
        cf[pp * t->v - 1] += f - f0;
        cf[2 * pp * t->v - 1] += b - b0;
      }
    }
    fw[k] = f;
    bw[k] = b;
  }
  double slowest = fw[t->e] + bw[t->e]; /* a local: the search is no chain of loads */
  for (int k = pp - 1; k >= 0; k--)
    if (fw[k] + bw[k] > slowest) {
      slowest = fw[k] + bw[k];
      t->e = k;
    }
  /* with ga_steps, ga schedules of ms micro-batches one after another */
  if (pp == 1) {
    t->R = t->m;
  } else if (p->schedule == WEFT_SCHEDULE_DUALPIPE) {
    t->R = dualpipe_repeats(g, t, fw, bw);
  } else if (t->v > 1 && cf) { /* a layout: Megatron's interleaved order, op by op */
    double T;
    if ((rc = weft_gen_interleaved(cf, cf + pp * t->v, pp, t->v, t->ms, &T))) {
      rc = weft_gen_fail(g, rc, "pp_layout",
                         "timing the interleaved pipeline of %d x %d chunks failed (%s)", pp,
                         t->v, weft_strerror(rc));
      goto out;
    }
    t->R = t->ga * T / (fw[t->e] + bw[t->e]);
  } else if (t->v > 1) { /* the slowest stage's rhythm: exact for equal stages */
    t->R = t->ga * (t->ms + (double)(pp - 1) / t->v);
  } else {
    double T;
    int equal = 1; /* stages 0..pp-2 alike, the last no lighter: a closed form */
    for (int k = 1; k < pp - 1 && equal; k++) equal = fw[k] == fw[0] && bw[k] == bw[0];
    if (equal && fw[pp - 1] >= fw[0] && bw[pp - 1] >= bw[0])
      T = (pp - 1) * (fw[0] + bw[0]) + t->ms * (fw[pp - 1] + bw[pp - 1]);
    else if ((rc = weft_gen_1f1b(fw, bw, pp, t->ms, &T))) {
      rc = weft_gen_fail(g, rc, "pp", "timing the 1F1B pipeline of %d stages failed (%s)", pp,
                         weft_strerror(rc));
      goto out;
    }
    t->R = t->ga * T / (fw[t->e] + bw[t->e]);
  }
  t->Ls = t->sl[t->e];
  t->a2a_q = weft_gen_a2a_paired(p, t->e, t->v, t->ms); /* per schedule */
  t->first = 1;
  for (int k = 0; k < t->e; k++) t->first += t->sl[k];
  rc = WEFT_OK;
out:
  free(cf);
  if (!small) free(fw);
  return rc;
}

/* Activation bytes of one layer for one micro-batch (Korthikanti et al. 2022,
 * generalised to GQA, MLA, any MLP width, MoE and CP; docs/zoo.md); *core =
 * the attention core's part (2as^2b/t: the softmax's output; with attention
 * dropout 5as^2b/t: + its mask, 1 byte an element, and its output), which
 * selective recomputation drops. Flash attention keeps no s^2 tensor: only
 * its softmax statistics (fp32, one per query and head); its dropout mask is
 * drawn again from the RNG state in backward. Korthikanti's 10sbh outside
 * TP: the two norms' inputs, the QKV's and the MLP's inputs (8sbh) and,
 * with hidden dropout, the two bias-dropout-add masks (sbh bytes each). */
static double layer_act(const Gen *g, const Tf *t, int moe, double *core) {
  const WeftParallel *p = g->par;
  double tp = p->tp, sb = t->sq * t->b, sbh = sb * t->h;
  double rep = 8 * sbh / (p->sequence_parallel ? tp : 1);
  double masks = weft_dropout(g->m, p, 1) > 0 ? 2 * sbh / (p->sequence_parallel ? tp : 1) : 0;
  int adrop = weft_dropout(g->m, p, 0) > 0;
  if (t->kl > 0) rep += 2 * sb * (t->ql + t->kl + t->rope); /* MLA latents, whole per rank */
  double kk = moe ? t->k + t->sh : 1, f = moe ? t->fe : t->ffn;
  double qkvo = 2 * t->a * t->dqk + 2 * t->akv * (t->dqk + t->dv) + 2 * t->a * t->dv;
  /* MLP: F f elements kept; an eager SwiGLU keeps silu's output for the
   * product's backward too (one f more) */
  double fk = t->fm + (p->activation_eager && t->fm == 3 ? 1 : 0);
  double par = sb * (qkvo + kk * 2 * fk * f) / tp;
  double att = t->flash ? 0 : (adrop ? 4 : 2) * t->a * t->sq * t->s * t->b / tp;
  double att_mask = t->flash || !adrop ? 0 : t->a * t->sq * t->s * t->b / tp; /* bytes */
  double lse = t->flash ? 4 * t->a / tp * sb : 0; /* bytes */
  /* FP8 GEMMs keep their inputs for the backward in FP8 (DeepSeek-V3,
   * Section 3.3.3; Transformer Engine's FP8 linear layers): the QKV and MLP
   * inputs, MLA's latents, the projection's and the second MLP GEMM's */
  double f8 = 0;
  if (p->fp8 && p->act_bytes > 1)
    f8 = sb * (2 * t->h / (p->sequence_parallel ? tp : 1) + (t->kl > 0 ? t->ql + t->kl + t->rope : 0) +
               (t->a * t->dv + kk * f) / tp) * (p->act_bytes - 1);
  *core = att * p->act_bytes / 2 + att_mask;
  return (rep + par + att) * p->act_bytes / 2 + lse - f8 + masks + att_mask;
}

/* Activation bytes of one layer (dense: moe 0, MoE: 1) that selective
 * recomputation's modules other than the attention core drop (layer_act's
 * units): mlp the dense MLP's kept tensors (2 F f per token), moe the
 * experts' (k + sh of them), shared_experts the shared ones', moe_act the
 * activation function's output (2 f each), layernorm the two norms' outputs
 * (the QKV's and the MLP's inputs, 2 h each, / t under SP), mla_up_proj
 * MLA's Q, K and V (2 a d_qk + 2 a (d_qk + d_v) / t: the up-projections'
 * outputs, made again from the latents, which stay). torchtitan_op keeps
 * the layer's input, the saved matmuls' outputs the backward needs (Q, V,
 * w1 or fc1) and SDPA's (the attention output, its statistics): the rest
 * of the layer's set goes (data/measured/h100_sac_check.csv: the policy's
 * saved bytes as these count them; under torch.compile the unneeded w2
 * output, saved in eager, is not), the attention core's part counted as
 * core_attn's (rc_mods). full and core: the layer's set and its core's
 * (layer_act's). */
static double rc_drop(const Gen *g, const Tf *t, int moe, double full, double core) {
  const WeftParallel *p = g->par;
  int m = rc_mods(p);
  double tp = p->tp, sb = t->sq * t->b, units = 0;
  if (m & WEFT_RC_TORCHTITAN_OP && !moe) {
    double kept = (2 * sb * t->h / (p->sequence_parallel ? tp : 1) +
                   sb * (2 * t->a * t->dqk + 2 * t->akv * t->dv + 2 * t->a * t->dv + 2 * t->ffn) / tp) *
                      p->act_bytes / 2 +
                  (t->flash ? 4 * t->a / tp * sb : 0);
    return full - core > kept ? full - core - kept : 0;
  }
  if (m & WEFT_RC_LAYERNORM) units += 4 * sb * t->h / (p->sequence_parallel ? tp : 1);
  if (m & WEFT_RC_MLA_UP_PROJ && t->kl > 0) units += sb * (2 * t->a * t->dqk + 2 * t->a * (t->dqk + t->dv)) / tp;
  if (!moe && m & WEFT_RC_MLP) units += sb * 2 * t->fm * t->ffn / tp;
  if (moe) {
    double kk = m & WEFT_RC_MOE ? t->k + t->sh : m & WEFT_RC_SHARED_EXPERTS ? t->sh : 0;
    units += sb * kk * 2 * t->fm * t->fe / tp;
    if (m & WEFT_RC_MOE_ACT) units += sb * (t->k + t->sh - kk) * 2 * t->fe / tp;
  }
  return units * p->act_bytes / 2;
}

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
static void a2a_bytes(const Gen *g, const Tf *t, double *d, double *Sk) {
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
static void sub_block(Gen *g, const Tf *t, int moe, GenBlock *blk) {
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
    a2a_bytes(g, t, &d, &Sk);
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
static void tied_allreduce(Gen *g, const Tf *t, GenBlock *blk) {
  if (t->tied)
    weft_gen_add_once(g, blk, WEFT_COLL_ALLREDUCE, GEN_EMB,
                      t->V * t->h / g->par->tp * g->par->grad_bytes);
}

/* Embedding (first stage): the vocab-parallel lookup's forward TP reduction. */
static void emb_block(Gen *g, const Tf *t, GenBlock *emb) {
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
  tied_allreduce(g, t, emb);
}

/* Logits (last stage): column-parallel over the vocabulary; its input is
 * gathered (SP) or copied, so the backward reduces over TP. Not recomputed.
 * Its weights: the tied embedding (pp = 1, synchronised by the embedding
 * entry), a copy of it (pp > 1) or its own (untied), plus the final norm. */
static void logits_block(Gen *g, const Tf *t, GenBlock *lg) {
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
  tied_allreduce(g, t, lg);
}

/* The MTP modules' heads (last stage): D projections (2h x h, column-
 * parallel) and D passes of the shared output head, timed as the logits
 * kernel scaled by their FLOPs (f_head / f_logits), with the logits' TP
 * collectives each; the gradients of the projections and the 3 norms.
 * Their layers are emitted from the attention and MLP templates. */
static void mtp_head_block(Gen *g, const Tf *t, GenBlock *hd) {
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

/* Dense and expert parameters an NPU of stage k holds; of them (lin) the
 * FP8 GEMMs' weights, dense then expert. */
static void stage_params(const Gen *g, const Tf *t, int k, int lo, double *dense, double *expert,
                         double lin[2]) {
  int n = t->sl[k], ne = stage_moe(g, t, k, lo), nd = n - ne;
  int last = k == g->par->pp - 1;
  *dense = n * t->el_attn + nd * t->el_mlp + ne * t->el_moe_dense + (k == 0 ? t->el_emb : 0) +
           (last ? t->el_out + t->el_mtp_dense : 0);
  *expert = ne * t->el_moe_expert + (last ? t->el_mtp_expert : 0);
  lin[0] = n * t->lin_attn + nd * t->lin_mlp + ne * t->lin_moe_dense + (last ? t->lin_mtp_dense : 0);
  lin[1] = ne * t->lin_moe_expert + (last ? t->lin_mtp_expert : 0);
}

/* Bytes a logit of the loss holds at its peak (docs/zoo.md, "The loss"):
 * Megatron-Core's kernels, fused or not, keep the fp32 softmax and write the
 * gradient over it; Transformer Engine's kernel writes the gradient over
 * the logits themselves; torch's F.cross_entropy, as autograd runs its
 * backward, holds three fp32 tensors a logit at once: the log-softmax it
 * kept, nll_loss's gradient (zeros, then the scatter) and log-softmax's
 * gradient written beside them; without the cast (torch_nocast) the same
 * three at the logits' width. */
static double loss_bytes(const WeftParallel *p) {
  if (p->cross_entropy == WEFT_CE_TE) return p->act_bytes;
  if (p->cross_entropy == WEFT_CE_TORCH_NOCAST) return 3 * p->act_bytes;
  return p->cross_entropy == WEFT_CE_TORCH ? 12.0 : 4.0;
}

/* Memory of pipeline stage k, first layer lo (1F1B: min(pp - k, m)
 * micro-batches in flight; DualPipe: rank k, stages k and pp-1-k (first
 * layer loj), pp + 1 chunks of stage k's layers; a layout with v > 1: held,
 * the stage's peak of layers in flight along Megatron's interleaved order,
 * over its layers); the rank of the last stage
 * adds the loss's logits of one micro-batch (b s V / t of loss_bytes, for
 * the loss and its gradient). act: a dense and a MoE layer's activations and the attention
 * core's part (layer_act), alike on every stage. */
static void stage_memory(Gen *g, const Tf *t, int k, int lo, int loj, const double act[3],
                         double held, WeftMemory *mem) {
  const WeftParallel *p = g->par;
  int n = t->sl[k], ne = stage_moe(g, t, k, lo), nd = n - ne;
  int dual = p->schedule == WEFT_SCHEDULE_DUALPIPE, j = p->pp - 1 - k;
  double dense, expert, lin[2];
  stage_params(g, t, k, lo, &dense, &expert, lin);
  if (dual) { /* the rank also holds stage pp-1-k; rank pp-1-k holds the same two stages,
                 so ZeRO shards their states over twice the DP ranks */
    double dj, ej, lj[2];
    stage_params(g, t, j, loj, &dj, &ej, lj);
    dense += dj;
    expert += ej;
    lin[0] += lj[0];
    lin[1] += lj[1];
  }
  weft_gen_memory_states(g, dense, (1 + dual) * g->size[GEN_DP], expert,
                         (1 + dual) * g->size[GEN_EDP], lin, mem);
  if (weft_lora_targets_of(p)) { /* LoRA: the frozen base, whole on every DP rank (no
                                   ZeRO shards what does not train), with Transformer
                                   Engine's two FP8 copies of each GEMM weight; FP8
                                   parameters (fp8_param_gather) keep those weights in
                                   FP8 alone, the row-wise copy the parameter, as
                                   weft_gen_memory_states */
    double fz = n * (t->frz_attn + t->frz_mlp) + (k == 0 ? t->frz_emb : 0) +
                (k == p->pp - 1 ? t->frz_out : 0);
    double fl = n * (t->frz_lin_attn + t->frz_lin_mlp);
    mem->params_bytes += fz * p->param_bytes;
    if (p->fp8)
      mem->params_bytes += fl * 2 * weft_opcost_fp8_copy_bytes(p->fp8, 1) -
                           (p->fp8_param_gather ? fl * p->param_bytes : 0);
  }
  /* 1F1B: pp - k micro-batches in flight; DualPipe: pp + 1 chunks (Table 2) */
  double inflight = held > 0 ? held / n : dual ? p->pp + 1 : p->pp - k < t->ms ? p->pp - k : t->ms;
  double ad = act[0], ae = act[1], core = act[2];
  if (p->recompute == WEFT_RECOMPUTE_FULL) {
    /* recomputed layers keep their inputs (uniform N: a group's), the rest
     * everything; in backward one recomputed layer's set (uniform N: N) */
    double in = 2 * t->sq * t->b * t->h / (p->sequence_parallel ? p->tp : 1) * p->act_bytes / 2;
    int r = stage_rc(p, t, k), N = p->recompute_num_layers > 0 ? p->recompute_num_layers : 1;
    double one = ne ? ae : ad, whole = (nd * ad + ne * ae) / n; /* a kept layer, on average */
    if (p->recompute_method == WEFT_RECOMPUTE_BLOCK)
      mem->activations_bytes = (r * in + (n - r) * whole) * inflight + one;
    else
      mem->activations_bytes = ceil((double)n / N) * in * inflight + (N < n ? N : n) * one;
  } else if (p->recompute == WEFT_RECOMPUTE_SELECTIVE) { /* + one layer's recomputed part */
    double c = rc_mods(p) & WEFT_RC_CORE_ATTN ? core : 0;
    double dd = c + rc_drop(g, t, 0, ad, core), de = c + rc_drop(g, t, 1, ae, core);
    mem->activations_bytes = (nd * (ad - dd) + ne * (ae - de)) * inflight + (ne ? de : dd);
  } else { /* offloading (pp 1): the last n - N layers' sets stay (TE's peak) */
    int off = p->cpu_offloading_num_layers, rne = off ? moe_layers(g, lo + off, lo + n - 1) : ne;
    mem->activations_bytes = ((n - off - rne) * ad + rne * ae) * inflight;
  }
  if (k == p->pp - 1 || (dual && k == 0)) mem->activations_bytes += loss_bytes(p) * t->b * t->sq * t->V / p->tp;
  if (k == p->pp - 1) /* MTP: its layers kept whole (not recomputed), a logits buffer each */
    mem->activations_bytes +=
        t->D * ((t->mtp_moe ? ae : ad) * inflight + loss_bytes(p) * t->b * t->sq * t->V / p->tp);
  mem->total_bytes =
      mem->params_bytes + mem->grads_bytes + mem->optimizer_bytes + mem->activations_bytes;
}

/* The optimizer step of the critical stage's NPU, memory bound: each element
 * of its optimizer shard reads its gradient, reads and writes its states and
 * writes its parameter: the per-operator roofline (achieved HBM bandwidth)
 * when the device has its data, else the nominal HBM bandwidth (none when
 * unknown). It is timed here once, as the workload's 'optimizer' entry. */
static double optimizer_ns(const Gen *g, const Tf *t) {
  const WeftParallel *p = g->par;
  if (!p->optimizer_step) return 0;
  double dense, expert, lin[2];
  stage_params(g, t, t->e, t->first, &dense, &expert, lin);
  double z = p->zero_stage >= 1, zg = p->zero_stage >= 2; /* ZeRO-2: gradients sharded too */
  double elems = dense / (z ? g->size[GEN_DP] : 1) + expert / (z ? g->size[GEN_EDP] : 1);
  double grads = dense / (zg ? g->size[GEN_DP] : 1) + expert / (zg ? g->size[GEN_EDP] : 1);
  if (g->opcost) return weft_opcost_optimizer_ns(g->dev, p, elems, grads);
  if (!(g->dev->hbm_bytes_per_s > 0)) return 0;
  double bytes = elems * (p->grad_bytes + 2 * p->optimizer_bytes + p->param_bytes);
  return bytes / g->dev->hbm_bytes_per_s * 1e9;
}

static void fill_info(Gen *g, const Tf *t) {
  const WeftParallel *p = g->par;
  WeftGenInfo *in = g->info;
  double B = g->m->global_batch, per_seq = 1.0 / t->b; /* FLOPs above are per b sequences */
  double extra, layers = model_layers(g, t, p->recompute, &extra);
  in->microbatches = t->m;
  in->layers_per_stage = t->Ls;
  in->bubble_fraction = g->par->schedule == WEFT_SCHEDULE_DUALPIPE && g->par->pp > 1
                            ? t->bubble /* R also holds the two stages' mean work */
                            : (t->R - t->m) / t->m;
  in->samples = B;
  in->tokens = B * t->s;
  /* LoRA: the frozen weights' GEMMs forward and input-gradient only, the
   * adapters' all three (m_lora: in the layers' count once already) */
  in->model_flops = weft_lora_targets_of(p)
                        ? B * per_seq * (2 * (layers + t->m_logits + t->m_mtp) + t->L * t->m_lora)
                        : 3 * B * per_seq * (layers + t->m_logits + t->m_mtp);
  in->hw_flops = in->model_flops + B * per_seq * (extra + t->D * t->m_flash_rc);
  in->critical_stage = t->e;
  in->pipeline_repeats = t->R;
  in->optimizer_ns = t->opt_ns;
  double act[3];
  act[0] = layer_act(g, t, 0, &act[2]);
  act[1] = layer_act(g, t, 1, &act[2]);
  /* A middle stage with an earlier middle stage's layer counts (dense, MoE)
   * holds the same states and no more micro-batches in flight, so (with
   * activations that do not shrink per micro-batch) never more memory: only
   * the first of each kind is costed. */
  int seen[MEM_KINDS][2], nseen = 0, skip = act[2] >= 0 && act[0] >= act[2] && act[1] >= act[2] &&
                                            p->schedule == WEFT_SCHEDULE_1F1B && /* DualPipe: pairs */
                                            !t->cl; /* a layout: in flight per stage */
  /* lo: stage k's first layer, loj stage pp-1-k's (DualPipe's pair) from the
   * layers after it, tail */
  for (int k = 0, lo = 1, tail = 0; k < p->pp;
       lo += t->sl[k], tail += t->sl[p->pp - 1 - k], k++) { /* the most loaded stage */
    int loj = t->L + 1 - tail - t->sl[p->pp - 1 - k];
    if (skip && k > 0 && k < p->pp - 1) {
      int n = t->sl[k], ne = stage_moe(g, t, k, lo), i = 0;
      while (i < nseen && (seen[i][0] != n || seen[i][1] != ne)) i++;
      if (i < nseen) continue;
      if (nseen < MEM_KINDS) seen[nseen][0] = n, seen[nseen++][1] = ne;
    }
    WeftMemory mk;
    memset(&mk, 0, sizeof mk); /* its padding too: info's bytes are deterministic */
    /* interleaved 1F1B: the layers in flight at the stage's peak, a
     * layout's along Megatron's order; Megatron's layout-less split (every
     * stage L / pp layers, chunks of L / (pp v)) in closed form; other
     * splits (accounted, pp_layers, uneven) keep 1F1B's count */
    int equal = t->v > 1 && !t->cl && !accounted(p) && !p->stage_layers &&
                t->L % (p->pp * t->v) == 0;
    double held = !(t->v > 1 && p->schedule == WEFT_SCHEDULE_1F1B) ? 0
                  : t->cl ? (double)weft_gen_interleaved_peak(t->cl, p->pp, t->v, t->ms, k)
                  : equal ? (double)weft_gen_interleaved_chunks(p->pp, t->v, t->ms, k) *
                                t->sl[k] / t->v
                          : 0;
    stage_memory(g, t, k, lo, loj, act, held, &mk);
    if (k == 0 || mk.total_bytes > in->mem.total_bytes) {
      in->mem = mk;
      in->memory_stage = k;
    }
  }
}

/* Gradient accumulation (docs/zoo.md, "Gradient accumulation"): a layer's
 * gradient is whole only after the last micro-batch's backward, and only then
 * is it synchronised, so each layer entry keeps that last backward (1/R of its
 * repeats) and the earlier ones run before it, as 'accumulation' entries the
 * backward pass meets first. Interleaved (v chunks): a stage runs its last
 * backward steps chunk by chunk, pp micro-batches each (Megatron's order), so
 * chunk c's other pp - 1 follow its layers ('chunk<c+1>.accumulation') and
 * the chunks below still hide its synchronisation. */
typedef struct {
  GenBlock rest;    /* every backward before the last group (v = 1: before the last) */
  int v;            /* chunks with their own accumulation (1: none) */
  double keep;      /* interleaved: micro-batches of the last group, min(pp, m) */
  GenBlock kept[3]; /* interleaved: attn, mlp, moe holding the last group's share */
} Accum;

/* The emitted stage's layers of chunk c of v: [*lo, *hi] (1-based; a
 * layout's may be empty, hi < lo). */
static void chunk_layers(const Gen *g, const Tf *t, int v, int c, int *lo, int *hi) {
  if (t->cl) {
    layout_chunk(t, g->par->pp, t->e, c, lo, hi);
    return;
  }
  int n = t->Ls / v;
  *lo = t->first + c * n;
  *hi = *lo + n - 1;
}

/* Activation offloading (pp 1, no recomputation): the stage's first N
 * layers' activations (layer_act) copied to the host after their forward and
 * back before their backward at the device's host link, one layer after
 * another beside the compute (TE's schedule, weft_offload_stall_ns, on the
 * stage's mean layer); what the compute waits, per micro-batch, is charged
 * to the attention blocks' forward and input-grad compute, a share a layer. */
static void offload_stall(Gen *g, const Tf *t, GenBlock *attn, const GenBlock *mlp,
                          const GenBlock *moe, int nd, int ne) {
  int L = t->Ls, N = g->par->cpu_offloading_num_layers, ne_o = moe_layers(g, t->first, t->first + N - 1);
  double core, bytes = (N - ne_o) * layer_act(g, t, 0, &core) + ne_o * layer_act(g, t, 1, &core);
  double copy_ns = bytes / N / g->dev->host_bytes_per_s * 1e9, f = 0, b = 0;
  const GenBlock *blk[3] = {attn, nd ? mlp : NULL, ne ? moe : NULL};
  const double cnt[3] = {L, nd, ne};
  for (int k = 0; k < 3; k++)
    if (blk[k]) {
      f += cnt[k] * blk[k]->compute_ns[WEFT_PHASE_FWD];
      b += cnt[k] * (blk[k]->compute_ns[WEFT_PHASE_IG] + blk[k]->compute_ns[WEFT_PHASE_WG]);
    }
  double per = t->R / L; /* the blocks hold R micro-batches; the stall spread over L layers */
  attn->compute_ns[WEFT_PHASE_FWD] += per * weft_offload_stall_ns(L, N, f / t->R / L, copy_ns);
  attn->compute_ns[WEFT_PHASE_IG] += per * weft_offload_stall_ns(L, N, b / t->R / L, copy_ns);
}

/* Chunk c's accumulation (layers lo..hi): the last group's share kept of
 * its attn, mlp and moe blocks, less the last micro-batch's. */
static void chunk_accum(Gen *g, const Accum *a, int lo, int hi, GenBlock *out) {
  double ne = moe_layers(g, lo, hi), n[3] = {hi - lo + 1, hi - lo + 1 - ne, ne};
  weft_gen_block_clear(out);
  for (int k = 0; k < 3; k++) {
    GenBlock last = a->kept[k];
    weft_gen_split_last(g, &last, a->keep, n[k], out);
  }
}

static void emit_layers(Gen *g, const Tf *t, const GenBuckets *bk, int lo, int hi,
                        const GenBlock *attn, const GenBlock *mlp, const GenBlock *moe) {
  char name[WEFT_NAME_LEN];
  int ne = moe_layers(g, lo, hi), nd = hi - lo + 1 - ne;
  GenBlock b;
  if (g->compact) {
    weft_gen_range_name(name, sizeof name, lo, hi, "attn");
    weft_gen_bucket_share(g, bk, t->el_attn, t->lin_attn, 0, 0, attn, &b);
    weft_gen_emit(g, name, &b, hi - lo + 1);
    if (nd) { /* first and last dense layer of the range */
      int a = lo, z = hi;
      while (moe_layers(g, a, a)) a++;
      while (moe_layers(g, z, z)) z--;
      weft_gen_range_name(name, sizeof name, a, z, "mlp");
      weft_gen_bucket_share(g, bk, t->el_mlp, t->lin_mlp, 0, 0, mlp, &b);
      weft_gen_emit(g, name, &b, nd);
    }
    if (ne) { /* first and last MoE layer */
      int a = lo, z = hi;
      while (!moe_layers(g, a, a)) a++;
      while (!moe_layers(g, z, z)) z--;
      weft_gen_range_name(name, sizeof name, a, z, "moe");
      weft_gen_bucket_share(g, bk, t->el_moe_dense, t->lin_moe_dense, t->el_moe_expert,
                            t->lin_moe_expert, moe, &b);
      weft_gen_emit(g, name, &b, ne);
    }
    return;
  }
  for (int i = lo; i <= hi; i++) {
    int is_moe = moe_layers(g, i, i);
    weft_gen_range_name(name, sizeof name, i, i, "attn");
    weft_gen_bucket_entry(g, bk, i, 0, attn, &b);
    weft_gen_emit(g, name, &b, 1);
    weft_gen_range_name(name, sizeof name, i, i, is_moe ? "moe" : "mlp");
    weft_gen_bucket_entry(g, bk, i, 1, is_moe ? moe : mlp, &b);
    weft_gen_emit(g, name, &b, 1);
  }
}

/* FSDP under torch's pipeline (zero 3, reshard_after_forward off, pp > 1;
 * docs/zoo.md, "ZeRO-3 as FSDP2 runs it"): torch.distributed.pipelining's
 * stage turns FSDP's gradient sync off in every micro-batch's backward and,
 * after its last one, runs the stage's post-backward, every unit's
 * reduce-scatter at once (PipelineStage.backward_maybe_with_nosync). So a
 * chunk's reduce-scatters ride on one entry of their own, emitted before its
 * first layer: the backward pass meets it once the chunk's last backward is
 * done. rs holds them once a layer, by block (RS_*: attn, mlp, moe,
 * embedding, logits, MTP's layers and head); red gets chunk c's of nchunk,
 * layers [a, z] (none: a layout's chunk of the loss alone). */
enum { RS_ATTN, RS_MLP, RS_MOE, RS_EMB, RS_LOGITS, RS_MTP_ATTN, RS_MTP_LAYER, RS_MTP_HEAD, RS_N };
static void chunk_reduce(Gen *g, const Tf *t, GenBlock *rs, int c, int nchunk, int a, int z,
                         GenBlock *red) {
  int ne = z >= a ? moe_layers(g, a, z) : 0, n = z >= a ? z - a + 1 : 0;
  double cnt[RS_N] = {n, n - ne, ne, c == 0, c == nchunk - 1, 0, 0, 0};
  if (c == nchunk - 1) cnt[RS_MTP_ATTN] = cnt[RS_MTP_LAYER] = t->D, cnt[RS_MTP_HEAD] = 1;
  weft_gen_block_clear(red);
  for (int k = 0; k < RS_N; k++) weft_gen_stage_reduce(g, &rs[k], cnt[k], 0, red);
}

static int emit(Gen *g, Tf *t) {
  const WeftParallel *p = g->par;
  int lo = t->first, hi = t->first + t->Ls - 1; /* the critical stage's layers */
  int ne = stage_moe(g, t, t->e, lo), nd = t->Ls - ne, rc;
  int has_emb = t->e == 0, has_logits = t->e == p->pp - 1;
  /* Only the blocks emitted are built: a named group exists only when used. */
  GenBlock attn, mlp, moe, emb, logits, pipe, opt; /* emb, logits: cleared when built */
  GenBlock mtp_attn, mtp_layer, mtp_head;           /* built with has_mtp */
  int has_mtp = has_logits && t->D > 0;
  weft_gen_block_clear(&opt);
  /* Pipeline P2P overlap (Megatron's, interleaved only): of the n = R v
   * transfers each way the first forward receive and the last backward send
   * block, the other n - 1 run under the other micro-batches' compute. */
  double steps = t->R * t->v, p2p = p->overlap_p2p && t->v > 1 && steps > 1 ? 1.0 : 0.0;
  double blocking = p2p ? 1.0 : steps;
  if (p->pp > 1) { /* the critical stage receives activations, sends gradients */
    weft_gen_block_clear(&pipe);
    weft_gen_add(g, &pipe, WEFT_PHASE_FWD, WEFT_COLL_SENDRECV, GEN_PP, blocking * t->S / p->tp,
                 blocking);
    weft_gen_add(g, &pipe, WEFT_PHASE_IG, WEFT_COLL_SENDRECV, GEN_PP, blocking * t->S / p->tp,
                 blocking);
  }
  if (has_emb) emb_block(g, t, &emb);
  sub_block(g, t, -1, &attn);
  if (nd) sub_block(g, t, 0, &mlp);
  if (ne) sub_block(g, t, 1, &moe);
  if (ne && t->a2a_q > 0) { /* moe_a2a_overlap: the paired micro-batches' all-to-alls */
    double d, Sk;
    a2a_bytes(g, t, &d, &Sk);
    weft_gen_moe_a2a(g, &moe, &attn, t->R, t->a2a_q, d * Sk, Sk);
  }
  if (p->zero_stage == 3) { /* one hinge per layer (FSDP's unit), not per sub-block */
    if (nd) weft_gen_zero3_per_layer(g, &attn, &mlp, (double)nd / t->Ls);
    if (ne) weft_gen_zero3_per_layer(g, &attn, &moe, (double)ne / t->Ls);
  }
  if (has_logits) logits_block(g, t, &logits);
  if (has_mtp) { /* the last layer's kind: built on the last stage, which holds it */
    mtp_attn = attn;
    mtp_layer = t->mtp_moe ? moe : mlp;
    mtp_head_block(g, t, &mtp_head);
  }
  if (p->cpu_offloading_num_layers > 0) offload_stall(g, t, &attn, &mlp, &moe, nd, ne);
  if (p->pp > 1 && p2p) { /* the rest under (n - 1) / n of the stage's forward, backward */
    double fwd = 0.0, bwd = 0.0;
    const GenBlock *b[5] = {&attn, nd ? &mlp : NULL, ne ? &moe : NULL, has_emb ? &emb : NULL,
                            has_logits ? &logits : NULL};
    const double cnt[5] = {t->Ls, nd, ne, 1, 1};
    for (int k = 0; k < 5; k++)
      if (b[k]) {
        fwd += cnt[k] * b[k]->compute_ns[WEFT_PHASE_FWD];
        bwd += cnt[k] * (b[k]->compute_ns[WEFT_PHASE_IG] + b[k]->compute_ns[WEFT_PHASE_WG]);
      }
    double share = (steps - 1) / steps;
    weft_gen_add_hidden(g, &pipe, WEFT_PHASE_FWD, WEFT_COLL_SENDRECV, GEN_PP,
                        (steps - 1) * t->S / p->tp, steps - 1, share * fwd, GEN_HIDE_P2P);
    weft_gen_add_hidden(g, &pipe, WEFT_PHASE_IG, WEFT_COLL_SENDRECV, GEN_PP,
                        (steps - 1) * t->S / p->tp, steps - 1, share * bwd, GEN_HIDE_P2P);
  }
  /* FP8 weights cast once an iteration (the first micro-batch's forward):
   * charged with the optimizer step, the other once-an-iteration kernels */
  double casts_ns = g->opcost ? t->Ls * g->oc_once_ns[OC_ATTN] + nd * g->oc_once_ns[OC_MLP] +
                                    ne * g->oc_once_ns[OC_MOE]
                              : 0.0;
  double step_ns = (t->opt_ns = optimizer_ns(g, t)) + casts_ns;
  opt.compute_ns[WEFT_PHASE_WG] = step_ns;

  int stage_rs = p->zero_stage == 3 && p->no_reshard && p->pp > 1;
  GenBlock rs[RS_N], rs_all; /* stage_rs: the blocks' reduce-scatters, taken off them */
  if (stage_rs) {
    GenBlock *from[RS_N] = {&attn, nd ? &mlp : NULL, ne ? &moe : NULL, has_emb ? &emb : NULL,
                            has_logits ? &logits : NULL, has_mtp ? &mtp_attn : NULL,
                            has_mtp ? &mtp_layer : NULL, has_mtp ? &mtp_head : NULL};
    weft_gen_block_clear(&rs_all);
    for (int k = 0; k < RS_N; k++) {
      weft_gen_block_clear(&rs[k]);
      if (from[k]) weft_gen_stage_reduce(g, from[k], 1, 1, &rs[k]);
      weft_gen_stage_reduce(g, &rs[k], 1, 0, &rs_all);
    }
  }

  Accum acc;
  weft_gen_block_clear(&acc.rest);
  int has_acc = t->R > 1.0 && !p->merged_backward;
  acc.keep = p->pp < t->ms ? p->pp : t->ms;
  acc.v = has_acc && t->v > 1 && acc.keep > 1 && (t->cl || t->Ls % t->v == 0) ? t->v : 1;
  int nchunk = t->cl ? t->v : acc.v; /* a layout: its chunks emitted apart, as placed */
  if (has_acc) {
    /* pipeline, embedding and logits: all but the last micro-batch to rest */
    if (p->pp > 1) weft_gen_split_last(g, &pipe, t->R, 1, &acc.rest);
    if (has_emb) weft_gen_split_last(g, &emb, t->R, 1, &acc.rest);
    if (has_logits) weft_gen_split_last(g, &logits, t->R, 1, &acc.rest);
    if (has_mtp) {
      weft_gen_split_last(g, &mtp_attn, t->R, t->D, &acc.rest);
      weft_gen_split_last(g, &mtp_layer, t->R, t->D, &acc.rest);
      weft_gen_split_last(g, &mtp_head, t->R, 1, &acc.rest);
    }
    double R = acc.v > 1 ? t->R / acc.keep : t->R; /* interleaved: keep the last group */
    weft_gen_split_last(g, &attn, R, t->Ls, &acc.rest);
    if (nd) weft_gen_split_last(g, &mlp, R, nd, &acc.rest);
    if (ne) weft_gen_split_last(g, &moe, R, ne, &acc.rest);
    if (acc.v > 1) { /* the layers keep 1/keep of it, each chunk the rest (emission) */
      GenBlock *blk[3] = {&attn, &mlp, &moe}, scratch;
      weft_gen_block_clear(&scratch);
      for (int k = 0; k < 3; k++) {
        if ((k == 1 && !nd) || (k == 2 && !ne)) { /* not built */
          weft_gen_block_clear(&acc.kept[k]);
          continue;
        }
        acc.kept[k] = *blk[k];
        weft_gen_split_last(g, blk[k], acc.keep, 0, &scratch); /* no copies: nothing moves */
      }
    }
  }
  int n_attn = weft_gen_bucket_bound(g, &attn);
  int n_mlp = nd ? weft_gen_bucket_bound(g, &mlp) : 0;
  int n_moe = ne ? weft_gen_bucket_bound(g, &moe) : 0;
  int n = (p->pp > 1 ? weft_gen_block_entries(&pipe) : 0) +
          (has_emb ? weft_gen_block_entries(&emb) : 0) +
          (has_logits ? weft_gen_block_entries(&logits) : 0) +
          (has_mtp ? weft_gen_block_entries(&mtp_attn) + weft_gen_block_entries(&mtp_layer) +
                         weft_gen_block_entries(&mtp_head)
                   : 0) +
          (has_acc ? weft_gen_block_entries(&acc.rest) : 0) + (step_ns > 0);
  if (stage_rs) n += nchunk * weft_gen_block_entries(&rs_all);
  if (acc.v > 1) /* at most every kept collective in each chunk's accumulation */
    n += acc.v * (weft_gen_block_entries(&acc.kept[0]) + weft_gen_block_entries(&acc.kept[1]) +
                  weft_gen_block_entries(&acc.kept[2]));
  if (g->compact)
    n += nchunk * (n_attn + n_mlp + n_moe);
  else
    n += t->Ls * n_attn + nd * n_mlp + ne * n_moe;
  if ((rc = weft_gen_reserve(g, n))) return rc;
  GenBuckets bk; /* a DDP instance per model chunk (interleaved), whatever the emission */
  GenLayerParams lp = {{t->el_attn, t->el_mlp, t->el_moe_dense, t->el_moe_expert},
                       {t->lin_attn, t->lin_mlp, t->lin_moe_dense, t->lin_moe_expert}};
  int *span = NULL; /* a layout: each chunk's first layer and layers */
  if (t->cl && (span = malloc(2 * (size_t)t->v * sizeof *span)))
    for (int c = 0, a, z; c < t->v; c++) {
      chunk_layers(g, t, t->v, c, &a, &z);
      span[c] = a, span[t->v + c] = z - a + 1;
    }
  if ((t->cl && !span) ||
      weft_gen_buckets_plan(g, &lp, t->first, t->Ls,
                            t->v > 1 && (t->cl || t->Ls % t->v == 0) ? t->v : 1, span,
                            span ? span + t->v : NULL, &bk)) {
    free(span);
    return weft_gen_fail(g, WEFT_ENOMEM, "", "out of memory for %d layers' gradient buckets",
                         t->Ls);
  }
  free(span);

  char name[WEFT_NAME_LEN];
  GenBlock red;
  for (int c = 0; c < nchunk; c++) {
    int a = lo, z = hi;
    if (nchunk > 1) chunk_layers(g, t, nchunk, c, &a, &z);
    if (stage_rs) { /* met by the backward after the chunk's layers (the first's: last) */
      chunk_reduce(g, t, rs, c, nchunk, a, z, &red);
      if (nchunk > 1)
        snprintf(name, sizeof name, "chunk%d.reduce", c + 1);
      else
        snprintf(name, sizeof name, "stage.reduce");
      if (red.ncoll[WEFT_PHASE_WG]) weft_gen_emit(g, name, &red, 1);
    }
    if (c == 0) {
      if (p->pp > 1) weft_gen_emit(g, "pipeline", &pipe, 1);
      if (has_emb) weft_gen_emit(g, "embedding", &emb, 1);
    }
    if (z < a) continue; /* a layout's chunk with no layer (the loss alone) */
    emit_layers(g, t, &bk, a, z, &attn, &mlp, &moe);
    if (acc.v > 1) {
      GenBlock chunk;
      chunk_accum(g, &acc, a, z, &chunk);
      snprintf(name, sizeof name, "chunk%d.accumulation", c + 1);
      weft_gen_emit(g, name, &chunk, 1);
    }
  }
  if (has_logits) weft_gen_emit(g, "logits", &logits, 1);
  if (has_mtp) {
    weft_gen_emit(g, "mtp.attn", &mtp_attn, t->D);
    weft_gen_emit(g, t->mtp_moe ? "mtp.moe" : "mtp.mlp", &mtp_layer, t->D);
    weft_gen_emit(g, "mtp.head", &mtp_head, 1);
  }
  if (has_acc) weft_gen_emit(g, "accumulation", &acc.rest, 1);
  if (step_ns > 0) weft_gen_emit(g, "optimizer", &opt, 1);
  free(bk.sync);
  return WEFT_OK;
}

int weft_gen_transformer(Gen *g) {
  Tf t = {0};
  int rc = check(g, &t);
  if (rc) {
    free(t.cl);
    return rc;
  }
  if ((rc = weft_gen_map(g))) {
    free(t.cl);
    return rc;
  }
  derive(g, &t);
  weft_gen_policy(g->wl->policy, sizeof g->wl->policy, g->par->tp);
  if (!(rc = plan(g, &t)) && !(rc = emit(g, &t))) fill_info(g, &t);
  if (t.sl != t.sl_stack) free(t.sl);
  free(t.cl);
  return rc;
}
