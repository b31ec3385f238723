/* bench_codesign_mem.c — the peak memory of a whole `weft codesign` process
 * over 2,059,200 design points (GPT-3 175B, 16,384 NPUs, every 5-dim shape,
 * every tp x pp, 4 micro-batches, 6 orders) writing the full CSV; the
 * child's peak RSS (getrusage(RUSAGE_CHILDREN).ru_maxrss) against 200 MB. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/bench.h"

#define RSS_TARGET_MB 200.0
#define WANT_POINTS 2059200  /* 715 shapes x 120 (tp, pp) pairs x 4 mb x 6 orders */

/* Run argv with stdout on /dev/null, stderr kept; exit status (or -1) and
 * the child's peak resident set in kB. */
static int run(char *const argv[], long *maxrss_kb) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null < 0 || dup2(null, 1) < 0) _exit(126);
    execv(argv[0], argv);
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (waitpid(pid, &status, 0) != pid || getrusage(RUSAGE_CHILDREN, &ru)) return -1;
  *maxrss_kb = ru.ru_maxrss;  /* the largest waited-for child (the only one); Linux: kB */
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Data rows of a CSV (lines after the header); -1 when unreadable. */
static long csv_rows(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  long lines = 0;
  int c;
  while ((c = getc(f)) != EOF) lines += c == '\n';
  fclose(f);
  return lines - 1;
}

int main(int argc, char **argv) {
  const char *weft = argc > 1 ? argv[1] : "build/weft";
  char dir[] = "/tmp/weft-bench-XXXXXX", csv[sizeof dir + 16], weft_path[WEFT_PATH_LEN];
  printf("bench_codesign_mem: whole `weft codesign` process, GPT-3 175B on 16,384 NPUs,\n"
         "  Ring x FullyConnected x Ring x Ring x Switch (every shape), every tp x pp,\n"
         "  micro-batch 1..8, all orders, sum = 1000, 2 threads, --csv\n");
  if (access(weft, X_OK) != 0) {
    printf("FAIL no executable weft at '%s' (give its path as the first argument)\n", weft);
    return 1;
  }
  if (!mkdtemp(dir)) {
    printf("FAIL cannot create a temporary directory\n");
    return 1;
  }
  snprintf(csv, sizeof csv, "%s/points.csv", dir);
  snprintf(weft_path, sizeof weft_path, "%s", weft);
  char *args[] = {weft_path, "codesign", "--model", "gpt3-175b", "--npus", "16384", "--blocks",
                  "Ring,FullyConnected,Ring,Ring,Switch", "--cost-model",
                  "tests/fixtures/cost_5d.yml", "--max-per-dim", "0,0,0,0,0", /* every shape */
                  "--constraint", "sum = 1000", "--all-orders",
                  "--threads", "2", "--csv", csv, NULL};
  long kb = 0;
  double t0 = bench_now_ns();
  int rc = run(args, &kb);
  double wall_s = (bench_now_ns() - t0) / 1e9;
  long rows = rc == 0 ? csv_rows(csv) : -1;
  unlink(csv);
  rmdir(dir);
  if (rc != 0) {
    printf("FAIL weft codesign exited %d\n", rc);
    return 1;
  }
  double mb = (double)kb / 1024.0;
  int pass = mb <= RSS_TARGET_MB;
  printf("  %ld design points (CSV rows), wall %.1f s, %.1f bytes per point\n", rows, wall_s,
         rows > 0 ? (double)kb * 1024.0 / (double)rows : 0.0);
  printf("  %-44s %10.1f MB   target <= %8.1f MB   %s\n", "peak RSS (ru_maxrss)", mb,
         RSS_TARGET_MB, pass ? "PASS" : "MISS");
  if (rows != WANT_POINTS) printf("  note: %ld points, not %d\n", rows, WANT_POINTS);
  printf("bench_codesign_mem: %s\n", pass ? "all targets met" : "some targets missed");
  return 0;
}
