/* randprob.c — random bandwidth problems whose every input scale (bytes,
 * compute, $ per GB/s, the constraints' right-hand side) is drawn over many
 * orders of magnitude, and checks of a solve that do not trust the solver:
 * the constraints re-checked in natural units, the objective re-evaluated,
 * feasible points between the design and the equal split, and a direct
 * search on the small ones. */
#include "common/randprob.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_NPUS_TOTAL 1048576.0  /* keeps cost = N * B * k far from overflow */
#define FEAS_TOL 1e-8             /* constraints, relative to their terms */
#define OBJ_TOL 1e-12             /* reported objective vs the model at the design */
#define GAP_TOL 1e-9              /* certified gap, as weft's default target */
#define SEGMENT_POINTS 16         /* points checked between the design and the equal split */

static uint64_t next_u64(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static double unif(uint64_t *s) { return (double)(next_u64(s) >> 11) * 0x1.0p-53; }
static double logu(uint64_t *s, double e0, double e1) { return pow(10.0, e0 + (e1 - e0) * unif(s)); }

/* The constraint "<lhs> <v>" (lhs ends with its relation). */
static int add_cons(RandProb *r, const char *lhs, double v) {
  char text[128];
  WeftError e;
  snprintf(text, sizeof text, "%s %.17g", lhs, v);
  return weft_constraints_parse(&r->cons, text, r->net.ndims, &e);
}

int randprob_make(RandProb *r, uint64_t *st, const RandOpts *o) {
  static const WeftCollective kinds[5] = {WEFT_COLL_NONE, WEFT_COLL_ALLREDUCE,
                                          WEFT_COLL_REDUCESCATTER, WEFT_COLL_ALLGATHER,
                                          WEFT_COLL_ALLTOALL};
  memset(r, 0, sizeof *r);
  int D = o->dmin + (int)(unif(st) * (o->dmax - o->dmin + 1));
  if (D > o->dmax) D = o->dmax;
  r->net.ndims = r->cm.nclasses = r->comm.ndims = D;
  r->scale_bytes = logu(st, o->emin, o->emax);
  r->scale_ns = logu(st, o->emin, o->emax);
  r->scale_usd = logu(st, o->emin, o->emax);
  r->R = logu(st, o->emin, o->emax);
  double total = 1.0;
  for (int d = 0; d < D; d++) {
    int n = 2 + (int)(unif(st) * 7);
    while (n > 2 && total * n * pow(2.0, D - d - 1) > MAX_NPUS_TOTAL) n--;
    total *= n;
    r->net.npus[d] = n;
    r->net.topology[d] = (WeftTopology)(int)(unif(st) * 3);
    snprintf(r->net.cost_dim[d], WEFT_NAME_LEN, "c%d", d);
    WeftCostClass *c = &r->cm.cls[d];
    snprintf(c->name, WEFT_NAME_LEN, "c%d", d);
    c->link_usd_per_gbps = r->scale_usd * logu(st, -1, 1);
    c->switch_usd_per_gbps = r->scale_usd * logu(st, -1, 1);
    c->nic_usd_per_gbps = r->scale_usd * logu(st, -1, 1);
    if (o->wide_prices) { /* the dim's own price level, anywhere in the range */
      double level = logu(st, o->emin, o->emax);
      c->link_usd_per_gbps = level * logu(st, -1, 1);
      c->switch_usd_per_gbps = level * logu(st, -1, 1);
      c->nic_usd_per_gbps = level * logu(st, -1, 1);
    }
    c->has_link = c->has_switch = c->has_nic = 1;
  }
  for (int p = 0; p < WEFT_NPHASES; p++)
    for (int d = 0; d < D; d++) r->comm.group[p][d] = unif(st) < 0.3 ? -1 : r->net.npus[d];
  if (!(r->wl = weft_workload_create())) return WEFT_ENOMEM;
  int L = 1 + (int)(unif(st) * o->lmax);
  for (int l = 0; l < L; l++) {
    WeftLayer ly;
    memset(&ly, 0, sizeof ly);
    snprintf(ly.name, sizeof ly.name, "l%d", l);
    for (int p = 0; p < WEFT_NPHASES; p++) {
      ly.phase[p].compute_ns = unif(st) < 0.8 ? r->scale_ns * logu(st, -1, 1) : 0.0;
      ly.phase[p].coll = kinds[(int)(unif(st) * 5) % 5];
      ly.phase[p].size_bytes = r->scale_bytes * logu(st, -1, 1);
    }
    if (weft_workload_add(r->wl, &ly)) return WEFT_ENOMEM;
  }
  r->spec.net = &r->net;
  r->spec.cost = &r->cm;
  r->spec.njobs = 1;
  r->spec.jobs[0].workload = r->wl;
  r->spec.jobs[0].comm = &r->comm;
  r->spec.jobs[0].weight = 1.0;
  r->spec.cons = &r->cons;
  r->spec.objective = unif(st) < 0.5 ? WEFT_OBJ_PERF : WEFT_OBJ_PERF_PER_COST;
  r->spec.loop = unif(st) < 0.7 ? WEFT_LOOP_TP_DP_OVERLAP : WEFT_LOOP_NO_OVERLAP;
  /* perf-per-cost needs the scale fixed: 'sum = R'; perf may take 'sum <= R',
   * or with wide prices a budget alone (the equal split's cost, so that it
   * stays feasible). */
  int eq = r->spec.objective == WEFT_OBJ_PERF_PER_COST || o->only_sum || unif(st) < 0.5;
  if (!eq && o->wide_prices && unif(st) < 0.5) {
    double cpg[WEFT_MAX_DIMS], cost = 0.0;
    WeftError e;
    int rc = weft_cost_per_gbps(&r->net, &r->cm, cpg, &e);
    for (int d = 0; d < D && !rc; d++) cost += cpg[d] * r->R / D;
    return rc ? rc : add_cons(r, "cost <=", cost);
  }
  int rc = add_cons(r, eq ? "sum =" : "sum <=", r->R);
  if (rc || o->only_sum) return rc;
  /* Extras the equal split B_d = R/D meets. */
  if (unif(st) < 0.5 && D >= 2) {
    WeftError e;
    rc = weft_constraints_parse(&r->cons, "B1 >= B2", D, &e);
  }
  if (!rc && unif(st) < 0.3) {
    char lhs[32];
    snprintf(lhs, sizeof lhs, "B%d <=", 1 + (int)(unif(st) * D) % D);
    rc = add_cons(r, lhs, r->R / D * (1.0 + unif(st)));
  }
  if (!rc && unif(st) < 0.3) {
    double cpg[WEFT_MAX_DIMS], cost = 0.0;
    WeftError e;
    rc = weft_cost_per_gbps(&r->net, &r->cm, cpg, &e);
    for (int d = 0; d < D && !rc; d++) cost += cpg[d] * r->R / D;
    if (!rc) rc = add_cons(r, "cost <=", cost * (1.0 + 2.0 * unif(st)));
  }
  return rc;
}

void randprob_free(RandProb *r) { weft_workload_free(r->wl); }

/* The objective at natural bw, HUGE_VAL when not finite. */
static double objective(const RandProb *r, const WeftProblem *p, const double *bw) {
  WeftEval ev;
  weft_problem_evaluate(p, bw, &ev);
  double v = r->spec.objective == WEFT_OBJ_PERF_PER_COST        ? ev.perf_per_cost
             : r->spec.objective == WEFT_OBJ_COST_PER_ITERATION ? ev.cost_per_iteration_usd
                                                                : ev.time_ns;
  return isfinite(v) ? v : HUGE_VAL;
}

double randprob_violation(const RandProb *r, const double *bw) {
  double cpg[WEFT_MAX_DIMS], cost = 0.0, worst = 0.0;
  WeftError e;
  if (weft_cost_per_gbps(&r->net, &r->cm, cpg, &e)) return HUGE_VAL;
  for (int d = 0; d < r->net.ndims; d++) {
    if (!(bw[d] >= 0.0) || !isfinite(bw[d])) return HUGE_VAL;
    cost += cpg[d] * bw[d];
  }
  for (int i = 0; i < r->cons.n; i++) {
    const WeftConstraint *c = &r->cons.c[i];
    double lhs = c->cost_coef * cost, mag = fabs(c->cost_coef * cost) + fabs(c->rhs);
    for (int d = 0; d < r->net.ndims; d++) {
      lhs += c->coef[d] * bw[d];
      mag += fabs(c->coef[d] * bw[d]);
    }
    double v = lhs - c->rhs;
    if (c->rel == WEFT_REL_GE) v = -v;
    if (c->rel == WEFT_REL_EQ) v = fabs(v);
    if (v > 0.0) worst = fmax(worst, v / mag);
  }
  return worst;
}

int randprob_check(const RandProb *r, const WeftProblem *p, const WeftResult *res, char *why,
                   size_t n) {
  int D = r->net.ndims;
  why[0] = '\0';
  if (res->status != WEFT_STATUS_SOLVED) {
    snprintf(why, n, "status %s: %s", weft_status_name(res->status), res->message);
    return 0;
  }
  double v = randprob_violation(r, res->bw_gbps);
  if (!(v <= FEAS_TOL)) {
    snprintf(why, n, "solved, but a constraint is violated by %.3g (relative)", v);
    return 0;
  }
  double f = objective(r, p, res->bw_gbps);
  if (!(fabs(f - res->objective) <= OBJ_TOL * fabs(f))) {
    snprintf(why, n, "solved, but the objective %.17g is %.17g at the design", res->objective, f);
    return 0;
  }
  double gap = (f - res->lower_bound) / fabs(res->lower_bound);
  if (!(gap <= GAP_TOL) || !isfinite(res->lower_bound)) {
    snprintf(why, n, "solved, but the certified gap is %.3g", gap);
    return 0;
  }
  double eq[WEFT_MAX_DIMS], x[WEFT_MAX_DIMS];
  for (int d = 0; d < D; d++) eq[d] = r->R / D;
  for (int k = 0; k <= SEGMENT_POINTS; k++) { /* feasible by convexity */
    double t = (double)k / SEGMENT_POINTS;
    for (int d = 0; d < D; d++) x[d] = t * eq[d] + (1.0 - t) * res->bw_gbps[d];
    double g = objective(r, p, x);
    if (g < f * (1.0 - GAP_TOL)) {
      snprintf(why, n, "a feasible point at t = %.3g is better: %.17g < %.17g", t, g, f);
      return 0;
    }
    if (g < res->lower_bound * (1.0 - 1e-12)) {
      snprintf(why, n, "a feasible point at t = %.3g is below the certified bound (%.17g < %.17g, objective %.17g)", t, g, res->lower_bound, res->objective);
      return 0;
    }
  }
  return 1;
}

/* Golden-section refinement of f along B(t) on [a, b] (f unimodal there). */
typedef double (*LineFn)(const RandProb *, const WeftProblem *, double, double *);

static double golden(const RandProb *r, const WeftProblem *p, LineFn fn, double a, double b,
                     double *bw) {
  const double g = 0.6180339887498949;
  double c = b - g * (b - a), d = a + g * (b - a), fc = fn(r, p, c, bw), fd = fn(r, p, d, bw);
  for (int it = 0; it < 200 && b - a > 1e-15 * fmax(fabs(a), fabs(b)); it++) {
    if (fc <= fd) { b = d; d = c; fd = fc; c = b - g * (b - a); fc = fn(r, p, c, bw); }
    else { a = c; c = d; fc = fd; d = a + g * (b - a); fd = fn(r, p, d, bw); }
  }
  return fn(r, p, fc <= fd ? c : d, bw);
}

/* Grid over [0, 1] then golden section in the best cell's neighbours. */
static double line_min(const RandProb *r, const WeftProblem *p, LineFn fn, double *bw) {
  enum { GRID = 64 };
  int best = 0;
  double fb = HUGE_VAL;
  for (int i = 0; i <= GRID; i++) {
    double v = fn(r, p, (double)i / GRID, bw);
    if (v < fb) { fb = v; best = i; }
  }
  double a = (double)(best > 0 ? best - 1 : 0) / GRID, b = (double)(best < GRID ? best + 1 : GRID) / GRID;
  double v = golden(r, p, fn, a, b, bw);
  return fmin(v, fb);
}

static const double *g_outer; /* the 3-dim search's outer share (single-threaded use) */

static double line2(const RandProb *r, const WeftProblem *p, double t, double *bw) {
  bw[0] = r->R * t;
  bw[1] = r->R - bw[0];
  return objective(r, p, bw);
}

static double line3_inner(const RandProb *r, const WeftProblem *p, double t, double *bw) {
  double rest = r->R * (1.0 - *g_outer);
  bw[0] = r->R * *g_outer;
  bw[1] = rest * t;
  bw[2] = rest - bw[1];
  return objective(r, p, bw);
}

static double line3(const RandProb *r, const WeftProblem *p, double t, double *bw) {
  double keep = t, x[WEFT_MAX_DIMS];
  const double *save = g_outer;
  g_outer = &keep;
  double v = line_min(r, p, line3_inner, x);
  g_outer = save;
  (void)bw;
  return v;
}

double randprob_search(const RandProb *r, const WeftProblem *p, double *bw) {
  if (r->cons.n != 1 || r->cons.c[0].rel != WEFT_REL_EQ) return -1.0;
  if (r->net.ndims == 2) return line_min(r, p, line2, bw);
  if (r->net.ndims == 3) return line_min(r, p, line3, bw);
  return -1.0;
}
