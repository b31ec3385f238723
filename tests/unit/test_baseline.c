/* test_baseline.c — the baseline fabrics (switch, Fat-tree, expander), the
 * price table and the Fat-tree at a cost; every count and cost by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "topo/baseline.h"
#include "weft.h"

/* ------------------------------------------------------------------ helpers */

/* Prices far apart, so each BOM line shows in the sum: $1/(GB/s) of NIC,
 * $10/(GB/s) of transceiver, $100/(GB/s) of switch port, $1000 a panel port,
 * $10^4 an OCS port, fiber_usd a cable. */
static WeftPrices hand_prices(double fiber_usd) {
  WeftPrices p = {1.0, 10.0, 100.0, 1000.0, 10000.0, fiber_usd, 0};
  return p;
}

static int count_links_bw(const WeftFabric *f, double bw) {
  const WeftGraph *g = weft_fabric_graph(f);
  int c = 0;
  for (int l = 0; l < weft_graph_nlinks(g); l++) {
    double b;
    weft_graph_link(g, l, NULL, NULL, &b);
    c += fabs(b - bw) <= 1e-9 * bw;
  }
  return c;
}

static int out_degree(const WeftFabric *f, int node) {
  const WeftGraph *g = weft_fabric_graph(f);
  int c = 0;
  for (int l = 0; l < weft_graph_nlinks(g); l++) {
    int from;
    weft_graph_link(g, l, &from, NULL, NULL);
    c += from == node;
  }
  return c;
}

/* Every link has a reverse link of the same bandwidth (cables). */
static int links_paired(const WeftFabric *f) {
  const WeftGraph *g = weft_fabric_graph(f);
  int L = weft_graph_nlinks(g);
  for (int l = 0; l < L; l++) {
    int a, b, found = 0;
    double bw;
    weft_graph_link(g, l, &a, &b, &bw);
    for (int k = 0; k < L && !found; k++) {
      int c, d;
      double bw2;
      weft_graph_link(g, k, &c, &d, &bw2);
      found = c == b && d == a && bw2 == bw;
    }
    if (!found) return 0;
  }
  return 1;
}

static int links[1 << 14], lens[256];

/* Routes src -> dst, each checked to be a chain of links from src to dst of
 * *hops links (all the same length); returns how many, -1 if one is bad. */
static int paths(const WeftFabric *f, int src, int dst, int *hops) {
  int np = weft_fabric_paths(f, src, dst, links, 1 << 14, lens, 256);
  const WeftGraph *g = weft_fabric_graph(f);
  int off = 0;
  for (int p = 0; p < np; p++) {
    int at = src;
    for (int k = 0; k < lens[p]; k++) {
      int from, to;
      weft_graph_link(g, links[off + k], &from, &to, NULL);
      if (from != at) return -1;
      at = to;
    }
    if (at != dst || lens[p] != lens[0]) return -1;
    off += lens[p];
  }
  *hops = np > 0 ? lens[0] : 0;
  return np;
}

/* Every ordered server pair has at least one valid route. */
static int all_pairs_routed(const WeftFabric *f) {
  int n = weft_fabric_servers(f), hops;
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++)
      if (s != d && paths(f, s, d, &hops) < 1) return 0;
  return 1;
}

/* ------------------------------------------------------------------ switch */

static void baseline_switch(void) {
  WeftFabric *f;
  WeftError e;
  CHECK_EQ_INT(weft_fabric_switch(4, 100.0, &f, &e), WEFT_OK);
  if (!f) return;
  CHECK_EQ_INT(weft_fabric_kind(f), WEFT_FABRIC_SWITCH);
  CHECK_EQ_INT(weft_fabric_servers(f), 4);
  CHECK_EQ_INT(weft_graph_nodes(weft_fabric_graph(f)), 5);  /* 4 servers + the switch */
  CHECK_EQ_INT(weft_graph_nlinks(weft_fabric_graph(f)), 8); /* an up and a down link each */
  CHECK_EQ_INT(count_links_bw(f, 100.0), 8);
  CHECK_EQ_INT(out_degree(f, 4), 4);
  CHECK(links_paired(f));
  int hops;
  CHECK_EQ_INT(paths(f, 0, 3, &hops), 1);
  CHECK_EQ_INT(hops, 2);
  CHECK(all_pairs_routed(f));
  /* NIC 400 GB/s x $1 + transceivers 800 GB/s x $10 + switch ports 400 GB/s
   * x $100 + 4 fibers x $1000 = 400 + 8000 + 40000 + 4000 */
  WeftPrices p = hand_prices(1000.0);
  CHECK_NEAR(weft_fabric_cost(f, &p), 52400.0, 1e-12);
  p.use_ocs = 1;  /* no panel ports: the same */
  CHECK_NEAR(weft_fabric_cost(f, &p), 52400.0, 1e-12);
  weft_fabric_free(f);

  CHECK_EQ_INT(weft_fabric_switch(1, 100.0, &f, &e), WEFT_EINPUT);
  CHECK(strcmp(e.field, "nservers") == 0 && f == NULL);
  CHECK_EQ_INT(weft_fabric_switch(4, 0.0, &f, &e), WEFT_EINPUT);
  CHECK(strcmp(e.field, "nic_gbps") == 0);
  CHECK_EQ_INT(weft_fabric_switch(4, 100.0, NULL, &e), WEFT_EINVAL);
  weft_fabric_free(NULL);
}

/* ------------------------------------------------------------------ Fat-tree */

/* 8 servers, radix 4, 2 tiers, oversub 1: a leaf takes h = 2 servers and
 * u = 2 uplinks (2 + 2 = 4 ports); 4 leaves (nodes 8..11), 2 spines (12,
 * 13) of 4 ports each. 8 + 4 x 2 = 16 cables of 100, 32 links. */
static void baseline_fattree_2tier(void) {
  WeftFabric *f;
  WeftError e;
  CHECK_EQ_INT(weft_fabric_fattree(8, 100.0, 4, 2, 1.0, &f, &e), WEFT_OK);
  if (!f) return;
  CHECK_EQ_INT(weft_fabric_kind(f), WEFT_FABRIC_FATTREE);
  CHECK_EQ_INT(weft_graph_nodes(weft_fabric_graph(f)), 14);
  CHECK_EQ_INT(weft_graph_nlinks(weft_fabric_graph(f)), 32);
  CHECK_EQ_INT(count_links_bw(f, 100.0), 32);
  for (int v = 8; v < 14; v++) CHECK_EQ_INT(out_degree(f, v), 4);  /* radix, all used */
  CHECK(links_paired(f));
  CHECK(all_pairs_routed(f));
  int hops;
  CHECK_EQ_INT(paths(f, 0, 1, &hops), 1);  /* same leaf: server-leaf-server */
  CHECK_EQ_INT(hops, 2);
  CHECK_EQ_INT(paths(f, 0, 2, &hops), 2);  /* other leaf: one path per spine */
  CHECK_EQ_INT(hops, 4);
  CHECK_EQ_INT(paths(f, 7, 0, &hops), 2);
  /* BOM: NIC 800; transceivers 2 x 800 (servers) + 2 x 800 (uplinks) =
   * 3200; switch ports 800 + 2 x 800 = 2400; 16 fibers.
   * 800 x 1 + 3200 x 10 + 2400 x 100 + 16 x 1000 = 288800 */
  WeftPrices p = hand_prices(1000.0);
  CHECK_NEAR(weft_fabric_cost(f, &p), 288800.0, 1e-12);
  weft_fabric_free(f);

  /* oversub 2: h + max(1, floor(h/2)) <= 4 allows h = 3 with u = 1. Leaves
   * of 3, 3, 2 servers (nodes 8, 9, 10), one spine (11). Uplinks 3 x 100 / 2
   * = 150, 150 and 2 x 100 / 2 = 100: 8 + 3 = 11 cables, 22 links. */
  CHECK_EQ_INT(weft_fabric_fattree(8, 100.0, 4, 2, 2.0, &f, &e), WEFT_OK);
  if (!f) return;
  CHECK_EQ_INT(weft_graph_nodes(weft_fabric_graph(f)), 12);
  CHECK_EQ_INT(weft_graph_nlinks(weft_fabric_graph(f)), 22);
  CHECK_EQ_INT(count_links_bw(f, 150.0), 4);
  CHECK_EQ_INT(count_links_bw(f, 100.0), 18);
  CHECK_EQ_INT(out_degree(f, 8), 4);   /* 3 servers + 1 uplink */
  CHECK_EQ_INT(out_degree(f, 10), 3);  /* 2 servers + 1 uplink */
  CHECK_EQ_INT(out_degree(f, 11), 3);  /* the spine: one per leaf */
  CHECK(links_paired(f));
  CHECK(all_pairs_routed(f));
  CHECK_EQ_INT(paths(f, 0, 3, &hops), 1);
  CHECK_EQ_INT(hops, 4);
  /* uplinks carry 150 + 150 + 100 = 400 = 800 / 2: transceivers 1600 + 800,
   * switch ports 800 + 800, 11 fibers: 800 + 24000 + 160000 + 11000 */
  CHECK_NEAR(weft_fabric_cost(f, &p), 195800.0, 1e-12);
  weft_fabric_free(f);
}

/* 16 servers, radix 4, 3 tiers, oversub 1: the k = 4 Fat-tree. h = 2, u = 2,
 * 8 leaves, 2 per pod, 4 pods of 2 aggregation switches, (4/2)^2 = 4 cores.
 * 16 + 8 + 8 + 4 = 36 nodes, 16 + 16 + 16 cables. */
static void baseline_fattree_3tier(void) {
  WeftFabric *f;
  WeftError e;
  CHECK_EQ_INT(weft_fabric_fattree(16, 100.0, 4, 3, 1.0, &f, &e), WEFT_OK);
  if (!f) return;
  CHECK_EQ_INT(weft_graph_nodes(weft_fabric_graph(f)), 36);
  CHECK_EQ_INT(weft_graph_nlinks(weft_fabric_graph(f)), 96);
  CHECK_EQ_INT(count_links_bw(f, 100.0), 96);
  for (int v = 16; v < 36; v++) CHECK_EQ_INT(out_degree(f, v), 4);
  CHECK(links_paired(f));
  CHECK(all_pairs_routed(f));
  int hops;
  CHECK_EQ_INT(paths(f, 0, 2, &hops), 2);  /* same pod: via either aggregation switch */
  CHECK_EQ_INT(hops, 4);
  CHECK_EQ_INT(paths(f, 0, 4, &hops), 4);  /* across pods: 2 aggregation x 2 cores */
  CHECK_EQ_INT(hops, 6);
  /* 48 cables: NIC 1600, transceivers 2 x 4800, switch ports 1600 + 2 x 3200:
   * 1600 + 96000 + 800000 + 48000 */
  WeftPrices p = hand_prices(1000.0);
  CHECK_NEAR(weft_fabric_cost(f, &p), 945600.0, 1e-12);
  weft_fabric_free(f);

  /* 10 servers: 5 leaves in pods of 2, 2, 1; 6 aggregation switches; cores
   * (a, 0) reach all 3 pods, (a, 1) pods 0 and 1. 10 + 5 + 6 + 4 = 25 nodes;
   * 10 + 10 + 2 x (2 + 2 + 1) = 30 cables, all of 100. */
  CHECK_EQ_INT(weft_fabric_fattree(10, 100.0, 4, 3, 1.0, &f, &e), WEFT_OK);
  if (!f) return;
  CHECK_EQ_INT(weft_graph_nodes(weft_fabric_graph(f)), 25);
  CHECK_EQ_INT(weft_graph_nlinks(weft_fabric_graph(f)), 60);
  CHECK_EQ_INT(count_links_bw(f, 100.0), 60);
  CHECK(links_paired(f));
  CHECK(all_pairs_routed(f));
  CHECK_EQ_INT(paths(f, 8, 0, &hops), 2);  /* pod 2's aggregation has one core each */
  CHECK_EQ_INT(hops, 6);
  CHECK_EQ_INT(paths(f, 0, 8, &hops), 2);  /* only the cores (a, 0) reach pod 2 */
  CHECK_EQ_INT(paths(f, 0, 4, &hops), 4);
  weft_fabric_free(f);
}

/* Non-whole uplinks: radix 8, oversub 1.5: h = 5 (5 + floor(3.33) = 8), so
 * 5 x 100 / 1.5 = 333.3 GB/s over 3 links of 1000/9. 10 servers: 2 leaves,
 * 3 spines; 10 + 6 cables. */
static void baseline_fattree_fractional(void) {
  WeftFabric *f;
  WeftError e;
  CHECK_EQ_INT(weft_fabric_fattree(10, 100.0, 8, 2, 1.5, &f, &e), WEFT_OK);
  if (!f) return;
  CHECK_EQ_INT(weft_graph_nodes(weft_fabric_graph(f)), 15);
  CHECK_EQ_INT(weft_graph_nlinks(weft_fabric_graph(f)), 32);
  CHECK_EQ_INT(count_links_bw(f, 1000.0 / 9.0), 12);
  CHECK_EQ_INT(out_degree(f, 10), 8);
  int hops;
  CHECK_EQ_INT(paths(f, 0, 9, &hops), 3);
  CHECK(all_pairs_routed(f));
  weft_fabric_free(f);

  /* One leaf holds them all (3 <= h = 4 at radix 8): no spines; costs what
   * the ideal switch does. */
  WeftFabric *sw;
  CHECK_EQ_INT(weft_fabric_fattree(3, 100.0, 8, 2, 1.0, &f, &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_switch(3, 100.0, &sw, &e), WEFT_OK);
  if (!f || !sw) return;
  CHECK_EQ_INT(weft_graph_nodes(weft_fabric_graph(f)), 4);
  WeftPrices p = hand_prices(1000.0);
  CHECK_NEAR(weft_fabric_cost(f, &p), weft_fabric_cost(sw, &p), 1e-12);
  weft_fabric_free(f);
  weft_fabric_free(sw);
}

static void baseline_fattree_errors(void) {
  static const struct {
    int n, radix, tiers;
    double nic, oversub;
    const char *field;
  } cases[] = {
      {9, 4, 2, 100, 1.0, "radix"},    /* 2 tiers: 4 leaves of 2 at most */
      {17, 4, 3, 100, 1.0, "radix"},   /* 3 tiers: 4 pods x 2 leaves x 2 */
      {13, 4, 2, 100, 2.0, "radix"},   /* h = 3: 4 leaves of 3 = 12 at most */
      {8, 4, 4, 100, 1.0, "tiers"},
      {8, 4, 1, 100, 1.0, "tiers"},
      {8, 1, 2, 100, 1.0, "radix"},
      {8, 4, 2, 100, 0.5, "oversub"},
      {8, 4, 2, 100, HUGE_VAL, "oversub"},
      {8, 4, 2, 0, 1.0, "nic_gbps"},
      {8, 4, 2, 1e-300, 1e300, "oversub"},  /* uplinks of 1e-600 GB/s underflow */
      {1, 4, 2, 100, 1.0, "nservers"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    WeftFabric *f = (WeftFabric *)&f;
    WeftError e;
    int rc = weft_fabric_fattree(cases[c].n, cases[c].nic, cases[c].radix, cases[c].tiers,
                                 cases[c].oversub, &f, &e);
    CHECK_EQ_INT(rc, WEFT_EINPUT);
    CHECK(f == NULL && e.code == WEFT_EINPUT && strcmp(e.field, cases[c].field) == 0);
    if (strcmp(e.field, cases[c].field) != 0) fprintf(stderr, "  case %zu: %s\n", c, e.msg);
  }
  WeftFabric *f;
  WeftError e;
  CHECK_EQ_INT(weft_fabric_fattree(8, 100.0, 4, 2, 1.0, &f, &e), WEFT_OK);  /* the limit fits */
  weft_fabric_free(f);
  CHECK_EQ_INT(weft_fabric_fattree(12, 100.0, 4, 2, 2.0, &f, &e), WEFT_OK);
  weft_fabric_free(f);
}

/* ------------------------------------------------------------------ expander */

/* Checks the graph is a simple connected d-regular graph over the n servers
 * with links of bw both ways. */
static int expander_ok(const WeftFabric *f, int n, int d, double bw) {
  const WeftGraph *g = weft_fabric_graph(f);
  if (weft_graph_nodes(g) != n || weft_graph_nlinks(g) != n * d) return 0;
  char *adj = calloc((size_t)n * (size_t)n, 1);
  int *deg = calloc((size_t)n, sizeof *deg), *seen = calloc((size_t)n, sizeof *seen);
  int *queue = malloc((size_t)n * sizeof *queue), ok = adj && deg && seen && queue;
  for (int l = 0; ok && l < n * d; l++) {
    int a, b;
    double w;
    weft_graph_link(g, l, &a, &b, &w);
    if (a == b || adj[a * n + b] || w != bw) ok = 0;  /* loop, parallel link, capacity */
    else adj[a * n + b] = 1, deg[a]++;
  }
  for (int a = 0; ok && a < n; a++) {
    if (deg[a] != d) ok = 0;
    for (int b = 0; b < n; b++)
      if (adj[a * n + b] != adj[b * n + a]) ok = 0;
  }
  int head = 0, tail = 0;
  if (ok) {
    seen[0] = 1;
    queue[tail++] = 0;
    while (head < tail) {
      int v = queue[head++];
      for (int w = 0; w < n; w++)
        if (adj[v * n + w] && !seen[w]) seen[w] = 1, queue[tail++] = w;
    }
    ok = tail == n;
  }
  free(adj);
  free(deg);
  free(seen);
  free(queue);
  return ok;
}

/* 1 when the two fabrics have the same links in the same order. */
static int same_links(const WeftFabric *a, const WeftFabric *b) {
  const WeftGraph *ga = weft_fabric_graph(a), *gb = weft_fabric_graph(b);
  if (weft_graph_nlinks(ga) != weft_graph_nlinks(gb)) return 0;
  for (int l = 0; l < weft_graph_nlinks(ga); l++) {
    int x, y, u, v;
    weft_graph_link(ga, l, &x, &y, NULL);
    weft_graph_link(gb, l, &u, &v, NULL);
    if (x != u || y != v) return 0;
  }
  return 1;
}

static void baseline_expander(void) {
  WeftFabric *f, *g2, *h;
  WeftError e;
  CHECK_EQ_INT(weft_fabric_expander(16, 4, 100.0, 1, &f, &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_expander(16, 4, 100.0, 1, &g2, &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_expander(16, 4, 100.0, 2, &h, &e), WEFT_OK);
  if (!f || !g2 || !h) return;
  CHECK_EQ_INT(weft_fabric_kind(f), WEFT_FABRIC_EXPANDER);
  CHECK(expander_ok(f, 16, 4, 100.0) && expander_ok(h, 16, 4, 100.0));
  CHECK(same_links(f, g2));   /* deterministic per seed */
  CHECK(!same_links(f, h));   /* and another seed, another graph */
  CHECK(all_pairs_routed(f));
  /* NIC 16 x 4 x 100 = 6400, transceivers 6400, 32 fibers, no switch:
   * 6400 + 64000 + 32000 */
  WeftPrices p = hand_prices(1000.0);
  CHECK_NEAR(weft_fabric_cost(f, &p), 102400.0, 1e-12);
  weft_fabric_free(f);
  weft_fabric_free(g2);
  weft_fabric_free(h);

  /* Many seeds and shapes: odd degree, degree 2 (a random 2-regular graph is
   * mostly several cycles: joined into one), the complete graph, d = 1. */
  static const struct { int n, d; } shapes[] = {{10, 3}, {50, 2}, {20, 5}, {7, 6}, {2, 1}, {64, 8}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (unsigned long long seed = 0; seed < 20; seed++) {
      int rc = weft_fabric_expander(shapes[s].n, shapes[s].d, 25.0, seed, &f, &e);
      CHECK_EQ_INT(rc, WEFT_OK);
      if (rc) continue;
      if (!expander_ok(f, shapes[s].n, shapes[s].d, 25.0))
        fprintf(stderr, "  n %d d %d seed %llu: not a connected simple regular graph\n",
                shapes[s].n, shapes[s].d, seed), test_failures_++;
      weft_fabric_free(f);
    }

  static const struct {
    int n, d;
    double bw;
    const char *field;
  } bad[] = {{9, 3, 100, "degree"}, {8, 8, 100, "degree"}, {8, 0, 100, "degree"},
             {4, 1, 100, "degree"}, {8, 65, 100, "degree"}, {8, 2, -1, "port_gbps"},
             {1, 1, 100, "nservers"}};
  for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
    CHECK_EQ_INT(weft_fabric_expander(bad[c].n, bad[c].d, bad[c].bw, 1, &f, &e), WEFT_EINPUT);
    CHECK(f == NULL && strcmp(e.field, bad[c].field) == 0);
  }
}

/* ------------------------------------------------------------------ prices */

static char tmp_dir[64];

static const char *write_tmp(const char *name, const char *text) {
  static char path[128];
  if (!tmp_dir[0]) {
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/weft-bl-XXXXXX");
    if (!mkdtemp(tmp_dir)) return "/nonexistent/dir/x.yml";
  }
  snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
  FILE *f = fopen(path, "wb");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return path;
}

static void tmp_remove(const char *path) {
  remove(path);
  if (tmp_dir[0]) rmdir(tmp_dir);
  tmp_dir[0] = '\0';
}

static void baseline_prices(void) {
  WeftPrices d, p;
  weft_topo_prices_default(&d);
  CHECK(d.nic_port_usd_per_gbps > 0 && d.transceiver_usd_per_gbps > 0 &&
        d.switch_port_usd_per_gbps > 0 && d.patch_panel_port_usd > 0 && d.ocs_port_usd > 0 &&
        d.fiber_usd > 0 && d.use_ocs == 0);
  CHECK(d.ocs_port_usd > d.patch_panel_port_usd);  /* an OCS port is the dearer way to rewire */
  WeftError e;

  const char *path = write_tmp("p.yml", "# override two\nfiber_usd: 12.5\nuse_ocs: yes\n");
  memset(&p, 0, sizeof p);
  CHECK_EQ_INT(weft_topo_prices_read(path, &p, &e), WEFT_OK);
  CHECK(p.fiber_usd == 12.5 && p.use_ocs == 1);
  CHECK(p.nic_port_usd_per_gbps == d.nic_port_usd_per_gbps &&
        p.transceiver_usd_per_gbps == d.transceiver_usd_per_gbps &&
        p.switch_port_usd_per_gbps == d.switch_port_usd_per_gbps &&
        p.patch_panel_port_usd == d.patch_panel_port_usd && p.ocs_port_usd == d.ocs_port_usd);
  tmp_remove(path);

  path = write_tmp("all.yml",
                   "nic_port_usd_per_gbps: 1\ntransceiver_usd_per_gbps: 2\n"
                   "switch_port_usd_per_gbps: 3\npatch_panel_port_usd: 4\nocs_port_usd: 5\n"
                   "fiber_usd: 0\nuse_ocs: false\n");
  CHECK_EQ_INT(weft_topo_prices_read(path, &p, &e), WEFT_OK);
  CHECK(p.nic_port_usd_per_gbps == 1 && p.transceiver_usd_per_gbps == 2 &&
        p.switch_port_usd_per_gbps == 3 && p.patch_panel_port_usd == 4 && p.ocs_port_usd == 5 &&
        p.fiber_usd == 0 && p.use_ocs == 0);
  tmp_remove(path);

  path = write_tmp("empty.yml", "# nothing\n");
  memset(&p, 0, sizeof p);
  CHECK_EQ_INT(weft_topo_prices_read(path, &p, &e), WEFT_OK);
  CHECK(p.nic_port_usd_per_gbps == d.nic_port_usd_per_gbps &&
        p.transceiver_usd_per_gbps == d.transceiver_usd_per_gbps &&
        p.switch_port_usd_per_gbps == d.switch_port_usd_per_gbps &&
        p.patch_panel_port_usd == d.patch_panel_port_usd && p.ocs_port_usd == d.ocs_port_usd &&
        p.fiber_usd == d.fiber_usd && p.use_ocs == d.use_ocs);  /* fields: padding may differ */
  tmp_remove(path);

  static const struct {
    const char *text;
    int line;
    const char *field, *msg;
  } bad[] = {
      {"fiber_usd: 1\nfibre_usd: 3\n", 2, "fibre_usd", "unknown key 'fibre_usd'"},
      {"fiber_usd: 1\nnic_port_usd_per_gbps: 2\nocs_port_usd: lots\n", 3, "ocs_port_usd",
       "must be a number"},
      {"\n\nnic_port_usd_per_gbps: -1\n", 3, "nic_port_usd_per_gbps", "must be >= 0"},
      {"switch_port_usd_per_gbps: .nan\n", 1, "switch_port_usd_per_gbps", "finite"},
      {"use_ocs: 2\n", 1, "use_ocs", "true or false"},
      {"fiber_usd: [1]\n", 1, "fiber_usd", "must be a number"},
      {"- 1\n", 1, "", "expected a mapping"},
  };
  for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
    path = write_tmp("bad.yml", bad[c].text);
    p = d;
    p.fiber_usd = 77.0;  /* left as it was on failure */
    int rc = weft_topo_prices_read(path, &p, &e);
    int ok = rc == WEFT_EINPUT && strcmp(e.file, path) == 0 && e.line == bad[c].line &&
             strcmp(e.field, bad[c].field) == 0 && strstr(e.msg, bad[c].msg) && p.fiber_usd == 77.0;
    if (!ok)
      fprintf(stderr, "  prices case %zu: rc %d line %d field '%s': %s\n", c, rc, e.line, e.field,
              e.msg), test_failures_++;
    tmp_remove(path);
  }
  CHECK_EQ_INT(weft_topo_prices_read("/nonexistent/prices.yml", &p, &e), WEFT_EIO);
}

/* ------------------------------------------------------------------ Fat-tree at a cost */

/* 8 servers, radix 4, 2 tiers, oversub 1 at hand prices with $100 fibers:
 * per GB/s of NIC, 8 x (1 + 2 x 10 + 100) + (uplinks 8 x 2 x (10 + 100)) =
 * 968 + 1760 = 2728; 16 cables x 100 = 1600 fixed. */
static void baseline_at_cost_nic(void) {
  WeftPrices p = hand_prices(100.0);
  WeftError e;
  WeftFabric *f;
  double nic = 0.0, o = 1.0;
  CHECK_EQ_INT(fabric_fattree_at_cost(8, 4, 2, 2728.0 * 50 + 1600, &p, &nic, &o, &f, &e), WEFT_OK);
  CHECK_NEAR(nic, 50.0, 1e-9);
  CHECK(o == 1.0);
  if (f) {
    double usd = weft_fabric_cost(f, &p);
    CHECK(usd <= 2728.0 * 50 + 1600 && usd >= (2728.0 * 50 + 1600) * (1 - 1e-9));
    CHECK_EQ_INT(weft_graph_nodes(weft_fabric_graph(f)), 14);
    weft_fabric_free(f);
  }
  /* The inverse of building: the tree at nic 100 and default prices. */
  WeftPrices dp;
  weft_topo_prices_default(&dp);
  CHECK_EQ_INT(weft_fabric_fattree(16, 100.0, 4, 3, 1.0, &f, &e), WEFT_OK);
  double target = f ? weft_fabric_cost(f, &dp) : 0;
  weft_fabric_free(f);
  nic = 0.0, o = 1.0;
  CHECK_EQ_INT(fabric_fattree_at_cost(16, 4, 3, target, &dp, &nic, &o, NULL, &e), WEFT_OK);
  CHECK_NEAR(nic, 100.0, 1e-9);
  /* Monotone: a larger budget, a faster NIC. */
  double last = 0.0;
  for (int k = 1; k <= 10; k++) {
    nic = 0.0, o = 2.0;
    CHECK_EQ_INT(fabric_fattree_at_cost(64, 8, 3, 1e5 * k, &dp, &nic, &o, &f, &e), WEFT_OK);
    CHECK(nic > last && o == 2.0);
    double usd = f ? weft_fabric_cost(f, &dp) : 0.0;
    CHECK(usd <= 1e5 * k && usd >= 1e5 * k * (1 - 1e-9));
    weft_fabric_free(f);
    last = nic;
  }
  /* Below the cables' own cost: nothing. */
  nic = 0.0, o = 1.0;
  CHECK_EQ_INT(fabric_fattree_at_cost(8, 4, 2, 1600.0, &p, &nic, &o, &f, &e), WEFT_EINPUT);
  CHECK(f == NULL && strcmp(e.field, "target_usd") == 0);
  nic = 0.0, o = 0.0;  /* both unknown */
  CHECK_EQ_INT(fabric_fattree_at_cost(8, 4, 2, 1e6, &p, &nic, &o, &f, &e), WEFT_EINVAL);
  nic = 0.0, o = 1.0;
  CHECK_EQ_INT(fabric_fattree_at_cost(9, 4, 2, 1e6, &p, &nic, &o, &f, &e), WEFT_EINPUT);
  CHECK(strcmp(e.field, "radix") == 0);
}

/* Oversub at nic 100, same tree and prices. Shapes (radix 4): oversub 1:
 * h 2, u 2 (4 leaves, 2 spines); (1, 1.5]: h 2, u 1 (4 leaves, 1 spine);
 * beyond 1.5: h 3, u 1 (3 leaves, 1 spine). Servers cost 8 x 100 x 121 +
 * 800 = 97600; uplinks 2 x 110 x 800 / oversub = 176000 / oversub, and
 * leaves x u x $100 of fibers. So 274400 at 1; 98000 + 176000/o on
 * (1, 1.5]; 97900 + 176000/o beyond. */
static void baseline_at_cost_oversub(void) {
  WeftPrices p = hand_prices(100.0);
  WeftError e;
  WeftFabric *f;
  double nic = 100.0, o = 0.0;
  CHECK_EQ_INT(fabric_fattree_at_cost(8, 4, 2, 300000.0, &p, &nic, &o, &f, &e), WEFT_OK);
  CHECK(o == 1.0 && nic == 100.0);
  if (f) CHECK_NEAR(weft_fabric_cost(f, &p), 274400.0, 1e-12);
  weft_fabric_free(f);

  o = 0.0;  /* 98000 + 176000 / o = 250000: o = 22/19 */
  CHECK_EQ_INT(fabric_fattree_at_cost(8, 4, 2, 250000.0, &p, &nic, &o, &f, &e), WEFT_OK);
  CHECK_NEAR(o, 22.0 / 19.0, 1e-9);
  if (f) {
    CHECK_EQ_INT(weft_graph_nodes(weft_fabric_graph(f)), 13);
    CHECK(weft_fabric_cost(f, &p) <= 250000.0);
    CHECK_NEAR(weft_fabric_cost(f, &p), 250000.0, 1e-9);
  }
  weft_fabric_free(f);

  /* 215300 falls in the gap between 215333.3 (o = 1.5, 4 leaves) and
   * 215233.3 (o just above 1.5, 3 leaves): the 3-leaf tree just past 1.5. */
  o = 0.0;
  CHECK_EQ_INT(fabric_fattree_at_cost(8, 4, 2, 215300.0, &p, &nic, &o, &f, &e), WEFT_OK);
  CHECK(o > 1.5 && o < 1.501);
  if (f) {
    CHECK_EQ_INT(weft_graph_nodes(weft_fabric_graph(f)), 12);
    double usd = weft_fabric_cost(f, &p);
    CHECK(usd <= 215300.0 && usd > 215233.33 - 20.0);
  }
  weft_fabric_free(f);

  /* Brute force: no oversub on a grid does better than the search, and
   * the answer never grows with a smaller budget. */
  double last_o = 1.0;
  for (double target = 274000.0; target > 99000.0; target -= 7000.0) {
    o = 0.0;
    CHECK_EQ_INT(fabric_fattree_at_cost(8, 4, 2, target, &p, &nic, &o, &f, &e), WEFT_OK);
    double found = f ? weft_fabric_cost(f, &p) : 0.0;
    weft_fabric_free(f);
    CHECK(found <= target && o >= last_o);
    last_o = o;
    for (double x = 1.0; x < 50.0; x *= 1.001) {
      WeftFabric *g;
      if (weft_fabric_fattree(8, 100.0, 4, 2, x, &g, &e)) continue;
      double usd = weft_fabric_cost(g, &p);
      weft_fabric_free(g);
      if (usd <= target && usd > found + 1e-6 * target) {
        fprintf(stderr, "  target %g: oversub %g costs %g, search found %g\n", target, x, usd,
                found);
        test_failures_++;
        break;
      }
    }
  }
  /* Not even the leaves fit: 97900 is the floor (oversub -> infinity). */
  o = 0.0;
  CHECK_EQ_INT(fabric_fattree_at_cost(8, 4, 2, 97000.0, &p, &nic, &o, &f, &e), WEFT_EINPUT);
  CHECK(strcmp(e.field, "target_usd") == 0);
  /* 13 servers fit radix 4 at no oversub: h <= 3, 4 leaves of 3 = 12. */
  o = 0.0;
  CHECK_EQ_INT(fabric_fattree_at_cost(13, 4, 2, 1e9, &p, &nic, &o, &f, &e), WEFT_EINPUT);
  CHECK(strcmp(e.field, "radix") == 0);
}

const TestCase suite_baseline[] = {
    {"baseline_switch", baseline_switch},
    {"baseline_fattree_2tier", baseline_fattree_2tier},
    {"baseline_fattree_3tier", baseline_fattree_3tier},
    {"baseline_fattree_fractional", baseline_fattree_fractional},
    {"baseline_fattree_errors", baseline_fattree_errors},
    {"baseline_expander", baseline_expander},
    {"baseline_prices", baseline_prices},
    {"baseline_at_cost_nic", baseline_at_cost_nic},
    {"baseline_at_cost_oversub", baseline_at_cost_oversub},
    {0, 0},
};
