/* gen_transformer.c — Megatron-style transformer workloads: TP (+SP), CP, PP
 * 1F1B (Megatron's uneven split), DP with ZeRO, MoE expert parallel;
 * standard or flash attention (sliding windows), MLA, head_dim; full,
 * partial and module recomputation; multi-token prediction; FLOPs, traffic
 * and memory per docs/zoo.md. This file emits the entries in order (layers
 * by chunk, gradient accumulation and synchronisation, the optimizer step)
 * over the steps below it: gen_tf_setup.c, gen_tf_plan.c, gen_tf_blocks.c,
 * gen_tf_memory.c (gen_tf.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/gen_tf.h"

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


/* Activation offloading (pp 1, no recomputation): the stage's first N
 * layers' activations (layer_act) copied to the host after their forward and
 * back before their backward at the device's host link, one layer after
 * another beside the compute (TE's schedule, weft_offload_stall_ns, on the
 * stage's mean layer); what the compute waits, per micro-batch, is charged
 * to the attention blocks' forward and input-grad compute, a share a layer. */
static void offload_stall(Gen *g, const Tf *t, GenBlock *attn, const GenBlock *mlp,
                          const GenBlock *moe, int nd, int ne) {
  int L = t->Ls, N = g->par->cpu_offloading_num_layers, ne_o = moe_layers(g, t->first, t->first + N - 1);
  double core, bytes = (N - ne_o) * weft_tf_layer_act(g, t, 0, &core) + ne_o * weft_tf_layer_act(g, t, 1, &core);
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
  if (has_emb) weft_tf_emb_block(g, t, &emb);
  weft_tf_sub_block(g, t, -1, &attn);
  if (nd) weft_tf_sub_block(g, t, 0, &mlp);
  if (ne) weft_tf_sub_block(g, t, 1, &moe);
  if (ne && t->a2a_q > 0) { /* moe_a2a_overlap: the paired micro-batches' all-to-alls */
    double d, Sk;
    weft_tf_a2a_bytes(g, t, &d, &Sk);
    weft_gen_moe_a2a(g, &moe, &attn, t->R, t->a2a_q, d * Sk, Sk);
  }
  if (p->zero_stage == 3) { /* one hinge per layer (FSDP's unit), not per sub-block */
    if (nd) weft_gen_zero3_per_layer(g, &attn, &mlp, (double)nd / t->Ls);
    if (ne) weft_gen_zero3_per_layer(g, &attn, &moe, (double)ne / t->Ls);
  }
  if (has_logits) weft_tf_logits_block(g, t, &logits);
  if (has_mtp) { /* the last layer's kind: built on the last stage, which holds it */
    mtp_attn = attn;
    mtp_layer = t->mtp_moe ? moe : mlp;
    weft_tf_mtp_head_block(g, t, &mtp_head);
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
  double step_ns = (t->opt_ns = weft_tf_optimizer_ns(g, t)) + casts_ns;
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
  int rc = weft_tf_check(g, &t);
  if (rc) {
    free(t.cl);
    return rc;
  }
  if ((rc = weft_gen_map(g))) {
    free(t.cl);
    return rc;
  }
  weft_tf_derive(g, &t);
  weft_gen_policy(g->wl->policy, sizeof g->wl->policy, g->par->tp);
  if (!(rc = weft_tf_plan(g, &t)) && !(rc = emit(g, &t))) weft_tf_fill_info(g, &t);
  if (t.sl != t.sl_stack) free(t.sl);
  free(t.cl);
  return rc;
}
