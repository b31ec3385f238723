/* astra1.c — `--export-astra1 DIR` (optimize, simulate, validate): a design
 * as ASTRA-sim 1.0 analytical inputs in DIR, every file or none, and the
 * note that says what was written in which units. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define ASTRA_DEFAULT_HOP_NS 500.0  /* ASTRA-sim's sample networks, when the network gives none */

void cli_astra1_settings(const WeftNetwork *net, WeftSimSettings *s) {
  weft_sim_settings_default(s);
  s->like = WEFT_LIKE_ASTRA1;
  s->endpoint_delay_ns = WEFT_ASTRA_ENDPOINT_NS;
  int have = 0;
  for (int d = 0; d < net->ndims; d++) have |= net->latency_ns[d] > 0.0;
  for (int d = 0; d < net->ndims; d++)
    s->latency_ns[d] = have ? net->latency_ns[d]
                            : ASTRA_DEFAULT_HOP_NS * (net->topology[d] == WEFT_SWITCH ? 2.0 : 1.0);
}

int cli_astra1_check(const WeftSpec *spec) {
  WeftError err;
  int mp;
  weft_error_clear(&err);
  for (int j = 0; j < spec->njobs; j++)
    if (weft_astra1_mp_npus(spec->net, spec->jobs[j].workload, spec->jobs[j].comm, &mp, &err)) {
      cli_error(&err);
      cli_fail("--export-astra1: nothing written");
      return EXIT_USAGE;
    }
  return EXIT_OK;
}

int cli_export_astra1(const char *dir, const WeftSpec *spec, const double *bw_gbps,
                      const WeftSimSettings *s) {
  char names[WEFT_MAX_JOBS + 2][WEFT_NAME_LEN];
  int n = weft_astra1_file_names(spec, names, WEFT_MAX_JOBS + 2), made = 0, rc = EXIT_OK;
  WeftError err;
  weft_error_clear(&err);
  if ((rc = cli_astra1_check(spec))) return rc;
  if (mkdir(dir, 0777) == 0) made = 1;
  else if (errno != EEXIST) {
    cli_fail("%s: cannot create directory: %s", dir, strerror(errno));
    return EXIT_RUNTIME;
  }
  WeftOut *o[WEFT_MAX_JOBS + 2] = {NULL};
  size_t len = strlen(dir) + WEFT_NAME_LEN + 2;
  char *path = malloc(len);
  if (!path) {
    cli_fail("out of memory");
    rc = EXIT_RUNTIME;
  }
  int opened = 0;
  for (; opened < n && !rc; opened++) {
    snprintf(path, len, "%s/%s", dir, names[opened]);
    rc = cli_out_open(path, &o[opened]);
  }
  free(path);
  if (!rc && weft_astra1_emit(o, n, spec, bw_gbps, s, &err)) {
    cli_error(&err);
    rc = err.code == WEFT_EIO || err.code == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
  }
  if (!rc) rc = cli_out_commit_all(o, n);
  else
    for (int k = 0; k < n; k++) cli_out_discard(o[k]);
  if (rc && made) rmdir(dir);
  return rc;
}

void cli_astra1_note(FILE *out, const char *dir, const WeftSpec *spec, const WeftSimSettings *s) {
  char names[WEFT_MAX_JOBS + 2][WEFT_NAME_LEN];
  int n = weft_astra1_file_names(spec, names, WEFT_MAX_JOBS + 2);
  fprintf(out, "\nASTRA-sim 1.0 inputs in %s/:\n"
               "  %-15s link-bandwidth per link in ASTRA-sim's GB/s (2^30 bytes/s),\n"
               "  %-15s link-latency per hop (a Switch message is 2 hops):",
          dir, "network.json", "");
  for (int d = 0; d < spec->net->ndims; d++)
    fprintf(out, "%s%g", d ? ", " : " ",
            spec->net->topology[d] == WEFT_SWITCH ? s->latency_ns[d] / 2 : s->latency_ns[d]);
  fprintf(out, " ns\n  %-15s %d chunk%s, %d in flight, endpoint delay %.0f ns, localBWAware\n",
          "system.txt", s->chunks, s->chunks == 1 ? "" : "s",
          s->in_flight ? s->in_flight : WEFT_SIM_ASTRA_IN_FLIGHT,
          s->endpoint_delay_ns + 0.0);
  for (int k = 2; k < n; k++) {
    int mp = 0;
    WeftError err;
    weft_astra1_mp_npus(spec->net, spec->jobs[k - 2].workload, spec->jobs[k - 2].comm, &mp, &err);
    fprintf(out, "  %-15s HYBRID_TRANSFORMER model_parallel_NPU_group: %d, whole ns and bytes\n",
            names[k], mp);
  }
  fputs("  weft simulate --like astra-sim with these settings reports ASTRA-sim's time\n", out);
}
