/* test_random.c — the exact solver on random problems over many orders of
 * magnitude (bench/common/randprob.c): every answer is checked without
 * trusting the solver, and the small ones against a direct search. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../test.h"
#include "common/randprob.h"

/* 2..16 dims, both loops and objectives, every input scale 1e-6..1e12: each
 * solve must be 'solved' and pass randprob_check. */
static void random_scales(void) {
  RandOpts o = {2, 16, 24, -6.0, 12.0, 0, 0};
  uint64_t st = 20261123;
  int bad = 0;
  for (int i = 0; i < 300; i++) {
    RandProb r;
    WeftProblem *p = NULL;
    WeftResult res;
    WeftError e;
    char why[512];
    if (randprob_make(&r, &st, &o) || weft_problem_create(&r.spec, &p, &e)) {
      CHECK(!"a random problem could not be built");
      randprob_free(&r);
      continue;
    }
    CHECK_EQ_INT(weft_problem_solve(p, NULL, &res), WEFT_OK);
    if (!randprob_check(&r, p, &res, why, sizeof why) && bad++ < 5)
      fprintf(stderr, "  problem %d (%d dims, %s, %s): %s\n", i, r.net.ndims,
              weft_objective_name(r.spec.objective), weft_loop_name(r.spec.loop), why);
    weft_problem_free(p);
    randprob_free(&r);
  }
  CHECK_EQ_INT(bad, 0);
}

/* 2 and 3 dims under 'sum = R' alone: a grid and golden-section search over
 * the simplex finds nothing better than weft, and gets within 1e-6 of it. */
static void random_vs_search(void) {
  RandOpts o = {2, 3, 8, -6.0, 12.0, 1, 0};
  uint64_t st = 4242;
  for (int i = 0; i < 40; i++) {
    RandProb r;
    WeftProblem *p = NULL;
    WeftResult res;
    WeftError e;
    double bw[WEFT_MAX_DIMS];
    if (randprob_make(&r, &st, &o) || weft_problem_create(&r.spec, &p, &e)) {
      CHECK(!"a random problem could not be built");
      randprob_free(&r);
      continue;
    }
    CHECK_EQ_INT(weft_problem_solve(p, NULL, &res), WEFT_OK);
    CHECK_EQ_INT(res.status, WEFT_STATUS_SOLVED);
    double best = randprob_search(&r, p, bw);
    if (getenv("WEFT_RANDOM_DEBUG"))
      fprintf(stderr, "  %d: D=%d %s %s status %d obj %.17g lb %.17g search %.17g R %g bytes %g ns %g usd %g bw %g %g\n", i,
              r.net.ndims, weft_objective_name(r.spec.objective), weft_loop_name(r.spec.loop),
              res.status, res.objective, res.lower_bound, best, r.R, r.scale_bytes, r.scale_ns,
              r.scale_usd, res.bw_gbps[0], res.bw_gbps[1]);
    CHECK(best > 0.0);
    CHECK(res.objective <= best * (1.0 + 1e-9));  /* nothing the search finds is better */
    CHECK(best <= res.objective * (1.0 + 1e-6));  /* and the search gets close */
    CHECK(res.lower_bound <= best * (1.0 + 1e-12));
    weft_problem_free(p);
    randprob_free(&r);
  }
}

/* Prices per dim drawn apart over 1e-6..1e12 (ratios up to 1e18; docs/
 * scenario.md, "Limits"), 2..6 dims, both objectives and loops, under
 * 'sum = R', 'sum <= R' or a budget 'cost <= X' alone (perf). Every such
 * problem is feasible and has an optimum: the equal split B_d = R/D meets
 * the constraints (checked here from the inputs, not by the solver), and
 * with every price positive each of those constraints bounds every B_d
 * (perf), while 'sum = R' fixes perf-per-cost's scale. So an 'infeasible'
 * or 'unbounded' verdict is false on its face: there must be none, and
 * every 'solved' must pass randprob_check (constraints, objective,
 * certified gap, no better feasible point towards the equal split). A
 * 'numerical difficulty' is an honest non-answer, allowed rarely (2 in
 * 3,000 such problems with 6 dims, where the simplex's pivot tolerance
 * cannot tell a cost share of 1e-16 from 0; none in this set).
 */
#define WIDE_MAX_UNSETTLED 2
static void random_wide_prices(void) {
  RandOpts o = {2, 6, 8, -6.0, 12.0, 0, 1};
  uint64_t st = 2026112621;
  int bad = 0, unsettled = 0;
  for (int i = 0; i < 400; i++) {
    RandProb r;
    WeftProblem *p = NULL;
    WeftResult res;
    WeftError e;
    char why[512];
    if (randprob_make(&r, &st, &o) || weft_problem_create(&r.spec, &p, &e)) {
      CHECK(!"a random problem could not be built");
      randprob_free(&r);
      continue;
    }
    double eq[WEFT_MAX_DIMS];
    for (int d = 0; d < r.net.ndims; d++) eq[d] = r.R / r.net.ndims;
    CHECK(randprob_violation(&r, eq) <= 1e-12); /* the witness of feasibility */
    CHECK_EQ_INT(weft_problem_solve(p, NULL, &res), WEFT_OK);
    int ok = randprob_check(&r, p, &res, why, sizeof why);
    if (!ok && (res.status == WEFT_STATUS_NUMERICAL || res.status == WEFT_STATUS_MAX_ITER)) {
      unsettled++;
    } else if (!ok && bad++ < 5) {
      fprintf(stderr, "  problem %d (%d dims, %s, %s, '%s'): %s\n", i, r.net.ndims,
              weft_objective_name(r.spec.objective), weft_loop_name(r.spec.loop),
              r.cons.c[0].text, why);
    }
    weft_problem_free(p);
    randprob_free(&r);
  }
  CHECK_EQ_INT(bad, 0);
  CHECK(unsettled <= WIDE_MAX_UNSETTLED);
  if (getenv("WEFT_RANDOM_DEBUG")) fprintf(stderr, "  wide prices: %d of 400 unsettled\n", unsettled);
}

/* 2 and 3 dims, wide prices, 'sum = R' alone: nothing a grid and
 * golden-section search over the simplex finds beats a 'solved' answer or
 * its certified bound, and no answer is 'infeasible' or 'unbounded' (the
 * search's own points are feasible). (The search need not get close: an
 * optimum a share of 1e-15 from a corner is below its grid.) */
static void random_wide_prices_vs_search(void) {
  RandOpts o = {2, 3, 8, -6.0, 12.0, 1, 1};
  uint64_t st = 1121;
  for (int i = 0; i < 60; i++) {
    RandProb r;
    WeftProblem *p = NULL;
    WeftResult res;
    WeftError e;
    double bw[WEFT_MAX_DIMS];
    if (randprob_make(&r, &st, &o) || weft_problem_create(&r.spec, &p, &e)) {
      CHECK(!"a random problem could not be built");
      randprob_free(&r);
      continue;
    }
    CHECK_EQ_INT(weft_problem_solve(p, NULL, &res), WEFT_OK);
    CHECK(res.status != WEFT_STATUS_INFEASIBLE && res.status != WEFT_STATUS_UNBOUNDED);
    double best = randprob_search(&r, p, bw);
    CHECK(best > 0.0);
    if (res.status == WEFT_STATUS_SOLVED) {
      CHECK(res.objective <= best * (1.0 + 1e-9));
      CHECK(res.lower_bound <= best * (1.0 + 1e-12));
    }
    weft_problem_free(p);
    randprob_free(&r);
  }
}

const TestCase suite_random[] = {
    {"random/scales_1e-6_1e12", random_scales},
    {"random/vs_search", random_vs_search},
    {"random/wide_prices", random_wide_prices},
    {"random/wide_prices_vs_search", random_wide_prices_vs_search},
    {0, 0},
};
