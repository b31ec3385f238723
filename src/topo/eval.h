/* eval.h — internal pieces of TopoOpt's evaluation (evaluate.c, ocs.c). */
#ifndef WEFT_TOPO_EVAL_H
#define WEFT_TOPO_EVAL_H
#include "weft.h"

/* The two phases' communication times of traffic t, each on a fabric of
 * ts's d ports of B built for that phase alone. */
int topo_eval_ocs(const WeftTraffic *t, const WeftTopoSettings *ts, int simulate,
                  double *ar_ns, double *mp_ns, WeftError *err);
/* Iteration time: compute, the phases one after the other, and a
 * reconfiguration before each phase when there are two (none with one: the
 * wiring stays). */
double topo_eval_ocs_time(double compute_ns, double ar_ns, double mp_ns, double reconf_ns);
#endif
