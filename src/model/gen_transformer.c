/* gen_transformer.c — Megatron-style transformer workloads: TP (+SP), PP 1F1B,
 * DP with ZeRO, MoE expert parallel; FLOPs, traffic and memory per docs/zoo.md. */
#include <math.h>
#include <stdio.h>

#include "model/gen.h"

typedef struct {
  double b, s, h, a, kv, ffn, fm, V, E, k; /* k: experts per token */
  int L, Ls, me, m, v;                     /* me: every me-th layer is MoE; v chunks/stage */
  double R;                                /* stage work repeats: m + (pp-1)/v */
  double S;                                /* b*s*h*act_bytes: one activation */
  /* forward FLOPs per micro-batch: attention, dense MLP, MoE MLP, logits */
  double f_attn, f_mlp, f_moe, f_logits;
  /* parameters per NPU (shards) */
  double el_attn, el_mlp, el_moe_dense, el_moe_expert, el_emb, el_out, el_norm;
} Tf;

static int moe_layers(const Tf *t, int lo, int hi) { /* MoE layers among lo..hi (1-based) */
  if (t->E <= 0) return 0;
  return hi / t->me - (lo - 1) / t->me;
}

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
  if (m->layers % p->pp)
    return weft_gen_fail(g, WEFT_EINPUT, "pp", "pp = %d does not divide the %d layers of %s", p->pp,
                         m->layers, m->name);
  if (m->heads % p->tp)
    return weft_gen_fail(g, WEFT_EINPUT, "tp", "tp = %d does not divide the %d heads of %s", p->tp,
                         m->heads, m->name);
  long long per = (long long)p->dp * p->micro_batch;
  if (m->global_batch % per)
    return weft_gen_fail(g, WEFT_EINPUT, "micro_batch",
                         "global batch %d is not a multiple of dp*micro_batch = %d*%d = %lld",
                         m->global_batch, p->dp, p->micro_batch, per);
  if (p->ep > 1) {
    if (m->experts == 0)
      return weft_gen_fail(g, WEFT_EINPUT, "ep", "ep = %d but %s has no experts", p->ep, m->name);
    if (p->dp % p->ep || m->experts % p->ep)
      return weft_gen_fail(g, WEFT_EINPUT, "ep", "ep = %d must divide dp = %d and the %d experts",
                           p->ep, p->dp, m->experts);
  }
  t->b = p->micro_batch;
  t->s = m->seq_len;
  t->h = m->hidden;
  t->a = m->heads;
  t->kv = t->h * (m->kv_heads > 0 ? m->kv_heads : m->heads) / t->a;
  t->ffn = m->ffn_hidden > 0 ? m->ffn_hidden : 4.0 * t->h;
  t->fm = m->ffn_matrices > 0 ? m->ffn_matrices : 2;
  t->V = m->vocab;
  t->E = m->experts;
  t->k = m->experts > 0 ? (m->top_k > 0 ? m->top_k : 1) : 0;
  t->me = m->moe_every > 0 ? m->moe_every : 1;
  t->L = m->layers;
  t->Ls = m->layers / p->pp;
  t->m = (int)(m->global_batch / per);
  /* Interleaved 1F1B (Narayanan et al. 2021): each stage holds v chunks of
   * L/(pp*v) layers; the bubble shrinks to (pp-1)/v micro-batch slots while
   * every micro-batch crosses v times as many stage boundaries. */
  t->v = p->virtual_stages > 1 ? p->virtual_stages : 1;
  if (t->v > 1 && (m->layers % (p->pp * t->v) || t->m % p->pp || p->pp == 1))
    return weft_gen_fail(g, WEFT_EINPUT, "virtual_stages",
                         "virtual_stages = %d needs pp > 1, pp x virtual_stages = %d dividing the "
                         "%d layers and pp dividing the %d micro-batches",
                         t->v, p->pp * t->v, m->layers, t->m);
  t->R = t->m + (double)(p->pp - 1) / t->v;
  return WEFT_OK;
}

/* FLOPs (2 per multiply-add) and parameter shards; docs/zoo.md. Two
 * families, as weft_model_params counts them: GeLU MLPs (2 matrices) come with
 * biases, LayerNorm, learned positions and a tied output layer; SwiGLU (3)
 * with no biases, RMSNorm, rotary positions and an untied output layer. */
static void derive(const Gen *g, Tf *t) {
  const WeftParallel *p = g->par;
  double b = t->b, s = t->s, h = t->h, tp = p->tp;
  int gelu = t->fm == 2;
  double norm = t->el_norm = gelu ? 2 * h : h; /* replicated over TP */
  t->S = b * s * h * p->act_bytes;
  t->f_attn = 2 * b * s * h * (h + 2 * t->kv) + 4 * b * s * s * h + 2 * b * s * h * h;
  t->f_mlp = 2 * b * s * h * t->ffn * t->fm;
  t->f_moe = t->k * t->f_mlp + 2 * b * s * h * t->E;
  t->f_logits = 2 * b * s * h * t->V;
  double expert = t->fm * h * t->ffn + (gelu ? t->ffn + h : 0);
  t->el_attn = (2 * h * h + 2 * h * t->kv + (gelu ? 2 * h + 2 * t->kv : 0)) / tp + norm;
  t->el_mlp = expert / tp + norm;
  t->el_moe_dense = h * t->E + norm; /* router + norm, replicated over TP */
  t->el_moe_expert = t->E / p->ep * expert / tp;
  t->el_emb = t->V * h / tp + (gelu ? s * h : 0); /* vocab-parallel; positions replicated */
  t->el_out = (gelu && p->pp == 1 ? 0 : t->V * h / tp) + norm; /* + the final norm */
}

/* Activation bytes of one layer for one micro-batch (Korthikanti et al. 2022,
 * generalised to GQA, any MLP width and MoE; docs/zoo.md). */
static double layer_act(const Gen *g, const Tf *t, int moe) {
  const WeftParallel *p = g->par;
  double tp = p->tp, sbh = t->s * t->b * t->h;
  double rep = 10 * sbh / (p->sequence_parallel ? tp : 1);
  double kk = moe ? t->k : 1;
  double par = sbh * (4 + 4 * t->kv / t->h + kk * 4 * (t->fm - 1) * t->ffn / t->h) / tp;
  double att = 5 * t->a * t->s * t->s * t->b / tp;
  return (rep + par + att) * p->act_bytes / 2;
}

/* TP collectives of a sub-block in one pass: AR of S, or with sequence
 * parallelism AG of the S/tp shard + RS of S. */
static void tp_comm(Gen *g, GenBlock *blk, WeftPhase ph, double mult, const Tf *t) {
  if (g->par->sequence_parallel) {
    weft_gen_add(g, blk, ph, WEFT_COLL_ALLGATHER, GEN_TP, mult * t->S / g->par->tp);
    weft_gen_add(g, blk, ph, WEFT_COLL_REDUCESCATTER, GEN_TP, mult * t->S);
  } else {
    weft_gen_add(g, blk, ph, WEFT_COLL_ALLREDUCE, GEN_TP, mult * t->S);
  }
}

/* A layer's attention (moe < 0), dense MLP (0) or MoE MLP (1) sub-block. */
static void sub_block(Gen *g, const Tf *t, int moe, GenBlock *blk) {
  const WeftParallel *p = g->par;
  double R = t->R, rc = p->recompute ? 1 : 0;
  double f = moe < 0 ? t->f_attn : moe ? t->f_moe : t->f_mlp;
  double c[WEFT_NPHASES];
  int ob = moe < 0 ? OC_ATTN : moe ? OC_MOE : OC_MLP;
  weft_gen_compute(g, ob, R, R * f / p->tp * g->ns_per_flop, c);
  weft_gen_block_clear(blk);
  blk->compute_ns[WEFT_PHASE_FWD] = c[WEFT_PHASE_FWD];
  blk->compute_ns[WEFT_PHASE_IG] = c[WEFT_PHASE_IG] + rc * c[WEFT_PHASE_FWD]; /* + recomputed fwd */
  blk->compute_ns[WEFT_PHASE_WG] = c[WEFT_PHASE_WG];
  tp_comm(g, blk, WEFT_PHASE_FWD, R, t);
  tp_comm(g, blk, WEFT_PHASE_IG, R * (1 + rc), t);
  if (moe > 0) { /* dispatch + combine all-to-alls, forward and backward */
    weft_gen_add(g, blk, WEFT_PHASE_FWD, WEFT_COLL_ALLTOALL, GEN_EP, 2 * R * t->S * t->k);
    weft_gen_add(g, blk, WEFT_PHASE_IG, WEFT_COLL_ALLTOALL, GEN_EP, 2 * R * t->S * t->k * (1 + rc));
  }
  double dense = moe < 0 ? t->el_attn : moe ? t->el_moe_dense : t->el_mlp;
  double expert = moe > 0 ? t->el_moe_expert : 0;
  blk->compute_ns[WEFT_PHASE_WG] += weft_gen_optimizer_ns(g, dense, g->size[GEN_DP]) +
                                    weft_gen_optimizer_ns(g, expert, g->size[GEN_EDP]);
  if (p->zero_stage == 3) /* parameters gathered for forward and again for backward */
    for (int ph = WEFT_PHASE_FWD; ph <= WEFT_PHASE_IG; ph++) {
      weft_gen_add(g, blk, (WeftPhase)ph, WEFT_COLL_ALLGATHER, GEN_DP,
                   R * dense / g->size[GEN_DP] * p->param_bytes);
      weft_gen_add(g, blk, (WeftPhase)ph, WEFT_COLL_ALLGATHER, GEN_EDP,
                   R * expert / g->size[GEN_EDP] * p->param_bytes);
    }
  weft_gen_grad_sync(g, blk, GEN_DP, dense, R);
  weft_gen_grad_sync(g, blk, GEN_EDP, expert, R);
}

/* Embedding (first stage): the vocab-parallel lookup's forward TP reduction. */
static void emb_block(Gen *g, const Tf *t, GenBlock *emb) {
  const WeftParallel *p = g->par;
  double R = t->R;
  weft_gen_block_clear(emb);
  weft_gen_compute(g, OC_EMB, R, 0.0, emb->compute_ns); /* flat model: not charged */
  emb->compute_ns[WEFT_PHASE_WG] += weft_gen_optimizer_ns(g, t->el_emb, g->size[GEN_DP]);
  weft_gen_add(g, emb, WEFT_PHASE_FWD,
               p->sequence_parallel ? WEFT_COLL_REDUCESCATTER : WEFT_COLL_ALLREDUCE, GEN_TP,
               R * t->S);
  if (p->zero_stage == 3)
    weft_gen_add(g, emb, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER, GEN_DP,
                 R * t->el_emb / g->size[GEN_DP] * p->param_bytes);
  weft_gen_grad_sync(g, emb, GEN_DP, t->el_emb, R);
}

/* Logits (last stage): column-parallel over the vocabulary; its input is
 * gathered (SP) or copied, so the backward reduces over TP. Not recomputed.
 * Its weights: the tied embedding (pp = 1, synchronised by the embedding
 * entry), a copy of it (pp > 1) or its own (untied), plus the final norm. */
static void logits_block(Gen *g, const Tf *t, GenBlock *lg) {
  const WeftParallel *p = g->par;
  double R = t->R, c = R * t->f_logits / p->tp * g->ns_per_flop;
  double w = t->V * t->h / p->tp + t->el_norm; /* the weights it uses, tied or not */
  double gather = R * w / g->size[GEN_DP] * p->param_bytes;
  weft_gen_block_clear(lg);
  weft_gen_compute(g, OC_LOGITS, R, c, lg->compute_ns);
  lg->compute_ns[WEFT_PHASE_WG] += weft_gen_optimizer_ns(g, t->el_out, g->size[GEN_DP]);
  if (p->sequence_parallel) {
    weft_gen_add(g, lg, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER, GEN_TP, R * t->S / p->tp);
    weft_gen_add(g, lg, WEFT_PHASE_IG, WEFT_COLL_REDUCESCATTER, GEN_TP, R * t->S);
  } else {
    weft_gen_add(g, lg, WEFT_PHASE_IG, WEFT_COLL_ALLREDUCE, GEN_TP, R * t->S);
  }
  if (p->zero_stage == 3) {
    weft_gen_add(g, lg, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER, GEN_DP, gather);
    weft_gen_add(g, lg, WEFT_PHASE_IG, WEFT_COLL_ALLGATHER, GEN_DP, gather);
  }
  weft_gen_grad_sync(g, lg, GEN_DP, t->el_out, R);
}

/* Memory of pipeline stage k (1F1B: min(pp - k, m) micro-batches in flight). */
static void stage_memory(Gen *g, const Tf *t, int k, WeftMemory *mem) {
  const WeftParallel *p = g->par;
  int ne = moe_layers(t, k * t->Ls + 1, (k + 1) * t->Ls), nd = t->Ls - ne;
  double dense = t->Ls * t->el_attn + nd * t->el_mlp + ne * t->el_moe_dense +
                 (k == 0 ? t->el_emb : 0) + (k == p->pp - 1 ? t->el_out : 0);
  weft_gen_memory_states(g, dense, g->size[GEN_DP], ne * t->el_moe_expert, g->size[GEN_EDP], mem);
  double inflight = p->pp - k < t->m ? p->pp - k : t->m;
  double ad = layer_act(g, t, 0), ae = layer_act(g, t, 1);
  if (p->recompute) { /* layer inputs kept, plus one layer's working set in backward */
    double in = 2 * t->s * t->b * t->h / (p->sequence_parallel ? p->tp : 1) * p->act_bytes / 2;
    mem->activations_bytes = t->Ls * in * inflight + (ne ? ae : ad);
  } else {
    mem->activations_bytes = (nd * ad + ne * ae) * inflight;
  }
  mem->total_bytes =
      mem->params_bytes + mem->grads_bytes + mem->optimizer_bytes + mem->activations_bytes;
}

static void fill_info(Gen *g, const Tf *t) {
  const WeftParallel *p = g->par;
  WeftGenInfo *in = g->info;
  double B = g->m->global_batch, per_seq = 1.0 / t->b; /* FLOPs above are per b sequences */
  int ne = moe_layers(t, 1, t->L);
  double layers = t->L * t->f_attn + (t->L - ne) * t->f_mlp + ne * t->f_moe;
  in->microbatches = t->m;
  in->layers_per_stage = t->Ls;
  in->bubble_fraction = (double)(p->pp - 1) / (t->v * t->m);
  in->samples = B;
  in->tokens = B * t->s;
  in->model_flops = 3 * B * per_seq * (layers + t->f_logits);
  in->hw_flops = in->model_flops + (p->recompute ? B * per_seq * layers : 0);
  WeftMemory first, last;
  stage_memory(g, t, 0, &first);
  stage_memory(g, t, p->pp - 1, &last);
  in->mem = last.total_bytes > first.total_bytes ? last : first;
}

/* "L<lo>-<hi>.<what>" or "L<i>.<what>". */
static void range_name(char *out, size_t n, int lo, int hi, const char *what) {
  if (lo == hi)
    snprintf(out, n, "L%d.%s", lo, what);
  else
    snprintf(out, n, "L%d-%d.%s", lo, hi, what);
}

int weft_gen_transformer(Gen *g) {
  Tf t;
  int rc = check(g, &t);
  if (rc) return rc;
  if ((rc = weft_gen_map(g))) return rc;
  derive(g, &t);
  const WeftParallel *p = g->par;
  snprintf(g->wl->policy, sizeof g->wl->policy, "HYBRID_TRANSFORMER model_parallel_NPU_group: %d",
           p->tp);
  int lo = t.L - t.Ls + 1, hi = t.L; /* the last stage's layers */
  int ne = moe_layers(&t, lo, hi), nd = t.Ls - ne;
  /* Only the blocks emitted are built: a named group exists only when used. */
  GenBlock attn, mlp, moe, emb, logits, pipe;
  weft_gen_block_clear(&emb);
  sub_block(g, &t, -1, &attn);
  if (nd) sub_block(g, &t, 0, &mlp);
  if (ne) sub_block(g, &t, 1, &moe);
  if (p->pp == 1) emb_block(g, &t, &emb);
  logits_block(g, &t, &logits);
  weft_gen_block_clear(&pipe); /* the critical (last) stage receives activations, sends gradients */
  if (p->pp > 1) {
    weft_gen_add(g, &pipe, WEFT_PHASE_FWD, WEFT_COLL_SENDRECV, GEN_PP, t.R * t.v * t.S / p->tp);
    weft_gen_add(g, &pipe, WEFT_PHASE_IG, WEFT_COLL_SENDRECV, GEN_PP, t.R * t.v * t.S / p->tp);
  }
  int n_attn = weft_gen_block_entries(&attn);
  int n_mlp = nd ? weft_gen_block_entries(&mlp) : 0, n_moe = ne ? weft_gen_block_entries(&moe) : 0;
  int n = weft_gen_block_entries(&logits) +
          (p->pp > 1 ? weft_gen_block_entries(&pipe) : weft_gen_block_entries(&emb));
  if (g->compact)
    n += n_attn + n_mlp + n_moe;
  else
    n += t.Ls * n_attn + nd * n_mlp + ne * n_moe;
  if ((rc = weft_gen_reserve(g, n))) return rc;

  char name[WEFT_NAME_LEN];
  if (p->pp > 1)
    weft_gen_emit(g, "pipeline", &pipe, 1);
  else
    weft_gen_emit(g, "embedding", &emb, 1);
  if (g->compact) {
    range_name(name, sizeof name, lo, hi, "attn");
    weft_gen_emit(g, name, &attn, t.Ls);
    if (nd) { /* first and last dense layer of the stage */
      int a = lo, z = hi;
      while (ne && a % t.me == 0) a++;
      while (ne && z % t.me == 0) z--;
      range_name(name, sizeof name, a, z, "mlp");
      weft_gen_emit(g, name, &mlp, nd);
    }
    if (ne) {
      int a = (lo + t.me - 1) / t.me * t.me, z = hi / t.me * t.me;
      range_name(name, sizeof name, a, z, "moe");
      weft_gen_emit(g, name, &moe, ne);
    }
  } else {
    for (int i = lo; i <= hi; i++) {
      int is_moe = t.E > 0 && i % t.me == 0;
      snprintf(name, sizeof name, "L%d.attn", i);
      weft_gen_emit(g, name, &attn, 1);
      snprintf(name, sizeof name, "L%d.%s", i, is_moe ? "moe" : "mlp");
      weft_gen_emit(g, name, is_moe ? &moe : &mlp, 1);
    }
  }
  weft_gen_emit(g, "logits", &logits, 1);
  fill_info(g, &t);
  return WEFT_OK;
}
