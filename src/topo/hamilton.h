/* hamilton.h — internal (not public API): the expander baseline's graph as
 * the union of edge-disjoint random Hamiltonian cycles (docs/topo.md,
 * "Expander"), and the AllReduce rings that run along them. */
#ifndef WEFT_TOPO_HAMILTON_H
#define WEFT_TOPO_HAMILTON_H

#include <stdint.h>

#include "weft.h"

/* A simple d-regular graph on n servers (3 <= n, 2 <= d < n, n d even):
 * d/2 edge-disjoint Hamiltonian cycles, each a uniformly random order of
 * the servers whose edges that repeat an earlier cycle's are removed by
 * random 2-opt moves, then for odd d a random perfect matching repaired the
 * same way. adj[v*d .. v*d+d) gets v's neighbours; cyc[c*n + i] the server
 * at position i of cycle c (d/2 cycles). From seed alone. Returns WEFT_OK,
 * WEFT_ENOMEM, or 1 when no such graph was found within its tries (dense
 * graphs, d close to n: the caller falls back). */
int topo_hamilton_regular(int n, int d, uint64_t seed, int *adj, int *cyc);

/* The rings of an AllReduce on ncycles cycles over n servers (pos[c*n + v]:
 * v's position on cycle c): for each cycle two rings, its members in the
 * cycle's order forward and back (succ as WeftFabric.rings). Returns the
 * ring count, 2 ncycles capped at max_rings (even), or WEFT_ENOMEM. */
int topo_cycle_rings(const int *pos, int ncycles, int n, const WeftAllReduce *ar, int *succ,
                     int max_rings);

#endif
