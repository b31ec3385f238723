/* gen_pipeline.c — the exact 1F1B timeline of pipeline stages of unequal
 * work, for the transformer generator (docs/zoo.md, "Pipeline timeline"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/gen.h"
#include "model/pipeline.h"

/* Round by round. Stage k runs w_k = min(pp-1-k, m) warm-up forwards, then
 * for each micro-batch j a round: the forward of micro-batch w_k + j (while
 * there is one) and the backward of j. A forward waits for the previous
 * stage's forward of its micro-batch, a backward for the next stage's
 * backward of j (the last stage: its own forward, just before). Within round
 * j the forwards need only what the previous stage made before the round
 * (its last forward is micro-batch w_k + j: taking the stages last to first
 * reads it before it is replaced), and the backwards run last stage to first.
 * So the state is each stage's free time and last forward's end: O(pp)
 * memory, O(pp m) steps. While every stage has a forward in the round
 * (j < m - w_0) each round applies the same max-plus map x -> A x; once a
 * round moves every state entry by the same d, every later such round does
 * too (A(x + d) = Ax + d), so they are skipped in one step: in practice the
 * pipeline settles in O(pp) rounds and the cost is O(pp^2) for any m. */
#define STACK_STAGES 256 /* state of up to this many stages on the stack: no allocation */
#define STEADY_TOL 1e-12 /* a round that moves every entry by d within this (relative) is steady */

/* |a - d| within STEADY_TOL of the round's scale: the skipped rounds add d
 * exactly in max-plus arithmetic; the tolerance only absorbs rounding. */
static int moved_by(double a, double d, double scale) { return fabs(a - d) <= STEADY_TOL * scale; }

int weft_gen_1f1b_rounds(const double *f, const double *b, int pp, int m, double *makespan) {
  if (pp < 1 || m < 1 || !f || !b || !makespan) return WEFT_EINVAL;
  double stack[4 * STACK_STAGES];
  double *free_at = pp <= STACK_STAGES ? stack : calloc(4 * (size_t)pp, sizeof *free_at);
  if (!free_at) return WEFT_ENOMEM;
  if (pp <= STACK_STAGES) memset(stack, 0, 4 * (size_t)pp * sizeof *stack);
  double *last_f = free_at + pp, *prev_free = last_f + pp, *prev_f = prev_free + pp;
  int w0 = pp - 1 < m ? pp - 1 : m, steady_end = m - w0, have_prev = 0;
  for (int i = 0; i < w0; i++) /* warm-up forwards, micro-batch by micro-batch */
    for (int k = 0; k < pp && (pp - 1 - k < m ? pp - 1 - k : m) > i; k++) {
      double in = k > 0 ? last_f[k - 1] : 0.0;
      free_at[k] = last_f[k] = (in > free_at[k] ? in : free_at[k]) + f[k];
    }
  for (int j = 0; j < m; j++) {
    for (int k = pp - 1; k >= 0; k--) {
      int w = pp - 1 - k < m ? pp - 1 - k : m;
      if (w + j >= m) continue;
      double in = k > 0 ? last_f[k - 1] : 0.0;
      free_at[k] = last_f[k] = (in > free_at[k] ? in : free_at[k]) + f[k];
    }
    double next_b = 0.0;
    for (int k = pp - 1; k >= 0; k--) {
      double in = k < pp - 1 ? next_b : 0.0;
      free_at[k] = next_b = (in > free_at[k] ? in : free_at[k]) + b[k];
    }
    if (have_prev && j + 1 < steady_end) {
      double d = free_at[0] - prev_free[0], scale = free_at[0] > 0 ? free_at[0] : 1.0;
      int same = 1;
      for (int k = 0; k < pp && same; k++)
        same = moved_by(free_at[k] - prev_free[k], d, scale) &&
               moved_by(last_f[k] - prev_f[k], d, scale);
      if (same) { /* rounds j+1 .. steady_end-1 each add d */
        double n = steady_end - 1 - j;
        for (int k = 0; k < pp; k++) {
          free_at[k] += n * d;
          last_f[k] += n * d;
        }
        j = steady_end - 1;
      }
    }
    memcpy(prev_free, free_at, (size_t)pp * sizeof *free_at);
    memcpy(prev_f, last_f, (size_t)pp * sizeof *last_f);
    have_prev = 1;
  }
  double t = 0.0;
  for (int k = 0; k < pp; k++)
    if (free_at[k] > t) t = free_at[k];
  if (free_at != stack) free(free_at);
  *makespan = t;
  return WEFT_OK;
}

/* The closed form (m >= 2 pp - 1). Number each stage's 2m operations by
 * position: its w_k = pp-1-k warm-up forwards, the steady forward/backward
 * pairs, its w_k cool-down backwards. A forward's input comes from the
 * previous stage at the same position (warm-up) or one before (steady), a
 * backward's from the next stage at the same position (cool-down) or one
 * before, so a path of the schedule's graph, F(0,0) to the last backward of
 * stage 0, crosses the warm-up, then the steady ops, then the cool-down:
 * - warm-up: a staircase down to stage k' visits each stage above once and
 *   spends its other w_k' steps on the one of largest f: the path reaches
 *   the first steady op of k' (exclusive) with A(k') = SF(k') + w_k' MF(k')
 *   (SF prefix sums, MF prefix maxima of f);
 * - cool-down, the mirror: from the last steady op of k'' (exclusive) it
 *   adds Z(k'') = SB(k'') + w_k'' MB(k'');
 * - steady ops alternate F and B on each stage; a path moves down after an
 *   F, up after a B, one position a step. Counting a stage's F and B (they
 *   balance except on the stages between k' and k'', which the path must
 *   cross once) shows the best path parks on one stage e: enter e, alternate
 *   L cells there, leave. With m >= 2 pp - 1 every (k', e, k'') leaves room
 *   (L >= 2) for it, and for each e its value splits into a part in k' and
 *   one in k'': L = 2(m-pp+1) + alpha(k') + beta(k''), alpha = 2k' - e (k'
 *   <= e, arriving on an F) or e - 1 (k' > e: turn, climb, arrive on a B),
 *   beta alike; L cells from an F to a B hold L/2 (f_e + b_e), F to F one
 *   f_e - b_e over half more: +-(f_e - b_e)/4 at each end.
 * tests/unit/test_pipeline.c holds it to the rounds and a brute force. */
/* max over k <= e of (pp-1-k) M(k) + k c, M the prefix maxima, given the
 * stages where M rises (run[0] = 0, run[n] = pp): linear in k while M is
 * constant, so only each run's ends count. */
static inline double prefix_line_max(const double *M, const int *run, int nrun, int pp, int e, double c) {
  double q = -HUGE_VAL;
  for (int r = 0; r < nrun && run[r] <= e; r++) {
    int lo = run[r], hi = run[r + 1] - 1 < e ? run[r + 1] - 1 : e;
    double a = (pp - 1 - lo) * M[lo] + lo * c, z = (pp - 1 - hi) * M[lo] + hi * c;
    if (a > q) q = a;
    if (z > q) q = z;
  }
  return q;
}

int weft_gen_1f1b_closed(const double *f, const double *b, int pp, int m, double *makespan) {
  if (pp < 1 || m < 1 || !f || !b || !makespan || (long)m < 2L * pp - 1) return WEFT_EINVAL;
  double stack[6 * STACK_STAGES + 4];
  int istack[2 * STACK_STAGES + 2];
  int small = pp <= STACK_STAGES;
  double *sf = small ? stack : malloc((6 * (size_t)pp + 4) * sizeof *sf);
  int *run_f = small ? istack : malloc((2 * (size_t)pp + 2) * sizeof *run_f);
  if (!sf || !run_f) {
    if (!small) {
      free(sf);
      free(run_f);
    }
    return WEFT_ENOMEM;
  }
  double *sb = sf + pp + 1, *mf = sb + pp + 1, *mb = mf + pp, *suf_a = mb + pp;
  double *suf_z = suf_a + pp + 1;
  int *run_b = run_f + pp + 1, nf = 0, nb = 0;
  double acc_f = 0.0, acc_b = 0.0, max_f = f[0], max_b = b[0]; /* locals: no reloads */
  sf[0] = sb[0] = 0.0;
  for (int k = 0; k < pp; k++) {
    sf[k + 1] = acc_f += f[k];
    sb[k + 1] = acc_b += b[k];
    if (k == 0 || f[k] > max_f) run_f[nf++] = k;
    if (k == 0 || b[k] > max_b) run_b[nb++] = k;
    mf[k] = max_f = max_f > f[k] ? max_f : f[k];
    mb[k] = max_b = max_b > b[k] ? max_b : b[k];
  }
  run_f[nf] = run_b[nb] = pp;
  /* k' > e: A(k') + f_k' (its first steady F) + the climb's backwards
   * b_e+1..b_k' (its turn included) = this - SB(e+1); k'' > e mirrored */
  double best_a = -HUGE_VAL, best_z = -HUGE_VAL;
  suf_a[pp] = suf_z[pp] = -HUGE_VAL;
  for (int k = pp - 1; k >= 0; k--) {
    double a = sf[k] + (pp - 1 - k) * mf[k] + f[k] + sb[k + 1];
    double z = sb[k] + (pp - 1 - k) * mb[k] + b[k] + sf[k + 1];
    suf_a[k] = best_a = a > best_a ? a : best_a;
    suf_z[k] = best_z = z > best_z ? z : best_z;
  }
  double half_l = (double)m - pp + 1, best = -HUGE_VAL;
  for (int e = 0; e < pp; e++) {
    double c = f[e] + b[e], x = (f[e] - b[e]) / 4;
    /* k' <= e: A(k') + f_k'..f_e-1 (down to e) + alpha/2 c = SF(e) + these */
    double g = sf[e] - e / 2.0 * c + x + prefix_line_max(mf, run_f, nf, pp, e, c);
    double h = sb[e] - e / 2.0 * c - x + prefix_line_max(mb, run_b, nb, pp, e, c);
    if (e + 1 < pp) {
      double g2 = (e - 1) / 2.0 * c - x + suf_a[e + 1] - sb[e + 1];
      double h2 = (e - 1) / 2.0 * c + x + suf_z[e + 1] - sf[e + 1];
      if (g2 > g) g = g2;
      if (h2 > h) h = h2;
    }
    double v = half_l * c + (g + h);
    if (v > best) best = v;
  }
  if (!small) {
    free(sf);
    free(run_f);
  }
  *makespan = best;
  return WEFT_OK;
}

int weft_gen_1f1b(const double *f, const double *b, int pp, int m, double *makespan) {
  if (pp >= 1 && (long)m >= 2L * pp - 1) return weft_gen_1f1b_closed(f, b, pp, m, makespan);
  return weft_gen_1f1b_rounds(f, b, pp, m, makespan);
}
