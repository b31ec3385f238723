/* evaluate.c — iteration time, its split and network cost at a given
 * bandwidth: the exact model the optimiser minimises. */
#include <math.h>

#include "opt/exposed.h"
#include "opt/problem.h"

#define TAU_CHUNK 256  /* pattern times computed at once (stack) */

double weft_problem_tau(const WeftProblem *p, int pat, const double *bw) {
  const double *u = p->u + (size_t)pat * (size_t)p->D;
  double t = 0.0;
  for (int d = 0; d < p->D; d++) {
    if (u[d] <= 0.0) continue;
    double v = bw[d] > 0.0 ? u[d] / bw[d] : HUGE_VAL;
    if (v > t) t = v;
  }
  return t;
}

/* Each row's time and each phase's communication, over the patterns in
 * chunks of TAU_CHUNK (a problem may have any number of patterns). */
void weft_problem_eval_scaled(const WeftProblem *p, const double *bw, WeftEval *ev) {
  double tau[TAU_CHUNK];
  int P = p->npat, once = P <= TAU_CHUNK; /* else each chunk again for every row */
  if (once)
    for (int k = 0; k < P; k++) tau[k] = weft_problem_tau(p, k, bw);
  ev->time_ns = 0.0;
  ev->cost_usd = 0.0;
  for (int d = 0; d < p->D; d++) ev->cost_usd += p->cpg[d] * bw[d];
  for (int j = 0; j < p->njobs; j++) {
    const Job *job = &p->job[j];
    WeftJobTime *jt = &ev->job[j];
    double t = -HUGE_VAL, comm[WEFT_NPHASES];
    for (int ph = 0; ph < WEFT_NPHASES; ph++) comm[ph] = job->phase_lat_ns[ph];
    for (int r = 0; r < job->nrows; r++) {
      double v = job->C[r];
      const double *a = job->a + (size_t)r * (size_t)P;
      for (int k0 = 0; k0 < P; k0 += TAU_CHUNK) {
        int k1 = k0 + TAU_CHUNK < P ? k0 + TAU_CHUNK : P;
        if (!once)
          for (int k = k0; k < k1; k++) tau[k - k0] = weft_problem_tau(p, k, bw);
        for (int k = k0; k < k1; k++) {
          if (a[k] > 0.0) v += a[k] * tau[k - k0];
          if (r == 0)
            for (int ph = 0; ph < WEFT_NPHASES; ph++) {
              double b = job->phase_bytes[ph * P + k];
              if (b > 0.0) comm[ph] += b * tau[k - k0];
            }
        }
      }
      if (v > t) t = v;
    }
    jt->time_ns = t;
    jt->compute_ns = job->compute_ns;
    for (int ph = 0; ph < WEFT_NPHASES; ph++) jt->comm_ns[ph] = comm[ph];
    double saved[WEFT_NPHASES] = {0, 0, 0}; /* hidden behind compute (hidden.h) */
    for (int k = 0; k < job->nhid; k++) {
      const HidItem *it = &job->hid[k];
      if (!(it->s > 0.0)) continue;
      double x = it->s * weft_problem_tau(p, it->pat, bw);
      saved[it->ph] += x + it->lat - fmax(0.0, x - it->g);
    }
    weft_loop_exposed_saved(p->loop, t, job->compute_ns, comm, saved, jt->exposed_comm_ns);
    ev->time_ns += job->weight * t;
  }
  ev->npu_cost_usd = p->npu_cost_usd;
  ev->capex_usd = ev->cost_usd + p->npu_cost_usd;
  ev->network_power_w = 0.0;
  for (int d = 0; d < p->D; d++) ev->network_power_w += p->wpg[d] * bw[d];
  ev->npu_power_w = p->npu_power_w;
  ev->power_w = ev->network_power_w + ev->npu_power_w;
  ev->perf_per_cost = ev->time_ns * ev->capex_usd;
  ev->cost_per_iteration_usd =
      ev->time_ns * (ev->capex_usd / p->lifetime_ns + ev->power_w * p->usd_per_w_ns);
}

void weft_loop_exposed(WeftLoop loop, double time_ns, double compute_ns, const double *comm,
                       double *exposed) {
  static const double none[WEFT_NPHASES] = {0, 0, 0};
  weft_loop_exposed_saved(loop, time_ns, compute_ns, comm, none, exposed);
}

void weft_loop_exposed_saved(WeftLoop loop, double time_ns, double compute_ns,
                             const double *comm, const double *saved, double *exposed) {
  double blocking = compute_ns;
  for (int ph = 0; ph < WEFT_NPHASES; ph++) {
    exposed[ph] = saved[ph] > 0.0 ? fmin(comm[ph], fmax(0.0, comm[ph] - saved[ph])) : comm[ph];
    if (ph != WEFT_PHASE_WG) blocking += exposed[ph];
  }
  /* Differences and shares round: each is clamped to its phase's comm (1e7
   * + 0.3 - 1e7 is 0.30000000074505806), so exposed <= comm holds exactly. */
  if (loop == WEFT_LOOP_TP_DP_OVERLAP) /* the rest of the time is the wg tail */
    exposed[WEFT_PHASE_WG] = fmin(comm[WEFT_PHASE_WG], fmax(0.0, time_ns - blocking));
  if (loop == WEFT_LOOP_FWD_IG_OVERLAP) { /* wg blocks: exposed whole */
    double fi = comm[WEFT_PHASE_FWD] + comm[WEFT_PHASE_IG];
    double over = fmin(fi, fmax(0.0, time_ns - compute_ns - comm[WEFT_PHASE_WG]));
    for (int ph = WEFT_PHASE_FWD; ph <= WEFT_PHASE_IG; ph++)
      exposed[ph] = fi > 0.0 ? fmin(comm[ph], over * comm[ph] / fi) : 0.0;
  }
}

int weft_problem_is_tc(const WeftProblem *p) { return p->objective != WEFT_OBJ_PERF; }

double weft_problem_objective_raw(const WeftProblem *p, const double *bw, WeftEval *ev) {
  WeftEval local;
  if (!ev) ev = &local;
  weft_problem_eval_scaled(p, bw, ev);
  double v = ev->time_ns;
  if (weft_problem_is_tc(p)) { /* time x (oc0 + ocg.B'): what the solvers minimise */
    double c = p->oc0;
    for (int d = 0; d < p->D; d++) c += p->ocg[d] * bw[d];
    v *= c;
  }
  return isfinite(v) ? v : HUGE_VAL;
}

double weft_problem_objective(const WeftProblem *p, const double *bw, WeftEval *ev) {
  double v = weft_problem_objective_raw(p, bw, ev) * p->ofactor;
  return isfinite(v) ? v : HUGE_VAL;
}

int weft_problem_evaluate(const WeftProblem *p, const double *bw_gbps, WeftEval *ev) {
  double b[WEFT_MAX_DIMS];
  for (int d = 0; d < p->D; d++) b[d] = bw_gbps[d] / p->bscale;
  weft_problem_eval_scaled(p, b, ev);
  return WEFT_OK;
}

void weft_equal_bw(const double *bw_gbps, int ndims, double *equal_gbps) {
  double total = 0.0;
  for (int d = 0; d < ndims; d++) total += bw_gbps[d];
  for (int d = 0; d < ndims; d++) equal_gbps[d] = total / ndims;
}
