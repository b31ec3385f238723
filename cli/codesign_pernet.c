/* codesign_pernet.c — `weft codesign --per-network`: the best design of each
 * model on each network file (the file's own network, its variants with
 * spares and its choices of parts together; with --blocks, each shape), as
 * a table section, a JSON key and a figure (best time against the file's
 * dim-1 size, one curve per model): a scale-up domain sweep in one run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "codesign.h"
#include "plot.h"

#define PN_W 1200
#define PN_TOP_PX 110.0
#define PN_PLOT_PX 420.0
#define PN_AXIS_PX 75.0
#define PN_BOTTOM_PX 20.0

int cs_per_network_init(CsPerNet *pn, const WeftCodesignSpec *spec) {
  memset(pn, 0, sizeof *pn);
  int n = spec->nnets;
  pn->nmodels = spec->nmodels > 0 ? spec->nmodels : 1;
  pn->group = malloc((size_t)(n > 0 ? n : 1) * sizeof *pn->group);
  pn->first = malloc((size_t)(n > 0 ? n : 1) * sizeof *pn->first);
  if (!pn->group || !pn->first) return -1;
  for (int i = 0; i < n; i++) { /* the same file: one group (variants follow their file) */
    const WeftNetwork *a = &spec->nets[i];
    int g = -1;
    for (int k = 0; k < pn->ngroups && g < 0 && a->file[0]; k++)
      if (!strcmp(spec->nets[pn->first[k]].file, a->file)) g = k;
    if (g < 0) pn->first[g = pn->ngroups++] = i;
    pn->group[i] = g;
  }
  size_t cells = (size_t)pn->nmodels * (size_t)(pn->ngroups > 0 ? pn->ngroups : 1);
  pn->best = calloc(cells, sizeof *pn->best);
  pn->has = calloc(cells, 1);
  return pn->best && pn->has ? 0 : -1;
}

void cs_per_network_free(CsPerNet *pn) {
  free(pn->group);
  free(pn->first);
  free(pn->best);
  free(pn->has);
  memset(pn, 0, sizeof *pn);
}

void cs_per_network_add(CsPerNet *pn, size_t index, const WeftDesignPoint *p) {
  if (p->status != WEFT_POINT_OK || !pn->group) return;
  size_t c = (size_t)p->model * (size_t)pn->ngroups + (size_t)pn->group[p->net];
  /* the objective the top ranks by; the first point wins a tie (in index order) */
  if (pn->has[c] && !(p->objective < pn->best[c].pt.objective)) return;
  pn->has[c] = 1;
  pn->best[c].index = index;
  pn->best[c].pt = *p;
}

static const char *model_name(const WeftCodesignSpec *sp, int m) {
  return sp->nmodels > 0 ? sp->models[m].name : sp->model->name;
}

/* The group's dim-1 size as bought (its file's scale-up domain). */
static int domain(const CsReport *r, int g) {
  const WeftNetwork *n = &r->spec->nets[r->pn->first[g]];
  return n->npus[0] + n->spares[0];
}

void cs_per_network_unused(FILE *out, const CsReport *r, const CsPerNet *pn) {
  for (int m = 0; m < pn->nmodels; m++)
    for (int g = 0; g < pn->ngroups; g++) {
      if (pn->has[(size_t)m * (size_t)pn->ngroups + (size_t)g]) continue;
      const WeftNetwork *n = &r->spec->nets[pn->first[g]];
      int variants = 0;
      for (int i = 0; i < r->spec->nnets; i++) variants += pn->group[i] == g;
      char shape[160];
      cs_shape(n, shape, sizeof shape);
      fprintf(out, "weft: codesign: no feasible design of %s on %s (%s%s)\n",
              model_name(r->spec, m), n->file[0] ? n->file : "a network", shape,
              variants > 1 ? ", nor on its variants" : "");
    }
}

void cs_per_network_table(FILE *out, const CsReport *r) {
  const CsPerNet *pn = r->pn;
  fprintf(out, "\nbest design per model and network file (--per-network), by %s:\n",
          r->spec->objective == WEFT_OBJ_PERF            ? "iteration time"
          : r->spec->objective == WEFT_OBJ_PERF_PER_COST ? "time x cost"
                                                         : "cost per iteration");
  int named = 0; /* a cluster column when some network names its preset */
  for (int g = 0; g < pn->ngroups; g++) named |= r->spec->nets[pn->first[g]].cluster[0] != '\0';
  fprintf(out, "  %-14s ", "model");
  if (named) fprintf(out, "%-16s ", "cluster");
  fprintf(out, "%-18s %7s  %-18s %4s %4s %5s %3s  %-14s %11s %12s\n", "network", "point", "shape",
          "tp", "pp", "dp", "mb", "order", "time_ms", "cost_usd");
  for (int m = 0; m < pn->nmodels; m++)
    for (int g = 0; g < pn->ngroups; g++) {
      char net[160], shape[160], order[64];
      const WeftNetwork *n = &r->spec->nets[pn->first[g]];
      cs_shape(n, net, sizeof net);
      size_t c = (size_t)m * (size_t)pn->ngroups + (size_t)g;
      fprintf(out, "  %-14s ", model_name(r->spec, m));
      if (named) fprintf(out, "%-16s ", n->cluster[0] ? n->cluster : "-");
      fprintf(out, "%-18s ", net);
      if (!pn->has[c]) {
        fputs("      -  no feasible design\n", out);
        continue;
      }
      const WeftDesignPoint *p = &pn->best[c].pt;
      cs_shape(&r->spec->nets[p->net], shape, sizeof shape);
      cs_order_knobs(r->spec, &p->par, order, sizeof order);
      char deg[4][16]; /* '-': fixed by the trace (--workload) */
      int v[4] = {p->par.tp, p->par.pp, p->par.dp, p->par.micro_batch};
      for (int k = 0; k < 4; k++)
        snprintf(deg[k], sizeof deg[k], r->spec->workloads ? "-" : "%d", v[k]);
      fprintf(out, "%7zu  %-18s %4s %4s %5s %3s  %-14s %11.3f %12.0f\n", pn->best[c].index,
              shape, deg[0], deg[1], deg[2], deg[3], order, p->time_ns / 1e6, p->cost_usd);
    }
}

void cs_per_network_json(FILE *out, const CsReport *r) {
  const CsPerNet *pn = r->pn;
  fputs("  \"per_network\": [", out);
  int k = 0;
  for (int m = 0; m < pn->nmodels; m++)
    for (int g = 0; g < pn->ngroups; g++, k++) {
      char net[160], shape[160], order[64];
      const WeftNetwork *n = &r->spec->nets[pn->first[g]];
      cs_shape(n, net, sizeof net);
      size_t c = (size_t)m * (size_t)pn->ngroups + (size_t)g;
      fputs(k ? ",\n    {\"model\": " : "\n    {\"model\": ", out);
      cli_json_str(out, model_name(r->spec, m));
      fputs(", \"cluster\": ", out);
      if (n->cluster[0]) cli_json_str(out, n->cluster);
      else fputs("null", out);
      fputs(", \"network\": ", out);
      cli_json_str(out, net);
      fprintf(out, ", \"domain\": %d", domain(r, g));
      if (!pn->has[c]) {
        fputs(", \"point\": null}", out);
        continue;
      }
      const WeftDesignPoint *p = &pn->best[c].pt;
      cs_shape(&r->spec->nets[p->net], shape, sizeof shape);
      cs_order_knobs(r->spec, &p->par, order, sizeof order);
      fprintf(out, ", \"point\": %zu, \"shape\": ", pn->best[c].index);
      cli_json_str(out, shape);
      fprintf(out, ", \"tp\": %d, \"pp\": %d, \"dp\": %d, \"ep\": %d, \"mb\": %d, \"order\": ",
              p->par.tp, p->par.pp, p->par.dp, p->par.ep, p->par.micro_batch);
      cli_json_str(out, order);
      fputs(", \"time_ns\": ", out);
      cli_json_num(out, p->time_ns);
      fputs(", \"cost_usd\": ", out);
      cli_json_num(out, p->cost_usd);
      fputs(", \"objective\": ", out);
      cli_json_num(out, p->objective);
      fputc('}', out);
    }
  fputs(k ? "\n  ],\n" : "],\n", out);
}

/* ------------------------------------------------------------ the figure */

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
#define NPALETTE (int)(sizeof palette / sizeof palette[0])

/* x: the files' dim-1 sizes when they differ, else their index (ticks by shape). */
static int numeric_x(const CsReport *r) {
  for (int a = 0; a < r->pn->ngroups; a++)
    for (int b = 0; b < a; b++)
      if (domain(r, a) == domain(r, b)) return 0;
  return 1;
}

static int body(PlotRun *run, FILE *g, const void *ctx) {
  const CsReport *r = ctx;
  const CsPerNet *pn = r->pn;
  int nx = numeric_x(r);
  PlotSpan xs = PLOT_SPAN_EMPTY, ts = PLOT_SPAN_EMPTY;
  size_t chars = 0, ticks = 0; /* the longest curve title, and tick label */
  for (int m = 0; m < pn->nmodels; m++) {
    char name[24];
    snprintf(name, sizeof name, "m%d.dat", m);
    FILE *f = plot_data(run, name);
    if (!f) return -1;
    plot_put_label(f, model_name(r->spec, m)); /* the curve's title: columnheader(1) */
    fputs(" x\n", f);
    if (strlen(model_name(r->spec, m)) > chars) chars = strlen(model_name(r->spec, m));
    for (int gi = 0; gi < pn->ngroups; gi++) {
      size_t c = (size_t)m * (size_t)pn->ngroups + (size_t)gi;
      double x = nx ? domain(r, gi) : gi;
      char net[160]; /* the tick: the shape, after its cluster when they differ */
      cs_net_shape(&r->spec->nets[pn->first[gi]], r->clusters, net, sizeof net);
      if (strlen(net) > ticks) ticks = strlen(net);
      if (!pn->has[c]) {
        fputc('\n', f); /* a gap */
        continue;
      }
      fprintf(f, "%.9g %.9g ", x, pn->best[c].pt.time_ns / 1e6);
      plot_put_label(f, net);
      fputc('\n', f);
      plot_span_add(&xs, x);
      plot_span_add(&ts, pn->best[c].pt.time_ns / 1e6);
    }
  }
  PlotKey key = plot_key_fit(run, (size_t)pn->nmodels, chars, PN_W - 40);
  /* ticks rotated by 30 degrees reach down half their length (about 9.4 px
   * a character at the tick font, measured on the PNG): room for them and
   * the axis label below them, above the key */
  double axis_px = nx ? PN_AXIS_PX : fmax(PN_AXIS_PX, 50.0 + 4.7 * (double)ticks);
  double hpx = PN_TOP_PX + PN_PLOT_PX + axis_px + key.h_px + PN_BOTTOM_PX;
  plot_terminal(run, g, PN_W, (int)hpx);
  fputs("t = ARG3\nif (strlen(ARG4) > 0) { t = t.\"\\n\".ARG4 }\n"
        "set multiplot title t font ',13'\n", g);
  plot_panel(g, 0.0, 0.0, 1.0, 1.0);
  fprintf(g, "set title 'best design per network'\nset xlabel ARG5\n"
             "set ylabel 'iteration time (ms%s)'\n"
             "set lmargin at screen 0.08\nset rmargin at screen 0.98\n"
             "set bmargin at screen %g\nset tmargin at screen %g\n",
          plot_span_wide(&ts, 30.0) ? ", log scale" : "",
          (PN_BOTTOM_PX + key.h_px + axis_px) / hpx, 1.0 - PN_TOP_PX / hpx);
  xs.zero = !nx && xs.zero;
  if (nx) {
    plot_set_range(g, 'x', &xs, plot_span_wide(&xs, 30.0));
    fputs("set xtics (", g); /* a tick at every file's size */
    for (int gi = 0; gi < pn->ngroups; gi++) fprintf(g, "%s%d", gi ? ", " : "", domain(r, gi));
    fputs(")\n", g);
  } else {
    fprintf(g, "set xrange [-0.5:%g]\n", pn->ngroups - 0.5);
    fputs("set xtics rotate by -30\n", g);
  }
  plot_set_range(g, 'y', &ts, plot_span_wide(&ts, 30.0));
  fprintf(g, "set grid\nset key at screen 0.5, screen %g center top maxcols %d maxrows %d box "
             "samplen 2 font ',10' width 1\nplot ",
          (PN_BOTTOM_PX + key.h_px - 4.0) / hpx, key.cols, key.rows);
  double ps = plot_point_scale(run);
  for (int m = 0; m < pn->nmodels; m++) /* by network, not a size: points, no line between */
    fprintf(g, "%sd.'m%d.dat' u 1:2%s w %s lw 2 pt %d ps %g lc rgb '%s' t columnheader(1)",
            m ? ", \\\n  " : "", m, nx ? "" : ":xtic(3)", nx ? "lp" : "p", 5 + 2 * (m % 5), ps,
            palette[m % NPALETTE]);
  if (!pn->nmodels) fputs("NaN notitle", g);
  fputs("\nunset multiplot\nset output\n", g);
  return 0;
}

int cs_per_network_plot(const char *path, const CsReport *r) {
  char title[1024], sub[256];
  const WeftCodesignSpec *sp = r->spec;
  char models[512];
  cs_model_names(sp, models, sizeof models);
  snprintf(title, sizeof title, "%s on %d %s", models, r->npus,
           sp->device->title[0] ? sp->device->title : sp->device->name);
  snprintf(sub, sizeof sub, "%s; objective %s, loop %s", r->networks,
           weft_objective_name(sp->objective), weft_loop_name(sp->loop));
  return cli_plot_render(path, title, sub,
                         numeric_x(r) ? "dim 1 NPUs of the network (scale-up domain)"
                                      : "network",
                         body, r);
}
