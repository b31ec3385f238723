/* ipm.h — internal: the general path's primal-dual interior-point method for the
 * "hyperbolic programs" weft's bandwidth problems reduce to. Not part of the API. */
#ifndef WEFT_IPM_H
#define WEFT_IPM_H

#include "opt/arena.h"

/* minimise c^T x subject to
 *   a_i / x[u_i] - x[v_i] <= 0   (i < nh; a_i > 0; domain x[u_i] > 0)
 *   G x <= h                     (ng rows, row-major ng x n)
 *   A x  = b                     (ne rows, full row rank)
 * Convex: a_i / x_u <= x_v with x_u > 0 is the rotated second-order cone
 * x_u x_v >= a_i, i.e. (x_u + x_v, x_u - x_v, 2 sqrt(a_i)) in Q^3, which is
 * how ipm.c solves it (a conic method: the cones are met exactly, so the
 * residuals shrink by the step each iteration, whatever the curvature). */
typedef struct {
  int n, nh, ng, ne;
  double *c;
  int *hu, *hv;
  double *ha;
  double *G, *h;
  double *A, *b;
} Hyp;

/* Workspace, sized once; a solve allocates nothing. On return x holds the
 * primal point, lam[0..nh+ng) the inequality multipliers of the hyperbolic
 * form (hyperbolic rows first), nu the equality multipliers. */
typedef struct {
  int ng, M;              /* this solve's linear rows; M = ng + 3 nh, the cone vectors' length */
  double *x, *lam, *nu;
  double *s, *z, *lmb;    /* M: slacks, duals, their NT-scaled point */
  double *wl;             /* ng: LP scaling sqrt(s/z) */
  double *wb, *wv;        /* nh, 3 nh: SOC scaling beta, v */
  double *rx, *ry, *rz;   /* residuals: n, ne, M */
  double *dx, *dy, *ds, *dz, *dsa, *dza;
  double *t1, *t2, *t3;   /* M scratch */
  double *K, *rhs;        /* (n+ne)^2, n+ne */
  int *piv;
  int *nzc, *nzp;         /* LP rows' nonzero columns (CSR) */
  double *bx, *blam, *bnu; /* the best certified iterate so far */
} IpmWork;

/* Size w for n variables, nh hyperbolic rows, ng linear rows, ne
 * equalities, from arena a. Returns 0 or -1 (out of memory). */
int ipm_work_init(IpmWork *w, int n, int nh, int ng, int ne, Arena *a);

typedef enum { IPM_SOLVED = 0, IPM_MAX_ITER = 1, IPM_NUMERICAL = 2, IPM_CUTOFF = 3 } IpmStatus;
/* IPM_CUTOFF: the certified bound reached the caller's cutoff (sep path only). */

/* The certified relative gap of the iterate in w (x, lam, nu), HUGE_VAL
 * when none: the caller's certificate, which needs no exact dual point. */
typedef double (*IpmCertFn)(void *ctx);

typedef struct {
  int max_iter;
  double gap_tol;   /* stop when s.z <= gap_tol * max(1, |c^T x|) */
  double feas_tol;  /* and residuals are below feas_tol (scaled problem) */
  IpmCertFn cert;   /* optional: near the end, stop as soon as cert() <= cert_tol */
  void *cert_ctx;
  double cert_tol;
} IpmSettings;

/* Solve from the point in w->x (any x; domain x[u_i] > 0 preferred). With
 * a certificate, w ends on the best certified iterate seen when the run
 * itself does not converge (the reduced KKT system degrades near the end). */
IpmStatus ipm_solve(const Hyp *P, IpmWork *w, const IpmSettings *st, int *iters);

#endif
