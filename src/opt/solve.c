/* solve.c — the exact solve: the fast path (sep.h) or the general one
 * (general.c), then the design's evaluation, the tie-break to the cheapest
 * optimal design, the certified gap and the status. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt/problem.h"

#define TIE_SLACK 1e-12  /* relative slack on pattern times when breaking ties */
#define TIE_MARGIN 1e-9  /* a tie-broken design must be this much cheaper (relative) */
#define TIE_TIGHT 1e-9   /* a row this close to tight (relative) is tight at the optimum */

void weft_settings_default(WeftSettings *s) {
  s->gap_tol = 1e-9;
  s->max_iter = 100;
  s->max_nodes = 100000;   /* whole links: far past what the targets take (bench_whole.c) */
  s->time_limit_s = 60.0;
}

const char *weft_objective_name(WeftObjective o) {
  return o == WEFT_OBJ_PERF_PER_COST       ? "perf-per-cost"
         : o == WEFT_OBJ_COST_PER_ITERATION ? "cost-per-iteration"
                                            : "perf";
}

const char *weft_loop_name(WeftLoop l) {
  switch (l) {
    case WEFT_LOOP_TP_DP_OVERLAP: return "tp-dp-overlap";
    case WEFT_LOOP_FWD_IG_OVERLAP: return "fwd-ig-overlap";
    case WEFT_LOOP_NO_OVERLAP: break;
  }
  return "no-overlap";
}

static int is_ppc(const WeftProblem *p) { return weft_problem_is_tc(p); } /* time x cost */


/* Is bw1 pinned down by the rows tight at it (the user rows, B >= lower)?
 * The interior point lands inside the set of optimal designs, where only
 * the rows tight on all of it are tight: when those fix a point, that set
 * is bw1 alone and there is no tie to break. */
static int vertex(const WeftProblem *p, const double *bw1, const double *lower) {
  int D = p->D, rank = 0;
  double basis[WEFT_MAX_DIMS][WEFT_MAX_DIMS];
  for (int i = 0; i < p->neq + p->nle + D && rank < D; i++) {
    double v[WEFT_MAX_DIMS] = {0};
    if (i < p->neq + p->nle) {
      const double *g = i < p->neq ? p->Geq + (size_t)i * (size_t)D
                                   : p->Gle + (size_t)(i - p->neq) * (size_t)D;
      if (i >= p->neq) { /* an inequality counts when tight */
        double h = p->hle[i - p->neq], acc = 0.0, mag = fabs(h);
        for (int d = 0; d < D; d++) { acc += g[d] * bw1[d]; mag += fabs(g[d] * bw1[d]); }
        if (h - acc > TIE_TIGHT * mag) continue;
      }
      memcpy(v, g, (size_t)D * sizeof *v);
    } else {
      int d = i - p->neq - p->nle;
      if (!(lower[d] > 0.0) || bw1[d] - lower[d] > TIE_TIGHT * bw1[d]) continue;
      v[d] = 1.0;
    }
    double nrm0 = 0.0, nrm = 0.0;
    for (int d = 0; d < D; d++) nrm0 += v[d] * v[d];
    for (int k = 0; k < rank; k++) { /* Gram-Schmidt against the rows kept */
      double dot = 0.0;
      for (int d = 0; d < D; d++) dot += v[d] * basis[k][d];
      for (int d = 0; d < D; d++) v[d] -= dot * basis[k][d];
    }
    for (int d = 0; d < D; d++) nrm += v[d] * v[d];
    if (!(nrm > 1e-18 * nrm0)) continue; /* dependent on those */
    nrm = sqrt(nrm);
    for (int d = 0; d < D; d++) basis[rank][d] = v[d] / nrm;
    rank++;
  }
  return rank == D;
}

/* Ties: at the optimum each pattern time tau_p* is fixed, and keeping
 * u_pd / B_d <= tau_p* is the linear bound B_d >= u_pd / tau_p*. Every design
 * meeting those bounds and the constraints is optimal; the cheapest of them
 * is one LP (a vertex: deterministic). perf-per-cost has no cost ties.
 * Returns 0 with bw2 set, 1 when no design there can be cheaper than bw1 by
 * the margin a tie needs (the LP is skipped), or a negative WeftErrno. */
static int cheapest(WeftProblem *p, const double *bw1, double cost1, double *bw2) {
  double lower[WEFT_MAX_DIMS] = {0}, floor_cost = 0.0;
  for (int k = 0; k < p->npat; k++) {
    double t = weft_problem_tau(p, k, bw1) * (1.0 + TIE_SLACK);
    for (int d = 0; d < p->D; d++) {
      double u = p->u[(size_t)k * (size_t)p->D + (size_t)d];
      if (u > 0) lower[d] = fmax(lower[d], u / t);
    }
  }
  /* Every design the LP allows costs at least cpg.lower (cpg >= 0): when
   * that is within the tie margin of bw1's cost, no tie can be broken. */
  int nonneg = 1;
  for (int d = 0; d < p->D; d++) {
    floor_cost += p->cpg[d] * lower[d];
    nonneg &= p->cpg[d] >= 0.0;
  }
  if (nonneg && floor_cost >= cost1 * (1.0 - TIE_MARGIN)) return 1;
  if (vertex(p, bw1, lower)) return 1;
  return weft_problem_min_cost(p, lower, bw2);
}

/* Why a design is not reported solved, into res->message; returns the
 * status. Every answer passes here: the design must meet the constraints
 * as given (WEFT_VERIFY_TOL, relative), its objective and the bound must be
 * finite, and the certified gap within the target. */
static WeftSolveStatus verdict(const WeftProblem *p, const WeftSettings *st, const double *bw,
                               int ist, int its, WeftResult *res) {
  int which = -1;
  double viol = weft_problem_violation(p, bw, &which);
  if (!(viol <= WEFT_VERIFY_TOL)) {
    if (which >= 0)
      snprintf(res->message, sizeof res->message,
               "the design found violates constraint '%s' by %.2g (relative, tolerance %.0e), "
               "so it is not reported as solved", p->cons_text[which], viol, WEFT_VERIFY_TOL);
    else
      snprintf(res->message, sizeof res->message,
               "the design found has a negative or non-finite bandwidth, so it is not reported "
               "as solved");
    return WEFT_STATUS_NUMERICAL;
  }
  if (!isfinite(res->objective)) {
    snprintf(res->message, sizeof res->message,
             "the %s at the design found is not finite", p->objective == WEFT_OBJ_COST_PER_ITERATION ? "cost per iteration"
             : is_ppc(p) ? "time x cost" : "iteration time");
    return WEFT_STATUS_NUMERICAL;
  }
  if (!isfinite(res->lower_bound)) {
    snprintf(res->message, sizeof res->message,
             "the interior-point method %s after %d iterations without multipliers that "
             "certify a lower bound", ist == IPM_MAX_ITER ? "stopped" : "stalled", its);
    return ist == IPM_MAX_ITER ? WEFT_STATUS_MAX_ITER : WEFT_STATUS_NUMERICAL;
  }
  if (res->lower_bound > res->objective * (1.0 + st->gap_tol) + 1e-300) {
    snprintf(res->message, sizeof res->message,
             "the certified bound %.17g exceeds the objective %.17g at the design: the "
             "certificate is inconsistent, so the design is not reported as solved",
             res->lower_bound, res->objective);
    return WEFT_STATUS_NUMERICAL;
  }
  if (res->gap <= st->gap_tol) return WEFT_STATUS_SOLVED;
  snprintf(res->message, sizeof res->message,
           "the interior-point method %s after %d iterations with a certified gap of %.2g, "
           "above the target %.2g", ist == IPM_MAX_ITER ? "reached its iteration limit" : "stalled",
           its, res->gap, st->gap_tol);
  return ist == IPM_MAX_ITER ? WEFT_STATUS_MAX_ITER : WEFT_STATUS_NUMERICAL;
}

/* The result from the design bw1 and the bound lb: the tie-break, the gap,
 * the verdict and the capped-dims note. bw1 is in internal units. */
static void finish(WeftProblem *p, const WeftSettings *settings, const double *bw1, double lb,
                   int its, int ist, WeftResult *res) {
  double bw2[WEFT_MAX_DIMS];
  WeftEval ev2;
  double ub1 = weft_problem_objective(p, bw1, &res->eval), ub2 = HUGE_VAL;
  double scale_lb = fmax(fabs(lb), 1e-300);
  int use2 = 0;
  if (!is_ppc(p) && isfinite(ub1) && cheapest(p, bw1, res->eval.cost_usd, bw2) == WEFT_OK) {
    ub2 = weft_problem_objective(p, bw2, &ev2);
    use2 = ev2.cost_usd < res->eval.cost_usd * (1.0 - TIE_MARGIN) &&
           (ub2 - lb) / scale_lb <= fmax(settings->gap_tol, (ub1 - lb) / scale_lb) &&
           weft_problem_violation(p, bw2, NULL) <= WEFT_VERIFY_TOL;
  }
  const double *bw = use2 ? bw2 : bw1;
  if (use2) res->eval = ev2;
  res->objective = use2 ? ub2 : ub1;
  res->tie_broken = use2;
  for (int d = 0; d < p->D; d++) res->bw_gbps[d] = bw[d] * p->bscale;
  res->lower_bound = lb;
  res->gap = isfinite(lb) && isfinite(res->objective) ? fmax(0.0, (res->objective - lb) / scale_lb)
                                                      : HUGE_VAL;
  res->iterations = its;
  res->message[0] = '\0';
  res->status = verdict(p, settings, bw, ist, its, res);
  if (res->status != WEFT_STATUS_SOLVED) return;
  size_t len = 0;
  for (int d = 0; d < p->D && !p->fast; d++)
    if (p->gen.capped[d] && !use2 && len < sizeof res->message)
      len += (size_t)snprintf(res->message + len, sizeof res->message - len,
                              "%sB%d has no upper bound and carries no traffic: capped at %.6g GB/s",
                              len ? "; " : "", d + 1, p->gen.cap_gbps * p->bscale);
}

/* A result for a status settled before the solve (res has ndims and
 * dim_flags; the rest is reset). */
static void settled(const WeftProblem *p, WeftResult *res) {
  memset(&res->eval, 0, sizeof res->eval);
  memset(res->bw_gbps, 0, sizeof res->bw_gbps);
  res->objective = res->lower_bound = 0.0;
  res->iterations = res->tie_broken = 0;
  res->status = p->pre_status;
  snprintf(res->message, sizeof res->message, "%s", p->pre_message);
  res->nconflict = p->nconflict;
  memcpy(res->conflict, p->conflict, (size_t)p->nconflict * sizeof(int));
  res->gap = HUGE_VAL;
}

int weft_problem_solve(WeftProblem *p, const WeftSettings *settings, WeftResult *res) {
  return weft_problem_solve_cut(p, settings, HUGE_VAL, res, NULL);
}

int weft_problem_solve_cut(WeftProblem *p, const WeftSettings *settings, double cutoff,
                           WeftResult *res, int *cut) {
  WeftSettings def;
  if (cut) *cut = 0;
  if (!settings) { weft_settings_default(&def); settings = &def; }
  memset(res, 0, sizeof *res);
  if (!(settings->gap_tol >= WEFT_MIN_GAP_TOL && settings->gap_tol <= 1.0) ||
      settings->max_iter < 1) {
    snprintf(res->message, sizeof res->message,
             "settings: gap_tol must be in [%g, 1] and max_iter at least 1, got %g and %d",
             WEFT_MIN_GAP_TOL, settings->gap_tol, settings->max_iter);
    return WEFT_EINVAL;
  }
  res->ndims = p->D;
  p->path = WEFT_PATH_NONE;
  for (int d = 0; d < p->D; d++) res->dim_flags[d] = p->used[d] ? 0 : WEFT_DIM_UNUSED;
  if (p->pre_status != WEFT_STATUS_SOLVED) {
    settled(p, res);
    return WEFT_OK;
  }
  double bw[WEFT_MAX_DIMS], lb;
  int its = 0, ist;
  if (p->pinned) { /* the feasible set is this one point: its objective is the optimum */
    memcpy(bw, p->pin_bw, sizeof bw);
    p->path = WEFT_PATH_PINNED;
    finish(p, settings, bw, weft_problem_objective(p, bw, NULL), 0, IPM_SOLVED, res);
    if (res->status == WEFT_STATUS_SOLVED)
      snprintf(res->message, sizeof res->message,
               "the equality constraints fix every bandwidth: the design is their one solution");
    return WEFT_OK;
  }
  if (p->fast) {
    ist = weft_sep_solve(p, settings, cutoff, bw, &lb, &its);
    if (ist == IPM_CUTOFF && cut && lb >= cutoff) { /* no design: only the bound, certified */
      res->lower_bound = lb;
      res->iterations = its;
      res->status = WEFT_STATUS_NUMERICAL; /* not a solution: the caller reads *cut */
      *cut = 1;
      return WEFT_OK;
    }
    if (ist == IPM_CUTOFF) { /* reached in scaled units, not quite in natural: solve in full */
      int its1 = its;
      ist = weft_sep_solve(p, settings, HUGE_VAL, bw, &lb, &its);
      its += its1;
    }
    finish(p, settings, bw, lb, its, ist, res);
    p->path = WEFT_PATH_FAST;
    if (res->status == WEFT_STATUS_SOLVED) return WEFT_OK;
    /* Not certified, or not verified: the general path tries from its own
     * start, with an iteration budget of its own. */
    int rc = weft_general_prepare(p);
    if (rc) return rc;
    if (p->pre_status != WEFT_STATUS_SOLVED) { /* its pre-checks disagree: theirs stands */
      settled(p, res);
      return WEFT_OK;
    }
    int its2 = 0;
    p->path = WEFT_PATH_GENERAL;
    p->fast = 0;  /* finish() then reads the general path's state */
    ist = weft_general_solve(p, settings, bw, &lb, &its2);
    finish(p, settings, bw, lb, its + its2, ist, res);
    p->fast = 1;  /* the next solve tries the fast path again */
    return WEFT_OK;
  }
  ist = weft_general_solve(p, settings, bw, &lb, &its);
  finish(p, settings, bw, lb, its, ist, res);
  p->path = WEFT_PATH_GENERAL;
  return WEFT_OK;
}
