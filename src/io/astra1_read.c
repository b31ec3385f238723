/* astra1_read.c — reads back what weft_astra1_export writes: ASTRA-sim 1.0's
 * Hierarchical network json as a network carrying its design (per-link
 * bandwidth in ASTRA-sim's GB/s of 2^30 bytes/s -> per-NPU B in GB/s,
 * latency per hop -> per step), and its system file as simulation settings
 * for `--like astra-sim`. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/libra.h"
#include "io/util.h"
#include "sim/astra.h"

/* A per-dim list of numbers, one per dim, each in [lo, hi]. */
static int dim_numbers(const WeftYamlNode *map, const char *key, const char *file, int ndims,
                       int required, double lo, double hi, double *out, int *present,
                       WeftError *err) {
  const WeftYamlNode *k, *seq = weft_yaml_get(map, key, &k);
  *present = seq != NULL;
  if (!seq)
    return required ? weft_error_set(err, WEFT_EINPUT, file, map->line, map->col, key,
                                     "missing key '%s'", key)
                    : WEFT_OK;
  int rc = weft_yaml_expect(seq, WEFT_YAML_SEQUENCE, file, key, err), count;
  if (rc) return rc;
  if (seq->n != ndims)
    return weft_error_set(err, WEFT_EINPUT, file, seq->line, seq->col, key,
                          "%s has %d entries, topologies-per-dim has %d", key, seq->n, ndims);
  if ((rc = weft_yaml_doubles(seq, file, key, out, WEFT_MAX_DIMS, &count, err))) return rc;
  char los[32], his[32];
  weft_io_format_limit(los, sizeof los, lo);
  weft_io_format_limit(his, sizeof his, hi);
  for (int d = 0; d < ndims; d++)
    if (!(out[d] >= lo && out[d] <= hi))
      return weft_error_set(err, WEFT_EINPUT, file, seq->child[d]->line, seq->child[d]->col, key,
                            "%s entry %d is out of range: must be a number from %s to %s, got "
                            "%s",
                            key, d + 1, los, his, seq->child[d]->text);
  return WEFT_OK;
}

/* A key weft does not use (hbm-latency, hbm-bandwidth): still numbers, so
 * that a typo or 1e999 there is an error, not silently read past. */
static int ignored_numbers(const WeftYamlNode *map, const char *key, const char *file,
                           WeftError *err) {
  const WeftYamlNode *seq = weft_yaml_get(map, key, NULL);
  double v[WEFT_MAX_DIMS];
  int count;
  return seq ? weft_yaml_doubles(seq, file, key, v, WEFT_MAX_DIMS, &count, err) : WEFT_OK;
}

/* topologies-per-dim and units-count into net (ndims, topology, npus, line). */
static int dims(const WeftYamlNode *topo, const WeftYamlNode *units, const char *file,
                WeftNetwork *net, WeftError *err) {
  int rc = weft_yaml_expect(topo, WEFT_YAML_SEQUENCE, file, "topologies-per-dim", err), count;
  if (!rc) rc = weft_yaml_expect(units, WEFT_YAML_SEQUENCE, file, "units-count", err);
  if (rc) return rc;
  if (topo->n < 1 || topo->n > WEFT_MAX_DIMS || units->n != topo->n)
    return weft_error_set(err, WEFT_EINPUT, file, topo->line, topo->col, "topologies-per-dim",
                          "topologies-per-dim has %d entries, units-count %d: 1 to %d each, "
                          "as many",
                          topo->n, units->n, WEFT_MAX_DIMS);
  net->ndims = topo->n;
  for (int d = 0; d < net->ndims; d++) {
    const WeftYamlNode *e = topo->child[d];
    static const WeftTopology tab[3] = {WEFT_RING, WEFT_FULLY_CONNECTED, WEFT_SWITCH};
    int k = 0;
    while (k < 3 && !(e->kind == WEFT_YAML_SCALAR && !strcmp(e->text, weft_topology_name(tab[k]))))
      k++;
    if (k == 3)
      return weft_error_set(err, WEFT_EINPUT, file, e->line, e->col, "topologies-per-dim",
                            "topologies-per-dim entry %d: expected Ring, FullyConnected or "
                            "Switch",
                            d + 1);
    net->topology[d] = tab[k];
    net->line[d] = e->line;
  }
  if ((rc = weft_yaml_ints(units, file, "units-count", net->npus, WEFT_MAX_DIMS, &count, err)))
    return rc;
  double total = 1.0;
  for (int d = 0; d < net->ndims; d++) {
    total *= net->npus[d];
    if (net->npus[d] < 2 || total > WEFT_MAX_NPUS)
      return weft_error_set(err, WEFT_EINPUT, file, units->child[d]->line, units->child[d]->col,
                            "units-count",
                            "units-count entry %d is %d: each must be > 1, the product at most "
                            "%d",
                            d + 1, net->npus[d], WEFT_MAX_NPUS);
  }
  return WEFT_OK;
}

int weft_astra1_network(const WeftYamlNode *map, const char *file, WeftNetwork *net,
                        WeftError *err) {
  static const char *const keys[] = {
      "weft-units",      "topology-name", "dimensions-count", "topologies-per-dim",
      "dimension-type",  "units-count",   "links-count",      "link-latency",
      "link-bandwidth",  "nic-latency",   "router-latency",   "hbm-latency",
      "hbm-bandwidth",   "hbm-scale",     NULL};
  int rc = weft_yaml_check_keys(map, keys, file, err);
  if (rc) return rc;
  const WeftYamlNode *k, *name = weft_yaml_get(map, "topology-name", &k);
  if (name && (name->kind != WEFT_YAML_SCALAR || strcmp(name->text, "Hierarchical")))
    return weft_error_set(err, WEFT_EINPUT, file, name->line, name->col, "topology-name",
                          "ASTRA-sim 1.0 networks weft reads are \"Hierarchical\"");
  /* The LIBRA reader takes Topology and NpusCount; the rest is ASTRA-sim's. */
  const WeftYamlNode *topo = weft_yaml_get(map, "topologies-per-dim", NULL),
                     *units = weft_yaml_get(map, "units-count", &k);
  if (!units)
    return weft_error_set(err, WEFT_EINPUT, file, map->line, map->col, "units-count",
                          "missing key 'units-count'");
  if ((rc = dims(topo, units, file, net, err))) return rc;
  const WeftYamlNode *cnt = weft_yaml_get(map, "dimensions-count", &k);
  int count;
  if (cnt && ((rc = weft_yaml_int(cnt, file, "dimensions-count", "dimensions-count", &count, err)) ||
              (count != net->ndims &&
               (rc = weft_error_set(err, WEFT_EINPUT, file, cnt->line, cnt->col,
                                    "dimensions-count", "dimensions-count is %d, the lists have %d",
                                    count, net->ndims)))))
    return rc;
  double links[WEFT_MAX_DIMS], bw[WEFT_MAX_DIMS], lat[WEFT_MAX_DIMS], zero[WEFT_MAX_DIMS];
  int have_links, have;
  if ((rc = dim_numbers(map, "links-count", file, net->ndims, 0, 0.0, INT_MAX, links, &have_links,
                        err)) ||
      (rc = dim_numbers(map, "link-bandwidth", file, net->ndims, 1, WEFT_MIN_BW_GBPS,
                        WEFT_MAX_BW_GBPS, bw, &have, err)) ||
      (rc = dim_numbers(map, "link-latency", file, net->ndims, 1, 0.0, WEFT_MAX_TIME_NS, lat,
                        &have, err)) ||
      (rc = ignored_numbers(map, "hbm-latency", file, err)) ||
      (rc = ignored_numbers(map, "hbm-bandwidth", file, err)))
    return rc;
  static const char *const zeros[] = {"nic-latency", "router-latency", "hbm-scale"};
  for (int z = 0; z < 3; z++) {
    if ((rc = dim_numbers(map, zeros[z], file, net->ndims, 0, 0.0, WEFT_MAX_TIME_NS, zero, &have,
                          err)))
      return rc;
    for (int d = 0; d < net->ndims && have; d++)
      if (zero[d] != 0.0)
        return weft_error_set(err, WEFT_EINPUT, file, map->line, map->col, zeros[z],
                              "%s entry %d is %g: weft models 0 only (latency per hop, no "
                              "memory model)",
                              zeros[z], d + 1, zero[d]);
  }
  for (int d = 0; d < net->ndims; d++) {
    int n = net->npus[d], l = have_links && links[d] <= INT_MAX ? (int)links[d] : 0;
    /* the links one NPU drives, as ASTRA-sim counts its bandwidth: an even
     * count on a Ring, a multiple of n-1 on a FullyConnected dim */
    double per_npu = net->topology[d] == WEFT_RING ? l - l % 2
                     : net->topology[d] == WEFT_FULLY_CONNECTED ? l - l % (n - 1)
                                                                : l;
    if (!have_links || links[d] != l || per_npu < 1)
      return weft_error_set(err, WEFT_EINPUT, file, map->line, map->col, "links-count",
                            "links-count entry %d must give the links per NPU (a %s of %d: "
                            "%d), got %s",
                            d + 1, weft_topology_name(net->topology[d]), n,
                            net->topology[d] == WEFT_RING ? 2 : net->topology[d] == WEFT_SWITCH ? 1 : n - 1,
                            have_links ? "a count with no usable link" : "none");
    net->design_gbps[d] = bw[d] * WEFT_ASTRA_GBPS_PER_GIBPS * per_npu;
    net->latency_ns[d] = astra_step_ns(net, d, lat[d]);
  }
  return WEFT_OK;
}

/* ------------------------------------------------------------------ system file */

static int per_dim_algs(const char *v, const char *file, int line, const char *key, int ndims,
                        WeftAlgorithm *out, WeftError *err) {
  int d = 0;
  const char *p = v;
  while (*p) {
    size_t n = strcspn(p, "_");
    WeftAlgorithm a;
    if (n == 4 && !strncmp(p, "ring", 4)) a = WEFT_ALG_RING;
    else if (n == 6 && !strncmp(p, "direct", 6)) a = WEFT_ALG_DIRECT;
    else if (n == 15 && !strncmp(p, "halvingDoubling", 15)) a = WEFT_ALG_HD;
    else
      return weft_error_set(err, WEFT_EINPUT, file, line, 0, key,
                            "%s: '%.*s' is not ring, direct or halvingDoubling (the algorithms "
                            "weft models)",
                            key, (int)n, p);
    if (d < WEFT_MAX_DIMS) out[d] = a;
    d++;
    p += n;
    if (*p) p++;
  }
  if (d != ndims)
    return weft_error_set(err, WEFT_EINPUT, file, line, 0, key,
                          "%s names %d dims, the network has %d", key, d, ndims);
  return WEFT_OK;
}

/* A whole number in [lo, hi]. */
static int whole(const char *v, const char *file, int line, const char *key, long long lo,
                 long long hi, long long *out, WeftError *err) {
  if (weft_io_integer(v, strlen(v), out) || *out < lo || *out > hi)
    return weft_error_set(err, WEFT_EINPUT, file, line, 0, key,
                          "%s must be a whole number from %lld to %lld, got '%s'", key, lo, hi, v);
  return WEFT_OK;
}

/* Every key a system file may hold, each once: the four implementation
 * lists, the scheduling policy (LIFO or FIFO, both modelled), the settings
 * weft models one way only (with that value), those it ignores (the
 * shared-bus model, off), then the three numbers it takes. */
enum { SYS_IMPL = 0, SYS_POLICY = 4, SYS_FIXED = 5, SYS_IGNORED = 10, SYS_NUMBERS = 16,
       SYS_NKEYS = 19 };
static const char *const system_keys[SYS_NKEYS] = {
    "all-reduce-implementation:", "all-gather-implementation:",
    "reduce-scatter-implementation:", "all-to-all-implementation:",
    "scheduling-policy:", "boost-mode:", "collective-optimization:",
    "intra-dimension-scheduling:", "inter-dimension-scheduling:", "model-shared-bus:",
    "local-reduction-delay:", "L:", "o:", "g:", "G:", "seprate-log:",
    "endpoint-delay:", "active-chunks-per-dimension:", "preferred-dataset-splits:"};
static const char *const system_fixed[SYS_IGNORED - SYS_FIXED] = {
    "0", "localBWAware", "FIFO", "ascending", "0"};

/* Does tok read as a key ("name:", letters, digits, '-' and '_')? Anything
 * else is not echoed: a file given in the wrong place is named, not shown. */
static int key_like(const char *tok) {
  size_t n = strlen(tok);
  if (n < 2 || n > 48 || tok[n - 1] != ':') return 0;
  for (size_t i = 0; i + 1 < n; i++) {
    char c = tok[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '-' || c == '_'))
      return 0;
  }
  return 1;
}

/* The key's place in system_keys, or an error. */
static int system_key(const char *key, const char *file, int line, int *id, WeftError *err) {
  for (*id = 0; *id < SYS_NKEYS; ++*id)
    if (!strcmp(key, system_keys[*id])) return WEFT_OK;
  if (!key_like(key))
    return weft_error_set(err, WEFT_EINPUT, file, line, 0, NULL,
                          "expected a key such as 'all-reduce-implementation:' (is this an "
                          "ASTRA-sim 1.0 system file?)");
  return weft_error_set(err, WEFT_EINPUT, file, line, 0, key,
                        "unknown key '%s' (ASTRA-sim 1.0 would stop on it too)", key);
}

/* One "key: value" pair, key system_keys[id]. alg[k] gets the k-th
 * implementation list. */
static int system_pair(int id, const char *v, const char *file, int line, int ndims,
                       WeftSimSettings *s, WeftAlgorithm alg[4][WEFT_MAX_DIMS], int *seen,
                       WeftError *err) {
  const char *key = system_keys[id];
  long long n;
  int rc;
  if (id < SYS_POLICY) {
    *seen |= 1 << id;
    return per_dim_algs(v, file, line, key, ndims, alg[id], err);
  }
  if (id == SYS_POLICY) { /* ASTRA-sim 1.0 takes these two words, exactly */
    if (strcmp(v, "LIFO") && strcmp(v, "FIFO"))
      return weft_error_set(err, WEFT_EINPUT, file, line, 0, key,
                            "%s %s: expected LIFO or FIFO (ASTRA-sim 1.0's policies)", key, v);
    s->astra_policy = strcmp(v, "FIFO") ? WEFT_ASTRA_LIFO : WEFT_ASTRA_FIFO;
    return WEFT_OK;
  }
  if (id < SYS_IGNORED)
    return strcmp(v, system_fixed[id - SYS_FIXED])
               ? weft_error_set(err, WEFT_EINPUT, file, line, 0, key,
                                "%s %s: weft models %s only", key, v,
                                system_fixed[id - SYS_FIXED])
               : WEFT_OK;
  if (id < SYS_NUMBERS) { /* the shared-bus model, off: still a number (1e999 is no) */
    double x;
    int r = weft_io_number(v, strlen(v), &x);
    return r == WEFT_NUM_OK ? WEFT_OK
                            : weft_error_set(err, WEFT_EINPUT, file, line, 0, key, "%s %s, got '%s'",
                                             key, weft_io_number_must(r), v);
  }
  if (id == SYS_NUMBERS) {
    if ((rc = whole(v, file, line, key, 0, 2147483647LL, &n, err))) return rc;
    s->endpoint_delay_ns = (double)n;
  } else if (id == SYS_NUMBERS + 1) {
    if ((rc = whole(v, file, line, key, 1, 1000000, &n, err))) return rc;
    s->in_flight = (int)n;
  } else {
    if ((rc = whole(v, file, line, key, 1, 1000000, &n, err))) return rc;
    s->chunks = (int)n;
  }
  return WEFT_OK;
}

int weft_astra1_system_read(const char *path, const WeftNetwork *net, WeftSimSettings *s,
                            WeftError *err) {
  if (!path || !net || !s) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "bad arguments");
  char *text;
  size_t len;
  int rc = weft_io_read_file(path, &text, &len, err), seen = 0, line = 1;
  if (rc) return rc;
  WeftAlgorithm alg[4][WEFT_MAX_DIMS];
  s->endpoint_delay_ns = WEFT_ASTRA_ENDPOINT_NS; /* ASTRA-sim's default when absent */
  s->astra_policy = WEFT_ASTRA_LIFO;               /* as the files weft writes say */
  char *p = text, *tok[2];
  int ntok = 0, tokline = 1, first_line[SYS_NKEYS] = {0};
  while (!rc) { /* whitespace-separated tokens, read in pairs as ASTRA-sim does */
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') line += *p++ == '\n';
    if (!*p) break;
    if (ntok == 0) tokline = line;
    tok[ntok++] = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') p++;
    if (*p) {
      line += *p == '\n';
      *p++ = '\0';
    }
    if (ntok == 2) {  /* each key once: ASTRA-sim keeps the last, a silent surprise */
      int id;
      rc = system_key(tok[0], path, tokline, &id, err);
      if (!rc && first_line[id])
        rc = weft_error_set(err, WEFT_EINPUT, path, tokline, 0, tok[0],
                            "duplicate key '%s' (first at line %d)", tok[0], first_line[id]);
      if (!rc) {
        first_line[id] = tokline;
        rc = system_pair(id, tok[1], path, tokline, net->ndims, s, alg, &seen, err);
      }
      ntok = 0;
    }
  }
  if (!rc && ntok)
    rc = key_like(tok[0]) ? weft_error_set(err, WEFT_EINPUT, path, tokline, 0, tok[0],
                                           "'%s' has no value", tok[0])
                          : weft_error_set(err, WEFT_EINPUT, path, tokline, 0, NULL,
                                           "expected a key and its value (is this an ASTRA-sim "
                                           "1.0 system file?)");
  if (!rc && (seen & 1) == 0)
    rc = weft_error_set(err, WEFT_EINPUT, path, 0, 0, "all-reduce-implementation:",
                        "missing all-reduce-implementation");
  for (int k = 1; k < 4 && !rc; k++) /* weft runs one algorithm per dim for every collective */
    for (int d = 0; d < net->ndims && !rc && (seen >> k & 1); d++) {
      WeftAlgorithm want = k == 3 && alg[0][d] == WEFT_ALG_HD ? WEFT_ALG_DIRECT : alg[0][d];
      if (alg[k][d] != want)
        rc = weft_error_set(err, WEFT_EINPUT, path, 0, 0, "implementation",
                            "dim %d: all-reduce runs %s, another collective %s: weft runs one "
                            "algorithm per dim for all of them (all-to-all direct where it is "
                            "halvingDoubling)",
                            d + 1, weft_algorithm_name(alg[0][d]), weft_algorithm_name(alg[k][d]));
    }
  for (int d = 0; d < net->ndims && !rc; d++) s->algorithm[d] = alg[0][d];
  if (!rc) s->like = WEFT_LIKE_ASTRA1;
  free(text);
  return rc;
}
