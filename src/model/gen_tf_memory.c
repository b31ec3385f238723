/* gen_tf_memory.c — memory per NPU (parameters, gradients, optimizer
 * states, the activations 1F1B or interleaving keeps, recomputation's
 * drops, the loss's logits), the optimizer step's time, and the info the
 * caller reads (FLOPs, tokens, the critical stage) (docs/zoo.md, "Memory"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/gen_tf.h"

/* Activation bytes of one layer for one micro-batch (Korthikanti et al. 2022,
 * generalised to GQA, MLA, any MLP width, MoE and CP; docs/zoo.md); *core =
 * the attention core's part (2as^2b/t: the softmax's output; with attention
 * dropout 5as^2b/t: + its mask, 1 byte an element, and its output), which
 * selective recomputation drops. Flash attention keeps no s^2 tensor: only
 * its softmax statistics (fp32, one per query and head); its dropout mask is
 * drawn again from the RNG state in backward. Korthikanti's 10sbh outside
 * TP: the two norms' inputs, the QKV's and the MLP's inputs (8sbh) and,
 * with hidden dropout, the two bias-dropout-add masks (sbh bytes each). */
double weft_tf_layer_act(const Gen *g, const Tf *t, int moe, double *core) {
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
double weft_tf_rc_drop(const Gen *g, const Tf *t, int moe, double full, double core) {
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

/* Kinds of middle stages (layer counts) whose first stage fill_info keeps. */
#define MEM_KINDS 8

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
    double dd = c + weft_tf_rc_drop(g, t, 0, ad, core), de = c + weft_tf_rc_drop(g, t, 1, ae, core);
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
double weft_tf_optimizer_ns(const Gen *g, const Tf *t) {
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

void weft_tf_fill_info(Gen *g, const Tf *t) {
  const WeftParallel *p = g->par;
  WeftGenInfo *in = g->info;
  double B = g->m->global_batch, per_seq = 1.0 / t->b; /* FLOPs above are per b sequences */
  double extra, layers = weft_tf_model_layers(g, t, p->recompute, &extra);
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
  act[0] = weft_tf_layer_act(g, t, 0, &act[2]);
  act[1] = weft_tf_layer_act(g, t, 1, &act[2]);
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
