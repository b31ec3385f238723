/* sweep.c — weft_sweep: a scenario with swept values. Each point is the
 * spec's tree with its values written in, built by the scenario reader and
 * solved as `weft optimize` would; points run in parallel (pool.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/scenario.h"
#include "search/pool.h"
#include "search/sweep.h"

struct WeftSweep {
  WeftYamlNode *root;  /* the spec as written */
  char file[WEFT_PATH_LEN];
  char zoo[WEFT_PATH_LEN];  /* "" = the scenario reader's default */
  int nfields, cap;
  WeftSweepField *field;  /* in document order: the first is the outermost loop */
  size_t npoints;
};

/* ------------------------------------------------------------------ reading */

static void free_field(WeftSweepField *f) {
  for (int i = 0; i < f->n; i++) {
    weft_yaml_free(f->val[i]);
    free(f->text[i]);
  }
  free(f->val);
  free(f->text);
  free(f->path);
}

void weft_sweep_free(WeftSweep *sw) {
  if (!sw) return;
  for (int k = 0; k < sw->nfields; k++) free_field(&sw->field[k]);
  free(sw->field);
  weft_yaml_free(sw->root);
  free(sw);
}

static int add_field(WeftSweep *sw, const WeftYamlNode *n, const char *path, WeftError *err) {
  if (sw->nfields == sw->cap) {
    int cap = sw->cap ? 2 * sw->cap : 8;
    WeftSweepField *f = realloc(sw->field, (size_t)cap * sizeof *f);
    if (!f) return weft_error_set(err, WEFT_ENOMEM, sw->file, 0, 0, NULL, "out of memory");
    sw->field = f;
    sw->cap = cap;
  }
  WeftSweepField *f = &sw->field[sw->nfields];
  memset(f, 0, sizeof *f);
  f->node = n;
  if (!(f->path = malloc(strlen(path) + 1)))
    return weft_error_set(err, WEFT_ENOMEM, sw->file, 0, 0, NULL, "out of memory");
  strcpy(f->path, path);
  sw->nfields++;  /* owned by sw from here, also when its values fail */
  int rc = weft_sweep_field_values(f, n, sw->file, err);
  if (rc) return rc;
  if ((size_t)f->n > WEFT_SWEEP_MAX_POINTS / sw->npoints)
    return weft_error_set(err, WEFT_EINPUT, sw->file, n->line, n->col, f->path,
                          "the sweep has more than %d points (%s adds %d values)",
                          WEFT_SWEEP_MAX_POINTS, f->path, f->n);
  sw->npoints *= (size_t)f->n;
  return WEFT_OK;
}

/* Find the sweep nodes under n (at path[0..len)) in document order. */
static int walk(WeftSweep *sw, const WeftYamlNode *n, char *path, size_t len, WeftError *err) {
  if (weft_sweep_is_node(n)) return add_field(sw, n, path, err);
  for (int i = 0; n->kind != WEFT_YAML_SCALAR && i < n->n; i++) {
    const WeftYamlNode *child = n->kind == WEFT_YAML_MAPPING ? n->child[2 * i + 1] : n->child[i];
    int w = n->kind == WEFT_YAML_MAPPING
                ? snprintf(path + len, WEFT_PATH_LEN - len, "%s%s", len ? "." : "",
                           n->child[2 * i]->text)
                : snprintf(path + len, WEFT_PATH_LEN - len, "[%d]", i);
    if (w < 0 || (size_t)w >= WEFT_PATH_LEN - len)
      return weft_error_set(err, WEFT_EINPUT, sw->file, child->line, child->col, NULL,
                            "field path longer than %d characters", WEFT_PATH_LEN - 1);
    int rc = walk(sw, child, path, len + (size_t)w, err);
    path[len] = '\0';
    if (rc) return rc;
  }
  return WEFT_OK;
}

int weft_sweep_read(const char *path, const char *zoo_dir, WeftSweep **out, WeftError *err) {
  if (!out) return weft_error_set(err, WEFT_EINVAL, path, 0, 0, NULL, "no output sweep");
  *out = NULL;
  if (!path) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no sweep file");
  WeftSweep *sw = calloc(1, sizeof *sw);
  if (!sw) return weft_error_set(err, WEFT_ENOMEM, path, 0, 0, NULL, "out of memory");
  snprintf(sw->file, sizeof sw->file, "%s", path);
  snprintf(sw->zoo, sizeof sw->zoo, "%s", zoo_dir ? zoo_dir : "");
  sw->npoints = 1;
  int rc = weft_yaml_load_file(path, &sw->root, err);
  const WeftYamlNode *r = sw->root;
  if (!rc && (!r || r->kind != WEFT_YAML_MAPPING))
    rc = weft_error_set(err, WEFT_EINPUT, path, r ? r->line : 0, r ? r->col : 0, NULL,
                        "expected a scenario mapping (network, cost_model, workload, ...) with "
                        "swept values");
  if (!rc && weft_sweep_is_node(r))
    rc = weft_error_set(err, WEFT_EINPUT, path, r->line, r->col, NULL,
                        "the whole spec cannot be swept: sweep values inside the scenario");
  char fpath[WEFT_PATH_LEN] = "";
  if (!rc) rc = walk(sw, r, fpath, 0, err);
  if (rc) {
    weft_sweep_free(sw);
    return rc;
  }
  *out = sw;
  return WEFT_OK;
}

size_t weft_sweep_count(const WeftSweep *sw) { return sw ? sw->npoints : 0; }
int weft_sweep_nfields(const WeftSweep *sw) { return sw ? sw->nfields : 0; }
size_t weft_sweep_nvalues(const WeftSweep *sw, int f) {
  return sw && f >= 0 && f < sw->nfields ? (size_t)sw->field[f].n : 0;
}

const char *weft_sweep_field(const WeftSweep *sw, int f) {
  return sw && f >= 0 && f < sw->nfields ? sw->field[f].path : NULL;
}

/* Field f's value index at point i: mixed radix, the last field fastest. */
static size_t choice_of(const WeftSweep *sw, size_t i, int f) {
  for (int k = sw->nfields - 1; k > f; k--) i /= (size_t)sw->field[k].n;
  return i % (size_t)sw->field[f].n;
}

const char *weft_sweep_value(const WeftSweep *sw, size_t i, int f) {
  if (!sw || f < 0 || f >= sw->nfields || i >= sw->npoints) return NULL;
  return sw->field[f].text[choice_of(sw, i, f)];
}

/* ------------------------------------------------------------------ evaluation */

static void fail_row(WeftSweepRow *row, WeftPointStatus st, const WeftError *e, const char *msg) {
  char buf[sizeof row->message + 64];
  row->status = st;
  snprintf(row->message, sizeof row->message, "%s",
           e ? weft_error_format(e, buf, sizeof buf) : msg);
}

static WeftPointStatus from_solve(WeftSolveStatus s) {
  switch (s) {
    case WEFT_STATUS_SOLVED: return WEFT_POINT_OK;
    case WEFT_STATUS_INFEASIBLE: return WEFT_POINT_INFEASIBLE;
    case WEFT_STATUS_UNBOUNDED: return WEFT_POINT_UNBOUNDED;
    default: return WEFT_POINT_FAILED;
  }
}

/* Solve the point's scenario into row. */
static void solve(const WeftScenario *sc, WeftSweepRow *row) {
  WeftSpec spec;
  WeftProblem *prob = NULL;
  WeftError e;
  WeftSettings set;
  WeftResult res;
  weft_scenario_spec(sc, &spec);
  weft_settings_default(&set);
  weft_error_clear(&e);
  int rc = weft_problem_create(&spec, &prob, &e);
  if (rc) {
    fail_row(row, rc == WEFT_ENOMEM || rc == WEFT_ESOLVER ? WEFT_POINT_FAILED : WEFT_POINT_INVALID,
             &e, NULL);
    return;
  }
  int whole = 0;  /* the network's whole links (LinkGBps): their optimum */
  for (int d = 0; d < sc->net.ndims; d++) whole |= sc->net.link_gbps[d] > 0.0;
  if (whole) {
    WeftWholeResult *w = malloc(sizeof *w);
    rc = w ? weft_whole_solve(&spec, &set, w, &e) : WEFT_ENOMEM;
    if (!rc) res = w->result;
    free(w);
    if (rc && rc != WEFT_ENOMEM && rc != WEFT_ESOLVER) {
      weft_problem_free(prob);
      fail_row(row, WEFT_POINT_INVALID, &e, NULL);
      return;
    }
  } else {
    rc = weft_problem_solve(prob, &set, &res);
  }
  weft_problem_free(prob);
  if (rc) {
    fail_row(row, WEFT_POINT_FAILED, NULL, weft_strerror(rc));
    return;
  }
  row->status = from_solve(res.status);
  if (row->status != WEFT_POINT_OK) {
    fail_row(row, row->status, NULL, res.message[0] ? res.message : weft_status_name(res.status));
    return;
  }
  row->time_ns = res.eval.time_ns;
  row->cost_usd = res.eval.cost_usd;
  for (int j = 0; j < spec.njobs; j++) /* weighted as time_ns */
    row->compute_ns += spec.jobs[j].weight * res.eval.job[j].compute_ns;
  row->objective = res.objective;
  row->gap = res.gap;
  for (int d = 0; d < res.ndims && d < WEFT_MAX_DIMS; d++) row->bw_gbps[d] = res.bw_gbps[d];
}

int weft_sweep_eval(const WeftSweep *sw, size_t i, WeftSweepRow *row) {
  if (!sw || !row || i >= sw->npoints) return WEFT_EINVAL;
  memset(row, 0, sizeof *row);
  row->point = i;
  size_t *choice = sw->nfields ? malloc((size_t)sw->nfields * sizeof *choice) : NULL;
  WeftYamlNode *tree = NULL;
  WeftScenario *sc = weft_scenario_create();
  for (int f = 0; choice && f < sw->nfields; f++) choice[f] = choice_of(sw, i, f);
  if ((sw->nfields && !choice) || !sc ||
      !(tree = weft_sweep_clone(sw->root, sw->field, sw->nfields, choice))) {
    fail_row(row, WEFT_POINT_FAILED, NULL, "out of memory");
  } else {
    WeftError e;
    weft_error_clear(&e);
    int rc = weft_scenario_build(tree, sw->file, sw->zoo[0] ? sw->zoo : NULL, sc, &e);
    if (rc)
      fail_row(row,
               rc == WEFT_EMODEL   ? WEFT_POINT_NO_MEMORY
               : rc == WEFT_ENOMEM ? WEFT_POINT_FAILED
                                   : WEFT_POINT_INVALID,
               &e, NULL);
    else {
      row->ndims = sc->net.ndims;
      solve(sc, row);
    }
  }
  weft_scenario_free(sc);
  weft_yaml_free(tree);
  free(choice);
  return WEFT_OK;
}

typedef struct {
  const WeftSweep *sw;
  WeftSweepRow *rows;
  size_t first;  /* rows[j] is point first + j */
} RunCtx;

static void run_one(void *ctx, size_t j) {
  RunCtx *c = ctx;
  weft_sweep_eval(c->sw, c->first + j, &c->rows[j]);
}

int weft_sweep_run(const WeftSweep *sw, WeftSweepRow *rows, const WeftRunSettings *rs,
                   WeftError *err) {
  WeftRunSettings def = {.threads = 0, .rank = 0, .nranks = 1};
  if (!rs) rs = &def;
  if (!sw || !rows) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no sweep or rows");
  RunCtx ctx = {sw, rows, 0};
  int rc = weft_pool_run(sw->npoints, rs->threads, rs->rank, rs->nranks, run_one, &ctx,
                         rs->progress, rs->progress_ctx);
  if (rc)
    return weft_error_set(err, rc, sw->file, 0, 0, NULL, "cannot run rank %zu of %zu", rs->rank,
                          rs->nranks);
  return WEFT_OK;
}

/* Progress over the rank's whole share: the pool reports per chunk. */
typedef struct {
  const WeftRunSettings *rs;
  size_t base, total;
} Progress;

static void progress(void *ctx, size_t done, size_t total) {
  Progress *p = ctx;
  (void)total;
  if (p->base + done < p->total) p->rs->progress(p->rs->progress_ctx, p->base + done, p->total);
}

static size_t share(size_t n, size_t rank, size_t nranks) {
  return n > rank ? (n - rank + nranks - 1) / nranks : 0;
}

int weft_sweep_stream(const WeftSweep *sw, const WeftRunSettings *rs, size_t chunk,
                      WeftSweepChunkFn fn, void *ctx, WeftError *err) {
  WeftRunSettings def = {.threads = 0, .rank = 0, .nranks = 1};
  if (!rs) rs = &def;
  if (!sw || !fn) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no sweep or function");
  if (rs->nranks == 0 || rs->rank >= rs->nranks)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, "rank", "rank %zu of %zu", rs->rank,
                          rs->nranks);
  size_t n = sw->npoints;
  if (chunk == 0) chunk = WEFT_SWEEP_CHUNK;
  chunk = (chunk + rs->nranks - 1) / rs->nranks * rs->nranks;  /* keeps i % nranks */
  size_t cap = n < chunk ? n : chunk;
  WeftSweepRow *rows = malloc((cap ? cap : 1) * sizeof *rows);
  if (!rows) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  Progress pg = {rs, 0, share(n, rs->rank, rs->nranks)};
  int rc = 0;
  for (size_t first = 0; first < n && !rc; first += chunk) {
    size_t m = n - first < chunk ? n - first : chunk;
    memset(rows, 0, m * sizeof *rows);  /* the other ranks' rows: zero */
    RunCtx c = {sw, rows, first};
    rc = weft_pool_run(m, rs->threads, rs->rank, rs->nranks, run_one, &c,
                       rs->progress ? progress : NULL, &pg);
    if (rc) {
      rc = weft_error_set(err, rc, sw->file, 0, 0, NULL, "cannot run rank %zu of %zu", rs->rank,
                          rs->nranks);
      break;
    }
    pg.base += share(m, rs->rank, rs->nranks);
    rc = fn(ctx, first, rows, m);
  }
  if (!rc && rs->progress) rs->progress(rs->progress_ctx, pg.total, pg.total);
  free(rows);
  return rc;
}
