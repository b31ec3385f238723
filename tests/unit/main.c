/* main.c — runs every unit-test suite; prints "unit: N passed, M failed".
 * A suite is a TestCase table; add it to the list below. */
#include <stdio.h>
#include <string.h>

#include "../test.h"

int test_failures_ = 0;

#define SUITES(X) X(core) X(constraint) X(io) X(opt) X(zoo) X(gen) X(recompute) X(search) X(stream) X(sweep) X(flow) X(sim) X(simlink) X(simest) X(astra) X(match) X(traffic) X(baseline) X(topo) X(topoeval) X(toporoute) X(limits) X(random) X(files) X(opcost) X(cluster) X(text) X(attention) X(gemm) X(pipeline) X(names) X(loop) X(accum) X(robust) X(whole) X(hw) X(syscost) X(parts) X(active) X(fabric) X(fp8) X(buckets) X(chakra) X(recipes) X(hidden) X(overlapgen) X(measured) X(fold) X(offload) X(cpring) X(cptorch) X(fsdp2) X(eager) X(opmg) X(layout) X(dropout) X(a2a) X(loss) X(torchlayers) X(lora) X(packed)

#define DECLARE_(s) extern const TestCase suite_##s[];
SUITES(DECLARE_)
#undef DECLARE_

int main(int argc, char **argv) {
  const TestCase *suites[] = {
#define LIST_(s) suite_##s,
      SUITES(LIST_)
#undef LIST_
  };
  const char *filter = argc > 1 ? argv[1] : NULL;
  int passed = 0, failed = 0;
  for (size_t s = 0; s < sizeof suites / sizeof suites[0]; s++) {
    for (const TestCase *t = suites[s]; t->name; t++) {
      if (filter && !strstr(t->name, filter)) continue;
      test_failures_ = 0;
      t->fn();
      if (test_failures_) {
        fprintf(stderr, "FAIL %s\n", t->name);
        failed++;
      } else {
        passed++;
      }
    }
  }
  printf("unit: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
