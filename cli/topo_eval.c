/* topo_eval.c — `weft topo-eval`: TopoOpt's evaluation for one model
 * (docs/topo.md, "Evaluation"): cost and iteration time of every fabric over
 * its bandwidth sweep, the equal-cost comparison read off the curves, a CSV
 * and a gnuplot script. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "plot.h"
#include "progress.h"

enum { E_MODEL, E_DEVICE, E_ZOO, E_SERVERS, E_GPUS, E_BATCH, E_DEGREES, E_PORTS, E_NICS, E_RECONF,
       E_OVERSUB, E_RADIX, E_TIERS, E_PRICES, E_PARTS, E_ITER, E_SEED, E_ESTIMATE, E_CSV, E_PLOT,
       E_PROGRESS, E_THREADS, E_HELP, E_COUNT };

static const CliOpt opts[E_COUNT] = {
    [E_MODEL] = {"--model", "NAME", "a zoo model (or its .yml)"},
    [E_DEVICE] = {"--device", "NAME", "GPU preset (default a100)"},
    [E_ZOO] = {"--zoo", "DIR", "the zoo directory (default $WEFT_ZOO, else data/zoo)"},
    [E_SERVERS] = {"--servers", "N", "servers (default 128)"},
    [E_GPUS] = {"--gpus-per-server", "G", "GPUs per server (default 4)"},
    [E_BATCH] = {"--batch-per-gpu", "B", "samples per GPU (default: the model's global batch)"},
    [E_DEGREES] = {"--degrees", "D,..", "TopoOpt ports per server (default 4,8)"},
    [E_PORTS] = {"--port-gbit", "B,..", "TopoOpt port bandwidths, Gbit/s (default 10,25,40,100,200)"},
    [E_NICS] = {"--nic-gbit", "B,..", "switch NIC bandwidths, Gbit/s (default 10..1600)"},
    [E_RECONF] = {"--reconf-us", "T,..", "OCS reconfiguration delays, us (default 10..100000)"},
    [E_OVERSUB] = {"--oversub", "X", "the oversubscribed Fat-tree's ratio (default 3)"},
    [E_RADIX] = {"--radix", "R", "Fat-tree switch radix (default 64)"},
    [E_TIERS] = {"--tiers", "2|3", "Fat-tree tiers (default 2)"},
    [E_PRICES] = {"--prices", "FILE", "YAML overriding the price table (docs/topo.md)"},
    [E_PARTS] = {"--parts", "FILE",
                 "a parts catalog over the built-in one: the price table\n"
                 "                        from its entries (docs/parts.md); --prices over it"},
    [E_ITER] = {"--iterations", "N", "strategy moves per point (default 200)"},
    [E_SEED] = {"--seed", "S", "random seed (default 1)"},
    [E_ESTIMATE] = {"--estimate", NULL, "time with the link-load bound, not the flow simulation"},
    [E_CSV] = {"--csv", "FILE", "write every point as CSV"},
    [E_PLOT] = {"--plot", "FILE", "time vs cost per fabric: .png, .svg, .pdf (gnuplot), or\n"
                "                        FILE.gp a gnuplot script"},
    [E_PROGRESS] = {"--progress", "S", "seconds between progress lines when stderr is not a\n"
                    "                        terminal (default 5; 0: none, and no bar)"},
    [E_THREADS] = {"--threads", "N", "threads running the sweep's points (default: every\n"
                   "                        core); results do not depend on it"},
    [E_HELP] = {"--help", NULL, "this help"},
};

#define GBIT_MIN (8 * WEFT_MIN_BW_GBPS) /* Gbit/s: 1e-300 failed late, "no port split" */

/* A comma-separated list of numbers in (0, hi], or [lo, hi] for lo > 0
 * (range: as the message writes it), each times scale. */
static int list_arg(const char *flag, const char *v, double lo, double hi, const char *range,
                    double scale, double *out, int *n) {
  if (!v) return 0;
  int k = 0;
  for (const char *p = v; *p && k <= WEFT_EVAL_MAX_SWEEP;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    double x;
    if (k == WEFT_EVAL_MAX_SWEEP || cli_number(p, len, lo, lo == 0.0, &x) || x > hi) {
      cli_fail("%s '%s': expected up to %d numbers %s, comma-separated", flag, v,
               WEFT_EVAL_MAX_SWEEP, range);
      return -1;
    }
    out[k++] = x * scale;
    p = e ? e + 1 : p + len;
  }
  *n = k;
  return 0;
}

static void write_csv(FILE *f, const WeftEvalPoint *p, int n) {
  fputs("fabric,degree,gbit_per_s,reconf_us,cost_usd,time_ms,comm_ms,tp,replicated_tables,"
        "mp_layers\n", f);
  for (int i = 0; i < n; i++)
    fprintf(f, "%s,%d,%g,%g,%.2f,%.6f,%.6f,%d,%d,%d\n", weft_eval_fabric_name(p[i].fabric),
            p[i].degree, p[i].gbps * 8, p[i].reconf_ns / 1e3, p[i].cost_usd, p[i].time_ns / 1e6,
            p[i].comm_ns / 1e6, p[i].tp, p[i].replicated, p[i].mp_layers);
}

/* What the output files are written from (cli_write_file's context). */
typedef struct {
  const WeftEvalPoint *p;
  int n;
  const char *model;
} EvalOut;

static void csv_body(FILE *f, const void *ctx) {
  const EvalOut *o = ctx;
  write_csv(f, o->p, o->n);
}

static void plot_body(FILE *f, const void *ctx) {
  const EvalOut *o = ctx;
  cli_topo_eval_script(f, o->model, o->p, o->n);
}

/* --plot: FILE.gp a gnuplot script, else a figure (.png, .svg, .pdf). */
static int write_plot(const char *path, const EvalOut *o, const WeftModel *m,
                      const WeftTopoEval *e) {
  size_t len = strlen(path);
  if (len >= 3 && !strcmp(path + len - 3, ".gp")) return cli_write_file(path, plot_body, o);
  char title[512], sub[256];
  snprintf(title, sizeof title, "%s on %d servers x %d %s", m->title[0] ? m->title : m->name,
           e->nservers, e->gpus_per_server, e->dev->title[0] ? e->dev->title : e->dev->name);
  snprintf(sub, sizeof sub, "time %s, %d strategy moves per point",
           e->simulate ? "by flow simulation" : "by the link-load bound (--estimate)", e->iterations);
  return cli_plot_topo_eval(path, title, sub, o->p, o->n);
}

static int load(const char **val, WeftModel *m, WeftDevice *dev) {
  WeftError err;
  const char *zoo = val[E_ZOO] ? val[E_ZOO] : cli_zoo_dir(), *name = val[E_MODEL];
  int rc = strchr(name, '/') || strstr(name, ".yml") ? weft_model_read(name, m, &err)
                                                     : weft_zoo_model(zoo, name, m, &err);
  if (!rc) rc = weft_zoo_device(zoo, val[E_DEVICE] ? val[E_DEVICE] : "a100", dev, &err);
  if (rc) cli_error(&err);
  return rc;
}

static void help(FILE *out) {
  const char *val[E_COUNT];
  CliOptSet set = {opts, E_COUNT, val, -1, NULL, 0, NULL};
  fputs("usage: weft topo-eval --model NAME [options]\n\n"
        "TopoOpt's evaluation: cost and iteration time of TopoOpt over its degree\n"
        "and port bandwidth, an ideal switch and Fat-trees (1:1 and oversubscribed)\n"
        "over the NIC bandwidth, a random expander, and an OCS re-wired between the\n"
        "AllReduce and model-parallel phases over the reconfiguration delay; each\n"
        "point with its own strategy search. Then each baseline's time at TopoOpt's\n"
        "cost, read off its curve. Exit 0 ok, 2 bad input.\n\noptions:\n",
        out);
  cli_opts_help(out, &set, 1);
}

static int parse(int argc, char **argv, const char **val, WeftTopoEval *e, int *batch) {
  CliOptSet set = {opts, E_COUNT, val, -1, NULL, 0, NULL};
  int npos, ndeg = 0;
  const char *pos[1];
  memset(val, 0, E_COUNT * sizeof *val);
  if (cli_opts_parse(argc, argv, &set, 1, pos, 0, &npos)) return -1;
  if (val[E_HELP]) return 0;
  double deg[WEFT_EVAL_MAX_SWEEP], rec[WEFT_EVAL_MAX_SWEEP];
  int nrec = -1;
  long long seed = 1;
  *batch = 0;
  if ((val[E_SERVERS] && cli_opt_int("--servers", val[E_SERVERS], 2, 4096, &e->nservers)) ||
      (val[E_GPUS] && cli_opt_int("--gpus-per-server", val[E_GPUS], 1, 64, &e->gpus_per_server)) ||
      (val[E_BATCH] && cli_opt_int("--batch-per-gpu", val[E_BATCH], 1, 1 << 20, batch)) ||
      (val[E_RADIX] && cli_opt_int("--radix", val[E_RADIX], 4, 4096, &e->radix)) ||
      (val[E_TIERS] && cli_opt_int("--tiers", val[E_TIERS], 2, 3, &e->tiers)) ||
      (val[E_ITER] && cli_opt_int("--iterations", val[E_ITER], 0, 100000000, &e->iterations)) ||
      (val[E_THREADS] && cli_opt_int("--threads", val[E_THREADS], 1, 4096, &e->threads)) ||
      list_arg("--degrees", val[E_DEGREES], 0, HUGE_VAL, "> 0", 1, deg, &ndeg) ||
      /* a port's bandwidth in weft's range (1e-6 GB/s and up), topo's cap;
       * a delay within the time limit (1e18 ns) */
      list_arg("--port-gbit", val[E_PORTS], GBIT_MIN, 1e6, "in [8e-6, 1e6]", 1 / 8.0, e->port_gbps,
               &e->nports) ||
      list_arg("--nic-gbit", val[E_NICS], GBIT_MIN, 1e6, "in [8e-6, 1e6]", 1 / 8.0, e->nic_gbps,
               &e->nnics) ||
      list_arg("--reconf-us", val[E_RECONF], 0, 1e15, "in (0, 1e15]", 1e3, rec, &nrec))
    return -1;
  if (val[E_OVERSUB] && (cli_number(val[E_OVERSUB], strlen(val[E_OVERSUB]), 1, 0, &e->oversub))) {
    cli_fail("--oversub '%s': expected a number >= 1", val[E_OVERSUB]);
    return -1;
  }
  if (val[E_SEED] &&
      cli_int_value(val[E_SEED], strlen(val[E_SEED]), 0, 999999999999999999LL, &seed)) {
    cli_fail("--seed '%s': expected a non-negative integer", val[E_SEED]);
    return -1;
  }
  e->seed = (unsigned long long)seed;
  for (int i = 0; i < ndeg; i++) {
    if (deg[i] != floor(deg[i]) || deg[i] > WEFT_TOPO_MAX_DEGREE) {
      cli_fail("--degrees '%s': expected whole numbers in [1, %d]", val[E_DEGREES],
               WEFT_TOPO_MAX_DEGREE);
      return -1;
    }
    e->degrees[i] = (int)deg[i];
  }
  if (val[E_DEGREES]) e->ndegrees = ndeg;
  if (nrec >= 0) {
    e->nreconf = nrec;
    memcpy(e->reconf_ns, rec, (size_t)nrec * sizeof *rec);
  }
  e->simulate = !val[E_ESTIMATE];
  if (!val[E_MODEL]) {
    cli_fail("give --model NAME (see 'weft topo-eval --help')");
    return -1;
  }
  return 0;
}

/* For each TopoOpt point and baseline: who wins at equal cost, and by what
 * factor each price must change for the other to win (docs/topo.md). */
static void print_flips(const WeftEvalPoint *p, int n, const WeftPrices *prices) {
  static const WeftEvalFabric base[] = {WEFT_EVAL_SWITCH, WEFT_EVAL_FATTREE,
                                        WEFT_EVAL_FATTREE_OVERSUB};
  static const char *const col[WEFT_NPRICES] = {"nic_port", "transceiver", "switch_port",
                                                "patch_panel", "ocs_port", "fiber"};
  printf("\nprice flips: the factor one price must be multiplied by for the other fabric to win "
         "at TopoOpt's cost (nearest to x1 within x0.001..x1000; '-': none there or past the "
         "baseline's cost range)\n");
  printf("  %6s %10s %-16s %-16s", "degree", "gbit_per_s", "baseline", "winner");
  for (int k = 0; k < WEFT_NPRICES; k++) printf(" %11s", col[k]);
  printf("\n");
  for (int i = 0; i < n; i++) {
    if (p[i].fabric != WEFT_EVAL_TOPOOPT) continue;
    for (int b = 0; b < 3; b++) {
      double t = weft_eval_time_at_cost(p, n, base[b], p[i].cost_usd);
      if (isnan(t)) continue;
      const char *win = t > p[i].time_ns   ? "topoopt"
                        : t < p[i].time_ns ? weft_eval_fabric_name(base[b])
                                           : "tie";
      printf("  %6d %10g %-16s %-16s", p[i].degree, p[i].gbps * 8, weft_eval_fabric_name(base[b]),
             win);
      for (int k = 0; k < WEFT_NPRICES; k++) {
        double f = weft_eval_price_flip(p, n, prices, i, base[b], (WeftPriceKey)k);
        char cell[32];
        if (isnan(f)) snprintf(cell, sizeof cell, "-");
        else snprintf(cell, sizeof cell, "x%.3g", f);
        printf(" %11s", cell);
      }
      printf("\n");
    }
  }
}

static void print_summary(const char *model, const WeftEvalPoint *p, int n) {
  printf("weft topo-eval: %s\n\n", model);
  printf("  %-16s %6s %10s %10s %14s %14s %4s %5s %4s\n", "fabric", "degree", "gbit_per_s",
         "reconf_us", "cost_usd", "time_ms", "tp", "repl", "mp");
  for (int i = 0; i < n; i++)
    printf("  %-16s %6d %10g %10g %14.0f %14.6f %4d %5d %4d\n", weft_eval_fabric_name(p[i].fabric),
           p[i].degree, p[i].gbps * 8, p[i].reconf_ns / 1e3, p[i].cost_usd, p[i].time_ns / 1e6,
           p[i].tp, p[i].replicated, p[i].mp_layers);
  printf("\nequal cost: each baseline's time at TopoOpt's cost (log-cost interpolation) over "
         "TopoOpt's time (above 1: TopoOpt is faster; '-': outside the baseline's cost range)\n");
  printf("  %6s %10s %14s", "degree", "gbit_per_s", "cost_usd");
  static const WeftEvalFabric base[] = {WEFT_EVAL_SWITCH, WEFT_EVAL_FATTREE,
                                        WEFT_EVAL_FATTREE_OVERSUB};
  for (int b = 0; b < 3; b++) printf(" %16s", weft_eval_fabric_name(base[b]));
  printf("\n");
  for (int i = 0; i < n; i++) {
    if (p[i].fabric != WEFT_EVAL_TOPOOPT) continue;
    printf("  %6d %10g %14.0f", p[i].degree, p[i].gbps * 8, p[i].cost_usd);
    for (int b = 0; b < 3; b++) {
      double t = weft_eval_time_at_cost(p, n, base[b], p[i].cost_usd);
      if (isnan(t)) printf(" %16s", "-");
      else printf(" %16.3f", t / p[i].time_ns);
    }
    printf("\n");
  }
}

int cmd_topo_eval(int argc, char **argv) {
  const char *val[E_COUNT];
  WeftTopoEval e;
  weft_topo_eval_default(&e);
  int batch;
  if (parse(argc, argv, val, &e, &batch)) return EXIT_USAGE;
  if (val[E_HELP]) {
    help(stdout);
    return EXIT_OK;
  }
  double progress_s = -1.0;
  if (val[E_PROGRESS] && cli_progress_option(val[E_PROGRESS], &progress_s)) return EXIT_USAGE;
  const char *const onames[2] = {"--csv", "--plot"}, *opaths[2] = {val[E_CSV], val[E_PLOT]};
  if (cli_out_check("--csv", val[E_CSV]) || cli_out_check("--plot", val[E_PLOT]) ||
      cli_out_distinct(2, onames, opaths))
    return EXIT_USAGE;
  if (val[E_PLOT]) { /* before the work: a format we draw, and (a PDF) a gnuplot that can */
    size_t len = strlen(val[E_PLOT]);
    if (!(len >= 3 && !strcmp(val[E_PLOT] + len - 3, ".gp")) &&
        cli_plot_format_of(val[E_PLOT]) < 0) {
      cli_fail("--plot '%s': unknown extension (use .png, .svg, .pdf, or .gp for a gnuplot "
               "script)", val[E_PLOT]);
      return EXIT_USAGE;
    }
    int rc = cli_plot_format_of(val[E_PLOT]) >= 0 ? cli_plot_check(val[E_PLOT]) : 0;
    if (rc) return rc;
  }
  WeftError err;
  if (val[E_PARTS] && cli_parts_prices(val[E_ZOO], val[E_PARTS], &e.prices)) return EXIT_USAGE;
  if (val[E_PRICES] && weft_topo_prices_read_over(val[E_PRICES], &e.prices, &err)) {
    cli_error(&err);
    return EXIT_USAGE;
  }
  WeftModel *m = malloc(sizeof *m);
  WeftDevice dev;
  if (!m) {
    cli_fail("out of memory");
    return EXIT_RUNTIME;
  }
  if (load(val, m, &dev)) {
    free(m);
    return EXIT_USAGE;
  }
  if (batch) m->global_batch = batch * e.gpus_per_server * e.nservers;
  e.model = m;
  e.dev = &dev;
  WeftEvalPoint *p = NULL;
  CliProgress pg; /* a bar on a terminal, a line every few seconds elsewhere */
  cli_progress_start(&pg, "points", progress_s);
  e.progress = cli_progress_update;
  e.progress_ctx = &pg;
  int n = 0, rc = weft_topo_eval(&e, &p, &n, &err);
  cli_progress_end(&pg);
  if (rc) {
    if (!err.file[0] && err.msg[0]) cli_fail("--model %s: %s", val[E_MODEL], err.msg);
    else cli_error(&err);
    free(m);
    return rc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
  }
  print_summary(m->name, p, n);
  print_flips(p, n, &e.prices);
  /* Both files through the shared writer (files.c): whole or not at all, a
   * device written through, every failure said (exit 1). */
  EvalOut o = {p, n, m->name};
  int out = val[E_CSV] ? cli_write_file(val[E_CSV], csv_body, &o) : EXIT_OK;
  if (val[E_PLOT] && out == EXIT_OK) out = write_plot(val[E_PLOT], &o, m, &e);
  free(p);
  free(m);
  return out;
}
