/* test_loop.c — the fwd-ig-overlap training loop: its optimum in closed form
 * (compute-bound and comm-bound), its simulated timeline against the
 * analytic max formula, and its name wherever a scenario reads a loop. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "opt/exposed.h"
#include "sim_fixture.h"
#include "weft.h"

#define FIX "tests/fixtures/"

/* --- the optimum, by hand ------------------------------------------------- */

/* Two rings of 2 (an all-reduce of S puts S bytes on its dim: 2 S (n-1)/n),
 * latency 10 ns per step (an all-reduce on a ring of 2: 2 steps, 20 ns).
 * Forward and input-grad all-reduces on dim 1, weight-grad ones on dim 2;
 * B1 + B2 = 100. Two layers: fwd 1e6 + 0.5e6 = F_f = 1.5e6 B, ig 1.5e6 +
 * 1e6 = F_i = 2.5e6 B (F = 4e6), wg 0.6e6 + 0.4e6 = W = 1e6 B; four fwd/ig
 * all-reduces (lat_fi = 80 ns) and two wg ones (lat_wg = 40 ns).
 *   T(B1) = max(C, 80 + F/B1) + 40 + W/(100 - B1). */
static void loop_toy(Sim *s, const double *comp0) {
  int n[2] = {2, 2};
  WeftTopology t[2] = {WEFT_RING, WEFT_RING};
  double bw[2] = {50, 50};
  sim_init(s, 2, n, t, bw);
  s->net.latency_ns[0] = s->net.latency_ns[1] = 10.0;
  s->comm.group[WEFT_PHASE_FWD][1] = s->comm.group[WEFT_PHASE_IG][1] = -1;
  s->comm.group[WEFT_PHASE_WG][0] = -1;
  WeftCollective ar[3] = {WEFT_COLL_ALLREDUCE, WEFT_COLL_ALLREDUCE, WEFT_COLL_ALLREDUCE};
  double b0[3] = {1e6, 1.5e6, 0.6e6}, b1[3] = {0.5e6, 1e6, 0.4e6}, none[3] = {0, 0, 0};
  sim_layer(s, comp0, ar, b0);
  sim_layer(s, none, ar, b1);
  s->spec.loop = WEFT_LOOP_FWD_IG_OVERLAP;
}

static void solve_toy(Sim *s, WeftResult *r) {
  WeftConstraints cons;
  WeftError e;
  WeftProblem *p = NULL;
  memset(&cons, 0, sizeof cons);
  memset(r, 0, sizeof *r);
  CHECK_EQ_INT(weft_constraints_parse(&cons, "B1 + B2 = 100", 2, &e), WEFT_OK);
  s->spec.cons = &cons;
  CHECK_EQ_INT(weft_problem_create(&s->spec, &p, &e), WEFT_OK);
  if (p) CHECK_EQ_INT(weft_problem_solve(p, NULL, r), 0);
  weft_problem_free(p);
  s->spec.cons = NULL;
  /* certified: the lower bound is below the design's time and within the
   * default gap; the split adds up to the time */
  CHECK_EQ_INT(r->status, WEFT_STATUS_SOLVED);
  CHECK(r->lower_bound <= r->objective * (1 + 1e-12) && r->gap <= 1e-9);
  const WeftJobTime *jt = &r->eval.job[0];
  double sum = jt->compute_ns;
  for (int ph = 0; ph < WEFT_NPHASES; ph++) sum += jt->exposed_comm_ns[ph];
  CHECK_NEAR(sum, r->eval.time_ns, 1e-9);
}

/* The evaluation at s->bw (the closed-form design: exact to rounding,
 * where the solver's design is exact to its gap only). */
static void eval_at(Sim *s, WeftEval *ev) {
  WeftProblem *p = NULL;
  WeftError e;
  memset(ev, 0, sizeof *ev);
  CHECK_EQ_INT(weft_problem_create(&s->spec, &p, &e), WEFT_OK);
  if (p) CHECK_EQ_INT(weft_problem_evaluate(p, s->bw, ev), WEFT_OK);
  weft_problem_free(p);
}

/* Compute-bound: all compute (C = 80080 ns) in layer 0's forward. For
 * B1 >= F/(C - 80) = 50 the time is C + 40 + W/(100 - B1), rising; below
 * it 80 + F/B1 + 40 + W/(100 - B1), whose slope at 50 is
 * (-4e6 + 1e6)/2500 < 0 and falls to it. So B = (50, 50): fwd/ig comm
 * exactly hidden, T = 80080 + 40 + 1e6/50 = 100120 ns, none of fwd/ig
 * exposed, wg exposed whole (20040). */
static void opt_compute_bound(void) {
  Sim s;
  WeftResult r;
  double comp0[3] = {80080, 0, 0};
  loop_toy(&s, comp0);
  solve_toy(&s, &r);
  CHECK_NEAR(r.bw_gbps[0], 50.0, 1e-6);
  CHECK_NEAR(r.bw_gbps[1], 50.0, 1e-6);
  CHECK_NEAR(r.eval.time_ns, 100120.0, 1e-9);
  WeftEval ev; /* at B = (50, 50) itself (sim_init's bw) */
  eval_at(&s, &ev);
  CHECK_NEAR(ev.time_ns, 100120.0, 1e-12);
  CHECK_NEAR(ev.job[0].exposed_comm_ns[WEFT_PHASE_FWD], 0.0, 1e-12);
  CHECK_NEAR(ev.job[0].exposed_comm_ns[WEFT_PHASE_IG], 0.0, 1e-12);
  CHECK_NEAR(ev.job[0].exposed_comm_ns[WEFT_PHASE_WG], 20040.0, 1e-12);
  sim_free(&s);
}

/* Comm-bound: C = 6 x 1000. The time is 120 + F/B1 + W/B2 wherever
 * 80 + F/B1 >= C, minimised at B1 = 100 sqrt F / (sqrt F + sqrt W) =
 * 100 x 2000/3000: B = (200/3, 100/3), T = 120 + (2000 + 1000)^2 / 100 =
 * 90120 ns (80 + F/B1 = 60080 > C: the max is the comm). Exposed fwd + ig =
 * 60080 - 6000 = 54080, split as their comm: fwd 40 + 1.5e6/B1 = 22540,
 * ig 40 + 2.5e6/B1 = 37540. wg exposed whole: 40 + 1e6/B2 = 30040. The
 * same design under no-overlap would take 6000 + 90120 = 96120. */
static void opt_comm_bound(void) {
  Sim s;
  WeftResult r;
  double c[3] = {1000, 1000, 1000};
  loop_toy(&s, c);
  for (int ph = 0; ph < WEFT_NPHASES; ph++) s.wl->layers[1].phase[ph].compute_ns = 1000;
  solve_toy(&s, &r);
  CHECK_NEAR(r.bw_gbps[0], 200.0 / 3, 1e-6);
  CHECK_NEAR(r.bw_gbps[1], 100.0 / 3, 1e-6);
  CHECK_NEAR(r.eval.time_ns, 90120.0, 1e-9);
  double bw[2] = {200.0 / 3, 100.0 / 3};
  memcpy(s.bw, bw, sizeof bw);
  WeftEval ev;
  eval_at(&s, &ev);
  const WeftJobTime *jt = &ev.job[0];
  CHECK_NEAR(ev.time_ns, 90120.0, 1e-12);
  CHECK_NEAR(jt->comm_ns[WEFT_PHASE_FWD], 22540.0, 1e-12);
  CHECK_NEAR(jt->comm_ns[WEFT_PHASE_IG], 37540.0, 1e-12);
  CHECK_NEAR(jt->exposed_comm_ns[WEFT_PHASE_FWD], 54080.0 * 22540 / 60080, 1e-12);
  CHECK_NEAR(jt->exposed_comm_ns[WEFT_PHASE_IG], 54080.0 * 37540 / 60080, 1e-12);
  CHECK_NEAR(jt->exposed_comm_ns[WEFT_PHASE_WG], 30040.0, 1e-12);
  s.spec.loop = WEFT_LOOP_NO_OVERLAP;
  CHECK_NEAR(analytic(&s), 96120.0, 1e-12);
  sim_free(&s);
}

/* Without forward or input-grad traffic there is nothing to hide: the loop's
 * time is no-overlap's at every design (the comm row is dominated). */
static void opt_nothing_to_hide(void) {
  Sim s;
  double c[3] = {700, 300, 200};
  loop_toy(&s, c);
  for (int l = 0; l < 2; l++) {
    s.wl->layers[l].phase[WEFT_PHASE_FWD].size_bytes = 0;
    s.wl->layers[l].phase[WEFT_PHASE_IG].size_bytes = 0;
  }
  double want = 1200 + 40 + 1e6 / 50; /* C + lat_wg + W/B2 */
  CHECK_NEAR(analytic(&s), want, 1e-12);
  s.spec.loop = WEFT_LOOP_NO_OVERLAP;
  CHECK_NEAR(analytic(&s), want, 1e-12);
  sim_free(&s);
}

/* --- the simulator against the max formula ---------------------------------- */

/* Ring of 4, B = 100, one chunk, 10 ns per step: an all-reduce of 4e5 B
 * alone takes 1.5 x 4e5/100 + 6 x 10 = 6060 ns, of 2e5 B 3060 ns. */
static void sim_ring4(Sim *s) {
  int n[1] = {4};
  WeftTopology t[1] = {WEFT_RING};
  double bw[1] = {100};
  sim_init(s, 1, n, t, bw);
  s->set.latency_ns[0] = 10;
  s->net.latency_ns[0] = 10;
  s->spec.loop = WEFT_LOOP_FWD_IG_OVERLAP;
}

/* Comm-bound, the stream never idle: layer 0's forward all-reduce (no
 * compute before it) starts at 0; layer 1 computes 5000 ns in its forward,
 * then queues its forward and both input-grad all-reduces at 5000, while the
 * stream is busy until 6060. Four all-reduces back to back: 24240 =
 * max(C = 5000, 4 x 6060) = the analytic time. Exposed fwd + ig: 24240 -
 * 5000, half each (their comm is equal, 12120). */
static void sim_comm_bound_exact(void) {
  Sim s;
  WeftSimResult r;
  sim_ring4(&s);
  WeftCollective fi[3] = {WEFT_COLL_ALLREDUCE, WEFT_COLL_ALLREDUCE, WEFT_COLL_NONE};
  double b[3] = {4e5, 4e5, 0}, c0[3] = {0, 0, 0}, c1[3] = {5000, 0, 0};
  sim_layer(&s, c0, fi, b);
  sim_layer(&s, c1, fi, b);
  CHECK_NEAR(sim_run(&s, &r), 24240.0, 1e-12);
  CHECK_NEAR(analytic(&s), 24240.0, 1e-12);
  CHECK_NEAR(r.job[0].t.comm_ns[WEFT_PHASE_FWD], 12120.0, 1e-12);
  CHECK_NEAR(r.job[0].t.exposed_comm_ns[WEFT_PHASE_FWD], 9620.0, 1e-12);
  CHECK_NEAR(r.job[0].t.exposed_comm_ns[WEFT_PHASE_IG], 9620.0, 1e-12);
  CHECK_NEAR(r.job[0].t.exposed_comm_ns[WEFT_PHASE_WG], 0.0, 1e-12);
  /* no-overlap: 5000 + 4 x 6060, every collective blocking */
  s.spec.loop = WEFT_LOOP_NO_OVERLAP;
  CHECK_NEAR(sim_run(&s, &r), 29240.0, 1e-12);
  sim_free(&s);
}

/* Compute-bound with a blocking weight-grad all-reduce: layer 0's forward
 * all-reduce runs 0..6060 on the stream under layer 1's 10000 ns forward
 * compute; layer 1's weight-grad all-reduce of 2e5 B then blocks,
 * 10000..13060 = max(10000, 6060) + 3060, the analytic time. */
static void sim_compute_bound_exact(void) {
  Sim s;
  WeftSimResult r;
  sim_ring4(&s);
  WeftCollective c0[3] = {WEFT_COLL_ALLREDUCE, WEFT_COLL_NONE, WEFT_COLL_NONE};
  WeftCollective c1[3] = {WEFT_COLL_NONE, WEFT_COLL_NONE, WEFT_COLL_ALLREDUCE};
  double b0[3] = {4e5, 0, 0}, b1[3] = {0, 0, 2e5}, comp1[3] = {10000, 0, 0};
  sim_layer(&s, NULL, c0, b0);
  sim_layer(&s, comp1, c1, b1);
  CHECK_NEAR(sim_run(&s, &r), 13060.0, 1e-12);
  CHECK_NEAR(analytic(&s), 13060.0, 1e-12);
  CHECK_NEAR(r.job[0].t.exposed_comm_ns[WEFT_PHASE_FWD], 0.0, 1e-12);
  CHECK_NEAR(r.job[0].t.exposed_comm_ns[WEFT_PHASE_WG], 3060.0, 1e-12);
  CHECK_EQ_INT(r.job[0].ncollectives, 2);
  sim_free(&s);
}

/* Random-ish workloads on one dim, one chunk, no latency: the simulated
 * time is never below max(C, F) + W. The main stream alone runs all compute
 * and the weight-grad all-reduces in turn (sharing the dim only slows
 * them): >= C + W; the dim carries every byte at rate B at most: >= F + W. */
static void sim_never_below_analytic(void) {
  unsigned long long st = 12345;
  for (int inst = 0; inst < 40; inst++) {
    Sim s;
    WeftSimResult r;
    sim_ring4(&s);
    s.set.latency_ns[0] = s.net.latency_ns[0] = 0;
    double scale = inst % 2 ? 1e5 : 2e6; /* comm-light and comm-heavy */
    for (int l = 0; l < 2 + inst % 5; l++) {
      double comp[3], b[3];
      WeftCollective c[3];
      for (int ph = 0; ph < 3; ph++) {
        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned v = (unsigned)(st >> 33);
        comp[ph] = (double)(v % 5000);
        b[ph] = (double)((v >> 13) % 100) / 100.0 * scale;
        c[ph] = (v >> 20) % 4 ? WEFT_COLL_ALLREDUCE : WEFT_COLL_NONE;
      }
      sim_layer(&s, comp, c, b);
    }
    double sim = sim_run(&s, &r), an = analytic(&s);
    CHECK(sim >= an * (1 - 1e-12));
    const WeftSimJob *j = &r.job[0];
    CHECK_NEAR(j->t.compute_ns + j->t.exposed_comm_ns[0] + j->t.exposed_comm_ns[1] +
                   j->t.exposed_comm_ns[2],
               sim, 1e-9);
    sim_free(&s);
  }
}

/* --- the name ---------------------------------------------------------------- */

static void scenario_names_the_loop(void) {
  WeftScenario *sc = weft_scenario_create();
  WeftError e;
  if (!sc) return;
  const char *pre = "network: net_3d.yml\ncost_model: cost_3d.yml\nworkload: wl_tiny.txt\n"
                    "communicator: comm_3d.yml\n";
  const char *ok[3] = {"loop: fwd-ig-overlap\n", "loop: FWD_IG_overlap\n",
                       "loop: \"fwd_ig_overlap\"\n"};
  char text[512];
  for (int k = 0; k < 3; k++) {
    snprintf(text, sizeof text, "%s%s", pre, ok[k]);
    CHECK_EQ_INT(weft_scenario_parse(text, FIX "text.yml", NULL, sc, &e), WEFT_OK);
    CHECK_EQ_INT(sc->loop, WEFT_LOOP_FWD_IG_OVERLAP);
  }
  snprintf(text, sizeof text, "%sloop: fwd-overlap\n", pre);
  CHECK_EQ_INT(weft_scenario_parse(text, FIX "text.yml", NULL, sc, &e), WEFT_EINPUT);
  CHECK(strcmp(e.field, "loop") == 0 && e.line == 5 && e.col == 7);
  CHECK(strstr(e.msg, "fwd-overlap") &&
        strstr(e.msg, "no-overlap, tp-dp-overlap or fwd-ig-overlap"));
  CHECK(strcmp(weft_loop_name(WEFT_LOOP_FWD_IG_OVERLAP), "fwd-ig-overlap") == 0);
  weft_scenario_free(sc);
}

/* The library refuses a loop it does not know, naming the field. */
static void problem_refuses_unknown_loop(void) {
  Sim s;
  double c[3] = {1, 1, 1};
  loop_toy(&s, c);
  s.spec.loop = (WeftLoop)WEFT_NLOOPS;
  WeftProblem *p = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_problem_create(&s.spec, &p, &e), WEFT_EINVAL);
  CHECK(p == NULL && strcmp(e.field, "loop") == 0);
  sim_free(&s);
}

/* Exposed communication never above the phase's communication, where it is
 * formed as a difference or a share: 1e7 + 0.3 - 1e7 is 0.30000000074505806
 * in doubles (tp-dp-overlap's wg tail, no overlap at all), and c x fi / fi
 * with fi = c + d rounds above c for c = 0.2187810373376886, d =
 * 0.4596034657377336 (fwd-ig-overlap's share, all of fi exposed). Both are
 * the whole comm exactly. */
static void exposed_never_above_comm(void) {
  double comm[WEFT_NPHASES] = {0, 0, 0.3}, ex[WEFT_NPHASES];
  double compute = 1e7;
  weft_loop_exposed(WEFT_LOOP_TP_DP_OVERLAP, compute + comm[WEFT_PHASE_WG], compute, comm, ex);
  CHECK(ex[WEFT_PHASE_WG] == comm[WEFT_PHASE_WG]);
  comm[WEFT_PHASE_FWD] = 0.2187810373376886;
  comm[WEFT_PHASE_IG] = 0.4596034657377336;
  comm[WEFT_PHASE_WG] = 0;
  double fi = comm[WEFT_PHASE_FWD] + comm[WEFT_PHASE_IG];
  weft_loop_exposed(WEFT_LOOP_FWD_IG_OVERLAP, fi, 0.0, comm, ex); /* no compute to hide under */
  for (int ph = 0; ph < WEFT_NPHASES; ph++) CHECK(ex[ph] <= comm[ph]);
  CHECK(ex[WEFT_PHASE_FWD] == comm[WEFT_PHASE_FWD]);
}

const TestCase suite_loop[] = {
    {"loop/opt_compute_bound", opt_compute_bound},
    {"loop/opt_comm_bound", opt_comm_bound},
    {"loop/opt_nothing_to_hide", opt_nothing_to_hide},
    {"loop/sim_comm_bound_exact", sim_comm_bound_exact},
    {"loop/sim_compute_bound_exact", sim_compute_bound_exact},
    {"loop/sim_never_below_analytic", sim_never_below_analytic},
    {"loop/scenario_names_the_loop", scenario_names_the_loop},
    {"loop/problem_refuses_unknown_loop", problem_refuses_unknown_loop},
    {"loop/exposed_never_above_comm", exposed_never_above_comm},
    {0, 0},
};
