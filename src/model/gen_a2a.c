/* gen_a2a.c — Megatron-Core's MoE all-to-all overlap (--overlap-moe-expert-
 * parallel-comm, Megatron-Bridge's moe_a2a_overlap; docs/zoo.md, "MoE
 * all-to-all overlap"): the combined 1F1B schedule's pairing of a forward
 * and a backward micro-batch, and the EP all-to-alls it hides; the checks
 * of the all-to-all options (moe_dispatch_fp8 too). */
#include "model/gen.h"

int weft_gen_a2a_check(Gen *g, int v, int mtp_layers) {
  const WeftParallel *p = g->par;
  if (p->moe_dispatch_fp8 && !p->fp8)
    return weft_gen_fail(g, WEFT_EINPUT, "moe_dispatch_fp8",
                         "moe_dispatch_fp8 needs FP8 GEMMs (fp8 delayed, current, ...): the "
                         "dispatch quantizes the experts' FP8 inputs");
  if (p->moe_dispatch_fp8 && p->ep < 2)
    return weft_gen_fail(g, WEFT_EINPUT, "moe_dispatch_fp8",
                         "moe_dispatch_fp8 needs expert parallelism (ep > 1), got ep = %d: "
                         "without it there is no dispatch all-to-all",
                         p->ep);
  if (p->moe_routing != WEFT_ROUTING_RANDOM && g->m->experts < 1)
    return weft_gen_fail(g, WEFT_EINPUT, "moe_routing",
                         "moe_routing blocked: model '%s' has no experts", g->m->name);
  if (p->moe_dispatcher != WEFT_MOE_ALLTOALL) { /* docs/zoo.md, "MoE dispatchers" */
    const char *d = p->moe_dispatcher == WEFT_MOE_DEEPEP ? "deepep" : "hybridep";
    if (g->m->experts < 1)
      return weft_gen_fail(g, WEFT_EINPUT, "moe_dispatcher",
                           "moe_dispatcher %s: model '%s' has no experts", d, g->m->name);
    if (p->ep < 2)
      return weft_gen_fail(g, WEFT_EINPUT, "moe_dispatcher",
                           "moe_dispatcher %s needs expert parallelism (ep > 1), got ep = %d: "
                           "weft does not model the flex dispatcher over TP alone",
                           d, p->ep);
    if (g->etp != 1)
      return weft_gen_fail(g, WEFT_EINPUT, "moe_dispatcher",
                           "moe_dispatcher %s is modelled with the experts' tensor parallelism "
                           "etp = 1 (the flex dispatcher spreads the tokens over TP x EP), got "
                           "etp = %d",
                           d, g->etp);
    if (p->moe_dispatch_fp8)
      return weft_gen_fail(g, WEFT_EINPUT, "moe_dispatcher",
                           "moe_dispatcher %s sends the bf16 hidden states (Megatron-Core's "
                           "fused_a2a.py): moe_dispatch_fp8 needs alltoall",
                           d);
  }
  if (!p->moe_a2a_overlap) return WEFT_OK;
  /* Megatron-Core transformer_config.py's asserts (d98e8a64dd, lines 3007-3046) */
  if (p->ep < 2)
    return weft_gen_fail(g, WEFT_EINPUT, "moe_a2a_overlap",
                         "moe_a2a_overlap needs expert parallelism (ep > 1), got ep = %d", p->ep);
  if (p->pp > 1 && v < 2)
    return weft_gen_fail(g, WEFT_EINPUT, "moe_a2a_overlap",
                         "moe_a2a_overlap with pp = %d needs virtual_stages > 1 (Megatron-Core's "
                         "combined 1F1B is the interleaved schedule's)",
                         p->pp);
  if (p->schedule != WEFT_SCHEDULE_1F1B)
    return weft_gen_fail(g, WEFT_EINPUT, "moe_a2a_overlap",
                         "moe_a2a_overlap runs Megatron-Core's combined 1F1B schedule, not "
                         "schedule dualpipe");
  if (p->recompute == WEFT_RECOMPUTE_FULL)
    return weft_gen_fail(g, WEFT_EINPUT, "moe_a2a_overlap",
                         "moe_a2a_overlap cannot run with full recomputation (recompute full)");
  if (p->recompute == WEFT_RECOMPUTE_SELECTIVE && p->recompute_modules & WEFT_RC_MOE)
    return weft_gen_fail(g, WEFT_EINPUT, "moe_a2a_overlap",
                         "moe_a2a_overlap cannot run with moe in recompute_modules");
  if (mtp_layers > 1)
    return weft_gen_fail(g, WEFT_EINPUT, "moe_a2a_overlap",
                         "moe_a2a_overlap supports at most one MTP layer, the model has %d",
                         mtp_layers);
  /* combined_1f1b.py: no FSDP with the interleaved combined schedule */
  if (p->zero_stage == 3 && v > 1)
    return weft_gen_fail(g, WEFT_EINPUT, "moe_a2a_overlap",
                         "moe_a2a_overlap with zero 3 needs virtual_stages 1 (pp = 1)");
  return WEFT_OK;
}

double weft_gen_a2a_paired(const WeftParallel *p, int stage, int v, int m) {
  if (!p->moe_a2a_overlap) return 0.0;
  /* schedules.py get_pp_rank_microbatches: (pp - 1 - rank) 2 + (v - 1) pp warm-up
   * forwards (the group size per VP stage defaults to pp), one more with
   * the overlap; pp = 1 (combined_1f1b_schedule_for_no_pipelining): one */
  double total = (double)m * v;
  double w = p->pp > 1 ? 2.0 * (p->pp - 1 - stage) + (double)(v - 1) * p->pp + 1.0 : 1.0;
  if (w >= total) return 0.0;
  return (total - w) / total;
}

void weft_gen_moe_a2a(Gen *g, GenBlock *moe, const GenBlock *attn, double R, double q,
                      double dispatch_bytes, double combine_bytes) {
  const double *a = attn->compute_ns, *e = moe->compute_ns;
  double n = q * R; /* the paired micro-batches' share of the block */
  if (n <= 0.0) return;
  /* model_chunk_schedule_plan.py TransformerLayerSchedulePlan.run: the
   * forward's dispatch beside the backward's expert dgrad and wgrad, its
   * combine beside the backward's attention (pre-dispatch) backward; the
   * backward's dispatch beside the forward's experts, its combine beside
   * the forward's attention. The blocks' compute is R micro-batches'. */
  weft_gen_add_hidden(g, moe, WEFT_PHASE_FWD, WEFT_COLL_ALLTOALL, GEN_EP, n * dispatch_bytes, n,
                      q * (e[WEFT_PHASE_IG] + e[WEFT_PHASE_WG]), GEN_HIDE_A2A_DISPATCH);
  weft_gen_add_hidden(g, moe, WEFT_PHASE_FWD, WEFT_COLL_ALLTOALL, GEN_EP, n * combine_bytes, n,
                      q * (a[WEFT_PHASE_IG] + a[WEFT_PHASE_WG]), GEN_HIDE_A2A_COMBINE);
  weft_gen_add_hidden(g, moe, WEFT_PHASE_IG, WEFT_COLL_ALLTOALL, GEN_EP, n * combine_bytes, n,
                      q * e[WEFT_PHASE_FWD], GEN_HIDE_A2A_DISPATCH);
  weft_gen_add_hidden(g, moe, WEFT_PHASE_IG, WEFT_COLL_ALLTOALL, GEN_EP, n * combine_bytes, n,
                      q * a[WEFT_PHASE_FWD], GEN_HIDE_A2A_COMBINE);
}
