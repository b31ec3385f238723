/* certify.c — certified lower bounds, below both solver paths: the exact
 * infimum of one variable's Lagrangian term over its box (general.c's
 * phase-1 and main certificates, the fast path's), and the fast path's
 * certificate from its interior-point multipliers with the objective of its
 * iterate (sep.c, sep_ipm.c). */
#include <math.h>

#include "opt/problem.h"

/* inf of q*x + pp/x over x in [lo, hi] (pp >= 0; lo >= 0; hi may be inf). */
double weft_opt_inf_term(double q, double pp, double lo, double hi) {
  if (pp > 0.0) {
    if (q > 0.0) {
      double x = sqrt(pp / q);
      if (x > hi) x = hi;
      if (x < lo) x = lo;
      return q * x + pp / x;
    }
    return isfinite(hi) ? q * hi + pp / hi : -HUGE_VAL;
  }
  if (q >= 0.0) return q * lo;
  return isfinite(hi) ? q * hi : -HUGE_VAL;
}

/* The Lagrangian with the IPM's multipliers (any lam >= 0 is valid)
 * minimised exactly over the box; rows f_k >= 0 are left to the box. */
double weft_sep_certify(Sep *s) {
  int nf = s->nf, n = s->n;
  double lb = 0.0, *q = s->r; /* scratch of n */
  for (int k = 0; k < n; k++) q[k] = 0.0;
  for (int i = 0; i < s->m; i++) {
    if (s->bound[i]) continue;
    double l = s->lam[i] > 0 ? s->lam[i] : 0.0;
    const double *mf = s->Mf + i * nf;
    lb -= l * s->h[i];
    for (int f = 0; f < nf; f++) q[f] += l * mf[f];
    if (i < s->npair) q[nf + s->cp[i]] += l * s->g[i];
  }
  for (int k = 0; k < n; k++) lb += weft_opt_inf_term(q[k], s->c[k], s->lo[k], s->hi[k]);
  return lb;
}

double weft_sep_upper(const Sep *s) {
  int nf = s->nf;
  double obj = 0.0;
  for (int f = 0; f < nf; f++) obj += s->c[f] > 0 ? s->c[f] / s->x[f] : 0.0;
  for (int k = 0; k < s->np; k++) { /* each rate as its pattern's bandwidths give it */
    double w = HUGE_VAL;
    for (int i = s->pat0[k]; i < s->pat0[k + 1]; i++) {
      double acc = s->h[i];
      for (int f = 0; f < nf; f++) acc -= s->Mf[i * nf + f] * s->x[f];
      w = acc / s->g[i] < w ? acc / s->g[i] : w;
    }
    obj += w > 0 ? s->c[nf + k] / w : HUGE_VAL;
  }
  return obj;
}

#define AT_TIGHT 1e-9  /* a row this close (relative) to its bound at the design is tight */

double weft_sep_certify_at(WeftProblem *p, const double *bw_gbps) {
  Sep *s = &p->sep;
  int nf = s->nf, n = s->n, D = s->D;
  if (!p->fast || p->pinned || p->pre_status != WEFT_STATUS_SOLVED || nf < 1) return -HUGE_VAL;
  /* The design as the free variables and rates (scaled, sep.h). */
  double u[WEFT_MAX_DIMS + 1], *x = s->r, cost = p->oc0; /* s->r: scratch of n */
  for (int d = 0; d < D; d++) {
    u[d] = bw_gbps[d] / p->bscale;
    cost += p->ocg[d] * u[d];
  }
  if (s->nb > D) { /* time x cost: y = B s, s = 1 / cost */
    if (!(cost > 0.0)) return -HUGE_VAL;
    u[D] = 1.0 / cost;
    for (int d = 0; d < D; d++) u[d] *= u[D];
  }
  for (int f = 0; f < nf; f++) x[f] = u[s->fk[f]] / s->xs[s->fk[f]];
  for (int k = 0; k < s->np; k++) { /* each rate as its pattern's rows give it */
    double w = HUGE_VAL;
    for (int i = s->pat0[k]; i < s->pat0[k + 1]; i++) {
      double acc = s->h[i];
      for (int f = 0; f < nf; f++) acc -= s->Mf[i * nf + f] * x[f];
      w = fmin(w, acc / s->g[i]);
    }
    if (!(w > 0.0) || !isfinite(w)) return -HUGE_VAL;
    x[nf + k] = w;
  }
  /* The rows tight at the design: the LP's columns (their multipliers). */
  int *act = arena_alloc(&p->arena, (size_t)s->m, sizeof *act), na = 0;
  if (!act) return -HUGE_VAL;
  for (int i = 0; i < s->m; i++) {
    if (s->bound[i]) continue; /* left to the box, as in the certificate */
    double acc = s->h[i], mag = fabs(s->h[i]);
    for (int f = 0; f < nf; f++) {
      acc -= s->Mf[i * nf + f] * x[f];
      mag += fabs(s->Mf[i * nf + f] * x[f]);
    }
    if (i < s->npair) {
      acc -= s->g[i] * x[nf + s->cp[i]];
      mag += fabs(s->g[i] * x[nf + s->cp[i]]);
    }
    if (acc < -AT_TIGHT * mag) return -HUGE_VAL; /* the design is outside: no use */
    if (acc <= AT_TIGHT * mag) act[na++] = i;
  }
  if (na == 0) return -HUGE_VAL;
  /* Stationarity: sum_j lam_j row_j = c_k / x_k^2 on each variable with an
   * objective term, 0 on the others (>= 0 where the design sits at the
   * box's lower end); lam >= 0. */
  double *A = arena_alloc(&p->arena, (size_t)n * (size_t)na, sizeof *A);
  double *rhs = arena_alloc(&p->arena, (size_t)n, sizeof *rhs);
  double *lam = arena_alloc(&p->arena, (size_t)na, sizeof *lam);
  int *rel = arena_alloc(&p->arena, (size_t)n, sizeof *rel);
  LpWork w;
  w.t = arena_alloc(&p->arena, lp_tableau_doubles(na, n), sizeof(double));
  w.basis = arena_alloc(&p->arena, (size_t)n, sizeof(int));
  if (!A || !rhs || !lam || !rel || !w.t || !w.basis) return -HUGE_VAL;
  for (int k = 0; k < n; k++) {
    for (int j = 0; j < na; j++) {
      int i = act[j];
      A[k * na + j] = k < nf ? s->Mf[i * nf + k]
                             : i < s->npair && s->cp[i] == k - nf ? s->g[i] : 0.0;
    }
    rhs[k] = s->c[k] > 0 ? s->c[k] / (x[k] * x[k]) : 0.0;
    rel[k] = s->c[k] > 0 || x[k] > s->lo[k] ? 0 : +1;
  }
  LpRows rows;
  rows.n = na;
  rows.m = n;
  rows.A = A;
  rows.b = rhs;
  rows.rel = rel;
  rows.active = NULL;
  if (lp_solve_ws(&rows, NULL, lam, NULL, &w) != LP_OPTIMAL) return -HUGE_VAL;
  for (int i = 0; i < s->m; i++) s->lam[i] = 0.0;
  for (int j = 0; j < na; j++) s->lam[act[j]] = lam[j] > 0.0 ? lam[j] : 0.0;
  double lb = (s->objconst + s->fs * weft_sep_certify(s)) * p->ofactor;
  return isfinite(lb) ? lb : -HUGE_VAL;
}
