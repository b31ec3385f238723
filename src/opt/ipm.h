/* ipm.h — internal: primal-dual interior-point method for the "hyperbolic
 * programs" weft's bandwidth problems reduce to. Not part of the API. */
#ifndef WEFT_IPM_H
#define WEFT_IPM_H

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

IpmWork *ipm_work_create(int n, int m, int ne);
void ipm_work_free(IpmWork *w);

typedef enum { IPM_SOLVED = 0, IPM_MAX_ITER = 1, IPM_NUMERICAL = 2 } IpmStatus;

typedef struct {
  int max_iter;
  double gap_tol;   /* stop when m*mu <= gap_tol * max(1, |c^T x|) */
  double feas_tol;  /* and residuals are below feas_tol (scaled problem) */
} IpmSettings;

/* Solve from the point in w->x (domain: x[u_i] > 0). */
IpmStatus ipm_solve(const Hyp *P, IpmWork *w, const IpmSettings *st, int *iters);

/* Dense LU with partial pivoting: solve M y = r in place (M n x n, row-major,
 * destroyed; r overwritten by y). Returns 0, or -1 when M is singular. */
int dense_solve(double *M, double *r, int *piv, int n);

#endif
