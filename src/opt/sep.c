/* sep.c — the fast path: the separable, linearly constrained program in
 * pattern rates (sep.h), scaled, with its equalities solved for some
 * unknowns; its start; the solve (certify.c gives its lower bound). */
#include <math.h>
#include <string.h>

#include "opt/problem.h"

#define SEP_DROP 1e-12  /* a row whose terms cancel below this (relative) has no free part */

/* Hands out pieces of one arena block. */
typedef struct {
  double *d;
  int *i;
} Carve;

static double *take_d(Carve *cv, int n) {
  double *p = cv->d;
  cv->d += n;
  return p;
}

static int *take_i(Carve *cv, int n) {
  int *p = cv->i;
  cv->i += n;
  return p;
}

/* Reduce the scaled equalities [A | b] (ne x nb) to u_piv = b' - A'.u_free
 * with complete pivoting, s (column nb-1 when ppc) last. piv[e] gets each
 * row's unknown. Returns 0, or -1 when a pivot vanishes. */
static int eliminate(double *A, double *b, int ne, int nb, int ppc, int *piv) {
  int used[2 * WEFT_MAX_DIMS + 2] = {0};
  for (int e = 0; e < ne; e++) {
    int br = -1, bc = -1;
    double best = 0.0;
    for (int pass = 0; pass < 2 && br < 0; pass++) /* s only when nothing else will do */
      for (int i = e; i < ne; i++)
        for (int k = 0; k < nb; k++) {
          if (used[k] || (pass == 0 && ppc && k == nb - 1)) continue;
          if (fabs(A[i * nb + k]) > best * (1.0 + 1e-12) + 1e-9) {
            best = fabs(A[i * nb + k]);
            br = i;
            bc = k;
          }
        }
    if (br < 0) return -1;
    if (br != e) {
      for (int k = 0; k < nb; k++) { double t = A[e * nb + k]; A[e * nb + k] = A[br * nb + k]; A[br * nb + k] = t; }
      double t = b[e]; b[e] = b[br]; b[br] = t;
    }
    double pv = A[e * nb + bc];
    for (int k = 0; k < nb; k++) A[e * nb + k] /= pv;
    b[e] /= pv;
    for (int i = 0; i < ne; i++) { /* to reduced row echelon form */
      double f = A[i * nb + bc];
      if (i == e || f == 0.0) continue;
      for (int k = 0; k < nb; k++) A[i * nb + k] -= f * A[e * nb + k];
      A[i * nb + bc] = 0.0;
      b[i] -= f * b[e];
    }
    used[bc] = 1;
    piv[e] = bc;
  }
  return 0;
}

/* Substitute u = e0 + E f into row ru (nb) + gamma*w <= rhs and normalise:
 * out (nf), *g, *h. Returns 1, or 0 when nothing is left of the row: then
 * *h is its rhs less its constant, relative to their size (>= 0: it holds). */
SEP_INLINE int sub_row_nf(const Sep *s, int nf, const double *ru, double gamma, double rhs,
                          double *out, double *g, double *h) {
  double mx = fabs(gamma), mag = fabs(rhs), in = fabs(gamma);
  for (int f = 0; f < nf; f++) out[f] = 0.0;
  for (int k = 0; k < s->nb; k++) {
    if (ru[k] == 0.0) continue;
    rhs -= ru[k] * s->e0[k];
    mag += fabs(ru[k] * s->e0[k]);
    for (int f = 0; f < nf; f++) {
      double t = ru[k] * s->E[k * nf + f], a = fabs(t);
      out[f] += t;
      in = a > in || in != in ? a : in; /* fmax(in, a), without its call */
    }
  }
  for (int f = 0; f < nf; f++) mx = fabs(out[f]) > mx ? fabs(out[f]) : mx;
  if (mx <= SEP_DROP * in || !(mx > 0.0)) { /* relative: the row's own terms cancelled */
    *h = mag > 0 ? rhs / mag : 0.0;
    return 0;
  }
  for (int f = 0; f < nf; f++) out[f] /= mx;
  *g = gamma / mx;
  *h = rhs / mx;
  return 1;
}

/* sub_row_nf compiled for each small nf (SEP_INLINE). */
static int sub_row(const Sep *s, const double *ru, double gamma, double rhs, double *out,
                   double *g, double *h) {
  switch (s->nf) {
    case 1: return sub_row_nf(s, 1, ru, gamma, rhs, out, g, h);
    case 2: return sub_row_nf(s, 2, ru, gamma, rhs, out, g, h);
    case 3: return sub_row_nf(s, 3, ru, gamma, rhs, out, g, h);
    case 4: return sub_row_nf(s, 4, ru, gamma, rhs, out, g, h);
    default: return sub_row_nf(s, s->nf, ru, gamma, rhs, out, g, h);
  }
}

int weft_sep_build(WeftProblem *p, const double *B0, const double *hiB, double cost_min) {
  Sep *s = &p->sep;
  int D = p->D, P = p->npat, ppc = weft_problem_is_tc(p);
  /* With a constant cost (c0 > 0) the cost row g.y + c0 s = 1 is kept as
   * the inequality g.y + c0 s <= 1 (crow), not solved for an unknown: every
   * other row is homogeneous in (y, s, w) and the objective falls as they
   * grow, so the row is tight at the optimum (docs/model.md "System cost"). */
  int crow = ppc && p->oc0 > 0.0;
  int npair = 0, nfree = 0, nb = D + ppc, ne = p->neq + (ppc && !crow);
  for (int k = 0; k < P * D; k++) npair += p->u[k] > 0;
  for (int d = 0; d < D; d++) nfree += !p->used[d]; /* only they need a B >= 0 row */
  double Ctot = 0.0;
  for (int j = 0; j < p->njobs; j++) Ctot += p->job[j].weight * p->job[j].C[0];
  int nf = nb - ne, n = nf + P, mmax = npair + p->nle + nfree + 1 + crow;
  s->D = D;
  s->nb = nb;
  s->np = P;
  s->nf = nf;
  s->n = n;
  s->npair = npair;
  /* The program (zeroed: built by parts), then the method's state and work
   * (not zeroed: the method writes each before it reads it, sep_ipm.c) */
  size_t nd = (size_t)(nb + P + nb + nb * nf + 4 * n + mmax * nf + 2 * mmax + ne * nb + ne);
  size_t nw = (size_t)(10 * mmax + 4 * n + P + P * nf + nf * nf + n);
  size_t ni = (size_t)(mmax + P + 1 + ne + nb + (nf > 0 ? nf : 1));
  Carve cv, cw;
  cv.d = arena_calloc(&p->arena, nd, sizeof(double));
  cw.d = arena_alloc(&p->arena, nw, sizeof(double));
  cv.i = arena_calloc(&p->arena, ni, sizeof(int));
  s->bound = arena_calloc(&p->arena, (size_t)mmax, 1);
  if (!cv.d || !cw.d || !cv.i || !s->bound) return WEFT_ENOMEM;
  s->xs = take_d(&cv, nb + P); s->e0 = take_d(&cv, nb); s->E = take_d(&cv, nb * nf);
  s->c = take_d(&cv, n); s->lo = take_d(&cv, n); s->hi = take_d(&cv, n); s->x0 = take_d(&cv, n);
  s->Mf = take_d(&cv, mmax * nf); s->g = take_d(&cv, mmax); s->h = take_d(&cv, mmax);
  s->v = take_d(&cw, mmax); s->lam = take_d(&cw, mmax); s->W = take_d(&cw, mmax);
  s->iv = take_d(&cw, mmax); s->rp = take_d(&cw, mmax); s->wv = take_d(&cw, mmax);
  s->dv = take_d(&cw, mmax); s->dl = take_d(&cw, mmax); s->dva = take_d(&cw, mmax);
  s->dla = take_d(&cw, mmax);
  s->x = take_d(&cw, n); s->rd = take_d(&cw, n); s->dx = take_d(&cw, n); s->dxa = take_d(&cw, n);
  s->Dp = take_d(&cw, P); s->hb = take_d(&cw, P * nf); s->K = take_d(&cw, nf * nf);
  s->r = take_d(&cw, n);
  double *A = take_d(&cv, ne * nb), *b = take_d(&cv, ne);
  s->cp = take_i(&cv, mmax); s->pat0 = take_i(&cv, P + 1);
  int *piv = take_i(&cv, ne), *fidx = take_i(&cv, nb);
  s->fk = take_i(&cv, nf > 0 ? nf : 1);
  /* Natural start: y = B/cost and s = 1/cost for time x cost (cost =
   * oc0 + ocg.B); each rate as large as its pattern's rows allow. Scales
   * are the start's own. */
  double cost0 = p->oc0, u0[WEFT_MAX_DIMS + 1], w0;
  for (int d = 0; d < D; d++) cost0 += p->ocg[d] * B0[d];
  double s0 = ppc ? 1.0 / cost0 : 1.0, mean = 0.0;
  int cnt = 0;
  for (int d = 0; d < D; d++) {
    u0[d] = B0[d] * s0;
    if (u0[d] > 0) { mean += u0[d]; cnt++; }
  }
  if (ppc) u0[D] = s0;
  mean = cnt ? mean / cnt : 1.0;
  /* A bandwidth at 0 in the start is measured by the others' mean, or by
   * its box when that is smaller: a dim priced 1e11 times another under a
   * budget lives in [0, 1e-11] of the other's range, and at the mean its
   * budget row would shrink below the residual tolerance. */
  for (int k = 0; k < nb; k++) {
    double box = k < D ? (ppc ? 1.0 / p->ocg[k] : hiB[k]) : HUGE_VAL;
    s->xs[k] = u0[k] > 0 ? u0[k] : box > 0.0 && box < mean ? box : mean;
  }
  for (int k = 0; k < P; k++) {
    w0 = HUGE_VAL;
    for (int d = 0; d < D; d++) {
      double u = p->u[(size_t)k * (size_t)D + (size_t)d];
      if (u > 0) w0 = fmin(w0, u0[d] / u);
    }
    s->xs[nb + k] = w0;
  }
  /* Equalities, scaled, solved for ne of the unknowns. */
  for (int e = 0; e < ne; e++) {
    double *a = A + e * nb, mx = 0.0;
    if (e < p->neq) {
      for (int d = 0; d < D; d++) a[d] = p->Geq[(size_t)e * (size_t)D + (size_t)d];
      if (ppc) a[D] = -p->heq[e]; else b[e] = p->heq[e];
    } else { /* the cost row ocg.y = 1 (oc0 = 0) */
      for (int d = 0; d < D; d++) a[d] = p->ocg[d];
      b[e] = 1.0;
    }
    for (int k = 0; k < nb; k++) { a[k] *= s->xs[k]; mx = fabs(a[k]) > mx ? fabs(a[k]) : mx; }
    for (int k = 0; k < nb; k++) a[k] /= mx;
    b[e] /= mx;
  }
  if (eliminate(A, b, ne, nb, ppc, piv)) return WEFT_OK; /* p->fast = 0: general path */
  /* fidx[k]: k's index among the free unknowns, or -(e + 2) when row e's
   * pivot (-1 while unassigned). */
  for (int k = 0; k < nb; k++) fidx[k] = -1;
  for (int e = 0; e < ne; e++) fidx[piv[e]] = -(e + 2);
  for (int k = 0, f = 0; k < nb; k++)
    if (fidx[k] == -1) {
      s->E[k * nf + f] = 1.0;
      s->fk[f] = k;
      fidx[k] = f++;
    }
  for (int k = 0; k < nb; k++) {
    if (fidx[k] >= 0) continue;
    int e = -fidx[k] - 2;
    s->e0[k] = b[e];
    for (int j = 0; j < nb; j++)
      if (fidx[j] >= 0) s->E[k * nf + fidx[j]] = -A[e * nb + j];
  }
  s->is = ppc ? fidx[D] : -1;
  s->objconst = ppc ? 0.0 : Ctot;
  if (ppc && s->is < 0) { /* s eliminated: fine only when the rows fix it */
    for (int f = 0; f < nf; f++)
      if (s->E[D * nf + f] != 0.0) return WEFT_OK;
    if (!(s->e0[D] > 0.0)) return WEFT_OK;
    s->objconst = Ctot / (s->e0[D] * s->xs[D]);
  }
  /* Objective: perf objconst + sum c_p/w_p, perf-per-cost Ctot/s + sum c_p/w_p. */
  double f0 = 0.0;
  for (int j = 0; j < p->njobs; j++)
    for (int k = 0; k < P; k++) s->c[nf + k] += p->job[j].weight * p->job[j].a[k];
  for (int k = 0; k < P; k++) f0 += s->c[nf + k] / s->xs[nb + k];
  if (s->is >= 0) {
    s->c[s->is] = Ctot;
    f0 += Ctot / s->xs[D];
  }
  s->fs = f0 > 0 ? f0 : 1.0;
  for (int k = 0; k < nb; k++)
    if (fidx[k] >= 0) s->c[fidx[k]] /= s->xs[k] * s->fs;
  for (int k = 0; k < P; k++) s->c[nf + k] /= s->xs[nb + k] * s->fs;
  /* Box (B in [0, hiB], y in [0, min(1/ocg, hiB/cost_min)], s in [0,
   * 1/cost_min]) and start: y_d = B_d s is at most hiB_d / cost_min where
   * a row bounds B_d, far below 1/ocg_d when the cost's constant dominates
   * (an NPU's price): the certificate's infimum over the box is then
   * tighter from the first iterates. */
  double yhi[WEFT_MAX_DIMS];
  for (int d = 0; d < D; d++)
    yhi[d] = ppc ? fmin(1.0 / p->ocg[d], hiB[d] / cost_min) : hiB[d];
  for (int k = 0; k < nb; k++) {
    if (fidx[k] < 0) continue;
    double hi = k == D ? 1.0 / cost_min : yhi[k];
    s->hi[fidx[k]] = hi / s->xs[k];
    s->x0[fidx[k]] = u0[k] / s->xs[k];
  }
  for (int k = 0; k < P; k++) {
    double hi = HUGE_VAL;
    for (int d = 0; d < D; d++) {
      double u = p->u[(size_t)k * (size_t)D + (size_t)d];
      if (u > 0) hi = fmin(hi, yhi[d] / u);
    }
    s->hi[nf + k] = hi / s->xs[nb + k];
    s->x0[nf + k] = 1.0;
  }
  /* Rows: the coupling rows u_pd w_p - B_d <= 0, the user rows (perf-per-
   * cost: G y - h s <= 0), B_d >= 0 for unused dims, s >= 0 if it needs it,
   * the cost row ocg.y + oc0 s <= 1 when kept (crow). */
  int m = 0;
  double ru[WEFT_MAX_DIMS + 1];
  for (int k = 0; k < P; k++) {
    s->pat0[k] = m;
    for (int d = 0; d < D; d++) {
      double u = p->u[(size_t)k * (size_t)D + (size_t)d];
      if (u <= 0) continue;
      for (int j = 0; j < nb; j++) ru[j] = 0.0; /* nb entries: a memset of all of ru costs more */
      ru[d] = -s->xs[d];
      sub_row(s, ru, u * s->xs[nb + k], 0.0, s->Mf + m * nf, &s->g[m], &s->h[m]);
      s->cp[m++] = k;
    }
  }
  s->pat0[P] = m;
  for (int r = 0; r < p->nle + D + 1 + crow; r++) {
    double rhs = 0.0;
    int bnd = -1; /* the unknown of a bound row */
    for (int j = 0; j < nb; j++) ru[j] = 0.0;
    if (r < p->nle) {
      for (int d = 0; d < D; d++) ru[d] = p->Gle[(size_t)r * (size_t)D + (size_t)d] * s->xs[d];
      if (ppc) ru[D] = -p->hle[r] * s->xs[D]; else rhs = p->hle[r];
    } else if (r < p->nle + D) {
      bnd = r - p->nle;
      if (p->used[bnd]) continue;
    } else if (r == p->nle + D) {
      bnd = D;
      if (!ppc || s->is < 0 || Ctot > 0.0) continue;
    } else { /* the cost row: y and s at their scales */
      for (int d = 0; d < D; d++) ru[d] = p->ocg[d] * s->xs[d];
      ru[D] = p->oc0 * s->xs[D];
      rhs = 1.0;
    }
    if (bnd >= 0) ru[bnd] = -1.0;
    if (!sub_row(s, ru, 0.0, rhs, s->Mf + m * nf, &s->g[m], &s->h[m])) {
      if (s->h[m] < -SEP_DROP) return WEFT_OK; /* cannot hold: the general path decides */
      continue; /* fixed by the equalities */
    }
    s->bound[m] = bnd >= 0 && fidx[bnd] >= 0;
    m++;
  }
  s->m = m;
  p->fast = 1;
  return WEFT_OK;
}

int weft_sep_solve(WeftProblem *p, const WeftSettings *st, double cutoff, double *bw, double *lb,
                   int *iters) {
  Sep *s = &p->sep;
  double sign = s->fs * p->ofactor; /* natural = (objconst + fs * scaled) * ofactor */
  s->cutoff = isfinite(cutoff) && sign > 0 ? (cutoff / p->ofactor - s->objconst) / s->fs : HUGE_VAL;
  int status = weft_sep_ipm(s, st->max_iter, iters);
  *lb = (s->objconst + s->fs * weft_sep_certify(s)) * p->ofactor;
  double un[WEFT_MAX_DIMS + 1];
  for (int k = 0; k < s->nb; k++) { /* the unknowns from the free ones, natural */
    double acc = s->e0[k];
    for (int f = 0; f < s->nf; f++) acc += s->E[k * s->nf + f] * s->x[f];
    un[k] = acc * s->xs[k];
  }
  double sc = s->nb > s->D ? un[s->D] : 1.0;
  for (int d = 0; d < s->D; d++) bw[d] = fmax(0.0, un[d] / sc);
  return status;
}
