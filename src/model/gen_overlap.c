/* gen_overlap.c — Transformer Engine's TP communication overlap (Megatron-Core
 * --tp-comm-overlap): each sequence-parallel all-gather and reduce-scatter of
 * a layer hidden behind the GEMM that consumes or produces it (docs/zoo.md,
 * "TP communication overlap"); and its context-parallel P2P ring's
 * transfers behind the ring's step kernels ("Context parallelism"). */
#include <math.h>
#include <string.h>

#include "model/gen.h"
#include "model/par_check.h"

/* Transformer Engine's userbuffers overlaps (transformer_engine/pytorch/
 * module/base.py, initialize_ub, get_default_config, the same in v1.11 to
 * v2.3, the NeMo 24.09 to 25.04 containers; Megatron-Core and NeMo hand it
 * the same names): ring exchange (qkv_fprop, fc1_fprop, proj_dgrad,
 * fc2_dgrad) in tp splits; pipelined chunks (proj_fprop, fc2_fprop) in 4
 * splits; bulk (qkv_wgrad, fc1_wgrad: the dgrad reduce-scatter under the
 * wgrad; qkv_dgrad, fc1_dgrad: the input's all-gather under the dgrad).
 * The pipelined and bulk comm kernels run on num_sm SMs (TE's default 16,
 * a recipe's own per GEMM: WeftParallel.tp_overlap_sms) and the GEMM beside
 * them on the other SMs. The ring exchange's default use_ce moves each
 * chunk with the copy engines (userbuffers.cu v1.13, userbuffers_sendrecv:
 * cudaMemcpyAsync and a 1-thread flag kernel): its num_sm 1 is never
 * launched, so its GEMM keeps every SM. */
#define TPO_RING_SMS 0.0
#define TPO_PIPE_SPLITS 4.0

/* A sub-block's GEMM times per micro-batch (ns, launches aside): the first
 * GEMMs' forward, data and weight gradient (QKV or the MLP's
 * up-projections: every weight GEMM but the last), the last one's forward
 * and data gradient (the attention's output projection, fc2). */
typedef struct {
  double first_fprop, first_dgrad, first_wgrad, last_fprop, last_dgrad;
} TpoGemms;

static void gemms(const Gen *g, int blk, TpoGemms *t) {
  OcLayer l;
  OcOp ops[OC_MAX_OPS];
  weft_opcost_layer(g->m, g->par, &l);
  l.lora_rank = 0; /* LoRA: the base GEMMs (their times the same frozen), not the adapters' */
  l.lora_targets = 0;
  int n = weft_opcost_ops(&l, (OcBlock)blk, ops, OC_MAX_OPS);
  memset(t, 0, sizeof *t);
  for (int i = 0; i < n; i++) {
    const OcOp *o = &ops[i];
    if (o->kind != OC_GEMM || o->once) continue;
    int last = !strcmp(o->name, "proj") || !strcmp(o->name, "fc2");
    int weight = 0; /* a weight GEMM: one of its ops is a weight gradient */
    for (int j = 0; j < n && !weight; j++)
      weight = ops[j].kind == OC_GEMM && ops[j].phase == WEFT_PHASE_WG && !strcmp(ops[j].name, o->name);
    if (!weight) continue;
    double ns = g->opcost ? weft_opcost_op_ns(g->dev, o, l.act_bytes) : o->flops * g->ns_per_flop;
    if (last && o->phase == WEFT_PHASE_FWD) t->last_fprop += ns;
    if (last && o->phase == WEFT_PHASE_IG) t->last_dgrad += ns;
    if (!last && o->phase == WEFT_PHASE_FWD) t->first_fprop += ns;
    if (!last && o->phase == WEFT_PHASE_IG) t->first_dgrad += ns;
    if (!last && o->phase == WEFT_PHASE_WG) t->first_wgrad += ns;
  }
}

/* The slowdown of a GEMM that shares the GPU with a comm kernel on k SMs:
 * sms / (sms - k); none on a device without an SM count. */
static double slow(const Gen *g, double k) {
  double sms = g->dev->sms;
  return sms > k ? sms / (sms - k) : 1.0;
}

/* The all-gathers' bytes per activation byte: with FP8 GEMMs their buffers
 * are FP8 (get_default_config: fp8_buf for every all-gather overlap, the
 * layer casts its shard before the exchange), 1 byte an element, as
 * without the overlap (layernorm_linear.py v1.13: the norm writes the FP8
 * ln_out that gather_along_first_dim gathers; base.py
 * grad_output_preprocess: the gradient cast to FP8, then gathered); the
 * reduce-scatters' stay in act_bytes (the GEMM writes BF16) unless a
 * recipe's fp8_buf names them (rs_overlap). NVFP4 at 1 byte
 * too: TE 1.x has no NVFP4, so no source for its buffers. */
double weft_gen_tp_ag_width(const Gen *g) {
  return weft_opcost_tp_ag_bytes(g->par->fp8, g->par->act_bytes) / g->par->act_bytes;
}

/* A ring exchange's all-gather of the S/t shard (ag bytes), mult times, into
 * phase ph under g ns of its GEMM: t - 1 steps of one chunk, each under the
 * GEMM of the chunk before, so (t-1)/t of the GEMM hides them (tag: what it
 * runs under). With TE's aggregate (comm_gemm_overlap.cpp v1.13
 * split_overlap_ag, _aggregate): one chunk exchanged between rank pairs
 * before the first GEMM (it blocks: the compute stream waits for it), then
 * t/2 - 1 steps of two chunks, each under the GEMM of the two before: of
 * the t - 1 chunks' bytes 1 blocks and t - 2 hide under (t-2)/t of the
 * GEMM. */
static void ring_ag(Gen *g, GenBlock *blk, WeftPhase ph, double mult, double ag, double gemm_ns,
                    int aggregate, GenHide tag) {
  double tp = g->par->tp;
  if (!aggregate) {
    weft_gen_add_hidden(g, blk, ph, WEFT_COLL_ALLGATHER, GEN_TP, mult * ag, mult,
                        mult * (tp - 1) / tp * gemm_ns, tag);
    return;
  }
  weft_gen_add(g, blk, ph, WEFT_COLL_ALLGATHER, GEN_TP, mult * ag / (tp - 1), mult);
  weft_gen_add_hidden(g, blk, ph, WEFT_COLL_ALLGATHER, GEN_TP, mult * ag * (tp - 2) / (tp - 1),
                      mult, mult * (tp - 2) / tp * gemm_ns, tag);
}

/* A GEMM's output reduce-scattered (S bytes, mult times) under its own
 * chunks, into phase ph, gemm_ns the GEMM alone: pipelined (TE's
 * CommOverlapBase::split_overlap_rs: 4 chunks, each scattered under the
 * next one's GEMM by a comm kernel on the GEMM's tp_overlap_sms, which slow
 * it:
 * the last chunk's S/4 blocks, 3S/4 hides under 3/4 of the slowed GEMM) or
 * a ring exchange (CommOverlapP2PBase::split_overlap_rs: tp chunks, the
 * rank's own last, each other one sent by the copy engines under the next
 * one's GEMM, so all of S hides under (t-1)/t of it; then one kernel sums
 * the t chunks, reading S and writing S/t). gemm: its WeftTpoGemm, whose
 * method it takes; a pipelined one named in tp_overlap_fp8_buf with FP8
 * GEMMs moves 1 byte an element (the GEMM writes FP8, the comm kernel sums
 * into BF16: reducescatter2_userbuff_strided_fp8). Returns the compute it
 * adds. */
static double rs_overlap(Gen *g, GenBlock *blk, int ob, WeftPhase ph, double mult, double S,
                         double gemm_ns, int gemm, GenHide tag) {
  double tp = g->par->tp, q = (TPO_PIPE_SPLITS - 1) / TPO_PIPE_SPLITS;
  int method = weft_tp_overlap_method_of(g->par, gemm);
  double slow_k = slow(g, g->par->tp_overlap_sms[gemm]);
  if (!(tp > 1)) return 0;
  if (weft_tp_overlap_rs_fp8(g->par, gemm)) S /= g->par->act_bytes; /* fp8_buf: 1 byte */
  if (method == WEFT_TPO_RING_EXCHANGE) {
    weft_gen_add_hidden(g, blk, ph, WEFT_COLL_REDUCESCATTER, GEN_TP, mult * S, mult * (tp - 1),
                        mult * (tp - 1) / tp * gemm_ns * slow(g, TPO_RING_SMS), tag);
    return mult * weft_gen_mem_kernel_ns(g, ph, ob, "ub_rs_reduce", S * (1 + 1 / tp));
  }
  weft_gen_add(g, blk, ph, WEFT_COLL_REDUCESCATTER, GEN_TP, mult * S / TPO_PIPE_SPLITS, mult);
  weft_gen_add_hidden(g, blk, ph, WEFT_COLL_REDUCESCATTER, GEN_TP, mult * S * q,
                      mult * (TPO_PIPE_SPLITS - 1), mult * q * gemm_ns * slow_k, tag);
  return mult * gemm_ns * (slow_k - 1);
}

/* One forward pass's all-gather and reduce-scatter, mult times, into phase
 * ph: the all-gather of the S/t shard under the first GEMM (ring exchange:
 * the GEMM on the local chunk runs while the next arrives, so t-1 of its t
 * chunks hide the transfer: overlap (t-1)/t of the GEMM; ring_ag); the
 * reduce-scatter of S after the last GEMM's, by the method of rs_gemm
 * (rs_overlap; pipelined by default). The GEMMs slow by the SMs the comm
 * kernels take: returned, with the ring's sum kernel, to add to the
 * phase's compute. */
static double fprop(Gen *g, GenBlock *blk, int ob, WeftPhase ph, double mult, double S,
                    const TpoGemms *t, int rs_gemm, int aggregate, int no_out) {
  double tp = g->par->tp, ring = slow(g, TPO_RING_SMS), ag = S * weft_gen_tp_ag_width(g) / tp;
  ring_ag(g, blk, ph, mult, ag, t->first_fprop * ring, aggregate, GEN_HIDE_AG_FPROP);
  double extra = mult * t->first_fprop * (ring - 1);
  if (no_out) return extra; /* stopped before the last GEMM */
  return extra + rs_overlap(g, blk, ob, ph, mult, S, t->last_fprop, rs_gemm, GEN_HIDE_RS_FPROP);
}

int weft_gen_rc_stops_early(const Gen *g, int ob) {
  return ob == OC_MLP && g->par->layer_impl == WEFT_LAYERS_TORCH;
}

void weft_gen_tp_overlap(Gen *g, GenBlock *blk, int ob, double R, double rc, double S) {
  TpoGemms t;
  gemms(g, ob, &t);
  /* the SMs and methods of this sub-block's overlaps: the attention's qkv_*
   * and proj_fprop, the MLP's fc1_* and fc2_fprop */
  const WeftParallel *p = g->par;
  const int *k = p->tp_overlap_sms, a = ob == OC_ATTN;
  int g_out = a ? WEFT_TPO_PROJ_FPROP : WEFT_TPO_FC2_FPROP;
  int g_dg = a ? WEFT_TPO_QKV_DGRAD : WEFT_TPO_FC1_DGRAD, g_wg = a ? WEFT_TPO_QKV_WGRAD : WEFT_TPO_FC1_WGRAD;
  int m_dg = weft_tp_overlap_method_of(p, g_dg);
  double bulk_wg = slow(g, k[g_wg]), bulk_dg = slow(g, k[g_dg]);
  double tp = p->tp, ring = slow(g, TPO_RING_SMS);
  int agg = p->tp_overlap_aggregate;
  int agg_f = agg & (a ? WEFT_TPO_QKV_FPROP : WEFT_TPO_FC1_FPROP);
  int agg_d = agg & (a ? WEFT_TPO_PROJ_DGRAD : WEFT_TPO_FC2_DGRAD);
  blk->compute_ns[WEFT_PHASE_FWD] += fprop(g, blk, ob, WEFT_PHASE_FWD, R, S, &t, g_out, agg_f, 0);
  if (rc > 0)
    blk->compute_ns[WEFT_PHASE_IG] +=
        fprop(g, blk, ob, WEFT_PHASE_IG, R * rc, S, &t, g_out, agg_f,
              weft_gen_rc_stops_early(g, ob));
  /* backward: the output gradient's all-gather under the last GEMM's dgrad
   * (ring exchange), the first GEMMs' dgrad reduce-scatter whole under their
   * wgrad (bulk, qkv_wgrad/fc1_wgrad), and the first GEMMs' input (the
   * norm's output, saved as its S/t shard) all-gathered again for their
   * wgrad, whole under their dgrad (bulk, qkv_dgrad/fc1_dgrad: TE v1.13
   * layernorm_linear.py _LayerNormLinear.backward, ub_bulk_dgrad:
   * copy_input_to_ubuf(ln_out), the dgrad GEMM with BULK_OVERLAP_AG,
   * ln_out_total its output; v2.1 the same with bulk_overlap; Megatron-Core
   * tp_comm_bulk_dgrad, on by default). Its buffer is FP8 with FP8 GEMMs
   * (fp8_buf: qkv_dgrad, fc1_dgrad are all-gather overlaps) */
  double ag = S * weft_gen_tp_ag_width(g) / tp, ig = 0, wg = 0;
  int torch = p->layer_impl == WEFT_LAYERS_TORCH; /* the gradient gathered in bf16 */
  int lora = weft_lora_targets_of(p) != 0;
  ring_ag(g, blk, WEFT_PHASE_IG, R, torch ? S / tp : ag, t.last_dgrad * ring, agg_d,
          GEN_HIDE_AG_DGRAD);
  ig += R * t.last_dgrad * (ring - 1);
  if (torch) {
    /* torch's async TP (docs/zoo.md, "Torch layers"): the input gradient is
     * the projections' summed dgrads, no matmul's output, so Inductor's
     * micro-pipeline pass leaves its reduce-scatter a plain collective; the
     * backward graph issues it after every weight gradient of the block and
     * the norm's backward waits on it (Inductor reorders collectives only
     * with reorder_for_compute_comm_overlap, off by default and not set by
     * torchtitan): it blocks */
    weft_gen_add(g, blk, WEFT_PHASE_IG, WEFT_COLL_REDUCESCATTER, GEN_TP, R * S, R);
    weft_gen_add_hidden(g, blk, WEFT_PHASE_IG, WEFT_COLL_ALLGATHER, GEN_TP, R * ag, R,
                        R * t.first_dgrad * bulk_dg, GEN_HIDE_AG_INPUT);
    ig += R * t.first_dgrad * (bulk_dg - 1);
  } else if (m_dg != WEFT_TPO_BULK) {
    /* TE's dgrad reduce-scatter overlap (the recipe's qkv_dgrad or
     * fc1_dgrad as pipeline or ring_exchange; base.py initialize_ub,
     * dgrad_reduce_scatter_overlap): the dgrad's output reduce-scattered
     * under its own chunks, as the forward's last GEMM (rs_overlap); no
     * wgrad overlap. The input for the wgrad is gathered by NCCL beside the
     * dgrad (layernorm_linear.py v2.x: gather_along_first_dim(ln_out,
     * async_op=True) when ub_bulk_dgrad is off), under it whole, its SMs not
     * charged, as NCCL's nowhere are; both against the whole dgrad (the link
     * they share not modelled); LoRA's frozen weight needs no input */
    ig += rs_overlap(g, blk, ob, WEFT_PHASE_IG, R, S, t.first_dgrad, g_dg, GEN_HIDE_RS_DGRAD);
    if (!lora)
      weft_gen_add_hidden(g, blk, WEFT_PHASE_IG, WEFT_COLL_ALLGATHER, GEN_TP, R * ag, R,
                          R * t.first_dgrad, GEN_HIDE_AG_INPUT);
  } else if (lora) {
    /* LoRA's frozen weights (docs/zoo.md, "LoRA"): no weight gradient, so
     * no wgrad GEMM for the dgrad's reduce-scatter to run under (it
     * blocks) and no wgrad needing the input gathered again (the adapter
     * kept the gathered norm output it took in forward) */
    weft_gen_add(g, blk, WEFT_PHASE_IG, WEFT_COLL_REDUCESCATTER, GEN_TP, R * S, R);
  } else {
    weft_gen_add_hidden(g, blk, WEFT_PHASE_IG, WEFT_COLL_REDUCESCATTER, GEN_TP, R * S, R,
                        R * t.first_wgrad * bulk_wg, GEN_HIDE_RS_WGRAD);
    weft_gen_add_hidden(g, blk, WEFT_PHASE_IG, WEFT_COLL_ALLGATHER, GEN_TP, R * ag, R,
                        R * t.first_dgrad * bulk_dg, GEN_HIDE_AG_INPUT);
    ig += R * t.first_dgrad * (bulk_dg - 1);
    wg += R * t.first_wgrad * (bulk_wg - 1);
  }
  blk->compute_ns[WEFT_PHASE_IG] += ig;
  blk->compute_ns[WEFT_PHASE_WG] += wg;
}

/* The ring's transfers (context_parallel.py, AttnFuncWithCPAndKVP2P): the
 * forward's step i (0..cp-2) sends and receives the next K, V block (one
 * rank's, opcost_cp.c's block bytes) while its kernel runs: cp - 1
 * transfers under steps 0..cp-2's kernels. The backward's step i sends the
 * K, V block (step 0), K, V and the dK, dV accumulated so far (steps 1 to
 * cp-2) or dK, dV alone (step cp-1) while its kernel runs: 2 (cp - 1)
 * blocks in cp transfers under all cp kernels. An off-diagonal kernel at
 * the faster rank's time (the transfer must arrive for that rank's next
 * step); kernels without launches (the comm runs beside them on the GPU). */
void weft_gen_cp_setup(Gen *g) {
  OcLayer l;
  OcOp ops[OC_MAX_OPS];
  weft_opcost_layer(g->m, g->par, &l);
  g->cp_ring = l.cp_ring;
  if (!l.cp_ring) return;
  int n = weft_opcost_cp_ops(&l, ops, OC_MAX_OPS);
  if (n > OC_MAX_OPS) n = OC_MAX_OPS;
  double diag[2] = {0, 0}, off[2][2] = {{0, 0}, {0, 0}}; /* [fwd, bwd][first, last rank] */
  for (int i = 0; i < n; i++) {
    const OcOp *o = &ops[i];
    if (!o->cp_role) continue;
    double ns = g->opcost ? weft_opcost_layer_op_ns(g->dev, &l, o) : o->flops * g->ns_per_flop;
    int p = o->phase != WEFT_PHASE_FWD;
    if (o->cp_role == OC_CP_DIAGONAL) diag[p] = ns;
    else if (o->cp_rank == OC_CP_ALL) off[p][0] = off[p][1] = ns;
    else off[p][o->cp_rank == OC_CP_LAST] = ns;
  }
  g->cp_block_bytes = weft_opcost_cp_block_bytes(&l);
  for (int p = 0; p < 2; p++) {
    g->cp_diag_ns[p] = diag[p];
    g->cp_off_ns[p] = fmin(off[p][0], off[p][1]);
  }
  g->cp_hide_ns[0] = diag[0] + (l.cp - 2) * g->cp_off_ns[0];
  g->cp_hide_ns[1] = diag[1] + (l.cp - 1) * g->cp_off_ns[1];
}

/* PyTorch's ring (_templated_ring_attention, torchtitan's CP): K, V (every
 * query head, opcost_cp.c's block) go round before each step but the last;
 * with torch_allgather in one all-gather issued before step 0 and awaited
 * at step 1 (hidden behind the diagonal kernel alone), with torch_alltoall
 * a send-recv a step as the P2P ring's. The backward moves K, V so again
 * and, after every step, the fp32 dK, dV summed so far to the next rank (a
 * send-recv; each awaited after the next step's kernel, the last after the
 * loop): hidden behind steps 1..cp-1's kernels. One NCCL stream carries
 * both, so the all-to-all variant's K, V and dK, dV share one budget. */
static void cp_torch(Gen *g, GenBlock *blk, double R, double rc) {
  double cp = g->par->cp, kv = g->cp_block_bytes, dkv = kv * 4 / g->par->act_bytes;
  const double *dg = g->cp_diag_ns, *off = g->cp_off_ns;
  int ag = g->par->cp_comm == WEFT_CP_TORCH_ALLGATHER;
  for (int k = 0; k < 2; k++) { /* the forward, and its recomputation in backward */
    double x = k ? R * rc : R;
    WeftPhase ph = k ? WEFT_PHASE_IG : WEFT_PHASE_FWD;
    if (!(x > 0)) continue;
    if (ag)
      weft_gen_add_hidden(g, blk, ph, WEFT_COLL_ALLGATHER, GEN_CP, x * kv, x, x * dg[0],
                          GEN_HIDE_CP);
    else
      weft_gen_add_hidden(g, blk, ph, WEFT_COLL_SENDRECV, GEN_CP, x * (cp - 1) * kv, x * (cp - 1),
                          x * (dg[0] + (cp - 2) * off[0]), GEN_HIDE_CP);
  }
  if (ag) {
    weft_gen_add_hidden(g, blk, WEFT_PHASE_IG, WEFT_COLL_ALLGATHER, GEN_CP, R * kv, R, R * dg[1],
                        GEN_HIDE_CP);
    weft_gen_add_hidden(g, blk, WEFT_PHASE_IG, WEFT_COLL_SENDRECV, GEN_CP, R * cp * dkv, R * cp,
                        R * (cp - 1) * off[1], GEN_HIDE_CP);
  } else {
    weft_gen_add_hidden(g, blk, WEFT_PHASE_IG, WEFT_COLL_SENDRECV, GEN_CP,
                        R * ((cp - 1) * kv + cp * dkv), R * (2 * cp - 1),
                        R * (dg[1] + (cp - 1) * off[1]), GEN_HIDE_CP);
  }
}

int weft_gen_cp_ring(Gen *g, GenBlock *blk, double R, double rc) {
  if (!g->cp_ring) return 0;
  if (g->par->cp_comm == WEFT_CP_TORCH_ALLGATHER || g->par->cp_comm == WEFT_CP_TORCH_ALLTOALL) {
    cp_torch(g, blk, R, rc);
    return 1;
  }
  double cp = g->par->cp, kv = g->cp_block_bytes, fwd = g->cp_hide_ns[0], bwd = g->cp_hide_ns[1];
  for (int k = 0; k < 2; k++) { /* the forward, and its recomputation in backward */
    double x = k ? R * rc : R;
    if (x > 0)
      weft_gen_add_hidden(g, blk, k ? WEFT_PHASE_IG : WEFT_PHASE_FWD, WEFT_COLL_SENDRECV, GEN_CP,
                          x * (cp - 1) * kv, x * (cp - 1), x * fwd, GEN_HIDE_CP);
  }
  weft_gen_add_hidden(g, blk, WEFT_PHASE_IG, WEFT_COLL_SENDRECV, GEN_CP, R * 2 * (cp - 1) * kv,
                      R * cp, R * bwd, GEN_HIDE_CP);
  return 1;
}
