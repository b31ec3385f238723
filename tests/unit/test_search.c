/* test_search.c — unit tests (suite search): network shapes against brute
 * force, enumeration counts by hand, Pareto against an O(n^2) oracle, statuses,
 * and results that do not depend on threads or ranks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

#include "../test.h"

#define ZOO "data/zoo"  /* tests run from the repository root */

/* ------------------------------------------------------------ helpers */

static uint64_t rng_next(uint64_t *s) {  /* Knuth's MMIX LCG, high bits */
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

static WeftNetwork make_net(int ndims, const int *npus) {
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = ndims;
  static const char *const cls[] = {"A", "B", "C", "D"};
  for (int d = 0; d < ndims; d++) {
    net.topology[d] = d == ndims - 1 ? WEFT_SWITCH : WEFT_RING;
    net.npus[d] = npus[d];
    snprintf(net.cost_dim[d], sizeof net.cost_dim[d], "%s", cls[d % 4]);
  }
  return net;
}

static WeftCostModel make_cost(void) {
  WeftCostModel cm;
  memset(&cm, 0, sizeof cm);
  static const char *const cls[] = {"A", "B", "C", "D"};
  cm.nclasses = 4;
  for (int k = 0; k < 4; k++) {
    snprintf(cm.cls[k].name, sizeof cm.cls[k].name, "%s", cls[k]);
    cm.cls[k].link_usd_per_gbps = 1.0 + k;
    cm.cls[k].switch_usd_per_gbps = 2.0;
    cm.cls[k].nic_usd_per_gbps = 3.0;
    cm.cls[k].has_link = cm.cls[k].has_switch = cm.cls[k].has_nic = 1;
  }
  return cm;
}

/* ------------------------------------------------------------ shapes */

/* Brute force: an odometer over every tuple in [2, hi_d]^D whose running
 * product stays <= npus, kept when the product is npus. Lexicographic. */
static size_t brute_shapes(int npus, int D, const int *maxd, int (*out)[WEFT_MAX_DIMS],
                           size_t cap) {
  int hi[WEFT_MAX_DIMS], v[WEFT_MAX_DIMS];
  for (int d = 0; d < D; d++) {
    hi[d] = maxd && maxd[d] ? maxd[d] : npus;
    v[d] = 2;
  }
  size_t n = 0;
  for (;;) {
    long prod = 1;
    int over = -1;
    for (int d = 0; d < D && over < 0; d++) {
      prod *= v[d];
      if (prod > npus) over = d;
    }
    if (over < 0 && prod == npus) {
      if (n < cap) memcpy(out[n], v, sizeof v);
      n++;
    }
    /* advance; past npus at dim `over`, larger values there are too: reset it
     * and what follows, and carry into the dim before */
    int d = D - 1;
    if (over >= 0) {
      for (int e = over; e < D; e++) v[e] = 2;
      d = over - 1;
    }
    for (;;) {
      if (d < 0) return n;
      if (v[d] < hi[d]) {
        v[d]++;
        break;
      }
      v[d] = 2;
      d--;
    }
  }
}

static void check_shapes_case(int npus, int D, const int *maxd) {
  WeftTopology topo[WEFT_MAX_DIMS] = {WEFT_RING};
  char cost[WEFT_MAX_DIMS][WEFT_NAME_LEN] = {{0}};
  for (int d = 0; d < D; d++) {
    topo[d] = (WeftTopology)(d % 3);
    snprintf(cost[d], sizeof cost[d], "class%d", d);
  }
  WeftNetwork *nets = NULL;
  size_t n = 0;
  WeftError err;
  CHECK_EQ_INT(weft_network_shapes(topo, (const char(*)[WEFT_NAME_LEN])cost, D, npus, maxd, &nets,
                                   &n, &err), WEFT_OK);
  static int want[4096][WEFT_MAX_DIMS];
  size_t m = brute_shapes(npus, D, maxd, want, 4096);
  CHECK_EQ_INT(n, m);
  for (size_t i = 0; i < n && i < m; i++) {
    CHECK_EQ_INT(nets[i].ndims, D);
    for (int d = 0; d < D; d++) {
      CHECK_EQ_INT(nets[i].npus[d], want[i][d]);
      CHECK_EQ_INT(nets[i].topology[d], topo[d]);
      CHECK(!strcmp(nets[i].cost_dim[d], cost[d]));
    }
  }
  free(nets);
}

static void test_shapes_bruteforce(void) {
  check_shapes_case(4096, 4, NULL);
  static const int m4[] = {16, 16, 16, 1024};
  check_shapes_case(4096, 4, m4);
  static const int m3[] = {0, 6, 0};
  check_shapes_case(360, 3, m3);
  check_shapes_case(12, 2, NULL);
  check_shapes_case(7, 2, NULL);     /* a prime over 2 dims: none */
  check_shapes_case(7, 1, NULL);     /* one: 7 */
  check_shapes_case(720, 3, NULL);
  static const int m2[] = {3, 0};
  check_shapes_case(24, 2, m2);      /* 2x12, 3x8 */
}

/* Closed form: 2^12 over 4 dims of >= 2 is a composition of 12 into 4
 * positive parts: C(11, 3) = 165. */
static void test_shapes_closed_form(void) {
  WeftTopology topo[4] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_RING, WEFT_SWITCH};
  WeftNetwork *nets = NULL;
  size_t n = 0;
  CHECK_EQ_INT(weft_network_shapes(topo, NULL, 4, 4096, NULL, &nets, &n, NULL), WEFT_OK);
  CHECK_EQ_INT(n, 165);
  free(nets);
  /* 2 dims of 1024 = 2^10, each <= 32 = 2^5: only 32x32 */
  static const int m[] = {32, 32};
  CHECK_EQ_INT(weft_network_shapes(topo, NULL, 2, 1024, m, &nets, &n, NULL), WEFT_OK);
  CHECK_EQ_INT(n, 1);
  if (n == 1) CHECK(nets[0].npus[0] == 32 && nets[0].npus[1] == 32);
  free(nets);
  /* bad bounds */
  static const int bad[] = {1, 0};
  WeftError err;
  CHECK_EQ_INT(weft_network_shapes(topo, NULL, 2, 1024, bad, &nets, &n, &err), WEFT_EINVAL);
  CHECK(nets == NULL && n == 0);
  CHECK_EQ_INT(weft_network_shapes(topo, NULL, 0, 1024, NULL, &nets, &n, &err), WEFT_EINVAL);
}

/* The default bounds: the smaller of the topology's and the tier's its cost
 * class names (LIBRA's InterChiplet ... InterPod, weft's Chiplet ... Pod, in
 * any case). GPT-3's 4096 = 2^12 NPUs over chiplet ring x package mesh x
 * node ring x pod switch under them: exponents a <= 3 (8 chiplets), b <= 3
 * (a full mesh of 8, under the 16 packages), c <= 4 (a ring of 16, under the
 * 32 nodes), each >= 1, and the pod's 12 - a - b - c >= 2 always (at most
 * 10 used): 3 x 3 x 4 = 36 shapes. */
static void test_default_bounds(void) {
  const char *why = NULL;
  CHECK_EQ_INT(weft_block_default_max(WEFT_RING, "InterChiplet", &why), 8);
  CHECK(why && !strcmp(why, "chiplets per package"));
  CHECK_EQ_INT(weft_block_default_max(WEFT_SWITCH, "Package", NULL), 16);
  CHECK_EQ_INT(weft_block_default_max(WEFT_FULLY_CONNECTED, "Package", &why), 8); /* the mesh */
  CHECK(why && !strcmp(why, "a full mesh"));
  CHECK_EQ_INT(weft_block_default_max(WEFT_SWITCH, "INTERNODE", NULL), 32);
  CHECK_EQ_INT(weft_block_default_max(WEFT_RING, "node", NULL), 16);
  CHECK_EQ_INT(weft_block_default_max(WEFT_SWITCH, "InterPod", &why), 65536);
  CHECK(why && !strcmp(why, "pods on a scale-out fabric"));
  CHECK_EQ_INT(weft_block_default_max(WEFT_FULLY_CONNECTED, "Pod", NULL), 8);
  CHECK_EQ_INT(weft_block_default_max(WEFT_RING, "Chip", &why), 16); /* no tier named */
  CHECK(why && !strcmp(why, "a ring or torus dimension"));
  CHECK_EQ_INT(weft_block_default_max(WEFT_SWITCH, NULL, NULL), 65536);
  WeftTopology topo[4] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_RING, WEFT_SWITCH};
  const char cls[4][WEFT_NAME_LEN] = {"Chiplet", "Package", "Node", "Pod"};
  int maxd[4];
  for (int d = 0; d < 4; d++) maxd[d] = weft_block_default_max(topo[d], cls[d], NULL);
  WeftNetwork *nets = NULL;
  size_t n = 0;
  CHECK_EQ_INT(weft_network_shapes(topo, cls, 4, 4096, maxd, &nets, &n, NULL), WEFT_OK);
  CHECK_EQ_INT(n, 36);
  for (size_t i = 0; i < n; i++)
    CHECK(nets[i].npus[0] <= 8 && nets[i].npus[1] <= 8 && nets[i].npus[2] <= 16);
  free(nets);
}

/* ------------------------------------------------------------ enumeration */

static void test_points_counts(void) {
  WeftModel model;
  WeftDevice dev;
  memset(&model, 0, sizeof model);
  memset(&dev, 0, sizeof dev);
  WeftCostModel cm = make_cost();
  static const int s8[] = {2, 4}, s6[] = {2, 3};
  WeftNetwork nets[2] = {make_net(2, s8), make_net(2, s6)};
  WeftCodesignSpec sp;
  memset(&sp, 0, sizeof sp);
  sp.model = &model;
  sp.device = &dev;
  weft_parallel_default(&sp.base);
  sp.nnets = 1;
  sp.nets = nets;
  sp.cost = &cm;
  WeftDesignPoint *pts = NULL;
  size_t n = 0;
  WeftError err;
  /* 8 NPUs, defaults: (tp, pp) with tp*pp | 8 over divisors {1,2,4,8}:
   * 4 + 3 + 2 + 1 = 10 pairs, x 4 micro-batches {1,2,4,8} = 40. */
  CHECK_EQ_INT(weft_codesign_points(&sp, &pts, &n, &err), WEFT_OK);
  CHECK_EQ_INT(n, 40);
  if (n == 40) {
    /* order: tp, pp, mb: (1,1,1) (1,1,2) (1,1,4) (1,1,8) (1,2,1) ... last (8,1,8) */
    CHECK(pts[0].par.tp == 1 && pts[0].par.pp == 1 && pts[0].par.dp == 8 &&
          pts[0].par.micro_batch == 1);
    CHECK(pts[3].par.micro_batch == 8);
    CHECK(pts[4].par.tp == 1 && pts[4].par.pp == 2 && pts[4].par.dp == 4);
    CHECK(pts[39].par.tp == 8 && pts[39].par.pp == 1 && pts[39].par.dp == 1 &&
          pts[39].par.micro_batch == 8);
    for (size_t i = 0; i < n; i++)
      CHECK_EQ_INT(pts[i].par.tp * pts[i].par.pp * pts[i].par.dp, 8);
  }
  free(pts);
  /* all orders: 6 per (pair, mb), cycling fastest */
  sp.all_orders = 1;
  CHECK_EQ_INT(weft_codesign_points(&sp, &pts, &n, &err), WEFT_OK);
  CHECK_EQ_INT(n, 240);
  if (n == 240) {
    for (int o = 0; o < 6; o++)
      for (int p = 0; p < o; p++)
        CHECK(memcmp(pts[o].par.order, pts[p].par.order, sizeof pts[o].par.order) != 0);
    CHECK(memcmp(pts[6].par.order, pts[0].par.order, sizeof pts[0].par.order) == 0);
    CHECK(pts[6].par.micro_batch == 2);
  }
  free(pts);
  sp.all_orders = 0;
  /* two nets, 8 and 6 NPUs: 6 has divisors {1,2,3,6}: 4 + 2 + 2 + 1 = 9 pairs;
   * (10 + 9) x 4 = 76 */
  sp.nnets = 2;
  CHECK_EQ_INT(weft_codesign_points(&sp, &pts, &n, &err), WEFT_OK);
  CHECK_EQ_INT(n, 76);
  if (n == 76) CHECK(pts[39].net == 0 && pts[40].net == 1 && pts[40].par.dp == 6);
  free(pts);
  /* explicit lists: their cross product; a pair that does not divide gets dp 0 */
  sp.nnets = 1;
  sp.ntp = 2, sp.tp[0] = 1, sp.tp[1] = 3;
  sp.npp = 1, sp.pp[0] = 2;
  sp.nmb = 1, sp.mb[0] = 1;
  CHECK_EQ_INT(weft_codesign_points(&sp, &pts, &n, &err), WEFT_OK);
  CHECK_EQ_INT(n, 2);
  if (n == 2) CHECK(pts[0].par.dp == 4 && pts[1].par.tp == 3 && pts[1].par.dp == 0);
  free(pts);
  /* tp given, pp default (every divisor of 8): tp 2 x pp {1,2,4,8}: dp 4,2,1,0 */
  sp.ntp = 1, sp.tp[0] = 2;
  sp.npp = 0;
  CHECK_EQ_INT(weft_codesign_points(&sp, &pts, &n, &err), WEFT_OK);
  CHECK_EQ_INT(n, 4);
  if (n == 4) CHECK(pts[0].par.dp == 4 && pts[1].par.dp == 2 && pts[2].par.dp == 1 &&
                    pts[3].par.dp == 0);
  free(pts);
  /* context parallelism searched, the outermost knob: tp 2, pp {1,2,4,8}
   * x cp {1, 2}: dp = 8 / (2 pp cp), 0 where it is not whole:
   * (pp 1: 4, 2), (pp 2: 2, 1), (pp 4: 1, 0), (pp 8: 0, 0) */
  sp.ncp = 2, sp.cp[0] = 1, sp.cp[1] = 2;
  CHECK_EQ_INT(weft_codesign_points(&sp, &pts, &n, &err), WEFT_OK);
  CHECK_EQ_INT(n, 8);
  if (n == 8) {
    static const int want_dp[8] = {4, 2, 2, 1, 1, 0, 0, 0}, want_cp[8] = {1, 2, 1, 2, 1, 2, 1, 2};
    for (int i = 0; i < 8; i++) {
      CHECK_EQ_INT(pts[i].par.cp, want_cp[i]);
      CHECK_EQ_INT(pts[i].par.dp, want_dp[i]);
    }
  }
  free(pts);
  sp.ncp = 1, sp.cp[0] = 0; /* a degree below 1 */
  CHECK_EQ_INT(weft_codesign_points(&sp, &pts, &n, &err), WEFT_EINVAL);
  sp.ncp = 0;
  /* expert parallelism searched, outside CP: tp 2, pp {1,2,4,8} x ep {1, 4}
   * x cp {1, 2}: ep varies slowest of the knobs, so per pp the points are
   * (ep 1, cp 1), (ep 1, cp 2), (ep 4, cp 1), (ep 4, cp 2); dp = 8 / (2 pp
   * cp) as before (EP lies inside DP: it does not change dp) */
  sp.ncp = 2, sp.cp[0] = 1, sp.cp[1] = 2;
  sp.nep = 2, sp.ep[0] = 1, sp.ep[1] = 4;
  CHECK_EQ_INT(weft_codesign_points(&sp, &pts, &n, &err), WEFT_EINPUT);  /* a dense model */
  CHECK(strstr(err.msg, "entry 2 is 4, but") != NULL);
  model.experts = 6;  /* 4 divides no model's experts */
  CHECK_EQ_INT(weft_codesign_points(&sp, &pts, &n, &err), WEFT_EINPUT);
  CHECK(strstr(err.msg, "does not divide") != NULL);
  model.experts = 8;
  CHECK_EQ_INT(weft_codesign_points(&sp, &pts, &n, &err), WEFT_OK);
  CHECK_EQ_INT(n, 16);
  if (n == 16) {
    static const int want_dp[4][2] = {{4, 2}, {2, 1}, {1, 0}, {0, 0}};
    for (int i = 0; i < 16; i++) {
      CHECK_EQ_INT(pts[i].par.ep, i % 4 < 2 ? 1 : 4);
      CHECK_EQ_INT(pts[i].par.cp, i % 2 ? 2 : 1);
      CHECK_EQ_INT(pts[i].par.dp, want_dp[i / 4][i % 2]);
    }
  }
  free(pts);
  sp.nep = 1, sp.ep[0] = 0; /* a degree below 1 */
  CHECK_EQ_INT(weft_codesign_points(&sp, &pts, &n, &err), WEFT_EINVAL);
  sp.nep = 0, sp.ncp = 0;
  model.experts = 0;
  /* bad lists */
  sp.nmb = 1, sp.mb[0] = 0;
  CHECK_EQ_INT(weft_codesign_points(&sp, &pts, &n, &err), WEFT_EINVAL);
  CHECK(pts == NULL && n == 0);
}

/* ------------------------------------------------------------ Pareto */

static int dominates(const WeftDesignPoint *a, const WeftDesignPoint *b) {
  return a->cost_usd <= b->cost_usd && a->time_ns <= b->time_ns &&
         (a->cost_usd < b->cost_usd || a->time_ns < b->time_ns);
}

static void test_pareto_bruteforce(void) {
  uint64_t seed = 12345;
  static WeftDesignPoint pts[300];
  static size_t idx[300];
  for (int trial = 0; trial < 300; trial++) {
    size_t n = trial % 7 == 0 ? (size_t)(trial % 4) : (size_t)(1 + rng_next(&seed) % 300);
    int grid = 2 + (int)(rng_next(&seed) % 12);  /* small grids: many ties */
    memset(pts, 0, sizeof pts);
    for (size_t i = 0; i < n; i++) {
      pts[i].status = rng_next(&seed) % 5 == 0 ? WEFT_POINT_INFEASIBLE : WEFT_POINT_OK;
      pts[i].cost_usd = (double)(rng_next(&seed) % (uint64_t)grid) * 1000.0;
      pts[i].time_ns = (double)(rng_next(&seed) % (uint64_t)grid) * 1e6 + 1.0;
    }
    size_t k = weft_pareto(pts, n, idx);
    /* oracle: i on the front iff OK, no OK j dominates it, and no earlier OK j ties it */
    size_t want = 0;
    char on[300] = {0};
    for (size_t i = 0; i < n; i++) {
      if (pts[i].status != WEFT_POINT_OK) continue;
      int keep = 1;
      for (size_t j = 0; j < n && keep; j++) {
        if (pts[j].status != WEFT_POINT_OK || j == i) continue;
        if (dominates(&pts[j], &pts[i])) keep = 0;
        if (j < i && pts[j].cost_usd == pts[i].cost_usd && pts[j].time_ns == pts[i].time_ns)
          keep = 0;
      }
      on[i] = (char)keep;
      want += (size_t)keep;
    }
    CHECK_EQ_INT(k, want);
    for (size_t r = 0; r < k; r++) {
      CHECK(idx[r] < n && on[idx[r]]);
      if (r > 0) {  /* by increasing cost, hence decreasing time */
        CHECK(pts[idx[r]].cost_usd > pts[idx[r - 1]].cost_usd);
        CHECK(pts[idx[r]].time_ns < pts[idx[r - 1]].time_ns);
      }
    }
  }
}

/* Times closer than the solver's certified precision (1e-9 relative) are
 * one time: the dearer of two such points is not on the front. */
static void test_pareto_tolerance(void) {
  WeftDesignPoint pts[3];
  size_t idx[3];
  memset(pts, 0, sizeof pts);
  pts[0].cost_usd = 1, pts[0].time_ns = 100.0;
  pts[1].cost_usd = 2, pts[1].time_ns = 100.0 * (1 - 1e-12);  /* same time, dearer */
  pts[2].cost_usd = 3, pts[2].time_ns = 99.0;                 /* 1% faster, dearer still */
  CHECK_EQ_INT(weft_pareto(pts, 3, idx), 2);
  CHECK(idx[0] == 0 && idx[1] == 2);
  CHECK_EQ_INT(weft_pareto(pts, 0, idx), 0);
}

/* ------------------------------------------------------------ evaluation */

typedef struct {
  WeftModel model;
  WeftDevice dev;
  WeftCostModel cost;
  WeftNetwork *nets;
  size_t nnets;
  WeftConstraints cons;
  WeftCodesignSpec sp;
} Fixture;

/* A model from the zoo on every shape of Ring x FullyConnected x Switch
 * with npus NPUs, under the constraints given. 0 when it could be built. */
static int fixture(Fixture *f, const char *model, int npus, const char *const *cons, int ncons) {
  memset(f, 0, sizeof *f);
  WeftError err;
  if (weft_zoo_model(ZOO, model, &f->model, &err) || weft_zoo_device(ZOO, "a100", &f->dev, &err)) {
    fprintf(stderr, "  zoo: %s\n", err.msg);
    return -1;
  }
  f->cost = make_cost();
  WeftTopology topo[3] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_SWITCH};
  const char cls[3][WEFT_NAME_LEN] = {"A", "B", "C"};
  if (weft_network_shapes(topo, cls, 3, npus, NULL, &f->nets, &f->nnets, &err)) return -1;
  for (int i = 0; i < ncons; i++)
    if (weft_constraints_parse(&f->cons, cons[i], 3, &err)) return -1;
  WeftCodesignSpec *sp = &f->sp;
  sp->model = &f->model;
  sp->device = &f->dev;
  weft_parallel_default(&sp->base);
  sp->nnets = (int)f->nnets;
  sp->nets = f->nets;
  sp->cost = &f->cost;
  sp->cons = &f->cons;
  sp->objective = WEFT_OBJ_PERF;
  sp->loop = WEFT_LOOP_NO_OVERLAP;
  weft_settings_default(&sp->settings);
  return 0;
}

static int run(const Fixture *f, WeftDesignPoint *pts, size_t n, int threads, size_t rank,
               size_t nranks) {
  WeftRunSettings rs;
  weft_run_settings_default(&rs);
  rs.threads = threads;
  rs.rank = rank;
  rs.nranks = nranks;
  WeftError err;
  return weft_codesign_run(&f->sp, pts, n, &rs, &err);
}

/* 32 NPUs over 3 dims: 2^5 into 3 parts >= 2 is C(4,2) = 6 shapes; pairs with
 * tp*pp | 32: 6+5+4+3+2+1 = 21; x 2 micro-batches x 6 orders = 1512 points.
 * Threads 1, 2, 3 and a 2-rank split give the same bytes. */
static void test_threads_identical(void) {
  static const char *const cons[] = {"sum = 300", "B1 >= B2"};
  Fixture f;
  if (fixture(&f, "bert-large", 32, cons, 2)) {
    CHECK(0);
    return;
  }
  f.sp.nmb = 2, f.sp.mb[0] = 1, f.sp.mb[1] = 2;
  f.sp.all_orders = 1;
  WeftDesignPoint *base = NULL, *p2 = NULL, *p3 = NULL, *r01 = NULL;
  size_t n = 0, m = 0;
  WeftError err;
  CHECK_EQ_INT(weft_codesign_points(&f.sp, &base, &n, &err), WEFT_OK);
  CHECK_EQ_INT(n, 1512);
  size_t bytes = n * sizeof *base;
  p2 = malloc(bytes), p3 = malloc(bytes), r01 = malloc(bytes);
  if (!p2 || !p3 || !r01 || n == 0) {
    CHECK(0);
    goto done;
  }
  memcpy(p2, base, bytes);
  memcpy(p3, base, bytes);
  memcpy(r01, base, bytes);
  CHECK_EQ_INT(run(&f, base, n, 1, 0, 1), WEFT_OK);
  CHECK_EQ_INT(run(&f, p2, n, 2, 0, 1), WEFT_OK);
  CHECK_EQ_INT(run(&f, p3, n, 3, 0, 1), WEFT_OK);
  CHECK(memcmp(base, p2, bytes) == 0);
  CHECK(memcmp(base, p3, bytes) == 0);
  /* ranks: 0 of 2 evaluates the even points, 1 of 2 the odd ones (MPI's split) */
  WeftDesignPoint *r1 = malloc(bytes);
  if (r1) {
    WeftDesignPoint *fresh = NULL;
    CHECK_EQ_INT(weft_codesign_points(&f.sp, &fresh, &m, &err), WEFT_OK);
    if (fresh && m == n) {
      memcpy(r01, fresh, bytes);
      memcpy(r1, fresh, bytes);
      CHECK_EQ_INT(run(&f, r01, n, 2, 0, 2), WEFT_OK);
      CHECK_EQ_INT(run(&f, r1, n, 1, 1, 2), WEFT_OK);
      /* rank 0 left the odd points as enumerated */
      CHECK(memcmp(&r01[1], &fresh[1], sizeof *fresh) == 0);
      for (size_t i = 1; i < n; i += 2) r01[i] = r1[i];
      CHECK(memcmp(base, r01, bytes) == 0);
    }
    free(fresh);
    free(r1);
  }
  /* one point evaluated alone (fresh scratch) = the same point in the run */
  WeftDesignPoint one = base[777];
  weft_codesign_eval(&f.sp, &one);
  CHECK(memcmp(&one, &base[777], sizeof one) == 0);
  /* and the run found something: some OK, with sum = 300 and B1 >= B2 */
  size_t ok = 0;
  for (size_t i = 0; i < n; i++)
    if (base[i].status == WEFT_POINT_OK) {
      ok++;
      CHECK_NEAR(base[i].bw_gbps[0] + base[i].bw_gbps[1] + base[i].bw_gbps[2], 300.0, 1e-6);
      CHECK(base[i].bw_gbps[0] >= base[i].bw_gbps[1] - 1e-6);
      /* EqualBW (100 each) also satisfies both: the optimum is no slower */
      CHECK(base[i].time_ns <= base[i].equal_time_ns * (1 + 1e-9));
    }
  CHECK(ok > 0);
done:
  free(base);
  free(p2);
  free(p3);
  free(r01);
  free(f.nets);
}

/* Status counts with a reason each. GPT-3 175B with tp = pp = 1 needs its
 * 175e9 parameters in bf16 (350 GB) on every NPU: more than an A100's 80 GiB
 * (85.9 GB), whatever else the memory model adds. tp 3 on 16 NPUs: no dp. */
static void test_status_memory_invalid(void) {
  Fixture f;
  if (fixture(&f, "gpt3-175b", 16, NULL, 0)) {
    CHECK(0);
    return;
  }
  static const char *const c[] = {"sum = 100"};
  WeftError err;
  weft_constraints_parse(&f.cons, c[0], 3, &err);
  f.sp.nnets = 1;  /* 2 x 2 x 4 */
  f.sp.ntp = 2, f.sp.tp[0] = 1, f.sp.tp[1] = 3;
  f.sp.npp = 1, f.sp.pp[0] = 1;
  f.sp.nmb = 1, f.sp.mb[0] = 1;
  WeftDesignPoint *pts = NULL;
  size_t n = 0;
  CHECK_EQ_INT(weft_codesign_points(&f.sp, &pts, &n, &err), WEFT_OK);
  CHECK_EQ_INT(n, 2);
  if (n == 2) {
    CHECK_EQ_INT(run(&f, pts, n, 2, 0, 1), WEFT_OK);
    CHECK_EQ_INT(pts[0].status, WEFT_POINT_NO_MEMORY);
    CHECK(pts[0].mem_bytes > 350e9);
    CHECK(pts[0].reason[0] != '\0');
    CHECK_EQ_INT(pts[1].status, WEFT_POINT_INVALID);
    CHECK(strstr(pts[1].reason, "does not divide") != NULL);
    CHECK(!strcmp(weft_point_status_name(WEFT_POINT_NO_MEMORY), "does not fit in memory"));
  }
  free(pts);
  free(f.nets);
}

/* Several models in one search: the points of one model's search once per
 * model, the model outermost; each point evaluates as the one-model search
 * of its model (byte for byte), and the two models' designs differ. */
static void test_models(void) {
  static const char *const cons[] = {"sum = 300"};
  Fixture f;
  if (fixture(&f, "bert-large", 32, cons, 1)) {
    CHECK(0);
    return;
  }
  static WeftModel two[2];
  WeftError err;
  if (weft_zoo_model(ZOO, "bert-large", &two[0], &err) ||
      weft_zoo_model(ZOO, "megatron-22b", &two[1], &err)) {
    CHECK(0);
    free(f.nets);
    return;
  }
  f.sp.nmb = 1, f.sp.mb[0] = 1;
  WeftDesignPoint *one[2] = {NULL, NULL}, *both = NULL;
  size_t n1[2] = {0, 0}, n = 0;
  for (int m = 0; m < 2; m++) {
    f.sp.model = &two[m];
    CHECK_EQ_INT(weft_codesign_points(&f.sp, &one[m], &n1[m], &err), WEFT_OK);
    if (one[m]) CHECK_EQ_INT(run(&f, one[m], n1[m], 2, 0, 1), WEFT_OK);
  }
  f.sp.model = NULL;  /* not used with models */
  f.sp.nmodels = 2, f.sp.models = two;
  CHECK_EQ_INT(weft_codesign_points(&f.sp, &both, &n, &err), WEFT_OK);
  CHECK(n1[0] == n1[1] && n == 2 * n1[0] && n > 0);
  if (both && n == 2 * n1[0]) {
    CHECK_EQ_INT(run(&f, both, n, 2, 0, 1), WEFT_OK);
    int same = 1, differ = 0;
    for (size_t i = 0; i < n; i++) {
      const WeftDesignPoint *a = &both[i], *b = &one[i / n1[0]][i % n1[0]];
      CHECK_EQ_INT(a->model, (int)(i / n1[0]));
      WeftDesignPoint c = *a;
      c.model = 0;
      same &= memcmp(&c, b, sizeof c) == 0;
      if (i < n1[0] && a->status == WEFT_POINT_OK && both[i + n1[0]].status == WEFT_POINT_OK)
        differ |= a->time_ns != both[i + n1[0]].time_ns;
    }
    CHECK(same);
    CHECK(differ);
  }
  free(both);
  f.sp.models = NULL;  /* models without their array */
  CHECK_EQ_INT(weft_codesign_points(&f.sp, &both, &n, &err), WEFT_EINVAL);
  CHECK(both == NULL);
  free(one[0]);
  free(one[1]);
  free(f.nets);
}

/* The default EP list: every divisor of each MoE model's experts, merged
 * ascending (by hand: 6 experts {1,2,3,6} and 4 {1,2,4} -> {1,2,3,4,6};
 * 256 -> 2^0..2^8, 9 of them); dense models none; max keeps the smallest. */
static void test_default_ep(void) {
  static WeftModel m[3];
  memset(m, 0, sizeof m);
  int ep[WEFT_MAX_CHOICES];
  CHECK_EQ_INT(weft_codesign_default_ep(m, 3, ep, WEFT_MAX_CHOICES), 0);
  m[0].experts = 6, m[2].experts = 4;
  int n = weft_codesign_default_ep(m, 3, ep, WEFT_MAX_CHOICES);
  static const int want[5] = {1, 2, 3, 4, 6};
  CHECK_EQ_INT(n, 5);
  for (int k = 0; k < n && k < 5; k++) CHECK_EQ_INT(ep[k], want[k]);
  CHECK_EQ_INT(weft_codesign_default_ep(m, 3, ep, 3), 3);
  CHECK_EQ_INT(ep[2], 3);
  m[1].experts = 256;
  n = weft_codesign_default_ep(&m[1], 1, ep, WEFT_MAX_CHOICES);
  CHECK_EQ_INT(n, 9);
  for (int k = 0; k < n && k < 9; k++) CHECK_EQ_INT(ep[k], 1 << k);
}

/* BERT-Large fits everywhere on 16 NPUs with tp = pp = 1; constraints that
 * contradict (sum <= 100 yet B1 >= 200) make every point INFEASIBLE, and
 * none (perf: more bandwidth is always faster) every point UNBOUNDED. */
static void test_status_constraints(void) {
  static const char *const bad[] = {"sum <= 100", "B1 >= 200"};
  Fixture f;
  if (fixture(&f, "bert-large", 16, bad, 2)) {
    CHECK(0);
    return;
  }
  f.sp.ntp = 1, f.sp.tp[0] = 1;
  f.sp.npp = 1, f.sp.pp[0] = 1;
  f.sp.nmb = 2, f.sp.mb[0] = 1, f.sp.mb[1] = 2;
  WeftDesignPoint *pts = NULL;
  size_t n = 0;
  WeftError err;
  /* 16 over 3 dims >= 2: 2x2x4, 2x4x2, 4x2x2 = 3 shapes x 2 micro-batches */
  CHECK_EQ_INT(f.nnets, 3);
  CHECK_EQ_INT(weft_codesign_points(&f.sp, &pts, &n, &err), WEFT_OK);
  CHECK_EQ_INT(n, 6);
  CHECK_EQ_INT(run(&f, pts, n, 0, 0, 1), WEFT_OK);
  for (size_t i = 0; i < n; i++) {
    CHECK_EQ_INT(pts[i].status, WEFT_POINT_INFEASIBLE);
    CHECK(pts[i].reason[0] != '\0');
    CHECK(pts[i].mem_bytes > 0 && pts[i].mem_bytes < f.dev.hbm_bytes);
  }
  f.cons.n = 0;
  CHECK_EQ_INT(run(&f, pts, n, 2, 0, 1), WEFT_OK);
  for (size_t i = 0; i < n; i++) CHECK_EQ_INT(pts[i].status, WEFT_POINT_UNBOUNDED);
  free(pts);
  free(f.nets);
}

const TestCase suite_search[] = {
    {"search_shapes_bruteforce", test_shapes_bruteforce},
    {"search_shapes_closed_form", test_shapes_closed_form},
    {"search_default_bounds", test_default_bounds},
    {"search_points_counts", test_points_counts},
    {"search_pareto_bruteforce", test_pareto_bruteforce},
    {"search_pareto_tolerance", test_pareto_tolerance},
    {"search_threads_identical", test_threads_identical},
    {"search_status_memory_invalid", test_status_memory_invalid},
    {"search_status_constraints", test_status_constraints},
    {"search_models", test_models},
    {"search_default_ep", test_default_ep},
    {0, 0},
};
