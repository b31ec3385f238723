/* bench_matching.c — weft_max_weight_matching on dense graphs of random
 * integer weights (seeded): 256, 512 and 1024 nodes, to show the n^3
 * growth. Target: 1024 nodes within 2 s (TopologyFinder runs d rounds). */
#include <stdio.h>
#include <stdlib.h>

#include "common/bench.h"

#define TARGET_1024_NS 2e9
#define WEIGHT_MAX 1000000  /* weights 1..10^6: few ties, like byte counts */

/* Median time of reps calls on a dense n-node graph; the matching's weight
 * and size into *weight, *card. Returns -1 on failure. */
static double time_matching(int n, int reps, long long *weight, int *card) {
  long long *w = malloc(sizeof *w * (size_t)n * (size_t)n);
  int *mate = malloc(sizeof *mate * (size_t)n);
  double *t = malloc(sizeof *t * (size_t)reps);
  double med = -1.0;
  if (!w || !mate || !t) goto done;
  BenchRng rng = {(uint64_t)n * 7919u + 1u};
  for (int i = 0; i < n; i++) {
    w[(size_t)i * n + i] = 0;
    for (int j = i + 1; j < n; j++) {
      long long x = 1 + (long long)(bench_rng_next(&rng) % WEIGHT_MAX);
      w[(size_t)i * n + j] = w[(size_t)j * n + i] = x;
    }
  }
  for (int r = 0; r < reps; r++) {
    double t0 = bench_now_ns();
    if (weft_max_weight_matching(n, w, 0, mate) != WEFT_OK) goto done;
    t[r] = bench_now_ns() - t0;
  }
  *weight = 0;
  *card = 0;
  for (int i = 0; i < n; i++)
    if (mate[i] > i) {
      *weight += w[(size_t)i * n + mate[i]];
      (*card)++;
    }
  med = bench_median(t, reps);
done:
  free(w);
  free(mate);
  free(t);
  return med;
}

/* bench_matching [WEFT]: the weft path (make bench passes it) is unused. */
int main(void) {
  static const int sizes[3] = {256, 512, 1024}, reps[3] = {9, 5, 3};
  double ns[3];
  printf("bench_matching: maximum-weight matching, dense graphs, weights 1..%d\n", WEIGHT_MAX);
  for (int k = 0; k < 3; k++) {
    long long weight;
    int card;
    ns[k] = time_matching(sizes[k], reps[k], &weight, &card);
    if (ns[k] < 0) {
      printf("FAIL cannot run the matching at n = %d\n", sizes[k]);
      return 1;
    }
    printf("  n %4d: %9.1f ms (median of %d), %d edges matched, weight %lld", sizes[k],
           ns[k] / 1e6, reps[k], card, weight);
    if (k > 0) printf(", x%.1f over n/2 (n^3: x8)", ns[k] / ns[k - 1]);
    printf("\n");
  }
  bench_report("dense 1024 nodes", ns[2], TARGET_1024_NS);
  return 0;
}
