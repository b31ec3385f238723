/* test_sim_link.c — link fidelity where flows of one step take several hops
 * and finish at different times: hand-derived max-min and FIFO timelines,
 * and properties over every topology x collective x algorithm. */
#include <math.h>
#include <string.h>

#include "../test.h"
#include "sim_fixture.h"
#include "weft.h"

/* One forward collective on a 1-dim network of n NPUs, one chunk, link
 * fidelity with the given sharing and algorithm: its time (ns), -1 on
 * failure (checked). */
static double link_time(WeftTopology topo, int n, double bw, WeftCollective c, double bytes,
                        WeftAlgorithm alg, WeftSharing sh, WeftSimResult *r) {
  Sim s;
  sim_init(&s, 1, &n, &topo, &bw);
  sim_one(&s, c, bytes);
  s.set.fidelity = WEFT_FIDELITY_LINK;
  s.set.sharing = sh;
  s.set.algorithm[0] = alg;
  double t = sim_run(&s, r);
  sim_free(&s);
  return t;
}

/* All-to-all of S = 8e6 per NPU on a Ring of 4, B = 100 GB/s: every link is
 * one direction between neighbours at B/2 = 50 bytes/ns; a block is S/4 =
 * 2e6 bytes, 40000 ns alone on a link. Links fv: v -> v+1, bv: v -> v-1.
 *
 * direct (one step, member m sends to every j != m in the order j = 0..3;
 * a distance-2 tie goes forward for the even-indexed flow, back for the
 * odd): 0->1 f0, 0->2 b0 b3, 0->3 b0 | 1->0 b1, 1->2 f1, 1->3 f1 f2 |
 * 2->0 f2 f3, 2->1 b2, 2->3 f2 | 3->0 f3, 3->1 b3 b2, 3->2 b3.
 * Loads: f2 and b3 carry 3 flows, the others 1 or 2.
 * - max-min: the flows on f2 and b3 get 50/3 and end at 2e6 / (50/3) =
 *   120000 ns; the rest get 50 or 100/3 and end first (40000, 60000),
 *   which does not free f2 or b3: 120000 ns. (Before the fix the flows
 *   ending at 40000 ns ended no transfer and the driver stopped with "made
 *   no progress".)
 * - FIFO (a flow sends, at 50, only when it is first in every queue on its
 *   path): round 1 0->1, 0->2, 1->0, 1->2, 2->1 (1->3 waits on f1 for 1->2,
 *   and its place in f2's queue holds back 2->0 and 2->3; 2->0 holds f3
 *   against 3->0; 0->2 holds b3 against 3->1 and 3->2); round 2 0->3, 1->3,
 *   3->1; round 3 2->0, 3->2; round 4 2->3, 3->0: 4 x 40000 = 160000 ns.
 * Bytes: per NPU two one-hop blocks and one two-hop block: 4 x 2e6 = 8e6.
 *
 * ring algorithm (step k to member m+k+1, one flow): step 0 one hop
 * forward, 40000; step 2 one hop back, 40000; step 1 two hops forward (the
 * tie, flow 0), so every forward link carries two flows:
 * - max-min: 25 each, 80000: 160000 ns in all;
 * - FIFO: 0->2 (f0 f1) sends, 1->3 (f1 f2) waits on f1, and its place on f2
 *   holds back 2->0 (f2 f3), whose place on f3 holds back 3->1 (f3 f0): one
 *   at a time, 4 x 40000: 240000 ns in all. */
static void test_a2a_ring4_by_hand(void) {
  WeftSimResult r;
  const double S = 8e6;
  CHECK_NEAR(link_time(WEFT_RING, 4, 100, WEFT_COLL_ALLTOALL, S, WEFT_ALG_DIRECT,
                       WEFT_SHARE_MAXMIN, &r), 120000.0, 1e-9);
  CHECK_NEAR(r.job[0].dim_bytes[0], 8e6, 1e-9);
  CHECK_EQ_INT(r.flows, 12);
  CHECK_NEAR(link_time(WEFT_RING, 4, 100, WEFT_COLL_ALLTOALL, S, WEFT_ALG_DIRECT,
                       WEFT_SHARE_FIFO, &r), 160000.0, 1e-9);
  CHECK_NEAR(r.job[0].dim_bytes[0], 8e6, 1e-9);
  CHECK_NEAR(link_time(WEFT_RING, 4, 100, WEFT_COLL_ALLTOALL, S, WEFT_ALG_RING,
                       WEFT_SHARE_MAXMIN, &r), 160000.0, 1e-9);
  CHECK_NEAR(link_time(WEFT_RING, 4, 100, WEFT_COLL_ALLTOALL, S, WEFT_ALG_RING,
                       WEFT_SHARE_FIFO, &r), 240000.0, 1e-9);
  CHECK_NEAR(r.job[0].dim_bytes[0], 8e6, 1e-9);
}

/* Direct all-reduce on a Ring of 4 (the CLI's sim_ring4 fixture with
 * --algorithm direct): a reduce-scatter step of x (n-1)/n = blocks of
 * S/4 = 2e6 to each member, then an all-gather step sending the shard
 * S/4 = 2e6 to each member: the all-to-all's pattern twice. */
static void test_direct_allreduce_ring4_by_hand(void) {
  WeftSimResult r;
  CHECK_NEAR(link_time(WEFT_RING, 4, 100, WEFT_COLL_ALLREDUCE, 8e6, WEFT_ALG_DIRECT,
                       WEFT_SHARE_MAXMIN, &r), 2 * 120000.0, 1e-9);
  CHECK_NEAR(link_time(WEFT_RING, 4, 100, WEFT_COLL_ALLREDUCE, 8e6, WEFT_ALG_DIRECT,
                       WEFT_SHARE_FIFO, &r), 2 * 160000.0, 1e-9);
}

/* Direct on a Ring of 8: blocks S/8 go the shorter way, 1, 2, 3, 4, 3, 2, 1
 * hops to the members 1..7 away: 16 blocks of link traffic per NPU, 2 S.
 * Whatever the sharing, 16 links of B/2 carry 8 x 2 S, so the step takes at
 * least 2 S / B; and some flow is always sending at B/2 or more (the
 * oldest under FIFO; max-min gives every flow a positive rate), so it takes
 * at most the 56 blocks one after the other, 56 (S/8) / (B/2). */
static void test_direct_ring8_bounds(void) {
  const double S = 8e6, B = 100;
  for (int sh = WEFT_SHARE_MAXMIN; sh <= WEFT_SHARE_FIFO; sh++) {
    WeftSimResult r;
    double t = link_time(WEFT_RING, 8, B, WEFT_COLL_ALLTOALL, S, WEFT_ALG_DIRECT,
                         (WeftSharing)sh, &r);
    CHECK_NEAR(r.job[0].dim_bytes[0], 2 * S, 1e-9);
    CHECK(t >= 2 * S / B * (1 - 1e-12));
    CHECK(t <= 56 * (S / 8) / (B / 2) * (1 + 1e-12));
  }
}

typedef struct {
  WeftTopology topo;
  int n;
  WeftAlgorithm alg;
  int disjoint; /* 1: every step's flows on distinct links, so the sharings
                   must agree; 2: also the dim model's own case (whole dim, the
                   topology's algorithm), which must agree too */
} LinkCase;

/* Property, every dim kind x collective x algorithm that can run, one and
 * three chunks (two in flight: chunks then share links): link fidelity
 * finishes under both sharings; the bytes each NPU sent are the same
 * (routing does not depend on sharing) and bound the time from below
 * (an NPU sends at most B: two ring links of B/2, n-1 links of B/(n-1),
 * one switch up link of B); and where a step's flows never share a link
 * (one chunk, an algorithm whose peers each have their own links) FIFO and
 * max-min give the same time, and where the dim model is exact (whole dim,
 * the topology's own algorithm) the dim model's time. */
static void test_fifo_maxmin_property(void) {
  const LinkCase cases[] = {
      {WEFT_RING, 4, WEFT_ALG_RING, 2},
      {WEFT_RING, 8, WEFT_ALG_RING, 2},
      {WEFT_RING, 4, WEFT_ALG_DIRECT, 0},
      {WEFT_RING, 8, WEFT_ALG_DIRECT, 0},
      {WEFT_RING, 8, WEFT_ALG_HD, 0},
      {WEFT_FULLY_CONNECTED, 4, WEFT_ALG_DIRECT, 2},
      {WEFT_FULLY_CONNECTED, 8, WEFT_ALG_RING, 1},
      {WEFT_FULLY_CONNECTED, 8, WEFT_ALG_HD, 1},
      {WEFT_SWITCH, 8, WEFT_ALG_HD, 2},
      {WEFT_SWITCH, 8, WEFT_ALG_RING, 0},
      {WEFT_SWITCH, 4, WEFT_ALG_DIRECT, 0},
  };
  const WeftCollective colls[] = {WEFT_COLL_ALLREDUCE, WEFT_COLL_REDUCESCATTER,
                                  WEFT_COLL_ALLGATHER, WEFT_COLL_ALLTOALL, WEFT_COLL_SENDRECV};
  const double B = 60, S = 6e6;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    for (size_t c = 0; c < sizeof colls / sizeof colls[0]; c++)
      for (int chunks = 1; chunks <= 3; chunks += 2) {
        const LinkCase *lc = &cases[k];
        /* a ring algorithm's all-to-all sends a block m+k+1 away: hops on a
         * ring; send-recv is one flow to the next member, over one of its
         * links where the dim model counts all of B */
        int a2a_ring = colls[c] == WEFT_COLL_ALLTOALL && lc->topo == WEFT_RING;
        int disjoint = chunks == 1 && !a2a_ring ? lc->disjoint : 0;
        if (disjoint == 2 && colls[c] == WEFT_COLL_SENDRECV) disjoint = 1;
        double t[2], bytes[2];
        for (int sh = 0; sh < 2; sh++) {
          Sim s;
          WeftSimResult r;
          sim_init(&s, 1, &lc->n, &lc->topo, &B);
          sim_one(&s, colls[c], S);
          s.set.fidelity = WEFT_FIDELITY_LINK;
          s.set.sharing = (WeftSharing)sh;
          s.set.algorithm[0] = lc->alg;
          s.set.chunks = chunks;
          s.set.in_flight = 2;
          t[sh] = sim_run(&s, &r);
          bytes[sh] = r.job[0].dim_bytes[0];
          CHECK(t[sh] > 0);
          CHECK(t[sh] >= bytes[sh] / B * (1 - 1e-12));
          if (disjoint == 2 && sh == 0) {
            WeftSimResult rd;
            s.set.fidelity = WEFT_FIDELITY_DIM;
            CHECK_NEAR(t[0], sim_run(&s, &rd), 1e-9);
          }
          sim_free(&s);
        }
        CHECK_NEAR(bytes[1], bytes[0], 1e-9);
        if (disjoint) CHECK_NEAR(t[1], t[0], 1e-9);
        if (test_failures_) {
          fprintf(stderr, "  case topo %d n %d alg %d coll %d chunks %d: %g %g\n", lc->topo,
                  lc->n, lc->alg, colls[c], chunks, t[0], t[1]);
          return;
        }
      }
}

const TestCase suite_simlink[] = {
    {"simlink_a2a_ring4_by_hand", test_a2a_ring4_by_hand},
    {"simlink_direct_allreduce_ring4_by_hand", test_direct_allreduce_ring4_by_hand},
    {"simlink_direct_ring8_bounds", test_direct_ring8_bounds},
    {"simlink_fifo_maxmin_property", test_fifo_maxmin_property},
    {0, 0},
};
