/* sep.h — internal: the fast path. When every job has one time row, the
 * problem in rates w_p = 1/tau_p is separable and linearly constrained:
 *   minimise objconst + sum_k c_k / x_k   subject to   M x <= h,  A x = b,
 * x = (B | w) for perf, (y = s*B, s = 1/cost | w) for perf-per-cost, the
 * pattern bound u_pd/B_d <= tau_p becoming the linear row u_pd w_p <= B_d.
 * The equalities are solved for some bandwidth unknowns once, at build
 * time; the interior-point method then runs on the nf free ones and the
 * rates, with inequality rows only. With a constant cost (c0 > 0) the cost
 * row c0 s + g.y = 1 is not among them but the row c0 s + g.y <= 1, tight
 * at the optimum: solving it for s would leave 1/s not separable, and for
 * a y_d amplify s's error by c0 s / g.y (1e6 when c0 dominates). */
#ifndef WEFT_SEP_H
#define WEFT_SEP_H

#include "weft.h"

/* A function compiled into each caller, for the small nf the fast path's
 * loops run to (sep.c's rows, sep_ipm.c's method): with nf a constant the
 * loops unroll; the same operations in the same order, so the same bits. */
#if defined(__GNUC__)
#define SEP_INLINE static inline __attribute__((always_inline))
#else
#define SEP_INLINE static inline
#endif

/* Everything below is scaled (variables by xs, rows to max |coef| 1, the
 * objective by fs) except objconst. The nb bandwidth unknowns (the D
 * bandwidths, then s) are u_k = e0[k] + E[k].f over the nf free ones f;
 * the method's variables are x = (f | w), n = nf + np. */
typedef struct {
  int D, nb, np, nf, n;  /* bandwidths, bandwidth unknowns, rates, free ones, all */
  int is;                /* s's index in x when free (perf-per-cost), else -1 */
  int npair, m;          /* coupling rows (first), all rows */
  double objconst, fs;   /* natural objective = objconst + fs * scaled */
  double *xs;            /* nb + np: natural value = scaled value * xs */
  double *e0, *E;        /* nb, nb x nf */
  double *c;             /* n: c_k of c_k / x_k, 0 when x_k has no objective term */
  double *lo, *hi;       /* n: a box holding the feasible set */
  double *x0;            /* n: the start */
  /* Rows: Mf[i] . f + g[i] * w[cp[i]] <= h[i]; g and cp only for the npair
   * coupling rows, those of rate k at pat0[k]..pat0[k+1]-1. bound[i] marks
   * a row f_k >= 0, left to the box in the certificate. */
  double *Mf, *g, *h;
  int *cp, *pat0;
  int *fk;               /* nf: the unknown each free variable is */
  unsigned char *bound;
  /* Interior-point state (x, slacks v, multipliers lam) and work. */
  double *x, *v, *lam, *W, *iv;
  double *rd, *rp, *wv, *dx, *dv, *dl, *dxa, *dva, *dla;
  double *Dp, *hb;       /* np: rate block diagonal; np x nf: its coupling */
  double *K, *r;
  double cutoff;         /* stop (IPM_CUTOFF) once the certified scaled bound reaches it */
} Sep;

/* Build p->sep from the pre-checks: B0 a feasible start with every used dim
 * positive, hiB[D] upper bounds of each B_d over the feasible set (perf),
 * cost_min the cheapest feasible network (perf-per-cost). Leaves p->fast
 * = 0 when the equalities tie s to the bandwidths (the general path). */
int weft_sep_build(WeftProblem *p, const double *B0, const double *hiB, double cost_min);
/* The interior-point method from x0 (sep_ipm.c). Returns an IpmStatus;
 * x and lam hold the last iterate. */
int weft_sep_ipm(Sep *s, int max_iter, int *iters);
/* Certified lower bound on the scaled objective from the iterate's
 * multipliers, and the scaled objective of the iterate's bandwidths. */
double weft_sep_certify(Sep *s);
/* The certificate at a design the caller knows (bw_gbps, natural units,
 * meeting p's constraints): the multipliers of the rows tight there that
 * make it a stationary point of the Lagrangian (a small LP), then the
 * Lagrangian minimised over the box with them, as weft_sep_certify; in
 * natural units, -HUGE_VAL when no such multipliers are found. A valid
 * lower bound on p's optimum whatever the design (weak duality: any
 * multipliers >= 0 give one); equal to the design's objective (to
 * rounding) when the design is p's optimum. It costs one LP, not an
 * interior-point solve: a branch and bound node whose optimum is the best
 * design found is cut with it (wholelink.c). p: built (fast path) and
 * not pinned; overwrites p->sep's multipliers. */
double weft_sep_certify_at(WeftProblem *p, const double *bw_gbps);
double weft_sep_upper(const Sep *s);
/* Solve: bw[D] gets the design, *lb a certified lower bound on the objective
 * (natural units, -HUGE_VAL when none). Returns an IpmStatus. */
/* cutoff (natural units, HUGE_VAL: none): stop with IPM_CUTOFF once *lb >= cutoff. */
int weft_sep_solve(WeftProblem *p, const WeftSettings *st, double cutoff, double *bw, double *lb,
                   int *iters);

#endif
