/* astra_map.c — a job as ASTRA-sim 1.0 lays it out: the workload policy
 * line weft writes (HYBRID_TRANSFORMER model_parallel_NPU_group: M), the
 * logical dims it makes (a dim that M ends inside splits in two, each with
 * its own queue), and each dim as one message sees it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/astra.h"

double astra_whole(double v) { return floor(v + 0.5); }

int astra_links(const WeftNetwork *net, int d) {
  switch (net->topology[d]) {
    case WEFT_RING: return 2;
    case WEFT_FULLY_CONNECTED: return net->npus[d] - 1;
    case WEFT_SWITCH: return 1;
  }
  return 1;
}

double astra_link_gibps(const WeftNetwork *net, int d, double b_gbps) {
  return b_gbps / astra_links(net, d) / WEFT_ASTRA_GBPS_PER_GIBPS + 0.0; /* no "-0.0" */
}

double astra_hop_ns(const WeftNetwork *net, int d, double step_ns) {
  return net->topology[d] == WEFT_SWITCH ? step_ns / 2.0 : step_ns;
}

double astra_step_ns(const WeftNetwork *net, int d, double hop_ns) {
  return net->topology[d] == WEFT_SWITCH ? hop_ns * 2.0 : hop_ns;
}

/* "[4, 4, -1, -1]" for messages. */
static const char *counts(const int *v, int n, char *buf, size_t size) {
  size_t k = (size_t)snprintf(buf, size, "[");
  for (int d = 0; d < n && k < size; d++)
    k += (size_t)snprintf(buf + k, size - k, "%s%d", d ? ", " : "", v[d]);
  if (k < size) snprintf(buf + k, size - k, "]");
  return buf;
}

/* Which phases carry a collective ASTRA-sim would run (a whole byte or
 * more); refuses what it cannot express. */
static int used_phases(const WeftWorkload *wl, int used[WEFT_NPHASES], WeftError *err) {
  memset(used, 0, WEFT_NPHASES * sizeof *used);
  for (int l = 0; l < wl->nlayers; l++)
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      const WeftPhaseSpec *p = &wl->layers[l].phase[ph];
      if (p->coll == WEFT_COLL_NONE || !(astra_whole(p->size_bytes) > 0)) continue;
      if (p->coll == WEFT_COLL_SENDRECV || p->group != 0)
        return weft_error_set(err, WEFT_EINPUT, wl->file, wl->layers[l].line, 0,
                              p->group ? "group" : "collective",
                              "layer %s: ASTRA-sim 1.0 has no %s (its collectives run on "
                              "the model- or data-parallel NPUs only)",
                              wl->layers[l].name,
                              p->group ? "named groups" : "send-recv collective");
      used[ph] = 1;
    }
  return WEFT_OK;
}

/* A group count with -1 (not involved) as 1. */
static int cnt(int g) { return g < 1 ? 1 : g; }

int astra_split(const WeftNetwork *net, const WeftWorkload *wl, const WeftCommunicator *comm,
                int *mp_npus, int *split_dim, WeftError *err) {
  int used[WEFT_NPHASES], D = net->ndims, mp[WEFT_MAX_DIMS], rc;
  char b1[96], b2[96];
  if ((rc = used_phases(wl, used, err))) return rc;
  const int *fwd = comm->group[WEFT_PHASE_FWD], *ig = comm->group[WEFT_PHASE_IG],
            *wg = comm->group[WEFT_PHASE_WG];
  if (used[WEFT_PHASE_FWD] && used[WEFT_PHASE_IG])
    for (int d = 0; d < D; d++)
      if (cnt(fwd[d]) != cnt(ig[d]))
        return weft_error_set(err, WEFT_EINPUT, comm->file, comm->line[WEFT_PHASE_IG], 0,
                              "InputGrad",
                              "ASTRA-sim 1.0 runs forward and input-grad collectives on the "
                              "same model-parallel NPUs: InputGrad %s differs from Forward %s",
                              counts(ig, D, b1, sizeof b1), counts(fwd, D, b2, sizeof b2));
  int have_mp = used[WEFT_PHASE_FWD] || used[WEFT_PHASE_IG];
  const int *g = used[WEFT_PHASE_FWD] ? fwd : ig;
  int b = 0; /* the first dim the model-parallel group does not fill */
  if (have_mp) {
    while (b < D && cnt(g[b]) == net->npus[b]) b++;
    for (int d = 0; d < D; d++)
      mp[d] = d < b ? net->npus[d] : d == b ? cnt(g[d]) : 1;
    int bad = 0;
    for (int d = b + 1; d < D; d++) bad |= cnt(g[d]) != 1;
    if (b < D) bad |= net->npus[b] % mp[b] != 0;
    if (bad)
      return weft_error_set(err, WEFT_EINPUT, comm->file,
                            comm->line[used[WEFT_PHASE_FWD] ? WEFT_PHASE_FWD : WEFT_PHASE_IG], 0,
                            used[WEFT_PHASE_FWD] ? "Forward" : "InputGrad",
                            "ASTRA-sim 1.0 puts the model-parallel group on the innermost NPUs "
                            "(HYBRID_TRANSFORMER model_parallel_NPU_group): %s is not full dims "
                            "then part of one dim",
                            counts(g, D, b1, sizeof b1));
  } else { /* the data-parallel group alone sets the split: the innermost NPUs it leaves */
    while (b < D && cnt(wg[b]) == 1) b++;
    for (int d = 0; d < D; d++)
      mp[d] = d < b ? net->npus[d] : d == b && wg[d] > 0 && net->npus[d] % wg[d] == 0
                                          ? net->npus[d] / wg[d]
                                          : 1;
  }
  double m = 1;
  for (int d = 0; d < D; d++) m *= mp[d];
  if (m > 2147483647.0)
    return weft_error_set(err, WEFT_EINPUT, net->file, 0, 0, "npus_count",
                          "ASTRA-sim 1.0's model_parallel_NPU_group is an int: %.0f NPUs", m);
  if (used[WEFT_PHASE_WG]) {
    int want[WEFT_MAX_DIMS], bad = 0;
    for (int d = 0; d < D; d++) {
      want[d] = net->npus[d] / mp[d];
      bad |= cnt(wg[d]) != want[d];
      if (want[d] == 1) want[d] = -1;
    }
    if (bad)
      return weft_error_set(err, WEFT_EINPUT, comm->file, comm->line[WEFT_PHASE_WG], 0,
                            "WeightGrad",
                            "ASTRA-sim 1.0 runs weight-grad collectives on the NPUs the "
                            "model-parallel group (%.0f NPU%s) leaves: WeightGrad must be %s, "
                            "got %s",
                            m, m == 1 ? "" : "s", counts(want, D, b1, sizeof b1),
                            counts(wg, D, b2, sizeof b2));
  }
  *mp_npus = (int)m;
  *split_dim = b < D && mp[b] > 1 && mp[b] < net->npus[b] ? b : -1;
  return WEFT_OK;
}

static int pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

WeftAlgorithm astra_alg(const WeftNetwork *net, int d, WeftAlgorithm a) {
  if (a != WEFT_ALG_DEFAULT) return a;
  if (net->topology[d] == WEFT_RING || net->fabric[d] != WEFT_SHAPE_TREE)
    return WEFT_ALG_RING;  /* a rail fabric: NCCL's rings per rail */
  if (net->topology[d] == WEFT_FULLY_CONNECTED) return WEFT_ALG_DIRECT;
  return pow2(net->npus[d]) ? WEFT_ALG_HD : WEFT_ALG_RING;
}

int astra_job(const WeftNetwork *net, const WeftWorkload *wl, const WeftCommunicator *comm,
              const double *bw_gbps, const WeftSimSettings *s, AstraJob *out, WeftError *err) {
  memset(out, 0, sizeof *out);
  int rc = astra_split(net, wl, comm, &out->mp_npus, &out->split_dim, err);
  if (rc) return rc;
  /* Parts: model-parallel phases fill dims innermost first up to M; the
   * weight-grad phase takes the rest (the outer part of the split dim). */
  double below = 1;
  for (int d = 0; d < net->ndims; d++) {
    int N = net->npus[d], inner;
    if (below * N <= out->mp_npus) inner = N;
    else if (below >= out->mp_npus) inner = 1;
    else inner = (int)(out->mp_npus / below);
    below *= N;
    int outer = N / inner, split = inner > 1 && outer > 1;
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      AstraPart *p = &out->part[ph][d];
      int n = ph == WEFT_PHASE_WG ? outer : inner;
      if (n < 2) continue;
      p->n = n;
      p->stride = ph == WEFT_PHASE_WG ? inner : 1;
      p->queue = 2 * d + (ph == WEFT_PHASE_WG && split);
    }
    AstraDim *a = &out->dim[d];
    a->topology = net->topology[d];
    a->npus = N;
    /* As ASTRA-sim reads the exported file: GB/s of 2^30 bytes/s per link,
     * times the links one message uses (a Ring's two, one FullyConnected
     * link, one Switch link). */
    double link = astra_link_gibps(net, d, bw_gbps[d]) * 1073741824.0 / 1e9;
    a->send_bytes_per_ns = link * (net->topology[d] == WEFT_RING ? 2.0 : 1.0);
    a->hop_ns = astra_hop_ns(net, d, s->latency_ns[d]);
    out->alg[d] = astra_alg(net, d, s->algorithm[d]);
  }
  out->endpoint_ns = astra_whole(s->endpoint_delay_ns);
  return WEFT_OK;
}
