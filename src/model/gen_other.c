/* gen_other.c — CNN (data parallel) and DLRM (table-parallel embeddings,
 * data-parallel MLPs) workloads; formulas in docs/zoo.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/gen.h"

/* Optimizer state of an embedding table row: row-wise Adagrad keeps one fp32
 * per row (DLRM's usual choice), not optimizer_bytes per element. */
#define DLRM_ROW_STATE_BYTES 4.0

/* Is layer i the same as an earlier one (same FLOPs and parameters)? */
static int seen_before(const WeftModel *m, int first, int i) {
  for (int j = first; j < i; j++)
    if (m->layer[j].fwd_flops == m->layer[i].fwd_flops && m->layer[j].params == m->layer[i].params)
      return 1;
  return 0;
}

/* Layers [first, last) of m->layer, each forward / input-grad / weight-grad
 * compute on b samples, m_b times, gradients synchronised over group k.
 * compact: identical layers merge into the first, named "<name>(x<count>)". */
static int model_layers(Gen *g, int first, int last, double b, double mb, GenKind k) {
  const WeftModel *m = g->m;
  const WeftParallel *p = g->par;
  int rc = weft_gen_reserve(g, 2 * (last - first)); /* <= 2 entries each (ZeRO-1/2: RS + AG) */
  if (rc) return rc;
  for (int i = first; i < last; i++) {
    const WeftModelLayer *ml = &m->layer[i];
    double count = 1;
    if (g->compact) {
      if (seen_before(m, first, i)) continue;
      for (int j = i + 1; j < last; j++)
        count += m->layer[j].fwd_flops == ml->fwd_flops && m->layer[j].params == ml->params;
    }
    GenBlock blk;
    weft_gen_block_clear(&blk);
    double c = mb * b * ml->fwd_flops * g->ns_per_flop;
    blk.compute_ns[WEFT_PHASE_FWD] = c;
    blk.compute_ns[WEFT_PHASE_IG] = c * (p->recompute ? 2 : 1);
    blk.compute_ns[WEFT_PHASE_WG] = c;
    if (p->zero_stage == 3) {
      double gather = mb * ml->params / g->size[k] * p->param_bytes;
      weft_gen_zero3_gather(g, &blk, k, gather, mb, i > first);
    }
    weft_gen_grad_sync(g, &blk, k, ml->params, mb);
    char name[WEFT_NAME_LEN];
    if (count > 1)
      snprintf(name, sizeof name, "%.40s(x%d)", ml->name, (int)count);
    else
      snprintf(name, sizeof name, "%s", ml->name);
    weft_gen_emit(g, name, &blk, count);
  }
  return WEFT_OK;
}

static double sum_layers(const WeftModel *m, int first, int last, int what) {
  double s = 0;
  for (int i = first; i < last; i++)
    s += what == 0 ? m->layer[i].fwd_flops : what == 1 ? m->layer[i].params : m->layer[i].act_elems;
  return s;
}

static int check_layers(Gen *g) {
  const WeftModel *m = g->m;
  if (m->nlayers < 1 || m->nlayers > WEFT_MAX_MODEL_LAYERS)
    return weft_gen_fail(g, WEFT_EINPUT, "layers", "model '%s' has %d layers: need 1..%d", m->name,
                         m->nlayers, WEFT_MAX_MODEL_LAYERS);
  for (int i = 0; i < m->nlayers; i++) {
    const WeftModelLayer *l = &m->layer[i];
    if (!(l->fwd_flops >= 0 && l->params >= 0 && l->act_elems >= 0) ||
        !isfinite(l->fwd_flops + l->params + l->act_elems))
      return weft_gen_fail(g, WEFT_EINPUT, "layers",
                           "model '%s', layer %s: FLOPs, params and activations must be >= 0",
                           m->name, l->name);
  }
  if (g->par->ep != 1)
    return weft_gen_fail(g, WEFT_EINPUT, "ep", "ep = %d: model '%s' has no experts", g->par->ep,
                         m->name);
  const char *moe_opt = g->par->moe_dispatch_fp8  ? "moe_dispatch_fp8"
                        : g->par->moe_a2a_overlap ? "moe_a2a_overlap"
                        : g->par->moe_dispatcher  ? "moe_dispatcher"
                        : g->par->moe_routing     ? "moe_routing"
                                                  : NULL;
  if (moe_opt)
    return weft_gen_fail(g, WEFT_EINPUT, moe_opt, "%s: model '%s' has no experts", moe_opt,
                         m->name);
  if (g->par->fsdp == WEFT_FSDP_FSDP2)
    return weft_gen_fail(g, WEFT_EINPUT, "fsdp",
                         "fsdp fsdp2: model '%s' is not a transformer (FSDP2's copies are "
                         "modelled on a transformer's blocks)",
                         m->name);
  if (g->par->fp8_param_gather)
    return weft_gen_fail(g, WEFT_EINPUT, "fp8_param_gather",
                         "fp8_param_gather: model '%s' has no Transformer Engine linear layers "
                         "(FP8 parameters are a transformer's)",
                         m->name);
  if (g->fold) /* ep 1: etp other than tp */
    return weft_gen_fail(g, WEFT_EINPUT, "etp", "etp = %d: model '%s' has no experts",
                         g->par->expert_tp, m->name);
  return WEFT_OK;
}

static void fill_common(Gen *g, int m_b, double fwd_flops_per_sample, double weightless) {
  WeftGenInfo *in = g->info;
  double B = g->m->global_batch;
  in->microbatches = m_b;
  in->layers_per_stage = g->m->nlayers;
  in->bubble_fraction = 0;
  in->samples = B;
  in->tokens = B;
  in->model_flops = B * (3 * fwd_flops_per_sample + 2 * weightless);
  in->hw_flops =
      in->model_flops + (g->par->recompute ? B * (fwd_flops_per_sample + weightless) : 0);
}

int weft_gen_cnn(Gen *g) {
  const WeftModel *m = g->m;
  const WeftParallel *p = g->par;
  int rc = check_layers(g);
  if (rc) return rc;
  if (p->tp != 1 || p->pp != 1)
    return weft_gen_fail(
        g, WEFT_EINPUT, p->tp != 1 ? "tp" : "pp",
        "cnn models are data-parallel only: need tp = pp = 1, got tp = %d, pp = %d", p->tp, p->pp);
  long long per = (long long)p->dp * p->micro_batch;
  if (m->global_batch % per)
    return weft_gen_fail(g, WEFT_EINPUT, "micro_batch",
                         "global batch %d is not a multiple of dp*micro_batch = %d*%d = %lld",
                         m->global_batch, p->dp, p->micro_batch, per);
  if ((rc = weft_gen_map(g))) return rc;
  int mb = (int)(m->global_batch / per);
  snprintf(g->wl->policy, sizeof g->wl->policy, "DATA");
  if ((rc = model_layers(g, 0, m->nlayers, p->micro_batch, mb, GEN_DP))) return rc;
  WeftMemory *mem = &g->info->mem;
  weft_gen_memory_states(g, sum_layers(m, 0, m->nlayers, 1), p->dp, 0, 1, NULL, mem);
  mem->activations_bytes = p->micro_batch * sum_layers(m, 0, m->nlayers, 2) * p->act_bytes;
  fill_common(g, mb, sum_layers(m, 0, m->nlayers, 0), 0);
  return WEFT_OK;
}

static int check_dlrm(Gen *g) {
  const WeftModel *m = g->m;
  const WeftParallel *p = g->par;
  int rc = check_layers(g);
  if (rc) return rc;
  if (p->pp != 1)
    return weft_gen_fail(g, WEFT_EINPUT, "pp",
                         "dlrm: pipeline parallelism is not modelled: need pp = 1, "
                         "got %d",
                         p->pp);
  if (m->tables < 1 || m->emb_dim < 1 || m->pooling < 1 || !(m->table_rows >= 1))
    return weft_gen_fail(g, WEFT_EINPUT, "tables",
                         "model '%s': tables, emb_dim, pooling and table_rows must be >= 1",
                         m->name);
  if (m->nbottom < 0 || m->nbottom > m->nlayers)
    return weft_gen_fail(g, WEFT_EINPUT, "nbottom", "model '%s': nbottom %d is not in 0..%d",
                         m->name, m->nbottom, m->nlayers);
  if (!(g->dev->hbm_bytes_per_s > 0))
    return weft_gen_fail(g, WEFT_EINPUT, "hbm_bytes_per_s",
                         "device '%s': hbm_bytes_per_s must be > 0 (embedding lookups)",
                         g->dev->name);
  long long per = (long long)g->npus * p->micro_batch;
  if (m->global_batch % per)
    return weft_gen_fail(g, WEFT_EINPUT, "micro_batch",
                         "global batch %d is not a multiple of NPUs*micro_batch = %d*%d = %lld",
                         m->global_batch, g->npus, p->micro_batch, per);
  return WEFT_OK;
}

/* Embedding tables sharded over TP (the most loaded NPU holds ceil(T/tp));
 * every NPU is a data-parallel replica of the MLPs with its own samples. */
int weft_gen_dlrm(Gen *g) {
  const WeftModel *m = g->m;
  const WeftParallel *p = g->par;
  int rc = check_dlrm(g);
  if (rc) return rc;
  if ((rc = weft_gen_map(g))) return rc;
  snprintf(g->wl->policy, sizeof g->wl->policy, "HYBRID_DLRM");
  double b = p->micro_batch, T = m->tables, dim = m->emb_dim, tp = p->tp;
  double Tn = ceil(T / tp);
  int mb = (int)(m->global_batch / ((long long)g->npus * p->micro_batch));
  double touched = fmin(m->table_rows, (double)m->global_batch / p->dp * m->pooling);
  double inter = T * (T + 1) * dim; /* (T+1)T/2 dot products of dim MACs, per sample */

  GenBlock emb, it;
  weft_gen_block_clear(&emb);
  double lookup = tp * b * Tn * m->pooling * dim * p->param_bytes / g->dev->hbm_bytes_per_s * 1e9;
  emb.compute_ns[WEFT_PHASE_FWD] = mb * lookup;
  emb.compute_ns[WEFT_PHASE_WG] = mb * lookup; /* scatter-add of the row gradients */
  double pooled = mb * b * T * dim * p->act_bytes;
  weft_gen_add(g, &emb, WEFT_PHASE_FWD, WEFT_COLL_ALLTOALL, GEN_TP, pooled, mb);
  weft_gen_add(g, &emb, WEFT_PHASE_IG, WEFT_COLL_ALLTOALL, GEN_TP, pooled, mb);
  weft_gen_add(g, &emb, WEFT_PHASE_WG, WEFT_COLL_ALLREDUCE, GEN_DP,
               Tn * touched * dim * p->grad_bytes, 1);
  weft_gen_block_clear(&it);
  it.compute_ns[WEFT_PHASE_FWD] = mb * b * inter * g->ns_per_flop;
  it.compute_ns[WEFT_PHASE_IG] = mb * b * inter * g->ns_per_flop * (p->recompute ? 2 : 1);
  if ((rc = weft_gen_reserve(g, weft_gen_block_entries(&emb)))) return rc;
  weft_gen_emit(g, "embedding", &emb, 1); /* LIBRA's order: embedding, bottom MLP, top MLP */
  if ((rc = model_layers(g, 0, m->nbottom, b, mb, GEN_WORLD))) return rc;
  if ((rc = weft_gen_reserve(g, 1))) return rc;
  weft_gen_emit(g, "interaction", &it, 1);
  if ((rc = model_layers(g, m->nbottom, m->nlayers, b, mb, GEN_WORLD))) return rc;

  WeftMemory *mem = &g->info->mem;
  double mlp = sum_layers(m, 0, m->nlayers, 1);
  weft_gen_memory_states(g, mlp, g->npus, 0, 1, NULL, mem);
  mem->params_bytes += Tn * m->table_rows * dim * p->param_bytes;
  mem->grads_bytes += Tn * touched * dim * p->grad_bytes;
  mem->optimizer_bytes += Tn * m->table_rows * DLRM_ROW_STATE_BYTES;
  double per_sample = sum_layers(m, 0, m->nlayers, 2) + T * dim + T * (T + 1) / 2 + dim;
  mem->activations_bytes = (b * per_sample + tp * b * Tn * dim) * p->act_bytes;
  fill_common(g, mb, sum_layers(m, 0, m->nlayers, 0), inter);
  return WEFT_OK;
}
