/* fuzz_solve.c — parse, then solve. Input: a scenario (as fuzz_scenario.c),
 * or "#libra" and then LIBRA's inputs one after the other, each ended by a
 * line "%%": network yml, cost-model yml, communicator yml, workload text,
 * then constraints one a line; objective and loop from the input's length.
 * Whatever was read goes through weft_problem_create and
 * weft_problem_solve: no crash; a status always; SOLVED means finite
 * bandwidths, objective and bound, a gap within tolerance, the constraints
 * met and the evaluation agreeing; INFEASIBLE names valid constraints. */
#define _GNU_SOURCE  /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_scenario_dir.h"

#define NPARTS 5
#define SEP "\n%%\n"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_scenario_dir();
  return 0;
}

/* Relative agreement, for values the solver computes two ways. */
static int close_to(double a, double b, double rel) {
  return fabs(a - b) <= rel * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static void check_solution(const WeftProblem *p, const WeftSpec *spec, const WeftSettings *st,
                           const WeftResult *res) {
  int D = spec->net->ndims;
  FUZZ_CHECK(res->ndims == D, "result dims", NULL);
  FUZZ_CHECK((int)res->status >= WEFT_STATUS_SOLVED && (int)res->status <= WEFT_STATUS_NUMERICAL,
             "status", NULL);
  FUZZ_CHECK(memchr(res->message, '\0', sizeof res->message) != NULL, "message", NULL);
  if (res->status == WEFT_STATUS_INFEASIBLE) {
    int ncons = spec->cons ? spec->cons->n : 0;
    FUZZ_CHECK(res->message[0] != '\0', "infeasible says why", NULL);
    FUZZ_CHECK(res->nconflict >= 0 && res->nconflict <= ncons, "nconflict", NULL);
    for (int i = 0; i < res->nconflict; i++)
      FUZZ_CHECK(res->conflict[i] >= 0 && res->conflict[i] < ncons, "conflict index", NULL);
  }
  if (res->status == WEFT_STATUS_UNBOUNDED)
    FUZZ_CHECK(res->message[0] != '\0', "unbounded says why", NULL);
  if (res->status != WEFT_STATUS_SOLVED) return;
  int all_used_positive = 1;
  for (int d = 0; d < D; d++) {
    FUZZ_CHECK(fuzz_finite(res->bw_gbps[d]) && res->bw_gbps[d] >= 0, "solved bw finite, >= 0",
               NULL);
    if (!(res->dim_flags[d] & WEFT_DIM_UNUSED) && !(res->bw_gbps[d] > 0)) all_used_positive = 0;
  }
  FUZZ_CHECK(fuzz_finite(res->objective), "solved objective finite", NULL);
  FUZZ_CHECK(fuzz_finite(res->lower_bound), "solved lower bound finite", NULL);
  FUZZ_CHECK(fuzz_finite(res->gap) && res->gap >= 0 && res->gap <= st->gap_tol, "solved gap",
             NULL);
  FUZZ_CHECK(fuzz_finite(res->eval.time_ns) && fuzz_finite(res->eval.cost_usd), "solved eval",
             NULL);
  double obj = spec->objective == WEFT_OBJ_PERF ? res->eval.time_ns
                                                : res->eval.time_ns * res->eval.cost_usd;
  FUZZ_CHECK(close_to(res->objective, obj, 1e-9), "objective is the evaluation's", NULL);
  /* The design meets every constraint (relative to the terms' size). */
  for (int i = 0; spec->cons && i < spec->cons->n; i++) {
    const WeftConstraint *c = &spec->cons->c[i];
    double lhs = c->cost_coef * res->eval.cost_usd, scale = fabs(lhs) + fabs(c->rhs);
    for (int d = 0; d < D; d++) {
      lhs += c->coef[d] * res->bw_gbps[d];
      scale += fabs(c->coef[d] * res->bw_gbps[d]);
    }
    double tol = 1e-6 * fmax(scale, 1.0);
    int ok = c->rel == WEFT_REL_LE   ? lhs <= c->rhs + tol
             : c->rel == WEFT_REL_GE ? lhs >= c->rhs - tol
                                     : fabs(lhs - c->rhs) <= tol;
    if (!ok) fprintf(stderr, "fuzz: constraint '%s': %.17g vs %.17g\n", c->text, lhs, c->rhs);
    FUZZ_CHECK(ok, "solved design meets the constraints", NULL);
  }
  if (all_used_positive) {
    WeftEval ev;
    int rc = weft_problem_evaluate(p, res->bw_gbps, &ev);
    FUZZ_CHECK(rc == 0, "evaluate at the solution", NULL);
    FUZZ_CHECK(close_to(ev.time_ns, res->eval.time_ns, 1e-9) &&
                   close_to(ev.cost_usd, res->eval.cost_usd, 1e-9),
               "evaluation at the solution agrees", NULL);
  }
}

static void solve(const WeftSpec *spec) {
  WeftProblem *p = NULL;
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_problem_create(spec, &p, &err);
  fuzz_check_result(rc, &err, "weft_problem_create");
  FUZZ_CHECK((rc == 0) == (p != NULL), "problem set exactly on success", &err);
  if (rc) return;
  WeftSettings st;
  weft_settings_default(&st);
  static WeftResult res;
  rc = weft_problem_solve(p, &st, &res);
  FUZZ_CHECK(rc <= 0 && rc >= WEFT_ESOLVER, "solve returns 0 or a WeftErrno", NULL);
  if (fuzz_verbose())
    fprintf(stderr, "fuzz: solve: rc %d, %s, objective %g, B1 %g %s\n", rc,
            weft_status_name(res.status), res.objective, res.bw_gbps[0], res.message);
  if (rc == 0) check_solution(p, spec, &st, &res);
  weft_problem_free(p);
}

static void solve_scenario(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("scenario.yml", data, size);
  WeftScenario *sc = weft_scenario_create();
  FUZZ_CHECK(sc != NULL, "weft_scenario_create", NULL);
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_scenario_read_zoo(path, fuzz_path("zoo"), sc, &err);
  fuzz_check_result(rc, &err, "weft_scenario_read_zoo");
  if (rc == 0) {
    fuzz_check_scenario(sc);
    WeftSpec spec;
    weft_scenario_spec(sc, &spec);
    solve(&spec);
  }
  weft_scenario_free(sc);
}

static void solve_libra(const uint8_t *data, size_t size) {
  static const char *const names[NPARTS] = {"l_net.yml", "l_cost.yml", "l_comm.yml", "l_wl.txt",
                                            "l_cons.txt"};
  const char *part[NPARTS];
  size_t len[NPARTS];
  char *text = fuzz_strdup(data, size);
  char *s = text, *end = text + size;
  for (int i = 0; i < NPARTS; i++) {  /* missing parts are empty */
    char *e = i < NPARTS - 1 ? memmem(s, (size_t)(end - s), SEP, strlen(SEP)) : NULL;
    part[i] = s;
    len[i] = e ? (size_t)(e - s) + 1 : (size_t)(end - s);
    s = e ? e + strlen(SEP) : end;
  }
  static WeftNetwork net;
  static WeftCostModel cost;
  static WeftCommunicator comm;
  static WeftConstraints cons;
  WeftWorkload *wl = NULL;
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_network_read(fuzz_write(names[0], part[0], len[0]), &net, &err);
  if (!rc) rc = weft_cost_model_read(fuzz_write(names[1], part[1], len[1]), &cost, &err);
  if (!rc) rc = weft_communicator_read(fuzz_write(names[2], part[2], len[2]), &comm, &err);
  if (!rc) rc = weft_workload_read(fuzz_write(names[3], part[3], len[3]), &wl, &err);
  fuzz_check_result(rc, &err, "LIBRA readers");
  memset(&cons, 0, sizeof cons);
  if (!rc) {
    char *c = fuzz_strdup((const uint8_t *)part[4], len[4]);
    for (char *line = c, *next; line && !rc; line = next) {
      next = strchr(line, '\n');
      if (next) *next++ = '\0';
      if (!line[0]) continue;
      rc = weft_constraints_parse(&cons, line, net.ndims, &err);
      fuzz_check_result(rc, &err, "weft_constraints_parse");
    }
    free(c);
  }
  if (!rc) {
    WeftSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.net = &net;
    spec.cost = &cost;
    spec.njobs = 1;
    spec.jobs[0] = (WeftJob){wl, &comm, 1.0, "libra"};
    spec.cons = &cons;
    spec.objective = size & 1 ? WEFT_OBJ_PERF_PER_COST : WEFT_OBJ_PERF;
    spec.loop = size & 2 ? (size & 4 ? WEFT_LOOP_FWD_IG_OVERLAP : WEFT_LOOP_TP_DP_OVERLAP)
                         : WEFT_LOOP_NO_OVERLAP;
    solve(&spec);
  }
  weft_workload_free(wl);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char magic[] = "#libra\n";
  if (size >= strlen(magic) && !memcmp(data, magic, strlen(magic))) {
    solve_libra(data + strlen(magic), size - strlen(magic));
    return 0;
  }
  if (fuzz_names_special_file(data, size)) return -1;  /* not added to the corpus */
  solve_scenario(data, size);
  return 0;
}
