/* fuzz_zoo_clusters.c — a zoo's clusters.yml (weft_zoo_clusters,
 * weft_zoo_cluster) and the networks built from it: 0 or an error with a
 * reason; both readers agree; every tier read is within the format's
 * ranges; a built network has the GPUs asked for and the tiers' figures. */
#include <string.h>

#include "fuzz.h"

#define MAX_CLUSTERS 16

static void check_network(const WeftCluster *c, int npus) {
  WeftNetwork net;
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_cluster_network(c, npus, &net, &err);
  fuzz_check_result(rc, &err, "weft_cluster_network");
  if (rc) return;
  FUZZ_CHECK(net.ndims >= 1 && net.ndims <= c->ntiers, "dims within the tiers", NULL);
  FUZZ_CHECK(weft_network_npus_total(&net) == (double)npus, "the GPUs asked for", NULL);
  for (int d = 0; d < net.ndims; d++) {
    const WeftClusterTier *t = &c->tier[d];
    FUZZ_CHECK(net.npus[d] >= 2 && (t->npus == 0 || net.npus[d] <= t->npus), "dim size", NULL);
    FUZZ_CHECK(net.topology[d] == t->topology, "tier topology", NULL);
    FUZZ_CHECK(net.efficiency[d] == t->efficiency && net.latency_ns[d] == t->latency_ns &&
                   net.design_gbps[d] == t->bw_gbps,
               "tier figures", NULL);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_write("clusters.yml", data, size);
  const char *zoo = fuzz_dir();
  static WeftCluster cs[MAX_CLUSTERS];
  int count = -1;
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_zoo_clusters(zoo, cs, MAX_CLUSTERS, &count, &err);
  fuzz_check_result(rc, &err, "weft_zoo_clusters");
  if (rc) {
    WeftCluster one;
    WeftError err2;
    weft_error_clear(&err2);
    int rc2 = weft_zoo_cluster(zoo, "dgx-a100", &one, &err2);
    fuzz_check_result(rc2, &err2, "weft_zoo_cluster");
    FUZZ_CHECK(rc2 == rc, "weft_zoo_cluster fails as weft_zoo_clusters", &err2);
    return 0;
  }
  FUZZ_CHECK(count >= 1, "cluster count", NULL);
  int n = count < MAX_CLUSTERS ? count : MAX_CLUSTERS;
  for (int i = 0; i < n; i++) {
    const WeftCluster *c = &cs[i];
    FUZZ_CHECK(memchr(c->name, '\0', sizeof c->name) && c->name[0], "cluster name", NULL);
    FUZZ_CHECK(memchr(c->title, '\0', sizeof c->title), "cluster title", NULL);
    FUZZ_CHECK(c->ntiers >= 1 && c->ntiers <= WEFT_MAX_DIMS, "tier count", NULL);
    for (int t = 0; t < c->ntiers; t++) {
      const WeftClusterTier *r = &c->tier[t];
      FUZZ_CHECK(fuzz_finite(r->bw_gbps) && r->bw_gbps > 0, "bw_gbps", NULL);
      FUZZ_CHECK(r->efficiency > 0 && r->efficiency <= 1, "efficiency", NULL);
      FUZZ_CHECK(fuzz_finite(r->latency_ns) && r->latency_ns >= 0, "latency_ns", NULL);
      FUZZ_CHECK(t == c->ntiers - 1 ? r->npus == 0 : r->npus >= 2, "tier npus", NULL);
    }
    int unit = c->ntiers > 1 && c->tier[0].npus <= 1024 ? c->tier[0].npus : 8;
    check_network(c, 2);
    check_network(c, 3 * unit);
    WeftCluster one;
    weft_error_clear(&err);
    rc = weft_zoo_cluster(zoo, c->name, &one, &err);
    FUZZ_CHECK(rc == 0, "a listed cluster is found by name", &err);
  }
  return 0;
}
