/* codesign_report.c — `weft codesign` output: status counts with an example
 * reason each, the best designs, the Pareto front; as a table, JSON, CSV, plot. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "codesign.h"

/* Short status tokens for CSV, JSON and the table: "ok", "no_memory", ... */
static const char *const status_token[CS_NSTATUS] = {"ok", "no_memory", "invalid",
                                                     "infeasible", "unbounded", "failed"};

static const char *token(WeftPointStatus s) {
  return (size_t)s < CS_NSTATUS ? status_token[s] : "unknown";
}

void cs_shape(const WeftNetwork *net, char *buf, size_t size) {
  static const char *const abbr[] = {"R", "FC", "SW"};
  size_t k = 0;
  buf[0] = '\0';
  for (int d = 0; d < net->ndims && k < size; d++) {
    int t = (int)net->topology[d];
    int w = snprintf(buf + k, size - k, "%s%s%d", d ? "x" : "", t >= 0 && t < 3 ? abbr[t] : "?",
                     net->npus[d]);
    if (w < 0) break;
    k += (size_t)w;
  }
}

void cs_order(const WeftParDim order[3], char *buf, size_t size) {
  static const char *const nm[] = {"TP", "PP", "DP"};
  const char *o[3];
  for (int k = 0; k < 3; k++) o[k] = order[k] <= WEFT_PAR_DP ? nm[order[k]] : "?";
  snprintf(buf, size, "%s-%s-%s", o[0], o[1], o[2]);
}

/* ------------------------------------------------------------ summary */

/* Objectives this close are one optimum (the solver certifies each to a
 * relative gap of 1e-9): the cheaper design ranks first among them. */
#define RANK_TIE_TOL 1e-9

typedef struct {
  double key, cost;
  size_t i;
} Ranked;

static int by_key(const void *a, const void *b) {
  const Ranked *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;  /* ties: enumeration order */
}

static int by_cost(const void *a, const void *b) {
  const Ranked *x = a, *y = b;
  if (x->cost != y->cost) return x->cost < y->cost ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

int cs_summarize(CsReport *r) {
  memset(r->count, 0, sizeof r->count);
  for (int s = 0; s < CS_NSTATUS; s++) r->example[s] = r->n;
  r->ndims = 0;
  for (int k = 0; k < r->spec->nnets; k++)
    if (r->spec->nets[k].ndims > r->ndims) r->ndims = r->spec->nets[k].ndims;
  r->nok = 0;
  for (size_t i = 0; i < r->n; i++) {
    int s = (int)r->pts[i].status;
    if (s < 0 || s >= CS_NSTATUS) s = WEFT_POINT_FAILED;
    if (r->count[s]++ == 0) r->example[s] = i;
  }
  r->rank = malloc((r->n ? r->n : 1) * sizeof *r->rank);
  r->front = malloc((r->n ? r->n : 1) * sizeof *r->front);
  Ranked *tmp = malloc((r->n ? r->n : 1) * sizeof *tmp);
  if (!r->rank || !r->front || !tmp) {
    free(tmp);
    return -1;
  }
  for (size_t i = 0; i < r->n; i++)
    if (r->pts[i].status == WEFT_POINT_OK)
      tmp[r->nok++] = (Ranked){r->pts[i].objective, r->pts[i].cost_usd, i};
  qsort(tmp, r->nok, sizeof *tmp, by_key);
  /* Runs of objectives within RANK_TIE_TOL of the run's first: by cost. */
  for (size_t a = 0, b; a < r->nok; a = b) {
    for (b = a + 1; b < r->nok && tmp[b].key <= tmp[a].key * (1.0 + RANK_TIE_TOL); b++) {}
    qsort(tmp + a, b - a, sizeof *tmp, by_cost);
  }
  for (size_t k = 0; k < r->nok; k++) r->rank[k] = tmp[k].i;
  free(tmp);
  r->nfront = weft_pareto(r->pts, r->n, r->front);
  return 0;
}

void cs_release(CsReport *r) {
  free(r->rank);
  free(r->front);
  r->rank = r->front = NULL;
}

/* "R4xFC8xR4xSW32 tp 8 pp 16 dp 32 mb 1 TP-PP-DP" */
static void describe(const CsReport *r, size_t i, char *buf, size_t size) {
  const WeftDesignPoint *p = &r->pts[i];
  char shape[160], order[16];
  cs_shape(&r->spec->nets[p->net], shape, sizeof shape);
  cs_order(p->par.order, order, sizeof order);
  snprintf(buf, size, "%s tp %d pp %d dp %d mb %d %s", shape, p->par.tp, p->par.pp, p->par.dp,
           p->par.micro_batch, order);
}

/* ------------------------------------------------------------ table */

static void design_header(FILE *out, const CsReport *r, const char *first) {
  fprintf(out, "  %s %7s  %-18s %4s %4s %5s %3s  %-8s %11s %12s %8s ", first, "point", "shape",
          "tp", "pp", "dp", "mb", "order", "time_ms", "cost_usd", "vs_equal");
  for (int d = 0; d < r->ndims; d++) fprintf(out, " %8s%d", "B", d + 1);
  fputs("  (GB/s)\n", out);
}

static void design_row(FILE *out, const CsReport *r, const char *first, size_t i) {
  const WeftDesignPoint *p = &r->pts[i];
  char shape[160], order[16];
  cs_shape(&r->spec->nets[p->net], shape, sizeof shape);
  cs_order(p->par.order, order, sizeof order);
  double gain = p->time_ns > 0 && p->equal_time_ns > 0 ? p->equal_time_ns / p->time_ns : 0.0;
  fprintf(out, "  %s %7zu  %-18s %4d %4d %5d %3d  %-8s %11.3f %12.0f %7.3fx ", first, i, shape,
          p->par.tp, p->par.pp, p->par.dp, p->par.micro_batch, order, p->time_ns / 1e6,
          p->cost_usd, gain);
  int D = r->spec->nets[p->net].ndims;
  for (int d = 0; d < r->ndims; d++) {
    if (d < D) fprintf(out, " %9.2f", p->bw_gbps[d]);
    else fprintf(out, " %9s", "-");
  }
  fputc('\n', out);
}

void cs_table(FILE *out, const CsReport *r) {
  const WeftCodesignSpec *sp = r->spec;
  fprintf(out, "weft codesign: %s on %d %s NPUs, objective %s, loop %s\n", sp->model->name,
          r->npus, sp->device->name, weft_objective_name(sp->objective),
          weft_loop_name(sp->loop));
  fprintf(out, "networks: %s\n", r->networks);
  fputs("constraints:", out);
  for (int c = 0; c < r->ncons; c++) fprintf(out, "%s %s", c ? ";" : "", r->cons[c]);
  fputs(r->ncons ? "\n" : " none\n", out);
  fprintf(out, "design points: %zu\n\n", r->n);
  fprintf(out, "  %-12s %9s\n", "status", "points");
  for (int s = 0; s < CS_NSTATUS; s++) {
    fprintf(out, "  %-12s %9zu", status_token[s], r->count[s]);
    if (s != WEFT_POINT_OK && r->count[s]) {
      char what[256];
      describe(r, r->example[s], what, sizeof what);
      fprintf(out, "  %s\n  %-12s %9s  e.g. point %zu (%s): %s", weft_point_status_name(s), "",
              "", r->example[s], what, r->pts[r->example[s]].reason);
    }
    fputc('\n', out);
  }
  if (r->nok == 0) {
    fputs("\nno feasible design\n", out);
    return;
  }
  size_t top = (size_t)r->top < r->nok ? (size_t)r->top : r->nok;
  if (top > 0) {
    fprintf(out, "\ntop %zu of %zu feasible designs by %s:\n", top, r->nok,
            sp->objective == WEFT_OBJ_PERF ? "iteration time" : "time x cost");
    design_header(out, r, "rank");
    for (size_t k = 0; k < top; k++) {
      char rk[24];
      snprintf(rk, sizeof rk, "%4zu", k + 1);
      design_row(out, r, rk, r->rank[k]);
    }
  }
  fprintf(out, "\nPareto front of (network cost, iteration time): %zu designs, by cost\n",
          r->nfront);
  design_header(out, r, "    ");
  for (size_t k = 0; k < r->nfront; k++) design_row(out, r, "    ", r->front[k]);
}

/* ------------------------------------------------------------ JSON */


static void json_design(FILE *out, const CsReport *r, size_t i) {
  const WeftDesignPoint *p = &r->pts[i];
  const WeftNetwork *net = &r->spec->nets[p->net];
  char shape[160], order[16];
  cs_shape(net, shape, sizeof shape);
  cs_order(p->par.order, order, sizeof order);
  fprintf(out, "{\"point\": %zu, \"net\": %d, \"shape\": ", i, p->net);
  cli_json_str(out, shape);
  fprintf(out, ", \"tp\": %d, \"pp\": %d, \"dp\": %d, \"mb\": %d, \"order\": \"%s\"",
          p->par.tp, p->par.pp, p->par.dp, p->par.micro_batch, order);
  fputs(", \"time_ns\": ", out);
  cli_json_num(out, p->time_ns);
  fputs(", \"cost_usd\": ", out);
  cli_json_num(out, p->cost_usd);
  fputs(", \"objective\": ", out);
  cli_json_num(out, p->objective);
  fputs(", \"bw_gbps\": [", out);
  for (int d = 0; d < net->ndims; d++) {
    if (d) fputs(", ", out);
    cli_json_num(out, p->bw_gbps[d]);
  }
  fputs("], \"equal_time_ns\": ", out);
  cli_json_num(out, p->equal_time_ns);
  fputs(", \"mem_bytes\": ", out);
  cli_json_num(out, p->mem_bytes);
  fputs(", \"gap\": ", out);
  cli_json_num(out, p->gap);
  fputc('}', out);
}

void cs_json(FILE *out, const CsReport *r) {
  const WeftCodesignSpec *sp = r->spec;
  fputs("{\n  \"model\": ", out);
  cli_json_str(out, sp->model->name);
  fputs(",\n  \"device\": ", out);
  cli_json_str(out, sp->device->name);
  fprintf(out, ",\n  \"npus\": %d,\n  \"objective\": \"%s\",\n  \"loop\": \"%s\",\n", r->npus,
          weft_objective_name(sp->objective), weft_loop_name(sp->loop));
  fputs("  \"networks\": ", out);
  cli_json_str(out, r->networks);
  fputs(",\n  \"constraints\": [", out);
  for (int c = 0; c < r->ncons; c++) {
    if (c) fputs(", ", out);
    cli_json_str(out, r->cons[c]);
  }
  fprintf(out, "],\n  \"points\": %zu,\n  \"status\": {", r->n);
  for (int s = 0; s < CS_NSTATUS; s++) {
    fprintf(out, "%s\n    \"%s\": {\"count\": %zu, \"meaning\": ", s ? "," : "", status_token[s],
            r->count[s]);
    cli_json_str(out, weft_point_status_name(s));
    if (r->count[s] && s != WEFT_POINT_OK) {
      fprintf(out, ", \"example_point\": %zu, \"example_reason\": ", r->example[s]);
      cli_json_str(out, r->pts[r->example[s]].reason);
    }
    fputc('}', out);
  }
  size_t top = (size_t)r->top < r->nok ? (size_t)r->top : r->nok;
  fputs("\n  },\n  \"top\": [", out);
  for (size_t k = 0; k < top; k++) {
    fputs(k ? ",\n    " : "\n    ", out);
    json_design(out, r, r->rank[k]);
  }
  fputs(top ? "\n  ],\n  \"pareto\": [" : "],\n  \"pareto\": [", out);
  for (size_t k = 0; k < r->nfront; k++) {
    fputs(k ? ",\n    " : "\n    ", out);
    json_design(out, r, r->front[k]);
  }
  fputs(r->nfront ? "\n  ]\n}\n" : "]\n}\n", out);
}

/* ------------------------------------------------------------ CSV */

/* RFC 4180: quoted when it holds a comma, quote or line break. */
static void csv_str(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void csv_num(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, ",%.10g", v);
  else fputs(",", f);
}

static void csv_row(FILE *f, const CsReport *r, size_t i) {
  const WeftDesignPoint *p = &r->pts[i];
  const WeftNetwork *net = &r->spec->nets[p->net];
  char shape[160], order[16];
  cs_shape(net, shape, sizeof shape);
  cs_order(p->par.order, order, sizeof order);
  int ok = p->status == WEFT_POINT_OK;
  fprintf(f, "%zu,%d,%s,%d,%d,%d,%d,%s,%s", i, p->net, shape, p->par.tp, p->par.pp, p->par.dp,
          p->par.micro_batch, order, token(p->status));
  if (ok) {
    csv_num(f, p->time_ns);
    csv_num(f, p->cost_usd);
    csv_num(f, p->objective);
  } else {
    fputs(",,,", f);
  }
  for (int d = 0; d < r->ndims; d++) {
    if (ok && d < net->ndims) csv_num(f, p->bw_gbps[d]);
    else fputc(',', f);
  }
  if (ok) csv_num(f, p->equal_time_ns);
  else fputc(',', f);
  if (p->mem_bytes > 0) csv_num(f, p->mem_bytes);
  else fputc(',', f);
  if (ok) csv_num(f, p->gap);
  else fputc(',', f);
  fputc(',', f);
  csv_str(f, p->reason);
  fputc('\n', f);
}

static void csv_body(FILE *f, const void *ctx) {
  const CsReport *r = ctx;
  fputs("point,net,shape,tp,pp,dp,mb,order,status,time_ns,cost_usd,objective", f);
  for (int d = 0; d < r->ndims; d++) fprintf(f, ",bw_gbps_%d", d + 1);
  fputs(",equal_time_ns,mem_bytes,gap,reason\n", f);
  for (size_t i = 0; i < r->n; i++) csv_row(f, r, i);
}

int cs_csv(const char *path, const CsReport *r) { return cli_write_file(path, csv_body, r); }

/* ------------------------------------------------------------ plot */

/* The chosen design's time split, at its bandwidth and at EqualBW: the
 * point is generated and evaluated once more (no solve). */
static int breakdown(const CsReport *r, const WeftDesignPoint *p, const double *eq_bw,
                     PlotData *pd) {
  const WeftCodesignSpec *sp = r->spec;
  const WeftNetwork *net = &sp->nets[p->net];
  WeftWorkload *wl = weft_workload_create();
  WeftCommunicator comm;
  WeftGenInfo info;
  WeftError err;
  WeftProblem *prob = NULL;
  memset(&comm, 0, sizeof comm);
  int rc = wl ? weft_generate(sp->model, sp->device, &p->par, net, 1, wl, &comm, &info, &err)
              : WEFT_ENOMEM;
  WeftSpec ws;
  memset(&ws, 0, sizeof ws);
  ws.net = net;
  ws.cost = sp->cost;
  ws.njobs = 1;
  ws.jobs[0] = (WeftJob){wl, &comm, 1.0, ""};
  ws.cons = sp->cons;
  ws.objective = sp->objective;
  ws.loop = sp->loop;
  if (!rc) rc = weft_problem_create(&ws, &prob, &err);
  WeftEval a, b;
  if (!rc) rc = weft_problem_evaluate(prob, p->bw_gbps, &a);
  if (!rc) rc = weft_problem_evaluate(prob, eq_bw, &b);
  if (!rc) {
    cli_plot_times(&ws, &a, &pd->compute_ns, pd->comm_ns);
    cli_plot_times(&ws, &b, &pd->equal_compute_ns, pd->equal_comm_ns);
    pd->equal_cost_usd = b.cost_usd;
  }
  weft_problem_free(prob);
  weft_workload_free(wl);
  return rc;
}

int cs_plot(const char *path, const CsReport *r) {
  if (r->nok == 0) {
    cli_fail("--plot: no feasible design to plot (nothing written)");
    return EXIT_RUNTIME;
  }
  double *cost = malloc(r->nok * sizeof *cost), *time = malloc(r->nok * sizeof *time);
  size_t *pos = malloc(r->n * sizeof *pos), *front = malloc((r->nfront + 1) * sizeof *front);
  if (!cost || !time || !pos || !front) {
    free(cost), free(time), free(pos), free(front);
    cli_fail("out of memory");
    return EXIT_RUNTIME;
  }
  size_t m = 0;
  for (size_t i = 0; i < r->n; i++)
    if (r->pts[i].status == WEFT_POINT_OK) {
      pos[i] = m;
      cost[m] = r->pts[i].cost_usd;
      time[m++] = r->pts[i].time_ns;
    }
  for (size_t k = 0; k < r->nfront; k++) front[k] = pos[r->front[k]];
  const WeftDesignPoint *best = &r->pts[r->rank[0]];
  const WeftNetwork *net = &r->spec->nets[best->net];
  double eq[WEFT_MAX_DIMS];
  weft_equal_bw(best->bw_gbps, net->ndims, eq);
  char title[320], what[200];
  describe(r, r->rank[0], what, sizeof what);
  snprintf(title, sizeof title, "%s on %d NPUs: best %s", r->spec->model->name, r->npus, what);
  PlotData pd;
  memset(&pd, 0, sizeof pd);
  pd.title = title;
  pd.npoints = m;
  pd.point_cost_usd = cost;
  pd.point_time_ns = time;
  pd.nfront = r->nfront;
  pd.front = front;
  pd.chosen_cost_usd = best->cost_usd;
  pd.chosen_time_ns = best->time_ns;
  pd.equal_time_ns = best->equal_time_ns;
  pd.ndims = net->ndims;
  pd.bw_gbps = best->bw_gbps;
  pd.equal_bw_gbps = eq;
  int rc = breakdown(r, best, eq, &pd);
  if (rc) {
    cli_fail("--plot: cannot evaluate the best design again: %s", weft_strerror(rc));
    rc = EXIT_RUNTIME;
  } else {
    rc = cli_plot(path, &pd);
  }
  free(cost), free(time), free(pos), free(front);
  return rc;
}
