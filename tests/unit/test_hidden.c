/* test_hidden.c — collectives hidden behind compute (WeftPhaseSpec.overlap_ns):
 * exposed times by hand, on and off, in both loops that honour them; the
 * optimum at the hinge's knee; the rows against a brute-force sum of hinges;
 * the workload text round trip. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "sim_fixture.h"
#include "weft.h"

/* Two rings of 2 (an all-reduce of S puts S bytes on its dim), forward and
 * input-grad collectives on dim 1, weight-grad ones on dim 2. */
static void toy(Sim *s, WeftLoop loop) {
  int n[2] = {2, 2};
  WeftTopology t[2] = {WEFT_RING, WEFT_RING};
  double bw[2] = {50, 50};
  sim_init(s, 2, n, t, bw);
  s->comm.group[WEFT_PHASE_FWD][1] = s->comm.group[WEFT_PHASE_IG][1] = -1;
  s->comm.group[WEFT_PHASE_WG][0] = -1;
  s->spec.loop = loop;
}

static void layer(Sim *s, const double *comp, const double *bytes, double ov_f, double ov_i) {
  WeftCollective ar[3] = {WEFT_COLL_ALLREDUCE, WEFT_COLL_ALLREDUCE, WEFT_COLL_ALLREDUCE};
  sim_layer(s, comp, ar, bytes);
  WeftLayer *l = &s->wl->layers[s->wl->nlayers - 1];
  l->phase[WEFT_PHASE_FWD].overlap_ns = ov_f;
  l->phase[WEFT_PHASE_IG].overlap_ns = ov_i;
}

static double eval(Sim *s, const double *bw, WeftEval *ev) {
  WeftProblem *p = NULL;
  WeftError e;
  memset(ev, 0, sizeof *ev);
  int rc = weft_problem_create(&s->spec, &p, &e);
  if (rc) fprintf(stderr, "  create: %s\n", e.msg);
  CHECK_EQ_INT(rc, WEFT_OK);
  if (p) CHECK_EQ_INT(weft_problem_evaluate(p, bw, ev), WEFT_OK);
  weft_problem_free(p);
  return ev->job[0].time_ns;
}

/* One layer, compute 30000 / 40000 / 10000 ns; fwd all-reduce 2e6 B hidden
 * behind 25000 ns, ig 1e6 B behind 10000 ns, wg 0.5e6 B. At B = (50, 50):
 * fwd comm 40000 (exposed 40000 - 25000 = 15000), ig 20000 (exposed 10000),
 * wg 10000. no-overlap: 80000 + 15000 + 10000 + 10000 = 115000; without
 * the overlap 80000 + 70000 = 150000. At B1 = 200 fwd takes 10000 and ig
 * 5000, both hidden: 80000 + 10000 = 90000. */
static void hidden_one_layer(void) {
  double comp[3] = {30000, 40000, 10000}, bytes[3] = {2e6, 1e6, 0.5e6};
  double b50[2] = {50, 50}, b200[2] = {200, 50};
  for (int on = 0; on < 2; on++) {
    Sim s;
    WeftEval ev;
    toy(&s, WEFT_LOOP_NO_OVERLAP);
    layer(&s, comp, bytes, on ? 25000 : 0, on ? 10000 : 0);
    CHECK_NEAR(eval(&s, b50, &ev), on ? 115000.0 : 150000.0, 1e-12);
    CHECK_NEAR(ev.job[0].comm_ns[WEFT_PHASE_FWD], 40000.0, 1e-12); /* the comm itself */
    CHECK_NEAR(ev.job[0].exposed_comm_ns[WEFT_PHASE_FWD], on ? 15000.0 : 40000.0, 1e-12);
    CHECK_NEAR(ev.job[0].exposed_comm_ns[WEFT_PHASE_IG], on ? 10000.0 : 20000.0, 1e-12);
    CHECK_NEAR(ev.job[0].exposed_comm_ns[WEFT_PHASE_WG], 10000.0, 1e-12);
    CHECK_NEAR(eval(&s, b200, &ev), on ? 90000.0 : 105000.0, 1e-12);
    CHECK_NEAR(ev.job[0].exposed_comm_ns[WEFT_PHASE_FWD], on ? 0.0 : 10000.0, 1e-12);
    weft_workload_free(s.wl);
  }
}

/* tp-dp-overlap, the same layer: the wg all-reduce (10000 at B2 = 50) goes
 * after the backward, T = ready + wg = 80000 + 15000 + 10000 + 10000 =
 * 115000 with the overlap (nothing runs after the last layer's backward to
 * hide it); add a second layer of compute 0/20000/0 before it (the
 * backward meets it first): layer 1's wg stream (none: no wg bytes) ... the
 * first layer's wg still ends the iteration: 135000. With a latency of 10
 * ns a step (2 steps an all-reduce on a ring of 2), fwd's exposure is
 * max(0, 40000 + 20 - 25000) = 15020, ig's 10020, wg 10020: 135060. */
static void hidden_tp_dp(void) {
  double comp[3] = {30000, 40000, 10000}, bytes[3] = {2e6, 1e6, 0.5e6};
  double comp1[3] = {0, 20000, 0}, none[3] = {0, 0, 0}, b50[2] = {50, 50};
  Sim s;
  WeftEval ev;
  toy(&s, WEFT_LOOP_TP_DP_OVERLAP);
  layer(&s, comp, bytes, 25000, 10000);
  CHECK_NEAR(eval(&s, b50, &ev), 115000.0, 1e-12);
  layer(&s, comp1, none, 0, 0);
  CHECK_NEAR(eval(&s, b50, &ev), 135000.0, 1e-12);
  s.net.latency_ns[0] = s.net.latency_ns[1] = 10.0;
  CHECK_NEAR(eval(&s, b50, &ev), 135060.0, 1e-12);
  CHECK_NEAR(ev.job[0].exposed_comm_ns[WEFT_PHASE_FWD], 15020.0, 1e-12);
  CHECK_NEAR(ev.job[0].exposed_comm_ns[WEFT_PHASE_IG], 10020.0, 1e-12);
  CHECK_NEAR(ev.job[0].exposed_comm_ns[WEFT_PHASE_WG], 10020.0, 1e-12);
  /* fwd-ig-overlap ignores overlap_ns: T = max(C_all, fi) + wg =
   * max(100000, 60040) + 10020 */
  s.spec.loop = WEFT_LOOP_FWD_IG_OVERLAP;
  CHECK_NEAR(eval(&s, b50, &ev), 110020.0, 1e-12);
  weft_workload_free(s.wl);
}

/* The optimum at the knee: fwd all-reduce 1e6 B hidden behind 20000 ns
 * (compute 20000, so all of it), wg 0.5e6 B, B1 + B2 = 100: T(B1) = 20000
 * + max(0, 1e6/B1 - 20000) + 0.5e6/(100 - B1). Right of B1 = 50 it rises;
 * left of it the slope at 50 is (-1e6 + 0.5e6)/2500 < 0: the optimum is
 * B = (50, 50), T = 20000 + 10000 = 30000 ns. Without the overlap the
 * optimum of 1e6/B1 + 0.5e6/(100 - B1) is at B1 = 100 sqrt2/(1 + sqrt2)
 * (sqrt(1e6) : sqrt(0.5e6) = B1 : B2), T = 20000 + (1e3 + 707.1..)^2/100. */
static void hidden_optimum(void) {
  double comp[3] = {20000, 0, 0}, bytes[3] = {1e6, 0, 0.5e6};
  for (int on = 0; on < 2; on++) {
    Sim s;
    WeftConstraints cons;
    WeftError e;
    WeftProblem *p = NULL;
    WeftResult r;
    toy(&s, WEFT_LOOP_NO_OVERLAP);
    layer(&s, comp, bytes, on ? 20000 : 0, 0);
    memset(&cons, 0, sizeof cons);
    CHECK_EQ_INT(weft_constraints_parse(&cons, "B1 + B2 = 100", 2, &e), WEFT_OK);
    s.spec.cons = &cons;
    CHECK_EQ_INT(weft_problem_create(&s.spec, &p, &e), WEFT_OK);
    memset(&r, 0, sizeof r);
    if (p) CHECK_EQ_INT(weft_problem_solve(p, NULL, &r), 0);
    weft_problem_free(p);
    CHECK_EQ_INT(r.status, WEFT_STATUS_SOLVED);
    CHECK(r.gap <= 1e-9);
    double r2 = sqrt(2.0), b1 = 100.0 * r2 / (1.0 + r2);
    double want = on ? 30000.0 : 20000.0 + pow(1e3 + sqrt(0.5e6), 2) / 100.0;
    CHECK_NEAR(r.eval.time_ns, want, 1e-8);
    CHECK_NEAR(r.bw_gbps[0], on ? 50.0 : b1, 1e-4);
    weft_workload_free(s.wl);
  }
}

/* tp-dp-overlap with hidden collectives, solved under B1 + B2 = 100: the
 * certified optimum is no worse than the best of a fine grid of designs (a
 * brute-force oracle; T is convex in B1, so the grid's best is within its
 * step of the optimum and never below it). Two layers, hidden fwd and ig
 * all-reduces of distinct overlap times (four pieces), wg all-reduces. */
static void hidden_tp_dp_solve(void) {
  double c0[3] = {30000, 40000, 10000}, b0[3] = {2e6, 1e6, 0.5e6};
  double c1[3] = {20000, 30000, 5000}, b1[3] = {1e6, 1.5e6, 0.8e6};
  Sim s;
  WeftEval ev;
  toy(&s, WEFT_LOOP_TP_DP_OVERLAP);
  s.net.latency_ns[0] = s.net.latency_ns[1] = 10.0;
  layer(&s, c0, b0, 25000, 10000);
  layer(&s, c1, b1, 15000, 20000);
  double best = HUGE_VAL;
  for (int k = 1; k < 10000; k++) {
    double bw[2] = {k * 0.01, 100.0 - k * 0.01};
    best = fmin(best, eval(&s, bw, &ev));
  }
  WeftConstraints cons;
  WeftError e;
  WeftProblem *p = NULL;
  WeftResult r;
  memset(&cons, 0, sizeof cons);
  CHECK_EQ_INT(weft_constraints_parse(&cons, "B1 + B2 = 100", 2, &e), WEFT_OK);
  s.spec.cons = &cons;
  CHECK_EQ_INT(weft_problem_create(&s.spec, &p, &e), WEFT_OK);
  memset(&r, 0, sizeof r);
  if (p) CHECK_EQ_INT(weft_problem_solve(p, NULL, &r), 0);
  weft_problem_free(p);
  CHECK_EQ_INT(r.status, WEFT_STATUS_SOLVED);
  CHECK(r.gap <= 1e-9 && r.lower_bound <= r.objective * (1 + 1e-12));
  CHECK(r.eval.time_ns <= best * (1 + 1e-9));
  CHECK(r.eval.time_ns >= best * (1 - 1e-3)); /* the grid's step (0.01 GB/s) */
  s.spec.cons = NULL;
  weft_workload_free(s.wl);
}

/* Random layers with hidden fwd/ig collectives of a few distinct overlap
 * times (several pieces, two patterns: all-reduce and all-gather on dim 1):
 * the no-overlap time at random designs is the brute-force sum compute +
 * blocking comm + each hidden collective's max(0, comm - overlap). */
static void hidden_brute_force(void) {
  unsigned seed = 7;
  for (int trial = 0; trial < 20; trial++) {
    Sim s;
    WeftEval ev;
    toy(&s, WEFT_LOOP_NO_OVERLAP);
    s.net.latency_ns[0] = 5.0;
    double comp_all = 0.0, blocking = 0.0, hinge_ref[64][4];
    int nh = 0;
    for (int l = 0; l < 6; l++) {
      double comp[3], bytes[3];
      for (int ph = 0; ph < 3; ph++) {
        seed = seed * 1103515245u + 12345u;
        comp[ph] = 1000.0 * (1 + (seed >> 16) % 20);
        bytes[ph] = 1e5 * (1 + (seed >> 8) % 10);
        comp_all += comp[ph];
      }
      double ov[2] = {5000.0 * (1 + l % 3), l % 2 ? 0.0 : 3000.0};
      layer(&s, comp, bytes, ov[0], ov[1]);
      if (l % 3 == 2) s.wl->layers[l].phase[WEFT_PHASE_IG].coll = WEFT_COLL_ALLGATHER;
      for (int ph = 0; ph < 3; ph++) {
        int hid = ph < 2 && ov[ph] > 0;
        double perbyte = 1.0; /* ring of 2: an all-reduce's 2 S (n-1)/n, an all-gather's S (n-1) */
        double lat = ph == 2 ? 0.0 /* dim 2: no latency */
                     : s.wl->layers[l].phase[ph].coll == WEFT_COLL_ALLGATHER ? 5.0 : 10.0;
        if (hid) {
          hinge_ref[nh][0] = bytes[ph] * perbyte;
          hinge_ref[nh][1] = lat;
          hinge_ref[nh][2] = ov[ph];
          hinge_ref[nh][3] = 1; /* dim 1 */
          nh++;
        } else {
          hinge_ref[nh][0] = bytes[ph] * perbyte;
          hinge_ref[nh][1] = lat;
          hinge_ref[nh][2] = -1; /* blocking */
          hinge_ref[nh][3] = ph == 2 ? 2 : 1;
          nh++;
        }
      }
    }
    for (int k = 0; k < 5; k++) {
      seed = seed * 1103515245u + 12345u;
      double bw[2] = {5.0 + (seed >> 16) % 300, 5.0 + (seed >> 4) % 300};
      double want = comp_all;
      blocking = 0.0;
      for (int h = 0; h < nh; h++) {
        double c = hinge_ref[h][0] / bw[(int)hinge_ref[h][3] - 1] + hinge_ref[h][1];
        if (hinge_ref[h][2] < 0) blocking += c;
        else want += fmax(0.0, c - hinge_ref[h][2]);
      }
      want += blocking;
      CHECK_NEAR(eval(&s, bw, &ev), want, 1e-12);
      double sum = ev.job[0].compute_ns;
      for (int ph = 0; ph < 3; ph++) sum += ev.job[0].exposed_comm_ns[ph];
      CHECK_NEAR(sum, want, 1e-12);
    }
    weft_workload_free(s.wl);
  }
}

/* The simulator runs a hidden collective beside the compute it hides
 * behind: with one chunk, no latency and one collective at a time it gives
 * the analytic time and split. One layer (no-overlap: 115000 ns at B = (50,
 * 50), hidden_one_layer), then a second layer of compute 0/20000/0 under
 * tp-dp-overlap (135000, hidden_tp_dp); the off case blocks (150000). The
 * P2P-like entry (a hidden collective with no compute of its own, 20000 ns
 * behind) takes its compute from the pass around it. */
static void hidden_sim(void) {
  double comp[3] = {30000, 40000, 10000}, bytes[3] = {2e6, 1e6, 0.5e6};
  double comp1[3] = {0, 20000, 0}, none[3] = {0, 0, 0};
  for (int on = 0; on < 2; on++) {
    Sim s;
    WeftEval ev;
    WeftSimResult r;
    toy(&s, WEFT_LOOP_NO_OVERLAP);
    layer(&s, comp, bytes, on ? 25000 : 0, on ? 10000 : 0);
    double want = eval(&s, s.bw, &ev);
    CHECK_NEAR(want, on ? 115000.0 : 150000.0, 1e-12);
    CHECK_NEAR(sim_run(&s, &r), want, 1e-12);
    CHECK_NEAR(r.job[0].t.compute_ns, 80000.0, 1e-12);
    for (int ph = 0; ph < 3; ph++)
      CHECK_NEAR(r.job[0].t.exposed_comm_ns[ph], ev.job[0].exposed_comm_ns[ph], 1e-12);
    s.spec.loop = WEFT_LOOP_TP_DP_OVERLAP;
    layer(&s, comp1, none, 0, 0);
    want = eval(&s, s.bw, &ev);
    CHECK_NEAR(want, on ? 135000.0 : 170000.0, 1e-12);
    CHECK_NEAR(sim_run(&s, &r), want, 1e-12);
    weft_workload_free(s.wl);
  }
  Sim s; /* fwd 1e6 B (20000 ns at 50) on an entry of no compute, behind 20000 */
  WeftEval ev;
  WeftSimResult r;
  double c0[3] = {0, 0, 0}, b0[3] = {1e6, 0, 0}, c1[3] = {30000, 0, 0};
  toy(&s, WEFT_LOOP_NO_OVERLAP);
  layer(&s, c0, b0, 20000, 0);
  layer(&s, c1, none, 0, 0);
  CHECK_NEAR(eval(&s, s.bw, &ev), 30000.0, 1e-12);
  CHECK_NEAR(sim_run(&s, &r), 30000.0, 1e-12);
  weft_workload_free(s.wl);
}

/* The text form: ALLREDUCE*4~2500 reads back as written; '~' on a
 * weight-grad collective is refused naming the field. */
static void hidden_text(void) {
  const char *path = "build/test_hidden_wl.txt";
  WeftWorkload *wl = weft_workload_create(), *back = NULL;
  WeftLayer l;
  WeftError e;
  memset(&l, 0, sizeof l);
  snprintf(l.name, sizeof l.name, "L1.attn");
  l.phase[0] = (WeftPhaseSpec){100, WEFT_COLL_ALLGATHER, 4096, 0, 4, 2500.5};
  l.phase[1] = (WeftPhaseSpec){200, WEFT_COLL_REDUCESCATTER, 4096, 0, 0, 77};
  l.phase[2] = (WeftPhaseSpec){300, WEFT_COLL_ALLREDUCE, 8192, 0, 0, 0};
  weft_workload_add(wl, &l);
  CHECK_EQ_INT(weft_workload_write(path, wl, &e), WEFT_OK);
  CHECK_EQ_INT(weft_workload_read(path, &back, &e), WEFT_OK);
  CHECK(back && back->nlayers == 1);
  if (back && back->nlayers == 1) {
    CHECK_NEAR(back->layers[0].phase[0].overlap_ns, 2500.5, 0);
    CHECK_NEAR(back->layers[0].phase[0].calls, 4, 0);
    CHECK_NEAR(back->layers[0].phase[1].overlap_ns, 77, 0);
    CHECK_NEAR(back->layers[0].phase[2].overlap_ns, 0, 0);
  }
  wl->layers[0].phase[2].overlap_ns = 5;
  CHECK_EQ_INT(weft_workload_write(path, wl, &e), WEFT_EINVAL);
  FILE *f = fopen(path, "w");
  if (f) {
    fputs("L1 -1 0 NONE 0 0 NONE 0 5 ALLREDUCE~9 100 0\n", f);
    fclose(f);
  }
  weft_workload_free(back);
  back = NULL;
  CHECK_EQ_INT(weft_workload_read(path, &back, &e), WEFT_EINPUT);
  CHECK(strstr(e.msg, "wg_type") != NULL);
  remove(path);
  weft_workload_free(wl);
  weft_workload_free(back);
}

const TestCase suite_hidden[] = {
    {"hidden_one_layer", hidden_one_layer},
    {"hidden_tp_dp", hidden_tp_dp},
    {"hidden_tp_dp_solve", hidden_tp_dp_solve},
    {"hidden_optimum", hidden_optimum},
    {"hidden_brute_force", hidden_brute_force},
    {"hidden_sim", hidden_sim},
    {"hidden_text", hidden_text},
    {0, 0},
};
