/* opcost_torch.c — the kernels a dense layer written as PyTorch modules
 * runs beside its GEMMs (WeftParallel.layer_impl torch; docs/zoo.md,
 * "Torch layers"), as torchtitan's Llama (torchtitan/models/llama3/
 * model.py @820504e20: Attention's wq, wk, wv and FeedForward's w1, w3 are
 * nn.Linear layers of their own; repeat_kv before SDPA) parallelized by
 * DTensor (parallelize_llama's SequenceParallel on the norms, Shard(1) on
 * [batch, seq, hidden]). The GEMMs themselves are opcost.c's.
 *
 * PyTorch's functional collectives gather and scatter along dim 0 only:
 * all_gather_tensor with gather_dim 1 runs torch.cat(torch.chunk(out,
 * group_size, dim=0), dim=1) on the gathered buffer, and
 * reduce_scatter_tensor with scatter_dim 1 torch.cat(torch.chunk(in,
 * group_size, dim=1)) before the collective
 * (torch/distributed/_functional_collectives.py): each a copy of the whole
 * gathered tensor, read and written. Inductor's micro-pipeline TP pass
 * (async TP; torch/_inductor/fx_passes/micro_pipeline_tp.py) matches
 * exactly these split/cat patterns and replaces them by fused
 * all-gather-matmul and matmul-reduce-scatter ops, when the gathered
 * tensor feeds matmuls and when the scattered one is a matmul's output. */
#include "model/opcost.h"

static OcOp kop(const char *name, int phase, double bytes) {
  OcOp o = {name, phase, OC_VECTOR, 0, 0, 0, 0, 0, bytes, 0, 0, 0, 0, 0, 0, 0, 0};
  return o;
}

/* Eager mode (no torch.compile): weft's torchtitan rows without compile
 * run the norms eager (norm_fusion off); compiled ones fuse them. */
static int eager(const OcLayer *l) { return l->norm_eager; }

/* DTensor's layouts copies apply: torch layers, SP over more than 1 rank. */
static int dtensor_sp(const OcLayer *l) { return l->torch && l->sp && l->tp > 1; }

double weft_opcost_tp_ag_bytes(int fp8, double act_bytes) {
  return fp8 && act_bytes > 1 ? 1.0 : act_bytes;
}

double weft_opcost_torch_ag_copy_bytes(const OcLayer *l) {
  if (!dtensor_sp(l) || l->tp_async) return 0; /* async TP: the fused GEMM reads the shards */
  return 2 * l->b * l->s * l->h * weft_opcost_tp_ag_bytes(l->fp8, l->act_bytes);
}

int weft_opcost_torch_ops(const OcLayer *l, OcBlock blk, OcOp *ops) {
  if (!l->torch || (blk != OC_ATTN && blk != OC_MLP)) return 0;
  int n = 0, attn = blk == OC_ATTN;
  double T = l->b * l->s, eb = l->act_bytes, U = T * l->h * eb; /* the block's input, gathered */
  double a = l->heads / l->tp, kvh = l->kv_heads / l->tp;
  /* Linear layers reading the block's input: wq, wk, wv (MLA's query and
   * KV down-projections, or its q_proj: 2); w1, w3 (a GeLU MLP's one fc1) */
  int readers = attn ? (l->kv_lora > 0 ? 2 : 3) : l->ffn_matrices == 3 ? 2 : 1;
  if (attn && kvh < a && !(l->cp_ring && l->cp_torch)) {
    /* repeat_kv: K and V expanded to every query head and made contiguous
     * (read kvh heads, write a); backward sums the copies back (read a,
     * write kvh). PyTorch's CP ring copies them itself (opcost_cp.c). */
    double by = T * (kvh + a) * (l->dqk + l->dv) * eb;
    ops[n++] = kop("repeat_kv", WEFT_PHASE_FWD, by);
    ops[n++] = kop("repeat_kv", WEFT_PHASE_IG, by);
  }
  /* autograd sums the readers' input gradients: eager, an add of two
   * tensors into a third per extra reader; compiled, one kernel reading
   * them all and writing the sum */
  int fused_rs = 0; /* the sum writes the reduce-scatter's layout itself */
  if (readers > 1 && eager(l)) {
    for (int i = 1; i < readers; i++) ops[n++] = kop("grad_sum", WEFT_PHASE_IG, 3 * U);
  } else if (readers > 1) {
    ops[n++] = kop("grad_sum", WEFT_PHASE_IG, (readers + 1) * U);
    fused_rs = 1; /* inductor lowers the cat of the sum's chunks into the same kernel */
  }
  if (!dtensor_sp(l)) return n;
  double ag = weft_opcost_torch_ag_copy_bytes(l);
  if (ag > 0) { /* vanilla TP: every collective's copy */
    ops[n++] = kop("dtensor_ag_copy", WEFT_PHASE_FWD, ag); /* the input gathered */
    ops[n++] = kop("dtensor_rs_copy", WEFT_PHASE_FWD, 2 * U); /* wo's, w2's output scattered */
    ops[n++] = kop("dtensor_ag_copy", WEFT_PHASE_IG, 2 * U); /* its gradient gathered (bf16:
                                                                torchao casts it after) */
  } else if (l->tp_async) {
    /* async TP's fused matmul-reduce-scatter (torch/distributed/
     * _symmetric_memory: _fused_matmul_reduce_scatter_impl) computes every
     * rank's chunk into stacked partials, exchanges them, then sums them in
     * one reduction kernel: the whole output read, a 1/tp shard written */
    ops[n++] = kop("async_tp_reduce", WEFT_PHASE_FWD, U * (1 + 1 / l->tp));
  }
  /* the input gradient reduce-scattered: a sum's, unless compiled into it;
   * a lone fc1's dgrad output, unless async TP fuses it */
  if (readers > 1 ? !fused_rs : !l->tp_async)
    ops[n++] = kop("dtensor_rs_copy", WEFT_PHASE_IG, 2 * U);
  return n;
}
