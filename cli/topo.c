/* topo.c — `weft topo`: a TopoOpt direct-connect topology for a job (a zoo
 * model or a traffic CSV) on n servers with d ports, its simulated
 * iteration time next to an ideal switch, a Fat-tree of the same cost and an
 * expander; --search alternates strategy and topology. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "progress.h"

enum { T_MODEL, T_DEVICE, T_ZOO, T_TRAFFIC, T_SERVERS, T_DEGREE, T_PORT, T_TP, T_AR, T_SPLIT, T_KPATHS,
       T_PRICES, T_PARTS, T_RADIX, T_TIERS, T_SEARCH, T_ITER, T_SECONDS, T_SEED, T_EDGES, T_DOT,
       T_ROUTES, T_JSON, T_THREADS, T_MAX_WORK, T_HELP, T_COUNT };

static const CliOpt opts[T_COUNT] = {
    [T_MODEL] = {"--model", "NAME", "a zoo model (or its .yml) whose traffic to wire for"},
    [T_DEVICE] = {"--device", "NAME", "device preset for compute times (default a100)"},
    [T_ZOO] = {"--zoo", "DIR", "the zoo directory (default $WEFT_ZOO, else data/zoo)"},
    [T_TRAFFIC] = {"--traffic", "FILE", "traffic CSV instead of a model: src,dst,bytes and\n"
                   "                        allreduce,size_bytes,members... (docs/topo.md)"},
    [T_SERVERS] = {"--servers", "N", "servers in the job (default 128)"},
    [T_DEGREE] = {"--degree", "D", "optical ports per server (default 4)"},
    [T_PORT] = {"--port-gbit", "B", "bandwidth of a port in Gbit/s (default 100)"},
    [T_TP] = {"--tp", "T", "tensor-parallel degree over consecutive servers (default 1)"},
    [T_AR] = {"--ar-degree", "A", "ports for AllReduce rings (implies --port-split\n"
              "                        proportional)"},
    [T_SPLIT] = {"--port-split", "proportional|rings|best",
                 "ports between rings and model-parallel links: by the\n"
                 "                        AllReduce share, all to rings (TopoOpt's code), or\n"
                 "                        the fastest even split by simulation (default)"},
    [T_KPATHS] = {"--kpaths", "K", "paths a model-parallel flow is split over (default 4)"},
    [T_PRICES] = {"--prices", "FILE", "YAML overriding the price table (docs/topo.md)"},
    [T_PARTS] = {"--parts", "FILE",
                 "a parts catalog over the built-in one: the price table\n"
                 "                        from its entries (docs/parts.md); --prices over it"},
    [T_RADIX] = {"--radix", "R", "Fat-tree switch radix (default 32)"},
    [T_TIERS] = {"--tiers", "2|3", "Fat-tree tiers (default 2, 3 when 2 cannot hold\n"
                   "                        the servers)"},
    [T_SEARCH] = {"--search", NULL, "alternate strategy search and topology (TopoOpt's loop)"},
    [T_ITER] = {"--iterations", "N", "--search: strategy moves (default 1000)"},
    [T_SECONDS] = {"--seconds", "S", "--search: stop after S seconds (default none)"},
    [T_SEED] = {"--seed", "S", "--search: random seed (default 1)"},
    [T_EDGES] = {"--edges", "FILE", "write the topology as an edge list (src dst gbit kind)"},
    [T_DOT] = {"--dot", "FILE", "write the topology as GraphViz DOT"},
    [T_ROUTES] = {"--routes", "FILE", "write the routes of the job's transfers (server paths)"},
    [T_JSON] = {"--json", NULL, "print one JSON object instead of the table"},
    [T_THREADS] = {"--threads", "N", "threads simulating the fabrics (default: every core);\n"
                   "                        results do not depend on it"},
    [T_MAX_WORK] = {"--max-work", "N", "refuse a run estimated at more than N steps (default\n"
                    "                        2e12: a minute to tens of minutes, by the job;\n"
                    "                        0: no limit)"},
    [T_HELP] = {"--help", NULL, "this help"},
};

/* A port above 1 Pbit/s is a typo, and keeps every cost and time finite. */
#define PORT_GBIT_MAX 1e6
#define PORT_GBIT_MIN (8 * WEFT_MIN_BW_GBPS) /* 1e-6 GB/s: 1e-300 failed late ("no port split") */
#define SECONDS_MAX 1e9  /* about 30 years */

static void help(FILE *out) {
  const char *val[T_COUNT];
  CliOptSet set = {opts, T_COUNT, val, -1, NULL, 0, NULL};
  fputs("usage: weft topo --model NAME [options]\n"
        "       weft topo --traffic FILE.csv --servers N [options]\n\n"
        "Wire a direct-connect topology for one job (TopoOpt): n servers with d\n"
        "optical ports each, split between AllReduce rings (TotientPerms) and\n"
        "model-parallel links (maximum-weight matchings), routed and simulated with\n"
        "the flow engine, next to an ideal switch, a Fat-tree of the same cost and\n"
        "a random expander. --search alternates the parallelization strategy\n"
        "(simulated annealing) and the topology. Exit 0 ok, 2 bad input.\n\noptions:\n",
        out);
  cli_opts_help(out, &set, 1);
}

/* An optional option value (absent: *out unchanged). */
static int int_arg(const char *flag, const char *v, int lo, int hi, int *out) {
  return v ? cli_opt_int(flag, v, lo, hi, out) : 0;
}

/* An optional number in (0, hi], or [lo, hi] for lo > 0 (absent: *out
 * unchanged); range is the range as the message writes it. */
static int num_arg(const char *flag, const char *v, double lo, double hi, const char *range,
                   double *out) {
  if (v && (cli_number(v, strlen(v), lo, lo == 0.0, out) || *out > hi)) {
    cli_fail("%s '%s': expected a number in %s", flag, v, range);
    return -1;
  }
  return 0;
}

typedef struct {
  const char *val[T_COUNT];
  int servers, degree, tp, radix, tiers, iterations, threads;
  double port_gbit, seconds;
  unsigned long long seed;
  WeftTopoSettings ts;
  WeftPortSplit split;         /* --port-split */
  WeftPrices prices;
  WeftModel model;
  WeftDevice dev;
  int have_model;
  double max_work;             /* --max-work */
} Args;

static int parse(int argc, char **argv, Args *a) {
  CliOptSet set = {opts, T_COUNT, a->val, -1, NULL, 0, NULL};
  int npos;
  const char *pos[1];
  memset(a->val, 0, sizeof a->val);
  if (cli_opts_parse(argc, argv, &set, 1, pos, 0, &npos)) return -1;
  if (a->val[T_HELP]) return 0;
  a->have_model = 0;
  a->servers = 128;
  a->degree = 4;
  a->tp = 1;
  a->split = WEFT_PORT_SPLIT_BEST;
  a->radix = 32;
  a->tiers = 2;
  a->port_gbit = 100;
  a->iterations = 1000;
  a->seconds = 0;  /* no wall budget unless --seconds */
  a->threads = 0;
  a->max_work = WEFT_TOPO_MAX_WORK;
  if (a->val[T_MAX_WORK] &&
      cli_number(a->val[T_MAX_WORK], strlen(a->val[T_MAX_WORK]), 0.0, 0, &a->max_work)) {
    cli_fail("--max-work '%s': expected a non-negative number (0: no limit)", a->val[T_MAX_WORK]);
    return -1;
  }
  long long seed = 1;
  weft_topo_settings_default(&a->ts);
  if (int_arg("--servers", a->val[T_SERVERS], 2, 1 << 20, &a->servers) ||
      int_arg("--degree", a->val[T_DEGREE], 1, WEFT_TOPO_MAX_DEGREE, &a->degree) ||
      int_arg("--tp", a->val[T_TP], 1, 1 << 20, &a->tp) ||
      int_arg("--ar-degree", a->val[T_AR], 0, WEFT_TOPO_MAX_DEGREE, &a->ts.ar_degree) ||
      int_arg("--kpaths", a->val[T_KPATHS], 1, 16, &a->ts.kpaths) ||
      int_arg("--radix", a->val[T_RADIX], 4, 4096, &a->radix) ||
      int_arg("--tiers", a->val[T_TIERS], 2, 3, &a->tiers) ||
      int_arg("--iterations", a->val[T_ITER], 0, 100000000, &a->iterations) ||
      int_arg("--threads", a->val[T_THREADS], 1, 4096, &a->threads) ||
      num_arg("--port-gbit", a->val[T_PORT], PORT_GBIT_MIN, PORT_GBIT_MAX, "[8e-6, 1e6] Gbit/s",
              &a->port_gbit) ||
      num_arg("--seconds", a->val[T_SECONDS], 0.0, SECONDS_MAX, "(0, 1e9] s", &a->seconds))
    return -1;
  if (a->val[T_SPLIT]) {
    static const char *const names[] = {"proportional", "rings", "best"};
    int k = 0;
    while (k < 3 && strcmp(a->val[T_SPLIT], names[k])) k++;
    if (k == 3) {
      cli_fail("--port-split '%s': expected proportional, rings or best", a->val[T_SPLIT]);
      return -1;
    }
    a->split = (WeftPortSplit)k;
    if (k != WEFT_PORT_SPLIT_PROPORTIONAL && a->val[T_AR]) {
      cli_fail("--ar-degree fixes the split: it goes with --port-split proportional only");
      return -1;
    }
  } else if (a->val[T_AR]) {
    a->split = WEFT_PORT_SPLIT_PROPORTIONAL; /* the split given */
  }
  if (a->val[T_SEED]) {
    if (cli_int_value(a->val[T_SEED], strlen(a->val[T_SEED]), 0, 999999999999999999LL, &seed)) {
      cli_fail("--seed '%s': expected a non-negative integer", a->val[T_SEED]);
      return -1;
    }
  }
  a->seed = (unsigned long long)seed;
  if (!!a->val[T_MODEL] == !!a->val[T_TRAFFIC]) {
    cli_fail("give --model NAME or --traffic FILE (one of them; see 'weft topo --help')");
    return -1;
  }
  if (a->val[T_SEARCH] && !a->val[T_MODEL]) {
    cli_fail("--search needs --model (it searches the model's parallelization)");
    return -1;
  }
  if (!a->val[T_SEARCH] && (a->val[T_ITER] || a->val[T_SECONDS] || a->val[T_SEED])) {
    cli_fail("--iterations, --seconds and --seed go with --search");
    return -1;
  }
  a->ts.degree = a->degree;
  a->ts.port_gbps = a->port_gbit / 8.0; /* Gbit/s -> GB/s (bytes/ns) */
  if (a->split == WEFT_PORT_SPLIT_BEST) a->ts.ar_degree = WEFT_AR_DEGREE_BEST; /* --search too */
  if (a->split == WEFT_PORT_SPLIT_RINGS && a->degree >= 2) a->ts.ar_degree = a->degree - a->degree % 2;
  return 0;
}

static int load(Args *a, WeftTraffic **t) {
  WeftError err;
  weft_topo_prices_default(&a->prices);
  if (a->val[T_PARTS] && cli_parts_prices(a->val[T_ZOO], a->val[T_PARTS], &a->prices))
    return EXIT_USAGE;
  if (a->val[T_PRICES] && weft_topo_prices_read_over(a->val[T_PRICES], &a->prices, &err)) {
    cli_error(&err);
    return EXIT_USAGE;
  }
  if (a->val[T_TRAFFIC]) {
    if (weft_traffic_read_csv(a->val[T_TRAFFIC], a->servers, t, &err)) {
      cli_error(&err);
      return EXIT_USAGE;
    }
    return 0;
  }
  const char *zoo = a->val[T_ZOO] ? a->val[T_ZOO] : cli_zoo_dir(), *name = a->val[T_MODEL];
  int rc = strchr(name, '/') || strstr(name, ".yml") ? weft_model_read(name, &a->model, &err)
                                                     : weft_zoo_model(zoo, name, &a->model, &err);
  if (!rc)
    rc = weft_zoo_device(zoo, a->val[T_DEVICE] ? a->val[T_DEVICE] : "a100", &a->dev, &err);
  if (!rc) rc = weft_traffic_from_model(&a->model, &a->dev, a->servers, a->tp, NULL, t, &err);
  if (rc) {
    if (!err.file[0] && err.msg[0]) cli_fail("--model %s: %s", name, err.msg);
    else cli_error(&err);
    return rc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
  }
  a->have_model = 1;
  return 0;
}

/* ------------------------------------------------------------ report */
typedef struct {
  const char *name;
  WeftFabric *f;
  WeftTopoTime t;
  double cost_usd;
  char note[96];
} Row;

static void add_row(Row *rows, int *n, const char *name, WeftFabric *f, const WeftPrices *p,
                    const char *note) {
  Row *r = &rows[(*n)++];
  memset(r, 0, sizeof *r);
  r->name = name;
  r->f = f;
  r->cost_usd = weft_fabric_cost(f, p);
  snprintf(r->note, sizeof r->note, "%s", note);
}

static void edges_body(FILE *out, const void *ctx) {
  const WeftFabric *f = ctx;
  const WeftGraph *g = weft_fabric_graph(f);
  const int *st;
  int nring = 2 * weft_fabric_strides(f, &st) * weft_fabric_servers(f), nl = weft_graph_nlinks(g);
  /* one line per link and direction, of its own kind: the ring links come
   * first (2 per stride and server), the model-parallel ones after them, so
   * a pair with both has a "ring" line and an "mp" line each way */
  fputs("# src dst gbit kind (one line per link and direction; kind: ring or mp)\n", out);
  for (int l = 0; l < nl; l++) {
    int u, v;
    double bw;
    weft_graph_link(g, l, &u, &v, &bw);
    fprintf(out, "%d %d %g %s\n", u, v, bw * 8, l < nring ? "ring" : "mp");
  }
}

/* The DOT file: each cable once; ring links (AllReduce, one TotientPerms
 * stride each) solid, a colour per stride; model-parallel links (matching
 * rounds) dashed grey; the legend in comments and the graph's label. The
 * links' order is edges_body's: 2 per stride and server (v -> v + p, then
 * back), then the model-parallel pairs, each one way then the other. */
static void dot_body(FILE *out, const void *ctx) {
  static const char *const colour[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                       "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
  static const char *const name[] = {"blue", "red", "green", "purple",
                                     "orange", "brown", "pink", "cyan"};
  const WeftFabric *f = ctx;
  const WeftGraph *g = weft_fabric_graph(f);
  const int *st;
  int ns = weft_fabric_strides(f, &st), n = weft_fabric_servers(f), nl = weft_graph_nlinks(g);
  int nring = 2 * ns * n;
  fputs("// weft topo: TopoOpt's wiring, one edge per cable (both directions)\n"
        "// kind=ring: an AllReduce ring link of TotientPerms stride `stride`, solid, one colour\n"
        "//            per stride\n"
        "// kind=mp:   a model-parallel link (a matching round), dashed grey\n"
        "graph topoopt {\n  node [shape=circle];\n", out);
  fputs("  label=\"ring links: solid, a colour per stride (", out);
  for (int s = 0; s < ns; s++) fprintf(out, "%sstride %d %s", s ? ", " : "", st[s], name[s % 8]);
  fputs("); model-parallel links: dashed grey\";\n  labelloc=b;\n", out);
  for (int l = 0; l < nl; l += 2) { /* each cable's first direction */
    int u, v;
    weft_graph_link(g, l, &u, &v, NULL);
    int a = u < v ? u : v, b = u < v ? v : u;
    if (l < nring)
      fprintf(out, "  %d -- %d [kind=ring, stride=%d, color=\"%s\"];\n", a, b, st[l / (2 * n)],
              colour[(l / (2 * n)) % 8]);
    else
      fprintf(out, "  %d -- %d [kind=mp, style=dashed, color=\"#7f7f7f\"];\n", a, b);
  }
  fputs("}\n", out);
}

typedef struct {
  const WeftFabric *f;
  const WeftTraffic *t;
} RoutesCtx;

/* One line per path: kind, src, dst, then the nodes it visits. */
static void route_lines(FILE *out, const WeftFabric *f, const char *kind, int src, int dst) {
  static int links[4096], len[16];
  int np = weft_fabric_paths(f, src, dst, links, 4096, len, 16), off = 0;
  const WeftGraph *g = weft_fabric_graph(f);
  for (int p = 0; p < np; p++) {
    fprintf(out, "%s %d %d:", kind, src, dst);
    for (int h = 0; h < len[p]; h++) {
      int u, v;
      weft_graph_link(g, links[off + h], &u, &v, NULL);
      if (!h) fprintf(out, " %d", u);
      fprintf(out, " %d", v);
    }
    fputc('\n', out);
    off += len[p];
  }
}

static void routes_body(FILE *out, const void *ctx) {
  const RoutesCtx *c = ctx;
  fputs("# kind src dst: the servers (and switches) each path visits\n", out);
  for (int a = 0; a < c->t->nallreduce; a++) { /* ring hops, member order */
    const WeftAllReduce *ar = &c->t->ar[a];
    for (int i = 0; i < ar->size; i++)
      route_lines(out, c->f, "allreduce", ar->members[i], ar->members[(i + 1) % ar->size]);
  }
  for (int i = 0; i < c->t->ndemand; i++)
    route_lines(out, c->f, "demand", c->t->demand[i].src, c->t->demand[i].dst);
}

/* Tables the strategy replicates; FC layers it makes model parallel (and
 * how many could be). */
static int replicated(const WeftTopoSearchResult *sr) {
  int k = 0;
  for (int i = 0; i < sr->ntables; i++) k += sr->placement[i] == WEFT_TABLE_REPLICATED;
  return k;
}

static int fc_layers(const WeftModel *m) {
  int k = 0;
  for (int l = 0; l < m->nlayers; l++) k += weft_layer_splittable(m, l);
  return k;
}

/* "strategy: tp 1; 3 of 26 tables replicated; FC layers model parallel:
 * top1, top2 (2 of 8)" */
static void print_strategy(const WeftModel *m, const WeftTopoSearchResult *sr) {
  printf("strategy: tp %d", sr->tp);
  if (sr->ntables) printf("; %d of %d tables replicated", replicated(sr), sr->ntables);
  int nfc = fc_layers(m), k = 0;
  if (nfc) {
    printf("; FC layers model parallel:");
    for (int l = 0; l < m->nlayers; l++)
      if (sr->layer_mp[l]) printf("%s %s", k++ ? "," : "", m->layer[l].name);
    printf("%s (%d of %d)", k ? "" : " none", k, nfc);
  }
  printf("\n");
}

static void print_table(const Args *a, const WeftTraffic *t, const Row *rows, int nrows,
                        const WeftTopoSearchResult *sr) {
  const int *st, *pairs;
  int ns = weft_fabric_strides(rows[0].f, &st), nmp = weft_fabric_mp_links(rows[0].f, &pairs);
  double ar = 0, mp = 0;
  for (int i = 0; i < t->nallreduce; i++) ar += t->ar[i].size_bytes;
  for (int i = 0; i < t->ndemand; i++) mp += t->demand[i].bytes;
  printf("weft topo: %s on %d servers, %d ports x %g Gbit/s\n",
         a->have_model ? a->model.name : a->val[T_TRAFFIC], a->servers, a->degree, a->port_gbit);
  if (sr) {
    printf("search: %d moves (%d accepted), %d topology rebuild%s; %.6f ms -> %.6f ms\n",
           sr->iterations, sr->accepted, sr->rounds, sr->rounds == 1 ? "" : "s",
           sr->first_time_ns / 1e6, sr->time_ns / 1e6);
    print_strategy(&a->model, sr);
  }
  printf("traffic: %d AllReduce group%s (%.0f bytes in all), %d model-parallel pair%s "
         "(%.0f bytes), compute %.6f ms\n",
         t->nallreduce, t->nallreduce == 1 ? "" : "s", ar, t->ndemand, t->ndemand == 1 ? "" : "s",
         mp, t->compute_ns / 1e6);
  printf("topology: AllReduce strides {");
  for (int k = 0; k < ns; k++) printf("%s%d", k ? ", " : "", st[k]);
  printf("}, %d model-parallel link%s\n\n", nmp, nmp == 1 ? "" : "s");
  printf("  %-22s %16s %14s %14s %9s %9s  %s\n", "fabric", "cost_usd", "time_ms", "comm_ms",
         "speedup", "link_util", "");
  for (int r = 0; r < nrows; r++)
    printf("  %-22s %16.0f %14.6f %14.6f %9.3f %9.3f  %s\n", rows[r].name, rows[r].cost_usd,
           rows[r].t.time_ns / 1e6, rows[r].t.comm_ns / 1e6, rows[r].t.time_ns / rows[0].t.time_ns,
           rows[r].t.max_link_util, rows[r].note);
  printf("\nspeedup: the fabric's time / TopoOpt's (above 1: TopoOpt is faster)\n");
}

static void print_json(const Args *a, const WeftTraffic *t, const Row *rows, int nrows,
                       const WeftTopoSearchResult *sr) {
  const int *st;
  int ns = weft_fabric_strides(rows[0].f, &st);
  const int *pairs;
  int nmp = weft_fabric_mp_links(rows[0].f, &pairs);
  printf("{\n  \"weft_version\": \"%s\",\n  \"job\": ", WEFT_VERSION);
  cli_json_str(stdout, a->have_model ? a->model.name : a->val[T_TRAFFIC]);
  printf(",\n  \"servers\": %d,\n  \"degree\": %d,\n  \"port_gbit\": ", a->servers, a->degree);
  cli_json_num(stdout, a->port_gbit);
  printf(",\n  \"allreduce_groups\": %d,\n  \"mp_pairs\": %d,\n  \"compute_ns\": ",
         t->nallreduce, t->ndemand);
  cli_json_num(stdout, t->compute_ns);
  printf(",\n  \"strides\": [");
  for (int k = 0; k < ns; k++) printf("%s%d", k ? ", " : "", st[k]);
  printf("],\n  \"mp_links\": %d,\n", nmp);
  if (sr) {
    printf("  \"search\": {\"moves\": %d, \"accepted\": %d, \"rebuilds\": %d, \"tp\": %d, "
           "\"tables_replicated\": %d, \"mp_layers\": [",
           sr->iterations, sr->accepted, sr->rounds, sr->tp, replicated(sr));
    for (int l = 0, k = 0; l < a->model.nlayers; l++)
      if (sr->layer_mp[l]) {
        printf("%s", k++ ? ", " : "");
        cli_json_str(stdout, a->model.layer[l].name);
      }
    printf("], \"first_time_ns\": ");
    cli_json_num(stdout, sr->first_time_ns);
    printf(", \"time_ns\": ");
    cli_json_num(stdout, sr->time_ns);
    printf("},\n");
  }
  printf("  \"fabrics\": [");
  for (int r = 0; r < nrows; r++) {
    printf("%s\n    {\"name\": ", r ? "," : "");
    cli_json_str(stdout, rows[r].name);
    printf(", \"cost_usd\": ");
    cli_json_num(stdout, rows[r].cost_usd);
    printf(", \"time_ns\": ");
    cli_json_num(stdout, rows[r].t.time_ns);
    printf(", \"comm_ns\": ");
    cli_json_num(stdout, rows[r].t.comm_ns);
    printf(", \"speedup\": ");
    cli_json_num(stdout, rows[r].t.time_ns / rows[0].t.time_ns);
    printf(", \"max_link_util\": ");
    cli_json_num(stdout, rows[r].t.max_link_util);
    printf(", \"flows\": %llu, \"note\": ", rows[r].t.flows);
    cli_json_str(stdout, rows[r].note);
    printf("}");
  }
  printf("\n  ]\n}\n");
}

/* The run's estimated work (weft_topo_work) over --max-work: say so, and
 * how to go on, before any of it is done. */
static int check_work(const Args *a, const WeftTraffic *t) {
  WeftTopoWork w;
  WeftTopoSettings ts = a->ts;
  ts.degree = a->degree;
  if (weft_topo_work(t, &ts, a->split, a->val[T_SEARCH] ? a->iterations : 0, &w)) return 0;
  if (!(a->max_work > 0) || w.work <= a->max_work) return 0;
  char mem[32];
  cli_fail("this run is estimated at %.2g steps, over --max-work %.2g (an upper estimate: "
           "%.2g wiring and routing indexes, %.2g matching rounds, %.2g simulation, %.2g "
           "strategy search), with %s of routing indexes at once",
           w.work, a->max_work, w.index, w.matching, w.simulation, w.search,
           cli_format_bytes(mem, sizeof mem, w.bytes));
  cli_fail("hint: fewer servers or ports, --port-split rings (one wiring, no matching), or "
           "--max-work N to run it anyway (0: no limit)");
  return EXIT_USAGE;
}

static void progress_cb(void *ctx, int done, int total, double best_ns) {
  (void)best_ns;
  cli_progress_update(ctx, (size_t)done, (size_t)total);
}

/* TopoOpt's fabric for the job: built once (and simulated: *tt, *timed),
 * or the search's. */
static int topoopt(Args *a, WeftTraffic **t, WeftFabric **f, WeftTopoSearchResult *sr,
                   int *searched, WeftTopoTime *tt, int *timed) {
  WeftError err;
  *searched = *timed = 0;
  if (!a->val[T_SEARCH]) {
    int rc = a->split == WEFT_PORT_SPLIT_BEST /* the fastest split comes simulated */
                 ? weft_topo_build_best(*t, &a->ts, f, NULL, tt, &err)
                 : weft_topo_build_split(*t, &a->ts, a->split, f, NULL, &err);
    if (rc == WEFT_ENOMEM) {
      cli_fail("out of memory wiring %d servers", a->servers);
      return EXIT_RUNTIME;
    }
    if (rc) {
      cli_error(&err);
      return rc == WEFT_EINPUT ? EXIT_USAGE : EXIT_RUNTIME;
    }
    *timed = a->split == WEFT_PORT_SPLIT_BEST;
    return 0;
  }
  WeftTopoSearch s;
  weft_topo_search_default(&s);
  s.model = &a->model;
  s.dev = &a->dev;
  s.nservers = a->servers;
  s.topo = a->ts;
  s.iterations = a->iterations;
  s.seconds = a->seconds;
  s.seed = a->seed;
  s.tp = a->tp;  /* the search starts from the given TP degree */
  s.layer_choice = 1; /* per table placed or replicated, per FC layer data or model parallel */
  CliProgress pg;
  cli_progress_start(&pg, "moves", -1.0);
  s.progress = progress_cb;
  s.progress_ctx = &pg;
  int rc = weft_topo_search(&s, sr, &err);
  cli_progress_end(&pg);
  if (rc) {
    cli_error(&err);
    return rc == WEFT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
  }
  *f = sr->fabric;
  *searched = 1;
  weft_traffic_free(*t); /* the traffic of the strategy found */
  *t = NULL;
  WeftStrategy st = {sr->tp, sr->ntables ? sr->placement : NULL, sr->layer_mp};
  if (weft_traffic_from_strategy(&a->model, &a->dev, a->servers, &st, t, &err)) {
    cli_error(&err);
    return EXIT_RUNTIME;
  }
  return 0;
}

int cmd_topo(int argc, char **argv) {
  Args a;
  if (parse(argc, argv, &a)) return EXIT_USAGE;
  if (a.val[T_HELP]) {
    help(stdout);
    return EXIT_OK;
  }
  const char *const onames[3] = {"--edges", "--dot", "--routes"},
                    *opaths[3] = {a.val[T_EDGES], a.val[T_DOT], a.val[T_ROUTES]};
  if (cli_out_check("--edges", a.val[T_EDGES]) || cli_out_check("--dot", a.val[T_DOT]) ||
      cli_out_check("--routes", a.val[T_ROUTES]) || cli_out_distinct(3, onames, opaths))
    return EXIT_USAGE;
  WeftTraffic *t = NULL;
  WeftTopoSearchResult sr;
  WeftError err;
  Row rows[5];
  int nrows = 0, searched = 0, timed = 0, rc = load(&a, &t);
  memset(rows, 0, sizeof rows);
  WeftFabric *f = NULL;
  WeftTopoTime ft;
  if (!rc) rc = check_work(&a, t);
  if (!rc) rc = topoopt(&a, &t, &f, &sr, &searched, &ft, &timed);
  if (!rc) {
    char note[96];
    snprintf(note, sizeof note, "%d x %g Gbit/s ports", a.degree, a.port_gbit);
    add_row(rows, &nrows, "topoopt", f, &a.prices, note);
    if (timed) rows[0].t = ft;
    double nic = a.ts.port_gbps * a.degree, fnic = nic, over = 0;
    WeftFabric *b = NULL;
    if (!weft_fabric_switch(a.servers, nic, &b, &err)) {
      snprintf(note, sizeof note, "%g Gbit/s per server", nic * 8);
      add_row(rows, &nrows, "ideal switch", b, &a.prices, note);
    } else {
      cli_error(&err);
    }
    b = NULL;
    int tiers = a.tiers, frc = weft_fabric_fattree_at_cost(a.servers, a.radix, tiers,
                                                           rows[0].cost_usd, &a.prices, &fnic,
                                                           &over, &b, &err);
    if (frc == WEFT_EINPUT && !a.val[T_TIERS] && !strcmp(err.field, "radix")) {
      tiers = 3; /* too many servers for 2 tiers of this radix: the 3-tier tree */
      fnic = nic;
      over = 0;
      frc = weft_fabric_fattree_at_cost(a.servers, a.radix, tiers, rows[0].cost_usd, &a.prices,
                                        &fnic, &over, &b, &err);
    }
    if (!frc) {
      snprintf(note, sizeof note, "%d-tier, %g Gbit/s NIC, %.2f:1", tiers, fnic * 8, over);
      add_row(rows, &nrows, "fat-tree (same cost)", b, &a.prices, note);
    } else {
      fprintf(stderr, "weft: no fat-tree row: %s\n", err.msg[0] ? err.msg : weft_strerror(frc));
    }
    b = NULL;
    if (a.servers * a.degree % 2 == 0 &&
        !weft_fabric_expander(a.servers, a.degree, a.ts.port_gbps, 1, &b, &err)) {
      snprintf(note, sizeof note, "random %d-regular", a.degree);
      add_row(rows, &nrows, "expander", b, &a.prices, note);
    }
    const WeftFabric *sim[5];
    WeftTopoTime st[5];
    for (int r = timed; r < nrows; r++) sim[r - timed] = rows[r].f;
    if (weft_fabric_simulate_many(sim, nrows - timed, t, a.threads, st, &err)) {
      cli_error(&err);
      rc = EXIT_RUNTIME;
    }
    for (int r = timed; !rc && r < nrows; r++) rows[r].t = st[r - timed];
  }
  if (!rc && a.val[T_EDGES]) rc = cli_write_file(a.val[T_EDGES], edges_body, f);
  if (!rc && a.val[T_DOT]) rc = cli_write_file(a.val[T_DOT], dot_body, f);
  RoutesCtx rctx = {f, t};
  if (!rc && a.val[T_ROUTES]) rc = cli_write_file(a.val[T_ROUTES], routes_body, &rctx);
  if (!rc) {
    if (a.val[T_JSON]) print_json(&a, t, rows, nrows, searched ? &sr : NULL);
    else print_table(&a, t, rows, nrows, searched ? &sr : NULL);
  }
  for (int r = 0; r < nrows; r++) weft_fabric_free(rows[r].f);
  if (!nrows) weft_fabric_free(f);
  weft_traffic_free(t);
  return rc;
}
