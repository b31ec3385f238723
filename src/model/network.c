/* network.c — multi-dimensional network shape and LIBRA's cost model.
 * Cost is linear in the per-NPU bandwidth B_d of each dim. */
#include <math.h>
#include <string.h>

#include "weft.h"
#include "model/dims_list.h"

const char *weft_topology_name(WeftTopology t) {
  switch (t) {
    case WEFT_RING: return "Ring";
    case WEFT_FULLY_CONNECTED: return "FullyConnected";
    case WEFT_SWITCH: return "Switch";
  }
  return "?";
}

double weft_network_npus_total(const WeftNetwork *net) {
  double n = 1.0;
  for (int d = 0; d < net->ndims; d++) n *= net->npus[d];
  return n;
}

double weft_network_npus_bought(const WeftNetwork *net) {
  double n = 1.0;
  for (int d = 0; d < net->ndims; d++) n *= net->npus[d] + net->spares[d];
  return n;
}

int weft_dims_list_check(const WeftNetwork *net, int n, const char *file, const int *lines,
                         const char *field, WeftError *err) {
  if (n == net->ndims) return WEFT_OK;
  return weft_error_set(err, WEFT_EINPUT, file ? file : "", lines && n > 0 ? lines[0] : 0, 0,
                        field, "%s has %d entr%s, the network has %d dim%s", field, n,
                        n == 1 ? "y" : "ies", net->ndims, net->ndims == 1 ? "" : "s");
}

int weft_network_set_active(WeftNetwork *net, const double *active, int n, const char *file,
                            const int *lines, const char *field, WeftError *err) {
  if (!net || !active)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, field, "no network or active list");
  int rc = weft_dims_list_check(net, n, file, lines, field, err);
  if (rc) return rc;
  WeftNetwork t = *net;  /* net is left as it was on failure */
  for (int d = 0; d < n; d++) {
    int all = net->npus[d] + net->spares[d];
    double a = active[d];
    if (!(a >= 0.0) || a != floor(a) || a == 1.0 || a > all)
      return weft_error_set(err, WEFT_EINPUT, file, lines ? lines[d] : 0, 0, field,
                            "%s entry %d must be a whole number of NPUs from 2 to the dim's %d "
                            "(0: all of them), got %g",
                            field, d + 1, all, a);
    t.npus[d] = a == 0.0 ? all : (int)a;
    t.spares[d] = all - t.npus[d];
  }
  *net = t;
  return WEFT_OK;
}

static const WeftCostClass *find_class(const WeftCostModel *cm, const char *name) {
  for (int i = 0; i < cm->nclasses; i++)
    if (strcmp(cm->cls[i].name, name) == 0) return &cm->cls[i];
  return NULL;
}

/* LIBRA counts building blocks and links per block; both collapse to N per
 * GB/s of B_d: Ring (N/n blocks)*(2n links)*(B/2), FullyConnected
 * (N/n)*(n(n-1))*(B/(n-1)), Switch (prod of outer dims)*(prod of inner dims)*B. */
int weft_cost_per_gbps(const WeftNetwork *net, const WeftCostModel *cm,
                       double *usd_per_gbps, WeftError *err) {
  double n = weft_network_npus_bought(net);  /* spares are bought: they count */
  for (int d = 0; d < net->ndims; d++) {
    if (net->part[d][0] && strncmp(net->cost_dim[d], "part:", 5) != 0) /* never bound */
      return weft_error_set(err, WEFT_EINPUT, net->file, net->part_line[d], 0, "Parts",
                            "dim %d is built of part '%s', but its parts are not bound to the "
                            "catalog here (optimize, simulate and validate bind them; "
                            "docs/parts.md)", d + 1, net->part[d]);
    const WeftCostClass *c = find_class(cm, net->cost_dim[d]);
    if (!net->cost_dim[d][0]) { /* no CostDimension (an ASTRA-sim file): classes in order */
      if (cm->nclasses != net->ndims)
        return weft_error_set(err, WEFT_EINPUT, net->file, 0, 0, "CostDimension",
                              "the network names no CostDimension, so the cost model's classes "
                              "are taken in order, one per dim: it has %d for %d dims%s%s",
                              cm->nclasses, net->ndims, cm->file[0] ? ": " : "", cm->file);
      c = &cm->cls[d];
    }
    if (!c)
      return weft_error_set(err, WEFT_EINPUT, net->file, net->line[d], 0, "CostDimension",
                            "cost dimension '%s' of dim %d is not in the cost model%s%s",
                            net->cost_dim[d], d + 1, cm->file[0] ? " " : "", cm->file);
    if (!c->has_link)
      return weft_error_set(err, WEFT_EINPUT, cm->file, c->line, 0, "Link",
                            "cost dimension '%s' has no 'Link' cost (dim %d)", c->name, d + 1);
    double per = c->link_usd_per_gbps;
    if (net->topology[d] == WEFT_SWITCH) {
      if (!c->has_nic)
        return weft_error_set(err, WEFT_EINPUT, cm->file, c->line, 0, "Nic",
                              "cost dimension '%s' has no 'Nic' cost, needed by Switch dim %d",
                              c->name, d + 1);
      if (!c->has_switch)
        return weft_error_set(err, WEFT_EINPUT, cm->file, c->line, 0, "Switch",
                              "cost dimension '%s' has no 'Switch' cost, needed by Switch dim %d",
                              c->name, d + 1);
      per += c->nic_usd_per_gbps + c->switch_usd_per_gbps;
    }
    usd_per_gbps[d] = n * per;
  }
  return WEFT_OK;
}

int weft_power_per_gbps(const WeftNetwork *net, const WeftCostModel *cm, double *w_per_gbps,
                        WeftError *err) {
  double usd[WEFT_MAX_DIMS], n = weft_network_npus_total(net);
  int rc = weft_cost_per_gbps(net, cm, usd, err); /* the same class lookup and its errors */
  if (rc) return rc;
  for (int d = 0; d < net->ndims; d++) {
    const WeftCostClass *c = net->cost_dim[d][0] ? find_class(cm, net->cost_dim[d]) : &cm->cls[d];
    w_per_gbps[d] = c->has_power ? n * c->power_w_per_gbps : 0.0; /* every NPU's share */
  }
  return WEFT_OK;
}
