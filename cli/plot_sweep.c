/* plot_sweep.c — `sweep --plot`: the results against a swept value. The x
 * axis is the last numeric field with several values (else the point
 * index); every combination of the other swept fields is a curve. Panels:
 * iteration time with its compute part dashed (the gap above it is exposed
 * communication), network cost, and per-dim bandwidth (one curve) or time vs
 * cost (several, log cost). Every curve with a point ok has a colour and
 * marker of its own and a key entry (past SWEEP_MAX_CURVES, the rest grey,
 * together); a curve with none is named in a note, by why. Rows are read
 * twice from the caller's stream: ranges and the curves' counts first, then
 * the data files; none are held in memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plot.h"

#define SWEEP_MAX_CURVES 40   /* curves with a key entry (a file each); the rest drawn grey,
                                 together: past 40 a key stops being read */
#define SWEEP_WIDE 30.0       /* an axis spanning more than this ratio is logarithmic */
#define SWEEP_W 1500
#define SWEEP_TIC_CHARS 32    /* a point's tick label is cut to this (x the point index) */
#define SWEEP_TITLE_PX 110    /* the figure's title and the panels' titles, above the plots */
#define SWEEP_PLOT_PX 360     /* a plot's height */
#define SWEEP_AXIS_PX 95      /* the x tick labels and axis label, below a plot */
#define SWEEP_NOTE_NAMES 6    /* curves named in the note, per reason, at most */
#define SWEEP_NOTE_PX 16      /* a line of the note */
#define SWEEP_REST ((size_t)-1)     /* a curve's file: rest.dat */
#define SWEEP_NONE ((size_t)-2)     /* a curve's file: none, no point ok */

#define NPALETTE 10
static const char *const palette[NPALETTE] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
    "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
/* filled circle, square, triangle up and down, diamond, pentagon, an open
 * circle: 7 markers against 10 colours, 70 pairs, each curve its own */
#define NMARKER 7
static const int marker[NMARKER] = {7, 5, 9, 11, 13, 15, 6};
#define MSG_(name, msg) msg,
static const char *const status_msg[] = {WEFT_POINT_STATUS_MAP(MSG_)};
#undef MSG_

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
  size_t *first;        /* per curve: its first point */
  size_t *cok;          /* per curve: its points ok */
  int *why;             /* per curve: the status of its first point not ok */
  size_t *file;         /* per curve: its data file c<file>.dat, SWEEP_REST or SWEEP_NONE */
  size_t nkeyed;        /* curves with a file (and a key entry) */
  size_t nrest;         /* curves with a point ok past SWEEP_MAX_CURVES: rest.dat */
  size_t title_chars;   /* a key title's characters, at most (cut to fit) */
  size_t key_chars;     /* the longest key title */
  PlotKey key;
  int nnote;            /* lines of the note (curves not drawn, by why) */
  int sorted;           /* the x field's values ascend as listed */
  PlotSpan xs, ts, cs, bs;
  double cost_div;
  const char *cost_name;
  size_t nok;
  size_t tic_chars;     /* the longest point label (x is the point index) */
  double hpx;           /* the figure's height: taller for vertical point labels */
  double key_top;       /* the keys' top edge (screen) */
  double bottom;        /* the plots' bottom edge (screen): tick labels, axis label,
                           the key and the note below them */
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
  free(s->first);
  free(s->cok);
  free(s->why);
  free(s->file);
}

/* "tp=8, mb=2": the curve's values (of point i, on it), cut to max
 * characters ("..." at the end) when max > 0. Returns its length. */
static size_t curve_name(const Sw *s, size_t i, char *buf, size_t size, size_t max) {
  size_t k = 0;
  buf[0] = '\0';
  for (int f = 0; f < s->nf && k < size; f++)
    if (f != s->xf && s->nv[f] > 1)
      k += (size_t)snprintf(buf + k, size - k, "%s%s=%s", k ? ", " : "",
                            weft_sweep_field(s->ps->sw, f), weft_sweep_value(s->ps->sw, i, f));
  if (!buf[0]) snprintf(buf, size, "every point");
  if (max > 3 && strlen(buf) > max) strcpy(buf + max - 3, "...");
  return strlen(buf);
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

/* Pass 1: ranges, the ok count and each curve's, then the curves' files:
 * the first SWEEP_MAX_CURVES with a point ok, in curve order. -1 when out of
 * memory (printed). */
static int spans(Sw *s) {
  const PlotSweep *ps = s->ps;
  WeftSweepRow row;
  PlotSpan e = PLOT_SPAN_EMPTY;
  s->xs = s->ts = s->cs = s->bs = e;
  s->first = malloc(s->ncurves * sizeof *s->first);
  s->cok = calloc(s->ncurves, sizeof *s->cok);
  s->why = malloc(s->ncurves * sizeof *s->why);
  s->file = malloc(s->ncurves * sizeof *s->file);
  if (!s->first || !s->cok || !s->why || !s->file) {
    cli_fail("out of memory");
    return -1;
  }
  for (size_t c = 0; c < s->ncurves; c++) {
    s->first[c] = SWEEP_NONE;
    s->why[c] = WEFT_POINT_OK;
  }
  ps->rewind(ps->ctx);
  for (size_t i = 0; i < ps->n && !ps->next(ps->ctx, &row); i++) {
    size_t c = curve_of(s, i);
    if (s->first[c] == SWEEP_NONE) s->first[c] = i;
    if (row.status != WEFT_POINT_OK) {
      if (s->why[c] == WEFT_POINT_OK) s->why[c] = (int)row.status;
      continue;
    }
    s->nok++;
    s->cok[c]++;
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
  char name[512];
  for (size_t c = 0; c < s->ncurves; c++) {
    if (!s->cok[c]) s->file[c] = SWEEP_NONE;
    else if (s->nkeyed == SWEEP_MAX_CURVES) s->file[c] = SWEEP_REST, s->nrest++;
    else {
      s->file[c] = s->nkeyed++;
      size_t len = curve_name(s, s->first[c], name, sizeof name, s->title_chars);
      if (len > s->key_chars) s->key_chars = len;
    }
  }
  return 0;
}

/* Pass 2: one file per keyed curve (a header line with its name, then x,
 * time, compute, cost, B1..BD), "rest.dat" for the others (a break between
 * two curves' points); "note.dat", the curves with no point ok by why. */
static int write_curves(PlotRun *r, Sw *s, FILE **f) {
  const PlotSweep *ps = s->ps;
  for (size_t c = 0; c <= s->nkeyed; c++) {
    char name[32];
    if (c == s->nkeyed) {
      if (!s->nrest) break;
      snprintf(name, sizeof name, "rest.dat");
    } else {
      snprintf(name, sizeof name, "c%zu.dat", c);
    }
    if (!(f[c] = plot_data(r, name))) return -1;
  }
  char label[512];
  for (size_t c = 0; c < s->ncurves; c++) /* the headers: columnheader(1) is the title */
    if (s->file[c] < s->nkeyed) {
      curve_name(s, s->first[c], label, sizeof label, s->title_chars);
      plot_put_label(f[s->file[c]], label);
      fputs(" x\n", f[s->file[c]]);
    }
  WeftSweepRow row;
  size_t last_rest = SWEEP_NONE;
  ps->rewind(ps->ctx);
  for (size_t i = 0; i < ps->n && !ps->next(ps->ctx, &row); i++) {
    size_t c = curve_of(s, i), k = s->file[c];
    if (k == SWEEP_NONE) continue;
    FILE *o = k == SWEEP_REST ? f[s->nkeyed] : f[k];
    if (k == SWEEP_REST && c != last_rest) fputc('\n', o); /* no line across curves */
    if (k == SWEEP_REST) last_rest = c;
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
  return 0;
}

/* The note: per reason a curve has no point ok, "does not fit in memory
 * (not drawn): A; B; and 3 more", a line each of at most max characters
 * and SWEEP_NOTE_NAMES names; written to note.dat (the script reads it by
 * stats: no user text in the script). Returns the lines, -1 (printed). */
static int write_note(PlotRun *r, const Sw *s, size_t max) {
  int lines = 0;
  FILE *f = NULL;
  char name[512], line[2048];
  if (max > sizeof line - 1) max = sizeof line - 1;
  for (int st = 0; st < WEFT_POINT_NSTATUS; st++) {
    if (st == WEFT_POINT_OK) continue;
    size_t n = 0, named = 0, k = 0;
    for (size_t c = 0; c < s->ncurves; c++) {
      if (s->file[c] != SWEEP_NONE || s->why[c] != st) continue;
      if (n++ == 0) k = (size_t)snprintf(line, sizeof line, "%s (not drawn): ", status_msg[st]);
      size_t len = curve_name(s, s->first[c], name, sizeof name, s->title_chars);
      if (named == n - 1 && named < SWEEP_NOTE_NAMES && k + len + 2 + 16 <= max) {
        k += (size_t)snprintf(line + k, sizeof line - k, "%s%s", named ? "; " : "", name);
        named++;
      }
    }
    if (!n) continue;
    if (n > named) /* 16 characters kept for this */
      snprintf(line + k, sizeof line - k, "%sand %zu more", named ? "; " : "", n - named);
    if (!f && !(f = plot_data(r, "note.dat"))) return -1;
    plot_put_label(f, line);
    fputc('\n', f);
    lines++;
  }
  return lines;
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

/* Curve c's colour and marker: its own pair (see marker). */
static void curve_style(FILE *g, size_t c, double ps, int points) {
  if (points) fprintf(g, " pt %d ps %g", marker[c % NMARKER], ps);
  fprintf(g, " lc rgb '%s'", palette[c % NPALETTE]);
}

/* The curves of one panel: y (a using expression such as "$2") of every
 * file, as style (with points, or a line of dash type dt when dt > 0),
 * titled by their headers or not. The grey rest first, under the others;
 * its key entry last (a NaN function: a title, nothing drawn). */
static void curves(FILE *g, const Sw *s, const char *y, double lw, double ps, int dt,
                   int titled) {
  const char *smooth = s->xf >= 0 && !s->sorted ? " smooth unique" : "";
  char grey[64];
  snprintf(grey, sizeof grey, " w %s lw %g", dt > 0 ? "l" : "lp", lw);
  if (dt > 0) snprintf(grey + strlen(grey), sizeof grey - strlen(grey), " dt %d", dt);
  else snprintf(grey + strlen(grey), sizeof grey - strlen(grey), " pt 7 ps %g", ps);
  if (s->nrest)
    fprintf(g, "d.'rest.dat' u 1:(%s)%s lc rgb '#c0c0c0' notitle%s", y, grey,
            s->nkeyed ? ", \\\n  " : "");
  for (size_t c = 0; c < s->nkeyed; c++) {
    fprintf(g, "%sd.'c%zu.dat' u 1:(%s)%s w %s lw %g", c ? ", \\\n  " : "", c, y, smooth,
            dt > 0 ? "l" : "lp", lw);
    if (dt > 0) fprintf(g, " dt %d", dt);
    curve_style(g, c, ps, dt <= 0);
    fputs(titled ? " t columnheader(1)" : " notitle", g);
  }
  if (s->nrest && titled)
    fprintf(g, ", \\\n  NaN%s lc rgb '#c0c0c0' t '%zu other curves'", grey, s->nrest);
  if (!s->nkeyed && !s->nrest) fputs("NaN notitle", g); /* no point ok */
}

/* The point index's tick labels (no numeric x): the last column of c0.dat. */
static void index_tics(FILE *g, const Sw *s) {
  if (s->xf < 0) fprintf(g, ", \\\n  d.'c0.dat' u 1:(NaN):xtic(%d) notitle", 5 + s->ps->ndims);
}

static void panel_frame(FILE *g, const Sw *s, double x0, double w, const char *title) {
  double top = 1.0 - (double)SWEEP_TITLE_PX / s->hpx, bottom = s->bottom;
  plot_panel(g, x0, 0.0, w, 1.0);
  fprintf(g, "set title '%s'\nset lmargin at screen %g\nset rmargin at screen %g\n"
             "set bmargin at screen %g\nset tmargin at screen %g\n",
          title, x0 + 0.06, x0 + w - 0.015, bottom, top);
}

static void script(FILE *g, const Sw *s, double ps);

static int body(PlotRun *r, FILE *g, const void *ctx) {
  Sw s;
  memset(&s, 0, sizeof s);
  s.ps = ctx;
  int rc = layout(&s);
  if (!rc) {
    /* a key title fits a column of the figure's width; past it, cut */
    s.title_chars = plot_key_max_chars(r, SWEEP_W - 40);
    rc = spans(&s);
  }
  FILE *f[SWEEP_MAX_CURVES + 1] = {NULL};
  if (!rc) rc = write_curves(r, &s, f);
  /* the note is text as drawn, about 7/8 of gnuplot's estimate for a key */
  int nnote = rc ? -1 : write_note(r, &s, plot_key_max_chars(r, (SWEEP_W - 40) * 8.0 / 7) + 7);
  if (!rc && nnote >= 0) {
    s.nnote = nnote;
    size_t nkey = s.nkeyed + (s.nrest ? 1 : 0), chars = s.key_chars;
    if (s.nrest && chars < 20) chars = 20; /* "41 other curves" */
    if (s.ncurves == 1 && s.ps->ndims > 0) nkey = (size_t)s.ps->ndims, chars = 3; /* B1..BD */
    s.key = plot_key_fit(r, nkey, chars, SWEEP_W - 40);
    double key_px = nkey > 1 || s.ncurves > 1 ? s.key.h_px + 12.0 : 0.0;
    double note_px = s.nnote ? SWEEP_NOTE_PX * s.nnote + 6.0 : 0.0;
    double below = 10.0 + note_px + key_px; /* under the axis labels */
    s.hpx = SWEEP_TITLE_PX + SWEEP_PLOT_PX + SWEEP_AXIS_PX + 6.5 * (double)s.tic_chars + below;
    /* vertical tick labels: about 6.5 px a character at 9 pt */
    s.bottom = (below + SWEEP_AXIS_PX + 6.5 * (double)s.tic_chars) / s.hpx;
    s.key_top = (below - 6.0) / s.hpx;
    plot_terminal(r, g, SWEEP_W, (int)s.hpx);
    script(g, &s, plot_point_scale(r));
  }
  layout_free(&s);
  return rc || nnote < 0 ? -1 : 0;
}

/* The key of the curves (or of the dims), below the panels, centred. */
static void key_below(FILE *g, const Sw *s, double x) {
  fprintf(g,
          "set key at screen %g, screen %g center top maxcols %d maxrows %d box samplen 2 "
          "font ',10' width 1\n",
          x, s->key_top, s->key.cols, s->key.rows);
}

static void script(FILE *g, const Sw *sw, double ps) {
  Sw s = *sw;
  double w = 1.0 / 3;
  fputs("t = ARG3\nif (strlen(ARG4) > 0) { t = t.\"\\n\".ARG4 }\n", g);
  /* the curves with no point ok, a line per reason, under the key */
  for (int k = 0; k < s.nnote; k++)
    fprintf(g, "note%d = ''\nstats d.'note.dat' every ::%d::%d u (note%d = strcol(1), 0) "
               "nooutput\n", k, k, k, k);
  fputs("set multiplot title t font ',13'\nset datafile missing 'NaN'\n", g);
  int nd = s.ps->ndims;
  /* iteration time, compute dashed */
  panel_frame(g, &s, 0.0, w, "iteration time (dashed: its compute part)");
  for (int k = 0; k < s.nnote; k++)
    fprintf(g, "set label %d note%d at screen 0.5, screen %g center font ',10'\n", k + 1, k,
            (10.0 + SWEEP_NOTE_PX * (s.nnote - k - 0.5)) / s.hpx);
  x_axis(g, &s);
  int logt = plot_span_wide(&s.ts, SWEEP_WIDE);
  if (!logt) s.ts.zero = 1; /* from 0: the compute and communication parts read to scale */
  plot_set_range(g, 'y', &s.ts, logt);
  fprintf(g, "set ylabel 'time per iteration (ms)%s'\n", logt ? ", log scale" : "");
  if (s.ncurves > 1) key_below(g, &s, 0.5);
  else fputs("unset key\n", g);
  fputs("plot ", g);
  curves(g, &s, "$2", 2, 0.8 * ps, 0, s.ncurves > 1);
  fputs(", \\\n  ", g);
  curves(g, &s, "$3", 1.5, 0.8 * ps, 2, 0);
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
  curves(g, &s, "$4", 2, 0.8 * ps, 0, 0);
  index_tics(g, &s);
  fputs("\n", g);
  if (s.ncurves == 1 && nd > 0) { /* one curve: its bandwidth per dim */
    panel_frame(g, &s, 2 * w, w, "bandwidth per dimension");
    x_axis(g, &s);
    int logb = plot_span_wide(&s.bs, SWEEP_WIDE);
    if (!logb) s.bs.zero = 1;
    plot_set_range(g, 'y', &s.bs, logb);
    fprintf(g, "set ylabel 'bandwidth per NPU (GB/s)%s'\n", logb ? ", log scale" : "");
    key_below(g, &s, 2.5 * w);
    fputs("plot ", g);
    for (int d = 0; d < nd && d < WEFT_MAX_DIMS; d++)
      fprintf(g, "%sd.'c0.dat' u 1:%d w lp lw 2 pt %d ps %g lc rgb '%s' t 'B%d'", d ? ", \\\n  " : "",
              5 + d, 4 + 2 * (d % 6), 0.8 * ps, palette[(d + 3) % NPALETTE], d + 1);
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
    if (s.nrest) /* under the others */
      fprintf(g, "d.'rest.dat' u 4:2 w lp lw 1 pt 7 ps %g lc rgb '#c0c0c0' notitle%s", 0.8 * ps,
              s.nkeyed ? ", \\\n  " : "");
    for (size_t c = 0; c < s.nkeyed; c++) {
      fprintf(g, "%sd.'c%zu.dat' u 4:2 w lp lw 1", c ? ", \\\n  " : "", c);
      curve_style(g, c, 0.8 * ps, 1);
      fputs(" notitle", g);
    }
    if (!s.nkeyed) fputs("NaN notitle", g);
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
