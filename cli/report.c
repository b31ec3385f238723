/* report.c — the optimize report as a readable table or one JSON object.
 * Fixed formats so golden tests can compare output exactly. */
#include <math.h>
#include <string.h>

#include "cli.h"

/* A number in a table column of width w: fixed with `prec` decimals,
 * or in e-notation when that would hide it (nonzero below 1e-3 or past
 * 1e15), so a tiny design never prints as 0.000000. */
static void num(FILE *out, int w, int prec, double v) {
  double a = fabs(v);
  if (v != 0.0 && isfinite(v) && (a < 1e-3 || a >= 1e15)) fprintf(out, " %*.*e", w, prec, v);
  else fprintf(out, " %*.*f", w, prec, v);
}

static void row_ms(FILE *out, const char *name, double a, const double *b) {
  fprintf(out, "  %-24s", name);
  num(out, 16, 6, a / 1e6);
  if (b) num(out, 16, 6, *b / 1e6);
  else fprintf(out, " %16s", "-");
  fputc('\n', out);
}

/* A row of two figures (optimized, equal_bw) in fixed (prec >= 0) or
 * e-notation (prec < 0: 6 digits). */
static void row2(FILE *out, const char *name, int prec, double a, const double *b) {
  fprintf(out, "  %-24s", name);
  if (prec >= 0) num(out, 16, prec, a);
  else fprintf(out, " %16.6e", a);
  if (!b) fprintf(out, " %16s", "-");
  else if (prec >= 0) num(out, 16, prec, *b);
  else fprintf(out, " %16.6e", *b);
  fputc('\n', out);
}

/* Iterations to train n tokens: whole iterations (the last one partly used
 * is paid in full). */
static double train_iters(const Report *r) { return ceil(r->train_tokens / r->tokens_per_iteration); }

/* The system cost's inputs, each said as given, defaulted or the device's
 * (one line under optimize's and codesign's system cost block). */
void cli_system_inputs(FILE *out, const WeftSystemCost *s) {
  fprintf(out, "  system: Npu %g $%s, NpuPowerW %g W%s, electricity %g $/kWh%s, PUE %g%s, "
          "lifetime %g years%s\n", s->npu_usd, s->has_npu_usd ? "" : " (none given)",
          s->npu_power_w,
          s->has_npu_power_w       ? ""
          : s->npu_power_w > 0 ? " (the device's power_w)"
                               : " (none given)",
          s->electricity_usd_per_kwh,
          s->has_electricity ? "" : " (default)", s->pue, s->has_pue ? "" : " (default)",
          s->lifetime_years, s->has_lifetime ? "" : " (default)");
}

/* The system cost block (docs/model.md "System cost"): its inputs, NPU and
 * total capex, power, $ per iteration, and for a model job $ per million
 * tokens and what training --train-tokens costs. */
static void system_rows(FILE *out, const Report *r, const WeftEval *o, const WeftEval *e) {
  const WeftSystemCost *s = &r->sys;
#define B_(f) (e ? &e->f : NULL)
  row2(out, "npu_cost_usd", 2, o->npu_cost_usd, B_(npu_cost_usd));
  row2(out, "capex_usd", 2, o->capex_usd, B_(capex_usd));
  row2(out, "network_power_w", 2, o->network_power_w, B_(network_power_w));
  row2(out, "npu_power_w", 2, o->npu_power_w, B_(npu_power_w));
  row2(out, "power_w", 2, o->power_w, B_(power_w));
  row2(out, "cost_per_iteration_usd", -1, o->cost_per_iteration_usd, B_(cost_per_iteration_usd));
#undef B_
  if (r->tokens_per_iteration > 0.0) {
    double k = 1e6 / r->tokens_per_iteration, eb = e ? e->cost_per_iteration_usd * k : 0.0;
    row2(out, "usd_per_million_tokens", -1, o->cost_per_iteration_usd * k, e ? &eb : NULL);
  }
  if (r->train_tokens > 0.0) {
    double n = train_iters(r), et = e ? n * e->time_ns / 86400e9 : 0.0,
           ec = e ? n * e->cost_per_iteration_usd : 0.0;
    row2(out, "train_time_days", 6, n * o->time_ns / 86400e9, e ? &et : NULL);
    row2(out, "train_cost_usd", 2, n * o->cost_per_iteration_usd, e ? &ec : NULL);
  }
  cli_system_inputs(out, s);
  if (r->tokens_per_iteration > 0.0)
    fprintf(out, "  tokens per iteration: %.0f\n", r->tokens_per_iteration);
  if (r->train_tokens > 0.0)
    fprintf(out, "  train %g tokens: %.0f iterations\n", r->train_tokens, train_iters(r));
}

/* Whole links: the proof (tree closed, or the limit and the gap left) and
 * the continuous optimum beside the whole-link one. */
static void whole_lines(FILE *out, const Report *r) {
  const WeftWholeResult *w = r->whole;
  const WeftResult *c = &w->continuous;
  const WeftNetwork *net = r->spec->net;
  fprintf(out, "whole links: %s, %d node%s", weft_bnb_status_name(w->bnb_status), w->nodes,
          w->nodes == 1 ? "" : "s");
  if (w->result.status == WEFT_STATUS_SOLVED)
    fprintf(out, ", certified gap %.1e (bound %.9g)", w->result.gap, w->result.lower_bound);
  fputs("; links of", out);
  for (int d = 0; d < net->ndims; d++) {
    fprintf(out, "%s B%d ", d ? "," : "", d + 1);
    if (w->link_gbps[d] > 0.0) fprintf(out, "%g GB/s", w->link_gbps[d]);
    else fputs("continuous", out);
    if (net->max_links[d] > 0) fprintf(out, " (at most %d)", net->max_links[d]);
  }
  fputc('\n', out);
  fprintf(out, "continuous optimum: %s", weft_status_name(c->status));
  if (c->status == WEFT_STATUS_SOLVED) {
    fputs(", B =", out);
    for (int d = 0; d < net->ndims; d++) fprintf(out, "%s %.6g", d ? "," : "", c->bw_gbps[d]);
    fprintf(out, " GB/s, time_ms %.6f, cost_usd %.2f", c->eval.time_ns / 1e6, c->eval.cost_usd);
    if (w->result.status == WEFT_STATUS_SOLVED && c->objective > 0.0)
      fprintf(out, "; whole links %+.4f%% on the %s", 100.0 * (w->result.objective / c->objective - 1.0),
              r->spec->objective == WEFT_OBJ_PERF            ? "time"
              : r->spec->objective == WEFT_OBJ_PERF_PER_COST ? "time x cost"
                                                             : "cost per iteration");
  }
  fputc('\n', out);
}

void report_table(FILE *out, const Report *r) {
  const WeftSpec *sp = r->spec;
  const WeftResult *res = r->res;
  const WeftNetwork *net = sp->net;
  fprintf(out, "weft optimize: objective %s, loop %s, %d dims, %.0f NPUs",
          weft_objective_name(sp->objective), weft_loop_name(sp->loop), net->ndims,
          weft_network_npus_total(net));
  cli_spares_head(out, net);
  fputc('\n', out);
  fprintf(out, "status: %s", weft_status_name(res->status));
  if (res->status == WEFT_STATUS_SOLVED || isfinite(res->gap))
    fprintf(out, ", certified gap %.1e, %d iterations", res->gap, res->iterations);
  fputc('\n', out);
  if (sp->cons && sp->cons->n) { /* the constraints in force, as given */
    int file = sp->cons->nreplaced > 0;  /* say where from when a file gave some */
    for (int i = 0; i < sp->cons->n; i++) file |= sp->cons->c[i].origin == WEFT_CONS_FILE;
    fputs("constraints:", out);
    for (int i = 0; i < sp->cons->n; i++)
      fprintf(out, "%s '%s'%s", i ? "," : "", sp->cons->c[i].text,
              !file ? "" : sp->cons->c[i].origin == WEFT_CONS_FILE ? " (scenario)" : " (--constraint)");
    fputc('\n', out);
  }
  if (sp->cons && sp->cons->nreplaced) { /* the file's, replaced by --constraint */
    fputs("replaced by --constraint:", out);
    for (int i = 0; i < sp->cons->nreplaced; i++)
      fprintf(out, "%s '%s' (scenario)", i ? "," : "", sp->cons->replaced[i].text);
    fputc('\n', out);
  }
  if (r->choices) report_choices_table(out, r);
  if (r->whole) whole_lines(out, r);
  if (res->message[0]) fprintf(out, "note: %s\n", res->message);
  if (res->status != WEFT_STATUS_SOLVED) return;
  fprintf(out, "\n  %-4s %-15s %6s %14s %14s\n", "dim", "topology", "npus", "bw_gbps", "equal_bw_gbps");
  const WeftEval *o = &res->eval, *e = r->equal;
  for (int d = 0; d < net->ndims; d++) {
    fprintf(out, "  B%-3d %-15s %6d", d + 1, weft_topology_name(net->topology[d]), net->npus[d]);
    num(out, 14, 6, res->bw_gbps[d]);
    if (e) num(out, 14, 6, r->equal_bw_gbps[d]);
    else fprintf(out, " %14s", "-");
    if (r->whole && r->whole->link_gbps[d] > 0.0)
      fprintf(out, "  %d x %g GB/s", r->whole->links[d], r->whole->link_gbps[d]);
    cli_spares_dim(out, net, d);
    fprintf(out, "%s\n", (res->dim_flags[d] & WEFT_DIM_UNUSED) ? "  (no traffic: set by constraints)" : "");
  }
  fprintf(out, "\n  %-24s %16s %16s\n", "", "optimized", "equal_bw");
  row_ms(out, "time_ms", o->time_ns, e ? &e->time_ns : NULL);
  if (sp->njobs == 1) {
    row_ms(out, "  compute_ms", o->job[0].compute_ns, e ? &e->job[0].compute_ns : NULL);
    static const char *nm[WEFT_NPHASES] = {"  exposed_fwd_comm_ms", "  exposed_ig_comm_ms",
                                           "  exposed_wg_comm_ms"};
    for (int ph = 0; ph < WEFT_NPHASES; ph++)
      row_ms(out, nm[ph], o->job[0].exposed_comm_ns[ph], e ? &e->job[0].exposed_comm_ns[ph] : NULL);
  } else {
    for (int j = 0; j < sp->njobs; j++) {
      char name[80];
      snprintf(name, sizeof name, "  %s_ms (x%g)", r->job_names[j], sp->jobs[j].weight);
      row_ms(out, name, o->job[j].time_ns, e ? &e->job[j].time_ns : NULL);
    }
  }
  fprintf(out, "  %-24s", "cost_usd");
  num(out, 16, 2, o->cost_usd);
  if (e) num(out, 16, 2, e->cost_usd);
  else fprintf(out, " %16s", "-");
  fprintf(out, "\n  %-24s %16.6e", "time_x_cost_ms_usd", o->perf_per_cost / 1e6);
  if (e) fprintf(out, " %16.6e\n", e->perf_per_cost / 1e6);
  else fprintf(out, " %16s\n", "-");
  if (r->system) system_rows(out, r, o, e);
  if (!e) {
    fprintf(out, "\n  equal_bw: none: %s\n", r->equal_none ? r->equal_none : "not computed");
    if (r->parts) report_parts_table(out, r);
    return;
  }
  fprintf(out, "\n  speedup over equal_bw: %.4fx", e->time_ns / o->time_ns);
  fprintf(out, "   perf-per-cost gain: %.4fx\n", e->perf_per_cost / o->perf_per_cost);
  if (r->parts) report_parts_table(out, r);
}

static void json_arr(FILE *out, const double *v, int n) {
  fputc('[', out);
  for (int i = 0; i < n; i++) {
    if (i) fputs(", ", out);
    cli_json_num(out, v[i]);
  }
  fputc(']', out);
}

static void json_eval(FILE *out, const WeftEval *e, const double *bw, int D, const char *ind) {
  fprintf(out, "{\n%s  \"bw_gbps\": ", ind);
  json_arr(out, bw, D);
  fprintf(out, ",\n%s  \"time_ns\": ", ind);
  cli_json_num(out, e->time_ns);
  fprintf(out, ",\n%s  \"cost_usd\": ", ind);
  cli_json_num(out, e->cost_usd);
  fprintf(out, ",\n%s  \"time_x_cost_ns_usd\": ", ind);
  cli_json_num(out, e->perf_per_cost);
  fprintf(out, "\n%s}", ind);
}

/* The system block's figures as top-level keys (the table's rows). */
static void system_json(FILE *out, const Report *r, const WeftEval *o) {
  const WeftSystemCost *s = &r->sys;
  const char *k[] = {"npu_cost_usd", "capex_usd", "network_power_w", "npu_power_w", "power_w",
                     "cost_per_iteration_usd", "npu_usd", "npu_power_w_each",
                     "electricity_usd_per_kwh", "pue", "lifetime_years"};
  double v[] = {o->npu_cost_usd, o->capex_usd, o->network_power_w, o->npu_power_w, o->power_w,
                o->cost_per_iteration_usd, s->npu_usd, s->npu_power_w,
                s->electricity_usd_per_kwh, s->pue, s->lifetime_years};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    fprintf(out, ",\n  \"%s\": ", k[i]);
    cli_json_num(out, v[i]);
  }
  if (r->tokens_per_iteration > 0.0) {
    fputs(",\n  \"tokens_per_iteration\": ", out);
    cli_json_num(out, r->tokens_per_iteration);
    fputs(",\n  \"usd_per_million_tokens\": ", out);
    cli_json_num(out, o->cost_per_iteration_usd / r->tokens_per_iteration * 1e6);
  }
  if (r->train_tokens > 0.0) {
    double n = train_iters(r);
    fputs(",\n  \"train_tokens\": ", out);
    cli_json_num(out, r->train_tokens);
    fputs(",\n  \"train_iterations\": ", out);
    cli_json_num(out, n);
    fputs(",\n  \"train_time_s\": ", out);
    cli_json_num(out, n * o->time_ns / 1e9);
    fputs(",\n  \"train_cost_usd\": ", out);
    cli_json_num(out, n * o->cost_per_iteration_usd);
  }
}

/* Whole links: links, link_gbps, bnb {status, nodes, gap, unsettled} and
 * the continuous optimum. */
static void whole_json(FILE *out, const Report *r) {
  const WeftWholeResult *w = r->whole;
  const WeftResult *c = &w->continuous;
  int D = r->spec->net->ndims, solved = w->result.status == WEFT_STATUS_SOLVED;
  fputs("  \"links\": ", out);
  if (solved) {
    fputc('[', out);
    for (int d = 0; d < D; d++) {
      if (d) fputs(", ", out);
      if (w->link_gbps[d] > 0.0) fprintf(out, "%d", w->links[d]);
      else fputs("null", out);
    }
    fputc(']', out);
  } else {
    fputs("null", out);
  }
  fputs(",\n  \"link_gbps\": ", out);
  json_arr(out, w->link_gbps, D);
  fputs(",\n  \"max_links\": [", out);
  for (int d = 0; d < D; d++) fprintf(out, "%s%d", d ? ", " : "", r->spec->net->max_links[d]);
  fputs("],\n  \"bnb\": {\"status\": ", out);
  cli_json_str(out, weft_bnb_status_name(w->bnb_status));
  fprintf(out, ", \"nodes\": %d, \"unsettled\": %d, \"gap\": ", w->nodes, w->unsettled);
  cli_json_num(out, w->result.gap);
  fputs("},\n  \"continuous\": {\"status\": ", out);
  cli_json_str(out, weft_status_name(c->status));
  if (c->status == WEFT_STATUS_SOLVED) {
    fputs(", \"bw_gbps\": ", out);
    json_arr(out, c->bw_gbps, D);
    fputs(", \"time_ns\": ", out);
    cli_json_num(out, c->eval.time_ns);
    fputs(", \"cost_usd\": ", out);
    cli_json_num(out, c->eval.cost_usd);
    fputs(", \"objective\": ", out);
    cli_json_num(out, c->objective);
    fputs(", \"lower_bound\": ", out);
    cli_json_num(out, c->lower_bound);
  }
  fputs("},\n", out);
}

void report_json(FILE *out, const Report *r) {
  const WeftSpec *sp = r->spec;
  const WeftResult *res = r->res;
  int D = res->ndims, solved = res->status == WEFT_STATUS_SOLVED;
  fprintf(out, "{\n  \"weft_version\": \"%s\",\n  \"objective\": ", WEFT_VERSION);
  cli_json_str(out, weft_objective_name(sp->objective));
  fputs(",\n  \"loop\": ", out);
  cli_json_str(out, weft_loop_name(sp->loop));
  fputs(",\n  \"status\": ", out);
  cli_json_str(out, weft_status_name(res->status));
  fputs(",\n  \"gap\": ", out);
  cli_json_num(out, res->gap);
  fputs(",\n  \"lower_bound\": ", out);
  cli_json_num(out, solved ? res->lower_bound : (double)NAN);
  fprintf(out, ",\n  \"iterations\": %d,\n  \"message\": ", res->iterations);
  cli_json_str(out, res->message);
  fputs(",\n  \"constraints\": [", out); /* the constraints in force, as given */
  for (int i = 0; sp->cons && i < sp->cons->n; i++) {
    if (i) fputs(", ", out);
    cli_json_str(out, sp->cons->c[i].text);
  }
  fputs("],\n  \"constraint_origins\": [", out); /* one per constraint: file or option */
  for (int i = 0; sp->cons && i < sp->cons->n; i++)
    fprintf(out, "%s\"%s\"", i ? ", " : "",
            sp->cons->c[i].origin == WEFT_CONS_FILE ? "scenario" : "option");
  fputs("],\n  \"constraints_replaced\": [", out); /* the scenario's, replaced by options */
  for (int i = 0; sp->cons && i < sp->cons->nreplaced; i++) {
    if (i) fputs(", ", out);
    cli_json_str(out, sp->cons->replaced[i].text);
  }
  fputs("],\n  \"conflicts\": [", out);
  for (int i = 0; i < res->nconflict; i++) {
    if (i) fputs(", ", out);
    cli_json_str(out, sp->cons->c[res->conflict[i]].text);
  }
  fputs("],\n", out);
  cli_spares_json(out, sp->net, -1);
  fputs("  \"dims\": [", out);
  for (int d = 0; d < D; d++) {
    fprintf(out, "%s\n    {\"dim\": %d, \"topology\": \"%s\", \"npus\": %d", d ? "," : "",
            d + 1, weft_topology_name(sp->net->topology[d]), sp->net->npus[d]);
    cli_spares_json(out, sp->net, d);
    fputs(", \"bw_gbps\": ", out);
    cli_json_num(out, solved ? res->bw_gbps[d] : (double)NAN);
    fprintf(out, ", \"used\": %s}", (res->dim_flags[d] & WEFT_DIM_UNUSED) ? "false" : "true");
  }
  fputs("\n  ],\n", out);
  if (r->whole) whole_json(out, r);
  if (r->choices) report_choices_json(out, r);
  if (r->parts) report_parts_json(out, r);
  if (!solved) {
    fputs("  \"bw_gbps\": null,\n  \"time_ns\": null,\n  \"cost_usd\": null,\n  \"equal_bw\": null\n}\n", out);
    return;
  }
  const WeftEval *o = &res->eval;
  fputs("  \"bw_gbps\": ", out);
  json_arr(out, res->bw_gbps, D);
  fputs(",\n  \"time_ns\": ", out);
  cli_json_num(out, o->time_ns);
  fputs(",\n  \"cost_usd\": ", out);
  cli_json_num(out, o->cost_usd);
  fputs(",\n  \"time_x_cost_ns_usd\": ", out);
  cli_json_num(out, o->perf_per_cost);
  if (r->system) system_json(out, r, o);
  fprintf(out, ",\n  \"tie_broken\": %s,\n  \"jobs\": [", res->tie_broken ? "true" : "false");
  for (int j = 0; j < sp->njobs; j++) {
    const WeftJobTime *t = &o->job[j];
    fprintf(out, "%s\n    {\"name\": ", j ? "," : "");
    cli_json_str(out, r->job_names[j] ? r->job_names[j] : "");
    fputs(", \"weight\": ", out);
    cli_json_num(out, sp->jobs[j].weight);
    fputs(", \"time_ns\": ", out);
    cli_json_num(out, t->time_ns);
    fputs(", \"compute_ns\": ", out);
    cli_json_num(out, t->compute_ns);
    fputs(", \"comm_ns\": ", out);
    json_arr(out, t->comm_ns, WEFT_NPHASES);
    fputs(", \"exposed_comm_ns\": ", out);
    json_arr(out, t->exposed_comm_ns, WEFT_NPHASES);
    fputc('}', out);
  }
  fputs("\n  ],\n  \"equal_bw\": ", out);
  if (r->equal) {
    json_eval(out, r->equal, r->equal_bw_gbps, D, "  ");
    fputs(",\n  \"speedup\": ", out);
    cli_json_num(out, r->equal->time_ns / o->time_ns);
  } else { /* no equal split meets the constraints: say why */
    fputs("null,\n  \"equal_bw_none\": ", out);
    cli_json_str(out, r->equal_none ? r->equal_none : "");
    fputs(",\n  \"speedup\": null", out);
  }
  fputs("\n}\n", out);
}
