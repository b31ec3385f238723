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
  free(f->hop_off);
  free(f->hop_link);
  free(f->hop_to);
  free(f->hop_by_to);
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

/* Order of a node's out-link positions: by head, then position. */
typedef struct {
  int to, pos;
} HopKey;

static int by_head(const void *a, const void *b) {
  const HopKey *x = a, *y = b;
  if (x->to != y->to) return (x->to > y->to) - (x->to < y->to);
  return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The router's adjacency (fabric.h: hop_off .. hop_by_to) from the graph's
 * out-lists, which the caller has built. */
static int index_hops(WeftFabric *f) {
  int V = weft_graph_nodes(f->g), L = weft_graph_nlinks(f->g), most = 0;
  free(f->hop_off);
  free(f->hop_link);
  free(f->hop_to);
  free(f->hop_by_to);
  f->hop_off = malloc(((size_t)V + 1) * sizeof *f->hop_off);
  f->hop_link = malloc((size_t)(L ? L : 1) * sizeof *f->hop_link);
  f->hop_to = malloc((size_t)(L ? L : 1) * sizeof *f->hop_to);
  f->hop_by_to = malloc((size_t)(L ? L : 1) * sizeof *f->hop_by_to);
  if (!f->hop_off || !f->hop_link || !f->hop_to || !f->hop_by_to) return WEFT_ENOMEM;
  f->hop_off[0] = 0;
  for (int v = 0; v < V; v++) {
    const int *out;
    int k = weft_graph_out(f->g, v, &out);
    if (k < 0) return WEFT_ENOMEM;
    for (int j = 0; j < k; j++) {
      f->hop_link[f->hop_off[v] + j] = out[j];
      weft_graph_link(f->g, out[j], NULL, &f->hop_to[f->hop_off[v] + j], NULL);
    }
    f->hop_off[v + 1] = f->hop_off[v] + k;
    if (k > most) most = k;
  }
  HopKey *key = malloc((size_t)(most ? most : 1) * sizeof *key);
  if (!key) return WEFT_ENOMEM;
  for (int v = 0; v < V; v++) {
    int o = f->hop_off[v], k = f->hop_off[v + 1] - o;
    for (int j = 0; j < k; j++) key[j] = (HopKey){f->hop_to[o + j], j};
    qsort(key, (size_t)k, sizeof *key, by_head);
    for (int j = 0; j < k; j++) f->hop_by_to[o + j] = key[j].pos;
  }
  free(key);
  return WEFT_OK;
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
  if ((rc = index_hops(f))) return rc;
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

/* Depth first along links that bring dst one hop closer, each node trying
 * its out-links from the hashed start on (positions s0, s0+1, ... mod k).
 * One hop away, only links into dst qualify: they are found by binary
 * search in hop_by_to and taken in that same rotated order, so the paths
 * are the scan's. */
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
  int o = f->hop_off[v], k = f->hop_off[v + 1] - o;
  if (k <= 0) return;
  unsigned s0 = ecmp_start(src, dst, v) % (unsigned)k;
  if (d[v] == 1) { /* the last hop: the links v -> dst, positions ascending in hop_by_to */
    const int *by = f->hop_by_to + o;
    int lo = 0, hi = k;
    while (lo < hi) { /* the first position whose head is >= dst */
      int mid = lo + (hi - lo) / 2;
      if (f->hop_to[o + by[mid]] < dst) lo = mid + 1;
      else hi = mid;
    }
    int end = lo;
    while (end < k && f->hop_to[o + by[end]] == dst) end++;
    int first = lo; /* rotated order: positions >= s0, then those below */
    while (first < end && by[first] < (int)s0) first++;
    for (int j = 0; j < end - lo && *np < max_paths; j++) {
      int pos = by[first + j < end ? first + j : lo + (first + j - end)];
      path[depth] = f->hop_link[o + pos];
      ecmp_walk(f, src, dst, dst, d, path, depth + 1, links, max_links, len, max_paths, np, used);
    }
    return;
  }
  for (int j = 0; j < k && *np < max_paths; j++) {
    int i = (int)((s0 + (unsigned)j) % (unsigned)k), to = f->hop_to[o + i];
    if (d[to] >= 0 && d[to] == d[v] - 1) {
      path[depth] = f->hop_link[o + i];
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

/* ------------------------------------------------------------ route memo */

struct FabricRoutes {
  const WeftFabric *f;
  int n, max_links, max_paths;
  long long *at;       /* n x n: offset of the pair's entry in pool, -1 not yet routed */
  int *pool;           /* an entry: count (or error), len[count], then the links */
  size_t used, cap;
};

FabricRoutes *fabric_routes_create(const WeftFabric *f, int max_links, int max_paths) {
  if (!f || f->nservers > FABRIC_ROUTES_MAX_SERVERS || max_links < 1 || max_paths < 1) return NULL;
  FabricRoutes *r = calloc(1, sizeof *r);
  size_t nn = (size_t)f->nservers * (size_t)f->nservers;
  if (!r || !(r->at = malloc(nn * sizeof *r->at))) {
    free(r);
    return NULL;
  }
  for (size_t i = 0; i < nn; i++) r->at[i] = -1;
  r->f = f;
  r->n = f->nservers;
  r->max_links = max_links;
  r->max_paths = max_paths;
  return r;
}

void fabric_routes_free(FabricRoutes *r) {
  if (!r) return;
  free(r->at);
  free(r->pool);
  free(r);
}

int fabric_routes_get(FabricRoutes *r, int src, int dst, const int **links, const int **len) {
  if (src < 0 || dst < 0 || src >= r->n || dst >= r->n) return WEFT_EINVAL;
  long long *at = &r->at[(size_t)src * (size_t)r->n + (size_t)dst];
  if (*at < 0) { /* route it: the largest entry is 1 + max_paths + max_links ints */
    size_t need = r->used + 1 + (size_t)r->max_paths + (size_t)r->max_links;
    if (need > r->cap) {
      size_t cap = r->cap ? 2 * r->cap : 4096;
      while (cap < need) cap *= 2;
      int *p = realloc(r->pool, cap * sizeof *p);
      if (!p) return WEFT_ENOMEM;
      r->pool = p;
      r->cap = cap;
    }
    int *e = r->pool + r->used, *lk = e + 1 + r->max_paths;
    int np = weft_fabric_paths(r->f, src, dst, lk, r->max_links, e + 1, r->max_paths);
    e[0] = np;
    int total = 0;
    for (int p = 0; p < np; p++) total += e[1 + p];
    if (np > 0) memmove(e + 1 + np, lk, (size_t)total * sizeof *lk); /* close the gap */
    *at = (long long)r->used;
    r->used += 1 + (size_t)(np > 0 ? np + total : 0);
  }
  const int *e = r->pool + *at;
  *len = e + 1;
  *links = e + 1 + (e[0] > 0 ? e[0] : 0);
  return e[0];
}
