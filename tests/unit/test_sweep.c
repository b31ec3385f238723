/* test_sweep.c — unit tests (suite sweep): spec fields, counts and exact
 * ranges, every spec error at its place, points equal to hand-written
 * scenarios, rows independent of threads and ranks; scenario model jobs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weft.h"

#include "../test.h"

/* ------------------------------------------------------------------ helpers */

static char tdir[64];
static char tnames[16][WEFT_PATH_LEN];
static int tcount;
static char cwd[256];  /* the repo root: fixtures by absolute path */

static const char *tpath(const char *name, char *out) {
  if (!tdir[0]) {
    snprintf(tdir, sizeof tdir, "/tmp/weft-sweep-XXXXXX");
    if (!mkdtemp(tdir)) {
      fprintf(stderr, "  cannot create a temporary directory\n");
      exit(2);
    }
  }
  snprintf(out, WEFT_PATH_LEN, "%s/%s", tdir, name);
  return out;
}

/* Write text to the scratch file name; its path into out. */
static const char *twrite(const char *name, const char *text, char *out) {
  tpath(name, out);
  FILE *f = fopen(out, "wb");
  if (!f) {
    fprintf(stderr, "  cannot write %s\n", out);
    exit(2);
  }
  fputs(text, f);
  fclose(f);
  int seen = 0;
  for (int i = 0; i < tcount; i++) seen |= strcmp(tnames[i], out) == 0;
  if (!seen && tcount < 16) snprintf(tnames[tcount++], WEFT_PATH_LEN, "%s", out);
  return out;
}

static void tclean(void) {
  for (int i = 0; i < tcount; i++) remove(tnames[i]);
  tcount = 0;
  if (tdir[0]) rmdir(tdir);
  tdir[0] = '\0';
}

static void repo_root(void) {
  if (!cwd[0] && !getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, ".");
}

static int check_err(int at, int rc, const WeftError *e, int code, const char *file, int line,
                     int col, const char *field, const char *msg) {
  char buf[1024];
  int ok = rc == code && e->code == code && (!file || strcmp(e->file, file) == 0) &&
           (line < 0 || e->line == line) && (col < 0 || e->col == col) &&
           (!field || strcmp(e->field, field) == 0) && (!msg || strstr(e->msg, msg));
  if (!ok) {
    fprintf(stderr, "  %s:%d: got rc %d field '%s' \"%s\"\n", __FILE__, at, rc, e->field,
            weft_error_format(e, buf, sizeof buf));
    fprintf(stderr, "    expected code %d at %d:%d field '%s' msg ~ \"%s\"\n", code, line, col,
            field ? field : "*", msg ? msg : "*");
    test_failures_++;
  }
  return ok;
}
#define CHECK_ERR(rc, e, code, file, line, col, field, msg) \
  check_err(__LINE__, rc, e, code, file, line, col, field, msg)

/* Read spec text (written to sweep.yml) into *sw. */
static int read_text(const char *text, WeftSweep **sw, WeftError *e, char *path) {
  twrite("sweep.yml", text, path);
  return weft_sweep_read(path, "data/zoo", sw, e);
}

/* ------------------------------------------------------------------ fields and counts */

static void fields_and_count(void) {
  WeftSweep *sw = NULL;
  WeftError e;
  char path[WEFT_PATH_LEN];
  const char *text =
      "a: {sweep: [x, y]}\n"
      "b:\n"
      "  - 1\n"
      "  - {sweep: [[4, 8], {k: v, w: [1]}, \"q, r\"]}\n"
      "c: {d: {range: [100, 1000, 100]}}\n";
  CHECK_EQ_INT(read_text(text, &sw, &e, path), WEFT_OK);
  if (!sw) return;
  /* 2 x 3 x 10 points, in document order */
  CHECK_EQ_INT(weft_sweep_count(sw), 60);
  CHECK_EQ_INT(weft_sweep_nfields(sw), 3);
  CHECK(strcmp(weft_sweep_field(sw, 0), "a") == 0);
  CHECK(strcmp(weft_sweep_field(sw, 1), "b[1]") == 0);
  CHECK(strcmp(weft_sweep_field(sw, 2), "c.d") == 0);
  CHECK(weft_sweep_field(sw, 3) == NULL && weft_sweep_field(sw, -1) == NULL);
  /* point 37 = 1*30 + 0*10 + 7: y, the first list, the 8th range value */
  CHECK(strcmp(weft_sweep_value(sw, 37, 0), "y") == 0);
  CHECK(strcmp(weft_sweep_value(sw, 37, 1), "[4, 8]") == 0);
  CHECK(strcmp(weft_sweep_value(sw, 37, 2), "800") == 0);
  CHECK(strcmp(weft_sweep_value(sw, 14, 1), "{k: v, w: [1]}") == 0);  /* 0*30 + 1*10 + 4 */
  CHECK(strcmp(weft_sweep_value(sw, 59, 0), "y") == 0);
  CHECK(strcmp(weft_sweep_value(sw, 59, 1), "q, r") == 0);
  CHECK(strcmp(weft_sweep_value(sw, 59, 2), "1000") == 0);
  CHECK(strcmp(weft_sweep_value(sw, 0, 2), "100") == 0);
  CHECK(weft_sweep_value(sw, 60, 0) == NULL);
  weft_sweep_free(sw);
  /* no swept value: one point, the scenario itself */
  CHECK_EQ_INT(read_text("a: 1\nb: [1, 2]\n", &sw, &e, path), WEFT_OK);
  CHECK_EQ_INT(weft_sweep_count(sw), 1);
  CHECK_EQ_INT(weft_sweep_nfields(sw), 0);
  weft_sweep_free(sw);
  weft_sweep_free(NULL);
  CHECK_EQ_INT(weft_sweep_count(NULL), 0);
  tclean();
}

/* ------------------------------------------------------------------ ranges */

static void ranges_exact(void) {
  static const struct {
    const char *node;
    int n;
    const char *values;  /* space-separated, as derived by hand */
  } cases[] = {
      {"{range: [100, 1000, 100]}", 10, "100 200 300 400 500 600 700 800 900 1000"},
      /* decimal steps: 0.1 is not exact in binary, the values are */
      {"{range: [0.1, 0.5, 0.1]}", 5, "0.1 0.2 0.3 0.4 0.5"},
      {"{range: [0, 1, 0.1]}", 11, "0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1"},
      {"{range: [0.5, 2.2, 0.5]}", 4, "0.5 1 1.5 2"},  /* 2.5 would pass 2.2 */
      {"{range: [10, 1, -3]}", 4, "10 7 4 1"},
      {"{range: [5, 5, 1]}", 1, "5"},
      {"{range: [-0.3, 0.3, 0.15]}", 5, "-0.3 -0.15 0 0.15 0.3"},
      {"{range: [1.25, 2, 0.25]}", 4, "1.25 1.5 1.75 2"},
      /* exponent form: worked in doubles, same values */
      {"{range: [1e2, 1e3, 1e2]}", 10, "100 200 300 400 500 600 700 800 900 1000"},
      {"{range: [1e-1, 5e-1, 1e-1]}", 5, "0.1 0.2 0.3 0.4 0.5"},
      /* geometric */
      {"{range: [1, 64], times: 2}", 7, "1 2 4 8 16 32 64"},
      {"{range: [1, 100], times: 10}", 3, "1 10 100"},
      {"{range: [0.5, 3], times: 2}", 3, "0.5 1 2"},
      /* 1.1^k for k = 0..7 (1.1^8 = 2.14358881 > 2) */
      {"{range: [1, 2], times: 1.1}", 8, "1 1.1 1.21 1.331 1.4641 1.61051 1.771561 1.9487171"},
      /* a format keeps the value as the label */
      {"{range: [500, 1000, 250], format: \"sum = {}\"}", 3, "500 750 1000"},
      {"{sweep: [a, 7], format: \"s{}\"}", 2, "a 7"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char text[256], path[WEFT_PATH_LEN];
    WeftSweep *sw = NULL;
    WeftError e;
    snprintf(text, sizeof text, "x: %s\n", cases[c].node);
    int rc = read_text(text, &sw, &e, path);
    CHECK_EQ_INT(rc, WEFT_OK);
    if (rc) {
      fprintf(stderr, "  case %s: %s\n", cases[c].node, e.msg);
      continue;
    }
    CHECK_EQ_INT(weft_sweep_count(sw), cases[c].n);
    char want[256];
    snprintf(want, sizeof want, "%s", cases[c].values);
    size_t i = 0;
    for (char *tok = strtok(want, " "); tok; tok = strtok(NULL, " "), i++) {
      const char *got = weft_sweep_value(sw, i, 0);
      if (!got || strcmp(got, tok) != 0) {
        fprintf(stderr, "  %s value %zu: got %s, expected %s\n", cases[c].node, i,
                got ? got : "(none)", tok);
        test_failures_++;
      }
    }
    CHECK_EQ_INT(i, cases[c].n);
    weft_sweep_free(sw);
  }
  tclean();
}

/* ------------------------------------------------------------------ spec errors */

static void spec_errors(void) {
  static const struct {
    const char *text;
    int code, line, col;
    const char *field, *msg;
  } cases[] = {
      {"x: {range: [1, 5, 0]}\n", WEFT_EINPUT, 1, 12, "x", "x: range step must not be 0"},
      {"x: {range: [1, 5, -1]}\n", WEFT_EINPUT, 1, 12, "x", "step -1 never gets from 1 to 5"},
      {"x: {range: [1, 5]}\n", WEFT_EINPUT, 1, 12, "x", "needs a step ([from, to, step]) or times"},
      {"x: {range: [1, 5, 1], times: 2}\n", WEFT_EINPUT, 1, 30, "x", "a step"},
      {"x: {range: [1, 8], times: 1}\n", WEFT_EINPUT, 1, 27, "x", "times must be > 1, got 1"},
      {"x: {range: [0, 8], times: 2}\n", WEFT_EINPUT, 1, 12, "x", "needs 0 < from <= to"},
      {"x: {range: [1, a, 1]}\n", WEFT_EINPUT, 1, 16, "x", "x: range to must be a number, got 'a'"},
      {"x: {range: [1, .inf, 1]}\n", WEFT_EINPUT, 1, 16, "x", "finite"},
      {"x: {range: 5}\n", WEFT_EINPUT, 1, 12, "x", "range must be [from, to, step]"},
      {"x: {range: [1, 2, 3, 4]}\n", WEFT_EINPUT, 1, 12, "x", "range must be [from, to, step]"},
      {"x: {sweep: []}\n", WEFT_EINPUT, 1, 12, "x", "x: sweep list is empty"},
      {"x: {sweep: 5}\n", WEFT_EINPUT, 1, 12, "x", "x must be a sequence, got '5'"},
      {"x: {sweep: [1], range: [1, 2, 1]}\n", WEFT_EINPUT, 1, 17, "x", "'sweep' or 'range'"},
      {"x: {sweep: [1], times: 2}\n", WEFT_EINPUT, 1, 17, "x", "'times' goes with 'range'"},
      {"x: {sweep: [1], step: 2}\n", WEFT_EINPUT, 1, 17, "step", "unknown key 'step'"},
      {"x: {sweep: [1, {sweep: [2]}]}\n", WEFT_EINPUT, 1, 16, "x", "cannot hold another sweep"},
      {"x: {range: [1, 2, {sweep: [1]}]}\n", WEFT_EINPUT, 1, 19, "x", "cannot hold another"},
      {"x: {sweep: [a], format: nohole}\n", WEFT_EINPUT, 1, 25, "x", "format must be text with {}"},
      {"x: {sweep: [[1]], format: \"a{}\"}\n", WEFT_EINPUT, 1, 13, "x",
       "each value must be a single"},
      /* a sweep where a key goes: YAML keys are plain names */
      {"{sweep: [a, b]}: 1\n", WEFT_EINPUT, 1, 1, NULL, "mapping keys must be plain names"},
      {"a:\n  {range: [1, 2, 1]}: 1\n", WEFT_EINPUT, 2, 3, NULL, "mapping keys must be plain"},
      {"{sweep: [a, b]}\n", WEFT_EINPUT, 1, 1, NULL, "the whole spec cannot be swept"},
      {"- {sweep: [a, b]}\n", WEFT_EINPUT, 1, 1, NULL, "expected a scenario mapping"},
      /* 1e6 x 2 points: the second field breaks the bound */
      {"x: {range: [1, 1000000, 1]}\ny: {sweep: [a, b]}\n", WEFT_EINPUT, 2, 4, "y",
       "more than 1000000 points"},
      {"x: {range: [1, 2000000, 1]}\n", WEFT_EINPUT, 1, 12, "x", "range gives 2000000 values"},
      /* the true count, floor(ln 1e7 / ln 1.000001) + 1 (it said 1000001) */
      {"x: {range: [1, 1e7], times: 1.000001}\n", WEFT_EINPUT, 1, 12, "x",
       "range gives 16118104 values, more than 1000000"},
      /* block style: the place is the value's own line */
      {"network: n.yml\nworkload:\n  model: m\n  tp:\n    sweep: []\n", WEFT_EINPUT, 5, 12,
       "workload.tp", "workload.tp: sweep list is empty"},
      {"constraints:\n  - sum = 1\n  - {range: [3, 1, 1]}\n", WEFT_EINPUT, 3, 13,
       "constraints[1]", "never gets from 3 to 1"},
      {"x: [1, 2\n", WEFT_ESYNTAX, -1, -1, NULL, NULL},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char path[WEFT_PATH_LEN];
    WeftSweep *sw = (WeftSweep *)&sw;  /* must come back NULL */
    WeftError e;
    int rc = read_text(cases[c].text, &sw, &e, path);
    if (!CHECK_ERR(rc, &e, cases[c].code, path, cases[c].line, cases[c].col, cases[c].field,
                   cases[c].msg))
      fprintf(stderr, "    case %zu: %s", c, cases[c].text);
    CHECK(sw == NULL);
    if (!rc) weft_sweep_free(sw);
  }
  WeftSweep *sw;
  WeftError e;
  CHECK_ERR(weft_sweep_read("no/such/sweep.yml", NULL, &sw, &e), &e, WEFT_EIO,
            "no/such/sweep.yml", 0, 0, NULL, "cannot open");
  CHECK_EQ_INT(weft_sweep_read(NULL, NULL, &sw, &e), WEFT_EINVAL);
  CHECK_EQ_INT(weft_sweep_read("x.yml", NULL, NULL, &e), WEFT_EINVAL);
  tclean();
}

/* ------------------------------------------------------------------ points */

/* Solve a scenario file the way `weft optimize` does. */
static int solve_file(const char *path, const char *zoo, WeftResult *res) {
  WeftScenario *sc = weft_scenario_create();
  WeftProblem *p = NULL;
  WeftError e;
  WeftSettings set;
  WeftSpec spec;
  weft_settings_default(&set);
  int rc = weft_scenario_read_zoo(path, zoo, sc, &e);
  if (!rc) {
    weft_scenario_spec(sc, &spec);
    rc = weft_problem_create(&spec, &p, &e);
  }
  if (!rc) rc = weft_problem_solve(p, &set, res);
  if (rc) fprintf(stderr, "  %s: %s\n", path, e.msg);
  weft_problem_free(p);
  weft_scenario_free(sc);
  return rc;
}

#define INPUTS "%s/tests/golden/inputs/"

/* A 2 x 3 sweep: each row equals the hand-substituted scenario solved alone. */
static void points_equal_scenarios(void) {
  repo_root();
  char spec[4096], path[WEFT_PATH_LEN];
  snprintf(spec, sizeof spec,
           "network: " INPUTS "net3.yml\n"
           "cost_model: " INPUTS "cost3.yml\n"
           "workload: " INPUTS "wl1.txt\n"
           "communicator: " INPUTS "comm3.yml\n"
           "objective: {sweep: [perf, perf-per-cost]}\n"
           "constraints:\n"
           "  - {range: [500, 1000, 250], format: \"sum = {}\"}\n"
           "  - B1 >= B2\n",
           cwd, cwd, cwd, cwd);
  WeftSweep *sw = NULL;
  WeftError e;
  CHECK_EQ_INT(read_text(spec, &sw, &e, path), WEFT_OK);
  if (!sw) return;
  CHECK_EQ_INT(weft_sweep_count(sw), 6);
  CHECK_EQ_INT(weft_sweep_nvalues(sw, 0), 2); /* perf, perf-per-cost */
  CHECK_EQ_INT(weft_sweep_nvalues(sw, 1), 3); /* 500, 750, 1000 */
  CHECK_EQ_INT(weft_sweep_nvalues(sw, 2), 0);
  static const char *const objective[] = {"perf", "perf-per-cost"};
  static const char *const sum[] = {"500", "750", "1000"};
  for (size_t i = 0; i < 6; i++) {
    /* point i: objective i / 3, sum i % 3 (the last field varies fastest) */
    char text[4096], one[WEFT_PATH_LEN];
    snprintf(text, sizeof text,
             "network: " INPUTS "net3.yml\n"
             "cost_model: " INPUTS "cost3.yml\n"
             "workload: " INPUTS "wl1.txt\n"
             "communicator: " INPUTS "comm3.yml\n"
             "objective: %s\n"
             "constraints: [\"sum = %s\", \"B1 >= B2\"]\n",
             cwd, cwd, cwd, cwd, objective[i / 3], sum[i % 3]);
    twrite("one.yml", text, one);
    WeftResult res;
    WeftSweepRow row;
    CHECK_EQ_INT(solve_file(one, NULL, &res), WEFT_OK);
    CHECK_EQ_INT(weft_sweep_eval(sw, i, &row), WEFT_OK);
    CHECK(strcmp(weft_sweep_value(sw, i, 0), objective[i / 3]) == 0);
    CHECK(strcmp(weft_sweep_value(sw, i, 1), sum[i % 3]) == 0);
    CHECK_EQ_INT(row.point, i);
    CHECK_EQ_INT(row.status, WEFT_POINT_OK);
    CHECK_EQ_INT(row.ndims, 3);
    CHECK(row.message[0] == '\0');
    CHECK_NEAR(row.time_ns, res.eval.time_ns, 1e-12);
    CHECK_NEAR(row.cost_usd, res.eval.cost_usd, 1e-12);
    CHECK_NEAR(row.objective, res.objective, 1e-12);
    /* wl1.txt's one layer computes 1 + 2 + 3 ms whatever the bandwidth */
    CHECK_NEAR(row.compute_ns, 6e6, 1e-12);
    for (int d = 0; d < 3; d++) CHECK_NEAR(row.bw_gbps[d], res.bw_gbps[d], 1e-12);
    /* the sum constraint holds at the optimum (a property, not a copy) */
    CHECK_NEAR(row.bw_gbps[0] + row.bw_gbps[1] + row.bw_gbps[2], atof(sum[i % 3]), 1e-9);
  }
  WeftSweepRow row;
  CHECK_EQ_INT(weft_sweep_eval(sw, 6, &row), WEFT_EINVAL);
  CHECK_EQ_INT(weft_sweep_eval(NULL, 0, &row), WEFT_EINVAL);
  weft_sweep_free(sw);
  tclean();
}

/* Statuses, and messages naming the spec's line of the swept value. */
static void point_statuses(void) {
  repo_root();
  char spec[4096], path[WEFT_PATH_LEN];
  snprintf(spec, sizeof spec,
           "network: " INPUTS "net3.yml\n"
           "cost_model: " INPUTS "cost3.yml\n"
           "workload: " INPUTS "wl1.txt\n"
           "communicator: " INPUTS "comm3.yml\n"
           "constraints:\n"
           "  sweep:\n"
           "    - [\"sum = 1000\"]\n"
           "    - [\"sum = 100\", \"B1 >= 200\"]\n"
           "    - [\"B9 >= 1\"]\n",
           cwd, cwd, cwd, cwd);
  WeftSweep *sw = NULL;
  WeftError e;
  CHECK_EQ_INT(read_text(spec, &sw, &e, path), WEFT_OK);
  if (!sw) return;
  CHECK(strcmp(weft_sweep_field(sw, 0), "constraints") == 0);
  CHECK(strcmp(weft_sweep_value(sw, 1, 0), "[sum = 100, B1 >= 200]") == 0);
  WeftSweepRow rows[3];
  CHECK_EQ_INT(weft_sweep_run(sw, rows, NULL, &e), WEFT_OK);
  CHECK_EQ_INT(rows[0].status, WEFT_POINT_OK);
  CHECK_EQ_INT(rows[1].status, WEFT_POINT_INFEASIBLE);  /* B1 >= 200 > sum */
  CHECK(rows[1].message[0] != '\0' && rows[1].time_ns == 0.0);
  CHECK_EQ_INT(rows[2].status, WEFT_POINT_INVALID);     /* 3 dims, no B9 */
  char want[WEFT_PATH_LEN + 16];
  snprintf(want, sizeof want, "%s:9:", path);  /* "B9 >= 1" is on line 9 */
  CHECK(strncmp(rows[2].message, want, strlen(want)) == 0);
  CHECK_EQ_INT(rows[2].ndims, 0);
  weft_sweep_free(sw);

  /* a model workload: tp 8 does not fit an 80 GiB (85.9 GB) A100: GPT-3's bf16
     parameters and gradients alone are 4 bytes x 175e9 / 8 = 87.5 GB per NPU;
     tp 16 with ZeRO-1 does */
  snprintf(spec, sizeof spec,
           "network: %s/data/gpt3/network_4d.yml\n"
           "cost_model: %s/data/gpt3/cost_4d.yml\n"
           "workload: {model: gpt3-175b, zero: 1, tp: {sweep: [8, 16]}}\n"
           "constraints: [\"sum = 1000\"]\n",
           cwd, cwd);
  CHECK_EQ_INT(read_text(spec, &sw, &e, path), WEFT_OK);
  if (!sw) return;
  CHECK(strcmp(weft_sweep_field(sw, 0), "workload.tp") == 0);
  CHECK_EQ_INT(weft_sweep_run(sw, rows, NULL, &e), WEFT_OK);
  CHECK_EQ_INT(rows[0].status, WEFT_POINT_NO_MEMORY);
  snprintf(want, sizeof want, "%s:3:11: ", path);  /* at the workload mapping */
  CHECK(strncmp(rows[0].message, want, strlen(want)) == 0);
  CHECK(strstr(rows[0].message, "GB") != NULL);
  CHECK_EQ_INT(rows[1].status, WEFT_POINT_OK);
  CHECK_EQ_INT(rows[1].ndims, 4);
  weft_sweep_free(sw);
  tclean();
}

static int rows_equal(const WeftSweepRow *a, const WeftSweepRow *b) {
  int eq = a->point == b->point && a->status == b->status && a->ndims == b->ndims &&
           a->time_ns == b->time_ns && a->cost_usd == b->cost_usd &&
           a->objective == b->objective && a->gap == b->gap && !strcmp(a->message, b->message);
  for (int d = 0; d < WEFT_MAX_DIMS; d++) eq = eq && a->bw_gbps[d] == b->bw_gbps[d];
  return eq;
}

/* The same rows, bit for bit, on 1 or 4 threads and split over 2 or 3 ranks. */
/* Chunks from weft_sweep_stream against rows computed at once. */
typedef struct {
  const WeftSweepRow *want;
  size_t n, next, bad, rank, nranks;
} StreamCheck;

static int stream_check(void *ctx, size_t first, WeftSweepRow *rows, size_t m) {
  StreamCheck *c = ctx;
  WeftSweepRow zero;
  memset(&zero, 0, sizeof zero);
  if (first != c->next || (m != (c->nranks == 1 ? 3u : 4u) && first + m != c->n)) c->bad++;
  for (size_t j = 0; j < m && first + j < c->n; j++) {
    int mine = (first + j) % c->nranks == c->rank;
    if (!rows_equal(&rows[j], mine ? &c->want[first + j] : &zero)) c->bad++;
  }
  c->next = first + m;
  return 0;
}

static void threads_and_ranks(void) {
  repo_root();
  char spec[4096], path[WEFT_PATH_LEN];
  snprintf(spec, sizeof spec,
           "network: " INPUTS "net3.yml\n"
           "cost_model: {Chip: {Link: {sweep: [1, 2]}}, Node: {Link: 4, Switch: 10},\n"
           "             Pod: {Link: 8, Switch: 16, Nic: 32}}\n"
           "workload: " INPUTS "wl1.txt\n"
           "communicator: " INPUTS "comm3.yml\n"
           "objective: {sweep: [perf, perf-per-cost]}\n"
           "constraints: [{range: [250, 1000, 250], format: \"sum = {}\"}, \"cost <= 1e6\"]\n",
           cwd, cwd, cwd);
  WeftSweep *sw = NULL;
  WeftError e;
  CHECK_EQ_INT(read_text(spec, &sw, &e, path), WEFT_OK);
  if (!sw) return;
  size_t n = weft_sweep_count(sw);
  CHECK_EQ_INT(n, 16);
  CHECK(strcmp(weft_sweep_field(sw, 0), "cost_model.Chip.Link") == 0);
  WeftSweepRow one[16], four[16], split[16];
  WeftRunSettings rs = {.threads = 1, .rank = 0, .nranks = 1};
  CHECK_EQ_INT(weft_sweep_run(sw, one, &rs, &e), WEFT_OK);
  rs.threads = 4;
  CHECK_EQ_INT(weft_sweep_run(sw, four, &rs, &e), WEFT_OK);
  for (size_t nranks = 2; nranks <= 3; nranks++) {
    memset(split, 0, sizeof split);
    for (size_t r = 0; r < nranks; r++) {
      WeftRunSettings rr = {.threads = 2, .rank = r, .nranks = nranks};
      CHECK_EQ_INT(weft_sweep_run(sw, split, &rr, &e), WEFT_OK);
    }
    for (size_t i = 0; i < n; i++) CHECK(rows_equal(&split[i], &one[i]));
  }
  size_t nok = 0;
  for (size_t i = 0; i < n; i++) {
    CHECK(rows_equal(&four[i], &one[i]));
    nok += one[i].status == WEFT_POINT_OK;
  }
  CHECK(nok > 0);
  WeftRunSettings bad = {.threads = 1, .rank = 2, .nranks = 2};
  CHECK_EQ_INT(weft_sweep_run(sw, one, &bad, &e), WEFT_EINVAL);
  /* streamed in chunks of 3 (4 on 2 ranks), in order: the same rows; on 2
   * ranks each rank's rows, the others zero */
  for (size_t nranks = 1; nranks <= 2; nranks++) {
    StreamCheck sc = {one, n, 0, 0, 0, nranks};
    for (size_t r = 0; r < nranks; r++) {
      WeftRunSettings rr = {.threads = 2, .rank = r, .nranks = nranks};
      sc.next = 0;
      sc.rank = r;
      CHECK_EQ_INT(weft_sweep_stream(sw, &rr, 3, stream_check, &sc, &e), WEFT_OK);
      CHECK_EQ_INT(sc.next, n);
    }
    CHECK_EQ_INT(sc.bad, 0);
  }
  CHECK_EQ_INT(weft_sweep_stream(sw, &bad, 3, stream_check, NULL, &e), WEFT_EINVAL);
  weft_sweep_free(sw);
  tclean();
}

/* ------------------------------------------------------------------ model jobs */

static void jobs_equal(const WeftWorkload *a, const WeftCommunicator *ca, const WeftWorkload *b,
                       const WeftCommunicator *cb) {
  CHECK_EQ_INT(a->nlayers, b->nlayers);
  for (int i = 0; i < a->nlayers && i < b->nlayers; i++)
    for (int p = 0; p < WEFT_NPHASES; p++) {
      CHECK(a->layers[i].phase[p].compute_ns == b->layers[i].phase[p].compute_ns);
      CHECK(a->layers[i].phase[p].size_bytes == b->layers[i].phase[p].size_bytes);
      CHECK(a->layers[i].phase[p].coll == b->layers[i].phase[p].coll);
    }
  CHECK_EQ_INT(ca->ndims, cb->ndims);
  CHECK(memcmp(ca->group, cb->group, sizeof ca->group) == 0);
  CHECK_EQ_INT(ca->nextra, cb->nextra);
}

/* A scenario's model workload is weft_generate's full (not compact) one, with dp =
 * NPUs / (tp*pp). */
static void model_job_matches_generator(void) {
  repo_root();
  char text[4096], path[WEFT_PATH_LEN];
  snprintf(text, sizeof text,
           "network: %s/data/gpt3/network_4d.yml\n"
           "cost_model: %s/data/gpt3/cost_4d.yml\n"
           "workload: {model: gpt3-175b, device: a100, tp: 16, pp: 1, zero: 1,\n"
           "           sequence_parallel: false, recompute: no, order: \"TP,PP,DP\",\n"
           "           efficiency: 0.5}\n",
           cwd, cwd);
  twrite("sc.yml", text, path);
  WeftScenario *sc = weft_scenario_create();
  WeftError e;
  CHECK_EQ_INT(weft_scenario_read_zoo(path, "data/zoo", sc, &e), WEFT_OK);
  if (sc->njobs != 1) {
    fprintf(stderr, "  %s\n", e.msg);
    weft_scenario_free(sc);
    tclean();
    return;
  }
  CHECK(strcmp(sc->job_name[0], "gpt3-175b") == 0);
  CHECK(sc->weight[0] == 1.0);
  /* independently: the zoo, the generator, dp = 4096 / 16 = 256 by hand */
  WeftModel *m = malloc(sizeof *m);
  WeftDevice dev;
  WeftParallel par;
  WeftGenInfo info;
  WeftCommunicator comm;
  WeftWorkload *wl = weft_workload_create();
  CHECK(m && wl);
  CHECK_EQ_INT(weft_zoo_model("data/zoo", "gpt3-175b", m, &e), WEFT_OK);
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "a100", &dev, &e), WEFT_OK);
  weft_parallel_default(&par);
  par.tp = 16;
  par.dp = 256;
  par.zero_stage = 1;
  par.efficiency = 0.5; /* as the scenario says */
  CHECK_EQ_INT(weft_generate(m, &dev, &par, &sc->net, 0, wl, &comm, &info, &e), WEFT_OK);
  jobs_equal(sc->workload[0], &sc->comm[0], wl, &comm);
  /* through the public call, into a scenario holding only the network */
  WeftScenario *s2 = weft_scenario_create();
  s2->net = sc->net;
  s2->cost = sc->cost;
  par.dp = 0;  /* derived */
  CHECK_EQ_INT(weft_scenario_add_model_job(s2, "data/zoo", "gpt3-175b", NULL, &par, &e), WEFT_OK);
  CHECK_EQ_INT(s2->njobs, 1);
  if (s2->njobs == 1) jobs_equal(s2->workload[0], &s2->comm[0], wl, &comm);
  /* without ZeRO, parameters, gradients and Adam states are 2 + 2 + 12 = 16
     bytes x 175e9 / 16 = 175 GB per NPU: no A100 holds that; s2 unchanged */
  par.dp = 256;
  par.zero_stage = 0;
  CHECK_ERR(weft_scenario_add_model_job(s2, "data/zoo", "gpt3-175b", "a100", &par, &e), &e,
            WEFT_EMODEL, NULL, -1, -1, NULL, NULL);
  CHECK_EQ_INT(s2->njobs, 1);
  WeftScenario *empty = weft_scenario_create();
  CHECK_EQ_INT(weft_scenario_add_model_job(empty, "data/zoo", "gpt3-175b", NULL, &par, &e),
               WEFT_EINVAL);  /* no network yet */
  weft_scenario_free(empty);
  weft_scenario_free(s2);
  weft_workload_free(wl);
  free(m);
  weft_scenario_free(sc);
  tclean();
}

/* Every model-mapping error at its place in the scenario. */
static void model_job_errors(void) {
  repo_root();
  static const struct {
    const char *job;  /* line 3 on */
    int code, line, col;
    const char *field, *msg;
  } cases[] = {
      {"workload: {model: gpt3-175b, tpp: 4}\n", WEFT_EINPUT, 3, 30, "tpp",
       "unknown key 'tpp' (did you mean 'tp'?)"},
      {"workload: {tp: 4}\n", WEFT_EINPUT, 3, 11, "model", "missing key 'model'"},
      {"workload: {model: gpt3-175b}\ncommunicator: c.yml\n", WEFT_EINPUT, 4, 1, "communicator",
       "generates its communicator"},
      {"workload: {model: gpt3-175b, sequence_parallel: maybe}\n", WEFT_EINPUT, 3, 49,
       "sequence_parallel", "sequence_parallel must be true or false, got 'maybe'"},
      {"workload: {model: gpt3-175b, zero: 4}\n", WEFT_EINPUT, 3, 36, "zero",
       "zero must be 0 to 3, got 4"},
      {"workload: {model: gpt3-175b, tp: 0}\n", WEFT_EINPUT, 3, 34, "tp", "tp must be >= 1"},
      {"workload: {model: gpt3-175b, efficiency: 1.5}\n", WEFT_EINPUT, 3, 42, "efficiency",
       "efficiency must be in [1e-6, 1]"},
      /* a millionth of peak at least: 1e-300 made every time infinite */
      {"workload: {model: gpt3-175b, efficiency: 1e-300}\n", WEFT_EINPUT, 3, 42, "efficiency",
       "efficiency must be in [1e-6, 1], got 1e-300"},
      /* the A100 (the default device) has no FP8 rate: refused at the key */
      {"workload: {model: gpt3-175b, fp8: true}\n", WEFT_EINPUT, 3, 35, "fp8",
       "fp8: device 'a100' has no FP8 rate"},
      {"workload: {model: gpt3-175b, order: \"TP,TP,DP\"}\n", WEFT_EINPUT, 3, 37, "order", NULL},
      {"workload: {model: [gpt3]}\n", WEFT_EINPUT, 3, 19, "model", "model must be a name"},
      /* 4096 / 3 is no whole number: at tp's value */
      {"workload: {model: gpt3-175b, tp: 3}\n", WEFT_EINPUT, 3, 34, "tp",
       "tp x pp = 3 does not divide the network's 4096 NPUs"},
      /* memory: at the mapping */
      {"workload: {model: gpt3-175b, tp: 8}\n", WEFT_EMODEL, 3, 11, NULL, "GB"},
      {"workload: {model: gpt3-17b}\n", WEFT_EINPUT, 3, 19, NULL, "unknown model 'gpt3-17b'"},
      {"workload: {model: gpt3-175b, device: a1000}\n", WEFT_EINPUT, 3, 38, NULL,
       "unknown device 'a1000'"},
      {"workload: {model: nothere/x.yml}\n", WEFT_EIO, 3, 19, NULL, "nothere/x.yml"},
      {"zoo: /nonexistent-zoo\nworkload: {model: gpt3-175b}\n", WEFT_EIO, -1, -1, NULL,
       "/nonexistent-zoo"},
      {"workload: {model: gpt3-175b, recompute: sometimes}\n", WEFT_EINPUT, 3, 41, "recompute",
       "recompute must be none, selective, full or a boolean (true = full), got 'sometimes'"},
      {"workload: {model: gpt3-175b, attention: fast}\n", WEFT_EINPUT, 3, 41, "attention",
       "attention must be standard, flash, fa2 or flex, got 'fast'"},
      {"workload: {model: gpt3-175b, schedule: [dualpipe]}\n", WEFT_EINPUT, 3, 40, "schedule",
       "schedule must be 1f1b or dualpipe, got a sequence"},
      {"workload: {model: gpt3-175b, pp_layers: [90, 0]}\n", WEFT_EINPUT, 3, 46, "pp_layers",
       "pp_layers entry 2 must be >= 1, got 0"},
      {"workload: {model: gpt3-175b, pp_layers: [90, 5], pp: 4}\n", WEFT_EINPUT, 3, 41,
       "pp_layers", "pp_layers has 2 stages, pp = 4"},
      {"workload: {model: gpt3-175b, grad_bytes: 3}\n", WEFT_EINPUT, 3, 42, "grad_bytes",
       "grad_bytes must be 2 (bf16/fp16) or 4 (fp32)"},
      {"workload: {model: gpt3-175b, cp: 3}\n", WEFT_EINPUT, 3, 34, "cp",
       "tp x cp x pp = 3 does not divide the network's 4096 NPUs"},
      {"workloads:\n  - {name: a, workload: {model: gpt3-175b, tp: 16, zero: 1}}\n"
       "  - {name: a, workload: {model: gpt3-175b, tp: 16, zero: 1}}\n",
       WEFT_EINPUT, 5, 12, "name", "two workloads are named 'a'"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char text[4096], path[WEFT_PATH_LEN];
    snprintf(text, sizeof text,
             "network: %s/data/gpt3/network_4d.yml\ncost_model: %s/data/gpt3/cost_4d.yml\n%s",
             cwd, cwd, cases[c].job);
    twrite("sc.yml", text, path);
    WeftScenario *sc = weft_scenario_create();
    WeftError e;
    int rc = weft_scenario_read_zoo(path, "data/zoo", sc, &e);
    int ok = CHECK_ERR(rc, &e, cases[c].code, cases[c].line > 0 ? path : NULL, cases[c].line,
                       cases[c].col, cases[c].field, cases[c].msg);
    if (!ok) fprintf(stderr, "    case %zu: %s", c, cases[c].job);
    CHECK_EQ_INT(sc->njobs, 0);  /* nothing half-read */
    weft_scenario_free(sc);
  }
  tclean();
}

/* The mapping's keys for real runs (cp, attention, fp8, grad_bytes,
 * recompute by name, pp_layers) give the job weft_generate gives the same
 * parallelization; pp defaults to pp_layers' length and dp to the NPUs
 * left: 4096 / (8 x 2 x 4) = 64. On the H100: fp8 needs an FP8 rate. */
static void model_job_keys(void) {
  repo_root();
  char text[4096], path[WEFT_PATH_LEN];
  snprintf(text, sizeof text,
           "network: %s/data/gpt3/network_4d.yml\n"
           "cost_model: %s/data/gpt3/cost_4d.yml\n"
           "workload: {model: gpt3-175b, device: h100, tp: 8, cp: 2, zero: 1,\n"
           "           sequence_parallel: true, recompute: selective, attention: flash,\n"
           "           fp8: true, grad_bytes: 4, pp_layers: [23, 25, 25, 23]}\n",
           cwd, cwd);
  twrite("sc.yml", text, path);
  WeftScenario *sc = weft_scenario_create();
  WeftError e;
  CHECK_EQ_INT(weft_scenario_read_zoo(path, "data/zoo", sc, &e), WEFT_OK);
  if (sc->njobs != 1) {
    fprintf(stderr, "  %s\n", e.msg);
    weft_scenario_free(sc);
    tclean();
    return;
  }
  WeftModel *m = malloc(sizeof *m);
  WeftDevice dev;
  WeftParallel par;
  WeftGenInfo info;
  WeftCommunicator comm;
  WeftWorkload *wl = weft_workload_create();
  CHECK(m && wl);
  CHECK_EQ_INT(weft_zoo_model("data/zoo", "gpt3-175b", m, &e), WEFT_OK);
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "h100", &dev, &e), WEFT_OK);
  static const int stages[4] = {23, 25, 25, 23};
  weft_parallel_default(&par);
  par.tp = 8;
  par.cp = 2;
  par.pp = 4;
  par.dp = 64;
  par.zero_stage = 1;
  par.sequence_parallel = 1;
  par.recompute = WEFT_RECOMPUTE_SELECTIVE;
  par.attention = WEFT_ATTENTION_FLASH;
  par.fp8 = 1;
  par.grad_bytes = 4;
  par.stage_layers = stages;
  par.nstage_layers = 4;
  CHECK_EQ_INT(weft_generate(m, &dev, &par, &sc->net, 0, wl, &comm, &info, &e), WEFT_OK);
  jobs_equal(sc->workload[0], &sc->comm[0], wl, &comm);
  /* recompute as a boolean still means full */
  snprintf(text, sizeof text,
           "network: %s/data/gpt3/network_4d.yml\n"
           "cost_model: %s/data/gpt3/cost_4d.yml\n"
           "workload: {model: gpt3-175b, tp: 8, pp: 4, zero: 1, recompute: true}\n",
           cwd, cwd);
  twrite("sc.yml", text, path);
  WeftScenario *s2 = weft_scenario_create();
  CHECK_EQ_INT(weft_scenario_read_zoo(path, "data/zoo", s2, &e), WEFT_OK);
  weft_parallel_default(&par);
  par.tp = 8;
  par.pp = 4;
  par.dp = 128;
  par.zero_stage = 1;
  par.recompute = WEFT_RECOMPUTE_FULL;
  CHECK_EQ_INT(weft_zoo_device("data/zoo", "a100", &dev, &e), WEFT_OK); /* the default device */
  CHECK_EQ_INT(weft_generate(m, &dev, &par, &s2->net, 0, wl, &comm, &info, &e), WEFT_OK);
  if (s2->njobs == 1) jobs_equal(s2->workload[0], &s2->comm[0], wl, &comm);
  weft_scenario_free(s2);
  weft_workload_free(wl);
  free(m);
  weft_scenario_free(sc);
  tclean();
}

/* The scenario's zoo: key (relative to it) wins over the caller's. */
static void zoo_key(void) {
  repo_root();
  char text[4096], path[WEFT_PATH_LEN], link[WEFT_PATH_LEN], target[WEFT_PATH_LEN];
  snprintf(target, sizeof target, "%s/data/zoo", cwd);
  tpath("myzoo", link);
  CHECK_EQ_INT(symlink(target, link), 0);
  snprintf(text, sizeof text,
           "network: %s/data/gpt3/network_4d.yml\ncost_model: %s/data/gpt3/cost_4d.yml\n"
           "zoo: myzoo\nworkload: {model: gpt3-175b, tp: 16, zero: 1}\n",
           cwd, cwd);
  twrite("sc.yml", text, path);
  WeftScenario *sc = weft_scenario_create();
  WeftError e;
  CHECK_EQ_INT(weft_scenario_read_zoo(path, "/nonexistent-zoo", sc, &e), WEFT_OK);
  CHECK_EQ_INT(sc->njobs, 1);
  /* without the key, the caller's (missing) zoo is used */
  snprintf(text, sizeof text,
           "network: %s/data/gpt3/network_4d.yml\ncost_model: %s/data/gpt3/cost_4d.yml\n"
           "workload: {model: gpt3-175b, tp: 16, zero: 1}\n",
           cwd, cwd);
  twrite("sc.yml", text, path);
  CHECK_ERR(weft_scenario_read_zoo(path, "/nonexistent-zoo", sc, &e), &e, WEFT_EIO, NULL, -1, -1,
            NULL, "/nonexistent-zoo");
  CHECK_EQ_INT(sc->njobs, 0);
  weft_scenario_free(sc);
  remove(link);
  tclean();
}

const TestCase suite_sweep[] = {
    {"sweep/fields_and_count", fields_and_count},
    {"sweep/ranges_exact", ranges_exact},
    {"sweep/spec_errors", spec_errors},
    {"sweep/points_equal_scenarios", points_equal_scenarios},
    {"sweep/point_statuses", point_statuses},
    {"sweep/threads_and_ranks", threads_and_ranks},
    {"sweep/model_job_matches_generator", model_job_matches_generator},
    {"sweep/model_job_errors", model_job_errors},
    {"sweep/model_job_keys", model_job_keys},
    {"sweep/zoo_key", zoo_key},
    {0, 0},
};
