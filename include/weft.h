/* weft.h — the one public header of libweft.
 * Network-fabric design for AI training clusters: exact LIBRA bandwidth allocation. */
#ifndef WEFT_H
#define WEFT_H

#define WEFT_VERSION "0.1.0"

/* The API by area (docs/api.md), each header including the ones it builds on. */
#include "weft/core.h"    /* limits, errors, number syntax */
#include "weft/inputs.h"  /* network, cost model, workload, communicator, constraints, scenario */
#include "weft/parts.h"   /* parts catalog, dims built of parts */
#include "weft/problem.h" /* the bandwidth problem: create, solve, evaluate, EqualBW */
#include "weft/output.h"  /* output files, ASTRA-sim export */
#include "weft/model.h"   /* model zoo, parallelization, workload generator */
#include "weft/search.h"  /* co-design, sweeps */
#include "weft/sim.h"     /* graphs, flows, the simulator */
#include "weft/topo.h"    /* direct-connect topologies */

#endif /* WEFT_H */
