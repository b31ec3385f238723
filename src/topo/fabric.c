/* fabric.c — the fabric shell shared by every builder: accessors, the
 * equal-cost shortest-path router, cost from the bill of materials. */
#include "topo/fabric.h"

#include <stdlib.h>
#include <string.h>

WeftFabric *fabric_new(WeftFabricKind kind, int nservers, WeftGraph *g) {
  WeftFabric *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->kind = kind;
  f->nservers = nservers;
  f->g = g;
  f->kpaths = 4;
  return f;
}

void weft_fabric_free(WeftFabric *f) {
  if (!f) return;
  if (f->impl_free) f->impl_free(f->impl);
  weft_graph_free(f->g);
  free(f->mp);
  free(f->dist);
  free(f);
}

WeftFabricKind weft_fabric_kind(const WeftFabric *f) { return f->kind; }
const WeftGraph *weft_fabric_graph(const WeftFabric *f) { return f->g; }
int weft_fabric_servers(const WeftFabric *f) { return f->nservers; }

int weft_fabric_strides(const WeftFabric *f, const int **strides) {
  *strides = f->strides;
  return f->nstrides;
}

int weft_fabric_mp_links(const WeftFabric *f, const int **pairs) {
  *pairs = f->mp;
  return f->nmp;
}

/* Hop counts from every node to every server, by one BFS per server over
 * the reversed links (a fabric is built once and routed many times). */
int fabric_index(WeftFabric *f) {
  free(f->dist);
  int V = weft_graph_nodes(f->g), L = weft_graph_nlinks(f->g), n = f->nservers;
  f->dist = malloc((size_t)V * (size_t)n * sizeof *f->dist);
  int *queue = malloc((size_t)V * sizeof *queue), *fill = malloc((size_t)V * sizeof *fill);
  int *indeg = calloc((size_t)V + 1, sizeof *indeg), *in = malloc((size_t)(L ? L : 1) * sizeof *in);
  int *from = malloc((size_t)(L ? L : 1) * sizeof *from), *to = malloc((size_t)(L ? L : 1) * sizeof *to);
  int rc = f->dist && queue && fill && indeg && in && from && to ? WEFT_OK : WEFT_ENOMEM;
  for (int l = 0; !rc && l < L; l++) { /* links into each node, CSR: the sources */
    weft_graph_link(f->g, l, &from[l], &to[l], NULL);
    indeg[to[l] + 1]++;
  }
  for (int v = 0; !rc && v < V; v++) indeg[v + 1] += indeg[v];
  if (!rc) memcpy(fill, indeg, (size_t)V * sizeof *fill);
  for (int l = 0; !rc && l < L; l++) in[fill[to[l]]++] = from[l];
  for (int s = 0; !rc && s < n; s++) {
    int *d = f->dist + (size_t)s * (size_t)V, head = 0, tail = 0;
    for (int v = 0; v < V; v++) d[v] = -1;
    d[s] = 0;
    queue[tail++] = s;
    while (head < tail) {
      int v = queue[head++];
      for (int k = indeg[v]; k < indeg[v + 1]; k++) {
        int u = in[k];
        if (d[u] < 0) {
          d[u] = d[v] + 1;
          queue[tail++] = u;
        }
      }
    }
  }
  free(queue);
  free(fill);
  free(indeg);
  free(in);
  free(from);
  free(to);
  if (rc) return rc;
  const int *out; /* build the graph's adjacency now: routing may then run on threads */
  if (V && weft_graph_out(f->g, 0, &out) < 0) return WEFT_ENOMEM;
  f->dist_ready = 1;
  return WEFT_OK;
}

int fabric_hops(const WeftFabric *f, int src, int dst) {
  if (!f->dist_ready) return -1;
  return f->dist[(size_t)dst * (size_t)weft_graph_nodes(f->g) + (size_t)src];
}

/* Where a node starts its choice of next hop for the pair (src, dst): a
 * hash, as ECMP switches do per flow, so pairs spread over the equal-cost
 * links instead of all taking the first. */
static unsigned ecmp_start(int src, int dst, int v) {
  unsigned long long h = ((unsigned long long)(unsigned)src << 42) ^
                         ((unsigned long long)(unsigned)dst << 21) ^ (unsigned)v;
  h *= 0x9E3779B97F4A7C15ull;
  return (unsigned)(h >> 40);
}

/* Depth first along links that bring dst one hop closer. */
static void ecmp_walk(const WeftFabric *f, int src, int v, int dst, const int *d, int *path,
                      int depth, int *links, int max_links, int *len, int max_paths, int *np,
                      int *used) {
  if (*np >= max_paths) return;
  if (v == dst) {
    if (*used + depth > max_links) return;
    memcpy(links + *used, path, (size_t)depth * sizeof *path);
    len[(*np)++] = depth;
    *used += depth;
    return;
  }
  const int *out;
  int k = weft_graph_out(f->g, v, &out);
  unsigned s0 = k > 0 ? ecmp_start(src, dst, v) % (unsigned)k : 0;
  for (int j = 0; j < k && *np < max_paths; j++) {
    int i = (int)((s0 + (unsigned)j) % (unsigned)k), to;
    weft_graph_link(f->g, out[i], NULL, &to, NULL);
    if (d[to] >= 0 && d[to] == d[v] - 1) {
      path[depth] = out[i];
      ecmp_walk(f, src, to, dst, d, path, depth + 1, links, max_links, len, max_paths, np, used);
    }
  }
}

int fabric_paths_ecmp(const WeftFabric *f, int src, int dst, int *links, int max_links,
                      int *len, int max_paths) {
  int h = fabric_hops(f, src, dst);
  if (h <= 0) return h < 0 ? WEFT_EINVAL : 0;
  int path[256];
  if (h > 256) return WEFT_EINVAL;
  const int *d = f->dist + (size_t)dst * (size_t)weft_graph_nodes(f->g);
  int np = 0, used = 0;
  ecmp_walk(f, src, src, dst, d, path, 0, links, max_links, len, max_paths, &np, &used);
  return np;
}

int weft_fabric_paths(const WeftFabric *f, int src, int dst, int *links, int max_links,
                      int *len, int max_paths) {
  if (!f || src < 0 || dst < 0 || src >= f->nservers || dst >= f->nservers || src == dst ||
      !links || !len || max_paths < 1)
    return WEFT_EINVAL;
  return f->paths ? f->paths(f, src, dst, links, max_links, len, max_paths)
                  : fabric_paths_ecmp(f, src, dst, links, max_links, len, max_paths);
}

void weft_fabric_price_qty(const WeftFabric *f, int ocs, double qty[WEFT_NPRICES]) {
  const FabricBom *b = &f->bom;
  qty[WEFT_PRICE_NIC_PORT] = b->nic_gbps;
  qty[WEFT_PRICE_TRANSCEIVER] = b->transceiver_gbps;
  qty[WEFT_PRICE_SWITCH_PORT] = b->switch_port_gbps;
  qty[WEFT_PRICE_PATCH_PANEL] = ocs ? 0.0 : b->panel_ports;
  qty[WEFT_PRICE_OCS_PORT] = ocs ? b->panel_ports : 0.0;
  qty[WEFT_PRICE_FIBER] = b->fibers;
}

/* Summed in the table's order, the same every time (fabric_fattree_at_cost
 * relies on it landing under its target). */
double weft_fabric_cost(const WeftFabric *f, const WeftPrices *p) {
  double qty[WEFT_NPRICES], usd = 0;
  WeftPrices c = *p;
  weft_fabric_price_qty(f, p->use_ocs, qty);
  for (int k = 0; k < WEFT_NPRICES; k++) usd += *weft_price_field(&c, (WeftPriceKey)k) * qty[k];
  return usd;
}
