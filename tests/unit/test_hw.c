/* test_hw.c — the 2025-2026 devices and cluster presets (issue 23): each
 * preset's figures against its datasheet arithmetic, and per cluster a
 * collective's per-GPU bytes, steps or time worked out by hand from
 * docs/model.md; bad fp4_tflops / power_w values refused at their line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "model/gemm_eff.h"
#include "model/opcost.h"
#include "allreduce_fixture.h"
#include "weft.h"

#define ZOO "data/zoo"
#define GIB (1024.0 * 1024.0 * 1024.0)
#define EXACT 1e-12   /* figures read from the file: exact up to the decimal parse */
#define ROUND 5e-5    /* figures written to 4 or 5 significant digits in the file */

static WeftDevice dev(const char *name) {
  WeftDevice d;
  WeftError e;
  memset(&d, 0, sizeof d);
  CHECK_EQ_INT(weft_zoo_device(ZOO, name, &d, &e), WEFT_OK);
  return d;
}

/* NVIDIA's per-GPU tables give sparse rates: dense is half; the NVL72
 * racks' figures are per 72 GPUs. FP8 is twice BF16 and FP4 twice FP8 on
 * B200/GB200 (FP4 is 1.5x that on Blackwell Ultra). */
static void nvidia_blackwell(void) {
  WeftDevice b = dev("b200"), g = dev("gb200"), b3 = dev("b300"), g3 = dev("gb300");
  CHECK_NEAR(b.peak_flops, 4.5e15 / 2, EXACT);      /* 4.5 PFLOPS BF16 sparse */
  CHECK_NEAR(b.peak_fp8_flops, 2 * b.peak_flops, EXACT);
  CHECK_NEAR(b.peak_fp4_flops, 2 * b.peak_fp8_flops, EXACT);
  CHECK_NEAR(b.hbm_bytes, 180 * GIB, EXACT);
  CHECK_NEAR(b.power_w, 1000, EXACT);
  CHECK_NEAR(g.peak_flops, 360e15 / 72 / 2, EXACT);  /* rack: 360 PFLOPS BF16 sparse */
  CHECK_NEAR(g.peak_fp8_flops, 720e15 / 72 / 2, EXACT);
  CHECK_NEAR(g.peak_fp4_flops, 1440e15 / 72 / 2, EXACT);
  CHECK_NEAR(g.hbm_bytes_per_s, 576e12 / 72, EXACT);  /* rack: 576 TB/s */
  CHECK_NEAR(g.power_w, 1200, EXACT);
  CHECK_NEAR(g3.peak_fp4_flops, 1080e15 / 72, EXACT); /* rack: 1.08 EFLOPS FP4 dense */
  CHECK_NEAR(g3.peak_fp8_flops, g.peak_fp8_flops, EXACT);
  CHECK_NEAR(g3.peak_fp4_flops, 1.5 * g.peak_fp4_flops, EXACT);  /* "1.5x dense FP4" */
  CHECK_NEAR(g3.power_w, 1400, EXACT);
  CHECK_NEAR(b3.peak_fp8_flops, b.peak_fp8_flops, EXACT);
  CHECK_NEAR(b3.hbm_bytes, 270 * GIB, EXACT);
  CHECK_NEAR(b3.power_w, 1100, EXACT);
  /* per-operator figures: 74 of 80 SMs per die on B200 (Chips and Cheese),
   * 160 on Blackwell Ultra (NVIDIA) */
  CHECK_EQ_INT(b.sms, 2 * 74);
  CHECK_EQ_INT(g.sms, b.sms);
  CHECK_EQ_INT(b3.sms + g3.sms, 2 * 160);
}

/* MI325X is the MI300X's die with HBM3e; MI355X's FP8 is its CUs x FP8
 * FLOP per clock x peak clock (AMD ISSCC: 8 XCDs x 32 CUs, 8192 FLOP/clk). */
static void amd_instinct(void) {
  WeftDevice m3 = dev("mi300x"), m = dev("mi325x"), x = dev("mi355x");
  CHECK_NEAR(m.peak_flops, m3.peak_flops, EXACT);
  CHECK_NEAR(m.peak_fp8_flops, m3.peak_fp8_flops, EXACT);
  CHECK_EQ_INT(m.sms, m3.sms);
  CHECK_NEAR(m.hbm_efficiency, m3.hbm_efficiency, EXACT);  /* assumed: same die */
  CHECK_NEAR(m.hbm_bytes, 256 * GIB, EXACT);
  CHECK_NEAR(m.hbm_bytes_per_s, 6e12, EXACT);
  CHECK_NEAR(m.power_w, 1000, EXACT);
  CHECK_NEAR(x.peak_fp8_flops, 8 * 32 * 8192.0 * 2.4e9, ROUND);
  CHECK_NEAR(x.peak_flops, x.peak_fp8_flops / 2, ROUND);
  CHECK_NEAR(x.peak_fp4_flops, x.peak_fp8_flops * 2, ROUND);
  CHECK_NEAR(x.hbm_bytes, 288 * GIB, EXACT);
  CHECK_NEAR(x.power_w, 1400, EXACT);
  CHECK_EQ_INT(x.sms, 8 * 32);
}

/* Google lists v5p's and v6e's FP8 at their BF16 rate, TPU7x's at twice
 * it; Google and AWS publish no TDP: power_w stays 0 (not given). */
static void tpu_trainium(void) {
  WeftDevice p = dev("tpu-v5p"), e6 = dev("tpu-v6e"), i = dev("tpu7x"), t = dev("trn2");
  CHECK_NEAR(p.peak_fp8_flops, p.peak_flops, EXACT);
  CHECK_NEAR(p.peak_flops, 459e12, EXACT);
  CHECK_NEAR(p.hbm_bytes, 95 * GIB, EXACT);
  CHECK_NEAR(e6.peak_flops, 2 * p.peak_flops, EXACT);  /* 918 = 2 x 459 */
  CHECK_NEAR(e6.hbm_bytes, 32 * GIB, EXACT);
  CHECK_NEAR(i.peak_fp8_flops, 2 * i.peak_flops, EXACT);  /* 4614 = 2 x 2307 */
  CHECK_NEAR(i.hbm_bytes, 192 * GIB, EXACT);
  CHECK_NEAR(t.peak_flops, 667e12, EXACT);
  CHECK_NEAR(t.peak_fp8_flops, 1299e12, EXACT);
  CHECK_NEAR(t.hbm_bytes, 96 * GIB, EXACT);
  CHECK_NEAR(p.power_w + e6.power_w + i.power_w + t.power_w, 0, 0);
  CHECK_NEAR(p.peak_fp4_flops + i.peak_fp4_flops + t.peak_fp4_flops, 0, 0);
}

/* The per-operator keys of the 2025-2026 GPUs, each through a figure worked
 * out by hand (docs/zoo.md, "Per-operator compute"):
 * - gemm_efficiency x peak is the measured MAMF (stas00/ml-engineering):
 *   B200 1745.0, GB200 1822.0, B300 1769.0, MI355X 1565.0 TFLOP/s (BF16),
 *   a burst, times 0.893, the H100's sustained rate over its burst (680.6 of
 *   762 TFLOP/s, data/measured/h100_sustained.csv); GB300 takes the GB200's
 *   fraction, MI325X the MI300X's (assumed);
 * - vector_tflops: SMs x 128 FP32 lanes x 2 x 1.98 GHz on B200; CUs x 256
 *   FLOP/clock x 2.4 GHz on MI355X;
 * - sms and tile through a GEMM's waves: Llama 3 8B's gate GEMM of one
 *   micro-batch, (2 x 8192 tokens x 4096)(4096 x 14336), in FP8: 64 x 112 =
 *   7168 tiles of 256 x 128; B200/GB200 ceil(7168 / 148) = 49 waves, B300
 *   ceil(7168 / 160) = 45, MI355X 7168 / 256 = 28, each wave sms x 2 x 256
 *   x 128 x 4096 FLOPs at fp8 x gemm_efficiency;
 * - hbm_efficiency through a residual add of 16384 x 4096 bf16 (two read,
 *   one written: 402653184 bytes) at hbm_gbps x hbm_efficiency;
 * - attention_efficiency through a fused attention kernel of 1e12 FLOPs at
 *   peak x 0.52 (assumed, the H100's) on B200; MI355X has none: its GEMMs'.
 * The Blackwell presets read the H100's tables (blackwell_on_h100_tables):
 * these keys price what the tables do not, checked here with them off. */
static void blackwell_mi355x_per_operator(void) {
  WeftDevice b = dev("b200"), g = dev("gb200"), b3 = dev("b300"), g3 = dev("gb300");
  b.measured[0] = '\0'; /* the datasheet path: no tables */
  WeftDevice x = dev("mi355x"), m = dev("mi325x"), m3 = dev("mi300x");
  const double mamf = 1e-3, sus = 680.6 / 762; /* 3 decimals: 0.0005 / 0.555 at most */
  CHECK_NEAR(b.gemm_efficiency * b.peak_flops / (1745.0e12 * sus), 1, mamf);
  CHECK_NEAR(g.gemm_efficiency * g.peak_flops / (1822.0e12 * sus), 1, mamf);
  CHECK_NEAR(b3.gemm_efficiency * b3.peak_flops / (1769.0e12 * sus), 1, mamf);
  CHECK_NEAR(x.gemm_efficiency * x.peak_flops / (1565.0e12 * sus), 1, mamf);
  CHECK_NEAR(m.gemm_efficiency, m3.gemm_efficiency, EXACT); /* assumed: the MI300X's */
  CHECK_NEAR(g3.gemm_efficiency, g.gemm_efficiency, EXACT);
  CHECK_NEAR(b.peak_vector_flops / (148 * 128 * 2 * 1.98e9), 1, 1e-3);
  CHECK_NEAR(x.peak_vector_flops / (256 * 256 * 2.4e9), 1, 1e-3);
  double k = 4096, wave = 2 * 256 * 128 * k;
  struct {
    const WeftDevice *d;
    double waves, sms, fp8_tflops, eff, ns;
  } gm[] = {
      {&b, 49, 148, 4500, 0.693, 624240.4768035915}, {&g, 49, 148, 5000, 0.651, 598062.6503569894},
      {&b3, 45, 160, 4500, 0.702, 611818.7031339032}, {&x, 28, 256, 5033.2, 0.555, 688811.9995331897},
  };
  for (size_t i = 0; i < sizeof gm / sizeof gm[0]; i++) {
    double hand = gm[i].waves * gm[i].sms * wave / (gm[i].fp8_tflops * 1e12 * gm[i].eff) * 1e9;
    CHECK_NEAR(hand / gm[i].ns, 1, 1e-12);
    double t = weft_gemm_ns(gm[i].d, gm[i].d->peak_fp8_flops, 1, 16384, 14336, k);
    CHECK_NEAR(t / hand, 1, 1e-9);
  }
  OcOp add = {"residual_add", WEFT_PHASE_FWD, OC_VECTOR, 0, 0, 0, 0, 16384 * 4096.0,
              3 * 16384 * 4096 * 2.0, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK_NEAR(weft_opcost_op_ns(&b, &add, 2) / 58102.912554112554, 1, 1e-9);  /* 7700 x 0.9 */
  CHECK_NEAR(weft_opcost_op_ns(&x, &add, 2) / 62137.83703703703, 1, 1e-9);   /* 8000 x 0.81 */
  OcOp fa = {"flash_attn", WEFT_PHASE_FWD, OC_FUSED, 0, 0, 0, 0, 1e12, 1e6, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK_NEAR(weft_opcost_op_ns(&b, &fa, 2) / (1e12 / (2250e12 * 0.52) * 1e9), 1, 1e-9);
  CHECK_NEAR(weft_opcost_op_ns(&x, &fa, 2) / (1e12 / (2516.6e12 * 0.555) * 1e9), 1, 1e-9);
  /* TPUs and Trainium: no SMs to wave over, charged per FLOP */
  CHECK_EQ_INT(dev("tpu-v5p").sms + dev("tpu-v6e").sms + dev("tpu7x").sms + dev("trn2").sms, 0);
}

/* The NVIDIA Blackwell presets read the H100's measured tables (docs/zoo.md,
 * "Blackwell on the H100's tables"): measured_clock is the MAMF table's
 * best-BF16-matmul ratio (B200 1745.0, GB200 1822.0, B300 1769.0 TFLOP/s
 * over the H100 SXM's 794.5; GB300 the GB200's), so a GEMM or fused
 * attention kernel takes the H100's time for its shape over it; a
 * memory-bound kernel the H100's time x 3350 / hbm_gbps; an FP4 GEMM the
 * FP8 one's time at the FP4 rate (half, on B200). */
static void blackwell_on_h100_tables(void) {
  WeftDevice h = dev("h100"), b = dev("b200"), g = dev("gb200"), b3 = dev("b300");
  WeftDevice g3 = dev("gb300");
  const double mamf = 1e-3; /* 3 decimals in devices.yml */
  CHECK_NEAR(b.measured_clock / (1745.0 / 794.5), 1, mamf);
  CHECK_NEAR(g.measured_clock / (1822.0 / 794.5), 1, mamf);
  CHECK_NEAR(b3.measured_clock / (1769.0 / 794.5), 1, mamf);
  CHECK_NEAR(g3.measured_clock, g.measured_clock, EXACT);
  const WeftDevice *bw[] = {&b, &g, &b3, &g3};
  for (int i = 0; i < 4; i++) {
    CHECK(strstr(bw[i]->measured, "h100") != NULL);
    CHECK_NEAR(bw[i]->measured_hbm_bytes_per_s, 3350e9, EXACT);
  }
  if (!h.measured[0] || !b.measured[0]) return; /* a zoo without data/measured */
  /* Llama 3 8B's gate/up GEMM at 8192 tokens, a table shape, BF16 and FP8 */
  OcOp gemm = {"fc1", WEFT_PHASE_FWD, OC_GEMM, 1, 8192, 28672, 4096, 2 * 8192.0 * 28672 * 4096,
               0, 0, 0, 0, 0, 0, 0, 0, 0};
  double hb = weft_opcost_op_ns(&h, &gemm, 2);
  CHECK_NEAR(weft_opcost_op_ns(&b, &gemm, 2) * b.measured_clock / hb, 1, 1e-9);
  CHECK_NEAR(weft_opcost_op_ns(&g, &gemm, 2) * g.measured_clock / hb, 1, 1e-9);
  gemm.fp8 = 1;
  double h8 = weft_opcost_op_ns(&h, &gemm, 2), b8 = weft_opcost_op_ns(&b, &gemm, 2);
  /* 0.4% apart: this shape has no fast-accumulation row, and the rule that
   * reads it from the neighbours fits the tables' waves over each device's
   * own SMs (148 here, 132 on the H100) */
  CHECK_NEAR(b8 * b.measured_clock / h8, 1, 1e-2);
  gemm.fp8 = 2; /* NVFP4: the FP8 rows at 9000 TFLOP/s instead of 4500 */
  CHECK_NEAR(weft_opcost_op_ns(&b, &gemm, 2) / b8, 0.5, 1e-12);
  OcOp add = {"residual_add", WEFT_PHASE_FWD, OC_VECTOR, 0, 0, 0, 0, 16384 * 4096.0,
              3 * 16384 * 4096 * 2.0, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK_NEAR(weft_opcost_op_ns(&b, &add, 2) / weft_opcost_op_ns(&h, &add, 2), 3350 / 7700.0,
             1e-9);
  CHECK_NEAR(weft_opcost_op_ns(&g, &add, 2) / weft_opcost_op_ns(&h, &add, 2), 3350 / 8000.0,
             1e-9);
}

/* A Grace host issues kernels at about half an x86 host's rate (docs/zoo.md,
 * "Kernel launches"): NVIDIA's PyTorch launch test (dgxc-benchmarking
 * v25.10.01, microbenchmarks/cpu_overhead: a loop of torch.matmul on 4..512
 * squares, no sync) takes 116.4 us summed over its eight sizes on GB200 and
 * 61.3 on H100 (B200, x86: 61.2), so the GB200 and GB300 presets issue one
 * eager kernel in the DGX H100's measured 8.0282 us x 116.4 / 61.3. A kernel
 * shorter than that waits for it; CUDA graphs skip it. */
static void grace_host_launch(void) {
  WeftDevice h = dev("h100"), b = dev("b200"), g = dev("gb200"), g3 = dev("gb300");
  CHECK_NEAR(g.launch_cpu_ns / (8028.2 * 116.4 / 61.3), 1, 1e-3); /* 4 digits in the file */
  CHECK_NEAR(g3.launch_cpu_ns, g.launch_cpu_ns, EXACT);
  CHECK_NEAR(h.launch_cpu_ns + b.launch_cpu_ns, 0, 0); /* x86 hosts: the default */
  CHECK_NEAR(weft_opcost_launch_on_ns(NULL, 100, 0), 8028, EXACT);
  CHECK_NEAR(weft_opcost_launch_on_ns(&h, 100, 0), 8028, EXACT);
  CHECK_NEAR(weft_opcost_launch_on_ns(&g, 100, 0), 15240, EXACT);
  CHECK_NEAR(weft_opcost_launch_on_ns(&g, 100, 1), 100 + 1173, EXACT); /* graph replay's gap */
  CHECK_NEAR(weft_opcost_launch_on_ns(&g, 14066, 0), 15240, EXACT);     /* just the CPU's */
  CHECK_NEAR(weft_opcost_launch_on_ns(&g, 20000, 0), 21173, EXACT);     /* the kernel's own */
  /* A Llama 3 8B layer at TP 8 on GB200: short kernels. Each one costs at
   * most 15240 - 8028 ns more than on an x86 host, some do; with CUDA
   * graphs nothing changes. */
  WeftModel m;
  WeftError e;
  WeftParallel p;
  CHECK_EQ_INT(weft_zoo_model(ZOO, "llama3-8b", &m, &e), WEFT_OK);
  weft_parallel_default(&p);
  p.tp = 8;
  p.sequence_parallel = 1;
  WeftDevice x86 = g;
  x86.launch_cpu_ns = 0;
  for (int graphs = 0; graphs < 2; graphs++) {
    p.cuda_graphs = graphs;
    OcLayer l;
    weft_opcost_layer(&m, &p, &l);
    OcOp ops[OC_MAX_OPS];
    double more = 0;
    for (int blk = OC_ATTN; blk <= OC_MLP; blk++) {
      int n = weft_opcost_ops(&l, (OcBlock)blk, ops, OC_MAX_OPS), kernels = 0;
      for (int i = 0; i < n; i++) kernels += ops[i].count > 0 ? ops[i].count : 1;
      double a[WEFT_NPHASES], c[WEFT_NPHASES];
      weft_opcost_block(&g, &l, (OcBlock)blk, a);
      weft_opcost_block(&x86, &l, (OcBlock)blk, c);
      for (int ph = 0; ph < WEFT_NPHASES; ph++) {
        CHECK(a[ph] >= c[ph]);
        CHECK(a[ph] - c[ph] <= kernels * (15240.0 - 8028.0) * (1 + 1e-12));
        more += a[ph] - c[ph];
      }
    }
    if (graphs) CHECK_NEAR(more, 0, 0);
    else CHECK(more > 15240 - 8028.0);
  }
}

/* A CUDA graph scope (Megatron-Core's cuda_graph_scope, e.g. the
 * Megatron-Bridge LoRA presets' [mlp]): the blocks it names take the
 * graphed launches, the others (and the loss, outside any scope) the
 * eager ones, each equal to the block's time with graphs all on or all
 * off; on the Grace host, where launches cost the most. The names' rule
 * and the checks: a scope needs graphs, torch layers have none. */
static void graph_scope(void) {
  WeftModel m;
  WeftError e;
  WeftParallel p;
  WeftDevice g;
  CHECK_EQ_INT(weft_zoo_device(ZOO, "gb200", &g, &e), WEFT_OK);
  CHECK_EQ_INT(weft_zoo_model(ZOO, "llama3-8b", &m, &e), WEFT_OK);
  weft_parallel_default(&p);
  p.tp = 8;
  p.sequence_parallel = 1;
  double ns[3][OC_NBLOCKS][WEFT_NPHASES]; /* eager, all graphed, scope mlp */
  for (int k = 0; k < 3; k++) {
    p.cuda_graphs = k > 0;
    p.cuda_graph_scope = k == 2 ? WEFT_GRAPH_MLP : 0;
    OcLayer l;
    weft_opcost_layer(&m, &p, &l);
    for (int blk = OC_ATTN; blk <= OC_LOGITS; blk++) weft_opcost_block(&g, &l, (OcBlock)blk, ns[k][blk]);
  }
  for (int ph = 0; ph < WEFT_NPHASES; ph++) {
    CHECK_NEAR(ns[2][OC_ATTN][ph], ns[0][OC_ATTN][ph], 0);
    CHECK_NEAR(ns[2][OC_MLP][ph], ns[1][OC_MLP][ph], 0);
    CHECK_NEAR(ns[2][OC_LOGITS][ph], ns[0][OC_LOGITS][ph], 0);
  }
  CHECK(ns[0][OC_MLP][WEFT_PHASE_FWD] > ns[1][OC_MLP][WEFT_PHASE_FWD]);
  int mask = 0;
  CHECK_EQ_INT(weft_cuda_graph_scope_parse("attn, moe", &mask, &e), WEFT_OK);
  CHECK_EQ_INT(mask, WEFT_GRAPH_ATTN | WEFT_GRAPH_MOE);
  CHECK_EQ_INT(weft_cuda_graph_scope_parse("mlp,full", &mask, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "cuda_graph_scope") && strstr(e.msg, "'full'"));
  CHECK_EQ_INT(weft_cuda_graph_scope_parse(" ", &mask, &e), WEFT_EINPUT);
  CHECK_EQ_INT(mask, WEFT_GRAPH_ATTN | WEFT_GRAPH_MOE); /* unchanged */
}

/* ------------------------------------------------------------------ clusters */

static WeftCluster cluster(const char *name) {
  WeftCluster c;
  WeftError e;
  memset(&c, 0, sizeof c);
  CHECK_EQ_INT(weft_zoo_cluster(ZOO, name, &c, &e), WEFT_OK);
  return c;
}

static WeftNetwork network(const WeftCluster *c, int npus) {
  WeftNetwork net;
  WeftError e;
  memset(&net, 0, sizeof net);
  CHECK_EQ_INT(weft_cluster_network(c, npus, &net, &e), WEFT_OK);
  return net;
}

/* GB200 NVL72: 16,128 GPUs are 224 racks of 72 ([72, 224]). An all-reduce
 * of S bytes over all of them puts 2 S 71/72 per GPU on NVLink, then
 * 2 (S/72) 223/224 on InfiniBand (docs/model.md); 72 and 224 are not
 * powers of two, so both tiers run rings: 2 x 71 and 2 x 223 steps. */
static void nvl72_allreduce(void) {
  WeftCluster c = cluster("gb200-nvl72"), c3 = cluster("gb300-nvl72");
  WeftNetwork net = network(&c, 16128);
  CHECK_EQ_INT(net.ndims, 2);
  CHECK_EQ_INT(net.npus[0], 72);
  CHECK_EQ_INT(net.npus[1], 224);
  CHECK_EQ_INT(net.topology[0], WEFT_SWITCH);
  CHECK_NEAR(net.design_gbps[0], 1800.0 / 2, 0);  /* NVLink 5: 1.8 TB/s both ways */
  CHECK_NEAR(net.design_gbps[1], 400.0 / 8, 0);   /* one 400 Gb/s NIC per GPU */
  CHECK_NEAR(c.tier[0].efficiency, 811.0 / 900.0, ROUND);
  double S = 1e9, m[2];
  int group[2] = {72, 224}, steps[2];
  weft_collective_traffic(WEFT_COLL_ALLREDUCE, S, group, 2, m);
  CHECK_NEAR(m[0], 2 * S * 71 / 72, 1e-12);
  CHECK_NEAR(m[1], 2 * (S / 72) * 223 / 224, 1e-12);
  CHECK_EQ_INT(weft_collective_steps(WEFT_COLL_ALLREDUCE, group, &net, steps), 2 * 71 + 2 * 223);
  CHECK_NEAR(weft_collective_latency_ns(WEFT_COLL_ALLREDUCE, group, &net),
             2 * 71 * 3400.0 + 2 * 223 * 14000.0, 1e-12);
  /* 16,416 = 228 racks; a part of a rack is one dim; 16,384 is not whole racks */
  net = network(&c, 16416);
  CHECK_EQ_INT(net.npus[1], 228);
  net = network(&c, 36);
  CHECK_EQ_INT(net.ndims, 1);
  WeftError e;
  CHECK_EQ_INT(weft_cluster_network(&c, 16384, &net, &e), WEFT_EINPUT);
  /* GB300: the same NVLink domain, one 800 Gb/s ConnectX-8 per GPU */
  CHECK_EQ_INT(c3.tier[0].npus, 72);
  CHECK_NEAR(c3.tier[0].bw_gbps, c.tier[0].bw_gbps, 0);
  CHECK_NEAR(c3.tier[1].bw_gbps, 800.0 / 8, 0);
  CHECK(strcmp(c3.device, "gb300") == 0 && strcmp(c.device, "gb200") == 0);
  /* The InfiniBand tier is rail-optimized (NVIDIA's NVL72 reference
   * architecture): 16 racks, a power of two, run NCCL's ring per rail, 2 x
   * 15 = 30 steps of 14 us, where a fat-tree's halving-doubling takes
   * 2 log2 16 = 8; the rails are the rack's 72 GPUs. */
  int g16[2] = {72, 16};
  WeftNetwork n16 = network(&c, 1152), n16x = network(&c3, 1152);
  CHECK_EQ_INT(n16.fabric[1], WEFT_SHAPE_RAIL_OPTIMIZED);
  CHECK_EQ_INT(n16x.fabric[1], WEFT_SHAPE_RAIL_OPTIMIZED);
  CHECK_EQ_INT(n16.fabric[0], WEFT_SHAPE_TREE);
  CHECK_NEAR(weft_network_rails(&n16, 1), 72, 0);
  weft_collective_steps(WEFT_COLL_ALLREDUCE, g16, &n16, steps);
  CHECK_EQ_INT(steps[1], 2 * 15);
  weft_collective_steps(WEFT_COLL_ALLREDUCE, g16, &n16x, steps);
  CHECK_EQ_INT(steps[1], 2 * 15);
  n16.fabric[1] = WEFT_SHAPE_TREE;
  weft_collective_steps(WEFT_COLL_ALLREDUCE, g16, &n16, steps);
  CHECK_EQ_INT(steps[1], 2 * 4);
}

/* One all-reduce of S over [72, 2] GPUs of a GB200 NVL72 at the preset's
 * rates, solved by the library: the time is the latency (2 x 71 NVLink
 * steps, 2 x 1 network steps) plus the slower tier's bytes over e_d B_d. */
static void nvl72_time_by_hand(void) {
  WeftCluster c = cluster("gb200-nvl72");
  WeftNetwork net = network(&c, 144);
  double S = 1e9;
  double t = allreduce_time_ns(&net, 72, 2, S, "B1 = 900", "B2 = 50");
  double nvlink = 2.0 * S * 71.0 / 72.0 / (811.0 / 900.0 * 900.0);  /* ns: GB/s = B/ns */
  double ib = 2.0 * (S / 72.0) * 0.5 / (0.95 * 50.0);
  double lat = 2 * 71 * 3400.0 + 2 * 1 * 14000.0;
  CHECK_NEAR(t, lat + (nvlink > ib ? nvlink : ib), ROUND);
}

/* GB300 NVL72 on [72, 2]: the same NVLink tier as GB200 (2 S 71/72 per GPU
 * at 811 GB/s, 2 x 71 ring steps of 3.4 us) and an 800 Gb/s ConnectX-8 per
 * GPU (2 (S/72) 1/2 per GPU at 0.95 x 100 GB/s, 2 x 1 steps of 14 us): the
 * NVLink tier is the slower one, as on GB200 (its 0.95 x 50 leaves it so). */
static void gb300_time_by_hand(void) {
  WeftCluster c = cluster("gb300-nvl72");
  WeftNetwork net = network(&c, 144);
  double S = 1e9;
  double t = allreduce_time_ns(&net, 72, 2, S, "B1 = 900", "B2 = 100");
  double nvlink = 2.0 * S * 71.0 / 72.0 / (811.0 / 900.0 * 900.0);
  double ib = 2.0 * (S / 72.0) * 0.5 / (0.95 * 100.0);
  CHECK(nvlink > ib);
  CHECK_NEAR(t, 2 * 71 * 3400.0 + 2 * 1 * 14000.0 + nvlink, ROUND);
}

/* DGX B200: 8 GPUs on NVLink 5 (halving-doubling: 2 log2 8 = 6 steps),
 * 8 x 400 Gb/s per node on rails (a ring per rail: 2 (n - 1) steps); MI355X: the 8-GPU xGMI mesh runs direct (1 step
 * per half) at 7 links x 153.6/2 GB/s each way. */
static void node_clusters(void) {
  WeftCluster b = cluster("dgx-b200"), x = cluster("mi355x-8x");
  WeftNetwork net = network(&b, 1024);
  int g[2] = {8, 128}, steps[2];
  CHECK_EQ_INT(net.npus[0], 8);
  CHECK_EQ_INT(net.npus[1], 128);
  weft_collective_steps(WEFT_COLL_ALLREDUCE, g, &net, steps);
  CHECK_EQ_INT(steps[0], 6);
  CHECK_EQ_INT(steps[1], 254);  /* rail-optimized: NCCL's ring per rail, 2 x 127 */
  CHECK_NEAR(b.tier[0].bw_gbps, 1800.0 / 2, 0);
  CHECK_NEAR(b.tier[1].bw_gbps, 400.0 / 8, 0);
  net = network(&x, 64);
  CHECK_EQ_INT(net.topology[0], WEFT_FULLY_CONNECTED);
  g[1] = 8;
  weft_collective_steps(WEFT_COLL_ALLREDUCE, g, &net, steps);
  CHECK_EQ_INT(steps[0], 2);
  CHECK_NEAR(x.tier[0].bw_gbps, 7 * 153.6 / 2, ROUND);
  CHECK_NEAR(x.tier[0].efficiency, 48.0 / 64.0, EXACT);  /* AMD: usable per xGMI link */
  CHECK_NEAR(x.tier[1].bw_gbps, 400.0 / 8, 0);
}

/* A TPU pod: the 4x4x4 cube as three rings of 4 (an all-reduce takes
 * 2(n-1) = 6 steps on each), 1.2 TB/s ICI per chip both ways over 6 links
 * (100 GB/s per link each way, 2 links per ring: 200), the cubes behind the
 * optical switches (96 links x 100 GB/s / 64 chips = 150), DCN outside. */
static void tpu_pods(void) {
  WeftCluster p = cluster("tpu-v5p-pod"), i = cluster("tpu7x-pod");
  WeftNetwork net = network(&p, 8960);
  CHECK_EQ_INT(net.ndims, 4);
  for (int d = 0; d < 3; d++) {
    CHECK_EQ_INT(net.topology[d], WEFT_RING);
    CHECK_EQ_INT(net.npus[d], 4);
    CHECK_NEAR(net.design_gbps[d], 1200.0 / 2 / 6 * 2, 0);
  }
  CHECK_EQ_INT(net.npus[3], 8960 / 64);
  CHECK_NEAR(net.design_gbps[3], 96 * 100.0 / 64, 0);
  int g[4] = {4, 4, 4, 140}, steps[4];
  double S = 1e9, m[4];
  weft_collective_steps(WEFT_COLL_ALLREDUCE, g, &net, steps);
  for (int d = 0; d < 3; d++) CHECK_EQ_INT(steps[d], 2 * (4 - 1));
  CHECK_EQ_INT(steps[3], 2 * 139);  /* 140 cubes: not a power of two, a ring */
  weft_collective_traffic(WEFT_COLL_ALLREDUCE, S, g, 4, m);
  CHECK_NEAR(m[0], 2 * S * 3 / 4, 1e-12);
  CHECK_NEAR(m[1], 2 * (S / 4) * 3 / 4, 1e-12);
  CHECK_NEAR(m[2], 2 * (S / 16) * 3 / 4, 1e-12);
  CHECK_NEAR(m[3], 2 * (S / 64) * 139 / 140, 1e-12);
  net = network(&p, 2 * 8960);  /* two pods: DCN joins them */
  CHECK_EQ_INT(net.ndims, 5);
  CHECK_EQ_INT(net.npus[4], 2);
  CHECK_NEAR(net.design_gbps[4], 50.0 / 8, 0);  /* 50 Gb/s DCN per chip */
  net = network(&i, 9216);
  CHECK_EQ_INT(net.npus[3], 9216 / 64);
  CHECK_NEAR(net.design_gbps[0], 1200.0 / 2 / 6 * 2, 0);
  /* TPU7x's cube rings are torus dims (the OCS tier a plain Switch): an
   * all-reduce over the 144 cubes of a superpod takes a ring, 2 x 143
   * steps, 2 (S/64) 143/144 bytes per chip; a reduce-scatter over one ring
   * of 4 is 3 steps and S 3/4 per chip. */
  for (int d = 0; d < 3; d++) CHECK_EQ_INT(net.fabric[d], WEFT_SHAPE_TORUS);
  CHECK_EQ_INT(net.fabric[3], WEFT_SHAPE_TREE);
  int gi[4] = {4, 4, 4, 144};
  weft_collective_steps(WEFT_COLL_ALLREDUCE, gi, &net, steps);
  CHECK_EQ_INT(steps[3], 2 * 143);
  weft_collective_traffic(WEFT_COLL_ALLREDUCE, S, gi, 4, m);
  CHECK_NEAR(m[3], 2 * (S / 64) * 143 / 144, 1e-12);
  int g1[4] = {4, 1, 1, 1};
  weft_collective_steps(WEFT_COLL_REDUCESCATTER, g1, &net, steps);
  CHECK_EQ_INT(steps[0], 3);
  weft_collective_traffic(WEFT_COLL_REDUCESCATTER, S, g1, 4, m);
  CHECK_NEAR(m[0], S * 3 / 4, 1e-12);
}

/* Trn2 UltraServer: a server's 16 chips a 4x4 torus (1024 GB/s per chip
 * both ways over 4 links), 4 servers a ring of 4 in Z (256 GB/s per chip
 * both ways), EFA 12.8 Tb/s per 64 chips. Llama 3's cluster: 8-GPU nodes,
 * pods of 3,072 GPUs at 400 Gb/s, 8 pods over a 1:7 oversubscribed layer. */
static void trn2_llama3(void) {
  WeftCluster t = cluster("trn2-ultraserver"), l = cluster("llama3-h100-roce");
  WeftNetwork net = network(&t, 64);
  CHECK_EQ_INT(net.ndims, 3);
  CHECK_NEAR(net.design_gbps[0], 1024.0 / 2 / 4 * 2, 0);
  CHECK_NEAR(net.design_gbps[2], 256.0 / 2, 0);
  net = network(&t, 128);
  CHECK_EQ_INT(net.ndims, 4);
  CHECK_NEAR(net.design_gbps[3], 12.8e12 / 64 / 8 / 1e9, 0);
  int g[4] = {4, 4, 4, 1}, steps[4];  /* one UltraServer of the two */
  CHECK_EQ_INT(weft_collective_steps(WEFT_COLL_ALLREDUCE, g, &net, steps), 3 * 2 * 3);
  net = network(&l, 24576);
  CHECK_EQ_INT(net.ndims, 3);
  CHECK_EQ_INT(net.npus[0] * net.npus[1], 3072);
  CHECK_EQ_INT(net.npus[2], 8);
  CHECK_NEAR(net.design_gbps[1], 400.0 / 8, 0);
  CHECK_NEAR(net.design_gbps[2], 400.0 / 8 / 7, ROUND);
  double S = 1e9, m[3];
  int gl[3] = {8, 384, 8};
  weft_collective_traffic(WEFT_COLL_ALLREDUCE, S, gl, 3, m);
  CHECK_NEAR(m[1], 2 * (S / 8) * 383 / 384, 1e-12);
  CHECK_NEAR(m[2], 2 * (S / 3072) * 7 / 8, 1e-12);
}

/* ------------------------------------------------------------------ bad values */

static char scratch[64];

static const char *scratch_devices(const char *text) {
  static char path[WEFT_PATH_LEN];
  snprintf(scratch, sizeof scratch, "/tmp/weft-hw-XXXXXX");
  if (!mkdtemp(scratch)) {
    fprintf(stderr, "  cannot create a temporary directory\n");
    exit(2);
  }
  snprintf(path, sizeof path, "%s/devices.yml", scratch);
  FILE *f = fopen(path, "wb");
  if (!f) exit(2);
  fputs(text, f);
  fclose(f);
  return scratch;
}

static void scratch_done(void) {
  char path[WEFT_PATH_LEN];
  snprintf(path, sizeof path, "%s/devices.yml", scratch);
  remove(path);
  rmdir(scratch);
}

static void bad_values(void) {
  static const struct {
    const char *text, *field, *msg;
    int line;
  } bad[] = {
      {"x:\n  peak_tflops: 1\n  hbm_gib: 1\n  hbm_gbps: 1\n  power_w: -700\n", "power_w",
       "power_w must be > 0", 5},
      {"x:\n  peak_tflops: 1\n  hbm_gib: 1\n  fp4_tflops: 0\n  hbm_gbps: 1\n", "fp4_tflops",
       "fp4_tflops must be > 0", 4},
      {"x:\n  peak_tflops: 1\n  hbm_gib: 1\n  hbm_gbps: 1\n  power_w: lots\n", "power_w",
       "power_w", 5},
      {"x:\n  peak_tflops: 1\n  hbm_gib: 1\n  hbm_gbps: 1\n  launch_cpu_us: 0\n", "launch_cpu_us",
       "launch_cpu_us must be > 0", 5},
      {"x:\n  peak_tflops: 1\n  hbm_gib: 1\n  hbm_gbps: 1\n  launch_cpu_us: 2e6\n",
       "launch_cpu_us", "launch_cpu_us", 5},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *dir = scratch_devices(bad[i].text);
    WeftDevice d;
    WeftError e;
    int n;
    CHECK_EQ_INT(weft_zoo_devices(dir, NULL, 0, &n, &e), WEFT_EINPUT);
    CHECK_EQ_INT(e.line, bad[i].line);
    CHECK(strcmp(e.field, bad[i].field) == 0);
    if (!strstr(e.msg, bad[i].msg)) fprintf(stderr, "  case %zu: %s\n", i, e.msg);
    CHECK(strstr(e.msg, bad[i].msg) != NULL);
    CHECK_EQ_INT(weft_zoo_device(dir, "x", &d, &e), WEFT_EINPUT);
    scratch_done();
  }
  const char *dir = scratch_devices("x:\n  peak_tflops: 1\n  hbm_gib: 1\n  hbm_gbps: 1\n"
                                    "  fp4_tflops: 4\n  power_w: 700\n  launch_cpu_us: 12.5\n");
  WeftDevice d;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device(dir, "x", &d, &e), WEFT_OK);
  CHECK_NEAR(d.peak_fp4_flops, 4e12, EXACT);
  CHECK_NEAR(d.power_w, 700, EXACT);
  CHECK_NEAR(d.launch_cpu_ns, 12500, EXACT);
  scratch_done();
}

const TestCase suite_hw[] = {
    {"hw/nvidia_blackwell", nvidia_blackwell},
    {"hw/amd_instinct", amd_instinct},
    {"hw/tpu_trainium", tpu_trainium},
    {"hw/per_operator_by_hand", blackwell_mi355x_per_operator},
    {"hw/blackwell_on_h100_tables", blackwell_on_h100_tables},
    {"hw/grace_host_launch", grace_host_launch},
    {"hw/graph_scope", graph_scope},
    {"hw/nvl72_allreduce", nvl72_allreduce},
    {"hw/nvl72_time_by_hand", nvl72_time_by_hand},
    {"hw/gb300_time_by_hand", gb300_time_by_hand},
    {"hw/node_clusters", node_clusters},
    {"hw/tpu_pods", tpu_pods},
    {"hw/trn2_llama3", trn2_llama3},
    {"hw/bad_values", bad_values},
    {0, 0},
};
