/* weft.h — the one public header of libweft.
 * Network-fabric design for AI training clusters: exact LIBRA bandwidth allocation. */
#ifndef WEFT_H
#define WEFT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_VERSION "0.1.0"

/* ------------------------------------------------------------------ limits */
#define WEFT_MAX_DIMS 16        /* network dimensions */
#define WEFT_MAX_COST_CLASSES 32
#define WEFT_MAX_CONSTRAINTS 64
#define WEFT_MAX_JOBS 16        /* workloads optimised together */
#define WEFT_MAX_GROUPS 8       /* named groups of a communicator */
#define WEFT_NAME_LEN 64
#define WEFT_PATH_LEN 512

/* ------------------------------------------------------------------ errors
 * API return codes: 0 on success, a negative WEFT_E* otherwise. One table,
 * so codes and messages cannot drift apart. */
#define WEFT_ERRNO_MAP(X)                                          \
  X(EINVAL, -1, "invalid argument")                                \
  X(ENOMEM, -2, "out of memory")                                   \
  X(EIO, -3, "cannot read or write file")                          \
  X(ESYNTAX, -4, "syntax error")                                   \
  X(EINPUT, -5, "invalid input")                                   \
  X(EMODEL, -6, "inconsistent model")                              \
  X(ESOLVER, -7, "solver failure")

typedef enum {
  WEFT_OK = 0,
#define WEFT_ERRNO_ENUM_(name, val, msg) WEFT_##name = val,
  WEFT_ERRNO_MAP(WEFT_ERRNO_ENUM_)
#undef WEFT_ERRNO_ENUM_
} WeftErrno;

/* Message for a WeftErrno (never NULL). */
const char *weft_strerror(int code);

/* Filled by parsers and validators: where and what. file may be "" (no
 * file, e.g. a command-line constraint), line/col are 1-based, 0 = unknown. */
typedef struct {
  int code;                       /* a WeftErrno */
  char file[WEFT_PATH_LEN];
  int line;
  int col;
  char field[WEFT_NAME_LEN];      /* offending key or field name, may be "" */
  char msg[256];                  /* lowercase, no trailing period */
} WeftError;

/* Reset err to WEFT_OK with empty strings. NULL is allowed. */
void weft_error_clear(WeftError *err);
/* Set err (if non-NULL) and return code. printf-style message. */
int weft_error_set(WeftError *err, int code, const char *file, int line, int col,
                   const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;
/* "file:line:col: msg" (parts omitted when unknown) into buf. Returns buf. */
char *weft_error_format(const WeftError *err, char *buf, size_t size);

/* The one number syntax of weft's input files and command-line options:
 * an optional sign, decimal digits with an optional point and exponent
 * ("12", "-0.5", "1e-6"); no hex, spaces, inf or nan. The whole of
 * s[0..len) must parse to a finite value that is zero or at least DBL_MIN
 * in magnitude. WEFT_OK with *out set, or WEFT_EINPUT with *why (static
 * text, if why is non-NULL): "not a number", "not a finite number" or "a
 * denormal number (...)". */
int weft_number_parse(const char *s, size_t len, double *out, const char **why);

/* ------------------------------------------------------------------ network
 * One building block per dimension, innermost first (dim 0 = B1). */
typedef enum { WEFT_RING = 0, WEFT_FULLY_CONNECTED = 1, WEFT_SWITCH = 2 } WeftTopology;

typedef struct {
  int ndims;
  WeftTopology topology[WEFT_MAX_DIMS];
  int npus[WEFT_MAX_DIMS];                      /* NPUs per dim, each > 1 */
  char cost_dim[WEFT_MAX_DIMS][WEFT_NAME_LEN];  /* cost-class name per dim */
  int line[WEFT_MAX_DIMS];                      /* source line per dim (0 unknown) */
  char file[WEFT_PATH_LEN];                     /* source file (the scenario when inline) */
  /* How collectives run on each dim (weft's extension of LIBRA's file,
   * optional keys Efficiency and LatencyNs; docs/model.md). A collective
   * takes sum_d latency_ns[d] * steps_d + max_d bytes_d / (efficiency[d] * B_d),
   * steps_d those of the dim's default algorithm (weft_collective_steps). */
  double efficiency[WEFT_MAX_DIMS];  /* achievable fraction of B_d, (0, 1]; 0 = 1 */
  double latency_ns[WEFT_MAX_DIMS];  /* per algorithm step; 0 = none */
  /* A design the file carries: an ASTRA-sim 2.0 analytical network's
   * `bandwidth` (per link, in its GB/s of 2^30 bytes/s) as per-NPU B_d in
   * GB/s; all 0 when the file has none. Its per-hop `latency` is read into
   * latency_ns per step (a Switch step is 2 hops). CostDimension may then be
   * absent: the cost model's classes are taken in order (weft_cost_per_gbps). */
  double design_gbps[WEFT_MAX_DIMS];
} WeftNetwork;

/* ASTRA-sim's "GB/s" is 2^30 bytes/s; weft's GB/s is 1e9 bytes/s (= bytes/ns). */
#define WEFT_ASTRA_GBPS_PER_GIBPS (1073741824.0 / 1e9)

const char *weft_topology_name(WeftTopology t);  /* "Ring", ... */
double weft_network_npus_total(const WeftNetwork *net);

/* ------------------------------------------------------------------ cost model
 * $ per GB/s of link bandwidth, per cost class (LIBRA's cost_model yml). */
typedef struct {
  char name[WEFT_NAME_LEN];
  double link_usd_per_gbps, switch_usd_per_gbps, nic_usd_per_gbps;
  int has_link, has_switch, has_nic;
  int line;
} WeftCostClass;

typedef struct {
  int nclasses;
  WeftCostClass cls[WEFT_MAX_COST_CLASSES];
  char file[WEFT_PATH_LEN];
} WeftCostModel;

/* Network cost per GB/s of per-NPU bandwidth for each dim (LIBRA's counts:
 * Ring and FullyConnected N*link, Switch N*(link+nic+switch)), into
 * usd_per_gbps[ndims]. Fails naming the class or element that is missing. */
int weft_cost_per_gbps(const WeftNetwork *net, const WeftCostModel *cm,
                       double *usd_per_gbps, WeftError *err);

/* ------------------------------------------------------------------ workload */
typedef enum {
  WEFT_COLL_NONE = 0,
  WEFT_COLL_ALLREDUCE,
  WEFT_COLL_REDUCESCATTER,
  WEFT_COLL_ALLGATHER,
  WEFT_COLL_ALLTOALL,
  WEFT_COLL_SENDRECV  /* point-to-point to the next member (pipeline stages): S on
                         every dim the group spans, so the slowest hop sets the time.
                         A weft extension: not in ASTRA-sim 1.0 / LIBRA */
} WeftCollective;
#define WEFT_NCOLL 6

typedef enum { WEFT_PHASE_FWD = 0, WEFT_PHASE_IG = 1, WEFT_PHASE_WG = 2 } WeftPhase;
#define WEFT_NPHASES 3

const char *weft_collective_name(WeftCollective c);  /* "ALLREDUCE", ... */
const char *weft_phase_name(WeftPhase p);            /* "forward", "input_grad", "weight_grad" */

typedef struct {
  double compute_ns;
  WeftCollective coll;
  double size_bytes;
  int group;  /* 0: the communicator's group for this phase (LIBRA); k >= 1: the
                 workload's group_name[k-1], found by name among the
                 communicator's named groups; a weft extension written
                 "ALLREDUCE@name" in workload text */
} WeftPhaseSpec;

typedef struct {
  char name[WEFT_NAME_LEN];
  WeftPhaseSpec phase[WEFT_NPHASES];
  double update_ns;  /* read, kept, not part of LIBRA's iteration time */
  int line;
} WeftLayer;

typedef struct WeftWorkload {
  int nlayers;
  int capacity;      /* allocated layers */
  WeftLayer *layers;
  char policy[128];  /* ASTRA-sim 1.0 header policy line, "" when absent */
  int ngroups;       /* named groups its phases use (WeftPhaseSpec.group) */
  char group_name[WEFT_MAX_GROUPS][16];
  char file[WEFT_PATH_LEN];
} WeftWorkload;

WeftWorkload *weft_workload_create(void);
void weft_workload_free(WeftWorkload *wl);  /* NULL is fine */
/* Append a layer (copies it). */
int weft_workload_add(WeftWorkload *wl, const WeftLayer *layer);

/* ------------------------------------------------------------------ communicator
 * Per phase, per dim: NPUs of that dim the phase's collective spans; -1 = not
 * involved. A number smaller than the dim's size is a partial dim. */
typedef struct {
  int ndims;
  int group[WEFT_NPHASES][WEFT_MAX_DIMS];
  int line[WEFT_NPHASES];
  /* Named groups beyond LIBRA's three (pipeline, ZeRO-3 data-parallel, expert
   * parallel, ...), for layers whose phase names one (WeftPhaseSpec.group).
   * In communicator yml: `Groups: {pp: [...], dp: [...]}`. */
  int nextra;
  int extra[WEFT_MAX_GROUPS][WEFT_MAX_DIMS];
  char extra_name[WEFT_MAX_GROUPS][16];
  int extra_line[WEFT_MAX_GROUPS];
  char file[WEFT_PATH_LEN];
} WeftCommunicator;

/* The named group called name (per-dim NPU counts, -1 = not involved), or NULL. */
const int *weft_communicator_find(const WeftCommunicator *comm, const char *name);

/* Check the communicator against the network (length, 1 <= n <= dim size or -1). */
int weft_communicator_check(const WeftCommunicator *comm, const WeftNetwork *net,
                            WeftError *err);

/* Algorithm steps of collective c on each dim of group[] (0 on dims it
 * does not span), with each dim's default algorithm as the simulator runs
 * it: Ring n-1 (ring), FullyConnected 1 (direct), Switch log2 n (halving-
 * doubling; n-1 when n is not a power of two); an all-reduce takes both
 * halves (twice), a send-recv 1. Returns the steps summed over the dims. */
int weft_collective_steps(WeftCollective c, const int *group, const WeftNetwork *net, int *steps);
/* The latency of one such collective: sum_d net->latency_ns[d] * steps_d. */
double weft_collective_latency_ns(WeftCollective c, const int *group, const WeftNetwork *net);

/* Per-dim traffic (bytes per NPU) of one collective of size_bytes over the dims
 * in group[]: LIBRA's model. traffic_bytes[ndims] is written. */
void weft_collective_traffic(WeftCollective c, double size_bytes, const int *group,
                             int ndims, double *traffic_bytes);

/* ------------------------------------------------------------------ constraints
 * A linear (in)equality over B1..BD and cost:
 *   sum_d coef[d]*B_d + cost_coef*cost  REL  rhs. */
typedef enum { WEFT_REL_LE = 0, WEFT_REL_GE = 1, WEFT_REL_EQ = 2 } WeftRelation;

typedef struct {
  double coef[WEFT_MAX_DIMS];
  double cost_coef;
  double rhs;
  WeftRelation rel;
  char text[128];  /* the source text it came from, for messages */
} WeftConstraint;

typedef struct {
  int n;
  WeftConstraint c[WEFT_MAX_CONSTRAINTS];
} WeftConstraints;

/* Parse one expression such as "B1 >= B2 >= B3", "sum = 1000", "cost <= 2e7",
 * "2*B2 <= B1 + 10" and append one constraint per relation of a chain
 * (< and > mean <= and >=: the feasible set is closed). On error cs is
 * left unchanged.
 * ndims bounds the B indices. err names the column of the offending token;
 * err->file/line are left for the caller to fill (they know the source). */
int weft_constraints_parse(WeftConstraints *cs, const char *expr, int ndims, WeftError *err);

/* ------------------------------------------------------------------ I/O
 * Readers for LIBRA's inputs (files as they are) and weft's scenario. All
 * report file, line, column and field on failure, with WEFT_EIO, WEFT_ESYNTAX
 * or WEFT_EINPUT. */
int weft_network_read(const char *path, WeftNetwork *net, WeftError *err);
int weft_cost_model_read(const char *path, WeftCostModel *cm, WeftError *err);
int weft_communicator_read(const char *path, WeftCommunicator *comm, WeftError *err);
/* ASTRA-sim 1.0 workload text; *out is created by the call. */
int weft_workload_read(const char *path, WeftWorkload **out, WeftError *err);
int weft_workload_parse(const char *text, const char *name, WeftWorkload **out,
                        WeftError *err);

/* ------------------------------------------------------------------ scenario
 * weft's own YAML scenario (docs/scenario.md): network, cost model, one or
 * more workloads with communicators and weights, constraints, objective and
 * training loop, each inline or as a path relative to the scenario file. */
typedef struct {
  WeftNetwork net;
  WeftCostModel cost;
  int njobs;
  WeftWorkload *workload[WEFT_MAX_JOBS];  /* owned */
  WeftCommunicator comm[WEFT_MAX_JOBS];
  double weight[WEFT_MAX_JOBS];
  char job_name[WEFT_MAX_JOBS][WEFT_NAME_LEN];
  WeftConstraints cons;
  int objective;  /* WeftObjective */
  int loop;       /* WeftLoop */
  char file[WEFT_PATH_LEN];
} WeftScenario;

WeftScenario *weft_scenario_create(void);
void weft_scenario_free(WeftScenario *sc);  /* NULL is fine */
int weft_scenario_read(const char *path, WeftScenario *sc, WeftError *err);
/* The same, with the model zoo at zoo_dir (NULL = "data/zoo", relative to the
 * working directory) for jobs whose workload is a model mapping
 * ({model: gpt3-175b, tp: 16, ...}: docs/scenario.md); a `zoo:` key in the
 * scenario (relative to it) overrides zoo_dir. weft_scenario_read(p, sc, e)
 * is weft_scenario_read_zoo(p, NULL, sc, e). */
int weft_scenario_read_zoo(const char *path, const char *zoo_dir, WeftScenario *sc,
                           WeftError *err);

/* ------------------------------------------------------------------ problem */
typedef enum { WEFT_OBJ_PERF = 0, WEFT_OBJ_PERF_PER_COST = 1 } WeftObjective;
typedef enum { WEFT_LOOP_NO_OVERLAP = 0, WEFT_LOOP_TP_DP_OVERLAP = 1 } WeftLoop;

const char *weft_objective_name(WeftObjective o);  /* "perf", "perf-per-cost" */
const char *weft_loop_name(WeftLoop l);            /* "no-overlap", "tp-dp-overlap" */

typedef struct {
  const WeftWorkload *workload;
  const WeftCommunicator *comm;
  double weight;  /* weight of its iteration time in the objective (> 0) */
  char name[WEFT_NAME_LEN];
} WeftJob;

/* Everything the optimiser needs; all pointers are borrowed. */
typedef struct {
  const WeftNetwork *net;
  const WeftCostModel *cost;
  int njobs;
  WeftJob jobs[WEFT_MAX_JOBS];
  const WeftConstraints *cons;  /* may be NULL: no constraints */
  WeftObjective objective;
  WeftLoop loop;
} WeftSpec;

/* A spec borrowing everything from a scenario (valid while sc lives). */
void weft_scenario_spec(const WeftScenario *sc, WeftSpec *spec);

/* Solve status: kept apart from API errors (return codes). */
#define WEFT_STATUS_MAP(X)                                              \
  X(SOLVED, "solved")                                                   \
  X(INFEASIBLE, "infeasible")                                           \
  X(UNBOUNDED, "unbounded")                                             \
  X(MAX_ITER, "iteration limit reached")                                \
  X(NUMERICAL, "numerical difficulty")

typedef enum {
#define WEFT_STATUS_ENUM_(name, msg) WEFT_STATUS_##name,
  WEFT_STATUS_MAP(WEFT_STATUS_ENUM_)
#undef WEFT_STATUS_ENUM_
} WeftSolveStatus;

const char *weft_status_name(WeftSolveStatus s);  /* "solved", ... */

typedef struct {
  double gap_tol;  /* target relative optimality gap */
  int max_iter;    /* interior-point iterations per solve */
} WeftSettings;

void weft_settings_default(WeftSettings *s);

/* Iteration time of one job at a given bandwidth, split up. */
typedef struct {
  double time_ns;                          /* iteration time */
  double compute_ns;                       /* sum of compute, all phases */
  double comm_ns[WEFT_NPHASES];            /* collective time per phase (sum) */
  double exposed_comm_ns[WEFT_NPHASES];    /* of which not hidden by overlap */
} WeftJobTime;

typedef struct {
  double time_ns;      /* objective's time: weighted sum over jobs */
  double cost_usd;     /* network cost */
  double perf_per_cost;  /* time_ns * cost_usd (lower is better) */
  WeftJobTime job[WEFT_MAX_JOBS];
} WeftEval;

#define WEFT_DIM_UNUSED 1  /* no collective uses the dim: set by constraints alone */

typedef struct {
  WeftSolveStatus status;
  int ndims;
  double bw_gbps[WEFT_MAX_DIMS];
  int dim_flags[WEFT_MAX_DIMS];  /* WEFT_DIM_* bits */
  WeftEval eval;                 /* at bw_gbps */
  double objective;              /* time_ns (perf) or time_ns*cost_usd */
  double lower_bound;            /* certified lower bound on the objective */
  double gap;                    /* (objective - lower_bound) / |lower_bound| */
  int iterations;                /* interior-point iterations, all phases */
  int tie_broken;                /* 1 when the optimum was flat: cheapest kept */
  int nconflict;                 /* INFEASIBLE: constraints in conflict */
  int conflict[WEFT_MAX_CONSTRAINTS];  /* indices into spec->cons (every B >= 0 is implied) */
  char message[256];             /* why, for INFEASIBLE/UNBOUNDED/... */
} WeftResult;

typedef struct WeftProblem WeftProblem;

/* Build the problem (merge terms, resolve costs). Validates the spec. */
int weft_problem_create(const WeftSpec *spec, WeftProblem **out, WeftError *err);
void weft_problem_free(WeftProblem *p);  /* NULL is fine */
/* Solve exactly. Returns 0 when a status was determined (see res->status),
 * a negative WeftErrno otherwise. Allocates nothing proportional to the
 * workload: only small tableaux sized by dims and constraints. */
int weft_problem_solve(WeftProblem *p, const WeftSettings *settings, WeftResult *res);
/* Iteration times and cost at bw_gbps[ndims] (every used dim > 0). */
int weft_problem_evaluate(const WeftProblem *p, const double *bw_gbps, WeftEval *ev);
/* EqualBW baseline, LIBRA's: the design's total bandwidth split evenly. It
 * ignores the constraints; prefer weft_problem_equal_bw. */
void weft_equal_bw(const double *bw_gbps, int ndims, double *equal_gbps);
/* The best design with every B_d equal that meets p's constraints (perf:
 * the largest such B; perf-per-cost: the smallest B > 0). Returns 1 with
 * bw_gbps[ndims] set, or 0 with why (if not NULL) saying why there is none. */
int weft_problem_equal_bw(const WeftProblem *p, double *bw_gbps, char *why, size_t whylen);

/* ------------------------------------------------------------------ output files
 * Every file weft writes goes through a WeftOut. A regular file (or a new
 * one; symbolic links are followed to it) is written to a temporary file
 * beside it (NAME.tmp.XXXXXX, the umask's mode for a new file, the old one's
 * mode for a replaced one) and renamed over it by weft_out_commit: a reader
 * never sees half a file and a failure leaves the old file as it was. A path
 * that exists and is not a regular file (/dev/null, /dev/stdout, a FIFO, a
 * terminal) is never replaced: it is written through, as cp does, and a
 * write error (/dev/full) is reported by the commit. A directory, a
 * read-only file or a missing directory on the way: WEFT_EIO at open.
 * WEFT_EINVAL for an empty path. */
typedef struct WeftOut WeftOut;
int weft_out_open(const char *path, WeftOut **out, WeftError *err);
FILE *weft_out_stream(WeftOut *o);        /* where to write */
const char *weft_out_path(const WeftOut *o);
/* The temporary file's path, NULL when written through: a program that can
 * be interrupted removes it from its signal handler. Valid until the commit. */
const char *weft_out_temp(const WeftOut *o);
/* Flush, close and rename into place; frees o. WEFT_EIO when a write or the
 * rename failed (the temporary is removed, the target left as it was). */
int weft_out_commit(WeftOut *o, WeftError *err);
/* Commit o[0..n) as one: every file renamed into place, or none (files
 * already renamed are put back from a hard-link backup, new ones removed;
 * written-through outputs cannot be taken back). Frees every o[i]. */
int weft_out_commit_all(WeftOut *const *o, int n, WeftError *err);
void weft_out_discard(WeftOut *o);        /* close, remove the temporary, free; NULL is fine */

/* ------------------------------------------------------------------ export
 * ASTRA-sim 2.0 analytical network yml for the design: per-link bandwidth
 * (Ring B/2, FullyConnected B/(n-1), Switch B) and latency_ns per dim. */
int weft_astra_network_write(const char *path, const WeftNetwork *net, const double *bw_gbps,
                             const double *latency_ns, WeftError *err);
/* The same into an open output (weft_out_open); o is left open. */
int weft_astra_network_emit(WeftOut *o, const WeftNetwork *net, const double *bw_gbps,
                            const double *latency_ns, WeftError *err);

/* ------------------------------------------------------------------ model zoo
 * Models and devices are data (data/zoo/, docs/zoo.md): one YAML file per
 * model, one devices.yml. FLOPs count 2 per multiply-add. */
typedef enum { WEFT_ARCH_TRANSFORMER = 0, WEFT_ARCH_DLRM = 1, WEFT_ARCH_CNN = 2 } WeftArch;

#define WEFT_MAX_MODEL_LAYERS 128  /* CNN layers, DLRM MLP layers */

/* One layer of a CNN or MLP, expanded from the model file. */
typedef struct {
  char name[WEFT_NAME_LEN];
  double fwd_flops;  /* forward FLOPs per sample */
  double params;     /* weights + biases */
  double act_elems;  /* output activation elements per sample (kept for backward) */
} WeftModelLayer;

typedef struct {
  char name[WEFT_NAME_LEN];   /* zoo key, e.g. "gpt3-175b" */
  char title[128];            /* e.g. "GPT-3 175B" */
  char source[256];           /* where the hyper-parameters come from */
  WeftArch arch;
  int global_batch;           /* sequences (samples) per iteration */
  /* transformer */
  int seq_len, layers, hidden, heads, kv_heads, ffn_hidden, vocab;
  int ffn_matrices;           /* 2 (GeLU MLP) or 3 (SwiGLU) */
  int experts, top_k, moe_every;  /* MoE: experts 0 = dense; every moe_every-th layer */
  /* dlrm: embedding tables (model parallel); MLPs in layer[] (bottom then top) */
  int tables, emb_dim, pooling;   /* pooling: lookups per table per sample */
  double table_rows;              /* rows per table (mean) */
  int nbottom;                    /* layer[0..nbottom) bottom MLP, rest top MLP */
  /* cnn and dlrm MLPs */
  int nlayers;
  WeftModelLayer layer[WEFT_MAX_MODEL_LAYERS];
  char file[WEFT_PATH_LEN];
} WeftModel;

typedef struct {
  char name[WEFT_NAME_LEN];  /* "a100", "h100", ... */
  char title[128];
  double peak_flops;         /* dense BF16/FP16 tensor FLOP/s */
  double hbm_bytes;          /* HBM capacity */
  double hbm_bytes_per_s;    /* HBM bandwidth */
  char source[256];
  /* Per-operator compute model (src/model/opcost.c, docs/zoo.md); all 0
   * when devices.yml gives none: then compute is charged per FLOP at
   * WeftParallel.efficiency (0.5 when that is left at 0). */
  double peak_fp8_flops;     /* dense FP8 tensor FLOP/s (0: none) */
  double peak_tf32_flops;    /* dense TF32 tensor FLOP/s (0: none) */
  double peak_vector_flops;  /* FP32 FLOP/s off the tensor cores: softmax, norms, ... */
  int sms;                   /* SMs (CUs on AMD): GEMM tiles run in waves of this many */
  int tile_m, tile_n;        /* output tile of large GEMMs (256 x 128) */
  double gemm_efficiency;    /* largest fraction of peak a large GEMM sustains */
  double hbm_efficiency;     /* fraction of hbm_bytes_per_s a streaming kernel sustains */
} WeftDevice;

/* Read one model file. */
int weft_model_read(const char *path, WeftModel *m, WeftError *err);
/* A model by zoo name ("gpt3-175b": zoo_dir/models/gpt3-175b.yml) or, when
 * name contains '/' or ends in .yml, by path. */
int weft_zoo_model(const char *zoo_dir, const char *name, WeftModel *m, WeftError *err);
/* A device by name from zoo_dir/devices.yml. */
int weft_zoo_device(const char *zoo_dir, const char *name, WeftDevice *dev, WeftError *err);
/* Every device of zoo_dir/devices.yml in file order, at most max into devs
 * (NULL when max is 0); *count gets the total. */
int weft_zoo_devices(const char *zoo_dir, WeftDevice *devs, int max, int *count, WeftError *err);
/* Names of the zoo's models (sorted), at most max; *count gets the total. */
int weft_zoo_list(const char *zoo_dir, char (*names)[WEFT_NAME_LEN], int max, int *count,
                  WeftError *err);
/* Parameters of the whole model (for reports). */
double weft_model_params(const WeftModel *m);

/* ------------------------------------------------------------------ parallelization */
typedef enum { WEFT_PAR_TP = 0, WEFT_PAR_PP = 1, WEFT_PAR_DP = 2 } WeftParDim;

typedef struct {
  int tp, pp, dp;        /* degrees; tp*pp*dp = the network's NPUs */
  int ep;                /* expert parallel degree (MoE), divides dp; 1 = off */
  int micro_batch;       /* sequences per micro-batch */
  int virtual_stages;    /* interleaved 1F1B: model chunks per stage (1 = plain 1F1B) */
  int sequence_parallel; /* Megatron SP: reduce-scatter + all-gather for TP */
  int zero_stage;        /* 0..3 (1 optimizer states, 2 + gradients, 3 + parameters) */
  int recompute;         /* a WeftRecompute: 0 none, 1 full, 2 selective */
  WeftParDim order[3];   /* how groups are laid on dims, innermost first */
  double efficiency;     /* achieved fraction of the device's peak FLOP/s, charged per
                            FLOP; 0 = the device's per-operator model (0.5 per FLOP
                            when the device has none) */
  double act_bytes, param_bytes, grad_bytes;  /* bytes per element */
  double optimizer_bytes;  /* per parameter: fp32 master + Adam moments = 12 */
  /* Transformer layers per pipeline stage (borrowed, nstage_layers = pp
   * entries summing to the layers), or NULL: balanced (docs/zoo.md). */
  const int *stage_layers;
  int nstage_layers;
  int optimizer_step;    /* 1: the optimizer step (HBM bound) as compute, transformers */
} WeftParallel;

/* Activation recomputation (Korthikanti et al. 2022): none, full (every
 * layer's forward again in backward, only layer inputs kept) or selective
 * (only the attention core: scores, softmax, dropout, context). */
typedef enum {
  WEFT_RECOMPUTE_NONE = 0,
  WEFT_RECOMPUTE_FULL = 1,
  WEFT_RECOMPUTE_SELECTIVE = 2
} WeftRecompute;

/* "none", "full", "selective" <-> WeftRecompute; parse returns WEFT_EINPUT
 * (err names the text) for anything else. */
const char *weft_recompute_name(int mode);
int weft_recompute_parse(const char *text, int *mode, WeftError *err);
/* The balanced layers of each of pp stages into out[pp]: L / pp each when pp
 * divides L, else floor/ceil with the lighter (floor) stages at the ends,
 * first, last, second, second to last, ... (they also hold the embedding
 * and the logits). WEFT_EINPUT when pp < 1 or pp > L. */
int weft_stage_layers_balanced(int layers, int pp, int *out, WeftError *err);

/* tp = pp = dp = ep = 1, micro_batch 1, virtual_stages 1, order TP, PP, DP, efficiency 0
 * (auto: the per-operator model where the device has its data, else 0.5 per FLOP),
 * bf16 activations/params/grads (2 bytes), 12 optimizer bytes, optimizer_step 1,
 * balanced stages. */
void weft_parallel_default(WeftParallel *par);
/* "TP,PP,DP" style into order[3]; WEFT_EINPUT when not a permutation. */
int weft_parallel_order_parse(const char *text, WeftParDim order[3], WeftError *err);

/* Lay groups onto the network's dims innermost first, in the order given,
 * splitting a dim between groups when needed (LIBRA's communicator: TP-16 on
 * 4x8x4x32 -> [4,4,-1,-1], then DP-256 -> [-1,2,4,32]). out[k][d] = NPUs of
 * dim d that group k spans, -1 when none. The product of sizes must equal
 * the network's NPU count; a size that does not factor over the dims is an
 * error naming the group (names[k]) and the dim. */
int weft_map_groups(const WeftNetwork *net, const int *sizes, const char *const *names,
                    int ngroups, int (*out)[WEFT_MAX_DIMS], WeftError *err);

/* ------------------------------------------------------------------ workload generator */
typedef struct {
  double params_bytes, grads_bytes, optimizer_bytes, activations_bytes;
  double total_bytes;     /* the four above */
  double capacity_bytes;  /* the device's HBM */
  int fits;
} WeftMemory;

typedef struct {
  int microbatches;         /* per iteration (global_batch / (dp * micro_batch)) */
  int layers_per_stage;     /* of the critical (emitted) stage */
  double bubble_fraction;   /* (pp - 1) / microbatches */
  double samples;           /* sequences per iteration */
  double tokens;            /* samples * seq_len (transformers), else samples */
  double model_flops;       /* useful FLOPs per iteration, whole cluster */
  double hw_flops;          /* including recomputation */
  WeftMemory mem;           /* per NPU, the most loaded stage */
  /* transformers: the stage whose layers the workload holds (the slowest,
   * ties to the last), the stage of info.mem, and the pipeline's repeats:
   * iteration compute = pipeline_repeats x that stage's per-micro-batch work */
  int critical_stage, memory_stage;
  double pipeline_repeats;
  double optimizer_ns;      /* the optimizer step (memory bound), 0 when not modelled */
} WeftGenInfo;

/* Derive the per-NPU workload (ASTRA-sim 1.0 layers, sizes per iteration),
 * its communicator on net and the memory it needs (docs/zoo.md has every
 * formula). wl is reset and filled. compact = 1 merges identical layers into
 * one entry (same analytic time, far fewer entries: for search loops).
 * WEFT_EINPUT: the parallelization does not fit the model or network
 * (divisibility, mapping); WEFT_EMODEL: it does not fit in memory (message
 * has the numbers; info is filled). */
int weft_generate(const WeftModel *m, const WeftDevice *dev, const WeftParallel *par,
                  const WeftNetwork *net, int compact, WeftWorkload *wl, WeftCommunicator *comm,
                  WeftGenInfo *info, WeftError *err);

/* ASTRA-sim 1.0 workload text (header + layers; "@name" extension only when
 * a phase uses a named group) and LIBRA communicator yml (with `Groups:` only
 * when needed). Written to a temporary file and renamed. */
int weft_workload_write(const char *path, const WeftWorkload *wl, WeftError *err);
int weft_communicator_write(const char *path, const WeftCommunicator *comm, WeftError *err);
/* The same into an open output (weft_out_open; both left open): to commit a
 * workload and its communicator together (weft_out_commit_all). */
int weft_workload_emit(WeftOut *o, const WeftWorkload *wl, WeftError *err);
int weft_communicator_emit(WeftOut *o, const WeftCommunicator *comm, WeftError *err);

/* Append to sc a job generated from the zoo (zoo_dir NULL = "data/zoo") on
 * sc->net, which must be read already: the model and device (NULL = "a100")
 * by zoo name or path, par as weft_generate takes it except that par->dp <= 0
 * means NPUs / (tp * pp). The workload is compact, the communicator
 * generated, the job named after the model with weight 1. Scenario model
 * mappings and `weft optimize --model` both come here. WEFT_EINPUT: unknown
 * model or device, or a parallelization that does not fit the model or the
 * network; WEFT_EMODEL: the job does not fit in the device's memory (the
 * message has the numbers). On failure sc is unchanged. */
int weft_scenario_add_model_job(WeftScenario *sc, const char *zoo_dir, const char *model,
                                const char *device, const WeftParallel *par, WeftError *err);

/* ------------------------------------------------------------------ search
 * Design points evaluated in parallel (threads), results independent of the
 * thread count. A point is a parallelization on a network shape, solved
 * exactly under the constraints. */
#define WEFT_POINT_STATUS_MAP(X)                                  \
  X(OK, "ok")                                                     \
  X(NO_MEMORY, "does not fit in memory")                          \
  X(INVALID, "invalid parallelization for the model or network")  \
  X(INFEASIBLE, "constraints infeasible")                         \
  X(UNBOUNDED, "unbounded")                                       \
  X(FAILED, "solver failed")

typedef enum {
#define WEFT_POINT_ENUM_(name, msg) WEFT_POINT_##name,
  WEFT_POINT_STATUS_MAP(WEFT_POINT_ENUM_)
#undef WEFT_POINT_ENUM_
} WeftPointStatus;

const char *weft_point_status_name(WeftPointStatus s);

enum { WEFT_POINT_NSTATUS = 0
#define WEFT_POINT_COUNT_(name, msg) +1
       WEFT_POINT_STATUS_MAP(WEFT_POINT_COUNT_)
#undef WEFT_POINT_COUNT_
};

#define WEFT_MAX_CHOICES 64

typedef struct {
  const WeftModel *model;
  const WeftDevice *device;
  WeftParallel base;        /* knobs not searched (sp, zero, recompute, bytes,
                               efficiency); order used unless all_orders */
  int nnets;
  const WeftNetwork *nets;  /* network shapes (borrowed array) */
  const WeftCostModel *cost;
  const WeftConstraints *cons;  /* may be NULL */
  WeftObjective objective;
  WeftLoop loop;
  WeftSettings settings;
  int ntp, tp[WEFT_MAX_CHOICES];  /* 0: every divisor of the NPU count */
  int npp, pp[WEFT_MAX_CHOICES];  /* 0: every divisor */
  int nmb, mb[WEFT_MAX_CHOICES];  /* 0: {1, 2, 4, 8} */
  int all_orders;                 /* every order of TP, PP, DP */
  /* Knobs searched too, each list empty (0) for base's value: ZeRO stages
   * (0..3), sequence parallelism (0, 1), recomputation (WeftRecompute) and
   * interleaving (virtual stages >= 1). Enumerated inside the micro-batch,
   * in this order, outside the order of TP, PP, DP. */
  int nzero, zero[4];
  int nsp, sp[2];
  int nrc, rc[3];
  int nvp, vp[WEFT_MAX_CHOICES];
} WeftCodesignSpec;

typedef struct {
  int net;                  /* index into nets */
  WeftParallel par;         /* tp, pp, dp, micro_batch, order of this point */
  WeftPointStatus status;
  double time_ns, cost_usd, objective;
  double bw_gbps[WEFT_MAX_DIMS];
  double equal_bw_gbps;     /* EqualBW: the best equal split meeting the constraints
                               (weft_problem_equal_bw), B_d = this on every dim; 0: none */
  double equal_time_ns;     /* the time at it; 0 when there is none */
  double mem_bytes;         /* per NPU */
  double gap;
  char reason[160];         /* why, when status != OK */
} WeftDesignPoint;

typedef struct {
  int threads;   /* 0: every core */
  /* Called from one thread now and then (may be NULL): done of total. */
  void (*progress)(void *ctx, size_t done, size_t total);
  void *progress_ctx;
  size_t rank, nranks;  /* evaluate points i with i % nranks == rank (MPI); 0, 1 */
} WeftRunSettings;

void weft_run_settings_default(WeftRunSettings *rs);

/* Every network shape of ndims dims over the building blocks topo[] whose NPU
 * counts multiply to npus, each dim in [2, max_per_dim[d]] (0 = no limit).
 * *out is malloc'd (free() it), *n set. */
int weft_network_shapes(const WeftTopology *topo, const char (*cost_dim)[WEFT_NAME_LEN],
                        int ndims, int npus, const int *max_per_dim, WeftNetwork **out,
                        size_t *n, WeftError *err);

/* Enumerate the design points of spec (status unset); *out malloc'd. */
int weft_codesign_points(const WeftCodesignSpec *spec, WeftDesignPoint **out, size_t *n,
                         WeftError *err);
/* The number of points weft_codesign_points would make (spec checked as there). */
int weft_codesign_count(const WeftCodesignSpec *spec, size_t *n, WeftError *err);
/* Points [first, first + count) of that enumeration into out[count] (caller's
 * storage), byte for byte those weft_codesign_points makes. WEFT_EINVAL for a
 * range past the end. */
int weft_codesign_points_at(const WeftCodesignSpec *spec, size_t first, size_t count,
                            WeftDesignPoint *out, WeftError *err);
/* Evaluate one point (generate, map, solve). Thread-safe. */
void weft_codesign_eval(const WeftCodesignSpec *spec, WeftDesignPoint *pt);
/* Evaluate pts[i] for the rank's share of i, in parallel. */
int weft_codesign_run(const WeftCodesignSpec *spec, WeftDesignPoint *pts, size_t n,
                      const WeftRunSettings *rs, WeftError *err);
/* Indices of the OK points on the Pareto front of (cost_usd, time_ns), by
 * increasing cost; returns how many (idx has room for n). */
size_t weft_pareto(const WeftDesignPoint *pts, size_t n, size_t *idx);
/* Evaluate pt's design again at bw_gbps (no solve), its workload generated
 * as weft_codesign_eval generates it (compact for no-overlap, every layer for
 * tp-dp-overlap): a report's time breakdown of a design or of EqualBW. One
 * job of weight 1, so ev->job[0] holds the split. */
int weft_codesign_evaluate(const WeftCodesignSpec *spec, const WeftDesignPoint *pt,
                           const double *bw_gbps, WeftEval *ev, WeftError *err);

/* A co-design without all its points in memory: chunk after chunk is
 * enumerated into one buffer, evaluated (the rank's share of it, on
 * rs->threads threads, as weft_codesign_run) and handed to fn(ctx, first,
 * pts, n): pts[j] is point first + j, chunks in enumeration order. The chunk
 * size is rounded up to a multiple of rs->nranks, so point i is evaluated on
 * rank i % nranks as in weft_codesign_run; on the other ranks' points pts
 * holds the enumerated point (status OK, results 0). rs->progress counts the
 * rank's share over all chunks. A non-zero return from fn stops the stream
 * and is returned as is (err untouched). chunk 0: WEFT_CODESIGN_CHUNK.
 * Memory: one chunk of points plus the threads' scratch. */
#define WEFT_CODESIGN_CHUNK 32768  /* points per chunk (~14 MB) by default */
typedef int (*WeftChunkFn)(void *ctx, size_t first, WeftDesignPoint *pts, size_t n);
int weft_codesign_stream(const WeftCodesignSpec *spec, const WeftRunSettings *rs, size_t chunk,
                         WeftChunkFn fn, void *ctx, WeftError *err);
/* The chunk size weft_codesign_stream uses for chunk and nranks. */
size_t weft_codesign_chunk_size(size_t chunk, size_t nranks);

/* What a report keeps of a stream of evaluated points (added in increasing
 * index order, e.g. from weft_codesign_stream): the count and first point of
 * each status, the best `top` OK designs, the Pareto front. Memory grows with
 * top and the front's staircase, not with the number of points. */
typedef struct {
  size_t index;  /* the point's position in the enumeration */
  WeftDesignPoint pt;
} WeftIndexedPoint;

typedef struct WeftCodesignSummary WeftCodesignSummary;

WeftCodesignSummary *weft_codesign_summary_create(size_t top);  /* NULL: out of memory */
void weft_codesign_summary_free(WeftCodesignSummary *s);        /* NULL is fine */
/* Add point `index` (greater than the last one added: WEFT_EINVAL otherwise);
 * WEFT_ENOMEM. A status out of range counts as FAILED. */
int weft_codesign_summary_add(WeftCodesignSummary *s, size_t index, const WeftDesignPoint *pt);
size_t weft_codesign_summary_points(const WeftCodesignSummary *s);
size_t weft_codesign_summary_count(const WeftCodesignSummary *s, WeftPointStatus st);
/* The first point of status st, NULL when none. */
const WeftIndexedPoint *weft_codesign_summary_example(const WeftCodesignSummary *s,
                                                      WeftPointStatus st);
/* The best min(top, OK points) designs into *out, best first: by objective,
 * objectives within a relative 1e-9 of a run's first (one optimum) by cost,
 * then index. The Pareto front of the OK points, by increasing cost, exactly
 * as weft_pareto draws it over all of them. Both arrays are valid until the
 * next add or free. */
size_t weft_codesign_summary_top(WeftCodesignSummary *s, const WeftIndexedPoint **out);
size_t weft_codesign_summary_front(WeftCodesignSummary *s, const WeftIndexedPoint **out);

/* ------------------------------------------------------------------ sweep
 * `weft sweep SPEC.yml` (docs/search.md): a scenario in which any value may
 * be swept: {sweep: [v1, v2, ...]} (any values), {range: [from, to, step]} or
 * {range: [from, to], times: k} (numbers, both ends included), each with an
 * optional format: "text {}" that writes the value into text. The points are
 * the cartesian product, the first swept field outermost; each point is the
 * scenario with its values written in, read and solved as `weft optimize`
 * would (errors name the spec file and the line of the swept value). */
#define WEFT_SWEEP_MAX_POINTS 1000000  /* bounds the rows a spec can ask for */

typedef struct WeftSweep WeftSweep;

typedef struct {
  size_t point;            /* index in [0, weft_sweep_count) */
  WeftPointStatus status;  /* OK; NO_MEMORY (a model job does not fit); INVALID (the
                              point's scenario is not valid input); INFEASIBLE,
                              UNBOUNDED, FAILED (solver) */
  int ndims;               /* the point's network dims (0 when not read) */
  /* the rest only when status is OK (0 otherwise) */
  double time_ns, cost_usd;
  double objective;        /* time_ns (perf) or time_ns * cost_usd (perf-per-cost) */
  double bw_gbps[WEFT_MAX_DIMS];
  double gap;              /* certified relative optimality gap */
  char message[320];       /* why, when status is not OK: "spec.yml:4:18: ..." */
} WeftSweepRow;

/* Read and check a spec: YAML, the sweep and range nodes, the point count.
 * zoo_dir as in weft_scenario_read_zoo. *out is created by the call. */
int weft_sweep_read(const char *path, const char *zoo_dir, WeftSweep **out, WeftError *err);
void weft_sweep_free(WeftSweep *sw);  /* NULL is fine */
size_t weft_sweep_count(const WeftSweep *sw);  /* points: product of the fields' sizes */
int weft_sweep_nfields(const WeftSweep *sw);
/* Field f's path in the spec: "workload.tp", "network.npus_count[1]",
 * "constraints[0]". Valid while sw lives. */
const char *weft_sweep_field(const WeftSweep *sw, int f);
/* Field f's value at point i as written ("16", "0.3", "[4, 8]"; a range's
 * value formatted exactly, a format's value before formatting). */
const char *weft_sweep_value(const WeftSweep *sw, size_t i, int f);
/* Evaluate point i into *row. Thread-safe. Returns 0 (see row->status) or
 * WEFT_EINVAL for a bad argument. */
int weft_sweep_eval(const WeftSweep *sw, size_t i, WeftSweepRow *row);
/* Evaluate rows[i] for the rank's share of i (i % nranks == rank; the others
 * are left alone) on rs->threads threads; rows has weft_sweep_count entries.
 * Rows do not depend on the thread count. rs NULL = defaults. */
int weft_sweep_run(const WeftSweep *sw, WeftSweepRow *rows, const WeftRunSettings *rs,
                   WeftError *err);
/* The rows without all of them in memory: chunk after chunk of points is
 * evaluated (the rank's share, as weft_sweep_run) into one buffer and handed
 * to fn(ctx, first, rows, n): rows[j] is point first + j (zero on the other
 * ranks' points), chunks in point order, the chunk rounded up to a multiple
 * of rs->nranks. A non-zero return from fn stops and is returned (err
 * untouched). chunk 0: WEFT_SWEEP_CHUNK. */
#define WEFT_SWEEP_CHUNK 4096  /* rows per chunk (~2 MB) by default */
typedef int (*WeftSweepChunkFn)(void *ctx, size_t first, WeftSweepRow *rows, size_t n);
int weft_sweep_stream(const WeftSweep *sw, const WeftRunSettings *rs, size_t chunk,
                      WeftSweepChunkFn fn, void *ctx, WeftError *err);

/* ------------------------------------------------------------------ graphs and flows
 * A general directed graph with link capacities and a fluid flow engine on it:
 * flows follow explicit paths (lists of link ids) and share link bandwidth
 * max-min fairly or first-come-first-served (docs/simulate.md). Used by the
 * link-level simulator on a network's NPU graph, and for any other graph
 * (direct-connect topologies). Time in ns, sizes in bytes, 1 GB/s = 1 byte/ns. */
typedef struct WeftGraph WeftGraph;

WeftGraph *weft_graph_create(int nnodes);  /* NULL when out of memory or nnodes < 1 */
void weft_graph_free(WeftGraph *g);        /* NULL is fine */
/* Add a directed link from -> to of bw_gbps (> 0). Returns its id (0, 1, ...
 * in the order added) or WEFT_EINVAL / WEFT_ENOMEM. */
int weft_graph_add_link(WeftGraph *g, int from, int to, double bw_gbps);
int weft_graph_nodes(const WeftGraph *g);
int weft_graph_nlinks(const WeftGraph *g);
/* Link id's ends and bandwidth (any pointer may be NULL). WEFT_EINVAL for a bad id. */
int weft_graph_link(const WeftGraph *g, int link, int *from, int *to, double *bw_gbps);
/* Links leaving node, in the order added: *links valid until the next add.
 * Returns the count, or WEFT_EINVAL / WEFT_ENOMEM. */
int weft_graph_out(WeftGraph *g, int node, const int **links);

typedef enum {
  WEFT_SHARE_MAXMIN = 0,  /* max-min fair: progressive filling over the active flows */
  WEFT_SHARE_FIFO = 1     /* first come, first served: a flow sends, at the smallest
                             capacity on its path, only while it is the oldest flow on
                             every link of its path */
} WeftSharing;

typedef struct WeftFlowSim WeftFlowSim;

int weft_flowsim_create(const WeftGraph *g, WeftSharing sharing, WeftFlowSim **out);
void weft_flowsim_free(WeftFlowSim *fs);  /* NULL is fine */
/* Start a flow of size_bytes (> 0) now along path[0..nlinks) (nlinks >= 1,
 * consecutive links; checked). tag comes back when it completes. The path is
 * copied. WEFT_EINVAL for a bad path or size, WEFT_ENOMEM. */
int weft_flowsim_start(WeftFlowSim *fs, const int *path, int nlinks, double size_bytes,
                       unsigned long long tag);
double weft_flowsim_now(const WeftFlowSim *fs);
/* Time of the next completion at the current rates; HUGE_VAL when no flow is
 * active. Rates are recomputed here when flows started or ended since. */
double weft_flowsim_next(WeftFlowSim *fs);
/* Move time to t_ns (now <= t_ns <= next) and write the tags of up to max
 * flows that have completed by then into done (oldest first); returns how
 * many. Call again with the same t_ns while it returns max. */
int weft_flowsim_advance(WeftFlowSim *fs, double t_ns, unsigned long long *done, int max);
size_t weft_flowsim_active(const WeftFlowSim *fs);   /* flows not yet completed */
double weft_flowsim_link_bytes(const WeftFlowSim *fs, int link);  /* carried so far */
/* Run every active flow to completion; *end_ns = time the last one ended. */
int weft_flowsim_run(WeftFlowSim *fs, double *end_ns);

/* The NPU graph of a multi-dim network at bw_gbps per NPU per dim: NPU v has
 * coordinates c_d = (v / (n_0 ... n_{d-1})) mod n_d. Ring dims: a link of
 * B/2 to each ring neighbour (one for each direction); FullyConnected: n-1
 * links of B/(n-1); Switch: one switch per block of n NPUs (nodes numbered
 * after the NPUs), an up and a down link of B per NPU. */
int weft_network_graph(const WeftNetwork *net, const double *bw_gbps, WeftGraph **out,
                       WeftError *err);
/* Dimension-order route (innermost dim first; rings the shorter way round,
 * ties forward) from NPU src to NPU dst on weft_network_graph's graph, as
 * link ids into links[max]. Returns the hop count, or WEFT_EINVAL. */
int weft_network_route(const WeftNetwork *net, int src, int dst, int *links, int max);
/* The dim link id belongs to (the graph of weft_network_graph), or -1. */
int weft_network_link_dim(const WeftNetwork *net, int link);

/* ------------------------------------------------------------------ simulation
 * `weft simulate` (docs/simulate.md): a discrete-event simulation of one
 * training iteration of each job at a given bandwidth. Each collective is cut
 * into chunks; each chunk runs its per-dim stages in order (reduce-scatter up
 * the dims, all-gather back down; all-to-all per dim), each stage a per-dim
 * algorithm's steps; a step moves bytes and then waits the dim's latency plus
 * the endpoint delay. Dim fidelity: a dim is one resource of B_d per NPU shared
 * equally by the steps on it. Link fidelity: every step is the flows of all
 * NPUs on the network's NPU graph. Deterministic: events are ordered by
 * (time, insertion counter); nothing global. */
typedef enum {
  WEFT_ALG_DEFAULT = 0,  /* Ring: ring, FullyConnected: direct, Switch: hd (ring
                            when the group is not a power of two) */
  WEFT_ALG_RING,         /* n-1 steps to the ring neighbours, both directions */
  WEFT_ALG_DIRECT,       /* one step to every other member */
  WEFT_ALG_HD            /* halving-doubling: log2 n steps, pairwise (n a power of 2) */
} WeftAlgorithm;
#define WEFT_NALG 4
const char *weft_algorithm_name(WeftAlgorithm a);  /* "default", "ring", "direct", "hd" */

typedef enum { WEFT_FIDELITY_DIM = 0, WEFT_FIDELITY_LINK = 1 } WeftFidelity;

typedef enum { WEFT_SPAN_COMPUTE = 0, WEFT_SPAN_COLLECTIVE = 1, WEFT_SPAN_STAGE = 2 } WeftSpanKind;

/* One interval of the simulated timeline, for traces. */
typedef struct {
  WeftSpanKind kind;
  int job, layer;         /* layer index in the job's workload */
  WeftPhase phase;
  WeftCollective coll;    /* COLLECTIVE, STAGE (NONE for COMPUTE) */
  int stream;             /* 0 the main (blocking) stream, 1 the weight-grad stream */
  int dim, chunk;         /* STAGE: its dim and chunk; -1 otherwise */
  double start_ns, end_ns;
} WeftSimSpan;
typedef void (*WeftSpanFn)(void *ctx, const WeftSimSpan *span);

typedef struct {
  WeftFidelity fidelity;
  int chunks;                               /* per collective (default 64) */
  int in_flight;                            /* chunks of one collective on a dim at once (1) */
  double latency_ns[WEFT_MAX_DIMS];         /* per step, per dim (0) */
  double endpoint_delay_ns;                 /* per step, at the receiver (0) */
  WeftAlgorithm algorithm[WEFT_MAX_DIMS];   /* per dim (DEFAULT) */
  WeftSharing sharing;                      /* link fidelity (max-min fair) */
  WeftSpanFn on_span;                       /* optional timeline; NULL = none */
  void *span_ctx;
  int stage_spans;                          /* also report every chunk's stages (0) */
  double max_work;                          /* refuse a run whose weft_sim_estimate work
                                               exceeds this (WEFT_SIM_MAX_WORK); 0 = no limit */
} WeftSimSettings;

/* The default limit on a simulation's work: a unit (an event, a flow, a
 * link) costs 50-700 ns on one core, so 1e9 is a minute to a few (at most
 * about 12: direct over a large switch on a busy machine; docs/simulate.md). */
#define WEFT_SIM_MAX_WORK 1e9

void weft_sim_settings_default(WeftSimSettings *s);

typedef struct {
  WeftJobTime t;                       /* as weft_problem_evaluate's, simulated */
  double dim_bytes[WEFT_MAX_DIMS];     /* bytes one NPU sent on the dim (link: mean) */
  double dim_busy_ns[WEFT_MAX_DIMS];   /* time the dim carried traffic */
  double dim_util[WEFT_MAX_DIMS];      /* dim_bytes / (B_d x time): bandwidth used */
  int ncollectives;
} WeftSimJob;

typedef struct {
  double time_ns;                 /* weighted sum over jobs, as WeftEval.time_ns */
  int njobs, ndims;
  WeftSimJob job[WEFT_MAX_JOBS];
  unsigned long long events;      /* events processed: compute, step ends, delays */
  unsigned long long flows;       /* link fidelity: flows simulated */
  size_t peak_events;             /* most events pending at once */
  size_t peak_flows;              /* link fidelity: most flows active at once */
} WeftSimResult;

/* Simulate every job of spec at bw_gbps[ndims]. WEFT_EINVAL for bad settings,
 * WEFT_EINPUT for a design the algorithms cannot run (naming the dim), as
 * for weft_problem_create on a bad spec. Memory grows with the events and
 * flows pending at once, not with the workload's length. */
int weft_simulate(const WeftSpec *spec, const double *bw_gbps, const WeftSimSettings *s,
                  WeftSimResult *res, WeftError *err);
/* (Each dim runs at spec->net->efficiency[d] x bw_gbps[d] when an efficiency
 * is set, as the analytic model charges it.) */

/* What weft_simulate would do, counted from the stages before it starts:
 * events (as WeftSimResult.events), flows (as .flows) and, at link fidelity,
 * the links of the NPU graph; work is their sum. weft_simulate refuses
 * (WEFT_EINPUT, err->field "max_work") when work > s->max_work > 0.
 * WEFT_EINPUT for a collective its algorithm cannot run, as weft_simulate. */
typedef struct {
  double events, flows, links, work;
} WeftSimWork;
int weft_sim_estimate(const WeftSpec *spec, const WeftSimSettings *s, WeftSimWork *out,
                      WeftError *err);

/* Close the loop (`weft optimize --refine-with-sim`, docs/simulate.md):
 * solve; simulate at the optimum; scale every collective's size by its
 * simulated / analytic time there (so the analytic model reproduces the
 * simulated collectives at that bandwidth); re-solve; repeat while the
 * simulated time improves by more than rel_tol, at most max_iter times.
 * The design kept is the one with the best simulated time. */
#define WEFT_REFINE_MAX_ITER 32
typedef struct {
  int iterations;                              /* re-solves done */
  int converged;                               /* stopped on rel_tol, not max_iter */
  WeftSolveStatus status;                      /* of the last solve */
  double bw_gbps[WEFT_MAX_DIMS];               /* the best design */
  double analytic_ns, simulated_ns;            /* its analytic and simulated time */
  double first_simulated_ns;                   /* the plain optimum's simulated time */
  double sim_ns[WEFT_REFINE_MAX_ITER + 1];     /* simulated time of each design, [0] = plain */
} WeftRefine;

int weft_refine_with_sim(const WeftSpec *spec, const WeftSettings *st, const WeftSimSettings *ss,
                         int max_iter, double rel_tol, WeftRefine *out, WeftError *err);

/* ------------------------------------------------------------------ direct-connect topologies
 * TopoOpt (NSDI 2023, docs/topo.md): a job on n servers, each with d optical
 * ports of B Gbps, gets its own wiring, chosen with its parallelization.
 * Servers are nodes 0..n-1 of every fabric's graph. Bandwidths (port_gbps,
 * nic_gbps) are GB/s = bytes/ns, like every *_gbps in weft: a 100 Gb/s
 * Ethernet port is 12.5 (`weft topo` takes Gbit/s and converts). */
#define WEFT_TOPO_MAX_DEGREE 64

/* One AllReduce group: members (server ids, ascending) and the bytes each
 * member reduces per iteration. */
typedef struct {
  int size;
  int *members;       /* owned by the WeftTraffic */
  double size_bytes;
} WeftAllReduce;

/* Model-parallel point-to-point traffic: bytes from src to dst per iteration. */
typedef struct {
  int src, dst;
  double bytes;
} WeftDemand;

/* A job's traffic per iteration, and its compute time. */
typedef struct {
  int nservers;
  int nallreduce;
  WeftAllReduce *ar;
  int ndemand;
  WeftDemand *demand;
  double compute_ns;        /* per iteration on the slowest server */
  int cap_ar, cap_demand;   /* allocated */
  int *index, cap_index;    /* private: (src, dst) -> demand entry, open addressing */
} WeftTraffic;

WeftTraffic *weft_traffic_create(int nservers);  /* NULL on failure */
void weft_traffic_free(WeftTraffic *t);          /* NULL is fine */
/* Append a group (members copied, sorted; each in [0, n), distinct, size >= 2). */
int weft_traffic_add_allreduce(WeftTraffic *t, const int *members, int size, double size_bytes);
/* Add bytes from src to dst (src != dst; merged with an existing pair). */
int weft_traffic_add_demand(WeftTraffic *t, int src, int dst, double bytes);
/* Total demand matrix entry src -> dst (0 when none). */
double weft_traffic_demand(const WeftTraffic *t, int src, int dst);
/* CSV, one record per line: "src,dst,bytes" or "allreduce,size_bytes,m1,m2,...",
 * optionally "compute_ns,X"; '#' comments and a "src,dst,bytes" header line
 * allowed. Errors name file, line and field. */
int weft_traffic_read_csv(const char *path, int nservers, WeftTraffic **out, WeftError *err);

/* Maximum-weight matching on the complete graph of n nodes, weight w[i*n+j]
 * (symmetric, >= 0; 0 = no edge), by Edmonds' blossom algorithm in O(n^3);
 * exact for integer weights (|w| < 2^52). max_cardinality = 1: among the
 * matchings of maximum size, one of maximum weight. mate[i] = partner or -1.
 * WEFT_EINVAL for a bad argument, WEFT_ENOMEM. */
int weft_max_weight_matching(int n, const long long *w, int max_cardinality, int *mate);

/* TotientPerms: nstrides ring strides for an AllReduce over g of n servers
 * (g divides n; members are the residue classes i, i + n/g, ...): candidates
 * p = (n/g) k with 1 <= k <= g, gcd(k, g) = 1 (each a Hamiltonian cycle of
 * the group), taken up to the mirror p ~ n - p, spread geometrically from the
 * smallest to the largest and then adjusted to minimise the diameter of the
 * group's circulant graph. strides[] ascending; *diameter_hops of the ring
 * graph within the group. Returns the number chosen (fewer when there are
 * fewer candidates), or WEFT_EINVAL. */
int weft_totient_strides(int n, int g, int nstrides, int *strides, int *diameter_hops);

typedef struct {
  int degree;            /* d: ports per server */
  double port_gbps;      /* B: bandwidth of one port (each direction) */
  int ar_degree;         /* ports for AllReduce rings; -1: in proportion to the
                            AllReduce share of the traffic (at least 2 when
                            there is AllReduce traffic, to keep a full ring) */
  int kpaths;            /* k-shortest paths model-parallel flows are split over (4) */
} WeftTopoSettings;
void weft_topo_settings_default(WeftTopoSettings *s);  /* d 4, B 12.5 (100 Gbit/s), ar -1, k 4 */

/* A fabric the flow simulation can run on: servers are nodes 0..n-1 of
 * graph; routes come from paths(); rings() gives AllReduce rings. */
typedef struct WeftFabric WeftFabric;

typedef enum {
  WEFT_FABRIC_TOPOOPT = 0,   /* TotientPerms rings + matching, patch panel */
  WEFT_FABRIC_SWITCH = 1,    /* ideal non-blocking switch, d x B per server */
  WEFT_FABRIC_FATTREE = 2,   /* 2- or 3-tier Fat-tree, oversubscribed */
  WEFT_FABRIC_EXPANDER = 3   /* random d-regular graph of B links */
} WeftFabricKind;

/* TopologyFinder: split the d ports between AllReduce rings and
 * model-parallel links, build both (TotientPerms; d_MP rounds of maximum
 * weight matching on the remaining demand), route (coin-change over the
 * strides for groups without rings of their own; k-shortest paths for
 * model-parallel flows). WEFT_EINPUT when the traffic cannot be wired (names
 * why). */
int weft_topo_build(const WeftTraffic *t, const WeftTopoSettings *s, WeftFabric **out,
                    WeftError *err);

/* Baselines. Fat-tree: servers with one NIC of nic_gbps into leaf switches
 * of radix `radix`, tiers 2 or 3, `oversub` = leaf down / up bandwidth
 * (>= 1). Expander: random d-regular graph over the servers, links of
 * port_gbps, from seed. Switch: one link of nic_gbps each way per server. */
int weft_fabric_switch(int nservers, double nic_gbps, WeftFabric **out, WeftError *err);
int weft_fabric_fattree(int nservers, double nic_gbps, int radix, int tiers, double oversub,
                        WeftFabric **out, WeftError *err);
int weft_fabric_expander(int nservers, int degree, double port_gbps, unsigned long long seed,
                         WeftFabric **out, WeftError *err);
void weft_fabric_free(WeftFabric *f);  /* NULL is fine */

WeftFabricKind weft_fabric_kind(const WeftFabric *f);
const WeftGraph *weft_fabric_graph(const WeftFabric *f);
int weft_fabric_servers(const WeftFabric *f);
/* Up to max_paths routes src -> dst (src != dst): their links one after the
 * other in links[max_links], their lengths in len[]; returns how many. */
int weft_fabric_paths(const WeftFabric *f, int src, int dst, int *links, int max_links,
                      int *len, int max_paths);
/* TopoOpt: the AllReduce strides (ascending) and the model-parallel links
 * (server pairs, 2 ints each); counts returned. Other fabrics: 0. */
int weft_fabric_strides(const WeftFabric *f, const int **strides);
int weft_fabric_mp_links(const WeftFabric *f, const int **pairs);

/* Prices (docs/topo.md), $ each; weft_topo_prices_default has the
 * documented table, weft_topo_prices_read overrides any of them from YAML. */
typedef struct {
  double nic_port_usd_per_gbps;      /* server NIC port, per Gbps */
  double transceiver_usd_per_gbps;   /* optical transceiver, per Gbps (one per link end) */
  double switch_port_usd_per_gbps;   /* electrical packet switch port, per Gbps */
  double patch_panel_port_usd;       /* patch-panel port (TopoOpt), per port */
  double ocs_port_usd;               /* optical circuit switch port, per port */
  double fiber_usd;                  /* per cable */
  int use_ocs;                       /* TopoOpt with an OCS instead of a patch panel */
} WeftPrices;
void weft_topo_prices_default(WeftPrices *p);
int weft_topo_prices_read(const char *path, WeftPrices *p, WeftError *err);
/* Cost of a fabric with its prices, $. */
double weft_fabric_cost(const WeftFabric *f, const WeftPrices *p);
/* The Fat-tree whose cost comes closest to target_usd from below with
 * prices p, for comparisons at equal cost: servers keep the NIC given in
 * *nic_gbps and the leaves are oversubscribed as much as needed; when even
 * that costs too much, a smaller NIC at 1:1. The NIC bandwidth and
 * oversubscription chosen come back in *nic_gbps and *oversub. */
int weft_fabric_fattree_at_cost(int nservers, int radix, int tiers, double target_usd,
                                const WeftPrices *p, double *nic_gbps, double *oversub,
                                WeftFabric **out, WeftError *err);

/* Iteration time of a job's traffic on a fabric: compute, then every
 * AllReduce (ring all-reduce over the fabric's rings, 2 (g-1)/g of the bytes
 * per member, split evenly over the rings) and every model-parallel demand
 * (split over the fabric's paths) as flows sharing links max-min fairly,
 * multi-hop paths forwarded by the hosts. */
typedef struct {
  double time_ns, compute_ns, comm_ns;
  double ar_ns, mp_ns;        /* when the last AllReduce / model-parallel flow ended */
  double max_link_util;       /* busiest link's bytes / (bw x comm time) */
  unsigned long long flows;
} WeftTopoTime;
int weft_fabric_simulate(const WeftFabric *f, const WeftTraffic *t, WeftTopoTime *out,
                         WeftError *err);
/* The same flows routed but not simulated: comm_ns = the busiest link's
 * bytes / bandwidth, a lower bound on weft_fabric_simulate's (equal when one
 * bottleneck carries its flows to the end), ar_ns and mp_ns likewise per
 * kind; linear in the flows' hops. The search ranks strategies with it. */
int weft_fabric_estimate(const WeftFabric *f, const WeftTraffic *t, WeftTopoTime *out,
                         WeftError *err);

/* A zoo model's traffic on n servers (docs/topo.md): transformers and CNNs
 * with Megatron tensor parallelism over blocks of tp consecutive servers and
 * data parallelism over the rest (weft_generate on one dim of n), DLRM with
 * its embedding tables placed on servers (placement[t] = server of table t;
 * NULL = round robin) and data-parallel MLPs: pooled embeddings go from each
 * table's server to every other server and their gradients come back.
 * Compute: the generator's per-server time; for DLRM the busiest server's
 * (its tables' lookups). */
int weft_traffic_from_model(const WeftModel *m, const WeftDevice *dev, int nservers, int tp,
                            const int *placement, WeftTraffic **out, WeftError *err);

/* A strategy beyond TP (FlexFlow's per-layer choice for TopoOpt): per DLRM
 * table the server that holds it, or WEFT_TABLE_REPLICATED (data parallel:
 * every server keeps a copy and AllReduces the rows the batch touches); per
 * model layer (model->layer[], CNN and DLRM MLPs) 1 = model parallel over
 * all servers (fully connected layers only, tp 1), 0 = data parallel. */
#define WEFT_TABLE_REPLICATED (-1)
typedef struct {
  int tp;
  const int *placement;           /* [model->tables]; NULL = round robin */
  const unsigned char *layer_mp;  /* [model->nlayers]; NULL = all data parallel */
} WeftStrategy;
int weft_traffic_from_strategy(const WeftModel *m, const WeftDevice *dev, int nservers,
                               const WeftStrategy *st, WeftTraffic **out, WeftError *err);
/* 1 when model layer l is fully connected (may be model parallel). */
int weft_layer_splittable(const WeftModel *m, int l);

/* Alternating optimisation (TopoOpt's loop, docs/topo.md): simulated
 * annealing over the parallelization strategy on the current topology
 * (DLRM: moving or swapping tables between servers; others: the TP degree;
 * with layer_choice also a table replicated or placed, an FC layer data or
 * model parallel), then the topology rebuilt from the best strategy's
 * traffic, kept when it helps, for `rounds` rounds that share the iteration
 * budget (every move of it is tried). Seeded and deterministic for a given
 * iteration budget (a seconds budget stops early, so it is not). */
#define WEFT_TOPO_MAX_TABLES 1024
typedef struct {
  const WeftModel *model;
  const WeftDevice *dev;
  int nservers;
  WeftTopoSettings topo;
  int iterations;            /* strategy moves in all (1000) */
  double seconds;            /* wall budget; 0 = none */
  int rounds;                /* at most this many topology rebuilds (8) */
  unsigned long long seed;   /* (1) */
  void (*progress)(void *ctx, int done, int total, double best_ns);  /* or NULL */
  void *progress_ctx;
  int tp;                    /* the starting TP degree (1) */
  int layer_choice;          /* 1: also per table replicated or placed, per FC
                                layer data or model parallel (0) */
  const WeftFabric *fixed;   /* non-NULL: anneal on this fabric, no rebuilds
                                (a baseline); the result's fabric is NULL */
} WeftTopoSearch;
void weft_topo_search_default(WeftTopoSearch *s);

typedef struct {
  int tp;                                  /* the best strategy: TP degree ... */
  int ntables;                             /* ... and, for DLRM, its table placement */
  int placement[WEFT_TOPO_MAX_TABLES];     /* WEFT_TABLE_REPLICATED: data parallel */
  unsigned char layer_mp[WEFT_MAX_MODEL_LAYERS];  /* 1: model->layer[l] model parallel */
  double time_ns;                          /* its iteration time on fabric */
  double first_time_ns;                    /* the starting strategy on its own topology */
  int iterations, accepted, rounds;        /* moves tried, moves accepted, rebuilds */
  WeftFabric *fabric;                      /* the final topology: the caller frees it */
} WeftTopoSearchResult;

int weft_topo_search(const WeftTopoSearch *s, WeftTopoSearchResult *r, WeftError *err);

/* TopoOpt's evaluation (docs/topo.md, "Evaluation"): cost-vs-time curves of
 * TopoOpt over degree d and port bandwidth B, an ideal switch, a 1:1 and an
 * oversubscribed Fat-tree over the NIC bandwidth, a random expander over
 * (d, B), and an OCS re-wired between the AllReduce phase and the
 * model-parallel phase (each on a fabric built for it alone) over the
 * reconfiguration delay. Each fabric gets its own strategy search (TopoOpt
 * alternating with the topology, the others on their fixed fabric). */
typedef enum {
  WEFT_EVAL_TOPOOPT = 0, WEFT_EVAL_SWITCH, WEFT_EVAL_FATTREE, WEFT_EVAL_FATTREE_OVERSUB,
  WEFT_EVAL_EXPANDER, WEFT_EVAL_OCS, WEFT_EVAL_NFABRICS
} WeftEvalFabric;
const char *weft_eval_fabric_name(WeftEvalFabric f);  /* "topoopt", "fattree", ... */
#define WEFT_EVAL_MAX_SWEEP 16
typedef struct {
  const WeftModel *model;
  const WeftDevice *dev;     /* one GPU; a server is gpus_per_server of them */
  int nservers, gpus_per_server;                 /* 128, 4 */
  int ndegrees, degrees[WEFT_EVAL_MAX_SWEEP];    /* d: 4, 8 */
  int nports; double port_gbps[WEFT_EVAL_MAX_SWEEP];  /* B, GB/s: 10..200 Gbit/s */
  int nnics; double nic_gbps[WEFT_EVAL_MAX_SWEEP];    /* GB/s: 10..1600 Gbit/s */
  int nreconf; double reconf_ns[WEFT_EVAL_MAX_SWEEP]; /* OCS: 10 us .. 100 ms */
  double oversub;            /* the oversubscribed Fat-tree's (3) */
  int radix, tiers;          /* Fat-tree switches (64, 2) */
  WeftPrices prices;
  int iterations;            /* search moves per point (200) */
  unsigned long long seed;   /* (1) */
  int simulate;              /* 1: flow simulation (default); 0: link-load bound */
} WeftTopoEval;
void weft_topo_eval_default(WeftTopoEval *e);

typedef struct {
  WeftEvalFabric fabric;
  int degree;                /* TopoOpt, expander, OCS: ports per server; else 1 */
  double gbps;               /* port (or NIC) bandwidth, GB/s */
  double reconf_ns;          /* OCS only */
  double cost_usd, time_ns, comm_ns;
  int tp, replicated, mp_layers;  /* the strategy found */
} WeftEvalPoint;
/* Every point, fabric by fabric in sweep order; *pts is malloc'ed (the
 * caller frees it). */
int weft_topo_eval(const WeftTopoEval *e, WeftEvalPoint **pts, int *npts, WeftError *err);
/* A fabric's time at cost_usd, interpolated linearly in log cost between its
 * two nearest points (lowest time per cost): NAN outside its cost range. */
double weft_eval_time_at_cost(const WeftEvalPoint *pts, int npts, WeftEvalFabric f,
                              double cost_usd);
#ifdef __cplusplus
}
#endif
#endif /* WEFT_H */
