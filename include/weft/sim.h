/* weft/sim.h — public (part of weft.h): graphs, fluid flows and the iteration simulator.
 * Include <weft.h>; this header includes what it builds on. */
#ifndef WEFT_H_SIM
#define WEFT_H_SIM

#include "weft/search.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * the endpoint delay. A collective's chunks send on a dim one at a time, and
 * one waiting out a latency leaves the dim to the next (NCCL's pipelining).
 * Dim fidelity: a dim is one resource of B_d per NPU shared equally by the
 * collectives sending on it. Link fidelity: every step is the flows of all
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

/* Whose semantics a run follows (docs/simulate.md, "ASTRA-sim semantics"):
 * weft's, or ASTRA-sim 1.0's with its analytical backend, so a result
 * reproduces what ASTRA-sim reports for the inputs weft_astra1_export
 * writes: its HYBRID_TRANSFORMER training loop (input-grad collectives under
 * the weight-grad compute, weight-grad collectives running to the end, 1 ns
 * between loop steps, each layer's update time after its collectives) in
 * place of spec->loop; one queue per logical dim serving chunk phases in
 * priority order, first come first served; all-reduce as reduce-scatters,
 * an all-reduce on the last dim, all-gathers; no bandwidth sharing (a
 * message takes its hops' latency plus bytes / link bandwidth, a ring on a
 * FullyConnected dim sending one way over one B/(n-1) link); the endpoint
 * delay before every message and once more at the end of every phase, the
 * local-reduction memory time per reduce step; whole ns throughout (compute
 * times, sizes and the endpoint delay rounded to the nearest whole ns and
 * byte, as the export writes them). Dim fidelity only. */
typedef enum { WEFT_LIKE_WEFT = 0, WEFT_LIKE_ASTRA1 = 1 } WeftSimLike;
/* ASTRA-sim 1.0's endpoint delay when its system file gives none, and the
 * value of its sample files (ns): what `--like astra-sim` and the export
 * use unless told otherwise. */
#define WEFT_ASTRA_ENDPOINT_NS 10.0
/* ASTRA-sim 1.0's scheduling-policy: the priority its forward collectives
 * take from the priority counter (LIFO: the counter, then +1, ahead of the
 * collectives already waiting; FIFO: the counter, then -1, behind them).
 * Input-grad collectives always take LIFO's, weight-grad ones FIFO's
 * (HYBRID_TRANSFORMER's loop names them so), whatever the policy. */
typedef enum { WEFT_ASTRA_LIFO = 0, WEFT_ASTRA_FIFO = 1 } WeftAstraPolicy;

typedef enum { WEFT_SPAN_COMPUTE = 0, WEFT_SPAN_COLLECTIVE = 1, WEFT_SPAN_STAGE = 2 } WeftSpanKind;

/* One interval of the simulated timeline, for traces. */
typedef struct {
  WeftSpanKind kind;
  int job, layer;         /* layer index in the job's workload */
  WeftPhase phase;
  WeftCollective coll;    /* COLLECTIVE, STAGE (NONE for COMPUTE) */
  int stream;             /* 0 the main (blocking) stream, 1 the overlap stream
                             (weight-grad: tp-dp-overlap; fwd, ig: fwd-ig-overlap) */
  int dim, chunk;         /* STAGE: its dim and chunk; -1 otherwise */
  double start_ns, end_ns;
} WeftSimSpan;
typedef void (*WeftSpanFn)(void *ctx, const WeftSimSpan *span);

typedef struct {
  WeftFidelity fidelity;
  int chunks;                               /* per collective (default 64) */
  int in_flight;                            /* chunks of one collective in a stage on a dim at
                                               once; they send one at a time, and one waiting
                                               out a step's latency leaves the dim to the next
                                               (WEFT_SIM_IN_FLIGHT_ALL = 0: every chunk, the
                                               default; ASTRA-sim semantics: 0 means 1) */
  double latency_ns[WEFT_MAX_DIMS];         /* per step, per dim (0) */
  double endpoint_delay_ns;                 /* per step, at the receiver (0) */
  WeftAlgorithm algorithm[WEFT_MAX_DIMS];   /* per dim (DEFAULT) */
  WeftSharing sharing;                      /* link fidelity (max-min fair) */
  WeftSpanFn on_span;                       /* optional timeline; NULL = none */
  void *span_ctx;
  int stage_spans;                          /* also report every chunk's stages (0) */
  double max_work;                          /* refuse a run whose weft_sim_estimate work
                                               exceeds this (WEFT_SIM_MAX_WORK); 0 = no limit */
  /* Optional (NULL = none): called now and then from the simulating thread
   * with the work done (events + flows so far) of the total weft_sim_estimate
   * counts (its events + flows), every WEFT_SIM_PROGRESS_EVERY units and once
   * at the end with done == total. The library prints nothing itself. */
  void (*progress)(void *ctx, size_t done, size_t total);
  void *progress_ctx;
  WeftSimLike like;                         /* whose semantics (weft's) */
  WeftAstraPolicy astra_policy;             /* ASTRA1: scheduling-policy (LIFO) */
} WeftSimSettings;

/* in_flight: every chunk of a collective may be in a stage at once. NCCL
 * keeps up to NCCL_STEPS (8) slots of a channel's buffer (Simple protocol:
 * 4 MiB) in flight, more than any preset's bandwidth x latency (at most
 * about 1.3 MB), so its latency never throttles the sending: no limit. */
#define WEFT_SIM_IN_FLIGHT_ALL 0
/* ASTRA-sim 1.0's active-chunks-per-dimension when in_flight is 0. */
#define WEFT_SIM_ASTRA_IN_FLIGHT 1

#define WEFT_SIM_PROGRESS_EVERY 65536  /* work units between progress calls: a few ms */

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

/* ------------------------------------------------------------------ ASTRA-sim 1.0
 * A design as ASTRA-sim 1.0 analytical inputs (docs/simulate.md), which
 * ASTRA-sim runs to what weft_simulate with like = WEFT_LIKE_ASTRA1 and
 * the same settings reports:
 * - network.json: Hierarchical, per dim the topology, NPUs, links per NPU
 *   (Ring 2, FullyConnected n-1, Switch 1), link-bandwidth per link in
 *   ASTRA-sim's GB/s of 2^30 bytes/s (B x efficiency / links / 1.073741824),
 *   link-latency in ns per hop (s->latency_ns per step; a Switch step is 2
 *   hops); the file says so in its "weft-units" key;
 * - system.txt: s->chunks (preferred-dataset-splits), s->in_flight
 *   (active-chunks-per-dimension), s->endpoint_delay_ns rounded to whole ns,
 *   per-dim algorithms (ring, direct, halvingDoubling; all-to-all has no
 *   halving-doubling there: direct), localBWAware, s->astra_policy;
 * - each job's workload text: "HYBRID_TRANSFORMER model_parallel_NPU_group:
 *   M", the layer count, then the layers with compute times and sizes
 *   rounded to whole ns and bytes (a size of 0 as NONE).
 * ASTRA-sim lays forward and input-grad collectives on the innermost M NPUs
 * (splitting the dim M ends inside) and weight-grad collectives on the
 * rest: the job's M, or WEFT_EINPUT naming the communicator group that does
 * not have that shape (or a named group or send-recv, which it lacks). */
int weft_astra1_mp_npus(const WeftNetwork *net, const WeftWorkload *wl,
                        const WeftCommunicator *comm, int *mp_npus, WeftError *err);
/* Each file into an open output (weft_out_open; o left open). */
int weft_astra1_network_emit(WeftOut *o, const WeftNetwork *net, const double *bw_gbps,
                             const WeftSimSettings *s, WeftError *err);
int weft_astra1_system_emit(WeftOut *o, const WeftNetwork *net, const WeftSimSettings *s,
                            WeftError *err);
int weft_astra1_workload_emit(WeftOut *o, const WeftNetwork *net, const WeftWorkload *wl,
                              const WeftCommunicator *comm, WeftError *err);
/* The file names of an export of spec, into names[0..n): network.json,
 * system.txt, then workload.txt (one job) or workload_1.txt ... Returns n
 * (spec->njobs + 2), WEFT_EINVAL when max is too small. */
int weft_astra1_file_names(const WeftSpec *spec, char names[][WEFT_NAME_LEN], int max);
/* All of them into o[0..n) in that order (n = spec->njobs + 2). */
int weft_astra1_emit(WeftOut *const *o, int n, const WeftSpec *spec, const double *bw_gbps,
                     const WeftSimSettings *s, WeftError *err);
/* All of them into directory dir (created when missing, removed again when
 * this created it and fails): every file or none. */
int weft_astra1_export(const char *dir, const WeftSpec *spec, const double *bw_gbps,
                       const WeftSimSettings *s, WeftError *err);

/* Chakra execution traces for ASTRA-sim 2.0/3.0 (docs/simulate.md "Chakra
 * traces"): into directory dir (created when missing), one trace per rank,
 * PREFIX.RANK.et (ranks 0..N-1, dim 1 innermost): a GlobalMetadata, then
 * the Nodes of one iteration of the training loop `loop` (a WeftLoop): per
 * layer forward compute and collective, then from the last layer input-grad
 * compute and collective, weight-grad compute and collective. Compute nodes
 * carry duration_micros (whole us) and weft_duration_ns; collectives
 * comm_type and comm_size (an entry of k calls is k nodes of size/k), a
 * send-recv a COMM_SEND_NODE to the group's next member and a
 * COMM_RECV_NODE from its previous one. A group of whole dims is named by
 * involved_dim, any other by pg_name, a comm group of PREFIX.comm_groups.json
 * (ASTRA-sim's --comm-group-configuration). Data deps: the main stream
 * waits for blocking collectives; the others (as the loop overlaps them) run
 * one at a time after the compute before them. Every node also carries
 * weft_layer and weft_phase (weft_chakra_read's). With bw_gbps (and s), also
 * network.yml (weft_astra_network_emit of bw_gbps x the dims' efficiency),
 * system.json (s->chunks,
 * s->in_flight, s->endpoint_delay_ns, weft's default algorithm per dim) and
 * memory.json. Every file or none. */
int weft_chakra_export(const char *dir, const char *prefix, const WeftNetwork *net,
                       const WeftWorkload *wl, const WeftCommunicator *comm, int loop,
                       const double *bw_gbps, const WeftSimSettings *s, WeftError *err);

/* A Chakra trace set as a workload (docs/simulate.md "Chakra traces"):
 * path is a directory holding one PREFIX.0.et, or PREFIX (or PREFIX.0.et);
 * PREFIX.0.et .. PREFIX.(N-1).et, N the network's NPUs, and
 * PREFIX.comm_groups.json when a node names a comm group. Rank 0's nodes in
 * file order become the layers: by weft_layer / weft_phase where present,
 * else each collective closes a forward entry holding the compute before
 * it; repeats of one collective are its calls. Groups: pg_name (the comm
 * group's ranks must be a group weft lays out), weft_group, involved_dim,
 * else every dim; each phase's first is its communicator group, others
 * named groups g1, g2, ... Every other rank must have the same nodes.
 * WEFT_EINPUT naming file, node id and field for what weft does not model
 * (memory nodes, comm types other than all-reduce, reduce-scatter,
 * all-gather and all-to-all, sends outside weft's send-recv pairs, compute
 * timed by num_ops). *out is created by the call. */
int weft_chakra_read(const char *path, const WeftNetwork *net, WeftWorkload **out,
                     WeftCommunicator *comm, WeftError *err);
/* 1 when path names a Chakra trace set as weft_chakra_read takes it, or a
 * directory holding several (weft_chakra_read says to name one). */
int weft_chakra_is_trace(const char *path);
/* The ranks of a Chakra trace set (its PREFIX.0.et, PREFIX.1.et, ... in a
 * row); 0 when path names none. */
long long weft_chakra_ranks(const char *path);

/* Read back: weft_network_read takes network.json (its design into
 * design_gbps, latency per hop into latency_ns per step); this reads
 * system.txt into s (like = WEFT_LIKE_ASTRA1, chunks, in_flight,
 * endpoint_delay_ns, algorithm per dim of net, astra_policy: LIFO or
 * FIFO), refusing what weft does not model (boost mode, baseline all-reduce, a
 * collective whose algorithm differs from the all-reduce's on a dim). */
int weft_astra1_system_read(const char *path, const WeftNetwork *net, WeftSimSettings *s,
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

#ifdef __cplusplus
}
#endif
#endif /* WEFT_H_SIM */
