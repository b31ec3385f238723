/* lp.c — dense two-phase tableau simplex for the small LPs of the linear
 * side (feasibility, bounds, starts, the tie-break): a row whose slack can
 * start basic gets no artificial; Dantzig's rule, Bland's after many pivots.
 * Rows and columns are equilibrated first, so the tolerances hold whatever
 * the units of each variable ($ per GB/s spanning 1e-6..1e12). */
#include "opt/lp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Pivot tolerance and phase-1 feasibility tolerance, relative to the
 * equilibrated tableau (every row and column scaled to max |a_ij| ~ 1). */
#define LP_PIVOT_TOL 1e-11
#define LP_FEAS_TOL 1e-9
#define LP_MAX_PIVOTS 10000
#define LP_DANTZIG_PIVOTS 64  /* then Bland's rule, which cannot cycle */
#define LP_NZ_MAX 512         /* pivot rows this wide are walked densely */
#define LP_REFRESH 4          /* phase-2 runs from a freshly computed objective row */
#define LP_REFRESH_SPAN 1e4   /* costs spanning less round below the pivot tolerance: one run */

typedef struct {
  int m, ncol; /* ncol excludes the rhs column */
  double *t;   /* (m + 1) x (ncol + 1): rows, then the objective row */
  int *basis;  /* m */
} Tab;

#define T(tb, i, j) ((tb)->t[(size_t)(i) * (size_t)((tb)->ncol + 1) + (size_t)(j)])

static void pivot(Tab *tb, int r, int col) {
  int w = tb->ncol + 1, nz[LP_NZ_MAX], nnz = 0;
  double *pr = &T(tb, r, 0), pv = pr[col];
  for (int j = 0; j < w; j++) {
    if (pr[j] == 0.0) continue;
    pr[j] /= pv;
    if (nnz < LP_NZ_MAX) nz[nnz] = j;
    nnz++;
  }
  for (int i = 0; i <= tb->m; i++) {
    if (i == r) continue;
    double *ri = &T(tb, i, 0), f = ri[col];
    if (f == 0.0) continue;
    if (nnz <= LP_NZ_MAX)
      for (int k = 0; k < nnz; k++) ri[nz[k]] -= f * pr[nz[k]];
    else
      for (int j = 0; j < w; j++) ri[j] -= f * pr[j];
    ri[col] = 0.0; /* exactly */
  }
  tb->basis[r] = col;
}

/* Minimise the objective row over columns < allowed: Dantzig's rule (most
 * negative reduced cost), then Bland's; ratio ties go to the smallest
 * basic index. *npiv (may be NULL) gets the pivots made. */
static LpStatus run(Tab *tb, int allowed, int *npiv) {
  if (npiv) *npiv = 0;
  for (int it = 0; it < LP_MAX_PIVOTS; it++) {
    int col = -1;
    const double *obj = &T(tb, tb->m, 0);
    if (it < LP_DANTZIG_PIVOTS) {
      double best = -LP_PIVOT_TOL;
      for (int j = 0; j < allowed; j++)
        if (obj[j] < best) { best = obj[j]; col = j; }
    } else {
      for (int j = 0; j < allowed; j++)
        if (obj[j] < -LP_PIVOT_TOL) { col = j; break; }
    }
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
    if (npiv) (*npiv)++;
  }
  return LP_UNBOUNDED; /* cycling guard; Bland's rule should not get here */
}

/* The objective row for costs c (c_j cs_j per scaled column) in terms of
 * the current basis, computed afresh. Updated pivot by pivot it carries the
 * cancellations of expensive basic columns: with prices 1e17 apart, a
 * column's reduced cost of 0.04 next to 4e15 is rounded away, which can
 * hide a better column and loses the optimum's own value. */
static void objective_row(Tab *tb, const double *c, const double *cs, int n) {
  double *o = &T(tb, tb->m, 0);
  for (int j = 0; j <= tb->ncol; j++) o[j] = j < n ? c[j] * cs[j] : 0.0;
  for (int i = 0; i < tb->m; i++) {
    int bj = tb->basis[i];
    if (bj >= n || c[bj] == 0.0) continue;
    double f = c[bj] * cs[bj];
    const double *ri = &T(tb, i, 0);
    for (int j = 0; j <= tb->ncol; j++) o[j] -= f * ri[j];
    o[bj] = 0.0; /* exactly */
  }
}

size_t lp_tableau_doubles(int n, int m) {
  /* structural, slack, artificial, rhs; then the column scales */
  return (size_t)(m + 1) * (size_t)(n + 2 * m + 1) + (size_t)n;
}

/* A power of two bringing v > 0 into [0.5, 1] (1 when it is there already,
 * the common case, without a call): scaling by it is exact. */
static double pow2_inv(double v) {
  if (v >= 0.5 && v <= 1.0) return 1.0;
  int e;
  frexp(v, &e); /* v = f * 2^e, f in [0.5, 1) */
  return ldexp(1.0, -e);
}

/* Equilibrate the structural columns of the m rows (x_j = cs_j x'_j, each
 * column's largest entry brought to [0.5, 1]), then the rows again (with
 * their rhs; slack and artificial entries stay +-1, those variables are
 * rescaled with the row). A column whose entries are all far below its row
 * peers (a dim priced 1e-11 of another in a cost row) then pivots like any
 * other: the pivot tolerance no longer reads its entries as zeros. Powers
 * of two: the scaling itself is exact. */
static void equilibrate(Tab *tb, int n, double *cs) {
  int scaled = 0;
  for (int j = 0; j < n; j++) cs[j] = 0.0;
  for (int i = 0; i < tb->m; i++) { /* column maxima, row by row (the tableau is row-major) */
    const double *row = &T(tb, i, 0);
    for (int j = 0; j < n; j++) {
      double a = fabs(row[j]);
      cs[j] = a > cs[j] ? a : cs[j];
    }
  }
  for (int j = 0; j < n; j++) {
    cs[j] = cs[j] > 0.0 ? pow2_inv(cs[j]) : 1.0;
    scaled |= cs[j] != 1.0;
  }
  if (!scaled) return; /* rows are already at max |a| = 1 */
  for (int i = 0; i < tb->m; i++) {
    double *row = &T(tb, i, 0), mx = 0.0;
    for (int j = 0; j < n; j++) {
      row[j] *= cs[j];
      double a = fabs(row[j]);
      mx = a > mx ? a : mx;
    }
    if (!(mx > 0.0)) continue;
    double f = pow2_inv(mx);
    if (f == 1.0) continue;
    for (int j = 0; j < n; j++) row[j] *= f;
    row[tb->ncol] *= f;
  }
}

static int active_rows(const LpRows *rows) {
  int m = 0;
  for (int i = 0; i < rows->m; i++) m += !rows->active || rows->active[i];
  return m;
}

LpStatus lp_solve(const LpRows *rows, const double *c, double *x, double *obj) {
  int m = active_rows(rows);
  LpWork w;
  w.t = malloc(lp_tableau_doubles(rows->n, m) * sizeof(double));
  w.basis = malloc((size_t)(m > 0 ? m : 1) * sizeof(int));
  LpStatus st = w.t && w.basis ? lp_solve_ws(rows, c, x, obj, &w) : LP_NOMEM;
  free(w.t);
  free(w.basis);
  return st;
}

/* Sign making row i's rhs >= 0 and, when the rhs is 0, its slack +1; *basic
 * says whether the slack can start basic (no artificial needed). */
static double row_sign(const LpRows *rows, int i, int *basic) {
  double b = rows->b[i], sign = b < 0 ? -1.0 : 1.0;
  int rel = rows->rel[i];
  if (rel != 0 && b == 0.0) sign = rel < 0 ? 1.0 : -1.0;
  *basic = rel != 0 && sign * (rel < 0 ? 1.0 : -1.0) > 0.0;
  return sign;
}

LpStatus lp_solve_ws(const LpRows *rows, const double *c, double *x, double *obj, LpWork *w) {
  int n = rows->n, m = 0, nslack = 0, nart = 0;
  for (int i = 0; i < rows->m; i++) {
    if (rows->active && !rows->active[i]) continue;
    int basic;
    row_sign(rows, i, &basic);
    m++;
    nslack += rows->rel[i] != 0;
    nart += !basic;
  }
  Tab tb;
  tb.m = m;
  tb.ncol = n + nslack + nart; /* structural, slack, artificial */
  tb.t = w->t;
  tb.basis = w->basis;
  memset(tb.t, 0, (size_t)(m + 1) * (size_t)(tb.ncol + 1) * sizeof(double));
  int r = 0, sl = n, art = n + nslack;
  double *cs = w->t + (size_t)(m + 1) * (size_t)(tb.ncol + 1); /* column scales */
  for (int i = 0; i < rows->m; i++) {
    if (rows->active && !rows->active[i]) continue;
    const double *a = rows->A + (size_t)i * (size_t)n;
    double scale = 0.0;
    for (int j = 0; j < n; j++) scale = fmax(scale, fabs(a[j]));
    if (scale == 0.0) scale = 1.0;
    int basic;
    double sign = row_sign(rows, i, &basic), *row = &T(&tb, r, 0);
    for (int j = 0; j < n; j++) row[j] = sign * a[j] / scale;
    row[tb.ncol] = sign * rows->b[i] / scale;
    if (rows->rel[i] != 0) row[sl] = sign * (rows->rel[i] < 0 ? 1.0 : -1.0);
    if (basic) {
      tb.basis[r] = sl;
    } else {
      row[art] = 1.0;
      tb.basis[r] = art++;
    }
    sl += rows->rel[i] != 0;
    r++;
  }
  equilibrate(&tb, n, cs);
  double bsum = 0.0; /* phase-1 tolerance is relative to the rhs */
  for (int i = 0; i < m; i++) {
    const double *row = &T(&tb, i, 0);
    bsum += row[tb.ncol];
    if (tb.basis[i] < n + nslack) continue;
    double *o = &T(&tb, m, 0); /* phase 1 minimises the artificials: objective row -= the row */
    for (int j = 0; j < n + nslack; j++) o[j] -= row[j];
    o[tb.ncol] -= row[tb.ncol];
  }
  LpStatus st = nart ? run(&tb, n + nslack, NULL) : LP_OPTIMAL;
  if (st == LP_OPTIMAL && -T(&tb, m, tb.ncol) > LP_FEAS_TOL * fmax(1.0, bsum)) st = LP_INFEASIBLE;
  if (st == LP_UNBOUNDED) st = LP_INFEASIBLE; /* cannot happen in phase 1 */
  if (st != LP_OPTIMAL) return st;
  /* Drive zero-level artificials out of the basis where possible. */
  for (int i = 0; i < m && nart; i++) {
    if (tb.basis[i] < n + nslack) continue;
    for (int j = 0; j < n + nslack; j++)
      if (fabs(T(&tb, i, j)) > LP_PIVOT_TOL) { pivot(&tb, i, j); break; }
  }
  /* Phase 2: the real objective, in terms of the current basis; when the
   * costs span more than LP_REFRESH_SPAN, at the optimum its row is
   * computed afresh and the run goes on while that shows a better column
   * (LP_REFRESH times at most). */
  double *o = &T(&tb, m, 0);
  for (int j = 0; j <= tb.ncol; j++) o[j] = 0.0;
  double cmax = 0.0, cmin = HUGE_VAL;
  for (int j = 0; c && j < n; j++) {
    double a = fabs(c[j] * cs[j]);
    if (a == 0.0) continue;
    cmax = a > cmax ? a : cmax;
    cmin = a < cmin ? a : cmin;
  }
  int refresh = cmax > LP_REFRESH_SPAN * cmin ? LP_REFRESH : 1;
  for (int k = 0, piv = 1; c && st == LP_OPTIMAL && piv > 0 && k < refresh; k++) {
    objective_row(&tb, c, cs, n);
    st = run(&tb, n + nslack, &piv);
  }
  if (st == LP_OPTIMAL) {
    if (x) {
      memset(x, 0, (size_t)n * sizeof *x);
      for (int i = 0; i < m; i++)
        if (tb.basis[i] < n) x[tb.basis[i]] = T(&tb, i, tb.ncol) * cs[tb.basis[i]];
    }
    if (obj) *obj = -T(&tb, m, tb.ncol);
  }
  return st;
}
