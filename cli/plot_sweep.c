/* plot_sweep.c — `sweep --plot`: the results against a swept value. The x
 * axis is the last numeric field with several values (else the point
 * index); every combination of the other swept fields is a curve. Panels:
 * iteration time with its compute part dashed (the gap above it is exposed
 * communication), network cost, and per-dim bandwidth (one curve) or time vs
 * cost (several, log cost). Rows are read twice from the caller's stream:
 * ranges first, then the data files; none are held in memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plot.h"

#define SWEEP_MAX_CURVES 10   /* curves with a key entry; the rest drawn grey, together */
#define SWEEP_WIDE 30.0       /* an axis spanning more than this ratio is logarithmic */
#define SWEEP_W 1500
#define SWEEP_TIC_CHARS 32    /* a point's tick label is cut to this (x the point index) */
#define SWEEP_KEY_ROWS 4      /* the curves' key: at most this many rows, below the plots */
#define SWEEP_H 600

static const char *const palette[SWEEP_MAX_CURVES] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
    "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

/* Is s a plain number ("16", "0.5", "-1e3")? */
static int numeric(const char *s, double *v) {
  char *end;
  if (!s || !*s) return 0;
  *v = strtod(s, &end);
  return *end == '\0' && isfinite(*v);
}

typedef struct {
  const PlotSweep *ps;
  int nf;
  size_t *stride;       /* points between two values of field f */
  size_t *nv;           /* field f's values */
  int xf;               /* the x field, -1: the point index */
  size_t ncurves;       /* combinations of the other fields with several values */
  int sorted;           /* the x field's values ascend as listed */
  PlotSpan xs, ts, cs, bs;
  double cost_div;
  const char *cost_name;
  size_t nok;
  size_t tic_chars;     /* the longest point label (x is the point index) */
  double hpx;           /* the figure's height: taller for vertical point labels */
  double key_top;       /* the keys' top edge (screen) */
  double bottom;        /* the plots' bottom edge (screen): tick labels, axis label and
                           the key below them */
} Sw;

/* The curve of point i: its choices of every field but x, mixed radix. */
static size_t curve_of(const Sw *s, size_t i) {
  size_t c = 0;
  if (s->xf < 0) return 0; /* no numeric x: one curve over the point index */
  for (int f = 0; f < s->nf; f++)
    if (f != s->xf && s->nv[f] > 1) c = c * s->nv[f] + i / s->stride[f] % s->nv[f];
  return c;
}

static double x_of(const Sw *s, size_t i) {
  double v = (double)i;
  if (s->xf >= 0) numeric(weft_sweep_value(s->ps->sw, i, s->xf), &v);
  return v;
}

/* Fields, the x field, the curves. -1 when out of memory (printed). */
static int layout(Sw *s) {
  const WeftSweep *sw = s->ps->sw;
  s->nf = weft_sweep_nfields(sw);
  s->stride = calloc((size_t)s->nf + 1, sizeof *s->stride);
  s->nv = calloc((size_t)s->nf + 1, sizeof *s->nv);
  if (!s->stride || !s->nv) {
    cli_fail("out of memory");
    return -1;
  }
  size_t st = 1;
  for (int f = s->nf - 1; f >= 0; f--) {
    s->nv[f] = weft_sweep_nvalues(sw, f);
    s->stride[f] = st;
    st *= s->nv[f] ? s->nv[f] : 1;
  }
  s->xf = -1;
  for (int f = s->nf - 1; f >= 0 && s->xf < 0; f--) {
    int all = s->nv[f] > 1;
    double v;
    for (size_t k = 0; k < s->nv[f] && all; k++)
      all = numeric(weft_sweep_value(sw, k * s->stride[f], f), &v);
    if (all) s->xf = f;
  }
  s->sorted = 1;
  for (size_t k = 1; s->xf >= 0 && k < s->nv[s->xf]; k++)
    s->sorted &= x_of(s, k * s->stride[s->xf]) > x_of(s, (k - 1) * s->stride[s->xf]);
  s->ncurves = 1;
  for (int f = 0; f < s->nf && s->xf >= 0; f++)
    if (f != s->xf && s->nv[f] > 1) s->ncurves *= s->nv[f];
  return 0;
}

static void layout_free(Sw *s) {
  free(s->stride);
  free(s->nv);
}

/* "tp=8, mb=2": the curve's values (of the first point on it). */
static void curve_name(const Sw *s, size_t i, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = '\0';
  for (int f = 0; f < s->nf && k < size; f++)
    if (f != s->xf && s->nv[f] > 1)
      k += (size_t)snprintf(buf + k, size - k, "%s%s=%s", k ? ", " : "",
                            weft_sweep_field(s->ps->sw, f), weft_sweep_value(s->ps->sw, i, f));
}

/* A point's tick label when x is its index: the values of the fields with
 * several, comma-separated, cut to SWEEP_TIC_CHARS. Returns its length. */
static size_t point_label(const Sw *s, size_t i, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = '\0';
  for (int f = 0; f < s->nf && k < size; f++)
    if (s->nv[f] > 1 || s->nf == 1)
      k += (size_t)snprintf(buf + k, size - k, "%s%s", k ? ", " : "",
                            weft_sweep_value(s->ps->sw, i, f));
  if (strlen(buf) > SWEEP_TIC_CHARS) strcpy(buf + SWEEP_TIC_CHARS - 3, "...");
  return strlen(buf);
}

/* Pass 1: ranges and the ok count. */
static void spans(Sw *s) {
  const PlotSweep *ps = s->ps;
  WeftSweepRow row;
  PlotSpan e = PLOT_SPAN_EMPTY;
  s->xs = s->ts = s->cs = s->bs = e;
  ps->rewind(ps->ctx);
  for (size_t i = 0; i < ps->n && !ps->next(ps->ctx, &row); i++) {
    if (row.status != WEFT_POINT_OK) continue;
    s->nok++;
    if (s->xf < 0) {
      char label[256];
      size_t len = point_label(s, i, label, sizeof label);
      if (len > s->tic_chars) s->tic_chars = len;
    }
    plot_span_add(&s->xs, x_of(s, i));
    plot_span_add(&s->ts, row.time_ns / 1e6);
    plot_span_add(&s->ts, row.compute_ns / 1e6);
    plot_span_add(&s->cs, row.cost_usd);
    for (int d = 0; d < row.ndims; d++) plot_span_add(&s->bs, row.bw_gbps[d]);
  }
  s->cost_div = plot_cost_unit(s->cs.hi, &s->cost_name);
  s->cs.lo /= s->cost_div;
  s->cs.hi /= s->cost_div;
}

/* Pass 2: one file per keyed curve (a header line with its name, then x,
 * time, compute, cost, B1..BD), "rest.dat" for the others. */
static int write_curves(PlotRun *r, Sw *s, FILE **f, size_t nfiles) {
  const PlotSweep *ps = s->ps;
  for (size_t c = 0; c <= nfiles && c <= SWEEP_MAX_CURVES; c++) {
    char name[24];
    if (c == nfiles) {
      if (s->ncurves <= nfiles) break;
      snprintf(name, sizeof name, "rest.dat");
    } else {
      snprintf(name, sizeof name, "c%zu.dat", c);
    }
    if (!(f[c] = plot_data(r, name))) return -1;
  }
  char label[512];
  int *named = calloc(nfiles + 1, sizeof *named);
  if (!named) {
    cli_fail("out of memory");
    return -1;
  }
  WeftSweepRow row;
  ps->rewind(ps->ctx);
  for (size_t i = 0; i < ps->n && !ps->next(ps->ctx, &row); i++) {
    size_t c = curve_of(s, i);
    FILE *o = c < nfiles ? f[c] : f[nfiles];
    if (c < nfiles && !named[c]) { /* the header: columnheader(1) is the curve's title */
      curve_name(s, i, label, sizeof label);
      plot_put_label(o, label[0] ? label : "every point");
      fputs(" x\n", o);
      named[c] = 1;
    }
    if (row.status != WEFT_POINT_OK) {
      fputc('\n', o); /* a gap in the line */
      continue;
    }
    fprintf(o, "%.9g %.9g %.9g %.9g", x_of(s, i), row.time_ns / 1e6, row.compute_ns / 1e6,
            row.cost_usd / s->cost_div);
    for (int d = 0; d < ps->ndims; d++)
      fprintf(o, d < row.ndims ? " %.9g" : " NaN", row.bw_gbps[d]);
    if (s->xf < 0) { /* the point index on x: its values label the tick */
      point_label(s, i, label, sizeof label);
      fputc(' ', o);
      plot_put_label(o, label);
    }
    fputc('\n', o);
  }
  free(named);
  return 0;
}

static void x_axis(FILE *g, const Sw *s) {
  if (s->xf >= 0) {
    fputs("set xlabel ARG5\n", g);
    plot_set_range(g, 'x', &s->xs, plot_span_wide(&s->xs, SWEEP_WIDE));
  } else {
    fputs("unset xlabel\nset xtics rotate by 90 right font ',9'\n", g); /* the labels say it */
    fprintf(g, "set xrange [-0.5:%g]\n", (double)s->ps->n - 0.5);
  }
}

/* The curves of one panel: y (a using expression such as "$2") of every
 * file, titled by their headers or not. */
static void curves(FILE *g, const Sw *s, size_t nfiles, const char *y, const char *style,
                   int titled) {
  const char *smooth = s->xf >= 0 && !s->sorted ? " smooth unique" : "";
  for (size_t c = 0; c < nfiles; c++) {
    fprintf(g, "%sd.'c%zu.dat' u 1:(%s)%s w %s lc rgb '%s' ", c ? ", \\\n  " : "", c, y, smooth,
            style, palette[c % SWEEP_MAX_CURVES]);
    if (titled) fputs("t columnheader(1)", g);
    else fputs("notitle", g);
  }
  if (s->ncurves > nfiles)
    fprintf(g, ", \\\n  d.'rest.dat' u 1:(%s)%s w %s lc rgb '#c0c0c0' %s", y, smooth, style,
            titled ? "t 'the other curves'" : "notitle");
}

/* The point index's tick labels (no numeric x): the last column of c0.dat. */
static void index_tics(FILE *g, const Sw *s) {
  if (s->xf < 0) fprintf(g, ", \\\n  d.'c0.dat' u 1:(NaN):xtic(%d) notitle", 5 + s->ps->ndims);
}

static void panel_frame(FILE *g, const Sw *s, double x0, double w, const char *title) {
  double top = 1.0 - 110.0 / s->hpx, bottom = s->bottom;
  plot_panel(g, x0, 0.0, w, 1.0);
  fprintf(g, "set title '%s'\nset lmargin at screen %g\nset rmargin at screen %g\n"
             "set bmargin at screen %g\nset tmargin at screen %g\n",
          title, x0 + 0.06, x0 + w - 0.015, bottom, top);
}

static void script(FILE *g, Sw *s, size_t nfiles, double ps);

static int body(PlotRun *r, FILE *g, const void *ctx) {
  Sw s;
  memset(&s, 0, sizeof s);
  s.ps = ctx;
  if (layout(&s)) {
    layout_free(&s);
    return -1;
  }
  spans(&s);
  size_t nfiles = s.ncurves < SWEEP_MAX_CURVES ? s.ncurves : SWEEP_MAX_CURVES;
  s.hpx = SWEEP_H + 6.5 * (double)s.tic_chars;
  FILE *f[SWEEP_MAX_CURVES + 1] = {NULL};
  int rc = write_curves(r, &s, f, nfiles);
  if (!rc) {
    plot_terminal(r, g, SWEEP_W, (int)s.hpx);
    script(g, &s, nfiles, plot_point_scale(r));
  }
  layout_free(&s);
  return rc;
}

static void script(FILE *g, Sw *sw, size_t nfiles, double ps) {
  Sw s = *sw;
  double w = 1.0 / 3;
  size_t rows = s.ncurves > 1 ? (s.ncurves > nfiles ? nfiles + 1 : nfiles) : 1;
  if (rows > SWEEP_KEY_ROWS) rows = SWEEP_KEY_ROWS;
  /* vertical tick labels: about 6.5 px a character at 9 pt */
  s.bottom = (95.0 + 17.0 * (double)rows + 6.5 * (double)s.tic_chars) / s.hpx;
  s.key_top = (25.0 + 17.0 * (double)rows) / s.hpx;
  fputs("t = ARG3\nif (strlen(ARG4) > 0) { t = t.\"\\n\".ARG4 }\n"
        "set multiplot title t font ',13'\nset datafile missing 'NaN'\n", g);
  char style[64];
  snprintf(style, sizeof style, "lp lw 2 pt 7 ps %g", 0.8 * ps);
  int nd = s.ps->ndims;
  /* iteration time, compute dashed */
  panel_frame(g, &s, 0.0, w, "iteration time (dashed: its compute part)");
  x_axis(g, &s);
  int logt = plot_span_wide(&s.ts, SWEEP_WIDE);
  if (!logt) s.ts.zero = 1; /* from 0: the compute and communication parts read to scale */
  plot_set_range(g, 'y', &s.ts, logt);
  fprintf(g, "set ylabel 'time per iteration (ms)%s'\n", logt ? ", log scale" : "");
  if (s.ncurves > 1)
    fprintf(g, "set key at screen %g, screen %g center top maxrows %d box samplen 2 font ',10' width 1\n",
            0.5, s.key_top, SWEEP_KEY_ROWS);
  else
    fputs("unset key\n", g);
  fputs("plot ", g);
  curves(g, &s, nfiles, "$2", style, s.ncurves > 1);
  fputs(", \\\n  ", g);
  char dash[64];
  snprintf(dash, sizeof dash, "l dt 2 lw 1.5");
  curves(g, &s, nfiles, "$3", dash, 0);
  index_tics(g, &s);
  fputs("\n", g);
  /* network cost */
  panel_frame(g, &s, w, w, "network cost");
  x_axis(g, &s);
  int logc = plot_span_wide(&s.cs, SWEEP_WIDE);
  if (!logc) s.cs.zero = 1;
  plot_set_range(g, 'y', &s.cs, logc);
  fprintf(g, "set ylabel 'network cost (%s%s)'\nunset key\nplot ", s.cost_name,
          logc ? ", log scale" : "");
  curves(g, &s, nfiles, "$4", style, 0);
  index_tics(g, &s);
  fputs("\n", g);
  if (s.ncurves == 1 && nd > 0) { /* one curve: its bandwidth per dim */
    panel_frame(g, &s, 2 * w, w, "bandwidth per dimension");
    x_axis(g, &s);
    int logb = plot_span_wide(&s.bs, SWEEP_WIDE);
    if (!logb) s.bs.zero = 1;
    plot_set_range(g, 'y', &s.bs, logb);
    fprintf(g, "set ylabel 'bandwidth per NPU (GB/s)%s'\n"
               "set key at screen %g, screen %g center top horizontal box samplen 2 font ',10' width 1"
               "\nplot ",
            logb ? ", log scale" : "", 2.5 * w, s.key_top);
    for (int d = 0; d < nd && d < WEFT_MAX_DIMS; d++)
      fprintf(g, "%sd.'c0.dat' u 1:%d w lp lw 2 pt %d ps %g lc rgb '%s' t 'B%d'", d ? ", \\\n  " : "",
              5 + d, 4 + 2 * (d % 6), 0.8 * ps, palette[(d + 3) % SWEEP_MAX_CURVES], d + 1);
    index_tics(g, &s);
    fputs("\n", g);
  } else { /* several: the trade-off */
    panel_frame(g, &s, 2 * w, w, "iteration time vs network cost");
    PlotSpan cs = s.cs, ts = s.ts;
    cs.zero = 0;
    plot_set_range(g, 'x', &cs, cs.hi > 0);
    plot_set_range(g, 'y', &ts, logt);
    fprintf(g, "set xlabel 'network cost (%s, log scale)'\nset ylabel 'time per iteration (ms)'\n"
               "unset key\nplot ",
            s.cost_name);
    for (size_t c = 0; c <= nfiles; c++) {
      if (c == nfiles && s.ncurves <= nfiles) break;
      char file[24];
      if (c == nfiles) snprintf(file, sizeof file, "rest.dat");
      else snprintf(file, sizeof file, "c%zu.dat", c);
      fprintf(g, "%sd.'%s' u 4:2 w lp lw 1 pt 7 ps %g lc rgb '%s' notitle", c ? ", \\\n  " : "", file,
              0.8 * ps, c == nfiles ? "#c0c0c0" : palette[c % SWEEP_MAX_CURVES]);
    }
    fputs("\n", g);
  }
  fputs("unset multiplot\nset output\n", g);
}

int cli_plot_sweep(const char *path, const char *title, const char *subtitle,
                   const PlotSweep *ps) {
  Sw s;
  memset(&s, 0, sizeof s);
  s.ps = ps;
  int rc = layout(&s) ? EXIT_RUNTIME : 0;
  const char *xl = s.xf >= 0 ? weft_sweep_field(ps->sw, s.xf) : "point";
  if (!rc) rc = cli_plot_render(path, title, subtitle, xl, body, ps);
  layout_free(&s);
  return rc;
}
