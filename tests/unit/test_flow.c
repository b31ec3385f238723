/* test_flow.c — unit tests (suite flow): the graph, the flow engine against
 * hand-derived rates and times, a max-min fairness oracle on random
 * instances, conservation of link bytes, and the NPU graph against BFS. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/flow.h"
#include "weft.h"

#include "../test.h"

/* ------------------------------------------------------------ helpers */

static uint64_t rng_next(uint64_t *s) {  /* Knuth's MMIX LCG, high bits */
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

/* Nodes 0..n, link i: i -> i+1 of caps[i]. */
static WeftGraph *chain(int n, const double *caps) {
  WeftGraph *g = weft_graph_create(n + 1);
  for (int i = 0; i < n; i++) CHECK_EQ_INT(weft_graph_add_link(g, i, i + 1, caps[i]), i);
  return g;
}

static WeftFlowSim *sim_on(const WeftGraph *g, WeftSharing sh) {
  WeftFlowSim *fs = NULL;
  CHECK_EQ_INT(weft_flowsim_create(g, sh, &fs), WEFT_OK);
  return fs;
}

/* Advance to the next completion; the tags completed there into tags (all
 * of them, through the call-again contract); returns the count. */
static int step(WeftFlowSim *fs, double *t, unsigned long long *tags, int cap) {
  *t = weft_flowsim_next(fs);
  int n = 0, k;
  do {
    k = weft_flowsim_advance(fs, *t, tags + n, cap - n < 2 ? cap - n : 2);  /* small batches */
    CHECK(k >= 0);
    if (k < 0) return n;
    n += k;
  } while (k == 2 && n < cap);
  return n;
}

/* ------------------------------------------------------------ graph */

static void flow_graph_basic(void) {
  CHECK(weft_graph_create(0) == NULL);
  WeftGraph *g = weft_graph_create(3);
  CHECK_EQ_INT(weft_graph_nodes(g), 3);
  CHECK_EQ_INT(weft_graph_add_link(g, 0, 1, 10.0), 0);
  CHECK_EQ_INT(weft_graph_add_link(g, 1, 2, 20.0), 1);
  CHECK_EQ_INT(weft_graph_add_link(g, 0, 2, 30.0), 2);
  CHECK_EQ_INT(weft_graph_add_link(g, 0, 3, 1.0), WEFT_EINVAL);   /* no node 3 */
  CHECK_EQ_INT(weft_graph_add_link(g, -1, 0, 1.0), WEFT_EINVAL);
  CHECK_EQ_INT(weft_graph_add_link(g, 0, 1, 0.0), WEFT_EINVAL);
  CHECK_EQ_INT(weft_graph_add_link(g, 0, 1, -2.0), WEFT_EINVAL);
  CHECK_EQ_INT(weft_graph_add_link(g, 0, 1, (double)NAN), WEFT_EINVAL);
  CHECK_EQ_INT(weft_graph_nlinks(g), 3);
  int from = -1, to = -1;
  double bw = 0;
  CHECK_EQ_INT(weft_graph_link(g, 1, &from, &to, &bw), WEFT_OK);
  CHECK(from == 1 && to == 2 && bw == 20.0);
  CHECK_EQ_INT(weft_graph_link(g, 3, NULL, NULL, NULL), WEFT_EINVAL);
  CHECK_EQ_INT(weft_graph_link(g, -1, NULL, NULL, NULL), WEFT_EINVAL);
  const int *out = NULL;
  CHECK_EQ_INT(weft_graph_out(g, 0, &out), 2);
  CHECK(out[0] == 0 && out[1] == 2);  /* in the order added */
  CHECK_EQ_INT(weft_graph_out(g, 2, &out), 0);
  CHECK_EQ_INT(weft_graph_out(g, 3, &out), WEFT_EINVAL);
  /* adding after a query: the adjacency is rebuilt */
  CHECK_EQ_INT(weft_graph_add_link(g, 2, 0, 5.0), 3);
  CHECK_EQ_INT(weft_graph_add_link(g, 0, 0, 5.0), 4);  /* a self loop is a link too */
  CHECK_EQ_INT(weft_graph_out(g, 2, &out), 1);
  CHECK_EQ_INT(out[0], 3);
  CHECK_EQ_INT(weft_graph_out(g, 0, &out), 3);
  CHECK(out[0] == 0 && out[1] == 2 && out[2] == 4);
  weft_graph_free(g);
  weft_graph_free(NULL);
}

/* ------------------------------------------------------------ flows by hand */

/* 1000 bytes on a 10 GB/s (= 10 bytes/ns) link: 100 ns. */
static void flow_one_link(void) {
  double cap = 10.0;
  WeftGraph *g = chain(1, &cap);
  WeftFlowSim *fs = sim_on(g, WEFT_SHARE_MAXMIN);
  CHECK(weft_flowsim_next(fs) == HUGE_VAL);  /* nothing active */
  int path = 0;
  CHECK_EQ_INT(weft_flowsim_start(fs, &path, 1, 1000.0, 7), WEFT_OK);
  CHECK_EQ_INT(weft_flowsim_active(fs), 1);
  CHECK_NEAR(weft_flowsim_next(fs), 100.0, 1e-12);
  unsigned long long done[4];
  CHECK_EQ_INT(weft_flowsim_advance(fs, 40.0, done, 4), 0);  /* partway: 400 bytes carried */
  CHECK_NEAR(weft_flowsim_link_bytes(fs, 0), 400.0, 1e-12);
  CHECK_NEAR(weft_flowsim_next(fs), 100.0, 1e-12);
  CHECK_EQ_INT(weft_flowsim_advance(fs, 100.0, done, 4), 1);
  CHECK(done[0] == 7);
  CHECK_EQ_INT(weft_flowsim_active(fs), 0);
  CHECK_NEAR(weft_flowsim_link_bytes(fs, 0), 1000.0, 1e-12);
  CHECK(weft_flowsim_next(fs) == HUGE_VAL);
  CHECK_NEAR(weft_flowsim_now(fs), 100.0, 0);
  weft_flowsim_free(fs);
  weft_graph_free(g);
}

/* Two flows on one 10 GB/s link get 5 each. Sizes 1000 and 3000: the first
 * ends at 1000/5 = 200 ns, leaving 3000 - 1000 = 2000 bytes to the second,
 * now alone at 10: 200 + 2000/10 = 400 ns. Equal sizes end together at 200. */
static void flow_two_share(void) {
  double cap = 10.0;
  WeftGraph *g = chain(1, &cap);
  WeftFlowSim *fs = sim_on(g, WEFT_SHARE_MAXMIN);
  int path = 0;
  weft_flowsim_start(fs, &path, 1, 1000.0, 1);
  weft_flowsim_start(fs, &path, 1, 3000.0, 2);
  double rate[2];
  CHECK_EQ_INT(weft_flowsim_rates(fs, NULL, rate, 2), 2);
  CHECK_NEAR(rate[0], 5.0, 1e-12);
  CHECK_NEAR(rate[1], 5.0, 1e-12);
  unsigned long long tags[4];
  double t;
  CHECK_EQ_INT(step(fs, &t, tags, 4), 1);
  CHECK_NEAR(t, 200.0, 1e-12);
  CHECK(tags[0] == 1);
  CHECK_EQ_INT(step(fs, &t, tags, 4), 1);
  CHECK_NEAR(t, 400.0, 1e-12);
  CHECK(tags[0] == 2);
  weft_flowsim_start(fs, &path, 1, 1000.0, 3);
  weft_flowsim_start(fs, &path, 1, 1000.0, 4);
  CHECK_EQ_INT(step(fs, &t, tags, 4), 2);
  CHECK_NEAR(t, 600.0, 1e-12);
  CHECK(tags[0] == 3 && tags[1] == 4);
  CHECK_NEAR(weft_flowsim_link_bytes(fs, 0), 6000.0, 1e-12);
  weft_flowsim_free(fs);
  weft_graph_free(g);
}

/* A parking lot: links L0 (10), L1 (6), L2 (12) in a chain; f0 crosses all
 * three, f1 uses L0, f2 and f4 use L1, f3 uses L2. Progressive filling:
 * shares L0 10/2 = 5, L1 6/3 = 2, L2 12/2 = 6; L1 fills first: f0 = f2 =
 * f4 = 2; then L0 has 10 - 2 = 8 for f1, L2 12 - 2 = 10 for f3.
 * Sizes f0 100, f1 40, f2 20, f3 40, f4 60:
 *   finishes at these rates: f3 40/10 = 4 first. At 4: f0 92, f1 8, f2 12, f4 52.
 *   Same shares without f3 (L1 still binds): f1 ends at 4 + 8/8 = 5.
 *   At 5: f0 90, f2 10, f4 50; L0 now 10/1, L1 still 2: f2 ends at 5 + 10/2 = 10.
 *   At 10: f0 80, f4 40; L1 6/2 = 3 each: f4 ends at 10 + 40/3 = 70/3.
 *   Then f0 (40 left) alone at min(10, 6, 12) = 6: ends at 70/3 + 40/6 = 30.
 * Link bytes: L0 100 + 40, L1 100 + 20 + 60, L2 100 + 40. */
static void flow_maxmin_parking_lot(void) {
  double caps[3] = {10.0, 6.0, 12.0};
  WeftGraph *g = chain(3, caps);
  WeftFlowSim *fs = sim_on(g, WEFT_SHARE_MAXMIN);
  int p0[3] = {0, 1, 2}, p1 = 0, p2 = 1, p3 = 2, p4 = 1;
  CHECK_EQ_INT(weft_flowsim_start(fs, p0, 3, 100.0, 0), WEFT_OK);
  CHECK_EQ_INT(weft_flowsim_start(fs, &p1, 1, 40.0, 1), WEFT_OK);
  CHECK_EQ_INT(weft_flowsim_start(fs, &p2, 1, 20.0, 2), WEFT_OK);
  CHECK_EQ_INT(weft_flowsim_start(fs, &p3, 1, 40.0, 3), WEFT_OK);
  CHECK_EQ_INT(weft_flowsim_start(fs, &p4, 1, 60.0, 4), WEFT_OK);
  double rate[5];
  unsigned long long tag[5];
  CHECK_EQ_INT(weft_flowsim_rates(fs, tag, rate, 5), 5);
  const double want[5] = {2, 8, 2, 10, 2};
  for (int i = 0; i < 5; i++) {
    CHECK(tag[i] == (unsigned long long)i);
    CHECK_NEAR(rate[i], want[i], 1e-12);
  }
  const double t_end[5] = {4.0, 5.0, 10.0, 70.0 / 3.0, 30.0};
  const unsigned long long order[5] = {3, 1, 2, 4, 0};
  for (int k = 0; k < 5; k++) {
    double t;
    unsigned long long d[5];
    CHECK_EQ_INT(step(fs, &t, d, 5), 1);
    CHECK_NEAR(t, t_end[k], 1e-12);
    CHECK(d[0] == order[k]);
  }
  CHECK(weft_flowsim_next(fs) == HUGE_VAL);
  CHECK_NEAR(weft_flowsim_link_bytes(fs, 0), 140.0, 1e-12);
  CHECK_NEAR(weft_flowsim_link_bytes(fs, 1), 180.0, 1e-12);
  CHECK_NEAR(weft_flowsim_link_bytes(fs, 2), 140.0, 1e-12);
  weft_flowsim_free(fs);
  weft_graph_free(g);
}

/* A path is limited by its slowest link: caps 10, 4, 8 give 4, so 100
 * bytes take 25 ns, under either sharing. */
static void flow_multihop(void) {
  double caps[3] = {10.0, 4.0, 8.0};
  WeftGraph *g = chain(3, caps);
  for (int sh = 0; sh < 2; sh++) {
    WeftFlowSim *fs = sim_on(g, (WeftSharing)sh);
    int p[3] = {0, 1, 2};
    CHECK_EQ_INT(weft_flowsim_start(fs, p, 3, 100.0, 9), WEFT_OK);
    double end = 0;
    CHECK_EQ_INT(weft_flowsim_run(fs, &end), WEFT_OK);
    CHECK_NEAR(end, 25.0, 1e-12);
    for (int l = 0; l < 3; l++) CHECK_NEAR(weft_flowsim_link_bytes(fs, l), 100.0, 1e-12);
    weft_flowsim_free(fs);
  }
  weft_graph_free(g);
}

/* FIFO: on one 10 GB/s link, two 1000-byte flows run one after the other
 * (100 and 200 ns), not side by side (both 200). With links L0 (10) and
 * L1 (5): A on L0, then B on L0 L1, then C on L1. B waits for A (older on
 * L0); C waits for B (older on L1) although B is not sending yet. A ends at
 * 100/10 = 10, B sends at min(10, 5) = 5: 10 + 100/5 = 30, C: 30 + 100/5 = 50. */
static void flow_fifo(void) {
  double caps[2] = {10.0, 5.0};
  WeftGraph *g = chain(2, caps);
  WeftFlowSim *fs = sim_on(g, WEFT_SHARE_FIFO);
  int p0 = 0;
  weft_flowsim_start(fs, &p0, 1, 1000.0, 1);
  weft_flowsim_start(fs, &p0, 1, 1000.0, 2);
  double t;
  unsigned long long d[4];
  CHECK_EQ_INT(step(fs, &t, d, 4), 1);
  CHECK_NEAR(t, 100.0, 1e-12);
  CHECK(d[0] == 1);
  CHECK_EQ_INT(step(fs, &t, d, 4), 1);
  CHECK_NEAR(t, 200.0, 1e-12);
  CHECK(d[0] == 2);
  weft_flowsim_free(fs);

  fs = sim_on(g, WEFT_SHARE_FIFO);
  int pa = 0, pb[2] = {0, 1}, pc = 1;
  weft_flowsim_start(fs, &pa, 1, 100.0, 10);
  weft_flowsim_start(fs, pb, 2, 100.0, 11);
  weft_flowsim_start(fs, &pc, 1, 100.0, 12);
  double rate[3];
  CHECK_EQ_INT(weft_flowsim_rates(fs, NULL, rate, 3), 3);
  CHECK(rate[0] == 10.0 && rate[1] == 0.0 && rate[2] == 0.0);
  const double t_end[3] = {10.0, 30.0, 50.0};
  for (int k = 0; k < 3; k++) {
    CHECK_EQ_INT(step(fs, &t, d, 4), 1);
    CHECK_NEAR(t, t_end[k], 1e-12);
    CHECK(d[0] == 10ULL + (unsigned long long)k);
  }
  CHECK_NEAR(weft_flowsim_link_bytes(fs, 0), 200.0, 1e-12);  /* A and B */
  CHECK_NEAR(weft_flowsim_link_bytes(fs, 1), 200.0, 1e-12);  /* B and C */
  weft_flowsim_free(fs);
  weft_graph_free(g);
}

/* Five equal flows on one link end together: tags oldest first (start
 * order, not tag order), handed out 2 + 2 + 1 while the caller asks again
 * at the same time; next() stays at now while some are still to collect.
 * Sizes 0.1 on a 0.3 link (rates 0.06) round differently per flow yet
 * complete in one advance with no remnant. */
static void flow_tags_oldest_first(void) {
  double cap = 0.3;
  WeftGraph *g = chain(1, &cap);
  WeftFlowSim *fs = sim_on(g, WEFT_SHARE_MAXMIN);
  int p = 0;
  for (int i = 0; i < 5; i++) weft_flowsim_start(fs, &p, 1, 0.1, 50ULL - 10ULL * (unsigned)i);
  double t = weft_flowsim_next(fs);
  CHECK_NEAR(t, 0.1 / 0.06, 1e-12);
  unsigned long long d[2];
  CHECK_EQ_INT(weft_flowsim_advance(fs, t, d, 2), 2);
  CHECK(d[0] == 50 && d[1] == 40);
  CHECK_EQ_INT(weft_flowsim_active(fs), 0);  /* all completed, two handed out */
  CHECK(weft_flowsim_next(fs) == t);
  CHECK_EQ_INT(weft_flowsim_advance(fs, t, d, 2), 2);
  CHECK(d[0] == 30 && d[1] == 20);
  CHECK_EQ_INT(weft_flowsim_advance(fs, t, d, 2), 1);
  CHECK(d[0] == 10);
  CHECK(weft_flowsim_next(fs) == HUGE_VAL);
  CHECK_NEAR(weft_flowsim_link_bytes(fs, 0), 0.5, 1e-12);
  weft_flowsim_free(fs);
  weft_graph_free(g);
}

/* Flows that end together in real arithmetic but not in floating point:
 * f1 (0.7 bytes) alone on a 0.1 link for 3 ns has 0.4 left (rounded: its
 * finish comes out 1 ulp early); f2 (0.4) joins; both at 0.05 end at
 * 3 + 0.4/0.05 = 11 ns, in one advance, with nothing left over. */
static void flow_together(void) {
  double cap = 0.1;
  WeftGraph *g = chain(1, &cap);
  WeftFlowSim *fs = sim_on(g, WEFT_SHARE_MAXMIN);
  int p = 0;
  weft_flowsim_start(fs, &p, 1, 0.7, 1);
  unsigned long long d[4];
  CHECK_EQ_INT(weft_flowsim_advance(fs, 3.0, d, 4), 0);
  weft_flowsim_start(fs, &p, 1, 0.4, 2);
  double t;
  CHECK_EQ_INT(step(fs, &t, d, 4), 2);
  CHECK_NEAR(t, 11.0, 1e-12);
  CHECK(d[0] == 1 && d[1] == 2);
  CHECK_EQ_INT(weft_flowsim_active(fs), 0);
  CHECK_NEAR(weft_flowsim_link_bytes(fs, 0), 1.1, 1e-12);
  weft_flowsim_free(fs);
  weft_graph_free(g);
}

static void flow_bad_args(void) {
  double caps[3] = {10.0, 10.0, 10.0};
  WeftGraph *g = chain(3, caps);
  WeftFlowSim *fs = NULL;
  CHECK_EQ_INT(weft_flowsim_create(NULL, WEFT_SHARE_MAXMIN, &fs), WEFT_EINVAL);
  CHECK_EQ_INT(weft_flowsim_create(g, (WeftSharing)7, &fs), WEFT_EINVAL);
  fs = sim_on(g, WEFT_SHARE_MAXMIN);
  int gap[2] = {0, 2}, back[2] = {1, 0}, bad1[1] = {-1}, bad2[1] = {3}, ok[2] = {0, 1};
  CHECK_EQ_INT(weft_flowsim_start(fs, gap, 2, 1.0, 0), WEFT_EINVAL);   /* 1 != 2 */
  CHECK_EQ_INT(weft_flowsim_start(fs, back, 2, 1.0, 0), WEFT_EINVAL);  /* 2 != 0 */
  CHECK_EQ_INT(weft_flowsim_start(fs, bad1, 1, 1.0, 0), WEFT_EINVAL);
  CHECK_EQ_INT(weft_flowsim_start(fs, bad2, 1, 1.0, 0), WEFT_EINVAL);
  CHECK_EQ_INT(weft_flowsim_start(fs, ok, 0, 1.0, 0), WEFT_EINVAL);
  CHECK_EQ_INT(weft_flowsim_start(fs, NULL, 1, 1.0, 0), WEFT_EINVAL);
  CHECK_EQ_INT(weft_flowsim_start(fs, ok, 2, 0.0, 0), WEFT_EINVAL);
  CHECK_EQ_INT(weft_flowsim_start(fs, ok, 2, -1.0, 0), WEFT_EINVAL);
  CHECK_EQ_INT(weft_flowsim_start(fs, ok, 2, (double)NAN, 0), WEFT_EINVAL);
  CHECK_EQ_INT(weft_flowsim_start(fs, ok, 2, HUGE_VAL, 0), WEFT_EINVAL);
  CHECK_EQ_INT(weft_flowsim_active(fs), 0);  /* nothing half-added */
  CHECK_EQ_INT(weft_flowsim_start(fs, ok, 2, 100.0, 0), WEFT_OK);
  unsigned long long d[1];
  CHECK_EQ_INT(weft_flowsim_advance(fs, 11.0, d, 1), WEFT_EINVAL);  /* past next = 10 */
  CHECK_EQ_INT(weft_flowsim_advance(fs, 5.0, d, 1), 0);
  CHECK_EQ_INT(weft_flowsim_advance(fs, 4.0, d, 1), WEFT_EINVAL);   /* back in time */
  CHECK_EQ_INT(weft_flowsim_advance(fs, 6.0, NULL, 1), WEFT_EINVAL);
  CHECK_EQ_INT(weft_flowsim_advance(fs, 6.0, d, -1), WEFT_EINVAL);
  CHECK_NEAR(weft_flowsim_now(fs), 5.0, 0);
  CHECK_EQ_INT(weft_flowsim_advance(fs, 10.0, d, 1), 1);
  weft_flowsim_free(fs);
  weft_flowsim_free(NULL);
  weft_graph_free(g);
}

/* ------------------------------------------------------------ oracle, conservation */

/* A random graph on nn nodes with nl links of caps in [1, 10] (a ring
 * first, so every node has a way out). */
static WeftGraph *random_graph(uint64_t *seed, int nn, int nl) {
  WeftGraph *g = weft_graph_create(nn);
  for (int i = 0; i < nl; i++) {
    int a = i < nn ? i : (int)(rng_next(seed) % (uint64_t)nn);
    int b = i < nn ? (i + 1) % nn : (int)(rng_next(seed) % (uint64_t)nn);
    weft_graph_add_link(g, a, b, 1.0 + (double)(rng_next(seed) % 901) / 100.0);
  }
  return g;
}

/* A random walk of up to maxh links that never repeats a link. */
static int random_path(uint64_t *seed, WeftGraph *g, int maxh, int *path) {
  int node = (int)(rng_next(seed) % (uint64_t)weft_graph_nodes(g));
  int want = 1 + (int)(rng_next(seed) % (uint64_t)maxh), n = 0;
  while (n < want) {
    const int *out;
    int k = weft_graph_out(g, node, &out);
    int l = out[rng_next(seed) % (uint64_t)k], used = 0;
    for (int i = 0; i < n; i++) used |= path[i] == l;
    if (used) break;
    path[n++] = l;
    weft_graph_link(g, l, NULL, &node, NULL);
  }
  return n;
}

#define OR_FLOWS 64
#define OR_HOPS 5

typedef struct {
  unsigned long long tag;
  int path[OR_HOPS], n;
  double size;
} OrFlow;

/* Feasible (no link over capacity) and max-min fair: every flow has a
 * saturated link on its path where no flow gets more than it. These two
 * properties characterise the max-min allocation (Bertsekas-Gallager). */
static void check_maxmin(WeftFlowSim *fs, const WeftGraph *g, const OrFlow *fl) {
  unsigned long long tags[OR_FLOWS * 8];
  double rate[OR_FLOWS * 8], load[64] = {0}, top[64] = {0};
  size_t n = weft_flowsim_rates(fs, tags, rate, OR_FLOWS * 8);
  int nl = weft_graph_nlinks(g);
  for (size_t i = 0; i < n; i++) {
    const OrFlow *f = &fl[tags[i]];
    CHECK(rate[i] > 0.0);
    for (int h = 0; h < f->n; h++) {
      load[f->path[h]] += rate[i];
      if (rate[i] > top[f->path[h]]) top[f->path[h]] = rate[i];
    }
  }
  for (int l = 0; l < nl; l++) {
    double cap;
    weft_graph_link(g, l, NULL, NULL, &cap);
    CHECK(load[l] <= cap * (1.0 + 1e-9));
  }
  for (size_t i = 0; i < n; i++) {
    const OrFlow *f = &fl[tags[i]];
    int has = 0;
    for (int h = 0; h < f->n; h++) {
      double cap;
      weft_graph_link(g, f->path[h], NULL, NULL, &cap);
      if (load[f->path[h]] >= cap * (1.0 - 1e-9) && rate[i] >= top[f->path[h]] * (1.0 - 1e-9))
        has = 1;
    }
    CHECK(has);
  }
}

/* Random instances, flows starting at random moments; at every event the
 * rates pass the max-min oracle; each flow completes once; at the end each
 * link carried exactly the sizes of the flows routed through it. */
static void flow_maxmin_oracle_and_conservation(void) {
  uint64_t seed = 12345;
  for (int trial = 0; trial < 300; trial++) {
    int nn = 2 + (int)(rng_next(&seed) % 5), nl = nn + (int)(rng_next(&seed) % 8);
    WeftSharing sh = trial % 4 == 3 ? WEFT_SHARE_FIFO : WEFT_SHARE_MAXMIN;
    WeftGraph *g = random_graph(&seed, nn, nl);
    WeftFlowSim *fs = sim_on(g, sh);
    OrFlow fl[OR_FLOWS];
    int nf = 1 + (int)(rng_next(&seed) % OR_FLOWS), started = 0, completed = 0;
    int seen[OR_FLOWS] = {0};
    double want[64] = {0};
    while (completed < nf) {
      int burst = started < nf ? 1 + (int)(rng_next(&seed) % 4) : 0;
      for (int b = 0; b < burst && started < nf; b++, started++) {
        OrFlow *f = &fl[started];
        f->tag = (unsigned long long)started;
        f->n = random_path(&seed, g, OR_HOPS, f->path);
        f->size = 1.0 + (double)(rng_next(&seed) % 1000);
        for (int h = 0; h < f->n; h++) want[f->path[h]] += f->size;
        CHECK_EQ_INT(weft_flowsim_start(fs, f->path, f->n, f->size, f->tag), WEFT_OK);
      }
      if (sh == WEFT_SHARE_MAXMIN) check_maxmin(fs, g, fl);
      double t = weft_flowsim_next(fs);
      if (t >= HUGE_VAL) continue;  /* all done so far: start more */
      if (started < nf && rng_next(&seed) % 2) t = weft_flowsim_now(fs) + 0.5 * (t - weft_flowsim_now(fs));
      unsigned long long d[3];
      int k;
      do {
        k = weft_flowsim_advance(fs, t, d, 3);
        CHECK(k >= 0);
        for (int i = 0; i < k; i++) {
          CHECK(d[i] < (unsigned long long)nf && !seen[d[i]]);
          seen[d[i] % OR_FLOWS] = 1;
        }
        completed += k > 0 ? k : 0;
      } while (k == 3);
      if (k < 0) break;
    }
    CHECK_EQ_INT(weft_flowsim_active(fs), 0);
    for (int l = 0; l < nl; l++) CHECK_NEAR(weft_flowsim_link_bytes(fs, l), want[l], 1e-9);
    weft_flowsim_free(fs);
    weft_graph_free(g);
  }
}

/* A naive reference simulator: at every event, rates from scratch over all
 * active flows (progressive filling by repeated scans, or FIFO by start
 * order), then time moves to the next completion or arrival. Written
 * independently of the engine (no components, heaps or tolerances beyond
 * "left <= 1e-9 x size"). */
typedef struct {
  int path[OR_HOPS], n;
  double size, start, left, rate, end;
  int state;  /* 0 not started, 1 active, 2 done */
} RefFlow;

static void ref_rates(RefFlow *f, int nf, const double *cap, int nl, WeftSharing sh) {
  double res[64];
  int frozen[OR_FLOWS] = {0}, claimed[64] = {0};
  for (int l = 0; l < nl; l++) res[l] = cap[l];
  if (sh == WEFT_SHARE_FIFO) {  /* flows are indexed in start order */
    for (int i = 0; i < nf; i++) {
      if (f[i].state != 1) continue;
      int sends = 1;
      double c = HUGE_VAL;
      for (int h = 0; h < f[i].n; h++) {
        sends &= !claimed[f[i].path[h]];
        c = cap[f[i].path[h]] < c ? cap[f[i].path[h]] : c;
      }
      for (int h = 0; h < f[i].n; h++) claimed[f[i].path[h]] = 1;
      f[i].rate = sends ? c : 0.0;
    }
    return;
  }
  for (;;) {
    double share[64], best = HUGE_VAL;
    for (int l = 0; l < nl; l++) {
      int cnt = 0;
      for (int i = 0; i < nf; i++)
        if (f[i].state == 1 && !frozen[i])
          for (int h = 0; h < f[i].n; h++) cnt += f[i].path[h] == l;
      share[l] = cnt ? res[l] / cnt : HUGE_VAL;
      if (share[l] < best) best = share[l];
    }
    if (best == HUGE_VAL) return;
    int newly[OR_FLOWS], nn = 0;
    for (int i = 0; i < nf; i++) {
      if (f[i].state != 1 || frozen[i]) continue;
      for (int h = 0; h < f[i].n; h++)
        if (share[f[i].path[h]] <= best * (1.0 + 1e-12)) {
          newly[nn++] = i;
          break;
        }
    }
    for (int k = 0; k < nn; k++) {
      frozen[newly[k]] = 1;
      f[newly[k]].rate = best;
      for (int h = 0; h < f[newly[k]].n; h++) res[f[newly[k]].path[h]] -= best;
    }
  }
}

static void ref_run(RefFlow *f, int nf, const double *cap, int nl, WeftSharing sh) {
  double t = 0.0;
  for (;;) {
    for (int i = 0; i < nf; i++)
      if (f[i].state == 0 && f[i].start <= t) f[i].state = 1;
    ref_rates(f, nf, cap, nl, sh);
    double tn = HUGE_VAL;
    for (int i = 0; i < nf; i++) {
      if (f[i].state == 1 && f[i].rate > 0 && t + f[i].left / f[i].rate < tn) tn = t + f[i].left / f[i].rate;
      if (f[i].state == 0 && f[i].start < tn) tn = f[i].start;
    }
    if (tn == HUGE_VAL) return;
    for (int i = 0; i < nf; i++) {
      if (f[i].state != 1) continue;
      f[i].left -= f[i].rate * (tn - t);
      if (f[i].left <= 1e-9 * f[i].size) {
        f[i].state = 2;
        f[i].end = tn;
      }
    }
    t = tn;
  }
}

/* The engine against the reference on random instances: many small
 * components (disjoint chains, so events are local and the finish heap is
 * used) or one tangled graph, flows arriving over time; every completion
 * time agrees. */
static void flow_reference_sim(void) {
  uint64_t seed = 99;
  for (int trial = 0; trial < 160; trial++) {
    WeftSharing sh = trial % 3 == 2 ? WEFT_SHARE_FIFO : WEFT_SHARE_MAXMIN;
    WeftGraph *g;
    if (trial % 2) {
      g = random_graph(&seed, 2 + (int)(rng_next(&seed) % 5), 12);
    } else {  /* 15 chains of 3 links: nodes 4c..4c+3, links 3c..3c+2 */
      g = weft_graph_create(60);
      for (int c = 0; c < 15; c++)
        for (int k = 0; k < 3; k++)
          weft_graph_add_link(g, 4 * c + k, 4 * c + k + 1, 1.0 + (double)(rng_next(&seed) % 901) / 100.0);
    }
    int nl = weft_graph_nlinks(g);
    double cap[64];
    for (int l = 0; l < nl; l++) weft_graph_link(g, l, NULL, NULL, &cap[l]);
    RefFlow rf[OR_FLOWS];
    int nf = 8 + (int)(rng_next(&seed) % (OR_FLOWS - 8));
    for (int i = 0; i < nf; i++) {
      RefFlow *f = &rf[i];
      memset(f, 0, sizeof *f);
      if (trial % 2) {
        f->n = random_path(&seed, g, OR_HOPS, f->path);
      } else {
        int c = (int)(rng_next(&seed) % 15), a = (int)(rng_next(&seed) % 3);
        int b = a + (int)(rng_next(&seed) % (uint64_t)(3 - a));
        for (int k = a; k <= b; k++) f->path[f->n++] = 3 * c + k;
      }
      f->size = f->left = 1.0 + (double)(rng_next(&seed) % 500);
      /* arrivals in index order (start order), some at the same time */
      f->start = i == 0 ? 0.0 : rf[i - 1].start + 0.25 * (double)(rng_next(&seed) % 8);
    }
    ref_run(rf, nf, cap, nl, sh);
    WeftFlowSim *fs = sim_on(g, sh);
    double end[OR_FLOWS];
    int next_start = 0, ndone = 0;
    while (ndone < nf) {
      double t = weft_flowsim_next(fs);
      if (next_start < nf && rf[next_start].start < t) t = rf[next_start].start;
      unsigned long long d[4];
      int k;
      do {
        k = weft_flowsim_advance(fs, t, d, 4);
        CHECK(k >= 0);
        for (int i = 0; i < k; i++) end[d[i]] = t;
        ndone += k > 0 ? k : 0;
      } while (k == 4);
      if (k < 0) break;
      while (next_start < nf && rf[next_start].start <= t) {
        RefFlow *f = &rf[next_start];
        CHECK_EQ_INT(weft_flowsim_start(fs, f->path, f->n, f->size, (unsigned long long)next_start), WEFT_OK);
        next_start++;
      }
    }
    for (int i = 0; i < nf; i++) {
      CHECK(rf[i].state == 2);
      CHECK_NEAR(end[i], rf[i].end, 1e-6);
    }
    weft_flowsim_free(fs);
    weft_graph_free(g);
  }
}

/* Eight long flows (links 0..7, one each, started among the first short
 * ones) stay while thousands of short ones come and go, alone on link 8 or
 * across a long one's link (sharing it: half each): events are local (the
 * finish heap is in use), and slots and paths are compacted under the long
 * flows, which move. Short flows alone: 80 bytes at 8 = 10 ns; sharing: 80
 * at 4 = 20 ns. Link k stays saturated from the start t_k of long flow k,
 * so carries 8 (T - t_k); link 8 carries 80 per short flow on it. Long flow
 * k then has 1e9 - 8 (T - t_k) + 80 x 125 left (125 short ones crossed it)
 * and ends alone at T + that / 8 = 1e9/8 + 1250 + t_k. */
static void flow_compaction(void) {
  WeftGraph *g = weft_graph_create(2);
  for (int l = 0; l < 9; l++) weft_graph_add_link(g, 0, 1, 8.0);
  WeftFlowSim *fs = sim_on(g, WEFT_SHARE_MAXMIN);
  double t_prev = 0.0, t_long[8];
  int alone = 0;
  for (int i = 0; i < 3000; i++) {
    if (i < 8) {  /* (i / 3) % 8 <= i: a long flow is there before any short one crosses it */
      t_long[i] = t_prev;
      CHECK_EQ_INT(weft_flowsim_start(fs, &i, 1, 1e9, 1000000ULL + (unsigned)i), WEFT_OK);
    }
    int across = i % 3 == 0, link = across ? (i / 3) % 8 : 8;
    alone += !across;
    CHECK_EQ_INT(weft_flowsim_start(fs, &link, 1, 80.0, (unsigned long long)i), WEFT_OK);
    double t;
    unsigned long long d[2];
    CHECK_EQ_INT(step(fs, &t, d, 2), 1);
    CHECK(d[0] == (unsigned long long)i);
    CHECK_NEAR(t - t_prev, across ? 20.0 : 10.0, 1e-9);
    t_prev = t;
  }
  CHECK_EQ_INT(weft_flowsim_active(fs), 8);
  for (int l = 0; l < 8; l++) CHECK_NEAR(weft_flowsim_link_bytes(fs, l), 8.0 * (t_prev - t_long[l]), 1e-9);
  CHECK_NEAR(weft_flowsim_link_bytes(fs, 8), 80.0 * alone, 1e-9);
  for (int l = 0; l < 8; l++) {
    double t;
    unsigned long long d[8];
    CHECK_EQ_INT(step(fs, &t, d, 8), 1);
    CHECK_NEAR(t, 1e9 / 8.0 + 1250.0 + t_long[l], 1e-12);
    CHECK(d[0] == 1000000ULL + (unsigned)l);
  }
  weft_flowsim_free(fs);
  weft_graph_free(g);
}

/* The tolerance is the flow's, and its remnant still reaches the links.
 * A (1e6 bytes at 1 GB/s from 0) is due at 1e6; B (1e6 + 5e-4 bytes) at
 * 1e6 + 5e-4, within 1e-9 of its 1e6 ns to finish (1e-3 ns): B completes
 * with A, 5e-4 bytes unsent by the clock, and its link still counts them.
 * Two 1-byte flows 5e-4 ns apart at the same clock are 5e-4 of a flow apart,
 * far over 1e-9: each completes at its own time (the old tolerance, 1e-9 of
 * the clock, took them together). */
static void flow_remnant(void) {
  WeftGraph *g = weft_graph_create(2);
  weft_graph_add_link(g, 0, 1, 1.0);
  weft_graph_add_link(g, 0, 1, 1.0);
  WeftFlowSim *fs = sim_on(g, WEFT_SHARE_MAXMIN);
  int a = 0, b = 1;
  weft_flowsim_start(fs, &a, 1, 1e6, 1);
  weft_flowsim_start(fs, &b, 1, 1e6 + 5e-4, 2);
  double t;
  unsigned long long d[2];
  CHECK_EQ_INT(step(fs, &t, d, 2), 2);
  CHECK_NEAR(t, 1e6, 1e-15);
  CHECK_NEAR(weft_flowsim_link_bytes(fs, 1), 1e6 + 5e-4, 1e-15);
  CHECK_EQ_INT(weft_flowsim_advance(fs, 2e6 - 1.0, NULL, 0), 0);  /* idle: time just moves */
  weft_flowsim_start(fs, &a, 1, 1.0, 3);
  weft_flowsim_start(fs, &b, 1, 1.0005, 4);
  CHECK_EQ_INT(step(fs, &t, d, 2), 1);
  CHECK_NEAR(t, 2e6, 1e-15);
  CHECK(d[0] == 3ULL);
  CHECK_EQ_INT(step(fs, &t, d, 2), 1);
  CHECK_NEAR(t, 2e6 + 5e-4, 1e-15);
  CHECK(d[0] == 4ULL);
  weft_flowsim_free(fs);
  weft_graph_free(g);
}

/* Short flows late in a long run: at 1e18 ns (128 ns a unit of the clock) a
 * flow of 60 us still takes 60 us, within the clock's rounding. */
static void flow_late_clock(void) {
  WeftGraph *g = weft_graph_create(2);
  weft_graph_add_link(g, 0, 1, 100.0);
  WeftFlowSim *fs = sim_on(g, WEFT_SHARE_MAXMIN);
  CHECK_EQ_INT(weft_flowsim_advance(fs, 1e18, NULL, 0), 0);
  int a = 0;
  weft_flowsim_start(fs, &a, 1, 6e6, 1);
  double t;
  unsigned long long d[1];
  CHECK_EQ_INT(step(fs, &t, d, 1), 1);
  CHECK(fabs((t - 1e18) - 60000.0) <= 128.0);
  weft_flowsim_free(fs);
  weft_graph_free(g);
}

/* Completions taken from the finish heap, which is in use once events have
 * been local a few times in a row. 100 flows on their own links of 1 GB/s:
 * sizes 10, 20, 30, 40 end alone (the heap is rebuilt after the third),
 * then 96 of 50 bytes end together at 50 (more than the heap pops one by
 * one: one pass takes them), tags oldest first; four more (60..63 bytes)
 * are left in the heap and end at 60..63. Then two flows that end
 * "together" in the wrong order by rounding: X (older) 3 bytes at 1 ends
 * at 3.0, Y (younger) 0.3 at 0.1 at 2.9999999999999996: Y comes off the
 * heap first, X is still handed out first. */
static void flow_heap_paths(void) {
  WeftGraph *g = weft_graph_create(2);
  for (int l = 0; l < 120; l++) weft_graph_add_link(g, 0, 1, l == 119 ? 0.1 : 1.0);
  WeftFlowSim *fs = sim_on(g, WEFT_SHARE_MAXMIN);
  for (int l = 0; l < 104; l++)  /* the last four, 60..63 bytes, outlive the batch */
    weft_flowsim_start(fs, &l, 1, l < 4 ? 10.0 * (l + 1) : l < 100 ? 50.0 : l - 40.0,
                       (unsigned long long)l);
  unsigned long long d[100];
  double t;
  for (int k = 0; k < 4; k++) {
    CHECK_EQ_INT(step(fs, &t, d, 100), 1);
    CHECK_NEAR(t, 10.0 * (k + 1), 1e-12);
    CHECK(d[0] == (unsigned long long)k);
  }
  CHECK_EQ_INT(step(fs, &t, d, 100), 96);
  CHECK_NEAR(t, 50.0, 1e-12);
  for (int i = 0; i < 96; i++) CHECK(d[i] == 4ULL + (unsigned long long)i);
  for (int k = 0; k < 4; k++) {
    CHECK_EQ_INT(step(fs, &t, d, 100), 1);
    CHECK_NEAR(t, 60.0 + k, 1e-12);
    CHECK(d[0] == 100ULL + (unsigned long long)k);
  }
  weft_flowsim_free(fs);

  fs = sim_on(g, WEFT_SHARE_MAXMIN);
  for (int l = 0; l < 100; l++)  /* three short ones, then 97 long */
    weft_flowsim_start(fs, &l, 1, l < 3 ? 0.5 * (l + 1) : 1000.0, (unsigned long long)l);
  int lx = 100, ly = 119;
  weft_flowsim_start(fs, &lx, 1, 3.0, 500);
  weft_flowsim_start(fs, &ly, 1, 0.3, 501);
  for (int k = 0; k < 3; k++) CHECK_EQ_INT(step(fs, &t, d, 100), 1);
  CHECK_EQ_INT(step(fs, &t, d, 100), 2);
  CHECK_NEAR(t, 3.0, 1e-12);
  CHECK(d[0] == 500 && d[1] == 501);
  weft_flowsim_free(fs);

  /* Compaction while the heap is in use: three short flows (heap on), 97
   * long ones (1000 + l bytes on link l, at 1: end at 1000 + l), then 300
   * one-byte flows one after another on link 110 fill the slots until the
   * 97 live ones are slid down over the three dead; they end on time. */
  fs = sim_on(g, WEFT_SHARE_MAXMIN);
  for (int l = 0; l < 100; l++)
    weft_flowsim_start(fs, &l, 1, l < 3 ? 0.5 * (l + 1) : 1000.0 + l, (unsigned long long)l);
  for (int k = 0; k < 3; k++) CHECK_EQ_INT(step(fs, &t, d, 100), 1);
  int lz = 110;
  for (int i = 0; i < 300; i++) {
    weft_flowsim_start(fs, &lz, 1, 1.0, 1000ULL + (unsigned)i);
    CHECK_EQ_INT(step(fs, &t, d, 100), 1);
    CHECK_NEAR(t, 2.5 + i, 1e-12);
  }
  for (int l = 3; l < 100; l++) {
    CHECK_EQ_INT(step(fs, &t, d, 100), 1);
    CHECK_NEAR(t, 1000.0 + l, 1e-12);
    CHECK(d[0] == (unsigned long long)l);
  }
  weft_flowsim_free(fs);
  weft_graph_free(g);
}

/* Mid-flight, a link's bytes are the integral of its rate: before any
 * completion, t x (sum of its flows' rates). */
static void flow_link_bytes_integral(void) {
  uint64_t seed = 777;
  for (int trial = 0; trial < 50; trial++) {
    WeftGraph *g = random_graph(&seed, 5, 12);
    WeftFlowSim *fs = sim_on(g, WEFT_SHARE_MAXMIN);
    OrFlow fl[8];
    for (int i = 0; i < 8; i++) {
      fl[i].n = random_path(&seed, g, OR_HOPS, fl[i].path);
      weft_flowsim_start(fs, fl[i].path, fl[i].n, 1000.0 + (double)i, (unsigned long long)i);
    }
    double rate[8], carried[64] = {0};
    weft_flowsim_rates(fs, NULL, rate, 8);
    double t = 0.7 * weft_flowsim_next(fs);
    CHECK_EQ_INT(weft_flowsim_advance(fs, t, NULL, 0), 0);
    for (int i = 0; i < 8; i++)
      for (int h = 0; h < fl[i].n; h++) carried[fl[i].path[h]] += rate[i] * t;
    for (int l = 0; l < 12; l++) CHECK_NEAR(weft_flowsim_link_bytes(fs, l), carried[l], 1e-9);
    weft_flowsim_free(fs);
    weft_graph_free(g);
  }
}

/* Many short flows in sequence (slots and path storage reused, compacted)
 * still each take size / cap. */
static void flow_reuse(void) {
  double caps[4] = {8.0, 8.0, 8.0, 8.0};
  WeftGraph *g = chain(4, caps);
  WeftFlowSim *fs = sim_on(g, WEFT_SHARE_MAXMIN);
  int p[4] = {0, 1, 2, 3};
  double t_prev = 0.0;
  for (int i = 0; i < 5000; i++) {
    int h = 1 + i % 4;
    CHECK_EQ_INT(weft_flowsim_start(fs, p + 4 - h, h, 80.0, (unsigned long long)i), WEFT_OK);
    double t;
    unsigned long long d[2];
    CHECK_EQ_INT(step(fs, &t, d, 2), 1);
    CHECK_NEAR(t - t_prev, 10.0, 1e-9);  /* 80 bytes at 8 */
    CHECK(d[0] == (unsigned long long)i);
    t_prev = t;
  }
  weft_flowsim_free(fs);
  weft_graph_free(g);
}

/* ------------------------------------------------------------ NPU graph */

static WeftNetwork net_of(int ndims, const WeftTopology *topo, const int *npus) {
  WeftNetwork net;
  memset(&net, 0, sizeof net);
  net.ndims = ndims;
  for (int d = 0; d < ndims; d++) {
    net.topology[d] = topo[d];
    net.npus[d] = npus[d];
    net.line[d] = 10 + d;
  }
  snprintf(net.file, sizeof net.file, "net.yml");
  return net;
}

/* Coordinate d of NPU v, recomputed here from the header's definition. */
static int coord(const WeftNetwork *net, int v, int d) {
  for (int e = 0; e < d; e++) v /= net->npus[e];
  return v % net->npus[d];
}

/* Ring 4 x FullyConnected 3 x Switch 2 at B = 100, 60, 40: N = 24 NPUs,
 * 24 / 2 = 12 switches; links per NPU 2 + 2 + 2 = 6, 144 in all. Ring links
 * 50, FC 60 / 2 = 30, switch 40. Each NPU has 2 + 2 + 1 out-links, each
 * switch 2 (its block). Every NPU-to-NPU link joins NPUs differing in
 * exactly its dim's coordinate, by +-1 mod 4 on the ring. */
static void flow_npu_graph_shape(void) {
  WeftTopology topo[3] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_SWITCH};
  int npus[3] = {4, 3, 2};
  WeftNetwork net = net_of(3, topo, npus);
  double bw[3] = {100.0, 60.0, 40.0};
  WeftGraph *g = NULL;
  WeftError err;
  CHECK_EQ_INT(weft_network_graph(&net, bw, &g, &err), WEFT_OK);
  if (!g) return;
  CHECK_EQ_INT(weft_graph_nodes(g), 36);
  CHECK_EQ_INT(weft_graph_nlinks(g), 144);
  const double cap_of[3] = {50.0, 30.0, 40.0};
  int ring_fwd = 0, ring_bwd = 0, up = 0, down = 0, fc = 0;
  for (int l = 0; l < 144; l++) {
    int a, b, d = weft_network_link_dim(&net, l);
    double bwl;
    weft_graph_link(g, l, &a, &b, &bwl);
    CHECK_EQ_INT(d, l / 48);  /* 24 NPUs x 2 links per dim */
    CHECK_NEAR(bwl, cap_of[d], 1e-12);
    if (d < 2) {
      CHECK(a < 24 && b < 24);
      for (int e = 0; e < 3; e++)
        if (e != d) CHECK_EQ_INT(coord(&net, a, e), coord(&net, b, e));
      int ca = coord(&net, a, d), cb = coord(&net, b, d);
      CHECK(ca != cb);
      if (d == 0) {
        ring_fwd += cb == (ca + 1) % 4;
        ring_bwd += cb == (ca + 3) % 4;
      } else {
        fc++;
      }
    } else {
      CHECK((a < 24) != (b < 24));  /* NPU <-> switch */
      int v = a < 24 ? a : b, sw = a < 24 ? b : a;
      up += a < 24;
      down += b < 24;
      CHECK_EQ_INT(sw, 24 + v % 12);  /* the 2 NPUs differing in coordinate 2 share it */
    }
  }
  CHECK(ring_fwd == 24 && ring_bwd == 24 && fc == 48 && up == 24 && down == 24);
  for (int v = 0; v < 36; v++) CHECK_EQ_INT(weft_graph_out(g, v, NULL), v < 24 ? 5 : 2);
  CHECK_EQ_INT(weft_network_link_dim(&net, 144), -1);
  CHECK_EQ_INT(weft_network_link_dim(&net, -1), -1);
  weft_graph_free(g);

  /* FC 4 x Ring 2: 3 links of B/3 per NPU on dim 0, then 2 of B/2 per NPU
   * on the 2-ring (both to the one neighbour): 8 x 3 + 8 x 2 = 40 links. */
  WeftTopology t2[2] = {WEFT_FULLY_CONNECTED, WEFT_RING};
  int n2[2] = {4, 2};
  net = net_of(2, t2, n2);
  double bw2[2] = {90.0, 10.0};
  CHECK_EQ_INT(weft_network_graph(&net, bw2, &g, &err), WEFT_OK);
  CHECK_EQ_INT(weft_graph_nlinks(g), 40);
  for (int l = 0; l < 40; l++) {
    int a, b;
    double bwl;
    weft_graph_link(g, l, &a, &b, &bwl);
    CHECK_NEAR(bwl, l < 24 ? 30.0 : 5.0, 1e-12);
    if (l >= 24) CHECK_EQ_INT(b, a ^ 4);  /* coordinate 1 flipped: v +- 4 */
  }
  weft_graph_free(g);
}

/* Hop counts of shortest paths from src (BFS over the graph), into dist. */
static void bfs(WeftGraph *g, int src, int *dist, int *queue) {
  int nn = weft_graph_nodes(g), head = 0, tail = 0;
  for (int v = 0; v < nn; v++) dist[v] = -1;
  dist[src] = 0;
  queue[tail++] = src;
  while (head < tail) {
    int v = queue[head++];
    const int *out;
    int k = weft_graph_out(g, v, &out);
    for (int i = 0; i < k; i++) {
      int to;
      weft_graph_link(g, out[i], NULL, &to, NULL);
      if (dist[to] < 0) {
        dist[to] = dist[v] + 1;
        queue[tail++] = to;
      }
    }
  }
}

/* Every route is a consecutive path src -> dst whose length is the sum of
 * per-dim distances (ring min(f, n - f), FC 1, switch 2 when the
 * coordinates differ); on ring-only and FC-only networks that is also the
 * BFS shortest hop count (dimension order is shortest there). */
static void check_routes(const WeftNetwork *net, const double *bw, int bfs_equal) {
  WeftGraph *g = NULL;
  CHECK_EQ_INT(weft_network_graph(net, bw, &g, NULL), WEFT_OK);
  if (!g) return;
  int N = (int)weft_network_npus_total(net), nn = weft_graph_nodes(g);
  int *dist = malloc((size_t)nn * sizeof *dist), *queue = malloc((size_t)nn * sizeof *queue);
  int links[64];
  for (int s = 0; s < N; s++) {
    bfs(g, s, dist, queue);
    for (int t = 0; t < N; t++) {
      int h = weft_network_route(net, s, t, links, 64);
      int want = 0;
      for (int d = 0; d < net->ndims; d++) {
        int n = net->npus[d], f = (coord(net, t, d) - coord(net, s, d) + n) % n;
        if (!f) continue;
        want += net->topology[d] == WEFT_RING ? (f < n - f ? f : n - f)
                : net->topology[d] == WEFT_SWITCH ? 2 : 1;
      }
      CHECK_EQ_INT(h, want);
      if (bfs_equal) CHECK_EQ_INT(h, dist[t]);
      CHECK(h <= 0 || dist[t] <= h);
      CHECK_EQ_INT(weft_network_route(net, s, t, NULL, 0), h);  /* count only */
      int at = s, prev_dim = 0;
      for (int i = 0; i < h; i++) {
        int a, b, d = weft_network_link_dim(net, links[i]);
        CHECK_EQ_INT(weft_graph_link(g, links[i], &a, &b, NULL), WEFT_OK);
        CHECK_EQ_INT(a, at);
        CHECK(d >= prev_dim);  /* innermost dim first */
        prev_dim = d;
        at = b;
      }
      CHECK_EQ_INT(at, t);
      if (h > 0) CHECK_EQ_INT(weft_network_route(net, s, t, links, h - 1), WEFT_EINVAL);
    }
  }
  free(dist);
  free(queue);
  weft_graph_free(g);
}

static void flow_npu_routes(void) {
  double bw[3] = {100.0, 60.0, 40.0};
  WeftTopology rr[2] = {WEFT_RING, WEFT_RING}, ff[2] = {WEFT_FULLY_CONNECTED, WEFT_FULLY_CONNECTED};
  WeftTopology mix[3] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_SWITCH};
  WeftTopology smix[3] = {WEFT_SWITCH, WEFT_RING, WEFT_FULLY_CONNECTED};
  int n_ring1[1] = {7}, n_rr[2] = {6, 5}, n_ring2[2] = {2, 4}, n_ff[2] = {4, 3};
  int n_mix[3] = {4, 3, 2}, n_smix[3] = {3, 5, 2};
  WeftNetwork net = net_of(1, rr, n_ring1);
  check_routes(&net, bw, 1);
  net = net_of(2, rr, n_rr);
  check_routes(&net, bw, 1);
  net = net_of(2, rr, n_ring2);
  check_routes(&net, bw, 1);
  net = net_of(2, ff, n_ff);
  check_routes(&net, bw, 1);
  net = net_of(3, mix, n_mix);
  check_routes(&net, bw, 0);
  net = net_of(3, smix, n_smix);
  check_routes(&net, bw, 0);

  /* Ties forward: on a 4-ring from c = 0 to c = 2 both ways take 2 hops;
   * the route takes link k = 0 (to c + 1) of NPU 0, id 0 x 2 + 0, then
   * k = 0 of NPU 1, id 2. On a 6 x 5 torus from 0 to (5, 3): dim 0 one hop
   * back (k = 1 of NPU 0: id 1), to NPU 5; dim 1 from 0 to 3 of 5 is 2 back
   * (5 - 3 = 2 < 3): base 30 x 2 = 60, k = 1 of NPU 5 (id 60 + 11), then of
   * NPU 5 + 4 x 6 = 29 (id 60 + 59). */
  int links[8];
  net = net_of(1, rr, (int[]){4});
  CHECK_EQ_INT(weft_network_route(&net, 0, 2, links, 8), 2);
  CHECK(links[0] == 0 && links[1] == 2);
  net = net_of(2, rr, n_rr);
  CHECK_EQ_INT(weft_network_route(&net, 0, 5 + 3 * 6, links, 8), 3);
  CHECK(links[0] == 1 && links[1] == 71 && links[2] == 119);
  CHECK_EQ_INT(weft_network_route(&net, 0, 0, links, 8), 0);
  CHECK_EQ_INT(weft_network_route(&net, -1, 0, links, 8), WEFT_EINVAL);
  CHECK_EQ_INT(weft_network_route(&net, 0, 30, links, 8), WEFT_EINVAL);
}

static void flow_npu_graph_errors(void) {
  WeftTopology topo[3] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_SWITCH};
  int npus[3] = {4, 3, 2};
  WeftNetwork net = net_of(3, topo, npus);
  static char sentinel;
  WeftGraph *g = (WeftGraph *)(void *)&sentinel;  /* must be reset to NULL on failure */
  WeftError err;
  double bw[3] = {100.0, 0.0, 40.0};
  CHECK_EQ_INT(weft_network_graph(&net, bw, &g, &err), WEFT_EINPUT);
  CHECK(g == NULL);
  CHECK(!strcmp(err.file, "net.yml") && err.line == 11);  /* dim 2's line */
  CHECK(strstr(err.msg, "dim 2") != NULL);
  bw[1] = (double)NAN;
  CHECK_EQ_INT(weft_network_graph(&net, bw, &g, &err), WEFT_EINPUT);
  /* 2048 x 2048 x 2 = 8 M NPUs > 4 M: an error, not an allocation */
  int big[3] = {2048, 2048, 2};
  double ok[3] = {1, 1, 1};
  net = net_of(3, topo, big);
  CHECK_EQ_INT(weft_network_graph(&net, ok, &g, &err), WEFT_EINPUT);
  CHECK(strstr(err.msg, "too large") != NULL);
  CHECK_EQ_INT(err.line, 12);  /* 2048 x 2048 is 4 M exactly (allowed); x 2 at dim 3 is not */
  CHECK_EQ_INT(weft_network_route(&net, 0, 1, NULL, 0), WEFT_EINVAL);
  /* 4096 x 1024 = 4 M NPUs is allowed, but 4095 FC links each are not */
  WeftTopology ff[2] = {WEFT_FULLY_CONNECTED, WEFT_RING};
  int wide[2] = {4096, 1024};
  net = net_of(2, ff, wide);
  CHECK_EQ_INT(weft_network_graph(&net, ok, &g, &err), WEFT_EINPUT);
  CHECK(strstr(err.msg, "too large") != NULL);
  int one[2] = {3, 1};
  net = net_of(2, topo, one);
  CHECK_EQ_INT(weft_network_graph(&net, ok, &g, &err), WEFT_EINPUT);
  CHECK_EQ_INT(err.line, 11);  /* dim 2 has 1 NPU */
  CHECK_EQ_INT(weft_network_link_dim(&net, 0), -1);
}

/* Every NPU of Ring 4 x FC 3 x Switch 2 sends to every other: each link
 * carries the sizes of the routes through it (route walk here), and the
 * total is sum of size x hops. */
static void flow_npu_all_to_all(void) {
  WeftTopology topo[3] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_SWITCH};
  int npus[3] = {4, 3, 2};
  WeftNetwork net = net_of(3, topo, npus);
  double bw[3] = {100.0, 60.0, 40.0};
  WeftGraph *g = NULL;
  CHECK_EQ_INT(weft_network_graph(&net, bw, &g, NULL), WEFT_OK);
  if (!g) return;
  WeftFlowSim *fs = sim_on(g, WEFT_SHARE_MAXMIN);
  double want[144] = {0}, total = 0.0;
  int links[16];
  for (int s = 0; s < 24; s++)
    for (int t = 0; t < 24; t++) {
      if (s == t) continue;
      int h = weft_network_route(&net, s, t, links, 16);
      double size = 1000.0 + s + 24 * t;
      for (int i = 0; i < h; i++) want[links[i]] += size;
      total += size * h;
      CHECK_EQ_INT(weft_flowsim_start(fs, links, h, size, (unsigned long long)(s * 24 + t)), WEFT_OK);
    }
  double end = 0.0, sum = 0.0;
  CHECK_EQ_INT(weft_flowsim_run(fs, &end), WEFT_OK);
  CHECK(end > 0.0);
  CHECK_EQ_INT(weft_flowsim_active(fs), 0);
  for (int l = 0; l < 144; l++) {
    CHECK_NEAR(weft_flowsim_link_bytes(fs, l), want[l], 1e-9);
    sum += weft_flowsim_link_bytes(fs, l);
  }
  CHECK_NEAR(sum, total, 1e-9);
  weft_flowsim_free(fs);
  weft_graph_free(g);
}

const TestCase suite_flow[] = {
    {"flow_graph_basic", flow_graph_basic},
    {"flow_one_link", flow_one_link},
    {"flow_two_share", flow_two_share},
    {"flow_maxmin_parking_lot", flow_maxmin_parking_lot},
    {"flow_multihop", flow_multihop},
    {"flow_fifo", flow_fifo},
    {"flow_tags_oldest_first", flow_tags_oldest_first},
    {"flow_together", flow_together},
    {"flow_bad_args", flow_bad_args},
    {"flow_maxmin_oracle_and_conservation", flow_maxmin_oracle_and_conservation},
    {"flow_reference_sim", flow_reference_sim},
    {"flow_compaction", flow_compaction},
    {"flow_heap_paths", flow_heap_paths},
    {"flow_remnant", flow_remnant},
    {"flow_late_clock", flow_late_clock},
    {"flow_link_bytes_integral", flow_link_bytes_integral},
    {"flow_reuse", flow_reuse},
    {"flow_npu_graph_shape", flow_npu_graph_shape},
    {"flow_npu_routes", flow_npu_routes},
    {"flow_npu_graph_errors", flow_npu_graph_errors},
    {"flow_npu_all_to_all", flow_npu_all_to_all},
    {0, 0},
};
