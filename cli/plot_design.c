/* plot_design.c — the figure of `optimize --plot` and `codesign --plot`: the
 * chosen design next to EqualBW (bandwidth per dim, labelled by topology;
 * iteration time split into compute and exposed communication; the exposed
 * communication alone, to scale), under the Pareto front of every feasible
 * design (log cost axis) when there is one; under perf-per-cost, above a row
 * of the network cost and the objective minimised, time x cost. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plot.h"

#define PLOT_WIDE_SPAN 30.0   /* time axis: past ~1.5 decades the smallest values would share
                                 the bottom 3% of a linear axis; a log axis keeps them apart */
#define PLOT_WIDE_BARS 100.0  /* bars: past 2 decades (under 1% of the height a bar vanishes);
                                 below, a linear axis reads truer and labels carry the values */
#define CLOUD_COLS 750        /* the feasible designs are drawn one per cell of this grid */
#define CLOUD_ROWS 500        /* (about 2 x 1 px): the cloud looks the same, a million */
                              /* designs do not make a million-point PDF */
#define FIG_W 1500
#define FIG_H_ROW 560         /* one row of panels */
#define FIG_H_PARETO 1080     /* the Pareto front above them */
#define FIG_H_OBJ 500         /* perf-per-cost: the cost and objective row below */

static const char *const part_name[1 + WEFT_NPHASES] = {"compute", "forward comm",
                                                        "input-grad comm", "weight-grad comm"};
static const char *const part_color[1 + WEFT_NPHASES] = {"#a0a0a0", "#2ca02c", "#9467bd",
                                                         "#d62728"};

void cli_plot_times(const WeftSpec *spec, const WeftEval *ev, double *compute_ns,
                    double comm_ns[WEFT_NPHASES]) {
  *compute_ns = 0.0;
  for (int ph = 0; ph < WEFT_NPHASES; ph++) comm_ns[ph] = 0.0;
  for (int j = 0; j < spec->njobs; j++) { /* the objective's weighted sum, split up */
    double w = spec->jobs[j].weight;
    *compute_ns += w * ev->job[j].compute_ns;
    for (int ph = 0; ph < WEFT_NPHASES; ph++) comm_ns[ph] += w * ev->job[j].exposed_comm_ns[ph];
  }
}

void cli_plot_network(const WeftNetwork *net, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = '\0';
  for (int d = 0; d < net->ndims && k < size; d++)
    k += (size_t)snprintf(buf + k, size - k, "%s%s(%d)", d ? " x " : "",
                          weft_topology_name(net->topology[d]), net->npus[d]);
}

/* What the script needs besides PlotData: units and ranges. */
typedef struct {
  const PlotData *pd;
  const char *cost_name;
  double cost_div;
  PlotSpan cs, ts;  /* cost and time over every point and mark (raw units) */
} Fig;

/* The next (cost_usd, time_ns) of the points stream; 0 at its end. */
static int next_point(const PlotData *pd, size_t *k, double *cost, double *time) {
  double v[2];
  if (*k >= pd->npoints || !pd->points || fread(v, sizeof v[0], 2, pd->points) != 2) return 0;
  ++*k;
  *cost = v[0];
  *time = v[1];
  return 1;
}

/* ------------------------------------------------------------ data files */

/* Every feasible design, one per cell of a CLOUD_COLS x CLOUD_ROWS grid over
 * the panel's axes (log cost; time log or linear as its axis). */
static int write_cloud(PlotRun *r, const Fig *fg, int logy) {
  FILE *f = plot_data(r, "points.dat");
  if (!f) return -1;
  const PlotData *pd = fg->pd;
  unsigned char *seen = calloc((size_t)CLOUD_COLS * CLOUD_ROWS / 8 + 1, 1);
  double x0 = log(fg->cs.lo), xs = log(fg->cs.hi) - x0;
  double y0 = logy ? log(fg->ts.lo) : 0.0, ys = (logy ? log(fg->ts.hi) : fg->ts.hi) - y0;
  double c, t;
  size_t k = 0;
  if (pd->points) rewind(pd->points);
  while (next_point(pd, &k, &c, &t)) {
    if (!isfinite(c) || !isfinite(t) || c <= 0.0 || t <= 0.0) continue;
    if (seen) {
      double fx = xs > 0 ? (log(c) - x0) / xs : 0.5, fy = ys > 0 ? ((logy ? log(t) : t) - y0) / ys : 0.5;
      long cx = lround(fmin(fmax(fx, 0.0), 1.0) * (CLOUD_COLS - 1));
      long cy = lround(fmin(fmax(fy, 0.0), 1.0) * (CLOUD_ROWS - 1));
      size_t bit = (size_t)(cy * CLOUD_COLS + cx);
      if (seen[bit / 8] & (1u << (bit % 8))) continue;
      seen[bit / 8] |= (unsigned char)(1u << (bit % 8));
    }
    fprintf(f, "%.9g %.9g\n", c / fg->cost_div, t / 1e6);
  }
  free(seen);
  return 0;
}

static int write_data(PlotRun *r, const Fig *fg, int logy) {
  const PlotData *pd = fg->pd;
  double div = fg->cost_div;
  if (pd->npoints && write_cloud(r, fg, logy)) return -1;
  FILE *f = plot_data(r, "front.dat");
  if (!f) return -1;
  for (size_t i = 0; i < pd->nfront; i++)
    if (isfinite(pd->front_cost_usd[i]) && isfinite(pd->front_time_ns[i]))
      fprintf(f, "%.9g %.9g\n", pd->front_cost_usd[i] / div, pd->front_time_ns[i] / 1e6);
  /* index 0 the chosen design, index 1 EqualBW */
  if (!(f = plot_data(r, "marks.dat"))) return -1;
  fprintf(f, "%.9g %.9g\n\n\n%.9g %.9g\n", pd->chosen_cost_usd / div, pd->chosen_time_ns / 1e6,
          pd->equal_cost_usd / div, pd->equal_time_ns / 1e6);
  /* dim, B chosen, B EqualBW, their labels */
  if (!(f = plot_data(r, "bw.dat"))) return -1;
  for (int d = 0; d < pd->net->ndims; d++) {
    char a[32], b[32];
    plot_fmt_value(a, sizeof a, pd->bw_gbps[d]);
    plot_fmt_value(b, sizeof b, pd->equal_bw_gbps[d]);
    fprintf(f, "%d %.9g %.9g \"%s\" \"%s\"\n", d + 1, pd->bw_gbps[d], pd->equal_bw_gbps[d], a, b);
  }
  /* per design: x, cumulative ends of compute, fwd, ig, wg (ms), total
   * label; then the exposed communication alone: its cumulative ends per
   * phase and its label (ms and share of the iteration) */
  if (!(f = plot_data(r, "time.dat"))) return -1;
  for (int k = 0; k < 2; k++) {
    double c = (k ? pd->equal_compute_ns : pd->compute_ns) / 1e6, comm = 0.0;
    const double *cm = k ? pd->equal_comm_ns : pd->comm_ns;
    char lab[32], cl[32];
    if (k && !isfinite(pd->equal_time_ns)) { /* no EqualBW: no bars, no labels */
      fputs("2 NaN NaN NaN NaN \"\" NaN NaN NaN \"\"\n", f);
      continue;
    }
    fprintf(f, "%d %.9g", k + 1, c);
    for (int ph = 0; ph < WEFT_NPHASES; ph++) fprintf(f, " %.9g", c += cm[ph] / 1e6);
    plot_fmt_value(lab, sizeof lab, c);
    fprintf(f, " \"%s ms\"", lab);
    for (int ph = 0; ph < WEFT_NPHASES; ph++) fprintf(f, " %.9g", comm += cm[ph] / 1e6);
    plot_fmt_value(cl, sizeof cl, comm);
    fprintf(f, " \"%s ms (%.0f%%)\"\n", cl, c > 0 && isfinite(comm) ? 100.0 * comm / c : 0.0);
  }
  if (pd->objective != WEFT_OBJ_PERF_PER_COST) return 0;
  /* per design: x, cost (the figure's unit), time x cost (ms x that unit),
   * their labels; EqualBW's NaN when there is none */
  if (!(f = plot_data(r, "obj.dat"))) return -1;
  for (int k = 0; k < 2; k++) {
    double c = (k ? pd->equal_cost_usd : pd->chosen_cost_usd) / div;
    double o = (k ? pd->equal_time_ns : pd->chosen_time_ns) / 1e6 * c;
    char cl[32], ol[32];
    if (!isfinite(o)) {
      fprintf(f, "%d NaN NaN \"\" \"\"\n", k + 1);
      continue;
    }
    plot_fmt_value(cl, sizeof cl, c);
    plot_fmt_value(ol, sizeof ol, o);
    fprintf(f, "%d %.9g %.9g \"%s %s\" \"%s\"\n", k + 1, c, o, cl, fg->cost_name, ol);
  }
  return 0;
}

/* ---------------------------------------------------------------- panels */

static void script_pareto(FILE *g, const Fig *fg, int logy, double y0, double h, double ps) {
  const PlotData *pd = fg->pd;
  PlotSpan csu = {fg->cs.lo / fg->cost_div, fg->cs.hi / fg->cost_div, 0};
  PlotSpan tsu = {fg->ts.lo / 1e6, fg->ts.hi / 1e6, fg->ts.zero};
  plot_panel(g, 0.0, y0, 1.0, h);
  fprintf(g,
          "set title 'Pareto front: iteration time vs network cost'\n"
          "set xlabel 'network cost (%s, log scale)'\nset ylabel 'iteration time (ms)%s'\n",
          fg->cost_name, logy ? ", log scale" : "");
  plot_set_range(g, 'x', &csu, 1);
  plot_set_range(g, 'y', &tsu, logy);
  double k = pd->chosen_time_ns / 1e6 * pd->chosen_cost_usd / fg->cost_div;
  int iso = pd->objective == WEFT_OBJ_PERF_PER_COST && isfinite(k) && k > 0;
  char v[32], iso_title[96];
  plot_fmt_value(v, sizeof v, k);
  snprintf(iso_title, sizeof iso_title, "time x cost = %s ms x %s (the least)", v, fg->cost_name);
  /* the key's column: its longest title, the sample and the box (characters) */
  size_t chars = iso ? strlen(iso_title) : strlen("feasible designs");
  fprintf(g, "set key outside right top box spacing 1.3\nset rmargin %zu\nplot ",
          chars + 14 > 30 ? chars + 14 : 30);
  const char *sep = "";
  if (pd->npoints) {
    fprintf(g, "d.'points.dat' u 1:2 w p pt 7 ps %g lc rgb '#b8b8b8' t 'feasible designs'",
            0.45 * ps);
    sep = ", \\\n  ";
  }
  if (pd->nfront) {
    fprintf(g, "%sd.'front.dat' u 1:2 w steps lw 2 lc rgb '#303030' notitle, \\\n"
               "  d.'front.dat' u 1:2 w p pt 7 ps %g lc rgb '#303030' t 'Pareto front'",
            sep, 0.8 * ps);
    sep = ", \\\n  ";
  }
  if (isfinite(pd->equal_cost_usd) && isfinite(pd->equal_time_ns)) {
    fprintf(g, "%sd.'marks.dat' index 1 u 1:2 w p pt 9 ps %g lc rgb '%s' t 'EqualBW'", sep,
            2.6 * ps, PLOT_COLOR_EQUAL);
    sep = ", \\\n  ";
  }
  if (iso) { /* the objective's level set through the chosen design: every design on
                or above it (weft's own text: safe as script text) */
    fprintf(g, "%s%.9g / x w l dt 2 lw 1.5 lc rgb '%s' t '%s'", sep, k, PLOT_COLOR_CHOSEN,
            iso_title);
    sep = ", \\\n  ";
  }
  if (isfinite(pd->chosen_cost_usd) && isfinite(pd->chosen_time_ns))
    fprintf(g, "%sd.'marks.dat' index 0 u 1:2 w p pt 13 ps %g lc rgb '%s' t 'chosen design'",
            sep, 2.6 * ps, PLOT_COLOR_CHOSEN);
  fputs("\n", g);
}

static void script_bw(FILE *g, const PlotData *pd, double x0, double y0, double w, double h) {
  PlotSpan s = PLOT_SPAN_EMPTY;
  for (int d = 0; d < pd->net->ndims; d++) {
    plot_span_add(&s, pd->bw_gbps[d]);
    plot_span_add(&s, pd->equal_bw_gbps[d]);
  }
  int logy = plot_span_wide(&s, PLOT_WIDE_BARS);
  double hi = s.hi > 0.0 ? s.hi : 1.0;
  plot_panel(g, x0, y0, w, h);
  fprintf(g,
          "set title 'bandwidth per dimension'\nset ylabel 'bandwidth per NPU (GB/s)%s'\n"
          "set xrange [0.4:%g]\nset grid noxtics ytics\nset bmargin 4.5\nset xtics (",
          logy ? ", log scale" : "", pd->net->ndims + 0.6);
  static const char *const abbr[] = {"Ring", "FC", "Switch"}; /* as codesign's shapes */
  for (int d = 0; d < pd->net->ndims; d++) { /* weft's own names: safe as script text */
    int t = (int)pd->net->topology[d];
    fprintf(g, "%s\"dim %d\\n%s(%d)\" %d", d ? ", " : "", d + 1, t >= 0 && t < 3 ? abbr[t] : "?",
            pd->net->npus[d], d + 1);
  }
  fprintf(g, ") scale 0%s\n", pd->net->ndims > 5 ? " font ',9'" : "");
  double base = 0.0;
  if (logy) { /* a decade below the smallest bar, headroom above for the key */
    base = pow(10.0, floor(log10(s.lo)));
    if (base >= s.lo) base /= 10.0; /* s.lo a power of 10: keep its bar visible */
    /* the range just under base keeps base's tick, which gnuplot drops at the edge */
    PlotSpan r = {base * 0.999 * 1.25, hi * 4.0 / 1.25, 0};
    plot_set_range(g, 'y', &r, 1);
  } else {
    fprintf(g, "set yrange [0:%g]\n", hi * 1.35);
  }
  fprintf(g,
          "set key top right horizontal box opaque samplen 1.5\n"
          "plot d.'bw.dat' u ($1-0.2):2:($1-0.38):($1-0.02):(%g):2 w boxxyerror "
          "lc rgb '%s' t 'chosen', \\\n"
          "  '' u ($1+0.2):3:($1+0.02):($1+0.38):(%g):3 w boxxyerror lc rgb '%s' %s, \\\n"
          "  '' u ($1-0.2):2:4 w labels offset 0,0.7 font ',9' notitle, \\\n"
          "  '' u ($1+0.2):3:5 w labels offset 0,0.7 font ',9' notitle\n",
          base, PLOT_COLOR_CHOSEN, base, PLOT_COLOR_EQUAL,
          isfinite(pd->equal_time_ns) ? "t 'EqualBW'" : "notitle"); /* none: no key entry */
}

/* The designs' names under their bars: "chosen\ncost 13.8 M$". */
static void design_tics(FILE *g, const Fig *fg) {
  const PlotData *pd = fg->pd;
  char cost[2][32], eq[64];
  plot_fmt_value(cost[0], sizeof cost[0], pd->chosen_cost_usd / fg->cost_div);
  plot_fmt_value(cost[1], sizeof cost[1], pd->equal_cost_usd / fg->cost_div);
  if (isfinite(pd->equal_cost_usd)) snprintf(eq, sizeof eq, "cost %s %s", cost[1], fg->cost_name);
  else snprintf(eq, sizeof eq, "none meets the constraints");
  fprintf(g, "set xrange [0.4:2.6]\nset xtics (\"chosen\\ncost %s %s\" 1, \"EqualBW\\n%s\" 2) "
             "scale 0\nset grid noxtics ytics\nset bmargin 4.5\n",
          cost[0], fg->cost_name, eq);
}

/* Stacked bars of time.dat's parts: compute (with_compute) and the phases,
 * part k's top in column first_col + k (- 1 without compute), the total's
 * label in label_col. part_max[k]: 0 (or NaN) leaves part k out, < 0 draws
 * it without a key entry. */
static void stacked(FILE *g, const double *part_max, int first_col, int with_compute,
                    int label_col) {
  const char *sep = "";
  fputs("plot ", g);
  for (int k = with_compute ? 0 : 1; k <= WEFT_NPHASES; k++) {
    int key = part_max[k] > 0.0;
    if (!(fabs(part_max[k]) > 0.0)) continue; /* absent for both designs: no empty key entry */
    int top = first_col + k - (with_compute ? 0 : 1), bot = top - 1;
    char lo[16];
    if (k == (with_compute ? 0 : 1)) snprintf(lo, sizeof lo, "0");
    else snprintf(lo, sizeof lo, "$%d", bot);
    fprintf(g, "%sd.'time.dat' u 1:%d:($1-0.3):($1+0.3):(%s):%d w boxxyerror lc rgb '%s' ", sep,
            top, lo, top, part_color[k]);
    if (key) fprintf(g, "t '%s'", part_name[k]); /* part_name: weft's text */
    else fputs("notitle", g);
    sep = ", \\\n  ";
  }
  fprintf(g, "%sd.'time.dat' u 1:%d:%d w labels offset 0,0.8 font ',10' notitle\n", sep,
          first_col + WEFT_NPHASES - (with_compute ? 0 : 1), label_col);
}

static void script_time(FILE *g, const Fig *fg, double x0, double y0, double w, double h) {
  const PlotData *pd = fg->pd;
  double tot[2] = {pd->compute_ns, pd->equal_compute_ns};
  double part_max[1 + WEFT_NPHASES] = {fmax(pd->compute_ns, pd->equal_compute_ns)};
  for (int ph = 0; ph < WEFT_NPHASES; ph++) {
    tot[0] += pd->comm_ns[ph];
    tot[1] += pd->equal_comm_ns[ph];
    part_max[1 + ph] = fmax(pd->comm_ns[ph], pd->equal_comm_ns[ph]);
  }
  double hi = fmax(tot[0], tot[1]) / 1e6;
  if (!(hi > 0.0) || !isfinite(hi)) hi = 1.0;
  plot_panel(g, x0, y0, w, h);
  fputs("set title 'iteration time", g);
  if (tot[0] > 0.0 && isfinite(tot[1] / tot[0]))
    fprintf(g, " (EqualBW / chosen = %.2fx)", tot[1] / tot[0]);
  fprintf(g, "'\nset ylabel 'time per iteration (ms)'\nset yrange [0:%g]\n", hi * 1.3);
  design_tics(g, fg);
  /* the phases' key is the next panel's: here only compute */
  for (int k = 1; k <= WEFT_NPHASES; k++) part_max[k] = -part_max[k];
  fputs("set key top left box opaque samplen 1.5\n", g);
  stacked(g, part_max, 2, 1, 6);
}

static void script_comm(FILE *g, const Fig *fg, double x0, double y0, double w, double h) {
  const PlotData *pd = fg->pd;
  double part_max[1 + WEFT_NPHASES] = {0.0}, hi = 0.0;
  for (int k = 0; k < 2; k++) {
    double s = 0.0;
    for (int ph = 0; ph < WEFT_NPHASES; ph++) {
      double v = (k ? pd->equal_comm_ns : pd->comm_ns)[ph];
      part_max[1 + ph] = fmax(part_max[1 + ph], v);
      if (isfinite(v)) s += v;
    }
    hi = fmax(hi, s / 1e6);
  }
  if (!(hi > 0.0)) hi = 1.0;
  plot_panel(g, x0, y0, w, h);
  fprintf(g, "set title 'exposed communication, to scale'\nset ylabel 'time per iteration (ms)'\n"
             "set yrange [0:%g]\n", hi * 1.6);
  design_tics(g, fg);
  fputs("set key top left vertical box opaque samplen 1.5\n", g);
  stacked(g, part_max, 7, 0, 10);
}

/* perf-per-cost: column col of obj.dat (2 the network cost, 3 the
 * objective, time x cost) for the chosen design and EqualBW, bars labelled
 * by column col + 2, with EqualBW's ratio to the chosen design. */
static void script_obj(FILE *g, const Fig *fg, int col, double x0, double y0, double w,
                       double h) {
  const PlotData *pd = fg->pd;
  double v[2] = {pd->chosen_cost_usd / fg->cost_div, pd->equal_cost_usd / fg->cost_div};
  if (col == 3) {
    v[0] *= pd->chosen_time_ns / 1e6;
    v[1] *= pd->equal_time_ns / 1e6;
  }
  PlotSpan s = PLOT_SPAN_EMPTY;
  plot_span_add(&s, v[0]);
  plot_span_add(&s, v[1]);
  s.hi *= 1.25; /* room for the labels */
  s.zero = 1;   /* bars from 0 */
  plot_panel(g, x0, y0, w, h);
  fprintf(g, "set title '%s", col == 3 ? "objective minimised: time x cost" : "network cost");
  if (v[0] > 0.0 && isfinite(v[1] / v[0])) fprintf(g, " (EqualBW / chosen = %.2fx)", v[1] / v[0]);
  if (col == 3) fprintf(g, "'\nset ylabel 'time x cost (ms x %s)'\n", fg->cost_name);
  else fprintf(g, "'\nset ylabel 'network cost (%s)'\n", fg->cost_name);
  plot_set_range(g, 'y', &s, 0);
  fprintf(g,
          "set xrange [0.4:2.6]\nset xtics (\"chosen\" 1, \"EqualBW\" 2) scale 0\n"
          "set grid noxtics ytics\nset bmargin 4.5\nunset key\n"
          "plot d.'obj.dat' every ::0::0 u 1:%d:($1-0.3):($1+0.3):(0):%d w boxxyerror "
          "lc rgb '%s', \\\n"
          "  '' every ::1::1 u 1:%d:($1-0.3):($1+0.3):(0):%d w boxxyerror lc rgb '%s', \\\n"
          "  '' u 1:%d:%d w labels offset 0,0.8 font ',10'\n",
          col, col, PLOT_COLOR_CHOSEN, col, col, PLOT_COLOR_EQUAL, col, col + 2);
}

/* ---------------------------------------------------------------- script */

static int body(PlotRun *r, FILE *g, const void *ctx) {
  Fig fg = {ctx, NULL, 1.0, PLOT_SPAN_EMPTY, PLOT_SPAN_EMPTY};
  const PlotData *pd = fg.pd;
  int pareto = pd->npoints > 0;
  double c, t;
  size_t k = 0;
  if (pd->points) rewind(pd->points);
  while (next_point(pd, &k, &c, &t)) {
    plot_span_add(&fg.cs, c);
    plot_span_add(&fg.ts, t);
  }
  plot_span_add(&fg.cs, pd->chosen_cost_usd);
  plot_span_add(&fg.cs, pd->equal_cost_usd);
  plot_span_add(&fg.ts, pd->chosen_time_ns);
  plot_span_add(&fg.ts, pd->equal_time_ns);
  fg.cost_div = plot_cost_unit(fg.cs.hi, &fg.cost_name);
  int logy = plot_span_wide(&fg.ts, PLOT_WIDE_SPAN);
  if (write_data(r, &fg, logy)) return -1;

  int ppc = pd->objective == WEFT_OBJ_PERF_PER_COST;
  int h0 = pareto ? FIG_H_PARETO : FIG_H_ROW, hpx = h0 + (ppc ? FIG_H_OBJ : 0);
  plot_terminal(r, g, FIG_W, hpx);
  fputs("t = ARG3\nif (strlen(ARG4) > 0) { t = t.\"\\n\".ARG4 }\n"
        "set multiplot title t font ',13'\n", g);
  /* in the top h0 px (above the perf-per-cost row, when there is one) */
  double sc = (double)h0 / hpx, base = 1.0 - sc;
  double top = 1.0 - 62.0 / h0; /* the two-line title's strip */
  double row = pareto ? (top - 0.02) * 0.5 : top, ps = plot_point_scale(r);
  if (pareto) script_pareto(g, &fg, logy, base + (row + 0.02) * sc, (top - row - 0.02) * sc, ps);
  script_bw(g, pd, 0.0, base, 1.0 / 3, row * sc);
  script_time(g, &fg, 1.0 / 3, base, 1.0 / 3, row * sc);
  script_comm(g, &fg, 2.0 / 3, base, 1.0 / 3, row * sc);
  if (ppc) { /* the objective minimised, under the bars of the same designs */
    script_obj(g, &fg, 2, 1.0 / 6, 0.0, 1.0 / 3, base);
    script_obj(g, &fg, 3, 0.5, 0.0, 1.0 / 3, base);
  }
  fputs("unset multiplot\nset output\n", g);
  return 0;
}

int cli_plot(const char *path, const PlotData *pd) {
  if (!pd->net || pd->net->ndims < 1 || pd->net->ndims > WEFT_MAX_DIMS) {
    cli_fail("cannot plot: no network (internal error)");
    return EXIT_RUNTIME;
  }
  return cli_plot_render(path, pd->title, pd->subtitle, NULL, body, pd);
}
