/* weft/inputs.h — public (part of weft.h): the inputs: network, cost model, workload,
 * communicator, constraints, readers, scenario.
 * Include <weft.h>; this header includes what it builds on. */
#ifndef WEFT_H_INPUTS
#define WEFT_H_INPUTS

#include "weft/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ network
 * One building block per dimension, innermost first (dim 0 = B1). */
typedef enum { WEFT_RING = 0, WEFT_FULLY_CONNECTED = 1, WEFT_SWITCH = 2 } WeftTopology;

/* The fabric shape of a dim (key Fabric, --fabric, Python's fabric=;
 * docs/model.md "Fabric shapes"): how its copies are built, which sets its
 * cost from parts and the steps of its collectives.
 *   WEFT_SHAPE_TREE: as LIBRA, the default: a Switch dim's copies each a
 *     Fat-tree of their own (per link of an NPU), its collectives the
 *     default algorithm (halving-doubling on a power of two, else ring).
 *   WEFT_SHAPE_RAIL_OPTIMIZED: a Switch dim whose copies are rails (one per
 *     NPU of the inner dims): each rail its own leaves, one spine layer
 *     (Fat-tree) above all rails; NCCL rings per rail (n - 1 steps a stage).
 *   WEFT_SHAPE_RAIL_ONLY: a Switch dim of rails and no spine above them
 *     (Wang et al. 2023): each rail its own Fat-tree, cross-rail traffic
 *     forwarded over the inner dims, as the hierarchical collective does;
 *     NCCL rings per rail.
 *   WEFT_SHAPE_TORUS: a Ring dim that is one dim of a TPU-style torus of
 *     WEFT_TORUS_CUBE-wide cubes joined by optical circuit switches: rings in
 *     both directions (the Ring model), one link in WEFT_TORUS_CUBE optical
 *     through an OCS. */
typedef enum {
  WEFT_SHAPE_TREE = 0,
  WEFT_SHAPE_RAIL_OPTIMIZED = 1,
  WEFT_SHAPE_RAIL_ONLY = 2,
  WEFT_SHAPE_TORUS = 3
} WeftDimShape;
#define WEFT_NSHAPES 4
#define WEFT_TORUS_CUBE 4  /* a TPU v4/v5p cube is 4x4x4 chips (Jouppi et al. 2023) */

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
  /* The cluster preset the network names (key Cluster, --cluster; docs/zoo.md
   * "Clusters"), "" when none: it filled the dims' efficiency, latency and
   * design; cluster_device is its GPU, the default device of model jobs. */
  char cluster[WEFT_NAME_LEN];
  char cluster_device[WEFT_NAME_LEN];
  /* Whole links (keys LinkGBps and MaxLinks, --link-gbps, --max-links;
   * docs/model.md "Whole links"): dim d's bandwidth is B_d = n_d x
   * link_gbps[d] with n_d a whole number of links (or NICs) per NPU, at most
   * max_links[d]. link_gbps[d] = 0: B_d is continuous; max_links[d] = 0: no
   * limit. A part of a catalog supplies both. links_line[d], max_links_line[d]:
   * the source lines of dim d's rate and limit (0 when unknown or given on
   * the command line), where errors point. */
  double link_gbps[WEFT_MAX_DIMS];
  int max_links[WEFT_MAX_DIMS];
  int links_line[WEFT_MAX_DIMS];
  int max_links_line[WEFT_MAX_DIMS];
  /* Parts (key Parts, --parts-per-dim, Python's parts_per_dim=; docs/parts.md):
   * the catalog part dim d is built of, "" when none; weft_network_bind_parts
   * turns it into the dim's rate, limit and cost class. part_line[d]: its
   * source line (0 when unknown or given on the command line). */
  char part[WEFT_MAX_DIMS][WEFT_NAME_LEN];
  int part_line[WEFT_MAX_DIMS];
  /* Active NPUs (key Active, --active, active=; docs/model.md "Active NPUs"):
   * dim d has npus[d] NPUs that work and spares[d] more that are bought but
   * idle, so the file's NpusCount is npus[d] + spares[d] and its Active is
   * npus[d]. Everything that models the work reads npus (groups, the
   * workload's NPUs, the simulator); the network cost counts the spares too
   * (weft_network_npus_bought). 0: none, the default. */
  int spares[WEFT_MAX_DIMS];
  /* Fabric shape per dim (WeftDimShape above; all 0: LIBRA's), and its source
   * line (0 when unknown or given on the command line). */
  int fabric[WEFT_MAX_DIMS];
  int fabric_line[WEFT_MAX_DIMS];
  /* Planes per dim (key Planes, --planes, Python's planes=; docs/model.md
   * "Fabric shapes"): a Switch dim's NIC splits each link over planes[d]
   * ports, one per plane, each plane a Fat-tree of its own at 1/planes of
   * the rate (a faster switch port broken out): the bandwidth adds up, the
   * radix grows planes-fold. 0 or 1: one plane. */
  int planes[WEFT_MAX_DIMS];
  int planes_line[WEFT_MAX_DIMS];
} WeftNetwork;

/* ASTRA-sim's "GB/s" is 2^30 bytes/s; weft's GB/s is 1e9 bytes/s (= bytes/ns). */
#define WEFT_ASTRA_GBPS_PER_GIBPS (1073741824.0 / 1e9)

/* Whole links: the largest link rate (GB/s) and links per NPU weft takes. */
#define WEFT_MAX_LINK_GBPS 1e9
#define WEFT_MAX_LINKS 1000000

/* The one rule on a network's whole links, in files, on the command line and
 * in Python: every link_gbps[d] in [0, WEFT_MAX_LINK_GBPS] (0 = continuous),
 * every max_links[d] in [0, WEFT_MAX_LINKS] (0 = no limit), and a limit only
 * on a dim with a rate. Errors name file (may be ""), links_line[d] and the
 * field (rate_field or max_field: "LinkGBps", "--link-gbps", ...) and entry. */
int weft_network_links_check(const WeftNetwork *net, const char *file, const char *rate_field,
                             const char *max_field, WeftError *err);
/* Set whole links from lists given outside a file (--link-gbps, Python's
 * link_gbps=): nrates rates and nmax limits (each list NULL to leave it as
 * it is; a list must have one entry per dim, limits whole numbers), then
 * the check above. On failure net is unchanged. */
int weft_network_set_links(WeftNetwork *net, const double *link_gbps, int nrates,
                           const double *max_links, int nmax, const char *rate_field,
                           const char *max_field, WeftError *err);

const char *weft_topology_name(WeftTopology t);  /* "Ring", ... */
/* "fat-tree", "rail-optimized", "rail-only", "torus" ("?" if none). */
const char *weft_dim_shape_name(WeftDimShape f);
/* Planes per dim given outside a file or from one (key Planes, --planes,
 * Python's planes=): n entries, one per dim, each 0 (as the dim is), 1 (one
 * plane) or a whole number of planes up to WEFT_MAX_PLANES on a Switch dim.
 * Errors name file (may be ""), lines[d] (NULL: none), field and entry; on
 * failure net is unchanged. */
#define WEFT_MAX_PLANES 64
int weft_network_set_planes(WeftNetwork *net, const double *planes, int n, const char *file,
                            const int *lines, const char *field, WeftError *err);
/* Rails of dim d: the NPUs bought of the dims inside it (1 for dim 0). */
double weft_network_rails(const WeftNetwork *net, int d);
/* Fabric shapes per dim given by name (key Fabric, --fabric, Python's
 * fabric=): n names, one per dim, each a weft_dim_shape_name ("fat-tree":
 * the default), or "-" or "" to leave the dim as it is. The rule:
 * rail-optimized and rail-only on a Switch dim with a dim inside it (its
 * rails), torus on a Ring dim whose NPUs (spares included) are a multiple
 * of WEFT_TORUS_CUBE. Errors name file (may be
 * ""), lines[d] (NULL: none), field and entry; on failure net is unchanged. */
int weft_network_set_fabric(WeftNetwork *net, const char *const *names, int n, const char *file,
                            const int *lines, const char *field, WeftError *err);
double weft_network_npus_total(const WeftNetwork *net);  /* the NPUs that work */
/* Every NPU bought: the product of npus[d] + spares[d]; what cost counts. */
double weft_network_npus_bought(const WeftNetwork *net);
/* Active NPUs per dim (key Active, --active, Python's active=): n entries,
 * one per dim, each 0 (all of the dim's NPUs work) or a whole number from 2
 * to the dim's NPUs (npus[d] + spares[d]); the rest of the dim are spares.
 * Errors name file (may be ""), lines[d] (NULL: none) and field. On failure
 * net is unchanged. */
int weft_network_set_active(WeftNetwork *net, const double *active, int n, const char *file,
                            const int *lines, const char *field, WeftError *err);

/* ------------------------------------------------------------------ cost model
 * $ per GB/s of link bandwidth, per cost class (LIBRA's cost_model yml). */
typedef struct {
  char name[WEFT_NAME_LEN];
  double link_usd_per_gbps, switch_usd_per_gbps, nic_usd_per_gbps;
  int has_link, has_switch, has_nic;
  int line;
  /* Power (weft): W per GB/s of one NPU's bandwidth on a dim of this class,
   * every part of the class included (links, NICs, switches); absent: 0. */
  double power_w_per_gbps;
  int has_power;
} WeftCostClass;

/* System cost (weft; docs/model.md "System cost"): what is not network.
 * Top-level scalars of the cost model file; each has_* says it was given
 * (a CLI or Python override sets it too). Absent: no NPU capex or power,
 * and the documented defaults for price, PUE and lifetime. */
typedef struct {
  double npu_usd;                 /* Npu: $ per NPU (LIBRA's element name) */
  double npu_power_w;             /* NpuPowerW: W per NPU */
  double electricity_usd_per_kwh; /* ElectricityUsdPerKwh */
  double pue;                     /* Pue: facility power / IT power, >= 1 */
  double lifetime_years;          /* LifetimeYears: capex amortised over it */
  int has_npu_usd, has_npu_power_w, has_electricity, has_pue, has_lifetime;
  /* The NPU's own power (WeftDevice.power_w, the device of the job: set by
   * the entry points, not a file key; 0: unknown): NpuPowerW when none is
   * given. Not a system figure given (weft_cost_model_has_system). */
  double device_power_w;
} WeftSystemCost;

/* Defaults (marked estimates, docs/model.md "System cost"): US industrial
 * electricity 2023 (EIA: 8.06 cents/kWh), the global average PUE 2023
 * (Uptime Institute survey: 1.58), a 4-year accelerator life. */
#define WEFT_DEFAULT_ELECTRICITY_USD_PER_KWH 0.08
#define WEFT_DEFAULT_PUE 1.58
#define WEFT_DEFAULT_LIFETIME_YEARS 4.0

typedef struct {
  int nclasses;
  WeftCostClass cls[WEFT_MAX_COST_CLASSES];
  char file[WEFT_PATH_LEN];
  WeftSystemCost sys;
} WeftCostModel;

/* 1 when cm gives any system figure (Npu, NpuPowerW, price, PUE, lifetime)
 * or a class gives Power: reports then show the system block. */
int weft_cost_model_has_system(const WeftCostModel *cm);
/* Set one system figure by its file key ("Npu", "NpuPowerW",
 * "ElectricityUsdPerKwh", "Pue", "LifetimeYears", or snake_case), checked
 * against the range a file's value must meet: the one rule every override
 * (CLI, scenario, Python) goes through. WEFT_EINPUT naming the field. */
int weft_system_cost_set(WeftCostModel *cm, const char *field, double value, WeftError *err);
/* The system figures with defaults filled in (each has_* as given; NpuPowerW
 * not given: device_power_w, the device's datasheet power). */
void weft_system_cost_resolved(const WeftCostModel *cm, WeftSystemCost *out);

/* Network cost per GB/s of per-NPU bandwidth for each dim (LIBRA's counts:
 * Ring and FullyConnected N*link, Switch N*(link+nic+switch)), into
 * usd_per_gbps[ndims]. Fails naming the class or element that is missing. */
int weft_cost_per_gbps(const WeftNetwork *net, const WeftCostModel *cm,
                       double *usd_per_gbps, WeftError *err);
/* Network power per GB/s of per-NPU bandwidth for each dim: N x the class's
 * Power (0 where absent), into w_per_gbps[ndims]. Fails as weft_cost_per_gbps
 * when a dim's class is missing. */
int weft_power_per_gbps(const WeftNetwork *net, const WeftCostModel *cm, double *w_per_gbps,
                        WeftError *err);

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
  double calls;  /* collective calls the entry stands for: size_bytes is their sum,
                    each pays the algorithm's latency (a generated entry covers every
                    micro-batch and merged layer); 0 reads as 1 (LIBRA's one per
                    entry); a weft extension written "ALLREDUCE*96" in workload text */
  double overlap_ns;  /* forward and input-grad only: the collective runs concurrently
                         with overlap_ns of this entry's compute (a GEMM it is chunked
                         into: TP communication overlap, or the next micro-batch's
                         compute for pipeline P2P overlap), so only max(0, its time -
                         overlap_ns) is exposed; 0: it blocks (LIBRA). Ignored by the
                         fwd-ig-overlap loop, which hides it whole. A weft extension
                         written "ALLGATHER~5000" in workload text (docs/model.md,
                         "Hidden collectives") */
} WeftPhaseSpec;

/* Calls an entry's collective stands for (WeftPhaseSpec.calls, 0 as 1). */
static inline double weft_phase_calls(const WeftPhaseSpec *s) {
  return s->calls > 0.0 ? s->calls : 1.0;
}

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

/* Where a constraint came from: the input file (a scenario's
 * `constraints:`), or given on top of it (--constraint, constraint=). */
typedef enum { WEFT_CONS_FILE = 0, WEFT_CONS_OPTION = 1 } WeftConsOrigin;

typedef struct {
  double coef[WEFT_MAX_DIMS];
  double cost_coef;
  double rhs;
  WeftRelation rel;
  char text[128];  /* the source text it came from, for messages */
  int origin;      /* WeftConsOrigin (weft_constraints_parse: WEFT_CONS_FILE) */
} WeftConstraint;

typedef struct {
  int n;
  WeftConstraint c[WEFT_MAX_CONSTRAINTS];  /* in force */
  int nreplaced;                           /* the file's, replaced by options: */
  WeftConstraint replaced[WEFT_MAX_CONSTRAINTS];  /* for reports (weft_constraints_override) */
} WeftConstraints;

/* Parse one expression such as "B1 >= B2 >= B3", "sum = 1000", "cost <= 2e7",
 * "2*B2 <= B1 + 10" and append one constraint per relation of a chain
 * (< and > mean <= and >=: the feasible set is closed). On error cs is
 * left unchanged.
 * ndims bounds the B indices. err names the column of the offending token;
 * err->file/line are left for the caller to fill (they know the source). */
int weft_constraints_parse(WeftConstraints *cs, const char *expr, int ndims, WeftError *err);
/* The same for a constraint given on top of a file's (--constraint with a
 * scenario, Python's constraint=): each relation of expr first replaces the
 * file's constraints (origin WEFT_CONS_FILE) over the same left-hand side --
 * the same linear form of B1..BD and cost up to a nonzero factor, whatever
 * the relation and right-hand side ('sum = 2000' replaces 'sum = 1000' and
 * 'sum <= 1500'; 'B2 <= B1' replaces 'B1 >= B2') -- moving them to
 * cs->replaced; then it is appended with origin WEFT_CONS_OPTION. Options
 * never replace each other ('B1 >= 10' and 'B1 <= 100' both hold). On error
 * cs is left unchanged. */
int weft_constraints_override(WeftConstraints *cs, const char *expr, int ndims, WeftError *err);

/* ------------------------------------------------------------------ I/O
 * Readers for LIBRA's inputs (files as they are) and weft's scenario. All
 * report file, line, column and field on failure, with WEFT_EIO, WEFT_ESYNTAX
 * or WEFT_EINPUT. */
int weft_network_read(const char *path, WeftNetwork *net, WeftError *err);
/* The same, resolving a `Cluster: NAME` key against zoo_dir/clusters.yml
 * (weft_network_read uses data/zoo, relative to the working directory). */
int weft_network_read_zoo(const char *path, const char *zoo_dir, WeftNetwork *net,
                          WeftError *err);
int weft_cost_model_read(const char *path, WeftCostModel *cm, WeftError *err);
int weft_communicator_read(const char *path, WeftCommunicator *comm, WeftError *err);
/* The same from text in memory (a YAML document; JSON is YAML too), name
 * standing for the file in errors and in the result's file field; a network's
 * `Cluster: NAME` resolved in zoo_dir (NULL = data/zoo), as weft_network_read_zoo.
 * Text, as a file, is at most 256 MiB (WEFT_EINPUT beyond), and a NUL inside
 * a YAML scalar ("\0", "\u0000") is WEFT_EINPUT at its line. */
int weft_network_parse(const char *text, const char *name, const char *zoo_dir, WeftNetwork *net,
                       WeftError *err);
int weft_cost_model_parse(const char *text, const char *name, WeftCostModel *cm,
                          WeftError *err);
int weft_communicator_parse(const char *text, const char *name, WeftCommunicator *comm,
                            WeftError *err);
/* ASTRA-sim 1.0 workload text (at most 256 MiB); *out is created by the call. */
int weft_workload_read(const char *path, WeftWorkload **out, WeftError *err);
int weft_workload_parse(const char *text, const char *name, WeftWorkload **out,
                        WeftError *err);

/* ------------------------------------------------------------------ a dim of parts
 * What a dim built of catalog parts costs (weft/parts.h, weft_parts_dim). */
#define WEFT_MAX_TIERS 8

typedef struct {
  char part[WEFT_NAME_LEN];
  double rate_gbps;          /* one link's, GB/s per NPU */
  int max_links;             /* the part's max_per_npu (0 = no limit) */
  int tiers;                 /* Switch: tiers of the Fat-tree; 0 otherwise */
  int radix;                 /* Switch: ports per switch at rate_gbps; 0 otherwise */
  double oversub;            /* Switch: leaf oversubscription used */
  /* Per NPU and per link (multiply by n_d for the design's counts). */
  double endpoints;          /* link ports or NICs: 1 */
  double switch_ports;       /* switch ports used */
  double optics;             /* transceivers */
  double cables;             /* copper cables */
  /* Per NPU, $ and W per GB/s of B_d, split as LIBRA's cost model is:
   * nic = endpoint (a link's port on Ring, FullyConnected counts as link),
   * switch = switch ports, link = optics and cables (and Ring/FC ports). */
  double link_usd_per_gbps, nic_usd_per_gbps, switch_usd_per_gbps;
  double usd_per_gbps, w_per_gbps;  /* their sums; the same for watts */
  /* Whole switches of one of the dim's Fat-trees (one per link of an NPU:
   * rail-optimised planes), tier 1 (leaves) first; a single tier shares its
   * switches among the NPU's links (ceil(npus x n / k) at n links). */
  int tier_switches[WEFT_MAX_TIERS];
  char switch_name[WEFT_NAME_LEN], attach_name[WEFT_NAME_LEN], uplink_name[WEFT_NAME_LEN];
  /* The fabric shape the figures are for (WeftDimShape); rails: the copies of
   * the dim one Fat-tree joins (rail-optimized: the dim's rails; else 1);
   * ocs_ports: torus, OCS ports per NPU and link (1 / WEFT_TORUS_CUBE), and
   * ocs_radix the OCS's ports (0: priced per port, no box counted). */
  int fabric;
  double rails;
  double ocs_ports;
  int ocs_radix;
  int planes;  /* Switch: the planes each link is split over (1: one), radix per plane */
} WeftDimParts;

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
  /* A model job's tokens per iteration (global batch x sequence length;
   * samples for a model without one), 0 for a workload file: the report's
   * $ per million tokens (docs/model.md "System cost"). */
  double tokens_per_iteration[WEFT_MAX_JOBS];
  /* Parts (docs/parts.md): the user's catalog file read over the built-in
   * one ("" none), and each dim's figures from its part (part "" for a dim
   * of none), filled by weft_scenario_bind_parts. */
  char parts_file[WEFT_PATH_LEN];
  WeftDimParts parts[WEFT_MAX_DIMS];
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

/* A scenario from text in memory (YAML or JSON), name standing for its file:
 * in errors, and as the directory relative file names in it are read from
 * (a name without '/': the working directory). */
int weft_scenario_parse(const char *text, const char *name, const char *zoo_dir,
                        WeftScenario *sc, WeftError *err);
/* The same as weft_scenario_read_zoo with a parts catalog file of the
 * caller's (--parts, parts=; NULL: the scenario's `parts:` key, if any)
 * read over the built-in catalog. */
int weft_scenario_read_parts(const char *path, const char *zoo_dir, const char *parts_file,
                             WeftScenario *sc, WeftError *err);
/* Bind sc's network to the parts catalog (weft_network_bind_parts): the
 * built-in catalog beside the zoo (zoo_dir/../parts, zoo_dir NULL =
 * data/zoo) and parts_file over it (NULL none). Reads nothing when the
 * network names no part and parts_file is NULL. Fills sc->parts and
 * sc->parts_file; sc is unchanged on failure. */
int weft_scenario_bind_parts(WeftScenario *sc, const char *zoo_dir, const char *parts_file,
                             WeftError *err);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_H_INPUTS */
