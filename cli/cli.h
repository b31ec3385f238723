/* cli.h — the weft command line: commands and the report writers.
 * A thin layer: parse arguments, read files, call libweft, print. */
#ifndef WEFT_CLI_H
#define WEFT_CLI_H

#include <stdio.h>

#include "weft.h"

/* Exit codes. */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

int cmd_optimize(int argc, char **argv);
int cmd_zoo(int argc, char **argv);       /* zoo.c */
int cmd_workload(int argc, char **argv);  /* workload.c */
int cmd_codesign(int argc, char **argv);  /* codesign.c */
int cmd_sweep(int argc, char **argv);     /* sweep.c */
int cmd_simulate(int argc, char **argv);  /* simulate.c */
int cmd_validate(int argc, char **argv);  /* validate.c */
int cli_refine(int argc, char **argv);    /* refine.c: optimize --refine-with-sim */
int cmd_topo(int argc, char **argv);      /* topo.c */
int cmd_topo_eval(int argc, char **argv); /* topo_eval.c */
/* A command by name (main.c's table). */
typedef struct {
  const char *name;
  int (*fn)(int, char **);
} CliCommand;
/* `weft options [COMMAND...]` over the commands cmds[0..n) (options.c). */
int cmd_options(int argc, char **argv, const CliCommand *cmds, int n);

/* The model zoo's directory (weft_zoo_dir): $WEFT_ZOO, $WEFT_DATA/zoo,
 * beside the weft binary (<exe dir>/../share/weft/zoo installed,
 * <exe dir>/../data/zoo in the source tree), PREFIX/share/weft/zoo, ./data/zoo. */
const char *cli_zoo_dir(void);
/* zoo_hw.c: `weft zoo NAME` for a device or a cluster preset. */
void zoo_json_num(FILE *out, double v);  /* whole numbers exactly, others %.12g */
int zoo_read_clusters(const char *zoo, WeftCluster **cs, int *nc, WeftError *err);
/* One cluster as a one-line JSON object, led by "kind": "cluster" when kind. */
void zoo_cluster_json(FILE *out, const WeftCluster *c, int kind);
/* Show the device or cluster called name: *shown 1 when one is, 0 when name
 * is neither; returns 0 or the library's code with err set. */
int zoo_show_hw(const char *zoo, const char *name, int json, int *shown, WeftError *err);
/* NAME names nothing of the zoo: the error, with the closest name. */
void zoo_unknown(const char *zoo, const char *name);

/* Output files (files.c), over weft_out_* (include/weft.h): a regular file
 * through a temporary renamed into place, anything else (/dev/null, a FIFO)
 * written through. Temporaries are removed when a signal ends the run
 * (SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1/2, SIGALRM, SIGXCPU,
 * SIGVTALRM, SIGPROF: removed, then the signal's default action, so the exit
 * status still names it). Each prints why on failure and returns EXIT_RUNTIME
 * (the file system refused: a missing directory, a directory, no permission,
 * a full disk), or EXIT_USAGE for an empty path. */
int cli_out_check(const char *option, const char *path);  /* before any work: "" is usage */
int cli_out_distinct(int n, const char *const *names, const char *const *paths); /* usage */
int cli_out_open(const char *path, WeftOut **o);
int cli_out_commit(WeftOut *o);                            /* frees o */
int cli_out_commit_all(WeftOut *const *o, int n);          /* all or none; frees each */
void cli_out_discard(WeftOut *o);                          /* NULL is fine */
/* Write path through body(f, ctx) (write errors show at the commit). */
typedef void (*CliWriteFn)(FILE *f, const void *ctx);
int cli_write_file(const char *path, CliWriteFn body, const void *ctx);
/* At start: SIGXFSZ ignored, so a write past `ulimit -f` fails with EFBIG
 * (reported, temporary removed, exit 1) instead of killing the process. */
void cli_signals_init(void);
/* Flush and close stdout at exit: 0, or prints why and returns EXIT_RUNTIME. */
int cli_close_stdout(void);

/* ASTRA-sim 1.0 inputs (astra1.c): the settings weft optimize exports with
 * (weft's simulation defaults, ASTRA-sim's 10 ns endpoint delay, the
 * network's latency or 500 ns per hop); write every file into dir or none
 * (0, or prints why and returns the exit code); the note saying what was
 * written in which units. */
void cli_astra1_settings(const WeftNetwork *net, WeftSimSettings *s);
/* What ASTRA-sim 1.0 cannot express, before any work: 0, or prints why and
 * returns EXIT_USAGE. */
int cli_astra1_check(const WeftSpec *spec);
int cli_export_astra1(const char *dir, const WeftSpec *spec, const double *bw_gbps,
                      const WeftSimSettings *s);
void cli_astra1_note(FILE *out, const char *dir, const WeftSpec *spec, const WeftSimSettings *s);

/* Print "weft: <where>: <msg>" for a library error. */
void cli_error(const WeftError *err);
/* Print "weft: <printf message>". */
void cli_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* What a report shows: the solved problem and its baseline. */
/* --link-gbps R1,...,RD and --max-links M1,...,MD (either may be NULL) onto
 * the network (links.c): EXIT_OK, or prints why and returns EXIT_USAGE. */
int cli_links_apply(const char *rates, const char *maxes, WeftNetwork *net);
/* A comma-separated list of numbers (flag names it) into out[]: the count,
 * or -1 (printed). */
int cli_numbers(const char *flag, const char *v, double *out);
/* Spares in reports, nothing when the network has none (links.c): after the
 * head's NPU count (" + 1792 spares (16128 bought)"), at the end of dim d's
 * row, and in JSON: d < 0 the top-level "npus" and "spares" lines, else
 * ', "spares": N' inside dim d's object. Dim d's row and object also get its
 * fabric shape when it is not LIBRA's fat-tree ("  rail-optimized",
 * ', "fabric": "rail-optimized"') and its planes when more than one
 * ("  2 planes", ', "planes": 2'). */
void cli_spares_head(FILE *out, const WeftNetwork *net);
void cli_spares_dim(FILE *out, const WeftNetwork *net, int d);
void cli_spares_json(FILE *out, const WeftNetwork *net, int d);
/* --active LIST (NULL: nothing) onto the network (weft_network_set_active):
 * WEFT_OK or the error in err. */
int cli_active_apply(const char *active, WeftNetwork *net, WeftError *err);

typedef struct {
  const WeftSpec *spec;
  const WeftResult *res;
  const WeftWholeResult *whole; /* whole links: the branch and bound's (res is its result) */
  const WeftEval *equal;       /* EqualBW baseline: NULL when not solved or none exists */
  const double *equal_bw_gbps;
  const char *equal_none;      /* why there is no EqualBW baseline (solved, equal NULL) */
  const char *job_names[WEFT_MAX_JOBS];
  /* System cost (docs/model.md "System cost"): shown when the cost model
   * gives a system figure or the objective is cost-per-iteration. */
  int system;
  WeftSystemCost sys;           /* defaults filled in */
  double tokens_per_iteration;  /* one model job's, else 0 */
  double train_tokens;          /* --train-tokens, else 0 */
  const WeftDimParts *parts;   /* each dim's parts (the scenario's), NULL when none has one */
  const WeftPartChoices *choices; /* a choice of parts: every combination, NULL when none */
} Report;

/* JSON scalars for every command (json.c). A string as valid UTF-8 JSON
 * whatever its bytes: well-formed UTF-8 passed through, '"' and '\\'
 * escaped, control characters as \u00XX, and each ill-formed sequence
 * (overlong forms, encoded surrogates, stray continuation bytes, truncated
 * sequences, bytes F5..FF) as one \ufffd per maximal subpart (Unicode's
 * recommended practice). A number as %.12g, or null when not finite. */
void cli_json_str(FILE *out, const char *s);
void cli_json_num(FILE *out, double v);

void report_table(FILE *out, const Report *r);
void report_json(FILE *out, const Report *r);
/* The system cost's inputs as one line, each marked given or defaulted
 * (report.c; optimize's and codesign's reports). */
void cli_system_inputs(FILE *out, const WeftSystemCost *s);

/* The parts of a network built of them (parts_report.c): a table and the
 * bill of materials; the JSON "parts" member (one entry per dim). */
void report_parts_table(FILE *out, const Report *r);
void report_parts_json(FILE *out, const Report *r);
/* The table of every bound dim's bill of materials (weft_parts_bom) (bw, links per dim), the
 * NPUs' row when sys is given (their count, N x Npu $, N x NpuPowerW W), and
 * the total; and one dim's as a JSON object (links_per_npu ... power_w). */
void cli_bom_table(FILE *out, const WeftNetwork *net, const WeftDimParts *parts,
                   const double *bw, const double *links, const WeftSystemCost *sys);
void cli_bom_json(FILE *out, const WeftPartsBom *b);
/* A choice of parts: every combination's objective (r->choices). */
void report_choices_table(FILE *out, const Report *r);
void report_choices_json(FILE *out, const Report *r);
/* --parts FILE on topo and topo-eval (parts_prices.c): TopoOpt's prices from
 * the catalog beside zoo (NULL: cli_zoo_dir()) with file over it; EXIT_OK,
 * or prints why and returns EXIT_USAGE. */
int cli_parts_prices(const char *zoo, const char *file, WeftPrices *p);
/* --parts-per-dim's text split at commas into names[] (each trimmed, in
 * buf; at most WEFT_MAX_DIMS + 1, so one too many is seen): their count
 * (inputs.c; optimize's and codesign's one reader). */
#define CLI_PARTS_LIST_LEN (WEFT_MAX_DIMS * WEFT_NAME_LEN + WEFT_MAX_DIMS)
int cli_parts_list(const char *list, char buf[CLI_PARTS_LIST_LEN],
                   const char *names[WEFT_MAX_DIMS + 1]);
/* `weft zoo --parts [--parts-file FILE]` (zoo_parts.c): the catalog beside
 * zoo with file (NULL none) over it, a table or JSON; an exit status. */
int cli_zoo_parts(const char *zoo, const char *file, int as_json);

#endif
