/* evaluate.c — iteration time, its split and network cost at a given
 * bandwidth: the exact model the optimiser minimises. */
#include <math.h>

#include "opt/problem.h"

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

int weft_problem_evaluate(const WeftProblem *p, const double *bw_gbps, WeftEval *ev) {
  double tau[512];
  int P = p->npat;
  if (P > (int)(sizeof tau / sizeof tau[0])) return WEFT_EINVAL;
  for (int k = 0; k < P; k++) tau[k] = weft_problem_tau(p, k, bw_gbps);
  ev->time_ns = 0.0;
  ev->cost_usd = 0.0;
  for (int d = 0; d < p->D; d++) ev->cost_usd += p->cpg[d] * bw_gbps[d];
  for (int j = 0; j < p->njobs; j++) {
    const Job *job = &p->job[j];
    WeftJobTime *jt = &ev->job[j];
    double t = -HUGE_VAL;
    for (int r = 0; r < job->nrows; r++) {
      double v = job->C[r];
      for (int k = 0; k < P; k++) {
        double a = job->a[(size_t)r * (size_t)P + (size_t)k];
        if (a > 0.0) v += a * tau[k];
      }
      if (v > t) t = v;
    }
    jt->time_ns = t;
    jt->compute_ns = job->compute_ns;
    double blocking = job->compute_ns;
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      double c = 0.0;
      for (int k = 0; k < P; k++) {
        double b = job->phase_bytes[ph * P + k];
        if (b > 0.0) c += b * tau[k];
      }
      jt->comm_ns[ph] = c;
      jt->exposed_comm_ns[ph] = c;
      if (ph != WEFT_PHASE_WG) blocking += c;
    }
    if (p->loop == WEFT_LOOP_TP_DP_OVERLAP) /* the rest of the time is the wg tail */
      jt->exposed_comm_ns[WEFT_PHASE_WG] = fmax(0.0, t - blocking);
    ev->time_ns += job->weight * t;
  }
  ev->perf_per_cost = ev->time_ns * ev->cost_usd;
  return WEFT_OK;
}

void weft_equal_bw(const double *bw_gbps, int ndims, double *equal_gbps) {
  double total = 0.0;
  for (int d = 0; d < ndims; d++) total += bw_gbps[d];
  for (int d = 0; d < ndims; d++) equal_gbps[d] = total / ndims;
}
