/* pinned.c — a design the constraints' equalities fix on their own: when
 * they have rank D the feasible set is at most one point, solved for here
 * in natural units (LU with partial pivoting, residuals refined in
 * double-double), not left to the interior point, whose feasibility
 * tolerance can exceed a dim pinned near 0 ('sum = 1000' with
 * 'B2 - B1 = 999.9999999' leaves B1 = 5e-8 of a scale of 1000). */
#include <math.h>
#include <string.h>

#include "opt/problem.h"

#define PIN_DEP 1e-10   /* a row this close to the span of the kept ones is dependent (as reduce_equalities) */
#define PIN_REFINE 3    /* refinement steps: each gains ~16 digits while the residual is exact */

/* D independent equality rows (indices into Geq) by Gram-Schmidt on the
 * scaled rows; returns how many were found (D means the point is fixed). */
static int independent_rows(const WeftProblem *p, int *idx) {
  int D = p->D, kept = 0;
  double basis[WEFT_MAX_DIMS][WEFT_MAX_DIMS];
  for (int i = 0; i < p->neq && kept < D; i++) {
    double v[WEFT_MAX_DIMS], n0 = 0.0, nrm = 0.0;
    memcpy(v, p->Geq + (size_t)i * (size_t)D, (size_t)D * sizeof *v);
    for (int d = 0; d < D; d++) n0 += v[d] * v[d];
    for (int k = 0; k < kept; k++) {
      double dot = 0.0;
      for (int d = 0; d < D; d++) dot += v[d] * basis[k][d];
      for (int d = 0; d < D; d++) v[d] -= dot * basis[k][d];
    }
    for (int d = 0; d < D; d++) nrm += v[d] * v[d];
    if (!(nrm > PIN_DEP * PIN_DEP * n0)) continue;
    nrm = sqrt(nrm);
    for (int d = 0; d < D; d++) basis[kept][d] = v[d] / nrm;
    idx[kept++] = i;
  }
  return kept;
}

/* LU of the D x D matrix a in place, row order in perm; 0, or -1 when singular. */
static int lu(double *a, int D, int *perm) {
  for (int i = 0; i < D; i++) perm[i] = i;
  for (int k = 0; k < D; k++) {
    int r = k;
    for (int i = k + 1; i < D; i++)
      if (fabs(a[i * D + k]) > fabs(a[r * D + k])) r = i;
    if (!(fabs(a[r * D + k]) > 0.0)) return -1;
    if (r != k) {
      for (int j = 0; j < D; j++) { double t = a[k * D + j]; a[k * D + j] = a[r * D + j]; a[r * D + j] = t; }
      int t = perm[k]; perm[k] = perm[r]; perm[r] = t;
    }
    for (int i = k + 1; i < D; i++) {
      double f = a[i * D + k] /= a[k * D + k];
      for (int j = k + 1; j < D; j++) a[i * D + j] -= f * a[k * D + j];
    }
  }
  return 0;
}

/* x = A^-1 b from the LU (b in original row order). */
static void lu_solve(const double *a, int D, const int *perm, const double *b, double *x) {
  for (int i = 0; i < D; i++) {
    double acc = b[perm[i]];
    for (int j = 0; j < i; j++) acc -= a[i * D + j] * x[j];
    x[i] = acc;
  }
  for (int i = D - 1; i >= 0; i--) {
    double acc = x[i];
    for (int j = i + 1; j < D; j++) acc -= a[i * D + j] * x[j];
    x[i] = acc / a[i * D + i];
  }
}

/* b - a.x in double-double (TwoProduct by fma, TwoSum), rounded once. */
static double residual(const double *a, const double *x, double b, int D) {
  double hi = b, lo = 0.0;
  for (int d = 0; d < D; d++) {
    double p = -a[d] * x[d], e = fma(-a[d], x[d], -p); /* p + e = -a x exactly */
    double s = hi + p, bb = s - hi, t = (hi - (s - bb)) + (p - bb); /* s + t = hi + p */
    hi = s;
    lo += t + e;
  }
  return hi + lo;
}

int weft_pinned_point(const WeftProblem *p, double *bw) {
  int D = p->D, idx[WEFT_MAX_DIMS], perm[WEFT_MAX_DIMS];
  if (p->neq < D || independent_rows(p, idx) < D) return 0;
  double A[WEFT_MAX_DIMS * WEFT_MAX_DIMS] = {0}, LU[WEFT_MAX_DIMS * WEFT_MAX_DIMS];
  double b[WEFT_MAX_DIMS] = {0}, x[WEFT_MAX_DIMS], r[WEFT_MAX_DIMS] = {0}, dx[WEFT_MAX_DIMS];
  for (int i = 0; i < D; i++) { /* the constraints as given: GB/s and $ */
    const WeftConstraint *c = &p->cons[p->eq_src[idx[i]]];
    for (int d = 0; d < D; d++) A[i * D + d] = c->coef[d] + c->cost_coef * p->cpg_nat[d];
    b[i] = c->rhs;
  }
  memcpy(LU, A, sizeof LU);
  if (lu(LU, D, perm)) return 0;
  lu_solve(LU, D, perm, b, x);
  for (int it = 0; it < PIN_REFINE; it++) {
    for (int i = 0; i < D; i++) r[i] = residual(A + i * D, x, b[i], D);
    lu_solve(LU, D, perm, r, dx);
    for (int d = 0; d < D; d++) x[d] += dx[d];
  }
  /* Every constraint (the dependent and the inequality ones too) and B >= 0
   * at the point, then at it with tiny negatives set to 0 (the design
   * reported); else the pre-checks find the conflict and name it. */
  for (int d = 0; d < D; d++) bw[d] = x[d] / p->bscale;
  if (!(weft_problem_violation(p, bw, NULL) <= WEFT_VERIFY_TOL)) return 0;
  for (int d = 0; d < D; d++) {
    bw[d] = fmax(0.0, bw[d]);
    if (p->used[d] && !(bw[d] > 0.0)) return 0; /* forced to 0: the pre-checks say so */
  }
  return weft_problem_violation(p, bw, NULL) <= WEFT_VERIFY_TOL;
}
