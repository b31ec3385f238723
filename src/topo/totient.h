/* totient.h — TotientPerms ring strides and coin-change routing over them
 * (internal to topo/): the circulant graph of one AllReduce group. */
#ifndef WEFT_TOPO_TOTIENT_H
#define WEFT_TOPO_TOTIENT_H

#include "weft.h"

/* Shortest hop sequences over the strides of one group class: members of a
 * class are i, i + q, i + 2q, ... (q = n / g). The circulant is vertex-
 * transitive, so one BFS from offset 0 serves every pair. */
typedef struct {
  int n, g, q;                          /* servers, group size, member spacing n / g */
  int nstrides;
  int stride[WEFT_TOPO_MAX_DEGREE];     /* in servers, ascending */
  int *dist;                            /* [g]: hops from offset 0 to offset r*q */
  int *last;                            /* [g]: last hop of a shortest route 0 -> r:
                                           +(s+1) for +stride[s], -(s+1) for -stride[s] */
} TotientRoute;

/* Build the table for strides[nstrides] (multiples of n / g). WEFT_EINVAL,
 * WEFT_ENOMEM. */
int totient_route_init(TotientRoute *tr, int n, int g, const int *strides, int nstrides);
void totient_route_free(TotientRoute *tr);  /* zeroed struct is fine */
/* Fewest-hop route a -> b: hops[h] = +(s+1) or -(s+1) (a step of +/- stride[s]).
 * Returns the hop count (0 when a == b), -1 when b is not in a's class or
 * the route does not fit in max. */
int totient_route(const TotientRoute *tr, int a, int b, int *hops, int max);

/* Diameter of the circulant graph C_g(k[0..m)) (offsets +-k mod g), by one
 * BFS from 0; *sum_dist = sum of the distances from 0 (may be NULL). -1 when
 * the graph is not connected. dist and queue have g entries each. */
int totient_circulant(int g, const int *k, int m, int *dist, int *queue, long long *sum_dist);

#endif
