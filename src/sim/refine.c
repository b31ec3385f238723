/* refine.c — close the loop between the exact optimiser and the simulator:
 * re-solve with every collective scaled by its simulated / analytic time at
 * the current design, keep the design the simulator likes best. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

typedef struct {
  double *dur[WEFT_MAX_JOBS];  /* simulated time of (layer, phase)'s collective */
} Durations;

static void collect(void *ctx, const WeftSimSpan *s) {
  Durations *d = ctx;
  if (s->kind == WEFT_SPAN_COLLECTIVE) d->dur[s->job][s->layer * WEFT_NPHASES + (int)s->phase] =
      s->end_ns - s->start_ns;
}

static int solve(const WeftSpec *spec, const WeftSettings *st, WeftResult *res, WeftError *err) {
  int whole = 0;  /* the network's whole links (LinkGBps): their optimum */
  for (int d = 0; d < spec->net->ndims; d++) whole |= spec->net->link_gbps[d] > 0.0;
  if (whole) {
    WeftWholeResult *w = malloc(sizeof *w);
    if (!w) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
    int rc = weft_whole_solve(spec, st, w, err);
    if (!rc) *res = w->result;
    free(w);
    return rc;
  }
  WeftProblem *p = NULL;
  int rc = weft_problem_create(spec, &p, err);
  if (!rc) rc = weft_problem_solve(p, st, res);
  weft_problem_free(p);
  return rc;
}

/* The phase's group vector (named groups as the optimiser finds them). */
static const int *phase_group(const WeftJob *job, const WeftPhaseSpec *ps, int ph) {
  if (!ps->group) return job->comm->group[ph];
  if (ps->group > job->workload->ngroups) return NULL;
  return weft_communicator_find(job->comm, job->workload->group_name[ps->group - 1]);
}

/* scaled[j] = job j's workload with each collective's size times its
 * simulated / analytic time at bw. */
static int rescale(const WeftSpec *spec, const Durations *du, const double *bw,
                   WeftWorkload **scaled) {
  int D = spec->net->ndims;
  for (int j = 0; j < spec->njobs; j++) {
    const WeftWorkload *wl = spec->jobs[j].workload;
    WeftWorkload *out = scaled[j];
    out->nlayers = 0;
    out->ngroups = wl->ngroups;
    memcpy(out->group_name, wl->group_name, sizeof wl->group_name);
    memcpy(out->file, wl->file, sizeof wl->file);
    for (int l = 0; l < wl->nlayers; l++) {
      WeftLayer layer = wl->layers[l];
      for (int ph = 0; ph < WEFT_NPHASES; ph++) {
        WeftPhaseSpec *ps = &layer.phase[ph];
        const int *g = phase_group(&spec->jobs[j], ps, ph);
        if (ps->coll == WEFT_COLL_NONE || !(ps->size_bytes > 0) || !g) continue;
        double tr[WEFT_MAX_DIMS], a = 0.0;
        weft_collective_traffic(ps->coll, ps->size_bytes, g, D, tr);
        for (int d = 0; d < D; d++)
          if (tr[d] > 0) a = fmax(a, tr[d] / bw[d]);
        double s = du->dur[j][l * WEFT_NPHASES + ph];
        if (a > 0 && s > 0) ps->size_bytes *= s / a;
      }
      if (weft_workload_add(out, &layer)) return WEFT_ENOMEM;
    }
  }
  return WEFT_OK;
}

int weft_refine_with_sim(const WeftSpec *spec, const WeftSettings *st, const WeftSimSettings *ss,
                         int max_iter, double rel_tol, WeftRefine *out, WeftError *err) {
  weft_error_clear(err);
  memset(out, 0, sizeof *out);
  if (!spec || !ss || max_iter < 0 || max_iter > WEFT_REFINE_MAX_ITER || !(rel_tol >= 0))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "bad refine arguments");
  WeftSimSettings sset = *ss;
  Durations du;
  WeftWorkload *scaled[WEFT_MAX_JOBS] = {0};
  memset(&du, 0, sizeof du);
  sset.on_span = collect;
  sset.span_ctx = &du;
  sset.stage_spans = 0;
  int rc = WEFT_OK;
  for (int j = 0; j < spec->njobs && !rc; j++) {
    size_t n = (size_t)spec->jobs[j].workload->nlayers * WEFT_NPHASES + 1;
    du.dur[j] = calloc(n, sizeof *du.dur[j]);
    scaled[j] = weft_workload_create();
    if (!du.dur[j] || !scaled[j]) rc = WEFT_ENOMEM;
  }
  WeftSpec sspec = *spec;
  for (int j = 0; j < spec->njobs; j++) sspec.jobs[j].workload = scaled[j];
  WeftResult res;
  WeftSimResult sim;
  WeftEval ev;
  double bw[WEFT_MAX_DIMS], best = HUGE_VAL;
  if (!rc) rc = solve(spec, st, &res, err);
  out->status = res.status;
  if (!rc && res.status == WEFT_STATUS_SOLVED) {
    memcpy(bw, res.bw_gbps, sizeof bw);
    rc = weft_simulate(spec, bw, &sset, &sim, err);
    if (!rc) {
      best = out->first_simulated_ns = out->sim_ns[0] = sim.time_ns;
      memcpy(out->bw_gbps, bw, sizeof bw);
    }
    for (int it = 1; !rc && it <= max_iter; it++) {
      if ((rc = rescale(spec, &du, bw, scaled))) break;
      if ((rc = solve(&sspec, st, &res, err))) break;
      out->status = res.status;
      if (res.status != WEFT_STATUS_SOLVED) break;
      memcpy(bw, res.bw_gbps, sizeof bw);
      if ((rc = weft_simulate(spec, bw, &sset, &sim, err))) break;
      out->iterations = it;
      out->sim_ns[it] = sim.time_ns;
      int improved = sim.time_ns < best * (1 - rel_tol);
      if (sim.time_ns < best) {
        best = sim.time_ns;
        memcpy(out->bw_gbps, bw, sizeof bw);
      }
      if (!improved) {
        out->converged = 1;
        break;
      }
    }
    out->simulated_ns = best;
    WeftProblem *p = NULL;
    if (!rc && !(rc = weft_problem_create(spec, &p, err)) &&
        !(rc = weft_problem_evaluate(p, out->bw_gbps, &ev)))
      out->analytic_ns = ev.time_ns;
    weft_problem_free(p);
  }
  for (int j = 0; j < spec->njobs; j++) {
    free(du.dur[j]);
    weft_workload_free(scaled[j]);
  }
  return rc;
}
