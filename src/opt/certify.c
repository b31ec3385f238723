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
