/* precheck.c — the linear side of a problem before its solve: feasibility
 * and conflict sets, boundedness, starting points (small LPs), and the
 * cheapest design among optimal ones (the tie-break LP). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt/problem.h"

/* A start must keep every used dim at least this far from 0, relative to
 * the constraints' own scale; closer, the general path decides (it names a
 * dim the constraints force to 0). 1e3 times the rounding of a start: a
 * dim pinned at 5e-11 of the scale ('sum = 1000' with
 * 'B2 - B1 >= 999.9999999') still takes the fast path, whose eliminated
 * equalities keep it well scaled. */
#define FAST_MIN_START 1e-13
#define LP_FEAS_TOL 1e-9  /* rows may miss by this much, relative (as the LP's phase 1) */

/* user rows + a bound per dim + one cost row */
#define POLY_ROWS (WEFT_MAX_CONSTRAINTS + WEFT_MAX_DIMS + 1)

/* The B-space polyhedron (user rows, plus optional caps) as LP rows. */
typedef struct {
  double A[POLY_ROWS * WEFT_MAX_DIMS];
  double b[POLY_ROWS];
  int rel[POLY_ROWS];
  int src[POLY_ROWS]; /* constraint index, -1 for rows weft adds */
  unsigned char active[POLY_ROWS];
  LpRows rows;
} Poly;

static void poly_init(Poly *q, const WeftProblem *p) {
  int D = p->D, m = 0;
  for (int i = 0; i < p->nle; i++, m++) {
    memcpy(q->A + (size_t)m * (size_t)D, p->Gle + (size_t)i * (size_t)D, (size_t)D * sizeof(double));
    q->b[m] = p->hle[i];
    q->rel[m] = -1;
    q->src[m] = p->le_src[i];
  }
  for (int i = 0; i < p->neq; i++, m++) {
    memcpy(q->A + (size_t)m * (size_t)D, p->Geq + (size_t)i * (size_t)D, (size_t)D * sizeof(double));
    q->b[m] = p->heq[i];
    q->rel[m] = 0;
    q->src[m] = p->eq_src[i];
  }
  memset(q->active, 1, sizeof q->active);
  q->rows.n = D;
  q->rows.m = m;
  q->rows.A = q->A;
  q->rows.b = q->b;
  q->rows.rel = q->rel;
  q->rows.active = q->active;
}

static void poly_add_cap(Poly *q, int D, int d, double cap) {
  int m = q->rows.m;
  memset(q->A + (size_t)m * (size_t)D, 0, (size_t)D * sizeof(double));
  q->A[(size_t)m * (size_t)D + (size_t)d] = 1.0;
  q->b[m] = cap;
  q->rel[m] = -1;
  q->src[m] = -1;
  q->active[m] = 1;
  q->rows.m = m + 1;
}

/* Deletion filter: shrink the active rows to an irreducible infeasible set. */
static void conflict_set(WeftProblem *p, Poly *q) {
  for (int i = 0; i < q->rows.m; i++) {
    q->active[i] = 0;
    if (lp_solve(&q->rows, NULL, NULL, NULL) != LP_INFEASIBLE) q->active[i] = 1;
  }
  p->nconflict = 0;
  size_t len = 0;
  len += (size_t)snprintf(p->pre_message, sizeof p->pre_message, "constraints in conflict:");
  for (int i = 0; i < q->rows.m; i++) {
    if (!q->active[i] || q->src[i] < 0) continue;
    int dup = 0;
    for (int k = 0; k < p->nconflict; k++) dup |= p->conflict[k] == q->src[i];
    if (dup) continue;
    p->conflict[p->nconflict++] = q->src[i];
    if (len < sizeof p->pre_message)
      len += (size_t)snprintf(p->pre_message + len, sizeof p->pre_message - len, "%s '%s'",
                              p->nconflict > 1 ? "," : "", p->cons_text[q->src[i]]);
  }
  if (len < sizeof p->pre_message)
    snprintf(p->pre_message + len, sizeof p->pre_message - len, " (with every B >= 0)");
}

/* INFEASIBLE with the conflict set of the user rows. */
static int infeasible(WeftProblem *p) {
  if (p->no_conflict) {
    p->pre_status = WEFT_STATUS_INFEASIBLE;
    snprintf(p->pre_message, sizeof p->pre_message, "infeasible");
    return WEFT_OK;
  }
  Poly *q = malloc(sizeof *q);
  if (!q) return WEFT_ENOMEM;
  poly_init(q, p);
  p->pre_status = WEFT_STATUS_INFEASIBLE;
  conflict_set(p, q);
  free(q);
  return WEFT_OK;
}

/* Keep a maximal independent subset of the equality rows [G | h]. */
static void reduce_equalities(WeftProblem *p) {
  int D = p->D, kept = 0;
  double basis[WEFT_MAX_CONSTRAINTS][WEFT_MAX_DIMS + 1];
  for (int i = 0; i < p->neq; i++) {
    double v[WEFT_MAX_DIMS + 1], scale = 0.0;
    memcpy(v, p->Geq + (size_t)i * (size_t)D, (size_t)D * sizeof(double));
    v[D] = p->heq[i];
    for (int d = 0; d <= D; d++) scale = fmax(scale, fabs(v[d]));
    for (int k = 0; k < kept; k++) { /* Gram-Schmidt against kept rows */
      double dot = 0.0;
      for (int d = 0; d <= D; d++) dot += v[d] * basis[k][d];
      for (int d = 0; d <= D; d++) v[d] -= dot * basis[k][d];
    }
    double nrm = 0.0;
    for (int d = 0; d < D; d++) nrm += v[d] * v[d]; /* B part only: A must be full rank */
    nrm = sqrt(nrm);
    if (nrm <= 1e-10 * fmax(scale, 1e-300)) continue; /* dependent (or inconsistent: LP caught it) */
    double full = 0.0;
    for (int d = 0; d <= D; d++) full += v[d] * v[d];
    full = sqrt(full);
    for (int d = 0; d <= D; d++) basis[kept][d] = v[d] / full;
    if (kept != i) {
      memmove(p->Geq + (size_t)kept * (size_t)D, p->Geq + (size_t)i * (size_t)D, (size_t)D * sizeof(double));
      p->heq[kept] = p->heq[i];
      p->eq_src[kept] = p->eq_src[i];
    }
    kept++;
  }
  p->neq = kept;
}

/* time x cost with no constant cost (oc0 = 0): B = 0 feasible means
 * time*cost has no minimiser. With oc0 > 0 the cost stays above oc0 as B
 * shrinks while time grows without bound: never so. */
static int zero_feasible(const WeftProblem *p) {
  int zero_ok = !(p->oc0 > 0.0);
  for (int i = 0; i < p->nle; i++) zero_ok &= p->hle[i] >= 0.0;
  for (int i = 0; i < p->neq; i++) zero_ok &= p->heq[i] == 0.0;
  return zero_ok;
}

static void unbounded_ppc(WeftProblem *p) {
  p->pre_status = WEFT_STATUS_UNBOUNDED;
  snprintf(p->pre_message, sizeof p->pre_message,
           "perf-per-cost has no minimum: the constraints let every bandwidth shrink "
           "towards 0; add one that fixes the scale, e.g. 'sum = 1000' or 'cost >= 1e6'");
}

/* The vertex (y, s) of largest cost share ocg_d y_d of dim d over the set
 * {ocg.y + oc0 s = 1, G y <= h s, E y = f s, y, s >= 0} of (y, s) = (B, 1) / C(B)
 * (Charnes-Cooper), bounded whatever the prices and constraints when B = 0
 * is not feasible; the LP's column scaling measures each y_d by its share. */
static LpStatus share_vertex(const WeftProblem *p, int dim, double *v) {
  int D = p->D, n = D + 1, m = 0;
  size_t rows_max = (size_t)(p->nle + p->neq + 1);
  double *A = malloc(rows_max * (size_t)n * sizeof *A), *b = calloc(rows_max, sizeof *b), obj;
  int *rel = malloc(rows_max * sizeof *rel);
  LpStatus st = LP_NOMEM;
  if (A && b && rel) {
    for (int i = 0; i < p->nle + p->neq; i++, m++) { /* G y - h s <= 0, E y - f s = 0 */
      int eq = i >= p->nle;
      const double *gr = eq ? p->Geq + (size_t)(i - p->nle) * (size_t)D : p->Gle + (size_t)i * (size_t)D;
      memcpy(A + (size_t)m * (size_t)n, gr, (size_t)D * sizeof *A);
      A[(size_t)m * (size_t)n + (size_t)D] = -(eq ? p->heq[i - p->nle] : p->hle[i]);
      rel[m] = eq ? 0 : -1;
    }
    memcpy(A + (size_t)m * (size_t)n, p->ocg, (size_t)D * sizeof *A); /* ocg.y + oc0 s = 1 */
    A[(size_t)m * (size_t)n + (size_t)D] = p->oc0;
    b[m] = 1.0;
    rel[m++] = 0;
    LpRows rows = {n, m, A, b, rel, NULL};
    double c[WEFT_MAX_DIMS + 1] = {0};
    c[dim] = -1.0;
    st = lp_solve(&rows, c, v, &obj);
  }
  free(A);
  free(b);
  free(rel);
  return st;
}

/* perf-per-cost when a used dim reads 0 among the vertices under the cap
 * of twice the cheapest cost (q, its cap row last; vert those vertices):
 * priced 1e17 times another, a dim can only reach ~1e-17 of the scale
 * there. Whether it is forced to 0 is asked without the cap (max B_d over
 * the feasible set: 0 only when it is), and the start averages, in
 * (y, s) = (B, 1) / C(B), the cheapest design, those vertices, and for each
 * dim still at 0 its vertex without the cap or, where B_d has no bound, its
 * vertex of largest cost share; mapped back B = y / s (s > 0: the cheapest
 * design's). Any point there is feasible: (y, s) is convex. */
static int ppc_rescue(WeftProblem *p, Poly *q, double (*vert)[WEFT_MAX_DIMS], const double *Bmin) {
  int D = p->D;
  double avg[WEFT_MAX_DIMS + 1] = {0};
  int support[WEFT_MAX_DIMS] = {0};
  q->active[q->rows.m - 1] = 0; /* the cap */
  for (int k = -1; k <= D; k++) {
    double B[WEFT_MAX_DIMS], v[WEFT_MAX_DIMS + 1], c[WEFT_MAX_DIMS] = {0}, obj, cost = p->oc0;
    /* k = -1: the cheapest; 0..D-1: vertex k; D: the dims still at 0 */
    if (k == -1) memcpy(B, Bmin, (size_t)D * sizeof *B);
    else if (k < D) memcpy(B, vert[k], (size_t)D * sizeof *B);
    for (int t = 0; k == D && t < D; t++) {
      if (!p->used[t] || support[t]) continue;
      c[t] = -1.0;
      LpStatus st = lp_solve(&q->rows, c, B, &obj);
      c[t] = 0.0;
      if (st == LP_NOMEM) return WEFT_ENOMEM;
      if (st == LP_OPTIMAL && !(B[t] > 0.0)) { /* max B_t over the feasible set is 0 */
        p->pre_status = WEFT_STATUS_INFEASIBLE;
        snprintf(p->pre_message, sizeof p->pre_message,
                 "B%d carries collective traffic but the constraints force it to 0", t + 1);
        return WEFT_OK;
      }
      if (st == LP_OPTIMAL) {
        for (int e = 0; e < D; e++) cost += p->ocg[e] * B[e];
        for (int e = 0; e < D; e++) v[e] = B[e] / cost;
        v[D] = 1.0 / cost;
      } else if (share_vertex(p, t, v) != LP_OPTIMAL || !(v[t] > 0.0)) {
        continue; /* no point to show: the start keeps B_t at 0 and the solve says so */
      }
      for (int e = 0; e < D; e++) support[e] |= v[e] > 0.0;
      for (int e = 0; e <= D; e++) avg[e] += v[e];
    }
    if (k == D) break;
    for (int e = 0; e < D; e++) cost += p->ocg[e] * B[e];
    if (!(cost > 0.0) || !isfinite(cost)) continue;
    for (int e = 0; e < D; e++) {
      support[e] |= B[e] > 0.0;
      avg[e] += B[e] / cost;
    }
    avg[D] += 1.0 / cost;
  }
  for (int e = 0; e < D; e++) p->gen.Bstart[e] = avg[e] / avg[D]; /* the count cancels */
  return WEFT_OK;
}

/* Feasibility, conflict sets, per-dim bounds and a starting point: one LP
 * per dim (and again when caps were added), for the general path;
 * perf-per-cost's rescued by ppc_rescue where the cap hides a dim. */
int weft_precheck_general(WeftProblem *p) {
  int D = p->D;
  General *g = &p->gen;
  Poly *q = malloc(sizeof *q);
  if (!q) return WEFT_ENOMEM;
  poly_init(q, p);
  p->pre_status = WEFT_STATUS_SOLVED;
  LpStatus st = lp_solve(&q->rows, NULL, NULL, NULL);
  if (st == LP_NOMEM) { free(q); return WEFT_ENOMEM; }
  if (st == LP_INFEASIBLE) {
    free(q);
    return infeasible(p);
  }
  int ppc = weft_problem_is_tc(p);
  double Bmin[WEFT_MAX_DIMS];
  if (ppc) {
    if (zero_feasible(p)) {
      unbounded_ppc(p);
      free(q);
      return WEFT_OK;
    }
    double obj;
    if (lp_solve(&q->rows, p->ocg, Bmin, &obj) != LP_OPTIMAL || !(obj + p->oc0 > 0.0)) { free(q); return WEFT_ESOLVER; }
    g->cost_min = obj + p->oc0;
    /* Start from designs at most twice the cheapest: bounded, and at the
     * scale the constraints set (time*cost needs no other bound); a used
     * dim that looks forced to 0 there is judged in cost shares. */
    int m = q->rows.m;
    memcpy(q->A + (size_t)m * (size_t)D, p->ocg, (size_t)D * sizeof(double));
    q->b[m] = 2.0 * obj + p->oc0; /* oc0 + ocg.B <= 2 cost_min, less its constant */
    q->rel[m] = -1;
    q->src[m] = -1;
    q->active[m] = 1;
    q->rows.m = m + 1;
  }
  double vert[WEFT_MAX_DIMS][WEFT_MAX_DIMS];
  int unb[WEFT_MAX_DIMS];
  double big = 1.0;
  for (int d = 0; d < D; d++) {
    double c[WEFT_MAX_DIMS] = {0}, obj;
    c[d] = -1.0;
    st = lp_solve(&q->rows, c, vert[d], &obj);
    if (st == LP_NOMEM) { free(q); return WEFT_ENOMEM; }
    unb[d] = st == LP_UNBOUNDED;
    g->U[d] = unb[d] ? HUGE_VAL : -obj;
    if (!unb[d])
      for (int k = 0; k < D; k++) big = fmax(big, vert[d][k]);
  }
  for (int i = 0; i < q->rows.m; i++) big = fmax(big, fabs(q->b[i]));
  g->cap_gbps = 10.0 * big; /* far above anything the data asks for */
  int any_cap = 0;
  for (int d = 0; d < D; d++) {
    if (!unb[d]) continue;
    if (p->used[d]) {
      p->pre_status = WEFT_STATUS_UNBOUNDED;
      snprintf(p->pre_message, sizeof p->pre_message,
               "B%d can grow without limit, so iteration time has no minimum: "
               "add an upper bound such as 'sum <= 1000' or 'cost <= ...'", d + 1);
      free(q);
      return WEFT_OK;
    }
    g->capped[d] = any_cap = 1;
    poly_add_cap(q, D, d, g->cap_gbps);
  }
  for (int d = 0; d < D && any_cap; d++) { /* vertices again: caps changed the polyhedron */
    double c[WEFT_MAX_DIMS] = {0}, obj;
    c[d] = -1.0;
    if (lp_solve(&q->rows, c, vert[d], &obj) != LP_OPTIMAL) { free(q); return WEFT_ESOLVER; }
    g->U[d] = -obj;
  }
  for (int d = 0; d < D; d++) {
    if (ppc && p->used[d] && g->U[d] <= 0.0) { /* B_d ~1e-17 of the scale under the cap reads 0 */
      int rc = ppc_rescue(p, q, vert, Bmin);
      free(q);
      if (!rc && p->pre_status == WEFT_STATUS_SOLVED) reduce_equalities(p);
      return rc;
    }
    if (p->used[d] && g->U[d] <= 0.0) {
      p->pre_status = WEFT_STATUS_INFEASIBLE;
      snprintf(p->pre_message, sizeof p->pre_message,
               "B%d carries collective traffic but the constraints force it to 0", d + 1);
      free(q);
      return WEFT_OK;
    }
    g->Bstart[d] = 0.0;
    for (int k = 0; k < D; k++) g->Bstart[d] += vert[k][d] / D; /* feasible: convex combination */
  }
  free(q);
  reduce_equalities(p);
  return WEFT_OK;
}

/* Rows of the user constraints into p->lp_* with ncol columns (the first D
 * carry B, the rest 0). Returns the row count. */
static int lp_user_rows(WeftProblem *p, int ncol) {
  int D = p->D, m = 0;
  memset(p->lp_A, 0, (size_t)(p->nle + p->neq) * (size_t)ncol * sizeof(double));
  for (int i = 0; i < p->nle; i++, m++) {
    memcpy(p->lp_A + (size_t)m * (size_t)ncol, p->Gle + (size_t)i * (size_t)D, (size_t)D * sizeof(double));
    p->lp_b[m] = p->hle[i];
    p->lp_rel[m] = -1;
  }
  for (int i = 0; i < p->neq; i++, m++) {
    memcpy(p->lp_A + (size_t)m * (size_t)ncol, p->Geq + (size_t)i * (size_t)D, (size_t)D * sizeof(double));
    p->lp_b[m] = p->heq[i];
    p->lp_rel[m] = 0;
  }
  return m;
}

static double *lp_row(WeftProblem *p, int r, int ncol) {
  double *a = p->lp_A + (size_t)r * (size_t)ncol;
  memset(a, 0, (size_t)ncol * sizeof *a);
  return a;
}

/* Upper bounds of each B_d read off rows with no negative coefficient
 * (sum = S, cost <= X, ...); HUGE_VAL where no row bounds it. */
static void row_bounds(const WeftProblem *p, double *hi) {
  int D = p->D;
  for (int d = 0; d < D; d++) hi[d] = HUGE_VAL;
  for (int i = 0; i < p->nle + 2 * p->neq; i++) {
    const double *g;
    double h, sign = 1.0;
    if (i < p->nle) {
      g = p->Gle + (size_t)i * (size_t)D;
      h = p->hle[i];
    } else {
      int k = (i - p->nle) / 2;  /* each equality read both ways */
      g = p->Geq + (size_t)k * (size_t)D;
      h = p->heq[k];
      sign = (i - p->nle) % 2 ? -1.0 : 1.0;
    }
    int nonneg = 1;
    for (int d = 0; d < D; d++) nonneg &= sign * g[d] >= 0.0;
    if (!nonneg || !(sign * h >= 0.0)) continue;
    for (int d = 0; d < D; d++)
      if (sign * g[d] > 0.0) hi[d] = fmin(hi[d], sign * h / (sign * g[d]));
  }
}

/* A start without an LP, when it is one: the least-norm point of the
 * equalities moved along the used dims (projected on the equalities) as far
 * as the inequalities allow (sum = S: B_d = S/D; cost <= X: B_d ~
 * 1/sqrt(cpg_d) at cost X; LIBRA's set: 500, 300, 100, 100). Returns 1 with B feasible (every row within
 * LP_FEAS_TOL-like slack, used dims clear of 0), else 0: the LP decides. */
static int start_ok(const WeftProblem *p, double *B);

static int candidate(const WeftProblem *p, double *B) {
  int D = p->D, kept = 0;
  double q[WEFT_MAX_DIMS][WEFT_MAX_DIMS], beta[WEFT_MAX_DIMS], z[WEFT_MAX_DIMS];
  /* perf-per-cost leans on cheap dims: the norm weighs B_d^2 by cpg_d
   * (B_d ~ 1/cpg_d under a sum), as its optimum does; sw = 1/sqrt(weight). */
  double sw[WEFT_MAX_DIMS];
  for (int d = 0; d < D; d++)
    sw[d] = weft_problem_is_tc(p) ? 1.0 / sqrt(p->ocg[d]) : 1.0;
  for (int i = 0; i < p->neq && kept < D; i++) { /* orthonormal rows, Gram-Schmidt */
    double v[WEFT_MAX_DIMS], r = p->heq[i], n0 = 0.0, nrm = 0.0;
    for (int d = 0; d < D; d++) v[d] = p->Geq[(size_t)i * (size_t)D + (size_t)d] * sw[d];
    for (int d = 0; d < D; d++) n0 += v[d] * v[d];
    for (int k = 0; k < kept; k++) {
      double dot = 0.0;
      for (int d = 0; d < D; d++) dot += v[d] * q[k][d];
      for (int d = 0; d < D; d++) v[d] -= dot * q[k][d];
      r -= dot * beta[k];
    }
    for (int d = 0; d < D; d++) nrm += v[d] * v[d];
    if (!(nrm > 1e-20 * n0)) continue; /* dependent: checked with the others below */
    nrm = sqrt(nrm);
    for (int d = 0; d < D; d++) q[kept][d] = v[d] / nrm;
    beta[kept++] = r / nrm;
  }
  for (int d = 0; d < D; d++) {
    B[d] = 0.0;
    /* along B_d ~ 1/sqrt(cpg_d): under a cost budget the optimum leans on
     * cheap dims (perf-per-cost only asks whether z vanishes) */
    z[d] = !p->used[d] ? 0.0 : p->objective == WEFT_OBJ_PERF ? 1.0 / sqrt(p->cpg[d]) : sw[d];
  }
  for (int k = 0; k < kept; k++) {
    double dot = 0.0;
    for (int d = 0; d < D; d++) dot += z[d] * q[k][d];
    for (int d = 0; d < D; d++) {
      B[d] += beta[k] * q[k][d];
      z[d] -= dot * q[k][d];
    }
  }
  for (int d = 0; d < D; d++) { /* back from the weighted coordinates */
    B[d] *= sw[d];
    z[d] *= sw[d];
  }
  double zn = 0.0, t = HUGE_VAL;
  for (int d = 0; d < D; d++) zn = fmax(zn, fabs(z[d]));
  if (zn > 1e-9 && weft_problem_is_tc(p))
    return 0; /* the far end would be the dearest design: the LP starts near the cheapest */
  if (zn > 1e-9) { /* along z until an inequality stops it */
    for (int i = 0; i < p->nle; i++) {
      const double *g = p->Gle + (size_t)i * (size_t)D;
      double gz = 0.0, gb = 0.0;
      for (int d = 0; d < D; d++) { gz += g[d] * z[d]; gb += g[d] * B[d]; }
      if (gz > 1e-12 * zn) t = fmin(t, (p->hle[i] - gb) / gz);
    }
    if (!isfinite(t) || !(t > 0.0)) return 0;
    for (int d = 0; d < D; d++) B[d] += t * z[d];
  }
  return start_ok(p, B);
}

/* B (internal units) as the fast path's start: every used dim positive, no
 * dim below 0 (past rounding: set to 0), every row met. 1 when it is. */
static int start_ok(const WeftProblem *p, double *B) {
  int D = p->D;
  double scale = 1.0;
  for (int d = 0; d < D; d++) scale = fmax(scale, fabs(B[d]));
  for (int d = 0; d < D; d++) {
    if (B[d] < -LP_FEAS_TOL * scale) return 0;
    if (B[d] < 0.0) B[d] = 0.0;
    if (p->used[d] && !(B[d] > FAST_MIN_START * scale)) return 0;
  }
  for (int i = 0; i < p->nle + p->neq; i++) { /* every row, the dependent ones too */
    int eq = i >= p->nle;
    const double *g = eq ? p->Geq + (size_t)(i - p->nle) * (size_t)D : p->Gle + (size_t)i * (size_t)D;
    double h = eq ? p->heq[i - p->nle] : p->hle[i], acc = 0.0, mag = fabs(h);
    for (int d = 0; d < D; d++) { acc += g[d] * B[d]; mag += fabs(g[d] * B[d]); }
    if (acc - h > LP_FEAS_TOL * mag || (eq && h - acc > LP_FEAS_TOL * mag)) return 0;
  }
  return 1;
}

/* A positive lower bound on the objective's cost oc0 + ocg.B over the
 * feasible set: oc0 plus what a row sum g_d B_d >= h > 0 with g >= 0 (sum =
 * S, sum >= S, cost >= X, ...) gives, or 0 when neither gives one. */
static double cost_floor(const WeftProblem *p) {
  int D = p->D;
  double best = 0.0;
  for (int i = 0; i < p->nle + 2 * p->neq; i++) {
    const double *g;
    double h, sign = -1.0; /* LE rows g.B <= h read as -g.B >= -h */
    if (i < p->nle) {
      g = p->Gle + (size_t)i * (size_t)D;
      h = p->hle[i];
    } else {
      int k = (i - p->nle) / 2;
      g = p->Geq + (size_t)k * (size_t)D;
      h = p->heq[k];
      sign = (i - p->nle) % 2 ? -1.0 : 1.0;
    }
    double ratio = HUGE_VAL;
    int ok = sign * h > 0.0;
    for (int d = 0; d < D && ok; d++) {
      double gd = sign * g[d];
      if (gd < 0.0) ok = 0;
      else if (gd > 0.0) ratio = fmin(ratio, p->ocg[d] / gd);
    }
    if (ok && isfinite(ratio)) best = fmax(best, ratio * sign * h);
  }
  return p->oc0 + best;
}

/* The fast path's start by LP (cost_min from the LP that finds the cheapest
 * design when floor0 is 0, else floor0): builds the fast path, or leaves
 * it to the general one; START_RETRY when floor0 made the start's LP
 * infeasible (the cheapest design's LP decides). */
enum { START_RETRY = 1 };
static int start_lp(WeftProblem *p, double floor0, const double *hiB, double *x) {
  int D = p->D, ppc = weft_problem_is_tc(p);
  double scale = 1.0;
  LpRows rows;
  rows.A = p->lp_A;
  rows.b = p->lp_b;
  rows.rel = p->lp_rel;
  rows.active = NULL;
  LpStatus st;
  double cost_min = floor0;
  if (ppc && !(floor0 > 0.0)) { /* the cheapest design first: feasibility and the scale */
    rows.n = D;
    rows.m = lp_user_rows(p, D);
    st = lp_solve_ws(&rows, p->ocg, NULL, &cost_min, &p->lpw);
    if (st == LP_INFEASIBLE) return infeasible(p);
    cost_min += p->oc0; /* the objective's cost, its constant included */
    if (st != LP_OPTIMAL || !(cost_min > 0.0)) return WEFT_OK;
  }
  /* max t subject to the rows, B_d >= t for used d (and cost <= 2 cost_min). */
  int nc = D + 1, m = lp_user_rows(p, nc);
  if (ppc) {
    double *a = lp_row(p, m, nc);
    memcpy(a, p->ocg, (size_t)D * sizeof(double));
    p->lp_b[m] = 2.0 * cost_min - p->oc0;
    p->lp_rel[m++] = -1;
  }
  for (int d = 0; d < D; d++) {
    if (!p->used[d]) continue;
    double *a = lp_row(p, m, nc);
    a[d] = 1.0;
    a[D] = -1.0;
    p->lp_b[m] = 0.0;
    p->lp_rel[m++] = +1;
  }
  rows.n = nc;
  rows.m = m;
  double c[WEFT_MAX_DIMS + 1] = {0}, obj;
  c[D] = -1.0;
  st = lp_solve_ws(&rows, c, x, &obj, &p->lpw);
  if (st == LP_INFEASIBLE) return floor0 > 0.0 ? START_RETRY : infeasible(p);
  if (st != LP_OPTIMAL) return WEFT_OK;
  for (int i = 0; i < m; i++) scale = fmax(scale, fabs(p->lp_b[i]));
  if (!(x[D] > FAST_MIN_START * scale)) return WEFT_OK;
  reduce_equalities(p);
  return weft_sep_build(p, x, hiB, cost_min); /* sets p->fast */
}

/* The fast path's pre-checks. A start from candidate() when it holds (no
 * LP), else one LP (two for perf-per-cost) on the user rows: feasibility
 * and a start maximising the smallest used B_d. Leaves p->fast = 0 (the
 * general path decides) when a job has several time rows, a cost is not
 * positive, a dim is not bounded by a row read at a glance (perf), or a
 * used dim cannot be kept away from 0. */
int weft_precheck_fast(WeftProblem *p) {
  int D = p->D, ppc = weft_problem_is_tc(p);
  p->fast = 0;
  p->pre_status = WEFT_STATUS_SOLVED;
  if (p->npat < 1) return WEFT_OK;
  for (int j = 0; j < p->njobs; j++)
    if (p->job[j].nrows != 1) return WEFT_OK;
  for (int d = 0; d < D; d++) {
    if (!(p->cpg[d] > 0.0) || !isfinite(p->cpg[d])) return WEFT_OK;
    if (!(p->ocg[d] > 0.0) || !isfinite(p->ocg[d])) return WEFT_OK;
  }
  double hiB[WEFT_MAX_DIMS] = {0}, x[WEFT_MAX_DIMS + 1], cost_min = 0.0;
  row_bounds(p, hiB); /* time x cost: a tighter box on y = B / cost where finite */
  if (!ppc) {
    for (int d = 0; d < D; d++)
      if (!isfinite(hiB[d])) return WEFT_OK;
  } else if (zero_feasible(p)) { /* feasible, and time*cost has no minimum */
    unbounded_ppc(p);
    return WEFT_OK;
  }
  int hinted = p->has_start;  /* the caller's start (a node's known design) first */
  for (int d = 0; d < D && hinted; d++) x[d] = p->start_bw[d] / p->bscale;
  if (((hinted && start_ok(p, x)) || candidate(p, x)) &&
      (!ppc || (cost_min = cost_floor(p)) > 0.0)) {
    reduce_equalities(p);
    return weft_sep_build(p, x, hiB, cost_min); /* sets p->fast */
  }
  /* With a positive floor on the cost read from the rows (sum = S, or the
   * NPUs' capex oc0 > 0), it stands for the cheapest design's cost (the box
   * on s = 1/cost is then looser, still valid) and the LP that finds the
   * cheapest design is skipped; the start's LP keeps cost <= 2 x floor and,
   * only when that is infeasible, the cheapest design is found after all. */
  double floor0 = ppc ? cost_floor(p) : 0.0;
  for (int pass = floor0 > 0.0 ? 0 : 1; pass < 2; pass++) {
    int rc = start_lp(p, pass ? 0.0 : floor0, hiB, x);
    if (rc != START_RETRY) return rc;
  }
  return WEFT_OK;
}

int weft_problem_min_cost(WeftProblem *p, const double *lower, double *bw) {
  int D = p->D;
  LpRows rows;
  rows.n = D;
  rows.m = lp_user_rows(p, D);
  for (int d = 0; d < D; d++) {
    if (lower[d] <= 0) continue;
    double *a = lp_row(p, rows.m, D);
    a[d] = 1.0;
    p->lp_b[rows.m] = lower[d];
    p->lp_rel[rows.m++] = +1; /* B_d >= lower_d */
  }
  rows.A = p->lp_A;
  rows.b = p->lp_b;
  rows.rel = p->lp_rel;
  rows.active = NULL;
  LpStatus st = lp_solve_ws(&rows, p->cpg, bw, NULL, &p->lpw);
  return st == LP_OPTIMAL ? WEFT_OK : WEFT_ESOLVER;
}
