/* plot.h — `--plot FILE` for every command: a .png, .svg or .pdf drawn by
 * gnuplot (plot.c runs it; one figure per file: plot_design.c for optimize
 * and codesign, plot_sweep.c, plot_topo.c). No user text is ever gnuplot
 * code: the output path and titles reach the script as arguments (gnuplot
 * -c script ARG1..ARG5, by fork/exec) and labels go into data files. */
#ifndef WEFT_CLI_PLOT_H
#define WEFT_CLI_PLOT_H

#include <math.h>
#include <stdio.h>

#include "weft.h"

typedef enum { PLOT_PNG, PLOT_SVG, PLOT_PDF } PlotFormat;

/* Before any work: the extension (.png, .svg, .pdf; else usage, 2) and, for
 * a PDF, a gnuplot with the pdfcairo terminal (else runtime, 1, with how to
 * get one). 0, or prints why and returns the exit code. */
int cli_plot_check(const char *path);
/* The format path's extension names, or -1 (nothing printed). */
int cli_plot_format_of(const char *path);

/* ------------------------------------------------------------ the runner */

typedef struct PlotRun PlotRun;

/* A figure's script body: everything after the terminal and output lines
 * (plot_terminal's), data through plot_data. The script sees ARG2 (the data
 * directory, as `d`), ARG3 (title), ARG4 (subtitle) and ARG5 (label, a free
 * text such as an axis label). 0, or -1 when a data file could not be
 * opened (plot_data said why). */
typedef int (*PlotBody)(PlotRun *r, FILE *script, const void *ctx);

/* Draw path (its format by extension) with body's script: gnuplot writes in
 * a private temporary directory; the result is copied to path through the
 * shared writer (whole or not at all; a device written through). 0, or
 * prints why and returns EXIT_RUNTIME (gnuplot missing or failing, the file
 * system refusing) or EXIT_USAGE (the extension). */
int cli_plot_render(const char *path, const char *title, const char *subtitle, const char *label,
                    PlotBody body, const void *ctx);

PlotFormat plot_format(const PlotRun *r);
/* A data file NAME (e.g. "bw.dat", NAME without quotes or slashes) in the
 * run's directory, open for writing; the script reads it as d.'NAME'. NULL
 * (printed) when it cannot be created. Closed by the runner. */
FILE *plot_data(PlotRun *r, const char *name);
/* The terminal for a figure of wpx x hpx (pixels of the PNG; the SVG the
 * same, the PDF that size at 150 px per inch), font size pt at that scale. */
void plot_terminal(PlotRun *r, FILE *g, int wpx, int hpx);
/* Marker size factor for the format (the SVG and PDF draw a point larger). */
double plot_point_scale(const PlotRun *r);

/* ------------------------------------------------------------ helpers */

/* A value label: three significant digits, no exponent below 1e5, no
 * trailing zeros (526, 14.1, 5, 0.685, 2000). */
void plot_fmt_value(char *buf, size_t n, double v);
/* A label for a data file: quoted, with '"', '\\' and control characters
 * replaced by '?' (gnuplot's data files have no escapes). */
void plot_put_label(FILE *f, const char *s);

/* Range of the finite positive values seen; zero set when a value <= 0 was
 * seen too (then no log axis, and a linear one starts at 0). */
typedef struct {
  double lo, hi;
  int zero;
} PlotSpan;
#define PLOT_SPAN_EMPTY {HUGE_VAL, 0.0, 0}
void plot_span_add(PlotSpan *s, double v);
/* More than ratio between the largest and smallest value (and none <= 0). */
int plot_span_wide(const PlotSpan *s, double ratio);
/* The dollar unit that keeps the largest cost between 1 and 1000. */
double plot_cost_unit(double max_usd, const char **name);
/* Axis range and its ticks around a span: 5% margins on a linear axis,
 * never below 0, a tenth of the decades (a quarter decade at most) on a log
 * one; at least 3 labelled ticks whatever the span (1-2-5 per decade on a
 * short log axis, 1..9 or linear steps on a shorter one; on a linear axis 3
 * to 7 steps of 1, 2, 2.5 or 5 x 10^k), labels as precise as the step. */
void plot_set_range(FILE *g, char axis, const PlotSpan *s, int log_axis);
/* A key (legend) below the panels: font size 10, samplen 2, width 1, in
 * as many columns of its longest title (chars) as fit width_px of the
 * figure, by gnuplot's own estimate of a column (which sizes the box: the
 * key shows whole); h_px its height. Titles longer than
 * plot_key_max_chars(width_px) should be cut first. */
typedef struct {
  int cols, rows;
  double h_px;
} PlotKey;
PlotKey plot_key_fit(const PlotRun *r, size_t n, size_t chars, double width_px);
size_t plot_key_max_chars(const PlotRun *r, double width_px);
/* Reset gnuplot and place the next panel (screen fractions). */
void plot_panel(FILE *g, double x, double y, double w, double h);

#define PLOT_COLOR_CHOSEN "#1f77b4"
#define PLOT_COLOR_EQUAL "#ff7f0e"

/* ------------------------------------------------------------ figures */

/* A design next to EqualBW (optimize, codesign), with the Pareto cloud of
 * every feasible design when npoints > 0; under perf-per-cost, the objective
 * minimised too (time x cost, and the cost, per design; on the Pareto panel
 * the curve of the chosen design's time x cost). Arrays and the points
 * stream are borrowed. */
typedef struct {
  const char *title, *subtitle;
  WeftObjective objective;  /* what the chosen design minimises (0: perf) */
  size_t npoints;
  FILE *points;        /* every feasible design: npoints (cost_usd, time_ns) pairs
                          of doubles, binary, read from the start (so any count
                          of designs plots without holding them in memory) */
  size_t nfront;
  const double *front_cost_usd, *front_time_ns;  /* the Pareto front, by cost */
  double chosen_cost_usd, chosen_time_ns;        /* the design reported */
  double equal_cost_usd, equal_time_ns;          /* EqualBW at its total bandwidth */
  const WeftNetwork *net;                        /* the design's network: dim labels */
  const double *bw_gbps, *equal_bw_gbps;         /* per dim */
  /* time breakdown (ns): compute and exposed communication per phase */
  double compute_ns, comm_ns[WEFT_NPHASES];
  double equal_compute_ns, equal_comm_ns[WEFT_NPHASES];
} PlotData;

/* Returns 0, or prints why and returns the exit code. */
int cli_plot(const char *path, const PlotData *pd);
/* A PlotData time breakdown from an evaluation: weighted sums over jobs of
 * compute and exposed communication per phase (they add up to ev->time_ns). */
void cli_plot_times(const WeftSpec *spec, const WeftEval *ev, double *compute_ns,
                    double comm_ns[WEFT_NPHASES]);
/* "Ring(4) x FullyConnected(8) x Switch(32)" */
void cli_plot_network(const WeftNetwork *net, char *buf, size_t size);

/* sweep's figure (plot_sweep.c): the rows read twice through rewind and
 * next (0 per row in point order, non-zero at the end or on an error). */
typedef struct {
  const WeftSweep *sw;
  size_t n;    /* rows */
  int ndims;   /* most dims over the rows */
  void (*rewind)(void *ctx);
  int (*next)(void *ctx, WeftSweepRow *row);
  void *ctx;
} PlotSweep;
int cli_plot_sweep(const char *path, const char *title, const char *subtitle,
                   const PlotSweep *ps);

/* topo-eval's figure (plot_topo.c): time vs cost per fabric. */
int cli_plot_topo_eval(const char *path, const char *title, const char *subtitle,
                       const WeftEvalPoint *p, int n);
/* The same curves as a self-contained gnuplot script (`--plot FILE.gp`). */
void cli_topo_eval_script(FILE *f, const char *model, const WeftEvalPoint *p, int n);

#endif
