/* test_syscost.c — system cost (docs/model.md "System cost"): the cost
 * model's system figures and their ranges, the report's figures by hand,
 * perf-per-cost with an NPU capex and cost-per-iteration against a closed
 * form, a brute-force grid, the certificate on random problems, and the
 * fast path against the general one over c0 from 1e-6 to 1e6 times the network. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "common/randprob.h"
#include "opt/problem.h" /* p->path: which solver path answered */
#include "weft.h"

#define NS_PER_YEAR (365.25 * 86400.0 * 1e9)

/* Two ring dims of 4 NPUs (16 in all), link $ per GB/s l1, l2; forward
 * all-reduces fwd bytes on dim 1 only, weight-grad wg bytes on dim 2 only,
 * each phase computes c ns: T = 3c + a/B1 + b/B2, a = 2 fwd 3/4, b = 2 wg 3/4. */
typedef struct {
  WeftNetwork net;
  WeftCostModel cm;
  WeftCommunicator comm;
  WeftWorkload *wl;
  WeftConstraints cons;
  WeftSpec spec;
} Two;

static void two_init(Two *t, double l1, double l2, double c, double fwd, double wg) {
  memset(t, 0, sizeof *t);
  t->net.ndims = 2;
  t->cm.nclasses = 2;
  double link[2] = {l1, l2};
  for (int d = 0; d < 2; d++) {
    t->net.npus[d] = 4;
    t->net.topology[d] = WEFT_RING;
    snprintf(t->net.cost_dim[d], WEFT_NAME_LEN, "c%d", d);
    snprintf(t->cm.cls[d].name, WEFT_NAME_LEN, "c%d", d);
    t->cm.cls[d].link_usd_per_gbps = link[d];
    t->cm.cls[d].has_link = 1;
  }
  t->comm.ndims = 2;
  for (int p = 0; p < WEFT_NPHASES; p++)
    for (int d = 0; d < 2; d++) t->comm.group[p][d] = 4;
  t->comm.group[0][1] = -1; /* forward on dim 1 only */
  t->comm.group[2][0] = -1; /* weight-grad on dim 2 only */
  t->wl = weft_workload_create();
  WeftLayer l;
  memset(&l, 0, sizeof l);
  for (int p = 0; p < WEFT_NPHASES; p++) l.phase[p].compute_ns = c;
  l.phase[0].coll = WEFT_COLL_ALLREDUCE;
  l.phase[0].size_bytes = fwd;
  l.phase[2].coll = WEFT_COLL_ALLREDUCE;
  l.phase[2].size_bytes = wg;
  weft_workload_add(t->wl, &l);
  t->spec.net = &t->net;
  t->spec.cost = &t->cm;
  t->spec.njobs = 1;
  t->spec.jobs[0].workload = t->wl;
  t->spec.jobs[0].comm = &t->comm;
  t->spec.jobs[0].weight = 1.0;
  t->spec.cons = &t->cons;
}

static void set_sys(WeftCostModel *cm, const char *field, double v) {
  WeftError e;
  CHECK_EQ_INT(weft_system_cost_set(cm, field, v, &e), WEFT_OK);
}

/* --- the cost model's system figures -------------------------------------- */

static void system_keys_read(void) {
  WeftCostModel cm;
  WeftError e;
  const char *ok = "Npu: 30000\nNpuPowerW: 700\nElectricityUsdPerKwh: 0.1\nPue: 1.25\n"
                   "LifetimeYears: 5\nA:\n  Link: 2\n  Power: 0.5\nB:\n  Link: 3\n";
  CHECK_EQ_INT(weft_cost_model_parse(ok, "c.yml", &cm, &e), WEFT_OK);
  CHECK_EQ_INT(cm.nclasses, 2); /* the system keys are no classes */
  CHECK(cm.sys.has_npu_usd && cm.sys.npu_usd == 30000.0);
  CHECK(cm.sys.has_npu_power_w && cm.sys.npu_power_w == 700.0);
  CHECK(cm.sys.electricity_usd_per_kwh == 0.1 && cm.sys.pue == 1.25 && cm.sys.lifetime_years == 5);
  CHECK(cm.cls[0].has_power && cm.cls[0].power_w_per_gbps == 0.5 && !cm.cls[1].has_power);
  CHECK(weft_cost_model_has_system(&cm));
  /* Bad values: exit-2 errors naming file, line and field. */
  static const struct { const char *text, *field; int line; } bad[] = {
      {"A:\n  Link: 2\nNpu: 0\n", "Npu", 3},
      {"A:\n  Link: 2\nNpu: -5\n", "Npu", 3},
      {"NpuPowerW: -1\nA:\n  Link: 2\n", "NpuPowerW", 1},
      {"A:\n  Link: 2\nElectricityUsdPerKwh: 0\n", "ElectricityUsdPerKwh", 3},
      {"A:\n  Link: 2\nPue: 0.9\n", "Pue", 3},
      {"A:\n  Link: 2\nLifetimeYears: 0\n", "LifetimeYears", 3},
      {"A:\n  Link: 2\nLifetimeYears: 200\n", "LifetimeYears", 3},
      {"A:\n  Link: 2\n  Power: 0\n", "Power", 3},
      {"A:\n  Link: 2\nNpu: 1\nNpu: 2\n", "Npu", 4},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    weft_error_clear(&e);
    CHECK_EQ_INT(weft_cost_model_parse(bad[i].text, "c.yml", &cm, &e), WEFT_EINPUT);
    CHECK_EQ_INT(e.line, bad[i].line);
    CHECK(strcmp(e.file, "c.yml") == 0);
    if (bad[i].field) CHECK(strcmp(e.field, bad[i].field) == 0);
  }
  /* System figures alone: a cost model for networks built of parts (each
   * bound dim brings its class); a network naming a class still needs it. */
  CHECK_EQ_INT(weft_cost_model_parse("Npu: 10\n", "c.yml", &cm, &e), WEFT_OK);
  CHECK_EQ_INT(cm.nclasses, 0);
  /* The one setter: the file's ranges, snake_case too. */
  WeftCostModel c2;
  memset(&c2, 0, sizeof c2);
  CHECK(!weft_cost_model_has_system(&c2));
  CHECK_EQ_INT(weft_system_cost_set(&c2, "pue", 0.5, &e), WEFT_EINPUT);
  CHECK_EQ_INT(weft_system_cost_set(&c2, "LifetimeYears", -1, &e), WEFT_EINPUT);
  /* capex is divided by the lifetime: 1e-300 years made $5e299 an iteration */
  CHECK_EQ_INT(weft_system_cost_set(&c2, "LifetimeYears", 1e-300, &e), WEFT_EINPUT);
  CHECK_EQ_INT(weft_system_cost_set(&c2, "Npu", (double)NAN, &e), WEFT_EINPUT);
  CHECK_EQ_INT(weft_system_cost_set(&c2, "Gpu", 1, &e), WEFT_EINVAL);
  CHECK(!weft_cost_model_has_system(&c2)); /* nothing set on failure */
  CHECK_EQ_INT(weft_system_cost_set(&c2, "npu_usd", 1, &e), WEFT_EINVAL); /* no such key */
  CHECK_EQ_INT(weft_system_cost_set(&c2, "npu", 2.5e4, &e), WEFT_OK);
  CHECK(c2.sys.has_npu_usd && c2.sys.npu_usd == 2.5e4);
  WeftSystemCost r;
  weft_system_cost_resolved(&c2, &r); /* documented defaults where absent */
  CHECK(r.electricity_usd_per_kwh == 0.08 && r.pue == 1.58 && r.lifetime_years == 4.0);
  CHECK(!r.has_pue && r.npu_power_w == 0.0);
}

/* --- the report's figures by hand ------------------------------------------ */

static void figures_by_hand(void) {
  Two t;
  two_init(&t, 2.0, 3.0, 1e5, 4e6, 1e6);
  t.cm.cls[0].power_w_per_gbps = 0.5;
  t.cm.cls[0].has_power = 1;
  set_sys(&t.cm, "Npu", 1000.0);
  set_sys(&t.cm, "NpuPowerW", 300.0);
  set_sys(&t.cm, "ElectricityUsdPerKwh", 0.2);
  set_sys(&t.cm, "Pue", 1.5);
  set_sys(&t.cm, "LifetimeYears", 2.0);
  WeftProblem *p = NULL;
  WeftError e;
  CHECK_EQ_INT(weft_problem_create(&t.spec, &p, &e), WEFT_OK);
  double B[2] = {100.0, 50.0};
  WeftEval ev;
  weft_problem_evaluate(p, B, &ev);
  double T = 3e5 + 2 * 4e6 * 0.75 / 100.0 + 2 * 1e6 * 0.75 / 50.0;
  double net = 16 * 2.0 * 100.0 + 16 * 3.0 * 50.0;  /* ring: N x link per GB/s */
  double capex = net + 16 * 1000.0, power = 16 * 0.5 * 100.0 + 16 * 300.0;
  double usd_per_ns = capex / (2.0 * NS_PER_YEAR) + power * 1.5 * 0.2 / 3.6e6 * 1e-9;
  CHECK_NEAR(ev.time_ns, T, 1e-14);
  CHECK_NEAR(ev.cost_usd, net, 1e-14);
  CHECK_NEAR(ev.npu_cost_usd, 16000.0, 1e-15);
  CHECK_NEAR(ev.capex_usd, capex, 1e-14);
  CHECK_NEAR(ev.network_power_w, 800.0, 1e-14);
  CHECK_NEAR(ev.npu_power_w, 4800.0, 1e-15);
  CHECK_NEAR(ev.power_w, power, 1e-14);
  CHECK_NEAR(ev.perf_per_cost / (T * capex), 1.0, 1e-14);
  CHECK_NEAR(ev.cost_per_iteration_usd / (T * usd_per_ns), 1.0, 1e-13);
  weft_problem_free(p);
  weft_workload_free(t.wl);
}

/* --- closed form ------------------------------------------------------------ */

/* min (C + a/x + b/y)(r0 + p x + q y) over x, y > 0, C, r0 > 0: stationarity
 * gives x = L sqrt(a/p), y = L sqrt(b/q) with L^2 = (r0 + L S)/(C + S/L), S =
 * sqrt(ap) + sqrt(bq), so L = sqrt(r0/C) and the minimum is
 * (sqrt(C r0) + S)^2. No constraint at all: the constant cost bounds it. */
static void check_closed_form(Two *t, double C, double a, double b, double r0, double pp,
                              double qq, double scale) {
  WeftProblem *p = NULL;
  WeftError e;
  WeftResult r;
  CHECK_EQ_INT(weft_problem_create(&t->spec, &p, &e), WEFT_OK);
  if (!p) return;
  CHECK_EQ_INT(weft_problem_solve(p, NULL, &r), WEFT_OK);
  CHECK_EQ_INT(r.status, WEFT_STATUS_SOLVED);
  CHECK_EQ_INT(p->path, WEFT_PATH_FAST); /* one time row: the separable program, c0 and all */
  double L = sqrt(r0 / C), S = sqrt(a * pp) + sqrt(b * qq);
  /* the objective is certified to 1e-9; flat (quadratic) at its minimum,
   * it pins the design to ~sqrt of that */
  CHECK_NEAR(r.bw_gbps[0] / (L * sqrt(a / pp)), 1.0, 3e-4);
  CHECK_NEAR(r.bw_gbps[1] / (L * sqrt(b / qq)), 1.0, 3e-4);
  double fstar = pow(sqrt(C * r0) + S, 2) * scale;
  CHECK_NEAR(r.objective / fstar, 1.0, 1e-9);
  CHECK(r.lower_bound <= fstar * (1 + 1e-12));
  CHECK(r.gap <= 1e-9);
  /* the EqualBW baseline: the best equal split, (C + (a+b)/x)(r0 + (p+q)x) at
   * x = sqrt(r0 (a+b) / (C (p+q))) */
  double eq[2];
  CHECK(weft_problem_equal_bw(p, eq, NULL, 0));
  CHECK_NEAR(eq[0] / sqrt(r0 * (a + b) / (C * (pp + qq))), 1.0, 1e-7);
  weft_problem_free(p);
}

static void closed_form_npu_capex(void) {
  Two t;
  two_init(&t, 2.0, 3.0, 1e5, 4e6, 1e6);
  set_sys(&t.cm, "Npu", 5000.0);
  t.spec.objective = WEFT_OBJ_PERF_PER_COST;
  check_closed_form(&t, 3e5, 2 * 4e6 * 0.75, 2 * 1e6 * 0.75, 16 * 5000.0, 32.0, 48.0, 1.0);
  weft_workload_free(t.wl);
}

static void closed_form_cost_per_iteration(void) {
  Two t;
  two_init(&t, 2.0, 3.0, 1e5, 4e6, 1e6);
  t.cm.cls[0].power_w_per_gbps = 0.5;
  t.cm.cls[0].has_power = 1;
  t.cm.cls[1].power_w_per_gbps = 2.0;
  t.cm.cls[1].has_power = 1;
  set_sys(&t.cm, "Npu", 20000.0);
  set_sys(&t.cm, "NpuPowerW", 700.0);
  set_sys(&t.cm, "ElectricityUsdPerKwh", 0.1);
  set_sys(&t.cm, "Pue", 1.2);
  set_sys(&t.cm, "LifetimeYears", 3.0);
  t.spec.objective = WEFT_OBJ_COST_PER_ITERATION;
  /* $ per ns: capex / L + W x PUE x $/kWh / 3.6e15 (W ns per kWh) */
  double L = 3.0 * NS_PER_YEAR, k = 1.2 * 0.1 / 3.6e15;
  double r0 = 16 * 20000.0 / L + 16 * 700.0 * k;
  double pp = 16 * 2.0 / L + 16 * 0.5 * k, qq = 16 * 3.0 / L + 16 * 2.0 * k;
  check_closed_form(&t, 3e5, 2 * 4e6 * 0.75, 2 * 1e6 * 0.75, r0, pp, qq, 1.0);
  /* Defaults where the file gives none: lifetime 4 years, 0.08 $/kWh, PUE 1.58. */
  memset(&t.cm.sys, 0, sizeof t.cm.sys);
  set_sys(&t.cm, "Npu", 20000.0);
  L = 4.0 * NS_PER_YEAR;
  k = 1.58 * 0.08 / 3.6e15;
  r0 = 16 * 20000.0 / L;
  pp = 16 * 2.0 / L + 16 * 0.5 * k;
  qq = 16 * 3.0 / L + 16 * 2.0 * k;
  check_closed_form(&t, 3e5, 2 * 4e6 * 0.75, 2 * 1e6 * 0.75, r0, pp, qq, 1.0);
  weft_workload_free(t.wl);
}

/* Without a system cost perf-per-cost is what it was: the same design and
 * objective bit for bit as with no system fields at all (c0 = 0). */
static void no_system_unchanged(void) {
  Two t;
  two_init(&t, 2.0, 3.0, 1e5, 4e6, 1e6);
  WeftError e;
  CHECK_EQ_INT(weft_constraints_parse(&t.cons, "sum = 300", 2, &e), WEFT_OK);
  t.spec.objective = WEFT_OBJ_PERF_PER_COST;
  WeftProblem *p = NULL;
  WeftResult r;
  CHECK_EQ_INT(weft_problem_create(&t.spec, &p, &e), WEFT_OK);
  weft_problem_solve(p, NULL, &r);
  CHECK_EQ_INT(r.status, WEFT_STATUS_SOLVED);
  /* under sum = S: time x cost = (C + a/x + b/(S-x))(px + q(S-x)), checked
   * against a golden-section search on x */
  double C = 3e5, a = 6e6, b = 1.5e6, pp = 32.0, qq = 48.0, S = 300.0, lo = 1e-9, hi = S - 1e-9;
  for (int i = 0; i < 300; i++) {
    double m1 = lo + (hi - lo) * 0.381966, m2 = hi - (hi - lo) * 0.381966;
    double f1 = (C + a / m1 + b / (S - m1)) * (pp * m1 + qq * (S - m1));
    double f2 = (C + a / m2 + b / (S - m2)) * (pp * m2 + qq * (S - m2));
    if (f1 < f2) hi = m2; else lo = m1;
  }
  CHECK_NEAR(r.bw_gbps[0] / lo, 1.0, 1e-6);
  CHECK(r.eval.npu_cost_usd == 0.0 && r.eval.capex_usd == r.eval.cost_usd);
  weft_problem_free(p);
  weft_workload_free(t.wl);
}

/* --- brute force -------------------------------------------------------------- */

static uint64_t rs;
static double urand(void) {
  rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rs >> 11) / 9007199254740992.0;
}

/* perf-per-cost with an NPU capex and cost-per-iteration on random 2-dim
 * problems, under 'sum <= S', 'B1 >= B2' or nothing: a 2-D grid over the
 * feasible set never beats weft, gets within 1%, and never falls below
 * the certified bound. */
static void brute_force_c0(void) {
  rs = 7;
  for (int inst = 0; inst < 24; inst++) {
    Two t;
    two_init(&t, 1 + 4 * urand(), 1 + 4 * urand(), 1e4 + 1e5 * urand(), 1e6 + 1e7 * urand(),
             1e6 + 1e7 * urand());
    t.comm.group[0][1] = urand() < 0.5 ? 4 : -1; /* sometimes both dims */
    set_sys(&t.cm, "Npu", 10.0 + 2000.0 * urand());
    if (inst % 2) {
      t.spec.objective = WEFT_OBJ_COST_PER_ITERATION;
      t.cm.cls[0].power_w_per_gbps = 0.1 + urand();
      t.cm.cls[0].has_power = 1;
      set_sys(&t.cm, "NpuPowerW", 100 + 1000 * urand());
      set_sys(&t.cm, "LifetimeYears", 0.01 + 0.1 * urand()); /* energy and capex both count */
    } else {
      t.spec.objective = WEFT_OBJ_PERF_PER_COST;
    }
    WeftError e;
    int kind = inst % 3;
    if (kind == 0) CHECK_EQ_INT(weft_constraints_parse(&t.cons, "sum <= 400", 2, &e), WEFT_OK);
    if (kind == 1) CHECK_EQ_INT(weft_constraints_parse(&t.cons, "B1 >= B2", 2, &e), WEFT_OK);
    WeftProblem *p = NULL;
    WeftResult r;
    CHECK_EQ_INT(weft_problem_create(&t.spec, &p, &e), WEFT_OK);
    if (!p) { weft_workload_free(t.wl); continue; }
    weft_problem_solve(p, NULL, &r);
    CHECK_EQ_INT(r.status, WEFT_STATUS_SOLVED);
    CHECK_EQ_INT(p->path, WEFT_PATH_FAST);
    CHECK(r.gap <= 1e-9);
    double best = HUGE_VAL, top = kind == 0 ? 400.0 : 4.0 * (r.bw_gbps[0] + r.bw_gbps[1]);
    int steps = 500;
    for (int i = 1; i <= steps; i++)
      for (int j = 1; j <= steps; j++) {
        double B[2] = {top * i / steps, top * j / steps};
        if ((kind == 0 && B[0] + B[1] > 400.0) || (kind == 1 && B[0] < B[1])) continue;
        WeftEval ev;
        weft_problem_evaluate(p, B, &ev);
        double f = t.spec.objective == WEFT_OBJ_PERF_PER_COST ? ev.perf_per_cost
                                                               : ev.cost_per_iteration_usd;
        CHECK(r.lower_bound <= f * (1 + 1e-12));
        best = fmin(best, f);
      }
    CHECK(r.objective <= best * (1 + 1e-9));
    CHECK(best <= r.objective * (1 + 1e-2));
    weft_problem_free(p);
    weft_workload_free(t.wl);
  }
}

/* --- random problems: the certificate with c0 > 0 ------------------------------ */

/* randprob's problems (2..8 dims, both loops, scales 1e-6..1e12) with an
 * NPU capex from 1e-3 to 1e3 times the equal split's network cost, as
 * perf-per-cost or cost-per-iteration: each must be solved and pass
 * randprob_check (constraints, objective at the design, certified gap, no
 * feasible point on the segment to the equal split below the bound). */
static void random_with_capex(void) {
  RandOpts o = {2, 8, 16, -6.0, 12.0, 0, 0};
  uint64_t st = 2026112622;
  int bad = 0;
  rs = 99;
  for (int i = 0; i < 200; i++) {
    RandProb r;
    WeftProblem *p = NULL;
    WeftResult res;
    WeftError e;
    char why[512];
    if (randprob_make(&r, &st, &o)) {
      CHECK(!"a random problem could not be built");
      randprob_free(&r);
      continue;
    }
    double cpg[WEFT_MAX_DIMS], net = 0.0;
    CHECK_EQ_INT(weft_cost_per_gbps(&r.net, &r.cm, cpg, &e), WEFT_OK);
    for (int d = 0; d < r.net.ndims; d++) net += cpg[d] * r.R / r.net.ndims;
    double npus = weft_network_npus_total(&r.net), npu = net / npus * pow(10.0, 6 * urand() - 3);
    if (npu > 1e12 || npu < 1e-300 || weft_system_cost_set(&r.cm, "Npu", npu, &e)) {
      randprob_free(&r);
      continue;
    }
    r.spec.objective = i % 2 ? WEFT_OBJ_PERF_PER_COST : WEFT_OBJ_COST_PER_ITERATION;
    if (i % 2 == 0) set_sys(&r.cm, "NpuPowerW", 1.0 + 1e3 * urand());
    if (weft_problem_create(&r.spec, &p, &e)) {
      CHECK(!"a random problem could not be created");
      fprintf(stderr, "  problem %d: %s\n", i, e.msg);
      randprob_free(&r);
      continue;
    }
    CHECK_EQ_INT(weft_problem_solve(p, NULL, &res), WEFT_OK);
    if (!randprob_check(&r, p, &res, why, sizeof why) && bad++ < 5)
      fprintf(stderr, "  problem %d (%d dims, %s, %s): %s\n", i, r.net.ndims,
              weft_objective_name(r.spec.objective), weft_loop_name(r.spec.loop), why);
    weft_problem_free(p);
    randprob_free(&r);
  }
  CHECK_EQ_INT(bad, 0);
}

/* --- the fast path with c0 > 0, against the general path ------------------- */

/* Solve spec on the general path alone (the fast path's switch off), as
 * solve.c does when the fast path does not certify. */
static int solve_general(const WeftSpec *spec, WeftResult *res) {
  WeftProblem *p = NULL;
  WeftError e;
  int rc = weft_problem_create(spec, &p, &e);
  if (!rc && !p->pinned && p->pre_status == WEFT_STATUS_SOLVED) {
    rc = weft_general_prepare(p);
    p->fast = 0;
  }
  if (!rc) rc = weft_problem_solve(p, NULL, res);
  if (!rc && !p->pinned) CHECK(p->path == WEFT_PATH_GENERAL || res->status != WEFT_STATUS_SOLVED);
  weft_problem_free(p);
  return rc;
}

/* randprob's problems (2..8 dims; scales 1e-6..1e12; with prices per dim
 * drawn up to 1e18 apart every other one), perf-per-cost and cost-per-
 * iteration, no-overlap and tp-dp-overlap, with a constant cost c0 of
 * 10^U(-6, 6) times the network cost at the c0 = 0 optimum (the equal
 * split's where that has none): each is solved, passes randprob_check and
 * matches the general path's answer on the same problem to 1e-9 (relative
 * objective), each path's bound below both objectives; the ratio c0 /
 * network cost at the optimum found spans 1e-6..1e6. The fast path: a no-
 * overlap problem whose c0 = 0 twin it answers, it answers with c0 too
 * (before, c0 outweighing the start's network sent it to the general path)
 * -- every one with narrow prices; with wide prices the optimum can sit
 * 1e4 times the cheapest start's bandwidth on a dear dim, and the rates'
 * Newton steps (at most 1.5x each) may not get there: the general path
 * then answers (exactly, in more time), in at most a quarter of them. */
static void random_c0_fast_vs_general(void) {
  RandOpts narrow = {2, 8, 16, -6.0, 12.0, 0, 0}, wide = {2, 6, 8, -6.0, 12.0, 0, 1};
  uint64_t st = 2026112623;
  int bad = 0, nsolved = 0, twin[2] = {0, 0}, fast[2] = {0, 0};
  double rmin = HUGE_VAL, rmax = 0.0;
  rs = 2222;
  for (int i = 0; i < 320; i++) {
    RandProb r;
    WeftProblem *p = NULL;
    WeftResult res, gen, ref;
    WeftError e;
    char why[512];
    int w = i % 2;
    if (randprob_make(&r, &st, w ? &wide : &narrow)) {
      CHECK(!"a random problem could not be built");
      randprob_free(&r);
      continue;
    }
    int cpi = (i / 2) % 2, noov = (i / 4) % 2, twin_fast = 0;
    r.spec.loop = noov ? WEFT_LOOP_NO_OVERLAP : WEFT_LOOP_TP_DP_OVERLAP;
    /* The scale: the network cost at the optimum without c0. */
    double cpg[WEFT_MAX_DIMS], net = 0.0, npus = weft_network_npus_total(&r.net);
    CHECK_EQ_INT(weft_cost_per_gbps(&r.net, &r.cm, cpg, &e), WEFT_OK);
    for (int d = 0; d < r.net.ndims; d++) net += cpg[d] * r.R / r.net.ndims;
    r.spec.objective = WEFT_OBJ_PERF_PER_COST;
    if (weft_problem_create(&r.spec, &p, &e) == WEFT_OK &&
        weft_problem_solve(p, NULL, &ref) == WEFT_OK && ref.status == WEFT_STATUS_SOLVED) {
      net = ref.eval.cost_usd;
      twin_fast = p->path == WEFT_PATH_FAST;
    }
    weft_problem_free(p);
    p = NULL;
    /* c0 = N Npu (+ N NpuPowerW x PUE x price x lifetime for cost-per-
     * iteration, half of it), at 10^U(-6, 6) of that. */
    double rho = pow(10.0, 12.0 * urand() - 6.0), c0 = rho * net, kl = 0.0;
    set_sys(&r.cm, "Pue", 1.25);
    set_sys(&r.cm, "ElectricityUsdPerKwh", 0.1);
    set_sys(&r.cm, "LifetimeYears", 2.0);
    if (cpi) kl = 1.25 * 0.1 / 3.6e15 * 2.0 * NS_PER_YEAR; /* $ per W over the lifetime */
    double npu = (cpi ? 0.5 : 1.0) * c0 / npus, watts = cpi ? 0.5 * c0 / npus / kl : 0.0;
    if (!(npu >= 1e-300 && npu <= 1e12 && (!cpi || (watts >= 1e-300 && watts <= 1e9)))) {
      randprob_free(&r); /* out of the cost model's ranges */
      continue;
    }
    set_sys(&r.cm, "Npu", npu);
    if (cpi) set_sys(&r.cm, "NpuPowerW", watts);
    r.spec.objective = cpi ? WEFT_OBJ_COST_PER_ITERATION : WEFT_OBJ_PERF_PER_COST;
    if (weft_problem_create(&r.spec, &p, &e)) {
      CHECK(!"a random problem could not be created");
      randprob_free(&r);
      continue;
    }
    CHECK_EQ_INT(weft_problem_solve(p, NULL, &res), WEFT_OK);
    int ok = randprob_check(&r, p, &res, why, sizeof why);
    CHECK_EQ_INT(solve_general(&r.spec, &gen), WEFT_OK);
    if (ok && gen.status == WEFT_STATUS_SOLVED) {
      double o1 = res.objective, o2 = gen.objective;
      if (!(fabs(o1 - o2) <= 1e-9 * fmin(o1, o2))) {
        ok = 0;
        snprintf(why, sizeof why, "objective %.17g, the general path's %.17g", o1, o2);
      } else if (!(res.lower_bound <= fmin(o1, o2) * (1 + 1e-12) &&
                   gen.lower_bound <= fmin(o1, o2) * (1 + 1e-12))) {
        ok = 0;
        snprintf(why, sizeof why, "bounds %.17g, %.17g above an objective %.17g", res.lower_bound,
                 gen.lower_bound, fmin(o1, o2));
      }
    } else if (ok) {
      ok = 0;
      snprintf(why, sizeof why, "the general path: status %d, %s", gen.status, gen.message);
    }
    if (ok) {
      double c0_at = res.eval.npu_cost_usd + res.eval.npu_power_w * kl;
      double net_at = res.eval.cost_usd + res.eval.network_power_w * kl;
      rmin = fmin(rmin, c0_at / net_at);
      rmax = fmax(rmax, c0_at / net_at);
      nsolved++;
    }
    if (noov && twin_fast) {
      twin[w]++;
      fast[w] += p->path == WEFT_PATH_FAST;
      if (p->path != WEFT_PATH_FAST && !w && ok) {
        ok = 0;
        snprintf(why, sizeof why, "answered by the general path, its c0 = 0 twin by the fast one");
      }
    }
    if (!ok && bad++ < 5)
      fprintf(stderr, "  problem %d (%d dims, %s, %s, c0/net %.3g): %s\n", i, r.net.ndims,
              weft_objective_name(r.spec.objective), weft_loop_name(r.spec.loop), rho, why);
    weft_problem_free(p);
    randprob_free(&r);
  }
  if (getenv("WEFT_RANDOM_DEBUG"))
    fprintf(stderr, "  c0: %d solved; fast path %d of %d (narrow), %d of %d (wide); c0/net %.3g..%.3g\n",
            nsolved, fast[0], twin[0], fast[1], twin[1], rmin, rmax);
  CHECK_EQ_INT(bad, 0);
  CHECK(nsolved >= 200);
  CHECK(twin[0] >= 30 && fast[0] == twin[0]);
  CHECK(twin[1] >= 20 && 4 * fast[1] >= 3 * twin[1]);
  CHECK(rmin <= 1e-5 && rmax >= 1e5); /* the range claimed, at the optimum */
}

const TestCase suite_syscost[] = {
    {"syscost_keys_read", system_keys_read},
    {"syscost_figures_by_hand", figures_by_hand},
    {"syscost_closed_form_npu_capex", closed_form_npu_capex},
    {"syscost_closed_form_cost_per_iteration", closed_form_cost_per_iteration},
    {"syscost_no_system_unchanged", no_system_unchanged},
    {"syscost_brute_force_c0", brute_force_c0},
    {"syscost_random_with_capex", random_with_capex},
    {"syscost_random_c0_fast_vs_general", random_c0_fast_vs_general},
    {0, 0},
};
