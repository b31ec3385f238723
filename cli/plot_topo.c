/* plot_topo.c — `topo-eval --plot`: iteration time vs fabric cost, one curve
 * per fabric (TopoOpt per degree, the switch, the Fat-trees, the expander
 * per degree; the OCS per degree and reconfiguration delay in a panel of its
 * own), log-log, with the compute time alone as a floor so the
 * communication each fabric adds reads as the height above it. Each panel's
 * axes span its own curves; its key, below it, has a row or column for
 * every curve. A .png, .svg or .pdf through the shared runner, or (FILE.gp)
 * a self-contained script. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plot.h"

#define TOPO_MAX_CURVES 40
#define TOPO_W 1500
#define TOPO_TOP_PX 110.0    /* the figure's and the panels' titles (a PDF's are larger) */
#define TOPO_PLOT_PX 380.0   /* a plot's height */
#define TOPO_AXIS_PX 75.0    /* the cost axis's labels, under a plot */
#define TOPO_BOTTOM_PX 20.0  /* under the keys */
#define TOPO_FLOOR_RATIO 3.16 /* the compute floor is drawn within half a decade of the
                                 lowest time, else noted */

typedef struct {
  WeftEvalFabric fab;
  int degree;
  double reconf_ns;
  char name[112];
  int same_as;  /* -1, or the earlier curve of the panel with the same points */
} Curve;

/* One curve per (fabric, degree, reconfiguration delay), in fabric order,
 * then degree, then delay; returns how many (at most max). */
static int curves(const WeftEvalPoint *p, int n, Curve *c, int max) {
  int nc = 0;
  for (int i = 0; i < n; i++) {
    int k = 0;
    while (k < nc && !(c[k].fab == p[i].fabric && c[k].degree == p[i].degree &&
                       c[k].reconf_ns == p[i].reconf_ns))
      k++;
    if (k < nc || nc == max) continue;
    Curve cv = {p[i].fabric, p[i].degree, p[i].reconf_ns, "", -1};
    const char *fn = weft_eval_fabric_name(p[i].fabric);
    if (p[i].fabric == WEFT_EVAL_OCS)
      snprintf(cv.name, sizeof cv.name, "ocs d=%d, %g us", cv.degree, cv.reconf_ns / 1e3);
    else if (p[i].degree > 1 || p[i].fabric == WEFT_EVAL_TOPOOPT ||
             p[i].fabric == WEFT_EVAL_EXPANDER)
      snprintf(cv.name, sizeof cv.name, "%s d=%d", fn, cv.degree);
    else snprintf(cv.name, sizeof cv.name, "%s", fn);
    int j = nc++; /* insertion: (fabric, degree, delay) ascending */
    while (j > 0 && (c[j - 1].fab > cv.fab ||
                     (c[j - 1].fab == cv.fab && (c[j - 1].degree > cv.degree ||
                                                 (c[j - 1].degree == cv.degree &&
                                                  c[j - 1].reconf_ns > cv.reconf_ns))))) {
      c[j] = c[j - 1];
      j--;
    }
    c[j] = cv;
  }
  return nc;
}

static int on_curve(const WeftEvalPoint *q, const Curve *c) {
  return q->fabric == c->fab && q->degree == c->degree && q->reconf_ns == c->reconf_ns;
}

/* A curve's points by cost: indices into p, *m of them. */
static void curve_points(const WeftEvalPoint *p, int n, const Curve *c, int *idx, int *m) {
  *m = 0;
  for (int i = 0; i < n; i++) {
    if (!on_curve(&p[i], c) || !isfinite(p[i].cost_usd) || !isfinite(p[i].time_ns)) continue;
    int j = (*m)++;
    while (j > 0 && p[idx[j - 1]].cost_usd > p[i].cost_usd) {
      idx[j] = idx[j - 1];
      j--;
    }
    idx[j] = i;
  }
}

/* ------------------------------------------------------------ .gp script */

void cli_topo_eval_script(FILE *f, const char *model, const WeftEvalPoint *p, int n) {
  Curve c[TOPO_MAX_CURVES];
  int nc = curves(p, n, c, TOPO_MAX_CURVES), *idx = malloc((size_t)(n > 0 ? n : 1) * sizeof *idx);
  fprintf(f, "# weft topo-eval %s: iteration time vs fabric cost\n", model);
  fputs("set logscale xy\nset xlabel 'fabric cost (USD, log scale)'\n"
        "set ylabel 'iteration time (ms, log scale)'\nset key outside right\nset grid\n"
        "set termoption noenhanced\n",
        f);
  fprintf(f, "set title 'weft topo-eval: %s'\n", model);
  int drawn = 0;
  for (int k = 0; k < nc && idx; k++) {
    int m;
    curve_points(p, n, &c[k], idx, &m);
    fprintf(f, "$c%d << EOD\n", k);
    for (int i = 0; i < m; i++)
      fprintf(f, "%.2f %.6f\n", p[idx[i]].cost_usd, p[idx[i]].time_ns / 1e6);
    fputs("EOD\n", f);
  }
  fputs("plot ", f);
  for (int k = 0; k < nc && idx; k++, drawn++)
    fprintf(f, "%s$c%d using 1:2 with linespoints title '%s'", k ? ", \\\n     " : "", k,
            c[k].name);
  if (!drawn) fputs("NaN notitle", f);
  fputs("\n", f);
  free(idx);
}

/* ------------------------------------------------------------ the figure */

/* Curves of one panel with the very same points (the switch and the
 * Fat-trees when the fabric is not the bottleneck) would hide one another:
 * the later ones are drawn once, under the first's name, "switch =
 * fattree". idx: room for n indices. */
static void merge_same(const WeftEvalPoint *p, int n, Curve *c, int nc, int *idx) {
  int *jdx = malloc((size_t)(n > 0 ? n : 1) * sizeof *jdx);
  if (!jdx) return; /* drawn unmerged */
  for (int k = 1; k < nc; k++)
    for (int j = 0; j < k && c[k].same_as < 0; j++) {
      if (c[j].same_as >= 0 || (c[j].fab == WEFT_EVAL_OCS) != (c[k].fab == WEFT_EVAL_OCS))
        continue;
      int m, mj, same = 1;
      curve_points(p, n, &c[k], idx, &m);
      curve_points(p, n, &c[j], jdx, &mj);
      for (int i = 0; i < m && same; i++)
        same = fabs(p[idx[i]].cost_usd - p[jdx[i]].cost_usd) <= 1e-9 * p[jdx[i]].cost_usd &&
               fabs(p[idx[i]].time_ns - p[jdx[i]].time_ns) <= 1e-9 * p[jdx[i]].time_ns;
      if (!same || m != mj) continue;
      c[k].same_as = j;
      char add[sizeof c[k].name];
      memcpy(add, c[k].name, sizeof add);
      size_t len = strlen(c[j].name);
      snprintf(c[j].name + len, sizeof c[j].name - len, " = %s", add);
    }
  free(jdx);
}

typedef struct {
  const WeftEvalPoint *p;
  int n;
} TopoFig;

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
#define NPALETTE (int)(sizeof palette / sizeof palette[0])

/* Is curve c drawn in the panel (ocs: the OCS one, with TopoOpt's curves
 * dashed for reference; else the rest)? */
static int in_panel(const Curve *c, int ocs) {
  if (c->same_as >= 0) return 0; /* drawn once, under the first's name */
  return (c->fab == WEFT_EVAL_OCS) == ocs || (ocs && c->fab == WEFT_EVAL_TOPOOPT);
}

#define FLOOR_TITLE "compute alone (no communication)"

/* A panel's axes and key: spans over its own curves (each panel fills its
 * area; the OCS curves cost more than the cheapest baselines), the compute
 * floor on its time axis when within half a decade of its lowest time. */
typedef struct {
  PlotSpan cs, ts;
  int floor_on_axis, nkey;
  size_t chars;
  PlotKey key;
} Panel;

static void panel_span(const WeftEvalPoint *p, int n, const Curve *c, int nc, int ocs,
                       double div, double compute_ms, int *idx, Panel *pn) {
  PlotSpan e = PLOT_SPAN_EMPTY;
  pn->cs = pn->ts = e;
  pn->nkey = 0;
  pn->chars = 0;
  for (int k = 0; k < nc; k++) {
    if (!in_panel(&c[k], ocs)) continue;
    int m;
    curve_points(p, n, &c[k], idx, &m);
    for (int i = 0; i < m; i++) {
      plot_span_add(&pn->cs, p[idx[i]].cost_usd / div);
      plot_span_add(&pn->ts, p[idx[i]].time_ns / 1e6);
    }
    pn->nkey++;
    if (strlen(c[k].name) > pn->chars) pn->chars = strlen(c[k].name);
  }
  pn->floor_on_axis = compute_ms > 0 && isfinite(compute_ms) && pn->ts.hi > 0 &&
                      compute_ms >= pn->ts.lo / TOPO_FLOOR_RATIO;
  if (pn->floor_on_axis) { /* further below, a note: a floor a decade down leaves
                              the panel's lower third blank */
    plot_span_add(&pn->ts, compute_ms);
    pn->nkey++;
    if (strlen(FLOOR_TITLE) > pn->chars) pn->chars = strlen(FLOOR_TITLE);
  }
  pn->cs.zero = pn->ts.zero = 0; /* log axes: a non-positive value is left out, not drawn */
}

/* One panel: the curves with ocs == (fab == OCS), TopoOpt's dashed in the
 * OCS panel for reference, and the compute floor (a line when it is on the
 * axis, else a note). Fixed margins and the key at a fixed place below, so
 * the panels' plot areas line up whatever their keys hold. */
static void panel(FILE *g, const Curve *c, int nc, int ocs, double x0, double w, const Panel *pn,
                  double hpx, double key_px, double compute_ms, const char *cost_name,
                  double ps) {
  double top = 1.0 - TOPO_TOP_PX / hpx, bottom = (TOPO_BOTTOM_PX + key_px + TOPO_AXIS_PX) / hpx;
  plot_panel(g, x0, 0.0, w, 1.0);
  fprintf(g, "set title '%s'\nset xlabel 'fabric cost (%s, log scale)'\n"
             "set ylabel 'iteration time (ms, log scale)'\n"
             "set lmargin at screen %g\nset rmargin at screen %g\n"
             "set bmargin at screen %g\nset tmargin at screen %g\n",
          ocs ? "OCS re-wired between phases, by reconfiguration delay"
              : "TopoOpt and the baselines",
          cost_name, x0 + 0.055, x0 + w - 0.015, bottom, top);
  plot_set_range(g, 'x', &pn->cs, 1);
  plot_set_range(g, 'y', &pn->ts, 1);
  if (compute_ms > 0 && isfinite(compute_ms) && !pn->floor_on_axis) {
    char v[32];
    plot_fmt_value(v, sizeof v, compute_ms);
    fprintf(g, "set label 'compute alone (no communication): %s ms, below the axis' "
               "at graph 0.02, graph 0.04 left font ',10'\n", v);
  }
  fprintf(g, "set key at screen %g, screen %g center top maxcols %d maxrows %d box samplen 2 "
             "font ',10' width 1\nplot ",
          x0 + w / 2, (TOPO_BOTTOM_PX + key_px - 4.0) / hpx, pn->key.cols, pn->key.rows);
  const char *sep = "";
  int color = 0, ref = 0;
  for (int k = 0; k < nc; k++) {
    if (!in_panel(&c[k], ocs)) continue;
    if (ocs && c[k].fab != WEFT_EVAL_OCS) /* weft's own curve names: safe as script text */
      fprintf(g, "%sd.'c%d.dat' u 1:2 w lp dt 2 lw 1.5 pt %d ps %g lc rgb '#404040' t '%s'", sep,
              k, 1 + ref++, ps, c[k].name);
    else
      fprintf(g, "%sd.'c%d.dat' u 1:2 w lp lw 2 pt %d ps %g lc rgb '%s' t '%s'", sep, k,
              4 + 2 * (color % 6), ps, palette[color % NPALETTE], c[k].name), color++;
    sep = ", \\\n  ";
  }
  if (pn->floor_on_axis)
    fprintf(g, "%s%.9g w l dt 3 lw 2 lc rgb '#000000' t '" FLOOR_TITLE "'", sep, compute_ms);
  else if (!*sep)
    fputs("NaN notitle", g);
  fputs("\n", g);
}

static int body(PlotRun *r, FILE *g, const void *ctx) {
  const TopoFig *tf = ctx;
  Curve c[TOPO_MAX_CURVES];
  int nc = curves(tf->p, tf->n, c, TOPO_MAX_CURVES), any_ocs = 0;
  int *idx = malloc((size_t)(tf->n > 0 ? tf->n : 1) * sizeof *idx);
  if (!idx) {
    cli_fail("out of memory");
    return -1;
  }
  merge_same(tf->p, tf->n, c, nc, idx);
  double compute_ms = HUGE_VAL, max_usd = 0.0;
  for (int i = 0; i < tf->n; i++)
    if (isfinite(tf->p[i].cost_usd)) max_usd = fmax(max_usd, tf->p[i].cost_usd);
  const char *cost_name;
  double div = plot_cost_unit(max_usd, &cost_name);
  for (int k = 0; k < nc; k++) {
    char name[24];
    snprintf(name, sizeof name, "c%d.dat", k);
    FILE *f = plot_data(r, name);
    if (!f) {
      free(idx);
      return -1;
    }
    int m;
    curve_points(tf->p, tf->n, &c[k], idx, &m);
    for (int i = 0; i < m; i++) {
      const WeftEvalPoint *q = &tf->p[idx[i]];
      fprintf(f, "%.9g %.9g\n", q->cost_usd / div, q->time_ns / 1e6);
      /* the strategy's compute: its time less its communication */
      double comp = (q->time_ns - q->comm_ns) / 1e6;
      if (comp > 0 && comp < compute_ms) compute_ms = comp;
    }
    any_ocs |= c[k].fab == WEFT_EVAL_OCS;
  }
  int np = any_ocs ? 2 : 1;
  double w = 1.0 / np, key_px = 0.0;
  Panel pn[2];
  for (int k = 0; k < np; k++) {
    panel_span(tf->p, tf->n, c, nc, k, div, compute_ms, idx, &pn[k]);
    pn[k].key = plot_key_fit(r, (size_t)pn[k].nkey, pn[k].chars, w * TOPO_W - 40);
    key_px = fmax(key_px, pn[k].key.h_px);
  }
  free(idx);
  double hpx = TOPO_TOP_PX + TOPO_PLOT_PX + TOPO_AXIS_PX + key_px + TOPO_BOTTOM_PX;
  plot_terminal(r, g, TOPO_W, (int)hpx);
  fputs("t = ARG3\nif (strlen(ARG4) > 0) { t = t.\"\\n\".ARG4 }\n"
        "set multiplot title t font ',13'\n", g);
  double ps = plot_point_scale(r);
  for (int k = 0; k < np; k++)
    panel(g, c, nc, k, k * w, w, &pn[k], hpx, key_px, compute_ms, cost_name, ps);
  fputs("unset multiplot\nset output\n", g);
  return 0;
}

int cli_plot_topo_eval(const char *path, const char *title, const char *subtitle,
                       const WeftEvalPoint *p, int n) {
  TopoFig tf = {p, n};
  return cli_plot_render(path, title, subtitle, NULL, body, &tf);
}
