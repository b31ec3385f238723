/* test_fp8.c — FP8 as Transformer Engine runs it (docs/zoo.md, "FP8"): the
 * cast and scaling kernels' bytes and FLOPs by hand for each recipe, which
 * GEMMs get them, the weight casts once an iteration, the kernel launch
 * cost, delayed scaling's amax all-reduce, and the recipes' names and
 * device checks. */
#include <stdio.h>
#include <string.h>

#include "model/gen.h"
#include "model/opcost.h"
#include "model/par_check.h"
#include "../test.h"
#include "gen_fixture.h"
#include "oc_fixture.h"

#define EXACT 1e-12

/* b = 1, s = 4, h = 8, 2 heads of 4, FFN 32 (SwiGLU), vocab 16, TP 1, bf16. */
static OcLayer tiny(int fp8) {
  OcLayer l = oc_tiny(3);
  l.param_bytes = 2;
  l.fp8 = fp8;
  return l;
}

static int count(const OcOp *ops, int n, const char *prefix) {
  int c = 0;
  for (int i = 0; i < n; i++) c += !strncmp(ops[i].name, prefix, strlen(prefix));
  return c;
}

/* The nth op named name, or NULL. */
static const OcOp *nth(const OcOp *ops, int n, const char *name, int k) {
  for (int i = 0; i < n; i++)
    if (!strcmp(ops[i].name, name) && k-- == 0) return &ops[i];
  return NULL;
}

/* Cast bytes for e = 1000 bf16 elements: read 2000, write two FP8 copies
 * 2000; delayed + the amax history 2 x 4 x 1024 and 3 x 4 scale bytes;
 * MXFP8 + 2 x 1000 / 32 scale bytes. */
static void cast_bytes(void) {
  CHECK_NEAR(weft_opcost_fp8_cast_bytes(WEFT_FP8_OFF, 1000, 2, 0), 0, EXACT);
  CHECK_NEAR(weft_opcost_fp8_cast_bytes(WEFT_FP8_DELAYED, 1000, 2, 0), 4000 + 8192 + 12, EXACT);
  CHECK_NEAR(weft_opcost_fp8_cast_bytes(WEFT_FP8_CURRENT, 1000, 2, 0), 4000, EXACT);
  CHECK_NEAR(weft_opcost_fp8_cast_bytes(WEFT_FP8_MXFP8, 1000, 2, 0), 4000 + 62.5, EXACT);
  CHECK_NEAR(weft_opcost_fp8_cast_bytes(WEFT_FP8_CURRENT, 1000, 4, 0), 6000, EXACT); /* fp32 in */
  /* blockwise: 2 x 4 fp32 scale bytes per 128 elements (an activation), per
   * 128 x 128 (a weight) */
  CHECK_NEAR(weft_opcost_fp8_cast_bytes(WEFT_FP8_BLOCKWISE, 1280, 2, 0), 1280 * 4 + 80, EXACT);
  CHECK_NEAR(weft_opcost_fp8_cast_bytes(WEFT_FP8_BLOCKWISE, 16384, 2, 1), 16384 * 4 + 8, EXACT);
  CHECK_NEAR(weft_opcost_fp8_cast_bytes(WEFT_FP8_DELAYED, 1000, 2, 1), 4000 + 8192 + 12, EXACT);
}

/* The MLP (fc1: gate and up as one GEMM of width 2 x 32, Megatron-Core's
 * linear_fc1; fc2), delayed scaling: per GEMM an input cast in the
 * forward, a gradient cast in input-grad, a weight cast once an iteration;
 * but fc1's input is written in FP8 by the norm before it (TE's
 * LayerNormLinear) and transposed in the backward.
 * fc1: input 4 x 8 = 32 elements: the RMSNorm reads 32 x 2 and writes 32 x
 * 1 + the history and scales 8204 bytes, 32 x 4 + 32 x 2 (scale, amax)
 * FLOPs; the transpose reads and writes 32 x 1 in weight-grad. Its
 * gradient 4 x 64 = 256, 256 x 4 + 8204; its weight 8 x 64 = 512, 512 x 4 +
 * 8204. fc2: input 128 elements, 128 x 4 + 8204, 256 FLOPs; gradient 32,
 * weight 256. */
static void mlp_delayed(void) {
  OcLayer l = tiny(WEFT_FP8_DELAYED);
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  CHECK_EQ_INT(count(ops, n, "fp8_cast"), 5);
  CHECK_EQ_INT(count(ops, n, "fp8_amax"), 0);
  CHECK_EQ_INT(count(ops, n, "fp8_transpose"), 1);
  const OcOp *in = nth(ops, n, "fp8_cast_input", 0), *gr = nth(ops, n, "fp8_cast_grad", 0);
  const OcOp *w = nth(ops, n, "fp8_cast_weight", 0), *nm = nth(ops, n, "mlp_norm", 0);
  const OcOp *gr2 = nth(ops, n, "fp8_cast_grad", 1), *tr = nth(ops, n, "fp8_transpose_input", 0);
  const OcOp *nb = nth(ops, n, "mlp_norm", 1);
  CHECK(in && gr && w && nm && gr2 && tr && nb);
  if (!in || !gr || !w || !nm || !gr2 || !tr || !nb) return;
  CHECK_NEAR(nm->bytes, 32 * 3 + 8204, EXACT);
  CHECK_NEAR(nm->flops, 32 * 4 + 64, EXACT);
  CHECK_NEAR(nb->bytes, 4 * 32 * 2, EXACT); /* its backward as a bf16 norm's */
  CHECK_NEAR(tr->bytes, 64, EXACT);
  CHECK_EQ_INT(tr->phase, WEFT_PHASE_WG);
  CHECK_NEAR(in->bytes, 128 * 4 + 8204, EXACT); /* fc2's input: the SwiGLU output */
  CHECK_NEAR(in->flops, 256, EXACT);
  CHECK_EQ_INT(in->phase, WEFT_PHASE_FWD);
  CHECK(!in->once && in->kind == OC_VECTOR);
  CHECK_NEAR(gr->bytes, 256 * 4 + 8204, EXACT);
  CHECK_EQ_INT(gr->phase, WEFT_PHASE_IG);
  CHECK_NEAR(w->bytes, 512 * 4 + 8204, EXACT);
  CHECK(w->once);
  CHECK_NEAR(gr2->bytes, 32 * 4 + 8204, EXACT);
  /* all three GEMMs of each linear layer at the FP8 rate, reading 1-byte inputs:
   * fc1 forward (4 x 8)(8 x 64): (32 + 512) x 1 + 256 x 2 */
  const OcOp *g = nth(ops, n, "fc1", 0);
  CHECK(g && g->fp8 && g->phase == WEFT_PHASE_FWD);
  if (g) CHECK_NEAR(g->bytes, 544 + 512, EXACT);
  for (int i = 0; i < n; i++)
    if (ops[i].kind == OC_GEMM) CHECK(ops[i].fp8);
}

/* Current scaling: an amax pass before every cast (e x 2 bytes read, e
 * FLOPs), the cast without the history (e x 4 bytes, e FLOPs); but fc1's
 * input, the norm's output, has its amax taken by the norm kernel (TE PR
 * #2013: 1 FLOP an element in the norm, 32 x 4 + 32; no pass of its own).
 * MXFP8: no amax pass, scale bytes in the cast. */
static void mlp_current_mxfp8(void) {
  OcLayer l = tiny(WEFT_FP8_CURRENT);
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  CHECK_EQ_INT(count(ops, n, "fp8_cast"), 6);
  CHECK_EQ_INT(count(ops, n, "fp8_amax"), 5);
  const OcOp *a = nth(ops, n, "fp8_amax_input", 0), *c = nth(ops, n, "fp8_cast_input", 0);
  const OcOp *c2 = nth(ops, n, "fp8_cast_input", 1), *aw = nth(ops, n, "fp8_amax_weight", 0);
  const OcOp *nm = nth(ops, n, "mlp_norm", 0);
  CHECK(a && c && c2 && aw && nm);
  if (!a || !c || !c2 || !aw || !nm) return;
  CHECK_NEAR(nm->flops, 32 * 4 + 32, EXACT);
  CHECK_NEAR(nm->bytes, 32 * 4, EXACT); /* its bf16 output, as without FP8 */
  CHECK_NEAR(c->bytes, 128, EXACT); /* fc1's input, 32 elements */
  CHECK_NEAR(c->flops, 32, EXACT);
  CHECK_NEAR(a->bytes, 256, EXACT); /* fc2's input: 4 x 32 elements at 2 bytes */
  CHECK_NEAR(a->flops, 128, EXACT);
  CHECK(c < a && a < c2); /* fc1's cast first; fc2's amax pass before its cast */
  CHECK(aw->once);
  CHECK_NEAR(aw->bytes, 1024, EXACT); /* fc1's weight: 512 elements at 2 bytes */
  l = tiny(WEFT_FP8_MXFP8);
  n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  CHECK_EQ_INT(count(ops, n, "fp8_amax"), 0);
  c = nth(ops, n, "fp8_cast_input", 0);
  CHECK(c != NULL);
  if (c) CHECK_NEAR(c->bytes, 32 * 2 + 32 * 2 * (1 + 1 / 32.0), EXACT);
  /* blockwise: fc1's input 32 elements (+ 2 x 4 x 32 / 128 scale
   * bytes), its weight 512 (+ 2 x 4 x 512 / 16384), no amax pass */
  l = tiny(WEFT_FP8_BLOCKWISE);
  n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  CHECK_EQ_INT(count(ops, n, "fp8_amax"), 0);
  c = nth(ops, n, "fp8_cast_input", 0);
  const OcOp *w = nth(ops, n, "fp8_cast_weight", 0);
  CHECK(c && w);
  if (c) CHECK_NEAR(c->bytes, 32 * 4 + 2.0, EXACT);
  if (w) CHECK_NEAR(w->bytes, 512 * 4 + 0.25, EXACT);
}

/* Only the linear layers: QKV and the projection in attention (the score
 * and context GEMMs and flash attention stay BF16), neither the router nor
 * the logits; FP8 off: no cast at all. MoE experts: one cast per expert's
 * tensor, experts x (elements x 4 + 8204). */
static void which_gemms(void) {
  OcLayer l = tiny(WEFT_FP8_DELAYED);
  OcOp ops[OC_MAX_OPS];
  for (int flash = 0; flash < 2; flash++) {
    l.flash = flash;
    int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
    CHECK_EQ_INT(count(ops, n, "fp8_cast"), 5); /* QKV's input: the norm's (LayerNormLinear) */
    CHECK_EQ_INT(count(ops, n, "fp8_transpose"), 1);
    for (int i = 0; i < n; i++)
      if (!strcmp(ops[i].name, "score") || !strcmp(ops[i].name, "context") ||
          !strcmp(ops[i].name, "flash_attn"))
        CHECK(!ops[i].fp8);
  }
  int n = weft_opcost_ops(&l, OC_LOGITS, ops, OC_MAX_OPS);
  CHECK_EQ_INT(count(ops, n, "fp8_"), 0);
  l.experts = 4, l.top_k = 2;
  n = weft_opcost_ops(&l, OC_MOE, ops, OC_MAX_OPS);
  CHECK(n < OC_MAX_OPS);
  CHECK_EQ_INT(count(ops, n, "fp8_cast"), 6); /* fc1, fc2: the router stays BF16 */
  const OcOp *in = nth(ops, n, "fp8_cast_input", 0), *w = nth(ops, n, "fp8_cast_weight", 0);
  CHECK(in && w);
  /* 4 tokens x top 2 over 4 experts: 2 tokens each, inputs 2 x 8 */
  if (in) CHECK_NEAR(in->bytes, 4 * (16 * 4 + 8204), EXACT);
  if (w) CHECK_NEAR(w->bytes, 4 * (512 * 4 + 8204), EXACT); /* fc1's 8 x 64 a expert */
  l = tiny(WEFT_FP8_OFF);
  for (int b = 0; b < OC_NBLOCKS; b++) {
    n = weft_opcost_ops(&l, (OcBlock)b, ops, OC_MAX_OPS);
    CHECK_EQ_INT(count(ops, n, "fp8_"), 0);
  }
}

/* A kernel's launch (h100_launch.csv): eager, the CPU's 8028 ns unless the
 * kernel (+ the 1173 ns gap) takes longer; graphs, the kernel + the gap. */
static void launch(void) {
  CHECK_NEAR(weft_opcost_launch_ns(100, 0), 8028, EXACT);
  CHECK_NEAR(weft_opcost_launch_ns(100, 1), 1273, EXACT);
  CHECK_NEAR(weft_opcost_launch_ns(6855, 0), 8028, EXACT); /* just the CPU's */
  CHECK_NEAR(weft_opcost_launch_ns(6856, 0), 8029, EXACT);
  CHECK_NEAR(weft_opcost_launch_ns(10000, 0), 11173, EXACT);
  CHECK_NEAR(weft_opcost_launch_ns(10000, 1), 11173, EXACT);
  CHECK_NEAR(weft_opcost_launch_ns(0, 0), 8028, EXACT);
}

/* A two-layer model, hidden 64: the weights (QKV 64 x 192, projection,
 * fc1 64 x 256, fc2) are cast once an iteration, in the optimizer entry.
 * Each cast moves at most 256 x 64 x 4 + 8204 bytes, ~40 ns at 2 TB/s:
 * eager, each costs the CPU's 8028 ns; 2 layers x 4 weights = 64224 ns more
 * than without FP8. With CUDA graphs, the casts' own times + 1173 ns each. */
static void weights_once(void) {
  WeftModel m;
  memset(&m, 0, sizeof m);
  snprintf(m.name, sizeof m.name, "t");
  m.arch = WEFT_ARCH_TRANSFORMER;
  m.global_batch = 8, m.seq_len = 16, m.layers = 2, m.hidden = 64, m.heads = m.kv_heads = 4;
  m.ffn_hidden = 256, m.ffn_matrices = 2, m.vocab = 128;
  WeftDevice d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "unit");
  d.peak_flops = 1e15, d.peak_fp8_flops = 2e15, d.peak_vector_flops = 50e12;
  d.hbm_bytes_per_s = 2e12, d.hbm_efficiency = 1, d.hbm_bytes = 80e9;
  d.sms = 132, d.tile_m = 128, d.tile_n = 128, d.gemm_efficiency = 0.8;
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = 1, net.npus[0] = 2, net.topology[0] = WEFT_RING;
  snprintf(net.cost_dim[0], sizeof net.cost_dim[0], "c");
  WeftParallel p;
  weft_parallel_default(&p);
  p.dp = 2;
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError e;
  CHECK(wl != NULL);
  if (!wl) return;
  double opt[3][2] = {{0}};
  for (int graphs = 0; graphs < 2; graphs++)
    for (int f = 0; f < 3; f++) {
      p.fp8 = f == 0 ? WEFT_FP8_OFF : f == 1 ? WEFT_FP8_DELAYED : WEFT_FP8_CURRENT;
      p.cuda_graphs = graphs;
      CHECK_EQ_INT(weft_generate(&m, &d, &p, &net, 0, wl, &comm, &info, &e), WEFT_OK);
      for (int i = 0; i < wl->nlayers; i++)
        if (!strcmp(wl->layers[i].name, "optimizer"))
          opt[f][graphs] = wl->layers[i].phase[WEFT_PHASE_WG].compute_ns;
    }
  CHECK(opt[0][0] > 0);
  CHECK_NEAR(opt[1][0] - opt[0][0], 8 * 8028.0, 1.0 / 64224); /* whole ns: +-1 */
  CHECK_NEAR(opt[2][0] - opt[0][0], 16 * 8028.0, 1.0 / 128448); /* + the amax passes */
  /* graphs: sum of (bytes / 2 TB/s + 1 us) over the 4 weights x 2 layers */
  double el[4] = {64 * 192, 64 * 64, 64 * 256, 256 * 64}, want = 0;
  for (int k = 0; k < 4; k++) want += 2 * ((el[k] * 4 + 8204) / 2e12 * 1e9 + 1173);
  CHECK_NEAR(opt[1][1] - opt[0][1], want, 2.0 / want);
  /* the same device without block-scaled tensor cores refuses MXFP8 */
  p.fp8 = WEFT_FP8_MXFP8;
  CHECK_EQ_INT(weft_generate(&m, &d, &p, &net, 0, wl, &comm, &info, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "fp8") && strstr(e.msg, "mxfp8") != NULL);
  d.peak_fp4_flops = 4e15;
  CHECK_EQ_INT(weft_generate(&m, &d, &p, &net, 0, wl, &comm, &info, &e), WEFT_OK);
  p.fp8 = WEFT_FP8_BLOCKWISE; /* Hopper runs it: an FP8 rate is enough */
  d.peak_fp4_flops = 0;
  CHECK_EQ_INT(weft_generate(&m, &d, &p, &net, 0, wl, &comm, &info, &e), WEFT_OK);
  p.fp8 = 7;
  CHECK_EQ_INT(weft_generate(&m, &d, &p, &net, 0, wl, &comm, &info, &e), WEFT_EINPUT);
  weft_workload_free(wl);
}

/* NVFP4 (NVIDIA's NVFP4 pretraining recipe): a cast writes two copies of
 * half a byte an element and an E4M3 scale byte per 16 (per 16 x 16 of a
 * weight) after a per-tensor amax pass; the activations' and gradients'
 * casts add the 16 x 16 Hadamard transform (32 FLOPs an element). The
 * GEMMs read those inputs and run at the FP4 rate. */
static void nvfp4(void) {
  /* 1000 bf16 elements: 2000 read + 2 x (500 + 62.5); a weight of 256: 512 + 2 x (128 + 1) */
  CHECK_NEAR(weft_opcost_fp8_cast_bytes(WEFT_FP8_NVFP4, 1000, 2, 0), 3125, EXACT);
  CHECK_NEAR(weft_opcost_fp8_cast_bytes(WEFT_FP8_NVFP4, 256, 2, 1), 770, EXACT);
  OcLayer l = tiny(WEFT_FP8_NVFP4);
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  CHECK_EQ_INT(count(ops, n, "fp8_amax"), 6); /* fc1 (gate and up as one) and fc2: 3 each */
  const OcOp *c = nth(ops, n, "fp8_cast_input", 0), *w = nth(ops, n, "fp8_cast_weight", 0);
  const OcOp *g = nth(ops, n, "fc1", 0);
  CHECK(c && w && g);
  if (!c || !w || !g) return;
  CHECK_NEAR(c->bytes, 32 * 2 + 2 * (16 + 2), EXACT); /* the gate's input, 4 x 8 */
  CHECK_NEAR(c->flops, 32 * (1 + 32), EXACT);
  CHECK_NEAR(w->flops, 512, EXACT); /* no transform of the weight */
  /* fc1 forward (4 x 8)(8 x 64): X 32 x 9/16, W 512 x (1/2 + 1/256), C 256 x 2 */
  CHECK_EQ_INT(g->fp8, 2);
  CHECK_NEAR(g->bytes, 18 + 258 + 512, EXACT);
  WeftDevice b, h;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "b200", &b, &e), WEFT_OK);
  b.measured[0] = '\0'; /* the datasheet path (the H100's tables: test_hw.c) */
  /* one tile of 256 x 128, one wave of 148 SMs: 148 x 2 x 256 x 128 x 8
   * FLOPs at 9000 TFLOP/s (B200's dense FP4) x 0.693 */
  CHECK_NEAR(weft_opcost_op_ns(&b, g, 2) / (148 * 2 * 256 * 128 * 8.0 / (9000e12 * 0.693) * 1e9),
             1, 1e-12);
  OcOp g8 = *g;
  g8.fp8 = 1; /* the same GEMM in FP8: 4500 TFLOP/s */
  CHECK_NEAR(weft_opcost_op_ns(&b, &g8, 2) / weft_opcost_op_ns(&b, g, 2), 2, 1e-12);
  /* refused on a device without an FP4 rate */
  WeftParallel p;
  memset(&p, 0, sizeof p);
  p.fp8 = WEFT_FP8_NVFP4;
  CHECK_EQ_INT(weft_par_device_check(&p, &b, &e), WEFT_OK);
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "h100", &h, &e), WEFT_OK);
  CHECK_EQ_INT(weft_par_device_check(&p, &h, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "no FP4 rate") != NULL);
}

/* n names, each parsed to its index and named back by name(); bad refused
 * under field, the mode left as it was. */
static void round_trip(const char *const *n, int count, int (*parse)(const char *, int *, WeftError *),
                       const char *(*name)(int), const char *bad, const char *field) {
  WeftError e;
  for (int i = 0; i < count; i++) {
    int mode = -1;
    CHECK_EQ_INT(parse(n[i], &mode, &e), WEFT_OK);
    CHECK_EQ_INT(mode, i);
    CHECK(!strcmp(name(i), n[i]));
  }
  int mode = 9;
  CHECK_EQ_INT(parse(bad, &mode, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, field) && mode == 9);
}

static void names(void) {
  static const char *const n[6] = {"off", "delayed", "current", "mxfp8", "blockwise", "nvfp4"};
  round_trip(n, 6, weft_fp8_parse, weft_fp8_name, "tensorwise", "fp8");
}


/* NCCL's LL latency (src/graph/tuning.cc) by hand, in us: one node of 8,
 * ring 6.6 + 14 x 0.6 = 15.0 against tree 6.8 + 14 x 0.6 = 15.2; one of 16,
 * ring 6.6 + 30 x 0.6 = 24.6; 2 nodes of 8, tree 6.8 + 2 (7 x 0.6 + 1 x 5)
 * = 25.2 against ring 6.6 + 26 x 1 + 4 x 2.7 = 43.4; 32 nodes of 8, tree
 * 6.8 + 2 (4.2 + 5 x 5) = 65.2. A GPU a node: NCCL counts 2 x nodes steps
 * on the network of the ring's 2 (ranks - 1), so the rest goes negative, as
 * there: 4 nodes, ring 6.6 + (6 - 8) x 1 + 8 x 2.7 = 26.2 against tree
 * 6.8 + 2 (0 + 2 x 5) = 26.8; 3 nodes (floor(log2 3) = 1), tree 16.8
 * against ring 6.6 - 2 + 6 x 2.7 = 20.8. One rank: nothing. */
static void amax_latency(void) {
  CHECK_NEAR(weft_nccl_ll_allreduce_ns(8, 1), 15000, 1e-9);
  CHECK_NEAR(weft_nccl_ll_allreduce_ns(16, 1), 24600, 1e-9);
  CHECK_NEAR(weft_nccl_ll_allreduce_ns(16, 2), 25200, 1e-9);
  CHECK_NEAR(weft_nccl_ll_allreduce_ns(256, 32), 65200, 1e-9);
  CHECK_NEAR(weft_nccl_ll_allreduce_ns(4, 4), 26200, 1e-9);
  CHECK_NEAR(weft_nccl_ll_allreduce_ns(3, 3), 16800, 1e-9);
  CHECK_NEAR(weft_nccl_ll_allreduce_ns(1, 1), 0, 0);
}

/* The sum over a workload's entries of phase ph's compute. */
static double phase_total(const WeftWorkload *wl, int ph) {
  double t = 0;
  for (int i = 0; i < wl->nlayers; i++) t += wl->layers[i].phase[ph].compute_ns;
  return t;
}

/* llama3-8b at sequence 1024 on 16 H100s (TP tp with sequence parallelism
 * when tp > 1, DP 16 / tp, ZeRO 1, micro-batch 1, global batch 64: m = 64 /
 * DP micro-batches, one stage) with FP8 recipe mode, amax group group and
 * the groups laid in order (NULL: TP innermost), on ndims dims of dims:
 * each phase's compute summed over the workload's entries into ph[3];
 * 0, or -1 (a test failure) when it cannot be generated. */
static int gen_phases(int mode, int group, int tp, const char *order, const int *dims, int ndims,
                      double ph[3]) {
  WeftModel m;
  WeftDevice d;
  WeftError e;
  WeftParallel p;
  weft_parallel_default(&p);
  int rc = weft_zoo_model("data/zoo", "llama3-8b", &m, &e) ||
           weft_zoo_device("data/zoo", "h100", &d, &e) ||
           (order && weft_parallel_order_parse(order, p.order, &e));
  m.global_batch = 64;
  m.seq_len = 1024;
  p.tp = tp;
  p.dp = 16 / tp;
  p.sequence_parallel = tp > 1;
  p.zero_stage = 1;
  p.micro_batch = 1;
  p.fp8 = mode;
  p.fp8_amax_reduce = group;
  WeftNetwork net = fx_net(ndims, dims, WEFT_SWITCH);
  WeftWorkload *w = rc ? NULL : weft_workload_create();
  WeftCommunicator c;
  WeftGenInfo info;
  if (!w || weft_generate(&m, &d, &p, &net, 0, w, &c, &info, &e)) {
    fprintf(stderr, "  %s\n", rc || w ? e.msg : "out of memory");
    CHECK(0);
    weft_workload_free(w);
    return -1;
  }
  for (int k = 0; k < 3; k++) ph[k] = phase_total(w, k);
  weft_workload_free(w);
  return 0;
}

/* gen_phases on 8 x 2 (two nodes) less on one dim of 16 (one node), the
 * forward and input-grad compute; the weight-grad's alike. The compute is
 * the network's alike but for the amax reductions. */
static void amax_diff_on(int mode, int group, int tp, const char *order, double *fwd, double *ig) {
  static const int one[1] = {16}, two[2] = {8, 2};
  double a[3], b[3];
  *fwd = *ig = -1;
  if (gen_phases(mode, group, tp, order, one, 1, a) || gen_phases(mode, group, tp, order, two, 2, b))
    return;
  *fwd = b[WEFT_PHASE_FWD] - a[WEFT_PHASE_FWD];
  *ig = b[WEFT_PHASE_IG] - a[WEFT_PHASE_IG];
  CHECK_NEAR(b[WEFT_PHASE_WG], a[WEFT_PHASE_WG], 1e-6);
}

/* TP 1, DP 16 (m = 4): per micro-batch one reduction a pass, 25.2 - 24.6 =
 * 0.6 us more on two nodes, a 32nd of it on each layer's entry: 4 x 600 /
 * 32 = 75 ns (whole: the entries' times are whole ns). */
static void amax_diff(int mode, double *fwd, double *ig) {
  amax_diff_on(mode, WEFT_AMAX_STAGE, 1, NULL, fwd, ig);
}

/* Current scaling with sequence parallelism, TP 2, DP 8: TP on one dim of
 * 16 (one node: ring 6.6 + 2 x 0.6 = 7.8 us), and, DP innermost, over the
 * two nodes of 8 x 2 (ring 6.6 + (2 - 4) x 1 + 4 x 2.7 = 15.4 us against
 * tree 6.8 + 2 x 5 = 16.8): 7.6 us more an all-reduce. One a pass in each
 * of a layer's two blocks (QKV's and fc1's input forward, proj's and fc2's
 * output gradient input-grad), 32 layers, m = 64 / 8 = 8: 8 x 32 x 2 x
 * 7.6 us. Delayed scaling reduces no operand over TP, its regions' amaxes
 * over the same 16 ranks as amax_sync's: 8 x 0.6 us. */
static void amax_tp(void) {
  double f, i;
  amax_diff_on(WEFT_FP8_CURRENT, WEFT_AMAX_STAGE, 2, "DP,TP,PP", &f, &i);
  CHECK_NEAR(f, 8 * 32 * 2 * 7600.0, 1e-6);
  CHECK_NEAR(i, 8 * 32 * 2 * 7600.0, 1e-6);
  amax_diff_on(WEFT_FP8_DELAYED, WEFT_AMAX_STAGE, 2, "DP,TP,PP", &f, &i);
  CHECK_NEAR(f, 8 * 600.0, 1e-6);
  CHECK_NEAR(i, 8 * 600.0, 1e-6);
}

/* fp8_amax_reduce (Megatron's --tp-only-amax-red, TE's reduce_amax): TP 2
 * in a node of the 8 x 2 network. tp: over TP x CP, 2 ranks on either
 * network (ring 6.6 + 2 x 0.6 = 7.8 us), so the two differ by nothing; off:
 * no reduction; stage: amax_tp's 8 x 0.6 us. Refused, naming the field,
 * without delayed scaling and out of range; the names round-trip. */
static void amax_group(void) {
  double f, i;
  amax_diff_on(WEFT_FP8_DELAYED, WEFT_AMAX_TP, 2, NULL, &f, &i);
  CHECK_NEAR(f, 0, 1e-6);
  CHECK_NEAR(i, 0, 1e-6);
  amax_diff_on(WEFT_FP8_DELAYED, WEFT_AMAX_OFF, 2, NULL, &f, &i);
  CHECK_NEAR(f, 0, 1e-6);
  CHECK_NEAR(i, 0, 1e-6);
  amax_diff_on(WEFT_FP8_DELAYED, WEFT_AMAX_STAGE, 2, NULL, &f, &i);
  CHECK_NEAR(f, 8 * 600.0, 1e-6);
  WeftParallel p;
  WeftDevice d;
  WeftError e;
  weft_parallel_default(&p);
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "h100", &d, &e), WEFT_OK);
  p.fp8 = WEFT_FP8_CURRENT;
  p.fp8_amax_reduce = WEFT_AMAX_TP;
  CHECK_EQ_INT(weft_par_device_check(&p, &d, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "fp8_amax_reduce") && strstr(e.msg, "needs fp8 delayed"));
  p.fp8 = WEFT_FP8_DELAYED;
  CHECK_EQ_INT(weft_par_device_check(&p, &d, &e), WEFT_OK);
  p.fp8_amax_reduce = 3;
  CHECK_EQ_INT(weft_par_device_check(&p, &d, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "fp8_amax_reduce"));
  static const char *const n[3] = {"stage", "tp", "off"};
  round_trip(n, 3, weft_fp8_amax_reduce_parse, weft_fp8_amax_reduce_name, "dp", "fp8_amax_reduce");
}

/* The absolute reduction on two nodes of 8, from off to stage and to tp
 * (TP 2 in a node): m = 8 micro-batches, a forward pass each, 25.2 and
 * 7.8 us. */
static void amax_group_abs(void) {
  static const int two[2] = {8, 2};
  double off[3], stage[3], tp[3];
  if (gen_phases(WEFT_FP8_DELAYED, WEFT_AMAX_OFF, 2, NULL, two, 2, off) ||
      gen_phases(WEFT_FP8_DELAYED, WEFT_AMAX_STAGE, 2, NULL, two, 2, stage) ||
      gen_phases(WEFT_FP8_DELAYED, WEFT_AMAX_TP, 2, NULL, two, 2, tp))
    return;
  CHECK_NEAR(stage[WEFT_PHASE_FWD] - off[WEFT_PHASE_FWD], 8 * 25200.0, 1e-6);
  CHECK_NEAR(tp[WEFT_PHASE_FWD] - off[WEFT_PHASE_FWD], 8 * 7800.0, 1e-6);
}

static void amax_sync(void) {
  double f, i;
  amax_diff(WEFT_FP8_DELAYED, &f, &i);
  CHECK_NEAR(f, 4 * 600.0, 1e-6);
  CHECK_NEAR(i, 4 * 600.0, 1e-6);
  amax_diff(WEFT_FP8_CURRENT, &f, &i); /* no reduction of a region's amaxes */
  CHECK_NEAR(f, 0, 1e-6);
  CHECK_NEAR(i, 0, 1e-6);
  amax_diff(WEFT_FP8_OFF, &f, &i);
  CHECK_NEAR(f, 0, 1e-6);
  CHECK_NEAR(i, 0, 1e-6);
}

/* Sequence parallelism, TP 2 (b 1, s 4, h 8: the block's input 32
 * elements, a rank's shard 16): fc1's input and fc2's output gradient are
 * gathered over TP, so a per-tensor recipe casts the shard to its row-wise
 * copy (current: fc2's gradient an amax pass of 16 x 2 bytes and 16 FLOPs,
 * fc1's input none, the norm took it; then 16 x (2 + 1) bytes, 16 FLOPs),
 * gathers the FP8 copy and transposes the gathered 32 (32 x 2 bytes,
 * weight-grad). fc1's gradient (4 x 2 x 16 = 128) and fc2's input
 * (4 x 16 = 64) are not gathered: both copies, as at TP 1. Delayed: fc1's
 * input is the norm's FP8 output (the shard, 16 x 3 + 8204) and transposed;
 * fc2's gradient cast 16 x 3 + 8204 bytes, 32 FLOPs, and transposed. MXFP8
 * (block scales) keeps both copies of the whole tensor. */
static void sp_gathered(void) {
  OcLayer l = tiny(WEFT_FP8_CURRENT);
  l.tp = 2;
  l.sp = 1;
  OcOp ops[OC_MAX_OPS];
  int n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  const OcOp *ci = nth(ops, n, "fp8_cast_input", 0);
  const OcOp *ti = nth(ops, n, "fp8_transpose_input", 0), *ci2 = nth(ops, n, "fp8_cast_input", 1);
  const OcOp *ag = nth(ops, n, "fp8_amax_grad", 1), *cg = nth(ops, n, "fp8_cast_grad", 1);
  const OcOp *tg = nth(ops, n, "fp8_transpose_grad", 0), *cg1 = nth(ops, n, "fp8_cast_grad", 0);
  CHECK(ci && ti && ci2 && ag && cg && tg && cg1);
  if (!ci || !ti || !ci2 || !ag || !cg || !tg || !cg1) return;
  CHECK_EQ_INT(count(ops, n, "fp8_amax_input"), 1); /* fc2's; fc1's in the norm */
  CHECK_NEAR(ci->bytes, 48, EXACT);
  CHECK_NEAR(ci->flops, 16, EXACT);
  CHECK_NEAR(ti->bytes, 64, EXACT);
  CHECK_EQ_INT(ti->phase, WEFT_PHASE_WG);
  CHECK_NEAR(ci2->bytes, 64 * 4, EXACT); /* fc2's input: both copies */
  CHECK_NEAR(cg1->bytes, 128 * 4, EXACT); /* fc1's gradient: both copies */
  CHECK_NEAR(ag->bytes, 32, EXACT);
  CHECK_NEAR(ag->flops, 16, EXACT);
  CHECK_NEAR(cg->bytes, 48, EXACT);
  CHECK_EQ_INT(cg->phase, WEFT_PHASE_IG);
  CHECK_NEAR(tg->bytes, 64, EXACT);
  CHECK_EQ_INT(tg->phase, WEFT_PHASE_WG);
  CHECK_EQ_INT(count(ops, n, "fp8_transpose"), 2);
  l.fp8 = WEFT_FP8_DELAYED;
  n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  const OcOp *nm = nth(ops, n, "mlp_norm", 0);
  cg = nth(ops, n, "fp8_cast_grad", 1);
  CHECK(nm && cg);
  if (nm) CHECK_NEAR(nm->bytes, 16 * 3 + 8204, EXACT);
  if (cg) CHECK_NEAR(cg->bytes, 16 * 3 + 8204, EXACT);
  if (cg) CHECK_NEAR(cg->flops, 32, EXACT);
  CHECK_EQ_INT(count(ops, n, "fp8_amax"), 0);
  CHECK_EQ_INT(count(ops, n, "fp8_transpose"), 2);
  l.fp8 = WEFT_FP8_MXFP8;
  n = weft_opcost_ops(&l, OC_MLP, ops, OC_MAX_OPS);
  ci = nth(ops, n, "fp8_cast_input", 0);
  CHECK_EQ_INT(count(ops, n, "fp8_transpose"), 0);
  if (ci) CHECK_NEAR(ci->bytes, 32 * 2 + 32 * 2 * (1 + 1 / 32.0), EXACT);
  /* the attention block likewise: QKV's input, the projection's gradient */
  l.fp8 = WEFT_FP8_CURRENT;
  n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  ci = nth(ops, n, "fp8_cast_input", 0);
  cg = nth(ops, n, "fp8_cast_grad", 1);
  CHECK(ci && cg);
  if (ci) CHECK_NEAR(ci->bytes, 48, EXACT);
  if (cg) CHECK_NEAR(cg->bytes, 48, EXACT);
  CHECK_EQ_INT(count(ops, n, "fp8_transpose"), 2);
}

const TestCase suite_fp8[] = {{"fp8/cast_bytes", cast_bytes},
                              {"fp8/mlp_delayed", mlp_delayed},
                              {"fp8/mlp_current_mxfp8", mlp_current_mxfp8},
                              {"fp8/sp_gathered", sp_gathered},
                              {"fp8/which_gemms", which_gemms},
                              {"fp8/launch", launch},
                              {"fp8/weights_once", weights_once},
                              {"fp8/nvfp4", nvfp4},
                              {"fp8/names", names},
                              {"fp8/amax_latency", amax_latency},
                              {"fp8/amax_sync", amax_sync},
                              {"fp8/amax_tp", amax_tp},
                              {"fp8/amax_group", amax_group},
                              {"fp8/amax_group_abs", amax_group_abs},
                              {NULL, NULL}};
