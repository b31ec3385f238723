/* ipm.c — the general path: a primal-dual conic interior-point method
 * (Mehrotra predictor-corrector, Nesterov-Todd scaling, infeasible start)
 * for hyperbolic programs, each a/x_u <= x_v row taken as the cone
 * (x_u + x_v, x_u - x_v, 2 sqrt a) in Q^3, the linear rows as the orthant.
 *   primal  min c.x   G~x + s = h~, A x = b, s in K
 *   dual    c + G~'z + A'y = 0, z in K
 * Cone vectors hold the ng linear rows first, then 3 entries per cone. The
 * reduced KKT system (n + ne unknowns) is dense: n is dims + patterns + jobs. */
#include "opt/ipm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef IPM_TRACE
#include <stdio.h>
#endif

#define IPM_STEP_FRAC 0.99  /* fraction to the boundary */
#define IPM_REG 1e-13       /* regularisation of both KKT blocks (scaled units, relative) */
#define IPM_MIN_STEP 1e-12  /* a step this short means no progress */
#define IPM_DUAL_TOL 1e-8   /* dual residual accepted at the end: the certificate repairs it */
#define IPM_REFINE 3        /* rounds of iterative refinement of a direction at most */
#define IPM_REFINE_TOL 1e-13 /* refine while the KKT equations miss by more (relative) */
#define IPM_STALL 100.0     /* past the gap target, a dual residual this far above its best ends the run */
#define IPM_CERT_FROM 1e-6  /* certify iterates once s.z is this small (relative) */
#define IPM_SLACK0 1.0      /* least starting slack / cone margin (rows scaled to |coef| 1) */

int ipm_work_init(IpmWork *w, int n, int nh, int ng, int ne, Arena *a) {
  memset(w, 0, sizeof *w);
  w->ng = ng;
  w->M = ng + 3 * nh;
  size_t N = (size_t)(n + ne), nn = (size_t)(n > 0 ? n : 1), M = (size_t)(w->M > 0 ? w->M : 1);
  size_t E = (size_t)(ne > 0 ? ne : 1), H = (size_t)(nh > 0 ? nh : 1);
  size_t L = (size_t)(nh + ng > 0 ? nh + ng : 1), G = (size_t)(ng > 0 ? ng : 1);
  double **nv[] = {&w->x, &w->rx, &w->dx};
  double **mv[] = {&w->s, &w->z, &w->lmb, &w->rz, &w->ds, &w->dz, &w->dsa, &w->dza,
                   &w->t1, &w->t2, &w->t3};
  double **ev[] = {&w->nu, &w->ry, &w->dy};
  int ok = 1;
  for (size_t i = 0; i < sizeof nv / sizeof nv[0]; i++)
    ok &= (*nv[i] = arena_calloc(a, nn, sizeof(double))) != NULL;
  for (size_t i = 0; i < sizeof mv / sizeof mv[0]; i++)
    ok &= (*mv[i] = arena_calloc(a, M, sizeof(double))) != NULL;
  for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
    ok &= (*ev[i] = arena_calloc(a, E, sizeof(double))) != NULL;
  ok &= (w->lam = arena_calloc(a, L, sizeof(double))) != NULL;
  ok &= (w->wl = arena_calloc(a, G, sizeof(double))) != NULL;
  ok &= (w->wb = arena_calloc(a, H, sizeof(double))) != NULL;
  ok &= (w->wv = arena_calloc(a, 3 * H, sizeof(double))) != NULL;
  ok &= (w->K = arena_calloc(a, N * N, sizeof(double))) != NULL;
  ok &= (w->rhs = arena_calloc(a, N, sizeof(double))) != NULL;
  ok &= (w->piv = arena_calloc(a, N, sizeof(int))) != NULL;
  ok &= (w->nzp = arena_calloc(a, G + 1, sizeof(int))) != NULL;
  ok &= (w->nzc = arena_calloc(a, G * nn, sizeof(int))) != NULL;
  ok &= (w->bx = arena_calloc(a, nn, sizeof(double))) != NULL;
  ok &= (w->blam = arena_calloc(a, L, sizeof(double))) != NULL;
  ok &= (w->bnu = arena_calloc(a, E, sizeof(double))) != NULL;
  return ok ? 0 : -1;
}

/* Dense LU with partial pivoting of M (n x n, row-major) in place. Returns
 * 0, or -1 when M is singular. */
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
      for (int j = 0; j < n; j++) { double t = mk[j]; mk[j] = mp[j]; mp[j] = t; }
    }
    double d = mk[k];
    for (int i = k + 1; i < n; i++) {
      double *mi = M + (size_t)i * (size_t)n;
      double f = mi[k] / d;
      mi[k] = f;
      if (f == 0.0) continue;
      for (int j = k + 1; j < n; j++) mi[j] -= f * mk[j];
    }
  }
  return 0;
}

static void lu_solve(const double *LU, const int *piv, double *r, int n) {
  for (int k = 0; k < n; k++) {
    int p = piv[k];
    if (p != k) { double t = r[k]; r[k] = r[p]; r[p] = t; }
  }
  for (int k = 0; k < n; k++)
    for (int i = k + 1; i < n; i++) r[i] -= LU[(size_t)i * (size_t)n + (size_t)k] * r[k];
  for (int k = n - 1; k >= 0; k--) {
    const double *row = LU + (size_t)k * (size_t)n;
    double acc = r[k];
    for (int j = k + 1; j < n; j++) acc -= row[j] * r[j];
    r[k] = acc / row[k];
  }
}

/* ---- the cone K: orthant (ng) x Q^3 (nh) ---- */

static double soc_det(const double *u) { return u[0] * u[0] - u[1] * u[1] - u[2] * u[2]; }

/* out = G~ x (LP rows from G, each cone -(x_u + x_v), -(x_u - x_v), 0). */
static void g_times(const Hyp *P, const IpmWork *w, const double *x, double *out) {
  for (int k = 0; k < P->ng; k++) {
    const double *row = P->G + (size_t)k * (size_t)P->n;
    double acc = 0.0;
    for (int q = w->nzp[k]; q < w->nzp[k + 1]; q++) acc += row[w->nzc[q]] * x[w->nzc[q]];
    out[k] = acc;
  }
  for (int i = 0; i < P->nh; i++) {
    double xu = x[P->hu[i]], xv = x[P->hv[i]], *o = out + P->ng + 3 * i;
    o[0] = -(xu + xv);
    o[1] = -(xu - xv);
    o[2] = 0.0;
  }
}

/* out = G~' z (n). */
static void gt_times(const Hyp *P, const IpmWork *w, const double *z, double *out) {
  memset(out, 0, (size_t)P->n * sizeof *out);
  for (int k = 0; k < P->ng; k++) {
    const double *row = P->G + (size_t)k * (size_t)P->n;
    for (int q = w->nzp[k]; q < w->nzp[k + 1]; q++) out[w->nzc[q]] += row[w->nzc[q]] * z[k];
  }
  for (int i = 0; i < P->nh; i++) {
    const double *c = z + P->ng + 3 * i;
    out[P->hu[i]] -= c[0] + c[1];
    out[P->hv[i]] -= c[0] - c[1];
  }
}

/* The right-hand side h~ at index k of a cone vector. */
static double h_at(const Hyp *P, int k) {
  if (k < P->ng) return P->h[k];
  int i = (k - P->ng) / 3;
  return (k - P->ng) % 3 == 2 ? 2.0 * sqrt(P->ha[i]) : 0.0;
}

/* o = W^p a for one Q^3 cone with scaling (v, beta), p in {1, -1}. */
static void soc_w(const double *v, double b, int p, const double *a, double *o) {
  if (p > 0) { /* beta (2 v (v.a) - J a) */
    double dot = v[0] * a[0] + v[1] * a[1] + v[2] * a[2];
    o[0] = b * (2.0 * v[0] * dot - a[0]);
    o[1] = b * (2.0 * v[1] * dot + a[1]);
    o[2] = b * (2.0 * v[2] * dot + a[2]);
  } else { /* (1/beta)(2 Jv ((Jv).a) - J a) */
    double dot = v[0] * a[0] - v[1] * a[1] - v[2] * a[2];
    o[0] = (2.0 * v[0] * dot - a[0]) / b;
    o[1] = (-2.0 * v[1] * dot + a[1]) / b;
    o[2] = (-2.0 * v[2] * dot + a[2]) / b;
  }
}

/* Nesterov-Todd scaling W (W z = W^-1 s = lambda) of every cone. For Q^3:
 * W = beta (2 v v' - J), W^-1 = (1/beta)(2 J v v' J - J), J = diag(1,-1,-1). */
static int nt_scaling(const Hyp *P, IpmWork *w) {
  for (int k = 0; k < P->ng; k++) {
    if (!(w->s[k] > 0.0) || !(w->z[k] > 0.0)) return -1;
    w->wl[k] = sqrt(w->s[k] / w->z[k]);
    w->lmb[k] = sqrt(w->s[k] * w->z[k]);
  }
  for (int i = 0; i < P->nh; i++) {
    const double *s = w->s + P->ng + 3 * i, *z = w->z + P->ng + 3 * i;
    double ds = soc_det(s), dz = soc_det(z);
    if (!(ds > 0.0) || !(dz > 0.0) || !(s[0] > 0.0) || !(z[0] > 0.0)) return -1;
    double ns = sqrt(ds), nz = sqrt(dz), sn[3], zn[3], wb[3];
    for (int j = 0; j < 3; j++) { sn[j] = s[j] / ns; zn[j] = z[j] / nz; }
    double gam = sqrt(0.5 * (1.0 + sn[0] * zn[0] + sn[1] * zn[1] + sn[2] * zn[2]));
    wb[0] = (sn[0] + zn[0]) / (2.0 * gam);
    wb[1] = (sn[1] - zn[1]) / (2.0 * gam);
    wb[2] = (sn[2] - zn[2]) / (2.0 * gam);
    double *v = w->wv + 3 * i, den = sqrt(2.0 * (wb[0] + 1.0));
    v[0] = (wb[0] + 1.0) / den;
    v[1] = wb[1] / den;
    v[2] = wb[2] / den;
    w->wb[i] = sqrt(ns / nz);
    soc_w(v, w->wb[i], 1, z, w->lmb + P->ng + 3 * i);
  }
  return 0;
}

/* out = W^p r for p in {1, -1}, one cone vector (out may not alias r). */
static void w_apply(const Hyp *P, const IpmWork *w, int p, const double *r, double *out) {
  for (int k = 0; k < P->ng; k++) out[k] = p > 0 ? w->wl[k] * r[k] : r[k] / w->wl[k];
  for (int i = 0; i < P->nh; i++)
    soc_w(w->wv + 3 * i, w->wb[i], p, r + P->ng + 3 * i, out + P->ng + 3 * i);
}

/* out = a o b (Jordan product, cone by cone). */
static void jprod(const Hyp *P, const double *a, const double *b, double *out) {
  for (int k = 0; k < P->ng; k++) out[k] = a[k] * b[k];
  for (int i = 0; i < P->nh; i++) {
    const double *x = a + P->ng + 3 * i, *y = b + P->ng + 3 * i;
    double *o = out + P->ng + 3 * i;
    o[0] = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    o[1] = x[0] * y[1] + y[0] * x[1];
    o[2] = x[0] * y[2] + y[0] * x[2];
  }
}

/* out = lambda \ r: the x with lambda o x = r. */
static void jdiv(const Hyp *P, const double *l, const double *r, double *out) {
  for (int k = 0; k < P->ng; k++) out[k] = r[k] / l[k];
  for (int i = 0; i < P->nh; i++) {
    const double *x = l + P->ng + 3 * i, *y = r + P->ng + 3 * i;
    double *o = out + P->ng + 3 * i;
    o[0] = (x[0] * y[0] - x[1] * y[1] - x[2] * y[2]) / soc_det(x);
    o[1] = (y[1] - o[0] * x[1]) / x[0];
    o[2] = (y[2] - o[0] * x[2]) / x[0];
  }
}

/* Largest a in (0, amax] keeping u + a d in the cone (d may be 0). */
static double cone_step(const Hyp *P, const double *u, const double *d, double amax) {
  double a = amax;
  for (int k = 0; k < P->ng; k++)
    if (d[k] < 0.0) a = fmin(a, -u[k] / d[k]);
  for (int i = 0; i < P->nh; i++) {
    const double *x = u + P->ng + 3 * i, *y = d + P->ng + 3 * i;
    /* f(a) = (x0 + a y0)^2 - |x1 + a y1|^2 = A a^2 + 2 B a + C, C > 0 */
    double A = soc_det(y), B = x[0] * y[0] - x[1] * y[1] - x[2] * y[2], C = soc_det(x);
    double root = HUGE_VAL;
    if (A == 0.0) {
      if (B < 0.0) root = -C / (2.0 * B);
    } else {
      double disc = B * B - A * C;
      if (disc >= 0.0) {
        double q = -(B + copysign(sqrt(disc), B)), r1 = q / A, r2 = q != 0.0 ? C / q : HUGE_VAL;
        if (r1 > 0.0) root = fmin(root, r1);
        if (r2 > 0.0) root = fmin(root, r2);
      }
    }
    if (y[0] < 0.0) root = fmin(root, -x[0] / y[0]);  /* and stay on the positive sheet */
    a = fmin(a, root);
  }
  return a;
}

/* K = [G~' W^-2 G~ + reg*max diag, A'; A, -IPM_REG], factored. */
static int kkt_factor(const Hyp *P, IpmWork *w, double reg) {
  int n = P->n, N = n + P->ne;
  double *K = w->K;
  memset(K, 0, (size_t)N * (size_t)N * sizeof *K);
#define KK(i, j) K[(size_t)(i) * (size_t)N + (size_t)(j)]
  for (int k = 0; k < P->ng; k++) {
    const double *row = P->G + (size_t)k * (size_t)n;
    double d = 1.0 / (w->wl[k] * w->wl[k]);
    for (int qa = w->nzp[k]; qa < w->nzp[k + 1]; qa++) {
      int a = w->nzc[qa];
      double da = d * row[a];
      for (int qb = w->nzp[k]; qb < w->nzp[k + 1]; qb++) KK(a, w->nzc[qb]) += da * row[w->nzc[qb]];
    }
  }
  for (int i = 0; i < P->nh; i++) {
    /* columns u, v of G~ in this cone: gu = (-1,-1,0), gv = (-1,1,0) */
    static const double gu[3] = {-1.0, -1.0, 0.0}, gv[3] = {-1.0, 1.0, 0.0};
    double tu[3], tv[3], su[3], sv[3];
    const double *wv = w->wv + 3 * i;
    soc_w(wv, w->wb[i], -1, gu, tu); soc_w(wv, w->wb[i], -1, tu, su);
    soc_w(wv, w->wb[i], -1, gv, tv); soc_w(wv, w->wb[i], -1, tv, sv);
    int u = P->hu[i], v = P->hv[i];
    double uu = gu[0] * su[0] + gu[1] * su[1], uv = gu[0] * sv[0] + gu[1] * sv[1];
    double vv = gv[0] * sv[0] + gv[1] * sv[1];
    KK(u, u) += uu; KK(v, v) += vv; KK(u, v) += uv; KK(v, u) += uv;
  }
  if (reg > 0.0) {
    double dmax = 0.0;
    for (int j = 0; j < n; j++) dmax = fmax(dmax, fabs(KK(j, j)));
    for (int j = 0; j < n; j++) KK(j, j) += reg * dmax;
  }
  for (int k = 0; k < P->ne; k++) {
    const double *row = P->A + (size_t)k * (size_t)n;
    for (int j = 0; j < n; j++) { KK(n + k, j) = row[j]; KK(j, n + k) = row[j]; }
    KK(n + k, n + k) = -IPM_REG;
  }
#undef KK
  return lu_factor(K, w->piv, N);
}

/* dz = W^-2 (G dx + t), ds = -rz - G dx for the current dx (u, q scratch). */
static void dz_ds(const Hyp *P, IpmWork *w, const double *dx, const double *t, double *ds,
                  double *dz, double *u, double *q) {
  g_times(P, w, dx, ds);
  for (int k = 0; k < w->M; k++) { u[k] = ds[k] + t[k]; ds[k] = -w->rz[k] - ds[k]; }
  w_apply(P, w, -1, u, q);
  w_apply(P, w, -1, q, dz);
}

/* The Newton direction for complementarity right-hand side rc (in lambda
 * space: lambda o (W dz + W^-1 ds) = rc), with the current residuals. The
 * reduced system loses accuracy as W^-2 spreads over many decades near the
 * end, so the first two block equations (G'dz + A'dy = -rx, A dx = -ry) are
 * checked and the direction refined against them. */
static int newton(const Hyp *P, IpmWork *w, const double *rc, double *dx, double *dy,
                  double *ds, double *dz) {
  int n = P->n, N = n + P->ne, M = w->M;
  double *q = w->t1, *t = w->t2, *u = w->t3;
  jdiv(P, w->lmb, rc, q);
  w_apply(P, w, 1, q, t);                       /* t = rz + W q */
  for (int k = 0; k < M; k++) t[k] += w->rz[k];
  w_apply(P, w, -1, t, u);
  w_apply(P, w, -1, u, q);                      /* q = W^-2 t */
  gt_times(P, w, q, w->rhs);
  for (int j = 0; j < n; j++) w->rhs[j] = -w->rx[j] - w->rhs[j];
  for (int k = 0; k < P->ne; k++) w->rhs[n + k] = -w->ry[k];
  lu_solve(w->K, w->piv, w->rhs, N);
  for (int j = 0; j < n; j++) dx[j] = w->rhs[j];
  for (int k = 0; k < P->ne; k++) dy[k] = w->rhs[n + k];
  for (int round = 0;; round++) {
    dz_ds(P, w, dx, t, ds, dz, u, q);
    for (int j = 0; j < n; j++)
      if (!isfinite(dx[j])) return -1;
    if (round == IPM_REFINE) break;
    double err = 0.0, ref = 0.0;
    gt_times(P, w, dz, w->rhs);                 /* rhs = -(rx + G'dz + A'dy), -(ry + A dx) */
    for (int j = 0; j < n; j++) {
      ref = fmax(ref, fabs(w->rx[j]) + fabs(w->rhs[j]));
      w->rhs[j] += w->rx[j];
    }
    for (int k = 0; k < P->ne; k++) {
      const double *row = P->A + (size_t)k * (size_t)n;
      double acc = w->ry[k];
      for (int j = 0; j < n; j++) { w->rhs[j] += row[j] * dy[k]; acc += row[j] * dx[j]; }
      w->rhs[n + k] = -acc;
      err = fmax(err, fabs(acc));
    }
    for (int j = 0; j < n; j++) { err = fmax(err, fabs(w->rhs[j])); w->rhs[j] = -w->rhs[j]; }
    if (!(err > IPM_REFINE_TOL * fmax(ref, 1.0))) break;
    lu_solve(w->K, w->piv, w->rhs, N);
    for (int j = 0; j < n; j++) dx[j] += w->rhs[j];
    for (int k = 0; k < P->ne; k++) dy[k] += w->rhs[n + k];
  }
  return 0;
}

/* Residuals rx = c + G'z + A'y, ry = A x - b, rz = G x + s - h; their
 * infinity norms in out[]. */
static void residuals(const Hyp *P, IpmWork *w, double out[3]) {
  int n = P->n;
  gt_times(P, w, w->z, w->rx);
  for (int j = 0; j < n; j++) w->rx[j] += P->c[j];
  for (int k = 0; k < P->ne; k++) {
    const double *row = P->A + (size_t)k * (size_t)n;
    double acc = -P->b[k];
    for (int j = 0; j < n; j++) { w->rx[j] += w->nu[k] * row[j]; acc += row[j] * w->x[j]; }
    w->ry[k] = acc;
  }
  g_times(P, w, w->x, w->rz);
  for (int k = 0; k < w->M; k++) w->rz[k] += w->s[k] - h_at(P, k);
  out[0] = out[1] = out[2] = 0.0;
  for (int j = 0; j < n; j++) out[0] = fmax(out[0], fabs(w->rx[j]));
  for (int k = 0; k < w->M; k++) out[1] = fmax(out[1], fabs(w->rz[k]));
  for (int k = 0; k < P->ne; k++) out[2] = fmax(out[2], fabs(w->ry[k]));
}

/* Start: s = h - G x pushed into the cone by IPM_SLACK0, z = e, y = 0. */
static void start(const Hyp *P, IpmWork *w) {
  g_times(P, w, w->x, w->s);
  for (int k = 0; k < w->M; k++) w->s[k] = h_at(P, k) - w->s[k];
  for (int k = 0; k < P->ng; k++) {
    w->s[k] = fmax(w->s[k], IPM_SLACK0);
    w->z[k] = 1.0;
  }
  for (int i = 0; i < P->nh; i++) {
    double *s = w->s + P->ng + 3 * i, *z = w->z + P->ng + 3 * i;
    double r = sqrt(s[1] * s[1] + s[2] * s[2]);
    if (s[0] - r < IPM_SLACK0) s[0] = r + IPM_SLACK0;
    z[0] = 1.0; z[1] = z[2] = 0.0;
  }
  memset(w->nu, 0, (size_t)(P->ne > 0 ? P->ne : 0) * sizeof *w->nu);
}

/* The hyperbolic form's multipliers from the cone duals (lam_i = z0 - z1:
 * the coefficient the cone puts on x_v), the linear rows' as they are. */
static void multipliers(const Hyp *P, IpmWork *w) {
  for (int i = 0; i < P->nh; i++) {
    const double *z = w->z + P->ng + 3 * i;
    w->lam[i] = fmax(0.0, z[0] - z[1]);
  }
  for (int k = 0; k < P->ng; k++) w->lam[P->nh + k] = w->z[k];
}

IpmStatus ipm_solve(const Hyp *P, IpmWork *w, const IpmSettings *st, int *iters) {
  w->ng = P->ng; /* at most the ng the work was sized for: the active rows vary */
  w->M = P->ng + 3 * P->nh;
  int n = P->n, M = w->M, deg = P->ng + P->nh;
  w->nzp[0] = 0; /* the LP rows' nonzeros, once */
  for (int k = 0, q = 0; k < P->ng; k++) {
    const double *row = P->G + (size_t)k * (size_t)n;
    for (int j = 0; j < n; j++)
      if (row[j] != 0.0) w->nzc[q++] = j;
    w->nzp[k + 1] = q;
  }
  start(P, w);
  IpmStatus status = IPM_MAX_ITER;
  int it = 0;
  double best = HUGE_VAL, rx_min = HUGE_VAL;
  size_t L = (size_t)(P->nh + P->ng);
  for (; it < st->max_iter; it++) {
    double res[3], gap = 0.0, pobj = 0.0;
    residuals(P, w, res);
    for (int k = 0; k < M; k++) gap += w->s[k] * w->z[k];
    for (int j = 0; j < n; j++) pobj += P->c[j] * w->x[j];
    double scale = fmax(1.0, fabs(pobj));
#ifdef IPM_TRACE
    fprintf(stderr, "it %2d pobj %.12g gap %.3e rx %.2e rz %.2e ry %.2e\n", it, pobj, gap, res[0],
            res[1], res[2]);
#endif
    if (!isfinite(gap) || !isfinite(pobj)) { status = IPM_NUMERICAL; break; }
    if (st->cert && gap <= IPM_CERT_FROM * scale) {
      multipliers(P, w);
      double r = st->cert(st->cert_ctx);
      if (r < best) {
        best = r;
        memcpy(w->bx, w->x, (size_t)n * sizeof *w->x);
        memcpy(w->blam, w->lam, L * sizeof *w->lam);
        memcpy(w->bnu, w->nu, (size_t)P->ne * sizeof *w->nu);
      }
      if (r <= st->cert_tol) { status = IPM_SOLVED; break; }
    }
    if (gap <= st->gap_tol * scale && res[0] <= IPM_DUAL_TOL * scale &&
        res[1] <= st->feas_tol && res[2] <= st->feas_tol) {
      status = IPM_SOLVED;
      break;
    }
    /* Past the gap target the reduced system degrades and the dual residual
     * grows: more iterations only move away from the best iterate. */
    if (gap <= st->gap_tol * scale && res[0] > IPM_STALL * rx_min) { status = IPM_NUMERICAL; break; }
    rx_min = fmin(rx_min, res[0]);
    if (nt_scaling(P, w) || (kkt_factor(P, w, 0.0) && kkt_factor(P, w, IPM_REG))) { status = IPM_NUMERICAL; break; }
    /* Predictor: rc = -lambda o lambda. */
    double *rc = w->ds; /* ds is free until the corrector's newton() writes it */
    jprod(P, w->lmb, w->lmb, rc);
    for (int k = 0; k < M; k++) rc[k] = -rc[k];
    if (newton(P, w, rc, w->dx, w->dy, w->dsa, w->dza)) { status = IPM_NUMERICAL; break; }
    double aa = cone_step(P, w->z, w->dza, cone_step(P, w->s, w->dsa, 1.0));
    double ga = 0.0;
    for (int k = 0; k < M; k++) ga += (w->s[k] + aa * w->dsa[k]) * (w->z[k] + aa * w->dza[k]);
    double rho = gap > 0.0 ? fmax(0.0, fmin(1.0, ga / gap)) : 0.0, sigma = rho * rho * rho;
    double mu = gap / (deg > 0 ? deg : 1);
    /* Corrector: rc = -lambda o lambda - (W^-1 dsa) o (W dza) + sigma mu e. */
    w_apply(P, w, -1, w->dsa, w->t1);
    w_apply(P, w, 1, w->dza, w->t2);
    jprod(P, w->t1, w->t2, w->t3);
    jprod(P, w->lmb, w->lmb, rc);
    for (int k = 0; k < M; k++) rc[k] = -rc[k] - w->t3[k];
    for (int k = 0; k < P->ng; k++) rc[k] += sigma * mu;
    for (int i = 0; i < P->nh; i++) rc[P->ng + 3 * i] += sigma * mu;
    memcpy(w->t3, rc, (size_t)M * sizeof *rc); /* newton() reads rc while writing ds */
    if (newton(P, w, w->t3, w->dx, w->dy, w->ds, w->dz)) { status = IPM_NUMERICAL; break; }
    double a = IPM_STEP_FRAC * cone_step(P, w->z, w->dz, cone_step(P, w->s, w->ds, HUGE_VAL));
    a = fmin(1.0, a);
    if (!(a >= IPM_MIN_STEP)) { status = IPM_NUMERICAL; break; }
    for (int j = 0; j < n; j++) w->x[j] += a * w->dx[j];
    for (int k = 0; k < P->ne; k++) w->nu[k] += a * w->dy[k];
    for (int k = 0; k < M; k++) { w->s[k] += a * w->ds[k]; w->z[k] += a * w->dz[k]; }
  }
  multipliers(P, w);
  if (status != IPM_SOLVED && best < HUGE_VAL) { /* the best certified iterate stands */
    memcpy(w->x, w->bx, (size_t)n * sizeof *w->x);
    memcpy(w->lam, w->blam, L * sizeof *w->lam);
    memcpy(w->nu, w->bnu, (size_t)P->ne * sizeof *w->nu);
    if (best <= st->cert_tol) status = IPM_SOLVED;
  }
  if (iters) *iters = it;
  return status;
}
