/* test_parts.c — the parts catalog: Fat-tree switch counts, a dim's $ and W
 * per GB/s from its parts, binding a network, bad input (file:line:field),
 * and TopoOpt's prices from the built-in catalog. Every figure by hand. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "weft.h"

static char dir_[64];

/* A scratch file in one temporary directory (removed by cleanup()). */
static const char *scratch(const char *name, const char *text) {
  static char path[WEFT_PATH_LEN];
  if (!dir_[0]) {
    snprintf(dir_, sizeof dir_, "/tmp/weft-parts-XXXXXX");
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
  const char *names[] = {"cat.yml", "user.yml", "bad.yml", "net.yml"};
  char path[WEFT_PATH_LEN];
  for (size_t i = 0; dir_[0] && i < sizeof names / sizeof names[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir_, names[i]);
    remove(path);
  }
  if (dir_[0]) rmdir(dir_);
  dir_[0] = '\0';
}

/* A catalog with round numbers: a 50 GB/s NIC at $2000 and 20 W, a 64-port
 * 50 GB/s switch at $32000 and 640 W, a 50 GB/s optic at $500 and 10 W, a
 * cable at $100 and 0 W, a 100 GB/s switch to break out. */
static const char CAT[] =
    "n:\n"
    "  kind: nic\n  rate_gbps: 50\n  price_usd: 2000\n  power_w: 20\n"
    "  switch: s\n  attach: o\n  uplink: o\n  source: test\n"
    "nc:\n"
    "  kind: nic\n  rate_gbps: 50\n  price_usd: 2000\n  power_w: 20\n  max_per_npu: 8\n"
    "  switch: s\n  attach: c\n  uplink: c\n  source: test\n"
    "nb:\n"
    "  kind: nic\n  rate_gbps: 50\n  price_usd: 2000\n  power_w: 20\n"
    "  switch: s2\n  uplink: o\n  oversubscription: 3\n  source: test\n"
    "s:\n  kind: switch\n  rate_gbps: 50\n  ports: 64\n  price_usd: 32000\n  power_w: 640\n"
    "  source: test\n"
    "s2:\n  kind: switch\n  rate_gbps: 100\n  ports: 64\n  price_usd: 64000\n  power_w: 1280\n"
    "  source: test\n"
    "o:\n  kind: optic\n  rate_gbps: 50\n  price_usd: 500\n  power_w: 10\n  source: test\n"
    "c:\n  kind: cable\n  rate_gbps: 50\n  price_usd: 100\n  power_w: 0\n  source: test\n";

static WeftParts *catalog(const char *user) {
  WeftError e;
  WeftParts *cat = NULL;
  int rc = weft_parts_read(scratch("cat.yml", CAT), user, &cat, &e);
  CHECK_EQ_INT(rc, WEFT_OK);
  if (rc) fprintf(stderr, "  %s:%d: %s\n", e.file, e.line, e.msg);
  return cat;
}

static void test_fat_tree_counts(void) {
  int ts[WEFT_MAX_TIERS];
  /* radix 64, non-blocking: 32 down per leaf; 2048 = 2 x 32^2 fills 2 tiers:
   * 2048/32 = 64 leaves, 64 x 32 uplinks over 64-port spines = 32 */
  CHECK_EQ_INT(weft_fat_tree(2048, 64, 1.0, ts), 2);
  CHECK_EQ_INT(ts[0], 64);
  CHECK_EQ_INT(ts[1], 32);
  CHECK_EQ_INT(weft_fat_tree(32, 64, 1.0, ts), 1);  /* one switch */
  CHECK_EQ_INT(ts[0], 1);
  CHECK_EQ_INT(weft_fat_tree(64, 64, 1.0, ts), 1);  /* N = k still one */
  /* 65: 3 leaves (32+32+1), 96 uplinks: 2 spines */
  CHECK_EQ_INT(weft_fat_tree(65, 64, 1.0, ts), 2);
  CHECK_EQ_INT(ts[0], 3);
  CHECK_EQ_INT(ts[1], 2);
  /* 3 tiers: 4096 > 2048; 128 leaves, 128 x 32 uplinks into aggregation
   * switches of 32 down = 128, their 4096 uplinks over 64-port cores = 64;
   * 320 = 4096 x (2x3-1) / 64 ports, every port used */
  CHECK_EQ_INT(weft_fat_tree(4096, 64, 1.0, ts), 3);
  CHECK_EQ_INT(ts[0], 128);
  CHECK_EQ_INT(ts[1], 128);
  CHECK_EQ_INT(ts[2], 64);
  /* the full 3-tier: 2 x 32^3 = 65536 on 2048 + 2048 + 1024; one more is 4 tiers */
  CHECK_EQ_INT(weft_fat_tree(65536, 64, 1.0, ts), 3);
  CHECK_EQ_INT(ts[0] + ts[1] + ts[2], 5120);
  CHECK_EQ_INT(weft_fat_tree(65537, 64, 1.0, ts), 4);
  /* oversubscription 3: leaves of 48 down, 16 up; 3072 = 48 x 64 in 2 tiers:
   * 64 leaves, 1024 uplinks over 64-port spines = 16 */
  CHECK_EQ_INT(weft_fat_tree(3072, 64, 3.0, ts), 2);
  CHECK_EQ_INT(ts[0], 64);
  CHECK_EQ_INT(ts[1], 16);
  CHECK_EQ_INT(weft_fat_tree(3073, 64, 3.0, ts), 3);
  CHECK_EQ_INT(weft_fat_tree(10, 1, 1.0, ts), 0);    /* no radix */
  CHECK_EQ_INT(weft_fat_tree(10, 64, 0.5, ts), 0);   /* oversubscription < 1 */
}

static void test_dim_cost_by_hand(void) {
  WeftParts *cat = catalog(NULL);
  WeftDimParts d;
  WeftError e;
  if (!cat) return;
  /* Switch, 2048 NPUs: 2 tiers; per link 3 switch ports, 2 attach optics and
   * 2 uplink optics. $: NIC 2000/50 = 40, switch 3 x 32000/64 / 50 = 30,
   * optics 4 x 500 / 50 = 40: 110. W: (20 + 3 x 640/64 + 4 x 10) / 50 = 1.8 */
  CHECK_EQ_INT(weft_parts_dim(cat, "n", WEFT_SWITCH, 2048, &d, &e), WEFT_OK);
  CHECK_EQ_INT(d.tiers, 2);
  CHECK_EQ_INT(d.radix, 64);
  CHECK_NEAR(d.switch_ports, 3.0, 1e-12);
  CHECK_NEAR(d.optics, 4.0, 1e-12);
  CHECK_NEAR(d.nic_usd_per_gbps, 40.0, 1e-12);
  CHECK_NEAR(d.switch_usd_per_gbps, 30.0, 1e-12);
  CHECK_NEAR(d.link_usd_per_gbps, 40.0, 1e-12);
  CHECK_NEAR(d.usd_per_gbps, 110.0, 1e-12);
  CHECK_NEAR(d.w_per_gbps, 1.8, 1e-12);
  /* Switch, 32 NPUs: one switch, 1 port and 2 optics: 40 + 10 + 20 = 70 */
  CHECK_EQ_INT(weft_parts_dim(cat, "n", WEFT_SWITCH, 32, &d, &e), WEFT_OK);
  CHECK_EQ_INT(d.tiers, 1);
  CHECK_NEAR(d.usd_per_gbps, 70.0, 1e-12);
  /* Ring of 8: a link's two ends, one optic each: (2000 + 500) / 50 = 50 */
  CHECK_EQ_INT(weft_parts_dim(cat, "n", WEFT_RING, 8, &d, &e), WEFT_OK);
  CHECK_NEAR(d.link_usd_per_gbps, 50.0, 1e-12);
  CHECK_NEAR(d.usd_per_gbps, 50.0, 1e-12);
  CHECK_NEAR(d.w_per_gbps, 0.6, 1e-12);
  /* copper: half a cable per NPU on a ring (2000 + 50) / 50 = 41; on a
   * 2-tier Switch one cable to the leaf and one per uplink: 2 cables */
  CHECK_EQ_INT(weft_parts_dim(cat, "nc", WEFT_FULLY_CONNECTED, 4, &d, &e), WEFT_OK);
  CHECK_NEAR(d.usd_per_gbps, 41.0, 1e-12);
  CHECK_NEAR(d.cables, 0.5, 1e-12);
  CHECK_EQ_INT(d.max_links, 8);
  CHECK_EQ_INT(weft_parts_dim(cat, "nc", WEFT_SWITCH, 2048, &d, &e), WEFT_OK);
  CHECK_NEAR(d.cables, 2.0, 1e-12);
  CHECK_NEAR(d.link_usd_per_gbps, 200.0 / 50.0, 1e-12);
  /* breakout: 100 GB/s ports into two 50 GB/s links: radix 128, $500 a
   * link port; oversubscription 3 at the leaf: 96 down, 32 up (o = 3);
   * 8192 NPUs = 96 x 128 > 8192? 96 x 128 = 12288 >= 8192: 2 tiers.
   * Per link 1/3 switch-switch link: 1 + 2/3 ports, 2/3 uplink optics, no
   * attach: $ 40 + (5/3) x 500 / 50 + (2/3) x 500 / 50 = 40 + 50/3 + 20/3 */
  CHECK_EQ_INT(weft_parts_dim(cat, "nb", WEFT_SWITCH, 8192, &d, &e), WEFT_OK);
  CHECK_EQ_INT(d.radix, 128);
  CHECK_EQ_INT(d.tiers, 2);
  CHECK_NEAR(d.oversub, 3.0, 1e-12);
  CHECK_NEAR(d.switch_ports, 5.0 / 3.0, 1e-12);
  CHECK_NEAR(d.optics, 2.0 / 3.0, 1e-12);
  CHECK_NEAR(d.usd_per_gbps, 190.0 / 3.0, 1e-12);
  CHECK_EQ_INT(d.tier_switches[0], 86);  /* ceil(8192 / 96) */
  CHECK_EQ_INT(d.tier_switches[1], 22);  /* ceil(86 x 32 / 128) */
  /* a switch is not a dim's part */
  CHECK_EQ_INT(weft_parts_dim(cat, "s", WEFT_SWITCH, 8, &d, &e), WEFT_EINPUT);
  CHECK(strcmp(e.field, "kind") == 0);
  weft_parts_free(cat);
  cleanup();
}

static void test_user_file_overrides(void) {
  char user[WEFT_PATH_LEN];
  snprintf(user, sizeof user, "%s", scratch("user.yml",
                             "o:\n  kind: optic\n  rate_gbps: 50\n  price_usd: 1000\n"
                             "  power_w: 10\n  source: mine\n  estimate: [price_usd]\n"
                             "new:\n  kind: fiber\n  price_usd: 7\n  source: mine\n"));
  WeftParts *cat = catalog(user);
  WeftDimParts d;
  WeftError e;
  if (!cat) return;
  CHECK_EQ_INT(weft_parts_count(cat), 8);  /* 7 built-in, o replaced, new added */
  const WeftPart *o = weft_parts_find(cat, "o");
  CHECK(o && o->user == 1 && o->estimate == WEFT_PART_EST_PRICE);
  CHECK(weft_parts_find(cat, "new") != NULL);
  /* the ring of 8 again with $1000 optics: (2000 + 1000) / 50 = 60 */
  CHECK_EQ_INT(weft_parts_dim(cat, "n", WEFT_RING, 8, &d, &e), WEFT_OK);
  CHECK_NEAR(d.usd_per_gbps, 60.0, 1e-12);
  weft_parts_free(cat);
  cleanup();
}

/* A bad entry: rc, line and field as expected. */
static void bad(const char *text, int line, const char *field) {
  WeftError e;
  WeftParts *cat = NULL;
  const char *path = scratch("bad.yml", text);
  int rc = weft_parts_read(path, NULL, &cat, &e);
  CHECK_EQ_INT(rc, WEFT_EINPUT);
  CHECK(cat == NULL);
  CHECK(strcmp(e.file, path) == 0);
  CHECK_EQ_INT(e.line, line);
  if (strcmp(e.field, field) != 0) {
    fprintf(stderr, "  field '%s', expected '%s' (%s)\n", e.field, field, e.msg);
    test_failures_++;
  }
}

static void test_bad_entries(void) {
  bad("a:\n  kind: optic\n  rate_gbps: 50\n  price_usd: 0\n  source: x\n", 4, "price_usd");
  bad("a:\n  kind: optic\n  rate_gbps: -1\n  price_usd: 5\n  source: x\n", 3, "rate_gbps");
  bad("a:\n  kind: optic\n  rate_gbps: 0\n  price_usd: 5\n  source: x\n", 3, "rate_gbps");
  bad("a:\n  kind: optic\n  rate_gbps: 5\n  price_usd: 5\n  power_w: -2\n  source: x\n", 5,
      "power_w");
  bad("a:\n  kind: optic\n  rate_gbps: 5\n  price_usd: 5\n  prize: 3\n  source: x\n", 5,
      "prize");
  bad("a:\n  kind: router\n  price_usd: 5\n  source: x\n", 2, "kind");
  bad("a:\n  kind: switch\n  rate_gbps: 5\n  price_usd: 5\n  source: x\n", 1, "ports");
  bad("a:\n  kind: optic\n  rate_gbps: 5\n  price_usd: 5\n", 1, "source");
  bad("a:\n  kind: nic\n  rate_gbps: 5\n  price_usd: 5\n  switch: nope\n  source: x\n", 1,
      "switch");
  bad("a:\n  kind: nic\n  rate_gbps: 5\n  price_usd: 5\n  oversubscription: 0.5\n"
      "  source: x\n", 5, "oversubscription");
  bad("a:\n  kind: optic\n  rate_gbps: 5\n  price_usd: 5\n  ports: 4\n  source: x\n", 5,
      "ports");
  cleanup();
}

static void test_bind_network(void) {
  WeftParts *cat = catalog(NULL);
  WeftError e;
  WeftNetwork net;
  if (!cat) return;
  const char *path = scratch("net.yml",
                             "Topology: [Ring, Switch]\n"
                             "NpusCount: [8, 256]\n"
                             "CostDimension: [a, b]\n"
                             "Parts: [nc, n]\n"
                             "MaxLinks: [4, 0]\n");
  int rc = weft_network_read(path, &net, &e);
  CHECK_EQ_INT(rc, WEFT_OK);
  if (rc) fprintf(stderr, "  %s:%d: %s: %s\n", e.file, e.line, e.field, e.msg);
  CHECK(strcmp(net.part[0], "nc") == 0 && net.part_line[1] == 4);
  WeftCostModel cm;
  memset(&cm, 0, sizeof cm);
  WeftDimParts dims[WEFT_MAX_DIMS];
  CHECK_EQ_INT(weft_network_bind_parts(&net, &cm, cat, dims, &e), WEFT_OK);
  CHECK_NEAR(net.link_gbps[0], 50.0, 0.0);
  CHECK_EQ_INT(net.max_links[0], 4);  /* the file's 4 is tighter than the part's 8 */
  CHECK_EQ_INT(net.max_links[1], 0);
  CHECK_EQ_INT(cm.nclasses, 2);
  /* per NPU: ring 41 $/GB/s; Switch of 256 (2 tiers of radix 64): 110 as
   * for 2048; weft_cost_per_gbps multiplies by the 2048 NPUs */
  double usd[WEFT_MAX_DIMS];
  CHECK_EQ_INT(weft_cost_per_gbps(&net, &cm, usd, &e), WEFT_OK);
  CHECK_NEAR(usd[0], 2048.0 * 41.0, 1e-12);
  CHECK_NEAR(usd[1], 2048.0 * 110.0, 1e-12);
  CHECK_NEAR(dims[1].usd_per_gbps, 110.0, 1e-12);
  /* and the parts' power, so cost-per-iteration pays it: ring, the NIC's 20 W
   * and half a 0 W cable per 50 GB/s, 0.4; the Switch 1.8 (as for 2048) */
  double w[WEFT_MAX_DIMS];
  CHECK_EQ_INT(weft_power_per_gbps(&net, &cm, w, &e), WEFT_OK);
  CHECK_NEAR(w[0], 2048.0 * 0.4, 1e-12);
  CHECK_NEAR(w[1], 2048.0 * 1.8, 1e-12);
  CHECK_EQ_INT(weft_cost_model_has_system(&cm), 0);  /* no system figure was given */
  /* binding again replaces the classes, it does not add to them */
  CHECK_EQ_INT(weft_network_bind_parts(&net, &cm, cat, NULL, &e), WEFT_OK);
  CHECK_EQ_INT(cm.nclasses, 2);
  /* an unknown part: the network's file, the entry's line, field Parts */
  snprintf(net.part[1], sizeof net.part[1], "nope");
  WeftNetwork before = net;
  CHECK_EQ_INT(weft_network_bind_parts(&net, &cm, cat, NULL, &e), WEFT_EINPUT);
  CHECK(strcmp(e.file, path) == 0 && e.line == 4 && strcmp(e.field, "Parts") == 0);
  CHECK(memcmp(&before, &net, sizeof net) == 0);  /* unchanged on failure */
  /* Parts and LinkGBps on one dim: refused at the Parts entry */
  path = scratch("net.yml",
                 "Topology: [Ring]\nNpusCount: [8]\nCostDimension: [a]\n"
                 "LinkGBps: [25]\nParts: [n]\n");
  CHECK_EQ_INT(weft_network_read(path, &net, &e), WEFT_EINPUT);
  CHECK(e.line == 5 && strcmp(e.field, "Parts") == 0);
  /* a list of parts on a dim is a choice, kept as "n|nc"; a bind checks
   * every name and binds the first; a choice of one part is refused */
  path = scratch("net.yml", "Topology: [Ring]\nNpusCount: [8]\nParts: [[n, nc]]\n");
  CHECK_EQ_INT(weft_network_read(path, &net, &e), WEFT_OK);
  CHECK(strcmp(net.part[0], "n|nc") == 0);
  CHECK_EQ_INT(weft_parts_choices(&net), 2);
  memset(&cm, 0, sizeof cm);
  CHECK_EQ_INT(weft_network_bind_parts(&net, &cm, cat, dims, &e), WEFT_OK);
  CHECK(strcmp(dims[0].part, "n") == 0 && strcmp(net.part[0], "n|nc") == 0);
  snprintf(net.part[0], sizeof net.part[0], "n|nope");
  CHECK_EQ_INT(weft_network_bind_parts(&net, &cm, cat, dims, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "'nope'") != NULL);
  path = scratch("net.yml", "Topology: [Ring]\nNpusCount: [8]\nParts: [[n]]\n");
  CHECK_EQ_INT(weft_network_read(path, &net, &e), WEFT_EINPUT);
  CHECK(e.line == 3 && strcmp(e.field, "Parts") == 0);
  weft_parts_free(cat);
  cleanup();
}

/* The built-in catalog reads clean and gives TopoOpt's documented
 * defaults exactly (one catalog for both halves of weft). */
/* A co-design's networks (weft_codesign_parts): a choice expanded, dim 1
 * fastest; one class per part and dim shared where its figures agree (a
 * ring's $ per GB/s does not depend on its size: 41 for 64 or 8 NPUs), and
 * renamed where they do not (a Switch of 32 is one switch, 70; of 256, two
 * tiers, 110: docs/parts.md's hand checks). */
static void test_codesign_networks(void) {
  WeftError e;
  WeftNetwork in[3];
  char user[WEFT_PATH_LEN];  /* scratch's buffer is reused */
  snprintf(user, sizeof user, "%s", scratch("user.yml", CAT));
  CHECK_EQ_INT(weft_network_read(scratch("net.yml", "Topology: [Ring, Switch]\n"
                                                    "NpusCount: [64, 32]\n"
                                                    "Parts: [nc, [n, nb]]\n"), &in[0], &e), WEFT_OK);
  CHECK_EQ_INT(weft_network_read(scratch("net.yml", "Topology: [Ring, Switch]\n"
                                                    "NpusCount: [8, 256]\n"
                                                    "Parts: [nc, n]\n"), &in[1], &e), WEFT_OK);
  CHECK_EQ_INT(weft_network_read(scratch("net.yml", "Topology: [Ring, Switch]\n"
                                                    "NpusCount: [8, 256]\n"
                                                    "CostDimension: [a, b]\n"), &in[2], &e), WEFT_OK);
  WeftCostModel cm;
  memset(&cm, 0, sizeof cm);
  WeftNetwork *out = NULL;
  WeftDimParts(*dims)[WEFT_MAX_DIMS] = NULL;
  int n = 0;
  int rc = weft_codesign_parts(in, 3, NULL, user, &cm, &out, &n, &dims, &e);
  CHECK_EQ_INT(rc, WEFT_OK);
  if (rc) {
    fprintf(stderr, "  %s:%d: %s\n", e.file, e.line, e.msg);
    return;
  }
  CHECK_EQ_INT(n, 4);
  CHECK(!strcmp(out[0].part[1], "n") && !strcmp(out[1].part[1], "nb"));
  CHECK(!strcmp(out[3].cost_dim[0], "a") && !out[3].part[0][0]);  /* no parts: as it was */
  CHECK_EQ_INT(cm.nclasses, 4);  /* nc@d1 shared; n@d2, nb@d2, n@d2#3 */
  CHECK(!strcmp(out[0].cost_dim[0], out[2].cost_dim[0]));
  CHECK(!strcmp(out[0].cost_dim[1], "part:n@d2") && !strcmp(out[2].cost_dim[1], "part:n@d2#3"));
  double usd[WEFT_MAX_DIMS], w[WEFT_MAX_DIMS];
  CHECK_EQ_INT(weft_cost_per_gbps(&out[0], &cm, usd, &e), WEFT_OK);
  CHECK_NEAR(usd[0], 2048.0 * 41.0, 1e-9);
  CHECK_NEAR(usd[1], 2048.0 * 70.0, 1e-9);
  CHECK_EQ_INT(weft_cost_per_gbps(&out[2], &cm, usd, &e), WEFT_OK);
  CHECK_NEAR(usd[1], 2048.0 * 110.0, 1e-9);
  CHECK_EQ_INT(weft_power_per_gbps(&out[2], &cm, w, &e), WEFT_OK);
  CHECK_NEAR(w[1], 2048.0 * 1.8, 1e-9);
  CHECK_EQ_INT(dims[2][1].tiers, 2);
  CHECK_EQ_INT(dims[0][1].tiers, 1);
  CHECK(!dims[3][0].part[0]);
  free(out);
  free(dims);
  cleanup();
}

/* Shapes a search enumerates (weft_codesign_parts_fit): a combination its
 * parts cannot build is left out, not fatal. The built-in nvlink4 is a
 * single tier of 64-port NVSwitches with no uplink (data/parts/parts.yml),
 * so a Switch dim of 128 NVLink GPUs cannot be built and one of 64 can: of
 * [64, 16], [128, 8], [8, 128] with [ndr|xdr] on dim 2, 2 x 3 = 6
 * combinations, the 2 of [128, 8] left out, 4 kept in order. A part name the
 * catalog lacks stays bad input; none buildable is the first reason. */
static void test_codesign_networks_fit(void) {
  static const char *const shapes[3] = {"[64, 16]", "[128, 8]", "[8, 128]"};
  WeftNetwork in[3];
  WeftError e, why;
  for (int k = 0; k < 3; k++) {
    char text[160];
    snprintf(text, sizeof text, "Topology: [Switch, Switch]\nNpusCount: %s\n"
             "Parts: [nvlink4, [ndr, xdr]]\n", shapes[k]);
    CHECK_EQ_INT(weft_network_read(scratch("net.yml", text), &in[k], &e), WEFT_OK);
  }
  WeftCostModel cm, cm0;
  memset(&cm, 0, sizeof cm);
  cm0 = cm;
  WeftNetwork *out = NULL;
  WeftDimParts(*dims)[WEFT_MAX_DIMS] = NULL;
  int n = -1, dropped = -1;
  CHECK_EQ_INT(weft_codesign_parts(in, 3, NULL, NULL, &cm, &out, &n, &dims, &e), WEFT_EINPUT);
  CHECK(out == NULL && dims == NULL && n == 0 && cm.nclasses == 0);  /* all or nothing */
  int rc = weft_codesign_parts_fit(in, 3, NULL, NULL, &cm, &out, &n, &dims, &dropped, &why, &e);
  CHECK_EQ_INT(rc, WEFT_OK);
  if (rc) {
    fprintf(stderr, "  %s:%d: %s\n", e.file, e.line, e.msg);
    return;
  }
  CHECK_EQ_INT(n, 4);
  CHECK_EQ_INT(dropped, 2);
  CHECK(strstr(why.msg, "Switch dim of 128 NPUs") != NULL);
  static const int dim1[4] = {64, 64, 8, 8};
  static const char *const nic[4] = {"ndr", "xdr", "ndr", "xdr"};
  for (int k = 0; k < 4 && k < n; k++) {
    CHECK_EQ_INT(out[k].npus[0], dim1[k]);
    CHECK(!strcmp(out[k].part[0], "nvlink4") && !strcmp(out[k].part[1], nic[k]));
    CHECK(dims[k][0].part[0] && dims[k][1].part[0]);
  }
  free(out);
  free(dims);
  /* a name the catalog lacks: bad input, whatever the shape */
  CHECK_EQ_INT(weft_network_read(scratch("net.yml", "Topology: [Switch, Switch]\n"
                                                    "NpusCount: [8, 128]\n"
                                                    "Parts: [nvlink4, nope]\n"), &in[0], &e),
               WEFT_OK);
  cm = cm0;
  CHECK_EQ_INT(weft_codesign_parts_fit(in, 1, NULL, NULL, &cm, &out, &n, &dims, &dropped, &why,
                                       &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "'nope'") != NULL && out == NULL && dropped == 0);
  /* none buildable: the first reason, nothing allocated, cm as it came */
  CHECK_EQ_INT(weft_codesign_parts_fit(&in[1], 1, NULL, NULL, &cm, &out, &n, &dims, &dropped,
                                       &why, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "Switch dim of 128 NPUs") != NULL);
  CHECK(out == NULL && dims == NULL && n == 0 && dropped == 0 && cm.nclasses == 0);
  cleanup();
}

static void test_builtin_catalog(void) {
  WeftParts *cat = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_parts_read("data/parts", NULL, &cat, &e), WEFT_OK);
  if (!cat) {
    fprintf(stderr, "  %s:%d: %s\n", e.file, e.line, e.msg);
    return;
  }
  WeftPrices def, got;
  weft_topo_prices_default(&def);
  memset(&got, 0, sizeof got);
  CHECK_EQ_INT(weft_topo_prices_parts(cat, &got, &e), WEFT_OK);
  for (int k = 0; k < WEFT_NPRICES; k++)
    CHECK_NEAR(*weft_price_field(&got, (WeftPriceKey)k), *weft_price_field(&def, (WeftPriceKey)k),
               0.0);
  /* H100: 18 NVLink 4 links of 25 GB/s = 450 GB/s, the cluster preset's B_d */
  const WeftPart *nv = weft_parts_find(cat, "nvlink4");
  CHECK(nv && nv->max_per_npu == 18 && nv->rate_gbps * nv->max_per_npu == 450.0);
  /* every figure has a source */
  for (int i = 0; i < weft_parts_count(cat); i++) CHECK(weft_parts_at(cat, i)->source[0]);
  /* each link or nic prices a dim of each topology at 2048 NPUs */
  for (int i = 0; i < weft_parts_count(cat); i++) {
    const WeftPart *p = weft_parts_at(cat, i);
    WeftDimParts d;
    if (p->kind != WEFT_PART_LINK && p->kind != WEFT_PART_NIC) continue;
    CHECK_EQ_INT(weft_parts_dim(cat, p->name, WEFT_RING, 2048, &d, &e), WEFT_OK);
    if (p->switch_part[0] && p->uplink[0] &&
        weft_parts_find(cat, p->switch_part)->kind == WEFT_PART_SWITCH)
      CHECK_EQ_INT(weft_parts_dim(cat, p->name, WEFT_SWITCH, 2048, &d, &e), WEFT_OK);
  }
  weft_parts_free(cat);
}

const TestCase suite_parts[] = {
    {"parts_fat_tree_counts", test_fat_tree_counts},
    {"parts_dim_cost_by_hand", test_dim_cost_by_hand},
    {"parts_user_file_overrides", test_user_file_overrides},
    {"parts_bad_entries", test_bad_entries},
    {"parts_bind_network", test_bind_network},
    {"parts_codesign_networks", test_codesign_networks},
    {"parts_codesign_networks_fit", test_codesign_networks_fit},
    {"parts_builtin_catalog", test_builtin_catalog},
    {0},
};
