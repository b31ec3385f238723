/* bench.h — shared by the benches: a monotonic clock, medians, PASS/MISS
 * lines, and a deterministic synthetic 8-dim, 1000-layer problem. */
#ifndef WEFT_BENCH_H
#define WEFT_BENCH_H

#include <stdint.h>

#include "weft.h"

/* Nanoseconds from CLOCK_MONOTONIC. */
double bench_now_ns(void);
/* Median of v[n] (sorts v in place). */
double bench_median(double *v, int n);
/* "  name  median ... target ... PASS|MISS"; returns 1 on PASS. */
int bench_report(const char *name, double median_ns, double target_ns);

/* Seeded linear congruential generator (Knuth's MMIX constants). */
typedef struct {
  uint64_t state;
} BenchRng;
uint32_t bench_rng_next(BenchRng *r);
double bench_rng_unif(BenchRng *r);  /* [0, 1) */

#define SYNTH_DIMS 8
#define SYNTH_LAYERS 1000
#define SYNTH_INNER_DIMS 3  /* forward and input-grad span dims 1..3 */

/* The synthetic problem: everything a WeftSpec borrows, built in memory. */
typedef struct {
  WeftNetwork net;
  WeftCostModel cost;
  WeftWorkload *wl;  /* owned */
  WeftCommunicator comm;
  WeftConstraints cons;
  const char *cons_text[4];
  int ncons;
} Synth;

/* Build the problem from seed. Returns 0 or a negative WeftErrno. */
int synth_build(Synth *s, uint64_t seed, WeftError *err);
void synth_free(Synth *s);
/* A spec over s with the given objective and loop. */
void synth_spec(const Synth *s, WeftObjective obj, WeftLoop loop, WeftSpec *spec);
/* Write s into dir as LIBRA files (net.yml, cost.yml, comm.yml, synth.txt)
 * and a scenario (scenario.yml) naming them. Returns 0, -1 on I/O error. */
int synth_write(const Synth *s, const char *dir);
/* Remove what synth_write wrote, then dir itself. */
void synth_remove(const char *dir);

#endif
