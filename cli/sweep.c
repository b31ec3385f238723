/* sweep.c — `weft sweep SPEC.yml`: every point of a scenario with swept
 * values, solved exactly; one CSV row (or JSON object) per point. Rows are
 * evaluated chunk by chunk and kept in a temporary file, not in memory, until
 * the verdict (and the CSV's bw columns) are known. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "mpi.h"
#include "opts.h"
#include "plot.h"
#include "progress.h"

enum { O_THREADS, O_CSV, O_JSON, O_PLOT, O_QUIET, O_PROGRESS, O_ZOO, O_HELP, O_COUNT };

/* One row per option: drives parsing and --help alike. */
static const CliOpt opts[O_COUNT] = {
    [O_THREADS] = {"--threads", "N", "worker threads (default: every core); rows do not depend on it"},
    [O_CSV] = {"--csv", "FILE", "write the CSV to FILE instead of stdout"},
    [O_JSON] = {"--json", NULL, "print one JSON object (instead of the CSV on stdout)"},
    [O_PLOT] = {"--plot", "FILE", "time, cost and bandwidth against the swept values:\n"
                "                        .png, .svg or .pdf (gnuplot)"},
    [O_QUIET] = {"--quiet", NULL, "no size line, progress bar or note about points not ok"},
    [O_PROGRESS] = {"--progress", "S", "seconds between progress lines when stderr is not a\n"
                    "                        terminal (default 5; 0: none; --quiet: 0)"},
    [O_ZOO] = {"--zoo", "DIR", "model zoo directory (default: $WEFT_ZOO or data/zoo)"},
    [O_HELP] = {"--help", NULL, "this help"},
};

static void help(FILE *out) {
  const char *val[O_COUNT];
  CliOptSet set = {opts, O_COUNT, val, -1, NULL, 0, NULL};
  fputs("usage: weft sweep SPEC.yml [options]\n\n"
        "A scenario (docs/scenario.md) in which any value may be swept:\n"
        "  tp: {sweep: [4, 8, 16]}                 the values listed (any YAML values)\n"
        "  bw: {range: [100, 1000, 100]}           from, to, step; both ends included\n"
        "  mb: {range: [1, 64], times: 2}          1, 2, 4, ..., 64\n"
        "  - {range: [500, 2000, 500], format: \"sum = {}\"}   the value written into text\n"
        "Every point of the cartesian product is solved as 'weft optimize' would;\n"
        "one row per point: point, the swept fields' paths, status, time_ns,\n"
        "cost_usd, objective, bw_gbps_1..D, gap, message. Exit 0 when some point is\n"
        "ok, 1 when none, 2 bad input (also when every point is invalid input).\n\n"
        "options:\n",
        out);
  cli_opts_help(out, &set, 1);
}

/* ------------------------------------------------------------------ writers */

/* Short status names for CSV and JSON, as `weft codesign` writes them. */
static const char *token(WeftPointStatus s) {
  static const char *const names[] = {"ok", "no_memory", "invalid",
                                      "infeasible", "unbounded", "failed"};
  enum { N_ = 0
#define SW_COUNT_(name, msg) +1
                WEFT_POINT_STATUS_MAP(SW_COUNT_)
#undef SW_COUNT_
  };
  _Static_assert(sizeof names / sizeof names[0] == N_, "one name per WEFT_POINT_* status");
  return (size_t)s < N_ ? names[s] : "unknown";
}

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

static void csv_num(FILE *f, int ok, double v) {
  if (ok && isfinite(v)) fprintf(f, ",%.10g", v);
  else fputc(',', f);
}

typedef struct {
  const WeftSweep *sw;
  FILE *rows;  /* every row, in point order (row_put), read back by row_get */
  size_t n;
  int ndims;  /* most dims over the points: the bw_gbps columns */
} Out;

/* A row in the file: the fixed part, the message's length, its bytes. */
static int row_put(FILE *f, const WeftSweepRow *r) {
  uint16_t len = (uint16_t)strnlen(r->message, sizeof r->message - 1);
  return fwrite(r, offsetof(WeftSweepRow, message), 1, f) == 1 &&
                 fwrite(&len, sizeof len, 1, f) == 1 && fwrite(r->message, 1, len, f) == len
             ? 0
             : -1;
}

static int row_get(FILE *f, WeftSweepRow *r) {
  uint16_t len = 0;
  memset(r, 0, sizeof *r);
  if (fread(r, offsetof(WeftSweepRow, message), 1, f) != 1 || fread(&len, sizeof len, 1, f) != 1 ||
      len >= sizeof r->message || fread(r->message, 1, len, f) != len)
    return -1;
  return 0;
}

static void write_csv(FILE *f, const Out *o) {
  int nf = weft_sweep_nfields(o->sw);
  static const char *const fixed[] = {"point", "status", "time_ns", "cost_usd", "objective",
                                      "gap", "message"};
  fputs("point", f);
  for (int k = 0; k < nf; k++) {
    const char *path = weft_sweep_field(o->sw, k);
    int clash = 0;  /* a swept top-level `objective` would read as the result column */
    for (size_t c = 0; c < sizeof fixed / sizeof fixed[0]; c++) clash |= !strcmp(path, fixed[c]);
    char head[WEFT_PATH_LEN + 16];
    snprintf(head, sizeof head, "%s%s", clash ? "scenario." : "", path);
    fputc(',', f);
    csv_str(f, head);
  }
  fputs(",status,time_ns,cost_usd,objective", f);
  for (int d = 0; d < o->ndims; d++) fprintf(f, ",bw_gbps_%d", d + 1);
  fputs(",gap,message\n", f);
  WeftSweepRow row, *r = &row;
  rewind(o->rows);
  for (size_t i = 0; i < o->n && !row_get(o->rows, r); i++) {
    int ok = r->status == WEFT_POINT_OK;
    fprintf(f, "%zu", i);
    for (int k = 0; k < nf; k++) {
      fputc(',', f);
      csv_str(f, weft_sweep_value(o->sw, i, k));
    }
    fprintf(f, ",%s", token(r->status));
    csv_num(f, ok, r->time_ns);
    csv_num(f, ok, r->cost_usd);
    csv_num(f, ok, r->objective);
    for (int d = 0; d < o->ndims; d++) csv_num(f, ok && d < r->ndims, r->bw_gbps[d]);
    csv_num(f, ok, r->gap);
    fputc(',', f);
    csv_str(f, r->message);
    fputc('\n', f);
  }
}

static void csv_body(FILE *f, const void *ctx) { write_csv(f, ctx); }

/* The CSV to path: a temporary file beside it, renamed when complete; then
 * one line on stderr saying what is in it (unless quiet). */
static int write_csv_file(const char *path, const Out *o, int quiet) {
  int rc = cli_write_file(path, csv_body, o);
  int cols = 1 + weft_sweep_nfields(o->sw) + 4 + o->ndims + 2; /* write_csv's header */
  if (!rc && !quiet)
    fprintf(stderr, "weft: sweep: wrote %s: %zu row%s (and a header line) of %d columns\n", path,
            o->n, o->n == 1 ? "" : "s", cols);
  return rc;
}

/* The rows for the plot, read back from the temporary file. */
static void rows_rewind(void *ctx) { rewind(((const Out *)ctx)->rows); }
static int rows_next(void *ctx, WeftSweepRow *r) { return row_get(((const Out *)ctx)->rows, r); }

/* The plot: titled by what was swept (field paths), never a file path. */
static int write_plot(const char *path, Out *o, size_t nok) {
  char title[512], sub[256];
  int nf = weft_sweep_nfields(o->sw);
  size_t k = (size_t)snprintf(title, sizeof title, "sweep of");
  for (int f = 0; f < nf && k < sizeof title; f++)
    k += (size_t)snprintf(title + k, sizeof title - k, "%s%s (%zu)", f ? " x " : " ",
                          weft_sweep_field(o->sw, f), weft_sweep_nvalues(o->sw, f));
  snprintf(sub, sizeof sub, "%zu points, %zu ok", o->n, nok);
  PlotSweep ps = {o->sw, o->n, o->ndims, rows_rewind, rows_next, o};
  return cli_plot_sweep(path, title, sub, &ps);
}

/* Is s a number in JSON's grammar (so it can be written unquoted)? */
static int json_number_text(const char *s) {
  if (*s == '-') s++;
  if (*s == '0') s++;
  else if (*s >= '1' && *s <= '9') while (*s >= '0' && *s <= '9') s++;
  else return 0;
  if (*s == '.') {
    if (!(*++s >= '0' && *s <= '9')) return 0;
    while (*s >= '0' && *s <= '9') s++;
  }
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    if (!(*s >= '0' && *s <= '9')) return 0;
    while (*s >= '0' && *s <= '9') s++;
  }
  return *s == '\0';
}

static void write_json(FILE *f, const char *spec, const Out *o) {
  int nf = weft_sweep_nfields(o->sw);
  fprintf(f, "{\n  \"weft_version\": \"%s\",\n  \"spec\": ", WEFT_VERSION);
  cli_json_str(f, spec);
  fputs(",\n  \"fields\": [", f);
  for (int k = 0; k < nf; k++) {
    if (k) fputs(", ", f);
    cli_json_str(f, weft_sweep_field(o->sw, k));
  }
  fputs("],\n  \"points\": [", f);
  WeftSweepRow row, *r = &row;
  rewind(o->rows);
  for (size_t i = 0; i < o->n && !row_get(o->rows, r); i++) {
    int ok = r->status == WEFT_POINT_OK;
    fprintf(f, "%s\n    {\"point\": %zu, \"values\": {", i ? "," : "", i);
    for (int k = 0; k < nf; k++) {
      const char *v = weft_sweep_value(o->sw, i, k);
      fputs(k ? ", " : "", f);
      cli_json_str(f, weft_sweep_field(o->sw, k));
      fputs(": ", f);
      if (json_number_text(v)) fputs(v, f);
      else cli_json_str(f, v);
    }
    fputs("}, \"status\": ", f);
    cli_json_str(f, token(r->status));
    if (ok) {
      fputs(", \"time_ns\": ", f);
      cli_json_num(f, r->time_ns);
      fputs(", \"cost_usd\": ", f);
      cli_json_num(f, r->cost_usd);
      fputs(", \"objective\": ", f);
      cli_json_num(f, r->objective);
      fputs(", \"bw_gbps\": [", f);
      for (int d = 0; d < r->ndims; d++) {
        if (d) fputs(", ", f);
        cli_json_num(f, r->bw_gbps[d]);
      }
      fputs("], \"gap\": ", f);
      cli_json_num(f, r->gap);
    } else {
      fputs(", \"time_ns\": null, \"cost_usd\": null, \"objective\": null, \"bw_gbps\": null, "
            "\"gap\": null",
            f);
    }
    fputs(", \"message\": ", f);
    cli_json_str(f, r->message);
    fputc('}', f);
  }
  fputs(o->n ? "\n  ]\n}\n" : "]\n}\n", f);
}

/* ------------------------------------------------------------------ flow */

typedef struct {
  WeftSweep *sw;
  FILE *rows;  /* rank 0: every row, in point order */
} State;

static int finish(State *st, int code) {
  if (st->rows) fclose(st->rows);
  weft_sweep_free(st->sw);
  cli_mpi_finalize();
  return code;
}

/* What the verdict needs, tallied as the rows stream in. */
typedef struct {
  size_t rank;
  FILE *rows;
  size_t n, nok, invalid;
  int ndims;
  int has_bad;
  WeftSweepRow first_bad;   /* the first row that is not ok */
  WeftSweepRow first;       /* row 0 (its message when every point is invalid) */
  int failed;               /* 1: take_rows printed why it stopped */
} Tally;

static int take_rows(void *ctx, size_t first, WeftSweepRow *rows, size_t n) {
  Tally *t = ctx;
  if (cli_mpi_gather(rows, n, sizeof *rows)) {
    t->failed = 1;
    return -1;
  }
  if (t->rank > 0) return 0;
  for (size_t j = 0; j < n; j++) {
    const WeftSweepRow *r = &rows[j];
    if (first + j == 0) t->first = *r;
    if (r->ndims > t->ndims) t->ndims = r->ndims;
    t->nok += r->status == WEFT_POINT_OK;
    t->invalid += r->status == WEFT_POINT_INVALID;
    if (r->status != WEFT_POINT_OK && !t->has_bad) {
      t->first_bad = *r;
      t->first_bad.point = first + j;
      t->has_bad = 1;
    }
    if (row_put(t->rows, r)) {
      cli_fail("cannot write a temporary file: %s", strerror(errno));
      t->failed = 1;
      return -1;
    }
  }
  t->n += n;
  return 0;
}

/* Exit status and notes once every row is in: 0 some point ok, 1 none, 2
 * when every point is invalid input (then its first error is printed and
 * nothing is written). */
static int verdict(const Tally *t, int quiet) {
  if (t->nok == t->n) return EXIT_OK;
  if (t->invalid == t->n) {
    cli_fail("%s", t->first.message);
    if (t->n > 1)
      cli_fail("every one of the %zu points is invalid: the first one's error is above", t->n);
    return EXIT_USAGE;
  }
  if (!quiet)
    cli_fail("%zu of %zu point%s not ok; the first, point %zu: %s: %s", t->n - t->nok, t->n,
             t->n > 1 ? "s" : "", t->first_bad.point, token(t->first_bad.status),
             t->first_bad.message);
  return t->nok ? EXIT_OK : EXIT_RUNTIME;
}

int cmd_sweep(int argc, char **argv) {
  if (cli_mpi_init(&argc, &argv)) return EXIT_RUNTIME;
  size_t rank = cli_mpi_rank(), nranks = cli_mpi_size();
  if (rank > 0) {  /* rank 0 speaks for all; the others see the same inputs and errors */
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
      return cli_mpi_abort(EXIT_RUNTIME);
  }
  const char *val[O_COUNT], *spec = NULL;
  CliOptSet set = {opts, O_COUNT, val, -1, NULL, 0, NULL};
  State st = {0};
  WeftError err;
  int npos;
  weft_error_clear(&err);
  if (cli_opts_parse(argc, argv, &set, 1, &spec, 1, &npos)) return finish(&st, EXIT_USAGE);
  if (val[O_HELP]) {
    help(stdout);
    return finish(&st, EXIT_OK);
  }
  if (!spec) {
    cli_fail("missing the spec file (see 'weft sweep --help')");
    return finish(&st, EXIT_USAGE);
  }
  const char *const onames[2] = {"--csv", "--plot"}, *opaths[2] = {val[O_CSV], val[O_PLOT]};
  if (cli_out_check("--csv", val[O_CSV]) || cli_out_check("--plot", val[O_PLOT]) ||
      cli_out_distinct(2, onames, opaths))
    return finish(&st, EXIT_USAGE);
  int prc = val[O_PLOT] ? cli_plot_check(val[O_PLOT]) : 0;
  if (prc) return finish(&st, prc);
  int threads = 0;
  if (val[O_THREADS]) {
    long long t;
    if (cli_int_value(val[O_THREADS], strlen(val[O_THREADS]), 1, 4096, &t)) {
      cli_fail("--threads '%s': expected an integer from 1 to 4096", val[O_THREADS]);
      return finish(&st, EXIT_USAGE);
    }
    threads = (int)t;
  }
  double progress_s = val[O_QUIET] ? 0.0 : -1.0;
  if (val[O_PROGRESS] && cli_progress_option(val[O_PROGRESS], &progress_s))
    return finish(&st, EXIT_USAGE);
  int rc = weft_sweep_read(spec, val[O_ZOO] ? val[O_ZOO] : cli_zoo_dir(), &st.sw, &err);
  if (rc) {
    cli_error(&err);
    return finish(&st, rc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE);
  }
  size_t n = weft_sweep_count(st.sw);
  if (rank == 0 && !(st.rows = tmpfile())) {
    cli_fail("cannot create a temporary file: %s", strerror(errno));
    return finish(&st, cli_mpi_abort(EXIT_RUNTIME));
  }

  if (!val[O_QUIET]) {  /* the size of the search, before the work */
    size_t chunk = (WEFT_SWEEP_CHUNK + nranks - 1) / nranks * nranks;
    size_t flight = n < chunk ? n : chunk;
    double bytes = (double)flight * (double)sizeof(WeftSweepRow) *
                   (nranks > 1 ? 2.0 + 1.0 / (double)nranks : 1.0);
    char th[32] = "every core", mem[32];
    if (threads > 0) snprintf(th, sizeof th, "%d thread%s", threads, threads > 1 ? "s" : "");
    fprintf(stderr,
            "weft: sweep: %zu point%s, %s%s; the search holds about %s (%zu rows in flight "
            "at a time, the rest in a temporary file), flat in the number of points\n",
            n, n == 1 ? "" : "s", th, nranks > 1 ? " per rank" : "",
            cli_format_bytes(mem, sizeof mem, bytes), flight);
  }

  /* This rank's share with its threads, chunk by chunk; every row to rank 0. */
  WeftRunSettings rs;
  weft_run_settings_default(&rs);
  CliProgress pg;
  cli_progress_start(&pg, "pts", progress_s);
  rs.threads = threads;
  rs.rank = rank;
  rs.nranks = nranks;
  rs.progress = cli_progress_update;
  rs.progress_ctx = &pg;
  Tally t;
  memset(&t, 0, sizeof t);
  t.rank = rank;
  t.rows = st.rows;
  rc = weft_sweep_stream(st.sw, &rs, 0, take_rows, &t, &err);
  cli_progress_end(&pg);
  if (rc) {
    if (!t.failed) cli_error(&err);  /* else take_rows said why */
    return finish(&st, cli_mpi_abort(EXIT_RUNTIME));
  }
  if (rank > 0) return finish(&st, EXIT_OK);

  Out o = {st.sw, st.rows, n, t.ndims};
  int code = verdict(&t, val[O_QUIET] != NULL);
  if (code == EXIT_USAGE) return finish(&st, code);
  if (val[O_JSON]) write_json(stdout, spec, &o);
  else if (!val[O_CSV]) write_csv(stdout, &o);
  fflush(stdout);
  if (ferror(st.rows)) {
    cli_fail("cannot read back a temporary file");
    return finish(&st, EXIT_RUNTIME);
  }
  if (val[O_CSV] && (rc = write_csv_file(val[O_CSV], &o, val[O_QUIET] != NULL))) code = rc;
  else if (val[O_PLOT] && t.nok && (rc = write_plot(val[O_PLOT], &o, t.nok))) code = rc;
  else if (val[O_PLOT] && !t.nok) cli_fail("--plot: no point is ok (nothing plotted)");
  return finish(&st, code);
}
