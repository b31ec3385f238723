/* ipm.c — the general path: Mehrotra predictor-corrector interior-point method with slacks
 * (infeasible start) for hyperbolic programs; dense reduced KKT solves. */
#include "opt/ipm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef IPM_TRACE
#include <stdio.h>
#endif

#define IPM_STEP_FRAC 0.99     /* fraction to the boundary */
#define IPM_REG 1e-13          /* equality-block regularisation (scaled units) */
#define IPM_MIN_STEP 1e-14     /* a step this short means no progress */
#define IPM_MU_FLOOR 0.1       /* centring target floor, in units of the gap target */
#define IPM_INFEAS_FLOOR 0.01  /* centring target floor per unit of infeasibility */
#define IPM_DUAL_TOL 1e-8      /* dual residual (scaled units) accepted at the end */

int ipm_work_init(IpmWork *w, int n, int m, int ne, Arena *a) {
  memset(w, 0, sizeof *w);
  w->n = n;
  w->m = m;
  w->ne = ne;
  size_t N = (size_t)(n + ne), M = (size_t)(m > 0 ? m : 1), E = (size_t)(ne > 0 ? ne : 1);
  size_t nn = (size_t)(n > 0 ? n : 1);
  double **vecs[] = {&w->x, &w->rd, &w->hdiag, &w->dx, &w->dxa};
  double **mvecs[] = {&w->s, &w->lam, &w->gval, &w->rp, &w->w, &w->ds, &w->dlam, &w->dsa, &w->dlama};
  double **evecs[] = {&w->nu, &w->re, &w->dnu, &w->dnua};
  int ok = 1;
  for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
    ok &= (*vecs[i] = arena_calloc(a, nn, sizeof(double))) != NULL;
  for (size_t i = 0; i < sizeof mvecs / sizeof mvecs[0]; i++)
    ok &= (*mvecs[i] = arena_calloc(a, M, sizeof(double))) != NULL;
  for (size_t i = 0; i < sizeof evecs / sizeof evecs[0]; i++)
    ok &= (*evecs[i] = arena_calloc(a, E, sizeof(double))) != NULL;
  ok &= (w->K = arena_calloc(a, N * N, sizeof(double))) != NULL;
  ok &= (w->rhs = arena_calloc(a, N, sizeof(double))) != NULL;
  ok &= (w->sol = arena_calloc(a, N, sizeof(double))) != NULL;
  ok &= (w->piv = arena_calloc(a, N, sizeof(int))) != NULL;
  return ok ? 0 : -1;
}

/* Dense LU with partial pivoting of M (n x n, row-major) in place: unit L
 * below the diagonal, U on and above, row swaps in piv. Returns 0, or -1
 * when M is singular. */
static int lu_factor(double *M, int *piv, int n) {
  for (int k = 0; k < n; k++) {
    double *mk = M + (size_t)k * (size_t)n;
    int p = k;
    double best = fabs(mk[k]);
    for (int i = k + 1; i < n; i++) {
      double v = fabs(M[(size_t)i * (size_t)n + (size_t)k]);
      if (v > best) { best = v; p = i; }
    }
    if (best == 0.0 || !isfinite(best)) return -1;
    piv[k] = p;
    if (p != k) {
      double *mp = M + (size_t)p * (size_t)n;
      for (int j = 0; j < n; j++) {
        double t = mk[j];
        mk[j] = mp[j];
        mp[j] = t;
      }
    }
    double d = mk[k];
    for (int i = k + 1; i < n; i++) {
      double *mi = M + (size_t)i * (size_t)n;
      double f = mi[k] / d;
      mi[k] = f; /* L multiplier */
      if (f == 0.0) continue;
      for (int j = k + 1; j < n; j++) mi[j] -= f * mk[j];
    }
  }
  return 0;
}

/* Solve M y = r with lu_factor's output; r is overwritten by y. */
static void lu_solve(const double *LU, const int *piv, double *r, int n) {
  for (int k = 0; k < n; k++) { /* the swaps first: L's rows were swapped whole */
    int p = piv[k];
    if (p != k) { double t = r[k]; r[k] = r[p]; r[p] = t; }
  }
  for (int k = 0; k < n; k++) {
    double rk = r[k];
    for (int i = k + 1; i < n; i++) {
      double f = LU[(size_t)i * (size_t)n + (size_t)k];
      if (f != 0.0) r[i] -= f * rk;
    }
  }
  for (int k = n - 1; k >= 0; k--) {
    const double *row = LU + (size_t)k * (size_t)n;
    double acc = r[k];
    for (int j = k + 1; j < n; j++) acc -= row[j] * r[j];
    r[k] = acc / row[k];
  }
}

/* g_i(x) for every inequality (hyperbolic rows first). */
static void eval_g(const Hyp *P, const double *x, double *g) {
  for (int i = 0; i < P->nh; i++) g[i] = P->ha[i] / x[P->hu[i]] - x[P->hv[i]];
  for (int k = 0; k < P->ng; k++) {
    const double *row = P->G + (size_t)k * (size_t)P->n;
    double acc = -P->h[k];
    for (int j = 0; j < P->n; j++) acc += row[j] * x[j];
    g[P->nh + k] = acc;
  }
}

/* Residuals at the current iterate; returns the infinity norms via out[]. */
static void residuals(const Hyp *P, IpmWork *w, double out[3]) {
  int n = P->n, m = P->nh + P->ng;
  const double *x = w->x;
  eval_g(P, x, w->gval);
  for (int j = 0; j < n; j++) w->rd[j] = P->c[j];
  for (int i = 0; i < P->nh; i++) {
    double xu = x[P->hu[i]];
    w->rd[P->hu[i]] -= w->lam[i] * P->ha[i] / (xu * xu);
    w->rd[P->hv[i]] -= w->lam[i];
  }
  for (int k = 0; k < P->ng; k++) {
    const double *row = P->G + (size_t)k * (size_t)n;
    double l = w->lam[P->nh + k];
    for (int j = 0; j < n; j++) w->rd[j] += l * row[j];
  }
  for (int k = 0; k < P->ne; k++) {
    const double *row = P->A + (size_t)k * (size_t)n;
    double acc = -P->b[k];
    for (int j = 0; j < n; j++) {
      w->rd[j] += w->nu[k] * row[j];
      acc += row[j] * x[j];
    }
    w->re[k] = acc;
  }
  for (int i = 0; i < m; i++) w->rp[i] = w->gval[i] + w->s[i];
  out[0] = out[1] = out[2] = 0.0;
  for (int j = 0; j < n; j++) out[0] = fmax(out[0], fabs(w->rd[j]));
  for (int i = 0; i < m; i++) out[1] = fmax(out[1], fabs(w->rp[i]));
  for (int k = 0; k < P->ne; k++) out[2] = fmax(out[2], fabs(w->re[k]));
}

/* Build the reduced KKT matrix [H + J^T D J, A^T; A, -reg] for the iterate. */
static void build_kkt(const Hyp *P, IpmWork *w) {
  int n = P->n, N = n + P->ne;
  double *K = w->K;
  memset(K, 0, (size_t)N * (size_t)N * sizeof *K);
#define KK(i, j) K[(size_t)(i) * (size_t)N + (size_t)(j)]
  for (int i = 0; i < P->nh; i++) {
    int u = P->hu[i], v = P->hv[i];
    double xu = w->x[u], a = P->ha[i], d = w->lam[i] / w->s[i];
    double ju = -a / (xu * xu); /* dg/dx_u; dg/dx_v = -1 */
    KK(u, u) += w->lam[i] * 2.0 * a / (xu * xu * xu) + d * ju * ju;
    KK(v, v) += d;
    KK(u, v) -= d * ju;
    KK(v, u) -= d * ju;
  }
  for (int k = 0; k < P->ng; k++) {
    const double *row = P->G + (size_t)k * (size_t)n;
    double d = w->lam[P->nh + k] / w->s[P->nh + k];
    for (int a = 0; a < n; a++) {
      if (row[a] == 0.0) continue;
      double da = d * row[a];
      for (int b = 0; b < n; b++) KK(a, b) += da * row[b];
    }
  }
  for (int k = 0; k < P->ne; k++) {
    const double *row = P->A + (size_t)k * (size_t)n;
    for (int j = 0; j < n; j++) {
      KK(n + k, j) = row[j];
      KK(j, n + k) = row[j];
    }
    KK(n + k, n + k) = -IPM_REG;
  }
#undef KK
}

/* J^T v for inequality vector v. */
static void jt_times(const Hyp *P, const double *x, const double *v, double *out) {
  for (int j = 0; j < P->n; j++) out[j] = 0.0;
  for (int i = 0; i < P->nh; i++) {
    double xu = x[P->hu[i]];
    out[P->hu[i]] += -P->ha[i] / (xu * xu) * v[i];
    out[P->hv[i]] -= v[i];
  }
  for (int k = 0; k < P->ng; k++) {
    const double *row = P->G + (size_t)k * (size_t)P->n;
    for (int j = 0; j < P->n; j++) out[j] += row[j] * v[P->nh + k];
  }
}

/* J dx for row i. */
static double j_row(const Hyp *P, const double *x, const double *dx, int i) {
  if (i < P->nh) {
    double xu = x[P->hu[i]];
    return -P->ha[i] / (xu * xu) * dx[P->hu[i]] - dx[P->hv[i]];
  }
  const double *row = P->G + (size_t)(i - P->nh) * (size_t)P->n;
  double acc = 0.0;
  for (int j = 0; j < P->n; j++) acc += row[j] * dx[j];
  return acc;
}

/* Build and factor the reduced KKT matrix of the iterate: the predictor and
 * the corrector share it. Returns 0, or -1 when it is singular. */
static int kkt_factor(const Hyp *P, IpmWork *w) {
  build_kkt(P, w);
  return lu_factor(w->K, w->piv, P->n + P->ne);
}

/* Solve the Newton system for complementarity target rc (= s.*lam - target)
 * with the factored KKT matrix. */
static int newton(const Hyp *P, IpmWork *w, const double *rc, double *dx, double *ds,
                  double *dlam, double *dnu) {
  int n = P->n, m = P->nh + P->ng, N = n + P->ne;
  for (int i = 0; i < m; i++) w->w[i] = (-rc[i] + w->lam[i] * w->rp[i]) / w->s[i];
  jt_times(P, w->x, w->w, w->rhs);
  for (int j = 0; j < n; j++) w->rhs[j] = -w->rd[j] - w->rhs[j];
  for (int k = 0; k < P->ne; k++) w->rhs[n + k] = -w->re[k];
  lu_solve(w->K, w->piv, w->rhs, N);
  for (int j = 0; j < n; j++) dx[j] = w->rhs[j];
  for (int k = 0; k < P->ne; k++) dnu[k] = w->rhs[n + k];
  for (int i = 0; i < m; i++) {
    double jd = j_row(P, w->x, dx, i);
    dlam[i] = w->w[i] + w->lam[i] / w->s[i] * jd;
    ds[i] = -w->rp[i] - jd;
  }
  for (int j = 0; j < n; j++)
    if (!isfinite(dx[j])) return -1;
  return 0;
}

/* Largest step in (0, 1] keeping s, lam > 0 and x_u > 0 (unscaled). */
static double max_step(const Hyp *P, const IpmWork *w, const double *dx, const double *ds,
                       const double *dlam) {
  int m = P->nh + P->ng;
  double a = 1.0;
  for (int i = 0; i < m; i++) {
    if (ds[i] < 0) a = fmin(a, -w->s[i] / ds[i]);
    if (dlam[i] < 0) a = fmin(a, -w->lam[i] / dlam[i]);
  }
  for (int i = 0; i < P->nh; i++) {
    int u = P->hu[i];
    if (dx[u] < 0) a = fmin(a, -w->x[u] / dx[u]);
  }
  return a;
}

IpmStatus ipm_solve(const Hyp *P, IpmWork *w, const IpmSettings *st, int *iters) {
  int n = P->n, m = P->nh + P->ng;
  eval_g(P, w->x, w->gval);
  for (int i = 0; i < m; i++) {
    w->s[i] = fmax(-w->gval[i], 1.0);
    w->lam[i] = 1.0;
  }
  for (int k = 0; k < P->ne; k++) w->nu[k] = 0.0;
  IpmStatus status = IPM_MAX_ITER;
  int it = 0;
  double mu0 = 0.0;
  for (int i = 0; i < m; i++) mu0 += w->s[i] * w->lam[i];
  if (m > 0) mu0 /= m;
  for (; it < st->max_iter; it++) {
    double res[3];
    residuals(P, w, res);
    double mu = 0.0, pobj = 0.0;
    for (int i = 0; i < m; i++) mu += w->s[i] * w->lam[i];
    for (int j = 0; j < n; j++) pobj += P->c[j] * w->x[j];
    if (m > 0) mu /= m;
    double scale = fmax(1.0, fabs(pobj));
#ifdef IPM_TRACE
    fprintf(stderr, "it %2d pobj %.12g mu %.3e rd %.2e rp %.2e re %.2e\n", it, pobj, mu, res[0], res[1], res[2]);
#endif
    /* The dual residual only has to be small, not tiny: the caller's
     * certificate repairs dual feasibility exactly. */
    if (mu * m <= st->gap_tol * scale && res[0] <= IPM_DUAL_TOL * scale &&
        res[1] <= st->feas_tol && res[2] <= st->feas_tol) {
      status = IPM_SOLVED;
      break;
    }
    /* Predictor: pure Newton towards complementarity 0. */
    /* newton() consumes rc before it writes dlam, so dlama can carry rc in. */
    for (int i = 0; i < m; i++) w->dlama[i] = w->s[i] * w->lam[i];
    if (kkt_factor(P, w) != 0 || newton(P, w, w->dlama, w->dxa, w->dsa, w->dlama, w->dnua) != 0) {
      status = IPM_NUMERICAL;
      break;
    }
    double aa = max_step(P, w, w->dxa, w->dsa, w->dlama);
    double mua = 0.0;
    for (int i = 0; i < m; i++) mua += (w->s[i] + aa * w->dsa[i]) * (w->lam[i] + aa * w->dlama[i]);
    if (m > 0) mua /= m;
    double sigma = mu > 0 ? pow(mua / mu, 3.0) : 0.0;
    if (sigma > 1.0) sigma = 1.0;
    /* Do not aim below what the tolerance needs: past it the KKT system
     * only gets worse conditioned. */
    double floor_mu = IPM_MU_FLOOR * st->gap_tol * scale / (m > 0 ? m : 1);
    /* Nor below the infeasibility: an iterate that closes the gap before it
     * is feasible sticks to the boundary and stalls. */
    floor_mu = fmax(floor_mu, IPM_INFEAS_FLOOR * fmax(res[1], res[2]) * fmax(mu0, 1e-300));
    if (sigma * mu < floor_mu) sigma = fmin(1.0, floor_mu / mu);
    /* Corrector: centring plus the second-order term. */
    for (int i = 0; i < m; i++) w->ds[i] = w->s[i] * w->lam[i] + w->dsa[i] * w->dlama[i] - sigma * mu;
    if (newton(P, w, w->ds, w->dx, w->ds, w->dlam, w->dnu) != 0) {
      status = IPM_NUMERICAL;
      break;
    }
    double a = fmin(1.0, IPM_STEP_FRAC * max_step(P, w, w->dx, w->ds, w->dlam));
    if (a < IPM_MIN_STEP) {
      status = IPM_NUMERICAL;
      break;
    }
    for (int j = 0; j < n; j++) w->x[j] += a * w->dx[j];
    for (int i = 0; i < m; i++) {
      w->s[i] += a * w->ds[i];
      w->lam[i] += a * w->dlam[i];
    }
    for (int k = 0; k < P->ne; k++) w->nu[k] += a * w->dnu[k];
  }
  if (iters) *iters = it;
  return status;
}
