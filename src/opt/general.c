/* general.c — the general path: the hyperbolic program in (B, tau, job
 * epigraphs) (perf, or perf-per-cost after s = 1/C, y = s*B), for jobs with
 * several time rows or when the fast path cannot settle a problem; its
 * build, scaling, interior-point run and certified lower bound. */
#include <math.h>
#include <string.h>

#include "opt/problem.h"

#define IPM_GAP_INTERNAL 1e-12   /* complementarity target (scaled, relative) */
#define IPM_FEAS_INTERNAL 1e-10  /* primal residual target (scaled) */
#define GEN_CERT_SHARE 1.0       /* stop once certified within this share of the gap target */
#define GEN_RESTARTS 2 /* runs again from the best design, rescaled, when one does not certify */
#define ACT_ALL 64     /* a job with at most this many time rows keeps them all active */
#define ACT_INIT 32    /* else the first active set: its rows longest at the start */
#define ACT_ADD 8      /* rows that join per job and round, the most violated first */
#define ACT_VIOL 1e-12 /* a row longer than the active max by this (relative) is violated */
#define ACT_ROUNDS 64  /* rounds of the active set at most */
#define ACT_MAX_PAT 256 /* patterns the active set's row times handle on the stack */

static int is_ppc(const WeftProblem *p) { return weft_problem_is_tc(p); } /* time x cost */

/* Variable layout. */
static int i_tau(const WeftProblem *p) { return p->D + (is_ppc(p) ? 2 : 0); }
static int i_jobvar(const WeftProblem *p) { return i_tau(p) + p->npat; }

static double *row_of(double *M, int k, int n) { return M + (size_t)k * (size_t)n; }

/* The job rows of the active set after the nfixed others; sets ng. */
static void fill_job_rows(WeftProblem *p) {
  General *G = &p->gen;
  Hyp *h = &G->nat;
  int n = h->n, P = p->npat, ppc = is_ppc(p), iQ = p->D + 1, iT = i_tau(p), iJ = i_jobvar(p);
  int r = G->nfixed;
  for (int j = 0, m = 0; j < p->njobs; j++) {
    const Job *job = &p->job[j];
    if (job->nrows <= 1) continue;
    for (int q = 0; q < job->nrows; q++) {
      if (!G->act[G->act_off[j] + q]) continue;
      double *g = row_of(h->G, r, n);
      memset(g, 0, (size_t)n * sizeof *g);
      for (int k = 0; k < P; k++) g[iT + k] = job->a[(size_t)q * (size_t)P + (size_t)k];
      g[iJ + m] = -1.0;
      if (ppc) { g[iQ] = job->C[q]; h->h[r] = 0.0; } else h->h[r] = -job->C[q];
      G->row_kind[r] = ROW_JOB; G->row_owner[r] = iJ + m;
      r++;
    }
    m++;
  }
  h->ng = G->sc.ng = r;
}

/* The program in natural units, from the pre-checks' bounds and caps. */
static int build_program(WeftProblem *p) {
  General *G = &p->gen;
  Arena *ar = &p->arena;
  int D = p->D, P = p->npat, ppc = is_ppc(p);
  int nmulti = 0, njobrows = 0, ncap = 0;
  for (int j = 0; j < p->njobs; j++)
    if (p->job[j].nrows > 1) { nmulti++; njobrows += p->job[j].nrows; }
  for (int d = 0; d < D; d++) ncap += (!ppc && G->capped[d]);
  int n = i_tau(p) + P + nmulti, nh = ppc ? 1 : 0;
  for (int k = 0; k < P * D; k++) nh += p->u[k] > 0;
  int ng = p->nle + njobrows + D + ncap, ne = p->neq + (ppc ? 1 : 0);
  Hyp *h = &G->nat;
  h->n = n; h->nh = nh; h->ng = ng; h->ne = ne;
  int ok = 1;
#define ALLOC(ptr, cnt) ok &= ((ptr) = arena_calloc(ar, (size_t)(cnt), sizeof *(ptr))) != NULL
  ALLOC(h->c, n); ALLOC(h->hu, nh); ALLOC(h->hv, nh); ALLOC(h->ha, nh);
  ALLOC(h->G, (size_t)ng * (size_t)n); ALLOC(h->h, ng);
  ALLOC(h->A, (size_t)ne * (size_t)n); ALLOC(h->b, ne);
  G->sc = *h;
  ALLOC(G->sc.c, n); ALLOC(G->sc.ha, nh); ALLOC(G->sc.G, (size_t)ng * (size_t)n);
  ALLOC(G->sc.h, ng); ALLOC(G->sc.A, (size_t)ne * (size_t)n); ALLOC(G->sc.b, ne);
  ALLOC(G->row_kind, ng); ALLOC(G->row_owner, ng); ALLOC(G->xscale, n);
  ALLOC(G->lo, n); ALLOC(G->hi, n); ALLOC(G->x1, n);
  ALLOC(G->tmp_lam, nh + ng); ALLOC(G->tmp_nu, ne);
  ALLOC(G->act, njobrows > 0 ? njobrows : 1); ALLOC(G->act_off, p->njobs);
  ALLOC(G->rowval, njobrows > 0 ? njobrows : 1);
#undef ALLOC
  if (!ok || ipm_work_init(&G->work, n, nh, ng, ne, ar) != 0) return WEFT_ENOMEM;
  G->nvar_free0 = ppc ? D + 1 : D;
  int iS = D, iQ = D + 1, iT = i_tau(p), iJ = i_jobvar(p);
  /* Objective (phase 1) and its constant. */
  G->objconst = 0.0;
  for (int j = 0, m = 0; j < p->njobs; j++) {
    const Job *job = &p->job[j];
    if (job->nrows > 1) { h->c[iJ + m++] = job->weight; continue; }
    if (ppc) h->c[iQ] += job->weight * job->C[0];
    else G->objconst += job->weight * job->C[0];
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
    G->row_kind[r] = ROW_USER; G->row_owner[r] = -1;
  }
  for (int d = 0; d < D; d++, r++) {
    row_of(h->G, r, n)[d] = -1.0;
    G->row_kind[r] = ROW_BOUND; G->row_owner[r] = -1;
  }
  for (int d = 0; d < D; d++) {
    if (ppc || !G->capped[d]) continue;
    row_of(h->G, r, n)[d] = 1.0;
    h->h[r] = G->cap_gbps;
    G->row_kind[r] = ROW_CAP; G->row_owner[r] = -1; r++;
  }
  G->nfixed = r; /* the job rows follow, those of the active set (fill_job_rows) */
  for (int j = 0, off = 0; j < p->njobs; j++) {
    G->act_off[j] = off;
    if (p->job[j].nrows > 1) off += p->job[j].nrows;
  }
  memset(G->act, 1, (size_t)(njobrows > 0 ? njobrows : 1));
  fill_job_rows(p);
  /* Equalities. */
  for (int k = 0; k < p->neq; k++) {
    double *a = row_of(h->A, k, n);
    memcpy(a, p->Geq + (size_t)k * (size_t)D, (size_t)D * sizeof(double));
    if (ppc) a[iS] = -p->heq[k]; else h->b[k] = p->heq[k];
  }
  if (ppc) {
    memcpy(row_of(h->A, p->neq, n), p->ocg, (size_t)D * sizeof(double)); /* ocg.y + oc0 s = 1 */
    row_of(h->A, p->neq, n)[iS] = p->oc0;
    h->b[p->neq] = 1.0;
  }
  /* Boxes of the box variables (valid over the whole feasible set). */
  for (int d = 0; d < D; d++) {
    G->lo[d] = 0.0;
    G->hi[d] = ppc ? 1.0 / p->ocg[d] : G->U[d];
  }
  if (ppc) { G->lo[iS] = 0.0; G->hi[iS] = 1.0 / G->cost_min; }
  return WEFT_OK;
}

int weft_general_prepare(WeftProblem *p) {
  if (p->gen.ready) return WEFT_OK;
  int rc = weft_precheck_general(p);
  if (!rc && p->pre_status == WEFT_STATUS_SOLVED) rc = build_program(p);
  if (!rc) p->gen.ready = 1;
  return rc;
}

/* Natural starting point from the design B (epigraph variables tight). */
static void start_point(const WeftProblem *p, const double *B, double *x) {
  const General *G = &p->gen;
  int D = p->D, P = p->npat, ppc = is_ppc(p), n = G->nat.n;
  int iS = D, iQ = D + 1, iT = i_tau(p), iJ = i_jobvar(p);
  memset(x, 0, (size_t)n * sizeof *x);
  double C = p->oc0;
  for (int d = 0; d < D; d++) C += p->ocg[d] * B[d];
  double s = ppc ? 1.0 / C : 1.0;
  for (int d = 0; d < D; d++) x[d] = s * B[d];
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

/* Scale the natural program into gen.sc for variable scales xscale and the
 * given objective; rows normalised to max |coef| = 1. Returns objscale. */
static double scale_program(WeftProblem *p, const double *cobj, const double *x0) {
  General *G = &p->gen;
  const Hyp *h = &G->nat;
  Hyp *s = &G->sc;
  int n = h->n;
  double obj = 0.0;
  for (int j = 0; j < n; j++) obj += cobj[j] * x0[j];
  double os = obj > 0 ? obj : 1.0;
  for (int j = 0; j < n; j++) s->c[j] = cobj[j] * G->xscale[j] / os;
  for (int i = 0; i < h->nh; i++) s->ha[i] = h->ha[i] / (G->xscale[h->hu[i]] * G->xscale[h->hv[i]]);
  scale_rows(h->G, h->h, s->G, s->h, h->ng, n, G->xscale);
  scale_rows(h->A, h->b, s->A, s->b, h->ne, n, G->xscale);
  return os;
}

/* Certified lower bound (scaled units) of the phase-1 program from the
 * IPM's multipliers: make them dual feasible for the epigraph variables by
 * rescaling the rows each one owns, then take the Lagrangian's exact
 * infimum over the box of the bandwidth variables. */
static double certify(WeftProblem *p) {
  General *G = &p->gen;
  const Hyp *s = &G->sc;
  int n = s->n, nh = s->nh, ng = s->ng, ne = s->ne;
  double *lam = G->tmp_lam, *nu = G->tmp_nu;
  memcpy(lam, G->work.lam, (size_t)(nh + ng) * sizeof *lam);
  memcpy(nu, G->work.nu, (size_t)ne * sizeof *nu);
  for (int k = 0; k < ng; k++)
    if (G->row_kind[k] == ROW_BOUND) lam[nh + k] = 0.0; /* the box covers B >= 0 */
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
      if (G->row_owner[k] == j) own += lam[nh + k] * g;
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
      if (G->row_owner[k] == j) lam[nh + k] *= f;
    for (int i = 0; i < nh; i++)
      if (s->hv[i] == j) lam[i] *= f;
  }
  double lb = 0.0;
  for (int k = 0; k < ng; k++) lb -= lam[nh + k] * s->h[k];
  for (int k = 0; k < ne; k++) lb -= nu[k] * s->b[k];
  for (int j = 0; j < G->nvar_free0; j++) {
    double q = s->c[j], pp = 0.0;
    for (int k = 0; k < ng; k++) q += lam[nh + k] * s->G[(size_t)k * (size_t)n + (size_t)j];
    for (int k = 0; k < ne; k++) q += nu[k] * s->A[(size_t)k * (size_t)n + (size_t)j];
    for (int i = 0; i < nh; i++)
      if (s->hu[i] == j) pp += lam[i] * s->ha[i];
    lb += weft_opt_inf_term(q, pp, G->lo[j] / G->xscale[j], G->hi[j] / G->xscale[j]);
  }
  return lb;
}

/* The design of the scaled iterate x. */
static void design_of(const WeftProblem *p, const double *x, double *bw) {
  const General *G = &p->gen;
  double s = is_ppc(p) ? x[p->D] * G->xscale[p->D] : 1.0;
  for (int d = 0; d < p->D; d++) bw[d] = fmax(0.0, x[d] * G->xscale[d] / s);
}

/* The objective at bw with the job rows of the active set only (all of
 * them when every row is active): what the restricted program minimises. */
static double restricted_objective(const WeftProblem *p, const double *bw) {
  const General *G = &p->gen;
  int P = p->npat;
  double time = 0.0, cost = 0.0, tau[ACT_MAX_PAT];
  if (P > ACT_MAX_PAT) return weft_problem_objective_raw(p, bw, NULL); /* every row is active then */
  for (int k = 0; k < P; k++) tau[k] = weft_problem_tau(p, k, bw);
  for (int j = 0; j < p->njobs; j++) {
    const Job *job = &p->job[j];
    double t = -HUGE_VAL;
    for (int r = 0; r < job->nrows; r++) {
      if (job->nrows > 1 && !G->act[G->act_off[j] + r]) continue;
      double v = job->C[r];
      for (int k = 0; k < P; k++) v += job->a[(size_t)r * (size_t)P + (size_t)k] * tau[k];
      t = fmax(t, v);
    }
    time += job->weight * t;
  }
  cost = p->oc0;
  for (int d = 0; d < p->D; d++) cost += p->ocg[d] * bw[d];
  double v = is_ppc(p) ? time * cost : time;
  return isfinite(v) ? v : HUGE_VAL;
}

/* The IPM's certificate callback: the relative gap between the restricted
 * objective at the iterate's design (when that design meets the
 * constraints) and the certified bound of its multipliers. */
static double cert_gap(void *ctx) {
  WeftProblem *p = ctx;
  double bw[WEFT_MAX_DIMS];
  design_of(p, p->gen.work.x, bw);
  if (weft_problem_violation(p, bw, NULL) > WEFT_VERIFY_TOL) return HUGE_VAL;
  double lb = p->gen.objconst + p->gen.os * certify(p), ub = restricted_objective(p, bw);
  if (!isfinite(lb) || !isfinite(ub)) return HUGE_VAL;
  return fmax(0.0, (ub - lb) / fmax(fabs(lb), 1e-300));
}

static int add_top(unsigned char *act, const double *val, int nrows, int k, double floor);

/* The first active set: all rows of a job with at most ACT_ALL of them,
 * else the ACT_INIT rows longest at the start design. */
static void initial_active(WeftProblem *p) {
  General *G = &p->gen;
  int P = p->npat;
  for (int j = 0; j < p->njobs; j++) {
    const Job *job = &p->job[j];
    if (job->nrows <= 1) continue;
    unsigned char *act = G->act + G->act_off[j];
    int all = job->nrows <= ACT_ALL || P > ACT_MAX_PAT; /* past ACT_MAX_PAT: no active set */
    memset(act, all, (size_t)job->nrows);
    if (all) continue;
    double *val = G->rowval + G->act_off[j];
    for (int r = 0; r < job->nrows; r++) {
      double v = job->C[r];
      for (int k = 0; k < P; k++) v += job->a[(size_t)r * (size_t)P + (size_t)k] * G->x1[i_tau(p) + k];
      val[r] = v;
    }
    add_top(act, val, job->nrows, ACT_INIT, -HUGE_VAL);
  }
}

/* Mark the k largest val[r] > floor not yet active; returns how many. */
static int add_top(unsigned char *act, const double *val, int nrows, int k, double floor) {
  int added = 0;
  for (; added < k; added++) {
    int best = -1;
    for (int r = 0; r < nrows; r++)
      if (!act[r] && val[r] > floor && (best < 0 || val[r] > val[best])) best = r;
    if (best < 0) break;
    act[best] = 1;
  }
  return added;
}

/* Rows violated at bw join the active set: per job, up to ACT_ADD of those
 * longer than the active rows' max. Returns how many joined. */
static int add_violated(WeftProblem *p, const double *bw) {
  General *G = &p->gen;
  int P = p->npat, added = 0;
  double tau[ACT_MAX_PAT];
  if (P > ACT_MAX_PAT) return 0; /* every row is active then */
  for (int k = 0; k < P; k++) tau[k] = weft_problem_tau(p, k, bw);
  for (int j = 0; j < p->njobs; j++) {
    const Job *job = &p->job[j];
    if (job->nrows <= 1) continue;
    unsigned char *act = G->act + G->act_off[j];
    double *val = G->rowval + G->act_off[j], tmax = -HUGE_VAL;
    for (int r = 0; r < job->nrows; r++) {
      double v = job->C[r];
      for (int k = 0; k < P; k++) v += job->a[(size_t)r * (size_t)P + (size_t)k] * tau[k];
      val[r] = v;
      if (act[r]) tmax = fmax(tmax, v);
    }
    added += add_top(act, val, job->nrows, ACT_ADD, tmax * (1.0 + ACT_VIOL));
  }
  return added;
}

/* Variable scales from the start x1: |x1_j|, and for a bandwidth at 0 the
 * mean of the others. */
static void scale_variables(WeftProblem *p) {
  General *G = &p->gen;
  int n = G->nat.n, cnt = 0;
  double mean = 0.0;
  for (int j = 0; j < n; j++) {
    double v = fabs(G->x1[j]);
    G->xscale[j] = v > 0 ? v : 1.0;
  }
  for (int d = 0; d < p->D; d++)
    if (G->x1[d] > 0) { mean += G->x1[d]; cnt++; }
  for (int d = 0; d < p->D; d++)
    if (G->x1[d] <= 0) G->xscale[d] = cnt ? mean / cnt : 1.0;
}

/* The general path's solve: the hyperbolic program from Bstart, over an
 * active set of job rows that grows until no row is violated at the
 * design. Each round's certified bound holds for the full problem (fewer
 * rows relax it). bw gets the design, *lb the certified bound. Returns an
 * IpmStatus. */
int weft_general_solve(WeftProblem *p, const WeftSettings *st, double *bw, double *lb,
                       int *iters) {
  General *G = &p->gen;
  int n = G->nat.n, total = 0;
  double *x = G->work.x, B[WEFT_MAX_DIMS];
  IpmStatus status = IPM_NUMERICAL;
  start_point(p, G->Bstart, G->x1);
  initial_active(p);
  memcpy(B, G->Bstart, (size_t)p->D * sizeof *B);
  for (int round = 0; round < ACT_ROUNDS; round++) {
    fill_job_rows(p);
    double B0[WEFT_MAX_DIMS]; /* this round's start: the last round's design */
    memcpy(B0, B, (size_t)p->D * sizeof *B);
    for (int attempt = 0; attempt <= GEN_RESTARTS; attempt++) {
      start_point(p, B, G->x1);
      scale_variables(p);
      G->os = scale_program(p, G->nat.c, G->x1);
      for (int j = 0; j < n; j++) x[j] = G->x1[j] / G->xscale[j];
      IpmSettings is = {st->max_iter, IPM_GAP_INTERNAL, IPM_FEAS_INTERNAL, cert_gap, p,
                        GEN_CERT_SHARE * st->gap_tol};
      int its = 0;
      status = ipm_solve(&G->sc, &G->work, &is, &its);
      total += its;
      if (status == IPM_SOLVED) break;
      /* Not certified: again from the best design, scaled to it (a dim
       * far smaller at the optimum than at the start is badly scaled). */
      design_of(p, x, B);
      int ok = 1;
      for (int d = 0; d < p->D; d++) ok &= isfinite(B[d]) && (B[d] > 0.0 || !p->used[d]);
      if (!ok) break;
    }
    design_of(p, x, bw);
    if (add_violated(p, bw) == 0) break;
    int ok = 1; /* the next round starts from this design when it can */
    for (int d = 0; d < p->D; d++) ok &= isfinite(bw[d]) && (bw[d] > 0.0 || !p->used[d]);
    memcpy(B, ok ? bw : B0, (size_t)p->D * sizeof *B);
  }
  *lb = (G->objconst + G->os * certify(p)) * p->ofactor;
  if (iters) *iters = total;
  return (int)status;
}
