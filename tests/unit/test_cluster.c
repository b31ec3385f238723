/* test_cluster.c — cluster presets (data/zoo/clusters.yml): the documented
 * per-tier figures, the networks built from them, the `Cluster:` key of a
 * network file, bad presets and names, and a collective's time by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "allreduce_fixture.h"
#include "weft.h"

#define ZOO "data/zoo"

/* The efficiencies in clusters.yml are NCCL-tests bus bandwidths over the
 * link rate (docs/zoo.md, "Clusters"), written to 4 decimals. */
#define EFF_TOL 5e-5

/* A scratch directory with one file in it; cleaned by scratch_done. */
static char scratch[64];

static const char *scratch_file(const char *name, const char *text) {
  static char path[WEFT_PATH_LEN];
  if (!scratch[0]) {
    snprintf(scratch, sizeof scratch, "/tmp/weft-cluster-XXXXXX");
    if (!mkdtemp(scratch)) {
      fprintf(stderr, "  cannot create a temporary directory\n");
      exit(2);
    }
  }
  snprintf(path, sizeof path, "%s/%s", scratch, name);
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "  cannot write %s\n", path);
    exit(2);
  }
  fputs(text, f);
  fclose(f);
  return path;
}

static void scratch_done(const char *name) {
  char path[WEFT_PATH_LEN];
  snprintf(path, sizeof path, "%s/%s", scratch, name);
  remove(path);
  rmdir(scratch);
  scratch[0] = '\0';
}

/* DGX A100 and DGX H100 as docs/zoo.md gives them: link rates from the
 * datasheets (600 and 900 GB/s both ways per GPU; 8 HDR 200 Gb/s and 8 NDR
 * 400 Gb/s NICs per 8 GPUs), efficiencies from NVIDIA's NCCL-tests bus
 * bandwidths (232 and 370 GB/s in a node, 192 and 380 GB/s across nodes),
 * latencies from NCCL's ring/Simple model (3.4 us NVLink, 14 us network). */
static void documented_figures(void) {
  struct {
    const char *name, *device;
    double nvlink_bidir, nic_gbit, busbw_node, busbw_multi;
  } want[] = {{"dgx-a100", "a100", 600.0, 200.0, 232.0, 192.0},
              {"dgx-h100", "h100", 900.0, 400.0, 370.0, 380.0}};
  for (int i = 0; i < 2; i++) {
    WeftCluster c;
    WeftError e;
    CHECK_EQ_INT(weft_zoo_cluster(ZOO, want[i].name, &c, &e), WEFT_OK);
    CHECK(strcmp(c.device, want[i].device) == 0);
    CHECK_EQ_INT(c.ntiers, 2);
    double nvlink = want[i].nvlink_bidir / 2.0, nic = want[i].nic_gbit / 8.0;
    CHECK_EQ_INT(c.tier[0].topology, WEFT_SWITCH);
    CHECK_EQ_INT(c.tier[0].npus, 8);
    CHECK(strcmp(c.tier[0].cost, "NVLink") == 0);
    CHECK_NEAR(c.tier[0].bw_gbps, nvlink, 0.0);
    CHECK_NEAR(c.tier[0].efficiency, want[i].busbw_node / nvlink, EFF_TOL);
    CHECK_NEAR(c.tier[0].latency_ns, 3.4e3, 0.0);
    CHECK_EQ_INT(c.tier[1].npus, 0);  /* the rest of the cluster */
    CHECK(strcmp(c.tier[1].cost, "InfiniBand") == 0);
    CHECK_NEAR(c.tier[1].bw_gbps, nic, 0.0);
    /* a multi-node all-reduce's busbw is bounded by the node's 8 NICs */
    CHECK_NEAR(c.tier[1].efficiency, want[i].busbw_multi / (8.0 * nic), EFF_TOL);
    CHECK_NEAR(c.tier[1].latency_ns, 14e3, 0.0);
    /* the network of 1536 GPUs carries those figures per dim */
    WeftNetwork net;
    CHECK_EQ_INT(weft_cluster_network(&c, 1536, &net, &e), WEFT_OK);
    CHECK_EQ_INT(net.ndims, 2);
    CHECK_EQ_INT(net.npus[0], 8);
    CHECK_EQ_INT(net.npus[1], 192);
    for (int d = 0; d < 2; d++) {
      CHECK_EQ_INT(net.topology[d], WEFT_SWITCH);
      CHECK(strcmp(net.cost_dim[d], c.tier[d].cost) == 0);
      CHECK_NEAR(net.efficiency[d], c.tier[d].efficiency, 0.0);
      CHECK_NEAR(net.latency_ns[d], c.tier[d].latency_ns, 0.0);
    }
    CHECK_NEAR(net.design_gbps[0], nvlink, 0.0);
    CHECK_NEAR(net.design_gbps[1], nic, 0.0);
    CHECK(strcmp(net.cluster, want[i].name) == 0);
    CHECK(strcmp(net.cluster_device, want[i].device) == 0);
  }
}

/* Node-sized and partial jobs take one dim; more GPUs take whole nodes. */
static void network_shapes(void) {
  WeftCluster c;
  WeftNetwork net;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_cluster(ZOO, "dgx-h100", &c, &e), WEFT_OK);
  struct { int npus, ndims, n0, n1; } ok[] = {{2, 1, 2, 0}, {4, 1, 4, 0}, {8, 1, 8, 0},
                                               {16, 2, 8, 2}, {8192, 2, 8, 1024}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    CHECK_EQ_INT(weft_cluster_network(&c, ok[i].npus, &net, &e), WEFT_OK);
    CHECK_EQ_INT(net.ndims, ok[i].ndims);
    CHECK_EQ_INT(net.npus[0], ok[i].n0);
    if (ok[i].ndims == 2) CHECK_EQ_INT(net.npus[1], ok[i].n1);
  }
  CHECK_EQ_INT(weft_cluster_network(&c, 12, &net, &e), WEFT_EINPUT);  /* 1.5 nodes */
  CHECK(strstr(e.msg, "not whole units") != NULL);
  CHECK_EQ_INT(weft_cluster_network(&c, 1, &net, &e), WEFT_EINPUT);
}

static void unknown_name_suggests(void) {
  WeftCluster c;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_cluster(ZOO, "dgx-a10", &c, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "unknown cluster 'dgx-a10' (did you mean 'dgx-a100'?") != NULL);
  CHECK(strstr(e.msg, "available: dgx-a100, dgx-h100") != NULL);
  CHECK_EQ_INT(weft_zoo_cluster(ZOO, "tpu-v4", &c, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "did you mean") == NULL);
  int n = 0;
  CHECK_EQ_INT(weft_zoo_clusters(ZOO, NULL, 0, &n, &e), WEFT_OK);
  CHECK(n >= 4);
}

/* A network file naming a cluster: the preset fills what the file omits,
 * the file's own keys win, a dim that contradicts a tier is refused. */
static void network_file_key(void) {
  WeftNetwork net;
  WeftError e;
  const char *p = scratch_file("net.yml",
                               "Cluster: dgx-h100\nNpusCount: [8, 4]\nEfficiency: [0.5, 0.25]\n");
  CHECK_EQ_INT(weft_network_read_zoo(p, ZOO, &net, &e), WEFT_OK);
  CHECK_EQ_INT(net.ndims, 2);
  CHECK_EQ_INT(net.topology[1], WEFT_SWITCH);
  CHECK(strcmp(net.cost_dim[1], "InfiniBand") == 0);
  CHECK_NEAR(net.efficiency[0], 0.5, 0.0);
  CHECK_NEAR(net.efficiency[1], 0.25, 0.0);
  CHECK_NEAR(net.latency_ns[1], 14e3, 0.0);
  CHECK_NEAR(net.design_gbps[0], 450.0, 0.0);
  p = scratch_file("net.yml", "Cluster: dgx-h100\nTopology: [Switch, Ring]\nNpusCount: [8, 4]\n");
  CHECK_EQ_INT(weft_network_read_zoo(p, ZOO, &net, &e), WEFT_EINPUT);
  CHECK_EQ_INT(e.line, 2);
  CHECK(strstr(e.msg, "Topology entry 2 is Ring") != NULL);
  p = scratch_file("net.yml", "Cluster: dgx-h100\nNpusCount: [8, 2, 2]\n");
  CHECK_EQ_INT(weft_network_read_zoo(p, ZOO, &net, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "cluster dgx-h100 has 2 tiers") != NULL);
  p = scratch_file("net.yml", "Cluster: dgx-h10\nNpusCount: [8, 2]\n");
  CHECK_EQ_INT(weft_network_read_zoo(p, ZOO, &net, &e), WEFT_EINPUT);
  CHECK_EQ_INT(e.line, 1);
  CHECK(strstr(e.msg, "did you mean 'dgx-h100'?") != NULL);
  scratch_done("net.yml");
}

/* Presets that break the format's rules, each refused at its line. */
static void bad_presets(void) {
  static const struct {
    const char *text, *msg;
    int line;
  } bad[] = {
      {"x:\n  tiers:\n    - {name: a, topology: Switch, npus: 8, cost: C, bw_gbps: 1, "
       "efficiency: 1, latency_ns: 0}\n",
       "the last tier ('a') joins the rest", 3},
      {"x:\n  tiers:\n    - {name: a, topology: Switch, cost: C, bw_gbps: 1, efficiency: 1, "
       "latency_ns: 0}\n    - {name: b, topology: Switch, cost: C, bw_gbps: 1, efficiency: 1, "
       "latency_ns: 0}\n",
       "missing key 'npus'", 3},
      {"x:\n  tiers:\n    - {name: a, topology: Switch, cost: C, bw_gbps: 1, efficiency: 1.5, "
       "latency_ns: 0}\n",
       "efficiency", 3},
      {"x:\n  tiers:\n    - {name: a, topology: Torus, cost: C, bw_gbps: 1, efficiency: 1, "
       "latency_ns: 0}\n",
       "unknown topology 'Torus'", 3},
      {"x:\n  tiers: []\n", "tiers must have 1 to", 2},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *p = scratch_file("clusters.yml", bad[i].text);
    char dir[WEFT_PATH_LEN];
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(p, '/') - p), p);
    WeftCluster c;
    WeftError e;
    int n;
    CHECK_EQ_INT(weft_zoo_clusters(dir, NULL, 0, &n, &e), WEFT_EINPUT);
    CHECK_EQ_INT(e.line, bad[i].line);
    if (!strstr(e.msg, bad[i].msg)) fprintf(stderr, "  case %zu: %s\n", i, e.msg);
    CHECK(strstr(e.msg, bad[i].msg) != NULL);
    CHECK_EQ_INT(weft_zoo_cluster(dir, "x", &c, &e), WEFT_EINPUT);
    scratch_done("clusters.yml");
  }
}

/* One weight-grad all-reduce of S = 1e9 bytes over all 16 GPUs of a
 * dgx-a100 network ([8, 2]) at the preset's rates, no compute. By hand
 * (docs/model.md): NVLink carries 2 S 7/8 at e1 x 300 GB/s, InfiniBand
 * 2 (S/8) 1/2 at e2 x 25 GB/s, the slower one sets the time; latency is
 * 2 x log2 8 = 6 halving-doubling steps at 3.4 us plus 2 x 1 steps at 14 us. */
static void comm_time_by_hand(void) {
  WeftCluster c;
  WeftError e;
  WeftNetwork net;
  CHECK_EQ_INT(weft_zoo_cluster(ZOO, "dgx-a100", &c, &e), WEFT_OK);
  CHECK_EQ_INT(weft_cluster_network(&c, 16, &net, &e), WEFT_OK);
  double S = 1e9;
  double t = allreduce_time_ns(&net, 8, 2, S, "B1 = 300", "B2 = 25");
  double nvlink = 2.0 * S * 7.0 / 8.0 / (232.0 / 300.0 * 300.0);
  double ib = 2.0 * (S / 8.0) * 0.5 / (0.96 * 25.0);
  double lat = 6 * 3400.0 + 2 * 14000.0;
  CHECK_NEAR(t, lat + (nvlink > ib ? nvlink : ib), EFF_TOL);
}

/* The one rule for a model job's device (weft_job_device): an explicit
 * device wins, else the clusters' GPU, else a100; networks that would run
 * different GPUs are refused, naming both. */
static void job_device_rule(void) {
  WeftCluster a, h;
  WeftNetwork nets[3];
  WeftError e;
  CHECK_EQ_INT(weft_zoo_cluster(ZOO, "dgx-a100", &a, &e), WEFT_OK);
  CHECK_EQ_INT(weft_zoo_cluster(ZOO, "dgx-h100", &h, &e), WEFT_OK);
  CHECK_EQ_INT(weft_cluster_network(&h, 16, &nets[0], &e), WEFT_OK);
  CHECK_EQ_INT(weft_cluster_network(&h, 16, &nets[1], &e), WEFT_OK);
  CHECK_EQ_INT(weft_cluster_network(&a, 16, &nets[2], &e), WEFT_OK);
  const char *d = weft_job_device(nets, 2, NULL, &e);
  CHECK(d && strcmp(d, "h100") == 0);                   /* the cluster's GPU */
  d = weft_job_device(nets, 1, "", &e);
  CHECK(d && strcmp(d, "h100") == 0);                   /* empty: not given */
  d = weft_job_device(nets, 3, "a100", &e);
  CHECK(d && strcmp(d, "a100") == 0);                   /* given wins, even over a clash */
  d = weft_job_device(NULL, 0, NULL, &e);
  CHECK(d && strcmp(d, WEFT_DEVICE_DEFAULT) == 0 && strcmp(d, "a100") == 0);
  CHECK(weft_job_device(nets, 3, NULL, &e) == NULL);    /* h100 and a100 */
  CHECK_EQ_INT(e.code, WEFT_EINPUT);
  CHECK(strstr(e.msg, "h100 (cluster dgx-h100)") != NULL);
  CHECK(strstr(e.msg, "a100 (cluster dgx-a100)") != NULL);
  memset(&nets[2], 0, sizeof nets[2]);                  /* no cluster: the default a100 */
  nets[2].ndims = 1;
  CHECK(weft_job_device(nets, 3, NULL, &e) == NULL);
  CHECK(strstr(e.msg, "a100 (no cluster: the default)") != NULL);
  d = weft_job_device(&nets[2], 1, NULL, &e);
  CHECK(d && strcmp(d, "a100") == 0);
}

const TestCase suite_cluster[] = {
    {"cluster/job_device_rule", job_device_rule},
    {"cluster/documented_figures", documented_figures},
    {"cluster/network_shapes", network_shapes},
    {"cluster/unknown_name_suggests", unknown_name_suggests},
    {"cluster/network_file_key", network_file_key},
    {"cluster/bad_presets", bad_presets},
    {"cluster/comm_time_by_hand", comm_time_by_hand},
    {0, 0},
};
