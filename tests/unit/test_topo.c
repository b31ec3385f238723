/* test_topo.c — unit tests (suite topo): TotientPerms strides (Hamiltonian
 * rings, diameters against the published references, by an independent BFS),
 * coin-change routes against BFS on the ring-only graph, and TopologyFinder
 * (port split and matching rounds worked by hand, degree, connectivity,
 * shortest model-parallel paths, errors). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topo/fabric.h"
#include "topo/finder.h"
#include "topo/totient.h"
#include "weft.h"

#include "../test.h"

/* ------------------------------------------------------------ helpers */

static uint64_t rng_next(uint64_t *s) {  /* Knuth's MMIX LCG, high bits */
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

static int gcd_(int a, int b) { return b ? gcd_(b, a % b) : a; }

/* Out-adjacency of a graph, from weft_graph_link alone (CSR by source). */
typedef struct {
  int V, L;
  int *off, *lk, *from, *to;
} Adj;

static void adj_build(const WeftGraph *g, Adj *a) {
  a->V = weft_graph_nodes(g);
  a->L = weft_graph_nlinks(g);
  a->off = calloc((size_t)a->V + 1, sizeof *a->off);
  a->lk = malloc((size_t)(a->L + 1) * sizeof *a->lk);
  a->from = malloc((size_t)(a->L + 1) * sizeof *a->from);
  a->to = malloc((size_t)(a->L + 1) * sizeof *a->to);
  for (int l = 0; l < a->L; l++) {
    weft_graph_link(g, l, &a->from[l], &a->to[l], NULL);
    a->off[a->from[l] + 1]++;
  }
  for (int v = 0; v < a->V; v++) a->off[v + 1] += a->off[v];
  int *fill = malloc((size_t)a->V * sizeof *fill);
  memcpy(fill, a->off, (size_t)a->V * sizeof *fill);
  for (int l = 0; l < a->L; l++) a->lk[fill[a->from[l]]++] = l;
  free(fill);
}

static void adj_free(Adj *a) {
  free(a->off);
  free(a->lk);
  free(a->from);
  free(a->to);
}

/* Hop counts from src over the links accepted by keep (NULL = all). */
static void bfs(const Adj *a, int src, int *dist, const char *keep) {
  int *queue = malloc((size_t)a->V * sizeof *queue), head = 0, tail = 0;
  for (int v = 0; v < a->V; v++) dist[v] = -1;
  dist[src] = 0;
  queue[tail++] = src;
  while (head < tail) {
    int v = queue[head++];
    for (int k = a->off[v]; k < a->off[v + 1]; k++) {
      int l = a->lk[k], u = a->to[l];
      if ((!keep || keep[l]) && dist[u] < 0) {
        dist[u] = dist[v] + 1;
        queue[tail++] = u;
      }
    }
  }
  free(queue);
}

/* Diameter of the circulant on all n servers with links i -- i +- s, by
 * BFS from every class start (it is vertex-transitive within a class). */
static int ring_diameter(int n, const int *s, int m, int start) {
  int *dist = malloc((size_t)n * sizeof *dist), *queue = malloc((size_t)n * sizeof *queue);
  for (int v = 0; v < n; v++) dist[v] = -1;
  int head = 0, tail = 0, diam = 0;
  dist[start] = 0;
  queue[tail++] = start;
  while (head < tail) {
    int v = queue[head++];
    if (dist[v] > diam) diam = dist[v];
    for (int i = 0; i < m; i++) {
      int nb[2] = {(v + s[i]) % n, (v - s[i] + n) % n};
      for (int e = 0; e < 2; e++)
        if (dist[nb[e]] < 0) {
          dist[nb[e]] = dist[v] + 1;
          queue[tail++] = nb[e];
        }
    }
  }
  free(dist);
  free(queue);
  return diam;
}

/* A path of links is consecutive from src to dst. */
static int path_ok(const Adj *a, const int *links, int len, int src, int dst) {
  int v = src;
  for (int i = 0; i < len; i++) {
    if (links[i] < 0 || links[i] >= a->L || a->from[links[i]] != v) return 0;
    v = a->to[links[i]];
  }
  return v == dst;
}

static WeftTraffic *traffic_all(int n, double size_bytes) {
  WeftTraffic *t = weft_traffic_create(n);
  int *m = malloc((size_t)n * sizeof *m);
  for (int i = 0; i < n; i++) m[i] = i;
  CHECK_EQ_INT(weft_traffic_add_allreduce(t, m, n, size_bytes), WEFT_OK);
  free(m);
  return t;
}

static void settings(WeftTopoSettings *s, int d, int ar_degree) {
  weft_topo_settings_default(s);
  s->degree = d;
  s->ar_degree = ar_degree;
}

/* Every server's out-degree (= in-degree: links come in pairs). */
static int max_degree(const WeftGraph *g, int n) {
  int *deg = calloc((size_t)n, sizeof *deg), best = 0;
  for (int l = 0; l < weft_graph_nlinks(g); l++) {
    int from;
    weft_graph_link(g, l, &from, NULL, NULL);
    if (++deg[from] > best) best = deg[from];
  }
  free(deg);
  return best;
}

/* How many model-parallel links join a and b. */
static int mp_count(const WeftFabric *f, int a, int b) {
  const int *p;
  int k = weft_fabric_mp_links(f, &p), c = 0;
  for (int i = 0; i < k; i++)
    c += (p[2 * i] == a && p[2 * i + 1] == b) || (p[2 * i] == b && p[2 * i + 1] == a);
  return c;
}

/* ------------------------------------------------------------ TotientPerms */

static void test_topo_defaults(void) {
  WeftTopoSettings s;
  memset(&s, 0x5a, sizeof s);
  weft_topo_settings_default(&s);
  CHECK_EQ_INT(s.degree, 4);
  CHECK_NEAR(s.port_gbps, 100.0 / 8, 0); /* 100 Gbit/s in GB/s */
  CHECK_EQ_INT(s.ar_degree, -1);
  CHECK_EQ_INT(s.kpaths, 4);
}

/* The published references (TopoOpt, NSDI 2023): ours must be no worse.
 * n = 12: the candidates up to the mirror are k <= 6 with gcd(k, 12) = 1:
 * {1, 5}, so 2 strides are exactly {1, 5}. Their diameter by hand: sums of
 * at most two of +-1, +-5 reach 0, 1, 11, 5, 7, 2, 10, 4, 8, 6 (mod 12) but
 * not 3 or 9, and 3 = 1 + 1 + 1: diameter 3. */
static void test_topo_totient_references(void) {
  int s[8], diam = -1;
  CHECK_EQ_INT(weft_totient_strides(12, 12, 2, s, &diam), 2);
  CHECK_EQ_INT(s[0], 1);
  CHECK_EQ_INT(s[1], 5);
  CHECK_EQ_INT(diam, 3);
  CHECK_EQ_INT(ring_diameter(12, s, 2, 0), 3);

  const int cases[][3] = {{128, 4, 5}, {1024, 4, 8}};  /* n, strides, reference diameter */
  for (int c = 0; c < 2; c++) {
    int n = cases[c][0];
    CHECK_EQ_INT(weft_totient_strides(n, n, cases[c][1], s, &diam), cases[c][1]);
    int bfs_diam = ring_diameter(n, s, cases[c][1], 0);
    CHECK_EQ_INT(diam, bfs_diam);
    CHECK(bfs_diam <= cases[c][2]);
  }
}

/* Each stride is a Hamiltonian cycle of every class: walking i -> i + p
 * from a class start visits g distinct members and returns after exactly g
 * steps. Strides ascending, multiples of n/g, k = p q^-1 coprime with g, on
 * the near side of the mirror (p <= n/2), and the reported diameter is the
 * BFS one. */
static void test_topo_totient_hamiltonian(void) {
  const int cases[][3] = {{12, 12, 2}, {24, 8, 2}, {64, 64, 3}, {96, 32, 4}, {100, 25, 3},
                          {128, 128, 4}, {30, 30, 8}, {8, 2, 3}, {210, 105, 5}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int n = cases[c][0], g = cases[c][1], m = cases[c][2], q = n / g, s[16], diam;
    int got = weft_totient_strides(n, g, m, s, &diam);
    int phi = 0;
    for (int k = 1; k <= g / 2; k++) phi += gcd_(k, g) == 1;
    CHECK_EQ_INT(got, m < phi ? m : phi);
    char *seen = malloc((size_t)n);
    for (int i = 0; i < got; i++) {
      CHECK(s[i] % q == 0 && s[i] > 0 && 2 * s[i] <= n);
      CHECK_EQ_INT(gcd_(s[i] / q, g), 1);
      if (i) CHECK(s[i] > s[i - 1]);
      for (int start = 0; start < q; start++) {
        memset(seen, 0, (size_t)n);
        int v = start, steps = 0;
        do {
          CHECK(!seen[v] && (v - start) % q == 0);
          seen[v] = 1;
          v = (v + s[i]) % n;
          steps++;
        } while (v != start && steps <= g);
        CHECK_EQ_INT(steps, g);
      }
    }
    free(seen);
    CHECK_EQ_INT(diam, ring_diameter(n, s, got, 0));
  }
  /* g = 2: the only candidate is k = 1, the stride n/2 (its own mirror). */
  int s[4], diam;
  CHECK_EQ_INT(weft_totient_strides(8, 2, 3, s, &diam), 1);
  CHECK_EQ_INT(s[0], 4);
  CHECK_EQ_INT(diam, 1);
}

static void test_topo_totient_args(void) {
  int s[4], diam;
  CHECK_EQ_INT(weft_totient_strides(12, 5, 2, s, &diam), WEFT_EINVAL);  /* 5 does not divide 12 */
  CHECK_EQ_INT(weft_totient_strides(12, 1, 2, s, &diam), WEFT_EINVAL);
  CHECK_EQ_INT(weft_totient_strides(12, 24, 2, s, &diam), WEFT_EINVAL);
  CHECK_EQ_INT(weft_totient_strides(1, 1, 1, s, &diam), WEFT_EINVAL);
  CHECK_EQ_INT(weft_totient_strides(12, 12, 0, s, &diam), WEFT_EINVAL);
  CHECK_EQ_INT(weft_totient_strides(12, 12, 2, NULL, &diam), WEFT_EINVAL);
  CHECK_EQ_INT(weft_totient_strides(12, 12, 2, s, NULL), 2);  /* the diameter is optional */
}

/* Coin-change routes: every hop a +-stride step, landing on b, as many hops
 * as BFS over the ring links alone; -1 across classes. */
static void test_topo_coin_change(void) {
  const int cases[][3] = {{128, 128, 4}, {24, 8, 2}, {60, 60, 3}, {36, 12, 2}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int n = cases[c][0], g = cases[c][1], q = n / g, s[8], diam;
    int m = weft_totient_strides(n, g, cases[c][2], s, &diam);
    TotientRoute tr;
    CHECK_EQ_INT(totient_route_init(&tr, n, g, s, m), WEFT_OK);
    int *dist = malloc((size_t)n * sizeof *dist), *queue = malloc((size_t)n * sizeof *queue);
    int hops[64], worst = 0;
    for (int a = 0; a < n; a++) {
      for (int v = 0; v < n; v++) dist[v] = -1; /* BFS over i -- i +- s on all n servers */
      int head = 0, tail = 0;
      dist[a] = 0;
      queue[tail++] = a;
      while (head < tail) {
        int v = queue[head++];
        for (int i = 0; i < m; i++)
          for (int sg = -1; sg <= 1; sg += 2) {
            int u = ((v + sg * s[i]) % n + n) % n;
            if (dist[u] < 0) {
              dist[u] = dist[v] + 1;
              queue[tail++] = u;
            }
          }
      }
      for (int b = 0; b < n; b++) {
        int h = totient_route(&tr, a, b, hops, 64);
        if ((b - a) % q) {
          CHECK_EQ_INT(h, -1);
          CHECK_EQ_INT(dist[b], -1);
          continue;
        }
        CHECK_EQ_INT(h, dist[b]);
        int v = a;
        for (int i = 0; i < h; i++) {
          int k = abs(hops[i]) - 1;
          CHECK(k >= 0 && k < m);
          v = ((v + (hops[i] > 0 ? 1 : -1) * s[k]) % n + n) % n;
        }
        CHECK_EQ_INT(v, b);
        if (h > worst) worst = h;
      }
    }
    CHECK_EQ_INT(worst, diam);
    CHECK_EQ_INT(totient_route(&tr, 0, s[0], hops, 0), -1);  /* one hop, no room for it */
    free(dist);
    free(queue);
    totient_route_free(&tr);
  }
}

/* ------------------------------------------------------------ TopologyFinder */

/* Port split by hand. n = 16, d = 8, an AllReduce over all 16 of S = 0.8 MB
 * and demand 1 MB on each of (0,1), (2,3), ..., (14,15):
 *   AllReduce 16 x 2 (15/16) S = 30 S = 24 MB, model-parallel 8 MB,
 *   share 24/32 = 0.75, d x 0.75 = 6 ports: 3 strides, 2 matching rounds.
 * Each round's only edges are the 8 pairs (a perfect matching), so both
 * rounds link all 8: 16 model-parallel links, every server at degree 8. */
static void test_topo_port_split(void) {
  WeftTraffic *t = traffic_all(16, 0.8e6);
  for (int i = 0; i < 16; i += 2) weft_traffic_add_demand(t, i, i + 1, 1e6);
  WeftTopoSettings s;
  settings(&s, 8, -1);
  WeftFabric *f = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  const int *st, *mp;
  CHECK_EQ_INT(weft_fabric_strides(f, &st), 3);
  CHECK_EQ_INT(weft_fabric_mp_links(f, &mp), 16);
  for (int i = 0; i < 16; i += 2) CHECK_EQ_INT(mp_count(f, i, i + 1), 2);
  CHECK_EQ_INT(max_degree(weft_fabric_graph(f), 16), 8);
  CHECK_EQ_INT(weft_graph_nlinks(weft_fabric_graph(f)), 2 * (3 * 16 + 16));
  weft_fabric_free(f);

  /* ar_degree 2: one stride, 6 rounds of the same 8 pairs. */
  settings(&s, 8, 2);
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_strides(f, &st), 1);
  CHECK_EQ_INT(weft_fabric_mp_links(f, &mp), 48);
  weft_fabric_free(f);
  weft_traffic_free(t);

  /* Demand 3 MB a pair: 24 MB each side, share 0.5, 4 ports: 2 strides. */
  t = traffic_all(16, 0.8e6);
  for (int i = 0; i < 16; i += 2) weft_traffic_add_demand(t, i, i + 1, 3e6);
  settings(&s, 8, -1);
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_strides(f, &st), 2);
  CHECK_EQ_INT(weft_fabric_mp_links(f, &mp), 32);
  weft_fabric_free(f);
  weft_traffic_free(t);

  /* Demand 7 MB a pair: 24 vs 56, share 0.3, 2.4 ports -> 2 (one ring). */
  t = traffic_all(16, 0.8e6);
  for (int i = 0; i < 16; i += 2) weft_traffic_add_demand(t, i, i + 1, 7e6);
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_strides(f, &st), 1);
  weft_fabric_free(f);
  weft_traffic_free(t);

  /* Demand 4.5 MB a pair: 24 vs 36, share 0.4, 3.2 ports: rounded to the
   * nearest even count, 4 (2 strides), not down to 2. */
  t = traffic_all(16, 0.8e6);
  for (int i = 0; i < 16; i += 2) weft_traffic_add_demand(t, i, i + 1, 4.5e6);
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_strides(f, &st), 2);
  weft_fabric_free(f);
  weft_traffic_free(t);

  /* Only AllReduce, d = 5: the largest even count, 4 ports (2 strides);
   * no demand, so the fifth port of every server becomes a long link
   * (16 servers: 8 links, every server at degree 5). */
  t = traffic_all(16, 1e6);
  settings(&s, 5, -1);
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_strides(f, &st), 2);
  CHECK_EQ_INT(weft_fabric_mp_links(f, &mp), 8);
  CHECK_EQ_INT(max_degree(weft_fabric_graph(f), 16), 5);
  weft_fabric_free(f);
  weft_traffic_free(t);

  /* Only demand: one ring kept for connectivity (2 ports), 6 rounds. */
  t = weft_traffic_create(16);
  for (int i = 0; i < 16; i += 2) weft_traffic_add_demand(t, i, i + 1, 1e6);
  settings(&s, 8, -1);
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_strides(f, &st), 1);
  CHECK_EQ_INT(weft_fabric_mp_links(f, &mp), 48);
  weft_fabric_free(f);
  weft_traffic_free(t);
}

/* Matching rounds by hand on 4 servers, no AllReduce (one ring of stride 1
 * keeps them connected: the only candidate k <= 2 coprime with 4 is 1).
 * Demand 0-1: 100, 2-3: 100, 0-2: 60, 1-3: 60 bytes; d = 6, 4 rounds.
 * A pair's weight is its demand / (its links + 1).
 *   round 1: {01, 23} = 200 beats {02, 13} = 120      -> 01, 23 (now 50 each)
 *   round 2: {02, 13} = 120 beats {01, 23} = 100      -> 02, 13 (now 30 each)
 *   round 3: {01, 23} = 100 beats {02, 13} = 60       -> 01, 23 (now 33.3)
 *   round 4: {01, 23} = 66.7 beats {02, 13} = 60      -> 01, 23
 * {03, 12} have no demand and are never linked. */
static void test_topo_matching_rounds(void) {
  WeftTraffic *t = weft_traffic_create(4);
  weft_traffic_add_demand(t, 0, 1, 100);
  weft_traffic_add_demand(t, 2, 3, 100);
  weft_traffic_add_demand(t, 0, 2, 60);
  weft_traffic_add_demand(t, 3, 1, 60);
  WeftTopoSettings s;
  settings(&s, 6, -1);
  WeftFabric *f = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  const int *st, *mp;
  CHECK_EQ_INT(weft_fabric_strides(f, &st), 1);
  CHECK_EQ_INT(st[0], 1);
  CHECK_EQ_INT(weft_fabric_mp_links(f, &mp), 8);
  CHECK_EQ_INT(mp_count(f, 0, 1), 3);
  CHECK_EQ_INT(mp_count(f, 2, 3), 3);
  CHECK_EQ_INT(mp_count(f, 0, 2), 1);
  CHECK_EQ_INT(mp_count(f, 1, 3), 1);
  CHECK_EQ_INT(max_degree(weft_fabric_graph(f), 4), 6);
  weft_fabric_free(f);
  weft_traffic_free(t);

  /* Only 0-1 and 2-3: round 1 links exactly them, round 2 again (all other
   * weights are 0 and skipped). */
  t = weft_traffic_create(4);
  weft_traffic_add_demand(t, 0, 1, 100);
  weft_traffic_add_demand(t, 3, 2, 100);
  settings(&s, 3, -1);  /* 2 ring ports, 1 round */
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_mp_links(f, &mp), 2);
  CHECK_EQ_INT(mp_count(f, 0, 1), 1);
  CHECK_EQ_INT(mp_count(f, 2, 3), 1);
  weft_fabric_free(f);
  settings(&s, 4, -1);  /* 2 rounds */
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_mp_links(f, &mp), 4);
  CHECK_EQ_INT(mp_count(f, 0, 1), 2);
  CHECK_EQ_INT(mp_count(f, 2, 3), 2);
  weft_fabric_free(f);
  weft_traffic_free(t);
}

/* A larger random case: degree <= d, links in pairs of B, connected, ring
 * links are the strides' and the strides TotientPerms', model-parallel
 * links only on demand pairs, demand paths are shortest (BFS on the whole
 * graph) and at most kpaths, ring hops follow coin-change routes over ring
 * links only (as short as BFS on the ring-only graph), bill of materials. */
static void test_topo_build_properties(void) {
  const int n = 64, d = 8;
  uint64_t seed = 7;
  WeftTraffic *t = traffic_all(n, 4e6);
  for (int i = 0; i < 3 * n; i++) {
    int a = (int)(rng_next(&seed) % n), b = (int)(rng_next(&seed) % n);
    if (a != b) weft_traffic_add_demand(t, a, b, (double)(1 + rng_next(&seed) % 1000) * 1e3);
  }
  WeftTopoSettings s;
  settings(&s, d, -1);
  s.port_gbps = 50;
  s.kpaths = 3;
  WeftFabric *f = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  if (!f) {
    weft_traffic_free(t);
    return;
  }
  const WeftGraph *g = weft_fabric_graph(f);
  CHECK_EQ_INT(weft_fabric_kind(f), WEFT_FABRIC_TOPOOPT);
  CHECK_EQ_INT(weft_fabric_servers(f), n);
  CHECK_EQ_INT(weft_graph_nodes(g), n);
  CHECK(max_degree(g, n) <= d);
  const int *st, *mp;
  int m = weft_fabric_strides(f, &st), nmp = weft_fabric_mp_links(f, &mp);
  CHECK(m >= 1);
  int ref[WEFT_TOPO_MAX_DEGREE], diam;
  CHECK_EQ_INT(weft_totient_strides(n, n, m, ref, &diam), m);
  for (int i = 0; i < m; i++) CHECK_EQ_INT(st[i], ref[i]);
  CHECK_EQ_INT(weft_graph_nlinks(g), 2 * (m * n + nmp));
  /* every round is a perfect matching: demand pairs first, then the spare
   * ports paired far apart (n even: n/2 links a round) */
  CHECK_EQ_INT(nmp % (n / 2), 0);
  int with_demand = 0;
  for (int i = 0; i < nmp; i++) {
    CHECK(mp[2 * i] != mp[2 * i + 1]);
    with_demand += weft_traffic_demand(t, mp[2 * i], mp[2 * i + 1]) > 0 ||
                   weft_traffic_demand(t, mp[2 * i + 1], mp[2 * i]) > 0;
  }
  CHECK(with_demand > 0);
  CHECK_NEAR(f->bom.nic_gbps, (double)n * d * 50, 0);
  CHECK_NEAR(f->bom.transceiver_gbps, (double)n * d * 50, 0);
  CHECK_NEAR(f->bom.panel_ports, (double)n * d, 0);
  CHECK_NEAR(f->bom.fibers, (double)n * d, 0);
  CHECK_EQ_INT(f->kpaths, 3);

  Adj a;
  adj_build(g, &a);
  char *ring_only = calloc((size_t)a.L + 1, 1);
  for (int l = 0; l < a.L; l++) {
    double bw;
    weft_graph_link(g, l, NULL, NULL, &bw);
    CHECK_NEAR(bw, 50, 0);
    int found = 0; /* its reverse exists */
    for (int k = a.off[a.to[l]]; k < a.off[a.to[l] + 1] && !found; k++)
      found = a.to[a.lk[k]] == a.from[l];
    CHECK(found);
    for (int i = 0; i < m; i++) {
      int dv = ((a.to[l] - a.from[l]) % n + n) % n;
      if (dv == st[i] || dv == n - st[i]) ring_only[l] = 1;
    }
  }
  int *dist = malloc((size_t)n * sizeof *dist), *rdist = malloc((size_t)n * sizeof *rdist);
  int links[4096], len[16];
  bfs(&a, 0, dist, NULL);
  for (int v = 0; v < n; v++) CHECK(dist[v] >= 0);  /* connected */
  for (int src = 0; src < n; src++) {
    bfs(&a, src, dist, NULL);
    bfs(&a, src, rdist, ring_only);
    for (int dst = 0; dst < n; dst++) {
      if (dst == src) continue;
      int np = weft_fabric_paths(f, src, dst, links, 4096, len, 16);
      int demand = weft_traffic_demand(t, src, dst) > 0 || weft_traffic_demand(t, dst, src) > 0;
      CHECK(np >= 1 && np <= (demand ? 3 : 1));
      for (int p = 0, off = 0; p < np; off += len[p++]) {
        CHECK(path_ok(&a, links + off, len[p], src, dst));
        if (demand) {
          CHECK_EQ_INT(len[p], dist[dst]);
        } else {
          CHECK_EQ_INT(len[p], rdist[dst]);
          for (int i = 0; i < len[p]; i++) CHECK(ring_only[links[off + i]]);
        }
      }
    }
  }
  free(dist);
  free(rdist);
  free(ring_only);
  adj_free(&a);
  weft_fabric_free(f);
  weft_traffic_free(t);
}

/* Rings: a group that is a whole residue class runs two rings per stride
 * (successors i + k and i - k), any other two rings in member order, forward
 * and back. n = 16: the DP
 * groups {c, c+4, c+8, c+12} are classes mod 4 (g = 4, strides 4 k with k
 * coprime to 4 up to the mirror: k = 1, stride 4); the TP blocks
 * {4b..4b+3} are not, and their hops cross classes, so matchings link them. */
static void test_topo_rings(void) {
  int n = 16;
  WeftTraffic *t = weft_traffic_create(n);
  int mem[4];
  for (int c = 0; c < 4; c++) {
    for (int i = 0; i < 4; i++) mem[i] = c + 4 * i;
    weft_traffic_add_allreduce(t, mem, 4, 1e6);
    for (int i = 0; i < 4; i++) mem[i] = 4 * c + i;
    weft_traffic_add_allreduce(t, mem, 4, 1e6);
  }
  WeftTopoSettings s;
  settings(&s, 8, -1);
  WeftFabric *f = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  if (!f) {
    weft_traffic_free(t);
    return;
  }
  const int *st, *mp;
  CHECK_EQ_INT(weft_fabric_strides(f, &st), 1);
  CHECK_EQ_INT(st[0], 4);
  CHECK(max_degree(weft_fabric_graph(f), n) <= 8);
  int nmp = weft_fabric_mp_links(f, &mp);
  CHECK(nmp >= 1);
  for (int i = 0; i < nmp; i++) CHECK_EQ_INT(mp[2 * i] / 4, mp[2 * i + 1] / 4);  /* in a block */
  int succ[4 * WEFT_TOPO_MAX_DEGREE];
  for (int a = 0; a < t->nallreduce; a++) {
    const WeftAllReduce *ar = &t->ar[a];
    int nr = f->rings(f, ar, succ, WEFT_TOPO_MAX_DEGREE);
    CHECK_EQ_INT(nr, 2);
    for (int i = 0; i < 4; i++) {
      CHECK_EQ_INT(succ[i], (i + 1) % 4);  /* k = 1 or member order ... */
      CHECK_EQ_INT(succ[4 + i], (i + 3) % 4);  /* ... and the way back */
    }
  }
  weft_fabric_free(f);
  weft_traffic_free(t);

  /* Over all 12 with 2 strides {1, 5}: ring r's successor of i is i + s_r. */
  t = traffic_all(12, 1e6);
  settings(&s, 4, -1);
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  int succ12[12 * WEFT_TOPO_MAX_DEGREE];
  CHECK_EQ_INT(f->rings(f, &t->ar[0], succ12, WEFT_TOPO_MAX_DEGREE), 4);
  for (int i = 0; i < 12; i++) {
    CHECK_EQ_INT(succ12[i], (i + 1) % 12);
    CHECK_EQ_INT(succ12[12 + i], (i + 11) % 12);
    CHECK_EQ_INT(succ12[24 + i], (i + 5) % 12);
    CHECK_EQ_INT(succ12[36 + i], (i + 7) % 12);
  }
  CHECK_EQ_INT(f->rings(f, &t->ar[0], succ12, 1), 1);  /* max_rings respected */
  /* A group of 3 (not a class): member order, hops by coin-change. */
  int three[3] = {0, 3, 7};
  WeftAllReduce sub = {3, three, 1e6};
  CHECK_EQ_INT(f->rings(f, &sub, succ12, WEFT_TOPO_MAX_DEGREE), 2);
  CHECK_EQ_INT(succ12[0], 1);
  CHECK_EQ_INT(succ12[2], 0);
  CHECK_EQ_INT(succ12[3], 2);
  weft_fabric_free(f);
  weft_traffic_free(t);

  /* A group whose size does not divide n gets no rings of its own: the
   * rings span all n and its hops route over them. */
  t = weft_traffic_create(8);
  weft_traffic_add_allreduce(t, three, 3, 1e6);
  settings(&s, 4, -1);
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_strides(f, &st), 2);  /* candidates for 8: k = 1, 3 */
  CHECK_EQ_INT(st[0], 1);
  CHECK_EQ_INT(st[1], 3);
  weft_fabric_free(f);
  weft_traffic_free(t);
}

/* The flow simulation on a TopoOpt fabric, by hand: an AllReduce over 8
 * servers of S = 8 MB with d = 2 (one bidirectional ring, stride 1 or 3,
 * each hop one link of 12.5 GB/s = 100 Gbit/s each way): every member sends
 * 2 (7/8) S = 14 MB, half to each ring neighbour at the full link rate,
 * 7e6 / 12.5 = 560000 ns, in 16 flows. */
static void test_topo_simulate_ring(void) {
  WeftTraffic *t = traffic_all(8, 8e6);
  WeftTopoSettings s;
  settings(&s, 2, -1);
  WeftFabric *f = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  WeftTopoTime tt;
  CHECK_EQ_INT(weft_fabric_simulate(f, t, &tt, &e), WEFT_OK);
  CHECK_NEAR(tt.comm_ns, 560000.0, 1e-9);
  CHECK_EQ_INT((long)tt.flows, 16);
  weft_fabric_free(f);
  weft_traffic_free(t);
}

static void test_topo_errors(void) {
  WeftTraffic *t = traffic_all(8, 1e6);
  WeftTopoSettings s;
  WeftFabric *f = NULL;
  WeftError e;
  settings(&s, 0, -1);
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "degree") && f == NULL);
  settings(&s, WEFT_TOPO_MAX_DEGREE + 1, -1);
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_EINPUT);
  settings(&s, 4, 3);
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "ar_degree"));
  settings(&s, 4, 6);
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "ar_degree"));
  settings(&s, 4, -1);
  s.kpaths = 0;
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "kpaths"));
  settings(&s, 4, -1);
  s.port_gbps = 0;
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "port_gbps"));
  settings(&s, 4, -1);
  CHECK_EQ_INT(weft_topo_build(NULL, &s, &f, &e), WEFT_EINVAL);
  CHECK_EQ_INT(weft_topo_build(t, &s, NULL, &e), WEFT_EINVAL);
  /* d = 1: a port per server wires a matching, and a ring over 8 servers
   * cannot run on a matching: some hop has no route. */
  settings(&s, 1, -1);
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_EINPUT);
  CHECK(f == NULL && strstr(e.msg, "cannot reach") != NULL);
  /* ar_degree 0 and demand only between 0 and 1: 2 and 3 never meet. */
  weft_traffic_free(t);
  t = weft_traffic_create(4);
  weft_traffic_add_demand(t, 0, 1, 1e6);
  weft_traffic_add_demand(t, 2, 3, 1e6);
  weft_traffic_add_demand(t, 1, 2, 1e6);
  settings(&s, 1, 0);  /* one round: 1-2 or {0-1, 2-3}, never all three */
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "degree"));
  weft_traffic_free(t);
  t = weft_traffic_create(1);
  settings(&s, 4, -1);
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "nservers"));
  weft_traffic_free(t);
}

/* 1,024 servers, d = 8: an AllReduce of S over all and 4,096 seeded random
 * pairs. Every server uses at most 8 ports; the AllReduce alone on rings
 * only (ar_degree 8) takes 2 (n-1)/n S / (2 x 4 rings x B) by hand: every
 * ring link carries one hop's share at the full port rate (the grouped
 * simulation must keep this exact); more than 8192 servers is refused. */
static void test_topo_scale_1024(void) {
  const int n = 1024;
  const double S = 64e6, B = 12.5;
  WeftTraffic *t = weft_traffic_create(n);
  int *m = malloc(n * sizeof *m);
  for (int i = 0; i < n; i++) m[i] = i;
  CHECK_EQ_INT(weft_traffic_add_allreduce(t, m, n, S), WEFT_OK);
  unsigned long long x = 12345;
  while (t->ndemand < 4096) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    int a = (int)((x >> 33) % n), b = (int)((x >> 13) % n);
    if (a != b) weft_traffic_add_demand(t, a, b, 1e6 * (double)(1 + (x >> 50) % 100));
  }
  WeftTopoSettings s;
  WeftFabric *f = NULL;
  WeftError e;
  settings(&s, 8, -1);
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  if (f) CHECK(max_degree(weft_fabric_graph(f), n) <= 8);
  WeftTopoTime tt;
  if (f) CHECK_EQ_INT(weft_fabric_simulate(f, t, &tt, &e), WEFT_OK);
  weft_fabric_free(f);
  weft_traffic_free(t);
  t = weft_traffic_create(n);
  weft_traffic_add_allreduce(t, m, n, S);
  settings(&s, 8, 8);
  s.port_gbps = B;
  f = NULL;
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_OK);
  if (f) {
    CHECK(max_degree(weft_fabric_graph(f), n) <= 8);
    CHECK_EQ_INT(weft_fabric_simulate(f, t, &tt, &e), WEFT_OK);
    CHECK_NEAR(tt.comm_ns, 2.0 * (n - 1) / n * S / (8 * B), 1e-6);
  }
  weft_fabric_free(f);
  weft_traffic_free(t);
  free(m);
  t = weft_traffic_create(8193);
  f = NULL;
  CHECK_EQ_INT(weft_topo_build(t, &s, &f, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "nservers"));
  weft_traffic_free(t);
}

/* The port split by simulation: BEST's fabric is as fast as the fastest of
 * every even split 0..d that can be wired, simulated one by one (brute
 * force), ties to more ring ports; RINGS gives every port to rings;
 * PROPORTIONAL is weft_topo_build. Three jobs on 16 servers, d = 4: one
 * AllReduce over all (rings win), fixed pairs (links between the pairs
 * win), and both. */
static void test_topo_port_split_choice(void) {
  for (int job = 0; job < 3; job++) {
    WeftTraffic *t = weft_traffic_create(16);
    int all[16];
    for (int i = 0; i < 16; i++) all[i] = i;
    if (job != 1) weft_traffic_add_allreduce(t, all, 16, 8e6);
    for (int i = 0; job != 0 && i < 16; i += 2) weft_traffic_add_demand(t, i, i + 1, 4e6);
    WeftTopoSettings s;
    weft_topo_settings_default(&s);
    WeftError err;
    double brute = HUGE_VAL;
    int brute_ar = -1;
    for (int ar = 4; ar >= 0; ar -= 2) {
      WeftTopoSettings c = s;
      c.ar_degree = ar;
      WeftFabric *f = NULL;
      WeftTopoTime tt;
      if (weft_topo_build(t, &c, &f, &err) == WEFT_OK &&
          weft_fabric_simulate(f, t, &tt, &err) == WEFT_OK && tt.time_ns < brute) {
        brute = tt.time_ns;
        brute_ar = ar;
      }
      weft_fabric_free(f);
    }
    CHECK(brute_ar >= 0);
    WeftFabric *f = NULL;
    WeftTopoTime tt;
    int ar = -1;
    CHECK_EQ_INT(weft_topo_build_split(t, &s, WEFT_PORT_SPLIT_BEST, &f, &ar, &err), WEFT_OK);
    CHECK_EQ_INT(weft_fabric_simulate(f, t, &tt, &err), WEFT_OK);
    CHECK_NEAR(tt.time_ns, brute, 1e-12);
    CHECK_EQ_INT(ar, brute_ar);
    if (job == 0) CHECK_EQ_INT(ar, 4); /* pure AllReduce: every port to rings */
    weft_fabric_free(f);
    f = NULL;
    CHECK_EQ_INT(weft_topo_build_split(t, &s, WEFT_PORT_SPLIT_RINGS, &f, &ar, &err), WEFT_OK);
    CHECK_EQ_INT(ar, 4);
    weft_fabric_free(f);
    f = NULL;
    CHECK_EQ_INT(weft_topo_build_split(t, &s, WEFT_PORT_SPLIT_PROPORTIONAL, &f, &ar, &err), WEFT_OK);
    CHECK(ar >= 2 && ar <= 4 && ar % 2 == 0);
    weft_fabric_free(f);
    weft_traffic_free(t);
  }
  /* A split that cannot be wired is skipped, not fatal: fixed pairs alone
   * (0 ring ports) leave the fabric disconnected, so BEST keeps a ring. */
  WeftTraffic *t = weft_traffic_create(16);
  for (int i = 0; i < 16; i += 2) weft_traffic_add_demand(t, i, i + 1, 4e6);
  weft_traffic_add_demand(t, 0, 15, 1e3);  /* a pair the matchings alone cannot reach */
  WeftTopoSettings s;
  weft_topo_settings_default(&s);
  WeftFabric *f = NULL;
  WeftError err;
  int ar = -1;
  CHECK_EQ_INT(weft_topo_build_split(t, &s, WEFT_PORT_SPLIT_BEST, &f, &ar, &err), WEFT_OK);
  CHECK(f != NULL && ar >= 2);
  weft_fabric_free(f);
  weft_traffic_free(t);
}

/* Two fabrics have the same wiring: strides and model-parallel links alike. */
static int same_wiring(const WeftFabric *a, const WeftFabric *b) {
  const int *sa, *sb, *ma, *mb;
  int na = weft_fabric_strides(a, &sa), nb = weft_fabric_strides(b, &sb);
  int ka = weft_fabric_mp_links(a, &ma), kb = weft_fabric_mp_links(b, &mb);
  return na == nb && ka == kb && !memcmp(sa, sb, (size_t)na * sizeof *sa) &&
         (!ka || !memcmp(ma, mb, 2 * (size_t)ka * sizeof *ma));
}

/* The port-split candidates share their matching rounds (finder.h): on 64
 * servers, d = 8, an AllReduce over all and random pairs, the splits 6, 4
 * and 2 (2, 4, 6 rounds of n / 2 links) built with one memo wire exactly as
 * they do alone, and only 6 matchings are computed instead of 12. BEST's
 * time comes back as a fresh simulation of its fabric gives it, and its
 * fabric is the one its split wires alone. */
static void test_topo_split_memo(void) {
  const int n = 64;
  WeftTraffic *t = weft_traffic_create(n);
  int all[64];
  for (int i = 0; i < n; i++) all[i] = i;
  weft_traffic_add_allreduce(t, all, n, 64e6);
  uint64_t seed = 7;
  while (t->ndemand < 256) {
    int a = (int)(rng_next(&seed) % n), b = (int)(rng_next(&seed) % n);
    if (a != b) weft_traffic_add_demand(t, a, b, 1e5 * (double)(1 + rng_next(&seed) % 100));
  }
  WeftTopoSettings s;
  weft_topo_settings_default(&s);
  s.degree = 8;
  WeftError e;
  FinderMemo *memo = finder_memo_create();
  CHECK(memo != NULL);
  for (int ar = 6; memo && ar >= 2; ar -= 2) {
    WeftTopoSettings c = s;
    c.ar_degree = ar;
    WeftFabric *with = NULL, *alone = NULL;
    CHECK_EQ_INT(finder_build(t, &c, memo, &with, &e), WEFT_OK);
    CHECK_EQ_INT(weft_topo_build(t, &c, &alone, &e), WEFT_OK);
    const int *mp;
    if (with && alone) {
      CHECK(same_wiring(with, alone));
      CHECK_EQ_INT(weft_fabric_mp_links(with, &mp), (8 - ar) * n / 2);
    }
    weft_fabric_free(with);
    weft_fabric_free(alone);
  }
  CHECK_EQ_INT(finder_memo_size(memo), 6);
  finder_memo_free(memo);
  WeftFabric *best = NULL, *alone = NULL;
  WeftTopoTime got, fresh;
  int ar = -1;
  CHECK_EQ_INT(weft_topo_build_best(t, &s, &best, &ar, &got, &e), WEFT_OK);
  if (best) {
    CHECK_EQ_INT(weft_fabric_simulate(best, t, &fresh, &e), WEFT_OK);
    CHECK(got.time_ns == fresh.time_ns && got.ar_ns == fresh.ar_ns && got.mp_ns == fresh.mp_ns);
    WeftTopoSettings c = s;
    c.ar_degree = ar;
    CHECK_EQ_INT(weft_topo_build(t, &c, &alone, &e), WEFT_OK);
    if (alone) CHECK(same_wiring(best, alone));
  }
  weft_fabric_free(best);
  weft_fabric_free(alone);
  weft_traffic_free(t);
}

/* Several fabrics simulated on threads: each result exactly the one
 * simulation alone gives, for 1 and 3 threads; a fabric of another size
 * fails, and the first such (lowest index) gives the error. */
static void test_topo_simulate_many(void) {
  const int n = 32;
  WeftTraffic *t = weft_traffic_create(n), *t2 = weft_traffic_create(16);
  int all[32];
  for (int i = 0; i < n; i++) all[i] = i;
  weft_traffic_add_allreduce(t, all, n, 8e6);
  for (int i = 0; i + 3 < n; i += 3) weft_traffic_add_demand(t, i, i + 3, 1e6 * (1 + i % 5));
  WeftTopoSettings s;
  weft_topo_settings_default(&s);
  WeftFabric *f[4] = {NULL, NULL, NULL, NULL}, *small = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_topo_build(t, &s, &f[0], &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_switch(n, 50, &f[1], &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_fattree(n, 50, 8, 2, 2, &f[2], &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_expander(n, 4, 12.5, 3, &f[3], &e), WEFT_OK);
  CHECK_EQ_INT(weft_fabric_switch(16, 50, &small, &e), WEFT_OK);
  if (!f[0] || !f[1] || !f[2] || !f[3] || !small) goto done;
  WeftTopoTime alone[4], many[4];
  for (int k = 0; k < 4; k++) CHECK_EQ_INT(weft_fabric_simulate(f[k], t, &alone[k], &e), WEFT_OK);
  for (int threads = 1; threads <= 3; threads += 2) {
    memset(many, 0, sizeof many);
    CHECK_EQ_INT(weft_fabric_simulate_many((const WeftFabric *const *)f, 4, t, threads, many, &e),
                 WEFT_OK);
    for (int k = 0; k < 4; k++)
      CHECK(many[k].time_ns == alone[k].time_ns && many[k].comm_ns == alone[k].comm_ns &&
            many[k].flows == alone[k].flows);
  }
  const WeftFabric *mixed[3] = {f[1], small, small};
  CHECK_EQ_INT(weft_fabric_simulate_many(mixed, 3, t, 2, many, &e), WEFT_EINVAL);
  CHECK(strstr(e.msg, "(16)") != NULL);
  CHECK_EQ_INT(weft_fabric_simulate_many(mixed, 0, t, 2, many, &e), WEFT_OK);
  mixed[1] = NULL;
  CHECK_EQ_INT(weft_fabric_simulate_many(mixed, 2, t, 2, many, &e), WEFT_EINVAL);
done:
  for (int k = 0; k < 4; k++) weft_fabric_free(f[k]);
  weft_fabric_free(small);
  weft_traffic_free(t);
  weft_traffic_free(t2);
}

const TestCase suite_topo[] = {
    {"topo/split_memo", test_topo_split_memo},
    {"topo/simulate_many", test_topo_simulate_many},
    {"topo/port_split_choice", test_topo_port_split_choice},
    {"topo_scale_1024", test_topo_scale_1024},
    {"topo_defaults", test_topo_defaults},
    {"topo_totient_references", test_topo_totient_references},
    {"topo_totient_hamiltonian", test_topo_totient_hamiltonian},
    {"topo_totient_args", test_topo_totient_args},
    {"topo_coin_change", test_topo_coin_change},
    {"topo_port_split", test_topo_port_split},
    {"topo_matching_rounds", test_topo_matching_rounds},
    {"topo_build_properties", test_topo_build_properties},
    {"topo_rings", test_topo_rings},
    {"topo_simulate_ring", test_topo_simulate_ring},
    {"topo_errors", test_topo_errors},
    {0, 0},
};
