/* sep_ipm.c — Mehrotra predictor-corrector interior-point method for the
 * fast path's separable program (sep.h), infeasible start; each Newton
 * system, rates eliminated, is a small positive definite one (Cholesky). */
#include <math.h>
#include <string.h>
#ifdef IPM_TRACE
#include <stdio.h>
#endif

#include "opt/ipm.h"
#include "opt/sep.h"

/* The Newton systems are tiny (nf free bandwidths, 3 for four dims and a
 * sum): the method is compiled once per small nf (weft_sep_ipm, SEP_INLINE). */
/* Every loop of the method: unrolled whole where its count is a constant
 * (the nf free bandwidths), four at a time over the rows and variables
 * (-O2 keeps loops it cannot unroll without growing the code). */
#define SEP_UNROLL _Pragma("GCC unroll 4")

#define SEP_STEP_FRAC 0.99     /* least fraction to the boundary */
#define SEP_FRAC_MU 1e4        /* near the end the fraction is 1 - SEP_FRAC_MU*mu */
#define SEP_MIN_STEP 1e-14     /* a step this short means no progress */
#define SEP_MU_FLOOR 0.1       /* centring target floor, in units of the gap target */
#define SEP_INFEAS_FLOOR 0.01  /* centring target floor per unit of infeasibility */
#define SEP_GAP 1e-12          /* complementarity target, relative (as the general path) */
#define SEP_FEAS 1e-10         /* primal residual target (scaled units) */
#define SEP_DUAL 1e-8          /* dual residual target: the certificate needs no more */
#define SEP_CERT_MU 1e-8       /* from this complementarity on, try the certificate */
#define SEP_CERT_GAP 1e-12     /* stop when certified this close (relative) */
#define SEP_EXTRA 3            /* iterations allowed past the residual targets */
#define SEP_SLACK0 0.1         /* least starting slack (rows are scaled to max |coef| 1) */
#define SEP_SHRINK 0.5         /* a rate may at most halve in one step: Newton on c/x
                                  overshoots towards 0, then climbs back only 1.5x a step */

/* The free block's vectors and the Newton matrix are kept in local arrays
 * of this size while they are built (the compiler keeps them in registers
 * where nf is a constant; through s they would be stored at each update):
 * nf <= nb <= WEFT_MAX_DIMS + 1. */
#define SEP_NF_MAX (WEFT_MAX_DIMS + 1)

static double dmax(double a, double b) { return a > b ? a : b; }

/* Residuals, mu and the objective at the iterate: the infinity norms of
 * the dual and primal residuals into out[0..1], mu into out[3], the
 * objective into out[4] (out[2], the equalities', is 0: they are solved). */
SEP_INLINE void residuals(Sep *s, int nf, double out[5]) {
  int n = s->n, np = s->npair;
  const double *x = s->x;
  double obj = 0.0, mu = 0.0, rp = 0.0, rd = 0.0;
  double xf[SEP_NF_MAX], rdf[SEP_NF_MAX]; /* the free block in registers (see SEP_NF_MAX) */
  SEP_UNROLL
  for (int k = 0; k < n; k++) {
    double c = s->c[k], xi = 1.0 / x[k];
    s->rd[k] = c > 0 ? -c * xi * xi : 0.0;
    obj += c > 0 ? c * xi : 0.0;
  }
  SEP_UNROLL
  for (int f = 0; f < nf; f++) {
    xf[f] = x[f];
    rdf[f] = s->rd[f];
  }
  SEP_UNROLL
  for (int i = 0; i < s->m; i++) {
    const double *mf = s->Mf + i * nf;
    double acc = s->v[i] - s->h[i], l = s->lam[i];
    SEP_UNROLL
    for (int f = 0; f < nf; f++) {
      acc += mf[f] * xf[f];
      rdf[f] += l * mf[f];
    }
    if (i < np) {
      acc += s->g[i] * x[nf + s->cp[i]];
      s->rd[nf + s->cp[i]] += l * s->g[i];
    }
    s->rp[i] = acc;
    mu += s->v[i] * l;
    rp = dmax(rp, fabs(acc));
  }
  SEP_UNROLL
  for (int f = 0; f < nf; f++) s->rd[f] = rdf[f];
  SEP_UNROLL
  for (int k = 0; k < n; k++) rd = dmax(rd, fabs(s->rd[k]));
  out[0] = rd;
  out[1] = rp;
  out[2] = 0.0;
  out[3] = s->m > 0 ? mu / s->m : 0.0;
  out[4] = obj;
}

/* K += a * u u^T over the lower triangle (K nf x nf). */
SEP_INLINE void rank1(double *K, int nf, double a, const double *u) {
  SEP_UNROLL
  for (int i = 0; i < nf; i++) {
    if (u[i] == 0.0) continue;
    double ai = a * u[i];
    SEP_UNROLL
    for (int j = 0; j <= i; j++) K[i * nf + j] += ai * u[j];
  }
}

/* Build and Cholesky-factor (lower, in place) the Newton matrix with the
 * rates eliminated: H_ff + M_f^T W M_f - H_fw H_ww^-1 H_wf, positive
 * definite. Each rate's part is written without cancellation (Lagrange's
 * identity): (h sum_i W_i m_i m_i^T + sum_{i<j} W_i W_j v_ij v_ij^T) / Dp,
 * v_ij = g_j m_i - g_i m_j. Returns 0, or -1 when a pivot is not positive. */
SEP_INLINE int kkt_factor(Sep *s, int nf) {
  int np = s->npair;
  double K[SEP_NF_MAX * SEP_NF_MAX]; /* built here, in registers where nf is small; then s->K */
  SEP_UNROLL
  for (int i = 0; i < s->m; i++) {
    s->iv[i] = 1.0 / s->v[i];
    s->W[i] = s->lam[i] * s->iv[i];
  }
  SEP_UNROLL
  for (int i = 0; i < nf * nf; i++) K[i] = 0.0;
  SEP_UNROLL
  for (int f = 0; f < nf; f++)
    if (s->c[f] > 0) K[f * nf + f] += 2.0 * s->c[f] / (s->x[f] * s->x[f] * s->x[f]);
  for (int i = np; i < s->m; i++) rank1(K, nf, s->W[i], s->Mf + i * nf);
  for (int k = 0; k < s->np; k++) {
    int r0 = s->pat0[k], r1 = s->pat0[k + 1];
    double x = s->x[nf + k], h = 2.0 * s->c[nf + k] / (x * x * x), Dp = h;
    double hb[SEP_NF_MAX];
    SEP_UNROLL
    for (int f = 0; f < nf; f++) hb[f] = 0.0;
    for (int i = r0; i < r1; i++) {
      const double *mi = s->Mf + i * nf;
      double wg = s->W[i] * s->g[i];
      Dp += wg * s->g[i];
      SEP_UNROLL
      for (int f = 0; f < nf; f++) hb[f] += wg * mi[f];
    }
    SEP_UNROLL
    for (int f = 0; f < nf; f++) s->hb[k * nf + f] = hb[f];
    s->Dp[k] = Dp;
    double iD = 1.0 / Dp, vij[2 * WEFT_MAX_DIMS + 1];
    for (int i = r0; i < r1; i++) {
      const double *mi = s->Mf + i * nf;
      rank1(K, nf, h * s->W[i] * iD, mi);
      for (int j = i + 1; j < r1; j++) {
        const double *mj = s->Mf + j * nf;
        SEP_UNROLL
        for (int f = 0; f < nf; f++) vij[f] = s->g[j] * mi[f] - s->g[i] * mj[f];
        rank1(K, nf, s->W[i] * s->W[j] * iD, vij);
      }
    }
  }
  SEP_UNROLL
  for (int j = 0; j < nf; j++) { /* Cholesky, column by column */
    double d = K[j * nf + j];
    SEP_UNROLL
    for (int k = 0; k < j; k++) d -= K[j * nf + k] * K[j * nf + k];
    if (!(d > 0.0) || !isfinite(d)) return -1;
    d = sqrt(d);
    K[j * nf + j] = d;
    double id = 1.0 / d;
    SEP_UNROLL
    for (int i = j + 1; i < nf; i++) {
      double acc = K[i * nf + j];
      SEP_UNROLL
      for (int k = 0; k < j; k++) acc -= K[i * nf + k] * K[j * nf + k];
      K[i * nf + j] = acc * id;
    }
  }
  SEP_UNROLL
  for (int i = 0; i < nf * nf; i++) s->K[i] = K[i];
  return 0;
}

/* Newton step for complementarity residual rc (= v.*lam - target), with the
 * factored matrix. rc may alias dl (read before dl is written). */
SEP_INLINE int newton(Sep *s, int nf, const double *rc, double *dx, double *dv, double *dl) {
  int n = s->n, m = s->m, np = s->npair;
  double *r = s->r, rr[SEP_NF_MAX], dxf[SEP_NF_MAX]; /* the free block: locals (SEP_NF_MAX) */
  const double *K = s->K;
  SEP_UNROLL
  for (int k = 0; k < n; k++) r[k] = -s->rd[k];
  SEP_UNROLL
  for (int f = 0; f < nf; f++) rr[f] = r[f];
  SEP_UNROLL
  for (int i = 0; i < m; i++) {
    double wi = (s->lam[i] * s->rp[i] - rc[i]) * s->iv[i];
    const double *mf = s->Mf + i * nf;
    s->wv[i] = wi;
    SEP_UNROLL
    for (int f = 0; f < nf; f++) rr[f] -= mf[f] * wi;
    if (i < np) r[nf + s->cp[i]] -= s->g[i] * wi;
  }
  for (int k = 0; k < s->np; k++) {
    double t = r[nf + k] / s->Dp[k];
    const double *hb = s->hb + k * nf;
    SEP_UNROLL
    for (int f = 0; f < nf; f++) rr[f] -= hb[f] * t;
  }
  SEP_UNROLL
  for (int i = 0; i < nf; i++) { /* L y = rr, then L^T dx = y */
    double acc = rr[i];
    SEP_UNROLL
    for (int k = 0; k < i; k++) acc -= K[i * nf + k] * rr[k];
    rr[i] = acc / K[i * nf + i];
  }
  SEP_UNROLL
  for (int i = nf - 1; i >= 0; i--) {
    double acc = rr[i];
    SEP_UNROLL
    for (int k = i + 1; k < nf; k++) acc -= K[k * nf + i] * rr[k];
    rr[i] = acc / K[i * nf + i];
  }
  SEP_UNROLL
  for (int f = 0; f < nf; f++) {
    if (!isfinite(rr[f])) return -1;
    dx[f] = dxf[f] = rr[f];
  }
  for (int k = 0; k < s->np; k++) {
    const double *hb = s->hb + k * nf;
    double acc = r[nf + k];
    SEP_UNROLL
    for (int f = 0; f < nf; f++) acc -= hb[f] * dxf[f];
    dx[nf + k] = acc / s->Dp[k];
    if (!isfinite(dx[nf + k])) return -1;
  }
  SEP_UNROLL
  for (int i = 0; i < m; i++) {
    const double *mf = s->Mf + i * nf;
    double md = i < np ? s->g[i] * dx[nf + s->cp[i]] : 0.0;
    SEP_UNROLL
    for (int f = 0; f < nf; f++) md += mf[f] * dxf[f];
    dl[i] = s->wv[i] + s->W[i] * md;
    dv[i] = -s->rp[i] - md;
  }
  return 0;
}

/* Largest step in (0, 1] keeping v, lam > 0 and letting no variable with an
 * objective term fall below SEP_SHRINK of itself. */
static double max_step(const Sep *s, const double *dx, const double *dv, const double *dl) {
  double a = 1.0;
  SEP_UNROLL
  for (int i = 0; i < s->m; i++) {
    if (a * dv[i] < -s->v[i]) a = -s->v[i] / dv[i];
    if (a * dl[i] < -s->lam[i]) a = -s->lam[i] / dl[i];
  }
  SEP_UNROLL
  for (int k = 0; k < s->n; k++)
    if (s->c[k] > 0 && a * dx[k] < -s->x[k] * SEP_SHRINK) a = -s->x[k] * SEP_SHRINK / dx[k];
  return a;
}

/* Mean complementarity after a step of length a along (dv, dl). */
static double comp_after(const Sep *s, double a, const double *dv, const double *dl) {
  double acc = 0.0;
  SEP_UNROLL
  for (int i = 0; i < s->m; i++) acc += (s->v[i] + a * dv[i]) * (s->lam[i] + a * dl[i]);
  return acc / s->m;
}

/* Can the certificate at this iterate reach the cutoff? It is the
 * Lagrangian minimised over the box, so at most its value at the iterate
 * when that is inside the box: obj + sum over the rows it counts of
 * lam (rp - v) (rp - v = the row's M x - h). 0 only when that value falls
 * short of the cutoff by more than its rounding: the certificate is then
 * not computed, as it could not cut. */
SEP_INLINE int may_cut(const Sep *s, double obj) {
  for (int k = 0; k < s->n; k++)
    if (!(s->x[k] >= s->lo[k] && s->x[k] <= s->hi[k])) return 1;
  double est = obj, mag = fabs(obj);
  for (int i = 0; i < s->m; i++) {
    if (s->bound[i]) continue;
    double t = s->lam[i] * (s->rp[i] - s->v[i]);
    est += t;
    mag += fabs(t);
  }
  return est + 1e-9 * mag >= s->cutoff;
}

SEP_INLINE int ipm(Sep *s, int nf, int max_iter, int *iters) {
  int n = s->n, m = s->m;
  memcpy(s->x, s->x0, (size_t)n * sizeof *s->x);
  SEP_UNROLL
  for (int i = 0; i < m; i++) { /* slack of each row at the start, at least SEP_SLACK0 */
    const double *mf = s->Mf + i * nf;
    double acc = s->h[i] - (i < s->npair ? s->g[i] * s->x[nf + s->cp[i]] : 0.0);
    SEP_UNROLL
    for (int f = 0; f < nf; f++) acc -= mf[f] * s->x[f];
    s->v[i] = dmax(acc, SEP_SLACK0);
    s->lam[i] = SEP_SLACK0 / s->v[i]; /* every product v*lam starts at SEP_SLACK0 */
  }
  int status = IPM_MAX_ITER, it = 0, extra = 0;
  for (; it < max_iter; it++) {
    double res[5];
    residuals(s, nf, res);
    double mu = res[3], scale = dmax(1.0, fabs(res[4]));
#ifdef IPM_TRACE
    {
      double lb = weft_sep_certify(s), ub = weft_sep_upper(s);
      fprintf(stderr, "sep it %2d pobj %.12g mu %.3e rd %.2e rp %.2e cert %.2e\n", it, res[4], mu,
              res[0], res[1], (ub - lb) / fabs(lb));
    }
#endif
    /* A caller's cutoff: the bound (valid at any iterate) already reaches it. */
    if (s->cutoff < HUGE_VAL && may_cut(s, res[4]) && weft_sep_certify(s) >= s->cutoff) {
      status = IPM_CUTOFF;
      break;
    }
    /* Stop once the certificate closes the gap; the residual targets alone
     * only allow SEP_EXTRA more tries at it. */
    if (mu * m <= SEP_CERT_MU * scale && res[1] <= SEP_FEAS) {
      double lb = weft_sep_certify(s), ub = weft_sep_upper(s);
      if (ub - lb <= SEP_CERT_GAP * fabs(lb)) {
        status = IPM_SOLVED;
        break;
      }
    }
    if (mu * m <= SEP_GAP * scale && res[0] <= SEP_DUAL * scale && res[1] <= SEP_FEAS &&
        ++extra > SEP_EXTRA) {
      status = IPM_SOLVED;
      break;
    }
    /* Predictor (rc = v.*lam, carried in dla: read before written). */
    SEP_UNROLL
    for (int i = 0; i < m; i++) s->dla[i] = s->v[i] * s->lam[i];
    if (kkt_factor(s, nf) != 0 || newton(s, nf, s->dla, s->dxa, s->dva, s->dla) != 0) {
      status = IPM_NUMERICAL;
      break;
    }
    double aa = max_step(s, s->dxa, s->dva, s->dla), mua = 0.0;
    SEP_UNROLL
    for (int i = 0; i < m; i++) mua += (s->v[i] + aa * s->dva[i]) * (s->lam[i] + aa * s->dla[i]);
    if (m > 0) mua /= m;
    double q = mu > 0 ? mua / mu : 0.0, sigma = q * q * q;
    if (sigma > 1.0) sigma = 1.0;
    /* Aim neither below what the tolerance needs nor below the
     * infeasibility (an iterate that closes the gap first sticks). */
    double floor_mu = SEP_MU_FLOOR * SEP_GAP * scale / (m > 0 ? m : 1);
    floor_mu = dmax(floor_mu, SEP_INFEAS_FLOOR * res[1] * SEP_SLACK0);
    if (sigma * mu < floor_mu) sigma = floor_mu / mu < 1.0 ? floor_mu / mu : 1.0;
    /* Corrector: centring plus the second-order term (rc carried in dl). */
    SEP_UNROLL
    for (int i = 0; i < m; i++) s->dl[i] = s->v[i] * s->lam[i] + s->dva[i] * s->dla[i] - sigma * mu;
    if (newton(s, nf, s->dl, s->dx, s->dv, s->dl) != 0) {
      status = IPM_NUMERICAL;
      break;
    }
    double frac = dmax(SEP_STEP_FRAC, 1.0 - SEP_FRAC_MU * mu);
    double a = frac * max_step(s, s->dx, s->dv, s->dl);
    if (a > 1.0) a = 1.0;
    /* The second-order term is the affine step's, taken in full: when that
     * step is short it can swamp the centring and the corrected step then
     * raises complementarity (on c/x the cycle never ends). Then take the
     * plain centred Newton step instead (its own second-order error only). */
    if (m > 0 && comp_after(s, a, s->dv, s->dl) > mu) {
      SEP_UNROLL
      for (int i = 0; i < m; i++) s->dl[i] = s->v[i] * s->lam[i] - sigma * mu;
      if (newton(s, nf, s->dl, s->dx, s->dv, s->dl) != 0) {
        status = IPM_NUMERICAL;
        break;
      }
      a = frac * max_step(s, s->dx, s->dv, s->dl);
      if (a > 1.0) a = 1.0;
    }
    if (a < SEP_MIN_STEP) {
      status = IPM_NUMERICAL;
      break;
    }
    SEP_UNROLL
    for (int k = 0; k < n; k++) s->x[k] += a * s->dx[k];
    SEP_UNROLL
    for (int i = 0; i < m; i++) {
      s->v[i] += a * s->dv[i];
      s->lam[i] += a * s->dl[i];
    }
  }
  *iters = it;
  return status;
}

int weft_sep_ipm(Sep *s, int max_iter, int *iters) {
  switch (s->nf) {
    case 1: return ipm(s, 1, max_iter, iters);
    case 2: return ipm(s, 2, max_iter, iters);
    case 3: return ipm(s, 3, max_iter, iters);
    case 4: return ipm(s, 4, max_iter, iters);
    default: return ipm(s, s->nf, max_iter, iters);
  }
}
