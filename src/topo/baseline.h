/* baseline.h — internal (not public API): the Fat-tree whose cost matches a
 * budget, for "TopoOpt against a Fat-tree of similar cost" (docs/topo.md). */
#ifndef WEFT_TOPO_BASELINE_H
#define WEFT_TOPO_BASELINE_H

#include "weft.h"

/* The Fat-tree of n servers (radix, tiers as weft_fabric_fattree) whose
 * weft_fabric_cost at prices p is the largest that is <= target_usd.
 * Exactly one of *nic_gbps and *oversub is 0 on entry: that one is solved
 * for, the other is kept (nic_gbps > 0, oversub >= 1).
 * - *nic_gbps == 0: the NIC (and so every link) bandwidth at oversubscription
 *   *oversub. The tree's shape does not depend on nic_gbps and its cost is
 *   a x nic_gbps + (cables x fiber_usd), so the answer is exact.
 * - *oversub == 0: the oversubscription >= 1 at NIC *nic_gbps. The shape
 *   (servers and uplinks per leaf) changes at oversub = h/j; between those
 *   points the cost is A + B/oversub; every piece is solved and the best
 *   kept (ties: the smaller oversubscription).
 * Both come back in *nic_gbps and *oversub, the fabric in *out (NULL: not
 * kept). WEFT_EINPUT naming target_usd when no such tree costs that little
 * (or nic_gbps, oversub, radix, tiers when they are bad), WEFT_EINVAL for a
 * bad call, WEFT_ENOMEM. */
int fabric_fattree_at_cost(int n, int radix, int tiers, double target_usd, const WeftPrices *p,
                           double *nic_gbps, double *oversub, WeftFabric **out, WeftError *err);

#endif
