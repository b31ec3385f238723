/* bench_random.c — 10,000 random problems (2-16 dims, both loops and
 * objectives, every input scale 10^U(-6, 12): bytes, compute, $ per GB/s,
 * the constraints' right-hand side), each checked without trusting the
 * solver (randprob_check). Targets: 0 failed, 0 unverified 'solved'. */
#include <stdio.h>

#include "common/bench.h"
#include "common/randprob.h"

#define NPROB 10000
#define SEED 20261123u

int main(void) {
  RandOpts o = {2, 16, 40, -6.0, 12.0, 0, 0};
  uint64_t st = SEED;
  int failed = 0, unverified = 0, shown = 0, built = 0;
  double t_ns = 0.0, worst_ns = 0.0;
  for (int i = 0; i < NPROB; i++) {
    RandProb r;
    WeftProblem *p = NULL;
    WeftResult res;
    WeftError e;
    char why[512], buf[512];
    if (randprob_make(&r, &st, &o)) {
      printf("FAIL problem %d could not be drawn\n", i);
      randprob_free(&r);
      return 1;
    }
    double t0 = bench_now_ns();
    int rc = weft_problem_create(&r.spec, &p, &e);
    if (!rc) rc = weft_problem_solve(p, NULL, &res);
    double dt = bench_now_ns() - t0;
    t_ns += dt;
    worst_ns = dt > worst_ns ? dt : worst_ns;
    if (rc) {
      failed++;
      if (shown++ < 10) printf("  problem %d: %s\n", i, weft_error_format(&e, buf, sizeof buf));
    } else {
      built++;
      if (!randprob_check(&r, p, &res, why, sizeof why)) {
        if (res.status == WEFT_STATUS_SOLVED) unverified++;
        else failed++;
        if (shown++ < 10)
          printf("  problem %d (%d dims, %s, %s, bytes %.1e ns %.1e usd %.1e rhs %.1e): %s\n", i,
                 r.net.ndims, weft_objective_name(r.spec.objective), weft_loop_name(r.spec.loop),
                 r.scale_bytes, r.scale_ns, r.scale_usd, r.R, why);
      }
    }
    weft_problem_free(p);
    randprob_free(&r);
  }
  printf("bench_random: %d problems, seed %u, scales 1e-6..1e12: failed %d, unverified 'solved' %d; "
         "mean create+solve %.1f us, slowest %.1f ms\n", NPROB, SEED, failed, unverified,
         t_ns / NPROB / 1e3, worst_ns / 1e6);
  int ok = failed == 0 && unverified == 0;
  printf("  %-44s %10d   target ==        0   %s\n", "failed + unverified of 10,000", failed + unverified,
         ok ? "PASS" : "MISS");
  (void)built;
  return 0;
}
