/* breakdown.c — per-job totals a report shows beside the evaluation: each
 * phase's compute and the bytes an NPU puts on each dim (LIBRA's traffic). */
#include "weft.h"

void weft_spec_phase_compute(const WeftSpec *spec, int job, double compute_ns[WEFT_NPHASES]) {
  for (int ph = 0; ph < WEFT_NPHASES; ph++) compute_ns[ph] = 0.0;
  if (!spec || job < 0 || job >= spec->njobs || !spec->jobs[job].workload) return;
  const WeftWorkload *wl = spec->jobs[job].workload;
  for (int l = 0; l < wl->nlayers; l++)
    for (int ph = 0; ph < WEFT_NPHASES; ph++) compute_ns[ph] += wl->layers[l].phase[ph].compute_ns;
}

void weft_spec_dim_bytes(const WeftSpec *spec, int job, double *bytes) {
  if (!spec || !spec->net) return;
  int D = spec->net->ndims;
  for (int d = 0; d < D; d++) bytes[d] = 0.0;
  if (job < 0 || job >= spec->njobs || !spec->jobs[job].workload || !spec->jobs[job].comm) return;
  const WeftWorkload *wl = spec->jobs[job].workload;
  const WeftCommunicator *cm = spec->jobs[job].comm;
  for (int l = 0; l < wl->nlayers; l++)
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      const WeftPhaseSpec *p = &wl->layers[l].phase[ph];
      if (p->coll == WEFT_COLL_NONE || !(p->size_bytes > 0)) continue;
      const int *group = p->group == 0 ? cm->group[ph]
                         : p->group <= wl->ngroups
                             ? weft_communicator_find(cm, wl->group_name[p->group - 1])
                             : NULL;
      if (!group) continue;  /* weft_problem_create rejects it */
      double t[WEFT_MAX_DIMS];
      weft_collective_traffic(p->coll, p->size_bytes, group, D, t);
      for (int d = 0; d < D; d++) bytes[d] += t[d];
    }
}
