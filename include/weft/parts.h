/* weft/parts.h — public (part of weft.h): the parts catalog (data/parts/,
 * docs/parts.md) and what a dim costs when it is built of its parts.
 * Include <weft.h>; this header includes what it builds on. */
#ifndef WEFT_H_PARTS
#define WEFT_H_PARTS

#include "weft/inputs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a part is. link: a point-to-point port of the NPU (NVLink, PCIe);
 * nic: a network adapter port; switch: a switch box of `ports` ports;
 * optic: one pluggable transceiver (one per link end); cable: one copper
 * cable (DAC/AEC, one per link); fiber, panel, ocs: TopoOpt's patch cable,
 * patch-panel port and optical-circuit-switch port (no rate). */
typedef enum {
  WEFT_PART_LINK = 0,
  WEFT_PART_NIC,
  WEFT_PART_SWITCH,
  WEFT_PART_OPTIC,
  WEFT_PART_CABLE,
  WEFT_PART_FIBER,
  WEFT_PART_PANEL,
  WEFT_PART_OCS
} WeftPartKind;
#define WEFT_NPART_KINDS 8
const char *weft_part_kind_name(WeftPartKind k); /* "link", ... ("?" if none) */

/* Which of a part's figures are estimates (WeftPart.estimate, a bit set);
 * every other figure is as its source gives it. */
#define WEFT_PART_EST_RATE 1
#define WEFT_PART_EST_PRICE 2
#define WEFT_PART_EST_POWER 4

#define WEFT_MAX_PARTS 256
#define WEFT_PART_TEXT_LEN 256

typedef struct {
  char name[WEFT_NAME_LEN];
  WeftPartKind kind;
  char title[WEFT_PART_TEXT_LEN];
  double rate_gbps;    /* GB/s per direction of one link or port (link, nic, switch,
                          optic, cable; 0 for fiber, panel, ocs) */
  int ports;           /* switch: ports at rate_gbps (its radix) */
  int max_per_npu;     /* link, nic: at most this many per NPU (0 = no limit) */
  double reach_m;      /* optic, cable: reach in metres (0 = not given) */
  double price_usd;    /* one unit (a switch: the whole box), > 0 */
  double power_w;      /* one unit, >= 0 (a passive copper cable draws none) */
  double oversub;      /* link, nic: a Switch dim's leaf oversubscription, >= 1 */
  char switch_part[WEFT_NAME_LEN]; /* link, nic: the switch of a Switch dim ("" none) */
  char attach[WEFT_NAME_LEN];      /* link, nic: optic or cable on each link out of the
                                      NPU ("" = board traces, nothing to buy) */
  char uplink[WEFT_NAME_LEN];      /* link, nic: optic or cable between switch tiers */
  int estimate;                    /* WEFT_PART_EST_* bits */
  char source[WEFT_PART_TEXT_LEN]; /* where the figures come from, or how estimated */
  int user;                        /* 0: the built-in catalog's; 1: the user's file */
  int line;                        /* its line in that file */
} WeftPart;

/* The catalog: the built-in entries, then the user's file over them. */
typedef struct WeftParts WeftParts;

/* Read the catalog: builtin (a file, or a directory holding parts.yml;
 * NULL = data/parts, relative to the working directory), then user (a file
 * or NULL) whose entries replace built-in ones of the same name and add the
 * rest. Every entry is checked (kinds, required figures, rates and prices >
 * 0, power >= 0, references to parts of the right kind); errors name file,
 * line and field. *out is NULL on failure. */
int weft_parts_read(const char *builtin, const char *user, WeftParts **out, WeftError *err);
void weft_parts_free(WeftParts *p); /* NULL is fine */
int weft_parts_count(const WeftParts *p);
const WeftPart *weft_parts_at(const WeftParts *p, int i);  /* in file order; NULL out of range */
const WeftPart *weft_parts_find(const WeftParts *p, const char *name);  /* NULL: none */
const char *weft_parts_file(const WeftParts *p, int user);  /* the file read ("" none) */

/* ------------------------------------------------------------------ a dim of parts
 * A dim of `npus` NPUs and a topology built of endpoint part e (a link or nic:
 * n_d of them per NPU, B_d = n_d x rate) - docs/parts.md, "Deriving a dim":
 * Ring, FullyConnected: each link joins two NPUs; per NPU and link: one
 * endpoint port, and one attach optic per end or half an attach cable.
 * Switch: each of the NPU's links goes up a folded-Clos Fat-tree of e's
 * switch, radix k = ports x (switch rate / e's rate) (a faster switch port
 * is broken out), leaf oversubscription o: t = 1 tier when npus <= k, else
 * the least t with npus <= down x k x (k/2)^(t-2), down = floor(k o/(1+o))
 * leaf ports down and k - down up (o taken as down/(k-down)). Per NPU and link:
 * 1 + 2(t-1)/o switch ports, 2(t-1)/o uplink optics (two per switch-switch
 * link; a cable counts one per link, so (t-1)/o), and the attach (2 optics
 * or 1 cable) on its link to the leaf. Switches are priced per port used
 * (price / k): the cost stays linear in B_d; the whole switches of one
 * dim's Fat-tree are in tier_switches. */
/* (WeftDimParts, the figures, is in weft/inputs.h: a scenario keeps them.) */

/* The Fat-tree alone: tiers of radix k for n endpoints at leaf
 * oversubscription o >= 1 (1 = non-blocking), and the whole switches per
 * tier (tier_switches[0..t-1]): leaves ceil(n / down), down = k o/(1+o)
 * rounded down, each with k - down uplinks; a middle tier ceil(uplinks
 * below / (k/2)) switches of k/2 up and k/2 down; the top ceil(uplinks
 * below / k). Returns t (1..WEFT_MAX_TIERS), or 0 when n needs more tiers
 * or k < 2. */
int weft_fat_tree(int n, int k, double oversub, int tier_switches[WEFT_MAX_TIERS]);
/* A rail-optimized Fat-tree (docs/model.md "Fabric shapes"): `rails` rails
 * of n endpoints, each rail its own leaves (ceil(n / down) a rail; when
 * n < down, floor(down / n) whole rails share a leaf), one tree above them
 * all: t = 1 when rails x n <= k, else the least t >= 2 with leaves =
 * rails x ceil(n / down) (n < down: ceil(rails / floor(down / n))) <=
 * k (k/2)^(t-2); the tiers above the leaves as weft_fat_tree's. Returns t,
 * or 0 as weft_fat_tree. */
int weft_rail_tree(int n, int rails, int k, double oversub, int tier_switches[WEFT_MAX_TIERS]);

/* Dim d's figures from part `name` (errors name file, line and field: the
 * network's, the part's). */
int weft_parts_dim(const WeftParts *cat, const char *name, WeftTopology topo, int npus,
                   WeftDimParts *out, WeftError *err);
/* The same for a dim of fabric shape `fabric` (WeftDimShape) with `rails`
 * rails (weft_network_rails): rail-optimized sizes one weft_rail_tree over
 * the rails; rail-only and fat-tree one Fat-tree per rail; torus (a Ring
 * dim) buys, per NPU and link, e's port, the attach on (c-1)/c of the link
 * ends and, on 1/c (c = WEFT_TORUS_CUBE: the link between cubes), the
 * uplink optic and an OCS port of e's switch (an `ocs` part; its price per
 * port is price / ports, or price when it gives no ports). */
int weft_parts_dim_fabric(const WeftParts *cat, const char *name, WeftTopology topo,
                          WeftDimShape fabric, int npus, int rails, WeftDimParts *out,
                          WeftError *err);
/* The same with each link split over `planes` planes (a Switch dim; 1: one):
 * each plane a tree of radix ports x (switch rate / (rate / planes)), so
 * per link the counts and $ are the formulas above at that radix, and the
 * bill of materials has `planes` trees per link. */
int weft_parts_dim_planes(const WeftParts *cat, const char *name, WeftTopology topo,
                          WeftDimShape fabric, int npus, int rails, int planes,
                          WeftDimParts *out, WeftError *err);

/* Bind a network's parts (WeftNetwork.part, the `Parts:` key) to the
 * catalog: each bound dim takes its part's rate and limit (LinkGBps,
 * MaxLinks; a MaxLinks the file gives wins) and a cost class of its own,
 * "part:NAME@dD", added to cm with the dim's derived Link, Nic and Switch $
 * per GB/s (so weft_cost_per_gbps and everything after it work unchanged),
 * replacing any such class from an earlier bind; dims[d] (NULL: not wanted)
 * gets each bound dim's figures, dims[d].part "" for the others. */
int weft_network_bind_parts(WeftNetwork *net, WeftCostModel *cm, const WeftParts *cat,
                            WeftDimParts dims[WEFT_MAX_DIMS], WeftError *err);
/* Parts per dim given outside a file (--parts-per-dim, Python's
 * parts_per_dim=): n names, one per dim; "" or "-" leaves a dim as the
 * network has it. A dim given a part drops a LinkGBps it had (the part
 * brings its rate); bind afterwards. Errors name field; net is unchanged. */
int weft_network_set_parts(WeftNetwork *net, const char *const *names, int n, const char *field,
                           WeftError *err);
/* A bound dim's bill of materials at B_d = bw_gbps with `links` links per
 * NPU (docs/parts.md): the cluster's totals of each part (endpoints: links
 * or NICs; switch ports, optics, cables), whole switches per tier (a single
 * tier shares its switches among an NPU's links; more tiers are one
 * Fat-tree per link: rail-optimised planes, one set per copy of the dim),
 * their sum, $ (the optimizer's: switches priced per port used) and W. */
typedef struct {
  double links, npus_total, endpoints, switch_ports, optics, cables, switches, cost_usd, power_w;
  int tiers;
  double tier_switches[WEFT_MAX_TIERS];
} WeftPartsBom;
void weft_parts_bom(const WeftNetwork *net, const WeftDimParts *p, int d, double bw_gbps,
                    double links, WeftPartsBom *out);
/* 1 when some dim of net names a part. */
int weft_network_has_parts(const WeftNetwork *net);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_H_PARTS */
