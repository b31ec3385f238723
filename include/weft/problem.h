/* weft/problem.h — public (part of weft.h): the bandwidth problem: create, solve, evaluate, the
 * EqualBW baseline.
 * Include <weft.h>; this header includes what it builds on. */
#ifndef WEFT_H_PROBLEM
#define WEFT_H_PROBLEM

#include "weft/inputs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ problem */
/* perf: iteration time; perf-per-cost: time x (network + NPU capex);
 * cost-per-iteration: time x (capex / lifetime + power x PUE x price), $ per
 * iteration (docs/model.md "System cost"). */
typedef enum {
  WEFT_OBJ_PERF = 0,
  WEFT_OBJ_PERF_PER_COST = 1,
  WEFT_OBJ_COST_PER_ITERATION = 2
} WeftObjective;
#define WEFT_NOBJECTIVES 3  /* WeftObjective values are 0..WEFT_NOBJECTIVES-1 */
/* Training loops (docs/model.md): every collective blocks; weight-grad ones
 * on a stream under the backward pass; forward and input-grad ones under
 * another micro-batch's compute (DualPipe's paired chunks), weight-grad blocking. */
typedef enum {
  WEFT_LOOP_NO_OVERLAP = 0,
  WEFT_LOOP_TP_DP_OVERLAP = 1,
  WEFT_LOOP_FWD_IG_OVERLAP = 2
} WeftLoop;
#define WEFT_NLOOPS 3  /* WeftLoop values are 0..WEFT_NLOOPS-1 */

/* "perf", "perf-per-cost", "cost-per-iteration" */
const char *weft_objective_name(WeftObjective o);
/* "no-overlap", "tp-dp-overlap", "fwd-ig-overlap" */
const char *weft_loop_name(WeftLoop l);

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

/* The tightest gap a solve is asked for: double precision certifies no
 * tighter (LIBRA's default run reaches ~1e-13); settings outside
 * [WEFT_MIN_GAP_TOL, 1] are refused (WEFT_EINVAL). */
#define WEFT_MIN_GAP_TOL 1e-14

typedef struct {
  double gap_tol;  /* target relative optimality gap, WEFT_MIN_GAP_TOL..1 */
  int max_iter;    /* interior-point iterations per solve */
  /* Whole links (weft_whole_solve): branch and bound stops at these. */
  int max_nodes;       /* relaxations solved, at most (default 100000) */
  double time_limit_s; /* wall-clock seconds, at most (default 60; 0 = none) */
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
  double perf_per_cost;  /* time_ns * capex_usd (lower is better) */
  WeftJobTime job[WEFT_MAX_JOBS];
  /* System cost (docs/model.md "System cost"; 0 where the cost model gives
   * none): NPU capex, total capex, IT power (W, no PUE), and the $ per
   * iteration: time x (capex / lifetime + power x PUE x price). */
  double npu_cost_usd;       /* NPUs x Npu */
  double capex_usd;          /* cost_usd + npu_cost_usd */
  double network_power_w;    /* sum_d W per GB/s x B_d */
  double npu_power_w;        /* NPUs x NpuPowerW */
  double power_w;            /* network_power_w + npu_power_w */
  double cost_per_iteration_usd;
} WeftEval;

#define WEFT_DIM_UNUSED 1  /* no collective uses the dim: set by constraints alone */

typedef struct {
  WeftSolveStatus status;
  int ndims;
  double bw_gbps[WEFT_MAX_DIMS];
  int dim_flags[WEFT_MAX_DIMS];  /* WEFT_DIM_* bits */
  WeftEval eval;                 /* at bw_gbps */
  double objective;              /* time_ns, time_ns*capex_usd or cost_per_iteration_usd */
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

/* ------------------------------------------------------------------ whole links
 * The network's whole links (WeftNetwork.link_gbps, max_links): each dim with
 * a rate r_d > 0 takes B_d = n_d r_d, n_d a whole number of links per NPU, at
 * most max_links[d]. Solved exactly by branch and bound on the convex
 * relaxation that weft_problem_solve solves and certifies (docs/model.md
 * "Whole links"): best first on the relaxations' certified lower bounds,
 * pruned by the best whole-link design found, designs rounded from each
 * relaxation as early incumbents. */
typedef enum {
  WEFT_BNB_CLOSED = 0,     /* every node settled: the design is proven optimal (within gap) */
  WEFT_BNB_NODE_LIMIT = 1, /* stopped at settings->max_nodes: the gap is what is left */
  WEFT_BNB_TIME_LIMIT = 2  /* stopped at settings->time_limit_s */
} WeftBnbStatus;

const char *weft_bnb_status_name(WeftBnbStatus s);  /* "tree closed", "node limit", "time limit" */

typedef struct {
  /* The whole-link optimum: bw_gbps = links x link_gbps (continuous dims as
   * solved), verified against the constraints as given; status SOLVED when a
   * design was found (see bnb_status for the proof), INFEASIBLE when no
   * whole-link point meets the constraints (message and conflict name them),
   * or the relaxation's own status. lower_bound is the tree's certified
   * bound on every whole-link design (the least over unexplored nodes'
   * relaxation bounds and settled leaves), gap = (objective - lower_bound) /
   * |lower_bound|; iterations sums the relaxations'. */
  WeftResult result;
  WeftResult continuous;           /* the continuous optimum within the link limits */
  int links[WEFT_MAX_DIMS];        /* n_d per NPU; 0 for continuous dims */
  double link_gbps[WEFT_MAX_DIMS]; /* r_d (0: continuous) */
  int nwhole;                      /* dims with whole links */
  WeftBnbStatus bnb_status;
  int nodes;                       /* relaxations solved (the root included) */
  int unsettled;                   /* nodes the solver could not settle (their parent's
                                      bound stands in the gap) */
} WeftWholeResult;

/* Solve spec with whole links. Returns 0 when a status was determined (see
 * res->result.status), WEFT_EINPUT with err naming the network's file, line
 * and field when a constraint that fixes one dim's bandwidth (B1 = 500) asks
 * what its links cannot give (not a whole number of links, or past
 * MaxLinks), another negative WeftErrno on bad input or failure. A spec
 * without whole links is solved as weft_problem_solve does (nodes = 1). */
int weft_whole_solve(const WeftSpec *spec, const WeftSettings *settings, WeftWholeResult *res,
                     WeftError *err);

/* Per-job totals a report shows (job indexes spec->jobs): each phase's
 * compute summed over the layers, and the bytes one NPU puts on each dim per
 * iteration, LIBRA's per-dim traffic of every collective over its group
 * (bytes[spec->net->ndims]). A bad job gives zeros. */
void weft_spec_phase_compute(const WeftSpec *spec, int job, double compute_ns[WEFT_NPHASES]);
void weft_spec_dim_bytes(const WeftSpec *spec, int job, double *bytes);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_H_PROBLEM */
