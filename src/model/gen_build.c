/* gen_build.c — the workload generator's builder, below every generator
 * (gen_transformer.c, gen_other.c) and its entry (generate.c): groups mapped
 * onto the network's dims, sub-block templates (compute, collectives merged
 * per group), the last micro-batch's share, and their emission as layers and
 * memory; the balanced pipeline split. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/limits.h"
#include "model/gen.h"
#include "model/gen_names.h"

void weft_gen_compute(const Gen *g, int blk, double mult, double flat_ns, double *ns) {
  for (int ph = 0; ph < WEFT_NPHASES; ph++) ns[ph] = g->opcost ? mult * g->oc_ns[blk][ph] : flat_ns;
}

static const char *const KIND_NAME[GEN_NKINDS] = {"tp",  "pp",  "dp", "ep", "edp",
                                                   "world", "emb", "cp", "etp"};

int weft_stage_layers_balanced(int layers, int pp, int *out, WeftError *err) {
  if (pp < 1 || pp > layers)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "pp",
                          "pp = %d stages for %d layers: every stage needs a layer", pp, layers);
  int q = layers / pp, light = layers % pp ? pp - layers % pp : 0;
  for (int k = 0; k < pp; k++) {
    /* position of k in the order 0, pp-1, 1, pp-2, ...: ends first */
    int pos = k <= pp - 1 - k ? 2 * k : 2 * (pp - 1 - k) + 1;
    out[k] = light ? q + (pos >= light) : q;
  }
  return WEFT_OK;
}

int weft_stage_layers_accounted(int layers, int pp, int v, int emb, int loss, int *out,
                                WeftError *err) {
  emb = emb != 0;
  loss = loss != 0;
  long long slots = (long long)layers + emb + loss, chunks = (long long)pp * v;
  if (pp < 1 || v < 1 || layers < 1 || slots % chunks)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "pp_account",
                          "pp_account: %d layers + %d (embedding, loss) = %lld do not split into "
                          "pp x virtual_stages = %lld chunks of equal layers",
                          layers, emb + loss, slots, chunks);
  int c = (int)(slots / chunks);
  for (int k = 0; k < pp; k++) out[k] = v * c - (k == 0 ? emb : 0) - (k == pp - 1 ? loss : 0);
  if (out[0] < 1 || out[pp - 1] < 1)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "pp_account",
                          "pp_account: chunks of %d layer%s leave stage %d no layer", c,
                          c == 1 ? "" : "s", out[0] < 1 ? 1 : pp);
  return WEFT_OK;
}

int weft_gen_fail(Gen *g, int code, const char *field, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return weft_error_set(g->err, code, "", 0, 0, field, "%s", msg);
}

/* Megatron-Core lays the expert groups with a rank generator of their own
 * since core_v0.10.0 (megatron/core/parallel_state.py,
 * `expert_decoder_rank_generator`: tp = etp, ep, dp = edp, cp = 1, the
 * order's tp-cp-ep-dp: EP right after the expert TP, over the CP ranks
 * first); core_v0.9.0 carved EP out of DP after CP ("ep-dp"). With cp > 1
 * the two differ: weft lays them as 0.10 does, folded. */
void weft_gen_fold_of(const WeftParallel *par, int *fold, int *etp) {
  *etp = par->expert_tp > 0 ? par->expert_tp : par->tp;
  *fold = !(*etp == par->tp && par->ep >= 1 && par->dp % par->ep == 0 &&
            (par->cp <= 1 || par->ep == 1));
}

int weft_gen_moe_dispatch_shard(const WeftParallel *par, int etp) {
  return par->sequence_parallel || etp != par->tp;
}

/* Folding: the ranks of TP, CP and DP (their per-dim spans, in that order,
 * each dim by dim from dim 0: Megatron-Core's rank order) taken in turn by
 * ETP, EP and EDP, each the innermost NPUs left, as weft_map_groups lays
 * groups on dims (a group takes min(need, left) of a span, both divisible). */
static int fold_spans(Gen *g, const int (*mspan)[WEFT_MAX_DIMS], const int *src, int nsrc) {
  const WeftParallel *p = g->par;
  int D = g->net->ndims, need[3] = {g->etp, p->ep, g->size[GEN_EDP]}, cap[3][WEFT_MAX_DIMS];
  static const GenKind kind[3] = {GEN_ETP, GEN_EP, GEN_EDP};
  int take_span[3][WEFT_MAX_DIMS];
  for (int j = 0; j < nsrc; j++)
    for (int d = 0; d < D; d++) cap[j][d] = mspan[src[j]][d] > 1 ? mspan[src[j]][d] : 1;
  for (int x = 0; x < 3; x++)
    for (int d = 0; d < D; d++) take_span[x][d] = 1;
  int j = 0, d = 0;
  for (int x = 0; x < 3; x++) {
    int n = need[x];
    while (n > 1) {
      while (j < nsrc && cap[j][d] == 1) /* the next span with NPUs left */
        if (++d == D) d = 0, j++;
      if (j == nsrc) break;
      int c = cap[j][d], take = n < c ? n : c;
      if (c % take || n % take)
        return weft_gen_fail(g, WEFT_EINPUT, "ep",
                             "folded experts: etp = %d, ep = %d, edp = %d do not factor over "
                             "the tp x cp x dp = %d x %d x %d ranks on the network's dims (%d of "
                             "them on dim %d)",
                             g->etp, p->ep, g->size[GEN_EDP], p->tp, p->cp, p->dp, c, d + 1);
      take_span[x][d] *= take;
      cap[j][d] /= take;
      n /= take;
    }
  }
  for (int x = 0; x < 3; x++)
    for (int e = 0; e < D; e++) g->span[kind[x]][e] = take_span[x][e] > 1 ? take_span[x][e] : -1;
  return WEFT_OK;
}

int weft_gen_map(Gen *g) {
  /* the pure groups laid on the dims: TP, CP, PP, EP, EDP (= DP when ep = 1
   * or folded) */
  enum { M_TP, M_CP, M_PP, M_EP, M_EDP, M_N };
  static const char *const mname[M_N] = {"tp", "cp", "pp", "ep", "dp"};
  const WeftParallel *p = g->par;
  int inner = g->fold ? 1 : p->ep; /* folded: EP laid over TP x CP x DP below */
  int msize[M_N] = {p->tp, p->cp, p->pp, inner, p->dp / inner};
  int sizes[M_N], kind[M_N], n = 0, mspan[M_N][WEFT_MAX_DIMS];
  const char *names[M_N];
  for (int i = 0; i < 3; i++) {
    int k[2] = {-1, -1};
    switch (p->order[i]) {
      case WEFT_PAR_TP: k[0] = M_TP; k[1] = M_CP; break; /* CP right outside TP */
      case WEFT_PAR_PP: k[0] = M_PP; break;
      case WEFT_PAR_DP: k[0] = M_EP; k[1] = M_EDP; break; /* EP innermost in DP */
    }
    for (int j = 0; j < 2; j++)
      if (k[j] >= 0 && msize[k[j]] > 1) { /* one-NPU groups span nothing */
        sizes[n] = msize[k[j]];
        names[n] = k[j] == M_EDP && inner > 1 ? "edp" : mname[k[j]];
        kind[n++] = k[j];
      }
  }
  int D = g->net->ndims, out[M_N][WEFT_MAX_DIMS];
  for (int k = 0; k < M_N; k++)
    for (int d = 0; d < D; d++) mspan[k][d] = -1;
  for (int k = 0; k < GEN_NKINDS; k++)
    for (int d = 0; d < D; d++) g->span[k][d] = -1;
  int rc = n ? weft_map_groups(g->net, sizes, names, n, out, g->err) : WEFT_OK; /* 1 NPU */
  if (rc) return rc;
  for (int i = 0; i < n; i++)
    for (int d = 0; d < D; d++) mspan[kind[i]][d] = out[i][d];
  for (int d = 0; d < D; d++) { /* gradient groups: CP x EP x EDP, CP x EDP, dim by dim */
    int c = mspan[M_CP][d] < 1 ? 1 : mspan[M_CP][d], e = mspan[M_EP][d] < 1 ? 1 : mspan[M_EP][d];
    int r = mspan[M_EDP][d] < 1 ? 1 : mspan[M_EDP][d];
    g->span[GEN_TP][d] = mspan[M_TP][d];
    g->span[GEN_CP][d] = mspan[M_CP][d];
    g->span[GEN_PP][d] = mspan[M_PP][d];
    g->span[GEN_EP][d] = mspan[M_EP][d];
    g->span[GEN_DP][d] = c * e * r > 1 ? c * e * r : -1;
    g->span[GEN_EDP][d] = c * r > 1 ? c * r : -1;
  }
  static const int src[3] = {M_TP, M_CP, M_EDP};
  if (g->fold && (rc = fold_spans(g, (const int (*)[WEFT_MAX_DIMS])mspan, src, 3))) return rc;
  for (int d = 0; d < D; d++) g->span[GEN_WORLD][d] = g->net->npus[d];
  /* The first and last stage: 2 NPUs on the outermost dim the stages span
   * (the pipeline's two ends are farthest apart there). */
  for (int d = D - 1; d >= 0 && g->size[GEN_EMB] > 1; d--)
    if (g->span[GEN_PP][d] > 1) {
      g->span[GEN_EMB][d] = 2;
      break;
    }
  for (int d = 0; d < D; d++) {
    g->comm->group[WEFT_PHASE_FWD][d] = g->span[GEN_TP][d];
    g->comm->group[WEFT_PHASE_IG][d] = g->span[GEN_TP][d];
    g->comm->group[WEFT_PHASE_WG][d] = g->span[GEN_DP][d];
  }
  return WEFT_OK;
}

void weft_gen_block_clear(GenBlock *b) { memset(b, 0, sizeof *b); }

/* k, or DP for EDP when they are one group (ep = 1, not folded). */
static GenKind edp_kind(const Gen *g, GenKind k) {
  return k == GEN_EDP && g->size[GEN_EP] <= 1 && !g->fold ? GEN_DP : k;
}

/* The phase group for kind k: the communicator's own when it is the phase's
 * LIBRA group, else a named group, created on first use. */
static int group_of(Gen *g, WeftPhase ph, GenKind k) {
  k = edp_kind(g, k);
  if (k == GEN_WORLD && g->size[GEN_DP] == g->npus) k = GEN_DP;
  if ((k == GEN_TP && ph != WEFT_PHASE_WG) || (k == GEN_DP && ph == WEFT_PHASE_WG)) return 0;
  if (!g->named[k]) {
    WeftWorkload *wl = g->wl;
    WeftCommunicator *c = g->comm;
    int j = wl->ngroups; /* at most GEN_NKINDS - 1 (not TP) <= WEFT_MAX_GROUPS */
    if (j >= WEFT_MAX_GROUPS) { /* never: a kind named in weight-gradient TP */
      g->overflow = 1;
      return 0;
    }
    weft_gen_copy_name(wl->group_name[j], sizeof wl->group_name[j], KIND_NAME[k], 0);
    weft_gen_copy_name(c->extra_name[j], sizeof c->extra_name[j], KIND_NAME[k], 0);
    memcpy(c->extra[j], g->span[k], sizeof c->extra[j]);
    c->extra_line[j] = 0;
    wl->ngroups = c->nextra = j + 1;
    g->named[k] = j + 1;
  }
  return g->named[k];
}

/* x merged into b's phase ph collective of the same type and group, or
 * appended; the collective it went to, or NULL when b has no room (overflow). */
static GenColl *merge_coll(Gen *g, GenBlock *b, WeftPhase ph, GenColl x) {
  for (int i = 0; i < b->ncoll[ph]; i++)
    if (b->coll[ph][i].coll == x.coll && b->coll[ph][i].group == x.group &&
        b->coll[ph][i].tag == x.tag) {
      b->coll[ph][i].size_bytes += x.size_bytes;
      b->coll[ph][i].calls += x.calls;
      b->coll[ph][i].overlap_ns += x.overlap_ns;
      return &b->coll[ph][i];
    }
  if (b->ncoll[ph] == GEN_MAX_COLLS) {
    g->overflow = 1;
    return NULL;
  }
  b->coll[ph][b->ncoll[ph]] = x;
  return &b->coll[ph][b->ncoll[ph]++];
}

/* weft_gen_add's work; the collective it added to or merged into, or NULL. */
static GenColl *add_coll(Gen *g, GenBlock *b, WeftPhase ph, WeftCollective c, GenKind k,
                         double size_bytes, double calls) {
  GenKind eff = edp_kind(g, k);
  double s = round(size_bytes);
  if (g->size[eff] <= 1 || s <= 0.0) return NULL;
  return merge_coll(g, b, ph, (GenColl){c, s, calls, group_of(g, ph, eff), 0, 0.0, 0});
}

void weft_gen_add(Gen *g, GenBlock *b, WeftPhase ph, WeftCollective c, GenKind k,
                  double size_bytes, double calls) {
  add_coll(g, b, ph, c, k, size_bytes, calls);
}

void weft_gen_add_hidden(Gen *g, GenBlock *b, WeftPhase ph, WeftCollective c, GenKind k,
                         double size_bytes, double calls, double overlap_ns, GenHide tag) {
  GenKind eff = edp_kind(g, k);
  double s = round(size_bytes), o = round(overlap_ns);
  if (g->size[eff] <= 1 || s <= 0.0) return;
  if (o <= 0.0) tag = GEN_HIDE_NONE; /* nothing to hide behind: it blocks */
  merge_coll(g, b, ph, (GenColl){c, s, calls, group_of(g, ph, eff), 0, o > 0.0 ? o : 0.0, tag});
}

void weft_gen_add_once(Gen *g, GenBlock *b, WeftCollective c, GenKind k, double size_bytes) {
  GenColl *x = add_coll(g, b, WEFT_PHASE_WG, c, k, size_bytes, 1);
  if (x) x->once = 1;
}

double weft_gen_schedules(const Gen *g) {
  const WeftParallel *p = g->par;
  return p->pp > 1 && p->ga_steps > 1 ? p->ga_steps : 1;
}

void weft_gen_zero3_gather(Gen *g, GenBlock *b, GenKind k, double per_npu_bytes, double calls,
                           int prefetch) {
  int hide = prefetch && g->par->overlap_param_gather;
  if (g->par->no_reshard) { /* kept gathered: once a schedule, before its first forward */
    double n = weft_gen_schedules(g);
    weft_gen_add_hidden(g, b, WEFT_PHASE_FWD, WEFT_COLL_ALLGATHER, k,
                        calls > 0 ? n * per_npu_bytes / calls : 0, n,
                        hide ? b->compute_ns[WEFT_PHASE_FWD] : 0.0, GEN_HIDE_ZERO3);
    return;
  }
  for (int ph = WEFT_PHASE_FWD; ph <= WEFT_PHASE_IG; ph++)
    weft_gen_add_hidden(g, b, (WeftPhase)ph, WEFT_COLL_ALLGATHER, k, per_npu_bytes, calls,
                        hide ? b->compute_ns[ph] : 0.0, GEN_HIDE_ZERO3);
}

double weft_gen_mem_kernel_ns(const Gen *g, WeftPhase ph, int blk, const char *name,
                              double bytes) {
  if (!g->opcost || !(bytes > 0.0)) return 0.0;
  OcOp o = {name, ph, OC_VECTOR, 0, 0, 0, 0, 0, bytes, 0, 0, 0, 0, 0, 1, 0, 0};
  return weft_opcost_launch_on_ns(
      g->dev, weft_opcost_op_ns(g->dev, &o, g->par->act_bytes),
      weft_opcost_graphed(g->par->cuda_graphs, g->par->cuda_graph_scope, blk));
}

/* One FSDP2 copy kernel of bytes (read and written) in phase ph: outside
 * the sub-blocks (a graph scope leaves it eager). */
static double fsdp2_copy_ns(const Gen *g, WeftPhase ph, double bytes) {
  return weft_gen_mem_kernel_ns(g, ph, -1, "fsdp2_copy", bytes);
}

void weft_gen_fsdp2_copies(Gen *g, GenBlock *b, double gathered_bytes, double grad_elems,
                           double R) {
  const WeftParallel *p = g->par;
  if (p->zero_stage != 3 || p->fsdp != WEFT_FSDP_FSDP2 || !(R > 0.0)) return;
  if (p->no_reshard) { /* one copy-out a schedule; the gradients summed in the reduce dtype */
    double pb = p->param_bytes, gb = p->grad_bytes, first = gb != pb ? pb + gb : 0;
    double n = weft_gen_schedules(g);
    b->compute_ns[WEFT_PHASE_FWD] += n * fsdp2_copy_ns(g, WEFT_PHASE_FWD, 2 * gathered_bytes);
    b->compute_ns[WEFT_PHASE_WG] +=
        n * fsdp2_copy_ns(g, WEFT_PHASE_WG, grad_elems * first) +          /* the first cast */
        (R - n) * fsdp2_copy_ns(g, WEFT_PHASE_WG, grad_elems * (pb + 2 * gb)) + /* the adds */
        n * fsdp2_copy_ns(g, WEFT_PHASE_WG, grad_elems * 2 * gb); /* the last one's copy-in */
    return;
  }
  double out = fsdp2_copy_ns(g, WEFT_PHASE_FWD, 2 * gathered_bytes);
  b->compute_ns[WEFT_PHASE_FWD] += R * out;
  b->compute_ns[WEFT_PHASE_IG] += R * out; /* gathered again for the backward */
  b->compute_ns[WEFT_PHASE_WG] +=
      R * fsdp2_copy_ns(g, WEFT_PHASE_WG, grad_elems * (p->param_bytes + p->grad_bytes));
}

void weft_gen_zero3_per_layer(Gen *g, GenBlock *attn, GenBlock *ffn, double share) {
  for (int ph = WEFT_PHASE_FWD; ph <= WEFT_PHASE_IG; ph++) {
    int n = 0;
    for (int i = 0; i < ffn->ncoll[ph]; i++) {
      GenColl c = ffn->coll[ph][i];
      if (c.tag != GEN_HIDE_ZERO3 && c.tag != GEN_HIDE_ZERO3_RS) {
        ffn->coll[ph][n++] = c;
        continue;
      }
      c.size_bytes = round(c.size_bytes * share);
      c.calls *= share;
      c.overlap_ns = round(c.overlap_ns * share);
      if (c.size_bytes > 0) merge_coll(g, attn, (WeftPhase)ph, c);
    }
    ffn->ncoll[ph] = n;
  }
}

/* ZeRO 0: all-reduce the gradients once per iteration; 1 and 2: reduce-scatter
 * them and all-gather the updated parameters (the per-NPU input of the
 * gather is the shard's 1/n); 3: reduce-scatter per micro-batch. */
void weft_gen_grad_sync(Gen *g, GenBlock *b, GenKind k, double elems, double per_mb) {
  const WeftParallel *p = g->par;
  GenKind eff = edp_kind(g, k);
  double n = g->size[eff];
  if (p->zero_stage == 0) {
    weft_gen_add_once(g, b, WEFT_COLL_ALLREDUCE, k, elems * p->grad_bytes);
  } else if (p->zero_stage < 3) {
    weft_gen_add_once(g, b, WEFT_COLL_REDUCESCATTER, k, elems * p->grad_bytes);
    weft_gen_add_once(g, b, WEFT_COLL_ALLGATHER, k, elems / n * p->param_bytes);
  } else if (p->no_reshard) { /* accumulated unsharded, reduced after each schedule's last
                                  backward (torch's PipelineStage: its post-backward) */
    double sch = weft_gen_schedules(g);
    GenColl *x = add_coll(g, b, WEFT_PHASE_WG, WEFT_COLL_REDUCESCATTER, k,
                          sch * elems * p->grad_bytes, sch);
    if (x) x->once = 1;
  } else {
    /* ZeRO-3 (Megatron-FSDP, FSDP2) reduces each micro-batch's gradients
     * as its backward makes them: with overlap, the earlier micro-batches'
     * reduce-scatters run beside their own backward, hidden under its
     * weight-grad compute (the input-grad compute is the gathers'), and
     * only the last one's waits in the weight-grad stream, whole */
    double last = per_mb > 1.0 && p->overlap_grad_reduce ? 1.0 : per_mb;
    GenColl *x = add_coll(g, b, WEFT_PHASE_WG, WEFT_COLL_REDUCESCATTER, k,
                          last * elems * p->grad_bytes, last);
    if (x && last < per_mb) x->once = 1;
    if (last < per_mb)
      weft_gen_add_hidden(g, b, WEFT_PHASE_IG, WEFT_COLL_REDUCESCATTER, k,
                          (per_mb - last) * elems * p->grad_bytes, per_mb - last,
                          (per_mb - last) / per_mb * b->compute_ns[WEFT_PHASE_WG],
                          GEN_HIDE_ZERO3_RS);
  }
}

double weft_gen_gather_bytes(const Gen *g, double elems, double lin) {
  return (elems - lin) * g->par->param_bytes + lin * g->lin_gather_bytes;
}

void weft_gen_grad_bucket(Gen *g, GenBlock *b, GenKind k, double elems, double lin, double calls,
                          int reduce, int gather) {
  const WeftParallel *p = g->par;
  GenKind eff = edp_kind(g, k);
  double n = g->size[eff];
  GenColl *x = NULL, *y = NULL;
  if (p->zero_stage == 0 && reduce)
    x = add_coll(g, b, WEFT_PHASE_WG, WEFT_COLL_ALLREDUCE, k, elems * p->grad_bytes, calls);
  if (p->zero_stage == 1 || p->zero_stage == 2) {
    if (reduce)
      x = add_coll(g, b, WEFT_PHASE_WG, WEFT_COLL_REDUCESCATTER, k, elems * p->grad_bytes, calls);
    if (gather)
      y = add_coll(g, b, WEFT_PHASE_WG, WEFT_COLL_ALLGATHER, k,
                   weft_gen_gather_bytes(g, elems, lin) / n, calls);
  }
  if (x) x->once = 1;
  if (y) y->once = 1;
}

/* Gradient accumulation (docs/zoo.md, "Gradient accumulation"): of R
 * micro-batches, only the last one's backward runs once a gradient is whole,
 * so only it can hide the per-iteration weight-gradient collectives. The
 * block keeps that last share (1/R) of its input- and weight-grad compute,
 * of its input-grad collectives and of its per-micro-batch weight-grad ones
 * (ZeRO-3); the first R - 1 micro-batches' share, times copies, joins acc,
 * emitted after the last layer, so the backward pass meets it first.
 * Compute and bytes stay whole numbers and sum to what they were. */
void weft_gen_split_last(Gen *g, GenBlock *b, double R, double copies, GenBlock *acc) {
  if (!(R > 1.0)) return;
  for (int ph = WEFT_PHASE_IG; ph <= WEFT_PHASE_WG; ph++) {
    double x = round(b->compute_ns[ph]), last = round(x / R);
    b->compute_ns[ph] = last;
    acc->compute_ns[ph] += copies * (x - last);
    for (int i = 0; i < b->ncoll[ph]; i++) {
      GenColl *c = &b->coll[ph][i];
      if (c->once) continue; /* one sync per iteration: after the last micro-batch */
      double s = round(c->size_bytes / R), calls = c->calls / R, o = round(c->overlap_ns / R);
      GenColl rest = {c->coll,  copies * (c->size_bytes - s), copies * (c->calls - calls),
                      c->group, 0, copies * (c->overlap_ns - o), c->tag};
      c->size_bytes = s;
      c->calls = calls;
      c->overlap_ns = o;
      if (rest.size_bytes > 0) merge_coll(g, acc, (WeftPhase)ph, rest); /* else no copies */
    }
  }
}

void weft_gen_stage_reduce(Gen *g, GenBlock *b, double count, int take, GenBlock *out) {
  GenColl *c = b->coll[WEFT_PHASE_WG];
  int n = 0;
  for (int i = 0; i < b->ncoll[WEFT_PHASE_WG]; i++) {
    if (!(c[i].once && c[i].coll == WEFT_COLL_REDUCESCATTER)) {
      c[n++] = c[i];
      continue;
    }
    GenColl x = c[i];
    x.size_bytes *= count;
    x.calls *= count;
    if (count > 0) merge_coll(g, out, WEFT_PHASE_WG, x);
    if (!take) c[n++] = c[i];
  }
  b->ncoll[WEFT_PHASE_WG] = n;
}

int weft_gen_block_entries(const GenBlock *b) {
  int n = 1;
  for (int p = 0; p < WEFT_NPHASES; p++)
    if (b->ncoll[p] > n) n = b->ncoll[p];
  return n;
}

int weft_gen_reserve(Gen *g, int n) {
  WeftWorkload *wl = g->wl;
  if (wl->nlayers + n <= wl->capacity) return WEFT_OK;
  int cap = wl->nlayers + n;
  WeftLayer *l = realloc(wl->layers, (size_t)cap * sizeof *l);
  if (!l) return weft_gen_fail(g, WEFT_ENOMEM, "", "out of memory for %d workload layers", cap);
  wl->layers = l;
  wl->capacity = cap;
  return WEFT_OK;
}

/* Entry 0 carries the compute and each phase's first collective; entry j the
 * j-th collectives, named "<name>.<j+1>". Per-layer values are whole numbers
 * (rounded before), so count copies sum exactly like count entries. */
void weft_gen_emit(Gen *g, const char *name, const GenBlock *b, double count) {
  int n = weft_gen_block_entries(b);
  for (int j = 0; j < n; j++) {
    WeftLayer *l = &g->wl->layers[g->wl->nlayers++];
    memset(l, 0, sizeof *l);
    weft_gen_copy_name(l->name, sizeof l->name, name, j ? j + 1 : 0);
    for (int p = 0; p < WEFT_NPHASES; p++) {
      WeftPhaseSpec *s = &l->phase[p];
      if (j == 0) s->compute_ns = count * round(b->compute_ns[p]);
      if (j < b->ncoll[p]) {
        s->coll = b->coll[p][j].coll;
        s->size_bytes = count * b->coll[p][j].size_bytes;
        s->calls = count * b->coll[p][j].calls;
        s->group = b->coll[p][j].group;
        s->overlap_ns = count * b->coll[p][j].overlap_ns;
      }
    }
  }
}

void weft_gen_memory_states(Gen *g, double dense_elems, double zdp, double expert_elems,
                            double zedp, const double *lin, WeftMemory *mem) {
  const WeftParallel *p = g->par;
  int z = p->zero_stage;
  mem->params_bytes =
      (dense_elems / (z >= 3 ? zdp : 1) + expert_elems / (z >= 3 ? zedp : 1)) * p->param_bytes;
  if (lin && p->fp8) { /* docs/zoo.md, "FP8 parameters" */
    double w = lin[0] / (z >= 3 ? zdp : 1) + lin[1] / (z >= 3 ? zedp : 1);
    double copy = weft_opcost_fp8_copy_bytes(p->fp8, 1);
    if (z < 3) /* Transformer Engine's two FP8 copies of each weight, kept across the
                  micro-batches; with FP8 parameters the row-wise one is the parameter */
      mem->params_bytes += w * 2 * copy - (p->fp8_param_gather ? w * p->param_bytes : 0);
    else if (p->fp8_param_gather) /* ZeRO-3: the shard in FP8; the gathered copies per layer */
      mem->params_bytes -= w * (p->param_bytes - copy);
  }
  mem->grads_bytes =
      (dense_elems / (z >= 2 ? zdp : 1) + expert_elems / (z >= 2 ? zedp : 1)) * p->grad_bytes;
  if (z >= 3 && p->no_reshard) { /* the stage kept gathered, its gradients summed unsharded */
    double e = dense_elems + expert_elems, l = lin ? lin[0] + lin[1] : 0;
    mem->params_bytes += weft_gen_gather_bytes(g, e, l);
    mem->grads_bytes += e * p->grad_bytes;
  }
  mem->optimizer_bytes =
      (dense_elems / (z >= 1 ? zdp : 1) + expert_elems / (z >= 1 ? zedp : 1)) * p->optimizer_bytes;
}

/* Checks common to every architecture. */
