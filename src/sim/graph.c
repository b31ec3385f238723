/* graph.c — a directed graph with link capacities (WeftGraph): links in
 * arrays by id, the out-adjacency as CSR rebuilt lazily after adds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

struct WeftGraph {
  int nnodes, nlinks, cap;
  int *from, *to;
  double *bw_gbps;
  int csr_nlinks;  /* links the CSR covers; -1 = never built */
  int *csr_off;    /* nnodes + 1 offsets into csr_link */
  int *csr_link;   /* link ids grouped by source node, in the order added */
};

WeftGraph *weft_graph_create(int nnodes) {
  if (nnodes < 1) return NULL;
  WeftGraph *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->nnodes = nnodes;
  g->csr_nlinks = -1;
  return g;
}

void weft_graph_free(WeftGraph *g) {
  if (!g) return;
  free(g->from);
  free(g->to);
  free(g->bw_gbps);
  free(g->csr_off);
  free(g->csr_link);
  free(g);
}

/* Grow the link arrays to hold at least need links (doubling). */
static int reserve(WeftGraph *g, int need) {
  if (need <= g->cap) return WEFT_OK;
  int cap = g->cap ? g->cap : 16;
  while (cap < need) {
    if (cap > (1 << 29)) return WEFT_ENOMEM;  /* ids stay well inside int */
    cap *= 2;
  }
  int *from = realloc(g->from, (size_t)cap * sizeof *from);
  if (!from) return WEFT_ENOMEM;
  g->from = from;
  int *to = realloc(g->to, (size_t)cap * sizeof *to);
  if (!to) return WEFT_ENOMEM;
  g->to = to;
  double *bw = realloc(g->bw_gbps, (size_t)cap * sizeof *bw);
  if (!bw) return WEFT_ENOMEM;
  g->bw_gbps = bw;
  g->cap = cap;
  return WEFT_OK;
}

int weft_graph_add_link(WeftGraph *g, int from, int to, double bw_gbps) {
  if (!g || from < 0 || from >= g->nnodes || to < 0 || to >= g->nnodes) return WEFT_EINVAL;
  if (!(bw_gbps > 0.0) || bw_gbps >= HUGE_VAL) return WEFT_EINVAL;
  int rc = reserve(g, g->nlinks + 1);
  if (rc) return rc;
  g->from[g->nlinks] = from;
  g->to[g->nlinks] = to;
  g->bw_gbps[g->nlinks] = bw_gbps;
  return g->nlinks++;
}

int weft_graph_nodes(const WeftGraph *g) { return g ? g->nnodes : 0; }
int weft_graph_nlinks(const WeftGraph *g) { return g ? g->nlinks : 0; }

int weft_graph_link(const WeftGraph *g, int link, int *from, int *to, double *bw_gbps) {
  if (!g || link < 0 || link >= g->nlinks) return WEFT_EINVAL;
  if (from) *from = g->from[link];
  if (to) *to = g->to[link];
  if (bw_gbps) *bw_gbps = g->bw_gbps[link];
  return WEFT_OK;
}

/* Counting sort of the links by source; stable, so each node's links stay
 * in the order added. */
static int build_csr(WeftGraph *g) {
  int *off = realloc(g->csr_off, ((size_t)g->nnodes + 1) * sizeof *off);
  if (!off) return WEFT_ENOMEM;
  g->csr_off = off;
  int *lk = realloc(g->csr_link, (size_t)(g->nlinks ? g->nlinks : 1) * sizeof *lk);
  if (!lk) return WEFT_ENOMEM;
  g->csr_link = lk;
  memset(off, 0, ((size_t)g->nnodes + 1) * sizeof *off);
  for (int l = 0; l < g->nlinks; l++) off[g->from[l] + 1]++;
  for (int v = 0; v < g->nnodes; v++) off[v + 1] += off[v];
  for (int l = 0; l < g->nlinks; l++) lk[off[g->from[l]]++] = l;
  for (int v = g->nnodes; v > 0; v--) off[v] = off[v - 1];  /* undo the fill's shift */
  off[0] = 0;
  g->csr_nlinks = g->nlinks;
  return WEFT_OK;
}

int weft_graph_out(WeftGraph *g, int node, const int **links) {
  if (!g || node < 0 || node >= g->nnodes) return WEFT_EINVAL;
  if (g->csr_nlinks != g->nlinks) {
    int rc = build_csr(g);
    if (rc) return rc;
  }
  if (links) *links = g->csr_link + g->csr_off[node];
  return g->csr_off[node + 1] - g->csr_off[node];
}
