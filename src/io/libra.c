/* libra.c — readers for LIBRA's YAML inputs, read as LIBRA writes them:
 * network (Topology, NpusCount, CostDimension), cost model, communicator
 * (plus weft's optional Groups: of named groups). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "io/libra.h"
#include "sim/astra.h"
#include "io/names.h"
#include "io/util.h"
#include "io/zoo_dir.h"

/* The mapping itself, or an error saying what was expected instead. */
static int expect_root(const WeftYamlNode *map, const char *file, const char *what,
                       WeftError *err) {
  if (!map) return weft_error_set(err, WEFT_EINPUT, file, 0, 0, NULL, "empty: expected %s", what);
  if (map->kind == WEFT_YAML_MAPPING) return WEFT_OK;
  char got[96];
  weft_yaml_describe_root(map, got, sizeof got);
  return weft_error_set(err, WEFT_EINPUT, file, map->line, map->col, NULL,
                        "expected a mapping of %s, got %s", what, got);
}

/* Value of a required key ("Name|alt"); *field gets the key as written. */
static int require(const WeftYamlNode *map, const char *names, const char *file,
                   const WeftYamlNode **val, char *field, WeftError *err) {
  const WeftYamlNode *key;
  *val = weft_yaml_get(map, names, &key);
  size_t n = strcspn(names, "|");
  if (!*val) {
    snprintf(field, WEFT_NAME_LEN, "%.*s", (int)n, names);
    return weft_error_set(err, WEFT_EINPUT, file, map->line, map->col, field,
                          "missing key '%s'", field);
  }
  snprintf(field, WEFT_NAME_LEN, "%s", key->text);
  return WEFT_OK;
}

/* A non-empty name that fits WEFT_NAME_LEN. */
static int copy_name(const WeftYamlNode *node, const char *file, const char *field,
                     const char *label, char *out, WeftError *err) {
  char got[96];
  weft_yaml_describe(node, got, sizeof got);
  if (node->kind != WEFT_YAML_SCALAR || node->len == 0)
    return weft_error_set(err, WEFT_EINPUT, file, node->line, node->col, field,
                          "%s must be a name, got %s", label, got);
  if (node->len >= WEFT_NAME_LEN)
    return weft_error_set(err, WEFT_EINPUT, file, node->line, node->col, field,
                          "%s is longer than %d characters: %s", label, WEFT_NAME_LEN - 1, got);
  memcpy(out, node->text, node->len + 1);
  return WEFT_OK;
}

static int parse_topology(const WeftYamlNode *node, const char *file, const char *field, int d,
                          WeftTopology *out, WeftError *err) {
  static const struct {
    const char *name;
    WeftTopology t;
  } tab[] = {{"Ring", WEFT_RING}, {"FullyConnected", WEFT_FULLY_CONNECTED}, {"Switch", WEFT_SWITCH}};
  if (node->kind == WEFT_YAML_SCALAR)
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
      if (strcasecmp(node->text, tab[i].name) == 0) {
        *out = tab[i].t;
        return WEFT_OK;
      }
  char got[96];
  weft_yaml_describe(node, got, sizeof got);
  return weft_error_set(err, WEFT_EINPUT, file, node->line, node->col, field,
                        "%s entry %d: unknown topology %s (expected Ring, FullyConnected or "
                        "Switch)",
                        field, d + 1, got);
}

/* Sequence of 1..WEFT_MAX_DIMS entries, as long as the first list (n0 > 0). */
static int dims_seq(const WeftYamlNode *seq, const char *file, const char *field,
                    const char *first, int n0, WeftError *err) {
  int rc = weft_yaml_expect(seq, WEFT_YAML_SEQUENCE, file, field, err);
  if (rc) return rc;
  if (n0 == 0 && (seq->n < 1 || seq->n > WEFT_MAX_DIMS))
    return weft_error_set(err, WEFT_EINPUT, file, seq->line, seq->col, field,
                          "%s must have 1 to %d entries, got %d", field, WEFT_MAX_DIMS, seq->n);
  if (n0 > 0 && seq->n != n0)
    return weft_error_set(err, WEFT_EINPUT, file, seq->line, seq->col, field,
                          "%s has %d entr%s, %s has %d", field, seq->n, seq->n == 1 ? "y" : "ies",
                          first, n0);
  return WEFT_OK;
}

/* An optional per-dim list (weft's extension): absent leaves out[] at 0;
 * present, one number per dim in [lo, hi] (lo excluded when open_lo). */
static int per_dim(const WeftYamlNode *map, const char *names, const char *file,
                   const char *ftopo, int ndims, double lo, double hi, int open_lo, double *out,
                   WeftError *err) {
  const WeftYamlNode *key, *seq = weft_yaml_get(map, names, &key);
  if (!seq) return WEFT_OK;
  char field[WEFT_NAME_LEN];
  snprintf(field, sizeof field, "%s", key->text);
  int rc = dims_seq(seq, file, field, ftopo, ndims, err), count;
  if (!rc) rc = weft_yaml_doubles(seq, file, field, out, WEFT_MAX_DIMS, &count, err);
  for (int d = 0; !rc && d < ndims; d++) {
    const WeftYamlNode *e = seq->child[d];
    char los[32], his[32];
    weft_io_format_limit(los, sizeof los, lo);
    weft_io_format_limit(his, sizeof his, hi);
    if (out[d] > hi || out[d] < lo || (open_lo && out[d] == lo))
      rc = weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, field,
                          "%s entry %d must be %s %s and at most %s, got %g", field, d + 1,
                          open_lo ? "above" : "at least", los, his, out[d]);
  }
  return rc;
}

/* ASTRA-sim 2.0's analytical network keys, as weft exports them: `bandwidth`
 * per link in ASTRA-sim's GB/s (2^30 bytes/s), in weft's bandwidth range (0
 * is no design: refused here, not found missing at the solve) -> per-NPU B_d
 * in GB/s (a Ring NPU has 2 links, FullyConnected n-1, Switch 1), the design;
 * `latency` per hop -> latency_ns per algorithm step (a Switch step crosses
 * the switch: 2 hops). */
static int astra_keys(const WeftYamlNode *map, const char *file, const char *ftopo,
                      WeftNetwork *net, WeftError *err) {
  double v[WEFT_MAX_DIMS];
  const WeftYamlNode *key;
  int rc = per_dim(map, "bandwidth", file, ftopo, net->ndims, WEFT_MIN_BW_GBPS, WEFT_MAX_BW_GBPS,
                   0, v, err);
  if (rc) return rc;
  if (weft_yaml_get(map, "bandwidth", NULL))
    for (int d = 0; d < net->ndims; d++)
      net->design_gbps[d] = v[d] * WEFT_ASTRA_GBPS_PER_GIBPS * astra_links(net, d);
  const WeftYamlNode *lat = weft_yaml_get(map, "latency", &key);
  if (!lat) return WEFT_OK;
  if (weft_yaml_get(map, "LatencyNs|latency_ns", NULL))
    return weft_error_set(err, WEFT_EINPUT, file, key->line, key->col, "latency",
                          "give 'latency' (ASTRA-sim: ns per hop) or 'LatencyNs' (weft: ns "
                          "per algorithm step), not both");
  if ((rc = per_dim(map, "latency", file, ftopo, net->ndims, 0.0, WEFT_MAX_TIME_NS, 0, v, err)))
    return rc;
  for (int d = 0; d < net->ndims; d++)
    net->latency_ns[d] = astra_step_ns(net, d, v[d]);
  return WEFT_OK;
}

/* Whole links (weft's extension): LinkGBps, one rate per dim (0 =
 * continuous), and MaxLinks, whole links per NPU (0 = no limit), checked by
 * the rule every entry point shares (weft_network_links_check) at the line
 * of each dim's entry. */
static int links_keys(const WeftYamlNode *map, const char *file, const char *ftopo,
                      WeftNetwork *net, WeftError *err) {
  const WeftYamlNode *rkey = NULL, *mkey = NULL;
  const WeftYamlNode *rates = weft_yaml_get(map, "LinkGBps|link_gbps", &rkey);
  const WeftYamlNode *maxes = weft_yaml_get(map, "MaxLinks|max_links", &mkey);
  double m[WEFT_MAX_DIMS] = {0};
  int rc;
  if ((rc = per_dim(map, "LinkGBps|link_gbps", file, ftopo, net->ndims, -HUGE_VAL, HUGE_VAL, 0,
                    net->link_gbps, err)) ||
      (rc = per_dim(map, "MaxLinks|max_links", file, ftopo, net->ndims, -HUGE_VAL, HUGE_VAL, 0,
                    m, err)))
    return rc;
  for (int d = 0; d < net->ndims; d++) {
    const WeftYamlNode *e = maxes ? maxes->child[d] : NULL;
    if (e && (m[d] != floor(m[d]) || m[d] < 0.0 || m[d] > WEFT_MAX_LINKS))
      return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, mkey->text,
                            "%s entry %d must be a whole number of links from 1 to %d (0: no "
                            "limit), got %g", mkey->text, d + 1, WEFT_MAX_LINKS, m[d]);
    net->max_links[d] = (int)m[d];
    net->links_line[d] = rates ? rates->child[d]->line : 0; /* where errors point */
    net->max_links_line[d] = e ? e->line : 0;
  }
  char rf[WEFT_NAME_LEN], mf[WEFT_NAME_LEN];
  snprintf(rf, sizeof rf, "%s", rkey ? rkey->text : "LinkGBps");
  snprintf(mf, sizeof mf, "%s", mkey ? mkey->text : "MaxLinks");
  return weft_network_links_check(net, file, rf, mf, err);
}

/* Parts (weft's extension, docs/parts.md): a catalog part name per dim
 * ("" for none), bound to the catalog later (weft_network_bind_parts); a
 * dim takes its link rate from its part or from LinkGBps, not both. */
static int parts_key(const WeftYamlNode *map, const char *file, const char *ftopo,
                     WeftNetwork *net, WeftError *err) {
  const WeftYamlNode *key, *seq = weft_yaml_get(map, "Parts|parts", &key);
  if (!seq) return WEFT_OK;
  int rc = dims_seq(seq, file, key->text, ftopo, net->ndims, err);
  for (int d = 0; !rc && d < net->ndims; d++) {
    const WeftYamlNode *e = seq->child[d];
    char label[WEFT_NAME_LEN + 24];
    snprintf(label, sizeof label, "%s entry %d", key->text, d + 1);
    net->part_line[d] = e->line;
    if (e->kind == WEFT_YAML_SEQUENCE) {  /* a choice: stored "a|b|c" */
      size_t at = 0;
      if (e->n < 2)
        return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, key->text,
                              "%s is a list of %d: a choice needs 2 parts or more", label, e->n);
      for (int i = 0; i < e->n; i++) {
        char one[WEFT_NAME_LEN];
        if ((rc = copy_name(e->child[i], file, key->text, label, one, err))) return rc;
        if (at + strlen(one) + 2 > sizeof net->part[d])
          return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, key->text,
                                "%s: the choice's names are longer than %d characters in all",
                                label, WEFT_NAME_LEN - 2);
        at += (size_t)snprintf(net->part[d] + at, sizeof net->part[d] - at, "%s%s",
                               i ? "|" : "", one);
      }
      continue;
    }
    if (e->kind == WEFT_YAML_SCALAR && e->len == 0) {
      if (net->cost_dim[d][0]) continue; /* "": no part, the CostDimension's class */
      return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, key->text,
                            "%s is empty and the network names no CostDimension: the dim "
                            "needs a part or a cost class", label);
    }
    if ((rc = copy_name(e, file, key->text, label, net->part[d], err))) return rc;
  }
  return rc;
}

/* A dim takes its rate from its part or from LinkGBps, not both. */
static int parts_conflict(const WeftYamlNode *map, const char *file, const WeftNetwork *net,
                          WeftError *err) {
  const WeftYamlNode *key, *seq = weft_yaml_get(map, "Parts|parts", &key);
  for (int d = 0; seq && d < net->ndims; d++)
    if (net->part[d][0] && net->link_gbps[d] > 0.0)
      return weft_error_set(err, WEFT_EINPUT, file, seq->child[d]->line, seq->child[d]->col,
                            key->text,
                            "%s entry %d names part '%s' and LinkGBps entry %d gives a rate: "
                            "give one (the part's rate is its link rate)", key->text, d + 1,
                            net->part[d], d + 1);
  return WEFT_OK;
}

/* Active: the NPUs of each dim that work (0: all), the rest spares
 * (weft_network_set_active, the rule --active and Python share). */
static int active_key(const WeftYamlNode *map, const char *file, const char *ftopo,
                      WeftNetwork *net, WeftError *err) {
  const WeftYamlNode *key;
  const WeftYamlNode *seq = weft_yaml_get(map, "Active|active", &key);
  double a[WEFT_MAX_DIMS] = {0};
  int lines[WEFT_MAX_DIMS] = {0};
  if (!seq) return WEFT_OK;
  int rc = per_dim(map, "Active|active", file, ftopo, net->ndims, -HUGE_VAL, HUGE_VAL, 0, a, err);
  if (rc) return rc;
  for (int d = 0; d < net->ndims; d++) lines[d] = seq->child[d]->line;
  char field[WEFT_NAME_LEN];
  snprintf(field, sizeof field, "%s", key->text);
  return weft_network_set_active(net, a, net->ndims, file, lines, field, err);
}

/* Fabric: a fabric shape per dim ("-" or "" the default), under the rule
 * --fabric and Python share (weft_network_set_fabric). */
static int fabric_key(const WeftYamlNode *map, const char *file, const char *ftopo,
                      WeftNetwork *net, WeftError *err) {
  const WeftYamlNode *key, *seq = weft_yaml_get(map, "Fabric|fabric", &key);
  if (!seq) return WEFT_OK;
  int rc = dims_seq(seq, file, key->text, ftopo, net->ndims, err);
  if (rc) return rc;
  const char *names[WEFT_MAX_DIMS];
  int lines[WEFT_MAX_DIMS];
  for (int d = 0; d < net->ndims; d++) {
    const WeftYamlNode *e = seq->child[d];
    if (e->kind != WEFT_YAML_SCALAR) {
      char got[96];
      weft_yaml_describe(e, got, sizeof got);
      return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, key->text,
                            "%s entry %d must be a fabric name, got %s", key->text, d + 1, got);
    }
    names[d] = e->text;
    lines[d] = e->line;
  }
  char field[WEFT_NAME_LEN];
  snprintf(field, sizeof field, "%s", key->text);
  return weft_network_set_fabric(net, names, net->ndims, file, lines, field, err);
}

/* Planes: per dim the planes a Switch dim's links are split over (0: as
 * the dim is), under weft_network_set_planes's rule. */
static int planes_key(const WeftYamlNode *map, const char *file, const char *ftopo,
                      WeftNetwork *net, WeftError *err) {
  const WeftYamlNode *key, *seq = weft_yaml_get(map, "Planes|planes", &key);
  double p[WEFT_MAX_DIMS] = {0};
  int lines[WEFT_MAX_DIMS] = {0};
  if (!seq) return WEFT_OK;
  int rc = per_dim(map, "Planes|planes", file, ftopo, net->ndims, -HUGE_VAL, HUGE_VAL, 0, p, err);
  if (rc) return rc;
  for (int d = 0; d < net->ndims; d++) lines[d] = seq->child[d]->line;
  char field[WEFT_NAME_LEN];
  snprintf(field, sizeof field, "%s", key->text);
  return weft_network_set_planes(net, p, net->ndims, file, lines, field, err);
}

/* The cluster a `Cluster:` key names, its errors placed at the key. */
static int named_cluster(const WeftYamlNode *key, const WeftYamlNode *v, const char *file,
                         const char *zoo_dir, WeftCluster *c, WeftError *err) {
  char got[96];
  weft_yaml_describe(v, got, sizeof got);
  if (v->kind != WEFT_YAML_SCALAR || v->len == 0 || v->len >= WEFT_NAME_LEN)
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, key->text,
                          "%s must be a cluster name (data/zoo/clusters.yml), got %s", key->text,
                          got);
  int rc = weft_zoo_cluster(zoo_dir ? zoo_dir : WEFT_ZOO_DIR_DEFAULT, v->text, c, err);
  if (rc == WEFT_EINPUT && err && err->line == 0) {  /* unknown name: say where it was named */
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    weft_error_set(err, rc, file, v->line, v->col, key->text, "%s", msg);
  }
  return rc;
}

int weft_libra_network(const WeftYamlNode *map, const char *file, const char *zoo_dir,
                       WeftNetwork *net, WeftError *err) {
  static const char *const keys[] = {"Topology|topology", "NpusCount|npus_count",
                                     "CostDimension|cost_dimension", "Efficiency|efficiency",
                                     "LatencyNs|latency_ns", "bandwidth", "latency",
                                     "Cluster|cluster", "LinkGBps|link_gbps",
                                     "MaxLinks|max_links", "Parts|parts", "Active|active",
                                     "Fabric|fabric", "Planes|planes", NULL};
  const WeftYamlNode *topo, *npus, *cost, *ckey, *cval;
  char ftopo[WEFT_NAME_LEN] = "Topology", fnpus[WEFT_NAME_LEN],
       fcost[WEFT_NAME_LEN] = "CostDimension";
  WeftCluster cl;
  int rc;
  memset(net, 0, sizeof *net);
  snprintf(net->file, sizeof net->file, "%s", file);
  if (map && map->kind == WEFT_YAML_MAPPING && weft_yaml_get(map, "topologies-per-dim", NULL))
    return weft_astra1_network(map, file, net, err); /* ASTRA-sim 1.0's network json */
  if ((rc = expect_root(map, file, "Topology, NpusCount and CostDimension", err)) ||
      (rc = weft_yaml_check_keys(map, keys, file, err)))
    return rc;
  /* Cluster: a preset of data/zoo/clusters.yml gives Topology, CostDimension,
   * Efficiency, LatencyNs and the design per dim; keys the file gives win. */
  cval = weft_yaml_get(map, keys[7], &ckey);
  if (cval && (rc = named_cluster(ckey, cval, file, zoo_dir, &cl, err))) return rc;
  topo = NULL;
  if ((!cval || weft_yaml_get(map, keys[0], NULL)) &&
      (rc = require(map, keys[0], file, &topo, ftopo, err)))
    return rc;
  if ((rc = require(map, keys[1], file, &npus, fnpus, err))) return rc;
  /* CostDimension: required, unless the file is an ASTRA-sim network (it
   * carries a bandwidth), whose dims take the cost model's classes in order,
   * or names a cluster. */
  const WeftYamlNode *astra_bw = weft_yaml_get(map, "bandwidth", NULL);
  cost = NULL;
  const WeftYamlNode *parts = weft_yaml_get(map, "Parts|parts", NULL);
  if (((!astra_bw && !cval && !parts) || weft_yaml_get(map, keys[2], NULL)) &&
      (rc = require(map, keys[2], file, &cost, fcost, err)))
    return rc;
  const WeftYamlNode *first = topo ? topo : npus;
  const char *ffirst = topo ? ftopo : fnpus;
  if ((rc = dims_seq(first, file, ffirst, NULL, 0, err)) ||
      (topo && (rc = dims_seq(npus, file, fnpus, ftopo, topo->n, err))) ||
      (cost && (rc = dims_seq(cost, file, fcost, ffirst, first->n, err))))
    return rc;
  net->ndims = first->n;
  if (cval && net->ndims > cl.ntiers)
    return weft_error_set(err, WEFT_EINPUT, file, first->line, first->col, ffirst,
                          "%s has %d entries, cluster %s has %d tier%s", ffirst, net->ndims,
                          cl.name, cl.ntiers, cl.ntiers == 1 ? "" : "s");
  for (int d = 0; d < net->ndims; d++) {
    char label[WEFT_NAME_LEN + 24];
    snprintf(label, sizeof label, "%s entry %d", fcost, d + 1);
    if (topo) {
      const WeftYamlNode *e = topo->child[d];
      if ((rc = parse_topology(e, file, ftopo, d, &net->topology[d], err))) return rc;
      if (cval && net->topology[d] != cl.tier[d].topology)
        return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, ftopo,
                              "%s entry %d is %s, cluster %s's tier %d (%s) is a %s", ftopo,
                              d + 1, weft_topology_name(net->topology[d]), cl.name, d + 1,
                              cl.tier[d].name, weft_topology_name(cl.tier[d].topology));
    } else {
      net->topology[d] = cl.tier[d].topology;
    }
    if (cost) {
      if ((rc = copy_name(cost->child[d], file, fcost, label, net->cost_dim[d], err))) return rc;
    } else if (cval) {
      snprintf(net->cost_dim[d], sizeof net->cost_dim[d], "%s", cl.tier[d].cost);
    }
    net->line[d] = (cost ? cost : first)->child[d]->line;  /* weft_cost_per_gbps points here */
  }
  int count;
  if ((rc = weft_yaml_ints(npus, file, fnpus, net->npus, WEFT_MAX_DIMS, &count, err))) return rc;
  double total = 1.0;
  for (int d = 0; d < net->ndims; d++) {
    const WeftYamlNode *e = npus->child[d];
    if (net->npus[d] < 2)
      return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, fnpus,
                            "%s entry %d must be > 1, got %d", fnpus, d + 1, net->npus[d]);
    if (net->npus[d] > WEFT_MAX_NPUS)
      return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, fnpus,
                            "%s entry %d must be <= %d, got %d", fnpus, d + 1, WEFT_MAX_NPUS,
                            net->npus[d]);
    if (cval && cl.tier[d].npus > 0 && net->npus[d] > cl.tier[d].npus)
      return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, fnpus,
                            "%s entry %d is %d, cluster %s's tier %d (%s) joins %d GPUs", fnpus,
                            d + 1, net->npus[d], cl.name, d + 1, cl.tier[d].name,
                            cl.tier[d].npus);
    total *= net->npus[d];  /* exact: <= 2^30 x 2^30 before the check stops it */
    if (total > WEFT_MAX_NPUS)
      return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, fnpus,
                            "%s: the network has more than %d NPUs (%s entries 1 to %d multiply "
                            "to %.0f)",
                            fnpus, WEFT_MAX_NPUS, fnpus, d + 1, total);
  }
  /* The preset first (all of its figures), then what the file gives. */
  if ((cval && (rc = weft_cluster_apply(&cl, net, err))) ||
      (rc = per_dim(map, keys[3], file, ffirst, net->ndims, 0.0, 1.0, 1, net->efficiency, err)) ||
      (rc = per_dim(map, keys[4], file, ffirst, net->ndims, 0.0, WEFT_MAX_TIME_NS, 0,
                    net->latency_ns, err)))
    return rc;
  if ((rc = parts_key(map, file, ffirst, net, err)) ||
      (rc = links_keys(map, file, ffirst, net, err)) ||
      (rc = parts_conflict(map, file, net, err)) ||
      (rc = active_key(map, file, ffirst, net, err)) ||
      (rc = fabric_key(map, file, ffirst, net, err)) ||
      (rc = planes_key(map, file, ffirst, net, err)))
    return rc;
  return astra_keys(map, file, ffirst, net, err);
}

int weft_libra_cost_model(const WeftYamlNode *map, const char *file, WeftCostModel *cm,
                          WeftError *err) {
  static const char *const elems[] = {"Link|link", "Switch|switch", "Nic|nic", "Power|power",
                                      NULL};
  int rc;
  memset(cm, 0, sizeof *cm);
  snprintf(cm->file, sizeof cm->file, "%s", file);
  if ((rc = expect_root(map, file, "cost classes (each with Link, Switch, Nic)", err))) return rc;
  for (int i = 0; i < map->n; i++) {
    const WeftYamlNode *k = weft_yaml_key(map, i), *v = weft_yaml_value(map, i);
    if ((rc = weft_libra_system_key(k, v, file, cm, err)) <= 0) { /* a system figure */
      if (rc) return rc;
      continue;
    }
    if (cm->nclasses == WEFT_MAX_COST_CLASSES)
      return weft_error_set(err, WEFT_EINPUT, file, k->line, k->col, k->text,
                            "more than %d cost classes", WEFT_MAX_COST_CLASSES);
    WeftCostClass *c = &cm->cls[cm->nclasses];
    if ((rc = copy_name(k, file, k->text, "cost class name", c->name, err))) return rc;
    c->line = k->line;
    if (v->kind != WEFT_YAML_MAPPING) {
      char got[96];
      weft_yaml_describe(v, got, sizeof got);
      return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, k->text,
                            "cost class '%s' must be a mapping of Link, Switch, Nic costs, got %s",
                            k->text, got);
    }
    if ((rc = weft_yaml_check_keys(v, elems, file, err))) return rc;
    double *dst[4] = {&c->link_usd_per_gbps, &c->switch_usd_per_gbps, &c->nic_usd_per_gbps,
                      &c->power_w_per_gbps};
    int *has[4] = {&c->has_link, &c->has_switch, &c->has_nic, &c->has_power};
    for (int e = 0; e < 4; e++) {
      const WeftYamlNode *ek;
      const WeftYamlNode *ev = weft_yaml_get(v, elems[e], &ek);
      if (!ev) continue;
      char label[2 * WEFT_NAME_LEN + 24];
      snprintf(label, sizeof label, "%s %s%s", k->text, ek->text,
               e == 3 ? " (W per GB/s)" : "");
      WeftRange usd = WEFT_RANGE_USD_POSITIVE;  /* $ per GB/s: > 0, at most 1e12 */
      WeftRange pw = WEFT_RANGE_POWER_W;        /* W per GB/s: > 0, at most 1e9 */
      if ((rc = weft_yaml_double_in(ev, file, ek->text, label, e == 3 ? &pw : &usd, dst[e], err)))
        return rc;
      *has[e] = 1;
    }
    cm->nclasses++;
  }
  if (cm->nclasses == 0 && !weft_cost_model_has_system(cm)) /* system figures alone: for */
    return weft_error_set(err, WEFT_EINPUT, file, map->line, map->col, NULL, /* parts */
                          "the cost model has no cost classes");
  return WEFT_OK;
}

/* Per-dim NPU counts of one group into out[]: as long as the first list,
 * each -1 (not involved) or >= 1. */
static int group_counts(const WeftYamlNode *seq, const char *file, const char *field,
                        const char *first, int n0, int *out, WeftError *err) {
  int count, rc;
  if ((rc = dims_seq(seq, file, field, first, n0, err)) ||
      (rc = weft_yaml_ints(seq, file, field, out, WEFT_MAX_DIMS, &count, err)))
    return rc;
  for (int d = 0; d < count; d++) {
    const WeftYamlNode *e = seq->child[d];
    if (out[d] != -1 && out[d] < 1)
      return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, field,
                            "%s entry %d must be -1 (not involved) or >= 1, got %d", field, d + 1,
                            out[d]);
    if (out[d] > WEFT_MAX_NPUS)
      return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, field,
                            "%s entry %d must be <= %d, got %d", field, d + 1, WEFT_MAX_NPUS,
                            out[d]);
  }
  return WEFT_OK;
}

/* weft's extension: `Groups: {name: [per-dim counts], ...}`, named groups a
 * workload's phases select with TYPE@name. Field names read "Groups.pp". */
static int named_groups(const WeftYamlNode *gkey, const WeftYamlNode *gv, const char *file,
                        const char *first, WeftCommunicator *comm, WeftError *err) {
  int rc = weft_yaml_expect(gv, WEFT_YAML_MAPPING, file, gkey->text, err);
  if (rc) return rc;
  if (gv->n > WEFT_MAX_GROUPS) {
    const WeftYamlNode *k = weft_yaml_key(gv, WEFT_MAX_GROUPS);
    return weft_error_set(err, WEFT_EINPUT, file, k->line, k->col, gkey->text,
                          "%s has more than %d groups", gkey->text, WEFT_MAX_GROUPS);
  }
  for (int i = 0; i < gv->n; i++) {
    const WeftYamlNode *k = weft_yaml_key(gv, i), *v = weft_yaml_value(gv, i);
    if (!weft_group_name_ok(k->text, k->len))
      return weft_error_set(err, WEFT_EINPUT, file, k->line, k->col, gkey->text,
                            "%s: group name '%s' must be 1 to %d letters, digits or '_'",
                            gkey->text, k->text, WEFT_GROUP_NAME_MAX);
    char field[WEFT_NAME_LEN];
    snprintf(field, sizeof field, "%s.%s", gkey->text, k->text);
    if ((rc = group_counts(v, file, field, first, comm->ndims, comm->extra[i], err))) return rc;
    memcpy(comm->extra_name[i], k->text, k->len + 1);
    comm->extra_line[i] = k->line;
    comm->nextra++;
  }
  return WEFT_OK;
}

int weft_libra_communicator(const WeftYamlNode *map, const char *file, WeftCommunicator *comm,
                            WeftError *err) {
  static const char *const keys[] = {"Forward|forward", "InputGrad|input_grad",
                                     "WeightGrad|weight_grad", "Groups|groups", NULL};
  const WeftYamlNode *seq[WEFT_NPHASES];
  char field[WEFT_NPHASES][WEFT_NAME_LEN];
  int rc;
  memset(comm, 0, sizeof *comm);
  snprintf(comm->file, sizeof comm->file, "%s", file);
  if ((rc = expect_root(map, file, "Forward, InputGrad and WeightGrad", err)) ||
      (rc = weft_yaml_check_keys(map, keys, file, err)))
    return rc;
  for (int p = 0; p < WEFT_NPHASES; p++)
    if ((rc = require(map, keys[p], file, &seq[p], field[p], err))) return rc;
  for (int p = 0; p < WEFT_NPHASES; p++) {
    const WeftYamlNode *key;
    weft_yaml_get(map, keys[p], &key);
    comm->line[p] = key->line;
    if ((rc = group_counts(seq[p], file, field[p], field[0], p ? seq[0]->n : 0, comm->group[p],
                           err)))
      return rc;
  }
  comm->ndims = seq[0]->n;
  const WeftYamlNode *gkey, *gv = weft_yaml_get(map, keys[WEFT_NPHASES], &gkey);
  return gv ? named_groups(gkey, gv, file, field[0], comm, err) : WEFT_OK;
}

/* Load path, hand the tree to fill(), free it. */
static int read_yaml(const char *path, void *out, WeftError *err,
                     int (*fill)(const WeftYamlNode *, const char *, void *, WeftError *)) {
  if (!path || !out) return weft_error_set(err, WEFT_EINVAL, path, 0, 0, NULL, "no file or output");
  WeftYamlNode *root;
  int rc = weft_yaml_load_file(path, &root, err);
  if (rc) return rc;
  rc = fill(root, path, out, err);
  weft_yaml_free(root);
  return rc;
}

/* The same from text in memory, name standing for the file. */
static int parse_yaml(const char *text, const char *name, void *out, WeftError *err,
                      int (*fill)(const WeftYamlNode *, const char *, void *, WeftError *)) {
  if (!name) name = "";
  if (!text || !out) return weft_error_set(err, WEFT_EINVAL, name, 0, 0, NULL, "no text or output");
  WeftYamlNode *root;
  int rc = weft_yaml_load_string(text, strlen(text), name, &root, err);
  if (rc) return rc;
  rc = fill(root, name, out, err);
  weft_yaml_free(root);
  return rc;
}

static int fill_cost(const WeftYamlNode *r, const char *f, void *o, WeftError *e) {
  return weft_libra_cost_model(r, f, o, e);
}
static int fill_comm(const WeftYamlNode *r, const char *f, void *o, WeftError *e) {
  return weft_libra_communicator(r, f, o, e);
}

int weft_network_read_zoo(const char *path, const char *zoo_dir, WeftNetwork *net,
                          WeftError *err) {
  if (!path || !net) return weft_error_set(err, WEFT_EINVAL, path, 0, 0, NULL, "no file or output");
  WeftYamlNode *root;
  int rc = weft_yaml_load_file(path, &root, err);
  if (rc) return rc;
  rc = weft_libra_network(root, path, zoo_dir, net, err);
  weft_yaml_free(root);
  return rc;
}

int weft_network_read(const char *path, WeftNetwork *net, WeftError *err) {
  return weft_network_read_zoo(path, NULL, net, err);
}

int weft_cost_model_read(const char *path, WeftCostModel *cm, WeftError *err) {
  return read_yaml(path, cm, err, fill_cost);
}

int weft_communicator_read(const char *path, WeftCommunicator *comm, WeftError *err) {
  return read_yaml(path, comm, err, fill_comm);
}

int weft_network_parse(const char *text, const char *name, const char *zoo_dir, WeftNetwork *net,
                       WeftError *err) {
  if (!name) name = "";
  if (!text || !net) return weft_error_set(err, WEFT_EINVAL, name, 0, 0, NULL, "no text or output");
  WeftYamlNode *root;
  int rc = weft_yaml_load_string(text, strlen(text), name, &root, err);
  if (rc) return rc;
  rc = weft_libra_network(root, name, zoo_dir, net, err);
  weft_yaml_free(root);
  return rc;
}

int weft_cost_model_parse(const char *text, const char *name, WeftCostModel *cm,
                          WeftError *err) {
  return parse_yaml(text, name, cm, err, fill_cost);
}

int weft_communicator_parse(const char *text, const char *name, WeftCommunicator *comm,
                            WeftError *err) {
  return parse_yaml(text, name, comm, err, fill_comm);
}
