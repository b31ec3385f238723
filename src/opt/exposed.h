/* exposed.h — internal: how much of each phase's communication a training
 * loop leaves exposed, shared by the analytic model (evaluate.c) and the
 * simulator (sim.c) so their breakdowns split the same way. */
#ifndef WEFT_OPT_EXPOSED_H
#define WEFT_OPT_EXPOSED_H

#include "weft.h"

/* From an iteration of time_ns with compute_ns of compute and comm[ph] of
 * each phase's communication, exposed[ph] per loop: no-overlap, all of it;
 * tp-dp-overlap, the weight-grad tail past the blocking work; fwd-ig-overlap
 * (T = max(C_all, fi) + wg), wg whole and fi's part above the compute,
 * T - C_all - wg, shared by forward and input-grad in proportion to their
 * comm (no order between them is implied). compute + the exposed comm = T. */
void weft_loop_exposed(WeftLoop loop, double time_ns, double compute_ns, const double *comm,
                       double *exposed);
/* The same with saved[ph] of each phase's communication hidden behind
 * compute (WeftPhaseSpec.overlap_ns; 0 in fwd-ig-overlap): no-overlap and
 * tp-dp-overlap expose the forward and input-grad comm less what hides. */
void weft_loop_exposed_saved(WeftLoop loop, double time_ns, double compute_ns,
                             const double *comm, const double *saved, double *exposed);

#endif
