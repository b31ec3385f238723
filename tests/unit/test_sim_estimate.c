/* test_sim_estimate.c — the simulator's work estimate against what the runs
 * count, the refusal past the limit, and a ring too large to step through. */
#include <math.h>
#include <string.h>

#include "../test.h"
#include "sim_fixture.h"
#include "weft.h"

/* Ring 4 x FullyConnected 4 x Switch 8 (128 NPUs): every collective kind,
 * on whole dims, part of a dim and two dims, the weight-grad stream either
 * way. The estimate's events and flows are the run's own counters, at both
 * fidelities, with and without latency, one or three chunks (two in
 * flight); its links are the NPU graph's. */
static void test_estimate_matches_run(void) {
  int n[3] = {4, 4, 8};
  WeftTopology t[3] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_SWITCH};
  double bw[3] = {100, 60, 30};
  Sim s;
  sim_init(&s, 3, n, t, bw);
  s.comm.group[0][0] = 4, s.comm.group[0][1] = 2, s.comm.group[0][2] = -1; /* fwd: 4 x 2 */
  s.comm.group[1][0] = -1, s.comm.group[1][1] = 4, s.comm.group[1][2] = -1; /* ig: dim 2 */
  s.comm.group[2][0] = -1, s.comm.group[2][1] = -1, s.comm.group[2][2] = 8; /* wg: dim 3 */
  const WeftCollective cs[5] = {WEFT_COLL_ALLREDUCE, WEFT_COLL_REDUCESCATTER, WEFT_COLL_ALLGATHER,
                                WEFT_COLL_ALLTOALL, WEFT_COLL_SENDRECV};
  for (int k = 0; k < 5; k++) {
    double comp[3] = {1000, k ? 500 : 0, 700};
    WeftCollective c[3] = {cs[k], cs[(k + 1) % 5], cs[(k + 2) % 5]};
    double b[3] = {4e6, 2e6, 3e6};
    sim_layer(&s, comp, c, b);
  }
  WeftGraph *g = NULL;
  CHECK_EQ_INT(weft_network_graph(&s.net, s.bw, &g, NULL), 0);
  double links = g ? weft_graph_nlinks(g) : -1;
  weft_graph_free(g);
  for (int mask = 0; mask < 24; mask++) { /* 16..23: fwd-ig-overlap */
    s.set.fidelity = mask & 1 ? WEFT_FIDELITY_LINK : WEFT_FIDELITY_DIM;
    s.set.chunks = mask & 2 ? 3 : 1;
    s.set.in_flight = 2;
    for (int d = 0; d < 3; d++) s.set.latency_ns[d] = mask & 4 ? 10.0 * (d + 1) : 0.0;
    s.set.algorithm[0] = mask & 8 ? WEFT_ALG_DIRECT : WEFT_ALG_DEFAULT;
    s.spec.loop = mask & 16  ? WEFT_LOOP_FWD_IG_OVERLAP
                  : mask & 8 ? WEFT_LOOP_TP_DP_OVERLAP
                             : WEFT_LOOP_NO_OVERLAP;
    WeftSimWork w;
    WeftSimResult r;
    CHECK_EQ_INT(weft_sim_estimate(&s.spec, &s.set, &w, NULL), 0);
    sim_run(&s, &r);
    CHECK_NEAR(w.events, (double)r.events, 0);
    CHECK_NEAR(w.flows, (double)r.flows, 0);
    CHECK_NEAR(w.links, mask & 1 ? links : 0.0, 0);
    CHECK_NEAR(w.work, w.events + w.flows + w.links, 0);
    if (test_failures_) {
      fprintf(stderr, "  mask %d\n", mask);
      break;
    }
  }
  sim_free(&s);
}

/* Past max_work the run is refused before it starts, naming the estimate
 * and the limit; at the estimate, or with no limit (0), it runs. Ring of
 * 4, one all-reduce, one chunk, latency: 2 x 3 steps, each a transfer and
 * a delay event: 12 events. */
static void test_estimate_refuses(void) {
  Sim s;
  WeftSimResult r;
  WeftError e;
  int n[1] = {4};
  WeftTopology t[1] = {WEFT_RING};
  double bw[1] = {100};
  sim_init(&s, 1, n, t, bw);
  sim_one(&s, WEFT_COLL_ALLREDUCE, 4e6);
  s.set.latency_ns[0] = 500;
  s.set.max_work = 11;
  CHECK_EQ_INT(weft_simulate(&s.spec, s.bw, &s.set, &r, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "max_work"));
  CHECK(strstr(e.msg, "about 12 units of work") && strstr(e.msg, "limit of 11"));
  CHECK(strstr(e.msg, "fewer chunks") != NULL);
  s.set.max_work = 12;
  CHECK_NEAR(sim_run(&s, &r), 63000.0, 1e-12); /* test_ring_allreduce_by_hand's */
  CHECK_EQ_INT(r.events, 12);
  s.set.max_work = 0;
  CHECK_NEAR(sim_run(&s, &r), 63000.0, 1e-12);
  s.set.max_work = -1;
  CHECK_EQ_INT(weft_simulate(&s.spec, s.bw, &s.set, &r, &e), WEFT_EINVAL);
  sim_free(&s);
}

/* A ring of 2^31 - 1 NPUs: at dim fidelity without latency a stage is one
 * transfer of its n-1 steps' bytes, so the all-reduce takes LIBRA's
 * 2 S (n-1) / (n B) at once; with latency every step is an event (4 (n-1)
 * of them), far past the default limit: refused, not ground through. */
static void test_huge_ring(void) {
  Sim s;
  WeftSimResult r;
  WeftError e;
  int n[1] = {2147483647};
  WeftTopology t[1] = {WEFT_RING};
  double bw[1] = {100};
  sim_init(&s, 1, n, t, bw);
  sim_one(&s, WEFT_COLL_ALLREDUCE, 8e6);
  double nn = n[0];
  CHECK_NEAR(sim_run(&s, &r), 2 * 8e6 * (nn - 1) / (nn * 100), 1e-12);
  CHECK_EQ_INT(r.events, 2);
  s.set.latency_ns[0] = 1;
  CHECK_EQ_INT(weft_simulate(&s.spec, s.bw, &s.set, &r, &e), WEFT_EINPUT);
  CHECK(!strcmp(e.field, "max_work"));
  WeftSimWork w;
  CHECK_EQ_INT(weft_sim_estimate(&s.spec, &s.set, &w, NULL), 0);
  CHECK_NEAR(w.events, 4 * (nn - 1), 0);
  sim_free(&s);
}

/* What a progress callback saw. */
typedef struct {
  int calls, bad;
  size_t last_done, last_total, prev_mid;
  int mids;        /* calls before the end (done < total) */
  size_t min_gap;  /* smallest step between two calls before the end */
} Seen;

static void on_progress(void *ctx, size_t done, size_t total) {
  Seen *v = ctx;
  if (v->calls && (done < v->last_done || total != v->last_total)) v->bad = 1;
  if (done < total) {
    if (v->mids && done - v->prev_mid < v->min_gap) v->min_gap = done - v->prev_mid;
    v->prev_mid = done;
    v->mids++;
  }
  v->calls++;
  v->last_done = done;
  v->last_total = total;
}

/* Progress counts the run's own work: the total is the estimate's events +
 * flows (the same every call), done never goes back, calls before the end
 * are at least WEFT_SIM_PROGRESS_EVERY apart, and the last says done ==
 * total == the result's events + flows; over two jobs the count goes on
 * from the first job's. A run with progress is the run without it. Link
 * fidelity, 64 chunks: several hundred thousand units. */
static void test_progress(void) {
  int n[3] = {4, 4, 8};
  WeftTopology t[3] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_SWITCH};
  double bw[3] = {100, 60, 30};
  Sim s;
  sim_init(&s, 3, n, t, bw);
  WeftCollective c[3] = {WEFT_COLL_ALLREDUCE, WEFT_COLL_ALLTOALL, WEFT_COLL_ALLGATHER};
  double comp[3] = {1000, 500, 700}, b[3] = {4e6, 2e6, 3e6};
  for (int k = 0; k < 4; k++) sim_layer(&s, comp, c, b);
  s.set.fidelity = WEFT_FIDELITY_LINK;
  s.set.chunks = 64;
  for (int jobs = 1; jobs <= 2; jobs++) {
    s.spec.njobs = jobs;
    s.spec.jobs[1] = s.spec.jobs[0];
    WeftSimWork w;
    WeftSimResult plain, r;
    CHECK_EQ_INT(weft_sim_estimate(&s.spec, &s.set, &w, NULL), 0);
    s.set.progress = NULL;
    sim_run(&s, &plain);
    Seen v = {0, 0, 0, 0, 0, 0, (size_t)-1};
    s.set.progress = on_progress;
    s.set.progress_ctx = &v;
    sim_run(&s, &r);
    size_t total = (size_t)(w.events + w.flows);
    CHECK(total > 4 * WEFT_SIM_PROGRESS_EVERY);
    CHECK(!v.bad);
    CHECK_EQ_INT(v.last_total, total);
    CHECK_EQ_INT(v.last_done, total);
    CHECK_EQ_INT(r.events + r.flows, total);
    CHECK(v.mids >= 2);
    CHECK(v.min_gap >= WEFT_SIM_PROGRESS_EVERY);
    CHECK_EQ_INT(v.calls, v.mids + 1);
    CHECK(r.time_ns == plain.time_ns && r.events == plain.events && r.flows == plain.flows);
  }
  s.spec.njobs = 1;
  s.set.progress = NULL;
  sim_free(&s);
}

const TestCase suite_simest[] = {
    {"simest_progress", test_progress},
    {"simest_matches_run", test_estimate_matches_run},
    {"simest_refuses", test_estimate_refuses},
    {"simest_huge_ring", test_huge_ring},
    {0, 0},
};
