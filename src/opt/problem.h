/* problem.h — internal: the compiled bandwidth problem (merged traffic
 * patterns, per-job time rows, folded constraints) and its solver state. */
#ifndef WEFT_PROBLEM_H
#define WEFT_PROBLEM_H

#include "opt/arena.h"
#include "opt/hidden.h"
#include "opt/ipm.h"
#include "opt/lp.h"
#include "opt/sep.h"
#include "weft.h"

/* A job's iteration time is max over rows r of C[r] + sum_p a[r][p]*tau_p,
 * tau_p = max_d u[p][d] / B_d. no-overlap has one row; tp-dp-overlap one per
 * non-dominated gradient-ready point of the backward pass (each times the
 * pieces of its hidden collectives' hinges, hidden.h); fwd-ig-overlap
 * two (compute-bound, comm-bound) or one when the other is dominated. */
typedef struct {
  int nrows;
  double *C;      /* nrows: constant time (compute) in ns */
  double *a;      /* nrows x npat: bytes of each traffic pattern */
  double weight;
  double compute_ns;
  double *phase_bytes; /* WEFT_NPHASES x npat: bytes per phase and pattern */
  double phase_lat_ns[WEFT_NPHASES]; /* the collectives' latencies per phase (constants) */
  int nhid;          /* hinges of collectives hidden behind compute (hidden.h), for the */
  HidItem *hid;      /* report's split; 0 in the fwd-ig-overlap loop, which ignores them */
} Job;

/* Times, costs and their product stay below this; a problem whose scale
 * would pass it is refused at create time (problem.c, scale()). */
#define WEFT_MAX_VALUE 1e300

/* Kinds of linear rows in the general program, for the certificate. */
enum { ROW_USER = 0, ROW_JOB = 1, ROW_BOUND = 2, ROW_CAP = 3 };

/* The general path: the hyperbolic program over (B, tau, job epigraphs),
 * used when some job has several time rows (the overlap loops), when the fast
 * path's pre-checks cannot settle the problem, or when its solve fails. */
typedef struct {
  int ready;                     /* pre-checks and program built */
  double U[WEFT_MAX_DIMS];       /* max B_d over the feasible set (capped; perf) */
  int capped[WEFT_MAX_DIMS];
  double cap_gbps;
  double Bstart[WEFT_MAX_DIMS];  /* a feasible, used-dim-positive point */
  double cost_min;               /* min network cost (perf-per-cost) */
  /* The program (natural units) and its scaled copy for the IPM. */
  Hyp nat, sc;
  int nvar_free0;    /* first free (epigraph) variable */
  int *row_kind;     /* ng rows */
  int *row_owner;    /* ng: owning free var for ROW_JOB rows, else -1 */
  double *xscale;    /* n */
  double objconst;
  double os;         /* objective scale of the scaled program */
  double *lo, *hi;   /* box of each box variable (natural), free vars ignored */
  double *x1;        /* phase-1 solution (natural) */
  /* Active set of the multi-row jobs' time rows: the IPM sees the nfixed
   * other rows and the active job rows; the rest join when violated. */
  int nfixed;
  unsigned char *act;  /* per job row, at act_off[job] */
  int *act_off;
  double *rowval;      /* scratch: each job row's time at a design */
  double *tmp_lam, *tmp_nu;
  IpmWork work;
} General;

struct WeftProblem {
  Arena arena;  /* first: the problem lives in the arena's first block */
  WeftObjective objective;
  WeftLoop loop;
  int D;
  /* Internal units (problem.c, scale()): every bandwidth inside the solver
   * is B' = B / bscale, so the constraints' right-hand sides are O(1); u
   * and cpg are stored per B' (u / bscale, cpg * bscale), which leaves
   * times and costs in ns and $. Results convert back at the API. */
  double bscale;
  double cpg[WEFT_MAX_DIMS];     /* $ per unit of B'_d */
  double cpg_nat[WEFT_MAX_DIMS]; /* $ per GB/s of B_d */
  /* The objective's cost (docs/model.md "System cost"): perf-per-cost and
   * cost-per-iteration both minimise time x (oc0 + ocg.B'), an affine cost
   * with oc0 >= 0 (time x cost, "tc" below). perf-per-cost: ocg = cpg, oc0 =
   * NPUs x Npu; cost-per-iteration: the cost of ownership over the lifetime
   * L, ocg_d = cpg_d + w_d PUE $/J L, oc0 = NPUs (Npu + NpuPowerW PUE $/J L),
   * so its $ per iteration is that over L: ofactor = 1/L (ns), 1 otherwise.
   * Inside the solvers every objective and bound is time x (oc0 + ocg.B');
   * weft_problem_objective and the solvers' bounds multiply by ofactor. */
  double ocg[WEFT_MAX_DIMS];
  double oc0;
  double ofactor;
  /* The report's system figures (evaluate.c). */
  double npu_cost_usd;            /* NPUs x Npu */
  double npu_power_w;             /* NPUs x NpuPowerW */
  double wpg[WEFT_MAX_DIMS];      /* network W per unit of B'_d */
  double lifetime_ns;
  double usd_per_w_ns;            /* electricity price x PUE: $ per W of IT power per ns */
  int npat;
  double *u;                     /* npat x D: traffic bytes per byte of collective */
  int njobs;
  Job job[WEFT_MAX_JOBS];
  int used[WEFT_MAX_DIMS];
  /* Constraints folded to B space: rows g.B (<=|=) h. */
  int nle, neq;
  double *Gle, *hle;  /* nle x D */
  double *Geq, *heq;  /* neq x D, independent rows after the pre-checks */
  int *le_src, *eq_src; /* index of the source constraint */
  char (*cons_text)[128];  /* the constraints' texts, for conflict messages */
  int ncons;               /* the constraints as given (natural units), to verify against */
  const WeftConstraint *cons;
  /* Pre-check outcome (create time). */
  WeftSolveStatus pre_status;    /* SOLVED = go on */
  char pre_message[256];
  int nconflict;
  int conflict[WEFT_MAX_CONSTRAINTS];
  /* The small LPs (fast pre-checks, tie-break) without allocating. */
  LpWork lpw;
  double *lp_A, *lp_b;
  int *lp_rel;
  int fast;       /* 1: solved as the separable program (see sep.h) */
  int path;       /* the last solve's answer came from: WEFT_PATH_* */
  int pinned;     /* 1: the equalities fix the design, pin_bw (pinned.c) */
  double pin_bw[WEFT_MAX_DIMS];
  int has_start;  /* 1: start_bw (GB/s), a design believed feasible, tried as the fast
                     path's start before its own (checked there: precheck.c) */
  double start_bw[WEFT_MAX_DIMS];
  double checked_bscale; /* a scale at which the ranges were checked (a copy's template's),
                            0: none (problem.c, scale()) */
  int no_conflict; /* 1: infeasible is said without its conflict set (the LPs that name it:
                      a branch and bound node's, wholelink.c) */
  /* The network's whole links (LinkGBps, 0: continuous; MaxLinks, 0: no
   * limit): the EqualBW baseline is built of them (verify.c). */
  double link_gbps[WEFT_MAX_DIMS];
  int max_links[WEFT_MAX_DIMS];
  Sep sep;
  General gen;
};

/* Which path gave the last solve's answer (p->path; the unit tests read it). */
enum { WEFT_PATH_NONE, WEFT_PATH_PINNED, WEFT_PATH_FAST, WEFT_PATH_GENERAL };

/* problem.c: a copy of t under other constraints (its spec otherwise): the
 * workload's patterns and time rows are copied, not rebuilt (whole links'
 * nodes, wholelink.c). As weft_problem_create otherwise. start_bw (GB/s,
 * may be NULL): a design thought to meet cons, the fast path's start when
 * it does (an LP less). no_conflict: an infeasible copy is said so without
 * the conflict set (p->no_conflict). */
/* problem.c: the spec built, folded and scaled without its pre-checks: a
 * template for weft_problem_recreate and a judge of designs
 * (weft_problem_violation, weft_problem_objective), never solved (about
 * 1 us less than weft_problem_create: whole links' base, wholelink.c). */
int weft_problem_create_template(const WeftSpec *spec, WeftProblem **out, WeftError *err);
int weft_problem_recreate(const WeftProblem *t, const WeftConstraints *cons,
                          const double *start_bw, int no_conflict, WeftProblem **out,
                          WeftError *err);
/* certify.c: inf of q*x + pp/x over x in [lo, hi] (pp >= 0, lo >= 0, hi may
 * be inf; -HUGE_VAL when unbounded below): the certificate's per-variable term. */
double weft_opt_inf_term(double q, double pp, double lo, double hi);
/* evaluate.c: every bw here is in internal units (B' = B / bscale). */
double weft_problem_tau(const WeftProblem *p, int pat, const double *bw);
void weft_problem_eval_scaled(const WeftProblem *p, const double *bw, WeftEval *ev);
/* The objective (time, time x cost, $ per iteration) at bw, HUGE_VAL when
 * not finite; ev (may be NULL) gets the whole evaluation. _raw: in the
 * solvers' units (time x (oc0 + ocg.B'): without ofactor). */
double weft_problem_objective(const WeftProblem *p, const double *bw, WeftEval *ev);
double weft_problem_objective_raw(const WeftProblem *p, const double *bw, WeftEval *ev);
/* 1 for the objectives of time x an affine cost (perf-per-cost, cost-per-iteration). */
int weft_problem_is_tc(const WeftProblem *p);
/* verify.c: the largest relative violation of the ORIGINAL constraints (and
 * B >= 0) at bw (internal units; checked as bscale * bw in GB/s against the
 * constraints as given), HUGE_VAL for a non-finite bw; *which gets the constraint's
 * index (-1 for B >= 0 or none). A design is accepted within WEFT_VERIFY_TOL. */
#define WEFT_VERIFY_TOL 1e-8
double weft_problem_violation(const WeftProblem *p, const double *bw, int *which);
/* precheck.c: feasibility, conflict sets, bounds and starting points. The
 * fast one may leave p->fast = 0, handing the problem to the general one. */
int weft_precheck_fast(WeftProblem *p);
int weft_precheck_general(WeftProblem *p);
/* pinned.c: when the equalities alone fix every B_d (rank D) and that one
 * point meets every constraint with each used dim positive, bw (internal
 * units) gets it and 1 is returned; else 0 (the pre-checks decide). */
int weft_pinned_point(const WeftProblem *p, double *bw);
/* Cheapest B with B >= lower and the user constraints (an LP). */
int weft_problem_min_cost(WeftProblem *p, const double *lower, double *bw);
/* general.c: the general path's pre-checks and program (idempotent), and
 * its solve: bw gets the design, *lb the certified bound; an IpmStatus. */
int weft_general_prepare(WeftProblem *p);
/* solve.c: weft_problem_solve with a cutoff (natural units): when the fast
 * path certifies a bound >= cutoff before it finishes, *cut = 1 and res has
 * only that bound (lower_bound) and the iterations; else as the solve. */
int weft_problem_solve_cut(WeftProblem *p, const WeftSettings *settings, double cutoff,
                           WeftResult *res, int *cut);
int weft_general_solve(WeftProblem *p, const WeftSettings *st, double *bw, double *lb,
                       int *iters);
/* wholelink.c: weft_whole_solve with base (may be NULL) a problem built from
 * spec (weft_problem_create or _template), borrowed as the judge of designs
 * and the nodes' template instead of building one (a co-design point has
 * built it already); unused when spec has no whole dims. */
int weft_whole_solve_on(const WeftSpec *spec, WeftProblem *base, const WeftSettings *settings,
                        WeftWholeResult *res, WeftError *err);

#endif
