/* lp.c — dense two-phase tableau simplex with Bland's rule.
 * Sizes are tiny (dims x user constraints), so clarity beats speed here. */
#include "opt/lp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Pivot tolerance and phase-1 feasibility tolerance, relative to the
 * row-normalised tableau (every row scaled to max |a_ij| = 1). */
#define LP_PIVOT_TOL 1e-11
#define LP_FEAS_TOL 1e-9
#define LP_MAX_PIVOTS 10000

typedef struct {
  int m, ncol; /* ncol excludes the rhs column */
  double *t;   /* (m + 1) x (ncol + 1): rows, then the objective row */
  int *basis;  /* m */
} Tab;

#define T(tb, i, j) ((tb)->t[(size_t)(i) * (size_t)((tb)->ncol + 1) + (size_t)(j)])

static void pivot(Tab *tb, int r, int col) {
  int w = tb->ncol + 1;
  double pv = T(tb, r, col);
  for (int j = 0; j < w; j++) T(tb, r, j) /= pv;
  for (int i = 0; i <= tb->m; i++) {
    if (i == r) continue;
    double f = T(tb, i, col);
    if (f == 0.0) continue;
    for (int j = 0; j < w; j++) T(tb, i, j) -= f * T(tb, r, j);
  }
  tb->basis[r] = col;
}

/* Minimise the objective row over columns < allowed; Bland's rule. */
static LpStatus run(Tab *tb, int allowed) {
  for (int it = 0; it < LP_MAX_PIVOTS; it++) {
    int col = -1;
    for (int j = 0; j < allowed; j++)
      if (T(tb, tb->m, j) < -LP_PIVOT_TOL) { col = j; break; }
    if (col < 0) return LP_OPTIMAL;
    int r = -1;
    double best = 0.0;
    for (int i = 0; i < tb->m; i++) {
      double a = T(tb, i, col);
      if (a <= LP_PIVOT_TOL) continue;
      double ratio = T(tb, i, tb->ncol) / a;
      if (r < 0 || ratio < best - 1e-14 || (fabs(ratio - best) <= 1e-14 && tb->basis[i] < tb->basis[r])) {
        r = i;
        best = ratio;
      }
    }
    if (r < 0) return LP_UNBOUNDED;
    pivot(tb, r, col);
  }
  return LP_UNBOUNDED; /* cycling guard; Bland's rule should not get here */
}

LpStatus lp_solve(const LpRows *rows, const double *c, double *x, double *obj) {
  int n = rows->n, m = 0, nslack = 0;
  for (int i = 0; i < rows->m; i++) {
    if (rows->active && !rows->active[i]) continue;
    m++;
    if (rows->rel[i] != 0) nslack++;
  }
  Tab tb;
  tb.m = m;
  tb.ncol = n + nslack + m; /* structural, slack, artificial */
  tb.t = calloc((size_t)(m + 1) * (size_t)(tb.ncol + 1), sizeof(double));
  tb.basis = calloc((size_t)(m > 0 ? m : 1), sizeof(int));
  if (!tb.t || !tb.basis) {
    free(tb.t);
    free(tb.basis);
    return LP_NOMEM;
  }
  int r = 0, sl = n;
  for (int i = 0; i < rows->m; i++) {
    if (rows->active && !rows->active[i]) continue;
    const double *a = rows->A + (size_t)i * (size_t)n;
    double scale = 0.0;
    for (int j = 0; j < n; j++) scale = fmax(scale, fabs(a[j]));
    if (scale == 0.0) scale = 1.0;
    double sign = rows->b[i] < 0 ? -1.0 : 1.0; /* keep rhs >= 0 */
    for (int j = 0; j < n; j++) T(&tb, r, j) = sign * a[j] / scale;
    if (rows->rel[i] != 0) T(&tb, r, sl++) = sign * (rows->rel[i] < 0 ? 1.0 : -1.0);
    T(&tb, r, n + nslack + r) = 1.0;
    T(&tb, r, tb.ncol) = sign * rows->b[i] / scale;
    tb.basis[r] = n + nslack + r;
    r++;
  }
  double bsum = 0.0; /* phase-1 tolerance is relative to the rhs */
  for (int i = 0; i < m; i++) bsum += T(&tb, i, tb.ncol);
  /* Phase 1: minimise the sum of artificials (objective row = -sum of rows). */
  for (int i = 0; i < m; i++)
    for (int j = 0; j <= tb.ncol; j++)
      if (j < n + nslack || j == tb.ncol) T(&tb, m, j) -= T(&tb, i, j);
  LpStatus st = run(&tb, n + nslack);
  if (st == LP_OPTIMAL && -T(&tb, m, tb.ncol) > LP_FEAS_TOL * fmax(1.0, bsum)) st = LP_INFEASIBLE;
  if (st == LP_UNBOUNDED) st = LP_INFEASIBLE; /* cannot happen in phase 1 */
  if (st == LP_OPTIMAL) {
    /* Drive zero-level artificials out of the basis where possible. */
    for (int i = 0; i < m; i++) {
      if (tb.basis[i] < n + nslack) continue;
      for (int j = 0; j < n + nslack; j++)
        if (fabs(T(&tb, i, j)) > LP_PIVOT_TOL) { pivot(&tb, i, j); break; }
    }
    /* Phase 2: the real objective, in terms of the current basis. */
    for (int j = 0; j <= tb.ncol; j++) T(&tb, m, j) = 0.0;
    if (c) {
      for (int j = 0; j < n; j++) T(&tb, m, j) = c[j];
      for (int i = 0; i < m; i++) {
        int bj = tb.basis[i];
        if (bj < n && c[bj] != 0.0) {
          double f = c[bj];
          for (int j = 0; j <= tb.ncol; j++) T(&tb, m, j) -= f * T(&tb, i, j);
        }
      }
      st = run(&tb, n + nslack);
    }
    if (st == LP_OPTIMAL) {
      if (x) {
        memset(x, 0, (size_t)n * sizeof *x);
        for (int i = 0; i < m; i++)
          if (tb.basis[i] < n) x[tb.basis[i]] = T(&tb, i, tb.ncol);
      }
      if (obj) *obj = -T(&tb, m, tb.ncol);
    }
  }
  free(tb.t);
  free(tb.basis);
  return st;
}
