/* bench_cli.c — time the whole `weft optimize` process (fork, exec, read the
 * files, solve, print to /dev/null, exit) on the synthetic 8-dim problem, and
 * with --model (zoo model, cluster preset, per-operator compute, generated
 * workload), issue 11's "whole weft optimize --model process <= 5 ms". Run
 * from the repository root (data/zoo). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/bench.h"

#define REPS 51
#define WARMUP 3
#define TARGET_NS 5e6  /* 5 ms per process */
#define SEED 20240501u /* the same problem as bench_synth */

/* Run argv with stdout (and stderr when quiet) on /dev/null; exit status or -1. */
static int run(char *const argv[], int quiet) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null < 0 || dup2(null, 1) < 0 || (quiet && dup2(null, 2) < 0)) _exit(126);
    execv(argv[0], argv);
    _exit(127);
  }
  int status;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Median wall time of REPS runs of argv; -1 when a run fails. */
static double time_runs(char *const argv[]) {
  static double t[REPS];
  if (run(argv, 0) != 0) return -1;  /* once with stderr shown, to see why it fails */
  for (int r = -WARMUP; r < REPS; r++) {
    double t0 = bench_now_ns();
    int rc = run(argv, 1);
    double t1 = bench_now_ns();
    if (rc != 0) return -1;
    if (r >= 0) t[r] = t1 - t0;
  }
  return bench_median(t, REPS);
}

int main(int argc, char **argv) {
  const char *weft = argc > 1 ? argv[1] : "build/weft";
  char dir[] = "/tmp/weft-bench-XXXXXX";
  char scenario[sizeof dir + 32], weft_path[WEFT_PATH_LEN];
  Synth s;
  WeftError err;
  char buf[1024];
  printf("bench_cli: whole `weft optimize` process, synthetic %d dims, %d layers\n", SYNTH_DIMS,
         SYNTH_LAYERS);
  if (access(weft, X_OK) != 0) {
    printf("FAIL no executable weft at '%s' (give its path as the first argument)\n", weft);
    return 1;
  }
  snprintf(weft_path, sizeof weft_path, "%s", weft);
  if (synth_build(&s, SEED, &err)) {
    printf("FAIL cannot build the synthetic problem: %s\n", weft_error_format(&err, buf, sizeof buf));
    synth_free(&s);
    return 1;
  }
  if (!mkdtemp(dir)) {
    printf("FAIL cannot create a temporary directory\n");
    synth_free(&s);
    return 1;
  }
  int rc = synth_write(&s, dir);
  synth_free(&s);
  if (rc) {
    printf("FAIL cannot write the problem into %s\n", dir);
    synth_remove(dir);
    return 1;
  }
  snprintf(scenario, sizeof scenario, "%s/scenario.yml", dir);
  printf("weft: %s, scenario: %s (+ LIBRA-format net, cost, communicator, workload)\n", weft, scenario);
  char perf[] = "perf", ppc[] = "perf-per-cost", opt[] = "optimize", flag[] = "--objective";
  char *objectives[] = {perf, ppc};
  int pass = 0, ntargets = 0;
  rc = 0;
  for (int i = 0; i < 2 && !rc; i++) {
    char *args[] = {weft_path, opt, scenario, flag, objectives[i], NULL};
    double med = time_runs(args);
    if (med < 0) {
      printf("FAIL weft optimize --objective %s did not exit 0\n", objectives[i]);
      rc = 1;
      break;
    }
    snprintf(buf, sizeof buf, "weft optimize, %s (median of %d)", objectives[i], REPS);
    pass += bench_report(buf, med, TARGET_NS);
    ntargets++;
  }
  if (!rc) { /* GPT-3 175B on 1024 A100s of the dgx-a100 preset, TP-8 PP-8, ZeRO-1 */
    char model[] = "--model", gpt3[] = "gpt3-175b", cl[] = "--cluster", dgx[] = "dgx-a100",
         np[] = "--npus", n[] = "1024", tp[] = "--tp", pp[] = "--pp", eight[] = "8",
         zero[] = "--zero", one[] = "1", zoo[] = "--zoo", zdir[] = "data/zoo",
         cons[] = "--constraint", sum[] = "sum = 400", cm[] = "--cost-model",
         cost[] = "data/validation/cost.yml";
    char *args[] = {weft_path, opt, model, gpt3, cl, dgx, np, n, tp, eight, pp, eight,
                    zero, one, zoo, zdir, cm, cost, cons, sum, NULL};
    double med = time_runs(args);
    if (med < 0) {
      printf("FAIL weft optimize --model gpt3-175b did not exit 0 (run from the repo root)\n");
      rc = 1;
    } else {
      snprintf(buf, sizeof buf, "weft optimize --model gpt3-175b (median of %d)", REPS);
      pass += bench_report(buf, med, TARGET_NS);
      ntargets++;
    }
  }
  if (!rc) printf("bench_cli: %d of %d targets met\n", pass, ntargets);
  synth_remove(dir);
  return rc;
}
