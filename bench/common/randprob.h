/* randprob.h — random bandwidth problems over many orders of magnitude and
 * the solver's independent checks, shared by the randomized oracle test
 * (tests/unit/test_random.c) and bench/bench_random.c. */
#ifndef WEFT_RANDPROB_H
#define WEFT_RANDPROB_H

#include <stdint.h>

#include "weft.h"

typedef struct {
  int dmin, dmax;          /* dims drawn in [dmin, dmax] */
  int lmax;                /* layers in [1, lmax] */
  double emin, emax;       /* each input scale is 10^U(emin, emax) */
  int only_sum;            /* constraints: 'sum = R' alone (for the search oracle) */
  int wide_prices;         /* each dim's prices drawn apart over [emin, emax] (ratios to
                              1e18), and perf may take a budget 'cost <= X' alone */
} RandOpts;

/* One problem: everything its spec borrows, built in memory. The equal
 * split B_d = R/D always meets the constraints, so every point between it
 * and a feasible design is feasible. */
typedef struct {
  WeftNetwork net;
  WeftCostModel cm;
  WeftCommunicator comm;
  WeftWorkload *wl;
  WeftConstraints cons;
  WeftSpec spec;
  double R;                          /* the sum's right-hand side */
  double scale_bytes, scale_ns, scale_usd;
} RandProb;

/* Draw a problem from *state. Returns 0, or a negative WeftErrno. */
int randprob_make(RandProb *r, uint64_t *state, const RandOpts *o);
void randprob_free(RandProb *r);

/* Check a result: why gets the first failure ("" when none). Checks the
 * status, the constraints in natural units (relative 1e-8), the reported
 * objective against the model at the design, the certified gap, and that
 * no point between the design and the equal split beats the design or
 * falls below the certified bound. Returns 1 when all hold. */
int randprob_check(const RandProb *r, const WeftProblem *p, const WeftResult *res, char *why,
                   size_t n);
/* Worst relative violation of r's constraints (and B >= 0) at bw in GB/s,
 * computed from the inputs without the solver. */
double randprob_violation(const RandProb *r, const double *bw);
/* The minimum over 'sum = R' (2 or 3 dims) by a grid and golden-section
 * refinement, independent of the solver; -1 if the problem is not such. */
double randprob_search(const RandProb *r, const WeftProblem *p, double *bw);

#endif
