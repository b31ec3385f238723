/* sim_opts.h — what `weft simulate` and `weft validate` share: their option
 * table, the settings and bandwidth those options give, one simulated run
 * (with its trace file, trace.c) and the report pieces both print. */
#ifndef WEFT_CLI_SIM_OPTS_H
#define WEFT_CLI_SIM_OPTS_H

#include <stdio.h>

#include "inputs.h"
#include "opts.h"
#include "progress.h"
#include "weft.h"

enum { CLI_SIM_BW, CLI_SIM_CHUNKS, CLI_SIM_INFLIGHT, CLI_SIM_LATENCY, CLI_SIM_ENDPOINT,
       CLI_SIM_ALG, CLI_SIM_FIDELITY, CLI_SIM_SHARING, CLI_SIM_LIKE, CLI_SIM_ASTRA_SYS,
       CLI_SIM_EXPORT1, CLI_SIM_JSON, CLI_SIM_TRACE, CLI_SIM_TRACE_STAGES, CLI_SIM_TRACE_MAX,
       CLI_SIM_MAX_WORK, CLI_SIM_GAPTOL, CLI_SIM_PROGRESS, CLI_SIM_HELP, CLI_SIM_COUNT };

/* The default cap on a trace file (--trace-max-mib): 1 GiB. */
#define CLI_TRACE_MAX_MIB 1024.0

extern const CliOpt cli_sim_opts[CLI_SIM_COUNT];

/* Where a simulation's bandwidth comes from. */
enum { CLI_BW_OPTIMUM = 0, CLI_BW_GIVEN = 1, CLI_BW_NETWORK = 2 };

typedef struct {
  CliInputs in;
  const char *val[CLI_SIM_COUNT];
} CliSimArgs;

/* Parse argv (argv[0] the command); prints and returns EXIT_USAGE on a bad
 * option, else 0. */
int cli_sim_parse(int argc, char **argv, CliSimArgs *a);
/* The option table, inputs first, as --help prints it. */
void cli_sim_help_options(FILE *out);

typedef struct CliTrace CliTrace;

/* One simulated run and everything it owns (cli_sim_free releases it). */
typedef struct {
  WeftScenario *sc;
  WeftSpec spec;
  WeftProblem *prob;
  double bw_gbps[WEFT_MAX_DIMS];
  int bw_given;            /* CLI_BW_*: where the bandwidth came from */
  WeftResult opt;          /* that solve (CLI_BW_OPTIMUM) */
  WeftSimSettings set;
  WeftSimResult res;
  double wall_s;           /* the simulation's wall-clock time */
  CliTrace *trace;         /* --trace, NULL without */
  const char *trace_path;
  double trace_max_bytes;  /* --trace-max-mib, in bytes */
  double progress_s;       /* --progress (-1: the default) */
  CliProgress pg;          /* the simulator's progress (set.progress_ctx) */
} CliSimRun;

/* Everything up to the simulation: option values, inputs, the problem, the
 * bandwidth (given, or the optimum: a solve that finds none is reported as
 * optimize does), the trace file opened. cmd names the command. 0, or prints
 * why and returns the exit code. */
int cli_sim_prepare(const CliSimArgs *a, const char *cmd, CliSimRun *run);
/* Simulate and finish the trace (renamed into place). 0 or an exit code
 * (printed). */
int cli_sim_run(CliSimRun *run);
/* --export-astra1 DIR after a run: the design and settings as ASTRA-sim
 * 1.0 inputs (0 when not asked, or an exit code, printed). */
int cli_sim_export(const CliSimArgs *a, const CliSimRun *run);
/* Progress on stderr around a simulation (or several: a refine), through
 * run->set.progress. */
void cli_sim_progress_start(CliSimRun *run);
void cli_sim_progress_end(CliSimRun *run);
/* The one report of a failed simulation (weft_simulate, weft_refine_with_sim)
 * for every command: prints err (and how to raise the work limit when that
 * refused the run) and returns the exit code: EXIT_USAGE for what the input
 * asked (WEFT_EINPUT, WEFT_EINVAL: an algorithm that cannot run on its
 * group, the work limit), EXIT_RUNTIME for the rest (out of memory, an
 * internal failure). */
int cli_sim_failed(int rc, const WeftError *err);
/* in_flight as the reports say it: "all" (0 under weft's semantics), else
 * the count (0 under ASTRA-sim's is its 1), written into buf. */
const char *cli_sim_in_flight(const WeftSimSettings *s, char *buf, size_t n);
void cli_sim_free(CliSimRun *run);

/* Names of the fidelity, sharing and semantics values ("dim", "link";
 * "maxmin", "fifo"; "weft", "astra-sim"). */
const char *cli_fidelity_name(WeftFidelity f);
const char *cli_like_name(WeftSimLike l);
const char *cli_sharing_name(WeftSharing s);


/* The report's head: the command, settings, bandwidth and per-dim table. */
void cli_sim_print_head(FILE *out, const char *cmd, const CliSimRun *run);
/* The simulator's counters and wall time, one line. */
void cli_sim_print_counters(FILE *out, const CliSimRun *run);
/* JSON members shared by both commands (each line ends ",\n"): version,
 * loop, bandwidth and its source, settings, dims. */
void cli_sim_json_head(FILE *out, const CliSimRun *run);
/* JSON counters (events, flows, wall time), the last members. */
void cli_sim_json_counters(FILE *out, const CliSimRun *run);
void cli_json_arr(FILE *out, const double *v, int n);

/* Trace files (trace.c): Chrome trace-event JSON written through the
 * simulator's span callback to an output file (cli_out_open: a temporary
 * renamed over path by cli_trace_close(ok = 1), removed otherwise; a device
 * or FIFO written through). */
/* Open the output before simulating (0, or prints why and returns
 * EXIT_RUNTIME: the file system refused the path) and write the metadata
 * naming each job's lanes; stage lanes when s->stage_spans. spec, job_names
 * and s are borrowed until cli_trace_close. Events stop (the file stays
 * valid JSON) once the file would pass max_bytes: cli_trace_close then notes
 * it in the trace's metadata and warns on stderr. */
int cli_trace_open(const char *path, const WeftSpec *spec, const char *const *job_names,
                   const WeftSimSettings *s, double max_bytes, CliTrace **out);
void cli_trace_span(void *ctx, const WeftSimSpan *span);  /* a WeftSpanFn */
/* 0, or prints why and returns EXIT_RUNTIME (a write failed). */
int cli_trace_close(CliTrace *t, int ok);

#endif
