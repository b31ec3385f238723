/* cluster.c — cluster presets (data/zoo/clusters.yml, docs/zoo.md
 * "Clusters"): reading them, building a network from one, applying one to a
 * network read from a file. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "io/limits.h"
#include "io/yaml.h"
#include "zoo.h"
#include "weft.h"

static const char *const CLUSTER_KEYS[] = {"title", "device", "tiers", "source", NULL};
static const char *const TIER_KEYS[] = {"name",    "topology",   "npus",       "cost",
                                        "bw_gbps", "efficiency", "latency_ns", "fabric",
                                        NULL};

/* Text under key (required when need) into out[size] (weft_zoo_text). */
static int text(const WeftYamlNode *map, const char *key, int need, const char *file, char *out,
                size_t size, WeftError *err) {
  if (need && !weft_yaml_get(map, key, NULL))
    return weft_error_set(err, WEFT_EINPUT, file, map->line, map->col, key, "missing key '%s'",
                          key);
  return weft_zoo_text(map, key, file, out, size, err);
}

/* A required number under key in range. */
static int number(const WeftYamlNode *map, const char *key, const char *file, WeftRange range,
                  double *out, WeftError *err) {
  const WeftYamlNode *v = weft_yaml_get(map, key, NULL);
  if (!v)
    return weft_error_set(err, WEFT_EINPUT, file, map->line, map->col, key, "missing key '%s'",
                          key);
  return weft_yaml_double_in(v, file, key, NULL, &range, out, err);
}

static int topology(const WeftYamlNode *map, const char *file, WeftTopology *out,
                    WeftError *err) {
  char t[WEFT_NAME_LEN];
  int rc = text(map, "topology", 1, file, t, sizeof t, err);
  if (rc) return rc;
  for (int k = WEFT_RING; k <= WEFT_SWITCH; k++)
    if (strcasecmp(t, weft_topology_name((WeftTopology)k)) == 0) {
      *out = (WeftTopology)k;
      return WEFT_OK;
    }
  const WeftYamlNode *v = weft_yaml_get(map, "topology", NULL);
  return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, "topology",
                        "unknown topology '%s' (expected Ring, FullyConnected or Switch)", t);
}

/* A tier's fabric shape (optional; the default: LIBRA's fat-tree). */
static int fabric(const WeftYamlNode *map, const char *file, WeftClusterTier *t,
                  WeftError *err) {
  char f[WEFT_NAME_LEN] = "";
  int rc = text(map, "fabric", 0, file, f, sizeof f, err);
  if (rc || !f[0]) return rc;
  for (int k = 0; k < WEFT_NSHAPES; k++)
    if (strcasecmp(f, weft_dim_shape_name((WeftDimShape)k)) == 0) {
      t->fabric = k;
      return WEFT_OK;
    }
  const WeftYamlNode *v = weft_yaml_get(map, "fabric", NULL);
  return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, "fabric",
                        "unknown fabric '%s' (expected fat-tree, rail-optimized, rail-only or "
                        "torus)", f);
}

/* Tier i of n: every tier but the last joins a fixed number of GPUs. */
static int parse_tier(const WeftYamlNode *v, int i, int n, const char *file, WeftClusterTier *t,
                      WeftError *err) {
  int rc;
  if ((rc = weft_yaml_expect(v, WEFT_YAML_MAPPING, file, "tiers", err)) ||
      (rc = weft_yaml_check_keys(v, TIER_KEYS, file, err)) ||
      (rc = text(v, "name", 1, file, t->name, sizeof t->name, err)) ||
      (rc = topology(v, file, &t->topology, err)) ||
      (rc = text(v, "cost", 1, file, t->cost, sizeof t->cost, err)) ||
      (rc = number(v, "bw_gbps", file, WEFT_RANGE_ZOO_FIGURE, &t->bw_gbps, err)) ||
      (rc = number(v, "efficiency", file, WEFT_RANGE_(0.0, 1, 1), &t->efficiency, err)) ||
      (rc = number(v, "latency_ns", file, WEFT_RANGE_TIME_NS, &t->latency_ns, err)) ||
      (rc = fabric(v, file, t, err)))
    return rc;
  const WeftYamlNode *nv = weft_yaml_get(v, "npus", NULL);
  if (i == n - 1) {
    if (nv)
      return weft_error_set(err, WEFT_EINPUT, file, nv->line, nv->col, "npus",
                            "the last tier ('%s') joins the rest of the cluster: remove 'npus'",
                            t->name);
    return WEFT_OK;
  }
  if (!nv)
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, "npus",
                          "missing key 'npus' (every tier but the last joins a fixed number "
                          "of GPUs)");
  if ((rc = weft_yaml_int(nv, file, "npus", NULL, &t->npus, err))) return rc;
  if (t->npus < 2 || t->npus > WEFT_MAX_NPUS)
    return weft_error_set(err, WEFT_EINPUT, file, nv->line, nv->col, "npus",
                          "npus must be 2..%d, got %d", WEFT_MAX_NPUS, t->npus);
  return WEFT_OK;
}

/* One entry of clusters.yml: name -> {title, device, tiers, source}. */
static int parse_cluster(const WeftYamlNode *k, const WeftYamlNode *v, const char *file,
                         WeftCluster *c, WeftError *err) {
  int rc;
  memset(c, 0, sizeof *c);
  if (k->len == 0 || k->len >= WEFT_NAME_LEN)
    return weft_error_set(err, WEFT_EINPUT, file, k->line, k->col, k->text,
                          "cluster name must have 1 to %d characters", WEFT_NAME_LEN - 1);
  memcpy(c->name, k->text, k->len + 1);
  snprintf(c->title, sizeof c->title, "%s", c->name);
  if ((rc = weft_yaml_expect(v, WEFT_YAML_MAPPING, file, k->text, err)) ||
      (rc = weft_yaml_check_keys(v, CLUSTER_KEYS, file, err)) ||
      (rc = text(v, "title", 0, file, c->title, sizeof c->title, err)) ||
      (rc = text(v, "device", 0, file, c->device, sizeof c->device, err)) ||
      (rc = text(v, "source", 0, file, c->source, sizeof c->source, err)))
    return rc;
  const WeftYamlNode *tiers = weft_yaml_get(v, "tiers", NULL);
  if (!tiers)
    return weft_error_set(err, WEFT_EINPUT, file, v->line, v->col, "tiers",
                          "missing key 'tiers'");
  if ((rc = weft_yaml_expect(tiers, WEFT_YAML_SEQUENCE, file, "tiers", err))) return rc;
  if (tiers->n < 1 || tiers->n > WEFT_MAX_DIMS)
    return weft_error_set(err, WEFT_EINPUT, file, tiers->line, tiers->col, "tiers",
                          "tiers must have 1 to %d entries, got %d", WEFT_MAX_DIMS, tiers->n);
  for (int i = 0; i < tiers->n; i++)
    if ((rc = parse_tier(tiers->child[i], i, tiers->n, file, &c->tier[i], err))) return rc;
  c->ntiers = tiers->n;
  return WEFT_OK;
}

static int parse_entry(const WeftYamlNode *k, const WeftYamlNode *v, const char *file,
                       void *out, WeftError *err) {
  return parse_cluster(k, v, file, out, err);
}

static const WeftZooTable CLUSTERS = {"clusters.yml", "cluster", "their tiers",
                                      sizeof(WeftCluster), parse_entry};

int weft_zoo_cluster(const char *zoo_dir, const char *name, WeftCluster *c, WeftError *err) {
  return weft_zoo_table(&CLUSTERS, zoo_dir, name ? name : "", c, NULL, 0, NULL, err);
}

int weft_zoo_clusters(const char *zoo_dir, WeftCluster *cs, int max, int *count,
                      WeftError *err) {
  return weft_zoo_table(&CLUSTERS, zoo_dir, NULL, NULL, cs, max, count, err);
}

int weft_cluster_apply(const WeftCluster *c, WeftNetwork *net, WeftError *err) {
  if (!c || !net) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no cluster or network");
  if (net->ndims > c->ntiers)
    return weft_error_set(err, WEFT_EINPUT, net->file, net->line[c->ntiers], 0, "Cluster",
                          "the network has %d dims, cluster %s has %d tier%s", net->ndims,
                          c->name, c->ntiers, c->ntiers == 1 ? "" : "s");
  for (int d = 0; d < net->ndims; d++) {
    const WeftClusterTier *t = &c->tier[d];
    if (net->topology[d] != t->topology)
      return weft_error_set(err, WEFT_EINPUT, net->file, net->line[d], 0, "Topology",
                            "dim %d is a %s, cluster %s's tier %d (%s) is a %s", d + 1,
                            weft_topology_name(net->topology[d]), c->name, d + 1, t->name,
                            weft_topology_name(t->topology));
    if (t->npus > 0 && net->npus[d] + net->spares[d] > t->npus)  /* spares are in the tier */
      return weft_error_set(err, WEFT_EINPUT, net->file, net->line[d], 0, "NpusCount",
                            "dim %d has %d NPUs, cluster %s's tier %d (%s) joins %d", d + 1,
                            net->npus[d] + net->spares[d], c->name, d + 1, t->name, t->npus);
  }
  for (int d = 0; d < net->ndims; d++) {  /* checked: now fill, all or nothing */
    const WeftClusterTier *t = &c->tier[d];
    if (net->efficiency[d] == 0.0) net->efficiency[d] = t->efficiency;
    if (net->latency_ns[d] == 0.0) net->latency_ns[d] = t->latency_ns;
    if (net->design_gbps[d] == 0.0) net->design_gbps[d] = t->bw_gbps;
  }
  /* The tiers' fabric shapes, on the dims that meet each shape's rule (a
   * torus tier used for 2 chips is a plain ring); a Fabric the file gives
   * comes after and wins. */
  for (int d = 0; d < net->ndims; d++) {
    if (!c->tier[d].fabric || net->fabric[d]) continue;
    const char *names[WEFT_MAX_DIMS];
    for (int e = 0; e < net->ndims; e++) names[e] = weft_dim_shape_name((WeftDimShape)net->fabric[e]);
    names[d] = weft_dim_shape_name((WeftDimShape)c->tier[d].fabric);
    WeftError ignored;
    weft_network_set_fabric(net, names, net->ndims, "", NULL, "fabric", &ignored);
  }
  snprintf(net->cluster, sizeof net->cluster, "%s", c->name);
  snprintf(net->cluster_device, sizeof net->cluster_device, "%s", c->device);
  return WEFT_OK;
}

int weft_cluster_network(const WeftCluster *c, int npus, WeftNetwork *net, WeftError *err) {
  if (!c || !net || c->ntiers < 1)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no cluster or network");
  if (npus < 2 || npus > WEFT_MAX_NPUS)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "npus", "npus must be 2..%d, got %d",
                          WEFT_MAX_NPUS, npus);
  memset(net, 0, sizeof *net);
  snprintf(net->file, sizeof net->file, "cluster %s", c->name);
  int left = npus, d = 0;
  for (; d < c->ntiers && left > 1; d++) {
    const WeftClusterTier *t = &c->tier[d];
    int n = left;
    if (t->npus > 0 && left > t->npus) {  /* a full unit of this tier, the rest outside */
      if (left % t->npus)
        return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "npus",
                              "%d GPUs are not whole units of cluster %s's tier %d (%s: %d "
                              "GPUs)",
                              npus, c->name, d + 1, t->name, t->npus);
      n = t->npus;
    }
    net->topology[d] = t->topology;
    net->npus[d] = n;
    snprintf(net->cost_dim[d], sizeof net->cost_dim[d], "%s", t->cost);
    left /= n;
  }
  net->ndims = d;
  return weft_cluster_apply(c, net, err);
}

/* "h100 (cluster dgx-h100)" or "a100 (no cluster: the default)" */
static void device_origin(const WeftNetwork *net, char *buf, size_t size) {
  if (net->cluster[0] && net->cluster_device[0])
    snprintf(buf, size, "%s (cluster %s)", net->cluster_device, net->cluster);
  else
    snprintf(buf, size, "%s (%s)", WEFT_DEVICE_DEFAULT,
             net->cluster[0] ? "its cluster names no GPU: the default" : "no cluster: the default");
}

const char *weft_job_device(const WeftNetwork *nets, int nnets, const char *given,
                            WeftError *err) {
  if (given && given[0]) return given;
  const char *dev = WEFT_DEVICE_DEFAULT;
  for (int k = 0; k < nnets && nets; k++) {
    const char *dk = nets[k].cluster_device[0] ? nets[k].cluster_device : WEFT_DEVICE_DEFAULT;
    if (k == 0) dev = dk;
    else if (strcmp(dk, dev) != 0) {
      char a[2 * WEFT_NAME_LEN + 48], b[2 * WEFT_NAME_LEN + 48];
      device_origin(&nets[k], a, sizeof a);
      device_origin(&nets[0], b, sizeof b);
      weft_error_set(err, WEFT_EINPUT, nets[k].file, 0, 0, "device",
                     "model jobs here run on %s, on %s they run on %s: name one device for every network", a,
                     nets[0].file, b);
      return NULL;
    }
  }
  return dev;
}
