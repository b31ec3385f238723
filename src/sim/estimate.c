/* estimate.c — what a simulation will cost before it starts: its events,
 * flows and NPU-graph links counted from the stages alone, so a run that
 * cannot finish in reasonable time is refused up front (docs/simulate.md). */
#include <math.h>
#include <string.h>

#include "sim/astra.h"

/* Flows one NPU starts in a step of stage s (linkres.c: one per peer). */
static double step_flows(const Stage *s) {
  if (s->kind == ST_SR) return 1;
  switch (s->alg) {
    case WEFT_ALG_RING: return s->kind == ST_A2A ? 1 : 2;
    case WEFT_ALG_DIRECT: return s->n - 1.0;
    default: return 1; /* hd: one partner */
  }
}

/* The group of (layer, phase) in job j, or NULL when it names none (the
 * simulation reports that). */
static const int *phase_group(const WeftJob *job, const WeftPhaseSpec *p, int ph) {
  if (p->group == 0) return job->comm->group[ph];
  if (p->group < 0 || p->group > job->workload->ngroups) return NULL;
  return weft_communicator_find(job->comm, job->workload->group_name[p->group - 1]);
}

/* One collective: every chunk's stages, as sim.c runs them (a stage is one
 * transfer when merged: dim fidelity, no delay on its dim; else a transfer
 * per step and, with a delay, a delay event per step). */
static int add_collective(const WeftSpec *spec, const WeftSimSettings *s, const WeftPhaseSpec *p,
                          const int *group, double npus, WeftSimWork *w, WeftError *err) {
  Stage st[SIM_MAX_STAGES];
  int ns = stage_build(p->coll, p->size_bytes / s->chunks, group, spec->net, s->algorithm, st,
                       err);
  if (ns < 0) return ns;
  for (int k = 0; k < ns; k++) {
    int delay = s->latency_ns[st[k].dim] + s->endpoint_delay_ns > 0;
    double steps = st[k].nsteps, ev;
    if (s->fidelity == WEFT_FIDELITY_DIM && !delay) ev = 1;
    else ev = steps * (delay ? 2 : 1);
    w->events += s->chunks * ev;
    if (s->fidelity == WEFT_FIDELITY_LINK) w->flows += s->chunks * steps * npus * step_flows(&st[k]);
  }
  return WEFT_OK;
}

/* ASTRA-sim semantics (astra_run.c): per collective every chunk's phases
 * and its end; per layer three loop steps and its compute. */
static int astra_estimate(const WeftSpec *spec, const WeftSimSettings *s, WeftSimWork *out,
                          WeftError *err) {
  double bw[WEFT_MAX_DIMS];
  for (int d = 0; d < WEFT_MAX_DIMS; d++) bw[d] = 1.0; /* the counts do not depend on it */
  for (int j = 0; j < spec->njobs; j++) {
    const WeftWorkload *wl = spec->jobs[j].workload;
    AstraJob job;
    int rc = astra_job(spec->net, wl, spec->jobs[j].comm, bw, s, &job, err);
    if (rc) return rc;
    for (int l = 0; l < wl->nlayers; l++) {
      out->events += 3;
      for (int ph = 0; ph < WEFT_NPHASES; ph++) {
        const WeftPhaseSpec *p = &wl->layers[l].phase[ph];
        if (astra_whole(p->compute_ns) > 0) out->events += 1;
        AstraStage st[SIM_MAX_STAGES];
        long long nchunks;
        int ns = astra_stages(&job, p->coll, ph, p->size_bytes, s->chunks, st, &nchunks, err);
        if (ns < 0) return ns;
        if (ns > 0) out->events += (double)nchunks * ns + 1;
      }
    }
  }
  out->work = out->events;
  return WEFT_OK;
}

int weft_sim_estimate(const WeftSpec *spec, const WeftSimSettings *s, WeftSimWork *out,
                      WeftError *err) {
  weft_error_clear(err);
  if (!spec || !spec->net || !s || !out || s->chunks < 1 || spec->njobs < 1 ||
      spec->njobs > WEFT_MAX_JOBS)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "bad estimate arguments");
  memset(out, 0, sizeof *out);
  if (s->like == WEFT_LIKE_ASTRA1) return astra_estimate(spec, s, out, err);
  const WeftNetwork *net = spec->net;
  double npus = 1;
  for (int d = 0; d < net->ndims; d++) npus *= net->npus[d];
  for (int j = 0; j < spec->njobs; j++) {
    const WeftJob *job = &spec->jobs[j];
    const WeftWorkload *wl = job->workload;
    for (int l = 0; l < wl->nlayers; l++)
      for (int ph = 0; ph < WEFT_NPHASES; ph++) {
        const WeftPhaseSpec *p = &wl->layers[l].phase[ph];
        if (p->compute_ns > 0) out->events += 1;
        if (p->coll == WEFT_COLL_NONE || !(p->size_bytes > 0) ||
            (unsigned)p->coll >= WEFT_NCOLL)
          continue;
        const int *g = phase_group(job, p, ph);
        int rc = g ? add_collective(spec, s, p, g, npus, out, err) : WEFT_OK;
        if (rc) return rc;
      }
  }
  if (s->fidelity == WEFT_FIDELITY_LINK) /* npu_graph.c: per NPU 2 links a dim, n-1 on FC */
    for (int d = 0; d < net->ndims; d++)
      out->links += npus * (net->topology[d] == WEFT_FULLY_CONNECTED ? net->npus[d] - 1.0 : 2.0);
  out->work = out->events + out->flows + out->links;
  return WEFT_OK;
}

int sim_check_work(const WeftSimWork *w, const WeftSimSettings *s, WeftError *err) {
  if (!(s->max_work > 0) || w->work <= s->max_work) return WEFT_OK; /* no limit, or within */
  if (s->fidelity == WEFT_FIDELITY_LINK)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "max_work",
                          "the simulation would take about %.3g units of work (%.3g events, "
                          "%.3g flows, %.3g links), over the limit of %.3g: use dim fidelity "
                          "or fewer chunks",
                          w->work, w->events, w->flows, w->links, s->max_work);
  return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "max_work",
                        "the simulation would take about %.3g units of work (events), over "
                        "the limit of %.3g: use fewer chunks, or no per-step latency (steps "
                        "then merge)",
                        w->work, s->max_work);
}
