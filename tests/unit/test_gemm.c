/* test_gemm.c — the GEMM shape model (src/model/gemm_eff.c): times by hand,
 * monotonicity, and the shipped presets against measured GEMMs. */
#include <string.h>

#include "model/gemm_eff.h"
#include "../test.h"

#define EXACT 1e-12 /* a few exact products and one division: only rounding */

/* The fit error scripts/fit_gemm.py reports for the h100-xla preset on XLA's
 * sm_90 table, entries with m, n, k >= 1024: max |time error| 7.7%. */
#define H100_FIT_MAX_ERR 0.077

/* 4 SMs, 2 x 2 tiles, 1 TFLOP/s, eff_max 0.5, k0 10 K steps, t0 100 ns:
 * one wave of full tiles costs 4 x 2*2*2 x (k/s + 10) FLOPs at 0.5e12. */
static WeftDevice toy(void) {
  WeftDevice d;
  memset(&d, 0, sizeof d);
  d.sms = 4;
  d.tile_m = d.tile_n = 2;
  d.gemm_efficiency = 0.25; /* not read while the shape model is on */
  d.gemm_eff_max = 0.5;
  d.gemm_k0 = 10;
  d.gemm_t0_ns = 100;
  return d;
}

static void by_hand(void) {
  WeftDevice d = toy();
  double r = 1e12, k = 100;
  /* 4 x 4: 4 tiles = 4 SMs, no split, one wave: 32 x 110 FLOPs = 7.04 ns */
  CHECK_NEAR(weft_gemm_ns(&d, r, 1, 4, 4, k), 100 + 7.04, EXACT);
  /* 3 x 4 is tile-quantized to 4 x 4 */
  CHECK_NEAR(weft_gemm_ns(&d, r, 1, 3, 4, k), 100 + 7.04, EXACT);
  /* one tile: K split 4 ways, each SM 25 + 10 steps: 32 x 35 = 1120 -> 2.24 ns */
  CHECK_NEAR(weft_gemm_ns(&d, r, 1, 2, 2, k), 100 + 2.24, EXACT);
  /* two tiles (or a batch of two one-tile GEMMs): split 2, 32 x 60 -> 3.84 */
  CHECK_NEAR(weft_gemm_ns(&d, r, 1, 2, 4, k), 100 + 3.84, EXACT);
  CHECK_NEAR(weft_gemm_ns(&d, r, 2, 2, 2, k), 100 + 3.84, EXACT);
  /* three tiles: floor(4 / 3) = 1, no split, one wave as four */
  CHECK_NEAR(weft_gemm_ns(&d, r, 1, 6, 2, k), 100 + 7.04, EXACT);
  /* six tiles: two waves, 2 x 7.04 */
  CHECK_NEAR(weft_gemm_ns(&d, r, 1, 6, 4, k), 100 + 14.08, EXACT);
  /* empty: no kernel */
  CHECK_NEAR(weft_gemm_ns(&d, r, 1, 0, 4, k), 0, EXACT);
  /* without the shape model: 2 waves x 4 x 8 x 100 FLOPs at 0.25e12 = 25.6 ns */
  d.gemm_eff_max = 0;
  CHECK_NEAR(weft_gemm_ns(&d, r, 1, 6, 4, k), 25.6, EXACT);
  CHECK_NEAR(weft_gemm_ns(&d, r, 1, 2, 2, k), 12.8, EXACT); /* one tile, a whole wave */
}

/* Over a grid of shapes on the h100 preset: a bigger GEMM (m, n, k or the
 * batch grown) never takes less time, a longer K never runs at a lower
 * rate, and no GEMM beats eff_max x peak. */
static void monotone(void) {
  WeftDevice d;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "h100-xla", &d, &e), WEFT_OK);
  CHECK(d.gemm_eff_max > 0);
  static const double dims[] = {1, 7, 64, 128, 255, 256, 257, 1000, 2048, 4097, 12288, 50000};
  const int nd = (int)(sizeof dims / sizeof dims[0]);
  double r = d.peak_flops;
  int slower = 0, rate = 0, above = 0;
  for (int bi = 1; bi <= 3; bi++)
    for (int a = 0; a < nd; a++)
      for (int b = 0; b < nd; b++)
        for (int c = 0; c < nd; c++) {
          double bt = bi, m = dims[a], n = dims[b], k = dims[c];
          double t = weft_gemm_ns(&d, r, bt, m, n, k), f = 2 * bt * m * n * k;
          above += f / (t * 1e-9) > d.gemm_eff_max * r;
          double g = 1 + 1.0 / 3;
          slower += weft_gemm_ns(&d, r, bt, m * g + 1, n, k) < t;
          slower += weft_gemm_ns(&d, r, bt, m, n * g + 1, k) < t;
          slower += weft_gemm_ns(&d, r, bt + 1, m, n, k) < t;
          double k2 = k * g + 1, t2 = weft_gemm_ns(&d, r, bt, m, n, k2);
          slower += t2 < t;
          rate += f * k2 / k / t2 < f / t * (1 - 1e-12); /* FLOP/ns at k2 below that at k */
        }
  CHECK_EQ_INT(slower, 0);
  CHECK_EQ_INT(rate, 0);
  CHECK_EQ_INT(above, 0);
  /* the large-GEMM limit: whole waves, t0 negligible -> eff_max k / (k + k0) */
  double m = 256.0 * 132 * 512, n = 128, k = 4096; /* 512 waves: t0 is 2e-4 of it */
  double got = 2 * m * n * k / (weft_gemm_ns(&d, r, 1, m, n, k) * 1e-9) / r;
  CHECK_NEAR(got, d.gemm_eff_max * k / (k + d.gemm_k0), 1e-3);
}

/* Measured BF16 GEMMs the presets must reproduce within the fit's error:
 * XLA's default matmul table (openxla/xla,
 * xla/service/gpu/model/default_matmul_perf_table.txtpb, "sm_90",
 * "bf16xbf16->bf16", FLOP/s), and the MAMF table of stas00/ml-engineering
 * (compute/accelerator/README.md: H100 SXM 792.1 TFLOP/s at
 * 6144x17920x2816, A100 SXM 267.9 at 6912x16384x2048, CUDA 12.1). */
static void presets_meet_benchmarks(void) {
  static const struct {
    double b, m, n, k, flops;
  } xla[] = {
      {1, 4096, 4096, 4096, 780193877565849.0}, {1, 1024, 1024, 1024, 252764082862523.0},
      {1, 2048, 2048, 2048, 641039894925373.0}, {1, 4096, 1024, 2048, 643730110311750.0},
      {4, 4096, 4096, 1024, 722328842246888.0}, {2, 1024, 4096, 4096, 742688448210271.0},
  };
  WeftDevice d;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "h100-xla", &d, &e), WEFT_OK);
  for (size_t i = 0; i < sizeof xla / sizeof xla[0]; i++) {
    double f = 2 * xla[i].b * xla[i].m * xla[i].n * xla[i].k;
    double t = weft_gemm_ns(&d, d.peak_flops, xla[i].b, xla[i].m, xla[i].n, xla[i].k);
    CHECK_NEAR(t / (f / xla[i].flops * 1e9), 1, H100_FIT_MAX_ERR);
  }
  double f = 2.0 * 6144 * 17920 * 2816;
  CHECK_NEAR(f / weft_gemm_ns(&d, d.peak_flops, 1, 6144, 17920, 2816) * 1e9 / 792.1e12, 1,
             H100_FIT_MAX_ERR);
}

/* devices.yml: the three keys come together, and only on a device with the
 * per-operator keys; t0 is read in microseconds. */
static void zoo_keys(void) {
  WeftDevice d;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "h100-xla", &d, &e), WEFT_OK);
  CHECK_NEAR(d.gemm_t0_ns, 1e3 * 5.0, EXACT);
  for (int k = 0; k < 3; k++) { /* no data: waves of tiles at gemm_efficiency */
    static const char *const flat[3] = {"v100", "h100", "a100"};
    CHECK_EQ_INT(weft_zoo_device("data/zoo", flat[k], &d, &e), WEFT_OK);
    CHECK(d.gemm_eff_max == 0 && d.gemm_k0 == 0 && d.gemm_t0_ns == 0);
  }
  CHECK_EQ_INT(weft_zoo_device("tests/fixtures/zoo/gemm_partial", "part", &d, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "missing key 'gemm_t0_us'") != NULL && e.line == 2); /* the entry's mapping */
  CHECK_EQ_INT(weft_zoo_device("tests/fixtures/zoo/gemm_flat", "flat", &d, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "needs the per-operator keys") != NULL && e.line == 5);
  CHECK_EQ_INT(weft_zoo_device("tests/fixtures/zoo/gemm_range", "over", &d, &e), WEFT_EINPUT);
  CHECK(strstr(e.field, "gemm_eff_max") != NULL && e.line == 10);
}

const TestCase suite_gemm[] = {{"gemm_by_hand", by_hand},
                               {"gemm_monotone", monotone},
                               {"gemm_presets_meet_benchmarks", presets_meet_benchmarks},
                               {"gemm_zoo_keys", zoo_keys},
                               {0}};
