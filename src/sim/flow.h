/* flow.h — internal view of the fluid flow engine (src/sim/flow.c): the
 * current per-flow rates, for tests and diagnostics. */
#ifndef WEFT_SIM_FLOW_H
#define WEFT_SIM_FLOW_H

#include <stddef.h>

#include "weft.h"

/* The active flows oldest first: tags[i] and rates_gbps[i] (bytes/ns) at the
 * current rates (recomputed first when flows started or ended since), for the
 * first max of them; either array may be NULL. Returns the number of active
 * flows (which may exceed max). */
size_t weft_flowsim_rates(WeftFlowSim *fs, unsigned long long *tags, double *rates_gbps,
                          size_t max);

#endif
