/* sim.h — internals of the iteration simulator: a collective's stages and
 * steps (stage.c), the two fidelities' resources (dimres.c, linkres.c) and
 * the driver (sim.c). docs/simulate.md has the model. */
#ifndef WEFT_SIM_SIM_H
#define WEFT_SIM_SIM_H

#include "sim/heap.h"
#include "weft.h"

typedef enum { ST_RS = 0, ST_AG, ST_A2A, ST_SR } StageKind;

#define SIM_MAX_STAGES (2 * WEFT_MAX_DIMS)

/* One per-dim stage of every chunk of a collective. */
typedef struct {
  int dim, n;          /* the dim and the group's NPUs in it */
  int stride;          /* coordinate distance between members: 1 (a block of n), or
                          npus/n for the outer part of a split dim (link fidelity) */
  StageKind kind;
  WeftAlgorithm alg;   /* resolved: never DEFAULT */
  int nsteps;
  double x_bytes;      /* per-NPU data entering the stage, one chunk */
} Stage;

/* Bytes one NPU sends in step k (0-based) of stage s: to all peers together. */
double stage_step_bytes(const Stage *s, int k);
/* Bytes one NPU sends over the whole stage. */
double stage_bytes(const Stage *s);
/* Peers of member m (0..n-1) in step k and the bytes to each: member
 * indices into peer[], bytes into bytes[]; returns the count (<= n-1). */
int stage_step_peers(const Stage *s, int k, int m, int *peer, double *bytes);
/* The stages of one chunk of chunk_bytes of collective c over group[].
 * Resolves each dim's algorithm (alg[d], DEFAULT by topology). Returns the
 * stage count, or WEFT_EINPUT (err names the dim) when an algorithm cannot
 * run on its group. */
int stage_build(WeftCollective c, double chunk_bytes, const int *group,
                const WeftNetwork *net, const WeftAlgorithm *alg, Stage *st, WeftError *err);

/* A collective being simulated: every chunk walks st[0..nstages). Chunks
 * enter a stage in order, so per stage two counters are all the state. */
typedef struct {
  int used, stream;            /* 0 main, 1 the overlap stream */
  int layer;
  WeftPhase phase;
  WeftCollective coll;
  int nstages, chunks, done;
  Stage st[SIM_MAX_STAGES];
  int arrived[SIM_MAX_STAGES], started[SIM_MAX_STAGES];
  int busy[WEFT_MAX_DIMS];     /* chunks in a stage on each dim (sending, waiting, in latency) */
  int sending[WEFT_MAX_DIMS];  /* 1 while one of its chunks sends on the dim */
  double start_ns;
  double calls;                /* calls the entry stands for: each step waits calls x delay */
} SimColl;

/* One chunk in one stage: the unit the resources move. */
typedef struct {
  int coll, stage, step, chunk;
  double stage_start_ns;
  int merged;                  /* all steps as one transfer (dim fidelity, no delay) */
  int next_free;
} SimXfer;

/* A fidelity's resources. start() begins step x->step of x; advance() moves
 * time to t_ns (<= next()) and reports the transfers done by then. */
typedef struct SimRes SimRes;
struct SimRes {
  double (*next)(SimRes *r);
  int (*advance)(SimRes *r, double t_ns, int *done, int max);
  int (*start)(SimRes *r, int xfer, const SimXfer *x, const Stage *s, double t_ns);
  void (*finish)(SimRes *r);  /* fill the statistics below; NULL = kept up to date */
  void (*free)(SimRes *r);
  /* per-dim statistics, bytes per NPU */
  double dim_bytes[WEFT_MAX_DIMS], dim_busy_ns[WEFT_MAX_DIMS];
  unsigned long long flows;
  size_t peak_flows;
  /* completions inside the resource (a flow, a transfer), whether or not
   * they finished a transfer: what the driver's no-spin check counts */
  unsigned long long completions;
};

/* WEFT_EINPUT (field "max_work", the estimate and the limit in the message)
 * when w, weft_sim_estimate's work, exceeds s->max_work (> 0). */
int sim_check_work(const WeftSimWork *w, const WeftSimSettings *s, WeftError *err);

int dimres_create(const WeftNetwork *net, const double *bw_gbps, SimRes **out);
int linkres_create(const WeftNetwork *net, const double *bw_gbps, WeftSharing sharing,
                   SimRes **out, WeftError *err);

#endif
