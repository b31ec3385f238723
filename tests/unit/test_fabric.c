/* test_fabric.c — fabric shapes of a dim (docs/model.md "Fabric shapes"):
 * rail-optimized and rail-only switch counts, a torus's OCS, the steps and
 * bytes of their collectives, the Fabric rule and the cluster presets'
 * shapes. Every figure by hand. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "sim_fixture.h"
#include "weft.h"

static char dir_[64];

static const char *scratch(const char *name, const char *text) {
  static char path[WEFT_PATH_LEN];
  if (!dir_[0]) {
    snprintf(dir_, sizeof dir_, "/tmp/weft-fabric-XXXXXX");
    if (!mkdtemp(dir_)) exit(2);
  }
  snprintf(path, sizeof path, "%s/%s", dir_, name);
  FILE *f = fopen(path, "wb");
  if (!f) exit(2);
  fputs(text, f);
  fclose(f);
  return path;
}

static void cleanup(void) {
  const char *names[] = {"cat.yml", "net.yml"};
  char path[WEFT_PATH_LEN];
  for (size_t i = 0; dir_[0] && i < sizeof names / sizeof names[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir_, names[i]);
    remove(path);
  }
  if (dir_[0]) rmdir(dir_);
  dir_[0] = '\0';
}

/* Round numbers: a 50 GB/s NIC at $2000 and 20 W on a 64-port switch at
 * $32000 and 640 W, optics at $500 and 10 W; a 100 GB/s torus link at $300
 * and 3 W, a cable at $200 and 0 W in the cube, an optic at $1000 and 10 W
 * out of it, a 136-port OCS at $68000 and 136 W ($500 and 1 W a port). */
static const char CAT[] =
    "n:\n"
    "  kind: nic\n  rate_gbps: 50\n  price_usd: 2000\n  power_w: 20\n"
    "  switch: s\n  attach: o\n  uplink: o\n  source: test\n"
    "s:\n  kind: switch\n  rate_gbps: 50\n  ports: 64\n  price_usd: 32000\n  power_w: 640\n"
    "  source: test\n"
    "o:\n  kind: optic\n  rate_gbps: 50\n  price_usd: 500\n  power_w: 10\n  source: test\n"
    "ici:\n"
    "  kind: link\n  rate_gbps: 100\n  price_usd: 300\n  power_w: 3\n"
    "  switch: x\n  attach: cu\n  uplink: op\n  source: test\n"
    "cu:\n  kind: cable\n  rate_gbps: 100\n  price_usd: 200\n  power_w: 0\n  source: test\n"
    "op:\n  kind: optic\n  rate_gbps: 100\n  price_usd: 1000\n  power_w: 10\n  source: test\n"
    "x:\n  kind: ocs\n  ports: 136\n  price_usd: 68000\n  power_w: 136\n  source: test\n";

static WeftParts *catalog(void) {
  WeftError e;
  WeftParts *cat = NULL;
  int rc = weft_parts_read(scratch("cat.yml", CAT), NULL, &cat, &e);
  CHECK_EQ_INT(rc, WEFT_OK);
  if (rc) fprintf(stderr, "  %s:%d: %s\n", e.file, e.line, e.msg);
  return cat;
}

static int read_net(const char *text, WeftNetwork *net, WeftError *e) {
  int rc = weft_network_read(scratch("net.yml", text), net, e);
  if (rc) fprintf(stderr, "  %s:%d: %s: %s\n", e->file, e->line, e->field, e->msg);
  return rc;
}

static void test_rail_tree_counts(void) {
  int ts[WEFT_MAX_TIERS], ft[WEFT_MAX_TIERS];
  /* 8 rails of 1024 NPUs, radix 64, non-blocking (32 down, 32 up): each rail
   * 1024 / 32 = 32 leaves, 256 in all; 256 > 64 leaves for 2 tiers, <= 64 x
   * 32 for 3: middle 256 x 32 / 32 = 256, top 256 x 32 / 64 = 128: 640, as
   * the Fat-tree of all 8192 NPUs. Rail-only: each rail its own Fat-tree of
   * 1024 (32 leaves, 16 spines), 8 x 48 = 384 switches: 40% fewer. */
  CHECK_EQ_INT(weft_rail_tree(1024, 8, 64, 1.0, ts), 3);
  CHECK_EQ_INT(ts[0], 256);
  CHECK_EQ_INT(ts[1], 256);
  CHECK_EQ_INT(ts[2], 128);
  CHECK_EQ_INT(weft_fat_tree(8192, 64, 1.0, ft), 3);
  CHECK(ft[0] == 256 && ft[1] == 256 && ft[2] == 128);
  CHECK_EQ_INT(weft_fat_tree(1024, 64, 1.0, ft), 2);
  CHECK(ft[0] == 32 && ft[1] == 16);
  /* 8 rails of 32: a leaf a rail, 8 leaves under ceil(8 x 32 / 64) = 4 spines */
  CHECK_EQ_INT(weft_rail_tree(32, 8, 64, 1.0, ts), 2);
  CHECK(ts[0] == 8 && ts[1] == 4 && ts[2] == 0);
  /* 8 rails of 40: 2 leaves a rail (the rail does not share a leaf), 16
   * leaves, 8 spines; a plain Fat-tree of 320 would take 10 leaves */
  CHECK_EQ_INT(weft_rail_tree(40, 8, 64, 1.0, ts), 2);
  CHECK(ts[0] == 16 && ts[1] == 8);
  /* 72 rails of 16 (GB200 NVL72 racks on 64-port switches, 32 down): a
   * rail fills half a leaf, so 2 rails share one: 36 leaves (not 72 half
   * empty, which would need a third tier), ceil(36 x 32 / 64) = 18 spines:
   * 54, as the Fat-tree of all 1152. 3 rails of 10: floor(32/10) = 3 a leaf
   * but 30 <= 64 ports: one switch. 5 rails of 20: 1 a leaf, 5 leaves. */
  CHECK_EQ_INT(weft_rail_tree(16, 72, 64, 1.0, ts), 2);
  CHECK(ts[0] == 36 && ts[1] == 18 && ts[2] == 0);
  CHECK_EQ_INT(weft_fat_tree(1152, 64, 1.0, ft), 2);
  CHECK(ft[0] == 36 && ft[1] == 18);
  CHECK_EQ_INT(weft_rail_tree(10, 3, 64, 1.0, ts), 1);
  CHECK_EQ_INT(weft_rail_tree(20, 5, 64, 1.0, ts), 2);
  CHECK(ts[0] == 5 && ts[1] == 3);
  /* 8 rails of 4: 32 ports, one switch */
  CHECK_EQ_INT(weft_rail_tree(4, 8, 64, 1.0, ts), 1);
  CHECK_EQ_INT(ts[0], 1);
  CHECK_EQ_INT(weft_rail_tree(4, 0, 64, 1.0, ts), 0);  /* no rails */
}

/* 32 nodes of 8 NPUs: the scale-out dim's 8 rails of 32. */
static void test_rail_cost_by_hand(void) {
  WeftParts *cat = catalog();
  WeftError e;
  WeftNetwork net;
  if (!cat) return;
  static const char *shapes[2] = {"rail-optimized", "rail-only"};
  /* per NPU and link: rail-optimized 2 tiers: 3 switch ports (30 $/GB/s),
   * 2 attach and 2 uplink optics (40), the NIC 40: 110; W (20 + 3 x 10 +
   * 4 x 10) / 50 = 1.8. Rail-only: one switch a rail: 1 port (10), 2 optics
   * (20), the NIC 40: 70, 36% less; W (20 + 10 + 20) / 50 = 1.0. */
  const double usd[2] = {110.0, 70.0}, w[2] = {1.8, 1.0};
  const int tiers[2] = {2, 1};
  for (int k = 0; k < 2; k++) {
    char text[256];
    snprintf(text, sizeof text,
             "Topology: [Switch, Switch]\nNpusCount: [8, 32]\nCostDimension: [nv, ib]\n"
             "Parts: [\"\", n]\nFabric: [-, %s]\n", shapes[k]);
    if (read_net(text, &net, &e)) continue;
    CHECK_EQ_INT(net.fabric[1], k == 0 ? WEFT_SHAPE_RAIL_OPTIMIZED : WEFT_SHAPE_RAIL_ONLY);
    CHECK_EQ_INT(net.fabric_line[1], 5);
    WeftCostModel cm;
    memset(&cm, 0, sizeof cm);
    WeftDimParts dims[WEFT_MAX_DIMS];
    CHECK_EQ_INT(weft_network_bind_parts(&net, &cm, cat, dims, &e), WEFT_OK);
    CHECK_EQ_INT(dims[1].tiers, tiers[k]);
    CHECK_NEAR(dims[1].usd_per_gbps, usd[k], 1e-12);
    CHECK_NEAR(dims[1].w_per_gbps, w[k], 1e-12);
    WeftPartsBom b;
    weft_parts_bom(&net, &dims[1], 1, 50.0, 1.0, &b);
    if (k == 0) {  /* one tree: 8 leaves (a rail each), 4 spines */
      CHECK(b.tier_switches[0] == 8.0 && b.tier_switches[1] == 4.0 && b.switches == 12.0);
    } else {  /* 8 rails, a switch each */
      CHECK(b.tier_switches[0] == 8.0 && b.switches == 8.0);
    }
    CHECK_NEAR(b.cost_usd, 256.0 * 50.0 * usd[k], 1e-6);
  }
  /* at 2 links per NPU: a plane each; rail-optimized 2 x (8 + 4) = 24 */
  if (!read_net("Topology: [Switch, Switch]\nNpusCount: [8, 32]\nCostDimension: [nv, ib]\n"
                "Parts: [\"\", n]\nFabric: [-, rail-optimized]\n", &net, &e)) {
    WeftCostModel cm;
    memset(&cm, 0, sizeof cm);
    WeftDimParts dims[WEFT_MAX_DIMS];
    CHECK_EQ_INT(weft_network_bind_parts(&net, &cm, cat, dims, &e), WEFT_OK);
    WeftPartsBom b;
    weft_parts_bom(&net, &dims[1], 1, 100.0, 2.0, &b);
    CHECK_NEAR(b.switches, 24.0, 0.0);
  }
  weft_parts_free(cat);
  cleanup();
}

/* TPU v4's 4096 chips as a 16 x 16 x 16 torus of 4x4x4 cubes. */
static void test_torus_cost_by_hand(void) {
  WeftParts *cat = catalog();
  WeftError e;
  WeftNetwork net;
  if (!cat) return;
  if (read_net("Topology: [Ring, Ring, Ring]\nNpusCount: [16, 16, 16]\n"
               "Parts: [ici, ici, ici]\nFabric: [torus, torus, torus]\n", &net, &e)) {
    weft_parts_free(cat);
    return;
  }
  WeftCostModel cm;
  memset(&cm, 0, sizeof cm);
  WeftDimParts dims[WEFT_MAX_DIMS];
  CHECK_EQ_INT(weft_network_bind_parts(&net, &cm, cat, dims, &e), WEFT_OK);
  /* per NPU and link: the port 300; 3 of 4 link ends in the cube, half a
   * cable each: 3/4 x 100 = 75; 1 of 4 out: an optic 1000 / 4 = 250 and an
   * OCS port 500 / 4 = 125: 750 / 100 GB/s = 7.5 $/GB/s. W: 3 + 10/4 +
   * 1/4 = 5.75 / 100. */
  CHECK_NEAR(dims[0].usd_per_gbps, 7.5, 1e-12);
  CHECK_NEAR(dims[0].w_per_gbps, 0.0575, 1e-12);
  CHECK_NEAR(dims[0].ocs_ports, 0.25, 0.0);
  CHECK_NEAR(dims[0].optics, 0.25, 0.0);
  CHECK_NEAR(dims[0].cables, 0.375, 0.0);
  /* B_d = 200 GB/s (a link each way): 4096 x 2 / 4 = 2048 OCS ports a dim,
   * ceil(2048 / 136) = 16 OCS, 48 for the three dims: Jouppi et al. (ISCA
   * 2023) join TPU v4's 64 cubes with 48 OCS. */
  double ocs = 0.0;
  for (int d = 0; d < 3; d++) {
    WeftPartsBom b;
    weft_parts_bom(&net, &dims[d], d, 200.0, 2.0, &b);
    CHECK_NEAR(b.switch_ports, 2048.0, 0.0);
    CHECK_NEAR(b.switches, 16.0, 0.0);
    ocs += b.switches;
  }
  CHECK_NEAR(ocs, 48.0, 0.0);
  /* a plain Ring of the same link: the port and half a cable per end:
   * (300 + 100) / 100 = 4 $/GB/s, no OCS */
  WeftDimParts plain;
  CHECK_EQ_INT(weft_parts_dim(cat, "ici", WEFT_RING, 16, &plain, &e), WEFT_OK);
  CHECK_NEAR(plain.usd_per_gbps, 4.0, 1e-12);
  CHECK_NEAR(plain.ocs_ports, 0.0, 0.0);
  /* a torus of a NIC whose switch is a packet switch: refused */
  CHECK_EQ_INT(weft_parts_dim_fabric(cat, "n", WEFT_RING, WEFT_SHAPE_TORUS, 16, 1, &plain, &e),
               WEFT_EINPUT);
  CHECK(strstr(e.msg, "ocs") != NULL);
  /* an OCS as a Switch dim's switch: refused */
  CHECK_EQ_INT(weft_parts_dim(cat, "ici", WEFT_SWITCH, 16, &plain, &e), WEFT_EINPUT);
  weft_parts_free(cat);
  cleanup();
}

/* A torus dim of n: rings both ways, each carrying half of S. Reduce-scatter
 * then all-gather, n - 1 steps each, every step S/(2n) a direction: per NPU
 * 2 (n-1) steps x 2 directions x S/(2n) = 2 (n-1) S / n, LIBRA's Ring bytes.
 * A rail dim runs NCCL's ring: 2 (n-1) steps where a Fat-tree of 16 runs
 * halving-doubling in 2 log2 16 = 8. */
static void test_steps_and_bytes_by_hand(void) {
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = 2;
  net.topology[0] = WEFT_RING;
  net.topology[1] = WEFT_SWITCH;
  net.npus[0] = net.npus[1] = 16;
  net.fabric[0] = WEFT_SHAPE_TORUS;
  int group[2] = {16, 1}, steps[2];
  const double s = 1 << 20;
  double bytes[2];
  int n = 16;
  CHECK_EQ_INT(weft_collective_steps(WEFT_COLL_ALLREDUCE, group, &net, steps), 2 * (n - 1));
  weft_collective_traffic(WEFT_COLL_ALLREDUCE, s, group, 2, bytes);
  CHECK_NEAR(bytes[0], 2.0 * (n - 1) * 2.0 * s / (2.0 * n), 1e-6);
  CHECK_NEAR(bytes[0], 1966080.0, 0.0);  /* 2 x 15 / 16 x 2^20 */
  CHECK_EQ_INT(weft_collective_steps(WEFT_COLL_REDUCESCATTER, group, &net, steps), n - 1);
  int g2[2] = {1, 16};
  CHECK_EQ_INT(weft_collective_steps(WEFT_COLL_ALLREDUCE, g2, &net, steps), 8);
  net.fabric[1] = WEFT_SHAPE_RAIL_OPTIMIZED;
  CHECK_EQ_INT(weft_collective_steps(WEFT_COLL_ALLREDUCE, g2, &net, steps), 30);
  net.fabric[1] = WEFT_SHAPE_RAIL_ONLY;
  CHECK_EQ_INT(weft_collective_steps(WEFT_COLL_ALLTOALL, g2, &net, steps), 15);
  net.latency_ns[1] = 1000.0;  /* latency: per step */
  CHECK_NEAR(weft_collective_latency_ns(WEFT_COLL_ALLREDUCE, g2, &net), 30000.0, 0.0);
}

static void test_fabric_rule(void) {
  WeftNetwork net;
  WeftError e;
  memset(&net, 0, sizeof net);
  net.ndims = 3;
  net.topology[0] = WEFT_SWITCH;
  net.topology[1] = WEFT_RING;
  net.topology[2] = WEFT_SWITCH;
  net.npus[0] = 8;
  net.npus[1] = 6;
  net.npus[2] = 4;
  const char *rail0[3] = {"rail-only", "-", "-"};
  CHECK_EQ_INT(weft_network_set_fabric(&net, rail0, 3, "f.yml", NULL, "Fabric", &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "Fabric entry 1") != NULL && strcmp(e.file, "f.yml") == 0);
  const char *ring_rail[3] = {"-", "rail-optimized", "-"};
  CHECK_EQ_INT(weft_network_set_fabric(&net, ring_rail, 3, "", NULL, "--fabric", &e), WEFT_EINPUT);
  const char *torus6[3] = {"-", "torus", "-"};
  CHECK_EQ_INT(weft_network_set_fabric(&net, torus6, 3, "", NULL, "--fabric", &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "6 NPUs") != NULL);
  const char *torus_sw[3] = {"-", "-", "torus"};
  CHECK_EQ_INT(weft_network_set_fabric(&net, torus_sw, 3, "", NULL, "--fabric", &e), WEFT_EINPUT);
  const char *bad[3] = {"-", "-", "dragonfly"};
  CHECK_EQ_INT(weft_network_set_fabric(&net, bad, 3, "", NULL, "--fabric", &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "dragonfly") != NULL);
  CHECK_EQ_INT(weft_network_set_fabric(&net, bad, 2, "", NULL, "--fabric", &e), WEFT_EINPUT);
  for (int d = 0; d < 3; d++) CHECK_EQ_INT(net.fabric[d], 0);  /* unchanged on failure */
  net.spares[1] = 2;  /* 6 working + 2 spares: a ring of 8 bought, two cubes */
  const char *ok[3] = {"", "Torus", "RAIL-ONLY"};
  CHECK_EQ_INT(weft_network_set_fabric(&net, ok, 3, "", NULL, "--fabric", &e), WEFT_OK);
  CHECK(net.fabric[0] == WEFT_SHAPE_TREE && net.fabric[1] == WEFT_SHAPE_TORUS &&
        net.fabric[2] == WEFT_SHAPE_RAIL_ONLY);
  CHECK_NEAR(weft_network_rails(&net, 2), 64.0, 0.0);  /* 8 x (6 + 2) */
  CHECK(strcmp(weft_dim_shape_name(WEFT_SHAPE_RAIL_OPTIMIZED), "rail-optimized") == 0);
}

/* The presets: DGX B200's InfiniBand is rail-optimized (NVIDIA's SuperPOD
 * reference architecture), the TPU pods' ICI rings are torus dims. */
static void test_cluster_shapes(void) {
  WeftCluster c;
  WeftNetwork net;
  WeftError e;
  CHECK_EQ_INT(weft_zoo_cluster("data/zoo", "dgx-b200", &c, &e), WEFT_OK);
  CHECK_EQ_INT(weft_cluster_network(&c, 1024, &net, &e), WEFT_OK);
  CHECK(net.ndims == 2 && net.fabric[0] == WEFT_SHAPE_TREE &&
        net.fabric[1] == WEFT_SHAPE_RAIL_OPTIMIZED);
  CHECK_EQ_INT(weft_cluster_network(&c, 8, &net, &e), WEFT_OK);  /* one node: no rails */
  CHECK(net.ndims == 1 && net.fabric[0] == WEFT_SHAPE_TREE);
  CHECK_EQ_INT(weft_zoo_cluster("data/zoo", "tpu-v5p-pod", &c, &e), WEFT_OK);
  CHECK_EQ_INT(weft_cluster_network(&c, 64, &net, &e), WEFT_OK);
  CHECK(net.ndims == 3 && net.fabric[0] == WEFT_SHAPE_TORUS && net.fabric[2] == WEFT_SHAPE_TORUS);
  CHECK_EQ_INT(weft_cluster_network(&c, 2, &net, &e), WEFT_OK);  /* 2 chips: a plain ring */
  CHECK(net.ndims == 1 && net.fabric[0] == WEFT_SHAPE_TREE);
}

/* Two planes: the NIC's 50 GB/s as two 25 GB/s ports on two trees; the
 * 64-port 50 GB/s switch broken out to 128 ports of 25. 8 rails of 1024,
 * rail-optimized: one plane's tree has 8 x 1024/64 = 128 leaves (<= 128: 2
 * tiers) and 128 x 64 / 128 = 64 spines, 192 a plane, 384 for two, where
 * one plane of radix 64 takes 3 tiers and 640. Per link: 2 x 3 plane ports
 * at 32000/128 = 250 (30 $/GB/s), 4 optics (40), the NIC (40): 110, where
 * one plane pays 5 ports (50) and 6 optics (60): 150. */
static void test_planes_by_hand(void) {
  WeftParts *cat = catalog();
  WeftError e;
  WeftNetwork net;
  if (!cat) return;
  const double usd[2] = {150.0, 110.0}, sw[2] = {640.0, 384.0};
  for (int k = 0; k < 2; k++) {
    char text[256];
    snprintf(text, sizeof text,
             "Topology: [Switch, Switch]\nNpusCount: [8, 1024]\nCostDimension: [nv, ib]\n"
             "Parts: [\"\", n]\nFabric: [-, rail-optimized]\nPlanes: [0, %d]\n", k + 1);
    if (read_net(text, &net, &e)) continue;
    CHECK_EQ_INT(net.planes[1], k + 1);
    WeftCostModel cm;
    memset(&cm, 0, sizeof cm);
    WeftDimParts dims[WEFT_MAX_DIMS];
    CHECK_EQ_INT(weft_network_bind_parts(&net, &cm, cat, dims, &e), WEFT_OK);
    CHECK_EQ_INT(dims[1].radix, 64 * (k + 1));
    CHECK_EQ_INT(dims[1].tiers, 3 - k);
    CHECK_NEAR(dims[1].usd_per_gbps, usd[k], 1e-9);
    WeftPartsBom b;
    weft_parts_bom(&net, &dims[1], 1, 50.0, 1.0, &b);
    CHECK_NEAR(b.switches, sw[k], 0.0);
  }
  /* the rule: whole planes, 1..64, more than one only on a Switch dim */
  memset(&net, 0, sizeof net);
  net.ndims = 2;
  net.topology[0] = WEFT_RING;
  net.topology[1] = WEFT_SWITCH;
  net.npus[0] = net.npus[1] = 8;
  const double ring2[2] = {2, 0}, half[2] = {0, 1.5}, many[2] = {0, 65}, ok[2] = {1, 4};
  CHECK_EQ_INT(weft_network_set_planes(&net, ring2, 2, "", NULL, "--planes", &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "Ring") != NULL);
  CHECK_EQ_INT(weft_network_set_planes(&net, half, 2, "", NULL, "--planes", &e), WEFT_EINPUT);
  CHECK_EQ_INT(weft_network_set_planes(&net, many, 2, "", NULL, "--planes", &e), WEFT_EINPUT);
  CHECK_EQ_INT(weft_network_set_planes(&net, ok, 1, "", NULL, "--planes", &e), WEFT_EINPUT);
  CHECK(net.planes[0] == 0 && net.planes[1] == 0);  /* unchanged on failure */
  CHECK_EQ_INT(weft_network_set_planes(&net, ok, 2, "", NULL, "--planes", &e), WEFT_OK);
  CHECK(net.planes[0] == 1 && net.planes[1] == 4);
  /* 3 planes: each switch port broken out into 3 plane ports, radix 192 */
  WeftDimParts d;
  CHECK_EQ_INT(weft_parts_dim_planes(cat, "n", WEFT_SWITCH, WEFT_SHAPE_TREE, 64, 1, 3, &d, &e),
               WEFT_OK);
  CHECK_EQ_INT(d.radix, 192);
  weft_parts_free(cat);
  cleanup();
}

/* The simulator runs a rail dim's ring: all-reduce over the 8 members of
 * the outer dim of [2, 8] Switch dims (S = 8e6, B = 100, L = 500 a step):
 * 2 x 7 steps of S/8 = 1e6 bytes, half each way, 14 (1e4 + 500) = 147000
 * ns, the analytic model's 14 x 500 + 2 S 7/8 / 100; the fat-tree's
 * halving-doubling: 2 x 3 steps moving 7S/8 each way, 140000 + 3000. */
static void test_sim_rail_ring_by_hand(void) {
  Sim s;
  WeftSimResult r;
  int n[2] = {2, 8};
  WeftTopology t[2] = {WEFT_SWITCH, WEFT_SWITCH};
  double bw[2] = {100, 100};
  sim_init(&s, 2, n, t, bw);
  for (int p = 0; p < WEFT_NPHASES; p++) s.comm.group[p][0] = 1;
  sim_one(&s, WEFT_COLL_ALLREDUCE, 8e6);
  s.set.latency_ns[1] = s.net.latency_ns[1] = 500;
  CHECK_NEAR(sim_run(&s, &r), 143000.0, 1e-9);  /* fat-tree: halving-doubling */
  s.net.fabric[1] = WEFT_SHAPE_RAIL_OPTIMIZED;
  CHECK_NEAR(sim_run(&s, &r), 147000.0, 1e-9);
  CHECK_NEAR(analytic(&s), 147000.0, 1e-9);
  s.net.fabric[1] = WEFT_SHAPE_RAIL_ONLY;
  CHECK_NEAR(sim_run(&s, &r), 147000.0, 1e-9);
  sim_free(&s);
}

const TestCase suite_fabric[] = {
    {"fabric_sim_rail_ring_by_hand", test_sim_rail_ring_by_hand},
    {"fabric_planes_by_hand", test_planes_by_hand},
    {"fabric_rail_tree_counts", test_rail_tree_counts},
    {"fabric_rail_cost_by_hand", test_rail_cost_by_hand},
    {"fabric_torus_cost_by_hand", test_torus_cost_by_hand},
    {"fabric_steps_and_bytes_by_hand", test_steps_and_bytes_by_hand},
    {"fabric_rule", test_fabric_rule},
    {"fabric_cluster_shapes", test_cluster_shapes},
    {0},
};
