/* npu_graph.c — a multi-dim network as a WeftGraph of NPUs (and switches),
 * with link ids in closed form, so routes and link -> dim need no tables. */
#include <math.h>

#include "weft.h"

/* Bounds that keep node and link ids well inside int and the graph in memory. */
#define NPU_GRAPH_MAX_NPUS (1LL << 22)
#define NPU_GRAPH_MAX_LINKS (1LL << 26)

/* Link id = base[d] + v * per[d] + k for NPU v's k-th link of dim d:
 * Ring k = 0 to c+1, k = 1 to c-1 (mod n); FullyConnected the k-th other
 * coordinate in increasing order; Switch k = 0 up (NPU -> switch), k = 1
 * down (switch -> NPU v). Switch nodes follow the NPUs, dim by dim, one per
 * block of n_d NPUs that differ only in coordinate d. */
typedef struct {
  long long npus, nodes, links;
  long long stride[WEFT_MAX_DIMS];    /* n_0 x ... x n_{d-1} */
  long long per[WEFT_MAX_DIMS];       /* links per NPU */
  long long base[WEFT_MAX_DIMS + 1];  /* first link id of the dim */
  long long sw_base[WEFT_MAX_DIMS];   /* first switch node of a Switch dim */
} Layout;

/* 0, or 1 for a bad shape, 2 for one too large; *bad = the dim at fault. */
static int layout(const WeftNetwork *net, Layout *lay, int *bad) {
  *bad = 0;
  if (!net || net->ndims < 1 || net->ndims > WEFT_MAX_DIMS) return 1;
  lay->npus = 1;
  for (int d = 0; d < net->ndims; d++) {
    int n = net->npus[d];
    *bad = d;
    if (n < 2) return 1;
    lay->stride[d] = lay->npus;
    lay->npus *= n;
    if (lay->npus > NPU_GRAPH_MAX_NPUS) return 2;
    switch (net->topology[d]) {
      case WEFT_RING: lay->per[d] = 2; break;
      case WEFT_FULLY_CONNECTED: lay->per[d] = n - 1; break;
      case WEFT_SWITCH: lay->per[d] = 2; break;
      default: return 1;
    }
  }
  lay->base[0] = 0;
  lay->nodes = lay->npus;
  for (int d = 0; d < net->ndims; d++) {
    *bad = d;
    lay->base[d + 1] = lay->base[d] + lay->npus * lay->per[d];
    if (lay->base[d + 1] > NPU_GRAPH_MAX_LINKS) return 2;
    lay->sw_base[d] = lay->nodes;
    if (net->topology[d] == WEFT_SWITCH) lay->nodes += lay->npus / net->npus[d];
  }
  lay->links = lay->base[net->ndims];
  return 0;
}

/* The switch node serving NPU v on Switch dim d. */
static long long switch_node(const WeftNetwork *net, const Layout *lay, int d, long long v) {
  long long st = lay->stride[d], n = net->npus[d];
  return lay->sw_base[d] + (v / (st * n)) * st + v % st;
}

/* Add the links of dim d for every NPU, in id order. */
static int add_dim(WeftGraph *g, const WeftNetwork *net, const Layout *lay, int d, double bw) {
  long long n = net->npus[d], st = lay->stride[d];
  for (long long v = 0; v < lay->npus; v++) {
    long long c = (v / st) % n;
    int rc = 0;
    switch (net->topology[d]) {
      case WEFT_RING:
        rc = weft_graph_add_link(g, (int)v, (int)(v + ((c + 1) % n - c) * st), bw / 2.0);
        if (rc >= 0)
          rc = weft_graph_add_link(g, (int)v, (int)(v + ((c + n - 1) % n - c) * st), bw / 2.0);
        break;
      case WEFT_FULLY_CONNECTED:
        for (long long j = 0; j < n && rc >= 0; j++)
          if (j != c) rc = weft_graph_add_link(g, (int)v, (int)(v + (j - c) * st), bw / (double)(n - 1));
        break;
      case WEFT_SWITCH: {
        int sw = (int)switch_node(net, lay, d, v);
        rc = weft_graph_add_link(g, (int)v, sw, bw);
        if (rc >= 0) rc = weft_graph_add_link(g, sw, (int)v, bw);
        break;
      }
    }
    if (rc < 0) return rc;
  }
  return WEFT_OK;
}

int weft_network_graph(const WeftNetwork *net, const double *bw_gbps, WeftGraph **out,
                       WeftError *err) {
  if (out) *out = NULL;
  if (!net || !bw_gbps || !out)
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no network or bandwidth given");
  Layout lay;
  int d0, rc = layout(net, &lay, &d0);
  int line = net->ndims >= 1 && net->ndims <= WEFT_MAX_DIMS ? net->line[d0] : 0;
  if (rc == 1)
    return weft_error_set(err, WEFT_EINPUT, net->file, line, 0, "npus_count",
                          "network needs 1..%d dims of a known topology and at least 2 NPUs "
                          "each (dim %d)", WEFT_MAX_DIMS, d0 + 1);
  if (rc == 2)
    return weft_error_set(err, WEFT_EINPUT, net->file, line, 0, "npus_count",
                          "network is too large for the link-level graph at dim %d (at most "
                          "%lld NPUs and %lld links)", d0 + 1, NPU_GRAPH_MAX_NPUS,
                          NPU_GRAPH_MAX_LINKS);
  for (int d = 0; d < net->ndims; d++)
    if (!(bw_gbps[d] > 0.0) || bw_gbps[d] >= HUGE_VAL)
      return weft_error_set(err, WEFT_EINPUT, net->file, net->line[d], 0, "bw_gbps",
                            "dim %d bandwidth must be a number > 0 for the link-level graph "
                            "(got %g)", d + 1, bw_gbps[d]);
  WeftGraph *g = weft_graph_create((int)lay.nodes);
  if (!g) return weft_error_set(err, WEFT_ENOMEM, net->file, 0, 0, NULL, "out of memory");
  for (int d = 0; d < net->ndims; d++) {
    rc = add_dim(g, net, &lay, d, bw_gbps[d]);
    if (rc) {
      weft_graph_free(g);
      return weft_error_set(err, rc, net->file, net->line[d], 0, NULL,
                            "cannot build the links of dim %d: %s", d + 1, weft_strerror(rc));
    }
  }
  *out = g;
  return WEFT_OK;
}

int weft_network_route(const WeftNetwork *net, int src, int dst, int *links, int max) {
  Layout lay;
  int d0;
  if (layout(net, &lay, &d0) || src < 0 || src >= lay.npus || dst < 0 || dst >= lay.npus || max < 0)
    return WEFT_EINVAL;
  long long cur = src;
  int h = 0;
#define EMIT_(id)                              \
  do {                                         \
    if (links) {                               \
      if (h >= max) return WEFT_EINVAL;        \
      links[h] = (int)(id);                    \
    }                                          \
    h++;                                       \
  } while (0)
  for (int d = 0; d < net->ndims; d++) {
    long long n = net->npus[d], st = lay.stride[d], b = lay.base[d];
    long long cs = (cur / st) % n, cd = ((long long)dst / st) % n;
    if (cs == cd) continue;
    switch (net->topology[d]) {
      case WEFT_RING: {
        long long fwd = (cd - cs + n) % n;
        int k = fwd <= n - fwd ? 0 : 1;  /* ties forward */
        long long step = k == 0 ? 1 : n - 1;
        for (long long c = cs; c != cd;) {
          EMIT_(b + cur * 2 + k);
          long long c2 = (c + step) % n;
          cur += (c2 - c) * st;
          c = c2;
        }
        break;
      }
      case WEFT_FULLY_CONNECTED:
        EMIT_(b + cur * (n - 1) + (cd < cs ? cd : cd - 1));
        cur += (cd - cs) * st;
        break;
      case WEFT_SWITCH:
        EMIT_(b + cur * 2);
        cur += (cd - cs) * st;
        EMIT_(b + cur * 2 + 1);
        break;
    }
  }
#undef EMIT_
  return h;
}

int weft_network_link_dim(const WeftNetwork *net, int link) {
  Layout lay;
  int d0;
  if (layout(net, &lay, &d0) || link < 0) return -1;
  for (int d = 0; d < net->ndims; d++)
    if (link < lay.base[d + 1]) return d;
  return -1;
}
