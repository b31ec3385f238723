/* test_measured.c — a device's measured tables (src/model/measured.c): the
 * fixture tables tests/fixtures/measured/fix_*.csv (written by gen.py: GEMM
 * times from the shape model at known parameters, a few rows moved off it
 * by known factors; round numbers elsewhere), every value checked against
 * a hand computation; bad files name the file, line and field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/gemm_eff.h"
#include "model/measured.h"
#include "model/measured_tab.h"
#include "model/opcost.h"
#include "../test.h"

#define ZOO "tests/fixtures/mzoo"
#define TIME_TOL 1e-8 /* the CSV gives µs to 6 decimals: 1e-3 ns */

static const WeftMeasured *fixture(WeftDevice *d) {
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device(ZOO, "fix", d, &e), WEFT_OK);
  const WeftMeasured *t = weft_measured_of(d);
  CHECK(t != NULL);
  return t;
}

/* gen.py's GEMM time: the shape model on the fixture device (132 SMs,
 * 256 x 128 tiles) at (eff, k0, t0_ns), peak FLOP/s. */
static double gen_ns(double eff, double k0, double t0, double peak, double m, double n, double k) {
  WeftDevice d;
  memset(&d, 0, sizeof d);
  d.sms = 132;
  d.tile_m = 256;
  d.tile_n = 128;
  d.gemm_efficiency = d.gemm_eff_max = eff;
  d.gemm_k0 = k0;
  d.gemm_t0_ns = t0;
  return weft_gemm_ns(&d, peak, 1, m, n, k);
}
#define BF16_NS(m, n, k) gen_ns(0.8, 100, 4000, 989e12, m, n, k)
#define FP8_NS(m, n, k) gen_ns(0.6, 150, 6000, 1979e12, m, n, k)

/* The fitted model of type dt at one shape. */
static double fitted(const WeftMeasured *t, WeftMeasuredDtype dt, double m, double n, double k) {
  double p[3];
  CHECK(weft_measured_gemm_fit(t, dt, p));
  return gen_ns(p[0], p[1], p[2], dt == WM_BF16 ? 989e12 : 1979e12, m, n, k);
}

/* BF16 rows are the model's own times: the fit gives its parameters back,
 * and every shape, measured or not, takes the model's time. */
static void fit_recovers(void) {
  WeftDevice d;
  const WeftMeasured *t = fixture(&d);
  double p[3];
  CHECK(weft_measured_gemm_fit(t, WM_BF16, p));
  CHECK_NEAR(p[0], 0.8, 1e-6);
  CHECK_NEAR(p[1], 100, 1e-4);
  CHECK_NEAR(p[2], 4000, 1e-4);
  CHECK(weft_measured_gemm_fit(t, WM_FP8_FAST, p));
  CHECK_NEAR(p[0], 0.7, 1e-6);
  CHECK_NEAR(weft_measured_gemm_ns(t, WM_BF16, 1, 4096, 6144, 4096), BF16_NS(4096, 6144, 4096),
             TIME_TOL);
  CHECK_NEAR(weft_measured_gemm_ns(t, WM_BF16, 1, 3000, 3000, 3000), BF16_NS(3000, 3000, 3000),
             1e-6);
  /* a batch of GEMMs: the fitted model over the batch's tiles */
  CHECK_NEAR(weft_measured_gemm_ns(t, WM_BF16, 4, 256, 256, 1024),
             gen_ns(0.8, 100, 4000, 989e12, 1024, 256, 1024), 1e-6);
}

/* gen.py's FP8 shapes and the factor each row's time is off the model by. */
static const double FP8_ROWS[][4] = {
    {256, 256, 256, 1},      {1024, 1024, 1024, 1},  {4096, 4096, 4096, 1},
    {8192, 8192, 8192, 1},   {1024, 6144, 4096, 1},  {4096, 6144, 4096, 1},
    {16384, 6144, 4096, 1},  {4096, 4096, 6144, 1},  {6144, 4096, 4096, 1},
    {1024, 8192, 8192, 1.1}, {16384, 8192, 8192, 0.95}, {2048, 2048, 2048, 1}};
#define NFP8 (sizeof FP8_ROWS / sizeof FP8_ROWS[0])

/* By brute force: the fitted time at q times the 1/distance-weighted mean
 * of the measured/fitted ratios of the 4 rows nearest in (ln m, ln n, ln k). */
static double idw_ns(const WeftMeasured *t, double m, double n, double k) {
  double dist[NFP8], ratio[NFP8];
  int used[NFP8] = {0};
  for (size_t i = 0; i < NFP8; i++) {
    const double *r = FP8_ROWS[i];
    dist[i] = sqrt(pow(log(r[0] / m), 2) + pow(log(r[1] / n), 2) + pow(log(r[2] / k), 2));
    ratio[i] = r[3] * FP8_NS(r[0], r[1], r[2]) / fitted(t, WM_FP8, r[0], r[1], r[2]);
  }
  double sw = 0, sr = 0;
  for (int pick = 0; pick < 4; pick++) {
    size_t best = NFP8;
    for (size_t i = 0; i < NFP8; i++)
      if (!used[i] && (best == NFP8 || dist[i] < dist[best])) best = i;
    used[best] = 1;
    sw += 1 / dist[best];
    sr += ratio[best] / dist[best];
  }
  return fitted(t, WM_FP8, m, n, k) * sr / sw;
}

/* FP8 rows: an exact shape takes its time (the mean of a shape measured
 * twice), others the fitted model times the neighbours' ratio. */
static void exact_and_interpolated(void) {
  WeftDevice d;
  const WeftMeasured *t = fixture(&d);
  CHECK_NEAR(weft_measured_gemm_ns(t, WM_FP8, 1, 1024, 8192, 8192), 1.10 * FP8_NS(1024, 8192, 8192),
             TIME_TOL);
  CHECK_NEAR(weft_measured_gemm_ns(t, WM_FP8, 1, 2048, 2048, 2048), FP8_NS(2048, 2048, 2048),
             TIME_TOL);
  static const double q[][3] = {{4096, 8192, 8192}, {12288, 8192, 8192}, {32768, 8192, 8192},
                                {4096, 5120, 4096}, {4096, 6144, 8192},  {100, 50000, 3}};
  for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
    double ns = weft_measured_gemm_ns(t, WM_FP8, 1, q[i][0], q[i][1], q[i][2]);
    CHECK_NEAR(ns, idw_ns(t, q[i][0], q[i][1], q[i][2]), 1e-8);
    CHECK(fabs(ns / fitted(t, WM_FP8, q[i][0], q[i][1], q[i][2]) - 1) > 1e-4); /* moved */
  }
  /* a type with no rows: none */
  WeftDevice off;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device(ZOO, "off", &off, &e), WEFT_OK);
  CHECK(weft_measured_of(&off) == NULL);
  CHECK(weft_measured_gemm_ns(NULL, WM_BF16, 1, 1, 1, 1) < 0);
}

/* Attention: a backend's rate interpolated in ln(seq) at the nearest head
 * width; Transformer Engine's is cuDNN's (gen.py: 0.9 of flash's). */
static void attention(void) {
  WeftDevice d;
  const WeftMeasured *t = fixture(&d);
  double fl = 4.0 * 64 * 4096.0 * 4096 * 128 * 0.5; /* b x heads 4 x 16, causal */
  CHECK_NEAR(weft_measured_attention_ns(t, WM_ATTN_FLASH, 0, 1, 4096, 128, 64, fl), fl / 550e12 * 1e9, 1e-9);
  /* backward: 0.8 of the forward rate */
  CHECK_NEAR(weft_measured_attention_ns(t, WM_ATTN_FLASH, 1, 1, 4096, 128, 64, 2.5 * fl),
             2.5 * fl / (0.8 * 550e12) * 1e9, 1e-9);
  /* seq 2048: halfway in ln s between 1024 (350) and 4096 (550); head width 96 nearer 128 */
  CHECK_NEAR(weft_measured_attention_ns(t, WM_ATTN_FLASH, 0, 1, 2048, 96, 64, 1e12), 1e12 / 450e12 * 1e9, 1e-9);
  CHECK_NEAR(weft_measured_attention_ns(t, WM_ATTN_TE, 0, 1, 4096, 128, 64, fl),
             fl / (0.9 * 550e12) * 1e9, 1e-9);
  CHECK_NEAR(weft_measured_attention_ns(t, WM_ATTN_CUDNN, 0, 1, 4096, 128, 64, fl),
             fl / (0.9 * 550e12) * 1e9, 1e-9);
  /* no mask, width 64, beyond the longest seq: 4096's rate (500) */
  CHECK_NEAR(weft_measured_attention_ns(t, WM_ATTN_FLASH, 0, 0, 8192, 64, 8, 1e12), 1e12 / 500e12 * 1e9, 1e-9);
}

/* Memory-bound kernels: log-log in elements between rows, proportional
 * outside; a norm's backward is its fwd_bwd row less its forward row. */
static void memory(void) {
  WeftDevice d;
  const WeftMeasured *t = fixture(&d);
  CHECK_NEAR(weft_measured_mem_ns(t, WM_RMSNORM_FWD, 1 << 20), 5000, 1e-12);
  CHECK_NEAR(weft_measured_mem_ns(t, WM_RMSNORM_FWD, 1 << 22), sqrt(5.0 * 32) * 1e3, 1e-12);
  CHECK_NEAR(weft_measured_mem_ns(t, WM_RMSNORM_BWD, 1 << 20), 10000, 1e-12);
  CHECK_NEAR(weft_measured_mem_ns(t, WM_RMSNORM_BWD, 1 << 24), 64000, 1e-12);
  CHECK_NEAR(weft_measured_mem_ns(t, WM_COPY, 1 << 19), 2000, 1e-12);
  CHECK_NEAR(weft_measured_mem_ns(t, WM_COPY, 1 << 25), 50000, 1e-12);
  CHECK(weft_measured_mem_ns(t, WM_GELU, 1 << 20) < 0);
  /* copy: 4 bytes an element; 2^22 bytes in 4 µs */
  CHECK_NEAR(weft_measured_mem_gbps(t, WM_COPY, 4194304), 4194304 / 4000.0, 1e-12);
  CHECK_NEAR(weft_measured_launch_us(t, 0), 4.5, 1e-12);
  CHECK_NEAR(weft_measured_launch_us(t, 1), 1.2, 1e-12);
}

/* The compute model charges the measured times: a GEMM of a measured
 * shape, flash attention, a norm; a device with `measured: none` does not. */
static void opcost(void) {
  WeftDevice d, off;
  WeftError e;
  fixture(&d);
  CHECK_EQ_INT(weft_zoo_device(ZOO, "off", &off, &e), WEFT_OK);
  OcOp g = {"g", WEFT_PHASE_FWD, OC_GEMM, 1, 4096, 6144, 4096, 2 * 4096.0 * 6144 * 4096, 0, 0, 0,
            0, 0, 0, 0, 0, 0};
  CHECK_NEAR(weft_opcost_op_ns(&d, &g, 2), BF16_NS(4096, 6144, 4096), TIME_TOL);
  CHECK(fabs(weft_opcost_op_ns(&off, &g, 2) - BF16_NS(4096, 6144, 4096)) > 1e3);
  /* an FP8 forward GEMM: the fast-accumulation rows (gen.py: eff 0.7) */
  g.fp8 = 1;
  CHECK_NEAR(weft_opcost_op_ns(&d, &g, 2), gen_ns(0.7, 150, 6000, 1979e12, 4096, 6144, 4096),
             TIME_TOL);
  g.phase = WEFT_PHASE_IG;
  CHECK_NEAR(weft_opcost_op_ns(&d, &g, 2), FP8_NS(4096, 6144, 4096), TIME_TOL);
  /* FP32 activations: no measured GEMM applies (the datasheet model) */
  g.fp8 = 0;
  CHECK_NEAR(weft_opcost_op_ns(&d, &g, 4), weft_opcost_op_ns(&off, &g, 4), 1e-12);
  /* a Llama-like layer's operators: flash attention and the norm at their rows */
  WeftModel m;
  WeftParallel par;
  memset(&m, 0, sizeof m);
  memset(&par, 0, sizeof par);
  m.hidden = 2048;
  m.heads = 16;
  m.kv_heads = 16;
  m.seq_len = 4096;
  m.ffn_hidden = 8192;
  m.ffn_matrices = 3;
  m.vocab = 32000;
  par.tp = 1;
  par.micro_batch = 4;
  par.attention = WEFT_ATTENTION_FLASH;
  par.act_bytes = 2;
  OcLayer l;
  OcOp ops[OC_MAX_OPS];
  weft_opcost_layer(&m, &par, &l);
  int n = weft_opcost_ops(&l, OC_ATTN, ops, OC_MAX_OPS);
  int seen = 0;
  for (int i = 0; i < n; i++) {
    if (!strcmp(ops[i].name, "flash_attn") && ops[i].phase == WEFT_PHASE_FWD) {
      double fl = 4.0 * 4 * 16 * 4096.0 * 4096 * 128 * 0.5; /* script's count, cuDNN's rate */
      CHECK_NEAR(weft_opcost_op_ns(&d, &ops[i], 2), fl / (0.9 * 550e12) * 1e9, 1e-9);
      seen++;
    }
    if (!strcmp(ops[i].name, "attn_norm") && ops[i].phase == WEFT_PHASE_FWD) {
      /* 4 x 4096 x 2048 = 2^25 elements: rmsnorm_fwd proportional past 2^24 (32 µs) */
      CHECK_NEAR(weft_opcost_op_ns(&d, &ops[i], 2), 64000, 1e-12);
      seen++;
    }
    if (!strcmp(ops[i].name, "attn_norm") && ops[i].phase == WEFT_PHASE_IG) {
      CHECK_NEAR(weft_opcost_op_ns(&d, &ops[i], 2), 128000, 1e-12); /* (96 - 32) x 2 µs */
      seen++;
    }
  }
  CHECK_EQ_INT(seen, 3);
  /* fa2 (PyTorch SDPA's FlashAttention-2): the same fused kernel at the tables'
   * flash rows (550 forward, 0.8 of it backward), not TE's (cuDNN's, 0.9 of them):
   * the layer's forward and input-grad differ by exactly that, nothing else */
  double te[WEFT_NPHASES], f2[WEFT_NPHASES], fl = 4.0 * 4 * 16 * 4096.0 * 4096 * 128 * 0.5;
  weft_opcost_block(&d, &l, OC_ATTN, te);
  par.attention = WEFT_ATTENTION_FA2;
  OcLayer l2;
  weft_opcost_layer(&m, &par, &l2);
  weft_opcost_block(&d, &l2, OC_ATTN, f2);
  CHECK_NEAR(te[WEFT_PHASE_FWD] - f2[WEFT_PHASE_FWD], fl / (0.9 * 550e12) * 1e9 - fl / 550e12 * 1e9,
             1e-6);
  CHECK_NEAR(te[WEFT_PHASE_IG] - f2[WEFT_PHASE_IG],
             2.5 * fl / (0.9 * 0.8 * 550e12) * 1e9 - 2.5 * fl / (0.8 * 550e12) * 1e9, 1e-6);
  CHECK_NEAR(te[WEFT_PHASE_WG], f2[WEFT_PHASE_WG], 0);
  /* flex (FlexAttention): FA2's rows at its published H100 speed over them, the
   * fused kernel's time / 1.25 forward and / 1.03 backward; nothing else moves */
  double fx[WEFT_NPHASES];
  par.attention = WEFT_ATTENTION_FLEX;
  weft_opcost_layer(&m, &par, &l2);
  weft_opcost_block(&d, &l2, OC_ATTN, fx);
  CHECK_NEAR(f2[WEFT_PHASE_FWD] - fx[WEFT_PHASE_FWD], fl / 550e12 * 1e9 * (1 - 1 / 1.25), 1e-6);
  CHECK_NEAR(f2[WEFT_PHASE_IG] - fx[WEFT_PHASE_IG],
             2.5 * fl / (0.8 * 550e12) * 1e9 * (1 - 1 / 1.03), 1e-6);
  CHECK_NEAR(fx[WEFT_PHASE_WG], f2[WEFT_PHASE_WG], 0);
  par.attention = WEFT_ATTENTION_FLASH;
  /* Adam at the fused step's measured GB/s (28 bytes a parameter in 180 µs for 2^24) over
   * the bytes the states' precision gives: fp32 moments 28 bytes, bf16 moments 16; the
   * gradient norm before it (2 bytes a parameter, not measured) at copy's GB/s: 2^25
   * bytes between copy's rows of 2^22 bytes (4 µs) and 2^26 (25 µs), 3/4 of the way in
   * ln bytes: 4 x (25 / 4)^0.75 µs */
  par.optimizer_bytes = 12;
  par.grad_bytes = par.param_bytes = 2;
  double norm = 4e3 * pow(25.0 / 4, 0.75);
  CHECK_NEAR(weft_opcost_optimizer_ns(&d, &par, 1 << 24, 0), 180e3 + norm, 1e-12);
  par.optimizer_bytes = 6;
  CHECK_NEAR(weft_opcost_optimizer_ns(&d, &par, 1 << 24, 0), 180e3 * 16 / 28 + norm, 1e-12);
}

/* Scratch zoo: DIR/zoo/devices.yml naming tables DIR/measured/x_*.csv. */
static void put_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

static const char *DEV_YML =
    "x:\n  peak_tflops: 989\n  hbm_gib: 80\n  hbm_gbps: 3350\n  vector_tflops: 66.9\n"
    "  sms: 132\n  tile: [256, 128]\n  gemm_efficiency: 0.75\n  hbm_efficiency: 0.9\n"
    "  measured: x\n";

static int scratch(char *dir, size_t size, char *zoo, char *gemm) {
  snprintf(dir, size, "/tmp/weft_measured_XXXXXX");
  if (!mkdtemp(dir)) {
    CHECK(0); /* no scratch folder: the test fails */
    return 0;
  }
  char p[700];
  snprintf(zoo, 600, "%s/zoo", dir);
  mkdir(zoo, 0700);
  snprintf(p, sizeof p, "%s/measured", dir);
  mkdir(p, 0700);
  snprintf(p, sizeof p, "%s/devices.yml", zoo);
  put_file(p, DEV_YML);
  snprintf(gemm, 600, "%s/measured/x_gemm.csv", dir);
  return 1;
}

static void cleanup(const char *dir, const char *zoo, const char *gemm) {
  char p[700];
  unlink(gemm);
  snprintf(p, sizeof p, "%s/devices.yml", zoo);
  unlink(p);
  rmdir(zoo);
  snprintf(p, sizeof p, "%s/measured", dir);
  rmdir(p);
  rmdir(dir);
}

static void bad_files(void) {
  char dir[64], zoo[600], gemm[600];
  WeftDevice d;
  WeftError e;
  if (!scratch(dir, sizeof dir, zoo, gemm)) return;
  /* no tables although `measured: x` names them: devices.yml's line */
  CHECK_EQ_INT(weft_zoo_device(zoo, "x", &d, &e), WEFT_EINPUT);
  CHECK_EQ_INT(e.line, 10);
  CHECK(!strcmp(e.field, "measured"));
  /* a zoo copied without its measured folder: the datasheet figures */
  char mdir[700];
  snprintf(mdir, sizeof mdir, "%s/measured", dir);
  CHECK_EQ_INT(rmdir(mdir), 0);
  CHECK_EQ_INT(weft_zoo_device(zoo, "x", &d, &e), WEFT_OK);
  CHECK(d.measured[0] == '\0');
  CHECK_EQ_INT(mkdir(mdir, 0700), 0);
  static const struct {
    const char *text;
    int line;
    const char *field;
  } bad[] = {
      {"# date: today\nlabel,dtype,m,n,k,time_us\nx,bf16,1,2,3,4\nx,bf16,1,2,z,4\n", 4, "k"},
      {"label,dtype,m,n,time_us\nx,bf16,1,2,4\n", 1, "k"},
      {"label,dtype,m,n,k,time_us\nx,fp4,1,2,3,4\n", 2, "dtype"},
      {"label,dtype,m,n,k,time_us\n\nx,bf16,1,2,3,-4\n", 3, "time_us"},
      {"label,dtype,m,n,k,time_us\nx,bf16,1.5,2,3,4\n", 2, "m"},
      {"label,dtype,m,n,k,time_us\nx,bf16,1,2,3\n", 2, "time_us"},
      {"label,dtype,m,n,k,time_us\nx,bf16,1,2,3,nan\n", 2, "time_us"},
      /* a time in us whose ns overflow to inf (fuzz_measured_csv) */
      {"label,dtype,m,n,k,time_us\nx,bf16,1,2,3,1e306\n", 2, "time_us"},
      {"label,dtype,m,n,k,time_us\nx,bf16,1,2,3,inf\n", 2, "time_us"},
      /* a dim past long's range: refused, not cast (UB; fuzz_measured_csv) */
      {"label,dtype,m,n,k,time_us\nx,bf16,1e300,2,3,4\n", 2, "m"},
      {"label,dtype,m,n,k,time_us\nx,bf16,1,16777216,3,4\n", 2, "n"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    put_file(gemm, bad[i].text);
    CHECK_EQ_INT(weft_zoo_device(zoo, "x", &d, &e), WEFT_EINPUT);
    CHECK(strstr(e.file, "/measured/x_gemm.csv") != NULL);
    CHECK_EQ_INT(e.line, bad[i].line);
    CHECK(!strcmp(e.field, bad[i].field));
  }
  /* a good table; then a changed one is read again */
  put_file(gemm, "label,dtype,m,n,k,time_us\nx,bf16,4096,4096,4096,200\n");
  CHECK_EQ_INT(weft_zoo_device(zoo, "x", &d, &e), WEFT_OK);
  CHECK_NEAR(weft_measured_gemm_ns(weft_measured_of(&d), WM_BF16, 1, 4096, 4096, 4096), 200e3,
             1e-12);
  put_file(gemm, "label,dtype,m,n,k,time_us\nx,bf16,4096,4096,4096,250.5\n");
  CHECK_EQ_INT(weft_zoo_device(zoo, "x", &d, &e), WEFT_OK);
  CHECK_NEAR(weft_measured_gemm_ns(weft_measured_of(&d), WM_BF16, 1, 4096, 4096, 4096), 250.5e3,
             1e-12);
  /* a sustained run at 0.9 of the burst rate of the 8192^3 GEMM (median of 3 seconds) slows
   * every BF16 GEMM and the attention by 1 / 0.9 */
  double burst = 2 * 8192.0 * 8192 * 8192 / 2000e-6 / 1e12, slow = 0.9 * burst;
  char sus[700], text[300];
  snprintf(sus, sizeof sus, "%s/measured/x_sustained.csv", dir);
  snprintf(text, sizeof text, "dtype,second,tflops\nbf16,0,%.9f\nbf16,1,%.9f\nbf16,2,%.9f\n",
           slow * 1.01, slow, slow * 0.5);
  put_file(sus, text);
  put_file(gemm, "label,dtype,m,n,k,time_us\nx,bf16,8192,8192,8192,2000\nx,bf16,4096,4096,4096,300\n");
  CHECK_EQ_INT(weft_zoo_device(zoo, "x", &d, &e), WEFT_OK);
  CHECK_NEAR(weft_measured_gemm_ns(weft_measured_of(&d), WM_BF16, 1, 4096, 4096, 4096),
             300e3 / 0.9, 1e-8);
  /* the sustained run's own shape too: the factor is worked out from it at
   * the load, in this thread, and its burst time must not stay cached */
  CHECK_NEAR(weft_measured_gemm_ns(weft_measured_of(&d), WM_BF16, 1, 8192, 8192, 8192),
             2000e3 / 0.9, 1e-8);
  WeftMeasuredInfo mi;
  CHECK_EQ_INT(weft_measured_info(&d, &mi, &e), WEFT_OK);
  CHECK_NEAR(mi.sustained[0], 0.9, 1e-8);
  CHECK_NEAR(mi.sustained[1], 1, 1e-12);
  CHECK_EQ_INT(mi.rows[4], 3);
  unlink(sus);
  /* numbers as strtod reads them (measured_csv.c parses plain decimals itself) */
  static const char *const times[] = {"0.1",    "123.456789", "999999999999999", "7",
                                      "3.000",  "0.000001",   "1234567.89012345", "2e3",
                                      "12.5e-1", "1.0000000000000002"};
  char csv[1200] = "label,dtype,m,n,k,time_us\n";
  size_t ntimes = sizeof times / sizeof times[0], used = strlen(csv);
  for (size_t i = 0; i < ntimes; i++)
    used += (size_t)snprintf(csv + used, sizeof csv - used, "x,bf16,%d,512,512,%s\n",
                             512 + 16 * (int)i, times[i]);
  put_file(gemm, csv);
  CHECK_EQ_INT(weft_zoo_device(zoo, "x", &d, &e), WEFT_OK);
  for (size_t i = 0; i < ntimes; i++) /* each shape its own row: its time */
    CHECK_NEAR(weft_measured_gemm_ns(weft_measured_of(&d), WM_BF16, 1, 512 + 16.0 * (double)i,
                                     512, 512),
               strtod(times[i], NULL) * 1e3, 1e-15);
  cleanup(dir, zoo, gemm);
}

/* No shape runs faster than the fastest measured row of its type: a table
 * of two squares, 500 and 520 TFLOP/s, whose fitted model rises with size
 * beyond 520 at 16384^3; there the bound, 520, is the time. The rows keep
 * their own times. */
static void never_beats_best(void) {
  char dir[64], zoo[600], gemm[600];
  WeftDevice d;
  WeftError e;
  if (!scratch(dir, sizeof dir, zoo, gemm)) return;
  double f1 = 2.0 * 1024 * 1024 * 1024, f2 = 8 * f1, big = 4096 * f1; /* 1024^3, 2048^3, 16384^3 */
  char t1[40], t2[40], csv[300];
  snprintf(t1, sizeof t1, "%.6f", f1 / 500e12 * 1e6); /* µs as the CSV has them */
  snprintf(t2, sizeof t2, "%.6f", f2 / 520e12 * 1e6);
  snprintf(csv, sizeof csv, "label,dtype,m,n,k,time_us\nx,bf16,1024,1024,1024,%s\n"
           "x,bf16,2048,2048,2048,%s\n", t1, t2);
  put_file(gemm, csv);
  CHECK_EQ_INT(weft_zoo_device(zoo, "x", &d, &e), WEFT_OK);
  const WeftMeasured *t = weft_measured_of(&d);
  double ns1 = strtod(t1, NULL) * 1e3, ns2 = strtod(t2, NULL) * 1e3, best = f2 / ns2;
  CHECK_NEAR(weft_measured_gemm_ns(t, WM_BF16, 1, 1024, 1024, 1024), ns1, 1e-9 * ns1);
  CHECK_NEAR(weft_measured_gemm_ns(t, WM_BF16, 1, 2048, 2048, 2048), ns2, 1e-9 * ns2);
  CHECK_NEAR(weft_measured_gemm_ns(t, WM_BF16, 1, 16384, 16384, 16384), big / best,
             1e-9 * big / best);
  for (double m = 16; m <= 1 << 20; m *= 4) /* nothing anywhere beats it */
    CHECK(weft_measured_gemm_ns(t, WM_BF16, 1, m, 8192, 8192) >=
          2 * m * 8192 * 8192 / best * (1 - 1e-12));
  cleanup(dir, zoo, gemm);
}

/* A device on another GPU's tables (devices.yml measured_clock,
 * measured_hbm_gbps): y reads x's tables at 0.8 of their sustained clock and
 * on half their HBM rate (1675 of 3350 GB/s). Its GEMMs take 1 / 0.8 of the
 * table's time, its memory-bound kernels twice it; x, read in the same
 * process, keeps the tables' own. The keys need `measured`; 0 and 5 are out
 * of range. */
static void other_gpu(void) {
  char dir[64], zoo[600], gemm[600], mem[700], yml[700], text[900];
  WeftDevice x, y;
  WeftError e;
  WeftMeasuredInfo mi;
  if (!scratch(dir, sizeof dir, zoo, gemm)) return;
  snprintf(mem, sizeof mem, "%s/measured/x_memory.csv", dir);
  snprintf(yml, sizeof yml, "%s/devices.yml", zoo);
  put_file(gemm, "label,dtype,m,n,k,time_us\nx,bf16,4096,4096,4096,200\n"
                 "x,fp8,4096,4096,4096,120\n");
  put_file(mem, "op,dtype,elements,bytes,time_us\ncopy,bf16,1048576,4194304,10\n");
  static const char *const Y = /* DEV_YML's x (lines 1-10), then y: lines 11-22 */
      "y:\n  peak_tflops: 989\n  hbm_gib: 96\n  hbm_gbps: 1675\n  vector_tflops: 66.9\n"
      "  sms: 132\n  tile: [256, 128]\n  gemm_efficiency: 0.75\n  hbm_efficiency: 0.9\n"
      "  measured: x\n  measured_clock: %s\n  measured_hbm_gbps: 3350\n";
  snprintf(text, sizeof text, "%s", DEV_YML);
  snprintf(text + strlen(DEV_YML), sizeof text - strlen(DEV_YML), Y, "0.8");
  put_file(yml, text);
  CHECK_EQ_INT(weft_zoo_device(zoo, "x", &x, &e), WEFT_OK);
  CHECK_EQ_INT(weft_zoo_device(zoo, "y", &y, &e), WEFT_OK);
  const WeftMeasured *tx = weft_measured_of(&x), *ty = weft_measured_of(&y);
  CHECK(tx != NULL && ty != NULL && tx != ty);
  CHECK_NEAR(weft_measured_gemm_ns(ty, WM_BF16, 1, 4096, 4096, 4096), 200e3 / 0.8, 1e-8);
  CHECK_NEAR(weft_measured_gemm_ns(ty, WM_FP8, 1, 4096, 4096, 4096), 120e3 / 0.8, 1e-8);
  CHECK_NEAR(weft_measured_gemm_ns(tx, WM_BF16, 1, 4096, 4096, 4096), 200e3, 1e-8);
  CHECK_NEAR(weft_measured_mem_ns(ty, WM_COPY, 1048576), 20e3, 1e-8);
  CHECK_NEAR(weft_measured_mem_gbps(ty, WM_COPY, 4194304), 4194304 / 20e3, 1e-12);
  CHECK_NEAR(weft_measured_mem_ns(tx, WM_COPY, 1048576), 10e3, 1e-8);
  CHECK_EQ_INT(weft_measured_info(&y, &mi, &e), WEFT_OK);
  CHECK_NEAR(mi.clock, 0.8, 1e-15);
  CHECK_NEAR(mi.mem_time, 2, 1e-15);
  CHECK_NEAR(mi.sustained[0], 0.8, 1e-15); /* no sustained run: the clock alone */
  CHECK_EQ_INT(weft_measured_info(&x, &mi, &e), WEFT_OK);
  CHECK_NEAR(mi.clock, 1, 0);
  CHECK_NEAR(mi.mem_time, 1, 0);
  static const char *const bad[] = {"0", "5"};
  for (int i = 0; i < 2; i++) {
    snprintf(text + strlen(DEV_YML), sizeof text - strlen(DEV_YML), Y, bad[i]);
    put_file(yml, text);
    CHECK_EQ_INT(weft_zoo_device(zoo, "y", &y, &e), WEFT_EINPUT);
    CHECK_EQ_INT(e.line, 21);
    CHECK(!strcmp(e.field, "measured_clock"));
  }
  /* without `measured` the keys adjust nothing: an error at the key */
  snprintf(text + strlen(DEV_YML), sizeof text - strlen(DEV_YML),
           "y:\n  peak_tflops: 989\n  hbm_gib: 96\n  hbm_gbps: 1675\n"
           "  measured_hbm_gbps: 3350\n");
  put_file(yml, text);
  CHECK_EQ_INT(weft_zoo_device(zoo, "y", &y, &e), WEFT_EINPUT);
  CHECK_EQ_INT(e.line, 15);
  CHECK(!strcmp(e.field, "measured_hbm_gbps"));
  unlink(mem);
  cleanup(dir, zoo, gemm);
}


/* The neighbour search against a scan of every row (measured.c's rule: the
 * 4 rows nearest in (ln m, ln n, ln k), ties to the lower row index, the
 * ratios weighted by 1 / distance nearest first), on the H100's own tables
 * (about 760 rows a type): random shapes, and shapes halfway in log space
 * between two rows (equal distances to both), the same time (to 1e-12: a
 * compiler may contract the two differently). */
static double scan_ratio(const WeftMeasured *t, int dt, double m, double n, double k) {
  double q[3] = {log(m), log(n), log(k)}, d2[4], r[4];
  int have = 0;
  for (int i = t->gemm_from[dt]; i < t->gemm_from[dt + 1]; i++) {
    const WmGemm *g = &t->gemm[i];
    if (g->m == m && g->n == n && g->k == k) return g->ratio;
    double x = (g->lm - q[0]) * (g->lm - q[0]) + (g->ln - q[1]) * (g->ln - q[1]) +
               (g->lk - q[2]) * (g->lk - q[2]);
    if (have == 4 && x >= d2[3]) continue;
    int j = have < 4 ? have++ : 3;
    for (; j > 0 && d2[j - 1] > x; j--) {
      d2[j] = d2[j - 1];
      r[j] = r[j - 1];
    }
    d2[j] = x;
    r[j] = g->ratio;
  }
  double sw = 0, sr = 0;
  for (int j = 0; j < have; j++) {
    double w = 1 / sqrt(d2[j]);
    sw += w;
    sr += w * r[j];
  }
  return sr / sw;
}

static void neighbours_as_scan(void) {
  WeftDevice d;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "h100", &d, &e), WEFT_OK);
  const WeftMeasured *t = weft_measured_of(&d);
  CHECK(t != NULL);
  if (!t) return;
  unsigned long long s = 12345;
  int ties = 0;
  for (int i = 0; i < 4000; i++) {
    int dt = i % WM_NDTYPES, lo = t->gemm_from[dt], n = t->gemm_from[dt + 1] - lo;
    if (n < 2) continue;
    double q[3];
    if (i % 2) { /* halfway between two rows */
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      const WmGemm *a = &t->gemm[lo + (int)((s >> 33) % (unsigned)n)];
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      const WmGemm *b = &t->gemm[lo + (int)((s >> 33) % (unsigned)n)];
      q[0] = sqrt(a->m * b->m), q[1] = sqrt(a->n * b->n), q[2] = sqrt(a->k * b->k);
      ties++;
    } else {
      for (int c = 0; c < 3; c++) { /* 2^4 .. 2^17 */
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        q[c] = round(exp2(4 + 13 * (double)(s >> 11) / 9007199254740992.0));
      }
    }
    double want = weft_gemm_ns(&t->fitdev[dt], t->peak[dt], 1, q[0], q[1], q[2]) *
                  scan_ratio(t, dt, q[0], q[1], q[2]);
    want = fmax(want, 2.0 * q[0] * q[1] * q[2] / t->best[dt] * 1e9) * t->slow[dt] *
           (dt == WM_BF16 ? 1 : t->fp8_layer); /* the FP8 layer factor (measured.c) */
    double got = weft_measured_gemm_ns(t, (WeftMeasuredDtype)dt, 1, q[0], q[1], q[2]);
    CHECK_NEAR(got, want, 1e-12 * want); /* the same operations: equal but for contraction */
  }
  CHECK(ties == 2000);
}

/* FP8 GEMMs in a layer (measured.c, finish_fp8_layer): two layers whose
 * GEMMs (all of one shape, 4096^3) the tables give at 200 us BF16, 120 us
 * FP8 and 100 us FP8 with fast accumulation. Layer a: a forward and a
 * data-gradient GEMM, tables 400 us BF16 and 100 + 120 = 220 us FP8 (0.55);
 * measured in sequence 400 and 240 us (the means of two runs each): 0.6, so
 * 0.6 / 0.55 = 12/11. Layer b: one weight-gradient GEMM, tables 200 and 120
 * (0.6), measured 200 and 120: 1. Layer c, BF16 alone, is left out. The
 * factor, sqrt(12/11), multiplies both FP8 types' times and not BF16's. A
 * device's measured_fp8_layer replaces it; a sequence layer without shapes
 * is an error at its line; a pass other than 0-2 at its field. */
static void fp8_layer(void) {
  char dir[64], zoo[600], gemm[600], seq[700], each[700], yml[700], text[900];
  WeftDevice d;
  WeftError e;
  WeftMeasuredInfo mi;
  if (!scratch(dir, sizeof dir, zoo, gemm)) return;
  snprintf(seq, sizeof seq, "%s/measured/x_fp8_layer_gemms.csv", dir);
  snprintf(each, sizeof each, "%s/measured/x_fp8_layer_gemms_each.csv", dir);
  snprintf(yml, sizeof yml, "%s/devices.yml", zoo);
  put_file(gemm, "label,dtype,m,n,k,time_us\nx,bf16,4096,4096,4096,200\n"
                 "x,fp8,4096,4096,4096,120\nx,fp8_fast,4096,4096,4096,100\n");
  put_file(seq, "# the script's comment\nname,dtype,run,seq_us,sum_us\na,bf16,1,390,0\n"
                "a,fp8,1,230,0\nb,bf16,1,200,0\nb,fp8,1,120,0\na,bf16,2,410,0\n"
                "a,fp8,2,250,0\nc,bf16,1,999,0\n");
  put_file(each, "name,gemm,m,n,k,kind,bf16_us\na,0,4096,4096,4096,0,1\n"
                 "a,1,4096,4096,4096,1,1\nb,0,4096,4096,4096,2,1\nc,0,4096,4096,4096,0,1\n");
  double f = sqrt(12.0 / 11.0);
  CHECK_EQ_INT(weft_zoo_device(zoo, "x", &d, &e), WEFT_OK);
  const WeftMeasured *t = weft_measured_of(&d);
  CHECK_NEAR(weft_measured_gemm_ns(t, WM_BF16, 1, 4096, 4096, 4096), 200e3, 1e-9);
  CHECK_NEAR(weft_measured_gemm_ns(t, WM_FP8, 1, 4096, 4096, 4096), 120e3 * f, 1e-9);
  CHECK_NEAR(weft_measured_gemm_ns(t, WM_FP8_FAST, 1, 4096, 4096, 4096), 100e3 * f, 1e-9);
  CHECK_EQ_INT(weft_measured_info(&d, &mi, &e), WEFT_OK);
  CHECK_NEAR(mi.fp8_layer, f, 1e-15);
  CHECK_NEAR(mi.sustained[1], 1, 0); /* the factor is not a sustained clock */
  /* the device's own factor (a set of tables of its own: a process holds
   * WM_MAX_SETS, the suite's tests share them) */
  snprintf(text, sizeof text, "%s  measured_fp8_layer: 1.2\n", DEV_YML);
  put_file(yml, text);
  CHECK_EQ_INT(weft_zoo_device(zoo, "x", &d, &e), WEFT_OK);
  CHECK_NEAR(weft_measured_gemm_ns(weft_measured_of(&d), WM_FP8, 1, 4096, 4096, 4096),
             120e3 * 1.2, 1e-9);
  static const char *const range[] = {"0.2", "5", "0"};
  for (int i = 0; i < 3; i++) {
    snprintf(text, sizeof text, "%s  measured_fp8_layer: %s\n", DEV_YML, range[i]);
    put_file(yml, text);
    CHECK_EQ_INT(weft_zoo_device(zoo, "x", &d, &e), WEFT_EINPUT);
    CHECK_EQ_INT(e.line, 11);
    CHECK(!strcmp(e.field, "measured_fp8_layer"));
  }
  put_file(yml, DEV_YML);
  /* broken layer files: the error names the file, line, column and field */
  static const struct {
    const char *seq, *each, *file;
    int line, col;
    const char *field;
  } bad[] = {
      /* a layer measured in sequence without its GEMMs: the sequence file's line */
      {"name,dtype,seq_us\na,bf16,400\na,fp8,240\nd,fp8,1\n",
       "name,gemm,m,n,k,kind\na,0,4096,4096,4096,1\n", "x_fp8_layer_gemms.csv", 4, 1, "name"},
      /* a pass other than 0-2 */
      {"name,dtype,seq_us\na,bf16,400\na,fp8,240\n", "name,gemm,m,n,k,kind\na,0,4096,4096,4096,3\n",
       "x_fp8_layer_gemms_each.csv", 2, 20, "kind"},
      /* a name with a control character (a NUL would cut it): its column */
      {"name,dtype,seq_us\na,bf16,400\na,fp8,240\n",
       "name,gemm,m,n,k,kind\na\tb,0,4096,4096,4096,1\n", "x_fp8_layer_gemms_each.csv", 2, 2,
       "name"},
      /* a factor no GPU shows (a broken file): refused, naming the sequence file */
      {"name,dtype,seq_us\na,bf16,400\na,fp8,2000\n",
       "name,gemm,m,n,k,kind\na,0,4096,4096,4096,1\n", "x_fp8_layer_gemms.csv", 0, 0, "seq_us"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    put_file(seq, bad[i].seq);
    put_file(each, bad[i].each);
    CHECK_EQ_INT(weft_zoo_device(zoo, "x", &d, &e), WEFT_EINPUT);
    CHECK(strstr(e.file, bad[i].file) != NULL);
    CHECK_EQ_INT(e.line, bad[i].line);
    CHECK_EQ_INT(e.col, bad[i].col);
    CHECK(!strcmp(e.field, bad[i].field));
  }
  unlink(seq);
  unlink(each);
  cleanup(dir, zoo, gemm);
}

const TestCase suite_measured[] = {{"measured_fit_recovers", fit_recovers},
                                   {"measured_exact_and_interpolated", exact_and_interpolated},
                                   {"measured_attention", attention},
                                   {"measured_memory", memory},
                                   {"measured_opcost", opcost},
                                   {"measured_bad_files", bad_files},
                                   {"measured_never_beats_best", never_beats_best},
                                   {"measured_other_gpu", other_gpu},
                                   {"measured_neighbours_as_scan", neighbours_as_scan},
                                   {"measured_fp8_layer", fp8_layer},
                                   {0}};
