/* test_toporoute.c — unit tests (suite toporoute): the router's paths
 * against a brute-force count of shortest paths, the route memo against
 * routing each time, and the expander's AllReduce rings (each hop one link,
 * the cycles edge-disjoint; a pure AllReduce at the full d x B by hand),
 * and the work estimate weft topo refuses runs by (by hand, and its
 * monotonicity). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/fabric.h"
#include "weft.h"

#include "../test.h"

/* Hops between every two nodes of f's graph, by BFS over its links. */
static int *all_hops(const WeftFabric *f) {
  const WeftGraph *g = weft_fabric_graph(f);
  int V = weft_graph_nodes(g), L = weft_graph_nlinks(g);
  int *h = malloc((size_t)V * (size_t)V * sizeof *h), *q = malloc((size_t)V * sizeof *q);
  if (!h || !q) {
    free(h), free(q);
    return NULL;
  }
  for (int s = 0; s < V; s++) {
    int *d = h + (size_t)s * (size_t)V, head = 0, tail = 0;
    for (int v = 0; v < V; v++) d[v] = -1;
    d[s] = 0;
    q[tail++] = s;
    while (head < tail) {
      int v = q[head++];
      for (int l = 0; l < L; l++) {
        int a, b;
        weft_graph_link(g, l, &a, &b, NULL);
        if (a == v && d[b] < 0) d[b] = d[v] + 1, q[tail++] = b;
      }
    }
  }
  free(q);
  return h;
}

/* Shortest paths src -> dst, counted by dynamic programming over hops. */
static double count_paths(const WeftFabric *f, const int *h, int src, int dst) {
  const WeftGraph *g = weft_fabric_graph(f);
  int V = weft_graph_nodes(g), L = weft_graph_nlinks(g), D = h[(size_t)src * V + dst];
  double *c = calloc((size_t)V, sizeof *c), n = 0;
  if (!c) return -1;
  c[src] = 1;
  for (int k = 1; k <= D; k++) /* nodes k hops from src on a shortest path to dst */
    for (int l = 0; l < L; l++) {
      int a, b;
      weft_graph_link(g, l, &a, &b, NULL);
      if (h[(size_t)src * V + a] == k - 1 && h[(size_t)src * V + b] == k &&
          h[(size_t)b * V + dst] == D - k)
        c[b] += c[a];
    }
  n = c[dst];
  free(c);
  return n;
}

/* Every pair: min(k, shortest paths) distinct paths, each a chain of links
 * from src to dst of the shortest length. */
static int paths_ok(const WeftFabric *f, int k) {
  int n = weft_fabric_servers(f), V = weft_graph_nodes(weft_fabric_graph(f)), ok = 1;
  int *h = all_hops(f), links[4096], len[16];
  if (!h) return 0;
  for (int s = 0; ok && s < n; s++)
    for (int t = 0; ok && t < n; t++) {
      if (s == t) continue;
      int np = weft_fabric_paths(f, s, t, links, 4096, len, k);
      double want = count_paths(f, h, s, t);
      if (np != (want < k ? (int)want : k)) ok = 0;
      for (int p = 0, off = 0; ok && p < np; off += len[p++]) {
        if (len[p] != h[(size_t)s * V + t]) ok = 0;
        for (int i = 0, v = s; ok && i < len[p]; i++) {
          int a, b;
          weft_graph_link(weft_fabric_graph(f), links[off + i], &a, &b, NULL);
          if (a != v) ok = 0;
          v = b;
          if (i == len[p] - 1 && b != t) ok = 0;
        }
        for (int q = 0, o2 = 0; ok && q < p; o2 += len[q++]) /* distinct */
          if (len[q] == len[p] && !memcmp(links + o2, links + off, (size_t)len[p] * sizeof *links))
            ok = 0;
      }
      if (!ok) fprintf(stderr, "  pair %d -> %d: %d paths, want %g\n", s, t, np, want);
    }
  free(h);
  return ok;
}

static void toporoute_paths(void) {
  WeftFabric *f[4] = {0};
  WeftError e;
  CHECK_EQ_INT(weft_fabric_switch(12, 12.5, &f[0], &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_fattree(16, 12.5, 4, 3, 1, &f[1], &e), WEFT_OK); /* k = 4 */
  CHECK_EQ_INT(weft_fabric_fattree(20, 12.5, 8, 2, 1, &f[2], &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_expander(24, 4, 12.5, 5, &f[3], &e), WEFT_OK);
  for (int i = 0; i < 4; i++)
    if (f[i]) {
      CHECK(paths_ok(f[i], 4));
      CHECK(paths_ok(f[i], 1));
    }
  for (int i = 0; i < 4; i++) weft_fabric_free(f[i]);
}

/* The memo gives weft_fabric_paths' answer, first and second time; the
 * estimate through it is the estimate without. */
static void toporoute_memo(void) {
  WeftFabric *f = NULL;
  WeftError e;
  int n = 32;
  CHECK_EQ_INT(weft_fabric_fattree(n, 12.5, 8, 2, 1, &f, &e), WEFT_OK);
  if (!f) return;
  FabricRoutes *r = fabric_routes_for(f);
  CHECK(r != NULL);
  WeftTraffic *t = weft_traffic_create(n);
  int m[32];
  for (int i = 0; i < n; i++) m[i] = i;
  CHECK_EQ_INT(weft_traffic_add_allreduce(t, m, n, 1e8), WEFT_OK);
  uint64_t st = 7;
  for (int i = 0; i < 200; i++) {
    st = st * 6364136223846793005ULL + 1442695040888963407ULL;
    int a = (int)(st >> 33) % n, b = (int)(st >> 40) % n;
    if (a != b) CHECK_EQ_INT(weft_traffic_add_demand(t, a, b, 1e6 * (1 + i % 7)), WEFT_OK);
  }
  for (int pass = 0; r && pass < 2; pass++) {
    WeftTopoTime a, b;
    CHECK_EQ_INT(weft_fabric_estimate(f, t, &a, &e), WEFT_OK);
    CHECK_EQ_INT(fabric_estimate_memo(f, t, r, &b, &e), WEFT_OK);
    CHECK(a.time_ns == b.time_ns && a.ar_ns == b.ar_ns && a.mp_ns == b.mp_ns && a.flows == b.flows);
    for (int s = 0; s < n; s++)
      for (int d = 0; d < n; d++) {
        if (s == d) continue;
        int links[4096], len[16];
        const int *ml, *mlen;
        int np = weft_fabric_paths(f, s, d, links, 4096, len, 4);
        int mp = fabric_routes_get(r, s, d, &ml, &mlen);
        int same = np == mp;
        for (int p = 0, off = 0; same && p < np; off += len[p++])
          same = len[p] == mlen[p] && !memcmp(links + off, ml + off, (size_t)len[p] * sizeof *ml);
        if (!same) test_failures_++;
      }
  }
  fabric_routes_free(r);
  weft_traffic_free(t);
  weft_fabric_free(f);
}

/* The expander's rings for an AllReduce over all servers: 2 per cycle
 * (d/2 cycles), each visiting every member once, every hop one link; the
 * forward rings of two cycles share no link (edge-disjoint cycles). */
static int rings_ok(const WeftFabric *f, int n, int d) {
  int *m = malloc((size_t)n * sizeof *m), *succ = malloc((size_t)n * 64 * sizeof *succ);
  char *used = calloc((size_t)n * (size_t)n, 1), *seen = calloc((size_t)n, 1);
  int ok = m && succ && used && seen && f->rings; /* rings of its own, not member order */
  for (int i = 0; ok && i < n; i++) m[i] = i;
  WeftAllReduce ar = {n, m, 1e9};
  int nr = ok ? f->rings(f, &ar, succ, 64) : 0;
  if (nr != 2 * (d / 2)) ok = 0;
  for (int r = 0; ok && r < nr; r++) {
    memset(seen, 0, (size_t)n);
    for (int i = 0, v = 0; ok && i < n; i++) { /* one cycle through all n */
      if (seen[v]) ok = 0;
      seen[v] = 1;
      int w = succ[r * n + v];
      if (fabric_hops(f, v, w) != 1) ok = 0;
      if (r % 2 == 0) { /* forward: the cycle's edge, once over all cycles */
        int a = v < w ? v : w, b = v < w ? w : v;
        if (used[a * n + b]) ok = 0;
        used[a * n + b] = 1;
      }
      v = w;
    }
  }
  free(m), free(succ), free(used), free(seen);
  return ok;
}

static void toporoute_expander_rings(void) {
  static const struct { int n, d; } shapes[] = {{128, 4}, {64, 8}, {20, 5}, {10, 3}, {50, 2}, {7, 6}, {200, 64}};
  WeftError e;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (unsigned long long seed = 0; seed < 5; seed++) {
      WeftFabric *f = NULL;
      CHECK_EQ_INT(weft_fabric_expander(shapes[s].n, shapes[s].d, 12.5, seed, &f, &e), WEFT_OK);
      if (f && !rings_ok(f, shapes[s].n, shapes[s].d)) {
        fprintf(stderr, "  n %d d %d seed %llu: rings not along the graph\n", shapes[s].n,
                shapes[s].d, seed);
        test_failures_++;
      }
      weft_fabric_free(f);
    }
  /* A pure AllReduce of S = 1 GB over 128 servers, 4 ports of 12.5 GB/s: 4
   * rings, each member sends 2 (g-1)/g S / 4 on each, one ring hop per link
   * direction: 2 x 127/128 x 1e9 / (4 x 12.5) ns = 39.6875 ms, the ideal
   * switch's time at d x B (in member order over a random graph the hops
   * were multi-hop paths that collide: 10.4x slower). */
  WeftFabric *f = NULL;
  CHECK_EQ_INT(weft_fabric_expander(128, 4, 12.5, 1, &f, &e), WEFT_OK);
  WeftTraffic *t = weft_traffic_create(128);
  int m[128];
  for (int i = 0; i < 128; i++) m[i] = i;
  CHECK_EQ_INT(weft_traffic_add_allreduce(t, m, 128, 1e9), WEFT_OK);
  WeftTopoTime tt;
  if (f) {
    CHECK_EQ_INT(weft_fabric_simulate(f, t, &tt, &e), WEFT_OK);
    CHECK_NEAR(tt.time_ns, 2.0 * 127 / 128 * 1e9 / 50.0, 1e-6);
  }
  weft_traffic_free(t);
  weft_fabric_free(f);
}

/* A job of AllReduce traffic alone over n servers, and n one-to-all
 * demands from server 0 when demand is set. */
static WeftTraffic *work_job(int n, int demand) {
  WeftTraffic *t = weft_traffic_create(n);
  int *m = malloc((size_t)n * sizeof *m);
  for (int i = 0; t && m && i < n; i++) m[i] = i;
  if (!t || !m || weft_traffic_add_allreduce(t, m, n, 1e8)) {
    free(m);
    weft_traffic_free(t);
    return NULL;
  }
  for (int i = 1; demand && i < n; i++) weft_traffic_add_demand(t, 0, i, 1e6);
  free(m);
  return t;
}

static void toporoute_work(void) {
  WeftTopoSettings s;
  weft_topo_settings_default(&s);
  s.degree = 2;
  WeftTopoWork w, v;
  /* 4 servers, d = 2, rings only, k = 4: paths of 1 + log 4 / log 2 = 3
   * links; 2 ring groups of 4 hops (8 usages, 24 routed); indexes (1 + 1)
   * x 4 x (4 + 8) + 2 x 4 x 4 x 4 = 224; a simulation 2 x (2 + 8 + 8) + 24
   * = 60, four of them and one bound of 24: 264; no matching */
  WeftTraffic *t = work_job(4, 0);
  if (!t) return;
  CHECK_EQ_INT(weft_topo_work(t, &s, WEFT_PORT_SPLIT_RINGS, 0, &w), WEFT_OK);
  CHECK_NEAR(w.index, 224.0, 1e-9);
  CHECK_NEAR(w.matching, 0.0, 0.0);
  CHECK_NEAR(w.simulation, 264.0, 1e-9);
  CHECK_NEAR(w.search, 0.0, 0.0);
  CHECK_NEAR(w.work, 488.0, 1e-9);
  CHECK_NEAR(w.bytes, 4.0 * 16 * sizeof(int), 0.0);
  weft_traffic_free(t);
  CHECK_EQ_INT(weft_topo_work(NULL, &s, WEFT_PORT_SPLIT_RINGS, 0, &w), WEFT_EINVAL);
  /* more: every candidate split, a search, more servers, more ports */
  s.degree = 8;
  double last = 0;
  for (int n = 16; n <= 256; n *= 2) {
    t = work_job(n, 1);
    if (!t) return;
    CHECK_EQ_INT(weft_topo_work(t, &s, WEFT_PORT_SPLIT_BEST, 0, &w), WEFT_OK);
    CHECK_EQ_INT(weft_topo_work(t, &s, WEFT_PORT_SPLIT_PROPORTIONAL, 0, &v), WEFT_OK);
    CHECK(w.work > v.work && v.matching > 0 && w.work > last);
    last = w.work;
    CHECK_EQ_INT(weft_topo_work(t, &s, WEFT_PORT_SPLIT_BEST, 100, &v), WEFT_OK);
    CHECK(v.search > 0 && v.work > w.work);
    s.degree = 16;
    CHECK_EQ_INT(weft_topo_work(t, &s, WEFT_PORT_SPLIT_BEST, 0, &v), WEFT_OK);
    CHECK(v.work > w.work && v.bytes > w.bytes);
    s.degree = 8;
    weft_traffic_free(t);
  }
}

const TestCase suite_toporoute[] = {
    {"toporoute/work", toporoute_work},
    {"toporoute/paths", toporoute_paths},
    {"toporoute/memo", toporoute_memo},
    {"toporoute/expander_rings", toporoute_expander_rings},
    {0, 0},
};
