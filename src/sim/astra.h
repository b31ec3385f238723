/* astra.h — internals of `--like astra-sim`: how ASTRA-sim 1.0 with its
 * analytical backend lays a job out (astra_map.c), times one collective's
 * per-dim phases (astra_stage.c) and runs a training iteration
 * (astra_run.c). docs/simulate.md, "ASTRA-sim semantics", has the model. */
#ifndef WEFT_SIM_ASTRA_H
#define WEFT_SIM_ASTRA_H

#include "sim/sim.h"

/* ASTRA-sim's analytical main gives every NPU a memory of this many bytes
 * per ns; a reduce step costs a write and two reads of its message there,
 * each rounded down to whole ns. */
#define ASTRA_MEM_BYTES_PER_NS 500000.0
/* Direct all-reduce on a ring dim with latency is timed NPU by NPU (n^2
 * doubles: 8 MB here): refused past this many members. */
#define ASTRA_DIRECT_MAX_N 1024

typedef enum { AS_RS = 0, AS_AG, AS_AR, AS_A2A } AstraKind;

/* One physical dim as a send sees it. */
typedef struct {
  WeftTopology topology;
  int npus;
  double send_bytes_per_ns;  /* one message: ASTRA-sim's link bandwidth x its link scalar */
  double hop_ns;             /* latency per hop (a Switch send is 2 hops) */
} AstraDim;

/* How a phase's group lies on one dim: its members are n coordinates
 * `stride` apart; queue is the logical dim (2 dim + 1 for the outer part of
 * a dim the model-parallel group splits). */
typedef struct {
  int n, stride, queue;
} AstraPart;

/* A job as ASTRA-sim 1.0 sees it: the HYBRID_TRANSFORMER split and each
 * phase's parts per dim (n 0 where the phase does not use the dim). */
typedef struct {
  int mp_npus;                                  /* model_parallel_NPU_group */
  int split_dim;                                /* the dim M ends inside, -1 if none */
  AstraPart part[WEFT_NPHASES][WEFT_MAX_DIMS];
  AstraDim dim[WEFT_MAX_DIMS];
  double endpoint_ns;                           /* whole ns */
  WeftAlgorithm alg[WEFT_MAX_DIMS];             /* resolved per dim */
} AstraJob;

/* One per-dim phase of a chunk (ASTRA-sim's CollectivePhase). */
typedef struct {
  int dim, queue;
  AstraKind kind;
  WeftAlgorithm alg;
  double dur_ns[2];      /* a regular chunk, the last chunk */
  double bytes[2];       /* bytes one NPU sends in it */
} AstraStage;

/* astra_map.c */
/* model_parallel_NPU_group of job (weft_astra1_mp_npus) and the split dim. */
int astra_split(const WeftNetwork *net, const WeftWorkload *wl, const WeftCommunicator *comm,
                int *mp_npus, int *split_dim, WeftError *err);
/* Everything astra_stage needs for job: parts, dims at bw_gbps (already
 * scaled by efficiency), latency per step, endpoint delay and algorithms
 * of s. */
int astra_job(const WeftNetwork *net, const WeftWorkload *wl, const WeftCommunicator *comm,
              const double *bw_gbps, const WeftSimSettings *s, AstraJob *out, WeftError *err);
/* The algorithm of dim d for a (weft's default: Ring ring, FullyConnected
 * direct, Switch halving-doubling when the dim's size is a power of two,
 * else ring: one per dim, as ASTRA-sim's system file gives it). */
WeftAlgorithm astra_alg(const WeftNetwork *net, int d, WeftAlgorithm a);
/* Per-link bandwidth of dim d in ASTRA-sim's GB/s (2^30 bytes/s) for per-NPU
 * b_gbps, and the links per NPU the export writes (Ring 2, FC n-1, Switch 1). */
double astra_link_gibps(const WeftNetwork *net, int d, double b_gbps);
int astra_links(const WeftNetwork *net, int d);
/* Per-hop latency of dim d for weft's per-step latency (a Switch step is 2 hops). */
double astra_hop_ns(const WeftNetwork *net, int d, double step_ns);
/* ... and back: weft's per-step latency for ASTRA-sim's per-hop one. */
double astra_step_ns(const WeftNetwork *net, int d, double hop_ns);
/* A whole number of ns or bytes, as ASTRA-sim reads them (nearest). */
double astra_whole(double v);

/* astra_stage.c */
/* The stages of one collective of size_bytes in chunks: kinds and queues
 * per ASTRA-sim's localBWAware order, each timed for a regular chunk and the
 * last. *nchunks: ASTRA-sim cuts size into chunks of floor(size/chunks)
 * bytes, the last one the remainder. Returns the stage count (0: nothing
 * to send) or a negative WeftErrno (err names the dim or the size). */
int astra_stages(const AstraJob *job, WeftCollective c, int phase, double size_bytes, int chunks,
                 AstraStage *st, long long *nchunks, WeftError *err);

/* astra_run.c: job j of spec as ASTRA-sim 1.0 runs it, into res->job[j]
 * (and res's counters). */
int astra_simulate_job(const WeftSpec *spec, int j, const double *bw, const WeftSimSettings *s,
                       WeftSimResult *res, WeftError *err);

#endif
