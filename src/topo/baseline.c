/* baseline.c — the fabrics TopoOpt is compared with (docs/topo.md): one ideal
 * switch, 2- and 3-tier Fat-trees, random regular expanders; and the Fat-tree
 * whose cost matches a budget. Servers are nodes 0..n-1 of every graph. */
#include "topo/baseline.h"
#include "topo/rng.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topo/fabric.h"
#include "topo/hamilton.h"

#define MAX_SERVERS (1 << 22)  /* keeps n x degree and node ids far inside int */
#define MAX_RADIX 1024         /* beyond any switch ASIC; bounds the at-cost search */

/* ------------------------------------------------------------------ shared */

static int bad_servers(int n, WeftError *err) {
  if (n >= 2 && n <= MAX_SERVERS) return WEFT_OK;
  return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "nservers",
                        "nservers must be 2 to %d, got %d", MAX_SERVERS, n);
}

static int bad_gbps(double gbps, const char *field, WeftError *err) {
  if (gbps > 0.0 && gbps < HUGE_VAL) return WEFT_OK;
  return weft_error_set(err, WEFT_EINPUT, "", 0, 0, field, "%s must be a finite number > 0, got %g",
                        field, gbps);
}

/* One cable a <-> b of gbps each way: links a -> b then b -> a; a
 * transceiver at each end, switch_ends of its ends in switch ports. */
static int add_cable(WeftGraph *g, int a, int b, double gbps, int switch_ends, FabricBom *bom) {
  int rc = weft_graph_add_link(g, a, b, gbps);
  if (rc < 0) return rc;
  if ((rc = weft_graph_add_link(g, b, a, gbps)) < 0) return rc;
  bom->transceiver_gbps += 2.0 * gbps;
  bom->switch_port_gbps += switch_ends * gbps;
  bom->fibers += 1.0;
  return WEFT_OK;
}

/* Wrap the finished graph (taken over, freed on failure) in a fabric and
 * index it, last. */
static int finish(WeftFabricKind kind, int n, WeftGraph *g, const FabricBom *bom, WeftFabric **out,
                  WeftError *err) {
  WeftFabric *f = fabric_new(kind, n, g);
  if (!f) {
    weft_graph_free(g);
    return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  }
  f->bom = *bom;
  int rc = fabric_index(f);
  if (rc == WEFT_OK && weft_graph_out(f->g, 0, NULL) < 0)  /* build the out-lists now, so that */
    rc = WEFT_ENOMEM;                                      /* routing only reads the graph */
  if (rc) {
    weft_fabric_free(f);
    return weft_error_set(err, rc, "", 0, 0, NULL, "out of memory");
  }
  *out = f;
  return WEFT_OK;
}

/* ------------------------------------------------------------------ switch */

int weft_fabric_switch(int nservers, double nic_gbps, WeftFabric **out, WeftError *err) {
  if (!out) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no output");
  *out = NULL;
  int rc;
  if ((rc = bad_servers(nservers, err)) || (rc = bad_gbps(nic_gbps, "nic_gbps", err))) return rc;
  WeftGraph *g = weft_graph_create(nservers + 1);  /* the switch is node n */
  if (!g) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  FabricBom bom = {0};
  bom.nic_gbps = nservers * nic_gbps;
  for (int s = 0; s < nservers; s++)
    if ((rc = add_cable(g, s, nservers, nic_gbps, 1, &bom))) {
      weft_graph_free(g);
      return weft_error_set(err, rc, "", 0, 0, NULL, "out of memory");
    }
  return finish(WEFT_FABRIC_SWITCH, nservers, g, &bom, out, err);
}

/* ------------------------------------------------------------------ Fat-tree */

/* A Fat-tree's shape: servers per leaf h (the last leaf may hold fewer),
 * uplinks per leaf u, leaves, leaves per pod (3 tiers), pods, and the switch
 * tiers built above the leaves (0: one leaf; 1: spines, or one pod's
 * aggregation; 2: aggregation and core). */
typedef struct {
  int h, u, leaves, per_pod, pods, up_tiers;
} FtShape;

/* Uplinks of a leaf of h servers: its h x nic / oversub up bandwidth in
 * whole nic links, rounded down (at least one): a fraction goes into
 * fewer, faster links rather than an extra slow one. */
static int ft_uplinks(int h, double oversub) {
  double u = floor(h / oversub);
  return u < 1.0 ? 1 : (int)u;
}

static int ft_shape(int n, int radix, int tiers, double oversub, FtShape *s, WeftError *err) {
  int rc;
  if ((rc = bad_servers(n, err))) return rc;
  if (radix < 2 || radix > MAX_RADIX)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "radix", "radix must be 2 to %d, got %d",
                          MAX_RADIX, radix);
  if (tiers != 2 && tiers != 3)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "tiers", "tiers must be 2 or 3, got %d",
                          tiers);
  if (!(oversub >= 1.0) || oversub >= HUGE_VAL)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "oversub",
                          "oversub must be a finite number >= 1, got %g", oversub);
  int lo = 1, hi = radix - 1;  /* the most servers h a leaf takes with its uplinks within radix: */
  while (lo < hi) {            /* h + uplinks(h) grows with h, and h = 1 always fits */
    int h = lo + (hi - lo + 1) / 2;
    if (h + ft_uplinks(h, oversub) <= radix) lo = h;
    else hi = h - 1;
  }
  s->h = lo;
  s->u = ft_uplinks(s->h, oversub);
  s->leaves = (n + s->h - 1) / s->h;
  s->per_pod = tiers == 3 ? radix / 2 : s->leaves;  /* an aggregation switch: half down, half up */
  s->pods = (s->leaves + s->per_pod - 1) / s->per_pod;
  long long most = tiers == 2 ? (long long)s->h * radix : (long long)s->h * (radix / 2) * radix;
  if (s->leaves > 1 && n > most)  /* spines (2 tiers) or cores (3) take one link per leaf / pod */
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "radix",
                          "%d servers do not fit a %d-tier fat-tree of radix %d at oversub %g "
                          "(at most %lld)",
                          n, tiers, radix, oversub, most);
  s->up_tiers = s->leaves == 1 ? 0 : (tiers == 2 || s->pods == 1) ? 1 : 2;
  return WEFT_OK;
}

/* The shape's cost at nic_gbps and oversub, from the bill of materials in
 * closed form: n server cables (NIC, 2 transceivers, 1 leaf port each), and
 * per tier above the leaves leaves x u cables carrying n x nic / oversub in
 * all (2 transceivers and 2 switch ports per GB/s). */
static double ft_cost(const FtShape *s, int n, double nic_gbps, double oversub,
                      const WeftPrices *p) {
  double end = p->transceiver_usd_per_gbps + p->switch_port_usd_per_gbps;
  double servers = n * nic_gbps *
                       (p->nic_port_usd_per_gbps + 2.0 * p->transceiver_usd_per_gbps +
                        p->switch_port_usd_per_gbps) +
                   n * p->fiber_usd;
  double tier = 2.0 * end * n * nic_gbps / oversub + (double)s->leaves * s->u * p->fiber_usd;
  return servers + s->up_tiers * tier;
}

/* Nodes: servers, leaves (server i on leaf i / h), then spines (or one
 * pod's aggregation switches); with two tiers up, pod p's aggregation
 * switches p*u + a, then the cores a*per_pod + j. Leaf i's uplinks carry
 * h_i x nic / oversub over u links, one to each switch above it;
 * aggregation switch a of a pod of P_p leaves sends what comes up to it on
 * P_p links, to cores (a, 0..P_p-1). */
int weft_fabric_fattree(int nservers, double nic_gbps, int radix, int tiers, double oversub,
                        WeftFabric **out, WeftError *err) {
  if (!out) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no output");
  *out = NULL;
  FtShape s;
  int rc, n = nservers;
  if ((rc = ft_shape(n, radix, tiers, oversub, &s, err)) ||
      (rc = bad_gbps(nic_gbps, "nic_gbps", err)))
    return rc;
  if (!(nic_gbps / (oversub * s.u) > 0.0) || !(s.h * nic_gbps < HUGE_VAL))
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "oversub",
                          "nic_gbps %g at oversub %g gives uplinks out of range", nic_gbps,
                          oversub);
  int L = s.leaves, u = s.u, P = s.per_pod;
  int mid = n + L, core = mid + (s.up_tiers == 2 ? s.pods * u : u);
  int nodes = s.up_tiers == 0 ? mid : s.up_tiers == 1 ? core : core + u * P;
  WeftGraph *g = weft_graph_create(nodes);
  if (!g) return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  FabricBom bom = {0};
  bom.nic_gbps = n * nic_gbps;
  for (int i = 0; i < n && !rc; i++) rc = add_cable(g, i, n + i / s.h, nic_gbps, 1, &bom);
  for (int l = 0; l < L && s.up_tiers >= 1 && !rc; l++) {
    int hl = l < L - 1 ? s.h : n - (L - 1) * s.h;
    double c = hl * nic_gbps / (oversub * u);
    for (int a = 0; a < u && !rc; a++)
      rc = add_cable(g, n + l, mid + (s.up_tiers == 2 ? (l / P) * u : 0) + a, c, 2, &bom);
  }
  for (int p = 0; p < s.pods && s.up_tiers == 2 && !rc; p++) {
    int first = p * P, pl = L - first < P ? L - first : P;
    double down = 0.0;  /* what the pod's leaves send up to each of its aggregation switches */
    for (int l = first; l < first + pl; l++)
      down += (l < L - 1 ? s.h : n - (L - 1) * s.h) * nic_gbps / (oversub * u);
    for (int a = 0; a < u && !rc; a++)
      for (int j = 0; j < pl && !rc; j++)
        rc = add_cable(g, mid + p * u + a, core + a * P + j, down / pl, 2, &bom);
  }
  if (rc) {
    weft_graph_free(g);
    return weft_error_set(err, rc, "", 0, 0, NULL, "out of memory");
  }
  return finish(WEFT_FABRIC_FATTREE, n, g, &bom, out, err);
}

/* ------------------------------------------------------------------ expander */

/* Uniform in [0, bound), bound >= 1: reject the low values that would bias
 * the modulo. */
static uint64_t rng_below(uint64_t *state, uint64_t bound) {
  uint64_t floor_ = (0 - bound) % bound, x;
  do x = topo_rng_next(state);
  while (x < floor_);
  return x % bound;
}

/* A simple d-regular graph as adjacency rows adj[v*d .. v*d+d). */
typedef struct {
  int n, d;
  int *adj;
} Regular;

static int reg_has(const Regular *r, int v, int w) {
  for (int k = 0; k < r->d; k++)
    if (r->adj[v * r->d + k] == w) return 1;
  return 0;
}

static void reg_replace(Regular *r, int v, int old, int new_) {
  for (int k = 0; k < r->d; k++)
    if (r->adj[v * r->d + k] == old) {
      r->adj[v * r->d + k] = new_;
      return;
    }
}

/* Replace edges a-b and c-x by a-c and b-x (degrees kept). */
static void reg_switch(Regular *r, int a, int b, int c, int x) {
  reg_replace(r, a, b, c);
  reg_replace(r, b, a, x);
  reg_replace(r, c, x, a);
  reg_replace(r, x, c, b);
}

/* Component labels (comp[v]) by BFS, parent[v] in the BFS forest (-1 at a
 * root); returns the component count. */
static int reg_components(const Regular *r, int *comp, int *parent, int *queue) {
  int nc = 0;
  for (int v = 0; v < r->n; v++) comp[v] = -1;
  for (int s = 0; s < r->n; s++) {
    if (comp[s] >= 0) continue;
    int head = 0, tail = 0;
    comp[s] = nc;
    parent[s] = -1;
    queue[tail++] = s;
    while (head < tail) {
      int v = queue[head++];
      for (int k = 0; k < r->d; k++) {
        int w = r->adj[v * r->d + k];
        if (comp[w] < 0) {
          comp[w] = nc;
          parent[w] = v;
          queue[tail++] = w;
        }
      }
    }
    nc++;
  }
  return nc;
}

/* An edge of component c off the BFS forest, so on a cycle: removing it
 * keeps the component connected. Every component of a graph of minimum
 * degree 2 has one (it has at least as many edges as nodes). */
static int reg_cycle_edge(const Regular *r, const int *comp, const int *parent, int c, int *a,
                          int *b) {
  for (int v = 0; v < r->n; v++) {
    if (comp[v] != c) continue;
    for (int k = 0; k < r->d; k++) {
      int w = r->adj[v * r->d + k];
      if (parent[w] != v && parent[v] != w) {
        *a = v;
        *b = w;
        return 1;
      }
    }
  }
  return 0;
}

/* Circulant start (offsets +-1..+-d/2, and n/2 when d is odd), 10 x edges
 * random double-edge switches that keep the graph simple (the switch chain's
 * stationary law is uniform over simple d-regular graphs), then, while
 * disconnected, join two components by switching an edge on a cycle of each
 * (each stays connected, the two new edges join them). */
static int reg_random(Regular *r, uint64_t seed) {
  int n = r->n, d = r->d;
  for (int v = 0; v < n; v++) {
    int k = 0;
    for (int off = 1; off <= d / 2; off++) {
      r->adj[v * d + k++] = (v + off) % n;
      r->adj[v * d + k++] = (v - off + n) % n;
    }
    if (d % 2) r->adj[v * d + k] = (v + n / 2) % n;
  }
  uint64_t st = seed;
  long long m = (long long)n * d / 2, tries = 10 * m;
  for (long long t = 0; t < tries && m >= 2; t++) {
    int a = (int)rng_below(&st, (uint64_t)n), b = r->adj[a * d + rng_below(&st, (uint64_t)d)];
    int c = (int)rng_below(&st, (uint64_t)n), x = r->adj[c * d + rng_below(&st, (uint64_t)d)];
    /* an edge drawn as (node, one of its ports): uniform over edges and their two directions */
    if (a == c || a == x || b == c || b == x || reg_has(r, a, c) || reg_has(r, b, x)) continue;
    reg_switch(r, a, b, c, x);
  }
  int *comp = malloc((size_t)n * 3 * sizeof *comp);
  if (!comp) return WEFT_ENOMEM;
  int *parent = comp + n, *queue = comp + 2 * n;
  while (reg_components(r, comp, parent, queue) > 1) {
    int a, b, c, x, other = 0;
    while (comp[other] == 0) other++;
    if (!reg_cycle_edge(r, comp, parent, 0, &a, &b) ||
        !reg_cycle_edge(r, comp, parent, comp[other], &c, &x))
      break;  /* not reached for d >= 2; d = 1 is only allowed for n = 2 (connected) */
    reg_switch(r, a, b, c, x);
  }
  free(comp);
  return WEFT_OK;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The expander's cycles: pos[c*n + v] = v's position on cycle c. */
typedef struct {
  int ncycles, n;
  int *pos;
} Cycles;

static void cycles_free(void *impl) {
  Cycles *c = impl;
  if (c) free(c->pos);
  free(c);
}

/* AllReduce rings along the Hamiltonian cycles (hamilton.h); a graph
 * without them (the fallback, d = 1): a ring in member order, both ways. */
static int expander_rings(const WeftFabric *f, const WeftAllReduce *ar, int *succ, int max_rings) {
  const Cycles *c = f->impl;
  if (c && c->ncycles > 0 && max_rings >= 2)
    return topo_cycle_rings(c->pos, c->ncycles, c->n, ar, succ, max_rings);
  int g = ar->size;
  for (int i = 0; i < g; i++) {
    succ[i] = (i + 1) % g;
    succ[g + i] = (i + g - 1) % g;
  }
  return max_rings >= 2 ? 2 : 1;
}

int weft_fabric_expander(int nservers, int degree, double port_gbps, unsigned long long seed,
                         WeftFabric **out, WeftError *err) {
  if (!out) return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL, "no output");
  *out = NULL;
  int rc, n = nservers, d = degree;
  if ((rc = bad_servers(n, err)) || (rc = bad_gbps(port_gbps, "port_gbps", err))) return rc;
  if (d < 1 || d > WEFT_TOPO_MAX_DEGREE || d > n - 1)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "degree",
                          "degree must be 1 to %d and below nservers (%d), got %d",
                          WEFT_TOPO_MAX_DEGREE, n, d);
  if ((long long)n * d % 2)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "degree",
                          "nservers x degree must be even (%d x %d)", n, d);
  if (d == 1 && n > 2)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "degree",
                          "degree 1 cannot connect %d servers (a matching)", n);
  Regular r = {n, d, malloc((size_t)n * (size_t)d * sizeof(int))};
  Cycles *cy = calloc(1, sizeof *cy);
  int *seq = d >= 2 ? malloc((size_t)(d / 2) * (size_t)n * sizeof *seq) : NULL;
  rc = r.adj && cy && (d < 2 || seq) ? WEFT_OK : WEFT_ENOMEM;
  /* d/2 Hamiltonian cycles (+ a matching); where none are found (dense
   * graphs, d close to n) or d = 1, the switch chain's graph and rings in
   * member order */
  int found = 1;
  if (!rc && d >= 2) {
    found = topo_hamilton_regular(n, d, seed, r.adj, seq);
    if (found == WEFT_ENOMEM) rc = WEFT_ENOMEM;
  }
  if (!rc && found == 0) {
    cy->ncycles = d / 2;
    cy->n = n;
    if (!(cy->pos = malloc((size_t)cy->ncycles * (size_t)n * sizeof *cy->pos))) rc = WEFT_ENOMEM;
    for (int c = 0; !rc && c < cy->ncycles; c++)
      for (int i = 0; i < n; i++) cy->pos[c * n + seq[c * n + i]] = i;
  } else if (!rc) {
    rc = reg_random(&r, seed);
  }
  free(seq);
  if (rc) {
    free(r.adj);
    cycles_free(cy);
    return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  }
  WeftGraph *g = weft_graph_create(n);
  FabricBom bom = {0};
  rc = g ? WEFT_OK : WEFT_ENOMEM;
  for (int v = 0; v < n && !rc; v++) {  /* links in (v, w) order: the same graph, the same ids */
    qsort(r.adj + v * d, (size_t)d, sizeof(int), cmp_int);
    for (int k = 0; k < d && !rc; k++)
      if (r.adj[v * d + k] > v) rc = add_cable(g, v, r.adj[v * d + k], port_gbps, 0, &bom);
  }
  free(r.adj);
  if (rc) {
    weft_graph_free(g);
    cycles_free(cy);
    return weft_error_set(err, WEFT_ENOMEM, "", 0, 0, NULL, "out of memory");
  }
  bom.nic_gbps = (double)n * d * port_gbps;  /* n d ports of B; the cables: n d B of
                                                transceivers, n d / 2 fibers */
  rc = finish(WEFT_FABRIC_EXPANDER, n, g, &bom, out, err);
  if (rc) {
    cycles_free(cy);
    return rc;
  }
  (*out)->impl = cy;
  (*out)->impl_free = cycles_free;
  (*out)->rings = expander_rings;
  return WEFT_OK;
}

/* ------------------------------------------------------------------ Fat-tree at a cost */

/* Below the target by a relative hair, so that summing the bill of
 * materials in another order cannot land a cent above it. */
#define AT_COST_MARGIN 1e-12

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Best oversub at nic: candidates are every breakpoint h/j (1 <= j < h <
 * radix) where the shape may change, and in each open piece between two of
 * them (and past the last) the oversub where A + B/oversub meets the
 * target, clipped into the piece by 1e-4 of its width (the shape is
 * evaluated away from the breakpoints' rounding). *best_usd < 0: none. */
static int ft_best_oversub(int n, int radix, int tiers, double nic, double target,
                           const WeftPrices *p, double *best_o, double *best_usd) {
  size_t nb = 1;
  double *b = malloc(((size_t)radix * (size_t)radix / 2 + 2) * sizeof *b);
  if (!b) return WEFT_ENOMEM;
  b[0] = 1.0;
  for (int h = 2; h < radix; h++)
    for (int j = 1; j < h; j++) b[nb++] = (double)h / j;
  qsort(b, nb, sizeof *b, by_value);
  size_t k = 1;
  for (size_t i = 1; i < nb; i++)
    if (b[i] > b[k - 1]) b[k++] = b[i];
  nb = k;
  *best_usd = -1.0;
  for (size_t i = 0; i < 2 * nb; i++) {
    FtShape s;
    double o, lo, hi;
    if (i % 2 == 0) {  /* the breakpoint itself */
      lo = hi = o = b[i / 2];
    } else {
      double left = b[i / 2], right = i / 2 + 1 < nb ? b[i / 2 + 1] : HUGE_VAL;
      double w = right < HUGE_VAL ? right - left : left;
      lo = left + 1e-4 * w;
      hi = right < HUGE_VAL ? right - 1e-4 * w : HUGE_VAL;
      o = right < HUGE_VAL ? 0.5 * (lo + hi) : 2.0 * left;
    }
    if (ft_shape(n, radix, tiers, o, &s, NULL)) continue;  /* n does not fit this shape */
    double A = ft_cost(&s, n, nic, HUGE_VAL, p), B = ft_cost(&s, n, nic, 1.0, p) - A;
    if (A + B / hi > target) continue;  /* cost falls with oversub: even hi is too dear */
    if (A + B / lo <= target) o = lo;
    else o = fmin(hi, fmax(lo, B / (target - A)));
    while (ft_cost(&s, n, nic, o, p) > target && o < hi) o = fmin(hi, o * (1.0 + 1e-12));
    double usd = ft_cost(&s, n, nic, o, p);
    if (usd <= target && (usd > *best_usd || (usd == *best_usd && o < *best_o))) {
      *best_usd = usd;
      *best_o = o;
    }
  }
  free(b);
  return WEFT_OK;
}

int fabric_fattree_at_cost(int n, int radix, int tiers, double target_usd, const WeftPrices *p,
                           double *nic_gbps, double *oversub, WeftFabric **out, WeftError *err) {
  if (out) *out = NULL;
  if (!p || !nic_gbps || !oversub || (*nic_gbps == 0.0) == (*oversub == 0.0))
    return weft_error_set(err, WEFT_EINVAL, "", 0, 0, NULL,
                          "fat-tree at cost: give prices, and exactly one of nic_gbps and "
                          "oversub as 0");
  if (!(target_usd > 0.0) || target_usd >= HUGE_VAL)
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "target_usd",
                          "target_usd must be a finite number > 0, got %g", target_usd);
  double target = target_usd * (1.0 - AT_COST_MARGIN), nic = *nic_gbps, o = *oversub;
  FtShape s;
  int rc;
  if (nic == 0.0) {  /* cost = a x nic + b: the shape does not depend on nic */
    if ((rc = ft_shape(n, radix, tiers, o, &s, err))) return rc;
    double b = ft_cost(&s, n, 0.0, o, p), a = ft_cost(&s, n, 1.0, o, p) - b;
    if (!(a > 0.0))
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "target_usd",
                            "the prices put no cost on bandwidth: a budget cannot set nic_gbps");
    nic = (target - b) / a;
    if (!(nic > 0.0) || nic >= HUGE_VAL)
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "target_usd",
                            "no %d-tier fat-tree of radix %d at oversub %g costs at most $%.2f "
                            "(its %d cables alone cost $%.2f)",
                            tiers, radix, o, target_usd, n + s.up_tiers * s.leaves * s.u, b);
  } else {  /* at oversub = radix a leaf has one uplink and radix - 1 servers: the most n fits */
    if ((rc = bad_gbps(nic, "nic_gbps", err)) || (rc = ft_shape(n, radix, tiers, radix, &s, err)))
      return rc;
    double usd;
    if ((rc = ft_best_oversub(n, radix, tiers, nic, target, p, &o, &usd)))
      return weft_error_set(err, rc, "", 0, 0, NULL, "out of memory");
    if (usd < 0.0)
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "target_usd",
                            "no %d-tier fat-tree of radix %d at nic_gbps %g costs at most $%.2f",
                            tiers, radix, nic, target_usd);
  }
  WeftFabric *f = NULL;
  for (int tries = 0;; tries++) {  /* the built bill of materials has the last word */
    if ((rc = weft_fabric_fattree(n, nic, radix, tiers, o, &f, err))) return rc;
    if (weft_fabric_cost(f, p) <= target_usd || tries == 8) break;
    weft_fabric_free(f);
    if (*nic_gbps == 0.0) nic *= 1.0 - 1e-12;
    else o *= 1.0 + 1e-12;
  }
  if (weft_fabric_cost(f, p) > target_usd) {
    weft_fabric_free(f);
    return weft_error_set(err, WEFT_EINPUT, "", 0, 0, "target_usd",
                          "no fat-tree found at or below $%.2f", target_usd);
  }
  *nic_gbps = nic;
  *oversub = o;
  if (out) *out = f;
  else weft_fabric_free(f);
  return WEFT_OK;
}

/* The public form: the NIC given (*nic_gbps > 0 on entry, the servers'
 * bandwidth), oversubscribed until the tree costs target_usd; when even the
 * most oversubscribed tree costs more, a smaller NIC at 1:1 instead. */
int weft_fabric_fattree_at_cost(int nservers, int radix, int tiers, double target_usd,
                                const WeftPrices *p, double *nic_gbps, double *oversub,
                                WeftFabric **out, WeftError *err) {
  double nic = *nic_gbps, over = 0.0;
  int rc = fabric_fattree_at_cost(nservers, radix, tiers, target_usd, p, &nic, &over, out, err);
  if (rc == WEFT_EINPUT && !strcmp(err->field, "target_usd")) {
    nic = 0.0;
    over = 1.0;
    rc = fabric_fattree_at_cost(nservers, radix, tiers, target_usd, p, &nic, &over, out, err);
  }
  if (!rc) {
    *nic_gbps = nic;
    *oversub = over;
  }
  return rc;
}
