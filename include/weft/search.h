/* weft/search.h — public (part of weft.h): co-design and sweeps.
 * Include <weft.h>; this header includes what it builds on. */
#ifndef WEFT_H_SEARCH
#define WEFT_H_SEARCH

#include "weft/model.h"

#ifdef __cplusplus
extern "C" {
#endif

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
  /* Context-parallel degrees to search (outermost of the knobs; dp =
   * NPUs / (tp x cp x pp), a point with no whole dp INVALID); 0: base's cp. */
  int ncp, cp[WEFT_MAX_CHOICES];
  /* Expert-parallel degrees to search (outermost of the knobs, outside CP;
   * EP is laid innermost in DP, so dp must be a multiple of it, else the
   * point is INVALID); 0: base's ep. */
  int nep, ep[WEFT_MAX_CHOICES];
  /* Several models in one search (e.g. a dense and a MoE model over the same
   * networks): nmodels > 0 searches models[0..nmodels) (borrowed), every
   * point of the others' enumeration once per model, the model outermost,
   * WeftDesignPoint.model its index; model is then not used (it may point
   * at models[0]). 0: model alone. */
  int nmodels;
  const WeftModel *models;
  /* A workload fixed per network (codesign --workload: a Chakra trace set
   * read on each network, weft_codesign_trace_read): nets[i] runs
   * workloads[i] with comms[i]. The trace fixes the parallelization and the
   * per-rank work, so a network is one point (par: base with tp, pp, dp and
   * micro_batch 0) and the knob lists must be empty; model, when given, only
   * names the job (weft_generate is not called). NULL: the model's workload,
   * generated per point. */
  WeftWorkload *const *workloads;
  const WeftCommunicator *comms;
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
  /* System cost at the design (docs/model.md "System cost"; 0 where the cost
   * model gives none): capex (network + NPUs), IT power (W), $ per iteration;
   * and the tokens of one iteration (global batch x sequence length). */
  double capex_usd, power_w, cost_per_iteration_usd, tokens;
  char reason[160];         /* why, when status != OK */
  int model;                /* index into the spec's models (0 with one model) */
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

/* The networks codesign searches for given ones (docs/search.md, "Active
 * NPUs"): each network of in[], then its variants with part of a dim idle.
 * A dim of n NPUs that the network uses in full (no Active given, spares 0)
 * gets its candidates: for each power of two 2^k <= n that does not divide
 * n, the largest multiple of 2^k below n, kept when at most a quarter of n
 * idles (a >= 3n/4), largest first: 72 -> 64, 18 -> 16, 9 -> 8,
 * 224 -> 192, 120 -> 112, 96; none for 12 (8 idles a third) nor for a
 * power of two. So groups of powers of two (TP, EP, PP 16 ...) that neither
 * divide n nor are a multiple of it factor over the dim; the other n - a are
 * spares, bought but idle. Every combination of the dims' choices (each dim
 * all or one of its candidates) is a variant, in mixed radix with dim 1
 * varying fastest (all first, then its candidates largest first). Chosen
 * per network, not per point: the point count grows by one network's
 * points per variant. *out malloc'd (free() it), *nout set. */
int weft_network_actives(const WeftNetwork *in, size_t nin, WeftNetwork **out, size_t *nout,
                         WeftError *err);

/* The largest NPU count a building block has in real systems, the default
 * bound of `weft codesign --blocks` (docs/search.md, "Default bounds", has
 * the sources): the smaller of its topology's (Ring 16: a torus dimension;
 * FullyConnected 8: a full mesh; Switch 65536: a 3-tier Fat-tree of 64-port
 * switches) and its tier's, named by its cost class as LIBRA's and weft's
 * cost models call them, in any case: ...Chiplet... 8 (chiplets per
 * package), ...Package... 16 (packages per node), ...Node... 32 (nodes per
 * scale-up pod), ...Pod... 65536 (pods on a scale-out fabric); a class
 * naming none, the topology's alone. *why (may be NULL): the basis of the
 * bound returned, e.g. "chiplets per package" or "a full mesh". */
#define WEFT_MAX_CHIPLETS 8
#define WEFT_MAX_PACKAGES 16
#define WEFT_MAX_NODES 32
#define WEFT_MAX_PODS 65536
#define WEFT_MAX_RING 16
#define WEFT_MAX_FULLY_CONNECTED 8
#define WEFT_MAX_SWITCH 65536
int weft_block_default_max(WeftTopology topo, const char *cost_class, const char **why);

/* The expert-parallel degrees codesign searches by default (no --ep nor
 * --ep-list; Python the same): every divisor of the expert count of each MoE
 * model among models[0..n), merged ascending, at most max (the smallest
 * kept); 0 when every model is dense (EP stays 1). EP must divide the
 * experts and dp, so no other degree can be valid. Returns how many. */
int weft_codesign_default_ep(const WeftModel *models, int n, int *ep, int max);

/* Enumerate the design points of spec (status unset); *out malloc'd. */
int weft_codesign_points(const WeftCodesignSpec *spec, WeftDesignPoint **out, size_t *n,
                         WeftError *err);
/* A Chakra trace set (weft_chakra_read) on each of nets[0..*n): the
 * networks it can be laid on (its rank count their active NPUs, its groups
 * theirs) are kept, in order, at the front of nets, *n their count; for each,
 * (*workloads)[i] and (*comms)[i] (malloc'd: weft_codesign_trace_free).
 * *dropped: how many were left out, the first one's reason in why (may be
 * NULL). None kept: WEFT_EINPUT, err that first reason (file, node, group). */
int weft_codesign_trace_read(const char *path, WeftNetwork *nets, int *n,
                             WeftWorkload ***workloads, WeftCommunicator **comms, int *dropped,
                             WeftError *why, WeftError *err);
void weft_codesign_trace_free(WeftWorkload **workloads, WeftCommunicator *comms, int n);

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
 * as weft_codesign_eval generates it (compact for no-overlap and
 * fwd-ig-overlap, every layer for tp-dp-overlap): a report's time breakdown
 * of a design or of EqualBW. One
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
/* The best min(top, designs) designs into *out, best first. Points that are
 * one design are merged: the same network and degrees (tp, cp, pp, dp, ep,
 * micro-batch) and every figure within a relative 1e-9 (time, cost,
 * objective, memory, bandwidths, EqualBW), whatever the order of the groups,
 * ZeRO, SP, recomputation and interleaving (orders that place the groups
 * alike, selective recomputation under flash attention); a design shows its
 * simplest point (no recomputation before selective before full, lower
 * ZeRO, no SP, fewer chunks, the order nearest TP, PP, DP; then index).
 * Ranked by objective; objectives within a relative 1e-9 of a run's first
 * (one optimum) by cost, then memory, then the simpler knobs, then index.
 * The Pareto front of the OK points, by increasing cost, exactly as
 * weft_pareto draws it over all of them. Both arrays are valid until the
 * next add or free. */
size_t weft_codesign_summary_top(WeftCodesignSummary *s, const WeftIndexedPoint **out);
/* After _top: the points of design k (k < what _top returned) into *out,
 * the shown one first, the others by index; returns how many (>= 1; 0 for
 * a k out of range). Valid until the next add, _top or free. */
size_t weft_codesign_summary_same(const WeftCodesignSummary *s, size_t k,
                                  const WeftIndexedPoint **out);
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
  double compute_ns;       /* time_ns's compute (weighted over jobs, as time_ns): the
                              rest, time_ns - compute_ns, is exposed communication */
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
/* Field f's number of values (0 for a bad f): point i takes its value
 * (i / (the product of the later fields' counts)) mod this count. */
size_t weft_sweep_nvalues(const WeftSweep *sw, int f);
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

/* ------------------------------------------------------------------ a choice of parts
 * A dim may offer a choice of parts (`Parts: [nvlink4, [ndr, xdr]]`, stored
 * "ndr|xdr" in WeftNetwork.part; --parts-per-dim 'nvlink4,ndr|xdr'; docs/parts.md):
 * every combination is bound and solved on whole links (weft_whole_solve),
 * the one of least objective kept. Exact: each solve is. */
#define WEFT_MAX_PART_COMBOS 64
typedef struct {
  int n;                                      /* combinations tried */
  int best;                                   /* the best solved one; -1: none solved */
  char choice[WEFT_MAX_DIMS][WEFT_NAME_LEN];  /* each dim's choices as given ("a|b") */
  int pick[WEFT_MAX_PART_COMBOS][WEFT_MAX_DIMS];  /* combination k: choice per dim */
  int status[WEFT_MAX_PART_COMBOS];           /* its WeftStatus */
  double objective[WEFT_MAX_PART_COMBOS];     /* time_ns (perf) or time_ns x cost_usd */
  double time_ns[WEFT_MAX_PART_COMBOS], cost_usd[WEFT_MAX_PART_COMBOS];
} WeftPartChoices;
/* Combinations of net's parts (1 with no choice; > WEFT_MAX_PART_COMBOS: too many). */
int weft_parts_choices(const WeftNetwork *net);
/* Solve each combination of sc's (already bound) network, leave sc bound to
 * the best (the first when none solved): its part per dim, rates, costs and
 * sc->parts. The catalog is read again from zoo_dir/../parts and
 * sc->parts_file. Errors (bad input, a solver failure) leave sc as it came. */
int weft_parts_choose(WeftScenario *sc, const char *zoo_dir, const WeftSettings *settings,
                      WeftPartChoices *pc, WeftError *err);
/* The networks of a co-design built of parts (docs/parts.md, "Co-design
 * with parts"): nets[0..n) in order, a network offering a choice of parts
 * expanded into one network per combination (dim 1 fastest), each bound to
 * the catalog (zoo_dir/../parts, parts_file over it: NULL none) as
 * weft_network_bind_parts binds, and every bound dim's class added to cm
 * (one of the same name and figures shared; other figures, the same part on
 * a dim of another size, "NAME#K", K the expanded network's number). A
 * network naming no part is copied as it is. *out and *dims (each
 * network's figures per dim, part "" where unbound) malloc'd, *nout set;
 * on failure nothing is allocated and cm is unchanged. */
int weft_codesign_parts(const WeftNetwork *nets, int n, const char *zoo_dir,
                        const char *parts_file, WeftCostModel *cm, WeftNetwork **out, int *nout,
                        WeftDimParts (**dims)[WEFT_MAX_DIMS], WeftError *err);
/* The same, a combination its parts cannot build (weft_network_bind_parts
 * refuses it as bad input: a dim past what the part's switches and uplinks
 * make, an unknown part) left out instead of failing: *dropped counts them,
 * *why holds the first one's reason; the kept networks in order, *nout of
 * them. None kept fails with that reason. For shapes weft enumerates
 * (codesign --blocks), not for networks a user names. */
int weft_codesign_parts_fit(const WeftNetwork *nets, int n, const char *zoo_dir,
                            const char *parts_file, WeftCostModel *cm, WeftNetwork **out,
                            int *nout, WeftDimParts (**dims)[WEFT_MAX_DIMS], int *dropped,
                            WeftError *why, WeftError *err);
/* The part of combination k on dim d, into buf ("" when out of range). */
const char *weft_parts_choice_name(const WeftPartChoices *pc, int k, int d, char *buf,
                                   size_t size);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_H_SEARCH */
