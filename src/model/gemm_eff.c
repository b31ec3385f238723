/* gemm_eff.c — a GEMM's compute time from its shape (docs/zoo.md, "GEMM
 * shape model"): output tiles in waves over the SMs, split-K when there are
 * fewer tiles than SMs, and a fixed cost per tile and per kernel. */
#include <math.h>

#include "model/gemm_eff.h"

/* With the shape model (gemm_eff_max > 0; parameters fitted to public GEMM
 * benchmarks by scripts/fit_gemm.py):
 *   tiles  t = batch ceil(m / tile_m) ceil(n / tile_n)
 *   split  s = floor(sms / t) when t < sms (the K loop shared by s SMs), else 1
 *   waves  w = ceil(t s / sms)
 *   time   = t0 + w x 2 tile_m tile_n (k / s + k0) / (rate x eff_max / sms)
 * k0 is a tile's prologue and epilogue (filling the pipeline, writing C) in
 * K steps, t0 the kernel's ramp-up and tail. Without it: whole tiles in
 * waves at rate x gemm_efficiency, the tile's full K each (no split, no
 * overheads). */
double weft_gemm_ns(const WeftDevice *d, double rate, double batch, double m, double n, double k) {
  double tiles = batch * ceil(m / d->tile_m) * ceil(n / d->tile_n);
  if (!(tiles > 0)) return 0;
  double sms = d->sms;
  if (d->gemm_eff_max <= 0) {
    double waves = ceil(tiles / sms);
    double wave_flops = sms * 2.0 * d->tile_m * d->tile_n * k;
    return waves * wave_flops / (rate * d->gemm_efficiency) * 1e9;
  }
  double split = tiles < sms ? floor(sms / tiles) : 1;
  double waves = ceil(tiles * split / sms);
  double wave_flops = sms * 2.0 * d->tile_m * d->tile_n * (k / split + d->gemm_k0);
  return d->gemm_t0_ns + waves * wave_flops / (rate * d->gemm_eff_max) * 1e9;
}
