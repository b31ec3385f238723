/* gen_pipeline.c — the exact 1F1B timeline of pipeline stages of unequal
 * work, for the transformer generator (docs/zoo.md, "Pipeline timeline"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/gen.h"

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

int weft_gen_1f1b(const double *f, const double *b, int pp, int m, double *makespan) {
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
