/* parts_dim.c — what a dim costs when it is built of catalog parts: the
 * Fat-tree a Switch dim needs, per-NPU part counts, $ and W per GB/s, and
 * the binding of a network's `Parts:` to its rates, limits and cost classes. */
#include <math.h>
#include <string.h>

#include "weft.h"

#define PART_CLASS_PREFIX "part:" /* cost classes a bind adds (and replaces) */

int weft_fat_tree(int n, int k, double oversub, int ts[WEFT_MAX_TIERS]) {
  if (ts) memset(ts, 0, sizeof(int) * WEFT_MAX_TIERS);
  if (k < 2 || n < 1 || !(oversub >= 1.0)) return 0;
  if (n <= k) {  /* one switch takes every NPU */
    if (ts) ts[0] = 1;
    return 1;
  }
  int down = (int)floor(k * oversub / (1.0 + oversub)), up = k - down, h = k / 2;
  if (down < 1 || up < 1) return 0;
  int t = 2;
  double cap = (double)down * k;  /* endpoints t tiers reach: down x k x h^(t-2) */
  while (n > cap) {
    if (h < 2 || ++t > WEFT_MAX_TIERS) return 0;
    cap *= h;
  }
  if (ts) {
    double below = ceil((double)n / down);  /* leaves */
    ts[0] = (int)below;
    below *= up;  /* their uplinks */
    for (int i = 1; i < t - 1; i++) {  /* middle tiers: h down, h up */
      ts[i] = (int)ceil(below / h);
      below = (double)ts[i] * h;
    }
    ts[t - 1] = (int)ceil(below / k);  /* the top: every port down */
  }
  return t;
}

/* A part another names ("" none: NULL); the catalog checked the names. */
static const WeftPart *named(const WeftParts *cat, const char *name) {
  return name[0] ? weft_parts_find(cat, name) : NULL;
}

int weft_parts_dim(const WeftParts *cat, const char *name, WeftTopology topo, int npus,
                   WeftDimParts *out, WeftError *err) {
  return weft_parts_dim_fabric(cat, name, topo, WEFT_SHAPE_TREE, npus, 1, out, err);
}

/* A torus dim (docs/model.md "Fabric shapes"): per NPU and link, e's port;
 * of its link ends (c-1)/c stay in the cube (the attach: an optic per end or
 * half a cable) and 1/c leave it through the uplink optic (or half a cable)
 * and a port of the OCS, c = WEFT_TORUS_CUBE. */
static int torus_dim(const WeftParts *cat, const WeftPart *e, WeftDimParts *out,
                     WeftError *err) {
  const char *file = weft_parts_file(cat, e->user);
  const WeftPart *at = named(cat, e->attach), *upl = named(cat, e->uplink);
  const WeftPart *ocs = named(cat, e->switch_part);
  if (!ocs || ocs->kind != WEFT_PART_OCS || !upl)
    return weft_error_set(err, WEFT_EINPUT, file, e->line, 0, ocs && upl ? "switch" : "uplink",
                          "part '%s' builds a torus dim: it needs an ocs part as its switch "
                          "and an uplink (the optic between cubes)", e->name);
  double c = WEFT_TORUS_CUBE, in = (c - 1.0) / c, outf = 1.0 / c;
  int at_optic = at && at->kind == WEFT_PART_OPTIC, up_optic = upl->kind == WEFT_PART_OPTIC;
  double at_n = at ? in * (at_optic ? 1.0 : 0.5) : 0.0, up_n = outf * (up_optic ? 1.0 : 0.5);
  double port_usd = ocs->ports > 0 ? ocs->price_usd / ocs->ports : ocs->price_usd;
  double port_w = ocs->ports > 0 ? ocs->power_w / ocs->ports : ocs->power_w;
  out->optics = (at_optic ? at_n : 0.0) + (up_optic ? up_n : 0.0);
  out->cables = (at && !at_optic ? at_n : 0.0) + (!up_optic ? up_n : 0.0);
  out->ocs_ports = outf;
  out->ocs_radix = ocs->ports;
  out->switch_ports = outf;
  double usd = e->price_usd + (at ? at_n * at->price_usd : 0.0) + up_n * upl->price_usd +
               outf * port_usd;
  double w = e->power_w + (at ? at_n * at->power_w : 0.0) + up_n * upl->power_w + outf * port_w;
  snprintf(out->switch_name, sizeof out->switch_name, "%s", ocs->name);
  snprintf(out->uplink_name, sizeof out->uplink_name, "%s", upl->name);
  out->link_usd_per_gbps = usd / e->rate_gbps;
  out->usd_per_gbps = out->link_usd_per_gbps;
  out->w_per_gbps = w / e->rate_gbps;
  return WEFT_OK;
}

int weft_parts_dim_fabric(const WeftParts *cat, const char *name, WeftTopology topo,
                          WeftDimShape fabric, int npus, int rails, WeftDimParts *out,
                          WeftError *err) {
  return weft_parts_dim_planes(cat, name, topo, fabric, npus, rails, 1, out, err);
}

int weft_parts_dim_planes(const WeftParts *cat, const char *name, WeftTopology topo,
                          WeftDimShape fabric, int npus, int rails, int planes,
                          WeftDimParts *out, WeftError *err) {
  const WeftPart *e = weft_parts_find(cat, name);
  if (!e || !out)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "part", "unknown part '%s'",
                          name ? name : "");
  const char *file = weft_parts_file(cat, e->user);
  if (e->kind != WEFT_PART_LINK && e->kind != WEFT_PART_NIC)
    return weft_error_set(err, WEFT_EINPUT, file, e->line, 0, "kind",
                          "part '%s' is a %s: a dim is built of a link or a nic", e->name,
                          weft_part_kind_name(e->kind));
  memset(out, 0, sizeof *out);
  snprintf(out->part, sizeof out->part, "%s", e->name);
  out->rate_gbps = e->rate_gbps;
  out->max_links = e->max_per_npu;
  out->endpoints = 1.0;
  out->planes = 1;
  out->fabric = (int)fabric;
  out->rails = fabric == WEFT_SHAPE_RAIL_OPTIMIZED && rails > 1 ? rails : 1.0;
  if (fabric == WEFT_SHAPE_TORUS && topo == WEFT_RING) {
    if (e->attach[0]) snprintf(out->attach_name, sizeof out->attach_name, "%s", e->attach);
    return torus_dim(cat, e, out, err);
  }
  const WeftPart *at = named(cat, e->attach);
  const WeftPart *sw = named(cat, e->switch_part);
  const WeftPart *upl = named(cat, e->uplink);
  double r = e->rate_gbps, usd_link = 0.0, w_link = 0.0;
  int at_optic = at && at->kind == WEFT_PART_OPTIC;
  if (at) snprintf(out->attach_name, sizeof out->attach_name, "%s", at->name);
  if (topo != WEFT_SWITCH) {  /* a link joins two NPUs: half of it is this NPU's */
    out->optics = at_optic ? 1.0 : 0.0;
    out->cables = at && !at_optic ? 0.5 : 0.0;
    usd_link = e->price_usd + (at ? (at_optic ? 1.0 : 0.5) * at->price_usd : 0.0);
    w_link = e->power_w + (at ? (at_optic ? 1.0 : 0.5) * at->power_w : 0.0);
    out->link_usd_per_gbps = usd_link / r;
    out->usd_per_gbps = out->link_usd_per_gbps;
    out->w_per_gbps = w_link / r;
    return WEFT_OK;
  }
  if (!sw)
    return weft_error_set(err, WEFT_EINPUT, file, e->line, 0, "switch",
                          "part '%s' names no switch, needed by a Switch dim", e->name);
  if (sw->kind != WEFT_PART_SWITCH)
    return weft_error_set(err, WEFT_EINPUT, file, e->line, 0, "switch",
                          "part '%s' names %s '%s' as its switch: a Switch dim needs a packet "
                          "switch (an ocs builds a torus dim)", e->name,
                          weft_part_kind_name(sw->kind), sw->name);
  int p = planes > 1 ? planes : 1;  /* a plane's port carries r / p */
  double m = sw->rate_gbps * p / r;  /* plane ports of e per switch port (a breakout) */
  if (m < 1.0 || fabs(m - floor(m + 0.5)) > 1e-9 || sw->ports * floor(m + 0.5) > 1e6)
    return weft_error_set(err, WEFT_EINPUT, weft_parts_file(cat, sw->user), sw->line, 0,
                          "rate_gbps",
                          "switch '%s' ports (%g GB/s) do not break out into whole links of "
                          "part '%s' (%g GB/s%s)", sw->name, sw->rate_gbps, e->name, r / p,
                          p > 1 ? " a plane" : "");
  out->planes = p;
  int k = sw->ports * (int)floor(m + 0.5);
  int nr = (int)out->rails;  /* rail-optimized: one tree over the rails */
  int t = nr > 1 ? weft_rail_tree(npus, nr, k, e->oversub, out->tier_switches)
                : weft_fat_tree(npus, k, e->oversub, out->tier_switches);
  if (t == 0)
    return weft_error_set(err, WEFT_EINPUT, file, e->line, 0, "switch",
                          "a Fat-tree of switch '%s' (radix %d) cannot join %d NPUs%s in %d "
                          "tiers", sw->name, k, npus, nr > 1 ? " a rail over its rails" : "",
                          WEFT_MAX_TIERS);
  int down = (int)floor(k * e->oversub / (1.0 + e->oversub));
  double o = t > 1 ? (double)down / (k - down) : 1.0;  /* the leaf's ratio as built */
  if (t > 1 && !upl)
    return weft_error_set(err, WEFT_EINPUT, file, e->line, 0, "uplink",
                          "part '%s' names no uplink (optic or cable between switches), "
                          "needed by a Switch dim of %d NPUs (%d tiers of radix %d)",
                          e->name, npus, t, k);
  snprintf(out->switch_name, sizeof out->switch_name, "%s", sw->name);
  if (upl) snprintf(out->uplink_name, sizeof out->uplink_name, "%s", upl->name);
  out->tiers = t;
  out->radix = k;
  out->oversub = o;
  double up_links = (t - 1) / o;  /* switch-switch links per NPU link */
  int up_optic = upl && upl->kind == WEFT_PART_OPTIC;
  out->switch_ports = p * (1.0 + 2.0 * up_links); /* in ports of a plane (r / p each) */
  out->optics = (at_optic ? 2.0 : 0.0) + (up_optic ? 2.0 * up_links : 0.0);
  out->cables = (at && !at_optic ? 1.0 : 0.0) + (upl && !up_optic ? up_links : 0.0);
  double at_n = at ? (at_optic ? 2.0 : 1.0) : 0.0, up_n = up_optic ? 2.0 * up_links : up_links;
  usd_link = (at ? at_n * at->price_usd : 0.0) + (upl ? up_n * upl->price_usd : 0.0);
  w_link = (at ? at_n * at->power_w : 0.0) + (upl ? up_n * upl->power_w : 0.0);
  out->nic_usd_per_gbps = e->price_usd / r;
  out->switch_usd_per_gbps = out->switch_ports * sw->price_usd / k / r;
  out->link_usd_per_gbps = usd_link / r;
  out->usd_per_gbps = out->nic_usd_per_gbps + out->switch_usd_per_gbps + out->link_usd_per_gbps;
  out->w_per_gbps = (e->power_w + out->switch_ports * sw->power_w / k + w_link) / r;
  return WEFT_OK;
}

void weft_parts_bom(const WeftNetwork *net, const WeftDimParts *p, int d, double bw_gbps,
                    double links, WeftPartsBom *out) {
  WeftPartsBom b;
  memset(&b, 0, sizeof b);
  double nd = net->npus[d] + net->spares[d];  /* the dim's NPUs bought: spares have parts */
  b.npus_total = weft_network_npus_bought(net);
  double inst = b.npus_total / nd;            /* copies of the dim */
  double whole = ceil(links - 1e-9);          /* a switch for part of a link is a switch */
  b.links = links;
  b.endpoints = b.npus_total * links * p->endpoints;
  b.switch_ports = b.npus_total * links * p->switch_ports;
  b.optics = b.npus_total * links * p->optics;
  b.cables = b.npus_total * links * p->cables;
  b.tiers = p->tiers;
  double rails = p->rails > 1.0 ? p->rails : 1.0;  /* rail-optimized: a tree joins them */
  double trees = inst / rails;
  double planes = p->planes > 1 ? p->planes : 1.0;  /* a tree per plane of a link */
  if (p->tiers == 1) b.tier_switches[0] = trees * ceil(rails * nd * whole * planes / p->radix);
  for (int t = 0; p->tiers > 1 && t < p->tiers; t++)
    b.tier_switches[t] = trees * whole * planes * p->tier_switches[t];
  if (p->fabric == WEFT_SHAPE_TORUS && p->ocs_radix > 0) {  /* the OCS boxes, one tier */
    b.tiers = 1;
    b.tier_switches[0] = ceil(b.switch_ports / p->ocs_radix - 1e-9);
  }
  for (int t = 0; t < b.tiers; t++) b.switches += b.tier_switches[t];
  b.cost_usd = p->usd_per_gbps * bw_gbps * b.npus_total;
  b.power_w = p->w_per_gbps * bw_gbps * b.npus_total;
  *out = b;
}

int weft_network_has_parts(const WeftNetwork *net) {
  for (int d = 0; net && d < net->ndims; d++)
    if (net->part[d][0]) return 1;
  return 0;
}

int weft_network_bind_parts(WeftNetwork *net, WeftCostModel *cm, const WeftParts *cat,
                            WeftDimParts dims[WEFT_MAX_DIMS], WeftError *err) {
  if (!net || !cm || !cat)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no network, cost model or catalog");
  WeftNetwork t = *net;  /* both are left as they were on failure */
  WeftCostModel c = *cm;
  const size_t plen = strlen(PART_CLASS_PREFIX);
  c.nclasses = 0;  /* an earlier bind's classes go */
  for (int i = 0; i < cm->nclasses; i++)
    if (strncmp(cm->cls[i].name, PART_CLASS_PREFIX, plen) != 0) c.cls[c.nclasses++] = cm->cls[i];
  for (int d = 0; d < t.ndims; d++) {
    WeftDimParts dp;
    if (dims) memset(&dims[d], 0, sizeof dims[d]);
    if (!t.part[d][0]) continue;
    char first[WEFT_NAME_LEN] = "";  /* a choice ("a|b") binds its first; each is checked */
    for (const char *p = t.part[d]; p; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL) {
      char one[WEFT_NAME_LEN];
      snprintf(one, sizeof one, "%.*s", (int)strcspn(p, "|"), p);
      if (!first[0]) snprintf(first, sizeof first, "%s", one);
      if (!weft_parts_find(cat, one))
        return weft_error_set(err, WEFT_EINPUT, t.file, t.part_line[d], 0, "Parts",
                              "Parts entry %d: part '%s' is not in the parts catalog%s%s", d + 1,
                              one, weft_parts_file(cat, 1)[0] ? " nor in " : "",
                              weft_parts_file(cat, 1));
    }
    /* the switches a dim needs are sized by the NPUs bought (spares are wired too) */
    int rc = weft_parts_dim_planes(cat, first, t.topology[d], (WeftDimShape)t.fabric[d],
                                   t.npus[d] + t.spares[d], (int)weft_network_rails(&t, d),
                                   t.planes[d], &dp, err);
    if (rc) return rc;
    t.link_gbps[d] = dp.rate_gbps;
    t.links_line[d] = t.part_line[d];
    int m = t.max_links[d];  /* a limit given with the part: the tighter one holds */
    if (dp.max_links > 0 && (m == 0 || m > dp.max_links)) {
      t.max_links[d] = dp.max_links;
      t.max_links_line[d] = t.part_line[d];
    }
    if (c.nclasses == WEFT_MAX_COST_CLASSES)
      return weft_error_set(err, WEFT_EINPUT, t.file, t.part_line[d], 0, "Parts",
                            "no room for dim %d's cost class: more than %d cost classes", d + 1,
                            WEFT_MAX_COST_CLASSES);
    WeftCostClass *k = &c.cls[c.nclasses++];
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s%.40s@d%d", PART_CLASS_PREFIX, first, d + 1);
    k->link_usd_per_gbps = dp.link_usd_per_gbps;
    k->nic_usd_per_gbps = dp.nic_usd_per_gbps;
    k->switch_usd_per_gbps = dp.switch_usd_per_gbps;
    k->power_w_per_gbps = dp.w_per_gbps;  /* so cost-per-iteration pays the parts' power */
    k->has_link = k->has_nic = k->has_switch = k->has_power = 1;
    k->line = weft_parts_find(cat, first)->line;
    snprintf(t.cost_dim[d], sizeof t.cost_dim[d], "%s", k->name);
    if (dims) dims[d] = dp;
  }
  int rc = weft_network_links_check(&t, t.file, "Parts", "MaxLinks", err);
  if (rc) return rc;
  *net = t;
  *cm = c;
  return WEFT_OK;
}

int weft_network_set_parts(WeftNetwork *net, const char *const *names, int n, const char *field,
                           WeftError *err) {
  if (!net || !names) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, field, "no network");
  if (n != net->ndims)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, field, "%s has %d entr%s, the network has "
                          "%d dim%s", field, n, n == 1 ? "y" : "ies", net->ndims,
                          net->ndims == 1 ? "" : "s");
  WeftNetwork t = *net;
  for (int d = 0; d < n; d++) {
    const char *s = names[d] ? names[d] : "";
    if (!s[0] || !strcmp(s, "-")) continue;  /* the dim as the network has it */
    if (strlen(s) >= sizeof t.part[d])
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, field,
                            "%s entry %d is longer than %d characters", field, d + 1,
                            WEFT_NAME_LEN - 1);
    snprintf(t.part[d], sizeof t.part[d], "%s", s);
    t.part_line[d] = 0;
    t.link_gbps[d] = 0.0;  /* the part brings its rate */
    t.links_line[d] = 0;
  }
  *net = t;
  return WEFT_OK;
}
