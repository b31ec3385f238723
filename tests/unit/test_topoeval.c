/* test_topoeval.c — TopoOpt's evaluation pieces by hand: pooled embeddings
 * independent of the bag size, replicated tables and model-parallel FC
 * layers in the traffic, the search's full budget and starting TP, the OCS
 * phase timing and the equal-cost interpolation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "topo/eval.h"
#include "weft.h"

static int load(const char *name, WeftModel *m, WeftDevice *dev) {
  WeftError e;
  return weft_zoo_model("data/zoo", name, m, &e) || weft_zoo_device("data/zoo", "a100", dev, &e);
}

/* dlrm with a bag of 100: a table's server still sends one pooled vector of
 * dim fp16 per (sample, table): global batch / n x 128 x 2 bytes. */
static void test_pooling_by_hand(void) {
  static WeftModel m;
  WeftDevice dev;
  if (load("dlrm", &m, &dev)) {
    CHECK(0);
    return;
  }
  m.pooling = 100;
  WeftTraffic *t = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_traffic_from_model(&m, &dev, 8, 1, NULL, &t, &e), 0);
  if (!t) return;
  /* round robin over 8 servers: 0 holds tables 0, 8, 16, 24 and sends their
   * pooled vectors to 1; 1 holds 1, 9, 17, 25 and gets 0's gradients back */
  CHECK_NEAR(weft_traffic_demand(t, 0, 1), (4 + 4) * (65536.0 / 8 * 128 * 2), 1e-12);
  weft_traffic_free(t);
}

/* Replicating every table removes all model-parallel demand and adds to the
 * data-parallel AllReduce the rows the batch touches: min(rows, batch x
 * bag) x dim x 2 bytes per table. A model-parallel FC layer swaps its
 * gradients (params x 2) for its input (batch x in x 2). */
static void test_strategy_by_hand(void) {
  static WeftModel m;
  WeftDevice dev;
  if (load("dlrm", &m, &dev)) {
    CHECK(0);
    return;
  }
  int place[26];
  for (int k = 0; k < 26; k++) place[k] = WEFT_TABLE_REPLICATED;
  WeftStrategy dp = {1, NULL, NULL}, rep = {1, place, NULL};
  WeftTraffic *a = NULL, *b = NULL, *c = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_traffic_from_strategy(&m, &dev, 8, &dp, &a, &e), 0);
  CHECK_EQ_INT(weft_traffic_from_strategy(&m, &dev, 8, &rep, &b, &e), 0);
  if (!a || !b) goto done;
  CHECK_EQ_INT(b->ndemand, 0);
  CHECK_EQ_INT(b->nallreduce, 1);
  double touched = fmin(m.table_rows, 65536.0 * m.pooling);
  CHECK_NEAR(b->ar[0].size_bytes - a->ar[0].size_bytes, 26 * touched * 128 * 2, 1e-9);
  /* top1 (the first top-MLP layer) is fully connected; split it */
  int l = m.nbottom;
  CHECK(weft_layer_splittable(&m, l));
  unsigned char mp[WEFT_MAX_MODEL_LAYERS] = {0};
  mp[l] = 1;
  WeftStrategy st = {1, NULL, mp};
  CHECK_EQ_INT(weft_traffic_from_strategy(&m, &dev, 8, &st, &c, &e), 0);
  if (!c) goto done;
  double in = (26.0 * 27 / 2) + 128; /* the dot interaction's width */
  double want = 65536.0 * in * 2 - m.layer[l].params * 2;
  CHECK_NEAR(c->ar[0].size_bytes - a->ar[0].size_bytes, want, 1e-9);
  /* a CNN conv layer cannot be split */
  static WeftModel cnn;
  if (!load("resnet50", &cnn, &dev)) {
    CHECK(!weft_layer_splittable(&cnn, 0));
    CHECK(weft_layer_splittable(&cnn, cnn.nlayers - 1));
  }
done:
  weft_traffic_free(a);
  weft_traffic_free(b);
  weft_traffic_free(c);
}

/* The search tries every move of its budget and starts from the TP asked. */
static void test_search_budget(void) {
  static WeftModel m;
  WeftDevice dev;
  if (load("bert-large", &m, &dev)) {
    CHECK(0);
    return;
  }
  WeftTopoSearch s;
  weft_topo_search_default(&s);
  s.model = &m;
  s.dev = &dev;
  s.nservers = 8;
  s.iterations = 40;
  s.rounds = 4;
  s.tp = 4;
  WeftTopoSearchResult *r = malloc(sizeof *r);
  WeftError e;
  if (!r) return;
  CHECK_EQ_INT(weft_topo_search(&s, r, &e), 0);
  CHECK_EQ_INT(r->iterations, 40);
  /* the first time is tp 4's traffic on the topology built for it (the
   * link-load bound), which differs from tp 1's */
  double first[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    WeftTraffic *t = NULL;
    WeftFabric *f = NULL;
    WeftTopoTime tt;
    CHECK_EQ_INT(weft_traffic_from_model(&m, &dev, 8, k ? 1 : 4, NULL, &t, &e), 0);
    if (t && !k) CHECK(t->nallreduce == 2 + 4); /* 2 TP blocks of 4, 4 DP classes of 2 */
    if (t) CHECK_EQ_INT(weft_topo_build(t, &s.topo, &f, &e), 0); /* the search's own split */
    if (f && !weft_fabric_estimate(f, t, &tt, &e)) first[k] = tt.time_ns;
    weft_fabric_free(f);
    weft_traffic_free(t);
  }
  CHECK(first[0] > 0 && first[0] != first[1]);
  CHECK(r->first_time_ns == first[0]);
  weft_fabric_free(r->fabric);
  free(r);
}

/* The per-layer strategy search on a fixed fabric (an ideal switch) finds
 * the best of every strategy, enumerated: VGG-16 on 8 servers, TP 1, 2, 4
 * or 8, and at TP 1 each of its 3 FC layers data or model parallel. */
static void test_search_layers_brute(void) {
  static WeftModel m;
  WeftDevice dev;
  if (load("vgg16", &m, &dev)) {
    CHECK(0);
    return;
  }
  WeftFabric *sw = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_fabric_switch(8, 50, &sw, &e), 0);
  if (!sw) return;
  int fc[WEFT_MAX_MODEL_LAYERS], nfc = 0;
  for (int l = 0; l < m.nlayers; l++)
    if (weft_layer_splittable(&m, l)) fc[nfc++] = l;
  CHECK_EQ_INT(nfc, 3);
  double best = HUGE_VAL;
  for (int tp = 1; tp <= 8; tp *= 2)
    for (int mask = 0; mask < (tp == 1 ? 1 << nfc : 1); mask++) {
      unsigned char mp[WEFT_MAX_MODEL_LAYERS] = {0};
      for (int k = 0; k < nfc; k++) mp[fc[k]] = (unsigned char)(mask >> k & 1);
      WeftStrategy st = {tp, NULL, mp};
      WeftTraffic *t = NULL;
      WeftTopoTime tt;
      if (!weft_traffic_from_strategy(&m, &dev, 8, &st, &t, &e) &&
          !weft_fabric_estimate(sw, t, &tt, &e) && tt.time_ns < best)
        best = tt.time_ns;
      weft_traffic_free(t);
    }
  WeftTopoSearch s;
  weft_topo_search_default(&s);
  s.model = &m;
  s.dev = &dev;
  s.nservers = 8;
  s.iterations = 300;
  s.seed = 3;
  s.layer_choice = 1;
  s.fixed = sw;
  WeftTopoSearchResult *r = malloc(sizeof *r);
  if (r) {
    CHECK_EQ_INT(weft_topo_search(&s, r, &e), 0);
    CHECK_NEAR(r->time_ns, best, 1e-12);
    int nmp = 0;
    for (int k = 0; k < nfc; k++) nmp += r->layer_mp[fc[k]];
    CHECK(nmp > 0); /* here model parallelism wins on some FC layer */
  }
  free(r);
  weft_fabric_free(sw);
}

/* The same seed and budget give the same strategy, time and wiring; the
 * time reported is the strategy's on the fabric returned. DLRM on 16
 * servers with per-table and per-layer choices, alternating with TopoOpt's
 * topology. */
static void test_search_reproducible(void) {
  static WeftModel m;
  WeftDevice dev;
  if (load("dlrm", &m, &dev)) {
    CHECK(0);
    return;
  }
  WeftTopoSearch s;
  weft_topo_search_default(&s);
  s.model = &m;
  s.dev = &dev;
  s.nservers = 16;
  s.iterations = 120;
  s.seed = 5;
  s.layer_choice = 1;
  WeftTopoSearchResult *r = calloc(2, sizeof *r);
  WeftError e;
  if (!r) return;
  for (int k = 0; k < 2; k++) CHECK_EQ_INT(weft_topo_search(&s, &r[k], &e), 0);
  if (r[0].fabric && r[1].fabric) {
    CHECK(r[0].time_ns == r[1].time_ns && r[0].tp == r[1].tp && r[0].accepted == r[1].accepted);
    CHECK(!memcmp(r[0].placement, r[1].placement, sizeof r[0].placement));
    CHECK(!memcmp(r[0].layer_mp, r[1].layer_mp, sizeof r[0].layer_mp));
    const int *a, *b;
    int na = weft_fabric_mp_links(r[0].fabric, &a), nb = weft_fabric_mp_links(r[1].fabric, &b);
    CHECK(na == nb && (!na || !memcmp(a, b, 2 * (size_t)na * sizeof *a)));
    WeftStrategy st = {r[0].tp, r[0].placement, r[0].layer_mp};
    WeftTraffic *t = NULL;
    WeftTopoTime tt;
    CHECK_EQ_INT(weft_traffic_from_strategy(&m, &dev, 16, &st, &t, &e), 0);
    if (t) CHECK_EQ_INT(weft_fabric_estimate(r[0].fabric, t, &tt, &e), 0);
    if (t) CHECK(tt.time_ns == r[0].time_ns && r[0].time_ns <= r[0].first_time_ns);
    weft_traffic_free(t);
  }
  weft_fabric_free(r[0].fabric);
  weft_fabric_free(r[1].fabric);
  free(r);
}

/* The sweep on 1 and on 3 threads: the same points in the same order, and
 * the progress counts every task once, ending at the total. */
static size_t last_done, last_total;
static void count_progress(void *ctx, size_t done, size_t total) {
  (void)ctx;
  last_done = done;
  last_total = total;
}

static void test_eval_threads(void) {
  static WeftModel m;
  WeftDevice dev;
  if (load("ncf", &m, &dev)) {
    CHECK(0);
    return;
  }
  m.global_batch = 128 * 4 * 16;
  WeftTopoEval e;
  weft_topo_eval_default(&e);
  e.model = &m;
  e.dev = &dev;
  e.nservers = 16;
  e.ndegrees = 1;
  e.nports = 2;
  e.port_gbps[0] = 25 / 8.0;
  e.port_gbps[1] = 100 / 8.0;
  e.nnics = 2;
  e.nic_gbps[0] = 25 / 8.0;
  e.nic_gbps[1] = 400 / 8.0;
  e.nreconf = 1;
  e.iterations = 20;
  e.simulate = 0;
  e.progress = count_progress;
  WeftEvalPoint *p[2] = {NULL, NULL};
  int n[2] = {0, 0};
  WeftError err;
  for (int k = 0; k < 2; k++) {
    e.threads = k ? 3 : 1;
    last_done = last_total = 0;
    CHECK_EQ_INT(weft_topo_eval(&e, &p[k], &n[k], &err), 0);
    CHECK(last_total == 2 + 3 * 2 && last_done == last_total); /* 2 (d, B) + 3 fabrics x 2 NICs */
  }
  /* per (d, B): TopoOpt, one OCS, the expander; per NIC: 3 fabrics */
  CHECK(n[0] == 2 * 3 + 3 * 2 && n[1] == n[0]);
  if (p[0] && p[1] && n[0] == n[1]) CHECK(!memcmp(p[0], p[1], (size_t)n[0] * sizeof *p[0]));
  if (p[0] && n[0] > 0)
    CHECK(p[0][0].fabric == WEFT_EVAL_TOPOOPT && p[0][n[0] - 1].fabric == WEFT_EVAL_FATTREE_OVERSUB);
  free(p[0]);
  free(p[1]);
}

/* OCS: phases one after the other, a reconfiguration before each of two. */
static void test_ocs_time(void) {
  CHECK_NEAR(topo_eval_ocs_time(10, 3, 4, 100), 10 + 3 + 4 + 200, 1e-15);
  CHECK_NEAR(topo_eval_ocs_time(10, 3, 0, 100), 13, 1e-15);
  /* 8 servers, one AllReduce of 8e6 bytes: on 2 rings of 12.5 GB/s each way
   * (d = 4, both rings), each member sends 2 x 7/8 x 8e6 over 4 link
   * directions of 12.5: 1.4e7 / 50 = 280000 ns */
  WeftTraffic *t = weft_traffic_create(8);
  int mem[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  if (!t) return;
  CHECK_EQ_INT(weft_traffic_add_allreduce(t, mem, 8, 8e6), 0);
  WeftTopoSettings ts;
  weft_topo_settings_default(&ts);
  double ar = -1, mp = -1;
  WeftError e;
  CHECK_EQ_INT(topo_eval_ocs(t, &ts, 0, &ar, &mp, &e), 0);
  CHECK_NEAR(ar, 2 * 7.0 / 8 * 8e6 / (4 * 12.5), 1e-9);
  CHECK(mp == 0);
  weft_traffic_free(t);
}

/* Equal cost: log-cost interpolation between the nearest points. */
static void test_time_at_cost(void) {
  WeftEvalPoint p[3];
  memset(p, 0, sizeof p);
  p[0].fabric = p[1].fabric = p[2].fabric = WEFT_EVAL_FATTREE;
  p[0].cost_usd = 100, p[0].time_ns = 50;
  p[1].cost_usd = 10000, p[1].time_ns = 10;
  p[2].cost_usd = 10000, p[2].time_ns = 20; /* same cost, slower: ignored */
  CHECK_NEAR(weft_eval_time_at_cost(p, 3, WEFT_EVAL_FATTREE, 1000), 30, 1e-12);
  CHECK_NEAR(weft_eval_time_at_cost(p, 3, WEFT_EVAL_FATTREE, 10000), 10, 1e-12);
  CHECK(isnan(weft_eval_time_at_cost(p, 3, WEFT_EVAL_FATTREE, 99)));
  CHECK(isnan(weft_eval_time_at_cost(p, 3, WEFT_EVAL_SWITCH, 1000)));
}

/* Price flips by hand: TopoOpt's point costs 1 panel port ($100) and takes
 * 10; the Fat-tree's curve goes from 1 switch port GB/s ($100, time 20) to
 * 10 ($1000, time 5). At TopoOpt's cost C the Fat-tree reads 20 - 15
 * log(C / c0) / log 10, which is 10 at log(C / c0) = 2/3 log 10: the panel
 * price x 10^(2/3), or the switch port price / 10^(2/3). A price neither
 * fabric pays flips nothing; without a reading at x1, nothing either. */
static void test_price_flip(void) {
  WeftEvalPoint p[3];
  memset(p, 0, sizeof p);
  p[0].fabric = WEFT_EVAL_TOPOOPT;
  p[0].qty[WEFT_PRICE_PATCH_PANEL] = 1, p[0].time_ns = 10;
  p[1].fabric = p[2].fabric = WEFT_EVAL_FATTREE;
  p[1].qty[WEFT_PRICE_SWITCH_PORT] = 1, p[1].time_ns = 20;
  p[2].qty[WEFT_PRICE_SWITCH_PORT] = 10, p[2].time_ns = 5;
  WeftPrices pr;
  weft_topo_prices_default(&pr);
  pr.patch_panel_port_usd = pr.switch_port_usd_per_gbps = 100;
  for (int i = 0; i < 3; i++) /* the costs at these prices, as the evaluation sets them */
    for (int k = 0; k < WEFT_NPRICES; k++)
      p[i].cost_usd += *weft_price_field(&pr, (WeftPriceKey)k) * p[i].qty[k];
  CHECK_NEAR(p[0].cost_usd, 100, 1e-12);
  double c = pow(10, 2.0 / 3);
  CHECK_NEAR(weft_eval_price_flip(p, 3, &pr, 0, WEFT_EVAL_FATTREE, WEFT_PRICE_PATCH_PANEL), c, 1e-9);
  CHECK_NEAR(weft_eval_price_flip(p, 3, &pr, 0, WEFT_EVAL_FATTREE, WEFT_PRICE_SWITCH_PORT), 1 / c,
             1e-9);
  CHECK(isnan(weft_eval_price_flip(p, 3, &pr, 0, WEFT_EVAL_FATTREE, WEFT_PRICE_NIC_PORT)));
  CHECK(isnan(weft_eval_price_flip(p, 3, &pr, 0, WEFT_EVAL_SWITCH, WEFT_PRICE_PATCH_PANEL)));
  CHECK(isnan(weft_eval_price_flip(p, 3, &pr, 1, WEFT_EVAL_FATTREE, WEFT_PRICE_PATCH_PANEL)));
  CHECK(!strcmp(weft_price_name(WEFT_PRICE_OCS_PORT), "ocs_port_usd"));
}

const TestCase suite_topoeval[] = {
    {"topoeval_price_flip", test_price_flip},
    {"topoeval_pooling_by_hand", test_pooling_by_hand},
    {"topoeval_strategy_by_hand", test_strategy_by_hand},
    {"topoeval_search_budget", test_search_budget},
    {"topoeval_search_layers_brute", test_search_layers_brute},
    {"topoeval_search_reproducible", test_search_reproducible},
    {"topoeval_ocs_time", test_ocs_time},
    {"topoeval_threads", test_eval_threads},
    {"topoeval_time_at_cost", test_time_at_cost},
    {0, 0},
};
