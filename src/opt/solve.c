/* solve.c — the exact solve: build the hyperbolic program (perf, or
 * perf-per-cost after s = 1/C, y = s*B), scale it, run the interior-point
 * method, certify a lower bound from its multipliers, break ties by cost. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt/problem.h"

#define TIE_SLACK 1e-12  /* relative slack on pattern times when breaking ties */
#define IPM_GAP_INTERNAL 1e-12
#define IPM_FEAS_INTERNAL 1e-10

void weft_settings_default(WeftSettings *s) {
  s->gap_tol = 1e-9;
  s->max_iter = 100;
}

const char *weft_objective_name(WeftObjective o) {
  return o == WEFT_OBJ_PERF_PER_COST ? "perf-per-cost" : "perf";
}

const char *weft_loop_name(WeftLoop l) {
  return l == WEFT_LOOP_TP_DP_OVERLAP ? "tp-dp-overlap" : "no-overlap";
}

static int is_ppc(const WeftProblem *p) { return p->spec.objective == WEFT_OBJ_PERF_PER_COST; }

/* Variable layout. */
static int i_tau(const WeftProblem *p) { return p->D + (is_ppc(p) ? 2 : 0); }
static int i_jobvar(const WeftProblem *p) { return i_tau(p) + p->npat; }

static double *row_of(double *M, int k, int n) { return M + (size_t)k * (size_t)n; }

int weft_problem_build_program(WeftProblem *p) {
  if (p->pre_status != WEFT_STATUS_SOLVED) return WEFT_OK;
  int D = p->D, P = p->npat, ppc = is_ppc(p);
  int nmulti = 0, njobrows = 0, ncap = 0;
  for (int j = 0; j < p->njobs; j++)
    if (p->job[j].nrows > 1) { nmulti++; njobrows += p->job[j].nrows; }
  for (int d = 0; d < D; d++) ncap += (!ppc && p->capped[d]);
  int n = i_tau(p) + P + nmulti, nh = ppc ? 1 : 0;
  for (int k = 0; k < P * D; k++) nh += p->u[k] > 0;
  int ng = p->nle + njobrows + D + ncap, ne = p->neq + (ppc ? 1 : 0);
  Hyp *h = &p->nat;
  h->n = n; h->nh = nh; h->ng = ng; h->ne = ne;
  h->c = calloc((size_t)n, sizeof(double));
  h->hu = calloc((size_t)(nh ? nh : 1), sizeof(int));
  h->hv = calloc((size_t)(nh ? nh : 1), sizeof(int));
  h->ha = calloc((size_t)(nh ? nh : 1), sizeof(double));
  h->G = calloc((size_t)ng * (size_t)n, sizeof(double));
  h->h = calloc((size_t)ng, sizeof(double));
  h->A = calloc((size_t)(ne ? ne : 1) * (size_t)n, sizeof(double));
  h->b = calloc((size_t)(ne ? ne : 1), sizeof(double));
  p->sc = *h;
  p->sc.c = calloc((size_t)n, sizeof(double));
  p->sc.ha = calloc((size_t)(nh ? nh : 1), sizeof(double));
  p->sc.G = calloc((size_t)ng * (size_t)n, sizeof(double));
  p->sc.h = calloc((size_t)ng, sizeof(double));
  p->sc.A = calloc((size_t)(ne ? ne : 1) * (size_t)n, sizeof(double));
  p->sc.b = calloc((size_t)(ne ? ne : 1), sizeof(double));
  p->row_kind = calloc((size_t)ng, sizeof(int));
  p->row_owner = calloc((size_t)ng, sizeof(int));
  p->xscale = calloc((size_t)n, sizeof(double));
  p->lo = calloc((size_t)n, sizeof(double));
  p->hi = calloc((size_t)n, sizeof(double));
  p->x1 = calloc((size_t)n, sizeof(double));
  p->tmp_lam = calloc((size_t)(nh + ng), sizeof(double));
  p->tmp_nu = calloc((size_t)(ne ? ne : 1), sizeof(double));
  p->work = ipm_work_create(n, nh + ng, ne);
  if (!h->c || !h->hu || !h->hv || !h->ha || !h->G || !h->h || !h->A || !h->b || !p->sc.c ||
      !p->sc.ha || !p->sc.G || !p->sc.h || !p->sc.A || !p->sc.b || !p->row_kind ||
      !p->row_owner || !p->xscale || !p->lo || !p->hi ||  !p->x1 || !p->tmp_lam || !p->tmp_nu || !p->work)
    return WEFT_ENOMEM;
  p->sc.hu = h->hu; /* shared, owned by nat */
  p->sc.hv = h->hv;
  p->nvar_free0 = ppc ? D + 1 : D;
  int iS = D, iQ = D + 1, iT = i_tau(p), iJ = i_jobvar(p);
  /* Objective (phase 1) and its constant. */
  p->objconst = 0.0;
  for (int j = 0, m = 0; j < p->njobs; j++) {
    const Job *job = &p->job[j];
    if (job->nrows > 1) { h->c[iJ + m++] = job->weight; continue; }
    if (ppc) h->c[iQ] += job->weight * job->C[0];
    else p->objconst += job->weight * job->C[0];
    for (int k = 0; k < P; k++) h->c[iT + k] += job->weight * job->a[k];
  }
  /* Hyperbolic rows: u_pd / B_d <= tau_p, and 1/s <= q. */
  int i = 0;
  for (int k = 0; k < P; k++)
    for (int d = 0; d < D; d++) {
      double u = p->u[(size_t)k * (size_t)D + (size_t)d];
      if (u <= 0) continue;
      h->ha[i] = u; h->hu[i] = d; h->hv[i] = iT + k; i++;
    }
  if (ppc) { h->ha[i] = 1.0; h->hu[i] = iS; h->hv[i] = iQ; i++; }
  /* Linear rows. */
  int r = 0;
  for (int k = 0; k < p->nle; k++, r++) {
    double *g = row_of(h->G, r, n);
    memcpy(g, p->Gle + (size_t)k * (size_t)D, (size_t)D * sizeof(double));
    if (ppc) g[iS] = -p->hle[k]; else h->h[r] = p->hle[k];
    p->row_kind[r] = ROW_USER; p->row_owner[r] = -1;
  }
  for (int j = 0, m = 0; j < p->njobs; j++) {
    const Job *job = &p->job[j];
    if (job->nrows <= 1) continue;
    for (int q = 0; q < job->nrows; q++, r++) {
      double *g = row_of(h->G, r, n);
      for (int k = 0; k < P; k++) g[iT + k] = job->a[(size_t)q * (size_t)P + (size_t)k];
      g[iJ + m] = -1.0;
      if (ppc) g[iQ] = job->C[q]; else h->h[r] = -job->C[q];
      p->row_kind[r] = ROW_JOB; p->row_owner[r] = iJ + m;
    }
    m++;
  }
  for (int d = 0; d < D; d++, r++) {
    row_of(h->G, r, n)[d] = -1.0;
    p->row_kind[r] = ROW_BOUND; p->row_owner[r] = -1;
  }
  for (int d = 0; d < D; d++) {
    if (ppc || !p->capped[d]) continue;
    row_of(h->G, r, n)[d] = 1.0;
    h->h[r] = p->cap_gbps;
    p->row_kind[r] = ROW_CAP; p->row_owner[r] = -1; r++;
  }
  /* Equalities. */
  for (int k = 0; k < p->neq; k++) {
    double *a = row_of(h->A, k, n);
    memcpy(a, p->Geq + (size_t)k * (size_t)D, (size_t)D * sizeof(double));
    if (ppc) a[iS] = -p->heq[k]; else h->b[k] = p->heq[k];
  }
  if (ppc) {
    memcpy(row_of(h->A, p->neq, n), p->cpg, (size_t)D * sizeof(double));
    h->b[p->neq] = 1.0;
  }
  /* Boxes of the box variables (valid over the whole feasible set). */
  for (int d = 0; d < D; d++) {
    p->lo[d] = 0.0;
    p->hi[d] = ppc ? 1.0 / p->cpg[d] : p->U[d];
  }
  if (ppc) { p->lo[iS] = 0.0; p->hi[iS] = 1.0 / p->cost_min; }
  return WEFT_OK;
}

/* Natural starting point from the feasible point Bstart. */
static void start_point(const WeftProblem *p, double *x) {
  int D = p->D, P = p->npat, ppc = is_ppc(p), n = p->nat.n;
  int iS = D, iQ = D + 1, iT = i_tau(p), iJ = i_jobvar(p);
  memset(x, 0, (size_t)n * sizeof *x);
  double C = 0.0;
  for (int d = 0; d < D; d++) C += p->cpg[d] * p->Bstart[d];
  double s = ppc ? 1.0 / C : 1.0;
  for (int d = 0; d < D; d++) x[d] = s * p->Bstart[d];
  if (ppc) { x[iS] = s; x[iQ] = C; }
  for (int k = 0; k < P; k++) {
    double t = 0.0;
    for (int d = 0; d < D; d++) {
      double u = p->u[(size_t)k * (size_t)D + (size_t)d];
      if (u > 0) t = fmax(t, u / x[d]);
    }
    x[iT + k] = t;
  }
  for (int j = 0, m = 0; j < p->njobs; j++) {
    const Job *job = &p->job[j];
    if (job->nrows <= 1) continue;
    double v = 0.0;
    for (int q = 0; q < job->nrows; q++) {
      double t = ppc ? job->C[q] * x[iQ] : job->C[q];
      for (int k = 0; k < P; k++) t += job->a[(size_t)q * (size_t)P + (size_t)k] * x[iT + k];
      v = fmax(v, t);
    }
    x[iJ + m++] = v;
  }
}

/* Column-scale rows M0 (rows x n) by xscale, then normalise each row (and
 * its rhs) to max |coef| = 1. */
static void scale_rows(const double *M0, const double *r0, double *M, double *r, int rows, int n,
                       const double *xscale) {
  for (int k = 0; k < rows; k++) {
    const double *m0 = M0 + (size_t)k * (size_t)n;
    double *m = M + (size_t)k * (size_t)n, mx = 0.0;
    for (int j = 0; j < n; j++) { m[j] = m0[j] * xscale[j]; mx = fmax(mx, fabs(m[j])); }
    if (mx == 0.0) mx = 1.0;
    for (int j = 0; j < n; j++) m[j] /= mx;
    r[k] = r0[k] / mx;
  }
}

/* Scale the natural program into p->sc for variable scales xscale and the
 * given objective; rows normalised to max |coef| = 1. Returns objscale. */
static double scale_program(WeftProblem *p, const double *cobj, const double *x0) {
  const Hyp *h = &p->nat;
  Hyp *s = &p->sc;
  int n = h->n;
  double obj = 0.0;
  for (int j = 0; j < n; j++) obj += cobj[j] * x0[j];
  double os = obj > 0 ? obj : 1.0;
  for (int j = 0; j < n; j++) s->c[j] = cobj[j] * p->xscale[j] / os;
  for (int i = 0; i < h->nh; i++) s->ha[i] = h->ha[i] / (p->xscale[h->hu[i]] * p->xscale[h->hv[i]]);
  scale_rows(h->G, h->h, s->G, s->h, h->ng, n, p->xscale);
  scale_rows(h->A, h->b, s->A, s->b, h->ne, n, p->xscale);
  return os;
}

/* inf of q*x + pp/x over x in (lo, hi] (pp >= 0; lo >= 0; hi may be inf). */
static double inf_term(double q, double pp, double lo, double hi) {
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

/* Certified lower bound (scaled units) of the phase-1 program from the
 * IPM's multipliers: make them dual feasible for the epigraph variables by
 * rescaling the rows each one owns, then take the Lagrangian's exact
 * infimum over the box of the bandwidth variables. */
static double certify(WeftProblem *p) {
  const Hyp *s = &p->sc;
  int n = s->n, nh = s->nh, ng = s->ng, ne = s->ne;
  double *lam = p->tmp_lam, *nu = p->tmp_nu;
  memcpy(lam, p->work->lam, (size_t)(nh + ng) * sizeof *lam);
  memcpy(nu, p->work->nu, (size_t)ne * sizeof *nu);
  for (int k = 0; k < ng; k++)
    if (p->row_kind[k] == ROW_BOUND) lam[nh + k] = 0.0; /* the box covers B >= 0 */
  /* Free variables: job epigraphs first (their rows feed tau and q). */
  int order[1024], no = 0;
  for (int j = i_jobvar(p); j < n && no < 1024; j++) order[no++] = j;
  if (is_ppc(p)) order[no++] = p->D + 1;
  for (int j = i_tau(p); j < i_jobvar(p) && no < 1024; j++) order[no++] = j;
  for (int t = 0; t < no; t++) {
    int j = order[t];
    double rest = s->c[j], own = 0.0;
    for (int k = 0; k < ng; k++) {
      double g = s->G[(size_t)k * (size_t)n + (size_t)j];
      if (g == 0.0) continue;
      if (p->row_owner[k] == j) own += lam[nh + k] * g;
      else rest += lam[nh + k] * g;
    }
    for (int k = 0; k < ne; k++) rest += nu[k] * s->A[(size_t)k * (size_t)n + (size_t)j];
    for (int i = 0; i < nh; i++)
      if (s->hv[i] == j) own -= lam[i];
    if (own == 0.0) {
      if (rest != 0.0) return -HUGE_VAL;
      continue;
    }
    double f = -rest / own;
    if (!(f >= 0.0) || !isfinite(f)) return -HUGE_VAL;
    for (int k = 0; k < ng; k++)
      if (p->row_owner[k] == j) lam[nh + k] *= f;
    for (int i = 0; i < nh; i++)
      if (s->hv[i] == j) lam[i] *= f;
  }
  double lb = 0.0;
  for (int k = 0; k < ng; k++) lb -= lam[nh + k] * s->h[k];
  for (int k = 0; k < ne; k++) lb -= nu[k] * s->b[k];
  for (int j = 0; j < p->nvar_free0; j++) {
    double q = s->c[j], pp = 0.0;
    for (int k = 0; k < ng; k++) q += lam[nh + k] * s->G[(size_t)k * (size_t)n + (size_t)j];
    for (int k = 0; k < ne; k++) q += nu[k] * s->A[(size_t)k * (size_t)n + (size_t)j];
    for (int i = 0; i < nh; i++)
      if (s->hu[i] == j) pp += lam[i] * s->ha[i];
    lb += inf_term(q, pp, p->lo[j] / p->xscale[j], p->hi[j] / p->xscale[j]);
  }
  return lb;
}

/* Bandwidth (natural) from a natural program point. */
static void point_bw(const WeftProblem *p, const double *x, double *bw) {
  double s = is_ppc(p) ? x[p->D] : 1.0;
  for (int d = 0; d < p->D; d++) bw[d] = fmax(0.0, x[d] / s);
}

static double objective_at(const WeftProblem *p, const double *bw, WeftEval *ev) {
  weft_problem_evaluate(p, bw, ev);
  return is_ppc(p) ? ev->perf_per_cost : ev->time_ns;
}

static IpmStatus run_ipm(WeftProblem *p, const WeftSettings *st, int *iters) {
  IpmSettings is = {st->max_iter, IPM_GAP_INTERNAL, IPM_FEAS_INTERNAL};
  return ipm_solve(&p->sc, p->work, &is, iters);
}

/* Ties: at the optimum each pattern time tau_p* is fixed, and keeping
 * u_pd / B_d <= tau_p* is the linear bound B_d >= u_pd / tau_p*. Every design
 * meeting those bounds and the constraints is optimal; the cheapest of them
 * is one LP (a vertex: deterministic). perf-per-cost has no cost ties. */
static int cheapest(const WeftProblem *p, const double *bw1, double *bw2) {
  double lower[WEFT_MAX_DIMS] = {0};
  for (int k = 0; k < p->npat; k++) {
    double t = weft_problem_tau(p, k, bw1) * (1.0 + TIE_SLACK);
    for (int d = 0; d < p->D; d++) {
      double u = p->u[(size_t)k * (size_t)p->D + (size_t)d];
      if (u > 0) lower[d] = fmax(lower[d], u / t);
    }
  }
  return weft_problem_min_cost(p, lower, bw2);
}

int weft_problem_solve(WeftProblem *p, const WeftSettings *settings, WeftResult *res) {
  WeftSettings def;
  if (!settings) { weft_settings_default(&def); settings = &def; }
  memset(res, 0, sizeof *res);
  res->ndims = p->D;
  for (int d = 0; d < p->D; d++) res->dim_flags[d] = p->used[d] ? 0 : WEFT_DIM_UNUSED;
  if (p->pre_status != WEFT_STATUS_SOLVED) {
    res->status = p->pre_status;
    snprintf(res->message, sizeof res->message, "%s", p->pre_message);
    res->nconflict = p->nconflict;
    memcpy(res->conflict, p->conflict, (size_t)p->nconflict * sizeof(int));
    res->gap = HUGE_VAL;
    return WEFT_OK;
  }
  int n = p->nat.n, its = 0;
  double *x = p->work->x;
  start_point(p, p->x1);
  for (int j = 0; j < n; j++) {
    double v = fabs(p->x1[j]);
    p->xscale[j] = v > 0 ? v : 1.0;
  }
  double mean = 0.0;
  int cnt = 0;
  for (int d = 0; d < p->D; d++)
    if (p->x1[d] > 0) { mean += p->x1[d]; cnt++; }
  for (int d = 0; d < p->D; d++)
    if (p->x1[d] <= 0) p->xscale[d] = cnt ? mean / cnt : 1.0;
  double os = scale_program(p, p->nat.c, p->x1);
  for (int j = 0; j < n; j++) x[j] = p->x1[j] / p->xscale[j];
  IpmStatus st = run_ipm(p, settings, &its);
  double lb = p->objconst + os * certify(p);
  for (int j = 0; j < n; j++) p->x1[j] = x[j] * p->xscale[j];
  double bw1[WEFT_MAX_DIMS], bw2[WEFT_MAX_DIMS];
  WeftEval ev1, ev2;
  point_bw(p, p->x1, bw1);
  double ub1 = objective_at(p, bw1, &ev1), ub2 = HUGE_VAL;
  double scale_lb = fmax(fabs(lb), 1e-300);
  int use2 = 0;
  if (!is_ppc(p) && cheapest(p, bw1, bw2) == WEFT_OK) {
    ub2 = objective_at(p, bw2, &ev2);
    use2 = ev2.cost_usd < ev1.cost_usd * (1.0 - 1e-9) &&
           (ub2 - lb) / scale_lb <= fmax(settings->gap_tol, (ub1 - lb) / scale_lb);
  }
  const double *bw = use2 ? bw2 : bw1;
  res->eval = use2 ? ev2 : ev1;
  res->objective = use2 ? ub2 : ub1;
  res->tie_broken = use2;
  memcpy(res->bw_gbps, bw, (size_t)p->D * sizeof(double));
  res->lower_bound = lb;
  res->gap = isfinite(lb) ? fmax(0.0, (res->objective - lb) / scale_lb) : HUGE_VAL;
  res->iterations = its;
  if (res->gap <= settings->gap_tol) res->status = WEFT_STATUS_SOLVED;
  else res->status = st == IPM_MAX_ITER ? WEFT_STATUS_MAX_ITER : WEFT_STATUS_NUMERICAL;
  size_t len = 0;
  for (int d = 0; d < p->D; d++)
    if (p->capped[d] && !use2 && len < sizeof res->message)
      len += (size_t)snprintf(res->message + len, sizeof res->message - len,
                              "%sB%d has no upper bound and carries no traffic: capped at %.6g GB/s",
                              len ? "; " : "", d + 1, p->cap_gbps);
  return WEFT_OK;
}
