/* codesign_report.c — `weft codesign` output: status counts with an example
 * reason each, the best designs, the Pareto front; as a table, JSON, CSV, plot. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "codesign.h"
#include "plot.h"

/* Short status tokens for CSV, JSON and the table: "ok", "no_memory", ... */
static const char *const status_token[CS_NSTATUS] = {"ok", "no_memory", "invalid",
                                                     "infeasible", "unbounded", "failed"};

static const char *token(WeftPointStatus s) {
  return (size_t)s < CS_NSTATUS ? status_token[s] : "unknown";
}

/* A design's knobs over its points (m[0] the shown one): the order and
 * each searched knob, the values its points take joined by '|', the shown
 * point's first: "TP-PP-DP|PP-TP-DP z1 none|selective". One point: its
 * order_knobs text. */
#define CS_KNOB_VALUES 64 /* distinct values kept per knob (6 orders, 4 stages, ...) */
#define CS_KNOBS_LEN 512  /* a design's knob text, every value of every knob */
static void merged_knobs(const WeftCodesignSpec *spec, const WeftIndexedPoint *m, size_t n,
                         char *buf, size_t size) {
  if (n <= 1) {
    cs_order_knobs(spec, &m->pt.par, buf, size);
    return;
  }
  size_t k = 0;
  buf[0] = '\0';
  for (int knob = 0; knob < 7; knob++) {
    static const char *const prefix[7] = {"", "z", "sp", "", "vp", "cp", "ep"};
    int searched[7] = {1, spec->nzero > 0, spec->nsp > 0, spec->nrc > 0, spec->nvp > 0,
                       spec->ncp > 0, spec->nep > 0};
    if (!searched[knob]) continue;
    char vals[CS_KNOB_VALUES][24];
    int nv = 0;
    for (size_t j = 0; j < n; j++) {
      const WeftParallel *p = &m[j].pt.par;
      char v[24];
      int x[7] = {0, p->zero_stage, p->sequence_parallel, 0, p->virtual_stages, p->cp, p->ep};
      if (knob == 0) cs_order(p->order, v, sizeof v);
      else if (knob == 3) snprintf(v, sizeof v, "%s", weft_recompute_name(p->recompute));
      else snprintf(v, sizeof v, "%s%d", prefix[knob], x[knob]);
      int seen = 0;
      for (int i = 0; i < nv && !seen; i++) seen = !strcmp(vals[i], v);
      if (!seen && nv < CS_KNOB_VALUES) memcpy(vals[nv++], v, sizeof v);
    }
    for (int i = 0; i < nv && k < size; i++)
      k += (size_t)snprintf(buf + k, size - k, "%s%s", i ? "|" : k ? " " : "", vals[i]);
  }
}

/* ------------------------------------------------------------ summary */

int cs_ndims(const WeftCodesignSpec *spec) {
  int nd = 0;
  for (int k = 0; k < spec->nnets; k++)
    if (spec->nets[k].ndims > nd) nd = spec->nets[k].ndims;
  return nd;
}

void cs_summarize(CsReport *r) {
  r->ndims = cs_ndims(r->spec);
  for (int s = 0; s < CS_NSTATUS; s++) {
    r->count[s] = weft_codesign_summary_count(r->sum, (WeftPointStatus)s);
    r->example[s] = weft_codesign_summary_example(r->sum, (WeftPointStatus)s);
  }
  r->nok = r->count[WEFT_POINT_OK];
  r->ntop = weft_codesign_summary_top(r->sum, &r->best);
  if ((size_t)r->top < r->ntop) r->ntop = (size_t)r->top;
  r->nfront = weft_codesign_summary_front(r->sum, &r->front);
}

/* "R4xFC8xR4xSW32 tp 8 pp 16 dp 32 mb 1 TP-PP-DP" */
static void describe(const CsReport *r, const WeftDesignPoint *p, char *buf, size_t size) {
  char shape[160], order[64];
  cs_point_shape(r->spec, r->clusters, p, shape, sizeof shape);
  cs_order_knobs(r->spec, &p->par, order, sizeof order);
  if (r->spec->workloads) snprintf(buf, size, "%s %s", shape, order);
  else
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

/* A row of the top (m: the design's n points, m[0] shown) or of the front
 * (one point, n = 1). */
static void design_row(FILE *out, const CsReport *r, const char *first,
                       const WeftIndexedPoint *m, size_t n) {
  const WeftIndexedPoint *ip = m;
  const WeftDesignPoint *p = &ip->pt;
  char shape[160], order[CS_KNOBS_LEN];
  cs_point_shape(r->spec, r->clusters, p, shape, sizeof shape);
  merged_knobs(r->spec, m, n, order, sizeof order);
  double gain = p->time_ns > 0 && p->equal_time_ns > 0 ? p->equal_time_ns / p->time_ns : 0.0;
  char vs[16]; /* '-': no equal split meets the constraints */
  if (gain > 0) snprintf(vs, sizeof vs, "%7.3fx", gain);
  else snprintf(vs, sizeof vs, "%8s", "-");
  char deg[4][16]; /* '-': fixed by the trace (--workload) */
  int v[4] = {p->par.tp, p->par.pp, p->par.dp, p->par.micro_batch};
  for (int k = 0; k < 4; k++)
    snprintf(deg[k], sizeof deg[k], r->spec->workloads ? "-" : "%d", v[k]);
  fprintf(out, "  %s %7zu  %-18s %4s %4s %5s %3s  %-8s %11.3f %12.0f %s ", first, ip->index,
          shape, deg[0], deg[1], deg[2], deg[3], order, p->time_ns / 1e6, p->cost_usd, vs);
  int D = r->spec->nets[p->net].ndims;
  for (int d = 0; d < r->ndims; d++) {
    if (d < D) fprintf(out, " %9.2f", p->bw_gbps[d]);
    else fprintf(out, " %9s", "-");
  }
  fputc('\n', out);
}

/* $ per million tokens of a point: its $ per iteration over its tokens
 * (NaN when the model gives no tokens). */
static double usd_per_mtok(const WeftDesignPoint *p) {
  return p->tokens > 0 ? p->cost_per_iteration_usd / p->tokens * 1e6 : (double)NAN;
}

/* The top designs' system cost (docs/model.md "System cost"), and the
 * figures it comes from. */
static void system_table(FILE *out, const CsReport *r) {
  const WeftSystemCost *s = &r->sys;
  fprintf(out, "\nsystem cost of the top designs:\n  rank   point %16s %14s %22s %22s\n",
          "capex_usd", "power_w", "cost_per_iteration_usd", "usd_per_million_tokens");
  for (size_t k = 0; k < r->ntop; k++) {
    const WeftDesignPoint *p = &r->best[k].pt;
    fprintf(out, "  %4zu %7zu %16.2f %14.2f %22.6e", k + 1, r->best[k].index, p->capex_usd,
            p->power_w, p->cost_per_iteration_usd);
    if (p->tokens > 0) fprintf(out, " %22.6e\n", usd_per_mtok(p));
    else fprintf(out, " %22s\n", "-");
  }
  if (r->ntop > 0 && r->best[0].pt.tokens > 0)
    fprintf(out, "  tokens per iteration: %.0f\n", r->best[0].pt.tokens);
  cli_system_inputs(out, s);
}

/* The best design's bill of materials: bw and links per NPU per dim (whole
 * links: B_d / rate), through the optimize report's writer. */
static void best_bom(const CsReport *r, double *bw, double *links) {
  const WeftDesignPoint *p = &r->best[0].pt;
  const WeftDimParts *parts = r->parts[p->net];
  for (int d = 0; d < r->spec->nets[p->net].ndims; d++) {
    bw[d] = p->bw_gbps[d];
    links[d] = parts[d].part[0] ? nearbyint(p->bw_gbps[d] / parts[d].rate_gbps) : 0.0;
  }
}

static void bom_table(FILE *out, const CsReport *r) {
  const WeftDesignPoint *p = &r->best[0].pt;
  const WeftNetwork *net = &r->spec->nets[p->net];
  const WeftDimParts *parts = r->parts[p->net];
  double bw[WEFT_MAX_DIMS], links[WEFT_MAX_DIMS];
  char shape[160];
  cs_shape(net, shape, sizeof shape);
  best_bom(r, bw, links);
  fprintf(out, "\nbill of materials of design 1 (point %zu, %s; whole network):\n",
          r->best[0].index, shape);
  fputs("  dim  part           links_per_npu  switches_by_tier\n", out);
  for (int d = 0; d < net->ndims; d++) {
    if (!parts[d].part[0]) continue;
    WeftPartsBom b;
    weft_parts_bom(net, &parts[d], d, bw[d], links[d], &b);
    fprintf(out, "  B%-3d %-14s %13.0f ", d + 1, parts[d].part, links[d]);
    for (int t = 0; t < b.tiers; t++) fprintf(out, "%s%.0f", t ? " + " : " ", b.tier_switches[t]);
    fprintf(out, " (%s)\n", parts[d].switch_name[0] ? parts[d].switch_name : "no switch");
  }
  cli_bom_table(out, net, parts, bw, links, r->system ? &r->sys : NULL);
}

void cs_table(FILE *out, const CsReport *r) {
  const WeftCodesignSpec *sp = r->spec;
  char models[512];
  cs_model_names(sp, models, sizeof models);
  fprintf(out, "weft codesign: %s on %d %s NPUs, objective %s, loop %s\n", models,
          r->npus, sp->device->name, weft_objective_name(sp->objective),
          weft_loop_name(sp->loop));
  fprintf(out, "networks: %s\n", r->networks);
  if (r->nbounds) {  /* what bounded the shapes, and why */
    fputs("bounds (NPUs per dim):", out);
    for (int d = 0; d < r->nbounds; d++) {
      const CsBound *b = &r->bounds[d];
      fprintf(out, "%s %s (%s) ", d ? ";" : "", weft_topology_name(b->topo),
              b->cost_class[0] ? b->cost_class : "parts");  /* no class: priced by its part */
      if (b->max_npus) fprintf(out, "<= %d", b->max_npus);
      else fputs("no limit", out);
      if (b->why) fprintf(out, " (default: %s)", b->why);
      else fputs(" (--max-per-dim)", out);
    }
    fputc('\n', out);
  }
  fputs("constraints:", out);
  for (int c = 0; c < r->ncons; c++) fprintf(out, "%s %s", c ? ";" : "", r->cons[c]);
  fputs(r->ncons ? "\n" : " none\n", out);
  fprintf(out, "design points: %zu\n\n", r->n);
  fprintf(out, "  %-12s %9s\n", "status", "points");
  for (int s = 0; s < CS_NSTATUS; s++) {
    fprintf(out, "  %-12s %9zu", status_token[s], r->count[s]);
    if (s != WEFT_POINT_OK && r->example[s]) {
      char what[256];
      describe(r, &r->example[s]->pt, what, sizeof what);
      fprintf(out, "  %s\n  %-12s %9s  e.g. point %zu (%s): %s", weft_point_status_name(s), "",
              "", r->example[s]->index, what, r->example[s]->pt.reason);
    }
    fputc('\n', out);
  }
  if (r->nok == 0) {
    fputs("\nno feasible design\n", out);
    return;
  }
  size_t top = r->ntop;
  if (top > 0) {
    fprintf(out, "\ntop %zu designs of %zu feasible points by %s:\n", top, r->nok,
            sp->objective == WEFT_OBJ_PERF            ? "iteration time"
            : sp->objective == WEFT_OBJ_PERF_PER_COST ? "time x cost"
                                                      : "cost per iteration");
    design_header(out, r, "rank");
    size_t merged = 0;
    for (size_t k = 0; k < top; k++) {
      char rk[24];
      const WeftIndexedPoint *m;
      size_t n = weft_codesign_summary_same(r->sum, k, &m);
      snprintf(rk, sizeof rk, "%4zu", k + 1);
      design_row(out, r, rk, n ? m : &r->best[k], n ? n : 1);
      merged += n > 1 ? n - 1 : 0;
    }
    if (merged)  /* what '|' means, and how many points it stands for */
      fprintf(out, "  (a|b: knobs that give the same design, every figure equal; %zu more "
                   "point%s merged into the designs above)\n", merged, merged == 1 ? "" : "s");
  }
  if (top > 0 && r->system) system_table(out, r);
  if (top > 0 && r->parts) bom_table(out, r);
  if (r->pn) cs_per_network_table(out, r);
  fprintf(out, "\nPareto front of (network cost, iteration time): %zu designs, by cost\n",
          r->nfront);
  design_header(out, r, "    ");
  for (size_t k = 0; k < r->nfront; k++) design_row(out, r, "    ", &r->front[k], 1);
}

/* ------------------------------------------------------------ JSON */


/* A design: m[0] shown; with n > 1 (a top design of several points) also
 * the other points and the knobs they take. n = 0: a front point alone
 * (no such keys). */
static void json_design(FILE *out, const CsReport *r, const WeftIndexedPoint *m, size_t n) {
  const WeftIndexedPoint *ip = m;
  const WeftDesignPoint *p = &ip->pt;
  const WeftNetwork *net = &r->spec->nets[p->net];
  char shape[160], order[64];
  cs_point_shape(r->spec, r->clusters, p, shape, sizeof shape);
  cs_order_knobs(r->spec, &p->par, order, sizeof order);
  fprintf(out, "{\"point\": %zu, \"net\": %d, \"shape\": ", ip->index, p->net);
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
  fputs("], \"equal_time_ns\": ", out); /* null: no equal split meets the constraints */
  cli_json_num(out, p->equal_time_ns > 0 ? p->equal_time_ns : (double)NAN);
  fputs(", \"mem_bytes\": ", out);
  cli_json_num(out, p->mem_bytes);
  fputs(", \"gap\": ", out);
  cli_json_num(out, p->gap);
  if (r->system) { /* docs/model.md "System cost" */
    fputs(", \"capex_usd\": ", out);
    cli_json_num(out, p->capex_usd);
    fputs(", \"power_w\": ", out);
    cli_json_num(out, p->power_w);
    fputs(", \"cost_per_iteration_usd\": ", out);
    cli_json_num(out, p->cost_per_iteration_usd);
    fputs(", \"usd_per_million_tokens\": ", out);
    cli_json_num(out, usd_per_mtok(p));
  }
  if (n > 0) {  /* the top: the points merged into this design (same figures) */
    char knobs[CS_KNOBS_LEN];
    merged_knobs(r->spec, m, n, knobs, sizeof knobs);
    fputs(", \"equivalent_points\": [", out);
    for (size_t j = 1; j < n; j++) fprintf(out, "%s%zu", j > 1 ? ", " : "", m[j].index);
    fputs("], \"equivalent_knobs\": ", out);
    cli_json_str(out, knobs);
  }
  fputc('}', out);
}

/* The best design's bill of materials: per bound dim its part, links per
 * NPU, whole switches per tier and the totals (cli_bom_json); the NPUs when
 * the system cost is shown; the total. */
static void bom_json(FILE *out, const CsReport *r) {
  const WeftDesignPoint *p = &r->best[0].pt;
  const WeftNetwork *net = &r->spec->nets[p->net];
  const WeftDimParts *parts = r->parts[p->net];
  double bw[WEFT_MAX_DIMS], links[WEFT_MAX_DIMS], cost = 0.0, power = 0.0;
  best_bom(r, bw, links);
  fprintf(out, "  \"bill_of_materials\": {\"point\": %zu, \"dims\": [", r->best[0].index);
  for (int d = 0, first = 1; d < net->ndims; d++) {
    if (!parts[d].part[0]) continue;
    WeftPartsBom b;
    weft_parts_bom(net, &parts[d], d, bw[d], links[d], &b);
    fprintf(out, "%s\n    {\"dim\": %d, \"part\": ", first ? "" : ",", d + 1);
    first = 0;
    cli_json_str(out, parts[d].part);
    fputs(", \"switch\": ", out);
    if (parts[d].switch_name[0]) cli_json_str(out, parts[d].switch_name);
    else fputs("null", out);
    fputs(", \"switches_by_tier\": [", out);
    for (int t = 0; t < b.tiers; t++) {
      if (t) fputs(", ", out);
      cli_json_num(out, b.tier_switches[t]);
    }
    fputs("], \"total\": ", out);
    cli_bom_json(out, &b);
    fputc('}', out);
    cost += b.cost_usd;
    power += b.power_w;
  }
  fputs("\n  ], \"npus\": ", out);
  if (r->system) {
    double n = weft_network_npus_bought(net);  /* spares included */
    fprintf(out, "{\"count\": %.0f, \"cost_usd\": ", n);
    cli_json_num(out, n * r->sys.npu_usd);
    fputs(", \"power_w\": ", out);
    cli_json_num(out, n * r->sys.npu_power_w);
    fputc('}', out);
    cost += n * r->sys.npu_usd;
    power += n * r->sys.npu_power_w;
  } else {
    fputs("null", out);
  }
  fputs(", \"cost_usd\": ", out);
  cli_json_num(out, cost);
  fputs(", \"power_w\": ", out);
  cli_json_num(out, power);
  fputs("},\n", out);
}

void cs_json(FILE *out, const CsReport *r) {
  const WeftCodesignSpec *sp = r->spec;
  char models[512];
  cs_model_names(sp, models, sizeof models);
  fputs("{\n  \"model\": ", out);
  cli_json_str(out, models);
  fputs(",\n  \"device\": ", out);
  cli_json_str(out, sp->device->name);
  fprintf(out, ",\n  \"npus\": %d,\n  \"objective\": \"%s\",\n  \"loop\": \"%s\",\n", r->npus,
          weft_objective_name(sp->objective), weft_loop_name(sp->loop));
  fputs("  \"networks\": ", out);
  cli_json_str(out, r->networks);
  fputs(",\n  \"bounds\": ", out); /* --blocks: per dim; null with --network files */
  if (!r->nbounds) fputs("null", out);
  for (int d = 0; d < r->nbounds; d++) {
    const CsBound *b = &r->bounds[d];
    fprintf(out, "%s\n    {\"dim\": %d, \"topology\": \"%s\", \"cost_class\": ", d ? "," : "[",
            d + 1, weft_topology_name(b->topo));
    cli_json_str(out, b->cost_class);
    if (b->max_npus) fprintf(out, ", \"max_npus\": %d", b->max_npus);
    else fputs(", \"max_npus\": null", out);
    fputs(", \"source\": ", out);
    cli_json_str(out, b->why ? "default" : "--max-per-dim");
    if (b->why) {
      fputs(", \"basis\": ", out);
      cli_json_str(out, b->why);
    }
    fputc('}', out);
  }
  if (r->nbounds) fputs("\n  ]", out);
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
    if (r->example[s] && s != WEFT_POINT_OK) {
      fprintf(out, ", \"example_point\": %zu, \"example_reason\": ", r->example[s]->index);
      cli_json_str(out, r->example[s]->pt.reason);
    }
    fputc('}', out);
  }
  size_t top = r->ntop;
  fputs("\n  },\n  \"top\": [", out);
  for (size_t k = 0; k < top; k++) {
    fputs(k ? ",\n    " : "\n    ", out);
    const WeftIndexedPoint *m;
    size_t n = weft_codesign_summary_same(r->sum, k, &m);
    json_design(out, r, n ? m : &r->best[k], n ? n : 1);
  }
  fputs(top ? "\n  ],\n" : "],\n", out);
  if (top > 0 && r->parts) bom_json(out, r);
  if (r->pn) cs_per_network_json(out, r);
  fputs("  \"pareto\": [", out);
  for (size_t k = 0; k < r->nfront; k++) {
    fputs(k ? ",\n    " : "\n    ", out);
    json_design(out, r, &r->front[k], 0);
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

static void csv_row(FILE *f, const CsReport *r, size_t i, const WeftDesignPoint *p) {
  const WeftNetwork *net = &r->spec->nets[p->net];
  char shape[160], order[64];
  cs_point_shape(r->spec, r->clusters, p, shape, sizeof shape);
  cs_order_knobs(r->spec, &p->par, order, sizeof order);
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
  if (ok && p->equal_time_ns > 0) csv_num(f, p->equal_time_ns);
  else fputc(',', f);
  if (p->mem_bytes > 0) csv_num(f, p->mem_bytes);
  else fputc(',', f);
  if (ok) csv_num(f, p->gap);
  else fputc(',', f);
  if (r->system && ok) {
    csv_num(f, p->capex_usd);
    csv_num(f, p->power_w);
    csv_num(f, p->cost_per_iteration_usd);
    csv_num(f, usd_per_mtok(p));
  } else if (r->system) {
    fputs(",,,,", f);
  }
  fputc(',', f);
  csv_str(f, p->reason);
  fputc('\n', f);
}

/* The CSV goes through the shared output writer (files.c): a temporary
 * beside path, renamed at the end, removed on failure or on an interrupt
 * (files.c's signal table); a device or FIFO written through. */
int cs_csv_open(CsCsv *c, const char *path, const CsReport *r) {
  memset(c, 0, sizeof *c);
  int rc = cli_out_open(path, &c->out);
  if (rc) return rc;
  c->f = weft_out_stream(c->out);
  fputs("point,net,shape,tp,pp,dp,mb,order,status,time_ns,cost_usd,objective", c->f);
  for (int d = 0; d < r->ndims; d++) fprintf(c->f, ",bw_gbps_%d", d + 1);
  fputs(",equal_time_ns,mem_bytes,gap", c->f);
  if (r->system) fputs(",capex_usd,power_w,cost_per_iteration_usd,usd_per_million_tokens", c->f);
  fputs(",reason\n", c->f);
  return 0;
}

void cs_csv_rows(CsCsv *c, const CsReport *r, size_t first, const WeftDesignPoint *pts,
                 size_t n) {
  if (!c->f) return;
  for (size_t j = 0; j < n; j++) csv_row(c->f, r, first + j, &pts[j]);
}

int cs_csv_commit(CsCsv *c, const CsReport *r) {
  if (!c->out) return 0;
  char *path = strdup(weft_out_path(c->out));
  int rc = cli_out_commit(c->out);
  c->out = NULL;
  c->f = NULL;
  if (!rc) /* what is in it: one row per point, cs_csv_open's header */
    fprintf(stderr, "weft: codesign: wrote %s: %zu row%s (and a header line) of %d columns\n",
            path ? path : "the CSV", r->n, r->n == 1 ? "" : "s",
            12 + r->ndims + 4 + (r->system ? 4 : 0));
  free(path);
  return rc;
}

void cs_csv_discard(CsCsv *c) {
  cli_out_discard(c->out);
  c->out = NULL;
  c->f = NULL;
}

/* ------------------------------------------------------------ plot */

/* The chosen design's time split at bw (its own, or EqualBW's), the point
 * generated again as its solve generated it (no solve). */
static int breakdown(const CsReport *r, const WeftDesignPoint *p, const double *bw,
                     double *compute_ns, double comm_ns[WEFT_NPHASES], double *cost_usd,
                     WeftError *err) {
  WeftEval ev;
  int rc = weft_codesign_evaluate(r->spec, p, bw, &ev, err);
  if (rc) return rc;
  WeftSpec one;  /* the point's problem has one job of weight 1 */
  memset(&one, 0, sizeof one);
  one.njobs = 1;
  one.jobs[0].weight = 1.0;
  cli_plot_times(&one, &ev, compute_ns, comm_ns);
  if (cost_usd) *cost_usd = ev.cost_usd;
  return WEFT_OK;
}

int cs_plot(const char *path, const CsReport *r, FILE *points) {
  if (r->nok == 0 || r->ntop == 0) {
    cli_fail("--plot: no feasible design to plot (nothing written)");
    return EXIT_RUNTIME;
  }
  double *fc = malloc((r->nfront + 1) * sizeof *fc), *ft = malloc((r->nfront + 1) * sizeof *ft);
  if (!fc || !ft) {
    free(fc), free(ft);
    cli_fail("out of memory");
    return EXIT_RUNTIME;
  }
  for (size_t k = 0; k < r->nfront; k++) {
    fc[k] = r->front[k].pt.cost_usd;
    ft[k] = r->front[k].pt.time_ns;
  }
  const WeftDesignPoint *best = &r->best[0].pt;
  const WeftNetwork *net = &r->spec->nets[best->net];
  double eq[WEFT_MAX_DIMS]; /* NaN (gnuplot's missing data) when no equal split exists */
  for (int d = 0; d < net->ndims; d++) eq[d] = best->equal_time_ns > 0 ? best->equal_bw_gbps : (double)NAN;
  char title[1024], sub[640], what[200], net_desc[256];
  describe(r, best, what, sizeof what);
  cli_plot_network(net, net_desc, sizeof net_desc);
  const WeftModel *bm = r->spec->nmodels > 0 ? &r->spec->models[best->model] : r->spec->model;
  snprintf(title, sizeof title, "%s on %d %s: %s", bm->title[0] ? bm->title : bm->name, r->npus,
           r->spec->device->title[0] ? r->spec->device->title
           : r->spec->device->name, r->networks);
  const char *par = strchr(what, ' ');  /* after the shape: "tp 16 pp 4 ..." */
  snprintf(sub, sizeof sub, "objective %s, loop %s; best: %s, %s",
           weft_objective_name(r->spec->objective), weft_loop_name(r->spec->loop), net_desc,
           par ? par + 1 : what);
  PlotData pd;
  memset(&pd, 0, sizeof pd);
  pd.title = title;
  pd.subtitle = sub;
  pd.objective = r->spec->objective;
  pd.npoints = r->nok;
  pd.points = points;
  pd.nfront = r->nfront;
  pd.front_cost_usd = fc;
  pd.front_time_ns = ft;
  pd.chosen_cost_usd = best->cost_usd;
  pd.chosen_time_ns = best->time_ns;
  pd.equal_time_ns = best->equal_time_ns > 0 ? best->equal_time_ns : (double)NAN;
  pd.net = net;
  pd.bw_gbps = best->bw_gbps;
  pd.equal_bw_gbps = eq;
  WeftError err;
  weft_error_clear(&err);
  int rc = breakdown(r, best, best->bw_gbps, &pd.compute_ns, pd.comm_ns, NULL, &err);
  if (!rc && best->equal_time_ns > 0)
    rc = breakdown(r, best, eq, &pd.equal_compute_ns, pd.equal_comm_ns, &pd.equal_cost_usd, &err);
  else if (!rc) {
    pd.equal_compute_ns = pd.equal_cost_usd = (double)NAN;
    for (int ph = 0; ph < WEFT_NPHASES; ph++) pd.equal_comm_ns[ph] = (double)NAN;
  }
  if (rc) {
    cli_fail("--plot: cannot evaluate the best design again: %s",
             err.msg[0] ? err.msg : weft_strerror(rc));
    rc = EXIT_RUNTIME;
  } else {
    rc = cli_plot(path, &pd);
  }
  free(fc), free(ft);
  return rc;
}
