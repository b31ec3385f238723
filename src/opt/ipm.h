/* ipm.h — internal: the general path's primal-dual interior-point method for the
 * "hyperbolic programs" weft's bandwidth problems reduce to. Not part of the API. */
#ifndef WEFT_IPM_H
#define WEFT_IPM_H

#include "opt/arena.h"

/* minimise c^T x subject to
 *   a_i / x[u_i] - x[v_i] <= 0   (i < nh; a_i > 0; domain x[u_i] > 0)
 *   G x <= h                     (ng rows, row-major ng x n)
 *   A x  = b                     (ne rows, full row rank)
 * Convex: each a/x_u - x_v is convex on x_u > 0. */
typedef struct {
  int n, nh, ng, ne;
  double *c;
  int *hu, *hv;
  double *ha;
  double *G, *h;
  double *A, *b;
} Hyp;

/* Workspace, sized once; a solve allocates nothing. On return x holds the
 * primal point, lam[0..nh+ng) the inequality multipliers (hyperbolic rows
 * first), nu the equality multipliers. */
typedef struct {
  int n, m, ne;
  double *x, *s, *lam, *nu;
  double *gval, *rd, *rp, *re, *w, *hdiag;
  double *dx, *ds, *dlam, *dnu;
  double *dxa, *dsa, *dlama, *dnua;
  double *K, *rhs, *sol;
  int *piv;
} IpmWork;

/* Size w for n variables, m inequalities, ne equalities, from arena a.
 * Returns 0 or -1 (out of memory). */
int ipm_work_init(IpmWork *w, int n, int m, int ne, Arena *a);

typedef enum { IPM_SOLVED = 0, IPM_MAX_ITER = 1, IPM_NUMERICAL = 2 } IpmStatus;

typedef struct {
  int max_iter;
  double gap_tol;   /* stop when m*mu <= gap_tol * max(1, |c^T x|) */
  double feas_tol;  /* and residuals are below feas_tol (scaled problem) */
} IpmSettings;

/* Solve from the point in w->x (domain: x[u_i] > 0). */
IpmStatus ipm_solve(const Hyp *P, IpmWork *w, const IpmSettings *st, int *iters);

#endif
