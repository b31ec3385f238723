/* fabric.h — what every fabric (TopoOpt, switch, Fat-tree, expander) holds,
 * so one flow simulation and one price list serve them all. */
#ifndef WEFT_TOPO_FABRIC_H
#define WEFT_TOPO_FABRIC_H

#include "weft.h"

/* Bill of materials, priced by weft_fabric_cost (docs/topo.md). */
typedef struct {
  double nic_gbps;          /* server NIC ports, total Gbps */
  double transceiver_gbps;  /* optical transceivers, total Gbps (one per link end) */
  double switch_port_gbps;  /* packet switch ports, total Gbps */
  double panel_ports;       /* patch-panel (or OCS) ports */
  double fibers;            /* cables */
} FabricBom;

struct WeftFabric {
  WeftFabricKind kind;
  int nservers;
  WeftGraph *g;             /* owned; servers are nodes 0..nservers-1 */
  FabricBom bom;
  /* Routes src -> dst as weft_fabric_paths documents; NULL: fabric_paths_ecmp. */
  int (*paths)(const WeftFabric *f, int src, int dst, int *links, int max_links, int *len,
               int max_paths);
  /* The rings an AllReduce runs on: succ[r * ar->size + i] = the position in
   * ar->members of member i's successor on ring r; returns the ring count
   * (<= max_rings). NULL: one ring in member order. */
  int (*rings)(const WeftFabric *f, const WeftAllReduce *ar, int *succ, int max_rings);
  int kpaths;               /* paths model-parallel flows are split over */
  int nstrides;             /* TopoOpt: AllReduce ring strides */
  int strides[WEFT_TOPO_MAX_DEGREE];
  int nmp;                  /* TopoOpt: model-parallel links (pairs in mp) */
  int *mp;
  void *impl;               /* the builder's own state, freed with impl_free */
  void (*impl_free)(void *impl);
  int *dist;                /* hop counts to each server (fabric_index) */
  int dist_ready;
  /* The router's adjacency (fabric_index): node v's out-links are
   * hop_link[hop_off[v] .. hop_off[v+1]) in the graph's order, their heads
   * hop_to[] beside them; hop_by_to[] holds each node's positions 0..k-1
   * sorted by (head, position), so the last hop to dst is a binary search
   * instead of a scan of a switch's every port. */
  int *hop_off, *hop_link, *hop_to, *hop_by_to;
};

/* A fabric shell of kind with graph g (taken over). NULL when out of memory. */
WeftFabric *fabric_new(WeftFabricKind kind, int nservers, WeftGraph *g);

/* Index the finished graph: hop counts from every node to every server.
 * Every builder calls it last (routes and fabric_hops need it). */
int fabric_index(WeftFabric *f);

/* Up to max_paths shortest paths (fewest hops) src -> dst: depth first,
 * each node trying its next hops from a point hashed from (src, dst, node),
 * as ECMP does per flow (deterministic), as weft_fabric_paths. Needs
 * nothing from the builder but the graph. */
int fabric_paths_ecmp(const WeftFabric *f, int src, int dst, int *links, int max_links,
                      int *len, int max_paths);

/* Hop count src -> dst (-1 unreachable or not indexed). */
int fabric_hops(const WeftFabric *f, int src, int dst);

/* A memo of one fabric's routes (weft_fabric_paths with max_links and
 * max_paths fixed), each pair routed once on first use: a strategy search
 * routes the same pairs on the same fabric at every move. One owner (not
 * for threads); the fabric must outlive it. NULL when out of memory or the
 * fabric is too large for its n^2 index (FABRIC_ROUTES_MAX_SERVERS):
 * route directly then. */
#define FABRIC_ROUTES_MAX_SERVERS 2048 /* a 32 MB index */
typedef struct FabricRoutes FabricRoutes;
FabricRoutes *fabric_routes_create(const WeftFabric *f, int max_links, int max_paths);
void fabric_routes_free(FabricRoutes *r); /* NULL is fine */
/* The paths src -> dst as weft_fabric_paths gives them: returns their count
 * (or its error) and points *links, *len into the memo (valid until the
 * next call). */
int fabric_routes_get(FabricRoutes *r, int src, int dst, const int **links, const int **len);

/* The memo fabric_estimate_memo reads: topo_sim's path limits (NULL: none). */
FabricRoutes *fabric_routes_for(const WeftFabric *f);
/* weft_fabric_estimate with its routes from (and into) the memo r made by
 * fabric_routes_for(f); r NULL: routed directly. The same figures either
 * way. */
int fabric_estimate_memo(const WeftFabric *f, const WeftTraffic *t, FabricRoutes *r,
                         WeftTopoTime *out, WeftError *err);

#endif
