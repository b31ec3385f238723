/* test_traffic.c — job traffic: the demand hash against a dense oracle,
 * the CSV reader and its errors, traffic derived from zoo models by hand,
 * and the flow simulation on fabrics with hand-computed times. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "topo/fabric.h"
#include "weft.h"

/* Random adds merged by pair agree with a dense matrix kept alongside. */
static void test_demand_merge(void) {
  enum { N = 37 };
  static double dense[N][N];
  memset(dense, 0, sizeof dense);
  WeftTraffic *t = weft_traffic_create(N);
  unsigned x = 12345;
  for (int k = 0; k < 5000; k++) {
    x = x * 1103515245u + 12345u;
    int s = (int)(x >> 8) % N;
    x = x * 1103515245u + 12345u;
    int d = (int)(x >> 8) % N;
    if (s == d) continue;
    double b = (double)(k % 17 + 1);
    CHECK_EQ_INT(weft_traffic_add_demand(t, s, d, b), 0);
    dense[s][d] += b;
  }
  int pairs = 0;
  for (int s = 0; s < N; s++)
    for (int d = 0; d < N; d++) {
      CHECK(weft_traffic_demand(t, s, d) == dense[s][d]);
      pairs += dense[s][d] > 0;
    }
  CHECK_EQ_INT(t->ndemand, pairs);
  CHECK_EQ_INT(weft_traffic_add_demand(t, 3, 3, 1), WEFT_EINVAL);
  CHECK_EQ_INT(weft_traffic_add_demand(t, 0, N, 1), WEFT_EINVAL);
  int dup[3] = {1, 2, 1};
  CHECK_EQ_INT(weft_traffic_add_allreduce(t, dup, 3, 10), WEFT_EINVAL);
  int ok[3] = {5, 1, 9};
  CHECK_EQ_INT(weft_traffic_add_allreduce(t, ok, 3, 10), 0);
  CHECK_EQ_INT(t->ar[0].members[0], 1); /* sorted */
  CHECK_EQ_INT(t->ar[0].members[2], 9);
  weft_traffic_free(t);
}

static const char *write_tmp(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/weft_traffic_%d.csv", (int)getpid());
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

static void test_csv(void) {
  WeftTraffic *t = NULL;
  WeftError e;
  const char *p = write_tmp("src,dst,bytes\n# a comment\n0,1,100\n 1 , 0 , 50 \n0,1,25\n\n"
                            "allreduce,1e6,0,2,3\ncompute_ns,5000\n");
  CHECK_EQ_INT(weft_traffic_read_csv(p, 4, &t, &e), 0);
  if (t) {
    CHECK(weft_traffic_demand(t, 0, 1) == 125.0);
    CHECK(weft_traffic_demand(t, 1, 0) == 50.0);
    CHECK_EQ_INT(t->nallreduce, 1);
    CHECK_EQ_INT(t->ar[0].size, 3);
    CHECK(t->ar[0].size_bytes == 1e6);
    CHECK(t->compute_ns == 5000.0);
  }
  weft_traffic_free(t);
  static const struct {
    const char *text, *field;
    int line;
  } bad[] = {{"0,1,100\n0,9,1\n", "dst", 2},
             {"0,1,-3\n", "bytes", 1},
             {"0,1\n", NULL, 1},
             {"2,2,5\n", "dst", 1},
             {"allreduce,10,1\n", "allreduce", 1},
             {"allreduce,10,1,1\n", "member", 1},
             {"0,1,1\nx,1,1\n", "src", 2}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    t = NULL;
    p = write_tmp(bad[k].text);
    CHECK_EQ_INT(weft_traffic_read_csv(p, 4, &t, &e), WEFT_EINPUT);
    CHECK(t == NULL);
    CHECK_EQ_INT(e.line, bad[k].line);
    if (bad[k].field) CHECK(!strcmp(e.field, bad[k].field));
  }
  unlink(p);
}

/* DLRM on 8 servers, tables placed by hand: every table's server sends
 * (batch / n) x dim x 2 bytes to each other server and gets as much back;
 * the MLPs' gradients are one AllReduce over all 8. */
static void test_dlrm_traffic_by_hand(void) {
  WeftModel m;
  WeftDevice dev;
  WeftError e;
  if (weft_zoo_model("data/zoo", "dlrm", &m, &e) || weft_zoo_device("data/zoo", "a100", &dev, &e)) {
    CHECK(0);
    return;
  }
  int place[26];
  for (int k = 0; k < 26; k++) place[k] = k < 20 ? 3 : 5; /* 20 tables on 3, 6 on 5 */
  WeftTraffic *t = NULL;
  CHECK_EQ_INT(weft_traffic_from_model(&m, &dev, 8, 1, place, &t, &e), 0);
  if (!t) return;
  double per = 65536.0 / 8 * 128 * 2; /* one table, one direction, bytes */
  CHECK_NEAR(weft_traffic_demand(t, 3, 0), 20 * per, 1e-12);
  CHECK_NEAR(weft_traffic_demand(t, 0, 3), 20 * per, 1e-12);
  CHECK_NEAR(weft_traffic_demand(t, 5, 7), 6 * per, 1e-12);
  CHECK_NEAR(weft_traffic_demand(t, 3, 5), 20 * per + 6 * per, 1e-12); /* 3's tables to 5 ... */
  CHECK(weft_traffic_demand(t, 0, 1) == 0.0);
  CHECK_EQ_INT(t->nallreduce, 1);
  CHECK_EQ_INT(t->ar[0].size, 8);
  /* the busiest server holds 20 tables: moving 5 of them to server 0 cuts compute */
  WeftTraffic *t2 = NULL;
  for (int k = 0; k < 5; k++) place[k] = 0;
  CHECK_EQ_INT(weft_traffic_from_model(&m, &dev, 8, 1, place, &t2, &e), 0);
  if (t2) CHECK(t2->compute_ns < t->compute_ns);
  weft_traffic_free(t2);
  weft_traffic_free(t);
}

/* BERT-large on 8 servers with TP 2: the TP AllReduces are 4 groups of 2
 * consecutive servers, the data-parallel ones 2 groups of 4 residue
 * classes (i, i+2, i+4, i+6). */
static void test_transformer_groups(void) {
  WeftModel m;
  WeftDevice dev;
  WeftError e;
  if (weft_zoo_model("data/zoo", "bert-large", &m, &e) ||
      weft_zoo_device("data/zoo", "a100", &dev, &e)) {
    CHECK(0);
    return;
  }
  WeftTraffic *t = NULL;
  CHECK_EQ_INT(weft_traffic_from_model(&m, &dev, 8, 2, NULL, &t, &e), 0);
  if (!t) return;
  CHECK_EQ_INT(t->nallreduce, 4 + 2);
  int seen_tp = 0, seen_dp = 0;
  for (int a = 0; a < t->nallreduce; a++) {
    const WeftAllReduce *ar = &t->ar[a];
    if (ar->size == 2) seen_tp += ar->members[1] == ar->members[0] + 1 && ar->members[0] % 2 == 0;
    if (ar->size == 4)
      seen_dp += ar->members[1] - ar->members[0] == 2 && ar->members[3] - ar->members[0] == 6;
  }
  CHECK_EQ_INT(seen_tp, 4);
  CHECK_EQ_INT(seen_dp, 2);
  CHECK(t->compute_ns > 0);
  CHECK_EQ_INT(t->ndemand, 0);
  WeftTraffic *bad = NULL;
  CHECK_EQ_INT(weft_traffic_from_model(&m, &dev, 8, 3, NULL, &bad, &e), WEFT_EINPUT);
  weft_traffic_free(t);
}

/* Flows on a hand-built line 0 - 1 - 2 (10 GB/s each way). AllReduce over
 * the three of 300 bytes, a bidirectional ring in member order: each member
 * sends 2 (2/3) 300 = 400 bytes, 200 to its successor (0->1, 1->2, 2->0 over
 * two hops) and 200 to its predecessor (0->2 over two hops, 1->0, 2->1);
 * every link carries two of these flows at 5 each: 40 ns. With 1000 bytes
 * 0 -> 2 as well: links 0->1 and 1->2 carry three flows (10/3 each), the
 * other two links two (5 each). The 5-flows end at 40 ns, the 10/3-flows
 * at 60 ns; the transfer has sent 200 by then and ends 80 ns later, at 140;
 * link 0->1 carried 200 + 200 + 1000 = 1400 bytes in 140 ns at 10: util 1. */
static void test_fabric_simulate_by_hand(void) {
  WeftGraph *g = weft_graph_create(3);
  weft_graph_add_link(g, 0, 1, 10);
  weft_graph_add_link(g, 1, 0, 10);
  weft_graph_add_link(g, 1, 2, 10);
  weft_graph_add_link(g, 2, 1, 10);
  WeftFabric *f = fabric_new(WEFT_FABRIC_EXPANDER, 3, g);
  CHECK_EQ_INT(fabric_index(f), 0);
  WeftTraffic *t = weft_traffic_create(3);
  int all[3] = {0, 1, 2};
  weft_traffic_add_allreduce(t, all, 3, 300);
  t->compute_ns = 1000;
  WeftTopoTime tt;
  WeftError e;
  CHECK_EQ_INT(weft_fabric_simulate(f, t, &tt, &e), 0);
  CHECK_NEAR(tt.comm_ns, 40.0, 1e-12);
  CHECK_NEAR(tt.time_ns, 1040.0, 1e-12);
  weft_traffic_add_demand(t, 0, 2, 1000);
  CHECK_EQ_INT(weft_fabric_simulate(f, t, &tt, &e), 0);
  CHECK_NEAR(tt.ar_ns, 60.0, 1e-9);
  CHECK_NEAR(tt.mp_ns, 140.0, 1e-9);
  CHECK_NEAR(tt.comm_ns, 140.0, 1e-9);
  CHECK_NEAR(tt.max_link_util, 1.0, 1e-9);
  CHECK_EQ_INT((int)tt.flows, 7);
  WeftTraffic *other = weft_traffic_create(4);
  CHECK_EQ_INT(weft_fabric_simulate(f, other, &tt, &e), WEFT_EINVAL);
  weft_traffic_free(other);
  weft_traffic_free(t);
  weft_fabric_free(f);
}

/* The alternating search on DLRM over 16 servers: the same seed gives the
 * same strategy and time; the time reported is the link-load estimate of
 * that strategy's traffic on the fabric returned (recomputed here), never
 * worse than where it started; one round spends the whole budget. */
static void test_search_properties(void) {
  WeftModel m;
  WeftDevice dev;
  WeftError e;
  if (weft_zoo_model("data/zoo", "dlrm", &m, &e) || weft_zoo_device("data/zoo", "a100", &dev, &e)) {
    CHECK(0);
    return;
  }
  WeftTopoSearch s;
  weft_topo_search_default(&s);
  s.model = &m;
  s.dev = &dev;
  s.nservers = 16;
  s.iterations = 120;
  s.rounds = 1;
  s.seed = 7;
  static WeftTopoSearchResult r1, r2;
  CHECK_EQ_INT(weft_topo_search(&s, &r1, &e), 0);
  CHECK_EQ_INT(weft_topo_search(&s, &r2, &e), 0);
  CHECK_EQ_INT(r1.iterations, 120);
  CHECK(r1.time_ns == r2.time_ns);
  CHECK(!memcmp(r1.placement, r2.placement, sizeof r1.placement));
  CHECK(r1.time_ns <= r1.first_time_ns);
  CHECK_EQ_INT(r1.ntables, 26);
  WeftTraffic *t = NULL;
  WeftTopoTime tt;
  CHECK_EQ_INT(weft_traffic_from_model(&m, &dev, 16, r1.tp, r1.placement, &t, &e), 0);
  if (t && r1.fabric) {
    CHECK_EQ_INT(weft_fabric_estimate(r1.fabric, t, &tt, &e), 0);
    CHECK_NEAR(tt.time_ns, r1.time_ns, 1e-12);
    /* the estimate bounds the simulation from below */
    WeftTopoTime sim;
    CHECK_EQ_INT(weft_fabric_simulate(r1.fabric, t, &sim, &e), 0);
    CHECK(sim.comm_ns >= tt.comm_ns * (1 - 1e-9));
  }
  weft_traffic_free(t);
  weft_fabric_free(r1.fabric);
  weft_fabric_free(r2.fabric);
}

const TestCase suite_traffic[] = {
    {"traffic_demand_merge", test_demand_merge},
    {"traffic_csv", test_csv},
    {"traffic_dlrm_by_hand", test_dlrm_traffic_by_hand},
    {"traffic_transformer_groups", test_transformer_groups},
    {"traffic_fabric_simulate_by_hand", test_fabric_simulate_by_hand},
    {"traffic_search_properties", test_search_properties},
    {0, 0},
};
