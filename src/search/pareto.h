/* pareto.h — internal: the tolerance weft_pareto and the streaming summary
 * (summary.c) share, so both draw the same front. */
#ifndef WEFT_SEARCH_PARETO_H
#define WEFT_SEARCH_PARETO_H

#include "weft.h"

/* Times within this relative distance are the same time: the solver certifies
 * each optimum to a relative gap of 1e-9 (its default), so closer times are
 * one optimum reached through different rounding, not a trade-off. */
#define WEFT_PARETO_TIME_TOL 1e-9

#endif
