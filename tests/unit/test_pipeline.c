/* test_pipeline.c — the 1F1B makespan's closed form (m >= 2 pp - 1) held to
 * the round-by-round timeline and to an explicit longest path of the
 * schedule's graph, by hand, on random stages and on the generator's shapes. */
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "model/gen.h"
#include "model/pipeline.h"

/* Longest path of the 1F1B graph, operation by operation: op[k][i] is stage
 * k's i-th operation (w_k = min(pp-1-k, m) forwards, then F/B pairs, then
 * backwards); its end = max(previous op of the stage, its input) + its
 * time, the input being the previous stage's forward of the same
 * micro-batch or the next stage's backward. Stages are swept in turn until
 * nothing changes (each sweep settles at least one more op). */
static double oracle(const double *f, const double *b, int pp, int m) {
  int n = 2 * m;
  int *isb = calloc((size_t)(pp * n), sizeof *isb), *mb = calloc((size_t)(pp * n), sizeof *mb);
  double *end = calloc((size_t)(pp * n), sizeof *end);
  int *fpos = calloc((size_t)(pp * m), sizeof *fpos), *bpos = calloc((size_t)(pp * m), sizeof *bpos);
  double T = -1.0;
  if (!isb || !mb || !end || !fpos || !bpos) goto out;
  for (int k = 0; k < pp; k++) {
    int w = pp - 1 - k < m ? pp - 1 - k : m, nf = 0, nb = 0, i = 0;
    while (nf < w) fpos[k * m + nf] = i, mb[k * n + i++] = nf++;
    while (nf < m) {
      fpos[k * m + nf] = i, mb[k * n + i++] = nf++;
      bpos[k * m + nb] = i, isb[k * n + i] = 1, mb[k * n + i++] = nb++;
    }
    while (nb < m) bpos[k * m + nb] = i, isb[k * n + i] = 1, mb[k * n + i++] = nb++;
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (int k = 0; k < pp; k++)
      for (int i = 0; i < n; i++) {
        int j = mb[k * n + i];
        double start = i > 0 ? end[k * n + i - 1] : 0.0;
        if (!isb[k * n + i] && k > 0) start = fmax(start, end[(k - 1) * n + fpos[(k - 1) * m + j]]);
        if (isb[k * n + i] && k < pp - 1) start = fmax(start, end[(k + 1) * n + bpos[(k + 1) * m + j]]);
        double e = start + (isb[k * n + i] ? b[k] : f[k]);
        if (e != end[k * n + i]) end[k * n + i] = e, changed = 1;
      }
  }
  T = end[n - 1]; /* stage 0's last backward ends last: every stage's last op feeds it */
out:
  free(isb);
  free(mb);
  free(end);
  free(fpos);
  free(bpos);
  return T;
}

static unsigned long long lcg(unsigned long long *x) {
  *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
  return *x >> 33;
}

/* By hand: equal stages (m + pp - 1)(f + b); one stage e = 1 of 3 slowest
 * with 2 pp - 1 = 5 micro-batches: 2 (stage 0's forward) + 5 x 9 + 3 + 4,
 * as docs/zoo.md's example with 4 micro-batches is 45 = 2 + 4 x 9 + 3 + 4. */
static void pl_by_hand(void) {
  static const double fu[4] = {1, 1, 1, 1}, bu[4] = {2, 2, 2, 2};
  static const double f1[3] = {2, 3, 2}, b1[3] = {4, 6, 4};
  double T = 0;
  CHECK_EQ_INT(weft_gen_1f1b_closed(fu, bu, 4, 7, &T), WEFT_OK);
  CHECK_NEAR(T, (7 + 4 - 1) * 3, 0);
  CHECK_EQ_INT(weft_gen_1f1b_closed(f1, b1, 3, 5, &T), WEFT_OK);
  CHECK_NEAR(T, 2 + 5 * 9 + 3 + 4, 0);
  CHECK_NEAR(T, oracle(f1, b1, 3, 5), 0);
  CHECK_EQ_INT(weft_gen_1f1b_closed(fu, bu, 1, 3, &T), WEFT_OK); /* one stage: m (f + b) */
  CHECK_NEAR(T, 9, 0);
  /* below 2 pp - 1 micro-batches the closed form declines; weft_gen_1f1b
   * then times the rounds */
  CHECK_EQ_INT(weft_gen_1f1b_closed(fu, bu, 4, 6, &T), WEFT_EINVAL);
  CHECK_EQ_INT(weft_gen_1f1b_closed(fu, bu, 0, 6, &T), WEFT_EINVAL);
  CHECK_EQ_INT(weft_gen_1f1b_closed(NULL, bu, 4, 7, &T), WEFT_EINVAL);
  CHECK_EQ_INT(weft_gen_1f1b(fu, bu, 4, 6, &T), WEFT_OK);
  CHECK_NEAR(T, (6 + 4 - 1) * 3, 0);
}

/* Whole-number stage times (every sum exact): closed form, rounds and the
 * oracle agree to the last bit, including forwards longer than backwards,
 * zero times and ties, from m = 2 pp - 1 on. */
static void pl_random_exact(void) {
  unsigned long long x = 2024;
  for (int it = 0; it < 1500; it++) {
    double f[12], b[12];
    int pp = 1 + (int)(lcg(&x) % 12), m = 2 * pp - 1 + (int)(lcg(&x) % 25);
    int mode = (int)(lcg(&x) % 3);
    for (int k = 0; k < pp; k++) {
      f[k] = (double)(lcg(&x) % (mode == 2 ? 100 : 10));
      b[k] = mode == 0 ? 2 * f[k] + (double)(lcg(&x) % 3) : (double)(lcg(&x) % 10);
    }
    double Tc = -1, Tr = -2;
    CHECK_EQ_INT(weft_gen_1f1b_closed(f, b, pp, m, &Tc), WEFT_OK);
    CHECK_EQ_INT(weft_gen_1f1b_rounds(f, b, pp, m, &Tr), WEFT_OK);
    CHECK_NEAR(Tc, oracle(f, b, pp, m), 0);
    CHECK_NEAR(Tc, Tr, 0);
  }
}

/* Real-valued FLOP counts (GPT-3-like magnitudes, a few distinct stages as
 * balanced layers give, and arbitrary ones): the closed form matches the
 * rounds within rounding, up to many micro-batches and past the stack's
 * 256 stages. */
static void pl_random_real(void) {
  unsigned long long x = 7;
  for (int it = 0; it < 400; it++) {
    double f[48], b[48];
    int pp = 1 + (int)(lcg(&x) % 48), m = 2 * pp - 1 + (int)(lcg(&x) % 800);
    int mode = (int)(lcg(&x) % 3);
    for (int k = 0; k < pp; k++) {
      double u = (double)lcg(&x) / 2147483648.0, v = (double)lcg(&x) / 2147483648.0;
      if (mode == 0) { /* floor/ceil layers per stage, the last with the logits */
        f[k] = (lcg(&x) % 2 ? 3.0511e13 : 1.5256e13) * (1 + 1e-3 * u);
        b[k] = 2 * f[k];
      } else if (mode == 1) {
        f[k] = 1e12 * (1 + u);
        b[k] = 2 * f[k] + 1e11 * v;
      } else {
        f[k] = 1e9 * u;
        b[k] = 1e9 * v;
      }
    }
    if (mode == 0) f[pp - 1] *= 1.33, b[pp - 1] *= 1.33;
    double Tc = -1, Tr = -2;
    CHECK_EQ_INT(weft_gen_1f1b_closed(f, b, pp, m, &Tc), WEFT_OK);
    CHECK_EQ_INT(weft_gen_1f1b_rounds(f, b, pp, m, &Tr), WEFT_OK);
    CHECK_NEAR(Tc, Tr, 1e-12);
  }
  int pp = 300; /* state on the heap */
  double *f = malloc(2 * (size_t)pp * sizeof *f), Tc = -1, Tr = -2;
  if (!f) {
    CHECK(f);
    return;
  }
  double *b = f + pp;
  for (int k = 0; k < pp; k++) f[k] = 1 + k % 7, b[k] = 2 * f[k] + k % 3;
  CHECK_EQ_INT(weft_gen_1f1b_closed(f, b, pp, 2 * pp - 1, &Tc), WEFT_OK);
  CHECK_EQ_INT(weft_gen_1f1b_rounds(f, b, pp, 2 * pp - 1, &Tr), WEFT_OK);
  CHECK_NEAR(Tc, Tr, 0);
  free(f);
}

/* The generator's shape that needs more than the simple bound: GPT-3's 96
 * layers on 64 stages (1 layer at each end, 2 in the middle 32), the last
 * stage adding the logits. The longest path starts by running every
 * stage's first forward, climbs back to the last 2-layer stage, stays
 * there, and ends through the 1-layer stages' backwards: longer than
 * max_e sum_{k<e} (f_k + b_k) + m (f_e + b_e). */
static void pl_gpt3_stages(void) {
  double f[64], b[64];
  for (int k = 0; k < 64; k++) f[k] = k >= 16 && k < 48 ? 6 : 3, b[k] = 2 * f[k];
  f[63] = 4, b[63] = 8;
  int m = 192;
  double Tc = -1, bound = 0, pre = 0;
  for (int e = 0; e < 64; e++) {
    bound = fmax(bound, pre + m * (f[e] + b[e]));
    pre += f[e] + b[e];
  }
  CHECK_EQ_INT(weft_gen_1f1b_closed(f, b, 64, m, &Tc), WEFT_OK);
  CHECK_NEAR(Tc, oracle(f, b, 64, m), 0);
  CHECK(Tc > bound);
}

const TestCase suite_pipeline[] = {
    {"pipeline/by_hand", pl_by_hand},
    {"pipeline/random_exact", pl_random_exact},
    {"pipeline/random_real", pl_random_real},
    {"pipeline/gpt3_stages", pl_gpt3_stages},
    {0, 0},
};
