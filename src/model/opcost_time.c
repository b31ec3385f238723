/* opcost_time.c — an operator's time on a device (docs/zoo.md): the
 * device's rates worked out once per layer, the measured tables where the
 * device has them, else a roofline with GEMMs tile- and wave-quantized over
 * the SMs; launches, CUDA graphs, the blocks' sums and the optimizer step.
 * The operators themselves are opcost.c's. */
#include <math.h>
#include <string.h>

#include "model/gemm_eff.h"
#include "model/measured.h"
#include "model/opcost.h"
#include "model/zoo.h"

#define ADAM_FLOPS 12.0 /* two moment updates, sqrt, divide, step */

/* The tensor-core rate for the activation width: FP4 (an NVFP4 GEMM), FP8
 * (1 byte, or an FP8 GEMM), TF32 (4), else BF16/FP16; a rate the device
 * lacks falls back to FP8, then BF16/FP16. */
static double tensor_rate(const WeftDevice *d, double act_bytes, int prec) {
  if (prec == 2 && d->peak_fp4_flops > 0) return d->peak_fp4_flops;
  if ((prec || act_bytes == 1.0) && d->peak_fp8_flops > 0) return d->peak_fp8_flops;
  if (act_bytes == 4.0 && d->peak_tf32_flops > 0) return d->peak_tf32_flops;
  return d->peak_flops;
}

/* What every operator's time reads of the device, worked out once per
 * block: the same products, in the same order. */
typedef struct {
  const WeftDevice *d;
  double hbm;                 /* achieved HBM bytes/s */
  double tensor[3], fused[3]; /* tensor-core peak; fused attention's achieved rate, [FP8, FP4] */
  double vector;
  const WeftMeasured *meas;   /* the device's measured tables (NULL: none) */
  int bf16;                   /* activations of 2 bytes: the tables' BF16 apply */
  int act_fp8;                /* activations of 1 byte: every GEMM in FP8 */
  int fp8_fast;               /* FP8 forward GEMMs at the fast-accumulation rows */
  WeftMeasuredAttn attn;      /* the fused attention's rows: TE's (cuDNN) or FA2's */
  double drop;                /* the layer's attention dropout (fused kernels' slowdown) */
  int flex;                   /* the fused attention is FlexAttention (OC_FLEX_*_SPEEDUP) */
  double acc;                 /* bytes a weight-gradient GEMM's epilogue reads and writes per
                                 output element: 2 main_grad widths (0: written, not added) */
  double hide;                /* the share of that GEMM's time its epilogue hides under */
} Rates;

static void rates(const WeftDevice *d, double act_bytes, Rates *r) {
  r->d = d;
  r->acc = r->hide = 0; /* layer_rates sets them: weight gradients written */
  r->attn = WM_ATTN_TE; /* weft_opcost_block sets the layer's */
  r->drop = 0;
  r->flex = 0;
  r->hbm = d->hbm_bytes_per_s * d->hbm_efficiency;
  /* fused attention has its own measured rate (a device without one: its GEMMs') */
  double eff = d->attention_efficiency > 0 ? d->attention_efficiency : d->gemm_efficiency;
  for (int f8 = 0; f8 < 3; f8++) {
    r->tensor[f8] = tensor_rate(d, act_bytes, f8);
    r->fused[f8] = r->tensor[f8] * eff;
  }
  r->vector = d->peak_vector_flops;
  r->meas = weft_measured_of(d);
  r->bf16 = act_bytes == 2.0;
  r->act_fp8 = act_bytes == 1.0;
  double p[3];
  r->fp8_fast = r->meas && weft_measured_gemm_fit(r->meas, WM_FP8_FAST, p);
}

/* rates() for a layer: its attention kernel's rows, its dropout, and its
 * weight gradients' accumulation into main_grad (OcLayer.main_grad). */
static void layer_rates(const WeftDevice *d, const OcLayer *l, Rates *r) {
  rates(d, l->act_bytes, r);
  if (l->fa2) r->attn = WM_ATTN_FLASH;
  r->flex = l->flex;
  r->drop = l->attn_drop;
  double g = weft_opcost_grad_width(l);
  r->acc = l->main_grad ? 2 * g : 0;
  r->hide = g > 2 ? OC_WGRAD_HIDE_FP32 : OC_WGRAD_HIDE_BF16;
}

/* A GEMM's time from the measured tables (< 0: none apply): BF16 GEMMs on
 * 2-byte activations, FP8 ones (an FP8 GEMM, or 1-byte activations) at the
 * FP8 rows, a forward one at the fast-accumulation rows when measured
 * (Transformer Engine's forward GEMMs use it, its gradient GEMMs not). An
 * FP4 GEMM (no table has FP4 rows) takes the FP8 rows' time at the FP4
 * rate: the same fraction of the device's FP4 peak (docs/zoo.md). */
static double measured_gemm(const Rates *r, const OcOp *op) {
  int fp8 = (op->fp8 || r->act_fp8) && r->d->peak_fp8_flops > 0; /* as tensor_rate */
  if (!r->meas) return -1;
  if (!fp8 && !r->bf16) return -1; /* TF32 / FP32 GEMMs: not measured */
  WeftMeasuredDtype dt = !fp8 ? WM_BF16 : op->phase == WEFT_PHASE_FWD && r->fp8_fast
                                              ? WM_FP8_FAST : WM_FP8;
  double b = op->batch > 0 ? op->batch : 1;
  double ns = weft_measured_gemm_ns(r->meas, dt, b, op->m, op->n, op->k);
  if (ns >= 0 && fp8 && op->fp8 == 2 && r->d->peak_fp4_flops > 0) /* as tensor_rate */
    ns *= r->d->peak_fp8_flops / r->d->peak_fp4_flops;
  return ns;
}

/* A fused attention kernel's or a vector kernel's time from the tables
 * (< 0: not measured). A vector kernel not measured itself streams at the
 * measured copy's bandwidth. */
static double measured_other(const Rates *r, const OcOp *op) {
  if (!r->meas) return -1;
  if (op->kind == OC_FUSED) {
    if (!r->bf16 || op->fp8) return -1;
    double bwd = op->phase != WEFT_PHASE_FWD;
    double fl = 4 * op->batch * op->m * op->n * op->k * (bwd ? 2.5 : 1) * (op->causal ? 0.5 : 1);
    /* a ring step's unmasked m x n kernel from the square rows (docs/zoo.md,
     * "Context parallelism"): the forward's thread blocks each take 128
     * queries through all n keys, so the row of that loop length and as
     * many blocks (seq n, batch x heads x m / n); the backward takes as long
     * for m x n as for n x m (data/measured/h100_cp_ring_check.csv), so the
     * square of the same area (seq sqrt(m n)) */
    double seq = op->n, bh = op->batch;
    if (op->cp_role && !op->causal && op->m != op->n) {
      seq = bwd ? sqrt(op->m * op->n) : op->n;
      bh = bwd ? op->batch : op->batch * op->m / op->n;
    }
    return weft_measured_attention_ns(r->meas, r->attn, (int)bwd, op->causal, seq, op->k, bh,
                                      fl);
  }
  /* Adam by its bytes: the states' precision sets them (the table's rows are
   * fp32 moments, 28 bytes a parameter); the other kernels by elements */
  double ns = op->mem == WM_ADAM ? op->bytes / weft_measured_mem_gbps(r->meas, WM_ADAM, op->bytes)
              : op->mem         ? weft_measured_mem_ns(r->meas, op->mem, op->elems)
                                : -1;
  if (ns >= 0) return ns;
  double gbps = weft_measured_mem_gbps(r->meas, WM_COPY, op->bytes);
  return gbps > 0 ? op->bytes / gbps : -1;
}

/* A fused attention kernel's time with dropout over its time without: the
 * device's measured ratio at the kernel's shape, else the H100's medians
 * (opcost.h). The cost is the random numbers drawn for every score
 * element, whatever p > 0 is: the ratio measured at p 0.1 applies to any. */
static double dropout_factor(const Rates *r, const OcOp *op) {
  int bwd = op->phase != WEFT_PHASE_FWD, fa2 = r->attn == WM_ATTN_FLASH;
  double x = weft_measured_attention_dropout(r->meas, r->attn, bwd, op->n, op->k);
  if (x > 0) return x;
  return fa2 ? (bwd ? OC_DROP_FA2_BWD : OC_DROP_FA2_FWD) : (bwd ? OC_DROP_TE_BWD : OC_DROP_TE_FWD);
}

static double op_ns_plain(const Rates *r, const OcOp *op);

static double op_ns(const Rates *r, const OcOp *op) {
  double ns = op_ns_plain(r, op);
  if (op->kind == OC_FUSED && r->flex) /* FlexAttention: FA2's time at its published speed */
    ns /= op->phase == WEFT_PHASE_FWD ? OC_FLEX_FWD_SPEEDUP : OC_FLEX_BWD_SPEEDUP;
  return op->kind == OC_FUSED && r->drop > 0 ? ns * dropout_factor(r, op) : ns;
}

/* A weight-gradient GEMM that adds into main_grad (C read, D written at
 * r->acc bytes an element, beta 1) against the same GEMM writing bf16 as
 * the tables time it: its epilogue's traffic E (at the copy bandwidth)
 * hides under r->hide of the GEMM's time g (OC_WGRAD_HIDE_*), the rest is
 * exposed: g + max(0, E - hide g). */
static double wgrad_acc_ns(const Rates *r, const OcOp *op, double g) {
  if (!(r->acc > 0) || op->kind != OC_GEMM || op->phase != WEFT_PHASE_WG || op->name == weft_opcost_router)
    return g;
  double b = op->batch > 0 ? op->batch : 1;
  double e = b * op->m * op->n * r->acc / r->hbm * 1e9;
  return e > r->hide * g ? g + e - r->hide * g : g;
}

static double op_ns_plain(const Rates *r, const OcOp *op) {
  double ns = op->kind == OC_GEMM ? measured_gemm(r, op) : measured_other(r, op);
  double mem_ns = op->bytes / r->hbm * 1e9;
  if (ns >= 0) ns = wgrad_acc_ns(r, op, ns);
  /* a weight-gradient GEMM's bytes (main_grad's included) bound it from below */
  if (ns >= 0 && op->kind == OC_GEMM && op->phase == WEFT_PHASE_WG && mem_ns > ns) return mem_ns;
  if (ns >= 0) return ns;
  double cmp_ns;
  if (op->kind == OC_GEMM) { /* tiles in waves over the SMs (gemm_eff.c) */
    cmp_ns = wgrad_acc_ns(r, op, weft_gemm_ns(r->d, r->tensor[op->fp8 == 2 ? 2 : op->fp8 != 0],
                                              op->batch, op->m, op->n, op->k));
  } else if (op->kind == OC_FUSED) {
    cmp_ns = op->flops / r->fused[op->fp8 == 2 ? 2 : op->fp8 != 0] * 1e9;
  } else {
    cmp_ns = op->flops / r->vector * 1e9;
  }
  return cmp_ns > mem_ns ? cmp_ns : mem_ns;
}

double weft_opcost_op_ns(const WeftDevice *d, const OcOp *op, double act_bytes) {
  Rates r;
  rates(d, act_bytes, &r);
  return op_ns(&r, op);
}

double weft_opcost_layer_op_ns(const WeftDevice *d, const OcLayer *l, const OcOp *op) {
  Rates r;
  layer_rates(d, l, &r);
  return op_ns(&r, op);
}

/* An op's kernels with their launches. */
static double op_kernels_ns(const Rates *r, const OcOp *op, int graphs) {
  return (op->count > 0 ? op->count : 1) * weft_opcost_launch_on_ns(r->d, op_ns(r, op), graphs);
}

int weft_opcost_graphed(int graphs, int scope, int blk) {
  if (!graphs) return 0;
  if (!scope) return 1;
  return blk >= OC_ATTN && blk <= OC_MOE && (scope & (1 << blk));
}

/* Whether CUDA graphs replay layer l's block blk (weft_opcost_graphed). */
static int graphed(const OcLayer *l, OcBlock blk) {
  return weft_opcost_graphed(l->graphs, l->graph_scope, blk);
}

void weft_opcost_block(const WeftDevice *d, const OcLayer *l, OcBlock blk, double *ns) {
  OcOp ops[OC_MAX_OPS];
  Rates r;
  int n = weft_opcost_ops(l, blk, ops, OC_MAX_OPS), graphs = graphed(l, blk);
  double rank[WEFT_NPHASES][2] = {{0, 0}, {0, 0}, {0, 0}}; /* OC_CP_FIRST, OC_CP_LAST ops */
  layer_rates(d, l, &r);
  for (int ph = 0; ph < WEFT_NPHASES; ph++) ns[ph] = 0;
  for (int i = 0; i < n; i++) {
    if (ops[i].once) continue;
    double t = op_kernels_ns(&r, &ops[i], graphs);
    if (ops[i].cp_rank == OC_CP_ALL) ns[ops[i].phase] += t;
    else rank[ops[i].phase][ops[i].cp_rank == OC_CP_LAST] += t;
  }
  for (int ph = 0; ph < WEFT_NPHASES; ph++) /* the slower rank sets the ring's pace */
    ns[ph] += rank[ph][0] > rank[ph][1] ? rank[ph][0] : rank[ph][1];
}

double weft_opcost_block_once_ns(const WeftDevice *d, const OcLayer *l, OcBlock blk) {
  OcOp ops[OC_MAX_OPS];
  Rates r;
  int n = weft_opcost_ops(l, blk, ops, OC_MAX_OPS);
  layer_rates(d, l, &r);
  double ns = 0;
  for (int i = 0; i < n; i++)
    if (ops[i].once) ns += op_kernels_ns(&r, &ops[i], graphed(l, blk));
  return ns;
}

/* The forward time of one GEMM of the layer's shape (m x n, inner k; FP8 in
 * the layer's recipe), launch included: gemm8's forward op alone. */
static double fwd_gemm_ns(const Rates *r, const OcLayer *l, double m, double n, double k) {
  OcOp op;
  weft_opcost_fwd_gemm_op(l, "recompute", m, n, k, &op);
  return op_kernels_ns(r, &op, l->graphs);
}

double weft_opcost_block_titan_rc_ns(const WeftDevice *d, const OcLayer *l, OcBlock blk) {
  Rates r;
  layer_rates(d, l, &r);
  double T = l->b * l->s;
  /* torch layers under SP: the replay's all-gather is copied again (DTensor's layout) */
  OcOp cp = {"dtensor_ag_copy", WEFT_PHASE_IG, OC_VECTOR, 0, 0, 0, 0, 0,
             weft_opcost_torch_ag_copy_bytes(l), 0, 0, 0, 0, 0, 0, 0, 0};
  double copy = cp.bytes > 0 && (blk == OC_ATTN || blk == OC_MLP) ? op_kernels_ns(&r, &cp, l->graphs)
                                                                : 0;
  if (blk == OC_ATTN) /* wk (2nd) and wo (4th): the K columns of the QKV, the projection */
    return copy + fwd_gemm_ns(&r, l, T, l->kv_heads * l->dqk / l->tp, l->h) +
           fwd_gemm_ns(&r, l, T, l->h, l->heads * l->dv / l->tp);
  if (blk == OC_MLP && l->ffn_matrices == 3) /* w3 (6th): the up half of fc1 */
    return copy + fwd_gemm_ns(&r, l, T, l->ffn / l->tp, l->h);
  return copy; /* a GeLU MLP's 6th, fc2: its output is not needed by the backward */
}

double weft_opcost_torch_rc_skip_ns(const WeftDevice *d, const OcLayer *l, OcBlock blk) {
  if (!l->torch || blk != OC_MLP) return 0;
  OcOp ops[OC_MAX_OPS];
  Rates r;
  int n = weft_opcost_ops(l, blk, ops, OC_MAX_OPS);
  layer_rates(d, l, &r);
  double ns = 0;
  for (int i = 0; i < n && i < OC_MAX_OPS; i++) {
    const OcOp *o = &ops[i];
    if (o->phase != WEFT_PHASE_FWD || o->once) continue;
    if ((o->kind == OC_GEMM && !strcmp(o->name, "fc2")) || !strcmp(o->name, "residual_add") ||
        !strcmp(o->name, "bias_dropout_add") || !strcmp(o->name, "dtensor_rs_copy") ||
        !strcmp(o->name, "async_tp_reduce"))
      ns += op_kernels_ns(&r, o, l->graphs);
  }
  return ns;
}

/* A hook for measured launch costs (i25-measured's h100_launch.csv): the
 * cited defaults of opcost.h until then. */
double weft_opcost_launch_ns(double op_ns, int graphs) {
  return weft_opcost_launch_on_ns(NULL, op_ns, graphs);
}

/* The same on d's host: its launch_cpu_ns when devices.yml gives one (a
 * Grace host issues kernels at about half an x86 host's rate). */
double weft_opcost_launch_on_ns(const WeftDevice *d, double op_ns, int graphs) {
  double cpu = d && d->launch_cpu_ns > 0 ? d->launch_cpu_ns : OC_LAUNCH_CPU_NS;
  double t = op_ns + OC_LAUNCH_GAP_NS;
  return graphs || t >= cpu ? t : cpu;
}

double weft_opcost_optimizer_ns(const WeftDevice *d, const WeftParallel *par, double elems,
                                double grad_elems) {
  /* Megatron's zero_grad_buffer at each iteration's start (DDP's
   * buffer.reset(): grad_data.zero_()), the rank's whole gradient buffer */
  OcOp zero = {"zero_grad_buffer", WEFT_PHASE_WG, OC_VECTOR, 0, 0, 0, 0, 0,
               grad_elems * par->grad_bytes, 0, 0, 0, 0, 0, 0, 0, 0};
  /* gradient clipping's norm (Megatron's clip_grad 1.0 default): every
   * gradient read once, a multiply-add each; its scaling pass runs only
   * when the norm is above the limit (not charged) */
  OcOp norm = {"grad_norm", WEFT_PHASE_WG, OC_VECTOR, 0, 0, 0, 0, 2 * elems,
               elems * par->grad_bytes, 0, 0, 0, 0, 0, 0, 0, 0};
  /* read master weights, moments and gradient; write them back and the
   * low-precision copy: 2 * optimizer + grad + param bytes per element */
  double bytes = elems * (2 * par->optimizer_bytes + par->grad_bytes + par->param_bytes);
  OcOp op = {"adam", WEFT_PHASE_WG, OC_VECTOR, 0, 0, 0, 0, ADAM_FLOPS * elems, bytes, 0, 0,
             WM_ADAM, elems, 0, 0, 0, 0};
  return weft_opcost_op_ns(d, &zero, par->act_bytes) + weft_opcost_op_ns(d, &norm, par->act_bytes) +
         weft_opcost_op_ns(d, &op, par->act_bytes);
}
