/* topo_flow.h — internal to topo/: a fluid max-min simulation of flow
 * groups, each a set of identical transfers that move together (one ring of
 * an AllReduce: every member's hop; one demand: its paths), one event per
 * group instead of one per flow. */
#ifndef WEFT_TOPO_FLOW_H
#define WEFT_TOPO_FLOW_H

#include <stddef.h>

typedef struct TopoFlow TopoFlow;

/* A simulation over nlinks links of capacity cap_gbps[l] (bytes/ns, > 0;
 * copied). NULL when out of memory. */
TopoFlow *topo_flow_create(int nlinks, const double *cap_gbps);
void topo_flow_free(TopoFlow *tf);  /* NULL is fine */

/* Open a group of transfers of bytes each (> 0); tag is reported when it
 * ends. Then topo_flow_use adds weight w (> 0) on link l: the group's load
 * on l is w x its rate (the rate of one transfer); weights on the same link
 * add up. WEFT_ENOMEM, WEFT_EINVAL (a link out of range, no group open). */
int topo_flow_group(TopoFlow *tf, double bytes, unsigned tag);
int topo_flow_use(TopoFlow *tf, int link, double w);

/* Run to the end: rates max-min fair over the groups (every transfer of a
 * group at the group's rate; the weights count its transfers on each link),
 * recomputed whenever groups end. *end_ns[tag] (tags 0..ntags-1) = when the
 * last group of that tag ended (0 when none). WEFT_ENOMEM. */
int topo_flow_run(TopoFlow *tf, double *end_ns, int ntags);

/* Bytes link l carried (after topo_flow_run). */
double topo_flow_link_bytes(const TopoFlow *tf, int l);

#endif
