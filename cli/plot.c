/* plot.c — `--plot FILE`: a .png or .svg through gnuplot: Pareto front, bandwidth per dim,
 * time breakdown (chosen vs EqualBW). No user text is parsed as gnuplot code: paths
 * and title reach the script as arguments (gnuplot -c script ARG1..3, by fork/exec). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

#define PLOT_WIDE_SPAN 30.0   /* scatter axes: past ~1.5 decades the smallest values would share
                                 the bottom 3% of a linear axis; a log axis keeps them apart */
#define PLOT_WIDE_BARS 100.0  /* bars: past 2 decades (under 1% of the height a bar vanishes);
                                 below, a linear axis reads truer and labels carry the values */
#define PLOT_PATH_LEN 4096
#define PLOT_LOG_LINES 8      /* lines of gnuplot's own messages shown when it fails */

#define COLOR_CHOSEN "#1f77b4"
#define COLOR_EQUAL "#ff7f0e"

typedef enum { FMT_PNG, FMT_SVG } PlotFormat;

/* Files in the private temporary directory; all removed at the end. */
enum { F_POINTS, F_FRONT, F_MARKS, F_BW, F_TIME, F_SCRIPT, F_LOG, F_COUNT };
static const char *const tmp_name[F_COUNT] = {"points.dat", "front.dat", "marks.dat", "bw.dat",
                                              "time.dat",   "plot.gp",   "gnuplot.log"};

static const char *const part_name[1 + WEFT_NPHASES] = {"compute", "forward comm",
                                                        "input-grad comm", "weight-grad comm"};
static const char *const part_color[1 + WEFT_NPHASES] = {"#a0a0a0", "#2ca02c", "#9467bd",
                                                         "#d62728"};

static int ends_with_ci(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  if (n < m) return 0;
  for (size_t i = 0; i < m; i++) {
    char c = s[n - m + i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != suffix[i]) return 0;
  }
  return 1;
}

static int plot_format(const char *path, PlotFormat *fmt) {
  if (ends_with_ci(path, ".png")) *fmt = FMT_PNG;
  else if (ends_with_ci(path, ".svg")) *fmt = FMT_SVG;
  else {
    cli_fail("--plot '%s': unknown extension (use .png or .svg)", path);
    return EXIT_USAGE;
  }
  if (strlen(path) > PLOT_PATH_LEN - 64) { /* room for "./" and the temporary name */
    cli_fail("--plot '%s': path too long", path);
    return EXIT_USAGE;
  }
  return 0;
}

int cli_plot_check(const char *path) {
  PlotFormat fmt;
  return plot_format(path, &fmt);
}

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

/* strerror with a lowercase first letter, as every weft message. */
static const char *errmsg(int e, char *buf, size_t n) {
  snprintf(buf, n, "%s", strerror(e));
  if (buf[0] >= 'A' && buf[0] <= 'Z') buf[0] = (char)(buf[0] - 'A' + 'a');
  return buf;
}

/* A value label: three significant digits, no exponent below 1e5, no
 * trailing zeros (526, 14.1, 5, 0.685, 2000). */
static void fmt_value(char *buf, size_t n, double v) {
  double a = fabs(v);
  if (a >= 999.5 && a < 1e5) snprintf(buf, n, "%.0f", v); /* %.3g would say 1e+03 */
  else snprintf(buf, n, "%.3g", v);
}

/* Range of the finite positive values seen; zero set when a value <= 0 was
 * seen too (then no log axis, and a linear one starts at 0). */
typedef struct {
  double lo, hi;
  int zero;
} Span;

static void span_add(Span *s, double v) {
  if (isfinite(v) && v <= 0.0) s->zero = 1;
  if (!isfinite(v) || v <= 0.0) return;
  if (v < s->lo) s->lo = v;
  if (v > s->hi) s->hi = v;
}

static int span_wide(const Span *s, double ratio) {
  return !s->zero && s->hi > 0.0 && s->hi / s->lo > ratio;
}

/* The dollar unit that keeps the largest cost between 1 and 1000. */
static double cost_unit(double max_usd, const char **name) {
  if (max_usd >= 1e9) return *name = "G$", 1e9;
  if (max_usd >= 1e6) return *name = "M$", 1e6;
  if (max_usd >= 1e3) return *name = "k$", 1e3;
  return *name = "$", 1.0;
}

/* Everything one run needs; released by plot_cleanup. */
typedef struct {
  char dir[PLOT_PATH_LEN - 32];     /* private temporary directory ("" before mkdtemp) */
  char file[F_COUNT][PLOT_PATH_LEN];
  char out_tmp[PLOT_PATH_LEN];      /* gnuplot's output, in dir ("" before it is named) */
  FILE *f[F_COUNT];
} Run;

static void plot_cleanup(Run *r) {
  for (int i = 0; i < F_COUNT; i++)
    if (r->f[i]) fclose(r->f[i]);
  if (r->out_tmp[0]) unlink(r->out_tmp);
  if (r->dir[0]) {
    for (int i = 0; i < F_COUNT; i++) unlink(r->file[i]);
    rmdir(r->dir);
  }
}

static int open_files(Run *r) {
  const char *base = getenv("TMPDIR");
  if (!base || base[0] != '/' || strlen(base) > PLOT_PATH_LEN - 128) base = "/tmp";
  snprintf(r->dir, sizeof r->dir, "%s/weft-plot-XXXXXX", base);
  if (!mkdtemp(r->dir)) {
    char eb[128];
    cli_fail("cannot plot: cannot create a temporary directory in %s: %s", base,
             errmsg(errno, eb, sizeof eb));
    r->dir[0] = '\0';
    return EXIT_RUNTIME;
  }
  for (int i = 0; i < F_COUNT; i++) {
    size_t dl = strlen(r->dir); /* dir + '/' + name fits: dir is 32 shorter than file */
    memcpy(r->file[i], r->dir, dl);
    r->file[i][dl] = '/';
    strcpy(r->file[i] + dl + 1, tmp_name[i]);
    if (i == F_LOG) continue; /* gnuplot's stderr, opened for the child */
    r->f[i] = fopen(r->file[i], "w");
    if (!r->f[i]) {
      char eb[128];
      cli_fail("cannot plot: %s: %s", r->file[i], errmsg(errno, eb, sizeof eb));
      return EXIT_RUNTIME;
    }
  }
  return 0;
}

static int close_files(Run *r) {
  int bad = 0;
  for (int i = 0; i < F_COUNT; i++) {
    if (!r->f[i]) continue;
    if (ferror(r->f[i])) bad = 1;
    if (fclose(r->f[i])) bad = 1;
    r->f[i] = NULL;
  }
  if (bad) cli_fail("cannot plot: cannot write the temporary files in %s", r->dir);
  return bad ? EXIT_RUNTIME : 0;
}

/* gnuplot writes into the private directory; the result is then copied to
 * the target through cli_out_open (a temporary renamed into place, or a
 * device written through), so the target is never replaced by a rename of
 * a file gnuplot made. */
static void name_out_tmp(Run *r, PlotFormat fmt) {
  snprintf(r->out_tmp, sizeof r->out_tmp, "%s/out.%s", r->dir, fmt == FMT_SVG ? "svg" : "png");
}

/* Copy gnuplot's output to out; 0 or an errno value (write errors show at
 * the commit). */
static int copy_out(const char *from, FILE *to) {
  FILE *f = fopen(from, "rb");
  if (!f) return errno;
  char buf[8192];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, to);
  int e = ferror(f) ? EIO : 0;
  fclose(f);
  return e;
}

/* ------------------------------------------------------------ data files */

/* The next (cost_usd, time_ns) of the points stream; 0 at its end. */
static int next_point(const PlotData *pd, size_t *k, double *cost, double *time) {
  double v[2];
  if (*k >= pd->npoints || !pd->points || fread(v, sizeof v[0], 2, pd->points) != 2) return 0;
  ++*k;
  *cost = v[0];
  *time = v[1];
  return 1;
}

static void write_data(Run *r, const PlotData *pd, double cost_div) {
  FILE *f = r->f[F_POINTS];
  double pc, pt;
  size_t seen = 0;
  if (pd->points) rewind(pd->points);
  while (next_point(pd, &seen, &pc, &pt))
    if (isfinite(pc) && isfinite(pt)) fprintf(f, "%.9g %.9g\n", pc / cost_div, pt / 1e6);
  f = r->f[F_FRONT];
  for (size_t i = 0; i < pd->nfront; i++)
    if (isfinite(pd->front_cost_usd[i]) && isfinite(pd->front_time_ns[i]))
      fprintf(f, "%.9g %.9g\n", pd->front_cost_usd[i] / cost_div, pd->front_time_ns[i] / 1e6);
  /* index 0 the chosen design, index 1 EqualBW */
  fprintf(r->f[F_MARKS], "%.9g %.9g\n\n\n%.9g %.9g\n", pd->chosen_cost_usd / cost_div,
          pd->chosen_time_ns / 1e6, pd->equal_cost_usd / cost_div, pd->equal_time_ns / 1e6);
  f = r->f[F_BW];
  for (int d = 0; d < pd->ndims; d++) {
    char a[32], b[32];
    fmt_value(a, sizeof a, pd->bw_gbps[d]);
    fmt_value(b, sizeof b, pd->equal_bw_gbps[d]);
    fprintf(f, "%d %.9g %.9g \"%s\" \"%s\"\n", d + 1, pd->bw_gbps[d], pd->equal_bw_gbps[d], a, b);
  }
  /* per design: x, cumulative ends of compute, fwd, ig, wg (ms), total label */
  f = r->f[F_TIME];
  for (int k = 0; k < 2; k++) {
    double c = (k ? pd->equal_compute_ns : pd->compute_ns) / 1e6;
    const double *comm = k ? pd->equal_comm_ns : pd->comm_ns;
    char lab[32];
    fprintf(f, "%d %.9g", k + 1, c);
    for (int ph = 0; ph < WEFT_NPHASES; ph++) fprintf(f, " %.9g", c += comm[ph] / 1e6);
    fmt_value(lab, sizeof lab, c);
    fprintf(f, " \"%s ms\"\n", lab);
  }
}

/* ---------------------------------------------------------------- script */

static void panel_reset(FILE *g, double x, double y, double w, double h) {
  fprintf(g,
          "reset\nset origin %g,%g\nset size %g,%g\n"
          "set style fill solid 0.85 border rgb '#404040'\n"
          "set grid lc rgb '#dddddd'\nset border lc rgb '#404040'\n",
          x, y, w, h);
}

/* Labelled ticks on a log axis [lo, hi]: 1-2-5 per decade when the axis is
 * short (gnuplot's own would label only the one or two powers of ten). */
static void log_tics(FILE *g, char axis, double lo, double hi) {
  static const double m125[] = {1, 2, 5}, m13[] = {1, 3}, m1[] = {1};
  double ndec = log10(hi / lo);
  const double *m = ndec <= 2.5 ? m125 : ndec <= 5 ? m13 : m1;
  int nm = ndec <= 2.5 ? 3 : ndec <= 5 ? 2 : 1;
  const char *sep = "";
  fprintf(g, "set %ctics (", axis);
  for (int e = (int)floor(log10(lo)); e <= (int)ceil(log10(hi)); e++)
    for (int i = 0; i < nm; i++) {
      double v = m[i] * pow(10.0, e);
      if (v < lo || v > hi) continue;
      fprintf(g, "%s'%g' %.9g", sep, v, v);
      sep = ", ";
    }
  fputs(")\n", g);
}

/* An axis range around a span: 5% margins, never below 0 on a linear axis. */
static void set_range(FILE *g, char axis, const Span *s, int log_axis) {
  if (!(s->hi > 0.0)) return; /* nothing finite: gnuplot's autoscale */
  if (log_axis) {
    fprintf(g, "set %crange [%.9g:%.9g]\n", axis, s->lo / 1.25, s->hi * 1.25);
    log_tics(g, axis, s->lo / 1.25, s->hi * 1.25);
    return;
  }
  double pad = 0.05 * (s->hi - s->lo);
  if (pad <= 0.0) pad = 0.05 * s->hi;
  double lo = s->zero ? 0.0 : fmax(0.0, s->lo - pad);
  fprintf(g, "set %crange [%.9g:%.9g]\n", axis, lo, s->hi + pad);
}

static void script_pareto(FILE *g, const PlotData *pd, const char *cost_name, double cost_div,
                          const Span *cs, const Span *ts, double y0, double ps) {
  int logx = span_wide(cs, PLOT_WIDE_SPAN), logy = span_wide(ts, PLOT_WIDE_SPAN);
  Span csu = {cs->lo / cost_div, cs->hi / cost_div, cs->zero};
  Span tsu = {ts->lo / 1e6, ts->hi / 1e6, ts->zero};
  panel_reset(g, 0.0, y0, 1.0, 0.95 - y0);
  fprintf(g,
          "set title 'Pareto front: iteration time vs network cost'\n"
          "set xlabel 'network cost (%s)%s'\nset ylabel 'iteration time (ms)%s'\n",
          cost_name, logx ? ", log scale" : "", logy ? ", log scale" : "");
  if (logx) fputs("set logscale x\n", g);
  if (logy) fputs("set logscale y\n", g);
  set_range(g, 'x', &csu, logx);
  set_range(g, 'y', &tsu, logy);
  fputs("set key outside right top box spacing 1.3\nplot ", g); /* inside, it hides points */
  const char *sep = "";
  if (pd->npoints) {
    fprintf(g, "d.'%s' u 1:2 w p pt 7 ps %g lc rgb '#b8b8b8' t 'feasible designs'",
            tmp_name[F_POINTS], 0.45 * ps);
    sep = ", \\\n  ";
  }
  if (pd->nfront) {
    fprintf(g, "%sd.'%s' u 1:2 w lp pt 7 ps %g lw 2 lc rgb '#303030' t 'Pareto front'", sep,
            tmp_name[F_FRONT], 0.8 * ps);
    sep = ", \\\n  ";
  }
  if (isfinite(pd->equal_cost_usd) && isfinite(pd->equal_time_ns)) {
    fprintf(g, "%sd.'%s' index 1 u 1:2 w p pt 9 ps %g lc rgb '%s' t 'EqualBW'", sep,
            tmp_name[F_MARKS], 2.6 * ps, COLOR_EQUAL);
    sep = ", \\\n  ";
  }
  if (isfinite(pd->chosen_cost_usd) && isfinite(pd->chosen_time_ns))
    fprintf(g, "%sd.'%s' index 0 u 1:2 w p pt 13 ps %g lc rgb '%s' t 'chosen design'", sep,
            tmp_name[F_MARKS], 2.6 * ps, COLOR_CHOSEN);
  fputs("\n", g);
}

static void script_bw(FILE *g, const PlotData *pd, double x0, double w, double h) {
  Span s = {HUGE_VAL, 0.0, 0};
  for (int d = 0; d < pd->ndims; d++) {
    span_add(&s, pd->bw_gbps[d]);
    span_add(&s, pd->equal_bw_gbps[d]);
  }
  int logy = span_wide(&s, PLOT_WIDE_BARS);
  double hi = s.hi > 0.0 ? s.hi : 1.0;
  panel_reset(g, x0, 0.0, w, h);
  fprintf(g,
          "set title 'bandwidth per dimension'\nset xlabel 'network dimension'\n"
          "set ylabel 'bandwidth per NPU (GB/s)%s'\nset xrange [0.4:%g]\nset xtics (",
          logy ? ", log scale" : "", pd->ndims + 0.6);
  for (int d = 0; d < pd->ndims; d++) fprintf(g, "%s'dim %d' %d", d ? ", " : "", d + 1, d + 1);
  fputs(") scale 0\nset grid noxtics ytics\nset bmargin 4\n", g); /* as the time panel */
  double base = 0.0;
  if (logy) { /* a decade below the smallest bar, headroom above for the key */
    base = pow(10.0, floor(log10(s.lo)));
    if (base >= s.lo) base /= 10.0; /* s.lo a power of 10: keep its bar visible */
    /* the range just under base keeps base's tick, which gnuplot drops at the edge */
    fprintf(g, "set logscale y\nset yrange [%g:%g]\n", base * 0.999, hi * 4.0);
    log_tics(g, 'y', base * 0.999, hi * 4.0);
  } else {
    fprintf(g, "set yrange [0:%g]\n", hi * 1.3);
  }
  fprintf(g,
          "set key top right horizontal box opaque\n"
          "plot d.'%s' u ($1-0.2):2:($1-0.38):($1-0.02):(%g):2 w boxxyerror lc rgb '%s' "
          "t 'chosen design', \\\n"
          "  '' u ($1+0.2):3:($1+0.02):($1+0.38):(%g):3 w boxxyerror lc rgb '%s' t 'EqualBW', \\\n"
          "  '' u ($1-0.2):2:4 w labels offset 0,0.7 font ',10' notitle, \\\n"
          "  '' u ($1+0.2):3:5 w labels offset 0,0.7 font ',10' notitle\n",
          tmp_name[F_BW], base, COLOR_CHOSEN, base, COLOR_EQUAL);
}

static void script_time(FILE *g, const PlotData *pd, const char *cost_name, double cost_div,
                        double x0, double w, double h) {
  double tot[2] = {pd->compute_ns, pd->equal_compute_ns};
  double part_max[1 + WEFT_NPHASES] = {fmax(pd->compute_ns, pd->equal_compute_ns)};
  for (int ph = 0; ph < WEFT_NPHASES; ph++) {
    tot[0] += pd->comm_ns[ph];
    tot[1] += pd->equal_comm_ns[ph];
    part_max[1 + ph] = fmax(pd->comm_ns[ph], pd->equal_comm_ns[ph]);
  }
  double hi = fmax(tot[0], tot[1]) / 1e6;
  if (!(hi > 0.0) || !isfinite(hi)) hi = 1.0;
  panel_reset(g, x0, 0.0, w, h);
  fputs("set title 'iteration time breakdown", g);
  if (tot[0] > 0.0 && isfinite(tot[1] / tot[0]))
    fprintf(g, " (EqualBW / chosen = %.2fx)", tot[1] / tot[0]);
  char cost[2][32]; /* each design's network cost under its name */
  fmt_value(cost[0], sizeof cost[0], pd->chosen_cost_usd / cost_div);
  fmt_value(cost[1], sizeof cost[1], pd->equal_cost_usd / cost_div);
  char eq_label[64]; /* NaN: no equal split meets the constraints */
  if (isfinite(pd->equal_cost_usd)) snprintf(eq_label, sizeof eq_label, "cost %s %s", cost[1], cost_name);
  else snprintf(eq_label, sizeof eq_label, "none meets the constraints");
  fprintf(g,
          "'\nset ylabel 'time per iteration (ms)'\nset bmargin 4\n"
          "set xrange [0.4:2.6]\nset xtics (\"chosen design\\ncost %s %s\" 1, "
          "\"EqualBW\\n%s\" 2) scale 0\nset grid noxtics ytics\n"
          "set yrange [0:%g]\nset key outside right top box invert\nplot ",
          cost[0], cost_name, eq_label, hi * 1.2);
  /* component k spans columns k+1 (0 for compute) .. k+2 of time.dat */
  const char *sep = "";
  for (int k = 0; k <= WEFT_NPHASES; k++) {
    if (!(part_max[k] > 0.0)) continue; /* absent for both designs: no empty key entry */
    char lo[16];
    if (k) snprintf(lo, sizeof lo, "$%d", k + 1);
    else snprintf(lo, sizeof lo, "0");
    fprintf(g, "%sd.'%s' u 1:%d:($1-0.3):($1+0.3):(%s):%d w boxxyerror lc rgb '%s' t '%s'", sep,
            tmp_name[F_TIME], k + 2, lo, k + 2, part_color[k], part_name[k]);
    sep = ", \\\n  ";
  }
  fprintf(g, "%sd.'%s' u 1:5:6 w labels offset 0,0.8 notitle\n", sep, tmp_name[F_TIME]);
}

static void write_script(Run *r, const PlotData *pd, PlotFormat fmt) {
  FILE *g = r->f[F_SCRIPT];
  int pareto = pd->npoints > 0;
  int wpx = 1200, hpx = pareto ? 1000 : 520;
  Span cs = {HUGE_VAL, 0.0, 0}, ts = {HUGE_VAL, 0.0, 0};
  double c, t;
  size_t k = 0;
  if (pd->points) rewind(pd->points);
  while (next_point(pd, &k, &c, &t)) {
    span_add(&cs, c);
    span_add(&ts, t);
  }
  span_add(&cs, pd->chosen_cost_usd);
  span_add(&cs, pd->equal_cost_usd);
  span_add(&ts, pd->chosen_time_ns);
  span_add(&ts, pd->equal_time_ns);
  const char *cost_name;
  double cost_div = cost_unit(cs.hi, &cost_name);
  write_data(r, pd, cost_div);

  fputs("# weft plot: ARG1 output file, ARG2 data directory, ARG3 title\n", g);
  if (fmt == FMT_SVG)
    fprintf(g, "set terminal svg size %d,%d font 'Sans,13' background rgb 'white'\n",
            wpx, hpx);
  else
    fprintf(g,
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "  set terminal pngcairo size %d,%d font 'Sans,11' background rgb 'white'\n"
            "} else {\n  set terminal png size %d,%d background rgb 'white'\n}\n",
            wpx, hpx, wpx, hpx);
  fputs("set termoption noenhanced\nset output ARG1\nd = ARG2.'/'\n"
        "if (strlen(ARG3) > 0) { set multiplot title ARG3 font ',14' } else { set multiplot }\n",
        g);
  double h = pareto ? 0.46 : 0.93; /* the multiplot title takes the top strip */
  double ps = fmt == FMT_SVG ? 0.6 : 1.0; /* svg draws the same point size larger */
  if (pareto) script_pareto(g, pd, cost_name, cost_div, &cs, &ts, 0.49, ps);
  script_bw(g, pd, 0.0, 0.5, h);
  script_time(g, pd, cost_name, cost_div, 0.5, 0.5, h);
  fputs("unset multiplot\nset output\n", g);
}

/* ---------------------------------------------------------------- gnuplot */

/* Print the first lines of gnuplot's messages, indented. */
static void show_log(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[512];
  for (int n = 0; n < PLOT_LOG_LINES && fgets(line, sizeof line, f);) {
    if (line[strspn(line, " \t\r\n")] == '\0') continue;
    fprintf(stderr, "  gnuplot: %s%s", line, strchr(line, '\n') ? "" : "\n");
    n++;
  }
  fclose(f);
}

/* Run gnuplot -c script out dir title; stdout and stderr to the log.
 * Returns 0, or prints why and returns EXIT_RUNTIME. */
static int run_gnuplot(Run *r, const char *title) {
  char prog[] = "gnuplot", flag[] = "-c";
  char *t = strdup(title ? title : "");
  int logfd = open(r->file[F_LOG], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int pfd[2] = {-1, -1}, rc = EXIT_RUNTIME;
  char eb[128];
  if (!t || logfd < 0 || nullfd < 0 || pipe(pfd)) {
    cli_fail("cannot plot: %s", errmsg(errno, eb, sizeof eb));
    goto done;
  }
  fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
  fcntl(pfd[1], F_SETFD, FD_CLOEXEC); /* closed by a successful exec: EOF for the parent */
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    cli_fail("cannot plot: cannot start gnuplot: %s", errmsg(errno, eb, sizeof eb));
    goto done;
  }
  if (pid == 0) {
    char *argv[] = {prog, flag, r->file[F_SCRIPT], r->out_tmp, r->dir, t, NULL};
    if (dup2(nullfd, 0) >= 0 && dup2(logfd, 1) >= 0 && dup2(logfd, 2) >= 0) execvp(prog, argv);
    int e = errno;
    ssize_t wr = write(pfd[1], &e, sizeof e);
    (void)wr;
    _exit(127);
  }
  close(pfd[1]);
  pfd[1] = -1;
  int child_errno = 0;
  ssize_t n;
  do n = read(pfd[0], &child_errno, sizeof child_errno);
  while (n < 0 && errno == EINTR);
  int status = 0;
  pid_t w;
  do w = waitpid(pid, &status, 0);
  while (w < 0 && errno == EINTR);
  if (n == (ssize_t)sizeof child_errno) {
    if (child_errno == ENOENT)
      cli_fail("cannot plot: gnuplot not found (Debian: apt-get install gnuplot-nox)");
    else
      cli_fail("cannot plot: cannot run gnuplot: %s", errmsg(child_errno, eb, sizeof eb));
  } else if (w < 0) {
    cli_fail("cannot plot: waiting for gnuplot: %s", errmsg(errno, eb, sizeof eb));
  } else if (WIFSIGNALED(status)) {
    cli_fail("cannot plot: gnuplot killed by signal %d", WTERMSIG(status));
    show_log(r->file[F_LOG]);
  } else if (WEXITSTATUS(status) != 0) {
    cli_fail("cannot plot: gnuplot failed (exit status %d)", WEXITSTATUS(status));
    show_log(r->file[F_LOG]);
  } else {
    rc = 0;
  }
done:
  if (pfd[0] >= 0) close(pfd[0]);
  if (pfd[1] >= 0) close(pfd[1]);
  if (logfd >= 0) close(logfd);
  if (nullfd >= 0) close(nullfd);
  free(t);
  return rc;
}

int cli_plot(const char *path, const PlotData *pd) {
  PlotFormat fmt;
  int rc = plot_format(path, &fmt);
  if (rc) return rc;
  if (pd->ndims < 1 || pd->ndims > WEFT_MAX_DIMS) {
    cli_fail("cannot plot: %d dims (expected 1 to %d)", pd->ndims, WEFT_MAX_DIMS);
    return EXIT_RUNTIME;
  }
  Run r;
  memset(&r, 0, sizeof r);
  rc = open_files(&r);
  if (!rc) {
    write_script(&r, pd, fmt);
    rc = close_files(&r);
  }
  WeftOut *out = NULL;
  if (!rc) {
    name_out_tmp(&r, fmt);
    rc = cli_out_open(path, &out);
  }
  if (!rc) rc = run_gnuplot(&r, pd->title);
  if (!rc) {
    struct stat st;
    int e;
    if (stat(r.out_tmp, &st) || st.st_size == 0) {
      cli_fail("cannot plot: gnuplot wrote nothing");
      show_log(r.file[F_LOG]);
      rc = EXIT_RUNTIME;
    } else if ((e = copy_out(r.out_tmp, weft_out_stream(out))) != 0) {
      char eb[128];
      cli_fail("cannot plot: %s: %s", r.out_tmp, errmsg(e, eb, sizeof eb));
      rc = EXIT_RUNTIME;
    } else {
      rc = cli_out_commit(out);
      out = NULL;
    }
  }
  cli_out_discard(out);
  plot_cleanup(&r);
  return rc;
}
