/* bench_yaml.c — the YAML reader on a hostile mapping: a network file of
 * 80,000 keys (1.1 MB) refused for its unknown keys, and the same with a
 * duplicate key at its end, then ten times the keys to show linear growth.
 * Target (issue 21): the 80,000-key file read and refused within 1 s (the
 * duplicate check compared each key with all earlier ones: 22-24 s). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bench.h"

#define TARGET_NS 1e9
#define REPS 5

/* Write the network file: NpusCount, then n keys "key00000: 1.5" (14
 * bytes a line), then "key00007: 2" when dup. Returns its size or -1. */
static long write_net(const char *path, int n, int dup) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "Topology: [Ring, Switch]\nNpusCount: [4, 4]\n");
  for (int i = 0; i < n; i++) fprintf(f, "key%05d: 1.5\n", i);
  if (dup) fprintf(f, "key%05d: 2\n", 7);
  long size = ftell(f);
  return fclose(f) ? -1 : size;
}

/* Median time of weft_network_read on path; -1 unless each run is refused
 * with a message containing want. */
static double time_read(const char *path, const char *want) {
  double t[REPS];
  for (int r = 0; r < REPS; r++) {
    WeftNetwork net;
    WeftError err;
    double t0 = bench_now_ns();
    int rc = weft_network_read(path, &net, &err);
    t[r] = bench_now_ns() - t0;
    if (rc != WEFT_EINPUT || !strstr(err.msg, want)) {
      char buf[512];
      printf("FAIL %s: expected \"%s\", got %s\n", path, want,
             rc ? weft_error_format(&err, buf, sizeof buf) : "no error");
      return -1;
    }
  }
  return bench_median(t, REPS);
}

int main(void) {
  char dir[] = "/tmp/weft-bench-yaml-XXXXXX", path[64];
  static const struct {
    int n, dup;
    const char *want, *what;
  } cases[] = {{80000, 0, "unknown key 'key00000'", "80,000 keys, unknown"},
               {80000, 1, "duplicate key 'key00007'", "80,000 keys, a duplicate at the end"},
               {800000, 1, "duplicate key 'key00007'", "800,000 keys, a duplicate at the end"}};
  double ns[3];
  printf("bench_yaml: weft_network_read on a mapping of many keys (median of %d)\n", REPS);
  if (!mkdtemp(dir)) {
    printf("FAIL cannot create a temporary directory\n");
    return 1;
  }
  snprintf(path, sizeof path, "%s/net.yml", dir);
  int rc = 0;
  for (int k = 0; k < 3 && !rc; k++) {
    long size = write_net(path, cases[k].n, cases[k].dup);
    if (size < 0) {
      printf("FAIL cannot write %s\n", path);
      rc = 1;
      break;
    }
    ns[k] = time_read(path, cases[k].want);
    if (ns[k] < 0) {
      rc = 1;
      break;
    }
    printf("  %-38s %5.1f MB %9.1f ms", cases[k].what, (double)size / 1e6, ns[k] / 1e6);
    if (k == 2) printf(", x%.1f over 80,000 (linear: x10)", ns[2] / ns[1]);
    printf("\n");
  }
  unlink(path);
  rmdir(dir);
  if (rc) return rc;
  bench_report("80,000-key file refused (unknown key)", ns[0], TARGET_NS);
  bench_report("80,000-key file refused (duplicate key)", ns[1], TARGET_NS);
  return 0;
}
