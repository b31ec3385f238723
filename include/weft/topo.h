/* weft/topo.h — public (part of weft.h): direct-connect topologies (TopoOpt), their baselines
 * and evaluation.
 * Include <weft.h>; this header includes what it builds on. */
#ifndef WEFT_H_TOPO
#define WEFT_H_TOPO

#include "weft/parts.h"
#include "weft/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#define WEFT_AR_DEGREE_PROPORTIONAL (-1)
#define WEFT_AR_DEGREE_BEST (-2)
typedef struct {
  int degree;            /* d: ports per server */
  double port_gbps;      /* B: bandwidth of one port (each direction) */
  int ar_degree;         /* ports for AllReduce rings (even, 0..degree), or
                            WEFT_AR_DEGREE_PROPORTIONAL: in proportion to the
                            AllReduce share of the traffic (at least 2 when
                            there is AllReduce traffic, to keep a full ring), or
                            WEFT_AR_DEGREE_BEST: the fastest split by simulation
                            (weft_topo_build_best) */
  int kpaths;            /* k-shortest paths model-parallel flows are split over (4) */
} WeftTopoSettings;
/* d 4, B 12.5 (100 Gbit/s), ar_degree WEFT_AR_DEGREE_PROPORTIONAL, k 4 */
void weft_topo_settings_default(WeftTopoSettings *s);

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
 * model-parallel links (as s->ar_degree says; WEFT_AR_DEGREE_BEST is
 * weft_topo_build_best), build both (TotientPerms; d_MP rounds of maximum
 * weight matching on the remaining demand), route (coin-change over the
 * strides for groups without rings of their own; k-shortest paths for
 * model-parallel flows). WEFT_EINPUT when the traffic cannot be wired (names
 * why). */
int weft_topo_build(const WeftTraffic *t, const WeftTopoSettings *s, WeftFabric **out,
                    WeftError *err);

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

/* How the d ports split between AllReduce rings and model-parallel links. */
typedef enum {
  WEFT_PORT_SPLIT_PROPORTIONAL = 0, /* s->ar_degree (-1: by the AllReduce share of the bytes) */
  WEFT_PORT_SPLIT_RINGS = 1,        /* every port to TotientPerms rings (the public TopoOpt
                                       code's); model-parallel traffic routed over them */
  WEFT_PORT_SPLIT_BEST = 2          /* the fastest of every even split 0..d, by simulation */
} WeftPortSplit;

/* weft_topo_build with the split chosen by split (PROPORTIONAL: as
 * s->ar_degree says, BEST taken as PROPORTIONAL there); *ar_ports (may be
 * NULL) gets the ring ports of the fabric returned. */
int weft_topo_build_split(const WeftTraffic *t, const WeftTopoSettings *s, WeftPortSplit split,
                          WeftFabric **out, int *ar_ports, WeftError *err);
/* The fastest port split (WEFT_PORT_SPLIT_BEST; s->ar_degree is ignored):
 * every even split 0..d wired (those that cannot be wired are skipped; the
 * splits share their matching rounds), ranked by weft_fabric_estimate (a
 * lower bound on the simulated time) and simulated in that order until the
 * next bound is no better than the best simulated time: exact, and usually
 * one or two simulations. Ties go to more ring ports. *ar_ports and *time
 * (each may be NULL): the fabric's ring ports and its weft_fabric_simulate
 * time on t, already computed. */
int weft_topo_build_best(const WeftTraffic *t, const WeftTopoSettings *s, WeftFabric **out,
                         int *ar_ports, WeftTopoTime *time, WeftError *err);

/* What `weft topo` costs before it runs (docs/topo.md, "Scale"): an upper
 * estimate of its work in elementary steps (measured: 0.01-0.7 ns a step on
 * one core, the larger for AllReduce-heavy jobs) for wiring TopoOpt with split (every candidate split for BEST), routing
 * indexes, the matching rounds and their far pairing, simulating TopoOpt and
 * the three baselines, and, with search_iterations > 0, the strategy
 * search's moves and rebuilds; and the routing indexes' peak bytes.
 * WEFT_EINVAL for a bad call, WEFT_EINPUT for more servers than a topology
 * takes (8192: weft_topo_build says so). */
typedef struct {
  double work;                 /* the sum of the four below */
  double index, matching, simulation, search;
  double bytes;                /* the hop-count indexes alive at once */
} WeftTopoWork;
#define WEFT_TOPO_MAX_WORK 2e12 /* `weft topo`'s default --max-work: many minutes */
int weft_topo_work(const WeftTraffic *t, const WeftTopoSettings *s, WeftPortSplit split,
                   int search_iterations, WeftTopoWork *w);

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
/* The same over *p as it is (not the defaults): --prices over --parts. */
int weft_topo_prices_read_over(const char *path, WeftPrices *p, WeftError *err);
/* The same table from a parts catalog (docs/parts.md): the price per GB/s
 * of entries nic-100g, qsfp28-100g and switch-100g (a switch per port:
 * price / ports / rate), and the price of patch-panel-port, ocs-port and
 * fiber-patch; use_ocs is left as it is. The built-in catalog gives the
 * defaults above. Errors name the entry that is missing or of another kind. */
int weft_topo_prices_parts(const WeftParts *cat, WeftPrices *p, WeftError *err);
/* The prices one by one, in the table's order (WeftPrices' fields). */
typedef enum {
  WEFT_PRICE_NIC_PORT = 0, WEFT_PRICE_TRANSCEIVER, WEFT_PRICE_SWITCH_PORT, WEFT_PRICE_PATCH_PANEL,
  WEFT_PRICE_OCS_PORT, WEFT_PRICE_FIBER, WEFT_NPRICES
} WeftPriceKey;
const char *weft_price_name(WeftPriceKey k);  /* its key in a prices file, "?" if none */
double *weft_price_field(WeftPrices *p, WeftPriceKey k);  /* NULL if no such key */
/* What each price multiplies in a fabric's cost (NICs and transceivers in
 * GB/s, switch ports in GB/s, panel or OCS ports, fibers): weft_fabric_cost
 * is sum over k of price k x qty[k]. ocs: the panel ports are OCS ports
 * (as p->use_ocs says for weft_fabric_cost). */
void weft_fabric_price_qty(const WeftFabric *f, int ocs, double qty[WEFT_NPRICES]);
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

/* Iteration time of a job's traffic on a fabric (WeftTopoTime, above). */
int weft_fabric_simulate(const WeftFabric *f, const WeftTraffic *t, WeftTopoTime *out,
                         WeftError *err);
/* weft_fabric_simulate of each of f[nf] on t into out[k], on up to
 * `threads` threads (<= 0: every core); the same results for any count.
 * The first fabric (lowest k) that fails gives the error. */
int weft_fabric_simulate_many(const WeftFabric *const *f, int nf, const WeftTraffic *t,
                              int threads, WeftTopoTime *out, WeftError *err);
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
  WeftTopoSettings topo;     /* each rebuild's (ar_degree WEFT_AR_DEGREE_BEST) */
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
  int threads;               /* the sweep's tasks on threads (0: every core); the
                                points are the same for any count */
  /* Called from one thread now and then: done of total tasks (one a (d, B)
   * of TopoOpt with its OCS and expander, one a NIC of each switched
   * fabric). NULL: none. */
  void (*progress)(void *ctx, size_t done, size_t total);
  void *progress_ctx;
} WeftTopoEval;
void weft_topo_eval_default(WeftTopoEval *e);

typedef struct {
  WeftEvalFabric fabric;
  int degree;                /* TopoOpt, expander, OCS: ports per server; else 1 */
  double gbps;               /* port (or NIC) bandwidth, GB/s */
  double reconf_ns;          /* OCS only */
  double cost_usd, time_ns, comm_ns;
  int tp, replicated, mp_layers;  /* the strategy found */
  double qty[WEFT_NPRICES];  /* cost_usd = sum of price k x qty[k] (weft_fabric_price_qty) */
} WeftEvalPoint;
/* Every point, fabric by fabric in sweep order; *pts is malloc'ed (the
 * caller frees it). */
int weft_topo_eval(const WeftTopoEval *e, WeftEvalPoint **pts, int *npts, WeftError *err);
/* A fabric's time at cost_usd, interpolated linearly in log cost between its
 * two nearest points (lowest time per cost): NAN outside its cost range. */
double weft_eval_time_at_cost(const WeftEvalPoint *pts, int npts, WeftEvalFabric f,
                              double cost_usd);
/* Which price flips the equal-cost conclusion (docs/topo.md, "Prices"):
 * the factor nearest 1 (in [1/1000, 1000]) by which price k must be
 * multiplied for the winner between TopoOpt's point pts[topo] and the
 * baseline read at its cost (weft_eval_time_at_cost over the baseline's
 * points, every cost recomputed from qty) to change; NAN when none does,
 * or when there is no reading at the prices as given. Times do not depend
 * on prices, so nothing is simulated again. */
double weft_eval_price_flip(const WeftEvalPoint *pts, int npts, const WeftPrices *p, int topo,
                            WeftEvalFabric baseline, WeftPriceKey k);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_H_TOPO */
