/* astra1_export.c — a design as ASTRA-sim 1.0 analytical inputs: the
 * Hierarchical network json (per-link bandwidth in ASTRA-sim's GB/s of 2^30
 * bytes/s, latency per hop), the system file (chunks, per-dim algorithms,
 * endpoint delay) and each job's workload text with the policy line that
 * lays its collectives where weft's communicator does. Every file whole or
 * none (weft_out_commit_all). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/util.h"
#include "sim/astra.h"

/* What ASTRA-sim's sample analytical networks give the memory model: the
 * backend reads these keys, and scale 0 keeps HBM out of every message. */
#define ASTRA_HBM_LATENCY_NS 500.0
#define ASTRA_HBM_GBPS 370.0

int weft_astra1_mp_npus(const WeftNetwork *net, const WeftWorkload *wl,
                        const WeftCommunicator *comm, int *mp_npus, WeftError *err) {
  int split;
  if (!net || !wl || !comm || !mp_npus)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "bad arguments");
  return astra_split(net, wl, comm, mp_npus, &split, err);
}

static int check_design(const WeftNetwork *net, const double *bw_gbps, const WeftSimSettings *s,
                        WeftError *err) {
  if (!net || !bw_gbps || !s || net->ndims < 1 || net->ndims > WEFT_MAX_DIMS)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "bad arguments");
  for (int d = 0; d < net->ndims; d++) {
    if (!isfinite(bw_gbps[d]) || bw_gbps[d] < 0.0)
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "bw_gbps",
                            "bandwidth of dim %d must be finite and >= 0, got %g", d + 1,
                            bw_gbps[d]);
    if (!isfinite(s->latency_ns[d]) || s->latency_ns[d] < 0.0)
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "latency_ns",
                            "latency of dim %d must be finite and >= 0, got %g", d + 1,
                            s->latency_ns[d]);
    if (net->npus[d] < 2)
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "npus_count",
                            "dim %d must have more than 1 NPU, got %d", d + 1, net->npus[d]);
  }
  if (!(s->endpoint_delay_ns >= 0.0) || astra_whole(s->endpoint_delay_ns) > 2147483647.0)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "endpoint_delay_ns",
                          "endpoint delay must be 0 to 2^31-1 ns, got %g", s->endpoint_delay_ns);
  if (s->chunks < 1 || s->in_flight < 0)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "chunks",
                          "chunks must be >= 1 and in-flight >= 0");
  return WEFT_OK;
}

static void json_list(FILE *f, const char *key, const WeftNetwork *net, const double *v) {
  char num[64];
  fprintf(f, "  \"%s\": [", key);
  for (int d = 0; d < net->ndims; d++) {
    weft_io_format_double(num, sizeof num, v[d] + 0.0);
    fprintf(f, "%s%s", d ? ", " : "", num);
  }
  fprintf(f, "],\n");
}

int weft_astra1_network_emit(WeftOut *o, const WeftNetwork *net, const double *bw_gbps,
                             const WeftSimSettings *s, WeftError *err) {
  int rc = o ? check_design(net, bw_gbps, s, err)
             : weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "no output given");
  if (rc) return rc;
  FILE *f = weft_out_stream(o);
  int D = net->ndims;
  double link[WEFT_MAX_DIMS] = {0}, hop[WEFT_MAX_DIMS] = {0}, zero[WEFT_MAX_DIMS] = {0},
         hbm_ns[WEFT_MAX_DIMS] = {0}, hbm_gbps[WEFT_MAX_DIMS] = {0};
  for (int d = 0; d < D; d++) {
    double eff = net->efficiency[d] > 0.0 ? net->efficiency[d] : 1.0;
    link[d] = astra_link_gibps(net, d, bw_gbps[d] * eff);
    hop[d] = astra_hop_ns(net, d, s->latency_ns[d]);
    hbm_ns[d] = ASTRA_HBM_LATENCY_NS;
    hbm_gbps[d] = ASTRA_HBM_GBPS;
  }
  fprintf(f, "{\n  \"weft-units\": \"link-bandwidth: GB/s per link, ASTRA-sim's GB/s of 2^30 "
             "bytes/s (weft's per-NPU B in 1e9 bytes/s: Ring B/2 per link, FullyConnected "
             "B/(n-1), Switch B); link-latency: ns per hop (a Switch message is 2 hops)\",\n"
             "  \"topology-name\": \"Hierarchical\",\n  \"dimensions-count\": %d,\n"
             "  \"topologies-per-dim\": [",
          D);
  for (int d = 0; d < D; d++) fprintf(f, "%s\"%s\"", d ? ", " : "", weft_topology_name(net->topology[d]));
  fprintf(f, "],\n  \"dimension-type\": [");
  for (int d = 0; d < D; d++) fprintf(f, "%s\"N\"", d ? ", " : "");
  fprintf(f, "],\n  \"units-count\": [");
  for (int d = 0; d < D; d++) fprintf(f, "%s%d", d ? ", " : "", net->npus[d]);
  fprintf(f, "],\n  \"links-count\": [");
  for (int d = 0; d < D; d++) fprintf(f, "%s%d", d ? ", " : "", astra_links(net, d));
  fprintf(f, "],\n");
  json_list(f, "link-latency", net, hop);
  json_list(f, "link-bandwidth", net, link);
  json_list(f, "nic-latency", net, zero);
  json_list(f, "router-latency", net, zero);
  json_list(f, "hbm-latency", net, hbm_ns);
  json_list(f, "hbm-bandwidth", net, hbm_gbps);
  fprintf(f, "  \"hbm-scale\": [");
  for (int d = 0; d < D; d++) fprintf(f, "%s0", d ? ", " : "");
  fprintf(f, "]\n}\n");
  return WEFT_OK;
}

static const char *alg_name(WeftAlgorithm a) {
  return a == WEFT_ALG_RING ? "ring" : a == WEFT_ALG_HD ? "halvingDoubling" : "direct";
}

int weft_astra1_system_emit(WeftOut *o, const WeftNetwork *net, const WeftSimSettings *s,
                            WeftError *err) {
  double bw[WEFT_MAX_DIMS] = {0};
  int rc = o ? check_design(net, bw, s, err)
             : weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "no output given");
  if (rc) return rc;
  FILE *f = weft_out_stream(o);
  fprintf(f, "scheduling-policy: %s\nendpoint-delay: %.0f\nactive-chunks-per-dimension: %d\n"
             "preferred-dataset-splits: %d\nboost-mode: 0\n",
          s->astra_policy == WEFT_ASTRA_FIFO ? "FIFO" : "LIFO", astra_whole(s->endpoint_delay_ns),
          s->in_flight ? s->in_flight : WEFT_SIM_ASTRA_IN_FLIGHT, s->chunks);
  static const char *const keys[4] = {"all-reduce", "all-gather", "reduce-scatter", "all-to-all"};
  for (int k = 0; k < 4; k++) {
    fprintf(f, "%s-implementation: ", keys[k]);
    for (int d = 0; d < net->ndims; d++) {
      WeftAlgorithm a = astra_alg(net, d, s->algorithm[d]);
      if (k == 3 && a == WEFT_ALG_HD) a = WEFT_ALG_DIRECT; /* ASTRA-sim has no hd all-to-all */
      fprintf(f, "%s%s", d ? "_" : "", alg_name(a));
    }
    fputc('\n', f);
  }
  fprintf(f, "collective-optimization: localBWAware\nintra-dimension-scheduling: FIFO\n"
             "inter-dimension-scheduling: ascending\n");
  return WEFT_OK;
}

static void whole(FILE *f, double v) { fprintf(f, "%.0f", astra_whole(v) + 0.0); }

int weft_astra1_workload_emit(WeftOut *o, const WeftNetwork *net, const WeftWorkload *wl,
                              const WeftCommunicator *comm, WeftError *err) {
  if (!o || !net || !wl || !comm)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "bad arguments");
  int mp, rc = weft_astra1_mp_npus(net, wl, comm, &mp, err);
  if (rc) return rc;
  for (int l = 0; l < wl->nlayers; l++) { /* ASTRA-sim reads whole numbers below 2^64 */
    const WeftLayer *y = &wl->layers[l];
    double v[7] = {y->phase[0].compute_ns, y->phase[0].size_bytes, y->phase[1].compute_ns,
                   y->phase[1].size_bytes, y->phase[2].compute_ns, y->phase[2].size_bytes,
                   y->update_ns};
    for (int k = 0; k < 7; k++)
      if (!(v[k] >= 0.0) || astra_whole(v[k]) >= 1.8e19)
        return weft_error_set(err, WEFT_EINPUT, wl->file, y->line, 0, y->name,
                              "layer %s: %g is not a whole number ASTRA-sim 1.0 can read "
                              "(0 to 2^64)",
                              y->name, v[k]);
  }
  FILE *f = weft_out_stream(o);
  fprintf(f, "HYBRID_TRANSFORMER model_parallel_NPU_group: %d\n%d\n", mp, wl->nlayers);
  for (int l = 0; l < wl->nlayers; l++) {
    const WeftLayer *y = &wl->layers[l];
    fprintf(f, "%s -1", y->name);
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      const WeftPhaseSpec *p = &y->phase[ph];
      int none = p->coll == WEFT_COLL_NONE || !(astra_whole(p->size_bytes) > 0);
      fputc(' ', f);
      whole(f, p->compute_ns);
      fprintf(f, " %s ", none ? "NONE" : weft_collective_name(p->coll));
      whole(f, none ? 0.0 : p->size_bytes);
    }
    fputc(' ', f);
    whole(f, y->update_ns);
    fputc('\n', f);
  }
  return WEFT_OK;
}

int weft_astra1_file_names(const WeftSpec *spec, char names[][WEFT_NAME_LEN], int max) {
  if (!spec || spec->njobs < 1 || max < spec->njobs + 2) return WEFT_EINVAL;
  snprintf(names[0], WEFT_NAME_LEN, "network.json");
  snprintf(names[1], WEFT_NAME_LEN, "system.txt");
  for (int j = 0; j < spec->njobs; j++) {
    if (spec->njobs == 1) snprintf(names[2], WEFT_NAME_LEN, "workload.txt");
    else snprintf(names[2 + j], WEFT_NAME_LEN, "workload_%d.txt", j + 1);
  }
  return spec->njobs + 2;
}

int weft_astra1_emit(WeftOut *const *o, int n, const WeftSpec *spec, const double *bw_gbps,
                     const WeftSimSettings *s, WeftError *err) {
  if (!o || !spec || n != spec->njobs + 2)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "bad arguments");
  int rc = weft_astra1_network_emit(o[0], spec->net, bw_gbps, s, err);
  if (!rc) rc = weft_astra1_system_emit(o[1], spec->net, s, err);
  for (int j = 0; j < spec->njobs && !rc; j++)
    rc = weft_astra1_workload_emit(o[2 + j], spec->net, spec->jobs[j].workload,
                                   spec->jobs[j].comm, err);
  return rc;
}

int weft_astra1_export(const char *dir, const WeftSpec *spec, const double *bw_gbps,
                       const WeftSimSettings *s, WeftError *err) {
  char names[WEFT_MAX_JOBS + 2][WEFT_NAME_LEN];
  if (!dir || !dir[0])
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "no output directory given");
  int n = weft_astra1_file_names(spec, names, WEFT_MAX_JOBS + 2);
  if (n < 0) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "bad arguments");
  int made = 0, rc = WEFT_OK;
  if (mkdir(dir, 0777) == 0) made = 1;
  else if (errno != EEXIST)
    return weft_error_set(err, WEFT_EIO, dir, 0, 0, "", "cannot create directory: %s",
                          strerror(errno));
  WeftOut *o[WEFT_MAX_JOBS + 2] = {NULL};
  size_t len = strlen(dir) + WEFT_NAME_LEN + 2;
  char *path = malloc(len);
  if (!path) rc = weft_error_set(err, WEFT_ENOMEM, "", 0, 0, "", "out of memory");
  for (int k = 0; k < n && !rc; k++) {
    snprintf(path, len, "%s/%s", dir, names[k]);
    rc = weft_out_open(path, &o[k], err);
  }
  free(path);
  if (!rc) rc = weft_astra1_emit(o, n, spec, bw_gbps, s, err);
  if (!rc) rc = weft_out_commit_all(o, n, err);
  else
    for (int k = 0; k < n; k++) weft_out_discard(o[k]);
  if (rc && made) rmdir(dir);
  return rc;
}
