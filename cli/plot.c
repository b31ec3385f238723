/* plot.c — the `--plot` runner every figure shares: the format by extension
 * (.png, .svg, .pdf), a private temporary directory for the script and its
 * data files, gnuplot run there by fork/exec (the path and titles as its
 * arguments, never as script text), and the result copied to the target
 * through the shared writer; plus the axis helpers the figures use. */
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
#include "plot.h"

#define PLOT_PATH_LEN 4096
#define PLOT_MAX_FILES 48     /* data files of one figure (a sweep: a file per curve) */
#define PLOT_LOG_LINES 8      /* lines of gnuplot's own messages shown when it fails */
#define PLOT_PX_PER_INCH 150  /* a PDF is the PNG's size at this resolution: 1500 px = 10 in */
#define PLOT_PDF_FONT 1.2      /* text in a PDF, relative to the PNG's */
#define PLOT_NO_PDFCAIRO 77   /* the probe's exit status when gnuplot lacks pdfcairo */
#define PLOT_MIN_TICS 3       /* labelled ticks on any axis, at least (at most 7: see nice_step) */
#define PLOT_MAX_STEPS 6      /* tick intervals on a linear axis, at most: more crowd the
                                 labels of a PDF's larger text */
#define PLOT_LOG_PAD 1.25     /* a log axis's margin factor each side, at most (a wide span) */

struct PlotRun {
  PlotFormat fmt;
  char dir[PLOT_PATH_LEN - 64];  /* private temporary directory ("" before mkdtemp) */
  char script[PLOT_PATH_LEN], log[PLOT_PATH_LEN], out_tmp[PLOT_PATH_LEN];
  int nfiles;
  char file[PLOT_MAX_FILES][PLOT_PATH_LEN];
  FILE *f[PLOT_MAX_FILES];
};

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

int cli_plot_format_of(const char *path) {
  return ends_with_ci(path, ".png") ? PLOT_PNG
         : ends_with_ci(path, ".svg") ? PLOT_SVG
         : ends_with_ci(path, ".pdf") ? PLOT_PDF
                                      : -1;
}

static int format_of(const char *path, PlotFormat *fmt) {
  int f = cli_plot_format_of(path);
  if (f >= 0) *fmt = (PlotFormat)f;
  else {
    cli_fail("--plot '%s': unknown extension (use .png, .svg or .pdf)", path);
    return EXIT_USAGE;
  }
  if (strlen(path) > PLOT_PATH_LEN - 64) {
    cli_fail("--plot '%s': path too long", path);
    return EXIT_USAGE;
  }
  return 0;
}

/* strerror with a lowercase first letter, as every weft message. */
static const char *errmsg(int e, char *buf, size_t n) {
  snprintf(buf, n, "%s", strerror(e));
  if (buf[0] >= 'A' && buf[0] <= 'Z') buf[0] = (char)(buf[0] - 'A' + 'a');
  return buf;
}

/* ------------------------------------------------------------ gnuplot */

/* Print the first lines of gnuplot's messages, indented. */
static void show_log(const char *path) {
  FILE *f = path && path[0] ? fopen(path, "r") : NULL;
  if (!f) return;
  char line[512];
  for (int n = 0; n < PLOT_LOG_LINES && fgets(line, sizeof line, f);) {
    if (line[strspn(line, " \t\r\n")] == '\0') continue;
    fprintf(stderr, "  gnuplot: %s%s", line, strchr(line, '\n') ? "" : "\n");
    n++;
  }
  fclose(f);
}

/* Run gnuplot with argv[1..] (argv[0] is set here); stdin /dev/null, stdout
 * and stderr to log (or /dev/null when log is NULL). Returns its exit status
 * (>= 0), or prints why and returns -1 (not found, not run, killed). */
static int run_gnuplot(char **argv, const char *log) {
  char prog[] = "gnuplot", eb[128];
  int logfd = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int pfd[2] = {-1, -1}, rc = -1;
  if (logfd < 0 || nullfd < 0 || pipe(pfd)) {
    cli_fail("cannot plot: %s", errmsg(errno, eb, sizeof eb));
    goto done;
  }
  fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
  fcntl(pfd[1], F_SETFD, FD_CLOEXEC); /* closed by a successful exec: EOF for the parent */
  fflush(NULL);
  argv[0] = prog;
  pid_t pid = fork();
  if (pid < 0) {
    cli_fail("cannot plot: cannot start gnuplot: %s", errmsg(errno, eb, sizeof eb));
    goto done;
  }
  if (pid == 0) {
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
    show_log(log);
  } else {
    rc = WEXITSTATUS(status);
  }
done:
  if (pfd[0] >= 0) close(pfd[0]);
  if (pfd[1] >= 0) close(pfd[1]);
  if (logfd >= 0) close(logfd);
  if (nullfd >= 0) close(nullfd);
  return rc;
}

/* A PDF needs gnuplot's pdfcairo terminal (cairo builds: Debian's
 * gnuplot-nox, gnuplot-qt, gnuplot-x11 have it); asked before any work. */
static int probe_pdfcairo(void) {
  char e[] = "-e",
       code[] = "exit status (strstrt(' '.GPVAL_TERMINALS.' ', ' pdfcairo ') > 0 ? 0 : 77)";
  char *argv[] = {NULL, e, code, NULL};
  int st = run_gnuplot(argv, NULL);
  if (st < 0) return EXIT_RUNTIME;
  if (st == PLOT_NO_PDFCAIRO) {
    cli_fail("cannot plot a PDF: this gnuplot has no pdfcairo terminal (install one built with "
             "cairo, e.g. Debian's gnuplot-nox; or plot to .png or .svg)");
    return EXIT_RUNTIME;
  }
  if (st != 0) {
    cli_fail("cannot plot: gnuplot failed (exit status %d) listing its terminals", st);
    return EXIT_RUNTIME;
  }
  return 0;
}

int cli_plot_check(const char *path) {
  PlotFormat fmt;
  int rc = format_of(path, &fmt);
  if (!rc && fmt == PLOT_PDF) rc = probe_pdfcairo();
  return rc;
}

/* ------------------------------------------------------------ the run */

PlotFormat plot_format(const PlotRun *r) { return r->fmt; }

static void join(char *out, const char *dir, const char *name) {
  snprintf(out, PLOT_PATH_LEN, "%s/%s", dir, name);
}

FILE *plot_data(PlotRun *r, const char *name) {
  char eb[128];
  if (r->nfiles == PLOT_MAX_FILES || strpbrk(name, "'\"/\\") || strlen(name) > 40) {
    cli_fail("cannot plot: data file '%s' (internal error)", name);
    return NULL;
  }
  int k = r->nfiles;
  join(r->file[k], r->dir, name);
  if (!(r->f[k] = fopen(r->file[k], "w"))) {
    cli_fail("cannot plot: %s: %s", r->file[k], errmsg(errno, eb, sizeof eb));
    return NULL;
  }
  r->nfiles++;
  return r->f[k];
}

double plot_point_scale(const PlotRun *r) { return r->fmt == PLOT_PNG ? 1.0 : 0.6; }

void plot_terminal(PlotRun *r, FILE *g, int wpx, int hpx) {
  if (r->fmt == PLOT_SVG)
    fprintf(g, "set terminal svg size %d,%d font 'Sans,13' background rgb 'white'\n", wpx, hpx);
  else if (r->fmt == PLOT_PDF) /* the PNG's fonts (its pixels are points) scaled to the
                                  page, then larger by PLOT_PDF_FONT: a paper shrinks
                                  the figure to a column */
    fprintf(g, "set terminal pdfcairo size %.3fin,%.3fin font 'Sans,11' fontscale %.3g\n",
            (double)wpx / PLOT_PX_PER_INCH, (double)hpx / PLOT_PX_PER_INCH,
            72.0 / PLOT_PX_PER_INCH * PLOT_PDF_FONT);
  else
    fprintf(g,
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "  set terminal pngcairo size %d,%d font 'Sans,11' background rgb 'white'\n"
            "} else {\n  set terminal png size %d,%d background rgb 'white'\n}\n",
            wpx, hpx, wpx, hpx);
  fputs("set termoption noenhanced\nset output ARG1\nd = ARG2.'/'\n", g);
}

static void cleanup(PlotRun *r) {
  for (int i = 0; i < r->nfiles; i++) {
    if (r->f[i]) fclose(r->f[i]);
    unlink(r->file[i]);
  }
  if (r->dir[0]) {
    unlink(r->script);
    unlink(r->log);
    unlink(r->out_tmp);
    rmdir(r->dir);
  }
}

/* The script and its data files, closed; 0 or EXIT_RUNTIME (printed). */
static int write_script(PlotRun *r, PlotBody body, const void *ctx) {
  char eb[128];
  const char *base = getenv("TMPDIR");
  if (!base || base[0] != '/' || strlen(base) > PLOT_PATH_LEN - 256) base = "/tmp";
  snprintf(r->dir, sizeof r->dir, "%s/weft-plot-XXXXXX", base);
  if (!mkdtemp(r->dir)) {
    cli_fail("cannot plot: cannot create a temporary directory in %s: %s", base,
             errmsg(errno, eb, sizeof eb));
    r->dir[0] = '\0';
    return EXIT_RUNTIME;
  }
  join(r->script, r->dir, "plot.gp");
  join(r->log, r->dir, "gnuplot.log");
  join(r->out_tmp, r->dir, r->fmt == PLOT_SVG ? "out.svg" : r->fmt == PLOT_PDF ? "out.pdf"
                                                                                : "out.png");
  FILE *g = fopen(r->script, "w");
  if (!g) {
    cli_fail("cannot plot: %s: %s", r->script, errmsg(errno, eb, sizeof eb));
    return EXIT_RUNTIME;
  }
  fputs("# weft plot: ARG1 output file, ARG2 data directory, ARG3 title, ARG4 subtitle, "
        "ARG5 a label\n", g);
  int rc = body(r, g, ctx) ? EXIT_RUNTIME : 0;
  int bad = ferror(g) != 0;
  bad |= fclose(g) != 0;
  for (int i = 0; i < r->nfiles; i++) {
    bad |= ferror(r->f[i]) != 0;
    bad |= fclose(r->f[i]) != 0;
    r->f[i] = NULL;
  }
  if (!rc && bad) {
    cli_fail("cannot plot: cannot write the temporary files in %s", r->dir);
    rc = EXIT_RUNTIME;
  }
  return rc;
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

int cli_plot_render(const char *path, const char *title, const char *subtitle, const char *label,
                    PlotBody body, const void *ctx) {
  PlotRun *r = calloc(1, sizeof *r);
  if (!r) {
    cli_fail("out of memory");
    return EXIT_RUNTIME;
  }
  int rc = format_of(path, &r->fmt);
  if (!rc) rc = write_script(r, body, ctx);
  WeftOut *out = NULL;
  if (!rc) rc = cli_out_open(path, &out);
  if (!rc) {
    char c[] = "-c", *t = strdup(title ? title : ""), *s = strdup(subtitle ? subtitle : "");
    char *l = strdup(label ? label : "");
    char *argv[] = {NULL, c, r->script, r->out_tmp, r->dir, t, s, l, NULL};
    int st = t && s && l ? run_gnuplot(argv, r->log) : -2;
    if (st == -2) cli_fail("out of memory");
    if (st > 0) {
      cli_fail("cannot plot: gnuplot failed (exit status %d)", st);
      show_log(r->log);
    }
    free(t);
    free(s);
    free(l);
    rc = st ? EXIT_RUNTIME : 0;
  }
  if (!rc) {
    struct stat sb;
    int e;
    if (stat(r->out_tmp, &sb) || sb.st_size == 0) {
      cli_fail("cannot plot: gnuplot wrote nothing");
      show_log(r->log);
      rc = EXIT_RUNTIME;
    } else if ((e = copy_out(r->out_tmp, weft_out_stream(out))) != 0) {
      char eb[128];
      cli_fail("cannot plot: %s: %s", r->out_tmp, errmsg(e, eb, sizeof eb));
      rc = EXIT_RUNTIME;
    } else {
      rc = cli_out_commit(out);
      out = NULL;
    }
  }
  cli_out_discard(out);
  cleanup(r);
  free(r);
  return rc;
}

/* ------------------------------------------------------------ helpers */

void plot_fmt_value(char *buf, size_t n, double v) {
  double a = fabs(v);
  if (a >= 999.5 && a < 1e5) snprintf(buf, n, "%.0f", v); /* %.3g would say 1e+03 */
  else snprintf(buf, n, "%.3g", v);
}

void plot_put_label(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) fputc(*s == '"' || *s == '\\' || (unsigned char)*s < 0x20 ? '?' : *s, f);
  fputc('"', f);
}

void plot_span_add(PlotSpan *s, double v) {
  if (isfinite(v) && v <= 0.0) s->zero = 1;
  if (!isfinite(v) || v <= 0.0) return;
  if (v < s->lo) s->lo = v;
  if (v > s->hi) s->hi = v;
}

int plot_span_wide(const PlotSpan *s, double ratio) {
  return !s->zero && s->hi > 0.0 && s->hi / s->lo > ratio;
}

double plot_cost_unit(double max_usd, const char **name) {
  if (max_usd >= 1e9) return *name = "G$", 1e9;
  if (max_usd >= 1e6) return *name = "M$", 1e6;
  if (max_usd >= 1e3) return *name = "k$", 1e3;
  return *name = "$", 1.0;
}

void plot_panel(FILE *g, double x, double y, double w, double h) {
  fprintf(g,
          "reset\nset origin %g,%g\nset size %g,%g\n"
          "set style fill solid 0.85 border rgb '#404040'\n"
          "set grid lc rgb '#dddddd'\nset border lc rgb '#404040'\n",
          x, y, w, h);
}

/* The largest step of 1, 2, 2.5 or 5 x 10^k with at least PLOT_MIN_TICS
 * steps in span: successive candidates differ by at most 2x, so span holds
 * 3 to 6 steps, 3 to 7 ticks (any interval of 3 steps holds 3 multiples).
 * 2.5 only where 2 would make more than PLOT_MAX_STEPS: 0, 2, 4 ... 10
 * reads better than 0.0, 2.5 ... 10.0. */
static double nice_step(double span) {
  static const double m[] = {5, 2.5, 2, 1};
  double s = pow(10.0, floor(log10(span / PLOT_MIN_TICS))); /* <= span/3 < 10 s */
  for (int i = 0; i < 4; i++) {
    if (span / (m[i] * s) < PLOT_MIN_TICS * (1 - 1e-9)) continue;
    if (m[i] == 2.5 && span / (2 * s) <= PLOT_MAX_STEPS) return 2 * s;
    return m[i] * s;
  }
  return s;
}

/* Decimals that tell the multiples of step apart (2.5 x 10^k: one more). */
static int step_decimals(double step) {
  double k = floor(log10(step) + 1e-9), mant = step / pow(10.0, k);
  int d = k < 0 ? (int)-k : 0;
  return d + (fabs(mant - 2.5) < 1e-6 && k <= 0 ? 1 : 0);
}

/* Labelled ticks on a log axis [lo, hi]: 1-2-5 per decade when the axis is
 * short (gnuplot's own would label only the one or two powers of ten); when
 * that leaves fewer than PLOT_MIN_TICS, 1-2-3-5, then every 1..9 on an axis
 * of half a decade at most (on a longer one they crowd), and on an axis
 * narrower still linear steps, each labelled as precisely as the step
 * needs. */
static void log_tics(FILE *g, char axis, double lo, double hi) {
  static const double m125[] = {1, 2, 5}, m13[] = {1, 3}, m1[] = {1}, m1235[] = {1, 2, 3, 5},
                      m19[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  double ndec = log10(hi / lo);
  const double *set[3] = {ndec <= 2.5 ? m125 : ndec <= 5 ? m13 : m1, m1235, m19};
  int nset[3] = {ndec <= 2.5 ? 3 : ndec <= 5 ? 2 : 1, 4, ndec <= 0.5 ? 9 : 0};
  char buf[2048];
  for (int pass = 0; pass < 4; pass++) {
    int n = 0;
    size_t k = (size_t)snprintf(buf, sizeof buf, "set %ctics (", axis);
    if (pass < 3) {
      for (int e = (int)floor(log10(lo)); e <= (int)ceil(log10(hi)); e++)
        for (int i = 0; i < nset[pass] && k < sizeof buf; i++) {
          double v = set[pass][i] * pow(10.0, e);
          if (v < lo || v > hi) continue;
          char lab[32];
          plot_fmt_value(lab, sizeof lab, v);
          k += (size_t)snprintf(buf + k, sizeof buf - k, "%s'%s' %.9g", n++ ? ", " : "", lab, v);
        }
    } else { /* linear steps: 3 to 7 of them */
      double step = nice_step(hi - lo);
      int dec = step_decimals(step);
      for (double j = ceil(lo / step); j * step <= hi && k < sizeof buf; j++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s'%.*f' %.9g", n++ ? ", " : "", dec,
                              j * step, j * step);
    }
    if (n >= PLOT_MIN_TICS && k < sizeof buf - 2) {
      fprintf(g, "%s)\n", buf);
      return;
    }
  }
  fprintf(g, "set %ctics auto\nset format %c '%%g'\n", axis, axis); /* not reached */
}

void plot_set_range(FILE *g, char axis, const PlotSpan *s, int log_axis) {
  if (!(s->hi > 0.0)) return; /* nothing finite: gnuplot's autoscale */
  if (log_axis) { /* a tenth of the span's decades each side, PLOT_LOG_PAD at most (a
                     narrow span would otherwise fill a sliver of the axis) */
    double pad = s->hi > s->lo ? fmin(PLOT_LOG_PAD, pow(s->hi / s->lo, 0.1)) : 1.05;
    double lo = s->lo / pad, hi = s->hi * pad;
    fprintf(g, "set logscale %c\nset %crange [%.9g:%.9g]\n", axis, axis, lo, hi);
    log_tics(g, axis, lo, hi);
    return;
  }
  double pad = 0.05 * (s->hi - s->lo);
  if (pad <= 0.0) pad = 0.05 * s->hi;
  double lo = s->zero ? 0.0 : fmax(0.0, s->lo - pad), hi = s->hi + pad;
  fprintf(g, "set %crange [%.9g:%.9g]\n", axis, lo, hi);
  /* 3 to 7 ticks of 1, 2, 2.5 or 5 x 10^k, labelled as precisely as the
   * step needs: gnuplot's own choice crowds a PDF's larger text, and its
   * labels (6 digits) could read the same on a narrow axis */
  double step = nice_step(hi - lo);
  if (step > 0 && isfinite(step))
    fprintf(g, "set %ctics %.9g\nset format %c '%%.%df'\n", axis, step, axis,
            step_decimals(step));
}

/* gnuplot's own width of a key column (which sizes the key's box) at font
 * size 10, samplen 2, width 1, per character of the longest title plus 7:
 * measured on gnuplot 5.4's boxes (pngcairo 8 x (chars + 6) px, svg 7 x
 * (chars + 6.4), pdfcairo at 150 px per inch 10.2 x (chars + 6)). */
static double key_char_px(const PlotRun *r) {
  return r->fmt == PLOT_PNG ? 8.0 : r->fmt == PLOT_SVG ? 7.0 : 10.2;
}

size_t plot_key_max_chars(const PlotRun *r, double width_px) {
  double c = width_px / key_char_px(r) - 7.0;
  return c > 8.0 ? (size_t)c : 8;
}

PlotKey plot_key_fit(const PlotRun *r, size_t n, size_t chars, double width_px) {
  PlotKey k = {1, 1, 0.0};
  double col = key_char_px(r) * ((double)chars + 7.0);
  size_t cols = col < width_px ? (size_t)(width_px / col) : 1;
  if (cols < 1) cols = 1;
  if (n == 0) n = 1;
  size_t rows = (n + cols - 1) / cols;
  cols = (n + rows - 1) / rows; /* as few columns as those rows need: centred, balanced */
  k.cols = (int)cols;
  k.rows = (int)rows;
  k.h_px = (double)rows * (r->fmt == PLOT_PDF ? 21.0 : 17.0) + 12.0; /* a line, the box */
  return k;
}
