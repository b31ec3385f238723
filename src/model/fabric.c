/* fabric.c — the fabric shapes of a dim (rail-optimized, rail-only, torus;
 * docs/model.md "Fabric shapes"): names, the rule on which dim takes which,
 * and the rail-optimized Fat-tree's switches. */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "weft.h"
#include "model/dims_list.h"

static const char *const FABRIC_NAMES[WEFT_NSHAPES] = {"fat-tree", "rail-optimized",
                                                        "rail-only", "torus"};

const char *weft_dim_shape_name(WeftDimShape f) {
  return (int)f >= 0 && (int)f < WEFT_NSHAPES ? FABRIC_NAMES[f] : "?";
}

double weft_network_rails(const WeftNetwork *net, int d) {
  double r = 1.0;
  for (int e = 0; e < d && e < net->ndims; e++) r *= net->npus[e] + net->spares[e];
  return r;
}

int weft_network_set_fabric(WeftNetwork *net, const char *const *names, int n, const char *file,
                            const int *lines, const char *field, WeftError *err) {
  if (!net || !names)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, field, "no network or fabric list");
  if (!file) file = "";
  int rc = weft_dims_list_check(net, n, file, lines, field, err);
  if (rc) return rc;
  WeftNetwork t = *net;  /* net is left as it was on failure */
  for (int d = 0; d < n; d++) {
    const char *s = names[d] ? names[d] : "";
    int line = lines ? lines[d] : 0, f = -1;
    if (!s[0] || !strcmp(s, "-")) continue;  /* the dim as the network has it */
    for (int k = 0; f < 0 && k < WEFT_NSHAPES; k++)
      if (!strcasecmp(s, FABRIC_NAMES[k])) f = k;
    if (f < 0)
      return weft_error_set(err, WEFT_EINPUT, file, line, 0, field,
                            "%s entry %d is '%.40s': expected fat-tree, rail-optimized, "
                            "rail-only, torus or '-'", field, d + 1, s);
    int all = net->npus[d] + net->spares[d];
    if ((f == WEFT_SHAPE_RAIL_OPTIMIZED || f == WEFT_SHAPE_RAIL_ONLY) &&
        (net->topology[d] != WEFT_SWITCH || d == 0))
      return weft_error_set(err, WEFT_EINPUT, file, line, 0, field,
                            "%s entry %d is %s: rails are a Switch dim's copies, one per NPU "
                            "of the dims inside it, so it needs a Switch dim above dim 1; "
                            "dim %d %s", field, d + 1, FABRIC_NAMES[f], d + 1,
                            d == 0 ? "has no dim inside it" : "is a Ring or FullyConnected");
    if (f == WEFT_SHAPE_TORUS && (net->topology[d] != WEFT_RING || all % WEFT_TORUS_CUBE))
      return weft_error_set(err, WEFT_EINPUT, file, line, 0, field,
                            "%s entry %d is torus: a torus dim is a Ring of %d-wide cubes, "
                            "dim %d is a %s of %d NPUs", field, d + 1, WEFT_TORUS_CUBE, d + 1,
                            weft_topology_name(net->topology[d]), all);
    t.fabric[d] = f;
    t.fabric_line[d] = line;
  }
  *net = t;
  return WEFT_OK;
}

int weft_network_set_planes(WeftNetwork *net, const double *planes, int n, const char *file,
                            const int *lines, const char *field, WeftError *err) {
  if (!net || !planes)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, field, "no network or planes list");
  if (!file) file = "";
  int rc = weft_dims_list_check(net, n, file, lines, field, err);
  if (rc) return rc;
  WeftNetwork t = *net;  /* net is left as it was on failure */
  for (int d = 0; d < n; d++) {
    double p = planes[d];
    int line = lines ? lines[d] : 0;
    if (p == 0.0) continue;  /* the dim as it is */
    if (!(p >= 1.0) || p != floor(p) || p > WEFT_MAX_PLANES)
      return weft_error_set(err, WEFT_EINPUT, file, line, 0, field,
                            "%s entry %d must be a whole number of planes from 1 to %d (0: as "
                            "the dim is), got %g", field, d + 1, WEFT_MAX_PLANES, p);
    if (p > 1.0 && net->topology[d] != WEFT_SWITCH)
      return weft_error_set(err, WEFT_EINPUT, file, line, 0, field,
                            "%s entry %d is %g planes: planes are Fat-trees of a Switch dim, "
                            "dim %d is a %s", field, d + 1, p, d + 1,
                            weft_topology_name(net->topology[d]));
    t.planes[d] = (int)p;
    t.planes_line[d] = line;
  }
  *net = t;
  return WEFT_OK;
}

int weft_rail_tree(int n, int rails, int k, double oversub, int ts[WEFT_MAX_TIERS]) {
  if (ts) memset(ts, 0, sizeof(int) * WEFT_MAX_TIERS);
  if (k < 2 || n < 1 || rails < 1 || !(oversub >= 1.0)) return 0;
  if ((double)n * rails <= k) {  /* one switch takes every rail */
    if (ts) ts[0] = 1;
    return 1;
  }
  int down = (int)floor(k * oversub / (1.0 + oversub)), up = k - down, h = k / 2;
  if (down < 1 || up < 1) return 0;
  /* Each rail its own leaves; a rail that fills less than a leaf shares
   * one with whole other rails (every rail still one hop across): 72 rails
   * of 16 GB200 racks on 32-down leaves are 36 leaves, not 72 half empty. */
  double leaves = n < down ? ceil((double)rails / (down / n))
                           : (double)rails * ceil((double)n / down);
  int t = 2;
  double cap = k;  /* leaves t tiers reach: k x h^(t-2) */
  while (leaves > cap) {
    if (h < 2 || ++t > WEFT_MAX_TIERS) return 0;
    cap *= h;
  }
  if (ts) {
    ts[0] = (int)leaves;
    double below = leaves * up;
    for (int i = 1; i < t - 1; i++) {
      ts[i] = (int)ceil(below / h);
      below = (double)ts[i] * h;
    }
    ts[t - 1] = (int)ceil(below / k);
  }
  return t;
}
