/* test_active.c — active NPUs of a dim (key Active, weft_network_set_active;
 * docs/model.md "Active NPUs"): groups are laid over the NPUs that work, the
 * workload's NPU count is theirs, the network cost counts every NPU bought.
 * Expected values are worked out by hand in the comments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "weft.h"

/* A network file in a scratch directory: its path (one at a time). */
static char dir[64], path[WEFT_PATH_LEN];

static const char *net_file(const char *text) {
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "/tmp/weft-active-XXXXXX");
    if (!mkdtemp(dir)) {
      fprintf(stderr, "  cannot create a temporary directory\n");
      exit(2);
    }
  }
  snprintf(path, sizeof path, "%s/net.yml", dir);
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "  cannot write %s\n", path);
    exit(2);
  }
  fputs(text, f);
  fclose(f);
  return path;
}

static void net_done(void) {
  if (path[0]) unlink(path);
  if (dir[0]) rmdir(dir);
  dir[0] = path[0] = '\0';
}

/* An NVL72 network of 72 x 224 GPUs with 64 of each rack working. */
static int nvl72(WeftNetwork *net, const char *active, WeftError *e) {
  char text[256];
  snprintf(text, sizeof text, "Cluster: gb200-nvl72\nNpusCount: [72, 224]\n%s", active);
  return weft_network_read_zoo(net_file(text), "data/zoo", net, e);
}

/* EP-64 over a rack: it does not divide the rack's 72 GPUs, so the rack
 * cannot hold it; with 64 of 72 working it spans those 64 of dim 1 and DP
 * takes dim 2 whole (64 x 224 = 14336 = the working NPUs). */
static void map_over_active(void) {
  WeftNetwork net;
  WeftError e;
  int out[2][WEFT_MAX_DIMS];
  const char *names[] = {"EP", "DP"};
  CHECK_EQ_INT(nvl72(&net, "Active: [64, 0]\n", &e), WEFT_OK);
  CHECK_EQ_INT(net.npus[0], 64);
  CHECK_EQ_INT(net.spares[0], 8);
  CHECK_EQ_INT(net.npus[1], 224);
  CHECK_EQ_INT(net.spares[1], 0);
  CHECK_NEAR(weft_network_npus_total(&net), 64.0 * 224.0, 0.0);
  CHECK_NEAR(weft_network_npus_bought(&net), 72.0 * 224.0, 0.0);
  int sizes[] = {64, 224};
  CHECK_EQ_INT(weft_map_groups(&net, sizes, names, 2, out, &e), WEFT_OK);
  CHECK_EQ_INT(out[0][0], 64);
  CHECK_EQ_INT(out[0][1], -1);
  CHECK_EQ_INT(out[1][0], -1);
  CHECK_EQ_INT(out[1][1], 224);
  /* every NPU working: 64 does not divide 72, nor 72 64 */
  CHECK_EQ_INT(nvl72(&net, "", &e), WEFT_OK);
  int whole[] = {64, 252};  /* 72 x 224 / 64 */
  CHECK_EQ_INT(weft_map_groups(&net, whole, names, 2, out, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "64 does not divide dim 1's 72 NPUs") != NULL);
  net_done();
}

/* Cost: LIBRA's N x $/GB/s per dim, N every NPU bought. NVLink's class in
 * data/validation/cost.yml is Link 4 + Switch 13 + Nic 1 = 18 $/GB/s on a
 * Switch dim, InfiniBand's 7.8 + 18 + 31.6 = 57.4: with 72 x 224 = 16128
 * bought, 18 x 16128 = 290304 and 57.4 x 16128 = 925747.2, the same as a
 * network of 72 x 224 all working; 64 x 224 without spares is 64/72 of it. */
static void cost_counts_spares(void) {
  WeftNetwork net;
  WeftCostModel cm;
  WeftError e;
  double with[2], all[2], fewer[2];
  CHECK_EQ_INT(weft_cost_model_read("data/validation/cost.yml", &cm, &e), WEFT_OK);
  CHECK_EQ_INT(nvl72(&net, "Active: [64, 0]\n", &e), WEFT_OK);
  CHECK_EQ_INT(weft_cost_per_gbps(&net, &cm, with, &e), WEFT_OK);
  CHECK_NEAR(with[0], 18.0 * 16128.0, 1e-6);
  CHECK_NEAR(with[1], 57.4 * 16128.0, 1e-6);
  CHECK_EQ_INT(nvl72(&net, "", &e), WEFT_OK);
  CHECK_EQ_INT(weft_cost_per_gbps(&net, &cm, all, &e), WEFT_OK);
  CHECK_NEAR(all[0], with[0], 0.0);
  CHECK_NEAR(all[1], with[1], 0.0);
  CHECK_EQ_INT(weft_network_read_zoo(net_file("Cluster: gb200-nvl72\nNpusCount: [64, 224]\n"),
                                     "data/zoo", &net, &e),
               WEFT_OK);
  CHECK_EQ_INT(weft_cost_per_gbps(&net, &cm, fewer, &e), WEFT_OK);
  CHECK_NEAR(fewer[0], with[0] * 64.0 / 72.0, 1e-6);
  net_done();
}

/* The rule every entry point shares: 0 is all of the dim, a count from 2 to
 * the dim's NPUs; a new list replaces the old one (from the bought count);
 * a bad list leaves the network as it was. */
static void set_active_rule(void) {
  WeftNetwork net;
  WeftError e;
  CHECK_EQ_INT(nvl72(&net, "", &e), WEFT_OK);
  double a[] = {64, 0}, again[] = {0, 200}, bad[][2] = {{73, 0}, {1, 0}, {63.5, 0}, {-1, 0}};
  CHECK_EQ_INT(weft_network_set_active(&net, a, 2, "", NULL, "--active", &e), WEFT_OK);
  CHECK_EQ_INT(net.npus[0], 64);
  CHECK_EQ_INT(weft_network_set_active(&net, again, 2, "", NULL, "--active", &e), WEFT_OK);
  CHECK_EQ_INT(net.npus[0], 72);
  CHECK_EQ_INT(net.spares[0], 0);
  CHECK_EQ_INT(net.npus[1], 200);
  CHECK_EQ_INT(net.spares[1], 24);
  for (int i = 0; i < 4; i++) {
    CHECK_EQ_INT(weft_network_set_active(&net, bad[i], 2, "", NULL, "--active", &e),
                 WEFT_EINPUT);
    CHECK(strstr(e.msg, "--active entry 1 must be a whole number of NPUs from 2 to the dim's 72")
          != NULL);
    CHECK_EQ_INT(net.npus[0], 72);
    CHECK_EQ_INT(net.npus[1], 200);
  }
  CHECK_EQ_INT(weft_network_set_active(&net, a, 1, "", NULL, "--active", &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "--active has 1 entry, the network has 2 dims") != NULL);
  /* in a file: the entry's line */
  CHECK_EQ_INT(nvl72(&net, "Active:\n  - 64\n  - 300\n", &e), WEFT_EINPUT);
  CHECK_EQ_INT(e.line, 5);
  CHECK(strstr(e.msg, "Active entry 2 must be a whole number of NPUs from 2 to the dim's 224")
        != NULL);
  net_done();
}

/* The job's NPUs are the working ones: with dp left to fill, tp 16 on 72 x 2
 * with 64 of 72 working gives dp = 64 x 2 / 16 = 8; tp 48 divides 72 x 2 =
 * 144 but not 128, so it is refused naming 128 NPUs. */
static void dp_fills_active(void) {
  WeftScenario *sc = weft_scenario_create();
  WeftError e;
  WeftParallel par;
  CHECK(sc != NULL);
  if (!sc) return;
  CHECK_EQ_INT(weft_network_read_zoo(net_file("Cluster: gb200-nvl72\nNpusCount: [72, 2]\n"
                                              "Active: [64, 0]\n"),
                                     "data/zoo", &sc->net, &e),
               WEFT_OK);
  weft_parallel_default(&par);
  par.dp = 0;
  par.tp = 48;
  CHECK_EQ_INT(weft_scenario_add_model_job(sc, "data/zoo", "llama2-70b", NULL, &par, &e),
               WEFT_EINPUT);
  CHECK(strstr(e.msg, "tp x pp = 48 does not divide the network's 128 NPUs") != NULL);
  par.tp = 16;
  CHECK_EQ_INT(weft_scenario_add_model_job(sc, "data/zoo", "llama2-70b", NULL, &par, &e),
               WEFT_OK);
  CHECK_EQ_INT(sc->njobs, 1);
  /* TP spans 16 of dim 1's 64 (the forward phase's group); DP, the weight
     gradients' group, the 64 / 16 = 4 left of dim 1, then dim 2's 2 */
  if (sc->njobs == 1) {
    const WeftCommunicator *c = &sc->comm[0];
    CHECK_EQ_INT(c->group[WEFT_PHASE_FWD][0], 16);
    CHECK_EQ_INT(c->group[WEFT_PHASE_FWD][1], -1);
    CHECK_EQ_INT(c->group[WEFT_PHASE_WG][0], 4);
    CHECK_EQ_INT(c->group[WEFT_PHASE_WG][1], 2);
  }
  weft_scenario_free(sc);
  net_done();
}

/* codesign's variants (weft_network_actives): per dim that is not a power
 * of two, the largest multiple of each power of two that does not divide it,
 * when at most a quarter idles:
 * 9 -> 8 (1 of 9 idle), 18 -> 16 (2 of 18); 12 -> 8 idles 4 of 12 > 1/4,
 * none; 16 is a power of two, none. Variants in the order of the dims' bits,
 * dim 1 fastest: [9,18,12,16], [8/9,..], [9,16/18,..], [8/9,16/18,..]. A dim
 * the network already uses in part (Active given) keeps its count. */
static void codesign_variants(void) {
  WeftNetwork in[2], *out = NULL;
  size_t n = 0;
  WeftError e;
  memset(in, 0, sizeof in);
  in[0].ndims = 4;
  const int shape[] = {9, 18, 12, 16};
  for (int d = 0; d < 4; d++) {
    in[0].npus[d] = shape[d];
    in[0].topology[d] = WEFT_SWITCH;
  }
  in[1] = in[0];
  in[1].npus[0] = 7;  /* Active 7 of 9: no candidate on dim 1 */
  in[1].spares[0] = 2;
  CHECK_EQ_INT(weft_network_actives(in, 2, &out, &n, &e), WEFT_OK);
  CHECK(n == 6);
  if (n == 6) {
    static const int want[6][4] = {{9, 18, 12, 16}, {8, 18, 12, 16}, {9, 16, 12, 16},
                                   {8, 16, 12, 16}, {7, 18, 12, 16}, {7, 16, 12, 16}};
    static const int spare[6][2] = {{0, 0}, {1, 0}, {0, 2}, {1, 2}, {2, 0}, {2, 2}};
    for (int k = 0; k < 6; k++) {
      for (int d = 0; d < 4; d++) CHECK_EQ_INT(out[k].npus[d], want[k][d]);
      CHECK_EQ_INT(out[k].spares[0], spare[k][0]);
      CHECK_EQ_INT(out[k].spares[1], spare[k][1]);
      CHECK_EQ_INT(out[k].spares[2], 0);
      CHECK_NEAR(weft_network_npus_bought(&out[k]), 9.0 * 18 * 12 * 16, 0.0);
    }
  }
  free(out);
  /* 72 = 8 x 9 -> 64 (the multiple of 16, 32 and 64 below it; 8 idle of
   * 72); 224 = 32 x 7 -> 192 (3 x 64: 32 idle of 224; 128 would idle 96);
   * 120 = 8 x 15 -> 112 (7 x 16) and 96 (3 x 32; 64 would idle 56 > 30).
   * Variants: dim 1 fastest, all first: [72,224], [64,224], [72,192], [64,192] */
  in[0].ndims = 2;
  in[0].npus[0] = 72;
  in[0].npus[1] = 224;
  CHECK_EQ_INT(weft_network_actives(in, 1, &out, &n, &e), WEFT_OK);
  CHECK(n == 4);
  if (n == 4) {
    static const int want[4][2] = {{72, 224}, {64, 224}, {72, 192}, {64, 192}};
    for (int k = 0; k < 4; k++)
      for (int d = 0; d < 2; d++) {
        CHECK_EQ_INT(out[k].npus[d], want[k][d]);
        CHECK_EQ_INT(out[k].spares[d], (d ? 224 : 72) - want[k][d]);
      }
  }
  free(out);
  in[0].npus[1] = 120;
  CHECK_EQ_INT(weft_network_actives(in, 1, &out, &n, &e), WEFT_OK);
  CHECK(n == 6);  /* dim 1: 72 or 64; dim 2: 120, 112 or 96 */
  if (n == 6) {
    static const int want[6][2] = {{72, 120}, {64, 120}, {72, 112},
                                   {64, 112}, {72, 96},  {64, 96}};
    for (int k = 0; k < 6; k++)
      for (int d = 0; d < 2; d++) CHECK_EQ_INT(out[k].npus[d], want[k][d]);
  }
  free(out);
  /* brute force: every candidate a of n in 2..600 is a multiple of some
   * 2^k not dividing n, the largest such below n, with 4a >= 3n */
  for (int nn = 2; nn <= 600; nn++) {
    in[0].ndims = 1;
    in[0].npus[0] = nn;
    CHECK_EQ_INT(weft_network_actives(in, 1, &out, &n, &e), WEFT_OK);
    int want = 0;
    for (int a = nn - 1; a >= 2; a--) {
      int ok = 0;
      for (int p = 2; p <= nn; p *= 2) ok |= nn % p != 0 && a % p == 0 && a + p > nn;
      want += ok && 4 * a >= 3 * nn;
    }
    CHECK_EQ_INT((int)n, want + 1);
    for (size_t k = 1; k < n; k++) CHECK(out[k].npus[0] < out[k - 1].npus[0] || k == 1);
    free(out);
  }
  CHECK_EQ_INT(weft_network_actives(NULL, 1, &out, &n, &e), WEFT_EINVAL);
}

/* Groups spanning part of a 72-way dim (docs/search.md, "Active NPUs"): on
 * 256 NVL72 racks ([72, 256], every GPU working), TP 8 takes 8 of a rack
 * and leaves 9 (72 / 8); DP 2304 = 18432 / 8 takes those 9, then 256 / 9 is
 * not whole, so it takes all 256 racks: 9 x 256 = 2304. The DP all-reduce
 * of S bytes then puts 2 S 8/9 per GPU on NVLink and 2 (S/9) 255/256 on
 * InfiniBand; 9 is no power of two, so NVLink runs a ring, 2 x 8 steps, and
 * 256 halving-doubling, 2 log2 256 = 16. PP 16 innermost after TP 8 does not
 * factor (16 neither divides 9 nor is a multiple of it): refused, naming it. */
static void part_of_a_dim(void) {
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = 2;
  net.npus[0] = 72, net.npus[1] = 256;
  net.topology[0] = net.topology[1] = WEFT_SWITCH;
  int sizes[2] = {8, 2304}, out[3][WEFT_MAX_DIMS];
  const char *names[2] = {"tp", "dp"};
  WeftError e;
  CHECK_EQ_INT(weft_map_groups(&net, sizes, names, 2, out, &e), WEFT_OK);
  CHECK_EQ_INT(out[0][0], 8);
  CHECK_EQ_INT(out[0][1], -1);
  CHECK_EQ_INT(out[1][0], 9);
  CHECK_EQ_INT(out[1][1], 256);
  double S = 1e9, m[2];
  int g[2] = {9, 256}, steps[2];
  weft_collective_traffic(WEFT_COLL_ALLREDUCE, S, g, 2, m);
  CHECK_NEAR(m[0], 2 * S * 8 / 9, 1e-12);
  CHECK_NEAR(m[1], 2 * (S / 9) * 255 / 256, 1e-12);
  CHECK_EQ_INT(weft_collective_steps(WEFT_COLL_ALLREDUCE, g, &net, steps), 2 * 8 + 16);
  CHECK_EQ_INT(steps[0], 2 * 8);
  CHECK_EQ_INT(steps[1], 16);
  int bad[3] = {8, 16, 144};
  const char *bn[3] = {"tp", "pp", "dp"};
  CHECK_EQ_INT(weft_map_groups(&net, bad, bn, 3, out, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "pp-16") != NULL);
  /* with 64 of each 72 working ([64, 256] + 8 spares a rack) it factors:
   * TP 8, PP 8 fill the 64, DP 256 the racks */
  net.npus[0] = 64, net.spares[0] = 8;
  int ok[3] = {8, 8, 256};
  CHECK_EQ_INT(weft_map_groups(&net, ok, bn, 3, out, &e), WEFT_OK);
  CHECK_EQ_INT(out[1][0], 8);
  CHECK_EQ_INT(out[2][1], 256);
}

const TestCase suite_active[] = {
    {"active/codesign_variants", codesign_variants},
    {"active/part_of_a_dim", part_of_a_dim},
    {"active/map_over_active", map_over_active},
    {"active/cost_counts_spares", cost_counts_spares},
    {"active/set_active_rule", set_active_rule},
    {"active/dp_fills_active", dp_fills_active},
    {0, 0},
};
