/* gen_interleaved.c — the interleaved 1F1B timeline of model chunks of
 * unequal work, in Megatron-Core's order (docs/zoo.md, "Pipeline layout"),
 * and the activations a stage holds at its peak along that order. */
#include <stdlib.h>

#include "model/gen.h"
#include "model/pipeline.h"

/* Megatron's schedule table (schedules.py, get_schedule_table, micro-batch
 * groups of pp): virtual step k of a rank runs micro-batch mb of chunk c,
 * k = g pp v + c pp + i, mb = g pp + i (pp dividing m). */
static void table(int k, int pp, int v, int *mb, int *c) {
  int per = pp * v, grp = k / per, in = k % per;
  *c = in / pp;
  *mb = grp * pp + in % pp;
}

/* Rank r's warm-up forwards (get_pp_rank_microbatches): 2 (pp - r - 1) +
 * (v - 1) pp, at most all m v of them; all of them when m = pp (Megatron-
 * Core 0.9's forward_backward_pipelining_with_interleaving: "Run all forward
 * passes and then all backward passes if number of microbatches is just the
 * number of pipeline stages"). */
static long warmup(int pp, int v, int m, int r) {
  long w = 2L * (pp - r - 1) + (long)(v - 1) * pp, total = (long)m * v;
  return w < total && m != pp ? w : total;
}

/* Rank r's i-th operation: *fwd and its virtual step k. Warm-up forwards,
 * then forward w + j and backward j, then the cool-down backwards. */
static long op_at(long i, long w, long total, int *fwd) {
  if (i < w) return *fwd = 1, i;
  long rem = total - w;
  if (i < w + 2 * rem) {
    long j = (i - w) / 2;
    *fwd = (i - w) % 2 == 0;
    return *fwd ? w + j : j;
  }
  *fwd = 0;
  return i - w - rem; /* the cool-down backwards: rem .. total-1 */
}

int weft_gen_interleaved(const double *f, const double *b, int pp, int v, int m,
                         double *makespan) {
  if (pp < 1 || v < 1 || m < 1 || m % pp || !f || !b || !makespan) return WEFT_EINVAL;
  long G = (long)pp * v, total = (long)m * v, n = G * m;
  double *endf = malloc(2 * (size_t)n * sizeof *endf);
  double *free_at = calloc((size_t)pp, sizeof *free_at);
  long *next = calloc((size_t)pp, sizeof *next);
  if (!endf || !free_at || !next) {
    free(endf);
    free(free_at);
    free(next);
    return WEFT_ENOMEM;
  }
  double *endb = endf + n; /* end of micro-batch mb's pass of global chunk x: [mb G + x] */
  for (long i = 0; i < 2 * n; i++) endf[i] = -1.0;
  long left = 2 * total * pp;
  for (int moved = 1; moved && left > 0;) {
    moved = 0;
    for (int r = 0; r < pp; r++) {
      long w = warmup(pp, v, m, r);
      while (next[r] < 2 * total) {
        int fwd, mb, c;
        long k = op_at(next[r], w, total, &fwd);
        table((int)(k % total), pp, v, &mb, &c);
        if (!fwd) c = v - 1 - c;
        long x = (long)c * pp + r, at = (long)mb * G + x;
        double in = 0.0; /* its input: the chunk before (forward), after (backward) */
        if (fwd && x > 0)
          in = endf[at - 1];
        else if (!fwd)
          in = x < G - 1 ? endb[at + 1] : endf[at];
        if (in < 0) break; /* not made yet: another rank first */
        double start = in > free_at[r] ? in : free_at[r];
        free_at[r] = start + (fwd ? f[x] : b[x]);
        (fwd ? endf : endb)[at] = free_at[r];
        next[r]++, left--, moved = 1;
      }
    }
  }
  double T = 0.0;
  for (int r = 0; r < pp; r++)
    if (free_at[r] > T) T = free_at[r];
  free(endf);
  free(free_at);
  free(next);
  if (left > 0) return WEFT_EINVAL; /* a schedule that deadlocks: not Megatron's */
  *makespan = T;
  return WEFT_OK;
}

long weft_gen_interleaved_chunks(int pp, int v, int m, int r) {
  long w = warmup(pp, v, m, r), total = (long)m * v;
  return w < total ? w + 1 : total;
}

long weft_gen_interleaved_peak(const int *held, int pp, int v, int m, int r) {
  long total = (long)m * v, w = warmup(pp, v, m, r), now = 0, peak = 0;
  for (long i = 0; i < 2 * total; i++) {
    int fwd, mb, c;
    long k = op_at(i, w, total, &fwd);
    table((int)(k % total), pp, v, &mb, &c);
    if (!fwd) c = v - 1 - c;
    now += (fwd ? 1 : -1) * held[(long)c * pp + r];
    if (now > peak) peak = now;
  }
  return peak;
}
