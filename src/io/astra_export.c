/* astra_export.c — writes a design as an ASTRA-sim 2.0 analytical network yml.
 * Per-NPU B_d becomes per-link bandwidth in ASTRA-sim's GB/s (2^30 bytes/s),
 * the network's latency per step becomes latency per hop; the file appears whole or not at all
 * (weft_out_open / weft_out_commit). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/util.h"
#include "sim/astra.h"

/* Per-hop latency when the caller gives none: the value ASTRA-sim's own
 * example analytical networks use for every dim. */
#define WEFT_ASTRA_DEFAULT_LATENCY_NS 500.0

static int check_args(const char *path, const WeftNetwork *net, const double *bw_gbps,
                      const double *latency_ns, WeftError *err) {
  if (!path || !path[0] || !net || !bw_gbps)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "no %s given",
                          !path || !path[0] ? "output path" : !net ? "network" : "bandwidth");
  if (net->ndims < 1 || net->ndims > WEFT_MAX_DIMS)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "the network must have 1 to %d dims, got %d",
                          WEFT_MAX_DIMS, net->ndims);
  for (int d = 0; d < net->ndims; d++) {
    if (net->topology[d] != WEFT_RING && net->topology[d] != WEFT_FULLY_CONNECTED &&
        net->topology[d] != WEFT_SWITCH)
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "dim %d has an unknown topology (%d)", d + 1,
                            (int)net->topology[d]);
    if (net->npus[d] < 2)
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "dim %d must have more than 1 NPU, got %d",
                            d + 1, net->npus[d]);
    /* 0 is allowed: a dim no collective uses may be left without bandwidth. */
    if (!isfinite(bw_gbps[d]) || bw_gbps[d] < 0.0)
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "bandwidth of dim %d must be finite and >= 0, got %g",
                            d + 1, bw_gbps[d]);
    if (latency_ns && (!isfinite(latency_ns[d]) || latency_ns[d] < 0.0))
      return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "latency of dim %d must be finite and >= 0, got %g",
                            d + 1, latency_ns[d]);
  }
  return WEFT_OK;
}

static void write_list(FILE *f, const char *key, const WeftNetwork *net, const double *v,
                       double dflt, const char *comment) {
  char num[64];
  fprintf(f, "%s: [ ", key);
  for (int d = 0; d < net->ndims; d++) {
    weft_io_format_double(num, sizeof num, v ? v[d] : dflt);
    fprintf(f, "%s%s", d ? ", " : "", num);
  }
  fprintf(f, " ]  # %s\n", comment);
}

/* The whole file; a write error shows at the commit (weft_out_commit). */
static void write_body(FILE *f, const WeftNetwork *net, const double *bw_gbps, const double *latency_ns) {
  double link[WEFT_MAX_DIMS], hop[WEFT_MAX_DIMS];
  int have_lat = 0;
  for (int d = 0; d < net->ndims; d++) { /* weft's GB/s (1e9 B/s) to ASTRA-sim's (2^30 B/s) */
    link[d] = astra_link_gibps(net, d, bw_gbps[d]);
    hop[d] = astra_hop_ns(net, d, net->latency_ns[d]);
    have_lat |= hop[d] > 0.0;
  }
  if (!latency_ns && have_lat) latency_ns = hop;  /* the network's own, per step -> per hop */
  fprintf(f, "# weft: optimised network (per-NPU B_d -> per-link bandwidth); ASTRA-sim's GB/s\n"
             "# is 2^30 bytes/s, weft's 1e9: bandwidth = link bytes/s / 2^30\n");
  fprintf(f, "topology: [ ");
  for (int d = 0; d < net->ndims; d++)
    fprintf(f, "%s%s", d ? ", " : "", weft_topology_name(net->topology[d]));
  fprintf(f, " ]\nnpus_count: [ ");
  for (int d = 0; d < net->ndims; d++) fprintf(f, "%s%d", d ? ", " : "", net->npus[d]);
  fprintf(f, " ]\n");
  write_list(f, "bandwidth", net, link, 0.0, "GB/s per link (ASTRA-sim's: 2^30 bytes/s)");
  write_list(f, "latency", net, latency_ns, WEFT_ASTRA_DEFAULT_LATENCY_NS, "ns per hop");
}

int weft_astra_network_emit(WeftOut *o, const WeftNetwork *net, const double *bw_gbps,
                            const double *latency_ns, WeftError *err) {
  if (!o) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "", "no output given");
  int rc = check_args(weft_out_path(o), net, bw_gbps, latency_ns, err);
  if (!rc) write_body(weft_out_stream(o), net, bw_gbps, latency_ns);
  return rc;
}

int weft_astra_network_write(const char *path, const WeftNetwork *net, const double *bw_gbps,
                             const double *latency_ns, WeftError *err) {
  WeftOut *o;
  int rc = check_args(path, net, bw_gbps, latency_ns, err);  /* before creating anything */
  if (rc || (rc = weft_out_open(path, &o, err))) return rc;
  write_body(weft_out_stream(o), net, bw_gbps, latency_ns);
  return weft_out_commit(o, err);
}
