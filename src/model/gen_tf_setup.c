/* gen_tf_setup.c — the transformer generator's first steps: the
 * configuration checked against the model and the cluster (every refusal an
 * input error naming its field), then one derivation of the per-micro-batch
 * shapes, FLOPs and parameter shards the later steps read (docs/zoo.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/gen_tf.h"

/* pp x micro-batches above which the 1F1B timeline is not timed (~1 s). */
#define GEN_MAX_PIPELINE_STEPS 1e8
#define GEN_MAX_LAYOUT_CHUNKS (1 << 20) /* pp_layout's pp x virtual_stages */
/* pp x v x micro-batches above which a layout's interleaved timeline is not
 * timed: it keeps two end times per (micro-batch, chunk), 64 MB at most. */
#define GEN_MAX_LAYOUT_STEPS 4e6

int weft_tf_check(Gen *g, Tf *t) {
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
  WeftModelWidths w;
  weft_model_widths(m, &w);
  t->akv = w.kv_heads, t->dqk = w.dqk, t->dv = w.dv;     /* per-head widths */
  t->ql = w.q_lora, t->kl = w.kv_lora, t->rope = w.rope; /* MLA's latents */
  t->ffn = w.ffn, t->fe = w.moe_ffn, t->fm = w.ffn_matrices;
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
void weft_tf_derive(const Gen *g, Tf *t) {
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
