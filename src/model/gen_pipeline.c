/* gen_pipeline.c — pipeline stages for the transformer generator: the layers
 * of each stage and the exact 1F1B timeline of stages of unequal work. */
#include <stdlib.h>

#include "model/gen.h"

/* Stage k's op j of the 1F1B order (Narayanan et al. 2021): w = min(pp-1-k, m)
 * warm-up forwards, then forward/backward pairs, then the cool-down
 * backwards. *is_b = 1 for a backward; returns the micro-batch. */
static int op_of(int k, int pp, int m, int j, int *is_b) {
  int w = pp - 1 - k < m ? pp - 1 - k : m, np = m - w;
  if (j < w) {
    *is_b = 0;
    return j;
  }
  int r = j - w;
  if (r < 2 * np) {
    *is_b = r & 1;
    return *is_b ? r / 2 : w + r / 2;
  }
  *is_b = 1;
  return np + (r - 2 * np);
}

/* The timeline is the longest path of the schedule's DAG: an op starts when
 * its stage is free and its input is there (a forward: the previous stage's
 * forward of the micro-batch; a backward: the next stage's backward, the
 * last stage's own forward). Stages are advanced from a work list, each as
 * far as its inputs allow, so every op is visited once: O(pp m) time. A
 * stage's outputs wait in a ring until the neighbour takes them; in 1F1B at
 * most pp - k + 1 of stage k's are waiting (the warm-up forwards, the
 * cool-down backwards), so a ring of min(m, pp - k + 2) suffices: memory
 * O(pp^2) at most, O(pp) for m small. A ring slot overwritten before it was
 * read would be a bug in that bound: WEFT_EINVAL, never a wrong number. */
int weft_gen_1f1b(const double *f, const double *b, int pp, int m, double *makespan) {
  if (pp < 1 || m < 1 || !f || !b || !makespan) return WEFT_EINVAL;
  size_t total = 0;
  for (int k = 0; k < pp; k++) total += (size_t)(m < pp - k + 2 ? m : pp - k + 2);
  /* one block: doubles (free_at[pp], fval, bval[total]), size_t (off, cap[pp]),
   * ints (next, nf, nb, stack[pp], fidx, bidx[total]), chars (queued[pp]) */
  size_t per_stage = sizeof(double) + 2 * sizeof(size_t) + 4 * sizeof(int) + 1;
  size_t bytes = (size_t)pp * per_stage + total * 2 * (sizeof(double) + sizeof(int));
  char *mem = calloc(1, bytes);
  if (!mem) return WEFT_ENOMEM;
  double *free_at = (double *)(void *)mem;
  double *fval = free_at + pp, *bval = fval + total;
  size_t *off = (size_t *)(void *)(bval + total);
  size_t *cap = off + pp;
  int *next = (int *)(void *)(cap + pp);
  int *nf = next + pp, *nb = nf + pp; /* forwards, backwards done per stage */
  int *stack = nb + pp;
  int *fidx = stack + pp, *bidx = fidx + total;
  char *queued = (char *)(bidx + total);
  size_t o = 0;
  int top = 0, rc = WEFT_OK;
  for (int k = 0; k < pp; k++) {
    off[k] = o;
    cap[k] = (size_t)(m < pp - k + 2 ? m : pp - k + 2);
    o += cap[k];
  }
  for (size_t i = 0; i < total; i++) fidx[i] = bidx[i] = -1;
  for (int k = pp - 1; k >= 0; k--) {
    stack[top++] = k;
    queued[k] = 1;
  }
  while (top > 0 && rc == WEFT_OK) {
    int k = stack[--top];
    queued[k] = 0;
    while (next[k] < 2 * m) {
      int is_b, i = op_of(k, pp, m, next[k], &is_b);
      double ready = 0.0;
      if (!is_b && k > 0) { /* the previous stage's forward of micro-batch i */
        size_t s = off[k - 1] + (size_t)i % cap[k - 1];
        if (fidx[s] != i) {
          if (fidx[s] > i) rc = WEFT_EINVAL;
          break;
        }
        ready = fval[s];
      } else if (is_b && k < pp - 1) { /* the next stage's backward */
        size_t s = off[k + 1] + (size_t)i % cap[k + 1];
        if (bidx[s] != i) {
          if (bidx[s] > i) rc = WEFT_EINVAL;
          break;
        }
        ready = bval[s];
      }
      double end = (ready > free_at[k] ? ready : free_at[k]) + (is_b ? b[k] : f[k]);
      free_at[k] = end;
      next[k]++;
      int to = -1;
      if (!is_b) {
        nf[k]++;
        if (k < pp - 1) { /* the slot's last reader (micro-batch i - cap) must be done */
          size_t s = off[k] + (size_t)i % cap[k];
          if (fidx[s] >= 0 && nf[k + 1] <= fidx[s]) rc = WEFT_EINVAL;
          fidx[s] = i;
          fval[s] = end;
          to = k + 1;
        }
      } else {
        nb[k]++;
        if (k > 0) {
          size_t s = off[k] + (size_t)i % cap[k];
          if (bidx[s] >= 0 && nb[k - 1] <= bidx[s]) rc = WEFT_EINVAL;
          bidx[s] = i;
          bval[s] = end;
          to = k - 1;
        }
      }
      if (rc) break;
      if (to >= 0 && !queued[to]) {
        stack[top++] = to;
        queued[to] = 1;
      }
    }
  }
  double t = 0.0;
  for (int k = 0; k < pp && rc == WEFT_OK; k++) {
    if (next[k] != 2 * m) rc = WEFT_EINVAL; /* a stage never finished: not a valid schedule */
    if (free_at[k] > t) t = free_at[k];
  }
  free(mem);
  if (rc == WEFT_OK) *makespan = t;
  return rc;
}
